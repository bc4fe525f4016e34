//! Victim selection for garbage collection, one function per policy.

use super::{BlockInfo, BlockState};
use crate::config::GcPolicy;
use crate::nand::Geometry;
use std::ops::Range;

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

    fn block(valid: u32, stamp: u64) -> BlockInfo {
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
    fn greedy_takes_the_emptiest_and_cost_benefit_weighs_age() {
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
