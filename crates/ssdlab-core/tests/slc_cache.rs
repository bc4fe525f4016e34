//! The dynamic SLC cache: how much a fill from empty writes in SLC mode, how fast, how folding restores it.

use crate::common::*;
use ssdlab_core::engine::us_to_ns;
use ssdlab_core::Counter as C;
use ssdlab_core::{Command, Drive, Op, Rw, Workload};

/// bg4-1tb's NAND and firmware scaled to 16 GB (40 blocks per plane instead of 1820).
fn small(extra: &[(&str, &str)]) -> Drive {
    let mut o = vec![("ftl.user_capacity_gb", "16"), ("nand.blocks_per_plane", "40")];
    o.extend_from_slice(extra);
    drive("bg4-1tb", &o)
}

const NO_IDLE_FOLD: (&str, &str) = ("ftl.slc_cache.idle_fold", "false");

fn seq_write(d: &mut Drive, offset: u64, bytes: u64) -> ssdlab_core::RunResult {
    run(d, Workload { rw: Rw::Write, bs: 128 << 10, iodepth: 32, offset, size: bytes, ..Workload::default() })
}

#[test]
fn a_fill_from_empty_writes_exactly_the_cache_budget_in_slc_mode() {
    let mut d = small(&[NO_IDLE_FOLD]);
    let cfg = d.config().clone();
    let cap = d.capacity_bytes() as f64;
    let r = seq_write(&mut d, 0, cap as u64);
    // Budget while filling from empty: S + min(f * (U - m) / bits, B * U); SLC writes stop when m reaches
    // it: at S + B * U while the bound holds there, else where the free-space term meets m.
    let c = &cfg.ftl.slc_cache;
    let (s, f, bound) = (c.static_gb * 1e9, c.dynamic_fraction, c.dynamic_max_pct / 100.0 * cap);
    let at_bound = s + bound;
    let want =
        if f * (cap - at_bound) / 3.0 >= bound { at_bound } else { (s + f * cap / 3.0) / (1.0 + f / 3.0) };
    let unit = 2.0 * 16384.0; // one SLC program unit: 2 planes x one 16 KiB page
    let got = r.counters[C::slc_bytes_written];
    assert!((got - want).abs() <= 2.0 * unit, "SLC bytes {got}, budget {want}");
    // At the end only the static part is left, and it holds no more than that.
    let left = r.counters[C::slc_cache_size_bytes] - s;
    assert!((0.0..1e6).contains(&left), "static part only (the fill leaves < 128 KiB unwritten): {left}");
    // Everything written in SLC mode is still there or was folded (as free blocks ran low near the end).
    assert_eq!(r.counters[C::slc_cache_used_bytes] + r.counters[C::folded_bytes], got);
}

#[test]
fn an_absolute_bound_caps_the_dynamic_part_below_the_capacity_share() {
    // 16 GB; static 0.5 GB, bounded at 10% of capacity (1.6 GB) and at 1 GB: the smaller bound rules.
    let mut d = small(&[
        NO_IDLE_FOLD,
        ("ftl.slc_cache.static_gb", "0.5"),
        ("ftl.slc_cache.dynamic_fraction", "1.0"),
        ("ftl.slc_cache.dynamic_max_pct", "10"),
        ("ftl.slc_cache.dynamic_max_gb", "1.0"),
    ]);
    let r = seq_write(&mut d, 0, 4 << 30);
    let size = r.counters[C::slc_cache_size_bytes];
    assert!((size - 1.5e9).abs() <= 2.0 * 4096.0, "capped at 0.5 + 1 GB: {size}");
    assert!((r.counters[C::slc_bytes_written] - 1.5e9).abs() <= 2.0 * 32768.0);
}

