//! Power and temperature: energy from what the engine did, integrated per sample interval in closed form.
//!
//! Dynamic energy is a linear function of running totals the engine keeps anyway ([`OpTotals`]: NAND
//! array time by operation, channel and link bytes, commands), so a sample is a difference of two sums,
//! never a cost per IO. Static power (controller, link lanes, NAND standby) depends only on whether host
//! commands are outstanding and, when they are not, on how long the drive has been idle: the link drops to
//! L1.2 and APST enters the non-operational states at fixed idle times, so its integral over any span is
//! piecewise constant and exact. Each sample heats the thermal RC ([`thermal`]), which may throttle the NAND.
//!
//! ```
//! # let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/ssdlab/presets/generic-tlc-dram.toml")).unwrap();
//! use ssdlab_core::{Counter, Drive, DriveConfig};
//! let cfg = DriveConfig::from_toml_str(&text, &[("ftl.user_capacity_gb".into(), "16".into())]).unwrap();
//! let mut drive = Drive::new(cfg).unwrap();
//! drive.idle(10_000_000_000); // 10 s with nothing to do: the drive sleeps
//! let c = drive.counters();
//! assert!(c[Counter::avg_power_w] > 0.0 && c[Counter::avg_power_w] < 0.5);
//! ```

pub mod thermal;

use crate::config::{PowerConfig, ThermalConfig};
use crate::engine::{us_to_ns, Ns, NS_PER_MS};
use thermal::Thermal;

/// The sample interval outside a run (a run samples at its workload's `interval`).
pub const DEFAULT_SAMPLE_NS: Ns = 10 * NS_PER_MS;

/// Running totals of what the engine did that costs energy (read by the drive from its parts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpTotals {
    /// Array read time x planes sensed.
    pub read_plane_ns: u64,
    /// Array program time x planes programmed.
    pub program_plane_ns: u64,
    /// Array erase time x planes erased.
    pub erase_plane_ns: u64,
    /// Bytes over the NAND channels.
    pub channel_bytes: u64,
    /// Payload bytes over the host link (host data and HMB).
    pub link_bytes: u64,
    /// Host commands.
    pub commands: u64,
}

/// Energy coefficients and static powers in SI units (J per unit, W).
#[derive(Clone, Debug)]
struct Model {
    read_j_per_plane_ns: f64,
    program_j_per_plane_ns: f64,
    erase_j_per_plane_ns: f64,
    channel_j_per_byte: f64,
    link_j_per_byte: f64,
    command_j: f64,
    /// Controller + link lanes while commands are outstanding.
    active_ctrl_w: f64,
    /// NAND standby of all dies.
    standby_w: f64,
    controller_idle_w: f64,
    lanes_w: f64,
    link_idle_w: f64,
    link_idle_after: Ns,
    link_exit: Ns,
    /// (idle time to enter, entry latency, exit latency, controller power) per non-operational state,
    /// shallowest first; empty without APST.
    states: Vec<(Ns, Ns, Ns, f64)>,
}

impl Model {
    fn new(p: &PowerConfig, lanes: u32, dies: u32) -> Self {
        let amp_ns = |ma: f64| p.nand_vcc_v * ma * 1e-3 * 1e-9;
        Model {
            read_j_per_plane_ns: amp_ns(p.nand_read_ma),
            program_j_per_plane_ns: amp_ns(p.nand_program_ma),
            erase_j_per_plane_ns: amp_ns(p.nand_erase_ma),
            channel_j_per_byte: p.channel_pj_per_byte * 1e-12,
            link_j_per_byte: p.link_pj_per_byte * 1e-12,
            command_j: p.command_nj * 1e-9,
            active_ctrl_w: (p.controller_active_mw + f64::from(lanes) * p.lane_mw) * 1e-3,
            standby_w: p.nand_vcc_v * p.nand_standby_ua * 1e-6 * f64::from(dies),
            controller_idle_w: p.controller_idle_mw * 1e-3,
            lanes_w: f64::from(lanes) * p.lane_mw * 1e-3,
            link_idle_w: p.link_idle_mw * 1e-3,
            link_idle_after: us_to_ns(p.link_idle_after_us),
            link_exit: us_to_ns(p.link_exit_us),
            states: Self::apst_states(p, p.apst),
        }
    }

