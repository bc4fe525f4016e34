//! Program/erase suspension: a host read that finds its die programming or erasing suspends the operation
//! (tSUSP, then the read, then the resume overhead) instead of waiting for it.

use crate::common::*;
use ssdlab_core::config::NandConfig;
use ssdlab_core::engine::{transfer_ns, us_to_ns, Ns};
use ssdlab_core::nand::{CellMode, Nand};
use ssdlab_core::Counter as C;
use ssdlab_core::{DriveConfig, RunResult, Rw, Workload};

const US: Ns = 1_000;
const MS: Ns = 1_000_000;

/// enterprise-tlc's NAND at its typical timings, without their spread (times here are derived by hand).
fn nand_cfg(overrides: &[(&str, &str)]) -> NandConfig {
    let o: Vec<(String, String)> = overrides.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let mut c = DriveConfig::from_toml_str(&preset_text("enterprise-tlc"), &o).unwrap().nand;
    (c.tR_max_us, c.tPROG_max_us, c.tBERS_max_ms) = (vec![], vec![], 0.0);
    c
}

/// Command + tR + moving one 4 KiB slot out over the channel.
fn read_ns(c: &NandConfig) -> Ns {
    sense_ns(c) + bus_ns(c, 4096)
}

fn prog_ns(c: &NandConfig) -> Ns {
    c.command_overhead_ns + us_to_ns(c.tPROG_us[0])
}

fn unit_bytes(n: &Nand) -> u64 {
    u64::from(n.geo.slots_per_program(CellMode::Native)) * 4096
}

#[test]
fn a_read_suspends_a_running_program_and_waits_only_tsusp() {
    let c = nand_cfg(&[]);
    let mut n = Nand::new(&c, 4096);
    let done = n.program(0, 0, 0, CellMode::Native, unit_bytes(&n));
    let at = done - prog_ns(&c) + MS; // 1 ms into the program
    let got = n.read_suspending(0, at, 0, CellMode::Native, 1, 4096);
    let susp = us_to_ns(c.suspension.tSUSP_program_us);
    assert_eq!(got - at, susp + read_ns(&c));
    assert_eq!(n.counters.program_suspensions, 1);
    assert_eq!(n.counters.reads_waited_program_erase, 0);
    // The program finishes later by the whole interruption.
    let interruption =
        susp + c.command_overhead_ns + us_to_ns(c.tR_us[0]) + us_to_ns(c.suspension.resume_overhead_us);
    assert_eq!(n.idle_at(), done + interruption);
    assert_eq!(n.die_busy_ns()[0], prog_ns(&c) + interruption);
}

#[test]
fn a_read_suspends_a_running_erase_and_waits_only_tsusp() {
    let c = nand_cfg(&[("nand.suspension.resume_overhead_us", "20")]);
    let mut n = Nand::new(&c, 4096);
    let done = n.erase(3, 0);
    let got = n.read_suspending(3, 2 * MS, 5, CellMode::Native, 1, 4096);
    assert_eq!(got - 2 * MS, us_to_ns(c.suspension.tSUSP_erase_us) + read_ns(&c));
    assert_eq!(n.counters.erase_suspensions, 1);
    let interruption =
        us_to_ns(c.suspension.tSUSP_erase_us) + c.command_overhead_ns + us_to_ns(c.tR_us[0]) + 20 * US;
    assert_eq!(n.idle_at(), done + interruption);
    // The other dies are untouched.
    assert_eq!(n.die_busy_ns()[2], 0);
}

#[test]
fn without_suspension_a_read_waits_for_the_rest_of_the_program_or_erase() {
    for prio in ["true", "false"] {
        let c = nand_cfg(&[("nand.suspension.enabled", "false"), ("nand.suspension.read_priority", prio)]);
        let mut n = Nand::new(&c, 4096);
        let done = n.program(0, 0, 0, CellMode::Native, unit_bytes(&n));
        let at = done - prog_ns(&c) + MS;
        let got = n.read_suspending(0, at, 0, CellMode::Native, 1, 4096);
        assert_eq!(got, done + read_ns(&c), "read_priority = {prio}");
        let erased = n.erase(1, 0);
        let got = n.read_suspending(1, MS, 0, CellMode::Native, 1, 4096);
        assert_eq!(got, erased + read_ns(&c));
        assert_eq!(n.counters.reads_waited_program_erase, 2);
        assert_eq!(n.counters.program_suspensions + n.counters.erase_suspensions, 0);
    }
}

