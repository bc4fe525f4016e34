"""Endurance: how many terabytes the host can write before the NAND wears out (TBW), projected from the wear
a write workload causes once the drive's write amplification is steady.

The method (JESD218's definition of TBW, JESD219A's enterprise workload as the default load):

- The drive is filled first, every user LBA written once sequentially (128 KiB at QD32), as JESD219A asks
  before its workload: a drive with unwritten LBAs would garbage-collect less than one in service.
- The workload then runs in rounds, each writing a quarter of the user capacity. A round's write
  amplification (WAF) is the NAND bytes programmed (host data, SLC-cache folds, GC moves, map and journal
  pages) over the host bytes; its wear rate is the rise of the mean erase count per block
  (``pe_cycles_mean``) per host byte, so SLC-mode cycles count as the erases they are.
- Once two rounds after the first agree on WAF within 2%, the drive is steady; the TBW is the rated cycles
  (``ftl.pe_cycle_limit``) over the wear rate of those two rounds: the host bytes that wear the mean block
  from new to its limit. At most ``max_rounds`` rounds run; a result that never settled says so
  (``steady = False``) and projects from its last two rounds.

JESD219A's enterprise workload: random writes of 512 B to 64 KiB (4 KiB: 67%, 8 KiB: 10%, 16 KiB: 7%,
512 B: 4%, 32 and 64 KiB: 3% each, 1 to 3.5 KiB: 1% each), 50% of them in the first 5% of the LBA range, 30%
in the next 15% and 20% in the rest. Every transfer starts on a 4 KiB boundary (the standard aligns those of
4 KiB and more; aligning the smaller ones too keeps each inside one 4 KiB page). JEDEC's client workload is
a recorded trace that is not public, so a client drive's rating, made with it, is expected to be higher
than this projection.

``ssdlab run --suite endurance -p sn520-128gb`` (33 s; bg4-128gb 90 s); ``--job FILE`` runs the one job of
a fio job file instead (its region, sizes, distribution, queue depth and numjobs; each round sets how much
it writes). ``--scale-capacity-gb`` shortens it and keeps the over-provisioning ratio, but spare space
comes in whole blocks a die, so the write amplification moves with the scale: bg4-128gb amplifies 14.2x in
full, 13.6x at 32 GB, 15.6x at 16 GB and 11x at 4 GB (35 blocks a plane). Quote drive writes from a scaled
run, and keep a few hundred blocks a plane. Simulated drives only: a real drive does not report its erase
counts.

Examples
--------
>>> import ssdlab
>>> drive = ssdlab.Drive.from_preset("bg4-128gb", capacity_gb=4)
>>> res = run_endurance(drive, max_rounds=4)
>>> res.waf > 1.0, res.tbw_tb > 0, len(res.rounds) <= 4
(True, True, True)
>>> round(res.drive_writes, 6) == round(res.tbw_tb * 1e12 / res.capacity_bytes, 6)
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from rich.table import Table

from ssdlab.drive import Drive
from ssdlab.errors import SimulationError, workload_error
from ssdlab.precondition import write_span
from ssdlab.suites import Curve, Headline, Suite, SuiteOptions, register
from ssdlab.suites._common import Progress, number, result_doc, run_seed, scaled
from ssdlab.workload import Workload

__all__ = [
    "JESD219_BSSPLIT",
    "JESD219_DISTRIBUTION",
    "ROUND_COUNTERS",
    "EnduranceResult",
    "Round",
    "jesd219",
    "job_workload",
    "run_endurance",
]

#: JESD219A's enterprise transfer sizes and their shares of the writes (fio's ``bssplit``).
JESD219_BSSPLIT = "512/4:1k/1:1536/1:2k/1:2560/1:3k/1:3584/1:4k/67:8k/10:16k/7:32k/3:64k/3"
#: JESD219A's enterprise access distribution: 50% of writes in the first 5% of the LBAs, 30% in the next
#: 15%, 20% in the last 80% (fio's ``random_distribution``).
JESD219_DISTRIBUTION = "zoned:50/5:30/15:20/80"
#: Each round writes this share of the user capacity.
ROUND_FRACTION = 0.25
#: Two consecutive rounds (after the first) whose WAF differs by at most this share are steady.
STEADY_TOLERANCE = 0.02
#: Rounds at most: four drive writes after the fill.
MAX_ROUNDS = 16
#: Days in the five-year warranty period a DWPD rating is quoted over.
WARRANTY_DAYS = 5 * 365


def jesd219(capacity_bytes: int, io_size: int, seed: int = 1, iodepth: int = 32) -> Workload:
    """JESD219A's enterprise workload over ``capacity_bytes``, writing ``io_size`` bytes.

    Examples
    --------
    >>> w = jesd219(10**9, 10**8)
    >>> w.rw, w.random_distribution, w.blockalign
    ('randwrite', 'zoned:50/5:30/15:20/80', '4k')
    """
    return Workload(
        rw="randwrite",
        bssplit=JESD219_BSSPLIT,
        random_distribution=JESD219_DISTRIBUTION,
        blockalign="4k",
        iodepth=iodepth,
        size=capacity_bytes,
        io_size=io_size,
        seed=seed,
    )


#: Counters whose change over each round a :class:`Round` keeps.
ROUND_COUNTERS = (
    "host_write_bytes",
    "nand_bytes_programmed",
    "pe_cycles_mean",
    "host_pages_written",
    "gc_page_moves",
    "folded_bytes",
    "map_pages_written",
    "map_journal_pages_written",
)


@dataclass(frozen=True)
class Round:
    """One round of the workload: the change of each of :data:`ROUND_COUNTERS` over it, and its speed."""

    counters: dict[str, float]
    mbps: float

    @property
    def host_bytes(self) -> float:
        return self.counters["host_write_bytes"]

    @property
    def waf(self) -> float:
        return self.counters["nand_bytes_programmed"] / self.host_bytes

    @property
    def pe_per_tb(self) -> float:
        """Mean erase cycles per block per host TB (decimal) written."""
        return self.counters["pe_cycles_mean"] / (self.host_bytes / 1e12)


@dataclass
class EnduranceResult:
    """The rounds of one endurance run and the TBW projected from its steady ones."""

    preset: str
    seed: int
    config_toml: str
    capacity_bytes: int
    pe_cycle_limit: int
    workload: str
    rounds: list[Round] = field(default_factory=list)
    #: Whether the last two rounds agreed on WAF (within :data:`STEADY_TOLERANCE`).
    steady: bool = False
    #: The mean erase count per block after the last round (a drive in service starts above 0).
    pe_cycles_end: float = 0.0

    def steady_change(self, counter: str) -> float:
        """The change of ``counter`` over the last two rounds, those the projection uses."""
        return sum(r.counters[counter] for r in self.rounds[-2:])

    @property
    def waf(self) -> float:
        """Write amplification over the last two rounds."""
        return self.steady_change("nand_bytes_programmed") / self.steady_change("host_write_bytes")

    @property
    def tbw_tb(self) -> float:
        """Host TB (decimal) that wear the mean block from new to ``pe_cycle_limit`` at the last two rounds'
        rate."""
        wear = self.steady_change("pe_cycles_mean")
        host = self.steady_change("host_write_bytes")
        return self.pe_cycle_limit * host / wear / 1e12 if wear > 0 else float("inf")

    def waf_parts(self) -> dict[str, float]:
        """Where the NAND writes of the last two rounds went, per host byte: the host's pages (a write of
        less than 4 KiB takes a whole page), GC moves, SLC-cache folds, map pages and journal; ``part-filled
        pages`` is the rest: NAND pages programmed before they were full (a 4 KiB map page alone in a 16 KiB
        NAND page). The parts add up to :attr:`waf`."""
        host = self.steady_change("host_write_bytes")
        page = {k: self.steady_change(k) * 4096 / host for k in ("host_pages_written", "gc_page_moves")}
        parts = {
            "host pages": page["host_pages_written"],
            "GC moves": page["gc_page_moves"],
            "SLC folds": self.steady_change("folded_bytes") / host,
            "map and journal": (
                self.steady_change("map_pages_written") + self.steady_change("map_journal_pages_written")
            )
            * 4096
            / host,
        }
        parts["part-filled pages"] = self.waf - sum(parts.values())
        return parts

    @property
    def tbw_left_tb(self) -> float:
        """Host TB the drive can still take after this run at the same rate: the cycles its mean block has
        left (``pe_cycle_limit`` less ``pe_cycles_end``) over the wear per host byte."""
        left = max(0.0, self.pe_cycle_limit - self.pe_cycles_end)
        return self.tbw_tb * left / self.pe_cycle_limit

    @property
    def drive_writes(self) -> float:
        """The TBW in whole-drive writes."""
        return self.tbw_tb * 1e12 / self.capacity_bytes

    @property
    def dwpd(self) -> float:
        """Drive writes per day over a five-year warranty."""
        return self.drive_writes / WARRANTY_DAYS

    @property
    def days_at_speed(self) -> float:
        """Days of writing without pause at the last two rounds' speed until the TBW is used up."""
        mbps = sum(r.mbps for r in self.rounds[-2:]) / len(self.rounds[-2:])
        return self.tbw_tb * 1e6 / mbps / 86400 if mbps > 0 else float("inf")

    def to_dict(self) -> dict[str, object]:
        return result_doc(
            "endurance",
            self,
            capacity_bytes=self.capacity_bytes,
            pe_cycle_limit=self.pe_cycle_limit,
            workload=self.workload,
            rounds=[{**r.counters, "mbps": r.mbps, "waf": r.waf} for r in self.rounds],
            steady=self.steady,
            waf=self.waf,
            waf_parts=self.waf_parts(),
            tbw_tb=self.tbw_tb,
            pe_cycles_end=self.pe_cycles_end,
            tbw_left_tb=self.tbw_left_tb,
            drive_writes=self.drive_writes,
            dwpd=self.dwpd,
            days_at_speed=self.days_at_speed,
        )

    def tables(self) -> list[Table]:
        t = Table(title=f"{self.preset}: {self.workload}, after a full sequential fill")
        for col in ("round", "host GB", "MB/s", "WAF", "P/E per host TB"):
            t.add_column(col, justify="right")
        for k, r in enumerate(self.rounds, 1):
            t.add_row(
                str(k), f"{r.host_bytes / 1e9:,.1f}", f"{r.mbps:,.0f}", f"{r.waf:.2f}", f"{r.pe_per_tb:,.1f}"
            )
        s = Table(title="endurance projected from the last two rounds")
        s.add_column("figure")
        s.add_column("value", justify="right")
        s.add_row("write amplification", f"{self.waf:.2f}" + ("" if self.steady else " (not steady)"))
        for part, v in self.waf_parts().items():
            s.add_row(f"  of which {part}", f"{v if abs(v) >= 0.005 else 0.0:.2f}")  # no "-0.00"
        s.add_row("rated P/E cycles (ftl.pe_cycle_limit)", f"{self.pe_cycle_limit:,}")
        s.add_row("TBW", f"{self.tbw_tb:,.1f} TB")
        s.add_row("TBW left after this run", f"{self.tbw_left_tb:,.1f} TB")
        s.add_row("drive writes", f"{self.drive_writes:,.0f}")
        s.add_row("DWPD over 5 years", f"{self.dwpd:.3f}")
        s.add_row("days of writing at the steady speed", f"{self.days_at_speed:,.0f}")
        return [t, s]


