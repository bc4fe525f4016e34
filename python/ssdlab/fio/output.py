"""fio's output for a simulated run: the JSON layout of fio 3.33 (Debian's) and its normal text.

The JSON has fio's keys and types, so tools that read fio's JSON read this too. What the simulation does
not have is reported as fio reports it for an engine without it: submission latency (``slat_ns``) with
``N`` 0 (commands reach the drive at once), CPU use and context switches 0. ``iodepth_level`` is the
job's configured depth. ``disk_util`` has one entry named after the preset; its ``util`` is the share of
time with IO outstanding, estimated as the summed latency over the time (exact at queue depth 1, capped at
100%). ``"fio version"`` names the layout followed; the ``ssdlab`` section says what produced it, the
options ignored and the drive's counters over the whole job file.

Examples
--------
>>> import ssdlab
>>> from ssdlab.fio import parse_jobfile_text, run_jobfile
>>> run = run_jobfile(ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16}),
...                   parse_jobfile_text("[w]\\nrw=randwrite\\nsize=1g\\nruntime=20ms\\niodepth=4\\n"))
>>> job = to_json(run)["jobs"][0]
>>> job["write"]["clat_ns"]["percentile"]["99.000000"] >= job["write"]["clat_ns"]["min"]
True
>>> print(format_normal(run).splitlines()[4].split(" pid=")[0])
w: (groupid=0, jobs=1): err= 0:
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Any

from ssdlab._core import version
from ssdlab.counters import format_value
from ssdlab.fio.runner import FioEntry, FioRun
from ssdlab.result import Latency, Series
from ssdlab.units import parse_size, parse_time_ns
from ssdlab.workload import Workload

__all__ = ["FIO_VERSION", "format_normal", "to_json"]

#: The fio release whose JSON layout this follows (the one in Debian).
FIO_VERSION = "fio-3.33"

_DIRECTIONS = ("read", "write", "trim")
# fio's latency buckets: the upper bound of each, in ns, us and ms.
_LAT_BUCKETS = {
    "latency_ns": (1, ("2", "4", "10", "20", "50", "100", "250", "500", "750", "1000")),
    "latency_us": (1_000, ("2", "4", "10", "20", "50", "100", "250", "500", "750", "1000")),
    "latency_ms": (
        1_000_000,
        ("2", "4", "10", "20", "50", "100", "250", "500", "750", "1000", "2000", ">=2000"),
    ),
}
_DEPTHS = ("1", "2", "4", "8", "16", "32", ">=64")
_SUBMIT = ("0", "4", "8", "16", "32", "64", ">=64")


# The latency histogram, read back from the HDR histogram through its percentiles.


class _Hist:
    """Ranks and values of a latency distribution in ns: the value of the r-th fastest IO, 1 <= r <= N."""

    def __init__(self, lat: Latency) -> None:
        self.lat = lat
        self.n = lat.count

    def value(self, rank: int) -> int:
        # A quarter rank below r picks rank r whether the histogram rounds the rank or takes its ceiling.
        return round(self.lat.percentile(100.0 * (rank - 0.25) / self.n) * 1000)

    def below(self, ns: float) -> int:
        """How many IOs took less than ``ns``."""
        lo, hi = 0, self.n  # value(lo) < ns (rank 0 = none), value(hi + 1) >= ns
        if self.n == 0 or self.value(1) >= ns:
            return 0
        lo = 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.value(mid) < ns:
                lo = mid
            else:
                hi = mid - 1
        return lo

    def bins(self) -> dict[str, int]:
        """fio's json+ ``bins``: IO count per latency value (ns), one entry per histogram bucket."""
        out: dict[str, int] = {}
        rank = 1
        while rank <= self.n:
            v = self.value(rank)
            last = self.below(v + 0.5)
            out[str(v)] = last - rank + 1
            rank = last + 1
        return out


# JSON.


def _stats(lat: Latency | None, percentiles: Sequence[float] | None, plus: bool) -> dict[str, object]:
    if lat is None or lat.count == 0:
        return {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}
    out: dict[str, object] = {
        "min": round(lat.min_us * 1000),
        "max": round(lat.max_us * 1000),
        "mean": lat.mean_us * 1000,
        "stddev": lat.stdev_us * 1000,
        "N": lat.count,
    }
    if percentiles is not None:
        out["percentile"] = {f"{p:.6f}": round(lat.percentile(p) * 1000) for p in percentiles}
        if plus:
            out["bins"] = _Hist(lat).bins()
    return out


