//! The stepping API: a drive driven one command at a time (submit, advance, poll) behaves exactly as
//! `run`, which is a loop over the same calls; flush and FUA put acknowledged data on flash; several
//! job specs run at once.

use crate::common::*;
use ssdlab_core::{Command, Job, Op};
use ssdlab_core::{Counter, Drive, Rw, Workload};

fn fresh() -> Drive {
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "8")]);
    fill(&mut d, 2 << 30);
    d
}

fn mixed() -> Workload {
    Workload {
        rw: Rw::RandRw,
        rwmixread: 70,
        iodepth: 8,
        numjobs: 2,
        size: 2 << 30,
        io_size: 16 << 20,
        seed: 7,
        ..Workload::default()
    }
}

/// The IOs `run` would issue for `w` (no rate limit, no think time), submitted and polled by hand.
/// Returns (IOs, sum of latencies, max latency).
fn stepped(d: &mut Drive, w: &Workload) -> (u64, u64, u64) {
    let cap = d.capacity_bytes();
    let t0 = d.now_ns();
    let mut jobs: Vec<Job> = (0..w.numjobs).map(|i| Job::new(w, i, i, cap, t0)).collect();
    let (mut n, mut sum, mut max) = (0, 0, 0);
    let top_up = |d: &mut Drive, j: usize, jobs: &mut Vec<Job>| {
        let job = &mut jobs[j];
        while job.outstanding < job.iodepth && !job.done {
            let io = job.next_io();
            d.submit(Command { tag: j as u64, ..io }).unwrap();
            job.outstanding += 1;
        }
    };
    for j in 0..jobs.len() {
        top_up(d, j, &mut jobs);
    }
    while d.advance_to_next_completion().is_some() {
        while let Some(c) = d.poll() {
            assert!(c.complete_ns <= d.now_ns(), "a completion is never handed out early");
            let lat = c.complete_ns - c.submit_ns;
            (n, sum, max) = (n + 1, sum + lat, max.max(lat));
            let j = c.tag as usize;
            jobs[j].outstanding -= 1;
            top_up(d, j, &mut jobs);
        }
    }
    (n, sum, max)
}

#[test]
fn the_same_ios_stepped_by_hand_give_exactly_what_run_gives() {
    let w = mixed();
    let mut by_run = fresh();
    let mut by_hand = by_run.clone();
    let r = run(&mut by_run, w.clone());
    let (n, sum, max) = stepped(&mut by_hand, &w);
    let lat = r.latency();
    assert_eq!(n, r.stats.read.ios + r.stats.write.ios);
    assert!(n > 5000);
    // the run's histogram keeps 3 significant digits
    assert!((max as f64 - lat.max_ns() as f64).abs() <= 1e-3 * max as f64, "{max} vs {}", lat.max_ns());
    let mean = sum as f64 / n as f64;
    assert!((mean - lat.mean_ns()).abs() <= 1e-3 * mean, "{mean} vs {}", lat.mean_ns());
    assert_eq!(by_hand.now_ns(), by_run.now_ns());
    let bits = |d: &Drive| d.counters().iter().map(|(k, v)| (k, v.to_bits())).collect::<Vec<_>>();
    assert_eq!(bits(&by_hand), bits(&by_run), "every counter, bit for bit");
}

#[test]
fn completions_wait_for_the_clock_and_the_clock_never_goes_back() {
    let mut d = fresh();
    let id = d.submit(Command::new(Op::Read, 0, 4096)).unwrap();
    assert!(d.poll().is_none(), "submitted at now, complete later");
    let done = d.next_completion_ns().unwrap();
    d.advance(done - 1);
    assert!(d.poll().is_none());
    d.advance(done);
    let c = d.poll().unwrap();
    assert_eq!((c.id, c.op, c.offset, c.len, c.complete_ns), (id, Op::Read, 0, 4096, done));
    assert!(d.poll().is_none());
    d.advance(done - 10);
    assert_eq!(d.now_ns(), done, "advance never moves the clock back");
    assert_eq!(d.advance_to_next_completion(), None);
}

#[test]
fn each_command_tells_its_completion_time_until_it_is_polled() {
    let mut d = fresh();
    let ids: Vec<u64> = (0..4).map(|i| d.submit(Command::new(Op::Read, i * 4096, 4096)).unwrap()).collect();
    let times: Vec<_> = ids.iter().map(|&id| d.completion_ns(id).unwrap()).collect();
    assert_eq!(times.iter().min().copied(), d.next_completion_ns());
    d.advance(*times.iter().max().unwrap());
    let polled: Vec<_> = std::iter::from_fn(|| d.poll()).map(|c| (c.id, c.complete_ns)).collect();
    let mut told: Vec<_> = ids.iter().copied().zip(times).collect();
    told.sort_by_key(|&(id, t)| (t, id));
    assert_eq!(polled, told, "the time told at submission is the time it completes");
    assert_eq!(d.completion_ns(ids[0]), None, "polled");
    assert_eq!(d.completion_ns(999), None, "never submitted");
}

