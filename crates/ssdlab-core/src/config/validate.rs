//! Validation of a [`DriveConfig`]: every problem, with its TOML path, the value given and what is allowed.

use super::{BusMode, DriveConfig, LinkKind};
use std::fmt;

/// One thing wrong with a drive config.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// TOML path, e.g. `nand.tR_us`.
    pub path: String,
    /// What is wrong and what is allowed.
    pub message: String,
    /// The value given, as text ("" when there is none).
    pub value: String,
}

/// A drive config that cannot be used; lists every problem found.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ConfigError {
    /// Every problem found, in the order checked.
    pub problems: Vec<Problem>,
}

impl ConfigError {
    pub(crate) fn single(path: &str, message: &str, value: &str) -> Self {
        ConfigError {
            problems: vec![Problem { path: path.into(), message: message.into(), value: value.into() }],
        }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, p) in self.problems.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            match (p.path.is_empty(), p.value.is_empty()) {
                (false, false) => write!(f, "{}: {} (got {})", p.path, p.message, p.value)?,
                (false, true) => write!(f, "{}: {}", p.path, p.message)?,
                (true, false) => write!(f, "{} ({})", p.message, p.value)?,
                (true, true) => write!(f, "{}", p.message)?,
            }
        }
        Ok(())
    }
}

/// Set `path` (dotted TOML path of an existing key) to `value`, keeping the key's type.
pub(crate) fn apply_override(doc: &mut toml::Table, path: &str, value: &str) -> Result<(), ConfigError> {
    let bad = |msg: &str| ConfigError::single(path, msg, value);
    let mut parts: Vec<&str> = path.split('.').collect();
    let last = parts.pop().filter(|s| !s.is_empty()).ok_or_else(|| bad("empty parameter path"))?;
    let mut table = doc;
    for (i, part) in parts.iter().enumerate() {
        table = match table.get_mut(*part) {
            Some(toml::Value::Table(t)) => t,
            _ => return Err(bad(&format!("no section `{}` in the drive config", parts[..=i].join(".")))),
        };
    }
    let old = table.get(last).ok_or_else(|| {
        let keys: Vec<&str> = table.keys().map(|k| k.as_str()).collect();
        let hint = crate::error::did_you_mean(last, &keys);
        bad(&format!("unknown parameter{hint}; this section has: {}", keys.join(", ")))
    })?;
    let new = match old {
        toml::Value::String(_) => toml::Value::String(value.to_string()),
        toml::Value::Integer(_) => {
            value.parse::<i64>().map(toml::Value::Integer).map_err(|_| bad("expected an integer"))?
        }
        toml::Value::Float(_) => {
            value.parse::<f64>().map(toml::Value::Float).map_err(|_| bad("expected a number"))?
        }
        toml::Value::Boolean(_) => match value {
            "true" => toml::Value::Boolean(true),
            "false" => toml::Value::Boolean(false),
            _ => return Err(bad("expected true or false")),
        },
        toml::Value::Array(_) => {
            // `--set nand.tR_us=60` (one value for every page type) or `--set 'nand.tR_us=[45,55,65]'`
            let list = "expected a number or a list like [45, 55, 65]";
            let parsed: toml::Table = format!("v = {value}").parse().map_err(|_| bad(list))?;
            let numbers = match parsed.get("v") {
                Some(toml::Value::Array(a)) => a.clone(),
                Some(v) => vec![v.clone()],
                None => Vec::new(),
            };
            let floats: Option<Vec<toml::Value>> = numbers
                .iter()
                .map(|v| match v {
                    toml::Value::Integer(i) => Some(toml::Value::Float(*i as f64)),
                    toml::Value::Float(_) => Some(v.clone()),
                    _ => None,
                })
                .collect();
            match floats {
                Some(f) if !f.is_empty() => toml::Value::Array(f),
                _ => return Err(bad(list)),
            }
        }
        _ => return Err(bad("this parameter is a section; set one of its keys instead")),
    };
    table.insert(last.to_string(), new);
    Ok(())
}

