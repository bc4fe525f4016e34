//! A workload in fio's vocabulary: what one `Drive::run` does.

use crate::engine::Ns;
use std::fmt;
use std::str::FromStr;

/// fio's `rw`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rw {
    Read,
    Write,
    RandRead,
    RandWrite,
    /// Sequential mixed (fio `rw`/`readwrite`), split by `rwmixread`.
    ReadWrite,
    /// Random mixed, split by `rwmixread`.
    RandRw,
    Trim,
    RandTrim,
}

impl Rw {
    pub const NAMES: &'static str = "read, write, randread, randwrite, rw, randrw, trim, randtrim";

    pub fn is_random(self) -> bool {
        matches!(self, Rw::RandRead | Rw::RandWrite | Rw::RandRw | Rw::RandTrim)
    }

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
    pub fn new(field: &str, message: &str, value: impl fmt::Display) -> Self {
        WorkloadError { field: field.into(), message: message.into(), value: value.to_string() }
    }
}

impl fmt::Display for WorkloadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {} (got {})", self.field, self.message, self.value)
    }
}

/// Most IOs a workload may keep outstanding, iodepth x numjobs: NVMe's largest queue (65536 entries).
pub const MAX_OUTSTANDING: u64 = 65_536;

const SECONDS_PER_YEAR: f64 = 365.0 * 86_400.0;

/// Longest runtime, ramp time, thinktime or interval, and longest run without a runtime: 10 years of
/// simulated time, far from the end of the 64-bit nanosecond clock (584 years) so that sums of them cannot
/// overflow it.
pub const MAX_TIME_NS: Ns = 10 * 365 * 86_400 * 1_000_000_000;

