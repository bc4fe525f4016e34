use crate::config::ConfigError;
use crate::ftl::FtlError;
use crate::host::{TraceError, WorkloadError};

/// Why a run did not finish.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Workload(#[from] WorkloadError),
    #[error(transparent)]
    Ftl(#[from] FtlError),
    /// Every problem found with a run's job specs.
    #[error("{}", .0.iter().map(|e| e.to_string()).collect::<Vec<_>>().join("; "))]
    InvalidWorkload(Vec<WorkloadError>),
    #[error(transparent)]
    Trace(#[from] TraceError),
    #[error("cancelled")]
    Cancelled,
}
