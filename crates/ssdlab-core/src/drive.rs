//! [`Drive`]: one simulated SSD with its state. It is driven one command at a time ([`Drive::submit`],
//! [`Drive::advance`], [`Drive::poll`]) or by a whole workload ([`Drive::run_jobs`], a loop over the same
//! calls).
//!
//! # When a completion time is final
//! The engine is a reservation model: a command is costed the moment it is submitted, by reserving each
//! resource it needs in turn (queue slot, firmware core, map cache, dies and channels, link) at the
//! earliest time each is free. Commands are submitted in time order (the clock never goes back), so every
//! resource is reserved in arrival order, and the completion time [`Drive::submit`] computes is final:
//! nothing submitted later can make it earlier or later. What this can and cannot revise:
//! - A later host read may suspend a program or erase already placed on a die (with `[nand.suspension]`),
//!   or go ahead of queued GC work. The die's later work shifts, but completion times already handed out
//!   (for example when a write-buffer slot frees) are not revised.
//! - Background work (GC, folding) runs in idle time as the clock advances, after the host has been idle
//!   `ftl.idle_after_ms`; it can delay commands submitted later, never earlier ones.
//! - A read that arrives while its data is still in the write buffer is served from there; one that
//!   arrives after the program completed reads flash. The choice is made at submission.

use crate::config::DriveConfig;
use crate::controller::{Controller, Span, SLOT_BYTES};
use crate::data::DataStore;
use crate::engine::{Event, EventQueue, Ns, NS_PER_US};
use crate::error::SimError;
use crate::host::{
    size_text, Command, Completion, DeviceQueue, ExitWhat, Job, Op, Status, SteadyTracker, TraceError,
    TraceRecord, Workload, WorkloadError, SECTOR_BYTES,
};
use crate::power::{OpTotals, PowerMeter};
use crate::stats::{Counters, DriveState, HostTotals, Latency, RunStats, UnknownCounter};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

/// The most a read or write command moves (bytes), as a controller's maximum data transfer size.
pub const MAX_TRANSFER: u64 = 64 << 20;

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
    /// Submitted commands not yet polled, earliest completion first.
    pending: PendingCompletions,
    next_id: u64,
    /// Energy, power samples, temperature and throttling.
    power: PowerMeter,
    /// What the host wrote, when the drive keeps data ([`Drive::enable_data`]).
    data: Option<DataStore>,
    /// The data of read commands not yet taken ([`Drive::take_read_data`]), by command id.
    read_payloads: HashMap<u64, Vec<u8>>,
    /// With data on, per page of the write being submitted: whether its current version is on flash.
    /// Kept between writes so a write allocates nothing.
    was_durable: Vec<bool>,
    /// Between [`Drive::power_cut`] and [`Drive::power_on`].
    powered_off: bool,
}

/// What a power cut did ([`Drive::power_cut`]).
#[derive(Clone, Debug, PartialEq)]
pub struct PowerCutReport {
    /// When power failed.
    pub at_ns: Ns,
    /// Whether the buffered data was programmed first (the power-loss notification, or the drive's
    /// own power-loss protection).
    pub flushed: bool,
    /// How long the flush took on the remaining energy (0 without).
    pub flush_ns: Ns,
    /// The energy the flush used, joules (0 without).
    pub flush_energy_j: f64,
    /// Acknowledged data in 4 KiB slots that was only in the volatile write buffer: lost without flush.
    pub at_risk_slots: u64,
    /// Commands submitted and not yet completed: never completed (their writes may or may not have
    /// reached flash; with data on, those that did not read back their old data). Those that completed
    /// before the cut, polled or not, are not among them.
    pub commands_dropped: u64,
    /// With data on and no flush: the LPNs whose latest write was lost and that now read their last
    /// version on flash (or zeros), sorted.
    pub lost_lpns: Vec<u32>,
}

/// Submitted commands not yet polled: a min-heap of small (completion time, id, slot) keys over a slab
/// of completions, so the heap moves 24 bytes per step, not a whole completion. Ids rise in submission
/// order, so ties pop in the order the commands were submitted.
#[derive(Clone, Debug, Default)]
struct PendingCompletions {
    heap: BinaryHeap<Reverse<(Ns, u64, u32)>>,
    slab: Vec<Completion>,
    free: Vec<u32>,
}

impl PendingCompletions {
    fn push(&mut self, c: Completion) {
        let slot = match self.free.pop() {
            Some(i) => {
                self.slab[i as usize] = c;
                i
            }
            None => {
                self.slab.push(c);
                (self.slab.len() - 1) as u32
            }
        };
        self.heap.push(Reverse((c.complete_ns, c.id, slot)));
    }

    fn next_time(&self) -> Option<Ns> {
        self.heap.peek().map(|Reverse((t, _, _))| *t)
    }

    /// When the command `id` completes, if it is still pending (a scan: a host keeps few in flight).
    fn time_of(&self, id: u64) -> Option<Ns> {
        self.heap.iter().find(|Reverse((_, i, _))| *i == id).map(|Reverse((t, _, _))| *t)
    }

    /// The earliest completion if it is due by `now`.
    fn pop_due(&mut self, now: Ns) -> Option<Completion> {
        let &Reverse((t, _, slot)) = self.heap.peek()?;
        if t > now {
            return None;
        }
        self.heap.pop();
        self.free.push(slot);
        Some(self.slab[slot as usize])
    }

    fn len(&self) -> usize {
        self.heap.len()
    }

    /// Drop the commands that complete after `now` (a power cut: they never will) and return their ids;
    /// those already due stay, posted to the host's completion queue before the power went.
    fn drop_after(&mut self, now: Ns) -> Vec<u64> {
        let (due, dropped): (Vec<_>, Vec<_>) = self.heap.drain().partition(|Reverse((t, _, _))| *t <= now);
        self.free.extend(dropped.iter().map(|Reverse((_, _, slot))| *slot));
        self.heap = due.into_iter().collect();
        dropped.into_iter().map(|Reverse((_, id, _))| id).collect()
    }
}

