"""``ssdlab calibrate``: a fit finds a known optimum, resumes an interrupted study, writes what it fitted with
its provenance, and refuses bad input by name.

The synthetic calibration: a bg4-128gb scaled to 32 GB makes a target fill curve with ``slc_tPROG_us =
250``; the same drive, started from the preset's 180 us, is fitted back to it on a 2-worker LocalCluster.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import json
import math
import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import optuna
import pytest

import ssdlab
from ssdlab import Drive, reference, validate
from ssdlab import calibrate as cal
from ssdlab._dask import client as dask_client
from ssdlab._dask import is_sync_cancel_bug
from ssdlab.counters import Counters
from ssdlab.presets import preset_path
from ssdlab.suites.fill import FillPoint, FillResult, run_fill

SSDLAB = Path(sys.executable).parent / "ssdlab"
GB = 10**9
TARGET_TPROG = 250.0


def ssdlab_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([str(SSDLAB), *args], capture_output=True, text=True, timeout=300, cwd=cwd, env=env)


def curve_result(speeds: list[float]) -> FillResult:
    """A fill of len(speeds) GB, one point per GB at these speeds (MB/s)."""
    n = len(speeds)
    points = [
        FillPoint(i, (i + 1) * GB, GB, GB / (s * 1e6), i / n, (i + 1) / n, 0, 0, 0, 0, 0)
        for i, s in enumerate(speeds)
    ]
    return FillResult("x", n * GB, 131072, 32, GB, points, Counters({}), "")


def test_a_fill_curve_is_compared_by_the_speed_and_start_of_each_level() -> None:
    # published: SLC at 800 MB/s to 20% full, then 200 MB/s; the model's SLC runs at 880 to 30% full
    published = [[0.0, 0.2, 800.0, 800.0], [0.2, 1.0, 200.0, 200.0]]
    err = cal.fill_curve_errors(curve_result([880.0] * 3 + [200.0] * 7), published, "x.fill.curve")
    parts = {p.figure.removeprefix("x.fill.curve"): p for p in err.parts}
    # segment 0 holds the points whose middle is below 20%: two at 880 -> 10% fast
    assert parts["[0] MB/s"].model == pytest.approx(880.0)
    assert parts["[0] MB/s"].error_pct == pytest.approx(10.0)
    # segment 1: one GB at 880 and seven at 200 -> 8 GB over their time
    seg1 = 8 / (1 / 880 + 7 / 200)
    assert parts["[1] MB/s"].model == pytest.approx(seg1)
    assert parts["[1] MB/s"].error_pct == pytest.approx((seg1 - 200) / 200 * 100)
    # the 200 MB/s level starts at 30%, not 20%: a shift of 0.1 against the 0.2 before the boundary = 50%
    assert parts["[1] start"].model == pytest.approx(0.3)
    assert parts["[1] start"].error_pct == pytest.approx(50.0)
    assert err.error_pct == pytest.approx(math.sqrt(sum(p.error_pct**2 for p in err.parts) / 3))
    # within a published range [low, high] a speed has no error; a level that never comes starts at 100%
    exact = cal.fill_curve_errors(curve_result([800.0] * 2 + [200.0] * 8), published, "x")
    assert exact.error_pct == 0.0
    never = cal.fill_curve_errors(curve_result([800.0] * 10), published, "x")
    assert [p.error_pct for p in never.parts if p.figure.endswith("start")] == [400.0]


def test_the_objective_is_the_rms_of_the_in_sample_figures_only() -> None:
    errs = {n: cal.FigureError(n, 1.0, 1.0, "", e) for n, e in (("a", 3.0), ("b", 4.0), ("held", 99.0))}
    assert cal.objective(errs, ["a", "b"]) == pytest.approx(math.sqrt((9 + 16) / 2))


def test_bg4_128gb_marks_the_values_fitted_to_its_fill_curve() -> None:
    plan = cal.load_plan("bg4-128gb")
    cfg = tomllib.loads(plan.toml)
    for p in plan.free:
        assert p.low < p.current < p.high, p
    assert [p.path for p in plan.free if p.path.startswith("nand.")] == ["nand.slc_tPROG_us"]
    assert cfg["calibration"]["figures"] == plan.figures
    assert plan.published["bg4-128gb.fill.curve"] == reference.fill_curve("bg4-128gb")
    assert not set(plan.figures) & set(plan.holdout)
    # the chain --write may change: the preset, then its family files
    assert [f.name for f in plan.files] == ["bg4-128gb.toml", "bg4.toml", "bg.toml"]


def synthetic_drive(tmp_path: Path, capacity_gb: float = 32) -> tuple[Path, dict[str, Any]]:
    """A scaled bg4-128gb with one free parameter, and the published figures of a 'synthetic' drive: the
    fill curve's levels as this drive makes them with slc_tPROG_us = 250."""
    shown = Drive.from_preset("bg4-128gb", capacity_gb=capacity_gb).config_toml()
    body = shown[: shown.index("[calibration]")]  # the preset's own free parameters out of the way
    path = tmp_path / "synthetic.toml"
    path.write_text(
        body + '[calibration]\nfigures = ["synthetic.fill.curve"]\n'
        '[calibration.free]\n"nand.slc_tPROG_us" = [100.0, 400.0]\n',
        encoding="utf-8",
    )
    target = run_fill(Drive.from_toml(path, set={"nand.slc_tPROG_us": TARGET_TPROG}))
    levels = target.levels()
    assert len(levels) >= 2, "an SLC level and what follows it"
    curve = [[lv.fill_start, lv.fill_end, lv.mbps, lv.mbps] for lv in levels]
    return path, {"fill": {"curve": curve}}


