//! Helpers shared by the integration tests.
#![allow(dead_code)]

use ssdlab_core::config::NandConfig;
use ssdlab_core::engine::{transfer_ns, us_to_ns, Ns};
use ssdlab_core::link::Link;
use ssdlab_core::{Drive, DriveConfig, Rw, Workload};

/// A built-in preset's complete TOML (its `base` chain resolved).
pub fn preset_text(name: &str) -> String {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/ssdlab/presets"));
    ssdlab_core::config::preset::resolve_preset(dir, name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A preset with `--set` style overrides.
pub fn drive(preset: &str, overrides: &[(&str, &str)]) -> Drive {
    // These tests' oracles are the data path's own times: no wake-up from APST states or L1.2 after idle
    // (src/power/tests.rs checks those); a test may still set them.
    let wake_off = [("power.apst", "false"), ("power.link_exit_us", "0")];
    let o: Vec<(String, String)> =
        wake_off.iter().chain(overrides).map(|(k, v)| (k.to_string(), v.to_string())).collect();
    Drive::new(DriveConfig::from_toml_str(&preset_text(preset), &o).unwrap()).unwrap()
}

pub fn run(d: &mut Drive, w: Workload) -> ssdlab_core::RunResult {
    d.run(&w, &mut |_| true).unwrap()
}

/// Write the first `bytes` of the drive sequentially with 128 KiB writes at QD32.
pub fn fill(d: &mut Drive, bytes: u64) {
    run(d, Workload { rw: Rw::Write, bs: 128 << 10, iodepth: 32, size: bytes, ..Workload::default() });
}

pub const SEC: u64 = 1_000_000_000;

/// The LDPC decoder's rate on native-mode (TLC) data, MB/s (0: no decoder limit).
pub fn ldpc_native_mbps(cfg: &DriveConfig) -> f64 {
    let d = &cfg.controller.data_path;
    if d.ldpc_native_mbps > 0.0 {
        d.ldpc_native_mbps
    } else {
        d.ldpc_mbps
    }
}

/// LDPC decode of a native-mode read of `bytes` (whole codewords) on an idle decoder after its last
/// codeword arrived: one codeword's decode time (0 without a decoder limit).
pub fn ldpc_decode_ns(cfg: &DriveConfig, bytes: u64) -> u64 {
    let mbps = ldpc_native_mbps(cfg);
    if mbps == 0.0 {
        return 0;
    }
    let codeword = u64::from(cfg.controller.data_path.ldpc_codeword_bytes);
    transfer_ns(bytes.min(codeword), (mbps * 1e6).round() as u64)
}

/// A QD1 4 KiB read of TLC data on an idle drive whose map lookup hits in DRAM: the sum of its configured stages
/// (host submit, firmware, map lookup, NAND command + tR, bus transfer, LDPC decode, link transfer, completion).
pub fn qd1_read_ns(cfg: &DriveConfig) -> u64 {
    cfg.host.submit_ns
        + cfg.controller.read_overhead_ns
        + cfg.controller.map_cache.lookup_ns
        + cfg.nand.command_overhead_ns
        + us_to_ns(cfg.nand.tR_us[0])
        + transfer_ns(4096, u64::from(cfg.nand.bus_mts) * 1_000_000)
        + ldpc_decode_ns(cfg, 4096)
        + Link::new(&cfg.link).wire_ns(4096)
        + cfg.link.latency_ns
        + cfg.host.complete_ns
}

/// bg4-128gb's NAND (2 planes a die, no cache read), with or without independent plane reads, on dies that
/// serve their work in the order it is booked (read priority off: [`bg4_128gb_nand_tracked`] turns it on).
pub fn bg4_128gb_nand(plane_reads: bool) -> NandConfig {
    let o = vec![
        ("nand.independent_plane_read".to_string(), plane_reads.to_string()),
        ("nand.suspension.read_priority".to_string(), "false".to_string()),
    ];
    DriveConfig::from_toml_str(&preset_text("bg4-128gb"), &o).unwrap().nand
}

/// bg4-128gb's NAND with or without plane reads and with these `[nand.suspension]` switches (which make
/// each die track its operations one by one), at typical timings.
pub fn bg4_128gb_nand_tracked(plane_reads: bool, enabled: bool, priority: bool) -> NandConfig {
    let mut c = bg4_128gb_nand(plane_reads);
    (c.suspension.enabled, c.suspension.read_priority) = (enabled, priority);
    (c.tR_max_us, c.tPROG_max_us, c.tBERS_max_ms) = (vec![], vec![], 0.0);
    c
}

/// A read's die time before its data-out: command + tR of page type 0.
pub fn sense_ns(c: &NandConfig) -> Ns {
    c.command_overhead_ns + us_to_ns(c.tR_us[0])
}

/// The channel bus's time to move `bytes`.
pub fn bus_ns(c: &NandConfig, bytes: u64) -> Ns {
    transfer_ns(bytes, u64::from(c.bus_mts) * 1_000_000)
}
