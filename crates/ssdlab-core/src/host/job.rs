//! One fio job: where its next IO goes, and whether it is done.

use super::command::{Command, Op};
use super::workload::{Rw, Workload};
use crate::engine::{stream, Ns, Rng, NS_PER_S};
use rand::RngExt;

#[derive(Clone, Debug)]
/// One fio job of a run: the IOs it issues next (from its own random stream) and its queue.
pub struct Job {
    rng: Rng,
    rw: Rw,
    bs: u64,
    base: u64,
    blocks: u64,
    next_block: u64,
    rwmixread: u32,
    compress_pct: u32,
    io_limit: u64,
    issued: u64,
    /// IOs submitted and not yet complete.
    pub outstanding: u32,
    /// Most IOs outstanding at once.
    pub iodepth: u32,
    /// Earliest time of the next IO when rate-limited.
    pub next_issue: Ns,
    /// Time between IOs when rate-limited (0 = not).
    pub issue_interval: Ns,
    /// A wake-up is already queued.
    pub issue_pending: bool,
    /// The job has issued everything it will.
    pub done: bool,
}

impl Job {
    /// Job `index` of a run (its random stream is `stream(w.seed, index)`), starting at `start`.
    pub fn new(w: &Workload, index: u32, capacity: u64, start: Ns) -> Self {
        Job {
            rng: stream(w.seed, u64::from(index)),
            rw: w.rw,
            bs: w.bs,
            base: w.offset,
            blocks: w.span(capacity) / w.bs,
            next_block: 0,
            rwmixread: w.rwmixread,
            compress_pct: w.buffer_compress_percentage,
            // as fio: a job moves whole blocks (size is rounded down to a multiple of bs)
            io_limit: (w.io_limit(capacity) / w.bs).max(1).saturating_mul(w.bs),
            issued: 0,
            outstanding: 0,
            iodepth: w.iodepth,
            next_issue: start,
            issue_interval: NS_PER_S.checked_div(w.rate_iops).unwrap_or(0),
            issue_pending: false,
            done: false,
        }
    }

    /// The next IO; marks the job done once it has moved its `io_limit`.
    pub fn next_io(&mut self) -> Command {
        let kind = match self.rw {
            Rw::Read | Rw::RandRead => Op::Read,
            Rw::Write | Rw::RandWrite => Op::Write,
            Rw::Trim | Rw::RandTrim => Op::Trim,
            Rw::ReadWrite | Rw::RandRw => {
                if self.rng.random_range(0..100) < self.rwmixread {
                    Op::Read
                } else {
                    Op::Write
                }
            }
        };
        let block = if self.rw.is_random() {
            self.rng.random_range(0..self.blocks)
        } else {
            let b = self.next_block;
            self.next_block = (b + 1) % self.blocks;
            b
        };
        self.issued += self.bs;
        if self.issued >= self.io_limit {
            self.done = true;
        }
        self.next_issue += self.issue_interval;
        Command {
            compress_pct: self.compress_pct,
            ..Command::new(kind, self.base + block * self.bs, self.bs)
        }
    }
}
