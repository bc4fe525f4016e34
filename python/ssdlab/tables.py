"""Tables that fit the terminal: a table wider than the screen is printed as several, each repeating the
columns that name its rows, rather than squeezed until its numbers read ``1…``.

Examples
--------
>>> from rich.table import Table
>>> t = Table(title="QD scaling")
>>> t.add_column("test")
>>> t.add_column("HMB")
>>> qds = (1, 2, 4, 8, 16, 32)
>>> for qd in qds:
...     t.add_column(f"QD{qd} MB/s", justify="right")
>>> t.add_row("Sustained 128 KiB seq read", "on", *(f"{2000 * (1 - 0.5**qd):,.0f}" for qd in qds))
>>> [len(p.columns) for p in fit_to_width(t, width=200)]  # fits: the table itself
[8]
>>> [[c.header for c in p.columns][2:] for p in fit_to_width(t, width=66)]  # test and HMB in each
[['QD1 MB/s', 'QD2 MB/s'], ['QD4 MB/s', 'QD8 MB/s'], ['QD16 MB/s', 'QD32 MB/s']]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.console import Console
from rich.table import Table

__all__ = ["fit_to_width", "split_to_width"]

#: What :meth:`Table.add_column` takes besides the header, copied from each column of a split table.
_COLUMN_OPTIONS = (
    "footer",
    "header_style",
    "footer_style",
    "style",
    "justify",
    "vertical",
    "overflow",
    "width",
    "min_width",
    "max_width",
    "ratio",
    "no_wrap",
    "highlight",
)


def _natural_width(table: Table) -> int:
    """The columns ``table`` takes with nothing wrapped or cut (measured on a console wide enough)."""
    return Console(width=10_000).measure(table).maximum


def split_to_width(build: Callable[[Sequence[int]], Table], items: Sequence[int], width: int) -> list[Table]:
    """``build(part)`` for consecutive parts of ``items``, each part as long as its table fits ``width``
    columns at its natural width (one item at least, however narrow ``width``)."""
    parts: list[Table] = []
    rest = list(items)
    while rest:
        n = len(rest)
        while n > 1 and _natural_width(build(rest[:n])) > width:
            n -= 1
        parts.append(build(rest[:n]))
        rest = rest[n:]
    return parts


def fit_to_width(table: Table, width: int, keep: int | None = None) -> list[Table]:
    """``table`` alone when it fits ``width`` columns, else split by columns into tables that do: the first
    ``keep`` columns (those that name a row; by default the leading columns not aligned right, as figures
    are) in each, then as many of the others as fit, in order. Each part keeps the title, numbered
    ``(1 of 3)``; the caption goes under the last."""
    if keep is None:
        keep = next((i for i, c in enumerate(table.columns) if c.justify == "right"), len(table.columns))
    if _natural_width(table) <= width or len(table.columns) <= keep + 1:
        return [table]
    rows = [list(c.cells) for c in table.columns]

    def part(columns: Sequence[int]) -> Table:
        t = Table(
            title=table.title,
            box=table.box,
            show_header=table.show_header,
            show_lines=table.show_lines,
            title_style=table.title_style,
            header_style=table.header_style,
        )
        for i in [*range(keep), *columns]:
            col = table.columns[i]
            t.add_column(col.header, **{k: getattr(col, k) for k in _COLUMN_OPTIONS})
        for r, row in enumerate(table.rows):
            t.add_row(
                *(rows[i][r] for i in [*range(keep), *columns]), style=row.style, end_section=row.end_section
            )
        return t

    parts = split_to_width(part, range(keep, len(table.columns)), width)
    for n, p in enumerate(parts, 1):
        if isinstance(p.title, str):
            p.title = f"{p.title} ({n} of {len(parts)})"
    parts[-1].caption = table.caption
    return parts
