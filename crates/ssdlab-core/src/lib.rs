//! ssdlab-core: a deterministic SSD simulator. No Python here; `ssdlab-py` binds it.
//!
//! The pipeline of one host command, each stage a module that talks only to the next:
//!
//! ```text
//! host (workload jobs, NVMe/AHCI queue)            host/
//!  -> link (PCIe gen x lanes / SATA, per direction)  link/
//!  -> controller (firmware cores, map cache, write buffer)  controller/
//!  -> ftl (page map, allocation, GC) emits flash ops  ftl/
//!  -> nand (die and channel timelines, tR/tPROG/tBERS)  nand/
//! ```
//!
//! Time is integer nanoseconds (`engine::Ns`); randomness comes from named, seeded Xoshiro256++ streams
//! (`engine::stream`); the same config, workload and seed give the same result bit for bit.

#![warn(missing_docs)]

pub mod config;
pub mod controller;
pub mod data;
pub mod drive;
pub mod engine;
mod error;
pub mod ftl;
mod host;
pub mod link;
pub mod nand;
pub mod power;
pub mod stats;

pub use config::{ConfigError, DriveConfig, Problem};
pub use drive::{Drive, PowerCutReport, ReplayOptions, RunResult, Timing};
pub use error::SimError;
pub use host::{
    BlockSizes, Command, Completion, Distribution, ExitWhat, FieldValue, Job, Op, RateProcess, Rw,
    SsCriterion, SsMetric, Status, SteadyReport, TraceError, TraceFormat, TraceReader, TraceRecord, Workload,
    WorkloadError, SECTOR_BYTES,
};
pub use stats::{Counter, Counters, IoLog, Latency, RunStats, Series};

/// The crate version, reported with every result.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
