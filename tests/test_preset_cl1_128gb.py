"""The cl1-128gb preset (Lite-On CL1 128GB: SM2263XT DRAM-less with HMB, 4 x 256 Gbit BiCS4 TLC dies).

Specifies that a full-size whole-drive fill (~6 s) reproduces the published AIDA64 fill curve
(../shared/calibration/published.toml ``[cl1_128gb] fill_curve``) within 10% on each segment, and that
the curve has the two levels the preset's own parameters predict: SLC at the dies' SLC program rate
until the SLC cache budget (``static_gb + dynamic_fraction * unwritten / 3``) is used up, then writes
through SLC with interleaved folding (``fold_above_fill = 0``) to the end, at less than the
harmonic combination of the SLC and TLC program rates (each folded byte also costs an SLC read).
"""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

import ssdlab
from ssdlab.suites.dbmix import PUBLISHED
from ssdlab.suites.fill import FillResult, load_published_fill_curve, run_fill

GB = 10**9
BITS_PER_CELL = {"slc": 1, "mlc": 2, "tlc": 3, "qlc": 4}

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def filled() -> tuple[dict[str, Any], int, FillResult]:
    drive = ssdlab.Drive.from_preset("cl1-128gb")
    cfg = tomllib.loads(drive.config_toml())
    return cfg, drive.capacity_bytes, run_fill(drive)


def test_published_fill_curve_within_10_percent(filled: tuple[dict[str, Any], int, FillResult]) -> None:
    _, _, res = filled
    checks = res.compare(load_published_fill_curve(PUBLISHED, "cl1_128gb"))
    assert len(checks) == 2
    assert all(c.ok for c in checks), [
        (c.fill_start, c.fill_end, c.low_mbps, c.high_mbps, c.mbps) for c in checks
    ]


def test_two_levels_where_the_slc_cache_runs_out(filled: tuple[dict[str, Any], int, FillResult]) -> None:
    cfg, cap, res = filled
    slc, nand = cfg["ftl"]["slc_cache"], cfg["nand"]
    assert slc["fold_above_fill"] == 0.0 and slc["fold_whole_blocks_above_fill"] == 1.0
    levels = res.levels()
    assert len(levels) == 2, [(lv.fill_start, lv.fill_end, round(lv.mbps)) for lv in levels]
    slc_level, fold_level = levels
    # The cache is used up when the host data written equals the budget left:
    # w = static + dynamic_fraction * (capacity - w) / bits_per_cell.
    k = slc["dynamic_fraction"] / BITS_PER_CELL[nand["cell"]]
    exhausted = (slc["static_gb"] * GB + k * cap) / (1 + k) / cap
    assert slc_level.first == 0
    assert abs(slc_level.fill_end - exhausted) <= 1 * GB / cap, (slc_level.fill_end, exhausted)
    assert abs(fold_level.fill_start - exhausted) <= 1 * GB / cap, (fold_level.fill_start, exhausted)
    assert fold_level.fill_end >= 1 - 2 * GB / cap  # to the end (the short last chunk aside)
    # Speeds from the NAND timings: one SLC / one-shot TLC program unit per die at a time.
    dies = nand["channels"] * nand["dies_per_channel"]
    plane_bytes = nand["planes_per_die"] * nand["page_size_kib"] * 1024
    slc_mbps = dies * plane_bytes / nand["slc_tPROG_us"]
    tlc_mbps = dies * plane_bytes * BITS_PER_CELL[nand["cell"]] / nand["tPROG_us"][0]
    assert slc_level.mbps == pytest.approx(slc_mbps, rel=0.02)
    interleaved = 1 / (1 / slc_mbps + 1 / tlc_mbps)
    assert 0.75 * interleaved < fold_level.mbps < interleaved
