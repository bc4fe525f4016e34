//! fio's steady-state job termination (`steadystate`, `ss_dur`, `ss_ramp`, `ss_interval`): every check
//! interval the jobs' IOPS, bandwidth and mean latency over that interval are recorded; once a rolling
//! window of `ss_dur` holds enough of them, the criterion is checked, and when it falls below its limit
//! the jobs stop. As fio's `steadystate.c` does it:
//!
//! - `iops`, `bw`, `lat`: the largest distance of a sample from the window's mean (as a percentage of the
//!   mean with `%`);
//! - `iops_slope`, `bw_slope`, `lat_slope`: the least-squares slope over the window, x = the sample's index
//!   (as a percentage of the mean with `%`), compared by its size;
//! - recording begins one check interval after `ss_ramp` has passed (at once without a ramp).

use std::fmt;

use crate::engine::{Ns, NS_PER_S};
use crate::host::WorkloadError;

/// What a steady-state sample measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SsMetric {
    /// IOs per second over the interval.
    Iops,
    /// Bytes per second over the interval.
    Bw,
    /// Mean completion latency of the interval's IOs, ns.
    Lat,
}

/// fio's `steadystate=METRIC[_slope]:LIMIT[%]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SsCriterion {
    /// The measured quantity.
    pub metric: SsMetric,
    /// Judge the least-squares slope (else the largest deviation from the mean).
    pub slope: bool,
    /// The limit the criterion must fall below.
    pub limit: f64,
    /// The limit is a percentage of the window's mean.
    pub pct: bool,
}

impl Default for SsCriterion {
    /// fio's default, `iops_slope:0.01%`.
    fn default() -> Self {
        SsCriterion { metric: SsMetric::Iops, slope: true, limit: 0.01, pct: true }
    }
}

impl SsCriterion {
    /// The forms fio takes.
    pub const FORMS: &'static str = "iops, iops_slope, bw, bw_slope, lat or lat_slope, ':', then a limit \
                                     (a percentage of the mean with '%')";

    /// Parse fio's spelling.
    ///
    /// ```
    /// use ssdlab_core::SsCriterion;
    /// let c = SsCriterion::parse("iops_slope:0.1%").unwrap();
    /// assert!(c.slope && c.pct && c.limit == 0.1);
    /// assert_eq!(c.to_string(), "iops_slope:0.100000%");
    /// assert!(SsCriterion::parse("iops").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Self, WorkloadError> {
        let bad = |why: &str| WorkloadError::new("steadystate", &format!("{why}: {}", Self::FORMS), text);
        let (name, limit) = text.trim().split_once(':').ok_or_else(|| bad("no limit"))?;
        let (metric, slope) = match name.trim().to_ascii_lowercase().as_str() {
            "iops" => (SsMetric::Iops, false),
            "iops_slope" => (SsMetric::Iops, true),
            "bw" => (SsMetric::Bw, false),
            "bw_slope" => (SsMetric::Bw, true),
            "lat" => (SsMetric::Lat, false),
            "lat_slope" => (SsMetric::Lat, true),
            _ => return Err(bad("unknown criterion")),
        };
        let limit = limit.trim();
        let (number, pct) = match limit.strip_suffix('%') {
            Some(n) => (n, true),
            None => (limit, false),
        };
        let limit: f64 = number.trim().parse().map_err(|_| bad("the limit is not a number"))?;
        if !limit.is_finite() || limit < 0.0 {
            return Err(bad("the limit must be 0 or more"));
        }
        Ok(SsCriterion { metric, slope, limit, pct })
    }
}

impl fmt::Display for SsCriterion {
    /// As fio prints it in its JSON (`"ss": "iops_slope:0.100000%"`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match self.metric {
            SsMetric::Iops => "iops",
            SsMetric::Bw => "bw",
            SsMetric::Lat => "lat",
        };
        let slope = if self.slope { "_slope" } else { "" };
        write!(f, "{name}{slope}:{:.6}{}", self.limit, if self.pct { "%" } else { "" })
    }
}

