//! `NativeDrive`: one simulated drive. `run` releases the GIL and honours Ctrl-C.

use crate::errors::{config_error, to_py, workload_error, DriveBusyError, SimulationError};
use crate::result::{counters_dict, NativeResult};
use crate::workload;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList};
use ssdlab_core::{Command, Op, TraceFormat, TraceReader};
use ssdlab_core::{Drive, DriveConfig, ReplayOptions, SimError, Timing};
use std::io::{BufRead, BufReader, Read};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// One simulated SSD whose state persists from run to run.
#[pyclass(module = "ssdlab._core")]
pub struct NativeDrive {
    drive: Drive,
}

#[pymethods]
impl NativeDrive {
    /// Parse and validate a drive TOML, apply `(path, value)` overrides, and build the drive.
    #[new]
    #[pyo3(signature = (toml_text, overrides = Vec::new()))]
    fn new(py: Python<'_>, toml_text: &str, overrides: Vec<(String, String)>) -> PyResult<Self> {
        let cfg = DriveConfig::from_toml_str(toml_text, &overrides).map_err(|e| config_error(py, &e))?;
        let drive = guarded(|| Drive::new(cfg)).and_then(|r| r.map_err(|e| to_py(py, e)))?;
        Ok(NativeDrive { drive })
    }

    /// The drive's full parameter set as TOML (loads back with `NativeDrive(text)`).
    fn config_toml(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(borrow(slf)?.drive.config().to_toml_string())
    }

    #[getter]
    fn name(slf: &Bound<'_, Self>) -> PyResult<String> {
        Ok(borrow(slf)?.drive.config().name.clone())
    }

    #[getter]
    fn capacity_bytes(slf: &Bound<'_, Self>) -> PyResult<u64> {
        Ok(borrow(slf)?.drive.capacity_bytes())
    }

    #[getter]
    fn now_ns(slf: &Bound<'_, Self>) -> PyResult<u64> {
        Ok(borrow(slf)?.drive.now_ns())
    }

    /// Play one or more job specs (dicts of `ssdlab_core::Workload` fields) at once against the drive.
    ///
    /// The GIL is released while the simulation runs. `progress(fraction)` is called now and then;
    /// an exception from it, or a signal such as Ctrl-C, cancels the run and is raised here.
    #[pyo3(signature = (jobs, progress = None))]
    fn run(
        slf: &Bound<'_, Self>,
        jobs: &Bound<'_, PyList>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<NativeResult> {
        let py = slf.py();
        let specs = jobs
            .iter()
            .map(|j| {
                let d = j.cast::<PyDict>().map_err(|_| PyValueError::new_err("each job must be a dict"))?;
                workload::from_dict(py, d)
            })
            .collect::<PyResult<Vec<_>>>()?;
        let mut slf = borrow_mut(slf)?;
        let drive = &mut slf.drive;
        let mut reports = PyProgress::new(progress);
        let outcome = py.detach(|| guarded(|| drive.run_jobs(&specs, &mut |f| reports.report(f))));
        reports.finish(py, outcome, "run").and_then(|r| NativeResult::from_run(py, r, &specs))
    }

    /// Submit one command at the drive's current time; returns its id. `op`: read, write, trim, flush.
    /// `data`: a write's bytes, kept when the drive keeps data.
    #[pyo3(signature = (op, offset, length, compress_percentage = 0, fua = false, data = None))]
    fn submit(
        slf: &Bound<'_, Self>,
        op: &str,
        offset: u64,
        length: u64,
        compress_percentage: u32,
        fua: bool,
        data: Option<&[u8]>,
    ) -> PyResult<u64> {
        let py = slf.py();
        let op = Op::from_str(op).map_err(|e| to_py(py, e.into()))?;
        let cmd = Command { compress_pct: compress_percentage, fua, ..Command::new(op, offset, length) };
        let mut this = borrow_mut(slf)?;
        guarded(|| this.drive.submit_with_data(cmd, data))?.map_err(|e| to_py(py, e))
    }

