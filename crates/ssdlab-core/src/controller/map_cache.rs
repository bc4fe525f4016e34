//! The mapping cache: where the controller finds a command's logical-to-physical entries, and what that
//! costs.
//!
//! The map is cut into map pages (`map_page_kib`, 4-byte entries: a 4 KiB map page covers 4 MiB of LBA
//! span). Where they are cached is `location`:
//!
//! - `dram`: the whole map in on-board DRAM; every lookup hits and costs `lookup_ns`.
//! - `hmb`: an LRU cache of map pages in the host memory buffer. A hit is a PCIe round trip (the read
//!   request's one-way latency, then the entries come down the link as a completion, sharing the
//!   host-to-device direction with write data) plus `lookup_ns`; each HMB access may see an injected
//!   single-bit error (corrected by SECDED, `hmb_ecc_correct_ns` more) or double-bit error (detected: the
//!   map page is read again from NAND). A miss reads the map page from NAND and writes it up into the HMB.
//! - `sram`: the same LRU cache on the controller: no link crossings.
//!
//! A miss costs one NAND read of the map page (SLC mode, on die `map page % dies`, `tR + bus transfer`),
//! unless the map page has never been written to flash (a fresh drive: the controller builds it empty).
//! On a miss the next `prefetch_pages` map pages are loaded too (each one NAND read on its own die, in
//! parallel; the command waits only for its own). Host writes dirty the map pages they touch; a dirty
//! map page evicted from the cache is written back to NAND (for `hmb` it first comes down the link):
//! write-backs are batched into SLC program units, counted in `map_pages_written` (4 KiB units) and WAF.
//!
//! Data structures are flat arrays: a slot index per map page and an intrusive doubly-linked LRU list
//! over the slots, so a lookup is a few array accesses.

use super::{ControllerCounters, SLOT_BYTES};
use crate::config::{DriveConfig, MapLocation};
use crate::engine::{stream, Ns, Rng};
use crate::ftl::Lpn;
use crate::link::{Direction, Link};
use crate::nand::{CellMode, Geometry, Nand};
use rand::RngExt;

const NONE: u32 = u32::MAX;
const ENTRY_BYTES: u64 = 4;
/// The RNG stream of HMB ECC error injection ("MAPECC"): fixed, so a run stays a pure function of its
/// config, workload and seed.
const ECC_STREAM: u64 = 0x4d41_5045_4343;

#[derive(Clone, Debug)]
pub struct MapCache {
    location: MapLocation,
    lookup_ns: Ns,
    /// log2 of the LPNs one map page covers.
    shift: u32,
    page_bytes: u64,
    /// Map pages the cache holds at most.
    capacity: u32,
    prefetch: u32,
    link_latency: Ns,
    ecc_single: f64,
    ecc_double: f64,
    ecc_correct_ns: Ns,
    rng: Rng,
    dies: u32,
    /// Bytes of one SLC-mode program unit: dirty map pages are written back in these.
    unit_bytes: u64,
    /// Per map page: its cache slot, or NONE.
    slot_of: Vec<u32>,
    /// Per map page: a copy is on flash (written back at least once).
    on_flash: Vec<bool>,
    /// Per slot: the map page in it, LRU links, dirtiness, when its content is in the cache.
    page: Vec<u32>,
    prev: Vec<u32>,
    next: Vec<u32>,
    dirty: Vec<bool>,
    ready: Vec<Ns>,
    /// Most and least recently used slots.
    head: u32,
    tail: u32,
    /// Dirty map-page bytes waiting to fill a program unit, and when they are all at the controller.
    pending_bytes: u64,
    pending_ready: Ns,
    next_die: u32,
}

