//! Reservation timelines for shared resources (channels, the host link, engines).
//!
//! A resource is reserved when the controller hands it work, often for a time in the future (a read's data
//! leaves the die only once the die has sensed it). A plain "free at" marker would make every later
//! request wait behind the latest reservation even when the resource is idle until then, so a read stuck
//! behind a program on one die would hold up the link for reads from every other die. A `GapTimeline`
//! keeps the busy intervals and lets a request use any idle gap that fits it.

use super::Ns;
use std::collections::VecDeque;

/// Busy intervals kept at most (older ones are dropped: long finished in practice).
const KEEP: usize = 4096;

/// A resource's busy intervals (sorted, disjoint, touching ones merged): a reservation takes the first idle
/// gap at or after its ready time that fits it.
#[derive(Clone, Debug, Default)]
pub struct GapTimeline {
    busy: VecDeque<(Ns, Ns)>,
}

impl GapTimeline {
    /// When the last reservation ends (0 if none).
    #[inline]
    pub fn end(&self) -> Ns {
        self.busy.back().map_or(0, |&(_, e)| e)
    }

    /// When a reservation of `dur` ready at `ready` would start, without making it.
    #[inline]
    pub fn earliest(&self, ready: Ns, dur: Ns) -> Ns {
        self.find(ready, dur).0
    }

    /// The start of the first idle gap at or after `ready` that fits `dur`, and the index of the first
    /// busy interval after it.
    #[inline]
    fn find(&self, ready: Ns, dur: Ns) -> (Ns, usize) {
        let mut i = self.first_ending_after(ready);
        let mut start = ready;
        while let Some(&(s, e)) = self.busy.get(i) {
            if start + dur <= s {
                break;
            }
            start = start.max(e);
            i += 1;
        }
        (start, i)
    }

    /// The index of the first busy interval ending after `ready`. Requests mostly land near the end of the
    /// timeline (a few dozen future bookings behind thousands of finished ones), so gallop back from the
    /// end and search only that tail: the cache lines near the end, not a binary search over the deque.
    #[inline]
    fn first_ending_after(&self, ready: Ns) -> usize {
        let len = self.busy.len();
        if self.end() <= ready {
            return len;
        }
        let (mut lo, mut hi) = (len, len); // every interval from `hi` on ends after `ready`
        let mut step = 8;
        while lo > 0 {
            lo = len.saturating_sub(step);
            if self.busy[lo].1 <= ready {
                break;
            }
            hi = lo;
            step *= 2;
        }
        // the answer is in lo..=hi
        while lo < hi {
            let mid = (lo + hi) / 2;
            if self.busy[mid].1 <= ready {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        lo
    }

    pub fn reserve(&mut self, ready: Ns, dur: Ns) -> (Ns, Ns) {
        let (start, i) = self.find(ready, dur);
        let end = start + dur;
        // Merge with the interval before (ends at start) and after (starts at end).
        let before = i > 0 && self.busy[i - 1].1 == start;
        let after = self.busy.get(i).is_some_and(|&(s, _)| s == end);
        match (before, after) {
            (true, true) => {
                self.busy[i - 1].1 = self.busy[i].1;
                self.busy.remove(i);
            }
            (true, false) => self.busy[i - 1].1 = end,
            (false, true) => self.busy[i].0 = start,
            (false, false) => {
                if dur > 0 {
                    self.busy.insert(i, (start, end));
                }
            }
        }
        if self.busy.len() > KEEP {
            self.busy.pop_front();
        }
        (start, end)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reservation_takes_the_first_gap_that_fits() {
        let mut t = GapTimeline::default();
        assert_eq!(t.reserve(100, 50), (100, 150));
        assert_eq!(t.reserve(0, 60), (0, 60), "fits before the later reservation");
        assert_eq!(t.reserve(0, 60), (150, 210), "the 40 ns gap at 60..100 is too small");
        assert_eq!(t.reserve(60, 40), (60, 100), "an exact fit fills the gap");
        assert_eq!(t.busy, VecDeque::from([(0, 210)]), "touching intervals merge");
    }

    #[test]
    fn the_tail_search_finds_what_a_search_of_the_whole_timeline_finds() {
        let mut t = GapTimeline::default();
        for k in 0..300u64 {
            t.reserve(k * 100, 50);
        }
        for ready in (0..31_000).step_by(7) {
            let expected = t.busy.partition_point(|&(_, e)| e <= ready);
            assert_eq!(t.first_ending_after(ready), expected, "ready {ready}");
        }
    }
}
