"""Reviewer benchmark suites, each a Python procedure over one :class:`ssdlab.Drive`, and their registry.

A suite is one module in this package that calls :func:`register` with a :class:`Suite`: its ``--suite``
name, a line of help, the ``ssdlab run`` options it reads, how to run it, and what the HTML report shows
beyond its tables. ``ssdlab run`` and the report read the registry, so adding a suite is adding its module
(and its tests); nothing else names it. Helpers the suites share are in ``ssdlab.suites._common``.

Examples
--------
>>> from ssdlab import suites
>>> {"cdm", "fill", "snia-iops", "dbmix"} <= set(suites.registry())
True
>>> sorted(suites.get("cdm6").options)
['duration', 'interval', 'runs', 'test_data', 'test_size']
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ssdlab.errors import near_hint, workload_error
from ssdlab.suites._common import Progress, number

if TYPE_CHECKING:
    from rich.table import Table

    from ssdlab.drive import Drive

__all__ = [
    "CDM_VERSIONS",
    "CdmResult",
    "CdmRow",
    "CdmTest",
    "Curve",
    "FillResult",
    "Headline",
    "ReportFigure",
    "SniaIopsResult",
    "Suite",
    "SuiteOptions",
    "SuiteResult",
    "compare_fill_curve",
    "curves",
    "get",
    "headline",
    "register",
    "registry",
    "run_cdm",
    "run_fill",
    "run_snia_iops",
]


class SuiteResult(Protocol):
    """What a suite returns: JSON-ready (with ``suite``, ``preset``, ``ssdlab_version``, ``config_toml``:
    :func:`ssdlab.suites._common.result_doc` writes them) and the tables ``ssdlab run`` prints (the report
    shows them too)."""

    def to_dict(self) -> dict[str, object]: ...

    def tables(self) -> list[Table]: ...


@dataclass(frozen=True)
class SuiteOptions:
    """The ``ssdlab run`` options a suite may read; None leaves the suite's own default."""

    test_size: str | None = None
    runs: int | None = None
    duration: str | None = None
    interval: str | None = None
    seed: int = 1
    #: CrystalDiskMark's test data: ``"random"`` or ``"0x00"``.
    test_data: str | None = None
    #: A fio job file whose one job is the suite's workload (endurance).
    job: str | None = None

    def given(self) -> set[str]:
        """The options set (seed aside: every suite takes it, as a root seed or not at all)."""
        return {f.name for f in fields(self) if f.name != "seed" and getattr(self, f.name) is not None}

    def given_values(self) -> dict[str, Any]:
        """The options set, by name in name order: what a saved result records of how it was run.

        Examples
        --------
        >>> SuiteOptions(runs=1, test_size="64m", seed=3).given_values()
        {'runs': 1, 'test_size': '64m'}
        """
        return {k: getattr(self, k) for k in sorted(self.given())}


@dataclass(frozen=True)
class ReportFigure:
    """An image the HTML report shows above the tables."""

    title: str
    png: bytes
    alt: str
    caption: str


@dataclass(frozen=True)
class Headline:
    """One headline figure of a result (a CDM row's MB/s, a fill's average): what ``ssdlab compare`` puts
    side by side. ``name`` is unique within the result and the same for the same figure of another drive;
    ``value`` is None where the result has no such figure (a counter a real target cannot observe)."""

    name: str
    value: float | None
    unit: str
    lower_is_better: bool = False


@dataclass(frozen=True)
class Curve:
    """One curve of a result (a fill's MB/s over the fill, a QD scaling curve); ``ssdlab compare`` overlays
    the curves of the same ``plot`` from every input. ``series`` tells curves of one result on the same plot
    apart (``"read"``, ``"HMB off"``)."""

    plot: str
    x_label: str
    y_label: str
    x: list[float]
    y: list[float]
    series: str = ""
    #: Axis scales the report draws the plot with: ``""`` (linear), ``"logx"``, ``"logy"``, ``"loglog"``, or
    #: ``"log2x"`` (an x that doubles at each step: queue depths, transfer sizes, spans).
    scale: str = ""


@dataclass(frozen=True)
class Suite:
    """One ``--suite``: what it is called, what it reads, how it runs and what its report adds."""

    name: str
    help: str
    #: ``run(drive, options, progress)``; the drive is changed as the suite's own function says.
    run: Callable[[Drive, SuiteOptions, Progress | None], SuiteResult]
    #: The :class:`SuiteOptions` fields (besides ``seed``) the suite reads; others are refused.
    options: frozenset[str] = frozenset()
    #: The report's figures for a result of this suite (its own report section), if any.
    figures: Callable[[Any], list[ReportFigure]] | None = None
    #: ``plot(result, path)``: write a PNG for ``ssdlab run --plot``, if the suite draws one.
    plot: Callable[[Any, Path], Path] | None = None
    #: Raises if ``plot`` cannot run here (a missing library), before the suite runs for minutes.
    plot_check: Callable[[], None] | None = None
    #: ``headline(result_dict)``: the figures ``ssdlab compare`` and the report list (see :func:`headline`).
    headline: Callable[[Mapping[str, Any]], list[Headline]] | None = None
    #: ``curves(result_dict)``: the curves ``ssdlab compare`` overlays, if the suite draws any.
    curves: Callable[[Mapping[str, Any]], list[Curve]] | None = None
    #: Why the suite runs on a simulated drive only (``--target`` refused with it), or None if it also runs
    #: on a real file or device through fio.
    simulated_only: str | None = None

    def check(self, options: SuiteOptions) -> None:
        """A :class:`ssdlab.WorkloadError` naming an option this suite does not read."""
        extra = sorted(options.given() - self.options)
        if extra:
            takes = ", ".join(f"--{o.replace('_', '-')}" for o in sorted(self.options)) or "none"
            raise workload_error(
                f"--{extra[0].replace('_', '-')}",
                f"suite {self.name} does not take this option (its options: {takes})",
                getattr(options, extra[0]),
            )


