//! The controller: firmware cores, the write buffer, the mapping cache, and the scheduling of the FTL's
//! flash operations on the NAND timelines.
//!
//! A command's path is computed when it arrives, by reserving each resource it needs in turn
//! (firmware core -> map lookup -> die/channel -> LDPC decoder -> SRAM -> DMA -> link for a read;
//! firmware core -> link -> DMA -> SRAM -> write buffer -> map update -> firmware commit for a write).
//! Arrivals are processed in time order, so every resource is reserved in arrival order.

mod data_path;
mod map_cache;
mod read_ahead;
mod read_retry;
mod write_buffer;

use crate::config::{BufferRelease, CompressionConfig, DriveConfig};
use crate::engine::{GapTimeline, Ns};
use crate::ftl::{FlashOp, Ftl, FtlError, Lpn, Source};
use crate::link::Link;
use crate::nand::{CellMode, Nand, Ppn};
use data_path::DataPath;
use map_cache::{MapCache, MapIo};
use read_ahead::ReadAhead;
use read_retry::ReadRetry;
use write_buffer::WriteBuffer;

/// Bytes of a logical page (LPN).
pub const SLOT_BYTES: u64 = 4096;

/// The logical pages a command touches: `n` from `lpn`, of which the host's bytes leave out the first
/// `head` bytes of the first page and the last `tail` bytes of the last (0 and 0: whole pages). The
/// flash side always works in whole pages; only what crosses the link is the host's own length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span {
    /// The first page.
    pub lpn: Lpn,
    /// Pages.
    pub n: u32,
    /// Bytes of the first page before the host's.
    pub head: u64,
    /// Bytes of the last page after the host's.
    pub tail: u64,
}

impl Span {
    /// `n` whole pages from `lpn`.
    pub fn pages(lpn: Lpn, n: u32) -> Self {
        Span { lpn, n, head: 0, tail: 0 }
    }

    /// The pages `len` bytes from byte `offset` touch (the range within the LPN space).
    ///
    /// ```
    /// use ssdlab_core::controller::Span;
    /// assert_eq!(Span::of_bytes(4096 + 512, 1024), Span { lpn: 1, n: 1, head: 512, tail: 2560 });
    /// assert_eq!(Span::of_bytes(3584, 1024).n, 2);
    /// ```
    pub fn of_bytes(offset: u64, len: u64) -> Self {
        let first = offset / SLOT_BYTES;
        let end = (offset + len).div_ceil(SLOT_BYTES);
        Span {
            lpn: first as Lpn,
            n: (end - first) as u32,
            head: offset - first * SLOT_BYTES,
            tail: end * SLOT_BYTES - (offset + len),
        }
    }

    /// Host bytes of the span's pages `i..j`.
    fn host_bytes(&self, i: u32, j: u32) -> u64 {
        let mut b = u64::from(j - i) * SLOT_BYTES;
        if i == 0 {
            b -= self.head;
        }
        if j == self.n {
            b -= self.tail;
        }
        b
    }

    /// The pages the span covers only in part: the first if it starts inside it, the last if it ends
    /// inside it (once if they are the same page).
    fn partial_pages(&self) -> impl Iterator<Item = Lpn> {
        let first = (self.head > 0).then_some(self.lpn);
        let last = (self.tail > 0 && (self.n > 1 || self.head == 0)).then_some(self.lpn + self.n - 1);
        first.into_iter().chain(last)
    }
}

