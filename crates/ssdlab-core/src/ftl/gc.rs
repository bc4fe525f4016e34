//! Garbage collection: victim selection (one function per policy), paced foreground GC, idle-time work,
//! and the relocation of a victim's valid data.

use super::{BlockInfo, BlockState, FlashOp, Ftl, FtlError, Lpn, Source};
use crate::config::GcPolicy;
use crate::nand::{CellMode, Geometry};
use std::ops::Range;

/// Foreground GC starts moving a victim's data, a little with each host program unit, once a die's
/// free blocks fall to this many above `gc_threshold_free_blocks`; at the threshold it must finish a
/// victim before the host gets a block. Pacing keeps host writes from stalling behind a whole block of
/// copies at once.
pub(super) const GC_PACING_MARGIN: usize = 2;

/// A victim whose valid entries (slot offset, LPN, slots) are being moved.
#[derive(Clone, Debug)]
pub(super) struct GcJob {
    victim: u32,
    entries: Vec<(u32, u32, u32)>,
    next: usize,
    /// Slots to move per host slot written, so the victim is free before the pool runs dry.
    pace: f64,
}

impl Ftl {
    /// A GC victim on `die` that frees space (a block's worth of native slots minus what must move).
    pub(super) fn gc_victim(&self, die: u32) -> Option<u32> {
        let now = self.counters.host_slots_written;
        pick_victim(self.policy, &self.blocks, self.die_blocks(die), &self.geo, now)
            .filter(|&v| self.blocks[v as usize].valid < self.geo.slots_per_block())
    }

    /// Foreground GC on `die` until its free pool is above the threshold. A relocation needs one free
    /// block at most (for the GC frontier), so a die with none left is out of space; so is a die where as
    /// many victims as it has blocks have moved without lifting the pool (each moved as much as it freed).
    pub(super) fn collect_garbage(&mut self, die: u32, ops: &mut Vec<FlashOp>) -> Result<(), FtlError> {
        let mut collected = false;
        let mut rounds = 0;
        while self.free[die as usize].len() <= self.gc_threshold {
            if self.free[die as usize].is_empty() || rounds > self.geo.blocks_per_die {
                return Err(FtlError::OutOfSpace { die });
            }
            rounds += 1;
            if self.fold_jobs[die as usize].is_some() {
                // an SLC block being folded is the cheapest space to finish freeing
                self.fold_slc(die, u64::MAX, ops);
            } else if self.gc_jobs[die as usize].is_some() {
                self.step_gc_job(die, u64::MAX, ops);
            } else {
                let victim = self.gc_victim(die);
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
    pub(super) fn pace_garbage_collection(&mut self, die: u32, unit: u64, ops: &mut Vec<FlashOp>) {
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

    /// Move the valid slots of `victim` into the die's GC block (native mode), then erase it.
    pub(super) fn relocate(&mut self, victim: u32, ops: &mut Vec<FlashOp>) {
        let die = self.geo.die_of_block(victim);
        let mut job = Some(self.start_gc_job(victim));
        std::mem::swap(&mut job, &mut self.gc_jobs[die as usize]);
        self.step_gc_job(die, u64::MAX, ops);
        // an incremental job that was under way on the die carries on
        self.gc_jobs[die as usize] = job;
    }

    /// Take `victim` out of service and list the entries it still holds.
    pub(super) fn start_gc_job(&mut self, victim: u32) -> GcJob {
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
    pub(super) fn step_gc_job(&mut self, die: u32, quota: u64, ops: &mut Vec<FlashOp>) {
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
        debug_assert_eq!(self.blocks[victim as usize].valid, 0);
        self.erase(victim, ops);
    }

    pub(super) fn gc_write(&mut self, die: u32, lpn: Lpn, k: u32, ops: &mut Vec<FlashOp>) {
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
}

/// The closed block in `range` to collect next, by `policy`; `now` is the FTL's write clock
/// (host pages written so far), against which block ages are measured.
pub fn pick_victim(
    policy: GcPolicy,
    blocks: &[BlockInfo],
    range: Range<u32>,
    geo: &Geometry,
    now: u64,
) -> Option<u32> {
    let closed = range.filter(|&b| blocks[b as usize].state == BlockState::Closed);
    match policy {
        GcPolicy::Greedy => greedy(blocks, closed),
        GcPolicy::CostBenefit => cost_benefit(blocks, closed, geo, now),
    }
}

/// Fewest valid slots first (ties: lowest block number, for determinism).
fn greedy(blocks: &[BlockInfo], closed: impl Iterator<Item = u32>) -> Option<u32> {
    closed.min_by_key(|&b| (blocks[b as usize].valid, b))
}

/// Highest (1 - u) * age / (1 + u).
fn cost_benefit(
    blocks: &[BlockInfo],
    closed: impl Iterator<Item = u32>,
    geo: &Geometry,
    now: u64,
) -> Option<u32> {
    let score = |b: u32| {
        let i = &blocks[b as usize];
        // u as a share of a native block: what relocating it costs against the block it frees
        // (a full SLC-mode block is only a third valid in these terms).
        let u = f64::from(i.valid) / f64::from(geo.slots_per_block());
        let age = (now - i.stamp) as f64 + 1.0;
        (1.0 - u) * age / (1.0 + u)
    };
    // max by score; ties to the lowest block number
    closed
        .fold(None, |best: Option<(u32, f64)>, b| {
            let s = score(b);
            match best {
                Some((_, bs)) if bs >= s => best,
                _ => Some((b, s)),
            }
        })
        .map(|(b, _)| b)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nand::CellMode;

    pub(super) fn block(valid: u32, stamp: u64) -> BlockInfo {
        BlockInfo {
            valid,
            written: 100,
            erase_count: 0,
            state: BlockState::Closed,
            mode: CellMode::Native,
            stamp,
        }
    }

    #[test]
    pub(super) fn greedy_takes_the_emptiest_and_cost_benefit_weighs_age() {
        let geo = Geometry {
            channels: 1,
            dies: 1,
            planes: 1,
            blocks_per_die: 3,
            pages_per_block: 100,
            slot_bytes: 4096,
            slots_per_page: 1,
            bits_per_cell: 1,
            native_pages_per_program: 1,
            page_bytes: 4096,
        };
        // block 0: 40% valid, written long ago; block 1: 30% valid, just written
        let blocks = vec![block(40, 0), block(30, 990), BlockInfo { state: BlockState::Free, ..block(0, 0) }];
        assert_eq!(pick_victim(GcPolicy::Greedy, &blocks, 0..3, &geo, 1000), Some(1));
        assert_eq!(pick_victim(GcPolicy::CostBenefit, &blocks, 0..3, &geo, 1000), Some(0));
    }
}
