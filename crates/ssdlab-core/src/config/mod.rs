//! A drive's full parameter set, as serde structs that mirror the TOML sections.
//!
//! Every key carries its unit (`tR_us`, `write_buffer_kib`, `latency_ns`), every field is required
//! (no silent defaults: `ssdlab show PRESET` prints a complete file to start from), unknown keys are
//! errors, and [`DriveConfig::validate`] reports every problem at once with its TOML path.

pub mod preset;
mod validate;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use validate::{ConfigError, Problem};

/// A whole drive: one preset file (`python/ssdlab/presets/*.toml`), every key required.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DriveConfig {
    /// Preset name, e.g. `bg4-1tb`.
    pub name: String,
    /// One line on what the drive is and where its parameters come from.
    pub description: String,
    /// Root seed of the drive's own randomness (factory bad blocks, HMB bit errors); each part draws its
    /// own stream from it ([`crate::engine::stream`]). A workload's randomness has its own seed.
    pub seed: u64,
    /// `[host]`: the host side of the interface.
    pub host: HostConfig,
    /// `[link]`: PCIe or SATA.
    pub link: LinkConfig,
    /// `[controller]`: firmware, write buffer, map cache, compression.
    pub controller: ControllerConfig,
    /// `[ftl]`: capacity, garbage collection, wear, SLC cache.
    pub ftl: FtlConfig,
    /// `[nand]`: geometry and timings.
    pub nand: NandConfig,
    /// `[power]`: energy per operation, controller and link power, NVMe idle power states (APST).
    pub power: PowerConfig,
    /// `[thermal]`: thermal RC of the package, ambient, throttling at the thermal management temperatures.
    pub thermal: ThermalConfig,
    /// `[calibration]`: what `ssdlab calibrate` may fit, and to which figures. Optional (a drive without
    /// published figures has none); carried and validated, never read by the engine.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<CalibrationConfig>,
}

/// `[calibration]`: the preset's free parameters and the published figures they are fitted to.
///
/// Metadata for `ssdlab calibrate`, not a drive parameter: the engine never reads it. A child preset
/// inherits its base's table; `free` merges key by key (a child may narrow a range, add a parameter, or
/// take one back with `[]`), `figures` and `holdout` are replaced as a whole.
///
/// ```toml
/// [calibration]
/// figures = ["bg4-128gb.fill.curve"]          # fitted to (in-sample)
/// holdout = ["bg4-128gb.fill.fill_avg_MBps"]  # reported after a fit, never fitted to
/// [calibration.free]
/// "nand.slc_tPROG_us" = [100.0, 400.0]        # TOML path of a number = [min, max]
/// ```
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CalibrationConfig {
    /// Published figures the free parameters are fitted to, `DRIVE.TABLE.KEY` of the reference data
    /// (e.g. `bg4-128gb.fill.curve`).
    pub figures: Vec<String>,
    /// Published figures held out: reported before and after a fit, never fitted to.
    #[serde(default)]
    pub holdout: Vec<String>,
    /// Free parameters: the TOML path of a number in this config -> `[min, max]` of the search, or `[]`:
    /// not free (a drive file taking back a parameter its base frees; merging cannot remove a key).
    pub free: BTreeMap<String, Vec<f64>>,
}

/// The host side of the NVMe (or AHCI) interface.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    /// Doorbell write + submission-queue-entry fetch, before the controller sees the command.
    pub submit_ns: u64,
    /// Completion-queue entry + interrupt, until the application sees the completion.
    pub complete_ns: u64,
    /// Host memory's answer to a device's memory-read request (root complex + DRAM), ns. A write's data
    /// is fetched by the device: the request crosses the link (`link.latency_ns`), the host answers after
    /// this, and the data crosses back. Default 0 (the request's link crossing only).
    #[serde(default)]
    pub memory_read_ns: u64,
}

/// The kind of host link.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LinkKind {
    /// PCI Express (NVMe).
    Pcie,
    /// SATA (AHCI).
    Sata,
}

/// The host link: PCIe gen x lanes, or SATA 6 Gb/s.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
    /// `pcie` or `sata`.
    pub kind: LinkKind,
    /// PCIe generation 1-4; for SATA the revision (3 = 6 Gb/s).
    pub gen: u32,
    /// PCIe lanes (1, 2, 4, 8, 16); SATA has 1.
    pub lanes: u32,
    /// Largest data payload per TLP (PCIe max payload size) or per DATA FIS (SATA: 8192).
    pub max_payload_bytes: u32,
    /// Framing + header + CRC bytes around each payload (PCIe TLP ~24-28 B, SATA FIS ~28 B).
    pub frame_overhead_bytes: u32,
    /// Link bandwidth taken by DLLPs (ACK, flow control) or SATA primitives, in percent.
    pub flow_control_overhead_pct: f64,
    /// One-way latency added to each data transfer.
    pub latency_ns: u64,
    /// Commands the device accepts at once (NVMe: queue entries; SATA NCQ: 32).
    pub queue_depth_limit: u32,
}

