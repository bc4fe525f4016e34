"""SNIA PTS client (PTS-C) in full: IOPS, throughput, latency and write saturation (WSAT).

The method, as the PTS's open implementations run it (../shared/BENCHMARKS.md, "SNIA PTS"):

- **Purge** before every test (:func:`ssdlab.precondition.purge`: NVMe sanitize, every block erased).
- **Workload-independent preconditioning** (WIPC): 2x the user capacity in 128 KiB sequential writes
  (:func:`ssdlab.precondition.snia_wipc`), before IOPS, throughput and latency (WSAT starts from purge).
- **Workload-dependent preconditioning + steady state**: rounds of the test's whole workload, each cell
  ``round_time`` long (60 s in the PTS), at most ``max_rounds`` (25), until the tracking variable is steady
  over the last 5 rounds: data excursion (max - min) <= 20% of the window average and slope excursion
  (least-squares slope x window) <= 10% of it (:func:`ssdlab.precondition.steady_state`, the loop
  :func:`ssdlab.suites.snia.rounds_until_steady` shared with ``snia-iops``). Random-write tracking variables
  are not steady without garbage collection in the window (:func:`ssdlab.suites.snia.needs_gc`).
- **IOPS**: random IO, R/W mixes 100/0, 95/5, 65/35, 50/50, 35/65, 5/95, 0/100 (outer loop) x block sizes
  1024, 128, 64, 32, 16, 8, 4 KiB and 512 B (inner loop) per round; tracking variable 4 KiB 100% write
  IOPS; reported: each cell's IOPS averaged over the window.
- **Throughput**: for 1024 KiB and 128 KiB each (purge and WIPC before each): sequential 100% read then 100%
  write per round; tracking variables both MB/s (both must be steady).
- **Latency**: random IO at QD1 T1, mixes 100/0, 65/35, 0/100 x 8 KiB, 4 KiB, 512 B; tracking variable
  4 KiB 100% write mean latency; reported min (window), mean (IO-weighted window mean), max (window) and
  the percentiles (IO-weighted window mean of each round's percentile).
- **WSAT**: from purge, 4 KiB random writes in ``round_time`` rounds until ``wsat_capacity_multiple`` (4)
  x the user capacity is written; IOPS per round against time and total GB written (TGBW).

The 512 B cells run as 512 B IOs: the drive maps 4 KiB pages, so each reads a whole page from flash and
each 512 B write read-modify-writes its page (``rmw_reads``). The total outstanding IO of IOPS, throughput
and WSAT is ``numjobs x iodepth`` (the operator's choice in the PTS; 1 x 32 here, as ``snia-iops``).

Scaling down (tests, a quick look): a smaller drive (``--scale-capacity-gb``, which keeps the spare share so
GC still runs), shorter cells (``round_time``, ``--duration``), fewer rounds (``max_rounds``, ``--runs``),
fewer tests (``tests``). The result's title says which were used.

Examples
--------
>>> import ssdlab
>>> from ssdlab.suites.pts import run_pts
>>> drive = ssdlab.Drive.from_preset("generic-tlc-dram", capacity_gb=2)
>>> res = run_pts(drive, round_time="20ms", max_rounds=5, tests=("latency",))
>>> [(c.read_pct, c.bs) for c in res.latency.window_cells()][:3]
[(100, 8192), (100, 4096), (100, 512)]
>>> res.latency.window_cells()[2].ios > 0, res.wipc_bytes == 2 * drive.capacity_bytes
(True, True)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table

from ssdlab._core import version as ssdlab_version
from ssdlab.counters import Counters
from ssdlab.counters import delta as counter_delta
from ssdlab.drive import Drive
from ssdlab.errors import workload_error
from ssdlab.precondition import SteadyState, purge, snia_wipc, steady_state
from ssdlab.result import REPORTED_PERCENTILES
from ssdlab.suites import Curve, Headline, Suite, SuiteOptions, register
from ssdlab.suites._common import Progress, number, result_doc, run_seed, scaled, sub
from ssdlab.suites.snia import check_rounds, needs_gc, rounds_until_steady
from ssdlab.units import parse_time_ns
from ssdlab.workload import Workload

__all__ = [
    "IOPS_BLOCK_SIZES",
    "IOPS_MIXES",
    "LATENCY_BLOCK_SIZES",
    "LATENCY_MIXES",
    "THROUGHPUT_BLOCK_SIZES",
    "Cell",
    "PtsResult",
    "PtsRound",
    "PtsTest",
    "WsatResult",
    "WsatRound",
    "run_pts",
]

KiB = 1024
#: The IOPS test's read/write mixes (read %, write %), in the PTS's outer-loop order.
IOPS_MIXES = ((100, 0), (95, 5), (65, 35), (50, 50), (35, 65), (5, 95), (0, 100))
#: The IOPS test's block sizes, in the PTS's inner-loop order.
IOPS_BLOCK_SIZES = (1024 * KiB, 128 * KiB, 64 * KiB, 32 * KiB, 16 * KiB, 8 * KiB, 4 * KiB, 512)
#: The throughput test's block sizes (each its own purge, WIPC and steady state).
THROUGHPUT_BLOCK_SIZES = (1024 * KiB, 128 * KiB)
#: The latency test's mixes and block sizes (QD1 T1).
LATENCY_MIXES = ((100, 0), (65, 35), (0, 100))
LATENCY_BLOCK_SIZES = (8 * KiB, 4 * KiB, 512)
TESTS = ("iops", "throughput", "latency", "wsat")
#: Share of the progress bar each test takes (IOPS runs 49 cells a round, latency 6, throughput 2 x 2).
_WEIGHT = {"iops": 0.55, "throughput": 0.1, "latency": 0.15, "wsat": 0.2}


def _bs_text(bs: int) -> str:
    return f"{bs // KiB} KiB" if bs >= KiB else f"{bs} B"


def _mix_text(read_pct: int) -> str:
    return f"{read_pct}/{100 - read_pct}"


@dataclass(frozen=True)
class Cell:
    """One cell of a round (or of the window's average): access pattern, R/W mix and block size, and what
    it measured."""

    pattern: str
    read_pct: int
    bs: int
    iops: float = 0.0
    mbps: float = 0.0
    read_mbps: float = 0.0
    write_mbps: float = 0.0
    ios: int = 0
    mean_us: float = 0.0
    min_us: float = 0.0
    max_us: float = 0.0
    percentiles_us: dict[str, float] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.pattern} {_mix_text(self.read_pct)} {_bs_text(self.bs)}"

    def to_dict(self) -> dict[str, object]:
        return {
            "pattern": self.pattern,
            "read_pct": self.read_pct,
            "bs": self.bs,
            "iops": self.iops,
            "mbps": self.mbps,
            "read_mbps": self.read_mbps,
            "write_mbps": self.write_mbps,
            "ios": self.ios,
            "mean_us": self.mean_us,
            "min_us": self.min_us,
            "max_us": self.max_us,
            "percentiles_us": dict(self.percentiles_us),
        }


def _window_cell(cells: Sequence[Cell]) -> Cell:
    """The window's figure of one cell: IOPS and MB/s averaged over the rounds, min/max over them, mean
    and percentiles IO-weighted."""
    first = cells[0]
    n = len(cells)
    ios = sum(c.ios for c in cells)

    def weighted(get: Any) -> float:
        return sum(get(c) * c.ios for c in cells) / ios if ios else 0.0

    pcts = {p: weighted(lambda c, p=p: c.percentiles_us.get(p, 0.0)) for p in first.percentiles_us}
    return Cell(
        first.pattern,
        first.read_pct,
        first.bs,
        sum(c.iops for c in cells) / n,
        sum(c.mbps for c in cells) / n,
        sum(c.read_mbps for c in cells) / n,
        sum(c.write_mbps for c in cells) / n,
        ios,
        weighted(lambda c: c.mean_us),
        min(c.min_us for c in cells),
        max(c.max_us for c in cells),
        pcts,
    )


@dataclass(frozen=True)
class PtsRound:
    """One round: every cell of the test once, the tracking variable(s), and what GC did meanwhile."""

    round: int
    cells: list[Cell]
    tracking: dict[str, float]
    gc_blocks_erased: float
    waf: float
    elapsed_s: float

    def to_dict(self) -> dict[str, object]:
        return {
            "round": self.round,
            "tracking": dict(self.tracking),
            "gc_blocks_erased": self.gc_blocks_erased,
            "waf": self.waf,
            "elapsed_s": self.elapsed_s,
            "cells": [c.to_dict() for c in self.cells],
        }


@dataclass
class PtsTest:
    """One steady-state test (IOPS, a throughput block size, latency): its rounds and verdict(s)."""

    name: str
    rounds: list[PtsRound]
    #: The verdict of each tracking variable over the last window.
    verdicts: dict[str, SteadyState]
    steady_round: int | None
    window: int = 5

    @property
    def steady(self) -> bool:
        return self.steady_round is not None

    def window_rounds(self) -> list[PtsRound]:
        return self.rounds[-self.window :] if len(self.rounds) >= self.window else list(self.rounds)

    def window_cells(self) -> list[Cell]:
        """Each cell's figure over the measurement window (the last 5 rounds), in the round's order."""
        rounds = self.window_rounds()
        return [_window_cell([r.cells[i] for r in rounds]) for i in range(len(rounds[0].cells))]

    def cell(self, read_pct: int, bs: int, pattern: str = "random") -> Cell:
        """The window's cell of this mix and block size."""
        for c in self.window_cells():
            if (c.pattern, c.read_pct, c.bs) == (pattern, read_pct, bs):
                return c
        raise KeyError(f"{pattern} {_mix_text(read_pct)} {_bs_text(bs)}")

    def state(self) -> str:
        if self.steady:
            return f"steady at round {self.steady_round}"
        reasons = "; ".join(f"{k}: {v.reason}" for k, v in self.verdicts.items() if not v.steady)
        return f"not steady after {len(self.rounds)} rounds ({reasons})"

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "steady": self.steady,
            "steady_round": self.steady_round,
            "window": self.window,
            "verdicts": {k: v.to_dict() for k, v in self.verdicts.items()},
            "window_cells": [c.to_dict() for c in self.window_cells()],
            "rounds": [r.to_dict() for r in self.rounds],
        }


