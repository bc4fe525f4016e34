//! Cache program (`nand.cache_program`): the next program's data-in overlaps the die's current program
//! only as far as the cache latches reach, one page per plane. An SLC-mode program (one page a plane)
//! loads wholly ahead; a one-shot TLC program (three pages a plane) loads a third ahead and the rest once
//! the die is done, because its other pages go to data latches the running program still holds.

use crate::common::*;
use ssdlab_core::config::NandConfig;
use ssdlab_core::engine::{transfer_ns, us_to_ns, Ns};
use ssdlab_core::nand::{CellMode, Nand};
use ssdlab_core::DriveConfig;

/// bg4-128gb's NAND (BiCS4: one-shot TLC, 2 planes of 16 KiB pages), cache program on or off.
fn nand_cfg(cache_program: bool) -> NandConfig {
    let o = vec![("nand.cache_program".to_string(), cache_program.to_string())];
    DriveConfig::from_toml_str(&preset_text("bg4-128gb"), &o).unwrap().nand
}

fn bus_ns(c: &NandConfig, bytes: u64) -> Ns {
    transfer_ns(bytes, u64::from(c.bus_mts) * 1_000_000)
}

/// Two program units back to back on die 0, both ready at 0: (when the first is done, the second).
fn two_programs(c: &NandConfig, mode: CellMode, bytes: u64) -> (Ns, Ns) {
    let mut n = Nand::new(c, 4096);
    (n.program(0, 0, 0, mode, bytes), n.program(0, 0, 3, mode, bytes))
}

fn program_ns(c: &NandConfig, mode: CellMode) -> Ns {
    c.command_overhead_ns + us_to_ns(if mode == CellMode::Slc { c.slc_tPROG_us } else { c.tPROG_us[0] })
}

#[test]
fn an_slc_program_loads_its_data_while_the_die_programs_the_last() {
    let c = nand_cfg(true);
    let bytes = 2 * 16 * 1024; // one page on each of 2 planes
    let (first, second) = two_programs(&c, CellMode::Slc, bytes);
    assert_eq!(first, bus_ns(&c, bytes) + program_ns(&c, CellMode::Slc));
    assert_eq!(second, first + program_ns(&c, CellMode::Slc));
}

#[test]
fn a_one_shot_tlc_program_loads_only_a_page_a_plane_ahead() {
    let c = nand_cfg(true);
    let bytes = 2 * 3 * 16 * 1024; // three pages on each of 2 planes
    let bus = bus_ns(&c, bytes);
    let (first, second) = two_programs(&c, CellMode::Native, bytes);
    assert_eq!(first, bus + program_ns(&c, CellMode::Native));
    // a third of the data-in (the cache latches) went in during the first program; two thirds follow it
    assert_eq!(second, first - bus / 3 + bus + program_ns(&c, CellMode::Native));
    assert!(second - first > bus / 2, "the data-in is mostly after the first program");
}

#[test]
fn without_cache_program_every_data_in_waits_for_the_die() {
    let c = nand_cfg(false);
    for (mode, bytes) in [(CellMode::Slc, 2 * 16 * 1024), (CellMode::Native, 2 * 3 * 16 * 1024)] {
        let (first, second) = two_programs(&c, mode, bytes);
        assert_eq!(second, first + bus_ns(&c, bytes) + program_ns(&c, mode), "{mode:?}");
    }
}