struct Checker(Vec<Problem>);

impl Checker {
    fn check(&mut self, ok: bool, path: &str, message: &str, value: impl fmt::Display) {
        if !ok {
            self.0.push(Problem { path: path.into(), message: message.into(), value: value.to_string() });
        }
    }
    fn range_u(&mut self, path: &str, v: u64, lo: u64, hi: u64) {
        self.check((lo..=hi).contains(&v), path, &format!("must be {lo}..={hi}"), v);
    }
    fn range_f(&mut self, path: &str, v: f64, lo: f64, hi: f64) {
        self.check(v.is_finite() && v >= lo && v <= hi, path, &format!("must be {lo}..={hi}"), v);
    }
}

impl DriveConfig {
    /// Check every field against its allowed range; report all problems at once.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let mut c = Checker(Vec::new());
        // Host-side costs are a doorbell, an SQE fetch, a CQE and an interrupt: microseconds, never past 1 ms.
        c.range_u("host.submit_ns", self.host.submit_ns, 0, 1_000_000);
        c.range_u("host.complete_ns", self.host.complete_ns, 0, 1_000_000);
        let l = &self.link;
        match l.kind {
            LinkKind::Pcie => {
                c.range_u("link.gen", l.gen.into(), 1, 4);
                c.check(
                    [1, 2, 4, 8, 16].contains(&l.lanes),
                    "link.lanes",
                    "must be 1, 2, 4, 8 or 16",
                    l.lanes,
                );
                c.check(
                    [128, 256, 512, 1024, 2048, 4096].contains(&l.max_payload_bytes),
                    "link.max_payload_bytes",
                    "must be a PCIe max payload size: 128, 256, 512, 1024, 2048 or 4096",
                    l.max_payload_bytes,
                );
            }
            LinkKind::Sata => {
                c.check(l.gen == 3, "link.gen", "SATA is modelled at revision 3 (6 Gb/s)", l.gen);
                c.check(l.lanes == 1, "link.lanes", "SATA has one lane", l.lanes);
                c.range_u("link.max_payload_bytes", l.max_payload_bytes.into(), 512, 8192);
                c.range_u("link.queue_depth_limit", l.queue_depth_limit.into(), 1, 32);
            }
        }
        c.range_u("link.frame_overhead_bytes", l.frame_overhead_bytes.into(), 0, 256);
        c.range_f("link.flow_control_overhead_pct", l.flow_control_overhead_pct, 0.0, 50.0);
        c.range_u("link.latency_ns", l.latency_ns, 0, 100_000);
        c.range_u("link.queue_depth_limit", l.queue_depth_limit.into(), 1, 65_536);

