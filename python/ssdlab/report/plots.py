"""The report's pictures, drawn from result dicts (a suite's ``to_dict()`` or a saved JSON) with matplotlib
(Agg) as PNG: generic over :attr:`ssdlab.suites.Suite.curves`, so every suite that declares curves gets
plots (QD scaling, fill, steady-state rounds, WSAT, exceedance) without report code of its own.

Rules every plot keeps: axes start at zero (a log axis cannot, and its caption says it is log); the legend
sits outside the axes, right of them, so it never covers data; one plot per :attr:`Curve.plot`, one line
per input and series. The fill curve gets its SLC / fold / GC phases shaded (from the result's per-GB
counters) and the published curve (:func:`ssdlab.reference.fill_curve`) drawn over it; the per-interval
series (:mod:`ssdlab.series`) give throughput over time and latency exceedance curves.

Examples
--------
>>> from ssdlab.suites import Curve
>>> figs = curve_figures([("a", {"suite": "snia-iops", "preset": "x", "rounds": [
...     {"round": 1, "iops": 9000.0}, {"round": 2, "iops": 5000.0}]})])
>>> [f.title for f in figs], figs[0].png[:4] == b"\\x89PNG"
(['rounds'], True)
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

from ssdlab import reference, suites
from ssdlab.series import SavedSeries
from ssdlab.suites import Curve

__all__ = ["Picture", "curve_figures", "fill_phases", "series_figures"]

GB = 1e9
#: Fill phases and their shading colours.
PHASE_COLOURS = {"SLC": "#cfe8cf", "fold": "#fde2b8", "GC": "#f6c6c6", "TLC direct": "#dde3ee"}


@dataclass(frozen=True)
class Picture:
    """One PNG for the report."""

    title: str
    png: bytes
    alt: str
    caption: str


def _png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return buf.getvalue()


def _finish(ax: Axes, scale: str) -> str:
    """Axes from zero unless log; legend outside on the right. Returns the caption's note on the scales."""
    notes = []
    if scale in ("logx", "loglog"):
        ax.set_xscale("log")
        notes.append("x axis logarithmic")
    elif scale == "log2x":  # queue depths, transfer sizes, spans: each step twice the last, evenly spaced
        ax.set_xscale("log", base=2)
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
        notes.append("x axis logarithmic, base 2")
    else:
        ax.set_xlim(left=0)
    if scale in ("logy", "loglog"):
        ax.set_yscale("log")
        notes.append("y axis logarithmic")
    else:
        ax.set_ylim(bottom=0)
    handles, _labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0.0, fontsize="small")
    ax.grid(True, alpha=0.3)
    return "; ".join(notes) + " (it cannot start at zero)" if notes else "axes start at zero"


def fill_phases(doc: Mapping[str, Any]) -> list[tuple[float, float, str]]:
    """The fill's phases as ``(from %, to %, phase)`` runs, from each GB's counters: ``GC`` where NAND
    programs exceed host + fold writes by more than 10% of the chunk, ``fold`` where more than 10% of the
    chunk was folded from SLC, ``SLC`` where at least half went to SLC, else ``TLC direct``.

    Examples
    --------
    >>> pts = [{"fill_start": i / 4, "fill_end": (i + 1) / 4, "chunk_bytes": 1e9, "slc_bytes_written": s,
    ...         "folded_bytes": f, "nand_bytes_programmed": n} for i, (s, f, n) in enumerate(
    ...         [(1e9, 0, 1e9), (2e9, 0, 2e9), (2e9, 0.5e9, 3.5e9), (2e9, 0.5e9, 5e9)])]
    >>> fill_phases({"points": pts})
    [(0.0, 50.0, 'SLC'), (50.0, 75.0, 'fold'), (75.0, 100.0, 'GC')]
    """
    runs: list[tuple[float, float, str]] = []
    prev = {"slc_bytes_written": 0.0, "folded_bytes": 0.0, "nand_bytes_programmed": 0.0}
    for p in doc.get("points", []):
        d = {k: float(p.get(k, 0.0)) - prev[k] for k in prev}
        prev = {k: float(p.get(k, 0.0)) for k in prev}
        chunk = float(p["chunk_bytes"]) or 1.0
        gc = d["nand_bytes_programmed"] - chunk - d["folded_bytes"]
        if gc > 0.1 * chunk:
            phase = "GC"
        elif d["folded_bytes"] > 0.1 * chunk:
            phase = "fold"
        elif d["slc_bytes_written"] >= 0.5 * chunk:
            phase = "SLC"
        else:
            phase = "TLC direct"
        lo, hi = 100 * float(p["fill_start"]), 100 * float(p["fill_end"])
        if runs and runs[-1][2] == phase:
            runs[-1] = (runs[-1][0], hi, phase)
        else:
            runs.append((lo, hi, phase))
    return runs


