//! Any text as a trace in any format, read by `TraceReader` and replayed on a small drive: every line is
//! a record inside the drive or an error naming its line, and the replay ends with a result or an error,
//! never a panic.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;
use ssdlab_core::{Op, ReplayOptions, Timing, TraceFormat, TraceReader};

#[path = "small_drive.rs"]
mod small_drive;
use small_drive::fresh;
const FORMATS: [TraceFormat; 5] =
    [TraceFormat::Iolog, TraceFormat::Blkparse, TraceFormat::Msr, TraceFormat::Spc, TraceFormat::Csv];

#[derive(Arbitrary, Debug)]
struct Input {
    /// Which format (one past the last: detect it from the first line, as the CLI does).
    format: u8,
    wrap: bool,
    recorded: bool,
    /// Recorded timing's speed, tenths.
    speed: u8,
    iodepth: u8,
    text: String,
}

fuzz_target!(|input: Input| {
    let format = match FORMATS.get(usize::from(input.format % 6)) {
        Some(&f) => f,
        None => match input.text.lines().find(|l| !l.trim().is_empty()).and_then(TraceFormat::detect) {
            Some(f) => f,
            None => return,
        },
    };
    let mut d = fresh();
    let cap = d.capacity_bytes();
    // the reader alone: each record fits the drive in whole pages, each error names a line
    let mut lines = 0;
    let mut last_ns = 0;
    for rec in TraceReader::new(input.text.as_bytes(), format, cap, input.wrap) {
        if let Ok(r) = &rec {
            last_ns = last_ns.max(r.at_ns.unwrap_or(0));
        }
        match rec {
            Ok(r) if r.cmd.op == Op::Flush => assert_eq!((r.cmd.offset, r.cmd.len), (0, 0)),
            Ok(r) => {
                let c = r.cmd;
                assert!(c.len > 0 && c.offset % 512 == 0 && c.len % 512 == 0, "{r:?}");
                assert!(c.offset.checked_add(c.len).is_some_and(|end| end <= cap), "{r:?} beyond {cap}");
            }
            Err(e) => assert!(e.line > lines && !e.message.is_empty(), "{e:?}"),
        }
        lines += 1;
    }
    // and replayed: a result, or the first bad record's error. At recorded times only when they span at
    // most a simulated hour: a replay's wall time grows with the simulated time it spans, idle or not
    // (the power meter steps every 10 ms; docs/fuzzing.md), and a timestamp can be anything.
    let speed = f64::from(input.speed.max(1)) / 10.0;
    let recorded = input.recorded && (last_ns as f64) / speed <= 3.6e12;
    let opts = ReplayOptions {
        timing: if recorded { Timing::Recorded } else { Timing::AsFastAsPossible },
        speed,
        iodepth: u32::from(input.iodepth),
        ..ReplayOptions::default()
    };
    let mut reader = TraceReader::new(input.text.as_bytes(), format, cap, input.wrap);
    let _ = d.replay(&mut reader, &opts, &mut || true);
});