    /// Cut the power now (`pln`: with the power-loss notification). Returns (at_ns, flushed, flush_ns,
    /// flush_energy_j, at_risk_slots, commands_dropped, lost_lpns).
    #[allow(clippy::type_complexity)]
    fn power_cut(slf: &Bound<'_, Self>, pln: bool) -> PyResult<(u64, bool, u64, f64, u64, u64, Vec<u32>)> {
        let mut this = borrow_mut(slf)?;
        let r = guarded(|| this.drive.power_cut(pln))?.map_err(|e| to_py(slf.py(), e))?;
        Ok((
            r.at_ns,
            r.flushed,
            r.flush_ns,
            r.flush_energy_j,
            r.at_risk_slots,
            r.commands_dropped,
            r.lost_lpns,
        ))
    }

    /// Power on: the map is rebuilt from flash; returns the time that took (ns; 0 if already on).
    fn power_on(slf: &Bound<'_, Self>) -> PyResult<u64> {
        let mut this = borrow_mut(slf)?;
        guarded(|| this.drive.power_on())
    }

    /// Keep the data written from now on (reads return it).
    fn enable_data(slf: &Bound<'_, Self>) -> PyResult<()> {
        borrow_mut(slf)?.drive.enable_data();
        Ok(())
    }

    #[getter]
    fn data_enabled(slf: &Bound<'_, Self>) -> PyResult<bool> {
        Ok(borrow(slf)?.drive.data_enabled())
    }

