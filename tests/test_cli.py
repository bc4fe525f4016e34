"""The ``ssdlab`` script as a user runs it: a subprocess from the venv's bin folder."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import weakref
from pathlib import Path

import pytest

import ssdlab
from ssdlab import cli

SSDLAB = Path(sys.executable).parent / "ssdlab"
SMALL = ["--set", "ftl.user_capacity_gb=16"]


def ssdlab_cli(*args: str, cwd: Path | None = None, columns: int = 200) -> subprocess.CompletedProcess[str]:
    # A fixed width so rich lays tables out the same wherever the tests run.
    env = {**os.environ, "COLUMNS": str(columns)}
    return subprocess.run([str(SSDLAB), *args], capture_output=True, text=True, timeout=120, cwd=cwd, env=env)


def test_presets_lists_the_builtins() -> None:
    out = ssdlab_cli("presets")
    assert out.returncode == 0, out.stderr
    for name in ssdlab.list_presets():
        assert name in out.stdout
    listed = json.loads(ssdlab_cli("presets", "--json").stdout)
    assert [p["name"] for p in listed] == ssdlab.list_presets()
    assert all(p["description"] for p in listed), "every preset says what drive it is"


def test_help_prints_bracketed_text_as_written() -> None:
    """Square brackets in help are text (a TOML table, a default), not markup that vanishes."""
    out = ssdlab_cli("calibrate", "--help")
    assert out.returncode == 0, out.stderr
    text = " ".join(out.stdout.split())
    assert "([calibration] in its TOML)" in text
    assert "[default: 120]" in text and "[default: 2]" in text


def test_no_help_shows_docstring_markup() -> None:
    """Every command's help is plain text: no reStructuredText (``--json``, :func:`...`) from the docstrings
    the help is made of."""
    from typer.testing import CliRunner

    top = CliRunner().invoke(cli.app, ["--help"], env={"COLUMNS": "200"})
    assert top.exit_code == 0, top.output
    commands = [line.split()[0] for line in top.output.split("Commands:")[1].splitlines() if line.strip()]
    assert {"run", "validate", "nvme", "presets"} <= {*commands}
    for command in commands:
        out = CliRunner().invoke(cli.app, [command, "--help"], env={"COLUMNS": "200"})
        assert out.exit_code == 0, (command, out.output)
        for markup in ("``", ":func:", ":class:", ":mod:"):
            assert markup not in out.output, f"ssdlab {command} --help shows {markup}"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["calibrate"],
            "error: preset: missing argument (built-in preset name, or a drive TOML file); "
            "see ssdlab calibrate --help",
        ),
        (["nvme", "write"], "error: --namespace-id/-n: missing option (namespace ID); see ssdlab nvme write"),
    ],
)
def test_a_missing_argument_or_option_is_named_with_what_it_is(args: list[str], message: str) -> None:
    """Left out, a required argument or option is named with its help (click's own message was lost: the
    line read ``error: preset:`` and nothing more)."""
    out = ssdlab_cli(*args)
    assert out.returncode == 2
    assert out.stderr.startswith(message), out.stderr


def test_show_round_trips_through_drive(tmp_path: Path) -> None:
    shown = ssdlab_cli("show", "bg4-1tb", "--set", "nand.tR_us=61.5", *SMALL)
    assert shown.returncode == 0, shown.stderr
    assert "tR_us = [61.5]" in shown.stdout
    path = tmp_path / "mine.toml"
    path.write_text(shown.stdout)
    args = ["--drive", str(path), "--rw", "randread", "--size", "64m", "--runtime", "10ms", "--json"]
    out = ssdlab_cli("workload", *args)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["config_toml"] == shown.stdout


def test_workload_rate_iops_takes_fios_read_write_form() -> None:
    """``--rate-iops 900,100`` paces reads and writes each at its own rate (as fio's rate_iops=900,100); a
    value fio would not read exits 2 naming the option's field."""
    args = ["--preset", "bg4-1tb", *SMALL, "--rw", "randrw", "--rwmixread", "67", "--iodepth", "8"]
    out = ssdlab_cli("workload", *args, "--rate-iops", "900,100", "--runtime", "1s", "--time-based", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["read"]["iops"] == pytest.approx(900, abs=2) and doc["write"]["iops"] == pytest.approx(
        100, abs=2
    )
    bad = ssdlab_cli("workload", *args, "--rate-iops", "9,x", "--runtime", "1s")
    assert bad.returncode == 2 and "rate_iops" in bad.stderr and "Traceback" not in bad.stderr


def test_workload_json_parses() -> None:
    args = [
        "--preset",
        "bg4-1tb",
        *SMALL,
        "--rw",
        "randwrite",
        "--bs",
        "4k",
        "--iodepth",
        "32",
        "--numjobs",
        "1",
    ]
    out = ssdlab_cli("workload", *args, "--size", "1g", "--runtime", "0.2s", "--seed", "7", "--json")
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert (d["preset"], d["seed"], d["ssdlab_version"]) == ("bg4-1tb", 7, ssdlab.__version__)
    assert d["workload"]["iodepth"] == 32
    assert d["write"]["ios"] > 0 and d["iops"] > 0
    assert d["elapsed_s"] == pytest.approx(0.2, rel=0.05)
    assert "99.99" in d["latency"]["percentiles_us"]
    assert "waf" in d["counters"]


def test_workload_io_log_writes_every_io_and_a_real_target_refuses_it(tmp_path: Path) -> None:
    log = tmp_path / "ios.csv"
    args = ["workload", *SMALL, "--rw", "randwrite", "--size", "64m", "--runtime", "1ms"]
    out = ssdlab_cli(*args, "--io-log", str(log), "--json")
    assert out.returncode == 0, out.stderr
    rows = log.read_text().splitlines()
    assert rows[0] == '"submit_ns","complete_ns","latency_ns","op","offset","length"'
    assert len(rows) - 1 == json.loads(out.stdout)["write"]["ios"] > 0
    target = ssdlab_cli("workload", "--target", str(tmp_path / "t.img"), "--io-log", str(log))
    assert target.returncode == 2 and target.stderr.startswith("error: --io-log: a real target's IOs")
    assert not (tmp_path / "t.img").exists()  # refused before the target was made


def test_show_resolves_a_drive_file_and_fio_and_replay_take_the_drive_options(tmp_path: Path) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text('base = "bg4-1tb"\n[nand]\ntR_us = [61.0]\n')
    shown = ssdlab_cli("show", "--drive", str(mine), *SMALL)
    assert shown.returncode == 0, shown.stderr
    assert "tR_us = [61.0]" in shown.stdout and 'base = "' not in shown.stdout
    job = tmp_path / "j.fio"
    job.write_text("[a]\nrw=randread\nsize=64m\nruntime=10ms\n")
    scale = ["--scale-capacity-gb", "8"]
    fio = ssdlab_cli("fio", str(job), *scale, "--output-format", "json")
    assert fio.returncode == 0, fio.stderr
    assert json.loads(fio.stdout)["jobs"][0]["read"]["total_ios"] > 0
    trace = tmp_path / "t.csv"
    trace.write_text("time_us,op,offset,length\n0,read,0,4096\n")
    replay = ssdlab_cli("replay", str(trace), *scale, "--json")
    assert replay.returncode == 0, replay.stderr
    assert "user_capacity_gb = 8" in json.loads(replay.stdout)["config_toml"]


def test_workload_table_shows_iops_percentiles_and_counters() -> None:
    out = ssdlab_cli("workload", *SMALL, "--rw", "randrw", "--size", "256m", "--runtime", "50ms")
    assert out.returncode == 0, out.stderr
    for word in ("IOPS", "MB/s", "p99.99", "read", "write", "nand_pages_programmed", "waf"):
        assert word in out.stdout


def test_a_trim_workload_prints_its_trims_not_a_row_of_zeros() -> None:
    out = ssdlab_cli("workload", *SMALL, "--rw", "trim", "--size", "64m")
    assert out.returncode == 0, out.stderr
    row = next(line for line in out.stdout.splitlines() if "│ trim" in line)
    iops, mbps, mean_us = (float(c.replace(",", "")) for c in row.split("│")[2:5])
    assert iops > 0 and mbps > 0 and mean_us > 0
    assert "│ total" not in out.stdout  # a total is of reads and writes, and there are none


def test_run_on_a_drive_scaled_to_few_blocks_a_plane_says_its_gc_is_not_the_full_drives(
    tmp_path: Path,
) -> None:
    args = ["--preset", "bg4-512gb", "--scale-capacity-gb", "8", "--suite", "cdm", "--test-size", "64m"]
    out = ssdlab_cli("run", *args, "--runs", "1", "--duration", "50ms", "--out", "res", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0]
    assert "Only 22 blocks a plane (the preset has 974)" in first and "unevenly across the dies" in first
    # 16 GB keeps 37 a plane: no such caveat
    out = ssdlab_cli(
        "run", *args[:3], "16", *args[4:], "--runs", "1", "--duration", "50ms", "--out", "res", cwd=tmp_path
    )
    assert out.returncode == 0 and "blocks a plane" not in out.stdout.splitlines()[0]


def test_run_cdm_writes_results_json(tmp_path: Path) -> None:
    args = ["--preset", "bg4-1tb", *SMALL, "--suite", "cdm", "--test-size", "64m", "--runs", "2"]
    out = ssdlab_cli(
        "run", *args, "--duration", "50ms", "--interval", "0.1s", "--seed", "5", "--out", "res", cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    for word in ("SEQ1M Q8T1", "RND4K Q1T1", "Read MB/s", "Write MB/s", "WAF", "GC moves", "die util"):
        assert word in out.stdout
    # a 16 GB bg4-1tb is not the drive whose published figures its tables carry, and it says so first
    note = "note: Scaled-down drive: 16 GB user capacity instead of the preset's 1024 GB"
    assert out.stdout.startswith(note)
    files = list((tmp_path / "res").glob("bg4-1tb-cdm-*.json"))
    assert len(files) == 1
    d = json.loads(files[0].read_text())
    assert (d["preset"], d["seed"], d["ssdlab_version"], d["suite"]) == (
        "bg4-1tb",
        5,
        ssdlab.__version__,
        "cdm8",
    )
    assert 'name = "bg4-1tb"' in d["config_toml"]
    assert [r["direction"] for r in d["rows"]] == ["read"] * 4 + ["write"] * 4


def test_run_json_prints_the_same_document(tmp_path: Path) -> None:
    args = [*SMALL, "--suite", "cdm6", "--test-size", "16m", "--runs", "1", "--duration", "20ms", "--json"]
    out = ssdlab_cli("run", *args, "--out", str(tmp_path))
    assert out.returncode == 0, out.stderr
    (written,) = tmp_path.glob("*.json")
    assert json.loads(out.stdout) == json.loads(written.read_text())
    assert json.loads(out.stdout)["rows"][1]["test"] == "4KiB Q8T8"


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["workload", "--preset", "bg5-1tb"], "preset"),
        (["run", "--preset", "bg5-1tb"], "preset"),
        (["show", "bg5-1tb"], "preset"),
        (["workload", "--bs", "4q"], "bs"),
        (["workload", "--size", "8x"], "size"),
        (["run", "--test-size", "1q"], "--test-size"),
        (["workload", "--iodepth", "0"], "iodepth"),
        (["workload", "--rw", "randomread"], "rw"),
        (["workload", "--set", "nand.no_such_key=1"], "nand.no_such_key"),
        (["show", "bg4-1tb", "--set", "nand.tR_us"], "--set"),
        (["run", "--suite", "cdm9"], "suite"),
        # a suite's own name for what an option gives it is the option's
        (["run", "--suite", "anandtech", "--test-size", "0"], "--test-size"),
        (["run", "--suite", "dbmix", "--duration", "-1s"], "--duration"),
        (["run", "--suite", "pts", "--runs", "2"], "--runs"),
        # the option parser's own errors read the same way
        (["workload", "--iodepth", "abc"], "--iodepth"),
        (["workload", "--iodepth"], "--iodepth"),
        (["workload", "--iodept", "3"], "--iodept"),
    ],
)
def test_bad_input_is_one_line_naming_the_field_and_exit_2(args: list[str], field: str) -> None:
    out = ssdlab_cli(*args)
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith(f"error: {field}: ")
    assert out.stdout == ""


