//! The physical-to-logical map of one block, kept only for garbage collection.
//!
//! Entries of a block are written in order, each `k` slots long (k = 1 unless data is compressed, when a
//! slot is 256 bytes and an LPN takes as many as its compressed size needs). The block records
//! which LPN went where as runs of consecutive LPNs of equal size (a sequential fill costs 12 bytes per
//! run, not 4 bytes per slot), switching to dense arrays once runs stop paying for themselves. A
//! whole-drive fill of 1 TB thus needs the 1 GB page map and little else.

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum ReverseMap {
    /// (first LPN, count, slots each) for consecutive LPNs.
    Runs(Vec<(u32, u32, u8)>),
    /// One LPN per entry; `sizes` is empty while every entry is one slot.
    Dense { lpns: Vec<u32>, sizes: Vec<u8> },
}

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

    /// Runs stopped paying for themselves: switch to dense arrays, then record `lpn`. Out of line, so
    /// that `push`, inlined into every host write's mapping, stays small.
    #[cold]
    #[inline(never)]
    fn push_as_dense(&mut self, lpn: u32, k: u8, slots_before: u32) {
        let ReverseMap::Runs(runs) = self else { unreachable!("only runs turn dense") };
        let mut lpns = Vec::with_capacity(slots_before as usize * 2);
        let mut sizes = Vec::new();
        let sized = k != 1 || runs.iter().any(|r| r.2 != 1);
        for &(first, n, size) in runs.iter() {
            lpns.extend(first..first + n);
            if sized {
                sizes.extend(std::iter::repeat_n(size, n as usize));
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

    /// Visit (slot offset, LPN, slots) for every entry in write order. (Padding only ever ends a block,
    /// so offsets are the running sum of entry sizes.)
    pub(super) fn for_each(&self, mut f: impl FnMut(u32, u32, u32)) {
        let mut off = 0;
        let mut emit = |lpn: u32, k: u32| {
            f(off, lpn, k);
            off += k;
        };
        match self {
            ReverseMap::Runs(runs) => {
                for &(first, n, k) in runs {
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
}
