//! SandForce-style compression on the V300 presets, and what the NAND bus mode and cache operations do.

use crate::common::*;
use ssdlab_core::engine::transfer_ns;
use ssdlab_core::Counter as C;
use ssdlab_core::{Drive, RunResult, Rw, Workload};

/// The V300 with 16 GB of its NAND (256 blocks per plane), so fills and overwrites are quick.
fn v300(variant: &str, extra: &[(&str, &str)]) -> Drive {
    let mut o = vec![("nand.blocks_per_plane", "256"), ("ftl.user_capacity_gb", "14")];
    o.extend_from_slice(extra);
    drive(&format!("v300{variant}-120gb"), &o)
}

fn seq_write(d: &mut Drive, bytes: u64, pct: u32) -> RunResult {
    let w = Workload {
        rw: Rw::Write,
        bs: 128 << 10,
        iodepth: 32,
        size: bytes,
        buffer_compress_percentage: pct,
        ..Workload::default()
    };
    run(d, w)
}

/// Fill `d`, write 4 KiB at random at QD32 for `warm_s` seconds, then measure `secs` more.
fn steady_random_writes(d: &mut Drive, warm_s: u64, secs: u64) -> RunResult {
    let cap = d.capacity_bytes();
    fill(d, cap);
    let w = |secs: u64| Workload {
        rw: Rw::RandWrite,
        iodepth: 32,
        runtime_ns: secs * SEC,
        time_based: true,
        ..Workload::default()
    };
    run(d, w(warm_s));
    run(d, w(secs))
}

/// 256-byte slots one 4 KiB page of data `pct` percent compressible takes (ratio from the preset).
fn slots(pct: u32) -> f64 {
    let ratio = (1.0 - f64::from(pct) / 100.0).max(0.14) * 1.05;
    (4096.0 * ratio / 256.0).ceil()
}

#[test]
fn flash_bytes_per_host_byte_follow_the_compression_ratio() {
    for pct in [0, 46, 100] {
        let mut d = v300("s", &[]);
        let r = seq_write(&mut d, 1 << 30, pct);
        let per_host_byte = r.counters[C::flash_bytes_written] / r.counters[C::host_write_bytes];
        assert_eq!(per_host_byte, slots(pct) * 256.0 / 4096.0, "{pct}% compressible");
        assert!((r.counters[C::waf] - per_host_byte).abs() < 1e-3, "no GC on an empty drive: WAF = ratio");
    }
}

#[test]
fn compressible_data_writes_faster_and_incompressible_is_the_worst_case() {
    let mbps = |pct| seq_write(&mut v300("a", &[]), 4 << 30, pct).bandwidth_mbps();
    let (none, real_world, zeros) = (mbps(0), mbps(46), mbps(100));
    // The V300A's Micron dies are program-bound (16 x 16 KiB per 1.3 ms ~ 200 MB/s, under its 400 MB/s of
    // async bus): throughput scales with host bytes per flash byte.
    assert!(
        (real_world / none / (slots(0) / slots(46)) - 1.0).abs() < 0.03,
        "{none:.0} vs {real_world:.0} MB/s"
    );
    assert!(none < real_world && real_world < zeros);
}

#[test]
fn the_compression_engine_caps_throughput() {
    let r = seq_write(&mut v300("s", &[("controller.compression.engine_mbps", "100")]), 1 << 30, 100);
    assert!((r.bandwidth_mbps() / 100.0 - 1.0).abs() < 0.02, "{:.1} MB/s", r.bandwidth_mbps());
}

#[test]
fn compressible_data_lowers_write_amplification_under_gc() {
    let waf = |pct: u32| {
        let mut d = v300("s", &[]);
        let cap = d.capacity_bytes();
        seq_write(&mut d, cap, pct);
        let w = Workload {
            rw: Rw::RandWrite,
            iodepth: 32,
            io_size: 2 * cap,
            buffer_compress_percentage: pct,
            ..Workload::default()
        };
        run(&mut d, w).counters[C::waf]
    };
    let (incompressible, compressible) = (waf(0), waf(75));
    assert!(incompressible > 1.5, "GC is running: {incompressible}");
    // fewer flash bytes per host byte, and the space saved acts as over-provisioning
    assert!(compressible < 0.5 * incompressible, "{compressible:.2} vs {incompressible:.2}");
}

