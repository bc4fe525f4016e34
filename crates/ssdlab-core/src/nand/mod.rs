//! NAND flash: geometry, address encoding, and the timing state of dies and channels.
//!
//! Operations are scheduled per program unit (all planes x the pages of a one-shot program), never per
//! 4 KiB. Dies and channels are reservation timelines: an operation starts when its inputs are ready and
//! the resource is free. Reads pipeline tR with the data-out transfer (cache read); programs load data over
//! the channel while the die may still be busy (cache program). A host read of the page a plane's register
//! still holds moves only its data out.

mod geometry;
mod suspension;

pub use geometry::{Geometry, Ppn};

use crate::config::NandConfig;
use crate::engine::{stream, transfer_ns, us_to_ns, GapTimeline, Ns, Rng};
use suspension::{DieOps, OpKind, Policy, ReadOutcome};

/// The drive seed's child stream for NAND operation times.
const SPREAD_STREAM: u64 = 0x4E41_4E44_5350; // "NANDSP"

/// How a block is being used: at its native bits per cell, or one bit per cell (SLC mode, the SLC cache).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellMode {
    /// The cell type's own density (TLC: three bits per cell).
    Native,
    /// One bit per cell: faster, a third (TLC) of the capacity.
    Slc,
}

/// NAND timings in nanoseconds.
#[derive(Clone, Debug)]
#[allow(non_snake_case)]
pub struct Timing {
    /// Per page type (LSB first); one entry if all types read alike.
    pub tR: Vec<Ns>,
    /// One-shot program (one entry), or per page type.
    pub tPROG: Vec<Ns>,
    /// Page read in SLC mode.
    pub slc_tR: Ns,
    /// Page program in SLC mode.
    pub slc_tPROG: Ns,
    /// Block erase.
    pub tBERS: Ns,
    /// Command and address cycles before each array operation.
    pub command: Ns,
    /// Channel bus bytes per second.
    pub bus_bytes_per_s: u64,
    /// The die senses the next page while the last one moves out over the channel.
    pub cache_read: bool,
    /// The next unit's data moves in while the die still programs the last one.
    pub cache_program: bool,
}

impl Timing {
    /// The timings `c` gives, in nanoseconds.
    pub fn new(c: &NandConfig) -> Self {
        Timing {
            tR: c.tR_us.iter().map(|&t| us_to_ns(t)).collect(),
            tPROG: c.tPROG_us.iter().map(|&t| us_to_ns(t)).collect(),
            slc_tR: us_to_ns(c.slc_tR_us),
            slc_tPROG: us_to_ns(c.slc_tPROG_us),
            tBERS: us_to_ns(c.tBERS_ms * 1e3),
            command: c.command_overhead_ns,
            bus_bytes_per_s: u64::from(c.bus_mts) * 1_000_000,
            cache_read: c.cache_read,
            cache_program: c.cache_program,
        }
    }

    /// Time the channel bus takes to move `bytes`.
    pub fn bus_ns(&self, bytes: u64) -> Ns {
        transfer_ns(bytes, self.bus_bytes_per_s)
    }

    /// Die time of a read of `bytes`: command + tR, and without cache read also the data-out.
    #[inline]
    pub fn read_die_ns(&self, page: u32, mode: CellMode, bytes: u64) -> Ns {
        let out = if self.cache_read { 0 } else { self.bus_ns(bytes) };
        self.command + self.read_ns(page, mode) + out
    }

    /// Array read time of page index `page` of a block in `mode`.
    #[inline]
    pub fn read_ns(&self, page: u32, mode: CellMode) -> Ns {
        match mode {
            CellMode::Slc => self.slc_tR,
            CellMode::Native => self.tR[page as usize % self.tR.len()],
        }
    }

    /// Program time of the unit starting at page index `page` of a block in `mode`.
    #[inline]
    pub fn program_ns(&self, page: u32, mode: CellMode) -> Ns {
        match mode {
            CellMode::Slc => self.slc_tPROG,
            CellMode::Native => self.tPROG[page as usize % self.tPROG.len()],
        }
    }
}

