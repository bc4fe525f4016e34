//! Windowed greedy: greedy among the `window` blocks that closed longest ago, not the whole die. A
//! firmware that keeps its closed blocks in a FIFO and looks only at its head does this: the search costs
//! `window` blocks, and young blocks (whose data may still be overwritten) are left to invalidate further.
//! With `window` at least the die's block count it is greedy.

use super::{Candidates, VictimPolicy};

/// Fewest valid slots among the `window` oldest closed blocks that would free space (fewer valid slots
/// than a native block holds), oldest by the write clock when they closed, ties to the lower block
/// number; among those, ties to the lowest block number.
#[derive(Clone, Copy, Debug)]
pub(crate) struct WindowedGreedy {
    /// Blocks looked at (at least 1).
    pub(crate) window: usize,
}

impl VictimPolicy for WindowedGreedy {
    fn pick(&self, c: &Candidates<'_>) -> Option<u32> {
        // A full block frees nothing: it must not take a place in the window.
        let mut oldest: Vec<(u64, u32)> = c
            .closed()
            .filter(|&b| c.block(b).valid < c.slots_per_block)
            .map(|b| (c.block(b).stamp, b))
            .collect();
        let window = self.window.max(1);
        if oldest.len() > window {
            oldest.select_nth_unstable(window - 1);
            oldest.truncate(window);
        }
        oldest.into_iter().map(|(_, b)| b).min_by_key(|&b| (c.block(b).valid, b))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_blocks::{closed, free};
    use super::*;

    #[test]
    fn looks_only_at_the_oldest_blocks() {
        // (valid, closed at): block 0 (50, 10), 1 (10, 900), 2 (30, 20), 3 (40, 5), 4 (100: full, 1),
        // 5 free. By age, the blocks that would free space are 3, 0, 2, 1 (block 4 is full).
        let blocks = [closed(50, 10), closed(10, 900), closed(30, 20), closed(40, 5), closed(100, 1), free()];
        let pick = |window| WindowedGreedy { window }.pick(&Candidates::new(&blocks, 0..6, 1000, 100));
        // window 1: the oldest, block 3; window 2: blocks 3 and 0, 3 has fewer valid
        assert_eq!(pick(1), Some(3));
        assert_eq!(pick(2), Some(3));
        // window 3 takes in block 2 (30 valid); window 4 the young block 1 (10 valid), greedy's pick
        assert_eq!(pick(3), Some(2));
        assert_eq!(pick(4), Some(1));
        assert_eq!(pick(100), Some(1));
        // only full blocks: nothing to gain
        assert_eq!(WindowedGreedy { window: 3 }.pick(&Candidates::new(&blocks, 4..6, 1000, 100)), None);
    }
}
