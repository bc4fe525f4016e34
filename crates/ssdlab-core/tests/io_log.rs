//! The IO log: a row per measured IO when a spec (or a replay) asks for one, agreeing with the run's own
//! totals and histograms; nothing kept when none asks.

use crate::common::*;
use ssdlab_core::{Op, ReplayOptions, Rw, TraceFormat, TraceReader, Workload};

fn reads(log_ios: bool) -> Workload {
    Workload {
        rw: Rw::RandRead,
        iodepth: 8,
        size: 1 << 30,
        runtime_ns: 5_000_000,
        time_based: true,
        log_ios,
        ..Workload::default()
    }
}

#[test]
fn a_logged_run_has_a_row_for_every_io_it_measured_and_the_same_latencies() {
    let mut d = drive("bg4-128gb", &[("ftl.user_capacity_gb", "4")]);
    fill(&mut d, 1 << 30);
    let res = run(&mut d, reads(true));
    assert!(res.stats.io_log.is_none(), "a one-spec run's log goes with its job only");
    let job = &res.jobs[0];
    let log = job.io_log.as_ref().expect("asked for");
    assert_eq!(log.len() as u64, job.read.ios);
    assert!(log.op.iter().all(|&op| op == Op::Read) && log.len.iter().all(|&l| l == 4096));
    // in completion order, each completing after it was submitted
    assert!(log.complete_ns.windows(2).all(|w| w[0] <= w[1]));
    let lat: Vec<u64> = log.submit_ns.iter().zip(&log.complete_ns).map(|(s, c)| c - s).collect();
    assert!(lat.iter().all(|&l| l > 0));
    let mean = lat.iter().sum::<u64>() as f64 / lat.len() as f64;
    assert!((mean - job.lat_read.mean_ns()).abs() <= 1e-3 * mean, "{mean} vs {}", job.lat_read.mean_ns());
    // the histogram keeps 3 significant digits
    let (max, hist_max) = (*lat.iter().max().unwrap(), job.lat_read.max_ns());
    assert!(max.abs_diff(hist_max) <= hist_max / 1000, "{max} vs {hist_max}");
}

#[test]
fn logging_changes_no_figure_and_an_unlogged_run_keeps_nothing() {
    let go = |log_ios: bool| {
        let mut d = drive("bg4-128gb", &[("ftl.user_capacity_gb", "4")]);
        fill(&mut d, 1 << 30);
        run(&mut d, reads(log_ios))
    };
    let (with, without) = (go(true), go(false));
    assert!(without.jobs[0].io_log.is_none());
    assert_eq!(with.stats.read.ios, without.stats.read.ios);
    assert_eq!(with.stats.lat_read.mean_ns(), without.stats.lat_read.mean_ns());
}

#[test]
fn specs_run_together_each_log_their_own_ios() {
    let mut d = drive("bg4-128gb", &[("ftl.user_capacity_gb", "4")]);
    fill(&mut d, 1 << 30);
    let writer = Workload { rw: Rw::RandWrite, offset: 2 << 30, ..reads(false) };
    let res = d.run_jobs(&[reads(true), writer], &mut |_| true).expect("run");
    let log = res.jobs[0].io_log.as_ref().expect("the reader asked");
    assert_eq!(log.len() as u64, res.jobs[0].read.ios);
    assert!(res.jobs[1].io_log.is_none(), "the writer did not ask");
}

#[test]
fn a_replay_logs_every_request_at_its_recorded_time() {
    let mut d = drive("bg4-128gb", &[("ftl.user_capacity_gb", "4")]);
    let text = "time_us,op,offset,length\n0,write,0,65536\n100,read,0,4096\n250,read,4096,8192\n";
    let mut records = TraceReader::new(text.as_bytes(), TraceFormat::Csv, d.capacity_bytes(), true);
    let t0 = d.now_ns();
    let opts = ReplayOptions { log_ios: true, ..ReplayOptions::default() };
    let res = d.replay(&mut records, &opts, &mut || true).expect("replay");
    let log = res.jobs[0].io_log.as_ref().expect("asked for");
    assert_eq!(log.len(), 3);
    assert_eq!(log.submit_ns, vec![t0, t0 + 100_000, t0 + 250_000]);
    assert_eq!((log.offset.clone(), log.len.clone()), (vec![0, 0, 4096], vec![65536, 4096, 8192]));
}
