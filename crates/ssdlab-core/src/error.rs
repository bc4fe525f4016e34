use crate::config::ConfigError;
use crate::ftl::FtlError;
use crate::host::{TraceError, WorkloadError};

/// Why a run did not finish.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    /// The drive config is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The workload is invalid.
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    /// The FTL could not go on (the drive ran out of space).
    #[error(transparent)]
    Ftl(#[from] FtlError),
    /// Every problem found with a run's job specs.
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))]
    InvalidWorkload(Vec<WorkloadError>),
    #[error(transparent)]
    /// A trace line that cannot be replayed.
    Trace(#[from] TraceError),
    /// The progress callback asked to stop.
    #[error("cancelled")]
    Cancelled,
}