/// Where map pages are cached (`controller.map_cache.location`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum MapLocation {
    /// The whole page map in on-board DRAM: every lookup hits.
    Dram,
    /// DRAM-less, map pages cached in the NVMe Host Memory Buffer: each access crosses the link.
    Hmb,
    /// DRAM-less with HMB off: map pages cached in the controller's own SRAM.
    Sram,
}

/// Where the logical-to-physical map is cached and what a lookup costs.
///
/// The map is split into map pages of `map_page_kib` (`entry_bytes` per 4 KiB LPN: with 4-byte entries a
/// 16 KiB map page covers 16 MiB of LBA span). With `hmb` or `sram` an LRU cache holds `hmb_map_pct` of
/// `hmb_size_mib` / `sram_size_kib` of map pages; a miss reads the map page from NAND (SLC mode) and dirty
/// map pages evicted from the cache are written back to NAND in program units (counted in WAF).
///
/// With `journal` on, the map is kept persistent as a DRAM-less controller must (host memory is volatile
/// and may be withdrawn): each LPN a host write maps adds a `journal_entry_bytes` delta entry to the map
/// journal, programmed to NAND (SLC) one page at a time as it fills; once `checkpoint_entries` entries have
/// been logged since the last checkpoint (or `checkpoint_dirty_pages` map pages are dirty), every dirty map
/// page is written to NAND and the journal starts over. With `lazy_map_updates` a write miss does not load
/// its map page: the checkpoint reads, merges and writes it. Keys that do not apply to `location` are ignored.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MapCacheConfig {
    /// `dram`, `hmb` or `sram`.
    pub location: MapLocation,
    /// Controller time of one map lookup that hits the cache (for `hmb`, on top of the link round trip).
    pub lookup_ns: u64,
    /// Host memory buffer granted by the host, MiB (used with `location = "hmb"`).
    pub hmb_size_mib: u64,
    /// On-controller SRAM given to map pages, KiB (used with `location = "sram"`).
    pub sram_size_kib: u64,
    /// With `location = "sram"` (a DRAM-less drive without its HMB): SRAM the firmware's other tables take
    /// beside the map pages, KiB: what it keeps in the HMB when it has one. Comes out of the write buffer
    /// with `sram_size_kib`; caches nothing.
    pub sram_tables_kib: u64,
    /// With `location = "sram"`: the piece of a map page the SRAM caches, KiB (a power of two; 0, or one
    /// at least `map_page_kib`, = whole map pages). A miss senses the map page and moves out and decodes
    /// only the codewords holding this piece: a small SRAM holds more scattered pieces of the map, and a
    /// sequential stream misses once per piece instead of once per page.
    pub sram_segment_kib: u32,
    /// Map-page size, KiB: the unit loaded on a miss and written back when dirty (power of two, 1..=64).
    pub map_page_kib: u32,
    /// Sequential prefetch: on a miss also load the next N map pages (0 = off).
    pub prefetch_pages: u32,
    /// Probability per HMB map-page access of a single-bit error, corrected by SECDED ECC (0..=1).
    pub hmb_ecc_single_bit_rate: f64,
    /// Probability per HMB map-page access of a double-bit error: detected, and the map page is reloaded
    /// from NAND (0..=1).
    pub hmb_ecc_double_bit_rate: f64,
    /// Extra latency of an access whose single-bit error the ECC corrects.
    pub hmb_ecc_correct_ns: u64,
    /// Bytes of one logical-to-physical entry (one per 4 KiB LPN; 4 bytes address 16 TiB).
    pub entry_bytes: u32,
    /// Share of the HMB the firmware uses that holds map pages, percent (the rest serves the controller's
    /// other uses).
    pub hmb_map_pct: f64,
    /// The firmware lays the HMB out in power-of-two tiers: of the grant it uses the largest power of two
    /// of MiB it holds (a grant a little short of one tier gets the tier below), and `hmb_map_pct` of that
    /// holds map pages.
    pub hmb_map_pow2: bool,
    /// Journal map updates and checkpoint dirty map pages to NAND (see above).
    pub journal: bool,
    /// Bytes of one journal entry (an L2P delta: LPN and new physical address).
    pub journal_entry_bytes: u32,
    /// Journal entries (mapped LPNs) between two checkpoints.
    pub checkpoint_entries: u64,
    /// Also checkpoint once this many map pages are dirty (0 = no such bound).
    pub checkpoint_dirty_pages: u32,
    /// Planes one map-page or journal program covers: 1 = each NAND page its own program (DFTL writes
    /// translation pages one at a time), `nand.planes_per_die` (or more) = paired into multi-plane programs.
    pub map_program_planes: u32,
    /// Map-page reads from NAND the controller keeps in flight at once (its table of outstanding misses);
    /// a miss while all are out waits for the first to finish (0 = no limit).
    pub map_reads_in_flight: u32,
    /// With `journal` (ignored without it): a write whose map page is not cached does not load it. Its
    /// entries go into the journal and an SRAM delta table (reads of those LPNs find them there); the map
    /// page is read, merged and written at the next checkpoint. Off = a write miss loads the map page first.
    pub lazy_map_updates: bool,
}

