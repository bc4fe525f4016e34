"""AnandTech-style whole-drive fill: write speed as the drive fills, from erased to full.

The method (AnandTech client suite 2018-2021; ../shared/BENCHMARKS.md): from an erased drive, 128 kB
sequential writes at QD32 over the whole user capacity, speed logged per 1 GB of host data written;
reported as the curve, the overall average, and the average of the last 16 GB. The compact M.2 roundup's
AIDA64 linear-write curves (:mod:`ssdlab.reference`, ``fill`` tables) are the same shape of measurement.

How it is run here: the drive is purged (:func:`ssdlab.precondition.purge`), then written as successive
~1 GB sequential workloads, back to back (no idle time between them, so no background work sneaks in). A
point's speed is that chunk's host bytes / its simulated time, exactly. Chunk ends are the 128 KiB
boundaries nearest below k x 10^9 bytes (a decimal GB is not a whole number of 4 KiB pages), so a chunk
holds 1 GB +- 128 KiB; the last chunk takes the remainder, its sub-128 KiB tail written with 4 KiB IOs.
After each chunk the drive's SLC-cache state is read (``slc_cache_used_bytes``, ``slc_cache_size_bytes``,
``folded_bytes``, ``slc_bytes_written``).

Averages are throughputs (bytes / time), not means of per-GB speeds: the overall average is total host
bytes / total time, the last-16-GB average is the bytes of the last 16 points / their time.

Examples
--------
>>> import ssdlab
>>> from ssdlab.suites.fill import run_fill
>>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
>>> res = run_fill(drive)
>>> len(res.points), res.points[-1].host_bytes == drive.capacity_bytes
(4, True)
>>> res.average_mbps == res.points[-1].host_bytes / 1e6 / sum(p.elapsed_s for p in res.points)
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.table import Table

from ssdlab import reference
from ssdlab._core import version as ssdlab_version
from ssdlab.counters import Counters
from ssdlab.counters import delta as counter_delta
from ssdlab.drive import Drive
from ssdlab.errors import workload_error
from ssdlab.precondition import purge, write_span
from ssdlab.suites import Curve, Headline, Suite, SuiteOptions, register
from ssdlab.suites._common import Progress, number, result_doc, scaled
from ssdlab.units import GB, parse_size, shown

__all__ = [
    "FillLevel",
    "FillPoint",
    "FillResult",
    "SegmentCheck",
    "compare_fill_curve",
    "detect_levels",
    "require_matplotlib",
    "run_fill",
]


@dataclass(frozen=True)
class FillPoint:
    """One logged chunk (~1 GB) of the fill, and the drive's SLC-cache state after it."""

    index: int
    #: Host bytes written from the start of the fill to the end of this chunk.
    host_bytes: int
    chunk_bytes: int
    elapsed_s: float
    fill_start: float
    fill_end: float
    slc_cache_used_bytes: float
    slc_cache_size_bytes: float
    folded_bytes: float
    slc_bytes_written: float
    nand_bytes_programmed: float

    @property
    def mbps(self) -> float:
        """This chunk's host bytes / its simulated time, decimal MB/s."""
        return self.chunk_bytes / 1e6 / self.elapsed_s if self.elapsed_s else 0.0

    @property
    def fill_mid(self) -> float:
        return (self.fill_start + self.fill_end) / 2

    def to_dict(self) -> dict[str, float | int]:
        return {
            "index": self.index,
            "host_bytes": self.host_bytes,
            "chunk_bytes": self.chunk_bytes,
            "elapsed_s": self.elapsed_s,
            "mbps": self.mbps,
            "fill_start": self.fill_start,
            "fill_end": self.fill_end,
            "slc_cache_used_bytes": self.slc_cache_used_bytes,
            "slc_cache_size_bytes": self.slc_cache_size_bytes,
            "folded_bytes": self.folded_bytes,
            "slc_bytes_written": self.slc_bytes_written,
            "nand_bytes_programmed": self.nand_bytes_programmed,
        }


