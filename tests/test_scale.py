"""Scaling a drive down consistently, `workload --prefill`, the unmapped-read warning, and `make sysdeps`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from ssdlab import ConfigError, Drive
from ssdlab.drive import scale_capacity
from ssdlab.presets import read_preset

SSDLAB = Path(sys.executable).parent / "ssdlab"
ROOT = Path(__file__).resolve().parents[1]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([str(SSDLAB), *args], capture_output=True, text=True, timeout=120, env=env)


def _usable_over_user(cfg: dict) -> float:
    """NAND over user capacity, less GC's fixed reserve (gc_threshold_free_blocks + 3 blocks a plane)."""
    n, f = cfg["nand"], cfg["ftl"]
    planes = n["channels"] * n["dies_per_channel"] * n["planes_per_die"]
    blocks = n["blocks_per_plane"] - f["gc_threshold_free_blocks"] - 3
    return planes * blocks * n["pages_per_block"] * n["page_size_kib"] * 1024 / 1e9 / f["user_capacity_gb"]


SCALINGS = [("bg4-1tb", 128), ("enterprise-tlc", 36), ("generic-tlc-dram", 16)]


@pytest.mark.parametrize(("preset", "gb"), SCALINGS)
def test_scaling_keeps_the_dies_and_the_over_provisioning(preset: str, gb: float) -> None:
    full = tomllib.loads(Drive.from_preset(preset).config_toml())
    small = tomllib.loads(Drive.from_preset(preset, capacity_gb=gb).config_toml())
    assert small["ftl"]["user_capacity_gb"] == gb
    for key in ("channels", "dies_per_channel", "planes_per_die", "pages_per_block", "page_size_kib"):
        assert small["nand"][key] == full["nand"][key]
    assert small["nand"]["blocks_per_plane"] < full["nand"]["blocks_per_plane"]
    # the spare share stays (a little more: blocks are whole)
    assert _usable_over_user(full) <= _usable_over_user(small) <= _usable_over_user(full) * 1.05


def test_an_explicit_set_still_wins_over_the_scaling() -> None:
    d = Drive.from_preset("bg4-1tb", set={"nand.blocks_per_plane": 300}, capacity_gb=128)
    assert "blocks_per_plane = 300" in d.config_toml()


@pytest.mark.parametrize("bad", [0, -1, 5000])
def test_bad_capacity_is_a_config_error(bad: float) -> None:
    with pytest.raises(ConfigError) as info:
        scale_capacity(read_preset("bg4-1tb"), bad)
    assert info.value.field == "capacity_gb"
    out = cli("show", "bg4-1tb", "--scale-capacity-gb", str(bad))
    assert out.returncode == 2 and out.stderr.startswith("error: --scale-capacity-gb: "), out.stderr


def test_a_drive_scaled_below_one_fill_point_is_refused_naming_the_size_typed() -> None:
    out = cli("run", "--suite", "fill", "--preset", "bg4-128gb", "--scale-capacity-gb", "0.5")
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("error: --scale-capacity-gb: the fill logs a point every 1 GB"), out.stderr
    assert out.stderr.rstrip().endswith("(got 0.5)"), out.stderr


def _run(*args: str) -> tuple[dict, str]:
    out = cli("workload", "--preset", "bg4-1tb", "--scale-capacity-gb", "16", "--json", *args)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout), out.stderr


def test_randread_on_a_fresh_drive_warns_that_it_measures_nothing() -> None:
    res, err = _run("--rw", "randread", "--size", "256m", "--runtime", "50ms")
    assert res["counters"]["unmapped_reads"] > 0
    assert err.startswith("warning: 100% of the reads found no data") and "--prefill" in err


def test_the_share_counts_the_pages_the_reads_touch_so_unaligned_reads_stop_at_100_percent() -> None:
    # 3 KiB reads at 3 KiB offsets: one in three spans two 4 KiB pages, so bytes / 4 KiB undercounts the
    # pages found empty (the warning said 126%)
    res, err = _run("--rw", "randread", "--bs", "3k", "--size", "256m", "--runtime", "50ms")
    c = res["counters"]
    assert c["unmapped_reads"] == c["host_read_pages"] > c["host_read_bytes"] / 4096
    assert err.startswith("warning: 100% of the reads found no data")


def test_prefill_writes_the_region_first_so_reads_cost_nand_reads() -> None:
    runs = {}
    for slc_tr in (30, 60):
        slc = f"nand.slc_tR_us={slc_tr}"
        res, err = _run("--rw", "randread", "--size", "256m", "--runtime", "50ms", "--prefill", "--set", slc)
        assert res["counters"]["unmapped_reads"] == 0 and "warning" not in err
        runs[slc_tr] = res["iops"]
    # the reads now reach the NAND: a slower read shows in the result
    assert runs[60] < runs[30] * 0.8


def test_make_sysdeps_says_what_it_installs_and_the_readme_says_make_test_does() -> None:
    makefile = (ROOT / "Makefile").read_text()
    sysdeps = makefile[makefile.index("\nsysdeps:") :].split("\n\n")[0]
    # it names what it installs before installing it: the packages missing of SYSDEPS
    assert "SYSDEPS := chromium fio" in makefile
    assert 'echo "make sysdeps: installing the Debian packages $$missing' in sysdeps
    readme = (ROOT / "README.md").read_text()
    first_block = readme.split("```")[1]
    assert "make test" in first_block and "chromium" in first_block and "apt-get" in first_block
