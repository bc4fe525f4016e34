//! The mapping cache (controller.map_cache): DRAM, HMB and SRAM, checked against numbers derived by hand.

use crate::common::*;
use ssdlab_core::engine::{transfer_ns, us_to_ns};
use ssdlab_core::link::Link;
use ssdlab_core::Counter as C;
use ssdlab_core::{Command, Drive, Op, RunResult, Rw, Workload};

const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;

fn randread(span: u64, io_size: u64, qd: u32, seed: u64) -> Workload {
    Workload { rw: Rw::RandRead, bs: 4096, iodepth: qd, size: span, io_size, seed, ..Workload::default() }
}

/// bg4-1tb shrunk to `gb` GB, SLC cache off, with map-cache overrides. The cache alone: 4 KiB map pages
/// (1024 entries, 4 MiB of span), the whole HMB holding map pages (all of it, not a power-of-two tier of
/// it), no SRAM for other tables with HMB off,
/// no journal, write-backs in 2-plane units, a write miss loading its map page, as the numbers below assume.
fn small(gb: &str, map: &[(&str, &str)]) -> Drive {
    let mut o = vec![
        ("ftl.user_capacity_gb", gb),
        ("ftl.slc_cache.enabled", "false"),
        ("controller.map_cache.map_page_kib", "4"),
        ("controller.map_cache.hmb_map_pct", "100"),
        ("controller.map_cache.hmb_map_pow2", "false"),
        ("controller.map_cache.sram_tables_kib", "0"),
        ("controller.map_cache.journal", "false"),
        ("controller.map_cache.lazy_map_updates", "false"),
        ("controller.map_cache.map_program_planes", "2"),
    ];
    o.extend_from_slice(map);
    drive("bg4-1tb", &o)
}

/// Span of LBAs the cache covers: cache bytes / 4 B per entry x 4 KiB per entry.
fn covered(cache_bytes: u64) -> u64 {
    cache_bytes / 4 * 4096
}

#[test]
fn hit_rate_for_a_uniform_random_span_is_cache_over_span() {
    for loc in ["sram", "hmb"] {
        // 64 KiB of SRAM, or 1 MiB of HMB
        let (key, value, cache) = match loc {
            "sram" => ("controller.map_cache.sram_size_kib", "64", 64 << 10),
            _ => ("controller.map_cache.hmb_size_mib", "1", MIB),
        };
        let c = covered(cache);
        let mut d = small("16", &[("controller.map_cache.location", loc), (key, value)]);
        for k in [2, 8] {
            let span = k * c;
            fill(&mut d, span);
            run(&mut d, randread(span, 64 * MIB, 32, 11)); // warm
            let r = run(&mut d, randread(span, 1200 * MIB, 32, 12));
            let want = (c as f64 / span as f64).min(1.0);
            let got = r.counters[C::map_hit_rate];
            eprintln!(
                "{loc}: span {} MiB, cache covers {} MiB: hit rate {got:.4}, oracle {want:.4}",
                span >> 20,
                c >> 20
            );
            assert!((got / want - 1.0).abs() < 0.02, "{loc} span {span}: hit rate {got}, oracle {want}");
            assert_eq!(r.counters[C::map_lookups], r.counters[C::map_hits] + r.counters[C::map_misses]);
            assert_eq!(
                r.counters[C::map_misses],
                r.counters[C::map_pages_read],
                "every miss reads a written map page"
            );
        }
        // a span inside the cache: every lookup hits once warm
        run(&mut d, randread(c / 2, 64 * MIB, 32, 13));
        let r = run(&mut d, randread(c / 2, 64 * MIB, 32, 14));
        assert_eq!(r.counters[C::map_hit_rate], 1.0);
    }
}

fn iops_over_spans(loc: &str, spans: &[u64]) -> Vec<f64> {
    let mut d =
        small("20", &[("controller.map_cache.location", loc), ("controller.map_cache.hmb_size_mib", "1")]);
    fill(&mut d, *spans.iter().max().unwrap());
    spans
        .iter()
        .map(|&span| {
            run(&mut d, randread(span, 64 * MIB, 32, 21));
            run(&mut d, randread(span, 256 * MIB, 32, 22)).iops()
        })
        .collect()
}

#[test]
fn random_read_iops_falls_as_the_span_outgrows_the_cached_map() {
    // HMB 1 MiB and SRAM 1 MiB (bg4-1tb's sram_size_kib) both cover 1 GiB of span
    let spans = [512 * MIB, 4 * GIB, 16 * GIB];
    for loc in ["hmb", "sram", "dram"] {
        let iops = iops_over_spans(loc, &spans);
        eprintln!("{loc}: QD32 4K random read IOPS over spans 0.5/4/16 GiB: {iops:.0?}");
        if loc == "dram" {
            let (lo, hi) =
                (iops.iter().cloned().fold(f64::MAX, f64::min), iops.iter().cloned().fold(0.0, f64::max));
            assert!(hi / lo < 1.03, "dram is flat: {iops:?}");
        } else {
            assert!(iops[1] < 0.9 * iops[0] && iops[2] < 0.95 * iops[1], "{loc} falls with span: {iops:?}");
        }
    }
}

