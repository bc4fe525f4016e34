"""The am610-128gb preset (Union Memory AM610 128GB: Phison E8 with DRAM, PCIe 3.0 x2, 4 x 256 Gbit Toshiba
64-layer TLC) against the published whole-drive fill curve (published.toml ``[am610_128gb] fill_curve``).

What it specifies: a full-size fill (~3 s, run once) goes through three write regimes, each where and as fast
as the preset's own parameters put it: SLC until the dynamic cache's budget is used up (20% full), straight to
TLC at the 4 dies' one-shot program rate, and from ``fold_whole_blocks_above_fill`` (in the published curve's
62-70% gap) through SLC with whole SLC blocks folded at once. The SLC segment matches the published one within
10%. The other two do not, and a strict xfail records it: with the generation's one-shot program time
(2100 us, the top of its published range) direct TLC runs at 187 MB/s against the published 160 (+17%), and
the folding level (~71 MB/s) lies a little below the published 80 (-11%); see the preset's comments.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest

import ssdlab
from ssdlab.suites.fill import FillResult, load_published_fill_curve, run_fill

PUBLISHED = Path(__file__).parents[2] / "shared/calibration/published.toml"
GB = 10**9


@pytest.fixture(scope="module")
def filled() -> tuple[ssdlab.Drive, FillResult, dict[str, Any]]:
    drive = ssdlab.Drive.from_preset("am610-128gb")
    cfg = tomllib.loads(drive.config_toml())
    return drive, run_fill(drive), cfg


@pytest.fixture(scope="module")
def curve() -> list[list[float]]:
    return load_published_fill_curve(PUBLISHED, "am610_128gb")


def rates(cfg: dict[str, Any]) -> tuple[float, float, int]:
    """(SLC MB/s, direct TLC MB/s, dies): every die programming its multi-plane unit back to back."""
    nand = cfg["nand"]
    dies = nand["channels"] * nand["dies_per_channel"]
    unit = nand["planes_per_die"] * nand["page_size_kib"] * 1024  # bytes per SLC program unit per die
    assert nand["cell"] == "tlc" and nand["one_shot_program"] and len(nand["tPROG_us"]) == 1
    slc = dies * unit / nand["slc_tPROG_us"]  # bytes per us = MB/s
    tlc = dies * 3 * unit / nand["tPROG_us"][0]
    return slc, tlc, dies


@pytest.mark.slow
def test_slc_segment_within_10_percent_of_published(
    filled: tuple[ssdlab.Drive, FillResult, dict[str, Any]], curve: list[list[float]]
) -> None:
    _, res, _ = filled
    checks = res.compare(curve)
    assert len(checks) == 3 and all(c.points > 0 for c in checks)
    assert checks[0].fill_start == 0.0 and checks[0].ok, checks[0].to_dict()


@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    reason="direct TLC at the generation's 2100 us one-shot program is 187 MB/s, not 160 (+17%); "
    "whole-block folding gives ~71 MB/s, not 80 (-11%)",
)
def test_every_segment_within_10_percent_of_published(
    filled: tuple[ssdlab.Drive, FillResult, dict[str, Any]], curve: list[list[float]]
) -> None:
    _, res, _ = filled
    assert all(c.ok for c in res.compare(curve)), [c.to_dict() for c in res.compare(curve)]


@pytest.mark.slow
def test_segments_run_at_the_rates_the_nand_timings_give(
    filled: tuple[ssdlab.Drive, FillResult, dict[str, Any]], curve: list[list[float]]
) -> None:
    _, res, cfg = filled
    slc, tlc, dies = rates(cfg)
    cache_seg, tlc_seg, fold_seg = res.compare(curve)
    # 0-20%: SLC (the segment's last point holds the switch to TLC, hence a little below the SLC rate)
    assert cache_seg.mbps == pytest.approx(slc, rel=0.05)
    # 20-62%: direct to TLC, at the dies' one-shot program rate
    assert tlc_seg.mbps == pytest.approx(tlc, rel=0.01)
    # 70-100%: through SLC, folding whole blocks: between every die waiting for each fold (serial) and
    # folding fully overlapped with the host's SLC writes (parallel)
    assert fold_seg.mbps is not None
    assert 1 / (1 / slc + dies / tlc) < fold_seg.mbps < 1 / (1 / slc + 1 / tlc)


@pytest.mark.slow
def test_levels_change_where_the_cache_budget_and_fold_policy_put_them(
    filled: tuple[ssdlab.Drive, FillResult, dict[str, Any]],
) -> None:
    drive, res, cfg = filled
    slc, tlc, _ = rates(cfg)
    cache = cfg["ftl"]["slc_cache"]
    assert cache["post_cache"] == "direct" and cache["fold_above_fill"] == 1.0
    cap = drive.capacity_bytes
    # the cache is full when written = static + dynamic_fraction * (capacity - written) / 3
    f = cache["dynamic_fraction"]
    cache_end = (cache["static_gb"] * GB + f * cap / 3) / (1 + f / 3) / cap
    fold_start = cache["fold_whole_blocks_above_fill"]
    levels = res.levels()
    got = [(round(lv.fill_start, 3), round(lv.fill_end, 3), round(lv.mbps)) for lv in levels]
    # SLC, then direct TLC, then the whole-block folding regime to the end of the drive
    assert len(levels) >= 3, got
    assert levels[0].first == 0 and levels[0].mbps == pytest.approx(slc, rel=0.02), got
    assert abs(levels[1].fill_start - cache_end) <= 2 * GB / cap, (got, cache_end)
    assert levels[1].mbps == pytest.approx(tlc, rel=0.01), got
    assert abs(levels[2].fill_start - fold_start) <= 2 * GB / cap, (got, fold_start)
    assert levels[-1].fill_end == 1.0, got
    # Past the fold threshold every level is a folding level: the regime's speed wobbles (whole-block folds
    # fall on the dies in varying phase), so it may split into several runs, all far below direct TLC.
    assert all(lv.mbps < 0.5 * tlc for lv in levels[2:]), got
    assert levels[0].mbps > 2 * levels[1].mbps
