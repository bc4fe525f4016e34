//! Memory in proportion to what has been written: a fresh 1 TB drive and a clone of it each cost at
//! most 100 MB, and clones share the map chunks neither has changed.
//!
//! Bytes are counted by this test binary's allocator (every allocation the drive makes, touched or not),
//! so the file holds a single test: nothing else allocates while it measures.

mod common;

use common::*;
use ssdlab_core::ftl::MAP_CHUNK_LPNS;
use ssdlab_core::{Drive, Rw, Workload};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The system allocator, keeping count of the bytes allocated and not yet freed.
struct Counting;

static ALLOCATED: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged; only the byte count is added.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        ALLOCATED.fetch_add(layout.size(), Ordering::Relaxed);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        ALLOCATED.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATED.fetch_add(new_size, Ordering::Relaxed);
        ALLOCATED.fetch_sub(layout.size(), Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const MB: usize = 1_000_000;

/// Bytes allocated by `f`, and what it returned.
fn cost<T>(f: impl FnOnce() -> T) -> (usize, T) {
    let before = ALLOCATED.load(Ordering::Relaxed);
    let t = f();
    (ALLOCATED.load(Ordering::Relaxed).saturating_sub(before), t)
}

fn write_4k(d: &mut Drive, offset: u64) {
    run(d, Workload { rw: Rw::Write, bs: 4096, iodepth: 1, offset, size: 4096, ..Workload::default() });
}

#[test]
fn fresh_drives_and_clones_cost_memory_in_proportion_to_what_is_written() {
    // A fresh 1 TB drive: 250 M LPNs, whose full map would be 1 GB.
    let (fresh, mut d) = cost(|| drive("bg4-1tb", &[]));
    assert!(d.controller().ftl.user_lpns() > 240_000_000);
    // (the per-block records alone take over 1 MB: the count sees the drive's allocations)
    assert!(fresh > MB && fresh <= 100 * MB, "a fresh bg4-1tb allocates {} MB", fresh / MB);
    assert_eq!(d.controller().ftl.heap_bytes().map_chunks, 0);
    let (cloned, c) = cost(|| d.clone());
    assert!(cloned <= 100 * MB, "a clone of a fresh bg4-1tb allocates {} MB", cloned / MB);
    drop(c);
    eprintln!(
        "fresh bg4-1tb: {:.1} MB allocated, its clone {:.1} MB",
        fresh as f64 / 1e6,
        cloned as f64 / 1e6
    );

    // 4 GiB written: its map chunks exist once, shared by a clone.
    fill(&mut d, 4 << 30);
    let ftl = &d.controller().ftl;
    let chunks = ftl.heap_bytes().map_chunks;
    assert_eq!(chunks, ((4u64 << 30) / 4096 / u64::from(MAP_CHUNK_LPNS)) as usize);
    assert!(chunks >= 2);
    let (cloned, mut c) = cost(|| d.clone());
    assert!(cloned <= 100 * MB, "a clone of a 4 GiB-written bg4-1tb allocates {} MB", cloned / MB);
    assert_eq!(c.controller().ftl.map_chunks_shared_with(&d.controller().ftl), chunks);
    eprintln!("clone of bg4-1tb with 4 GiB written: {:.1} MB allocated", cloned as f64 / 1e6);

    // The clone's write copies the one chunk it changes; the original still maps the old place.
    let was = d.controller().ftl.lookup(0);
    write_4k(&mut c, 0);
    assert_ne!(c.controller().ftl.lookup(0), was);
    assert_eq!(d.controller().ftl.lookup(0), was);
    assert_eq!(c.controller().ftl.map_chunks_shared_with(&d.controller().ftl), chunks - 1);
}
