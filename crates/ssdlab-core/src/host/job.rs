//! One fio job: where its next IO goes, and whether it is done.

use super::command::{Command, Op, SECTOR_BYTES};
use super::offsets::{BlockMap, BlockSizes, Distribution, RandomMap, SlotDraw};
use super::workload::{RateProcess, Rw, Workload};
use crate::engine::{stream, Ns, Rng, NS_PER_S};
use rand::RngExt;

/// Salt of the streams Poisson rate gaps are drawn from (apart from the job's own offsets and sizes).
const POISSON_STREAMS: u64 = 0x5051_5353_4F4E;

#[derive(Clone, Debug)]
/// One fio job of a run: the IOs it issues next (from its own random stream) and its queue.
pub struct Job {
    rng: Rng,
    rw: Rw,
    base: u64,
    span: u64,
    /// One block size, uniform random offsets aligned to it, no skips: the common case, drawn as before
    /// the options below existed (same streams, same numbers).
    simple: bool,
    bs: u64,
    blocks: u64,
    read_sizes: BlockSizes,
    write_sizes: BlockSizes,
    align: u64,
    /// Aligned slots for the smallest block, and how random offsets are drawn over them.
    slots: u64,
    draw: SlotDraw,
    percentage_random: u32,
    seq_skip: i64,
    /// Where the next sequential IO starts, relative to `base`.
    next_off: u64,
    /// fio's random map of a simple random job (`randommap`): each block once a pass.
    map: Option<RandomMap>,
    /// fio's random map of a uniformly random job whose IO sizes vary: a bit a smallest block.
    block_map: Option<BlockMap>,
    /// A simple random job's next draw (op, block), made one IO early so that the drive can fetch the
    /// map entry it will look up while it works on this one (the draws and their order are unchanged).
    ahead: Option<(Op, u64)>,
    rwmixread: u32,
    compress_pct: u32,
    fua: bool,
    fsync: u32,
    writes_since_flush: u32,
    /// fio's linear rate process, reads and writes (trims with writes) each at its own rate.
    pace: [Pace; 2],
    /// The op the next IO will be, once drawn (or chosen by the rate, which may switch it, as fio does).
    next_op: Option<Op>,
    thinktime_blocks: u32,
    /// IOs issued since the job last paused to think.
    pub since_think: u32,
    io_limit: u64,
    issued: u64,
    /// fio's `number_ios`: reads, writes and trims to issue, and how many so far.
    ios_limit: u64,
    ios_issued: u64,
    /// IOs submitted and not yet complete.
    pub outstanding: u32,
    /// Most IOs outstanding at once.
    pub iodepth: u32,
    /// Earliest time of the next IO when rate-limited (the wake-up [`Job::rate_allows`] asked for).
    pub next_issue: Ns,
    /// A wake-up is already queued.
    pub issue_pending: bool,
    /// Ahead of its rate with IOs in flight, the job waits for them all to complete, then sleeps this long
    /// (fio's `io_u_quiesce` before `usec_sleep`, the sleep reckoned before the wait).
    pub quiesce_sleep: Option<Ns>,
    /// The job has issued everything it will.
    pub done: bool,
    /// It was done because the run stopped it (its runtime, an `exitall`, a steady state), not because
    /// it had issued all it would.
    pub stopped: bool,
    /// fio's verify: the pass's writes are read back once they complete (None: no verify).
    verify: Option<Verify>,
    /// fio's `trimwrite`: the blocks just trimmed, to be written next (offset in the region, length).
    write_after_trim: Option<(u64, u64)>,
}

/// fio's verify phase (`verify`, `do_verify`): after each pass of IO, once every IO of it has completed,
/// the bytes it wrote are read back in offset order, at the job's queue depth and without its rate.
#[derive(Clone, Debug, Default)]
struct Verify {
    /// Bytes and IOs of one pass (`size` or `io_size`; `number_ios`, 0 = no such limit).
    pass_bytes: u64,
    pass_ios: u64,
    /// This pass so far: bytes and IOs issued, bytes and IOs written.
    issued: u64,
    ios: u64,
    written: u64,
    writes: u64,
    /// The pass is over: no more IO until what is in flight completes, then the read-back.
    draining: bool,
    /// The read-back under way: (next offset in the region, bytes left, reads left).
    reading: Option<(u64, u64, u64)>,
    /// The last pass is over: the job is done once its read-back is.
    last: bool,
}

/// One direction's rate, as fio paces it: bytes per second (`rate`, or `rate_iops` x the direction's
/// smallest block), and what has been issued so far. The next IO is due when the bytes issued are at the
/// rate (`rate_process=linear`), or, when each IO rather than each byte is paced, one gap after the last:
/// a fixed gap (`rate_iops` with `bssplit`, as fio) or one drawn from an exponential distribution
/// (`rate_process=poisson`).
#[derive(Clone, Debug, Default)]
struct Pace {
    /// 0 = unlimited.
    bps: u64,
    /// Each IO paced, not each byte: the mean gap between IOs (0 = paced by bytes).
    gap_ns: Ns,
    /// Poisson arrivals: the stream their gaps are drawn from.
    poisson: Option<Rng>,
    start: Ns,
    issued: u64,
    /// When paced by IOs: the next IO's due time, from `start`.
    next_ns: Ns,
}

