//! FTL invariants as properties: after any mix of writes, TRIMs, flushes and the GC they cause,
//! every LPN maps to at most one valid slot, block valid counts equal the LPNs mapped into them,
//! and every LPN reads back the tag of its last write. (A flush, or a FUA write without power-loss
//! protection, programs the open units part-filled: padding in the middle of their blocks.)

use super::*;
use crate::config::{CellType, GcPolicy, HostStripe, NandConfig, PostCache, SlcCacheConfig};
use proptest::prelude::*;

/// A small FTL, small enough that GC runs often.
#[derive(Clone, Copy, Debug)]
struct Small {
    dies: u32,
    blocks: u32,
    pages: u32,
    planes: u32,
    op_pct: f64,
    slc: bool,
    /// 4096, or 256 for a compressing drive
    slot_bytes: u32,
    gc_policy: GcPolicy,
    wear_leveling_threshold: u32,
    factory_bad_block_pct: f64,
    /// `post_cache` by fill: (`fold_above_fill`, `fold_whole_blocks_above_fill`), 1 = never
    fold_fills: (f64, f64),
    host_stripe: HostStripe,
}

impl Default for Small {
    fn default() -> Self {
        Small {
            dies: 4,
            blocks: 32,
            pages: 12,
            planes: 2,
            op_pct: 20.0,
            slc: false,
            slot_bytes: 4096,
            gc_policy: GcPolicy::Greedy,
            wear_leveling_threshold: 0,
            factory_bad_block_pct: 0.0,
            fold_fills: (1.0, 1.0),
            host_stripe: HostStripe::Page,
        }
    }
}

fn small_ftl(spec: Small) -> Ftl {
    let Small { dies, blocks, pages, planes, op_pct, slc, slot_bytes, .. } = spec;
    let nand = NandConfig {
        cell: CellType::Tlc,
        channels: dies,
        dies_per_channel: 1,
        planes_per_die: planes,
        blocks_per_plane: blocks,
        pages_per_block: pages,
        page_size_kib: 8,
        one_shot_program: true,
        tR_us: vec![50.0],
        tPROG_us: vec![1000.0],
        slc_tR_us: 30.0,
        slc_tPROG_us: 300.0,
        tBERS_ms: 3.0,
        tR_max_us: vec![],
        tPROG_max_us: vec![],
        tBERS_max_ms: 0.0,
        command_overhead_ns: 0,
        bus_mts: 400,
        bus_mode: crate::config::BusMode::Sync,
        cache_read: true,
        cache_program: true,
        independent_plane_read: false,
        suspension: Default::default(),
        read_retry: Default::default(),
    };
    let geo = Geometry::new(&nand, slot_bytes);
    // As DriveConfig::validate allows: over-provisioning of op_pct, and never less than
    // (gc threshold + 3) blocks per die.
    let bad = (f64::from(blocks) * spec.factory_bad_block_pct / 100.0).round() as u64;
    let reserve = u64::from(dies) * (5 + bad) * u64::from(geo.slots_per_block());
    let user_slots =
        ((geo.total_slots() as f64 * (1.0 - op_pct / 100.0)) as u64).min(geo.total_slots() - reserve);
    // with compression, sized so that incompressible data (18 slots of 256 B per 4 KiB) fits
    let per_lpn = if slot_bytes == 4096 { 4096.0 } else { 18.0 * 256.0 };
    let user_gb = user_slots as f64 * f64::from(slot_bytes) / per_lpn * 4096.0 / 1e9;
    let cfg = FtlConfig {
        user_capacity_gb: user_gb,
        gc_policy: spec.gc_policy,
        gc_window_blocks: 8,
        gc_threshold_free_blocks: 2,
        idle_after_ms: 10.0,
        background_gc_free_blocks: 4,
        wear_leveling_threshold: spec.wear_leveling_threshold,
        pe_cycle_limit: 0,
        initial_pe_cycles: 0,
        factory_bad_block_pct: spec.factory_bad_block_pct,
        host_stripe: spec.host_stripe,
        slc_cache: SlcCacheConfig {
            enabled: slc,
            static_gb: 0.0,
            dynamic_fraction: 0.5,
            dynamic_max_pct: 100.0,
            dynamic_max_gb: 0.0,
            dynamic_until_fill: 1.0,
            post_cache: PostCache::Direct,
            fold_above_fill: spec.fold_fills.0,
            fold_whole_blocks_above_fill: spec.fold_fills.1,
            idle_fold: true,
            fold_on_chip: false,
        },
    };
    let mut ftl = Ftl::new(&cfg, geo, 1);
    ftl.track_payload();
    ftl
}

#[derive(Clone, Debug)]
enum Op {
    Write { lpn: u32, len: u32, k: u32 },
    Trim { lpn: u32, len: u32 },
    Flush,
}

fn ops(max_lpn: u32) -> impl Strategy<Value = Vec<Op>> {
    let op = prop_oneof![
        8 => (0..max_lpn, 1..64u32, 1..=18u32).prop_map(|(lpn, len, k)| Op::Write { lpn, len, k }),
        1 => (0..max_lpn, 1..256u32).prop_map(|(lpn, len)| Op::Trim { lpn, len }),
        1 => Just(Op::Flush),
    ];
    prop::collection::vec(op, 1..400)
}

