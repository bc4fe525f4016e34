//! The host write path (`[controller.write_path]`, `host.memory_read_ns`): a write's latency is the sum of
//! its stages, and flush / FUA cost what the buffer's power-loss protection says.

use crate::common::*;
use ssdlab_core::link::Link;
use ssdlab_core::{Command, Counter, Drive, Op, Rw, Workload};

/// bg4-128gb shrunk to 0.35 GB (96-page blocks, 40 a plane): small enough to fill and collect often.
fn small_bg4() -> Drive {
    drive(
        "bg4-128gb",
        &[
            ("nand.pages_per_block", "96"),
            ("nand.blocks_per_plane", "40"),
            ("ftl.user_capacity_gb", "0.35"),
            ("ftl.slc_cache.static_gb", "0.02"),
        ],
    )
}

/// Latency of one command submitted to an idle drive.
fn latency(d: &mut Drive, cmd: Command) -> u64 {
    d.advance(d.now_ns() + SEC);
    d.submit(cmd).unwrap();
    d.advance_to_next_completion();
    let c = d.poll().unwrap();
    c.complete_ns - c.submit_ns
}

#[test]
fn a_qd1_write_is_the_sum_of_its_write_path_stages() {
    // enterprise-tlc: map in DRAM, no journal, a write buffer far larger than one write
    let mut d = drive("enterprise-tlc", &[]);
    let cfg = d.config().clone();
    let got = latency(&mut d, Command::new(Op::Write, 0, 4096));
    let want = cfg.host.submit_ns
        + cfg.controller.write_overhead_ns    // decode the command (a core)
        + cfg.link.latency_ns                 // the device's memory-read request reaches the host
        + cfg.host.memory_read_ns             // host memory answers
        + Link::new(&cfg.link).wire_ns(4096)  // the data crosses the link ...
        + cfg.link.latency_ns                 // ... and arrives
        + cfg.controller.map_cache.lookup_ns  // the map entry points at the buffered data
        + cfg.controller.write_path.commit_ns // firmware commits the write (a core)
        + cfg.host.complete_ns;
    assert_eq!(got, want);
    assert!(got > 15_000, "the Starblaze study's QD1 writes take 16-18 us, not 7: {got} ns");
}

#[test]
fn with_power_loss_protection_flush_and_fua_complete_from_the_buffer() {
    let mut d = drive("enterprise-tlc", &[]);
    let cfg = d.config().clone();
    let write = latency(&mut d, Command::new(Op::Write, 0, 4096));
    let fua = latency(&mut d, Command { fua: true, ..Command::new(Op::Write, 4096, 4096) });
    assert_eq!(fua, write, "a FUA write is acknowledged like any other");
    let flush = latency(&mut d, Command::new(Op::Flush, 0, 0));
    assert_eq!(flush, cfg.host.submit_ns + cfg.controller.write_overhead_ns + cfg.host.complete_ns);
}

#[test]
fn without_power_loss_protection_a_fua_write_waits_for_its_program() {
    let plp_off = [("controller.write_path.power_loss_protection", "false")];
    let mut d = drive("enterprise-tlc", &plp_off);
    let cfg = d.config().clone();
    let write = latency(&mut d, Command::new(Op::Write, 0, 4096));
    let fua = latency(&mut d, Command { fua: true, ..Command::new(Op::Write, 4096, 4096) });
    // the open unit is padded and programmed: one TLC program (tPROG) after the write is in
    let tprog = (cfg.nand.tPROG_us[0] * 1e3) as u64;
    assert!(fua >= write + tprog, "FUA {fua} ns vs write {write} ns + tPROG {tprog} ns");
    let flush = latency(&mut d, Command::new(Op::Flush, 0, 0));
    assert!(flush < write, "nothing left to program: the flush costs its firmware time ({flush} ns)");
}