@dataclass(frozen=True)
class WsatRound:
    """One WSAT round: IOPS and latency over it, and the total host GB written (TGBW) at its end."""

    round: int
    time_s: float
    tgbw_gb: float
    iops: float
    mbps: float
    mean_latency_us: float
    waf: float
    gc_blocks_erased: float

    def to_dict(self) -> dict[str, object]:
        return {
            "round": self.round,
            "time_s": self.time_s,
            "tgbw_gb": self.tgbw_gb,
            "iops": self.iops,
            "mbps": self.mbps,
            "mean_latency_us": self.mean_latency_us,
            "waf": self.waf,
            "gc_blocks_erased": self.gc_blocks_erased,
        }


@dataclass
class WsatResult:
    """Write saturation: 4 KiB random writes from purge until ``capacity_multiple`` x capacity is written."""

    capacity_multiple: float
    round_time_s: float
    rounds: list[WsatRound]
    #: The steady-state criterion over the last 5 rounds (information: WSAT runs to its written amount).
    verdict: SteadyState

    @property
    def fob_iops(self) -> float:
        """IOPS of the first round (fresh from purge)."""
        return self.rounds[0].iops if self.rounds else 0.0

    @property
    def final_iops(self) -> float:
        """IOPS averaged over the last 5 rounds."""
        return self.verdict.average

    def to_dict(self) -> dict[str, object]:
        return {
            "capacity_multiple": self.capacity_multiple,
            "round_time_s": self.round_time_s,
            "fob_iops": self.fob_iops,
            "final_iops": self.final_iops,
            "verdict": self.verdict.to_dict(),
            "rounds": [r.to_dict() for r in self.rounds],
        }


