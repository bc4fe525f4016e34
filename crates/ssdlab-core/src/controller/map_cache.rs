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
//!   Bit flips can also be put into one cached map page's HMB copy ([`MapCache::inject_flips`]): the next
//!   time the controller reads that copy (a lookup, or a dirty write-back) one flip is corrected, two or
//!   more are detected and the copy is dropped: its entries are never used (nor written back to NAND);
//!   the map page is read again from NAND (`tR` in SLC mode on the die holding it, a map page read in the
//!   counters) and written up into the HMB anew, and lookups of it wait for that.
//! - `sram`: the same LRU cache on the controller: no link crossings. Its unit may be a piece of a map page
//!   (`sram_segment_kib`): a small SRAM then holds more scattered pieces, a sequential stream misses per piece.
//!   The map on flash stays in whole map pages: a dirty piece written back rewrites its map page (the
//!   other pieces from the cache, or read from flash first).
//!
//! A miss costs one NAND read of the map page (SLC mode, on die `map page % dies` and plane
//! `map page / dies % planes`, `tR + bus transfer` of the codewords holding the cached unit, then their
//! decode on the channel's LDPC, as host data),
//! unless the map page has never been written to flash (a fresh drive: the controller builds it empty).
//! The controller tracks at most `map_reads_in_flight` such reads at once (0 = no limit): a miss while
//! all its entries are out waits for the first to come free, so at high queue depth misses cost that
//! many reads per read time however many dies could sense them.
//! On a miss the next `prefetch_pages` map pages are loaded too (each one NAND read on its own die, in
//! parallel; the command waits only for its own). Host writes dirty the map pages they touch; a dirty
//! map page evicted from the cache is written back to NAND (for `hmb` it first comes down the link):
//! write-backs are batched into SLC programs of `map_program_planes` pages (1: each map page its own
//! program, as DFTL writes translation pages), counted in `map_pages_written` (4 KiB units) and WAF.
//!
//! Persistence (`journal = true`), as a DRAM-less controller must keep its map: host memory is volatile
//! and the host may take the HMB back, so every LPN a write maps logs a `journal_entry_bytes` delta entry;
//! the journal is programmed (SLC, on the next die in turn) as it fills a map program unit. After
//! `checkpoint_entries` entries (or once `checkpoint_dirty_pages` map pages are dirty) a checkpoint writes
//! every dirty map page to NAND and the journal starts over: recovery replays at most one interval. So a
//! uniform random span of P map pages checkpointed every J writes costs `P (1 - exp(-J/P)) / J` map pages
//! per write (the distinct pages J writes touch): ~P/J, next to nothing, when P << J, and ~1 when P >> J.
//!
//! Lazy map updates (`lazy_map_updates`, with the journal): a write whose map page is not cached does not
//! load it. Its entries are already safe in the journal; the controller keeps them in a delta table in SRAM
//! (a read of one of those LPNs finds it there) and the checkpoint reads the map page, merges them and
//! writes it. The write waits for no map read, and the read moves to the checkpoint, where one read per
//! distinct map page serves all of the interval's updates to it: the same `P (1 - exp(-J/P)) / J` map
//! pages per write as above, now read as well as written, none of it on a command's path.
//!
//! Data structures are flat arrays: a slot index per map page and an intrusive doubly-linked LRU list
//! over the slots, so a lookup is a few array accesses.

use super::data_path::DataPath;
use super::{ControllerCounters, SLOT_BYTES};
use crate::config::{DriveConfig, MapLocation};
use crate::data::LpnHasher;
use crate::engine::{stream, Ns, Rng};
use crate::ftl::Lpn;
use crate::link::{Direction, Link};
use crate::nand::{CellMode, Geometry, Nand};
use rand::RngExt;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;

const NONE: u32 = u32::MAX;
/// The RNG stream of HMB ECC error injection ("MAPECC"): fixed, so a run stays a pure function of its
/// config, workload and seed.
const ECC_STREAM: u64 = 0x4d41_5045_4343;

/// What a map-cache operation works with besides its own state: the NAND (map page reads and programs), the
/// host link (HMB traffic) and the decoders map pages are read through (the channels' LDPC, as host data).
pub struct MapIo<'a> {
    pub nand: &'a mut Nand,
    pub link: &'a mut Link,
    pub data: &'a mut DataPath,
}

