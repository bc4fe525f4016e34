//! Host-side behaviour: limits, rates, queue depths, TRIM, bad input.

use crate::common::*;
use ssdlab_core::Counter as C;
use ssdlab_core::{ExitWhat, Rw, SimError, Workload};

#[test]
fn a_job_stops_after_size_bytes_unless_time_based() {
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "8")]);
    let r = run(
        &mut d,
        Workload { rw: Rw::Write, bs: 65536, iodepth: 4, numjobs: 3, size: 64 << 20, ..Workload::default() },
    );
    assert_eq!(r.stats.write.bytes, 3 * (64 << 20));
    let r = run(
        &mut d,
        Workload {
            rw: Rw::Read,
            bs: 65536,
            iodepth: 4,
            size: 64 << 20,
            runtime_ns: SEC / 10,
            time_based: true,
            ..Workload::default()
        },
    );
    assert!(r.stats.read.bytes > 64 << 20, "time_based loops over the region");
    let ms = r.stats.elapsed_ns() as f64 / 1e6;
    assert!((100.0..101.0).contains(&ms), "runtime honoured: {ms} ms");
}

#[test]
fn rate_iops_paces_an_open_loop_job() {
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "8")]);
    fill(&mut d, 1 << 30);
    let r = run(
        &mut d,
        Workload {
            rw: Rw::RandRead,
            iodepth: 8,
            size: 1 << 30,
            rate_iops: 5000,
            runtime_ns: SEC,
            time_based: true,
            ..Workload::default()
        },
    );
    assert!((r.iops() - 5000.0).abs() < 10.0, "{}", r.iops());
}

#[test]
fn a_job_ahead_of_its_rate_waits_for_its_ios_in_flight_before_it_sleeps_as_fio() {
    // One firmware core at 50 us a read: reads of unwritten blocks take ~55 us each, alone. At one every
    // 40 us (QD8) the job is ahead with a read in flight; fio waits for it, sleeps the 40 us it reckoned,
    // is then behind and issues two at once, the second waiting 50 us for the core. Open-loop pacing
    // would have kept one read at a time on the core (each arriving as the last one's core time ends).
    let set = [("controller.cores", "1"), ("controller.read_overhead_ns", "50000")];
    let mut d = drive("generic-tlc-dram", &set);
    let w = Workload {
        rw: Rw::RandRead,
        iodepth: 8,
        size: 1 << 30,
        rate_iops: 20_000,
        runtime_ns: SEC / 10,
        time_based: true,
        ..Workload::default()
    };
    let r = run(&mut d, w);
    let lat = r.latency();
    assert!((r.iops() - 20_000.0).abs() < 100.0, "the rate is kept: {}", r.iops());
    assert!(
        lat.max_ns() > lat.min_ns() + 40_000,
        "bursts queue on the core: {} .. {}",
        lat.min_ns(),
        lat.max_ns()
    );
}

#[test]
fn thinktime_spaces_the_ios_of_a_slot() {
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "8")]);
    fill(&mut d, 1 << 30);
    d.idle(5 * SEC); // long enough to fold the SLC cache too
    let busy =
        run(&mut d, Workload { rw: Rw::RandRead, size: 1 << 30, io_size: 4 << 20, ..Workload::default() });
    let idle = run(
        &mut d,
        Workload {
            rw: Rw::RandRead,
            size: 1 << 30,
            io_size: 4 << 20,
            thinktime_ns: 100_000,
            ..Workload::default()
        },
    );
    let per_io_busy = busy.stats.elapsed_ns() / 1024;
    let per_io_idle = idle.stats.elapsed_ns() / 1024;
    assert!(
        (per_io_idle as i64 - per_io_busy as i64).abs_diff(100_000) < 1_000,
        "{per_io_busy} vs {per_io_idle}"
    );
}

#[test]
fn mixed_workloads_split_by_rwmixread() {
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "8")]);
    fill(&mut d, 1 << 30);
    let r = run(
        &mut d,
        Workload {
            rw: Rw::RandRw,
            rwmixread: 70,
            iodepth: 8,
            size: 1 << 30,
            io_size: 80 << 20,
            ..Workload::default()
        },
    );
    let share = r.stats.read.ios as f64 / (r.stats.read.ios + r.stats.write.ios) as f64;
    assert!((share - 0.70).abs() < 0.02, "{share}");
}