/// The controller's firmware, write buffer and mapping cache.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ControllerConfig {
    /// Firmware cores that handle commands in parallel.
    pub cores: u32,
    /// Firmware time per read command.
    pub read_overhead_ns: u64,
    /// Firmware time per write command.
    pub write_overhead_ns: u64,
    /// Write buffer: host writes are acknowledged once in it; it drains one program unit at a time.
    /// It lives in the controller's SRAM: with the map cache there too (`map_cache.location = "sram"`,
    /// a DRAM-less drive without HMB), the map cache's `sram_size_kib` comes out of it.
    pub write_buffer_kib: u64,
    /// Sequential read-ahead, KiB: a host read that continues the last one has the controller read this
    /// much of what follows from flash into its buffer (0 = none).
    pub read_ahead_kib: u64,
    /// `[controller.map_cache]`.
    pub map_cache: MapCacheConfig,
    /// `[controller.compression]`.
    pub compression: CompressionConfig,
    /// `[controller.data_path]`: throughput ceilings between the NAND channels and the host. Default:
    /// unlimited (a drive without the section behaves as before it existed).
    #[serde(default)]
    pub data_path: DataPathConfig,
    /// `[controller.write_path]`: what a write costs after its data is in. Default: nothing, no PLP.
    #[serde(default)]
    pub write_path: WritePathConfig,
}

/// Throughput ceilings of the controller's data path (`[controller.data_path]`), each 0 = unlimited.
///
/// Read data goes NAND channel -> LDPC decoder -> SRAM buffer -> host DMA engine -> link; write data
/// link -> DMA -> SRAM -> channel. Each ceiling is a busy timeline the data streams through: a stage
/// works on data while the stage before delivers it, so it adds time only where it is the slowest. The
/// decoder works a codeword at a time: a read's data is out `ldpc_codeword_bytes / ldpc_mbps` after its
/// last codeword arrived at the earliest (the decode latency a QD1 read pays).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DataPathConfig {
    /// LDPC decoder throughput, MB/s (of one decoder; see `ldpc_per_channel`); 0 = unlimited. The rate
    /// on data read in SLC mode, and on native-mode data unless `ldpc_native_mbps` says otherwise.
    pub ldpc_mbps: f64,
    /// The decoder's throughput on data read in native mode (TLC, MLC), MB/s; 0 = as `ldpc_mbps`. Native
    /// cells come back with far more raw bit errors than SLC ones, and a decoder that stops once a
    /// codeword checks iterates more on them; at most `ldpc_mbps`.
    #[serde(default)]
    pub ldpc_native_mbps: f64,
    /// One decoder per NAND channel (true) or one decoder shared by every channel (false).
    pub ldpc_per_channel: bool,
    /// Bytes of one LDPC codeword (the unit the decoder works on).
    pub ldpc_codeword_bytes: u32,
    /// Host DMA engine throughput between the SRAM buffer and the host, each direction, MB/s; 0 = unlimited.
    pub dma_mbps: f64,
    /// SRAM buffer bandwidth, MB/s, shared by reads and writes; host data crosses it twice (in and out).
    /// 0 = unlimited.
    pub sram_mbps: f64,
    /// LDPC encoder throughput, MB/s, one encoder shared by every channel: every byte written passes it
    /// (charged as the data enters the buffer). 0 = unlimited.
    #[serde(default)]
    pub ldpc_encode_mbps: f64,
}

impl Default for DataPathConfig {
    /// No ceilings: the data path is never the bottleneck.
    fn default() -> Self {
        DataPathConfig {
            ldpc_mbps: 0.0,
            ldpc_native_mbps: 0.0,
            ldpc_per_channel: true,
            ldpc_codeword_bytes: 4096,
            dma_mbps: 0.0,
            sram_mbps: 0.0,
            ldpc_encode_mbps: 0.0,
        }
    }
}

