//! Any text as a drive TOML: parsing and validation answer with a value or a `ConfigError`, never a
//! panic; a configuration that validates builds a drive.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ssdlab_core::{Drive, DriveConfig};

fuzz_target!(|text: &str| {
    if let Ok(cfg) = DriveConfig::from_toml_str(text, &[]) {
        // huge geometries would only measure the allocator: the loader's bounds are what is checked
        if cfg.nand.channels * cfg.nand.dies_per_channel * cfg.nand.blocks_per_plane <= 1 << 16 {
            let _ = Drive::new(cfg);
        }
    }
});