#[derive(Clone, Debug)]
pub struct MapCache {
    location: MapLocation,
    lookup_ns: Ns,
    /// log2 of the LPNs one map page covers.
    shift: u32,
    page_bytes: u64,
    /// Bytes a miss moves and decodes: the codewords that hold the cached unit (a whole HMB map page; an
    /// SRAM piece rounded up to a codeword). log2 of the cached units in one map page on flash.
    read_bytes: u64,
    pieces_shift: u32,
    /// Map pages the cache holds at most.
    capacity: u32,
    prefetch: u32,
    link_latency: Ns,
    ecc_single: f64,
    ecc_double: f64,
    ecc_correct_ns: Ns,
    rng: Rng,
    /// Injected bit flips in the HMB copy of a cached map page, by map page: few, so a short list that
    /// the hit path checks only when it is not empty.
    flips: Vec<(u32, u32)>,
    dies: u32,
    planes: u32,
    /// Bytes of one map program (`map_program_planes` NAND pages in SLC mode): dirty map pages and
    /// the journal are written in these.
    unit_bytes: u64,
    /// Bytes of one L2P entry.
    entry_bytes: u64,
    /// Map persistence: journal entry bytes, entries per checkpoint, dirty-page bound (0 = none),
    /// bytes of one journal program (as a map program).
    journal: bool,
    journal_entry_bytes: u64,
    checkpoint_entries: u64,
    checkpoint_dirty: u32,
    journal_page_bytes: u64,
    /// Entries logged since the last checkpoint, and journal bytes not yet programmed.
    entries_since: u64,
    journal_pending: u64,
    /// `lazy_map_updates`, and the entries waiting in the delta table for their map page (the checkpoint
    /// merges them all).
    lazy: bool,
    deltas: Deltas,
    /// Scratch for a checkpoint: map pages updated blind and when each is read and merged.
    merged: Vec<(u32, Ns)>,
    /// Map pages dirtied since the last checkpoint (an entry may be stale: evicted and written back
    /// since), and how many map pages are dirty now.
    dirty_list: Vec<u32>,
    dirty_count: u32,
    /// Per map page: its cache slot, or NONE.
    slot_of: Vec<u32>,
    /// Per map page: a copy is on flash (written back at least once).
    on_flash: Vec<bool>,
    /// Per map page: newer than its copy on flash (tracked when cached or journaling).
    dirty: Vec<bool>,
    /// Per slot: the map page in it, LRU links, when its content is in the cache.
    page: Vec<u32>,
    prev: Vec<u32>,
    next: Vec<u32>,
    ready: Vec<Ns>,
    /// Most and least recently used slots.
    head: u32,
    tail: u32,
    /// Dirty map-page bytes waiting to fill a program unit, and when they are all at the controller.
    pending_bytes: u64,
    pending_ready: Ns,
    next_die: u32,
    /// When each of the controller's outstanding-miss entries (`map_reads_in_flight`) is free again;
    /// empty = no limit.
    miss_free_at: Vec<Ns>,
}

/// The delta table of lazy map updates: per map page with updates waiting, a bitmap of its entries that
/// have one (a command sets a run of bits, not one hash entry per LPN). Bitmaps are reused after a
/// checkpoint empties the table.
#[derive(Clone, Debug, Default)]
struct Deltas {
    pages: HashMap<u32, Vec<u64>, BuildHasherDefault<LpnHasher>>,
    spare: Vec<Vec<u64>>,
}

impl Deltas {
    /// Entries `lo..=hi` of map page `mp` (whose entries are `1 << shift` LPNs from `mp << shift`) have
    /// deltas.
    fn insert(&mut self, mp: u32, lo: Lpn, hi: Lpn, shift: u32) {
        let words = (1usize << shift).div_ceil(64);
        let spare = &mut self.spare;
        let bits = self.pages.entry(mp).or_insert_with(|| {
            let mut v = spare.pop().unwrap_or_default();
            v.clear();
            v.resize(words, 0);
            v
        });
        let base = mp << shift;
        for i in (lo - base) as usize..=(hi - base) as usize {
            bits[i / 64] |= 1 << (i % 64);
        }
    }

    /// Whether every entry `lo..=hi` of map page `mp` has a delta.
    fn covers(&self, mp: u32, lo: Lpn, hi: Lpn, shift: u32) -> bool {
        let Some(bits) = self.pages.get(&mp) else { return false };
        let base = mp << shift;
        ((lo - base) as usize..=(hi - base) as usize).all(|i| bits[i / 64] & (1 << (i % 64)) != 0)
    }

    /// Empty the table (a checkpoint merged every delta).
    fn clear(&mut self) {
        self.spare.extend(self.pages.drain().map(|(_, v)| v));
    }
}