def _fill_extras(ax: Axes, docs: Sequence[tuple[str, Mapping[str, Any]]]) -> str:
    """Shade the first input's phases and draw each input's published curve; returns a caption part."""
    label, doc = docs[0]
    seen: set[str] = set()
    for lo, hi, phase in fill_phases(doc):
        ax.axvspan(lo, hi, color=PHASE_COLOURS[phase], alpha=0.6, lw=0, zorder=0,
                   label=None if phase in seen else f"{phase} phase")  # fmt: skip
        seen.add(phase)
    notes = [f"phases shaded from {label}'s counters"]
    for i, (_label, d) in enumerate(docs):
        curve = reference.fill_curve(str(d.get("preset", "")))
        if not curve:
            continue
        xs: list[float] = []
        lows: list[float] = []
        highs: list[float] = []
        for start, end, low, high in curve:
            xs += [100 * start, 100 * end]
            lows += [low, low]
            highs += [high, high]
        ax.fill_between(xs, lows, highs, color=f"C{i}", alpha=0.25, hatch="//", zorder=1,
                        label=f"published {d.get('preset')}")  # fmt: skip
        ax.plot(xs, [(a + b) / 2 for a, b in zip(lows, highs, strict=True)], color=f"C{i}", lw=1, ls="--")
        notes.append(f"published curve of {d.get('preset')} overlaid (range band)")
    return "; ".join(notes)


def curve_figures(docs: Sequence[tuple[str, Mapping[str, Any]]]) -> list[Picture]:
    """One picture per :attr:`Curve.plot` over every input's curves (``(label, result dict)`` pairs)."""
    plots: dict[str, list[tuple[str, Curve]]] = {}
    for label, doc in docs:
        try:
            cs = suites.curves(doc)
        except Exception:  # a result of a suite this version does not know: no curves
            cs = []
        for c in cs:
            plots.setdefault(c.plot, []).append((label, c))
    out = []
    for name, curves in plots.items():
        fig, ax = plt.subplots(figsize=(9, 4.2))
        multi = len(docs) > 1
        extra = ""
        if name == "fill":
            extra = _fill_extras(ax, docs)
        colour = 0
        main: dict[tuple[str, str], str] = {}
        for label, c in curves:
            parts = [p for p in (label if multi else "", c.series) if p]
            # A series "NAME: what" is a guide to the curve NAME (a window average, a limit): its colour,
            # dashed, thin.
            base, _, guide = c.series.partition(": ")
            if guide and (label, base) in main:
                ax.plot(c.x, c.y, lw=0.9, ls="--" if "average" in guide else ":", color=main[(label, base)],
                        label=" - ".join(parts), zorder=2)  # fmt: skip
                continue
            main[(label, c.series)] = f"C{colour % 10}"
            ax.plot(c.x, c.y, marker="." if len(c.x) < 40 else None, lw=1.4, color=f"C{colour % 10}",
                    label=" - ".join(parts) or c.y_label, zorder=3)  # fmt: skip
            colour += 1
        first = curves[0][1]
        ax.set_xlabel(first.x_label)
        ax.set_ylabel(" / ".join(dict.fromkeys(c.y_label for _label, c in curves)))
        ax.set_title(name)
        note = _finish(ax, first.scale)
        caption = f"{name}: {first.y_label} against {first.x_label}; {note}" + (f"; {extra}" if extra else "")
        out.append(Picture(name, _png(fig), f"{name} plot", caption))
    return out