/// QD1 4 KiB random read of one LBA on an idle drive, after filling 1 GiB.
fn qd1_read(map: &[(&str, &str)]) -> (RunResult, ssdlab_core::DriveConfig, u64) {
    let mut d = small("16", map);
    fill(&mut d, GIB);
    d.idle(SEC);
    let cfg = d.config().clone();
    let r = run(&mut d, randread(GIB, 4096, 1, 1));
    assert_eq!(r.stats.read.ios, 1);
    // the dram oracle of tests/oracles.rs
    let base = qd1_read_ns(&cfg);
    (r, cfg, base)
}

#[test]
fn dram_always_hits_and_hmb_adds_one_link_round_trip_per_hit() {
    let (r, _, base) = qd1_read(&[("controller.map_cache.location", "dram")]);
    assert_eq!((r.counters[C::map_hit_rate], r.counters[C::hmb_bytes]), (1.0, 0.0));
    assert_eq!(r.stats.elapsed_ns(), base);

    // HMB (64 MiB covers the 1 GiB written): the request's one-way latency, the 4 B entry down the link
    let (r, cfg, base) = qd1_read(&[]);
    assert_eq!(r.counters[C::map_hit_rate], 1.0);
    assert_eq!(r.counters[C::hmb_bytes], 4.0);
    let link = Link::new(&cfg.link);
    assert_eq!(r.stats.elapsed_ns(), base + 2 * cfg.link.latency_ns + link.wire_ns(4));

    // SRAM of one map page, last holding the end of the fill: the read misses and reads its map page from
    // NAND in SLC mode first, its one codeword through the channel's decoder as host data goes
    let (r, cfg, base) =
        qd1_read(&[("controller.map_cache.location", "sram"), ("controller.map_cache.sram_size_kib", "4")]);
    let n = &cfg.nand;
    let ldpc = cfg.controller.data_path.ldpc_mbps;
    assert!(ldpc > 0.0, "the preset has a decoder limit: the decode shows");
    let map_read = n.command_overhead_ns
        + us_to_ns(n.slc_tR_us)
        + transfer_ns(4096, u64::from(n.bus_mts) * 1_000_000)
        + transfer_ns(4096, (ldpc * 1e6) as u64);
    if r.counters[C::map_misses] == 1.0 {
        assert_eq!(r.counters[C::map_pages_read], 1.0);
        assert_eq!(r.stats.elapsed_ns(), base + map_read);
    } else {
        assert_eq!(r.stats.elapsed_ns(), base);
    }
}

#[test]
fn hmb_ecc_double_bit_errors_reload_map_pages_and_single_bit_errors_add_latency() {
    let go = |single: &str, double: &str| {
        let mut d = small(
            "8",
            &[
                ("controller.map_cache.hmb_ecc_single_bit_rate", single),
                ("controller.map_cache.hmb_ecc_double_bit_rate", double),
            ],
        );
        fill(&mut d, GIB);
        d.idle(SEC);
        run(&mut d, randread(GIB, 40 * MIB, 1, 5))
    };
    let clean = go("0.0", "0.0");
    for k in [C::hmb_ecc_corrected, C::hmb_ecc_reloads, C::map_pages_read, C::map_misses] {
        assert_eq!(clean.counters[k], 0.0, "{k:?} with no errors injected");
    }
    let lookups = clean.counters[C::map_lookups];

    let dbl = go("0.0", "0.01");
    let reloads = dbl.counters[C::hmb_ecc_reloads];
    eprintln!("double-bit rate 1%: {reloads} reloads of {lookups} lookups");
    assert!((reloads / (0.01 * lookups) - 1.0).abs() < 0.2, "{reloads} reloads for {lookups} lookups");
    assert_eq!(dbl.counters[C::map_pages_read], reloads, "each reload reads the map page from NAND");
    assert!(dbl.stats.elapsed_ns() > clean.stats.elapsed_ns());

    // at QD1 on an idle drive every IO takes the same time but for the corrections
    let sgl = go("0.25", "0.0");
    let corrected = sgl.counters[C::hmb_ecc_corrected];
    assert!((corrected / (0.25 * lookups) - 1.0).abs() < 0.05, "{corrected} corrections of {lookups}");
    assert_eq!(sgl.counters[C::hmb_ecc_reloads], 0.0);
    let correct_ns = small("8", &[]).config().controller.map_cache.hmb_ecc_correct_ns;
    assert_eq!(sgl.stats.elapsed_ns() - clean.stats.elapsed_ns(), corrected as u64 * correct_ns);

    // same config, same numbers
    let again = go("0.25", "0.01");
    let again2 = go("0.25", "0.01");
    assert_eq!(again.counters, again2.counters);
}

