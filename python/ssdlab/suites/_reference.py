"""Published figures beside a suite's own: the comparison every suite with reference figures prints.

A suite maps its results onto the keys of a reference table (:mod:`ssdlab.reference`) and hands the pairs to
:func:`published_table`; ``ssdlab validate`` uses the same mappings, so a suite and the validation never
disagree about which of the model's numbers a published figure is compared with.

Examples
--------
>>> t = published_table("CDM 6 against the BG4 brief", [Beside("seq_read_MBps", 2336, 2400.0, "MB/s")])
>>> t.row_count, Beside("x", 100, 110.0, "MB/s").error_pct
(1, 10.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.table import Table

__all__ = ["Beside", "error_pct", "format_published", "published_table"]


def error_pct(published: object, model: float | None) -> float | None:
    """The model's error against a published figure, in % of it; 0 inside a published range ``[lo, hi]``
    and the distance to the nearer end otherwise (in % of that end); None when there is nothing to compare
    (no model figure, or a published text).

    Examples
    --------
    >>> error_pct(200, 250.0), error_pct([33.9, 48.4], 40.0), round(error_pct([40, 48.4], 30.0), 6)
    (25.0, 0.0, -25.0)
    """
    if model is None or isinstance(published, (str, bool)):
        return None
    if isinstance(published, (list, tuple)):
        lo, hi = (float(v) for v in published)
        if lo <= model <= hi:
            return 0.0
        end = lo if model < lo else hi
        return (model - end) / end * 100.0 if end else None
    if isinstance(published, (int, float)) and published:
        return (model - float(published)) / float(published) * 100.0
    return None


@dataclass(frozen=True)
class Beside:
    """One published figure (a number, a ``[lo, hi]`` range, or None where none is published) and the
    suite's figure for it."""

    key: str
    published: float | list[float] | None
    model: float | None
    unit: str

    @property
    def error_pct(self) -> float | None:
        return error_pct(self.published, self.model)


def format_published(v: object) -> str:
    """A published or model figure as the tables print it: a range as ``lo-hi``, two decimals under 10, one
    under 100, "-" for none.

    Examples
    --------
    >>> format_published([33.9, 48.4]), format_published(2336), format_published(None), format_published(True)
    ('33.9-48.4', '2,336', '-', 'True')
    >>> format_published(1.032), format_published([1.0, 1.2])
    ('1.03', '1.00-1.20')
    """
    if isinstance(v, (list, tuple)):
        return "-".join(format_published(x) for x in v)
    if isinstance(v, bool) or v is None:
        return "-" if v is None else str(v)
    if isinstance(v, float | int):
        return f"{v:,.2f}" if abs(v) < 10 else f"{v:,.1f}" if abs(v) < 100 else f"{v:,.0f}"
    return str(v)


def published_table(title: str, rows: Sequence[Beside], caption: str | None = None) -> Table:
    """The published figures beside the model's, with the error in %."""
    t = Table(title=title, caption=caption)
    for col in ("figure", "published", "model", "unit", "error"):
        t.add_column(col, justify="left" if col == "figure" else "right", no_wrap=col == "figure")
    for r in rows:
        err = r.error_pct
        shown = "-" if err is None else f"{err:+.1f}%"
        t.add_row(r.key, format_published(r.published), format_published(r.model), r.unit, shown)
    return t
