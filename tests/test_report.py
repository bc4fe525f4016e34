"""The HTML report (ssdlab.report) and ``ssdlab run`` writing it: read with html.parser, and drawn by a real
browser (Debian's chromium, which ``make sysdeps`` installs; these tests do not skip without it)."""

from __future__ import annotations

import base64
import io
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import matplotlib.image
import numpy as np
import pytest
from rich.console import Console
from rich.table import Table
from rich.text import Text

import ssdlab
from ssdlab.counters import info
from ssdlab.report import write_report
from ssdlab.suites import CdmResult, FillResult, run_cdm, run_fill
from ssdlab.target import TARGET_MARK

#: As tests/test_fill.py: a 16 GB bg4-1tb on 36 blocks per plane, SLC cache, TLC and folding levels in ~0.2 s.
SMALL_FILL = {"ftl.user_capacity_gb": 16, "nand.blocks_per_plane": 36}
FAST_CDM = {"test_size": "64m", "runs": 2, "duration": "50ms", "warmup": "20ms", "interval": "100ms"}
SSDLAB = Path(sys.executable).parent / "ssdlab"


@dataclass
class ParsedTable:
    caption: str = ""
    headers: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)


class ReportParser(HTMLParser):
    """The parts of the report the tests read: tables, images, <details> summaries and <pre> text, and every
    tag with the attributes that could load something from outside."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[ParsedTable] = []
        self.images: list[str] = []
        self.summaries: list[str] = []
        self.pres: list[str] = []
        self.details_open: list[bool] = []
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.title = ""
        self._text: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "table":
            self.tables.append(ParsedTable())
        elif tag == "tr" and self.tables:
            self.tables[-1].rows.append([])
        elif tag == "img":
            self.images.append(dict(attrs).get("src") or "")
        elif tag == "details":
            self.details_open.append("open" in dict(attrs))
        if tag in ("caption", "th", "td", "summary", "pre", "title"):
            self._text = []

    def handle_data(self, data: str) -> None:
        if self._text is not None:
            self._text.append(data)

    def handle_endtag(self, tag: str) -> None:
        if self._text is None or tag not in ("caption", "th", "td", "summary", "pre", "title"):
            return
        text, self._text = "".join(self._text), None
        if tag == "caption":
            self.tables[-1].caption = text
        elif tag == "th":
            self.tables[-1].headers.append(text)
            self.tables[-1].rows[-1].append(text)  # the header row, dropped below
        elif tag == "td":
            self.tables[-1].rows[-1].append(text)
        elif tag == "summary":
            self.summaries.append(text)
        elif tag == "pre":
            self.pres.append(text)
        else:
            self.title = text

    def close(self) -> None:
        super().close()
        for t in self.tables:
            t.rows = [r for r in t.rows if r and r != t.headers]


def parse(html: str) -> ReportParser:
    p = ReportParser()
    p.feed(html)
    p.close()
    return p


def printed(table: Table) -> str:
    """The table as ``ssdlab run`` prints it, wide enough that no cell wraps."""
    console = Console(file=io.StringIO(), width=400, color_system=None)
    console.print(table)
    return console.file.getvalue()  # type: ignore[attr-defined, no-any-return]


def plain(title: object) -> str:
    return Text.from_markup(title).plain if isinstance(title, str) else str(title)


@pytest.fixture(scope="module")
def fill_result() -> FillResult:
    return run_fill(ssdlab.Drive.from_preset("bg4-1tb", set=SMALL_FILL))


@pytest.fixture(scope="module")
def cdm_result() -> CdmResult:
    drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16})
    return run_cdm(drive, version="8", seed=3, **FAST_CDM)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def fill_html(fill_result: FillResult, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_report(fill_result, tmp_path_factory.mktemp("report") / "fill.html")


@pytest.fixture(scope="module")
def cdm_html(cdm_result: CdmResult, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_report(cdm_result, tmp_path_factory.mktemp("report") / "cdm.html")


def assert_has_the_printed_tables(report: ReportParser, tables: list[Table]) -> None:
    """Every table the suite prints is in the report, in order: its title as the caption, the same header
    cells, the same number of rows, and every cell's text as rich prints it."""
    assert len(report.tables) >= len(tables)
    for parsed, table in zip(report.tables, tables, strict=False):
        assert parsed.caption == plain(table.title)
        assert parsed.headers == [plain(c.header) for c in table.columns]
        assert len(parsed.rows) == table.row_count
        text = printed(table)
        for row in parsed.rows:
            assert len(row) == len(table.columns)
            for cell in row:
                assert cell in text, f"{cell!r} is not printed by {parsed.caption!r}"


