//! Greedy: the closed block with the fewest valid slots, so each collection moves the least data.

use super::{Candidates, VictimPolicy};

/// Fewest valid slots first (ties: the lowest block number).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Greedy;

impl VictimPolicy for Greedy {
    fn pick(&self, c: &Candidates<'_>) -> Option<u32> {
        c.closed().min_by_key(|&b| (c.block(b).valid, b))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_blocks::{closed, free};
    use super::*;

    #[test]
    fn takes_the_block_with_fewest_valid_slots_and_the_lowest_number_on_a_tie() {
        // valid slots 40, 30, 30 (closed) and a free block with none: the free one is no candidate, and of
        // the two at 30 the lower number wins
        let blocks = [closed(40, 0), closed(30, 990), closed(30, 5), free()];
        assert_eq!(Greedy.pick(&Candidates::new(&blocks, 0..4, 1000, 100)), Some(1));
        // a die with no closed block has no victim
        assert_eq!(Greedy.pick(&Candidates::new(&blocks, 3..4, 1000, 100)), None);
    }
}
