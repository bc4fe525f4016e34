"""The exception tree: bad input is a ValueError listing typed problems, one line each, also on the CLI."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import ssdlab
from ssdlab import ConfigError, Drive, Problem, SsdlabError, Workload, WorkloadError

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
    assert str(info.value) == "iodepth: must be 1..65536 (got 0)"


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