    /// What a read of `length` bytes from `offset` returns now, taking no simulated time.
    fn read_data<'py>(slf: &Bound<'py, Self>, offset: u64, length: u64) -> PyResult<Bound<'py, PyBytes>> {
        let py = slf.py();
        let mut this = borrow_mut(slf)?;
        let data = guarded(|| this.drive.read_data(offset, length))?.map_err(|e| to_py(py, e))?;
        Ok(PyBytes::new(py, &data))
    }

    /// Flip one bit of the stored page at `lpn` without updating its CRC (fault injection); False if the
    /// page holds no data.
    fn corrupt_data(slf: &Bound<'_, Self>, lpn: u32, bit: usize) -> PyResult<bool> {
        Ok(borrow_mut(slf)?.drive.data_store_mut().is_some_and(|d| d.corrupt(lpn, bit)))
    }

    /// Flip `bits` bits in the host-memory-buffer copy of the map page holding `offset` (fault injection:
    /// one is corrected, two or more are detected and the map page is read again from NAND); False
    /// unless that map page is cached in the HMB.
    fn inject_hmb_bit_flips(slf: &Bound<'_, Self>, offset: u64, bits: u32) -> PyResult<bool> {
        let py = slf.py();
        borrow_mut(slf)?.drive.inject_hmb_bit_flips(offset, bits).map_err(|e| to_py(py, e))
    }

    /// Move the clock to `until_ns` (never back), or with None to the next completion; returns the time.
    #[pyo3(signature = (until_ns = None))]
    fn advance(slf: &Bound<'_, Self>, until_ns: Option<u64>) -> PyResult<u64> {
        let mut this = borrow_mut(slf)?;
        let this = &mut *this;
        match until_ns {
            Some(t) if t < this.drive.now_ns() => Err(PyValueError::new_err(format!(
                "until_ns must not be before now ({} ns, got {t})",
                this.drive.now_ns()
            ))),
            Some(t) => guarded(|| this.drive.advance(t)).map(|()| t),
            None => guarded(|| this.drive.advance_to_next_completion()).map(|_| this.drive.now_ns()),
        }
    }

    /// Completions due by now, as (id, op, offset, length, submit_ns, complete_ns, status, data) tuples;
    /// `data` is a read's bytes when the drive keeps data, else None.
    #[allow(clippy::type_complexity)]
    fn poll<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<Vec<(u64, &'static str, u64, u64, u64, u64, &'static str, Option<Bound<'py, PyBytes>>)>>
    {
        let py = slf.py();
        let mut this = borrow_mut(slf)?;
        let drive = &mut this.drive;
        let mut out = Vec::new();
        while let Some(c) = drive.poll() {
            let data = drive.take_read_data(c.id).map(|d| PyBytes::new(py, &d));
            out.push((c.id, c.op.name(), c.offset, c.len, c.submit_ns, c.complete_ns, c.status.name(), data));
        }
        Ok(out)
    }

    /// Commands submitted and not yet polled.
    #[getter]
    fn outstanding(slf: &Bound<'_, Self>) -> PyResult<usize> {
        Ok(borrow(slf)?.drive.outstanding())
    }

    /// When the earliest outstanding command completes (None if there is none).
    #[getter]
    fn next_completion_ns(slf: &Bound<'_, Self>) -> PyResult<Option<u64>> {
        Ok(borrow(slf)?.drive.next_completion_ns())
    }

    /// When the submitted command `id` completes (None once polled, or if never submitted).
    fn completion_ns(slf: &Bound<'_, Self>, id: u64) -> PyResult<Option<u64>> {
        Ok(borrow(slf)?.drive.completion_ns(id))
    }

    /// Replay the trace at `path` (see `ssdlab_core::TraceReader` for the formats). Returns the
    /// result, the bad lines skipped (with `skip_bad`), the lines read and, with recorded timing, the
    /// requests recorded before one ahead of them in the file. Releases the GIL; `progress`
    /// gets the fraction of the file read.
    #[pyo3(signature = (path, format = "auto", timing = "recorded", speed = 1.0, iodepth = 32, wrap = true,
                        skip_bad = false, interval_ns = 100_000_000, progress = None, log_ios = false))]
    #[allow(clippy::too_many_arguments)]
    fn replay(
        slf: &Bound<'_, Self>,
        path: std::path::PathBuf,
        format: &str,
        timing: &str,
        speed: f64,
        iodepth: u32,
        wrap: bool,
        skip_bad: bool,
        interval_ns: u64,
        progress: Option<Py<PyAny>>,
        log_ios: bool,
    ) -> PyResult<(NativeResult, u64, u64, u64)> {
        let py = slf.py();
        let bad = |field: &str, message: String, value: &str| workload_error(py, &message, field, value);
        let timing = match timing {
            "recorded" => Timing::Recorded,
            "afap" => Timing::AsFastAsPossible,
            _ => {
                return Err(bad(
                    "timing",
                    format!("timing: must be recorded or afap (got {timing:?})"),
                    timing,
                ))
            }
        };
        let open = || {
            std::fs::File::open(&path)
                .map_err(|e| pyo3::exceptions::PyOSError::new_err(format!("{}: {e}", path.display())))
        };
        let size = open()?.metadata().map(|m| m.len()).unwrap_or(0);
        let format = match format {
            "auto" => {
                let first = BufReader::new(open()?)
                    .lines()
                    .map_while(Result::ok)
                    .find(|l| !l.trim().is_empty() && !l.starts_with('#'))
                    .unwrap_or_default();
                TraceFormat::detect(&first).ok_or_else(|| {
                    bad(
                        "format",
                        format!(
                            "format: cannot tell the format of {} from its first line {first:?}; give one of {}",
                            path.display(),
                            TraceFormat::NAMES
                        ),
                        "auto",
                    )
                })?
            }
            f => TraceFormat::from_str(f)
                .map_err(|_| bad("format", format!("format: must be one of {}", TraceFormat::NAMES), f))?,
        };
        let read = Arc::new(AtomicU64::new(0));
        let input = BufReader::with_capacity(1 << 20, Counting { inner: open()?, read: read.clone() });
        let mut this = borrow_mut(slf)?;
        let cap = this.drive.capacity_bytes();
        let mut reader = TraceReader::new(input, format, cap, wrap);
        let opts = ReplayOptions { timing, speed, iodepth, interval_ns, log_ios };
        let drive = &mut this.drive;
        let mut skipped = 0u64;
        // requests recorded before one ahead of them in the file (blkparse interleaves its CPUs): each is
        // submitted when its turn comes, as the clock never runs back
        let (mut latest, mut late) = (0u64, 0u64);
        let mut reports = PyProgress::new(progress);
        let outcome = py.detach(|| {
            let mut on_progress = || {
                let read = read.load(Ordering::Relaxed) as f64;
                reports.report(if size == 0 { 1.0 } else { (read / size as f64).min(1.0) })
            };
            let mut records = reader
                .by_ref()
                .filter(|r| {
                    let skip = skip_bad && r.is_err();
                    skipped += u64::from(skip);
                    !skip
                })
                .inspect(|r| {
                    if let Some(at) = r.as_ref().ok().and_then(|rec| rec.at_ns) {
                        late += u64::from(at < latest);
                        latest = latest.max(at);
                    }
                });
            guarded(|| drive.replay(&mut records, &opts, &mut on_progress))
        });
        let r = reports.finish(py, outcome, "replay")?;
        let late = if timing == Timing::Recorded { late } else { 0 };
        Ok((NativeResult::from_run(py, r, &[])?, skipped, reader.lines_read(), late))
    }

    /// Let `ns` of simulated time pass with no host IO.
    fn idle(slf: &Bound<'_, Self>, ns: u64) -> PyResult<()> {
        let mut this = borrow_mut(slf)?;
        if this.drive.now_ns().checked_add(ns).is_none() {
            return Err(PyValueError::new_err(format!(
                "ns would overflow the drive's clock (now {} ns, got {ns})",
                this.drive.now_ns()
            )));
        }
        this.drive.idle(ns);
        Ok(())
    }

    /// Deallocate (TRIM) `length` bytes from `offset`, rounded inward to whole 4 KiB pages.
    fn trim(slf: &Bound<'_, Self>, offset: u64, length: u64) -> PyResult<()> {
        let mut this = borrow_mut(slf)?;
        guarded(|| this.drive.trim(offset, length))?.map_err(|e| to_py(slf.py(), e))
    }

    /// Sanitize (block erase): erase every block holding data, empty the map; wear, counters and the clock
    /// carry on. Releases the GIL while the erases are scheduled.
    fn sanitize(slf: &Bound<'_, Self>) -> PyResult<()> {
        let mut this = borrow_mut(slf)?;
        let drive = &mut this.drive;
        slf.py().detach(|| guarded(|| drive.sanitize()))?.map_err(|e| to_py(slf.py(), e))
    }

    /// Start a sanitize (`overwrite_passes` 0: block erase; n: overwrite n times) and return when its NAND
    /// work ends; the clock stays (the host polls progress). Releases the GIL while the work is scheduled.
    fn start_sanitize(slf: &Bound<'_, Self>, overwrite_passes: u32) -> PyResult<u64> {
        let mut this = borrow_mut(slf)?;
        let drive = &mut this.drive;
        slf.py()
            .detach(|| guarded(|| drive.start_sanitize(overwrite_passes)))?
            .map_err(|e| to_py(slf.py(), e))
    }

    /// Set Features, Host Memory Buffer: `mib` MiB of host memory for the map cache, or None to take it
    /// back (the controller's SRAM caches the map); the cache starts cold.
    #[pyo3(signature = (mib = None))]
    fn set_host_memory_buffer(slf: &Bound<'_, Self>, mib: Option<u64>) -> PyResult<()> {
        let mut this = borrow_mut(slf)?;
        guarded(|| this.drive.set_host_memory_buffer(mib))?.map_err(|e| to_py(slf.py(), e))
    }

    /// Set Features, APST on or off.
    fn set_apst(slf: &Bound<'_, Self>, on: bool) -> PyResult<()> {
        let mut this = borrow_mut(slf)?;
        guarded(|| this.drive.set_apst(on))
    }

    /// Set Features, Power Management: non-operational state `index` of `power.nonop_states` until the next
    /// command, or None for an operational state.
    #[pyo3(signature = (index = None))]
    fn set_power_state(slf: &Bound<'_, Self>, index: Option<usize>) -> PyResult<()> {
        let mut this = borrow_mut(slf)?;
        guarded(|| this.drive.set_power_state(index))?.map_err(|e| to_py(slf.py(), e))
    }

    /// An independent copy of the drive and all its state.
    #[pyo3(name = "clone")]
    fn clone_drive(slf: &Bound<'_, Self>) -> PyResult<NativeDrive> {
        Ok(NativeDrive { drive: borrow(slf)?.drive.clone() })
    }

    /// Every cumulative counter since the drive was made, by name.
    fn counters<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyDict>> {
        counters_dict(slf.py(), &borrow(slf)?.drive.counters())
    }

    fn __repr__(slf: &Bound<'_, Self>) -> PyResult<String> {
        let this = borrow(slf)?;
        Ok(format!(
            "NativeDrive(name={:?}, capacity_bytes={}, now_ns={})",
            this.drive.config().name,
            this.drive.capacity_bytes(),
            this.drive.now_ns()
        ))
    }
}

