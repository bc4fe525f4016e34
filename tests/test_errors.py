"""The exception tree: bad input is a ValueError listing typed problems, one line each, also on the CLI."""

from __future__ import annotations

import pickle
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

import ssdlab
from ssdlab import ConfigError, Drive, DriveBusyError, Problem, SsdlabError, Workload, WorkloadError

SSDLAB = Path(sys.executable).parent / "ssdlab"


@pytest.mark.parametrize("cls", [ConfigError, WorkloadError])
def test_input_errors_are_value_errors_and_ssdlab_errors(cls: type[Exception]) -> None:
    assert issubclass(cls, ValueError) and issubclass(cls, SsdlabError)
    # the native module raises the same classes, not look-alikes
    assert getattr(ssdlab._core, cls.__name__) is cls


def test_native_config_error_lists_typed_problems_one_line_each() -> None:
    with pytest.raises(ValueError) as info:
        Drive.from_preset("bg4-1tb", set=["nand.tR_us=-1", "link.lanes=3"])
    err = info.value
    assert isinstance(err, ConfigError)
    problems = err.errors()
    assert all(isinstance(p, Problem) for p in problems)
    by_path = {p.path: p for p in problems}
    assert by_path["nand.tR_us"].value == "-1" and "1..=10000" in by_path["nand.tR_us"].message
    assert by_path["link.lanes"].value == "3"
    lines = str(err).splitlines()
    assert len(lines) == len(problems)
    assert "nand.tR_us: must be 1..=10000 (got -1)" in lines
    assert not str(err).startswith("(")  # not a tuple's repr


def test_workload_error_is_one_readable_line() -> None:
    with pytest.raises(WorkloadError) as info:
        Workload(iodepth=0)
    (problem,) = info.value.errors()
    assert (problem.path, problem.value) == ("iodepth", "0")
    assert str(info.value) == "iodepth: must be from 1 to 65536 (got 0)"


def test_input_errors_survive_pickling() -> None:
    # multiprocessing sends exceptions between processes by pickling them
    err = ConfigError([Problem("nand.tR_us", "-1", "must be 1..=10000")])
    back = pickle.loads(pickle.dumps(err))
    assert type(back) is ConfigError and back.errors() == err.errors() and str(back) == str(err)


def test_toml_syntax_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text(Drive.from_preset("bg4-1tb").config_toml().replace("[nand]", "[nand", 1))
    with pytest.raises(ConfigError) as info:
        Drive.from_toml(path)
    (problem,) = info.value.errors()
    assert problem.path.startswith(f"{path}, line ")
    out = subprocess.run(
        [str(SSDLAB), "workload", "--drive", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 2
    assert out.stderr.startswith(f"error: {path}, line ") and len(out.stderr.splitlines()) == 1


def test_one_drive_from_two_threads_is_a_drive_busy_error(small_bg4: Drive) -> None:
    # The run releases the GIL, so another thread can reach the drive while it runs: it is told the drive runs
    # one thing at a time, not PyO3's bare RuntimeError('Already borrowed').
    started, done = threading.Event(), threading.Event()
    raised: list[BaseException] = []

    def other_thread() -> None:
        started.wait(timeout=60)
        for attempt in (lambda: small_bg4.run(Workload(size="64m", runtime="1ms")), small_bg4.counters):
            try:
                attempt()
            except BaseException as e:  # the test looks at whatever came out
                raised.append(e)
        done.set()

    def progress(_fraction: float) -> None:
        started.set()
        done.wait(timeout=60)  # hold the drive until the other thread has tried

    t = threading.Thread(target=other_thread)
    t.start()
    small_bg4.run(Workload(size="64m", runtime="20ms", time_based=True), progress)
    t.join(timeout=60)
    assert len(raised) == 2
    for e in raised:
        assert isinstance(e, DriveBusyError) and isinstance(e, SsdlabError)
        assert "one thing at a time" in str(e)
    assert small_bg4.counters()["host_read_ios"] > 0  # free again once the run is over


def test_ctrl_c_prints_interrupted_and_exits_130() -> None:
    run = [str(SSDLAB), "workload", "--set", "ftl.user_capacity_gb=16", "--time-based", "--runtime", "1h"]
    # As from a terminal: SIGINT handled by default even when the test runner was started in the background
    # (a non-interactive shell starts background jobs with SIGINT ignored, and children inherit that).
    proc = subprocess.Popen(
        run,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    time.sleep(4)  # past start-up: the run is under way
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.strip() == "interrupted", err
    assert out == ""