/// Per-operation NAND times drawn between the typical and the maximum a datasheet gives (`tR_max_us`,
/// `tPROG_max_us`, `tBERS_max_ms`), for native-mode reads and programs and for erases.
///
/// Shape: uniform between the two. A datasheet gives only the two numbers, so the draw assumes nothing
/// between them (the maximum-entropy choice for a bounded interval), never leaves it, and costs one draw;
/// its mean is `(typ + max) / 2`. (A triangular shape with its mode at typical was tried: it gave the
/// Starblaze mix's worst reads no better and its averages no better, docs/model.md.)
#[derive(Clone, Debug)]
#[allow(non_snake_case)]
struct Spread {
    /// max - typ per page type (empty: no spread), ns.
    tR: Vec<Ns>,
    tPROG: Vec<Ns>,
    tBERS: Ns,
    rng: Rng,
}

impl Spread {
    /// `None` when `c` gives no spread, so a drive without one draws nothing.
    fn new(c: &NandConfig, seed: u64) -> Option<Self> {
        let extra = |max: &[f64], typ: &[f64]| -> Vec<Ns> {
            max.iter().zip(typ).map(|(&m, &t)| us_to_ns(m).saturating_sub(us_to_ns(t))).collect()
        };
        let t_bers = if c.tBERS_max_ms > 0.0 {
            us_to_ns(c.tBERS_max_ms * 1e3).saturating_sub(us_to_ns(c.tBERS_ms * 1e3))
        } else {
            0
        };
        let s = Spread {
            tR: extra(&c.tR_max_us, &c.tR_us),
            tPROG: extra(&c.tPROG_max_us, &c.tPROG_us),
            tBERS: t_bers,
            rng: stream(seed, SPREAD_STREAM),
        };
        let any = s.tR.iter().chain(&s.tPROG).any(|&x| x > 0) || s.tBERS > 0;
        any.then_some(s)
    }

    /// A draw in 0..range, uniform.
    #[inline]
    fn draw(&mut self, range: Ns) -> Ns {
        use rand::RngExt;
        if range == 0 {
            return 0;
        }
        let u: f64 = self.rng.random::<f64>();
        (u * range as f64) as Ns
    }

    #[inline]
    fn per_type(&mut self, ranges_of: fn(&Self) -> &Vec<Ns>, page: u32, mode: CellMode) -> Ns {
        let ranges = ranges_of(self);
        if mode == CellMode::Slc || ranges.is_empty() {
            return 0;
        }
        let range = ranges[page as usize % ranges.len()];
        self.draw(range)
    }
}

#[derive(Clone, Debug, Default)]
struct Timeline {
    free_at: Ns,
    busy_ns: Ns,
}

impl Timeline {
    /// Occupy from max(ready, free) for `dur`; returns (start, end).
    #[inline]
    fn reserve(&mut self, ready: Ns, dur: Ns) -> (Ns, Ns) {
        let start = ready.max(self.free_at);
        self.free_at = start + dur;
        self.busy_ns += dur;
        (start, self.free_at)
    }
}

/// What happened on the flash, for the Result counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NandCounters {
    /// Array reads (one tR each; a multi-plane read counts once per plane page).
    pub pages_read: u64,
    /// Physical pages programmed (a one-shot TLC program on 2 planes counts 6).
    pub pages_programmed: u64,
    /// Of those, pages programmed in SLC mode.
    pub slc_pages_programmed: u64,
    /// Blocks erased.
    pub blocks_erased: u64,
    /// Bytes moved over the channel buses.
    pub bus_bytes: u64,
    /// Host reads that suspended a running program.
    pub program_suspensions: u64,
    /// Host reads that suspended a running erase.
    pub erase_suspensions: u64,
    /// Host reads that found a program or erase running on their die and waited for it to finish
    /// (suspension off, or the operation's suspension cap reached).
    pub reads_waited_program_erase: u64,
    /// Host reads that went ahead of program/erase/GC work queued on their die (read priority).
    pub reads_prioritised: u64,
    /// Host reads served from the page the read before left in its die's (or plane's) page register: no
    /// tR, only the data-out.
    pub register_hits: u64,
    /// Array read time x planes sensed (the power model's read energy).
    pub read_plane_ns: u64,
    /// Array program time x planes programmed.
    pub program_plane_ns: u64,
    /// Array erase time x planes erased.
    pub erase_plane_ns: u64,
}

