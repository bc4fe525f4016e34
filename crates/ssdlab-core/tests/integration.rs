//! The integration tests, one module a file beside this one, built as one test binary: one link and one
//! run whose tests share the cores, not a binary each (`cargo test --test integration suspension::`
//! runs one file's). `memory.rs` stays a binary of its own: it counts its process's allocations.

mod common;

mod cache_program;
mod compression;
mod config;
mod counters;
mod data;
mod determinism;
mod gc_policy;
mod host_stripe;
mod io_log;
mod map_cache;
mod nand_spread;
mod oracles;
mod page_register;
mod plane_reads;
mod power_loss;
mod read_ahead;
mod read_retry;
mod sectors;
mod slc_cache;
mod stepping;
mod suspension;
mod wear;
mod workloads;
mod write_path;

/// With `autotests = false` a test file nobody lists here would never build or run: every file is listed.
#[test]
fn every_test_file_is_a_module_here() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let listed = include_str!("integration.rs");
    for entry in std::fs::read_dir(dir).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".rs") else { continue };
        if !["integration", "memory"].contains(&stem) {
            assert!(
                listed.contains(&format!("\nmod {stem};\n")),
                "tests/{name} is not listed in tests/integration.rs"
            );
        }
    }
}
