//! A workload in fio's vocabulary: what one `Drive::run` does.

use super::command::SECTOR_BYTES;
use super::offsets::{BlockSizes, Distribution};
use super::steadystate::SsCriterion;
use crate::engine::{Ns, NS_PER_S, NS_PER_US};
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
    /// fio's `trimwrite`: each block trimmed, then written (sequential).
    TrimWrite,
    /// fio's `randtrimwrite`: each block trimmed, then written, at random offsets.
    RandTrimWrite,
}

impl Rw {
    /// Every name [`Rw::name`] gives, for error messages.
    pub const NAMES: &'static str =
        "read, write, randread, randwrite, rw, randrw, trim, randtrim, trimwrite, randtrimwrite";

    /// Whether offsets are drawn at random (else sequential).
    pub fn is_random(self) -> bool {
        matches!(self, Rw::RandRead | Rw::RandWrite | Rw::RandRw | Rw::RandTrim | Rw::RandTrimWrite)
    }

    /// fio's `trimwrite` or `randtrimwrite`: each block trimmed, then written.
    pub fn trims_then_writes(self) -> bool {
        matches!(self, Rw::TrimWrite | Rw::RandTrimWrite)
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
            Rw::TrimWrite => "trimwrite",
            Rw::RandTrimWrite => "randtrimwrite",
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
            "trimwrite" => Rw::TrimWrite,
            "randtrimwrite" => Rw::RandTrimWrite,
            _ => {
                let names: Vec<&str> = Rw::NAMES.split(", ").collect();
                let hint = crate::error::did_you_mean(s, &names);
                return Err(WorkloadError::new("rw", &format!("must be one of {}{hint}", Rw::NAMES), s));
            }
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

/// A byte count as a message shows it: the number, and the size a user would have typed when it is a
/// whole number of KiB, MiB, GiB or TiB (`3072 = 3k`), so "got 3072" is recognisable as the `3k` typed.
pub(crate) fn size_text(bytes: u64) -> String {
    let unit = [(40, 't'), (30, 'g'), (20, 'm'), (10, 'k')]
        .into_iter()
        .find(|&(shift, _)| bytes >= 1 << shift && bytes.is_multiple_of(1 << shift));
    match unit {
        Some((shift, suffix)) => format!("{bytes} = {}{suffix}", bytes >> shift),
        None => bytes.to_string(),
    }
}

impl WorkloadError {
    /// A problem with `field`: `message` says what is allowed, `value` is what was given.
    pub fn new(field: &str, message: &str, value: impl fmt::Display) -> Self {
        WorkloadError { field: field.into(), message: message.into(), value: value.to_string() }
    }

    /// The same problem, of the field the caller gave `field` to (a writes' own `bssplit_write`).
    pub fn renamed(self, field: &str) -> Self {
        WorkloadError { field: field.into(), ..self }
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

/// A field's value before it is typed: what a binding or a job file hands [`Workload::set`].
#[derive(Clone, Debug, PartialEq)]
pub enum FieldValue {
    /// A whole number.
    Int(i128),
    /// true or false.
    Bool(bool),
    /// Text.
    Str(String),
}

impl fmt::Display for FieldValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldValue::Int(n) => write!(f, "{n}"),
            FieldValue::Bool(b) => write!(f, "{b}"),
            FieldValue::Str(s) => write!(f, "{s:?}"),
        }
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
    /// IOs per second per job in each direction, as fio's single-valued `rate_iops` (reads and writes
    /// each capped at it; `rate_iops_write` overrides writes); 0 = as fast as the queue allows.
    pub rate_iops: u64,
    /// fio's `rate_iops=R,W`: the writes' (and trims') own cap; None = as `rate_iops`, 0 = unlimited.
    pub rate_iops_write: Option<u64>,
    /// Pause before each new IO of a slot.
    pub thinktime_ns: Ns,
    /// Carried for the compression model (percent of each buffer that compresses away).
    pub buffer_compress_percentage: u32,
    /// Seed of the jobs' random streams (offsets, read/write mix).
    pub seed: u64,
    /// Width of the per-interval series.
    pub interval_ns: Ns,
    /// Block size of writes when it differs from reads (fio's `bs=4k,64k`); 0 = `bs`.
    pub bs_write: u64,
    /// fio's `bssplit` or `bsrange`: the sizes of both directions, in place of `bs`.
    pub block_sizes: Option<BlockSizes>,
    /// The writes' own `bssplit` or `bsrange` (fio's `read,write` form), in place of `block_sizes` for them.
    pub block_sizes_write: Option<BlockSizes>,
    /// Random offsets are multiples of this (fio's `blockalign`); 0 = the smallest block size.
    pub blockalign: u64,
    /// How random offsets spread over the region (fio's `random_distribution`).
    pub random_distribution: Distribution,
    /// Percent of a random workload's IOs at a random offset; the rest follow the previous IO.
    pub percentage_random: u32,
    /// Bytes skipped after each sequential IO (fio's `rw=write:N`); negative steps back (`rw=read:-8k`
    /// with 4 KiB IOs reads backwards, wrapping from the start to the end of the region).
    pub seq_skip: i64,
    /// Job k's region starts `k x offset_increment` after `offset`.
    pub offset_increment: u64,
    /// Each job starts this long after the run.
    pub startdelay_ns: Ns,
    /// Bytes per second per job in each direction (fio's single-valued `rate`); 0 = unlimited.
    pub rate_bps: u64,
    /// fio's `rate=R,W`: the writes' (and trims') own cap; None = as `rate_bps`, 0 = unlimited.
    pub rate_bps_write: Option<u64>,
    /// How rated IO is spaced (fio's `rate_process`): evenly, or as a Poisson process (exponential gaps
    /// with the rate's mean, drawn from the job's own seeded stream).
    pub rate_process: RateProcess,
    /// IOs issued between think times (fio's `thinktime_blocks`).
    pub thinktime_blocks: u32,
    /// A flush after every this many writes (fio's `fsync`/`fdatasync`); 0 = never.
    pub fsync: u32,
    /// Writes with FUA (fio's `sync=1` on a block device: O_SYNC).
    pub sync: bool,
    /// Passes over the region when not `time_based` (fio's `loops`).
    pub loops: u32,
    /// fio's random map (its default; `norandommap` turns it off): a uniformly random job visits each
    /// block of its region once a pass, in a random order, instead of drawing blocks with replacement
    /// (which leaves ~37% of them untouched after one region's worth of IO); with mixed sizes an IO is
    /// cut short where it meets a block already touched, as in fio.
    pub randommap: bool,
    /// fio's `verify` (with `do_verify`): after each pass of a write job's writes, once they have all
    /// completed, the pass's bytes are read back in offset order (counted as the job's reads). Not with
    /// `time_based` (fio's runtime ends the job before any verify phase).
    pub verify: bool,
    /// fio's `number_ios`: each job stops after this many reads, writes and trims per pass (flushes not
    /// counted), if its size or io_size does not stop it first; ignored when `time_based`, as in fio.
    /// 0 = no limit.
    pub number_ios: u64,
    /// fio's `steadystate`: the criterion that stops the job once its window holds still.
    pub steadystate: SsCriterion,
    /// fio's `ss_dur`: the rolling window the criterion is judged over; 0 = no steady-state check.
    pub steadystate_duration_ns: Ns,
    /// fio's `ss_ramp`: time before recording starts.
    pub steadystate_ramp_time_ns: Ns,
    /// fio's `ss_interval`: time between samples (1 s).
    pub steadystate_check_interval_ns: Ns,
    /// Judge every job of the run together (fio's `group_reporting`), not each job on its own.
    pub steadystate_group: bool,
    /// When one of this workload's jobs finishes, the jobs `exit_what` names stop issuing (fio's `exitall`).
    pub exitall: bool,
    /// Which jobs `exitall` stops: those of the same `group` (fio's default), or every job of
    /// the run (`stonewall`, `all`; fio's `all` also cancels the jobs after a stonewall, which the caller of
    /// a run decides).
    pub exit_what: ExitWhat,
    /// fio's reporting group (`new_group`): the jobs `exit_what = group` stops together, and that a caller
    /// may report as one ([`crate::stats::RunStats::absorb`]).
    pub group: u32,
    /// Keep a row for every measured IO of this spec ([`crate::IoLog`], in its result): fio's per-IO
    /// `write_lat_log`.
    pub log_ios: bool,
}

/// fio's `exit_what`: the jobs a finishing `exitall` job stops.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExitWhat {
    /// The jobs of its `group`.
    #[default]
    Group,
    /// Every job running with it.
    Stonewall,
    /// Every job, those not yet started included.
    All,
}

impl ExitWhat {
    /// fio's spelling: `group`, `stonewall` or `all`.
    pub fn parse(s: &str) -> Result<Self, WorkloadError> {
        match s {
            "group" => Ok(ExitWhat::Group),
            "stonewall" => Ok(ExitWhat::Stonewall),
            "all" => Ok(ExitWhat::All),
            _ => Err(WorkloadError::new("exit_what", "must be group, stonewall or all", s)),
        }
    }
}

/// fio's `rate_process`: how the IOs of a rated job are spaced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RateProcess {
    /// Each IO when the bytes (or IOs) issued so far are due at the rate.
    #[default]
    Linear,
    /// Open-loop arrivals: gaps drawn from an exponential distribution whose mean is one IO of the
    /// direction's smallest size at the rate.
    Poisson,
}

