//! What a die is doing over time, so a host read can suspend a running program or erase, or go ahead of
//! work queued behind it.
//!
//! Used only when `[nand.suspension]` has `enabled` or `read_priority` on; otherwise a die is a plain
//! reservation timeline. The die keeps the operations it has been given (the last `KEEP`), in start
//! order, never overlapping. Every operation is placed when the controller hands it over (at its arrival
//! in simulated time), so what a read does to the die's later work is a shift of that work: operations
//! behind it start and end later on the die. Completion times already handed back to the controller for
//! those operations are not revised (the write buffer may free a slot a little early); the die's free time,
//! and so everything scheduled afterwards, does include the shift.

use crate::config::NandSuspensionConfig;
use crate::engine::{first_from_end, us_to_ns, Kept, Ns};

/// Operations kept per die at most (older ones are dropped: long finished in practice).
const KEEP: usize = 4096;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OpKind {
    /// A host read (goes ahead of queued work with read priority).
    HostRead,
    /// A GC / fold / map read: queued like a program.
    OtherRead,
    Program,
    Erase,
    /// The part of a program or erase that ran before it was suspended, plus the suspend latency.
    Suspending,
}

#[derive(Clone, Copy, Debug)]
struct Op {
    start: Ns,
    end: Ns,
    kind: OpKind,
    /// Times this program/erase has been suspended.
    suspensions: u32,
}

/// Suspension parameters in nanoseconds.
#[derive(Clone, Debug)]
pub(super) struct Policy {
    pub enabled: bool,
    pub read_priority: bool,
    pub susp_program: Ns,
    pub susp_erase: Ns,
    pub resume: Ns,
    pub cap: u32,
}

impl Policy {
    pub fn new(c: &NandSuspensionConfig) -> Self {
        Policy {
            enabled: c.enabled,
            read_priority: c.read_priority,
            susp_program: us_to_ns(c.tSUSP_program_us),
            susp_erase: us_to_ns(c.tSUSP_erase_us),
            resume: us_to_ns(c.resume_overhead_us),
            cap: c.max_suspensions_per_op,
        }
    }

    /// Whether dies must remember their operations.
    pub fn tracks(&self) -> bool {
        self.enabled || self.read_priority
    }
}

/// What a host read did on its die, for the counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ReadOutcome {
    /// The die was free (or busy with reads only).
    Plain,
    /// Suspended a running program.
    SuspendedProgram,
    /// Suspended a running erase.
    SuspendedErase,
    /// Waited for a running program or erase to finish without suspending it.
    WaitedProgramErase,
    /// Went ahead of program/erase/GC work queued on the die.
    Prioritised,
}

/// One die's operations (the last `KEEP`).
#[derive(Clone, Debug, Default)]
pub(super) struct DieOps {
    all: Kept<Op>,
}

impl DieOps {
    /// Append a non-host operation at max(ready, free_at); returns (start, end).
    pub fn push(&mut self, free_at: Ns, ready: Ns, dur: Ns, kind: OpKind) -> (Ns, Ns) {
        let start = ready.max(free_at);
        self.trim();
        self.all.push(Op { start, end: start + dur, kind, suspensions: 0 });
        (start, start + dur)
    }

    /// The operations kept.
    #[inline]
    fn ops(&self) -> &[Op] {
        self.all.live()
    }

    #[inline]
    fn ops_mut(&mut self) -> &mut [Op] {
        self.all.live_mut()
    }

    /// Put `op` at index `i` of the kept operations.
    fn insert(&mut self, i: usize, op: Op) {
        self.all.insert(i, op);
    }

    /// Make room for one more operation: drop the oldest beyond `KEEP - 1`.
    fn trim(&mut self) {
        self.all.keep_last(KEEP - 1);
    }

    /// The index of the first operation still unfinished at `t`. Operations are not dropped when they
    /// finish: requests are handed over in simulated-time order but become ready out of it (a data read
    /// waits for its map page, another IO's read can go now), so one finished at a later read's ready
    /// time may still be running at this one's.
    fn first_unfinished(&self, t: Ns) -> usize {
        // all finished is the common case of a read-heavy run; else the unfinished ones are a few at the end
        let ops = self.ops();
        first_from_end(ops.len(), |i| ops[i].end <= t)
    }

