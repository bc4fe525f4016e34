"""A simulated SSD: one native drive whose state persists from run to run."""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from os import PathLike
from pathlib import Path
from typing import Any, NamedTuple

from ssdlab._core import NativeDrive
from ssdlab.counters import Counters
from ssdlab.errors import ConfigError, config_error, read_text_file, workload_error
from ssdlab.presets import DEFAULT_PRESET, read_preset, resolve_base
from ssdlab.result import Result
from ssdlab.units import MAX_U64, parse_size, parse_time_ns
from ssdlab.workload import Workload

__all__ = ["Completion", "Drive", "Overrides", "config_value", "parse_overrides", "scale_capacity"]

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
    >>> parse_overrides("nand.tR_us=50")
    [('nand.tR_us', '50')]
    """
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        return [(str(k), _toml_text(v)) for k, v in overrides.items()]
    if isinstance(overrides, str):  # one PATH=VALUE, not its characters
        overrides = [overrides]
    pairs = []
    for item in overrides:
        path, sep, value = str(item).partition("=")
        if not sep or not path.strip():
            raise config_error("--set", f"{item!r} is not PATH=VALUE (e.g. nand.tR_us=50)", item)
        pairs.append((path.strip(), value.strip()))
    return pairs


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
    data: bytes | None = None
    """A read's bytes when the drive keeps data (``Drive.from_preset(..., data=True)``), else None."""

    @property
    def latency_us(self) -> float:
        """From submission to completion."""
        return (self.complete_ns - self.submit_ns) / 1e3


class PowerCutReport(NamedTuple):
    """What :meth:`Drive.power_cut` did. Times are simulated nanoseconds."""

    at_ns: int
    flushed: bool
    """The buffered data was programmed first (the power-loss notification, or power-loss protection)."""
    flush_ns: int
    flush_energy_j: float
    at_risk_slots: int
    """Acknowledged 4 KiB pages only in the volatile write buffer when power failed."""
    commands_dropped: int
    """Commands submitted and never completed."""
    lost_lpns: list[int]
    """With data on and no flush: the LPNs whose latest write was lost (they read their old data)."""


def scale_capacity(toml_text: str, capacity_gb: float) -> list[tuple[str, str]]:
    """Overrides that scale a drive to ``capacity_gb`` of user capacity with the same dies and fewer blocks.

    ``ftl.user_capacity_gb`` becomes ``capacity_gb``; ``nand.blocks_per_plane`` shrinks in proportion,
    keeping the over-provisioning ratio (of the blocks left after GC's fixed reserve of
    ``gc_threshold_free_blocks + 3`` blocks per plane), and so does the static SLC cache
    (``ftl.slc_cache.static_gb``), which lives in that spare area. Channels, dies, planes, pages and timings
    stay, so the scaled drive has the full drive's parallelism and fills, garbage-collects and reaches
    steady state like it, in a fraction of the time. Setting ``ftl.user_capacity_gb`` alone would leave all
    the NAND as spare: such a drive never garbage-collects.

    Spare space comes in whole blocks a die, so scaled far down a die keeps only a few spare blocks and GC
    runs unevenly across dies (host units stripe over the dies in turn, so the busiest die holds the rest up):
    generic-tlc-dram in 4 KiB random-write steady state gives 14.8K IOPS at 16 GB (49 blocks a plane, dies
    77% busy) against 17.0K at 128 GB (346 blocks, 92%). For steady-state figures keep a few hundred blocks
    a plane.

    Examples
    --------
    >>> from ssdlab.presets import read_preset, resolve_base
    >>> scale_capacity(read_preset("bg4-1tb"), 128)
    [('ftl.user_capacity_gb', '128'), ('nand.blocks_per_plane', '249'), ('ftl.slc_cache.static_gb', '0.125')]
    """
    if isinstance(capacity_gb, bool) or not isinstance(capacity_gb, (int, float)) or not capacity_gb > 0:
        shown = repr(capacity_gb) if isinstance(capacity_gb, str) else capacity_gb  # '16' is text, not 16
        raise config_error("capacity_gb", "must be a number of GB above 0", shown)
    cfg = tomllib.loads(toml_text)
    if "ftl" not in cfg or "nand" not in cfg:  # e.g. a file that inherits from a base: resolve it first
        cfg = tomllib.loads(NativeDrive(toml_text).config_toml())
    full_gb = float(cfg["ftl"]["user_capacity_gb"])
    blocks = int(cfg["nand"]["blocks_per_plane"])
    reserve = int(cfg["ftl"]["gc_threshold_free_blocks"]) + 3
    if capacity_gb > full_gb:
        raise config_error(
            "capacity_gb",
            f"scales a drive down: at most its {full_gb:g} GB (more needs more dies)",
            capacity_gb,
        )
    share = capacity_gb / full_gb
    scaled = reserve + math.ceil((blocks - reserve) * share)
    static_gb = float(cfg["ftl"]["slc_cache"]["static_gb"]) * share
    return [
        ("ftl.user_capacity_gb", f"{capacity_gb:g}"),
        ("nand.blocks_per_plane", str(scaled)),
        ("ftl.slc_cache.static_gb", f"{static_gb:g}"),
    ]


