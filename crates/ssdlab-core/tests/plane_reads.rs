//! Independent plane reads (`nand.independent_plane_read`): a single-plane read senses on its own plane
//! beside a read on another plane of the same die; reads on one plane, programs, erases and multi-plane
//! reads still take their turn.

mod common;

use common::*;
use ssdlab_core::engine::us_to_ns;
use ssdlab_core::nand::{CellMode, Nand};
use ssdlab_core::{DriveConfig, Rw, Workload};

#[test]
fn reads_on_two_planes_of_one_die_sense_together() {
    let c = bg4_128gb_nand(true);
    let mut n = Nand::new(&c, 4096);
    let a = n.read_suspending(0, 0, 0, CellMode::Native, 0b01, 4096);
    let b = n.read_suspending(0, 0, 5, CellMode::Native, 0b10, 4096);
    assert_eq!(a, sense_ns(&c) + bus_ns(&c, 4096));
    // sensed at the same time; only the channel transfer is taken in turn
    assert_eq!(b, a + bus_ns(&c, 4096));
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
    // A read a map-page miss books 500 us ahead (it waits for the map page) leaves the plane free before
    // it: a read ready at 0 on the same plane senses at once, as the die would do it.
    let c = bg4_128gb_nand(true);
    let mut n = Nand::new(&c, 4096);
    let later = us_to_ns(500.0);
    let a = n.read_suspending(0, later, 0, CellMode::Native, 0b01, 4096);
    assert_eq!(a, later + sense_ns(&c) + bus_ns(&c, 4096));
    let b = n.read_suspending(0, 0, 5, CellMode::Native, 0b01, 4096);
    assert_eq!(b, sense_ns(&c) + bus_ns(&c, 4096));
}

#[test]
fn a_program_waits_for_every_plane_and_a_plane_read_waits_for_the_program() {
    let c = bg4_128gb_nand(true);
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

#[test]
fn plane_reads_lift_random_read_iops_of_a_four_die_drive() {
    let iops = |on: bool| {
        let mut d = drive("bg4-128gb", &[("nand.independent_plane_read", if on { "true" } else { "false" })]);
        fill(&mut d, 1 << 30);
        let w = Workload {
            rw: Rw::RandRead,
            bs: 4096,
            iodepth: 32,
            size: 1 << 30,
            runtime_ns: SEC / 5,
            time_based: true,
            ..Workload::default()
        };
        run(&mut d, w).iops()
    };
    let (one, two) = (iops(false), iops(true));
    // four dies of two planes: up to twice the reads in flight; the firmware cores keep it below 2x
    assert!(two > 1.5 * one && two < 2.0 * one, "one read a die {one:.0}, plane reads {two:.0}");
}

#[test]
fn plane_reads_with_suspension_are_a_config_error() {
    let o = vec![
        ("nand.independent_plane_read".to_string(), "true".to_string()),
        ("nand.suspension.enabled".to_string(), "true".to_string()),
    ];
    let err = DriveConfig::from_toml_str(&preset_text("bg4-128gb"), &o).unwrap_err().to_string();
    assert!(err.contains("nand.independent_plane_read"), "{err}");
}
