//! [`Drive`]: one simulated SSD with its state, and `run`, which plays a workload against it.

use crate::config::DriveConfig;
use crate::controller::{Controller, SLOT_BYTES};
use crate::engine::{Event, EventQueue, Ns};
use crate::error::SimError;
use crate::host::{DeviceQueue, Io, IoKind, Job, Workload};
use crate::stats::{Latency, RunStats};

/// One simulated drive. Its state (map, blocks, timelines, clock) persists from run to run and clones
/// cheaply enough to fork a preconditioned drive into several tests.
///
/// ```
/// # let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/ssdlab/presets/generic-tlc-dram.toml")).unwrap();
/// use ssdlab_core::{Drive, DriveConfig, Workload, Rw};
/// let cfg = DriveConfig::from_toml_str(&text, &[("ftl.user_capacity_gb".into(), "16".into())]).unwrap();
/// let mut drive = Drive::new(cfg).unwrap();
/// let w = Workload { rw: Rw::Write, bs: 128 << 10, iodepth: 32, size: 1 << 30, ..Workload::default() };
/// let res = drive.run(&w, &mut |_| true).unwrap();
/// assert_eq!(res.stats.write.bytes, 1 << 30);
/// ```
#[derive(Clone, Debug)]
pub struct Drive {
    cfg: DriveConfig,
    ctl: Controller,
    queue: DeviceQueue,
    now: Ns,
    /// When the last host command completed: background work may start `idle_after` later.
    host_busy_until: Ns,
    idle_after: Ns,
    host: HostTotals,
}

#[derive(Clone, Debug, Default)]
struct HostTotals {
    read_ios: u64,
    read_bytes: u64,
    write_ios: u64,
    write_bytes: u64,
    trim_ios: u64,
}

/// What a run produced: measurements and the change in every counter.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// IO counts, bytes, latencies and the per-interval series of the run.
    pub stats: RunStats,
    /// Counter deltas over the run (see [`Drive::counters`] for the names), plus `waf`,
    /// `die_utilisation_mean` and `elapsed_s`.
    pub counters: Vec<(&'static str, f64)>,
    /// Busy share of each die over the run.
    pub die_utilisation: Vec<f64>,
}

impl Drive {
    /// A fresh drive: nothing written, time 0. Fails if `cfg` does not validate.
    pub fn new(cfg: DriveConfig) -> Result<Self, SimError> {
        cfg.validate()?;
        Ok(Drive {
            ctl: Controller::new(&cfg),
            queue: DeviceQueue::new(cfg.link.queue_depth_limit),
            now: 0,
            host_busy_until: 0,
            idle_after: crate::engine::us_to_ns(cfg.ftl.idle_after_ms * 1e3),
            host: HostTotals::default(),
            cfg,
        })
    }

    /// The drive's configuration.
    pub fn config(&self) -> &DriveConfig {
        &self.cfg
    }

    /// Simulated time now.
    pub fn now_ns(&self) -> Ns {
        self.now
    }

    /// Bytes the host can address (whole 4 KiB pages).
    pub fn capacity_bytes(&self) -> u64 {
        u64::from(self.ctl.ftl.user_lpns()) * SLOT_BYTES
    }

    /// The controller, for inspection (FTL map, NAND counters).
    pub fn controller(&self) -> &Controller {
        &self.ctl
    }

    /// Let `ns` of simulated time pass with no host IO; the drive does its background work.
    pub fn idle(&mut self, ns: Ns) {
        self.now += ns;
        self.background_until(self.now);
    }

    fn background_until(&mut self, now: Ns) {
        let from = self.host_busy_until + self.idle_after;
        if now > from {
            self.ctl.background(from, now);
        }
    }

    /// Deallocate (TRIM) `len` bytes from `offset`, rounded inward to whole 4 KiB pages.
    pub fn trim(&mut self, offset: u64, len: u64) -> Result<(), SimError> {
        let cap = self.capacity_bytes();
        if offset.checked_add(len).is_none_or(|end| end > cap) {
            return Err(crate::host::WorkloadError::new(
                "trim",
                &format!("range must fit the drive ({cap} bytes)"),
                offset,
            )
            .into());
        }
        let first = offset.div_ceil(SLOT_BYTES);
        let end = (offset + len) / SLOT_BYTES;
        if end > first {
            self.ctl.trim(self.now, first as u32, (end - first) as u32);
        }
        Ok(())
    }