def _samples(values: list[float]) -> tuple[int, int, float, float, int]:
    """min, max, mean, sample standard deviation and count, as fio summarises its bw and iops logs."""
    if not values:
        return 0, 0, 0.0, 0.0, 0
    mean = sum(values) / len(values)
    dev = math.sqrt(sum((v - mean) ** 2 for v in values) / (len(values) - 1)) if len(values) > 1 else 0.0
    return round(min(values)), round(max(values)), mean, dev, len(values)


def _complete_intervals(series: Series, interval_s: float) -> list[int]:
    # fio logs only whole averaging windows: not the last interval when the end of the run cut it short. (A
    # long run's series widens its intervals by powers of two: the first one's width is the whole one then.)
    widths = [t - prev for prev, t in zip([0.0, *series.time_s[:-1]], series.time_s, strict=True)]
    whole = max(interval_s, widths[0]) if len(widths) > 1 else interval_s
    return [i for i, w in enumerate(widths) if w >= whole * (1 - 1e-9)]


def _bs_range(w: Workload, write: bool) -> str:
    """fio's header range of a job's block sizes (``bssplit``, ``bsrange``, ``bs`` or the write ``bs``).

    Examples
    --------
    >>> _bs_range(Workload(bssplit="4k/50:64k/50"), False), _bs_range(Workload(bs="4k", bs_write="16k"), True)
    ('4096B-65536B', '16384B-16384B')
    >>> _bs_range(Workload(bssplit="4k/50:64k/50", bssplit_write="128k"), True)
    '131072B-131072B'
    """
    own = write and (w.bssplit_write or w.bsrange_write)  # the writes' own sizes, else both directions'
    split, span = (w.bssplit_write, w.bsrange_write) if own else (w.bssplit, w.bsrange)
    if split:
        sizes = [parse_size(part.partition("/")[0], "bssplit") for part in split.split(":")]
    elif span:
        sizes = [parse_size(part, "bsrange") for part in span.split("-")]
    else:
        sizes = [parse_size(w.bs_write if write and w.bs_write else w.bs, "bs")]
    return f"{min(sizes)}B-{max(sizes)}B"


def _direction(entry: FioEntry, which: str, group_bw: float, plus: bool) -> dict[str, object]:
    m = entry.measured
    elapsed = m.elapsed_s
    d = getattr(m, which)
    ios, nbytes, lat = d.ios, d.bytes, d.latency
    bw_bytes = nbytes / elapsed if ios and elapsed else 0.0
    bw_kib: list[float] = []
    iops: list[float] = []
    if which != "trim" and ios:
        s = m.series
        mine = s.read_mbps if which == "read" else s.write_mbps
        for i in _complete_intervals(s, parse_time_ns(entry.job.workload.interval, "interval") / 1e9):
            total = s.read_mbps[i] + s.write_mbps[i]
            bw_kib.append(mine[i] * 1e6 / 1024)
            iops.append(float(s.iops[i] * mine[i] / total) if total else 0.0)
    bw_min, bw_max, bw_mean, bw_dev, bw_n = _samples(bw_kib)
    io_min, io_max, io_mean, io_dev, io_n = _samples(iops)
    return {
        "io_bytes": nbytes,
        "io_kbytes": nbytes // 1024,
        "bw_bytes": round(bw_bytes),
        "bw": round(bw_bytes / 1024),
        "iops": ios / elapsed if ios and elapsed else 0.0,
        "runtime": round(elapsed * 1000) if ios else 0,
        "total_ios": ios,
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": _stats(None, None, False),
        "clat_ns": _stats(lat, entry.job.percentiles, plus),
        "lat_ns": _stats(lat, None, False),
        "bw_min": bw_min,
        "bw_max": bw_max,
        "bw_agg": 100.0 * bw_bytes / group_bw if group_bw and bw_n else 0.0,
        "bw_mean": bw_mean,
        "bw_dev": bw_dev,
        "bw_samples": bw_n,
        "iops_min": io_min,
        "iops_max": io_max,
        "iops_mean": io_mean,
        "iops_stddev": io_dev,
        "iops_samples": io_n,
    }