/// The host write path after the command is decoded (`[controller.write_path]`).
///
/// A write: firmware decodes it (`controller.write_overhead_ns`, on a core), the device fetches the data
/// from host memory (`link.latency_ns` + `host.memory_read_ns` + the transfer), the data is admitted into
/// the write buffer (waiting for space), the map is updated, and firmware commits the write
/// (`commit_ns`, on a core: buffer allocation, map entry, completion entry). Flush and FUA wait for the
/// buffered data to be programmed, unless the buffer is power-loss protected.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct WritePathConfig {
    /// Firmware time per write command once its data is in the buffer, ns (on a core).
    pub commit_ns: u64,
    /// The write buffer survives power loss (capacitors): a flush or FUA write completes once the data is
    /// in the buffer, without programming the open units.
    pub power_loss_protection: bool,
    /// When a host program unit in native mode (TLC/QLC) leaves the write buffer: `programmed` (the
    /// default: the controller keeps its copy until the die reports the program done) or `data_in` (once
    /// the data is in the die's latches, which hold it through the program). SLC-mode units always stay
    /// until programmed.
    #[serde(default)]
    pub native_buffer_release: BufferRelease,
}

/// When a native-mode host program unit leaves the write buffer (`[controller.write_path]
/// native_buffer_release`).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum BufferRelease {
    /// Once the die has programmed it.
    #[default]
    Programmed,
    /// Once its data is in the die: a one-shot TLC unit waits there through its whole program, which
    /// holding it in the buffer too would make the buffer, not the dies, set the speed of TLC writes.
    DataIn,
}

/// On-the-fly compression (SandForce-style): host data is compressed before it is written, so
/// compressible data costs fewer NAND programs, less bus time and less space. Compressed data is stored
/// in 256-byte slots.
///
/// NAND bytes per host byte for data of compressibility `p` percent (fio's buffer_compress_percentage):
/// `max(best_ratio, 1 - p/100) * (1 + overhead_pct/100)`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CompressionConfig {
    /// Compress host data before it is written.
    pub enabled: bool,
    /// NAND bytes per host byte for the most compressible data (MODELLING.md: ~0.14 on SandForce).
    pub best_ratio: f64,
    /// Metadata stored with compressed data, percent of its size (incompressible data: ~105% of host bytes).
    pub overhead_pct: f64,
    /// Throughput of the compression engine (each direction), MB/s; 0 = unlimited.
    pub engine_mbps: f64,
}

/// How garbage collection picks its victim (`ftl.gc_policy`); each is one file in `ftl/gc/`.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum GcPolicy {
    /// Victim = the closed block with the fewest valid pages.
    Greedy,
    /// Victim = the closed block with the best (1 - u) * age / (1 + u) (Rosenblum & Ousterhout's LFS
    /// cost-benefit): old, mostly invalid blocks first, so cold data is not copied again and again.
    CostBenefit,
    /// Victim = the fewest valid pages among the `gc_window_blocks` blocks of the die closed longest ago
    /// (a FIFO of closed blocks searched only at its head).
    WindowedGreedy,
}

/// How consecutive host data spreads over the dies (`ftl.host_stripe`).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum HostStripe {
    /// A page index (every plane) on each die in turn; a one-shot unit (a word line's pages) is programmed
    /// once its last page is filled, so each die holds a partly filled unit in the write buffer meanwhile.
    /// Sequential data lies across the dies as an SLC cache's does, whatever mode it is written in.
    Page,
    /// A whole program unit on each die in turn: a one-shot TLC unit holds 3 pages a plane of consecutive
    /// data.
    #[default]
    Unit,
}

/// The flash translation layer: capacity exposed to the host, garbage collection, the SLC cache.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    /// Capacity the host sees, decimal GB; the rest of the NAND is over-provisioning.
    pub user_capacity_gb: f64,
    /// GC victim selection: `greedy`, `cost-benefit` or `windowed-greedy`.
    pub gc_policy: GcPolicy,
    /// Blocks per die `windowed-greedy` GC looks at, oldest first (other policies look at every block).
    pub gc_window_blocks: u32,
    /// Foreground GC starts on a die when its free blocks fall to this number.
    pub gc_threshold_free_blocks: u32,
    /// Background work (idle GC, folding) starts once the host has been idle this long.
    pub idle_after_ms: f64,
    /// Idle GC keeps at least this many free blocks per die (0 = no idle GC).
    pub background_gc_free_blocks: u32,
    /// Static wear levelling: when a die's erase counts spread by more than this, the data of its
    /// least-erased block is moved so that block rejoins the pool (0 = off).
    pub wear_leveling_threshold: u32,
    /// Endurance: a block reaching this many P/E cycles is retired as a grown bad block (0 = never).
    pub pe_cycle_limit: u32,
    /// P/E cycles every block has at the start: a drive already in service (0 = new).
    #[serde(default)]
    pub initial_pe_cycles: u32,
    /// Blocks marked bad at the factory, percent of each die's blocks.
    pub factory_bad_block_pct: f64,
    /// How consecutive host data spreads over the dies: `page` or `unit`.
    #[serde(default)]
    pub host_stripe: HostStripe,
    /// `[ftl.slc_cache]`.
    pub slc_cache: SlcCacheConfig,
}

/// What happens to host writes once the SLC cache is used up.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum PostCache {
    /// Write straight to native (TLC/QLC) blocks.
    Direct,
    /// Keep writing through SLC, folding the oldest SLC data to native blocks to make room.
    Fold,
}

