//! A workload dict from Python -> `ssdlab_core::Workload`. Every key is checked: an unknown key, a wrong
//! type or a value out of the field's integer range raises `WorkloadError` naming the key.

use crate::errors::workload_error;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyInt, PyString};
use ssdlab_core::{Rw, Workload};
use std::str::FromStr;

const KEYS: &str = "rw, bs, iodepth, numjobs, offset, size, io_size, runtime_ns, time_based, ramp_time_ns, \
                    rwmixread, rate_iops, thinktime_ns, buffer_compress_percentage, seed, interval_ns";

pub fn from_dict(py: Python<'_>, d: &Bound<'_, PyDict>) -> PyResult<Workload> {
    let mut w = Workload::default();
    for (k, v) in d.iter() {
        let Ok(key) = k.cast::<PyString>() else {
            let shown = k.repr().map(|r| r.to_string()).unwrap_or_default();
            return Err(workload_error(py, &format!("workload keys must be str (got {shown})"), "", &shown));
        };
        let key = key.to_str()?;
        match key {
            "rw" => {
                let s = v.cast::<PyString>().map_err(|_| wrong_type(py, key, &v, "a str"))?;
                let s = s.to_str()?;
                w.rw = Rw::from_str(s).map_err(|e| workload_error(py, &e.to_string(), &e.field, &e.value))?;
            }
            "time_based" => {
                let b = v.cast::<PyBool>().map_err(|_| wrong_type(py, key, &v, "a bool"))?;
                w.time_based = b.is_true();
            }
            "bs" => w.bs = uint(py, key, &v)?,
            "iodepth" => w.iodepth = uint(py, key, &v)?,
            "numjobs" => w.numjobs = uint(py, key, &v)?,
            "offset" => w.offset = uint(py, key, &v)?,
            "size" => w.size = uint(py, key, &v)?,
            "io_size" => w.io_size = uint(py, key, &v)?,
            "runtime_ns" => w.runtime_ns = uint(py, key, &v)?,
            "ramp_time_ns" => w.ramp_time_ns = uint(py, key, &v)?,
            "rwmixread" => w.rwmixread = uint(py, key, &v)?,
            "rate_iops" => w.rate_iops = uint(py, key, &v)?,
            "thinktime_ns" => w.thinktime_ns = uint(py, key, &v)?,
            "buffer_compress_percentage" => w.buffer_compress_percentage = uint(py, key, &v)?,
            "seed" => w.seed = uint(py, key, &v)?,
            "interval_ns" => w.interval_ns = uint(py, key, &v)?,
            _ => {
                return Err(workload_error(
                    py,
                    &format!("{key}: unknown workload key; allowed: {KEYS}"),
                    key,
                    &v.repr().map(|r| r.to_string()).unwrap_or_default(),
                ))
            }
        }
    }
    Ok(w)
}

/// A non-negative int (not a bool) that fits `T`.
fn uint<T: TryFrom<u128>>(py: Python<'_>, key: &str, v: &Bound<'_, PyAny>) -> PyResult<T> {
    if v.is_instance_of::<PyBool>() || !v.is_instance_of::<PyInt>() {
        return Err(wrong_type(py, key, v, "an int"));
    }
    let shown = v.str().map(|s| s.to_string()).unwrap_or_default();
    let max = std::mem::size_of::<T>() * 8;
    let out_of_range = || {
        workload_error(
            py,
            &format!("{key}: must be an integer from 0 to 2**{max} - 1 (got {shown})"),
            key,
            &shown,
        )
    };
    // i128 holds every value a u64 field can take and every negative one worth reporting.
    let n: i128 = v.extract().map_err(|_| out_of_range())?;
    let n = u128::try_from(n).map_err(|_| out_of_range())?;
    T::try_from(n).map_err(|_| out_of_range())
}

fn wrong_type(py: Python<'_>, key: &str, v: &Bound<'_, PyAny>, want: &str) -> PyErr {
    let ty = v.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    let shown = v.repr().map(|r| r.to_string()).unwrap_or_default();
    workload_error(py, &format!("{key}: must be {want} (got {ty} {shown})"), key, &shown)
}
