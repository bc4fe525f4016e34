"""The HTML report of one or more suite results: one self-contained file a review would show.

For each result: a header (suite, preset, seed, ssdlab version, date, and what the drive changes against
the preset it names: a scaled-down drive says so in words), pictures (:mod:`ssdlab.report.plots`: every
:attr:`ssdlab.suites.Suite.curves` plot, overlaid across results of the same suite, the fill's phases and
published curve, a suite's own :attr:`~ssdlab.suites.Suite.figures`, and from the per-interval series
(:mod:`ssdlab.series`) throughput over time and latency exceedance curves), every table the suite prints
(each rich :class:`~rich.table.Table` becomes an HTML table with the same columns and cell text, its title
the caption), the headline figures, the drive's counters and its full config TOML. With ``ssdlab validate``
rows, a table of published figures against the model with the error in % and a mark over 10%.

``ssdlab run`` writes one beside its JSON (and saves the tables and series so that ``ssdlab report
RESULTS... -o report.html`` can draw it again from the files). No external assets: CSS is inline, images
are ``data:`` URIs, no scripts, so the file can be mailed, archived or opened offline. The page is a jinja2
template shipped in this package (``template.html.j2``).

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
import json
import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from importlib import resources
from io import StringIO
from pathlib import Path
from typing import Any

import jinja2
from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from ssdlab import suites
from ssdlab.counters import REGISTRY, format_value, info
from ssdlab.drive import Drive
from ssdlab.errors import workload_error
from ssdlab.presets import list_presets
from ssdlab.report.plots import Picture, curve_figures, series_figures
from ssdlab.series import SavedSeries, read_series, series_path
from ssdlab.suites import ReportFigure, SuiteResult
from ssdlab.suites._reference import format_published
from ssdlab.target import TARGET_MARK

__all__ = [
    "Entry",
    "HtmlTable",
    "Override",
    "SuiteResult",
    "counters_table",
    "entry_of",
    "entry_of_doc",
    "headline_tables",
    "html_table",
    "load_entry",
    "overrides",
    "render_entries",
    "render_report",
    "saved_tables",
    "validate_table",
    "write_entries",
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
    >>> list(counters_table({"waf": 0.0, "host_write_bytes": 0.0}).columns[1].cells)  # reads only: no WAF
    ['0', '-']
    >>> t = counters_table({"waf": float("nan"), "host_write_bytes": 8192.0})  # a real target's
    >>> list(t.columns[0].cells), t.caption
    (['host_write_bytes'], '1 more counter is inside the drive: a real target does not show it')
    """
    defs = [info(name) for name in counters]
    # a real target (fio on a file or device) sees only the host's side: its other counters are NaN (None in
    # a saved JSON), rows of dashes that say nothing
    hidden = [c for c in defs if counters[c.name] is None or not math.isfinite(counters[c.name])]
    defs = [c for c in defs if c not in hidden]
    t = Table(title=title)
    if hidden:
        many = len(hidden) > 1
        more = f"{len(hidden)} more counter{'s are' if many else ' is'}"
        t.caption = f"{more} inside the drive: a real target does not show {'them' if many else 'it'}"
    t.add_column("counter")
    t.add_column("value", justify="right")
    t.add_column("unit")
    if describe:
        t.add_column("meaning")
    for c in sorted(defs, key=lambda c: _ORDER[c.name]):
        cells = [c.name, format_value(counters, c.name), c.unit]
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
    """A figure as the template shows it: the PNG as base64."""

    title: str
    png_base64: str
    alt: str
    caption: str


@dataclass(frozen=True)
class Override:
    """One config value that differs from the preset the result names."""

    path: str
    preset: str
    value: str


@dataclass
class Entry:
    """One result in a report: its dict, its tables, its own figures and its per-interval series."""

    label: str
    doc: dict[str, Any]
    tables: list[HtmlTable]
    figures: list[HtmlFigure] = field(default_factory=list)
    series: SavedSeries | None = None
    source: str = ""


