//! Bad blocks (factory and grown at the P/E limit) and static wear levelling.

use crate::common::*;
use ssdlab_core::ftl::BlockState;
use ssdlab_core::Counter as C;
use ssdlab_core::{Drive, Rw, SimError, Workload};

/// A small drive: 4 dies x 64 one-plane blocks of 96 x 16 KiB TLC pages (384 MiB), 300 MB user.
fn small(extra: &[(&str, &str)]) -> Drive {
    let mut o = vec![
        ("nand.channels", "4"),
        ("nand.dies_per_channel", "1"),
        ("nand.planes_per_die", "1"),
        ("nand.blocks_per_plane", "64"),
        ("nand.pages_per_block", "96"),
        ("nand.page_size_kib", "16"),
        ("ftl.user_capacity_gb", "0.3"),
        ("ftl.slc_cache.enabled", "false"),
        ("ftl.background_gc_free_blocks", "0"),
        ("ftl.wear_leveling_threshold", "0"),
        ("ftl.pe_cycle_limit", "0"),
        ("ftl.factory_bad_block_pct", "0"),
    ];
    o.extend_from_slice(extra);
    drive("generic-tlc-dram", &o)
}

fn blocks_in(d: &Drive, state: BlockState) -> Vec<u32> {
    let ftl = &d.controller().ftl;
    (0..ftl.geometry().blocks()).filter(|&b| ftl.block(b).state == state).collect()
}

fn random_writes(
    d: &mut Drive,
    io_size: u64,
    offset: u64,
    size: u64,
) -> Result<ssdlab_core::RunResult, SimError> {
    let w = Workload { rw: Rw::RandWrite, iodepth: 8, offset, size, io_size, seed: 5, ..Workload::default() };
    d.run(&w, &mut |_| true)
}

#[test]
fn factory_bad_blocks_are_marked_per_die_by_seed_and_never_written() {
    let mut d = small(&[("ftl.factory_bad_block_pct", "5")]);
    let bad = blocks_in(&d, BlockState::Bad);
    assert_eq!(bad.len(), 4 * 3, "round(5% of 64) = 3 per die");
    let other = small(&[("ftl.factory_bad_block_pct", "5"), ("seed", "2")]);
    assert_ne!(bad, blocks_in(&other, BlockState::Bad), "the map follows the seed");
    let cap = d.capacity_bytes();
    fill(&mut d, cap);
    random_writes(&mut d, 3 * cap, 0, 0).unwrap();
    let ftl = &d.controller().ftl;
    for ppn in (0..ftl.user_lpns()).filter_map(|lpn| ftl.lookup(lpn)) {
        let block = ftl.geometry().block_of(ppn);
        assert!(!bad.contains(&block), "data landed in bad block {block}");
    }
    assert!(bad.iter().all(|&b| ftl.block(b).erase_count == 0));
}

#[test]
fn blocks_retire_at_the_pe_limit_until_the_drive_runs_out_of_space() {
    let mut d = small(&[("ftl.pe_cycle_limit", "10")]);
    let cap = d.capacity_bytes();
    fill(&mut d, cap);
    let err = loop {
        match random_writes(&mut d, cap, 0, 0) {
            Ok(r) => assert!(r.counters[C::pe_cycles_max] <= 10.0),
            Err(e) => break e,
        }
    };
    let retired = d.counters()[C::grown_bad_blocks];
    assert!(retired > 0.0);
    assert!(matches!(err, SimError::Ftl(_)), "worn out: {err}");
    assert!(err.to_string().contains("out of space"), "{err}");
}

#[test]
fn static_wear_levelling_bounds_the_erase_count_spread() {
    // Fill with cold data, then hammer 2% of the LBAs: without levelling the cold blocks never erase.
    let spread = |threshold: &str| {
        let mut d = small(&[("ftl.wear_leveling_threshold", threshold)]);
        let cap = d.capacity_bytes();
        fill(&mut d, cap);
        let hot = (cap / 50) & !4095;
        let r = random_writes(&mut d, 40 * cap, 0, hot).unwrap();
        (r.counters[C::pe_cycles_max] - r.counters[C::pe_cycles_min], r.counters[C::wear_leveling_blocks])
    };
    let (off, moves_off) = spread("0");
    let (on, moves_on) = spread("8");
    assert_eq!(moves_off, 0.0);
    assert!(moves_on > 0.0);
    assert!(off > 30.0, "without levelling cold blocks stay at 0 erases: spread {off}");
    // Levelling acts when GC runs, so the spread can overshoot the threshold by a few cycles.
    assert!(on <= 8.0 + 4.0, "with a threshold of 8 the spread stays near it: {on}");
}