/// Timing state of every die and channel.
#[derive(Clone, Debug)]
pub struct Nand {
    /// The shape of the flash.
    pub geo: Geometry,
    /// Its timings.
    pub timing: Timing,
    dies: Vec<Timeline>,
    channels: Vec<Timeline>,
    /// What the NAND has done.
    pub counters: NandCounters,
    policy: Policy,
    /// With suspension or read priority on: each die's unfinished operations.
    die_ops: Vec<DieOps>,
    /// Without: each die's last program/erase interval, to count reads that wait behind one.
    last_long: Vec<(Ns, Ns)>,
    /// Each channel's busy intervals, so a transfer can use the idle time before one reserved for later
    /// (a GC program's data-in waits for its GC reads; a host read's data-out need not).
    channel_gaps: Vec<GapTimeline>,
    /// With `*_max_*` timings: the draw of each operation's time.
    spread: Option<Spread>,
    /// Die time per operation in permille of the datasheet's (1000; more while thermally throttled).
    stretch_permille: u64,
    /// Host reads' sensing lanes (die-major), each with its gaps, so a read booked for later (behind a
    /// map-page read) does not hold up one that can go now, as a die's command queue would serve it. With
    /// `independent_plane_read` one lane a plane (a single-plane read senses beside the die's other
    /// planes), without it one a die. Empty when suspension is on and the die's planes do not read on
    /// their own: the die's operation list orders its reads then.
    read_lanes: Vec<GapTimeline>,
    /// Read lanes a die: its planes with `independent_plane_read`, else 1.
    lanes: u32,
    /// Scratch for [`Nand::lane_read`]: the other lanes' reads a read overlaps.
    overlaps: Vec<(Ns, Ns)>,
    /// With read lanes: when each die's last whole-die operation (program, erase, internal read, and with
    /// plane reads a multi-plane read) ends; a lane's read starts after it. Empty without them.
    array_free: Vec<Ns>,
    /// Each plane's page register (die-major): the block and page index a host read sensed into it, and
    /// when that read's booking ends.
    registers: Vec<Option<(u32, u32, Ns)>>,
}

impl Nand {
    /// Idle dies and channels for `c`; `slot_bytes` is the unit of allocation (4096, or 256 with compression).
    /// Operation times with a spread draw from seed 0: see [`Nand::new_seeded`].
    pub fn new(c: &NandConfig, slot_bytes: u32) -> Self {
        Self::new_seeded(c, slot_bytes, 0)
    }

    /// As [`Nand::new`], operation times with a spread drawn from the drive's root `seed`.
    pub fn new_seeded(c: &NandConfig, slot_bytes: u32, seed: u64) -> Self {
        let geo = Geometry::new(c, slot_bytes);
        let policy = Policy::new(&c.suspension);
        // a single-plane die has nothing to overlap
        let plane_reads = c.independent_plane_read && geo.planes > 1;
        let lanes = if plane_reads { geo.planes } else { 1 };
        // a die that reads one page at a time orders its reads by its operation list only when a read may
        // suspend the work running there; read priority alone moves queued work back behind a lane's read
        let has_lanes = plane_reads || !policy.enabled;
        let registers = vec![None; (geo.dies * geo.planes) as usize];
        Nand {
            die_ops: if policy.tracks() { vec![DieOps::default(); geo.dies as usize] } else { Vec::new() },
            last_long: vec![(0, 0); geo.dies as usize],
            channel_gaps: vec![GapTimeline::default(); geo.channels as usize],
            policy,
            dies: vec![Timeline::default(); geo.dies as usize],
            channels: vec![Timeline::default(); geo.channels as usize],
            timing: Timing::new(c),
            spread: Spread::new(c, seed),
            geo,
            counters: NandCounters::default(),
            stretch_permille: 1000,
            read_lanes: if has_lanes {
                vec![GapTimeline::default(); (geo.dies * lanes) as usize]
            } else {
                Vec::new()
            },
            lanes,
            overlaps: Vec::new(),
            array_free: if has_lanes { vec![0; geo.dies as usize] } else { Vec::new() },
            registers,
        }
    }