#[test]
fn reads_during_one_suspension_share_it_and_the_cap_is_honoured() {
    let c = nand_cfg(&[("nand.suspension.max_suspensions_per_op", "2")]);
    let mut n = Nand::new(&c, 4096);
    let susp = us_to_ns(c.suspension.tSUSP_erase_us);
    let array_read = c.command_overhead_ns + us_to_ns(c.tR_us[0]);
    let bus = transfer_ns(4096, u64::from(c.bus_mts) * 1_000_000);
    n.erase(0, 0);
    // Two reads 10 us apart: one suspension, the second read queued behind the first inside it.
    let a = n.read_suspending(0, MS, 0, CellMode::Native, 1, 4096);
    let b = n.read_suspending(0, MS + 10 * US, 3, CellMode::Native, 1, 4096);
    assert_eq!(a, MS + susp + array_read + bus);
    assert_eq!(b, MS + susp + 2 * array_read + bus);
    assert_eq!(n.counters.erase_suspensions, 1);
    // A second suspension is allowed, a third is not: that read waits for the erase to end.
    let c2 = n.read_suspending(0, 4 * MS, 0, CellMode::Native, 1, 4096);
    assert_eq!(c2, 4 * MS + susp + array_read + bus);
    assert_eq!(n.counters.erase_suspensions, 2);
    let end = n.idle_at();
    let d = n.read_suspending(0, 6 * MS, 0, CellMode::Native, 1, 4096);
    assert_eq!(d, end + array_read + bus);
    assert_eq!(n.counters.reads_waited_program_erase, 1);
    assert_eq!(n.counters.erase_suspensions, 2);
}

#[test]
fn with_read_priority_a_read_goes_ahead_of_queued_work() {
    let c = nand_cfg(&[]);
    let mut n = Nand::new(&c, 4096);
    let bytes = unit_bytes(&n);
    let first = n.program(0, 0, 0, CellMode::Native, bytes);
    for p in 1..10 {
        n.program(0, 0, 3 * p, CellMode::Native, bytes);
    }
    let queued_until = n.idle_at();
    assert!(queued_until > first + 8 * prog_ns(&c));
    // Arrives during the first program, with nine queued behind it: suspends the first, ignores the rest.
    let at = first - MS;
    let got = n.read_suspending(0, at, 0, CellMode::Native, 1, 4096);
    assert_eq!(got - at, us_to_ns(c.suspension.tSUSP_program_us) + read_ns(&c));
    // GC reads are not host reads: they queue at the end and never suspend.
    let gc = n.read(0, at, 0, CellMode::Native, 1, 4096);
    assert!(gc > queued_until);
}

#[test]
fn with_read_priority_a_read_never_moves_a_host_read_already_booked() {
    // A host read booked 500 us ahead (its map page is being read) has its time: a read ready now takes
    // the gap before it if it fits, else goes after it; only queued programs and erases move back.
    let c = nand_cfg(&[("nand.suspension.enabled", "false"), ("nand.suspension.read_priority", "true")]);
    let mut n = Nand::new(&c, 4096);
    let ahead = 500 * US;
    n.read_suspending(0, ahead, 0, CellMode::Native, 1, 4096);
    let sensed = n.die_free_at(0);
    let held = sensed - ahead; // the die's time for one read
    n.read_suspending(0, 0, 3, CellMode::Native, 1, 4096);
    assert_eq!(n.die_free_at(0), sensed, "the read ready now fits before it");
    n.read_suspending(0, ahead - held / 2, 6, CellMode::Native, 1, 4096);
    assert_eq!(n.die_free_at(0), sensed + held, "one that does not fit goes after it");
    let erase = c.command_overhead_ns + us_to_ns(c.tBERS_ms * 1000.0);
    assert_eq!(n.erase(0, 0), sensed + held + erase);
    // a read ready before the erase starts goes ahead of it; the erase moves back by the read's time
    n.read_suspending(0, sensed + held - 1, 9, CellMode::Native, 1, 4096);
    assert_eq!(n.die_free_at(0), sensed + 2 * held + erase);
    assert_eq!(n.counters.reads_prioritised, 1);
}

