//! Reservation timelines for shared resources (channels, the host link, engines).
//!
//! A resource is reserved when the controller hands it work, often for a time in the future (a read's data
//! leaves the die only once the die has sensed it). A plain "free at" marker would make every later
//! request wait behind the latest reservation even when the resource is idle until then, so a read stuck
//! behind a program on one die would hold up the link for reads from every other die. A `GapTimeline`
//! keeps the busy intervals and lets a request use any idle gap that fits it.

use super::Ns;

/// Busy intervals kept at most (older ones are dropped: long finished in practice).
const KEEP: usize = 4096;

/// A list that keeps only its newest items (a timeline's intervals, a die's operations), in a plain `Vec`
/// whose first `head` entries are already dropped: searches index a contiguous slice (a `VecDeque` pays a
/// wrap-around check on every probe of a binary search), and the dropped prefix is cut off once it is as
/// long as the list keeps, one move per that many drops.
#[derive(Clone, Debug)]
pub(crate) struct Kept<T> {
    all: Vec<T>,
    /// Entries of `all` before this are dropped.
    head: usize,
}

impl<T> Default for Kept<T> {
    fn default() -> Self {
        Kept { all: Vec::new(), head: 0 }
    }
}

impl<T> Kept<T> {
    /// The items kept, oldest first.
    #[inline]
    pub fn live(&self) -> &[T] {
        &self.all[self.head..]
    }

    #[inline]
    pub fn live_mut(&mut self) -> &mut [T] {
        &mut self.all[self.head..]
    }

    /// Put `item` at index `i` of the items kept.
    #[inline]
    pub fn insert(&mut self, i: usize, item: T) {
        self.all.insert(self.head + i, item);
    }

    #[inline]
    pub fn push(&mut self, item: T) {
        self.all.push(item);
    }

    /// Remove the item at index `i` of the items kept.
    #[inline]
    pub fn remove(&mut self, i: usize) {
        self.all.remove(self.head + i);
    }

    /// Drop the oldest items beyond the newest `n`.
    #[inline]
    pub fn keep_last(&mut self, n: usize) {
        let len = self.all.len() - self.head;
        if len > n {
            self.head += len - n;
            if self.head >= n {
                self.all.drain(..self.head);
                self.head = 0;
            }
        }
    }
}

/// A resource's busy intervals (sorted, disjoint, touching ones merged, the last `KEEP`): a reservation
/// takes the first idle gap at or after its ready time that fits it.
#[derive(Clone, Debug, Default)]
pub struct GapTimeline {
    busy: Kept<(Ns, Ns)>,
}

impl GapTimeline {
    /// The kept busy intervals.
    #[inline]
    fn live(&self) -> &[(Ns, Ns)] {
        self.busy.live()
    }

    /// When the last reservation ends (0 if none).
    #[inline]
    pub fn end(&self) -> Ns {
        self.live().last().map_or(0, |&(_, e)| e)
    }

    /// Where a reservation of `dur` ready at `ready` would go, without making it: its start and a
    /// position to hand to [`GapTimeline::book`] (so that choosing among timelines, as the firmware
    /// cores do, does not search the chosen one twice).
    #[inline]
    pub fn earliest(&self, ready: Ns, dur: Ns) -> (Ns, usize) {
        self.find(ready, dur)
    }

    /// The start of the first idle gap at or after `ready` that fits `dur`, and the index (in the kept
    /// intervals) of the first busy interval after it.
    #[inline]
    fn find(&self, ready: Ns, dur: Ns) -> (Ns, usize) {
        let live = self.live();
        let mut i = first_ending_after(live, ready);
        let mut start = ready;
        while let Some(&(s, e)) = live.get(i) {
            if start + dur <= s {
                break;
            }
            start = start.max(e);
            i += 1;
        }
        (start, i)
    }

    pub fn reserve(&mut self, ready: Ns, dur: Ns) -> (Ns, Ns) {
        let (start, i) = self.find(ready, dur);
        self.book(start, i, dur)
    }

    /// Make the reservation of `dur` that [`GapTimeline::earliest`] placed at (`start`, `i`), the timeline
    /// unchanged since. Returns (start, end).
    pub fn book(&mut self, start: Ns, i: usize, dur: Ns) -> (Ns, Ns) {
        let end = start + dur;
        let live = self.busy.live_mut();
        // Merge with the interval before (ends at start) and after (starts at end).
        let before = i > 0 && live[i - 1].1 == start;
        let after = live.get(i).is_some_and(|&(s, _)| s == end);
        match (before, after) {
            (true, true) => {
                live[i - 1].1 = live[i].1;
                self.busy.remove(i);
            }
            (true, false) => live[i - 1].1 = end,
            (false, true) => live[i].0 = start,
            (false, false) => {
                if dur > 0 {
                    self.busy.insert(i, (start, end));
                }
            }
        }
        self.busy.keep_last(KEEP);
        (start, end)
    }

    /// The busy intervals that overlap `start..end` (unclipped).
    #[inline]
    pub fn overlapping(&self, start: Ns, end: Ns) -> &[(Ns, Ns)] {
        let live = self.live();
        let i = first_ending_after(live, start);
        let n = live[i..].iter().take_while(|&&(s, _)| s < end).count();
        &live[i..i + n]
    }
}

