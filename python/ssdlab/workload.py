"""One workload phase in fio's vocabulary."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from typing import Any

from ssdlab._core import check_workload
from ssdlab.errors import nearest, workload_error
from ssdlab.units import parse_size, parse_time_ns

__all__ = ["RW_NAMES", "Workload"]


def _signed_size(value: int | str, field: str) -> int:
    """A size that may step back: ``"-8k"`` is -8192."""
    text = str(value).strip()
    return -parse_size(text[1:], field) if text.startswith("-") else parse_size(value, field)


def _sizes(field: str, text: str, tail: str, sep: str) -> dict[str, str]:
    """fio's ``bssplit`` (``4k/50:64k/50``) or ``bsrange`` (``4k-64k``) with the sizes in bytes, for the
    engine (which parses the rest); nothing when empty.

    Examples
    --------
    >>> _sizes("bssplit", "4k/50:64k", "/", ":"), _sizes("bsrange", "4k-16k", "", "-")
    ({'bssplit': '4096/50:65536'}, {'bsrange': '4096-16384'})
    """
    if not text:
        return {}
    parts = []
    for part in text.split(sep):
        size, slash, pct = part.partition("/") if tail else (part, "", "")
        parts.append(f"{parse_size(size.strip(), field)}{slash}{pct}")
    return {field: sep.join(parts)}


#: fio ``rw`` values the engine runs (``readwrite`` is fio's other name for ``rw``).
RW_NAMES = (
    "read", "write", "randread", "randwrite", "rw", "readwrite", "randrw", "trim", "randtrim", "trimwrite",
    "randtrimwrite",
)  # fmt: skip


@dataclass(frozen=True)
class Workload:
    """What one :meth:`ssdlab.Drive.run` does, named as in fio.

    Sizes take an int (bytes) or a fio size string (``"4k"``, ``"32g"``); times take a string with a unit
    (``"5s"``, ``"100ms"``) or a number in fio's default unit (seconds; microseconds for ``thinktime``).
    All times are simulated. As in fio, ``size`` is the region from ``offset`` the job works on and, unless
    ``time_based``, also how much it moves; ``io_size`` overrides the amount; ``runtime`` caps the time.
    Each of ``numjobs`` jobs keeps ``iodepth`` IOs outstanding, paced by ``rate_iops`` or ``rate`` if set: as
    in fio, a rate caps reads and writes each (``rate_iops=1000`` on ``randrw`` is 1,000 reads and 1,000
    writes a second), unless ``rate_iops_write`` or ``rate_write`` gives the writes their own (fio's
    ``rate_iops=R,W``).

    Parameters
    ----------
    rw : str
        ``read``, ``write``, ``randread``, ``randwrite``, ``rw``, ``randrw``, ``trim``, ``randtrim``,
        ``trimwrite`` or ``randtrimwrite`` (fio's: each block trimmed, then written).
    bs : int or str
        Block size, a multiple of 512 B (a sector; the drive maps 4 KiB pages, so smaller or unaligned
        writes read-modify-write the pages they cover in part).
    iodepth, numjobs : int
        Queue depth per job and number of jobs (CrystalDiskMark's Q and T).
    offset, size, io_size : int or str
        Region start, region length (0 = to the end of the drive), bytes to move (0 = ``size``).
    runtime : str, int, float or None
        Time limit (None = until the bytes are moved).
    time_based : bool
        Keep going over the region until ``runtime`` ends.
    ramp_time : str, int or float
        Time run before measuring starts.
    rwmixread : int
        Percentage of reads in ``rw``/``randrw``.
    rate_iops : int
        IOs per second per job in each direction (0 = as fast as the queue allows).
    rate_iops_write : int or None
        The writes' (and trims') own IOs per second (None = ``rate_iops``; 0 = unlimited).
    thinktime : str, int or float
        Pause before each new IO of a slot (bare number = microseconds, as in fio).
    buffer_compress_percentage : int
        How much of each buffer compresses away (carried for the compression model).
    seed : int
        Seed of the workload's random streams.
    interval : str, int or float
        Width of the per-interval series in the result.
    bs_write : int or str
        Block size of writes when it differs from reads (fio's ``bs=4k,64k``); 0 = ``bs``.
    bssplit, bsrange : str
        fio's weighted sizes (``"4k/50:64k/50"``) or range (``"4k-64k"``, multiples of the low end), in place
        of ``bs``; empty = ``bs``.
    bssplit_write, bsrange_write : str
        The writes' own (fio's ``bssplit=READ,WRITE``); empty = as the reads.
    blockalign : int or str
        Random offsets are multiples of this; 0 = the smallest block size.
    random_distribution : str
        ``random`` (uniform), ``zipf:T``, ``pareto:H``, ``normal:S`` (percent) or ``zoned:A/S:...``.
    percentage_random : int
        Percent of a random workload's IOs at a random offset; the rest follow the previous IO.
    seq_skip : int or str
        Bytes skipped after each sequential IO (fio's ``rw=write:8k``); negative steps back
        (``rw=read:-8k`` with 4 KiB IOs reads backwards).
    offset_increment : int or str
        Job k (of ``numjobs``) starts ``k x offset_increment`` after ``offset``.
    startdelay : str, int or float
        Time before the jobs start.
    rate : int or str
        Bytes per second per job in each direction (0 = unlimited), e.g. ``"10m"``.
    rate_write : int, str or None
        The writes' (and trims') own bytes per second (None = ``rate``; 0 = unlimited).
    rate_process : str
        How rated IOs are spaced (fio's ``rate_process``): ``linear`` (each when the bytes issued are due
        at the rate) or ``poisson`` (open-loop arrivals: exponential gaps whose mean is one smallest IO
        at the rate, seeded).
    thinktime_blocks : int
        IOs issued between think times.
    fsync : int
        A flush after every this many writes (0 = never).
    sync : bool
        Writes with FUA (fio's ``sync=1``).
    loops : int
        Passes over the region when not ``time_based``.
    randommap : bool
        fio's random map (fio's default; ``norandommap`` turns it off): a uniformly random job visits
        each block of its region once a pass, in a random order (with mixed sizes an IO is cut short where
        it meets a block already touched, as in fio). Off here by default
        (blocks drawn with replacement, as the suites were calibrated); the fio runner turns it on as fio
        does.
    verify : bool
        fio's ``verify`` (with ``do_verify``): after each pass of a job's IO, once it has all completed,
        the bytes it wrote are read back in offset order at the job's queue depth (reported as its reads).
        Not with ``time_based``, whose runtime ends the job first, as in fio.
    number_ios : int
        fio's ``number_ios``: each job stops after this many IOs a pass (flushes not counted) if its size
        does not stop it first; ignored when ``time_based``, as in fio. 0 = no limit.
    steadystate : str
        fio's steady-state criterion, ``iops``, ``iops_slope``, ``bw``, ``bw_slope``, ``lat`` or ``lat_slope``
        then ``:LIMIT`` (``%``: of the window's mean); the job stops once it falls below the limit.
    steadystate_duration : str, int or float
        The rolling window it is judged over (fio's ``ss_dur``); 0 = no check.
    steadystate_ramp_time : str, int or float
        Time before the samples start (fio's ``ss_ramp``; they start one check interval after it).
    steadystate_check_interval : str, int or float
        Time between samples (fio's ``ss_interval``, 1 s).
    steadystate_group : bool
        Judge the run's jobs together (fio's ``group_reporting``), not each on its own (the ``numjobs``
        clones of one workload are always judged together).
    exitall : bool
        When one of this workload's jobs finishes, the jobs ``exit_what`` names stop issuing (fio's
        ``exitall``).
    exit_what : str
        Which jobs ``exitall`` stops (fio's ``exit_what``): ``group`` (those of the same ``group``),
        ``stonewall`` (every job running) or ``all`` (and, in a job file, every job after a stonewall too).
    group : int
        fio's reporting group (``new_group``; the fio runner sets it): the jobs ``exit_what="group"`` stops
        together, and those a run of several groups also reports as one (:attr:`Result.groups`).
    log_ios : bool
        Keep a row for every IO this workload's jobs measured (:attr:`Result.io_log`; ~33 bytes an IO):
        fio's per-IO ``write_lat_log``.

    Examples
    --------
    >>> w = Workload(rw="randwrite", bs="4k", iodepth=32, size="8g", runtime="10s")
    >>> w.to_native()["size"], w.to_native()["runtime_ns"]
    (8589934592, 10000000000)
    >>> from ssdlab import WorkloadError
    >>> try:
    ...     Workload(iodepth=0)
    ... except WorkloadError as e:
    ...     print(e)
    iodepth: must be from 1 to 65536 (got 0)
    """

    rw: str = "randread"
    bs: int | str = "4k"
    iodepth: int = 1
    numjobs: int = 1
    offset: int | str = 0
    size: int | str = 0
    io_size: int | str = 0
    runtime: str | int | float | None = None
    time_based: bool = False
    ramp_time: str | int | float = 0
    rwmixread: int = 50
    rate_iops: int = 0
    rate_iops_write: int | None = None
    thinktime: str | int | float = 0
    buffer_compress_percentage: int = 0
    seed: int = 1
    interval: str | int | float = "100ms"
    bs_write: int | str = 0
    bssplit: str = ""
    bsrange: str = ""
    bssplit_write: str = ""
    bsrange_write: str = ""
    blockalign: int | str = 0
    random_distribution: str = "random"
    percentage_random: int = 100
    seq_skip: int | str = 0
    offset_increment: int | str = 0
    startdelay: str | int | float = 0
    rate: int | str = 0
    rate_write: int | str | None = None
    rate_process: str = "linear"
    thinktime_blocks: int = 1
    fsync: int = 0
    sync: bool = False
    loops: int = 1
    number_ios: int = 0
    randommap: bool = False
    verify: bool = False
    steadystate: str = "iops_slope:0.01%"
    steadystate_duration: str | int | float = 0
    steadystate_ramp_time: str | int | float = 0
    steadystate_check_interval: str | int | float = "1s"
    steadystate_group: bool = False
    exitall: bool = False
    exit_what: str = "group"
    group: int = 0
    log_ios: bool = False

    def __post_init__(self) -> None:
        # Fail at construction, naming every bad field, rather than deep inside a suite. Python parses the
        # units; the names, types and ranges are the engine's (the size checks wait for the drive).
        check_workload(self.to_native())

    @property
    def mixed(self) -> bool:
        """Whether the workload mixes reads and writes (``rw``, ``readwrite``, ``randrw``; ``rwmixread``).

        Examples
        --------
        >>> Workload(rw="randrw").mixed, Workload(rw="randwrite").mixed
        (True, False)
        """
        return self.rw in ("rw", "readwrite", "randrw")

    def check_fits(self, capacity_bytes: int) -> None:
        """Raise :class:`ssdlab.WorkloadError` for every problem against a drive of ``capacity_bytes`` (the
        size checks a run makes: the region, the IO count), before any run.

        Examples
        --------
        >>> import ssdlab
        >>> try:
        ...     Workload(offset="1g", size="8g").check_fits(4 << 30)
        ... except ssdlab.WorkloadError as e:
        ...     print(e.field)
        size
        """
        check_workload(self.to_native(), capacity_bytes)

    def to_native(self) -> dict[str, int | str | bool]:
        """The dict :meth:`ssdlab._core.NativeDrive.run` takes: bytes and simulated nanoseconds.

        Examples
        --------
        >>> Workload(bs="128k", thinktime=50).to_native()["thinktime_ns"]
        50000
        """
        return {
            "rw": "rw" if self.rw == "readwrite" else self.rw,
            "bs": parse_size(self.bs, "bs"),
            "iodepth": self.iodepth,
            "numjobs": self.numjobs,
            "offset": parse_size(self.offset, "offset"),
            "size": parse_size(self.size, "size"),
            "io_size": parse_size(self.io_size, "io_size"),
            "runtime_ns": 0 if self.runtime is None else parse_time_ns(self.runtime, "runtime"),
            "time_based": self.time_based,
            "ramp_time_ns": parse_time_ns(self.ramp_time, "ramp_time"),
            "rwmixread": self.rwmixread,
            "rate_iops": self.rate_iops,
            "thinktime_ns": parse_time_ns(self.thinktime, "thinktime", default_unit="us"),
            "buffer_compress_percentage": self.buffer_compress_percentage,
            "seed": self.seed,
            "interval_ns": parse_time_ns(self.interval, "interval"),
            "bs_write": parse_size(self.bs_write, "bs_write"),
            **_sizes("bssplit", self.bssplit, "/", ":"),
            **_sizes("bsrange", self.bsrange, "", "-"),
            **_sizes("bssplit_write", self.bssplit_write, "/", ":"),
            **_sizes("bsrange_write", self.bsrange_write, "", "-"),
            "blockalign": parse_size(self.blockalign, "blockalign"),
            "random_distribution": self.random_distribution,
            "percentage_random": self.percentage_random,
            "seq_skip": _signed_size(self.seq_skip, "seq_skip"),
            "offset_increment": parse_size(self.offset_increment, "offset_increment"),
            "startdelay_ns": parse_time_ns(self.startdelay, "startdelay"),
            "rate_bps": parse_size(self.rate, "rate"),
            **({} if self.rate_iops_write is None else {"rate_iops_write": self.rate_iops_write}),
            **(
                {}
                if self.rate_write is None
                else {"rate_bps_write": parse_size(self.rate_write, "rate_write")}
            ),
            "rate_process": self.rate_process,
            "thinktime_blocks": self.thinktime_blocks,
            "fsync": self.fsync,
            "sync": self.sync,
            "loops": self.loops,
            "number_ios": self.number_ios,
            "randommap": self.randommap,
            "verify": self.verify,
            "steadystate": self.steadystate,
            "steadystate_duration_ns": parse_time_ns(self.steadystate_duration, "steadystate_duration"),
            "steadystate_ramp_time_ns": parse_time_ns(self.steadystate_ramp_time, "steadystate_ramp_time"),
            "steadystate_check_interval_ns": parse_time_ns(
                self.steadystate_check_interval, "steadystate_check_interval"
            ),
            "steadystate_group": self.steadystate_group,
            "exitall": self.exitall,
            "exit_what": self.exit_what,
            "group": self.group,
            "log_ios": self.log_ios,
        }

    def to_dict(self) -> dict[str, object]:
        """The fields as given, for writing out beside a result.

        Examples
        --------
        >>> Workload(bs="1m").to_dict()["bs"]
        '1m'
        """
        return asdict(self)


def _refuse_unknown_fields(init: Callable[..., None]) -> Callable[..., None]:
    """``Workload(iodpeth=4)`` raises a :class:`ssdlab.WorkloadError` naming the field and the nearest
    ones, as every other bad workload input does, not Python's ``TypeError``."""
    names = [f.name for f in fields(Workload)]

    @functools.wraps(init)
    def checked(self: Workload, *args: Any, **kwargs: Any) -> None:
        for key in kwargs:
            if key not in names:
                raise workload_error(
                    key, f"is not a Workload field; {nearest(key, names, 'fields')}", kwargs[key]
                )
        init(self, *args, **kwargs)

    return checked


Workload.__init__ = _refuse_unknown_fields(Workload.__init__)  # type: ignore[method-assign]
