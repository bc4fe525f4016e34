"""The fio options ssdlab knows: one table, one row per option.

Each row says what the option becomes: a :class:`ssdlab.Workload` field (``workload``), something the job file
itself acts on (``job``: names, groups, ``numjobs``, ``kb_base``), an option accepted but ignored because the
simulation has nothing for it to change (``noted``, listed in the output with the reason), or an option fio
has that ssdlab cannot honour yet (``unsupported``: an error naming the file and line). Any other name is an
error too. Adding an option is adding one row.

Values are read as fio reads them: sizes with ``k``/``m``/``g``/``t``/``p`` suffixes in powers of two
under the default ``kb_base=1024`` and ``kib``/``mib``/... in powers of ten (fio's compatibility mode;
``kb_base=1000`` swaps the two), an optional ``b`` and ``0x`` hex; times with ``us``/``ms``/``s``/``m``/
``h``/``d`` and fio's default unit per option (seconds for ``runtime`` and ``ramp_time``, microseconds
for ``thinktime``).

Examples
--------
>>> parse_fio_size("4k"), parse_fio_size("1mib"), parse_fio_size("1mib", kb_base=1000)
(4096, 1000000, 1048576)
>>> OPTIONS["readwrite"].name, OPTIONS["rwmixwrite"].convert("30", 1024)
('rw', 70)
>>> sorted(o.name for o in set(OPTIONS.values()) if o.kind == "unsupported")[:3]
['read_iolog', 'trim_backlog', 'trim_percentage']
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from ssdlab._core import SsdlabError
from ssdlab.units import format_time, parse_time_ns
from ssdlab.workload import RW_NAMES

__all__ = [
    "OPTIONS",
    "Fields",
    "Option",
    "OptionValueError",
    "bool_option",
    "parse_fio_size",
    "rate_fields",
    "supported_names",
]

Kind = Literal["workload", "job", "noted", "unsupported"]


class OptionValueError(ValueError):
    """A value an option cannot take; the job-file reader adds the file, line and option name."""


@dataclass(frozen=True)
class Option:
    """One fio option: what it becomes and how its text is read.

    ``convert(text, kb_base)`` turns the text after ``=`` (None for a bare flag) into the value of
    ``field`` (the :class:`ssdlab.Workload` field for ``workload`` options, the option's own name
    otherwise); ``note`` says why a ``noted`` option changes nothing, or what an ``unsupported`` one lacks.
    """

    name: str
    kind: Kind
    convert: Callable[[str | None, int], object] = field(default=lambda text, kb: text, compare=False)
    field: str = ""
    aliases: tuple[str, ...] = ()
    note: str = ""
    #: How the value reads, for the list of supported options in an error.
    help: str = ""

    @property
    def flag(self) -> bool:
        """Whether the option may stand alone (``time_based``), meaning true."""
        return self.convert is bool_option


_SIZE_RE = re.compile(r"(0x[0-9a-f]+|\d+(?:\.\d+)?)\s*([kmgtpe]?)(i?)(b?)", re.IGNORECASE)
_POWERS = "kmgtpe"
_TIME_UNITS = "us, ms, s, m, h"


def parse_fio_size(text: str, kb_base: int = 1024) -> int:
    """Bytes from a fio size, with fio's reading of ``k`` and ``kib`` under ``kb_base``.

    Examples
    --------
    >>> parse_fio_size("128k"), parse_fio_size("0x1000"), parse_fio_size("1.5g"), parse_fio_size("8kb")
    (131072, 4096, 1610612736, 8192)
    >>> parse_fio_size("1k", kb_base=1000), parse_fio_size("1KiB", kb_base=1000)
    (1000, 1024)
    """
    m = _SIZE_RE.fullmatch(text.strip())
    if m is None:
        raise OptionValueError(f"{text!r} is not a size (a number with an optional k, m, g, t or p suffix)")
    number, power, iec, _ = m.groups()
    # fio's kb_base=1024 (the default) is its compatibility mode: "k" is 1024 and "kib" is 1000, the
    # reverse of the standards; kb_base=1000 follows them.
    binary = (kb_base == 1024) != bool(iec)
    base = 1024 if binary else 1000
    mult = base ** (_POWERS.index(power.lower()) + 1) if power else 1
    if number.lower().startswith("0x"):
        return int(number, 16) * mult
    if "." not in number:
        return int(number) * mult
    value = float(number) * mult
    if value != int(value):
        raise OptionValueError(f"{text!r} is not a whole number of bytes")
    return int(value)


def _size(text: str | None, kb_base: int) -> int:
    text = _needs_value(text)
    if "," in text or ":" in text:
        raise OptionValueError(
            f"{text!r} gives several sizes (per direction or a range); ssdlab takes one size for all IO"
        )
    if text.strip().endswith("%"):
        raise OptionValueError(f"{text!r}: a percentage of the device is not supported yet; give a size")
    return parse_fio_size(text, kb_base)


def _time(default_unit: str) -> Callable[[str | None, int], object]:
    def convert(text: str | None, kb_base: int) -> object:
        text = _needs_value(text).strip()
        try:
            ns = parse_time_ns(text, "time", default_unit=default_unit)
        except (ValueError, SsdlabError):
            raise OptionValueError(
                f"{text!r} is not a time (a number with an optional {_TIME_UNITS} suffix)"
            ) from None
        # Exact, and no longer dependent on the option's default unit.
        return format_time(ns) if ns else 0

    return convert


def _runtime(text: str | None, kb_base: int) -> object:
    value = _time("s")(text, kb_base)
    return None if value == 0 else value  # fio's runtime=0 means no limit


def _parse_int(text: str | None, low: int, high: int) -> int:
    text = _needs_value(text).strip()
    try:
        n = int(text, 0)
    except ValueError:
        raise OptionValueError(f"{text!r} is not a whole number") from None
    if not low <= n <= high:
        raise OptionValueError(f"must be {low}..{high} (got {n})")
    return n


def _int(low: int, high: int) -> Callable[[str | None, int], object]:
    return lambda text, kb_base: _parse_int(text, low, high)


def _whole(text: str | None, kb_base: int) -> object:
    """A whole number for a Workload field: its range is the Workload's own check (one place, the engine's),
    reported against this option's line."""
    return _parse_int(text, -(2**64), 2**64)