/// What a second caller is told while the drive is in use (the GIL is released during a run, so another
/// thread can reach the drive then).
const BUSY: &str = "the drive is busy: a drive runs one thing at a time; give each thread its own drive \
                    (Drive.clone())";

/// The drive for changing, or `DriveBusyError` while another call (another thread) is using it. Every method
/// borrows through here or [`borrow`] so that no caller sees PyO3's bare `RuntimeError('Already borrowed')`.
fn borrow_mut<'py>(slf: &Bound<'py, NativeDrive>) -> PyResult<PyRefMut<'py, NativeDrive>> {
    slf.try_borrow_mut().map_err(|_| DriveBusyError::new_err(BUSY))
}

/// The drive for reading, or `DriveBusyError` while a call that changes it is under way.
fn borrow<'py>(slf: &Bound<'py, NativeDrive>) -> PyResult<PyRef<'py, NativeDrive>> {
    slf.try_borrow().map_err(|_| DriveBusyError::new_err(BUSY))
}

/// Run `f`, turning a panic in the core (a bug) into `SimulationError` instead of letting it reach Python.
fn guarded<T>(f: impl FnOnce() -> T) -> PyResult<T> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|payload| {
        let what = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        SimulationError::new_err(format!("internal error in the simulator (please report it): {what}"))
    })
}