@dataclass
class PtsResult:
    """Every PTS-C test run, with the options that scale it (printed in every title)."""

    preset: str
    seed: int
    capacity_gb: float
    round_time_s: float
    max_rounds: int
    iodepth: int
    numjobs: int
    tests: tuple[str, ...]
    wipc_bytes: int
    iops: PtsTest | None = None
    throughput: list[PtsTest] = field(default_factory=list)
    latency: PtsTest | None = None
    wsat: WsatResult | None = None
    counters: Counters = field(default_factory=Counters)
    config_toml: str = ""

    @property
    def header(self) -> str:
        """What was run: drive, capacity, cell length, round limit, outstanding IO, seed."""
        return (
            f"{self.preset} ({self.capacity_gb:g} GB user capacity) - cells of {self.round_time_s:g} s, "
            f"at most {self.max_rounds} rounds - T{self.numjobs} Q{self.iodepth} - seed {self.seed} - "
            f"ssdlab {ssdlab_version()}"
        )

    def to_dict(self) -> dict[str, object]:
        return result_doc(
            "pts",
            self,
            capacity_gb=self.capacity_gb,
            round_time_s=self.round_time_s,
            max_rounds=self.max_rounds,
            iodepth=self.iodepth,
            numjobs=self.numjobs,
            tests=list(self.tests),
            header=self.header,
            wipc_bytes=self.wipc_bytes,
            iops=None if self.iops is None else self.iops.to_dict(),
            throughput=[t.to_dict() for t in self.throughput],
            latency=None if self.latency is None else self.latency.to_dict(),
            wsat=None if self.wsat is None else self.wsat.to_dict(),
            counters=self.counters,
        )

    # ----------------------------------------------------------------------------------------- tables

    def tables(self) -> list[Table]:
        """What ``ssdlab run --suite pts`` prints: a summary, then each test's tables."""
        out = [self.summary_table()]
        if self.iops is not None:
            out += [self.iops_table(), self.rounds_table(self.iops)]
        if self.throughput:
            out.append(self.throughput_table())
        if self.latency is not None:
            out.append(self.latency_table())
        if self.wsat is not None:
            out.append(self.wsat_table())
        return out

    def summary_table(self) -> Table:
        t = Table(title=f"SNIA PTS-C - {self.header}")
        for col in ("test", "state", "tracking variable", "window average", "data exc.", "slope exc."):
            t.add_column(col, justify="left" if col in ("test", "state", "tracking variable") else "right")
        for test in (self.iops, *self.throughput, self.latency):
            if test is None:
                continue
            for name, v in test.verdicts.items():
                state = (
                    f"round {test.steady_round}" if test.steady else f"not steady ({len(test.rounds)} rounds)"
                )
                t.add_row(
                    test.name,
                    state,
                    name,
                    f"{v.average:,.1f}",
                    f"{v.data_excursion_fraction:.1%}",
                    f"{v.slope_excursion_fraction:.1%}",
                )
        if self.wsat is not None:
            w = self.wsat
            t.add_row(
                "WSAT",
                f"{len(w.rounds)} rounds, {w.rounds[-1].tgbw_gb:,.1f} GB" if w.rounds else "no rounds",
                "4 KiB write IOPS",
                f"{w.final_iops:,.1f}",
                f"{w.verdict.data_excursion_fraction:.1%}",
                f"{w.verdict.slope_excursion_fraction:.1%}",
            )
        return t

    def iops_table(self) -> Table:
        test = self.iops
        assert test is not None
        t = Table(
            title=f"IOPS (window average, rounds {_window_span(test)}) - {test.state()} - {self.header}",
        )
        t.add_column("block size")
        for r, _w in IOPS_MIXES:
            t.add_column(f"R/W {_mix_text(r)}", justify="right")
        cells = {(c.read_pct, c.bs): c for c in test.window_cells()}
        for bs in IOPS_BLOCK_SIZES:
            row = [cells[(r, bs)] for r, _w in IOPS_MIXES]
            t.add_row(_bs_text(bs), *(f"{c.iops:,.0f}" for c in row))
        return t

    def rounds_table(self, test: PtsTest) -> Table:
        t = Table(title=f"{test.name} steady-state rounds (tracking variable) - {test.state()}")
        names = list(test.verdicts)
        t.add_column("round", justify="right")
        for n in names:
            t.add_column(n, justify="right")
        t.add_column("WAF", justify="right")
        t.add_column("window", justify="center")
        first = len(test.rounds) - test.window + 1
        for r in test.rounds:
            t.add_row(
                str(r.round),
                *(f"{r.tracking[n]:,.1f}" for n in names),
                f"{r.waf:.2f}",
                "*" if r.round >= first and len(test.rounds) >= test.window else "",
            )
        return t

    def throughput_table(self) -> Table:
        t = Table(title=f"Throughput (sequential, window average) - {self.header}")
        for col in ("block size", "read MB/s", "write MB/s", "state"):
            t.add_column(col, justify="left" if col in ("block size", "state") else "right")
        for test in self.throughput:
            cells = test.window_cells()
            read = next(c for c in cells if c.read_pct == 100)
            write = next(c for c in cells if c.read_pct == 0)
            t.add_row(_bs_text(read.bs), f"{read.mbps:,.1f}", f"{write.mbps:,.1f}", test.state())
        return t

    def latency_table(self) -> Table:
        test = self.latency
        assert test is not None
        t = Table(
            title=f"Latency (random, QD1 T1, window rounds {_window_span(test)}) - {test.state()} - "
            f"{self.header}",
            caption="min and max over the window; mean and percentiles IO-weighted over its rounds",
        )
        t.add_column("R/W")
        t.add_column("block size")
        for col in ("IOPS", "min us", "mean us", *(f"p{p:g} us" for p in REPORTED_PERCENTILES), "max us"):
            t.add_column(col, justify="right")
        for c in test.window_cells():
            t.add_row(
                _mix_text(c.read_pct),
                _bs_text(c.bs),
                f"{c.iops:,.0f}",
                f"{c.min_us:,.1f}",
                f"{c.mean_us:,.1f}",
                *(f"{c.percentiles_us[f'{p:g}']:,.1f}" for p in REPORTED_PERCENTILES),
                f"{c.max_us:,.1f}",
            )
        return t

    def wsat_table(self) -> Table:
        w = self.wsat
        assert w is not None
        t = Table(
            title=f"Write saturation (4 KiB random write from purge to {w.capacity_multiple:g}x capacity, "
            f"{w.round_time_s:g} s rounds) - FOB {w.fob_iops:,.0f} IOPS, last 5 rounds {w.final_iops:,.0f} "
            f"IOPS - {self.header}"
        )
        for col in ("round", "time s", "TGBW GB", "IOPS", "MB/s", "mean lat us", "WAF"):
            t.add_column(col, justify="right")
        for r in w.rounds:
            t.add_row(
                str(r.round),
                f"{r.time_s:,.1f}",
                f"{r.tgbw_gb:,.2f}",
                f"{r.iops:,.0f}",
                f"{r.mbps:,.1f}",
                f"{r.mean_latency_us:,.1f}",
                f"{r.waf:.2f}",
            )
        return t


