//! Flash translation layer: a page-level map over 4 KiB LPNs, block allocation, garbage collection, TRIM.
//!
//! The FTL is pure state: it decides where data goes and which flash operations that takes, and hands
//! those operations ([`FlashOp`]) to the controller, which schedules them on the NAND timelines.
//!
//! Host data is written one program unit at a time, program units striped round-robin over the dies
//! (channel first). Each die keeps its own free-block pool, open host block and open GC block; when a die's
//! free pool falls to `gc_threshold_free_blocks`, foreground GC on that die moves the valid pages of a
//! victim block into the die's GC block (so copies stay on the die) and erases the victim.

mod gc;
mod reverse_map;

use crate::config::{FtlConfig, GcPolicy};
use crate::nand::{Geometry, Ppn};
use reverse_map::ReverseMap;
use std::collections::VecDeque;

/// Logical page number: a 4 KiB host page.
pub type Lpn = u32;

/// A flash operation the FTL needs done, in the order it must happen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlashOp {
    /// Read `slots` 4 KiB slots from page index `page` of `block`, on `planes` planes at once.
    Read {
        block: u32,
        page: u32,
        planes: u32,
        slots: u32,
    },
    /// Program the unit of `slots` slots starting at `offset` in `block`.
    Program {
        block: u32,
        offset: u32,
        slots: u32,
        source: Source,
    },
    /// Erase `block`.
    Erase { block: u32 },
}

/// Whose data a program carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Host,
    Gc,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockState {
    Free,
    OpenHost,
    OpenGc,
    Closed,
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
    pub host_slots_written: u64,
    pub gc_slots_moved: u64,
    pub gc_blocks_erased: u64,
    pub trimmed_slots: u64,
}

#[derive(Clone, Debug)]
struct HostUnit {
    block: u32,
    offset: u32,
    filled: u32,
}

#[derive(Clone, Debug)]
pub struct Ftl {
    geo: Geometry,
    policy: GcPolicy,
    gc_threshold: usize,
    /// LPN -> PPN + 1 (0 = unmapped, so a fresh map costs no memory until touched).
    l2p: Vec<u32>,
    blocks: Vec<BlockInfo>,
    reverse: Vec<ReverseMap>,
    free: Vec<VecDeque<u32>>,
    host_open: Vec<Option<u32>>,
    gc_open: Vec<Option<u32>>,
    /// The program unit host writes are filling now.
    host_unit: Option<HostUnit>,
    next_die: u32,
    /// Optional data tag per physical slot, moved with the data by GC: lets tests (and later power-loss
    /// checks) prove that every LPN reads back what was last written to it.
    payload: Option<Vec<u64>>,
    pub counters: FtlCounters,
}

impl Ftl {
    pub fn new(cfg: &FtlConfig, geo: Geometry) -> Self {
        let user_lpns = (cfg.user_capacity_gb * 1e9 / 4096.0) as usize;
        let blocks = geo.blocks();
        let free = (0..geo.dies)
            .map(|d| (d * geo.blocks_per_die..(d + 1) * geo.blocks_per_die).collect())
            .collect();
        Ftl {
            policy: cfg.gc_policy,
            gc_threshold: cfg.gc_threshold_free_blocks as usize,
            l2p: vec![0; user_lpns],
            blocks: vec![
                BlockInfo {
                    valid: 0,
                    written: 0,
                    erase_count: 0,
                    state: BlockState::Free
                };
                blocks as usize
            ],
            reverse: vec![ReverseMap::default(); blocks as usize],
            free,
            host_open: vec![None; geo.dies as usize],
            gc_open: vec![None; geo.dies as usize],
            host_unit: None,
            next_die: 0,
            payload: None,
            counters: FtlCounters::default(),
            geo,
        }
    }

    /// Track a data tag per physical slot from now on (memory: 8 bytes per slot).
    pub fn track_payload(&mut self) {
        self.payload = Some(vec![0; self.geo.total_slots() as usize]);
    }

