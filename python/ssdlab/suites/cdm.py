"""CrystalDiskMark 6, 7 and 8 on a simulated drive.

What CrystalDiskMark does, read from its source (hiyohiyo/CrystalDiskMark, ``DiskBench.cpp`` for the
procedure, ``DiskMarkDlg.cpp`` for the default rows of each version) and ../shared/BENCHMARKS.md:

- ``Init``: the test file is written in full first, with synchronous (so queue depth 1) unbuffered 1 MiB
  ``WriteFile`` calls from offset 0, filled with random bytes (zeros in "All 0x00" mode). Here: one sequential
  1 MiB write job at QD1 over ``[0, test_size)``.
- ``ExecDiskBenchAll``: all read tests, then all write tests, with ``Interval`` (default 5 s of sleep) between
  consecutive tests but not before the first or after the last. Here: :meth:`ssdlab.Drive.idle`.
- ``DiskSpd``: per test, run ``j = 0`` is a warm-up of 5 s whose score is discarded, then ``DiskTestCount``
  (default 5) measured runs of ``m_MeasureTime`` (default 5 s), each a DiskSpd process
  ``-b<bs> -o<Q> -t<T> -W0 -S -w0|-w100 [-r] -d<s>`` on the test file. DiskSpd keeps the queues full for the
  whole duration, wrapping around the file; here a run is ``time_based`` over the file span, with
  ``numjobs = T`` and ``iodepth = Q``. The score kept is the **best** throughput over the measured runs; the
  latency kept (7.x/8.x) is the **lowest** per-run mean latency among runs that moved data.
- Units: MB/s decimal; IOPS = MB/s x 10^6 / block size; latency in microseconds.

Every run (the warm-up and each of the measured runs of every test) draws its own random stream: its seed is
derived from the suite's root seed and the run's place in the suite (test, direction, run index;
:func:`ssdlab.suites._common.run_seed`), so "best of 5" is the best of five different runs and a suite is a
pure function of (drive state, options, seed). Runs with no randomness to draw (sequential, or random at QD1
with every map page cached) still give five equal figures: the model has no run-to-run noise besides it.

Examples
--------
>>> import ssdlab
>>> from ssdlab.suites import run_cdm
>>> drive = ssdlab.Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
>>> res = run_cdm(drive, version="8", test_size="64m", runs=1, duration="20ms", interval="10ms")
>>> [row.label for row in res.rows][:2]
['SEQ1M Q8T1 read', 'SEQ1M Q1T1 read']
>>> row = res.rows[0]
>>> round(row.iops, 6) == round(row.mbps * 1e6 / (1 << 20), 6)
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table

from ssdlab import reference
from ssdlab._core import version as ssdlab_version
from ssdlab.counters import Counters, has_value
from ssdlab.counters import delta as counter_delta
from ssdlab.drive import Drive
from ssdlab.errors import workload_error
from ssdlab.suites import Headline, Suite, SuiteOptions, register
from ssdlab.suites._common import Progress, number, result_doc, run_seed, scaled
from ssdlab.suites._reference import Beside, published_table
from ssdlab.units import KIB, MIB, format_size, parse_size, parse_time_ns
from ssdlab.workload import Workload

__all__ = ["CDM_VERSIONS", "REFERENCE_ROWS", "CdmResult", "CdmRow", "CdmTest", "reference_value", "run_cdm"]


@dataclass(frozen=True)
class CdmTest:
    """One row of CrystalDiskMark's grid (run once for reads and once for writes)."""

    name: str
    random: bool
    bs: int
    queues: int
    threads: int


def _seq(name: str, bs: int, q: int, t: int) -> CdmTest:
    return CdmTest(name, False, bs, q, t)


def _rnd(name: str, bs: int, q: int, t: int) -> CdmTest:
    return CdmTest(name, True, bs, q, t)