def test_usage_errors_exit_2_without_traceback() -> None:
    out = ssdlab_cli("workload", "--iodepth", "abc")
    assert out.returncode == 2
    assert "Traceback" not in out.stderr and "--iodepth" in out.stderr
    assert out.stderr.rstrip().endswith("(got abc)"), "the value typed, as the package's errors give it"
    assert ssdlab_cli("workload", "--iodepth=x2").stderr.rstrip().endswith("(got x2)")


@pytest.mark.parametrize("command", ["show", "validate", "calibrate"])
def test_a_preset_given_as_an_option_where_it_is_the_argument_says_how_to_give_it(command: str) -> None:
    # `run -p PRESET` is how `run`, `workload` and `fio` take it; these take it as their argument
    for option in ("-p", "--preset"):  # not "did you mean --set?" for --preset
        out = ssdlab_cli(command, option, "bg4-128gb")
        assert out.returncode == 2 and "Traceback" not in out.stderr
        assert out.stderr.strip() == (
            f"error: {option}: no such option ({command} takes the preset as its argument: ssdlab {command} "
            "bg4-1tb)"
        )
    assert ssdlab_cli("sweep", "-p", "x").stderr.strip() == "error: -p: no such option"  # no preset there


@pytest.mark.parametrize(
    ("args", "option", "why"),
    [
        (["run", "--out", "{file}"], "--out", "is a file, not a folder"),
        (["run", "--out", "/proc/nope"], "--out", "cannot make the folder"),
        (
            ["run", "--suite", "fill", "--scale-capacity-gb", "4", "--plot", "/proc/nope/f.png"],
            "--plot",
            "cannot",
        ),
        (["compare", "bg4-1tb", "sn520-128gb", "--suite", "cdm", "--out", "{file}"], "--out", "is a file"),
        (["report", "{file}", "-o", "/proc/nope/r.html"], "--output", "cannot make the folder"),
    ],
)
def test_an_output_path_that_cannot_be_written_is_refused_before_the_run(
    tmp_path: Path, args: list[str], option: str, why: str
) -> None:
    file = tmp_path / "a-file"
    file.write_text("{}", encoding="utf-8")
    out = ssdlab_cli(*[a.replace("{file}", str(file)) for a in args])
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith(f"error: {option}: {why}"), out.stderr
    assert "Traceback" not in out.stderr