/// What the controller has done, for the Result counters.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ControllerCounters {
    /// 4 KiB pages the host's read commands touched.
    pub read_pages: u64,
    /// 4 KiB host reads served from the write buffer.
    pub write_buffer_hits: u64,
    /// 4 KiB host reads of never-written or trimmed LPNs (answered without touching flash).
    pub unmapped_reads: u64,
    /// Map-page lookups (one per map page a command touches).
    pub map_lookups: u64,
    /// Map lookups that found their map page cached.
    pub map_hits: u64,
    /// Map lookups that had to load their map page.
    pub map_misses: u64,
    /// Map hits of writes whose map page was not cached (`lazy_map_updates`): entries left in the journal
    /// and the delta table, the map page merged at the next checkpoint.
    pub map_lazy_updates: u64,
    /// Map pages read from NAND (misses of map pages on flash, prefetches, ECC reloads).
    pub map_pages_read: u64,
    /// Dirty map data written back to NAND, in 4 KiB pages.
    pub map_pages_written: u64,
    /// Map journal programmed to NAND, in 4 KiB pages.
    pub map_journal_pages_written: u64,
    /// Map checkpoints (every dirty map page written to NAND).
    pub map_checkpoints: u64,
    /// Bytes moved over the link to and from the host memory buffer.
    pub hmb_bytes: u64,
    /// HMB accesses with a single-bit error corrected by ECC.
    pub hmb_ecc_corrected: u64,
    /// HMB accesses with a double-bit error: map page reloaded from NAND.
    pub hmb_ecc_reloads: u64,
    /// Time host writes waited for write-buffer space.
    pub write_buffer_stall_ns: u64,
    /// Extra reads of a page whose data did not decode (`[nand.read_retry]`), host and GC reads.
    pub read_retries: u64,
    /// Pages a host write covered only in part whose other sectors were read from flash first
    /// (read-modify-write: the merged page is programmed whole).
    pub rmw_reads: u64,
    /// 4 KiB pages read from flash ahead of a sequential read stream (`read_ahead_kib`).
    pub read_ahead_pages: u64,
    /// 4 KiB host reads served from pages read ahead.
    pub read_ahead_hits: u64,
}

/// The controller: firmware cores, write buffer, map cache, compression engine, and the FTL and NAND it
/// drives. Read-only outside the crate: [`Drive::controller`](crate::Drive::controller) lends it to tests.
#[derive(Clone, Debug)]
pub struct Controller {
    read_overhead: Ns,
    write_overhead: Ns,
    /// Firmware time of a write once its data is in the buffer.
    write_commit: Ns,
    /// From a write command's decode until host memory sends its data (the memory-read request's way).
    write_fetch: Ns,
    /// Flush and FUA complete once the data is in the (protected) buffer.
    power_loss_protection: bool,
    /// When a native-mode host unit leaves the write buffer.
    native_release: BufferRelease,
    cores: Vec<GapTimeline>,
    data: DataPath,
    /// The host link.
    pub link: Link,
    buffer: WriteBuffer,
    map: MapCache,
    /// The flash translation layer (inspect it with [`Ftl::lookup`], [`Ftl::block`], [`Ftl::heap_bytes`]).
    pub ftl: Ftl,
    /// The NAND dies and channels.
    pub nand: Nand,
    /// Host program units sent to flash and not yet programmed: (first PPN, slots, programmed at).
    in_flight: Vec<(Ppn, u32, Ns)>,
    /// When the last of `in_flight` is programmed: from then on a read need not look through them.
    in_flight_until: Ns,
    ops: Vec<FlashOp>,
    /// While a batch of ops is scheduled: per die touched, when its GC or fold reads are done.
    moved_ready: Vec<(u32, Ns)>,
    /// Read retry on aged blocks (`None`: off).
    retry: Option<ReadRetry>,
    /// Sequential read-ahead (window 0: off).
    ahead: ReadAhead,
    compression: CompressionConfig,
    /// The compression engine's busy time: [compress, decompress].
    engine: [GapTimeline; 2],
    /// What the controller has done.
    pub counters: ControllerCounters,
}

impl Controller {
    /// A controller for `cfg`, with a fresh (unwritten) FTL.
    pub fn new(cfg: &DriveConfig) -> Self {
        let compression = cfg.controller.compression.clone();
        let slot_bytes = if compression.enabled { 256 } else { 4096 };
        let nand = Nand::new_seeded(&cfg.nand, slot_bytes, cfg.seed);
        let ftl = Ftl::new(&cfg.ftl, nand.geo, cfg.seed);
        Controller {
            read_overhead: cfg.controller.read_overhead_ns,
            write_overhead: cfg.controller.write_overhead_ns,
            write_commit: cfg.controller.write_path.commit_ns,
            write_fetch: cfg.link.latency_ns + cfg.host.memory_read_ns,
            power_loss_protection: cfg.controller.write_path.power_loss_protection,
            native_release: cfg.controller.write_path.native_buffer_release,
            cores: vec![GapTimeline::default(); cfg.controller.cores as usize],
            data: DataPath::new(&cfg.controller.data_path, cfg.nand.channels),
            link: Link::new(&cfg.link),
            buffer: WriteBuffer::new(cfg.controller.write_buffer_bytes() / u64::from(slot_bytes)),
            compression,
            engine: Default::default(),
            map: MapCache::new(cfg, ftl.user_lpns(), &nand.geo),
            ftl,
            nand,
            in_flight: Vec::new(),
            in_flight_until: 0,
            ops: Vec::new(),
            moved_ready: Vec::new(),
            retry: ReadRetry::new(&cfg.nand.read_retry, cfg.seed),
            ahead: ReadAhead::new(cfg.controller.read_ahead_kib),
            counters: ControllerCounters::default(),
        }
    }

