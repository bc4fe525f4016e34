//! The page register: a host read of the page the die (or plane) sensed last, with nothing booked there
//! since, moves only its data out (ONFI's change read column), no tR. Any other operation in between, or
//! another page, costs a full sense.

use crate::common::*;
use ssdlab_core::nand::{CellMode, Nand};
use ssdlab_core::Counter as C;
use ssdlab_core::{Rw, Workload};

#[test]
fn a_second_read_of_the_page_just_sensed_moves_only_its_data() {
    for plane_reads in [false, true] {
        let c = bg4_128gb_nand(plane_reads);
        assert!(!c.cache_read, "the sums below hold the die for the data-out");
        let mut n = Nand::new(&c, 4096);
        let out = bus_ns(&c, 4096);
        let a = n.host_read(0, 0, 7, 3, CellMode::Native, 0b01, 4096);
        assert_eq!(a, sense_ns(&c) + out);
        // the next 4 KiB of the same page: a command and the data-out, after the first read's
        let b = n.host_read(0, 0, 7, 3, CellMode::Native, 0b01, 4096);
        assert_eq!(b, a + c.command_overhead_ns + out, "plane reads {plane_reads}");
        assert_eq!(n.counters.register_hits, 1);
        assert_eq!(n.counters.pages_read, 1);
    }
}

#[test]
fn another_page_or_block_in_between_costs_a_full_sense() {
    let c = bg4_128gb_nand(false);
    let full = sense_ns(&c) + bus_ns(&c, 4096);
    for (block, page) in [(7, 4), (8, 3)] {
        let mut n = Nand::new(&c, 4096);
        n.host_read(0, 0, 7, 3, CellMode::Native, 0b01, 4096);
        let other = n.host_read(0, 0, block, page, CellMode::Native, 0b01, 4096);
        let again = n.host_read(0, 0, 7, 3, CellMode::Native, 0b01, 4096);
        assert_eq!(again, other + full, "block {block} page {page}");
        assert_eq!(n.counters.register_hits, 0);
    }
}

#[test]
fn a_program_erase_or_gc_read_on_the_die_overwrites_the_register() {
    let c = bg4_128gb_nand(true);
    let full = sense_ns(&c) + bus_ns(&c, 4096);
    for op in ["program", "erase", "gc read"] {
        let mut n = Nand::new(&c, 4096);
        let unit = u64::from(n.geo.slots_per_program(CellMode::Native)) * 4096;
        n.host_read(0, 0, 7, 3, CellMode::Native, 0b01, 4096);
        let busy = match op {
            "program" => n.program(0, 0, 0, CellMode::Native, unit),
            "erase" => n.erase(0, 0),
            _ => n.read(0, 0, 9, CellMode::Native, 2, 8192),
        };
        let again = n.host_read(0, 0, 7, 3, CellMode::Native, 0b01, 4096);
        assert!(again >= busy - bus_ns(&c, 8192) + full, "{op}: {again} against {busy}");
        assert_eq!(n.counters.register_hits, 0, "{op}");
    }
}

#[test]
fn with_plane_reads_each_plane_keeps_its_own_register() {
    let c = bg4_128gb_nand(true);
    let mut n = Nand::new(&c, 4096);
    n.host_read(0, 0, 7, 3, CellMode::Native, 0b01, 4096);
    n.host_read(0, 0, 7, 5, CellMode::Native, 0b10, 4096);
    n.host_read(0, 0, 7, 3, CellMode::Native, 0b01, 4096);
    assert_eq!(n.counters.register_hits, 1);
    // a read of both planes needs plane 1 to hold the page too: it senses again
    n.host_read(0, 0, 7, 3, CellMode::Native, 0b11, 8192);
    assert_eq!(n.counters.register_hits, 1);
}

#[test]
fn with_suspension_or_read_priority_the_register_holds_as_without() {
    for plane_reads in [false, true] {
        for (enabled, priority) in [(true, false), (false, true), (true, true)] {
            let c = bg4_128gb_nand_tracked(plane_reads, enabled, priority);
            let how = format!("plane reads {plane_reads}, suspension {enabled}, priority {priority}");
            let mut n = Nand::new(&c, 4096);
            let a = n.host_read(0, 0, 7, 3, CellMode::Native, 0b01, 4096);
            let b = n.host_read(0, 0, 7, 3, CellMode::Native, 0b01, 4096);
            assert_eq!(b, a + c.command_overhead_ns + bus_ns(&c, 4096), "{how}");
            // work booked after the sense (here an erase) overwrites the register, wherever reads go
            n.erase(0, 0);
            n.host_read(0, 0, 7, 3, CellMode::Native, 0b01, 4096);
            assert_eq!((n.counters.register_hits, n.counters.pages_read), (1, 2), "{how}");
        }
    }
}

#[test]
fn a_hit_on_both_planes_books_as_a_two_plane_sense_does_in_every_die_order() {
    // the hit and the sense share one booking: a two-plane hit takes the die (one data-out interface)
    // after the sense that filled both registers, whether the die is FIFO, tracked, or reads by plane
    for plane_reads in [false, true] {
        for (enabled, priority) in [(false, false), (true, false), (false, true), (true, true)] {
            let c = bg4_128gb_nand_tracked(plane_reads, enabled, priority);
            let how = format!("plane reads {plane_reads}, suspension {enabled}, priority {priority}");
            let mut n = Nand::new(&c, 4096);
            let a = n.host_read(0, 0, 7, 3, CellMode::Native, 0b11, 8192);
            assert_eq!(a, sense_ns(&c) + bus_ns(&c, 8192), "{how}");
            let b = n.host_read(0, 0, 7, 3, CellMode::Native, 0b11, 8192);
            assert_eq!(b, a + c.command_overhead_ns + bus_ns(&c, 8192), "{how}");
            // a one-plane read of another page after it waits for the hit's data-out
            let other = n.host_read(0, 0, 7, 4, CellMode::Native, 0b01, 4096);
            assert_eq!(other, b + sense_ns(&c) + bus_ns(&c, 4096), "{how}");
            assert_eq!((n.counters.register_hits, n.counters.pages_read), (1, 3), "{how}");
        }
    }
}

#[test]
fn small_sequential_reads_sense_each_page_once() {
    // 4 KiB sequential reads at QD4 of data in SLC: four reads a 16 KiB page, one sense a page; the same
    // with suspension or read priority on (the die's work is then tracked operation by operation).
    for on in ["false", "true"] {
        let mut d =
            drive("bg4-128gb", &[("nand.suspension.enabled", on), ("nand.suspension.read_priority", on)]);
        let size = 64 << 20;
        fill(&mut d, size);
        // the fill's last programs finish first (a read that suspended one would find its register
        // overwritten by the program's rest), and no background work starts yet (50 ms)
        d.idle(SEC / 50);
        let r = run(&mut d, Workload { rw: Rw::Read, bs: 4096, iodepth: 4, size, ..Workload::default() });
        assert_eq!(r.counters[C::nand_program_suspensions], 0.0);
        let (pages, hits) = (r.counters[C::nand_pages_read], r.counters[C::nand_register_hits]);
        assert_eq!(pages, (size / (16 << 10)) as f64, "one sense a 16 KiB page (suspension {on})");
        assert_eq!(hits, (size / 4096) as f64 - pages);
    }
}