#[test]
fn sata_ncq_caps_the_queue_at_32() {
    let sata = [
        ("link.kind", "sata"),
        ("link.gen", "3"),
        ("link.lanes", "1"),
        ("link.max_payload_bytes", "8192"),
        ("link.queue_depth_limit", "32"),
        ("ftl.user_capacity_gb", "8"),
    ];
    let mut d = drive("bg4-1tb", &sata);
    fill(&mut d, 1 << 30);
    let qd = |d: &mut ssdlab_core::Drive, iodepth| {
        run(
            d,
            Workload {
                rw: Rw::RandRead,
                iodepth,
                size: 1 << 30,
                runtime_ns: SEC / 10,
                time_based: true,
                ..Workload::default()
            },
        )
    };
    let at32 = qd(&mut d, 32);
    let at128 = qd(&mut d, 128);
    assert!((at128.iops() / at32.iops() - 1.0).abs() < 0.02, "{} vs {}", at32.iops(), at128.iops());
    assert!(at128.latency().mean_ns() > 3.0 * at32.latency().mean_ns(), "the extra IOs wait in the host");
}

#[test]
fn trim_unmaps_and_later_reads_skip_flash() {
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "8")]);
    fill(&mut d, 64 << 20);
    d.trim(0, 64 << 20).unwrap();
    let r = run(&mut d, Workload { rw: Rw::Read, bs: 1 << 20, size: 64 << 20, ..Workload::default() });
    assert_eq!(r.counters[C::nand_pages_read], 0.0);
    assert_eq!(r.counters[C::unmapped_reads], 16384.0);
    assert_eq!(r.counters[C::host_read_pages], 16384.0, "every page the reads touched");
}

#[test]
fn an_unaligned_read_touches_every_page_it_overlaps() {
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "8")]);
    // 3 KiB at 3 KiB offsets over 12 KiB: pages 0, 0-1, 1-2 and 2, six touches of three pages
    let w = Workload { rw: Rw::Read, bs: 3072, size: 12 << 10, ..Workload::default() };
    let r = run(&mut d, w);
    assert_eq!(r.counters[C::host_read_bytes], 12288.0);
    assert_eq!(r.counters[C::host_read_pages], 6.0);
}

#[test]
fn reads_of_just_written_data_hit_the_write_buffer() {
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "8")]);
    run(&mut d, Workload { rw: Rw::Write, bs: 4096, size: 16 << 10, ..Workload::default() });
    let r = run(&mut d, Workload { rw: Rw::Read, bs: 4096, size: 16 << 10, ..Workload::default() });
    assert_eq!(r.counters[C::write_buffer_hits], 4.0);
    assert_eq!(r.counters[C::nand_pages_read], 0.0);
}

#[test]
fn reads_of_data_whose_program_is_still_running_hit_the_write_buffer_and_later_the_flash() {
    // 1 MiB written at QD1: whole program units go to flash and are read back at once, while the dies
    // still program them (a TLC unit stays in the buffer until programmed); after an idle second every
    // program is done and the same reads sense the flash
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "8"), ("ftl.slc_cache.enabled", "false")]);
    let size = 1 << 20;
    run(&mut d, Workload { rw: Rw::Write, bs: 128 << 10, size, ..Workload::default() });
    let read = Workload { rw: Rw::Read, bs: 4096, iodepth: 32, size, ..Workload::default() };
    let soon = run(&mut d, read.clone());
    assert!(soon.counters[C::write_buffer_hits] > 0.0, "some reads find their data still buffered");
    d.idle(SEC);
    let later = run(&mut d, read);
    // a second later only the unit still being filled (the last pages written) is buffered
    let (hits, later_hits) = (soon.counters[C::write_buffer_hits], later.counters[C::write_buffer_hits]);
    assert!(later_hits < hits, "{later_hits} hits a second later against {hits}");
    assert!(later.counters[C::nand_pages_read] > soon.counters[C::nand_pages_read]);
}