def bool_option(text: str | None, kb_base: int) -> object:
    # A bare flag (`time_based`) is true, as in fio.
    if text is None or text.strip() in ("1", "true", "on", "yes"):
        return True
    if text.strip() in ("0", "false", "off", "no"):
        return False
    raise OptionValueError(f"{text!r} is not 0 or 1")


class Fields(dict[str, object]):
    """What an option that sets several Workload fields gives (``bs=4k,64k``, ``rw=write:8k``)."""


def _rw(text: str | None, kb_base: int) -> object:
    text = _needs_value(text).strip()
    rw, colon, gap = text.partition(":")
    if rw not in RW_NAMES:
        raise OptionValueError(f"{rw!r} is not one of {', '.join(RW_NAMES)}")
    if not colon:
        return rw
    if rw.startswith("rand"):
        raise OptionValueError(
            f"{text!r}: a random rw with :N (N IOs per random offset) is not supported yet; "
            "percentage_random mixes random and sequential IO"
        )
    back = gap.strip().startswith("-")  # fio's rw=read:-8k steps back
    skip = _size(gap.strip().removeprefix("-"), kb_base)
    return Fields(rw=rw, seq_skip=-skip if back else skip)


def _bs(text: str | None, kb_base: int) -> object:
    # fio: bs=read,write[,trim]; an empty part keeps the default
    parts = [p.strip() for p in _needs_value(text).split(",")]
    if len(parts) > 3:
        raise OptionValueError("takes at most read,write,trim sizes")
    read = _size(parts[0], kb_base) if parts[0] else 4096
    if len(parts) == 1:
        return read
    write = _size(parts[1], kb_base) if parts[1] else read
    return Fields(bs=read, bs_write=write)


def _per_direction(text: str | None, parse: Callable[[str], str], field: str) -> object:
    """fio's ``READ[,WRITE[,TRIM]]`` sizes option: one value for both directions, else ``field`` and
    ``field_write`` (an empty part is as the reads'); trims go with writes here, so a trim part must be
    theirs."""
    parts = [p.strip() for p in _needs_value(text).split(",")]
    if len(parts) > 3:
        raise OptionValueError("takes at most read,write,trim values")
    if len(parts) == 3 and parts[2] and parts[2] != parts[1]:
        raise OptionValueError("trims take the writes' sizes in ssdlab: give the trim part the write part")
    if not parts[0]:
        raise OptionValueError("needs the reads' sizes first (READ,WRITE)")
    read = parse(parts[0])
    if len(parts) == 1:
        return read
    return Fields({field: read, f"{field}_write": parse(parts[1]) if parts[1] else read})