impl Pace {
    /// Unstarted: [`Job::new`] sets when it starts. `per_io`: pace IOs, not bytes, at one IO of `min_bs`
    /// a gap; `poisson`: draw the gaps (from that stream).
    fn new(rate_bps: u64, rate_iops: u64, min_bs: u64, per_io: bool, poisson: Option<Rng>) -> Self {
        let bps = if rate_bps > 0 { rate_bps } else { rate_iops.saturating_mul(min_bs) };
        let paced_by_io = bps > 0 && (per_io || poisson.is_some());
        let gap_ns =
            if paced_by_io { (u128::from(min_bs) * u128::from(NS_PER_S) / u128::from(bps)) as Ns } else { 0 };
        Pace { bps, gap_ns, poisson: poisson.filter(|_| paced_by_io), ..Pace::default() }
    }

    /// When the next IO of this direction may go (`start` when unlimited).
    fn due(&self) -> Ns {
        match (self.bps, self.gap_ns) {
            (0, _) => self.start,
            (r, 0) => {
                self.start + (u128::from(self.issued) * u128::from(NS_PER_S)).div_ceil(u128::from(r)) as Ns
            }
            _ => self.start + self.next_ns,
        }
    }

    /// An IO of `len` bytes was issued: the next one is due that much later.
    fn issue(&mut self, len: u64) {
        self.issued += len;
        if self.gap_ns > 0 {
            self.next_ns += match &mut self.poisson {
                // an exponential gap with the mean: -ln(U), U in (0, 1]
                Some(rng) => (self.gap_ns as f64 * -(1.0 - rng.random::<f64>()).ln()) as Ns,
                None => self.gap_ns,
            };
        }
    }

    /// Time one IO of `len` bytes takes at this rate (0 when unlimited).
    fn interval(&self, len: u64) -> Ns {
        match (self.bps, self.gap_ns) {
            (0, _) => 0,
            (r, 0) => (u128::from(len) * u128::from(NS_PER_S)).div_ceil(u128::from(r)) as Ns,
            (_, gap) => gap,
        }
    }
}

/// Which pace an op counts against: writes and trims share one (fio's `rate=R,W`).
fn dir(op: Op) -> usize {
    usize::from(op != Op::Read)
}

impl Job {
    /// Job `index` of a run (its random stream is `stream(w.seed, index)`), starting at `start`; `clone` is
    /// its place among the spec's `numjobs` (for `offset_increment`).
    pub fn new(w: &Workload, index: u32, clone: u32, capacity: u64, start: Ns) -> Self {
        let span = w.span(capacity);
        let clones = Ns::from(w.numjobs.max(1));
        let (read_sizes, write_sizes) = (w.sizes(false), w.sizes(true));
        // the smallest IO of each direction the job moves
        let (least_read, least_write) = match w.rw {
            Rw::Read | Rw::RandRead => (read_sizes.min(), read_sizes.min()),
            Rw::Write | Rw::RandWrite | Rw::Trim | Rw::RandTrim | Rw::TrimWrite | Rw::RandTrimWrite => {
                (write_sizes.min(), write_sizes.min())
            }
            Rw::ReadWrite | Rw::RandRw => (read_sizes.min(), write_sizes.min()),
        };
        let min_bs = w.min_bs();
        let align = if w.blockalign == 0 { min_bs } else { w.blockalign };
        let slots = (span.saturating_sub(min_bs) / align + 1).max(1);
        let simple = w.block_sizes.is_none()
            && w.block_sizes_write.is_none()
            && (w.bs_write == 0 || w.bs_write == w.bs)
            && align == w.bs
            && w.random_distribution == Distribution::Uniform
            && w.percentage_random == 100
            && w.seq_skip == 0;
        // fio paces each IO, not each byte, when a rate in IOPS meets a bssplit, and for a Poisson process
        let poisson = |d: u64| {
            (w.rate_process == RateProcess::Poisson)
                .then(|| stream(w.seed ^ POISSON_STREAMS, 2 * u64::from(index) + d))
        };
        let per_io = |bps: u64, sizes: &BlockSizes| bps == 0 && matches!(sizes, BlockSizes::Split(_));
        let (write_iops, write_bps) = w.write_rates();
        let pace = [
            Pace::new(w.rate_bps, w.rate_iops, read_sizes.min(), per_io(w.rate_bps, &read_sizes), poisson(0)),
            Pace::new(write_bps, write_iops, write_sizes.min(), per_io(write_bps, &write_sizes), poisson(1)),
        ];
        let trim_and_write = if w.rw.trims_then_writes() { 2 } else { 1 };
        let mut job = Job {
            rng: stream(w.seed, u64::from(index)),
            rw: w.rw,
            base: w.offset + u64::from(clone) * w.offset_increment,
            span,
            simple,
            bs: w.bs,
            blocks: span / w.bs,
            read_sizes,
            write_sizes,
            align,
            slots,
            draw: SlotDraw::new(&w.random_distribution, slots),
            percentage_random: w.percentage_random,
            seq_skip: w.seq_skip,
            next_off: 0,
            map: None,
            block_map: None,
            ahead: None,
            rwmixread: w.rwmixread,
            compress_pct: w.buffer_compress_percentage,
            fua: w.sync,
            fsync: w.fsync,
            writes_since_flush: 0,
            pace,
            next_op: None,
            thinktime_blocks: w.thinktime_blocks,
            since_think: 0,
            // as fio: a job moves whole blocks (size is rounded down to a multiple of bs); a trimwrite
            // trims its region and writes it, twice the bytes
            io_limit: (w.io_limit(capacity) / w.bs)
                .max(1)
                .saturating_mul(w.bs)
                .saturating_mul(trim_and_write),
            issued: 0,
            ios_limit: w.ios_limit(),
            ios_issued: 0,
            outstanding: 0,
            iodepth: w.iodepth,
            next_issue: start,
            issue_pending: false,
            quiesce_sleep: None,
            done: false,
            stopped: false,
            verify: None,
            write_after_trim: None,
        };
        // Rate-limited clones start spread over one interval: fio's jobs each sleep to their own rate and
        // drift apart, so they do not issue in lockstep (pairs of IOs at the same instant).
        let first = job.pace.iter().map(|p| p.interval(w.bs)).find(|&i| i > 0).unwrap_or(0);
        let begin = start + first * (Ns::from(clone) % clones) / clones;
        for p in &mut job.pace {
            p.start = begin;
        }
        job.next_issue = begin;
        if w.verify && !w.time_based {
            let loops = u64::from(w.loops.max(1));
            job.verify = Some(Verify {
                pass_bytes: job.io_limit / loops,
                pass_ios: w.number_ios,
                ..Verify::default()
            });
        }
        if w.randommap && w.rw.is_random() {
            if simple {
                job.map = Some(RandomMap::new(job.blocks, &mut job.rng));
            } else if align == least_read
                && least_read == least_write
                && w.random_distribution == Distribution::Uniform
            {
                // as fio: a skewed distribution or a blockalign turns the map off; so here do smallest
                // sizes that differ by direction (fio counts a write's blocks in its own size there)
                job.block_map = Some(BlockMap::new(span / align));
            }
        }
        job
    }

