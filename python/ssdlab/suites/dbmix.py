"""The Starblaze database test (FMS 2017): fio random read/write mixes at fixed rates, with and without
program/erase suspension.

What the test is (../shared/BENCHMARKS.md, "The seeds' own methods"; figures in
:func:`ssdlab.reference.db_test`, ``reference/starblaze.toml [db_test]``): fio random reads and writes mixed
2:1 and 5:4, 1 and 2 threads, each at a fixed rate; average and maximum latency of reads and writes, once
with the controller's program/erase suspension off and once on. The published table gives, per case, the
read and write IOPS the jobs ran at; here each case's jobs run at those rates, split over the threads, as
fio's ``rate_iops=READ,WRITE`` paces them (each direction on its own schedule; a job whose drawn direction
is not due yet issues the other one if that is, and one ahead of both waits for its IOs in flight before it
sleeps), with ``rwmixread`` from the mix (2:1 -> 67 %, 5:4 -> 56 %),
4 KiB blocks. (Until 2026-11-29 a job's one rate capped reads and writes together, which is not what fio
does with one value: it caps each direction.)

Assumptions (the slides do not say): each job keeps up to ``iodepth`` = 8 IOs in flight so a slow read never
holds back the rate; the jobs address the whole drive; the drive is preconditioned - written sequentially in
full, then overwritten at random (128 KiB) by ``random_fraction`` of its capacity, so that garbage
collection (and with it erases) runs during the test, as on a drive in service. Suspension off and on are
two drives built from the same config with ``nand.suspension.enabled`` set false / true (each
preconditioned the same way: preconditioning only writes, so both reach the same state).

Examples
--------
>>> import ssdlab
>>> from ssdlab.suites.dbmix import run_dbmix
>>> drive = ssdlab.Drive.from_preset(
...     "enterprise-tlc", set={"nand.blocks_per_plane": 64, "ftl.user_capacity_gb": 36})
>>> res = run_dbmix(drive, runtime="200ms", cases=["2r1w_1thread"], random_fraction=0.1)
>>> [(r.case, r.suspension) for r in res.rows]
[('2r1w_1thread', False), ('2r1w_1thread', True)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from rich.table import Table

from ssdlab import reference
from ssdlab._core import version as ssdlab_version
from ssdlab.counters import Counters, delta
from ssdlab.drive import Drive
from ssdlab.errors import workload_error
from ssdlab.suites import Headline, Suite, SuiteOptions, register
from ssdlab.suites._common import Progress, number, result_doc, run_seed
from ssdlab.units import parse_time_ns
from ssdlab.workload import Workload

__all__ = ["DB_CASES", "DbCase", "DbmixResult", "DbmixRow", "run_dbmix"]


@dataclass(frozen=True)
class DbCase:
    """One fio job set of the database test."""

    name: str
    rwmixread: int
    threads: int
    #: Reads and writes per second over all threads (the published IOPS columns).
    read_iops: int
    write_iops: int

    @property
    def total_iops(self) -> int:
        return self.read_iops + self.write_iops

    @property
    def rate_iops(self) -> tuple[int, int]:
        """fio ``rate_iops=READ,WRITE`` per job."""
        return round(self.read_iops / self.threads), round(self.write_iops / self.threads)


#: The four cases of ``reference/starblaze.toml [db_test]``: its read and write IOPS columns.
DB_CASES = (
    DbCase("2r1w_1thread", 67, 1, 5803, 3076),
    DbCase("5r4w_1thread", 56, 1, 3782, 3238),
    DbCase("2r1w_2thread", 67, 2, 7177, 3693),
    DbCase("5r4w_2thread", 56, 2, 6514, 5276),
)


@dataclass
class DbmixRow:
    """One case with suspension off or on."""

    case: str
    suspension: bool
    read_iops: float
    write_iops: float
    read_avg_us: float
    read_max_us: float
    write_avg_us: float
    write_max_us: float
    #: Change in the drive's counters over the case (:func:`ssdlab.counters.delta`).
    counters: Counters = field(default_factory=Counters)

    def to_dict(self) -> dict[str, object]:
        return {
            "case": self.case,
            "suspension": self.suspension,
            "read_iops": self.read_iops,
            "write_iops": self.write_iops,
            "read_avg_us": self.read_avg_us,
            "read_max_us": self.read_max_us,
            "write_avg_us": self.write_avg_us,
            "write_max_us": self.write_max_us,
            "counters": self.counters,
        }


@dataclass
class DbmixResult:
    preset: str
    seed: int
    runtime_s: float
    random_fraction: float
    rows: list[DbmixRow]
    config_toml: str
    #: The published table (:func:`ssdlab.reference.db_test`).
    published: reference.DbTest = field(default_factory=reference.db_test)

    def row(self, case: str, suspension: bool) -> DbmixRow:
        for r in self.rows:
            if r.case == case and r.suspension == suspension:
                return r
        raise KeyError(f"{case} suspension={suspension}")

    def to_dict(self) -> dict[str, object]:
        return result_doc(
            "dbmix",
            self,
            runtime_s=self.runtime_s,
            random_fraction=self.random_fraction,
            rows=[r.to_dict() for r in self.rows],
            published=[{"case": c, "read_or_write": d, **v} for (c, d), v in self.published.items()],
        )

    def table(self) -> Table:
        """Per case and direction: our average and maximum latency without and with suspension, beside the
        published figures (avg and max without, max with)."""
        t = Table(
            title=f"Database mix (Starblaze FMS 2017) - {self.preset} - {self.runtime_s:g} s per case - "
            f"seed {self.seed} - ssdlab {ssdlab_version()}",
            caption="pub = the Starblaze study's own drive (preset enterprise-tlc), whatever drive ran here",
        )
        cols = ["case", "", "IOPS", "avg us off", "max us off", "avg us on", "max us on"]
        cols += ["pub IOPS", "pub avg off", "pub max off", "pub max on"]
        for c in cols:
            t.add_column(c, justify="left" if c in ("case", "") else "right", no_wrap=True)
        for case in dict.fromkeys(r.case for r in self.rows):
            off, on = self.row(case, False), self.row(case, True)
            for d in ("read", "write"):
                cells = [
                    case,
                    d,
                    f"{getattr(off, f'{d}_iops'):,.0f}",
                    f"{getattr(off, f'{d}_avg_us'):,.1f}",
                    f"{getattr(off, f'{d}_max_us'):,.0f}",
                    f"{getattr(on, f'{d}_avg_us'):,.1f}",
                    f"{getattr(on, f'{d}_max_us'):,.0f}",
                ]
                p = self.published.get((case, d), {})
                cells += [
                    f"{p.get('IOPS', float('nan')):,.0f}",
                    f"{p.get('avg_lat_us_no_suspend', float('nan')):,.1f}",
                    f"{p.get('max_lat_us_no_suspend', float('nan')):,.0f}",
                    f"{p.get('max_lat_us_suspend', float('nan')):,.0f}",
                ]
                t.add_row(*cells)
        return t

    def counters_table(self) -> Table:
        t = Table(title="Drive internals per case (suspension off / on)")
        cols = (
            ("erases", "nand_blocks_erased"),
            ("prog susp", "nand_program_suspensions"),
            ("erase susp", "nand_erase_suspensions"),
            ("reads waited", "nand_reads_waited_program_erase"),
            ("GC moves", "gc_page_moves"),
        )
        t.add_column("case", no_wrap=True)
        t.add_column("susp")
        for name, _ in cols:
            t.add_column(name, justify="right")
        for r in self.rows:
            t.add_row(r.case, "on" if r.suspension else "off", *(f"{r.counters[k]:,.0f}" for _, k in cols))
        return t

    def tables(self) -> list[Table]:
        return [self.table(), self.counters_table()]


def _precondition(drive: Drive, random_fraction: float, seed: int) -> None:
    cap = drive.capacity_bytes
    drive.run(Workload(rw="write", bs="128k", iodepth=32, seed=run_seed(seed, "dbmix fill")))
    if random_fraction > 0:
        amount = max(128 << 10, int(cap * random_fraction) // (128 << 10) * (128 << 10))
        drive.run(
            Workload(
                rw="randwrite", bs="128k", iodepth=32, io_size=amount, seed=run_seed(seed, "dbmix random")
            )
        )


def run_dbmix(
    drive: Drive,
    runtime: str | int | float = "60s",
    cases: Sequence[str] | None = None,
    random_fraction: float = 0.5,
    iodepth: int = 8,
    seed: int = 1,
    progress: Progress | None = None,
) -> DbmixResult:
    """Run the database mix on ``drive``'s config with suspension off and on.

    ``drive`` itself is left alone: two drives are built from its full config (with
    ``nand.suspension.enabled`` false and true), preconditioned, and each case runs on a clone: the
    two differ in suspension alone.

    Parameters
    ----------
    runtime : str, int or float
        Simulated length of each case. At these rates a full-size drive opens a new block (and so runs
        foreground GC and erases) only every few seconds: runs much under a minute may see no erase.
    cases : sequence of str, optional
        Names from :data:`DB_CASES` (default: all four).
    random_fraction : float
        Random 128 KiB overwrite after the sequential fill, as a share of the capacity (0..=4).
    iodepth : int
        IOs in flight per job at most.
    """
    by_name = {c.name: c for c in DB_CASES}
    names = list(by_name) if cases is None else list(cases)
    for n in names:
        if n not in by_name:
            raise workload_error("cases", f"unknown case {n!r}; use {', '.join(by_name)}", n)
    if isinstance(random_fraction, bool) or not 0 <= random_fraction <= 4:
        raise workload_error("random_fraction", "must be 0..4", random_fraction)
    runtime_ns = parse_time_ns(runtime, "runtime")
    if runtime_ns <= 0:
        raise workload_error("runtime", "must be above 0", runtime)
    text = drive.config_toml()
    total = 2 * (1 + len(names))
    done = 0

    def tick(what: str) -> None:
        if progress is not None:
            progress(done / total, what)

    rows: list[DbmixRow] = []
    for susp in (False, True):
        label = "on" if susp else "off"
        tick(f"preconditioning (suspension {label})")
        base = Drive.from_toml_str(text, set={"nand.suspension.enabled": susp})
        _precondition(base, random_fraction, seed)
        done += 1
        for name in names:
            case = by_name[name]
            tick(f"{name} suspension {label}")
            d = base.clone()
            before = d.counters()
            res = d.run(
                Workload(
                    rw="randrw",
                    bs="4k",
                    rwmixread=case.rwmixread,
                    rate_iops=case.rate_iops[0],
                    rate_iops_write=case.rate_iops[1],
                    numjobs=case.threads,
                    iodepth=iodepth,
                    runtime=f"{runtime_ns}ns",
                    time_based=True,
                    seed=run_seed(seed, "dbmix", name),
                )
            )
            after = d.counters()
            rows.append(
                DbmixRow(
                    case=name,
                    suspension=susp,
                    read_iops=res.read.iops,
                    write_iops=res.write.iops,
                    read_avg_us=res.read.latency.mean_us,
                    read_max_us=res.read.latency.max_us,
                    write_avg_us=res.write.latency.mean_us,
                    write_max_us=res.write.latency.max_us,
                    counters=delta(before, after),
                )
            )
            done += 1
    if progress is not None:
        progress(1.0, "done")
    # Order: case by case, off then on.
    rows.sort(key=lambda r: (names.index(r.case), r.suspension))
    return DbmixResult(
        preset=drive.name,
        seed=seed,
        runtime_s=runtime_ns / 1e9,
        random_fraction=random_fraction,
        rows=rows,
        config_toml=text,
    )


def headline(doc: Mapping[str, Any]) -> list[Headline]:
    """Per case, suspension off and on: IOPS (reads + writes), read mean and maximum, write maximum."""
    out = []
    for r in doc["rows"]:
        label = f"{r['case']} susp. {'on' if r['suspension'] else 'off'}"
        iops = [number(r["read_iops"]), number(r["write_iops"])]
        out += [
            Headline(f"{label} IOPS", None if None in iops else sum(v or 0.0 for v in iops), "IOPS"),
            Headline(f"{label} read avg", number(r["read_avg_us"]), "us", lower_is_better=True),
            Headline(f"{label} read max", number(r["read_max_us"]), "us", lower_is_better=True),
            Headline(f"{label} write max", number(r["write_max_us"]), "us", lower_is_better=True),
        ]
    return out


def _suite_run(drive: Drive, o: SuiteOptions, progress: Progress | None) -> DbmixResult:
    return run_dbmix(drive, runtime=o.duration or "60s", seed=o.seed, progress=progress)


register(
    Suite(
        name="dbmix",
        help="the Starblaze database mix, suspension off and on (--duration = each case's length)",
        run=_suite_run,
        options=frozenset({"duration"}),
        headline=headline,
        simulated_only="runs the mix with program/erase suspension off and on, a setting of the simulated "
        "drive",
    )
)