def _ios_bytes(entry: FioEntry, which: str) -> tuple[int, int]:
    d = getattr(entry.measured, which)
    return d.ios, d.bytes


def _group_bw(entries: list[FioEntry], which: str) -> float:
    """A reporting group's bandwidth in one direction: its bytes over its longest runtime (fio's)."""
    moved = [(e.measured.elapsed_s, _ios_bytes(e, which)[1]) for e in entries if _ios_bytes(e, which)[0]]
    longest = max((t for t, _ in moved), default=0.0)
    return sum(b for _, b in moved) / longest if longest else 0.0


def _lat_buckets(lat: Latency) -> dict[str, dict[str, float]]:
    hist = _Hist(lat)
    out: dict[str, dict[str, float]] = {}
    below_prev = 0
    for key, (unit, bounds) in _LAT_BUCKETS.items():
        shares: dict[str, float] = {}
        for b in bounds:
            below = hist.n if b.startswith(">=") else hist.below(int(b) * unit)
            shares[b] = 100.0 * (below - below_prev) / hist.n if hist.n else 0.0
            below_prev = below
        out[key] = shares
    return out


def _depth_key(depth: int) -> str:
    return ">=64" if depth >= 64 else str(1 << (depth.bit_length() - 1))


def _job_json(entry: FioEntry, group: list[FioEntry], plus: bool) -> dict[str, object]:
    m = entry.measured
    w = entry.job.workload
    any_io = m.read.ios + m.write.ios + m.trim_ios > 0
    out: dict[str, object] = {
        "jobname": entry.job.name,
        "groupid": entry.job.groupid,
        "error": 0,
        "eta": 0,
        "elapsed": math.ceil(m.elapsed_s),
        "job options": dict(entry.job.options),
    }
    if entry.job.description:
        out["desc"] = entry.job.description
    for which in _DIRECTIONS:
        out[which] = _direction(entry, which, _group_bw(group, which), plus)
    out.update(
        {
            "sync": {"total_ios": 0, "lat_ns": _stats(None, None, False)},
            "job_runtime": round(m.elapsed_s * 1000),
            "usr_cpu": 0.0,
            "sys_cpu": 0.0,
            "ctx": 0,
            "majf": 0,
            "minf": 0,
            "iodepth_level": {k: 100.0 if any_io and k == _depth_key(w.iodepth) else 0.0 for k in _DEPTHS},
            "iodepth_submit": {k: 100.0 if any_io and k == "4" else 0.0 for k in _SUBMIT},
            "iodepth_complete": {k: 100.0 if any_io and k == "4" else 0.0 for k in _SUBMIT},
            **_lat_buckets(m.latency),
            "latency_depth": w.iodepth,
            "latency_target": 0,
            "latency_percentile": 100.0,
            "latency_window": 0,
        }
    )
    if m.steadystate is not None:
        out["steadystate"] = _steadystate_json(m.steadystate)
    return out


