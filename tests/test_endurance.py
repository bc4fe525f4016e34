"""The `endurance` suite: a full fill, JESD219A's enterprise workload in rounds until write amplification is
steady, and the TBW the wear rate gives at the drive's rated P/E cycles."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab import Drive, SimulationError, Workload, WorkloadError, validate
from ssdlab.suites.endurance import ROUND_COUNTERS, run_endurance

SSDLAB = Path(sys.executable).parent / "ssdlab"


def small(capacity_gb: float = 4.0, **over: object) -> Drive:
    return Drive.from_preset("bg4-128gb", capacity_gb=capacity_gb, set=over or None)


def test_the_tbw_is_the_rated_cycles_over_the_steady_wear_rate() -> None:
    res = run_endurance(small(), max_rounds=6)
    host = sum(r.counters["host_write_bytes"] for r in res.rounds[-2:])
    wear = sum(r.counters["pe_cycles_mean"] for r in res.rounds[-2:])
    assert res.tbw_tb == pytest.approx(3000 * host / wear / 1e12)
    assert res.drive_writes == pytest.approx(res.tbw_tb * 1e12 / res.capacity_bytes)
    speed = (res.rounds[-2].mbps + res.rounds[-1].mbps) / 2
    assert res.days_at_speed == pytest.approx(res.tbw_tb * 1e6 / speed / 86400)
    # every round wrote a quarter of the drive, after a fill of the whole of it
    assert all(r.host_bytes == pytest.approx(res.capacity_bytes / 4, rel=1e-3) for r in res.rounds)


def test_the_run_stops_once_two_rounds_agree_on_write_amplification() -> None:
    res = run_endurance(small(), max_rounds=16)
    assert res.steady and 3 <= len(res.rounds) < 16
    a, b = res.rounds[-2].waf, res.rounds[-1].waf
    assert abs(a - b) <= 0.02 * b
    # the first round after a sequential fill amplifies less: GC has not yet met its steady mix of victims
    assert res.rounds[0].waf < res.waf


def test_the_parts_of_the_write_amplification_add_up_to_it() -> None:
    res = run_endurance(small(), max_rounds=6)
    parts = res.waf_parts()
    assert sum(parts.values()) == pytest.approx(res.waf)
    assert parts["part-filled pages"] > -1e-3 * res.waf  # a rest, not a correction
    assert parts["host pages"] >= 1.0  # every host byte is programmed once at least (small writes pad)
    assert parts["GC moves"] > 0.5  # a full drive under random writes collects garbage


def test_a_drive_in_service_has_the_cycles_its_blocks_have_left() -> None:
    new = run_endurance(small(), max_rounds=4)
    assert new.tbw_left_tb == pytest.approx(new.tbw_tb * (3000 - new.pe_cycles_end) / 3000)
    used = run_endurance(small(**{"ftl.initial_pe_cycles": 1500}), max_rounds=4)
    assert used.pe_cycles_end == pytest.approx(new.pe_cycles_end + 1500, abs=1)
    assert used.tbw_left_tb < 0.55 * used.tbw_tb


def test_a_drive_that_wears_out_during_the_run_says_so() -> None:
    with pytest.raises(
        SimulationError, match=r"gave out in round \d+ .* retired at ftl\.pe_cycle_limit = 3,000"
    ):
        run_endurance(small(**{"ftl.initial_pe_cycles": 2990}))


def test_twice_the_rated_cycles_is_twice_the_tbw() -> None:
    one = run_endurance(small(), max_rounds=4)
    two = run_endurance(small(**{"ftl.pe_cycle_limit": 6000}), max_rounds=4)
    assert two.tbw_tb == pytest.approx(2 * one.tbw_tb)
    assert two.rounds == one.rounds  # the limit is a rating: it changes nothing the drive does here


def test_more_over_provisioning_gives_less_amplification_and_more_drive_writes() -> None:
    tight = run_endurance(small(8.0), max_rounds=6)
    # the same NAND with a tenth less of it exposed to the host
    roomy = run_endurance(small(8.0, **{"ftl.user_capacity_gb": 7.2}), max_rounds=6)
    assert roomy.waf < 0.85 * tight.waf
    assert roomy.drive_writes > 1.15 * tight.drive_writes


def test_the_same_seed_gives_the_same_result() -> None:
    a, b = (run_endurance(small(), max_rounds=3, seed=7).to_dict() for _ in range(2))
    assert a == b
    assert set(a["rounds"][0]) == {*ROUND_COUNTERS, "mbps", "waf"}  # type: ignore[index]


def test_a_drive_without_rated_cycles_or_a_workload_that_only_reads_is_refused() -> None:
    with pytest.raises(WorkloadError, match=r"ftl\.pe_cycle_limit"):
        run_endurance(small(**{"ftl.pe_cycle_limit": 0}))
    with pytest.raises(WorkloadError, match="rw: an endurance workload must write"):
        run_endurance(small(), workload=Workload(rw="randread"))
    with pytest.raises(WorkloadError, match="max_rounds"):
        run_endurance(small(), max_rounds=1)


def test_the_spec_sheet_tbw_is_measured_as_a_hold_out() -> None:
    (row,) = validate.rows(["sn520-128gb"], figures=["spec.endurance_TBW"], quick=True)
    assert row.unit == "TB" and row.model is not None and row.model > 0 and row.fit is False
    assert "JESD219A enterprise workload" in row.method


def test_cli_runs_the_suite_and_writes_its_result(tmp_path: Path) -> None:
    out = subprocess.run(
        [str(SSDLAB), "run", "--suite", "endurance", "-p", "bg4-128gb", "--scale-capacity-gb", "2"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert out.returncode == 0, out.stderr
    assert "TBW" in out.stdout and "of which GC moves" in out.stdout
    (saved,) = (tmp_path / "results").glob("*endurance*.json")
    doc = json.loads(saved.read_text())
    assert doc["suite"] == "endurance" and doc["tbw_tb"] > 0


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(SSDLAB), *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "200"},
    )


def test_a_job_file_s_one_job_is_the_workload_and_a_skewed_one_amplifies_less(tmp_path: Path) -> None:
    (tmp_path / "hot.fio").write_text(
        "[hot]\nrw=randwrite\nbs=4k\niodepth=16\nrandom_distribution=zipf:1.2\n"
    )
    args = ("run", "--suite", "endurance", "-p", "bg4-128gb", "--scale-capacity-gb", "4", "--json")
    hot = cli(*args, "--job", "hot.fio", cwd=tmp_path)
    assert hot.returncode == 0, hot.stderr
    doc = json.loads(hot.stdout)
    assert doc["workload"] == "job hot (randwrite)"
    jedec = run_endurance(small(4.0))
    assert doc["waf"] < 0.8 * jedec.waf  # most writes hit a few hot blocks, which GC finds nearly empty


@pytest.mark.parametrize(
    ("job", "named"),
    [
        (
            "[a]\nrw=randwrite\n[b]\nrw=randwrite\n",
            "error: --job: needs a job file with one job (it has 2: a, b)",
        ),
        ("[r]\nrw=randread\n", "error: rw: an endurance workload must write (got randread)"),
    ],
)
def test_a_job_file_that_is_not_one_writing_job_exits_2_naming_it(
    tmp_path: Path, job: str, named: str
) -> None:
    (tmp_path / "j.fio").write_text(job)
    out = cli(
        "run",
        "--suite",
        "endurance",
        "-p",
        "bg4-128gb",
        "--scale-capacity-gb",
        "4",
        "--job",
        "j.fio",
        cwd=tmp_path,
    )
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert out.stderr.startswith(named), out.stderr


def test_another_suite_refuses_a_job_file(tmp_path: Path) -> None:
    out = cli("run", "--suite", "cdm", "--job", "x.fio", cwd=tmp_path)
    assert out.returncode == 2 and "--job: suite cdm does not take this option" in out.stderr