/// When a replay submits each request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Timing {
    /// At the time the trace recorded (scaled by the speed).
    Recorded,
    /// As fast as the queue depth allows.
    AsFastAsPossible,
}

/// How [`Drive::replay`] plays a trace.
#[derive(Clone, Copy, Debug)]
pub struct ReplayOptions {
    /// Recorded times or as fast as possible.
    pub timing: Timing,
    /// Recorded timing: 2.0 replays twice as fast.
    pub speed: f64,
    /// Outstanding requests kept when replaying as fast as possible (and for untimed traces).
    pub iodepth: u32,
    /// Width of the per-interval series.
    pub interval_ns: Ns,
    /// Keep a row for every request ([`crate::IoLog`], in the result's statistics).
    pub log_ios: bool,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        ReplayOptions {
            timing: Timing::Recorded,
            speed: 1.0,
            iodepth: 32,
            interval_ns: 100_000_000,
            log_ios: false,
        }
    }
}

/// One job of a run and the spec it came from.
#[derive(Debug)]
struct RunningJob {
    spec: usize,
    job: Job,
}

/// What a run produced: measurements and the change in every counter.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// IO counts, bytes, latencies and the per-interval series of the run.
    pub stats: RunStats,
    /// Every counter's change over the run ([`Counters::delta`]: totals subtract, levels are the value
    /// at the end, derived ones such as `waf` are the run's own).
    pub counters: Counters,
    /// Busy share of each die over the run.
    pub die_utilisation: Vec<f64>,
    /// What each job spec of the run measured, in the order given (for one spec, the same as `stats`).
    pub jobs: Vec<RunStats>,
}

/// fio's steady-state trackers for a run's specs: one per spec with a window (`steadystate_duration_ns`),
/// except that specs judged as a group (`steadystate_group`) share one. Returns the trackers and each
/// spec's tracker.
fn steady_trackers(specs: &[Workload], t0: Ns) -> (Vec<SteadyTracker>, Vec<Option<usize>>) {
    let mut trackers: Vec<SteadyTracker> = Vec::new();
    let mut group: Option<usize> = None;
    let mut of = Vec::with_capacity(specs.len());
    for w in specs {
        if w.steadystate_duration_ns == 0 {
            of.push(None);
            continue;
        }
        if w.steadystate_group {
            if let Some(k) = group {
                of.push(Some(k));
                continue;
            }
        }
        trackers.push(SteadyTracker::new(
            w.steadystate,
            w.steadystate_duration_ns,
            w.steadystate_ramp_time_ns,
            w.steadystate_check_interval_ns,
            t0.saturating_add(w.startdelay_ns),
        ));
        let k = trackers.len() - 1;
        if w.steadystate_group {
            group = Some(k);
        }
        of.push(Some(k));
    }
    (trackers, of)
}

/// fio's `exitall`: once a job of a workload that has it finishes (nothing more to issue, nothing in
/// flight), the jobs its `exit_what` names (its group, or every job of the run) stop issuing at `t`.
fn exit_all_if_finished(rj: &RunningJob, specs: &[Workload], t: Ns, stops: &mut [Ns]) {
    let w = &specs[rj.spec];
    if w.exitall && rj.job.done && rj.job.outstanding == 0 {
        for (s, other) in stops.iter_mut().zip(specs) {
            if w.exit_what != ExitWhat::Group || other.group == w.group {
                *s = (*s).min(t);
            }
        }
    }
}

