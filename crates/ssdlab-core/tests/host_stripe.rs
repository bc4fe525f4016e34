//! Host striping (`ftl.host_stripe`): consecutive host data takes a page index (every plane) a die in
//! turn (`page`), or a whole program unit (`unit`); a one-shot TLC unit is programmed once its last page
//! is in either way.

use crate::common::*;
use ssdlab_core::Counter as C;
use ssdlab_core::{Drive, Rw, Workload};

/// bg4-128gb without its SLC cache (host data straight to TLC), scaled to 8 GB (60 blocks a plane),
/// striping `stripe`.
fn direct_tlc(stripe: &str) -> Drive {
    drive(
        "bg4-128gb",
        &[
            ("ftl.host_stripe", stripe),
            ("ftl.slc_cache.enabled", "false"),
            ("ftl.user_capacity_gb", "8"),
            ("nand.blocks_per_plane", "60"),
        ],
    )
}

/// The die each of the first `n` LPNs was written to.
fn dies_of(d: &Drive, n: u32) -> Vec<u32> {
    let ftl = &d.controller().ftl;
    let geo = d.controller().nand.geo;
    (0..n).map(|lpn| geo.die_of_block(geo.block_of(ftl.lookup(lpn).expect("written")))).collect()
}

#[test]
fn consecutive_host_data_takes_a_page_index_or_a_unit_a_die_in_turn() {
    for (stripe, run) in [("page", 8), ("unit", 24)] {
        let mut d = direct_tlc(stripe);
        let geo = d.controller().nand.geo;
        // 2 planes x 16 KiB pages: a page index is 8 LPNs, a one-shot TLC unit 24
        assert_eq!(geo.planes * geo.slots_per_page * 3, 24);
        fill(&mut d, 1 << 20);
        let dies = dies_of(&d, 256);
        for (i, chunk) in dies.chunks(run).enumerate() {
            assert!(chunk.iter().all(|&x| x == chunk[0]), "{stripe}: LPNs {} on one die: {chunk:?}", i * run);
            assert_eq!(chunk[0], i as u32 % geo.dies, "{stripe}: the dies in turn");
        }
    }
}

#[test]
fn a_unit_is_programmed_once_its_last_page_is_in() {
    // Four dies, 8 LPNs a turn: die 0 holds LPNs 0-7, 32-39 and 64-71 of its first unit, so the first 71
    // LPNs program nothing and the 72nd programs die 0's unit (three pages on each of two planes).
    let mut d = direct_tlc("page");
    let w = |from: u64, n: u64| Workload {
        rw: Rw::Write,
        bs: 4096,
        iodepth: 1,
        offset: from * 4096,
        size: n * 4096,
        ..Workload::default()
    };
    let r = run(&mut d, w(0, 71));
    assert_eq!(r.counters[C::nand_pages_programmed], 0.0);
    let r = run(&mut d, w(71, 1));
    assert_eq!(r.counters[C::nand_pages_programmed], 6.0);
}

#[test]
fn direct_tlc_data_reads_at_qd1_like_cached_data_when_striped_by_page() {
    let mbps = |stripe: &str| {
        let mut d = direct_tlc(stripe);
        fill(&mut d, 1 << 30);
        let r = run(
            &mut d,
            Workload { rw: Rw::Read, bs: 128 << 10, iodepth: 1, size: 1 << 30, ..Workload::default() },
        );
        r.bandwidth_mbps()
    };
    let (unit, page) = (mbps("unit"), mbps("page"));
    // a 128 KiB read: three page indexes sensed in turn on one die, or one on each of four dies
    assert!(page > 1.8 * unit, "QD1 128 KiB reads: by unit {unit:.0} MB/s, by page {page:.0}");
}