    /// Whether IOs are paced by a rate (IOPS or bytes per second) in some direction.
    pub fn paced(&self) -> bool {
        self.pace.iter().any(|p| p.bps > 0)
    }

    /// Whether the next IO may go at `now`, as fio's `rate_ddir` decides: the drawn op's direction is due;
    /// or, in a mixed job, the other direction is (the IO switches to it); else the job sleeps until the
    /// first of the two is due (switching to it) and this returns that time (fio first waits for the IOs in
    /// flight: [`Job::quiesce_sleep`]).
    pub fn rate_allows(&mut self, now: Ns) -> Result<(), Ns> {
        let op = self.peek_op();
        let due = self.pace[dir(op)].due();
        if due <= now {
            return Ok(());
        }
        let other = match op {
            Op::Read => Op::Write,
            _ => Op::Read,
        };
        let mixed = matches!(self.rw, Rw::ReadWrite | Rw::RandRw)
            && if other == Op::Read { self.rwmixread > 0 } else { self.rwmixread < 100 };
        if !mixed {
            return Err(due);
        }
        let other_due = self.pace[dir(other)].due();
        if other_due <= now {
            self.set_op(other);
            return Ok(());
        }
        if other_due < due {
            self.set_op(other);
            return Err(other_due);
        }
        Err(due)
    }

    /// The op of the next IO, drawn now if it is not yet (the draws keep their order).
    fn peek_op(&mut self) -> Op {
        if self.simple && self.rw.is_random() {
            if self.ahead.is_none() {
                self.ahead = Some(self.draw_simple());
            }
            return self.ahead.map_or(Op::Read, |(op, _)| op);
        }
        match self.next_op {
            Some(op) => op,
            None => {
                let op = self.draw_op();
                self.next_op = Some(op);
                op
            }
        }
    }

    fn set_op(&mut self, op: Op) {
        match &mut self.ahead {
            Some((kind, _)) if self.simple && self.rw.is_random() => *kind = op,
            _ => self.next_op = Some(op),
        }
    }

    /// Whether the job pauses to think after the IOs it has issued (`thinktime_blocks` of them).
    pub fn think_due(&self) -> bool {
        self.since_think >= self.thinktime_blocks
    }