impl MapCache {
    /// The cache of a drive whose host sees `user_lpns` 4 KiB pages, on flash of shape `geo`.
    pub fn new(cfg: &DriveConfig, user_lpns: u32, geo: &Geometry) -> Self {
        let c = &cfg.controller.map_cache;
        // The unit the cache holds: a map page, or with SRAM a piece of one (`sram_segment_kib`). A miss
        // senses the map page on flash and moves out and decodes the codewords that hold that unit.
        let map_page = u64::from(c.map_page_kib) * 1024;
        let segment = u64::from(c.sram_segment_kib) * 1024;
        let page_bytes =
            if c.location == MapLocation::Sram && segment > 0 { segment.min(map_page) } else { map_page };
        let codeword = u64::from(cfg.controller.data_path.ldpc_codeword_bytes).max(1);
        let read_bytes = page_bytes.div_ceil(codeword) * codeword;
        let entry_bytes = u64::from(c.entry_bytes).max(1);
        // entries per map page, rounded down to a power of two so a map page is an LPN shift
        let lpns_per_page = 1u64 << (page_bytes / entry_bytes).max(1).ilog2();
        let n_pages = u64::from(user_lpns).div_ceil(lpns_per_page).max(1) as u32;
        let cache_bytes = match c.location {
            MapLocation::Dram => 0,
            MapLocation::Hmb => {
                // firmware that lays the HMB out in power-of-two tiers uses the largest one the grant holds
                let mib = match c.hmb_size_mib {
                    0 => 0,
                    m if c.hmb_map_pow2 => 1 << m.ilog2(),
                    m => m,
                };
                (mib.saturating_mul(1 << 20) as f64 * c.hmb_map_pct / 100.0) as u64
            }
            MapLocation::Sram => c.sram_size_kib.saturating_mul(1 << 10),
        };
        let pages = (cache_bytes / page_bytes).max(1);
        let capacity = pages.min(u64::from(n_pages)) as u32;
        let cached = c.location != MapLocation::Dram;
        let per_page = if cached { n_pages as usize } else { 0 };
        let tracked = if cached || c.journal { n_pages as usize } else { 0 };
        MapCache {
            location: c.location,
            lookup_ns: c.lookup_ns,
            shift: lpns_per_page.trailing_zeros(),
            page_bytes,
            read_bytes,
            pieces_shift: (map_page / page_bytes).trailing_zeros(),
            capacity,
            // a miss's prefetch must not evict the page it was for
            prefetch: c.prefetch_pages.min(capacity - 1),
            link_latency: cfg.link.latency_ns,
            ecc_single: c.hmb_ecc_single_bit_rate,
            ecc_double: c.hmb_ecc_double_bit_rate,
            ecc_correct_ns: c.hmb_ecc_correct_ns,
            rng: stream(cfg.seed, ECC_STREAM),
            flips: Vec::new(),
            dies: geo.dies.max(1),
            planes: geo.planes.max(1),
            unit_bytes: u64::from(c.map_program_planes.clamp(1, geo.planes)) * geo.page_bytes,
            entry_bytes,
            journal: c.journal,
            journal_entry_bytes: u64::from(c.journal_entry_bytes),
            checkpoint_entries: c.checkpoint_entries.max(1),
            checkpoint_dirty: c.checkpoint_dirty_pages,
            journal_page_bytes: u64::from(c.map_program_planes.clamp(1, geo.planes)) * geo.page_bytes,
            entries_since: 0,
            journal_pending: 0,
            lazy: c.lazy_map_updates && c.journal && cached,
            deltas: Deltas::default(),
            merged: Vec::new(),
            dirty_list: Vec::new(),
            dirty_count: 0,
            slot_of: vec![NONE; per_page],
            on_flash: vec![false; per_page],
            dirty: vec![false; tracked],
            page: Vec::new(),
            prev: Vec::new(),
            next: Vec::new(),
            ready: Vec::new(),
            head: NONE,
            tail: NONE,
            pending_bytes: 0,
            pending_ready: 0,
            next_die: 0,
            miss_free_at: vec![0; c.map_reads_in_flight as usize],
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
        io: &mut MapIo<'_>,
        c: &mut ControllerCounters,
    ) -> Ns {
        let n = n.max(1);
        let first = lpn >> self.shift;
        let last = (lpn + (n - 1)) >> self.shift;
        if self.location == MapLocation::Dram {
            let pages = u64::from(last - first + 1);
            c.map_lookups += pages;
            c.map_hits += pages;
            if write && self.journal {
                for mp in first..=last {
                    self.mark_dirty(mp);
                }
                self.log(t, n, io, c);
            }
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
            if self.lazy && self.slot_of[mp as usize] == NONE {
                // the delta table serves a write (a blind update: the checkpoint takes the map page) and a
                // read of entries it holds
                let from_deltas = if write {
                    c.map_lazy_updates += 1;
                    self.mark_dirty(mp);
                    self.deltas.insert(mp, lo, hi, self.shift);
                    true
                } else {
                    self.dirty[mp as usize] && self.deltas.covers(mp, lo, hi, self.shift)
                };
                if from_deltas {
                    c.map_hits += 1;
                    done = done.max(t + self.lookup_ns);
                    continue;
                }
            }
            let entry_bytes = u64::from(hi - lo + 1) * self.entry_bytes;
            let ready = self.access(t, mp, entry_bytes, io, c);
            if write {
                self.mark_dirty(mp);
                if self.location == MapLocation::Hmb {
                    // the updated entries go back up into the HMB (a posted write)
                    io.link.transfer(Direction::Up, ready, entry_bytes);
                    c.hmb_bytes += entry_bytes;
                }
            }
            done = done.max(ready);
        }
        if write && self.journal {
            self.log(t, n, io, c);
        }
        done
    }

    #[inline]
    fn mark_dirty(&mut self, mp: u32) {
        let d = &mut self.dirty[mp as usize];
        if !*d {
            *d = true;
            self.dirty_count += 1;
            if self.journal {
                self.dirty_list.push(mp);
            }
        }
    }

    /// `n` map updates at `t` go into the journal: full journal pages are programmed, and a checkpoint
    /// follows once the interval is reached. The command does not wait for either (no power-loss
    /// protection on these drives: a write is acknowledged from the volatile buffer), but they occupy
    /// dies that later host programs and reads queue behind.
    fn log(&mut self, t: Ns, n: u32, io: &mut MapIo<'_>, c: &mut ControllerCounters) {
        self.entries_since += u64::from(n);
        self.journal_pending += u64::from(n) * self.journal_entry_bytes;
        while self.journal_pending >= self.journal_page_bytes {
            let die = self.next_die;
            self.next_die = (self.next_die + 1) % self.dies;
            io.nand.program(die, t, 0, CellMode::Slc, self.journal_page_bytes);
            c.map_journal_pages_written += self.journal_page_bytes / SLOT_BYTES;
            self.journal_pending -= self.journal_page_bytes;
        }
        let dirty_bound = self.checkpoint_dirty > 0 && self.dirty_count >= self.checkpoint_dirty;
        if self.entries_since >= self.checkpoint_entries || dirty_bound {
            self.checkpoint(t, io, c);
        }
    }

    /// Write every dirty map page to NAND from `t`; the journal starts over (what it held not yet
    /// programmed is covered by the checkpoint).
    fn checkpoint(&mut self, t: Ns, io: &mut MapIo<'_>, c: &mut ControllerCounters) {
        c.map_checkpoints += 1;
        let mut list = std::mem::take(&mut self.dirty_list);
        // Map pages updated blind (dirty, not cached) are read first, all at once, as the firmware
        // would before merging: their reads do not queue behind this checkpoint's own programs.
        let mut merged = std::mem::take(&mut self.merged);
        for &mp in &list {
            let m = mp as usize;
            if self.lazy && self.dirty[m] && self.slot_of[m] == NONE {
                merged.push((mp, self.merge_siblings(t, m, true, io, c)));
            }
        }
        for &mp in &list {
            let m = mp as usize;
            match self.slot_of.get(m).copied().unwrap_or(NONE) {
                _ if !self.dirty[m] => {}
                NONE if self.lazy => {} // merged above
                NONE => self.write_back(t, m, io, c),
                s => self.write_back(t.max(self.ready[s as usize]), m, io, c),
            }
        }
        for &(mp, at) in &merged {
            // the merged page stays cached, as a miss would have left it
            self.program_map_page(at, mp as usize, true, io, c);
            let slot = self.free_slot(at, io, c);
            self.place(slot, mp, at, io, c);
        }
        merged.clear();
        self.merged = merged;
        list.clear();
        self.dirty_list = list;
        self.deltas.clear();
        self.entries_since = 0;
        self.journal_pending = 0;
    }

    /// One map page's entries: hit or load. Leaves the map page cached, most recently used.
    fn access(
        &mut self,
        t: Ns,
        mp: u32,
        entry_bytes: u64,
        io: &mut MapIo<'_>,
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
            let got = io.link.transfer(Direction::Down, avail + self.link_latency, entry_bytes);
            c.hmb_bytes += entry_bytes;
            let got = self.ecc(got, mp, io, c);
            return got + self.lookup_ns;
        }
        c.map_misses += 1;
        let ready = self.load(t, mp, io, c);
        for k in 1..=self.prefetch {
            let p = mp + k;
            if (p as usize) < self.slot_of.len() && self.slot_of[p as usize] == NONE {
                self.load(t, p, io, c);
            }
        }
        if self.prefetch > 0 {
            let s = self.slot_of[mp as usize];
            self.touch(s);
        }
        ready + self.lookup_ns
    }