/// 16 GB; static 0.5 GB, all free capacity / 3, bounded at 10% of capacity (1.6 GB), free space counted up
/// to `until` full.
fn bounded(until: &str) -> Drive {
    small(&[
        NO_IDLE_FOLD,
        ("ftl.slc_cache.static_gb", "0.5"),
        ("ftl.slc_cache.dynamic_fraction", "1.0"),
        ("ftl.slc_cache.dynamic_max_pct", "10"),
        ("ftl.slc_cache.dynamic_until_fill", until),
    ])
}

#[test]
fn the_dynamic_part_stops_at_its_bound_and_follows_free_space_below_it() {
    let mut d = bounded("1.0");
    let cap = d.capacity_bytes() as f64;
    let slot = 4096.0;
    // 4 GiB written: free / 3 = 3.9 GB, above the bound, so the cache is 0.5 + 1.6 GB.
    let r = seq_write(&mut d, 0, 4 << 30);
    let want = 0.5e9 + 0.1 * cap;
    let size = r.counters[C::slc_cache_size_bytes];
    assert!((size - want).abs() <= 2.0 * slot, "bounded: {size} vs {want}");
    // ... of which 2.1 GB went in SLC mode: the cache filled at its size, then host data went to TLC.
    assert!((r.counters[C::slc_bytes_written] - want).abs() <= 2.0 * 32768.0);
    // 12 GiB written: free / 3 = 1.04 GB, below the bound: the cache follows free space.
    let r = seq_write(&mut d, 4 << 30, 8 << 30);
    let want = 0.5e9 + (cap - (12u64 << 30) as f64) / 3.0;
    let size = r.counters[C::slc_cache_size_bytes];
    assert!((size - want).abs() <= 2.0 * slot, "free-space bound: {size} vs {want}");
}

#[test]
fn past_its_floor_the_cache_lends_only_its_static_part() {
    // As above, with the dynamic part counting free space up to 75% full only: 16 GB x 0.75 = 12 GB.
    let mut d = bounded("0.75");
    let cap = d.capacity_bytes() as f64;
    let slot = 4096.0;
    // 8 GiB written: (0.75 x 16 GB - 8 GiB) / 3 = 1.14 GB, below the 1.6 GB bound.
    let r = seq_write(&mut d, 0, 8 << 30);
    let want = 0.5e9 + (0.75 * cap - (8u64 << 30) as f64) / 3.0;
    let size = r.counters[C::slc_cache_size_bytes];
    assert!((size - want).abs() <= 2.0 * slot, "free space to the floor: {size} vs {want}");
    // 12.5 GiB written, past 75%: the static part alone.
    let r = seq_write(&mut d, 8 << 30, 9 << 29);
    let size = r.counters[C::slc_cache_size_bytes];
    assert!((size - 0.5e9).abs() <= 2.0 * slot, "static only: {size}");
}

#[test]
fn writes_run_at_slc_program_speed_then_at_tlc_speed() {
    // a write buffer deep enough for 16 dies x one 96 KiB TLC unit each, so the dies set the pace
    let mut d = small(&[NO_IDLE_FOLD, ("controller.write_buffer_kib", "4096")]);
    let n = d.config().nand.clone();
    let w = |bytes| Workload {
        rw: Rw::Write,
        bs: 128 << 10,
        iodepth: 32,
        size: bytes,
        interval_ns: SEC / 10,
        ..Workload::default()
    };
    let cap = d.capacity_bytes();
    let r = run(&mut d, w(cap));
    let dies = f64::from(n.channels * n.dies_per_channel);
    let plane_bytes = f64::from(n.planes_per_die * n.page_size_kib * 1024);
    let slc = dies * plane_bytes / (us_to_ns(n.slc_tPROG_us) + n.command_overhead_ns) as f64 * 1e3;
    let tlc = dies * 3.0 * plane_bytes / (us_to_ns(n.tPROG_us[0]) + n.command_overhead_ns) as f64 * 1e3;
    let series = r.stats.series.columns();
    let mbps = &series.iter().find(|(k, _)| *k == "write_mbps").unwrap().1;
    let first = mbps[1]; // interval 0 includes the ramp into a full pipeline
    assert!((first / slc - 1.0).abs() < 0.03, "SLC phase {first:.0} MB/s, program-bound {slc:.0}");
    // halfway: past the cache, before the drive is full enough for GC to fold what is in SLC
    let middle = mbps[mbps.len() / 2];
    assert!((middle / tlc - 1.0).abs() < 0.05, "post-cache {middle:.0} MB/s, TLC program-bound {tlc:.0}");
}