    /// The next IO; marks the job done once it has moved its `io_limit` or issued its `number_ios`. Every
    /// `fsync` writes, a flush.
    pub fn next_io(&mut self) -> Command {
        if let Some(read) = self.verify_read() {
            return read;
        }
        self.since_think += 1;
        if self.fsync > 0 && self.writes_since_flush >= self.fsync {
            self.writes_since_flush = 0;
            return Command::new(Op::Flush, 0, 0);
        }
        let (kind, offset, len) = if let Some((offset, len)) = self.write_after_trim.take() {
            (Op::Write, offset, len)
        } else if self.simple && self.rw.is_random() {
            let (kind, block) = match self.ahead.take() {
                Some(next) => next,
                None => self.draw_simple(),
            };
            self.ahead = Some(self.draw_simple());
            (kind, block * self.bs, self.bs)
        } else {
            let kind = match self.next_op.take() {
                Some(op) => op,
                None => self.draw_op(),
            };
            let (offset, len) = if self.simple {
                let b = self.next_block();
                self.next_off = (b + 1) % self.blocks * self.bs;
                (b * self.bs, self.bs)
            } else {
                self.place(kind)
            };
            (kind, offset, len)
        };
        if kind == Op::Write {
            self.writes_since_flush += 1;
        }
        if kind == Op::Trim && self.rw.trims_then_writes() {
            self.write_after_trim = Some((offset, len));
        }
        self.issued += len;
        self.ios_issued += 1;
        let finished = self.issued >= self.io_limit || self.ios_issued >= self.ios_limit;
        match &mut self.verify {
            None => self.done = finished,
            Some(v) => {
                (v.issued, v.ios) = (v.issued + len, v.ios + 1);
                if kind == Op::Write {
                    (v.written, v.writes) = (v.written + len, v.writes + 1);
                }
                v.last = finished;
                v.draining = finished || v.issued >= v.pass_bytes || (v.pass_ios > 0 && v.ios >= v.pass_ios);
            }
        }
        self.pace[dir(kind)].issue(len);
        Command {
            compress_pct: self.compress_pct,
            fua: self.fua && kind == Op::Write,
            ..Command::new(kind, self.base + offset, len)
        }
    }

    /// Whether the job waits for its IOs in flight before its read-back may start (fio's verify).
    pub fn draining(&self) -> bool {
        self.verify.as_ref().is_some_and(|v| v.draining)
    }

    /// Whether the job is reading back what it wrote (unpaced).
    pub fn verifying(&self) -> bool {
        self.verify.as_ref().is_some_and(|v| v.reading.is_some())
    }

    /// Every IO of the pass has completed: its read-back starts (the job is done if it wrote nothing and
    /// that was its last pass).
    pub fn start_verify(&mut self) {
        let Some(v) = &mut self.verify else { return };
        v.draining = false;
        if v.written > 0 {
            v.reading = Some((0, v.written, v.writes));
        } else if v.last {
            self.done = true;
        }
        (v.issued, v.ios, v.written, v.writes) = (0, 0, 0, 0);
    }

    /// The next read of the read-back under way: in offset order, as many reads as there were writes
    /// (fio reads back each write as logged; with one block size the same IOs), their bytes shared out
    /// evenly in whole sectors. The job is done after the last pass's.
    fn verify_read(&mut self) -> Option<Command> {
        let (off, left, reads) = self.verify.as_ref()?.reading?;
        let len = if reads <= 1 { left } else { (left / reads / SECTOR_BYTES).max(1) * SECTOR_BYTES };
        let v = self.verify.as_mut()?;
        v.reading = (left > len).then_some(((off + len) % self.span, left - len, reads.saturating_sub(1)));
        if v.reading.is_none() && v.last {
            self.done = true;
        }
        Some(Command::new(Op::Read, self.base + off, len))
    }

    /// Where the IO after the one just taken will go, when already drawn (simple random jobs).
    #[inline]
    pub fn upcoming_offset(&self) -> Option<u64> {
        self.ahead.map(|(_, block)| self.base + block * self.bs)
    }

    /// A simple random job's next op and block, in the stream's order (op first, for mixed jobs).
    fn draw_simple(&mut self) -> (Op, u64) {
        let kind = self.draw_op();
        let block = match &mut self.map {
            Some(map) => map.next(&mut self.rng),
            None => self.rng.random_range(0..self.blocks),
        };
        (kind, block)
    }

    fn draw_op(&mut self) -> Op {
        match self.rw {
            Rw::Read | Rw::RandRead => Op::Read,
            Rw::Write | Rw::RandWrite => Op::Write,
            // fio's trimwrite: the trim is drawn; the write of the same blocks follows it
            Rw::Trim | Rw::RandTrim | Rw::TrimWrite | Rw::RandTrimWrite => Op::Trim,
            Rw::ReadWrite | Rw::RandRw => {
                if self.rng.random_range(0..100) < self.rwmixread {
                    Op::Read
                } else {
                    Op::Write
                }
            }
        }
    }

    fn next_block(&self) -> u64 {
        self.next_off / self.bs
    }