#[test]
fn a_commit_booked_for_later_does_not_hold_up_a_core_now() {
    // one core: a write's commit is booked for when its data is in; a read arriving in the meantime
    // takes the core at once, so its latency is the idle drive's
    // no timing spread (max = the typical times): the two reads must take the same tR; they read
    // different pages (a second read of the page just sensed would find it in the page register)
    let one_core = [
        ("controller.cores", "1"),
        ("controller.data_path.ldpc_mbps", "0"),
        ("controller.data_path.ldpc_native_mbps", "0"),
        ("nand.tR_max_us", "[50.0]"),
        ("nand.tPROG_max_us", "[1400.0]"),
        ("nand.tBERS_max_ms", "5.0"),
    ];
    let mut d = drive("enterprise-tlc", &one_core);
    fill(&mut d, 1 << 20);
    let alone = latency(&mut d, Command::new(Op::Read, 512 << 10, 4096));
    d.advance(d.now_ns() + SEC);
    d.submit(Command::new(Op::Write, 8 << 20, 128 << 10)).unwrap();
    let t = d.now_ns();
    d.advance(t + 5_000); // the write's command decode is done; its data is still on the link
    d.submit(Command::new(Op::Read, 0, 4096)).unwrap();
    let mut read = None;
    while let Some(_t) = d.advance_to_next_completion() {
        while let Some(c) = d.poll() {
            if c.op == Op::Read {
                read = Some(c.complete_ns - c.submit_ns);
            }
        }
    }
    assert_eq!(read, Some(alone));
}

/// Without power-loss protection a FUA write or a flush programs the open unit part-filled, padded, in the
/// middle of its block. Garbage collection of those blocks later must move every page still valid in
/// them: the map stays consistent (no LPN left pointing into an erased block; a debug build also checks
/// that a collected block has no valid data left when it is erased) and every LBA reads back its last write.
#[test]
fn without_power_loss_protection_gc_of_blocks_flushed_mid_way_keeps_every_last_write() {
    let mut d = small_bg4();
    d.enable_data();
    let lpns = d.capacity_bytes() / 4096;
    let page = |lpn: u64, version: u64| {
        let mut p = vec![0u8; 4096];
        p[..8].copy_from_slice(&lpn.to_le_bytes());
        p[8..16].copy_from_slice(&version.to_le_bytes());
        p
    };
    let mut last = vec![0u64; lpns as usize];
    for i in 0..3 * lpns {
        let lpn = if i < lpns { i } else { (i * 7919) % lpns };
        let version = i + 1;
        // now and then a FUA write, now and then a flush (each less often than a program unit fills)
        let cmd = Command { fua: i % 37 == 0, ..Command::new(Op::Write, lpn * 4096, 4096) };
        d.submit_with_data(cmd, Some(&page(lpn, version))).unwrap();
        last[lpn as usize] = version;
        if i % 53 == 0 {
            d.submit(Command::new(Op::Flush, 0, 0)).unwrap();
        }
        if i % 16 == 0 {
            while d.advance_to_next_completion().is_some() {
                while d.poll().is_some() {}
            }
        }
    }
    while d.advance_to_next_completion().is_some() {
        while d.poll().is_some() {}
    }
    let c = d.counters();
    assert!(c[Counter::gc_blocks_erased] > 0.0 && c[Counter::padded_bytes] > 0.0, "GC of padded blocks");
    d.controller().ftl.check_invariants().unwrap();
    for lpn in 0..lpns {
        assert_eq!(d.read_data(lpn * 4096, 4096).unwrap(), page(lpn, last[lpn as usize]), "LPN {lpn}");
    }
}

/// A FUA write without power-loss protection programs its die's open unit part-filled; the next write
/// stripes on to the next die, as after a unit that filled. Every die takes its share of a FUA-only
/// sequential fill (before, every write went back to die 0, which ran out of space while the rest stood
/// empty).
#[test]
fn fua_writes_stripe_over_every_die() {
    let mut d = small_bg4();
    let lpns = d.capacity_bytes() / 4096;
    for lpn in 0..lpns * 9 / 10 {
        let cmd = Command { fua: true, ..Command::new(Op::Write, lpn * 4096, 4096) };
        d.submit(cmd).unwrap();
        while d.advance_to_next_completion().is_some() {
            while d.poll().is_some() {}
        }
    }
    let busy = d.controller().nand.die_busy_ns();
    let (lo, hi) = (*busy.iter().min().unwrap(), *busy.iter().max().unwrap());
    assert!(lo > 0 && hi < 2 * lo, "every die programs its share: busy ns {busy:?}");
}

