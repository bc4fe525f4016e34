from __future__ import annotations

import dataclasses
import json

import pytest
from rich.console import Console

import ssdlab
from ssdlab import Drive, WorkloadError
from ssdlab.suites import CDM_VERSIONS, run_cdm

FAST = {"test_size": "64m", "runs": 2, "duration": "50ms", "warmup": "20ms", "interval": "100ms"}


@pytest.fixture(scope="module")
def cdm8() -> ssdlab.suites.CdmResult:
    drive = Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16})
    return run_cdm(drive, version="8", seed=3, **FAST)  # type: ignore[arg-type]


def test_rows_in_cdm_order_reads_before_writes(cdm8: ssdlab.suites.CdmResult) -> None:
    names = ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"]
    assert [r.label for r in cdm8.rows] == [f"{n} read" for n in names] + [f"{n} write" for n in names]


def test_best_of_runs_and_lowest_latency(cdm8: ssdlab.suites.CdmResult) -> None:
    for row in cdm8.rows:
        assert len(row.runs_mbps) == 2 and len(row.runs_mean_latency_us) == 2
        assert row.mbps == max(row.runs_mbps) > 0
        assert row.latency_us == min(row.runs_mean_latency_us) > 0


def test_iops_is_mbps_over_block_size(cdm8: ssdlab.suites.CdmResult) -> None:
    for row in cdm8.rows:
        assert row.iops == pytest.approx(row.mbps * 1e6 / row.test.bs)
    assert cdm8.row("RND4K Q32T1", "read").test.bs == 4096
    assert cdm8.row("SEQ1M Q8T1", "read").test.bs == 1 << 20


def test_figures_are_sane(cdm8: ssdlab.suites.CdmResult) -> None:
    # Queue depth helps; PCIe 3.0 x4 caps sequential reads near 3.5 GB/s of payload.
    assert cdm8.row("RND4K Q32T1", "read").mbps > 2 * cdm8.row("RND4K Q1T1", "read").mbps
    assert cdm8.row("SEQ1M Q8T1", "read").mbps < 3940
    assert cdm8.row("RND4K Q1T1", "read").latency_us < cdm8.row("RND4K Q32T1", "read").latency_us


def test_test_file_is_written_first_and_counters_per_test(cdm8: ssdlab.suites.CdmResult) -> None:
    assert cdm8.prepare_counters["host_write_bytes"] == 64 << 20
    # slightly under 1: the last few pages may still sit in the write buffer when the run ends
    assert cdm8.prepare_counters["waf"] == pytest.approx(1.0, abs=0.01)
    for row in cdm8.rows:
        if row.direction == "read":
            assert row.counters["host_write_bytes"] == 0 and row.counters["host_read_bytes"] > 0
        else:
            assert row.counters["host_write_bytes"] > 0 and row.counters["waf"] > 0.99
        assert 0 <= row.counters["die_utilisation_mean"] <= 1


def test_to_dict_and_tables(cdm8: ssdlab.suites.CdmResult) -> None:
    d = json.loads(json.dumps(cdm8.to_dict()))
    assert (d["suite"], d["preset"], d["seed"]) == ("cdm8", "bg4-1tb", 3)
    assert d["ssdlab_version"] == ssdlab.__version__
    assert 'name = "bg4-1tb"' in d["config_toml"]
    assert len(d["rows"]) == 8 and d["rows"][0]["iodepth"] == 8
    assert cdm8.table().row_count == 4
    internals = cdm8.counters_table()
    assert internals.row_count == 9
    # a read test wrote nothing: its WAF is a ratio of nothing, shown as "-", not 0.00
    waf = list(internals.columns[1].cells)
    labels = list(internals.columns[0].cells)
    assert {w for lab, w in zip(labels, waf, strict=True) if lab.endswith("read")} == {"-"}
    assert all(float(w) > 0.99 for lab, w in zip(labels, waf, strict=True) if lab.endswith("write"))


def test_same_seed_same_grid_and_seed_matters() -> None:
    def grid(seed: int) -> list[float]:
        drive = Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
        res = run_cdm(drive, version="8", seed=seed, **FAST)  # type: ignore[arg-type]
        return [x for r in res.rows for x in (*r.runs_mbps, *r.runs_mean_latency_us)]

    assert grid(1) == grid(1)
    assert grid(1) != grid(2)