def _window_span(test: PtsTest) -> str:
    rounds = test.window_rounds()
    return f"{rounds[0].round}-{rounds[-1].round}" if rounds else "-"


# --------------------------------------------------------------------------------------------- running


def _cell(
    drive: Drive,
    pattern: str,
    read_pct: int,
    bs: int,
    round_ns: int,
    iodepth: int,
    numjobs: int,
    seed: int,
    progress: Any = None,
) -> Cell:
    if pattern == "random":
        rw = "randread" if read_pct == 100 else "randwrite" if read_pct == 0 else "randrw"
    else:
        rw = "read" if read_pct == 100 else "write" if read_pct == 0 else "rw"
    w = Workload(
        rw=rw,
        bs=bs,
        rwmixread=read_pct,
        iodepth=iodepth,
        numjobs=numjobs,
        runtime=f"{round_ns}ns",
        time_based=True,
        seed=seed,
    )
    res = drive.run(w, progress)
    lat = res.latency
    return Cell(
        pattern,
        read_pct,
        bs,
        res.iops,
        res.bandwidth_mbps,
        res.read.mbps,
        res.write.mbps,
        lat.count,
        lat.mean_us,
        lat.min_us,
        lat.max_us,
        {f"{p:g}": lat.percentile(p) for p in REPORTED_PERCENTILES},
    )