    /// The states APST enters (none when `apst` is off).
    fn apst_states(p: &PowerConfig, apst: bool) -> Vec<(Ns, Ns, Ns, f64)> {
        if !apst {
            return Vec::new();
        }
        p.nonop_states
            .iter()
            .map(|s| {
                (
                    us_to_ns(s.idle_ms * 1e3),
                    us_to_ns(s.entry_latency_us),
                    us_to_ns(s.exit_latency_us),
                    s.controller_mw * 1e-3,
                )
            })
            .collect()
    }

    /// Dynamic energy so far: (NAND arrays, controller + channels + link).
    fn dynamic_j(&self, t: &OpTotals) -> (f64, f64) {
        let nand = t.read_plane_ns as f64 * self.read_j_per_plane_ns
            + t.program_plane_ns as f64 * self.program_j_per_plane_ns
            + t.erase_plane_ns as f64 * self.erase_j_per_plane_ns;
        let ctrl = t.channel_bytes as f64 * self.channel_j_per_byte
            + t.link_bytes as f64 * self.link_j_per_byte
            + t.commands as f64 * self.command_j;
        (nand, ctrl)
    }

    /// The deepest non-operational state entered after `age` of idle time.
    fn state_at(&self, age: Ns) -> Option<usize> {
        self.states.iter().rposition(|s| s.0 <= age)
    }

    /// Controller + link power after `age` of idle time (NAND standby aside); `host_state` is the
    /// controller's power in a state the host chose, which holds whatever the idle time.
    fn idle_ctrl_w(&self, age: Ns, host_state: Option<f64>) -> f64 {
        let ctl = host_state
            .unwrap_or_else(|| self.state_at(age).map_or(self.controller_idle_w, |i| self.states[i].3));
        let link = if age >= self.link_idle_after { self.link_idle_w } else { self.lanes_w };
        ctl + link
    }

    /// The next idle age after `age` at which the idle power changes.
    fn next_change(&self, age: Ns) -> Ns {
        let mut next = Ns::MAX;
        if self.link_idle_after > age {
            next = self.link_idle_after;
        }
        for s in &self.states {
            if s.0 > age {
                next = next.min(s.0);
            }
        }
        next
    }
}

/// The power samples of one run, aligned to its measurement start.
#[derive(Clone, Debug)]
pub struct Recording {
    /// When the first sample starts.
    pub start: Ns,
    /// Width of each sample (doubled, merging neighbours, past [`crate::Series::MAX_INTERVALS`]).
    pub interval_ns: Ns,
    /// Energy of each sample, J.
    pub energy_j: Vec<f64>,
    /// Composite temperature at the end of each sample, C.
    pub temperature_c: Vec<f64>,
    /// Highest power of a sample at the run's own interval, W: the whole ones, and the last, partial one
    /// (energy over the time it covers) if it covers half an interval or the run had no whole one.
    pub max_w: f64,
    /// When the recording ended (the last sample may end there, short of the grid).
    pub end: Ns,
    /// The run's own interval (before any widening).
    base_interval: Ns,
    /// End of the next sample.
    next: Ns,
    /// Energy total at the start of the current sample (None until the measurement starts).
    last: Option<f64>,
}

impl Recording {
    /// Double the interval, merging each pair of neighbouring samples.
    pub fn widen(&mut self) {
        let pairs = |v: &[f64], f: fn(&[f64]) -> f64| v.chunks(2).map(f).collect::<Vec<f64>>();
        self.energy_j = pairs(&self.energy_j, |p| p.iter().sum());
        self.temperature_c = pairs(&self.temperature_c, |p| p[p.len() - 1]);
        self.interval_ns = self.interval_ns.saturating_mul(2);
    }

