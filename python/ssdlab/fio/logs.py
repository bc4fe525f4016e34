"""fio's bandwidth, IOPS and latency logs (``write_bw_log``, ``write_iops_log``, ``write_lat_log``).

fio writes ``PREFIX_bw.N.log``, ``PREFIX_iops.N.log`` and ``PREFIX_lat.N.log`` / ``_clat`` / ``_slat`` for
job N (numbered from 1 in job-file order, clones in turn; one ``PREFIX_bw.log`` for all with
``per_job_logs=0``). With ``log_avg_msec`` each line averages one window (here: one interval of the job's
series, ``log_avg_msec`` wide)::

    time (ms, end of the window), value, direction (0 read, 1 write), 0, 0

bandwidth in KiB/s, IOPS per second, latency in ns. Without it fio logs every IO, and so does the twin (the
job keeps an IO log, :attr:`ssdlab.Workload.log_ios`)::

    time (ms since the job started, at completion), value, direction (2 trim), block size, 0

the value being the IO's latency (ns), its bandwidth (bytes x 10^6 / latency in ns, as fio computes it) or
1 (IOPS). With ``log_offset=1`` a line has the IO's offset before the last field (0 in averaged lines).
``clat`` and ``lat`` are the same here (the twin measures from submission to completion); ``slat`` is 0 a
window, and empty per IO (no submission-latency samples, as fio's JSON ``slat_ns`` has none). The same
layout is what ``--target`` reads back from real fio.

Examples
--------
>>> import ssdlab, tempfile, pathlib
>>> from ssdlab.fio import parse_jobfile_text, run_jobfile
>>> from ssdlab.fio.logs import write_logs
>>> jf = parse_jobfile_text("[w]\\nrw=randwrite\\nsize=1g\\nruntime=2\\nrate_iops=500\\n"
...                         "write_iops_log=w\\nlog_avg_msec=1000\\n")
>>> run = run_jobfile(ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 8}), jf)
>>> out = pathlib.Path(tempfile.mkdtemp())
>>> [p.name for p in write_logs(run, out)]
['w_iops.1.log']
>>> (out / "w_iops.1.log").read_text().splitlines()[0]
'1000, 500, 1, 0, 0'
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ssdlab.fio.jobfile import FioJob
from ssdlab.fio.runner import FioRun
from ssdlab.result import IoLog, Series

__all__ = ["write_logs"]

#: log kind -> (file suffixes, the series columns of reads and writes, scale to fio's unit)
_KINDS: dict[str, tuple[tuple[str, ...], tuple[str, str], float]] = {
    "bw": (("bw",), ("read_mbps", "write_mbps"), 1e6 / 1024),  # MB/s -> KiB/s
    "iops": (("iops",), ("read_iops", "write_iops"), 1.0),
    "lat": (("lat", "clat", "slat"), ("read_mean_latency_us", "write_mean_latency_us"), 1e3),  # us -> ns
}


def _directions(job: FioJob) -> tuple[int, ...]:
    """fio's direction numbers the job logs: 0 = reads, 1 = writes (and trims)."""
    w = job.workload
    if w.mixed:
        return (0, 1)
    return (0,) if "read" in w.rw else (1,)


def _lines(series: Series, job: FioJob, columns: tuple[str, str], scale: float, zero: bool) -> list[str]:
    tail = "0, 0, 0" if job.log_offset else "0, 0"  # block size, [offset,] priority: none for a window
    out = []
    ends = [float(t) for t in series.time_s]
    widths = [t - (ends[i - 1] if i else 0.0) for i, t in enumerate(ends)]
    for i, t in enumerate(ends):
        if widths[i] < max(widths) / 2:  # the sliver after the last window: a rate over it means nothing
            continue
        for d in _directions(job):
            value = 0 if zero else round(float(getattr(series, columns[d])[i]) * scale)
            out.append(f"{round(t * 1000)}, {value}, {d}, {tail}")
    return out


def _io_lines(log: IoLog, start_ns: int, kind: str, suffix: str, offsets: bool) -> list[str]:
    """One line per read, write or trim of ``log`` (fio logs no flush), as fio logs every IO; with
    ``offsets`` (fio's ``log_offset``) each gives the IO's offset."""
    keep = log.op < 3
    if suffix == "slat" or not keep.any():
        return []
    lat = log.latency_ns[keep]
    size = log.len[keep]
    value = {"lat": lat, "bw": size * 1_000_000 // np.maximum(lat, 1), "iops": np.ones_like(lat)}[kind]
    ms = (log.complete_ns[keep] - np.uint64(start_ns)) // 1_000_000
    rows = np.column_stack([ms, value, log.op[keep].astype(np.uint64), size, log.offset[keep]])
    if offsets:
        return [f"{t}, {v}, {d}, {b}, {o}, 0" for t, v, d, b, o in rows.tolist()]
    return [f"{t}, {v}, {d}, {b}, 0" for t, v, d, b, _ in rows.tolist()]


def write_logs(run: FioRun, folder: Path) -> list[Path]:
    """Write the logs ``run``'s jobs asked for into ``folder``; the paths written, in order."""
    # fio numbers jobs from 1 in file order, each clone its own number
    order = [(id(job), clone) for job in run.jobfile.jobs for clone in range(job.numjobs)]
    number = {key: i + 1 for i, key in enumerate(order)}
    seen: dict[int, int] = {}
    files: dict[Path, list[str]] = {}
    for (job, result), start_ns in zip(run.clones, run.clone_start_ns, strict=True):
        clone = seen.get(id(job), 0)
        seen[id(job)] = clone + 1
        per_io = job.workload.log_ios
        io_log = result.io_log if per_io else None  # None for a job that never started (exitall)
        for kind, prefix in job.logs.items():
            suffixes, columns, scale = _KINDS[kind]
            for suffix in suffixes:
                tail = f".{number[(id(job), clone)]}" if job.per_job_logs else ""
                path = folder / f"{prefix}_{suffix}{tail}.log"
                if io_log is not None:
                    lines = _io_lines(io_log, start_ns, kind, suffix, job.log_offset)
                elif per_io:  # a job an exitall stopped before it started: nothing to log
                    lines = []
                else:
                    lines = _lines(result.series, job, columns, scale, zero=suffix == "slat")
                files.setdefault(path, []).extend(lines)
    for path, lines in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("".join(f"{line}\n" for line in lines))
    return list(files)
