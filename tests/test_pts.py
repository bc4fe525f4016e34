"""The SNIA PTS client suite (``pts``): the spec's definitions, and what a drive does under it."""

from __future__ import annotations

import doctest
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ssdlab
from ssdlab.precondition import steady_state
from ssdlab.suites import pts, snia
from ssdlab.suites.pts import run_pts

KiB = 1024
SSDLAB = Path(sys.executable).parent / "ssdlab"


@pytest.fixture(scope="module")
def iops_result() -> pts.PtsResult:
    # A 4 GB drive scaled with its blocks (the spare share kept, so GC runs): 0.5 s cells reach steady state
    # (round 15). 0.2 s cells did until dies served reads first (read priority, 2026-12-01): the GC work the
    # mixed cells' reads put back now reaches into the next cell, and the write cell swung +-20% round to
    # round on a drive this small to the end of round 25.
    drive = ssdlab.Drive.from_preset("generic-tlc-dram", capacity_gb=4)
    return run_pts(drive, round_time="0.5s", tests=("iops",))


@pytest.fixture(scope="module")
def wsat_result() -> pts.PtsResult:
    drive = ssdlab.Drive.from_preset("generic-tlc-dram", capacity_gb=2)
    return run_pts(drive, round_time="0.5s", tests=("wsat",))


def test_docstring_examples() -> None:
    for module in (pts, snia):
        res = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert res.attempted > 0 and res.failed == 0


# ------------------------------------------------------------------------------- the spec's definitions


def test_the_iops_matrix_is_the_specs() -> None:
    # BENCHMARKS.md: mixes {100/0, 95/5, 65/35, 50/50, 35/65, 5/95, 0/100} x {1024k .. 4k, 512}.
    assert pts.IOPS_MIXES == ((100, 0), (95, 5), (65, 35), (50, 50), (35, 65), (5, 95), (0, 100))
    assert pts.IOPS_BLOCK_SIZES == (
        1024 * KiB,
        128 * KiB,
        64 * KiB,
        32 * KiB,
        16 * KiB,
        8 * KiB,
        4 * KiB,
        512,
    )
    assert all(r + w == 100 for r, w in pts.IOPS_MIXES)
    assert pts.THROUGHPUT_BLOCK_SIZES == (1024 * KiB, 128 * KiB)
    assert pts.LATENCY_MIXES == ((100, 0), (65, 35), (0, 100))
    assert pts.LATENCY_BLOCK_SIZES == (8 * KiB, 4 * KiB, 512)


def test_a_round_runs_every_cell_mix_outer_block_size_inner(iops_result: pts.PtsResult) -> None:
    test = iops_result.iops
    assert test is not None
    for r in test.rounds:
        assert [(c.read_pct, c.bs) for c in r.cells] == [
            (m, bs) for m, _w in pts.IOPS_MIXES for bs in pts.IOPS_BLOCK_SIZES
        ]
        assert all(c.ios > 0 for c in r.cells)
        # the tracking variable is the 4 KiB 100% write cell's IOPS
        (cell,) = [c for c in r.cells if (c.read_pct, c.bs) == (0, 4 * KiB)]
        assert r.tracking == {"4 KiB write IOPS": cell.iops}
    # a 100% read cell writes nothing, a 100% write cell reads nothing
    first = test.rounds[0].cells
    assert all(c.write_mbps == 0 for c in first if c.read_pct == 100)
    assert all(c.read_mbps == 0 for c in first if c.read_pct == 0)


@pytest.mark.parametrize(
    ("series", "steady"),
    [
        # hand-made windows with mean 100: max - min = 20 is exactly 20% (allowed); 21 is not
        ([90, 110, 100, 100, 100], True),
        ([89, 110, 100, 101, 100], False),
        # slope: 90, 95, 100, 105, 110 has slope 5 x 5 = 25 > 10% (the data excursion 20 alone would pass)
        ([90, 95, 100, 105, 110], False),
        # slope 2/round: 2 x 5 = 10 = 10% of 100, allowed
        ([96, 98, 100, 102, 104], True),
        # only the last 5 rounds count
        ([5000, 10, 100, 100, 100, 100, 100], True),
    ],
)
def test_steady_state_criterion_on_hand_made_series(series: list[float], steady: bool) -> None:
    assert steady_state(series).steady is steady


def test_the_loop_stops_at_the_first_steady_window() -> None:
    series = [900, 500, 300, 100, 100, 104, 98, 101, 100, 100]
    ran: list[int] = []

    def one(n: int) -> float:
        ran.append(n)
        return series[n - 1]

    rounds, verdict, at = snia.rounds_until_steady(one, steady_state, 25)
    assert at == 8 and ran == list(range(1, 9)) and verdict.steady
    rounds, verdict, at = snia.rounds_until_steady(lambda n: 1000.0 / n, steady_state, 7)
    assert at is None and len(rounds) == 7 and not verdict.steady


def test_options_are_checked() -> None:
    drive = ssdlab.Drive.from_preset("generic-tlc-dram", capacity_gb=2)
    for kw in ({"tests": ("iops", "fio")}, {"max_rounds": 4}, {"round_time": "0s"}):
        with pytest.raises(ssdlab.WorkloadError):
            run_pts(drive, **kw)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------------------- behaviour


