"""A real file or block device as a suite's drive: the same suite definitions, run through real fio.

:class:`Target` stands where a :class:`ssdlab.Drive` stands in a suite: ``run(workload)`` turns each
:class:`ssdlab.Workload` into a fio job (``ioengine=io_uring`` or ``libaio``, ``direct=1`` where the target
allows it), runs Debian's fio on the target and reads its JSON into the same :class:`ssdlab.Result` a twin
returns, so ``ssdlab run --target`` prints and saves what ``ssdlab run --preset`` does and a real drive can
stand beside its twin. What fio cannot see (WAF, SLC cache, GC, dies) reads as NaN in the counters; the host
counters are fio's own.

Safety, checked before anything is written:

- a block device that holds a partition table or a filesystem signature, has partitions, is mounted or is
  held by another device (LVM, RAID) is refused unless ``destroy_data=True``;
- an existing file is refused unless ``destroy_data=True`` (it is then used and kept); a new file is created
  at ``size`` bytes (refused if the filesystem has not that much free space) and removed by :meth:`close`
  unless ``keep=True``;
- a suite refuses a target too small for it before its first write (as it refuses a small twin).

Examples
--------
>>> import ssdlab, tempfile, os
>>> from ssdlab.target import Target
>>> folder = tempfile.mkdtemp()
>>> with Target.open(os.path.join(folder, "t.img"), size="64m") as t:
...     res = t.run(ssdlab.Workload(rw="write", bs="1m", size="16m"))
...     res.write.bytes, t.capacity_bytes
(16777216, 67108864)
>>> os.path.exists(os.path.join(folder, "t.img"))  # created here, so removed afterwards
False
"""

from __future__ import annotations

import json
import math
import os
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from ssdlab.counters import REGISTRY, Counters
from ssdlab.errors import workload_error
from ssdlab.result import Result
from ssdlab.units import PAGE, format_size, parse_size, parse_time_ns
from ssdlab.workload import Workload

__all__ = ["TARGET_MARK", "Target", "fio_args"]

#: Percentiles asked of fio; :meth:`_Latency.percentile_ns` interpolates between them.
_PERCENTILES = (1, 5, 10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99, 99.5, 99.9, 99.95, 99.99)
#: Counters a real target reports (from fio); every other counter is NaN (not observable from the host).
_HOST_COUNTERS = ("host_read_ios", "host_read_bytes", "host_write_ios", "host_write_bytes", "host_trim_ios")

#: The first line of a real target's ``config_toml``: how a saved result says it was not a simulated drive.
TARGET_MARK = "# a real target measured through fio, not a simulated drive"


