//! Flash translation layer: a page-level map over 4 KiB LPNs, block allocation, garbage collection, TRIM.
//!
//! The FTL is pure state: it decides where data goes and which flash operations that takes, and hands
//! those operations ([`FlashOp`]) to the controller, which schedules them on the NAND timelines.
//!
//! - Host data is written one program unit at a time, units striped round-robin over the dies (channel
//!   first). Each die keeps its own free-block pool, open host blocks and open GC block.
//! - `gc`: victim selection (greedy, cost-benefit), foreground GC paced with host writes near
//!   `gc_threshold_free_blocks` and finished at it, idle-time work; copies stay on their die.
//! - `slc`: the dynamic SLC cache; folding is GC of an SLC-mode block into a native one.
//! - `wear`: static wear levelling, factory bad blocks; blocks at the P/E limit retire as grown bad blocks.
//! - Compressed data (SandForce-style) is stored in 256-byte slots, an LPN taking as many as its size needs.
//! - `reverse_map`: the per-block physical-to-logical record GC walks.

mod gc;
mod reverse_map;
mod slc;
mod wear;

use crate::config::{FtlConfig, GcPolicy, SlcCacheConfig};
use crate::nand::{CellMode, Geometry, Ppn};
use gc::{GcJob, GC_PACING_MARGIN};
use reverse_map::ReverseMap;
use slc::PostCacheNow;
use std::collections::VecDeque;
use wear::mark_factory_bad_blocks;

/// Logical page number: a 4 KiB host page.
pub type Lpn = u32;

/// A flash operation the FTL needs done, in the order it must happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlashOp {
    /// Read `slots` 4 KiB slots from page index `page` of `block`, on `planes` planes at once.
    Read { block: u32, page: u32, planes: u32, slots: u32, mode: CellMode },
    /// Program the unit starting at `offset` in `block`, carrying `slots` slots of data (the rest of the
    /// unit, if any, is padding).
    Program { block: u32, offset: u32, slots: u32, source: Source, mode: CellMode },
    /// Erase `block`.
    Erase { block: u32 },
}

/// Whose data a program carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Host,
    /// GC or folding.
    Gc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockState {
    Free,
    OpenHost,
    OpenGc,
    Closed,
    /// A GC victim whose valid data is being moved out a little at a time.
    Collecting,
    /// Factory bad, or retired at its P/E limit: never used again.
    Bad,
}

#[derive(Clone, Debug)]
pub struct BlockInfo {
    /// Slots whose LPN still maps here.
    pub valid: u32,
    /// Slots written since the last erase.
    pub written: u32,
    /// Program/erase cycles.
    pub erase_count: u32,
    pub state: BlockState,
    pub mode: CellMode,
    /// The FTL's write clock (host pages written) when the block was closed: its age for cost-benefit GC.
    pub stamp: u64,
}

/// The FTL could not go on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FtlError {
    #[error("die {die} has no block with an invalid page to collect: the drive is out of space")]
    OutOfSpace { die: u32 },
}

/// What the FTL has done, for the Result counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FtlCounters {
    /// Host LPNs written.
    pub host_lpns_written: u64,
    /// Slots those took on flash (more than one each for compressed 256-byte slots).
    pub host_slots_written: u64,
    /// Host slots written into SLC-mode blocks.
    pub slc_slots_written: u64,
    /// Slots moved by GC out of native blocks.
    pub gc_slots_moved: u64,
    /// Slots moved from SLC-mode blocks to native blocks.
    pub folded_slots: u64,
    pub gc_blocks_erased: u64,
    /// Of the GC erases, those done in idle time.
    pub background_blocks_erased: u64,
    /// Blocks relocated by static wear levelling.
    pub wear_leveling_blocks: u64,
    pub factory_bad_blocks: u64,
    /// Blocks retired at their P/E limit.
    pub grown_bad_blocks: u64,
    pub trimmed_slots: u64,
    /// Slots left empty at the end of blocks because the next compressed entry did not fit.
    pub padded_slots: u64,
}