#[test]
fn idle_folding_empties_the_cache_at_the_tlc_program_rate() {
    // A fast bus and no LDPC decoder limit (fold reads are decoded), so that folding is bound by the dies alone.
    let mut d = small(&[
        ("nand.bus_mts", "3200"),
        ("controller.map_cache.location", "dram"),
        ("controller.data_path.ldpc_mbps", "0"),
        ("controller.data_path.ldpc_native_mbps", "0"),
    ]);
    let burst = 1u64 << 30;
    seq_write(&mut d, 0, burst);
    let used = d.counters()[C::slc_cache_used_bytes];
    assert_eq!(used, burst as f64, "the whole burst is in SLC");
    let idle_from = d.now_ns() + us_to_ns(d.config().ftl.idle_after_ms * 1e3);
    d.idle(10 * SEC);
    let c = d.counters();
    assert_eq!(c[C::slc_cache_used_bytes], 0.0);
    // Die time per folded TLC program unit: SLC reads of its pages, the one-shot program, a share of the erase.
    let n = d.config().nand.clone();
    let t = |us: f64| (us_to_ns(us) + n.command_overhead_ns) as f64;
    let unit_slots = 3.0 * 2.0 * 4.0;
    let reads_per_unit = unit_slots / 8.0;
    let units_per_slc_block = f64::from(n.pages_per_block / 3 * 2 * 4) / unit_slots;
    let per_unit =
        t(n.tPROG_us[0]) + reads_per_unit * t(n.slc_tR_us) + t(n.tBERS_ms * 1e3) / units_per_slc_block;
    let dies = f64::from(n.channels * n.dies_per_channel);
    let want_s = c[C::folded_bytes] / (unit_slots * 4096.0) * per_unit / dies / 1e9;
    let got_s = (d.controller().nand.idle_at() - idle_from) as f64 / 1e9;
    assert!((got_s / want_s - 1.0).abs() < 0.05, "folding took {got_s:.3} s, program-bound {want_s:.3} s");
    // The cache is back: the next burst runs at SLC speed again.
    let again = seq_write(&mut d, burst, burst);
    assert_eq!(again.counters[C::slc_bytes_written], burst as f64);
}

#[test]
fn a_read_during_idle_folding_waits_for_one_nand_operation_not_a_whole_block() {
    let mut d = small(&[("controller.map_cache.location", "dram")]);
    let burst = 1u64 << 30;
    seq_write(&mut d, 0, burst);
    // Idle long enough for folding to be well under way, then read one page folding has not reached.
    d.idle(us_to_ns(d.config().ftl.idle_after_ms * 1e3) + SEC / 10);
    let folding = d.counters()[C::folded_bytes];
    assert!(folding > 0.0 && folding < burst as f64, "folding under way: {folding}");
    d.submit(Command::new(Op::Read, burst - 4096, 4096)).unwrap();
    d.advance_to_next_completion();
    let c = d.poll().unwrap();
    // Behind at most one fold piece on the die (SLC reads + one TLC program), then its own read.
    let n = d.config().nand.clone();
    let bound = us_to_ns(n.tPROG_us[0] + 4.0 * n.slc_tR_us + n.tBERS_ms * 1e3) + us_to_ns(200.0);
    assert!(c.complete_ns - c.submit_ns < bound, "{} ns, bound {bound} ns", c.complete_ns - c.submit_ns);
}

