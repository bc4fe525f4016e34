//! Same preset, workload and seed give the same result bit for bit; another seed gives another one.

use crate::common::*;
use ssdlab_core::{Drive, RunResult, Rw, Workload};

fn mixed(seed: u64) -> Workload {
    Workload {
        rw: Rw::RandRw,
        rwmixread: 70,
        bs: 4096,
        iodepth: 16,
        numjobs: 2,
        size: 2 << 30,
        runtime_ns: SEC / 2,
        time_based: true,
        interval_ns: SEC / 100,
        seed,
        ..Workload::default()
    }
}

fn fingerprint(r: &RunResult) -> String {
    let l = &r.stats.lat_all;
    format!(
        "{:?} {:?} {:?} {} {} {} {:?} {:?}",
        r.stats.read,
        r.stats.write,
        r.stats.series.columns(),
        l.mean_ns().to_bits(),
        l.percentile_ns(99.99),
        l.max_ns(),
        r.counters.iter().map(|(k, v)| (k, v.to_bits())).collect::<Vec<_>>(),
        r.die_utilisation.iter().map(|u| u.to_bits()).collect::<Vec<_>>()
    )
}

fn fresh() -> Drive {
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "8")]);
    fill(&mut d, 4 << 30);
    d
}

#[test]
fn same_seed_same_result_bit_for_bit() {
    let a = run(&mut fresh(), mixed(42));
    let b = run(&mut fresh(), mixed(42));
    assert!(a.stats.read.ios > 1000 && a.stats.write.ios > 100);
    assert_eq!(fingerprint(&a), fingerprint(&b));
}

#[test]
fn a_clone_continues_exactly_like_its_original() {
    let mut original = fresh();
    let mut copy = original.clone();
    assert_eq!(fingerprint(&run(&mut original, mixed(3))), fingerprint(&run(&mut copy, mixed(3))));
}

#[test]
fn another_seed_gives_another_series() {
    let a = run(&mut fresh(), mixed(1));
    let b = run(&mut fresh(), mixed(2));
    assert_ne!(a.stats.series.columns(), b.stats.series.columns());
}