    /// Put `bits` flipped bits into the HMB copy of the map page holding `lpn` (fault injection). False,
    /// and nothing done, unless that map page is cached in the HMB.
    pub fn inject_flips(&mut self, lpn: Lpn, bits: u32) -> bool {
        let mp = lpn >> self.shift;
        if self.location != MapLocation::Hmb || self.slot_of.get(mp as usize).is_none_or(|&s| s == NONE) {
            return false;
        }
        match self.flips.iter_mut().find(|(p, _)| *p == mp) {
            Some((_, b)) => *b = b.saturating_add(bits),
            None => self.flips.push((mp, bits)),
        }
        true
    }

    /// The injected flips in map page `mp`'s HMB copy, taken (the copy is being read: corrected or dropped).
    fn take_flips(&mut self, mp: u32) -> u32 {
        if self.flips.is_empty() {
            return 0; // the usual case: nothing injected
        }
        match self.flips.iter().position(|&(p, _)| p == mp) {
            Some(i) => self.flips.swap_remove(i).1,
            None => 0,
        }
    }

    /// SECDED's verdict on `flipped` bits in map page `mp`'s copy read from the HMB at `got`: returns when
    /// correct entries are at hand. One flip is corrected; more are detected, the copy is dropped (its
    /// entries unused, never written back) and the map page is read again from flash; if it is still
    /// cached, it is written up into the HMB anew and lookups of it wait for that.
    fn secded(
        &mut self,
        got: Ns,
        flipped: u32,
        mp: u32,
        io: &mut MapIo<'_>,
        c: &mut ControllerCounters,
    ) -> Ns {
        match flipped {
            0 => got,
            1 => {
                c.hmb_ecc_corrected += 1;
                got + self.ecc_correct_ns
            }
            _ => {
                c.hmb_ecc_reloads += 1;
                let r = self.read_from_nand(got, mp, io, c);
                if let Some(s) = self.slot_of.get(mp as usize).copied().filter(|&s| s != NONE) {
                    io.link.transfer(Direction::Up, r, self.page_bytes);
                    c.hmb_bytes += self.page_bytes;
                    self.ready[s as usize] = self.ready[s as usize].max(r);
                }
                r
            }
        }
    }