@dataclass(frozen=True)
class FillLevel:
    """A run of consecutive points within +-tolerance of their own mean speed."""

    first: int
    last: int
    fill_start: float
    fill_end: float
    mbps: float

    @property
    def points(self) -> int:
        return self.last - self.first + 1


@dataclass(frozen=True)
class SegmentCheck:
    """One published fill-curve segment against the simulated curve."""

    fill_start: float
    fill_end: float
    low_mbps: float
    high_mbps: float
    #: Simulated throughput over the points whose middle falls in the segment (None: no point there).
    mbps: float | None
    points: int
    tolerance: float

    @property
    def ok(self) -> bool:
        """The simulated mean lies in [low, high] widened by the tolerance."""
        if self.mbps is None:
            return False
        return self.low_mbps * (1 - self.tolerance) <= self.mbps <= self.high_mbps * (1 + self.tolerance)

    def to_dict(self) -> dict[str, object]:
        return {
            "fill_start": self.fill_start,
            "fill_end": self.fill_end,
            "low_mbps": self.low_mbps,
            "high_mbps": self.high_mbps,
            "mbps": self.mbps,
            "points": self.points,
            "ok": self.ok,
        }


def _throughput(points: Sequence[FillPoint]) -> float:
    seconds = sum(p.elapsed_s for p in points)
    return sum(p.chunk_bytes for p in points) / 1e6 / seconds if seconds else 0.0


def detect_levels(
    mbps: Sequence[float], tolerance: float = 0.15, min_points: int = 2
) -> list[tuple[int, int, float]]:
    """Plateaus of a curve: maximal runs of consecutive values all within +-``tolerance`` of the run's mean.

    Greedy from the left: a value joins the current run if every value of the extended run stays within
    +-tolerance of the extended run's mean; otherwise it starts a new run. Runs shorter than ``min_points``
    (the transition between two levels) are left out. Returns ``(first, last, mean)`` per level.

    Examples
    --------
    >>> detect_levels([1600, 1640, 1620, 700, 200, 210, 205, 190, 50, 48])
    [(0, 2, 1620.0), (4, 7, 201.25), (8, 9, 49.0)]
    """
    runs: list[tuple[int, int, float]] = []
    start = 0
    for i in range(1, len(mbps) + 1):
        if i < len(mbps):
            cand = mbps[start : i + 1]
            mean = sum(cand) / len(cand)
            if all(abs(v - mean) <= tolerance * abs(mean) for v in cand):
                continue
        run = mbps[start:i]
        if len(run) >= min_points:
            runs.append((start, i - 1, sum(run) / len(run)))
        start = i
    return runs


def compare_fill_curve(
    points: Sequence[FillPoint], published: Sequence[Sequence[float]], tolerance: float = 0.10
) -> list[SegmentCheck]:
    """Check a simulated fill curve against a published one (:func:`ssdlab.reference.fill_curve`: a list of
    ``[fill_fraction_start, fill_fraction_end, MBps_low, MBps_high]``).

    Each segment gets the throughput (bytes / time) of the points whose middle falls in
    ``[start, end)`` (``end`` included for the last segment at 1.0), and passes when it lies in
    ``[low, high]`` widened by ``tolerance`` (10% by default) on each side.

    Examples
    --------
    >>> pts = [FillPoint(i, (i + 1) * GB, GB, GB / (800e6 if i < 2 else 200e6), i / 10, (i + 1) / 10,
    ...                  0, 0, 0, 0, 0) for i in range(10)]
    >>> [(c.mbps, c.ok) for c in compare_fill_curve(pts, [[0.0, 0.2, 700, 756], [0.2, 1.0, 200, 210]])]
    [(800.0, True), (200.0, True)]
    """
    checks = []
    for seg in published:
        start, end, low, high = (float(v) for v in seg)
        inside = [p for p in points if start <= p.fill_mid < end or (end >= 1.0 and p.fill_mid == end)]
        mbps = _throughput(inside) if inside else None
        checks.append(SegmentCheck(start, end, low, high, mbps, len(inside), tolerance))
    return checks


