//! `ssdlab._core`: the Python face of `ssdlab-core`. Bindings only: conversion ([`workload`]),
//! the counter registry ([`counters`]), errors ([`errors`], mapped in one place) and releasing the GIL around long calls ([`drive`]).
//! The Python package `ssdlab` wraps these classes; users never see them directly.

mod counters;
mod drive;
mod errors;
mod result;
mod workload;

use pyo3::prelude::*;

/// The ssdlab-core version that built this module.
#[pyfunction]
fn version() -> &'static str {
    ssdlab_core::VERSION
}

/// A drive TOML with its `base = "..."` chain resolved against the presets folder: complete TOML.
#[pyfunction]
fn resolve_drive_toml(py: Python<'_>, text: &str, origin: &str, presets_dir: &str) -> PyResult<String> {
    ssdlab_core::config::preset::resolve_toml(text, origin, std::path::Path::new(presets_dir))
        .map_err(|e| errors::config_error(py, &e))
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    // The exception classes are defined in `ssdlab.errors`; re-exported here for code that imports them from
    // the native module.
    m.add("SsdlabError", errors::SsdlabError::type_object(py)?)?;
    m.add("ConfigError", errors::ConfigError::type_object(py)?)?;
    m.add("WorkloadError", errors::WorkloadError::type_object(py)?)?;
    m.add("SimulationError", errors::SimulationError::type_object(py)?)?;
    m.add("DriveBusyError", errors::DriveBusyError::type_object(py)?)?;
    m.add_function(wrap_pyfunction!(version, m)?)?;
    m.add_function(wrap_pyfunction!(counters::counter_registry, m)?)?;
    m.add_function(wrap_pyfunction!(counters::counter_delta, m)?)?;
    m.add_function(wrap_pyfunction!(resolve_drive_toml, m)?)?;
    m.add_function(wrap_pyfunction!(workload::check_workload, m)?)?;
    m.add_class::<drive::NativeDrive>()?;
    m.add_class::<result::NativeResult>()?;
    m.add_class::<result::NativeLatency>()?;
    Ok(())
}