#[test]
fn bad_workloads_name_the_field() {
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "8")]);
    let cases = [
        (Workload { iodepth: 0, ..Workload::default() }, "iodepth"),
        (Workload { bs: 1000, ..Workload::default() }, "bs"),
        (Workload { size: 1 << 50, ..Workload::default() }, "size"),
        (Workload { rwmixread: 101, ..Workload::default() }, "rwmixread"),
        (Workload { time_based: true, ..Workload::default() }, "runtime"),
    ];
    for (w, field) in cases {
        match d.run(&w, &mut |_| true) {
            Err(SimError::InvalidWorkload(problems)) => {
                let fields: Vec<&str> = problems.iter().map(|p| p.field.as_str()).collect();
                assert_eq!(fields, [field], "exactly the bad field is named");
            }
            other => panic!("{field}: expected the workload's problems, got {other:?}"),
        }
    }
    assert_eq!("randomread".parse::<Rw>().unwrap_err().field, "rw");
}

#[test]
fn progress_can_cancel_a_run() {
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "8")]);
    let w = Workload {
        rw: Rw::RandRead,
        iodepth: 32,
        size: 1 << 30,
        runtime_ns: 100 * SEC,
        time_based: true,
        ..Workload::default()
    };
    let mut calls = 0;
    let r = d.run(&w, &mut |_| {
        calls += 1;
        calls < 3
    });
    assert!(matches!(r, Err(SimError::Cancelled)));
}

#[test]
fn a_steady_job_stops_when_its_window_holds_still_as_fios_steadystate() {
    // fio: iops:5% over a 5 s window, recording from 1 s after a 2 s ramp -> samples at 3..7 s, stop at 7 s
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "8")]);
    fill(&mut d, 1 << 30);
    let steady = |ss: &str| Workload {
        rw: Rw::RandRead,
        size: 1 << 30,
        rate_iops: 1000,
        runtime_ns: 20 * SEC,
        time_based: true,
        steadystate: ssdlab_core::SsCriterion::parse(ss).unwrap(),
        steadystate_duration_ns: 5 * SEC,
        steadystate_ramp_time_ns: 2 * SEC,
        ..Workload::default()
    };
    let r = run(&mut d, steady("iops:5%"));
    let ss = r.stats.steadystate.as_ref().expect("a report");
    assert!(ss.attained);
    assert_eq!(ss.iops, [1000; 5]);
    let s = r.stats.elapsed_ns() as f64 / 1e9;
    assert!((6.99..7.01).contains(&s), "stopped at the 7 s check: {s} s");
    // a job that starts late is checked from its own start: 0.5 s later, stopped at 7.5 s
    let before = d.now_ns();
    let r = run(&mut d, Workload { startdelay_ns: SEC / 2, ..steady("iops:5%") });
    assert!(r.stats.steadystate.as_ref().unwrap().attained);
    let s = (d.now_ns() - before) as f64 / 1e9;
    assert!((7.49..7.51).contains(&s), "stopped at the 7.5 s check: {s} s");
    // a limit it cannot meet: runs its whole runtime, not attained
    let r = run(&mut d, steady("iops_slope:0"));
    assert!(!r.stats.steadystate.as_ref().unwrap().attained);
    assert!(r.stats.elapsed_ns() > 19 * SEC);
    // without ss_dur there is no check and no report
    let r = run(&mut d, Workload { steadystate_duration_ns: 0, ..steady("iops:5%") });
    assert!(r.stats.steadystate.is_none() && r.stats.elapsed_ns() > 19 * SEC);
}