def _steady_test(
    drive: Drive,
    name: str,
    plan: Sequence[tuple[str, int, int]],
    tracking: Mapping[str, tuple[tuple[str, int, int], str]],
    round_ns: int,
    max_rounds: int,
    iodepth: int,
    numjobs: int,
    seed: int,
    gc_check: bool,
    progress: Progress | None,
) -> PtsTest:
    """Rounds of ``plan`` (pattern, read %, bs per cell) until every tracking variable (a cell and its
    ``iops``/``mbps``/``mean_us``) is steady."""

    def one_round(n: int) -> PtsRound:
        before, t0 = drive.counters(), drive.now_s
        cells = []
        for i, (pattern, read_pct, bs) in enumerate(plan):
            cb = scaled(
                progress,
                ((n - 1) * len(plan) + i) / (max_rounds * len(plan)),
                ((n - 1) * len(plan) + i + 1) / (max_rounds * len(plan)),
                f"{name} round {n}: {pattern} {_mix_text(read_pct)} {_bs_text(bs)}",
            )
            s = run_seed(seed, "pts", name, n, pattern, read_pct, bs)
            cells.append(_cell(drive, pattern, read_pct, bs, round_ns, iodepth, numjobs, s, cb))
        by_key = {(c.pattern, c.read_pct, c.bs): c for c in cells}
        track = {k: float(getattr(by_key[cell], attr)) for k, (cell, attr) in tracking.items()}
        delta = counter_delta(before, drive.counters())
        return PtsRound(n, cells, track, delta.get("gc_blocks_erased", 0.0), delta["waf"], drive.now_s - t0)

    verdicts: dict[str, SteadyState] = {}

    def verdict_of(rounds: list[PtsRound]) -> SteadyState:
        gc = [r.gc_blocks_erased for r in rounds]
        for k in tracking:
            v = steady_state([r.tracking[k] for r in rounds])
            verdicts[k] = needs_gc(v, gc) if gc_check else v
        return next((v for v in verdicts.values() if not v.steady), next(iter(verdicts.values())))

    rounds, _verdict, at = rounds_until_steady(one_round, verdict_of, max_rounds)
    return PtsTest(name, rounds, dict(verdicts), at)


