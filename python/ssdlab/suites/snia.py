"""SNIA PTS (Solid State Storage Performance Test Specification) IOPS test: the steady-state part.

The method, as the PTS's open implementations run it (../shared/BENCHMARKS.md):

1. Purge (:func:`ssdlab.precondition.purge`).
2. Workload-independent preconditioning (WIPC): write 2x the user capacity with 128 KiB sequential writes
   (:func:`ssdlab.precondition.snia_wipc`).
3. Workload-dependent preconditioning + steady state: rounds of the test workload, each ``round_time``
   (60 s in the PTS), at most 25, until the tracking variable is steady over the last 5 rounds
   (:func:`ssdlab.precondition.steady_state`: data excursion <= 20% of the window average, slope
   excursion <= 10%), checked from round 5.

For the IOPS test the tracking variable is 4 KiB random 100% write IOPS. The full PTS round runs every
cell of the matrix (read/write mixes x block sizes) and tracks the 4 KiB write cell; this suite runs only
the tracking cell per round (``rounds x round_time`` of 4 KiB random writes over the whole drive), which is
what drives the drive to steady state. The total outstanding IO is ``numjobs x iodepth`` (PTS: T x OIO,
the test operator's choice; 1 x 32 by default here).

Examples
--------
>>> import ssdlab
>>> from ssdlab.suites.snia import run_snia_iops
>>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
>>> res = run_snia_iops(drive, round_time="0.05s")
>>> res.verdict.steady == (res.steady_round is not None), len(res.rounds) == (res.steady_round or 25)
(True, True)
>>> res.wipc.host_bytes == 2 * drive.capacity_bytes
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from rich.table import Table

from ssdlab._core import version as ssdlab_version
from ssdlab.counters import Counters
from ssdlab.counters import delta as counter_delta
from ssdlab.drive import Drive
from ssdlab.errors import workload_error
from ssdlab.precondition import Phase, SteadyState, purge, snia_wipc, steady_state
from ssdlab.suites import Curve, Headline, Suite, SuiteOptions, register
from ssdlab.suites._common import Progress, number, result_doc, run_seed, scaled, sub
from ssdlab.units import parse_size, parse_time_ns, shown
from ssdlab.workload import Workload

__all__ = ["SniaIopsResult", "SniaRound", "needs_gc", "rounds_until_steady", "run_snia_iops"]

R = TypeVar("R")


def _limit(value: float, limit: float) -> str:
    """A measure against its limit, with the comparison that holds.

    >>> _limit(0.12, 0.2), _limit(1.121, 0.2)
    ('12.0% <= 20%', '112.1% > 20%')
    """
    return f"{value:.1%} {'<=' if value <= limit else '>'} {limit:.0%}"


@dataclass(frozen=True)
class SniaRound:
    """One round of the tracking variable."""

    round: int
    iops: float
    mbps: float
    mean_latency_us: float
    #: WAF over this round (NAND bytes programmed / host bytes written).
    waf: float
    #: Measured time: the round's length plus the drain of the IOs still queued at its end.
    elapsed_s: float = 0.0
    #: Blocks garbage collection erased during the round (0 = the drive still had free blocks to spare).
    gc_blocks_erased: float = 0.0

    def to_dict(self) -> dict[str, float | int]:
        return {
            "round": self.round,
            "iops": self.iops,
            "mbps": self.mbps,
            "mean_latency_us": self.mean_latency_us,
            "waf": self.waf,
            "elapsed_s": self.elapsed_s,
            "gc_blocks_erased": self.gc_blocks_erased,
        }


@dataclass
class SniaIopsResult:
    """The rounds, the steady-state verdict over the last window, and the drive's WAF."""

    preset: str
    seed: int
    round_time_s: float
    max_rounds: int
    bs: int
    iodepth: int
    numjobs: int
    rounds: list[SniaRound]
    verdict: SteadyState
    #: The first round at which the window was steady (the test stops there), or None.
    steady_round: int | None
    wipc: Phase
    #: Change in the drive's counters over all rounds, with ``waf``.
    counters: Counters = field(default_factory=Counters)
    config_toml: str = ""

    @property
    def iops(self) -> list[float]:
        return [r.iops for r in self.rounds]

    @property
    def window_average_iops(self) -> float:
        """Average of the tracking variable over the measurement window (the last 5 rounds)."""
        return self.verdict.average

    @property
    def waf(self) -> float:
        """WAF over all rounds of the tracking workload."""
        return self.counters["waf"]

    @property
    def window_waf(self) -> float:
        """WAF over the measurement window."""
        window = self.rounds[-len(self.verdict.window) :] if self.verdict.window else []
        return sum(r.waf for r in window) / len(window) if window else 0.0

    def to_dict(self) -> dict[str, object]:
        return result_doc(
            "snia-iops",
            self,
            round_time_s=self.round_time_s,
            max_rounds=self.max_rounds,
            bs=self.bs,
            iodepth=self.iodepth,
            numjobs=self.numjobs,
            steady=self.verdict.steady,
            steady_round=self.steady_round,
            window_average_iops=self.window_average_iops,
            waf=self.waf,
            window_waf=self.window_waf,
            verdict=self.verdict.to_dict(),
            rounds=[r.to_dict() for r in self.rounds],
            wipc=self.wipc.to_dict(),
            counters=self.counters,
        )

    def tables(self) -> list[Table]:
        """What ``ssdlab run --suite snia-iops`` prints."""
        return [self.table()]

    def table(self) -> Table:
        v = self.verdict
        state = (
            f"steady at round {self.steady_round}"
            if v.steady
            else f"not steady after {len(self.rounds)} rounds"
        )
        if not v.steady and v.reason.startswith("no garbage collection"):
            state += f" ({v.reason})"
        title = (
            f"SNIA PTS IOPS tracking variable (4 KiB random write, T{self.numjobs} Q{self.iodepth})"
            f" - {self.preset} - {self.round_time_s:g} s rounds - {state}"
            f" - window average {v.average:,.0f} IOPS"
            f" (data excursion {_limit(v.data_excursion_fraction, 0.2)},"
            f" slope excursion {_limit(v.slope_excursion_fraction, 0.1)}) - WAF {shown(self.waf, '.2f')}"
            f" - seed {self.seed} - ssdlab {ssdlab_version()}"
        )
        t = Table(title=title)
        for col in ("round", "IOPS", "MB/s", "mean lat us", "WAF", "window"):
            t.add_column(col, justify="right")
        first_in_window = len(self.rounds) - len(v.window) + 1
        for r in self.rounds:
            t.add_row(
                str(r.round),
                f"{r.iops:,.0f}",
                f"{r.mbps:,.1f}",
                f"{r.mean_latency_us:,.1f}",
                shown(r.waf, ".2f"),
                "*" if r.round >= first_in_window and len(self.rounds) >= len(v.window) else "",
            )
        return t


