from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest

import ssdlab
from ssdlab import ConfigError, Drive, Workload, WorkloadError
from ssdlab.drive import parse_overrides

SMALL = {"ftl.user_capacity_gb": 16}  # as in conftest: fast to build

RANDREAD = Workload(rw="randread", bs="4k", iodepth=32, size="256m", runtime="50ms", interval="5ms")
RANDWRITE = Workload(rw="randwrite", bs="4k", iodepth=8, size="256m", runtime="50ms", interval="5ms")


def test_presets_are_listed_and_load() -> None:
    assert {"bg4-1tb", "generic-tlc-dram"} <= set(ssdlab.list_presets())
    for name in ssdlab.list_presets():
        drive = Drive.from_preset(name, set=SMALL)
        assert drive.name == name
        assert drive.capacity_bytes == 16 * 10**9
        assert drive.now_s == 0


def test_default_capacity_is_the_presets() -> None:
    assert Drive.from_preset("bg4-1tb").capacity_bytes == 1024 * 10**9


def test_unknown_preset_names_it_and_lists_the_available_ones() -> None:
    with pytest.raises(ConfigError) as info:
        Drive.from_preset("bg5-1tb")
    assert "bg5-1tb" in str(info.value)
    problem = info.value.errors()[0]
    assert problem.path == "preset"
    assert "bg4-1tb" in problem.message and "generic-tlc-dram" in problem.message


def test_set_overrides_reach_the_config_in_both_forms() -> None:
    a = Drive.from_preset("bg4-1tb", set={"nand.tR_us": 61.5, "ftl.user_capacity_gb": 16})
    b = Drive.from_preset("bg4-1tb", set=["nand.tR_us=61.5", "ftl.user_capacity_gb=16"])
    assert "tR_us = [61.5]" in a.config_toml()
    assert a.config_toml() == b.config_toml()


def test_set_bool_is_spelled_for_toml() -> None:
    assert parse_overrides({"nand.one_shot_program": False}) == [("nand.one_shot_program", "false")]


def test_bad_set_lists_every_problem_with_its_path() -> None:
    with pytest.raises(ConfigError) as info:
        Drive.from_preset("bg4-1tb", set=["nand.no_such_key=1"])
    assert info.value.errors()[0].path == "nand.no_such_key"
    with pytest.raises(ConfigError) as info:
        Drive.from_preset("bg4-1tb", set=["nand.tR_us=-1", "nand.channels=0"])
    paths = {p.path for p in info.value.errors()}
    assert {"nand.tR_us", "nand.channels"} <= paths


def test_set_without_equals_is_a_config_error() -> None:
    with pytest.raises(ConfigError) as info:
        Drive.from_preset("bg4-1tb", set=["nand.tR_us"])
    assert info.value.errors()[0].path == "--set"


def test_config_toml_round_trips(tmp_path: Path, small_bg4: Drive) -> None:
    path = tmp_path / "drive.toml"
    path.write_text(small_bg4.config_toml())
    again = Drive.from_toml(path)
    assert again.config_toml() == small_bg4.config_toml()
    assert again.name == "bg4-1tb"
    assert Drive.from_toml_str(small_bg4.config_toml()).capacity_bytes == small_bg4.capacity_bytes


def test_broken_toml_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        Drive.from_toml_str("name = [unclosed")


def _same(a: ssdlab.Result, b: ssdlab.Result) -> None:
    assert a.to_dict() == b.to_dict()
    for name in ("time_s", "read_mbps", "write_mbps", "iops", "mean_latency_us", "max_latency_us"):
        assert np.array_equal(getattr(a.series, name), getattr(b.series, name))


def test_same_seed_gives_identical_results_bit_for_bit() -> None:
    runs = []
    for _ in range(2):
        drive = Drive.from_preset("bg4-1tb", set=SMALL)
        drive.run(Workload(rw="write", bs="1m", iodepth=4, size="256m"))
        runs.append((drive.run(RANDWRITE), drive.run(RANDREAD)))
    for a, b in zip(runs[0], runs[1], strict=True):
        _same(a, b)
        assert a.latency.count > 0


def test_different_seed_gives_different_series(small_bg4: Drive) -> None:
    small_bg4.run(Workload(rw="write", bs="1m", iodepth=4, size="256m"))
    # Reads: where a random read lands decides which die it waits for. (Random writes into an empty
    # page-mapped FTL all go to the same write points whatever their address, so the seed does not show.)
    a = small_bg4.clone().run(RANDREAD)
    b = small_bg4.clone().run(dataclasses.replace(RANDREAD, seed=2))
    assert not np.array_equal(a.series.mean_latency_us, b.series.mean_latency_us)
    mixed = dataclasses.replace(RANDREAD, rw="randrw")
    c, d = small_bg4.clone().run(mixed), small_bg4.clone().run(dataclasses.replace(mixed, seed=2))
    assert not np.array_equal(c.series.read_mbps, d.series.read_mbps)


def test_clone_runs_from_the_same_state(small_bg4: Drive) -> None:
    small_bg4.run(Workload(rw="write", bs="1m", iodepth=4, size="256m"))
    snapshot = small_bg4.clone()
    assert snapshot.now_s == small_bg4.now_s
    assert snapshot.counters() == small_bg4.counters()
    _same(small_bg4.run(RANDWRITE), snapshot.run(RANDWRITE))
    # and they are independent afterwards
    small_bg4.idle("1s")
    assert small_bg4.now_s == pytest.approx(snapshot.now_s + 1)


def test_idle_advances_simulated_time(small_bg4: Drive) -> None:
    small_bg4.idle("250ms")
    assert small_bg4.now_s == 0.25
    small_bg4.idle(2)
    assert small_bg4.now_s == 2.25


def test_trim_deallocates(small_bg4: Drive) -> None:
    small_bg4.run(Workload(rw="write", bs="1m", size="64m"))
    small_bg4.trim(0, "64m")
    assert small_bg4.counters()["trimmed_pages"] == (64 << 20) // 4096
    with pytest.raises(WorkloadError):
        small_bg4.trim(0, "1t")


def test_workload_that_does_not_fit_names_the_field(small_bg4: Drive) -> None:
    with pytest.raises(WorkloadError) as info:
        small_bg4.run(Workload(size="32g"))
    assert info.value.field == "size"


def test_progress_is_reported(small_bg4: Drive) -> None:
    seen: list[float] = []
    small_bg4.run(Workload(rw="write", bs="4k", iodepth=32, size="1g"), progress=seen.append)
    assert seen and seen[-1] == 1.0
    assert all(0.0 <= f <= 1.0 for f in seen)


def test_sanitize_empties_the_map_and_keeps_wear_and_time() -> None:
    drive = Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
    drive.run(Workload(rw="write", bs="1m", iodepth=8, size="1g"))
    before, t0 = drive.counters(), drive.now_s
    drive.sanitize()
    after = drive.counters()
    assert after["mapped_bytes"] == 0.0
    assert after["nand_blocks_erased"] > before["nand_blocks_erased"]
    assert after["pe_cycles_mean"] > before["pe_cycles_mean"]
    assert after["host_write_bytes"] == before["host_write_bytes"]  # counters carry on
    assert drive.now_s > t0 + 0.01  # the erases take their time (10 ms each per die)
    # reads now touch no flash
    res = drive.run(Workload(rw="randread", size="1g", io_size="4m"))
    assert res.counters["nand_pages_read"] == 0 and res.counters["unmapped_reads"] == 1024