#[test]
fn sram_write_backs_count_in_map_pages_written_and_waf() {
    // 64 KiB of SRAM = 16 map pages (64 MiB of span); bg4's SLC program unit is 2 planes x 16 KiB = 8 map pages
    let sram = [("controller.map_cache.location", "sram"), ("controller.map_cache.sram_size_kib", "64")];
    let mut d = small("16", &sram);
    let r = run(
        &mut d,
        Workload { rw: Rw::Write, bs: 128 << 10, iodepth: 32, size: 4 * GIB, ..Workload::default() },
    );
    // 1024 map pages dirtied in order; all but the 16 still cached were evicted and written back
    let evicted = 1024.0 - 16.0;
    let written = r.counters[C::map_pages_written];
    assert!(
        written <= evicted && written > evicted - 8.0,
        "{written} map pages written for {evicted} evicted"
    );
    let host = r.counters[C::host_pages_written];
    assert!((r.counters[C::waf] - (host + written) / host).abs() < 1e-12, "waf {}", r.counters[C::waf]);

    let rand = Workload {
        rw: Rw::RandWrite,
        bs: 4096,
        iodepth: 32,
        size: 4 * GIB,
        io_size: 256 * MIB,
        seed: 3,
        ..Workload::default()
    };
    let r = run(&mut d, rand.clone());
    let mut dram = small("16", &[("controller.map_cache.location", "dram")]);
    fill(&mut dram, 4 * GIB);
    let rd = run(&mut dram, rand);
    eprintln!(
        "random writes over 4 GiB: waf sram {:.3} (map pages written {}), dram {:.3}",
        r.counters[C::waf],
        r.counters[C::map_pages_written],
        rd.counters[C::waf]
    );
    assert_eq!(rd.counters[C::map_pages_written], 0.0);
    // almost every random write misses and evicts a dirty map page: about one map page per host page
    assert!(
        r.counters[C::waf] > rd.counters[C::waf] + 0.9,
        "{} vs {}",
        r.counters[C::waf],
        rd.counters[C::waf]
    );
    assert!(r.counters[C::waf] > 1.0);
}

#[test]
fn location_is_reachable_from_set_and_bad_values_name_the_path() {
    let text = preset_text("generic-tlc-dram");
    let o = |k: &str, v: &str| vec![(k.to_string(), v.to_string())];
    for loc in ["dram", "hmb", "sram"] {
        ssdlab_core::DriveConfig::from_toml_str(&text, &o("controller.map_cache.location", loc)).unwrap();
    }
    let e = ssdlab_core::DriveConfig::from_toml_str(&text, &o("controller.map_cache.location", "nvram"))
        .unwrap_err();
    assert!(e.to_string().contains("controller.map_cache.location"), "{e}");
    let e = ssdlab_core::DriveConfig::from_toml_str(&text, &o("controller.map_cache.map_page_kib", "3"))
        .unwrap_err();
    assert_eq!(e.problems[0].path, "controller.map_cache.map_page_kib");
    let e = ssdlab_core::DriveConfig::from_toml_str(
        &text,
        &o("controller.map_cache.hmb_ecc_double_bit_rate", "1.5"),
    )
    .unwrap_err();
    assert_eq!(e.problems[0].path, "controller.map_cache.hmb_ecc_double_bit_rate");
}

/// The full bg4-1tb with HMB on and off (sram): sequential write and random read QD scaling. With HMB off
/// the map cache takes 1 MiB of the controller's SRAM from the write buffer, which then holds too few
/// program units to keep every die busy. (The SRAM size is fitted to AnandTech's ~1 GB/s: this checks
/// the mechanism and the fit, not an out-of-sample prediction.)
#[test]
fn bg4_with_hmb_off_reads_scale_more_slowly_and_writes_at_about_1_gb_per_s() {
    let mut curves = Vec::new();
    for loc in ["hmb", "sram"] {
        let mut d = drive("bg4-1tb", &[("controller.map_cache.location", loc)]);
        // sequential write: 128 KiB QD32, 16 GiB from empty (inside the SLC cache)
        let w = run(
            &mut d,
            Workload { rw: Rw::Write, bs: 128 << 10, iodepth: 32, size: 16 * GIB, ..Workload::default() },
        );
        // and 16 GiB more over data written before (its map pages are on flash)
        let w2 = run(
            &mut d,
            Workload { rw: Rw::Write, bs: 128 << 10, iodepth: 32, size: 16 * GIB, ..Workload::default() },
        );
        d.idle(10 * SEC);
        let qd: Vec<f64> = [1, 2, 4, 8, 16, 32]
            .iter()
            .map(|&q| {
                let r = run(&mut d, randread(16 * GIB, 64 * MIB, q, 9));
                if q == 32 {
                    eprintln!(
                        "  QD32: die utilisation {:.2}, mean latency {:.0} us",
                        r.counters[C::die_utilisation_mean],
                        r.latency().mean_ns() / 1e3
                    );
                }
                r.iops()
            })
            .collect();
        eprintln!(
            "bg4-1tb {loc}: seq write {:.0} MB/s (empty), {:.0} MB/s (overwrite); 4K random read over 16 GiB, QD1..32 IOPS: {qd:.0?}",
            w.bandwidth_mbps(),
            w2.bandwidth_mbps()
        );
        curves.push((w.bandwidth_mbps(), w2.bandwidth_mbps(), qd));
    }
    let (hmb, sram) = (&curves[0], &curves[1]);
    // reads scale more slowly with queue depth with the map in SRAM: each miss adds a NAND read
    assert!(sram.2[5] < 0.8 * hmb.2[5], "QD32: sram {} vs hmb {}", sram.2[5], hmb.2[5]);
    assert!(sram.2[5] / sram.2[0] < hmb.2[5] / hmb.2[0] * 1.05);
    assert!(hmb.0 > 1500.0 && hmb.1 > 1500.0, "HMB on: the SLC program rate, {} / {} MB/s", hmb.0, hmb.1);
    for mbps in [sram.0, sram.1] {
        assert!((mbps / 1000.0 - 1.0).abs() < 0.15, "HMB off: about 1 GB/s, got {mbps:.0} MB/s");
    }
}