    /// Run the dies at `speed_pct` of full speed (thermal throttling): each operation's die time is
    /// stretched by 100 / `speed_pct`; the energy it takes is the datasheet operation's.
    pub fn set_speed_pct(&mut self, speed_pct: f64) {
        self.stretch_permille = (100_000.0 / speed_pct.clamp(1.0, 100.0)).round() as u64;
    }

    #[inline]
    fn stretched(&self, dur: Ns) -> Ns {
        if self.stretch_permille == 1000 {
            dur
        } else {
            dur * self.stretch_permille / 1000
        }
    }

    /// Reserve `dur` of die time for a program, erase or non-host read; returns (start, end).
    #[inline]
    fn die_reserve(&mut self, die: u32, ready: Ns, dur: Ns, kind: OpKind) -> (Ns, Ns) {
        let dur = self.stretched(dur);
        let d = die as usize;
        let (start, end) = if self.die_ops.is_empty() {
            self.dies[d].reserve(ready, dur)
        } else {
            let tl = &mut self.dies[d];
            let (start, end) = self.die_ops[d].push(tl.free_at, ready, dur, kind);
            tl.free_at = end;
            tl.busy_ns += dur;
            (start, end)
        };
        if matches!(kind, OpKind::Program | OpKind::Erase) {
            self.last_long[d] = (start, end);
        }
        if let Some(a) = self.array_free.get_mut(d) {
            *a = end;
        }
        (start, end)
    }

    /// Read page index `page` on `planes` planes of one die in one multi-plane read and move `bytes` out
    /// over the channel. Returns when the data is in the controller. For GC, folding and map reads: they
    /// queue behind the die's work and never suspend it (host reads use [`Nand::read_suspending`]).
    pub fn read(&mut self, die: u32, ready: Ns, page: u32, mode: CellMode, planes: u32, bytes: u64) -> Ns {
        let spread = self.read_spread(page, mode);
        let dur = self.timing.read_die_ns(page, mode, bytes) + spread;
        self.counters.read_plane_ns += (self.timing.read_ns(page, mode) + spread) * u64::from(planes);
        let (_, sensed) = self.die_reserve(die, ready, dur, OpKind::OtherRead);
        self.channel_out(die, sensed, planes, bytes)
    }

    /// A host read of page index `page` of `block` on the planes in `planes_mask`: as
    /// [`Nand::read_suspending`], but when the last operation booked where the read would run (the die, or
    /// with `independent_plane_read` its planes) sensed this page on these planes, the data is still in
    /// the planes' page registers: only the data-out goes (ONFI's change read column), no tR. So small
    /// sequential reads (4 KiB at QD4, ATTO's small transfers) sense each page once, not once per read.
    #[allow(clippy::too_many_arguments)]
    pub fn host_read(
        &mut self,
        die: u32,
        ready: Ns,
        block: u32,
        page: u32,
        mode: CellMode,
        planes_mask: u32,
        bytes: u64,
    ) -> Ns {
        let d = die as usize;
        let Some(held) = self.register_hit(d, block, page, planes_mask) else {
            return self.host_sense(die, ready, block, page, mode, planes_mask, bytes);
        };
        self.counters.register_hits += 1;
        self.counters.bus_bytes += bytes;
        let bus = self.timing.bus_ns(bytes);
        let out = if self.timing.cache_read { 0 } else { bus };
        let dur = self.stretched(self.timing.command + out);
        let done = self.book_host_read(d, planes_mask, ready.max(held), dur);
        self.hold(d, planes_mask, (block, page, done));
        let ch = self.geo.channel_of(die) as usize;
        self.channel_reserve(ch, done - out, bus).1
    }