def _split(text: str | None, kb_base: int) -> object:
    # sizes to bytes, percentages as given; the engine checks the rest
    def one(value: str) -> str:
        out = []
        for part in value.split(":"):
            size, slash, pct = part.partition("/")
            out.append(f"{_size(size, kb_base)}{slash}{pct.strip()}")
        return ":".join(out)

    return _per_direction(text, one, "bssplit")


def _range(text: str | None, kb_base: int) -> object:
    def one(value: str) -> str:
        lo, dash, hi = value.partition("-")
        if not dash:
            raise OptionValueError("is lo-hi, e.g. 4k-64k")
        return f"{_size(lo, kb_base)}-{_size(hi, kb_base)}"

    return _per_direction(text, one, "bsrange")


def rate_fields(text: str | None, field: str, kb_base: int = 1024) -> dict[str, int]:
    """fio's ``read[,write[,trim]]`` rate as :class:`ssdlab.Workload` fields: one value caps each direction,
    an empty part none. Trims are paced with writes here, so a trim value must be the write value.
    ``field`` is ``rate`` (sizes) or ``rate_iops``.

    Examples
    --------
    >>> rate_fields("900,100", "rate_iops"), rate_fields(",500", "rate_iops"), rate_fields("1m", "rate")
    ({'rate_iops': 900, 'rate_iops_write': 100}, {'rate_iops': 0, 'rate_iops_write': 500}, {'rate': 1048576})
    """
    parts = [p.strip() for p in _needs_value(text).split(",")]
    if len(parts) > 3:
        raise OptionValueError("takes at most read,write,trim rates")

    def parse(p: str) -> int:
        return _size(p, kb_base) if field == "rate" else _parse_int(p, 0, 2**64)

    values = [parse(p) if p else 0 for p in parts]
    if len(values) == 3 and parts[2] and values[2] != values[1]:
        raise OptionValueError("trims are paced with writes in ssdlab: give the trim rate the write rate")
    return {field: values[0]} if len(values) == 1 else {field: values[0], f"{field}_write": values[1]}


def _rate(text: str | None, kb_base: int) -> object:
    return Fields(rate_fields(text, "rate", kb_base))


def _rate_iops(text: str | None, kb_base: int) -> object:
    return Fields(rate_fields(text, "rate_iops", kb_base))


def _sync(text: str | None, kb_base: int) -> object:
    # sync=1 / sync=sync / sync=dsync: O_SYNC writes, FUA on a block device
    if text is not None and text.strip() in ("sync", "dsync"):
        return True
    if text is not None and text.strip() == "none":
        return False
    return bool_option(text, kb_base)


def _zero_buffers(text: str | None, kb_base: int) -> object:
    return Fields(buffer_compress_percentage=100) if bool_option(text, kb_base) else Fields()


def _fill_device(text: str | None, kb_base: int) -> object:
    # write until the device is full: the region to the end of the drive
    return Fields(size=0) if bool_option(text, kb_base) else Fields()


def _rwmixwrite(text: str | None, kb_base: int) -> object:
    return 100 - _parse_int(text, 0, 100)


def _distribution(text: str | None, kb_base: int) -> object:
    # the engine parses and checks fio's spelling (zipf:T, pareto:H, normal:S, zoned:A/S:...)
    return _needs_value(text).strip()


def _kb_base(text: str | None, kb_base: int) -> object:
    n = _parse_int(text, 1000, 1024)
    if n not in (1000, 1024):
        raise OptionValueError(f"must be 1000 or 1024 (got {n})")
    return n


def _percentiles(text: str | None, kb_base: int) -> object:
    out = []
    for part in _needs_value(text).split(":"):
        try:
            p = float(part)
        except ValueError:
            raise OptionValueError(f"{part!r} is not a percentile (0..100)") from None
        if not 0 <= p <= 100:
            raise OptionValueError(f"{part!r} is not a percentile (0..100)")
        out.append(p)
    return tuple(out)


def _text(text: str | None, kb_base: int) -> object:
    return _needs_value(text)


def _prefix(text: str | None, kb_base: int) -> object:
    return "" if text is None else text  # a bare flag: fio names the file after the job


