//! The drive's counters, defined once: [`COUNTERS`] gives each its name, unit, kind and a sentence, and
//! says where its value comes from. [`Counters`] holds one value per entry, in the registry's order;
//! [`Counters::delta`] turns two snapshots into what happened between them, following each kind.
//!
//! Everything else that names counters (the Python bindings, the report's tables, the docs' counter
//! table) reads this registry. To add a counter, add one line to the `registry!` call below.
//!
//! ```
//! use ssdlab_core::stats::{Counter, Counters, Kind};
//! let before = Counters::from_pairs(&[("host_write_bytes", 0.0), ("flash_bytes_written", 0.0)]).unwrap();
//! let after = Counters::from_pairs(&[("host_write_bytes", 8.0), ("flash_bytes_written", 12.0)]).unwrap();
//! let d = Counters::delta(&before, &after);
//! assert_eq!(d[Counter::waf], 1.5);
//! assert_eq!(Counter::waf.def().kind, Kind::Derived);
//! assert!(d.get("waf_total").unwrap_err().to_string().contains("waf"));
//! ```

use crate::controller::{Controller, SLOT_BYTES};
use crate::engine::Ns;
use std::ops::Index;

/// What a counter's value measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Host commands.
    Ios,
    /// Bytes (decimal multiples when printed as MB).
    Bytes,
    /// Logical pages of 4 KiB.
    Pages,
    /// Physical NAND pages (the preset's `nand.page_bytes`, per plane).
    NandPages,
    /// Map pages of `controller.map_cache.map_page_kib`.
    MapPages,
    /// Erase blocks (multi-plane: the same index on every plane of a die).
    Blocks,
    /// Nanoseconds of simulated time.
    Ns,
    /// Program/erase cycles of a block.
    Cycles,
    /// Occurrences of an event.
    Events,
    /// A dimensionless quotient.
    Ratio,
    /// Energy, joules.
    Joules,
    /// Energy, microjoules.
    Microjoules,
    /// Power, watts.
    Watts,
    /// Temperature, degrees Celsius.
    Celsius,
}

impl Unit {
    /// The unit as the docs and Python print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Unit::Ios => "ios",
            Unit::Bytes => "bytes",
            Unit::Pages => "4 KiB pages",
            Unit::NandPages => "NAND pages",
            Unit::MapPages => "map pages",
            Unit::Blocks => "blocks",
            Unit::Ns => "ns",
            Unit::Cycles => "P/E cycles",
            Unit::Events => "events",
            Unit::Ratio => "ratio",
            Unit::Joules => "J",
            Unit::Microjoules => "uJ",
            Unit::Watts => "W",
            Unit::Celsius => "C",
        }
    }
}

/// How a counter behaves over time, which decides what a span between two snapshots reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A running total that only grows: a span reports the difference.
    Total,
    /// A state now (free blocks, bytes mapped): a span reports the value at its end.
    Level,
    /// Computed from other counters (WAF, hit rate): a span recomputes it from the span's values.
    Derived,
}

impl Kind {
    /// The kind as the docs and Python print it.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Total => "total",
            Kind::Level => "level",
            Kind::Derived => "derived",
        }
    }
}

/// What a counter is read from: a drive's state, or other counters (for derived ones).
#[derive(Clone, Copy)]
enum Read {
    State(fn(&DriveState<'_>) -> f64),
    Formula(fn(&Counters) -> f64),
}

/// One registry entry.
#[derive(Clone, Copy)]
pub struct CounterDef {
    /// The name every interface uses (`waf`, `free_blocks`).
    pub name: &'static str,
    /// What the value measures.
    pub unit: Unit,
    /// What a span between two snapshots reports.
    pub kind: Kind,
    /// One sentence: what is counted.
    pub description: &'static str,
    read: Read,
}

impl std::fmt::Debug for CounterDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CounterDef")
            .field("name", &self.name)
            .field("unit", &self.unit)
            .field("kind", &self.kind)
            .finish_non_exhaustive()
    }
}

