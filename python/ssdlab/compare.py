"""Drives side by side: ``ssdlab compare A B ...``.

Each input is a preset name, a drive TOML file or a saved result JSON (what ``ssdlab run`` writes into
``results/``, real targets included). Drives are run with the chosen suite first; every result is a result
dict (a suite result's ``to_dict()``, or the saved file), so fresh runs and saved files go the same way. The
figures compared are the suite's headline figures (:func:`ssdlab.suites.headline`, which the report shares):
one row each, a column per input and the difference in % against the first input.

Examples
--------
>>> cdm = {"suite": "cdm8", "preset": "a", "rows": [
...     {"test": "RND4K Q1T1", "direction": "read", "mbps": 80.0, "iops": 19531.25, "latency_us": 50.0}]}
>>> other = {**cdm, "preset": "b", "rows": [{**cdm["rows"][0], "mbps": 100.0, "latency_us": 40.0}]}
>>> c = compare([("a", cdm), ("b", other)])
>>> [(r.name, r.values, r.diff_pct()) for r in c.rows][::2]  # doctest: +NORMALIZE_WHITESPACE
[('RND4K Q1T1 read MB/s', [80.0, 100.0], [None, 25.0]),
 ('RND4K Q1T1 read latency', [50.0, 40.0], [None, -20.0])]
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table

from ssdlab import suites
from ssdlab.drive import Drive
from ssdlab.errors import workload_error
from ssdlab.presets import list_presets
from ssdlab.suites import SuiteOptions
from ssdlab.suites._common import sub
from ssdlab.tables import split_to_width

__all__ = ["Comparison", "Input", "Loaded", "Row", "adopt_options", "compare", "load_inputs", "plot"]


@dataclass(frozen=True)
class Input:
    """One argument of ``ssdlab compare``: what it was (``preset``, ``toml`` or ``result``), its column label
    and its result dict."""

    arg: str
    kind: str
    label: str
    doc: dict[str, Any]


@dataclass(frozen=True)
class Loaded:
    """What :func:`load_inputs` read and ran: the suite's result name, the inputs in order, the options the
    drives ran with and the saved result they were taken from (None: the options given)."""

    suite: str
    inputs: list[Input]
    options: SuiteOptions
    options_from: str | None = None


@dataclass(frozen=True)
class Row:
    """One headline figure across the inputs (None where an input has no such figure)."""

    name: str
    unit: str
    lower_is_better: bool
    values: list[float | None]

    def diff_pct(self) -> list[float | None]:
        """Each value's difference from the first input's, in % of it (None for the first, for a missing
        value, or when the first is missing or zero)."""
        base = self.values[0]
        return [
            None if i == 0 or v is None or not base else 100.0 * (v - base) / abs(base)
            for i, v in enumerate(self.values)
        ]


#: The keys of a result that say how it was run (not what it measured): compared inputs should share them.
CONDITIONS = (
    "ssdlab_version",
    "seed",
    "test_size",
    "runs",
    "duration_s",
    "interval_s",
    "warmup_s",
    "test_data",
    "max_gb",
    "runtime_s",
    "random_fraction",
    "scaled_down",
    "size_bytes",
)


@dataclass(frozen=True)
class Comparison:
    """The table ``ssdlab compare`` prints and saves."""

    suite: str
    labels: list[str]
    presets: list[str]
    rows: list[Row]
    docs: list[dict[str, Any]]

    def conditions(self) -> list[dict[str, Any]]:
        """What each input ran under (:data:`CONDITIONS` its result records): seed, version, test size..."""
        return [{k: doc[k] for k in CONDITIONS if k in doc} for doc in self.docs]

    def mismatches(self) -> list[str]:
        """The conditions that differ between the inputs, as ``key: a vs b``: their figures may differ for
        that reason, not for the drive.

        Examples
        --------
        >>> doc = {"suite": "snia-iops", "window_average_iops": 50_000.0, "waf": 2.0, "steady_round": 5}
        >>> c = compare([("a", {**doc, "seed": 1}), ("b", {**doc, "seed": 2})])
        >>> c.mismatches()
        ['seed: 1 vs 2']
        """
        conds = self.conditions()
        keys = dict.fromkeys(k for c in conds for k in c)
        return [
            f"{k}: {' vs '.join(str(c.get(k, '-')) for c in conds)}"
            for k in keys
            if len({json.dumps(c.get(k)) for c in conds}) > 1
        ]

    def note(self) -> str:
        """What :meth:`mismatches` means for the reader, or "" when the inputs ran alike."""
        mismatched = self.mismatches()
        if not mismatched:
            return ""
        return (
            f"note: the inputs ran under different conditions ({'; '.join(mismatched)}): their figures may "
            "differ for that, not for the drives"
        )

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: the inputs (with the conditions each ran under), and per figure the values and
        differences."""
        return {
            "suite": self.suite,
            "inputs": [
                {"label": lb, "preset": p, **cond}
                for lb, p, cond in zip(self.labels, self.presets, self.conditions(), strict=True)
            ],
            "mismatched_conditions": self.mismatches(),
            "figures": [
                {
                    "name": r.name,
                    "unit": r.unit,
                    "lower_is_better": r.lower_is_better,
                    "values": r.values,
                    "diff_pct": r.diff_pct(),
                }
                for r in self.rows
            ],
        }

    def table(self, with_note: bool = False, others: Sequence[int] | None = None) -> Table:
        """Figure, unit, one column per input, then one difference column per input after the first
        (green when better, red when worse); ``with_note``: :meth:`note` as its caption (as the HTML report
        shows it); ``others``: only these inputs after the first (indices into :attr:`labels`)."""
        shown = [0, *(range(1, len(self.labels)) if others is None else others)]
        labels = [self.labels[i] for i in shown]
        t = Table(title=f"{self.suite}: {' vs '.join(labels)}", caption=self.note() if with_note else None)
        t.add_column("figure", no_wrap=True)
        t.add_column("unit")
        for label in labels:
            t.add_column(label, justify="right")
        for label in labels[1:]:
            t.add_column(f"{label} vs 1st", justify="right")
        for r in self.rows:
            diffs = []
            for d in (r.diff_pct()[i] for i in shown[1:]):
                if d is None:
                    diffs.append("-")
                    continue
                better = (d < 0) if r.lower_is_better else (d > 0)
                style = "green" if better and d else "red" if d else ""
                diffs.append(f"[{style}]{d:+.1f}%[/{style}]" if style else f"{d:+.1f}%")
            t.add_row(r.name, r.unit, *(_fmt(r.values[i]) for i in shown), *diffs)
        return t

    def tables(self, width: int) -> list[Table]:
        """:meth:`table` split so that each part fits ``width`` columns without cutting a figure short:
        the first input (the one the differences are against) in every part, then as many of the others
        as fit, in order (one at least, however narrow ``width``).

        Examples
        --------
        >>> doc = {"suite": "snia-iops", "window_average_iops": 50_000.0, "waf": 2.0, "steady_round": 5}
        >>> c = compare([(f"drive-{i}", doc) for i in range(8)])
        >>> [len(t.columns) for t in c.tables(width=400)]  # figure, unit, 8 values, 7 differences
        [17]
        >>> [len(t.columns) for t in c.tables(width=120)]  # drive-0 and 3 others, 3 others, the last
        [9, 9, 5]
        """
        return split_to_width(
            lambda others: self.table(others=others), range(1, len(self.labels)), width
        ) or [self.table()]