    /// SECDED over the map data of cached map page `mp` just read from the HMB: returns when correct
    /// entries are at hand.
    fn ecc(&mut self, got: Ns, mp: u32, io: &mut MapIo<'_>, c: &mut ControllerCounters) -> Ns {
        // an injected error takes the place of this access's random draw
        let flipped = match self.take_flips(mp) {
            0 if self.ecc_single == 0.0 && self.ecc_double == 0.0 => 0,
            0 => {
                let u: f64 = self.rng.random();
                if u < self.ecc_double {
                    2
                } else if u < self.ecc_double + self.ecc_single {
                    1
                } else {
                    0
                }
            }
            n => n,
        };
        self.secded(got, flipped, mp, io, c)
    }

    /// A map page read on behalf of a host command: like the host's own reads it may suspend a program
    /// or erase (with `[nand.suspension]` on) rather than wait behind it, and its codewords go through the
    /// channel's decoder as host data does. Returns when the decoded entries are at the controller.
    fn read_from_nand(&mut self, t: Ns, mp: u32, io: &mut MapIo<'_>, c: &mut ControllerCounters) -> Ns {
        self.read_map_bytes(t, mp, self.read_bytes, true, io, c)
    }

    /// `bytes` (whole codewords) of the map page holding cached unit `mp`, sensed, moved out and decoded.
    /// A read for a command (`miss`) takes an outstanding-miss entry; the checkpoint's own reads do not.
    fn read_map_bytes(
        &mut self,
        t: Ns,
        mp: u32,
        bytes: u64,
        miss: bool,
        io: &mut MapIo<'_>,
        c: &mut ControllerCounters,
    ) -> Ns {
        c.map_pages_read += 1;
        // the read takes an outstanding-miss entry, the first to come free, until its entries are decoded
        let entries = if miss { self.miss_free_at.len() } else { 0 };
        let entry = (0..entries).min_by_key(|&i| self.miss_free_at[i]);
        let t = entry.map_or(t, |i| t.max(self.miss_free_at[i]));
        // map pages are striped over dies, then planes, as the log head writes them: no plane is hot
        // (the pieces of one map page share it)
        let page = mp >> self.pieces_shift;
        let die = page % self.dies;
        let plane = (page / self.dies) % self.planes;
        let at = io.nand.read_suspending(die, t, 0, CellMode::Slc, 1 << plane, bytes);
        let bus = io.nand.timing.bus_ns(bytes);
        let channel = io.nand.geo.channel_of(die);
        let decoded = io.data.decode(channel, at, bus, bytes, CellMode::Slc).0;
        if let Some(i) = entry {
            self.miss_free_at[i] = decoded;
        }
        decoded
    }

    /// Bring map page `mp` into the cache from `t`, evicting the least recently used one if full.
    /// Returns when its content is at the controller.
    fn load(&mut self, t: Ns, mp: u32, io: &mut MapIo<'_>, c: &mut ControllerCounters) -> Ns {
        let s = self.free_slot(t, io, c);
        let ready = if self.on_flash[mp as usize] { self.read_from_nand(t, mp, io, c) } else { t };
        self.place(s, mp, ready, io, c);
        ready
    }

