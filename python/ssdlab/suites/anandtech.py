"""The AnandTech client SSD suite (2018-2021): burst and sustained sequential tests, with HMB on and off.

The method (../shared/BENCHMARKS.md "AnandTech client suite"; AnandTech's reviews describe each test beside
its charts, e.g. the BG4 1TB review of 2019-10):

- **Burst sequential read / write**: 128 MB bursts of 128 KiB IOs at QD1, 8 bursts (1 GB), with 16 GB of data
  on the drive, idle between bursts for a 20% duty cycle (each burst followed by 4x its own time idle). The
  score is the bursts' bytes over their busy time.
- **Sustained sequential read / write**: QD1, 2, 4, 8, 16, 32, each for up to 1 minute or 32 GB, over a 64 GB
  span; score = mean of QD1/2/4. After each queue depth the drive idles as long as the step ran, at most 1
  minute (AnandTech: "up to one minute of idle time" between queue depths). Reads run on the sequentially
  written span (AnandTech also runs them again after its random-write test fragmented the data: that
  second pass comes with the random tests).
- **HMB on vs off**: for a drive whose map cache is in the host memory buffer, every test runs again with
  the buffer withheld (``controller.map_cache.location = "sram"``), as the review did.
- Every test starts from the same prepared state: the drive is purged (secure erase), then the span the test
  needs (16 GB for the bursts, 64 GB for the sustained tests) is written sequentially with 128 KiB at QD32
  and the drive idles 10 s; each test then runs on a clone of that state.

Tests are entries of :data:`TESTS` (name -> function of a prepared drive); the random (4 KiB burst and
sustained, 16/64 GB spans), mixed and whole-drive-fill tests go in the same table. Reference figures
(``reference/bg4-1tb.toml [anandtech]``) are printed beside the model's, numbers with their error and
qualitative statements as checks (:func:`checks`).

Examples
--------
>>> import ssdlab
>>> from ssdlab.suites.anandtech import run_anandtech
>>> drive = ssdlab.Drive.from_preset("bg4-1tb", capacity_gb=128)
>>> res = run_anandtech(drive, tests=["burst_seq_read"], max_gb=0.5, hmb_off=False)
>>> t = res.get("burst_seq_read"); t.variant, t.mbps > 0
('HMB on', True)
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table

from ssdlab import reference
from ssdlab._core import version as ssdlab_version
from ssdlab.drive import Drive
from ssdlab.errors import workload_error
from ssdlab.precondition import purge, write_span
from ssdlab.suites import Curve, Headline, Suite, SuiteOptions, register
from ssdlab.suites._common import Progress, number, run_seed, sub
from ssdlab.suites._reference import Beside, published_table
from ssdlab.units import parse_size
from ssdlab.workload import Workload

__all__ = ["QDS", "TESTS", "AnandTechResult", "Check", "Outcome", "QdPoint", "checks", "run_anandtech"]

GB = 10**9
BLOCK = 128 << 10
QDS = (1, 2, 4, 8, 16, 32)
BURST_BYTES = 128 * 10**6 // BLOCK * BLOCK
BURSTS = 8
DUTY = 0.2
HMB_OFF = {"controller.map_cache.location": "sram"}


@dataclass(frozen=True)
class QdPoint:
    """One queue depth of a sustained test."""

    qd: int
    mbps: float
    seconds: float
    bytes: int


@dataclass
class Outcome:
    """One test on one variant (``"HMB on"`` / ``"HMB off"``, or ``"-"`` for drives without HMB)."""

    name: str
    variant: str
    mbps: float
    #: Sustained tests: the QD curve (empty for bursts).
    qd: list[QdPoint] = field(default_factory=list)

    @property
    def top_mbps(self) -> float:
        """The best queue depth's throughput (the burst figure for bursts)."""
        return max((p.mbps for p in self.qd), default=self.mbps)

    def at(self, qd: int) -> float:
        return next(p.mbps for p in self.qd if p.qd == qd)

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "variant": self.variant,
            "mbps": self.mbps,
            "top_mbps": self.top_mbps,
            "qd": [p.__dict__ for p in self.qd],
        }


@dataclass(frozen=True)
class SuiteTest:
    """A test of the suite: the data it needs on the drive first, and how it runs on a prepared clone."""

    name: str
    title: str
    prefill_bytes: int
    run: Callable[[Drive, int, float, int], Outcome]  # (drive, span, max_gb, seed) -> result