#[test]
fn on_a_full_drive_idle_work_ends_with_the_idle_time() {
    // bg4-128gb filled to the last page: a die with no free block to fold into has nothing to do while others
    // have SLC data to fold. Idle work goes only to dies not yet busy past the idle time, so when the idle
    // second ends the dies are done within one fold piece (SLC reads, a TLC program, an erase), not after all
    // the folding there is (17.8 s past it when any die could be given work).
    let mut d = drive("bg4-128gb", &[]);
    let cap = d.capacity_bytes();
    seq_write(&mut d, 0, cap);
    let before = d.counters()[C::folded_bytes];
    d.idle(SEC);
    assert!(d.counters()[C::folded_bytes] > before, "the idle time folded");
    let n = d.config().nand.clone();
    let piece = us_to_ns(n.tPROG_us[0] + 4.0 * n.slc_tR_us + n.tBERS_ms * 1e3) + us_to_ns(200.0);
    let busy_past = d.controller().nand.idle_at().saturating_sub(d.now_ns());
    assert!(
        busy_past < piece,
        "the dies are busy {busy_past} ns past the idle time, one piece is {piece} ns"
    );
}

#[test]
fn without_a_cache_everything_goes_straight_to_tlc() {
    // map journal off: map checkpoints are SLC-mode programs too, and host data is what this is about
    let mut d = small(&[("ftl.slc_cache.enabled", "false"), ("controller.map_cache.journal", "false")]);
    let r = seq_write(&mut d, 0, 2 << 30);
    assert_eq!(r.counters[C::slc_bytes_written], 0.0);
    assert_eq!(r.counters[C::nand_slc_pages_programmed], 0.0);
    assert_eq!(r.counters[C::folded_bytes], 0.0);
}

#[test]
fn post_cache_fold_keeps_writing_through_slc() {
    let mut d = small(&[NO_IDLE_FOLD, ("ftl.slc_cache.post_cache", "fold")]);
    let direct = seq_write(&mut small(&[NO_IDLE_FOLD]), 0, 12 << 30);
    let fold = seq_write(&mut d, 0, 12 << 30);
    // every host byte lands in SLC first: the folds, a whole block at a time wherever the cache's
    // emptiest block lies, keep every die above its GC threshold (under GC pressure, with the cache full,
    // host data would bypass it: writing it twice would deepen the deficit)
    let in_slc = fold.counters[C::slc_bytes_written] / (12u64 << 30) as f64;
    assert_eq!(in_slc, 1.0, "{in_slc} of the host bytes went through SLC");
    assert!(fold.counters[C::folded_bytes] > 0.0);
    assert!(fold.bandwidth_mbps() < direct.bandwidth_mbps(), "writing while folding is the slowest regime");
}

/// bc501a-128gb scaled to 20 GB (200 blocks per plane instead of 1214), a fast bus so that the dies set
/// every pace, a 0.5 GB static cache (the spare area of the small drive holds little more), and a write
/// buffer of 1.5 MiB, small enough that every die waits while one folds a whole SLC block.
fn small_bc501a() -> Drive {
    drive(
        "bc501a-128gb",
        &[
            ("ftl.user_capacity_gb", "20"),
            ("nand.blocks_per_plane", "200"),
            ("ftl.slc_cache.static_gb", "0.5"),
            ("nand.bus_mts", "3200"),
            ("controller.write_buffer_kib", "1536"),
            (NO_IDLE_FOLD.0, NO_IDLE_FOLD.1),
        ],
    )
}