def test_fill_report_has_the_tables_the_numbers_and_the_plot(
    fill_result: FillResult, fill_html: Path
) -> None:
    report = parse(fill_html.read_text(encoding="utf-8"))
    tables = fill_result.tables()
    assert_has_the_printed_tables(report, tables)
    curve, levels = report.tables[0], report.tables[1]
    assert curve.caption.startswith("Whole-drive fill - bg4-1tb - 16 GB")
    assert f"average {fill_result.average_mbps:,.0f} MB/s" in curve.caption
    assert curve.headers == [
        "GB",
        "fill",
        "MB/s",
        "SLC used GB",
        "SLC size GB",
        "folded GB",
        "SLC written GB",
    ]
    # One row per GB, each with the MB/s and fill level as the table prints them.
    assert [r[2] for r in curve.rows] == [f"{p.mbps:,.0f}" for p in fill_result.points]
    assert [r[1] for r in curve.rows] == [f"{p.fill_end:.1%}" for p in fill_result.points]
    assert [r[3] for r in levels.rows] == [f"{lv.mbps:,.0f}" for lv in fill_result.levels()]
    # The curve as an inline PNG that decodes.
    (src,) = report.images
    prefix = "data:image/png;base64,"
    assert src.startswith(prefix)
    png = base64.b64decode(src[len(prefix) :], validate=True)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    pixels = matplotlib.image.imread(io.BytesIO(png), format="png")
    assert pixels.shape[0] > 200 and pixels.shape[1] > 400
    # The headline figures (as ssdlab compare lists them), then the drive's counters (fill carries them).
    assert report.tables[len(tables)].headers == ["figure", "value", "unit"]
    counters = report.tables[len(tables) + 1]
    assert counters.headers == ["counter", "value", "unit", "meaning"]
    shown = dict((r[0], r[1]) for r in counters.rows)
    assert shown.keys() == fill_result.counters.keys()
    # unit and meaning come from the registry
    row = next(r for r in counters.rows if r[0] == "free_blocks")
    assert (row[2], row[3]) == (info("free_blocks").unit, info("free_blocks").description)
    assert shown["host_write_bytes"] == f"{fill_result.counters['host_write_bytes']:,.0f}" == "16,000,000,000"


def test_cdm_report_has_both_tables_and_the_numbers(cdm_result: CdmResult, cdm_html: Path) -> None:
    report = parse(cdm_html.read_text(encoding="utf-8"))
    tables = cdm_result.tables()
    assert len(tables) == 3  # the grid, the spec sheet beside it, the internals
    assert_has_the_printed_tables(report, tables)
    # no counters of its own (they are per test, in the last table); the headline figures last
    assert len(report.tables) == 4
    assert report.images == []
    grid, _spec, internals, headline = report.tables
    assert ["SEQ1M Q8T1 read MB/s", f"{cdm_result.rows[0].mbps:,.0f}", "MB/s"] in headline.rows
    assert grid.caption.startswith("CrystalDiskMark 8 - bg4-1tb - 64m test file, 2 x 0.05 s - seed 3")
    assert grid.headers == ["test", "Read MB/s", "IOPS", "lat us", "Write MB/s", "IOPS", "lat us"]
    assert [r[0] for r in grid.rows] == ["SEQ1M Q8T1", "SEQ1M Q1T1", "RND4K Q32T1", "RND4K Q1T1"]
    for cells in grid.rows:
        read, write = cdm_result.row(cells[0], "read"), cdm_result.row(cells[0], "write")
        assert cells[1:4] == [f"{read.mbps:,.2f}", f"{read.iops:,.0f}", f"{read.latency_us:,.1f}"]
        assert cells[4:] == [f"{write.mbps:,.2f}", f"{write.iops:,.0f}", f"{write.latency_us:,.1f}"]
    assert internals.caption.startswith("Drive internals per test")
    assert [r[0] for r in internals.rows][:2] == ["test file write", "SEQ1M Q8T1 read"]


