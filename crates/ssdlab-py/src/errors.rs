//! The exception tree, made here and mapped from core errors in one place ([`to_py`]).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use ssdlab_core::SimError;

create_exception!(_core, SsdlabError, PyException, "Base class of every ssdlab error.");
create_exception!(
    _core,
    ConfigError,
    SsdlabError,
    "A drive config that cannot be used. args = (message, problems); `.problems` is a list of\n\
     {\"path\", \"message\", \"value\"} dicts, one per problem found."
);
create_exception!(
    _core,
    WorkloadError,
    SsdlabError,
    "A workload parameter that cannot be used; `.field` names it and `.value` is what was given."
);
create_exception!(
    _core,
    SimulationError,
    SsdlabError,
    "The simulation could not go on (e.g. the FTL ran out of space)."
);

/// The one mapping from core errors to Python exceptions.
pub fn to_py(py: Python<'_>, err: SimError) -> PyErr {
    match err {
        SimError::Config(e) => config_error(py, &e),
        SimError::Workload(e) => workload_error(py, &e.to_string(), &e.field, &e.value),
        SimError::Ftl(e) => SimulationError::new_err(e.to_string()),
        SimError::Trace(e) => workload_error(py, &format!("trace: {e}"), "trace", &e.line.to_string()),
        SimError::Cancelled => SimulationError::new_err("the run was cancelled"),
    }
}

pub fn config_error(py: Python<'_>, e: &ssdlab_core::ConfigError) -> PyErr {
    let build = || -> PyResult<PyErr> {
        let problems = PyList::empty(py);
        for p in &e.problems {
            let d = PyDict::new(py);
            d.set_item("path", &p.path)?;
            d.set_item("message", &p.message)?;
            d.set_item("value", &p.value)?;
            problems.append(d)?;
        }
        let n = e.problems.len();
        let head = if n == 1 {
            "invalid drive config".to_string()
        } else {
            format!("invalid drive config ({n} problems)")
        };
        let err = ConfigError::new_err((format!("{head}:\n{e}"), problems.clone().unbind()));
        err.value(py).setattr("problems", problems)?;
        Ok(err)
    };
    build().unwrap_or_else(|e| e)
}

/// A `WorkloadError` with `.field` and `.value` set.
pub fn workload_error(py: Python<'_>, message: &str, field: &str, value: &str) -> PyErr {
    let err = WorkloadError::new_err((message.to_string(),));
    let set = || -> PyResult<()> {
        let v = err.value(py);
        v.setattr("field", field)?;
        v.setattr("value", value)?;
        Ok(())
    };
    match set() {
        Ok(()) => err,
        Err(e) => e,
    }
}
