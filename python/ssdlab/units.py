"""fio-style sizes and times.

Sizes follow fio's default ``kb_base=1024``: ``4k`` is 4096 bytes, ``32g`` is 32 GiB, and a trailing ``b`` is
allowed (``4kb``). IEC suffixes (``KiB``, ``MiB``, ...) are also powers of two. fio's compatibility mode
reads ``kib`` as 1000, which surprises everyone and would make CrystalDiskMark 6's "1000 MiB" test file
wrong, so that quirk is deliberately not copied.

Times are simulated: ``us``, ``ms``, ``s``, ``m`` (minutes), ``h``, ``d``; a bare number takes the field's
default unit (seconds for ``runtime`` as in fio, microseconds for ``thinktime`` as in fio).

Examples
--------
>>> parse_size("4k")
4096
>>> parse_size("1000MiB")
1048576000
>>> parse_time_ns("100ms")
100000000
>>> parse_time_ns(5)
5000000000
>>> format_size(32 << 30)
'32g'
"""

from __future__ import annotations

import math
import re

from ssdlab.errors import workload_error

__all__ = ["MAX_U64", "SIZE_UNITS", "format_size", "format_time", "parse_size", "parse_time_ns", "shown"]

#: Binary sizes (what the engine's pages and IOs are counted in) and the decimal GB reviewers report in.
KIB = 1 << 10
MIB = 1 << 20
GIB = 1 << 30
GB = 10**9
#: Bytes of one logical page (an LPN): what the FTL maps (commands address 512 B sectors).
PAGE = 4096

_SIZE_MULT = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40, "p": 1 << 50}
#: The size suffixes (fio's: powers of 1024) and their bytes.
SIZE_UNITS = {suffix: mult for suffix, mult in _SIZE_MULT.items() if suffix}
_TIME_NS = {
    "ns": 1,
    "us": 1_000,
    "usec": 1_000,
    "ms": 1_000_000,
    "msec": 1_000_000,
    "s": 1_000_000_000,
    "sec": 1_000_000_000,
    "m": 60_000_000_000,
    "min": 60_000_000_000,
    "h": 3_600_000_000_000,
    "hr": 3_600_000_000_000,
    "d": 86_400_000_000_000,
}
_NUMBER = r"(\d+(?:\.\d*)?|\.\d+)"
_SIZE_RE = re.compile(_NUMBER + r"\s*([kmgtp]?)(?:i?b)?", re.IGNORECASE)
_TIME_RE = re.compile(_NUMBER + r"\s*([a-z]*)", re.IGNORECASE)

SIZE_HELP = "use a number with an optional k, m, g or t suffix (e.g. 4k, 128k, 1m)"
TIME_HELP = "use a number with an optional us, ms, s, m or h suffix (e.g. 250us, 100ms, 5s, 10m)"


#: The largest size or time the engine takes: it counts bytes and nanoseconds in 64 bits (584 years).
MAX_U64 = 2**64 - 1


def _whole(number: float, field: str, value: object, what: str) -> int:
    if not math.isfinite(number) or number != int(number):
        raise workload_error(field, f"{value!r} is not a whole number of {what}", value)
    return _fits(int(number), field, value, what)


def _fits(n: int, field: str, value: object, what: str) -> int:
    # Python ints have no limit; the engine's do. Say so here rather than as a bare OverflowError later.
    if n > MAX_U64:
        raise workload_error(field, f"is {n} {what}, more than the engine's largest, 2**64 - 1", value)
    return n