/// Steady-state tracker `k`'s check at `t`: once attained, the specs it covers issue nothing more (IOs in
/// flight complete); until then the next check is booked while a covered job still runs.
fn steady_check(
    tracker: &mut SteadyTracker,
    k: usize,
    t: Ns,
    tracker_of: &[Option<usize>],
    stops: &mut [Ns],
    jobs: &[RunningJob],
    wakeups: &mut EventQueue,
) {
    let covered = |s: usize| tracker_of[s] == Some(k);
    if tracker.check(t) {
        (0..stops.len()).filter(|&s| covered(s)).for_each(|s| stops[s] = t);
        return;
    }
    let next = t.saturating_add(tracker.interval_ns());
    let running = jobs.iter().any(|rj| covered(rj.spec) && !rj.job.done);
    if running && (0..stops.len()).any(|s| covered(s) && next < stops[s]) {
        wakeups.push(next, Event::SteadyCheck { tracker: k as u32 });
    }
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
            pending: PendingCompletions::default(),
            next_id: 0,
            power: PowerMeter::new(
                &cfg.power,
                &cfg.thermal,
                cfg.link.lanes,
                cfg.nand.channels * cfg.nand.dies_per_channel,
            ),
            data: None,
            read_payloads: HashMap::new(),
            was_durable: Vec::new(),
            powered_off: false,
            cfg,
        })
    }

    /// Keep the data the host writes from now on: reads return it (see [`crate::data`]). Pages written
    /// before read as zeros. Timing is the same with data on or off (`tests/data.rs` shows the use).
    pub fn enable_data(&mut self) {
        self.data.get_or_insert_with(DataStore::default);
    }

    /// True when the drive keeps the data written ([`Drive::enable_data`]).
    pub fn data_enabled(&self) -> bool {
        self.data.is_some()
    }

    /// The data store, when the drive keeps data (fault injection: [`DataStore::corrupt`]).
    pub fn data_store_mut(&mut self) -> Option<&mut DataStore> {
        self.data.as_mut()
    }

    /// What a read of `len` bytes from `offset` would return now, without taking any time (checks and
    /// tools). Zeros where nothing is stored; an error if the drive keeps no data or the range is bad.
    pub fn read_data(&mut self, offset: u64, len: u64) -> Result<Vec<u8>, SimError> {
        self.check_command(&Command::new(Op::Trim, offset, len))?;
        let Some(store) = self.data.as_mut() else {
            return Err(WorkloadError::new("data", "the drive keeps no data (enable it first)", "off").into());
        };
        let mut out = Vec::new();
        self.host.data_integrity_errors += store.read_bytes(offset, len, &mut out);
        Ok(out)
    }

    /// Flip `bits` bits in the host-memory-buffer copy of the map page holding the LPN at `offset` (fault
    /// injection): the next time the controller reads that copy, one flip is corrected by its ECC, two or
    /// more are detected and the copy is dropped, never used: the map page is read again from NAND (a
    /// map page read, `tR` on its die) and the host's read still gets its own data. Returns false, doing
    /// nothing, unless that map page is cached in the HMB (a drive with its map in DRAM or SRAM, or a map
    /// page not cached now).
    pub fn inject_hmb_bit_flips(&mut self, offset: u64, bits: u32) -> Result<bool, SimError> {
        let cap = self.capacity_bytes();
        if offset >= cap {
            return Err(WorkloadError::new(
                "offset",
                &format!("must be below the capacity ({cap} bytes)"),
                offset,
            )
            .into());
        }
        Ok(self.ctl.inject_hmb_bit_flips((offset / SLOT_BYTES) as u32, bits))
    }

    /// The data a read command returned, once (None for other commands, or if the drive keeps no data).
    pub fn take_read_data(&mut self, id: u64) -> Option<Vec<u8>> {
        self.read_payloads.remove(&id)
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

    /// The power and thermal state, for inspection (temperatures, throttle state, wake-ups).
    pub fn power(&self) -> &PowerMeter {
        &self.power
    }

    /// What the engine has done that costs energy, from the parts' own counters.
    fn op_totals(&self) -> OpTotals {
        let n = &self.ctl.nand.counters;
        let h = &self.host;
        OpTotals {
            read_plane_ns: n.read_plane_ns,
            program_plane_ns: n.program_plane_ns,
            erase_plane_ns: n.erase_plane_ns,
            channel_bytes: n.bus_bytes,
            link_bytes: h.read_bytes + h.write_bytes + self.ctl.counters.hmb_bytes,
            commands: h.read_ios + h.write_ios + h.trim_ios + h.flush_ios,
        }
    }

    /// Close every power sample that ends by `until`; the thermal state they leave sets the NAND's speed.
    fn sample_power(&mut self, until: Ns) {
        if let Some(speed) = self.power.skip_to(until, &self.op_totals()) {
            self.ctl.nand.set_speed_pct(speed);
        }
        while self.power.next_sample() <= until {
            let speed = self.power.sample(self.power.next_sample(), &self.op_totals());
            self.ctl.nand.set_speed_pct(speed);
        }
    }

    fn begin_power(&mut self, measure_start: Ns, interval: Ns) {
        let ops = self.op_totals();
        self.power.begin(self.now, measure_start, interval, &ops);
    }

    fn end_power(&mut self, stats: &mut RunStats) {
        let ops = self.op_totals();
        if let Some(rec) = self.power.end(self.now, &ops) {
            stats.set_power(rec);
        }
    }

    /// Let `ns` of simulated time pass with no host IO; the drive does its background work.
    pub fn idle(&mut self, ns: Ns) {
        self.advance(self.now.saturating_add(ns));
    }

    fn background_until(&mut self, now: Ns) {
        let from = self.host_busy_until + self.idle_after;
        if now > from {
            self.ctl.background(from, now);
        }
    }

    /// Deallocate (TRIM) `len` bytes from `offset`, rounded inward to whole 4 KiB pages.
    pub fn trim(&mut self, offset: u64, len: u64) -> Result<(), SimError> {
        self.check_on("trim")?;
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
            if let Some(store) = &mut self.data {
                store.trim(first as u32, (end - first) as u32);
            }
        }
        Ok(())
    }

    /// Sanitize (NVMe Sanitize, block erase): erase every block that holds data and empty the map, taking
    /// the erase time; wear, counters and the clock carry on (unlike building a new drive).
    pub fn sanitize(&mut self) -> Result<(), SimError> {
        self.now = self.start_sanitize(0)?;
        Ok(())
    }

    /// Start a sanitize now and return when its NAND work ends, leaving the clock where it is (an NVMe
    /// sanitize runs in the background; the host polls its progress). `overwrite_passes` 0 erases every
    /// block holding data (block erase); n > 0 overwrites each n times with a pattern and erases it
    /// (overwrite). Either way the map and the stored data are gone at once, and background work waits
    /// for the end. Commands submitted meanwhile queue on the dies behind the sanitize's work.
    pub fn start_sanitize(&mut self, overwrite_passes: u32) -> Result<Ns, SimError> {
        self.check_on("sanitize")?;
        self.background_until(self.now);
        let end = self.ctl.sanitize(self.now, overwrite_passes, &self.cfg);
        if let Some(store) = &mut self.data {
            store.clear();
        }
        self.host_busy_until = end;
        Ok(end)
    }

    /// An error naming `what` while the drive is off (after a power cut, until `power_on`).
    /// `what` is formatted only when the drive is off (a command's op on every submit would cost an
    /// allocation per IO).
    fn check_on(&self, what: impl std::fmt::Display) -> Result<(), SimError> {
        if self.powered_off {
            return Err(WorkloadError::new("power", "the drive is off: power_on() first", what).into());
        }
        Ok(())
    }

    /// Set Features, Host Memory Buffer: `Some(mib)` gives the drive `mib` MiB of host memory for its map
    /// cache, `None` takes it back (the controller caches map pages in its own SRAM,
    /// `controller.map_cache.sram_size_kib`, beside its other tables, `sram_tables_kib`, and the write
    /// buffer keeps the rest, as on a drive built without HMB). The cache starts cold either way. A drive
    /// with its map in DRAM uses no host memory: refused.
    pub fn set_host_memory_buffer(&mut self, mib: Option<u64>) -> Result<(), SimError> {
        use crate::config::MapLocation;
        if self.cfg.controller.map_cache.location == MapLocation::Dram {
            let e =
                WorkloadError::new("hmb", "the drive keeps its map in DRAM and uses no host memory", "dram");
            return Err(e.into());
        }
        let mut cfg = self.cfg.clone();
        let m = &mut cfg.controller.map_cache;
        match mib {
            Some(mib) => (m.location, m.hmb_size_mib) = (MapLocation::Hmb, mib),
            None => m.location = MapLocation::Sram,
        }
        cfg.validate()?;
        self.ctl.renew_map_cache(&cfg);
        self.cfg = cfg;
        Ok(())
    }

    /// Set Features, Autonomous Power State Transition: on, the drive enters `power.nonop_states` after
    /// their idle times; off, it stays in its operational idle power.
    pub fn set_apst(&mut self, on: bool) {
        self.power.set_apst(self.now, &self.cfg.power, on);
        self.cfg.power.apst = on;
    }

    /// Set Features, Power Management: the host puts the drive in non-operational state `index` of
    /// `power.nonop_states` now (its controller power until the next command, which waits its exit
    /// latency), or with `None` back in an operational state.
    pub fn set_power_state(&mut self, index: Option<usize>) -> Result<(), SimError> {
        let states = &self.cfg.power.nonop_states;
        let state = match index {
            None => None,
            Some(i) if i < states.len() => {
                let s = &states[i];
                Some((crate::engine::us_to_ns(s.exit_latency_us), s.controller_mw * 1e-3))
            }
            Some(i) => {
                let allowed = format!("must be below {} (the drive's non-operational states)", states.len());
                return Err(WorkloadError::new("ps", &allowed, i).into());
            }
        };
        self.power.set_host_state(self.now, state);
        Ok(())
    }

    /// Power fails now. With `pln` (the host's power-loss notification: the BG4's PLN signal gives the
    /// drive time on its remaining energy) or a drive with power-loss protection, acknowledged data in
    /// the write buffer is programmed first; without, it is lost, and with data on the pages it held read
    /// their last version on flash. Either way commands not yet completed never complete, and the
    /// buffer and cached map are gone until [`Drive::power_on`]. Flushed and FUA-acknowledged writes
    /// are on flash already and never lost.
    ///
    /// Without the signal, a program interrupted on a word line programmed a page at a time (MLC/TLC
    /// without one-shot programming) corrupts the earlier pages of that word line (paired pages): their
    /// data stays mapped but reads back failing its check (a data integrity error), and is reported lost.
    ///
    /// Not modelled: lost trims, and the map journal's own unwritten tail (the map is rebuilt whole).
    pub fn power_cut(&mut self, pln: bool) -> Result<PowerCutReport, SimError> {
        // a second cut would report the first one's losses again, as if new
        self.check_on("power cut")?;
        let now = self.now;
        self.background_until(now);
        let paired = if pln { Vec::new() } else { self.ctl.paired_at_risk(now) };
        let at_risk_slots = self.ctl.volatile_slots(now) + paired.len() as u64;
        let flushed = pln || at_risk_slots == 0;
        // which pages were lost is decided before the buffer is emptied
        let ctl = &self.ctl;
        let mut lost_lpns = match &mut self.data {
            Some(store) if !flushed => store.revert_lost(|l| ctl.is_volatile(l, now)),
            Some(store) => {
                store.forget_durable(|_| false);
                Vec::new()
            }
            None => Vec::new(),
        };
        if !paired.is_empty() {
            if let Some(store) = &mut self.data {
                for &l in &paired {
                    store.corrupt(l, 0);
                }
            }
            lost_lpns.extend(&paired);
            lost_lpns.sort_unstable();
            lost_lpns.dedup();
        }
        let energy_before = self.power.energy_j(now, &self.op_totals());
        let end = self.ctl.power_cut(now, pln, &self.cfg);
        let flush_energy_j =
            if pln { self.power.energy_j(end, &self.op_totals()) - energy_before } else { 0.0 };
        let dropped = self.pending.drop_after(now);
        // only the dropped reads lose their data: those that completed before the cut have it in host
        // memory with their completions
        for id in &dropped {
            self.read_payloads.remove(id);
        }
        let commands_dropped = dropped.len() as u64;
        self.queue = DeviceQueue::new(self.cfg.link.queue_depth_limit);
        self.host.unsafe_shutdowns += 1;
        if !flushed {
            self.host.power_loss_lost_slots += at_risk_slots;
        }
        self.powered_off = true;
        Ok(PowerCutReport {
            at_ns: now,
            flushed,
            flush_ns: end - now,
            flush_energy_j,
            at_risk_slots,
            commands_dropped,
            lost_lpns,
        })
    }

    /// Power returns now: the FTL rebuilds its map from flash (see `Controller::rebuild_map`), the clock
    /// moving on by the time that takes; returns that time in ns. A drive that is on is left alone (0).
    pub fn power_on(&mut self) -> Ns {
        if !self.powered_off {
            return 0;
        }
        self.powered_off = false;
        let done = self.ctl.rebuild_map(self.now, &self.cfg);
        let took = done - self.now;
        self.host.map_rebuild_ns += took;
        self.advance(done);
        self.host_busy_until = done;
        took
    }

    /// True between [`Drive::power_cut`] and [`Drive::power_on`].
    pub fn powered_off(&self) -> bool {
        self.powered_off
    }

    /// Every counter since the drive was made, in the registry's order ([`crate::stats::COUNTERS`]);
    /// derived ones (`waf`, ...) over the drive's whole life.
    pub fn counters(&self) -> Counters {
        let ops = self.op_totals();
        Counters::read(&DriveState {
            ctl: &self.ctl,
            host: &self.host,
            now: self.now,
            power: &self.power,
            ops,
        })
    }

    /// Play `w` against the drive from its current state and time: [`Drive::run_jobs`] with one job spec.
    pub fn run(
        &mut self,
        w: &Workload,
        progress: &mut dyn FnMut(f64) -> bool,
    ) -> Result<RunResult, SimError> {
        self.run_jobs(std::slice::from_ref(w), progress)
    }

    /// Play several job specs at once, like fio jobs in one group, from the drive's current state and
    /// time. Each spec has its own rw, bs, iodepth, region, rate, think time, ramp and runtime; a spec
    /// with `numjobs` > 1 is that many identical jobs (job `i` of the run draws `stream(seed, i)`).
    /// [`RunResult::stats`] is the group (fio's `group_reporting`), [`RunResult::jobs`] one entry per spec.
    ///
    /// This is a loop over the stepping calls ([`Drive::submit`], [`Drive::advance`], [`Drive::poll`]):
    /// the same IOs submitted by hand give the same result. `progress` is called now and then with the
    /// fraction done; returning false cancels the run ([`SimError::Cancelled`]), leaving the drive as far
    /// as it got.
    pub fn run_jobs(
        &mut self,
        specs: &[Workload],
        progress: &mut dyn FnMut(f64) -> bool,
    ) -> Result<RunResult, SimError> {
        let cap = self.capacity_bytes();
        let Some(first) = specs.first() else {
            return Err(WorkloadError::new("jobs", "a run needs at least one job", 0).into());
        };
        // every problem of every spec at once, named `jobs[i].field` when there are several
        let problems: Vec<WorkloadError> = specs
            .iter()
            .enumerate()
            .flat_map(|(i, w)| {
                w.problems(Some(cap)).into_iter().map(move |mut p| {
                    if specs.len() > 1 {
                        p.field = format!("jobs[{i}].{}", p.field);
                    }
                    p
                })
            })
            .collect();
        if !problems.is_empty() {
            return Err(SimError::InvalidWorkload(problems));
        }
        self.require_nothing_outstanding("run")?;
        let before = self.counters();
        let busy_before = self.ctl.nand.die_busy_ns();
        let t0 = self.now;
        // A job starts `startdelay` after the run; its ramp time and runtime count from there.
        let measure_start = |w: &Workload| t0.saturating_add(w.startdelay_ns).saturating_add(w.ramp_time_ns);
        // a spec's IO log lives in its own statistics (the group's when it is the only spec)
        let one = specs.len() == 1;
        let mut group = RunStats::new(specs.iter().map(measure_start).min().unwrap_or(t0), first.interval_ns)
            .log_ios(one && first.log_ios);
        let mut per_spec: Vec<RunStats> = specs
            .iter()
            .map(|w| RunStats::new(measure_start(w), w.interval_ns).log_ios(!one && w.log_ios))
            .collect();
        self.begin_power(group.measure_start, first.interval_ns);
        let mut jobs = Vec::new();
        for (s, w) in specs.iter().enumerate() {
            for clone in 0..w.numjobs {
                let index = jobs.len() as u32;
                let job = Job::new(w, index, clone, cap, t0.saturating_add(w.startdelay_ns));
                jobs.push(RunningJob { spec: s, job });
            }
        }
        let stop_issue = |w: &Workload| {
            if w.runtime_ns > 0 {
                measure_start(w).saturating_add(w.runtime_ns)
            } else {
                Ns::MAX
            }
        };
        let mut stops: Vec<Ns> = specs.iter().map(stop_issue).collect();
        // fio's steady-state checks: a tracker per spec, or one for the specs judged as a group.
        let (mut trackers, tracker_of) = steady_trackers(specs, t0);
        let last_stop = stops.iter().copied().max().unwrap_or(Ns::MAX);
        let total_bytes: u64 = specs
            .iter()
            .map(|w| {
                w.io_limit(cap)
                    .min(w.ios_limit().saturating_mul(w.max_bs()))
                    .saturating_mul(u64::from(w.numjobs))
            })
            .fold(0, u64::saturating_add);
        // Rate-limited and thinking jobs wake up at set times; completions free queue slots.
        let mut wakeups = EventQueue::default();
        for (j, rj) in jobs.iter().enumerate() {
            wakeups.push(rj.job.next_issue, Event::Issue { job: j as u32 });
        }
        for (k, tr) in trackers.iter().enumerate() {
            wakeups.push(tr.first_check_ns(), Event::SteadyCheck { tracker: k as u32 });
        }
        let mut moved = 0u64;
        let mut events = 0u64;
        loop {
            events += 1;
            if events.is_multiple_of(65_536) {
                let by_time = if last_stop < Ns::MAX {
                    (self.now - t0) as f64 / (last_stop - t0).max(1) as f64
                } else {
                    0.0
                };
                let by_bytes = moved as f64 / total_bytes.max(1) as f64;
                if !progress(by_time.max(by_bytes).min(1.0)) {
                    return Err(SimError::Cancelled);
                }
            }
            // The next thing to happen: a completion, or a job waking up (completions first at a tie).
            let (t, woken) = match (self.next_completion_ns(), wakeups.peek_time()) {
                (None, None) => break,
                (Some(c), Some(i)) if i < c => (i, true),
                (None, Some(i)) => (i, true),
                (Some(c), _) => (c, false),
            };
            self.advance(t);
            if woken {
                let job = match wakeups.pop() {
                    Some((_, Event::Issue { job })) => job,
                    Some((_, Event::SteadyCheck { tracker })) => {
                        let k = tracker as usize;
                        steady_check(&mut trackers[k], k, t, &tracker_of, &mut stops, &jobs, &mut wakeups);
                        continue;
                    }
                    None => unreachable!("peeked"),
                };
                let rj = &mut jobs[job as usize];
                rj.job.issue_pending = false;
                moved += self.issue(rj, job, &specs[rj.spec], stops[rj.spec], &mut wakeups)?;
                exit_all_if_finished(rj, specs, t, &mut stops);
                continue;
            }
            while let Some(c) = self.poll() {
                let job = c.tag as u32;
                let rj = &mut jobs[job as usize];
                rj.job.outstanding -= 1;
                let w = &specs[rj.spec];
                if let Some(k) = tracker_of[rj.spec] {
                    trackers[k].record(c.len, c.complete_ns - c.submit_ns);
                }
                let stats = &mut per_spec[rj.spec];
                if c.submit_ns >= stats.measure_start {
                    if specs.len() > 1 {
                        stats.record(&c);
                    }
                    group.record(&c);
                }
                if w.thinktime_ns > 0 && !rj.job.done && rj.job.think_due() {
                    rj.job.since_think = 0;
                    let wake = t.saturating_add(w.thinktime_ns);
                    if wake >= stops[rj.spec] {
                        (rj.job.done, rj.job.stopped) = (true, true);
                    } else {
                        wakeups.push(wake, Event::Issue { job });
                    }
                } else {
                    moved += self.issue(rj, job, w, stops[rj.spec], &mut wakeups)?;
                }
                exit_all_if_finished(rj, specs, t, &mut stops);
            }
        }
        progress(1.0);
        // fio counts a job's runtime to its exit: a job stopped while it waited to issue (a rate's next
        // IO, a think time) ran until it was stopped
        for rj in jobs.iter().filter(|rj| rj.job.stopped) {
            group.stopped_at(stops[rj.spec]);
            per_spec[rj.spec].stopped_at(stops[rj.spec]);
        }
        // the drive idles until then (its background work goes on)
        self.advance(self.now.max(group.end));
        self.end_power(&mut group);
        for (s, stats) in per_spec.iter_mut().enumerate() {
            stats.steadystate = tracker_of[s].map(|k| trackers[k].report().clone());
        }
        // the group's own: the one tracker every spec shares, if they share one
        if let Some(k) = tracker_of[0].filter(|&k| tracker_of.iter().all(|&o| o == Some(k))) {
            group.steadystate = Some(trackers[k].report().clone());
        }
        let jobs_stats = if one { vec![group.split_job()] } else { per_spec };
        let mut res = self.result(group, &before, &busy_before, self.now - t0);
        res.jobs = jobs_stats;
        Ok(res)
    }

    /// Replay a trace's requests from the drive's current state and time. With `Timing::Recorded` each
    /// request is submitted at its recorded time (divided by `speed`), however busy the drive is (open
    /// loop; the device queue admits what it can); requests without times, and every request with
    /// `Timing::AsFastAsPossible`, keep `iodepth` outstanding. A bad record stops the replay with its error.
    /// The result has the shape of a run's (one job).
    pub fn replay(
        &mut self,
        records: &mut dyn Iterator<Item = Result<TraceRecord, TraceError>>,
        opts: &ReplayOptions,
        progress: &mut dyn FnMut() -> bool,
    ) -> Result<RunResult, SimError> {
        self.require_nothing_outstanding("replay")?;
        let mut problems = Vec::new();
        if !(opts.speed.is_finite() && opts.speed > 0.0) {
            problems.push(WorkloadError::new("speed", "must be a finite number above 0", opts.speed));
        }
        if !(1..=65_536).contains(&opts.iodepth) {
            problems.push(WorkloadError::new("iodepth", "must be from 1 to 65536", opts.iodepth));
        }
        if opts.interval_ns < NS_PER_US {
            problems.push(WorkloadError::new("interval", "must be at least 1 us", opts.interval_ns));
        }
        if !problems.is_empty() {
            return Err(SimError::InvalidWorkload(problems));
        }
        let before = self.counters();
        let busy_before = self.ctl.nand.die_busy_ns();
        let t0 = self.now;
        let mut stats = RunStats::new(t0, opts.interval_ns).log_ios(opts.log_ios);
        self.begin_power(t0, opts.interval_ns);
        let drain = |d: &mut Drive, stats: &mut RunStats| {
            while let Some(c) = d.poll() {
                stats.record(&c);
            }
        };
        let mut records = records.peekable();
        let mut n = 0u64;
        while let Some(rec) = records.next() {
            n += 1;
            if n.is_multiple_of(65_536) && !progress() {
                return Err(SimError::Cancelled);
            }
            let rec = rec?;
            match (opts.timing, rec.at_ns) {
                (Timing::Recorded, Some(at)) => {
                    let at = t0.saturating_add((at as f64 / opts.speed) as Ns);
                    while let Some(c) = self.next_completion_ns().filter(|&c| c <= at) {
                        self.advance(c);
                        drain(self, &mut stats);
                    }
                    self.advance(at);
                }
                _ => {
                    while self.outstanding() >= opts.iodepth as usize {
                        self.advance_to_next_completion();
                        drain(self, &mut stats);
                    }
                }
            }
            self.submit_unread(rec.cmd)?;
            if let Some(Ok(next)) = records.peek() {
                self.prefetch_map_entry(next.cmd.offset);
            }
        }
        while self.advance_to_next_completion().is_some() {
            drain(self, &mut stats);
        }
        progress();
        self.end_power(&mut stats);
        let job = stats.split_job();
        let mut res = self.result(stats, &before, &busy_before, self.now - t0);
        res.jobs = vec![job];
        Ok(res)
    }

    /// Issue as many IOs of `rj` as its queue depth, rate and runtime allow now. Returns the bytes issued.
    fn issue(
        &mut self,
        rj: &mut RunningJob,
        index: u32,
        w: &Workload,
        stop_issue: Ns,
        wakeups: &mut EventQueue,
    ) -> Result<u64, SimError> {
        let t = self.now;
        let jb = &mut rj.job;
        let mut bytes = 0;
        while jb.outstanding < jb.iodepth && !jb.done {
            if t >= stop_issue {
                (jb.done, jb.stopped) = (true, true);
                break;
            }
            if jb.draining() {
                if jb.outstanding > 0 {
                    break; // fio's verify: the pass's IOs complete before its read-back starts
                }
                jb.start_verify();
                if jb.done {
                    break;
                }
            }
            if let Some(sleep) = jb.quiesce_sleep {
                if jb.outstanding > 0 {
                    break; // still waiting for the IOs in flight before it sleeps
                }
                jb.quiesce_sleep = None;
                jb.issue_pending = false;
                jb.next_issue = t.saturating_add(sleep);
            }
            let due = if t < jb.next_issue {
                Err(jb.next_issue) // asleep, or not started yet (a clone's start spread over one interval)
            } else if jb.paced() && !jb.verifying() {
                match jb.rate_allows(t) {
                    Err(due) if jb.outstanding > 0 => {
                        // fio, ahead of its rate, waits for every IO in flight, then sleeps what it reckons now
                        jb.quiesce_sleep = Some(due - t);
                        break;
                    }
                    allowed => allowed,
                }
            } else {
                Ok(())
            };
            if let Err(due) = due {
                if due >= stop_issue {
                    // the run is over for this job before it may issue again
                    (jb.done, jb.stopped) = (true, true);
                    break;
                }
                if !jb.issue_pending {
                    jb.issue_pending = true;
                    jb.next_issue = due;
                    wakeups.push(due, Event::Issue { job: index });
                }
                break;
            }
            let io = jb.next_io();
            self.submit_unread(Command { tag: u64::from(index), ..io })?;
            if let Some(next) = jb.upcoming_offset() {
                self.prefetch_map_entry(next);
            }
            bytes += io.len;
            jb.outstanding += 1;
            if !jb.paced() && w.thinktime_ns > 0 && jb.think_due() {
                // A thinking job issues `thinktime_blocks` IOs, then pauses once they complete.
                break;
            }
        }
        Ok(bytes)
    }

    /// Submit `cmd` at the drive's current time ([`Drive::now_ns`]); returns its id. The completion time
    /// is computed now and is final: resources are reserved in arrival order, so nothing submitted later
    /// can move it (see the module docs). Collect it with [`Drive::poll`] once the clock has reached it.
    ///
    /// Offset and length must be whole 4 KiB pages inside the drive; a read or write moves at most
    /// 64 MiB; a trim any length. A flush ignores both.
    pub fn submit(&mut self, cmd: Command) -> Result<u64, SimError> {
        self.submit_with_data(cmd, None)
    }

    /// [`Drive::submit`] with the data of a write. With data on ([`Drive::enable_data`]) a write stores
    /// `data` (zeros when `None`), a read's data is kept for [`Drive::take_read_data`] and a trim drops
    /// its pages; with data off `data` is ignored. `data` must be as long as the write.
    pub fn submit_with_data(&mut self, cmd: Command, data: Option<&[u8]>) -> Result<u64, SimError> {
        self.submit_inner(cmd, data, true)
    }

    /// The next command of a run or a replay will address byte `offset`: its map entry is a CPU cache
    /// miss on a large drive, so it is loaded while this command is handled (the simulator's speed only).
    #[inline]
    fn prefetch_map_entry(&self, offset: u64) {
        self.ctl.ftl.prefetch((offset / SLOT_BYTES) as u32);
    }

    /// A command of a run or a replay: nobody takes a read's data, so it is checked (CRC) but not copied
    /// out and kept (kept, every read of a run would stay in memory).
    fn submit_unread(&mut self, cmd: Command) -> Result<u64, SimError> {
        self.submit_inner(cmd, None, false)
    }

    fn submit_inner(
        &mut self,
        cmd: Command,
        data: Option<&[u8]>,
        keep_read_data: bool,
    ) -> Result<u64, SimError> {
        let now = self.now;
        self.check_on(cmd.op)?;
        self.check_command(&cmd)?;
        if let Some(d) = data {
            if cmd.op != Op::Write {
                return Err(WorkloadError::new("data", "only a write carries data", cmd.op).into());
            }
            if d.len() as u64 != cmd.len {
                return Err(WorkloadError::new(
                    "data",
                    &format!("must be as long as the write ({} bytes)", cmd.len),
                    d.len(),
                )
                .into());
            }
        }
        self.background_until(now);
        let wake = self.power.wake(now);
        let start = self.queue.admit(now).saturating_add(self.cfg.host.submit_ns + wake);
        // the pages the command touches; a trim drops only the pages it covers whole
        let span = match cmd.op {
            Op::Trim => {
                let (first, end) = (cmd.offset.div_ceil(SLOT_BYTES), (cmd.offset + cmd.len) / SLOT_BYTES);
                Span::pages(first as u32, end.saturating_sub(first) as u32)
            }
            _ => Span::of_bytes(cmd.offset, cmd.len),
        };
        let (lpn, n) = (span.lpn, span.n);
        // with data on, whether each page's current version is on flash (what a power cut reverts to)
        self.was_durable.clear();
        if self.data.is_some() && cmd.op == Op::Write {
            let ctl = &self.ctl;
            self.was_durable.extend((lpn..lpn + n).map(|l| !ctl.is_volatile(l, now)));
        }
        let h = &mut self.host;
        let done = match cmd.op {
            Op::Read => {
                h.read_ios += 1;
                h.read_bytes += cmd.len;
                self.ctl.read(start, span)
            }
            Op::Write => {
                h.write_ios += 1;
                h.write_bytes += cmd.len;
                self.ctl.retire_programs(now);
                let acked = self.ctl.write(start, span, cmd.compress_pct)?;
                if cmd.fua {
                    acked.max(self.ctl.make_durable(acked))
                } else {
                    acked
                }
            }
            Op::Trim => {
                h.trim_ios += 1;
                self.ctl.trim(start, lpn, n)
            }
            Op::Flush => {
                h.flush_ios += 1;
                self.ctl.flush(start)
            }
        }
        .saturating_add(self.cfg.host.complete_ns);
        self.queue.complete_at(done);
        self.host_busy_until = self.host_busy_until.max(done);
        self.power.busy_until(done);
        let id = self.next_id;
        self.next_id += 1;
        if let Some(store) = &mut self.data {
            match (cmd.op, data) {
                (Op::Write, d) => {
                    let was_durable = &self.was_durable;
                    let durable = |l: u32| was_durable[(l - lpn) as usize];
                    let whole = span.head == 0 && span.tail == 0;
                    match d {
                        Some(d) if whole => store.write_tracked(lpn, d, durable),
                        // a write without data (every write of a run or a replay) stores zeros: no
                        // buffer of zeros is made and scanned, the pages are just dropped
                        None if whole => store.write_zeros_tracked(lpn, n, durable),
                        // part of a page: its other sectors keep what they held
                        d => {
                            let mut pages = Vec::new();
                            store.read(lpn, n, &mut pages);
                            let at = span.head as usize;
                            match d {
                                Some(d) => pages[at..at + d.len()].copy_from_slice(d),
                                None => pages[at..at + cmd.len as usize].fill(0),
                            }
                            store.write_tracked(lpn, &pages, durable);
                        }
                    }
                    // tracking stays about the size of the write buffer
                    let limit = 4 * (self.cfg.controller.write_buffer_bytes() / SLOT_BYTES) as usize + 4096;
                    if store.tracked() > limit {
                        store.forget_durable(|l| self.ctl.is_volatile(l, now));
                    }
                }
                (Op::Read, _) if keep_read_data => {
                    let mut out = Vec::new();
                    self.host.data_integrity_errors += store.read_bytes(cmd.offset, cmd.len, &mut out);
                    self.read_payloads.insert(id, out);
                }
                (Op::Read, _) => self.host.data_integrity_errors += store.check(lpn, n),
                (Op::Trim, _) => store.trim(lpn, n),
                (Op::Flush, _) => {}
            }
        }
        let Command { op, offset, len, tag, .. } = cmd;
        let c = Completion {
            id,
            tag,
            op,
            offset,
            len,
            submit_ns: now,
            complete_ns: done,
            status: Status::Success,
        };
        self.pending.push(c);
        Ok(id)
    }

    fn check_command(&self, cmd: &Command) -> Result<(), WorkloadError> {
        if cmd.op == Op::Flush {
            return Ok(());
        }
        let cap = self.capacity_bytes();
        let err = |field: &str, message: &str, value: u64| {
            Err(WorkloadError::new(field, message, size_text(value)))
        };
        if !cmd.offset.is_multiple_of(SECTOR_BYTES) {
            return err("offset", "must be a multiple of 512 B (a sector)", cmd.offset);
        }
        if cmd.len == 0 || !cmd.len.is_multiple_of(SECTOR_BYTES) {
            return err("length", "must be a positive multiple of 512 B (a sector)", cmd.len);
        }
        if cmd.offset >= cap {
            return err("offset", &format!("must be below the drive's {cap} bytes"), cmd.offset);
        }
        if cmd.offset.checked_add(cmd.len).is_none_or(|end| end > cap) {
            let room = cap - cmd.offset;
            return err(
                "length",
                &format!("must fit the drive: at most {room} bytes from offset {}", cmd.offset),
                cmd.len,
            );
        }
        if cmd.op != Op::Trim && cmd.len > MAX_TRANSFER {
            return err(
                "length",
                &format!("a {} moves at most {MAX_TRANSFER} bytes (64 MiB)", cmd.op),
                cmd.len,
            );
        }
        if cmd.compress_pct > 100 {
            return Err(WorkloadError::new("compress_percentage", "must be 0..=100", cmd.compress_pct));
        }
        Ok(())
    }

    /// Move the clock forward to `until` (never back): background work (GC, folding) runs in the idle
    /// time as it would inside a run, and completions up to `until` become ready for [`Drive::poll`].
    pub fn advance(&mut self, until: Ns) {
        if until > self.now {
            self.now = until;
            // background work in the idle time first, so its energy falls in the samples it happened in
            self.background_until(until);
            if until >= self.power.next_sample() {
                self.sample_power(until);
            }
        }
    }

    /// Advance to the earliest completion not yet polled and return its time; `None` (clock unmoved) if
    /// nothing is outstanding.
    pub fn advance_to_next_completion(&mut self) -> Option<Ns> {
        let t = self.next_completion_ns()?;
        self.advance(t);
        Some(t)
    }

    /// When the earliest outstanding command completes.
    pub fn next_completion_ns(&self) -> Option<Ns> {
        self.pending.next_time()
    }

    /// When the submitted command `id` completes (final from its submission on); `None` once it has
    /// been polled, or for an id never submitted.
    pub fn completion_ns(&self, id: u64) -> Option<Ns> {
        self.pending.time_of(id)
    }

    /// The next completion at or before the current time, in (complete time, id) order; `None` when no
    /// more are ready.
    pub fn poll(&mut self) -> Option<Completion> {
        self.pending.pop_due(self.now)
    }

    /// A run or replay owns the clock and the queue: stepped commands must all be polled first.
    fn require_nothing_outstanding(&self, what: &str) -> Result<(), WorkloadError> {
        match self.outstanding() {
            0 => Ok(()),
            n => Err(WorkloadError::new(
                what,
                "the drive has submitted commands not yet polled; poll them first",
                n,
            )),
        }
    }

    /// Commands submitted and not yet polled.
    pub fn outstanding(&self) -> usize {
        self.pending.len()
    }

    fn result(&self, stats: RunStats, before: &Counters, busy_before: &[Ns], wall: Ns) -> RunResult {
        let counters = Counters::delta(before, &self.counters());
        let die_utilisation: Vec<f64> = self
            .ctl
            .nand
            .die_busy_ns()
            .iter()
            .zip(busy_before)
            .map(|(a, b)| if wall == 0 { 0.0 } else { ((a - b) as f64 / wall as f64).min(1.0) })
            .collect();
        RunResult { stats, counters, die_utilisation, jobs: Vec::new() }
    }
}

impl RunResult {
    /// fio's reporting groups of a run whose job specs (`specs`, as the run was given them) name more than
    /// one `group`: each group's jobs added up ([`RunStats::absorb`]), in order of first appearance. Empty
    /// when every spec is in one group: the run's `stats` are that group.
    pub fn groups(&self, specs: &[Workload]) -> Vec<(u32, RunStats)> {
        let mut groups: Vec<(u32, RunStats)> = Vec::new();
        if specs.iter().all(|w| w.group == specs[0].group) {
            return groups;
        }
        for (w, stats) in specs.iter().zip(&self.jobs) {
            match groups.iter_mut().find(|(id, _)| *id == w.group) {
                Some((_, sum)) => sum.absorb(stats),
                None => groups.push((w.group, stats.clone())),
            }
        }
        groups
    }

    /// A counter's change over the run by name; a name not in the registry is an error naming close
    /// matches. In Rust, `r.counters[Counter::waf]` checks the name at compile time.
    pub fn counter(&self, name: &str) -> Result<f64, UnknownCounter> {
        self.counters.get(name)
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
