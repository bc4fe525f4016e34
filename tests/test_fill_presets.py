"""The 128 GB client presets against their published whole-drive fill curves (``reference.fill_curve``).

Each preset is built from hardware facts and family timings, with the SLC program time, the SLC cache size
and the post-cache policy fitted to its curve (marked in the preset). For each, a full-size fill (~3 s, run
once) must (1) match the published segments within 10% (or, where the model cannot, say by how much), and
(2) have the shape the preset's own parameters predict: levels that change where the cache budget or the
fill-dependent fold policy puts them, each at the rate the NAND timings give.

The rates, derived by hand from the config (every die programming its multi-plane unit back to back):
SLC = dies x planes x page / slc_tPROG; direct TLC = 3x that page count / tPROG; writing through SLC while
folding costs each byte an SLC and a TLC program, so interleaved folding runs below 1 / (1/SLC + 1/TLC), and
whole-block folding, where every die waits while one folds, below 1 / (1/SLC + dies/TLC).
"""

from __future__ import annotations

import functools
import itertools
import tomllib
from dataclasses import dataclass
from typing import Any

import pytest

import ssdlab
from ssdlab.reference import fill_curve
from ssdlab.suites.fill import FillLevel, FillResult, SegmentCheck, run_fill

pytestmark = pytest.mark.slow

GB = 10**9


@dataclass(frozen=True)
class Filled:
    cap: int
    cfg: dict[str, Any]
    res: FillResult
    #: SLC MB/s, direct-TLC MB/s, dies
    slc: float
    tlc: float
    dies: int
    #: MB/s of the TLC programs a fold makes: as direct TLC, or with no data-in when folding on chip
    fold_tlc: float

    @property
    def slc_cache(self) -> dict[str, Any]:
        return self.cfg["ftl"]["slc_cache"]

    def gb(self, n: float) -> float:
        """``n`` GB as a fraction of the drive."""
        return n * GB / self.cap

    def cache_full_at(self) -> float:
        """Fill at which the SLC cache is used up: host data written w = static + min(f * (capacity - w) / 3,
        bound), the bound the smaller of a share of capacity and an absolute cap."""
        c = self.slc_cache
        static, k = c["static_gb"] * GB, c["dynamic_fraction"] / 3
        bound = c["dynamic_max_pct"] / 100 * self.cap
        if c["dynamic_max_gb"] > 0:
            bound = min(bound, c["dynamic_max_gb"] * GB)
        if k * (self.cap - static - bound) >= bound:
            return (static + bound) / self.cap
        return (static + k * self.cap) / (1 + k) / self.cap

    def checks(self, name: str) -> list[SegmentCheck]:
        curve = fill_curve(name)
        assert curve is not None
        return self.res.compare(curve)


@functools.cache
def filled(name: str) -> Filled:
    drive = ssdlab.Drive.from_preset(name)
    cfg = tomllib.loads(drive.config_toml())
    n = cfg["nand"]
    assert n["cell"] == "tlc" and n["one_shot_program"] and len(n["tPROG_us"]) == 1
    dies = n["channels"] * n["dies_per_channel"]
    unit = dies * n["planes_per_die"] * n["page_size_kib"] * 1024  # bytes per SLC program on every die
    # a one-shot TLC program loads one page a plane during the last program (the cache latches), the other
    # two after it: that data-in (us, at bus_mts bytes per us) adds to each program's time; a fold on chip
    # has none
    data_in_us = 2 * (unit / dies) / n["bus_mts"]
    fold_data_in_us = 0 if cfg["ftl"]["slc_cache"]["fold_on_chip"] else data_in_us
    return Filled(
        drive.capacity_bytes,
        cfg,
        run_fill(drive),
        unit / n["slc_tPROG_us"],
        3 * unit / (n["tPROG_us"][0] + data_in_us),
        dies,
        3 * unit / (n["tPROG_us"][0] + fold_data_in_us),
    )


def summary(levels: list[FillLevel]) -> list[tuple[float, float, int]]:
    return [(round(lv.fill_start, 3), round(lv.fill_end, 3), round(lv.mbps)) for lv in levels]


# ---------------------------------------------------------------- SN520: SLC, then direct TLC


def test_sn520_matches_every_published_segment() -> None:
    checks = filled("sn520-128gb").checks("sn520-128gb")
    assert len(checks) == 3 and all(c.points > 0 and c.ok for c in checks), [c.to_dict() for c in checks]


