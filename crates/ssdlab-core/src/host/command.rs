//! One host command and its completion: what the stepping API ([`crate::Drive::submit`],
//! [`crate::Drive::poll`]) takes and gives back.

use crate::engine::Ns;
use std::fmt;
use std::str::FromStr;

/// What a command asks of the drive (NVMe Read, Write, Dataset Management deallocate, Flush).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// Read data.
    Read,
    /// Write data.
    Write,
    /// Deallocate (TRIM): the range's data is dropped from the map.
    Trim,
    /// Returns once every write acknowledged before it is on flash (partly filled program units are
    /// programmed padded). Offset and length are ignored.
    Flush,
}

impl Op {
    /// The names [`Op::from_str`] takes.
    pub const NAMES: &'static str = "read, write, trim, flush";

    /// The lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Write => "write",
            Op::Trim => "trim",
            Op::Flush => "flush",
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Op {
    type Err = super::WorkloadError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "read" => Op::Read,
            "write" => Op::Write,
            "trim" => Op::Trim,
            "flush" => Op::Flush,
            _ => return Err(super::WorkloadError::new("op", &format!("must be one of {}", Op::NAMES), s)),
        })
    }
}

/// The smallest unit a command addresses: a 512-byte sector (NVMe's LBA). The drive maps 4 KiB logical
/// pages; a command that covers part of one reads or read-modify-writes the whole page.
pub const SECTOR_BYTES: u64 = 512;

/// One host command. Offsets and lengths are bytes, whole 512 B sectors.
///
/// ```
/// use ssdlab_core::{Command, Op};
/// let w = Command { compress_pct: 50, fua: true, ..Command::new(Op::Write, 0, 4096) };
/// assert_eq!((w.op, w.len, w.tag), (Op::Write, 4096, 0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Command {
    /// What to do.
    pub op: Op,
    /// First byte.
    pub offset: u64,
    /// Bytes.
    pub len: u64,
    /// Writes: how much of the data compresses away, percent (fio's `buffer_compress_percentage`).
    pub compress_pct: u32,
    /// Writes: Force Unit Access, completes only once the data is on flash (as a write then a flush).
    pub fua: bool,
    /// Caller's own value, handed back in the completion (as io_uring's `user_data`).
    pub tag: u64,
}

impl Command {
    /// A command with no compression, no FUA and tag 0.
    pub fn new(op: Op, offset: u64, len: u64) -> Self {
        Command { op, offset, len, compress_pct: 0, fua: false, tag: 0 }
    }
}

/// How a command ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// Done as asked.
    Success,
}

impl Status {
    /// The lower-case name.
    pub fn name(self) -> &'static str {
        match self {
            Status::Success => "success",
        }
    }
}

/// A finished command, as [`crate::Drive::poll`] returns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    /// The id [`crate::Drive::submit`] returned.
    pub id: u64,
    /// The command's `tag`.
    pub tag: u64,
    /// What was done.
    pub op: Op,
    /// First byte.
    pub offset: u64,
    /// Bytes.
    pub len: u64,
    /// When the host submitted it.
    pub submit_ns: Ns,
    /// When the host saw it complete.
    pub complete_ns: Ns,
    /// How it ended.
    pub status: Status,
}