/// The parts of a drive the counters read: built by `Drive::counters`.
pub(crate) struct DriveState<'a> {
    pub ctl: &'a Controller,
    pub host: &'a HostTotals,
    /// The drive's clock.
    pub now: Ns,
    /// Energy, temperature and throttling.
    pub power: &'a crate::power::PowerMeter,
    /// What the engine has done that costs energy, now.
    pub ops: crate::power::OpTotals,
}

/// Host commands completed since the drive was made (kept by `Drive`, read by the registry).
#[derive(Clone, Debug, Default)]
pub(crate) struct HostTotals {
    pub read_ios: u64,
    pub read_bytes: u64,
    pub write_ios: u64,
    pub write_bytes: u64,
    pub trim_ios: u64,
    pub flush_ios: u64,
    /// Stored pages that failed their CRC check on a read (with data on; see [`crate::data`]).
    pub data_integrity_errors: u64,
    /// Power cuts (`Drive::power_cut`), with or without the power-loss notification.
    pub unsafe_shutdowns: u64,
    /// Slots of acknowledged data that were only in the write buffer when power was cut without flush.
    pub power_loss_lost_slots: u64,
    /// Time spent rebuilding the map at power-on.
    pub map_rebuild_ns: u64,
}

/// `num / den`, 0 for an empty span (no host writes, no lookups).
fn ratio(num: f64, den: f64) -> f64 {
    if den > 0.0 {
        num / den
    } else {
        0.0
    }
}

/// Flash slots (4 KiB, or 256 B when the drive compresses) to bytes.
fn slots(s: &DriveState<'_>, n: u64) -> f64 {
    (n * u64::from(s.ctl.nand.geo.slot_bytes)) as f64
}

