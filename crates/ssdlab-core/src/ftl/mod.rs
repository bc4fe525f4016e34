//! Flash translation layer: a page-level map over 4 KiB LPNs, block allocation, garbage collection, TRIM.
//!
//! The FTL is pure state: it decides where data goes and which flash operations that takes, and hands
//! those operations ([`FlashOp`]) to the controller, which schedules them on the NAND timelines.
//!
//! [`Ftl`] coordinates four parts, each owning its state behind a narrow interface:
//!
//! - `map` ([`MapTable`]): LPN -> PPN in lazily allocated, copy-on-write chunks, the size of each entry,
//!   and per block the reverse map GC walks (`reverse_map`).
//! - `pool` ([`BlockPool`]): each block's state and counts, per-die free blocks, open host and GC blocks;
//!   `pool/wear.rs`: factory bad blocks, retirement at the P/E limit, static wear levelling.
//! - `slc` ([`SlcCache`]): the dynamic SLC cache's budget, where host data goes, the fold under way.
//! - `gc` ([`Gc`]): when to collect and which block, by a [`VictimPolicy`](gc::VictimPolicy), one file
//!   per policy (greedy, cost-benefit, windowed greedy).
//!
//! The FTL itself places host data (one program unit at a time, units striped round-robin over the dies,
//! channel first) and moves data for GC, folding and wear levelling (`relocate.rs`): the steps that touch
//! both the map and the pool. Compressed data (SandForce-style) is stored in 256-byte slots, an LPN taking
//! as many as its size needs.

mod gc;
mod map;
mod pool;
mod relocate;
mod reverse_map;
mod slc;

use crate::config::{FtlConfig, HostStripe};
use crate::nand::{CellMode, Geometry, Ppn};
use gc::Gc;
use map::MapTable;
use pool::BlockPool;
use slc::{PostCacheNow, SlcCache};

/// LPNs in one chunk of the L2P map: the unit it is allocated and copied on write in.
pub const MAP_CHUNK_LPNS: u32 = 1 << 19;

/// Logical page number: a 4 KiB host page.
pub(crate) type Lpn = u32;

/// A flash operation the FTL needs done, in the order it must happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FlashOp {
    /// Read `slots` 4 KiB slots from page index `page` of `block`, on `planes` planes at once; `on_chip`:
    /// sensed into the die's latches for an on-chip copy, nothing moved out.
    Read { block: u32, page: u32, planes: u32, slots: u32, mode: CellMode, on_chip: bool },
    /// Program the unit starting at `offset` in `block`, carrying `slots` slots of data (the rest of the
    /// unit, if any, is padding).
    Program { block: u32, offset: u32, slots: u32, source: Source, mode: CellMode },
    /// Erase `block`.
    Erase { block: u32 },
    /// Sanitize overwrite of `block`: `passes` times an erase and a program of every native unit with the
    /// pattern, then an erase so that it rejoins the free pool erased. One op per block, not one per
    /// program: a whole drive's programs would not fit in memory as separate ops.
    Overwrite { block: u32, passes: u32 },
}

/// Whose data a program carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Source {
    Host,
    /// GC, or folding through the controller (read out, decoded, sent back in).
    Gc,
    /// Folding by on-chip copy: the data is already in the die's latches (no data-in).
    OnChip,
}

/// Where a block is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockState {
    /// Erased, in its die's free pool.
    Free,
    /// Receiving host data.
    OpenHost,
    /// Receiving data moved by GC, folding or wear levelling.
    OpenGc,
    /// Full (or closed early), holding data.
    Closed,
    /// A GC victim whose valid data is being moved out a little at a time.
    Collecting,
    /// Factory bad, or retired at its P/E limit: never used again.
    Bad,
}

