//! Analytical oracles: the simulated figures must equal what the configured parameters imply.

use crate::common::*;
use ssdlab_core::engine::{transfer_ns, us_to_ns};
use ssdlab_core::link::Link;
use ssdlab_core::Counter as C;
use ssdlab_core::{Rw, Workload};

#[test]
fn qd1_random_read_latency_is_the_sum_of_its_configured_stages() {
    // the whole map in DRAM: every lookup hits (tests/map_cache.rs has the HMB version)
    let mut d = drive(
        "bg4-1tb",
        &[
            ("ftl.user_capacity_gb", "16"),
            ("ftl.slc_cache.enabled", "false"),
            ("controller.map_cache.location", "dram"),
        ],
    );
    fill(&mut d, 1 << 30);
    d.idle(SEC); // every die and channel idle again
    let cfg = d.config().clone();
    let r = run(
        &mut d,
        Workload {
            rw: Rw::RandRead,
            bs: 4096,
            iodepth: 1,
            size: 1 << 30,
            io_size: 4096,
            ..Workload::default()
        },
    );
    assert_eq!(r.stats.read.ios, 1);
    assert_eq!(r.stats.elapsed_ns(), qd1_read_ns(&cfg));
}

#[test]
fn reading_unwritten_lbas_touches_no_flash() {
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "16")]);
    let r = run(
        &mut d,
        Workload { rw: Rw::RandRead, iodepth: 8, size: 1 << 30, io_size: 4 << 20, ..Workload::default() },
    );
    assert_eq!(r.counters[C::nand_pages_read], 0.0);
    assert_eq!(r.counters[C::unmapped_reads], 1024.0);
}

/// Sequential 128 KiB reads at QD32 from a sequentially written region.
fn seq_read_mbps(overrides: &[(&str, &str)]) -> (f64, f64) {
    let mut o = vec![("ftl.user_capacity_gb", "32"), ("ftl.slc_cache.enabled", "false")];
    o.extend_from_slice(overrides);
    let mut d = drive("bg4-1tb", &o);
    fill(&mut d, 8 << 30);
    d.idle(SEC);
    let cfg = d.config().clone();
    let r = run(
        &mut d,
        Workload { rw: Rw::Read, bs: 128 << 10, iodepth: 32, size: 8 << 30, ..Workload::default() },
    );
    let n = &cfg.nand;
    let link = Link::new(&cfg.link).payload_bytes_per_s();
    let bus = f64::from(n.channels) * f64::from(n.bus_mts) * 1e6;
    let read_bytes = u64::from(n.planes_per_die * n.page_size_kib * 1024);
    // without cache read the die also holds its page until the data is out over the channel
    let out_ns = if n.cache_read { 0 } else { transfer_ns(read_bytes, u64::from(n.bus_mts) * 1_000_000) };
    let die_ns = us_to_ns(n.tR_us[0]) + n.command_overhead_ns + out_ns;
    let dies = f64::from(n.channels * n.dies_per_channel) * read_bytes as f64 / (die_ns as f64 / 1e9);
    // the controller's data path: the LDPC decoders, the DMA engine, the SRAM (crossed twice); 0 = unlimited
    let dp = &cfg.controller.data_path;
    let unlimited = |mbps: f64| if mbps == 0.0 { f64::INFINITY } else { mbps * 1e6 };
    let decoders = if dp.ldpc_per_channel { f64::from(n.channels) } else { 1.0 };
    // the data is TLC (no SLC cache): the decoders run at their native-mode rate
    let controller = (decoders * unlimited(ldpc_native_mbps(&cfg)))
        .min(unlimited(dp.dma_mbps))
        .min(unlimited(dp.sram_mbps) / 2.0);
    (r.bandwidth_mbps(), link.min(bus).min(dies).min(controller) / 1e6)
}

#[test]
fn sequential_read_is_bound_by_the_ldpc_decoders() {
    // bg4-1tb as it is: four per-channel decoders below the channels' 800 MB/s
    let (got, want) = seq_read_mbps(&[]);
    eprintln!("sequential read {got:.0} MB/s, oracle {want:.0}");
    assert!((got / want - 1.0).abs() < 0.02, "got {got:.0} MB/s, oracle {want:.0}");
    let shared = seq_read_mbps(&[("controller.data_path.ldpc_per_channel", "false")]);
    assert!((shared.0 / shared.1 - 1.0).abs() < 0.02, "one shared decoder: {shared:?}");
    assert!(shared.0 < 0.3 * got, "a shared decoder passes a quarter of four: {shared:?} vs {got}");
}

#[test]
fn sequential_read_is_bound_by_the_dma_engine_or_the_sram() {
    let no_ldpc = [("controller.data_path.ldpc_mbps", "0"), ("controller.data_path.ldpc_native_mbps", "0")];
    for o in [("controller.data_path.dma_mbps", "1500"), ("controller.data_path.sram_mbps", "3000")] {
        let (got, want) = seq_read_mbps(&[no_ldpc[0], no_ldpc[1], o]);
        eprintln!("{o:?}: sequential read {got:.0} MB/s, oracle {want:.0}");
        assert!((want - 1500.0).abs() < 1e-6, "1500 MB/s is the slowest stage");
        assert!((got / want - 1.0).abs() < 0.02, "{o:?}: got {got:.0} MB/s, oracle {want:.0}");
    }
}

