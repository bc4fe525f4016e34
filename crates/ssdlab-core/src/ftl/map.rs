//! The map table: logical-to-physical (LPN -> PPN and the size of each entry) and, per block, the
//! physical-to-logical record garbage collection walks.
//!
//! The L2P is kept in fixed-size chunks, allocated when an LPN in them is first written and shared between
//! clones of a drive until one of them writes there (copy on write). A fresh 1 TB drive thus costs the
//! chunk table (4 KB), and `Drive::clone()` of a preconditioned drive copies only the chunk pointers;
//! each side copies a chunk the first time it changes it.
//!
//! Entries are atomics written with relaxed stores, so a chunk known to be unshared is changed in place
//! through its `Arc` without `unsafe` and without the locked instruction `Arc::make_mut` costs on every
//! write (8-25% of a sequential fill's time).

use super::reverse_map::ReverseMap;
use super::Lpn;
use crate::nand::Ppn;
use std::fmt::Debug;
use std::sync::atomic::{fence, AtomicU32, AtomicU8, Ordering};
use std::sync::Arc;

/// Entries per chunk: 524288 LPNs (2 GiB of LBA span) take 2 MiB of map. The chunk table (8 bytes a chunk:
/// 4 KB for 1 TB) stays in cache beside random lookups; with 65536-LPN chunks (a 30 KB table) the engine
/// ran 2-4% slower (`make bench` scenarios, A/B 2026-11-29). A clone's first write into a chunk copies its
/// 2 MiB (256 KiB before); the suites that clone most ran as fast either way (`ssdlab validate bg4-1tb -f
/// anandtech -f fill`: 60 s).
const CHUNK_BITS: u32 = 19;
const CHUNK: usize = 1 << CHUNK_BITS;
const _: () = assert!(CHUNK == super::MAP_CHUNK_LPNS as usize);
/// How many entries ahead a scan over scattered LPNs (a GC victim's) prefetches their map entries: far
/// enough for host memory to answer, near enough to stay in cache. 48 against 16: the GC random-write bench
/// 2.8% faster (ratio 0.96-0.99 over three pairs, farm-bench, 2026-11-29); 128 was no better than 48.
pub(super) const MAP_PREFETCH_AHEAD: usize = 48;

/// A value kept in a chunk, as the atomic that holds it.
pub(super) trait Entry: Copy + Default {
    type Atomic: Debug + Send + Sync;
    fn atomic(self) -> Self::Atomic;
    fn load(a: &Self::Atomic) -> Self;
    fn store(a: &Self::Atomic, v: Self);
}

impl Entry for u32 {
    type Atomic = AtomicU32;
    fn atomic(self) -> AtomicU32 {
        AtomicU32::new(self)
    }
    #[inline]
    fn load(a: &AtomicU32) -> u32 {
        a.load(Ordering::Relaxed)
    }
    #[inline]
    fn store(a: &AtomicU32, v: u32) {
        a.store(v, Ordering::Relaxed);
    }
}

impl Entry for u8 {
    type Atomic = AtomicU8;
    fn atomic(self) -> AtomicU8 {
        AtomicU8::new(self)
    }
    #[inline]
    fn load(a: &AtomicU8) -> u8 {
        a.load(Ordering::Relaxed)
    }
    #[inline]
    fn store(a: &AtomicU8, v: u8) {
        a.store(v, Ordering::Relaxed);
    }
}

/// A vector of `len` values, default until written, stored as lazily allocated, copy-on-write chunks.
#[derive(Debug)]
pub(super) struct ChunkedVec<T: Entry> {
    chunks: Vec<Option<Arc<[T::Atomic; CHUNK]>>>,
    len: usize,
}

/// A clone shares every chunk (derived `Clone` would ask for `T::Atomic: Clone`).
impl<T: Entry> Clone for ChunkedVec<T> {
    fn clone(&self) -> Self {
        ChunkedVec { chunks: self.chunks.clone(), len: self.len }
    }
}

impl<T: Entry> ChunkedVec<T> {
    pub(super) fn new(len: usize) -> Self {
        ChunkedVec { chunks: vec![None; len.div_ceil(CHUNK)], len }
    }

    pub(super) fn len(&self) -> usize {
        self.len
    }

    #[inline]
    pub(super) fn get(&self, i: usize) -> T {
        match &self.chunks[i >> CHUNK_BITS] {
            Some(c) => T::load(&c[i & (CHUNK - 1)]),
            None => T::default(),
        }
    }