def test_report_title_names_suite_preset_seed_version_and_date(cdm_html: Path, fill_html: Path) -> None:
    cdm, fill = (parse(p.read_text(encoding="utf-8")) for p in (cdm_html, fill_html))
    assert cdm.title == "ssdlab cdm8 - bg4-1tb" and fill.title == "ssdlab fill - bg4-1tb"
    html = cdm_html.read_text(encoding="utf-8")
    for text in ("<dt>seed</dt><dd>3</dd>", f"<dd>{ssdlab.__version__}</dd>", "<time datetime="):
        assert text in html


def test_report_is_self_contained_with_the_config_collapsed(cdm_result: CdmResult, cdm_html: Path) -> None:
    report = parse(cdm_html.read_text(encoding="utf-8"))
    for tag, attrs in report.tags:
        assert tag not in ("script", "link", "iframe", "object"), tag
        assert all((attrs.get(a) or "data:").startswith("data:") for a in ("src", "href")), (tag, attrs)
        for name in ("src", "href"):
            value = attrs.get(name)
            assert value is None or value.startswith("data:"), (tag, name, value)
    assert report.details_open == [False]
    assert report.summaries == ["Drive config (TOML)"]
    assert report.pres == [cdm_result.config_toml]  # escaped in HTML, the same text once parsed


def test_run_writes_the_report_beside_the_json_and_prints_its_path(tmp_path: Path) -> None:
    args = ["--preset", "bg4-1tb", "--set", "ftl.user_capacity_gb=16", "--suite", "cdm", "--test-size", "64m"]
    env = {**os.environ, "COLUMNS": "200"}
    cmd = [
        str(SSDLAB),
        "run",
        *args,
        "--runs",
        "1",
        "--duration",
        "20ms",
        "--interval",
        "0.1s",
        "--seed",
        "5",
    ]
    out = subprocess.run(
        [*cmd, "--out", "res"], capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env
    )
    assert out.returncode == 0, out.stderr
    (json_file,) = (tmp_path / "res").glob("bg4-1tb-cdm-*.json")
    (html_file,) = (tmp_path / "res").glob("bg4-1tb-cdm-*.html")
    assert html_file == json_file.with_suffix(".html")
    assert f"wrote {Path('res') / html_file.name}" in out.stdout.splitlines()
    report = parse(html_file.read_text(encoding="utf-8"))
    assert report.tables[0].caption.startswith(
        "CrystalDiskMark 8 - bg4-1tb - 64m test file, 1 x 0.02 s - seed 5"
    )
    # With --json the JSON alone is on stdout; the paths go to stderr.
    out = subprocess.run(
        [*cmd, "--json", "--out", str(tmp_path / "j")], capture_output=True, text=True, timeout=120, env=env
    )
    assert out.returncode == 0, out.stderr
    (html_file,) = (tmp_path / "j").glob("*.html")
    assert f"wrote {html_file}" in out.stderr.splitlines()
    assert out.stdout.lstrip().startswith("{")


def chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, "chromium is not installed: `make sysdeps` installs it (Debian package chromium)"
    return path


