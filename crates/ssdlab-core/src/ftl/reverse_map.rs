//! The physical-to-logical map of one block, kept only for garbage collection.
//!
//! Entries of a block are written in order, each `k` slots long (k = 1 unless data is compressed, when a
//! slot is 256 bytes and an LPN takes as many as its compressed size needs). The block records
//! which LPN went where as runs of consecutive LPNs of equal size (a sequential fill costs 12 bytes per
//! run, not 4 bytes per slot), switching to dense arrays once runs stop paying for themselves. A
//! whole-drive fill of 1 TB thus needs the 1 GB page map and little else.
//!
//! Slots left empty inside a block (a program unit flushed part-filled, padded, with more data written
//! after it) are recorded too, as a gap, so that the offsets of the entries after it stay right.

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ReverseMap {
    /// (first LPN, count, slots each) for consecutive LPNs; (_, n, 0) is a gap of n empty slots.
    Runs(Vec<(u32, u32, u8)>),
    /// One LPN per entry, [`GAP`] for an empty slot; `sizes` is empty while every entry is one slot.
    Dense { lpns: Vec<u32>, sizes: Vec<u8> },
}

/// The LPN of an empty slot in [`ReverseMap::Dense`] (no LPN is this large: the L2P stores PPN + 1 in a u32).
const GAP: u32 = u32::MAX;

impl Default for ReverseMap {
    fn default() -> Self {
        ReverseMap::Runs(Vec::new())
    }
}

impl ReverseMap {
    /// Record `lpn`, `k` slots long, as the next entry; `slots_before` is how many slots the block had
    /// filled before it (sizes the switch to dense arrays).
    #[inline]
    pub(super) fn push(&mut self, lpn: u32, k: u8, slots_before: u32) {
        match self {
            ReverseMap::Runs(runs) => {
                if let Some((first, n, size)) = runs.last_mut() {
                    if first.wrapping_add(*n) == lpn && *size == k {
                        *n += 1;
                        return;
                    }
                }
                if runs.len() as u32 * 3 <= slots_before + 16 {
                    runs.push((lpn, 1, k));
                    return;
                }
            }
            ReverseMap::Dense { lpns, sizes } => {
                if k != 1 && sizes.is_empty() {
                    sizes.resize(lpns.len(), 1);
                }
                lpns.push(lpn);
                if !sizes.is_empty() {
                    sizes.push(k);
                }
                return;
            }
        }
        self.push_as_dense(lpn, k, slots_before);
    }

    /// Record the `n` consecutive LPNs from `lpn`, `k` slots each: [`ReverseMap::push`] of each in turn
    /// (after the first, each extends the run it started, or joins the dense arrays).
    #[inline]
    pub(super) fn push_run(&mut self, lpn: u32, n: u32, k: u8, slots_before: u32) {
        if n == 0 {
            return;
        }
        self.push(lpn, k, slots_before);
        match self {
            ReverseMap::Runs(runs) => runs.last_mut().expect("pushed above").1 += n - 1,
            ReverseMap::Dense { lpns, sizes } => {
                lpns.extend(lpn + 1..lpn + n);
                if !sizes.is_empty() {
                    sizes.extend(std::iter::repeat_n(k, n as usize - 1));
                }
            }
        }
    }

    /// Record `n` empty slots as the next entries: the rest of a program unit flushed part-filled, padded
    /// in the middle of the block. (Padding that ends a block needs no record: nothing follows it.)
    pub(super) fn skip(&mut self, n: u32) {
        if n == 0 {
            return;
        }
        match self {
            // size 0 never matches a pushed entry's, so no LPN joins this run
            ReverseMap::Runs(runs) => runs.push((0, n, 0)),
            ReverseMap::Dense { lpns, sizes } => {
                lpns.extend(std::iter::repeat_n(GAP, n as usize));
                if !sizes.is_empty() {
                    sizes.extend(std::iter::repeat_n(1, n as usize));
                }
            }
        }
    }

    /// Runs stopped paying for themselves: switch to dense arrays, then record `lpn`. Out of line, so
    /// that `push`, inlined into every host write's mapping, stays small.
    #[cold]
    #[inline(never)]
    fn push_as_dense(&mut self, lpn: u32, k: u8, slots_before: u32) {
        let ReverseMap::Runs(runs) = self else { unreachable!("only runs turn dense") };
        let mut lpns = Vec::with_capacity(slots_before as usize * 2);
        let mut sizes = Vec::new();
        let sized = k != 1 || runs.iter().any(|r| r.2 > 1);
        for &(first, n, size) in runs.iter() {
            if size == 0 {
                // a gap: one empty slot per entry
                lpns.extend(std::iter::repeat_n(GAP, n as usize));
            } else {
                lpns.extend(first..first + n);
            }
            if sized {
                sizes.extend(std::iter::repeat_n(size.max(1), n as usize));
            }
        }
        lpns.push(lpn);
        if sized {
            sizes.push(k);
        }
        *self = ReverseMap::Dense { lpns, sizes };
    }

