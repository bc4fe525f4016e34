"""NVMe admin views of a twin: Identify Controller / Namespace and the SMART / Health Information log page,
computed from the preset's facts and the drive's counters as an NVMe drive reports them.

Field names follow the NVMe Base Specification (2.0) and nvme-cli's ``id-ctrl`` / ``smart-log`` output; units
are NVMe's own (data units of 1000 x 512 bytes, temperatures in kelvin on the wire, here also in Celsius).

Examples
--------
>>> import ssdlab
>>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 1})
>>> _ = drive.run(ssdlab.Workload(rw="write", bs="128k", size="100m"))
>>> log = smart_log(drive)
>>> log["data_units_written"], log["host_write_commands"], log["percentage_used"]
(205, 800, 0)
>>> identify_controller(drive)["mn"]
'bg4-1tb'
"""

from __future__ import annotations

import math
import tomllib
from typing import Any

from ssdlab.drive import Drive

#: NVMe counts data units of 1000 512-byte units, rounded up (Base Specification 2.0, SMART log bytes 32..47).
DATA_UNIT_BYTES = 512_000


def _config(drive: Drive) -> dict[str, Any]:
    return tomllib.loads(drive.config_toml())


def identify_controller(drive: Drive) -> dict[str, Any]:
    """The Identify Controller fields a host reads to set the drive up: model, capacity, the power states
    with their maximum power and entry/exit latencies, the HMB sizes, whether a volatile write cache is
    present, and the thermal management temperatures."""
    cfg = _config(drive)
    mc = cfg["controller"]["map_cache"]
    power = cfg.get("power", {})
    thermal = cfg.get("thermal", {})
    hmb = mc["location"] == "hmb"
    states = [  # the non-operational states the power model has (PS3, PS4 on client drives)
        {
            "ps": s["name"],
            "max_power_w": s["controller_mw"] / 1e3,
            "entry_lat_us": s["entry_latency_us"],
            "exit_lat_us": s["exit_latency_us"],
        }
        for s in power.get("nonop_states", [])
    ]
    return {
        "mn": drive.name,
        "tnvmcap": drive.capacity_bytes,
        "nn": 1,
        "vwc": 0 if cfg["controller"].get("write_path", {}).get("power_loss_protection") else 1,
        "hmpre_4kib": mc["hmb_size_mib"] * 256 if hmb else 0,
        "hmmin_4kib": mc["hmb_size_mib"] * 256 if hmb else 0,
        "mntmt_c": thermal.get("tmt1_c"),  # thermal management temperatures 1 and 2
        "mxtmt_c": thermal.get("tmt2_c"),
        "apsta": int(bool(power.get("apst", False))),
        "psd": states,
        "link": f"PCIe Gen{cfg['link'].get('gen')} x{cfg['link'].get('lanes')}"
        if cfg["link"]["kind"] == "pcie"
        else cfg["link"]["kind"],
    }


def identify_namespace(drive: Drive) -> dict[str, Any]:
    """Identify Namespace for the drive's one namespace: size in 4 KiB LBAs (LBA format 0), and how
    deallocated blocks read (DLFEAT: zeros)."""
    lbas = drive.capacity_bytes // 4096
    return {"nsze": lbas, "ncap": lbas, "nuse": lbas, "flbas": 0, "lbaf": [{"ds": 12, "ms": 0}], "dlfeat": 1}


def smart_log(drive: Drive) -> dict[str, int | float]:
    """The SMART / Health Information log page (log identifier 02h) from the drive's counters.

    ``percentage_used`` is the mean P/E count over the endurance limit (``ftl.pe_cycle_limit``), may exceed
    100 and is capped at 255 as the specification says; ``available_spare`` falls as blocks retire (grown
    bad blocks against the factory spare); ``power_on_hours`` is simulated time."""
    c = drive.counters()
    cfg = _config(drive)
    limit = cfg["ftl"]["pe_cycle_limit"]
    used = min(255, math.floor(100 * c["pe_cycles_mean"] / limit)) if limit else 0
    nand = cfg["nand"]
    blocks = nand["channels"] * nand["dies_per_channel"] * nand["blocks_per_plane"]
    spare_blocks = max(1.0, blocks * 0.02)  # the 2% a drive reserves for retiring blocks (a convention)
    spare = max(0, round(100 * (1 - c["grown_bad_blocks"] / spare_blocks)))
    temp_c = c["temperature_c"]
    return {
        "critical_warning": int(spare < 10),
        "temperature_k": round(temp_c + 273.15) if not math.isnan(temp_c) else 0,
        "temperature_c": temp_c,
        "available_spare": spare,
        "available_spare_threshold": 10,
        "percentage_used": used,
        "data_units_read": math.ceil(c["host_read_bytes"] / DATA_UNIT_BYTES),
        "data_units_written": math.ceil(c["host_write_bytes"] / DATA_UNIT_BYTES),
        "host_read_commands": int(c["host_read_ios"]),
        "host_write_commands": int(c["host_write_ios"]),
        "power_on_hours": int(drive.now_ns // 3_600_000_000_000),
        "unsafe_shutdowns": int(c["unsafe_shutdowns"]),
        "media_errors": int(c["data_integrity_errors"]),
        "num_err_log_entries": int(c["data_integrity_errors"]),
    }