def parse_size(value: str | int, field: str = "size") -> int:
    """Bytes from an int or a fio size string such as ``"4k"``, ``"1m"``, ``"32g"`` or ``"1000MiB"``.

    Raises :class:`ssdlab.WorkloadError` naming ``field`` when the value is not a size.

    Examples
    --------
    >>> parse_size("128k"), parse_size(4096), parse_size("1.5g")
    (131072, 4096, 1610612736)
    >>> from ssdlab import WorkloadError
    >>> try:
    ...     parse_size("4q", "bs")
    ... except WorkloadError as e:
    ...     print(e.field, "-", e)
    bs - bs: '4q' is not a size; use a number with an optional k, m, g or t suffix (e.g. 4k, 128k, 1m)
    """
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise workload_error(field, f"{value!r} is not a size; {SIZE_HELP}", value)
    if isinstance(value, int):
        if value < 0:
            raise workload_error(field, f"{value} is negative; sizes are 0 or more bytes", value)
        return _fits(value, field, value, "bytes")
    m = _SIZE_RE.fullmatch(value.strip())
    if m is None:
        raise workload_error(field, f"{value!r} is not a size; {SIZE_HELP}", value)
    number, suffix = m.groups()
    # Exact for integers (no float rounding on 40-bit sizes); decimals only where they come out whole.
    mult = _SIZE_MULT[suffix.lower()]
    if "." not in number:
        return _fits(int(number) * mult, field, value, "bytes")
    return _whole(float(number) * mult, field, value, "bytes")


def parse_time_ns(value: str | int | float, field: str = "runtime", default_unit: str = "s") -> int:
    """Simulated nanoseconds from a number (in ``default_unit``) or a string such as ``"5s"`` or ``"250us"``.

    Raises :class:`ssdlab.WorkloadError` naming ``field`` when the value is not a time.

    Examples
    --------
    >>> parse_time_ns("250us"), parse_time_ns("0.2s"), parse_time_ns(10, default_unit="us")
    (250000, 200000000, 10000)
    """
    unit_ns = _TIME_NS[default_unit]
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise workload_error(field, f"{value!r} is not a time; {TIME_HELP}", value)
    if isinstance(value, (int, float)):
        if not math.isfinite(value) or value < 0:
            raise workload_error(field, f"{value!r} is not a time of 0 or more", value)
        if isinstance(value, int):
            return _fits(value * unit_ns, field, value, "nanoseconds")
        return _whole(round(value * unit_ns, 3), field, value, "nanoseconds")
    m = _TIME_RE.fullmatch(value.strip())
    if m is None or (m.group(2) and m.group(2).lower() not in _TIME_NS):
        raise workload_error(field, f"{value!r} is not a time; {TIME_HELP}", value)
    number, suffix = m.groups()
    mult = _TIME_NS[suffix.lower()] if suffix else unit_ns
    if "." not in number:
        return _fits(int(number) * mult, field, value, "nanoseconds")
    # round() first: 0.2 * 1e9 is 200000000.00000003 in binary floating point.
    return _whole(round(float(number) * mult, 3), field, value, "nanoseconds")


def format_size(nbytes: int) -> str:
    """The shortest exact fio size string for ``nbytes``.

    Examples
    --------
    >>> format_size(4096), format_size(1 << 20), format_size(1000 << 20), format_size(4097)
    ('4k', '1m', '1000m', '4097')
    """
    for suffix in ("p", "t", "g", "m", "k"):
        mult = _SIZE_MULT[suffix]
        if nbytes and nbytes % mult == 0:
            return f"{nbytes // mult}{suffix}"
    return str(nbytes)


def format_time(ns: int) -> str:
    """The shortest exact time string for ``ns`` simulated nanoseconds.

    Examples
    --------
    >>> format_time(5_000_000_000), format_time(100_000_000), format_time(1500)
    ('5s', '100ms', '1500ns')
    """
    for suffix in ("h", "m", "s", "ms", "us"):
        mult = _TIME_NS[suffix]
        if ns and ns % mult == 0:
            return f"{ns // mult}{suffix}"
    return f"{ns}ns"


def shown(value: float | None, spec: str) -> str:
    """``value`` formatted by ``spec``, or "-" when there is none (what a real target cannot report:
    None or NaN).

    Examples
    --------
    >>> shown(1.2345, ".2f"), shown(float("nan"), ".2f"), shown(None, ",.0f")
    ('1.23', '-', '-')
    """
    return format(value, spec) if value is not None and math.isfinite(value) else "-"
