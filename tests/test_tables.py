"""Tables on a narrow terminal: split by columns into parts that fit, each repeating the columns that name
its rows, never a figure cut short to ``…``."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from rich.console import Console
from rich.table import Table

import ssdlab
from ssdlab.suites import run_cdm
from ssdlab.tables import fit_to_width
from test_cli import SMALL, ssdlab_cli


def _text(renderable: object, width: int) -> str:
    console = Console(width=width, file=io.StringIO())
    console.print(renderable)
    return console.file.getvalue()  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def table() -> Table:
    """CrystalDiskMark's result table: seven columns, about 80 wide."""
    drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16})
    res = run_cdm(drive, test_size="16m", runs=1, duration="10ms", warmup="10ms", interval="10ms")
    return res.tables()[0]


def test_a_table_wider_than_the_screen_is_split_with_every_figure_whole(table: Table) -> None:
    parts = fit_to_width(table, 60)
    assert len(parts) > 1
    shown = [_text(p, 60) for p in parts]
    assert all(max(map(len, s.splitlines())) <= 60 and "…" not in s for s in shown)
    assert all("SEQ1M Q8T1" in s and "RND4K Q1T1" in s for s in shown)  # each part names its rows
    headers = [c.header for c in table.columns]
    assert [h for p in parts for h in [c.header for c in p.columns][1:]] == headers[1:]  # each column once
    for column in table.columns[1:]:  # and every figure whole
        assert all(any(str(cell) in s for s in shown) for cell in column.cells)


def test_a_table_that_fits_is_printed_as_it_is(table: Table) -> None:
    assert fit_to_width(table, 400) == [table]


def test_run_on_a_narrow_terminal_prints_every_figure_whole(tmp_path: Path) -> None:
    args = ["--preset", "bg4-1tb", *SMALL, "--suite", "cdm", "--test-size", "16m", "--runs", "1"]
    out = ssdlab_cli(
        "run", *args, "--duration", "10ms", "--interval", "10ms", "--out", str(tmp_path), columns=60
    )
    assert out.returncode == 0, out.stderr
    assert "…" not in out.stdout
    assert "(1 of " in out.stdout and "RND4K Q1T1" in out.stdout
