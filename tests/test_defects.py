"""Input found by fuzzing that crashed, hung or ate memory: each is now exit 2 or a documented exception.

The CLI cases run as a user would (a subprocess) with a time limit, so a hang or an abort fails the test
instead of the test run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab import ConfigError, Drive, Workload, WorkloadError

SSDLAB = Path(sys.executable).parent / "ssdlab"
SMALL = ["--set", "ftl.user_capacity_gb=16"]


def cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([str(SSDLAB), *args], capture_output=True, text=True, timeout=timeout, env=env)


@pytest.mark.parametrize(
    ("args", "field"),
    [
        # the per-interval series used to grow to the last completion time: an abort, or 8 GB for 1 h
        (["--set", "host.submit_ns=9223372036854775807"], "host.submit_ns"),
        (["--thinktime", "1h"], "thinktime"),
        (["--thinktime", "1000d"], "thinktime"),
        # a division by zero in the compression engine's transfer time
        (["--set", "controller.compression.engine_mbps=1e-9"], "controller.compression.engine_mbps"),
        # 268 M outstanding IOs: 84 s and 6.3 GB, past --runtime
        (["--iodepth", "65536", "--numjobs", "4096", "--runtime", "10ms"], "iodepth"),
    ],
)
def test_cli_input_that_crashed_is_exit_2_naming_the_field(args: list[str], field: str) -> None:
    out = cli("workload", *SMALL, *args)
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith(f"error: {field}: "), out.stderr
    assert "panick" not in out.stderr and "Traceback" not in out.stderr


def test_outstanding_ios_error_names_both_fields_and_the_limit() -> None:
    out = cli("workload", *SMALL, "--iodepth", "65536", "--numjobs", "4096")
    assert "iodepth x numjobs" in out.stderr and "65536" in out.stderr and "4096" in out.stderr


def test_long_thinktime_with_a_runtime_runs_in_bounded_memory() -> None:
    # One IO an hour for 30 simulated days: 720 IOs; the series widens its interval instead of holding
    # 26 million 100 ms intervals.
    out = cli("workload", *SMALL, "--thinktime", "1h", "--runtime", "30d", "--json", timeout=120)
    assert out.returncode == 0, out.stderr
    res = json.loads(out.stdout)
    series = res["series"]
    assert 0 < len(series["time_s"]) <= 100_000
    assert series["time_s"][-1] >= 29 * 86_400


def test_offset_plus_size_past_2_to_the_64_is_a_workload_error(small_bg4: Drive) -> None:
    with pytest.raises(WorkloadError) as info:
        small_bg4.run(Workload(offset="4k", size=2**64 - 4096))
    assert info.value.field == "size"


def test_sizes_and_times_past_64_bits_are_workload_errors_not_overflow(small_bg4: Drive) -> None:
    with pytest.raises(WorkloadError) as info:
        small_bg4.run(Workload(size=2**64))
    assert info.value.field == "size"
    with pytest.raises(WorkloadError) as info:
        small_bg4.idle("1000000d")
    assert info.value.field == "idle"
    small_bg4.idle("100d")
    with pytest.raises(WorkloadError) as info:
        small_bg4.idle(f"{2**64 - 1}ns")  # fits 64 bits, but not after the 100 days already passed
    assert info.value.field == "idle" and "clock" in str(info.value)


def test_trim_past_the_end_reports_the_range_as_given(small_bg4: Drive) -> None:
    with pytest.raises(WorkloadError) as info:
        small_bg4.trim(0, 2**64 - 1)
    assert info.value.field == "length"
    assert info.value.value == str(2**64 - 1)
    assert f"= {2**64 - 1}" in str(info.value)  # the true sum, not a wrapped one


def test_tiny_compression_engine_rate_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        Drive.from_preset("v300s-120gb", set={"controller.compression.engine_mbps": 1e-9})
    assert [p.path for p in info.value.errors()] == ["controller.compression.engine_mbps"]
