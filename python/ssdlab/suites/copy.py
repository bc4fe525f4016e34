"""A large file copied to another place on the same drive, timed: the compact M.2 roundup's 30 GB large-file
copy (../shared/BENCHMARKS.md, "Compact M.2 roundup"), and the shape of GamersNexus' media copy without that
bench's preconditioning.

The roundup gives the file size only; the rest is ours, and the same as ``gamersnexus.py``'s media copy:

- The drive starts as it is (a fresh preset is empty). The source file is written at the start of the
  drive, sequentially, 1 MiB at QD4, incompressible.
- The drive then idles until its background work is done (idle folding of the SLC cache, idle GC; checked
  each second, at most 10 minutes): the file was on the drive before the copy started, as on a reviewer's
  test drive.
- The copy: the file read and written to the free space after it at once, 1 MiB IOs at QD2 each way (a copy
  pipeline). The result is the time in seconds; MB/s is the file's size over that time. How much went
  to the SLC cache, was programmed and was moved by GC during the copy is in the result.

``ssdlab run --suite copy [--test-size 30g]``; a drive smaller than twice the file is refused. On a real file
or device (``--target``) the same steps run through fio, and the wait before the copy is 10 s (the host cannot
see a real drive's background work).

Examples
--------
>>> import ssdlab
>>> drive = ssdlab.Drive.from_preset("bg4-128gb", capacity_gb=8)
>>> res = run_copy(drive, size="1g")
>>> res.size_bytes, res.copy_s > 0, res.copy_mbps == res.size_bytes / 1e6 / res.copy_s
(1073741824, True, True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table

from ssdlab.drive import Drive
from ssdlab.errors import workload_error
from ssdlab.precondition import settle, write_span
from ssdlab.suites import Headline, Suite, SuiteOptions, register
from ssdlab.suites._common import Progress, number, result_doc, run_seed
from ssdlab.suites.gamersnexus import COPY_BS, copy_jobs
from ssdlab.units import format_size, parse_size

__all__ = ["DEFAULT_SIZE", "CopyResult", "run_copy"]

#: The roundup's large file: 30 GB (decimal), in whole 1 MiB IOs.
DEFAULT_SIZE = 30 * 10**9 // COPY_BS * COPY_BS
#: Counters whose change over the copy the result keeps.
COPY_COUNTERS = (
    "host_read_bytes",
    "host_write_bytes",
    "slc_bytes_written",
    "nand_bytes_programmed",
    "gc_page_moves",
)


@dataclass
class CopyResult:
    """One timed copy: the source write, the wait after it and the copy itself."""

    preset: str
    seed: int
    config_toml: str
    size_bytes: int
    #: The source file's write speed (decimal MB/s).
    source_mbps: float
    #: Idle time before the copy while the drive finished its background work, s.
    settle_s: float
    copy_s: float
    #: The change of each counter of :data:`COPY_COUNTERS` over the copy (NaN: a real target cannot see it).
    counters: dict[str, float] = field(default_factory=dict)

    @property
    def copy_mbps(self) -> float:
        return self.size_bytes / 1e6 / self.copy_s

    def to_dict(self) -> dict[str, object]:
        return result_doc(
            "copy",
            self,
            size_bytes=self.size_bytes,
            source_mbps=self.source_mbps,
            settle_s=self.settle_s,
            copy_s=self.copy_s,
            copy_mbps=self.copy_mbps,
            counters=self.counters,
        )

    def tables(self) -> list[Table]:
        t = Table(title=f"{self.preset}: {self.size_bytes / 1e9:.3g} GB file copied on the same drive")
        for col in ("step", "time s", "MB/s"):
            t.add_column(col, justify="left" if col == "step" else "right")
        t.add_row(
            "source file written (1 MiB, QD4)",
            f"{self.size_bytes / 1e6 / self.source_mbps:.1f}",
            f"{self.source_mbps:,.0f}",
        )
        t.add_row("idle until background work done", f"{self.settle_s:.0f}", "")
        t.add_row("copy (read + write, 1 MiB, QD2 each)", f"{self.copy_s:.1f}", f"{self.copy_mbps:,.0f}")
        c = Table(title="drive internals over the copy")
        c.add_column("counter")
        c.add_column("change", justify="right")
        for k, v in self.counters.items():
            shown = "-" if v != v else f"{v / 1e9:,.2f} GB" if "bytes" in k else f"{v:,.0f}"
            c.add_row(k, shown)
        return [t, c]


def run_copy(
    drive: Drive, size: str | int = DEFAULT_SIZE, seed: int = 1, progress: Progress | None = None
) -> CopyResult:
    """Write a ``size`` file on ``drive`` (changed), let the drive settle, then copy the file and time it."""
    n = parse_size(size, "test_size") // COPY_BS * COPY_BS
    if n <= 0:
        raise workload_error("test_size", f"the file must be at least {format_size(COPY_BS)}", size)
    if 2 * n > drive.capacity_bytes:
        raise workload_error(
            "test_size",
            f"copying a {n / 1e9:.1f} GB file needs {2 * n / 1e9:.1f} GB; the drive holds "
            f"{drive.capacity_bytes / 1e9:.1f} GB",
            size if isinstance(size, str) else f"{size / 1e9:.1f} GB",
        )
    if progress is not None:
        progress(0.0, "source file")
    t0 = drive.now_s
    write_span(drive, 0, n, bs=COPY_BS, iodepth=4, seed=run_seed(seed, "copy source"))
    source_mbps = n / 1e6 / (drive.now_s - t0)
    if progress is not None:
        progress(0.4, "settling")
    settled = settle(drive)
    if progress is not None:
        progress(0.5, "copy")
    before = drive.counters()
    res = drive.run(copy_jobs(0, n, n, seed))
    after = drive.counters()
    if progress is not None:
        progress(1.0, "done")
    return CopyResult(
        preset=drive.name,
        seed=seed,
        config_toml=drive.config_toml(),
        size_bytes=n,
        source_mbps=source_mbps,
        settle_s=float(settled),
        copy_s=res.elapsed_s,
        counters={k: float(after[k] - before[k]) for k in COPY_COUNTERS},
    )


def headline(doc: Mapping[str, Any]) -> list[Headline]:
    """The copy's time and speed."""
    return [
        Headline("copy time", number(doc["copy_s"]), "s", lower_is_better=True),
        Headline("copy", number(doc["copy_mbps"]), "MB/s"),
    ]


def _suite_run(drive: Drive, o: SuiteOptions, progress: Progress | None) -> CopyResult:
    return run_copy(drive, size=o.test_size or DEFAULT_SIZE, seed=o.seed, progress=progress)


register(
    Suite(
        name="copy",
        help="a large file copied on the same drive, timed (the compact M.2 roundup's 30 GB copy; "
        "--test-size sets the file)",
        run=_suite_run,
        options=frozenset({"test_size"}),
        headline=headline,
    )
)
