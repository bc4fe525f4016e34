"""ATTO Disk Benchmark (ATTO Technology) on a simulated drive: sequential transfer rate against transfer size.

The method (issue 11; ATTO Disk Benchmark 4.x defaults, as reviews state them, e.g. Tom's Hardware's
Optane P5800X review: "0.5KB through 64MB transfer sizes ... over a total max volume length of 256MB";
hardware-journal.de's SSHD test: "eine 256 MB große Datei mit einer Arbeitstiefe ... von 4 geschrieben und
anschließend gelesen", with highly compressible data):

- Transfer sizes 512 B, 1, 2, 4, ..., 512 KiB, 1, 2, 4, 8, 12, 16, 24, 32, 48, 64 MiB (:data:`SIZES`);
  queue depth 4 (overlapped IO, direct); total length 256 MB (here 256 MiB, :data:`TOTAL`).
- For each size, the whole test file is written sequentially with that transfer size, then read back;
  the rate is the bytes over the time. Units: decimal MB/s (10^6 bytes), and IO/s.
- ATTO's data pattern is highly compressible: it is written here as 100% compressible
  (``compressible=False`` writes random data), which matters on a compressing controller (SandForce).
- A transfer size above the total length is left out (ATTO offers none: a 32 MiB test stops at 32 MiB).
- Transfers under 4 KiB are what they are: the drive maps 4 KiB pages, so the sequential 512 B..2 KiB
  writes of a page merge in the write buffer (a page already on flash would be read first:
  ``rmw_reads``), and each read senses its whole page (the next ones of the same NAND page come from its
  page register).

The curves rise with the transfer size (per-command costs amortised over more bytes) until the link or
the NAND caps them. Where the reference data has a review's ATTO tops (``[atto]``: bg4-1tb, KitGuru) they are
printed beside the model's.

Examples
--------
>>> import ssdlab
>>> from ssdlab.suites.atto import run_atto
>>> res = run_atto(ssdlab.Drive.from_preset("bg4-1tb", capacity_gb=8), total="16m", sizes=(4096, 1 << 20))
>>> [(p.bs, p.read_mbps > 0, p.write_mbps > 0) for p in res.points]
[(4096, True, True), (1048576, True, True)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rich.table import Table

from ssdlab import reference
from ssdlab._core import version as ssdlab_version
from ssdlab.drive import Drive
from ssdlab.errors import workload_error
from ssdlab.result import Result
from ssdlab.suites import Curve, Headline, Suite, SuiteOptions, register
from ssdlab.suites._common import Progress, number, result_doc, run_seed
from ssdlab.suites._reference import Beside, published_table
from ssdlab.units import KIB, MIB, PAGE, format_size, parse_size
from ssdlab.workload import Workload

__all__ = ["QD", "SIZES", "TOTAL", "AttoPoint", "AttoResult", "run_atto"]

#: ATTO 4.x's transfer sizes, 512 B to 64 MiB.
SIZES: tuple[int, ...] = (
    512,
    *(KIB << k for k in range(10)),  # 1 KiB .. 512 KiB
    1 * MIB,
    2 * MIB,
    4 * MIB,
    8 * MIB,
    12 * MIB,
    16 * MIB,
    24 * MIB,
    32 * MIB,
    48 * MIB,
    64 * MIB,
)
#: Queue depth (ATTO's default "Queue Depth 4").
QD = 4
#: Total length: the test file each size writes and reads (ATTO's default "256 MB").
TOTAL = 256 * MIB


@dataclass(frozen=True)
class AttoPoint:
    """One transfer size: write then read rates."""

    bs: int
    write_mbps: float
    read_mbps: float

    @property
    def write_iops(self) -> float:
        return self.write_mbps * 1e6 / self.bs

    @property
    def read_iops(self) -> float:
        return self.read_mbps * 1e6 / self.bs

    def to_dict(self) -> dict[str, object]:
        return {**self.__dict__, "write_iops": self.write_iops, "read_iops": self.read_iops}


@dataclass
class AttoResult:
    preset: str
    seed: int
    total: int
    qd: int
    compressible: bool
    points: list[AttoPoint]
    config_toml: str

    def point(self, bs: int) -> AttoPoint:
        return next(p for p in self.points if p.bs == bs)

    def to_dict(self) -> dict[str, object]:
        return result_doc(
            "atto",
            self,
            total=self.total,
            qd=self.qd,
            compressible=self.compressible,
            points=[p.to_dict() for p in self.points],
        )

    def tables(self) -> list[Table]:
        data = "compressible pattern" if self.compressible else "random data"
        t = Table(
            title=f"ATTO Disk Benchmark - {self.preset} - {format_size(self.total)} total length, "
            f"QD{self.qd}, {data} - seed {self.seed} - ssdlab {ssdlab_version()}"
        )
        for col in ("transfer size", "write MB/s", "read MB/s", "write IO/s", "read IO/s"):
            t.add_column(col, justify="right")
        for p in self.points:
            t.add_row(
                format_size(p.bs),
                f"{p.write_mbps:,.1f}",
                f"{p.read_mbps:,.1f}",
                f"{p.write_iops:,.0f}",
                f"{p.read_iops:,.0f}",
            )
        beside = published_figures(self)
        if not beside:
            t.caption = f"no published ATTO figures for {self.preset}"
            return [t]
        return [t, published_table(f"Against the published ATTO figures for {self.preset}", beside)]


def published_figures(res: AttoResult) -> list[Beside]:
    """The reference's ATTO tops for the drive (``[atto]``) beside the run's highest read and write rates.

    Examples
    --------
    >>> pts = [AttoPoint(4096, 900.0, 1000.0), AttoPoint(1 << 20, 1800.0, 2300.0)]
    >>> [(b.key, b.model) for b in published_figures(AttoResult("bg4-1tb", 1, TOTAL, QD, True, pts, ""))]
    [('atto.read_top_MBps', 2300.0), ('atto.write_top_MBps', 1800.0)]
    """
    fig = (reference.figures(res.preset) or {}).get("atto")
    if fig is None:
        return []
    tops = {d: max((getattr(p, f"{d}_mbps") for p in res.points), default=None) for d in ("read", "write")}
    return [
        Beside(f"atto.{d}_top_MBps", fig[f"{d}_top_MBps"], tops[d], "MB/s")
        for d in ("read", "write")
        if f"{d}_top_MBps" in fig
    ]


def _rate(res: Result, n_ios: int, bs: int) -> float:
    return n_ios * bs / 1e6 / res.elapsed_s if res.elapsed_s else 0.0


def run_atto(
    drive: Drive,
    total: int | str = TOTAL,
    qd: int = QD,
    sizes: Sequence[int] = SIZES,
    compressible: bool = True,
    seed: int = 1,
    progress: Progress | None = None,
) -> AttoResult:
    """Run ATTO on ``drive`` (changed: its test file is written at the start of the drive)."""
    length = parse_size(total, "total")
    if length <= 0 or length % PAGE:
        raise workload_error("test_size", f"must be a whole number of 4 KiB pages (got {length})", total)
    if length > drive.capacity_bytes:
        raise workload_error(
            "test_size",
            f"{format_size(length)} does not fit the drive ({format_size(drive.capacity_bytes)}): give a "
            "smaller test size",
            total,
        )
    for bs in sizes:
        if bs < 512 or bs % 512 or bs > 64 * MIB:
            raise workload_error("sizes", f"each must be a multiple of 512 B from 512 B to 64 MiB ({bs})", bs)
    # ATTO offers no transfer size above the total length: a transfer that cannot fit the file is left out
    sizes = [bs for bs in sizes if bs <= length]
    pct = 100 if compressible else 0
    points = []
    for i, bs in enumerate(sizes):
        if progress is not None:
            progress(i / len(sizes), f"{format_size(bs)}")
        n_ios = max(1, length // bs)
        rates = {}
        for rw in ("write", "read"):  # ATTO writes the file, then reads it back
            w = Workload(
                rw=rw,
                bs=bs,
                iodepth=qd,
                size=n_ios * bs,
                io_size=n_ios * bs,
                buffer_compress_percentage=pct,
                seed=run_seed(seed, "atto", rw, bs),
            )
            rates[rw] = _rate(drive.run(w), n_ios, bs)
        points.append(AttoPoint(bs, rates["write"], rates["read"]))
    if progress is not None:
        progress(1.0, "done")
    return AttoResult(drive.name, seed, length, qd, compressible, points, drive.config_toml())


def headline(doc: Mapping[str, Any]) -> list[Headline]:
    """The top read and write rates, and the rates at 4 KiB, 128 KiB and 1 MiB.

    Examples
    --------
    >>> pts = [{"bs": 4096, "read_mbps": 100.0, "write_mbps": 90.0}]
    >>> [(h.name, h.value) for h in headline({"points": pts})][:3]
    [('read top', 100.0), ('write top', 90.0), ('read 4k', 100.0)]
    """
    pts = doc["points"]
    out = [
        Headline(f"{d} top", max((float(p[f"{d}_mbps"]) for p in pts), default=None), "MB/s")
        for d in ("read", "write")
    ]
    for bs in (4 * KIB, 128 * KIB, MIB):
        for p in pts:
            if p["bs"] == bs:
                out += [
                    Headline(f"{d} {format_size(bs)}", number(p[f"{d}_mbps"]), "MB/s")
                    for d in ("read", "write")
                ]
    return out


def curves(doc: Mapping[str, Any]) -> list[Curve]:
    """Read and write MB/s against the transfer size (KiB; a log axis suits it)."""
    pts = doc["points"]
    x = [p["bs"] / KIB for p in pts]
    return [
        Curve("atto", "transfer size (KiB)", "MB/s", x, [p[f"{d}_mbps"] for p in pts], d, scale="log2x")
        for d in ("read", "write")
    ]


def _suite_run(drive: Drive, o: SuiteOptions, progress: Progress | None) -> AttoResult:
    return run_atto(drive, total=o.test_size or TOTAL, seed=o.seed, progress=progress)


register(
    Suite(
        name="atto",
        help="ATTO Disk Benchmark: sequential write then read, 512 B..64 MiB transfers at QD4 on a 256 MB "
        "file (--test-size: the total length)",
        run=_suite_run,
        options=frozenset({"test_size"}),
        headline=headline,
        curves=curves,
    )
)