#[test]
fn commands_outside_the_drive_or_off_a_sector_are_refused_with_the_field_named() {
    let mut d = fresh();
    let cap = d.capacity_bytes();
    let field = |d: &mut Drive, c: Command| match d.submit(c) {
        Err(ssdlab_core::SimError::Workload(e)) => e.field,
        other => panic!("expected a workload error, got {other:?}"),
    };
    assert_eq!(field(&mut d, Command::new(Op::Read, 100, 4096)), "offset");
    assert_eq!(field(&mut d, Command::new(Op::Write, 0, 0)), "length");
    assert_eq!(field(&mut d, Command::new(Op::Write, 0, 1000)), "length");
    assert_eq!(field(&mut d, Command::new(Op::Read, cap - 4096, 8192)), "length");
    assert_eq!(field(&mut d, Command::new(Op::Trim, 4096, u64::MAX - 4095)), "length");
    assert_eq!(field(&mut d, Command::new(Op::Read, 0, 128 << 20)), "length");
    assert_eq!(d.outstanding(), 0, "nothing refused was queued");
    d.submit(Command::new(Op::Trim, 0, cap)).unwrap();
}

/// The time from submission to completion of one command on an idle drive.
fn latency(d: &mut Drive, c: Command) -> u64 {
    d.idle(SEC);
    d.submit(c).unwrap();
    d.advance_to_next_completion();
    let c = d.poll().unwrap();
    c.complete_ns - c.submit_ns
}

#[test]
fn a_flush_waits_for_the_open_program_unit_and_a_fua_write_for_its_own_program() {
    let mut d = fresh();
    let nand = &d.config().nand;
    let tprog_us = nand.tPROG_us.iter().copied().fold(nand.slc_tPROG_us, f64::min);
    let tprog = (tprog_us * 1e3) as u64;
    let plain = latency(&mut d, Command::new(Op::Write, 0, 4096));
    assert!(plain < tprog, "a plain write is acknowledged from the buffer ({plain} ns)");
    let programmed = d.counters();
    let flush = latency(&mut d, Command::new(Op::Flush, 0, 0));
    assert!(flush >= tprog, "the 4 KiB left in the open unit is programmed first ({flush} ns)");
    let after = d.counters();
    assert!(after[Counter::padded_bytes] > programmed[Counter::padded_bytes], "the unit is padded out");
    let empty = latency(&mut d, Command::new(Op::Flush, 0, 0));
    assert!(empty < tprog, "nothing left to program: a flush is quick ({empty} ns)");
    let fua = latency(&mut d, Command { fua: true, ..Command::new(Op::Write, 8192, 4096) });
    assert!(fua >= tprog, "FUA completes once programmed ({fua} ns)");
}

fn reads() -> Workload {
    Workload { rw: Rw::RandRead, iodepth: 4, size: 2 << 30, io_size: 8 << 20, seed: 3, ..Workload::default() }
}

#[test]
fn two_job_specs_run_at_once_and_each_is_reported() {
    let writes = Workload {
        rw: Rw::Write,
        bs: 128 << 10,
        iodepth: 8,
        offset: 4 << 30,
        size: 1 << 30,
        seed: 3,
        ..Workload::default()
    };
    let mut d = fresh();
    let alone = run(&mut d.clone(), reads());
    let both = d.run_jobs(&[reads(), writes], &mut |_| true).unwrap();
    assert_eq!(both.jobs.len(), 2);
    let (r, w) = (&both.jobs[0], &both.jobs[1]);
    assert_eq!((r.read.bytes, r.write.bytes), (8 << 20, 0));
    assert_eq!((w.read.bytes, w.write.bytes), (0, 1 << 30));
    assert_eq!(both.stats.read.ios, r.read.ios);
    assert_eq!(
        both.stats.write.ios + both.stats.read.ios,
        r.read.ios + w.write.ios,
        "the group sums its jobs"
    );
    assert!(
        r.lat_read.mean_ns() > 1.2 * alone.stats.lat_read.mean_ns(),
        "reads beside a sequential writer wait for its programs ({:.0} vs {:.0} ns)",
        r.lat_read.mean_ns(),
        alone.stats.lat_read.mean_ns()
    );
}

#[test]
fn numjobs_is_the_same_as_that_many_identical_specs() {
    let mut a = fresh();
    let mut b = a.clone();
    let one = run(&mut a, Workload { numjobs: 3, ..reads() });
    let three = b.run_jobs(&[reads(), reads(), reads()], &mut |_| true).unwrap();
    assert_eq!(one.stats.read, three.stats.read);
    assert_eq!(one.latency().max_ns(), three.latency().max_ns());
    assert_eq!(three.jobs.iter().map(|j| j.read.ios).sum::<u64>(), one.stats.read.ios);
}

#[test]
fn a_run_waits_until_stepped_commands_are_polled() {
    let mut d = fresh();
    d.submit(Command::new(Op::Read, 0, 4096)).unwrap();
    match d.run(&reads(), &mut |_| true) {
        Err(ssdlab_core::SimError::Workload(e)) => assert_eq!(e.field, "run"),
        other => panic!("expected an error naming the run, got {other:?}"),
    }
    d.advance_to_next_completion();
    d.poll().unwrap();
    assert!(d.run(&reads(), &mut |_| true).is_ok());
}
