"""``ssdlab calibrate``: fit a preset's free parameters to its published figures.

What is fitted, and to what, is the preset's ``[calibration]`` table (inherited from its base like any
table; the engine never reads it)::

    [calibration]
    figures = ["bg4-128gb.fill.curve", "bg4-128gb.fill.slc_cache_GB"]   # fitted to
    holdout = ["bg4-128gb.fill.fill_avg_MBps"]                          # reported, never fitted to
    [calibration.free]
    "nand.slc_tPROG_us" = [100.0, 400.0]                                # TOML path = [min, max]

A figure is ``DRIVE.TABLE.KEY`` of the reference data (:mod:`ssdlab.reference`): a whole-drive fill figure,
or any number of a built-in preset's tables that ``ssdlab validate`` measures (CrystalDiskMark, spec sheet,
AnandTech, power, ...), by the same method. Every figure is measured on the drive being fitted. Fill figures
of your own (say, of a real drive measured with ``ssdlab run --suite fill --target DEVICE``) come from a
TOML file in the reference layout or a saved result, named by the file's stem; a saved result of any other
suite gives its headline figures, measured by that suite as the result was run (:func:`published_with`,
``ssdlab calibrate --reference FILE``).

How a fit runs
--------------
- **Trials.** A trial is one complete config (the preset with the trial's values as ``--set`` overrides)
  run through the figures' methods; :func:`evaluate` is a pure function of that config, so a trial gives the
  same errors on any worker, bit for bit (the drive's and the workloads' seeds are in it).
- **Objective.** The root mean square of the in-sample figures' errors (%); the hold-out figures are
  measured by the same run and stored with the trial, but never enter the objective. A fill curve is
  compared by its levels (:func:`fill_curve_errors`): the speed of each published segment and where each
  starts; the SLC size and the fill average are figures of their own.
- **Sampler.** optuna's TPE (multivariate, constant liar), seeded. Not CMA-ES: the objective is piecewise
  constant (levels are found on a 1 GB grid and switch discontinuously), the budgets are tens of trials
  over 1-5 parameters, trials finish out of order on several workers, and parameters may be integers; TPE
  takes all of that, where CMA-ES stalls on plateaus, works in synchronous generations and needs a
  package more. The first trial is the preset's current values, so a fit never ends worse than it began.
- **Study.** optuna's RDB storage in SQLite (``--study``, by default ``results/calibrate-PRESET.sqlite``).
  Only this process touches it (ask and tell); workers get plain data. Interrupted (Ctrl-C, or killed), the
  same command resumes: trials left running are run again, and ``--budget`` counts completed trials of the
  whole study.
- **Workers.** dask.distributed: a LocalCluster of ``--workers`` processes, or ``--scheduler
  tcp://HOST:8786`` for a cluster whose workers have the same ssdlab installed.
- **Writing.** ``--write`` puts each fitted value where the preset's chain sets it (the preset file, or
  the family file it inherits the value from; for a drive file outside the package, that file), with a
  ``# fitted by ssdlab calibrate DATE to FIGURES: error BEFORE% -> AFTER% (was OLD)`` line above it.

Examples
--------
>>> from ssdlab.calibrate import load_plan
>>> plan = load_plan("bg4-128gb")
>>> [p.path for p in plan.free]
['ftl.slc_cache.dynamic_max_pct', 'ftl.slc_cache.fold_whole_blocks_above_fill', 'nand.slc_tPROG_us']
>>> plan.figures, plan.holdout
(['bg4-128gb.fill.curve', 'bg4-128gb.fill.slc_cache_GB'], ['bg4-128gb.fill.fill_avg_MBps'])
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import time
import tomllib
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ssdlab import reference, suites, validate
from ssdlab._dask import client as dask_client
from ssdlab.compare import adopt_options
from ssdlab.drive import Drive, config_value
from ssdlab.errors import SimulationError, config_error, read_text_file
from ssdlab.presets import _folder as presets_folder
from ssdlab.presets import list_presets, preset_path, read_preset, resolve_base
from ssdlab.suites import SuiteOptions
from ssdlab.suites._reference import error_pct
from ssdlab.suites.fill import FillResult, run_fill
from ssdlab.units import GB

__all__ = [
    "DEFAULT_BUDGET",
    "FigureError",
    "FreeParam",
    "Outcome",
    "Plan",
    "evaluate",
    "fill_curve_errors",
    "load_plan",
    "measurable",
    "objective",
    "run",
    "set_toml_value",
    "write_fitted",
]

#: Completed trials a study holds by default: a trial of a 128 GB fill takes ~1.5-3 s, so this is a few
#: minutes on 2 workers, and TPE has long converged on 3 parameters by then.
DEFAULT_BUDGET = 120

#: Figures whose published value is a fill-curve table (``reference.fill_curve`` layout).
FILL_KEYS = ("curve", "fill_avg_MBps", "slc_cache_GB")


@dataclass(frozen=True)
class FreeParam:
    """A free parameter: its TOML path, search range, whether it is an integer, its value in the preset."""

    path: str
    low: float
    high: float
    integer: bool
    current: float

    def format(self, value: float) -> str:
        """``value`` as TOML, rounded to 1/10000 of the range (what ``--write`` puts in the file).

        Examples
        --------
        >>> FreeParam("nand.slc_tPROG_us", 100.0, 400.0, False, 180.0).format(183.4567891)
        '183.46'
        >>> FreeParam("controller.cores", 1, 4, True, 2).format(3.0)
        '3'
        """
        if self.integer:
            return str(round(value))
        digits = max(0, 4 - math.floor(math.log10(self.high - self.low)))
        return repr(float(round(value, digits)))


@dataclass(frozen=True)
class Plan:
    """What a calibration fits: the drive (complete TOML), its free parameters, the figures."""

    #: The preset name or drive file given.
    preset: str
    #: The drive's complete TOML, its base chain resolved.
    toml: str
    free: list[FreeParam]
    figures: list[str]
    holdout: list[str]
    #: Published value of every figure (in-sample and hold-out), by name.
    published: dict[str, Any]
    #: Files ``--write`` may change, nearest first: the preset and its bases, or the one drive file given.
    files: list[Path]
    #: How to measure the figures of saved results of your own (:func:`published_with`): ``DRIVE.SUITE``
    #: -> the suite, its options and seed, as the result records them.
    runs: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return str(tomllib.loads(self.toml)["name"])


@dataclass(frozen=True)
class FigureError:
    """One figure's model value against the published one; a fill curve's parts are figures of their own."""

    figure: str
    published: float | None
    model: float | None
    unit: str
    error_pct: float
    parts: tuple[FigureError, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "figure": self.figure,
            "published": self.published,
            "model": self.model,
            "unit": self.unit,
            "error_pct": self.error_pct,
            "parts": [p.to_dict() for p in self.parts],
        }

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> FigureError:
        parts = tuple(cls.from_dict(p) for p in d.get("parts", ()))
        return cls(d["figure"], d["published"], d["model"], d["unit"], d["error_pct"], parts)


# --- the plan: [calibration] of the preset ------------------------------------------------------------


_lookup = config_value  # a dotted TOML path of a parsed config


def _base_chain(path: Path) -> list[Path]:
    """The file and the bases it inherits from, nearest first (the rule of the native resolver:
    ``families/NAME.toml`` first, then ``NAME.toml``, in the built-in presets folder)."""
    folder = Path(str(presets_folder()))
    chain = [path]
    while True:
        base = tomllib.loads(chain[-1].read_text(encoding="utf-8")).get("base")
        if not isinstance(base, str):
            return chain
        found = [p for p in (folder / "families" / f"{base}.toml", folder / f"{base}.toml") if p.is_file()]
        if not found or found[0] in chain:  # the resolver has already rejected both
            return chain
        chain.append(found[0])


def load_plan(preset: str, published: Callable[[str], Mapping[str, Any] | None] = reference.figures) -> Plan:
    """The calibration of ``preset`` (a built-in name or a drive TOML file): its free parameters and figures.

    ``published`` gives a drive's reference tables (default: the package's reference data; tests pass their
    own). Raises :class:`ssdlab.ConfigError` naming the problem: an unknown preset or file, no
    ``[calibration]`` table, a free key that is not a number of the config or a bad range (the native
    validation), a figure that is not published or that calibrate cannot measure.
    """
    if preset in list_presets():
        text = read_preset(preset)
        files = _base_chain(Path(str(preset_path(preset))))
    else:
        path = Path(preset)
        if path.suffix != ".toml":
            preset_path(preset)  # raises: unknown preset, naming the available ones
        text = resolve_base(read_text_file(path, "drive file"), str(path))
        files = [path]
    toml = Drive.from_toml_str(text).config_toml()  # the native validation of [calibration] too
    cfg = tomllib.loads(toml)
    cal = cfg.get("calibration")
    if not cal or not any(cal.get("free", {}).values()):  # [] takes a base's parameter back
        raise config_error(
            "calibration",
            f"{preset} has no [calibration] table with free parameters; add one (docs/model.md, Calibration)",
            preset,
        )
    free = []
    for key, bounds in sorted(cal["free"].items()):
        if not bounds:  # taken back: not free in this drive
            continue
        low, high = bounds
        current = _lookup(cfg, key)
        if not low <= current <= high:  # the fit would start from another drive than the one given
            raise config_error(
                f"calibration.free.{key}",
                f"the drive's value {current} is outside the range [{low}, {high}]: widen the range or "
                "change the value",
                current,
            )
        free.append(FreeParam(key, float(low), float(high), isinstance(current, int), float(current)))
    figures = _expand_saved(list(cal["figures"]), published)
    holdout = _expand_saved(list(cal.get("holdout", [])), published)
    values, runs = {}, {}
    # rows and segments, as validate names them (DRIVE.TABLE.KEY[PART]): their published values
    parts = (
        {(f.drive, f.name): f.published for f in validate.figures()} if "[" in str(figures + holdout) else {}
    )
    for name in figures + holdout:
        where = "calibration.figures" if name in figures else "calibration.holdout"
        drive, _, rest = name.partition(".")
        table_name, _, key = rest.partition(".")
        saved = _saved_result(published, drive, table_name)
        if saved is not None:  # a headline figure of a saved result of your own: that suite measures it
            if key not in saved["headlines"]:
                raise config_error(
                    where,
                    f"is not a figure of the saved {table_name} result {saved['source']}; its figures: "
                    f"{', '.join(saved['headlines'])} (or {drive}.{table_name}.* for all of them)",
                    name,
                )
            values[name] = saved["headlines"][key]
            runs[f"{drive}.{table_name}"] = {k: saved[k] for k in ("suite", "options", "seed")}
            continue
        if "[" in key:  # a row or segment: validate's figure of that name
            value = parts.get((drive, rest))
        else:
            tables = published(drive) if drive and key else None
            value = _lookup(tables, f"{table_name}.{key}") if tables is not None else None
        if value is None:
            raise config_error(
                where,
                "is not a published figure DRIVE.TABLE.KEY (or DRIVE.TABLE.KEY[PART], as `ssdlab validate` "
                "names it) of the reference data, nor of a file of your own given with --reference",
                name,
            )
        if not measurable(name):
            raise config_error(
                where,
                "calibrate measures a built-in preset's figures that `ssdlab validate` has a method for "
                f"(and the fill figures {', '.join(f'DRIVE.fill.{k}' for k in FILL_KEYS)}); other figures "
                "of your own come as a saved result of the suite that measures them (--reference RESULT)",
                name,
            )
        if not _is_number(value):
            raise config_error(where, "is a statement, not a number or a range: a fit needs a number", name)
        values[name] = value
    return Plan(preset, toml, free, figures, holdout, values, files, runs)


def _saved_result(
    published: Callable[[str], Mapping[str, Any] | None], drive: str, table: str
) -> Mapping[str, Any] | None:
    """The table ``table`` of ``drive``'s figures if it is a saved result of your own (its headline figures,
    suite and options: :func:`_result_figures`), else None."""
    tables = published(drive) if drive and table else None
    body = tables.get(table) if tables else None
    return body if isinstance(body, Mapping) and "headlines" in body else None


def _parts(name: str) -> tuple[str, str, str]:
    """A figure name's DRIVE, TABLE and KEY (``""`` for a part it lacks; the KEY keeps any dots of its own).

    >>> _parts("me.cdm8.SEQ1M Q8T1 read MB/s"), _parts("me")
    (('me', 'cdm8', 'SEQ1M Q8T1 read MB/s'), ('me', '', ''))
    """
    drive, table, key = [*name.split(".", 2), "", ""][:3]
    return drive, table, key


def _table_of(name: str) -> str:
    """The ``DRIVE.TABLE`` of a figure ``DRIVE.TABLE.KEY`` (a saved result's key in :attr:`Plan.runs`)."""
    return ".".join(name.split(".", 2)[:2])


def _expand_saved(names: Sequence[str], published: Callable[[str], Mapping[str, Any] | None]) -> list[str]:
    """``names`` with each ``DRIVE.SUITE.*`` of a saved result of your own spelled out, a name a figure."""
    out = []
    for name in names:
        drive, table, key = _parts(name)
        saved = _saved_result(published, drive, table) if key == "*" else None
        out += [f"{drive}.{table}.{h}" for h in saved["headlines"]] if saved is not None else [name]
    return out


def published_with(
    path: str | Path, base: Callable[[str], Mapping[str, Any] | None] = reference.figures
) -> tuple[str, Callable[[str], Mapping[str, Any] | None]]:
    """Figures of your own for :func:`load_plan`, named by the file's stem: the TOML file ``path`` in the
    reference data's layout, or a suite result saved as JSON (what ``ssdlab run`` writes, of a twin or of a
    ``--target``). Returns that name and a ``published`` lookup that gives the file's tables for it and
    ``base``'s for every other drive (the package's reference data, or another file's lookup: figures of
    several files of your own).

    - A TOML file gives fill figures only (``[fill]`` with ``curve``, a list of ``[fill from, fill to, MB/s
      low, MB/s high]`` segments, ``fill_avg_MBps`` and ``slc_cache_GB``): the other methods measure a
      built-in preset's own figures. :func:`load_plan` refuses any other figure by name.
    - A fill result gives ``fill.curve`` (its levels, each at its own speed) and ``fill.fill_avg_MBps``
      (the mean of its per-GB speeds, as AIDA64 averages).
    - Any other suite's result gives its headline figures (what ``ssdlab compare`` lists) as ``SUITE.NAME``,
      ``SUITE`` the result's suite (``cdm8``) and ``NAME`` the figure (``SEQ1M Q8T1 read MB/s``); a trial
      measures them by running that suite with the options the result records (``SUITE.*``: all of them).

    Examples
    --------
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "my-ssd.toml"
    >>> _ = path.write_text("[fill]\\ncurve = [[0.0, 0.1, 900, 950], [0.1, 1.0, 300, 320]]\\n")
    >>> name, published = published_with(path)
    >>> name, published("my-ssd")["fill"]["curve"][1], published("bg4-128gb")["fill"]["fill_avg_MBps"]
    ('my-ssd', [0.1, 1.0, 300, 320], 215)
    """
    path = Path(path)
    text = read_text_file(path, "figures file")
    tables = _result_figures(text, path) if path.suffix == ".json" else _toml_figures(text, path)
    name = path.stem
    if name in reference.names():
        raise config_error(
            "--reference",
            f"{path.name} would stand for the built-in reference data {name!r}: give your file another name "
            "(its figures are NAME.fill.KEY, NAME the file's stem)",
            str(path),
        )
    if base(name) is not None:
        raise config_error("--reference", f"two files of figures named {name!r}: rename one", str(path))
    if not any(isinstance(t, dict) for t in tables.values()):
        raise config_error(
            "--reference",
            f"{path} holds no table of figures; e.g. [fill] with curve = [[0.0, 0.1, 900, 950]]",
            str(path),
        )

    def published(drive: str) -> Mapping[str, Any] | None:
        return tables if drive == name else base(drive)

    return name, published


def _toml_figures(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise config_error("--reference", f"{path} is not valid TOML: {e}", str(path)) from None


def _result_figures(text: str, path: Path) -> dict[str, Any]:
    """The figures of a saved suite result: a fill's as :func:`_fill_result_figures` reads them, any other
    suite's headline figures with the suite, options and seed that measure them again."""
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise config_error("--reference", f"{path} is not valid JSON: {e}", str(path)) from None
    suite = doc.get("suite") if isinstance(doc, dict) else None
    if not isinstance(suite, str) or suite not in suites.registry():
        raise config_error(
            "--reference",
            f"{path} is not a suite result (the JSON ssdlab run writes into --out)",
            str(path),
        )
    if problem := suites.unreadable(doc):
        raise config_error("--reference", f"{path}: {problem}", str(path))
    if suite == "fill":
        return _fill_result_figures(doc, path)
    given = adopt_options(SuiteOptions(), doc.get("options") or {}, str(path))
    suites.get(suite).check(given)  # a trial runs the suite with them: refuse here, not on every worker
    options = given.given_values()
    headlines = {h.name: h.value for h in suites.headline(doc) if h.value}  # a zero has no relative error
    if not headlines:
        raise config_error(
            "--reference", f"{path} holds no figures: its {suite} result measured none", str(path)
        )
    return {
        suite: {
            "source": str(path),
            "suite": suite,
            "options": options,
            "seed": int(doc.get("seed", 1)),
            "headlines": headlines,
        }
    }


def _fill_result_figures(doc: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """The fill figures of a saved fill result: its levels as the curve, the mean of its per-GB speeds."""
    if not doc.get("points"):
        raise config_error("--reference", f"{path} holds no figures: its fill measured no point", str(path))
    curve = [[lv["fill_start"], lv["fill_end"], lv["mbps"], lv["mbps"]] for lv in doc["levels"]]
    speeds = [p["mbps"] for p in doc["points"]]
    return {"fill": {"source": str(path), "curve": curve, "fill_avg_MBps": sum(speeds) / len(speeds)}}


# --- the objective -------------------------------------------------------------------------------------


def _relative(model: float, low: float, high: float | None = None) -> float:
    """How far ``model`` is from a published value or range [low, high], in %: ``validate``'s error
    (:func:`ssdlab.suites._reference.error_pct`), unsigned; infinite against a published zero."""
    err = error_pct([low, low if high is None else high], model)
    return math.inf if err is None else abs(err)


def _rms(errors: Sequence[float]) -> float:
    return math.sqrt(sum(e * e for e in errors) / len(errors)) if errors else 0.0


def fill_curve_errors(result: FillResult, curve: Sequence[Sequence[float]], name: str) -> FigureError:
    """A fill curve against a published one, level by level.

    Parts: for each published segment ``[start, end, low, high]``, the speed (the model's throughput over
    the segment, :func:`ssdlab.suites.fill.compare_fill_curve`; 0 inside [low, high]); for each segment
    after a change of speed, where it starts. The model's start is where its first level
    (:meth:`FillResult.levels`) nearer in speed (by ratio) to this segment than to the one before begins,
    taken halfway across the transition point before it; the error is the shift in % of the smaller side of
    the published boundary (``min(start, 1 - start)``: at 14% full it is the SLC size's error, at 90% the
    last level's length's). The figure's error is the RMS of its parts.

    Examples
    --------
    >>> from ssdlab.counters import Counters
    >>> from ssdlab.suites.fill import FillPoint
    >>> speeds = [800] * 2 + [200] * 8   # 10 points of 1 GB: SLC to 20%, then 200 MB/s
    >>> pts = [FillPoint(i, (i + 1) * GB, GB, GB / (s * 1e6), i / 10, (i + 1) / 10, 0, 0, 0, 0, 0)
    ...        for i, s in enumerate(speeds)]
    >>> res = FillResult("x", 10 * GB, 131072, 32, GB, pts, Counters({}), "")
    >>> err = fill_curve_errors(res, [[0.0, 0.25, 800, 800], [0.25, 1.0, 200, 200]], "x.fill.curve")
    >>> [(p.figure, round(p.error_pct, 1)) for p in err.parts]
    [('x.fill.curve[0] MB/s', 0.0), ('x.fill.curve[1] MB/s', 0.0), ('x.fill.curve[1] start', 20.0)]
    """
    checks = result.compare(curve)
    parts: list[FigureError] = []
    for i, c in enumerate(checks):
        mbps = c.mbps if c.mbps is not None else 0.0
        parts.append(
            FigureError(
                f"{name}[{i}] MB/s",
                (c.low_mbps + c.high_mbps) / 2,
                mbps,
                "MB/s",
                _relative(mbps, c.low_mbps, c.high_mbps),
            )
        )
    levels = result.levels()
    for i in range(1, len(checks)):
        prev, seg = checks[i - 1], checks[i]
        if prev.low_mbps <= seg.high_mbps and seg.low_mbps <= prev.high_mbps:
            continue  # same speed: no boundary to place
        here = math.sqrt(seg.low_mbps * seg.high_mbps)
        before = math.sqrt(prev.low_mbps * prev.high_mbps)
        start = 1.0  # the level never comes
        for j, lv in enumerate(levels):
            if lv.fill_start >= prev.fill_start and abs(math.log(lv.mbps / here)) < abs(
                math.log(lv.mbps / before)
            ):
                start = lv.fill_start if j == 0 else (levels[j - 1].fill_end + lv.fill_start) / 2
                break
        side = min(seg.fill_start, 1 - seg.fill_start)
        error = abs(start - seg.fill_start) / side * 100 if side > 0 else 0.0
        parts.append(FigureError(f"{name}[{i}] start", seg.fill_start, start, "fill", error))
    return FigureError(name, None, None, "%", _rms([p.error_pct for p in parts]), tuple(parts))


def slc_cache_gb(result: FillResult) -> float:
    """GB the SLC cache took at SLC speed from empty, read off the curve as ``ssdlab validate`` reads it
    (:meth:`FillResult.cache_seen_bytes`: the chunk where the speed fell is split by time, so the figure moves
    smoothly with the parameters, not on the 1 GB grid)."""
    return result.cache_seen_bytes() / GB


def _fill_error(result: FillResult, name: str, published: Any) -> FigureError:
    key = name.rsplit(".", 1)[1]
    if key == "curve":
        return fill_curve_errors(result, published, name)
    if key == "slc_cache_GB":
        model = slc_cache_gb(result)
        return FigureError(name, float(published), model, "GB", _relative(model, float(published)))
    model = sum(result.mbps) / len(result.mbps)  # AIDA64's average, as validate measures it
    return FigureError(name, float(published), model, "MB/s", _relative(model, float(published)))


def evaluate(
    drive_toml: str,
    values: Mapping[str, float | int],
    published: Mapping[str, Any],
    runs: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, FigureError]:
    """Per-figure errors of the drive ``drive_toml`` with ``values`` set (``{TOML path: value}``), against
    ``published`` (``{figure: published value}``). A pure function of its arguments: this is a trial, run on
    any worker.

    The one fill (AnandTech's method, :func:`ssdlab.suites.fill.run_fill`) serves every fill figure; the
    figures of a saved result of your own (``runs``: ``DRIVE.SUITE`` -> suite, options, seed, as
    :attr:`Plan.runs`) are measured by one run of that suite as the result was run; every other figure by
    the method ``ssdlab validate`` runs for it (its source's), on this config.

    Examples
    --------
    >>> plan = load_plan("bg4-128gb")
    >>> small = Drive.from_preset("bg4-128gb", capacity_gb=16).config_toml()
    >>> errs = evaluate(small, {"nand.slc_tPROG_us": 250.0}, plan.published)
    >>> sorted(errs) == sorted(plan.figures + plan.holdout)
    True
    >>> errs == evaluate(small, {"nand.slc_tPROG_us": 250.0}, plan.published)   # deterministic
    True
    """
    fill_figures = {name: value for name, value in published.items() if _is_fill(name)}
    out = {}
    if fill_figures:
        fill = run_fill(Drive.from_toml_str(drive_toml, set=dict(values)))
        out = {name: _fill_error(fill, name, value) for name, value in fill_figures.items()}
    runs = runs or {}
    for table, run in runs.items():
        mine = {name: v for name, v in published.items() if name.startswith(table + ".")}
        out |= _saved_run_errors(Drive.from_toml_str(drive_toml, set=dict(values)), run, mine)
    # Every other figure: `ssdlab validate` measures it by its source's method, this config standing in for
    # the preset that published it (as the fill above is this config's, whichever drive's curve it meets).
    by_drive: dict[str, list[str]] = {}
    for name in published:
        if not _is_fill(name) and _table_of(name) not in runs:
            drive, _, figure = name.partition(".")
            by_drive.setdefault(drive, []).append(figure)
    for drive, figures in by_drive.items():
        rows = validate.rows([drive], figures=figures, set=dict(values), config=drive_toml)
        for figure in figures:
            name = f"{drive}.{figure}"
            out[name] = _validate_error(name, published[name], [r for r in rows if r.figure == figure])
    return out


def _saved_run_errors(
    drive: Drive, run: Mapping[str, Any], published: Mapping[str, Any]
) -> dict[str, FigureError]:
    """The figures ``published`` (``DRIVE.SUITE.NAME`` -> value) of one saved result, measured on ``drive``
    by its suite with the result's options and seed."""
    suite = suites.get(str(run["suite"]))
    options = SuiteOptions(**run["options"], seed=int(run["seed"]))
    measured = {h.name: h for h in suites.headline(suite.run(drive, options, None).to_dict())}
    out = {}
    for name, value in published.items():
        h = measured.get(_parts(name)[2])
        model = None if h is None or h.value is None else float(h.value)
        err = math.inf if model is None else _relative(model, float(value))
        out[name] = FigureError(name, float(value), model, "" if h is None else h.unit, err)
    return out


def _validate_error(name: str, published: Any, rows: Sequence[validate.Row]) -> FigureError:
    """A figure ``validate`` measured against its ``published`` value or range (a figure of several rows:
    the RMS of their own errors)."""
    if len(rows) == 1 and isinstance(rows[0].model, int | float) and not isinstance(rows[0].model, bool):
        model = float(rows[0].model)
        low, high = (published, None) if isinstance(published, int | float) else published
        pub = float(published) if isinstance(published, int | float) else None
        return FigureError(name, pub, model, rows[0].unit, _relative(model, float(low), high))
    parts = tuple(
        FigureError(r.figure, None, None, r.unit, math.inf if r.error_pct is None else abs(r.error_pct))
        for r in rows
    )
    return FigureError(
        name, None, None, "%", _rms([p.error_pct for p in parts]) if parts else math.inf, parts
    )


def _is_number(value: Any) -> bool:
    """A published number, or a range of two (a fill curve's table counts: its levels are numbers)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    return isinstance(value, list) and all(_is_number(v) for v in value)


def _is_fill(name: str) -> bool:
    _, table, key = _parts(name)
    return table == "fill" and key in FILL_KEYS


def measurable(name: str) -> bool:
    """Whether :func:`evaluate` can measure figure ``name`` (``DRIVE.TABLE.KEY``): a fill figure, or one of a
    built-in preset's tables that ``ssdlab validate`` has a method for.

    Examples
    --------
    >>> measurable("bg4-128gb.fill.curve"), measurable("bg4-1tb.cdm.seq_read_MBps")
    (True, True)
    >>> measurable("sn520-128gb.spec.controller"), measurable("my-drive.cdm.seq_read_MBps")
    (False, False)
    >>> measurable("enterprise-tlc.db_test.avg_lat_us_no_suspend[2r1w_1thread write]")  # a row of a table
    True
    """
    drive, _, rest = name.partition(".")
    table, _, key = rest.partition(".")
    if _is_fill(name):
        return True
    return drive in list_presets() and validate.has_method(table, key.partition("[")[0])


def objective(errors: Mapping[str, FigureError], figures: Sequence[str]) -> float:
    """What a fit minimises: the RMS of the in-sample figures' errors, %.

    Examples
    --------
    >>> e = {"a": FigureError("a", 1, 1.3, "", 30.0), "b": FigureError("b", 1, 1.4, "", 40.0)}
    >>> objective(e, ["a", "b"]), objective(e, ["a"])
    (35.35533905932738, 30.0)
    """
    return _rms([errors[f].error_pct for f in figures])


# --- the study -----------------------------------------------------------------------------------------


def _trial_values(plan: Plan, params: Mapping[str, Any]) -> dict[str, float | int]:
    return {p.path: (int(params[p.path]) if p.integer else float(params[p.path])) for p in plan.free}


def _distributions(plan: Plan) -> dict[str, Any]:
    from optuna.distributions import FloatDistribution, IntDistribution

    return {
        p.path: IntDistribution(math.ceil(p.low), math.floor(p.high))
        if p.integer
        else FloatDistribution(p.low, p.high)
        for p in plan.free
    }


def _study_signature(plan: Plan) -> str:
    """What a study is for: a resumed study must fit the same parameters over the same ranges to the same
    figures, on the same drive: every value of its config but the free ones (which a ``--write`` moves)."""
    cfg = tomllib.loads(plan.toml)
    for p in plan.free:
        section, _, key = p.path.rpartition(".")
        table = _lookup(cfg, section) if section else cfg
        if isinstance(table, dict):
            table.pop(key, None)
    return json.dumps(
        {
            "drive": plan.name,
            "config": hashlib.sha256(json.dumps(cfg, sort_keys=True).encode()).hexdigest(),
            "free": {p.path: [p.low, p.high] for p in plan.free},
            "figures": plan.figures,
            "holdout": plan.holdout,
            "published": plan.published,
            **({"runs": plan.runs} if plan.runs else {}),  # studies from before saved results keep theirs
        },
        sort_keys=True,
    )


def _open_study(plan: Plan, path: Path, seed: int) -> Any:
    import optuna
    import sqlalchemy.exc

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    storage = f"sqlite:///{path}"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # A resumed study's sampler draws on from where its trials are, not again from the first draw.
        try:
            seed += len(optuna.load_study(study_name="ssdlab-calibrate", storage=storage).trials)
        except KeyError:
            pass
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            sampler = optuna.samplers.TPESampler(
                seed=seed,
                multivariate=True,
                constant_liar=True,
                n_startup_trials=min(10, 2 + 2 * len(plan.free)),
            )
        study = optuna.create_study(
            study_name="ssdlab-calibrate",
            storage=storage,
            direction="minimize",
            sampler=sampler,
            load_if_exists=True,
        )
    except (OSError, sqlalchemy.exc.SQLAlchemyError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else getattr(e, "orig", e)
        raise config_error("--study", f"cannot open the study as SQLite: {reason}", str(path)) from None
    signature = _study_signature(plan)
    old = study.user_attrs.get("signature")
    if old is None:
        study.set_user_attr("signature", signature)
    elif old != signature:
        raise config_error(
            "--study",
            f"{path} holds a calibration of another drive config, other parameters, ranges or figures; "
            "give another --study file (or delete this one to start over)",
            str(path),
        )
    return study


def _recover_and_seed(study: Any, start: Mapping[str, float | int]) -> None:
    """Trials left running by an interrupted run go back in the queue (run again, same values); a new
    study first runs the preset as it is."""
    from optuna.trial import TrialState

    if not study.get_trials(deepcopy=False):
        study.enqueue_trial(dict(start))
        return
    for t in study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
        study.enqueue_trial(dict(t.params), skip_if_exists=False)
        study.tell(t.number, state=TrialState.FAIL)


@dataclass
class Outcome:
    """A finished calibration: the study's best values, before/after errors, and the run's figures."""

    plan: Plan
    before: dict[str, float | int]
    after: dict[str, float | int]
    before_errors: dict[str, FigureError]
    after_errors: dict[str, FigureError]
    trials: int
    new_trials: int
    wall_s: float
    #: Mean wall time of a trial on a worker (its fill), over this run's trials.
    trial_s: float
    study_path: Path
    written: list[Path] = field(default_factory=list)

    @property
    def error_before(self) -> float:
        return objective(self.before_errors, self.plan.figures)

    @property
    def error_after(self) -> float:
        return objective(self.after_errors, self.plan.figures)


def _start_values(plan: Plan) -> dict[str, float | int]:
    """The preset's current values (inside their ranges: :func:`load_plan` checks)."""
    return {p.path: int(p.current) if p.integer else p.current for p in plan.free}


def _timed_evaluate(
    drive_toml: str,
    values: Mapping[str, float | int],
    published: Mapping[str, Any],
    runs: Mapping[str, Mapping[str, Any]],
) -> tuple[dict[str, dict[str, Any]], float]:
    t0 = time.perf_counter()
    errors = evaluate(drive_toml, values, published, runs)
    return {k: v.to_dict() for k, v in errors.items()}, time.perf_counter() - t0


def _interrupted(record: logging.LogRecord) -> bool:
    """Whether ``record`` logs an error raised while a Ctrl-C (KeyboardInterrupt) was being handled."""
    exc = record.exc_info[1] if record.exc_info else None
    while exc is not None:
        if isinstance(exc, KeyboardInterrupt):
            return True
        exc = exc.__cause__ or exc.__context__
    return False


@contextmanager
def _quiet_interrupt_logs() -> Iterator[None]:
    """A Ctrl-C that lands while SQLAlchemy reads the study makes it close the half-read cursor, which fails,
    and it logs that failure with a traceback ("Error closing cursor"). The interrupt itself is handled (the
    run stops, the study keeps its trials), so the record is only noise on the user's terminal: Python's
    last-resort handler (what prints a library's records when nobody configured logging) drops records raised
    during a KeyboardInterrupt meanwhile. A program that configured its own logging gets them as before."""
    keep = lambda record: not _interrupted(record)  # noqa: E731
    last = logging.lastResort
    if last is not None:
        last.addFilter(keep)
    try:
        yield
    finally:
        if last is not None:
            last.removeFilter(keep)


#: ``progress(done, budget, best error %)`` at the start and after each completed trial; raising from it
#: stops the run.
Progress = Callable[[int, int, float], None]


def run(
    plan: Plan,
    budget: int = DEFAULT_BUDGET,
    workers: int = 2,
    scheduler: str | None = None,
    study: str | Path | None = None,
    write: bool = False,
    processes: bool = True,
    seed: int = 1,
    progress: Progress | None = None,
) -> Outcome:
    """Fit ``plan``'s free parameters until the study holds ``budget`` completed trials; with ``write``, put
    the best values into the preset's files.

    Interrupted (KeyboardInterrupt, also from ``progress``), it stops at once, and the study keeps every
    completed trial: the same call resumes it.

    Examples
    --------
    >>> import tempfile
    >>> plan = load_plan("bg4-128gb")
    >>> out = run(plan, budget=2, workers=1, processes=False,
    ...           study=Path(tempfile.mkdtemp()) / "s.sqlite")   # doctest: +SKIP
    >>> out.trials, out.error_after <= out.error_before   # doctest: +SKIP
    (2, True)
    """
    with _quiet_interrupt_logs():
        return _run(plan, budget, workers, scheduler, study, write, processes, seed, progress)


def _run(
    plan: Plan,
    budget: int,
    workers: int,
    scheduler: str | None,
    study: str | Path | None,
    write: bool,
    processes: bool,
    seed: int,
    progress: Progress | None,
) -> Outcome:
    import optuna
    from distributed import wait
    from optuna.trial import TrialState

    if isinstance(budget, bool) or not isinstance(budget, int) or budget < 1:
        raise config_error("--budget", "must be a number of trials, at least 1", budget)
    if scheduler is None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
        raise config_error("--workers", "must be a number of dask workers, at least 1", workers)
    path = Path(study) if study is not None else Path("results") / f"calibrate-{plan.name}.sqlite"
    st = _open_study(plan, path, seed)
    start = _start_values(plan)
    _recover_and_seed(st, start)
    dists = _distributions(plan)
    t0 = time.perf_counter()
    durations: list[float] = []

    def completed() -> int:
        return len(st.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)))

    def best() -> float:
        return float(st.best_value) if completed() else math.inf

    def errors_of(values: Mapping[str, float | int]) -> dict[str, Any]:
        """A config's errors: from the study's trial of exactly these values (trials are deterministic),
        else run now."""
        for t in st.get_trials(deepcopy=False, states=(TrialState.COMPLETE,)):
            if _trial_values(plan, t.params) == dict(values):
                return dict(t.user_attrs["errors"])
        fut = client.submit(_timed_evaluate, plan.toml, dict(values), plan.published, plan.runs, pure=False)
        raw: dict[str, Any] = fut.result()[0]
        return raw

    with dask_client(workers, scheduler, processes) as client:
        slots = max(1, sum(client.nthreads().values())) if scheduler is not None else workers
        pending: dict[Any, optuna.Trial] = {}
        failures = 0
        if progress is not None:  # a resumed study starts where it was
            progress(completed(), budget, best())
        try:
            while completed() < budget or pending:
                while len(pending) < slots and completed() + len(pending) < budget:
                    trial = st.ask(dists)
                    values = _trial_values(plan, trial.params)
                    fut = client.submit(
                        _timed_evaluate, plan.toml, values, plan.published, plan.runs, pure=False
                    )
                    pending[fut] = trial
                done, _ = wait(list(pending), return_when="FIRST_COMPLETED")  # type: ignore[no-untyped-call]
                for fut in done:
                    trial = pending.pop(fut)
                    try:
                        raw, seconds = fut.result()
                    except Exception as e:  # a trial the engine rejects fails alone; five in a row stop
                        trial.set_user_attr("error", " ".join(str(e).split()))
                        st.tell(trial, state=TrialState.FAIL)
                        failures += 1
                        if failures >= 5:
                            raise SimulationError(
                                f"calibrate: 5 trials failed in a row; the last: {e}"
                            ) from e
                        continue
                    failures = 0
                    durations.append(seconds)
                    trial.set_user_attr("errors", raw)
                    errs = {k: FigureError.from_dict(v) for k, v in raw.items()}
                    st.tell(trial, objective(errs, plan.figures))
                    if progress is not None:
                        progress(completed(), budget, best())
        finally:
            for fut in pending:
                fut.cancel()
        after = _trial_values(plan, st.best_trial.params)
        # What --write puts in the file is rounded; its errors are those of exactly that config.
        rounded = {p.path: _parse(p.format(after[p.path])) for p in plan.free}
        after_raw = errors_of(rounded)
        before_raw = errors_of(start)
    outcome = Outcome(
        plan=plan,
        before=dict(start),
        after=rounded,
        before_errors={k: FigureError.from_dict(v) for k, v in before_raw.items()},
        after_errors={k: FigureError.from_dict(v) for k, v in after_raw.items()},
        trials=completed(),
        new_trials=len(durations),
        wall_s=time.perf_counter() - t0,
        trial_s=sum(durations) / len(durations) if durations else 0.0,
        study_path=path,
    )
    if write:
        outcome.written = write_fitted(outcome)
    return outcome


def _parse(text: str) -> float | int:
    return int(text) if re.fullmatch(r"-?\d+", text) else float(text)


# --- writing the fitted values into the preset ---------------------------------------------------------

PROVENANCE = "# fitted by ssdlab calibrate"
_HEADER = re.compile(r"^\s*\[\s*([^\[\]]+?)\s*\]\s*(#.*)?$")


def set_toml_value(text: str, path: str, value: str, note: str) -> str:
    """``text`` with the key at ``path`` set to ``value`` (TOML text) and a ``note`` comment line above it;
    the key's own trailing comment stays, a note left there by an earlier fit goes. A key the file does not
    set is added to its section (the section appended if the file has none).

    Examples
    --------
    >>> text = "[nand]\\n# fitted by ssdlab calibrate 2020-01-01: old\\nslc_tPROG_us = 180.0   # why\\n"
    >>> print(set_toml_value(text, "nand.slc_tPROG_us", "250.5", "# fitted by ssdlab calibrate: new"), end="")
    [nand]
    # fitted by ssdlab calibrate: new
    slc_tPROG_us = 250.5   # why
    >>> print(set_toml_value("name = 'x'\\n", "ftl.slc_cache.dynamic_fraction", "0.5", "# n"), end="")
    name = 'x'
    <BLANKLINE>
    [ftl.slc_cache]
    # n
    dynamic_fraction = 0.5
    """
    section, _, key = path.rpartition(".")
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    # [first, end) of the section's lines; the top level runs up to the first header
    headers = [(i, m.group(1).strip()) for i, line in enumerate(lines) if (m := _HEADER.match(line))]
    if section:
        starts = [i + 1 for i, name in headers if name == section]
        if not starts:
            return "".join(lines) + f"\n[{section}]\n{note}\n{key} = {value}\n"
        first = starts[0]
    else:
        first = 0
    end = next((i for i, _ in headers if i >= first), len(lines))
    key_re = re.compile(rf"^(\s*{re.escape(key)}\s*=\s*)([^#\n]*?)(\s*#.*)?\n$")
    for i in range(first, end):
        m = key_re.match(lines[i])
        if m:
            comment = m.group(3) or ""
            if comment:  # keep the comment's column where the value leaves room
                pad = len(m.group(2)) + len(comment) - len(comment.lstrip()) - len(value)
                comment = " " * max(1, pad) + comment.lstrip()
            lines[i] = f"{m.group(1)}{value}{comment}\n"
            if i > first and lines[i - 1].lstrip().startswith(PROVENANCE):
                lines[i - 1] = f"{note}\n"
            else:
                lines.insert(i, f"{note}\n")
            return "".join(lines)
    lines[first:first] = [f"{note}\n", f"{key} = {value}\n"]
    return "".join(lines)


def _file_sets(path: Path, key: str) -> bool:
    return _lookup(tomllib.loads(path.read_text(encoding="utf-8")), key) is not None


def _short_names(plan: Plan) -> list[str]:
    """The plan's figures, those of a saved result all fitted to written ``DRIVE.SUITE.*`` (one name, not
    two dozen, in a provenance comment).

    Examples
    --------
    >>> runs = {"me.cdm8": {}}
    >>> published = {"me.cdm8.a": 1, "me.cdm8.b": 2, "me.fill.curve": [], "you.cdm8.a": 3, "you.cdm8.b": 4}
    >>> plan = Plan("x", "", [], [*published][:-1], [], published, [], {**runs, "you.cdm8": {}})
    >>> _short_names(plan)
    ['me.cdm8.*', 'me.fill.curve', 'you.cdm8.a']
    """
    out: list[str] = []
    for name in plan.figures:
        table = _table_of(name)
        whole = table in plan.runs and all(
            n in plan.figures for n in plan.published if n.startswith(table + ".")
        )
        short = f"{table}.*" if whole else name
        if short not in out:
            out.append(short)
    return out


def write_fitted(outcome: Outcome) -> list[Path]:
    """Write the fitted values with their provenance; return the files changed.

    Each value goes to the nearest of the plan's files that sets it (else the first: the preset itself), so
    a value a family file carries is changed there, for every drive of the family. Each file is checked to
    give back the values written. A value the fit did not move is left as it is, comment and all: it was
    not fitted.
    """
    plan = outcome.plan
    date = datetime.now(UTC).date().isoformat()
    names = ", ".join(_short_names(plan))
    by_file: dict[Path, list[FreeParam]] = {}
    for p in plan.free:
        if p.format(outcome.after[p.path]) == p.format(outcome.before[p.path]):
            continue
        target = next((f for f in plan.files if _file_sets(f, p.path)), plan.files[0])
        by_file.setdefault(target, []).append(p)
    for f, params in by_file.items():
        text = f.read_text(encoding="utf-8")
        for p in params:
            note = (
                f"{PROVENANCE} {date} to {names}: error {outcome.error_before:.1f}% -> "
                f"{outcome.error_after:.1f}% (was {p.format(outcome.before[p.path])})"
            )
            text = set_toml_value(text, p.path, p.format(outcome.after[p.path]), note)
        try:
            back = tomllib.loads(text)
        except tomllib.TOMLDecodeError as e:
            raise config_error(str(f), f"writing the fitted values would break the file ({e})", "") from None
        for p in params:
            if _lookup(back, p.path) != _parse(p.format(outcome.after[p.path])):
                raise config_error(
                    str(f), "cannot place the fitted value in this file; set it by hand", p.path
                )
        f.write_text(text, encoding="utf-8")
    return list(by_file)
