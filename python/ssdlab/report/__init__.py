"""The HTML report of a suite run: one self-contained file a review would show.

The report carries the run's title (suite, preset, seed, ssdlab version, date), the suite's own figures
(its registered report section, :attr:`ssdlab.suites.Suite.figures`: the fill curve for the fill suite) as
inline PNGs, every table the suite prints (each rich :class:`~rich.table.Table` becomes an HTML table with
the same columns and cell text, its title the caption), the drive's counters when the result carries them,
and the drive's full config TOML. No external assets: CSS is inline, images are ``data:`` URIs,
so the file can be mailed, archived or opened offline. The page is a jinja2 template shipped in this package
(``template.html.j2``).

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> import ssdlab
>>> from ssdlab.report import write_report
>>> from ssdlab.suites import run_cdm
>>> drive = ssdlab.Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
>>> res = run_cdm(drive, test_size="16m", runs=1, duration="10ms", warmup="10ms", interval="10ms")
>>> path = write_report(res, Path(tempfile.mkdtemp()) / "cdm.html")
>>> html = path.read_text(encoding="utf-8")
>>> html.startswith("<!DOCTYPE html>"), "<caption>CrystalDiskMark 8 - generic-tlc-dram" in html
(True, True)
"""

from __future__ import annotations

import base64
import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import resources
from io import StringIO
from pathlib import Path

import jinja2
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from ssdlab import suites
from ssdlab.counters import REGISTRY, info
from ssdlab.suites import SuiteResult

__all__ = [
    "HtmlTable",
    "SuiteResult",
    "counters_table",
    "headline_tables",
    "html_table",
    "render_report",
    "write_report",
]

TEMPLATE = "template.html.j2"


@dataclass(frozen=True)
class HtmlCell:
    """One cell's plain text (as rich prints it) and its alignment (``left``, ``right``, ``center``)."""

    text: str
    align: str


@dataclass(frozen=True)
class HtmlTable:
    """A rich table reduced to what HTML needs: caption (rich's title), header cells, rows, note (rich's
    caption)."""

    caption: str
    headers: list[HtmlCell]
    rows: list[list[HtmlCell]]
    note: str = ""


def _plain(renderable: RenderableType | None) -> str:
    """The text rich prints for a title, header or cell, without styles (markup applied, not shown)."""
    if renderable is None:
        return ""
    if isinstance(renderable, str):
        return Text.from_markup(renderable).plain
    if isinstance(renderable, Text):
        return renderable.plain
    console = Console(file=StringIO(), width=10_000, color_system=None, legacy_windows=False)
    with console.capture() as capture:
        console.print(renderable, end="")
    return capture.get().rstrip()


def _align(justify: str) -> str:
    return justify if justify in ("right", "center") else "left"


def html_table(table: Table) -> HtmlTable:
    """``table`` as plain header and cell text with each column's alignment.

    Examples
    --------
    >>> from rich.table import Table
    >>> t = Table(title="Levels \\\\[fill]")
    >>> t.add_column("from")
    >>> t.add_column("MB/s", justify="right")
    >>> t.add_row("0.0%", "[bold]1,234[/bold]")
    >>> h = html_table(t)
    >>> h.caption, [c.text for c in h.headers], [(c.text, c.align) for c in h.rows[0]]
    ('Levels [fill]', ['from', 'MB/s'], [('0.0%', 'left'), ('1,234', 'right')])
    """
    aligns = [_align(c.justify) for c in table.columns]
    headers = [HtmlCell(_plain(c.header), a) for c, a in zip(table.columns, aligns, strict=True)]
    columns = [[_plain(cell) for cell in c.cells] for c in table.columns]
    rows = [
        [HtmlCell(col[i] if i < len(col) else "", a) for col, a in zip(columns, aligns, strict=True)]
        for i in range(table.row_count)
    ]
    return HtmlTable(_plain(table.title), headers, rows, _plain(table.caption))


def _counter(value: float) -> str:
    """A counter as it is printed: integers with thousands separators, else 4 decimals."""
    if not math.isfinite(value):
        return str(value)
    return f"{value:,.0f}" if value == int(value) else f"{value:,.4f}"