def _wsat(
    drive: Drive,
    round_ns: int,
    multiple: float,
    iodepth: int,
    numjobs: int,
    seed: int,
    progress: Progress | None,
) -> WsatResult:
    target = multiple * drive.capacity_bytes
    before_all, t0 = drive.counters(), drive.now_s
    rounds: list[WsatRound] = []
    written = 0.0
    n = 0
    # A bound on rounds only against a drive that writes nothing; the stop is the amount written.
    while written < target and n < 100_000:
        n += 1
        before = drive.counters()
        w = Workload(
            rw="randwrite",
            bs=4 * KiB,
            iodepth=iodepth,
            numjobs=numjobs,
            runtime=f"{round_ns}ns",
            time_based=True,
            seed=run_seed(seed, "pts", "wsat", n),
        )
        res = drive.run(w)
        delta = counter_delta(before, drive.counters())
        written = counter_delta(before_all, drive.counters())["host_write_bytes"]
        rounds.append(
            WsatRound(
                n,
                drive.now_s - t0,
                written / 1e9,
                res.write.iops,
                res.write.mbps,
                res.latency.mean_us,
                delta["waf"],
                delta.get("gc_blocks_erased", 0.0),
            )
        )
        if progress is not None:
            progress(min(1.0, written / target), f"WSAT round {n}: {written / 1e9:,.1f} GB")
    return WsatResult(multiple, round_ns / 1e9, rounds, steady_state([r.iops for r in rounds]))


