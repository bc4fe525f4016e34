"""Running a job file on a simulated drive: one :meth:`ssdlab.Drive.run` per phase, phases in order.

Each clone of a job (``numjobs``) is its own job spec, so it is reported on its own as fio does; a group
with ``group_reporting`` is reported as the run's totals. A job's ``exitall`` stops its reporting group
(fio's default ``exit_what``) or the whole phase; with ``exit_what=all`` the phases after it never start, and
their jobs are reported with nothing done, as fio reports them.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace

from ssdlab.counters import delta as counter_delta
from ssdlab.drive import Drive
from ssdlab.fio.jobfile import FioJob, JobFile, JobFileError
from ssdlab.result import JobResult, Result, Series
from ssdlab.units import parse_size
from ssdlab.workload import Workload

__all__ = ["FioEntry", "FioRun", "run_jobfile"]


@dataclass
class FioEntry:
    """One entry of fio's ``jobs[]``: a job clone, or a whole group under ``group_reporting``."""

    job: FioJob
    #: What it measured (a :class:`ssdlab.result.JobResult`, or the run's :class:`ssdlab.Result`).
    measured: JobResult | Result
    #: How many jobs it stands for (fio's ``jobs=`` in the heading).
    clones: int

    @property
    def bs(self) -> int:
        return parse_size(self.job.workload.bs, "bs")


@dataclass
class FioRun:
    """A job file run: its entries in fio's order, the drive, and the drive's counters over all of it."""

    jobfile: JobFile
    preset: str
    capacity_bytes: int
    entries: list[FioEntry]
    #: One :class:`ssdlab.Result` per phase.
    results: list[Result]
    counters: dict[str, float]
    #: Every job clone with what it measured, in the order they ran.
    clones: list[tuple[FioJob, JobResult]] = field(default_factory=list)
    #: When each clone's phase started (simulated ns, in the order of ``clones``): fio's log times count
    #: from it.
    clone_start_ns: list[int] = field(default_factory=list)
    #: Wall-clock start, seconds since the epoch (fio's ``timestamp``).
    started: float = field(default_factory=time.time)


class _Nothing:
    """The latency of no IO."""

    count = min_ns = max_ns = 0
    mean_ns = stdev_ns = 0.0

    def percentile_ns(self, p: float) -> int:
        return 0


class _NotRun:
    """A job or phase fio never started (an ``exitall`` job with ``exit_what=all`` ended the run before it):
    the engine's result interface with nothing measured."""

    elapsed_ns = read_ios = read_bytes = write_ios = write_bytes = trim_ios = trim_bytes = 0
    max_power_w = 0.0
    steadystate = None
    io_log = None

    def __init__(self, jobs: int = 0) -> None:
        self.jobs = [_NotRun() for _ in range(jobs)]
        self.groups: dict[int, _NotRun] = {}
        self.counters: dict[str, float] = {}
        self.die_utilisation: list[float] = []
        self.series: dict[str, list[float]] = {name: [] for name in Series.__dataclass_fields__}

    def latency(self, which: str = "all") -> _Nothing:
        return _Nothing()


def _check_regions(jobfile: JobFile, capacity: int) -> None:
    """Every job's region on the drive, checked before anything runs (the engine would stop mid-file)."""

    def at(job: FioJob, name: str) -> tuple[str, str]:  # where the job sets ``name``: (file:line, key)
        where, _, key = job.sources.get(name, f"{job.where}: {name}").rpartition(": ")
        return where, key

    for job in jobfile.jobs:
        native = job.workload.to_native()
        offset, size = int(native["offset"]), int(native["size"])
        if offset >= capacity:  # the offset alone is past the end: say so at its line
            raise JobFileError(
                *at(job, "offset"), f"must be below the drive's capacity ({capacity} bytes)", offset
            )
        if offset + size > capacity:
            raise JobFileError(
                *at(job, "size" if "size" in job.sources else "offset"),
                f"offset + size ({offset + size} bytes) must fit the drive ({capacity} bytes)",
                offset + size,
            )


def run_jobfile(drive: Drive, jobfile: JobFile, progress: Callable[[float], None] | None = None) -> FioRun:
    """Run every job of ``jobfile`` on ``drive`` (which keeps the state), phase after phase.

    Examples
    --------
    >>> import ssdlab
    >>> from ssdlab.fio import parse_jobfile_text
    >>> jf = parse_jobfile_text("[global]\\nsize=1g\\nruntime=10ms\\n[w]\\nrw=randwrite\\nnumjobs=2\\n"
    ...                         "[r]\\nstonewall\\nrw=randread\\n")
    >>> run = run_jobfile(ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16}), jf)
    >>> [(e.job.name, e.clones, e.job.groupid) for e in run.entries], len(run.results)
    ([('w', 1, 0), ('w', 1, 0), ('r', 1, 1)], 2)
    """
    _check_regions(jobfile, drive.capacity_bytes)
    started = time.time()
    before = drive.counters()
    phases = jobfile.phases
    entries: list[FioEntry] = []
    results: list[Result] = []
    clones: list[tuple[FioJob, JobResult]] = []
    clone_start_ns: list[int] = []
    cancelled = False  # by an exitall job with exit_what=all in an earlier phase
    for n, jobs in enumerate(phases):
        specs: list[Workload] = []
        owners: list[FioJob] = []
        for job in jobs:
            for _ in range(job.numjobs):
                # A clone is the same spec again: the engine gives job i of a run its own random stream.
                specs.append(replace(job.workload, group=job.groupid))
                owners.append(job)
        step = None if progress is None else (lambda f, n=n: progress((n + f) / len(phases)))
        start_ns = drive.now_ns
        if cancelled:
            res = Result(_NotRun(len(specs)), drive.name, specs)  # type: ignore[arg-type]
        else:
            res = drive.run(specs, step)
            cancelled = any(w.exitall and w.exit_what == "all" for w in specs)
        results.append(res)
        clones.extend(zip(owners, res.jobs, strict=True))
        clone_start_ns.extend([start_ns] * len(owners))
        groups = res.groups  # several reporting groups at once: each group's jobs as one
        for gid in dict.fromkeys(job.groupid for job in jobs):
            members = [(job, jr) for job, jr in zip(owners, res.jobs, strict=True) if job.groupid == gid]
            first = members[0][0]
            if first.group_reporting:
                entries.append(FioEntry(first, groups.get(gid, res), len(members)))
            else:
                entries.extend(FioEntry(job, jr, 1) for job, jr in members)
    # fio lists jobs in the order of the job file, not in the order they ran.
    order = {id(job): i for i, job in enumerate(jobfile.jobs)}
    entries.sort(key=lambda e: order[id(e.job)])
    return FioRun(
        jobfile=jobfile,
        preset=drive.name,
        capacity_bytes=drive.capacity_bytes,
        entries=entries,
        results=results,
        counters=counter_delta(before, drive.counters()),
        clones=clones,
        clone_start_ns=clone_start_ns,
        started=started,
    )
