//! What the host wrote: the data of every 4 KiB logical page, kept sparse and checked by a CRC.
//!
//! Timing never depends on the data, so a drive keeps none unless asked ([`crate::Drive::enable_data`]):
//! timing-only runs cost nothing here. With data on, a page the host never wrote (or trimmed, or wrote
//! as zeros) holds nothing and reads as zeros, as NVMe's deterministic read after deallocate (DLFEAT
//! "reads zeros") says; memory grows with the pages holding data, not with capacity. Each stored page
//! carries a CRC-32 computed when it was written and checked on every read: a mismatch (a flipped bit
//! injected by [`DataStore::corrupt`]) is counted as a data-integrity error and the read returns
//! the page as it is, as a drive reports an unrecoverable read error rather than invent data. (Only a
//! write, which takes a new CRC, or `corrupt` changes a page's bytes, so the check recomputes the CRC
//! only of pages `corrupt` touched: the same verdict, and a read of a store nobody corrupted costs
//! nothing, not a lookup and a pass over 4 KiB of memory per page.)
//!
//! ```
//! use ssdlab_core::data::DataStore;
//! let mut d = DataStore::default();
//! d.write(3, &[7u8; 4096]);
//! let mut out = Vec::new();
//! d.read(2, 2, &mut out);
//! assert_eq!((out[0], out[4096]), (0, 7)); // page 2 never written: zeros
//! assert_eq!(d.pages_held(), 1);
//! ```

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Hashes an LPN with one 64-bit mix (murmur3's finaliser). LPNs come from the simulator, not from an
/// adversary, so the default hasher's (SipHash) protection buys nothing here and cost most of a lookup;
/// a full mix, not a bare multiply, because the table indexes by the low bits and LPNs often share them
/// (strided writes).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct LpnHasher(u64);

impl Hasher for LpnHasher {
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(self.0.rotate_left(8) ^ u64::from(b));
        }
    }

    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    fn write_u64(&mut self, n: u64) {
        let mut x = self.0 ^ n;
        x ^= x >> 33;
        x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
        x ^= x >> 33;
        x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
        self.0 = x ^ (x >> 33);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// A map keyed by LPN.
type LpnMap<V> = HashMap<u32, V, BuildHasherDefault<LpnHasher>>;

/// Bytes in one logical page (LPN).
pub const PAGE_BYTES: usize = 4096;

/// One stored page and the CRC-32 taken when it was written.
#[derive(Clone, Debug)]
struct Page {
    bytes: Box<[u8]>,
    crc: u32,
}

impl Page {
    /// Whether the bytes still match the CRC taken when they were written.
    fn intact(&self) -> bool {
        crc32fast::hash(&self.bytes) == self.crc
    }
}

/// The data of the pages that hold any, by LPN.
#[derive(Clone, Debug, Default)]
pub struct DataStore {
    pages: LpnMap<Page>,
    integrity_errors: u64,
    /// Pages whose latest version may still be only in the volatile write buffer, with their last
    /// version known to be on flash (`None`: zeros). What a power cut without flush reverts to.
    last_durable: LpnMap<Option<Page>>,
    /// LPNs whose page (or a version of it kept in `last_durable`) [`DataStore::corrupt`] flipped bits
    /// in: the only pages that can fail their CRC. Never shrinks but on [`DataStore::clear`] (a page
    /// rewritten since just passes again).
    tampered: LpnMap<()>,
}

impl DataStore {
    /// Store `data` (whole pages) from `lpn` on. A page of zeros is dropped: it reads as zeros anyway.
    pub fn write(&mut self, lpn: u32, data: &[u8]) {
        debug_assert!(data.len().is_multiple_of(PAGE_BYTES));
        for (k, chunk) in data.chunks_exact(PAGE_BYTES).enumerate() {
            let l = lpn + k as u32;
            if chunk.iter().all(|&b| b == 0) {
                self.pages.remove(&l);
            } else {
                self.pages.insert(l, Page { bytes: chunk.into(), crc: crc32fast::hash(chunk) });
            }
        }
    }

    /// [`DataStore::write`], remembering what a power cut would revert each page to: `was_durable(lpn)`
    /// says whether the version being replaced is on flash (then it becomes the page's last durable
    /// version; else the one remembered before stays).
    pub fn write_tracked(&mut self, lpn: u32, data: &[u8], was_durable: impl FnMut(u32) -> bool) {
        self.track(lpn, (data.len() / PAGE_BYTES) as u32, was_durable);
        self.write(lpn, data);
    }

    /// [`DataStore::write_tracked`] of `n` pages of zeros, without a buffer of zeros: what a write that
    /// carries no data stores.
    pub fn write_zeros_tracked(&mut self, lpn: u32, n: u32, was_durable: impl FnMut(u32) -> bool) {
        self.track(lpn, n, was_durable);
        self.trim(lpn, n);
    }

    fn track(&mut self, lpn: u32, n: u32, mut was_durable: impl FnMut(u32) -> bool) {
        for l in lpn..lpn + n {
            if was_durable(l) {
                self.last_durable.insert(l, self.pages.get(&l).cloned());
            } else {
                self.last_durable.entry(l).or_insert(None);
            }
        }
    }

    /// Pages tracked as perhaps volatile ([`DataStore::write_tracked`]).
    pub fn tracked(&self) -> usize {
        self.last_durable.len()
    }

    /// Stop tracking the pages `still_volatile` says are now on flash.
    pub fn forget_durable(&mut self, mut still_volatile: impl FnMut(u32) -> bool) {
        self.last_durable.retain(|&l, _| still_volatile(l));
    }

    /// Power is lost: each tracked page `lost(lpn)` says never reached flash reverts to its last durable
    /// version. Returns the LPNs reverted, sorted; tracking starts over.
    pub fn revert_lost(&mut self, mut lost: impl FnMut(u32) -> bool) -> Vec<u32> {
        let mut reverted = Vec::new();
        for (l, old) in self.last_durable.drain() {
            if lost(l) {
                match old {
                    Some(p) => self.pages.insert(l, p),
                    None => self.pages.remove(&l),
                };
                reverted.push(l);
            }
        }
        reverted.sort_unstable();
        reverted
    }

    /// Append `n` pages from `lpn` to `out`, checking each stored page's CRC. Returns how many failed it
    /// (also counted in [`DataStore::integrity_errors`]).
    pub fn read(&mut self, lpn: u32, n: u32, out: &mut Vec<u8>) -> u64 {
        out.reserve(n as usize * PAGE_BYTES);
        let mut bad = 0;
        for l in lpn..lpn + n {
            match self.pages.get(&l) {
                Some(p) => {
                    if self.tampered.contains_key(&l) && !p.intact() {
                        bad += 1;
                    }
                    out.extend_from_slice(&p.bytes);
                }
                None => out.resize(out.len() + PAGE_BYTES, 0),
            }
        }
        self.integrity_errors += bad;
        bad
    }

    /// Append the `len` bytes from byte `offset` to `out` (whole sectors of the pages they lie in),
    /// checking each page's CRC as [`DataStore::read`] does. Returns how many failed it.
    pub fn read_bytes(&mut self, offset: u64, len: u64, out: &mut Vec<u8>) -> u64 {
        let page = PAGE_BYTES as u64;
        let (first, end) = (offset / page, (offset + len).div_ceil(page));
        let (start, skip) = (out.len(), (offset - first * page) as usize);
        let bad = self.read(first as u32, (end - first) as u32, out);
        out.truncate(start + skip + len as usize);
        out.drain(start..start + skip);
        bad
    }

    /// Check the CRC of `n` stored pages from `lpn` without copying them (a read whose data nobody takes).
    /// Returns how many failed it, as [`DataStore::read`] does.
    pub fn check(&mut self, lpn: u32, n: u32) -> u64 {
        if self.tampered.is_empty() {
            return 0;
        }
        let bad = (lpn..lpn + n)
            .filter(|l| self.tampered.contains_key(l))
            .filter_map(|l| self.pages.get(&l))
            .filter(|p| !p.intact())
            .count() as u64;
        self.integrity_errors += bad;
        bad
    }

    /// Drop `n` pages from `lpn` (trim): they read as zeros.
    pub fn trim(&mut self, lpn: u32, n: u32) {
        if self.pages.is_empty() {
            return;
        }
        if u64::from(n) >= self.pages.len() as u64 {
            self.pages.retain(|&l, _| l < lpn || l - lpn >= n);
        } else {
            for l in lpn..lpn + n {
                self.pages.remove(&l);
            }
        }
    }

    /// Drop every page (sanitize).
    pub fn clear(&mut self) {
        self.pages.clear();
        self.last_durable.clear();
        self.tampered.clear();
    }

    /// Pages that hold data.
    pub fn pages_held(&self) -> usize {
        self.pages.len()
    }

    /// Stored pages whose CRC check failed on a read, over the store's life.
    pub fn integrity_errors(&self) -> u64 {
        self.integrity_errors
    }

    /// Flip bit `bit` of page `lpn`'s stored data without updating its CRC (a media error, for tests and
    /// fault injection). Returns false if the page holds no data.
    pub fn corrupt(&mut self, lpn: u32, bit: usize) -> bool {
        match self.pages.get_mut(&lpn) {
            Some(p) => {
                p.bytes[(bit / 8) % PAGE_BYTES] ^= 1 << (bit % 8);
                self.tampered.insert(lpn, ());
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(v: u8) -> Vec<u8> {
        vec![v; PAGE_BYTES]
    }

    #[test]
    fn a_read_returns_the_last_write_and_zeros_elsewhere() {
        let mut d = DataStore::default();
        d.write(10, &[page(1), page(2)].concat());
        d.write(11, &page(3));
        let mut out = Vec::new();
        assert_eq!(d.read(9, 4, &mut out), 0);
        let firsts: Vec<u8> = out.chunks(PAGE_BYTES).map(|c| c[0]).collect();
        assert_eq!(firsts, [0, 1, 3, 0]);
    }

    #[test]
    fn memory_grows_with_pages_holding_data_not_with_what_was_addressed() {
        let mut d = DataStore::default();
        d.write(0, &page(5));
        d.write(1_000_000, &page(5));
        d.write(2, &page(0));
        assert_eq!(d.pages_held(), 2, "a zero page is not stored");
        d.write(0, &page(0));
        assert_eq!(d.pages_held(), 1, "overwriting with zeros frees the page");
    }

    #[test]
    fn trimmed_and_cleared_pages_read_as_zeros() {
        let mut d = DataStore::default();
        for l in 0..8 {
            d.write(l, &page(9));
        }
        d.trim(2, 3);
        let mut out = Vec::new();
        d.read(0, 8, &mut out);
        let firsts: Vec<u8> = out.chunks(PAGE_BYTES).map(|c| c[0]).collect();
        assert_eq!(firsts, [9, 9, 0, 0, 0, 9, 9, 9]);
        d.trim(0, u32::MAX);
        assert_eq!(d.pages_held(), 0, "a trim longer than the store takes the retain path");
        d.write(1, &page(4));
        d.clear();
        assert_eq!(d.pages_held(), 0);
    }

    #[test]
    fn a_lost_page_reverts_to_its_last_durable_version() {
        let mut d = DataStore::default();
        d.write(1, &page(1)); // on flash before tracking
        d.write_tracked(1, &page(2), |_| true); // replaces a durable version: remembers page(1)
        d.write_tracked(1, &page(3), |_| false); // replaces a volatile one: page(1) stays the fallback
        d.write_tracked(2, &page(4), |_| true); // never written before: falls back to zeros
        d.write_tracked(3, &page(5), |_| true);
        d.forget_durable(|l| l != 3); // page 3 reached flash
        assert_eq!(d.tracked(), 2);
        assert_eq!(d.revert_lost(|_| true), [1, 2]);
        let mut out = Vec::new();
        d.read(1, 3, &mut out);
        let firsts: Vec<u8> = out.chunks(PAGE_BYTES).map(|c| c[0]).collect();
        assert_eq!(firsts, [1, 0, 5]);
        assert_eq!(d.tracked(), 0);
    }

    #[test]
    fn writing_zeros_without_a_buffer_is_writing_a_buffer_of_zeros() {
        let mut a = DataStore::default();
        a.write(1, &[page(1), page(2), page(3)].concat());
        let mut b = a.clone();
        let durable = |l| l != 2;
        a.write_tracked(1, &vec![0; 2 * PAGE_BYTES], durable);
        b.write_zeros_tracked(1, 2, durable);
        for d in [&mut a, &mut b] {
            assert_eq!((d.pages_held(), d.tracked()), (1, 2));
            assert_eq!(d.revert_lost(|_| true), [1, 2]);
        }
        let (mut out_a, mut out_b) = (Vec::new(), Vec::new());
        a.read(0, 4, &mut out_a);
        b.read(0, 4, &mut out_b);
        assert_eq!(out_a, out_b);
        assert_eq!(out_b[PAGE_BYTES], 1, "page 1 back to its durable version");
    }

    #[test]
    fn a_check_counts_what_a_read_counts_without_copying() {
        let mut s = DataStore::default();
        s.write(3, &[page(7), page(8)].concat());
        assert!(s.corrupt(4, 5));
        assert_eq!(s.check(2, 4), 1, "one stored page of four fails its CRC; the others pass or hold none");
        let mut out = Vec::new();
        assert_eq!(s.read(2, 4, &mut out), 1);
        assert_eq!(s.integrity_errors(), 2);
    }

    #[test]
    fn only_a_page_with_flipped_bits_fails_and_a_rewrite_or_a_revert_is_checked_as_it_is() {
        let mut d = DataStore::default();
        d.write(1, &[page(1), page(2)].concat());
        assert_eq!(d.check(0, 4), 0);
        assert!(d.corrupt(1, 3));
        assert_eq!(d.check(0, 4), 1);
        // the corrupted version is on flash; a new one is written over it: it passes
        d.write_tracked(1, &page(5), |_| true);
        assert_eq!(d.check(0, 4), 0);
        // power lost before the new one was programmed: back to the corrupted version, which fails
        assert_eq!(d.revert_lost(|_| true), [1]);
        assert_eq!(d.check(1, 1), 1);
        d.clear();
        d.write(1, &page(1));
        assert_eq!(d.check(0, 4), 0);
    }

    #[test]
    fn a_flipped_bit_fails_the_crc_and_is_counted() {
        let mut d = DataStore::default();
        d.write(7, &page(0xA5));
        assert!(d.corrupt(7, 12_345));
        assert!(!d.corrupt(8, 0), "nothing stored there");
        let mut out = Vec::new();
        assert_eq!(d.read(6, 3, &mut out), 1);
        assert_eq!(d.integrity_errors(), 1);
        assert_eq!(out[PAGE_BYTES + 12_345 / 8], 0xA5 ^ (1 << (12_345 % 8)), "returned as stored");
    }
}