impl MapCache {
    /// The cache of a drive whose host sees `user_lpns` 4 KiB pages, on flash of shape `geo`.
    pub fn new(cfg: &DriveConfig, user_lpns: u32, geo: &Geometry) -> Self {
        let c = &cfg.controller.map_cache;
        let page_bytes = u64::from(c.map_page_kib) * 1024;
        let lpns_per_page = (page_bytes / ENTRY_BYTES).max(1);
        let n_pages = u64::from(user_lpns).div_ceil(lpns_per_page).max(1) as u32;
        let cache_bytes = match c.location {
            MapLocation::Dram => 0,
            MapLocation::Hmb => c.hmb_size_mib.saturating_mul(1 << 20),
            MapLocation::Sram => c.sram_size_kib.saturating_mul(1 << 10),
        };
        let capacity = (cache_bytes / page_bytes).clamp(1, u64::from(n_pages)) as u32;
        let cached = c.location != MapLocation::Dram;
        let per_page = if cached { n_pages as usize } else { 0 };
        MapCache {
            location: c.location,
            lookup_ns: c.lookup_ns,
            shift: lpns_per_page.trailing_zeros(),
            page_bytes,
            capacity,
            // a miss's prefetch must not evict the page it was for
            prefetch: c.prefetch_pages.min(capacity - 1),
            link_latency: cfg.link.latency_ns,
            ecc_single: c.hmb_ecc_single_bit_rate,
            ecc_double: c.hmb_ecc_double_bit_rate,
            ecc_correct_ns: c.hmb_ecc_correct_ns,
            rng: stream(cfg.seed, ECC_STREAM),
            dies: geo.dies.max(1),
            unit_bytes: u64::from(geo.slots_per_program(CellMode::Slc)) * SLOT_BYTES,
            slot_of: vec![NONE; per_page],
            on_flash: vec![false; per_page],
            page: Vec::new(),
            prev: Vec::new(),
            next: Vec::new(),
            dirty: Vec::new(),
            ready: Vec::new(),
            head: NONE,
            tail: NONE,
            pending_bytes: 0,
            pending_ready: 0,
            next_die: 0,
        }
    }

    /// The map entries of `n` LPNs from `lpn`, asked for at `t` by a read (`write` false) or a write (which
    /// also updates them, dirtying their map pages). Returns when the entries are at hand. Each map page
    /// the range touches is one lookup; they proceed in parallel.
    #[allow(clippy::too_many_arguments)]
    pub fn lookup(
        &mut self,
        t: Ns,
        lpn: Lpn,
        n: u32,
        write: bool,
        nand: &mut Nand,
        link: &mut Link,
        c: &mut ControllerCounters,
    ) -> Ns {
        let n = n.max(1);
        let first = lpn >> self.shift;
        let last = (lpn + (n - 1)) >> self.shift;
        if self.location == MapLocation::Dram {
            let pages = u64::from(last - first + 1);
            c.map_lookups += pages;
            c.map_hits += pages;
            return t + self.lookup_ns;
        }
        let mut done = t;
        for mp in first..=last {
            c.map_lookups += 1;
            if mp as usize >= self.slot_of.len() {
                // beyond the user capacity (cannot come from a validated workload): a plain hit
                c.map_hits += 1;
                done = done.max(t + self.lookup_ns);
                continue;
            }
            let lo = lpn.max(mp << self.shift);
            let hi = (lpn + (n - 1)).min(((mp + 1) << self.shift) - 1);
            let entry_bytes = u64::from(hi - lo + 1) * ENTRY_BYTES;
            let ready = self.access(t, mp, entry_bytes, nand, link, c);
            if write {
                let s = self.slot_of[mp as usize];
                self.dirty[s as usize] = true;
                if self.location == MapLocation::Hmb {
                    // the updated entries go back up into the HMB (a posted write)
                    link.transfer(Direction::Up, ready, entry_bytes);
                    c.hmb_bytes += entry_bytes;
                }
            }
            done = done.max(ready);
        }
        done
    }

    /// One map page's entries: hit or load. Leaves the map page cached, most recently used.
    fn access(
        &mut self,
        t: Ns,
        mp: u32,
        entry_bytes: u64,
        nand: &mut Nand,
        link: &mut Link,
        c: &mut ControllerCounters,
    ) -> Ns {
        let s = self.slot_of[mp as usize];
        if s != NONE {
            c.map_hits += 1;
            self.touch(s);
            let avail = t.max(self.ready[s as usize]);
            if self.location == MapLocation::Sram {
                return avail + self.lookup_ns;
            }
            // HMB: the read request goes up (one-way latency), the entries come down as a completion.
            let got = link.transfer(Direction::Down, avail + self.link_latency, entry_bytes);
            c.hmb_bytes += entry_bytes;
            let got = self.ecc(got, mp, nand, link, c);
            return got + self.lookup_ns;
        }
        c.map_misses += 1;
        let ready = self.load(t, mp, nand, link, c);
        for k in 1..=self.prefetch {
            let p = mp + k;
            if (p as usize) < self.slot_of.len() && self.slot_of[p as usize] == NONE {
                self.load(t, p, nand, link, c);
            }
        }
        if self.prefetch > 0 {
            let s = self.slot_of[mp as usize];
            self.touch(s);
        }
        ready + self.lookup_ns
    }