proptest! {
    // A fixed seed keeps `cargo test` deterministic; explore further with e.g. PROPTEST_CASES=20000.
    #![proptest_config(ProptestConfig {
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x55D1AB),
        ..ProptestConfig::with_cases(64)
    })]
    #[test]
    fn map_stays_consistent_and_reads_return_the_last_write(
        script in ops(3000), op_pct in 8.0f64..30.0, slc: bool, idle in 0..4u32, compressed: bool,
        gc_policy in prop_oneof![Just(GcPolicy::Greedy), Just(GcPolicy::CostBenefit), Just(GcPolicy::WindowedGreedy)],
        wear_leveling_threshold in prop_oneof![Just(0u32), Just(3u32)],
        factory_bad_block_pct in prop_oneof![Just(0.0f64), Just(10.0f64)],
        fold_fills in prop_oneof![Just((1.0f64, 1.0f64)), Just((0.3, 1.0)), Just((0.3, 0.6))],
        host_stripe in prop_oneof![Just(HostStripe::Page), Just(HostStripe::Unit)],
    ) {
        let slot_bytes = if compressed { 256 } else { 4096 };
        let spec = Small {
            op_pct, slc, slot_bytes, gc_policy, wear_leveling_threshold, factory_bad_block_pct, fold_fills,
            host_stripe, ..Small::default()
        };
        let mut ftl = small_ftl(spec);
        // compressed entries take 1..=18 slots of 256 B; uncompressed ones one 4 KiB slot
        let size = |k: u32| if compressed { k } else { 1 };
        let n = ftl.user_lpns();
        let mut model: Vec<Option<u64>> = vec![None; n as usize];
        let mut flash_ops = Vec::new();
        let mut tag = 0u64;
        // Fill the drive, then overwrite it in a scattered order, so GC is running when the script starts.
        for i in 0..2 * n {
            let lpn = if i < n { i } else { (i * 7919) % n };
            tag += 1;
            ftl.write_tagged(lpn, size(18), tag, &mut flash_ops).unwrap();
            model[lpn as usize] = Some(tag);
        }
        for _ in 0..3 {
            for op in &script {
                match *op {
                    Op::Write { lpn, len, k } => {
                        for l in (lpn % n)..((lpn % n) + len).min(n) {
                            tag += 1;
                            ftl.write_tagged(l, size(k), tag, &mut flash_ops).unwrap();
                            model[l as usize] = Some(tag);
                        }
                    }
                    Op::Trim { lpn, len } => {
                        for l in (lpn % n)..((lpn % n) + len).min(n) {
                            ftl.trim(l);
                            model[l as usize] = None;
                        }
                        // now and then the host goes idle: fold and collect in the background
                        for _ in 0..idle {
                            ftl.background_step(&mut flash_ops, |_| false);
                        }
                    }
                    Op::Flush => ftl.flush_open_units(&mut flash_ops),
                }
            }
        }
        prop_assert!(ftl.counters().gc_blocks_erased > 0, "the script must exercise GC");
        if let Err(e) = ftl.check_invariants() {
            prop_assert!(false, "{}", e);
        }
        for lpn in 0..n {
            prop_assert_eq!(ftl.read_tag(lpn), model[lpn as usize], "LPN {}", lpn);
        }
        // No two LPNs share a slot.
        let mut seen = std::collections::HashSet::new();
        for lpn in 0..n {
            if let Some(p) = ftl.lookup(lpn) {
                prop_assert!(seen.insert(p), "slot {} mapped twice", p);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        rng_seed: proptest::test_runner::RngSeed::Fixed(0x5EED),
        ..ProptestConfig::with_cases(48)
    })]
    /// `write_run` is `write` of each LPN in turn: the same flash operations and the same FTL state,
    /// through SLC and native units, padding (at block ends and, by flushes, mid-block), folding and GC.
    #[test]
    fn a_run_of_writes_is_the_writes_one_by_one(
        script in ops(3000), op_pct in 8.0f64..30.0, slc: bool, compressed: bool,
        fold_fills in prop_oneof![Just((1.0f64, 1.0f64)), Just((0.3, 0.6))],
        host_stripe in prop_oneof![Just(HostStripe::Page), Just(HostStripe::Unit)],
    ) {
        let slot_bytes = if compressed { 256 } else { 4096 };
        let spec = Small { op_pct, slc, slot_bytes, fold_fills, host_stripe, ..Small::default() };
        let (mut one, mut run) = (small_ftl(spec), small_ftl(spec));
        let n = one.user_lpns();
        let (mut ops_one, mut ops_run) = (Vec::new(), Vec::new());
        // the drive written full twice first: GC is running when the script starts
        // (compressed: as incompressible data, 18 slots an LPN, else the drive is far from full)
        let full = if compressed { 18 } else { 1 };
        for _ in 0..2 {
            for l in 0..n {
                one.write(l, full, &mut ops_one).unwrap();
            }
            run.write_run(0, n, full, &mut ops_run).unwrap();
        }
        for pass in 0..3 {
            for op in &script {
                match *op {
                    Op::Write { lpn, len, k } => {
                        // one-slot entries take the run path; compressed drives also see larger ones
                        let k = if compressed && pass == 1 { k } else { 1 };
                        let first = lpn % n;
                        let len = len.min(n - first);
                        for l in first..first + len {
                            one.write(l, k, &mut ops_one).unwrap();
                        }
                        run.write_run(first, len, k, &mut ops_run).unwrap();
                    }
                    Op::Trim { lpn, len } => {
                        for l in (lpn % n)..((lpn % n) + len).min(n) {
                            one.trim(l);
                            run.trim(l);
                        }
                    }
                    Op::Flush => {
                        one.flush_open_units(&mut ops_one);
                        run.flush_open_units(&mut ops_run);
                    }
                }
                prop_assert_eq!(&ops_one, &ops_run);
            }
        }
        prop_assert!(run.counters().gc_blocks_erased > 0, "the script must exercise GC");
        // (the states as text: equal FTLs print the same; the text is too long for an assert_eq message)
        prop_assert!(format!("{one:?}") == format!("{run:?}"), "the two FTLs differ");
        if let Err(e) = run.check_invariants() {
            prop_assert!(false, "{}", e);
        }
    }
}

