"""`ssdlab run --target`: the same suites on a real file through real fio, with the safety checks a tool that
writes to disks must have."""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import ssdlab
from ssdlab import WorkloadError
from ssdlab.suites import run_cdm
from ssdlab.target import Target, _Latency, fio_args

SSDLAB = Path(sys.executable).parent / "ssdlab"
SHORT = ["--suite", "cdm", "--test-size", "16m", "--runs", "1", "--duration", "200ms", "--interval", "0s"]


@pytest.fixture(autouse=True)
def _fio_installed() -> None:
    # `make test` installs fio (make sysdeps): a missing fio is a broken setup, not a skip.
    assert shutil.which("fio"), "fio is missing: run `make sysdeps`"


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SSDLAB), *args], capture_output=True, text=True, timeout=300, cwd=cwd)


def test_cdm_on_a_file_has_the_twins_result_shape_and_the_file_is_removed(tmp_path: Path) -> None:
    img = tmp_path / "t.img"
    real = cli(
        "run", "--target", str(img), "--target-size", "64m", *SHORT, "--json", "--out", "r", cwd=tmp_path
    )
    assert real.returncode == 0, real.stderr
    twin = cli("run", "--preset", "bg4-128gb", *SHORT, "--json", "--out", "r", cwd=tmp_path)
    assert twin.returncode == 0, twin.stderr
    a, b = json.loads(real.stdout), json.loads(twin.stdout)
    assert a.keys() == b.keys()
    assert [(r["test"], r["direction"]) for r in a["rows"]] == [
        (r["test"], r["direction"]) for r in b["rows"]
    ]
    assert a["rows"][0].keys() == b["rows"][0].keys()
    assert all(r["mbps"] > 0 for r in a["rows"])
    # fio saw the host side; what is inside a real drive is unknown (null), never a made-up number
    counters = a["rows"][0]["counters"]
    assert (
        counters["host_read_bytes"] > 0 and counters["waf"] is None and counters["gc_blocks_erased"] is None
    )
    assert "fio" in a["config_toml"]
    assert not img.exists()
    # its per-interval series is saved as the twin's is, from fio's logs (power and temperature unknown)
    (series,) = (tmp_path / "r").glob("t.img-cdm-*.series.parquet")
    table = pq.read_table(series)
    assert table.num_rows > 0 and max(table.column("read_mbps").to_pylist()) > 0
    assert all(math.isnan(x) for x in table.column("power_w").to_pylist())