/// Defines [`Counter`] (one variant per counter, named as the counter) and [`COUNTERS`] from one list, so
/// the name, the index and the definition cannot drift apart.
macro_rules! registry {
    ($($name:ident: $unit:ident, $kind:ident, $desc:literal, $read:expr;)*) => {
        /// A counter by identity: `result.counters[Counter::waf]` cannot misspell a name. The variants are
        /// the registry's names, in its order.
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Counter {
            $(#[doc = $desc] $name,)*
        }

        /// Every counter, in the order a drive reports them.
        pub static COUNTERS: &[CounterDef] = &[
            $(CounterDef {
                name: stringify!($name),
                unit: Unit::$unit,
                kind: Kind::$kind,
                description: $desc,
                read: registry!(@read $kind, $read),
            },)*
        ];

        /// [`Counter`]'s variants in registry order, for index -> identity.
        static ALL: &[Counter] = &[$(Counter::$name,)*];
    };
    (@read Total, $f:expr) => { Read::State($f) };
    (@read Level, $f:expr) => { Read::State($f) };
    (@read Derived, $f:expr) => { Read::Formula($f) };
}

use Counter as C;

registry! {
    host_read_ios: Ios, Total, "Read commands the host completed.", |s| s.host.read_ios as f64;
    host_read_bytes: Bytes, Total, "Bytes the host read.", |s| s.host.read_bytes as f64;
    host_read_pages: Pages, Total,
        "4 KiB pages the host's reads touched (an unaligned read touches more than its bytes / 4 KiB).",
        |s| s.ctl.counters.read_pages as f64;
    host_write_ios: Ios, Total, "Write commands the host completed.", |s| s.host.write_ios as f64;
    host_write_bytes: Bytes, Total, "Bytes the host wrote.", |s| s.host.write_bytes as f64;
    host_trim_ios: Ios, Total, "Trim (deallocate) commands the host completed.", |s| s.host.trim_ios as f64;
    host_flush_ios: Ios, Total, "Flush commands the host completed.", |s| s.host.flush_ios as f64;
    unsafe_shutdowns: Events, Total, "Power cuts without a normal shutdown (NVMe SMART's Unsafe Shutdowns), with or without the power-loss notification.", |s| s.host.unsafe_shutdowns as f64;
    power_loss_lost_slots: Pages, Total, "Acknowledged host data only in the volatile write buffer when power was cut without flush (lost), in map slots of 4 KiB.", |s| s.host.power_loss_lost_slots as f64;
    map_rebuild_ns: Ns, Total, "Time the FTL spent rebuilding its map from flash at power-on.", |s| s.host.map_rebuild_ns as f64;
    data_integrity_errors: Pages, Total, "Pages a read returned whose stored CRC no longer matched (data on only; NVMe's Media and Data Integrity Errors).", |s| s.host.data_integrity_errors as f64;
    host_pages_written: Pages, Total, "Logical pages the host wrote, as the FTL mapped them.",
        |s| s.ctl.ftl.counters().host_lpns_written as f64;
    flash_bytes_written: Bytes, Total,
        "Bytes the FTL placed on flash: host data (as compressed), GC moves and folding.",
        |s| {
            let f = s.ctl.ftl.counters();
            slots(s, f.host_slots_written + f.gc_slots_moved + f.folded_slots)
        };
    nand_pages_read: NandPages, Total,
        "Array reads (one tR each; a multi-plane read counts once per plane page).",
        |s| s.ctl.nand.counters.pages_read as f64;
    nand_pages_programmed: NandPages, Total,
        "Physical pages programmed (a one-shot TLC program on 2 planes counts 6).",
        |s| s.ctl.nand.counters.pages_programmed as f64;
    nand_bytes_programmed: Bytes, Total, "Bytes of the physical pages programmed.",
        |s| (s.ctl.nand.counters.pages_programmed * s.ctl.nand.geo.page_bytes) as f64;
    nand_blocks_erased: Blocks, Total, "Blocks erased, for any reason.",
        |s| s.ctl.nand.counters.blocks_erased as f64;
    nand_bus_bytes: Bytes, Total, "Bytes moved over the NAND channels, both directions.",
        |s| s.ctl.nand.counters.bus_bytes as f64;
    nand_slc_pages_programmed: NandPages, Total, "Of the pages programmed, those programmed in SLC mode.",
        |s| s.ctl.nand.counters.slc_pages_programmed as f64;
    nand_program_suspensions: Events, Total, "Host reads that suspended a running program.",
        |s| s.ctl.nand.counters.program_suspensions as f64;
    nand_erase_suspensions: Events, Total, "Host reads that suspended a running erase.",
        |s| s.ctl.nand.counters.erase_suspensions as f64;
    nand_reads_waited_program_erase: Events, Total,
        "Host reads that waited for a program or erase on their die to finish (suspension off or capped).",
        |s| s.ctl.nand.counters.reads_waited_program_erase as f64;
    nand_reads_prioritised: Events, Total,
        "Host reads that went ahead of program, erase or GC work queued on their die.",
        |s| s.ctl.nand.counters.reads_prioritised as f64;
    nand_register_hits: Events, Total,
        "Host reads served from the page still in the page register from the read before on its die or plane (no tR).",
        |s| s.ctl.nand.counters.register_hits as f64;
    nand_read_retries: Events, Total,
        "Extra reads of a page whose data did not decode on an aged block (host and GC reads; [nand.read_retry]).",
        |s| s.ctl.counters.read_retries as f64;
    rmw_reads: Events, Total,
        "Pages a host write covered only in part whose other sectors were read from flash first (read-modify-write).",
        |s| s.ctl.counters.rmw_reads as f64;
    gc_blocks_erased: Blocks, Total, "Blocks garbage collection erased.",
        |s| s.ctl.ftl.counters().gc_blocks_erased as f64;
    gc_page_moves: Pages, Total,
        "Valid data garbage collection moved, in 4 KiB pages of flash data (compressed data moves fewer).",
        |s| (s.ctl.ftl.counters().gc_slots_moved * u64::from(s.ctl.nand.geo.slot_bytes) / SLOT_BYTES) as f64;
    background_blocks_erased: Blocks, Total, "Of the GC erases, those done in idle time.",
        |s| s.ctl.ftl.counters().background_blocks_erased as f64;
    wear_leveling_blocks: Blocks, Total, "Blocks relocated by static wear levelling.",
        |s| s.ctl.ftl.counters().wear_leveling_blocks as f64;
    factory_bad_blocks: Blocks, Level, "Blocks marked bad at the factory (fixed when the drive is made).",
        |s| s.ctl.ftl.counters().factory_bad_blocks as f64;
    grown_bad_blocks: Blocks, Total, "Blocks retired at their P/E limit.",
        |s| s.ctl.ftl.counters().grown_bad_blocks as f64;
    slc_bytes_written: Bytes, Total, "Host bytes written into SLC-mode blocks (the SLC cache).",
        |s| slots(s, s.ctl.ftl.counters().slc_slots_written);
    folded_bytes: Bytes, Total, "Bytes moved from SLC-mode blocks to native blocks (folding).",
        |s| slots(s, s.ctl.ftl.counters().folded_slots);
    padded_bytes: Bytes, Total,
        "Bytes left empty at block ends because the next compressed entry did not fit.",
        |s| slots(s, s.ctl.ftl.counters().padded_slots);
    slc_cache_used_bytes: Bytes, Level, "Host data held in SLC-mode blocks now.",
        |s| slots(s, s.ctl.ftl.slc_used_slots());
    slc_cache_size_bytes: Bytes, Level, "How much host data the SLC cache may hold now (0 without a cache).",
        |s| slots(s, s.ctl.ftl.slc_budget_slots());
    mapped_bytes: Bytes, Level, "Logical bytes that hold data now (written and not trimmed).",
        |s| (s.ctl.ftl.mapped_lpns() * SLOT_BYTES) as f64;
    trimmed_pages: Pages, Total, "Mapped logical pages that trims deallocated.",
        |s| s.ctl.ftl.counters().trimmed_slots as f64;
    write_buffer_hits: Pages, Total, "Host reads of 4 KiB served from the write buffer.",
        |s| s.ctl.counters.write_buffer_hits as f64;
    read_ahead_pages: Pages, Total,
        "Pages of 4 KiB read from flash ahead of a sequential read stream (controller.read_ahead_kib).",
        |s| s.ctl.counters.read_ahead_pages as f64;
    read_ahead_hits: Pages, Total, "Host reads of 4 KiB served from pages read ahead.",
        |s| s.ctl.counters.read_ahead_hits as f64;
    write_buffer_stall_ns: Ns, Total, "Time host writes waited for write-buffer space.",
        |s| s.ctl.counters.write_buffer_stall_ns as f64;
    unmapped_reads: Pages, Total,
        "Host reads of 4 KiB never written or trimmed, answered without touching flash.",
        |s| s.ctl.counters.unmapped_reads as f64;
    map_lookups: Events, Total, "Map-page lookups (one per map page a command touches).",
        |s| s.ctl.counters.map_lookups as f64;
    map_hits: Events, Total, "Map-page lookups the map cache served.", |s| s.ctl.counters.map_hits as f64;
    map_misses: Events, Total, "Map-page lookups the map cache missed.", |s| s.ctl.counters.map_misses as f64;
    map_lazy_updates: Events, Total,
        "Map hits of writes whose map page was not cached: left in the journal, merged at the checkpoint.",
        |s| s.ctl.counters.map_lazy_updates as f64;
    map_pages_read: MapPages, Total,
        "Map pages read from NAND (misses of pages on flash, prefetches, ECC reloads).",
        |s| s.ctl.counters.map_pages_read as f64;
    map_pages_written: Pages, Total, "Dirty map data written back to NAND, in 4 KiB pages.",
        |s| s.ctl.counters.map_pages_written as f64;
    map_journal_pages_written: Pages, Total, "Map journal (L2P delta entries) programmed to NAND, in 4 KiB pages.",
        |s| s.ctl.counters.map_journal_pages_written as f64;
    map_checkpoints: Events, Total, "Map checkpoints: every dirty map page written to NAND, the journal started over.",
        |s| s.ctl.counters.map_checkpoints as f64;
    hmb_bytes: Bytes, Total, "Bytes moved over the link to and from the host memory buffer.",
        |s| s.ctl.counters.hmb_bytes as f64;
    hmb_ecc_corrected: Events, Total, "HMB accesses with a single-bit error that ECC corrected.",
        |s| s.ctl.counters.hmb_ecc_corrected as f64;
    hmb_ecc_reloads: Events, Total, "HMB accesses with a double-bit error: the map page reloaded from NAND.",
        |s| s.ctl.counters.hmb_ecc_reloads as f64;
    free_blocks: Blocks, Level, "Erased blocks ready to be written now.", |s| s.ctl.ftl.free_blocks() as f64;
    pe_cycles_min: Cycles, Level, "Erase count of the least worn block.",
        |s| f64::from(s.ctl.ftl.erase_counts().0);
    pe_cycles_max: Cycles, Level, "Erase count of the most worn block.",
        |s| f64::from(s.ctl.ftl.erase_counts().1);
    pe_cycles_mean: Cycles, Level, "Mean erase count over all blocks.", |s| s.ctl.ftl.erase_counts().2;
    sim_time_ns: Ns, Total, "Simulated time the drive has lived through (its clock).", |s| s.now as f64;
    die_busy_ns: Ns, Total, "Busy time of the average die (all dies' busy time over the number of dies).",
        |s| {
            let busy = s.ctl.nand.die_busy_ns();
            busy.iter().map(|&b| b as f64).sum::<f64>() / busy.len().max(1) as f64
        };
    energy_j: Joules, Total,
        "Energy the drive used: NAND operations, channel and link bytes, commands, controller and link power.",
        |s| s.power.energy_j(s.now, &s.ops);
    nand_energy_j: Joules, Total, "Of energy_j, what the NAND arrays used (operations and standby).",
        |s| s.power.nand_energy_j(s.now, &s.ops);
    temperature_c: Celsius, Level,
        "SMART composite temperature at the last power sample (the hotter of controller and NAND).",
        |s| s.power.thermal.composite_c();
    throttled_ns: Ns, Total, "Time the NAND ran thermally throttled (past TMT1 or TMT2).",
        |s| s.power.counters.throttled_ns as f64;
    heavy_throttled_ns: Ns, Total, "Of throttled_ns, the time past TMT2 (heavy throttling).",
        |s| s.power.counters.heavy_throttled_ns as f64;
    apst_wakeups: Events, Total,
        "Host commands that found the drive in a non-operational power state and waited for its exit.",
        |s| s.power.counters.apst_wakeups as f64;
    link_wakeups: Events, Total, "Host commands that found the link in L1.2 and waited for it.",
        |s| s.power.counters.link_wakeups as f64;
    // WAF counts flash bytes as the FTL places them (host data, compressed if the drive compresses,
    // + GC moves + folding), so data still in the write buffer at the end of a run counts too;
    // nand_bytes_programmed has what reached the flash. Dirty map pages written back to NAND
    // (DRAM-less map caches) and map journal pages count too.
    waf: Ratio, Derived,
        "Write amplification: flash bytes placed plus map pages and map journal written, per host byte written.",
        |c| {
            let map = c[C::map_pages_written] + c[C::map_journal_pages_written];
            let flash = c[C::flash_bytes_written] + map * SLOT_BYTES as f64;
            ratio(flash, c[C::host_write_bytes])
        };
    map_hit_rate: Ratio, Derived, "Share of map-page lookups the map cache served.",
        |c| ratio(c[C::map_hits], c[C::map_lookups]);
    // A die reserved past the span's end can exceed the span; report at most fully busy.
    die_utilisation_mean: Ratio, Derived, "Busy share of the average die over the span.",
        |c| ratio(c[C::die_busy_ns], c[C::sim_time_ns]).min(1.0);
    avg_power_w: Watts, Derived, "Average power over the span: energy_j per second of simulated time.",
        |c| ratio(c[C::energy_j], c[C::sim_time_ns] * 1e-9);
    energy_per_io_uj: Microjoules, Derived,
        "Energy per host read or write command over the span (all the drive's energy, idle included).",
        |c| ratio(c[C::energy_j] * 1e6, c[C::host_read_ios] + c[C::host_write_ios]);
}

impl Counter {
    /// This counter's registry entry.
    pub fn def(self) -> &'static CounterDef {
        &COUNTERS[self as usize]
    }

    /// The counter called `name`, or an error naming close matches.
    pub fn from_name(name: &str) -> Result<Counter, UnknownCounter> {
        index_of(name).map(|i| ALL[i]).ok_or_else(|| UnknownCounter::new(name))
    }
}