def test_report_renders_in_headless_chromium(fill_html: Path, tmp_path: Path) -> None:
    """The fill report (tables, plot, counters) as a person would see it: a screenshot that is not blank."""
    page = fill_html
    shot = tmp_path / "shot.png"
    cmd = [
        chromium(),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        f"--user-data-dir={tmp_path / 'profile'}",
        f"--screenshot={shot}",
        "--window-size=1200,2000",
        page.resolve().as_uri(),
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and shot.exists(), out.stderr
    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[:2] == (2000, 1200)
    rgb = (pixels[..., :3] * 255).round().astype(np.uint8).reshape(-1, 3)
    # Text, table rules and (for fill) the plot: many colours, and a fair share of the page not white.
    assert len(np.unique(rgb, axis=0)) > 50
    assert (rgb.min(axis=1) < 200).mean() > 0.01


# ------------------------------------------------------------------ ssdlab report over saved results


#: Published-vs-model rows as `ssdlab validate --json` writes them: one within 10%, one over, one of a drive
#: that is not in the report (left out).
VALIDATE_ROWS = [
    {"drive": "bg4-128gb", "figure": "fill.fill_avg_MBps", "source": "a review", "published": 200.0,
     "model": 210.0, "unit": "MB/s", "error_pct": 5.0, "fit": True},
    {"drive": "bg4-128gb", "figure": "cdm.seq_write_MBps", "source": "a brief", "published": 1000.0,
     "model": 1250.0, "unit": "MB/s", "error_pct": 25.0, "fit": False},
    {"drive": "bg4-1tb", "figure": "cdm.seq_read_MBps", "source": "a brief", "published": 2300.0,
     "model": 2000.0, "unit": "MB/s", "error_pct": -13.0, "fit": False},
]  # fmt: skip


@dataclass
class Saved:
    folder: Path
    results: list[Path]
    report: Path


def run_cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    out = subprocess.run([str(SSDLAB), *args], capture_output=True, text=True, timeout=300, cwd=cwd, env=env)
    assert out.returncode == 0, out.stderr
    return out


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Saved:
    """A scaled-down fill of bg4-128gb (a drive with a published fill curve) and a scaled-down PTS run,
    saved by `ssdlab run`, then `ssdlab report` of both with validate rows."""
    d = tmp_path_factory.mktemp("saved")
    run_cli(
        "run", "--preset", "bg4-128gb", "--scale-capacity-gb", "16", "--suite", "fill", "--out", "r", cwd=d
    )
    run_cli(
        "run", "--preset", "generic-tlc-dram", "--scale-capacity-gb", "2", "--suite", "pts",
        "--duration", "0.2s", "--runs", "5", "--out", "r", cwd=d,
    )  # fmt: skip
    (d / "validate.json").write_text(json.dumps(VALIDATE_ROWS), encoding="utf-8")
    results = sorted((d / "r").glob("*.json"))
    out = run_cli("report", *map(str, results), str(d / "validate.json"), "-o", "report.html", cwd=d)
    assert out.stdout.strip().endswith("report.html")
    return Saved(d, results, d / "report.html")


def test_series_are_saved_as_parquet_beside_the_json_with_the_documented_schema(saved: Saved) -> None:
    import pyarrow as pa

    from ssdlab.series import SCHEMA, read_series, series_path

    for result in saved.results:
        s = read_series(series_path(result))
        assert s.table.schema.remove_metadata() == SCHEMA
        assert SCHEMA.names == [
            "run", "label", "time_s", "read_mbps", "write_mbps", "iops", "mean_latency_us",
            "max_latency_us", "p50_latency_us", "p99_latency_us", "p999_latency_us", "power_w",
            "temperature_c", "read_iops", "write_iops", "read_mean_latency_us", "write_mean_latency_us",
        ]  # fmt: skip
        runs = s.table.column("run").to_numpy()
        assert runs.min() == 0 and (np.diff(runs) >= 0).all()  # in the order they ran
        assert len(s.runs) >= runs.max() + 1
        # within a run the intervals follow each other
        t = s.table.column("time_s").to_numpy()
        assert all((np.diff(t[runs == r]) > 0).all() for r in np.unique(runs))
        assert pa.compute.max(s.table.column("write_mbps")).as_py() > 0
        # each interval's percentiles are in order and below its maximum
        cols = {c: s.table.column(c).to_numpy() for c in ("iops", "p50_latency_us", "p99_latency_us")}
        busy = cols["iops"] > 0
        p999, top = (s.table.column(c).to_numpy()[busy] for c in ("p999_latency_us", "max_latency_us"))
        assert (0 < cols["p50_latency_us"][busy]).all()
        assert (cols["p50_latency_us"][busy] <= cols["p99_latency_us"][busy]).all()
        assert (cols["p99_latency_us"][busy] <= p999).all() and (p999 <= top).all()
    doc = json.loads(saved.results[0].read_text(encoding="utf-8"))
    fill_runs = read_series(series_path(saved.results[0])).runs
    # the fill wrote the capacity in 128 KiB QD32 runs, one per GB
    assert {r["label"] for r in fill_runs} >= {"write 128k QD32 T1"}
    assert len(fill_runs) >= len(doc["points"])


def test_report_of_saved_results_has_every_table_the_pictures_and_the_validate_marks(saved: Saved) -> None:
    html = saved.report.read_text(encoding="utf-8")
    report = parse(html)
    captions = [t.caption for t in report.tables]
    for result in saved.results:
        doc = json.loads(result.read_text(encoding="utf-8"))
        for t in doc["report_tables"]:
            assert t["caption"] in captions
            parsed = report.tables[captions.index(t["caption"])]
            assert parsed.headers == [h["text"] for h in t["headers"]]
            assert len(parsed.rows) == len(t["rows"])
    # The headline and counters tables of each result, and the published-vs-model table last.
    assert captions.count("Headline figures (as ssdlab compare lists them)") == 2
    assert captions.count("Drive counters over the run") == 2
    val = report.tables[-1]
    assert val.caption == "Published figures against the model (error over 10% marked)"
    assert [(r[1], r[6], r[8]) for r in val.rows] == [
        ("fill.fill_avg_MBps", "+5.0%", ""),
        ("cdm.seq_write_MBps", "+25.0%", "over 10%"),
    ]
    # The header says the drive is scaled down, and what was overridden.
    assert "Scaled-down drive: 16 GB user capacity instead of the preset&#39;s 128 GB" in html
    assert "ftl.user_capacity_gb = 16 (preset: 128)" in html
    # Pictures: the fill with its phases and published curve, the PTS rounds, series over time, exceedance.
    for title in (
        "fill",
        "PTS IOPS steady-state rounds",
        "PTS IOPS matrix",
        "PTS QD1 latency exceedance",
        "PTS WSAT IOPS vs TGBW",
        "Throughput over time - bg4-128gb",
        "Latency over time - generic-tlc-dram",
        "Latency exceedance - generic-tlc-dram",
    ):
        assert f"<h3>{title}</h3>" in html
    assert "published curve of bg4-128gb overlaid" in html and "phases shaded" in html
    assert len(report.images) >= 10 and all(src.startswith("data:image/png;base64,") for src in report.images)
    for tag, attrs in report.tags:
        assert tag not in ("script", "link", "iframe", "object"), tag
        assert all((attrs.get(a) or "data:").startswith("data:") for a in ("src", "href")), (tag, attrs)


def test_report_in_chromium_via_playwright(saved: Saved, tmp_path: Path) -> None:
    """The report as a browser draws it (Playwright driving Debian's chromium): no console errors, no request
    beyond the file itself, every image decoded, every table there; a full-page screenshot is saved."""
    from playwright.sync_api import sync_playwright

    shot = tmp_path / "report.png"
    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium(), args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1300, "height": 1000})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(saved.report.resolve().as_uri(), wait_until="load")
            images = page.eval_on_selector_all("img", "xs => xs.map(i => [i.complete, i.naturalWidth])")
            tables = page.eval_on_selector_all("table", "xs => xs.map(t => t.rows.length)")
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    assert errors == []
    assert all(u.startswith(("file:", "data:")) for u in requests), requests
    report = parse(saved.report.read_text(encoding="utf-8"))
    assert len(images) == len(report.images) >= 10
    assert all(done and width > 0 for done, width in images), images
    assert tables == [len(t.rows) + 1 for t in report.tables]  # every table, each with its header row
    pixels = matplotlib.image.imread(shot)
    assert pixels.shape[1] == 1300 and pixels.shape[0] > 3000
    results = Path(os.environ.get("SSDLAB_SCREENSHOTS", "")) if os.environ.get("SSDLAB_SCREENSHOTS") else None
    if results is not None:
        results.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, results / "report.png")