#: The default rows of each version (DiskMarkDlg.cpp; BENCHMARKS.md). ``8-nvme`` is 8.x's "NVMe SSD" profile.
CDM_VERSIONS: dict[str, tuple[CdmTest, ...]] = {
    "6": (
        _seq("Seq Q32T1", 128 * KIB, 32, 1),
        _rnd("4KiB Q8T8", 4 * KIB, 8, 8),
        _rnd("4KiB Q32T1", 4 * KIB, 32, 1),
        _rnd("4KiB Q1T1", 4 * KIB, 1, 1),
    ),
    "7": (
        _seq("SEQ1M Q8T1", MIB, 8, 1),
        _seq("SEQ1M Q1T1", MIB, 1, 1),
        _rnd("RND4K Q32T16", 4 * KIB, 32, 16),
        _rnd("RND4K Q1T1", 4 * KIB, 1, 1),
    ),
    "8": (
        _seq("SEQ1M Q8T1", MIB, 8, 1),
        _seq("SEQ1M Q1T1", MIB, 1, 1),
        _rnd("RND4K Q32T1", 4 * KIB, 32, 1),
        _rnd("RND4K Q1T1", 4 * KIB, 1, 1),
    ),
    "8-nvme": (
        _seq("SEQ1M Q8T1", MIB, 8, 1),
        _seq("SEQ128K Q32T1", 128 * KIB, 32, 1),
        _rnd("RND4K Q32T16", 4 * KIB, 32, 16),
        _rnd("RND4K Q1T1", 4 * KIB, 1, 1),
    ),
}

# The profiles of 7.x and 8.x (BENCHMARKS.md; KDiskMark's "Peak Performance" and "Real World Performance"
# run the same rows): Peak = the high-QD rows, Real World = the QD1 rows.
CDM_VERSIONS["7-peak"] = (CDM_VERSIONS["7"][0], CDM_VERSIONS["7"][2])
CDM_VERSIONS["7-realworld"] = (CDM_VERSIONS["7"][1], CDM_VERSIONS["7"][3])
CDM_VERSIONS["8-peak"] = (CDM_VERSIONS["8"][0], CDM_VERSIONS["8"][2])
CDM_VERSIONS["8-realworld"] = (CDM_VERSIONS["8"][1], CDM_VERSIONS["8"][3])

#: Default test file size per version: 6.x offered "1000 MiB" by default, 7.x and 8.x 1 GiB.
DEFAULT_TEST_SIZE = {v: 1000 * MIB if v == "6" else 1 << 30 for v in CDM_VERSIONS}

#: ``test_data`` names: CrystalDiskMark's default (random bytes) and its "All 0x00" mode.
TEST_DATA = {"random": 0, "zeros": 100, "0x00": 100}


@dataclass
class CdmRow:
    """One test in one direction: every measured run, and what CrystalDiskMark reports from them."""

    test: CdmTest
    direction: str
    runs_mbps: list[float] = field(default_factory=list)
    runs_mean_latency_us: list[float] = field(default_factory=list)
    #: Change in the drive's counters over the test (warm-up included); ``waf`` and ``die_utilisation_mean``
    #: are the test's own.
    counters: Counters = field(default_factory=Counters)

    @property
    def label(self) -> str:
        return f"{self.test.name} {self.direction}"

    @property
    def mbps(self) -> float:
        """Best throughput over the measured runs, decimal MB/s."""
        return max(self.runs_mbps, default=0.0)

    @property
    def iops(self) -> float:
        """As CrystalDiskMark prints it: MB/s x 10^6 / block size."""
        return self.mbps * 1e6 / self.test.bs

    @property
    def latency_us(self) -> float:
        """Lowest per-run mean latency among the runs that moved data."""
        moved = [lat for mbps, lat in zip(self.runs_mbps, self.runs_mean_latency_us, strict=True) if mbps > 0]
        return min(moved, default=0.0)

    def to_dict(self) -> dict[str, object]:
        return {
            "test": self.test.name,
            "direction": self.direction,
            "rw": _rw(self.test, self.direction),
            "bs": self.test.bs,
            "iodepth": self.test.queues,
            "numjobs": self.test.threads,
            "mbps": self.mbps,
            "iops": self.iops,
            "latency_us": self.latency_us,
            "runs_mbps": self.runs_mbps,
            "runs_mean_latency_us": self.runs_mean_latency_us,
            "counters": self.counters,
        }


