"""A simulated SSD: one native drive whose state persists from run to run."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
import os
from os import PathLike
from pathlib import Path
from typing import NamedTuple

from ssdlab._core import NativeDrive
from ssdlab.errors import config_error, workload_error
from ssdlab.presets import read_preset
from ssdlab.result import Result
from ssdlab.units import parse_size, parse_time_ns
from ssdlab.workload import Workload

__all__ = ["Completion", "Drive", "Overrides", "parse_overrides"]

#: ``--set`` overrides: ``{"nand.tR_us": 50}`` or ``["nand.tR_us=50"]``.
Overrides = Mapping[str, object] | Iterable[str] | None


def parse_overrides(overrides: Overrides) -> list[tuple[str, str]]:
    """``(path, value)`` pairs for the native loader, which keeps each key's TOML type.

    Examples
    --------
    >>> parse_overrides({"nand.tR_us": 50, "nand.one_shot_program": False})
    [('nand.tR_us', '50'), ('nand.one_shot_program', 'false')]
    >>> parse_overrides(["ftl.user_capacity_gb=16"])
    [('ftl.user_capacity_gb', '16')]
    """
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        return [(str(k), _toml_text(v)) for k, v in overrides.items()]
    pairs = []
    for item in overrides:
        path, sep, value = str(item).partition("=")
        if not sep or not path.strip():
            raise config_error("--set", f"{item!r} is not PATH=VALUE (e.g. nand.tR_us=50)", item)
        pairs.append((path.strip(), value.strip()))
    return pairs


def _u64(value: int | str, name: str) -> int:
    """A byte count the engine can hold (it counts in unsigned 64-bit integers)."""
    n = parse_size(value, name)
    if n >= 2**64:
        raise workload_error(name, f"must be below 2**64 bytes (got {n})", n)
    return n


def _toml_text(value: object) -> str:
    # TOML spells booleans in lower case; everything else the loader parses from str().
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class Completion(NamedTuple):
    """A finished command, as :meth:`Drive.poll` returns it. Times are simulated nanoseconds."""

    id: int
    op: str
    offset: int
    length: int
    submit_ns: int
    complete_ns: int
    status: str

    @property
    def latency_us(self) -> float:
        """From submission to completion."""
        return (self.complete_ns - self.submit_ns) / 1e3


class Drive:
    """One simulated SSD. Its state (mapping, blocks, clock) persists across runs and can be cloned.

    Make one with :meth:`from_preset`, :meth:`from_toml` or :meth:`from_toml_str`; ``set`` overrides any
    parameter by its TOML path.

    Examples
    --------
    >>> import ssdlab
    >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16})
    >>> drive.name, drive.capacity_bytes // 10**9
    ('bg4-1tb', 16)
    >>> res = drive.run(ssdlab.Workload(rw="randread", bs="4k", iodepth=32, size="1g", runtime="20ms"))
    >>> res.iops > 0
    True
    >>> snapshot = drive.clone()   # same state; runs on it leave `drive` alone
    """

    def __init__(self, native: NativeDrive) -> None:
        self._drive = native

    @classmethod
    def from_preset(cls, name: str, set: Overrides = None) -> Drive:
        """A built-in preset (see :func:`ssdlab.list_presets`)."""
        return cls.from_toml_str(read_preset(name), set=set)

    @classmethod
    def from_toml(cls, path: str | PathLike[str], set: Overrides = None) -> Drive:
        """A drive described by a TOML file, such as ``ssdlab show`` prints."""
        return cls.from_toml_str(Path(path).read_text(encoding="utf-8"), set=set)

    @classmethod
    def from_toml_str(cls, text: str, set: Overrides = None) -> Drive:
        """A drive described by TOML text."""
        return cls(NativeDrive(text, parse_overrides(set)))

    @property
    def name(self) -> str:
        return self._drive.name

    @property
    def capacity_bytes(self) -> int:
        """Bytes the host can address."""
        return self._drive.capacity_bytes

    @property
    def now_s(self) -> float:
        """Simulated time since the drive was made."""
        return self._drive.now_ns / 1e9

    def config_toml(self) -> str:
        """The full parameter set as TOML that :meth:`from_toml_str` loads back."""
        return self._drive.config_toml()

    def run(
        self,
        workload: Workload | Sequence[Workload],
        progress: Callable[[float], None] | None = None,
    ) -> Result:
        """Play ``workload`` from the drive's current state; ``progress`` gets the fraction done.

        Several job specs run at the same time, like fio jobs in one group: each with its own ``rw``,
        ``bs``, ``iodepth``, region, rate, think time and runtime. The result is the group's, with one
        :class:`ssdlab.result.JobResult` per spec in ``result.jobs``.

        Examples
        --------
        >>> import ssdlab
        >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16})
        >>> _ = drive.run(ssdlab.Workload(rw="write", bs="1m", iodepth=8, size="2g"))
        >>> reader = ssdlab.Workload(rw="randread", iodepth=4, size="2g", runtime="50ms")
        >>> writer = ssdlab.Workload(rw="write", bs="128k", iodepth=8, offset="4g", size="4g", runtime="50ms")
        >>> alone, mixed = drive.clone().run(reader), drive.run([reader, writer])
        >>> mixed.jobs[0].read.latency.mean_us > alone.read.latency.mean_us  # reads wait behind programs
        True
        """
        jobs = [workload] if isinstance(workload, Workload) else list(workload)
        if not jobs:
            raise workload_error("jobs", "a run needs at least one workload", "[]")
        for w in jobs:
            if not isinstance(w, Workload):
                raise workload_error("jobs", f"{w!r} is not an ssdlab.Workload", w)
        native = self._drive.run([w.to_native() for w in jobs], progress)
        return Result(native, self.name, jobs)

    def replay(
        self,
        path: str | PathLike[str],
        *,
        format: str = "auto",
        timing: str = "recorded",
        speed: float = 1.0,
        iodepth: int = 32,
        wrap: bool = True,
        skip_bad: bool = False,
        interval: str | int | float = "100ms",
        progress: Callable[[float], None] | None = None,
    ) -> Result:
        """Replay a block trace from the drive's current state, streaming it (any length, little memory).

        ``format``: ``auto`` (from the first line), ``iolog`` (fio's ``write_iolog``, v2 or v3),
        ``blkparse`` (blkparse's text output, queue events), ``msr`` (MSR Cambridge CSV as SNIA IOTTA
        publishes it), ``spc`` (the SPC format: ASU,LBA,Size,Opcode,Timestamp) or ``csv``
        (``time_us,op,offset,length`` with that header). ``timing``: ``recorded`` submits each request at
        its recorded time divided by ``speed`` (open loop); ``afap`` keeps ``iodepth`` outstanding, as do
        traces without times. Requests are widened to whole 4 KiB pages; ones beyond the drive wrap around
        it unless ``wrap=False``, which makes them errors. A bad line raises ``WorkloadError`` naming its
        number, unless ``skip_bad`` (then ``result.skipped_lines`` counts them).

        Examples
        --------
        >>> import ssdlab, tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "t.csv")
        >>> _ = open(path, "w").write("time_us,op,offset,length\n0,write,0,65536\n100,read,0,4096\n")
        >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16})
        >>> res = drive.replay(path)
        >>> res.write.ios, res.read.ios, res.source == path
        (1, 1, True)
        """
        if not Path(path).is_file():
            raise workload_error("trace", f"no such file: {str(path)!r}", path)
        native, skipped, lines = self._drive.replay(
            os.fspath(path),
            format,
            timing,
            speed,
            iodepth,
            wrap,
            skip_bad,
            parse_time_ns(interval, "interval"),
            progress,
        )
        res = Result(native, self.name, [], source=os.fspath(path))
        res.skipped_lines, res.lines_read = skipped, lines
        return res

    # The stepping API: drive the simulated SSD one command at a time (a trace, a block device, a test).

    @property
    def now_ns(self) -> int:
        """The drive's clock, simulated nanoseconds since it was made."""
        return self._drive.now_ns

    def submit(
        self,
        op: str,
        offset: int | str,
        length: int | str,
        *,
        compress_percentage: int = 0,
        fua: bool = False,
    ) -> int:
        """Submit one command at the drive's current time (:attr:`now_ns`) and return its id.

        ``op`` is ``read``, ``write``, ``trim`` or ``flush`` (a flush ignores offset and length and
        completes once every acknowledged write is on flash). Offsets and lengths are whole 4 KiB pages;
        ``fua`` makes a write complete only once it is programmed. The completion time is computed now
        and is final; collect the completion with :meth:`poll` once :meth:`advance` has reached it.

        Examples
        --------
        >>> import ssdlab
        >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16})
        >>> ids = [drive.submit("write", i * 4096, 4096) for i in range(4)]
        >>> flush = drive.submit("flush", 0, 0)
        >>> _ = drive.advance()                      # to the first completion
        >>> [c.id for c in drive.poll()] == ids[:1]
        True
        >>> while drive.outstanding:
        ...     _ = drive.advance()
        ...     done = drive.poll()
        >>> done[-1].id == flush, done[-1].op, done[-1].status
        (True, 'flush', 'success')
        """
        return self._drive.submit(
            op, _u64(offset, "offset"), _u64(length, "length"), compress_percentage, fua
        )

    def advance(self, until_ns: int | None = None) -> int:
        """Move the clock to ``until_ns`` (never back), or to the next completion when None; returns
        the new time. Background work (GC, folding) runs in idle time as it would inside :meth:`run`."""
        return self._drive.advance(until_ns)

    def poll(self) -> list[Completion]:
        """The completions due by now, earliest first (ties in submission order)."""
        return [Completion(*c) for c in self._drive.poll()]

    @property
    def outstanding(self) -> int:
        """Commands submitted and not yet polled."""
        return self._drive.outstanding

    def idle(self, duration: str | int | float) -> None:
        """Let simulated time pass with no host IO (a bare number is seconds)."""
        self._drive.idle(parse_time_ns(duration, "idle"))

    def trim(self, offset: int | str, length: int | str) -> None:
        """Deallocate ``length`` bytes from ``offset`` (rounded inward to whole 4 KiB pages)."""
        self._drive.trim(parse_size(offset, "offset"), parse_size(length, "length"))

    def sanitize(self) -> None:
        """Sanitize the drive (NVMe block erase): erase every block that holds data and empty the map.

        Unlike :func:`ssdlab.precondition.purge` (a new drive from the same config), wear, counters and
        the clock carry on, and the erases take their time.

        Examples
        --------
        >>> import ssdlab
        >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
        >>> _ = drive.run(ssdlab.Workload(rw="write", bs="1m", iodepth=8, size="1g"))
        >>> before = drive.counters()
        >>> drive.sanitize()
        >>> after = drive.counters()
        >>> after["mapped_bytes"], after["nand_blocks_erased"] > before["nand_blocks_erased"]
        (0.0, True)
        """
        self._drive.sanitize()

    def clone(self) -> Drive:
        """An independent copy with the same state."""
        return Drive(self._drive.clone())

    def counters(self) -> dict[str, float]:
        """Every cumulative counter since the drive was made."""
        return dict(self._drive.counters())

    def __repr__(self) -> str:
        return f"Drive(name={self.name!r}, capacity_bytes={self.capacity_bytes}, now_s={self.now_s:g})"
