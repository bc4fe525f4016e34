//! `--set PATH=VALUE` overrides of any key to any value on a real preset: a `ConfigError` naming the key,
//! or a drive, never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdlab_core::{Drive, DriveConfig};

const PRESET: &str = include_str!("../../python/ssdlab/presets/generic-tlc-dram.toml");

fuzz_target!(|sets: Vec<(String, String)>| {
    let mut overrides = vec![("ftl.user_capacity_gb".to_string(), "1".to_string())];
    overrides.extend(sets.into_iter().take(4));
    match DriveConfig::from_toml_str(PRESET, &overrides) {
        Ok(cfg) => {
            if cfg.nand.channels * cfg.nand.dies_per_channel * cfg.nand.blocks_per_plane <= 1 << 16 {
                let _ = Drive::new(cfg);
            }
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