def test_sn520_static_cache_then_direct_tlc() -> None:
    f = filled("sn520-128gb")
    c = f.slc_cache
    # No dynamic cache and no fill-dependent fold policy: nothing but the static cache changes the path.
    assert c["dynamic_fraction"] == 0.0 and c["post_cache"] == "direct"
    assert c["fold_above_fill"] == 1.0 and c["fold_whole_blocks_above_fill"] == 1.0
    levels = f.res.levels()
    assert len(levels) == 2, summary(levels)
    cache, direct = levels
    assert cache.fill_start == 0.0 and direct.fill_end == 1.0
    assert abs(cache.fill_end - f.gb(c["static_gb"])) <= f.gb(1)
    assert abs(direct.fill_start - f.gb(c["static_gb"])) <= f.gb(1)
    assert cache.mbps == pytest.approx(f.slc, rel=0.02)
    assert direct.mbps == pytest.approx(f.tlc, rel=0.02)
    # A sequential fill overwrites nothing: the cached data stays in SLC, nothing is folded or moved.
    assert f.res.counters["folded_bytes"] == 0
    assert f.res.waf == pytest.approx(1.0, abs=0.01)


# ---------------------------------------------------------------- CL1: SLC, then writes through SLC, folding


def test_cl1_matches_every_published_segment() -> None:
    checks = filled("cl1-128gb").checks("cl1-128gb")
    assert len(checks) == 2 and all(c.ok for c in checks), [c.to_dict() for c in checks]


def test_cl1_cache_then_interleaved_folding_to_the_end() -> None:
    f = filled("cl1-128gb")
    assert f.slc_cache["fold_above_fill"] == 0.0 and f.slc_cache["fold_whole_blocks_above_fill"] == 1.0
    levels = f.res.levels()
    assert len(levels) == 2, summary(levels)
    cache, fold = levels
    assert cache.first == 0 and cache.mbps == pytest.approx(f.slc, rel=0.02)
    assert abs(cache.fill_end - f.cache_full_at()) <= f.gb(1), (summary(levels), f.cache_full_at())
    assert abs(fold.fill_start - f.cache_full_at()) <= f.gb(1)
    assert fold.fill_end >= 1 - f.gb(2)  # to the end (the short last chunk aside)
    interleaved = 1 / (1 / f.slc + 1 / f.tlc)
    assert 0.75 * interleaved < fold.mbps < interleaved


# ------------------------------------------------------- BG4 128GB: SLC, direct TLC, folding near full


def test_bg4_128gb_matches_the_cache_and_post_cache_segments_and_is_24_percent_slow_past_90_percent() -> None:
    cache, direct, full = filled("bg4-128gb").checks("bg4-128gb")
    for c in (cache, direct):
        assert c.points > 0 and c.ok, c.to_dict()
    # Past 90% full: published ~50 MB/s; the model's whole-block folding reproduces where the level starts,
    # but ~24% slow (every die waits while one folds an SLC block, and the dynamic part shrinks by a third of
    # each GB written, folded too): held within 30%.
    assert full.points > 0 and full.mbps is not None
    assert full.low_mbps * 0.7 <= full.mbps <= full.high_mbps * 1.1, full.to_dict()