    /// SECDED over the map data just read from the HMB: returns when correct entries are at hand.
    fn ecc(&mut self, got: Ns, mp: u32, nand: &mut Nand, link: &mut Link, c: &mut ControllerCounters) -> Ns {
        if self.ecc_single == 0.0 && self.ecc_double == 0.0 {
            return got;
        }
        let u: f64 = self.rng.random();
        if u < self.ecc_double {
            // detected, not correctable: read the map page again from flash and refresh the HMB copy
            c.hmb_ecc_reloads += 1;
            let r = self.read_from_nand(got, mp, nand, c);
            link.transfer(Direction::Up, r, self.page_bytes);
            c.hmb_bytes += self.page_bytes;
            r
        } else if u < self.ecc_double + self.ecc_single {
            c.hmb_ecc_corrected += 1;
            got + self.ecc_correct_ns
        } else {
            got
        }
    }

    /// A map page read on behalf of a host command: like the host's own reads it may suspend a program
    /// or erase (with `[nand.suspension]` on) rather than wait behind it.
    fn read_from_nand(&mut self, t: Ns, mp: u32, nand: &mut Nand, c: &mut ControllerCounters) -> Ns {
        c.map_pages_read += 1;
        nand.read_suspending(mp % self.dies, t, 0, CellMode::Slc, 1, self.page_bytes)
    }

    /// Bring map page `mp` into the cache from `t`, evicting the least recently used one if full.
    /// Returns when its content is at the controller.
    fn load(&mut self, t: Ns, mp: u32, nand: &mut Nand, link: &mut Link, c: &mut ControllerCounters) -> Ns {
        let s = self.free_slot(t, nand, link, c);
        let ready = if self.on_flash[mp as usize] { self.read_from_nand(t, mp, nand, c) } else { t };
        if self.location == MapLocation::Hmb {
            // the controller writes the map page up into the HMB (posted; it uses its own copy meanwhile)
            link.transfer(Direction::Up, ready, self.page_bytes);
            c.hmb_bytes += self.page_bytes;
        }
        let i = s as usize;
        self.slot_of[mp as usize] = s;
        self.page[i] = mp;
        self.dirty[i] = false;
        self.ready[i] = ready;
        self.push_front(s);
        ready
    }

    /// An unlinked slot: a new one while the cache is not full, else the LRU one (written back if dirty).
    fn free_slot(&mut self, t: Ns, nand: &mut Nand, link: &mut Link, c: &mut ControllerCounters) -> u32 {
        if (self.page.len() as u32) < self.capacity {
            self.page.push(NONE);
            self.prev.push(NONE);
            self.next.push(NONE);
            self.dirty.push(false);
            self.ready.push(0);
            return self.page.len() as u32 - 1;
        }
        let s = self.tail;
        self.unlink(s);
        let i = s as usize;
        let old = self.page[i] as usize;
        self.slot_of[old] = NONE;
        if self.dirty[i] {
            self.write_back(t.max(self.ready[i]), old, nand, link, c);
        }
        s
    }

    /// A dirty map page leaves the cache: it joins the batch for the next map program unit.
    fn write_back(&mut self, t: Ns, mp: usize, nand: &mut Nand, link: &mut Link, c: &mut ControllerCounters) {
        let at_controller = if self.location == MapLocation::Hmb {
            c.hmb_bytes += self.page_bytes;
            link.transfer(Direction::Down, t + self.link_latency, self.page_bytes)
        } else {
            t
        };
        self.on_flash[mp] = true;
        self.pending_ready = self.pending_ready.max(at_controller);
        self.pending_bytes += self.page_bytes;
        while self.pending_bytes >= self.unit_bytes {
            let die = self.next_die;
            self.next_die = (self.next_die + 1) % self.dies;
            nand.program(die, self.pending_ready, 0, CellMode::Slc, self.unit_bytes);
            c.map_pages_written += self.unit_bytes / SLOT_BYTES;
            self.pending_bytes -= self.unit_bytes;
        }
    }

