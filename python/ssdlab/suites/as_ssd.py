"""AS SSD Benchmark (Alex Intelligent Software, A. Schepeljanski) on a simulated drive.

What AS SSD does (../shared/BENCHMARKS.md; Tom's Hardware's description of the tool, 2011, for the score
weights and the test file sizes; a Chinese walkthrough of the tool for the block sizes and file layout):

- **Seq**: a 1 GB test file written with 16 MB blocks, one at a time (QD1), then read back the same way;
  incompressible data. Here: 16 MiB sequential writes then reads at QD1 over ``[0, 1 GiB)``.
- **4K**: a 1 GB file written with 512 KB blocks, then random 4 KiB writes and reads at QD1 inside it until
  its range has been covered once (1 GiB moved each way). Here: io_size 1 GiB, stopped early at
  ``max_time`` (a cap of ours, so that a slow drive does not take minutes).
- **4K-64Thrd**: 64 files of 16 MB (1 GB), 64 threads, each random 4 KiB on its own file at QD1. Here: 64
  jobs, job *i* on ``[i x 16 MiB, (i + 1) x 16 MiB)``, each moving its 16 MiB (capped at ``max_time``).
- **Acc.time**: reads of 4 KiB at random over the whole LBA span, and writes of 512 B at random inside a
  reserved 1 GB, both at QD1; the mean time per IO in ms, as the tool's loop sees it (the drive's latency
  plus the tool's own time per IO, :data:`HOST_IO_US`, the same loop as its 4K test). Each 512 B write
  covers part of a 4 KiB page: one already on flash is read first (``rmw_reads``), which the drive's
  acknowledgement does not wait for.
- **Score** (in MB/s units): Read = 0.1 SeqR + 4K_R + 4K64_R; Write = 0.1 SeqW + 4K_W + 4K64_W;
  Total = 0.15 SeqW + 0.1 SeqR + 2 x 4K_R + 4K_W + 4K64_W + 1.5 x 4K64_R.
- **Compression test**: 1 GB written and read at 0, 10, ..., 100% compressibility (here 16 MiB blocks at
  QD1 like Seq; the tool's block size for it is not published).
- Order: each test writes its file, then reads it; Seq, 4K, 4K-64Thrd, Acc.time, then the compression test.
  Files are placed at the start of the drive (a freshly formatted partition's free space) and overwrite
  each other, as deleted files' space is reused. Units: decimal MB/s (10^6 bytes).

Reference figures: the compact M.2 roundup's AS SSD sequential read (``[as_ssd] seq_read_MBps``) and 4K read
(``compact-m2-roundup [as_ssd_4k_read_qd1]``, a range across its drives), printed beside the model's.

Examples
--------
>>> import ssdlab
>>> from ssdlab.suites.as_ssd import run_as_ssd
>>> drive = ssdlab.Drive.from_preset("bg4-128gb", capacity_gb=8)
>>> res = run_as_ssd(drive, max_time="20ms", access_time="5ms", compression_steps=(0, 100))
>>> res.score_read == round(0.1 * res.seq_read_mbps + res.k4_read_mbps + res.k4_64_read_mbps)
True
>>> [c.percent for c in res.compression]
[0, 100]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table

from ssdlab import reference
from ssdlab._core import version as ssdlab_version
from ssdlab.drive import Drive
from ssdlab.errors import workload_error
from ssdlab.suites import Curve, Headline, Suite, SuiteOptions, register
from ssdlab.suites._common import Progress, number, result_doc, run_seed
from ssdlab.suites._reference import Beside, published_table
from ssdlab.units import MIB, parse_time_ns
from ssdlab.workload import Workload

__all__ = ["AsSsdResult", "CompressionPoint", "published_figures", "run_as_ssd"]

FILE = 1 << 30
SEQ_BS = 16 * MIB
THREADS = 64

#: AS SSD's own time per IO outside the drive, microseconds: the tool's synchronous unbuffered .NET file IO,
#: NTFS and the Windows storage stack (stornvme, the interrupt and the thread's wake-up), spent between one
#: IO's completion and the next one's submission on each thread. A property of the benchmark host, the
#: same for every drive: fitted (reference compact-m2-roundup [as_ssd_4k_read_qd1] range_MBps, bg4-128gb:
#: the middle of its 40-48 MB/s band; ``validate.SUITE_FITTED``); the roundup's five other drives are its
#: hold-out.
HOST_IO_US = 41.0


@dataclass(frozen=True)
class CompressionPoint:
    percent: int
    read_mbps: float
    write_mbps: float


@dataclass
class AsSsdResult:
    """One AS SSD run: the six throughputs, the two access times, the scores and the compression curve."""

    preset: str
    seed: int
    seq_read_mbps: float
    seq_write_mbps: float
    k4_read_mbps: float
    k4_write_mbps: float
    k4_64_read_mbps: float
    k4_64_write_mbps: float
    access_read_ms: float
    access_write_ms: float
    compression: list[CompressionPoint]
    config_toml: str
    max_time_s: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def score_read(self) -> int:
        return round(0.1 * self.seq_read_mbps + self.k4_read_mbps + self.k4_64_read_mbps)

    @property
    def score_write(self) -> int:
        return round(0.1 * self.seq_write_mbps + self.k4_write_mbps + self.k4_64_write_mbps)

    @property
    def score_total(self) -> int:
        return round(
            0.15 * self.seq_write_mbps
            + 0.1 * self.seq_read_mbps
            + 2 * self.k4_read_mbps
            + self.k4_write_mbps
            + self.k4_64_write_mbps
            + 1.5 * self.k4_64_read_mbps
        )

    def to_dict(self) -> dict[str, object]:
        return result_doc(
            "as-ssd",
            self,
            max_time_s=self.max_time_s,
            seq_read_mbps=self.seq_read_mbps,
            seq_write_mbps=self.seq_write_mbps,
            k4_read_mbps=self.k4_read_mbps,
            k4_write_mbps=self.k4_write_mbps,
            k4_64_read_mbps=self.k4_64_read_mbps,
            k4_64_write_mbps=self.k4_64_write_mbps,
            access_read_ms=self.access_read_ms,
            access_write_ms=self.access_write_ms,
            score={"read": self.score_read, "write": self.score_write, "total": self.score_total},
            compression=[c.__dict__ for c in self.compression],
            published=[b.__dict__ | {"error_pct": b.error_pct} for b in published_figures(self)],
        )

    def table(self) -> Table:
        t = Table(
            title=f"AS SSD - {self.preset} - 1 GB test files - seed {self.seed} - ssdlab {ssdlab_version()}"
        )
        for col in ("", "Read", "Write"):
            t.add_column(col, justify="left" if not col else "right")
        t.add_row("Seq MB/s", f"{self.seq_read_mbps:,.2f}", f"{self.seq_write_mbps:,.2f}")
        t.add_row("4K MB/s", f"{self.k4_read_mbps:,.2f}", f"{self.k4_write_mbps:,.2f}")
        t.add_row("4K-64Thrd MB/s", f"{self.k4_64_read_mbps:,.2f}", f"{self.k4_64_write_mbps:,.2f}")
        t.add_row("Acc.time ms", f"{self.access_read_ms:.3f}", f"{self.access_write_ms:.3f}")
        t.add_row("Score", str(self.score_read), str(self.score_write))
        t.add_row("Total score", str(self.score_total), "")
        return t

    def compression_table(self) -> Table:
        t = Table(title="AS SSD compression test (1 GB per step)")
        for col in ("compressible", "read MB/s", "write MB/s"):
            t.add_column(col, justify="right")
        for c in self.compression:
            t.add_row(f"{c.percent}%", f"{c.read_mbps:,.1f}", f"{c.write_mbps:,.1f}")
        return t

    def tables(self) -> list[Table]:
        """The results, the compression curve, and the published AS SSD figures beside them (or a line
        saying there are none for this preset)."""
        out = [self.table(), self.compression_table()]
        pub = published_figures(self)
        if pub:
            out.append(published_table(f"Against the published AS SSD figures of {self.preset}", pub))
        else:
            out[0].caption = f"No published AS SSD figures for {self.preset}"
        return out


def published_figures(res: AsSsdResult) -> list[Beside]:
    """The published AS SSD figures for ``res.preset`` beside the run's: ``[as_ssd] seq_read_MBps`` and the
    roundup's 4K read range (narrowed to 40-48.4 MB/s for the drives it says were above 40, 33.9-40 for
    those near 35).

    Examples
    --------
    >>> [b.key for b in published_figures(AsSsdResult("bg4-128gb", 1, *[1.0] * 8, [], ""))]
    ['as_ssd.seq_read_MBps', 'as_ssd_4k_read_qd1']
    """
    out = []
    fig = (reference.figures(res.preset) or {}).get("as_ssd")
    if fig is not None and "seq_read_MBps" in fig:
        out.append(Beside("as_ssd.seq_read_MBps", fig["seq_read_MBps"], res.seq_read_mbps, "MB/s"))
    rng = k4_read_range(res.preset)
    if rng is not None:
        out.append(Beside("as_ssd_4k_read_qd1", rng, res.k4_read_mbps, "MB/s"))
    return out


def k4_read_range(preset: str) -> list[float] | None:
    """The roundup's AS SSD 4K read range for ``preset`` ([lo, hi] MB/s), None if it does not list it."""
    fig = reference.load("compact-m2-roundup")["as_ssd_4k_read_qd1"]
    lo, hi = (float(v) for v in fig["range_MBps"])
    if preset in fig["above_40_MBps"]:
        return [40.0, hi]
    if preset in fig["near_35_MBps"]:
        return [lo, 40.0]
    return None