@dataclass
class CdmResult:
    """A CrystalDiskMark grid: reads then writes, one :class:`CdmRow` each."""

    version: str
    preset: str
    seed: int
    test_size: int
    runs: int
    duration_s: float
    interval_s: float
    test_data: str
    rows: list[CdmRow]
    #: Change in the drive's counters while the test file was written.
    prepare_counters: Counters
    config_toml: str

    def row(self, test: str, direction: str) -> CdmRow:
        """The row of ``test`` (e.g. ``"RND4K Q32T1"``) in ``direction`` (``"read"`` or ``"write"``)."""
        for r in self.rows:
            if r.test.name == test and r.direction == direction:
                return r
        raise KeyError(f"{test} {direction}")

    def to_dict(self) -> dict[str, object]:
        """JSON-ready, with the preset, seed, ssdlab version and the drive's full config."""
        return result_doc(
            f"cdm{self.version}",
            self,
            test_size=self.test_size,
            runs=self.runs,
            duration_s=self.duration_s,
            interval_s=self.interval_s,
            test_data=self.test_data,
            rows=[r.to_dict() for r in self.rows],
            prepare_counters=self.prepare_counters,
        )

    def table(self) -> Table:
        """The grid as CrystalDiskMark lays it out: one line per test, read and write side by side."""
        data = "" if self.test_data == "random" else " (All 0x00)"
        title = (
            f"CrystalDiskMark {self.version}{data} - {self.preset} - {format_size(self.test_size)} test file,"
            " "
            f"{self.runs} x {self.duration_s:g} s - seed {self.seed} - ssdlab {ssdlab_version()}"
        )
        t = Table(title=title)
        t.add_column("test", no_wrap=True)
        for direction in ("Read", "Write"):
            t.add_column(f"{direction} MB/s", justify="right")
            t.add_column("IOPS", justify="right")
            t.add_column("lat us", justify="right")
        for test in dict.fromkeys(r.test for r in self.rows):
            cells = [test.name]
            for direction in ("read", "write"):
                r = self.row(test.name, direction)
                cells += [f"{r.mbps:,.2f}", f"{r.iops:,.0f}", f"{r.latency_us:,.1f}"]
            t.add_row(*cells)
        return t

    def counters_table(self) -> Table:
        """What a review cannot show: the drive's internal counters over each test."""
        t = Table(title="Drive internals per test (warm-up included; NAND pages = pages programmed)")
        t.add_column("test", no_wrap=True)
        for name, _, _ in _INTERNALS:
            t.add_column(name, justify="right")
        for r in [_prepare_row(self.prepare_counters), *self.rows]:
            # "-" for what a real target cannot observe (NaN) and for a ratio of nothing (a read test's WAF)
            t.add_row(
                r.label,
                *(
                    fmt(v) if number(v := r.counters[key]) is not None and has_value(r.counters, key) else "-"
                    for _, key, fmt in _INTERNALS
                ),
            )
        return t

    def published(self) -> list[Beside]:
        """The preset's published CrystalDiskMark figures (``[cdm]`` of its reference file, measured with
        CDM 6 on random data) beside this run's, when this run is CDM 6 on random data; empty otherwise."""
        fig = (reference.figures(self.preset) or {}).get("cdm")
        if fig is None or self.version != "6" or self.test_data != "random":
            return []
        return [Beside(f"cdm.{k}", fig[k], *reference_value(self, k)) for k in REFERENCE_ROWS if k in fig]

    def spec(self) -> list[Beside]:
        """The preset's spec sheet ("up to" figures, method unpublished: ``[spec]``) beside the run's best
        sequential row (MB/s) and best 4 KiB row (kIOPS) with >= 8 IOs in flight in each direction; empty
        for a run with no such row (the Real World profile's QD1 rows are not what a spec sheet quotes).

        Examples
        --------
        >>> import ssdlab
        >>> d = ssdlab.Drive.from_preset("bg4-1tb", capacity_gb=8)
        >>> res = run_cdm(d, version="8-realworld", test_size="16m", runs=1, duration="5ms", warmup=0,
        ...               interval=0)
        >>> res.spec()
        []
        """
        fig = (reference.figures(self.preset) or {}).get("spec") or {}
        out = []
        for d in ("read", "write"):
            deep = [r for r in self.rows if r.direction == d and r.test.queues * r.test.threads >= 8]
            seq = [r.mbps for r in deep if not r.test.random]
            rnd = [r.iops / 1e3 for r in deep if r.test.random]
            if seq and f"seq_{d}_MBps" in fig:
                out.append(Beside(f"spec.seq_{d}_MBps", fig[f"seq_{d}_MBps"], max(seq), "MB/s"))
            if rnd and f"rand_{d}_kIOPS" in fig:
                out.append(Beside(f"spec.rand_{d}_kIOPS", fig[f"rand_{d}_kIOPS"], max(rnd), "kIOPS"))
        return out

    def tables(self) -> list[Table]:
        """What ``ssdlab run --suite cdm`` prints: the results, the published CrystalDiskMark figures beside
        them when the preset has some for this version (else its spec sheet's, whose method is unknown),
        then the drive internals behind them."""
        out = [self.table()]
        pub = self.published()
        if pub:
            fig = (reference.figures(self.preset) or {})["cdm"]
            out.append(
                published_table(
                    f"Against the published CrystalDiskMark figures of {self.preset}",
                    pub,
                    caption=f"published: {fig['method']} ({reference.source_title(fig['source'])[:60]}...);"
                    f" this run: {format_size(self.test_size)}, best of {self.runs} x {self.duration_s:g} s",
                )
            )
        spec = self.spec()
        if spec and not pub:
            out.append(
                published_table(
                    f"Against the spec sheet of {self.preset} (vendor 'up to' figures, method unpublished)",
                    spec,
                    caption="model: this run's best sequential and 4 KiB rows with >= 8 IOs in flight"
                    f" ({format_size(self.test_size)} test file)",
                )
            )
        elif not pub:
            out[0].caption = f"No published CrystalDiskMark or spec figures for {self.preset} in this profile"
        # a real target's internals are unobservable (NaN; fio sees only the host's side): a table of dashes
        # says nothing
        observed = any(number(r.counters[key]) is not None for r in self.rows for _, key, _ in _INTERNALS)
        return [*out, self.counters_table()] if observed else out


