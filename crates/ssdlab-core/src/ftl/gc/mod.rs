//! Garbage collection: when to collect, which block (a [`VictimPolicy`], one file per policy), and the
//! bookkeeping of a victim whose valid data is being moved a little at a time ([`GcJob`]).
//!
//! Moving the data itself touches the map and the block pool, so the FTL does it (`ftl/relocate.rs`).
//!
//! Adding a victim policy: a new file here with a type implementing [`VictimPolicy`], a variant of
//! [`GcPolicy`](crate::config::GcPolicy) naming it, and its arm in [`policy_for`].

mod cost_benefit;
mod greedy;
mod windowed_greedy;

use super::map::MAP_PREFETCH_AHEAD;
use super::{BlockInfo, BlockState, Lpn, MapTable};
use crate::config::{FtlConfig, GcPolicy};
use crate::nand::Geometry;
use std::ops::Range;
use std::sync::Arc;

pub(crate) use cost_benefit::CostBenefit;
pub(crate) use greedy::Greedy;
pub(crate) use windowed_greedy::WindowedGreedy;

/// Foreground GC starts moving a victim's data, a little with each host program unit, once a die's
/// free blocks fall to this many above `gc_threshold_free_blocks`; at the threshold it must finish a
/// victim before the host gets a block. Pacing keeps host writes from stalling behind a whole block of
/// copies at once.
pub(super) const GC_PACING_MARGIN: usize = 2;

/// The blocks of one die a victim policy chooses from, and the clock it may weigh their age against.
pub(crate) struct Candidates<'a> {
    blocks: &'a [BlockInfo],
    range: Range<u32>,
    /// The FTL's write clock (host slots written so far); a block's `stamp` is this clock when it closed.
    pub(crate) now: u64,
    /// Slots in a native block: what relocating a block costs is measured against it.
    pub(crate) slots_per_block: u32,
}

impl<'a> Candidates<'a> {
    /// Candidates among `blocks[range]`.
    pub(crate) fn new(blocks: &'a [BlockInfo], range: Range<u32>, now: u64, slots_per_block: u32) -> Self {
        Candidates { blocks, range, now, slots_per_block }
    }

    /// The closed blocks, in block order (the only blocks a victim may be).
    pub(crate) fn closed(&self) -> impl Iterator<Item = u32> + '_ {
        self.range.clone().filter(|&b| self.blocks[b as usize].state == BlockState::Closed)
    }

    #[inline]
    pub(crate) fn block(&self, b: u32) -> &BlockInfo {
        &self.blocks[b as usize]
    }
}

/// A rule choosing the block garbage collection empties next.
///
/// A policy is stateless and deterministic: the same candidates give the same victim (break ties by the
/// lowest block number).
pub(crate) trait VictimPolicy: Send + Sync + std::fmt::Debug {
    /// The closed block to collect next, or None if there is no closed block.
    fn pick(&self, c: &Candidates<'_>) -> Option<u32>;
}

/// The policy `ftl.gc_policy` names.
pub(super) fn policy_for(cfg: &FtlConfig) -> Arc<dyn VictimPolicy> {
    match cfg.gc_policy {
        GcPolicy::Greedy => Arc::new(Greedy),
        GcPolicy::CostBenefit => Arc::new(CostBenefit),
        GcPolicy::WindowedGreedy => Arc::new(WindowedGreedy { window: cfg.gc_window_blocks as usize }),
    }
}

/// Garbage collection's state: its policy and levels, and the victim each die is moving little by little.
#[derive(Clone, Debug)]
pub(super) struct Gc {
    policy: Arc<dyn VictimPolicy>,
    threshold: usize,
    background_free: usize,
    /// Per die, the victim foreground GC is moving.
    jobs: Vec<Option<GcJob>>,
    /// The die idle-time work looks at first.
    next_idle_die: u32,
}

impl Gc {
    pub(super) fn new(cfg: &FtlConfig, dies: u32) -> Self {
        Gc {
            policy: policy_for(cfg),
            threshold: cfg.gc_threshold_free_blocks as usize,
            background_free: cfg.background_gc_free_blocks as usize,
            jobs: vec![None; dies as usize],
            next_idle_die: 0,
        }
    }

    /// A victim among `blocks[range]` (one die's) that frees space: a block's worth of native slots minus
    /// what must move. `now` is the FTL's write clock.
    pub(super) fn victim(
        &self,
        blocks: &[BlockInfo],
        range: Range<u32>,
        geo: &Geometry,
        now: u64,
    ) -> Option<u32> {
        let spb = geo.slots_per_block();
        self.policy
            .pick(&Candidates::new(blocks, range, now, spb))
            .filter(|&v| blocks[v as usize].valid < spb)
    }

    /// Whether a die with `free` free blocks must collect before the host gets a block.
    #[inline]
    pub(super) fn must_collect(&self, free: usize) -> bool {
        free <= self.threshold
    }

