//! What a run measured: HDR latency histograms, per-interval series, IO totals, and the drive's counters
//! (one registry, [`counters`]).

pub mod counters;
mod io_log;
mod series;

pub use counters::{Counter, CounterDef, Counters, Kind, Unit, UnknownCounter, COUNTERS};
pub(crate) use counters::{DriveState, HostTotals};
pub use io_log::IoLog;
pub use series::Series;

use crate::engine::Ns;
use crate::host::{Completion, Op, SteadyReport};
use hdrhistogram::Histogram;

/// A latency distribution in nanoseconds (HDR histogram, 3 significant digits, 1 ns .. ~18 min).
#[derive(Clone, Debug)]
pub struct Latency {
    hist: Histogram<u64>,
}

impl Default for Latency {
    fn default() -> Self {
        Latency { hist: Histogram::new_with_bounds(1, 1 << 40, 3).expect("valid HDR bounds") }
    }
}

impl Latency {
    /// Add one latency.
    #[inline]
    pub fn record(&mut self, ns: Ns) {
        self.hist.saturating_record(ns.max(1));
    }
    /// Latencies recorded.
    pub fn count(&self) -> u64 {
        self.hist.len()
    }
    /// Mean latency.
    pub fn mean_ns(&self) -> f64 {
        self.hist.mean()
    }
    /// Lowest latency (0 when empty).
    pub fn min_ns(&self) -> u64 {
        if self.count() == 0 {
            0
        } else {
            self.hist.min()
        }
    }
    /// Highest latency.
    pub fn max_ns(&self) -> u64 {
        self.hist.max()
    }
    /// Standard deviation.
    pub fn stdev_ns(&self) -> f64 {
        self.hist.stdev()
    }
    /// Latency at percentile `p` (0..=100).
    pub fn percentile_ns(&self, p: f64) -> u64 {
        self.hist.value_at_quantile(p.clamp(0.0, 100.0) / 100.0)
    }
    /// Merge `other` into this distribution.
    pub fn add(&mut self, other: &Latency) {
        self.hist.add(&other.hist).expect("same bounds");
    }
}

/// Totals of one direction.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DirTotals {
    /// IOs completed.
    pub ios: u64,
    /// Bytes moved.
    pub bytes: u64,
}

/// Everything a run measured after its ramp time.
#[derive(Clone, Debug)]
pub struct RunStats {
    /// Time measurement started (after the ramp).
    pub measure_start: Ns,
    /// End of the measurement: the last completion, or later when a job waiting to issue was stopped
    /// by its runtime, an `exitall` or a steady state (fio counts a job's runtime to its exit).
    pub end: Ns,
    /// Reads.
    pub read: DirTotals,
    /// Writes.
    pub write: DirTotals,
    /// TRIMs.
    pub trim: DirTotals,
    /// Flushes.
    pub flush: DirTotals,
    /// Latency of every IO.
    pub lat_all: Latency,
    /// Latency of reads.
    pub lat_read: Latency,
    /// Latency of writes.
    pub lat_write: Latency,
    /// Latency of trims (not in `lat_all`, which is reads and writes as fio's totals are).
    pub lat_trim: Latency,
    /// Throughput, latency, power and temperature per interval.
    pub series: Series,
    /// Highest power of an interval of the run (the power model's samples; see [`crate::power::Recording::max_w`]), W.
    pub max_power_w: f64,
    /// What fio's steady-state check found (jobs with `steadystate_duration_ns` only).
    pub steadystate: Option<SteadyReport>,
    /// Every measured IO, when asked for ([`RunStats::log_ios`]).
    pub io_log: Option<IoLog>,
}

impl RunStats {
    /// Empty statistics measuring from `measure_start`, in intervals of `interval_ns`.
    pub fn new(measure_start: Ns, interval_ns: Ns) -> Self {
        RunStats {
            measure_start,
            end: measure_start,
            read: DirTotals::default(),
            write: DirTotals::default(),
            trim: DirTotals::default(),
            flush: DirTotals::default(),
            lat_all: Latency::default(),
            lat_read: Latency::default(),
            lat_write: Latency::default(),
            lat_trim: Latency::default(),
            series: Series::new(interval_ns),
            max_power_w: 0.0,
            steadystate: None,
            io_log: None,
        }
    }