#[test]
fn hmb_bit_errors_follow_the_drives_root_seed() {
    let go = |seed: &str| {
        let mut d = small("8", &[("seed", seed), ("controller.map_cache.hmb_ecc_single_bit_rate", "0.1")]);
        fill(&mut d, GIB);
        d.idle(SEC);
        run(&mut d, randread(GIB, 8 * MIB, 1, 5)).counters[C::hmb_ecc_corrected]
    };
    let (a, again, b) = (go("1"), go("1"), go("2"));
    assert!(a > 0.0);
    assert_eq!(a, again, "same drive seed, same errors");
    assert_ne!(a, b, "another drive seed draws other errors (same workload seed)");
}

fn randwrite(span: u64, io_size: u64, seed: u64) -> Workload {
    Workload { rw: Rw::RandWrite, bs: 4096, iodepth: 32, size: span, io_size, seed, ..Workload::default() }
}

/// `small` with the journal on: a checkpoint every `j` mapped LPNs, one-page map programs.
fn journaled(j: &str) -> Drive {
    small(
        "16",
        &[
            ("controller.map_cache.journal", "true"),
            ("controller.map_cache.checkpoint_entries", j),
            ("controller.map_cache.map_program_planes", "1"),
        ],
    )
}

#[test]
fn a_checkpoint_writes_the_distinct_map_pages_its_interval_dirtied() {
    // A uniform random span of P map pages, a checkpoint every J writes: the J writes touch
    // P (1 - exp(-J/P)) distinct map pages, each written once: that many map pages per J host writes.
    // 4 KiB map pages (4 MiB of span each), J = 512: P = 16 costs 16/512 per write (the span fits the
    // interval: next to nothing), P = 1024 costs 2 (1 - e^-0.5) = 0.787.
    let j = 512.0;
    for (span, p) in [(64 * MIB, 16.0), (4 * GIB, 1024.0)] {
        let mut d = journaled("512");
        let r = run(&mut d, randwrite(span, 128 * MIB, 3));
        let want = p * (1.0 - f64::exp(-j / p)) / j;
        let got = r.counters[C::map_pages_written] / r.counters[C::host_pages_written];
        eprintln!("span {} MiB: {got:.4} map pages per host write, oracle {want:.4}", span >> 20);
        assert!((got / want - 1.0).abs() < 0.03, "span {span}: {got} map pages per write, oracle {want}");
        let checkpoints = r.counters[C::host_pages_written] / j;
        assert!((r.counters[C::map_checkpoints] - checkpoints).abs() <= 1.0);
        let waf = 1.0 + got + r.counters[C::map_journal_pages_written] / r.counters[C::host_pages_written];
        assert!((r.counters[C::waf] / waf - 1.0).abs() < 1e-9, "map programs count in WAF");
    }
}

#[test]
fn the_journal_is_programmed_page_by_page_and_a_checkpoint_never_comes_before_its_interval() {
    // 32768 writes x 8 B entries = 256 KiB of journal = 16 NAND pages of 16 KiB (64 x 4 KiB); no
    // checkpoint within 1 << 40 entries, and the HMB holds every map page: nothing else is written
    let mut d = journaled(&(1u64 << 40).to_string());
    let r = run(&mut d, randwrite(GIB, 128 * MIB, 4));
    assert_eq!(r.counters[C::host_pages_written], 32768.0);
    assert_eq!(r.counters[C::map_journal_pages_written], 64.0);
    assert_eq!((r.counters[C::map_checkpoints], r.counters[C::map_pages_written]), (0.0, 0.0));
}

#[test]
fn a_dirty_page_bound_checkpoints_when_that_many_map_pages_are_dirty() {
    // Sequential 128 KiB writes dirty a new 4 MiB map page every 32 commands. With a bound of 8 the
    // first checkpoint comes as page 8 is first written; that page takes 31 more commands, so it is
    // dirty again at once and each later checkpoint comes after 7 new pages: over 256 map pages,
    // 1 + (256 - 8) / 7 = 36 checkpoints of 8 map pages each (long before 1 << 40 entries).
    let mut d = small(
        "16",
        &[
            ("controller.map_cache.journal", "true"),
            ("controller.map_cache.checkpoint_entries", &(1u64 << 40).to_string()),
            ("controller.map_cache.checkpoint_dirty_pages", "8"),
        ],
    );
    let w = Workload { rw: Rw::Write, bs: 128 << 10, iodepth: 1, size: GIB, ..Workload::default() };
    let r = run(&mut d, w);
    assert_eq!(r.counters[C::map_checkpoints], 36.0);
    assert_eq!(r.counters[C::map_pages_written], 36.0 * 8.0);
}

