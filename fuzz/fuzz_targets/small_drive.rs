//! The small drive the `trace_parser` and `workload` targets run on: generic-tlc-dram at 0.25 GB, built
//! once per process and cloned for each input (included with `#[path]`; not a target of its own).

use ssdlab_core::{Drive, DriveConfig};
use std::sync::OnceLock;

const PRESET: &str = include_str!("../../python/ssdlab/presets/generic-tlc-dram.toml");

pub fn fresh() -> Drive {
    static BASE: OnceLock<Drive> = OnceLock::new();
    BASE.get_or_init(|| {
        let cfg = DriveConfig::from_toml_str(PRESET, &[("ftl.user_capacity_gb".into(), "0.25".into())])
            .expect("preset");
        Drive::new(cfg).expect("drive")
    })
    .clone()
}