#[derive(Clone, Debug)]
struct HostUnit {
    block: u32,
    offset: u32,
    filled: u32,
    mode: CellMode,
}

fn mode_index(mode: CellMode) -> usize {
    match mode {
        CellMode::Native => 0,
        CellMode::Slc => 1,
    }
}

#[derive(Clone, Debug)]
pub struct Ftl {
    geo: Geometry,
    policy: GcPolicy,
    gc_threshold: usize,
    background_gc_free: usize,
    wear_leveling_threshold: u32,
    pe_cycle_limit: u32,
    slc: SlcCacheConfig,
    slc_static_slots: u64,
    /// LPN -> PPN + 1 (0 = unmapped, so a fresh map costs no memory until touched).
    l2p: Vec<u32>,
    /// Slots each LPN's data takes, when data is compressed (empty otherwise: one slot each).
    sizes: Vec<u8>,
    /// Slots in one uncompressed 4 KiB page (1, or 16 with 256-byte slots).
    slots_per_lpn: u32,
    blocks: Vec<BlockInfo>,
    reverse: Vec<ReverseMap>,
    free: Vec<VecDeque<u32>>,
    /// Per die, the open host block of each cell mode.
    host_open: Vec<[Option<u32>; 2]>,
    gc_open: Vec<Option<u32>>,
    /// Per die, the victim foreground GC is moving little by little.
    gc_jobs: Vec<Option<GcJob>>,
    /// Per die, the SLC block post-cache folding is moving out.
    fold_jobs: Vec<Option<GcJob>>,
    /// Closed SLC-mode blocks per die (folding candidates).
    slc_closed: Vec<u32>,
    /// The program unit host writes are filling now.
    /// Per die, the program unit host writes fill there. Only the current die's is being filled; others
    /// hold the start of a compressed entry that spilled over the end of their last unit.
    host_units: Vec<Option<HostUnit>>,
    /// The die host data goes to now; it moves on each time a program unit completes.
    cur_die: u32,
    /// Valid slots on each die.
    die_valid: Vec<u64>,
    next_idle_die: u32,
    mapped: u64,
    slc_valid: u64,
    /// Optional data tag per physical slot, moved with the data by GC: lets tests (and later power-loss
    /// checks) prove that every LPN reads back what was last written to it.
    payload: Option<Vec<u64>>,
    pub counters: FtlCounters,
}

impl Ftl {
    pub fn new(cfg: &FtlConfig, geo: Geometry) -> Self {
        let user_lpns = (cfg.user_capacity_gb * 1e9 / 4096.0) as usize;
        let blocks = geo.blocks();
        let free =
            (0..geo.dies).map(|d| (d * geo.blocks_per_die..(d + 1) * geo.blocks_per_die).collect()).collect();
        let fresh = BlockInfo {
            valid: 0,
            written: 0,
            erase_count: 0,
            state: BlockState::Free,
            mode: CellMode::Native,
            stamp: 0,
        };
        let mut blocks = vec![fresh; blocks as usize];
        let mut free: Vec<VecDeque<u32>> = free;
        let factory_bad = mark_factory_bad_blocks(cfg, &geo, &mut blocks, &mut free);
        let mut ftl = Ftl {
            policy: cfg.gc_policy,
            gc_threshold: cfg.gc_threshold_free_blocks as usize,
            background_gc_free: cfg.background_gc_free_blocks as usize,
            wear_leveling_threshold: cfg.wear_leveling_threshold,
            pe_cycle_limit: cfg.pe_cycle_limit,
            slc: cfg.slc_cache.clone(),
            slc_static_slots: (cfg.slc_cache.static_gb * 1e9 / f64::from(geo.slot_bytes)) as u64,
            l2p: vec![0; user_lpns],
            sizes: if geo.slot_bytes == 4096 { Vec::new() } else { vec![0; user_lpns] },
            slots_per_lpn: 4096 / geo.slot_bytes,
            reverse: vec![ReverseMap::default(); blocks.len()],
            blocks,
            free,
            host_open: vec![[None, None]; geo.dies as usize],
            gc_open: vec![None; geo.dies as usize],
            gc_jobs: vec![None; geo.dies as usize],
            fold_jobs: vec![None; geo.dies as usize],
            slc_closed: vec![0; geo.dies as usize],
            host_units: vec![None; geo.dies as usize],
            cur_die: 0,
            die_valid: vec![0; geo.dies as usize],
            next_idle_die: 0,
            mapped: 0,
            slc_valid: 0,
            payload: None,
            counters: FtlCounters::default(),
            geo,
        };
        ftl.counters.factory_bad_blocks = factory_bad;
        ftl
    }