    /// Map page `mp`, at the controller from `ready`, into free slot `s`, most recently used.
    fn place(&mut self, s: u32, mp: u32, ready: Ns, io: &mut MapIo<'_>, c: &mut ControllerCounters) {
        if self.location == MapLocation::Hmb {
            // the controller writes the map page up into the HMB (posted; it uses its own copy meanwhile)
            io.link.transfer(Direction::Up, ready, self.page_bytes);
            c.hmb_bytes += self.page_bytes;
        }
        let i = s as usize;
        self.slot_of[mp as usize] = s;
        self.page[i] = mp;
        self.ready[i] = ready;
        self.push_front(s);
    }

    /// An unlinked slot: a new one while the cache is not full, else the LRU one (written back if dirty).
    fn free_slot(&mut self, t: Ns, io: &mut MapIo<'_>, c: &mut ControllerCounters) -> u32 {
        if (self.page.len() as u32) < self.capacity {
            self.page.push(NONE);
            self.prev.push(NONE);
            self.next.push(NONE);
            self.ready.push(0);
            return self.page.len() as u32 - 1;
        }
        let s = self.tail;
        self.unlink(s);
        let i = s as usize;
        let old = self.page[i] as usize;
        self.slot_of[old] = NONE;
        if self.dirty[old] {
            self.write_back(t.max(self.ready[i]), old, io, c);
        }
        // a clean copy is dropped unread, injected flips and all
        self.take_flips(old as u32);
        s
    }

    /// A dirty cached map page goes to flash (evicted, or checkpointed): its copy comes to the controller
    /// and is programmed.
    fn write_back(&mut self, t: Ns, mp: usize, io: &mut MapIo<'_>, c: &mut ControllerCounters) {
        let at_controller = if self.location == MapLocation::Hmb {
            c.hmb_bytes += self.page_bytes;
            io.link.transfer(Direction::Down, t + self.link_latency, self.page_bytes)
        } else {
            t
        };
        // The copy comes down through the same ECC (injected flips only: the random rates are drawn per
        // lookup). A detected error is never written to flash: the map page is read from NAND instead
        // (its entries newer than that copy would come back from the journal: that replay is not modelled),
        // and if it is still cached (a checkpoint) its HMB copy is written anew.
        let flipped = self.take_flips(mp as u32);
        let at_controller = self.secded(at_controller, flipped, mp as u32, io, c);
        self.program_map_page(at_controller, mp, false, io, c);
    }

    /// Map page `mp`, at the controller from `t` (with `merged`, whole: [`Self::merge_siblings`] done),
    /// joins the batch for the next map program unit and is clean from then on.
    fn program_map_page(
        &mut self,
        t: Ns,
        mp: usize,
        merged: bool,
        io: &mut MapIo<'_>,
        c: &mut ControllerCounters,
    ) {
        self.dirty[mp] = false;
        self.dirty_count -= 1;
        let at_controller = if merged { t } else { self.merge_siblings(t, mp, false, io, c) };
        if let Some(f) = self.on_flash.get_mut(mp) {
            *f = true;
        }
        self.pending_ready = self.pending_ready.max(at_controller);
        self.pending_bytes += self.page_bytes << self.pieces_shift;
        while self.pending_bytes >= self.unit_bytes {
            let die = self.next_die;
            self.next_die = (self.next_die + 1) % self.dies;
            io.nand.program(die, self.pending_ready, 0, CellMode::Slc, self.unit_bytes);
            c.map_pages_written += self.unit_bytes / SLOT_BYTES;
            self.pending_bytes -= self.unit_bytes;
        }
        if self.pending_bytes == 0 {
            // the batch is out: the next one waits for its own pages only, not for this one's last
            self.pending_ready = 0;
        }
    }