def run_pts(
    drive: Drive,
    round_time: str | int | float = "60s",
    max_rounds: int = 25,
    tests: Sequence[str] = TESTS,
    iodepth: int = 32,
    numjobs: int = 1,
    wsat_capacity_multiple: float = 4.0,
    wsat_round_time: str | int | float | None = None,
    seed: int = 1,
    progress: Progress | None = None,
) -> PtsResult:
    """Run the PTS-C ``tests`` (any of ``iops``, ``throughput``, ``latency``, ``wsat``, in that order) on
    ``drive``, each from purge. ``round_time`` is the simulated length of one cell of a round (and of a WSAT
    round unless ``wsat_round_time`` is given). The drive is left as the last test left it.
    """
    round_ns = parse_time_ns(round_time, "round_time")
    if round_ns <= 0:
        raise workload_error("round_time", "must be above 0", round_time)
    wsat_ns = round_ns if wsat_round_time is None else parse_time_ns(wsat_round_time, "wsat_round_time")
    if wsat_ns <= 0:
        raise workload_error("wsat_round_time", "must be above 0", wsat_round_time)
    check_rounds(max_rounds, 5)
    unknown = [t for t in tests if t not in TESTS]
    if unknown or not tests:
        raise workload_error("tests", f"must be some of {', '.join(TESTS)} (got {list(tests)!r})", unknown)
    if not 0 < wsat_capacity_multiple <= 100:
        raise workload_error(
            "wsat_capacity_multiple", f"must be above 0, at most 100 (got {wsat_capacity_multiple!r})", ""
        )
    order = [t for t in TESTS if t in tests]
    total = sum(_WEIGHT[t] for t in order)
    spans: dict[str, tuple[float, float]] = {}
    at = 0.0
    for t in order:
        spans[t] = (at / total, (at + _WEIGHT[t]) / total)
        at += _WEIGHT[t]

    before_all = drive.counters()
    wipc_bytes = 0

    def prepare(step: Progress | None) -> None:
        nonlocal wipc_bytes
        purge(drive)
        wipc_bytes = snia_wipc(drive, progress=sub(step, 0.0, 0.2)).host_bytes

    res = PtsResult(
        preset=drive.name,
        seed=seed,
        capacity_gb=drive.capacity_bytes / 1e9,
        round_time_s=round_ns / 1e9,
        max_rounds=max_rounds,
        iodepth=iodepth,
        numjobs=numjobs,
        tests=tuple(order),
        wipc_bytes=0,
    )
    common = {"round_ns": round_ns, "max_rounds": max_rounds, "seed": seed}
    if "iops" in order:
        step = sub(progress, *spans["iops"])
        prepare(step)
        plan = [("random", r, bs) for r, _w in IOPS_MIXES for bs in IOPS_BLOCK_SIZES]
        track = {"4 KiB write IOPS": (("random", 0, 4 * KiB), "iops")}
        res.iops = _steady_test(
            drive, "IOPS", plan, track, iodepth=iodepth, numjobs=numjobs, gc_check=True,
            progress=sub(step, 0.2, 1.0), **common,
        )  # fmt: skip
    if "throughput" in order:
        lo, hi = spans["throughput"]
        for i, bs in enumerate(THROUGHPUT_BLOCK_SIZES):
            k = len(THROUGHPUT_BLOCK_SIZES)
            step = sub(progress, lo + (hi - lo) * i / k, lo + (hi - lo) * (i + 1) / k)
            prepare(step)
            plan = [("sequential", 100, bs), ("sequential", 0, bs)]
            track = {
                f"{_bs_text(bs)} read MB/s": (("sequential", 100, bs), "mbps"),
                f"{_bs_text(bs)} write MB/s": (("sequential", 0, bs), "mbps"),
            }
            res.throughput.append(
                _steady_test(
                    drive, f"throughput {_bs_text(bs)}", plan, track, iodepth=iodepth, numjobs=numjobs,
                    gc_check=False, progress=sub(step, 0.2, 1.0), **common,
                )
            )  # fmt: skip
    if "latency" in order:
        step = sub(progress, *spans["latency"])
        prepare(step)
        plan = [("random", r, bs) for r, _w in LATENCY_MIXES for bs in LATENCY_BLOCK_SIZES]
        track = {"4 KiB write mean latency us": (("random", 0, 4 * KiB), "mean_us")}
        res.latency = _steady_test(
            drive, "latency", plan, track, iodepth=1, numjobs=1, gc_check=True,
            progress=sub(step, 0.2, 1.0), **common,
        )  # fmt: skip
    if "wsat" in order:
        step = sub(progress, *spans["wsat"])
        purge(drive)
        res.wsat = _wsat(drive, wsat_ns, wsat_capacity_multiple, iodepth, numjobs, seed, step)
    if progress is not None:
        progress(1.0, "done")
    res.wipc_bytes = wipc_bytes
    res.counters = counter_delta(before_all, drive.counters())
    res.config_toml = drive.config_toml()
    return res


# ------------------------------------------------------------------------------------ compare and report


def _cells(doc: Mapping[str, Any], test: str) -> list[Mapping[str, Any]]:
    t = doc.get(test)
    return list(t.get("window_cells", [])) if isinstance(t, Mapping) else []


def headline(doc: Mapping[str, Any]) -> list[Headline]:
    """The IOPS matrix's 4 KiB and 128 KiB cells, the throughput, the 4 KiB QD1 latencies and WSAT.

    Examples
    --------
    >>> doc = {"wsat": {"fob_iops": 90000.0, "final_iops": 20000.0}, "throughput": [], "iops": None}
    >>> [(h.name, h.value) for h in headline(doc)]
    [('WSAT FOB IOPS', 90000.0), ('WSAT final IOPS', 20000.0)]
    """
    out: list[Headline] = []
    for c in _cells(doc, "iops"):
        if c["bs"] in (4 * KiB, 128 * KiB):
            out.append(
                Headline(f"IOPS {_mix_text(c['read_pct'])} {_bs_text(c['bs'])}", number(c["iops"]), "IOPS")
            )
    for t in doc.get("throughput") or []:
        for c in t["window_cells"]:
            what = "read" if c["read_pct"] == 100 else "write"
            out.append(Headline(f"seq {_bs_text(c['bs'])} {what}", number(c["mbps"]), "MB/s"))
    for c in _cells(doc, "latency"):
        if c["bs"] == 4 * KiB:
            for what, key in (("mean", "mean_us"), ("max", "max_us")):
                out.append(
                    Headline(
                        f"QD1 {_mix_text(c['read_pct'])} 4 KiB {what} latency",
                        number(c[key]),
                        "us",
                        lower_is_better=True,
                    )
                )
    w = doc.get("wsat")
    if isinstance(w, Mapping):
        out.append(Headline("WSAT FOB IOPS", number(w["fob_iops"]), "IOPS"))
        out.append(Headline("WSAT final IOPS", number(w["final_iops"]), "IOPS"))
    return out


