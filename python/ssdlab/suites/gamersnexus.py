"""GamersNexus' SSD test bench (the Kingston V300 review, 2013): IOMETER after preconditioning, Anvil at 46%
compressibility, a media copy and an archive extraction, timed.

The method (../shared/BENCHMARKS.md "GamersNexus V300"; ``reference/v300.toml [v300] method``):

- **Secure erase**, then **preconditioning**: 4 KiB random writes at QD32 over the whole drive for
  ``capacity_GB x 0.5`` minutes (60 min for 120 GB; :func:`precondition_seconds`), incompressible data.
- **IOMETER**: 5-minute tests of 4 KiB and 1 KiB random reads and writes at QD1, QD4 and QD32 over the whole
  drive (incompressible). The drive maps 4 KiB pages: a 1 KiB read senses its whole page and moves 1 KiB,
  a 1 KiB write read-modify-writes its page (``rmw_reads``).
- **A file system** for the file-based tests below: the volume is formatted (or IOMETER's test file deleted)
  on Windows 7, which TRIMs the whole space the preconditioning and IOMETER wrote (our reading: the review
  preconditions "prior to initialization", i.e. before the disk gets its volume).
- **Anvil's Storage Utilities** at 46% compressibility (GamersNexus' "real world" data), 8 GB test file
  written first: sequential 4 MiB, 4 KiB random at QD1, QD4 and QD16, 32 KiB and 512 KiB random, read then
  write (Anvil's standard rows; each run ``anvil_s`` long, our choice, Anvil's own score formula is not
  reproduced).
- **Media copy**: a 10.3 GB (decimal) incompressible file copied to another place on the same drive: the
  source is written first, then read and written at once (1 MiB IOs, QD2 each way: a copy pipeline, our
  choice of IO size and depth); the time in seconds is the result.
- **Archive extraction**: one compressed (incompressible) 2 GB archive read with 1 MiB IOs at QD1 while 4 GB
  of 46%-compressible files (256 KiB each, 16384 files) are written with 128 KiB IOs at QD1, and one 4 KiB
  metadata write per file lands at random in a 1 GB region (our choice of sizes: the review does not give
  them). Storage time only: a real extraction also waits on the CPU decompressing.

:func:`precondition` is what ``ssdlab validate`` runs for the V300 check (one definition of the method).
Published figures: the review's findings for the V300 (``reference/v300.toml``) are qualitative and compare
two drives (V300A vs V300S); a run prints them beside its figures, and ``ssdlab validate`` checks them.

Examples
--------
>>> precondition_seconds(120 * 10**9)  # 120 GB: 60 minutes
3600.0
>>> import ssdlab
>>> drive = ssdlab.Drive.from_preset("v300s-120gb", capacity_gb=4)
>>> res = run_gamersnexus(drive, precondition_s=1, test_s=0.05, anvil_s=0.05,
...                       copy_bytes=256 << 20, archive_bytes=64 << 20)
>>> res.iometer[0].label, res.copy_s > 0
('4K random read QD1', True)
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
from ssdlab.precondition import purge, trim_all, write_span
from ssdlab.result import Result
from ssdlab.suites import Curve, Headline, Suite, SuiteOptions, register
from ssdlab.suites._common import Progress, number, result_doc, run_seed, scaled, sub
from ssdlab.units import GB, KIB, MIB, PAGE, format_size, parse_time_ns
from ssdlab.workload import Workload

__all__ = [
    "ANVIL_ROWS",
    "BUS_TESTS",
    "COPY_BYTES",
    "IOMETER_QDS",
    "GamersNexusResult",
    "IoRow",
    "copy_jobs",
    "measure_bus_tests",
    "precondition",
    "precondition_seconds",
    "run_gamersnexus",
]

IOMETER_QDS = (1, 4, 32)
IOMETER_SIZES = (4 * KIB, 1 * KIB)
TEST_S = 300.0
#: GamersNexus' "real world" compressibility (SandForce drives compress it).
REAL_WORLD_PCT = 46
ANVIL_FILE = 8 * GB
#: Anvil's standard rows: (name, bs, random, QD).
ANVIL_ROWS = (
    ("Seq 4MB", 4 * MIB, False, 1),
    ("4K", 4 * KIB, True, 1),
    ("4K QD4", 4 * KIB, True, 4),
    ("4K QD16", 4 * KIB, True, 16),
    ("32K", 32 * KIB, True, 1),
    ("512K", 512 * KIB, True, 1),
)
#: The media copy: 10.3 GB, whole 1 MiB IOs.
COPY_BYTES = int(10.3 * GB) // MIB * MIB
COPY_BS, COPY_QD = MIB, 2
ARCHIVE_BYTES = 2 * GB // MIB * MIB
FILE_BYTES = 256 * KIB


def precondition_seconds(capacity_bytes: int) -> float:
    """GamersNexus' preconditioning time: capacity in GB x 0.5 minutes, in seconds."""
    return capacity_bytes / GB * 0.5 * 60