    /// Like [`Ftl::write`], recording `tag` as the data written (needs [`Ftl::track_payload`]).
    pub fn write_tagged(
        &mut self,
        lpn: Lpn,
        tag: u64,
        ops: &mut Vec<FlashOp>,
    ) -> Result<Ppn, FtlError> {
        let ppn = self.write(lpn, ops)?;
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
        match &self.host_unit {
            Some(u) => {
                let start = self.geo.ppn(u.block, u.offset);
                ppn >= start && ppn < start + u.filled
            }
            None => false,
        }
    }

    /// Slots the open host program unit holds now.
    pub fn open_unit_slots(&self) -> u32 {
        self.host_unit.as_ref().map_or(0, |u| u.filled)
    }

    /// Map a host write of `lpn` to the next slot of the open program unit. Flash work this causes
    /// (GC to free a block, the program of a completed unit) is appended to `ops`.
    pub fn write(&mut self, lpn: Lpn, ops: &mut Vec<FlashOp>) -> Result<Ppn, FtlError> {
        if self.host_unit.is_none() {
            self.host_unit = Some(self.open_host_unit(ops)?);
        }
        let spp = self.geo.slots_per_program();
        let u = self.host_unit.as_mut().expect("opened above");
        let (block, offset) = (u.block, u.offset + u.filled);
        u.filled += 1;
        let full = u.filled == spp;
        let unit_offset = u.offset;
        let ppn = self.place(lpn, block, offset);
        self.counters.host_slots_written += 1;
        if full {
            self.host_unit = None;
            ops.push(FlashOp::Program {
                block,
                offset: unit_offset,
                slots: spp,
                source: Source::Host,
            });
            self.close_if_full(block, Source::Host);
        }
        Ok(ppn)
    }

    /// Deallocate `lpn` (TRIM / NVMe Deallocate).
    pub fn trim(&mut self, lpn: Lpn) {
        if let Some(old) = self.lookup(lpn) {
            self.blocks[self.geo.block_of(old) as usize].valid -= 1;
            self.l2p[lpn as usize] = 0;
            self.counters.trimmed_slots += 1;
        }
    }

    /// Point `lpn` at (block, offset), invalidating its old copy.
    #[inline]
    fn place(&mut self, lpn: Lpn, block: u32, offset: u32) -> Ppn {
        if let Some(old) = self.lookup(lpn) {
            self.blocks[self.geo.block_of(old) as usize].valid -= 1;
        }
        let ppn = self.geo.ppn(block, offset);
        self.l2p[lpn as usize] = ppn + 1;
        let b = &mut self.blocks[block as usize];
        self.reverse[block as usize].push(lpn, b.written);
        b.written += 1;
        b.valid += 1;
        ppn
    }

    fn close_if_full(&mut self, block: u32, source: Source) {
        let b = &mut self.blocks[block as usize];
        if b.written == self.geo.slots_per_block() {
            b.state = BlockState::Closed;
            let die = self.geo.die_of_block(block) as usize;
            match source {
                Source::Host => self.host_open[die] = None,
                Source::Gc => self.gc_open[die] = None,
            }
        }
    }

    fn open_host_unit(&mut self, ops: &mut Vec<FlashOp>) -> Result<HostUnit, FtlError> {
        let die = self.next_die;
        self.next_die = (self.next_die + 1) % self.geo.dies;
        let block = match self.host_open[die as usize] {
            Some(b) => b,
            None => {
                self.collect_garbage(die, ops)?;
                let b = self.take_free(die, BlockState::OpenHost);
                self.host_open[die as usize] = Some(b);
                b
            }
        };
        Ok(HostUnit {
            block,
            offset: self.blocks[block as usize].written,
            filled: 0,
        })
    }