    /// Firmware handling of `cost`, ready at `ready`, on the core that can finish it first. Cores keep
    /// their busy intervals: a write's commit booked for when its data will be in does not hold up
    /// commands arriving before then.
    fn firmware(&mut self, ready: Ns, cost: Ns) -> Ns {
        // the common case: a core idle from `ready` on
        if let Some(core) = self.cores.iter_mut().find(|c| c.end() <= ready) {
            return core.reserve(ready, cost).1;
        }
        let mut best = (Ns::MAX, 0, 0);
        for (i, core) in self.cores.iter().enumerate() {
            let (start, at) = core.earliest(ready, cost);
            if start < best.0 {
                best = (start, i, at);
                if start == ready {
                    break;
                }
            }
        }
        self.cores[best.1].book(best.0, best.2, cost).1
    }

    /// Read the pages of `span`, arriving at `now`. Returns when the last byte has reached the host.
    pub fn read(&mut self, now: Ns, span: Span) -> Ns {
        let Span { lpn, n, .. } = span;
        self.counters.read_pages += u64::from(n);
        let t = self.firmware(now, self.read_overhead);
        let io = &mut MapIo { nand: &mut self.nand, link: &mut self.link, data: &mut self.data };
        let t = self.map.lookup(t, lpn, n, false, io, &mut self.counters);
        let ahead = self.ahead.on_read(lpn, n, self.ftl.user_lpns());
        let mut done = t;
        let mut i = 0;
        while i < n {
            let Some(ppn) = self.ftl.lookup(lpn + i) else {
                self.counters.unmapped_reads += 1;
                done = done.max(self.data.send_up(&mut self.link, t, 0, span.host_bytes(i, i + 1)));
                i += 1;
                continue;
            };
            if self.in_write_buffer(ppn, now) {
                self.counters.write_buffer_hits += 1;
                done = done.max(self.data.send_up(&mut self.link, t, 0, span.host_bytes(i, i + 1)));
                i += 1;
                continue;
            }
            if let Some((ready, took)) = self.ahead.take(lpn + i, ppn) {
                self.counters.read_ahead_hits += 1;
                done = done.max(self.data.send_up(
                    &mut self.link,
                    ready.max(t),
                    took,
                    span.host_bytes(i, i + 1),
                ));
                i += 1;
                continue;
            }
            let (j, block, page, planes_mask) = self.same_page_run(lpn, i, n, ppn, now);
            let nand_bytes = self.stored_bytes(lpn, i, j);
            let host_bytes = span.host_bytes(i, j);
            let (decoded, took) = self.read_flash(t, block, page, planes_mask, nand_bytes);
            let inflated = self.engine(1, decoded, host_bytes);
            done = done.max(self.data.send_up(&mut self.link, inflated, took, host_bytes));
            i = j;
        }
        if let Some((first, count)) = ahead {
            self.read_ahead(t, first, count);
        }
        done
    }

    /// The LPNs from `lpn + i` (mapped to `ppn`, not in the write buffer) that sit on the same page index
    /// of the same block, for one multi-plane read: (end of the run, block, page index, planes).
    fn same_page_run(&self, lpn: Lpn, i: u32, n: u32, ppn: Ppn, now: Ns) -> (u32, u32, u32, u32) {
        let geo = self.nand.geo;
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
        (j, block, page, planes_mask)
    }