def synthetic_plan(tmp_path: Path) -> cal.Plan:
    path, tables = synthetic_drive(tmp_path)
    return cal.load_plan(str(path), published=lambda drive: tables if drive == "synthetic" else None)


def test_a_trial_gives_the_same_errors_on_any_worker(tmp_path: Path) -> None:
    plan = synthetic_plan(tmp_path)
    values = {"nand.slc_tPROG_us": 222.5}
    here = cal.evaluate(plan.toml, values, plan.published)
    with dask_client(2, None, processes=True) as client:
        there = client.gather(
            [client.submit(cal.evaluate, plan.toml, values, plan.published, pure=False) for _ in range(2)]
        )
    assert there == [here, here]


def test_a_synthetic_calibration_finds_the_tPROG_that_made_the_curve(tmp_path: Path) -> None:
    plan = synthetic_plan(tmp_path)
    seen: list[tuple[int, float]] = []
    out = cal.run(
        plan,
        budget=40,
        workers=2,
        study=tmp_path / "s.sqlite",
        processes=False,
        progress=lambda done, budget, best: seen.append((done, best)),
    )
    assert out.before == {"nand.slc_tPROG_us": 180.0}
    assert out.after["nand.slc_tPROG_us"] == pytest.approx(TARGET_TPROG, rel=0.03)
    # its own curve, found again; levels sit on a 1 GB grid, so 2% off the target can move the last level's
    # start by a grid step (RMS ~11% against ~17% at the start value, ~5.6% on the target)
    assert out.error_after < out.error_before * 0.75
    assert out.trials == 40 and [d for d, _ in seen] == list(range(41))
    assert all(b2 <= b1 for (_, b1), (_, b2) in itertools.pairwise(seen)), "the best never worsens"


CALIBRATED = [p for p in ssdlab.list_presets() if "[calibration]" in Path(str(preset_path(p))).read_text()]


def test_the_presets_with_fitted_values_carry_a_calibration() -> None:
    assert set(CALIBRATED) >= {"bg4-128gb", "sn520-128gb", "sn500-250gb", "cl1-128gb", "am610-128gb"}


@pytest.mark.parametrize("preset", CALIBRATED)
def test_a_presets_calibration_fits_only_what_its_comments_say_was_fitted(preset: str) -> None:
    # `ssdlab calibrate PRESET` redoes the hand fit: values marked fitted, to figures a comment names (so the
    # table moves no figure from hold-out to in-sample; its own hold-out is what this run does not fit)
    plan = cal.load_plan(preset)
    by_comment = [f for f in validate.fitted_values(preset) if f.comment != "[calibration] free"]
    in_sample = {
        f.name for f in validate.figures() if f.drive == preset and validate._in_sample(f, by_comment)
    }
    for name in plan.figures:
        assert name.startswith(preset + ".") and cal.measurable(name)
        figure = name.removeprefix(preset + ".")
        named = figure in in_sample or any(n.startswith(figure + "[") for n in in_sample)  # a whole curve
        assert named, f"{name}: no `# fitted` comment names it"
    assert {p.path for p in plan.free} <= {f.path for f in by_comment}


def spec_drive(tmp_path: Path) -> Path:
    """bg4-256gb (no calibration of its own) with one free parameter, fitted to its spec sequential write."""
    path = tmp_path / "spec.toml"
    path.write_text(
        'base = "bg4-256gb"\n[calibration]\nfigures = ["bg4-256gb.spec.seq_write_MBps"]\n'
        'holdout = ["bg4-256gb.spec.rand_read_kIOPS"]\n'
        '[calibration.free]\n"nand.slc_tPROG_us" = [100.0, 400.0]\n',
        encoding="utf-8",
    )
    return path


def test_a_figure_of_another_method_is_measured_as_validate_measures_it() -> None:
    # the spec sheet's sequential write, by validate's CDM-like method, on the trial's drive: 8 dies of
    # SLC-mode programs, so a slower program writes slower; the error is against the published value given
    toml = Drive.from_preset("bg4-256gb").config_toml()
    published = {"bg4-256gb.spec.seq_write_MBps": 1000}
    fast, slow = (cal.evaluate(toml, {"nand.slc_tPROG_us": t}, published) for t in (180.0, 250.0))
    (row,) = validate.rows(["bg4-256gb"], figures=["spec.seq_write_MBps"], set={"nand.slc_tPROG_us": 250.0})
    e = slow["bg4-256gb.spec.seq_write_MBps"]
    assert (e.model, e.unit) == (row.model, row.unit)
    assert e.error_pct == pytest.approx(abs(row.model - 1000) / 10)
    assert fast["bg4-256gb.spec.seq_write_MBps"].model > 1.2 * e.model


