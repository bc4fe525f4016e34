"""The drive's counters as the engine defines them: one registry, read from the native module.

Each counter has a name, a unit, a kind and a one-sentence description. The kind says what a span between
two snapshots reports: a ``"total"`` (a running total) the difference, a ``"level"`` (a state now, such as
``free_blocks``) the value at the end, a ``"derived"`` counter (``waf``, ``map_hit_rate``) its value
recomputed from the span's counters. :func:`delta` applies these rules (in the engine, so Python keeps no
formula of its own); :class:`Counters` holds values by name and refuses a name the registry does not know.

Examples
--------
>>> import ssdlab
>>> from ssdlab.counters import REGISTRY, delta
>>> REGISTRY["waf"].kind, REGISTRY["free_blocks"].kind, REGISTRY["host_write_bytes"].unit
('derived', 'level', 'bytes')
>>> drive = ssdlab.Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
>>> before = drive.counters()
>>> _ = drive.run(ssdlab.Workload(rw="write", size="64m"))
>>> _ = drive.run(ssdlab.Workload(rw="write", size="64m"))
>>> span = delta(before, drive.counters())
>>> span["host_write_bytes"] == 128 << 20, round(span["waf"], 2)
(True, 1.0)
>>> span["host_write"]
Traceback (most recent call last):
...
ssdlab.counters.UnknownCounterError: unknown counter 'host_write'; did you mean host_write_ios, ...?
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from ssdlab._core import SsdlabError, counter_delta, counter_registry

__all__ = [
    "REGISTRY",
    "CounterInfo",
    "Counters",
    "UnknownCounterError",
    "delta",
    "docs_markdown",
    "format_value",
    "has_value",
    "info",
]


@dataclass(frozen=True)
class CounterInfo:
    """One registry entry."""

    name: str
    #: What the value measures: ``"bytes"``, ``"ios"``, ``"4 KiB pages"``, ``"NAND pages"``, ``"map pages"``,
    #: ``"blocks"``, ``"ns"``, ``"P/E cycles"``, ``"events"`` or ``"ratio"``.
    unit: str
    #: ``"total"``, ``"level"`` or ``"derived"``.
    kind: str
    description: str


#: Every counter by name, in the order drives report them.
REGISTRY: Mapping[str, CounterInfo] = MappingProxyType(
    {name: CounterInfo(name, unit, kind, text) for name, unit, kind, text in counter_registry()}
)


class UnknownCounterError(SsdlabError, KeyError):
    """A counter name the registry does not know (a ``KeyError``, so ``counters.get(name)`` still works)."""

    def __init__(self, name: str) -> None:
        self.name = name
        if name in REGISTRY:
            message = f"counter {name!r} is not among these values"
        else:
            close = [n for n in REGISTRY if len(name) >= 3 and (name in n or n in name)]
            close += [n for n in difflib.get_close_matches(name, list(REGISTRY), n=3) if n not in close]
            listed = " (ssdlab.counters.REGISTRY lists them)"
            hint = f"; did you mean {', '.join(close[:3])}?" if close else listed
            message = f"unknown counter {name!r}{hint}"
        super().__init__(message)

    def __str__(self) -> str:
        # KeyError would print the repr of the message.
        return str(self.args[0])

    def __reduce__(self) -> tuple[type[UnknownCounterError], tuple[str]]:
        # Rebuilt from the name (args holds the message), e.g. when a worker process raises it.
        return (type(self), (self.name,))


class Counters(dict[str, float]):
    """Counter values by name, in the registry's order. A plain ``dict`` (JSON-ready), except that
    ``counters[name]`` on a name it lacks raises :class:`UnknownCounterError` naming close matches.

    Examples
    --------
    >>> c = Counters({"waf": 1.5})
    >>> c["waf"], c.get("map_hit_rate", 0.0)
    (1.5, 0.0)
    >>> c["wa"]
    Traceback (most recent call last):
    ...
    ssdlab.counters.UnknownCounterError: unknown counter 'wa'; did you mean waf?
    """

    def __missing__(self, name: str) -> float:
        raise UnknownCounterError(name)


def info(name: str) -> CounterInfo:
    """The registry entry of ``name``.

    Examples
    --------
    >>> info("gc_page_moves").unit
    '4 KiB pages'
    """
    try:
        return REGISTRY[name]
    except KeyError:
        raise UnknownCounterError(name) from None


#: Ratios and the counter they are per: over a span with none of that (WAF without host writes) the
#: registry gives 0, which is no value.
_RATIO_OF = {"waf": "host_write_bytes", "map_hit_rate": "map_lookups"}


def has_value(counters: Mapping[str, float], name: str) -> bool:
    """Whether counter ``name`` means something over this span: not a ratio of nothing.

    Examples
    --------
    >>> has_value({"waf": 0.0, "host_write_bytes": 0.0}, "waf"), has_value({"waf": 1.2}, "waf")
    (False, True)
    """
    base = _RATIO_OF.get(name)
    return base is None or counters.get(base, 1.0) != 0


def format_value(counters: Mapping[str, float], name: str, thousands: bool = True) -> str:
    """Counter ``name`` of ``counters`` as the tables print it: a whole number (and any time in ns: a
    fraction of a nanosecond says nothing) as one, with thousands separators unless ``thousands`` is off (as
    fio's own text has none), else four decimals; "-" for a ratio of nothing (:func:`has_value`) and for one
    a real target cannot see (NaN, or None in a saved JSON).

    Examples
    --------
    >>> c = {"host_read_ios": 1292575.0, "waf": 1.00531, "host_write_bytes": 4096.0, "die_busy_ns": 2.75}
    >>> format_value(c, "host_read_ios"), format_value(c, "host_read_ios", thousands=False)
    ('1,292,575', '1292575')
    >>> format_value(c, "waf"), format_value({"waf": 0.0, "host_write_bytes": 0.0}, "waf")
    ('1.0053', '-')
    >>> format_value(c, "die_busy_ns")
    '3'
    """
    value = counters[name]
    if value is None or not math.isfinite(value) or not has_value(counters, name):
        return "-"
    sep = "," if thousands else ""
    whole = value == int(value) or info(name).unit == "ns"
    return f"{value:{sep}.0f}" if whole else f"{value:{sep}.4f}"


def delta(before: Mapping[str, float], after: Mapping[str, float]) -> Counters:
    """What a drive did between two :meth:`ssdlab.Drive.counters` snapshots: totals subtract, levels are
    the value at the end, derived counters (``waf``, ``map_hit_rate``, ``die_utilisation_mean``) are the
    span's own.

    Both snapshots must be whole (every counter that is not derived); a name the registry does not know is a
    ``ValueError``. See the module's example.
    """
    span = counter_delta(dict(before), dict(after))
    if any(math.isnan(v) for v in after.values()):
        # A real target (ssdlab.target) cannot see inside the drive: what derives from the unseen is unseen.
        span.update({name: math.nan for name, c in REGISTRY.items() if c.kind == "derived"})
    return Counters(span)


def docs_markdown() -> str:
    """``docs/counters.md``: the registry as a Markdown table (``make docs`` writes it with
    ``scripts/counters_doc.py``; a test checks it is current).

    Examples
    --------
    >>> docs_markdown().splitlines()[0]
    '# Drive counters'
    """
    rows = "\n".join(f"| `{c.name}` | {c.unit} | {c.kind} | {c.description} |" for c in REGISTRY.values())
    return f"""# Drive counters

Generated from the engine's counter registry (`crates/ssdlab-core/src/stats/counters.rs`) by
`scripts/counters_doc.py` (`make docs`); do not edit by hand.

`Drive.counters()` gives each counter since the drive was made; `Result.counters` and
`ssdlab.counters.delta(before, after)` give the change over a span. The kind decides what a span reports:
a **total** the difference, a **level** its value at the end of the span, a **derived** counter its value
recomputed from the span's counters (so `waf` is the span's write amplification). Reading a name that is not
here is an error.

| counter | unit | kind | meaning |
|---|---|---|---|
{rows}
"""