def _flat(d: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        path = f"{prefix}{k}"
        if isinstance(v, Mapping):
            out.update(_flat(v, path + "."))
        else:
            out[path] = v
    return out


def overrides(doc: Mapping[str, Any]) -> list[Override] | None:
    """What the result's drive config changes against the built-in preset it names (``--set``,
    ``--scale-capacity-gb``), or None when the preset is not built in (a TOML drive, a real target).

    Examples
    --------
    >>> import ssdlab
    >>> d = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16})
    >>> doc = {"preset": "bg4-1tb", "config_toml": d.config_toml()}
    >>> [(o.path, o.preset, o.value) for o in overrides(doc)]
    [('ftl.user_capacity_gb', '1024', '16')]
    """
    preset = str(doc.get("preset", ""))
    text = doc.get("config_toml")
    if preset not in list_presets() or not isinstance(text, str) or not text:
        return None
    mine = _flat(tomllib.loads(text))
    full = _flat(tomllib.loads(Drive.from_preset(preset).config_toml()))
    out = []
    for path in sorted(set(mine) | set(full)):
        a, b = full.get(path), mine.get(path)
        if a != b:
            out.append(Override(path, "-" if a is None else _value(a), "-" if b is None else _value(b)))
    return out


def _value(v: Any) -> str:
    if isinstance(v, float) and v == int(v):
        return str(int(v))
    return str(v)


def validate_table(rows: Sequence[Mapping[str, Any]], limit_pct: float = 10.0) -> Table:
    """Published figures against the model (``ssdlab validate``'s rows, as dicts), with the error in % and
    a mark where it is over ``limit_pct``.

    Examples
    --------
    >>> t = validate_table([{"drive": "d", "figure": "cdm.seq", "source": "s", "published": 100,
    ...                      "model": 112.0, "unit": "MB/s", "error_pct": 12.0, "fit": False}])
    >>> [list(c.cells)[0] for c in t.columns][-3:]
    ['+12.0%', 'hold-out', 'over 10%']
    """
    quick = any(r.get("quick") for r in rows)
    title = f"Published figures against the model (error over {limit_pct:g}% marked)"
    t = Table(title=title + (" - QUICK runs marked: the machinery checked, not the figures" if quick else ""))
    for col in ("drive", "figure", "source", "published", "model", "unit", "error", "sample", "mark"):
        t.add_column(col, justify="right" if col in ("published", "model", "error") else "left")
    for r in rows:
        err = r.get("error_pct")
        fit = r.get("fit")
        sample = "in-sample" if fit else "hold-out" if fit is False else "-"
        over = isinstance(err, int | float) and abs(err) > limit_pct
        t.add_row(
            str(r.get("drive", "")),
            str(r.get("figure", "")),
            str(r.get("source", "")),
            format_published(r.get("published")),
            format_published(r.get("model")),
            str(r.get("unit", "")),
            "-" if not isinstance(err, int | float) else f"{err:+.1f}%",
            sample,
            ", ".join(
                m for m in (f"over {limit_pct:g}%" if over else "", "quick" if r.get("quick") else "") if m
            ),
        )
    return t


@functools.cache
def _template() -> jinja2.Template:
    text = resources.files(__name__).joinpath(TEMPLATE).read_text(encoding="utf-8")
    env = jinja2.Environment(
        autoescape=True, undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True
    )
    return env.from_string(text)


def _b64(p: Picture | ReportFigure) -> HtmlFigure:
    return HtmlFigure(p.title, base64.b64encode(p.png).decode("ascii"), p.alt, p.caption)


def entry_of(result: SuiteResult, series: SavedSeries | None = None, label: str = "") -> Entry:
    """An :class:`Entry` of a suite's result object (its tables and registered figures included)."""
    doc = result.to_dict()
    suite = suites.get(str(doc["suite"]))
    tables = [html_table(t) for t in result.tables()]
    figures = [_b64(f) for f in (suite.figures(result) if suite.figures is not None else [])]
    return Entry(label or str(doc["preset"]), doc, tables, figures, series, "this run")


def saved_tables(result: SuiteResult) -> list[dict[str, Any]]:
    """The result's printed tables, JSON-ready (``ssdlab run`` saves them as ``report_tables`` so that
    ``ssdlab report`` can show them from the JSON alone)."""
    return [asdict(html_table(t)) for t in result.tables()]


def _cell(c: Mapping[str, Any]) -> HtmlCell:
    return HtmlCell(str(c["text"]), str(c["align"]))


def _tables_of(doc: Mapping[str, Any]) -> list[HtmlTable]:
    out = []
    for t in doc.get("report_tables") or []:
        out.append(
            HtmlTable(
                str(t["caption"]),
                [_cell(c) for c in t["headers"]],
                [[_cell(c) for c in row] for row in t["rows"]],
                str(t.get("note", "")),
            )
        )
    return out


def entry_of_doc(label: str, doc: Mapping[str, Any], source: str = "") -> Entry:
    """An :class:`Entry` of a result dict (a saved JSON's tables and a series file beside ``source`` are
    used when there are any)."""
    series = None
    if source:
        sp = series_path(source)
        series = read_series(sp) if sp.exists() else None
    return Entry(label, dict(doc), _tables_of(doc), [], series, source or "this run")


def load_entry(path: str | Path) -> Entry:
    """An :class:`Entry` of a saved result JSON (``ssdlab run``'s), with the series file beside it if any."""
    p = Path(path)
    try:
        doc = json.loads(p.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise workload_error("RESULTS", f"cannot read a result JSON: {e}", str(p)) from None
    if not isinstance(doc, dict) or "suite" not in doc:
        raise workload_error("RESULTS", "not a result of ssdlab run (no 'suite')", str(p))
    sp = series_path(p)
    series = read_series(sp) if sp.exists() else None
    return Entry(f"{doc.get('preset', p.stem)}", doc, _tables_of(doc), [], series, str(p))


def _unique_labels(entries: Sequence[Entry]) -> None:
    seen: dict[str, int] = {}
    for e in entries:
        seen[e.label] = seen.get(e.label, 0) + 1
    counts: dict[str, int] = {}
    for e in entries:
        if seen[e.label] > 1:
            counts[e.label] = counts.get(e.label, 0) + 1
            e.label = f"{e.label} #{counts[e.label]}"


def render_entries(
    entries: Sequence[Entry],
    created: datetime | None = None,
    validate_rows: Sequence[Mapping[str, Any]] | None = None,
    title: str | None = None,
    lead_tables: Sequence[Table] = (),
    lead_figures: Sequence[Picture | ReportFigure] = (),
) -> str:
    """One HTML document of several results: ``lead_figures`` and ``lead_tables`` first (``ssdlab compare``'s
    table, a sweep's sensitivity plots), then each result with its header (what was overridden), pictures
    (the suites' curves, overlaid across results of the same suite; the per-interval series), tables,
    counters and config; then the published-vs-model table when ``validate_rows`` are given."""
    created = created or datetime.now(UTC)
    _unique_labels(list(entries))
    by_suite: dict[str, list[Entry]] = {}
    for e in entries:
        by_suite.setdefault(str(e.doc.get("suite")), []).append(e)
    overlay = {
        suite: [_b64(p) for p in curve_figures([(e.label, e.doc) for e in group])]
        for suite, group in by_suite.items()
    }
    shown: set[str] = set()
    sections = []
    for e in entries:
        doc = e.doc
        suite = str(doc.get("suite"))
        seed = doc.get("seed")
        counters = doc.get("counters")
        pictures = list(e.figures)
        if suite not in shown:  # the suite's curves once, over every result of the suite
            pictures += overlay[suite]
            shown.add(suite)
        if e.series is not None:
            pictures += [_b64(p) for p in series_figures(e.label, e.series)]
        ov = overrides(doc)
        try:
            heads = [html_table(t) for t in headline_tables(doc)]
        except Exception:  # a suite this version does not know
            heads = []
        sections.append(
            {
                "label": e.label,
                "suite": suite,
                "preset": str(doc.get("preset", "")),
                "seed": "not used" if seed is None else str(seed),
                "version": str(doc.get("ssdlab_version", "")),
                "created": str(doc.get("created_utc", "")),
                "source": e.source,
                "overrides": ov,
                "scaled": scaled_note(ov),
                "figures": pictures,
                "tables": [*e.tables, *heads],
                "counters": (
                    html_table(counters_table(counters, describe=True))
                    if isinstance(counters, Mapping) and counters and _known(counters)
                    else None
                ),
                "config_toml": str(doc.get("config_toml", "")),
                "target": str(doc.get("config_toml", "")).startswith(TARGET_MARK),
            }
        )
    first = entries[0].doc if entries else {}
    if title is None:
        title = (
            f"ssdlab {first.get('suite')} - {first.get('preset')}"
            if len(entries) == 1
            else f"ssdlab report - {len(entries)} results"
        )
    return _template().render(
        title=title,
        single=len(entries) == 1,
        sections=sections,
        validate=None if validate_rows is None else html_table(validate_table(validate_rows)),
        lead_tables=[html_table(t) for t in lead_tables],
        lead_figures=[_b64(f) for f in lead_figures],
        version=str(first.get("ssdlab_version", "")),
        created_iso=created.isoformat(timespec="seconds"),
        created=created.strftime("%Y-%m-%d %H:%M:%S %Z").strip(),
    )


def _known(counters: Mapping[str, Any]) -> bool:
    return all(name in REGISTRY for name in counters)


#: Blocks a plane under which a scaled-down drive's garbage collection runs unevenly across its dies (each die
#: keeps only a few spare blocks): bg4-512gb scaled to 4 GB (14 a plane), filled, then 4 KiB random writes
#: over a quarter of it (half its capacity written, QD32), moves 4.5 pages by GC per host page, against 0.9
#: at 8 GB (22 a plane), 0.66 at 16 GB (37) and 0.63 at 64 GB (127).
FEW_BLOCKS = 32


def scaled_note(ov: list[Override] | None) -> str:
    """A warning when the drive is not the preset as shipped (most of all a scaled-down capacity), and when a
    scaled-down drive keeps so few blocks a plane that its garbage collection is not the full drive's.

    Examples
    --------
    >>> note = scaled_note([Override("ftl.user_capacity_gb", "512", "8"),
    ...                     Override("nand.blocks_per_plane", "974", "22")])
    >>> note.startswith("Scaled-down drive: 8 GB user capacity instead of the preset's 512 GB")
    True
    >>> note[note.index("Only"):note.index(":", note.index("Only"))]
    'Only 22 blocks a plane (the preset has 974)'
    """
    if ov is None:
        return ""
    cap = next((o for o in ov if o.path == "ftl.user_capacity_gb"), None)
    if cap is not None:
        note = (
            f"Scaled-down drive: {cap.value} GB user capacity instead of the preset's {cap.preset} GB; "
            "its figures are not the full preset's."
        )
        blocks = next((o for o in ov if o.path == "nand.blocks_per_plane"), None)
        if blocks is not None and blocks.value.isdigit() and int(blocks.value) < FEW_BLOCKS:
            note += (
                f" Only {blocks.value} blocks a plane (the preset has {blocks.preset}): with under "
                f"{FEW_BLOCKS}, each die keeps so few spare blocks that garbage collection runs unevenly "
                "across the dies; steady-state figures want a few hundred."
            )
        return note
    return "Not the preset as shipped: the values below were overridden." if ov else ""


def render_report(
    result: SuiteResult, created: datetime | None = None, series: SavedSeries | None = None
) -> str:
    """The report of ``result`` as one HTML document (a string); ``created`` defaults to now (UTC)."""
    return render_entries([entry_of(result, series)], created)


def write_report(
    result: SuiteResult,
    path: str | Path,
    created: datetime | None = None,
    series: SavedSeries | None = None,
) -> Path:
    """Write the HTML report of ``result`` to ``path`` (folders are made) and return the path.

    Parameters
    ----------
    result
        What a suite returned (any registered suite: :func:`ssdlab.suites.registry`).
    path
        The ``.html`` file to write; ``ssdlab run`` puts it beside the run's JSON, with the same name.
    created
        When the run was made, shown in the title; defaults to now (UTC).
    series
        The run's per-interval series (:mod:`ssdlab.series`), drawn when given.

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
    out.write_text(render_report(result, created, series), encoding="utf-8")
    return out


def write_entries(
    entries: Sequence[Entry],
    path: str | Path,
    created: datetime | None = None,
    validate_rows: Sequence[Mapping[str, Any]] | None = None,
    title: str | None = None,
    lead_tables: Sequence[Table] = (),
    lead_figures: Sequence[Picture | ReportFigure] = (),
) -> Path:
    """Write :func:`render_entries` to ``path`` (folders are made)."""
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    html = render_entries(entries, created, validate_rows, title, lead_tables, lead_figures)
    out.write_text(html, encoding="utf-8")
    return out