    /// Bytes the map holds on the heap.
    pub(super) fn heap_bytes(&self) -> usize {
        match self {
            ReverseMap::Runs(runs) => runs.capacity() * std::mem::size_of::<(u32, u32, u8)>(),
            ReverseMap::Dense { lpns, sizes } => lpns.capacity() * 4 + sizes.capacity(),
        }
    }

    /// Visit (slot offset, LPN, slots) for every entry in write order, gaps left out. (Offsets are the
    /// running sum of entry and gap sizes.)
    pub(super) fn for_each(&self, mut f: impl FnMut(u32, u32, u32)) {
        let mut off = 0;
        let mut emit = |lpn: u32, k: u32| {
            if lpn != GAP {
                f(off, lpn, k);
            }
            off += k;
        };
        match self {
            ReverseMap::Runs(runs) => {
                for &(first, n, k) in runs {
                    if k == 0 {
                        emit(GAP, n);
                        continue;
                    }
                    for i in 0..n {
                        emit(first + i, u32::from(k));
                    }
                }
            }
            ReverseMap::Dense { lpns, sizes } => {
                for (i, &lpn) in lpns.iter().enumerate() {
                    emit(lpn, sizes.get(i).map_or(1, |&k| u32::from(k)));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(m: &ReverseMap) -> Vec<(u32, u32, u32)> {
        let mut v = Vec::new();
        m.for_each(|o, l, k| v.push((o, l, k)));
        v
    }

    #[test]
    fn sequential_lpns_stay_one_run() {
        let mut m = ReverseMap::default();
        for (i, lpn) in (100..200).enumerate() {
            m.push(lpn, 1, i as u32);
        }
        assert_eq!(m, ReverseMap::Runs(vec![(100, 100, 1)]));
    }

    #[test]
    fn scattered_lpns_turn_dense_and_keep_order() {
        let mut m = ReverseMap::default();
        let lpns: Vec<u32> = (0..200).map(|i| (i * 7919) % 1000).collect();
        for (i, &l) in lpns.iter().enumerate() {
            m.push(l, 1, i as u32);
        }
        assert!(matches!(m, ReverseMap::Dense { ref sizes, .. } if sizes.is_empty()));
        let want: Vec<(u32, u32, u32)> = lpns.iter().enumerate().map(|(i, &l)| (i as u32, l, 1)).collect();
        assert_eq!(collect(&m), want);
    }

    #[test]
    fn sized_entries_give_slot_offsets() {
        let mut m = ReverseMap::default();
        m.push(7, 5, 0);
        m.push(8, 5, 1);
        m.push(3, 9, 2);
        assert_eq!(m, ReverseMap::Runs(vec![(7, 2, 5), (3, 1, 9)]));
        assert_eq!(collect(&m), vec![(0, 7, 5), (5, 8, 5), (10, 3, 9)]);
        for i in 3..100 {
            m.push(1000 + i * 3, 2, i);
        }
        assert!(matches!(m, ReverseMap::Dense { .. }));
        assert_eq!(collect(&m)[2], (10, 3, 9));
        assert_eq!(collect(&m)[3], (19, 1009, 2));
    }

    #[test]
    fn a_gap_moves_the_entries_after_it_on_as_runs_and_as_dense_arrays() {
        // a unit flushed with 2 of its slots filled and 6 padded, then the next unit
        let mut m = ReverseMap::default();
        m.push_run(10, 2, 1, 0);
        m.skip(6);
        m.push_run(12, 3, 1, 8);
        assert_eq!(m, ReverseMap::Runs(vec![(10, 2, 1), (0, 6, 0), (12, 3, 1)]));
        assert_eq!(collect(&m), vec![(0, 10, 1), (1, 11, 1), (8, 12, 1), (9, 13, 1), (10, 14, 1)]);
        // scattered LPNs turn it dense: the gap and the offsets stay
        for i in 0..100 {
            m.push(1000 + i * 7, 1, 11 + i);
        }
        assert!(matches!(m, ReverseMap::Dense { ref sizes, .. } if sizes.is_empty()));
        let got = collect(&m);
        assert_eq!(&got[..3], &[(0, 10, 1), (1, 11, 1), (8, 12, 1)]);
        assert_eq!(got[5], (11, 1000, 1));
        // a gap in dense arrays, then sized entries
        m.skip(3);
        m.push(5, 4, 114);
        assert_eq!(collect(&m).last(), Some(&(114, 5, 4)));
        // sized runs with a gap, turned dense
        let mut m = ReverseMap::default();
        m.push(7, 5, 0);
        m.skip(3);
        for i in 0..100 {
            m.push(1000 + i * 3, 2, 8 + 2 * i);
        }
        assert!(matches!(m, ReverseMap::Dense { ref sizes, .. } if !sizes.is_empty()));
        assert_eq!(&collect(&m)[..2], &[(0, 7, 5), (8, 1000, 2)]);
    }
}
