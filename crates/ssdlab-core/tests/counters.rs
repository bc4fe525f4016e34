//! The counter registry against a real drive.
use crate::common::*;
use ssdlab_core::stats::{Counters, Kind, COUNTERS};
use ssdlab_core::Counter as C;
use ssdlab_core::{Rw, Workload};

#[test]
fn a_drive_reports_every_registry_counter_in_order() {
    let d = drive("generic-tlc-dram", &[("ftl.user_capacity_gb", "16")]);
    let names: Vec<&str> = d.counters().iter().map(|(k, _)| k).collect();
    let registry: Vec<&str> = COUNTERS.iter().map(|c| c.name).collect();
    assert_eq!(names, registry);
}

#[test]
fn two_runs_add_up_by_kind() {
    let mut d = drive("generic-tlc-dram", &[("ftl.user_capacity_gb", "16")]);
    let before = d.counters();
    let w = |rw, size| Workload { rw, bs: 128 << 10, iodepth: 8, size, ..Workload::default() };
    let r1 = run(&mut d, w(Rw::Write, 256 << 20));
    let r2 = run(&mut d, w(Rw::RandWrite, 128 << 20));
    let span = Counters::delta(&before, &d.counters());
    let values = |c: &Counters| c.iter().map(|(_, v)| v).collect::<Vec<f64>>();
    let (v1, v2, vs) = (values(&r1.counters), values(&r2.counters), values(&span));
    for (i, def) in COUNTERS.iter().enumerate() {
        let (a, b, s) = (v1[i], v2[i], vs[i]);
        match def.kind {
            Kind::Total => assert_eq!(s, a + b, "{}: a total adds up", def.name),
            Kind::Level => assert_eq!(s, b, "{}: a level is its value after the second run", def.name),
            Kind::Derived => {}
        }
    }
    assert_eq!(span[C::host_write_bytes], (384u64 << 20) as f64);
    assert_eq!(span[C::mapped_bytes], d.counters()[C::mapped_bytes]);
    let waf =
        (span[C::flash_bytes_written] + span[C::map_pages_written] * 4096.0) / span[C::host_write_bytes];
    assert_eq!(span[C::waf], waf, "derived counters are recomputed over the span");
}

#[test]
fn a_run_result_names_unknown_counters_as_errors() {
    let mut d = drive("generic-tlc-dram", &[("ftl.user_capacity_gb", "16")]);
    let r = run(&mut d, Workload { rw: Rw::Write, size: 16 << 20, ..Workload::default() });
    assert_eq!(r.counter("host_write_bytes"), Ok((16u64 << 20) as f64));
    let e = r.counter("host_writes_bytes").unwrap_err();
    assert!(e.to_string().contains("host_write_bytes"), "{e}");
}