#[test]
fn sanitize_erases_every_written_block_keeps_the_wear_and_takes_the_erase_time() {
    let mut d = small(&[]);
    let cap = d.capacity_bytes();
    fill(&mut d, cap);
    random_writes(&mut d, cap, 0, 0).unwrap();
    let ftl = &d.controller().ftl;
    let blocks = ftl.geometry().blocks();
    let written: Vec<u32> = (0..blocks).filter(|&b| ftl.block(b).written > 0).collect();
    let wear_before: u64 = (0..blocks).map(|b| u64::from(ftl.block(b).erase_count)).sum();
    let busy_dies_done = d.controller().nand.idle_at();
    let before = d.counters();
    let (t0, erased0) = (d.now_ns(), before[C::nand_blocks_erased]);

    d.sanitize().unwrap();

    let ftl = &d.controller().ftl;
    assert_eq!(ftl.mapped_lpns(), 0);
    ftl.check_invariants().unwrap();
    let wear_after: u64 = (0..blocks).map(|b| u64::from(ftl.block(b).erase_count)).sum();
    assert!(wear_after >= wear_before + written.len() as u64, "wear is kept and every written block erased");
    let erased = d.counters()[C::nand_blocks_erased];
    assert!(erased - erased0 >= written.len() as f64);
    // each die erases its written blocks one after another, from no earlier than the sanitize
    let geo = *d.controller().ftl.geometry();
    let busiest =
        (0..geo.dies).map(|die| written.iter().filter(|&&b| geo.die_of_block(b) == die).count()).max();
    let tbers = (d.config().nand.tBERS_ms * 1e6) as u64;
    assert!(d.now_ns() >= t0 + busiest.unwrap() as u64 * tbers, "erases take time");
    assert!(d.now_ns() >= busy_dies_done);
    assert!(d.counters()[C::host_write_bytes] > 0.0, "counters carry on");
    // and the drive is as good as new to write again
    fill(&mut d, cap);
    assert_eq!(d.controller().ftl.mapped_lpns(), cap / 4096 / 32 * 32);
}

#[test]
fn sanitize_overwrite_programs_every_unit_of_every_written_block_each_pass_and_leaves_the_clock() {
    let mut d = small(&[]);
    let cap = d.capacity_bytes();
    fill(&mut d, cap);
    let ftl = &d.controller().ftl;
    let geo = *ftl.geometry();
    let written: Vec<u32> = (0..geo.blocks()).filter(|&b| ftl.block(b).written > 0).collect();
    let wear_before: u64 = (0..geo.blocks()).map(|b| u64::from(ftl.block(b).erase_count)).sum();
    let before = d.counters();
    let t0 = d.now_ns();
    let passes = 2u32;

    let end = d.start_sanitize(passes).unwrap();

    assert_eq!(d.now_ns(), t0, "a sanitize runs in the background: the clock stays");
    let after = d.counters();
    let units_per_block = geo.slots_per_block() / geo.slots_per_program(ssdlab_core::nand::CellMode::Native);
    let n = written.len() as f64;
    // each pass erases and programs every unit; one more erase leaves the block free
    assert_eq!(after[C::nand_blocks_erased] - before[C::nand_blocks_erased], n * f64::from(passes + 1));
    let ftl = &d.controller().ftl;
    assert_eq!(ftl.mapped_lpns(), 0);
    ftl.check_invariants().unwrap();
    let wear_after: u64 = (0..geo.blocks()).map(|b| u64::from(ftl.block(b).erase_count)).sum();
    assert_eq!(wear_after - wear_before, written.len() as u64 * u64::from(passes + 1));
    // the busiest die does its blocks' programs one after another: at least units x tPROG each pass
    let busiest =
        (0..geo.dies).map(|die| written.iter().filter(|&&b| geo.die_of_block(b) == die).count()).max();
    let tprog = (d.config().nand.tPROG_us.iter().cloned().fold(f64::INFINITY, f64::min) * 1e3) as u64;
    let floor = busiest.unwrap() as u64 * u64::from(passes * units_per_block) * tprog;
    assert!(end >= t0 + floor, "the programs take their time: {} < {floor}", end - t0);
    // a block erase of the same drive takes far less
    let mut e = small(&[]);
    fill(&mut e, cap);
    let t = e.now_ns();
    assert!(e.start_sanitize(0).unwrap() - t < (end - t0) / 10);
}