def _scaled(text: str, capacity_gb: float | None, overrides: Overrides) -> list[tuple[str, str]]:
    # The scaling first, so that an explicit `set` of either key still wins.
    scaling = [] if capacity_gb is None else scale_capacity(text, capacity_gb)
    return scaling + parse_overrides(overrides)


def _native(text: str, overrides: list[tuple[str, str]], source: str) -> NativeDrive:
    """The native drive; a TOML syntax error (reported by line) also names ``source``, the file it is in."""
    try:
        return NativeDrive(text, overrides)
    except ConfigError as e:
        problems = e.errors()
        if any(p.message.startswith("missing field") for p in problems):
            # an incomplete file: most often a drive file written by hand without its base
            hint = 'a drive file is complete (as `ssdlab show` prints) or starts with base = "PRESET"'
            raise ConfigError(
                [
                    replace(
                        p, path=f"{source}: {p.path}" if p.path else source, message=f"{p.message}; {hint}"
                    )
                    for p in problems
                ]
            ) from None
        if not any(p.path.startswith("line ") for p in problems):
            raise
        named = [
            replace(p, path=f"{source}, {p.path}") if p.path.startswith("line ") else p for p in problems
        ]
        raise ConfigError(named) from None


def config_value(config: Mapping[str, Any], path: str) -> Any:
    """The value at the dotted TOML ``path`` of a parsed drive config (``tomllib.loads`` of
    :meth:`Drive.config_toml`), or None where there is none.

    Examples
    --------
    >>> config_value({"link": {"lanes": 4}}, "link.lanes"), config_value({"link": {}}, "link.gen")
    (4, None)
    """
    node: Any = config
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


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
        #: Called with every :meth:`run`'s result (``ssdlab run`` records the per-interval series with it,
        #: :class:`ssdlab.series.Recorder`); a clone does not inherit it.
        self.on_run: Callable[[Result], None] | None = None

    @classmethod
    def from_preset(
        cls, name: str, set: Overrides = None, capacity_gb: float | None = None, data: bool = False
    ) -> Drive:
        """A built-in preset (see :func:`ssdlab.list_presets`); ``capacity_gb`` scales it down (see
        :func:`scale_capacity`); ``data`` keeps what is written (see :meth:`enable_data`).

        Examples
        --------
        >>> small = Drive.from_preset("bg4-1tb", capacity_gb=128)   # same dies, 1/8 of the blocks
        >>> small.capacity_bytes // 10**9, "blocks_per_plane = 249" in small.config_toml()
        (128, True)
        """
        text = read_preset(name)
        drive = cls(_native(text, _scaled(text, capacity_gb, set), f"preset {name}.toml"))
        if data:
            drive.enable_data()
        return drive

    @classmethod
    def open(
        cls,
        preset: str | None = None,
        drive_file: str | PathLike[str] | None = None,
        set: Overrides = None,
        capacity_gb: float | None = None,
        data: bool = False,
    ) -> Drive:
        """A preset or a drive TOML file (not both; neither: :data:`ssdlab.presets.DEFAULT_PRESET`), as the
        command line's ``--preset``/``--drive`` give it; ``set``, ``capacity_gb`` and ``data`` as for
        :meth:`from_preset`.

        Examples
        --------
        >>> Drive.open(capacity_gb=64).name, Drive.open("sn520-128gb").name
        ('bg4-1tb', 'sn520-128gb')
        >>> try:
        ...     Drive.open("bg4-1tb", "my.toml")
        ... except ConfigError as e:
        ...     print(e.errors()[0].path)
        drive_file
        """
        if preset is not None and drive_file is not None:
            raise config_error("drive_file", "give a preset or a drive file, not both", "")
        if drive_file is None:
            drive = cls.from_preset(preset or DEFAULT_PRESET, set=set, capacity_gb=capacity_gb)
        else:
            drive = cls.from_toml(drive_file, set=set, capacity_gb=capacity_gb)
        if data:
            drive.enable_data()
        return drive

    def power_cut(self, pln: bool = False) -> PowerCutReport:
        """Cut the power now. With ``pln`` (the host's power-loss notification; the BG4 has the signal)
        the drive programs what its write buffer holds first; without it that data is lost and, with
        data on, reads back as the last version on flash. Commands in flight never complete. Flushed
        and FUA writes are never lost. The drive refuses commands until :meth:`power_on`.

        Examples
        --------
        >>> drive = Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 1}, data=True)
        >>> _ = drive.submit("write", 0, 4096, data=b"\x07" * 4096)
        >>> _ = drive.advance()
        >>> cut = drive.power_cut(pln=False)
        >>> cut.lost_lpns, drive.power_on() > 0, drive.read_data(0, 4096) == bytes(4096)
        ([0], True, True)
        """
        return PowerCutReport(*self._drive.power_cut(pln))

    def power_on(self) -> int:
        """Power on after :meth:`power_cut`: the FTL rebuilds its map from flash (a map checkpoint and
        journal, or every block's summary page); the clock moves on by the time that takes, returned in
        nanoseconds (0 if the drive was on)."""
        return self._drive.power_on()

    def enable_data(self) -> None:
        """Keep the data written from now on: a read's completion carries it (:attr:`Completion.data`),
        :meth:`read_data` shows it. Never-written and trimmed pages read as zeros; each stored page has a
        CRC checked on reads (a mismatch counts in ``data_integrity_errors``). Timing is unchanged;
        memory grows by 4 KiB per page holding data.

        Examples
        --------
        >>> drive = Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 1}, data=True)
        >>> _ = drive.submit("write", 4096, 4096, data=b"\x2a" * 4096)
        >>> rid = drive.submit("read", 0, 8192)
        >>> done = []
        >>> while drive.outstanding:
        ...     _ = drive.advance()
        ...     done += drive.poll()
        >>> read = next(c for c in done if c.id == rid)
        >>> read.data[4095], read.data[4096]
        (0, 42)
        """
        self._drive.enable_data()

    @property
    def data_enabled(self) -> bool:
        """True when the drive keeps the data written (:meth:`enable_data`)."""
        return self._drive.data_enabled

    def read_data(self, offset: int | str, length: int | str) -> bytes:
        """What a read of ``length`` bytes from ``offset`` would return now, taking no simulated time
        (for checks). Needs data on; offsets and lengths are whole 512 B sectors."""
        return self._drive.read_data(parse_size(offset, "offset"), parse_size(length, "length"))

    @classmethod
    def from_toml(
        cls, path: str | PathLike[str], set: Overrides = None, capacity_gb: float | None = None
    ) -> Drive:
        """A drive described by a TOML file, such as ``ssdlab show`` prints; a syntax error names the file.

        Examples
        --------
        >>> import pathlib, tempfile
        >>> bad = pathlib.Path(tempfile.mkdtemp()) / "my.toml"
        >>> _ = bad.write_text("name = 1\\n\\nhost = [\\n")
        >>> try:
        ...     Drive.from_toml(bad)
        ... except ConfigError as e:
        ...     print(e.errors()[0].path.endswith("my.toml, line 3"))
        True
        """
        text = resolve_base(read_text_file(Path(path), "drive file"), str(path))
        return cls(_native(text, _scaled(text, capacity_gb, set), str(path)))

    @classmethod
    def from_toml_str(cls, text: str, set: Overrides = None, capacity_gb: float | None = None) -> Drive:
        """A drive described by TOML text (it may start from a preset or family: ``base = "bg4-1tb"``)."""
        text = resolve_base(text, "<text>")
        return cls(NativeDrive(text, _scaled(text, capacity_gb, set)))

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

    def config(self) -> dict[str, Any]:
        """The full parameter set, parsed (a new dict each call: changing it changes no drive)."""
        return tomllib.loads(self._drive.config_toml())

    def config_value(self, path: str) -> Any:
        """One parameter by its TOML path, or None.

        Examples
        --------
        >>> Drive.from_preset("bg4-1tb").config_value("controller.map_cache.location")
        'hmb'
        """
        return config_value(self.config(), path)

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
        res = Result(native, self.name, jobs)
        if self.on_run is not None:
            self.on_run(res)
        return res

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
        log_ios: bool = False,
    ) -> Result:
        """Replay a block trace from the drive's current state, streaming it (any length, little memory).

        ``format``: ``auto`` (from the first line), ``iolog`` (fio's ``write_iolog``, v2 or v3),
        ``blkparse`` (blkparse's text output, queue events), ``msr`` (MSR Cambridge CSV as SNIA IOTTA
        publishes it), ``spc`` (the SPC format: ASU,LBA,Size,Opcode,Timestamp) or ``csv``
        (``time_us,op,offset,length`` with that header). ``timing``: ``recorded`` submits each request at
        its recorded time divided by ``speed`` (open loop); ``afap`` keeps ``iodepth`` outstanding, as do
        traces without times. Requests are widened to whole 512 B sectors; ones beyond the drive wrap around
        it unless ``wrap=False``, which makes them errors. A bad line raises ``WorkloadError`` naming its
        number, unless ``skip_bad`` (then ``result.skipped_lines`` counts them). A request recorded before
        one ahead of it in the file (blkparse interleaves its CPUs) goes in when its turn comes, as the
        clock never runs back; ``result.late_requests`` counts them. ``log_ios`` keeps a row for every
        request (``result.io_log``: ~33 bytes a request).

        Examples
        --------
        >>> import ssdlab, tempfile, pathlib
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
        >>> _ = path.write_text("time_us,op,offset,length\\n0,write,0,65536\\n100,read,0,4096\\n")
        >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16})
        >>> res = drive.replay(path)
        >>> res.write.ios, res.read.ios, res.source == str(path)
        (1, 1, True)
        """
        if Path(path).is_dir():
            raise workload_error("trace", f"is a folder, not a trace file: {str(path)!r}", path)
        if not Path(path).is_file():
            what = "not a regular file" if Path(path).exists() else "no such file"  # /dev/null, a FIFO
            raise workload_error("trace", f"{what}: {str(path)!r}", path)
        native, skipped, lines, late = self._drive.replay(
            os.fspath(path),
            format,
            timing,
            speed,
            iodepth,
            wrap,
            skip_bad,
            parse_time_ns(interval, "interval"),
            progress,
            log_ios,
        )
        res = Result(native, self.name, [], source=os.fspath(path))
        res.skipped_lines, res.lines_read, res.late_requests = skipped, lines, late
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
        data: bytes | None = None,
    ) -> int:
        """Submit one command at the drive's current time (:attr:`now_ns`) and return its id.

        ``data`` is a write's bytes (as long as the write), for a drive that keeps data (:meth:`enable_data`;
        there a write without it stores zeros; elsewhere giving it is an error).

        ``op`` is ``read``, ``write``, ``trim`` or ``flush`` (a flush ignores offset and length and
        completes once every acknowledged write is on flash). Offsets and lengths are whole 512 B sectors
        (the drive maps 4 KiB pages: part of one is read whole from flash, and a write of part of one
        merges it, reading it first if it is on flash: ``rmw_reads``); ``fua`` makes a write complete only
        once it is programmed. The completion time is computed now
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
        if isinstance(compress_percentage, bool) or not 0 <= compress_percentage <= 100:
            raise workload_error(
                "compress_percentage", "must be a whole number from 0 to 100", compress_percentage
            )
        if data is not None and not self.data_enabled:
            raise workload_error(
                "data",
                "this drive keeps no data: call enable_data() first (or leave data out)",
                f"{len(data)} bytes",
            )
        return self._drive.submit(
            op, parse_size(offset, "offset"), parse_size(length, "length"), compress_percentage, fua, data
        )

    def advance(self, until_ns: int | None = None) -> int:
        """Move the clock to ``until_ns`` (never back), or to the next completion when None; returns
        the new time. Background work (GC, folding) runs in idle time as it would inside :meth:`run`."""
        if until_ns is not None and (isinstance(until_ns, bool) or not 0 <= until_ns < 2**64):
            raise workload_error("until_ns", "must be a whole number of ns from 0 to 2**64 - 1", until_ns)
        if until_ns is not None and until_ns < self.now_ns:
            raise workload_error(
                "until_ns", f"must not be before now ({self.now_ns} ns): time only moves on", until_ns
            )
        return self._drive.advance(until_ns)

    def poll(self) -> list[Completion]:
        """The completions due by now, earliest first (ties in submission order)."""
        return [Completion(*c) for c in self._drive.poll()]

    @property
    def next_completion_ns(self) -> int | None:
        """When the earliest outstanding command completes (None if nothing is outstanding)."""
        return self._drive.next_completion_ns

    def completion_ns(self, id: int) -> int | None:
        """When the submitted command ``id`` completes (final from its submission on); None once it has
        been polled, or for an id never submitted.

        Examples
        --------
        >>> import ssdlab
        >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16})
        >>> cid = drive.submit("write", 0, 4096)
        >>> due = drive.completion_ns(cid)
        >>> drive.advance(due) == due, [c.id for c in drive.poll()] == [cid], drive.completion_ns(cid)
        (True, True, None)
        """
        if isinstance(id, bool) or not 0 <= id < 2**64:
            return None  # never an id
        return self._drive.completion_ns(id)

    @property
    def outstanding(self) -> int:
        """Commands submitted and not yet polled."""
        return self._drive.outstanding

    def idle(self, duration: str | int | float) -> None:
        """Let simulated time pass with no host IO (a bare number is seconds).

        :class:`ssdlab.WorkloadError` if the drive's clock (64-bit nanoseconds, 584 years) would overflow.

        Examples
        --------
        >>> import ssdlab
        >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
        >>> drive.idle("2s"); drive.now_s
        2.0
        >>> try:
        ...     drive.idle("1000000d")
        ... except ssdlab.WorkloadError as e:
        ...     print(e.field)
        idle
        """
        ns = parse_time_ns(duration, "idle")
        left = MAX_U64 - self._drive.now_ns
        if ns > left:
            raise workload_error(
                "idle",
                f"would pass the end of the drive's clock: at most {left} ns more (2**64 - 1 in all)",
                duration,
            )
        self._drive.idle(ns)

    def trim(self, offset: int | str, length: int | str) -> None:
        """Deallocate ``length`` bytes from ``offset`` (rounded inward to whole 4 KiB pages).

        :class:`ssdlab.WorkloadError` naming the range if it does not fit the drive.

        Examples
        --------
        >>> import ssdlab
        >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
        >>> drive.trim(0, "1g")
        >>> try:
        ...     drive.trim(0, 2**64 - 1)
        ... except ssdlab.WorkloadError as e:
        ...     print(e.field, e.value)
        length 18446744073709551615
        """
        start, n = parse_size(offset, "offset"), parse_size(length, "length")
        if start + n > self.capacity_bytes:  # Python ints: the sum cannot wrap
            raise workload_error(
                "length",
                f"offset + length must fit the drive ({self.capacity_bytes} bytes); "
                f"offset {start} + length {n} = {start + n}",
                length,
            )
        self._drive.trim(start, n)

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

    def counters(self) -> Counters:
        """Every counter since the drive was made (see :mod:`ssdlab.counters`)."""
        return Counters(self._drive.counters())

    def __repr__(self) -> str:
        return f"Drive(name={self.name!r}, capacity_bytes={self.capacity_bytes}, now_s={self.now_s:g})"
