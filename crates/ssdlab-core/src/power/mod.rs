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
            states: if p.apst {
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
            } else {
                Vec::new()
            },
        }
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

    /// Controller + link power after `age` of idle time (NAND standby aside).
    fn idle_ctrl_w(&self, age: Ns) -> f64 {
        let ctl = self.state_at(age).map_or(self.controller_idle_w, |i| self.states[i].3);
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

/// Static energy integrated so far: (NAND standby, controller + link).
#[derive(Clone, Copy, Debug, Default)]
struct Static {
    nand_j: f64,
    ctrl_j: f64,
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
    /// Highest power of a whole sample at the run's own interval, W.
    pub max_w: f64,
}

impl Recording {
    /// Double the interval, merging each pair of neighbouring samples.
    pub fn widen(&mut self) {
        let pairs = |v: &[f64], f: fn(&[f64]) -> f64| v.chunks(2).map(f).collect::<Vec<f64>>();
        self.energy_j = pairs(&self.energy_j, |p| p.iter().sum());
        self.temperature_c = pairs(&self.temperature_c, |p| p[p.len() - 1]);
        self.interval_ns = self.interval_ns.saturating_mul(2);
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

/// The drive's power and thermal state: integrates energy, samples power, heats the package, throttles.
#[derive(Clone, Debug)]
pub struct PowerMeter {
    model: Model,
    /// End of the union of host commands' [submit, completion] spans so far: idle time starts here.
    active_until: Ns,
    integrated_to: Ns,
    stat: Static,
    /// Sample grid.
    interval: Ns,
    sample_start: Ns,
    next_sample: Ns,
    /// Energy totals at `sample_start`: (nand, ctrl).
    at_sample_start: (f64, f64),
    /// The package's temperatures and throttle state.
    pub thermal: Thermal,
    recording: Option<Recording>,
    /// Wake-ups and throttled time.
    pub counters: PowerCounters,
}

impl PowerMeter {
    /// A drive that has just been powered on: idle, at ambient temperature.
    pub fn new(p: &PowerConfig, t: &ThermalConfig, lanes: u32, dies: u32) -> Self {
        PowerMeter {
            model: Model::new(p, lanes, dies),
            active_until: 0,
            integrated_to: 0,
            stat: Static::default(),
            interval: DEFAULT_SAMPLE_NS,
            sample_start: 0,
            next_sample: DEFAULT_SAMPLE_NS,
            at_sample_start: (0.0, 0.0),
            thermal: Thermal::new(t),
            recording: None,
            counters: PowerCounters::default(),
        }
    }

    /// Static energy of [from, to) given the activity known now.
    fn static_between(&self, mut from: Ns, to: Ns) -> Static {
        let m = &self.model;
        let mut s = Static { nand_j: m.standby_w * to.saturating_sub(from) as f64 * 1e-9, ctrl_j: 0.0 };
        if from < self.active_until {
            let end = to.min(self.active_until);
            s.ctrl_j += m.active_ctrl_w * (end - from) as f64 * 1e-9;
            from = end;
        }
        while from < to {
            let age = from - self.active_until;
            let end = to.min(self.active_until.saturating_add(m.next_change(age)));
            s.ctrl_j += m.idle_ctrl_w(age) * (end - from) as f64 * 1e-9;
            from = end;
        }
        s
    }

    fn integrate_to(&mut self, t: Ns) {
        if t > self.integrated_to {
            let s = self.static_between(self.integrated_to, t);
            self.stat.nand_j += s.nand_j;
            self.stat.ctrl_j += s.ctrl_j;
            self.integrated_to = t;
        }
    }

    /// Total energy (nand, ctrl) at time `now`, with `ops` the totals at `now`.
    fn energy_at(&self, now: Ns, ops: &OpTotals) -> (f64, f64) {
        let (dn, dc) = self.model.dynamic_j(ops);
        let s = self.static_between(self.integrated_to, now.max(self.integrated_to));
        (dn + self.stat.nand_j + s.nand_j, dc + self.stat.ctrl_j + s.ctrl_j)
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
        if now <= self.active_until {
            return 0;
        }
        self.integrate_to(now);
        let m = &self.model;
        let age = now - self.active_until;
        let mut wait = 0;
        if let Some(i) = m.state_at(age) {
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

    /// When the next sample ends: the drive calls [`PowerMeter::sample`] for each one the clock passes.
    #[inline]
    pub fn next_sample(&self) -> Ns {
        self.next_sample
    }

    /// Close the sample ending at `end` (at most [`PowerMeter::next_sample`]; earlier for a partial one),
    /// heat the package with its power and record it. Returns the NAND speed in percent for the next one.
    pub fn sample(&mut self, end: Ns, ops: &OpTotals) -> f64 {
        let dt = end.saturating_sub(self.sample_start);
        self.integrate_to(end);
        let (dn, dc) = self.model.dynamic_j(ops);
        let now = (dn + self.stat.nand_j, dc + self.stat.ctrl_j);
        let (en, ec) = (now.0 - self.at_sample_start.0, now.1 - self.at_sample_start.1);
        self.at_sample_start = now;
        if dt > 0 {
            let secs = dt as f64 * 1e-9;
            let level_before = self.thermal.level();
            self.thermal.step(secs, ec / secs, en / secs);
            match level_before {
                0 => {}
                1 => self.counters.throttled_ns += dt,
                _ => {
                    self.counters.throttled_ns += dt;
                    self.counters.heavy_throttled_ns += dt;
                }
            }
            if let Some(r) = &mut self.recording {
                if end > r.start {
                    let mut i = ((end - 1 - r.start) / r.interval_ns) as usize;
                    while i >= crate::stats::Series::MAX_INTERVALS {
                        r.widen();
                        i = ((end - 1 - r.start) / r.interval_ns) as usize;
                    }
                    if i >= r.energy_j.len() {
                        r.energy_j.resize(i + 1, 0.0);
                        r.temperature_c.resize(i + 1, self.thermal.composite_c());
                    }
                    r.energy_j[i] += en + ec;
                    r.temperature_c[i] = self.thermal.composite_c();
                    if dt == self.interval {
                        r.max_w = r.max_w.max((en + ec) / secs);
                    }
                }
            }
        }
        self.sample_start = end;
        self.next_sample = end.saturating_add(self.interval);
        self.thermal.speed_pct()
    }

    /// Long idle spans pass as one sample (the thermal step is closed-form for any length).
    pub fn skip_to(&mut self, until: Ns, ops: &OpTotals) -> Option<f64> {
        if self.recording.is_none() && until >= self.next_sample.saturating_add(100 * self.interval) {
            let end = until - (until - self.sample_start) % self.interval;
            let interval = self.interval;
            self.interval = end - self.sample_start;
            let speed = self.sample(end, ops);
            self.interval = interval;
            self.next_sample = end + interval;
            return Some(speed);
        }
        None
    }

    /// Start recording samples of `interval` from `measure_start` (a run starting at `now`).
    pub fn begin(&mut self, now: Ns, measure_start: Ns, interval: Ns, ops: &OpTotals) {
        if now > self.sample_start {
            self.sample(now, ops);
        }
        self.interval = interval.max(1);
        self.next_sample =
            if measure_start > now { measure_start } else { now.saturating_add(self.interval) };
        self.recording = Some(Recording {
            start: measure_start.max(now),
            interval_ns: self.interval,
            energy_j: Vec::new(),
            temperature_c: Vec::new(),
            max_w: 0.0,
        });
    }

    /// Stop recording at `now` (closing a partial last sample) and go back to the default grid.
    pub fn end(&mut self, now: Ns, ops: &OpTotals) -> Option<Recording> {
        if now > self.sample_start {
            self.sample(now, ops);
        }
        self.interval = DEFAULT_SAMPLE_NS;
        self.next_sample = now.saturating_add(self.interval);
        self.recording.take()
    }
}

#[cfg(test)]
mod tests;
