"""``ssdlab compare``: presets, TOML drives and saved results of one suite, side by side on the suite's
headline figures, with the difference in % against the first input."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import ssdlab
from ssdlab import suites
from ssdlab.compare import compare, load_inputs
from ssdlab.suites import SuiteOptions, run_cdm, run_fill
from test_cli import ssdlab_cli

#: A CDM run short enough for a test: the machinery, not the figures.
QUICK = ["--test-size", "16m", "--runs", "1", "--duration", "10ms", "--interval", "10ms"]
SMALL = ["--set", "ftl.user_capacity_gb=16"]


def _cdm(preset: str) -> dict[str, Any]:
    drive = ssdlab.Drive.from_preset(preset, set={"ftl.user_capacity_gb": 16})
    res = run_cdm(drive, test_size="16m", runs=1, duration="10ms", warmup="10ms", interval="10ms")
    return res.to_dict()


def _fill(preset: str) -> dict[str, Any]:
    return run_fill(ssdlab.Drive.from_preset(preset, set={"ftl.user_capacity_gb": 8})).to_dict()


def _save(tmp_path: Path, name: str, doc: dict[str, Any]) -> Path:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_difference_is_percent_of_the_first_input_and_missing_values_stay_missing() -> None:
    base = {"suite": "snia-iops", "window_average_iops": 50_000.0, "waf": 2.0, "steady_round": 5}
    faster = {**base, "window_average_iops": 60_000.0, "waf": 2.5}
    unobserved = {**base, "waf": None}  # a real target cannot see its WAF: saved as null
    c = compare([("a", base), ("b", faster), ("c", unobserved)])
    rows = {r.name: r for r in c.rows}
    assert rows["steady-state IOPS"].diff_pct() == [None, 20.0, 0.0]
    assert rows["WAF"].values == [2.0, 2.5, None]
    assert rows["WAF"].diff_pct() == [None, 25.0, None]
    assert rows["WAF"].lower_is_better and not rows["steady-state IOPS"].lower_is_better
    doc = c.to_dict()
    assert [i["label"] for i in doc["inputs"]] == ["a", "b", "c"]
    assert doc["figures"][0] == {
        "name": "steady-state IOPS",
        "unit": "IOPS",
        "lower_is_better": False,
        "values": [50_000.0, 60_000.0, 50_000.0],
        "diff_pct": [None, 20.0, 0.0],
    }


def test_a_figure_only_one_input_has_is_a_row_with_the_others_missing() -> None:
    one = _fill("generic-tlc-dram")
    two = {**one, "levels": [*one["levels"], {"mbps": 10.0}]}
    c = compare([("one", one), ("two", two)])
    extra = f"level {len(two['levels'])}"
    row = next(r for r in c.rows if r.name == extra)
    assert row.values == [None, 10.0] and row.diff_pct() == [None, None]


def test_every_suite_with_headline_figures_names_them_once() -> None:
    for doc in (_cdm("generic-tlc-dram"), _fill("generic-tlc-dram")):
        names = [h.name for h in suites.headline(doc)]
        assert len(names) == len(set(names)) > 0
    cdm = suites.headline(_cdm("generic-tlc-dram"))
    assert {h.unit for h in cdm} == {"MB/s", "IOPS", "us"}
    assert all(h.lower_is_better == (h.unit == "us") for h in cdm)


def test_results_of_another_suite_are_refused_naming_the_file(tmp_path: Path) -> None:
    cdm = _save(tmp_path, "cdm", _cdm("generic-tlc-dram"))
    fill = _save(tmp_path, "fill", _fill("generic-tlc-dram"))
    with pytest.raises(ssdlab.WorkloadError) as e:
        load_inputs([str(cdm), str(fill)])
    assert e.value.field == str(fill)
    with pytest.raises(ssdlab.WorkloadError) as e:
        load_inputs([str(cdm)], suite="fill")
    assert e.value.field == str(cdm)
    assert "cdm8 result" in str(e.value)


def test_a_saved_comparison_is_not_taken_for_a_result(tmp_path: Path) -> None:
    """``ssdlab compare --json`` output names a suite too; given back as an input it is refused by name (it
    ended in a KeyError traceback)."""
    cdm = _save(tmp_path, "cdm", _cdm("generic-tlc-dram"))
    comparison = compare([("a", json.loads(cdm.read_text())), ("b", json.loads(cdm.read_text()))])
    saved = _save(tmp_path, "comparison", comparison.to_dict())
    with pytest.raises(ssdlab.WorkloadError) as e:
        load_inputs([str(cdm), str(saved)])
    assert e.value.field == str(saved) and "not a cdm8 result as ssdlab run saves it (no 'rows')" in str(
        e.value
    )


def test_a_saved_result_whose_options_are_not_suite_options_is_refused_naming_it(tmp_path: Path) -> None:
    saved = _save(tmp_path, "saved", {**_cdm("generic-tlc-dram"), "options": {"test_size": "16m", "qd": 4}})
    with pytest.raises(ssdlab.WorkloadError) as e:
        load_inputs([str(saved), "generic-tlc-dram"])
    assert e.value.field == str(saved) and "not suite options" in str(e.value)
    saved.write_text(json.dumps({**_cdm("generic-tlc-dram"), "options": {"runs": 1, "test_size": "16m"}}))
    loaded = load_inputs([str(saved), "generic-tlc-dram"], set=["ftl.user_capacity_gb=16"])
    assert (loaded.options.runs, loaded.options.test_size, loaded.options_from) == (1, "16m", str(saved))


def test_run_options_with_saved_results_only_are_refused(tmp_path: Path) -> None:
    """Nothing runs, so an option for a run would be silently ignored."""
    a, b = _save(tmp_path, "a", _cdm("generic-tlc-dram")), _save(tmp_path, "b", _cdm("generic-tlc-dram"))
    load_inputs([str(a), str(b)], options=SuiteOptions(seed=7))  # the seed: every run takes one
    for kw, option in (
        ({"options": SuiteOptions(test_size="1g")}, "--test-size"),
        ({"set": ["nand.tR_us=5"]}, "--set"),
        ({"capacity_gb": 8.0}, "--scale-capacity-gb"),
    ):
        with pytest.raises(ssdlab.WorkloadError) as e:
            load_inputs([str(a), str(b)], **kw)  # type: ignore[arg-type]
        assert e.value.field == option and "every input is a saved result" in str(e.value)


def test_inputs_run_under_other_conditions_are_flagged(tmp_path: Path) -> None:
    a = _cdm("generic-tlc-dram")
    b = {**a, "test_size": 4 * a["test_size"], "seed": 9}
    c = compare([("a", a), ("b", b)])
    assert c.mismatches() == ["seed: 1 vs 9", f"test_size: {a['test_size']} vs {4 * a['test_size']}"]
    inputs = c.to_dict()["inputs"]
    assert [i["test_size"] for i in inputs] == [a["test_size"], b["test_size"]]  # type: ignore[index]
    assert compare([("a", a), ("a again", a)]).mismatches() == []
    run = ssdlab_cli(
        "compare", str(_save(tmp_path, "a", a)), str(_save(tmp_path, "b", b)), "--out", str(tmp_path)
    )
    assert run.returncode == 0, run.stderr
    assert "note: the inputs ran under different conditions (seed: 1 vs 9; test_size:" in run.stdout
    (html,) = tmp_path.glob("compare-*.html")  # the report says so too, under the table
    assert '<p class="note">note: the inputs ran under different conditions (seed: 1 vs 9' in html.read_text()


def test_a_fresh_run_and_a_saved_result_go_the_same_way(tmp_path: Path) -> None:
    saved = _save(tmp_path, "saved", _fill("generic-tlc-dram"))
    loaded = load_inputs(
        [str(saved), "generic-tlc-dram"], options=SuiteOptions(), set=["ftl.user_capacity_gb=8"]
    )
    suite, ins = loaded.suite, loaded.inputs
    assert suite == "fill"  # taken from the saved result
    assert [i.kind for i in ins] == ["result", "preset"]
    c = compare([(i.label, i.doc) for i in ins])
    # the same drive, the same suite: a fresh run gives the saved figures again
    assert all(r.values[0] == r.values[1] for r in c.rows)


def test_a_drive_beside_a_saved_run_runs_as_that_run_ran_unless_told_otherwise(tmp_path: Path) -> None:
    # a real drive measured one way (here a preset stands in: the options are what matter), then its twin
    ran = ssdlab_cli("run", "--suite", "cdm", *SMALL, *QUICK, "--out", str(tmp_path), "--json")
    assert ran.returncode == 0, ran.stderr
    assert json.loads(ran.stdout)["options"] == {
        "test_size": "16m",
        "runs": 1,
        "duration": "10ms",
        "interval": "10ms",
    }
    (saved,) = tmp_path.glob("bg4-1tb-cdm-*.json")
    run = ssdlab_cli("compare", str(saved), "sn520-128gb", *SMALL, "--out", str(tmp_path / "out"), "--json")
    assert run.returncode == 0, run.stderr
    given = "--duration 10ms --interval 10ms --runs 1 --test-size 16m"
    assert f"note: the drives run as {saved} ran: {given}" in run.stderr
    assert json.loads(run.stdout)["mismatched_conditions"] == []  # CDM's defaults: 1 GiB, 5 x 5 s
    # options given win, and then the inputs' differences are flagged as before
    two_runs = [*QUICK[:2], "--runs", "2", *QUICK[4:]]
    own = ssdlab_cli("compare", str(saved), "sn520-128gb", *SMALL, *two_runs, "--out", str(tmp_path / "o2"))
    assert own.returncode == 0 and "the drives run as" not in own.stdout + own.stderr
    assert "note: the inputs ran under different conditions (runs: 1 vs 2)" in own.stdout


def test_cli_compares_presets_and_a_saved_file_with_plots_and_json(tmp_path: Path) -> None:
    saved = _save(tmp_path, "saved", _cdm("generic-tlc-dram"))
    out = tmp_path / "out"
    args = ["compare", str(saved), "bg4-1tb", "--suite", "cdm", *SMALL, *QUICK, "--out", str(out), "--json"]
    run = ssdlab_cli(*args)
    assert run.returncode == 0, run.stderr
    doc = json.loads(run.stdout)
    assert doc["suite"] == "cdm8"
    assert [(i["label"], i["kind"]) for i in doc["inputs"]] == [
        ("generic-tlc-dram", "result"),
        ("bg4-1tb", "preset"),
    ]
    mbps = next(f for f in doc["figures"] if f["name"] == "RND4K Q1T1 read MB/s")
    first, second = mbps["values"]
    assert mbps["diff_pct"] == [None, pytest.approx(100 * (second - first) / first)]
    pngs = [Path(p) for p in doc["plots"]]
    assert {p.name.rsplit("-", 1)[-1] for p in pngs} >= {"s.png", "iops.png", "us.png"}  # MB/s, IOPS, us
    assert all(p.read_bytes().startswith(b"\x89PNG") for p in pngs)
    assert len(list(out.glob("compare-cdm8-*.json"))) == 1
    fresh = list(out.glob("bg4-1tb-cdm8-*.json"))  # the fresh run, saved to compare again later
    assert len(fresh) == 1 and json.loads(fresh[0].read_text())["suite"] == "cdm8"


def test_cli_table_prints_each_figure_and_the_difference(tmp_path: Path) -> None:
    a = _save(tmp_path, "a", _fill("generic-tlc-dram"))
    b = _save(tmp_path, "b", _fill("bg4-1tb"))
    run = ssdlab_cli("compare", str(a), str(b), "--out", str(tmp_path / "out"))
    assert run.returncode == 0, run.stderr
    for figure in ("average", "last 16 GB", "SLC cache", "WAF", "level 1", "bg4-1tb vs 1st"):
        assert figure in run.stdout
    assert "%" in run.stdout
    assert list((tmp_path / "out").glob("compare-fill-*-curve-fill.png"))  # the curves overlaid


def test_cli_many_inputs_print_as_several_tables_each_against_the_first(tmp_path: Path) -> None:
    doc = _cdm("generic-tlc-dram")
    saved = [str(_save(tmp_path, f"drive-{i}", {**doc, "preset": f"drive-{i}"})) for i in range(9)]
    run = ssdlab_cli("compare", *saved, "--out", str(tmp_path / "out"))  # 200 columns
    assert run.returncode == 0, run.stderr
    titles = [line.strip() for line in run.stdout.splitlines() if line.strip().startswith("cdm8: ")]
    assert len(titles) > 1, run.stdout  # nine drives do not fit 200 columns in one table
    assert all(t.startswith("cdm8: drive-0 vs ") for t in titles)  # the baseline in every part
    for i in range(1, 9):
        assert sum(f"drive-{i}" in t for t in titles) == 1  # every other drive once
        assert f"drive-{i} vs 1st" in run.stdout
    assert "\u2026" not in run.stdout  # no figure cut short to an ellipsis
    assert max(len(line) for line in run.stdout.splitlines()) <= 200


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["no-such-drive"], "no-such-drive"),
        (["bg4-1tb"], "--suite"),
        (["bg4-1tb", "--suite", "nope"], "suite"),
    ],
)
def test_cli_bad_input_exits_2_naming_it(tmp_path: Path, args: list[str], field: str) -> None:
    run = ssdlab_cli("compare", *args, "--out", str(tmp_path))
    assert run.returncode == 2
    assert run.stderr.startswith(f"error: {field}:"), run.stderr


def test_cli_mixed_suites_exit_2(tmp_path: Path) -> None:
    cdm = _save(tmp_path, "cdm", _cdm("generic-tlc-dram"))
    fill = _save(tmp_path, "fill", _fill("generic-tlc-dram"))
    run = ssdlab_cli("compare", str(fill), str(cdm), "--out", str(tmp_path))
    assert run.returncode == 2
    assert run.stderr.startswith(f"error: {cdm}: a cdm8 result; the others are fill"), run.stderr