def needs_gc(verdict: SteadyState, gc_blocks_erased: Sequence[float]) -> SteadyState:
    """Not steady when no garbage collection ran over the whole window.

    Random writes on a drive with free blocks to spare run at a flat, high rate that passes the PTS's
    excursion limits, yet it is not the steady state the test is after: that comes once every write has
    to wait for GC. A drive whose user capacity was cut without its blocks (a lot of spare NAND) may never
    get there; :func:`ssdlab.drive.scale_capacity` scales one consistently.
    """
    n = len(verdict.window)
    window = gc_blocks_erased[-n:] if n else []
    if not verdict.steady or not window or sum(window) > 0:
        return verdict
    first, last = len(gc_blocks_erased) - n + 1, len(gc_blocks_erased)
    reason = (
        f"no garbage collection in rounds {first}-{last} (the window): the drive has "
        "spare blocks left, which is not steady state (scale a drive down with --scale-capacity-gb, not "
        "ftl.user_capacity_gb alone)"
    )
    return replace(verdict, steady=False, reason=reason)


def rounds_until_steady(
    run_round: Callable[[int], R],
    verdict_of: Callable[[list[R]], SteadyState],
    max_rounds: int,
) -> tuple[list[R], SteadyState, int | None]:
    """The PTS's workload-dependent preconditioning loop: ``run_round(n)`` for n = 1, 2, ... until
    ``verdict_of(rounds so far)`` is steady or ``max_rounds`` have run.

    Returns the rounds, the last verdict and the round the test stopped at as steady (None if it never was).
    Every PTS test (IOPS, throughput, latency; :mod:`ssdlab.suites.pts`) runs this loop with its own round
    and tracking variable(s).

    Examples
    --------
    >>> from ssdlab.precondition import steady_state
    >>> series = [500, 300, 200, 100, 100, 100, 100, 100, 100, 100]
    >>> rounds, verdict, at = rounds_until_steady(lambda n: series[n - 1], steady_state, 25)
    >>> at, len(rounds), verdict.average
    (8, 8, 100.0)
    """
    rounds: list[R] = []
    verdict = verdict_of(rounds)
    for n in range(1, max_rounds + 1):
        rounds.append(run_round(n))
        verdict = verdict_of(rounds)
        if verdict.steady:
            return rounds, verdict, n
    return rounds, verdict, None


