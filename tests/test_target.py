"""`ssdlab run --target`: the same suites on a real file through real fio, with the safety checks a tool that
writes to disks must have."""

from __future__ import annotations

import dataclasses
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
from ssdlab import Workload, WorkloadError
from ssdlab.fio.jobfile import load_jobs
from ssdlab.suites import run_cdm
from ssdlab.target import TARGET_MARK, Target, _Latency, fio_args

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
    assert set(reasons) == {"power", "anandtech", "dbmix", "endurance"}


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


#: A workload with every field away from its default (fio's form of each is checked below).
EVERY_FIELD = Workload(
    rw="randrw", bs="8k", bs_write="16k", iodepth=4, numjobs=2, offset="1m", size="64m", io_size="32m",
    runtime="3s", time_based=True, ramp_time="1s", rwmixread=70, rate_iops=500, rate_iops_write=200,
    thinktime="20us", thinktime_blocks=4, buffer_compress_percentage=46, seed=7, interval="250ms",
    bssplit="4k/50:64k/50", bsrange="4k-16k", bssplit_write="128k/100", bsrange_write="8k-32k",
    blockalign="8k", random_distribution="zipf:1.2",
    percentage_random=80, offset_increment="2m", startdelay="1s", rate="4m", rate_write="1m",
    rate_process="poisson", fsync=8,
    sync=True, loops=2, number_ios=1000, randommap=True, verify=True, steadystate="iops:5%",
    steadystate_duration="10s",
    steadystate_ramp_time="2s", steadystate_check_interval="2s", steadystate_group=True, exitall=True,
    exit_what="stonewall", group=3,
)  # fmt: skip


def test_every_workload_field_reaches_fio_and_reads_back_the_same() -> None:
    """What fio_args writes, ssdlab's own fio parser reads back as the same workload: a field added to
    Workload without a fio form fails here (the first assert makes the example set it)."""
    want = EVERY_FIELD.to_native()
    default = Workload().to_native()
    unset = {k for k in default if want.get(k) == default[k]}
    # seq_skip: sequential rw, below; log_ios: a real target refuses it (fio's own write_lat_log logs IOs)
    assert unset == {"seq_skip", "log_ios"}, "set every field in EVERY_FIELD"
    (job,) = load_jobs(fio_args(EVERY_FIELD, "j", "/f", 1 << 30, direct=True, ioengine="libaio")).jobs
    got = job.workload.to_native() | {"numjobs": job.numjobs}
    # interval is the width of the series: the target passes it as log_avg_msec, not as a job option;
    # group is fio's reporting group, which fio works out from the job options itself
    internal = ("interval_ns", "group")
    assert {k: v for k, v in got.items() if k not in internal} == {
        k: v for k, v in want.items() if k not in internal
    }
    # and the same seq_skip through rw=read:N
    w = Workload(rw="write", seq_skip="8k", size="1m")
    (job,) = load_jobs(fio_args(w, "j", "/f", 1 << 30, direct=True, ioengine="libaio")).jobs
    assert job.workload.to_native() == w.to_native() | {
        "interval_ns": job.workload.to_native()["interval_ns"]
    }


def test_real_fio_accepts_every_option_fio_args_writes() -> None:
    # fio 3.33 (Debian 12) has no ss_interval (fio >= 3.35): the check interval stays at fio's 1 s here
    w = dataclasses.replace(EVERY_FIELD, steadystate_check_interval="1s")
    args = fio_args(w, "j", "/dev/null", 1 << 30, direct=False, ioengine="null")
    assert not any(a.startswith("--steadystate_check_interval") for a in args)
    out = subprocess.run(["fio", "--parse-only", *args], capture_output=True, text=True, check=False)
    assert out.returncode == 0, out.stderr


def test_steady_state_stops_a_real_target_and_is_reported(tmp_path: Path) -> None:
    w = Workload(
        rw="randread", size="8m", rate_iops=500, runtime="20s", time_based=True,
        steadystate="iops:10%", steadystate_duration="2s", steadystate_ramp_time="1s",
    )  # fmt: skip
    with Target.open(tmp_path / "t.img", size="16m") as t:
        res = t.run(w)
    ss = res.steadystate
    assert ss is not None and ss["attained"] and ss["ss"].startswith("iops:10")
    assert res.elapsed_s < 10, "fio stopped the job at steady state, well before its 20 s runtime"
    assert len(ss["iops"]) == 2 and all(400 <= v <= 600 for v in ss["iops"]), ss
    assert res.to_dict()["steadystate"] == ss


def test_a_real_targets_result_answers_everything_a_twins_does(tmp_path: Path) -> None:
    """Result reads its native result's members; a target's stand-in lacked ``trim_bytes`` and
    ``steadystate``, so ``Result.to_dict()`` failed on a real target."""
    members = {m for m in dir(ssdlab._core.NativeResult) if not m.startswith("_")}
    with Target.open(tmp_path / "t.img", size="16m") as t:
        res = t.run(Workload(rw="randrw", size="8m", io_size="1m"))
    assert {m for m in members if not hasattr(res._res, m)} == set()
    d = res.to_dict()
    assert d["read"]["ios"] + d["write"]["ios"] == 256 and d["trim_ios"] == 0


def test_an_io_log_is_refused_on_a_real_target_naming_the_field(tmp_path: Path) -> None:
    with Target.open(tmp_path / "t.img", size="16m") as t, pytest.raises(WorkloadError) as e:
        t.run(Workload(rw="randread", size="8m", log_ios=True))
    assert e.value.field == "log_ios" and "write_lat_log" in str(e.value)


def test_a_group_steady_state_runs_alone_on_a_target(tmp_path: Path) -> None:
    w = Workload(rw="randread", size="8m", steadystate_duration="2s", steadystate_group=True)
    with Target.open(tmp_path / "t.img", size="16m") as t, pytest.raises(WorkloadError) as e:
        t.run([w, w])
    assert e.value.field == "steadystate_group"


def test_a_percentile_never_exceeds_the_maximum() -> None:
    # fio reports a percentile as its histogram bucket's value, which can lie past the largest latency seen
    lat = _Latency(10, 5_000.0, 4_000.0, 9_000.0, 1_000.0, [(50.0, 5_000.0), (99.9, 9_216.0)])
    assert lat.percentile_ns(99.9) == 9_000.0 and lat.percentile_ns(99.99) == 9_000.0
    assert lat.percentile_ns(50) == 5_000.0


def test_the_workload_command_runs_on_a_target_with_steady_state(tmp_path: Path) -> None:
    args = ["workload", "--target", "t.img", "--target-size", "16m", "--size", "8m", "--rate-iops", "500"]
    ss = ["--runtime", "20s", "--time-based", "--steadystate", "iops:10%", "--steadystate-duration", "2s"]
    out = cli(*args, *ss, "--json", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["steadystate"]["attained"] and doc["elapsed_s"] < 10
    assert doc["config_toml"].startswith(TARGET_MARK)
    assert "warning" not in out.stderr, "no unmapped-read warning from a counter fio cannot see"
    assert os.listdir(tmp_path) == [], "the file it made is removed"
    # simulated-drive options are refused beside --target, and --target's own without it
    bad = cli(*args, "--preset", "bg4-1tb", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("error: --preset: a real --target"), bad.stderr
    bad = cli("workload", "--keep", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("error: --keep: applies only with --target"), (
        bad.stderr
    )


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
