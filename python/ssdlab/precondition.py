"""Drive state and preconditioning: fresh-out-of-box, sequential fills, random fragmentation, SNIA PTS
workload-independent preconditioning, TRIM, purge, and the SNIA PTS steady-state test.

Every function takes a :class:`ssdlab.Drive` and changes its state in place (take a ``drive.clone()``
first to keep the original: a preconditioned state can be cloned and reused by several tests). The writing
functions return a :class:`Phase` with what they did (host bytes, simulated time, the change in the drive's
counters) and take an optional ``progress(fraction_done, what)`` hook like the suites.

Purge is an NVMe sanitize (:meth:`ssdlab.Drive.sanitize`): every written block is erased and the map
emptied, while wear, counters and the clock carry on, as on a real drive. :func:`fresh` instead builds a new
drive from the same config: fresh out of the box, counters and clock at zero.

Examples
--------
>>> import ssdlab
>>> from ssdlab import precondition
>>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
>>> phase = precondition.sequential_fill(drive)
>>> drive.counters()["mapped_bytes"] == drive.capacity_bytes, phase.host_bytes == drive.capacity_bytes
(True, True)
>>> precondition.steady_state([100, 101, 99, 100, 100]).steady
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ssdlab._core import NativeDrive
from ssdlab.counters import Counters
from ssdlab.counters import delta as counter_delta
from ssdlab.drive import Drive
from ssdlab.errors import workload_error
from ssdlab.suites._common import Progress, scaled
from ssdlab.units import PAGE, parse_size
from ssdlab.workload import Workload

__all__ = [
    "Phase",
    "Progress",
    "SteadyState",
    "first_steady_round",
    "fresh",
    "prefill_workload",
    "purge",
    "random_fragment",
    "sequential_fill",
    "settle",
    "snia_wipc",
    "steady_state",
    "trim_all",
    "write_span",
]


@dataclass
class Phase:
    """What one preconditioning step did."""

    name: str
    #: Host bytes written (or trimmed, for :func:`trim_all`).
    host_bytes: int = 0
    #: Simulated time the step took.
    elapsed_s: float = 0.0
    #: Change in the drive's counters over the step (levels such as ``mapped_bytes`` are the value after it),
    #: with ``waf`` = NAND bytes programmed / host bytes written over the step.
    counters: Counters = field(default_factory=Counters)

    @property
    def mbps(self) -> float:
        """Host decimal MB per simulated second over the step."""
        return self.host_bytes / 1e6 / self.elapsed_s if self.elapsed_s else 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "host_bytes": self.host_bytes,
            "elapsed_s": self.elapsed_s,
            "mbps": self.mbps,
            "counters": self.counters,
        }


#: The longest :func:`settle` idles, seconds.
SETTLE_MAX_S = 600
#: What :func:`settle` idles a real target, whose background work the host cannot see, seconds.
SETTLE_REAL_S = 10


def settle(drive: Drive, max_s: int = SETTLE_MAX_S) -> int:
    """Idle ``drive`` a second at a time until its background work (idle folding of the SLC cache, idle
    GC) is done, at most ``max_s`` seconds, as a reviewer leaves a drive before measuring it; returns the
    seconds idled (the last, quiet one included). A real target (:class:`ssdlab.target.Target`) cannot
    show its dies' work: it idles :data:`SETTLE_REAL_S` (at most ``max_s``).

    Examples
    --------
    >>> import ssdlab
    >>> drive = ssdlab.Drive.from_preset("bg4-128gb", capacity_gb=8)
    >>> settle(drive)  # nothing written: one quiet second
    1
    """
    busy = drive.counters()["die_busy_ns"]
    if busy != busy:  # NaN: a real target
        waited = min(SETTLE_REAL_S, max_s)
        drive.idle(f"{waited}s")
        return waited
    for waited in range(1, max_s + 1):
        drive.idle("1s")
        now = drive.counters()["die_busy_ns"]
        if now == busy:
            return waited
        busy = now
    return max_s


def write_span(
    drive: Drive,
    offset: int,
    length: int,
    bs: int = 128 << 10,
    iodepth: int = 32,
    seed: int = 1,
    progress: Callable[[float], None] | None = None,
) -> None:
    """Write ``[offset, offset + length)`` once, sequentially, with ``bs`` writes at ``iodepth``.

    A sequential job whose span is not a whole number of blocks would wrap around to its first block for
    the last IO, so the span is written as whole ``bs`` blocks and the remainder (a multiple of 4 KiB) with
    one 4 KiB job after it.

    Examples
    --------
    >>> import ssdlab
    >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
    >>> write_span(drive, 0, (1 << 20) + 8192)
    >>> int(drive.counters()["mapped_bytes"]), int(drive.counters()["host_write_bytes"])
    (1056768, 1056768)
    """
    if offset % PAGE or length % PAGE:
        raise workload_error("length", f"offset and length must be multiples of 4 KiB (got {length})", length)
    whole = length // bs * bs
    tail = length - whole
    if whole:
        w = Workload(rw="write", bs=bs, iodepth=iodepth, offset=offset, size=whole, seed=seed)
        drive.run(w, progress)
    if tail:
        w = Workload(rw="write", bs=PAGE, iodepth=iodepth, offset=offset + whole, size=tail, seed=seed)
        drive.run(w)


def purge(drive: Drive, progress: Progress | None = None) -> Drive:
    """SNIA PTS purge: sanitize ``drive`` (block erase) in place. Returns the same ``drive`` object.

    Every block holding data is erased (taking its erase time) and the map emptied; wear, counters and the
    clock carry on.

    Examples
    --------
    >>> import ssdlab
    >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
    >>> _ = drive.run(ssdlab.Workload(rw="randwrite", size="256m", iodepth=8))
    >>> c = purge(drive).counters()
    >>> c["mapped_bytes"], c["host_write_bytes"] > 0
    (0.0, True)
    """
    if progress is not None:
        progress(0.0, "purge")
    drive.sanitize()
    if progress is not None:
        progress(1.0, "purge")
    return drive


def fresh(drive: Drive, progress: Progress | None = None) -> Drive:
    """Fresh-out-of-box (FOB): ``drive`` becomes a new drive of the same config, in place.

    Nothing mapped, every block erased, no wear; counters and the clock back to zero.

    Examples
    --------
    >>> import ssdlab
    >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
    >>> _ = sequential_fill(drive)
    >>> c = fresh(drive).counters()
    >>> c["mapped_bytes"], c["host_write_bytes"], drive.now_s
    (0.0, 0.0, 0.0)
    """
    if progress is not None:
        progress(0.0, "fresh")
    # The config TOML is complete (every field is required), so no overrides are needed to rebuild it.
    drive._drive = NativeDrive(drive.config_toml(), [])
    if progress is not None:
        progress(1.0, "fresh")
    return drive


def sequential_fill(
    drive: Drive,
    times: int = 1,
    bs: int | str = "128k",
    iodepth: int = 32,
    progress: Progress | None = None,
) -> Phase:
    """Write the whole user capacity sequentially ``times`` times with ``bs`` writes at ``iodepth``.

    Examples
    --------
    >>> import ssdlab
    >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
    >>> phase = sequential_fill(drive, times=2)
    >>> phase.host_bytes == 2 * drive.capacity_bytes, phase.counters["mapped_bytes"] == drive.capacity_bytes
    (True, True)
    """
    if isinstance(times, bool) or not isinstance(times, int) or times < 1:
        raise workload_error("times", f"must be a whole number of 1 or more (got {times!r})", times)
    block = parse_size(bs, "bs")
    before, t0 = drive.counters(), drive.now_s
    cap = drive.capacity_bytes
    for i in range(times):
        what = f"sequential fill {i + 1}/{times}"
        write_span(
            drive,
            0,
            cap,
            block,
            iodepth,
            seed=i + 1,
            progress=scaled(progress, i / times, (i + 1) / times, what),
        )
    if progress is not None:
        progress(1.0, "sequential fill")
    return Phase(
        f"sequential fill x{times}", times * cap, drive.now_s - t0, counter_delta(before, drive.counters())
    )


def random_fragment(
    drive: Drive,
    bytes: int | str | None = None,
    bs: int | str = "4k",
    iodepth: int = 32,
    seed: int = 1,
    progress: Progress | None = None,
) -> Phase:
    """Random ``bs`` writes over the whole drive at ``iodepth`` until ``bytes`` (default: the capacity) are
    written: the mapping is scattered and GC has work to do.

    Examples
    --------
    >>> import ssdlab
    >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
    >>> phase = random_fragment(drive, bytes="512m")
    >>> phase.host_bytes == 512 << 20, 0 < phase.counters["mapped_bytes"] < 512 << 20
    (True, True)
    """
    amount = drive.capacity_bytes if bytes is None else parse_size(bytes, "bytes")
    block = parse_size(bs, "bs")
    amount = amount // block * block
    if amount <= 0:
        raise workload_error("bytes", f"must be at least one block of {block} bytes", bytes)
    before, t0 = drive.counters(), drive.now_s
    w = Workload(rw="randwrite", bs=block, iodepth=iodepth, io_size=amount, seed=seed)
    drive.run(w, scaled(progress, 0.0, 1.0, "random fragmentation"))
    if progress is not None:
        progress(1.0, "random fragmentation")
    return Phase(f"random {bs} x {amount}", amount, drive.now_s - t0, counter_delta(before, drive.counters()))


def snia_wipc(drive: Drive, progress: Progress | None = None) -> Phase:
    """SNIA PTS workload-independent preconditioning: write 2x the user capacity with 128 KiB sequential
    writes (QD32).

    Examples
    --------
    >>> import ssdlab
    >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
    >>> snia_wipc(drive).counters["host_write_bytes"] == 2 * drive.capacity_bytes
    True
    """
    phase = sequential_fill(drive, times=2, bs="128k", iodepth=32, progress=progress)
    phase.name = "SNIA WIPC (2x capacity, 128 KiB sequential)"
    return phase


def trim_all(drive: Drive, progress: Progress | None = None) -> Phase:
    """Deallocate (TRIM) the whole user capacity. The data is gone; the blocks it sat in become GC's.

    Examples
    --------
    >>> import ssdlab
    >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
    >>> _ = random_fragment(drive, bytes="64m")
    >>> trim_all(drive).counters["mapped_bytes"]
    0.0
    """
    before, t0 = drive.counters(), drive.now_s
    if progress is not None:
        progress(0.0, "trim")
    drive.trim(0, drive.capacity_bytes)
    if progress is not None:
        progress(1.0, "trim")
    return Phase("trim all", drive.capacity_bytes, drive.now_s - t0, counter_delta(before, drive.counters()))


# ------------------------------------------------------------------------------------------- steady state


@dataclass(frozen=True)
class SteadyState:
    """The SNIA PTS steady-state verdict over the last ``window`` rounds of a tracking variable.

    ``data_excursion`` is max - min over the window and ``slope_excursion`` is |least-squares slope| x
    window (rounds are x = 1, 2, ...); each is also given as a fraction of the window average
    (``*_fraction``) to compare with its limit.
    """

    steady: bool
    rounds: int
    window: tuple[float, ...]
    average: float
    data_excursion: float
    slope: float
    slope_excursion: float
    data_limit: float
    slope_limit: float
    reason: str

    @property
    def data_excursion_fraction(self) -> float:
        return self.data_excursion / abs(self.average) if self.average else 0.0

    @property
    def slope_excursion_fraction(self) -> float:
        return self.slope_excursion / abs(self.average) if self.average else 0.0

    def to_dict(self) -> dict[str, object]:
        return {
            "steady": self.steady,
            "rounds": self.rounds,
            "window": list(self.window),
            "average": self.average,
            "data_excursion": self.data_excursion,
            "data_excursion_fraction": self.data_excursion_fraction,
            "data_limit": self.data_limit,
            "slope": self.slope,
            "slope_excursion": self.slope_excursion,
            "slope_excursion_fraction": self.slope_excursion_fraction,
            "slope_limit": self.slope_limit,
            "reason": self.reason,
        }


def steady_state(
    rounds: Sequence[float],
    window: int = 5,
    data_excursion: float = 0.20,
    slope_excursion: float = 0.10,
) -> SteadyState:
    """SNIA PTS steady state of a tracking variable (one value per round), over the last ``window`` rounds.

    As ../shared/BENCHMARKS.md states it (SNIA PTS as its open implementations run it): the window is the
    last 5 rounds, checked from round 5; steady when the data excursion (max - min) is at most 20% of the
    window average **and** the slope excursion (least-squares slope x window) is at most 10% of the average.
    (The PTS text measures the fitted line's own excursion, slope x (window - 1); slope x window is the
    slightly stricter form given there.)

    Examples
    --------
    Hand-computed: mean 100; max - min = 4 <= 20; slope = 3/10 = 0.3 per round, x 5 = 1.5 <= 10:

    >>> s = steady_state([98, 102, 99, 101, 100])
    >>> s.steady, s.average, s.data_excursion, round(s.slope, 6), round(s.slope_excursion, 6)
    (True, 100.0, 4.0, 0.3, 1.5)

    A steady climb: data excursion 20 is allowed (<= 20% of 100), but slope 5 x 5 = 25 > 10 is not:

    >>> s = steady_state([90, 95, 100, 105, 110])
    >>> s.steady, s.data_excursion, s.slope_excursion, s.reason
    (False, 20.0, 25.0, 'slope excursion 25 > 10 (10% of the average 100)')
    >>> steady_state([1000, 500, 100, 100, 100, 100, 100]).steady    # only the last 5 rounds count
    True
    >>> steady_state([100, 100, 100]).reason
    'only 3 rounds; the window needs 5'
    """
    if isinstance(window, bool) or not isinstance(window, int) or window < 2:
        raise workload_error("window", f"must be a whole number of 2 or more (got {window!r})", window)
    for name, limit in (("data_excursion", data_excursion), ("slope_excursion", slope_excursion)):
        if not 0 <= limit:
            raise workload_error(name, f"must be 0 or more (got {limit!r})", limit)
    values = [float(v) for v in rounds]
    n = len(values)
    if n < window:
        tail = tuple(values)
        avg = sum(tail) / len(tail) if tail else 0.0
        return SteadyState(
            False, n, tail, avg, 0.0, 0.0, 0.0, data_excursion * abs(avg), slope_excursion * abs(avg),
            f"only {n} rounds; the window needs {window}",
        )  # fmt: skip
    y = values[-window:]
    avg = sum(y) / window
    spread = max(y) - min(y)
    # Least squares over x = 1..window: slope = sum((x - xm)(y - ym)) / sum((x - xm)^2).
    xm = (window + 1) / 2
    sxx = sum((x - xm) ** 2 for x in range(1, window + 1))
    slope = sum((x - xm) * (v - avg) for x, v in zip(range(1, window + 1), y, strict=True)) / sxx
    slope_exc = abs(slope) * window
    data_lim = data_excursion * abs(avg)
    slope_lim = slope_excursion * abs(avg)
    data_ok = spread <= data_lim
    slope_ok = slope_exc <= slope_lim
    if data_ok and slope_ok:
        reason = "steady"
    elif not data_ok:
        reason = f"data excursion {spread:g} > {data_lim:g} ({data_excursion:.0%} of the average {avg:g})"
    else:
        reason = (
            f"slope excursion {slope_exc:g} > {slope_lim:g} ({slope_excursion:.0%} of the average {avg:g})"
        )
    return SteadyState(
        data_ok and slope_ok, n, tuple(y), avg, spread, slope, slope_exc, data_lim, slope_lim, reason
    )


def first_steady_round(
    rounds: Sequence[float],
    window: int = 5,
    data_excursion: float = 0.20,
    slope_excursion: float = 0.10,
) -> int | None:
    """The first round count (from ``window`` on) at which :func:`steady_state` says steady, or None.

    Examples
    --------
    >>> first_steady_round([500, 300, 200, 100, 100, 100, 100, 100, 100])
    8
    """
    for n in range(window, len(rounds) + 1):
        if steady_state(rounds[:n], window, data_excursion, slope_excursion).steady:
            return n
    return None


def prefill_workload(w: Workload) -> Workload:
    """The fill ``--prefill`` (``ssdlab workload``, sweeps) writes before ``w``: its region, sequentially,
    128 KiB at queue depth 32.

    Examples
    --------
    >>> f = prefill_workload(Workload(rw="randread", offset="1g", size="8g", runtime="1s"))
    >>> f.rw, f.bs, f.iodepth, f.offset, f.size, f.runtime
    ('write', '128k', 32, '1g', '8g', None)
    """
    return Workload(rw="write", bs="128k", iodepth=32, offset=w.offset, size=w.size, seed=w.seed)