def _job(
    rw: str,
    bs: int,
    offset: int,
    size: int,
    io_size: int,
    runtime_ns: int,
    seed: int,
    pct: int = 0,
    host_io_us: float = 0.0,
) -> Workload:
    return Workload(
        rw=rw,
        bs=bs,
        iodepth=1,
        thinktime=f"{host_io_us}us",
        offset=offset,
        size=size,
        io_size=io_size,
        runtime=f"{runtime_ns}ns" if runtime_ns else None,
        buffer_compress_percentage=pct,
        seed=seed,
    )


def run_as_ssd(
    drive: Drive,
    max_time: str | int | float = "10s",
    access_time: str | int | float = "2s",
    compression_steps: Sequence[int] = tuple(range(0, 101, 10)),
    seed: int = 1,
    progress: Progress | None = None,
    host_io_us: float = HOST_IO_US,
) -> AsSsdResult:
    """Run AS SSD on ``drive`` (changed: its test files are written on it).

    ``max_time`` caps each 4K and 4K-64Thrd run (simulated time), ``access_time`` is the length of each
    access-time run; ``compression_steps`` the compressibility levels of the compression test (%).
    ``host_io_us`` is the tool's own time per IO on each thread (:data:`HOST_IO_US`; 0: the drive alone).
    The access times include it, as the 4K throughputs do: the tool times the same QD1 loop.
    """
    cap_ns = parse_time_ns(max_time, "max_time")
    acc_ns = parse_time_ns(access_time, "access_time")
    if acc_ns <= 0:
        raise workload_error("access_time", "must be above 0", access_time)
    if drive.capacity_bytes < 2 * FILE:
        raise workload_error(
            "drive", "AS SSD needs at least 2 GiB (1 GiB test files and a reserve)", drive.name
        )
    steps = list(compression_steps)
    for p in steps:
        if isinstance(p, bool) or not isinstance(p, int) or not 0 <= p <= 100:
            raise workload_error("compression_steps", f"each must be 0..100 (got {p!r})", p)
    total = 8 + 2 * len(steps)
    done = 0

    def run(ws: Workload | list[Workload], what: str) -> tuple[float, float]:
        nonlocal done
        if progress is not None:
            progress(done / total, what)
        res = drive.run(ws)
        done += 1
        return res.bandwidth_mbps, res.latency.mean_us

    seq_w, _ = run(_job("write", SEQ_BS, 0, FILE, 0, 0, run_seed(seed, "seq w"), 0, host_io_us), "Seq write")
    seq_r, _ = run(_job("read", SEQ_BS, 0, FILE, 0, 0, run_seed(seed, "seq r"), 0, host_io_us), "Seq read")
    drive.run(_job("write", 512 << 10, 0, FILE, 0, 0, run_seed(seed, "4k file")))
    k4_w, _ = run(
        _job("randwrite", 4096, 0, FILE, FILE, cap_ns, run_seed(seed, "4k w"), 0, host_io_us), "4K write"
    )
    k4_r, _ = run(
        _job("randread", 4096, 0, FILE, FILE, cap_ns, run_seed(seed, "4k r"), 0, host_io_us), "4K read"
    )
    part = FILE // THREADS
    drive.run(_job("write", SEQ_BS, 0, FILE, 0, 0, run_seed(seed, "64 files")))
    k64 = {}
    for rw in ("randwrite", "randread"):
        jobs = [
            _job(rw, 4096, i * part, part, part, cap_ns, run_seed(seed, "4k64", rw, i), 0, host_io_us)
            for i in range(THREADS)
        ]
        k64[rw], _ = run(jobs, f"4K-64Thrd {rw[4:]}")
    span = drive.capacity_bytes // 4096 * 4096
    acc = {}
    # the tool times its QD1 loop: each access is the drive's latency plus the tool's own time per IO
    acc["read"] = run(
        _job("randread", 4096, 0, span, 0, acc_ns, run_seed(seed, "acc r"), 0, host_io_us), "Acc.time read"
    )[1]
    acc["write"] = run(
        _job("randwrite", 512, span - FILE, FILE, 0, acc_ns, run_seed(seed, "acc w"), 0, host_io_us),
        "Acc.time write",
    )[1]
    points = []
    for pct in steps:
        w, _ = run(
            _job("write", SEQ_BS, 0, FILE, 0, 0, run_seed(seed, "cmp w", pct), pct, host_io_us),
            f"compression {pct}% write",
        )
        r, _ = run(
            _job("read", SEQ_BS, 0, FILE, 0, 0, run_seed(seed, "cmp r", pct), pct, host_io_us),
            f"compression {pct}% read",
        )
        points.append(CompressionPoint(pct, r, w))
    if progress is not None:
        progress(1.0, "done")
    return AsSsdResult(
        preset=drive.name,
        seed=seed,
        seq_read_mbps=seq_r,
        seq_write_mbps=seq_w,
        k4_read_mbps=k4_r,
        k4_write_mbps=k4_w,
        k4_64_read_mbps=k64["randread"],
        k4_64_write_mbps=k64["randwrite"],
        access_read_ms=(acc["read"] + host_io_us) / 1e3,
        access_write_ms=(acc["write"] + host_io_us) / 1e3,
        compression=points,
        config_toml=drive.config_toml(),
        max_time_s=cap_ns / 1e9,
    )