impl RateProcess {
    /// fio's spelling: `linear` or `poisson`.
    pub fn parse(s: &str) -> Result<Self, WorkloadError> {
        match s {
            "linear" => Ok(RateProcess::Linear),
            "poisson" => Ok(RateProcess::Poisson),
            _ => Err(WorkloadError::new("rate_process", "must be linear or poisson", s)),
        }
    }
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
            rate_iops_write: None,
            thinktime_ns: 0,
            buffer_compress_percentage: 0,
            seed: 1,
            interval_ns: 100_000_000,
            bs_write: 0,
            block_sizes: None,
            block_sizes_write: None,
            blockalign: 0,
            random_distribution: Distribution::Uniform,
            percentage_random: 100,
            seq_skip: 0,
            offset_increment: 0,
            startdelay_ns: 0,
            rate_bps: 0,
            rate_bps_write: None,
            rate_process: RateProcess::Linear,
            thinktime_blocks: 1,
            fsync: 0,
            sync: false,
            loops: 1,
            number_ios: 0,
            randommap: false,
            verify: false,
            steadystate: SsCriterion::default(),
            steadystate_duration_ns: 0,
            steadystate_ramp_time_ns: 0,
            steadystate_check_interval_ns: NS_PER_S,
            steadystate_group: false,
            exitall: false,
            exit_what: ExitWhat::Group,
            group: 0,
            log_ios: false,
        }
    }
}

