//! `NativeResult` and `NativeLatency`: a finished run, read-only.

pub use crate::counters::counters_dict;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use ssdlab_core::stats::RunStats;
use ssdlab_core::{Counters, IoLog, Latency, Op, RunResult, SteadyReport, Workload};
use std::sync::Arc;

/// What one `NativeDrive.run` measured.
#[pyclass(frozen, module = "ssdlab._core")]
pub struct NativeResult {
    #[pyo3(get)]
    elapsed_ns: u64,
    #[pyo3(get)]
    read_ios: u64,
    #[pyo3(get)]
    read_bytes: u64,
    #[pyo3(get)]
    write_ios: u64,
    #[pyo3(get)]
    write_bytes: u64,
    #[pyo3(get)]
    trim_ios: u64,
    #[pyo3(get)]
    trim_bytes: u64,
    /// Highest power of a whole interval, W.
    #[pyo3(get)]
    max_power_w: f64,
    /// None for a job of a run: the drive's counters belong to the run as a whole.
    counters: Option<Counters>,
    #[pyo3(get)]
    die_utilisation: Vec<f64>,
    series: Vec<(&'static str, Vec<f64>)>,
    lat_all: Arc<Latency>,
    lat_read: Arc<Latency>,
    lat_write: Arc<Latency>,
    lat_trim: Arc<Latency>,
    steadystate: Option<SteadyReport>,
    jobs: Vec<Py<NativeResult>>,
    /// fio's reporting groups of a run of several: each group's jobs reported as one, by group id.
    groups: Vec<(u32, Py<NativeResult>)>,
    io_log: Option<IoLog>,
}

impl NativeResult {
    /// The measurements of `s`, with no counters (a job of a run has only its own IOs).
    fn from_stats(s: RunStats) -> Self {
        NativeResult {
            elapsed_ns: s.elapsed_ns(),
            read_ios: s.read.ios,
            read_bytes: s.read.bytes,
            write_ios: s.write.ios,
            write_bytes: s.write.bytes,
            trim_ios: s.trim.ios,
            trim_bytes: s.trim.bytes,
            max_power_w: s.max_power_w,
            counters: None,
            die_utilisation: Vec::new(),
            series: s.series.columns(),
            lat_all: Arc::new(s.lat_all),
            lat_read: Arc::new(s.lat_read),
            lat_write: Arc::new(s.lat_write),
            lat_trim: Arc::new(s.lat_trim),
            steadystate: s.steadystate,
            jobs: Vec::new(),
            groups: Vec::new(),
            io_log: s.io_log,
        }
    }

    /// A whole run: the group's measurements, the counters, and one entry per job spec; with the job
    /// specs (`specs`, as the run was given them) in more than one reporting group, each group as one too.
    pub fn from_run(py: Python<'_>, r: RunResult, specs: &[Workload]) -> PyResult<Self> {
        let groups = r
            .groups(specs)
            .into_iter()
            .map(|(g, s)| Ok((g, Py::new(py, NativeResult::from_stats(s))?)))
            .collect::<PyResult<Vec<_>>>()?;
        let jobs = r
            .jobs
            .into_iter()
            .map(|j| Py::new(py, NativeResult::from_stats(j)))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(NativeResult {
            counters: Some(r.counters),
            die_utilisation: r.die_utilisation,
            jobs,
            groups,
            ..NativeResult::from_stats(r.stats)
        })
    }
}

#[pymethods]
impl NativeResult {
    /// Every counter's change over the run, in registry order (`counter_registry()`).
    #[getter]
    fn counters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        match &self.counters {
            Some(c) => counters_dict(py, c),
            None => Ok(PyDict::new(py)),
        }
    }