#[test]
fn sequential_read_is_bound_by_the_channels() {
    let (got, want) = seq_read_mbps(&[
        ("controller.data_path.ldpc_mbps", "0"),
        ("controller.data_path.ldpc_native_mbps", "0"),
    ]);
    eprintln!("sequential read {got:.0} MB/s, oracle {want:.0}");
    assert!((got / want - 1.0).abs() < 0.02, "got {got:.0} MB/s, oracle {want:.0}");
}

#[test]
fn sequential_read_is_bound_by_the_link() {
    let (got, want) = seq_read_mbps(&[
        ("nand.bus_mts", "1600"),
        ("link.lanes", "2"),
        ("controller.data_path.ldpc_mbps", "0"),
        ("controller.data_path.ldpc_native_mbps", "0"),
    ]);
    eprintln!("sequential read {got:.0} MB/s, oracle {want:.0}");
    assert!((got / want - 1.0).abs() < 0.02, "got {got:.0} MB/s, oracle {want:.0}");
}

#[test]
fn sequential_read_is_bound_by_the_dies() {
    let (got, want) = seq_read_mbps(&[("nand.tR_us", "400")]);
    eprintln!("sequential read {got:.0} MB/s, oracle {want:.0}");
    assert!((got / want - 1.0).abs() < 0.02, "got {got:.0} MB/s, oracle {want:.0}");
}

/// Principal branch of Lambert W for x in [-1/e, 0), by Newton's method.
fn lambert_w0(x: f64) -> f64 {
    let mut w: f64 = -0.5;
    for _ in 0..100 {
        let ew = w.exp();
        w -= (w * ew - x) / (ew * (w + 1.0));
    }
    w
}

/// Desnoyers (SYSTOR 2012): steady-state WAF of greedy GC under uniform random single-page overwrites.
fn greedy_waf(spare_factor: f64, pages_per_block: f64) -> f64 {
    let alpha = 1.0 / (1.0 - spare_factor);
    let fifo = |a: f64| a / (a + lambert_w0(-a * (-a).exp()));
    let k = 1.0 + 1.0 / (2.0 * pages_per_block);
    fifo(k * alpha) / k
}

#[test]
fn lambert_oracle_matches_the_published_table() {
    // MODELLING.md: sf 0.07 -> 6.60 (Np 64); sf 0.28 -> 1.94 (Np 64)
    assert!((greedy_waf(0.07, 64.0) - 6.60).abs() < 0.01);
    assert!((greedy_waf(0.28, 64.0) - 1.94).abs() < 0.01);
}

/// Uniform 4 KiB random overwrites of a full drive with `spare` of its NAND held back.
fn simulated_waf(spare: f64) -> (f64, f64) {
    // 4 dies x 1024 blocks of 64 x 4 KiB pages (Np = 64), SLC-style one-page program units.
    let phys_slots = 4.0 * 1024.0 * 64.0;
    let user_gb = format!("{}", (phys_slots * (1.0 - spare)).floor() * 4096.0 / 1e9);
    let mut d = drive(
        "generic-tlc-dram",
        &[
            ("nand.channels", "4"),
            ("nand.dies_per_channel", "1"),
            ("nand.planes_per_die", "1"),
            ("nand.blocks_per_plane", "1024"),
            ("nand.pages_per_block", "64"),
            ("nand.page_size_kib", "4"),
            ("nand.one_shot_program", "false"),
            ("ftl.gc_threshold_free_blocks", "1"),
            ("ftl.slc_cache.enabled", "false"),
            ("ftl.factory_bad_block_pct", "0"),
            ("ftl.wear_leveling_threshold", "0"),
            ("ftl.user_capacity_gb", &user_gb),
        ],
    );
    let cap = d.capacity_bytes();
    fill(&mut d, cap);
    let rand = |io_size| Workload {
        rw: Rw::RandWrite,
        bs: 4096,
        iodepth: 32,
        io_size,
        seed: 7,
        ..Workload::default()
    };
    run(&mut d, rand(4 * cap)); // reach steady state
    let r = run(&mut d, rand(4 * cap));
    let sf = 1.0 - (cap as f64 / 4096.0) / phys_slots;
    let (got, want) = (r.counters[C::waf], greedy_waf(sf, 64.0));
    eprintln!("spare factor {sf:.4}: simulated WAF {got:.3}, greedy model {want:.3}");
    (got, want)
}

#[test]
fn greedy_gc_waf_matches_the_analytical_model_at_7_percent_spare() {
    let (got, want) = simulated_waf(0.07);
    assert!((got / want - 1.0).abs() < 0.10, "WAF {got:.2}, greedy model {want:.2}");
}

#[test]
fn greedy_gc_waf_matches_the_analytical_model_at_28_percent_spare() {
    let (got, want) = simulated_waf(0.28);
    assert!((got / want - 1.0).abs() < 0.10, "WAF {got:.2}, greedy model {want:.2}");
}