def test_a_synthetic_calibration_finds_the_tPROG_that_made_a_spec_figure(tmp_path: Path) -> None:
    path = spec_drive(tmp_path)
    toml = Drive.from_toml(path).config_toml()
    target = cal.evaluate(toml, {"nand.slc_tPROG_us": TARGET_TPROG}, {"bg4-256gb.spec.seq_write_MBps": 1})
    tables = {
        "spec": {"seq_write_MBps": target["bg4-256gb.spec.seq_write_MBps"].model, "rand_read_kIOPS": 330}
    }
    plan = cal.load_plan(str(path), published=lambda drive: tables if drive == "bg4-256gb" else None)
    out = cal.run(plan, budget=20, workers=2, study=tmp_path / "s.sqlite", processes=False)
    assert out.before == {"nand.slc_tPROG_us": 180.0}
    assert out.after["nand.slc_tPROG_us"] == pytest.approx(TARGET_TPROG, rel=0.03)
    assert out.error_after < 2.0 < out.error_before
    assert set(out.after_errors) == {"bg4-256gb.spec.seq_write_MBps", "bg4-256gb.spec.rand_read_kIOPS"}


class Stop(KeyboardInterrupt):
    pass


def test_an_interrupted_calibration_resumes_the_same_study(tmp_path: Path) -> None:
    plan = synthetic_plan(tmp_path)
    study = tmp_path / "s.sqlite"

    def stop_after_3(done: int, budget: int, best: float) -> None:
        if done == 3:
            raise Stop

    with pytest.raises(Stop):
        cal.run(plan, budget=10, workers=2, study=study, processes=False, progress=stop_after_3)
    storage = f"sqlite:///{study}"
    first = optuna.load_study(study_name="ssdlab-calibrate", storage=storage)
    done_first = [t for t in first.trials if t.state == optuna.trial.TrialState.COMPLETE]
    left_running = [t.params for t in first.trials if t.state == optuna.trial.TrialState.RUNNING]
    assert len(done_first) == 3
    best_first = first.best_value
    last_first = max(t.number for t in first.trials)

    out = cal.run(plan, budget=10, workers=2, study=study, processes=False)
    again = optuna.load_study(study_name="ssdlab-calibrate", storage=storage)
    done = [t for t in again.trials if t.state == optuna.trial.TrialState.COMPLETE]
    assert out.trials == len(done) == 10 and out.new_trials == 7
    assert {t.number for t in done_first} <= {t.number for t in done}, "the first run's trials are kept"
    assert again.best_value <= best_first
    # the trials the interruption left running were run again, with the same values
    redone = [t.params for t in done if t.number > last_first]
    assert left_running and all(p in redone for p in left_running), (left_running, redone)
    assert len({json.dumps(t.params) for t in done}) == len(done), "a resumed sampler does not repeat itself"
    assert out.before == {"nand.slc_tPROG_us": 180.0}, "the before is the preset's, from the first run"


def test_ctrl_c_stops_the_command_and_the_same_command_resumes(tmp_path: Path) -> None:
    path, _ = synthetic_drive(tmp_path, capacity_gb=16)
    # the synthetic figures are not in the package: fit a copy of the scaled drive to bg4-128gb's SLC size
    text = path.read_text(encoding="utf-8").replace('"synthetic.fill.curve"', '"bg4-128gb.fill.slc_cache_GB"')
    path.write_text(text, encoding="utf-8")
    study = tmp_path / "s.sqlite"
    args = ["calibrate", str(path), "--budget", "200", "--workers", "2", "--study", str(study), "--json"]
    env = {**os.environ, "COLUMNS": "200"}
    # As from a terminal: SIGINT handled by default even when the test runner was started in the background
    # (a non-interactive shell starts background jobs with SIGINT ignored, and children inherit that).
    proc = subprocess.Popen(
        [str(SSDLAB), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        start_new_session=True,  # its own process group, as a terminal's foreground job
    )
    storage = f"sqlite:///{study}"
    deadline = time.monotonic() + 120
    completed = 0
    while completed < 3 and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.5)
        if study.exists():
            # read-only SQL, not optuna: opening optuna's storage here would race the command creating its
            # schema (both would write the alembic version)
            try:
                with contextlib.closing(sqlite3.connect(f"file:{study}?mode=ro", uri=True)) as db:
                    query = "SELECT COUNT(*) FROM trials WHERE state = 'COMPLETE'"
                    (completed,) = db.execute(query).fetchone()
            except sqlite3.Error:  # created, no tables in it yet
                pass
    os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C reaches the whole group: the command and its workers
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip() == "interrupted", "no traceback, no worker noise"
    s = optuna.load_study(study_name="ssdlab-calibrate", storage=storage)
    before = len(s.get_trials(states=(optuna.trial.TrialState.COMPLETE,)))
    assert 3 <= before < 200
    best = s.best_value

    out = ssdlab_cli(*[a if a != "200" else str(before + 3) for a in args])
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["trials"] == before + 3
    assert optuna.load_study(study_name="ssdlab-calibrate", storage=storage).best_value <= best