#[test]
fn fill_dependent_fold_policy_gives_four_levels_each_at_its_program_bound() {
    let mut d = small_bc501a();
    let cfg = d.config().clone();
    let (n, s) = (&cfg.nand, &cfg.ftl.slc_cache);
    let cap = d.capacity_bytes();
    let dies = f64::from(n.channels * n.dies_per_channel);
    let plane_bytes = f64::from(n.planes_per_die * n.page_size_kib * 1024);
    // one array operation, in seconds
    let op = |us: f64| (us_to_ns(us) + n.command_overhead_ns) as f64 / 1e9;
    // per die: an SLC unit is one page per plane, a TLC unit three; bytes per second over all dies
    let slc = dies * plane_bytes / op(n.slc_tPROG_us);
    let tlc = dies * 3.0 * plane_bytes / op(n.tPROG_us[0]);
    // interleaved: each die programs 3 SLC units, reads them back (one multi-plane read each) and
    // programs them as one TLC unit
    let interleaved =
        dies * 3.0 * plane_bytes / (3.0 * op(n.slc_tPROG_us) + 3.0 * op(n.slc_tR_us) + op(n.tPROG_us[0]));
    // whole blocks: while one die folds an SLC block (D bytes) the small write buffer fills and every
    // die waits, so per D of host data: writing it in SLC (all dies) + folding it on one die
    let slc_pages = f64::from(n.pages_per_block / 3);
    let block = slc_pages * plane_bytes;
    let fold = slc_pages * op(n.slc_tR_us) + slc_pages / 3.0 * op(n.tPROG_us[0]);
    let whole = 1.0 / (1.0 / slc + fold / block);
    let unit = 2.0 * plane_bytes;

    // the fill in pieces: each ends where the budget formula or a fill threshold says the policy changes
    let static_end = (s.static_gb * 1e9) as u64 / (128 << 10) * (128 << 10);
    let at = |fill: f64| (fill * cap as f64) as u64 / (128 << 10) * (128 << 10);
    let (interleave_from, whole_from) = (at(s.fold_above_fill), at(s.fold_whole_blocks_above_fill));
    let pieces = [
        ("SLC", 0, static_end, slc),
        ("direct TLC", static_end, interleave_from, tlc),
        ("SLC + interleaved folding", interleave_from, whole_from, interleaved),
        ("SLC + whole-block folding", whole_from, at(0.8), whole),
    ];
    let mut levels = Vec::new();
    for (name, from, to, want) in pieces {
        let r = seq_write(&mut d, from, to - from);
        let got = r.bandwidth_mbps() * 1e6;
        assert!((got / want - 1.0).abs() < 0.08, "{name}: {:.0} MB/s, derived {:.0}", got / 1e6, want / 1e6);
        let (in_slc, folded) = (r.counters[C::slc_bytes_written], r.counters[C::folded_bytes]);
        let size = (to - from) as f64;
        match name {
            "SLC" => assert!(in_slc >= size - unit && folded == 0.0, "{name}: {in_slc} in SLC"),
            "direct TLC" => assert!(in_slc <= unit, "{name}: {in_slc} bytes in SLC"),
            // through SLC (but the TLC unit open when the threshold was crossed), as much folded as
            // written (to within a block per die)
            _ => {
                assert!(in_slc >= size - 3.0 * unit, "{name}: {in_slc} of {size} through SLC");
                assert!((folded - size).abs() <= dies * block, "{name}: folded {folded} of {size}");
            }
        }
        levels.push(got);
    }
    assert!(levels.windows(2).all(|w| w[1] < 0.85 * w[0]), "distinct, falling levels: {levels:?}");
}

#[test]
fn host_writes_after_idle_folding_leave_the_fold_under_way_to_the_next_idle_time() {
    // 2 GB in SLC, then a short idle: every die starts folding an SLC block a unit at a time and is still
    // at it when the host writes again. With the cache far from full the writes fold nothing in the
    // foreground (each die finishing its block first made bg4-1tb's 128 KiB QD1 writes after a 16 GB
    // prefill take 333 us); the next idle time carries the folds on.
    let mut d = small(&[]);
    seq_write(&mut d, 0, 2 << 30);
    d.idle(us_to_ns(d.config().ftl.idle_after_ms * 1e3) + SEC / 10);
    let folded_idle = d.counters()[C::folded_bytes];
    assert!(folded_idle > 0.0, "the idle time folded");
    let qd1 = Workload {
        rw: Rw::Write,
        bs: 128 << 10,
        iodepth: 1,
        offset: 4 << 30,
        size: 64 << 20,
        ..Workload::default()
    };
    let burst = run(&mut d, qd1.clone());
    assert_eq!(burst.counters[C::folded_bytes], 0.0, "nothing folded in the foreground");
    let mut fresh = small(&[]);
    let on_fresh = run(&mut fresh, qd1);
    let ratio = burst.bandwidth_mbps() / on_fresh.bandwidth_mbps();
    assert!(ratio > 0.9, "after idle folding the burst runs at {ratio:.2} of a fresh drive's");
    d.idle(SEC);
    assert!(d.counters()[C::folded_bytes] > folded_idle, "the next idle time folds on");
}

