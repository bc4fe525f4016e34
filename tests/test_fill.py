"""The AnandTech-style whole-drive fill suite, and ``ssdlab run --suite fill``."""

from __future__ import annotations

import doctest
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ssdlab
from ssdlab.suites import fill
from ssdlab.suites.fill import (
    FillPoint,
    compare_fill_curve,
    detect_levels,
    run_fill,
)

#: A 16 GB bg4-1tb on 36 blocks per plane (~21.7 GB of NAND): an SLC cache of ~2.9 GB from empty, a
#: direct-to-TLC level after it, and folding under pressure near the end. The fill takes ~0.2 s.
SMALL = {"ftl.user_capacity_gb": 16, "nand.blocks_per_plane": 36}
GB = 10**9


@pytest.fixture(scope="module")
def filled() -> tuple[ssdlab.Drive, fill.FillResult]:
    drive = ssdlab.Drive.from_preset("bg4-1tb", set=SMALL)
    ssdlab.precondition.random_fragment(drive, bytes="256m")  # run_fill must erase this first
    return drive, run_fill(drive)


def test_docstring_examples() -> None:
    result = doctest.testmod(fill, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 5 and result.failed == 0


def test_fill_points_are_1gb_of_host_data_each(filled: tuple[ssdlab.Drive, fill.FillResult]) -> None:
    drive, res = filled
    assert len(res.points) == 16
    assert sum(p.chunk_bytes for p in res.points) == drive.capacity_bytes == res.points[-1].host_bytes
    for p in res.points[:-1]:
        assert abs(p.chunk_bytes - GB) <= 128 << 10
    # Erased first (the fragmented data is gone): the fill wrote exactly the capacity and the drive is full.
    assert res.counters["host_write_bytes"] == drive.capacity_bytes == drive.counters()["mapped_bytes"]
    assert res.points[-1].fill_end == 1.0


def test_average_is_total_bytes_over_total_time(filled: tuple[ssdlab.Drive, fill.FillResult]) -> None:
    drive, res = filled
    # The fill's time is its points' time, and the drive's clock ends with the fill.
    assert res.total_s == pytest.approx(sum(p.elapsed_s for p in res.points), rel=1e-12)
    assert res.average_mbps == pytest.approx(drive.capacity_bytes / 1e6 / res.total_s, rel=1e-12)
    assert 0 < res.total_s < drive.now_s
    for p in res.points:
        assert p.mbps == pytest.approx(p.chunk_bytes / 1e6 / p.elapsed_s)
    # 16 points: the last 16 GB are the whole drive.
    assert res.last16_mbps == pytest.approx(res.average_mbps, rel=1e-12)


def test_slc_speed_first_then_slower(filled: tuple[ssdlab.Drive, fill.FillResult]) -> None:
    _, res = filled
    levels = res.levels()
    assert len(levels) >= 2
    assert levels[0].first == 0 and levels[0].points >= 2
    assert all(lv.mbps < 0.7 * levels[0].mbps for lv in levels[1:])
    assert res.points[0].slc_cache_size_bytes > 2 * GB


def test_speed_drops_where_the_slc_cache_stops_absorbing_writes(
    filled: tuple[ssdlab.Drive, fill.FillResult],
) -> None:
    _, res = filled
    mbps = res.mbps
    drop = next(i for i, v in enumerate(mbps) if v < 0.85 * mbps[0])
    slc = [0.0] + [p.slc_bytes_written for p in res.points]
    stop = next(i for i, p in enumerate(res.points) if slc[i + 1] - slc[i] < 0.5 * p.chunk_bytes)
    assert abs(drop - stop) <= 1
    exhausted = res.cache_exhausted_at()
    assert exhausted is not None and abs(drop - exhausted) <= 1
    # Up to the point in which the cache ran out, every byte went to SLC.
    assert slc[exhausted] == pytest.approx(sum(p.chunk_bytes for p in res.points[:exhausted]), rel=0.01)


def test_detect_levels_and_compare_by_hand() -> None:
    assert detect_levels([1600, 1640, 1620, 700, 200, 210, 205, 190, 50, 48]) == [
        (0, 2, 1620.0),
        (4, 7, 201.25),
        (8, 9, 49.0),
    ]
    assert detect_levels([100, 100, 100]) == [(0, 2, 100.0)]
    assert detect_levels([100, 300, 100], min_points=1) == [(0, 0, 100.0), (1, 1, 300.0), (2, 2, 100.0)]
    # Four 1 GB points: 2 at 1000 MB/s (1 s each), 2 at 250 MB/s (4 s each).
    pts = [
        FillPoint(i, (i + 1) * GB, GB, t, i / 4, (i + 1) / 4, 0, 0, 0, 0, 0)
        for i, t in enumerate([1.0, 1.0, 4.0, 4.0])
    ]
    checks = compare_fill_curve(pts, [[0.0, 0.5, 950, 1000], [0.5, 1.0, 300, 320], [0.5, 1.0, 100, 100]])
    assert [c.mbps for c in checks] == [1000.0, 250.0, 250.0]
    assert [c.points for c in checks] == [2, 2, 2]
    # 250 is within 10% below 300 (270)? no; 250 is above 100 x 1.1? yes -> both fail.
    assert [c.ok for c in checks] == [True, False, False]
    assert compare_fill_curve(pts, [[0.0, 0.5, 950, 1000]], tolerance=0.0)[0].ok
    assert not compare_fill_curve(pts, [[0.9, 0.95, 1, 1e9]])[0].ok  # no point in the segment


def test_fill_result_json_and_tables(filled: tuple[ssdlab.Drive, fill.FillResult]) -> None:
    _, res = filled
    d = json.loads(json.dumps(res.to_dict()))
    assert d["suite"] == "fill" and len(d["points"]) == 16 and d["average_mbps"] == res.average_mbps
    assert {"slc_cache_used_bytes", "slc_cache_size_bytes", "folded_bytes"} <= set(d["points"][0])
    assert len(res.tables()) == 2


def test_plot_writes_a_png(filled: tuple[ssdlab.Drive, fill.FillResult], tmp_path: Path) -> None:
    import matplotlib  # noqa: F401  (a dependency: the plot must be made)

    _, res = filled
    out = res.plot(tmp_path / "fill.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


SSDLAB = Path(sys.executable).parent / "ssdlab"


def test_cli_run_suite_fill(tmp_path: Path) -> None:
    sets = [arg for k, v in SMALL.items() for arg in ("--set", f"{k}={v}")]
    env = {**os.environ, "COLUMNS": "200"}
    cmd = [str(SSDLAB), "run", "--preset", "bg4-1tb", *sets, "--suite", "fill", "--out", "res"]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    assert "Whole-drive fill" in out.stdout and "Levels" in out.stdout
    (written,) = (tmp_path / "res").glob("bg4-1tb-fill-*.json")
    doc = json.loads(written.read_text())
    assert doc["suite"] == "fill" and len(doc["points"]) == 16
    out = subprocess.run([*cmd, "--json"], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["average_mbps"] == pytest.approx(doc["average_mbps"])