/// A dynamic SLC cache: free native blocks run in SLC mode for fast writes, folded to native density later.
///
/// Its size in host data is `static_gb + dynamic_fraction * unwritten user capacity / bits_per_cell`: it
/// shrinks as the drive fills, down to the static part.
///
/// What host writes do once it is full is a firmware policy that may change with how full the drive is
/// (fill = share of user capacity holding data): `post_cache` below `fold_above_fill`; from there on they
/// keep going through SLC while the oldest SLC data is folded a program unit at a time between them; from
/// `fold_whole_blocks_above_fill` on, a whole SLC block (the cache's emptiest, on whichever die) is folded
/// at once and host writes wait behind it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SlcCacheConfig {
    /// Run free native blocks in SLC mode as a write cache.
    pub enabled: bool,
    /// SLC capacity that never goes away, decimal GB of host data.
    pub static_gb: f64,
    /// Share of unwritten user capacity that may run in SLC mode (0..=1): the dynamic part is
    /// `dynamic_fraction * unwritten / bits_per_cell` (1 = all free native capacity, "free TLC / 3").
    pub dynamic_fraction: f64,
    /// Upper bound of the dynamic part, percent of the user capacity in host data (0..=100; at or above
    /// `100 * dynamic_fraction / bits_per_cell` it never binds). Firmware caps the SLC blocks it lends
    /// out, so the cache scales with capacity but not with free space alone.
    pub dynamic_max_pct: f64,
    /// Absolute upper bound of the dynamic part, decimal GB of host data (0 = none). Firmware that lends
    /// out SLC blocks from a table of fixed size caps the cache at the same GB on every large capacity,
    /// whatever `dynamic_max_pct` allows there.
    #[serde(default)]
    pub dynamic_max_gb: f64,
    /// Fill (0..=1) at which the dynamic part has shrunk to nothing: it follows the user capacity left
    /// below this fill, not all of it, so past it only the static part is lent (Intel's 660p keeps only its
    /// static SLC past ~75% full, MODELLING.md). 1 = it shrinks to nothing only on a full drive.
    #[serde(default = "one")]
    pub dynamic_until_fill: f64,
    /// What host writes do past a full cache (below `fold_above_fill`): `direct` to native blocks, or
    /// `fold` through SLC, a whole block folded at a time.
    pub post_cache: PostCache,
    /// Fill (0..=1) from which host writes past a full cache go through SLC, each SLC program unit
    /// folding one unit's worth of the oldest SLC data into native blocks, interleaved with host writes
    /// (1 = never).
    pub fold_above_fill: f64,
    /// Fill (0..=1) from which host writes past a full cache go through SLC with a whole SLC block folded
    /// at once, host writes waiting behind it, as `post_cache = "fold"` does at any fill (1 = never).
    pub fold_whole_blocks_above_fill: f64,
    /// Fold SLC data to native blocks when the host is idle, restoring the cache.
    pub idle_fold: bool,
    /// Fold by on-chip copy: the die senses the SLC pages into its own latches and programs them into the
    /// native block, the data never crossing the channel or the controller's decoder and encoder (SLC
    /// data's low error rate is what lets firmware skip the ECC pass). Off: folded data is read out,
    /// decoded, and sent back in like GC data.
    #[serde(default)]
    pub fold_on_chip: bool,
}

/// NAND cell type: bits stored per cell.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    /// One bit per cell.
    Slc,
    /// Two bits per cell.
    Mlc,
    /// Three bits per cell.
    Tlc,
    /// Four bits per cell.
    Qlc,
}

impl CellType {
    /// Bits stored per cell (1 to 4).
    pub fn bits_per_cell(self) -> u32 {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }
}

/// How the NAND channel bus clocks data.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum BusMode {
    /// DDR (Toggle / ONFI NV-DDR): `bus_mts` transfers per second on both clock edges.
    Sync,
    /// SDR (ONFI asynchronous): one transfer per RE#/WE# cycle.
    Async,
}

