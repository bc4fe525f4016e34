//! The physical-to-logical map of one block, kept only for garbage collection.
//!
//! Slots of a block are written in order, so the block records which LPN went into each slot as runs of
//! consecutive LPNs (a sequential fill costs 8 bytes per program unit, not 4 bytes per slot), switching to a
//! dense array once runs stop paying for themselves. A whole-drive fill of 1 TB thus needs the 1 GB page map
//! and little else.

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReverseMap {
    /// (first LPN, count) for consecutive slots.
    Runs(Vec<(u32, u32)>),
    /// One LPN per slot.
    Dense(Vec<u32>),
}

impl Default for ReverseMap {
    fn default() -> Self {
        ReverseMap::Runs(Vec::new())
    }
}

impl ReverseMap {
    /// Record `lpn` in the next slot; `written` is the number of slots recorded before this one.
    #[inline]
    pub fn push(&mut self, lpn: u32, written: u32) {
        match self {
            ReverseMap::Runs(runs) => {
                if let Some((first, n)) = runs.last_mut() {
                    if first.wrapping_add(*n) == lpn {
                        *n += 1;
                        return;
                    }
                }
                if runs.len() as u32 * 2 > written + 16 {
                    let mut dense = Vec::with_capacity(written as usize * 2);
                    for &(first, n) in runs.iter() {
                        dense.extend(first..first + n);
                    }
                    dense.push(lpn);
                    *self = ReverseMap::Dense(dense);
                } else {
                    runs.push((lpn, 1));
                }
            }
            ReverseMap::Dense(v) => v.push(lpn),
        }
    }

    /// Visit (slot offset, LPN) in write order.
    pub fn for_each(&self, mut f: impl FnMut(u32, u32)) {
        match self {
            ReverseMap::Runs(runs) => {
                let mut off = 0;
                for &(first, n) in runs {
                    for i in 0..n {
                        f(off + i, first + i);
                    }
                    off += n;
                }
            }
            ReverseMap::Dense(v) => v.iter().enumerate().for_each(|(i, &l)| f(i as u32, l)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(m: &ReverseMap) -> Vec<(u32, u32)> {
        let mut v = Vec::new();
        m.for_each(|o, l| v.push((o, l)));
        v
    }

    #[test]
    fn sequential_lpns_stay_one_run() {
        let mut m = ReverseMap::default();
        for (i, lpn) in (100..200).enumerate() {
            m.push(lpn, i as u32);
        }
        assert_eq!(m, ReverseMap::Runs(vec![(100, 100)]));
    }

    #[test]
    fn scattered_lpns_turn_dense_and_keep_order() {
        let mut m = ReverseMap::default();
        let lpns: Vec<u32> = (0..200).map(|i| (i * 7919) % 1000).collect();
        for (i, &l) in lpns.iter().enumerate() {
            m.push(l, i as u32);
        }
        assert!(matches!(m, ReverseMap::Dense(_)));
        let want: Vec<(u32, u32)> = lpns.iter().enumerate().map(|(i, &l)| (i as u32, l)).collect();
        assert_eq!(collect(&m), want);
    }
}
