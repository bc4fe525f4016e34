//! The controller: firmware cores, the write buffer, the mapping cache, and the scheduling of the FTL's
//! flash operations on the NAND timelines.
//!
//! A command's path is computed when it arrives, by reserving each resource it needs in turn
//! (firmware core -> map lookup -> die/channel -> link). Arrivals are processed in time order, so every
//! resource is reserved in arrival order.

mod map_cache;
mod write_buffer;

use crate::config::DriveConfig;
use crate::engine::Ns;
use crate::ftl::{FlashOp, Ftl, FtlError, Lpn, Source};
use crate::link::{Direction, Link};
use crate::nand::{CellMode, Nand, Ppn};
use map_cache::MapCache;
use write_buffer::WriteBuffer;

pub const SLOT_BYTES: u64 = 4096;

/// What the controller has done, for the Result counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControllerCounters {
    /// 4 KiB host reads served from the write buffer.
    pub write_buffer_hits: u64,
    /// 4 KiB host reads of never-written or trimmed LPNs (answered without touching flash).
    pub unmapped_reads: u64,
    pub map_lookups: u64,
    pub map_hits: u64,
    /// Time host writes waited for write-buffer space.
    pub write_buffer_stall_ns: u64,
}

#[derive(Clone, Debug)]
pub struct Controller {
    read_overhead: Ns,
    write_overhead: Ns,
    cores: Vec<Ns>,
    pub link: Link,
    buffer: WriteBuffer,
    map: MapCache,
    pub ftl: Ftl,
    pub nand: Nand,
    /// Host program units sent to flash and not yet programmed: (first PPN, slots, programmed at).
    in_flight: Vec<(Ppn, u32, Ns)>,
    ops: Vec<FlashOp>,
    pub counters: ControllerCounters,
}

impl Controller {
    pub fn new(cfg: &DriveConfig) -> Self {
        let nand = Nand::new(&cfg.nand);
        let ftl = Ftl::new(&cfg.ftl, nand.geo);
        Controller {
            read_overhead: cfg.controller.read_overhead_ns,
            write_overhead: cfg.controller.write_overhead_ns,
            cores: vec![0; cfg.controller.cores as usize],
            link: Link::new(&cfg.link),
            buffer: WriteBuffer::new(cfg.controller.write_buffer_kib * 1024 / SLOT_BYTES),
            map: MapCache::new(&cfg.controller.map_cache),
            ftl,
            nand,
            in_flight: Vec::new(),
            ops: Vec::new(),
            counters: ControllerCounters::default(),
        }
    }

    /// Firmware handling on the first free core.
    fn firmware(&mut self, now: Ns, cost: Ns) -> Ns {
        let (i, &free) = self.cores.iter().enumerate().min_by_key(|&(i, &f)| (f, i)).expect("cores >= 1");
        let end = now.max(free) + cost;
        self.cores[i] = end;
        end
    }

    /// Read `n` LPNs from `lpn`, arriving at `now`. Returns when the last byte has reached the host.
    pub fn read(&mut self, now: Ns, lpn: Lpn, n: u32) -> Ns {
        let mut t = self.firmware(now, self.read_overhead);
        t += self.map.lookup(lpn, n, &mut self.counters);
        let geo = self.nand.geo;
        let mut done = t;
        let mut i = 0;
        while i < n {
            let Some(ppn) = self.ftl.lookup(lpn + i) else {
                self.counters.unmapped_reads += 1;
                done = done.max(self.link.transfer(Direction::Up, t, SLOT_BYTES));
                i += 1;
                continue;
            };
            if self.in_write_buffer(ppn, now) {
                self.counters.write_buffer_hits += 1;
                done = done.max(self.link.transfer(Direction::Up, t, SLOT_BYTES));
                i += 1;
                continue;
            }
            // Gather the following LPNs that sit on the same page index of the same block: one multi-plane read.
            let (block, page, plane) = geo.locate(ppn);
            let mut planes_mask = 1u32 << plane;
            let mut j = i + 1;
            while j < n {
                match self.ftl.lookup(lpn + j) {
                    Some(p) if !self.in_write_buffer(p, now) => {
                        let (b, pg, pl) = geo.locate(p);
                        if b != block || pg != page {
                            break;
                        }
                        planes_mask |= 1 << pl;
                        j += 1;
                    }
                    _ => break,
                }
            }
            let bytes = u64::from(j - i) * SLOT_BYTES;
            let die = geo.die_of_block(block);
            let mode = self.ftl.block(block).mode;
            let at_controller = self.nand.read(die, t, page, mode, planes_mask.count_ones(), bytes);
            done = done.max(self.link.transfer(Direction::Up, at_controller, bytes));
            i = j;
        }
        done
    }