def test_a_ctrl_c_in_the_middle_of_a_study_query_leaves_only_interrupted_on_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A Ctrl-C that lands while SQLAlchemy reads the study: closing the half-read cursor then fails, and
    SQLAlchemy logs that with a traceback (CI saw "Error closing cursor" above ``interrupted``). The user
    sees ``interrupted`` alone; a record not raised by the interrupt still reaches the terminal."""
    import logging

    from ssdlab.cli import main

    pool = logging.getLogger("sqlalchemy.pool.impl.QueuePool")

    def query_interrupted(*args: object) -> None:
        pool.error("a pool warning of its own")
        try:
            raise KeyboardInterrupt
        finally:  # as SQLAlchemy's result does: close the cursor, and log why that failed
            try:
                raise sqlite3.ProgrammingError("Cannot operate on a closed cursor.")
            except sqlite3.ProgrammingError:
                pool.error("Error closing cursor", exc_info=True)

    monkeypatch.setattr(cal, "_open_study", query_interrupted)
    # as on a user's terminal: nobody configured logging (pytest's own capture would hide the records)
    monkeypatch.setattr(logging.root, "handlers", [])
    with pytest.raises(SystemExit) as e:
        main(["calibrate", "bg4-128gb", "--study", str(tmp_path / "s.sqlite")])
    assert e.value.code == 130
    assert capsys.readouterr().err.splitlines() == ["a pool warning of its own", "interrupted"]


def test_only_distributeds_ctrl_c_cancel_bug_is_kept_off_the_terminal() -> None:
    """distributed's sync() answers an early Ctrl-C with a NameError in a ``cancel`` callback (CI saw its
    traceback on stderr); that record is dropped, any other error from the event loop is still shown."""
    import logging

    def record_of(source: str, filename: str) -> logging.LogRecord:
        scope: dict[str, Any] = {}
        exec(compile(source, filename, "exec"), scope)
        try:
            scope["cancel"]()
        except Exception:
            info = sys.exc_info()
        return logging.LogRecord("tornado.application", logging.ERROR, filename, 1, "callback", None, info)

    bug = "def cancel():\n    if future is not None:\n        pass\nfuture = None\ndel future\n"
    assert is_sync_cancel_bug(record_of(bug, "/venv/site-packages/distributed/utils.py"))
    assert not is_sync_cancel_bug(record_of(bug, "/venv/site-packages/ssdlab/engine.py"))
    other = "def cancel():\n    raise ValueError('a real failure')\n"
    assert not is_sync_cancel_bug(record_of(other, "/venv/site-packages/distributed/utils.py"))


def _worker_logs_an_error() -> None:
    import logging

    logging.getLogger("distributed.worker").error("heartbeat to a scheduler that has stopped")


def test_the_local_clusters_workers_keep_their_own_error_logs_off_the_terminal(
    capfd: pytest.CaptureFixture[str],
) -> None:
    """After a Ctrl-C the scheduler stops first, and a worker's next heartbeat fails: distributed logged that
    at ERROR with a traceback onto the command's stderr (CI saw it above ``interrupted``). A trial's own
    failure reaches the command as its future's exception, so what a worker logs on its own stays off the
    terminal."""
    with dask_client(1, None, processes=True) as client:
        client.run(_worker_logs_an_error)
    assert "heartbeat" not in capfd.readouterr().err


def figures_file(path: Path, tables: dict[str, Any]) -> Path:
    """``tables`` written as a figures file of your own (TOML in the reference layout) at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = []
    for table, body in tables.items():
        lines.append(f"[{table}]")
        lines += [f"{key} = {json.dumps(value)}" for key, value in body.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_the_command_fits_fill_figures_of_your_own_given_in_a_file(tmp_path: Path) -> None:
    """``--reference FILE``: a fill curve measured elsewhere (here the drive's own at 250 us) is fitted as
    FILESTEM.fill.curve; without the file the command cannot find that figure and says where to give it."""
    drive, tables = synthetic_drive(tmp_path, capacity_gb=16)
    figures = figures_file(tmp_path / "measured" / "synthetic.toml", tables)
    args = ["calibrate", str(drive), "--budget", "3", "--workers", "1", "--study", str(tmp_path / "s.sqlite")]
    out = ssdlab_cli(*args, "--reference", str(figures), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["figures"] == ["synthetic.fill.curve"] and doc["trials"] == 3
    assert doc["errors_before"]["synthetic.fill.curve"]["error_pct"] > 0, "180 us is not the curve's 250"

    out = ssdlab_cli(*args)
    assert out.returncode == 2
    assert "error: calibration.figures: is not a published figure" in out.stderr
    assert "--reference" in out.stderr and "(got synthetic.fill.curve)" in out.stderr


def test_the_command_fits_a_saved_fill_result_as_figures_of_your_own(tmp_path: Path) -> None:
    """``--reference RESULT.json``: the JSON a fill run saves (of a twin here, of a real drive with
    ``--target``) gives the curve by its levels and AIDA64's average; the fit starts off it and ends no
    worse. Any other JSON is refused by name."""
    drive, _ = synthetic_drive(tmp_path, capacity_gb=16)
    measured = run_fill(Drive.from_toml(drive, set={"nand.slc_tPROG_us": TARGET_TPROG}))
    saved = tmp_path / "measured" / "synthetic.json"
    saved.parent.mkdir()
    saved.write_text(json.dumps(measured.to_dict()), encoding="utf-8")
    name, published = cal.published_with(saved)
    fill = published(name)["fill"]  # type: ignore[index]
    assert name == "synthetic"
    assert fill["curve"] == [[lv.fill_start, lv.fill_end, lv.mbps, lv.mbps] for lv in measured.levels()]
    assert fill["fill_avg_MBps"] == pytest.approx(sum(measured.mbps) / len(measured.mbps))
    args = ["calibrate", str(drive), "--reference", str(saved), "--budget", "3", "--workers", "1"]
    out = ssdlab_cli(*args, "--study", str(tmp_path / "s.sqlite"), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["errors_before"]["synthetic.fill.curve"]["error_pct"] > 0
    assert doc["error_after_pct"] <= doc["error_before_pct"]

    saved.write_text(json.dumps({**measured.to_dict(), "points": [], "levels": []}), encoding="utf-8")
    out = ssdlab_cli(*args)
    assert out.returncode == 2
    assert "synthetic.json holds no figures: its fill measured no point" in out.stderr
    saved.write_text(json.dumps({"suite": "fill", "points": []}), encoding="utf-8")
    out = ssdlab_cli(*args)
    assert out.returncode == 2
    assert "synthetic.json: not a fill result as ssdlab run saves it (no 'average_mbps')" in out.stderr


def test_the_command_fits_any_saved_result_by_its_headline_figures(tmp_path: Path) -> None:
    """``--reference RESULT.json`` of another suite (here CrystalDiskMark 8 of a twin whose writes take
    5 us of firmware time, as ``ssdlab run`` saves it): ``SUITE.*`` names its headline figures, each trial
    runs that suite with the options the result records, and the fit moves the free parameter towards the
    drive that was measured."""
    body = Drive.from_preset("bg4-128gb", capacity_gb=16).config_toml()
    drive = tmp_path / "twin.toml"
    drive.write_text(
        body[: body.index("[calibration]")] + '[calibration]\nfigures = ["measured.cdm8.*"]\n'
        '[calibration.free]\n"controller.write_overhead_ns" = [1000, 9000]\n',
        encoding="utf-8",
    )
    opts = ["--suite", "cdm", "--test-size", "64m", "--runs", "1", "--duration", "0.5s"]
    run = ssdlab_cli(
        "run",
        "--drive",
        str(drive),
        *opts,
        "--set",
        "controller.write_overhead_ns=5000",
        "--out",
        str(tmp_path / "out"),
        "--json",
    )
    assert run.returncode == 0, run.stderr
    saved = tmp_path / "measured.json"
    (result,) = (tmp_path / "out").glob("*.json")
    saved.write_text(result.read_text(encoding="utf-8"), encoding="utf-8")

    plan = cal.load_plan(str(drive), published=cal.published_with(saved)[1])
    assert "measured.cdm8.RND4K Q1T1 write MB/s" in plan.figures and len(plan.figures) == 24
    assert plan.runs == {
        "measured.cdm8": {
            "suite": "cdm8",
            "options": {"duration": "0.5s", "runs": 1, "test_size": "64m"},
            "seed": 1,
        }
    }
    args = ["calibrate", str(drive), "--reference", str(saved), "--budget", "8", "--workers", "1"]
    out = ssdlab_cli(*args, "--study", str(tmp_path / "s.sqlite"), "--write", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    # the provenance names the saved result's figures as [calibration] does, not one by one
    assert "to measured.cdm8.*: error" in drive.read_text(encoding="utf-8")
    q1 = "measured.cdm8.RND4K Q1T1 write MB/s"
    assert doc["errors_before"][q1]["error_pct"] > 5, "3 us of firmware time is not the measured 5"
    assert doc["errors_after"][q1]["error_pct"] < doc["errors_before"][q1]["error_pct"]
    assert abs(doc["after"]["controller.write_overhead_ns"] - 5000) < 5000 - 3000

    # several files at once, each its own drive of figures; one stem twice is refused
    mine = figures_file(tmp_path / "other" / "fill-run.toml", {"fill": {"slc_cache_GB": 2.0}})
    both = cal.published_with(mine, cal.published_with(saved)[1])[1]
    assert both("fill-run")["fill"]["slc_cache_GB"] == 2.0 and "headlines" in both("measured")["cdm8"]
    out = ssdlab_cli(*args, "--reference", str(saved))
    assert out.returncode == 2 and "two files of figures named 'measured'" in out.stderr

    drive.write_text(drive.read_text().replace("measured.cdm8.*", "measured.cdm8.SEQ9M read"))
    out = ssdlab_cli(*args)
    assert out.returncode == 2
    assert "is not a figure of the saved cdm8 result" in out.stderr and "RND4K Q1T1 write MB/s" in out.stderr
    doc = json.loads(result.read_text(encoding="utf-8"))
    saved.write_text(json.dumps({**doc, "options": {**doc["options"], "job": "x.fio"}}), encoding="utf-8")
    out = ssdlab_cli(*args)  # refused before any trial, not on every worker
    assert out.returncode == 2 and "error: --job: suite cdm8 does not take this option" in out.stderr
    saved.write_text(json.dumps({"suite": "no-such-suite"}), encoding="utf-8")
    out = ssdlab_cli(*args)
    assert out.returncode == 2 and "measured.json is not a suite result" in out.stderr


@pytest.mark.parametrize(
    ("name", "figure", "tables", "message"),
    [
        (
            "mine",
            "mine.spec.seq_write_MBps",
            {"spec": {"seq_write_MBps": 1000}},
            "calibrate measures a built-in",
        ),
        (
            "bg4-128gb",
            "bg4-128gb.fill.fill_avg_MBps",
            {"fill": {"fill_avg_MBps": 215}},
            "would stand for the built-in",
        ),
        ("empty", "empty.fill.curve", {}, "holds no table of figures"),
    ],
)
def test_a_figures_file_that_cannot_be_fitted_is_refused_by_name(
    tmp_path: Path, name: str, figure: str, tables: dict[str, Any], message: str
) -> None:
    drive, _ = synthetic_drive(tmp_path, capacity_gb=16)
    drive.write_text(drive.read_text().replace("synthetic.fill.curve", figure))
    figures = figures_file(tmp_path / "measured" / f"{name}.toml", tables)
    out = ssdlab_cli("calibrate", str(drive), "--reference", str(figures), "--budget", "1")
    assert out.returncode == 2, out.stdout
    assert message in out.stderr and "Traceback" not in out.stderr
    missing = ssdlab_cli("calibrate", str(drive), "--reference", str(tmp_path / "nowhere.toml"))
    assert missing.returncode == 2
    assert "nowhere.toml: cannot read the figures file" in missing.stderr


def test_write_puts_the_fit_and_its_provenance_into_a_copy_that_still_resolves(tmp_path: Path) -> None:
    copy = tmp_path / "bg4-128gb.toml"
    shutil.copy(Path(str(preset_path("bg4-128gb"))), copy)
    study = tmp_path / "s.sqlite"
    out = ssdlab_cli(
        "calibrate", str(copy), "--budget", "3", "--workers", "2", "--study", str(study), "--write", "--json"
    )
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    moved = [k for k in doc["after"] if doc["after"][k] != doc["before"][k]]
    assert doc["written"] == ([str(copy)] if moved else []), "a file outside the package: only it is written"
    text = copy.read_text(encoding="utf-8")
    notes = [line for line in text.splitlines() if line.startswith("# fitted by ssdlab calibrate")]
    assert len(notes) == len(moved), "a note above each value the fit moved, none above the others"
    for note in notes:
        assert "bg4-128gb.fill.curve, bg4-128gb.fill.slc_cache_GB" in note
        assert f"error {doc['error_before_pct']:.1f}% -> {doc['error_after_pct']:.1f}%" in note
    cfg = tomllib.loads(Drive.from_toml(copy).config_toml())
    for key, value in doc["after"].items():
        assert cal._lookup(cfg, key) == value
    assert cfg["calibration"]["figures"] == doc["figures"], "the table survives the edit"
    # the package's own preset is untouched
    assert "# fitted by ssdlab calibrate" not in Path(str(preset_path("bg4-128gb"))).read_text(
        encoding="utf-8"
    )


def test_write_changes_the_file_of_the_chain_that_sets_each_value(tmp_path: Path) -> None:
    family = tmp_path / "fam.toml"
    family.write_text("[nand]\nslc_tPROG_us = 180.0   # family value\n", encoding="utf-8")
    child = tmp_path / "child.toml"
    child.write_text('base = "fam"\nname = "c"\n', encoding="utf-8")
    plan = dataclasses.replace(
        cal.load_plan("bg4-128gb"),
        free=[
            cal.FreeParam("nand.slc_tPROG_us", 100.0, 400.0, False, 180.0),
            cal.FreeParam("ftl.slc_cache.dynamic_fraction", 0.2, 0.8, False, 0.45),
        ],
        files=[child, family],
    )
    errs = {n: cal.FigureError(n, 1.0, 1.0, "", 10.0) for n in plan.figures}
    outcome = cal.Outcome(
        plan,
        {"nand.slc_tPROG_us": 180.0, "ftl.slc_cache.dynamic_fraction": 0.45},
        {"nand.slc_tPROG_us": 201.25, "ftl.slc_cache.dynamic_fraction": 0.5},
        errs,
        errs,
        1,
        1,
        1.0,
        1.0,
        tmp_path / "s.sqlite",
    )
    assert sorted(cal.write_fitted(outcome)) == sorted([child, family])
    fam = family.read_text(encoding="utf-8")
    assert "slc_tPROG_us = 201.25  # family value" in fam, "the family sets it: changed there, comment kept"
    # and in its column
    assert fam.index("# family") - fam.index("slc_tPROG_us") == len("slc_tPROG_us = 180.0   ")
    assert "(was 180.0)" in fam
    assert tomllib.loads(child.read_text(encoding="utf-8"))["ftl"]["slc_cache"]["dynamic_fraction"] == 0.5
    # a second fit replaces the provenance line instead of stacking another
    cal.write_fitted(outcome)
    assert family.read_text(encoding="utf-8").count("# fitted by ssdlab calibrate") == 1


def test_write_leaves_a_value_the_fit_did_not_move_as_it_was(tmp_path: Path) -> None:
    drive = tmp_path / "d.toml"
    original = "[nand]\nslc_tPROG_us = 180.0   # by hand\n[ftl.slc_cache]\ndynamic_fraction = 0.45\n"
    drive.write_text(original, encoding="utf-8")
    plan = dataclasses.replace(
        cal.load_plan("bg4-128gb"),
        free=[
            cal.FreeParam("nand.slc_tPROG_us", 100.0, 400.0, False, 180.0),
            cal.FreeParam("ftl.slc_cache.dynamic_fraction", 0.2, 0.8, False, 0.45),
        ],
        files=[drive],
    )
    errs = {n: cal.FigureError(n, 1.0, 1.0, "", 10.0) for n in plan.figures}
    before = {"nand.slc_tPROG_us": 180.0, "ftl.slc_cache.dynamic_fraction": 0.45}

    def outcome(after: dict[str, float | int]) -> cal.Outcome:
        return cal.Outcome(plan, before, after, errs, errs, 1, 1, 1.0, 1.0, tmp_path / "s.sqlite")

    assert cal.write_fitted(outcome(dict(before))) == [], "nothing moved: no file written"
    assert drive.read_text(encoding="utf-8") == original
    cal.write_fitted(outcome({**before, "ftl.slc_cache.dynamic_fraction": 0.5}))
    text = drive.read_text(encoding="utf-8")
    assert text.count("# fitted by ssdlab calibrate") == 1
    assert "slc_tPROG_us = 180.0   # by hand\n" in text and "dynamic_fraction = 0.5" in text


@pytest.mark.parametrize(
    ("args", "table", "named"),
    [
        (["nope"], None, "unknown preset 'nope'"),
        (["bg4-1tb"], None, "calibration"),
        (
            ["{file}"],
            '[calibration.free]\n"nand.slc_tPROG" = [100.0, 400.0]\n',
            'calibration.free."nand.slc_tPROG"',
        ),
        (["{file}"], '[calibration.free]\n"nand.slc_tPROG_us" = [400.0, 100.0]\n', "[400, 100]"),
        (  # bg4-128gb's 180 us: a fit would start from another drive than the one given
            ["{file}"],
            '[calibration.free]\n"nand.slc_tPROG_us" = [200.0, 400.0]\n',
            "value 180.0 is outside the range [200.0, 400.0]",
        ),
        (["{file}.missing.toml"], None, "cannot read the drive file"),
        (["{file}"], '[calibration]\nfigures = ["bg4-128gb.fill.nope"]\n', "bg4-128gb.fill.nope"),
        (  # a statement: nothing to fit a number to
            ["{file}"],
            '[calibration]\nfigures = ["bg4-1tb.anandtech.seq_read_hmb_on"]\n',
            "a fit needs a number (got bg4-1tb.anandtech.seq_read_hmb_on)",
        ),
        (  # spec-sheet text: a model input, which no method measures
            ["{file}"],
            '[calibration]\nfigures = ["sn520-128gb.spec.controller"]\n',
            "`ssdlab validate` has a method for",
        ),
        (["{file}", "--budget", "0"], "", "--budget"),
        (["{file}", "--workers", "2", "--scheduler", "tcp://127.0.0.1:8786"], "", "--workers"),
    ],
)
def test_bad_input_exits_2_naming_it(tmp_path: Path, args: list[str], table: str | None, named: str) -> None:
    file = tmp_path / "mine.toml"
    file.write_text(f'base = "bg4-128gb"\n{table or ""}', encoding="utf-8")
    out = ssdlab_cli(
        "calibrate", *[a.replace("{file}", str(file)) for a in args], "--study", str(tmp_path / "s.sqlite")
    )
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("error: ") and named in out.stderr, out.stderr
    assert "Traceback" not in out.stderr


def test_a_scheduler_address_runs_the_trials_on_that_cluster(tmp_path: Path) -> None:
    from distributed import LocalCluster

    plan = synthetic_plan(tmp_path)
    with LocalCluster(
        n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address="127.0.0.1:0"
    ) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        out = cal.run(plan, budget=4, scheduler=cluster.scheduler_address, study=tmp_path / "s.sqlite")
        # the fit closed its client, not the cluster: the cluster's workers are still there
        assert len(cluster.workers) == 2
    assert out.trials == 4


def test_an_unreachable_scheduler_exits_2_naming_it(tmp_path: Path) -> None:
    out = ssdlab_cli(
        "calibrate", "bg4-128gb", "--scheduler", "tcp://127.0.0.1:9", "--study", str(tmp_path / "s.sqlite")
    )
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("error: --scheduler: cannot reach the dask scheduler"), out.stderr
    assert "nothing listens at 127.0.0.1:9 (connection refused)" in out.stderr


def test_a_child_inherits_the_calibration_and_show_round_trips_it(tmp_path: Path) -> None:
    child = tmp_path / "mine.toml"
    child.write_text(
        'base = "bg4-128gb"\nname = "mine"\n[calibration]\nfigures = ["bg4-128gb.fill.curve"]\n'
        '[calibration.free]\n"nand.slc_tPROG_us" = [150.0, 250.0]\n',
        encoding="utf-8",
    )
    plan = cal.load_plan(str(child))
    assert plan.figures == ["bg4-128gb.fill.curve"], "figures: the child's list replaces the base's"
    assert plan.holdout == ["bg4-128gb.fill.fill_avg_MBps"], "holdout: inherited"
    ranges = {p.path: (p.low, p.high) for p in plan.free}
    assert ranges["nand.slc_tPROG_us"] == (150.0, 250.0), "a child narrows a range"
    assert ranges["ftl.slc_cache.dynamic_max_pct"] == (5.0, 30.0), "and inherits the others"
    shown = ssdlab_cli("show", "bg4-128gb")
    assert shown.returncode == 0, shown.stderr
    assert '[calibration.free]\n"ftl.slc_cache.dynamic_max_pct" = [5.0, 30.0]' in shown.stdout
    printed = tmp_path / "shown.toml"
    printed.write_text(shown.stdout, encoding="utf-8")
    assert Drive.from_toml(printed).config_toml() == shown.stdout


def test_a_child_takes_back_its_bases_parameters_and_hold_outs(tmp_path: Path) -> None:
    """A twin of your own drive based on a preset with a calibration of its own: ``[]`` takes back a free
    parameter (a merge cannot remove the key), ``holdout = []`` the base's hold-outs; with every parameter
    taken back there is nothing to fit, and the command says so."""
    child = tmp_path / "mine.toml"
    child.write_text(
        'base = "bg4-128gb"\nname = "mine"\n[calibration]\nfigures = ["bg4-128gb.fill.curve"]\nholdout = []\n'
        '[calibration.free]\n"ftl.slc_cache.dynamic_max_pct" = []\n'
        '"ftl.slc_cache.fold_whole_blocks_above_fill" = []\n',
        encoding="utf-8",
    )
    plan = cal.load_plan(str(child))
    assert [p.path for p in plan.free] == ["nand.slc_tPROG_us"] and plan.holdout == []
    child.write_text(
        child.read_text().replace("[calibration.free]\n", '[calibration.free]\n"nand.slc_tPROG_us" = []\n')
    )
    with pytest.raises(ssdlab.ConfigError) as e:
        cal.load_plan(str(child))
    assert "has no [calibration] table with free parameters" in str(e.value)


def test_a_study_of_another_calibration_or_not_sqlite_is_refused(tmp_path: Path) -> None:
    plan = synthetic_plan(tmp_path)
    study = tmp_path / "s.sqlite"
    cal.run(plan, budget=1, workers=1, study=study, processes=False)
    wider = dataclasses.replace(plan, free=[dataclasses.replace(plan.free[0], high=500.0)])
    with pytest.raises(ssdlab.ConfigError) as e:
        cal.run(wider, budget=2, workers=1, study=study, processes=False)
    assert e.value.errors()[0].path == "--study"
    assert "holds a calibration of another drive config, other parameters" in str(e.value)
    # another drive under the same name: its trials would be another drive's errors
    slower = dataclasses.replace(plan, toml=plan.toml.replace("tR_us = [50.0]", "tR_us = [90.0]"))
    assert slower.toml != plan.toml
    with pytest.raises(ssdlab.ConfigError, match="another drive config"):
        cal.run(slower, budget=2, workers=1, study=study, processes=False)
    # the same drive with its free value moved (as --write leaves it) resumes the study
    key = plan.free[0].path.rpartition(".")[2]
    moved = re.sub(rf"(?m)^{key} = .*$", f"{key} = 222.0", plan.toml)
    assert moved != plan.toml
    assert cal._study_signature(dataclasses.replace(plan, toml=moved)) == cal._study_signature(plan)
    garbage = tmp_path / "not.sqlite"
    garbage.write_text("not a database\n", encoding="utf-8")
    out = ssdlab_cli("calibrate", "bg4-128gb", "--study", str(garbage))
    assert out.returncode == 2 and out.stderr.startswith("error: --study: cannot open the study"), out.stderr