def run_endurance(
    drive: Drive,
    workload: Workload | None = None,
    seed: int = 1,
    max_rounds: int = MAX_ROUNDS,
    progress: Progress | None = None,
    job_name: str = "",
) -> EnduranceResult:
    """Fill ``drive`` (changed), then run ``workload`` (default: :func:`jesd219`) in rounds of a quarter of
    its capacity until its write amplification is steady, and project the TBW (see the module's text).
    A ``workload`` keeps its region (``offset``, ``size``: the whole drive by default); each round sets
    its ``io_size`` (shared by its ``numjobs``) and ``seed``. It must write."""
    if max_rounds < 2:
        raise workload_error("max_rounds", "at least 2 rounds are needed to see a steady state", max_rounds)
    limit = int(drive.config_value("ftl.pe_cycle_limit"))
    if limit <= 0:
        raise workload_error(
            "ftl.pe_cycle_limit", "the drive has no rated P/E cycles to project a TBW from", limit
        )
    cap = drive.capacity_bytes
    per_round = int(cap * ROUND_FRACTION) // 4096 * 4096
    base = workload or jesd219(cap, per_round)
    if not (base.rw.endswith("write") or base.mixed):
        raise workload_error("rw", "an endurance workload must write", base.rw)
    name = "JESD219A enterprise workload" if workload is None else f"{base.rw} workload"
    if workload is not None and job_name:
        name = f"job {job_name} ({base.rw})"
    res = EnduranceResult(
        preset=drive.name,
        seed=seed,
        config_toml=drive.config_toml(),
        capacity_bytes=cap,
        pe_cycle_limit=limit,
        workload=name,
    )
    fill_share = 1.0 / (1 + max_rounds)
    write_span(
        drive,
        0,
        cap,
        seed=run_seed(seed, "endurance fill"),
        progress=scaled(progress, 0.0, fill_share, "fill"),
    )
    for k in range(max_rounds):
        before = drive.counters()
        share = per_round // base.numjobs // 4096 * 4096
        w = replace(base, io_size=share, seed=run_seed(seed, "endurance", k))
        start = fill_share + (1 - fill_share) * k / max_rounds
        end = fill_share + (1 - fill_share) * (k + 1) / max_rounds
        try:
            run = drive.run(w, progress=scaled(progress, start, end, f"round {k + 1}"))
        except SimulationError as e:
            c = drive.counters()
            raise SimulationError(
                f"the drive gave out in round {k + 1} of the endurance workload, its blocks at "
                f"{c['pe_cycles_mean']:,.0f} P/E on average ({c['grown_bad_blocks']:,.0f} retired at "
                f"ftl.pe_cycle_limit = {limit:,}): {e}"
            ) from None
        after = drive.counters()
        change = {c: float(after[c] - before[c]) for c in ROUND_COUNTERS}
        res.rounds.append(Round(change, run.bandwidth_mbps))
        res.pe_cycles_end = float(after["pe_cycles_mean"])
        if k >= 2:
            a, b = res.rounds[-2].waf, res.rounds[-1].waf
            if abs(a - b) <= STEADY_TOLERANCE * b:
                res.steady = True
                break
    if progress is not None:
        progress(1.0, "done")
    return res