    /// Place a host read of `dur` arriving at `t` on a die whose work ends at `*free_at`. Updates
    /// `*free_at` and `*busy` (die time added); returns when the read's data is in the page register and
    /// what it did.
    pub fn host_read(
        &mut self,
        p: &Policy,
        t: Ns,
        dur: Ns,
        free_at: &mut Ns,
        busy: &mut Ns,
    ) -> (Ns, ReadOutcome) {
        self.trim();
        let i = self.first_unfinished(t);
        *busy += dur;
        let Some(&cur) = self.ops().get(i) else {
            // Nothing remembered is running: plain FIFO reservation.
            let start = t.max(*free_at);
            return (self.append(start, dur, free_at), ReadOutcome::Plain);
        };
        if cur.start > t {
            // The die is idle at t; the next operation is queued.
            if !p.read_priority {
                return (self.after_queued_work(i, t, dur, free_at), ReadOutcome::Plain);
            }
            let (end, moved) = self.ahead_of_queued_work(i, t, dur, free_at);
            return (end, if moved { ReadOutcome::Prioritised } else { ReadOutcome::Plain });
        }
        // `cur` is running at t.
        match cur.kind {
            OpKind::Program | OpKind::Erase => {
                let alone = self.ops().len() == i + 1;
                if p.enabled && cur.suspensions < p.cap && (p.read_priority || alone) {
                    let (susp, outcome) = if cur.kind == OpKind::Program {
                        (p.susp_program, ReadOutcome::SuspendedProgram)
                    } else {
                        (p.susp_erase, ReadOutcome::SuspendedErase)
                    };
                    let read_start = t + susp;
                    let read_end = read_start + dur;
                    let shift = susp + dur + p.resume;
                    *busy += susp + p.resume;
                    let rest = Op {
                        start: read_end,
                        end: cur.end + shift,
                        kind: cur.kind,
                        suspensions: cur.suspensions + 1,
                    };
                    // Later work moves back by the whole interruption.
                    for o in &mut self.ops_mut()[i + 1..] {
                        o.start += shift;
                        o.end += shift;
                    }
                    self.ops_mut()[i] =
                        Op { start: cur.start, end: read_start, kind: OpKind::Suspending, suspensions: 0 };
                    self.insert(
                        i + 1,
                        Op { start: read_start, end: read_end, kind: OpKind::HostRead, suspensions: 0 },
                    );
                    self.insert(i + 2, rest);
                    *free_at = (*free_at + shift).max(rest.end);
                    return (read_end, outcome);
                }
                let (end, _) = self.after_running(p, i, dur, free_at);
                (end, ReadOutcome::WaitedProgramErase)
            }
            OpKind::HostRead | OpKind::OtherRead | OpKind::Suspending => {
                let (end, moved) = self.after_running(p, i, dur, free_at);
                (end, if moved { ReadOutcome::Prioritised } else { ReadOutcome::Plain })
            }
        }
    }

    /// The read waits for the operation running (at index `i`): with read priority it goes right after
    /// it (and the host reads already booked behind it); without, after the other work queued behind it
    /// (`after_queued_work`). Returns its end and whether it moved queued work.
    fn after_running(&mut self, p: &Policy, i: usize, dur: Ns, free_at: &mut Ns) -> (Ns, bool) {
        let from = self.ops()[i].end;
        if !p.read_priority {
            return (self.after_queued_work(i + 1, from, dur, free_at), false);
        }
        self.ahead_of_queued_work(i + 1, from, dur, free_at)
    }

    /// Without read priority: book a host read of `dur` from `from` after every operation from index `i`
    /// on that is not a host read, in the first gap among the host reads booked after those that fits it
    /// (a read booked for later, waiting for its map page, leaves the die free before it).
    fn after_queued_work(&mut self, i: usize, from: Ns, dur: Ns, free_at: &mut Ns) -> Ns {
        let last_other = self.ops()[i..].iter().rposition(|o| o.kind != OpKind::HostRead).map(|k| i + k);
        let (j, from) = match last_other {
            Some(k) => (k + 1, from.max(self.ops()[k].end)),
            None => (i, from),
        };
        self.ahead_of_queued_work(j, from, dur, free_at).0
    }