#[test]
fn async_channels_add_the_bus_time_of_a_4k_read_and_cap_sequential_reads() {
    let read = |variant: &str, pct, rw, bs, qd| {
        let mut d = v300(variant, &[]);
        seq_write(&mut d, 2 << 30, pct);
        d.idle(10 * SEC);
        run(
            &mut d,
            Workload {
                rw,
                bs,
                iodepth: qd,
                size: 2 << 30,
                runtime_ns: SEC,
                time_based: true,
                ..Workload::default()
            },
        )
    };
    // A QD1 4 KiB read moves the entry as stored: 17 slots of 256 bytes for incompressible data, 3 for
    // data written 100% compressible. The async bus adds that transfer's time at 50 MT/s less at 200 MT/s,
    // so QD1 reads of highly compressible data are about equal (the V300 review's finding) and of
    // incompressible data ~30% slower.
    let bus = |pct: u32, mts: u64| transfer_ns((slots(pct) * 256.0) as u64, mts * 1_000_000) as f64;
    for (pct, ratio) in [(0, (0.65, 0.75)), (100, (0.9, 1.0))] {
        let (sync, asyn) = (read("s", pct, Rw::RandRead, 4096, 1), read("a", pct, Rw::RandRead, 4096, 1));
        let extra = asyn.latency().mean_ns() - sync.latency().mean_ns();
        assert!((extra - (bus(pct, 50) - bus(pct, 200))).abs() < 1_000.0, "{pct}%: async adds {extra:.0} ns");
        let a_over_s = asyn.iops() / sync.iops();
        assert!(a_over_s > ratio.0 && a_over_s < ratio.1, "{pct}% compressible: A/S {a_over_s:.2}");
    }
    let asyn = read("a", 0, Rw::Read, 128 << 10, 32);
    let channels = 8.0 * 50e6 / 1e6 * 4096.0 / (17.0 * 256.0);
    assert!(
        (asyn.bandwidth_mbps() / channels - 1.0).abs() < 0.03,
        "{:.0} MB/s vs bus-bound {channels:.0}",
        asyn.bandwidth_mbps()
    );
}

#[test]
fn async_channels_cap_writes_once_the_dies_program_faster_than_the_bus() {
    // With the preset's 1.3 ms tPROG, 16 dies program ~200 MB/s and the 400 MB/s async bus keeps up;
    // with 400 us the dies could take 650 MB/s and the 50 MT/s channels become the limit.
    let fast = [("nand.tPROG_us", "400")];
    let sync = seq_write(&mut v300("s", &fast), 4 << 30, 0).bandwidth_mbps();
    let asyn = seq_write(&mut v300("a", &fast), 4 << 30, 0).bandwidth_mbps();
    let bus_bound = 8.0 * 50.0 * 4096.0 / (17.0 * 256.0);
    assert!((asyn / bus_bound - 1.0).abs() < 0.05, "async {asyn:.0} MB/s, bus-bound {bus_bound:.0}");
    assert!(asyn < 0.7 * sync, "async {asyn:.0} vs sync {sync:.0} MB/s");
}

#[test]
fn without_cache_program_the_data_in_no_longer_overlaps_the_program() {
    // async V300A: 16 KiB program units take 328 us on the 50 MT/s bus and 1300 us to program
    let with = seq_write(&mut v300("a", &[]), 2 << 30, 0).bandwidth_mbps();
    let without = seq_write(&mut v300("a", &[("nand.cache_program", "false")]), 2 << 30, 0).bandwidth_mbps();
    let (bus, prog) = (transfer_ns(16384, 50_000_000) as f64, 1_300_500.0);
    let want = prog / (prog + bus);
    assert!((without / with / want - 1.0).abs() < 0.03, "{without:.0} vs {with:.0} MB/s, want x{want:.3}");
}