    /// A run of job specs in several reporting groups (`group`): each group's jobs measured as one, by
    /// group id (empty when every spec is in one group: the run is that group).
    #[getter]
    fn groups<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (g, r) in &self.groups {
            d.set_item(g, r.clone_ref(py))?;
        }
        Ok(d)
    }

    /// One result per job spec of the run, in the order given (their counters are empty: the drive's
    /// counters belong to the run as a whole).
    #[getter]
    fn jobs(&self, py: Python<'_>) -> Vec<Py<NativeResult>> {
        self.jobs.iter().map(|j| j.clone_ref(py)).collect()
    }

    /// The IOs logged (a spec's `log_ios`, a replay's), else None: column name -> little-endian array
    /// bytes, `submit_ns`, `complete_ns`, `offset` and `len` as u64, `op` as u8 (0 read, 1 write, 2 trim,
    /// 3 flush), for `numpy.frombuffer`.
    #[getter]
    fn io_log<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(log) = &self.io_log else { return Ok(None) };
        fn le(v: &[u64]) -> Vec<u8> {
            v.iter().flat_map(|x| x.to_le_bytes()).collect()
        }
        let ops: Vec<u8> = log
            .op
            .iter()
            .map(|op| match op {
                Op::Read => 0,
                Op::Write => 1,
                Op::Trim => 2,
                Op::Flush => 3,
            })
            .collect();
        let d = PyDict::new(py);
        for (k, v) in [
            ("submit_ns", &log.submit_ns),
            ("complete_ns", &log.complete_ns),
            ("offset", &log.offset),
            ("len", &log.len),
        ] {
            d.set_item(k, PyBytes::new(py, &le(v)))?;
        }
        d.set_item("op", PyBytes::new(py, &ops))?;
        Ok(Some(d))
    }

    /// Per-interval series: column name -> one value per interval.
    #[getter]
    fn series<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for (k, v) in &self.series {
            d.set_item(*k, v)?;
        }
        Ok(d)
    }

    /// fio's steady-state check (`steadystate_duration_ns` set), else None: `ss` (the criterion as fio
    /// prints it), `duration_s`, `attained`, `criterion` (its last value), `max_deviation`, `slope`, and the
    /// window's samples, oldest first: `iops`, `bw` (bytes/s), `lat_ns`.
    #[getter]
    fn steadystate<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        let Some(r) = &self.steadystate else { return Ok(None) };
        let d = PyDict::new(py);
        d.set_item("ss", r.criterion.to_string())?;
        d.set_item("pct", r.criterion.pct)?;
        d.set_item("duration_s", r.duration_ns as f64 / 1e9)?;
        d.set_item("attained", r.attained)?;
        d.set_item("criterion", r.value)?;
        d.set_item("max_deviation", r.max_deviation)?;
        d.set_item("slope", r.slope)?;
        d.set_item("iops", &r.iops)?;
        d.set_item("bw", &r.bw)?;
        d.set_item("lat_ns", &r.lat_ns)?;
        Ok(Some(d))
    }

    /// The latency distribution of `which` IOs: "all" (reads and writes), "read", "write" or "trim".
    #[pyo3(signature = (which = "all"))]
    fn latency(&self, which: &str) -> PyResult<NativeLatency> {
        let lat = match which {
            "all" => &self.lat_all,
            "read" => &self.lat_read,
            "write" => &self.lat_write,
            "trim" => &self.lat_trim,
            _ => {
                return Err(PyValueError::new_err(format!(
                    "which must be \"all\", \"read\", \"write\" or \"trim\" (got {which:?})"
                )))
            }
        };
        Ok(NativeLatency { lat: lat.clone() })
    }

    fn __repr__(&self) -> String {
        format!(
            "NativeResult(elapsed_ns={}, read_ios={}, write_ios={}, trim_ios={})",
            self.elapsed_ns, self.read_ios, self.write_ios, self.trim_ios
        )
    }
}

/// A latency distribution in nanoseconds (HDR histogram, 3 significant digits).
#[pyclass(frozen, module = "ssdlab._core")]
pub struct NativeLatency {
    lat: Arc<Latency>,
}

#[pymethods]
impl NativeLatency {
    #[getter]
    fn count(&self) -> u64 {
        self.lat.count()
    }
    #[getter]
    fn mean_ns(&self) -> f64 {
        self.lat.mean_ns()
    }
    #[getter]
    fn min_ns(&self) -> u64 {
        self.lat.min_ns()
    }
    #[getter]
    fn max_ns(&self) -> u64 {
        self.lat.max_ns()
    }
    #[getter]
    fn stdev_ns(&self) -> f64 {
        self.lat.stdev_ns()
    }

    /// Latency at percentile `p`, 0..=100.
    fn percentile_ns(&self, p: f64) -> PyResult<u64> {
        if !(0.0..=100.0).contains(&p) {
            return Err(PyValueError::new_err(format!("p must be a percentile from 0 to 100 (got {p})")));
        }
        Ok(self.lat.percentile_ns(p))
    }

    fn __repr__(&self) -> String {
        format!(
            "NativeLatency(count={}, mean_ns={:.1}, max_ns={})",
            self.lat.count(),
            self.lat.mean_ns(),
            self.lat.max_ns()
        )
    }
}
