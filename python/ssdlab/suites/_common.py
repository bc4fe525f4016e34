"""What every suite shares: run seeds derived from the suite's root seed, and progress reporting mapped onto
the whole suite.

A suite reports progress as ``progress(fraction_done, what_is_running)``; the engine's own callback (one
per :meth:`ssdlab.Drive.run`) takes only the fraction of that run. :func:`scaled` maps one onto a slice
``[start, end]`` of the other, :func:`sub` a suite step's own ``Progress`` onto a slice of the suite's. A
slice's ends are hit exactly, so consecutive slices report a non-decreasing fraction.

Examples
--------
>>> seen = []
>>> native = scaled(lambda f, what: seen.append((f, what)), 0.5, 0.75, "run 3/4")
>>> native(0.0), native(1.0)
(None, None)
>>> seen
[(0.5, 'run 3/4'), (0.75, 'run 3/4')]
>>> scaled(None, 0.0, 1.0, "x") is None
True
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Protocol

from ssdlab._core import version as ssdlab_version

__all__ = ["NativeProgress", "Progress", "number", "result_doc", "run_seed", "scaled", "sub"]

#: ``progress(fraction_done, what_is_running)``, as the suites and preconditioning steps take it.
Progress = Callable[[float, str], None]

#: The engine's per-run callback: ``progress(fraction_of_this_run)``.
NativeProgress = Callable[[float], None]


def run_seed(suite_seed: int, *parts: object) -> int:
    """A run's seed from the suite's root seed and the run's place in the suite (test, direction, run index,
    ...), so that each run draws its own random stream and the suite stays a pure function of its seed;
    stable across Python versions and processes.

    Examples
    --------
    >>> run_seed(1, "RND4K Q32T1", "read", 2) == run_seed(1, "RND4K Q32T1", "read", 2)
    True
    >>> len({run_seed(1, "RND4K Q32T1", "read", j) for j in range(1, 6)})  # five runs, five streams
    5
    >>> run_seed(1, "RND4K Q32T1", "read", 2) != run_seed(2, "RND4K Q32T1", "read", 2)
    True
    """
    # hash() is salted per process; blake2b is not.
    key = "/".join(str(p) for p in (suite_seed, *parts)).encode()
    return int.from_bytes(hashlib.blake2b(key, digest_size=8).digest(), "little")


def _between(start: float, end: float, fraction: float) -> float:
    # Exactly start at 0 and end at 1 (start + (end - start) * 1 can miss end by a rounding step).
    return start * (1.0 - fraction) + end * fraction


def scaled(progress: Progress | None, start: float, end: float, what: str) -> NativeProgress | None:
    """An engine callback for one run, mapped onto ``[start, end]`` of ``progress`` and labelled ``what``;
    None when there is no progress to report to (the engine then skips the calls)."""
    if progress is None:
        return None
    cb = progress

    def report(fraction: float) -> None:
        cb(_between(start, end, fraction), what)

    return report


def sub(progress: Progress | None, start: float, end: float) -> Progress | None:
    """A step's own ``Progress`` mapped onto ``[start, end]`` of ``progress`` (labels kept).

    Examples
    --------
    >>> seen = []
    >>> sub(lambda f, what: seen.append((f, what)), 0.3, 0.8)(0.5, "WIPC")
    >>> seen
    [(0.55, 'WIPC')]
    """
    if progress is None:
        return None
    cb = progress

    def report(fraction: float, what: str) -> None:
        cb(_between(start, end, fraction), what)

    return report


def number(value: object) -> float | None:
    """A result-dict value as a figure: a number (not a boolean) as float; null, NaN (what a real target
    cannot observe) or anything else as None.

    Examples
    --------
    >>> number(3), number(2.5), number(None), number(float("nan")), number(True)
    (3.0, 2.5, None, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return None if value != value else float(value)  # NaN != NaN


class _Made(Protocol):
    """What a suite result says about how it was made."""

    preset: str
    config_toml: str


def result_doc(suite: str, result: _Made, **fields: object) -> dict[str, object]:
    """A suite result's JSON document: who made it (the suite, ssdlab's version, the preset and, for a suite
    that draws random numbers, its seed), the suite's own ``fields``, and the drive's full config last.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> res = SimpleNamespace(preset="bg4-1tb", seed=7, config_toml="[nand]")
    >>> doc = result_doc("atto", res, qd=4)
    >>> [k for k in doc], doc["seed"], doc["qd"]
    (['suite', 'ssdlab_version', 'preset', 'seed', 'qd', 'config_toml'], 7, 4)
    """
    head: dict[str, object] = {"suite": suite, "ssdlab_version": ssdlab_version(), "preset": result.preset}
    if hasattr(result, "seed"):
        head["seed"] = result.seed
    return {**head, **fields, "config_toml": result.config_toml}
