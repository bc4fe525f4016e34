//! NAND timing spreads: each read, program and erase draws its time between the typical and the maximum a
//! datasheet gives (`tR_max_us`, `tPROG_max_us`, `tBERS_max_ms`), uniformly: never below typical, never
//! above maximum, a mean halfway, a quarter of the draws in each quarter of the range. Seeded from the
//! drive's root seed; no spread, no draw.

use crate::common::*;
use ssdlab_core::config::NandConfig;
use ssdlab_core::engine::{us_to_ns, Ns};
use ssdlab_core::nand::{CellMode, Nand};
use ssdlab_core::DriveConfig;

const N: usize = 4000;

/// enterprise-tlc's NAND (the Starblaze table's one-shot TLC part: tR 50-85 us, tPROG 1.4-3 ms, tBERS 5-10 ms).
fn cfg() -> NandConfig {
    DriveConfig::from_toml_str(&preset_text("enterprise-tlc"), &[]).unwrap().nand
}

/// Die time of `n` back-to-back operations on die 0, each as `op` issues it.
fn die_times(nand: &mut Nand, n: usize, mut op: impl FnMut(&mut Nand, usize)) -> Vec<Ns> {
    (0..n)
        .map(|i| {
            let before = nand.die_busy_ns()[0];
            op(nand, i);
            nand.die_busy_ns()[0] - before
        })
        .collect()
}

/// Each draw as a fraction of the way from typical to maximum.
fn fractions(times: &[Ns], typ: Ns, max: Ns) -> Vec<f64> {
    times.iter().map(|&t| (t as f64 - typ as f64) / (max - typ) as f64).collect()
}

fn assert_uniform(f: &[f64]) {
    assert!(f.iter().all(|x| (0.0..=1.0).contains(x)), "every draw between typical and maximum");
    let mean = f.iter().sum::<f64>() / f.len() as f64;
    // sd of a uniform draw is 0.289: the mean of 4000 draws is within 0.014 at 3 sigma
    assert!((mean - 0.5).abs() < 0.014, "mean at {mean:.3} of the range, not 1/2");
    for q in 0..4 {
        let (lo, hi) = (f64::from(q) / 4.0, f64::from(q + 1) / 4.0);
        let share = f.iter().filter(|&&x| lo <= x && x < hi).count() as f64 / f.len() as f64;
        assert!((share - 0.25).abs() < 0.025, "{share:.3} of the draws in quarter {q}, not 1/4");
    }
}

#[test]
fn erase_times_are_drawn_between_typical_and_maximum() {
    let c = cfg();
    let mut nand = Nand::new_seeded(&c, 4096, 7);
    let times = die_times(&mut nand, N, |n, _| {
        n.erase(0, 0);
    });
    let cmd = c.command_overhead_ns;
    let f = fractions(&times, cmd + us_to_ns(c.tBERS_ms * 1e3), cmd + us_to_ns(c.tBERS_max_ms * 1e3));
    assert_uniform(&f);
}

#[test]
fn program_and_read_times_are_drawn_per_page_type() {
    // tR per page type: LSB and MSB spread, CSB without (max = typical).
    let o = |k: &str, v: &str| (k.to_string(), v.to_string());
    let c = DriveConfig::from_toml_str(
        &preset_text("enterprise-tlc"),
        &[
            o("nand.tR_us", "[40, 50, 60]"),
            o("nand.tR_max_us", "[80, 50, 100]"),
            o("nand.cache_read", "true"),
        ],
    )
    .unwrap()
    .nand;
    let mut nand = Nand::new_seeded(&c, 4096, 7);
    let unit = u64::from(nand.geo.slots_per_program(CellMode::Native)) * 4096;
    let cmd = c.command_overhead_ns;
    let progs = die_times(&mut nand, N, |n, _| {
        n.program(0, 0, 0, CellMode::Native, unit);
    });
    let f = fractions(&progs, cmd + us_to_ns(c.tPROG_us[0]), cmd + us_to_ns(c.tPROG_max_us[0]));
    assert_uniform(&f);
    for (page, (typ, max)) in [(40.0, 80.0), (50.0, 50.0), (60.0, 100.0)].into_iter().enumerate() {
        let reads = die_times(&mut nand, N, |n, _| {
            n.read(0, 0, page as u32, CellMode::Native, 1, 4096);
        });
        let (typ, max) = (cmd + us_to_ns(typ), cmd + us_to_ns(max));
        if typ == max {
            assert!(reads.iter().all(|&t| t == typ), "page type {page} has no spread");
        } else {
            assert_uniform(&fractions(&reads, typ, max));
        }
    }
    // SLC-mode reads keep their one time.
    let slc = die_times(&mut nand, 10, |n, _| {
        n.read(0, 0, 0, CellMode::Slc, 1, 4096);
    });
    assert!(slc.iter().all(|&t| t == cmd + us_to_ns(c.slc_tR_us)));
}

#[test]
fn the_draws_follow_the_seed() {
    let c = cfg();
    let erases = |seed| {
        let mut nand = Nand::new_seeded(&c, 4096, seed);
        die_times(&mut nand, 50, |n, _| {
            n.erase(0, 0);
        })
    };
    assert_eq!(erases(1), erases(1));
    assert_ne!(erases(1), erases(2));
}

#[test]
fn max_equal_to_typical_is_no_spread() {
    let o = |k: &str, v: &str| (k.to_string(), v.to_string());
    let c = DriveConfig::from_toml_str(
        &preset_text("enterprise-tlc"),
        &[o("nand.tR_max_us", "50"), o("nand.tPROG_max_us", "1400"), o("nand.tBERS_max_ms", "5")],
    )
    .unwrap()
    .nand;
    let mut nand = Nand::new_seeded(&c, 4096, 7);
    let times = die_times(&mut nand, 20, |n, _| {
        n.erase(0, 0);
    });
    assert!(times.iter().all(|&t| t == c.command_overhead_ns + us_to_ns(c.tBERS_ms * 1e3)));
}

#[test]
fn a_maximum_below_typical_is_a_config_error_naming_the_key() {
    let o = |k: &str, v: &str| (k.to_string(), v.to_string());
    let e = DriveConfig::from_toml_str(
        &preset_text("enterprise-tlc"),
        &[o("nand.tR_max_us", "40"), o("nand.tPROG_max_us", "[1500, 2000]"), o("nand.tBERS_max_ms", "4")],
    )
    .unwrap_err();
    let paths: Vec<&str> = e.problems.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(paths, ["nand.tR_max_us", "nand.tPROG_max_us", "nand.tBERS_max_ms"], "{e}");
    assert!(e.to_string().contains("at least the typical tR_us 50"), "{e}");
}