    /// Keep a row for every IO recorded from now on ([`RunStats::io_log`]).
    pub fn log_ios(mut self, on: bool) -> Self {
        self.io_log = on.then(IoLog::default);
        self
    }

    /// These statistics as the one job of their run (a run of one spec, a replay), the IO log moved to
    /// it: a log is the size of the run, so it is kept once, with the job.
    pub fn split_job(&mut self) -> RunStats {
        let io_log = self.io_log.take();
        RunStats { io_log, ..self.clone() }
    }

    /// Count one measured command (reads and writes in their histograms and the whole's, trims in their own;
    /// flushes only in their totals).
    pub fn record(&mut self, c: &Completion) {
        let lat = c.complete_ns - c.submit_ns;
        let (dir, hist) = match c.op {
            Op::Read => (&mut self.read, Some(&mut self.lat_read)),
            Op::Write => (&mut self.write, Some(&mut self.lat_write)),
            Op::Trim => (&mut self.trim, Some(&mut self.lat_trim)),
            Op::Flush => (&mut self.flush, None),
        };
        dir.ios += 1;
        dir.bytes += c.len;
        if let Some(h) = hist {
            h.record(lat);
        }
        if matches!(c.op, Op::Read | Op::Write) {
            self.lat_all.record(lat);
        }
        let (rb, wb) = match c.op {
            Op::Read => (c.len, 0),
            Op::Write => (0, c.len),
            _ => (0, 0),
        };
        self.series.record(c.complete_ns - self.measure_start, rb, wb, lat);
        self.end = self.end.max(c.complete_ns);
        if let Some(log) = &mut self.io_log {
            log.push(c);
        }
    }

    /// Put the run's power samples into its series ([`Series::set_power`]) and keep their summary.
    pub fn set_power(&mut self, rec: crate::power::Recording) {
        self.max_power_w = rec.max_w;
        self.series.set_power(rec);
    }

    /// Take in `other`, a job of the same run: one report for both, as fio's `group_reporting` gives a
    /// group of jobs. Counts and latency distributions add up; the time runs from the earlier start to the
    /// later last completion; the series' intervals add up (the drive's power and temperature, which each
    /// job's series carries, are kept once). IO logs are not merged: the result has none.
    pub fn absorb(&mut self, other: &RunStats) {
        // IO logs stay with their jobs: one for the group would have to interleave them by time
        self.io_log = None;
        let shift = other.measure_start.saturating_sub(self.measure_start);
        if other.measure_start < self.measure_start {
            // keep the earlier start: this series moves later by the difference
            let mut earlier = other.series.clone();
            earlier.absorb(&self.series, self.measure_start - other.measure_start);
            self.series = earlier;
            self.measure_start = other.measure_start;
        } else {
            self.series.absorb(&other.series, shift);
        }
        self.end = self.end.max(other.end);
        for (mine, theirs) in [
            (&mut self.read, &other.read),
            (&mut self.write, &other.write),
            (&mut self.trim, &other.trim),
            (&mut self.flush, &other.flush),
        ] {
            mine.ios += theirs.ios;
            mine.bytes += theirs.bytes;
        }
        self.lat_all.add(&other.lat_all);
        self.lat_read.add(&other.lat_read);
        self.lat_write.add(&other.lat_write);
        self.lat_trim.add(&other.lat_trim);
        self.max_power_w = self.max_power_w.max(other.max_power_w);
        if self.steadystate.is_none() {
            self.steadystate.clone_from(&other.steadystate);
        }
    }

    /// Simulated time from the end of ramp to the end of the measurement.
    pub fn elapsed_ns(&self) -> Ns {
        self.end - self.measure_start
    }

    /// A job of these statistics was stopped at `t` while waiting to issue: the measurement lasts at
    /// least until then.
    pub fn stopped_at(&mut self, t: Ns) {
        self.end = self.end.max(t);
    }
}