/// The index of the first interval of `busy` ending after `ready`. Requests mostly land near the end of
/// the timeline (a few dozen future bookings behind thousands of finished ones): see [`first_from_end`].
#[inline]
fn first_ending_after(busy: &[(Ns, Ns)], ready: Ns) -> usize {
    first_from_end(busy.len(), |i| busy[i].1 <= ready)
}

/// `partition_point` for a list whose items `done` holds for form a prefix and whose answer is most often
/// among its last few items (bookings on a timeline, a die's queued work): look at the last few one by
/// one, then step back from the end in windows growing fourfold and search the window that holds the
/// answer, so the probes stay in the cache lines near the end rather than spread over the whole list.
#[inline]
pub(crate) fn first_from_end(len: usize, done: impl Fn(usize) -> bool) -> usize {
    if len == 0 || done(len - 1) {
        return len;
    }
    // most requests land among the last few (a random read at QD32: within 2 of the end three times in
    // four), so look at those one by one
    for k in 2..=4.min(len) {
        if done(len - k) {
            return len - k + 1;
        }
    }
    // the rest lands a few dozen from the end (work booked ahead on a channel behind queued programs)
    let (mut hi, mut step) = (len.saturating_sub(4), 32); // item `hi` is not done
    while hi > 0 {
        let lo = hi.saturating_sub(step);
        if done(lo) {
            return first_after(lo, hi, done);
        }
        (hi, step) = (lo, step * 4);
    }
    0
}

/// The first item not `done` after `lo` (done) up to `hi` (not done), by a binary search whose probes pick
/// the next half without a branch (the outcome of each is a coin toss a branch predictor cannot learn).
#[inline]
fn first_after(mut lo: usize, hi: usize, done: impl Fn(usize) -> bool) -> usize {
    let mut size = hi - lo; // `lo` is done and `lo + size` is not
    while size > 1 {
        let half = size / 2;
        let mid = lo + half;
        lo = std::hint::select_unpredictable(done(mid), mid, lo);
        size -= half;
    }
    lo + 1
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
        assert_eq!(t.live(), [(0, 210)], "touching intervals merge");
    }

    #[test]
    fn overlapping_gives_the_intervals_that_share_time_with_a_span() {
        let mut t = GapTimeline::default();
        t.reserve(100, 100);
        t.reserve(300, 100);
        t.reserve(500, 100);
        assert_eq!(t.overlapping(150, 350), [(100, 200), (300, 400)]);
        assert_eq!(t.overlapping(200, 300), [], "touching is not overlapping");
        assert_eq!(t.overlapping(0, 1000).len(), 3);
    }

    #[test]
    fn the_tail_search_finds_what_a_search_of_the_whole_timeline_finds() {
        let mut t = GapTimeline::default();
        for k in 0..300u64 {
            t.reserve(k * 100, 50);
        }
        for ready in (0..31_000).step_by(7) {
            let expected = t.live().partition_point(|&(_, e)| e <= ready);
            assert_eq!(first_ending_after(t.live(), ready), expected, "ready {ready}");
        }
    }

    #[test]
    fn a_kept_list_holds_its_newest_items_in_order_across_many_drops() {
        let mut kept = Kept::default();
        for k in 0..1000u32 {
            if k % 7 == 3 && kept.live().len() > 1 {
                // indices are the kept items', whatever was dropped before them
                kept.insert(1, u32::MAX);
                assert_eq!(kept.live()[1], u32::MAX);
                kept.remove(1);
            }
            kept.push(k);
            kept.keep_last(10);
            let first = k.saturating_sub(9);
            assert_eq!(kept.live(), (first..=k).collect::<Vec<_>>(), "after item {k}");
        }
        assert!(kept.all.len() < 2 * 10, "the dropped prefix is cut off: {} stored", kept.all.len());
    }

    #[test]
    fn dropping_old_intervals_keeps_the_last_keep_as_a_plain_list_would() {
        // the reference: every interval in a list, the oldest dropped past KEEP, a linear search
        let mut reference: Vec<(Ns, Ns)> = Vec::new();
        let mut t = GapTimeline::default();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for k in 0..3 * KEEP as u64 + 100 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let (ready, dur) = ((k * 100).saturating_sub(x % 3000), 10 + x % 90);
            let mut start = ready;
            let mut i = 0;
            while i < reference.len() && !(reference[i].1 > start && start + dur <= reference[i].0) {
                if reference[i].1 > start {
                    start = reference[i].1;
                }
                i += 1;
            }
            let i = reference.partition_point(|&(s, _)| s < start);
            reference.insert(i, (start, start + dur));
            // merge touching neighbours
            let mut merged: Vec<(Ns, Ns)> = Vec::new();
            for &(s, e) in &reference {
                match merged.last_mut() {
                    Some(last) if last.1 == s => last.1 = e,
                    _ => merged.push((s, e)),
                }
            }
            reference = merged;
            if reference.len() > KEEP {
                reference.remove(0);
            }
            assert_eq!(t.reserve(ready, dur), (start, start + dur), "reservation {k}");
            assert_eq!(t.live(), &reference[..], "reservation {k}");
        }
    }
}
