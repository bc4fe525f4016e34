"""The Starblaze database mix: suspension cuts the worst read from erase-bound to suspend-bound."""

from __future__ import annotations

import tomllib

import pytest

import ssdlab
from ssdlab import reference
from ssdlab.suites.dbmix import DB_CASES, run_dbmix

#: enterprise-tlc's dies and timings, 64 blocks per plane: small enough to reach GC in seconds.
SMALL_ENTERPRISE = {"nand.blocks_per_plane": 64, "ftl.user_capacity_gb": 36}


@pytest.fixture(scope="module")
def res() -> ssdlab.suites.dbmix.DbmixResult:
    drive = ssdlab.Drive.from_preset("enterprise-tlc", set=SMALL_ENTERPRISE)
    return run_dbmix(drive, runtime="8s", cases=["2r1w_1thread", "5r4w_2thread"], random_fraction=0.5)


def _nand(res: ssdlab.suites.dbmix.DbmixResult) -> dict[str, object]:
    return tomllib.loads(res.config_toml)["nand"]


def test_rates_follow_the_published_iops(res: ssdlab.suites.dbmix.DbmixResult) -> None:
    case = next(c for c in DB_CASES if c.name == "2r1w_1thread")
    row = res.row("2r1w_1thread", False)
    # each direction at its own published rate, as fio's rate_iops=READ,WRITE
    assert row.read_iops == pytest.approx(case.read_iops, rel=0.01)
    assert row.write_iops == pytest.approx(case.write_iops, rel=0.01)


def test_suspension_bounds_the_worst_read(res: ssdlab.suites.dbmix.DbmixResult) -> None:
    n = _nand(res)
    s = n["suspension"]
    # Each operation's time is drawn between typical and maximum: the bounds take the maxima, the floor the
    # typical program.
    t_r = max(n["tR_max_us"] or n["tR_us"])
    tprog = n["tPROG_us"][0]
    tbers = max(n["tBERS_max_ms"], n["tBERS_ms"]) * 1000
    bound = s["tSUSP_erase_us"] + 4 * t_r + 100  # erase-suspend latency + a few reads + fixed overheads
    for case in ("2r1w_1thread", "5r4w_2thread"):
        off, on = res.row(case, False), res.row(case, True)
        assert on.counters["nand_erase_suspensions"] > 0, "reads must land on running erases"
        # Off: some read waited for most of a program or an erase; never for more than one erase.
        assert tprog < off.read_max_us <= tbers + bound
        # On: the worst read is bounded by the suspend latency, a small fraction of the off case.
        assert on.read_max_us <= bound
        assert on.read_max_us * 3 < off.read_max_us
        assert on.read_avg_us < off.read_avg_us
        assert on.counters["nand_program_suspensions"] > 0
        assert off.counters["nand_program_suspensions"] == 0


def test_table_and_json(res: ssdlab.suites.dbmix.DbmixResult) -> None:
    doc = res.to_dict()
    assert doc["suite"] == "dbmix" and len(doc["rows"]) == 4
    assert res.table().row_count == 4


def test_cases_run_at_the_published_rates() -> None:
    pub = reference.db_test()
    for case in DB_CASES:
        read, write = pub[(case.name, "read")], pub[(case.name, "write")]
        assert (case.read_iops, case.write_iops) == (read["IOPS"], write["IOPS"]), case.name


def test_unknown_case_is_a_workload_error() -> None:
    drive = ssdlab.Drive.from_preset("enterprise-tlc", set=SMALL_ENTERPRISE)
    with pytest.raises(ssdlab.WorkloadError, match="cases"):
        run_dbmix(drive, cases=["3r1w"])


@pytest.mark.slow
def test_full_size_worst_reads_match_published() -> None:
    """The full 960 GB drive, one case for 60 s, the suite's default (~1 min): the worst read without
    suspension waits for an erase (published ~10 ms; erase times are drawn between 5 and 10 ms, so the worst
    needs a run long enough for reads to meet a long one), with it for an erase suspension (~2 ms, the fitted
    ``tSUSP_erase_us``)."""
    pub = reference.db_test()
    res = run_dbmix(ssdlab.Drive.from_preset("enterprise-tlc"), runtime="60s", cases=["2r1w_1thread"])
    p = pub[("2r1w_1thread", "read")]
    off, on = res.row("2r1w_1thread", False), res.row("2r1w_1thread", True)
    assert off.read_max_us == pytest.approx(p["max_lat_us_no_suspend"], rel=0.10)
    assert on.read_max_us == pytest.approx(p["max_lat_us_suspend"], rel=0.10)
    assert on.read_avg_us < off.read_avg_us


def test_a_drive_with_plane_reads_keeps_them_with_suspension() -> None:
    # bg4-128gb reads planes independently; suspension composes with that (plane reads of a die sense
    # beside each other, a read that suspends a program takes the die), so both halves keep them, and in
    # the second reads suspend programs
    drive = ssdlab.Drive.from_preset("bg4-128gb", capacity_gb=8)
    assert tomllib.loads(drive.config_toml())["nand"]["independent_plane_read"] is True
    res = run_dbmix(drive, runtime="0.5s", cases=["2r1w_1thread"])
    off, on = res.row("2r1w_1thread", False), res.row("2r1w_1thread", True)
    assert off.read_iops > 0 and on.read_iops > 0
    assert off.counters["nand_program_suspensions"] == 0 < on.counters["nand_program_suspensions"]