    /// A host read of `page` of `block` that senses it whatever the registers hold (the first attempt, or
    /// a read retry after the last attempt's data did not decode); the planes' registers then hold what
    /// this sense gives, so the page's next host read moves only its data out.
    #[allow(clippy::too_many_arguments)]
    pub fn host_sense(
        &mut self,
        die: u32,
        ready: Ns,
        block: u32,
        page: u32,
        mode: CellMode,
        planes_mask: u32,
        bytes: u64,
    ) -> Ns {
        let sensed = self.sense(die, ready, page, mode, planes_mask, bytes);
        self.hold(die as usize, planes_mask, (block, page, sensed));
        self.channel_out(die, sensed, planes_mask.count_ones(), bytes)
    }

    /// When the page registers of `planes_mask` on die `d` came to hold page `page` of `block`, if they
    /// still do: the read that put it there is the last booked on each of those planes' read lanes, and
    /// after the die's last whole-die operation (without read lanes: the last operation booked on the die).
    /// With suspension or read priority work booked before the read may run after it (it went ahead, or
    /// it was suspended): that work ends later, so the register counts as overwritten.
    fn register_hit(&self, d: usize, block: u32, page: u32, planes_mask: u32) -> Option<Ns> {
        let first = d * self.geo.planes as usize;
        let whole_die = match self.die_ops.get(d) {
            None => self.array_free.get(d).copied().unwrap_or(0),
            Some(ops) => ops.last_end(),
        };
        let mut held = 0;
        for plane in (0..self.geo.planes as usize).filter(|p| planes_mask & (1 << p) != 0) {
            let (b, p, end) = (*self.registers.get(first + plane)?)?;
            let last = match self.read_lanes.get(self.lane_of(d, plane)) {
                None => self.dies[d].free_at,
                Some(tl) => tl.end().max(whole_die),
            };
            if b != block || p != page || last > end {
                return None;
            }
            held = held.max(end);
        }
        Some(held)
    }

    /// The planes in `planes_mask` of die `d` hold (block, page) from a read booked to end at the third.
    fn hold(&mut self, d: usize, planes_mask: u32, held: (u32, u32, Ns)) {
        let first = d * self.geo.planes as usize;
        for plane in (0..self.geo.planes as usize).filter(|p| planes_mask & (1 << p) != 0) {
            self.registers[first + plane] = Some(held);
        }
    }

    /// A host read of the planes in `planes_mask` (bit i = plane i): as [`Nand::read`], but with
    /// `[nand.suspension]` on it may suspend a program or erase running on the die, or go ahead of work
    /// queued there; with `independent_plane_read` a single-plane read senses beside the die's other planes.
    pub fn read_suspending(
        &mut self,
        die: u32,
        ready: Ns,
        page: u32,
        mode: CellMode,
        planes_mask: u32,
        bytes: u64,
    ) -> Ns {
        let sensed = self.sense(die, ready, page, mode, planes_mask, bytes);
        self.channel_out(die, sensed, planes_mask.count_ones(), bytes)
    }

    /// Book a host read's sensing on die `die` (see [`Nand::read_suspending`]); returns when the die (or
    /// plane) is done with it: the data is in the registers, and without cache read moved out too.
    fn sense(&mut self, die: u32, ready: Ns, page: u32, mode: CellMode, planes_mask: u32, bytes: u64) -> Ns {
        let planes = planes_mask.count_ones();
        let spread = self.read_spread(page, mode);
        self.counters.read_plane_ns += (self.timing.read_ns(page, mode) + spread) * u64::from(planes);
        let dur = self.stretched(self.timing.read_die_ns(page, mode, bytes) + spread);
        self.book_host_read(die as usize, planes_mask, ready, dur)
    }

