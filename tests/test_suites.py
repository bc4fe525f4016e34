"""The suite registry: every suite registers itself, the CLI and the report find it there, and a new suite
is one module (here: one registration in a test) with nothing else to change."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from rich.table import Table

import ssdlab
from ssdlab import suites
from ssdlab.cli import main
from ssdlab.report import render_report
from ssdlab.suites import ReportFigure, Suite, SuiteOptions
from ssdlab.suites._common import result_doc


def test_every_builtin_suite_is_registered_with_help_and_a_runner() -> None:
    reg = suites.registry()
    assert {"cdm", "cdm6", "cdm7", "cdm8", "cdm8-nvme", "fill", "snia-iops", "dbmix"} <= set(reg)
    for name, s in reg.items():
        assert s.name == name and s.help and callable(s.run)
        assert s.options <= {f.name for f in dataclasses.fields(SuiteOptions)} - {"seed"}


def test_unknown_suite_is_a_workload_error_listing_the_names() -> None:
    with pytest.raises(ssdlab.WorkloadError, match="snia-iops") as e:
        suites.get("iozone")
    assert e.value.field == "suite"


def test_a_name_registered_twice_is_an_error() -> None:
    cdm = suites.get("cdm")
    clash = Suite(name="cdm", help="another", run=cdm.run)
    with pytest.raises(ValueError, match="twice"):
        suites.register(clash)
    assert suites.get("cdm") is cdm


@pytest.mark.parametrize(
    ("suite", "option"), [("fill", "runs"), ("snia-iops", "test_size"), ("dbmix", "interval")]
)
def test_an_option_the_suite_does_not_read_is_refused(suite: str, option: str) -> None:
    with pytest.raises(ssdlab.WorkloadError, match=f"suite {suite} does not take") as e:
        suites.get(suite).check(SuiteOptions(**{option: 3 if option == "runs" else "1s"}))  # type: ignore[arg-type]
    # named as the user typed it, with the value given
    value = "3" if option == "runs" else "1s"
    assert (e.value.field, e.value.value) == (f"--{option.replace('_', '-')}", value)


#: Small runs of each suite (a 4 GB bg4-128gb; 24 GB where the method needs more): options the suite reads.
SMALL = {"test_size": "64m", "duration": "200ms", "runs": 1, "interval": "10ms"}
LARGER = {"gamersnexus": 24}  # its 10.3 GB copy and archive need 20.6 GB
LONGER = {"pts": {"runs": 5}}  # its steady-state window needs 5 rounds
SLOW = {"gamersnexus", "pts"}  # ~4-6 s a run


def _each_runner_once() -> list[str]:
    """Every suite name but those that run what an earlier name runs (``iometer`` is another name of
    ``gamersnexus``: the same runner, ~20 s twice)."""
    seen: set[object] = set()
    names = []
    for name, suite in suites.registry().items():
        if suite.run not in seen:
            seen.add(suite.run)
            names.append(name)
    return names


def _small_run(name: str, seed: int) -> str:
    suite = suites.get(name)
    given = {k: v for k, v in SMALL.items() if k in suite.options} | LONGER.get(name, {})
    drive = ssdlab.Drive.from_preset("bg4-128gb", capacity_gb=LARGER.get(name, 4))
    doc = suite.run(drive, SuiteOptions(seed=seed, **given), None).to_dict()  # type: ignore[arg-type]
    return json.dumps(doc, sort_keys=True, default=str)


@pytest.mark.parametrize(
    "name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n for n in _each_runner_once()]
)
def test_every_suite_gives_the_same_result_for_the_same_seed(name: str) -> None:
    assert _small_run(name, seed=7) == _small_run(name, seed=7)


@dataclass
class EchoResult:
    preset: str
    seed: int
    config_toml: str

    def to_dict(self) -> dict[str, object]:
        return result_doc("echo", self)

    def tables(self) -> list[Table]:
        t = Table(title=f"Echo on {self.preset}")
        t.add_column("seed")
        t.add_row(str(self.seed))
        return [t]


# A 1x1 PNG: the figure the echo suite's report section shows.
PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c489"
    "0000000d49444154789c6360000002000001e221bc330000000049454e44ae426082"
)


@pytest.fixture
def echo() -> Iterator[Suite]:
    def run(drive: ssdlab.Drive, o: SuiteOptions, progress: object) -> EchoResult:
        return EchoResult(drive.name, o.seed, drive.config_toml())

    s = suites.register(
        Suite(
            name="echo",
            help="a suite defined in one place",
            run=run,
            options=frozenset({"duration"}),
            figures=lambda r: [ReportFigure("Echo figure", PNG, "a dot", f"seed {r.seed}")],
        )
    )
    yield s
    del suites._REGISTRY["echo"]


def test_a_registered_suite_runs_from_the_cli_and_gets_its_report_section(
    echo: Suite, tmp_path: Path
) -> None:
    argv = ["run", "--suite", "echo", "--preset", "generic-tlc-dram", "--seed", "9", "--out", str(tmp_path)]
    main([*argv, "--json"])  # returns on success (exits only on an error)
    (written,) = tmp_path.glob("generic-tlc-dram-echo-*.json")
    assert json.loads(written.read_text())["seed"] == 9
    html = written.with_suffix(".html").read_text(encoding="utf-8")
    assert "<h3>Echo figure</h3>" in html and "<figcaption>seed 9</figcaption>" in html
    assert "<caption>Echo on generic-tlc-dram</caption>" in html


def test_the_cli_refuses_an_option_of_another_suite(echo: Suite, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["run", "--suite", "echo", "--runs", "3", "--preset", "generic-tlc-dram"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --runs: suite echo does not take this option (its options: --duration)")


def test_plot_for_a_suite_without_one_is_refused(echo: Suite, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["run", "--suite", "echo", "--plot", "x.png", "--preset", "generic-tlc-dram"])
    assert e.value.code == 2
    assert "error: --plot: suite echo draws no plot" in capsys.readouterr().err


def test_report_of_a_suite_without_figures_has_none(echo: Suite) -> None:
    plain = Suite(name="echo", help="", run=echo.run)
    suites._REGISTRY["echo"] = plain
    html = render_report(EchoResult("p", 1, "x = 1\n"))
    assert "<figure>" not in html