def test_plots_start_axes_at_zero_and_keep_legends_off_the_data() -> None:
    import matplotlib.pyplot as plt

    from ssdlab.report.plots import _finish

    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [500, 600, 700], label="a")
    ax.plot([1, 2, 3], [550, 650, 690], label="b")
    assert "axes start at zero" in _finish(ax, "")
    assert ax.get_xlim()[0] == 0 and ax.get_ylim()[0] == 0
    fig.canvas.draw()
    legend = ax.get_legend().get_window_extent()
    axes = ax.get_window_extent()
    assert legend.x0 >= axes.x1  # right of the axes: it cannot cover a line
    fig2, ax2 = plt.subplots()
    ax2.plot([1, 10], [1, 100])
    assert "logarithmic" in _finish(ax2, "loglog")  # a log axis cannot start at 0: the caption says so
    plt.close(fig)
    plt.close(fig2)


def test_doubling_axes_are_drawn_in_powers_of_two_labelled_as_numbers() -> None:
    """Queue depths 1..32, ATTO's 0.5 KiB..64 MiB, the working set's spans: each step twice the last, so a
    linear axis would crowd the low steps, where the curves change, into its left edge."""
    import matplotlib.pyplot as plt

    from ssdlab.report.plots import _finish
    from ssdlab.suites.anandtech import curves

    fig, ax = plt.subplots()
    ax.plot([1, 2, 4, 8, 16, 32], [1.0, 2.0, 3.0, 3.0, 3.0, 3.0])
    assert _finish(ax, "log2x").startswith("x axis logarithmic, base 2")
    assert ax.get_xscale() == "log" and ax.get_ylim()[0] == 0  # only x is log
    assert [ax.xaxis.get_major_formatter()(v, 0) for v in (1, 32, 0.5)] == ["1", "32", "0.5"]
    plt.close(fig)
    doc = {"results": [
        {"name": "sustained_seq_read", "x_label": "queue depth", "points": [{"x": 1, "mbps": 1.0}]},
        {"name": "mixed_rand", "x_label": "read share (%)", "points": [{"x": 100, "mbps": 1.0}]},
    ]}  # fmt: skip
    assert [c.scale for c in curves(doc)] == ["log2x", ""]  # a read share is not a doubling axis


