//! The dynamic SLC cache: its budget, where host data goes, and the SLC block each die is folding.
//!
//! The cache holds no blocks of its own: SLC-mode blocks live in the block pool. It decides from two
//! numbers the FTL passes in, the host data in SLC-mode blocks (`used`) and the LPNs holding data
//! (`mapped`).
//!
//! Its size is sized as firmware sizes it: a static part that never goes away, plus a dynamic part that
//! follows free space (`dynamic_fraction` of the unwritten capacity, at one bit per cell) up to an upper
//! bound (`dynamic_max_pct` of the user capacity, and at most `dynamic_max_gb`). One rule for every
//! capacity of a family: the bound scales with capacity up to a ceiling, the dynamic part shrinks as the
//! drive fills.

use super::gc::GcJob;
use crate::config::{PostCache, SlcCacheConfig};
use crate::nand::{CellMode, Geometry};

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

#[derive(Clone, Debug)]
pub(super) struct SlcCache {
    cfg: SlcCacheConfig,
    static_slots: u64,
    /// Upper bound of the dynamic part, slots of host data.
    max_dynamic_slots: u64,
    user_lpns: u64,
    /// LPNs up to the fill where the dynamic part is gone (`dynamic_until_fill` of the user LPNs).
    dynamic_until_lpns: u64,
    /// Slots in one uncompressed 4 KiB page (1, or 16 with 256-byte slots).
    slots_per_lpn: u32,
    bits_per_cell: u32,
    /// Slots of one SLC program unit.
    slc_unit: u32,
    /// Per die, the SLC block post-cache folding is moving out.
    fold_jobs: Vec<Option<GcJob>>,
}

impl SlcCache {
    /// Folds move SLC data by on-chip copy (`fold_on_chip`).
    pub(super) fn folds_on_chip(&self) -> bool {
        self.cfg.fold_on_chip
    }

    pub(super) fn new(cfg: &SlcCacheConfig, geo: &Geometry, user_lpns: u32) -> Self {
        let slots_per_lpn = 4096 / geo.slot_bytes;
        let user_slots = u64::from(user_lpns) * u64::from(slots_per_lpn);
        SlcCache {
            cfg: cfg.clone(),
            static_slots: (cfg.static_gb * 1e9 / f64::from(geo.slot_bytes)) as u64,
            max_dynamic_slots: {
                let pct = cfg.dynamic_max_pct / 100.0 * user_slots as f64;
                let gb = cfg.dynamic_max_gb * 1e9 / f64::from(geo.slot_bytes);
                (if cfg.dynamic_max_gb > 0.0 { pct.min(gb) } else { pct }) as u64
            },
            user_lpns: u64::from(user_lpns),
            dynamic_until_lpns: (cfg.dynamic_until_fill * f64::from(user_lpns)) as u64,
            slots_per_lpn,
            bits_per_cell: geo.bits_per_cell,
            slc_unit: geo.slots_per_program(CellMode::Slc),
            fold_jobs: vec![None; geo.dies as usize],
        }
    }

    /// How much host data the cache may hold now, in slots (0 without a cache): the static part plus
    /// `min(dynamic_fraction * unwritten / bits_per_cell, dynamic_max_pct of the user capacity,
    /// dynamic_max_gb)`, unwritten counted up to `dynamic_until_fill` of the user capacity.
    pub(super) fn budget_slots(&self, mapped: u64) -> u64 {
        if !self.cfg.enabled {
            return 0;
        }
        let unwritten_lpns = self.dynamic_until_lpns.saturating_sub(mapped);
        let unwritten = (unwritten_lpns * u64::from(self.slots_per_lpn)) as f64;
        let dynamic = (self.cfg.dynamic_fraction * unwritten / f64::from(self.bits_per_cell)) as u64;
        self.static_slots + dynamic.min(self.max_dynamic_slots)
    }

    /// Whether another SLC program unit would take the cache past its budget.
    pub(super) fn is_full(&self, used: u64, mapped: u64) -> bool {
        used + u64::from(self.slc_unit) > self.budget_slots(mapped)
    }

    /// How host writes past a full cache are handled now, by `post_cache` and how full the drive is
    /// (`fold_above_fill`, `fold_whole_blocks_above_fill`): a firmware policy keyed to the fill, not to time.
    pub(super) fn post_cache(&self, mapped: u64) -> PostCacheNow {
        let fill = mapped as f64 / self.user_lpns as f64;
        let past = |level: f64| level < 1.0 && fill >= level;
        if self.cfg.post_cache == PostCache::Fold || past(self.cfg.fold_whole_blocks_above_fill) {
            PostCacheNow::FoldWholeBlocks
        } else if past(self.cfg.fold_above_fill) {
            PostCacheNow::FoldInterleaved
        } else {
            PostCacheNow::Direct
        }
    }

    /// Where the next host program unit goes: SLC while the cache has room, else by the post-cache policy.
    pub(super) fn host_mode(&self, used: u64, mapped: u64) -> CellMode {
        if !self.cfg.enabled {
            return CellMode::Native;
        }
        if !self.is_full(used, mapped) || self.post_cache(mapped) != PostCacheNow::Direct {
            CellMode::Slc
        } else {
            CellMode::Native
        }
    }

    /// Whether SLC data is folded to native blocks in idle time.
    pub(super) fn idle_fold(&self) -> bool {
        self.cfg.idle_fold
    }

    pub(super) fn is_folding(&self, die: u32) -> bool {
        self.fold_jobs[die as usize].is_some()
    }

    pub(super) fn take_fold(&mut self, die: u32) -> Option<GcJob> {
        self.fold_jobs[die as usize].take()
    }

    pub(super) fn put_fold(&mut self, die: u32, job: Option<GcJob>) {
        self.fold_jobs[die as usize] = job;
    }

    /// No fold under way anywhere (sanitize).
    pub(super) fn clear(&mut self) {
        self.fold_jobs.fill(None);
    }
}