def test_each_of_the_five_runs_draws_its_own_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    """ "Best of 5" is the best of five different runs: every run has its own seed (from the root seed and
    its place), so a random test's five figures differ, and the suite stays a function of its seed."""
    seeds: list[int] = []
    real_run = Drive.run

    def run(self: Drive, w: ssdlab.Workload, progress: object = None) -> ssdlab.Result:
        seeds.append(w.seed)
        return real_run(self, w, progress)  # type: ignore[arg-type]

    monkeypatch.setattr(Drive, "run", run)

    def suite(seed: int) -> ssdlab.suites.CdmResult:
        drive = Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16})
        opts = {**FAST, "runs": 5}
        return run_cdm(drive, version="8", seed=seed, **opts)  # type: ignore[arg-type]

    first = suite(7)
    assert len(seeds) == len(set(seeds)) == 1 + len(first.rows) * 6  # test file, then warm-up + 5 per row
    rnd = first.row("RND4K Q32T1", "read")
    assert len(set(rnd.runs_mbps)) > 1, rnd.runs_mbps
    assert suite(7).to_dict()["rows"] == first.to_dict()["rows"]
    assert suite(8).row("RND4K Q32T1", "read").runs_mbps != rnd.runs_mbps


def test_progress_goes_from_0_to_1() -> None:
    seen: list[tuple[float, str]] = []
    drive = Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
    run_cdm(drive, version="6", progress=lambda f, what: seen.append((f, what)), **FAST)  # type: ignore[arg-type]
    fractions = [f for f, _ in seen]
    assert fractions[0] == 0.0 and fractions[-1] == 1.0
    assert fractions == sorted(fractions)
    assert any("4KiB Q8T8 read" in what for _, what in seen)


@pytest.mark.parametrize("version", list(CDM_VERSIONS))
def test_every_version_defines_four_rows_and_a_profile_two(version: str) -> None:
    profile = version.endswith(("-peak", "-realworld"))  # Peak / Real World: one seq and one 4K row
    assert len(CDM_VERSIONS[version]) == (2 if profile else 4)


def test_cdm6_threads_become_jobs_and_default_size_is_1000_mib() -> None:
    q8t8 = CDM_VERSIONS["6"][1]
    assert (q8t8.name, q8t8.queues, q8t8.threads, q8t8.random) == ("4KiB Q8T8", 8, 8, True)
    drive = Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
    res = run_cdm(drive, version="6", runs=1, duration="20ms", warmup="10ms", interval=0)
    assert res.test_size == 1000 << 20


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"version": "5"}, "suite"),
        ({"runs": 0}, "runs"),
        ({"test_size": "1.5m"}, "test_size"),
        ({"test_size": "4q"}, "test_size"),
        ({"test_size": "32g"}, "test_size"),
        ({"duration": 0}, "duration"),
    ],
)
def test_bad_options_name_the_field(kwargs: dict[str, object], field: str) -> None:
    drive = Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
    with pytest.raises(WorkloadError) as info:
        run_cdm(drive, **kwargs)  # type: ignore[arg-type]
    assert info.value.field == field


@pytest.mark.slow
def test_defaults_on_the_full_bg4() -> None:
    # `ssdlab run --suite cdm`: CrystalDiskMark 8 defaults on the whole 1 TB drive.
    drive = Drive.from_preset("bg4-1tb")
    res = run_cdm(drive)
    assert (res.version, res.test_size, res.runs, res.duration_s, res.interval_s) == (
        "8",
        1 << 30,
        5,
        5.0,
        5.0,
    )
    assert all(len(r.runs_mbps) == 5 and r.mbps > 0 for r in res.rows)
    # 1 test file + 8 tests x (warm-up 5 s + 5 x 5 s) + 7 intervals of 5 s, all simulated
    assert drive.now_s > 8 * 30 + 7 * 5
    assert res.row("SEQ1M Q8T1", "read").mbps > res.row("SEQ1M Q1T1", "read").mbps


def test_counters_a_real_target_cannot_observe_print_as_dashes(cdm8: ssdlab.suites.CdmResult) -> None:
    def seen_by_fio(counters: dict[str, float]) -> dict[str, float]:  # what a real target reports: the host's
        return {k: v if k.startswith("host_") else float("nan") for k, v in counters.items()}

    blind = dataclasses.replace(
        cdm8, rows=[dataclasses.replace(r, counters=seen_by_fio(r.counters)) for r in cdm8.rows]
    )
    console = Console(width=200, record=True)
    console.print(blind.counters_table())
    text = console.export_text()
    assert "nan" not in text and " - " in text
    # and a run that observed none of them (a real target) leaves the table out
    assert [t.title for t in cdm8.tables()][-1].startswith("Drive internals")
    assert not any(str(t.title).startswith("Drive internals") for t in blind.tables())