#: Published ``[cdm]`` keys -> the CDM 6 row, direction and figure they are (CrystalDiskMark 6's "Seq" is
#: 128 KiB Q32T1; the brief's "rand" its 4KiB Q32T1 row).
REFERENCE_ROWS = {
    "seq_read_MBps": ("Seq Q32T1", "read", "MB/s"),
    "seq_write_MBps": ("Seq Q32T1", "write", "MB/s"),
    "rand_read_kIOPS": ("4KiB Q32T1", "read", "kIOPS"),
    "rand_write_kIOPS": ("4KiB Q32T1", "write", "kIOPS"),
}


def reference_value(res: CdmResult, key: str) -> tuple[float, str]:
    """The run's figure for the published ``[cdm]`` key ``key`` and its unit."""
    test, direction, unit = REFERENCE_ROWS[key]
    row = res.row(test, direction)
    return (row.iops / 1e3 if unit == "kIOPS" else row.mbps), unit


def _count(n: float) -> str:
    """A count in at most 6 characters: 950, 12.3k, 1.63M."""
    for div, unit in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(n) >= div:
            return f"{n / div:.3g}{unit}"
    return f"{n:.0f}"


#: The internals table's columns: (header, counter, format).
_INTERNALS: tuple[tuple[str, str, Callable[[float], str]], ...] = (
    ("WAF", "waf", "{:.2f}".format),
    ("NAND pages", "nand_pages_programmed", _count),
    ("GC erases", "gc_blocks_erased", _count),
    ("GC moves", "gc_page_moves", _count),
    ("WB hits", "write_buffer_hits", _count),
    ("die util", "die_utilisation_mean", "{:.1%}".format),
)