        let ctl = &self.controller;
        c.range_u("controller.cores", ctl.cores.into(), 1, 64);
        let z = &ctl.compression;
        c.range_f("controller.compression.best_ratio", z.best_ratio, 0.05, 1.0);
        c.range_f("controller.compression.overhead_pct", z.overhead_pct, 0.0, 12.5);
        // 0 = unlimited; a rate under 1 MB/s is no compression engine (and rounds to 0 bytes/s, a division by 0)
        c.check(
            z.engine_mbps == 0.0 || (z.engine_mbps.is_finite() && (1.0..=1e6).contains(&z.engine_mbps)),
            "controller.compression.engine_mbps",
            "must be 0 (unlimited) or 1..=1000000 MB/s",
            z.engine_mbps,
        );
        c.range_u("host.memory_read_ns", self.host.memory_read_ns, 0, 100_000);
        let d = &ctl.data_path;
        for (path, v) in [
            ("controller.data_path.ldpc_mbps", d.ldpc_mbps),
            ("controller.data_path.dma_mbps", d.dma_mbps),
            ("controller.data_path.sram_mbps", d.sram_mbps),
            ("controller.data_path.ldpc_encode_mbps", d.ldpc_encode_mbps),
        ] {
            // as engine_mbps: under 1 MB/s rounds to 0 bytes/s
            c.check(
                v == 0.0 || (v.is_finite() && (1.0..=1e6).contains(&v)),
                path,
                "must be 0 (unlimited) or 1..=1000000 MB/s",
                v,
            );
        }
        // a decoder iterates no less on native cells than on SLC ones
        c.check(
            d.ldpc_native_mbps == 0.0
                || (d.ldpc_mbps > 0.0 && d.ldpc_native_mbps >= 1.0 && d.ldpc_native_mbps <= d.ldpc_mbps),
            "controller.data_path.ldpc_native_mbps",
            "must be 0 (as ldpc_mbps) or 1..=ldpc_mbps MB/s (with a decoder limit set)",
            d.ldpc_native_mbps,
        );
        c.range_u("controller.data_path.ldpc_codeword_bytes", d.ldpc_codeword_bytes.into(), 512, 16_384);
        c.range_u("controller.write_path.commit_ns", ctl.write_path.commit_ns, 0, 1_000_000);
        c.range_u("controller.read_overhead_ns", ctl.read_overhead_ns, 0, 1_000_000);
        c.range_u("controller.write_overhead_ns", ctl.write_overhead_ns, 0, 1_000_000);
        c.range_u("controller.read_ahead_kib", ctl.read_ahead_kib, 0, 65_536);
        let m = &ctl.map_cache;
        c.range_u("controller.map_cache.lookup_ns", m.lookup_ns, 0, 1_000_000);
        c.range_u("controller.map_cache.hmb_size_mib", m.hmb_size_mib, 1, 65_536);
        c.range_u("controller.map_cache.sram_size_kib", m.sram_size_kib, 4, 1 << 20);
        c.range_u("controller.map_cache.sram_tables_kib", m.sram_tables_kib, 0, 1 << 20);
        c.check(
            m.map_page_kib.is_power_of_two() && m.map_page_kib <= 64,
            "controller.map_cache.map_page_kib",
            "must be a power of two from 1 to 64",
            m.map_page_kib,
        );
        c.check(
            m.sram_segment_kib == 0 || (m.sram_segment_kib.is_power_of_two() && m.sram_segment_kib <= 64),
            "controller.map_cache.sram_segment_kib",
            "must be 0 (whole map pages) or a power of two from 1 to 64",
            m.sram_segment_kib,
        );
        c.range_u("controller.map_cache.prefetch_pages", m.prefetch_pages.into(), 0, 256);
        c.range_u("controller.map_cache.map_reads_in_flight", m.map_reads_in_flight.into(), 0, 4096);
        c.range_f("controller.map_cache.hmb_ecc_single_bit_rate", m.hmb_ecc_single_bit_rate, 0.0, 1.0);
        c.range_f("controller.map_cache.hmb_ecc_double_bit_rate", m.hmb_ecc_double_bit_rate, 0.0, 1.0);
        c.check(
            m.hmb_ecc_single_bit_rate + m.hmb_ecc_double_bit_rate <= 1.0,
            "controller.map_cache.hmb_ecc_double_bit_rate",
            "single- and double-bit error rates are per access and must sum to at most 1",
            m.hmb_ecc_single_bit_rate + m.hmb_ecc_double_bit_rate,
        );
        c.range_u("controller.map_cache.hmb_ecc_correct_ns", m.hmb_ecc_correct_ns, 0, 1_000_000);
        c.check(
            [2, 4, 8].contains(&m.entry_bytes) && m.entry_bytes <= m.map_page_kib * 1024,
            "controller.map_cache.entry_bytes",
            "must be 2, 4 or 8 bytes",
            m.entry_bytes,
        );
        c.check(
            m.hmb_map_pct > 0.0 && m.hmb_map_pct <= 100.0,
            "controller.map_cache.hmb_map_pct",
            "must be more than 0 and at most 100 percent",
            m.hmb_map_pct,
        );
        c.range_u("controller.map_cache.journal_entry_bytes", m.journal_entry_bytes.into(), 4, 64);
        c.range_u("controller.map_cache.checkpoint_entries", m.checkpoint_entries, 1, 1 << 40);
        c.range_u("controller.map_cache.checkpoint_dirty_pages", m.checkpoint_dirty_pages.into(), 0, 1 << 30);
        // more than the die has means all of them (so `--set nand.planes_per_die=1` stays valid)
        c.range_u("controller.map_cache.map_program_planes", m.map_program_planes.into(), 1, 8);

