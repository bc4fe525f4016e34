//! Moving valid data: foreground GC (paced near the threshold, finished at it), idle-time GC and
//! folding, static wear levelling. These steps read the map and the block pool and change both, so the
//! FTL coordinator does them; the parts say which block and how much.

use super::gc::GcJob;
use super::map::MAP_PREFETCH_AHEAD;
use super::{FlashOp, Ftl, FtlError, Lpn, Source};
use crate::nand::CellMode;

impl Ftl {
    /// A GC victim on `die` that frees space, by the configured victim policy.
    fn gc_victim(&self, die: u32) -> Option<u32> {
        let now = self.counters.host_slots_written;
        self.gc.victim(self.pool.blocks(), self.pool.die_blocks(die), &self.geo, now)
    }

    /// Foreground GC on `die` until its free pool is above the threshold. A relocation needs one free
    /// block at most (for the GC frontier), so a die with none left is out of space; so is a die where as
    /// many victims as it has blocks have moved without lifting the pool (each moved as much as it freed).
    pub(super) fn collect_garbage(&mut self, die: u32, ops: &mut Vec<FlashOp>) -> Result<(), FtlError> {
        let mut collected = false;
        let mut rounds = 0;
        while self.gc.must_collect(self.pool.free_on(die)) {
            if self.pool.free_on(die) == 0 || rounds > self.geo.blocks_per_die {
                return Err(FtlError::OutOfSpace { die });
            }
            rounds += 1;
            if self.slc.is_folding(die) {
                // an SLC block being folded is the cheapest space to finish freeing
                self.fold_slc(die, u64::MAX, ops);
            } else if let Some(job) = self.gc.take_job(die) {
                let left = self.step_job(die, job, u64::MAX, ops);
                self.gc.put_job(die, left);
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
        let free = self.pool.free_on(die);
        if !self.gc.under_pressure(free) || free < 2 {
            return;
        }
        let job = match self.gc.take_job(die) {
            Some(job) => job,
            None => {
                let Some(victim) = self.gc_victim(die) else { return };
                self.start_job(victim)
            }
        };
        let quota = (unit as f64 * job.pace()).ceil() as u64;
        let left = self.step_job(die, job, quota, ops);
        let finished = left.is_none();
        self.gc.put_job(die, left);
        if finished {
            self.level_wear(die, ops);
        }
    }

    /// One piece of idle-time work: about one native program unit of an SLC fold or of a GC victim on a
    /// die below the background GC level (a job under way carries on first), or a static wear-levelling
    /// move. Small pieces, as firmware schedules them, so that host IO arriving during idle time waits for
    /// at most one NAND operation, not a whole block's relocation. Dies for which `busy(die)` is true are left
    /// alone (they are busy past the idle period). Returns false when no other die has anything to do.
    pub(crate) fn background_step(&mut self, ops: &mut Vec<FlashOp>, busy: impl Fn(u32) -> bool) -> bool {
        let dies = self.geo.dies;
        let first = self.gc.first_idle_die();
        let unit = u64::from(self.geo.slots_per_program(CellMode::Native));
        for i in 0..dies {
            let die = (first + i) % dies;
            if busy(die) {
                continue;
            }
            let free = self.pool.free_on(die);
            if free < 2 {
                continue;
            }
            let erased = self.counters.gc_blocks_erased;
            let worked = if self.slc.idle_fold() && self.slc.is_folding(die) {
                self.fold_slc(die, unit, ops);
                true
            } else if let Some(job) = self.gc.take_job(die) {
                let left = self.step_job(die, job, unit, ops);
                self.gc.put_job(die, left);
                true
            } else if self.level_wear(die, ops) {
                true
            } else {
                let filling = self.host_units[die as usize].as_ref().map(|u| u.block);
                if self.slc.idle_fold()
                    && self.pool.close_idle_slc_block(die, filling)
                    && self.pool.slc_victim(die..die + 1).is_some()
                {
                    self.fold_slc(die, unit, ops);
                    true
                } else if let Some(victim) =
                    self.gc.wants_background(free).then(|| self.gc_victim(die)).flatten()
                {
                    let job = self.start_job(victim);
                    let left = self.step_job(die, job, unit, ops);
                    self.gc.put_job(die, left);
                    true
                } else {
                    false
                }
            };
            if worked {
                self.gc.idle_work_done(die, dies);
                self.counters.background_blocks_erased += self.counters.gc_blocks_erased - erased;
                return true;
            }
        }
        false
    }

    /// Static wear levelling on `die`, if its erase counts spread too far. Returns true if it moved a block.
    fn level_wear(&mut self, die: u32, ops: &mut Vec<FlashOp>) -> bool {
        match self.pool.wear_leveling_victim(die) {
            Some(block) => {
                self.relocate(block, ops);
                self.counters.wear_leveling_blocks += 1;
                true
            }
            None => false,
        }
    }

    /// Post-cache folding on `die`: move about `quota` slots (whole SLC pages) of the SLC block being
    /// folded there into native blocks, taking the die's next SLC block to fold (`BlockPool::slc_victim`)
    /// when none is under way (`u64::MAX`: finish the block).
    pub(super) fn fold_slc(&mut self, die: u32, quota: u64, ops: &mut Vec<FlashOp>) {
        let job = match self.slc.take_fold(die) {
            Some(job) => job,
            None => {
                let Some(victim) = self.pool.slc_victim(die..die + 1) else { return };
                self.start_job(victim)
            }
        };
        let left = self.step_job(die, job, quota, ops);
        self.slc.put_fold(die, left);
    }

    /// Move all the valid slots of `victim` into the die's GC block (native mode), then erase it. (An
    /// incremental job under way on the die carries on afterwards.)
    fn relocate(&mut self, victim: u32, ops: &mut Vec<FlashOp>) {
        let die = self.geo.die_of_block(victim);
        let job = self.start_job(victim);
        let left = self.step_job(die, job, u64::MAX, ops);
        debug_assert!(left.is_none(), "an unlimited step finishes its job");
    }

    /// Take `victim` out of service and list the entries it still holds.
    fn start_job(&mut self, victim: u32) -> GcJob {
        self.pool.start_collecting(victim);
        let reverse = self.map.take_reverse(victim);
        let valid = self.pool.block(victim).valid;
        let mut written = std::mem::take(&mut self.relocation_scratch.written);
        written.clear();
        reverse.for_each(|off, lpn, k| written.push((off, lpn, k)));
        // The victim's LPNs are scattered over the map: each check would wait on the host's memory, so
        // entries a few places ahead are fetched while this one is checked (simulator speed only).
        let mut entries = Vec::with_capacity(valid as usize);
        for (i, &(off, lpn, k)) in written.iter().enumerate() {
            if let Some(&(_, ahead, _)) = written.get(i + MAP_PREFETCH_AHEAD) {
                self.map.prefetch(ahead);
            }
            if self.map.maps_to(lpn, self.geo.ppn(victim, off)) {
                entries.push((off, lpn, k));
            }
        }
        self.relocation_scratch.written = written;
        GcJob::new(victim, entries, valid, &self.geo)
    }

    /// Move up to `quota` slots of `job` on `die` (one multi-plane read per page index that still holds
    /// valid data); when its last entry has moved, erase the victim and return it to the pool. Returns
    /// the job if it is not finished.
    fn step_job(&mut self, die: u32, mut job: GcJob, quota: u64, ops: &mut Vec<FlashOp>) -> Option<GcJob> {
        let victim = job.victim();
        let mode = self.pool.block(victim).mode;
        let on_chip = mode == CellMode::Slc && self.slc.folds_on_chip();
        let source = if on_chip { Source::OnChip } else { Source::Gc };
        // This step's share: whole page indexes, entries overwritten since the job started left out.
        let all_live = job.all_live(self.pool.block(victim).valid);
        let mut live = std::mem::take(&mut self.relocation_scratch.live);
        live.clear();
        let mut budget = 0u64;
        while budget < quota {
            let Some((page, slots)) = job.take_page(&self.geo, &self.map, all_live, &mut live) else { break };
            if slots > 0 {
                ops.push(FlashOp::Read {
                    block: victim,
                    page,
                    planes: self.geo.planes,
                    slots,
                    mode,
                    on_chip,
                });
            }
            budget += u64::from(slots).max(1);
        }
        // Reads first, then the programs they feed: the die senses the pages back to back.
        let mut moved = 0u64;
        for &(lpn, k) in &live {
            self.gc_write(die, lpn, k, source, ops);
            moved += u64::from(k);
        }
        self.relocation_scratch.live = live;
        match mode {
            CellMode::Slc => self.counters.folded_slots += moved,
            CellMode::Native => self.counters.gc_slots_moved += moved,
        }
        if !job.is_done() {
            return Some(job);
        }
        self.counters.gc_blocks_erased += 1;
        debug_assert_eq!(self.pool.block(victim).valid, 0);
        self.erase(victim, ops);
        None
    }

    /// Write `k` slots of `lpn`, moved by GC or folding (`source`), to the die's GC block.
    fn gc_write(&mut self, die: u32, lpn: Lpn, k: u32, source: Source, ops: &mut Vec<FlashOp>) {
        let spp = self.geo.slots_per_program(CellMode::Native);
        if let Some(b) = self.pool.open_gc_block(die) {
            let written = self.pool.block(b).written;
            if written + k > self.geo.capacity(CellMode::Native) {
                self.pad_block(b, written / spp * spp, source, ops);
            }
        }
        let block = self.pool.gc_block(die);
        let offset = self.pool.block(block).written;
        let old = self.lookup(lpn);
        let new = self.place(lpn, k, block, offset);
        if let (Some(p), Some(old)) = (&mut self.payload, old) {
            p[new as usize] = p[old as usize];
        }
        // Program every unit this entry completed.
        let mut end = (offset / spp + 1) * spp;
        while end <= offset + k {
            let mode = CellMode::Native;
            ops.push(FlashOp::Program { block, offset: end - spp, slots: spp, source, mode });
            end += spp;
        }
        self.close_if_full(block);
    }
}
