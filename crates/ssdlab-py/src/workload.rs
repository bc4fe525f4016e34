//! A workload dict from Python -> `ssdlab_core::Workload`. The names, types and ranges are the core's
//! (`Workload::set`, `Workload::problems`): this file only turns Python values into `FieldValue`s.

use crate::errors::workload_errors;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyString};
use ssdlab_core::FieldValue;
use ssdlab_core::{Workload, WorkloadError};

/// The workload, or a `WorkloadError` listing every problem (unknown keys, wrong types, bad values).
pub fn from_dict(py: Python<'_>, d: &Bound<'_, PyDict>) -> PyResult<Workload> {
    let mut fields = Vec::new();
    let mut problems = Vec::new();
    for (k, v) in d.iter() {
        let key = match k.cast::<PyString>() {
            Ok(s) => s.to_str()?.to_string(),
            Err(_) => {
                let shown = k.repr().map(|r| r.to_string()).unwrap_or_default();
                problems.push(WorkloadError::new("", "workload keys must be str", shown));
                continue;
            }
        };
        match field_value(&v) {
            Some(value) => fields.push((key, value)),
            None => {
                let ty = v.get_type().name().map(|n| n.to_string()).unwrap_or_default();
                let shown = v.repr().map(|r| r.to_string()).unwrap_or_default();
                problems.push(WorkloadError::new(
                    &key,
                    &format!("must be an int, a bool or a str (got {ty})"),
                    shown,
                ));
            }
        }
    }
    match Workload::from_fields(fields) {
        Ok(w) if problems.is_empty() => Ok(w),
        Ok(_) => Err(workload_errors(py, &problems)),
        Err(found) => {
            problems.extend(found);
            Err(workload_errors(py, &problems))
        }
    }
}

/// A Python value as the core's loosely typed field value (bool before int: a bool is an int in Python).
fn field_value(v: &Bound<'_, PyAny>) -> Option<FieldValue> {
    if let Ok(b) = v.cast::<PyBool>() {
        return Some(FieldValue::Bool(b.is_true()));
    }
    if v.is_instance_of::<PyInt>() {
        // beyond i128 is beyond every field's range: say so with the largest value
        return Some(FieldValue::Int(v.extract::<i128>().unwrap_or(i128::MAX)));
    }
    v.cast::<PyString>().ok().and_then(|s| s.to_str().ok()).map(|s| FieldValue::Str(s.to_string()))
}

/// Check a workload dict, raising every problem at once; against a drive of `capacity` bytes when given
/// (without, the size checks wait for the run).
#[pyfunction]
#[pyo3(signature = (workload, capacity=None))]
pub fn check_workload(py: Python<'_>, workload: &Bound<'_, PyDict>, capacity: Option<u64>) -> PyResult<()> {
    let w = from_dict(py, workload)?;
    match capacity.map(|c| w.problems(Some(c))) {
        Some(problems) if !problems.is_empty() => Err(workload_errors(py, &problems)),
        _ => Ok(()),
    }
}