    /// Sanitize (NVMe Sanitize, block erase): erase every block that holds data and empty the map, taking
    /// the erase time; wear, counters and the clock carry on (unlike building a new drive).
    pub fn sanitize(&mut self) {
        self.background_until(self.now);
        self.now = self.ctl.sanitize(self.now, &self.cfg);
        self.host_busy_until = self.now;
    }

    /// Every cumulative counter since the drive was made, by name.
    pub fn counters(&self) -> Vec<(&'static str, f64)> {
        let c = &self.ctl.counters;
        let f = self.ctl.ftl.counters();
        let n = &self.ctl.nand.counters;
        let h = &self.host;
        let (pe_min, pe_max, pe_mean) = self.ctl.ftl.erase_counts();
        let page = self.ctl.nand.geo.page_bytes;
        let slot = u64::from(self.ctl.nand.geo.slot_bytes);
        vec![
            ("host_read_ios", h.read_ios as f64),
            ("host_read_bytes", h.read_bytes as f64),
            ("host_write_ios", h.write_ios as f64),
            ("host_write_bytes", h.write_bytes as f64),
            ("host_trim_ios", h.trim_ios as f64),
            ("host_pages_written", f.host_lpns_written as f64),
            (
                "flash_bytes_written",
                ((f.host_slots_written + f.gc_slots_moved + f.folded_slots) * slot) as f64,
            ),
            ("nand_pages_read", n.pages_read as f64),
            ("nand_pages_programmed", n.pages_programmed as f64),
            ("nand_bytes_programmed", (n.pages_programmed * page) as f64),
            ("nand_blocks_erased", n.blocks_erased as f64),
            ("nand_bus_bytes", n.bus_bytes as f64),
            ("nand_slc_pages_programmed", n.slc_pages_programmed as f64),
            ("nand_program_suspensions", n.program_suspensions as f64),
            ("nand_erase_suspensions", n.erase_suspensions as f64),
            ("nand_reads_waited_program_erase", n.reads_waited_program_erase as f64),
            ("nand_reads_prioritised", n.reads_prioritised as f64),
            ("gc_blocks_erased", f.gc_blocks_erased as f64),
            // in 4 KiB pages of flash data (compressed data moves fewer)
            ("gc_page_moves", (f.gc_slots_moved * slot / SLOT_BYTES) as f64),
            ("background_blocks_erased", f.background_blocks_erased as f64),
            ("wear_leveling_blocks", f.wear_leveling_blocks as f64),
            ("factory_bad_blocks", f.factory_bad_blocks as f64),
            ("grown_bad_blocks", f.grown_bad_blocks as f64),
            ("slc_bytes_written", (f.slc_slots_written * slot) as f64),
            ("folded_bytes", (f.folded_slots * slot) as f64),
            ("padded_bytes", (f.padded_slots * slot) as f64),
            ("slc_cache_used_bytes", (self.ctl.ftl.slc_used_slots() * slot) as f64),
            ("slc_cache_size_bytes", (self.ctl.ftl.slc_budget_slots() * slot) as f64),
            ("mapped_bytes", (self.ctl.ftl.mapped_lpns() * SLOT_BYTES) as f64),
            ("trimmed_pages", f.trimmed_slots as f64),
            ("write_buffer_hits", c.write_buffer_hits as f64),
            ("write_buffer_stall_ns", c.write_buffer_stall_ns as f64),
            ("unmapped_reads", c.unmapped_reads as f64),
            ("map_lookups", c.map_lookups as f64),
            ("map_hits", c.map_hits as f64),
            ("map_misses", c.map_misses as f64),
            ("map_pages_read", c.map_pages_read as f64),
            ("map_pages_written", c.map_pages_written as f64),
            ("hmb_bytes", c.hmb_bytes as f64),
            ("hmb_ecc_corrected", c.hmb_ecc_corrected as f64),
            ("hmb_ecc_reloads", c.hmb_ecc_reloads as f64),
            ("free_blocks", self.ctl.ftl.free_blocks() as f64),
            ("pe_cycles_min", f64::from(pe_min)),
            ("pe_cycles_max", f64::from(pe_max)),
            ("pe_cycles_mean", pe_mean),
        ]
    }