    /// Bytes the LPNs `lpn + i .. lpn + j` take on flash: compressed data moves fewer bytes over the NAND
    /// bus, then is inflated for the host.
    fn stored_bytes(&self, lpn: Lpn, i: u32, j: u32) -> u64 {
        let stored: u32 = (i..j).map(|k| self.ftl.size_of(lpn + k)).sum();
        u64::from(stored) * u64::from(self.nand.geo.slot_bytes)
    }

    /// Read `count` LPNs from `first` ahead of a sequential stream, from `t`: their map entries looked up,
    /// their pages read from flash and decoded into the buffer, where the next commands take them. Pages
    /// that are unmapped or still in the write buffer are not read (a command finds them where they are).
    fn read_ahead(&mut self, t: Ns, first: Lpn, count: u32) {
        let io = &mut MapIo { nand: &mut self.nand, link: &mut self.link, data: &mut self.data };
        let t = self.map.lookup(t, first, count, false, io, &mut self.counters);
        let mut i = 0;
        while i < count {
            let ppn = match self.ftl.lookup(first + i) {
                Some(p) if !self.in_write_buffer(p, t) => p,
                _ => {
                    i += 1;
                    continue;
                }
            };
            let (j, block, page, planes_mask) = self.same_page_run(first, i, count, ppn, t);
            let nand_bytes = self.stored_bytes(first, i, j);
            let (decoded, took) = self.read_flash(t, block, page, planes_mask, nand_bytes);
            let inflated = self.engine(1, decoded, u64::from(j - i) * SLOT_BYTES);
            for k in i..j {
                if let Some(p) = self.ftl.lookup(first + k) {
                    self.ahead.hold(first + k, p, inflated, took);
                }
            }
            self.counters.read_ahead_pages += u64::from(j - i);
            i = j;
        }
    }

    /// A host read of the planes in `planes_mask` of page `page` in `block`, `nand_bytes` out, from `t`:
    /// sensed (or taken from the page register), moved out, decoded, retried as it needs. Returns
    /// (decoded at, decoder time).
    fn read_flash(&mut self, t: Ns, block: u32, page: u32, planes_mask: u32, nand_bytes: u64) -> (Ns, Ns) {
        let die = self.nand.geo.die_of_block(block);
        let mode = self.ftl.block(block).mode;
        let hits = self.nand.counters.register_hits;
        let at_controller = self.nand.host_read(die, t, block, page, mode, planes_mask, nand_bytes);
        let (decoded, took) = self.decode(die, at_controller, nand_bytes, mode);
        // data from the page register is what the read before sensed, after any retries it needed:
        // it decodes at once
        if self.nand.counters.register_hits > hits {
            return (decoded, took);
        }
        self.retry_reads(block, page, Planes::Host(planes_mask), nand_bytes, decoded, took)
    }

    /// Write the pages of `span`, arriving at `now`. Returns when the write is acknowledged: its data
    /// fetched from host memory into the write buffer, its map entries updated and the write committed by
    /// firmware. `compress_pct` is how compressible the data is (fio's buffer_compress_percentage).
    ///
    /// The data comes in a program unit at a time, each fetched once the buffer has room for it: a write
    /// larger than the buffer streams through it (the first units program while the last still cross the
    /// link) rather than crossing the link whole before any of it can go to flash.
    ///
    /// A page the write covers only in part is merged with its other sectors before it is programmed
    /// whole: from the write buffer when its current version is there, else read from flash first
    /// (read-modify-write, `rmw_reads`). The acknowledgement does not wait for that read; the merged
    /// page's program does.
    pub fn write(&mut self, now: Ns, span: Span, compress_pct: u32) -> Result<Ns, FtlError> {
        let Span { lpn, n, .. } = span;
        let t_fw = self.firmware(now, self.write_overhead);
        let mut merged = t_fw;
        for l in span.partial_pages() {
            let Some(ppn) = self.ftl.lookup(l) else { continue };
            if !self.in_write_buffer(ppn, now) {
                let (block, page, plane) = self.nand.geo.locate(ppn);
                let bytes = u64::from(self.ftl.size_of(l)) * u64::from(self.nand.geo.slot_bytes);
                merged = merged.max(self.read_flash(t_fw, block, page, 1 << plane, bytes).0);
                self.counters.rmw_reads += 1;
            }
        }
        let k = self.slots_per_lpn(compress_pct);
        let chunk = (self.nand.geo.slots_per_program(CellMode::Native) / k).max(1);
        let (mut room, mut data_in) = (t_fw, t_fw);
        let mut i = 0;
        while i < n {
            let len = chunk.min(n - i);
            room = self.buffer.admit(t_fw, len * k);
            // the device reads the data from host memory: the request goes up, the data comes down
            let bytes = span.host_bytes(i, i + len);
            let fetched = self.data.fetch_down(&mut self.link, room + self.write_fetch, bytes);
            data_in = self.engine(0, fetched, bytes);
            self.ftl.write_run(lpn + i, len, k, &mut self.ops)?;
            self.schedule(data_in.max(merged));
            i += len;
        }
        self.counters.write_buffer_stall_ns += room - t_fw;
        // the map entries point at the buffered data once it is in; then firmware commits the write
        let io = &mut MapIo { nand: &mut self.nand, link: &mut self.link, data: &mut self.data };
        let mapped = self.map.lookup(data_in, lpn, n, true, io, &mut self.counters);
        Ok(if self.write_commit == 0 { mapped } else { self.firmware(mapped, self.write_commit) })
    }