/// Progress reports from a simulation running without the GIL: the Python callback, and the first error it
/// or a signal (Ctrl-C) raised, which stops the simulation and wins over its result.
struct PyProgress {
    callback: Option<Py<PyAny>>,
    pending: Option<PyErr>,
}

impl PyProgress {
    fn new(callback: Option<Py<PyAny>>) -> Self {
        PyProgress { callback, pending: None }
    }

    /// Check for signals and pass `fraction` to the callback; false (stop) once either raised.
    fn report(&mut self, fraction: f64) -> bool {
        if self.pending.is_some() {
            return false;
        }
        Python::attach(|py| {
            let checked = py.check_signals().and_then(|()| match &self.callback {
                Some(cb) => cb.call1(py, (fraction,)).map(drop),
                None => Ok(()),
            });
            checked.map_err(|e| self.pending = Some(e)).is_ok()
        })
    }

    /// The simulation's result, unless an interrupt or a callback error came first (even one raised by
    /// the final progress call); `what` names it in the cancellation message.
    fn finish<T>(self, py: Python<'_>, outcome: PyResult<Result<T, SimError>>, what: &str) -> PyResult<T> {
        if let Some(e) = self.pending {
            return Err(e);
        }
        match outcome? {
            Ok(r) => Ok(r),
            Err(SimError::Cancelled) => Err(SimulationError::new_err(format!("the {what} was cancelled"))),
            Err(e) => Err(to_py(py, e)),
        }
    }
}

/// A reader that counts the bytes read through it (for a replay's progress).
struct Counting<R> {
    inner: R,
    read: Arc<AtomicU64>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}