def _burst(rw: str) -> Callable[[Drive, int, float, int], Outcome]:
    def run(drive: Drive, span: int, max_gb: float, seed: int) -> Outcome:
        size = min(BURST_BYTES, int(max_gb * GB / BURSTS) // BLOCK * BLOCK)
        moved, busy = 0, 0.0
        for k in range(BURSTS):
            off = (k * size) % max(span - size + BLOCK, BLOCK) // BLOCK * BLOCK
            w = Workload(rw=rw, bs=BLOCK, iodepth=1, offset=off, size=size, seed=run_seed(seed, rw, k))
            res = drive.run(w)
            moved += size
            busy += res.elapsed_s
            drive.idle(res.elapsed_s * (1 - DUTY) / DUTY)
        return Outcome(f"burst_seq_{rw}", "", moved / 1e6 / busy if busy else 0.0)

    return run


def _sustained(rw: str) -> Callable[[Drive, int, float, int], Outcome]:
    def run(drive: Drive, span: int, max_gb: float, seed: int) -> Outcome:
        amount = int(max_gb * GB) // BLOCK * BLOCK
        points = []
        for qd in QDS:
            w = Workload(
                rw=rw,
                bs=BLOCK,
                iodepth=qd,
                size=span,
                io_size=amount,
                runtime="60s",
                seed=run_seed(seed, rw, qd),
            )
            res = drive.run(w)
            moved = int(res.counters.get(f"host_{rw}_bytes", 0.0))
            points.append(QdPoint(qd, res.bandwidth_mbps, res.elapsed_s, moved))
            drive.idle(min(60.0, res.elapsed_s))
        score = sum(p.mbps for p in points[:3]) / 3
        return Outcome(f"sustained_seq_{rw}", "", score, points)

    return run


#: The suite's tests in the order they run. Add the random, mixed and fill tests here.
TESTS: dict[str, SuiteTest] = {
    t.name: t
    for t in (
        SuiteTest("burst_seq_read", "Burst 128 KiB sequential read QD1", 16 * GB, _burst("read")),
        SuiteTest("burst_seq_write", "Burst 128 KiB sequential write QD1", 16 * GB, _burst("write")),
        SuiteTest(
            "sustained_seq_read", "Sustained 128 KiB sequential read QD1..32", 64 * GB, _sustained("read")
        ),
        SuiteTest(
            "sustained_seq_write", "Sustained 128 KiB sequential write QD1..32", 64 * GB, _sustained("write")
        ),
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

    def to_dict(self) -> dict[str, object]:
        return {
            "suite": "anandtech",
            "ssdlab_version": ssdlab_version(),
            "preset": self.preset,
            "seed": self.seed,
            "max_gb": self.max_gb,
            "results": [r.to_dict() for r in self.results],
            "published": [b.__dict__ | {"error_pct": b.error_pct} for b in published_figures(self)],
            "checks": [c.__dict__ for c in checks(self)],
            "config_toml": self.config_toml,
        }

    def table(self) -> Table:
        t = Table(
            title=f"AnandTech client suite - {self.preset} - seed {self.seed} - ssdlab {ssdlab_version()}"
        )
        t.add_column("test", no_wrap=True)
        t.add_column("variant")
        t.add_column("score MB/s", justify="right")
        for qd in QDS:
            t.add_column(f"QD{qd}", justify="right")
        for r in self.results:
            cells = [f"{p.mbps:,.0f}" for p in r.qd] or [""] * len(QDS)
            t.add_row(TESTS[r.name].title, r.variant, f"{r.mbps:,.0f}", *cells)
        t.caption = "score: bursts = bytes / busy time; sustained = mean of QD1, QD2, QD4"
        return t

    def tables(self) -> list[Table]:
        out = [self.table()]
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
            out[0].caption = f"No published AnandTech figures for {self.preset}"
        return out


def published_figures(res: AnandTechResult) -> list[Beside]:
    """The numeric ``[anandtech]`` figures of ``res.preset`` beside the model's (those the run measured)."""
    fig = (reference.figures(res.preset) or {}).get("anandtech") or {}
    pairs = {
        "burst_seq_read_qd1_MBps": ("burst_seq_read", "HMB on", "mbps"),
        "burst_seq_write_qd1_MBps": ("burst_seq_write", "HMB on", "mbps"),
        "sustained_seq_read_top_MBps": ("sustained_seq_read", "HMB on", "top"),
        "sustained_seq_write_top_MBps": ("sustained_seq_write", "HMB on", "top"),
        "seq_write_hmb_off_MBps": ("sustained_seq_write", "HMB off", "top"),
        "seq_read_hmb_off_MBps": ("sustained_seq_read", "HMB off", "top"),
    }
    out = []
    for key, (test, variant, what) in pairs.items():
        if key in fig and res.has(test, variant):
            r = res.get(test, variant)
            out.append(Beside(f"anandtech.{key}", fig[key], r.top_mbps if what == "top" else r.mbps, "MB/s"))
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
    the curve's top; "steady" = every higher QD at >= 90% of the top."""
    fig = (reference.figures(res.preset) or {}).get("anandtech") or {}
    out = []
    for key, text in fig.items():
        if key in ("source", "kind", "method") or not isinstance(text, str):
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


#: Statement key -> check of a result: ``(passed, what was measured)``. A new statement gets one function.
CHECKS: dict[str, Callable[[AnandTechResult], tuple[bool, str]]] = {
    "seq_read_hmb_on": _read_hmb_on,
    "seq_read_hmb_off": _read_hmb_off,
    "seq_write_hmb_on": _write_hmb_on,
    "burst_seq_write_note": _burst_write_hmb,
}


def has_hmb(drive: Drive) -> bool:
    """Whether the drive's map cache lives in the host memory buffer."""
    cfg = tomllib.loads(drive.config_toml())
    return str(cfg["controller"]["map_cache"]["location"]) == "hmb"


def run_anandtech(
    drive: Drive,
    tests: Sequence[str] | None = None,
    max_gb: float = 32.0,
    hmb_off: bool | None = None,
    seed: int = 1,
    progress: Progress | None = None,
) -> AnandTechResult:
    """Run the AnandTech tests ``tests`` (default: all of :data:`TESTS`) on ``drive``'s config.

    ``drive`` itself is left alone: each test runs on a clone of a prepared state (purged, then the test's
    span written). ``max_gb`` is the most each queue depth moves (AnandTech: 32 GB) and the bursts' total
    (at most 1 GB); smaller values make quick runs. ``hmb_off`` runs every test again with the HMB withheld
    (default: when the drive has an HMB).
    """
    names = list(TESTS) if tests is None else list(tests)
    for n in names:
        if n not in TESTS:
            raise workload_error("tests", f"unknown AnandTech test {n!r}; use {', '.join(TESTS)}", n)
    if not max_gb > 0:
        raise workload_error("max_gb", "must be above 0", max_gb)
    hmb = has_hmb(drive)
    variants: list[tuple[str, dict[str, str]]] = [("HMB on" if hmb else "-", {})]
    if hmb_off or (hmb_off is None and hmb):
        variants.append(("HMB off", HMB_OFF))
    text = drive.config_toml()
    results = []
    total = len(variants) * len(names)
    step = 0
    for variant, overrides in variants:
        base = Drive.from_toml_str(text, set=overrides)
        purge(base)
        prepared: dict[int, Drive] = {}
        for name in names:
            test = TESTS[name]
            span = min(test.prefill_bytes, base.capacity_bytes) // BLOCK * BLOCK
            if span not in prepared:
                d = base.clone()
                write_span(d, 0, span, seed=run_seed(seed, "prefill", span))
                d.idle("10s")
                prepared[span] = d
            report = sub(progress, step / total, (step + 1) / total)
            if report is not None:
                report(0.0, f"{test.title} ({variant})")
            r = test.run(prepared[span].clone(), span, max_gb, run_seed(seed, name, variant))
            r.variant = variant
            results.append(r)
            step += 1
    if progress is not None:
        progress(1.0, "done")
    return AnandTechResult(drive.name, seed, max_gb, results, text)


def _label(r: Mapping[str, Any]) -> str:
    variant = r.get("variant") or "-"
    return str(r["name"]) + ("" if variant == "-" else f" ({variant})")


def headline(doc: Mapping[str, Any]) -> list[Headline]:
    """Each test's score (bursts: bytes / busy time; sustained: mean of QD1, QD2, QD4) per variant."""
    return [Headline(_label(r), number(r["mbps"]), "MB/s") for r in doc["results"]]


def curves(doc: Mapping[str, Any]) -> list[Curve]:
    """The sustained tests' queue-depth scaling, one plot per test, a series per variant."""
    return [
        Curve(
            str(r["name"]),
            "queue depth",
            "MB/s",
            [float(p["qd"]) for p in r["qd"]],
            [p["mbps"] for p in r["qd"]],
            "" if (r.get("variant") or "-") == "-" else str(r["variant"]),
        )
        for r in doc["results"]
        if r.get("qd")
    ]


def _suite_run(drive: Drive, o: SuiteOptions, progress: Progress | None) -> AnandTechResult:
    max_gb = 32.0 if o.test_size is None else parse_size(o.test_size, "test_size") / GB
    return run_anandtech(drive, max_gb=max_gb, seed=o.seed, progress=progress)


register(
    Suite(
        name="anandtech",
        help="AnandTech client suite: burst and sustained 128 KiB sequential read/write, HMB on and off "
        "(--test-size: the most each step moves, 32g)",
        run=_suite_run,
        options=frozenset({"test_size"}),
        headline=headline,
        curves=curves,
    )
)
