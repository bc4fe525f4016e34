"""What a run measured: throughput, latency distributions, per-interval series and drive counters."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ssdlab._core import NativeLatency, NativeResult, version
from ssdlab.counters import Counters
from ssdlab.workload import Workload

__all__ = ["REPORTED_PERCENTILES", "Direction", "IoLog", "JobResult", "Latency", "Result", "Series"]

#: Percentiles written out by :meth:`Latency.to_dict` (plus the maximum).
REPORTED_PERCENTILES = (50.0, 90.0, 99.0, 99.9, 99.99)

FloatArray = npt.NDArray[np.float64]


class Latency:
    """A completion-latency distribution (HDR histogram, 3 significant digits), in microseconds.

    Examples
    --------
    >>> import ssdlab
    >>> drive = ssdlab.Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
    >>> lat = drive.run(ssdlab.Workload(rw="randwrite", size="64m", runtime="50ms")).latency
    >>> lat.min_us <= lat.mean_us <= lat.percentile(99.99) <= lat.max_us
    True
    """

    def __init__(self, native: NativeLatency) -> None:
        self._lat = native

    @property
    def count(self) -> int:
        """IOs measured."""
        return self._lat.count

    @property
    def mean_us(self) -> float:
        return self._lat.mean_ns / 1e3

    @property
    def min_us(self) -> float:
        return self._lat.min_ns / 1e3

    @property
    def max_us(self) -> float:
        return self._lat.max_ns / 1e3

    @property
    def stdev_us(self) -> float:
        return self._lat.stdev_ns / 1e3

    def percentile(self, p: float) -> float:
        """Latency at percentile ``p`` (0..100), in microseconds."""
        return self._lat.percentile_ns(p) / 1e3

    def to_dict(self) -> dict[str, object]:
        """count, mean/min/max/stdev and the :data:`REPORTED_PERCENTILES`, in microseconds."""
        return {
            "count": self.count,
            "mean_us": self.mean_us,
            "min_us": self.min_us,
            "max_us": self.max_us,
            "stdev_us": self.stdev_us,
            "percentiles_us": {f"{p:g}": self.percentile(p) for p in REPORTED_PERCENTILES},
        }

    def __repr__(self) -> str:
        return f"Latency(count={self.count}, mean_us={self.mean_us:.1f}, max_us={self.max_us:.1f})"


@dataclass(frozen=True)
class Direction:
    """Totals of one direction (reads, writes or trims) over the measured time."""

    ios: int
    bytes: int
    elapsed_s: float
    latency: Latency

    @property
    def mbps(self) -> float:
        """Decimal MB per simulated second, as reviewers print."""
        return self.bytes / 1e6 / self.elapsed_s if self.elapsed_s else 0.0

    @property
    def iops(self) -> float:
        return self.ios / self.elapsed_s if self.elapsed_s else 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "ios": self.ios,
            "bytes": self.bytes,
            "mbps": self.mbps,
            "iops": self.iops,
            "latency": self.latency.to_dict(),
        }


@dataclass(frozen=True)
class Series:
    """Per-interval columns, one value per interval; ``time_s`` is the end of each interval."""

    time_s: FloatArray
    read_mbps: FloatArray
    write_mbps: FloatArray
    iops: FloatArray
    mean_latency_us: FloatArray
    max_latency_us: FloatArray
    #: Latency percentiles of the interval's IOs (p50, p99, p99.9), us: the middle of a histogram bucket a
    #: quarter of an octave wide, so within 12.5% (the run's own percentiles are exact to 3 digits).
    p50_latency_us: FloatArray
    p99_latency_us: FloatArray
    p999_latency_us: FloatArray
    #: The drive's average power over each interval (the power model's samples), W.
    power_w: FloatArray
    #: SMART composite temperature at the end of each interval, C.
    temperature_c: FloatArray
    #: IOs per second and mean latency of each direction (what fio's averaged logs print per direction).
    read_iops: FloatArray
    write_iops: FloatArray
    read_mean_latency_us: FloatArray
    write_mean_latency_us: FloatArray

    @classmethod
    def from_native(cls, columns: dict[str, list[float]]) -> Series:
        return cls(**{name: np.asarray(columns[name], dtype=np.float64) for name in cls.__dataclass_fields__})

    def to_dict(self) -> dict[str, list[float]]:
        return {name: getattr(self, name).tolist() for name in self.__dataclass_fields__}

    def __len__(self) -> int:
        return len(self.time_s)


class _Measured:
    """Throughput and latency of a set of IOs over the measured time (shared by runs and their jobs)."""

    def __init__(self, native: NativeResult) -> None:
        self._res = native

    @property
    def elapsed_s(self) -> float:
        """Measured simulated time."""
        return self._res.elapsed_ns / 1e9

    @property
    def read(self) -> Direction:
        return Direction(self._res.read_ios, self._res.read_bytes, self.elapsed_s, self.latency_of("read"))

    @property
    def write(self) -> Direction:
        return Direction(self._res.write_ios, self._res.write_bytes, self.elapsed_s, self.latency_of("write"))

    @property
    def trim(self) -> Direction:
        """Trims (deallocations): counted apart from reads and writes, as fio does; ``bytes`` is what they
        deallocated."""
        return Direction(self._res.trim_ios, self._res.trim_bytes, self.elapsed_s, self.latency_of("trim"))

    @property
    def trim_ios(self) -> int:
        return self._res.trim_ios

    @property
    def iops(self) -> float:
        """Reads + writes per simulated second."""
        return self.read.iops + self.write.iops

    @property
    def bandwidth_mbps(self) -> float:
        """Reads + writes in decimal MB per simulated second."""
        return self.read.mbps + self.write.mbps

    @property
    def latency(self) -> Latency:
        """Latency of reads and writes together."""
        return self.latency_of("all")

    def latency_of(self, which: str) -> Latency:
        """``"all"`` (reads and writes), ``"read"``, ``"write"`` or ``"trim"``."""
        return Latency(self._res.latency(which))

    @property
    def series(self) -> Series:
        return Series.from_native(self._res.series)

    @property
    def steadystate(self) -> dict[str, Any] | None:
        """fio's steady-state check (a workload with ``steadystate_duration``), else None: ``ss`` (the
        criterion as fio prints it), ``attained``, ``criterion`` (its last value, percent when ``pct``),
        ``max_deviation``, ``slope`` and the window's samples, oldest first (``iops``, ``bw`` in bytes/s,
        ``lat_ns``)."""
        return self._res.steadystate

    @property
    def io_log(self) -> IoLog | None:
        """Every IO measured, when asked for (:attr:`Workload.log_ios`, ``Drive.replay(log_ios=True)``),
        else None. A run of several specs keeps each spec's log with its job (``res.jobs[i].io_log``)."""
        native = self._res.io_log
        if native is None and len(self._res.jobs) == 1:  # one spec, or a replay: the log is its job's
            native = self._res.jobs[0].io_log
        return None if native is None else IoLog.from_native(native)

    def _measures(self) -> dict[str, object]:
        steadystate = self.steadystate
        ss = {} if steadystate is None else {"steadystate": steadystate}
        return {
            "elapsed_s": self.elapsed_s,
            "iops": self.iops,
            "bandwidth_mbps": self.bandwidth_mbps,
            "latency": self.latency.to_dict(),
            "read": self.read.to_dict(),
            "write": self.write.to_dict(),
            "trim_ios": self.trim_ios,
            "trim": self.trim.to_dict(),
            **ss,
        }