def series_figures(label: str, series: SavedSeries) -> list[Picture]:
    """Throughput (and power) and latency (mean, p99, max) over time (the runs laid end to end), and latency
    exceedance per workload (the run with the most IOs of each workload label, at most 10), from one
    result's per-interval series."""
    t = series.table
    out: list[Picture] = []
    if t.num_rows:
        run = t.column("run").to_numpy()
        time_s = t.column("time_s").to_numpy()
        read = t.column("read_mbps").to_numpy()
        write = t.column("write_mbps").to_numpy()
        power = t.column("power_w").to_numpy()
        # Each run's own clock starts at 0: lay the runs end to end.
        offset = np.zeros_like(time_s)
        start = 0.0
        for r in np.unique(run):
            mask = run == r
            offset[mask] = start
            start += float(time_s[mask].max())
        x = time_s + offset
        fig, ax = plt.subplots(figsize=(9, 4.2))
        ax.plot(x, read, lw=0.8, label="read MB/s")
        ax.plot(x, write, lw=0.8, label="write MB/s")
        ax.set_xlabel("measured time (s), runs end to end")
        ax.set_ylabel("MB/s per interval")
        ax.set_title(f"Throughput over time - {label}")
        caption = "per-interval throughput; " + _finish(ax, "")
        if np.isfinite(power).any():
            ax2 = ax.twinx()
            ax2.plot(x, power, lw=0.8, color="C3", label="power W")
            ax2.set_ylabel("W")
            ax2.set_ylim(bottom=0)
            # One legend for both axes, below the plot (right of it is the second axis' scale).
            h1, l1 = ax.get_legend_handles_labels()
            h2, l2 = ax2.get_legend_handles_labels()
            old = ax.get_legend()
            if old is not None:
                old.remove()
            ax.legend(h1 + h2, l1 + l2, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3,
                      fontsize="small")  # fmt: skip
            caption += "; power (right axis) from the power model"
        out.append(Picture(f"Throughput over time - {label}", _png(fig), "throughput over time", caption))
        fig, ax = plt.subplots(figsize=(9, 4.2))
        busy = t.column("iops").to_numpy() > 0
        for i, (col, name) in enumerate(
            (("mean_latency_us", "mean"), ("p99_latency_us", "p99"), ("max_latency_us", "max"))
        ):
            ax.plot(x[busy], t.column(col).to_numpy()[busy], lw=0.7, color=f"C{i}", label=name)
        ax.set_xlabel("measured time (s), runs end to end")
        ax.set_ylabel("latency (us)")
        ax.set_title(f"Latency over time - {label}")
        note = _finish(ax, "logy")
        caption = f"per-interval latency of the IOs completed in each interval (p99 within 12.5%); {note}"
        out.append(Picture(f"Latency over time - {label}", _png(fig), "latency over time", caption))
    best: dict[str, dict[str, Any]] = {}
    for r in series.runs:
        if r.get("ios", 0) and (r["label"] not in best or r["ios"] > best[r["label"]]["ios"]):
            best[r["label"]] = r
    if best:
        fig, ax = plt.subplots(figsize=(9, 4.2))
        for i, (name, r) in enumerate(list(best.items())[:10]):
            pcts = sorted(r["percentiles_us"].items(), key=lambda kv: float(kv[0]))
            ax.plot([v for _p, v in pcts], [1 - float(p) / 100 for p, _v in pcts], marker="o", ms=3,
                    color=f"C{i}", label=name)  # fmt: skip
        ax.set_xlabel("latency (us)")
        ax.set_ylabel("fraction of IOs slower (1 - percentile)")
        ax.set_title(f"Latency exceedance (p50 .. p99.99) - {label}")
        note = _finish(ax, "loglog")
        out.append(
            Picture(
                f"Latency exceedance - {label}",
                _png(fig),
                "latency exceedance curves",
                f"each workload's run with the most IOs; {note}",
            )
        )
    return out
