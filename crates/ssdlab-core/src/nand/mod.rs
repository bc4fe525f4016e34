//! NAND flash: geometry, address encoding, and the timing state of dies and channels.
//!
//! Operations are scheduled per program unit (all planes x the pages of a one-shot program), never per
//! 4 KiB. Dies and channels are reservation timelines: an operation starts when its inputs are ready and
//! the resource is free. Reads pipeline tR with the data-out transfer (cache read); programs load data over
//! the channel while the die may still be busy (cache program).

mod geometry;

pub use geometry::{Geometry, Ppn};

use crate::config::NandConfig;
use crate::engine::{transfer_ns, us_to_ns, Ns};

/// How a block is being used: at its native bits per cell, or one bit per cell (SLC mode, the SLC cache).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CellMode {
    Native,
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
    pub slc_tR: Ns,
    pub slc_tPROG: Ns,
    pub tBERS: Ns,
    pub command: Ns,
    /// Channel bus bytes per second.
    pub bus_bytes_per_s: u64,
}

impl Timing {
    pub fn new(c: &NandConfig) -> Self {
        Timing {
            tR: c.tR_us.iter().map(|&t| us_to_ns(t)).collect(),
            tPROG: c.tPROG_us.iter().map(|&t| us_to_ns(t)).collect(),
            slc_tR: us_to_ns(c.slc_tR_us),
            slc_tPROG: us_to_ns(c.slc_tPROG_us),
            tBERS: us_to_ns(c.tBERS_ms * 1e3),
            command: c.command_overhead_ns,
            bus_bytes_per_s: u64::from(c.bus_mts) * 1_000_000,
        }
    }

    pub fn bus_ns(&self, bytes: u64) -> Ns {
        transfer_ns(bytes, self.bus_bytes_per_s)
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
    pub blocks_erased: u64,
    pub bus_bytes: u64,
}

/// Timing state of every die and channel.
#[derive(Clone, Debug)]
pub struct Nand {
    pub geo: Geometry,
    pub timing: Timing,
    dies: Vec<Timeline>,
    channels: Vec<Timeline>,
    pub counters: NandCounters,
}

impl Nand {
    pub fn new(c: &NandConfig) -> Self {
        let geo = Geometry::new(c);
        Nand {
            dies: vec![Timeline::default(); geo.dies as usize],
            channels: vec![Timeline::default(); geo.channels as usize],
            timing: Timing::new(c),
            geo,
            counters: NandCounters::default(),
        }
    }

    /// Read page index `page` on `planes` planes of one die in one multi-plane read and move `bytes` out
    /// over the channel. Returns when the data is in the controller.
    pub fn read(&mut self, die: u32, ready: Ns, page: u32, mode: CellMode, planes: u32, bytes: u64) -> Ns {
        let t = &self.timing;
        let (_, sensed) = self.dies[die as usize].reserve(ready, t.command + t.read_ns(page, mode));
        let ch = self.geo.channel_of(die) as usize;
        let (_, out) = self.channels[ch].reserve(sensed, t.bus_ns(bytes));
        self.counters.pages_read += u64::from(planes);
        self.counters.bus_bytes += bytes;
        out
    }

    /// Move one program unit (`bytes`, starting at page index `page`) in over the channel and program it.
    /// Returns when it is programmed.
    pub fn program(&mut self, die: u32, ready: Ns, page: u32, mode: CellMode, bytes: u64) -> Ns {
        let t = &self.timing;
        let ch = self.geo.channel_of(die) as usize;
        let (_, loaded) = self.channels[ch].reserve(ready, t.bus_ns(bytes));
        let (_, done) = self.dies[die as usize].reserve(loaded, t.command + t.program_ns(page, mode));
        self.counters.pages_programmed += u64::from(self.geo.pages_per_program(mode) * self.geo.planes);
        if mode == CellMode::Slc {
            self.counters.slc_pages_programmed += u64::from(self.geo.planes);
        }
        self.counters.bus_bytes += bytes;
        done
    }

    /// Erase one multi-plane block. Returns when it is erased.
    pub fn erase(&mut self, die: u32, ready: Ns) -> Ns {
        let t = &self.timing;
        let (_, done) = self.dies[die as usize].reserve(ready, t.command + t.tBERS);
        self.counters.blocks_erased += 1;
        done
    }

    /// Total busy time of each die so far.
    pub fn die_busy_ns(&self) -> Vec<Ns> {
        self.dies.iter().map(|d| d.busy_ns).collect()
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