impl Workload {
    /// Check the workload against a drive of `capacity` bytes: the first problem, if any (see
    /// [`Workload::problems`] for all of them).
    pub fn validate(&self, capacity: u64) -> Result<(), WorkloadError> {
        self.problems(Some(capacity)).into_iter().next().map_or(Ok(()), Err)
    }

    /// Every problem with the workload, in field order; the checks that need the drive's size only when
    /// `capacity` is given.
    ///
    /// ```
    /// use ssdlab_core::Workload;
    /// let w = Workload { bs: 1000, iodepth: 0, ..Workload::default() };
    /// let fields: Vec<String> = w.problems(None).into_iter().map(|p| p.field).collect();
    /// assert_eq!(fields, ["bs", "iodepth"]);
    /// ```
    pub fn problems(&self, capacity: Option<u64>) -> Vec<WorkloadError> {
        let mut found = Vec::new();
        let mut err = |f: &str, m: &str, v: String| found.push(WorkloadError::new(f, m, v));
        let size_ok = |b: u64| b >= SECTOR_BYTES && b.is_multiple_of(SECTOR_BYTES) && b <= 64 << 20;
        let mut bs_ok = size_ok(self.bs);
        if !bs_ok {
            err("bs", "must be a multiple of 512 B (a sector) from 512 to 64m", size_text(self.bs));
        }
        if self.bs_write != 0 && !size_ok(self.bs_write) {
            bs_ok = false;
            err("bs_write", "must be a multiple of 512 B from 512 to 64m (0 = bs)", size_text(self.bs_write));
        }
        for (sizes, write) in [(&self.block_sizes, ""), (&self.block_sizes_write, "_write")] {
            let Some(sizes) = sizes else { continue };
            let kind = if matches!(sizes, BlockSizes::Range(..)) { "bsrange" } else { "bssplit" };
            if let Some(bad) = sizes.sizes().into_iter().find(|&b| !size_ok(b)) {
                bs_ok = false;
                err(
                    &format!("{kind}{write}"),
                    "sizes must be multiples of 512 B from 512 to 64m",
                    size_text(bad),
                );
            }
        }
        if self.blockalign != 0 && !size_ok(self.blockalign) {
            err(
                "blockalign",
                "must be a multiple of 512 B from 512 to 64m (0 = the block size)",
                size_text(self.blockalign),
            );
        }
        if self.percentage_random > 100 {
            err("percentage_random", "must be from 0 to 100", self.percentage_random.to_string());
        }
        if self.thinktime_blocks == 0 {
            err("thinktime_blocks", "must be at least 1", "0".into());
        }
        if !(1..=1_000_000).contains(&self.loops) {
            err("loops", "must be from 1 to 1000000", self.loops.to_string());
        }
        if !self.seq_skip.unsigned_abs().is_multiple_of(SECTOR_BYTES) {
            err("seq_skip", "must be a multiple of 512 B", self.seq_skip.to_string());
        }
        if !self.offset_increment.is_multiple_of(SECTOR_BYTES) {
            err("offset_increment", "must be a multiple of 512 B", size_text(self.offset_increment));
        }
        if !(1..=65_536).contains(&self.iodepth) {
            err("iodepth", "must be from 1 to 65536", self.iodepth.to_string());
        }
        if !(1..=4096).contains(&self.numjobs) {
            err("numjobs", "must be from 1 to 4096", self.numjobs.to_string());
        }
        let outstanding = u64::from(self.iodepth) * u64::from(self.numjobs);
        if outstanding > MAX_OUTSTANDING {
            err(
                "iodepth",
                &format!("iodepth x numjobs must be at most {MAX_OUTSTANDING} IOs outstanding (NVMe's largest queue)"),
                format!("{} x {} = {outstanding}", self.iodepth, self.numjobs),
            );
        }
        if !self.offset.is_multiple_of(SECTOR_BYTES) {
            err("offset", "must be a multiple of 512 B", size_text(self.offset));
        }
        if let Some(capacity) = capacity {
            let span = self.span(capacity);
            if self.offset >= capacity {
                err(
                    "offset",
                    &format!("must be below the capacity ({capacity} bytes)"),
                    size_text(self.offset),
                );
            } else if self
                .offset
                .checked_add(span)
                .and_then(|e| {
                    e.checked_add(self.offset_increment.checked_mul(u64::from(self.numjobs - 1).min(4095))?)
                })
                .is_none_or(|end| end > capacity)
            {
                // checked: offset and size come from the user and may each be near 2^64
                err(
                    "size",
                    &format!("offset + size must fit the drive ({capacity} bytes)"),
                    size_text(self.size),
                );
            } else if bs_ok && span < self.max_bs() {
                err(
                    "size",
                    &format!("must be at least one block (bs = {})", size_text(self.max_bs())),
                    size_text(span),
                );
            }
        }
        if self.time_based && self.runtime_ns == 0 {
            err("runtime", "time_based needs a runtime above 0", "0".into());
        }
        if self.rwmixread > 100 {
            err("rwmixread", "must be from 0 to 100", self.rwmixread.to_string());
        }
        if self.buffer_compress_percentage > 100 {
            err(
                "buffer_compress_percentage",
                "must be from 0 to 100",
                self.buffer_compress_percentage.to_string(),
            );
        }
        for (field, r) in [("rate_iops", self.rate_iops), ("rate_iops_write", self.write_rates().0)] {
            if r > 100_000_000 {
                err(field, "must be from 0 (unlimited) to 100000000", r.to_string());
            }
        }
        if self.interval_ns < NS_PER_US {
            err("interval", "must be at least 1 us", self.interval_ns.to_string());
        }
        if self.steadystate_duration_ns > 0 {
            let every = self.steadystate_check_interval_ns;
            let least: u64 = if self.steadystate.slope { 2 } else { 1 };
            if every < NS_PER_US {
                err("steadystate_check_interval", "must be at least 1 us", every.to_string());
            } else if self.steadystate_duration_ns / every < least {
                err(
                    "steadystate_duration",
                    &format!("must hold at least {least} check intervals ({every} ns each)"),
                    self.steadystate_duration_ns.to_string(),
                );
            }
        }
        for (field, ns) in [
            ("steadystate_duration", self.steadystate_duration_ns),
            ("steadystate_ramp_time", self.steadystate_ramp_time_ns),
            ("steadystate_check_interval", self.steadystate_check_interval_ns),
            ("runtime", self.runtime_ns),
            ("ramp_time", self.ramp_time_ns),
            ("thinktime", self.thinktime_ns),
            ("interval", self.interval_ns),
            ("startdelay", self.startdelay_ns),
        ] {
            if ns > MAX_TIME_NS {
                err(
                    field,
                    &format!("must be at most 10 years of simulated time ({MAX_TIME_NS} ns)"),
                    ns.to_string(),
                );
            }
        }
        // Without a runtime the run lasts until every byte has moved: with a long thinktime or a low rate
        // that could pass the end of the drive's 64-bit clock. Refuse what cannot fit the time limit.
        if let (Some(capacity), 0, true, 1..) = (capacity, self.runtime_ns, bs_ok, self.iodepth) {
            let ios_per_job = u128::from(self.io_limit(capacity).div_ceil(self.min_bs()));
            let thinking = ios_per_job.div_ceil(u128::from(self.iodepth)) * u128::from(self.thinktime_ns);
            // each direction moves its share of the IOs at its own rate (fio's `rate`: every byte is paced)
            let (reads, writes) = match self.rw {
                Rw::ReadWrite | Rw::RandRw => (u128::from(self.rwmixread), 100 - u128::from(self.rwmixread)),
                Rw::Read | Rw::RandRead => (100, 0),
                _ => (0, 100),
            };
            let bytes = u128::from(self.io_limit(capacity));
            let time =
                |n: u128, r: u64| if r == 0 { 0 } else { n * u128::from(NS_PER_S) / u128::from(r) / 100 };
            let (write_iops, write_bps) = self.write_rates();
            let paced = time(ios_per_job * reads, self.rate_iops).max(time(ios_per_job * writes, write_iops));
            let paced_bytes = time(bytes * reads, self.rate_bps).max(time(bytes * writes, write_bps));
            let (field, least, value) = [
                ("thinktime", thinking, self.thinktime_ns),
                ("rate_iops", paced, self.rate_iops),
                ("rate_bps", paced_bytes, self.rate_bps),
            ]
            .into_iter()
            .fold(("thinktime", 0, self.thinktime_ns), |a, b| if b.1 > a.1 { b } else { a });
            if least > u128::from(MAX_TIME_NS) {
                err(
                    field,
                    &format!(
                        "the run would last at least {:.3e} years of simulated time ({ios_per_job} IOs per \
                         job), more than the 10 allowed; set a runtime, or a smaller size or io_size",
                        least as f64 / 1e9 / SECONDS_PER_YEAR
                    ),
                    value.to_string(),
                );
            }
        }
        found
    }