    /// Book `dur` of die `d`'s time from `ready` for a host read of the planes in `planes_mask` (a sense,
    /// or a register hit's data-out): on its read lane, or the whole die, or by the die's operation list
    /// (ahead of queued work with read priority, suspending with suspension on); counts how it went.
    /// Returns when the die (or plane) is done with it.
    fn book_host_read(&mut self, d: usize, planes_mask: u32, ready: Ns, dur: Ns) -> Ns {
        if self.die_ops.is_empty() {
            let (s, e) = self.last_long[d];
            if s <= ready && ready < e {
                self.counters.reads_waited_program_erase += 1;
            }
            let lanes = self.lanes_of(planes_mask);
            if lanes.count_ones() == 1 {
                self.lane_read(d, lanes.trailing_zeros() as usize, ready, dur)
            } else {
                let end = self.dies[d].reserve(ready, dur).1;
                self.array_free[d] = end;
                end
            }
        } else {
            let (sensed, outcome) = if self.read_lanes.is_empty() {
                let tl = &mut self.dies[d];
                self.die_ops[d].host_read(&self.policy, ready, dur, &mut tl.free_at, &mut tl.busy_ns)
            } else {
                self.sense_tracked(d, planes_mask, ready, dur)
            };
            let c = &mut self.counters;
            match outcome {
                ReadOutcome::Plain => {}
                ReadOutcome::SuspendedProgram => c.program_suspensions += 1,
                ReadOutcome::SuspendedErase => c.erase_suspensions += 1,
                ReadOutcome::WaitedProgramErase => c.reads_waited_program_erase += 1,
                ReadOutcome::Prioritised => c.reads_prioritised += 1,
            }
            sensed
        }
    }

    /// A host read's sensing with `[nand.suspension]` on and read lanes (`independent_plane_read`, or read
    /// priority without suspension): a read on one lane that does not suspend anything senses on that
    /// lane's timeline, after the operation running on the die and, with read priority, ahead of the work
    /// queued there (which moves back), without it after all of it. A read that suspends a program or
    /// erase, and a read over several plane lanes, take the whole die by its operation list, after the
    /// reads booked on their lanes.
    fn sense_tracked(&mut self, d: usize, planes_mask: u32, ready: Ns, dur: Ns) -> (Ns, ReadOutcome) {
        let (first_unfinished, running) = self.die_ops[d].running_at(&self.policy, ready);
        let first = self.lane_of(d, 0);
        let lanes_mask = self.lanes_of(planes_mask);
        let lanes = (0..self.lanes as usize).filter(|l| lanes_mask & (1 << l) != 0).map(|l| first + l);
        if lanes_mask.count_ones() > 1 || running.is_some_and(|(_, _, suspendable)| suspendable) {
            let tl = &mut self.dies[d];
            let after_lanes = lanes.clone().map(|l| self.read_lanes[l].end()).max().unwrap_or(0);
            let ready = ready.max(after_lanes);
            let (sensed, outcome) =
                self.die_ops[d].host_read(&self.policy, ready, dur, &mut tl.free_at, &mut tl.busy_ns);
            for l in lanes {
                self.read_lanes[l].reserve(sensed - dur, dur);
            }
            return (sensed, outcome);
        }
        let prio = self.policy.read_priority;
        let from = match running {
            Some((_, end, _)) if prio => end,
            _ if prio => ready,
            _ => self.die_ops[d].last_end().max(ready),
        };
        let lane = lanes_mask.trailing_zeros() as usize;
        let (start, end) = self.read_lanes[first + lane].reserve(from, dur);
        // the work it goes ahead of moves back whole: the die's busy time grows by the read's own
        let idle = self.lane_idle(d, lane, start, end);
        let tl = &mut self.dies[d];
        let moved = if prio {
            self.die_ops[d].put_ahead_of_queued(first_unfinished, ready, (start, end), &mut tl.free_at)
        } else {
            0
        };
        tl.busy_ns += idle;
        tl.free_at = tl.free_at.max(end);
        let outcome = match running {
            Some((OpKind::Program | OpKind::Erase, _, _)) => ReadOutcome::WaitedProgramErase,
            _ if moved > 0 => ReadOutcome::Prioritised,
            _ => ReadOutcome::Plain,
        };
        (end, outcome)
    }