def _fmt(v: float | None) -> str:
    if v is None:
        return "-"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:,.3g}"


def compare(results: Sequence[tuple[str, Mapping[str, Any]]]) -> Comparison:
    """The headline figures of labelled result dicts of one suite, in the order the first result lists
    them (figures only later inputs have come after, in their order)."""
    if not results:
        raise workload_error("inputs", "nothing to compare", "")
    names = {str(doc.get("suite")) for _, doc in results}
    if len(names) > 1:
        raise workload_error("suite", f"results of different suites: {', '.join(sorted(names))}", "")
    per_input = [{h.name: h for h in suites.headline(doc)} for _, doc in results]
    order = list(dict.fromkeys(name for figures in per_input for name in figures))
    rows = []
    for name in order:
        first = next(f[name] for f in per_input if name in f)
        values = [f[name].value if name in f else None for f in per_input]
        rows.append(Row(name, first.unit, first.lower_is_better, values))
    return Comparison(
        suite=names.pop(),
        labels=[label for label, _ in results],
        presets=[str(doc.get("preset", "")) for _, doc in results],
        rows=rows,
        docs=[dict(doc) for _, doc in results],
    )


def _kind(arg: str) -> str:
    path = Path(arg)
    if path.suffix.lower() == ".json" and path.is_file():
        return "result"
    if path.suffix.lower() == ".toml" and path.is_file():
        return "toml"
    if arg in list_presets():
        return "preset"
    raise workload_error(
        arg,
        "not a preset name, a drive TOML file or a saved result JSON (ssdlab presets lists the presets)",
        arg,
    )