def precondition(
    drive: Drive, seconds: float | None = None, seed: int = 1, progress: Progress | None = None
) -> float:
    """Secure-erase ``drive`` and write 4 KiB at random over all of it at QD32 for ``seconds`` (default
    :func:`precondition_seconds`); returns the seconds written."""
    s = precondition_seconds(drive.capacity_bytes) if seconds is None else float(seconds)
    if not s > 0:
        raise workload_error("precondition_s", "must be above 0", seconds)
    purge(drive)
    w = Workload(
        rw="randwrite",
        bs=PAGE,
        iodepth=32,
        runtime=f"{s}s",
        time_based=True,
        seed=run_seed(seed, "gn precondition"),
    )
    drive.run(w, scaled(progress, 0.0, 1.0, "precondition"))
    return s


#: The V300A-against-V300S tests (incompressible data, MB/s): what ``ssdlab validate``'s V300 check
#: (``reference/v300.toml`` findings: large sequential and high-QD writes, low-QD 4K reads) and
#: ``scripts/v300_bus.py`` measure on each build after :func:`precondition`.
BUS_TESTS = {
    "128K seq write QD32": Workload(rw="write", bs="128k", iodepth=32, size="4g", runtime="10s"),
    "4K random write QD32": Workload(rw="randwrite", bs="4k", iodepth=32, runtime="10s", time_based=True),
    "4K random read QD1": Workload(rw="randread", bs="4k", iodepth=1, runtime="2s", time_based=True),
    "4K random read QD32": Workload(rw="randread", bs="4k", iodepth=32, runtime="2s", time_based=True),
    "128K seq read QD32": Workload(
        rw="read", bs="128k", iodepth=32, size="4g", runtime="2s", time_based=True
    ),
}


def measure_bus_tests(drive: Drive, names: Sequence[str] | None = None) -> dict[str, float]:
    """MB/s of each of :data:`BUS_TESTS` (or of ``names``), each on its own clone of ``drive``'s state."""
    return {name: drive.clone().run(BUS_TESTS[name]).bandwidth_mbps for name in names or BUS_TESTS}


@dataclass(frozen=True)
class IoRow:
    """One IOMETER or Anvil test."""

    label: str
    bs: int
    rw: str
    qd: int
    iops: float
    mbps: float
    mean_latency_us: float

    def to_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