    /// The index in `read_lanes` of the lane plane `plane` of die `d` senses on (with one lane a die,
    /// every plane's).
    #[inline]
    fn lane_of(&self, d: usize, plane: usize) -> usize {
        d * self.lanes as usize + if self.lanes == 1 { 0 } else { plane }
    }

    /// The read lanes (bit i = lane i of the die) a read of the planes in `planes_mask` senses on.
    #[inline]
    fn lanes_of(&self, planes_mask: u32) -> u32 {
        if self.lanes == 1 {
            1
        } else {
            planes_mask
        }
    }

    /// Sense on read lane `lane` of die `d` for `dur` from `ready`: after the die's last whole-die
    /// operation, in the first gap of the lane's reads that fits (beside reads on the die's other planes'
    /// lanes). Returns when sensed.
    #[inline]
    fn lane_read(&mut self, d: usize, lane: usize, ready: Ns, dur: Ns) -> Ns {
        let l = self.lane_of(d, lane);
        let (start, end) = self.read_lanes[l].reserve(ready.max(self.array_free[d]), dur);
        let idle = self.lane_idle(d, lane, start, end);
        let tl = &mut self.dies[d];
        tl.busy_ns += idle;
        tl.free_at = tl.free_at.max(end);
        end
    }

    /// The die time a read on lane `lane` of die `d` over `start..end` adds: the die is busy while any of
    /// its planes is, so only the part no other lane's read covers (nothing is booked past the die's
    /// `free_at`, and whole-die work never overlaps a lane's reads: it is booked after them, or moved back
    /// behind a read that goes ahead of it).
    fn lane_idle(&mut self, d: usize, lane: usize, start: Ns, end: Ns) -> Ns {
        if self.lanes == 1 || start >= self.dies[d].free_at {
            end - start
        } else {
            end - start - self.covered_by_other_lanes(d, lane, start, end)
        }
    }

    /// How much of `start..end` the reads on die `d`'s lanes other than `lane` cover, together.
    fn covered_by_other_lanes(&mut self, d: usize, lane: usize, start: Ns, end: Ns) -> Ns {
        let first = self.lane_of(d, 0);
        self.overlaps.clear();
        for l in (first..first + self.lanes as usize).filter(|&l| l != first + lane) {
            let clip = |&(s, e): &(Ns, Ns)| (s.max(start), e.min(end));
            self.overlaps.extend(self.read_lanes[l].overlapping(start, end).iter().map(clip));
        }
        self.overlaps.sort_unstable();
        let (mut covered, mut reach) = (0, start);
        for &(s, e) in &self.overlaps {
            covered += e.saturating_sub(s.max(reach));
            reach = reach.max(e);
        }
        covered
    }

    /// This read's time past the typical tR (0 without a spread).
    #[inline]
    fn read_spread(&mut self, page: u32, mode: CellMode) -> Ns {
        match &mut self.spread {
            None => 0,
            Some(s) => s.per_type(|s| &s.tR, page, mode),
        }
    }

    #[inline]
    fn channel_reserve(&mut self, ch: usize, ready: Ns, dur: Ns) -> (Ns, Ns) {
        let (start, end) = self.channel_gaps[ch].reserve(ready, dur);
        let tl = &mut self.channels[ch];
        tl.free_at = tl.free_at.max(end);
        tl.busy_ns += dur;
        (start, end)
    }