    /// Ask the CPU to bring the value at `i` into its cache (a hint: nothing changes, nothing is read).
    #[inline]
    pub(super) fn prefetch(&self, i: usize) {
        #[cfg(target_arch = "x86_64")]
        if let Some(Some(c)) = self.chunks.get(i >> CHUNK_BITS) {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: a prefetch is a hint that never faults or reads into the program, and SSE, which it
            // needs, is part of every x86_64 CPU.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(&c[i & (CHUNK - 1)]).cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }

    /// Set the value at `i` to `v`, returning the old one.
    #[inline]
    pub(super) fn replace(&mut self, i: usize, v: T) -> T {
        let a = &self.owned_chunk(i >> CHUNK_BITS)[i & (CHUNK - 1)];
        let old = T::load(a);
        T::store(a, v);
        old
    }

    #[inline]
    pub(super) fn set(&mut self, i: usize, v: T) {
        self.replace(i, v);
    }

    /// Chunk `c`, allocated if it was not and copied if a clone shares it, so that it can be written.
    #[inline]
    fn owned_chunk(&mut self, c: usize) -> &[T::Atomic; CHUNK] {
        // No other `Arc` of the chunk exists (the count is 1, and `&mut self` keeps anyone from cloning it
        // meanwhile): nobody else reads it. The fence orders the reads a clone made before dropping its
        // `Arc` (a release) before the writes that follow.
        if !matches!(&self.chunks[c], Some(a) if Arc::strong_count(a) == 1) {
            self.make_owned(c);
        }
        fence(Ordering::Acquire);
        self.chunks[c].as_deref().expect("made above")
    }

    #[cold]
    fn make_owned(&mut self, c: usize) {
        let copy: Arc<[T::Atomic]> = match &self.chunks[c] {
            Some(shared) => shared.iter().map(|a| T::load(a).atomic()).collect(),
            None => std::iter::repeat_n(T::default(), CHUNK).map(T::atomic).collect(),
        };
        // a fixed-size chunk: one pointer in the table, no bounds check on access
        self.chunks[c] = Some(copy.try_into().expect("CHUNK entries"));
    }

    /// Back to all default values, freeing every chunk.
    pub(super) fn clear(&mut self) {
        self.chunks.fill(None);
    }

    /// Bytes this vector holds on the heap: the chunk table and every chunk (a chunk shared with a clone
    /// is counted by each).
    pub(super) fn heap_bytes(&self) -> u64 {
        let table = self.chunks.capacity() * std::mem::size_of::<Option<Arc<[T::Atomic; CHUNK]>>>();
        let chunk = CHUNK * std::mem::size_of::<T::Atomic>();
        (table + self.allocated_chunks() * chunk) as u64
    }

    pub(super) fn allocated_chunks(&self) -> usize {
        self.chunks.iter().filter(|c| c.is_some()).count()
    }

    /// Chunks this vector and `other` hold in common (the same allocation).
    pub(super) fn shared_chunks(&self, other: &Self) -> usize {
        self.chunks
            .iter()
            .zip(&other.chunks)
            .filter(|(a, b)| matches!((a, b), (Some(a), Some(b)) if Arc::ptr_eq(a, b)))
            .count()
    }
}

/// LPN -> PPN, the slots each entry takes, and the per-block reverse map.
#[derive(Clone, Debug)]
pub(super) struct MapTable {
    /// LPN -> PPN + 1 (0 = unmapped).
    l2p: ChunkedVec<u32>,
    /// Slots each LPN's data takes, when data is compressed (None: one slot each).
    sizes: Option<ChunkedVec<u8>>,
    /// Per block, which LPN went where.
    reverse: Vec<ReverseMap>,
    /// LPNs that hold data.
    mapped: u64,
}

impl MapTable {
    /// A map of `user_lpns` LPNs over `blocks` blocks; `sized`: entries may take more than one slot.
    pub(super) fn new(user_lpns: usize, blocks: usize, sized: bool) -> Self {
        MapTable {
            l2p: ChunkedVec::new(user_lpns),
            sizes: sized.then(|| ChunkedVec::new(user_lpns)),
            reverse: vec![ReverseMap::default(); blocks],
            mapped: 0,
        }
    }

    pub(super) fn user_lpns(&self) -> u32 {
        self.l2p.len() as u32
    }

    pub(super) fn mapped(&self) -> u64 {
        self.mapped
    }

    #[inline]
    pub(super) fn lookup(&self, lpn: Lpn) -> Option<Ppn> {
        self.l2p.get(lpn as usize).checked_sub(1)
    }

    /// Fetch `lpn`'s entry into the CPU cache ahead of its lookup (host speed only; no model effect).
    #[inline]
    pub(super) fn prefetch(&self, lpn: Lpn) {
        self.l2p.prefetch(lpn as usize);
    }

    /// Whether `lpn` still maps to `ppn` (a GC entry not overwritten since).
    #[inline]
    pub(super) fn maps_to(&self, lpn: Lpn, ppn: Ppn) -> bool {
        self.l2p.get(lpn as usize) == ppn + 1
    }

    #[inline]
    pub(super) fn size_of(&self, lpn: Lpn) -> u32 {
        self.sizes.as_ref().map_or(1, |s| u32::from(s.get(lpn as usize)))
    }

    /// Point `lpn` at `k` slots from `ppn`, the next entry of `block`, which had `slots_before` slots
    /// written. Returns the old location and size, if `lpn` was mapped.
    #[inline]
    pub(super) fn assign(
        &mut self,
        lpn: Lpn,
        k: u32,
        ppn: Ppn,
        block: u32,
        slots_before: u32,
    ) -> Option<(Ppn, u32)> {
        let old = self.l2p.replace(lpn as usize, ppn + 1).checked_sub(1);
        let old_k = match &mut self.sizes {
            Some(s) => u32::from(s.replace(lpn as usize, k as u8)),
            None => 1,
        };
        self.reverse[block as usize].push(lpn, k as u8, slots_before);
        match old {
            Some(p) => Some((p, old_k)),
            None => {
                self.mapped += 1;
                None
            }
        }
    }

    /// Point the `n` LPNs from `lpn` at one slot each from `first` on, the next entries of `block`, which
    /// had `slots_before` slots written: [`MapTable::assign`] of each in turn. `invalidate` gets the old
    /// location and size of each LPN that was mapped.
    #[inline]
    pub(super) fn assign_run(
        &mut self,
        lpn: Lpn,
        n: u32,
        first: Ppn,
        block: u32,
        slots_before: u32,
        mut invalidate: impl FnMut(Ppn, u32),
    ) {
        for j in 0..n {
            let i = (lpn + j) as usize;
            let old = self.l2p.replace(i, first + j + 1).checked_sub(1);
            let old_k = match &mut self.sizes {
                Some(s) => u32::from(s.replace(i, 1)),
                None => 1,
            };
            match old {
                Some(p) => invalidate(p, old_k),
                None => self.mapped += 1,
            }
        }
        self.reverse[block as usize].push_run(lpn, n, 1, slots_before);
    }

    /// Leave the next `n` slots of `block` empty (a program unit flushed part-filled).
    pub(super) fn skip(&mut self, block: u32, n: u32) {
        self.reverse[block as usize].skip(n);
    }

    /// Unmap `lpn`; returns its old location and size, if it was mapped.
    pub(super) fn unmap(&mut self, lpn: Lpn) -> Option<(Ppn, u32)> {
        let old = self.lookup(lpn)?;
        let k = self.size_of(lpn);
        self.mapped -= 1;
        self.l2p.set(lpn as usize, 0);
        Some((old, k))
    }

    /// `block`'s reverse map.
    pub(super) fn reverse_of(&self, block: u32) -> &ReverseMap {
        &self.reverse[block as usize]
    }

    /// Take `block`'s reverse map, leaving it empty (the block is being collected or erased).
    pub(super) fn take_reverse(&mut self, block: u32) -> ReverseMap {
        std::mem::take(&mut self.reverse[block as usize])
    }

    /// Empty the whole map (sanitize).
    pub(super) fn clear(&mut self) {
        self.l2p.clear();
        if let Some(s) = &mut self.sizes {
            s.clear();
        }
        self.reverse.fill(ReverseMap::default());
        self.mapped = 0;
    }

    /// Every mapped LPN with its location, in LPN order.
    pub(super) fn for_each_mapped(&self, mut f: impl FnMut(Lpn, Ppn)) {
        for lpn in 0..self.user_lpns() {
            if let Some(ppn) = self.lookup(lpn) {
                f(lpn, ppn);
            }
        }
    }

    /// Bytes the map holds on the heap (L2P and size chunks, the chunk tables, the reverse maps).
    pub(super) fn heap_bytes(&self) -> u64 {
        let reverse = self.reverse.capacity() * std::mem::size_of::<ReverseMap>();
        let runs: usize = self.reverse.iter().map(ReverseMap::heap_bytes).sum();
        self.l2p.heap_bytes()
            + self.sizes.as_ref().map_or(0, ChunkedVec::heap_bytes)
            + (reverse + runs) as u64
    }

    /// L2P chunks allocated.
    pub(super) fn chunks(&self) -> usize {
        self.l2p.allocated_chunks()
    }

    /// L2P chunks that are the same allocation in `other`.
    pub(super) fn shared_chunks(&self, other: &MapTable) -> usize {
        self.l2p.shared_chunks(&other.l2p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_allocated_on_first_write_and_shared_by_clones_until_written() {
        let n = 10 * CHUNK + 7;
        let mut v = ChunkedVec::<u32>::new(n);
        assert_eq!((v.allocated_chunks(), v.get(n - 1)), (0, 0));
        v.set(3, 9);
        v.set(CHUNK + 1, 5);
        assert_eq!((v.get(3), v.get(CHUNK + 1), v.get(4)), (9, 5, 0));
        assert_eq!(v.allocated_chunks(), 2);
        let mut w = v.clone();
        assert_eq!(v.shared_chunks(&w), 2);
        // the clone's write copies the one chunk it changes; the original keeps its value
        w.set(4, 1);
        assert_eq!((v.get(4), w.get(4), w.get(3)), (0, 1, 9));
        assert_eq!(v.shared_chunks(&w), 1);
        w.clear();
        assert_eq!((w.allocated_chunks(), w.get(3), v.get(3)), (0, 0, 9));
    }
}