@dataclass
class GamersNexusResult:
    preset: str
    seed: int
    precondition_s: float
    test_s: float
    anvil_s: float
    iometer: list[IoRow]
    anvil: list[IoRow]
    copy_bytes: int
    copy_s: float
    archive_bytes: int
    extracted_bytes: int
    extract_s: float
    config_toml: str
    capacity_bytes: int
    #: Host bytes the timed tests moved: ``copy_read``, ``copy_write``, ``extract_read``, ``extract_write``.
    host_bytes: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def row(self, label: str) -> IoRow:
        return next(r for r in self.iometer + self.anvil if r.label == label)

    @property
    def scaled_down(self) -> bool:
        """Shorter preconditioning or tests than the method's, or a smaller copy."""
        return (
            self.test_s < TEST_S
            or self.copy_bytes < COPY_BYTES
            or self.precondition_s < precondition_seconds(self.capacity_bytes)
        )

    def to_dict(self) -> dict[str, object]:
        return result_doc(
            "gamersnexus",
            self,
            precondition_s=self.precondition_s,
            test_s=self.test_s,
            anvil_s=self.anvil_s,
            capacity_bytes=self.capacity_bytes,
            scaled_down=self.scaled_down,
            iometer=[r.to_dict() for r in self.iometer],
            anvil=[r.to_dict() for r in self.anvil],
            copy_bytes=self.copy_bytes,
            copy_s=self.copy_s,
            copy_mbps=self.copy_bytes / 1e6 / self.copy_s if self.copy_s else 0.0,
            archive_bytes=self.archive_bytes,
            extracted_bytes=self.extracted_bytes,
            extract_s=self.extract_s,
            host_bytes=self.host_bytes,
            notes=self.notes,
        )

    def tables(self) -> list[Table]:
        scaled = "SCALED DOWN - " if self.scaled_down else ""
        head = (
            f"{self.preset} ({self.capacity_bytes / GB:g} GB) - {scaled}precondition "
            f"{self.precondition_s / 60:g} min (method: "
            f"{precondition_seconds(self.capacity_bytes) / 60:g}) - seed {self.seed} - "
            f"ssdlab {ssdlab_version()}"
        )
        t = Table(title=f"GamersNexus IOMETER, {self.test_s:g} s per test (method: 300) - {head}")
        for col in ("test", "IOPS", "MB/s", "mean lat us"):
            t.add_column(col, justify="left" if col == "test" else "right")
        for r in self.iometer:
            t.add_row(r.label, f"{r.iops:,.0f}", f"{r.mbps:,.1f}", f"{r.mean_latency_us:,.1f}")
        a = Table(title=f"Anvil at {REAL_WORLD_PCT}% compressible, 8 GB file, {self.anvil_s:g} s per test")
        for col in ("test", "read MB/s", "read IOPS", "write MB/s", "write IOPS"):
            a.add_column(col, justify="left" if col == "test" else "right")
        for name, *_ in ANVIL_ROWS:
            r, w = self.row(f"Anvil {name} read"), self.row(f"Anvil {name} write")
            a.add_row(name, f"{r.mbps:,.1f}", f"{r.iops:,.0f}", f"{w.mbps:,.1f}", f"{w.iops:,.0f}")
        c = Table(title="Timed on the same drive")
        for col in ("test", "data", "seconds", "MB/s"):
            c.add_column(col, justify="left" if col in ("test", "data") else "right")
        c.add_row(
            "media copy (read + write)",
            f"{self.copy_bytes / GB:.1f} GB incompressible",
            f"{self.copy_s:.1f}",
            f"{self.copy_bytes / 1e6 / self.copy_s:,.0f}",
        )
        c.add_row(
            "archive extraction",
            f"{self.archive_bytes / GB:.1f} GB archive -> {self.extracted_bytes / GB:.1f} GB of "
            f"{format_size(FILE_BYTES)} files",
            f"{self.extract_s:.1f}",
            f"{self.extracted_bytes / 1e6 / self.extract_s:,.0f}",
        )
        fig = _findings(self.preset)
        c.caption = (
            f"published ({fig['source']}, qualitative, V300A vs V300S): {fig['findings']}"
            if fig
            else f"no published GamersNexus figures for {self.preset}"
        )
        return [t, a, c]


def _findings(preset: str) -> dict[str, Any] | None:
    if not preset.startswith("v300"):
        return None
    return dict(reference.load("v300")["v300"])


def _row(label: str, bs: int, rw: str, qd: int, res: Result) -> IoRow:
    return IoRow(label, bs, rw, qd, res.iops, res.iops * bs / 1e6, res.latency.mean_us)


def copy_jobs(src: int, dst: int, n: int, seed: int) -> list[Workload]:
    """A copy pipeline: ``n`` bytes read from ``src`` and written to ``dst`` at once, 1 MiB at QD2 each."""
    return [
        Workload(rw="read", bs=COPY_BS, iodepth=COPY_QD, offset=src, size=n, seed=run_seed(seed, "copy r")),
        Workload(rw="write", bs=COPY_BS, iodepth=COPY_QD, offset=dst, size=n, seed=run_seed(seed, "copy w")),
    ]