#[test]
fn folding_on_chip_moves_no_data_over_the_channel_and_takes_less_time() {
    // A 1 GiB burst into SLC, then idle folding, at bg4-1tb's own 800 MT/s bus: (bytes over the channels
    // while folding, bytes folded, time the dies took).
    let fold = |on_chip: &str| {
        let mut d = small(&[("ftl.slc_cache.fold_on_chip", on_chip)]);
        seq_write(&mut d, 0, 1 << 30);
        let (before, from) = (d.counters(), d.now_ns());
        d.idle(10 * SEC);
        let c = d.counters();
        assert_eq!(c[C::slc_cache_used_bytes], 0.0);
        let took = d.controller().nand.idle_at() - from;
        (c[C::nand_bus_bytes] - before[C::nand_bus_bytes], c[C::folded_bytes] - before[C::folded_bytes], took)
    };
    let (bus_on, folded_on, took_on) = fold("true");
    let (bus_off, folded_off, took_off) = fold("false");
    assert_eq!(folded_on, folded_off);
    // through the controller each folded byte crosses twice, read out and programmed back in (to within
    // a 1 MiB part)
    assert!(bus_off > 1.99 * folded_off, "{bus_off} bus bytes for {folded_off} folded");
    // on chip it stays in the die (only map and journal pages cross)
    assert!(bus_on < 0.01 * folded_on, "{bus_on} bus bytes for {folded_on} folded");
    assert!(took_on < took_off, "on chip {took_on} ns, through the controller {took_off} ns");
}

/// bg4-128gb scaled to 16 GB (120 blocks per plane instead of 910, a 0.25 GB static cache): on-chip
/// folding, interleaved from 30% full.
fn small_bg4_128() -> Drive {
    drive(
        "bg4-128gb",
        &[
            ("ftl.user_capacity_gb", "16"),
            ("nand.blocks_per_plane", "120"),
            ("ftl.slc_cache.static_gb", "0.25"),
            NO_IDLE_FOLD,
        ],
    )
}

#[test]
fn the_host_io_size_does_not_change_the_speed_of_writing_while_folding() {
    // A die folds its own SLC data: a 96 KiB or 1 MiB write whose units open folds on several dies must not
    // hold one die's fold program until another die's fold reads are done (it did: 96 KiB writes ran 23%
    // slower than 128 KiB ones in bg4-128gb's interleaved level, every die idle a fifth of the time).
    let speed = |bs: u64, iodepth: u32| {
        let mut d = small_bg4_128();
        let cap = d.capacity_bytes() as f64;
        let at = |fill: f64| (fill * cap) as u64 / (1 << 20) * (1 << 20);
        let (from, to) = (at(0.65), at(0.85));
        seq_write(&mut d, 0, from);
        let w = Workload { rw: Rw::Write, bs, iodepth, offset: from, size: to - from, ..Workload::default() };
        let r = run(&mut d, w);
        assert!(r.counters[C::folded_bytes] > 0.5 * (to - from) as f64, "the level folds as it writes");
        r.bandwidth_mbps()
    };
    let base = speed(128 << 10, 32);
    for (bs, qd) in [(96 << 10, 32), (1 << 20, 1)] {
        let got = speed(bs, qd);
        assert!(
            (got / base - 1.0).abs() < 0.02,
            "{bs} B at QD{qd}: {got:.1} MB/s, 128 KiB at QD32 {base:.1}"
        );
    }
}