    /// Play `w` against the drive from its current state and time.
    ///
    /// `progress` is called now and then with the fraction done; returning false cancels the run
    /// ([`SimError::Cancelled`]), leaving the drive as far as it got.
    pub fn run(
        &mut self,
        w: &Workload,
        progress: &mut dyn FnMut(f64) -> bool,
    ) -> Result<RunResult, SimError> {
        let cap = self.capacity_bytes();
        w.validate(cap)?;
        let before = self.counters();
        let busy_before = self.ctl.nand.die_busy_ns();
        let t0 = self.now;
        let measure_start = t0 + w.ramp_time_ns;
        let stop_issue = if w.runtime_ns > 0 { measure_start + w.runtime_ns } else { Ns::MAX };
        let mut stats = RunStats::new(measure_start, w.interval_ns);
        let mut jobs: Vec<Job> = (0..w.numjobs).map(|i| Job::new(w, i, cap, t0)).collect();
        let mut queue = EventQueue::default();
        for j in 0..w.numjobs {
            queue.push(t0, Event::Issue { job: j });
        }
        let total_bytes = w.io_limit(cap).saturating_mul(u64::from(w.numjobs));
        let mut moved = 0u64;
        let mut end = t0;
        let mut events = 0u64;
        while let Some((t, ev)) = queue.pop() {
            events += 1;
            if events.is_multiple_of(65_536) {
                let by_time = if w.runtime_ns > 0 { (t - t0) as f64 / (stop_issue - t0) as f64 } else { 0.0 };
                let by_bytes = moved as f64 / total_bytes as f64;
                if !progress(by_time.max(by_bytes).min(1.0)) {
                    self.now = t;
                    return Err(SimError::Cancelled);
                }
            }
            let (job, from_issue_event) = match ev {
                Event::SlotFree { job } => {
                    jobs[job as usize].outstanding -= 1;
                    if w.thinktime_ns > 0 && !jobs[job as usize].done {
                        queue.push(t + w.thinktime_ns, Event::Issue { job });
                        continue;
                    }
                    (job, false)
                }
                Event::Issue { job } => (job, true),
            };
            let jb = &mut jobs[job as usize];
            if from_issue_event {
                jb.issue_pending = false;
            }
            // Issue as many IOs as the job's queue and rate allow at time t.
            while jb.outstanding < jb.iodepth && !jb.done {
                if t >= stop_issue {
                    jb.done = true;
                    break;
                }
                if jb.issue_interval > 0 && t < jb.next_issue {
                    if !jb.issue_pending {
                        jb.issue_pending = true;
                        queue.push(jb.next_issue, Event::Issue { job });
                    }
                    break;
                }
                let io = jb.next_io();
                let done = self.submit(t, io, w.buffer_compress_percentage)?;
                moved += io.len;
                jb.outstanding += 1;
                queue.push(done, Event::SlotFree { job });
                end = end.max(done);
                if t >= measure_start {
                    let lat = done - t;
                    let (rb, wb) = match io.kind {
                        IoKind::Read => (io.len, 0),
                        IoKind::Write => (0, io.len),
                        IoKind::Trim => (0, 0),
                    };
                    let (dir, hist) = match io.kind {
                        IoKind::Read => (&mut stats.read, &mut stats.lat_read),
                        IoKind::Write => (&mut stats.write, &mut stats.lat_write),
                        IoKind::Trim => (&mut stats.trim, &mut stats.lat_write),
                    };
                    dir.ios += 1;
                    dir.bytes += io.len;
                    if io.kind != IoKind::Trim {
                        hist.record(lat);
                        stats.lat_all.record(lat);
                    }
                    stats.series.record(done - measure_start, rb, wb, lat);
                    stats.last_completion = stats.last_completion.max(done);
                }
                if jb.issue_interval == 0 && w.thinktime_ns > 0 {
                    // A thinking job issues one IO per slot per think time.
                    break;
                }
            }
        }
        self.now = end.max(t0);
        progress(1.0);
        Ok(self.result(stats, &before, &busy_before, self.now - t0))
    }