        let n = &self.nand;
        let before_geometry = c.0.len();
        c.range_u("nand.channels", n.channels.into(), 1, 64);
        c.range_u("nand.dies_per_channel", n.dies_per_channel.into(), 1, 64);
        c.range_u("nand.planes_per_die", n.planes_per_die.into(), 1, 8);
        c.range_u("nand.blocks_per_plane", n.blocks_per_plane.into(), 4, 1 << 20);
        c.range_u("nand.pages_per_block", n.pages_per_block.into(), 1, 1 << 14);
        c.check(
            [4, 8, 16, 32].contains(&n.page_size_kib),
            "nand.page_size_kib",
            "must be 4, 8, 16 or 32",
            n.page_size_kib,
        );
        let ppp = if n.one_shot_program { n.cell.bits_per_cell() } else { 1 };
        c.check(
            n.pages_per_block.is_multiple_of(ppp),
            "nand.pages_per_block",
            &format!("must be a multiple of the {ppp} pages of a one-shot program"),
            n.pages_per_block,
        );
        let geometry_ok = c.0.len() == before_geometry;
        let bits = n.cell.bits_per_cell() as usize;
        let types = format!("one value, or {bits} (one per page type)");
        c.check([1, bits].contains(&n.tR_us.len()), "nand.tR_us", &format!("needs {types}"), n.tR_us.len());
        let prog_ok =
            if n.one_shot_program { n.tPROG_us.len() == 1 } else { [1, bits].contains(&n.tPROG_us.len()) };
        let prog_allowed = if n.one_shot_program {
            "needs one value: a one-shot program writes every page type at once".to_string()
        } else {
            format!("needs {types}")
        };
        c.check(prog_ok, "nand.tPROG_us", &prog_allowed, n.tPROG_us.len());
        for &t in &n.tR_us {
            c.range_f("nand.tR_us", t, 1.0, 10_000.0);
        }
        for &t in &n.tPROG_us {
            c.range_f("nand.tPROG_us", t, 10.0, 100_000.0);
        }
        // Spreads: none, or a maximum at or above the typical time for every page type.
        let spreads = [
            ("nand.tR_max_us", "tR_us", &n.tR_max_us, &n.tR_us),
            ("nand.tPROG_max_us", "tPROG_us", &n.tPROG_max_us, &n.tPROG_us),
        ];
        for (key, typ_key, max, typ) in spreads {
            c.check(
                max.is_empty() || max.len() == typ.len(),
                key,
                &format!("needs [] (no spread) or {} values, one per value of {typ_key}", typ.len()),
                max.len(),
            );
            for (&m, &t) in max.iter().zip(typ.iter()) {
                let ok = m.is_finite() && m >= t && m <= 100_000.0;
                c.check(
                    ok,
                    key,
                    &format!("must be at least the typical {typ_key} {t} and at most 100000"),
                    m,
                );
            }
        }
        c.check(
            n.tBERS_max_ms == 0.0 || (n.tBERS_max_ms >= n.tBERS_ms && n.tBERS_max_ms <= 1_000.0),
            "nand.tBERS_max_ms",
            &format!("must be 0 (no spread) or {}..=1000 (at least tBERS_ms)", n.tBERS_ms),
            n.tBERS_max_ms,
        );
        c.range_f("nand.slc_tR_us", n.slc_tR_us, 1.0, 10_000.0);
        c.range_f("nand.slc_tPROG_us", n.slc_tPROG_us, 10.0, 100_000.0);
        if n.bus_mode == BusMode::Async {
            c.range_u("nand.bus_mts", n.bus_mts.into(), 10, 100);
        }
        c.range_f("nand.tBERS_ms", n.tBERS_ms, 0.1, 1_000.0);
        c.range_u("nand.command_overhead_ns", n.command_overhead_ns, 0, 100_000);
        c.range_u("nand.bus_mts", n.bus_mts.into(), 10, 10_000);
        let s = &n.suspension;
        c.range_f("nand.suspension.tSUSP_program_us", s.tSUSP_program_us, 0.0, 10_000.0);
        c.range_f("nand.suspension.tSUSP_erase_us", s.tSUSP_erase_us, 0.0, 10_000.0);
        c.range_f("nand.suspension.resume_overhead_us", s.resume_overhead_us, 0.0, 10_000.0);
        c.range_u("nand.suspension.max_suspensions_per_op", s.max_suspensions_per_op.into(), 0, 1000);
        let r = &n.read_retry;
        c.range_u("nand.read_retry.onset_pe_cycles", r.onset_pe_cycles.into(), 0, 1_000_000);
        c.range_f("nand.read_retry.retries_per_kpe", r.retries_per_kpe, 0.0, 100.0);
        c.range_u("nand.read_retry.max_retries", r.max_retries.into(), 0, 100);