#[test]
fn gc_copies_stay_on_their_die_and_erase_counts_rise() {
    let mut ftl = small_ftl(Small { dies: 2, blocks: 16, slc: true, ..Small::default() });
    let n = ftl.user_lpns();
    let mut ops = Vec::new();
    for round in 0..5u32 {
        for lpn in 0..n {
            ftl.write((lpn * 7 + round) % n, 1, &mut ops).unwrap();
        }
    }
    for op in &ops {
        if let FlashOp::Program { block, source: Source::Gc, .. } = op {
            // GC programs only go to blocks that were opened as GC blocks on the same die as their reads.
            assert!(*block < ftl.geometry().blocks());
        }
    }
    assert!(ftl.counters().gc_blocks_erased > 0);
    let (_, max, mean) = ftl.erase_counts();
    assert!(max >= 1 && mean > 0.0);
}

/// A flush (or FUA write) on a drive without power-loss protection programs the open unit part-filled,
/// padding the rest of it in the middle of the block. GC of that block later must still find and move
/// every valid slot written after the padding: no data left behind on an erased block.
fn gc_after_mid_block_flushes(compressed: bool) {
    let slot_bytes = if compressed { 256 } else { 4096 };
    let mut ftl = small_ftl(Small { slot_bytes, ..Small::default() });
    let n = ftl.user_lpns();
    let size = |i: u32| if compressed { 1 + i % 18 } else { 1 };
    let mut model: Vec<Option<u64>> = vec![None; n as usize];
    let mut ops = Vec::new();
    for i in 0..4 * n {
        let lpn = if i < n { i } else { (i * 7919) % n };
        ftl.write_tagged(lpn, size(i), u64::from(i) + 1, &mut ops).unwrap();
        model[lpn as usize] = Some(u64::from(i) + 1);
        // (more often than a unit fills, every flush would leave the next write on the same die)
        if i % 29 == 0 {
            ftl.flush_open_units(&mut ops);
        }
    }
    assert!(ftl.counters().gc_blocks_erased > 0 && ftl.counters().padded_slots > 0);
    ftl.check_invariants().unwrap();
    for lpn in 0..n {
        assert_eq!(ftl.read_tag(lpn), model[lpn as usize], "LPN {lpn}");
    }
}

#[test]
fn gc_moves_every_valid_slot_of_a_block_with_units_flushed_part_filled() {
    gc_after_mid_block_flushes(false);
}

#[test]
fn gc_moves_every_valid_compressed_entry_of_a_block_with_units_flushed_part_filled() {
    gc_after_mid_block_flushes(true);
}

#[test]
fn whole_block_folds_go_round_the_dies_in_the_order_their_blocks_were_written() {
    // Whole-block folding from empty: every SLC block a sequential fill closes is full, so the cache's next
    // block to fold is the longest closed, whichever die holds it, not the die the host writes next.
    let mut ftl = small_ftl(Small { slc: true, fold_fills: (1.0, 0.0), op_pct: 60.0, ..Small::default() });
    let geo = *ftl.geometry();
    let mut ops = Vec::new();
    for lpn in 0..ftl.user_lpns() {
        ftl.write(lpn, 1, &mut ops).unwrap();
    }
    let mut folded: Vec<u32> = Vec::new(); // SLC blocks in the order their folds began
    for op in &ops {
        if let FlashOp::Read { block, mode: CellMode::Slc, .. } = *op {
            if folded.last() != Some(&block) {
                folded.push(block);
            }
        }
    }
    let dies: Vec<u32> = folded.iter().map(|&b| geo.die_of_block(b)).collect();
    assert!(dies.len() >= 3 * geo.dies as usize, "{} folds", dies.len());
    assert!(dies.windows(2).all(|w| w[1] == (w[0] + 1) % geo.dies), "folds in turn: {dies:?}");
}