def curves(doc: Mapping[str, Any]) -> list[Curve]:
    """Steady-state rounds of each test's tracking variable, WSAT IOPS against TGBW and time, the IOPS
    matrix against block size (one curve per mix) and the QD1 latency exceedance curves."""
    out: list[Curve] = []
    tests = [doc.get("iops"), *(doc.get("throughput") or []), doc.get("latency")]
    for t in tests:
        if not isinstance(t, Mapping):
            continue
        x = [float(r["round"]) for r in t["rounds"]]
        plot = f"PTS {t['name']} steady-state rounds"
        for name, v in t["verdicts"].items():
            unit = _unit(name)
            out.append(Curve(plot, "round", unit, x, [r["tracking"][name] for r in t["rounds"]], series=name))
            # The measurement window: its average and the +-10% band (the data excursion limit is 20% wide).
            n = len(v["window"])
            if n and len(x) >= n:
                wx = x[-n:]
                avg = float(v["average"])
                for label, k in (("window average", 1.0), ("+10%", 1.1), ("-10%", 0.9)):
                    out.append(Curve(plot, "round", unit, wx, [avg * k] * n, series=f"{name}: {label}"))
    by_mix: dict[int, list[Mapping[str, Any]]] = {}
    for c in _cells(doc, "iops"):
        if c.get("modelled", True):  # results saved before 512 B IOs ran have such cells, empty
            by_mix.setdefault(c["read_pct"], []).append(c)
    for r, cells in by_mix.items():
        cells = sorted(cells, key=lambda c: c["bs"])
        out.append(
            Curve(
                "PTS IOPS matrix",
                "block size (KiB)",
                "IOPS (window average)",
                [c["bs"] / KiB for c in cells],
                [c["iops"] for c in cells],
                series=f"R/W {_mix_text(r)}",
                scale="loglog",
            )
        )
    for c in _cells(doc, "latency"):
        if c["percentiles_us"]:
            pcts = sorted(c["percentiles_us"].items(), key=lambda kv: float(kv[0]))
            out.append(
                Curve(
                    "PTS QD1 latency exceedance",
                    "latency (us)",
                    "fraction of IOs slower",
                    [v for _p, v in pcts],
                    [1 - float(p) / 100 for p, _v in pcts],
                    series=f"{_mix_text(c['read_pct'])} {_bs_text(c['bs'])}",
                    scale="logy",
                )
            )
    w = doc.get("wsat")
    if isinstance(w, Mapping) and w["rounds"]:
        rs = w["rounds"]
        out.append(
            Curve(
                "PTS WSAT IOPS vs TGBW",
                "total GB written",
                "IOPS",
                [r["tgbw_gb"] for r in rs],
                [r["iops"] for r in rs],
            )
        )
        out.append(
            Curve(
                "PTS WSAT IOPS vs time",
                "time (s)",
                "IOPS",
                [r["time_s"] for r in rs],
                [r["iops"] for r in rs],
            )
        )
    return out


def _unit(tracking: str) -> str:
    """The axis label of a tracking variable (``4 KiB write IOPS`` -> ``IOPS``)."""
    for suffix, unit in ((" IOPS", "IOPS"), (" MB/s", "MB/s"), (" us", "latency (us)")):
        if tracking.endswith(suffix):
            return unit
    return tracking


def _suite_run(drive: Drive, o: SuiteOptions, progress: Progress | None) -> PtsResult:
    return run_pts(
        drive,
        round_time=o.duration or "60s",
        max_rounds=25 if o.runs is None else o.runs,
        seed=o.seed,
        progress=progress,
    )


register(
    Suite(
        name="pts",
        help="SNIA PTS client in full: purge, WIPC, steady-state rounds; IOPS matrix, throughput, QD1 "
        "latency, WSAT (--duration = one cell of a round, 60s; --runs = most rounds, 25)",
        run=_suite_run,
        options=frozenset({"duration", "runs"}),
        headline=headline,
        curves=curves,
    )
)
