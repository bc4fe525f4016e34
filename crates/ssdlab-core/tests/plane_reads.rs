//! Independent plane reads (`nand.independent_plane_read`): a single-plane read senses on its own plane
//! beside a read on another plane of the same die; reads on one plane, programs, erases and multi-plane
//! reads still take their turn. With or without them, host reads fill the idle time before a read booked
//! for later.

use crate::common::*;
use ssdlab_core::engine::us_to_ns;
use ssdlab_core::nand::{CellMode, Nand};
use ssdlab_core::{Rw, Workload};

#[test]
fn reads_on_two_planes_of_one_die_sense_together() {
    // with or without suspension and read priority (which track the die's work operation by operation)
    for (enabled, priority) in [(false, false), (false, true), (true, true)] {
        let c = bg4_128gb_nand_tracked(true, enabled, priority);
        let mut n = Nand::new(&c, 4096);
        let a = n.read_suspending(0, 0, 0, CellMode::Native, 0b01, 4096);
        let b = n.read_suspending(0, 0, 5, CellMode::Native, 0b10, 4096);
        assert_eq!(a, sense_ns(&c) + bus_ns(&c, 4096));
        // sensed at the same time; only the channel transfer is taken in turn
        assert_eq!(b, a + bus_ns(&c, 4096), "suspension {enabled}, priority {priority}");
    }
}

#[test]
fn without_plane_reads_or_on_one_plane_they_take_turns() {
    for (on, mask_b) in [(false, 0b10), (true, 0b01)] {
        let c = bg4_128gb_nand(on);
        let mut n = Nand::new(&c, 4096);
        n.read_suspending(0, 0, 0, CellMode::Native, 0b01, 4096);
        let b = n.read_suspending(0, 0, 5, CellMode::Native, mask_b, 4096);
        // the first read holds its die (or plane) for the sense, and without cache read its data-out too
        let held = sense_ns(&c) + if c.cache_read { 0 } else { bus_ns(&c, 4096) };
        assert_eq!(b, held + sense_ns(&c) + bus_ns(&c, 4096), "plane reads {on}, mask {mask_b:b}");
    }
}

#[test]
fn a_read_booked_for_later_does_not_hold_up_one_that_can_go_now() {
    // A read a map-page miss books 500 us ahead (it waits for the map page) leaves the plane, and without
    // plane reads the die, free before it: a read ready at 0 there senses at once, as the die's command
    // queue would serve it; so too with suspension or read priority, which track the die's work.
    for on in [true, false] {
        for (enabled, priority) in [(false, false), (true, false), (false, true), (true, true)] {
            let c = bg4_128gb_nand_tracked(on, enabled, priority);
            let mut n = Nand::new(&c, 4096);
            let later = us_to_ns(500.0);
            let a = n.read_suspending(0, later, 0, CellMode::Native, 0b01, 4096);
            assert_eq!(a, later + sense_ns(&c) + bus_ns(&c, 4096));
            let b = n.read_suspending(0, 0, 5, CellMode::Native, 0b01, 4096);
            let mode = format!("plane reads {on}, suspension {enabled}, priority {priority}");
            assert_eq!(b, sense_ns(&c) + bus_ns(&c, 4096), "{mode}");
            let held = sense_ns(&c) + if c.cache_read { 0 } else { bus_ns(&c, 4096) };
            assert_eq!(n.die_busy_ns()[0], 2 * held, "{mode}: the die is busy for both reads");
        }
    }
}

#[test]
fn a_die_is_busy_while_any_of_its_planes_senses() {
    let c = bg4_128gb_nand(true);
    let mut n = Nand::new(&c, 4096);
    let held = sense_ns(&c) + if c.cache_read { 0 } else { bus_ns(&c, 4096) };
    let later = us_to_ns(500.0);
    n.read_suspending(0, later, 0, CellMode::Native, 0b01, 4096);
    n.read_suspending(0, 0, 5, CellMode::Native, 0b10, 4096); // fills the idle time before it
    assert_eq!(n.die_busy_ns()[0], 2 * held);
    n.read_suspending(0, later + held / 2, 7, CellMode::Native, 0b10, 4096); // half beside the first
    assert_eq!(n.die_busy_ns()[0], 2 * held + held / 2);
}

#[test]
fn a_program_waits_for_every_read_and_a_read_waits_for_the_program() {
    for on in [true, false] {
        let c = bg4_128gb_nand(on);
        let mut n = Nand::new(&c, 4096);
        let unit = u64::from(n.geo.slots_per_program(CellMode::Native)) * 4096;
        let r0 = n.read_suspending(0, 0, 0, CellMode::Native, 0b01, 4096);
        n.read_suspending(0, 0, 0, CellMode::Native, 0b10, 4096);
        let programmed = n.program(0, 0, 0, CellMode::Native, unit);
        let prog = c.command_overhead_ns + us_to_ns(c.tPROG_us[0]);
        // the program starts only once both planes have sensed (and its data has moved in)
        let sensed = r0 - bus_ns(&c, 4096);
        assert!(
            programmed - prog >= sensed,
            "program from {} before the reads sensed at {sensed}",
            programmed - prog
        );
        let after = n.read_suspending(0, 0, 9, CellMode::Native, 0b10, 4096);
        assert_eq!(after, programmed + sense_ns(&c) + bus_ns(&c, 4096));
    }
}