def _ioengine() -> str:
    """io_uring where the kernel allows it, libaio otherwise (both asynchronous, as CrystalDiskMark's
    overlapped IO and KDiskMark's libaio are)."""
    probe = subprocess.run(
        [
            "fio",
            "--name=probe",
            "--ioengine=io_uring",
            "--filename=/dev/null",
            "--size=4k",
            "--rw=read",
            "--output-format=terse",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    return "io_uring" if probe.returncode == 0 else "libaio"


#: Workload fields (native keys) that fio_args passes as fio options when not at their defaults.
_FIO_OPTIONS = (
    ("io_size", "io_size"),
    ("runtime_ns", "runtime"),
    ("time_based", "time_based"),
    ("ramp_time_ns", "ramp_time"),
    ("thinktime_ns", "thinktime"),
    ("thinktime_blocks", "thinktime_blocks"),
    ("buffer_compress_percentage", "buffer_compress_percentage"),
    ("blockalign", "blockalign"),
    ("random_distribution", "random_distribution"),
    ("percentage_random", "percentage_random"),
    ("offset_increment", "offset_increment"),
    ("startdelay_ns", "startdelay"),
    ("fsync", "fsync"),
    ("sync", "sync"),
    ("loops", "loops"),
    ("number_ios", "number_ios"),
    ("exitall", "exitall"),
    ("exit_what", "exit_what"),
    ("rate_process", "rate_process"),
    ("steadystate_group", "group_reporting"),  # fio judges a reporting group's steady state as one
)
#: Steady state reaches fio only with its duration set (fio checks nothing without ss_dur).
_FIO_STEADYSTATE = (
    ("steadystate", "steadystate"),
    ("steadystate_duration_ns", "steadystate_duration"),
    ("steadystate_ramp_time_ns", "steadystate_ramp_time"),
    ("steadystate_check_interval_ns", "steadystate_check_interval"),  # fio >= 3.35
)
_NATIVE_DEFAULTS = Workload().to_native()
#: Why a real target has no IO log (``Workload.log_ios``, ``--io-log``): fio's per-IO logs give completion
#: times to the millisecond and no submit times.
IO_LOG_REFUSED = "a real target's IOs are fio's to log: run fio with write_lat_log"


def fio_args(
    w: Workload, name: str, filename: str, capacity: int, *, direct: bool, ioengine: str
) -> list[str]:
    """fio's command-line options for one :class:`ssdlab.Workload` on ``filename`` (one job section).

    Examples
    --------
    >>> from ssdlab import Workload
    >>> args = fio_args(Workload(rw="randread", iodepth=32, size="1g", runtime="5s", time_based=True),
    ...                 "j0", "/tmp/x", 2 << 30, direct=True, ioengine="io_uring")
    >>> [a for a in args if a.split("=")[0] in ("--rw", "--iodepth", "--size", "--runtime")]
    ['--rw=randread', '--iodepth=32', '--size=1073741824', '--runtime=5000000us']
    """
    n = w.to_native()
    offset, size = int(n["offset"]), int(n["size"])
    bs = f"{n['bs']},{n['bs_write']}" if int(n["bs_write"]) else f"{n['bs']}"
    args = [
        f"--name={name}",
        f"--filename={filename}",
        f"--ioengine={ioengine}",
        f"--direct={int(direct)}",
        f"--rw={n['rw']}" + (f":{n['seq_skip']}" if int(n["seq_skip"]) else ""),
        f"--bs={bs}",
        f"--iodepth={n['iodepth']}",
        f"--numjobs={n['numjobs']}",
        f"--offset={offset}",
        f"--size={size or capacity - offset}",
        f"--randseed={int(n['seed']) & (2**63 - 1)}",  # fio reads a signed 64-bit seed
        f"--rwmixread={n['rwmixread']}",
        "--randrepeat=0",
        *([] if n["randommap"] else ["--norandommap"]),
        # fio checks what it reads back against a checksum it wrote: any kind moves the same bytes
        *(["--verify=crc32c"] if n["verify"] else []),
    ]
    # fio caps each direction at a rate; a write rate of its own follows a comma (trims take it too)
    for key, option in (("rate_iops", "rate_iops"), ("rate_bps", "rate")):
        rate, write = int(n.get(key, 0)), n.get(f"{key}_write")
        if write is not None and int(write) != rate:
            args.append(f"--{option}={rate or ''},{int(write) or ''},{int(write) or ''}")
        elif rate:
            args.append(f"--{option}={rate}")
    # sizes per direction: fio's READ,WRITE form (reads without their own split take bs)
    for kind in ("bssplit", "bsrange"):
        read, write = str(n.get(kind, "")), str(n.get(f"{kind}_write", ""))
        if read or write:
            read = read or (f"{n['bs']}/100" if kind == "bssplit" else f"{n['bs']}-{n['bs']}")
            args.append(f"--{kind}={read}" + (f",{write}" if write else ""))
    # The rest only when not fio's default, which is the Workload's (times in microseconds, fio's finest).
    steady = _FIO_STEADYSTATE if int(n["steadystate_duration_ns"]) else ()
    for key, option in (*_FIO_OPTIONS, *steady):
        value = n.get(key)
        if value == _NATIVE_DEFAULTS.get(key):
            continue
        if key.endswith("_ns"):
            args.append(f"--{option}={int(value) // 1000}us")  # type: ignore[arg-type]
        elif isinstance(value, bool):
            args.append(f"--{option}={int(value)}")
        else:
            args.append(f"--{option}={value}")
    if int(n["buffer_compress_percentage"]):
        args.append("--refill_buffers")
    return args


def _fio_failure(stderr: str, output: Path) -> str:
    """Why fio failed: its stderr, else the errno its JSON output gives each failed job (with
    ``--output=FILE`` fio reports a job's error there, as a number).

    Examples
    --------
    >>> import tempfile
    >>> out = Path(tempfile.mkdtemp()) / "fio.json"
    >>> _ = out.write_text('{"jobs": [{"jobname": "x", "error": 1}]}')
    >>> _fio_failure("", out)
    'Operation not permitted (errno 1)'
    """
    if stderr.strip():
        return " ".join(stderr.split())[-500:]
    try:
        jobs = json.loads(output.read_text(errors="replace")).get("jobs", [])
    except (OSError, ValueError, AttributeError):
        return ""
    errors = sorted({int(j["error"]) for j in jobs if isinstance(j, dict) and j.get("error")})
    return "; ".join(f"{os.strerror(e)} (errno {e})" for e in errors)


@dataclass
class _Latency:
    """The engine's latency interface over fio's ``lat_ns`` objects (one or several merged)."""

    count: int = 0
    mean_ns: float = 0.0
    min_ns: float = 0.0
    max_ns: float = 0.0
    stdev_ns: float = 0.0
    #: (percentile, ns) points, ascending.
    points: list[tuple[float, float]] = field(default_factory=list)

    @classmethod
    def of(cls, lat: dict[str, Any]) -> _Latency:
        n = int(lat.get("N", 0))
        if not n:
            return cls()
        points = sorted((float(p), float(v)) for p, v in lat.get("percentile", {}).items())
        return cls(n, float(lat["mean"]), float(lat["min"]), float(lat["max"]), float(lat["stddev"]), points)

    @classmethod
    def merged(cls, parts: Sequence[_Latency]) -> _Latency:
        parts = [p for p in parts if p.count]
        if len(parts) <= 1:
            return parts[0] if parts else cls()
        n = sum(p.count for p in parts)
        mean = sum(p.count * p.mean_ns for p in parts) / n
        var = sum(p.count * (p.stdev_ns**2 + (p.mean_ns - mean) ** 2) for p in parts) / n
        # The mixture's percentiles: invert the count-weighted sum of the parts' CDFs on each part's points.
        grid = sorted({v for p in parts for _, v in p.points})
        points = [(100.0 * sum(p.count * p.cdf(v) for p in parts) / n, v) for v in grid]
        return cls(
            n, mean, min(p.min_ns for p in parts), max(p.max_ns for p in parts), math.sqrt(var), points
        )

    def cdf(self, ns: float) -> float:
        """Share of IOs at or below ``ns`` (0..1), linear between fio's points."""
        if ns < self.min_ns:
            return 0.0
        if ns >= self.max_ns:
            return 1.0
        lo = (0.0, self.min_ns)
        for p, v in [*self.points, (100.0, self.max_ns)]:
            if ns < v:
                share = (ns - lo[1]) / (v - lo[1]) if v > lo[1] else 1.0
                return (lo[0] + (p - lo[0]) * share) / 100.0
            lo = (p, v)
        return 1.0

    def percentile_ns(self, p: float) -> float:
        if not self.count:
            return 0.0
        lo = (0.0, self.min_ns)
        # fio gives a percentile as its histogram bucket's value, which may lie past the true maximum
        points = [(q, min(v, self.max_ns)) for q, v in self.points]
        for q, v in [*points, (100.0, self.max_ns)]:
            if p <= q:
                share = (p - lo[0]) / (q - lo[0]) if q > lo[0] else 1.0
                return lo[1] + (v - lo[1]) * share
            lo = (q, v)
        return self.max_ns


@dataclass
class _FioRun:
    """The engine's result interface (what :class:`ssdlab.Result` reads) over fio's per-job JSON."""

    entries: list[dict[str, Any]]
    counters: dict[str, float]
    series: dict[str, list[float]]
    jobs: list[_FioRun] = field(default_factory=list)
    die_utilisation: list[float] = field(default_factory=list)
    #: Every spec of a target run is in one fio group (Result.groups is then empty, as for a twin).
    groups: dict[int, _FioRun] = field(default_factory=dict)

    def _sum(self, ddir: str, key: str) -> int:
        return sum(int(e[ddir][key]) for e in self.entries)

    @property
    def elapsed_ns(self) -> int:
        return max((int(e["job_runtime"]) for e in self.entries), default=0) * 1_000_000

    read_ios = property(lambda self: self._sum("read", "total_ios"))
    read_bytes = property(lambda self: self._sum("read", "io_bytes"))
    write_ios = property(lambda self: self._sum("write", "total_ios"))
    write_bytes = property(lambda self: self._sum("write", "io_bytes"))
    trim_ios = property(lambda self: self._sum("trim", "total_ios"))
    trim_bytes = property(lambda self: self._sum("trim", "io_bytes"))
    #: A real drive's power is not visible to fio.
    max_power_w = math.nan
    #: Per-IO records are fio's own logs on a real target (``log_ios`` is refused there).
    io_log = None

    @property
    def steadystate(self) -> dict[str, Any] | None:
        """fio's ``steadystate`` block (of the first job that has one) in the form a twin's result has."""
        block = next((e["steadystate"] for e in self.entries if "steadystate" in e), None)
        if block is None:
            return None
        data, criterion = block.get("data", {}), str(block["criterion"])
        return {
            "ss": block["ss"],
            "pct": criterion.endswith("%"),
            "duration_s": float(block["duration"]),
            "attained": bool(block["attained"]),
            "criterion": float(criterion.rstrip("%")),
            "max_deviation": float(block["max_deviation"]),
            "slope": float(block["slope"]),
            "iops": [int(v) for v in data.get("iops", [])],
            "bw": [int(v) for v in data.get("bw", [])],
            "lat_ns": [int(v) for v in data.get("lat_ns", [])],
        }

    def latency(self, which: str) -> _Latency:
        dirs = ("read", "write") if which == "all" else (which,)
        return _Latency.merged([_Latency.of(e[d]["lat_ns"]) for e in self.entries for d in dirs])


def _series(folder: Path, interval_ms: int) -> dict[str, list[float]]:
    """Per-interval columns from fio's averaged bandwidth, IOPS and latency logs (summed over jobs).

    fio logs no per-window maximum or percentiles beside the average, so ``max_latency_us`` and the
    ``p*_latency_us`` columns are NaN for a real target."""
    bw: dict[int, list[float]] = {}
    iops: dict[int, float] = {}
    lat: dict[int, list[float]] = {}
    iops_dir: dict[int, list[float]] = {}
    lat_dir: dict[tuple[int, int], list[float]] = {}

    def rows(pattern: str) -> list[tuple[int, float, int]]:
        out = []
        for path in sorted(folder.glob(pattern)):
            for line in path.read_text().splitlines():
                cols = [c.strip() for c in line.split(",")]
                if len(cols) >= 3:
                    # the window a sample closes: fio stamps it a few ms late
                    k = max(1, round(int(cols[0]) / interval_ms))
                    out.append((k, float(cols[1]), int(cols[2])))
        return out

    for k, kib_s, ddir in rows("*_bw.*.log"):
        bw.setdefault(k, [0.0, 0.0])[min(ddir, 1)] += kib_s * 1024 / 1e6
    for k, n, ddir in rows("*_iops.*.log"):
        iops[k] = iops.get(k, 0.0) + n
        iops_dir.setdefault(k, [0.0, 0.0])[min(ddir, 1)] += n
    for k, ns, ddir in rows("*_lat.*.log"):
        lat.setdefault(k, []).append(ns)
        lat_dir.setdefault((k, min(ddir, 1)), []).append(ns)
    keys = sorted(bw)

    def mean_us(samples: list[float] | None) -> float:
        return sum(samples) / len(samples) / 1e3 if samples else math.nan

    return {
        "time_s": [k * interval_ms / 1e3 for k in keys],
        "read_mbps": [bw[k][0] for k in keys],
        "write_mbps": [bw[k][1] for k in keys],
        "iops": [iops.get(k, 0.0) for k in keys],
        "mean_latency_us": [mean_us(lat.get(k)) for k in keys],
        "max_latency_us": [math.nan for _ in keys],
        "p50_latency_us": [math.nan for _ in keys],
        "p99_latency_us": [math.nan for _ in keys],
        "p999_latency_us": [math.nan for _ in keys],
        # a real drive's power and temperature are not visible to fio
        "power_w": [math.nan for _ in keys],
        "temperature_c": [math.nan for _ in keys],
        "read_iops": [iops_dir.get(k, [0.0, 0.0])[0] for k in keys],
        "write_iops": [iops_dir.get(k, [0.0, 0.0])[1] for k in keys],
        "read_mean_latency_us": [mean_us(lat_dir.get((k, 0))) for k in keys],
        "write_mean_latency_us": [mean_us(lat_dir.get((k, 1))) for k in keys],
    }


def _refuse(message: str, path: str) -> Exception:
    return workload_error("target", message, path)


def _block_device_problem(path: str) -> str | None:
    """Why writing to block device ``path`` would destroy something, or None."""
    name = os.path.basename(os.path.realpath(path))
    sysfs = Path("/sys/class/block") / name
    partitions = sorted(p.name for p in sysfs.glob(f"{name}*") if (p / "partition").exists())
    if partitions:
        return f"holds partitions ({', '.join(partitions)})"
    holders = sorted(p.name for p in (sysfs / "holders").glob("*"))
    if holders:
        return f"is in use by {', '.join(holders)}"
    st = os.stat(path)
    dev = f"{os.major(st.st_rdev)}:{os.minor(st.st_rdev)}"
    with open("/proc/self/mountinfo", encoding="utf-8") as f:
        if any(line.split()[2] == dev for line in f):
            return "is mounted"
    return _signature(path)


def _signature(path: str) -> str | None:
    """The filesystem or partition-table signature on ``path`` (blkid's probe, plus MBR/GPT magic)."""
    if shutil.which("blkid"):
        probe = subprocess.run(
            ["blkid", "-p", "-o", "export", path], capture_output=True, text=True, check=False
        )
        found = dict(line.split("=", 1) for line in probe.stdout.splitlines() if "=" in line)
        kind = found.get("TYPE") or found.get("PTTYPE")
        if probe.returncode == 0 and kind:
            return f"holds a signature: {kind} (blkid)"
    with open(path, "rb") as f:
        head = f.read(1024)
    if head[512:520] == b"EFI PART":
        return "holds a GPT partition table"
    if len(head) >= 512 and head[510:512] == b"\x55\xaa":
        return "holds an MBR boot signature"
    return None


class Target:
    """A file or block device that suites run on through real fio. Use :meth:`open` (a context manager).

    The interface is the part of :class:`ssdlab.Drive` the suites use: ``name``, ``capacity_bytes``,
    ``now_s``, ``run``, ``idle`` (real sleep), ``trim`` and ``sanitize`` (hole punching on a file,
    ``blkdiscard`` on a device), ``counters`` and ``config_toml``. ``clone`` and ``scale_capacity`` have no
    real counterpart and raise :class:`ssdlab.WorkloadError` naming the target.
    """

    def __init__(self, path: str, capacity: int, *, created: bool, keep: bool, block: bool) -> None:
        self.path = path
        self._capacity = capacity
        self._created, self._keep, self._block = created, keep, block
        self._ioengine = _ioengine()
        self._direct = self._direct_ok()
        self._t0 = time.monotonic()
        self._host = dict.fromkeys(_HOST_COUNTERS, 0.0)
        self.fio_version = subprocess.run(["fio", "--version"], capture_output=True, text=True).stdout.strip()
        #: Called with each run's result, as :attr:`ssdlab.Drive.on_run` (the series recorder hooks here).
        self.on_run: Callable[[Result], None] | None = None

    @classmethod
    def open(
        cls,
        path: str | Path,
        size: int | str | None = None,
        *,
        destroy_data: bool = False,
        keep: bool = False,
    ) -> Target:
        """Open ``path`` for benchmarking after the safety checks (see the module docs).

        ``size``: the size of a new file (default 1 GiB); an existing file or block device has its own
        size, and a ``size`` for one is refused.
        """
        if shutil.which("fio") is None:
            raise _refuse("fio is not installed; `make sysdeps` installs Debian's fio", str(path))
        p = str(path)
        if size is not None and os.path.exists(p):  # its size is its own: a size given would be ignored
            raise workload_error(
                "target_size",
                f"is the size of a new file; {p} exists: drop it (the target's own size is used)",
                size,
            )
        if os.path.exists(p) and stat.S_ISBLK(os.stat(p).st_mode):
            problem = _block_device_problem(p)
            if problem and not destroy_data:
                raise _refuse(f"{p} {problem}; pass --destroy-data to overwrite it", p)
            with open(p, "rb") as f:
                capacity = f.seek(0, os.SEEK_END)
            return cls(p, capacity, created=False, keep=True, block=True)
        if os.path.exists(p):
            if not os.path.isfile(p):
                raise _refuse(f"{p} is neither a regular file nor a block device", p)
            if not destroy_data:
                why = _signature(p)
                why = f" and {why}" if why else ""
                raise _refuse(f"{p} exists{why}; pass --destroy-data to overwrite it, or name a new file", p)
            capacity = os.path.getsize(p) // PAGE * PAGE  # whole 4 KiB pages: a tail is never touched
            if capacity < 1 << 20:
                raise _refuse(f"{p} holds {os.path.getsize(p)} bytes: a target needs at least 1 MiB", p)
            return cls(p, capacity, created=False, keep=True, block=False)
        capacity = (1 << 30) if size is None else parse_size(size, "target_size")
        if capacity < 1 << 20 or capacity % PAGE:
            raise workload_error("target_size", "must be at least 1 MiB and a multiple of 4 KiB", size)
        folder = os.path.dirname(os.path.abspath(p))
        if not os.path.isdir(folder):
            raise _refuse(f"folder {folder} does not exist", p)
        free = shutil.disk_usage(folder).free
        if capacity > free:
            raise workload_error(
                "target_size",
                f"{format_size(capacity)} does not fit the free space of {folder} ({format_size(free)})",
                size,
            )
        fd = os.open(p, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        try:
            os.posix_fallocate(fd, 0, capacity)
        except OSError:
            os.ftruncate(fd, capacity)  # a filesystem without fallocate (tmpfs on old kernels)
        finally:
            os.close(fd)
        return cls(p, capacity, created=True, keep=keep, block=False)

    def _direct_ok(self) -> bool:
        """O_DIRECT where the target allows it (tmpfs, for one, does not)."""
        try:
            fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_DIRECT", 0))
        except OSError:
            return False
        os.close(fd)
        return True

    def __enter__(self) -> Target:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Remove the file if this target created it and ``keep`` was not asked for."""
        if self._created and not self._keep and os.path.exists(self.path):
            os.remove(self.path)

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    @property
    def capacity_bytes(self) -> int:
        return self._capacity

    @property
    def now_s(self) -> float:
        """Wall-clock seconds since the target was opened (a real drive's time is the wall's)."""
        return time.monotonic() - self._t0

    def config_toml(self) -> str:
        """Not a drive's parameters: what was measured, and how, as TOML comments and keys."""
        return (
            f'{TARGET_MARK}\ntarget = "{self.path}"\n'
            f"capacity_bytes = {self._capacity}\nblock_device = {str(self._block).lower()}\n"
            f'fio = "{self.fio_version}"\nioengine = "{self._ioengine}"\n'
            f"direct = {str(self._direct).lower()}\n"
        )

    def counters(self) -> Counters:
        """fio's host counters so far; every counter inside the drive is NaN (not visible from the host)."""
        return Counters({name: self._host.get(name, math.nan) for name in REGISTRY})

    def run(
        self, workload: Workload | Sequence[Workload], progress: Callable[[float], None] | None = None
    ) -> Result:
        """Run ``workload`` (several specs at once, as one fio group) on the target through fio."""
        specs = [workload] if isinstance(workload, Workload) else list(workload)
        for w in specs:
            n = w.to_native()
            end = int(n["offset"]) + (int(n["size"]) or self._capacity - int(n["offset"]))
            if end > self._capacity:
                raise workload_error(
                    "size", f"offset + size must fit the target ({self._capacity} bytes)", end
                )
        if any(w.log_ios for w in specs):
            raise workload_error(
                "log_ios", f"{IO_LOG_REFUSED} (ssdlab fio writes the same per-IO log for the twin)", True
            )
        if len(specs) > 1 and any(w.steadystate_group for w in specs):
            # fio's group_reporting would merge every spec of the run into one job entry
            raise workload_error(
                "steadystate_group",
                "a group's steady state on a real target needs the workload run alone (fio reports a "
                "group as one job)",
                True,
            )
        interval_ms = max(1, parse_time_ns(specs[0].interval, "interval") // 1_000_000)
        with tempfile.TemporaryDirectory(prefix="ssdlab-fio-") as tmp:
            log = f"{tmp}/j"
            args = [
                "fio",
                "--output-format=json",
                f"--output={tmp}/out.json",
                "--lat_percentiles=1",
                "--clat_percentiles=0",
                f"--percentile_list={':'.join(map(str, _PERCENTILES))}",
                f"--write_bw_log={log}",
                f"--write_iops_log={log}",
                f"--write_lat_log={log}",
                f"--log_avg_msec={interval_ms}",
            ]
            for i, w in enumerate(specs):
                args += fio_args(
                    w, f"ssdlab{i}", self.path, self._capacity, direct=self._direct, ioengine=self._ioengine
                )
            doc = self._fio(args, specs, progress, Path(tmp) / "out.json")
            series = _series(Path(tmp), interval_ms)
        entries = doc["jobs"]
        run_counters = self._account(entries)
        jobs = [
            _FioRun([e for e in entries if e["jobname"] == f"ssdlab{i}"], run_counters, series)
            for i in range(len(specs))
        ]
        native = _FioRun(entries, run_counters, series, jobs)
        res = Result(native, self.name, specs if len(specs) > 1 else specs[0])  # type: ignore[arg-type]
        if self.on_run is not None:
            self.on_run(res)
        return res

    def _fio(
        self, args: list[str], specs: list[Workload], progress: Callable[[float], None] | None, out: Path
    ) -> dict[str, Any]:
        expected = (
            max(
                (parse_time_ns(w.runtime, "runtime") + parse_time_ns(w.ramp_time, "ramp_time")) / 1e9
                for w in specs
                if w.runtime is not None
            )
            if any(w.runtime is not None for w in specs)
            else 0.0
        )
        start = time.monotonic()
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        while proc.poll() is None:
            if progress is not None and expected:
                progress(min(0.99, (time.monotonic() - start) / expected))
            time.sleep(0.1)
        _, err = proc.communicate()
        if proc.returncode != 0 or not out.exists():
            why = _fio_failure(err, out) or f"exit status {proc.returncode}"
            raise workload_error("target", f"fio failed on {self.path}: {why}", self.path)
        if progress is not None:
            progress(1.0)
        doc: dict[str, Any] = json.loads(out.read_text())
        return doc

    def _account(self, entries: list[dict[str, Any]]) -> dict[str, float]:
        run = {
            "host_read_ios": sum(e["read"]["total_ios"] for e in entries),
            "host_read_bytes": sum(e["read"]["io_bytes"] for e in entries),
            "host_write_ios": sum(e["write"]["total_ios"] for e in entries),
            "host_write_bytes": sum(e["write"]["io_bytes"] for e in entries),
            "host_trim_ios": sum(e["trim"]["total_ios"] for e in entries),
        }
        for k, v in run.items():
            self._host[k] += v
        return {name: float(run.get(name, math.nan)) for name in REGISTRY}

    def idle(self, duration: str | int | float) -> None:
        """Let real time pass with no IO."""
        time.sleep(parse_time_ns(duration, "idle") / 1e9)

    def trim(self, offset: int | str, length: int | str) -> None:
        """Deallocate a range: a hole punched in a file, a discard on a block device."""
        start, n = parse_size(offset, "offset"), parse_size(length, "length")
        tool = (
            ["blkdiscard", "-o", str(start), "-l", str(n)]
            if self._block
            else ["fallocate", "--punch-hole", "--keep-size", "-o", str(start), "-l", str(n)]
        )
        done = subprocess.run([*tool, self.path], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise workload_error("target", f"{tool[0]} failed: {done.stderr.strip()}", self.path)
        self._host["host_trim_ios"] += 1

    def sanitize(self) -> None:
        """The nearest a host can come to a purge: deallocate everything."""
        self.trim(0, self._capacity)

    def clone(self) -> Target:
        raise _refuse("a real target cannot be cloned (the suite needs a simulated drive)", self.path)

    def scale_capacity(self, *args: object, **kwargs: object) -> Target:
        raise _refuse("a real target cannot be scaled down (the suite needs a simulated drive)", self.path)

    def __repr__(self) -> str:
        return f"Target(path={self.path!r}, capacity_bytes={self._capacity})"