    /// Track a data tag per physical slot from now on (memory: 8 bytes per slot).
    pub fn track_payload(&mut self) {
        self.payload = Some(vec![0; self.geo.total_slots() as usize]);
    }

    /// Like [`Ftl::write`], recording `tag` as the data written (needs [`Ftl::track_payload`]).
    pub fn write_tagged(
        &mut self,
        lpn: Lpn,
        slots: u32,
        tag: u64,
        ops: &mut Vec<FlashOp>,
    ) -> Result<Ppn, FtlError> {
        let ppn = self.write(lpn, slots, ops)?;
        if let Some(p) = &mut self.payload {
            p[ppn as usize] = tag;
        }
        Ok(ppn)
    }

    /// The tag last written to `lpn`, wherever GC has moved it (None if unmapped or not tracking).
    pub fn read_tag(&self, lpn: Lpn) -> Option<u64> {
        Some(self.payload.as_ref()?[self.lookup(lpn)? as usize])
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    /// LPNs the host can address.
    pub fn user_lpns(&self) -> u32 {
        self.l2p.len() as u32
    }

    /// LPNs that hold data (written and not trimmed).
    pub fn mapped_lpns(&self) -> u64 {
        self.mapped
    }

    /// Where `lpn` lives, if it was written and not trimmed.
    #[inline]
    pub fn lookup(&self, lpn: Lpn) -> Option<Ppn> {
        self.l2p[lpn as usize].checked_sub(1)
    }

    pub fn block(&self, block: u32) -> &BlockInfo {
        &self.blocks[block as usize]
    }

    /// True while `ppn` sits in the host program unit still being filled (its data only in the write buffer).
    #[inline]
    pub fn in_open_unit(&self, ppn: Ppn) -> bool {
        match &self.host_units[self.geo.die_of_block(self.geo.block_of(ppn)) as usize] {
            Some(u) => {
                let start = self.geo.ppn(u.block, u.offset);
                ppn >= start && ppn < start + u.filled
            }
            None => false,
        }
    }

    /// Slots the data of `lpn` takes (1 unless compressed).
    #[inline]
    pub fn size_of(&self, lpn: Lpn) -> u32 {
        self.sizes.get(lpn as usize).map_or(1, |&k| u32::from(k))
    }

    /// Map a host write of `lpn`, `slots` long, to the next slots of the open program unit. Flash work
    /// this causes (GC or folding to free a block, programs of completed units) is appended to `ops`.
    pub fn write(&mut self, lpn: Lpn, slots: u32, ops: &mut Vec<FlashOp>) -> Result<Ppn, FtlError> {
        let k = slots.max(1);
        let die = self.cur_die as usize;
        // An entry never crosses the end of a block: pad the block out and move on.
        if let Some(u) = &self.host_units[die] {
            if u.offset + u.filled + k > self.geo.capacity(u.mode) {
                let u = self.host_units[die].take().expect("checked above");
                self.pad_block(u.block, u.offset, Source::Host, ops);
            }
        }
        if self.host_units[die].is_none() {
            self.host_units[die] = Some(self.open_host_unit(die as u32, ops)?);
        }
        let u = self.host_units[die].as_mut().expect("opened above");
        let (block, offset, mode) = (u.block, u.offset + u.filled, u.mode);
        u.filled += k;
        let ppn = self.place(lpn, k, block, offset);
        self.counters.host_lpns_written += 1;
        self.counters.host_slots_written += u64::from(k);
        if mode == CellMode::Slc {
            self.counters.slc_slots_written += u64::from(k);
        }
        // Program every unit this entry completed (a compressed entry may spill into the die's next unit);
        // then stripe on to the next die.
        let spp = self.geo.slots_per_program(mode);
        // a unit uses up its share of block space (an SLC-mode unit bits_per_cell times its data size)
        let space = u64::from(spp) * u64::from(self.geo.slots_per_block() / self.geo.capacity(mode));
        let mut completed = false;
        while self.host_units[die].as_ref().is_some_and(|u| u.filled >= spp) {
            // GC moves the unit's share of a victim first: host data waits for the work it causes, so the
            // write buffer holds writes back while GC is behind.
            self.pace_garbage_collection(die as u32, space, ops);
            let u = self.host_units[die].as_mut().expect("checked above");
            ops.push(FlashOp::Program { block, offset: u.offset, slots: spp, source: Source::Host, mode });
            u.offset += spp;
            u.filled -= spp;
            if u.filled == 0 {
                self.host_units[die] = None;
            }
            completed = true;
        }
        if completed {
            self.cur_die = self.next_host_die();
        }
        self.close_if_full(block);
        Ok(ppn)
    }

    /// Program every partly filled host unit now, the rest of each unit padded (a flush or a FUA write:
    /// acknowledged data must reach flash). The next host data on that die starts a new unit.
    pub fn flush_open_units(&mut self, ops: &mut Vec<FlashOp>) {
        for die in 0..self.host_units.len() {
            let Some(u) = self.host_units[die].take() else { continue };
            if u.filled == 0 {
                continue;
            }
            let pad = self.geo.slots_per_program(u.mode).saturating_sub(u.filled);
            self.blocks[u.block as usize].written += pad;
            self.counters.padded_slots += u64::from(pad);
            ops.push(FlashOp::Program {
                block: u.block,
                offset: u.offset,
                slots: u.filled,
                source: Source::Host,
                mode: u.mode,
            });
            self.close_if_full(u.block);
        }
    }

    /// Close `block` early: the rest of it stays empty; the unit at `unit_offset` is programmed padded.
    fn pad_block(&mut self, block: u32, unit_offset: u32, source: Source, ops: &mut Vec<FlashOp>) {
        let b = &mut self.blocks[block as usize];
        let (cap, mode) = (self.geo.capacity(b.mode), b.mode);
        self.counters.padded_slots += u64::from(cap - b.written);
        let slots = b.written - unit_offset;
        b.written = cap;
        ops.push(FlashOp::Program { block, offset: unit_offset, slots, source, mode });
        self.close_if_full(block);
    }

    /// Sanitize (NVMe block erase): every block holding data is erased and the map emptied; wear (P/E
    /// counts, bad blocks) stays. The erases are appended to `ops`.
    pub fn sanitize(&mut self, ops: &mut Vec<FlashOp>) {
        self.l2p.fill(0);
        self.sizes.fill(0);
        if let Some(p) = &mut self.payload {
            p.fill(0);
        }
        (self.mapped, self.slc_valid) = (0, 0);
        self.die_valid.fill(0);
        self.host_units.fill(None);
        self.host_open.fill([None, None]);
        self.gc_open.fill(None);
        self.gc_jobs.fill(None);
        self.fold_jobs.fill(None);
        self.slc_closed.fill(0);
        for die in 0..self.geo.dies {
            self.free[die as usize].clear();
            for block in self.die_blocks(die) {
                let b = &mut self.blocks[block as usize];
                if b.state == BlockState::Bad {
                    continue;
                }
                if b.state != BlockState::Free || b.written > 0 {
                    self.erase(block, ops);
                } else {
                    self.free[die as usize].push_back(block);
                }
            }
        }
    }

    /// Erase `block`: it rejoins its die's free pool, or retires as a grown bad block at its P/E limit.
    fn erase(&mut self, block: u32, ops: &mut Vec<FlashOp>) {
        ops.push(FlashOp::Erase { block });
        self.reverse[block as usize] = ReverseMap::default();
        let b = &mut self.blocks[block as usize];
        (b.valid, b.written, b.mode) = (0, 0, CellMode::Native);
        b.erase_count += 1;
        if self.pe_cycle_limit > 0 && b.erase_count >= self.pe_cycle_limit {
            b.state = BlockState::Bad;
            self.counters.grown_bad_blocks += 1;
        } else {
            b.state = BlockState::Free;
            self.free[self.geo.die_of_block(block) as usize].push_back(block);
        }
    }

    /// Deallocate `lpn` (TRIM / NVMe Deallocate).
    pub fn trim(&mut self, lpn: Lpn) {
        if let Some(old) = self.lookup(lpn) {
            self.invalidate(old, self.size_of(lpn));
            self.mapped -= 1;
            self.l2p[lpn as usize] = 0;
            self.counters.trimmed_slots += 1;
        }
    }

    /// The die for the next host unit: the next in turn, passing over any die holding more than a block
    /// of valid data above the emptiest. (Overwrites invalidate data on random dies; without this a die can
    /// fill with valid data while the others have room.)
    fn next_host_die(&self) -> u32 {
        let least = self.die_valid.iter().copied().min().unwrap_or(0);
        let limit = least + u64::from(self.geo.slots_per_block());
        (1..=self.geo.dies)
            .map(|i| (self.cur_die + i) % self.geo.dies)
            .find(|&d| self.die_valid[d as usize] <= limit)
            .unwrap_or((self.cur_die + 1) % self.geo.dies)
    }

    #[inline]
    fn invalidate(&mut self, ppn: Ppn, k: u32) {
        let block = self.geo.block_of(ppn);
        self.die_valid[self.geo.die_of_block(block) as usize] -= u64::from(k);
        let b = &mut self.blocks[block as usize];
        b.valid -= k;
        if b.mode == CellMode::Slc {
            self.slc_valid -= u64::from(k);
        }
    }

    /// Point `lpn` at `k` slots from (block, offset), invalidating its old copy.
    #[inline]
    fn place(&mut self, lpn: Lpn, k: u32, block: u32, offset: u32) -> Ppn {
        match self.lookup(lpn) {
            Some(old) => self.invalidate(old, self.size_of(lpn)),
            None => self.mapped += 1,
        }
        let ppn = self.geo.ppn(block, offset);
        self.l2p[lpn as usize] = ppn + 1;
        if let Some(size) = self.sizes.get_mut(lpn as usize) {
            *size = k as u8;
        }
        self.die_valid[self.geo.die_of_block(block) as usize] += u64::from(k);
        let b = &mut self.blocks[block as usize];
        self.reverse[block as usize].push(lpn, k as u8, b.written);
        b.written += k;
        b.valid += k;
        if b.mode == CellMode::Slc {
            self.slc_valid += u64::from(k);
        }
        ppn
    }

    fn close_if_full(&mut self, block: u32) {
        let b = &mut self.blocks[block as usize];
        if b.written < self.geo.capacity(b.mode) {
            return;
        }
        let die = self.geo.die_of_block(block) as usize;
        match b.state {
            BlockState::OpenHost => self.host_open[die][mode_index(b.mode)] = None,
            BlockState::OpenGc => self.gc_open[die] = None,
            _ => {}
        }
        b.state = BlockState::Closed;
        b.stamp = self.counters.host_slots_written;
        if b.mode == CellMode::Slc {
            self.slc_closed[die] += 1;
        }
    }

    fn open_host_unit(&mut self, die: u32, ops: &mut Vec<FlashOp>) -> Result<HostUnit, FtlError> {
        // Under GC pressure host data bypasses the cache in direct mode, and in every mode once the cache is
        // full: writing it twice (SLC, then folded) would only deepen the deficit.
        let pressure = self.free[die as usize].len() <= self.gc_threshold + GC_PACING_MARGIN;
        let mode = match self.host_mode() {
            CellMode::Slc
                if pressure && (self.slc_cache_full() || self.post_cache() == PostCacheNow::Direct) =>
            {
                CellMode::Native
            }
            mode => mode,
        };
        // Post-cache folding: writing through a full cache means folding SLC data to make room, a whole
        // block at once (the host waits behind it) or, interleaved, a unit's worth before each host unit.
        // (In direct mode the cache shrinks by itself: GC under free-block pressure folds SLC blocks first,
        // as they hold the least valid data.)
        let unit = u64::from(self.geo.slots_per_program(mode));
        let budget = self.slc_budget_slots();
        let policy = self.post_cache();
        let quota = if mode == CellMode::Slc && self.slc_valid + unit > budget {
            match policy {
                PostCacheNow::FoldInterleaved => self.slc_valid + unit - budget,
                _ => u64::MAX,
            }
        } else if self.fold_jobs[die as usize].is_some() && policy != PostCacheNow::FoldInterleaved {
            // a fold left under way when the fill changed the policy is finished, not stranded
            u64::MAX
        } else {
            0
        };
        if quota > 0 && !self.free[die as usize].is_empty() {
            self.fold_slc(die, quota, ops);
        }
        let block = match self.host_open[die as usize][mode_index(mode)] {
            Some(b) => b,
            None => {
                self.collect_garbage(die, ops)?;
                let b = self.take_free(die, BlockState::OpenHost, mode);
                self.host_open[die as usize][mode_index(mode)] = Some(b);
                b
            }
        };
        Ok(HostUnit { block, offset: self.blocks[block as usize].written, filled: 0, mode })
    }

    fn take_free(&mut self, die: u32, state: BlockState, mode: CellMode) -> u32 {
        let b = self.free[die as usize].pop_front().expect("GC keeps at least one free block per die");
        let info = &mut self.blocks[b as usize];
        info.state = state;
        info.mode = mode;
        b
    }

    fn die_blocks(&self, die: u32) -> std::ops::Range<u32> {
        die * self.geo.blocks_per_die..(die + 1) * self.geo.blocks_per_die
    }

    /// Check the map's invariants; used by tests. Returns a description of the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut valid = vec![0u32; self.blocks.len()];
        let mut mapped = 0;
        let mut slc = 0;
        for (lpn, &e) in self.l2p.iter().enumerate() {
            if let Some(ppn) = e.checked_sub(1) {
                let block = self.geo.block_of(ppn);
                let info = &self.blocks[block as usize];
                let off = ppn % self.geo.slots_per_block();
                if off >= info.written || off >= self.geo.capacity(info.mode) {
                    return Err(format!("LPN {lpn} maps to unwritten slot {off} of block {block}"));
                }
                let k = self.size_of(lpn as u32);
                valid[block as usize] += k;
                mapped += 1;
                if info.mode == CellMode::Slc {
                    slc += u64::from(k);
                }
            }
        }
        for (b, info) in self.blocks.iter().enumerate() {
            if info.valid != valid[b] {
                return Err(format!(
                    "block {b} counts {} valid slots but {} LPNs map into it",
                    info.valid, valid[b]
                ));
            }
        }
        if (mapped, slc) != (self.mapped, self.slc_valid) {
            return Err(format!(
                "counts {} mapped / {} in SLC, map has {mapped} / {slc}",
                self.mapped, self.slc_valid
            ));
        }
        Ok(())
    }

    pub fn free_blocks(&self) -> usize {
        self.free.iter().map(|f| f.len()).sum()
    }
}

#[cfg(test)]
mod tests;