def headline(doc: Mapping[str, Any]) -> list[Headline]:
    """The three scores, the six throughputs and the two access times, as AS SSD's window shows them."""
    out = [Headline(f"score {k}", number(doc["score"][k]), "points") for k in ("read", "write", "total")]
    for label, key in (("Seq", "seq"), ("4K", "k4"), ("4K-64Thrd", "k4_64")):
        for d in ("read", "write"):
            out.append(Headline(f"{label} {d}", number(doc[f"{key}_{d}_mbps"]), "MB/s"))
    for d in ("read", "write"):
        out.append(Headline(f"Acc.time {d}", number(doc[f"access_{d}_ms"]), "ms", lower_is_better=True))
    return out


def curves(doc: Mapping[str, Any]) -> list[Curve]:
    """The compression test: read and write MB/s against the data's compressible share."""
    pts = doc.get("compression", [])
    x = [float(p["percent"]) for p in pts]
    return [
        Curve("compression", "compressible share (%)", "MB/s", x, [p[f"{d}_mbps"] for p in pts], d)
        for d in ("read", "write")
    ]


def _suite_run(drive: Drive, o: SuiteOptions, progress: Progress | None) -> AsSsdResult:
    return run_as_ssd(drive, max_time=o.duration or "10s", seed=o.seed, progress=progress)


register(
    Suite(
        name="as-ssd",
        help="AS SSD Benchmark: Seq, 4K, 4K-64Thrd, access time, score, compression test "
        "(--duration caps each 4K run, 10s)",
        run=_suite_run,
        options=frozenset({"duration"}),
        headline=headline,
        curves=curves,
    )
)