/// 4 KiB random reads at QD32 over the first GiB for 0.2 s.
fn randread_1g() -> Workload {
    Workload {
        rw: Rw::RandRead,
        bs: 4096,
        iodepth: 32,
        size: 1 << 30,
        runtime_ns: SEC / 5,
        time_based: true,
        ..Workload::default()
    }
}

#[test]
fn plane_reads_lift_random_read_iops_of_a_four_die_drive() {
    let iops = |on: bool| {
        let mut d = drive("bg4-128gb", &[("nand.independent_plane_read", if on { "true" } else { "false" })]);
        fill(&mut d, 1 << 30);
        run(&mut d, randread_1g()).iops()
    };
    let (one, two) = (iops(false), iops(true));
    // four dies of two planes: up to twice the reads in flight; the firmware cores keep it below 2x
    assert!(two > 1.5 * one && two < 2.0 * one, "one read a die {one:.0}, plane reads {two:.0}");
}

#[test]
fn with_read_priority_a_plane_read_goes_ahead_of_queued_work_only() {
    // Two erases booked back to back on die 0: a read arriving during the first waits for it (no
    // suspension) but not for the second, which moves back by the read's die time.
    let c = bg4_128gb_nand_tracked(true, false, true);
    let mut n = Nand::new(&c, 4096);
    let first = n.erase(0, 0);
    let second = n.erase(0, 0);
    let got = n.read_suspending(0, first - 100_000, 9, CellMode::Native, 0b01, 4096);
    let held = sense_ns(&c) + if c.cache_read { 0 } else { bus_ns(&c, 4096) };
    assert_eq!(got, first + sense_ns(&c) + bus_ns(&c, 4096));
    assert_eq!(n.die_free_at(0), second + held);
    assert_eq!((n.counters.reads_waited_program_erase, n.counters.reads_prioritised), (1, 0));
    // a read arriving while the die is idle before queued work goes ahead of it all
    let third = n.erase(1, 2 * second);
    let got = n.read_suspending(1, 2 * second - 100_000, 9, CellMode::Native, 0b01, 4096);
    assert_eq!(got, 2 * second - 100_000 + sense_ns(&c) + bus_ns(&c, 4096));
    assert_eq!(n.die_free_at(1), third);
    // without read priority the read waits for the second erase as well
    let c = bg4_128gb_nand_tracked(true, false, false);
    let mut n = Nand::new(&c, 4096);
    n.erase(0, 0);
    let second = n.erase(0, 0);
    let got = n.read_suspending(0, first - 100_000, 9, CellMode::Native, 0b01, 4096);
    assert_eq!(got, second + sense_ns(&c) + bus_ns(&c, 4096));
}

#[test]
fn with_suspension_a_plane_read_suspends_a_running_program() {
    let c = bg4_128gb_nand_tracked(true, true, true);
    let mut n = Nand::new(&c, 4096);
    let unit = u64::from(n.geo.slots_per_program(CellMode::Native)) * 4096;
    let done = n.program(0, 0, 0, CellMode::Native, unit);
    let at = done - 500_000;
    let got = n.read_suspending(0, at, 9, CellMode::Native, 0b10, 4096);
    assert_eq!(got - at, us_to_ns(c.suspension.tSUSP_program_us) + sense_ns(&c) + bus_ns(&c, 4096));
    assert_eq!(n.counters.program_suspensions, 1);
    // a read on the other plane right behind it waits for the suspending read's plane booking only
    // if on the same plane; on plane 0 it goes once the die is back from the suspension's read
    let next = n.read_suspending(0, at, 3, CellMode::Native, 0b01, 4096);
    assert!(next > at && next < done, "{next} against the program's end {done}");
}

#[test]
fn plane_reads_combine_with_suspension_in_a_drive() {
    // A small bg4-128gb with suspension and read priority on, and its plane reads: a read-write mix runs,
    // reads suspend programs, and pure random reads keep the plane reads' speed.
    fn set(on: &str) -> [(&str, &str); 3] {
        [
            ("nand.suspension.enabled", on),
            ("nand.suspension.read_priority", on),
            ("ftl.user_capacity_gb", "8"),
        ]
    }
    let iops = |on: &str| {
        let mut d = drive("bg4-128gb", &set(on));
        fill(&mut d, 1 << 30);
        run(&mut d, randread_1g()).iops()
    };
    let (off, on) = (iops("false"), iops("true"));
    assert!((on / off - 1.0).abs() < 0.02, "random reads {off:.0} IOPS plain, {on:.0} with suspension");
    let mut d = drive("bg4-128gb", &set("true"));
    fill(&mut d, 1 << 30);
    let mix = Workload { rw: Rw::RandRw, rwmixread: 50, iodepth: 8, ..randread_1g() };
    let r = run(&mut d, mix);
    assert!(r.iops() > 0.0);
    assert!(r.counters[ssdlab_core::Counter::nand_program_suspensions] > 0.0);
}
