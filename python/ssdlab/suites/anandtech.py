"""The AnandTech client SSD suite (2018-2021): every synthetic test of a client review, with HMB on and off,
with power.

The method (../shared/BENCHMARKS.md "AnandTech client suite"; AnandTech's reviews describe each test beside
its charts, e.g. the BG4 1TB review of 2019-10). Every test starts from a prepared state: the drive is
purged (secure erase), then the span the test needs is written sequentially with 128 KiB at QD32 and the
drive idles 10 s; each test runs on a clone of that state (or of the state another test left, as said).

- **Burst sequential read / write**: 128 MB bursts of 128 KiB IOs at QD1, 8 bursts (1 GB), with 16 GB of data
  on the drive, idle between bursts for a 20% duty cycle (each burst followed by 4x its own time idle). The
  score is the bursts' bytes over their busy time.
- **Burst random read**: 4 KiB at QD1, 32 MB bursts at random offsets over a 16 GB span, 1 GB in all (32
  bursts), 20% duty cycle. **Burst random write**: the same with writes (AnandTech's own text for the write
  tests was not retrievable; ours mirror the read tests, as BENCHMARKS.md says to).
- **Sustained sequential / random read / write**: QD1, 2, 4, 8, 16, 32, each for up to 1 minute or 32 GB,
  over a 64 GB span (128 KiB sequential, or 4 KiB random); score = mean of QD1/2/4. After each queue depth
  the drive idles as long as the step ran, at most 1 minute ("up to one minute of idle time").
- **Sustained sequential read after fragmentation**: the sustained sequential read run again on the state the
  sustained random write test left (its 4 KiB writes scattered over the 64 GB span).
- **Mixed random**: 4 KiB at QD4 over a 64 GB span, read share 100% -> 0% in 10% steps, each up to 1 minute
  or 32 GB, idle as long as the step ran (50% duty cycle). **Mixed sequential**: the same with 128 KiB at
  QD1. Score = mean MB/s over the eleven steps (AnandTech's "average across all read/write ratios").
- **Whole-drive fill**: :func:`ssdlab.suites.fill.run_fill` on the purged drive (128 KiB QD32, logged per
  GB); score = the overall average, the last 16 GB beside it.
- **Working set**: on the full drive the fill left, 4 KiB random reads at QD1 confined to spans of 1, 2, 4,
  ... GB up to the whole drive (BENCHMARKS.md defines the spans' purpose, not their sizes or lengths; ours:
  each span 1 s of warm-up, then 2 s measured). It shows how much of the map the drive keeps cached: a
  DRAM-less or HMB drive slows down once the span outgrows its map cache. Score = mean over the spans.
- **Power**: every test's average power over its busy time (idle gaps excluded) and its efficiency in MB/s
  per W (= MB moved per J), from the power model; the drive's idle power (APST + L1.2) once per variant
  (:func:`ssdlab.suites.power.idle_power_mw`).
- **HMB on vs off**: for a drive whose map cache is in the host memory buffer, every test runs again with
  the buffer withheld (``controller.map_cache.location = "sram"``), as the review did. With HMB on the
  drive gets what the testbed's Windows 10 grants by default, at most :data:`WINDOWS_HMB_MIB` (a BG4 asks
  for 64 MiB and gets 61; a BG3 gets the 38 it asks for).

``max_gb`` (``--test-size``) caps what each step moves (AnandTech: 32 GB) and the bursts' total (1 GB);
smaller values make quick runs and the result's header says so.

Tests are entries of :data:`TESTS`. Reference figures (``reference/bg4-1tb.toml [anandtech]``) are printed
beside the model's, numbers with their error and qualitative statements as checks (:func:`checks`).

Examples
--------
>>> import ssdlab
>>> from ssdlab.suites.anandtech import run_anandtech
>>> drive = ssdlab.Drive.from_preset("bg4-1tb", capacity_gb=128)
>>> res = run_anandtech(drive, tests=["burst_seq_read"], max_gb=0.5, hmb_off=False)
>>> t = res.get("burst_seq_read"); t.variant, t.mbps > 0, t.mbps_per_w > 0
('HMB on', True, True)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table

from ssdlab import reference
from ssdlab._core import version as ssdlab_version
from ssdlab.drive import Drive
from ssdlab.errors import workload_error
from ssdlab.precondition import purge, write_span
from ssdlab.result import Result
from ssdlab.suites import Curve, Headline, Suite, SuiteOptions, register
from ssdlab.suites._common import Progress, number, result_doc, run_seed, sub
from ssdlab.suites._reference import Beside, published_table
from ssdlab.suites.fill import run_fill
from ssdlab.suites.power import idle_power_mw
from ssdlab.units import GB, PAGE, parse_size
from ssdlab.workload import Workload

__all__ = [
    "MIXES",
    "QDS",
    "TESTS",
    "AnandTechResult",
    "Check",
    "Outcome",
    "Point",
    "checks",
    "run_anandtech",
    "working_set_spans",
]

BLOCK = 128 << 10
QDS = (1, 2, 4, 8, 16, 32)
#: Mixed tests: read share in %, 100 -> 0 in 10% steps.
MIXES = tuple(range(100, -1, -10))
BURST_BYTES = 128 * 10**6 // BLOCK * BLOCK
BURSTS = 8
RAND_BURST_BYTES = 32 * 10**6 // PAGE * PAGE
RAND_BURSTS = 32
DUTY = 0.2
#: Each step of a sustained or mixed test runs for at most this long (and at most ``max_gb``).
STEP_S = 60.0
MAX_GB = 32.0
#: Working-set test: warm-up and measured time per span.
WS_RAMP_S, WS_RUN_S = 1.0, 2.0
HMB_OFF = {"controller.map_cache.location": "sram"}
#: The most host memory Windows' NVMe driver grants a drive's HMB by default, MiB: the BG4 asks for 64 and
#: gets 61 (published hardware_facts.bg4_hmb_MiB, ASCII.jp). AnandTech's testbed runs Windows 10.
WINDOWS_HMB_MIB = 61


@dataclass(frozen=True)
class Point:
    """One step of a test: a queue depth, a read share (%) or a working-set span (GB), per the test's
    ``x_label``; its throughput, busy time, bytes moved and energy."""

    x: float
    mbps: float
    seconds: float
    bytes: int
    energy_j: float = 0.0

    @property
    def qd(self) -> int:
        return int(self.x)

    @property
    def avg_w(self) -> float:
        return self.energy_j / self.seconds if self.seconds else 0.0

    def to_dict(self) -> dict[str, float]:
        return {**self.__dict__, "avg_w": self.avg_w}


#: Kept for code written against the sequential-only suite: a sustained test's points are its queue depths.
QdPoint = Point


@dataclass
class Outcome:
    """One test on one variant (``"HMB on"`` / ``"HMB off"``, or ``"-"`` for drives without HMB)."""

    name: str
    variant: str
    #: The test's score (see the test's ``title``).
    mbps: float
    #: The steps (queue depths, read shares, spans or fill GB); empty for bursts.
    points: list[Point] = field(default_factory=list)
    x_label: str = "queue depth"
    #: Busy time, bytes moved and energy over every measured run (idle gaps excluded).
    busy_s: float = 0.0
    bytes: int = 0
    energy_j: float = 0.0
    #: Test-specific figures (the fill's last 16 GB).
    extra: dict[str, float] = field(default_factory=dict)

    @property
    def qd(self) -> list[Point]:
        """A sustained test's queue-depth curve (empty for other tests)."""
        return self.points if self.x_label == "queue depth" else []

    @property
    def top_mbps(self) -> float:
        """The best queue depth's throughput (the score for tests without a QD curve)."""
        return max((p.mbps for p in self.qd), default=self.mbps)

    @property
    def avg_w(self) -> float:
        """Average power over the busy time, W."""
        return self.energy_j / self.busy_s if self.busy_s else 0.0

    @property
    def mbps_per_w(self) -> float:
        """AnandTech's efficiency: MB/s per W over the busy time (= MB moved per J)."""
        return self.bytes / 1e6 / self.energy_j if self.energy_j else 0.0

    @property
    def score_w(self) -> float:
        """A sustained test's power score as AnandTech reports it: the mean of the QD1, QD2 and QD4 averages
        (0 without a queue-depth curve)."""
        low = [p.avg_w for p in self.qd if p.qd in (1, 2, 4)]
        return sum(low) / len(low) if low else 0.0

    def at(self, qd: int) -> float:
        return next(p.mbps for p in self.qd if p.qd == qd)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "variant": self.variant,
            "mbps": self.mbps,
            "top_mbps": self.top_mbps,
            "x_label": self.x_label,
            "points": [p.to_dict() for p in self.points],
            "busy_s": self.busy_s,
            "bytes": self.bytes,
            "energy_j": self.energy_j,
            "avg_w": self.avg_w,
            "mbps_per_w": self.mbps_per_w,
            **self.extra,
        }