#[test]
fn without_cache_read_the_die_holds_its_data_until_it_is_out() {
    // die-bound random reads (QD1024 over 16 dies of generic-tlc-dram): each read keeps its die for
    // tR, or for tR + the 4 KiB data-out at 533 MT/s
    let iops = |cache_read: &str| {
        let o = [
            ("nand.cache_read", cache_read),
            ("ftl.user_capacity_gb", "16"),
            ("ftl.slc_cache.enabled", "false"),
        ];
        let mut d = drive("generic-tlc-dram", &o);
        fill(&mut d, 2 << 30);
        d.idle(10 * SEC);
        let w = Workload {
            rw: Rw::RandRead,
            iodepth: 1024,
            size: 2 << 30,
            runtime_ns: SEC / 2,
            time_based: true,
            ..Workload::default()
        };
        run(&mut d, w).iops()
    };
    let tr = 70_000.0 + 300.0;
    let want = tr / (tr + transfer_ns(4096, 533_000_000) as f64);
    let got = iops("false") / iops("true");
    assert!((got / want - 1.0).abs() < 0.03, "x{got:.3}, want x{want:.3}");
}

#[test]
fn a_compressed_fill_books_no_more_flash_work_than_the_write_buffer_holds() {
    // A 4 KiB entry is 17 slots, so the last unit of each block goes out part-empty and padded: the
    // buffer must free only the data it held, or its count drifts and writes are acknowledged ever
    // further ahead of the flash (half a second after a 120 GB fill, before this was right).
    let mut d = v300("a", &[]);
    seq_write(&mut d, 4 << 30, 0);
    let ahead = d.controller().nand.idle_at() - d.now_ns();
    // 1 MiB of buffer = 64 units of 16 KiB over 16 dies: 4 programs queued per die, one more starting
    let program = 1_300_500 + transfer_ns(16384, 50_000_000);
    assert!(ahead <= 5 * program, "flash booked {} ms past the last acknowledgement", ahead / 1_000_000);
}

#[test]
fn paced_gc_keeps_steady_random_writes_within_the_write_buffer_drain_time() {
    // Compressed entries spill over program units, so a die's unit is rarely empty when the next one
    // starts: GC must pace by units programmed, or it falls behind and moves whole victims at once
    // (hundreds of ms per die, seconds of write latency).
    let r = steady_random_writes(&mut v300("a", &[]), 30, 10);
    assert!(r.counters[C::waf] > 2.5, "in GC steady state (WAF {:.1})", r.counters[C::waf]);
    let drain_ns = (1u64 << 20) as f64 / (r.bandwidth_mbps() * 1e6) * 1e9;
    let max = r.latency().max_ns() as f64;
    assert!(
        max < 4.0 * drain_ns,
        "max write latency {:.0} ms, buffer drains in {:.0} ms",
        max / 1e6,
        drain_ns / 1e6
    );
}

#[test]
fn fresh_the_toshiba_dies_write_twice_as_fast_and_in_gc_steady_state_the_async_bus_holds_the_a_back() {
    // Fresh, each V300 is program-bound: the A's Micron dies at 16 x 16 KiB per 1.3 ms ~ 200 MB/s (its
    // async channels carry 400), the S's Toshiba dies twice that (16 KiB per 650 us, just under its 800 MB/s
    // of Toggle bus). Under GC each host unit brings WAF - 1 units read out and programmed back in, so the
    // bus carries ~2 WAF units per host unit and the A's 50 MT/s channels hold it further back.
    let steady = |variant: &str| {
        let mut d = v300(variant, &[]);
        let fresh = seq_write(&mut d, 2 << 30, 0).bandwidth_mbps();
        let r = steady_random_writes(&mut d, 60, 20);
        (fresh, r.bandwidth_mbps(), r.counters[C::waf])
    };
    let (s, a) = (steady("s"), steady("a"));
    assert!((a.0 / s.0 - 0.5).abs() < 0.03, "fresh: async {:.0} vs sync {:.0} MB/s", a.0, s.0);
    assert!(a.2 > 2.5 && s.2 > 2.5, "in GC steady state (WAF {:.1} / {:.1})", a.2, s.2);
    assert!(a.1 < 0.9 * s.1, "steady: async {:.1} vs sync {:.1} MB/s", a.1, s.1);
}
