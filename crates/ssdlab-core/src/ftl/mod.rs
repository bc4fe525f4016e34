//! Flash translation layer: a page-level map over 4 KiB LPNs, block allocation, garbage collection, TRIM.
//!
//! The FTL is pure state: it decides where data goes and which flash operations that takes, and hands
//! those operations ([`FlashOp`]) to the controller, which schedules them on the NAND timelines.
//!
//! Host data is written one program unit at a time, program units striped round-robin over the dies
//! (channel first). Each die keeps its own free-block pool, open host block and open GC block; when a die's
//! free pool falls to `gc_threshold_free_blocks`, foreground GC on that die moves the valid pages of a
//! victim block into the die's GC block (so copies stay on the die) and erases the victim.
//!
//! With an SLC cache, host program units go to blocks run in SLC mode while the cache's budget allows
//! (see [`crate::config::SlcCacheConfig`]). Folding is GC of an SLC block: its valid data is read and
//! programmed one-shot into a native block. It happens under pressure (budget shrinking as the drive
//! fills, or a free pool at its threshold) and, if enabled, when the host is idle.

mod gc;
mod reverse_map;

use crate::config::{FtlConfig, GcPolicy, PostCache, SlcCacheConfig};
use crate::nand::{CellMode, Geometry, Ppn};
use reverse_map::ReverseMap;
use std::collections::VecDeque;

/// Logical page number: a 4 KiB host page.
pub type Lpn = u32;

/// A flash operation the FTL needs done, in the order it must happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlashOp {
    /// Read `slots` 4 KiB slots from page index `page` of `block`, on `planes` planes at once.
    Read { block: u32, page: u32, planes: u32, slots: u32, mode: CellMode },
    /// Program the unit of `slots` slots starting at `offset` in `block`.
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

/// Foreground GC starts moving a victim's data, a little with each host program unit, once a die's
/// free blocks fall to this many above `gc_threshold_free_blocks`; at the threshold it must finish a
/// victim before the host gets a block. Pacing keeps host writes from stalling behind a whole block of
/// copies at once.
const GC_PACING_MARGIN: usize = 2;