    /// Move a read's `bytes` from the die to the controller once sensed (without cache read the die's
    /// reservation already covers the data-out, which starts as its tR ends).
    #[inline]
    fn channel_out(&mut self, die: u32, sensed: Ns, planes: u32, bytes: u64) -> Ns {
        let ch = self.geo.channel_of(die) as usize;
        let bus = self.timing.bus_ns(bytes);
        let sensed = if self.timing.cache_read { sensed } else { sensed - bus };
        let (_, out) = self.channel_reserve(ch, sensed, bus);
        self.counters.pages_read += u64::from(planes);
        self.counters.bus_bytes += bytes;
        out
    }

    /// Move one program unit (`bytes`, starting at page index `page`) in over the channel and program it.
    /// Returns when it is programmed.
    pub fn program(&mut self, die: u32, ready: Ns, page: u32, mode: CellMode, bytes: u64) -> Ns {
        self.program_unit(die, ready, page, mode, bytes).1
    }

    /// As [`Nand::program`]; returns (when its data is in the die, when it is programmed).
    pub fn program_unit(&mut self, die: u32, ready: Ns, page: u32, mode: CellMode, bytes: u64) -> (Ns, Ns) {
        let ch = self.geo.channel_of(die) as usize;
        let bus = self.timing.bus_ns(bytes);
        // The data goes in just before the die can start the program, not as soon as it is ready, so a
        // burst of GC programs does not hold the channel for all of them at once. Cache program overlaps
        // the data-in with the die's previous operation, but only as far as the cache latches reach: one
        // page per plane. A one-shot program of k pages per plane needs its other k - 1 in the data
        // latches, which hold the previous program's pages until it is done (TLC cache programming that
        // frees them early came later, e.g. YMTC's US 11670366 and Intel's US 12230334); so 1/k of its
        // data-in overlaps, the rest follows the die. Without cache program the die must be done first.
        let die_free = self.dies[die as usize].free_at;
        let ahead =
            if self.timing.cache_program { bus / u64::from(self.geo.pages_per_program(mode)) } else { 0 };
        let load_from = die_free.saturating_sub(ahead);
        let ready = ready.max(load_from);
        let (_, loaded) = self.channel_reserve(ch, ready, bus);
        let extra = match &mut self.spread {
            None => 0,
            Some(s) => s.per_type(|s| &s.tPROG, page, mode),
        };
        let dur = self.timing.command + self.timing.program_ns(page, mode) + extra;
        self.counters.program_plane_ns +=
            (self.timing.program_ns(page, mode) + extra) * u64::from(self.geo.planes);
        let (_, done) = self.die_reserve(die, loaded, dur, OpKind::Program);
        self.counters.pages_programmed += u64::from(self.geo.pages_per_program(mode) * self.geo.planes);
        if mode == CellMode::Slc {
            self.counters.slc_pages_programmed += u64::from(self.geo.planes);
        }
        self.counters.bus_bytes += bytes;
        (loaded, done)
    }

    /// Erase one multi-plane block. Returns when it is erased.
    pub fn erase(&mut self, die: u32, ready: Ns) -> Ns {
        let extra = match &mut self.spread {
            None => 0,
            Some(s) => s.draw(s.tBERS),
        };
        let t = &self.timing;
        let dur = t.command + t.tBERS + extra;
        self.counters.erase_plane_ns += (t.tBERS + extra) * u64::from(self.geo.planes);
        let (_, done) = self.die_reserve(die, ready, dur, OpKind::Erase);
        self.counters.blocks_erased += 1;
        done
    }

    /// Total busy time of each die so far.
    pub fn die_busy_ns(&self) -> Vec<Ns> {
        self.dies.iter().map(|d| d.busy_ns).collect()
    }

    /// When die `die` has finished what it was given.
    pub fn die_free_at(&self, die: u32) -> Ns {
        self.dies[die as usize].free_at
    }

    /// When the least busy die has finished what it was given.
    pub fn first_idle_die_at(&self) -> Ns {
        self.dies.iter().map(|t| t.free_at).min().unwrap_or(0)
    }

    /// When every die and channel has finished what it was given.
    pub fn idle_at(&self) -> Ns {
        self.dies.iter().chain(&self.channels).map(|t| t.free_at).max().unwrap_or(0)
    }
}
