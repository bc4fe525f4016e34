"""The SNIA PTS IOPS steady-state suite, and ``ssdlab run --suite snia-iops``."""

from __future__ import annotations

import doctest
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ssdlab
from ssdlab import Drive
from ssdlab.precondition import first_steady_round, steady_state
from ssdlab.suites import snia
from ssdlab.suites.snia import run_snia_iops

#: 16 GB on 36 blocks per plane (~26% spare): random writes after WIPC need GC, so IOPS fall from the SLC
#: speed and settle. 1 s rounds take ~30 ms of wall time each.
SMALL = {"ftl.user_capacity_gb": 16, "nand.blocks_per_plane": 36}


@pytest.fixture(scope="module")
def result() -> snia.SniaIopsResult:
    drive = ssdlab.Drive.from_preset("bg4-1tb", set=SMALL)
    return run_snia_iops(drive, round_time="1s")


def test_docstring_examples() -> None:
    res = doctest.testmod(snia, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted > 2 and res.failed == 0


def test_reaches_steady_state_and_the_verdict_matches_steady_state(result: snia.SniaIopsResult) -> None:
    assert result.verdict.steady
    assert result.steady_round is not None and 5 <= result.steady_round <= 25
    assert len(result.rounds) == result.steady_round  # the test stops at the first steady window
    iops = result.iops
    assert result.verdict == steady_state(iops)
    assert result.steady_round == first_steady_round(iops)
    assert result.window_average_iops == pytest.approx(sum(iops[-5:]) / 5)


def test_steady_state_is_after_gc_starts(result: snia.SniaIopsResult) -> None:
    # The first round runs into the SLC cache at full speed; the steady window is well below it, with GC.
    assert result.iops[0] > 2 * result.window_average_iops
    assert result.waf > 1.2 and result.window_waf > 1.2
    assert result.counters["gc_page_moves"] > 0


def test_wipc_wrote_twice_the_capacity(result: snia.SniaIopsResult) -> None:
    cap = ssdlab.Drive.from_preset("bg4-1tb", set=SMALL).capacity_bytes
    assert result.wipc.counters["host_write_bytes"] == 2 * cap
    # The rounds wrote 4 KiB random writes on top, each round its IOPS x its measured time.
    assert result.counters["host_write_bytes"] == pytest.approx(
        sum(r.iops * r.elapsed_s for r in result.rounds) * 4096, rel=1e-9
    )
    assert all(r.elapsed_s >= result.round_time_s for r in result.rounds)


def test_stops_at_max_rounds() -> None:
    drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
    res = run_snia_iops(drive, round_time="20ms", max_rounds=6, wipc=False)
    assert 5 <= len(res.rounds) <= 6
    assert res.verdict.steady == (res.steady_round is not None)
    with pytest.raises(ssdlab.WorkloadError):
        run_snia_iops(drive, round_time="20ms", max_rounds=4)


SSDLAB = Path(sys.executable).parent / "ssdlab"


def test_cli_run_suite_snia_iops(tmp_path: Path) -> None:
    sets = [arg for k, v in SMALL.items() for arg in ("--set", f"{k}={v}")]
    cmd = [str(SSDLAB), "run", *sets, "--suite", "snia-iops", "--duration", "1s", "--json", "--out", "r"]
    env = {**os.environ, "COLUMNS": "200"}
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["suite"] == "snia-iops" and d["steady"] and d["waf"] > 1


def test_no_steady_state_is_claimed_without_garbage_collection() -> None:
    # User capacity cut without the blocks: all the NAND is spare, GC never runs, and the flat IOPS would pass
    # the PTS excursion limits.
    drive = Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 4})
    res = snia.run_snia_iops(drive, round_time="100ms", max_rounds=5)
    assert steady_state(res.iops).steady  # what the excursion test alone says
    assert sum(r.gc_blocks_erased for r in res.rounds) == 0
    assert not res.verdict.steady and res.steady_round is None
    assert res.verdict.reason.startswith("no garbage collection")
    assert "no garbage collection" in str(res.table().title)


def test_a_consistently_scaled_drive_garbage_collects_and_reaches_steady_state() -> None:
    drive = Drive.from_preset("generic-tlc-dram", capacity_gb=4)
    res = snia.run_snia_iops(drive, round_time="200ms")
    assert res.verdict.steady and res.steady_round is not None
    window = res.rounds[-len(res.verdict.window) :]
    assert sum(r.gc_blocks_erased for r in window) > 0