def check_rounds(max_rounds: object, window: int) -> int:
    """``max_rounds`` checked: a whole number from the window (5) to 1000."""
    if isinstance(max_rounds, bool) or not isinstance(max_rounds, int) or not window <= max_rounds <= 1000:
        raise workload_error("max_rounds", f"must be {window}..1000 (got {max_rounds!r})", max_rounds)
    return max_rounds


def run_snia_iops(
    drive: Drive,
    round_time: str | int | float = "60s",
    max_rounds: int = 25,
    window: int = 5,
    bs: int | str = "4k",
    iodepth: int = 32,
    numjobs: int = 1,
    purge_first: bool = True,
    wipc: bool = True,
    seed: int = 1,
    progress: Progress | None = None,
) -> SniaIopsResult:
    """Purge, WIPC, then rounds of 4 KiB random writes until steady state or ``max_rounds``.

    ``round_time`` is simulated (the PTS uses 60 s; tests use a fraction of a second on small drives).
    The drive is left in the steady state the test reached.
    """
    round_ns = parse_time_ns(round_time, "round_time")
    if round_ns <= 0:
        raise workload_error("round_time", "must be above 0", round_time)
    check_rounds(max_rounds, window)
    block = parse_size(bs, "bs")
    pre = 0.3  # share of the progress bar for purge + WIPC

    if purge_first:
        purge(drive)
    if wipc:
        wipc_phase = snia_wipc(drive, progress=sub(progress, 0.0, pre))
    else:
        wipc_phase = Phase("no WIPC")

    before_all = drive.counters()

    def one_round(n: int) -> SniaRound:
        before = drive.counters()
        w = Workload(
            rw="randwrite",
            bs=block,
            iodepth=iodepth,
            numjobs=numjobs,
            runtime=f"{round_ns}ns",
            time_based=True,
            seed=run_seed(seed, "snia-iops", n),
        )
        width = (1 - pre) / max_rounds
        res = drive.run(
            w, scaled(progress, pre + width * (n - 1), pre + width * n, f"round {n}/{max_rounds}")
        )
        delta = counter_delta(before, drive.counters())
        gc = delta.get("gc_blocks_erased", 0.0)
        return SniaRound(
            n, res.write.iops, res.write.mbps, res.latency.mean_us, delta["waf"], res.elapsed_s, gc
        )

    def verdict_of(rs: list[SniaRound]) -> SteadyState:
        return needs_gc(steady_state([r.iops for r in rs], window), [r.gc_blocks_erased for r in rs])

    rounds, verdict, steady_round = rounds_until_steady(one_round, verdict_of, max_rounds)
    if progress is not None:
        progress(1.0, "done")
    return SniaIopsResult(
        preset=drive.name,
        seed=seed,
        round_time_s=round_ns / 1e9,
        max_rounds=max_rounds,
        bs=block,
        iodepth=iodepth,
        numjobs=numjobs,
        rounds=rounds,
        verdict=verdict,
        steady_round=steady_round,
        wipc=wipc_phase,
        counters=counter_delta(before_all, drive.counters()),
        config_toml=drive.config_toml(),
    )


def headline(doc: Mapping[str, Any]) -> list[Headline]:
    """The steady-state IOPS (the window's average), the WAF and the round the window was steady at."""
    return [
        Headline("steady-state IOPS", number(doc["window_average_iops"]), "IOPS"),
        Headline("WAF", number(doc.get("waf")), "ratio", lower_is_better=True),
        Headline("steady at round", number(doc.get("steady_round")), "round", lower_is_better=True),
    ]


def curves(doc: Mapping[str, Any]) -> list[Curve]:
    """The tracking variable's IOPS per round."""
    rounds = doc.get("rounds", [])
    x = [float(r["round"]) for r in rounds]
    return [Curve("rounds", "round", "IOPS", x, [r["iops"] for r in rounds])]


def _suite_run(drive: Drive, o: SuiteOptions, progress: Progress | None) -> SniaIopsResult:
    return run_snia_iops(drive, round_time=o.duration or "60s", seed=o.seed, progress=progress)


register(
    Suite(
        name="snia-iops",
        help="SNIA PTS IOPS test's steady state (4 KiB random-write tracking variable; --duration = round)",
        run=_suite_run,
        options=frozenset({"duration"}),
        headline=headline,
        curves=curves,
    )
)
