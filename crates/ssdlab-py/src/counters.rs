//! The counter registry for Python: `counter_registry()` describes every counter, `counter_delta()` turns
//! two snapshots into a span with the core's rules (totals subtract, levels keep the later value, derived
//! counters are recomputed), so Python keeps no list of names or formulas of its own.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use ssdlab_core::stats::{Counters, Kind, COUNTERS};
use std::collections::HashMap;

/// `Counters` -> an insertion-ordered `{name: value}` dict, in the registry's order.
pub fn counters_dict<'py>(py: Python<'py>, counters: &Counters) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, v) in counters.iter() {
        d.set_item(k, v)?;
    }
    Ok(d)
}

/// Every counter as `(name, unit, kind, description)`, in the order drives report them.
#[pyfunction]
pub fn counter_registry() -> Vec<(&'static str, &'static str, &'static str, &'static str)> {
    COUNTERS.iter().map(|c| (c.name, c.unit.as_str(), c.kind.as_str(), c.description)).collect()
}

/// A snapshot from `{name: value}`: every counter that is not derived must be there, and nothing else.
fn snapshot(which: &str, values: &HashMap<String, f64>) -> PyResult<Counters> {
    let missing: Vec<&str> = COUNTERS
        .iter()
        .filter(|c| c.kind != Kind::Derived && !values.contains_key(c.name))
        .map(|c| c.name)
        .collect();
    if !missing.is_empty() {
        return Err(PyValueError::new_err(format!(
            "{which} lacks counters {} (give a whole Drive.counters() snapshot)",
            missing.join(", ")
        )));
    }
    let pairs: Vec<(&str, f64)> = values.iter().map(|(k, &v)| (k.as_str(), v)).collect();
    Counters::from_pairs(&pairs).map_err(|e| PyValueError::new_err(format!("{which}: {e}")))
}

/// What happened between two `Drive.counters()` snapshots, as a dict in registry order.
#[pyfunction]
pub fn counter_delta<'py>(
    py: Python<'py>,
    before: HashMap<String, f64>,
    after: HashMap<String, f64>,
) -> PyResult<Bound<'py, PyDict>> {
    let span = Counters::delta(&snapshot("before", &before)?, &snapshot("after", &after)?);
    counters_dict(py, &span)
}