    /// Flush, arriving at `now`: firmware handles the command, then [`Controller::make_durable`].
    pub fn flush(&mut self, now: Ns) -> Ns {
        let t = self.firmware(now, self.write_overhead);
        self.make_durable(t)
    }

    /// Make every write acknowledged so far durable, from `now` (a flush, or a FUA write once it is in):
    /// partly filled program units are programmed (padded); returns when every such write is on flash.
    /// With power-loss protection the buffer already counts as durable: at once.
    pub fn make_durable(&mut self, now: Ns) -> Ns {
        if self.power_loss_protection {
            return now;
        }
        self.ftl.flush_open_units(&mut self.ops);
        self.schedule(now);
        self.in_flight.iter().map(|&(_, _, done)| done).fold(now, Ns::max)
    }

    /// A NAND read's `bytes` from `die`, in the controller at `arrived`, through the LDPC decoder.
    /// Returns (decoded at, decoder time).
    #[inline]
    fn decode(&mut self, die: u32, arrived: Ns, bytes: u64, mode: CellMode) -> (Ns, Ns) {
        let bus = self.nand.timing.bus_ns(bytes);
        self.data.decode(self.nand.geo.channel_of(die), arrived, bus, bytes, mode)
    }

    /// The retries a native-mode read of `page` in `block` (`bytes` out) needs on an aged block, each a
    /// sense, data-out and decode after the last attempt failed, from the first attempt's decode at
    /// `decoded` (decoder time `took`); a host read's retries are host reads of the same planes (they may
    /// suspend, go ahead of queued work, or run beside the die's other planes as the first attempt did),
    /// and the last one leaves the page that decodes in the planes' registers.
    /// Returns when the data that decodes is in, and the decoder time of every attempt.
    fn retry_reads(
        &mut self,
        block: u32,
        page: u32,
        planes: Planes,
        bytes: u64,
        decoded: Ns,
        took: Ns,
    ) -> (Ns, Ns) {
        // off (every preset): no block lookup on the read path
        let Some(retry) = self.retry.as_mut() else { return (decoded, took) };
        let b = self.ftl.block(block);
        if b.mode != CellMode::Native {
            return (decoded, took);
        }
        let (retries, mode, die) = (retry.draw(b.erase_count), b.mode, self.nand.geo.die_of_block(block));
        let (mut at, mut total) = (decoded, took);
        for _ in 0..retries {
            let sensed = match planes {
                Planes::Host(mask) => self.nand.host_sense(die, at, block, page, mode, mask, bytes),
                Planes::Moved(n) => self.nand.read(die, at, page, mode, n, bytes),
            };
            let (d, t) = self.decode(die, sensed, bytes, mode);
            (at, total) = (d, total + t);
            self.counters.read_retries += 1;
        }
        (at, total)
    }

    /// Slots one LPN of data `compress_pct` percent compressible takes on flash.
    fn slots_per_lpn(&self, compress_pct: u32) -> u32 {
        let z = &self.compression;
        if !z.enabled {
            return 1;
        }
        let ratio =
            (1.0 - f64::from(compress_pct) / 100.0).max(z.best_ratio) * (1.0 + z.overhead_pct / 100.0);
        let slot = f64::from(self.nand.geo.slot_bytes);
        ((SLOT_BYTES as f64 * ratio / slot).ceil() as u32).max(1)
    }

