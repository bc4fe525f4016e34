//! The submission side of the host interface: at most `limit` commands are inside the device at once
//! (NVMe queue entries, or 32 NCQ tags on SATA); a command beyond that waits for the earliest completion.

use crate::engine::Ns;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

#[derive(Clone, Debug)]
pub struct DeviceQueue {
    limit: usize,
    inside: BinaryHeap<Reverse<Ns>>,
}

impl DeviceQueue {
    pub fn new(limit: u32) -> Self {
        DeviceQueue { limit: limit as usize, inside: BinaryHeap::new() }
    }

    /// When a command submitted at `now` gets a slot in the device.
    pub fn admit(&mut self, now: Ns) -> Ns {
        while matches!(self.inside.peek(), Some(&Reverse(t)) if t <= now) {
            self.inside.pop();
        }
        if self.inside.len() < self.limit {
            return now;
        }
        let Reverse(t) = self.inside.pop().expect("limit >= 1");
        t
    }

    /// The command admitted last completes at `at`.
    pub fn complete_at(&mut self, at: Ns) {
        self.inside.push(Reverse(at));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_33rd_command_waits_for_the_first_completion() {
        let mut q = DeviceQueue::new(32);
        for i in 0..32 {
            assert_eq!(q.admit(0), 0);
            q.complete_at(1000 + i);
        }
        assert_eq!(q.admit(0), 1000);
    }
}