/// A victim whose valid entries (slot offset, LPN, slots) are being moved.
#[derive(Clone, Debug)]
struct GcJob {
    victim: u32,
    entries: Vec<(u32, u32, u32)>,
    next: usize,
    /// Slots to move per host slot written, so the victim is free before the pool runs dry.
    pace: f64,
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
    /// Closed SLC-mode blocks per die (folding candidates).
    slc_closed: Vec<u32>,
    /// The program unit host writes are filling now.
    /// Per die, the program unit host writes fill there. Only the current die's is being filled; others
    /// hold the start of a compressed entry that spilled over the end of their last unit.
    host_units: Vec<Option<HostUnit>>,
    /// The die host data goes to now; it moves on each time a program unit completes.
    cur_die: u32,
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
            slc_closed: vec![0; geo.dies as usize],
            host_units: vec![None; geo.dies as usize],
            cur_die: 0,
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
        let mut completed = false;
        while let Some(u) = self.host_units[die].as_mut().filter(|u| u.filled >= spp) {
            ops.push(FlashOp::Program { block, offset: u.offset, slots: spp, source: Source::Host, mode });
            u.offset += spp;
            u.filled -= spp;
            if u.filled == 0 {
                self.host_units[die] = None;
            }
            completed = true;
        }
        if completed {
            self.cur_die = (self.cur_die + 1) % self.geo.dies;
        }
        self.close_if_full(block);
        Ok(ppn)
    }

    /// Close `block` early: the rest of it stays empty; the unit at `unit_offset` is programmed padded.
    fn pad_block(&mut self, block: u32, unit_offset: u32, source: Source, ops: &mut Vec<FlashOp>) {
        let b = &mut self.blocks[block as usize];
        let (cap, mode) = (self.geo.capacity(b.mode), b.mode);
        self.counters.padded_slots += u64::from(cap - b.written);
        b.written = cap;
        let slots = self.geo.slots_per_program(mode);
        ops.push(FlashOp::Program { block, offset: unit_offset, slots, source, mode });
        self.close_if_full(block);
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

    #[inline]
    fn invalidate(&mut self, ppn: Ppn, k: u32) {
        let b = &mut self.blocks[self.geo.block_of(ppn) as usize];
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

    /// Where the next host program unit goes: SLC while the cache has room, else by the post-cache policy.
    fn host_mode(&self) -> CellMode {
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

    fn open_host_unit(&mut self, die: u32, ops: &mut Vec<FlashOp>) -> Result<HostUnit, FtlError> {
        // Under GC pressure host data bypasses the cache (direct mode): writing it twice would only
        // deepen the deficit.
        let pressure = self.free[die as usize].len() <= self.gc_threshold + GC_PACING_MARGIN;
        let mode = match self.host_mode() {
            CellMode::Slc if pressure && self.slc.post_cache == PostCache::Direct => CellMode::Native,
            mode => mode,
        };
        // Post-cache folding: writing through a full cache means folding its oldest data to make room.
        // (In direct mode the cache shrinks by itself: GC under free-block pressure folds SLC blocks first,
        // as they hold the least valid data.)
        let unit = u64::from(self.geo.slots_per_program(mode));
        let room = !self.free[die as usize].is_empty();
        if mode == CellMode::Slc && self.slc_valid + unit > self.slc_budget_slots() && room {
            if let Some(victim) = self.slc_victim(die) {
                self.relocate(victim, ops);
            }
        }
        // an SLC-mode unit uses up a block bits_per_cell times faster than its data size says
        let space = unit * u64::from(self.geo.slots_per_block() / self.geo.capacity(mode));
        self.pace_garbage_collection(die, space, ops);
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

    /// The closed SLC block on `die` with the least valid data.
    fn slc_victim(&self, die: u32) -> Option<u32> {
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

    /// A GC victim on `die` that frees space (a block's worth of native slots minus what must move).
    fn gc_victim(&self, die: u32) -> Option<u32> {
        let now = self.counters.host_slots_written;
        gc::pick_victim(self.policy, &self.blocks, self.die_blocks(die), &self.geo, now)
            .filter(|&v| self.blocks[v as usize].valid < self.geo.slots_per_block())
    }

    /// Foreground GC on `die` until its free pool is above the threshold. A relocation needs one free
    /// block at most (for the GC frontier), so a die with none left is out of space.
    fn collect_garbage(&mut self, die: u32, ops: &mut Vec<FlashOp>) -> Result<(), FtlError> {
        let mut collected = false;
        while self.free[die as usize].len() <= self.gc_threshold {
            if self.gc_jobs[die as usize].is_some() {
                self.step_gc_job(die, u64::MAX, ops);
            } else {
                let victim = self.gc_victim(die).filter(|_| !self.free[die as usize].is_empty());
                self.relocate(victim.ok_or(FtlError::OutOfSpace { die })?, ops);
            }
            collected = true;
        }
        if collected {
            self.level_wear(die, ops);
        }
        Ok(())
    }

    /// Paced foreground GC: near the threshold, each host unit on `die` that uses up `unit` slots of
    /// block space moves its share of a victim's valid data.
    fn pace_garbage_collection(&mut self, die: u32, unit: u64, ops: &mut Vec<FlashOp>) {
        let free = self.free[die as usize].len();
        if free > self.gc_threshold + GC_PACING_MARGIN || free < 2 {
            return;
        }
        if self.gc_jobs[die as usize].is_none() {
            let Some(victim) = self.gc_victim(die) else { return };
            self.gc_jobs[die as usize] = Some(self.start_gc_job(victim));
        }
        let pace = self.gc_jobs[die as usize].as_ref().map_or(0.0, |j| j.pace);
        self.step_gc_job(die, (unit as f64 * pace).ceil() as u64, ops);
        if self.gc_jobs[die as usize].is_none() {
            self.level_wear(die, ops);
        }
    }

    /// Static wear levelling: if the die's erase counts spread by more than the threshold, move the data
    /// of its least-erased closed block (cold data that pins it) so the block rejoins the pool.
    fn level_wear(&mut self, die: u32, ops: &mut Vec<FlashOp>) -> bool {
        if self.wear_leveling_threshold == 0 || self.free[die as usize].len() < 2 {
            return false;
        }
        let range = self.die_blocks(die);
        let max = range
            .clone()
            .filter(|&b| self.blocks[b as usize].state != BlockState::Bad)
            .map(|b| self.blocks[b as usize].erase_count)
            .max()
            .unwrap_or(0);
        let coldest = range
            .filter(|&b| self.blocks[b as usize].state == BlockState::Closed)
            .min_by_key(|&b| (self.blocks[b as usize].erase_count, b));
        match coldest {
            Some(b) if max - self.blocks[b as usize].erase_count > self.wear_leveling_threshold => {
                // The cold data goes to the most-worn free block, which can rest while it holds it.
                let pool = &mut self.free[die as usize];
                if let Some(i) =
                    (0..pool.len()).max_by_key(|&i| (self.blocks[pool[i] as usize].erase_count, i))
                {
                    let worn = pool.remove(i).expect("index in range");
                    pool.push_front(worn);
                }
                self.relocate(b, ops);
                self.counters.wear_leveling_blocks += 1;
                true
            }
            _ => false,
        }
    }

    /// One piece of idle-time work: fold one SLC block, or collect one block on a die below the background
    /// GC level. Returns false when there is nothing to do.
    pub fn background_step(&mut self, ops: &mut Vec<FlashOp>) -> bool {
        for i in 0..self.geo.dies {
            let die = (self.next_idle_die + i) % self.geo.dies;
            if self.free[die as usize].len() < 2 {
                continue;
            }
            if self.level_wear(die, ops) {
                self.next_idle_die = (die + 1) % self.geo.dies;
                return true;
            }
            let victim = if self.slc.idle_fold && self.close_idle_slc_block(die) {
                self.slc_victim(die)
            } else if self.free[die as usize].len() < self.background_gc_free {
                self.gc_victim(die)
            } else {
                None
            };
            if let Some(v) = victim {
                self.next_idle_die = (die + 1) % self.geo.dies;
                self.relocate(v, ops);
                self.counters.background_blocks_erased += 1;
                return true;
            }
        }
        false
    }

    /// True if `die` has a closed SLC block to fold; an open SLC host block that no host program unit is
    /// filling is closed for the purpose, so idle folding can empty the cache completely.
    fn close_idle_slc_block(&mut self, die: u32) -> bool {
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

    /// Move the valid slots of `victim` into the die's GC block (native mode), then erase it.
    fn relocate(&mut self, victim: u32, ops: &mut Vec<FlashOp>) {
        let die = self.geo.die_of_block(victim);
        let mut job = Some(self.start_gc_job(victim));
        std::mem::swap(&mut job, &mut self.gc_jobs[die as usize]);
        self.step_gc_job(die, u64::MAX, ops);
        // an incremental job that was under way on the die carries on
        self.gc_jobs[die as usize] = job;
    }

    /// Take `victim` out of service and list the entries it still holds.
    fn start_gc_job(&mut self, victim: u32) -> GcJob {
        let die = self.geo.die_of_block(victim);
        let b = &mut self.blocks[victim as usize];
        if b.mode == CellMode::Slc && b.state == BlockState::Closed {
            self.slc_closed[die as usize] -= 1;
        }
        b.state = BlockState::Collecting;
        let reverse = std::mem::take(&mut self.reverse[victim as usize]);
        let mut entries = Vec::with_capacity(self.blocks[victim as usize].valid as usize);
        reverse.for_each(|off, lpn, k| {
            if self.l2p[lpn as usize] == self.geo.ppn(victim, off) + 1 {
                entries.push((off, lpn, k));
            }
        });
        let valid = f64::from(self.blocks[victim as usize].valid);
        let gain = (f64::from(self.geo.slots_per_block()) - valid).max(1.0);
        GcJob { victim, entries, next: 0, pace: valid / gain }
    }

    /// Move up to `quota` slots of the die's GC job (one multi-plane read per page index that still holds
    /// valid data); when its last entry has moved, erase the victim and return it to the pool.
    fn step_gc_job(&mut self, die: u32, quota: u64, ops: &mut Vec<FlashOp>) {
        let Some(mut job) = self.gc_jobs[die as usize].take() else { return };
        let victim = job.victim;
        let mode = self.blocks[victim as usize].mode;
        // This step's share: whole page indexes, entries overwritten since the job started left out.
        let mut live = Vec::new();
        let mut budget = 0u64;
        while job.next < job.entries.len() && budget < quota {
            let page = self.geo.page_of(job.entries[job.next].0);
            let mut slots = 0;
            while job.next < job.entries.len() && self.geo.page_of(job.entries[job.next].0) == page {
                let (off, lpn, k) = job.entries[job.next];
                if self.l2p[lpn as usize] == self.geo.ppn(victim, off) + 1 {
                    live.push((lpn, k));
                    slots += k;
                }
                job.next += 1;
            }
            if slots > 0 {
                ops.push(FlashOp::Read { block: victim, page, planes: self.geo.planes, slots, mode });
            }
            budget += u64::from(slots).max(1);
        }
        // Reads first, then the programs they feed: the die senses the pages back to back.
        let mut moved = 0u64;
        for (lpn, k) in live {
            self.gc_write(die, lpn, k, ops);
            moved += u64::from(k);
        }
        match mode {
            CellMode::Slc => self.counters.folded_slots += moved,
            CellMode::Native => self.counters.gc_slots_moved += moved,
        }
        if job.next < job.entries.len() {
            self.gc_jobs[die as usize] = Some(job);
            return;
        }
        self.counters.gc_blocks_erased += 1;
        let b = &mut self.blocks[victim as usize];
        debug_assert_eq!(b.valid, 0);
        b.written = 0;
        b.erase_count += 1;
        b.mode = CellMode::Native;
        ops.push(FlashOp::Erase { block: victim });
        if self.pe_cycle_limit > 0 && b.erase_count >= self.pe_cycle_limit {
            b.state = BlockState::Bad;
            self.counters.grown_bad_blocks += 1;
        } else {
            b.state = BlockState::Free;
            self.free[die as usize].push_back(victim);
        }
    }

    fn gc_write(&mut self, die: u32, lpn: Lpn, k: u32, ops: &mut Vec<FlashOp>) {
        let spp = self.geo.slots_per_program(CellMode::Native);
        if let Some(b) = self.gc_open[die as usize] {
            let written = self.blocks[b as usize].written;
            if written + k > self.geo.capacity(CellMode::Native) {
                self.pad_block(b, written / spp * spp, Source::Gc, ops);
            }
        }
        let block = match self.gc_open[die as usize] {
            Some(b) => b,
            None => {
                let b = self.take_free(die, BlockState::OpenGc, CellMode::Native);
                self.gc_open[die as usize] = Some(b);
                b
            }
        };
        let offset = self.blocks[block as usize].written;
        let old = self.lookup(lpn);
        let new = self.place(lpn, k, block, offset);
        if let (Some(p), Some(old)) = (&mut self.payload, old) {
            p[new as usize] = p[old as usize];
        }
        // Program every unit this entry completed.
        let mut end = (offset / spp + 1) * spp;
        while end <= offset + k {
            let mode = CellMode::Native;
            ops.push(FlashOp::Program { block, offset: end - spp, slots: spp, source: Source::Gc, mode });
            end += spp;
        }
        self.close_if_full(block);
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

    /// (min, max, mean) erase count over all blocks.
    pub fn erase_counts(&self) -> (u32, u32, f64) {
        let (mut lo, mut hi, mut sum) = (u32::MAX, 0, 0u64);
        for b in &self.blocks {
            lo = lo.min(b.erase_count);
            hi = hi.max(b.erase_count);
            sum += u64::from(b.erase_count);
        }
        (lo, hi, sum as f64 / self.blocks.len() as f64)
    }

    pub fn free_blocks(&self) -> usize {
        self.free.iter().map(|f| f.len()).sum()
    }
}

#[cfg(test)]
mod tests;

/// Mark `factory_bad_block_pct` of each die's blocks bad, chosen by the drive's bad-block seed, and take
/// them out of the free pools. Returns how many were marked.
fn mark_factory_bad_blocks(
    cfg: &FtlConfig,
    geo: &Geometry,
    blocks: &mut [BlockInfo],
    free: &mut [VecDeque<u32>],
) -> u64 {
    use rand::RngExt;
    let per_die = (f64::from(geo.blocks_per_die) * cfg.factory_bad_block_pct / 100.0).round() as u32;
    if per_die == 0 {
        return 0;
    }
    for die in 0..geo.dies {
        let mut rng = crate::engine::stream(cfg.bad_block_seed, 0xBAD0_0000 + u64::from(die));
        let mut marked = 0;
        while marked < per_die {
            let b = die * geo.blocks_per_die + rng.random_range(0..geo.blocks_per_die);
            if blocks[b as usize].state != BlockState::Bad {
                blocks[b as usize].state = BlockState::Bad;
                marked += 1;
            }
        }
        free[die as usize].retain(|&b| blocks[b as usize].state != BlockState::Bad);
    }
    u64::from(per_die) * u64::from(geo.dies)
}