    /// The compression engine (`which`: 0 compress, 1 decompress) passes `bytes` of host data, ready at
    /// `ready`; returns when they are through. Without compression, or with an unlimited engine, at once.
    fn engine(&mut self, which: usize, ready: Ns, bytes: u64) -> Ns {
        let z = &self.compression;
        if !z.enabled || z.engine_mbps == 0.0 {
            return ready;
        }
        let dur = crate::engine::transfer_ns(bytes, (z.engine_mbps * 1e6) as u64);
        self.engine[which].reserve(ready, dur).1
    }

    /// A new map cache for `cfg` (the host gave or took back its memory buffer): it starts cold, as after
    /// a power cycle; the FTL's map itself is whole. The write buffer keeps the SRAM the map leaves it.
    pub fn renew_map_cache(&mut self, cfg: &DriveConfig) {
        self.map = MapCache::new(cfg, self.ftl.user_lpns(), &self.nand.geo);
        // the map and its tables move into the SRAM or out of it: the write buffer gets what is left
        self.buffer.resize(cfg.controller.write_buffer_bytes() / u64::from(self.nand.geo.slot_bytes));
    }

    /// Sanitize from `now` (see [`Ftl::sanitize`]; `overwrite_passes` 0 is a block erase): the map cache
    /// and write buffer start empty too. Returns when the last erase is done.
    pub fn sanitize(&mut self, now: Ns, overwrite_passes: u32, cfg: &DriveConfig) -> Ns {
        self.ftl.sanitize(overwrite_passes, &mut self.ops);
        self.schedule(now);
        self.in_flight.clear();
        self.in_flight_until = 0;
        self.buffer =
            WriteBuffer::new(cfg.controller.write_buffer_bytes() / u64::from(self.nand.geo.slot_bytes));
        self.map = MapCache::new(cfg, self.ftl.user_lpns(), &self.nand.geo);
        self.nand.idle_at().max(now)
    }

    /// Put `bits` flipped bits into the HMB copy of the map page holding `lpn` (see
    /// [`MapCache::inject_flips`]); false unless that map page is cached in the HMB.
    pub fn inject_hmb_bit_flips(&mut self, lpn: Lpn, bits: u32) -> bool {
        self.map.inject_flips(lpn, bits)
    }

    /// True while the latest data of `lpn` is only in the volatile write buffer at `now`: acknowledged
    /// perhaps, but not yet programmed (lost if power fails without the power-loss signal or capacitors).
    pub fn is_volatile(&self, lpn: Lpn, now: Ns) -> bool {
        !self.power_loss_protection && self.ftl.lookup(lpn).is_some_and(|ppn| self.in_write_buffer(ppn, now))
    }

    /// Slots of acknowledged host data only in the write buffer at `now` (lost on a power cut without
    /// flush): program units being filled and programs not yet finished.
    pub fn volatile_slots(&self, now: Ns) -> u64 {
        if self.power_loss_protection {
            return 0;
        }
        let programming: u64 =
            self.in_flight.iter().filter(|&&(_, _, done)| done > now).map(|&(_, n, _)| u64::from(n)).sum();
        self.ftl.open_unit_slots() + programming
    }