    /// The workload's field names, as [`Workload::set`] takes them (times in ns, sizes in bytes).
    pub const KEYS: &'static [&'static str] = &[
        "rw",
        "bs",
        "iodepth",
        "numjobs",
        "offset",
        "size",
        "io_size",
        "runtime_ns",
        "time_based",
        "ramp_time_ns",
        "rwmixread",
        "rate_iops",
        "rate_iops_write",
        "thinktime_ns",
        "buffer_compress_percentage",
        "seed",
        "interval_ns",
        "bs_write",
        "bssplit",
        "bsrange",
        "bssplit_write",
        "bsrange_write",
        "blockalign",
        "random_distribution",
        "percentage_random",
        "seq_skip",
        "offset_increment",
        "startdelay_ns",
        "rate_bps",
        "rate_bps_write",
        "rate_process",
        "thinktime_blocks",
        "fsync",
        "sync",
        "loops",
        "number_ios",
        "randommap",
        "verify",
        "steadystate",
        "steadystate_duration_ns",
        "steadystate_ramp_time_ns",
        "steadystate_check_interval_ns",
        "steadystate_group",
        "exitall",
        "exit_what",
        "group",
        "log_ios",
    ];

    /// Set one field by name from a loosely typed value (a binding's dict, a job file): the one place that
    /// maps names to fields. A wrong name, type or integer range is an error naming the field.
    ///
    /// ```
    /// use ssdlab_core::FieldValue;
    /// use ssdlab_core::{Rw, Workload};
    /// let mut w = Workload::default();
    /// w.set("rw", FieldValue::Str("randwrite".into())).unwrap();
    /// w.set("iodepth", FieldValue::Int(32)).unwrap();
    /// assert_eq!((w.rw, w.iodepth), (Rw::RandWrite, 32));
    /// assert_eq!(w.set("iodepht", FieldValue::Int(1)).unwrap_err().field, "iodepht");
    /// let err = w.set("iodepth", FieldValue::Int(-1)).unwrap_err();
    /// assert_eq!((err.field.as_str(), err.message.as_str()), ("iodepth", "must be from 1 to 65536"));
    /// assert_eq!(w.set("rwmixread", FieldValue::Int(-1)).unwrap_err().message, "must be from 0 to 100");
    /// ```
    pub fn set(&mut self, key: &str, value: FieldValue) -> Result<(), WorkloadError> {
        let FieldValue::Int(n) = value else { return self.set_field(key, value) };
        // A whole number that does not fit the field's type: say the range the field allows, not the type's.
        self.set_field(key, FieldValue::Int(n))
            .map_err(|e| Self::allowed_range(key).map_or(e, |m| WorkloadError::new(key, &m, n)))
    }

    /// What [`Workload::problems`] says of `key` at the ends of the integer types, i.e. the range it allows
    /// (None where every value of its type is allowed).
    fn allowed_range(key: &str) -> Option<String> {
        let ends = [0, u8::MAX.into(), u16::MAX.into(), u32::MAX.into(), u64::MAX.into()];
        ends.into_iter().find_map(|end: i128| {
            let mut w = Workload::default();
            w.set_field(key, FieldValue::Int(end)).ok()?;
            w.problems(None).into_iter().find(|p| p.field == key).map(|p| p.message)
        })
    }

    fn set_field(&mut self, key: &str, value: FieldValue) -> Result<(), WorkloadError> {
        fn int<T: TryFrom<i128>>(key: &str, v: &FieldValue) -> Result<T, WorkloadError> {
            let bits = std::mem::size_of::<T>() * 8;
            match v {
                FieldValue::Int(n) => T::try_from(*n).map_err(|_| {
                    WorkloadError::new(key, &format!("must be a whole number from 0 to 2**{bits} - 1"), n)
                }),
                other => Err(WorkloadError::new(key, "must be a whole number", other)),
            }
        }
        match key {
            "rw" => match value {
                FieldValue::Str(s) => self.rw = Rw::from_str(&s)?,
                other => {
                    return Err(WorkloadError::new(key, &format!("must be one of {}", Rw::NAMES), other))
                }
            },
            "time_based" | "sync" | "steadystate_group" | "exitall" | "randommap" | "verify" | "log_ios" => {
                match value {
                    FieldValue::Bool(b) if key == "sync" => self.sync = b,
                    FieldValue::Bool(b) if key == "log_ios" => self.log_ios = b,
                    FieldValue::Bool(b) if key == "randommap" => self.randommap = b,
                    FieldValue::Bool(b) if key == "steadystate_group" => self.steadystate_group = b,
                    FieldValue::Bool(b) if key == "exitall" => self.exitall = b,
                    FieldValue::Bool(b) if key == "verify" => self.verify = b,
                    FieldValue::Bool(b) => self.time_based = b,
                    other => return Err(WorkloadError::new(key, "must be true or false", other)),
                }
            }
            "bssplit" | "bsrange" | "bssplit_write" | "bsrange_write" | "random_distribution" => {
                let FieldValue::Str(text) = value else {
                    return Err(WorkloadError::new(
                        key,
                        "must be text in fio's spelling (sizes in bytes)",
                        value,
                    ));
                };
                if key == "random_distribution" {
                    self.random_distribution = Distribution::parse(&text)?;
                } else {
                    // the writes' own sizes (`_write`) are parsed as both directions' and named as given
                    let sizes = if key.starts_with("bssplit") {
                        BlockSizes::parse_split(&text)
                    } else {
                        BlockSizes::parse_range(&text)
                    };
                    let slot = if key.ends_with("_write") {
                        &mut self.block_sizes_write
                    } else {
                        &mut self.block_sizes
                    };
                    *slot = Some(sizes.map_err(|e| e.renamed(key))?);
                }
            }
            "rate_process" => match value {
                FieldValue::Str(s) => self.rate_process = RateProcess::parse(&s)?,
                other => return Err(WorkloadError::new(key, "must be linear or poisson", other)),
            },
            "exit_what" => match value {
                FieldValue::Str(s) => self.exit_what = ExitWhat::parse(&s)?,
                other => return Err(WorkloadError::new(key, "must be group, stonewall or all", other)),
            },
            "group" => self.group = int(key, &value)?,
            "steadystate" => match value {
                FieldValue::Str(s) => self.steadystate = SsCriterion::parse(&s)?,
                other => return Err(WorkloadError::new(key, SsCriterion::FORMS, other)),
            },
            "steadystate_duration_ns" => self.steadystate_duration_ns = int(key, &value)?,
            "steadystate_ramp_time_ns" => self.steadystate_ramp_time_ns = int(key, &value)?,
            "steadystate_check_interval_ns" => self.steadystate_check_interval_ns = int(key, &value)?,
            "bs_write" => self.bs_write = int(key, &value)?,
            "blockalign" => self.blockalign = int(key, &value)?,
            "percentage_random" => self.percentage_random = int(key, &value)?,
            "seq_skip" => self.seq_skip = int(key, &value)?,
            "offset_increment" => self.offset_increment = int(key, &value)?,
            "startdelay_ns" => self.startdelay_ns = int(key, &value)?,
            "rate_bps" => self.rate_bps = int(key, &value)?,
            "rate_bps_write" => self.rate_bps_write = Some(int(key, &value)?),
            "rate_iops_write" => self.rate_iops_write = Some(int(key, &value)?),
            "thinktime_blocks" => self.thinktime_blocks = int(key, &value)?,
            "fsync" => self.fsync = int(key, &value)?,
            "loops" => self.loops = int(key, &value)?,
            "number_ios" => self.number_ios = int(key, &value)?,
            "bs" => self.bs = int(key, &value)?,
            "iodepth" => self.iodepth = int(key, &value)?,
            "numjobs" => self.numjobs = int(key, &value)?,
            "offset" => self.offset = int(key, &value)?,
            "size" => self.size = int(key, &value)?,
            "io_size" => self.io_size = int(key, &value)?,
            "runtime_ns" => self.runtime_ns = int(key, &value)?,
            "ramp_time_ns" => self.ramp_time_ns = int(key, &value)?,
            "rwmixread" => self.rwmixread = int(key, &value)?,
            "rate_iops" => self.rate_iops = int(key, &value)?,
            "thinktime_ns" => self.thinktime_ns = int(key, &value)?,
            "buffer_compress_percentage" => self.buffer_compress_percentage = int(key, &value)?,
            "seed" => self.seed = int(key, &value)?,
            "interval_ns" => self.interval_ns = int(key, &value)?,
            _ => {
                return Err(WorkloadError::new(
                    key,
                    &format!("unknown workload field; the fields are {}", Self::KEYS.join(", ")),
                    value,
                ))
            }
        }
        Ok(())
    }

    /// A workload from `(name, value)` pairs over the defaults, with every problem found: unknown names,
    /// wrong types, and what [`Workload::problems`] finds without a drive.
    pub fn from_fields(
        fields: impl IntoIterator<Item = (String, FieldValue)>,
    ) -> Result<Workload, Vec<WorkloadError>> {
        let mut w = Workload::default();
        let mut found: Vec<WorkloadError> =
            fields.into_iter().filter_map(|(k, v)| w.set(&k, v).err()).collect();
        // a field that could not be set keeps its default, so it adds no second problem here
        found.extend(w.problems(None));
        if found.is_empty() {
            Ok(w)
        } else {
            Err(found)
        }
    }

    /// The writes' (and trims') rates, IOs and bytes per second: their own (fio's `rate_iops=R,W`), else the
    /// rates every direction takes; 0 = unlimited.
    pub fn write_rates(&self) -> (u64, u64) {
        (self.rate_iops_write.unwrap_or(self.rate_iops), self.rate_bps_write.unwrap_or(self.rate_bps))
    }

    /// Bytes of the region the workload addresses.
    pub fn span(&self, capacity: u64) -> u64 {
        if self.size == 0 {
            capacity.saturating_sub(self.offset)
        } else {
            self.size
        }
    }

    /// Bytes each job moves before it stops (u64::MAX = until runtime), `loops` passes included.
    pub fn io_limit(&self, capacity: u64) -> u64 {
        match (self.io_size, self.time_based) {
            (0, true) => u64::MAX,
            (0, false) => self.span(capacity).saturating_mul(u64::from(self.loops)),
            (n, true) => n,
            (n, false) => n.saturating_mul(u64::from(self.loops)),
        }
    }

    /// IOs each job issues before it stops (fio's `number_ios` x `loops`; u64::MAX = no such limit).
    pub fn ios_limit(&self) -> u64 {
        match (self.number_ios, self.time_based) {
            (0, _) | (_, true) => u64::MAX,
            (n, false) => n.saturating_mul(u64::from(self.loops)),
        }
    }

    /// Block sizes of reads (`write = false`) or writes.
    pub fn sizes(&self, write: bool) -> BlockSizes {
        if let (true, Some(s)) = (write, &self.block_sizes_write) {
            return s.clone();
        }
        match (&self.block_sizes, write && self.bs_write != 0) {
            (Some(s), _) => s.clone(),
            (None, true) => BlockSizes::Fixed(self.bs_write),
            (None, false) => BlockSizes::Fixed(self.bs),
        }
    }

    /// The largest block either direction moves.
    pub fn max_bs(&self) -> u64 {
        self.sizes(false).max().max(self.sizes(true).max())
    }

    /// The smallest block either direction moves.
    pub fn min_bs(&self) -> u64 {
        self.sizes(false).min().min(self.sizes(true).min()).max(1)
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
    fn a_size_in_a_message_shows_the_size_typed() {
        assert_eq!(size_text(3072), "3072 = 3k");
        assert_eq!(size_text(10 << 40), "10995116277760 = 10t");
        assert_eq!(size_text(64 << 20), "67108864 = 64m");
        assert_eq!(size_text(1000), "1000");
        assert_eq!(size_text(0), "0");
        let w = Workload { bs: 3 << 20 | 100, ..Workload::default() };
        assert_eq!(w.validate(CAP).unwrap_err().value, "3145828");
        let w = Workload { bs: 65 << 20, ..Workload::default() };
        assert_eq!(w.validate(CAP).unwrap_err().value, "68157440 = 65m");
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
        // fio's rate in bytes per second too (the `workload` fuzz target's slow input, 7 B/s, showed it
        // unchecked: 16 GiB at 7 B/s is 78 years, and 64 MiB blocks at 1 B/s take a job's next issue
        // time past the end of the 64-bit clock after 275 IOs)
        let e = Workload { rate_bps: 7, ..Workload::default() }.validate(CAP).unwrap_err();
        assert_eq!((e.field.as_str(), e.value.as_str()), ("rate_bps", "7"));
        assert_eq!(field_of(&Workload { rate_bps: 7, runtime_ns: hour, ..Workload::default() }), None);
        assert_eq!(field_of(&Workload { rate_bps: 1 << 20, ..Workload::default() }), None);
    }
}
