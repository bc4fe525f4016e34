//! Victim selection for garbage collection, one function per policy.

use super::{BlockInfo, BlockState};
use crate::config::GcPolicy;
use std::ops::Range;

/// The closed block in `range` to collect next, by `policy`.
pub fn pick_victim(policy: GcPolicy, blocks: &[BlockInfo], range: Range<u32>) -> Option<u32> {
    match policy {
        GcPolicy::Greedy => greedy(blocks, range),
    }
}

/// Fewest valid slots first (ties: lowest block number, for determinism).
fn greedy(blocks: &[BlockInfo], range: Range<u32>) -> Option<u32> {
    range
        .filter(|&b| blocks[b as usize].state == BlockState::Closed)
        .min_by_key(|&b| (blocks[b as usize].valid, b))
}