def _window_mean(ss: dict[str, Any], key: str) -> int:
    """The mean of a steady-state window's samples, whole as fio prints it."""
    return int(sum(ss[key]) // max(len(ss[key]), 1))


def _steadystate_json(ss: dict[str, Any]) -> dict[str, object]:
    """fio's ``steadystate`` block: the criterion, whether it was attained, and the window's samples."""
    return {
        "ss": ss["ss"],
        "duration": int(ss["duration_s"]),
        "attained": int(ss["attained"]),
        "criterion": f"{ss['criterion']:f}{'%' if ss['pct'] else ''}",
        "max_deviation": ss["max_deviation"],
        "slope": ss["slope"],
        "data": {
            "bw_mean": _window_mean(ss, "bw"),
            "iops_mean": _window_mean(ss, "iops"),
            **(
                {"lat_mean": _window_mean(ss, "lat_ns"), "lat_ns": ss["lat_ns"]}
                if ss["ss"].startswith("lat")
                else {}
            ),
            "iops": ss["iops"],
            "bw": ss["bw"],
        },
    }


def _steadystate_line(ss: dict[str, Any]) -> str:
    """fio's ``steadystate  :`` line of a job's normal output."""
    metric = ss["ss"].split(":")[0]
    kind = metric.removesuffix("_slope")
    how = " slope" if metric.endswith("_slope") else " mean dev"
    unit = "%" if ss["pct"] else ""
    return (
        f"  steadystate  : attained={'yes' if ss['attained'] else 'no'}, bw={_bw(_window_mean(ss, 'bw'))}, "
        f"iops={_short(_window_mean(ss, 'iops'))}, {kind}{how}={ss['criterion']:.3f}{unit}"
    )


def _groups(run: FioRun) -> dict[int, list[FioEntry]]:
    out: dict[int, list[FioEntry]] = {}
    for e in run.entries:
        out.setdefault(e.job.groupid, []).append(e)
    return out


def _disk(run: FioRun) -> dict[str, object]:
    reads = [r.read for r in run.results]
    writes = [r.write for r in run.results]
    read_ticks = sum(d.latency.mean_us * d.latency.count for d in reads) / 1000
    write_ticks = sum(d.latency.mean_us * d.latency.count for d in writes) / 1000
    elapsed_ms = sum(r.elapsed_s for r in run.results) * 1000
    return {
        "name": run.preset,
        "read_ios": sum(d.ios for d in reads),
        "write_ios": sum(d.ios for d in writes),
        "read_merges": 0,
        "write_merges": 0,
        "read_ticks": round(read_ticks),
        "write_ticks": round(write_ticks),
        "in_queue": round(read_ticks + write_ticks),
        "util": min(100.0, 100.0 * (read_ticks + write_ticks) / elapsed_ms) if elapsed_ms else 0.0,
    }


def to_json(run: FioRun, plus: bool = False) -> dict[str, object]:
    """fio's JSON document for ``run`` (``plus``: fio's ``json+``, with the latency ``bins``).

    Examples
    --------
    >>> import ssdlab
    >>> from ssdlab.fio import parse_jobfile_text, run_jobfile
    >>> run = run_jobfile(ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16}),
    ...                   parse_jobfile_text("[r]\\nrw=randread\\nsize=1g\\nruntime=10ms\\n"))
    >>> doc = to_json(run, plus=True)
    >>> clat = doc["jobs"][0]["read"]["clat_ns"]
    >>> sum(clat["bins"].values()) == clat["N"], doc["disk_util"][0]["name"]
    (True, 'bg4-1tb')
    """
    groups = _groups(run)
    doc: dict[str, object] = {
        "fio version": FIO_VERSION,
        "timestamp": int(run.started),
        "timestamp_ms": int(run.started * 1000),
        "time": time.ctime(run.started),
    }
    if run.jobfile.global_options:
        doc["global options"] = dict(run.jobfile.global_options)
    doc["jobs"] = [_job_json(e, groups[e.job.groupid], plus) for e in run.entries]
    doc["disk_util"] = [_disk(run)]
    doc["ssdlab"] = {
        "version": version(),
        "preset": run.preset,
        "capacity_bytes": run.capacity_bytes,
        "simulated": True,
        "ignored_options": [i.to_dict() for i in run.jobfile.ignored],
        "counters": run.counters,
        "phases": [
            {"jobs": [j.name for j in jobs], "elapsed_s": res.elapsed_s, "counters": res.counters}
            for jobs, res in zip(run.jobfile.phases, run.results, strict=True)
        ],
    }
    return doc


# Normal output.

_BIN = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")
_DEC = ("B", "kB", "MB", "GB", "TB", "PB")
_PLAIN = ("", "k", "M", "G", "T", "P")


def _short(x: float, units: Sequence[str] = _PLAIN, base: int = 1000) -> str:
    """fio's short numbers: up to four digits as they are, else three significant digits and a unit."""
    i = 0
    while x >= 10_000 and i < len(units) - 1:
        x /= base
        i += 1
    if i == 0 or x >= 1000:
        return f"{x:.0f}{units[i]}"
    return f"{x:.{2 if x < 10 else 1 if x < 100 else 0}f}{units[i]}"


def _rate_bin(bytes_per_s: float) -> str:
    return f"{_short(bytes_per_s, _BIN, 1024)}/s"


def _rate_dec(bytes_per_s: float) -> str:
    return f"{_short(bytes_per_s, _DEC)}/s"


def _bw(bytes_per_s: float) -> str:
    return f"{_rate_bin(bytes_per_s)} ({_rate_dec(bytes_per_s)})"


def _six(v: int) -> str:
    # fio's min=/max= fields keep at most six digits: 12061234 prints as 12061k.
    i = 0
    while len(str(v)) > 6:
        v //= 1000
        i += 1
    return f"{v}{_PLAIN[i]}"


def _lat_line(label: str, lat: Latency) -> str:
    lo, hi = round(lat.min_us * 1000), round(lat.max_us * 1000)
    mean, dev = lat.mean_us * 1000, lat.stdev_us * 1000
    # fio's switch to a larger unit: the minimum above 2 of it, the maximum at 100 and the spread above 1.
    unit, div = "nsec", 1
    for name, size in (("msec", 1_000_000), ("usec", 1_000)):
        if lo > 2 * size and hi >= 100 * size and dev > size:
            unit, div = name, size
            break
    return (
        f"{label} ({unit}): min={_six(lo // div)}, max={_six(hi // div)}, "
        f"avg={mean / div:5.02f}, stdev={dev / div:5.02f}"
    )


def _percentile_lines(lat: Latency, percentiles: Sequence[float]) -> list[str]:
    values = [round(lat.percentile(p) * 1000) for p in percentiles]
    unit, div = "nsec", 1
    if min(values) > 2_000_000 and max(values) > 99_999_999:
        unit, div = "msec", 1_000_000
    elif min(values) > 2_000 and max(values) > 99_999:
        unit, div = "usec", 1_000
    scaled = [v // div for v in values]
    width = len(str(max(scaled)))
    cells = [f"{p:5.2f}th=[{v:>{width}}]" for p, v in zip(percentiles, scaled, strict=True)]
    per_line = max(1, 73 // (12 + width))
    rows = [", ".join(cells[i : i + per_line]) for i in range(0, len(cells), per_line)]
    return [f"    clat percentiles ({unit}):"] + [
        f"     | {row}{',' if i < len(rows) - 1 else ''}" for i, row in enumerate(rows)
    ]


def _bucket_lines(lat: Latency) -> list[str]:
    lines = []
    for key, shares in _lat_buckets(lat).items():
        unit = {"latency_ns": "nsec", "latency_us": "usec", "latency_ms": "msec"}[key]
        # fio shows a share too small to print as 0.01%.
        cells = [f"{b}={max(s, 0.01):.2f}%" for b, s in shares.items() if s > 0]
        for i in range(0, len(cells), 5):
            lines.append(f"  lat ({unit})   : {', '.join(cells[i : i + 5])}")
    return lines


def _entry_text(entry: FioEntry, group: list[FioEntry], started: float) -> list[str]:
    m = entry.measured
    job = entry.job
    lines = [
        f"{job.name}: (groupid={job.groupid}, jobs={entry.clones}): err= 0: pid=0: {time.ctime(started)}"
    ]
    if job.description:
        lines.append(f"  Description  : [{job.description}]")
    for which in _DIRECTIONS:
        ios, nbytes = _ios_bytes(entry, which)
        if not ios:
            continue
        elapsed = m.elapsed_s
        ms = round(elapsed * 1000)
        rate = nbytes / elapsed if elapsed else 0.0
        tail = "; 0 zone resets" if which == "write" else ""
        lines.append(
            f"  {which}: IOPS={_short(ios / elapsed if elapsed else 0.0)}, BW={_short(rate, _BIN, 1024)}/s "
            f"({_short(rate, _DEC)}/s)({_short(nbytes, _BIN, 1024)}/{ms}msec){tail}"
        )
        d = getattr(m, which)
        lines.append("    " + _lat_line("clat", d.latency))
        lines.append("     " + _lat_line("lat", d.latency))
        lines.extend(_percentile_lines(d.latency, job.percentiles))
        js = _direction(entry, which, _group_bw(group, which), False)
        if js["bw_samples"]:
            lines.append(
                f"   bw (  KiB/s): min={js['bw_min']:5d}, max={js['bw_max']:5d}, per={js['bw_agg']:3.2f}%, "
                f"avg={js['bw_mean']:5.02f}, stdev={js['bw_dev']:5.02f}, samples={js['bw_samples']}"
            )
            lines.append(
                f"   iops        : min={js['iops_min']:5d}, max={js['iops_max']:5d}, "
                f"avg={js['iops_mean']:5.02f}, stdev={js['iops_stddev']:5.02f}, samples={js['iops_samples']}"
            )
    lines.extend(_bucket_lines(m.latency))
    depth = _depth_key(job.workload.iodepth)
    lines.append("  IO depths    : " + ", ".join(f"{k}={100.0 if k == depth else 0.0:.1f}%" for k in _DEPTHS))
    for label in ("submit", "complete"):
        lines.append(
            f"     {label:<9} : " + ", ".join(f"{k}={100.0 if k == '4' else 0.0:.1f}%" for k in _SUBMIT)
        )
    issued = [m.read.ios, m.write.ios, m.trim_ios, 0]
    lines.append(f"     issued rwts: total={','.join(map(str, issued))} short=0,0,0,0 dropped=0,0,0,0")
    lines.append(f"     latency   : target=0, window=0, percentile=100.00%, depth={job.workload.iodepth}")
    if m.steadystate is not None:
        lines.append(_steadystate_line(m.steadystate))
    return lines


def _group_lines(gid: int, entries: list[FioEntry]) -> list[str]:
    lines = ["", f"Run status group {gid} (all jobs):"]
    for which in _DIRECTIONS:
        moved = [(e.measured.elapsed_s, _ios_bytes(e, which)[1]) for e in entries if _ios_bytes(e, which)[0]]
        if not moved:
            continue
        total = sum(b for _, b in moved)
        rates = [b / t if t else 0.0 for t, b in moved]
        runs = [round(t * 1000) for t, _ in moved]
        lo, hi = min(rates), max(rates)
        lines.append(
            f"{which.upper():>7}: bw={_bw(_group_bw(entries, which))}, "
            f"{_rate_bin(lo)}-{_rate_bin(hi)} ({_rate_dec(lo)}-{_rate_dec(hi)}), "
            f"io={_short(total, _BIN, 1024)} ({_short(total, _DEC)}), run={min(runs)}-{max(runs)}msec"
        )
    return lines


def format_normal(run: FioRun) -> str:
    """fio's normal text output for ``run``, with the options ignored and the drive's counters after it.

    Examples
    --------
    >>> import ssdlab
    >>> from ssdlab.fio import parse_jobfile_text, run_jobfile
    >>> run = run_jobfile(ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16}),
    ...                   parse_jobfile_text("[r]\\nrw=randread\\nsize=1g\\nruntime=10ms\\n"))
    >>> text = format_normal(run)
    >>> "  read: IOPS=" in text and "Run status group 0 (all jobs):" in text
    True
    """
    lines = []
    for job in run.jobfile.jobs:
        w = job.workload
        r, wr = _bs_range(w, write=False), _bs_range(w, write=True)
        lines.append(
            f"{job.name}: (g={job.groupid}): rw={w.rw}, bs=(R) {r}, (W) {wr}, (T) {r}, "
            f"ioengine=ssdlab, iodepth={w.iodepth}"
        )
        if job.numjobs > 1:
            lines.append("...")
    lines.append(f"{FIO_VERSION} layout, ssdlab {version()}: simulated on {run.preset}")
    n = sum(j.numjobs for j in run.jobfile.jobs)
    lines.append(f"Starting {n} simulated job{'s' if n != 1 else ''}")
    for ig in run.jobfile.ignored:
        shown = ig.option if not ig.value else f"{ig.option}={ig.value}"
        lines.append(f"note: {ig.where}: {shown} {ig.verb}: {ig.why}")
    lines.append("")
    groups = _groups(run)
    for e in run.entries:
        lines.extend(_entry_text(e, groups[e.job.groupid], run.started))
    for gid, entries in groups.items():
        lines.extend(_group_lines(gid, entries))
    disk = _disk(run)
    lines += [
        "",
        "Disk stats (read/write):",
        f"  {disk['name']}: ios={disk['read_ios']}/{disk['write_ios']}, merge=0/0, "
        f"ticks={disk['read_ticks']}/{disk['write_ticks']}, in_queue={disk['in_queue']}, "
        f"util={disk['util']:.2f}%",
        "",
        "ssdlab drive counters (whole job file):",
    ]
    cells = [f"{k}={format_value(run.counters, k, thousands=False)}" for k in run.counters]
    lines += ["  " + ", ".join(cells[i : i + 4]) for i in range(0, len(cells), 4)]
    return "\n".join(lines) + "\n"