    /// Add `energy` for the sample ending at `end` (a partial one when `end` is off the grid).
    fn add(&mut self, end: Ns, energy: f64, temperature: f64, whole: bool) {
        let bin = |r: &Recording| ((end - 1 - r.start) / r.interval_ns) as usize;
        let mut i = bin(self);
        while i >= crate::stats::Series::MAX_INTERVALS {
            self.widen();
            i = bin(self);
        }
        if i >= self.energy_j.len() {
            self.energy_j.resize(i + 1, 0.0);
            self.temperature_c.resize(i + 1, temperature);
        }
        self.energy_j[i] += energy;
        self.temperature_c[i] = temperature;
        if whole {
            self.max_w = self.max_w.max(energy / (self.base_interval as f64 * 1e-9));
        }
    }
}

/// What the power model counted, for the registry.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PowerCounters {
    /// Commands that found the drive in a non-operational state and waited for its exit.
    pub apst_wakeups: u64,
    /// Commands that found the link in L1.2 and waited for it.
    pub link_wakeups: u64,
    /// Time the NAND ran throttled (light or heavy).
    pub throttled_ns: u64,
    /// Time spent in heavy throttling.
    pub heavy_throttled_ns: u64,
}

/// Static energy in nW x ns (1e-18 J): integer, so a span's energy does not depend on where it is split.
type StaticE = u128;

/// The drive's power and thermal state: integrates energy, samples power, heats the package, throttles.
///
/// Two grids: the thermal model steps every [`DEFAULT_SAMPLE_NS`] of absolute time (so a run and the same
/// IOs stepped by hand heat the drive alike); a run's recording closes a sample every workload `interval`
/// from its measurement start. Both read the energy totals, which are exact at any time.
#[derive(Clone, Debug)]
pub struct PowerMeter {
    model: Model,
    /// End of the union of host commands' [submit, completion] spans so far: idle time starts here.
    active_until: Ns,
    integrated_to: Ns,
    /// Static energy to `integrated_to`: (NAND standby, controller + link).
    stat: (StaticE, StaticE),
    /// End of the next thermal step, and the energy totals (nand, ctrl) at its start.
    next_step: Ns,
    step_start: Ns,
    at_step_start: (f64, f64),
    /// The package's temperatures and throttle state.
    pub thermal: Thermal,
    recording: Option<Recording>,
    /// Wake-ups and throttled time.
    pub counters: PowerCounters,
    /// A non-operational state the host put the drive in (Set Features, Power Management): from when,
    /// its exit latency and controller power. The next command leaves it.
    host_state: Option<(Ns, Ns, f64)>,
}

/// Watts to integer nanowatts.
fn nw(w: f64) -> u128 {
    (w * 1e9).round() as u128
}

impl PowerMeter {
    /// A drive that has just been powered on: idle, at ambient temperature.
    pub fn new(p: &PowerConfig, t: &ThermalConfig, lanes: u32, dies: u32) -> Self {
        PowerMeter {
            model: Model::new(p, lanes, dies),
            active_until: 0,
            integrated_to: 0,
            stat: (0, 0),
            next_step: DEFAULT_SAMPLE_NS,
            step_start: 0,
            at_step_start: (0.0, 0.0),
            thermal: Thermal::new(t),
            recording: None,
            counters: PowerCounters::default(),
            host_state: None,
        }
    }

    /// The host puts the drive in a non-operational power state at `now`: `Some((exit latency,
    /// controller watts))`, which holds until the next command (that waits the exit latency), or `None`
    /// to leave it (APST's idle states apply again).
    pub fn set_host_state(&mut self, now: Ns, state: Option<(Ns, f64)>) {
        self.integrate_to(now); // the energy so far at the old power
        self.host_state = state.map(|(exit, w)| (now, exit, w));
    }