def test_a_refused_run_leaves_nothing_behind(tmp_path: Path) -> None:
    for args in (
        ["--set", "nand.channels=0"],
        ["--suite", "power", "--target", "new.img"],
        ["--suite", "cdm", "--target", "new.img", "--target-size", "0"],
    ):
        out = ssdlab_cli("run", *args, cwd=tmp_path)
        assert out.returncode == 2, out.stderr
    (tmp_path / "afile").write_text("")
    out = ssdlab_cli(
        "run", "--suite", "cdm", "--target", "new.img", "--target-size", "64m", "--out", "afile", cwd=tmp_path
    )
    assert out.returncode == 2 and out.stderr.startswith("error: --out: is a file"), out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]  # no results/ folder, no new.img


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the dropped interrupt
def test_a_ctrl_c_that_python_drops_still_ends_the_command_as_interrupted(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C's KeyboardInterrupt raised inside a garbage-collection callback is printed and dropped by
    Python, and the command goes on; main() still reports it as interrupted (exit 130)."""

    def finalizer() -> None:
        signal.raise_signal(signal.SIGINT)  # the handler runs here, inside the callback
        for _ in range(1000):
            pass

    def command(**_: object) -> int:
        weakref.finalize(type("T", (), {})(), finalizer)  # collected at once: the callback runs
        return 0

    monkeypatch.setattr(cli, "app", command)
    # Ctrl-C as at a terminal, even when the runner was started in the background (SIGINT ignored)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(SystemExit) as e:
            cli.main([])
    finally:
        signal.signal(signal.SIGINT, old)
    assert e.value.code == 130
    assert capsys.readouterr().err.strip().endswith("interrupted")


def test_workload_stops_at_steady_state_and_says_so() -> None:
    args = ["workload", "--set", "ftl.user_capacity_gb=16", "--rw", "randwrite", "--size", "4g"]
    paced = ["--rate-iops", "2000", "--runtime", "30s", "--time-based"]
    done = ssdlab_cli(
        *args, *paced, "--steadystate", "bw_slope:0.5%", "--steadystate-duration", "4s", "--json"
    )
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["steadystate"]["attained"] and doc["elapsed_s"] == pytest.approx(4.0, abs=0.01)  # not 30 s
    text = ssdlab_cli(*args, *paced, "--steadystate", "iops:2%", "--steadystate-duration", "5s").stdout
    assert "steady state iops:2.000000%: attained" in text
    bad = ssdlab_cli(*args, "--steadystate", "iops", "--steadystate-duration", "5s")
    assert bad.returncode == 2 and "steadystate: no limit" in bad.stderr