def _read_result(arg: str) -> dict[str, Any]:
    try:
        doc = json.loads(Path(arg).read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise workload_error(arg, f"cannot read the result: {e}", arg) from None
    if not isinstance(doc, dict) or "suite" not in doc:
        raise workload_error(arg, "not a suite result (ssdlab run writes those into results/)", arg)
    if str(doc["suite"]) not in suites.registry():
        raise workload_error(arg, f"result of an unknown suite {doc['suite']!r}", arg)
    if problem := suites.unreadable(doc):
        raise workload_error(arg, problem, arg)
    return doc


def _unique(labels: list[str]) -> list[str]:
    """Labels made unique by numbering the repeats: ``a``, ``a #2``."""
    seen: dict[str, int] = {}
    out = []
    for label in labels:
        seen[label] = seen.get(label, 0) + 1
        out.append(label if seen[label] == 1 else f"{label} #{seen[label]}")
    return out


def load_inputs(
    args: Sequence[str],
    suite: str | None = None,
    options: SuiteOptions | None = None,
    set: Sequence[str] | None = None,
    capacity_gb: float | None = None,
    progress: Callable[[float, str], None] | None = None,
) -> Loaded:
    """The suite and the result dict of each argument: saved results are read (they must be results of
    ``suite``, or of one suite when it is None); presets and TOML drives are run with ``suite`` (default:
    the saved results' suite), ``options``, the ``set`` overrides and scaled to ``capacity_gb``.

    Given no options, the drives run with those the first saved result was run with (``ssdlab run``
    records them: ``--test-size 64m --runs 1``), so a real drive's twin is measured the way the real drive
    was; :attr:`Loaded.options_from` then names that result.

    Every argument is checked before anything runs; a problem raises :class:`ssdlab.WorkloadError` naming
    the argument (or ``--suite``).
    """
    kinds = [_kind(a) for a in args]
    saved = {a: _read_result(a) for a, k in zip(args, kinds, strict=True) if k == "result"}
    expected = suites.result_name(suites.get(suite).name) if suite is not None else None
    for arg, doc in saved.items():
        expected = expected or str(doc["suite"])
        if doc["suite"] != expected:
            raise workload_error(
                arg,
                f"a {doc['suite']} result; the others are {expected} (compare results of one suite)",
                arg,
            )
    to_run = [a for a, k in zip(args, kinds, strict=True) if k != "result"]
    if not to_run:  # saved results only: an option for a run would be silently ignored
        opts = options or SuiteOptions()
        unused = [f"--{k.replace('_', '-')}" for k in sorted(opts.given())]
        unused += ["--set"] * bool(set) + ["--scale-capacity-gb"] * (capacity_gb is not None)
        if unused:
            raise workload_error(
                unused[0], "every input is a saved result: nothing runs, so drop this option", ""
            )
    if to_run and suite is None and expected is None:
        raise workload_error("--suite", "needed to run the drives given (presets or TOML files)", "")
    run_suite = suites.get(suite if suite is not None else str(expected))
    options = options or SuiteOptions()
    options_from = None
    if to_run and saved and not options.given():
        first, doc = next(iter(saved.items()))
        if given := doc.get("options"):
            options, options_from = adopt_options(options, given, first), first
    run_suite.check(options)
    # Build every drive before the first runs, so that a bad TOML or --set fails in seconds.
    drives = {
        a: Drive.from_toml(a, set=set, capacity_gb=capacity_gb)
        if k == "toml"
        else Drive.from_preset(a, set=set, capacity_gb=capacity_gb)
        for a, k in zip(args, kinds, strict=True)
        if k != "result"
    }
    docs: dict[str, dict[str, Any]] = dict(saved)
    for i, (arg, drive) in enumerate(drives.items()):
        step = sub(progress, i / len(drives), (i + 1) / len(drives))
        docs[arg] = run_suite.run(drive, options, step).to_dict()
    # A preset by its name, a TOML file by its stem, a saved result by its drive's name, or by its file's
    # stem (drive, suite and time) where that name is taken.
    labels = [a if k == "preset" else Path(a).stem for a, k in zip(args, kinds, strict=True)]
    named = [
        str(docs[a].get("preset") or lb) if k == "result" else lb
        for a, k, lb in zip(args, kinds, labels, strict=True)
    ]
    labels = _unique([n if named.count(n) == 1 else lb for n, lb in zip(named, labels, strict=True)])
    inputs = [Input(a, k, label, docs[a]) for a, k, label in zip(args, kinds, labels, strict=True)]
    return Loaded(str(expected or suites.result_name(run_suite.name)), inputs, options, options_from)


def adopt_options(options: SuiteOptions, given: object, arg: str) -> SuiteOptions:
    """``options`` with the suite options a saved result (``arg``) records (its ``options``); a
    :class:`ssdlab.WorkloadError` naming ``arg`` if they are not suite options."""
    known = {f.name for f in dataclasses.fields(SuiteOptions)}
    if not isinstance(given, dict) or not set(given) <= known:
        raise workload_error(arg, f"its options are not suite options ({', '.join(sorted(known))})", given)
    return dataclasses.replace(options, **given)


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9]+", "-", text).strip("-").lower() or "x"