    /// Turn APST on or off at `now` (Set Features, Autonomous Power State Transition): the idle states
    /// of `p` are entered after their idle times, or none are.
    pub fn set_apst(&mut self, now: Ns, p: &PowerConfig, on: bool) {
        self.integrate_to(now);
        self.model.states = Model::apst_states(p, on);
    }

    /// Static energy of [from, to) given the activity known now.
    fn static_between(&self, mut from: Ns, to: Ns) -> (StaticE, StaticE) {
        let m = &self.model;
        let span = |a: Ns, b: Ns| u128::from(b - a);
        let nand = nw(m.standby_w) * span(from.min(to), to);
        let mut ctrl = 0;
        if from < self.active_until {
            let end = to.min(self.active_until);
            ctrl += nw(m.active_ctrl_w) * span(from, end);
            from = end;
        }
        // a host-chosen state holds from when it was set (never before the drive went idle)
        let host_from = self.host_state.map(|(at, _, w)| (at.max(self.active_until), w));
        while from < to {
            let age = from - self.active_until;
            let mut end = to.min(self.active_until.saturating_add(m.next_change(age)));
            let forced = match host_from {
                Some((at, w)) if from >= at => Some(w),
                Some((at, _)) => {
                    end = end.min(at);
                    None
                }
                None => None,
            };
            ctrl += nw(m.idle_ctrl_w(age, forced)) * span(from, end);
            from = end;
        }
        (nand, ctrl)
    }

    fn integrate_to(&mut self, t: Ns) {
        if t > self.integrated_to {
            let (n, c) = self.static_between(self.integrated_to, t);
            self.stat.0 += n;
            self.stat.1 += c;
            self.integrated_to = t;
        }
    }

    /// Total energy (nand, ctrl) at time `now` (at or after the last integration), `ops` the totals then.
    fn energy_at(&self, now: Ns, ops: &OpTotals) -> (f64, f64) {
        let (dn, dc) = self.model.dynamic_j(ops);
        let (sn, sc) = self.static_between(self.integrated_to, now.max(self.integrated_to));
        let j = |e: StaticE| e as f64 * 1e-18;
        (dn + j(self.stat.0 + sn), dc + j(self.stat.1 + sc))
    }

    /// Energy the drive has used since it was made, J.
    pub fn energy_j(&self, now: Ns, ops: &OpTotals) -> f64 {
        let (n, c) = self.energy_at(now, ops);
        n + c
    }

    /// Of [`PowerMeter::energy_j`], what the NAND arrays and their standby used, J.
    pub fn nand_energy_j(&self, now: Ns, ops: &OpTotals) -> f64 {
        self.energy_at(now, ops).0
    }

    /// A host command arrives at `now`: the time it waits for the drive to wake (the exit latency of the
    /// power state it finds, or of the link's L1.2), counted in the wake-up counters.
    #[inline]
    pub fn wake(&mut self, now: Ns) -> Ns {
        // a state the host chose holds from when the drive went idle, so a command arriving right at the
        // previous one's completion finds it too
        let host = match self.host_state {
            Some((at, exit, _)) if now >= at.max(self.active_until) => Some(exit),
            _ => None,
        };
        if host.is_none() && now <= self.active_until {
            return 0;
        }
        self.integrate_to(now);
        let m = &self.model;
        let age = now.saturating_sub(self.active_until);
        let mut wait = 0;
        if let Some(exit) = host {
            self.host_state = None;
            wait = exit;
            self.counters.apst_wakeups += 1;
        } else if let Some(i) = m.state_at(age) {
            let (idle, entry, exit, _) = m.states[i];
            // a command arriving while the drive enters the state waits for the entry to finish
            wait = (idle + entry).saturating_sub(age) + exit;
            self.counters.apst_wakeups += 1;
        }
        if age >= m.link_idle_after && m.link_exit > 0 {
            wait = wait.max(m.link_exit);
            self.counters.link_wakeups += 1;
        }
        wait
    }

    /// A host command keeps the drive active until `done`.
    #[inline]
    pub fn busy_until(&mut self, done: Ns) {
        self.active_until = self.active_until.max(done);
    }

