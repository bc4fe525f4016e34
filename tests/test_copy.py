"""The `copy` suite: a large file written, left to settle, then copied on the same drive and timed."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab import Drive, suites
from ssdlab.suites.copy import run_copy

GIB = 1 << 30


def test_a_copy_reads_and_writes_the_file_once_and_reports_its_time() -> None:
    res = run_copy(Drive.from_preset("bg4-128gb", capacity_gb=8), size="1g")
    assert res.counters["host_read_bytes"] == res.counters["host_write_bytes"] == res.size_bytes == GIB
    assert res.copy_mbps == res.size_bytes / 1e6 / res.copy_s
    # reading and writing at once share the drive: the copy is slower than writing the file alone was
    assert res.copy_mbps < res.source_mbps


def test_the_copy_starts_after_the_drive_has_folded_what_the_file_left_in_its_slc_cache() -> None:
    drive = Drive.from_preset("bg4-128gb", capacity_gb=16)
    res = run_copy(drive, size="2g")
    assert res.settle_s >= 1  # the source went to SLC and was folded to TLC before the copy
    # so the copy's writes found the cache free again: they went to SLC
    assert res.counters["slc_bytes_written"] >= 0.9 * res.size_bytes


def test_a_copy_larger_than_the_slc_cache_is_slower() -> None:
    def mbps(size: str) -> float:
        return run_copy(Drive.from_preset("bg4-128gb", capacity_gb=16), size=size).copy_mbps

    small, large = mbps("1g"), mbps("6g")  # the 16 GB drive's cache is ~2 GB
    assert large < 0.8 * small


def test_the_same_copy_gives_the_same_time() -> None:
    a, b = (run_copy(Drive.from_preset("sn520-128gb", capacity_gb=8), size="1g") for _ in range(2))
    assert a.to_dict()["copy_s"] == b.to_dict()["copy_s"]


def _ssdlab_run(*args: str) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("ssdlab")
    cmd = [str(exe), "run", "--preset", "bg4-128gb", "--suite", "copy", *args]
    return subprocess.run(cmd, capture_output=True, text=True, check=False)


def test_copy_is_a_suite_and_refuses_a_file_the_drive_cannot_hold_twice(tmp_path: Path) -> None:
    assert "test_size" in suites.get("copy").options
    ok = _ssdlab_run("--test-size", "1g", "--json", "--out", str(tmp_path))
    assert ok.returncode == 0, ok.stderr
    doc = json.loads(ok.stdout)
    assert doc["suite"] == "copy" and doc["size_bytes"] == GIB and doc["copy_s"] > 0
    bad = _ssdlab_run("--test-size", "100g", "--out", str(tmp_path))
    assert bad.returncode == 2
    assert "--test-size" in bad.stderr and "needs 214.7 GB" in bad.stderr and "Traceback" not in bad.stderr
    # the default, 30 GB, on a drive scaled below twice it: the size is reported as the suite states it
    small = _ssdlab_run("--scale-capacity-gb", "8", "--out", str(tmp_path))
    assert small.returncode == 2
    assert small.stderr.strip().endswith("the drive holds 8.0 GB (got 30.0 GB)"), small.stderr


def test_the_copy_runs_on_a_real_file_through_fio(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from ssdlab import precondition
    from ssdlab.target import Target

    monkeypatch.setattr(precondition, "SETTLE_REAL_S", 1)  # the real wait is 10 s; its length is not tested
    with Target.open(tmp_path / "t.img", size="64m") as t:
        res = run_copy(t, size="16m")  # type: ignore[arg-type]
    assert res.size_bytes == 16 << 20 and res.copy_s > 0 and res.source_mbps > 0 and res.settle_s == 1
    assert res.counters["host_read_bytes"] == res.counters["host_write_bytes"] == 16 << 20
    assert math.isnan(res.counters["slc_bytes_written"])  # inside the drive: not visible from the host
