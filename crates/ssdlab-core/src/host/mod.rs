//! The host: workloads (fio's vocabulary), the jobs that issue them, and the NVMe/AHCI queue in front of
//! the device.

mod command;
mod job;
mod offsets;
mod queue;
mod steadystate;
mod trace;
mod workload;

pub use command::{Command, Completion, Op, Status, SECTOR_BYTES};
pub use job::Job;
pub use offsets::{BlockSizes, Distribution};
pub use queue::DeviceQueue;
pub use steadystate::{SsCriterion, SsMetric, SteadyReport, SteadyTracker};
pub use trace::{TraceError, TraceFormat, TraceReader, TraceRecord};
pub(crate) use workload::size_text;
pub use workload::{ExitWhat, FieldValue, RateProcess, Rw, Workload, WorkloadError};