/// What the FTL knows of one (multi-plane) block.
#[derive(Clone, Debug)]
pub struct BlockInfo {
    /// Slots whose LPN still maps here.
    pub valid: u32,
    /// Slots written since the last erase.
    pub written: u32,
    /// Program/erase cycles.
    pub erase_count: u32,
    /// Where the block is in its life.
    pub state: BlockState,
    /// Native density, or one bit per cell (SLC cache).
    pub mode: CellMode,
    /// The FTL's write clock (host slots written) when the block was closed: its age for cost-benefit GC.
    pub stamp: u64,
}

/// The FTL could not go on.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FtlError {
    /// Garbage collection found nothing to free on a die.
    #[error("die {die} has no block with an invalid page to collect: the drive is out of space")]
    OutOfSpace {
        /// The die that ran out.
        die: u32,
    },
}

/// What the FTL has done, for the Result counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct FtlCounters {
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
    /// Slots left empty: at the end of blocks (the next compressed entry did not fit) and in units flushed
    /// part-filled.
    pub padded_slots: u64,
}

/// The program unit host writes are filling on a die.
#[derive(Clone, Debug)]
struct HostUnit {
    block: u32,
    offset: u32,
    filled: u32,
    mode: CellMode,
}

/// Memory the FTL holds on the heap, in bytes ([`Ftl::heap_bytes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FtlMemory {
    /// The map table: L2P and entry-size chunks, their chunk tables, the per-block reverse maps.
    pub map: u64,
    /// The block pool: per-block records and per-die lists.
    pub pool: u64,
    /// L2P chunks allocated (each covers [`MAP_CHUNK_LPNS`] LPNs).
    pub map_chunks: usize,
}

/// The flash translation layer: a thin coordinator over the map table, the block pool, the SLC cache
/// and garbage collection.
///
/// Outside the crate it is read-only: [`lookup`](Ftl::lookup), [`block`](Ftl::block),
/// [`mapped_lpns`](Ftl::mapped_lpns), [`heap_bytes`](Ftl::heap_bytes) and
/// [`check_invariants`](Ftl::check_invariants) let tests look inside.
#[derive(Clone, Debug)]
pub struct Ftl {
    geo: Geometry,
    map: MapTable,
    pool: BlockPool,
    slc: SlcCache,
    gc: Gc,
    /// Per die, the program unit host writes fill there. The current die's is being filled; with
    /// `host_stripe = "page"` the others hold the pages of theirs filled so far (a one-shot unit is
    /// programmed once its last page is in), and a compressed entry may spill into a die's next unit.
    host_units: Vec<Option<HostUnit>>,
    /// The die host data goes to now; it moves on each time a stripe (see `stripe`) is filled.
    cur_die: u32,
    /// Slots of consecutive host data a die takes before the next die's turn, native and SLC mode: a page
    /// index (every plane) with `host_stripe = "page"`, else a whole program unit.
    stripe: [u32; 2],
    /// Optional data tag per physical slot, moved with the data by GC: lets tests (and later power-loss
    /// checks) prove that every LPN reads back what was last written to it.
    payload: Option<Vec<u64>>,
    counters: FtlCounters,
    relocation_scratch: RelocationScratch,
}

/// Buffers GC and folding reuse from one step to the next (simulator speed only: no allocation per step).
/// Nothing in them outlives a step, so a clone starts empty.
#[derive(Debug, Default)]
struct RelocationScratch {
    /// A victim's entries as its reverse map lists them, while `start_job` checks which are still mapped.
    written: Vec<(u32, Lpn, u32)>,
    /// The entries one step moves.
    live: Vec<(Lpn, u32)>,
}

