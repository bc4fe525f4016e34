//! Arbitrary workload fields (by name, of any type) validated and run on a small drive: every problem is
//! an error naming a field, and a workload that passes runs (for a bounded while) without a panic.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use ssdlab_core::{FieldValue, SimError, Workload};

#[path = "small_drive.rs"]
mod small_drive;
use small_drive::fresh;

#[derive(Arbitrary, Debug)]
enum Value {
    Int(i128),
    /// A small number: the valid ranges are mostly small.
    Small(u16),
    /// A multiple of 4 KiB: block sizes, offsets, sizes.
    Pages(u32),
    Bool(bool),
    Str(String),
}

#[derive(Arbitrary, Debug)]
struct Field {
    /// A field from `Workload::KEYS` by index, or (past the end) `name`.
    key: u8,
    name: String,
    value: Value,
}

fuzz_target!(|fields: Vec<Field>| {
    let pairs: Vec<(String, FieldValue)> = fields
        .into_iter()
        .take(12)
        .map(|f| {
            let key = Workload::KEYS.get(usize::from(f.key)).map_or(f.name, |k| k.to_string());
            let value = match f.value {
                Value::Int(n) => FieldValue::Int(n),
                Value::Small(n) => FieldValue::Int(i128::from(n)),
                Value::Pages(n) => FieldValue::Int(i128::from(n) * 4096),
                Value::Bool(b) => FieldValue::Bool(b),
                Value::Str(s) => FieldValue::Str(s),
            };
            (key, value)
        })
        .collect();
    // an unknown field is named as given, so an empty name is named as ""
    let empty_name = pairs.iter().any(|(k, _)| k.is_empty());
    let mut w = match Workload::from_fields(pairs) {
        Ok(w) => w,
        Err(problems) => {
            assert!(!problems.is_empty());
            for p in problems {
                assert!((empty_name || !p.field.is_empty()) && !p.message.is_empty(), "{p:?}");
            }
            return;
        }
    };
    let mut d = fresh();
    // A workload that passes is run shrunk, so that a long one costs the fuzzer no more than a short one:
    // at most 64 of its largest blocks a job, at most a simulated second of delay, ramp and runtime, a
    // millisecond of think time (it comes after every IO: 64 blocks of a 34 MB bs_write sized a run of
    // 4 KiB reads a second apart, and up to the progress call below that was 18 simulated hours the power
    // meter stepped through every 10 ms, over the 30 s timeout under the sanitizer) and no slower pacing
    // than 1,000 IOs or 1 MB a second (a run's wall time grows with the simulated time it spans), cut short
    // at its first progress call (65,536 events). Smaller amounts and shorter times only loosen the checks.
    if w.validate(d.capacity_bytes()).is_ok() {
        const SEC: u64 = 1_000_000_000;
        if !w.time_based {
            w.io_size = w.io_limit(d.capacity_bytes()).min(64 * w.max_bs());
            w.loops = 1;
        }
        for t in [&mut w.startdelay_ns, &mut w.ramp_time_ns, &mut w.runtime_ns] {
            *t = (*t).min(SEC);
        }
        w.thinktime_ns = w.thinktime_ns.min(SEC / 1000);
        if w.rate_iops > 0 {
            w.rate_iops = w.rate_iops.max(1_000);
        }
        if w.rate_bps > 0 {
            w.rate_bps = w.rate_bps.max(1_000_000);
        }
        assert!(w.validate(d.capacity_bytes()).is_ok(), "shrinking made it invalid: {w:?}");
    }
    match d.run(&w, &mut |_| false) {
        Ok(_) | Err(SimError::Cancelled) => {}
        Err(SimError::InvalidWorkload(problems)) => {
            assert!(!problems.is_empty());
            assert!(w.validate(d.capacity_bytes()).is_err(), "the run refused what validate passed");
            for p in problems {
                assert!(!p.field.is_empty() && !p.message.is_empty(), "{p:?}");
            }
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