/// NAND geometry, timings (datasheet symbols) and the channel bus.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)]
pub struct NandConfig {
    /// `slc`, `mlc`, `tlc` or `qlc`.
    pub cell: CellType,
    /// Channels from the controller to the NAND.
    pub channels: u32,
    /// Dies on each channel.
    pub dies_per_channel: u32,
    /// Planes per die (a multi-plane operation works on all of them at once).
    pub planes_per_die: u32,
    /// Blocks per plane.
    pub blocks_per_plane: u32,
    /// Pages per block (native density).
    pub pages_per_block: u32,
    /// Bytes per page, KiB.
    pub page_size_kib: u32,
    /// Program all bits of a wordline at once (3D TLC/QLC one-shot): a program unit is
    /// bits_per_cell pages per plane.
    pub one_shot_program: bool,
    /// Page read (array to page register) per page type, LSB first: one value for all page types, or
    /// bits_per_cell values (TLC: LSB, CSB, MSB). Page `p` of a block is of type `p % bits_per_cell`.
    #[serde(deserialize_with = "number_or_list")]
    pub tR_us: Vec<f64>,
    /// Program time: one-shot program of a whole program unit (one value), or per page type like `tR_us`.
    #[serde(deserialize_with = "number_or_list")]
    pub tPROG_us: Vec<f64>,
    /// Page read of a block run in SLC mode (one bit per cell).
    pub slc_tR_us: f64,
    /// Page program in SLC mode.
    pub slc_tPROG_us: f64,
    /// Block erase.
    pub tBERS_ms: f64,
    /// Maximum page read per page type, like `tR_us`: each native-mode read takes a time drawn between
    /// `tR_us` and this (`[]`: no spread, every read takes `tR_us`).
    #[serde(deserialize_with = "number_or_list")]
    pub tR_max_us: Vec<f64>,
    /// Maximum program time, like `tPROG_us` (`[]`: no spread).
    #[serde(deserialize_with = "number_or_list")]
    pub tPROG_max_us: Vec<f64>,
    /// Maximum block erase (0: no spread).
    pub tBERS_max_ms: f64,
    /// Command + address cycles before each array operation.
    pub command_overhead_ns: u64,
    /// Cache read: the die senses the next page while the last one moves out over the channel. Without
    /// it the die is busy until its data is out.
    pub cache_read: bool,
    /// Cache program: the next unit's data moves in while the die still programs the last one, one page
    /// a plane of it (the cache latches; a one-shot unit's other pages wait for the die). Without it the
    /// data-in waits for the die.
    pub cache_program: bool,
    /// Independent plane reads: a single-plane host read may sense on one plane while another plane of
    /// the same die senses a different page (each plane with its own page address, as multi-plane read
    /// with independent addresses allows). Programs, erases and multi-plane reads still take every plane.
    /// Off by default. With `[nand.suspension]` a plane read waits for the operation running on its die
    /// (or suspends it, taking the whole die) and, with read priority, goes ahead of the work queued there.
    #[serde(default)]
    pub independent_plane_read: bool,
    /// Channel bus rate in mega-transfers per second, 8 bits per transfer.
    pub bus_mts: u32,
    /// `sync` (DDR) or `async` (SDR).
    pub bus_mode: BusMode,
    /// `[nand.suspension]`.
    pub suspension: NandSuspensionConfig,
    /// `[nand.read_retry]`.
    #[serde(default)]
    pub read_retry: NandReadRetryConfig,
}

/// Read retry on aged blocks (`[nand.read_retry]`): a native-mode read whose data does not decode is read
/// again with shifted read voltages, each attempt a full sense and data-out and a decode. The attempts a
/// read needs are drawn (seeded, Poisson) with mean `retries_per_kpe` per 1000 P/E cycles of its block past
/// `onset_pe_cycles`, at most `max_retries` (the length of the die's retry table). SLC-mode reads never
/// retry: one bit per cell leaves wide margins.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NandReadRetryConfig {
    /// Model read retries.
    pub enabled: bool,
    /// P/E cycles of a block from which its reads start to need retries.
    pub onset_pe_cycles: u32,
    /// Mean retries per read for each 1000 P/E cycles past the onset.
    pub retries_per_kpe: f64,
    /// Most retries one read makes (the retry table's length).
    pub max_retries: u32,
}

impl Default for NandReadRetryConfig {
    /// Off; when on, from 1000 P/E cycles, one retry per read per 1000 cycles beyond, at most 7.
    fn default() -> Self {
        NandReadRetryConfig { enabled: false, onset_pe_cycles: 1000, retries_per_kpe: 1.0, max_retries: 7 }
    }
}

/// Program/erase suspension and read priority on a die (`[nand.suspension]`).
///
/// With `read_priority`, a host read goes ahead of the program/erase/GC work queued on its die but not yet
/// started (it still waits for the operation running when it arrives). With `enabled`, a host read that
/// finds a program or erase running suspends it: the read starts `tSUSP` later, and the suspended operation
/// resumes `resume_overhead_us` after the read; the die's later work moves back by that whole time. An
/// operation is suspended at most `max_suspensions_per_op` times; after that reads wait for it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
#[allow(non_snake_case)]
pub struct NandSuspensionConfig {
    /// Suspend a running program or erase for a host read.
    pub enabled: bool,
    /// Host reads go ahead of work queued on the die but not started.
    pub read_priority: bool,
    /// Suspend latency of a program: from the read's arrival until the die starts it.
    pub tSUSP_program_us: f64,
    /// Suspend latency of an erase.
    pub tSUSP_erase_us: f64,
    /// Time to resume the suspended operation after the read.
    pub resume_overhead_us: f64,
    /// Suspensions allowed per program or erase operation (0 = never suspend).
    pub max_suspensions_per_op: u32,
}