def test_bg4_128gb_levels_where_the_config_puts_them() -> None:
    f = filled("bg4-128gb")
    c = f.slc_cache
    assert c["post_cache"] == "direct" and 0 < c["fold_above_fill"] < c["fold_whole_blocks_above_fill"] < 1
    levels = f.res.levels()
    # SLC, direct TLC, writing through SLC with interleaved folding ("slowly degrading", the published
    # note), whole-block folding near full (its first GB folds the cache down to its budget: the +-15% rule
    # may split it).
    fold_from = next(i for i, lv in enumerate(levels) if lv.fill_end > c["fold_above_fill"] + f.gb(1))
    whole_from = next(
        i for i, lv in enumerate(levels) if lv.fill_start >= c["fold_whole_blocks_above_fill"] - f.gb(1)
    )
    assert fold_from == 2 and whole_from - fold_from >= 2, summary(levels)
    assert len(levels) - whole_from in (1, 2), summary(levels)
    cache, direct = levels[:fold_from]
    interleaved, whole = levels[fold_from:whole_from], levels[whole_from:]
    assert cache.fill_start == 0.0 and cache.mbps == pytest.approx(f.slc, rel=0.03)
    assert abs(cache.fill_end - f.cache_full_at()) <= f.gb(1), summary(levels)
    assert abs(direct.fill_start - f.cache_full_at()) <= f.gb(1), summary(levels)
    assert direct.mbps == pytest.approx(f.tlc, rel=0.03)
    assert abs(direct.fill_end - c["fold_above_fill"]) <= f.gb(1), summary(levels)
    # Interleaved: each host byte an SLC and a TLC program, below 1 / (1/SLC + 1/TLC); once the dynamic part
    # shrinks with the fill (below its bound), f/3 more of each byte written is folded as well. The speed
    # only falls.
    top = 1 / (1 / f.slc + 1 / f.fold_tlc)
    low = 1 / (1 / f.slc + (1 + c["dynamic_fraction"] / 3) / f.fold_tlc)
    assert all(0.75 * low <= lv.mbps <= top for lv in interleaved), (summary(levels), low, top)
    assert [lv.mbps for lv in interleaved] == sorted((lv.mbps for lv in interleaved), reverse=True)
    # Whole-block folding from fold_whole_blocks_above_fill to full, every die waiting while one folds: one
    # byte folded per host byte once the dynamic part is gone there (dynamic_until_fill), else 1 + f/3.
    assert abs(whole[0].fill_start - c["fold_whole_blocks_above_fill"]) <= f.gb(2), summary(levels)
    assert whole[-1].fill_end == 1.0
    shrinking = c["dynamic_until_fill"] > c["fold_whole_blocks_above_fill"]
    folded = 1 + (c["dynamic_fraction"] / 3 if shrinking else 0)
    bound = 1 / (1 / f.slc + folded * f.dies / f.fold_tlc)
    assert all(0.75 * bound <= lv.mbps <= bound for lv in whole), (summary(levels), bound)


# ---------------------------------------------------------------- AM610: SLC, direct TLC, whole-block folding


def test_am610_matches_the_cache_segment() -> None:
    checks = filled("am610-128gb").checks("am610-128gb")
    assert len(checks) == 3 and all(c.points > 0 for c in checks)
    assert checks[0].fill_start == 0.0 and checks[0].ok, checks[0].to_dict()


@pytest.mark.xfail(
    strict=True,
    reason="direct TLC at the generation's 2100 us one-shot program is 177 MB/s, not 160 (+10.5%)",
)
def test_am610_matches_every_published_segment() -> None:
    checks = filled("am610-128gb").checks("am610-128gb")
    assert all(c.ok for c in checks), [c.to_dict() for c in checks]


def test_am610_segments_run_at_the_rates_the_nand_timings_give() -> None:
    f = filled("am610-128gb")
    cache, direct, fold = f.checks("am610-128gb")
    # 0-20%: SLC (the segment's last point holds the switch to TLC, hence a little below the SLC rate)
    assert cache.mbps == pytest.approx(f.slc, rel=0.05)
    assert direct.mbps == pytest.approx(f.tlc, rel=0.01)
    # 70-100%: through SLC, folding whole blocks: between every die waiting for each fold and folding fully
    # overlapped with the host's SLC writes.
    assert fold.mbps is not None
    assert 1 / (1 / f.slc + f.dies / f.tlc) < fold.mbps < 1 / (1 / f.slc + 1 / f.tlc)


def test_am610_levels_change_where_the_cache_budget_and_fold_policy_put_them() -> None:
    f = filled("am610-128gb")
    c = f.slc_cache
    assert c["post_cache"] == "direct" and c["fold_above_fill"] == 1.0
    levels = f.res.levels()
    assert len(levels) >= 3, summary(levels)
    assert levels[0].first == 0 and levels[0].mbps == pytest.approx(f.slc, rel=0.02), summary(levels)
    assert abs(levels[1].fill_start - f.cache_full_at()) <= f.gb(2), (summary(levels), f.cache_full_at())
    assert levels[1].mbps == pytest.approx(f.tlc, rel=0.01), summary(levels)
    assert abs(levels[2].fill_start - c["fold_whole_blocks_above_fill"]) <= f.gb(2), summary(levels)
    # Past the fold threshold one level to the end, far below direct TLC.
    assert len(levels) == 3 and levels[2].fill_end == 1.0, summary(levels)
    assert levels[2].mbps < 0.6 * f.tlc, summary(levels)
    assert levels[0].mbps > 2 * levels[1].mbps


def am610_last_level(overrides: dict[str, float]) -> float:
    """MB/s of the AM610's fill with ``overrides`` from 75% full (past every threshold) to its last units."""
    points = run_fill(ssdlab.Drive.from_preset("am610-128gb", set=overrides)).points
    tail = points[int(0.75 * len(points)) : -2]
    return sum(p.chunk_bytes for p in tail) / sum(p.elapsed_s for p in tail) / 1e6