fn index_of(name: &str) -> Option<usize> {
    COUNTERS.iter().position(|d| d.name == name)
}

/// A counter name that is not in the registry.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown counter {name:?}{hint}")]
pub struct UnknownCounter {
    /// The name asked for.
    pub name: String,
    hint: String,
}

impl UnknownCounter {
    fn new(name: &str) -> Self {
        let close = close_matches(name);
        let hint = if close.is_empty() {
            " (ssdlab_core::stats::COUNTERS lists them all)".to_string()
        } else {
            format!("; did you mean {}?", close.join(", "))
        };
        UnknownCounter { name: name.to_string(), hint }
    }
}

/// Registry names within a small edit distance of `name`, or containing it or contained in it, closest first.
fn close_matches(name: &str) -> Vec<&'static str> {
    let mut scored: Vec<(usize, &'static str)> = COUNTERS
        .iter()
        .filter_map(|d| {
            let dist = edit_distance(name, d.name);
            let near = dist <= (name.len() / 3).max(2)
                || (name.len() >= 3 && d.name.contains(name))
                || name.contains(d.name);
            near.then_some((dist, d.name))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, n)| n).collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, &cb) in b.iter().enumerate() {
            cur.push((prev[j] + usize::from(ca != cb)).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// One value per registry counter, in the registry's order: a drive's snapshot ([`crate::Drive::counters`])
/// or the change over a span ([`Counters::delta`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Counters {
    values: Vec<f64>,
}

impl Index<Counter> for Counters {
    type Output = f64;
    fn index(&self, c: Counter) -> &f64 {
        &self.values[c as usize]
    }
}

impl Counters {
    /// Read every counter from a drive's state; derived ones over the drive's whole life.
    pub(crate) fn read(state: &DriveState<'_>) -> Counters {
        let mut c = Counters {
            values: COUNTERS
                .iter()
                .map(|d| match d.read {
                    Read::State(f) => f(state),
                    Read::Formula(_) => 0.0,
                })
                .collect(),
        };
        c.derive();
        c
    }

    /// Build a snapshot from `(name, value)` pairs, as a binding or a test holds them; counters not given
    /// are 0, derived ones are computed (a derived value given is ignored).
    pub fn from_pairs(pairs: &[(&str, f64)]) -> Result<Counters, UnknownCounter> {
        let mut c = Counters { values: vec![0.0; COUNTERS.len()] };
        for &(name, v) in pairs {
            c.values[index_of(name).ok_or_else(|| UnknownCounter::new(name))?] = v;
        }
        c.derive();
        Ok(c)
    }

    /// What happened between two snapshots of one drive: totals subtract, levels are the later value,
    /// derived counters are recomputed from the span's values (so `waf` is the span's WAF).
    pub fn delta(before: &Counters, after: &Counters) -> Counters {
        let mut c = Counters {
            values: COUNTERS
                .iter()
                .zip(before.values.iter().zip(&after.values))
                .map(|(d, (&b, &a))| match d.kind {
                    Kind::Total => a - b,
                    Kind::Level | Kind::Derived => a,
                })
                .collect(),
        };
        c.derive();
        c
    }

    /// Recompute derived counters from the others, in registry order.
    fn derive(&mut self) {
        for (i, d) in COUNTERS.iter().enumerate() {
            if let Read::Formula(f) = d.read {
                self.values[i] = f(self);
            }
        }
    }

    /// The counter called `name`.
    pub fn get(&self, name: &str) -> Result<f64, UnknownCounter> {
        Counter::from_name(name).map(|c| self[c])
    }

    /// `(name, value)` in registry order.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, f64)> + '_ {
        COUNTERS.iter().map(|d| d.name).zip(self.values.iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_each_variant_is_its_entry() {
        let mut names: Vec<&str> = COUNTERS.iter().map(|d| d.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), COUNTERS.len(), "a counter name is defined twice");
        for (i, d) in COUNTERS.iter().enumerate() {
            let c = Counter::from_name(d.name).unwrap();
            assert_eq!((c as usize, c.def().name), (i, d.name));
            assert!(d.description.ends_with('.') && !d.description.is_empty(), "{}: one sentence", d.name);
        }
    }

    #[test]
    fn the_kind_says_where_the_value_comes_from() {
        for d in COUNTERS {
            let derived = matches!(d.read, Read::Formula(_));
            assert_eq!(derived, d.kind == Kind::Derived, "{}", d.name);
        }
    }

    #[test]
    fn a_span_subtracts_totals_keeps_the_later_level_and_recomputes_derived() {
        let before = Counters::from_pairs(&[
            ("host_write_bytes", 100.0),
            ("flash_bytes_written", 400.0),
            ("map_lookups", 10.0),
            ("map_hits", 1.0),
            ("free_blocks", 50.0),
            ("mapped_bytes", 4096.0),
        ])
        .unwrap();
        let after = Counters::from_pairs(&[
            ("host_write_bytes", 300.0),
            ("flash_bytes_written", 700.0),
            ("map_lookups", 20.0),
            ("map_hits", 9.0),
            ("free_blocks", 30.0),
            ("mapped_bytes", 8192.0),
        ])
        .unwrap();
        // Over the whole life: 700 / 300.
        assert_eq!(after[C::waf], 700.0 / 300.0);
        let d = Counters::delta(&before, &after);
        assert_eq!(d[C::host_write_bytes], 200.0);
        assert_eq!(d[C::flash_bytes_written], 300.0);
        assert_eq!((d[C::free_blocks], d[C::mapped_bytes]), (30.0, 8192.0), "levels: the later value");
        assert_eq!(d[C::waf], 1.5, "the span's WAF, not the difference of two WAFs");
        assert_eq!(d[C::map_hit_rate], 0.8);
        assert_eq!(d[C::die_utilisation_mean], 0.0, "no time passed");
    }

    #[test]
    fn map_pages_written_back_count_in_waf() {
        let c = Counters::from_pairs(&[
            ("host_write_bytes", 8192.0),
            ("flash_bytes_written", 8192.0),
            ("map_pages_written", 1.0),
        ])
        .unwrap();
        assert_eq!(c[C::waf], 1.5);
    }

    #[test]
    fn an_unknown_name_is_an_error_naming_close_matches() {
        let c = Counters::from_pairs(&[]).unwrap();
        let e = c.get("nand_page_read").unwrap_err();
        assert_eq!(e.name, "nand_page_read");
        assert!(e.to_string().contains("did you mean nand_pages_read"), "{e}");
        let e = Counters::from_pairs(&[("xyzzy", 1.0)]).unwrap_err();
        assert!(e.to_string().contains("\"xyzzy\"") && e.to_string().contains("COUNTERS"), "{e}");
        assert_eq!(c.get("waf"), Ok(0.0));
    }
}