    #[inline]
    fn touch(&mut self, s: u32) {
        if self.head != s {
            self.unlink(s);
            self.push_front(s);
        }
    }

    #[inline]
    fn unlink(&mut self, s: u32) {
        let (p, n) = (self.prev[s as usize], self.next[s as usize]);
        if p == NONE {
            self.head = n;
        } else {
            self.next[p as usize] = n;
        }
        if n == NONE {
            self.tail = p;
        } else {
            self.prev[n as usize] = p;
        }
        self.prev[s as usize] = NONE;
        self.next[s as usize] = NONE;
    }

    #[inline]
    fn push_front(&mut self, s: u32) {
        self.prev[s as usize] = NONE;
        self.next[s as usize] = self.head;
        if self.head != NONE {
            self.prev[self.head as usize] = s;
        }
        self.head = s;
        if self.tail == NONE {
            self.tail = s;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::DriveConfig;

    fn cache(location: &str, sram_kib: u32, prefetch: u32) -> (MapCache, Nand, Link) {
        let text = include_str!("../../../../python/ssdlab/presets/generic-tlc-dram.toml");
        let o = |k: &str, v: String| (k.to_string(), v);
        let cfg = DriveConfig::from_toml_str(
            text,
            &[
                o("controller.map_cache.location", location.into()),
                o("controller.map_cache.sram_size_kib", sram_kib.to_string()),
                o("controller.map_cache.prefetch_pages", prefetch.to_string()),
                o("ftl.user_capacity_gb", "4".into()),
            ],
        )
        .unwrap();
        let nand = Nand::new(&cfg.nand, 4096);
        let link = Link::new(&cfg.link);
        (MapCache::new(&cfg, 1_000_000, &nand.geo), nand, link)
    }

    #[test]
    fn lru_keeps_the_most_recent_pages_and_writes_back_dirty_ones() {
        // 16 KiB of SRAM = 4 map pages of 4 KiB
        let (mut m, mut nand, mut link) = cache("sram", 16, 0);
        let mut c = ControllerCounters::default();
        for mp in 0..4u32 {
            m.lookup(0, mp << 10, 1, true, &mut nand, &mut link, &mut c);
        }
        assert_eq!((c.map_misses, c.map_hits), (4, 0));
        m.lookup(0, 0, 1, false, &mut nand, &mut link, &mut c); // page 0 now most recent
        m.lookup(0, 4 << 10, 1, false, &mut nand, &mut link, &mut c); // evicts page 1
        assert_eq!(m.slot_of[1], NONE);
        assert_ne!(m.slot_of[0], NONE);
        assert!(m.on_flash[1], "dirty page 1 went to flash");
        // a fresh map page costs no NAND read; one that was written back does
        assert_eq!(c.map_pages_read, 0);
        m.lookup(0, 1 << 10, 1, false, &mut nand, &mut link, &mut c);
        assert_eq!(c.map_pages_read, 1);
    }

    #[test]
    fn prefetch_loads_the_following_pages() {
        let (mut m, mut nand, mut link) = cache("sram", 64, 3);
        let mut c = ControllerCounters::default();
        m.lookup(0, 0, 1, false, &mut nand, &mut link, &mut c);
        for mp in 1..4u32 {
            m.lookup(0, mp << 10, 1, false, &mut nand, &mut link, &mut c);
        }
        assert_eq!((c.map_misses, c.map_hits), (1, 3));
    }

    #[test]
    fn a_command_spanning_two_map_pages_is_two_lookups() {
        let (mut m, mut nand, mut link) = cache("dram", 64, 0);
        let mut c = ControllerCounters::default();
        m.lookup(0, 1020, 8, false, &mut nand, &mut link, &mut c);
        assert_eq!(c.map_lookups, 2);
    }
}
