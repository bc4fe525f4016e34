//! The block pool: every block's state and counts, the free blocks of each die, the open host and GC
//! blocks, bad blocks (`wear`: factory bad blocks, retirement at the P/E limit, static wear levelling).
//!
//! The pool only keeps books; it never decides what data goes where, and it emits no flash operations
//! (the FTL does, for what the pool tells it).

mod wear;

use super::{BlockInfo, BlockState};
use crate::config::FtlConfig;
use crate::nand::{CellMode, Geometry, Ppn};
use std::collections::VecDeque;
use std::ops::Range;

fn mode_index(mode: CellMode) -> usize {
    match mode {
        CellMode::Native => 0,
        CellMode::Slc => 1,
    }
}

#[derive(Clone, Debug)]
pub(super) struct BlockPool {
    geo: Geometry,
    blocks: Vec<BlockInfo>,
    free: Vec<VecDeque<u32>>,
    /// Per die, the open host block of each cell mode.
    host_open: Vec<[Option<u32>; 2]>,
    gc_open: Vec<Option<u32>>,
    /// Closed SLC-mode blocks per die (folding candidates).
    slc_closed: Vec<u32>,
    /// Valid slots on each die.
    die_valid: Vec<u64>,
    /// Valid slots in SLC-mode blocks.
    slc_valid: u64,
    pe_cycle_limit: u32,
    wear_leveling_threshold: u32,
}

impl BlockPool {
    /// Every block free, less the factory bad blocks; returns the pool and how many blocks are bad.
    pub(super) fn new(cfg: &FtlConfig, geo: Geometry, seed: u64) -> (Self, u64) {
        let fresh = BlockInfo {
            valid: 0,
            written: 0,
            erase_count: cfg.initial_pe_cycles,
            state: BlockState::Free,
            mode: CellMode::Native,
            stamp: 0,
        };
        let dies = geo.dies as usize;
        let mut pool = BlockPool {
            blocks: vec![fresh; geo.blocks() as usize],
            free: (0..geo.dies)
                .map(|d| (d * geo.blocks_per_die..(d + 1) * geo.blocks_per_die).collect())
                .collect(),
            host_open: vec![[None, None]; dies],
            gc_open: vec![None; dies],
            slc_closed: vec![0; dies],
            die_valid: vec![0; dies],
            slc_valid: 0,
            pe_cycle_limit: cfg.pe_cycle_limit,
            wear_leveling_threshold: cfg.wear_leveling_threshold,
            geo,
        };
        let bad = pool.mark_factory_bad_blocks(cfg, seed);
        (pool, bad)
    }

    #[inline]
    pub(super) fn block(&self, block: u32) -> &BlockInfo {
        &self.blocks[block as usize]
    }

    /// Every block, by number.
    pub(super) fn blocks(&self) -> &[BlockInfo] {
        &self.blocks
    }

    pub(super) fn die_blocks(&self, die: u32) -> Range<u32> {
        die * self.geo.blocks_per_die..(die + 1) * self.geo.blocks_per_die
    }

    /// Free blocks on `die`.
    #[inline]
    pub(super) fn free_on(&self, die: u32) -> usize {
        self.free[die as usize].len()
    }

    pub(super) fn free_blocks(&self) -> usize {
        self.free.iter().map(|f| f.len()).sum()
    }

    /// Host data in SLC-mode blocks, in slots.
    pub(super) fn slc_valid(&self) -> u64 {
        self.slc_valid
    }

    /// The open host block of `mode` on `die`, if any.
    pub(super) fn host_block(&self, die: u32, mode: CellMode) -> Option<u32> {
        self.host_open[die as usize][mode_index(mode)]
    }

    /// Open the die's next free block for host data in `mode`. (The caller makes sure there is one:
    /// garbage collection keeps a free block per die.)
    pub(super) fn open_host_block(&mut self, die: u32, mode: CellMode) -> u32 {
        let b = self.take_free(die, BlockState::OpenHost, mode);
        self.host_open[die as usize][mode_index(mode)] = Some(b);
        b
    }