    /// With SRAM pieces (`sram_segment_kib` below `map_page_kib`) the map on flash is still kept in whole
    /// map pages, as with the HMB: writing one piece back rewrites its map page (DFTL's read-modify-write
    /// of a translation page). The page's other pieces come from the cache where cached (dirty ones are
    /// written in the same program and are clean after it), else from flash (one read of their codewords,
    /// on the page's die); never-written pieces are built empty. Pieces updated blind (dirty, not cached)
    /// are merged in the same program. With `read`, `mp`'s own copy comes from flash too, in the same
    /// read. Returns when the whole page is at hand.
    fn merge_siblings(
        &mut self,
        t: Ns,
        mp: usize,
        read: bool,
        io: &mut MapIo<'_>,
        c: &mut ControllerCounters,
    ) -> Ns {
        if self.pieces_shift == 0 {
            let own = read && self.on_flash.get(mp).copied().unwrap_or(false);
            return if own {
                self.read_map_bytes(t, mp as u32, self.read_bytes, false, io, c).max(t)
            } else {
                t
            };
        }
        let first = mp >> self.pieces_shift << self.pieces_shift;
        let mut from_flash = 0u64;
        for q in first..(first + (1 << self.pieces_shift)).min(self.slot_of.len()) {
            if q == mp && !read {
                continue;
            }
            if self.slot_of[q] != NONE {
                if self.dirty[q] {
                    self.dirty[q] = false;
                    self.dirty_count -= 1;
                }
            } else {
                if self.on_flash[q] {
                    from_flash += self.read_bytes;
                }
                if q != mp && self.dirty[q] {
                    // updated blind: its deltas go into this program
                    self.dirty[q] = false;
                    self.dirty_count -= 1;
                }
            }
            self.on_flash[q] = true;
        }
        if from_flash == 0 {
            return t;
        }
        self.read_map_bytes(t, mp as u32, from_flash, !read, io, c).max(t)
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

    /// What the cache works with, owned by the test.
    struct Parts {
        nand: Nand,
        link: Link,
        data: DataPath,
    }

    impl Parts {
        fn new(cfg: &DriveConfig) -> Self {
            let nand = Nand::new(&cfg.nand, 4096);
            let data = DataPath::new(&cfg.controller.data_path, cfg.nand.channels);
            Parts { nand, link: Link::new(&cfg.link), data }
        }

        fn io(&mut self) -> MapIo<'_> {
            MapIo { nand: &mut self.nand, link: &mut self.link, data: &mut self.data }
        }
    }