#[test]
fn random_writes_slow_down_once_the_span_outgrows_the_checkpoint_interval() {
    // 16 KiB map pages (16 MiB of span), J = 512: 64 MiB is 4 map pages (4/512 map programs per write),
    // 4 GiB is 256 (256 (1 - e^-2) / 512 = 0.43 single-page SLC programs of 320 us per write, ~140 us of
    // die time beside the ~74 us a 4 KiB share of a TLC program takes): about half the IOPS or less
    let iops = |span: u64| {
        let mut d = small(
            "16",
            &[
                ("controller.map_cache.journal", "true"),
                ("controller.map_cache.checkpoint_entries", "512"),
                ("controller.map_cache.map_program_planes", "1"),
                ("controller.map_cache.map_page_kib", "16"),
            ],
        );
        run(&mut d, randwrite(span, 64 * MIB, 5)).iops()
    };
    let (fits, outgrows) = (iops(64 * MIB), iops(4 * GIB));
    eprintln!("QD32 4K random write: {fits:.0} IOPS over 64 MiB, {outgrows:.0} over 4 GiB");
    assert!(outgrows < 0.55 * fits, "{fits} vs {outgrows}");
}

#[test]
fn only_hmb_map_pct_of_the_hmb_caches_map_pages() {
    // 4 MiB of HMB, a quarter of it for map pages: 1 MiB = 256 map pages = 1 GiB of span; a uniform
    // random read over 2 GiB hits half the time
    let mut d = small(
        "16",
        &[("controller.map_cache.hmb_size_mib", "4"), ("controller.map_cache.hmb_map_pct", "25")],
    );
    fill(&mut d, 2 * GIB);
    run(&mut d, randread(2 * GIB, 64 * MIB, 32, 1));
    let r = run(&mut d, randread(2 * GIB, 600 * MIB, 32, 2));
    let got = r.counters[C::map_hit_rate];
    assert!((got / 0.5 - 1.0).abs() < 0.03, "hit rate {got}, oracle 0.5");
}

#[test]
fn a_power_of_two_map_cache_takes_the_tier_below_a_short_grant() {
    // 3 MiB of HMB: 768 map pages of 4 KiB (3 GiB of span); in power-of-two tiers 512 (2 GiB). A uniform
    // random read over 3 GiB then hits 2/3 of the time instead of always
    let hit_rate = |pow2: &str| {
        let mut d = small(
            "16",
            &[("controller.map_cache.hmb_size_mib", "3"), ("controller.map_cache.hmb_map_pow2", pow2)],
        );
        fill(&mut d, 3 * GIB);
        run(&mut d, randread(3 * GIB, 64 * MIB, 32, 1));
        run(&mut d, randread(3 * GIB, 600 * MIB, 32, 2)).counters[C::map_hit_rate]
    };
    let (whole, tier) = (hit_rate("false"), hit_rate("true"));
    assert!(whole > 0.99, "{whole}");
    assert!((tier / (2.0 / 3.0) - 1.0).abs() < 0.03, "hit rate {tier}, oracle 2/3");
}

#[test]
fn the_share_of_the_hmb_is_of_the_power_of_two_tier_the_grant_holds() {
    // 75% for map pages: of a 4 MiB grant 3 MiB (768 map pages of 4 KiB, 3 GiB of span); a 3 MiB grant
    // is used as its 2 MiB tier, 1.5 MiB of map. A uniform random read over 3 GiB hits always, then half
    let hit_rate = |grant: &str| {
        let mut d = small(
            "16",
            &[
                ("controller.map_cache.hmb_size_mib", grant),
                ("controller.map_cache.hmb_map_pct", "75"),
                ("controller.map_cache.hmb_map_pow2", "true"),
            ],
        );
        fill(&mut d, 3 * GIB);
        run(&mut d, randread(3 * GIB, 64 * MIB, 32, 1));
        run(&mut d, randread(3 * GIB, 600 * MIB, 32, 2)).counters[C::map_hit_rate]
    };
    let (four, three) = (hit_rate("4"), hit_rate("3"));
    assert!(four > 0.99, "{four}");
    assert!((three / 0.5 - 1.0).abs() < 0.03, "hit rate {three}, oracle 1/2");
}

/// One QD1 read of `lpn` on an idle drive that keeps data: (latency, data).
fn read_one(d: &mut Drive, lpn: u64) -> (u64, Vec<u8>) {
    d.idle(SEC);
    let id = d.submit(Command::new(Op::Read, lpn * 4096, 4096)).unwrap();
    let data = d.take_read_data(id).unwrap();
    d.advance_to_next_completion();
    let c = d.poll().unwrap();
    (c.complete_ns - c.submit_ns, data)
}