_REGISTRY: dict[str, Suite] = {}
_loaded = False


def register(suite: Suite) -> Suite:
    """Add ``suite`` (each suite module calls this once per name it answers to); a name taken twice is an
    error."""
    if suite.name in _REGISTRY and _REGISTRY[suite.name] is not suite:
        raise ValueError(f"suite name {suite.name!r} is registered twice")
    _REGISTRY[suite.name] = suite
    return suite


def registry() -> dict[str, Suite]:
    """Every suite by name, after importing each module of this package (each registers itself)."""
    global _loaded
    if not _loaded:
        for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
            if not info.name.startswith("_"):
                importlib.import_module(f"{__name__}.{info.name}")
        _loaded = True
    return dict(_REGISTRY)


def get(name: str) -> Suite:
    """The suite called ``name``; a :class:`ssdlab.WorkloadError` listing the names if there is none."""
    suites = registry()
    if name not in suites:
        hint = near_hint(name, list(suites))
        raise workload_error("suite", f"unknown suite {name!r}{hint}; use one of {', '.join(suites)}", name)
    return suites[name]


#: Names under which a suite's results are saved when they differ from its ``--suite`` name (``cdm`` is 8,
#: ``iometer`` another name of ``gamersnexus``).
_RESULT_NAME = {
    "cdm": "cdm8",
    "cdm-peak": "cdm8-peak",
    "cdm-realworld": "cdm8-realworld",
    "iometer": "gamersnexus",
}


def result_name(name: str) -> str:
    """The ``suite`` field of the results of ``--suite name``.

    Examples
    --------
    >>> result_name("cdm"), result_name("cdm6"), result_name("fill")
    ('cdm8', 'cdm6', 'fill')
    """
    return _RESULT_NAME.get(name, name)


def headline(doc: Mapping[str, Any]) -> list[Headline]:
    """The headline figures of a result dict (a suite result's ``to_dict()``, or a saved result JSON): the
    suite's own :attr:`Suite.headline`, or, for a suite without one, its top-level numbers.

    Examples
    --------
    >>> doc = {"suite": "snia-iops", "window_average_iops": 51234.5, "waf": 2.5, "steady_round": 7}
    >>> [(h.name, h.value, h.unit) for h in headline(doc)]
    [('steady-state IOPS', 51234.5, 'IOPS'), ('WAF', 2.5, 'ratio'), ('steady at round', 7.0, 'round')]
    """
    suite = get(str(doc.get("suite")))
    if suite.headline is not None:
        return suite.headline(doc)
    return [Headline(k, number(v), "") for k, v in doc.items() if k != "seed" and number(v) is not None]


def unreadable(doc: Mapping[str, Any]) -> str | None:
    """Why ``doc`` is not a result of its suite as ``ssdlab run`` saves it (its headline figures cannot be
    read: a comparison's JSON, say, which names a suite too), or None.

    Examples
    --------
    >>> unreadable({"suite": "cdm8", "inputs": [], "figures": []})
    "not a cdm8 result as ssdlab run saves it (no 'rows')"
    >>> unreadable({"suite": "cdm8", "rows": []}) is None
    True
    """
    try:
        headline(doc)
    except KeyError as e:
        return f"not a {doc.get('suite')} result as ssdlab run saves it (no {e.args[0]!r})"
    except (TypeError, ValueError, IndexError, AttributeError, ArithmeticError) as e:
        return f"not a {doc.get('suite')} result as ssdlab run saves it ({e})"
    return None


def curves(doc: Mapping[str, Any]) -> list[Curve]:
    """The curves of a result dict (:attr:`Suite.curves`; none for a suite without)."""
    suite = get(str(doc.get("suite")))
    return suite.curves(doc) if suite.curves is not None else []


# The suites' main names, importable from here; loaded on first use so that ssdlab.precondition (which the
# suites build on) can import ssdlab.suites._common without importing every suite first.
_EXPORTS = {
    "CDM_VERSIONS": "cdm",
    "CdmResult": "cdm",
    "CdmRow": "cdm",
    "CdmTest": "cdm",
    "run_cdm": "cdm",
    "FillResult": "fill",
    "compare_fill_curve": "fill",
    "run_fill": "fill",
    "SniaIopsResult": "snia",
    "run_snia_iops": "snia",
}


def __getattr__(name: str) -> object:
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