    /// A cache of a 4 GB generic-tlc-dram drive with `overrides` (TOML path, value) on it.
    fn cache_with(overrides: &[(&str, &str)]) -> (MapCache, Parts) {
        let text = include_str!("../../../../python/ssdlab/presets/generic-tlc-dram.toml");
        let sets: Vec<(String, String)> = [("ftl.user_capacity_gb", "4")]
            .iter()
            .chain(overrides)
            .map(|&(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let cfg = DriveConfig::from_toml_str(text, &sets).unwrap();
        let parts = Parts::new(&cfg);
        (MapCache::new(&cfg, 1_000_000, &parts.nand.geo), parts)
    }

    fn cache(location: &str, sram_kib: u32, prefetch: u32) -> (MapCache, Parts) {
        let (sram, prefetch) = (sram_kib.to_string(), prefetch.to_string());
        cache_with(&[
            ("controller.map_cache.location", location),
            ("controller.map_cache.sram_size_kib", &sram),
            ("controller.map_cache.prefetch_pages", &prefetch),
        ])
    }

    #[test]
    fn lru_keeps_the_most_recent_pages_and_writes_back_dirty_ones() {
        // 16 KiB of SRAM = 4 map pages of 4 KiB
        let (mut m, mut p) = cache("sram", 16, 0);
        let mut c = ControllerCounters::default();
        for mp in 0..4u32 {
            m.lookup(0, mp << 10, 1, true, &mut p.io(), &mut c);
        }
        assert_eq!((c.map_misses, c.map_hits), (4, 0));
        m.lookup(0, 0, 1, false, &mut p.io(), &mut c); // page 0 now most recent
        m.lookup(0, 4 << 10, 1, false, &mut p.io(), &mut c); // evicts page 1
        assert_eq!(m.slot_of[1], NONE);
        assert_ne!(m.slot_of[0], NONE);
        assert!(m.on_flash[1], "dirty page 1 went to flash");
        // a fresh map page costs no NAND read; one that was written back does
        assert_eq!(c.map_pages_read, 0);
        m.lookup(0, 1 << 10, 1, false, &mut p.io(), &mut c);
        assert_eq!(c.map_pages_read, 1);
    }

    /// SRAM holding four 4 KiB pieces of 16 KiB map pages, each map program one 16 KiB NAND page.
    fn pieces_cache() -> (MapCache, Parts) {
        cache_with(&[
            ("controller.map_cache.location", "sram"),
            ("controller.map_cache.sram_size_kib", "16"),
            ("controller.map_cache.sram_segment_kib", "4"),
            ("controller.map_cache.map_page_kib", "16"),
            ("controller.map_cache.map_program_planes", "1"),
        ])
    }

    #[test]
    fn a_dirty_piece_written_back_rewrites_its_whole_map_page_with_its_cached_siblings() {
        // pieces 0-3 make map page 0, 4-7 page 1, ...; piece q holds LPNs q << 10 ..
        let (mut m, mut p) = pieces_cache();
        let mut c = ControllerCounters::default();
        let mut at = |m: &mut MapCache, c: &mut ControllerCounters, q: u32, write: bool| {
            m.lookup(0, q << 10, 1, write, &mut p.io(), c);
        };
        let whole_page = 16 / 4; // map_pages_written counts 4 KiB units
        at(&mut m, &mut c, 0, true);
        at(&mut m, &mut c, 1, true);
        at(&mut m, &mut c, 4, false);
        at(&mut m, &mut c, 5, false); // cache full: 5 4 1 0
        at(&mut m, &mut c, 8, false); // evicts dirty 0: page 0 written whole, cached dirty 1 with it
        assert_eq!(
            (c.map_pages_written, c.map_pages_read),
            (whole_page, 0),
            "never-written pieces are built empty"
        );
        at(&mut m, &mut c, 9, false); // evicts 1, clean since page 0 went out: no second program
        assert_eq!(c.map_pages_written, whole_page);
        at(&mut m, &mut c, 2, true); // a miss on a piece now on flash: one read
        assert_eq!(c.map_pages_read, 1);
        for q in [12, 13, 14] {
            at(&mut m, &mut c, q, false); // evicts the clean 5, 8, 9
        }
        at(&mut m, &mut c, 16, false); // evicts dirty 2: its uncached siblings 0, 1, 3 are read, then page 0 rewritten
        assert_eq!((c.map_pages_written, c.map_pages_read), (2 * whole_page, 2));
    }

    #[test]
    fn a_map_program_waits_for_its_own_pages_not_for_an_earlier_late_one() {
        let (mut m, mut p) = pieces_cache();
        let mut c = ControllerCounters::default();
        m.lookup(0, 0, 1, true, &mut p.io(), &mut c); // piece 0 (map page 0) dirty
        m.lookup(0, 4 << 10, 1, true, &mut p.io(), &mut c); // piece 4 (map page 1) dirty
        let late = 1_000_000_000;
        m.write_back(late, 0, &mut p.io(), &mut c); // a program on die 0 from 1 s
        m.write_back(0, 4, &mut p.io(), &mut c); // the next, on die 1, is ready now
        assert!(p.nand.die_free_at(0) > late);
        assert!(p.nand.die_free_at(1) < late, "page 1's program waited for page 0's");
    }

    #[test]
    fn prefetch_loads_the_following_pages() {
        let (mut m, mut p) = cache("sram", 64, 3);
        let mut c = ControllerCounters::default();
        m.lookup(0, 0, 1, false, &mut p.io(), &mut c);
        for mp in 1..4u32 {
            m.lookup(0, mp << 10, 1, false, &mut p.io(), &mut c);
        }
        assert_eq!((c.map_misses, c.map_hits), (1, 3));
    }

    #[test]
    fn a_detected_error_in_a_dirty_copy_is_not_written_back_but_read_from_nand() {
        let text = include_str!("../../../../python/ssdlab/presets/generic-tlc-dram.toml");
        let o = |k: &str, v: &str| (k.to_string(), v.to_string());
        // 1 MiB of HMB, 1.5625% of it for the map: 16 KiB = 4 map pages of 4 KiB
        let cfg = DriveConfig::from_toml_str(
            text,
            &[
                o("controller.map_cache.location", "hmb"),
                o("controller.map_cache.hmb_size_mib", "1"),
                o("controller.map_cache.hmb_map_pct", "1.5625"),
                o("controller.map_cache.map_page_kib", "4"),
                o("controller.map_cache.prefetch_pages", "0"),
                o("ftl.user_capacity_gb", "4"),
            ],
        )
        .unwrap();
        let mut p = Parts::new(&cfg);
        let mut m = MapCache::new(&cfg, 1_000_000, &p.nand.geo);
        let mut c = ControllerCounters::default();
        for mp in 0..4u32 {
            m.lookup(0, mp << 10, 1, mp < 2, &mut p.io(), &mut c); // pages 0, 1 dirty
        }
        assert!(!m.inject_flips(9 << 10, 2), "map page 9 is not cached");
        assert!(m.inject_flips(0, 2) && m.inject_flips(2 << 10, 2));
        m.lookup(0, 4 << 10, 1, false, &mut p.io(), &mut c); // evicts dirty page 0
        assert_eq!(
            (c.hmb_ecc_reloads, c.map_pages_read),
            (1, 1),
            "read from NAND, not written back as it was"
        );
        m.lookup(0, 5 << 10, 1, false, &mut p.io(), &mut c); // evicts page 1: clean copy
        m.lookup(0, 6 << 10, 1, false, &mut p.io(), &mut c); // evicts clean page 2, dropped unread
        assert_eq!((c.hmb_ecc_reloads, c.map_pages_read), (1, 1));
        assert!(m.flips.is_empty());
    }

    #[test]
    fn a_command_spanning_two_map_pages_is_two_lookups() {
        let (mut m, mut p) = cache("dram", 64, 0);
        let mut c = ControllerCounters::default();
        m.lookup(0, 1020, 8, false, &mut p.io(), &mut c);
        assert_eq!(c.map_lookups, 2);
    }
}