def run_gamersnexus(
    drive: Drive,
    precondition_s: float | None = None,
    test_s: float = TEST_S,
    anvil_s: float = 5.0,
    copy_bytes: int = COPY_BYTES,
    archive_bytes: int = ARCHIVE_BYTES,
    seed: int = 1,
    progress: Progress | None = None,
) -> GamersNexusResult:
    """Run GamersNexus' bench on ``drive`` (changed: erased, preconditioned and written over).

    ``precondition_s`` defaults to the method's (:func:`precondition_seconds`); ``test_s`` is each IOMETER
    test's length (5 minutes), ``anvil_s`` each Anvil test's; ``copy_bytes`` the media file (10.3 GB) and
    ``archive_bytes`` the archive (2 GB; it extracts to twice its size).
    """
    cap = drive.capacity_bytes
    copy_n = copy_bytes // MIB * MIB
    arch_n = archive_bytes // MIB * MIB
    extracted = 2 * arch_n // FILE_BYTES * FILE_BYTES
    if copy_n <= 0 or arch_n <= 0:
        raise workload_error("copy_bytes", "the copy and the archive must be at least 1 MiB", copy_bytes)
    need = max(2 * copy_n, arch_n + extracted + PAGE)
    if need > cap:
        raise workload_error(
            "drive",
            f"too small: the {copy_n / GB:.1f} GB copy (source and copy) and the "
            f"{arch_n / GB:.1f} GB archive (with what it extracts to) need at least {need / GB:.1f} GB",
            f"{drive.name}, {cap / GB:.1f} GB",
        )
    for name, v in (("test_s", test_s), ("anvil_s", anvil_s)):
        if not v > 0:
            raise workload_error(name, "must be above 0", v)
    pre = precondition(drive, precondition_s, seed, sub(progress, 0.0, 0.3))
    span = cap // PAGE * PAGE

    iometer = []
    plan = [(bs, rw, qd) for bs in IOMETER_SIZES for rw in ("randread", "randwrite") for qd in IOMETER_QDS]
    for i, (bs, rw, qd) in enumerate(plan):
        label = f"{bs // KIB}K random {rw[4:]} QD{qd}"
        if progress is not None:
            progress(0.3 + 0.4 * i / len(plan), f"IOMETER {label}")
        w = Workload(
            rw=rw,
            bs=bs,
            iodepth=qd,
            size=span,
            runtime=f"{test_s}s",
            time_based=True,
            seed=run_seed(seed, "iometer", label),
        )
        iometer.append(_row(label, bs, rw, qd, drive.run(w)))

    # The file-based tests need a file system: Windows 7 formats the volume (or deletes IOMETER's test file),
    # and either TRIMs the space the preconditioning and IOMETER wrote. Without it the copies below would
    # run on a drive full of random data and garbage-collect it all over again.
    trim_all(drive)

    # Anvil: its test file written first (46% compressible), then read rows, then write rows.
    anvil_file = min(ANVIL_FILE, cap // 2) // MIB * MIB
    write_span(drive, 0, anvil_file, bs=MIB, iodepth=4, seed=run_seed(seed, "anvil file"))
    anvil: list[IoRow] = []
    for direction in ("read", "write"):
        for name, bs, random, qd in ANVIL_ROWS:
            if progress is not None:
                progress(0.7 + 0.1 * len(anvil) / (2 * len(ANVIL_ROWS)), f"Anvil {name} {direction}")
            rw = ("rand" if random else "") + direction
            w = Workload(
                rw=rw,
                bs=bs,
                iodepth=qd,
                size=anvil_file,
                runtime=f"{anvil_s}s",
                time_based=True,
                buffer_compress_percentage=REAL_WORLD_PCT,
                seed=run_seed(seed, "anvil", name, direction),
            )
            anvil.append(_row(f"Anvil {name} {direction}", bs, rw, qd, drive.run(w)))

    # Media copy: the source file written (and settled) first, then read and written at once.
    if progress is not None:
        progress(0.8, "media copy")
    src, dst = 0, copy_n
    write_span(drive, src, copy_n, bs=MIB, iodepth=4, seed=run_seed(seed, "media file"))
    drive.idle("10s")
    copied = drive.run(copy_jobs(src, dst, copy_n, seed))

    # Archive extraction: the archive written first, then read while its files are written.
    if progress is not None:
        progress(0.9, "archive extraction")
    a_off = 0
    out_off = a_off + arch_n
    meta_off = out_off + extracted
    meta_len = min(GB, cap - meta_off) // PAGE * PAGE
    write_span(drive, a_off, arch_n, bs=MIB, iodepth=4, seed=run_seed(seed, "archive"))
    drive.idle("10s")
    files = extracted // FILE_BYTES
    jobs = [
        Workload(rw="read", bs=MIB, iodepth=1, offset=a_off, size=arch_n, seed=run_seed(seed, "arch r")),
        Workload(
            rw="write",
            bs=128 * KIB,
            iodepth=1,
            offset=out_off,
            size=extracted,
            buffer_compress_percentage=REAL_WORLD_PCT,
            seed=run_seed(seed, "arch w"),
        ),
        Workload(
            rw="randwrite",
            bs=PAGE,
            iodepth=1,
            offset=meta_off,
            size=meta_len,
            io_size=files * PAGE,
            buffer_compress_percentage=REAL_WORLD_PCT,
            seed=run_seed(seed, "arch meta"),
        ),
    ]
    extraction = drive.run(jobs)
    if progress is not None:
        progress(1.0, "done")
    notes = []
    if ANVIL_FILE > anvil_file:
        notes.append(f"Anvil's file is {anvil_file / GB:.1f} GB (half the drive), not 8 GB")
    return GamersNexusResult(
        drive.name,
        seed,
        pre,
        test_s,
        anvil_s,
        iometer,
        anvil,
        copy_n,
        copied.elapsed_s,
        arch_n,
        extracted,
        extraction.elapsed_s,
        drive.config_toml(),
        cap,
        {
            "copy_read": int(copied.read.bytes),
            "copy_write": int(copied.write.bytes),
            "extract_read": int(extraction.read.bytes),
            "extract_write": int(extraction.write.bytes),
        },
        notes,
    )


def headline(doc: Mapping[str, Any]) -> list[Headline]:
    """Each IOMETER and Anvil row's IOPS, the media copy's and the extraction's seconds.

    Examples
    --------
    >>> doc = {"iometer": [{"label": "4K random read QD1", "iops": 9000.0}], "anvil": [],
    ...        "copy_s": 40.0, "extract_s": 12.0}
    >>> [(h.name, h.value, h.lower_is_better) for h in headline(doc)]  # doctest: +NORMALIZE_WHITESPACE
    [('4K random read QD1', 9000.0, False), ('media copy', 40.0, True), ('archive extraction', 12.0, True)]
    """
    out = [Headline(r["label"], number(r["iops"]), "IOPS") for r in doc["iometer"] + doc["anvil"]]
    out.append(Headline("media copy", number(doc["copy_s"]), "s", lower_is_better=True))
    out.append(Headline("archive extraction", number(doc["extract_s"]), "s", lower_is_better=True))
    return out


def curves(doc: Mapping[str, Any]) -> list[Curve]:
    """IOMETER's queue-depth scaling: IOPS against QD, one series per block size and direction."""
    out = []
    for bs in ("4K", "1K"):
        for d in ("read", "write"):
            rows = [r for r in doc["iometer"] if r["label"].startswith(f"{bs} random {d}")]
            if rows:
                out.append(
                    Curve(
                        "iometer",
                        "queue depth",
                        "IOPS",
                        [float(r["qd"]) for r in rows],
                        [r["iops"] for r in rows],
                        f"{bs} {d}",
                        scale="log2x",
                    )
                )
    return out


def _suite_run(drive: Drive, o: SuiteOptions, progress: Progress | None) -> GamersNexusResult:
    test_s = TEST_S if o.duration is None else parse_time_ns(o.duration, "duration") / 1e9
    return run_gamersnexus(drive, test_s=test_s, seed=o.seed, progress=progress)


for _name in ("gamersnexus", "iometer"):
    register(
        Suite(
            name=_name,
            help="GamersNexus' bench: secure erase, 4K QD32 precondition (GB x 0.5 min), IOMETER 4K/1K "
            "random QD1/4/32, Anvil at 46% compressible, timed 10.3 GB media copy and archive extraction "
            "(--duration: each IOMETER test, 5min; scale the drive to shorten the precondition)",
            run=_suite_run,
            options=frozenset({"duration"}),
            headline=headline,
            curves=curves,
        )
    )