def test_iops_reaches_steady_state_on_a_small_drive_with_gc_in_the_window(iops_result: pts.PtsResult) -> None:
    test = iops_result.iops
    assert test is not None and test.steady and test.steady_round is not None
    assert 5 <= test.steady_round == len(test.rounds) <= 25
    tracking = [r.tracking["4 KiB write IOPS"] for r in test.rounds]
    assert test.verdicts["4 KiB write IOPS"] == steady_state(tracking)
    assert snia.rounds_until_steady(lambda n: tracking[n - 1], steady_state, 25)[2] == test.steady_round
    assert sum(r.gc_blocks_erased for r in test.window_rounds()) > 0
    # The drive was purged and then written 2x its capacity sequentially before round 1.
    assert (
        iops_result.wipc_bytes
        == 2 * ssdlab.Drive.from_preset("generic-tlc-dram", capacity_gb=4).capacity_bytes
    )
    # The window's figure of the tracking cell is the average of its rounds.
    assert test.cell(0, 4 * KiB).iops == pytest.approx(sum(tracking[-5:]) / 5)
    # Reads beat writes at steady state, and small blocks give more IOPS than large ones.
    assert test.cell(100, 4 * KiB).iops > test.cell(0, 4 * KiB).iops
    assert test.cell(100, 4 * KiB).iops > test.cell(100, 128 * KiB).iops > test.cell(100, 1024 * KiB).iops


def test_wsat_iops_fall_from_fob_to_steady_state(wsat_result: pts.PtsResult) -> None:
    w = wsat_result.wsat
    assert w is not None
    cap_gb = wsat_result.capacity_gb
    # It runs until 4x the capacity is written, and not a round longer.
    assert w.rounds[-1].tgbw_gb >= 4 * cap_gb > w.rounds[-2].tgbw_gb
    assert [r.round for r in w.rounds] == list(range(1, len(w.rounds) + 1))
    # Fresh from purge the drive writes fast; once its free blocks are gone GC makes it far slower.
    assert w.fob_iops > 3 * w.final_iops > 0
    assert w.rounds[0].gc_blocks_erased == 0 and w.rounds[-1].gc_blocks_erased > 0
    assert w.rounds[-1].waf > 1.5 * w.rounds[0].waf


def test_header_says_how_the_run_was_scaled(iops_result: pts.PtsResult) -> None:
    h = iops_result.header
    assert "generic-tlc-dram (4 GB user capacity)" in h
    assert "cells of 0.5 s, at most 25 rounds" in h and "T1 Q32" in h
    titles = [str(t.title) for t in iops_result.tables()]
    assert all(h in t for t in titles if not t.startswith("IOPS steady-state rounds"))
    matrix = iops_result.iops_table()
    assert [c.header for c in matrix.columns] == ["block size"] + [f"R/W {r}/{w}" for r, w in pts.IOPS_MIXES]
    assert list(matrix.columns[0].cells) == [
        "1024 KiB",
        "128 KiB",
        "64 KiB",
        "32 KiB",
        "16 KiB",
        "8 KiB",
        "4 KiB",
        "512 B",
    ]
    # 512 B IOs run as what they are: each reads a whole 4 KiB page, so a 100% read IOPS near the 4 KiB one
    cells = {(c.read_pct, c.bs): c for c in iops_result.iops.window_cells()}  # type: ignore[union-attr]
    small, page = cells[(100, 512)], cells[(100, 4 * KiB)]
    assert 0.8 < small.iops / page.iops < 1.25, (small.iops, page.iops)


def test_headline_and_curves(iops_result: pts.PtsResult, wsat_result: pts.PtsResult) -> None:
    doc = json.loads(json.dumps(iops_result.to_dict()))
    names = [h.name for h in pts.headline(doc)]
    assert "IOPS 0/100 4 KiB" in names and "IOPS 100/0 128 KiB" in names
    plots = {c.plot for c in pts.curves(doc)}
    assert plots == {"PTS IOPS steady-state rounds", "PTS IOPS matrix"}
    wdoc = wsat_result.to_dict()
    assert {c.plot for c in pts.curves(wdoc)} == {"PTS WSAT IOPS vs TGBW", "PTS WSAT IOPS vs time"}


def test_cli_run_suite_pts_scaled_down(tmp_path: Path) -> None:
    cmd = [
        str(SSDLAB), "run", "--preset", "generic-tlc-dram", "--scale-capacity-gb", "2", "--suite", "pts",
        "--duration", "0.2s", "--runs", "5", "--json", "--out", "r",
    ]  # fmt: skip
    env = {**os.environ, "COLUMNS": "200"}
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["suite"] == "pts" and d["tests"] == ["iops", "throughput", "latency", "wsat"]
    assert (
        d["round_time_s"] == 0.2 and d["max_rounds"] == 5 and d["capacity_gb"] == pytest.approx(2, rel=0.01)
    )
    assert len(d["throughput"]) == 2 and d["latency"]["window_cells"] and d["wsat"]["rounds"]
    assert len(list((tmp_path / "r").glob("*.series.parquet"))) == 1