    /// The die's open GC block (native mode), opening one if there is none.
    pub(super) fn gc_block(&mut self, die: u32) -> u32 {
        match self.gc_open[die as usize] {
            Some(b) => b,
            None => {
                let b = self.take_free(die, BlockState::OpenGc, CellMode::Native);
                self.gc_open[die as usize] = Some(b);
                b
            }
        }
    }

    /// The die's open GC block, if any.
    pub(super) fn open_gc_block(&self, die: u32) -> Option<u32> {
        self.gc_open[die as usize]
    }

    fn take_free(&mut self, die: u32, state: BlockState, mode: CellMode) -> u32 {
        let b = self.free[die as usize].pop_front().expect("GC keeps at least one free block per die");
        let info = &mut self.blocks[b as usize];
        info.state = state;
        info.mode = mode;
        b
    }

    /// Count `k` slots written to `block` as valid data. Returns the slots the block had written before.
    #[inline]
    pub(super) fn add_valid(&mut self, block: u32, k: u32) -> u32 {
        self.die_valid[self.geo.die_of_block(block) as usize] += u64::from(k);
        let b = &mut self.blocks[block as usize];
        let before = b.written;
        b.written += k;
        b.valid += k;
        if b.mode == CellMode::Slc {
            self.slc_valid += u64::from(k);
        }
        before
    }

    /// The `k` slots at `ppn` no longer hold valid data.
    #[inline]
    pub(super) fn invalidate(&mut self, ppn: Ppn, k: u32) {
        let block = self.geo.block_of(ppn);
        self.die_valid[self.geo.die_of_block(block) as usize] -= u64::from(k);
        let b = &mut self.blocks[block as usize];
        b.valid -= k;
        if b.mode == CellMode::Slc {
            self.slc_valid -= u64::from(k);
        }
    }

    /// Leave the rest of `block` empty. Returns (slots padded, slots of data in the unit at
    /// `unit_offset`, the block's mode).
    pub(super) fn pad(&mut self, block: u32, unit_offset: u32) -> (u32, u32, CellMode) {
        let b = &mut self.blocks[block as usize];
        let cap = self.geo.capacity(b.mode);
        let padded = cap - b.written;
        let slots = b.written - unit_offset;
        b.written = cap;
        (padded, slots, b.mode)
    }

    /// Leave `slots` slots of `block` empty after what was written (a program unit flushed part-filled).
    pub(super) fn skip(&mut self, block: u32, slots: u32) {
        self.blocks[block as usize].written += slots;
    }

    /// Close `block` if it is full; `stamp` is the FTL's write clock (its age for cost-benefit GC).
    pub(super) fn close_if_full(&mut self, block: u32, stamp: u64) {
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
        b.stamp = stamp;
        if b.mode == CellMode::Slc {
            self.slc_closed[die] += 1;
        }
    }

    /// Take `block` out of service for garbage collection or folding.
    pub(super) fn start_collecting(&mut self, block: u32) {
        let die = self.geo.die_of_block(block);
        let b = &mut self.blocks[block as usize];
        if b.mode == CellMode::Slc && b.state == BlockState::Closed {
            self.slc_closed[die as usize] -= 1;
        }
        b.state = BlockState::Collecting;
    }

    /// Book the erase of `block`: it rejoins its die's free pool, or retires as a grown bad block at its
    /// P/E limit (returns true then).
    pub(super) fn erase(&mut self, block: u32) -> bool {
        let b = &mut self.blocks[block as usize];
        (b.valid, b.written, b.mode) = (0, 0, CellMode::Native);
        b.erase_count += 1;
        if self.pe_cycle_limit > 0 && b.erase_count >= self.pe_cycle_limit {
            b.state = BlockState::Bad;
            true
        } else {
            b.state = BlockState::Free;
            self.free[self.geo.die_of_block(block) as usize].push_back(block);
            false
        }
    }

    /// `cycles` P/E cycles of `block` that leave it where it is (the passes of a sanitize overwrite, each
    /// an erase and a program, before the final [`BlockPool::erase`]).
    pub(super) fn wear(&mut self, block: u32, cycles: u32) {
        self.blocks[block as usize].erase_count += cycles;
    }

