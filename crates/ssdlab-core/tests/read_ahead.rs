//! Sequential read-ahead (controller.read_ahead_kib): what a stream gains, and what it must not change.

use crate::common::*;
use ssdlab_core::Counter as C;
use ssdlab_core::{Drive, Rw, Workload};

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;

/// bg4-1tb shrunk to 16 GB, SLC cache off (every page TLC, a 96 KiB unit a die), read-ahead of `kib`.
fn small(kib: &str) -> Drive {
    drive(
        "bg4-1tb",
        &[
            ("ftl.user_capacity_gb", "16"),
            ("ftl.slc_cache.enabled", "false"),
            ("controller.read_ahead_kib", kib),
        ],
    )
}

fn seq_read(offset: u64, size: u64, qd: u32) -> Workload {
    Workload { rw: Rw::Read, bs: 128 * KIB, iodepth: qd, offset, size, ..Workload::default() }
}

#[test]
fn a_qd1_stream_finds_its_next_command_read_ahead() {
    let mut off = small("0");
    let mut on = small("256");
    for d in [&mut off, &mut on] {
        fill(d, 512 * MIB);
        d.idle(SEC);
    }
    let slow = run(&mut off, seq_read(0, 256 * MIB, 1));
    let fast = run(&mut on, seq_read(0, 256 * MIB, 1));
    let pages = (256 * MIB / 4096) as f64;
    eprintln!(
        "QD1 128 KiB: {:.0} MB/s without read-ahead, {:.0} with 256 KiB; hits {} of {pages} pages",
        slow.bandwidth_mbps(),
        fast.bandwidth_mbps(),
        fast.counters[C::read_ahead_hits]
    );
    assert_eq!(slow.counters[C::read_ahead_pages], 0.0, "off reads nothing ahead");
    // all but the first two commands (the stream's start) come from the buffer; the last window is
    // read ahead past the end of the run and left unused
    assert_eq!(fast.counters[C::read_ahead_hits], pages - 64.0);
    assert_eq!(fast.counters[C::read_ahead_pages], pages);
    // a command no longer waits for its tR and data-out: more than 1.5x at QD1
    assert!(fast.bandwidth_mbps() > 1.5 * slow.bandwidth_mbps());
}

#[test]
fn random_reads_are_not_a_stream() {
    let randread = Workload {
        rw: Rw::RandRead,
        bs: 4096,
        iodepth: 4,
        size: 512 * MIB,
        io_size: 64 * MIB,
        seed: 3,
        ..Workload::default()
    };
    let mut off = small("0");
    let mut on = small("256");
    for d in [&mut off, &mut on] {
        fill(d, 512 * MIB);
    }
    let a = run(&mut off, randread.clone());
    let b = run(&mut on, randread);
    assert_eq!(b.counters[C::read_ahead_pages], 0.0);
    assert_eq!(a.stats.lat_read.mean_ns(), b.stats.lat_read.mean_ns(), "the same run, to the nanosecond");
}

#[test]
fn a_page_rewritten_after_it_was_read_ahead_is_not_served_from_the_old_copy() {
    let mut d = small("128");
    fill(&mut d, 64 * MIB);
    d.idle(SEC);
    // two commands start the stream: the second reads ahead 128..256 KiB's successor, 256..384 KiB
    let r = run(&mut d, seq_read(0, 256 * KIB, 1));
    assert_eq!(r.counters[C::read_ahead_pages], 32.0);
    // rewrite the first page read ahead, then continue the stream
    run(
        &mut d,
        Workload {
            rw: Rw::Write,
            bs: 4096,
            iodepth: 1,
            offset: 256 * KIB,
            size: 4096,
            ..Workload::default()
        },
    );
    let r = run(&mut d, seq_read(256 * KIB, 128 * KIB, 1));
    assert_eq!(r.counters[C::read_ahead_hits], 31.0, "the rewritten page is read where it is now");
}
