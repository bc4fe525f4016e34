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

/// `" (did you mean X, Y?)"`: the `names` nearest to the unknown `name` (the nearest and any one edit
/// further, at most 3 single-character edits away, nearest first), or "" when none is that near.
pub(crate) fn did_you_mean(name: &str, names: &[&str]) -> String {
    let mut near: Vec<(usize, &str)> = names.iter().map(|n| (edit_distance(n, name), *n)).collect();
    near.sort();
    let Some(&(best, _)) = near.first().filter(|(d, _)| *d <= 3) else { return String::new() };
    let shown: Vec<&str> =
        near.iter().take_while(|(d, _)| *d <= (best + 1).min(3)).take(3).map(|p| p.1).collect();
    format!(" (did you mean {}?)", shown.join(", "))
}

/// Levenshtein distance: the single-character edits that turn `a` into `b`.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diag = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let next = (diag + usize::from(ca != cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn a_typo_gets_the_nearest_name_and_a_stranger_nothing() {
        assert_eq!(
            did_you_mean("randrd", &["read", "randread", "randrw"]),
            " (did you mean randrw, randread?)"
        );
        assert_eq!(did_you_mean("tRR_us", &["tR_us", "tPROG_us"]), " (did you mean tR_us?)");
        assert_eq!(did_you_mean("sideways", &["read", "randread"]), "");
    }
}