impl Clone for RelocationScratch {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl Ftl {
    pub(crate) fn new(cfg: &FtlConfig, geo: Geometry, seed: u64) -> Self {
        let user_lpns = (cfg.user_capacity_gb * 1e9 / 4096.0) as usize;
        let (pool, factory_bad) = BlockPool::new(cfg, geo, seed);
        let map = MapTable::new(user_lpns, geo.blocks() as usize, geo.slot_bytes != 4096);
        let counters = FtlCounters { factory_bad_blocks: factory_bad, ..FtlCounters::default() };
        Ftl {
            slc: SlcCache::new(&cfg.slc_cache, &geo, map.user_lpns()),
            gc: Gc::new(cfg, geo.dies),
            map,
            pool,
            host_units: vec![None; geo.dies as usize],
            cur_die: 0,
            stripe: [CellMode::Native, CellMode::Slc].map(|mode| match cfg.host_stripe {
                HostStripe::Page => geo.planes * geo.slots_per_page,
                HostStripe::Unit => geo.slots_per_program(mode),
            }),
            payload: None,
            counters,
            relocation_scratch: RelocationScratch::default(),
            geo,
        }
    }

    /// Track a data tag per physical slot from now on (memory: 8 bytes per slot).
    #[cfg(test)]
    pub(crate) fn track_payload(&mut self) {
        self.payload = Some(vec![0; self.geo.total_slots() as usize]);
    }