#[test]
fn a_read_ready_earlier_than_one_booked_before_it_still_sees_the_die_busy() {
    // Requests are handed over in time order but become ready out of it: a data read waits for its map
    // page while another IO's read can go now. A read booked to be ready after an erase has ended must
    // not make the die forget the erase for a read that is ready during it.
    let c = nand_cfg(&[("nand.suspension.enabled", "false"), ("nand.suspension.read_priority", "true")]);
    let mut n = Nand::new(&c, 4096);
    let erased = n.erase(0, 0);
    n.read_suspending(0, erased + MS, 0, CellMode::Native, 1, 4096);
    let got = n.read_suspending(0, erased / 2, 3, CellMode::Native, 1, 4096);
    assert_eq!(got, erased + read_ns(&c));
    assert_eq!(n.counters.reads_waited_program_erase, 1);
}

#[test]
fn counters_reach_the_drive_result() {
    let mut d = drive("enterprise-tlc", &[("ftl.user_capacity_gb", "16")]);
    let names: Vec<&str> = d.counters().iter().map(|(k, _)| k).collect();
    for k in [
        "nand_program_suspensions",
        "nand_erase_suspensions",
        "nand_reads_waited_program_erase",
        "nand_reads_prioritised",
    ] {
        assert!(names.contains(&k), "{k}");
    }
    fill(&mut d, 1 << 30);
    let r = db_mix(&mut d, 67, 8_000, 1, SEC / 2);
    let s = r.counters[C::nand_program_suspensions] + r.counters[C::nand_erase_suspensions];
    assert!(s > 0.0, "a random write mix on a written drive suspends programs");
}

/// A small enterprise-tlc (same dies and timings, 64 blocks per plane) full and in GC steady state, so
/// programs and erases are running when reads arrive.
fn preconditioned(suspension: bool) -> ssdlab_core::Drive {
    let on = if suspension { "true" } else { "false" };
    let mut d = drive(
        "enterprise-tlc",
        &[("nand.blocks_per_plane", "64"), ("ftl.user_capacity_gb", "36"), ("nand.suspension.enabled", on)],
    );
    let cap = d.capacity_bytes();
    fill(&mut d, cap);
    run(
        &mut d,
        Workload { rw: Rw::RandWrite, bs: 128 << 10, iodepth: 32, io_size: cap / 2, ..Workload::default() },
    );
    d
}

/// fio's database mix at `rate` IOs per second per job in all, `rwmixread`% reads, 4 KiB: each direction at
/// its share (fio's `rate_iops=READ,WRITE`).
fn db_mix(d: &mut ssdlab_core::Drive, rwmixread: u32, rate: u64, jobs: u32, runtime: Ns) -> RunResult {
    let reads = rate * u64::from(rwmixread) / 100;
    run(
        d,
        Workload {
            rw: Rw::RandRw,
            rwmixread,
            rate_iops: reads,
            rate_iops_write: Some(rate - reads),
            numjobs: jobs,
            iodepth: 8,
            runtime_ns: runtime,
            time_based: true,
            ..Workload::default()
        },
    )
}

#[test]
fn starblaze_effect_on_enterprise_tlc_db_mix() {
    // The drive draws each time between the table's typical and maximum: bounds at the maxima, the floor at
    // the typical program.
    let c = nand_cfg(&[]);
    let worst = nand_cfg(&[("nand.tR_us", "85"), ("nand.tBERS_ms", "10")]);
    let tbers = us_to_ns(worst.tBERS_ms * 1e3);
    let tprog = prog_ns(&c);
    let bound = us_to_ns(c.suspension.tSUSP_erase_us) + 4 * read_ns(&worst) + 100 * US;
    // 2:1 at the published 2r1w_1thread total rate (5803 + 3076 IOPS), one job.
    // Preconditioning writes only, so both drives reach the same state.
    let r_off = db_mix(&mut preconditioned(false), 67, 8_879, 1, 8 * SEC);
    let r_on = db_mix(&mut preconditioned(true), 67, 8_879, 1, 8 * SEC);
    let (max_off, max_on) = (r_off.stats.lat_read.max_ns(), r_on.stats.lat_read.max_ns());
    let (mean_off, mean_on) = (r_off.stats.lat_read.mean_ns(), r_on.stats.lat_read.mean_ns());
    eprintln!(
        "off: mean {:.1} us max {:.0} us; on: mean {:.1} us max {:.0} us; erases {} / {}, suspensions {} + {}",
        mean_off / 1e3,
        max_off as f64 / 1e3,
        mean_on / 1e3,
        max_on as f64 / 1e3,
        r_off.counters[C::nand_blocks_erased],
        r_on.counters[C::nand_blocks_erased],
        r_on.counters[C::nand_program_suspensions],
        r_on.counters[C::nand_erase_suspensions],
    );
    // Erases run during the mix (the preconditioning's GC is still under way): reads land on them.
    assert!(r_on.counters[C::nand_erase_suspensions] > 0.0, "reads must land on running erases");
    assert!(r_off.counters[C::nand_reads_waited_program_erase] > 0.0);
    // Without suspension: the worst read waited for most of an erase (at least a program), at most a whole one.
    assert!(max_off > tprog, "max read without suspension {max_off} ns, tPROG {tprog} ns");
    assert!(max_off <= tbers + bound, "max read without suspension {max_off} ns, tBERS {tbers} ns");
    // With it: bounded by the erase-suspend latency + a few reads.
    assert!(max_on <= bound, "max read with suspension {max_on} ns, bound {bound} ns");
    assert!(max_on * 3 < max_off);
    assert!(mean_on < mean_off, "mean read latency {mean_on} with vs {mean_off} without");
    assert!(r_on.counters[C::nand_erase_suspensions] > 0.0);
}