/// One workload phase. Sizes are bytes, times are simulated nanoseconds.
///
/// As in fio: `size` is the region (from `offset`) the job works on and, unless `time_based`, also how much
/// it moves; `io_size` overrides the amount; `runtime_ns` caps the time. Every job (`numjobs`) keeps
/// `iodepth` IOs outstanding, or issues `rate_iops` IOs per second if that is set.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    pub rw: Rw,
    pub bs: u64,
    pub iodepth: u32,
    pub numjobs: u32,
    pub offset: u64,
    /// 0 = from `offset` to the end of the drive.
    pub size: u64,
    /// 0 = `size` (or unlimited when `time_based`).
    pub io_size: u64,
    /// 0 = no time limit.
    pub runtime_ns: Ns,
    pub time_based: bool,
    pub ramp_time_ns: Ns,
    /// Share of reads in mixed workloads, percent.
    pub rwmixread: u32,
    /// Per job; 0 = as fast as the queue allows.
    pub rate_iops: u64,
    /// Pause before each new IO of a slot.
    pub thinktime_ns: Ns,
    /// Carried for the compression model (percent of each buffer that compresses away).
    pub buffer_compress_percentage: u32,
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
        let outstanding = u64::from(self.iodepth) * u64::from(self.numjobs);
        if outstanding > MAX_OUTSTANDING {
            return Err(WorkloadError::new(
                "iodepth",
                &format!("iodepth x numjobs must be at most {MAX_OUTSTANDING} IOs outstanding (NVMe's largest queue)"),
                format!("{} x {} = {outstanding}", self.iodepth, self.numjobs),
            ));
        }
        if !self.offset.is_multiple_of(4096) || self.offset >= capacity {
            return err(
                "offset",
                &format!("must be a multiple of 4 KiB below the capacity ({capacity} bytes)"),
                self.offset,
            );
        }
        let span = self.span(capacity);
        // checked: offset and size come from the user and may each be near 2^64
        if self.offset.checked_add(span).is_none_or(|end| end > capacity) {
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
        for (field, ns) in [
            ("runtime", self.runtime_ns),
            ("ramp_time", self.ramp_time_ns),
            ("thinktime", self.thinktime_ns),
            ("interval", self.interval_ns),
        ] {
            if ns > MAX_TIME_NS {
                return err(field, "must be at most 10 years of simulated time (315360000000000000 ns)", ns);
            }
        }
        // Without a runtime the run lasts until every byte has moved: with a long thinktime or a low rate
        // that could pass the end of the drive's 64-bit clock. Refuse what cannot fit the time limit.
        if self.runtime_ns == 0 {
            let ios_per_job = u128::from(self.io_limit(capacity).div_ceil(self.bs));
            let thinking = ios_per_job.div_ceil(u128::from(self.iodepth)) * u128::from(self.thinktime_ns);
            let paced = match self.rate_iops {
                0 => 0,
                r => ios_per_job * 1_000_000_000 / u128::from(r),
            };
            let (field, least) =
                if thinking >= paced { ("thinktime", thinking) } else { ("rate_iops", paced) };
            if least > u128::from(MAX_TIME_NS) {
                let ns = if field == "thinktime" { self.thinktime_ns } else { self.rate_iops };
                return err(
                    field,
                    &format!(
                        "the run would last at least {:.3e} years of simulated time ({ios_per_job} IOs per \
                         job), more than the 10 allowed; set a runtime, or a smaller size or io_size",
                        least as f64 / 1e9 / SECONDS_PER_YEAR
                    ),
                    ns,
                );
            }
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

#[cfg(test)]
mod tests {
    use super::*;

    const CAP: u64 = 16 << 30;

    fn field_of(w: &Workload) -> Option<String> {
        w.validate(CAP).err().map(|e| e.field)
    }

    #[test]
    fn offset_plus_size_past_2_to_the_64_is_an_error_not_a_wrap() {
        let w = Workload { offset: 4096, size: u64::MAX - 4095, ..Workload::default() };
        assert_eq!(field_of(&w).as_deref(), Some("size"));
        let w = Workload { offset: 4096, size: CAP - 4096, ..Workload::default() };
        assert_eq!(field_of(&w), None);
    }

    #[test]
    fn outstanding_ios_are_bounded_by_iodepth_times_numjobs() {
        let w = Workload { iodepth: 65_536, numjobs: 4096, ..Workload::default() };
        let e = w.validate(CAP).unwrap_err();
        assert_eq!(e.field, "iodepth");
        assert!(e.message.contains("iodepth x numjobs") && e.message.contains("65536"), "{e}");
        assert_eq!(e.value, "65536 x 4096 = 268435456");
        let w = Workload { iodepth: 32, numjobs: 2048, ..Workload::default() };
        assert_eq!(field_of(&w), None);
        let w = Workload { iodepth: 32, numjobs: 2049, ..Workload::default() };
        assert_eq!(field_of(&w).as_deref(), Some("iodepth"));
    }

    #[test]
    fn times_past_ten_years_are_errors() {
        let year = 365 * 86_400 * 1_000_000_000;
        for (field, w) in [
            ("runtime", Workload { runtime_ns: 11 * year, ..Workload::default() }),
            ("ramp_time", Workload { ramp_time_ns: u64::MAX, ..Workload::default() }),
            ("thinktime", Workload { thinktime_ns: 11 * year, runtime_ns: 1, ..Workload::default() }),
            ("interval", Workload { interval_ns: u64::MAX, ..Workload::default() }),
        ] {
            assert_eq!(field_of(&w).as_deref(), Some(field));
        }
    }

    #[test]
    fn a_run_without_runtime_that_cannot_end_in_time_is_an_error() {
        let hour = 3_600 * 1_000_000_000;
        // 4 Mi IOs one hour apart: 478 years
        let w = Workload { thinktime_ns: hour, ..Workload::default() };
        let e = w.validate(CAP).unwrap_err();
        assert_eq!(e.field, "thinktime");
        assert!(e.message.contains("set a runtime"), "{e}");
        // with a runtime the run stops in time
        assert_eq!(field_of(&Workload { thinktime_ns: hour, runtime_ns: hour, ..Workload::default() }), None);
        // or with few enough IOs
        assert_eq!(field_of(&Workload { thinktime_ns: hour, size: 1 << 20, ..Workload::default() }), None);
        // a low rate: 4 Mi IOs at 1 IOPS is 48 days, fine; at 1 IOPS over 1 TiB of 4k it is not
        assert_eq!(field_of(&Workload { rate_iops: 1, ..Workload::default() }), None);
        let e = Workload { rate_iops: 1, ..Workload::default() }.validate(1 << 50).unwrap_err();
        assert_eq!(e.field, "rate_iops");
    }
}
