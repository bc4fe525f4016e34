//! Commands in 512 B sectors. The drive maps 4 KiB logical pages: a command covering part of a page moves
//! only its own bytes over the link, reads the whole page from flash, and a write merges the page's other
//! sectors before the page is programmed whole: from the write buffer, or read from flash first
//! (read-modify-write), which the acknowledgement does not wait for.

use crate::common::*;
use ssdlab_core::link::Link;
use ssdlab_core::Counter as C;
use ssdlab_core::{Command, Drive, Op, Rw, Workload};

/// bg4-1tb at 8 GB, its map in DRAM and no SLC cache: 64 MiB written and on flash, the drive idle.
fn written() -> Drive {
    let mut d = drive(
        "bg4-1tb",
        &[
            ("ftl.user_capacity_gb", "8"),
            ("controller.map_cache.location", "dram"),
            ("ftl.slc_cache.enabled", "false"),
        ],
    );
    fill(&mut d, 64 << 20);
    d.submit(Command::new(Op::Flush, 0, 0)).unwrap();
    d.advance_to_next_completion();
    d.poll().unwrap();
    d.idle(SEC);
    d
}

/// Submit `c` on the idle drive; its latency and the change of counter `k` over it (its background
/// work included: the drive idles a second after).
fn one(d: &mut Drive, c: Command, k: C) -> (u64, f64) {
    let before = d.counters()[k];
    d.submit(c).unwrap();
    d.advance_to_next_completion();
    let done = d.poll().unwrap();
    d.idle(SEC);
    (done.complete_ns - done.submit_ns, d.counters()[k] - before)
}

#[test]
fn a_sector_read_senses_the_whole_page_and_moves_only_its_sector() {
    let mut d = written();
    let link = Link::new(&d.config().link);
    let (page, pages_read) = one(&mut d, Command::new(Op::Read, 8 << 20, 4096), C::nand_pages_read);
    let (sector, sector_pages) =
        one(&mut d, Command::new(Op::Read, (16 << 20) + 1536, 512), C::nand_pages_read);
    assert_eq!((pages_read, sector_pages), (1.0, 1.0), "one page sensed either way");
    let saved = link.wire_ns(4096) - link.wire_ns(512);
    assert_eq!(page - sector, saved, "the difference is the link time of the bytes not sent");
    assert_eq!(d.counters()[C::host_read_bytes], 4096.0 + 512.0);
}

#[test]
fn a_write_of_part_of_a_page_on_flash_reads_the_page_first() {
    let mut d = written();
    let (whole, rmw) = one(&mut d, Command::new(Op::Write, 4 << 20, 4096), C::rmw_reads);
    assert_eq!(rmw, 0.0, "a whole page needs nothing of the old one");
    let (part, rmw) = one(&mut d, Command::new(Op::Write, (8 << 20) + 512, 1024), C::rmw_reads);
    assert_eq!(rmw, 1.0, "part of a page on flash: its other sectors are read first");
    assert!(part <= whole, "the acknowledgement does not wait for that read: {part} against {whole}");
    // a write that straddles two pages on flash reads both; one over whole pages between reads none of them
    let (_, rmw) = one(&mut d, Command::new(Op::Write, (12 << 20) + 3584, 9216), C::rmw_reads);
    assert_eq!(rmw, 2.0);
}

#[test]
fn a_partial_write_of_an_unwritten_or_buffered_page_reads_nothing() {
    let mut d = written();
    // never written: the other sectors are zeros
    let (_, rmw) = one(&mut d, Command::new(Op::Write, 1 << 30, 512), C::rmw_reads);
    assert_eq!(rmw, 0.0);
    // two writes to the same page back to back: the second merges with the first in the buffer
    let before = d.counters()[C::rmw_reads];
    d.submit(Command::new(Op::Write, 2 << 30, 4096)).unwrap();
    d.submit(Command::new(Op::Write, (2 << 30) + 512, 512)).unwrap();
    while d.outstanding() > 0 {
        d.advance_to_next_completion();
        while d.poll().is_some() {}
    }
    assert_eq!(d.counters()[C::rmw_reads] - before, 0.0);
}

#[test]
fn sector_writes_count_their_own_bytes_so_small_writes_amplify() {
    let mut d = written();
    let w = Workload {
        rw: Rw::RandWrite,
        bs: 512,
        iodepth: 8,
        size: 64 << 20,
        io_size: 4 << 20,
        ..Workload::default()
    };
    let r = run(&mut d, w);
    assert_eq!(r.counters[C::host_write_bytes], (4 << 20) as f64);
    assert_eq!(r.stats.write.ios, 8192);
    // each 512 B write places a whole 4 KiB page: WAF at least 8
    assert!(r.counters[C::waf] >= 8.0, "WAF {}", r.counters[C::waf]);
    assert!(r.counters[C::rmw_reads] > 0.0);
}

#[test]
fn with_data_on_a_sector_write_changes_only_its_sector() {
    let mut d = written();
    d.enable_data();
    let page = vec![7u8; 4096];
    d.submit_with_data(Command::new(Op::Write, 0, 4096), Some(&page)).unwrap();
    d.submit_with_data(Command::new(Op::Write, 1024, 512), Some(&[9u8; 512])).unwrap();
    let got = d.read_data(0, 4096).unwrap();
    assert_eq!(&got[..1024], &page[..1024]);
    assert_eq!(&got[1024..1536], &[9u8; 512]);
    assert_eq!(&got[1536..], &page[1536..]);
    assert_eq!(d.read_data(1024, 1024).unwrap(), [[9u8; 512], [7u8; 512]].concat());
}