def test_keep_leaves_the_file(tmp_path: Path) -> None:
    img = tmp_path / "kept.img"
    done = cli(
        "run", "--target", str(img), "--target-size", "32m", "--keep", *SHORT, "--out", "r", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert img.stat().st_size == 32 << 20


def test_an_existing_file_is_refused_without_destroy_data(tmp_path: Path) -> None:
    img = tmp_path / "data.img"
    img.write_bytes(b"precious" * 4096)
    refused = cli("run", "--target", str(img), *SHORT, cwd=tmp_path)
    assert refused.returncode == 2
    assert "--destroy-data" in refused.stderr and "Traceback" not in refused.stderr
    assert img.read_bytes() == b"precious" * 4096
    # its size is its own: a --target-size would be ignored (it was used, and the file grew to it)
    sized = cli("run", "--target", str(img), "--target-size", "32m", "--destroy-data", *SHORT, cwd=tmp_path)
    assert sized.returncode == 2 and sized.stderr.startswith(
        "error: --target-size: is the size of a new file"
    )
    tiny = cli("run", "--target", str(img), "--destroy-data", *SHORT, cwd=tmp_path)
    assert tiny.returncode == 2 and "at least 1 MiB" in tiny.stderr, tiny.stderr
    assert img.read_bytes() == b"precious" * 4096
    img.write_bytes(b"precious" * (4 << 20))  # 32 MiB
    done = cli("run", "--target", str(img), "--destroy-data", *SHORT, "--out", "r", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert img.stat().st_size == 32 << 20, "not ours to remove or resize"


def test_a_filesystem_image_is_named_when_refused(tmp_path: Path) -> None:
    img = tmp_path / "fs.img"
    with open(img, "wb") as f:
        f.truncate(16 << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(img)], check=True)
    refused = cli("run", "--target", str(img), *SHORT, cwd=tmp_path)
    assert refused.returncode == 2
    assert "ext4" in refused.stderr


def test_a_target_too_small_for_the_suite_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    img = tmp_path / "small.img"
    refused = cli("run", "--target", str(img), "--target-size", "8m", "--keep", *SHORT, cwd=tmp_path)
    assert refused.returncode == 2
    assert "--test-size" in refused.stderr
    assert img.read_bytes() == bytes(8 << 20)  # created at its size, never written


def test_simulation_options_do_not_mix_with_a_target(tmp_path: Path) -> None:
    both = cli("run", "--target", str(tmp_path / "x.img"), "--preset", "bg4-1tb", cwd=tmp_path)
    assert both.returncode == 2 and "--preset" in both.stderr
    lone = cli("run", "--keep", "--preset", "bg4-1tb", cwd=tmp_path)
    assert lone.returncode == 2 and "--keep" in lone.stderr
    assert not (tmp_path / "x.img").exists()


@pytest.mark.parametrize("suite", ["power", "anandtech", "dbmix"])
def test_a_suite_that_needs_the_simulation_is_refused_on_a_target_before_anything_is_made(
    suite: str, tmp_path: Path
) -> None:
    refused = cli("run", "--suite", suite, "--target", str(tmp_path / "x.img"), cwd=tmp_path)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "--target" in refused.stderr and f"suite {suite}" in refused.stderr
    assert not (tmp_path / "x.img").exists()


def test_the_simulation_only_suites_are_those_that_say_why() -> None:
    reasons = {name: s.simulated_only for name, s in ssdlab.suites.registry().items() if s.simulated_only}
    assert set(reasons) == {"power", "anandtech", "dbmix"}


def test_several_specs_run_as_one_fio_group_with_a_result_per_spec(tmp_path: Path) -> None:
    with Target.open(tmp_path / "t.img", size="64m") as t:
        res = t.run(
            [
                ssdlab.Workload(rw="randread", iodepth=2, size="32m", runtime="300ms", time_based=True),
                ssdlab.Workload(
                    rw="write", bs="128k", offset="32m", size="32m", runtime="300ms", time_based=True
                ),
            ]
        )
    reader, writer = res.jobs
    assert reader.read.ios > 0 and reader.write.ios == 0
    assert writer.write.ios > 0 and writer.read.ios == 0
    assert res.read.ios + res.write.ios == reader.read.ios + writer.write.ios
    assert len(res.series) >= 2 and res.series.read_mbps.max() > 0
    assert res.latency.min_us <= res.latency.percentile(50) <= res.latency.max_us


def test_a_workload_beyond_the_target_is_refused(tmp_path: Path) -> None:
    with Target.open(tmp_path / "t.img", size="16m") as t, pytest.raises(WorkloadError, match="size"):
        t.run(ssdlab.Workload(rw="write", size="32m"))


def test_workload_fields_become_fio_options() -> None:
    w = ssdlab.Workload(
        rw="randrw",
        rwmixread=70,
        bs="8k",
        iodepth=4,
        numjobs=2,
        offset="1m",
        size="2m",
        ramp_time="1s",
        rate_iops=500,
        thinktime=20,
        buffer_compress_percentage=46,
        seed=2**64 - 1,
    )
    args = dict(
        a.lstrip("-").split("=", 1)
        for a in fio_args(w, "j", "/f", 8 << 20, direct=False, ioengine="libaio")
        if "=" in a
    )
    assert args["rw"] == "randrw" and args["rwmixread"] == "70" and args["bs"] == "8192"
    assert (args["iodepth"], args["numjobs"], args["offset"], args["size"]) == (
        "4",
        "2",
        "1048576",
        "2097152",
    )
    assert (args["ramp_time"], args["rate_iops"], args["thinktime"]) == ("1000000us", "500", "20us")
    assert (
        args["buffer_compress_percentage"] == "46" and args["direct"] == "0" and args["ioengine"] == "libaio"
    )
    assert 0 <= int(args["randseed"]) < 2**63  # fio reads a signed 64-bit seed
    # per-direction rates reach fio as fio spells them (trims paced with writes); a byte rate too
    w = ssdlab.Workload(rw="randrw", rate_iops=500, rate_iops_write=100, rate="1m", rate_write=0)
    args = dict(
        a.lstrip("-").split("=", 1)
        for a in fio_args(w, "j", "/f", 8 << 20, direct=True, ioengine="libaio")
        if "=" in a
    )
    assert (args["rate_iops"], args["rate"]) == ("500,100,100", "1048576,,")
    # size 0 = to the end of the target, as for a twin
    whole = fio_args(
        ssdlab.Workload(rw="read", offset="1m"), "j", "/f", 8 << 20, direct=True, ioengine="io_uring"
    )
    assert "--size=7340032" in whole


def test_merged_latency_is_the_mixture_of_the_parts() -> None:
    fast = _Latency(100, 10_000.0, 5_000.0, 20_000.0, 1_000.0, [(50.0, 10_000.0), (99.0, 15_000.0)])
    slow = _Latency(100, 100_000.0, 50_000.0, 200_000.0, 10_000.0, [(50.0, 100_000.0), (99.0, 150_000.0)])
    both = _Latency.merged([fast, slow])
    assert both.count == 200 and both.mean_ns == pytest.approx(55_000.0)
    assert (both.min_ns, both.max_ns) == (5_000.0, 200_000.0)
    # half the IOs are at or below the fast part's maximum
    assert both.percentile_ns(50) == pytest.approx(20_000.0, rel=0.3)
    assert both.percentile_ns(25) == pytest.approx(fast.percentile_ns(50), rel=0.05)
    assert both.cdf(both.percentile_ns(90)) == pytest.approx(0.9, abs=0.01)


def test_the_python_api_runs_a_suite_on_a_target(tmp_path: Path) -> None:
    with Target.open(tmp_path / "t.img", size="32m") as t:
        res = run_cdm(t, version="8", test_size="16m", runs=1, duration="100ms", warmup="0s", interval="0s")  # type: ignore[arg-type]
    assert res.preset == "t.img" and all(r.mbps > 0 for r in res.rows)
    assert os.listdir(tmp_path) == []


def test_a_fill_of_a_target_smaller_than_one_point_is_refused(tmp_path: Path) -> None:
    """A fill logs a point per GB: on 64 MiB it printed one "0 GB" point and a WAF of nan."""
    img = tmp_path / "small.img"
    out = cli("run", "--target", str(img), "--target-size", "64m", "--suite", "fill", cwd=tmp_path)
    assert out.returncode == 2
    assert out.stderr.startswith("error: --target-size: the fill logs a point every 1 GB"), out.stderr
    assert not img.exists(), "the file it made is removed"
