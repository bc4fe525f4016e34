//! The mapping cache: where the controller finds a command's logical-to-physical entries, and what that
//! costs. With the whole map in DRAM every lookup hits.

use super::ControllerCounters;
use crate::config::{MapCacheConfig, MapLocation};
use crate::engine::Ns;
use crate::ftl::Lpn;

#[derive(Clone, Debug)]
pub struct MapCache {
    location: MapLocation,
    lookup_ns: Ns,
}

impl MapCache {
    pub fn new(c: &MapCacheConfig) -> Self {
        MapCache { location: c.location, lookup_ns: c.lookup_ns }
    }

    /// Time to fetch the map entries of `n` LPNs from `lpn` (one lookup per command: the entries of a
    /// command are contiguous in the map).
    pub fn lookup(&mut self, _lpn: Lpn, _n: u32, counters: &mut ControllerCounters) -> Ns {
        counters.map_lookups += 1;
        match self.location {
            MapLocation::Dram => {
                counters.map_hits += 1;
                self.lookup_ns
            }
        }
    }
}