        let phys_slots = u64::from(n.channels)
            * u64::from(n.dies_per_channel)
            * u64::from(n.planes_per_die)
            * u64::from(n.blocks_per_plane)
            * u64::from(n.pages_per_block)
            * u64::from(n.page_size_kib / 4);
        c.check(
            phys_slots < u64::from(u32::MAX),
            "nand",
            "physical capacity must be under 16 TiB (4 KiB pages addressed by 32 bits)",
            format!("{} GiB", phys_slots / 262_144),
        );
        let f = &self.ftl;
        c.range_u("ftl.gc_threshold_free_blocks", f.gc_threshold_free_blocks.into(), 1, 1024);
        c.range_f("ftl.idle_after_ms", f.idle_after_ms, 0.0, 3_600_000.0);
        c.range_u("ftl.background_gc_free_blocks", f.background_gc_free_blocks.into(), 0, 1024);
        c.range_u("ftl.wear_leveling_threshold", f.wear_leveling_threshold.into(), 0, 100_000);
        // SLC NAND is rated ~100k P/E cycles; 1M leaves room for what-ifs
        c.range_u("ftl.pe_cycle_limit", f.pe_cycle_limit.into(), 0, 1_000_000);
        c.range_u("ftl.initial_pe_cycles", f.initial_pe_cycles.into(), 0, 1_000_000);
        c.check(
            f.pe_cycle_limit == 0 || f.initial_pe_cycles < f.pe_cycle_limit,
            "ftl.initial_pe_cycles",
            &format!(
                "must be below ftl.pe_cycle_limit ({}): every block would be worn out",
                f.pe_cycle_limit
            ),
            f.initial_pe_cycles,
        );
        c.range_f("ftl.factory_bad_block_pct", f.factory_bad_block_pct, 0.0, 50.0);
        c.range_u("ftl.gc_window_blocks", f.gc_window_blocks.into(), 1, 1 << 20);
        let reserve = u64::from(n.channels * n.dies_per_channel)
            * (u64::from(f.gc_threshold_free_blocks) + 3)
            * u64::from(n.planes_per_die * n.pages_per_block * (n.page_size_kib / 4));
        let good_slots = (phys_slots as f64 * (1.0 - f.factory_bad_block_pct / 100.0)) as u64;
        let max_gb = good_slots.saturating_sub(reserve) as f64 * 4096.0 / 1e9;
        let capacity_ok = f.user_capacity_gb > 0.0 && f.user_capacity_gb <= max_gb;
        // (against a geometry that is itself wrong the upper bound means nothing: its own line says so)
        c.check(
            capacity_ok || (f.user_capacity_gb > 0.0 && !geometry_ok),
            "ftl.user_capacity_gb",
            &format!(
                "must be above 0 and at most {max_gb:.3} GB (the NAND less factory bad blocks and {} GC-reserve blocks per die)",
                f.gc_threshold_free_blocks + 3
            ),
            f.user_capacity_gb,
        );
        let spare_gb = max_gb - f.user_capacity_gb;
        let extra = f64::from(n.cell.bits_per_cell().saturating_sub(1).max(1));
        // (no spare area to speak of while the capacity itself is wrong: that one line says it)
        c.check(
            !capacity_ok || !f.slc_cache.enabled || f.slc_cache.static_gb * extra <= spare_gb,
            "ftl.slc_cache.static_gb",
            &format!(
                "the static SLC cache must fit the spare area of a full drive: at most {:.3} GB",
                (spare_gb / extra).max(0.0)
            ),
            f.slc_cache.static_gb,
        );
        c.range_f("ftl.slc_cache.static_gb", f.slc_cache.static_gb, 0.0, 1e6);
        c.range_f("ftl.slc_cache.dynamic_fraction", f.slc_cache.dynamic_fraction, 0.0, 1.0);
        c.range_f("ftl.slc_cache.dynamic_max_pct", f.slc_cache.dynamic_max_pct, 0.0, 100.0);
        c.range_f("ftl.slc_cache.dynamic_max_gb", f.slc_cache.dynamic_max_gb, 0.0, 1e6);
        c.range_f("ftl.slc_cache.dynamic_until_fill", f.slc_cache.dynamic_until_fill, 0.0, 1.0);
        c.range_f("ftl.slc_cache.fold_above_fill", f.slc_cache.fold_above_fill, 0.0, 1.0);
        c.range_f(
            "ftl.slc_cache.fold_whole_blocks_above_fill",
            f.slc_cache.fold_whole_blocks_above_fill,
            0.0,
            1.0,
        );
        c.check(
            !z.enabled || n.planes_per_die * n.page_size_kib >= 8,
            "controller.compression.enabled",
            "compression needs multi-plane pages of at least 8 KiB (one incompressible entry is 4.5 KiB)",
            z.enabled,
        );
        c.check(
            !z.enabled || phys_slots < u64::from(u32::MAX) / 16,
            "controller.compression.enabled",
            "compression addresses 256-byte slots with 32 bits: at most 1 TiB of NAND",
            z.enabled,
        );
        let pu_kib = u64::from(n.planes_per_die * ppp * n.page_size_kib);
        c.check(
            ctl.write_buffer_kib >= 2 * pu_kib + ctl.shared_sram_kib(),
            "controller.write_buffer_kib",
            &format!(
                "must hold at least two program units ({} KiB){}",
                2 * pu_kib,
                if ctl.shared_sram_kib() > 0 {
                    " beside the SRAM map cache and tables (map_cache.sram_size_kib + sram_tables_kib)"
                } else {
                    ""
                }
            ),
            ctl.write_buffer_kib,
        );
        self.check_calibration(&mut c);
        let p = &self.power;
        c.range_f("power.nand_vcc_v", p.nand_vcc_v, 0.0, 5.0);
        c.range_f("power.nand_read_ma", p.nand_read_ma, 0.0, 500.0);
        c.range_f("power.nand_program_ma", p.nand_program_ma, 0.0, 500.0);
        c.range_f("power.nand_erase_ma", p.nand_erase_ma, 0.0, 500.0);
        c.range_f("power.nand_standby_ua", p.nand_standby_ua, 0.0, 10_000.0);
        c.range_f("power.channel_pj_per_byte", p.channel_pj_per_byte, 0.0, 100_000.0);
        c.range_f("power.link_pj_per_byte", p.link_pj_per_byte, 0.0, 100_000.0);
        c.range_f("power.command_nj", p.command_nj, 0.0, 1e6);
        c.range_f("power.controller_idle_mw", p.controller_idle_mw, 0.0, 50_000.0);
        c.range_f("power.controller_active_mw", p.controller_active_mw, 0.0, 50_000.0);
        c.range_f("power.lane_mw", p.lane_mw, 0.0, 10_000.0);
        c.range_f("power.link_idle_mw", p.link_idle_mw, 0.0, 10_000.0);
        c.range_f("power.link_idle_after_us", p.link_idle_after_us, 0.0, 1e9);
        c.range_f("power.link_exit_us", p.link_exit_us, 0.0, 1e6);
        c.range_u("power.nonop_states", p.nonop_states.len() as u64, 0, 8);
        let mut last_idle = 0.0;
        for (i, st) in p.nonop_states.iter().enumerate() {
            let at = |k: &str| format!("power.nonop_states[{i}].{k}");
            c.range_f(&at("controller_mw"), st.controller_mw, 0.0, 50_000.0);
            c.range_f(&at("idle_ms"), st.idle_ms, 0.001, 3.6e6);
            c.range_f(&at("entry_latency_us"), st.entry_latency_us, 0.0, 1e6);
            c.range_f(&at("exit_latency_us"), st.exit_latency_us, 0.0, 1e6);
            c.check(
                st.idle_ms > last_idle || i == 0,
                &at("idle_ms"),
                "states go shallowest first: each idle time must be longer than the one before",
                st.idle_ms,
            );
            last_idle = st.idle_ms;
        }
        let t = &self.thermal;
        c.range_f("thermal.ambient_c", t.ambient_c, -40.0, 100.0);
        c.range_f("thermal.tmt1_c", t.tmt1_c, 0.0, 200.0);
        c.range_f("thermal.tmt2_c", t.tmt2_c, 0.0, 200.0);
        c.check(t.tmt2_c >= t.tmt1_c, "thermal.tmt2_c", "must be at least tmt1_c", t.tmt2_c);
        c.range_f("thermal.light_throttle_speed_pct", t.light_throttle_speed_pct, 1.0, 100.0);
        c.range_f("thermal.heavy_throttle_speed_pct", t.heavy_throttle_speed_pct, 1.0, 100.0);
        c.range_f("thermal.hysteresis_c", t.hysteresis_c, 0.0, 50.0);
        if c.0.is_empty() {
            Ok(())
        } else {
            Err(ConfigError { problems: c.0 })
        }
    }

    /// `[calibration]`: each free key names a number of this config (not of `[calibration]` itself) with a
    /// finite range, min < max (or `[]`: not free); there are figures to fit to, and no figure is both
    /// fitted and held out.
    fn check_calibration(&self, c: &mut Checker) {
        let Some(cal) = &self.calibration else { return };
        let mut drive = self.clone();
        drive.calibration = None;
        let Ok(toml::Value::Table(doc)) = toml::Value::try_from(&drive) else { return };
        for (key, range) in &cal.free {
            let path = format!("calibration.free.\"{key}\"");
            let &[lo, hi] = range.as_slice() else {
                c.check(
                    range.is_empty(),
                    &path,
                    "must be a range [min, max], or [] for a parameter that is not free",
                    format!("{range:?}"),
                );
                continue;
            };
            let mut parts: Vec<&str> = key.split('.').collect();
            let last = parts.pop().unwrap_or_default();
            let parent = parts.iter().try_fold(&doc, |t, part| match t.get(*part) {
                Some(toml::Value::Table(inner)) => Some(inner),
                _ => None,
            });
            let number = matches!(
                parent.and_then(|t| t.get(last)),
                Some(toml::Value::Float(_) | toml::Value::Integer(_))
            );
            c.check(
                number,
                &path,
                "must be the TOML path of a number in the drive config, e.g. \"nand.slc_tPROG_us\"",
                key,
            );
            c.check(
                lo.is_finite() && hi.is_finite() && lo < hi,
                &path,
                "must be a range [min, max] of finite numbers with min < max",
                format!("[{lo}, {hi}]"),
            );
        }
        c.check(
            cal.free.values().all(Vec::is_empty) || !cal.figures.is_empty(),
            "calibration.figures",
            "must name at least one published figure to fit the free parameters to",
            "[]",
        );
        for f in &cal.figures {
            c.check(
                !cal.holdout.contains(f),
                "calibration.holdout",
                "a held-out figure must not also be fitted to (calibration.figures)",
                f,
            );
        }
    }
}
