//! Cost-benefit (Rosenblum & Ousterhout's LFS cleaner): the closed block with the highest
//! `(1 - u) * age / (1 + u)`, so old, mostly invalid blocks go first and cold data is not copied again and
//! again.

use super::{Candidates, VictimPolicy};

/// Highest `(1 - u) * age / (1 + u)`: `u` is the valid share of a native block, `age` the write clock
/// since the block closed, plus one (ties: the lowest block number).
#[derive(Clone, Copy, Debug)]
pub(crate) struct CostBenefit;

impl VictimPolicy for CostBenefit {
    fn pick(&self, c: &Candidates<'_>) -> Option<u32> {
        let score = |b: u32| {
            let i = c.block(b);
            // u as a share of a native block: what relocating it costs against the block it frees
            // (a full SLC-mode block is only a third valid in these terms).
            let u = f64::from(i.valid) / f64::from(c.slots_per_block);
            let age = (c.now - i.stamp) as f64 + 1.0;
            (1.0 - u) * age / (1.0 + u)
        };
        // max by score; ties to the lowest block number
        c.closed()
            .fold(None, |best: Option<(u32, f64)>, b| {
                let s = score(b);
                match best {
                    Some((_, bs)) if bs >= s => best,
                    _ => Some((b, s)),
                }
            })
            .map(|(b, _)| b)
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_blocks::{closed, free};
    use super::*;

    #[test]
    fn weighs_age_against_valid_data() {
        // At now = 1000 with 100-slot blocks:
        //   block 0: u = 0.4, age 1001: 0.6 * 1001 / 1.4 = 429.0
        //   block 1: u = 0.3, age   11: 0.7 *   11 / 1.3 =   5.9 (greedy's pick: fewest valid)
        //   block 2: u = 0.1, age  401: 0.9 *  401 / 1.1 = 328.1
        let blocks = [closed(40, 0), closed(30, 990), closed(10, 600), free()];
        assert_eq!(CostBenefit.pick(&Candidates::new(&blocks, 0..4, 1000, 100)), Some(0));
        // Later, at now = 3000, block 2 wins: 0.9 * 2401 / 1.1 = 1964.5 against 0.6 * 3001 / 1.4 = 1286.1
        assert_eq!(CostBenefit.pick(&Candidates::new(&blocks, 0..4, 3000, 100)), Some(2));
    }

    #[test]
    fn breaks_ties_to_the_lowest_block() {
        let blocks = [free(), closed(50, 10), closed(50, 10)];
        assert_eq!(CostBenefit.pick(&Candidates::new(&blocks, 0..3, 100, 100)), Some(1));
    }
}
