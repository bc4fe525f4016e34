//! A drive's full parameter set, as serde structs that mirror the TOML sections.
//!
//! Every key carries its unit (`tR_us`, `write_buffer_kib`, `latency_ns`), every field is required
//! (no silent defaults: `ssdlab show PRESET` prints a complete file to start from), unknown keys are
//! errors, and [`DriveConfig::validate`] reports every problem at once with its TOML path.

mod validate;

use serde::{Deserialize, Serialize};

pub use validate::{ConfigError, Problem};

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DriveConfig {
    /// Preset name, e.g. `bg4-1tb`.
    pub name: String,
    /// One line on what the drive is and where its parameters come from.
    pub description: String,
    pub host: HostConfig,
    pub link: LinkConfig,
    pub controller: ControllerConfig,
    pub ftl: FtlConfig,
    pub nand: NandConfig,
}

/// The host side of the NVMe (or AHCI) interface.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    /// Doorbell write + submission-queue-entry fetch, before the controller sees the command.
    pub submit_ns: u64,
    /// Completion-queue entry + interrupt, until the application sees the completion.
    pub complete_ns: u64,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LinkKind {
    Pcie,
    Sata,
}

/// The host link: PCIe gen x lanes, or SATA 6 Gb/s.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LinkConfig {
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

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum MapLocation {
    /// The whole page map in on-board DRAM.
    Dram,
}

/// Where the logical-to-physical map is cached and what a lookup costs.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct MapCacheConfig {
    pub location: MapLocation,
    /// Cost of one map lookup that hits the cache.
    pub lookup_ns: u64,
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
    pub write_buffer_kib: u64,
    pub map_cache: MapCacheConfig,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum GcPolicy {
    /// Victim = the closed block with the fewest valid pages.
    Greedy,
}

/// The flash translation layer: capacity exposed to the host, garbage collection, the SLC cache.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    /// Capacity the host sees, decimal GB; the rest of the NAND is over-provisioning.
    pub user_capacity_gb: f64,
    pub gc_policy: GcPolicy,
    /// Foreground GC starts on a die when its free blocks fall to this number.
    pub gc_threshold_free_blocks: u32,
    /// Background work (idle GC, folding) starts once the host has been idle this long.
    pub idle_after_ms: f64,
    /// Idle GC keeps at least this many free blocks per die (0 = no idle GC).
    pub background_gc_free_blocks: u32,
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
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SlcCacheConfig {
    pub enabled: bool,
    /// SLC capacity that never goes away, decimal GB of host data.
    pub static_gb: f64,
    /// Share of unwritten user capacity that may run in SLC mode (0..=1).
    pub dynamic_fraction: f64,
    pub post_cache: PostCache,
    /// Fold SLC data to native blocks when the host is idle, restoring the cache.
    pub idle_fold: bool,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum CellType {
    Slc,
    Mlc,
    Tlc,
    Qlc,
}

impl CellType {
    pub fn bits_per_cell(self) -> u32 {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }
}

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
    pub cell: CellType,
    pub channels: u32,
    pub dies_per_channel: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_size_kib: u32,
    /// Program all bits of a wordline at once (3D TLC/QLC one-shot): a program unit is
    /// bits_per_cell pages per plane.
    pub one_shot_program: bool,
    /// Page read (array to page register) per page type, LSB first: one value for all page types, or
    /// bits_per_cell values (TLC: LSB, CSB, MSB). Page `p` of a block is of type `p % bits_per_cell`.
    pub tR_us: Vec<f64>,
    /// Program time: one-shot program of a whole program unit (one value), or per page type like `tR_us`.
    pub tPROG_us: Vec<f64>,
    /// Page read of a block run in SLC mode (one bit per cell).
    pub slc_tR_us: f64,
    /// Page program in SLC mode.
    pub slc_tPROG_us: f64,
    /// Block erase.
    pub tBERS_ms: f64,
    /// Command + address cycles before each array operation.
    pub command_overhead_ns: u64,
    /// Channel bus rate in mega-transfers per second, 8 bits per transfer.
    pub bus_mts: u32,
    pub bus_mode: BusMode,
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
        for (path, value) in overrides {
            validate::apply_override(&mut doc, path, value)?;
        }
        let cfg: DriveConfig = serde_path_to_error::deserialize(doc).map_err(|e| {
            // serde's message says what is wrong ("unknown field `x`, expected one of ..."); the path says where.
            let path = e.path().to_string();
            ConfigError::single(if path == "." { "" } else { &path }, e.inner().message(), "")
        })?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// The full parameter set as TOML that [`DriveConfig::from_toml_str`] loads back.
    pub fn to_toml_string(&self) -> String {
        toml::to_string(self).expect("a DriveConfig always serialises")
    }
}

fn line_of(text: &str, span: Option<std::ops::Range<usize>>) -> String {
    match span {
        Some(r) => format!("line {}", text[..r.start.min(text.len())].lines().count().max(1)),
        None => String::new(),
    }
}