#[test]
fn a_detected_uncorrectable_map_page_in_the_hmb_is_reloaded_from_nand_never_used() {
    // bg4's own map cache (HMB, journal, checkpoints), a page of host data whose map page is cached
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "8"), ("ftl.slc_cache.enabled", "false")]);
    fill(&mut d, GIB);
    d.enable_data();
    let lpn = 1000;
    let page: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 3) as u8).collect();
    d.submit_with_data(Command::new(Op::Write, lpn * 4096, 4096), Some(&page)).unwrap();
    d.advance_to_next_completion();
    d.poll().unwrap();
    let (hit, data) = read_one(&mut d, lpn);
    assert_eq!(data, page);
    assert_eq!(read_one(&mut d, lpn).0, hit, "an idle QD1 hit always takes the same time");

    let before = d.counters();
    assert!(d.inject_hmb_bit_flips(lpn * 4096, 2).unwrap(), "the map page is cached in the HMB");
    let (reloaded, data) = read_one(&mut d, lpn);
    let after = d.counters();
    assert_eq!(data, page, "the read gets its own data: the bad entries were not used");
    assert_eq!(after[C::hmb_ecc_reloads] - before[C::hmb_ecc_reloads], 1.0);
    assert_eq!(after[C::map_pages_read] - before[C::map_pages_read], 1.0, "a map read from NAND");
    let slc_tr = us_to_ns(d.config().nand.slc_tR_us);
    assert!(
        reloaded >= hit + slc_tr,
        "the reload costs a map page read: {reloaded} ns vs a hit's {hit} + tR {slc_tr}"
    );
    // the copy was replaced: the next read is a clean hit again
    assert_eq!(read_one(&mut d, lpn).0, hit);
    assert_eq!(d.counters()[C::hmb_ecc_reloads], after[C::hmb_ecc_reloads]);

    // one flipped bit is corrected in place: the ECC's time, no NAND read
    assert!(d.inject_hmb_bit_flips(lpn * 4096, 1).unwrap());
    let (corrected, data) = read_one(&mut d, lpn);
    assert_eq!(data, page);
    assert_eq!(corrected, hit + d.config().controller.map_cache.hmb_ecc_correct_ns);
    let end = d.counters();
    assert_eq!(end[C::hmb_ecc_corrected] - after[C::hmb_ecc_corrected], 1.0);
    assert_eq!(end[C::map_pages_read], after[C::map_pages_read]);

    // nothing to flip where the map is not in host memory
    let mut dram = drive("generic-tlc-dram", &[("ftl.user_capacity_gb", "1")]);
    assert!(!dram.inject_hmb_bit_flips(0, 2).unwrap());
    assert!(dram.inject_hmb_bit_flips(dram.capacity_bytes(), 2).is_err());
}

/// When the decoded entries of a map read of `bytes` (whole codewords) are at the controller, after the read
/// ended at 0: the transfer's codewords arrive evenly and the channel's decoder, idle, takes each as it
/// comes (data_path.rs), finishing one codeword's decode after the last arrived at the earliest.
fn decoded_after(cfg: &ssdlab_core::DriveConfig, bytes: u64) -> u64 {
    let d = &cfg.controller.data_path;
    let bps = (d.ldpc_mbps * 1e6) as u64;
    let (bus, dur) = (transfer_ns(bytes, u64::from(cfg.nand.bus_mts) * 1_000_000), transfer_ns(bytes, bps));
    let one = transfer_ns(u64::from(d.ldpc_codeword_bytes).min(bytes), bps);
    let codewords = bytes.div_ceil(u64::from(d.ldpc_codeword_bytes));
    let arrived = 1_000_000; // any time after the transfer began
    let ready = (arrived - bus + bus / codewords).max(arrived + one - dur);
    ready + dur - arrived
}

#[test]
fn an_sram_piece_is_read_as_its_one_codeword_and_a_whole_page_as_all_of_them() {
    // 16 KiB map pages (4 codewords of 4 KiB), 16 KiB of SRAM: one whole page, or four 4 KiB pieces
    for (piece, read) in [("0", 16 << 10), ("4", 4 << 10)] {
        let (r, cfg, base) = qd1_read(&[
            ("controller.map_cache.location", "sram"),
            ("controller.map_cache.map_page_kib", "16"),
            ("controller.map_cache.sram_size_kib", "16"),
            ("controller.map_cache.sram_segment_kib", piece),
        ]);
        // the SRAM holds the fill's last 16 MiB of span: the read (seed 1) lands elsewhere
        assert_eq!(
            (r.counters[C::map_misses], r.counters[C::map_pages_read]),
            (1.0, 1.0),
            "piece {piece} KiB"
        );
        let n = &cfg.nand;
        let map_read = n.command_overhead_ns
            + us_to_ns(n.slc_tR_us)
            + transfer_ns(read, u64::from(n.bus_mts) * 1_000_000)
            + decoded_after(&cfg, read);
        assert_eq!(r.stats.elapsed_ns(), base + map_read, "piece {piece} KiB");
    }
}

#[test]
fn a_sequential_stream_misses_once_per_sram_piece() {
    // 1 MiB of SRAM; 16 KiB map pages cover 16 MiB of span each, 4 KiB pieces 4 MiB
    for (piece, span_per_miss) in [("0", 16 * MIB), ("4", 4 * MIB)] {
        let mut d = small(
            "16",
            &[
                ("controller.map_cache.location", "sram"),
                ("controller.map_cache.map_page_kib", "16"),
                ("controller.map_cache.sram_size_kib", "1024"),
                ("controller.map_cache.sram_segment_kib", piece),
            ],
        );
        fill(&mut d, 4 * GIB);
        d.idle(SEC);
        let before = d.counters()[C::map_pages_read];
        // 2 GiB from 2 GiB on: past what the 1 MiB of SRAM still holds from the fill's end
        let w = Workload {
            rw: Rw::Read,
            bs: 128 << 10,
            iodepth: 1,
            offset: 0,
            size: 2 * GIB,
            ..Workload::default()
        };
        run(&mut d, w);
        let reads = d.counters()[C::map_pages_read] - before;
        assert_eq!(reads, (2 * GIB / span_per_miss) as f64, "piece {piece} KiB");
    }
}