/// What the steady-state check of a job (or of a reporting group) found.
#[derive(Clone, Debug, PartialEq)]
pub struct SteadyReport {
    /// The criterion and limit.
    pub criterion: SsCriterion,
    /// The window, ns.
    pub duration_ns: Ns,
    /// Whether the criterion fell below its limit (and the jobs stopped there).
    pub attained: bool,
    /// The last value of the criterion (percent with a `%` limit).
    pub value: f64,
    /// The last largest deviation from the mean (deviation criteria).
    pub max_deviation: f64,
    /// The last least-squares slope (slope criteria).
    pub slope: f64,
    /// The window's samples, oldest first: IOs per second.
    pub iops: Vec<u64>,
    /// Bytes per second.
    pub bw: Vec<u64>,
    /// Mean latency, ns.
    pub lat_ns: Vec<u64>,
}

/// The rolling window of one job, or of a group's jobs together.
#[derive(Clone, Debug)]
pub struct SteadyTracker {
    criterion: SsCriterion,
    interval_ns: Ns,
    /// When the jobs started: checks fall every `interval_ns` from here.
    start: Ns,
    /// Recording starts at the first check at or after this time.
    record_from: Ns,
    /// Samples the window holds (they are kept in the report, oldest first).
    window: usize,
    // What the covered jobs completed since the last check.
    ios: u64,
    bytes: u64,
    lat_sum_ns: u128,
    report: SteadyReport,
}

impl SteadyTracker {
    /// A tracker for jobs started at `start`: checks every `interval_ns`, a window of `duration_ns`,
    /// recording from one interval after `ramp_ns`. The workload's checks keep `duration_ns / interval_ns`
    /// at 1 or more (2 or more for a slope).
    pub fn new(criterion: SsCriterion, duration_ns: Ns, ramp_ns: Ns, interval_ns: Ns, start: Ns) -> Self {
        let window = (duration_ns / interval_ns.max(1)).max(1) as usize;
        let record_from = if ramp_ns == 0 { start } else { start + ramp_ns + interval_ns };
        SteadyTracker {
            criterion,
            interval_ns,
            start,
            record_from,
            window,
            ios: 0,
            bytes: 0,
            lat_sum_ns: 0,
            report: SteadyReport {
                criterion,
                duration_ns,
                attained: false,
                value: 0.0,
                max_deviation: 0.0,
                slope: 0.0,
                iops: Vec::new(),
                bw: Vec::new(),
                lat_ns: Vec::new(),
            },
        }
    }

    /// Time between checks.
    pub fn interval_ns(&self) -> Ns {
        self.interval_ns
    }

    /// When the first check falls: one interval after the jobs started.
    pub fn first_check_ns(&self) -> Ns {
        self.start.saturating_add(self.interval_ns)
    }

    /// Count one completed IO of a covered job.
    pub fn record(&mut self, bytes: u64, latency_ns: Ns) {
        self.ios += 1;
        self.bytes += bytes;
        self.lat_sum_ns += u128::from(latency_ns);
    }

