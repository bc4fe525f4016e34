//! `NativeDrive`: one simulated drive. `run` releases the GIL and honours Ctrl-C.

use crate::errors::{config_error, to_py, DriveBusyError, SimulationError};
use crate::result::{counters_dict, NativeResult};
use crate::workload;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use ssdlab_core::{Drive, DriveConfig, SimError};
use std::panic::{catch_unwind, AssertUnwindSafe};

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

    /// Play a workload (a dict of `ssdlab_core::Workload` fields) against the drive.
    ///
    /// The GIL is released while the simulation runs. `progress(fraction)` is called now and then;
    /// an exception from it, or a signal such as Ctrl-C, cancels the run and is raised here.
    #[pyo3(signature = (workload, progress = None))]
    fn run(
        slf: &Bound<'_, Self>,
        workload: &Bound<'_, PyDict>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<NativeResult> {
        let py = slf.py();
        let w = workload::from_dict(py, workload)?;
        let mut slf = borrow_mut(slf)?;
        let drive = &mut slf.drive;
        let mut pending: Option<PyErr> = None;
        let outcome = py.detach(|| {
            let mut on_progress = |fraction: f64| -> bool {
                if pending.is_some() {
                    return false;
                }
                Python::attach(|py| {
                    let checked = py.check_signals().and_then(|()| match &progress {
                        Some(cb) => cb.call1(py, (fraction,)).map(drop),
                        None => Ok(()),
                    });
                    match checked {
                        Ok(()) => true,
                        Err(e) => {
                            pending = Some(e);
                            false
                        }
                    }
                })
            };
            guarded(|| drive.run(&w, &mut on_progress))
        });
        // An interrupt or a callback error wins, even one that came with the final progress call.
        if let Some(e) = pending {
            return Err(e);
        }
        match outcome? {
            Ok(r) => Ok(r.into()),
            Err(SimError::Cancelled) => Err(SimulationError::new_err("the run was cancelled")),
            Err(e) => Err(to_py(py, e)),
        }
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
        slf.py().detach(|| guarded(|| drive.sanitize()))
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
