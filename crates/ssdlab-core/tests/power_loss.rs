//! Power loss: with the power-loss notification every write reads back; without it only writes the
//! drive declared at risk (acknowledged, but only in the volatile write buffer) are lost, and flushed or
//! FUA writes never are. The map is rebuilt at power-on, taking the reads it needs.

use crate::common::*;
use proptest::prelude::*;
use ssdlab_core::{Command, Counter, Drive, Op};
use std::collections::HashMap;

const PAGE: u64 = 4096;
const LPNS: u64 = 256;

fn small() -> Drive {
    let mut d = drive("bg4-1tb", &[("ftl.user_capacity_gb", "0.25")]);
    d.enable_data();
    d
}

fn page(lpn: u64, version: u32) -> Vec<u8> {
    let mut p = vec![0u8; PAGE as usize];
    p[..8].copy_from_slice(&lpn.to_le_bytes());
    p[8..12].copy_from_slice(&version.to_le_bytes());
    p
}

/// One step of a random host: a write (perhaps FUA), a flush, or letting time pass.
#[derive(Clone, Debug)]
enum Step {
    Write { lpn: u64, fua: bool },
    Flush,
    Wait { us: u64 },
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => (0..LPNS, proptest::bool::weighted(0.1)).prop_map(|(lpn, fua)| Step::Write { lpn, fua }),
        1 => Just(Step::Flush),
        2 => (1..2000u64).prop_map(|us| Step::Wait { us }),
    ]
}

/// What the host knows when power fails: the last version submitted per LPN, and the LPNs whose last
/// write is known durable (FUA-acknowledged, or acknowledged before a flush that completed).
struct Host {
    last: HashMap<u64, u32>,
    durable: HashMap<u64, u32>,
}

fn play(d: &mut Drive, steps: &[Step]) -> Host {
    let mut last = HashMap::new();
    let mut durable = HashMap::new();
    let mut version = 0;
    // id -> (lpn, version, fua) of writes; id -> snapshot of `last` for flushes
    let mut writes = HashMap::new();
    let mut flushes: HashMap<u64, HashMap<u64, u32>> = HashMap::new();
    let mut acked: HashMap<u64, u32> = HashMap::new();
    let collect = |d: &mut Drive,
                   writes: &HashMap<u64, (u64, u32, bool)>,
                   flushes: &HashMap<u64, HashMap<u64, u32>>,
                   durable: &mut HashMap<u64, u32>,
                   acked: &mut HashMap<u64, u32>| {
        while let Some(c) = d.poll() {
            if let Some(&(lpn, v, fua)) = writes.get(&c.id) {
                acked.insert(lpn, v);
                if fua {
                    durable.insert(lpn, v);
                }
            } else if let Some(snap) = flushes.get(&c.id) {
                for (&lpn, &v) in snap {
                    durable.insert(lpn, v);
                }
            }
        }
    };
    for s in steps {
        match *s {
            Step::Write { lpn, fua } => {
                version += 1;
                let cmd = Command { fua, ..Command::new(Op::Write, lpn * PAGE, PAGE) };
                let id = d.submit_with_data(cmd, Some(&page(lpn, version))).unwrap();
                writes.insert(id, (lpn, version, fua));
                last.insert(lpn, version);
            }
            Step::Flush => {
                let id = d.submit(Command::new(Op::Flush, 0, 0)).unwrap();
                // a flush covers the writes acknowledged before it was submitted
                flushes.insert(id, acked.clone());
            }
            Step::Wait { us } => {
                let until = d.now_ns() + us * 1000;
                d.advance(until);
            }
        }
        collect(d, &writes, &flushes, &mut durable, &mut acked);
    }
    // a durable version superseded later is not what a read returns: keep only still-current ones
    durable.retain(|lpn, v| last.get(lpn) == Some(v));
    Host { last, durable }
}