#: The operations of :attr:`IoLog.op`, by code.
IO_OPS = ("read", "write", "trim", "flush")

U64Array = npt.NDArray[np.uint64]


@dataclass(frozen=True)
class IoLog:
    """Every IO a run measured, one row each in completion order: what a histogram cannot give (fio's
    per-IO latency log, a trace study's own analysis of each request). Times are simulated ns since the
    drive was made; ``op`` indexes :data:`IO_OPS`.

    Examples
    --------
    >>> import ssdlab
    >>> drive = ssdlab.Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
    >>> res = drive.run(ssdlab.Workload(rw="randwrite", size="64m", runtime="1ms", log_ios=True))
    >>> log = res.io_log
    >>> len(log) == res.write.ios, log.ops[0], bool((log.latency_ns > 0).all())
    (True, 'write', True)
    """

    submit_ns: U64Array
    complete_ns: U64Array
    op: npt.NDArray[np.uint8]
    offset: U64Array
    len: U64Array

    @classmethod
    def from_native(cls, cols: dict[str, bytes]) -> IoLog:
        u64 = {k: np.frombuffer(cols[k], dtype="<u8") for k in ("submit_ns", "complete_ns", "offset", "len")}
        return cls(op=np.frombuffer(cols["op"], dtype=np.uint8), **u64)

    def __len__(self) -> int:
        return int(self.op.size)

    @property
    def latency_ns(self) -> U64Array:
        """Submission to completion, per IO."""
        return self.complete_ns - self.submit_ns

    @property
    def ops(self) -> list[str]:
        """Each IO's operation by name."""
        return [IO_OPS[i] for i in self.op]

    def write(self, path: str | Path) -> Path:
        """Write the log as CSV (``.csv``) or Parquet (any other name): ``submit_ns``, ``complete_ns``,
        ``latency_ns``, ``op``, ``offset``, ``length``, one row per IO. Returns the path."""
        import pyarrow as pa  # type: ignore[import-untyped]
        import pyarrow.csv as pa_csv  # type: ignore[import-untyped]
        import pyarrow.parquet as pq  # type: ignore[import-untyped]

        table = pa.table(
            {
                "submit_ns": self.submit_ns,
                "complete_ns": self.complete_ns,
                "latency_ns": self.latency_ns,
                "op": np.array(IO_OPS)[self.op],
                "offset": self.offset,
                "length": self.len,
            }
        )
        out = Path(path)
        if out.suffix.lower() == ".csv":
            pa_csv.write_csv(table, out)
        else:
            pq.write_table(table, out)
        return out


