//! Wear: static wear levelling, erase-count statistics, factory bad blocks (grown bad blocks retire in
//! [`BlockPool::erase`] when they reach the P/E limit).

use super::BlockPool;
use crate::config::FtlConfig;
use crate::ftl::BlockState;

impl BlockPool {
    /// Static wear levelling: if the die's erase counts spread by more than the threshold, its least-erased
    /// closed block (cold data pins it) is returned for its data to be moved, and the die's most-worn free
    /// block is put first in line to receive that data, so it can rest while it holds it.
    pub(in crate::ftl) fn wear_leveling_victim(&mut self, die: u32) -> Option<u32> {
        if self.wear_leveling_threshold == 0 || self.free[die as usize].len() < 2 {
            return None;
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
            .min_by_key(|&b| (self.blocks[b as usize].erase_count, b))?;
        if max - self.blocks[coldest as usize].erase_count <= self.wear_leveling_threshold {
            return None;
        }
        let pool = &mut self.free[die as usize];
        if let Some(i) = (0..pool.len()).max_by_key(|&i| (self.blocks[pool[i] as usize].erase_count, i)) {
            let worn = pool.remove(i).expect("index in range");
            pool.push_front(worn);
        }
        Some(coldest)
    }

    /// (min, max, mean) erase count over all blocks.
    pub(in crate::ftl) fn erase_counts(&self) -> (u32, u32, f64) {
        let (mut lo, mut hi, mut sum) = (u32::MAX, 0, 0u64);
        for b in &self.blocks {
            lo = lo.min(b.erase_count);
            hi = hi.max(b.erase_count);
            sum += u64::from(b.erase_count);
        }
        (lo, hi, sum as f64 / self.blocks.len() as f64)
    }

    /// Mark `factory_bad_block_pct` of each die's blocks bad, chosen from the drive's root `seed`, and
    /// take them out of the free pools. Returns how many were marked.
    pub(super) fn mark_factory_bad_blocks(&mut self, cfg: &FtlConfig, seed: u64) -> u64 {
        use rand::RngExt;
        let geo = self.geo;
        let per_die = (f64::from(geo.blocks_per_die) * cfg.factory_bad_block_pct / 100.0).round() as u32;
        if per_die == 0 {
            return 0;
        }
        for die in 0..geo.dies {
            let mut rng = crate::engine::stream(seed, 0xBAD0_0000 + u64::from(die));
            let mut marked = 0;
            while marked < per_die {
                let b = die * geo.blocks_per_die + rng.random_range(0..geo.blocks_per_die);
                if self.blocks[b as usize].state != BlockState::Bad {
                    self.blocks[b as usize].state = BlockState::Bad;
                    marked += 1;
                }
            }
            let blocks = &self.blocks;
            self.free[die as usize].retain(|&b| blocks[b as usize].state != BlockState::Bad);
        }
        u64::from(per_die) * u64::from(geo.dies)
    }
}