fn version_read(d: &mut Drive, lpn: u64) -> Option<u32> {
    let data = d.read_data(lpn * PAGE, PAGE).unwrap();
    (data.iter().any(|&b| b != 0)).then(|| u32::from_le_bytes(data[8..12].try_into().unwrap()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn with_the_power_loss_notification_every_write_reads_back(steps in proptest::collection::vec(step(), 1..300)) {
        let mut d = small();
        let host = play(&mut d, &steps);
        let report = d.power_cut(true).unwrap();
        prop_assert!(report.flushed && report.lost_lpns.is_empty());
        d.power_on();
        for (&lpn, &v) in &host.last {
            prop_assert_eq!(version_read(&mut d, lpn), Some(v), "LPN {}", lpn);
        }
    }

    #[test]
    fn without_it_only_declared_writes_are_lost_and_durable_ones_never(steps in proptest::collection::vec(step(), 1..300)) {
        let mut d = small();
        let host = play(&mut d, &steps);
        let report = d.power_cut(false).unwrap();
        d.power_on();
        for (&lpn, &v) in &host.last {
            let read = version_read(&mut d, lpn);
            if read != Some(v) {
                prop_assert!(report.lost_lpns.contains(&(lpn as u32)), "LPN {} lost undeclared", lpn);
                prop_assert!(read.is_none_or(|r| r < v), "LPN {} reads a version never written", lpn);
            }
        }
        for (&lpn, &v) in &host.durable {
            prop_assert_eq!(version_read(&mut d, lpn), Some(v), "durable LPN {} lost", lpn);
        }
        prop_assert!(report.lost_lpns.len() as u64 <= report.at_risk_slots);
    }
}

#[test]
fn a_cut_right_after_buffered_writes_loses_them_and_the_notification_saves_them() {
    let writes = |d: &mut Drive| {
        for lpn in 0..8 {
            d.submit_with_data(Command::new(Op::Write, lpn * PAGE, PAGE), Some(&page(lpn, 1))).unwrap();
        }
        while d.advance_to_next_completion().is_some() {
            while d.poll().is_some() {}
        }
    };
    let mut d = small();
    writes(&mut d);
    let cut = d.power_cut(false).unwrap();
    assert_eq!(cut.at_risk_slots, 8, "8 acknowledged pages sat in a program unit being filled");
    assert_eq!(cut.lost_lpns, (0..8).collect::<Vec<u32>>());
    assert_eq!(version_read(&mut d, 3), None, "never on flash: reads zeros");
    assert_eq!(d.counters()[Counter::unsafe_shutdowns], 1.0);
    assert_eq!(d.counters()[Counter::power_loss_lost_slots], 8.0);

    let mut d = small();
    writes(&mut d);
    let cut = d.power_cut(true).unwrap();
    assert!(cut.flushed && cut.flush_ns > 0 && cut.flush_energy_j > 0.0, "{cut:?}");
    // the padded unit's program: at least one tPROG of the block's mode
    assert!(cut.flush_ns >= 200_000, "{cut:?}");
    d.power_on();
    assert_eq!(version_read(&mut d, 3), Some(1));
}

#[test]
fn the_map_rebuild_reads_what_is_on_flash_and_the_drive_refuses_commands_until_then() {
    let mut d = small();
    let cap = d.capacity_bytes();
    fill(&mut d, cap);
    d.power_cut(true).unwrap();
    let e = d.submit(Command::new(Op::Read, 0, PAGE)).unwrap_err();
    assert!(e.to_string().contains("power_on"), "{e}");
    let before = d.now_ns();
    let took = d.power_on();
    assert!(took > 0 && d.now_ns() == before + took);
    assert_eq!(d.counters()[Counter::map_rebuild_ns], took as f64);
    assert_eq!(d.power_on(), 0, "already on");
    d.submit(Command::new(Op::Read, 0, PAGE)).unwrap();
}

/// The V300's MLC (a word line's two pages programmed one at a time), compression off so that a 4 KiB
/// LPN is one slot: a program unit is one page on both planes, 4 LPNs.
fn mlc() -> Drive {
    let mut d =
        drive("v300s-120gb", &[("ftl.user_capacity_gb", "1"), ("controller.compression.enabled", "false")]);
    d.enable_data();
    d
}

/// Write `lpns` (version 1) and take every acknowledgement.
fn write_all(d: &mut Drive, lpns: std::ops::Range<u64>) {
    for lpn in lpns {
        d.submit_with_data(Command::new(Op::Write, lpn * PAGE, PAGE), Some(&page(lpn, 1))).unwrap();
    }
    while d.advance_to_next_completion().is_some() {
        while d.poll().is_some() {}
    }
}

#[test]
fn an_interrupted_upper_page_program_corrupts_its_lower_page_and_a_flush_keeps_its_data_off_such_word_lines()
{
    let dies = u64::from(mlc().config().nand.channels * mlc().config().nand.dies_per_channel);
    let unit = 4; // LPNs a program unit holds
                  // Each die gets page 0 (a word line's lower page), then die 0 page 1 (its upper page) starts programming.
    let mut d = mlc();
    write_all(&mut d, 0..dies * unit);
    d.idle(10_000_000); // every lower page on flash
    write_all(&mut d, dies * unit..(dies + 1) * unit);
    let cut = d.power_cut(false).unwrap();
    let upper: Vec<u32> = (dies * unit..(dies + 1) * unit).map(|l| l as u32).collect();
    let lower: Vec<u32> = (0..unit as u32).collect();
    assert_eq!(
        cut.lost_lpns,
        [lower.clone(), upper].concat(),
        "the upper page's data and its paired lower page's"
    );
    assert_eq!(cut.at_risk_slots, 2 * unit, "both declared at risk");
    d.power_on();
    let before = d.counters()[Counter::data_integrity_errors];
    d.read_data(0, unit * PAGE).unwrap();
    assert_eq!(
        d.counters()[Counter::data_integrity_errors] - before,
        unit as f64,
        "the lower page reads corrupt"
    );
    assert_eq!(version_read(&mut d, unit), Some(1), "die 1's lower page had no program on its word line");

    // With the notification the program finishes on the remaining energy: nothing is lost.
    let mut d = mlc();
    write_all(&mut d, 0..dies * unit);
    d.idle(10_000_000);
    write_all(&mut d, dies * unit..(dies + 1) * unit);
    assert!(d.power_cut(true).unwrap().lost_lpns.is_empty());

    // A flush pads die 0's word line with an empty upper page: the next host unit on die 0 starts a new
    // word line, so a cut while it programs leaves the flushed data alone (without the padding it would
    // be the upper page of the flushed data's word line).
    let mut d = mlc();
    write_all(&mut d, 0..unit);
    d.submit(Command::new(Op::Flush, 0, 0)).unwrap();
    while d.advance_to_next_completion().is_some() {
        while d.poll().is_some() {}
    }
    write_all(&mut d, unit..(dies + 1) * unit); // dies 1.. page 0, then die 0 once more
    let cut = d.power_cut(false).unwrap();
    assert!(!cut.lost_lpns.is_empty(), "units were programming");
    assert!(
        cut.lost_lpns.iter().all(|&l| l >= unit as u32),
        "flushed LPNs 0..4 are safe: {:?}",
        cut.lost_lpns
    );
    d.power_on();
    assert_eq!(version_read(&mut d, 0), Some(1));
}

#[test]
fn a_command_that_completed_before_the_cut_is_not_dropped_and_can_still_be_polled() {
    // one write completes (its completion posted, not yet polled); one is still in flight at the cut
    let mut d = small();
    let first = d.submit(Command::new(Op::Write, 0, PAGE)).unwrap();
    let due = d.advance_to_next_completion().unwrap();
    let later = d.submit(Command::new(Op::Write, PAGE, 64 * PAGE)).unwrap();
    assert!(d.completion_ns(later).unwrap() > due);
    let cut = d.power_cut(false).unwrap();
    assert_eq!(cut.commands_dropped, 1, "only the one still in flight: {cut:?}");
    let c = d.poll().expect("the first write's completion is in host memory");
    assert_eq!(c.id, first);
    assert!(d.poll().is_none());
}