def _prepare_row(counters: Counters) -> CdmRow:
    return CdmRow(_seq("test file", MIB, 1, 1), "write", counters=counters)


def _rw(test: CdmTest, direction: str) -> str:
    return ("rand" if test.random else "") + direction


def run_cdm(
    drive: Drive,
    version: str = "8",
    test_size: int | str | None = None,
    runs: int = 5,
    duration: str | int | float = "5s",
    warmup: str | int | float = "5s",
    interval: str | int | float = "5s",
    seed: int = 1,
    test_data: str = "random",
    progress: Progress | None = None,
) -> CdmResult:
    """Run CrystalDiskMark ``version`` (``"6"``, ``"7"``, ``"8"`` or ``"8-nvme"``) on ``drive``.

    The drive is changed (the test file is written on it, then overwritten by the write tests); pass
    ``drive.clone()`` to keep the original.

    Parameters
    ----------
    test_size : int or str, optional
        Test file size, a multiple of 1 MiB (default: 1000 MiB for 6, 1 GiB for 7 and 8).
    runs : int
        Measured runs per test (CrystalDiskMark: 1..9, default 5); each follows one discarded warm-up run.
    duration, warmup, interval : str, int or float
        Simulated length of a measured run, of the warm-up run, and idle time between tests.
    test_data : str
        ``"random"`` (incompressible, the default) or ``"zeros"`` (also ``"0x00"``: CrystalDiskMark's
        "All 0x00", which a compressing controller writes and reads faster).
    progress : callable, optional
        Called with (fraction done, what is running) as the suite goes.
    """
    if version not in CDM_VERSIONS:
        known = ", ".join(CDM_VERSIONS)
        raise workload_error("suite", f"unknown CrystalDiskMark version {version!r}; use {known}", version)
    if isinstance(runs, bool) or not isinstance(runs, int) or not 1 <= runs <= 9:
        raise workload_error("runs", f"must be 1..9 as in CrystalDiskMark (got {runs!r})", runs)
    if test_data not in TEST_DATA:
        raise workload_error("test_data", f"must be random or 0x00 (got {test_data!r})", test_data)
    test_data = "zeros" if TEST_DATA[test_data] else "random"
    size = DEFAULT_TEST_SIZE[version] if test_size is None else parse_size(test_size, "test_size")
    if size <= 0 or size % MIB:
        raise workload_error(
            "test_size", f"must be a whole number of MiB, e.g. 1g or 1000m (got {size} bytes)", size
        )
    if size > drive.capacity_bytes:
        raise workload_error(
            "test_size",
            f"{format_size(size)} does not fit the drive ({format_size(drive.capacity_bytes)}): give a "
            "smaller test size",
            format_size(size) if test_size is None else test_size,
        )
    duration_ns = parse_time_ns(duration, "duration")
    warmup_ns = parse_time_ns(warmup, "warmup")
    interval_ns = parse_time_ns(interval, "interval")
    if duration_ns <= 0:
        raise workload_error("duration", "must be above 0", duration)
    compress = TEST_DATA[test_data]
    tests = CDM_VERSIONS[version]

    # Progress in units of simulated time: the test file counts as one run.
    plan = [(t, d) for d in ("read", "write") for t in tests]
    total = (1 + len(plan) * (1 + runs)) * 1.0
    done = 0.0

    def step(label: str) -> Callable[[float], None] | None:
        # One native progress callback per run, mapped onto the whole suite.
        report = scaled(progress, done / total, (done + 1) / total, label)
        if report is not None:
            report(0.0)
        return report

    before = drive.counters()
    # Write the test file: 1 MiB unbuffered synchronous writes = QD1 (DiskBench.cpp Init).
    fill = Workload(
        rw="write",
        bs=MIB,
        iodepth=1,
        size=size,
        buffer_compress_percentage=compress,
        seed=run_seed(seed, "test file"),
    )
    drive.run(fill, step("writing test file"))
    done += 1
    prepare = counter_delta(before, drive.counters())

    rows: list[CdmRow] = []
    for i, (test, direction) in enumerate(plan):
        if i:
            drive.idle(f"{interval_ns}ns")
        row = CdmRow(test, direction)
        before = drive.counters()
        for j in range(runs + 1):
            if j == 0 and warmup_ns == 0:
                continue
            what = f"{test.name} {direction} " + ("warm-up" if j == 0 else f"{j}/{runs}")
            w = Workload(
                rw=_rw(test, direction),
                bs=test.bs,
                iodepth=test.queues,
                numjobs=test.threads,
                size=size,
                runtime=f"{warmup_ns if j == 0 else duration_ns}ns",
                time_based=True,
                buffer_compress_percentage=compress,
                seed=run_seed(seed, version, test.name, direction, j),
            )
            res = drive.run(w, step(what))
            done += 1
            if j > 0:
                row.runs_mbps.append(res.bandwidth_mbps)
                row.runs_mean_latency_us.append(res.latency.mean_us)
        row.counters = counter_delta(before, drive.counters())
        rows.append(row)
    if progress is not None:
        progress(1.0, "done")
    return CdmResult(
        version=version,
        preset=drive.name,
        seed=seed,
        test_size=size,
        runs=runs,
        duration_s=duration_ns / 1e9,
        interval_s=interval_ns / 1e9,
        test_data=test_data,
        rows=rows,
        prepare_counters=prepare,
        config_toml=drive.config_toml(),
    )


