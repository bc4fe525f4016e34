//! A drive that keeps data: reads return what was last written, trims and sanitize drop it, and keeping
//! data changes no timing. (The store is logical, by LPN: where the FTL puts a page does not move its data.)

use crate::common::*;
use ssdlab_core::{Command, Drive, Op, Rw, Workload};

const PAGE: u64 = 4096;

fn small() -> Drive {
    drive("bg4-1tb", &[("ftl.user_capacity_gb", "2")])
}

fn tiny() -> Drive {
    drive("bg4-1tb", &[("ftl.user_capacity_gb", "0.25")])
}

fn pattern(lpn: u64, version: u8) -> Vec<u8> {
    (0..PAGE).map(|i| (lpn as u8) ^ (i as u8).wrapping_mul(31) ^ version).collect()
}

fn write(d: &mut Drive, lpn: u64, data: &[u8]) -> u64 {
    d.submit_with_data(Command::new(Op::Write, lpn * PAGE, data.len() as u64), Some(data)).unwrap()
}

fn drain(d: &mut Drive) {
    while d.advance_to_next_completion().is_some() {
        while d.poll().is_some() {}
    }
}

#[test]
fn a_read_command_returns_what_was_written_and_zeros_where_nothing_was() {
    let mut d = small();
    d.enable_data();
    write(&mut d, 5, &[pattern(5, 1), pattern(6, 1)].concat());
    let id = d.submit(Command::new(Op::Read, 4 * PAGE, 3 * PAGE)).unwrap();
    let data = d.take_read_data(id).expect("a read's data");
    assert_eq!(&data[..PAGE as usize], &[0u8; PAGE as usize][..]);
    assert_eq!(&data[PAGE as usize..], &[pattern(5, 1), pattern(6, 1)].concat()[..]);
    assert_eq!(d.take_read_data(id), None, "taken once");
}

#[test]
fn the_last_version_written_reads_back_and_trim_and_sanitize_drop_it() {
    let mut d = tiny();
    d.enable_data();
    let lpns = d.capacity_bytes() / PAGE;
    // every page written twice, in scattered order
    for version in 0..2u8 {
        for k in 0..lpns {
            let lpn = (k * 7919) % lpns;
            write(&mut d, lpn, &pattern(lpn, version));
            if k % 64 == 0 {
                drain(&mut d);
            }
        }
    }
    drain(&mut d);
    for lpn in (0..lpns).step_by(997) {
        assert_eq!(d.read_data(lpn * PAGE, PAGE).unwrap(), pattern(lpn, 1), "LPN {lpn}");
    }
    d.submit(Command::new(Op::Trim, 0, 8 * PAGE)).unwrap();
    assert_eq!(d.read_data(0, 8 * PAGE).unwrap(), vec![0; 8 * PAGE as usize]);
    d.sanitize().unwrap();
    for lpn in (0..lpns).step_by(997) {
        assert_eq!(d.read_data(lpn * PAGE, PAGE).unwrap(), vec![0; PAGE as usize]);
    }
}

#[test]
fn keeping_data_changes_no_timing() {
    let w = Workload { rw: Rw::RandRw, iodepth: 8, size: 1 << 30, io_size: 64 << 20, ..Workload::default() };
    let mut plain = small();
    let mut kept = small();
    kept.enable_data();
    let (a, b) = (run(&mut plain, w.clone()), run(&mut kept, w));
    assert_eq!(a.stats.read.ios, b.stats.read.ios);
    assert_eq!(plain.now_ns(), kept.now_ns());
    assert_eq!(format!("{:?}", a.counters), format!("{:?}", b.counters));
}

#[test]
fn a_run_checks_its_reads_but_keeps_none_of_their_data() {
    // nobody takes a run's read data: kept, every read of the run would stay in memory
    let mut d = small();
    d.enable_data();
    for lpn in 0..64 {
        write(&mut d, lpn, &pattern(lpn, 1));
    }
    drain(&mut d);
    assert!(d.data_store_mut().unwrap().corrupt(5, 9));
    let w =
        Workload { rw: Rw::RandRead, iodepth: 8, size: 64 * PAGE, io_size: 4 << 20, ..Workload::default() };
    let r = run(&mut d, w);
    assert!(r.stats.read.ios >= 1024);
    let next = d.submit(Command::new(Op::Flush, 0, 0)).unwrap();
    assert!((0..next).all(|id| d.take_read_data(id).is_none()), "no read of the run left its data behind");
    // the corrupted page was read, and each read of it counted, as a stepped read counts it
    assert!(d.counters()[ssdlab_core::Counter::data_integrity_errors] >= 1.0);
}

#[test]
fn a_corrupted_page_is_counted_as_a_data_integrity_error() {
    let mut d = small();
    d.enable_data();
    write(&mut d, 3, &pattern(3, 0));
    assert!(d.data_store_mut().unwrap().corrupt(3, 100));
    let data = d.read_data(3 * PAGE, PAGE).unwrap();
    assert_ne!(data, pattern(3, 0));
    assert_eq!(d.counters()[ssdlab_core::Counter::data_integrity_errors], 1.0);
}

#[test]
fn bad_data_is_refused_with_the_field_named() {
    let mut d = small();
    let e = d.submit_with_data(Command::new(Op::Write, 0, 2 * PAGE), Some(&[1; 4096])).unwrap_err();
    assert!(e.to_string().contains("data"), "{e}");
    let e = d.submit_with_data(Command::new(Op::Read, 0, PAGE), Some(&[1; 4096])).unwrap_err();
    assert!(e.to_string().contains("only a write"), "{e}");
    let e = d.read_data(0, PAGE).unwrap_err();
    assert!(e.to_string().contains("keeps no data"), "{e}");
}
