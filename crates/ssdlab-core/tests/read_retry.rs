//! Read retry on aged blocks (`[nand.read_retry]`): what each retry costs a read, and how many there are.

use crate::common::*;
use ssdlab_core::Counter as C;
use ssdlab_core::{Drive, Rw, Workload};

/// bg4-1tb at 16 GB, the map in DRAM and no SLC cache (reads of TLC data, every lookup a hit), its blocks
/// `pe` cycles old, read retry on with `retry` (onset, per 1000 cycles, table length); 1 GiB written.
fn aged(pe: u32, retry: (u32, f64, u32), extra: &[(&str, &str)]) -> Drive {
    let (onset, per_kpe, max) = (retry.0.to_string(), retry.1.to_string(), retry.2.to_string());
    let mut o = vec![
        ("ftl.user_capacity_gb", "16"),
        ("controller.map_cache.location", "dram"),
        ("ftl.slc_cache.enabled", "false"),
        ("nand.read_retry.enabled", "true"),
        ("nand.read_retry.onset_pe_cycles", onset.as_str()),
        ("nand.read_retry.retries_per_kpe", per_kpe.as_str()),
        ("nand.read_retry.max_retries", max.as_str()),
    ];
    let pe = pe.to_string();
    o.push(("ftl.initial_pe_cycles", pe.as_str()));
    o.extend_from_slice(extra);
    let mut d = drive("bg4-1tb", &o);
    fill(&mut d, 1 << 30);
    d.idle(SEC);
    d
}

fn rand_reads(d: &mut Drive, iodepth: u32, ios: u64) -> ssdlab_core::RunResult {
    let w = Workload {
        rw: Rw::RandRead,
        bs: 4096,
        iodepth,
        size: 1 << 30,
        io_size: ios * 4096,
        ..Workload::default()
    };
    run(d, w)
}

#[test]
fn each_retry_adds_a_sense_a_data_out_and_a_decode_to_a_qd1_read() {
    // 100 retries per 1000 cycles past the onset: every read runs to the end of a 2-entry retry table
    let mut d = aged(2000, (1000, 100.0, 2), &[]);
    let cfg = d.config().clone();
    let r = rand_reads(&mut d, 1, 1);
    assert_eq!(r.counters[C::nand_read_retries], 2.0);
    let retry = sense_ns(&cfg.nand) + bus_ns(&cfg.nand, 4096) + ldpc_decode_ns(&cfg, 4096);
    assert_eq!(r.stats.elapsed_ns(), qd1_read_ns(&cfg) + 2 * retry);
}

#[test]
fn blocks_younger_than_the_onset_read_as_new() {
    let mut d = aged(900, (1000, 100.0, 7), &[]);
    let cfg = d.config().clone();
    let r = rand_reads(&mut d, 1, 1);
    assert_eq!(r.counters[C::nand_read_retries], 0.0);
    assert_eq!(r.stats.elapsed_ns(), qd1_read_ns(&cfg));
}

#[test]
fn slc_mode_reads_never_retry() {
    // the 1 GiB sits in the SLC cache (idle folding off): one bit per cell keeps its margins
    let mut d = aged(
        2000,
        (1000, 100.0, 7),
        &[("ftl.slc_cache.enabled", "true"), ("ftl.slc_cache.idle_fold", "false")],
    );
    let r = rand_reads(&mut d, 1, 200);
    assert!(r.counters[C::nand_pages_read] > 0.0);
    assert_eq!(r.counters[C::nand_read_retries], 0.0);
}

#[test]
fn retries_average_what_the_wear_gives_and_cost_throughput() {
    // 500 cycles past the onset at 1 per 1000: half a retry per read on average
    let mut new = aged(0, (1000, 1.0, 7), &[]);
    let mut old = aged(1500, (1000, 1.0, 7), &[]);
    let (n, o) = (rand_reads(&mut new, 32, 20_000), rand_reads(&mut old, 32, 20_000));
    let per_read = o.counters[C::nand_read_retries] / 20_000.0;
    assert!((per_read - 0.5).abs() < 0.02, "{per_read} retries per read");
    assert_eq!(n.counters[C::nand_read_retries], 0.0);
    // die-bound at QD32: each retry is another sense on the die
    let ratio =
        o.stats.read.ios as f64 / o.stats.elapsed_ns() as f64 * n.stats.elapsed_ns() as f64 / 20_000.0;
    assert!(ratio < 0.8, "aged IOPS at {ratio:.2} of new");
}

#[test]
fn gc_reads_of_aged_blocks_retry_too() {
    // random overwrites of a full drive with little spare (40 blocks a plane): GC reads the victims' valid
    // data, with no host reads at all
    let mut d = aged(2000, (1000, 1.0, 7), &[("nand.blocks_per_plane", "40")]);
    let cap = d.capacity_bytes() / (128 << 10) * (128 << 10);
    fill(&mut d, cap);
    let w =
        Workload { rw: Rw::RandWrite, bs: 4096, iodepth: 32, size: cap, io_size: cap, ..Workload::default() };
    let r = run(&mut d, w);
    assert!(r.counters[C::gc_page_moves] > 0.0);
    assert_eq!(r.stats.read.ios, 0);
    assert!(r.counters[C::nand_read_retries] > 0.0, "GC reads retried");
}

#[test]
fn a_page_read_from_its_register_needs_no_retry() {
    // every sensing of an aged TLC page runs the whole 2-entry table; 4 KiB sequential reads at QD1 read
    // each 16 KiB page four times in a row: the first senses it (and retries), the next three take the data
    // the last retry left in the page register, which decodes
    let mut d = aged(2000, (1000, 100.0, 2), &[]);
    let w = Workload {
        rw: Rw::Read,
        bs: 4096,
        iodepth: 1,
        size: 1 << 30,
        io_size: 4 << 20,
        ..Workload::default()
    };
    let r = run(&mut d, w);
    let (ios, hits) = (r.stats.read.ios as f64, r.counters[C::nand_register_hits]);
    assert_eq!(hits, ios * 3.0 / 4.0, "the 2nd to 4th read of each page come from its register");
    assert_eq!(r.counters[C::nand_read_retries], 2.0 * ios / 4.0, "only each page's first read retries");
}
