//! A workload in fio's vocabulary: what one `Drive::run` does.

use crate::engine::Ns;
use std::fmt;
use std::str::FromStr;

/// fio's `rw`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rw {
    /// Sequential reads.
    Read,
    /// Sequential writes.
    Write,
    /// Random reads.
    RandRead,
    /// Random writes.
    RandWrite,
    /// Sequential mixed (fio `rw`/`readwrite`), split by `rwmixread`.
    ReadWrite,
    /// Random mixed, split by `rwmixread`.
    RandRw,
    /// Sequential TRIM (deallocate).
    Trim,
    /// Random TRIM.
    RandTrim,
}

impl Rw {
    /// Every name [`Rw::name`] gives, for error messages.
    pub const NAMES: &'static str = "read, write, randread, randwrite, rw, randrw, trim, randtrim";

    /// Whether offsets are drawn at random (else sequential).
    pub fn is_random(self) -> bool {
        matches!(self, Rw::RandRead | Rw::RandWrite | Rw::RandRw | Rw::RandTrim)
    }

    /// fio's name for it.
    pub fn name(self) -> &'static str {
        match self {
            Rw::Read => "read",
            Rw::Write => "write",
            Rw::RandRead => "randread",
            Rw::RandWrite => "randwrite",
            Rw::ReadWrite => "rw",
            Rw::RandRw => "randrw",
            Rw::Trim => "trim",
            Rw::RandTrim => "randtrim",
        }
    }
}

impl FromStr for Rw {
    type Err = WorkloadError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "read" => Rw::Read,
            "write" => Rw::Write,
            "randread" => Rw::RandRead,
            "randwrite" => Rw::RandWrite,
            "rw" | "readwrite" => Rw::ReadWrite,
            "randrw" => Rw::RandRw,
            "trim" => Rw::Trim,
            "randtrim" => Rw::RandTrim,
            _ => return Err(WorkloadError::new("rw", &format!("must be one of {}", Rw::NAMES), s)),
        })
    }
}

/// A workload parameter that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct WorkloadError {
    /// fio's name of the option.
    pub field: String,
    /// What is allowed.
    pub message: String,
    /// The value given.
    pub value: String,
}

impl WorkloadError {
    /// A problem with `field`: `message` says what is allowed, `value` is what was given.
    pub fn new(field: &str, message: &str, value: impl fmt::Display) -> Self {
        WorkloadError { field: field.into(), message: message.into(), value: value.to_string() }
    }
}

impl fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} (got {})", self.field, self.message, self.value)
    }
}

/// One workload phase. Sizes are bytes, times are simulated nanoseconds.
///
/// As in fio: `size` is the region (from `offset`) the job works on and, unless `time_based`, also how much
/// it moves; `io_size` overrides the amount; `runtime_ns` caps the time. Every job (`numjobs`) keeps
/// `iodepth` IOs outstanding, or issues `rate_iops` IOs per second if that is set.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    /// Read, write, trim, sequential or random, or a mix.
    pub rw: Rw,
    /// Block size of each IO, bytes.
    pub bs: u64,
    /// IOs each job keeps outstanding.
    pub iodepth: u32,
    /// Identical jobs running at once.
    pub numjobs: u32,
    /// Start of the region the jobs work on, bytes.
    pub offset: u64,
    /// 0 = from `offset` to the end of the drive.
    pub size: u64,
    /// 0 = `size` (or unlimited when `time_based`).
    pub io_size: u64,
    /// 0 = no time limit.
    pub runtime_ns: Ns,
    /// Run for `runtime_ns` even if `size` has been covered (wrapping around).
    pub time_based: bool,
    /// Time at the start not measured.
    pub ramp_time_ns: Ns,
    /// Share of reads in mixed workloads, percent.
    pub rwmixread: u32,
    /// Per job; 0 = as fast as the queue allows.
    pub rate_iops: u64,
    /// Pause before each new IO of a slot.
    pub thinktime_ns: Ns,
    /// Carried for the compression model (percent of each buffer that compresses away).
    pub buffer_compress_percentage: u32,
    /// Seed of the jobs' random streams (offsets, read/write mix).
    pub seed: u64,
    /// Width of the per-interval series.
    pub interval_ns: Ns,
}

impl Default for Workload {
    fn default() -> Self {
        Workload {
            rw: Rw::RandRead,
            bs: 4096,
            iodepth: 1,
            numjobs: 1,
            offset: 0,
            size: 0,
            io_size: 0,
            runtime_ns: 0,
            time_based: false,
            ramp_time_ns: 0,
            rwmixread: 50,
            rate_iops: 0,
            thinktime_ns: 0,
            buffer_compress_percentage: 0,
            seed: 1,
            interval_ns: 100_000_000,
        }
    }
}

impl Workload {
    /// Check the workload against a drive of `capacity` bytes.
    pub fn validate(&self, capacity: u64) -> Result<(), WorkloadError> {
        let err = |f: &str, m: &str, v: u64| Err(WorkloadError::new(f, m, v));
        if self.bs < 4096 || !self.bs.is_multiple_of(4096) || self.bs > 64 << 20 {
            return err("bs", "must be a multiple of 4 KiB from 4k to 64m", self.bs);
        }
        if !(1..=65_536).contains(&self.iodepth) {
            return err("iodepth", "must be 1..=65536", self.iodepth.into());
        }
        if !(1..=4096).contains(&self.numjobs) {
            return err("numjobs", "must be 1..=4096", self.numjobs.into());
        }
        if !self.offset.is_multiple_of(4096) || self.offset >= capacity {
            return err(
                "offset",
                &format!("must be a multiple of 4 KiB below the capacity ({capacity} bytes)"),
                self.offset,
            );
        }
        let span = self.span(capacity);
        if self.offset + span > capacity {
            return err("size", &format!("offset + size must fit the drive ({capacity} bytes)"), self.size);
        }
        if span < self.bs {
            return err("size", &format!("must be at least one block (bs = {})", self.bs), span);
        }
        if self.time_based && self.runtime_ns == 0 {
            return err("runtime", "time_based needs a runtime above 0", 0);
        }
        if self.rwmixread > 100 {
            return err("rwmixread", "must be 0..=100", self.rwmixread.into());
        }
        if self.buffer_compress_percentage > 100 {
            return err(
                "buffer_compress_percentage",
                "must be 0..=100",
                self.buffer_compress_percentage.into(),
            );
        }
        if self.rate_iops > 100_000_000 {
            return err("rate_iops", "must be 0 (unlimited) ..= 100000000", self.rate_iops);
        }
        if self.interval_ns < 1_000 {
            return err("interval", "must be at least 1 us", self.interval_ns);
        }
        Ok(())
    }

    /// Bytes of the region the workload addresses.
    pub fn span(&self, capacity: u64) -> u64 {
        if self.size == 0 {
            capacity.saturating_sub(self.offset)
        } else {
            self.size
        }
    }

    /// Bytes each job moves before it stops (u64::MAX = until runtime).
    pub fn io_limit(&self, capacity: u64) -> u64 {
        match (self.io_size, self.time_based) {
            (0, true) => u64::MAX,
            (0, false) => self.span(capacity),
            (n, _) => n,
        }
    }
}