def test_compare_writes_an_html_report(tmp_path: Path) -> None:
    out = run_cli(
        "compare", "generic-tlc-dram", "bg4-1tb", "--suite", "cdm", "--set", "ftl.user_capacity_gb=16",
        "--test-size", "16m", "--runs", "1", "--duration", "20ms", "--interval", "0.1s", "--out", "c",
        cwd=tmp_path,
    )  # fmt: skip
    (html,) = (tmp_path / "c").glob("compare-*.html")
    assert f"wrote {Path('c') / html.name}" in out.stdout
    report = parse(html.read_text(encoding="utf-8"))
    assert report.tables[0].caption == "cdm8: generic-tlc-dram vs bg4-1tb"
    assert report.title == "ssdlab compare cdm8: generic-tlc-dram vs bg4-1tb"
    assert report.summaries == ["Drive config (TOML)"] * 2


def test_docstring_examples_of_the_series_and_plots() -> None:
    import doctest

    from ssdlab import series
    from ssdlab.report import plots

    for module in (series, plots):
        res = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert res.attempted > 0 and res.failed == 0, module.__name__


def test_a_saved_result_whose_counters_a_real_target_could_not_read_leaves_them_out_and_says_so(
    saved: Saved, tmp_path: Path
) -> None:
    pts = next(p for p in saved.results if "-pts-" in p.name)
    doc = json.loads(pts.read_text(encoding="utf-8"))
    doc["counters"] = dict.fromkeys(doc["counters"])  # as a --target run saves them: null
    doc["config_toml"] = f'{TARGET_MARK}\ntarget = "t.img"\n'
    target = tmp_path / "target.json"
    target.write_text(json.dumps(doc), encoding="utf-8")
    out = run_cli("report", str(target), "-o", "t.html", cwd=tmp_path)
    report = parse((tmp_path / "t.html").read_text(encoding="utf-8"))
    counters = report.tables[[t.caption for t in report.tables].index("Drive counters over the run")]
    assert out.stdout.strip().endswith("t.html")
    assert counters.rows == []  # not a row of dashes per counter
    html = (tmp_path / "t.html").read_text(encoding="utf-8")
    hidden = len(doc["counters"])
    assert f"{hidden} more counters are inside the drive: a real target does not show them" in html
    assert "<dt>target</dt>" in html and "measured through fio, in wall-clock time" in html
    assert "All figures are simulated time" not in html