class JobResult(_Measured):
    """What one job spec of a run measured (its own IOs; the drive's counters are the run's).

    Examples
    --------
    >>> import ssdlab
    >>> drive = ssdlab.Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
    >>> res = drive.run([ssdlab.Workload(rw="randread", size="1g", runtime="20ms"),
    ...                  ssdlab.Workload(rw="write", bs="128k", offset="2g", size="1g", runtime="20ms")])
    >>> [job.workload.rw for job in res.jobs], res.jobs[1].read.ios
    (['randread', 'write'], 0)
    """

    def __init__(self, native: NativeResult, workload: Workload) -> None:
        super().__init__(native)
        self.workload = workload

    def to_dict(self) -> dict[str, object]:
        return {"workload": self.workload.to_dict(), **self._measures(), "series": self.series.to_dict()}

    def __repr__(self) -> str:
        return (
            f"JobResult(rw={self.workload.rw!r}, iops={self.iops:.0f}, "
            f"bandwidth_mbps={self.bandwidth_mbps:.1f}, mean_latency_us={self.latency.mean_us:.1f})"
        )


class Result(_Measured):
    """The result of one :meth:`ssdlab.Drive.run`.

    Rates are over the measured time (after ``ramp_time``, to the last completion), in decimal MB/s and IOs
    per simulated second. ``counters`` are the change in the drive's counters over the run (see
    :mod:`ssdlab.counters`: levels are the value at the end, ``waf`` and the other derived counters the
    run's own). A run of several job specs reports the group here (fio's ``group_reporting``) and each
    spec in :attr:`jobs`.

    Examples
    --------
    >>> import ssdlab
    >>> drive = ssdlab.Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
    >>> res = drive.run(ssdlab.Workload(rw="write", bs="128k", iodepth=32, size="256m"))
    >>> res.write.bytes == 256 << 20, res.read.ios
    (True, 0)
    >>> round(res.counters["waf"], 2), len(res.series) > 0   # NAND bytes programmed / host bytes written
    (1.0, True)
    """

    def __init__(
        self,
        native: NativeResult,
        preset: str,
        workloads: Workload | list[Workload],
        source: str | None = None,
    ) -> None:
        super().__init__(native)
        self.preset = preset
        #: The job specs of the run, in the order given (none for a trace replay).
        self.workloads = workloads if isinstance(workloads, list) else [workloads]
        #: The trace a replay read (None for a run of workloads).
        self.source = source
        #: Lines of the trace read, and bad ones skipped (a replay with ``skip_bad``).
        self.lines_read, self.skipped_lines = 0, 0
        #: Requests recorded before one ahead of them in the trace (a replay at recorded times): the clock
        #: never runs back, so each went in when its turn came, in file order.
        self.late_requests = 0

    @property
    def workload(self) -> Workload:
        """The first (for a one-job run, the only) job spec; a replay has none."""
        if not self.workloads:
            raise AttributeError(f"a replay of {self.source} has no workload; see .source")
        return self.workloads[0]

    @property
    def jobs(self) -> list[JobResult]:
        """One result per job spec, in the order given."""
        return [JobResult(j, w) for j, w in zip(self._res.jobs, self.workloads, strict=False)]

    @property
    def groups(self) -> dict[int, Result]:
        """A run of job specs in several reporting groups (:attr:`Workload.group`): each group's jobs measured
        as one (fio's ``group_reporting``), by group id; empty when every spec is in one group (the run is
        that group). The drive's counters belong to the run, so a group's are empty.

        Examples
        --------
        >>> import ssdlab
        >>> drive = ssdlab.Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
        >>> r = ssdlab.Workload(rw="randread", size="1g", runtime="20ms", group=0)
        >>> w = ssdlab.Workload(rw="randwrite", offset="2g", size="1g", runtime="20ms", group=1)
        >>> res = drive.run([r, r, w])
        >>> res.groups[0].read.ios == res.jobs[0].read.ios + res.jobs[1].read.ios, res.groups[1].read.ios
        (True, 0)
        """
        return {
            g: Result(n, self.preset, [w for w in self.workloads if w.group == g])
            for g, n in self._res.groups.items()
        }

    @property
    def counters(self) -> Counters:
        """Every counter's change over the run, by name; an unknown name raises
        :class:`ssdlab.counters.UnknownCounterError`."""
        return Counters(self._res.counters)

    @property
    def energy_j(self) -> float:
        """Energy the drive used over the run (all of it: operations, controller, link, idle), J."""
        return float(self.counters["energy_j"])

    @property
    def avg_power_w(self) -> float:
        """Average power over the run (``energy_j`` over the simulated time the run took), W."""
        return float(self.counters["avg_power_w"])

    @property
    def max_power_w(self) -> float:
        """Highest power of one interval of the run (``Workload.interval`` wide), W: the whole intervals,
        and the last, partial one over the time it covers if that is half an interval or the run is shorter
        than one.

        Examples
        --------
        >>> import ssdlab
        >>> drive = ssdlab.Drive.from_preset("bg4-128gb")
        >>> res = drive.run(ssdlab.Workload(rw="write", bs="128k", iodepth=32, size="1g", interval="10ms"))
        >>> 0 < res.avg_power_w <= res.max_power_w < 10, len(res.series.power_w) == len(res.series)
        (True, True)
        """
        return self._res.max_power_w

    @property
    def energy_per_io_uj(self) -> float:
        """Energy per host read or write over the run, uJ."""
        return float(self.counters["energy_per_io_uj"])

    @property
    def mbps_per_w(self) -> float:
        """Throughput per watt as AnandTech reports it: MB/s over the run's average power."""
        return self.bandwidth_mbps / self.avg_power_w if self.avg_power_w else 0.0

    @property
    def mw_per_mbps(self) -> float:
        """The KIOXIA BG4 brief's power efficiency: the highest interval's power in mW per MB/s of
        throughput (run with ``interval="10ms"`` for the brief's 10 ms samples)."""
        return self.max_power_w * 1e3 / self.bandwidth_mbps if self.bandwidth_mbps else 0.0

    @property
    def die_utilisation(self) -> FloatArray:
        """Busy share of each die over the run."""
        return np.asarray(self._res.die_utilisation, dtype=np.float64)

    def to_dict(self) -> dict[str, object]:
        """Everything, JSON-ready, with the preset, seed and ssdlab version that produced it."""
        origin: dict[str, object] = (
            {"seed": self.workload.seed, "workload": self.workload.to_dict()}
            if self.workloads
            else {
                "trace": self.source,
                "lines_read": self.lines_read,
                "skipped_lines": self.skipped_lines,
                "late_requests": self.late_requests,
            }
        )
        out: dict[str, object] = {
            "ssdlab_version": version(),
            "preset": self.preset,
            **origin,
            **self._measures(),
            "counters": self.counters,
            "die_utilisation": self.die_utilisation.tolist(),
            "power": {
                "energy_j": self.energy_j,
                "avg_power_w": self.avg_power_w,
                "max_power_w": self.max_power_w,
                "energy_per_io_uj": self.energy_per_io_uj,
                "mbps_per_w": self.mbps_per_w,
                "mw_per_mbps": self.mw_per_mbps,
            },
            "series": self.series.to_dict(),
        }
        if len(self.workloads) > 1:
            out["jobs"] = [j.to_dict() for j in self.jobs]
        return out

    def __repr__(self) -> str:
        rw = "+".join(w.rw for w in self.workloads) or f"replay of {self.source}"
        return (
            f"Result(preset={self.preset!r}, rw={rw!r}, iops={self.iops:.0f}, "
            f"bandwidth_mbps={self.bandwidth_mbps:.1f}, mean_latency_us={self.latency.mean_us:.1f})"
        )
