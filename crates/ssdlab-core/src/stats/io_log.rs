//! One row per measured IO, for what a histogram cannot give: fio's per-IO latency logs (`write_lat_log`
//! without `log_avg_msec`) and a trace study's own analysis of each request.

use crate::engine::Ns;
use crate::host::{Completion, Op};

/// The IOs a run measured, in completion order, as columns (opt in: [`crate::Workload::log_ios`],
/// [`crate::ReplayOptions::log_ios`]; ~33 bytes an IO).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct IoLog {
    /// When the host submitted each IO (simulated ns since the drive was made).
    pub submit_ns: Vec<Ns>,
    /// When the host saw it complete.
    pub complete_ns: Vec<Ns>,
    /// What it was.
    pub op: Vec<Op>,
    /// Its first byte.
    pub offset: Vec<u64>,
    /// Its length in bytes.
    pub len: Vec<u64>,
}

impl IoLog {
    /// Add `c` as the next row.
    #[inline]
    pub fn push(&mut self, c: &Completion) {
        self.submit_ns.push(c.submit_ns);
        self.complete_ns.push(c.complete_ns);
        self.op.push(c.op);
        self.offset.push(c.offset);
        self.len.push(c.len);
    }

    /// IOs logged.
    pub fn len(&self) -> usize {
        self.op.len()
    }

    /// True when nothing was logged.
    pub fn is_empty(&self) -> bool {
        self.op.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::host::Status;

    #[test]
    fn a_row_keeps_what_the_completion_said() {
        let mut log = IoLog::default();
        let c = Completion {
            id: 7,
            tag: 0,
            op: Op::Write,
            offset: 8192,
            len: 4096,
            submit_ns: 100,
            complete_ns: 350,
            status: Status::Success,
        };
        log.push(&c);
        assert_eq!(log.len(), 1);
        assert_eq!(
            (log.submit_ns[0], log.complete_ns[0], log.op[0], log.offset[0], log.len[0]),
            (100, 350, Op::Write, 8192, 4096)
        );
    }
}