    /// Sanitize: forget every open block and valid count; `erase` is called for each block that holds
    /// data (it must book the erase with [`BlockPool::erase`]), the others rejoin the free pools as they
    /// are. Bad blocks stay bad.
    pub(super) fn sanitize(&mut self, mut erase: impl FnMut(&mut Self, u32)) {
        self.slc_valid = 0;
        self.die_valid.fill(0);
        self.host_open.fill([None, None]);
        self.gc_open.fill(None);
        self.slc_closed.fill(0);
        for die in 0..self.geo.dies {
            self.free[die as usize].clear();
            for block in self.die_blocks(die) {
                let b = &self.blocks[block as usize];
                if b.state == BlockState::Bad {
                    continue;
                }
                if b.state != BlockState::Free || b.written > 0 {
                    erase(self, block);
                } else {
                    self.free[die as usize].push_back(block);
                }
            }
        }
    }

    /// The die host data should go to after `cur`: the next in turn, passing over any die holding more
    /// valid data than the emptiest by half the free blocks the tightest die has left (at least a block).
    /// Overwrites invalidate data on random dies: without the pass-over a die can fill with valid data
    /// while the others have room; with a fixed one-block margin, the few blocks of imbalance random
    /// writes leave sent a sequential rewrite of their file mostly to one die, at a fraction of the speed.
    pub(super) fn next_host_die(&self, cur: u32) -> u32 {
        let dies = self.geo.dies;
        let least = self.die_valid.iter().copied().min().unwrap_or(0);
        let block = u64::from(self.geo.slots_per_block());
        let tightest = self.free.iter().map(VecDeque::len).min().unwrap_or(0) as u64;
        let limit = least + (tightest * block / 2).max(block);
        (1..=dies)
            .map(|i| (cur + i) % dies)
            .find(|&d| self.die_valid[d as usize] <= limit)
            .unwrap_or((cur + 1) % dies)
    }

    /// The next SLC block to fold among those of `dies`: the closed one with the least valid data, the
    /// longest closed first among equals (in a sequential fill every block is full: oldest data first).
    pub(super) fn slc_victim(&self, dies: Range<u32>) -> Option<u32> {
        dies.filter(|&d| self.slc_closed[d as usize] > 0)
            .flat_map(|d| self.die_blocks(d))
            .filter(|&b| {
                let i = &self.blocks[b as usize];
                i.state == BlockState::Closed && i.mode == CellMode::Slc
            })
            .min_by_key(|&b| {
                let i = &self.blocks[b as usize];
                (i.valid, i.stamp, b)
            })
    }

    /// True if `die` has a closed SLC block to fold. An open SLC host block is closed for the purpose
    /// unless it is `filling` (a host program unit is being filled in it), so idle folding can empty the
    /// cache completely.
    pub(super) fn close_idle_slc_block(&mut self, die: u32, filling: Option<u32>) -> bool {
        let d = die as usize;
        if self.slc_closed[d] == 0 {
            if let Some(b) = self.host_open[d][mode_index(CellMode::Slc)] {
                if filling != Some(b) {
                    self.host_open[d][mode_index(CellMode::Slc)] = None;
                    self.blocks[b as usize].state = BlockState::Closed;
                    self.slc_closed[d] += 1;
                }
            }
        }
        self.slc_closed[d] > 0
    }

    /// Bytes the pool holds on the heap.
    pub(super) fn heap_bytes(&self) -> u64 {
        let per_die = self.free.iter().map(|f| f.capacity() * 4).sum::<usize>()
            + self.host_open.capacity() * std::mem::size_of::<[Option<u32>; 2]>()
            + self.gc_open.capacity() * std::mem::size_of::<Option<u32>>()
            + self.slc_closed.capacity() * 4
            + self.die_valid.capacity() * 8;
        (self.blocks.capacity() * std::mem::size_of::<BlockInfo>() + per_die) as u64
    }
}