def cache_edge(elapsed_s: float, chunk_bytes: int, fast_mbps: float, slow_mbps: float) -> float:
    """The share of a chunk written at ``fast_mbps`` when the chunk took ``elapsed_s`` and the rest ran at
    ``slow_mbps``: where in the chunk the speed fell (0..1).

    >>> cache_edge(3.0, 10**9, 1000.0, 200.0)  # 0.5 GB at 1 GB/s (0.5 s) + 0.5 GB at 200 MB/s (2.5 s) = 3 s
    0.5
    >>> cache_edge(5.0, 10**9, 1000.0, 200.0)  # all of it at 200 MB/s
    0.0
    """
    if fast_mbps <= slow_mbps or slow_mbps <= 0:
        return 1.0
    mb = chunk_bytes / 1e6
    share = (mb / slow_mbps - elapsed_s) / (mb / slow_mbps - mb / fast_mbps)
    return min(1.0, max(0.0, share))


@dataclass
class FillResult:
    """A whole-drive fill: the curve, its averages and levels, and the drive's SLC cache along it."""

    preset: str
    capacity_bytes: int
    bs: int
    iodepth: int
    chunk_bytes: int
    points: list[FillPoint]
    #: Change in the drive's counters over the whole fill, with ``waf``.
    counters: Counters
    config_toml: str
    level_tolerance: float = 0.15

    @property
    def total_s(self) -> float:
        return sum(p.elapsed_s for p in self.points)

    @property
    def average_mbps(self) -> float:
        """Total host bytes / total simulated time."""
        return _throughput(self.points)

    @property
    def last16_mbps(self) -> float:
        """Throughput over the last 16 GB (the last 16 points; all of them on a smaller drive)."""
        return _throughput(self.points[-16:])

    @property
    def fill_fraction(self) -> list[float]:
        """The fill level at the end of each point (x of the curve)."""
        return [p.fill_end for p in self.points]

    @property
    def mbps(self) -> list[float]:
        return [p.mbps for p in self.points]

    @property
    def waf(self) -> float:
        return self.counters["waf"]

    def levels(self, min_points: int = 2) -> list[FillLevel]:
        """The curve's plateaus (see :func:`detect_levels`)."""
        return [
            FillLevel(a, b, self.points[a].fill_start, self.points[b].fill_end, mean)
            for a, b, mean in detect_levels(self.mbps, self.level_tolerance, min_points)
        ]

    def cache_exhausted_at(self) -> int | None:
        """Index of the first point where the SLC cache stopped absorbing the host writes: the cache was
        full at its end (used within 1% of its size), folding under pressure began, or less than half of
        the chunk went to SLC. None if it never happened."""
        prev_slc = prev_fold = 0.0
        for p in self.points:
            slc_share = (p.slc_bytes_written - prev_slc) / p.chunk_bytes
            full = p.slc_cache_size_bytes > 0 and p.slc_cache_used_bytes >= 0.99 * p.slc_cache_size_bytes
            if full or p.folded_bytes > prev_fold or slc_share < 0.5:
                return p.index
            prev_slc, prev_fold = p.slc_bytes_written, p.folded_bytes
        return None

    def cache_seen_bytes(self) -> float:
        """Host bytes written at the cache's speed: the SLC cache as a reviewer reads it off the curve (where
        the speed falls), not the SLC bytes the drive wrote (past the cache, a drive that keeps writing
        through SLC counts those too). The chunk in which the cache ran out is split by :func:`cache_edge`."""
        idx = self.cache_exhausted_at()
        if idx is None:
            return float(self.points[-1].host_bytes)
        p = self.points[idx]
        before = float(p.host_bytes - p.chunk_bytes)
        if idx == 0 or idx + 1 >= len(self.points):
            return before
        share = cache_edge(p.elapsed_s, p.chunk_bytes, self.points[idx - 1].mbps, self.points[idx + 1].mbps)
        return before + share * p.chunk_bytes

    def compare(self, published: Sequence[Sequence[float]], tolerance: float = 0.10) -> list[SegmentCheck]:
        """:func:`compare_fill_curve` of this curve."""
        return compare_fill_curve(self.points, published, tolerance)

    def to_dict(self) -> dict[str, object]:
        checks = self.against_published()
        return result_doc(
            "fill",
            self,
            capacity_bytes=self.capacity_bytes,
            bs=self.bs,
            iodepth=self.iodepth,
            average_mbps=self.average_mbps,
            last16_mbps=self.last16_mbps,
            total_s=self.total_s,
            waf=self.waf,
            levels=[
                {"fill_start": lv.fill_start, "fill_end": lv.fill_end, "mbps": lv.mbps, "points": lv.points}
                for lv in self.levels()
            ],
            cache_exhausted_at=self.cache_exhausted_at(),
            published=None if checks is None else [c.to_dict() for c in checks],
            points=[p.to_dict() for p in self.points],
            counters=self.counters,
        )

    def table(self, max_rows: int = 40) -> Table:
        """The curve, one row per GB (every n-th row on big drives), with the SLC cache state."""
        title = (
            f"Whole-drive fill - {self.preset} - {self.capacity_bytes / GB:.0f} GB,"
            f" {self.bs >> 10} KiB QD{self.iodepth} - average {self.average_mbps:,.0f} MB/s,"
            f" last 16 GB {self.last16_mbps:,.0f} MB/s, WAF {shown(self.waf, '.2f')}"
            f" - ssdlab {ssdlab_version()}"
        )
        t = Table(title=title)
        for col in ("GB", "fill", "MB/s", "SLC used GB", "SLC size GB", "folded GB", "SLC written GB"):
            t.add_column(col, justify="right")
        step = max(1, -(-len(self.points) // max_rows))
        for i, p in enumerate(self.points):
            if i % step and i != len(self.points) - 1:
                continue
            t.add_row(
                f"{p.host_bytes / GB:.0f}",
                f"{p.fill_end:.1%}",
                f"{p.mbps:,.0f}",
                # a real target's internals are unknown (NaN): shown as "-"
                *(
                    shown(v / GB, ".2f")
                    for v in (
                        p.slc_cache_used_bytes,
                        p.slc_cache_size_bytes,
                        p.folded_bytes,
                        p.slc_bytes_written,
                    )
                ),
            )
        return t

    def levels_table(self) -> Table:
        t = Table(title=f"Levels (runs within +-{self.level_tolerance:.0%} of their mean)")
        for col in ("from", "to", "GB", "MB/s"):
            t.add_column(col, justify="right")
        for lv in self.levels():
            gb = sum(p.chunk_bytes for p in self.points[lv.first : lv.last + 1]) / GB
            t.add_row(f"{lv.fill_start:.1%}", f"{lv.fill_end:.1%}", f"{gb:.0f}", f"{lv.mbps:,.0f}")
        return t

    def against_published(self) -> list[SegmentCheck] | None:
        """This curve against the preset's published fill curve (:mod:`ssdlab.reference`), or None when no
        fill curve is published for the preset."""
        curve = reference.fill_curve(self.preset)
        return None if curve is None else self.compare(curve)

    def published_table(self, checks: Sequence[SegmentCheck]) -> Table:
        fig = reference.figures(self.preset) or {}
        source = reference.source_title(fig["fill"]["source"]) if "fill" in fig else "?"
        t = Table(title=f"Against the published fill curve of {self.preset} ({source})")
        for col in ("from", "to", "published MB/s", "model MB/s", "within 10%"):
            t.add_column(col, justify="right")
        for c in checks:
            pub = f"{c.low_mbps:,.0f}"
            if c.high_mbps != c.low_mbps:
                pub += f"-{c.high_mbps:,.0f}"
            model = "-" if c.mbps is None else f"{c.mbps:,.0f}"
            t.add_row(f"{c.fill_start:.1%}", f"{c.fill_end:.1%}", pub, model, "yes" if c.ok else "NO")
        return t

    def tables(self) -> list[Table]:
        """What ``ssdlab run --suite fill`` prints: the curve, its levels, and the published curve beside
        it, or a line saying there is none for this preset."""
        checks = self.against_published()
        levels = self.levels_table()
        if checks is None:
            levels.caption = (
                f"No published fill curve for {self.preset} (published for: "
                f"{', '.join(reference.fill_curve_drives())})"
            )
            return [self.table(), levels]
        return [self.table(), levels, self.published_table(checks)]

    def plot(self, path: str | Path) -> Path:
        """Write the curve (and the SLC cache size and use) as a PNG; needs matplotlib (Agg backend)."""
        try:
            import matplotlib  # type: ignore[import-not-found, unused-ignore]

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt  # type: ignore[import-not-found, unused-ignore]
        except ImportError:
            raise workload_error("plot", "needs matplotlib (pip install matplotlib)", str(path)) from None
        fig, ax = plt.subplots(figsize=(9, 4.5))
        x = [100 * f for f in self.fill_fraction]
        ax.plot(x, self.mbps, drawstyle="steps-pre", label="write MB/s")
        ax.set_xlabel("drive filled (%)")
        ax.set_ylabel("MB/s (per GB written)")
        ax.set_title(f"Whole-drive fill, {self.preset}: average {self.average_mbps:,.0f} MB/s")
        ax2 = ax.twinx()
        ax2.plot(x, [p.slc_cache_size_bytes / GB for p in self.points], "g--", label="SLC cache size GB")
        ax2.plot(x, [p.slc_cache_used_bytes / GB for p in self.points], "r:", label="SLC cache used GB")
        ax2.set_ylabel("GB")
        h1, l1 = ax.get_legend_handles_labels()
        h2, l2 = ax2.get_legend_handles_labels()
        ax.legend(h1 + h2, l1 + l2, loc="center right")
        fig.tight_layout()
        out = Path(path)
        fig.savefig(out, dpi=110)
        plt.close(fig)
        return out


def require_matplotlib() -> None:
    """Raise a :class:`ssdlab.WorkloadError` on ``plot`` unless a PNG can be written (needs matplotlib)."""
    try:
        import matplotlib  # type: ignore[import-not-found, unused-ignore]  # noqa: F401
    except ImportError:
        raise workload_error("plot", "needs matplotlib (pip install matplotlib)", "") from None


def run_fill(
    drive: Drive,
    bs: int | str = "128k",
    iodepth: int = 32,
    chunk: int | str = GB,
    erase: bool = True,
    progress: Progress | None = None,
) -> FillResult:
    """Fill ``drive`` from erased to full with ``bs`` sequential writes at ``iodepth``, logging each ``chunk``
    (default 1 GB decimal).

    ``erase=True`` purges the drive first (the AnandTech method starts from an erased drive); pass
    ``erase=False`` to fill from the drive's current state. The drive is left full.
    """
    block = parse_size(bs, "bs")
    step = parse_size(chunk, "chunk")
    if step < block:
        raise workload_error("chunk", f"must be at least one block ({block} bytes)", chunk)
    if drive.capacity_bytes < step:  # one point is no curve
        simulated = isinstance(drive, Drive)
        raise workload_error(
            "capacity_gb" if simulated else "target_size",
            f"the fill logs a point every {step / 1e9:g} GB: a drive of {drive.capacity_bytes / 1e9:.3g} GB "
            "gives no curve; use one of several GB",
            # the size as its option takes it
            round(drive.capacity_bytes / 1e9, 3) if simulated else drive.capacity_bytes,
        )
    if erase:
        purge(drive)
    cap = drive.capacity_bytes
    start_counters = drive.counters()
    points: list[FillPoint] = []
    written = 0
    k = 1
    while written < cap:
        # The block boundary at or below k GB, or the end of the drive.
        end = min(k * step // block * block, cap)
        if k * step >= cap or end <= written:
            end = cap
        n = end - written
        t0 = drive.now_s
        base = written / cap
        report = scaled(progress, base, end / cap, f"fill {written / GB:.0f}-{end / GB:.0f} GB")
        write_span(drive, written, n, block, iodepth, seed=k, progress=report)
        span = counter_delta(start_counters, drive.counters())
        written = end
        points.append(
            FillPoint(
                index=k - 1,
                host_bytes=written,
                chunk_bytes=n,
                elapsed_s=drive.now_s - t0,
                fill_start=base,
                fill_end=written / cap,
                slc_cache_used_bytes=span["slc_cache_used_bytes"],
                slc_cache_size_bytes=span["slc_cache_size_bytes"],
                folded_bytes=span["folded_bytes"],
                slc_bytes_written=span["slc_bytes_written"],
                nand_bytes_programmed=span["nand_bytes_programmed"],
            )
        )
        k += 1
    if progress is not None:
        progress(1.0, "done")
    return FillResult(
        preset=drive.name,
        capacity_bytes=cap,
        bs=block,
        iodepth=iodepth,
        chunk_bytes=step,
        points=points,
        counters=counter_delta(start_counters, drive.counters()),
        config_toml=drive.config_toml(),
    )


def headline(doc: Mapping[str, Any]) -> list[Headline]:
    """The average, the last 16 GB, the SLC cache (host GB written before it stopped absorbing the writes;
    None if it never did), the WAF and each level's MB/s (``ssdlab compare``).

    Examples
    --------
    >>> pts = [{"host_bytes": (i + 1) * GB, "chunk_bytes": GB} for i in range(4)]
    >>> doc = {"average_mbps": 900.0, "last16_mbps": 400.0, "waf": 1.1, "cache_exhausted_at": 2,
    ...        "points": pts, "levels": [{"mbps": 1600.0}, {"mbps": 400.0}]}
    >>> [(h.name, h.value) for h in headline(doc)]  # doctest: +NORMALIZE_WHITESPACE
    [('average', 900.0), ('last 16 GB', 400.0), ('SLC cache', 2.0), ('WAF', 1.1),
     ('level 1', 1600.0), ('level 2', 400.0)]
    """
    at = doc.get("cache_exhausted_at")
    slc = None
    if isinstance(at, int) and at < len(doc["points"]):
        p = doc["points"][at]
        slc = (p["host_bytes"] - p["chunk_bytes"]) / GB
    out = [
        Headline("average", number(doc["average_mbps"]), "MB/s"),
        Headline("last 16 GB", number(doc["last16_mbps"]), "MB/s"),
        Headline("SLC cache", slc, "GB"),
        Headline("WAF", number(doc.get("waf")), "ratio", lower_is_better=True),
    ]
    return out + [Headline(f"level {i}", number(lv["mbps"]), "MB/s") for i, lv in enumerate(doc["levels"], 1)]


def curves(doc: Mapping[str, Any]) -> list[Curve]:
    """The fill curve: MB/s of each chunk against the fill level at its end."""
    pts = doc["points"]
    x = [100 * p["fill_end"] for p in pts]
    return [Curve("fill", "fill (% of the user capacity)", "write MB/s", x, [p["mbps"] for p in pts])]


def _suite_run(drive: Drive, o: SuiteOptions, progress: Progress | None) -> FillResult:
    return run_fill(drive, progress=progress)


register(
    Suite(
        name="fill",
        help="AnandTech whole-drive fill (write speed from erased to full, against the published curve)",
        run=_suite_run,
        plot=FillResult.plot,
        plot_check=require_matplotlib,
        headline=headline,
        curves=curves,
    )
)