    /// The check at time `now`: take the interval's sample (once recording has begun) and judge the
    /// window. True when steady state is attained.
    pub fn check(&mut self, now: Ns) -> bool {
        let (ios, bytes, lat_sum) = (self.ios, self.bytes, self.lat_sum_ns);
        (self.ios, self.bytes, self.lat_sum_ns) = (0, 0, 0);
        if now < self.record_from {
            return false;
        }
        let per_s =
            |n: u64| (u128::from(n) * u128::from(NS_PER_S) / u128::from(self.interval_ns.max(1))) as u64;
        let lat = if ios == 0 { 0 } else { (lat_sum / u128::from(ios)) as u64 };
        let r = &mut self.report;
        for (column, sample) in [(&mut r.iops, per_s(ios)), (&mut r.bw, per_s(bytes)), (&mut r.lat_ns, lat)] {
            if column.len() == self.window {
                column.remove(0);
            }
            column.push(sample);
        }
        if r.iops.len() < self.window {
            return false;
        }
        let ys: Vec<f64> = match self.criterion.metric {
            SsMetric::Iops => &r.iops,
            SsMetric::Bw => &r.bw,
            SsMetric::Lat => &r.lat_ns,
        }
        .iter()
        .map(|&y| y as f64)
        .collect();
        let n = ys.len() as f64;
        let mean = ys.iter().sum::<f64>() / n;
        let value = if self.criterion.slope {
            // least squares over x = 0, 1, ..., n-1 (fio assumes evenly spaced samples)
            let sum_x = n * (n - 1.0) / 2.0;
            let sum_x_sq = (n - 1.0) * n * (2.0 * n - 1.0) / 6.0;
            let sum_xy: f64 = ys.iter().enumerate().map(|(i, y)| i as f64 * y).sum();
            r.slope = (sum_xy - sum_x * mean) / (sum_x_sq - sum_x * sum_x / n);
            r.slope
        } else {
            r.max_deviation = ys.iter().map(|y| (y - mean).abs()).fold(0.0, f64::max);
            r.max_deviation
        };
        r.value = if self.criterion.pct { 100.0 * value / mean } else { value };
        r.attained = r.value.abs() < self.criterion.limit;
        r.attained
    }

    /// What the check found so far.
    pub fn report(&self) -> &SteadyReport {
        &self.report
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: Ns = NS_PER_S;

    fn feed(t: &mut SteadyTracker, ios: u64) {
        for _ in 0..ios {
            t.record(4096, 100_000);
        }
    }

    #[test]
    fn a_flat_rate_is_steady_once_the_window_is_full() {
        let c = SsCriterion::parse("iops:5%").unwrap();
        let mut t = SteadyTracker::new(c, 3 * S, 0, S, 0);
        let attained: Vec<bool> = (1..=3)
            .map(|k| {
                feed(&mut t, 1000);
                t.check(k * S)
            })
            .collect();
        assert_eq!(attained, [false, false, true]);
        let r = t.report();
        assert_eq!((r.iops.clone(), r.bw[0], r.lat_ns[0]), (vec![1000; 3], 4096 * 1000, 100_000));
        assert_eq!(r.value, 0.0);
    }

    #[test]
    fn a_deviation_above_the_limit_is_not_steady() {
        let c = SsCriterion::parse("iops:5%").unwrap();
        let mut t = SteadyTracker::new(c, 2 * S, 0, S, 0);
        feed(&mut t, 1000);
        t.check(S);
        feed(&mut t, 1200);
        // mean 1100, largest deviation 100 = 9.1% of it
        assert!(!t.check(2 * S));
        assert!((t.report().value - 100.0 / 11.0).abs() < 1e-9);
    }

    #[test]
    fn the_slope_is_fios_least_squares_over_the_sample_index() {
        let c = SsCriterion::parse("iops_slope:1").unwrap();
        let mut t = SteadyTracker::new(c, 4 * S, 0, S, 0);
        for (k, n) in [100, 110, 120, 130].into_iter().enumerate() {
            feed(&mut t, n);
            t.check((k as u64 + 1) * S);
        }
        assert!((t.report().slope - 10.0).abs() < 1e-9, "{}", t.report().slope);
        assert!(!t.report().attained);
    }

    #[test]
    fn recording_begins_one_interval_after_the_ramp() {
        let c = SsCriterion::parse("bw:1%").unwrap();
        let mut t = SteadyTracker::new(c, S, 2 * S, S, 0);
        for k in 1..=2 {
            feed(&mut t, 10);
            assert!(!t.check(k * S));
            assert!(t.report().bw.is_empty());
        }
        feed(&mut t, 10);
        assert!(t.check(3 * S)); // a one-sample window deviates by nothing
        assert_eq!(t.report().bw, [40960]);
    }

    #[test]
    fn bad_criteria_name_the_field_and_the_forms() {
        for bad in ["iops", "speed:1", "iops:x%", "iops:-1"] {
            let e = SsCriterion::parse(bad).unwrap_err();
            assert_eq!(e.field, "steadystate");
            assert!(e.message.contains("iops_slope"), "{}", e.message);
        }
    }
}