impl Default for NandSuspensionConfig {
    /// Off, with MQSim's default suspend times (100 us program, 700 us erase).
    fn default() -> Self {
        NandSuspensionConfig {
            enabled: false,
            read_priority: false,
            tSUSP_program_us: 100.0,
            tSUSP_erase_us: 700.0,
            resume_overhead_us: 0.0,
            max_suspensions_per_op: 8,
        }
    }
}

/// The drive's power: NAND array energy as supply voltage x current x the array time of each operation
/// (so SLC and TLC, LSB and MSB pages cost what their tR/tPROG/tBERS take), energy per byte on the NAND
/// channels and on the link, the controller's idle and active power, the link lanes' power, and the NVMe
/// non-operational power states the drive enters by itself after idle time (APST).
///
/// `P = controller (idle or active) + link (lanes in L0, or L1.2) + sum over NAND operations of
/// VCC x ICC x array time x planes + channel bytes x channel energy + link bytes x link energy + commands x
/// command energy`; in a non-operational state the controller draws that state's power instead.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PowerConfig {
    /// NAND core supply voltage (VCC), volts.
    pub nand_vcc_v: f64,
    /// Array current of a page read (ICC1) on each plane while it senses, mA.
    pub nand_read_ma: f64,
    /// Array current of a program (ICC2) on each plane while it programs, mA.
    pub nand_program_ma: f64,
    /// Array current of a block erase (ICC3) on each plane while it erases, mA.
    pub nand_erase_ma: f64,
    /// Standby current (ISB) of each die when idle, uA.
    pub nand_standby_ua: f64,
    /// Energy per byte moved over a NAND channel: the NAND's and the controller's I/O plus ECC, pJ.
    pub channel_pj_per_byte: f64,
    /// Energy per payload byte over the host link (host data and HMB traffic), pJ.
    pub link_pj_per_byte: f64,
    /// Firmware energy per host command, nJ.
    pub command_nj: f64,
    /// Controller power with no command outstanding, in PS0 (clocks running, nothing to do), mW.
    pub controller_idle_mw: f64,
    /// Controller power while host commands are outstanding (cores, DMA, buffers), mW.
    pub controller_active_mw: f64,
    /// Power of each link lane in L0 (PCIe PHY, or the SATA PHY), mW.
    pub lane_mw: f64,
    /// Link power in its deepest idle state (PCIe ASPM L1.2, SATA DevSleep), mW.
    pub link_idle_mw: f64,
    /// Idle time after which the link enters `link_idle_mw` (ASPM L1 entry), us.
    pub link_idle_after_us: f64,
    /// Time the first command after the link's idle state waits for the link to come back (L1.2 exit), us.
    pub link_exit_us: f64,
    /// Autonomous power state transitions (APST): the drive enters `nonop_states` after their idle times.
    pub apst: bool,
    /// Non-operational power states (NVMe PS3, PS4, ...), shallowest first: `[[power.nonop_states]]`.
    pub nonop_states: Vec<NonOpState>,
}

/// One NVMe non-operational power state (`[[power.nonop_states]]`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NonOpState {
    /// Its name (`PS3`).
    pub name: String,
    /// Controller power in this state (the link's idle power and the NAND's standby come on top), mW.
    pub controller_mw: f64,
    /// Host idle time after which APST enters it, ms.
    pub idle_ms: f64,
    /// Time to enter it (a command arriving meanwhile waits for the entry, then the exit), us.
    pub entry_latency_us: f64,
    /// Time from a command's arrival in this state until the drive is operational again, us.
    pub exit_latency_us: f64,
}

/// How the drive is mounted, which sets its thermal resistance and capacity (`thermal.form_factor`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum FormFactor {
    /// A BGA package soldered to a motherboard (the board spreads the heat).
    Bga,
    /// A bare M.2 2230 card.
    M2_2230,
    /// A bare M.2 2242 card.
    M2_2242,
    /// A bare M.2 2280 card.
    M2_2280,
    /// An M.2 card under a heatsink.
    Heatsink,
    /// A 2.5-inch SATA case.
    #[serde(rename = "2.5in")]
    TwoPointFiveInch,
    /// A U.2 enterprise drive in a server's forced airflow.
    U2,
}

