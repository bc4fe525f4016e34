//! Sequential read-ahead (`controller.read_ahead_kib`).
//!
//! A host read that starts where the previous one ended makes the controller read the next
//! `read_ahead_kib` of LBA space (beyond what it already holds) from flash into its buffer, right after
//! the command's own pages: sensed, moved out and decoded while the host still takes this command's data.
//! The next command of the stream then finds its pages ready and only sends them up the link, so a QD1
//! sequential reader is no longer held to one array read plus one link transfer per command.
//!
//! One stream: a read elsewhere ends it and drops what was read ahead. A held page is used only if its
//! LPN still maps to the page it was read from (a write, trim or GC move since makes it a miss).

use std::collections::VecDeque;

use crate::engine::Ns;
use crate::ftl::Lpn;
use crate::nand::Ppn;

/// A page read ahead: decoded at `ready`, the decoder having taken `took` (for the stages after it).
#[derive(Clone, Copy, Debug)]
struct Held {
    lpn: Lpn,
    ppn: Ppn,
    ready: Ns,
    took: Ns,
}

/// The read-ahead state of one sequential stream.
#[derive(Clone, Debug, Default)]
pub(super) struct ReadAhead {
    /// Pages read ahead of a sequential read's end (0 = off).
    window: u32,
    /// Where a read continuing the stream starts.
    next: Lpn,
    /// Read ahead up to here (exclusive).
    frontier: Lpn,
    /// Pages read ahead and not yet taken, in LPN order.
    held: VecDeque<Held>,
}

impl ReadAhead {
    /// Read-ahead of `kib` (0 = none).
    pub(super) fn new(kib: u64) -> Self {
        // no stream until a read has been seen
        ReadAhead { window: (kib * 1024 / super::SLOT_BYTES) as u32, next: Lpn::MAX, ..Default::default() }
    }

    /// A host read of `n` pages from `lpn` arrives: returns the pages to read ahead after it (first, count),
    /// if it continues the stream, within the drive's `user_lpns`. A read elsewhere ends the stream.
    pub(super) fn on_read(&mut self, lpn: Lpn, n: u32, user_lpns: u32) -> Option<(Lpn, u32)> {
        if self.window == 0 || n == 0 {
            return None;
        }
        let end = lpn + n;
        let sequential = lpn == self.next;
        self.next = end;
        if !sequential {
            self.held.clear();
            self.frontier = end;
            return None;
        }
        while self.held.front().is_some_and(|h| h.lpn < lpn) {
            self.held.pop_front();
        }
        let start = self.frontier.max(end);
        let stop = end.saturating_add(self.window).min(user_lpns);
        if stop <= start {
            return None;
        }
        self.frontier = stop;
        Some((start, stop - start))
    }

    /// The held page of `lpn`, if it is still the data `ppn` holds: (decoded at, decoder time). Taken
    /// out of the buffer.
    pub(super) fn take(&mut self, lpn: Lpn, ppn: Ppn) -> Option<(Ns, Ns)> {
        while let Some(h) = self.held.front().copied() {
            if h.lpn > lpn {
                return None;
            }
            self.held.pop_front();
            if h.lpn == lpn {
                return (h.ppn == ppn).then_some((h.ready, h.took));
            }
        }
        None
    }

    /// Keep the page of `lpn` (flash page `ppn`), read ahead and decoded at `ready`.
    pub(super) fn hold(&mut self, lpn: Lpn, ppn: Ppn, ready: Ns, took: Ns) {
        self.held.push_back(Held { lpn, ppn, ready, took });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_read_continuing_the_last_one_reads_ahead() {
        let mut ra = ReadAhead::new(128); // 32 pages
        assert_eq!(ra.on_read(0, 32, 1000), None, "the first read of a stream");
        assert_eq!(ra.on_read(32, 32, 1000), Some((64, 32)));
        assert_eq!(ra.on_read(64, 32, 1000), Some((96, 32)), "only beyond what is held");
        assert_eq!(ra.on_read(500, 32, 1000), None, "a jump ends the stream");
        assert_eq!(ra.on_read(532, 32, 1000), Some((564, 32)));
        assert_eq!(ra.on_read(564, 432, 1000), Some((996, 4)), "not past the drive's end");
        assert_eq!(ReadAhead::new(0).on_read(0, 1, 10), None, "off");
    }

    #[test]
    fn a_held_page_serves_only_the_data_it_was_read_from() {
        let mut ra = ReadAhead::new(16);
        ra.hold(10, 7, 100, 5);
        ra.hold(11, 8, 110, 5);
        ra.hold(12, 9, 120, 5);
        assert_eq!(ra.take(10, 7), Some((100, 5)));
        assert_eq!(ra.take(11, 99), None, "remapped since (written, moved)");
        assert_eq!(ra.take(13, 1), None, "12 skipped and dropped");
        assert!(ra.held.is_empty());
    }
}