def test_am610_whole_block_level_does_not_hang_on_which_die_the_budget_runs_out_on() -> None:
    """The cache's budget runs out once every so many host units, a period that moves with the cache's
    size, and the die the next host unit goes to moves with it. Whole-block folds take the cache's
    emptiest block wherever it lies, so the level past the fold threshold follows the cache's size
    smoothly. (When the fold went to the die the host wrote next, the AM610's level was 68 / 83 / 92 /
    71 / 62 MB/s at these five sizes: folds bunched on one die or spread over all as the period fell.)"""
    base = filled("am610-128gb").slc_cache["dynamic_fraction"]
    scales = (0.973, 0.987, 0.993, 1.0, 1.013)
    last = [am610_last_level({"ftl.slc_cache.dynamic_fraction": base * x}) for x in scales]
    # the cache's size still moves the level a little (what each host byte costs in folding), smoothly
    assert all(abs(b / a - 1) < 0.02 for a, b in itertools.pairwise(last)), [round(x, 1) for x in last]
    assert max(last) / min(last) < 1.04, [round(x, 1) for x in last]


def test_am610_whole_block_level_rises_with_the_write_buffer_between_the_serial_and_overlapped_bounds() -> (
    None
):
    """While a die folds a whole SLC block the host's units for it wait in the write buffer and those for the
    other dies go on, until the buffer holds nothing else: a larger buffer lets more of each fold overlap the
    host's writes, from every die waiting (the serial bound) toward none waiting (the overlapped one)."""
    f = filled("am610-128gb")
    folded = 1 + f.slc_cache["dynamic_fraction"] / 3  # the cache gives back this much a byte as it shrinks
    serial = 1 / (1 / f.slc + folded * f.dies / f.tlc)
    overlapped = 1 / (1 / f.slc + folded / f.tlc)
    last = [am610_last_level({"controller.write_buffer_kib": mib * 1024}) for mib in (2, 4, 8, 16)]
    assert all(a < b for a, b in itertools.pairwise(last)), [round(x, 1) for x in last]
    assert serial < last[0] and last[-1] < overlapped, ([round(x, 1) for x in last], serial, overlapped)


# ---------------------------------------------------------------- BC501A: four of the five published levels


def test_bc501a_matches_the_cache_and_direct_tlc_segments() -> None:
    checks = filled("bc501a-128gb").checks("bc501a-128gb")
    assert len(checks) == 5 and all(c.points > 0 for c in checks)
    assert checks[0].ok and checks[1].ok and checks[3].ok, [c.to_dict() for c in checks]
    # Not checked: the interleaved level is slow (139 vs 140-200), and the 20 MB/s level past 85% is not an
    # SLC-cache regime (docs/model.md, "Fill levels (BC501A)").


def test_bc501a_steps_down_where_its_fold_policy_changes() -> None:
    """SLC (static cache), direct TLC, SLC with interleaved folding from ``fold_above_fill``, whole-block
    folding from ``fold_whole_blocks_above_fill``: each regime starting within two GB of where the config
    puts it, each at a rate its write path allows."""
    f = filled("bc501a-128gb")
    c = f.slc_cache
    levels = f.res.levels()
    assert len(levels) >= 4, summary(levels)
    speeds = [lv.mbps for lv in levels]
    # distinct: each differs from the one before by more than the 15% a level may vary within
    assert all(abs(b / a - 1) > 0.15 for a, b in itertools.pairwise(speeds))
    starts = [f.gb(c["static_gb"]), c["fold_above_fill"], c["fold_whole_blocks_above_fill"]]
    for lv, start in zip(levels[1:4], starts, strict=True):
        assert abs(lv.fill_start - start) <= f.gb(2), (summary(levels), start)
    cache, direct, interleaved, *whole = speeds
    # 3.5%: the bare program rates less the map's checkpoints (one every 200 entries, ~0.5%)
    assert cache == pytest.approx(f.slc, rel=0.035) and direct == pytest.approx(f.tlc, rel=0.035)
    overlapped = 1 / (1 / f.slc + 1 / f.tlc)
    assert 0.75 * overlapped < interleaved < overlapped
    # Whole-block folding: above every die waiting while one folds (the write buffer lets the host go on
    # writing to the other dies), below folding fully overlapped with the host's SLC writes.
    assert all(1 / (1 / f.slc + f.dies / f.tlc) < lv < overlapped for lv in whole), summary(levels)