    fn take_free(&mut self, die: u32, state: BlockState) -> u32 {
        let b = self.free[die as usize]
            .pop_front()
            .expect("GC keeps at least one free block per die");
        self.blocks[b as usize].state = state;
        b
    }

    /// Foreground GC on `die` until its free pool is above the threshold.
    fn collect_garbage(&mut self, die: u32, ops: &mut Vec<FlashOp>) -> Result<(), FtlError> {
        while self.free[die as usize].len() <= self.gc_threshold {
            let range = die * self.geo.blocks_per_die..(die + 1) * self.geo.blocks_per_die;
            let victim = gc::pick_victim(self.policy, &self.blocks, range)
                .filter(|&v| self.blocks[v as usize].valid < self.geo.slots_per_block())
                .ok_or(FtlError::OutOfSpace { die })?;
            self.relocate(victim, ops);
        }
        Ok(())
    }

    /// Move the valid slots of `victim` into the die's GC block, then erase it.
    fn relocate(&mut self, victim: u32, ops: &mut Vec<FlashOp>) {
        let die = self.geo.die_of_block(victim);
        let reverse = std::mem::take(&mut self.reverse[victim as usize]);
        let slots_per_plane_page = self.geo.planes * self.geo.slots_per_page;
        let mut valid = Vec::with_capacity(self.blocks[victim as usize].valid as usize);
        reverse.for_each(|off, lpn| {
            if self.l2p[lpn as usize] == self.geo.ppn(victim, off) + 1 {
                valid.push((off, lpn));
            }
        });
        // One multi-plane read per page index that still holds valid data.
        let mut i = 0;
        while i < valid.len() {
            let page = valid[i].0 / slots_per_plane_page;
            let mut j = i;
            while j < valid.len() && valid[j].0 / slots_per_plane_page == page {
                j += 1;
            }
            ops.push(FlashOp::Read {
                block: victim,
                page,
                planes: self.geo.planes,
                slots: (j - i) as u32,
            });
            i = j;
        }
        for &(_, lpn) in &valid {
            self.gc_write(die, lpn, ops);
        }
        self.counters.gc_slots_moved += valid.len() as u64;
        self.counters.gc_blocks_erased += 1;
        let b = &mut self.blocks[victim as usize];
        debug_assert_eq!(b.valid, 0);
        b.written = 0;
        b.erase_count += 1;
        b.state = BlockState::Free;
        self.free[die as usize].push_back(victim);
        ops.push(FlashOp::Erase { block: victim });
    }

    fn gc_write(&mut self, die: u32, lpn: Lpn, ops: &mut Vec<FlashOp>) {
        let block = match self.gc_open[die as usize] {
            Some(b) => b,
            None => {
                let b = self.take_free(die, BlockState::OpenGc);
                self.gc_open[die as usize] = Some(b);
                b
            }
        };
        let offset = self.blocks[block as usize].written;
        let old = self.lookup(lpn);
        let new = self.place(lpn, block, offset);
        if let (Some(p), Some(old)) = (&mut self.payload, old) {
            p[new as usize] = p[old as usize];
        }
        let spp = self.geo.slots_per_program();
        if (offset + 1) % spp == 0 {
            ops.push(FlashOp::Program {
                block,
                offset: offset + 1 - spp,
                slots: spp,
                source: Source::Gc,
            });
            self.close_if_full(block, Source::Gc);
        }
    }

    /// Check the map's invariants; used by tests. Returns a description of the first violation.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut valid = vec![0u32; self.blocks.len()];
        for (lpn, &e) in self.l2p.iter().enumerate() {
            if let Some(ppn) = e.checked_sub(1) {
                let block = self.geo.block_of(ppn);
                let off = ppn % self.geo.slots_per_block();
                if off >= self.blocks[block as usize].written {
                    return Err(format!(
                        "LPN {lpn} maps to unwritten slot {off} of block {block}"
                    ));
                }
                valid[block as usize] += 1;
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