    /// When the next thermal step or recorded sample ends: the drive calls [`PowerMeter::sample`] for each
    /// one the clock passes.
    #[inline]
    pub fn next_sample(&self) -> Ns {
        match &self.recording {
            Some(r) => r.next.min(self.next_step),
            None => self.next_step,
        }
    }

    /// Close what ends at `end` (the next thermal step, the next recorded sample, or both). Returns the
    /// NAND speed in percent the thermal state now allows.
    pub fn sample(&mut self, end: Ns, ops: &OpTotals) -> f64 {
        self.integrate_to(end);
        let now = self.energy_at(end, ops);
        if let Some(r) = &mut self.recording {
            if end >= r.next {
                let total = now.0 + now.1;
                if let Some(last) = r.last {
                    r.add(end, total - last, self.thermal.composite_c(), true);
                }
                r.last = Some(total);
                r.next = end.saturating_add(r.base_interval);
            }
        }
        if end >= self.next_step {
            self.step(end, now);
            self.next_step = end.saturating_add(DEFAULT_SAMPLE_NS);
        }
        self.thermal.speed_pct()
    }

    /// One thermal step from `step_start` to `end`, with the energy totals `now` at `end`.
    fn step(&mut self, end: Ns, now: (f64, f64)) {
        let dt = end.saturating_sub(self.step_start);
        let (en, ec) = (now.0 - self.at_step_start.0, now.1 - self.at_step_start.1);
        self.at_step_start = now;
        self.step_start = end;
        if dt == 0 {
            return;
        }
        let secs = dt as f64 * 1e-9;
        match self.thermal.level() {
            0 => {}
            1 => self.counters.throttled_ns += dt,
            _ => {
                self.counters.throttled_ns += dt;
                self.counters.heavy_throttled_ns += dt;
            }
        }
        self.thermal.step(secs, ec / secs, en / secs);
    }

    /// Long idle spans outside a run pass as one thermal step (closed-form for any length).
    pub fn skip_to(&mut self, until: Ns, ops: &OpTotals) -> Option<f64> {
        if self.recording.is_none() && until >= self.next_step.saturating_add(100 * DEFAULT_SAMPLE_NS) {
            let end = until - until % DEFAULT_SAMPLE_NS;
            self.integrate_to(end);
            let now = self.energy_at(end, ops);
            self.step(end, now);
            self.next_step = end + DEFAULT_SAMPLE_NS;
            return Some(self.thermal.speed_pct());
        }
        None
    }

    /// Start recording samples of `interval` from `measure_start` (a run starting at `now`).
    pub fn begin(&mut self, now: Ns, measure_start: Ns, interval: Ns, ops: &OpTotals) {
        let interval = interval.max(1);
        let start = measure_start.max(now);
        let last = (start == now).then(|| self.energy_j(now, ops));
        self.recording = Some(Recording {
            start,
            interval_ns: interval,
            energy_j: Vec::new(),
            temperature_c: Vec::new(),
            max_w: 0.0,
            end: start,
            base_interval: interval,
            next: if last.is_some() { start.saturating_add(interval) } else { start },
            last,
        });
    }

    /// Stop recording at `now`, adding the partial last sample.
    pub fn end(&mut self, now: Ns, ops: &OpTotals) -> Option<Recording> {
        let mut r = self.recording.take()?;
        r.end = now.max(r.start);
        if let Some(last) = r.last {
            let sample_start = r.next.saturating_sub(r.base_interval);
            if now > sample_start {
                let energy = self.energy_j(now, ops) - last;
                r.add(now, energy, self.thermal.composite_c(), false);
                // a partial sample counts once it covers half an interval (a sliver's energy is noise),
                // or when the run had no whole one
                let covered = now - sample_start;
                if r.max_w == 0.0 || 2 * covered >= r.base_interval {
                    r.max_w = r.max_w.max(energy / (covered as f64 * 1e-9));
                }
            }
        }
        Some(r)
    }
}

#[cfg(test)]
mod tests;
