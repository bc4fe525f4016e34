"""The published figures the suites compare against, shipped inside the package.

One TOML file per drive (named after its preset, e.g. ``bg4-128gb.toml``) or per source (``starblaze.toml``,
``v300.toml``) in this folder, plus ``sources.toml`` naming every document. Each figure table carries its
``source`` (a key of ``sources.toml``), ``kind`` (``spec``: a vendor sheet; ``review``: an independent test)
and ``method`` (how it was measured); units are in the keys (``seq_read_MBps``, ``slc_cache_GB``).

This module is the one reader of these files: nothing outside the installed package is read. A file that
should be here and is not (a broken install) is an error, never an empty answer; a preset with no published
figure of some kind is an explicit ``None`` that the suites print as such.

Examples
--------
>>> from ssdlab import reference
>>> reference.fill_curve("sn520-128gb")[0]  # [fill from, fill to, MB/s low, MB/s high]
[0.0, 0.025, 750.0, 750.0]
>>> reference.fill_curve("generic-tlc-dram") is None  # no published fill curve for this preset
True
>>> fig = reference.figures("bg4-1tb")["cdm"]
>>> fig["seq_read_MBps"], fig["source"], reference.source_title(fig["source"])[:12]
(2336, 'kioxia_bg4_brief', 'KIOXIA tech ')
"""

from __future__ import annotations

import copy
import functools
import tomllib
from importlib import resources
from importlib.resources.abc import Traversable
from typing import Any

__all__ = [
    "DbTest",
    "db_test",
    "figures",
    "fill_curve",
    "fill_curve_drives",
    "load",
    "names",
    "source_title",
    "sources",
]

#: ``{(case, "read" | "write"): {column: value}}``: the Starblaze database test's table.
DbTest = dict[tuple[str, str], dict[str, float]]

#: Keys every figure table has.
FIGURE_KEYS = ("source", "kind", "method")


def _folder() -> Traversable:
    return resources.files(__name__)


def names() -> list[str]:
    """The reference files (without ``.toml``), sources.toml aside, sorted.

    Examples
    --------
    >>> {"bg4-1tb", "starblaze"} <= set(names())
    True
    """
    return sorted(
        p.name.removesuffix(".toml")
        for p in _folder().iterdir()
        if p.name.endswith(".toml") and p.name != "sources.toml"
    )


def load(name: str) -> dict[str, Any]:
    """The whole reference file ``name`` (``"bg4-128gb"``, ``"starblaze"``, ``"sources"``), a copy the
    caller may change.

    Raises FileNotFoundError naming the file when it is not in the package (a broken install) and
    ValueError naming it when it is not valid TOML.
    """
    return copy.deepcopy(_parsed(name))


@functools.cache
def _parsed(name: str) -> dict[str, Any]:
    path = _folder().joinpath(f"{name}.toml")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FileNotFoundError(
            f"reference data {name}.toml is missing from the installed package ({path}); reinstall ssdlab"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise ValueError(f"reference data {path}: {e}") from None


def sources() -> dict[str, str]:
    """Every source's key and title.

    Examples
    --------
    >>> sources()["starblaze_fms2017"].startswith("Starblaze")
    True
    """
    return {key: str(table["title"]) for key, table in load("sources").items()}


def source_title(key: str) -> str:
    """The title of source ``key``; KeyError naming the known sources if there is none."""
    known = sources()
    if key not in known:
        raise KeyError(f"unknown reference source {key!r}; known: {', '.join(known)}")
    return known[key]


def figures(preset: str) -> dict[str, dict[str, Any]] | None:
    """The published figure tables of ``preset`` (``{"spec": {...}, "fill": {...}}``), or None when there
    are no published figures for this preset (say so where a comparison would go).

    Examples
    --------
    >>> sorted(figures("bg4-128gb"))
    ['as_ssd', 'fill', 'spec']
    >>> figures("generic-tlc-dram") is None
    True
    """
    return load(preset) if preset in names() else None


def fill_curve(preset: str) -> list[list[float]] | None:
    """The whole-drive fill curve of ``preset`` ([fill from, fill to, MB/s low, MB/s high] segments), or None
    when none is published for it."""
    fill = (figures(preset) or {}).get("fill")
    if fill is None or "curve" not in fill:  # a review may give only the cache size and a statement
        return None
    return [[float(v) for v in seg] for seg in fill["curve"]]


def fill_curve_drives() -> list[str]:
    """The presets with a published fill curve.

    Examples
    --------
    >>> fill_curve_drives()
    ['am610-128gb', 'bc501a-128gb', 'bg4-128gb', 'cl1-128gb', 'sn500-250gb', 'sn520-128gb']
    """
    return [n for n in names() if "curve" in load(n).get("fill", {})]


def db_test() -> DbTest:
    """The Starblaze database test (``starblaze.toml [db_test]``) as ``{(case, "read"|"write"): {column:
    value}}``.

    Examples
    --------
    >>> db_test()[("2r1w_1thread", "read")]["IOPS"]
    5803.0
    """
    table = load("starblaze")["db_test"]
    cols = table["columns"]
    out: DbTest = {}
    for row in table["rows"]:
        rec = dict(zip(cols, row, strict=True))
        out[(str(rec["case"]), str(rec["read_or_write"]))] = {
            k: float(v) for k, v in rec.items() if k not in ("case", "read_or_write")
        }
    return out