#[test]
fn a_write_larger_than_the_buffer_streams_through_it() {
    // 16 MiB at QD1 (AS SSD's sequential write) on bg4-128gb's 1.4 MiB buffer: the first program units go to
    // flash while the rest still cross the link, so it writes as fast as 1 MiB writes do, not a link transfer
    // (4.8 ms at ~3.5 GB/s) slower per command.
    let mbps = |bs: u64| {
        let mut d = drive("bg4-128gb", &[]);
        let w = Workload { rw: ssdlab_core::Rw::Write, bs, iodepth: 1, size: 1 << 30, ..Workload::default() };
        run(&mut d, w).bandwidth_mbps()
    };
    let (large, small) = (mbps(16 << 20), mbps(1 << 20));
    assert!((large / small - 1.0).abs() < 0.02, "16 MiB {large:.0} vs 1 MiB {small:.0} MB/s");
}

/// MB/s of 512 MiB of 128 KiB sequential writes at QD32 straight to TLC on bg4-128gb (4 dies, no SLC
/// cache) with a write buffer of two TLC units (2 x 96 KiB) and `release` for when a unit leaves it.
fn direct_tlc_mbps(release: &str) -> (f64, f64) {
    let mut d = drive(
        "bg4-128gb",
        &[
            ("ftl.slc_cache.enabled", "false"),
            ("controller.write_buffer_kib", "192"),
            ("controller.write_path.native_buffer_release", release),
        ],
    );
    let c = d.config().nand.clone();
    let unit = 2.0 * 3.0 * 16384.0; // bytes of one TLC unit on a die
                                    // the die's cycle: its program plus the two thirds of the data-in the cache latches cannot take early
    let cycle_us = c.tPROG_us[0] + 2.0 / 3.0 * unit / f64::from(c.bus_mts);
    let dies_rate = 4.0 * unit / cycle_us; // MB/s with every die writing
    let w = Workload { rw: Rw::Write, bs: 128 << 10, iodepth: 32, size: 512 << 20, ..Workload::default() };
    (run(&mut d, w).bandwidth_mbps(), dies_rate)
}

#[test]
fn a_tlc_unit_released_once_in_the_die_lets_a_small_buffer_feed_every_die() {
    let (data_in, dies_rate) = direct_tlc_mbps("data_in");
    assert!((data_in / dies_rate - 1.0).abs() < 0.05, "{data_in:.0} MB/s against the dies' {dies_rate:.0}");
    // held until programmed, two units keep at most two of the four dies busy (fewer while a unit waits
    // in the buffer for its die to finish the last)
    let (programmed, _) = direct_tlc_mbps("programmed");
    assert!(programmed < 0.55 * dies_rate, "{programmed:.0} MB/s, dies {dies_rate:.0}");
}

#[test]
fn data_stays_in_the_buffer_until_its_program_ends_whatever_writes_wait_behind_it() {
    // two TLC units of buffer, each held until programmed: A fills one, B's first unit the other, and B's
    // second unit waits for A's program to end before its data comes in. Until then A's data is only in
    // the buffer: a read finds it there, a power cut would lose it.
    let mut d = drive(
        "bg4-128gb",
        &[
            ("ftl.slc_cache.enabled", "false"),
            ("controller.write_buffer_kib", "192"),
            ("controller.write_path.native_buffer_release", "programmed"),
        ],
    );
    d.advance(SEC);
    let unit = 96 << 10;
    d.submit(Command::new(Op::Write, 0, unit)).unwrap();
    d.submit(Command { tag: 1, ..Command::new(Op::Write, 16 * unit, 2 * unit) }).unwrap();
    assert!(d.controller().is_volatile(0, d.now_ns()), "A is not programmed yet");
    d.submit(Command { tag: 2, ..Command::new(Op::Read, 0, 4096) }).unwrap();
    let mut read = None;
    while d.advance_to_next_completion().is_some() {
        while let Some(c) = d.poll() {
            if c.tag == 2 {
                read = Some(c.complete_ns - c.submit_ns);
            }
        }
    }
    // no sense: the data comes from the buffer (from flash it took ~200 us, after the die's program)
    let tr_ns = (d.config().nand.tR_us[0] * 1e3) as u64;
    let read = read.unwrap();
    assert!(read < tr_ns, "the read took {read} ns, more than a sense ({tr_ns} ns)");
    assert_eq!(d.counters()[Counter::write_buffer_hits], 1.0);
}
