"""``ssdlab validate``: every published figure against the model, measured the way its source measured it.

For each figure of the reference data (:mod:`ssdlab.reference`) this runs the method its source used on the
matching preset and gives a :class:`Row`: drive, figure, source, kind, method, published, model, unit,
error in %, and whether the figure is **in-sample** (some preset value was fitted to it) or a **hold-out**.

- Numbers: ``error_pct = (model - published) / published x 100``.
- Ranges (a fill-curve segment ``[lo, hi]``, the roundup's AS SSD 4K range): 0% inside, else the distance to
  the nearer end in % of it.
- Statements ("tops out at QD4 or higher"): a check, ``passed`` True/False, ``model`` says what was
  measured; ``error_pct`` is None.
- A figure with no method yet is a row with ``method = "no method yet (...)"`` and ``model = None``; a
  figure that is a model input (hardware facts, NAND datasheet timings, spec-sheet text such as the NAND
  type) is not a row but is listed by :func:`inputs`. Nothing is skipped silently.

Methods live in a registry keyed by ``(table, key)`` of the reference files (``key = "*"``: any key of the
table): adding one is one function decorated with :func:`method`. Each suite run is made once per preset
and shared by the figures it answers (:class:`Context`).

In-sample marking: a preset value fitted to a figure says so in its comment, ``# fitted ... (reference
<file> [<table>] <key>[, <key>...])``, e.g. ``# fitted: ... (reference bg4-1tb [anandtech]
seq_write_hmb_off_MBps)``; :func:`fitted_values` reads these from the preset's file and the files it inherits
from (docs/model.md, "Fitted values"). A fill curve counts with the figures read off it (``fill_avg_MBps``,
``slc_cache_GB``), and the older wording ``fitted [on DRIVE] to [its] published fill_curve`` still counts as
``(reference DRIVE [fill] curve)``.

Examples
--------
>>> from ssdlab import validate
>>> (row,) = validate.rows(["sn520-128gb"], figures=["fill.slc_cache_GB"], quick=True)  # machinery only
>>> row.figure, row.unit, row.error_pct == (row.model - row.published) / row.published * 100
('fill.slc_cache_GB', 'GB', True)
>>> validate.error_pct(1000, 1080.0), validate.error_pct([200, 210], 205.0)
(8.0, 0.0)
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import multiprocessing
import os
import re
import statistics
import tomllib
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import asdict, dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from ssdlab import reference
from ssdlab.drive import Drive, Overrides, parse_overrides
from ssdlab.errors import config_error, near_hint, workload_error
from ssdlab.precondition import settle, write_span
from ssdlab.presets import list_presets, preset_path, preset_source
from ssdlab.suites._common import Progress
from ssdlab.suites._reference import error_pct
from ssdlab.units import GB, format_size
from ssdlab.workload import Workload

__all__ = [
    "Context",
    "Figure",
    "Fitted",
    "Measured",
    "Row",
    "drive_file",
    "error_pct",
    "figures",
    "fitted_values",
    "in_sample",
    "inputs",
    "markdown",
    "method",
    "model_hash",
    "rows",
    "update_readme",
]

#: Keys of a figure table that describe it rather than give a figure.
META = frozenset({"source", "kind", "method", "note", "curve_columns", "columns"})
#: Tables that are model inputs (read into presets), not figures to validate.
INPUT_TABLES = frozenset({("hardware-facts", "facts"), ("starblaze", "nand_timing")})
#: Spec-sheet and review keys that describe the hardware (inputs too).
INPUT_KEYS = frozenset({"pcie", "nand", "dram", "controller", "sync_nand", "async_nand", "compression"})
#: Figures read off another figure: fitting the first fits them too.
DERIVED = {("fill", "curve"): ("fill_avg_MBps", "slc_cache_GB")}


@dataclass(frozen=True)
class Row:
    """One published figure against the model. ``fit``: True in-sample, False hold-out, None when nothing
    was measured. ``passed``: for statements (checks) only."""

    drive: str
    figure: str
    source: str
    kind: str
    method: str
    published: Any
    model: Any
    unit: str
    error_pct: float | None
    fit: bool | None
    note: str = ""
    passed: bool | None = None
    #: The reference file the figure is in (``bg4-1tb``, ``compact-m2-roundup``, ``starblaze``).
    reference: str = ""
    #: Measured by the shortened methods of ``quick``: the machinery checked, not the figure.
    quick: bool = False

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Figure:
    """One published figure: where it is (``reference`` file, ``table``, ``key``, and ``part`` for a curve
    segment or a table row), the drive it is of, and the value."""

    reference: str
    table: str
    key: str
    drive: str
    published: Any
    source: str
    kind: str
    part: str = ""
    #: Other presets the method also runs (a comparison between drives).
    with_presets: tuple[str, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.table}.{self.key}" + (f"[{self.part}]" if self.part else "")


@dataclass(frozen=True)
class Measured:
    """What a method gives for a figure: the model's figure (a number, or a text for a statement), its unit,
    the method as the table prints it, and for statements whether the model shows it."""

    model: Any
    unit: str
    method: str
    passed: bool | None = None
    note: str = ""
    #: True when the method makes the figure in-sample whatever the presets say (a rate the test is set to).
    in_sample: bool | None = None


@dataclass
class Context:
    """What methods share for one preset: the preset, quick mode, and the suite runs made so far (each
    suite runs once however many figures it answers)."""

    preset: str
    quick: bool = False
    #: Overrides applied to every drive the methods build (``--set``; a calibration's trial values).
    overrides: Overrides = None
    #: Drives measured in place of presets: preset name -> complete TOML (a calibration's trial config).
    configs: dict[str, str] = field(default_factory=dict)
    _memo: dict[str, Any] = field(default_factory=dict)

    def once(self, key: str, make: Callable[[], Any]) -> Any:
        """``make()`` the first time ``key`` is asked for, the same object afterwards."""
        if key not in self._memo:
            self._memo[key] = make()
        return self._memo[key]

    def drive(
        self, capacity_gb: float | None = None, preset: str | None = None, extra: Overrides = None
    ) -> Drive:
        """A fresh drive of ``preset`` (default: the context's; its config in ``configs`` if it has one)
        with the context's overrides and then ``extra``."""
        name = preset or self.preset
        over = {**dict(parse_overrides(self.overrides)), **dict(parse_overrides(extra))}
        if name in self.configs:
            return Drive.from_toml_str(self.configs[name], set=over, capacity_gb=capacity_gb)
        return Drive.from_preset(name, set=over, capacity_gb=capacity_gb)


MethodFn = Callable[[Figure, Context], Measured]
_METHODS: dict[tuple[str, str], MethodFn] = {}

#: Figures waiting for a model: ``(table, key)`` -> what is missing.
NO_METHOD: dict[tuple[str, str], str] = {}


def method(table: str, *keys: str) -> Callable[[MethodFn], MethodFn]:
    """Register a method for the figures ``keys`` of ``table`` in any reference file (``"*"``: every key).

    Examples
    --------
    >>> @method("example_table", "x_MBps")
    ... def _example(fig: Figure, ctx: Context) -> Measured:
    ...     return Measured(123.0, "MB/s", "what was run, and its source")
    >>> _lookup("example_table", "x_MBps") is _example
    True
    >>> del _METHODS[("example_table", "x_MBps")]
    """

    def register(fn: MethodFn) -> MethodFn:
        for k in keys or ("*",):
            _METHODS[(table, k)] = fn
        return fn

    return register


def _lookup(table: str, key: str) -> MethodFn | None:
    return _METHODS.get((table, key)) or _METHODS.get((table, "*"))


def has_method(table: str, key: str) -> bool:
    """Whether figures ``key`` of ``table`` have a method (a row measures them).

    Examples
    --------
    >>> has_method("cdm", "seq_read_MBps"), has_method("spec", "controller")
    (True, False)
    """
    return _lookup(table, key) is not None


def _missing(table: str, key: str) -> str:
    what = NO_METHOD.get((table, key)) or NO_METHOD.get((table, "*"))
    return f"no method yet ({what})" if what else "no method yet"


# ---------------------------------------------------------------------------------------------------------
# The figures


def _is_input(ref: str, table: str, key: str, value: Any) -> bool:
    return (ref, table) in INPUT_TABLES or key in INPUT_KEYS


def figures() -> list[Figure]:
    """Every published figure of the reference data, one per comparable value (a curve gives one per
    segment, the Starblaze table one per row and column), model inputs aside (:func:`inputs`).

    Examples
    --------
    >>> names = [f.name for f in figures() if f.drive == "bg4-128gb"]
    >>> "fill.curve[0.14-0.30]" in names and "as_ssd_4k_read_qd1.range_MBps" in names
    True
    """
    out: list[Figure] = []
    for ref in reference.names():
        data = reference.load(ref)
        for table, body in data.items():
            if not isinstance(body, dict):
                continue
            src, kind = str(body.get("source", "")), str(body.get("kind", ""))
            if ref == "compact-m2-roundup" and table == "as_ssd_4k_read_qd1":
                for drive in [*body["above_40_MBps"], *body["near_35_MBps"]]:
                    rng = _as_ssd.k4_read_range(drive)  # the range narrowed by the roundup's grouping
                    out.append(Figure(ref, table, "range_MBps", drive, rng, src, kind))
                continue
            if ref == "starblaze" and table == "db_test":
                for (case, rw), cols in reference.db_test().items():
                    for col, v in cols.items():
                        out.append(Figure(ref, table, col, "enterprise-tlc", v, src, kind, f"{case} {rw}"))
                continue
            drive = {"starblaze": "enterprise-tlc"}.get(ref, ref)
            extra: tuple[str, ...] = ()
            if ref == "v300":
                drive, extra = "v300a-120gb", ("v300s-120gb",)
            for key, value in body.items():
                if key in META or _is_input(ref, table, key, value):
                    continue
                if key == "curve":
                    for seg in value:
                        lo, hi = float(seg[0]), float(seg[1])
                        part = f"{_frac(lo)}-{_frac(hi)}"
                        out.append(Figure(ref, table, key, drive, [seg[2], seg[3]], src, kind, part))
                    continue
                out.append(Figure(ref, table, key, drive, value, src, kind, with_presets=extra))
    return out


def _frac(x: float) -> str:
    """A fill fraction as a segment's name gives it: two decimals, more when two would move the bound (the
    method measures between the bounds the name gives, so 0.025 must not become 0.03).

    >>> _frac(0.2), _frac(0.025)
    ('0.20', '0.025')
    """
    s = f"{x:.2f}"
    return s if float(s) == x else f"{x:g}"


def inputs() -> list[tuple[str, str, str]]:
    """The reference values that are model inputs, not validated: ``(file, table, key)``.

    Examples
    --------
    >>> ("bg4-128gb", "spec", "nand") in inputs()
    True
    """
    out = []
    for ref in reference.names():
        for table, body in reference.load(ref).items():
            if isinstance(body, dict):
                out += [
                    (ref, table, k) for k, v in body.items() if k not in META and _is_input(ref, table, k, v)
                ]
    return out


# ---------------------------------------------------------------------------------------------------------
# Fitted values: the in-sample marking

_FITTED = re.compile(r"(?<!not )\bfitted\b(?!\s+[\d.])", re.IGNORECASE)
_KEY_PART = r"\w+(?:\[[^\]]*\])?"  # a key, or one row or segment of it: key[part]
_REF = re.compile(rf"reference\s+([\w.-]+)\s+\[(\w+)\]\s+({_KEY_PART}(?:\s*,\s*{_KEY_PART})*)")
_LEGACY = re.compile(r"fitted(?:\s+on\s+([\w.-]+))?\s+to\s+(?:its\s+|the\s+)?published\s+fill_curve", re.I)
_KEY = re.compile(r"^\s*([\w.-]+)\s*=\s*(.*?)\s+#\s?(.*)$")
_TABLE = re.compile(r"^\s*\[+\s*([\w.-]+)\s*\]+")


@dataclass(frozen=True)
class Fitted:
    """A preset value marked ``fitted``: the file it is in, its TOML path, and the figures it names
    (``(reference file, table, key)``; empty when the comment names none)."""

    file: str
    path: str
    figures: tuple[tuple[str, str, str], ...]
    comment: str


def _chain(preset: str) -> list[tuple[str, str]]:
    """``(file name, text)`` of the preset and each file it inherits from, the preset first."""
    folder = resources.files("ssdlab").joinpath("presets")
    out = [(f"{preset}.toml", preset_source(preset))]
    seen = {preset}
    while True:
        base = tomllib.loads(out[-1][1]).get("base")
        if not isinstance(base, str) or base in seen:
            return out
        seen.add(base)
        fam = folder.joinpath("families", f"{base}.toml")
        if fam.is_file():
            out.append((f"families/{base}.toml", fam.read_text(encoding="utf-8")))
        else:
            out.append((f"{base}.toml", preset_path(base).read_text(encoding="utf-8")))


def commented_values(text: str) -> list[tuple[str, str]]:
    """``(TOML path, comment)`` of each value of a TOML text that has a comment beside it; a comment goes on
    over the indented comment-only lines that follow.

    Examples
    --------
    >>> commented_values('[ftl]\\nx = 1   # a first cut\\n        # of two lines\\ny = 2\\n')
    [('ftl.x', 'a first cut of two lines')]
    """
    lines = text.splitlines()
    out = []
    table = ""
    for i, line in enumerate(lines):
        t = _TABLE.match(line)
        if t and "=" not in line.split("]")[0]:
            table = t.group(1)
            continue
        m = _KEY.match(line)
        if not m:
            continue
        comment = m.group(3)
        for nxt in lines[i + 1 :]:
            if nxt.startswith((" ", "\t")) and nxt.strip().startswith("#"):
                comment += " " + nxt.strip().lstrip("#").strip()
            else:
                break
        out.append((f"{table}.{m.group(1)}" if table else m.group(1), comment))
    return out


def parse_fitted(text: str, file: str, owner: str) -> list[Fitted]:
    """The ``fitted`` values of one TOML text (``owner``: the drive a bare "published fill_curve" means).

    Examples
    --------
    >>> text = '[ftl]\\nx = 1   # fitted to it (reference bg4-1tb [cdm] seq_read_MBps, seq_write_MBps)\\n'
    >>> parse_fitted(text, "a.toml", "a")[0].figures
    (('bg4-1tb', 'cdm', 'seq_read_MBps'), ('bg4-1tb', 'cdm', 'seq_write_MBps'))
    >>> parse_fitted('y = 2  # not fitted: a datasheet value\\n', "a.toml", "a")
    []
    >>> row = "z = 3  # fitted (reference starblaze [db_test] avg_lat_us_no_suspend[2r1w_1thread write])"
    >>> parse_fitted(row, "a.toml", "a")[0].figures
    (('starblaze', 'db_test', 'avg_lat_us_no_suspend[2r1w_1thread write]'),)
    """
    out = []
    for path, comment in commented_values(text):
        if path in ("base", "description") or not _FITTED.search(comment):
            continue
        figs: list[tuple[str, str, str]] = []
        for ref, tab, keys in _REF.findall(comment):
            figs += [(ref, tab, k.strip()) for k in keys.split(",")]
        for legacy in _LEGACY.finditer(comment):
            figs.append((legacy.group(1) or owner, "fill", "curve"))
        expanded = list(figs)
        for ref, tab, key in figs:
            expanded += [(ref, tab, k) for k in DERIVED.get((tab, key), ())]
        out.append(Fitted(file, path, tuple(dict.fromkeys(expanded)), comment.strip()))
    return out


def fitted_values(preset: str) -> list[Fitted]:
    """Every value marked ``fitted`` in ``preset``'s file and the files it inherits from, with the figures
    each names; a value the child file sets again is the child's.

    Examples
    --------
    >>> fig = ("bg4-1tb", "anandtech", "seq_write_hmb_off_MBps")
    >>> [f.path for f in fitted_values("bg4-1tb") if fig in f.figures]
    ['controller.write_buffer_kib']
    """
    out: list[Fitted] = []
    seen: set[str] = set()
    chain = _chain(preset)
    for file, text in chain:
        for f in parse_fitted(text, file, preset):
            if f.path not in seen:
                out.append(f)
        seen |= _paths(text)
    # `ssdlab calibrate`'s marking: the [calibration] free values are fitted to its `figures`
    # (DRIVE.TABLE.KEY), wherever in the chain the table is
    for file, text in chain:
        cal = tomllib.loads(text).get("calibration", {})
        figs = tuple(tuple(f.split(".", 2)) for f in cal.get("figures", []) if f.count(".") >= 2)
        for path in cal.get("free", {}):
            out.append(Fitted(file, path, figs, "[calibration] free"))
        if cal:
            break
    return out


def _paths(text: str) -> set[str]:
    def walk(d: dict[str, Any], prefix: str) -> Iterable[str]:
        for k, v in d.items():
            if isinstance(v, dict):
                yield from walk(v, f"{prefix}{k}.")
            else:
                yield f"{prefix}{k}"

    return set(walk(tomllib.loads(text), ""))


def _in_sample(fig: Figure, fitted: Sequence[Fitted]) -> bool:
    """Whether a fitted value names ``fig``: its key (every row or segment of it), the one row or segment
    (``key[part]``), or ``*`` for the whole table."""
    whole = fig.key + (f"[{fig.part}]" if fig.part else "")
    return any(
        (ref, tab) == (fig.reference, fig.table) and key in (fig.key, whole, "*")
        for f in fitted
        for ref, tab, key in f.figures
    )


#: Figures a method makes in-sample whatever the presets say: the rate the test is set to.
BY_CONSTRUCTION = frozenset({("db_test", "IOPS"), ("db_test", "KBps")})

#: Figures a benchmark method's own value (not a preset's) is fitted to, as (drive, table, key): the AS SSD
#: host's time per IO (``suites/as_ssd.py``, ``HOST_IO_US``).
SUITE_FITTED = frozenset({("bg4-128gb", "as_ssd_4k_read_qd1", "range_MBps")})


def in_sample(fig: Figure) -> bool:
    """Whether ``fig`` is in-sample, known before anything runs: a preset value of its drive (or of a drive
    its method also runs) is fitted to it, or its method sets it (:data:`BY_CONSTRUCTION`).

    Examples
    --------
    >>> f = next(f for f in figures() if f.drive == "sn520-128gb" and f.name == "fill.fill_avg_MBps")
    >>> in_sample(f)
    True
    """
    if (fig.table, fig.key) in BY_CONSTRUCTION or (fig.drive, fig.table, fig.key) in SUITE_FITTED:
        return True
    return _in_sample(fig, [f for p in (fig.drive, *fig.with_presets) for f in fitted_values(p)])


# ---------------------------------------------------------------------------------------------------------
# The methods

from ssdlab.suites import anandtech as _anandtech  # noqa: E402  (the suites import nothing from here)
from ssdlab.suites import as_ssd as _as_ssd  # noqa: E402
from ssdlab.suites import atto as _atto  # noqa: E402
from ssdlab.suites import cdm as _cdm  # noqa: E402
from ssdlab.suites import dbmix as _dbmix  # noqa: E402
from ssdlab.suites import endurance as _endurance  # noqa: E402
from ssdlab.suites import fill as _fill  # noqa: E402
from ssdlab.suites import gamersnexus as _gamersnexus  # noqa: E402
from ssdlab.suites import power as _power  # noqa: E402
from ssdlab.suites.anandtech import WINDOWS_HMB_MIB  # noqa: E402

#: CrystalDiskMark at its defaults cut to one short run: the quick mode of the methods that run it so.
_QUICK_CDM: dict[str, Any] = {"runs": 1, "duration": "1s", "warmup": "0.5s", "interval": "1s"}


def _cdm_run(ctx: Context, key: str, extra: Overrides = None, **kw: Any) -> _cdm.CdmResult:
    """CrystalDiskMark with ``kw`` on the context's drive (with ``extra`` overrides), run once per ``key``."""
    return ctx.once(key, lambda: _cdm.run_cdm(ctx.drive(extra=extra), **kw))  # type: ignore[no-any-return]


@method("cdm", "seq_read_MBps", "seq_write_MBps", "rand_read_kIOPS", "rand_write_kIOPS")
def _cdm_brief(fig: Figure, ctx: Context) -> Measured:
    quick = _QUICK_CDM if ctx.quick else {}
    res = _cdm_run(ctx, "cdm6-32g", version="6", test_size="32g", **quick)
    value, unit = _cdm.reference_value(res, fig.key)
    how = "1 x 1 s (quick)" if ctx.quick else "best of 5"
    return Measured(value, unit, f"CDM 6, 32 GiB, {how}; rand = 4KiB Q32T1")


@method("spec", "seq_read_MBps", "seq_write_MBps", "rand_read_kIOPS", "rand_write_kIOPS")
def _spec(fig: Figure, ctx: Context) -> Measured:
    dur = {"duration": "0.3s", "warmup": "0.1s"} if ctx.quick else {"duration": "2s", "warmup": "1s"}
    res = _cdm_run(ctx, "cdm6-spec", version="6", runs=1, interval="1s", **dur)
    direction = "read" if "read" in fig.key else "write"
    if fig.key.startswith("seq"):
        return Measured(
            res.row("Seq Q32T1", direction).mbps,
            "MB/s",
            "CDM-like Seq Q32T1, 1000 MiB (vendor method unpublished)",
        )
    iops = max(res.row("4KiB Q32T1", direction).iops, res.row("4KiB Q8T8", direction).iops)
    return Measured(
        iops / 1e3,
        "kIOPS",
        "CDM-like 4 KiB best of Q32T1/Q8T8, 1000 MiB (vendor method unpublished)",
    )


@method("spec", "endurance_TBW")
def _spec_endurance(fig: Figure, ctx: Context) -> Measured:
    drive = ctx.drive()
    full = drive.capacity_bytes
    if ctx.quick:  # an 8 GB copy: the same over-provisioning ratio, so about the same drive writes
        drive = ctx.drive(capacity_gb=8.0)
    res = _endurance.run_endurance(drive)
    return Measured(
        res.drive_writes * full / 1e12,
        "TB",
        f"JESD219A enterprise workload after a full fill, WAF {res.waf:.2f} at {res.pe_cycle_limit:,} P/E "
        "(JEDEC's client workload is a trace that is not public)",
    )


#: The AnandTech tests the published figures come from (sequential and random read tests, HMB on and off).
_ANANDTECH_TESTS = [
    "burst_seq_read",
    "burst_seq_write",
    "sustained_seq_read",
    "sustained_seq_write",
    "burst_rand_read",
    "sustained_rand_read",
    "mixed_rand",
]


def _anandtech_run(ctx: Context) -> _anandtech.AnandTechResult:
    return ctx.once(  # type: ignore[no-any-return]
        "anandtech",
        lambda: _anandtech.run_anandtech(
            ctx.drive(), tests=_ANANDTECH_TESTS, max_gb=2.0 if ctx.quick else 32.0
        ),
    )


def _power_run(ctx: Context, preset: str | None = None) -> _power.PowerResult:
    return ctx.once(  # type: ignore[no-any-return]
        f"power-{preset or ctx.preset}", lambda: _power.run_power(ctx.drive(preset=preset))
    )


@method("power", "read_mW_per_MBps", "write_mW_per_MBps_4lane", "write_mW_per_MBps_2lane")
def _power_brief(fig: Figure, ctx: Context) -> Measured:
    # the 2-lane figure is the same drive on PCIe 3.0 x2: the bg4-1tb-x2 preset
    two_lanes = fig.key.endswith("2lane")
    res = _power_run(ctx, f"{ctx.preset}-x2" if two_lanes else None)
    row = res.rows[0 if fig.key.startswith("read") else 1]
    lanes = "x2 (preset bg4-1tb-x2)" if two_lanes else "x4"
    how = f"BG4 brief: 128 KiB seq QD32, max of 10 ms samples over 500 ms / MB/s, PCIe 3.0 {lanes}"
    return Measured(row.mw_per_mbps, "mW per MB/s", how)


@method("spec", "active_power_W", "idle_power_mW")
def _power_spec(fig: Figure, ctx: Context) -> Measured:
    res = _power_run(ctx)
    if fig.key == "idle_power_mW":
        return Measured(
            res.idle_mw, "mW", "idle 5 s then 1 s measured, APST and L1.2 as the preset enables them"
        )
    return Measured(res.max_power_w, "W", "highest 10 ms sample of 128 KiB seq read or write at QD32")


@method("anandtech")
def _anandtech_fig(fig: Figure, ctx: Context) -> Measured:
    res = _anandtech_run(ctx)
    amount = "2 GB (quick)" if ctx.quick else "1 min or 32 GB"
    granted = f", HMB {res.hmb_mib} MiB (Windows' grant)" if res.hmb_mib is not None else ""
    for b in _anandtech.published_figures(res):
        if b.key == fig.name:
            hmb = ", HMB off" if "hmb_off" in fig.key else granted
            if "burst" in fig.key:
                how = f"AnandTech burst 128 KiB seq QD1, 8 x 128 MB, 16 GB on drive{hmb}"
            else:
                how = f"AnandTech sustained 128 KiB seq, top of QD1-32 ({amount} each), 64 GB span{hmb}"
            return Measured(b.model, b.unit, how)
    for c in _anandtech.checks(res):
        if c.key == fig.key:
            if fig.key.startswith("mixed_rand"):
                what = "mixed 4 KiB random QD4, 100% -> 0% reads"
            else:
                kind = "4 KiB random read" if "rand" in fig.key else "128 KiB seq"
                what = f"{kind} burst + QD1-32"
            on = "HMB on" if res.hmb_mib is None else f"HMB on ({res.hmb_mib} MiB)"
            hmb = f", {on} and off" if any(r.variant == "HMB off" for r in res.results) else ""
            how = f"AnandTech {what} ({amount} each){hmb}: check"
            return Measured(c.measured, "", how, passed=c.passed)
    return Measured(None, "", "no method yet (no AnandTech test or check measures it)")


#: The BG3 512 GB stands in for AnandTech's BG3-based Toshiba RC100 (480 GB) in the review's comparisons.
_RC100 = "bg3-512gb"


def _one_test(ctx: Context, preset: str, test: str) -> _anandtech.Outcome:
    """AnandTech's ``test`` alone on ``preset`` (HMB as the preset has it), run once."""
    res = ctx.once(
        f"anandtech-{test}-{preset}",
        lambda: _anandtech.run_anandtech(
            ctx.drive(preset=preset), tests=[test], max_gb=2.0 if ctx.quick else 32.0, hmb_off=False
        ),
    )
    return res.get(test)  # type: ignore[no-any-return]


@method("anandtech", "seq_read_power_vs_bg3", "sustained_rand_read_vs_bg3")
def _anandtech_vs_bg3(fig: Figure, ctx: Context) -> Measured:
    """AnandTech's BG4 against the BG3-based RC100 (``bg3-512gb``). Power "matches" = average W within 10%
    of the RC100's; "significantly more" = more than 10% above it (the same line, from the other side)."""
    test = "sustained_seq_read" if fig.key.startswith("seq") else "sustained_rand_read"
    a, b = _anandtech_run(ctx).get(test), _one_test(ctx, _RC100, test)

    wa, wb = a.score_w, b.score_w
    power = wa / wb - 1
    how = f"AnandTech {test.replace('_', ' ')}, MB/s and W as means of QD1/2/4, {ctx.preset} against {_RC100}"
    if test == "sustained_seq_read":
        text = f"average {wa:.2f} W against the BG3's {wb:.2f}: {power:+.0%} (pass: above +10%)"
        return Measured(text, "", how + "; check", passed=power > 0.10)
    text = (
        f"{a.mbps:,.1f} MB/s against the BG3's {b.mbps:,.1f}; average {wa:.2f} W against {wb:.2f}: "
        f"{power:+.0%} (pass: faster and power within 10%)"
    )
    return Measured(text, "", how + "; check", passed=a.mbps > b.mbps and abs(power) <= 0.10)


@method("anandtech", "sustained_rand_read_power_W")
def _sustained_rand_read_power(fig: Figure, ctx: Context) -> Measured:
    w = _one_test(ctx, ctx.preset, "sustained_rand_read").score_w
    return Measured(w, "W", "AnandTech sustained 4 KiB random read, 64 GB span: average W, mean of QD1/2/4")


#: AnandTech's random-read test and what it does, by whether it is the burst one.
_RAND_READ_TESTS = {
    True: ("burst_rand_read", "burst 4 KiB random read QD1, 32 MB bursts over a 16 GB span"),
    False: ("sustained_rand_read", "sustained 4 KiB random read, 64 GB span, mean of QD1/2/4"),
}


@method("anandtech", "sustained_rand_read_vs_rc100", "burst_rand_read_vs_rc100")
def _rand_read_vs_rc100(fig: Figure, ctx: Context) -> Measured:
    """The SN500 against the RC100 on AnandTech's random reads: faster over the sustained test's 64 GB span
    (the RC100's HMB covers too little of it), slower in the burst test's 16 GB (which its HMB covers)."""
    burst = fig.key.startswith("burst")
    test, what = _RAND_READ_TESTS[burst]
    a, b = _one_test(ctx, ctx.preset, test), _one_test(ctx, _RC100, test)
    want = "slower" if burst else "faster"
    text = f"{a.mbps:,.1f} MB/s against the RC100's ({_RC100}) {b.mbps:,.1f} (pass: {want})"
    return Measured(text, "", f"AnandTech {what}, against {_RC100}; check", passed=(a.mbps < b.mbps) == burst)


def _fill_run(ctx: Context, hmb_off: bool = False) -> tuple[_fill.FillResult, str]:
    """The whole-drive fill of the context's preset (with the HMB withheld if ``hmb_off``), run once, and
    how it was run."""
    cap = 32.0 if ctx.quick else None
    extra = _anandtech.HMB_OFF if hmb_off else None
    res: _fill.FillResult = ctx.once(
        f"fill-hmb-off={hmb_off}", lambda: _fill.run_fill(ctx.drive(capacity_gb=cap, extra=extra))
    )
    scale = "scaled to 32 GB (quick)" if cap else "full capacity"
    return res, f"fill from erased, 128 KiB seq QD32, {scale}"


@method("fill", "curve", "fill_avg_MBps", "slc_cache_GB")
def _fill_fig(fig: Figure, ctx: Context) -> Measured:
    res, how = _fill_run(ctx)
    if fig.key == "fill_avg_MBps":  # AIDA64 (the roundup's tool) averages its speed samples
        mean = sum(res.mbps) / len(res.mbps)
        return Measured(mean, "MB/s", how + "; mean of the per-GB speeds (AIDA64's average)")
    if fig.key == "slc_cache_GB":
        # Read off the curve as the reviewer did: the host GB written at the cache's speed
        gb = res.cache_seen_bytes() / GB
        return Measured(gb, "GB", how + "; host GB written at SLC speed (where the curve falls)")
    lo, hi = (float(v) for v in fig.part.split("-"))
    check = _fill.compare_fill_curve(res.points, [[lo, hi, *fig.published]])[0]
    return Measured(check.mbps, "MB/s", how + "; the segment's bytes / time")


@method("fill", "post_cache")
def _fill_post_cache(fig: Figure, ctx: Context) -> Measured:
    """AnandTech's reading of a fill: past the cache the speed is "cut in half" (35-65% of the cache's) and
    "steady" (no 1 GB point after the cache below 80% of their median: no second drop)."""
    res, how = _fill_run(ctx)
    cache = res.cache_seen_bytes()
    before = [p.mbps for p in res.points if p.host_bytes <= cache]
    after = sorted(p.mbps for p in res.points if p.host_bytes > cache)
    if not before or not after:
        return Measured("no cache level and level past it", "", "fill from erased: check", passed=False)
    slc, median, low = max(before), after[len(after) // 2], after[0]
    ratio, floor = median / slc, low / median
    passed = 0.35 <= ratio <= 0.65 and floor >= 0.8
    text = (
        f"past the cache {median:,.0f} MB/s = {ratio:.0%} of the cache's {slc:,.0f}; slowest 1 GB point "
        f"{floor:.0%} of that (pass: 35-65% and >= 80%)"
    )
    return Measured(text, "", how + "; check", passed=passed)


@method("fill", "near_full")
def _fill_near_full(fig: Figure, ctx: Context) -> Measured:
    """AnandTech on the BG3-based RC100: write speed "seriously tanked when the drive got close to full", a
    second major drop = some 1 GB point past 85% full below half the median speed past the cache."""
    res, how = _fill_run(ctx)
    cache = res.cache_seen_bytes()
    after = sorted(p.mbps for p in res.points if p.host_bytes > cache)
    near = [p.mbps for p in res.points if p.host_bytes > 0.85 * res.capacity_bytes]
    if not after or not near:
        return Measured("no level past the cache", "", how + "; check", passed=False)
    median, low = after[len(after) // 2], min(near)
    text = (
        f"past the cache {median:,.0f} MB/s (median); slowest 1 GB point past 85% full {low:,.0f} MB/s = "
        f"{low / median:.0%} of that (pass: < 50%)"
    )
    return Measured(text, "", how + "; check", passed=low < 0.5 * median)


@method("fill", "hmb_off")
def _fill_hmb_off(fig: Figure, ctx: Context) -> Measured:
    """The fill again with the HMB withheld (AnandTech's HMB-off runs): "minimal impact" = the overall
    averages within 15% of each other."""
    (on, how), (off, _) = _fill_run(ctx), _fill_run(ctx, hmb_off=True)
    change = off.average_mbps / on.average_mbps - 1
    text = (
        f"overall average {on.average_mbps:,.0f} MB/s with HMB, {off.average_mbps:,.0f} without: "
        f"{change:+.0%} (pass: within 15%)"
    )
    return Measured(text, "", how + ", HMB on and off; check", passed=abs(change) <= 0.15)


def _as_ssd_run(ctx: Context) -> _as_ssd.AsSsdResult:
    cap, acc = ("0.3s", "0.05s") if ctx.quick else ("10s", "2s")
    return ctx.once(  # type: ignore[no-any-return]
        "as-ssd",
        lambda: _as_ssd.run_as_ssd(ctx.drive(), max_time=cap, access_time=acc, compression_steps=()),
    )


@method("atto", "read_top_MBps", "write_top_MBps")
def _atto_top(fig: Figure, ctx: Context) -> Measured:
    total = "32m" if ctx.quick else _atto.TOTAL
    res = ctx.once("atto", lambda: _atto.run_atto(ctx.drive(), total=total))
    (b,) = [b for b in _atto.published_figures(res) if b.key == fig.name]
    return Measured(b.model, "MB/s", f"ATTO, {format_size(res.total)} at QD{res.qd}: top over transfer sizes")


def _ascii_cdm_run(ctx: Context, map_cache: dict[str, object]) -> _cdm.CdmResult:
    """ASCII.jp's CrystalDiskMark 6 at its defaults (1 GiB, best of 5) with the map cache set as given."""
    key = "cdm6-1g-" + "-".join(map(str, map_cache.values()))
    quick = _QUICK_CDM if ctx.quick else {}
    return _cdm_run(ctx, key, extra=map_cache, version="6", test_size="1g", **quick)


def _hmb(mib: int | None) -> dict[str, object]:
    """The overrides that give the drive ``mib`` MiB of HMB (None: HMB off)."""
    return dict(_anandtech.HMB_OFF) if mib is None else {"controller.map_cache.hmb_size_mib": mib}


@method("ascii_cdm", "seq_read_MBps", "seq_write_MBps")
def _ascii_cdm(fig: Figure, ctx: Context) -> Measured:
    value, unit = _cdm.reference_value(_ascii_cdm_run(ctx, _hmb(WINDOWS_HMB_MIB)), fig.key)
    how = f"CDM 6, 1 GiB, best of 5, Seq Q32T1; HMB at Windows' default {WINDOWS_HMB_MIB} MiB"
    return Measured(value, unit, how)


@method("ascii_cdm", "hmb_off")
def _ascii_cdm_hmb_off(fig: Figure, ctx: Context) -> Measured:
    """Every read row of the CDM 6 run slower with HMB off than with HMB on (by more than 1%: a tie is not
    "slower"), and the largest fall a random row's."""
    on, off = _ascii_cdm_run(ctx, _hmb(WINDOWS_HMB_MIB)), _ascii_cdm_run(ctx, _hmb(None))
    change = {
        a.label.removesuffix(" read"): b.mbps / a.mbps - 1
        for a, b in zip(on.rows, off.rows, strict=True)
        if a.label.endswith(" read")
    }
    worst = min(change, key=lambda k: change[k])
    passed = all(c < -0.01 for c in change.values()) and worst.startswith("4KiB")
    text = "HMB off against on: " + ", ".join(f"{k} {c:+.1%}" for k, c in change.items())
    text += " (pass: every read < -1%, a random row the largest fall)"
    how = f"CDM 6, 1 GiB, best of 5, reads with HMB at {WINDOWS_HMB_MIB} MiB and off; check"
    return Measured(text, "", how, passed)


#: ASCII.jp's TxBENCH test: its access ranges, GB, each read over data written across the largest first.
_TXBENCH_SPANS = (1, 2, 4, 8, 16, 32, 48, 64)


def _txbench_drive(ctx: Context, overrides: dict[str, object], preset: str | None = None) -> Drive:
    """``preset`` (default: the context's) with ``overrides``, TxBENCH's largest range written 128 KiB at
    QD32, then left to settle (its SLC cache folded) as a drive written before a benchmark is."""
    d = ctx.drive(preset=preset, extra=overrides)
    write_span(d, 0, _TXBENCH_SPANS[-1] * GB)
    settle(d)
    return d


def _txbench_read(d: Drive, gb: int, ramp: str, run: str) -> float:
    """MB/s of TxBENCH's 4 KiB random reads at QD32 over the first ``gb`` GB of ``d`` (a clone is read)."""
    w = Workload(
        rw="randread", bs="4k", iodepth=32, size=gb * GB, runtime=run, ramp_time=ramp, time_based=True
    )
    return float(d.clone().run(w).iops * 4096 / 1e6)


@method("txbench", "rand_read_hmb_off_MBps")
def _txbench(fig: Figure, ctx: Context) -> Measured:
    ramp, run = ("0.2s", "0.5s") if ctx.quick else ("1s", "5s")
    gb = _TXBENCH_SPANS[-1]
    mbps = _txbench_read(_txbench_drive(ctx, _hmb(None)), gb, ramp, run)
    return Measured(
        mbps, "MB/s", f"{gb} GB written 128 KiB QD32, then 4 KiB random read QD32 over it for {run}, HMB off"
    )


def _curve(mbps: Sequence[float]) -> str:
    """MB/s of each TxBENCH range, for a check's text."""
    return ", ".join(f"{gb} GB {v:,.0f}" for gb, v in zip(_TXBENCH_SPANS, mbps, strict=True))


def _fast_to(mbps: Sequence[float]) -> int:
    """The largest TxBENCH range up to which every range runs within 10% of the 1 GB range's ``mbps``."""
    fast = itertools.takewhile(lambda gv: gv[1] >= 0.9 * mbps[0], zip(_TXBENCH_SPANS, mbps, strict=True))
    return max(gb for gb, _ in fast)


def _txbench_span_times(ctx: Context) -> tuple[str, str]:
    """Ramp and measured time of each range of the span sweep."""
    return ("0.1s", "0.3s") if ctx.quick else ("0.5s", "2s")


def _txbench_fast_span(ctx: Context, hmb_mib: int | None) -> tuple[int, list[float]]:
    """The largest fast TxBENCH range (:func:`_fast_to`) of the reads with ``hmb_mib`` of HMB (None: HMB
    off), and the MB/s of every range."""

    def measure() -> tuple[int, list[float]]:
        d = _txbench_drive(ctx, _hmb(hmb_mib))
        ramp, run = _txbench_span_times(ctx)
        mbps = [_txbench_read(d, gb, ramp, run) for gb in _TXBENCH_SPANS]
        return _fast_to(mbps), mbps

    return ctx.once(f"txbench-hmb{hmb_mib}", measure)  # type: ignore[no-any-return]


@method("txbench", "rand_read_hmb_on_64gb_MBps")
def _txbench_hmb_on_64gb(fig: Figure, ctx: Context) -> Measured:
    gb, run = _TXBENCH_SPANS[-1], _txbench_span_times(ctx)[1]
    mbps = _txbench_fast_span(ctx, WINDOWS_HMB_MIB)[1][-1]
    how = (
        f"{gb} GB written 128 KiB QD32, then 4 KiB random read QD32 over it for {run}, "
        f"HMB at {WINDOWS_HMB_MIB} MiB"
    )
    return Measured(mbps, "MB/s", how)


@method("txbench", "hmb_span")
def _txbench_hmb_span(fig: Figure, ctx: Context) -> Measured:
    (at64, v64), (at61, v61) = _txbench_fast_span(ctx, 64), _txbench_fast_span(ctx, WINDOWS_HMB_MIB)
    curve = ", ".join(f"{gb} GB {a:,.0f}/{b:,.0f}" for gb, a, b in zip(_TXBENCH_SPANS, v64, v61, strict=True))
    w = WINDOWS_HMB_MIB
    text = f"fast to {at64} GB with 64 MiB, to {at61} GB with {w} MiB (MB/s, 64/{w} MiB: {curve})"
    how = "64 GB written, then 4 KiB random read QD32 over 1-64 GB; fast = within 10% of 1 GB's"
    return Measured(text + " (pass: 48 and under 32)", "", how + "; check", passed=at64 >= 48 and at61 < 32)


@method("txbench", "hmb_off_span")
def _txbench_hmb_off_span(fig: Figure, ctx: Context) -> Measured:
    at, mbps = _txbench_fast_span(ctx, None)
    how = "64 GB written, then 4 KiB random read QD32 over 1-64 GB, HMB off; fast = within 10% of 1 GB's"
    text = f"fast to {at} GB (MB/s: {_curve(mbps)}) (pass: 1)"
    return Measured(text, "", how + "; check", passed=at == 1)


#: The BG3s ASCII.jp's may have been (the article does not name its capacity).
_BG3S = ("bg3-128gb", "bg3-256gb", "bg3-512gb")


@method("txbench", "rand_read_vs_bg3")
def _txbench_vs_bg3(fig: Figure, ctx: Context) -> Measured:
    """The 64 GB range's random reads, the BG4 at Windows' 61 MiB against each BG3 at its own grant (38 MiB,
    its whole preferred size): more than 100 MB/s faster than every one of them."""
    gb, (ramp, run) = _TXBENCH_SPANS[-1], _txbench_span_times(ctx)
    bg4 = _txbench_fast_span(ctx, WINDOWS_HMB_MIB)[1][-1]

    def bg3(preset: str) -> float:
        return _txbench_read(_txbench_drive(ctx, {}, preset), gb, ramp, run)

    bg3s: dict[str, float] = {p: ctx.once(f"txbench-{p}", functools.partial(bg3, p)) for p in _BG3S}
    text = f"{bg4:,.0f} MB/s against " + ", ".join(f"{p} {v:,.0f}" for p, v in bg3s.items())
    how = (
        f"{gb} GB written, then 4 KiB random read QD32 over it for {run}; "
        f"HMB: BG4 {WINDOWS_HMB_MIB} MiB, each BG3 38"
    )
    text += " (pass: > 100 MB/s above each)"
    return Measured(text, "", how + "; check", passed=bg4 - max(bg3s.values()) > 100)


@method("txbench", "rand_write_span")
def _txbench_write_span(fig: Figure, ctx: Context) -> Measured:
    """TxBENCH's random writes: 4 GB of 4 KiB writes at QD32 into each range (a clone of the drive with the
    largest range written), HMB at 61 MiB; fast = within 10% of the 1 GB range's, as for the reads."""
    d = _txbench_drive(ctx, _hmb(WINDOWS_HMB_MIB))
    total = "256m" if ctx.quick else "4g"
    runs = [
        Workload(rw="randwrite", bs="4k", iodepth=32, io_size=total, size=gb * GB) for gb in _TXBENCH_SPANS
    ]
    mbps = [float(d.clone().run(w).write.mbps) for w in runs]
    last = _fast_to(mbps)
    how = (
        f"64 GB written, then {total} of 4 KiB random writes at QD32 into each 1-64 GB range, "
        f"HMB at {WINDOWS_HMB_MIB} MiB"
    )
    text = f"fast to {last} GB (MB/s: {_curve(mbps)}) (pass: fast to 2 GB, not at 4)"
    return Measured(text, "", how + "; check", passed=last == 2)


@method("as_ssd", "seq_read_MBps")
def _as_ssd_seq(fig: Figure, ctx: Context) -> Measured:
    res = _as_ssd_run(ctx)
    return Measured(res.seq_read_mbps, "MB/s", "AS SSD Seq read, 1 GB, 16 MiB QD1")


@method("as_ssd_4k_read_qd1", "range_MBps")
def _as_ssd_4k(fig: Figure, ctx: Context) -> Measured:
    res = _as_ssd_run(ctx)
    rng = _as_ssd.k4_read_range(fig.drive)
    note = f"the roundup's 33.9-48.4 MB/s, narrowed to {rng[0]:g}-{rng[1]:g} by its grouping" if rng else ""
    how = f"AS SSD 4K read, QD1 in a 1 GB file, {_as_ssd.HOST_IO_US:g} us of the tool's own per IO"
    fitted = (fig.drive, fig.table, fig.key) in SUITE_FITTED
    return Measured(res.k4_read_mbps, "MB/s", how, note=note, in_sample=fitted or None)


#: The Starblaze table's columns and the dbmix row fields they compare with (suspension off/on).
_DB = {
    "IOPS": ("iops", False),
    "KBps": ("iops", False),
    "avg_lat_us_no_suspend": ("avg_us", False),
    "max_lat_us_no_suspend": ("max_us", False),
    "max_lat_us_suspend": ("max_us", True),
}

#: Workload seeds of the database mix's runs: a figure is the median over them. A maximum latency is one
#: event in a minute, and which read meets which erase moves with every change of timing: one run's worst
#: read (2r1w, 2 threads, suspension on) spread 1.9-2.8 ms over these seeds and 1.9-3.6 ms over nine
#: drive seeds (2026-12-01).
DB_SEEDS = (1, 2, 3, 4, 5)


@method("db_test")
def _db_test(fig: Figure, ctx: Context) -> Measured:
    runtime = "0.5s" if ctx.quick else "60s"
    cap = 60.0 if ctx.quick else 120.0
    seeds = DB_SEEDS[:1] if ctx.quick else DB_SEEDS
    runs: list[_dbmix.DbmixResult] = ctx.once(
        "dbmix",
        lambda: [_dbmix.run_dbmix(ctx.drive(capacity_gb=cap), runtime=runtime, seed=s) for s in seeds],
    )
    case, rw = fig.part.split(" ")
    field_, susp = _DB[fig.key]
    value = statistics.median(getattr(r.row(case, susp), f"{rw}_{field_}") for r in runs)
    unit = "us" if "lat" in fig.key else "IOPS"
    if fig.key == "KBps":
        value, unit = value * 4, "KiB/s"
    # Scaled: the figure depends on the GC rate per die (the same dies, blocks and OP), not on capacity.
    how = (
        f"dbmix (fio, published rate), {runtime}, suspension {'on' if susp else 'off'}, scaled to {cap:g} GB"
        + (f", median of {len(seeds)} runs" if len(seeds) > 1 else "")
    )
    if (fig.table, fig.key) in BY_CONSTRUCTION:  # the rate fio runs at is the table's
        return Measured(value, unit, how, note="the test runs at the published rate", in_sample=True)
    return Measured(value, unit, how)


@method("v300", "findings")
def _v300(fig: Figure, ctx: Context) -> Measured:
    cap = 8.0 if ctx.quick else 30.0
    tests = {  # the finding's three claims, by the suite's tests
        "seq_write": "128K seq write QD32",
        "rand_write_qd32": "4K random write QD32",
        "rand_read_qd1": "4K random read QD1",
    }

    def measure(preset: str) -> dict[str, float]:
        d = ctx.drive(capacity_gb=cap, preset=preset)
        _gamersnexus.precondition(d)  # the suite's: secure erase, 4K QD32 for GB x 0.5 min
        mbps = _gamersnexus.measure_bus_tests(d, list(tests.values()))
        return {key: mbps[name] for key, name in tests.items()}

    a = ctx.once("v300a", lambda: measure("v300a-120gb"))
    s = ctx.once("v300s", lambda: measure("v300s-120gb"))
    ratio = {k: a[k] / s[k] if s[k] else float("nan") for k in tests}
    passed = (
        ratio["seq_write"] < 0.8 and ratio["rand_write_qd32"] < 0.8 and 0.9 <= ratio["rand_read_qd1"] <= 1.1
    )
    measured = (
        f"V300A / V300S: seq write QD32 {ratio['seq_write']:.2f}, "
        f"4K write QD32 {ratio['rand_write_qd32']:.2f}, 4K read QD1 {ratio['rand_read_qd1']:.2f} "
        "(pass: < 0.8, < 0.8, 0.9-1.1)"
    )
    # Scaled: the preconditioning time scales with capacity, so the state it leaves does not depend on it.
    how = f"GamersNexus precondition (4K QD32, GB x 0.5 min), A vs S, scaled to {cap:g} GB"
    return Measured(measured, "", how, passed=passed)


# ---------------------------------------------------------------------------------------------------------
# Rows


def _select(fig: Figure, wanted: Sequence[str] | None) -> bool:
    if not wanted:
        return True
    return any(
        fig.name == w or fig.name.startswith(w + ".") or fig.table == w or fig.name.startswith(w + "[")
        for w in wanted
    )


def rows(
    presets: Sequence[str] | None = None,
    figures: Sequence[str] | None = None,
    quick: bool = False,
    set: Overrides = None,
    progress: Progress | None = None,
    jobs: int = 1,
    config: str | None = None,
) -> list[Row]:
    """Every published figure of ``presets`` (default: all drives with figures) against the model.

    ``figures`` narrows to tables (``"cdm"``), keys (``"cdm.seq_read_MBps"``) or curves (``"fill.curve"``).
    ``quick`` runs every method shorter (and fills on scaled drives): for tests, not for the figures.
    ``set`` overrides parameters of every drive measured (as ``--set`` does; e.g. a calibration's trial
    values). A preset that is not built in is a :class:`ssdlab.ConfigError`; a published drive with no preset
    yet gives rows that say so. ``jobs`` runs that many drives at a time, each in its own process (0: one
    per CPU); the rows are the same, in the same order. ``config`` (a drive's complete TOML, with one preset)
    is measured in that preset's place: how a calibration measures a trial's drive.

    Examples
    --------
    >>> [(r.figure, r.fit) for r in rows(["sn520-128gb"], figures=["fill.slc_cache_GB"], quick=True)]
    [('fill.slc_cache_GB', True)]
    """
    known = {*list_presets()}
    for p in presets or ():
        if p not in known:
            raise config_error(
                "preset",
                f"unknown preset {p!r}{near_hint(p, sorted(known))}; available: {', '.join(sorted(known))}",
                p,
            )
    wanted_presets = {*presets} if presets else None
    theirs = [
        f
        for f in _all_figures()
        if wanted_presets is None or f.drive in wanted_presets or {*f.with_presets} & wanted_presets
    ]
    for w in figures or ():
        if not any(_select(f, [w]) for f in theirs):
            tables = sorted({f.table for f in theirs})
            raise workload_error(
                "figures",
                f"no published figure or table {w!r} for {', '.join(presets or ['any drive'])}; "
                f"tables: {', '.join(tables)} (a figure is TABLE.KEY, as validate prints it)",
                w,
            )
    if config is not None and len(presets or ()) != 1:
        raise workload_error("config", "is measured in one preset's place: give exactly one preset", presets)
    configs = {presets[0]: config} if config is not None and presets else {}
    figs = [f for f in theirs if _select(f, figures)]
    by_drive = [list(g) for _, g in itertools.groupby(figs, key=lambda f: f.drive)]
    if jobs == 0:
        jobs = os.cpu_count() or 1
    if jobs < 0:
        raise workload_error("jobs", "must be 0 (one per CPU) or more", jobs)
    out: list[Row] = []
    if jobs == 1 or len(by_drive) < 2:
        for group in by_drive:
            done = len(out)  # one row a figure

            def tick(i: int, fig: Figure, done: int = done) -> None:
                if progress is not None:
                    progress((done + i) / len(figs), f"{fig.drive} {fig.name}")

            out += _drive_rows(group, quick, set, tick, configs)
    else:
        # A drive's figures share its suite runs (Context), so a drive is the unit of work; the longest
        # first, as its runs set the wall time. Rows keep the one-process order.
        order = sorted(range(len(by_drive)), key=lambda k: -_cost(by_drive[k]))
        results: dict[int, list[Row]] = {}
        spawn = multiprocessing.get_context("spawn")  # a fresh interpreter: no forked native state
        with ProcessPoolExecutor(max_workers=min(jobs, len(by_drive)), mp_context=spawn) as pool:
            pending = {pool.submit(_drive_rows, by_drive[k], quick, set, configs=configs): k for k in order}
            done = 0
            if progress is not None:
                progress(0.0, f"{len(by_drive)} drives on {min(jobs, len(by_drive))} processes")
            for fut in as_completed(pending):
                k = pending[fut]
                results[k] = fut.result()
                done += len(by_drive[k])
                if progress is not None:
                    progress(done / len(figs), f"{by_drive[k][0].drive} done")
        out = [r for k in range(len(by_drive)) for r in results[k]]
    if progress is not None:
        progress(1.0, "done")
    return out


def drive_file(path: str | Path) -> tuple[str, str]:
    """The preset whose figures a drive file of your own is validated against, and the file's complete
    config: its ``base`` (or, for a complete file as ``ssdlab show`` prints, its ``name``) must be a drive
    with published figures. The config is then measured in that preset's place (:func:`rows` ``config``).

    Examples
    --------
    >>> import tempfile
    >>> mine = Path(tempfile.mkdtemp()) / "mine.toml"
    >>> _ = mine.write_text('base = "sn520-128gb"\\nname = "mine"\\n[nand]\\ntR_us = [61.5]\\n')
    >>> preset, config = drive_file(mine)
    >>> preset, "tR_us = [61.5]" in config
    ('sn520-128gb', True)
    """
    path = Path(path)
    config = Drive.from_toml(path).config_toml()  # a bad file fails here, named
    own = tomllib.loads(path.read_text(encoding="utf-8"))
    published = sorted({f.drive for f in figures()} & {*list_presets()})
    for key in ("base", "name"):
        if own.get(key) in published:
            return str(own[key]), config
    named = own.get("base") or own.get("name")
    raise config_error(
        "base",
        f"{path.name} is validated against the figures of the preset it is based on, and "
        f"{named!r} has none; base it on one of {', '.join(published)}",
        named,
    )


def _cost(group: Sequence[Figure]) -> float:
    """A rough weight of a drive's validation for scheduling: its capacity (fills and prefills scale with
    it) times its tables."""
    if group[0].drive not in list_presets():  # its rows say so, at no cost
        return 0.0
    return Drive.from_preset(group[0].drive).capacity_bytes * len({f.table for f in group})


def _drive_rows(
    figs: Sequence[Figure],
    quick: bool,
    set: Overrides,
    tick: Callable[[int, Figure], None] | None = None,
    configs: dict[str, str] | None = None,
) -> list[Row]:
    """The rows of one drive's figures, in order, its suite runs shared (one :class:`Context`); ``configs``
    are measured in place of the presets they name (see :func:`rows`)."""
    known = {*list_presets()}
    out: list[Row] = []
    ctx: Context | None = None
    fitted: list[Fitted] | None = None
    for i, fig in enumerate(figs):
        if tick is not None:
            tick(i, fig)
        base = {
            "drive": fig.drive,
            "figure": fig.name,
            "source": fig.source,
            "kind": fig.kind,
            "published": fig.published,
            "reference": fig.reference,
        }
        if fig.drive not in known:
            out.append(
                Row(
                    **base,
                    method="no preset yet",
                    model=None,
                    unit="",
                    error_pct=None,
                    fit=None,
                    note=f"no built-in preset {fig.drive!r}",
                )
            )
            continue
        fn = _lookup(fig.table, fig.key)
        if fn is None:
            out.append(
                Row(
                    **base, method=_missing(fig.table, fig.key), model=None, unit="", error_pct=None, fit=None
                )
            )
            continue
        ctx = ctx or Context(fig.drive, quick, set, dict(configs or {}))
        m = fn(fig, ctx)
        if fitted is None:
            fitted = [f for p in (fig.drive, *fig.with_presets) for f in fitted_values(p)]
        numeric = isinstance(m.model, (int, float)) and not isinstance(m.model, bool)
        out.append(
            Row(
                **base,
                method=m.method if not quick or "quick" in m.method else f"{m.method} [quick]",
                model=m.model,
                unit=m.unit,
                error_pct=error_pct(fig.published, float(m.model)) if numeric else None,
                fit=None if m.model is None else m.in_sample or _in_sample(fig, fitted),
                note=m.note,
                passed=m.passed,
                quick=quick,
            )
        )
    return out


def _all_figures() -> list[Figure]:
    """The figures grouped by drive (in name order), each drive's in reference-file order."""
    return sorted(figures(), key=lambda f: f.drive)


# ---------------------------------------------------------------------------------------------------------
# Output: the terminal table lives in the CLI; markdown for the README here


def _fmt(v: Any) -> str:
    if v is None:
        return "-"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, (list, tuple)):
        return _fmt(v[0]) if len(set(v)) == 1 else "-".join(_fmt(x) for x in v)
    if isinstance(v, float | int):
        return f"{v:,.3g}" if abs(v) < 10 else f"{v:,.0f}"
    return str(v)


def result_text(r: Row) -> str:
    """The error column: ``+8.0%``, ``pass``/``FAIL`` for a check, ``-`` when nothing was measured."""
    if r.passed is not None:
        return "pass" if r.passed else "FAIL"
    return "-" if r.error_pct is None else f"{r.error_pct:+.1f}%"


def sample_text(r: Row) -> str:
    return {True: "in-sample", False: "hold-out", None: "-"}[r.fit]


def markdown(rs: Sequence[Row]) -> str:
    """The rows as a markdown table (the README's fidelity table)."""
    lines = [
        "| drive | figure | source | published | model | error | sample | method |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rs:
        model = r.model
        pub = _fmt(r.published)
        unit = f" {r.unit}" if r.unit and r.passed is None else ""
        cells = [
            r.drive,
            f"`{r.figure}`",
            r.source,
            (pub + unit) if not isinstance(r.published, str) else f'"{pub}"',
            _fmt(model) + (unit if isinstance(model, float | int) else ""),
            result_text(r),
            sample_text(r),
            r.method,
        ]
        lines.append("| " + " | ".join(str(c).replace("|", "/").replace("\n", " ") for c in cells) + " |")
    return "\n".join(lines) + "\n"


START = "<!-- fidelity:start"
END = "<!-- fidelity:end -->"


def model_hash() -> str:
    """A hash of everything the table depends on: the package's Python and TOML files (presets, reference
    data, suites, this module) and the engine (its Rust sources when run from a checkout, else the compiled
    module; its tests and benchmarks are not the model). The README's table carries the hash it was made
    from."""
    pkg = Path(str(resources.files("ssdlab")))
    files = sorted(p for p in pkg.rglob("*") if p.suffix in (".py", ".toml") and "__pycache__" not in p.parts)
    crates = pkg.parent.parent / "crates"
    if crates.is_dir():
        files += sorted(crates.glob("*/src/**/*.rs"))
    else:
        files += sorted(pkg.glob("_core*.so")) + sorted(pkg.glob("_core*.pyd"))
    h = hashlib.sha256()
    for p in files:
        h.update(str(p.relative_to(pkg.parent.parent if crates.is_dir() else pkg)).encode())
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def within_10(rs: Sequence[Row]) -> tuple[int, int]:
    """How many of the measured rows are within 10% (or their check passes), of how many.

    Examples
    --------
    >>> rows = [Row("d", "x", "s", "spec", "m", 100, 105.0, "MB/s", 5.0, True),
    ...         Row("d", "y", "s", "spec", "m", 100, 130.0, "MB/s", 30.0, False)]
    >>> within_10(rows), within_10([r for r in rows if r.fit is False])
    ((1, 2), (0, 1))
    """
    n = [r for r in rs if r.error_pct is not None or r.passed is not None]
    return sum(1 for r in n if (r.passed if r.passed is not None else abs(r.error_pct or 0) <= 10)), len(n)


def summary(rs: Sequence[Row]) -> str:
    """How many figures are within 10%, in all, in sample and held out (the line under ``validate``'s table
    and in the README)."""
    (within, n), (fit_ok, fit_n) = within_10(rs), within_10([r for r in rs if r.fit is True])
    held_ok, held_n = within_10([r for r in rs if r.fit is False])
    return (
        f"{within} of {n} measured figures within 10% (or their check passing): in-sample {fit_ok} of "
        f"{fit_n}, hold-out {held_ok} of {held_n}"
    )


def readme_block(rs: Sequence[Row], digest: str) -> str:
    """The README's fidelity section between its markers: a line saying how it was made, then the table."""
    head = (
        f"{START} model {digest}; regenerate with `make fidelity` -->\n"
        f"Made by `ssdlab validate --markdown` (all presets, full methods). {summary(rs)}. `sample`: "
        "in-sample = some preset value was fitted to the figure, hold-out = none was.\n\n"
    )
    return head + markdown(rs) + END


def update_readme(path: str | Path, rs: Sequence[Row], digest: str | None = None) -> bool:
    """Replace the fidelity section of the README at ``path`` (between its markers) with ``rs``; True when the
    file changed. A README without the markers is an error naming them."""
    p = Path(path)
    text = p.read_text(encoding="utf-8")
    a, b = text.find(START), text.find(END)
    if a < 0 or b < a:
        raise ValueError(f"{p}: no fidelity markers ({START} ... {END})")
    new = text[:a] + readme_block(rs, digest or model_hash()) + text[b + len(END) :]
    if new != text:
        p.write_text(new, encoding="utf-8")
    return new != text


def readme_digest(path: str | Path) -> str | None:
    """The model hash the README's fidelity table was made from (None if it has no table)."""
    m = re.search(re.escape(START) + r" model ([0-9a-f]+)", Path(path).read_text(encoding="utf-8"))
    return m.group(1) if m else None