def headline(doc: Mapping[str, Any]) -> list[Headline]:
    """The projected TBW, in TB and in drive writes (about what a scaled run keeps), and the steady WAF."""
    return [
        Headline("TBW", number(doc["tbw_tb"]), "TB"),
        Headline("drive writes", number(doc["drive_writes"]), ""),
        Headline("WAF", number(doc["waf"]), "", lower_is_better=True),
    ]


def curves(doc: Mapping[str, Any]) -> list[Curve]:
    """WAF of each round against the drive writes so far."""
    cap = float(doc["capacity_bytes"])
    x, y, total = [], [], 0.0
    for r in doc["rounds"]:
        total += float(r["host_write_bytes"])
        x.append(total / cap)
        y.append(float(r["waf"]))
    return [Curve("endurance WAF", "drive writes after the fill", "WAF", x, y)]


def job_workload(path: str) -> tuple[str, Workload]:
    """The one job of fio job file ``path``, as ``(name, workload)``; a file with more jobs is refused.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> f = pathlib.Path(tempfile.mkdtemp()) / "w.fio"
    >>> _ = f.write_text("[hot]\\nrw=randwrite\\nbs=16k\\nrandom_distribution=zipf:1.2\\n")
    >>> name, w = job_workload(str(f))
    >>> name, w.rw, w.bs, w.random_distribution
    ('hot', 'randwrite', 16384, 'zipf:1.2')
    """
    from ssdlab.fio.jobfile import load_jobs  # the fio package imports the suites' registry

    jobs = load_jobs([path]).jobs
    if len(jobs) != 1:
        names = ", ".join(j.name for j in jobs)
        raise workload_error("--job", f"needs a job file with one job (it has {len(jobs)}: {names})", path)
    return jobs[0].name, replace(jobs[0].workload, numjobs=jobs[0].numjobs)


def _suite_run(drive: Drive, o: SuiteOptions, progress: Progress | None) -> EnduranceResult:
    if o.job is None:
        return run_endurance(drive, seed=o.seed, progress=progress)
    name, workload = job_workload(o.job)
    return run_endurance(drive, workload, seed=o.seed, progress=progress, job_name=name)


register(
    Suite(
        name="endurance",
        help="TBW projected from the wear of JESD219A's enterprise workload once write amplification is "
        "steady, after a full fill (simulated drives only)",
        run=_suite_run,
        options=frozenset({"job"}),
        headline=headline,
        curves=curves,
        simulated_only="projects wear from every block's erase count, which a real drive does not report",
    )
)