    /// Book a host read of `dur` from `from` among the operations from index `j` on (queued, none
    /// started): it keeps clear of the host reads booked there (their times are already the host's; it
    /// takes the first gap before one that fits it, else goes after them) and goes ahead of the other
    /// queued work, which moves back. Returns its end and whether it moved any work.
    fn ahead_of_queued_work(&mut self, mut j: usize, from: Ns, dur: Ns, free_at: &mut Ns) -> (Ns, bool) {
        let mut start = from;
        while let Some(o) = self.ops().get(j).filter(|o| o.kind == OpKind::HostRead) {
            if start + dur <= o.start {
                break;
            }
            start = start.max(o.end);
            j += 1;
        }
        let end = start + dur;
        let moved = self.ops().get(j).is_some_and(|o| o.kind != OpKind::HostRead && o.start < end);
        self.insert(j, Op { start, end, kind: OpKind::HostRead, suspensions: 0 });
        self.shift_from(j + 1, end, free_at);
        (end, moved)
    }

    /// Move the operations from index `i` on back so the first starts no earlier than `not_before`.
    fn shift_from(&mut self, i: usize, not_before: Ns, free_at: &mut Ns) {
        let Some(next) = self.ops().get(i) else {
            *free_at = (*free_at).max(not_before);
            return;
        };
        let delta = not_before.saturating_sub(next.start);
        if delta > 0 {
            for o in &mut self.ops_mut()[i..] {
                o.start += delta;
                o.end += delta;
            }
            *free_at += delta;
        }
        *free_at = (*free_at).max(not_before);
    }

    /// The position of the first operation unfinished at `t` (for [`DieOps::put_ahead_of_queued`], the
    /// list unchanged since), and the operation running at `t`: its kind, end, and whether it may be
    /// suspended for a host read under `p` (a program or erase below the cap; without read priority only
    /// when nothing is queued behind it).
    pub fn running_at(&self, p: &Policy, t: Ns) -> (usize, Option<(OpKind, Ns, bool)>) {
        let i = self.first_unfinished(t);
        let Some(cur) = self.ops().get(i).filter(|o| o.start <= t) else {
            return (i, None);
        };
        let long = matches!(cur.kind, OpKind::Program | OpKind::Erase);
        let suspendable =
            long && p.enabled && cur.suspensions < p.cap && (p.read_priority || self.ops().len() == i + 1);
        (i, Some((cur.kind, cur.end, suspendable)))
    }

    /// When the die's last operation ends (0 if none is kept).
    pub fn last_end(&self) -> Ns {
        self.ops().last().map_or(0, |o| o.end)
    }

    /// A lane's read booked at `read` (start, end) for a host read that arrived at `t` goes ahead of the
    /// work queued then (operations not yet started) that it meets: that work moves back to start no
    /// earlier than the read's end. `first` is [`DieOps::running_at`]'s position for `t`. Returns how far
    /// it moved.
    pub fn put_ahead_of_queued(&mut self, first: usize, t: Ns, read: (Ns, Ns), free_at: &mut Ns) -> Ns {
        // Host reads booked on the die (multi-plane, or one that suspended a program) keep their place:
        // the plane read is on another plane.
        let meets = |o: &Op| o.start > t && o.end > read.0 && o.kind != OpKind::HostRead;
        let Some(i) = self.ops()[first..].iter().position(meets).map(|k| first + k) else {
            return 0;
        };
        let delta = read.1.saturating_sub(self.ops()[i].start);
        self.shift_from(i, read.1, free_at);
        delta
    }

    fn append(&mut self, start: Ns, dur: Ns, free_at: &mut Ns) -> Ns {
        self.trim();
        let end = start + dur;
        self.all.push(Op { start, end, kind: OpKind::HostRead, suspensions: 0 });
        *free_at = (*free_at).max(end);
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_search_finds_the_first_unfinished_operation_as_a_full_search_does() {
        for n in [0usize, 1, 2, 3, 7, 100, 1000] {
            let mut ops = DieOps::default();
            for k in 0..n as Ns {
                ops.all.push(Op { start: 10 * k, end: 10 * k + 7, kind: OpKind::Program, suspensions: 0 });
            }
            for t in 0..10 * n as Ns + 20 {
                let expected = ops.ops().partition_point(|o| o.end <= t);
                assert_eq!(ops.first_unfinished(t), expected, "{n} operations, t {t}");
            }
        }
    }
}