    /// Offset (relative to the region) and length of the next IO when sizes, alignment or distribution
    /// vary.
    fn place(&mut self, kind: Op) -> (u64, u64) {
        let sizes = if kind == Op::Write { &self.write_sizes } else { &self.read_sizes };
        let len = sizes.draw(&mut self.rng);
        let random = self.rw.is_random()
            && (self.percentage_random == 100 || self.rng.random_range(0..100) < self.percentage_random);
        let (offset, len) = if random {
            // the slots where an IO of this length still fits the region
            let fit = (self.span - len) / self.align + 1;
            let slot = self.draw.draw(&mut self.rng, self.slots).min(fit - 1);
            match &mut self.block_map {
                None => (slot * self.align, len),
                Some(map) => {
                    if map.full() {
                        map.clear();
                    }
                    // fio: the next untouched block if this one was, and the IO cut short at the first
                    // touched block after it
                    let b = map.next_free(slot).expect("a map with a block untouched");
                    let touched = map.touch(b, len.div_ceil(self.align));
                    (b * self.align, len.min(touched * self.align))
                }
            }
        } else if self.next_off + len > self.span {
            (0, len)
        } else {
            (self.next_off, len)
        };
        // as fio: past the end a skip wraps to the start, a step back before the start to the end
        let skip = if random { 0 } else { self.seq_skip };
        self.next_off = match (offset + len).checked_add_signed(skip) {
            Some(next) if next < self.span => next,
            _ if skip < 0 => self.span.saturating_add_signed(skip),
            _ => 0,
        };
        (offset, len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::FieldValue;

    const CAP: u64 = 1 << 30;

    fn job(fields: &[(&str, FieldValue)]) -> Job {
        let w = Workload::from_fields(fields.iter().map(|(k, v)| (k.to_string(), v.clone()))).unwrap();
        assert_eq!(w.problems(Some(CAP)), []);
        Job::new(&w, 0, 1, CAP, 0)
    }

    fn s(x: &str) -> FieldValue {
        FieldValue::Str(x.into())
    }

    fn n(x: i128) -> FieldValue {
        FieldValue::Int(x)
    }

    #[test]
    fn bssplit_sizes_land_aligned_inside_the_region() {
        let mut j = job(&[("rw", s("randwrite")), ("bssplit", s("4096/50:65536/50")), ("size", n(1 << 20))]);
        for _ in 0..1000 {
            let c = j.next_io();
            assert!(c.len == 4096 || c.len == 65536);
            assert!(c.offset.is_multiple_of(4096) && c.offset + c.len <= 1 << 20, "{c:?}");
        }
    }

    #[test]
    fn a_random_job_tells_where_its_next_io_goes_and_draws_the_same_stream_as_one_at_a_time() {
        for rw in ["randread", "randrw"] {
            let mut j = job(&[("rw", s(rw)), ("size", n(1 << 30))]);
            let mut reference = stream(Workload::default().seed, 0);
            for _ in 0..100 {
                let c = j.next_io();
                let ahead = j.upcoming_offset().expect("random jobs draw one IO ahead");
                // the draws of fio's order, one IO at a time: the op of a mixed job, then the block
                let op =
                    if rw == "randrw" && reference.random_range(0..100) >= 50 { Op::Write } else { Op::Read };
                let block = reference.random_range(0..(1u64 << 30) / 4096);
                assert_eq!((c.op, c.offset), (op, j.base + block * 4096));
                assert_eq!(j.clone().next_io().offset, ahead);
            }
        }
        let mut j = job(&[("rw", s("read"))]);
        j.next_io();
        assert_eq!(j.upcoming_offset(), None, "a sequential job's next offset is no cache miss");
    }

    #[test]
    fn percentage_random_zero_is_sequential_and_skips_follow_each_io() {
        let mut j = job(&[("rw", s("randread")), ("percentage_random", n(0)), ("size", n(1 << 20))]);
        let offs: Vec<u64> = (0..3).map(|_| j.next_io().offset).collect();
        assert_eq!(offs, [0, 4096, 8192]);
        let mut j = job(&[("rw", s("write")), ("seq_skip", n(8192)), ("size", n(1 << 20))]);
        let offs: Vec<u64> = (0..3).map(|_| j.next_io().offset).collect();
        assert_eq!(offs, [0, 12288, 24576]);
    }

    #[test]
    fn a_negative_skip_reads_backwards_in_fios_order() {
        // fio 3.33's write_iolog of rw=read:-8k, bs=4k, size=64k, loops=2: from 0 it steps back past the
        // start to the end (56k), then down 4 KiB at a time to 0, and on from there in the second loop
        // (60k is never read)
        let mut j = job(&[("rw", s("read")), ("seq_skip", n(-8192)), ("size", n(64 << 10)), ("loops", n(2))]);
        let mut offs = Vec::new();
        while !j.done {
            offs.push(j.next_io().offset / 1024);
        }
        let down: Vec<u64> = (1..=14).rev().map(|k| 4 * k).collect(); // 56, 52, ..., 4
        assert_eq!(offs, [&[0][..], &down, &[0], &down, &[0, 56]].concat());
    }

    #[test]
    fn a_clone_starts_offset_increment_further_on() {
        // `job` builds clone 1
        let mut j = job(&[("rw", s("write")), ("offset_increment", n(1 << 20)), ("size", n(1 << 20))]);
        assert_eq!(j.next_io().offset, 1 << 20);
    }

    #[test]
    fn every_fsync_writes_a_flush_and_sync_writes_carry_fua() {
        let mut j = job(&[("rw", s("write")), ("fsync", n(2)), ("sync", FieldValue::Bool(true))]);
        let ops: Vec<(Op, bool)> = (0..6).map(|_| j.next_io()).map(|c| (c.op, c.fua)).collect();
        let (w, f) = ((Op::Write, true), (Op::Flush, false));
        assert_eq!(ops, [w, w, f, w, w, f]);
    }

    #[test]
    fn a_byte_rate_spaces_ios_by_their_size() {
        // 1 MB/s: a 4 KiB IO every 4.096 ms
        let mut j = job(&[("rw", s("write")), ("rate_bps", n(1_000_000))]);
        assert!(j.paced());
        assert_eq!(j.rate_allows(0), Ok(()));
        j.next_io();
        assert_eq!(j.rate_allows(1), Err(4_096_000));
        assert_eq!(j.rate_allows(4_096_000), Ok(()));
    }

    #[test]
    fn one_rate_caps_each_direction_as_in_fio() {
        // fio's rate_iops=1000 on randrw: 1,000 reads and 1,000 writes a second, each on its own schedule
        let mut j = job(&[("rw", s("randrw")), ("rwmixread", n(67)), ("rate_iops", n(1000))]);
        let mut ops = Vec::new();
        let mut now = 0;
        while now < 1_000_000_000 {
            match j.rate_allows(now) {
                Ok(()) => ops.push(j.next_io().op),
                Err(due) => now = due,
            }
        }
        let reads = ops.iter().filter(|&&op| op == Op::Read).count();
        assert_eq!((reads, ops.len() - reads), (1000, 1000));
    }

    /// The times a job's first `n` IOs go at its rate (each as soon as it is due).
    fn due_times(j: &mut Job, n: usize) -> Vec<Ns> {
        let (mut now, mut times) = (0, Vec::new());
        while times.len() < n {
            match j.rate_allows(now) {
                Ok(()) => {
                    j.next_io();
                    times.push(now);
                }
                Err(due) => now = due,
            }
        }
        times
    }

    #[test]
    fn with_bssplit_an_iops_rate_paces_ios_not_bytes_as_fio_3_42() {
        // rate_iops=500 with 4/64 KiB reads: an IO every 2 ms whatever its size (fio 3.42's fix; fio 3.33
        // paced bytes at 500 x 4 KiB/s, ~137 IOs a second); a byte rate still paces bytes
        let split = ("bssplit", s("4096/50:65536/50"));
        let mut j = job(&[("rw", s("randread")), ("rate_iops", n(500)), split.clone()]);
        let times = due_times(&mut j, 1000);
        assert_eq!(times[999], 999 * 2_000_000);
        let mut j = job(&[("rw", s("randread")), ("rate_bps", n(500 * 4096)), split]);
        assert!(due_times(&mut j, 1000)[999] > 4 * 999 * 2_000_000);
    }

    #[test]
    fn a_poisson_rate_process_draws_exponential_gaps_with_the_rates_mean() {
        // rate_iops=1000: gaps of 1 ms on average, spread as an exponential (stdev = mean); linear: all 1 ms
        let poisson = &[("rw", s("randread")), ("rate_iops", n(1000)), ("rate_process", s("poisson"))];
        let times = due_times(&mut job(poisson), 20_001);
        let gaps: Vec<f64> = times.windows(2).map(|w| (w[1] - w[0]) as f64 / 1e6).collect();
        let mean = gaps.iter().sum::<f64>() / gaps.len() as f64;
        let sd = (gaps.iter().map(|g| (g - mean).powi(2)).sum::<f64>() / gaps.len() as f64).sqrt();
        assert!((0.97..1.03).contains(&mean) && (0.95..1.05).contains(&(sd / mean)), "{mean} ms, sd {sd}");
        // seeded: the same gaps again; linear spacing is even
        assert_eq!(due_times(&mut job(poisson), 100), times[..100]);
        let linear = due_times(&mut job(&[("rw", s("randread")), ("rate_iops", n(1000))]), 100);
        assert!(linear.windows(2).all(|w| w[1] - w[0] == 1_000_000));
    }

    #[test]
    fn a_direction_not_due_gives_way_to_the_other_one_that_is() {
        // reads 100/s, writes unlimited (fio's rate_iops=100,0): a drawn read not yet due becomes a write
        let mut j = job(&[
            ("rw", s("randrw")),
            ("rwmixread", n(99)),
            ("rate_iops", n(100)),
            ("rate_iops_write", n(0)),
        ]);
        let ops: Vec<Op> = (0..50)
            .map(|_| {
                assert_eq!(j.rate_allows(0), Ok(()));
                j.next_io().op
            })
            .collect();
        assert_eq!(ops.iter().filter(|&&op| op == Op::Read).count(), 1, "one read is due at 0: {ops:?}");
        // a pure read job has no other direction: it waits
        let mut j = job(&[("rw", s("randread")), ("rate_iops", n(100))]);
        j.next_io();
        assert_eq!(j.rate_allows(0), Err(10_000_000));
    }

    #[test]
    fn rate_limited_clones_start_spread_over_one_interval_not_in_lockstep() {
        let w = Workload { rate_iops: 1000, numjobs: 4, ..Workload::default() };
        let starts: Vec<Ns> = (0..4).map(|c| Job::new(&w, c, c, CAP, 10).next_issue).collect();
        assert_eq!(starts, [10, 250_010, 500_010, 750_010]);
        // unpaced jobs all start at once
        let w = Workload { numjobs: 4, ..Workload::default() };
        assert!((0..4).all(|c| Job::new(&w, c, c, CAP, 10).next_issue == 10));
    }

    #[test]
    fn number_ios_stops_a_job_after_that_many_ios_per_pass_unless_time_based() {
        // fio: number_ios=100 issues 100 IOs (x loops); with time_based the runtime rules
        let ios = |w: &Workload| {
            let mut job = Job::new(w, 0, 0, CAP, 0);
            let mut n = 0;
            while !job.done && n < 10_000 {
                if job.next_io().op != Op::Flush {
                    n += 1;
                }
            }
            n
        };
        let w = Workload { size: 1 << 20, number_ios: 100, ..Workload::default() };
        assert_eq!(ios(&w), 100);
        assert_eq!(ios(&Workload { loops: 3, ..w.clone() }), 300);
        // the size still stops it first: 1 MiB is 256 IOs of 4 KiB
        assert_eq!(ios(&Workload { number_ios: 1000, ..w.clone() }), 256);
        // flushes are not counted
        assert_eq!(ios(&Workload { rw: Rw::Write, fsync: 2, ..w.clone() }), 100);
        assert_eq!(Workload { time_based: true, runtime_ns: 1, ..w }.ios_limit(), u64::MAX);
    }

    #[test]
    fn with_the_random_map_a_random_pass_touches_every_block_once() {
        // 256 blocks of 4 KiB: fio's random map writes each once; without it ~37% are never drawn
        let distinct = |randommap| {
            let w = Workload { rw: Rw::RandWrite, size: 1 << 20, randommap, ..Workload::default() };
            let mut job = Job::new(&w, 0, 0, CAP, 0);
            let mut blocks = std::collections::BTreeSet::new();
            while !job.done {
                blocks.insert(job.next_io().offset);
            }
            blocks.len()
        };
        assert_eq!(distinct(true), 256);
        let without = distinct(false);
        assert!((140..190).contains(&without), "{without}"); // 256 x (1 - 1/e) = 162
    }

    #[test]
    fn with_mixed_sizes_the_random_map_covers_each_block_once_a_pass_cutting_ios_short() {
        // 4 and 64 KiB random writes over 1 MiB, two passes (fio's axmap): every 4 KiB block is written
        // exactly once a pass, so the job moves 2 MiB; an IO meeting a block already written stops there
        let w = Workload {
            rw: Rw::RandWrite,
            size: 1 << 20,
            loops: 2,
            block_sizes: Some(BlockSizes::parse_split("4096/50:65536/50").unwrap()),
            randommap: true,
            ..Workload::default()
        };
        let mut job = Job::new(&w, 0, 0, CAP, 0);
        let (mut writes, mut bytes, mut cut) = (vec![0u32; 256], 0, 0);
        while !job.done {
            let c = job.next_io();
            assert!(c.offset.is_multiple_of(4096) && c.offset + c.len <= 1 << 20, "{c:?}");
            cut += u32::from(c.len != 4096 && c.len != 65536);
            bytes += c.len;
            for b in c.offset / 4096..(c.offset + c.len) / 4096 {
                writes[b as usize] += 1;
            }
        }
        assert_eq!(bytes, 2 << 20);
        assert!(writes.iter().all(|&k| k == 2), "each block once a pass");
        assert!(cut > 0, "some 64 KiB writes were cut short");
        // without the map the same bytes overlap: some blocks written more often, some never
        let mut job = Job::new(&Workload { randommap: false, ..w }, 0, 0, CAP, 0);
        let mut writes = vec![0u32; 256];
        while !job.done {
            let c = job.next_io();
            for b in c.offset / 4096..(c.offset + c.len) / 4096 {
                writes[b as usize] += 1;
            }
        }
        assert!(writes.contains(&0) && writes.iter().any(|&k| k > 2));
    }

    #[test]
    fn with_verify_each_pass_is_read_back_in_offset_order_once_its_writes_complete() {
        // fio's verify: 4 random 4 KiB writes over 16 KiB, twice (loops=2); after each pass, and only once
        // its writes have completed, the 16 KiB are read back from the start in 4 reads
        let w = Workload {
            rw: Rw::RandWrite,
            size: 16 << 10,
            loops: 2,
            verify: true,
            randommap: true,
            ..Workload::default()
        };
        let mut j = Job::new(&w, 0, 0, CAP, 0);
        let mut seen = Vec::new();
        for _pass in 0..2 {
            for _ in 0..4 {
                assert!(!j.draining());
                let c = j.next_io();
                j.outstanding += 1;
                seen.push((c.op, c.offset));
            }
            assert!(j.draining() && !j.done, "the pass is over: it waits for its writes");
            j.outstanding = 0;
            j.start_verify();
            assert!(j.verifying());
            for k in 0..4 {
                let c = j.next_io();
                assert_eq!((c.op, c.offset, c.len), (Op::Read, k * 4096, 4096));
            }
        }
        assert!(j.done && !j.verifying());
        let mut written: Vec<u64> = seen
            .iter()
            .map(|&(op, off)| {
                assert_eq!(op, Op::Write);
                off
            })
            .collect();
        written.sort_unstable();
        assert_eq!(written, [0, 0, 4096, 4096, 8192, 8192, 12288, 12288], "each block once a pass");
        // time_based: fio's runtime ends the write phase, no read-back ever starts
        let mut j = Job::new(&Workload { time_based: true, runtime_ns: 1, ..w }, 0, 0, CAP, 0);
        for _ in 0..8 {
            j.next_io();
        }
        assert!(!j.draining() && !j.verifying());
    }

    #[test]
    fn a_trimwrite_trims_each_block_then_writes_it_as_fio() {
        // trimwrite: T0 W0 T1 W1 ...; randtrimwrite: each write where the trim before it was, every block
        // of the region once each way (the random map), so the job moves twice its size
        let mut j = job(&[("rw", s("trimwrite")), ("size", n(16 << 10))]);
        let ios: Vec<(Op, u64)> = (0..8).map(|_| j.next_io()).map(|c| (c.op, c.offset)).collect();
        let (t, w) = (Op::Trim, Op::Write);
        assert_eq!(ios, [(t, 0), (w, 0), (t, 4096), (w, 4096), (t, 8192), (w, 8192), (t, 12288), (w, 12288)]);
        assert!(j.done);
        let w = Workload { rw: Rw::RandTrimWrite, size: 1 << 20, randommap: true, ..Workload::default() };
        let mut j = Job::new(&w, 0, 0, CAP, 0);
        let (mut trims, mut writes) = (Vec::new(), Vec::new());
        while !j.done {
            let (trim, write) = (j.next_io(), j.next_io());
            assert_eq!((trim.op, write.op, write.offset), (Op::Trim, Op::Write, trim.offset));
            trims.push(trim.offset);
            writes.push(write.offset);
        }
        trims.sort_unstable();
        assert_eq!(trims, (0..256).map(|b| b * 4096).collect::<Vec<_>>());
        assert_eq!(writes.len(), 256);
    }

    #[test]
    fn writes_take_their_own_bssplit_in_fio_read_write_form() {
        // fio's bssplit=4k/50:8k/50,128k/100: reads 4 or 8 KiB, writes 128 KiB
        let w = Workload {
            rw: Rw::RandRw,
            size: 64 << 20,
            block_sizes: Some(BlockSizes::parse_split("4096/50:8192/50").unwrap()),
            block_sizes_write: Some(BlockSizes::parse_split("131072/100").unwrap()),
            ..Workload::default()
        };
        let mut job = Job::new(&w, 0, 0, CAP, 0);
        let (mut reads, mut writes) = (std::collections::BTreeSet::new(), std::collections::BTreeSet::new());
        for _ in 0..2000 {
            let c = job.next_io();
            if c.op == Op::Write {
                writes.insert(c.len)
            } else {
                reads.insert(c.len)
            };
        }
        assert_eq!(reads.into_iter().collect::<Vec<_>>(), [4096, 8192]);
        assert_eq!(writes.into_iter().collect::<Vec<_>>(), [131072]);
    }

    #[test]
    fn loops_repeat_the_region() {
        let w = Workload { size: 1 << 20, loops: 3, ..Workload::default() };
        assert_eq!(w.io_limit(CAP), 3 << 20);
    }

    #[test]
    fn bad_values_name_their_field() {
        for (key, v, field) in [
            ("bssplit", s("4096/70:8192/70"), "bssplit"),
            ("bsrange", s("8192-4096"), "bsrange"),
            ("random_distribution", s("zipf:0"), "random_distribution"),
            ("random_distribution", s("zoned:50/50:40/50"), "random_distribution"),
        ] {
            let e = Workload::from_fields([(key.to_string(), v)]).unwrap_err();
            assert_eq!(e[0].field, field);
        }
        let w =
            Workload { bs_write: 1000, percentage_random: 101, thinktime_blocks: 0, ..Workload::default() };
        let fields: Vec<String> = w.problems(None).into_iter().map(|p| p.field).collect();
        assert_eq!(fields, ["bs_write", "percentage_random", "thinktime_blocks"]);
        // every clone's region must fit the drive
        let w = Workload { size: CAP / 2, offset_increment: CAP / 2, numjobs: 3, ..Workload::default() };
        assert_eq!(w.validate(CAP).unwrap_err().field, "size");
    }
}