def _needs_value(text: str | None) -> str:
    if text is None or not text.strip():
        raise OptionValueError("needs a value (option=value)")
    return text


def _workload(
    name: str, convert: Callable[[str | None, int], object], help: str, *aliases: str, field: str = ""
) -> Option:
    return Option(name, "workload", convert, field or name, aliases, help=help)


def _job(name: str, convert: Callable[[str | None, int], object], help: str, *aliases: str) -> Option:
    return Option(name, "job", convert, name, aliases, help=help)


def _noted(name: str, note: str, *aliases: str) -> Option:
    return Option(name, "noted", lambda text, kb: text, name, aliases, note=note)


def _unsupported(name: str, note: str, *aliases: str) -> Option:
    return Option(name, "unsupported", lambda text, kb: text, name, aliases, note=note)


_SIM = "the simulated drive takes the IO; there is no file, engine or page cache"
#: Linux IO priorities order requests in the host's IO scheduler; the simulated host has none.
#: What a verify option's read-back does here.
_VERIFY_NOTE = "the read-back moves the bytes fio's would; no checksum is compared (the twin returns data)"
#: fio's verify kinds (``verify=``).
_VERIFY_KINDS = (
    "md5 crc64 crc32c crc32c-intel crc32 crc16 crc7 xxhash sha512 sha256 sha1 sha3-224 sha3-256 sha3-384 "
    "sha3-512 meta pattern null none 0"
).split()


def _verify(text: str | None, kb_base: int) -> object:
    kind = _needs_value(text).strip()
    if kind not in _VERIFY_KINDS:
        raise OptionValueError(f"{kind!r} is not one of {', '.join(_VERIFY_KINDS)}")
    return kind not in ("none", "0")


#: Why an io_uring/xNVMe submission option changes nothing.
_NO_HOST_PATH = "the host's submission path is not simulated: each IO reaches the drive at its submit time"
_NO_PRIO = "no host IO scheduler is simulated: every command is served alike, whatever its priority"

