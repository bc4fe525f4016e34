"""The sn520-128gb preset (WD PC SN520 128GB) against its published whole-drive fill curve.

Specifies that a full-size sequential fill of the preset (128 KiB QD32 from erased to full, ~3 s)
reproduces published.toml ``[sn520_128gb] fill_curve`` within 10% on every segment, and that the curve's
shape is the one the preset's own parameters predict: two levels, SLC (the static cache) then direct TLC
(``post_cache = "direct"``, no fill-dependent fold policy), changing where ``static_gb`` of host data
has been written, each at the program throughput of its cell mode (4 dies, every plane, one page per SLC
program and ``bits_per_cell`` pages per one-shot TLC program).
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

import ssdlab
from ssdlab.suites.fill import FillResult, load_published_fill_curve, run_fill

pytestmark = pytest.mark.slow

#: The project's shared folder beside the repository (as in CI).
PUBLISHED = Path(__file__).resolve().parents[2] / "shared" / "calibration" / "published.toml"
GB = 10**9


@pytest.fixture(scope="module")
def filled() -> tuple[ssdlab.Drive, dict[str, Any], FillResult]:
    drive = ssdlab.Drive.from_preset("sn520-128gb")
    cfg = tomllib.loads(drive.config_toml())
    return drive, cfg, run_fill(drive)


def test_fill_curve_matches_published_segments(
    filled: tuple[ssdlab.Drive, dict[str, Any], FillResult],
) -> None:
    _, _, res = filled
    assert PUBLISHED.is_file(), f"{PUBLISHED} must be beside the repository (as in CI)"
    checks = res.compare(load_published_fill_curve(PUBLISHED, "sn520_128gb"))
    assert len(checks) == 3
    for c in checks:
        assert c.points > 0 and c.ok, c.to_dict()


def test_two_levels_slc_then_direct_tlc_where_the_config_puts_them(
    filled: tuple[ssdlab.Drive, dict[str, Any], FillResult],
) -> None:
    drive, cfg, res = filled
    slc, nand = cfg["ftl"]["slc_cache"], cfg["nand"]
    # No dynamic cache and no fill-dependent fold policy: nothing but the static cache changes the path.
    assert slc["dynamic_fraction"] == 0.0 and slc["post_cache"] == "direct"
    assert slc["fold_above_fill"] == 1.0 and slc["fold_whole_blocks_above_fill"] == 1.0

    levels = res.levels()
    assert len(levels) == 2, [(lv.fill_start, lv.fill_end, round(lv.mbps)) for lv in levels]
    cap = drive.capacity_bytes
    # The SLC level ends (and the TLC level begins) within a GB of static_gb of host data; TLC runs to full.
    assert levels[0].fill_start == 0.0
    assert abs(levels[0].fill_end - slc["static_gb"] * GB / cap) <= GB / cap
    assert abs(levels[1].fill_start - slc["static_gb"] * GB / cap) <= GB / cap
    assert levels[1].fill_end == 1.0

    # Each level's speed is its cell mode's program throughput over all dies (die-bound, not bus/link-bound).
    dies = nand["channels"] * nand["dies_per_channel"]
    plane_page = nand["planes_per_die"] * nand["page_size_kib"] * 1024
    slc_mbps = dies * plane_page / nand["slc_tPROG_us"]
    bits = {"slc": 1, "mlc": 2, "tlc": 3, "qlc": 4}[nand["cell"]]
    tlc_mbps = dies * bits * plane_page / nand["tPROG_us"][0]
    assert levels[0].mbps == pytest.approx(slc_mbps, rel=0.02)
    assert levels[1].mbps == pytest.approx(tlc_mbps, rel=0.02)

    # A sequential fill overwrites nothing: the cached data stays in SLC, nothing is folded or moved.
    assert res.counters["folded_bytes"] == 0
    assert res.waf == pytest.approx(1.0, abs=0.01)
