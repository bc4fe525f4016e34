//! The GC victim policies on a whole drive: each is selectable by `ftl.gc_policy`, windowed greedy with a
//! window as large as the die is greedy, and a one-block window (a FIFO) moves more data.

use crate::common::*;
use ssdlab_core::{Counter, DriveConfig, Rw, Workload};

/// WAF and the fingerprint of the counters after a fill and a random overwrite of a small drive.
fn overwrite(policy: &str, window: &str) -> (f64, Vec<(&'static str, u64)>) {
    let mut d = drive(
        "bg4-128gb",
        &[
            ("nand.blocks_per_plane", "40"),
            ("ftl.user_capacity_gb", "2.5"),
            ("ftl.slc_cache.static_gb", "0.2"),
            // the GC policy alone: past the family's fill for whole-block folds, folds would pick victims too
            ("ftl.slc_cache.fold_whole_blocks_above_fill", "1.0"),
            ("ftl.gc_policy", policy),
            ("ftl.gc_window_blocks", window),
        ],
    );
    let cap = d.capacity_bytes();
    fill(&mut d, cap);
    let r = run(
        &mut d,
        Workload { rw: Rw::RandWrite, iodepth: 16, io_size: cap, seed: 7, ..Workload::default() },
    );
    (r.counters[Counter::waf], d.counters().iter().map(|(k, v)| (k, v.to_bits())).collect())
}

#[test]
fn windowed_greedy_spans_fifo_to_greedy() {
    let (greedy_waf, greedy) = overwrite("greedy", "1");
    let (_, whole_die) = overwrite("windowed-greedy", "40");
    assert_eq!(whole_die, greedy, "a window of every block on the die is greedy");
    let (fifo_waf, _) = overwrite("windowed-greedy", "1");
    assert!(fifo_waf > greedy_waf, "FIFO victims move more: WAF {fifo_waf} against greedy's {greedy_waf}");
    let (cb_waf, _) = overwrite("cost-benefit", "1");
    assert!(cb_waf.is_finite() && cb_waf > 1.0);
}

#[test]
fn the_window_must_hold_a_block() {
    let e =
        DriveConfig::from_toml_str(&preset_text("bg4-1tb"), &[("ftl.gc_window_blocks".into(), "0".into())])
            .unwrap_err();
    assert_eq!(e.problems[0].path, "ftl.gc_window_blocks");
    assert!(e.to_string().contains("must be 1..="), "{e}");
}