#[test]
fn exitall_stops_its_group_when_one_job_finishes_as_fio() {
    // a reader of 64 MiB beside a writer that would go on for 10 s: with exitall on the reader, the run
    // ends when the reader does (both in one group, fio's default exit_what)
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "8")]);
    fill(&mut d, 1 << 30);
    let reader = |exitall| Workload {
        rw: Rw::RandRead,
        iodepth: 8,
        size: 1 << 30,
        io_size: 64 << 20,
        exitall,
        ..Workload::default()
    };
    let writer = paced_writer();
    let with = d.clone().run_jobs(&[reader(true), writer.clone()], &mut |_| true).unwrap();
    let without = d.clone().run_jobs(&[reader(false), writer], &mut |_| true).unwrap();
    assert_eq!(with.jobs[0].read.bytes, 64 << 20);
    let (a, b) = (with.stats.elapsed_ns(), without.stats.elapsed_ns());
    assert!(a < SEC && b > 9 * SEC, "with exitall {a} ns, without {b} ns");
    assert!(with.jobs[1].write.ios < without.jobs[1].write.ios / 10);
    // fio's exit_what: with the writer in another group (new_group) only "stonewall" or "all" stop it
    let apart = Workload { group: 1, ..paced_writer() };
    for (what, stopped) in [(ExitWhat::Group, false), (ExitWhat::Stonewall, true), (ExitWhat::All, true)] {
        let r =
            d.clone().run_jobs(&[Workload { exit_what: what, ..reader(true) }, apart.clone()], &mut |_| true);
        let ns = r.unwrap().stats.elapsed_ns();
        assert_eq!(ns < SEC, stopped, "exit_what {what:?}: {ns} ns");
    }
}

#[test]
fn a_job_stopped_while_it_waits_to_issue_ran_until_it_was_stopped_as_fio_counts_it() {
    // 3 IOPS for 1 s: its last IO completes at ~0.67 s, but fio's runtime is the whole second the job
    // ran (it slept to its next IO, due after the end), and bandwidth is reckoned over that second
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "8")]);
    let slow = Workload { rate_iops: 3, runtime_ns: SEC, ..paced_writer() };
    let before = d.now_ns();
    let r = d.run_jobs(std::slice::from_ref(&slow), &mut |_| true).unwrap();
    assert_eq!((r.stats.write.ios, r.stats.elapsed_ns()), (3, SEC));
    assert_eq!(d.now_ns() - before, SEC, "the drive idled until the run's end");
    // stopped by another job's exitall: it ran until that job finished
    let reader = Workload { rw: Rw::RandRead, io_size: 16 << 20, exitall: true, ..Workload::default() };
    let r = d.run_jobs(&[reader, Workload { runtime_ns: 10 * SEC, ..slow }], &mut |_| true).unwrap();
    let (read_end, ran) = (r.jobs[0].elapsed_ns(), r.jobs[1].elapsed_ns());
    assert!(ran >= read_end && ran < read_end + 1_000_000, "reader {read_end} ns, slow writer {ran} ns");
}

#[test]
fn a_run_of_several_reporting_groups_adds_up_each_groups_jobs() {
    // two readers in group 0, a writer in group 1: fio's group_reporting of each group
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "8")]);
    fill(&mut d, 1 << 30);
    let reader = Workload { rw: Rw::RandRead, size: 1 << 30, io_size: 8 << 20, ..Workload::default() };
    let writer = Workload { offset: 2 << 30, group: 1, ..paced_writer() };
    let specs = [reader.clone(), reader, writer];
    let r = d.clone().run_jobs(&specs, &mut |_| true).unwrap();
    let groups = r.groups(&specs);
    assert_eq!(groups.iter().map(|g| g.0).collect::<Vec<_>>(), [0, 1]);
    let (readers, writers) = (&groups[0].1, &groups[1].1);
    assert_eq!(readers.read.ios, r.jobs[0].read.ios + r.jobs[1].read.ios);
    assert_eq!(readers.lat_read.count(), readers.read.ios);
    assert_eq!((writers.write.ios, writers.read.ios), (r.jobs[2].write.ios, 0));
    // one group: the run is the group
    assert!(d.run_jobs(&specs[..2], &mut |_| true).unwrap().groups(&specs[..2]).is_empty());
}

/// 1,000 random writes a second for 10 s.
fn paced_writer() -> Workload {
    Workload {
        rw: Rw::RandWrite,
        offset: 2 << 30,
        size: 1 << 30,
        rate_iops: 1000,
        runtime_ns: 10 * SEC,
        time_based: true,
        ..Workload::default()
    }
}