#[test]
fn map_reads_in_flight_bound_the_misses_a_second() {
    // 64 KiB of SRAM covers 64 MiB; random 4 KiB reads at QD32 over 4 GiB miss ~98% of the time. Each
    // map-page read holds one of the controller's entries at least the SLC sense time (bg4-1tb: 30 us),
    // so N entries read at most N / 30 us map pages a second, however many dies could sense them.
    let misses_per_s = |n: &str| {
        let mut d = small(
            "16",
            &[
                ("controller.map_cache.location", "sram"),
                ("controller.map_cache.sram_size_kib", "64"),
                ("controller.map_cache.map_reads_in_flight", n),
            ],
        );
        fill(&mut d, 4 * GIB);
        let r = run(&mut d, randread(4 * GIB, 256 * MIB, 32, 3));
        r.counters[C::map_misses] / (r.stats.elapsed_ns() as f64 / 1e9)
    };
    let (one, two, four, unlimited) =
        (misses_per_s("1"), misses_per_s("2"), misses_per_s("4"), misses_per_s("0"));
    eprintln!("map misses a second: 1 entry {one:.0}, 2 {two:.0}, 4 {four:.0}, no limit {unlimited:.0}");
    let bound = 1e9 / us_to_ns(30.0) as f64;
    for (n, got) in [(1.0, one), (2.0, two), (4.0, four)] {
        assert!(got <= n * bound, "{n} entries: {got:.0} misses/s over the {:.0} bound", n * bound);
    }
    // the entries are the bottleneck: twice the entries, nearly twice the misses (a map read may wait
    // behind a data read on its die); with no limit more still
    assert!((1.7..=2.0).contains(&(two / one)), "1 entry {one:.0}, 2 entries {two:.0}");
    assert!(unlimited > 1.3 * four, "4 entries {four:.0}, no limit {unlimited:.0}");
}

// ------------------------------------------------------------------------------------ lazy map updates

/// `small` journaled, its SRAM holding `sram_kib` of 4 KiB map pages, with lazy map updates on or off.
fn lazy(on: bool, sram_kib: &str, j: &str) -> Drive {
    small(
        "16",
        &[
            ("controller.map_cache.location", "sram"),
            ("controller.map_cache.sram_size_kib", sram_kib),
            ("controller.map_cache.sram_segment_kib", "0"),
            ("controller.map_cache.journal", "true"),
            ("controller.map_cache.checkpoint_entries", j),
            ("controller.map_cache.map_program_planes", "1"),
            ("controller.map_cache.lazy_map_updates", if on { "true" } else { "false" }),
        ],
    )
}

fn qd1_randwrite(span: u64, io_size: u64, seed: u64) -> Workload {
    Workload { iodepth: 1, ..randwrite(span, io_size, seed) }
}

#[test]
fn a_lazy_write_miss_waits_for_no_map_read() {
    // 64 KiB of SRAM holds 16 map pages (64 MiB of span); QD1 random writes over 1 GiB miss 15 times in
    // 16. Loading the map page first, a miss waits for an SLC read: the median write takes at least tR(SLC)
    // longer than one that hits. Lazy, no write waits: the median is the hit's, within 2% (the checkpoints'
    // reads and programs, now 0.79 map pages a write, only delay the writes that find the buffer full).
    let mut hits = lazy(true, "64", "512");
    fill(&mut hits, GIB);
    let hit_us =
        run(&mut hits, qd1_randwrite(32 * MIB, 16 * MIB, 5)).latency().percentile_ns(50.0) as f64 / 1e3;
    let slc_tr_us = hits.config().nand.slc_tR_us;
    for on in [true, false] {
        let mut d = lazy(on, "64", "512");
        fill(&mut d, GIB);
        let r = run(&mut d, qd1_randwrite(GIB, 32 * MIB, 6));
        let mean = r.latency().percentile_ns(50.0) as f64 / 1e3;
        eprintln!("lazy {on}: median write {mean:.2} us, a hit's {hit_us:.2} us, tR(SLC) {slc_tr_us} us");
        if on {
            assert!((mean / hit_us - 1.0).abs() < 0.02, "lazy: {mean} us against a hit's {hit_us}");
            assert_eq!(r.counters[C::map_misses], 0.0);
            assert!(r.counters[C::map_lazy_updates] > 0.9 * r.counters[C::map_lookups]);
        } else {
            assert!(mean > hit_us + slc_tr_us, "load first: {mean} us, a hit's {hit_us}");
            assert_eq!(r.counters[C::map_lazy_updates], 0.0);
        }
    }
}

#[test]
fn lazy_updates_read_and_write_each_map_page_an_interval_dirtied_once() {
    // With one map page of SRAM nothing stays cached: a checkpoint every J writes reads, merges and
    // writes the P (1 - exp(-J/P)) distinct map pages they touched. 4 GiB of 4 KiB map pages (P = 1024),
    // J = 512: 0.787 map pages read and written per host write (as the load-first oracle above writes).
    let (j, p) = (512.0, 1024.0);
    let mut d = lazy(true, "4", "512");
    fill(&mut d, 4 * GIB);
    let r = run(&mut d, randwrite(4 * GIB, 128 * MIB, 7));
    let want = p * (1.0 - f64::exp(-j / p)) / j;
    let per_write = |k: C| r.counters[k] / r.counters[C::host_pages_written];
    let (read, written) = (per_write(C::map_pages_read), per_write(C::map_pages_written));
    eprintln!("{read:.4} map pages read and {written:.4} written per host write, oracle {want:.4}");
    assert!((read / want - 1.0).abs() < 0.03, "read {read}, oracle {want}");
    assert!((written / want - 1.0).abs() < 0.03, "written {written}, oracle {want}");
    assert_eq!(r.counters[C::map_misses], 0.0, "no write loads a map page");
}