def _moved(res: Result) -> int:
    return int(res.read.bytes + res.write.bytes)


def _outcome(
    name: str,
    score: float,
    runs: Sequence[Result],
    points: Sequence[Point] = (),
    x_label: str = "queue depth",
) -> Outcome:
    return Outcome(
        name,
        "",
        score,
        list(points),
        x_label,
        busy_s=sum(r.elapsed_s for r in runs),
        bytes=sum(_moved(r) for r in runs),
        energy_j=sum(r.energy_j for r in runs),
    )


def _point(x: float, res: Result) -> Point:
    return Point(x, res.bandwidth_mbps, res.elapsed_s, _moved(res), res.energy_j)


#: ``run(drive, span, max_gb, seed) -> Outcome`` on a prepared drive (changed).
TestFn = Callable[[Drive, int, float, int], Outcome]


def _burst(name: str, rw: str, bs: int, total: int, bursts: int) -> TestFn:
    def run(drive: Drive, span: int, max_gb: float, seed: int) -> Outcome:
        size = min(total, int(max_gb * GB / bursts) // bs * bs)
        runs = []
        for k in range(bursts):
            if rw.startswith("rand"):  # "32MB of 4kB random reads, from a 16GB span": the whole span
                w = Workload(rw=rw, bs=bs, iodepth=1, size=span, io_size=size, seed=run_seed(seed, rw, k))
            else:
                off = (k * size) % max(span - size + bs, bs) // bs * bs
                w = Workload(rw=rw, bs=bs, iodepth=1, offset=off, size=size, seed=run_seed(seed, rw, k))
            res = drive.run(w)
            runs.append(res)
            drive.idle(res.elapsed_s * (1 - DUTY) / DUTY)
        out = _outcome(name, 0.0, runs)
        out.mbps = out.bytes / 1e6 / out.busy_s if out.busy_s else 0.0
        return out

    return run


def _sustained(name: str, rw: str, bs: int) -> TestFn:
    def run(drive: Drive, span: int, max_gb: float, seed: int) -> Outcome:
        amount = int(max_gb * GB) // bs * bs
        runs, points = [], []
        for qd in QDS:
            w = Workload(
                rw=rw,
                bs=bs,
                iodepth=qd,
                size=span,
                io_size=amount,
                runtime=f"{STEP_S}s",
                seed=run_seed(seed, rw, qd),
            )
            res = drive.run(w)
            runs.append(res)
            points.append(_point(qd, res))
            drive.idle(min(STEP_S, res.elapsed_s))
        return _outcome(name, sum(p.mbps for p in points[:3]) / 3, runs, points)

    return run


def _mixed(name: str, rw: str, bs: int, qd: int) -> TestFn:
    def run(drive: Drive, span: int, max_gb: float, seed: int) -> Outcome:
        amount = int(max_gb * GB) // bs * bs
        runs, points = [], []
        for pct in MIXES:
            w = Workload(
                rw=rw,
                bs=bs,
                iodepth=qd,
                size=span,
                io_size=amount,
                runtime=f"{STEP_S}s",
                rwmixread=pct,
                seed=run_seed(seed, rw, pct),
            )
            res = drive.run(w)
            runs.append(res)
            points.append(_point(pct, res))
            drive.idle(res.elapsed_s)  # 50% duty cycle
        return _outcome(name, sum(p.mbps for p in points) / len(points), runs, points, "read share (%)")

    return run


def _fill(drive: Drive, span: int, max_gb: float, seed: int) -> Outcome:
    res = run_fill(drive, erase=False)
    c = res.counters
    pts = [Point(100 * p.fill_end, p.mbps, p.elapsed_s, p.chunk_bytes, 0.0) for p in res.points]
    out = Outcome(
        "fill",
        "",
        res.average_mbps,
        pts,
        "fill (% of the user capacity)",
        busy_s=res.total_s,
        bytes=res.capacity_bytes,
        energy_j=float(c["energy_j"]),
        extra={"last16_mbps": res.last16_mbps},
    )
    return out


def working_set_spans(capacity: int) -> list[int]:
    """The working-set test's spans: 1, 2, 4, ... GB, then the whole drive (whole 4 KiB pages).

    Examples
    --------
    >>> [round(s / GB, 3) for s in working_set_spans(10 * GB)]
    [1.0, 2.0, 4.0, 8.0, 10.0]
    """
    spans, gb = [], 1
    while gb * GB < capacity:
        spans.append(gb * GB)
        gb *= 2
    return [s // PAGE * PAGE for s in [*spans, capacity]]


def _working_set(drive: Drive, span: int, max_gb: float, seed: int) -> Outcome:
    runs, points = [], []
    for s in working_set_spans(drive.capacity_bytes):
        w = Workload(
            rw="randread",
            bs=PAGE,
            iodepth=1,
            size=s,
            runtime=f"{WS_RAMP_S + WS_RUN_S}s",
            ramp_time=f"{WS_RAMP_S}s",
            time_based=True,
            seed=run_seed(seed, "ws", s),
        )
        res = drive.run(w)
        runs.append(res)
        points.append(_point(round(s / GB, 2), res))
    return _outcome("working_set", sum(p.mbps for p in points) / len(points), runs, points, "span (GB)")


@dataclass(frozen=True)
class SuiteTest:
    """A test of the suite: the data it needs on the drive first (or the test whose end state it starts
    from), and how it runs on a prepared clone."""

    name: str
    title: str
    prefill_bytes: int
    run: TestFn
    #: Start from the state this test left (run first, unrecorded, when it is not selected).
    after: str | None = None


#: The suite's tests in the order they run.
TESTS: dict[str, SuiteTest] = {
    t.name: t
    for t in (
        SuiteTest(
            "burst_seq_read",
            "Burst 128 KiB seq read QD1",
            16 * GB,
            _burst("burst_seq_read", "read", BLOCK, BURST_BYTES, BURSTS),
        ),
        SuiteTest(
            "burst_seq_write",
            "Burst 128 KiB seq write QD1",
            16 * GB,
            _burst("burst_seq_write", "write", BLOCK, BURST_BYTES, BURSTS),
        ),
        SuiteTest(
            "sustained_seq_read",
            "Sustained 128 KiB seq read QD1..32",
            64 * GB,
            _sustained("sustained_seq_read", "read", BLOCK),
        ),
        SuiteTest(
            "sustained_seq_write",
            "Sustained 128 KiB seq write QD1..32",
            64 * GB,
            _sustained("sustained_seq_write", "write", BLOCK),
        ),
        SuiteTest(
            "burst_rand_read",
            "Burst 4 KiB random read QD1",
            16 * GB,
            _burst("burst_rand_read", "randread", PAGE, RAND_BURST_BYTES, RAND_BURSTS),
        ),
        SuiteTest(
            "burst_rand_write",
            "Burst 4 KiB random write QD1",
            16 * GB,
            _burst("burst_rand_write", "randwrite", PAGE, RAND_BURST_BYTES, RAND_BURSTS),
        ),
        SuiteTest(
            "sustained_rand_read",
            "Sustained 4 KiB random read QD1..32",
            64 * GB,
            _sustained("sustained_rand_read", "randread", PAGE),
        ),
        SuiteTest(
            "sustained_rand_write",
            "Sustained 4 KiB random write QD1..32",
            64 * GB,
            _sustained("sustained_rand_write", "randwrite", PAGE),
        ),
        SuiteTest(
            "sustained_seq_read_fragmented",
            "Sustained seq read after random writes",
            64 * GB,
            _sustained("sustained_seq_read_fragmented", "read", BLOCK),
            after="sustained_rand_write",
        ),
        SuiteTest(
            "mixed_rand",
            "Mixed 4 KiB random QD4, read 100->0%",
            64 * GB,
            _mixed("mixed_rand", "randrw", PAGE, 4),
        ),
        SuiteTest(
            "mixed_seq", "Mixed 128 KiB seq QD1, read 100->0%", 64 * GB, _mixed("mixed_seq", "rw", BLOCK, 1)
        ),
        SuiteTest("fill", "Whole-drive fill 128 KiB QD32 (average)", 0, _fill),
        SuiteTest("working_set", "Working set: 4 KiB random read QD1 by span", 0, _working_set, after="fill"),
    )
}


@dataclass(frozen=True)
class Check:
    """A published qualitative statement and whether the model's curves show it."""

    key: str
    published: str
    passed: bool | None
    measured: str


@dataclass
class AnandTechResult:
    preset: str
    seed: int
    max_gb: float
    results: list[Outcome]
    config_toml: str
    #: Idle power (APST + L1.2) per variant, mW.
    idle_mw: dict[str, float] = field(default_factory=dict)
    #: The HMB the host granted with HMB on, MiB (None: the drive has none).
    hmb_mib: int | None = None

    def get(self, name: str, variant: str = "HMB on") -> Outcome:
        """The result of test ``name`` on ``variant`` (a drive without HMB has only ``"-"``, which any
        variant other than ``"HMB off"`` finds)."""
        for r in self.results:
            if r.name == name and (r.variant == variant or (r.variant == "-" and variant != "HMB off")):
                return r
        raise KeyError(f"{name} {variant}")

    def has(self, name: str, variant: str = "HMB on") -> bool:
        try:
            self.get(name, variant)
        except KeyError:
            return False
        return True

    @property
    def scaled_down(self) -> bool:
        """Whether a step moved less than AnandTech's 32 GB (``max_gb``)."""
        return self.max_gb < MAX_GB

    def to_dict(self) -> dict[str, object]:
        return result_doc(
            "anandtech",
            self,
            max_gb=self.max_gb,
            scaled_down=self.scaled_down,
            hmb_mib=self.hmb_mib,
            idle_mw=self.idle_mw,
            results=[r.to_dict() for r in self.results],
            published=[b.__dict__ | {"error_pct": b.error_pct} for b in published_figures(self)],
            checks=[c.__dict__ for c in checks(self)],
        )

    def _title(self, what: str) -> str:
        amount = (
            f"SCALED DOWN: each step <= 1 min or {self.max_gb:.3g} GB (AnandTech: 32 GB)"
            if self.scaled_down
            else "each step <= 1 min or 32 GB"
        )
        hmb = f" - HMB {self.hmb_mib} MiB" if self.hmb_mib is not None else ""
        return (
            f"AnandTech {what} - {self.preset} - {amount}{hmb} - seed {self.seed} - ssdlab {ssdlab_version()}"
        )

    def table(self) -> Table:
        t = Table(title=self._title("client suite"))
        t.add_column("test", no_wrap=True)
        t.add_column("variant")
        t.add_column("score MB/s", justify="right")
        for qd in QDS:
            t.add_column(f"QD{qd}", justify="right")
        t.add_column("avg W", justify="right")
        t.add_column("MB/s per W", justify="right")
        for r in self.results:
            cells = [f"{p.mbps:,.0f}" for p in r.qd] or [""] * len(QDS)
            t.add_row(
                TESTS[r.name].title,
                r.variant,
                f"{r.mbps:,.0f}",
                *cells,
                f"{r.avg_w:.2f}",
                f"{r.mbps_per_w:,.0f}",
            )
        idle = ", ".join(f"{v} {mw:.1f} mW" for v, mw in self.idle_mw.items())
        t.caption = (
            "score: bursts = bytes / busy time; sustained = mean of QD1, QD2, QD4; mixed and working set = "
            "mean of the steps; fill = overall average. Power over busy time (idle gaps excluded). "
            f"Idle power (APST + L1.2): {idle or '-'}"
        )
        return t

    def steps_table(self) -> Table:
        """The mixed tests by read share, the working set by span, and the fill's last 16 GB."""
        t = Table(title=self._title("mixed, working-set and fill steps"))
        t.add_column("test", no_wrap=True)
        t.add_column("variant")
        t.add_column("steps (x: MB/s)")
        for r in self.results:
            if r.name.startswith("mixed"):
                steps = "  ".join(f"{p.x:.0f}%: {p.mbps:,.0f}" for p in r.points)
            elif r.name == "working_set":
                steps = "  ".join(f"{p.x:g} GB: {p.mbps:,.1f}" for p in r.points)
            elif r.name == "fill":
                steps = f"average {r.mbps:,.0f}, last 16 GB {r.extra['last16_mbps']:,.0f}"
            else:
                continue
            t.add_row(r.name, r.variant, steps)
        return t

    def tables(self) -> list[Table]:
        out = [self.table()]
        if any(r.name.startswith("mixed") or r.name in ("working_set", "fill") for r in self.results):
            out.append(self.steps_table())
        pub = published_figures(self)
        if pub:
            out.append(published_table(f"Against AnandTech's figures for {self.preset}", pub))
        cs = checks(self)
        if cs:
            t = Table(title="AnandTech's qualitative findings, checked")
            for col in ("finding", "published", "pass", "measured"):
                t.add_column(col)
            for c in cs:
                t.add_row(c.key, c.published, {True: "yes", False: "NO", None: "-"}[c.passed], c.measured)
            out.append(t)
        if not pub and not cs:
            out[0].caption = f"{out[0].caption}. No published AnandTech figures for {self.preset}"
        return out


def published_figures(res: AnandTechResult) -> list[Beside]:
    """The numeric ``[anandtech]`` figures of ``res.preset`` beside the model's (those the run measured)."""
    fig = (reference.figures(res.preset) or {}).get("anandtech") or {}
    # figure -> (test, variant, the Outcome's attribute that measures it, unit)
    pairs = {
        "burst_seq_read_qd1_MBps": ("burst_seq_read", "HMB on", "mbps", "MB/s"),
        "burst_seq_write_qd1_MBps": ("burst_seq_write", "HMB on", "mbps", "MB/s"),
        "sustained_seq_read_top_MBps": ("sustained_seq_read", "HMB on", "top_mbps", "MB/s"),
        "sustained_seq_write_top_MBps": ("sustained_seq_write", "HMB on", "top_mbps", "MB/s"),
        "seq_write_hmb_off_MBps": ("sustained_seq_write", "HMB off", "top_mbps", "MB/s"),
        "seq_read_hmb_off_MBps": ("sustained_seq_read", "HMB off", "top_mbps", "MB/s"),
        "sustained_rand_read_power_W": ("sustained_rand_read", "HMB on", "score_w", "W"),
    }
    out = []
    for key, (test, variant, what, unit) in pairs.items():
        if key in fig and res.has(test, variant):
            out.append(Beside(f"anandtech.{key}", fig[key], getattr(res.get(test, variant), what), unit))
    return out


def _saturation_qd(r: Outcome, share: float = 0.9) -> int:
    """The first queue depth reaching ``share`` of the curve's top."""
    top = r.top_mbps
    return next(p.qd for p in r.qd if p.mbps >= share * top)


def _steady_from(r: Outcome, qd: int, share: float = 0.9) -> bool:
    top = r.top_mbps
    return all(p.mbps >= share * top for p in r.qd if p.qd >= qd)


def _curve(r: Outcome) -> str:
    return ", ".join(f"QD{p.qd} {p.mbps:,.0f}" for p in r.qd)


def checks(res: AnandTechResult) -> list[Check]:
    """AnandTech's qualitative statements about ``res.preset`` (``[anandtech]`` string figures), each checked
    on the run's curves; a statement the run did not measure (a test left out, no HMB-off run) has
    ``passed = None``. The thresholds are ours, stated in ``measured``: "tops out" = the first QD at 90% of
    the curve's top; "steady" = every higher QD at >= 90% of the top. A statement comparing the drive with
    another (a key with ``_vs_``, e.g. ``seq_read_power_vs_bg3``) is left to ``ssdlab validate``, which runs
    both."""
    fig = (reference.figures(res.preset) or {}).get("anandtech") or {}
    out = []
    for key, text in fig.items():
        if key in ("source", "kind", "method") or not isinstance(text, str) or "_vs_" in key:
            continue
        rule = CHECKS.get(key)
        if rule is None:
            out.append(Check(key, text, None, "no check written for this statement yet"))
            continue
        try:
            passed, measured = rule(res)
        except KeyError as e:
            passed, measured = None, f"not measured in this run ({e.args[0]})"
        out.append(Check(key, text, passed, measured))
    return out


def _read_hmb_on(res: AnandTechResult) -> tuple[bool, str]:
    r = res.get("sustained_seq_read", "HMB on")
    sat = _saturation_qd(r)
    ok = sat >= 4 and _steady_from(r, sat)
    return ok, f"reaches 90% of its top at QD{sat}, steady above: {_steady_from(r, sat)} ({_curve(r)})"


def _read_hmb_off(res: AnandTechResult) -> tuple[bool, str]:
    on, off = res.get("sustained_seq_read", "HMB on"), res.get("sustained_seq_read", "HMB off")

    def low(r: Outcome) -> float:  # mean share of the top over QD1..4: lower = more gradual
        return sum(r.at(q) / r.top_mbps for q in (1, 2, 4)) / 3

    ratio = off.at(32) / on.at(32)
    ok = low(off) < low(on) and 0.7 <= ratio < 1.0
    return ok, (
        f"QD1-4 at {low(off):.0%} of its top (HMB on {low(on):.0%}); QD32 {ratio:.0%} of HMB on's "
        f"(pass: lower share and 70-100%); HMB off: {_curve(off)}"
    )


def _write_hmb_on(res: AnandTechResult) -> tuple[bool, str]:
    r = res.get("sustained_seq_write", "HMB on")
    ok = _saturation_qd(r) <= 2 and _steady_from(r, 2)
    return (
        ok,
        f"QD2 at {r.at(2) / r.top_mbps:.0%} of the top, every QD >= 2 at >= 90%: {_steady_from(r, 2)} "
        f"({_curve(r)})",
    )


def _burst_write_hmb(res: AnandTechResult) -> tuple[bool, str]:
    on, off = res.get("burst_seq_write", "HMB on"), res.get("burst_seq_write", "HMB off")
    ratio = on.mbps / off.mbps if off.mbps else float("inf")
    return (
        ratio >= 1.25,
        f"burst write {on.mbps:,.0f} MB/s with HMB, {off.mbps:,.0f} without: x{ratio:.2f} (pass: >= 1.25)",
    )


def _burst_rand_read_hmb_off(res: AnandTechResult) -> tuple[bool, str]:
    on, off = res.get("burst_rand_read", "HMB on"), res.get("burst_rand_read", "HMB off")
    slower = 1 - off.mbps / on.mbps if on.mbps else 0.0
    return (
        0.3 <= slower <= 0.5,
        f"burst random read {on.mbps:,.1f} MB/s with HMB, {off.mbps:,.1f} without: {slower:.0%} slower "
        "(pass: 30-50%)",
    )


def _sustained_rand_read_hmb(res: AnandTechResult) -> tuple[bool, str]:
    on, off = res.get("sustained_rand_read", "HMB on"), res.get("sustained_rand_read", "HMB off")
    gain = on.mbps / off.mbps - 1 if off.mbps else float("inf")
    return (
        abs(gain) <= 0.15,
        f"QD1/2/4 mean {on.mbps:,.1f} MB/s with HMB, {off.mbps:,.1f} without: {gain:+.0%} (pass: within 15%)",
    )


def _seq_read_sustained_like_burst(res: AnandTechResult) -> tuple[bool, str]:
    burst, sustained = res.get("burst_seq_read"), res.get("sustained_seq_read")
    diff = sustained.mbps / burst.mbps - 1 if burst.mbps else float("inf")
    return (
        abs(diff) <= 0.15,
        f"sustained (QD1/2/4 mean) {sustained.mbps:,.0f} MB/s against the burst's {burst.mbps:,.0f}: "
        f"{diff:+.0%} (pass: within 15%)",
    )


def _mixed_rand_grows_to_writes(res: AnandTechResult) -> tuple[bool, str]:
    r = res.get("mixed_rand")
    at = {round(p.x): p.mbps for p in r.points}  # read share, percent -> MB/s
    reads, writes = (sum(at[k] for k in ks) / len(ks) for ks in ((90, 80, 70, 60), (40, 30, 20, 10)))
    jump = at[0] / at[10] if at[10] else float("inf")
    curve = ", ".join(f"{k}% {at[k]:,.0f}" for k in sorted(at, reverse=True))
    return (
        writes > reads and jump >= 1.2,
        f"mean of 10-40% reads {writes:,.0f} MB/s against 60-90% {reads:,.0f}; pure writes x{jump:.2f} the "
        f"10% mix (pass: higher, and >= 1.2) ({curve})",
    )


#: Statement key -> check of a result: ``(passed, what was measured)``. A new statement gets one function.
CHECKS: dict[str, Callable[[AnandTechResult], tuple[bool, str]]] = {
    "seq_read_hmb_on": _read_hmb_on,
    "seq_read_hmb_off": _read_hmb_off,
    "seq_write_hmb_on": _write_hmb_on,
    "burst_seq_write_note": _burst_write_hmb,
    "burst_rand_read_hmb_off": _burst_rand_read_hmb_off,
    "sustained_rand_read_hmb": _sustained_rand_read_hmb,
    "sustained_seq_read_like_burst": _seq_read_sustained_like_burst,
    "mixed_rand_grows_to_writes": _mixed_rand_grows_to_writes,
}


def has_hmb(drive: Drive) -> bool:
    """Whether the drive's map cache lives in the host memory buffer."""
    return bool(drive.config_value("controller.map_cache.location") == "hmb")


class _States:
    """The prepared states of one variant: the purged drive, its prefilled spans, and the end states of
    tests that others run after."""

    def __init__(self, base: Drive, names: Sequence[str], max_gb: float, seed: int, variant: str) -> None:
        self.base = purge(base)
        self.needed = {TESTS[n].after for n in names} - {None}
        self.max_gb, self.seed, self.variant = max_gb, seed, variant
        self.spans: dict[int, Drive] = {}
        self.ends: dict[str, Drive] = {}

    def prefilled(self, span: int) -> Drive:
        """The purged drive with ``[0, span)`` written (128 KiB QD32) and 10 s of idle after."""
        span = min(span, self.base.capacity_bytes) // BLOCK * BLOCK
        if span not in self.spans:
            d = self.base.clone()
            if span:
                write_span(d, 0, span, seed=run_seed(self.seed, "prefill", span))
                d.idle("10s")
            self.spans[span] = d
        return self.spans[span]

    def run(self, name: str) -> Outcome:
        """Run test ``name`` on a clone of its starting state (running the test it comes after first,
        unrecorded, if that has not run)."""
        test = TESTS[name]
        span = min(test.prefill_bytes, self.base.capacity_bytes) // BLOCK * BLOCK
        if test.after is not None:
            if test.after not in self.ends:
                self.needed.add(test.after)
                self.run(test.after)
            d = self.ends[test.after].clone()
        else:
            d = self.prefilled(span).clone()
        r = test.run(d, span, self.max_gb, run_seed(self.seed, name, self.variant))
        if name in self.needed:
            self.ends[name] = d
        return r


def run_anandtech(
    drive: Drive,
    tests: Sequence[str] | None = None,
    max_gb: float = MAX_GB,
    hmb_off: bool | None = None,
    seed: int = 1,
    progress: Progress | None = None,
    hmb_grant_mib: int = WINDOWS_HMB_MIB,
) -> AnandTechResult:
    """Run the AnandTech tests ``tests`` (default: all of :data:`TESTS`) on ``drive``'s config.

    ``drive`` itself is left alone: each test runs on a clone of a prepared state (purged, then the test's
    span written, or the end state of the test it runs ``after``). ``max_gb`` is the most each step moves
    (AnandTech: 32 GB) and the bursts' total (at most 1 GB); smaller values make quick runs. ``hmb_off``
    runs every test again with the HMB withheld (default: when the drive has an HMB). With HMB on the host
    grants at most ``hmb_grant_mib`` of the HMB the drive asks for (default: Windows', as on AnandTech's
    testbed).
    """
    names = list(TESTS) if tests is None else list(tests)
    for n in names:
        if n not in TESTS:
            raise workload_error("tests", f"unknown AnandTech test {n!r}; use {', '.join(TESTS)}", n)
    if not max_gb > 0:
        raise workload_error("max_gb", "must be above 0", max_gb)
    names = [n for n in TESTS if n in names]  # in the suite's order: a test runs before those after it
    hmb = has_hmb(drive)
    on: dict[str, str] = {}
    granted = None
    if hmb:
        granted = min(int(drive.config_value("controller.map_cache.hmb_size_mib")), hmb_grant_mib)
        on = {"controller.map_cache.hmb_size_mib": str(granted)}
    variants: list[tuple[str, dict[str, str]]] = [("HMB on" if hmb else "-", on)]
    if hmb_off or (hmb_off is None and hmb):
        variants.append(("HMB off", HMB_OFF))
    text = drive.config_toml()
    results: list[Outcome] = []
    idle: dict[str, float] = {}
    total = len(variants) * (len(names) + 1)
    step = 0
    for variant, overrides in variants:
        states = _States(Drive.from_toml_str(text, set=overrides), names, max_gb, seed, variant)
        idle[variant] = idle_power_mw(states.prefilled(16 * GB).clone())
        step += 1
        for name in names:
            report = sub(progress, step / total, (step + 1) / total)
            if report is not None:
                report(0.0, f"{TESTS[name].title} ({variant})")
            r = states.run(name)
            r.variant = variant
            results.append(r)
            step += 1
    if progress is not None:
        progress(1.0, "done")
    return AnandTechResult(drive.name, seed, max_gb, results, text, idle, granted)


def _label(r: Mapping[str, Any]) -> str:
    variant = r.get("variant") or "-"
    return str(r["name"]) + ("" if variant == "-" else f" ({variant})")


def headline(doc: Mapping[str, Any]) -> list[Headline]:
    """Each test's score (bursts: bytes / busy time; sustained: mean of QD1, QD2, QD4; mixed and working
    set: mean of the steps; fill: the average) and efficiency per variant, and the idle power.

    Examples
    --------
    >>> doc = {"results": [{"name": "fill", "variant": "-", "mbps": 900.0, "mbps_per_w": 300.0}],
    ...        "idle_mw": {"-": 3.5}}
    >>> [(h.name, h.value, h.unit) for h in headline(doc)]  # doctest: +NORMALIZE_WHITESPACE
    [('fill', 900.0, 'MB/s'), ('fill efficiency', 300.0, 'MB/s per W'), ('idle power', 3.5, 'mW')]
    """
    out = []
    for r in doc["results"]:
        out.append(Headline(_label(r), number(r["mbps"]), "MB/s"))
        out.append(Headline(f"{_label(r)} efficiency", number(r.get("mbps_per_w")), "MB/s per W"))
    for variant, mw in (doc.get("idle_mw") or {}).items():
        name = "idle power" + ("" if variant == "-" else f" ({variant})")
        out.append(Headline(name, number(mw), "mW", lower_is_better=True))
    return out


def curves(doc: Mapping[str, Any]) -> list[Curve]:
    """One plot per test with steps (QD scaling, read share, working-set span, fill), a series per
    variant."""
    out = []
    for r in doc["results"]:
        pts = r.get("points") or r.get("qd") or []  # "qd": results saved before the full suite
        if not pts:
            continue
        x_label = str(r.get("x_label", "queue depth"))
        out.append(
            Curve(
                str(r["name"]),
                x_label,
                "MB/s",
                [float(p.get("x", p.get("qd", 0))) for p in pts],
                [p["mbps"] for p in pts],
                "" if (r.get("variant") or "-") == "-" else str(r["variant"]),
                scale="log2x" if x_label in ("queue depth", "span (GB)") else "",
            )
        )
    return out


def _suite_run(drive: Drive, o: SuiteOptions, progress: Progress | None) -> AnandTechResult:
    max_gb = MAX_GB if o.test_size is None else parse_size(o.test_size, "test_size") / GB
    return run_anandtech(drive, max_gb=max_gb, seed=o.seed, progress=progress)


register(
    Suite(
        name="anandtech",
        help="AnandTech client suite: burst/sustained seq and 4K random read/write (QD1..32), mixed, fill, "
        "working set, power, HMB on and off (--test-size: the most each step moves, 32g)",
        run=_suite_run,
        options=frozenset({"test_size"}),
        headline=headline,
        curves=curves,
        simulated_only="runs each test on a copy of a prepared drive state and again with the HMB withheld, "
        "which a real device cannot do",
    )
)