    /// The LPNs an interrupted program would corrupt if power failed at `now`: for every host program in
    /// flight on a word line programmed a page at a time (MLC/TLC without one-shot programming), the data
    /// on the word line's earlier pages, on flash already (paired pages). Flushed data never shares a word
    /// line with a later program (a flush pads to the word line's end). Programs of GC and folding are not
    /// tracked: their sources are still valid until they finish.
    pub fn paired_at_risk(&self, now: Ns) -> Vec<Lpn> {
        let geo = &self.nand.geo;
        let mut out = Vec::new();
        for &(first, _, done) in &self.in_flight {
            if done <= now {
                continue;
            }
            let block = geo.block_of(first);
            let offset = first - geo.ppn(block, 0);
            let paired = geo.paired_before(self.ftl.block(block).mode, offset);
            if !paired.is_empty() {
                out.extend(self.ftl.lpns_at(block, paired));
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// Power fails at `now`. With `flush` (the host's power-loss notification, or the drive's own
    /// capacitors: `power_loss_protection`) the buffered data is programmed on the remaining energy;
    /// returns when that is done (`now` without). Then the volatile state is gone: the write buffer, the
    /// programs not yet finished, the cached map (SRAM or host memory). Partly filled program units are
    /// abandoned (their pages skipped). Returns the time the flush ended.
    pub fn power_cut(&mut self, now: Ns, flush: bool, cfg: &DriveConfig) -> Ns {
        let end = if flush || self.power_loss_protection {
            self.ftl.flush_open_units(&mut self.ops);
            self.schedule(now);
            self.in_flight.iter().map(|&(_, _, done)| done).fold(now, Ns::max)
        } else {
            self.ftl.flush_open_units(&mut self.ops);
            self.ops.clear(); // the units are abandoned, never programmed
            now
        };
        self.in_flight.clear();
        self.in_flight_until = 0;
        self.buffer =
            WriteBuffer::new(cfg.controller.write_buffer_bytes() / u64::from(self.nand.geo.slot_bytes));
        self.map = MapCache::new(cfg, self.ftl.user_lpns(), &self.nand.geo);
        end
    }

    /// Power comes back at `now`: the FTL rebuilds its map from flash. With a map journal it reads the
    /// last map checkpoint (every map page of the mapped LPNs) and the journal after it; without, it
    /// reads the summary page of every block holding data. The reads go on the dies' timelines (dies in
    /// parallel, SLC-mode map pages); returns when the map is whole.
    pub fn rebuild_map(&mut self, now: Ns, cfg: &DriveConfig) -> Ns {
        let geo = self.nand.geo;
        let (dies, page_bytes) = (geo.dies, geo.page_bytes);
        let mut done = now;
        let m = &cfg.controller.map_cache;
        if m.journal {
            let map_bytes = self.ftl.mapped_lpns() * u64::from(m.entry_bytes);
            let journal_bytes = m.checkpoint_entries * u64::from(m.journal_entry_bytes);
            let pages = (map_bytes + journal_bytes).div_ceil(page_bytes);
            for k in 0..pages {
                let die = (k % u64::from(dies)) as u32;
                done = done.max(self.nand.read(die, now, 0, CellMode::Slc, 1, page_bytes));
            }
        } else {
            for block in 0..geo.blocks() {
                let b = self.ftl.block(block);
                if b.written > 0 {
                    let die = geo.die_of_block(block);
                    done = done.max(self.nand.read(die, now, 0, b.mode, 1, page_bytes));
                }
            }
        }
        done
    }

    /// Deallocate `n` LPNs from `lpn`.
    pub fn trim(&mut self, now: Ns, lpn: Lpn, n: u32) -> Ns {
        for k in 0..n {
            self.ftl.trim(lpn + k);
        }
        self.firmware(now, self.write_overhead)
    }

    /// Idle-time work (folding, background GC) between `from` and `until`: each step is put on the NAND
    /// timelines when the least busy die frees up, on a die not yet busy past `until`, until every die with
    /// work left is. (Until 2026-11 a step could go to any die: while one die had nothing to do, the others
    /// were given all the work there was, and after a 1 s idle a full bg4-128gb had 17.8 s of folding booked
    /// ahead of the next host read.)
    pub fn background(&mut self, from: Ns, until: Ns) {
        loop {
            let start = from.max(self.nand.first_idle_die_at());
            let nand = &self.nand;
            if start >= until
                || !self.ftl.background_step(&mut self.ops, |die| nand.die_free_at(die) >= until)
            {
                break;
            }
            self.schedule(start);
        }
    }

    /// The drive's clock is at `clock`: host programs finished by then leave the in-flight list, as every
    /// later read, flush or power cut comes at or after it. (Pruned at a write's data-in time, which can lie
    /// ahead of the clock, programs still running dropped off the list: their data was read from flash and
    /// a power cut did not count it as lost.)
    pub fn retire_programs(&mut self, clock: Ns) {
        self.in_flight.retain(|&(_, _, done)| done > clock);
    }

    fn in_write_buffer(&self, ppn: Ppn, now: Ns) -> bool {
        self.ftl.in_open_unit(ppn)
            // none in flight once the last is programmed (a read phase after writes); then the range
            // test first: it fails for nearly every program, and as one compare
            || now < self.in_flight_until
                && self.in_flight.iter().any(|&(first, n, done)| ppn.wrapping_sub(first) < n && done > now)
    }

    /// Put the FTL's pending flash operations on the NAND timelines, starting at `now`.
    /// GC and fold programs wait for the reads before them on their die (the data moves within a die);
    /// an erase waits for its block's reads.
    fn schedule(&mut self, now: Ns) {
        self.moved_ready.clear();
        let mut ops = std::mem::take(&mut self.ops);
        for op in ops.drain(..) {
            let geo = self.nand.geo;
            match op {
                FlashOp::Read { block, page, planes, slots, mode, on_chip } => {
                    let die = geo.die_of_block(block);
                    if on_chip {
                        // sensed into the die's latches for the program that follows: nothing moves out
                        let d = self.nand.read(die, now, page, mode, planes, 0);
                        read_done(&mut self.moved_ready, die, d);
                        continue;
                    }
                    let bytes = u64::from(slots) * u64::from(geo.slot_bytes);
                    let d = self.nand.read(die, now, page, mode, planes, bytes);
                    // GC and folding data is decoded (and re-encoded) like host data
                    let bus = self.nand.timing.bus_ns(bytes);
                    let (d, took) = self.data.decode(geo.channel_of(die), d, bus, bytes, mode);
                    let (d, _) = self.retry_reads(block, page, Planes::Moved(planes), bytes, d, took);
                    read_done(&mut self.moved_ready, die, d);
                }
                FlashOp::Program { block, offset, slots, source, mode } => {
                    let die = geo.die_of_block(block);
                    let first = geo.ppn(block, offset);
                    let ready =
                        if source == Source::Host { now } else { reads_done(&self.moved_ready, die, now) };
                    let page = geo.page_of(offset);
                    // the whole unit crosses the bus, padding too (an on-chip copy's is in the die already);
                    // the buffer frees the data it held
                    let bytes = if source == Source::OnChip {
                        0
                    } else {
                        u64::from(geo.slots_per_program(mode)) * u64::from(geo.slot_bytes)
                    };
                    let (loaded, done) = self.nand.program_unit(die, ready, page, mode, bytes);
                    if source == Source::Host {
                        let data_in =
                            mode == CellMode::Native && self.native_release == BufferRelease::DataIn;
                        self.buffer.release_at(if data_in { loaded } else { done }, slots);
                        self.in_flight.push((first, slots, done));
                        self.in_flight_until = self.in_flight_until.max(done);
                    }
                }
                FlashOp::Erase { block } => {
                    let die = geo.die_of_block(block);
                    self.nand.erase(die, reads_done(&self.moved_ready, die, now));
                }
                FlashOp::Overwrite { block, passes } => {
                    // one pattern program per native unit, queued on the die after its erase; the
                    // pattern crosses the channel like any program's data
                    let die = geo.die_of_block(block);
                    let unit = geo.slots_per_program(CellMode::Native);
                    let bytes = u64::from(unit) * u64::from(geo.slot_bytes);
                    for _ in 0..passes {
                        self.nand.erase(die, now);
                        for offset in (0..geo.slots_per_block()).step_by(unit as usize) {
                            self.nand.program(die, now, geo.page_of(offset), CellMode::Native, bytes);
                        }
                    }
                    self.nand.erase(die, now);
                }
            }
        }
        self.ops = ops; // drained: its allocation kept for the next batch
    }
}

/// Note that a read on `die` of data being moved is done at `at`.
fn read_done(ready: &mut Vec<(u32, Ns)>, die: u32, at: Ns) {
    match ready.iter_mut().find(|(d, _)| *d == die) {
        Some((_, t)) => *t = (*t).max(at),
        None => ready.push((die, at)),
    }
}

/// When the moved data read on `die` so far in this batch is in (`now` if none was).
fn reads_done(ready: &[(u32, Ns)], die: u32, now: Ns) -> Ns {
    ready.iter().find(|(d, _)| *d == die).map_or(now, |&(_, t)| t.max(now))
}

/// The planes a read senses: a host read's mask, or how many a GC or fold read takes.
#[derive(Clone, Copy)]
enum Planes {
    Host(u32),
    Moved(u32),
}