    /// Like [`Ftl::write`], recording `tag` as the data written (needs [`Ftl::track_payload`]).
    #[cfg(test)]
    pub(crate) fn write_tagged(
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
    #[cfg(test)]
    pub(crate) fn read_tag(&self, lpn: Lpn) -> Option<u64> {
        Some(self.payload.as_ref()?[self.lookup(lpn)? as usize])
    }

    /// The flash geometry the FTL allocates on.
    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    /// LPNs the host can address.
    pub fn user_lpns(&self) -> u32 {
        self.map.user_lpns()
    }

    /// LPNs that hold data (written and not trimmed).
    pub fn mapped_lpns(&self) -> u64 {
        self.map.mapped()
    }

    /// Where `lpn` lives, if it was written and not trimmed.
    #[inline]
    pub fn lookup(&self, lpn: u32) -> Option<Ppn> {
        self.map.lookup(lpn)
    }

    /// Bring `lpn`'s map entry into the host CPU's cache before it is looked up: the simulator's own
    /// speed (a random lookup in a map of many MiB misses the cache), nothing in the model changes.
    #[inline]
    pub fn prefetch(&self, lpn: u32) {
        self.map.prefetch(lpn);
    }

    /// What the FTL knows of `block` (blocks are numbered die-major; see [`Geometry`]).
    pub fn block(&self, block: u32) -> &BlockInfo {
        self.pool.block(block)
    }

    /// Memory the FTL holds on the heap. The map grows with what has been written: a fresh drive holds
    /// only chunk tables, and a clone shares every map chunk with its original until one of them
    /// writes there (each side counts a shared chunk).
    pub fn heap_bytes(&self) -> FtlMemory {
        let payload = self.payload.as_ref().map_or(0, |p| p.capacity() * 8) as u64;
        FtlMemory {
            map: self.map.heap_bytes(),
            pool: self.pool.heap_bytes() + payload,
            map_chunks: self.map.chunks(),
        }
    }

    /// Of the L2P chunks this FTL holds, how many are the very same allocation in `other` (a clone shares
    /// them until one side writes there).
    pub fn map_chunks_shared_with(&self, other: &Ftl) -> usize {
        self.map.shared_chunks(&other.map)
    }

    /// What the FTL has done so far.
    pub(crate) fn counters(&self) -> &FtlCounters {
        &self.counters
    }

    /// (min, max, mean) erase count over all blocks.
    pub(crate) fn erase_counts(&self) -> (u32, u32, f64) {
        self.pool.erase_counts()
    }

    /// Free blocks on all dies.
    pub(crate) fn free_blocks(&self) -> usize {
        self.pool.free_blocks()
    }

    /// Host data held in SLC-mode blocks, in slots.
    pub(crate) fn slc_used_slots(&self) -> u64 {
        self.pool.slc_valid()
    }

    /// How much host data the SLC cache may hold now, in slots (0 without a cache).
    pub(crate) fn slc_budget_slots(&self) -> u64 {
        self.slc.budget_slots(self.map.mapped())
    }

    /// True while `ppn` sits in the host program unit still being filled (its data only in the write buffer).
    #[inline]
    pub(crate) fn in_open_unit(&self, ppn: Ppn) -> bool {
        match &self.host_units[self.geo.die_of_block(self.geo.block_of(ppn)) as usize] {
            Some(u) => {
                let start = self.geo.ppn(u.block, u.offset);
                ppn >= start && ppn < start + u.filled
            }
            None => false,
        }
    }

    /// Slots of host data in program units still being filled (held only in the write buffer).
    pub(crate) fn open_unit_slots(&self) -> u64 {
        self.host_units.iter().flatten().map(|u| u64::from(u.filled)).sum()
    }

    /// Slots the data of `lpn` takes (1 unless compressed).
    #[inline]
    pub(crate) fn size_of(&self, lpn: Lpn) -> u32 {
        self.map.size_of(lpn)
    }

    /// Map a host write of `lpn`, `slots` long, to the next slots of the open program unit. Flash work
    /// this causes (GC or folding to free a block, programs of completed units) is appended to `ops`.
    pub(crate) fn write(&mut self, lpn: Lpn, slots: u32, ops: &mut Vec<FlashOp>) -> Result<Ppn, FtlError> {
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
        let (block, offset, mode, before) = (u.block, u.offset + u.filled, u.mode, u.filled);
        u.filled += k;
        // the die's turn ends when this entry reached (or crossed) the end of its stripe
        let stripe = self.stripe_slots(mode);
        let stripes = (before + k) / stripe - before / stripe;
        let ppn = self.place(lpn, k, block, offset);
        self.count_host_writes(1, k, mode);
        if stripes > 0 {
            self.pace_stripes(die as u32, stripes * stripe, mode, ops);
        }
        // Program every unit this entry completed (a compressed entry may spill into the die's next unit);
        // then stripe on to the next die.
        let spp = self.geo.slots_per_program(mode);
        while self.host_units[die].as_ref().is_some_and(|u| u.filled >= spp) {
            let u = self.host_units[die].as_mut().expect("checked above");
            ops.push(FlashOp::Program { block, offset: u.offset, slots: spp, source: Source::Host, mode });
            u.offset += spp;
            u.filled -= spp;
            if u.filled == 0 {
                self.host_units[die] = None;
            }
        }
        if stripes > 0 {
            self.cur_die = self.pool.next_host_die(self.cur_die);
        }
        self.close_if_full(block);
        Ok(ppn)
    }

    /// Map host writes of `n` consecutive LPNs from `lpn`, `slots` long each: the same as [`Ftl::write`]
    /// of each in turn. The LPNs that only add to the open program unit (they neither complete it nor
    /// reach the end of its block: `write` places and counts them, nothing else) are placed as one run,
    /// the block's counts and reverse map booked once: a sequential write's per-page bookkeeping.
    pub(crate) fn write_run(
        &mut self,
        lpn: Lpn,
        n: u32,
        slots: u32,
        ops: &mut Vec<FlashOp>,
    ) -> Result<(), FtlError> {
        let mut i = 0;
        while i < n {
            let (run, turn) = if slots == 1 { self.open_unit_room(n - i) } else { (0, false) };
            if run == 0 {
                self.write(lpn + i, slots, ops)?;
                i += 1;
                continue;
            }
            let die = self.cur_die;
            let u = self.host_units[die as usize].as_mut().expect("room in an open unit");
            let (block, offset, mode) = (u.block, u.offset + u.filled, u.mode);
            u.filled += run;
            self.place_run(lpn + i, run, block, offset);
            self.count_host_writes(run, run, mode);
            if turn {
                self.pace_stripes(die, self.stripe_slots(mode), mode, ops);
                self.cur_die = self.pool.next_host_die(die);
            }
            i += run;
        }
        Ok(())
    }

    /// GC's share for `slots` of host data just placed on `die` in `mode`: a victim's moves first, so GC
    /// keeps pace with the host stripe by stripe and host data waits for the work it causes (the write
    /// buffer holds writes back while GC is behind).
    fn pace_stripes(&mut self, die: u32, slots: u32, mode: CellMode, ops: &mut Vec<FlashOp>) {
        // the share of block space they use up (SLC mode: bits_per_cell times their data size); worked out
        // once per stripe, not once per LPN (a division on the fill's hottest path)
        let space = u64::from(slots) * u64::from(self.geo.slots_per_block() / self.geo.capacity(mode));
        self.pace_garbage_collection(die, space, ops);
    }

    /// Slots of consecutive host data a die takes in `mode` before the next die's turn.
    #[inline]
    fn stripe_slots(&self, mode: CellMode) -> u32 {
        self.stripe[usize::from(mode == CellMode::Slc)]
    }

    /// Count `lpns` host LPNs placed in `slots` slots of a unit in `mode`.
    fn count_host_writes(&mut self, lpns: u32, slots: u32, mode: CellMode) {
        self.counters.host_lpns_written += u64::from(lpns);
        self.counters.host_slots_written += u64::from(slots);
        if mode == CellMode::Slc {
            self.counters.slc_slots_written += u64::from(slots);
        }
    }

    /// How many of the next `n` one-slot LPNs [`Ftl::write`] would only place in the current die's open
    /// unit: each leaves the unit short of full and its block short of its end (0: no unit open). With
    /// page striping the last LPN of a stripe that ends inside the unit may be one of them (nothing is
    /// programmed then; the turn passes to the next die): returns (LPNs, whether they end the turn).
    fn open_unit_room(&self, n: u32) -> (u32, bool) {
        let Some(u) = &self.host_units[self.cur_die as usize] else { return (0, false) };
        let cap = self.geo.capacity(u.mode);
        let stripe = self.stripe_slots(u.mode);
        let stripe_end = (u.filled / stripe + 1) * stripe;
        let to_end = stripe_end - u.filled;
        let block_left = cap.saturating_sub(self.pool.block(u.block).written.max(u.offset + u.filled) + 1);
        if stripe_end < self.geo.slots_per_program(u.mode) && n >= to_end && to_end <= block_left {
            return (to_end, true);
        }
        (n.min(to_end - 1).min(block_left), false)
    }

    /// Program every partly filled host unit now, the rest of each unit padded (a flush or a FUA write:
    /// acknowledged data must reach flash). The next host data on that die starts a new unit.
    pub(crate) fn flush_open_units(&mut self, ops: &mut Vec<FlashOp>) {
        // The die being filled had its unit programmed: the next host data stripes on to the next die, as
        // after a unit that filled. (Staying put sent every write of a flush- or FUA-heavy workload to one
        // die: no die parallelism, and that die ran out of space while the others stood empty.)
        if self.host_units[self.cur_die as usize].as_ref().is_some_and(|u| u.filled > 0) {
            self.cur_die = self.pool.next_host_die(self.cur_die);
        }
        for die in 0..self.host_units.len() {
            let Some(u) = self.host_units[die].take() else { continue };
            if u.filled == 0 {
                continue;
            }
            self.skip_padding(u.block, self.geo.slots_per_program(u.mode).saturating_sub(u.filled));
            ops.push(FlashOp::Program {
                block: u.block,
                offset: u.offset,
                slots: u.filled,
                source: Source::Host,
                mode: u.mode,
            });
            self.close_if_full(u.block);
        }
        // A word line programmed a page at a time is finished with empty pages: a later program on it
        // would put the flushed pages at risk (an interrupted upper-page program corrupts the lower).
        let mode = CellMode::Native;
        let unit = self.geo.slots_per_program(mode);
        for die in 0..self.geo.dies {
            let Some(block) = self.pool.host_block(die, mode) else { continue };
            let next = self.pool.block(block).written;
            let pad = self.geo.to_wordline_end(mode, next);
            self.skip_padding(block, pad);
            for offset in (next..next + pad).step_by(unit as usize) {
                ops.push(FlashOp::Program { block, offset, slots: 0, source: Source::Host, mode });
            }
            self.close_if_full(block);
        }
    }

    /// `slots` of `block` left empty by a padded program. The padding sits mid-block when more units
    /// follow: the reverse map records it as a gap, so that GC finds the entries after it at their true
    /// offsets.
    fn skip_padding(&mut self, block: u32, slots: u32) {
        self.pool.skip(block, slots);
        self.map.skip(block, slots);
        self.counters.padded_slots += u64::from(slots);
    }

    /// The LPNs whose data sits at block offsets `offsets` of `block` (entries moved or overwritten since
    /// left out).
    pub(crate) fn lpns_at(&self, block: u32, offsets: std::ops::Range<u32>) -> Vec<Lpn> {
        let mut out = Vec::new();
        self.map.reverse_of(block).for_each(|off, lpn, _| {
            if offsets.contains(&off) && self.map.maps_to(lpn, self.geo.ppn(block, off)) {
                out.push(lpn);
            }
        });
        out
    }

    /// Close `block` early: the rest of it stays empty; the unit at `unit_offset` is programmed padded.
    fn pad_block(&mut self, block: u32, unit_offset: u32, source: Source, ops: &mut Vec<FlashOp>) {
        let (padded, slots, mode) = self.pool.pad(block, unit_offset);
        self.counters.padded_slots += u64::from(padded);
        ops.push(FlashOp::Program { block, offset: unit_offset, slots, source, mode });
        self.close_if_full(block);
    }

    /// Sanitize: every block holding data is erased (NVMe block erase, `overwrite_passes` 0) or overwritten
    /// `overwrite_passes` times and erased (NVMe overwrite), and the map emptied; wear (P/E counts, bad
    /// blocks) stays, each pass of an overwrite counting one more P/E cycle. The work is appended to `ops`.
    pub(crate) fn sanitize(&mut self, overwrite_passes: u32, ops: &mut Vec<FlashOp>) {
        self.map.clear();
        if let Some(p) = &mut self.payload {
            p.fill(0);
        }
        self.host_units.fill(None);
        self.gc.clear();
        self.slc.clear();
        let mut grown_bad = 0;
        self.pool.sanitize(|pool, block| {
            if overwrite_passes == 0 {
                ops.push(FlashOp::Erase { block });
            } else {
                ops.push(FlashOp::Overwrite { block, passes: overwrite_passes });
                pool.wear(block, overwrite_passes);
            }
            if pool.erase(block) {
                grown_bad += 1;
            }
        });
        self.counters.grown_bad_blocks += grown_bad;
    }

    /// Erase `block`: it rejoins its die's free pool, or retires as a grown bad block at its P/E limit.
    fn erase(&mut self, block: u32, ops: &mut Vec<FlashOp>) {
        ops.push(FlashOp::Erase { block });
        self.map.take_reverse(block);
        if self.pool.erase(block) {
            self.counters.grown_bad_blocks += 1;
        }
    }

    /// Deallocate `lpn` (TRIM / NVMe Deallocate).
    pub(crate) fn trim(&mut self, lpn: Lpn) {
        if let Some((old, k)) = self.map.unmap(lpn) {
            self.pool.invalidate(old, k);
            self.counters.trimmed_slots += 1;
        }
    }

    /// Point `lpn` at `k` slots from (block, offset), invalidating its old copy.
    #[inline]
    fn place(&mut self, lpn: Lpn, k: u32, block: u32, offset: u32) -> Ppn {
        let ppn = self.geo.ppn(block, offset);
        let before = self.pool.add_valid(block, k);
        if let Some((old, old_k)) = self.map.assign(lpn, k, ppn, block, before) {
            self.pool.invalidate(old, old_k);
        }
        ppn
    }

    /// Point the `n` LPNs from `lpn` at one slot each from (block, offset) on: [`Ftl::place`] of each in
    /// turn, the block's counts and reverse map booked once.
    fn place_run(&mut self, lpn: Lpn, n: u32, block: u32, offset: u32) {
        let first = self.geo.ppn(block, offset);
        let before = self.pool.add_valid(block, n);
        let pool = &mut self.pool;
        self.map.assign_run(lpn, n, first, block, before, |old, old_k| pool.invalidate(old, old_k));
    }

    fn close_if_full(&mut self, block: u32) {
        self.pool.close_if_full(block, self.counters.host_slots_written);
    }

    fn open_host_unit(&mut self, die: u32, ops: &mut Vec<FlashOp>) -> Result<HostUnit, FtlError> {
        let (used, mapped) = (self.pool.slc_valid(), self.map.mapped());
        // Under GC pressure host data bypasses the cache in direct mode, and in every mode once the cache is
        // full: writing it twice (SLC, then folded) would only deepen the deficit.
        let pressure = self.gc.under_pressure(self.pool.free_on(die));
        let policy = self.slc.post_cache(mapped);
        let mode = match self.slc.host_mode(used, mapped) {
            CellMode::Slc
                if pressure && (self.slc.is_full(used, mapped) || policy == PostCacheNow::Direct) =>
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
        let budget = self.slc.budget_slots(mapped);
        let quota = if mode == CellMode::Slc && used + unit > budget {
            match policy {
                PostCacheNow::FoldInterleaved => used + unit - budget,
                _ => u64::MAX,
            }
        } else if self.slc.is_folding(die) && (pressure || policy == PostCacheNow::FoldWholeBlocks) {
            // A fold left under way (by idle time, or when the fill changed the policy) is finished when
            // its block is needed, not stranded. Otherwise it waits for the next idle time: host writes
            // arriving while the drive folds in the background wait for one NAND operation, not a block.
            u64::MAX
        } else {
            0
        };
        // A whole block is the cache's to give back, not this die's: the cache-wide victim is folded
        // wherever it lies. (Folding on the die the host writes next tied the level to which die that was:
        // bursts of folds on one die or spread over all, as the budget's period fell.)
        let fold_die = if quota == u64::MAX && !self.slc.is_folding(die) {
            let victim = self.pool.slc_victim(0..self.geo.dies);
            victim.map_or(die, |b| self.geo.die_of_block(b))
        } else {
            die
        };
        if quota > 0 && self.pool.free_on(fold_die) > 0 {
            self.fold_slc(fold_die, quota, ops);
        }
        let block = match self.pool.host_block(die, mode) {
            Some(b) => b,
            None => {
                self.collect_garbage(die, ops)?;
                self.pool.open_host_block(die, mode)
            }
        };
        Ok(HostUnit { block, offset: self.pool.block(block).written, filled: 0, mode })
    }

    /// Check the map's invariants; used by tests. Returns a description of the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut valid = vec![0u32; self.geo.blocks() as usize];
        let (mut mapped, mut slc) = (0, 0);
        let mut err = None;
        self.map.for_each_mapped(|lpn, ppn| {
            let block = self.geo.block_of(ppn);
            let info = self.pool.block(block);
            let off = ppn % self.geo.slots_per_block();
            if off >= info.written || off >= self.geo.capacity(info.mode) {
                err.get_or_insert(format!("LPN {lpn} maps to unwritten slot {off} of block {block}"));
            }
            let k = self.size_of(lpn);
            valid[block as usize] += k;
            mapped += 1;
            if info.mode == CellMode::Slc {
                slc += u64::from(k);
            }
        });
        if let Some(e) = err {
            return Err(e);
        }
        for (b, want) in valid.iter().enumerate() {
            let info = self.pool.block(b as u32);
            if info.valid != *want {
                return Err(format!(
                    "block {b} counts {} valid slots but {want} LPNs map into it",
                    info.valid
                ));
            }
        }
        if (mapped, slc) != (self.map.mapped(), self.pool.slc_valid()) {
            return Err(format!(
                "counts {} mapped / {} in SLC, map has {mapped} / {slc}",
                self.map.mapped(),
                self.pool.slc_valid()
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
