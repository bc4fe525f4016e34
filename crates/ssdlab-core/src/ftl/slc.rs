//! The dynamic SLC cache: its budget, where host data goes, and which SLC blocks to fold.

use super::{mode_index, BlockState, Ftl};
use crate::config::PostCache;
use crate::nand::CellMode;

impl Ftl {
    /// Host data held in SLC-mode blocks, in slots.
    pub fn slc_used_slots(&self) -> u64 {
        self.slc_valid
    }

    /// How much host data the SLC cache may hold now, in slots (0 without a cache).
    pub fn slc_budget_slots(&self) -> u64 {
        if !self.slc.enabled {
            return 0;
        }
        let unwritten_lpns = u64::from(self.user_lpns()).saturating_sub(self.mapped);
        let unwritten = (unwritten_lpns * u64::from(self.slots_per_lpn)) as f64;
        self.slc_static_slots
            + (self.slc.dynamic_fraction * unwritten / f64::from(self.geo.bits_per_cell)) as u64
    }

    /// Where the next host program unit goes: SLC while the cache has room, else by the post-cache policy.
    pub(super) fn host_mode(&self) -> CellMode {
        if !self.slc.enabled {
            return CellMode::Native;
        }
        let unit = u64::from(self.geo.slots_per_program(CellMode::Slc));
        if self.slc_valid + unit <= self.slc_budget_slots() || self.slc.post_cache == PostCache::Fold {
            CellMode::Slc
        } else {
            CellMode::Native
        }
    }

    /// The closed SLC block on `die` with the least valid data.
    pub(super) fn slc_victim(&self, die: u32) -> Option<u32> {
        if self.slc_closed[die as usize] == 0 {
            return None;
        }
        self.die_blocks(die)
            .filter(|&b| {
                let i = &self.blocks[b as usize];
                i.state == BlockState::Closed && i.mode == CellMode::Slc
            })
            .min_by_key(|&b| (self.blocks[b as usize].valid, b))
    }

    /// True if `die` has a closed SLC block to fold; an open SLC host block that no host program unit is
    /// filling is closed for the purpose, so idle folding can empty the cache completely.
    pub(super) fn close_idle_slc_block(&mut self, die: u32) -> bool {
        if self.slc_closed[die as usize] == 0 {
            if let Some(b) = self.host_open[die as usize][mode_index(CellMode::Slc)] {
                if self.host_units[die as usize].as_ref().is_none_or(|u| u.block != b) {
                    self.host_open[die as usize][mode_index(CellMode::Slc)] = None;
                    self.blocks[b as usize].state = BlockState::Closed;
                    self.slc_closed[die as usize] += 1;
                }
            }
        }
        self.slc_closed[die as usize] > 0
    }
}
