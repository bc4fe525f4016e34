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
['blockalign', 'bsrange', 'bssplit']
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from ssdlab._core import SsdlabError
from ssdlab.units import format_time, parse_time_ns
from ssdlab.workload import RW_NAMES

__all__ = ["OPTIONS", "Option", "OptionValueError", "bool_option", "parse_fio_size", "supported_names"]

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


def _one_int(low: int, high: int) -> Callable[[str | None, int], object]:
    inner = _int(low, high)

    def convert(text: str | None, kb_base: int) -> object:
        if text is not None and "," in text:
            raise OptionValueError(f"{text!r} gives per-direction values; ssdlab takes one value for all IO")
        return inner(text, kb_base)

    return convert


def bool_option(text: str | None, kb_base: int) -> object:
    # A bare flag (`time_based`) is true, as in fio.
    if text is None or text.strip() in ("1", "true", "on", "yes"):
        return True
    if text.strip() in ("0", "false", "off", "no"):
        return False
    raise OptionValueError(f"{text!r} is not 0 or 1")


def _rw(text: str | None, kb_base: int) -> object:
    text = _needs_value(text).strip()
    if ":" in text:
        raise OptionValueError(
            f"{text!r}: sequential gaps (rw=...:N) are not supported yet; use {text.partition(':')[0]}"
        )
    if text not in RW_NAMES:
        raise OptionValueError(f"{text!r} is not one of {', '.join(RW_NAMES)}")
    return text


def _rwmixwrite(text: str | None, kb_base: int) -> object:
    return 100 - _parse_int(text, 0, 100)


def _distribution(text: str | None, kb_base: int) -> object:
    text = _needs_value(text).strip()
    if text != "random":
        raise OptionValueError(
            f"{text!r}: only the uniform distribution (random) is supported yet, not zipf, pareto, "
            "normal or zoned"
        )
    return text


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

#: Every option by its name and aliases.
_TABLE: tuple[Option, ...] = (
    # Options that become Workload fields.
    _workload("rw", _rw, " | ".join(RW_NAMES), "readwrite"),
    _workload("bs", _size, "size, a multiple of 4k", "blocksize"),
    _workload("iodepth", _int(1, 65_536), "1..65536"),
    _workload("size", _size, "size (region from offset)"),
    _workload("offset", _size, "size"),
    _workload("io_size", _size, "size (bytes to move)", "io_limit"),
    _workload("runtime", _runtime, "time, seconds by default", "timeout"),
    _workload("time_based", bool_option, "flag"),
    _workload("ramp_time", _time("s"), "time, seconds by default"),
    _workload("rwmixread", _int(0, 100), "0..100"),
    _workload("rwmixwrite", _rwmixwrite, "0..100", field="rwmixread"),
    _workload("rate_iops", _one_int(0, 100_000_000), "IOs per second per job"),
    _workload("thinktime", _time("us"), "time, microseconds by default"),
    _workload("buffer_compress_percentage", _int(0, 100), "0..100"),
    _workload("randseed", _int(0, 2**64 - 1), "whole number", "seed", field="seed"),
    _workload("bwavgtime", _time("ms"), "time, milliseconds by default (500)", field="interval"),
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
    _job("random_distribution", _distribution, "random (uniform, what ssdlab draws)"),
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
    _noted("norandommap", "ssdlab draws random offsets without a map"),
    # fio options ssdlab cannot honour yet.
    _unsupported("bsrange", "one block size per job (bs)"),
    _unsupported("bssplit", "one block size per job (bs)"),
    _unsupported("blockalign", "IOs are aligned to bs", "ba"),
    _unsupported("iodepth_batch", "IOs are submitted one at a time", "iodepth_batch_submit"),
    _unsupported("iodepth_batch_complete_min", "IOs are reaped one at a time", "iodepth_batch_complete"),
    _unsupported("iodepth_batch_complete_max", "IOs are reaped one at a time"),
    _unsupported("offset_increment", "jobs share offset"),
    _unsupported("filesize", "one region per job (size)"),
    _unsupported("startdelay", "every job of a group starts at once"),
    _unsupported("loops", "one pass (or time_based)"),
    _unsupported("rate", "rate_iops"),
    _unsupported("rate_min", "rate_iops"),
    _unsupported("rate_iops_min", "rate_iops"),
    _unsupported("thinktime_blocks", "one IO per think time"),
    _unsupported("thinktime_spin", "thinktime"),
    _unsupported("sync", "no sync writes yet"),
    _unsupported("fsync", "no flush every N writes yet"),
    _unsupported("fdatasync", "no flush every N writes yet"),
    _unsupported("percentage_random", "rw is all random or all sequential"),
    _unsupported("zero_buffers", "buffer_compress_percentage=100"),
    _unsupported("fill_device", "size and io_size"),
    _unsupported("trim_percentage", "rw=trim or randtrim"),
    _unsupported("trim_backlog", "rw=trim or randtrim"),
    _unsupported("verify", "the twin does not store data yet"),
    _unsupported("do_verify", "the twin does not store data yet"),
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
    >>> "iodepth" in supported_names() and "bsrange" not in supported_names()
    True
    """
    return sorted({o.name for o in _TABLE if o.kind != "unsupported"})