def headline(doc: Mapping[str, Any]) -> list[Headline]:
    """Each row's MB/s, IOPS and mean latency, as CrystalDiskMark shows them (``ssdlab compare``).

    Examples
    --------
    >>> row = {"test": "RND4K Q1T1", "direction": "read", "mbps": 80.0, "iops": 19531.25, "latency_us": 51.2}
    >>> [(h.name, h.value, h.unit) for h in headline({"rows": [row]})][::2]
    [('RND4K Q1T1 read MB/s', 80.0, 'MB/s'), ('RND4K Q1T1 read latency', 51.2, 'us')]
    """
    out = []
    for r in doc["rows"]:
        label = f"{r['test']} {r['direction']}"
        out += [
            Headline(f"{label} MB/s", number(r["mbps"]), "MB/s"),
            Headline(f"{label} IOPS", number(r["iops"]), "IOPS"),
            Headline(f"{label} latency", number(r["latency_us"]), "us", lower_is_better=True),
        ]
    return out


def _suite_run(version: str) -> Callable[[Drive, SuiteOptions, Progress | None], CdmResult]:
    def run(drive: Drive, o: SuiteOptions, progress: Progress | None) -> CdmResult:
        return run_cdm(
            drive,
            version=version,
            test_size=o.test_size,
            runs=5 if o.runs is None else o.runs,
            duration=o.duration or "5s",
            warmup=o.duration or "5s",  # CrystalDiskMark's warm-up run is as long as a measured run
            interval=o.interval or "5s",
            seed=o.seed,
            test_data=o.test_data or "random",
            progress=progress,
        )

    return run


def _help(name: str, version: str) -> str:
    number_, _, profile = version.partition("-")
    profile = {"nvme": " NVMe SSD profile", "peak": " Peak profile", "realworld": " Real World profile"}.get(
        profile, ""
    )
    return f"CrystalDiskMark {number_}{profile}" + (
        " (the current version)" if name.startswith("cdm-") or name == "cdm" else ""
    )


# ``cdm`` is CrystalDiskMark 8, the current version; ``cdm6`` ... ``cdm8-realworld`` each version's grid or
# profile; ``cdm-peak`` and ``cdm-realworld`` the current version's profiles. ``--test-data 0x00`` writes
# zeros (CrystalDiskMark's "All 0x00").
_NAMES = {
    "cdm": "8",
    "cdm-peak": "8-peak",
    "cdm-realworld": "8-realworld",
    **{f"cdm{v}": v for v in CDM_VERSIONS},
}
for _name, _version in _NAMES.items():
    register(
        Suite(
            name=_name,
            help=_help(_name, _version),
            run=_suite_run(_version),
            options=frozenset({"test_size", "runs", "duration", "interval", "test_data"}),
            headline=headline,
        )
    )