#[test]
fn a_read_of_an_lpn_updated_blind_finds_its_entry_in_the_delta_table() {
    // One map page of SRAM, a checkpoint every 16384 entries: the last of a 64 MiB fill's 16384 LPNs
    // checkpoints it (the delta table empties). LPN 0's map page is then written blind. A read of LPN 0
    // finds its entry in the delta table (a hit, nothing read); a read of LPN 1, in the same map page but
    // not updated since, must load the page.
    let mut d = lazy(true, "4", "16384");
    fill(&mut d, 64 * MIB);
    run(&mut d, Workload { rw: Rw::Read, bs: 4096, size: 4096, offset: 32 * MIB, ..Workload::default() });
    let one = |rw: Rw, offset: u64| Workload { rw, bs: 4096, size: 4096, offset, ..Workload::default() };
    let w = run(&mut d, one(Rw::Write, 0));
    assert_eq!(w.counters[C::map_lazy_updates], 1.0, "map page 0 is not cached: written blind");
    let r0 = run(&mut d, one(Rw::Read, 0));
    assert_eq!((r0.counters[C::map_hits], r0.counters[C::map_pages_read]), (1.0, 0.0));
    let r1 = run(&mut d, one(Rw::Read, 4096));
    assert_eq!((r1.counters[C::map_misses], r1.counters[C::map_pages_read]), (1.0, 1.0));
}

#[test]
fn sram_tables_take_write_buffer_space_but_cache_no_map() {
    // HMB off: 64 KiB of map pieces (4 KiB map pages: 64 of them, 256 MiB of span) beside 0 or 512 KiB of
    // the firmware's other tables. The tables shrink the data buffer by their size and leave the hit rate
    // over twice the covered span at one half, as without them.
    let c = covered(64 << 10);
    let mut hit = vec![];
    for tables in ["0", "512"] {
        let mut d = small(
            "16",
            &[
                ("controller.map_cache.location", "sram"),
                ("controller.map_cache.sram_size_kib", "64"),
                ("controller.map_cache.sram_tables_kib", tables),
            ],
        );
        let buffer = d.config().controller.write_buffer_bytes();
        let want = (d.config().controller.write_buffer_kib - 64 - tables.parse::<u64>().unwrap()) << 10;
        assert_eq!(buffer, want, "tables {tables} KiB");
        fill(&mut d, 2 * c);
        run(&mut d, randread(2 * c, 64 * MIB, 32, 11)); // warm
        hit.push(run(&mut d, randread(2 * c, 600 * MIB, 32, 12)).counters[C::map_hit_rate]);
    }
    assert!((hit[0] - 0.5).abs() < 0.05 && (hit[1] - hit[0]).abs() < 0.01, "hit rates {hit:?}");
    // with the HMB the SRAM is the write buffer's alone: neither key takes from it
    let d = small("16", &[("controller.map_cache.sram_tables_kib", "512")]);
    assert_eq!(d.config().controller.write_buffer_bytes(), d.config().controller.write_buffer_kib << 10);
}

#[test]
fn an_hmb_withdrawn_at_run_time_leaves_the_drive_built_without_one() {
    // The host takes the HMB back (Set Features): the map and the firmware's tables move into the SRAM and
    // the write buffer keeps what they leave, as on a drive built with HMB off. Its sequential write is then
    // that drive's (~1 GB/s on bg4-1tb), not the HMB drive's SLC program rate.
    let w = Workload { rw: Rw::Write, bs: 128 << 10, iodepth: 32, size: 2 * GIB, ..Workload::default() };
    let mut built = drive("bg4-1tb", &[("controller.map_cache.location", "sram")]);
    let mut withdrawn = drive("bg4-1tb", &[]);
    let with_hmb = run(&mut withdrawn.clone(), w.clone()).bandwidth_mbps();
    withdrawn.set_host_memory_buffer(None).unwrap();
    let (a, b) = (run(&mut built, w.clone()).bandwidth_mbps(), run(&mut withdrawn, w).bandwidth_mbps());
    eprintln!("seq write: built without HMB {a:.0} MB/s, HMB withdrawn {b:.0}, with HMB {with_hmb:.0}");
    assert!((a - b).abs() < 0.01 * a, "built {a:.0} vs withdrawn {b:.0}");
    assert!(with_hmb > 1.3 * b, "with HMB {with_hmb:.0} vs withdrawn {b:.0}");
    // and given back, the whole SRAM is the write buffer's again
    withdrawn.set_host_memory_buffer(Some(64)).unwrap();
    let cfg = &withdrawn.config().controller;
    assert_eq!(cfg.write_buffer_bytes(), cfg.write_buffer_kib << 10);
}