def counters_table(
    counters: Mapping[str, float], title: str = "Drive counters over the run", describe: bool = False
) -> Table:
    """The drive's counters, one row each in the registry's order, with the unit (and, with ``describe``, the
    registry's sentence) from :data:`ssdlab.counters.REGISTRY`; ``ssdlab workload`` prints this table too.
    A name the registry does not know raises :class:`ssdlab.counters.UnknownCounterError`.

    Examples
    --------
    >>> t = counters_table({"waf": 1.25, "host_write_bytes": 8192.0}, describe=True)
    >>> [c.header for c in t.columns], list(t.columns[0].cells), list(t.columns[2].cells)
    (['counter', 'value', 'unit', 'meaning'], ['host_write_bytes', 'waf'], ['bytes', 'ratio'])
    """
    defs = [info(name) for name in counters]
    t = Table(title=title)
    t.add_column("counter")
    t.add_column("value", justify="right")
    t.add_column("unit")
    if describe:
        t.add_column("meaning")
    for c in sorted(defs, key=lambda c: _ORDER[c.name]):
        cells = [c.name, _counter(counters[c.name]), c.unit]
        t.add_row(*cells, *([c.description] if describe else []))
    return t


#: A counter's place in the registry, for ordering tables.
_ORDER = {name: i for i, name in enumerate(REGISTRY)}


def headline_tables(doc: Mapping[str, object]) -> list[Table]:
    """The result's headline figures (:func:`ssdlab.suites.headline`, what ``ssdlab compare`` puts side by
    side), as one table; none for a result without any.

    Examples
    --------
    >>> t = headline_tables({"suite": "snia-iops", "window_average_iops": 51234.5, "waf": None})[0]
    >>> list(t.columns[0].cells), list(t.columns[1].cells)
    (['steady-state IOPS', 'WAF', 'steady at round'], ['51,234', '-', '-'])
    """
    figures = suites.headline(doc)
    if not figures:
        return []
    t = Table(title="Headline figures (as ssdlab compare lists them)")
    t.add_column("figure")
    t.add_column("value", justify="right")
    t.add_column("unit")
    for h in figures:
        value = "-" if h.value is None else f"{h.value:,.0f}" if abs(h.value) >= 100 else f"{h.value:,.3g}"
        t.add_row(h.name, value, h.unit)
    return [t]


@dataclass(frozen=True)
class HtmlFigure:
    """A suite's figure as the template shows it: the PNG as base64."""

    title: str
    png_base64: str
    alt: str
    caption: str


@functools.cache
def _template() -> jinja2.Template:
    text = resources.files(__name__).joinpath(TEMPLATE).read_text(encoding="utf-8")
    env = jinja2.Environment(
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True
    )
    return env.from_string(text)


def render_report(result: SuiteResult, created: datetime | None = None) -> str:
    """The report of ``result`` as one HTML document (a string); ``created`` defaults to now (UTC)."""
    created = created or datetime.now(UTC)
    doc = result.to_dict()
    seed = doc.get("seed")
    counters = getattr(result, "counters", None)
    suite = suites.get(str(doc["suite"]))
    figures = [
        HtmlFigure(f.title, base64.b64encode(f.png).decode("ascii"), f.alt, f.caption)
        for f in (suite.figures(result) if suite.figures is not None else [])
    ]
    return _template().render(
        suite=str(doc["suite"]),
        preset=str(doc["preset"]),
        seed="not used" if seed is None else str(seed),
        version=str(doc["ssdlab_version"]),
        created_iso=created.isoformat(timespec="seconds"),
        created=created.strftime("%Y-%m-%d %H:%M:%S %Z").strip(),
        tables=[html_table(t) for t in (*result.tables(), *headline_tables(doc))],
        figures=figures,
        counters=None if not counters else html_table(counters_table(counters, describe=True)),
        config_toml=str(doc["config_toml"]),
    )


def write_report(result: SuiteResult, path: str | Path, created: datetime | None = None) -> Path:
    """Write the HTML report of ``result`` to ``path`` (folders are made) and return the path.

    Parameters
    ----------
    result
        What a suite returned (any registered suite: :func:`ssdlab.suites.registry`).
    path
        The ``.html`` file to write; ``ssdlab run`` puts it beside the run's JSON, with the same name.
    created
        When the run was made, shown in the title; defaults to now (UTC).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import ssdlab
    >>> from ssdlab.suites import run_fill
    >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
    >>> path = write_report(run_fill(drive), Path(tempfile.mkdtemp()) / "sub" / "fill.html")
    >>> html = path.read_text(encoding="utf-8")
    >>> '<img src="data:image/png;base64,' in html, "<summary>Drive config (TOML)</summary>" in html
    (True, True)
    """
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(render_report(result, created), encoding="utf-8")
    return out