    /// Whether a die with `free` free blocks is near enough the threshold for paced GC (and for host data
    /// to bypass the SLC cache).
    #[inline]
    pub(super) fn under_pressure(&self, free: usize) -> bool {
        free <= self.threshold + GC_PACING_MARGIN
    }

    /// Whether idle-time GC should free a block on a die with `free` free blocks.
    pub(super) fn wants_background(&self, free: usize) -> bool {
        free < self.background_free
    }

    pub(super) fn take_job(&mut self, die: u32) -> Option<GcJob> {
        self.jobs[die as usize].take()
    }

    pub(super) fn put_job(&mut self, die: u32, job: Option<GcJob>) {
        self.jobs[die as usize] = job;
    }

    /// The die idle-time work looks at first: the one after where it last worked.
    pub(super) fn first_idle_die(&self) -> u32 {
        self.next_idle_die
    }

    /// Idle-time work was done on `die`: the next round starts at the die after it.
    pub(super) fn idle_work_done(&mut self, die: u32, dies: u32) {
        self.next_idle_die = (die + 1) % dies;
    }

    /// No job on any die (sanitize).
    pub(super) fn clear(&mut self) {
        self.jobs.fill(None);
    }
}

/// A victim whose valid entries (slot offset, LPN, slots) are being moved.
#[derive(Clone, Debug)]
pub(super) struct GcJob {
    victim: u32,
    entries: Vec<(u32, Lpn, u32)>,
    next: usize,
    /// Slots of `entries[next..]`. While the victim's valid count equals it, the host has overwritten
    /// none of them since the job started, so they need no look-up in the map.
    remaining: u64,
    /// Slots to move per host slot written, so the victim is free before the pool runs dry.
    pace: f64,
}

impl GcJob {
    /// A job for `victim`, whose entries still valid are `entries` and which holds `valid` slots.
    pub(super) fn new(victim: u32, entries: Vec<(u32, Lpn, u32)>, valid: u32, geo: &Geometry) -> Self {
        let remaining = entries.iter().map(|&(_, _, k)| u64::from(k)).sum();
        debug_assert_eq!(remaining, u64::from(valid), "the entries still mapped are the block's valid slots");
        let valid = f64::from(valid);
        let gain = (f64::from(geo.slots_per_block()) - valid).max(1.0);
        GcJob { victim, entries, next: 0, remaining, pace: valid / gain }
    }

    pub(super) fn victim(&self) -> u32 {
        self.victim
    }

    pub(super) fn pace(&self) -> f64 {
        self.pace
    }

    pub(super) fn is_done(&self) -> bool {
        self.next >= self.entries.len()
    }

    /// Whether every entry left is still valid: the victim (whose valid slots are `victim_valid`) has
    /// lost none to the host since the job started. Moving entries lowers both counts alike.
    pub(super) fn all_live(&self, victim_valid: u32) -> bool {
        u64::from(victim_valid) == self.remaining
    }

    /// The next page index of the victim with entries left: appends those still mapped there to `live`
    /// as (LPN, slots) and returns (page, slots still valid on it); None when every entry has been taken.
    /// With `all_live` (see [`GcJob::all_live`]) the map is not consulted.
    pub(super) fn take_page(
        &mut self,
        geo: &Geometry,
        map: &MapTable,
        all_live: bool,
        live: &mut Vec<(Lpn, u32)>,
    ) -> Option<(u32, u32)> {
        let page = geo.page_of(self.entries.get(self.next)?.0);
        let mut slots = 0;
        while self.next < self.entries.len() && geo.page_of(self.entries[self.next].0) == page {
            let (off, lpn, k) = self.entries[self.next];
            // Moving the entry reads its map line anyway: fetch a few ahead either way.
            if let Some(&(_, ahead, _)) = self.entries.get(self.next + MAP_PREFETCH_AHEAD) {
                map.prefetch(ahead);
            }
            let valid = all_live || map.maps_to(lpn, geo.ppn(self.victim, off));
            debug_assert!(valid == map.maps_to(lpn, geo.ppn(self.victim, off)));
            if valid {
                live.push((lpn, k));
                slots += k;
            }
            self.remaining -= u64::from(k);
            self.next += 1;
        }
        Some((page, slots))
    }
}

#[cfg(test)]
pub(crate) mod test_blocks {
    //! Blocks for the policies' hand-worked tests.
    use super::*;
    use crate::nand::CellMode;

    /// A closed native block with `valid` valid slots, closed at write clock `stamp`.
    pub(crate) fn closed(valid: u32, stamp: u64) -> BlockInfo {
        BlockInfo {
            valid,
            written: 100,
            erase_count: 0,
            state: BlockState::Closed,
            mode: CellMode::Native,
            stamp,
        }
    }

    pub(crate) fn free() -> BlockInfo {
        BlockInfo { state: BlockState::Free, ..closed(0, 0) }
    }
}