    /// One command from the host at `now`; returns when the host sees it complete.
    fn submit(&mut self, now: Ns, io: Io, compress_pct: u32) -> Result<Ns, SimError> {
        let Io { kind, offset, len } = io;
        self.background_until(now);
        let start = self.queue.admit(now) + self.cfg.host.submit_ns;
        let lpn = (offset / SLOT_BYTES) as u32;
        let n = (len / SLOT_BYTES) as u32;
        let h = &mut self.host;
        let done = match kind {
            IoKind::Read => {
                h.read_ios += 1;
                h.read_bytes += len;
                self.ctl.read(start, lpn, n)
            }
            IoKind::Write => {
                h.write_ios += 1;
                h.write_bytes += len;
                self.ctl.write(start, lpn, n, compress_pct)?
            }
            IoKind::Trim => {
                h.trim_ios += 1;
                self.ctl.trim(start, lpn, n)
            }
        } + self.cfg.host.complete_ns;
        self.queue.complete_at(done);
        self.host_busy_until = self.host_busy_until.max(done);
        Ok(done)
    }

    fn result(
        &self,
        stats: RunStats,
        before: &[(&'static str, f64)],
        busy_before: &[Ns],
        wall: Ns,
    ) -> RunResult {
        let mut counters: Vec<(&'static str, f64)> = self
            .counters()
            .into_iter()
            .zip(before)
            .map(|((k, v), (_, b))| match k {
                // levels, not totals: report the value now
                "free_blocks"
                | "pe_cycles_min"
                | "pe_cycles_max"
                | "pe_cycles_mean"
                | "slc_cache_used_bytes"
                | "slc_cache_size_bytes"
                | "mapped_bytes" => (k, v),
                _ => (k, v - b),
            })
            .collect();
        let get = |name: &str| counters.iter().find(|(k, _)| *k == name).map_or(0.0, |(_, v)| *v);
        // WAF counts flash bytes as the FTL places them (host data, compressed if the drive compresses,
        // + GC moves + folding), so data still in the write buffer at the end of a run counts too;
        // nand_bytes_programmed has what reached the flash. Dirty map pages written back to NAND
        // (DRAM-less map caches) count too.
        let host = get("host_write_bytes");
        let flash = get("flash_bytes_written") + get("map_pages_written") * SLOT_BYTES as f64;
        let waf = if host > 0.0 { flash / host } else { 0.0 };
        let die_utilisation: Vec<f64> = self
            .ctl
            .nand
            .die_busy_ns()
            .iter()
            .zip(busy_before)
            .map(|(a, b)| if wall == 0 { 0.0 } else { ((a - b) as f64 / wall as f64).min(1.0) })
            .collect();
        let mean_util = die_utilisation.iter().sum::<f64>() / die_utilisation.len() as f64;
        let lookups = get("map_lookups");
        let map_hit_rate = if lookups > 0.0 { get("map_hits") / lookups } else { 0.0 };
        counters.push(("waf", waf));
        counters.push(("map_hit_rate", map_hit_rate));
        counters.push(("die_utilisation_mean", mean_util));
        counters.push(("elapsed_s", stats.elapsed_ns() as f64 / 1e9));
        RunResult { stats, counters, die_utilisation }
    }
}

impl RunResult {
    /// A counter by name (0 when absent).
    pub fn counter(&self, name: &str) -> f64 {
        self.counters.iter().find(|(k, _)| *k == name).map_or(0.0, |(_, v)| *v)
    }

    /// Measured IOs per simulated second (reads + writes).
    pub fn iops(&self) -> f64 {
        let s = self.stats.elapsed_ns() as f64 / 1e9;
        if s == 0.0 {
            0.0
        } else {
            (self.stats.read.ios + self.stats.write.ios) as f64 / s
        }
    }

    /// Measured decimal MB per simulated second (reads + writes).
    pub fn bandwidth_mbps(&self) -> f64 {
        let s = self.stats.elapsed_ns() as f64 / 1e9;
        if s == 0.0 {
            0.0
        } else {
            (self.stats.read.bytes + self.stats.write.bytes) as f64 / 1e6 / s
        }
    }

    /// Latency over all IOs of the run.
    pub fn latency(&self) -> &Latency {
        &self.stats.lat_all
    }
}
