//! The exception tree lives in Python (`ssdlab/errors.py`: `ConfigError` and `WorkloadError` are both
//! `SsdlabError` and `ValueError`, which a PyO3 `create_exception!` cannot express); this module raises those
//! classes and maps core errors to them in one place ([`to_py`]).

use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyList, PyType};
use ssdlab_core::SimError;

/// One class of `ssdlab.errors`, imported once.
fn class<'py>(
    py: Python<'py>,
    cell: &'static PyOnceLock<Py<PyType>>,
    name: &str,
) -> PyResult<Bound<'py, PyType>> {
    cell.import(py, "ssdlab.errors", name).cloned()
}

macro_rules! python_exception {
    ($name:ident, $doc:literal) => {
        #[doc = $doc]
        pub struct $name;

        impl $name {
            /// The class itself (for re-exporting from `ssdlab._core`).
            pub fn type_object(py: Python<'_>) -> PyResult<Bound<'_, PyType>> {
                static CELL: PyOnceLock<Py<PyType>> = PyOnceLock::new();
                class(py, &CELL, stringify!($name))
            }

            /// The exception with a message (`SimulationError`, `DriveBusyError`).
            #[allow(dead_code)] // not every class is raised with a bare message
            pub fn new_err(message: impl Into<String>) -> PyErr {
                let message = message.into();
                Python::attach(|py| match Self::type_object(py) {
                    Ok(ty) => PyErr::from_type(ty, (message,)),
                    Err(e) => e,
                })
            }
        }
    };
}

python_exception!(SsdlabError, "`ssdlab.SsdlabError`: base class of every ssdlab error.");
python_exception!(ConfigError, "`ssdlab.ConfigError`: a drive config that cannot be used.");
python_exception!(WorkloadError, "`ssdlab.WorkloadError`: a workload parameter that cannot be used.");
python_exception!(SimulationError, "`ssdlab.SimulationError`: the simulation could not go on.");
python_exception!(DriveBusyError, "`ssdlab.DriveBusyError`: the drive is already running something.");

/// The one mapping from core errors to Python exceptions.
pub fn to_py(py: Python<'_>, err: SimError) -> PyErr {
    match err {
        SimError::Config(e) => config_error(py, &e),
        SimError::Workload(e) => workload_error(py, &e.message, &e.field, &e.value),
        SimError::InvalidWorkload(v) => workload_errors(py, &v),
        SimError::Ftl(e) => SimulationError::new_err(e.to_string()),
        SimError::Trace(e) => workload_error(py, &format!("trace: {e}"), "trace", ""), // the message says the line
        SimError::Cancelled => SimulationError::new_err("the run was cancelled"),
    }
}

/// `ConfigError` listing every problem of a core `ConfigError`.
pub fn config_error(py: Python<'_>, e: &ssdlab_core::ConfigError) -> PyErr {
    let problems = e.problems.iter().map(|p| (p.path.as_str(), p.value.as_str(), p.message.as_str()));
    problems_error(py, ConfigError::type_object(py), problems)
}

/// `WorkloadError` with one problem: `field` given `value`, and what is wrong (`message`, without the value).
pub fn workload_error(py: Python<'_>, message: &str, field: &str, value: &str) -> PyErr {
    problems_error(py, WorkloadError::type_object(py), [(field, value, message)])
}

/// `WorkloadError` listing every problem found.
pub fn workload_errors(py: Python<'_>, problems: &[ssdlab_core::WorkloadError]) -> PyErr {
    let problems = problems.iter().map(|p| (p.field.as_str(), p.value.as_str(), p.message.as_str()));
    problems_error(py, WorkloadError::type_object(py), problems)
}

/// An `InputError` subclass built from `(path, value, message)` problems (`ssdlab.errors.Problem`s).
pub fn problems_error<'a>(
    py: Python<'_>,
    class: PyResult<Bound<'_, PyType>>,
    problems: impl IntoIterator<Item = (&'a str, &'a str, &'a str)>,
) -> PyErr {
    static PROBLEM: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let build = || -> PyResult<PyErr> {
        let problem = self::class(py, &PROBLEM, "Problem")?;
        let list = PyList::empty(py);
        for p in problems {
            list.append(problem.call1(p)?)?;
        }
        Ok(PyErr::from_type(class?, (list.unbind(),)))
    };
    build().unwrap_or_else(|e| e)
}