def plot(comparison: Comparison, out: Path, stem: str) -> list[Path]:
    """The comparison's pictures, as PNGs in ``out``: grouped bars per unit (a group per figure, a bar per
    input, from zero), and the suite's curves (:func:`ssdlab.suites.curves`) overlaid, one picture per
    curve, as the HTML report draws them (:func:`ssdlab.report.plots.curve_figures`)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    paths = []
    n = len(comparison.labels)
    for unit in dict.fromkeys(r.unit for r in comparison.rows):
        rows = [r for r in comparison.rows if r.unit == unit]
        fig, ax = plt.subplots(figsize=(max(6.0, 0.5 * len(rows) * max(n, 2)), 4.5))
        width = 0.8 / n
        for j, label in enumerate(comparison.labels):
            xs = [i + (j - (n - 1) / 2) * width for i in range(len(rows))]
            ys = [v if (v := r.values[j]) is not None else 0.0 for r in rows]
            ax.bar(xs, ys, width, label=label)
        ax.set_xticks(range(len(rows)), [r.name for r in rows], rotation=30, ha="right", fontsize=8)
        ax.set_ylabel(unit or "value")
        ax.set_ylim(bottom=0)
        ax.set_title(
            f"{comparison.suite}: {unit or 'figures'}"
            + (" (lower is better)" if all(r.lower_is_better for r in rows) else "")
        )
        ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
        fig.tight_layout()
        path = out / f"{stem}-{_slug(unit or 'figures')}.png"
        fig.savefig(path, dpi=100)
        plt.close(fig)
        paths.append(path)
    # the suite's curves overlaid: the report's pictures (log axes, guide series, published fill bands)
    from ssdlab.report.plots import curve_figures

    for pic in curve_figures(list(zip(comparison.labels, comparison.docs, strict=True))):
        path = out / f"{stem}-curve-{_slug(pic.title)}.png"
        path.write_bytes(pic.png)
        paths.append(path)
    return paths