/// The thermal model (`[thermal]`): the package is one RC node (thermal resistance to ambient R, capacity C,
/// time constant R*C) heated by the drive's power; the controller and the NAND sit above it by their own
/// power times their junction resistance. The SMART composite temperature is the hotter of the two. At the
/// NVMe thermal management temperatures TMT1 and TMT2 the drive throttles (light, then heavy): its NAND
/// runs at `light_throttle_speed_pct` or `heavy_throttle_speed_pct` of full speed (the die time of every
/// operation is stretched), until it has cooled `hysteresis_c` below the threshold.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ThermalConfig {
    /// Air temperature around the drive, C.
    pub ambient_c: f64,
    /// `bga`, `m2-2230`, `m2-2242`, `m2-2280`, `heatsink`, `2.5in` or `u2`: sets R and C ([`FormFactor`]).
    pub form_factor: FormFactor,
    /// TMT1: light throttling from this composite temperature, C.
    pub tmt1_c: f64,
    /// TMT2: heavy throttling from this composite temperature, C.
    pub tmt2_c: f64,
    /// NAND speed under light throttling, percent of full speed.
    pub light_throttle_speed_pct: f64,
    /// NAND speed under heavy throttling, percent of full speed.
    pub heavy_throttle_speed_pct: f64,
    /// A throttle state ends when the composite temperature falls this far below its threshold, C.
    pub hysteresis_c: f64,
}

impl ControllerConfig {
    /// SRAM the map cache and the firmware's other tables take from the write buffer (only when the map is
    /// cached in SRAM).
    pub fn shared_sram_kib(&self) -> u64 {
        match self.map_cache.location {
            MapLocation::Sram => self.map_cache.sram_size_kib + self.map_cache.sram_tables_kib,
            _ => 0,
        }
    }

    /// The write buffer left for host data.
    pub fn write_buffer_bytes(&self) -> u64 {
        (self.write_buffer_kib - self.shared_sram_kib()) * 1024
    }
}

impl DriveConfig {
    /// Parse a drive TOML, apply `--set PATH=VALUE` overrides, and validate.
    ///
    /// ```
    /// # let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../python/ssdlab/presets/generic-tlc-dram.toml")).unwrap();
    /// use ssdlab_core::DriveConfig;
    /// let cfg = DriveConfig::from_toml_str(&text, &[("nand.tR_us".into(), "50".into())]).unwrap();
    /// assert_eq!(cfg.nand.tR_us, vec![50.0]);
    /// ```
    pub fn from_toml_str(text: &str, overrides: &[(String, String)]) -> Result<Self, ConfigError> {
        let mut doc: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| ConfigError::single(&line_of(text, e.span()), e.message(), ""))?;
        // every bad override at once, as validation reports every bad value
        let problems: Vec<Problem> = overrides
            .iter()
            .filter_map(|(path, value)| validate::apply_override(&mut doc, path, value).err())
            .flat_map(|e| e.problems)
            .collect();
        if !problems.is_empty() {
            return Err(ConfigError { problems });
        }
        let cfg: DriveConfig = serde_path_to_error::deserialize(doc).map_err(|e| {
            // serde's message says what is wrong ("unknown field `x`, expected one of ..."); the path says where.
            let path = e.path().to_string();
            let message = e.inner().message();
            let message = unknown_field(message).unwrap_or_else(|| plain(message));
            ConfigError::single(if path == "." { "" } else { &path }, &message, "")
        })?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// The full parameter set as TOML that [`DriveConfig::from_toml_str`] loads back.
    pub fn to_toml_string(&self) -> String {
        toml::to_string(self).expect("a DriveConfig always serialises")
    }
}

/// A per-page-type list from a drive file: `tR_us = 50` (one value for every page type) or a list.
fn number_or_list<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Vec<f64>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged, expecting = "a number or a list of numbers like [45, 55, 65]")]
    enum OneOrMany {
        One(f64),
        Many(Vec<f64>),
    }
    Ok(match OneOrMany::deserialize(d)? {
        OneOrMany::One(x) => vec![x],
        OneOrMany::Many(v) => v,
    })
}

/// serde's message in the field's terms: what a drive file's value must be, not the Rust type that holds it.
fn plain(message: &str) -> String {
    [
        ("expected u8", "expected a whole number >= 0"),
        ("expected u16", "expected a whole number >= 0"),
        ("expected u32", "expected a whole number >= 0"),
        ("expected u64", "expected a whole number >= 0"),
        ("expected f64", "expected a number"),
        ("expected a boolean", "expected true or false"),
    ]
    .into_iter()
    .fold(message.to_string(), |m, (rust, ours)| m.replace(rust, ours))
}

/// serde's "unknown field `tR_uss`, expected one of `cell`, ..." as `--set` says it: "unknown parameter (did
/// you mean tR_us?); this section has: ...". None for any other message.
fn unknown_field(message: &str) -> Option<String> {
    let rest = message.strip_prefix("unknown field `")?;
    let (name, expected) = rest.split_once('`')?;
    let mut keys: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    keys.sort_unstable();
    let hint = crate::error::did_you_mean(name, &keys);
    Some(format!("unknown parameter{hint}; this section has: {}", keys.join(", ")))
}

fn line_of(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    match span {
        Some(r) => format!("line {}", text[..r.start.min(text.len())].lines().count().max(1)),
        None => String::new(),
    }
}

fn one() -> f64 {
    1.0
}