#[test]
fn without_suspension_only_reads_that_find_their_die_programming_or_erasing_wait() {
    // A read stuck behind a program on one die must not hold up reads from other dies (on the channel,
    // the host link or anywhere else): the reads that waited long are the ones the die counted.
    let c = nand_cfg(&[]);
    let r = db_mix(&mut preconditioned(false), 67, 8_879, 1, 4 * SEC);
    let reads = r.stats.read.ios as f64;
    let waited = r.counters[C::nand_reads_waited_program_erase] / reads;
    assert!(waited > 0.01, "reads must land on running programs: {waited}");
    let p = 100.0 * (1.0 - waited) - 1.0;
    let quick = r.stats.lat_read.percentile_ns(p);
    assert!(
        quick < 2 * read_ns(&c) + 100 * US,
        "p{p:.1} read latency {quick} ns ({:.1}% waited)",
        waited * 100.0
    );
}

#[test]
fn with_read_priority_reads_beside_a_writer_wait_for_one_program_not_the_queue() {
    // A client drive as shipped (no suspension, read priority): 4 KiB reads at QD4 beside a 128 KiB
    // writer filling its SLC cache. A read waits for the SLC program running on its die when it arrives,
    // then goes ahead of those queued behind it; on a FIFO die it waits for the whole queue.
    let reads = Workload {
        rw: Rw::RandRead,
        bs: 4096,
        iodepth: 4,
        size: 1 << 30,
        runtime_ns: 200 * MS,
        time_based: true,
        seed: 1,
        ..Workload::default()
    };
    let writes = Workload {
        rw: Rw::Write,
        bs: 128 << 10,
        iodepth: 8,
        offset: 4 << 30,
        size: 4 << 30,
        runtime_ns: 200 * MS,
        seed: 2,
        ..Workload::default()
    };
    let run = |priority: &str| {
        let o = [("ftl.user_capacity_gb", "16"), ("nand.suspension.read_priority", priority)];
        let mut d = drive("bg4-128gb", &o);
        let fill =
            Workload { rw: Rw::Write, bs: 128 << 10, iodepth: 32, size: 1 << 30, ..Workload::default() };
        d.run(&fill, &mut |_| true).unwrap();
        let res = d.run_jobs(&[reads.clone(), writes.clone()], &mut |_| true).unwrap();
        assert!(res.jobs[1].write.bytes > 64 << 20, "the writer kept the dies programming");
        res.jobs[0].lat_read.clone()
    };
    let c = drive("bg4-128gb", &[]).config().nand.clone();
    assert!(c.suspension.read_priority && !c.suspension.enabled, "the preset serves reads first");
    let (first, fifo) = (run("true"), run("false"));
    let slc_program = c.command_overhead_ns + us_to_ns(c.slc_tPROG_us);
    // one program, the reads queued on the die ahead of it (QD4) and the rest of the path
    assert!(
        first.max_ns() < slc_program + 250 * US,
        "worst read {} ns against one {slc_program} ns SLC program",
        first.max_ns()
    );
    assert!(
        fifo.mean_ns() > 3.0 * first.mean_ns(),
        "FIFO mean {:.0} ns, read priority {:.0} ns",
        fifo.mean_ns(),
        first.mean_ns()
    );
}
