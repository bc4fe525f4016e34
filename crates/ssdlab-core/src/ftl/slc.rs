//! The dynamic SLC cache: its budget, where host data goes, and which SLC blocks to fold.

use super::{mode_index, BlockState, FlashOp, Ftl};
use crate::config::PostCache;
use crate::nand::CellMode;

/// What host writes past a full cache do at the drive's present fill.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum PostCacheNow {
    /// Straight to native blocks.
    Direct,
    /// Through SLC, folding a program unit's worth of SLC data per host unit.
    FoldInterleaved,
    /// Through SLC, folding a whole SLC block at once when the cache is over its budget.
    FoldWholeBlocks,
}

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

    /// Whether another SLC program unit would take the cache past its budget.
    pub(super) fn slc_cache_full(&self) -> bool {
        self.slc_valid + u64::from(self.geo.slots_per_program(CellMode::Slc)) > self.slc_budget_slots()
    }

    /// How host writes past a full cache are handled now, by `post_cache` and how full the drive is
    /// (`fold_above_fill`, `fold_whole_blocks_above_fill`): a firmware policy keyed to the fill, not to time.
    pub(super) fn post_cache(&self) -> PostCacheNow {
        let fill = self.mapped as f64 / f64::from(self.user_lpns());
        let past = |level: f64| level < 1.0 && fill >= level;
        if self.slc.post_cache == PostCache::Fold || past(self.slc.fold_whole_blocks_above_fill) {
            PostCacheNow::FoldWholeBlocks
        } else if past(self.slc.fold_above_fill) {
            PostCacheNow::FoldInterleaved
        } else {
            PostCacheNow::Direct
        }
    }

    /// Post-cache folding on `die`: move about `quota` slots (whole SLC pages) of the SLC block being
    /// folded there into native blocks, taking the die's emptiest closed SLC block when none is under way
    /// (`u64::MAX`: finish the block).
    pub(super) fn fold_slc(&mut self, die: u32, quota: u64, ops: &mut Vec<FlashOp>) {
        let d = die as usize;
        if self.fold_jobs[d].is_none() {
            let Some(victim) = self.slc_victim(die) else { return };
            self.fold_jobs[d] = Some(self.start_gc_job(victim));
        }
        // step_gc_job works on the die's GC job slot: lend it the fold job
        std::mem::swap(&mut self.fold_jobs[d], &mut self.gc_jobs[d]);
        self.step_gc_job(die, quota, ops);
        std::mem::swap(&mut self.fold_jobs[d], &mut self.gc_jobs[d]);
    }

    /// Where the next host program unit goes: SLC while the cache has room, else by the post-cache policy.
    pub(super) fn host_mode(&self) -> CellMode {
        if !self.slc.enabled {
            return CellMode::Native;
        }
        if !self.slc_cache_full() || self.post_cache() != PostCacheNow::Direct {
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