#: Every option by its name and aliases.
_TABLE: tuple[Option, ...] = (
    # Options that become Workload fields.
    _workload("rw", _rw, " | ".join(RW_NAMES), "readwrite"),
    _workload("bs", _bs, "size, a multiple of 4k, or read,write sizes", "blocksize"),
    _workload("bssplit", _split, "size/percent:size/percent..."),
    _workload("bsrange", _range, "lo-hi sizes", "blocksize_range"),
    _workload("blockalign", _size, "size, a multiple of 4k", "ba"),
    _workload("random_distribution", _distribution, "random, zipf:T, pareto:H, normal:S or zoned:A/S:..."),
    _workload("percentage_random", _whole, "0..100"),
    _workload("offset_increment", _size, "size"),
    _workload("filesize", _size, "size (one file: the region)", field="size"),
    _workload(
        "fill_device", _fill_device, "flag: the region to the end of the drive", "fill_fs", field="size"
    ),
    _workload("startdelay", _time("s"), "time, seconds by default"),
    _workload("loops", _whole, "1..1000000"),
    _workload("number_ios", _whole, "IOs per job and pass (0 = no limit)"),
    _workload(
        "norandommap",
        lambda text, kb: not bool_option(text, kb),
        "flag: random offsets drawn with replacement, not each block once a pass",
        field="randommap",
    ),
    _workload("rate", _rate, "bytes per second per job, each direction (read,write)"),
    _workload("rate_process", _text, "linear or poisson: how rated IOs are spaced"),
    _workload("verify", _verify, "checksum kind (md5, crc32c, ...; none): read back each pass's writes"),
    _job("do_verify", bool_option, "flag (default 1): with verify, read back after the writes"),
    _noted("verify_interval", _VERIFY_NOTE),
    _noted("verify_offset", _VERIFY_NOTE),
    _noted("verify_pattern", _VERIFY_NOTE),
    _noted("verify_fatal", _VERIFY_NOTE),
    _noted("verify_dump", _VERIFY_NOTE),
    _noted("verify_async", _VERIFY_NOTE),
    _noted("verify_state_save", _VERIFY_NOTE),
    _noted("verify_state_load", _VERIFY_NOTE),
    _noted("verify_header_seed", _VERIFY_NOTE),
    _noted("verify_write_sequence", _VERIFY_NOTE),
    _workload("thinktime_blocks", _whole, "IOs between think times"),
    _workload("fsync", _whole, "writes between flushes (0 = none)"),
    _workload("fdatasync", _whole, "writes between flushes (0 = none)", field="fsync"),
    _workload("sync", _sync, "0/1 (none, sync, dsync): writes with FUA"),
    _workload(
        "zero_buffers",
        _zero_buffers,
        "flag: all-zero data (compresses fully)",
        field="buffer_compress_percentage",
    ),
    _workload("iodepth", _whole, "1..65536"),
    _workload("size", _size, "size (region from offset)"),
    _workload("offset", _size, "size"),
    _workload("io_size", _size, "size (bytes to move)", "io_limit"),
    _workload("runtime", _runtime, "time, seconds by default", "timeout"),
    _workload("time_based", bool_option, "flag"),
    _workload("ramp_time", _time("s"), "time, seconds by default"),
    _workload("rwmixread", _whole, "0..100"),
    _workload("rwmixwrite", _rwmixwrite, "0..100", field="rwmixread"),
    _workload("rate_iops", _rate_iops, "IOs per second per job, each direction (read,write)"),
    _workload("thinktime", _time("us"), "time, microseconds by default"),
    _workload("buffer_compress_percentage", _whole, "0..100"),
    _workload("randseed", _whole, "whole number", "seed", field="seed"),
    _workload("bwavgtime", _time("ms"), "time, milliseconds by default (500)", field="interval"),
    _workload("exitall", bool_option, "flag: when this job finishes, the jobs exit_what names stop"),
    _workload("exit_what", _text, "group, stonewall or all: the jobs exitall stops"),
    _workload("steadystate", _text, "iops, iops_slope, bw, bw_slope, lat or lat_slope, :LIMIT[%]", "ss"),
    _workload("steadystate_duration", _time("s"), "time, seconds by default (0: no check)", "ss_dur"),
    _workload("steadystate_ramp_time", _time("s"), "time, seconds by default", "ss_ramp"),
    _workload("steadystate_check_interval", _time("s"), "time, seconds by default (1)", "ss_interval"),
    # Options the job file acts on.
    _job("name", _text, "job name"),
    _job("description", _text, "text"),
    _job("numjobs", _int(1, 4096), "1..4096 (clones of the job)"),
    _job("stonewall", bool_option, "flag: wait for the jobs before, start a new group", "wait_for_previous"),
    _job("new_group", bool_option, "flag: start a new reporting group"),
    _job("wait_for", _text, "name of an earlier job to wait for"),
    _job("group_reporting", bool_option, "flag: report each group as one"),
    _job("kb_base", _kb_base, "1024 (k = 1024, kib = 1000) or 1000"),
    _job("percentile_list", _percentiles, "percentiles separated by ':'"),
    _job("write_bw_log", _prefix, "file prefix (bare: the job's name): PREFIX_bw.N.log"),
    _job("write_iops_log", _prefix, "file prefix (bare: the job's name): PREFIX_iops.N.log"),
    _job("write_lat_log", _prefix, "file prefix (bare: the job's name): PREFIX_{lat,clat,slat}.N.log"),
    _job("log_avg_msec", _int(0, 10**9), "milliseconds each log line averages (0: per IO in fio)"),
    _job("per_job_logs", bool_option, "flag: a log file per job (PREFIX_bw.N.log), else one"),
    _job("log_offset", bool_option, "flag: each log line gives the IO's offset (0 in averaged lines)"),
    # Accepted; nothing in the simulation for them to change.
    _noted("ioengine", f"simulated: {_SIM}"),
    _noted("filename", _SIM),
    _noted("directory", _SIM),
    _noted("direct", "every IO goes to the simulated drive (as with direct=1)"),
    _noted("buffered", "every IO goes to the simulated drive (as with direct=1)"),
    _noted("invalidate", "there is no page cache to invalidate"),
    _noted("thread", "jobs are simulated, not processes or threads"),
    _noted("randrepeat", "the simulation repeats bit for bit from its seed"),
    _noted("iopsavgtime", "the per-interval series has one width, bwavgtime"),
    _noted("refill_buffers", "ssdlab carries no data, only buffer_compress_percentage"),
    # fio options ssdlab cannot honour yet.
    _noted("iodepth_batch", "each IO is submitted as its slot frees", "iodepth_batch_submit"),
    _noted("iodepth_batch_complete_min", "each completion is reaped at its time", "iodepth_batch_complete"),
    _noted("iodepth_batch_complete_max", "each completion is reaped at its time"),
    _noted("thinktime_spin", "the whole thinktime passes either way (no CPU is modelled)"),
    _noted("rate_min", "a simulated job never quits for falling below a rate", "ratemin"),
    _noted("gtod_reduce", "simulated time costs nothing to read: latencies are still measured"),
    _noted("disable_lat", "simulated time costs nothing to read: latencies are still measured"),
    _noted("disable_clat", "simulated time costs nothing to read: latencies are still measured"),
    _noted("disable_slat", "simulated time costs nothing to read: latencies are still measured"),
    _noted("disable_bw_measurement", "simulated time costs nothing to read: bandwidth is still measured"),
    _noted("clat_percentiles", "submission takes no time here (slat 0): clat percentiles are lat's"),
    _noted("lat_percentiles", "submission takes no time here (slat 0): clat percentiles are lat's"),
    _noted("slat_percentiles", "submission takes no time here: every slat is 0"),
    _noted("scramble_buffers", "ssdlab carries no data, only buffer_compress_percentage"),
    _noted("cpus_allowed", "no host CPU is simulated: jobs do not compete for cores"),
    _noted("cpus_allowed_policy", "no host CPU is simulated: jobs do not compete for cores"),
    _noted("cpumask", "no host CPU is simulated: jobs do not compete for cores"),
    _noted("numa_cpu_nodes", "no host CPU is simulated: jobs do not compete for cores"),
    _noted("numa_mem_policy", "no host memory is simulated beyond the HMB"),
    _noted("nice", "no host CPU is simulated: a job's priority changes nothing"),
    _noted("prio", _NO_PRIO),
    _noted("prioclass", _NO_PRIO),
    _noted("cmdprio", _NO_PRIO),
    _noted("cmdprio_class", _NO_PRIO),
    _noted("cmdprio_percentage", _NO_PRIO),
    _noted("cmdprio_bssplit", _NO_PRIO),
    _noted("cmdprio_hint", _NO_PRIO),
    _noted("log_prio", _NO_PRIO),
    _noted("threads", "an option of fio's tiobench profile; no effect on a job (fio accepts it too)"),
    _noted("random_generator", "offsets come from ssdlab's own seeded generator"),
    _noted("io_submit_mode", "each IO is submitted at its simulated time"),
    _noted("rate_iops_min", "a simulated job never quits for falling below a rate"),
    _noted("cmd_type", "the simulated drive takes NVMe commands whichever path sends them"),
    _noted("sqthread_poll", _NO_HOST_PATH),
    _noted("sqthread_poll_cpu", _NO_HOST_PATH),
    _noted("registerfiles", _NO_HOST_PATH),
    _noted("fixedbufs", _NO_HOST_PATH),
    _noted("nonvectored", _NO_HOST_PATH),
    _noted("hipri", _NO_HOST_PATH),
    _noted("xnvme_async", _NO_HOST_PATH),
    _noted("xnvme_sync", _NO_HOST_PATH),
    _noted("buffer_pattern", "ssdlab carries no data, only buffer_compress_percentage"),
    _noted("continue_on_error", "simulated IOs do not fail"),
    _noted("ignore_error", "simulated IOs do not fail"),
    _unsupported("trim_percentage", "rw=trim or randtrim"),
    _unsupported("trim_backlog", "rw=trim or randtrim"),
    _unsupported("verify_backlog", "no read-back among the writes, only after each pass"),
    _unsupported("verify_only", "no read-back without the job's writes before it"),
    _unsupported("zonemode", "no zoned devices"),
    _unsupported("unified_rw_reporting", "reads and writes are reported apart"),
    _unsupported("write_iolog", "trace replay is a separate command"),
    _unsupported("read_iolog", "trace replay is a separate command"),
)

#: Option name or alias -> its row.
OPTIONS: dict[str, Option] = {n: o for o in _TABLE for n in (o.name, *o.aliases)}


def supported_names() -> list[str]:
    """Names ssdlab honours or accepts, for error messages.

    Examples
    --------
    >>> "iodepth" in supported_names() and "zonemode" not in supported_names()
    True
    """
    return sorted({o.name for o in _TABLE if o.kind != "unsupported"})