    /// Write `n` LPNs from `lpn`, arriving at `now`. Returns when the write is acknowledged (data in the
    /// write buffer). Large writes enter the buffer one program unit at a time as space frees.
    pub fn write(&mut self, now: Ns, lpn: Lpn, n: u32) -> Result<Ns, FtlError> {
        let t = self.firmware(now, self.write_overhead);
        let t = self.link.transfer(Direction::Down, t, u64::from(n) * SLOT_BYTES);
        let chunk = self.nand.geo.slots_per_program(CellMode::Native);
        let mut acked = t;
        let mut i = 0;
        while i < n {
            let len = chunk.min(n - i);
            let admitted = self.buffer.admit(t, len);
            acked = admitted;
            for k in i..i + len {
                self.ftl.write(lpn + k, &mut self.ops)?;
            }
            self.schedule(admitted);
            i += len;
        }
        self.counters.write_buffer_stall_ns += acked - t;
        Ok(acked)
    }

    /// Deallocate `n` LPNs from `lpn`.
    pub fn trim(&mut self, now: Ns, lpn: Lpn, n: u32) -> Ns {
        for k in 0..n {
            self.ftl.trim(lpn + k);
        }
        self.firmware(now, self.write_overhead)
    }

    /// Idle-time work (folding, background GC) between `from` and `until`: each step is put on the NAND
    /// timelines when the least busy die frees up, until every die is busy past `until`.
    pub fn background(&mut self, from: Ns, until: Ns) {
        loop {
            let start = from.max(self.nand.first_idle_die_at());
            if start >= until || !self.ftl.background_step(&mut self.ops) {
                break;
            }
            self.schedule(start);
        }
    }

    fn in_write_buffer(&self, ppn: Ppn, now: Ns) -> bool {
        self.ftl.in_open_unit(ppn)
            || self.in_flight.iter().any(|&(first, n, done)| done > now && ppn >= first && ppn < first + n)
    }

    /// Put the FTL's pending flash operations on the NAND timelines, starting at `now`.
    /// GC programs wait for the GC reads before them; an erase waits for its block's reads.
    fn schedule(&mut self, now: Ns) {
        let mut gc_read_done = now;
        for op in self.ops.drain(..) {
            let geo = self.nand.geo;
            match op {
                FlashOp::Read { block, page, planes, slots, mode } => {
                    let die = geo.die_of_block(block);
                    let d = self.nand.read(die, now, page, mode, planes, u64::from(slots) * SLOT_BYTES);
                    gc_read_done = gc_read_done.max(d);
                }
                FlashOp::Program { block, offset, slots, source, mode } => {
                    let die = geo.die_of_block(block);
                    let first = geo.ppn(block, offset);
                    let ready = if source == Source::Gc { gc_read_done } else { now };
                    let page = geo.page_of(offset);
                    let done = self.nand.program(die, ready, page, mode, u64::from(slots) * SLOT_BYTES);
                    if source == Source::Host {
                        self.buffer.release_at(done, slots);
                        self.in_flight.retain(|&(_, _, d)| d > now);
                        self.in_flight.push((first, slots, done));
                    }
                }
                FlashOp::Erase { block } => {
                    let die = geo.die_of_block(block);
                    self.nand.erase(die, gc_read_done);
                }
            }
        }
    }
}
