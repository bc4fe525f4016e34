"""The published figures presets are calibrated against: ``shared/calibration/published.toml`` beside the
repository (where CI puts it). Suites print their results beside these figures when the file is there.

>>> from ssdlab.published import fill_curve
>>> fill_curve("sn520-128gb")[0]  # [fill from, fill to, MB/s low, MB/s high]
[0.0, 0.025, 750.0, 750.0]
>>> fill_curve("generic-tlc-dram") is None
True
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

#: ``../shared/calibration/published.toml`` beside the repository.
PUBLISHED = Path(__file__).resolve().parents[3] / "shared" / "calibration" / "published.toml"


def load(path: str | Path = PUBLISHED) -> dict[str, Any] | None:
    """The whole published.toml, or None if it is not there."""
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError):
        return None


def entry(key: str, path: str | Path = PUBLISHED) -> dict[str, Any] | None:
    """The table ``[key]``; preset names use dashes (``bg4-128gb``), published.toml keys underscores
    (``bg4_128gb``): both work. None if the file or the table is not there."""
    doc = load(path) or {}
    found = doc.get(key) or doc.get(key.replace("-", "_"))
    return found if isinstance(found, dict) else None


def fill_curve(key: str, path: str | Path = PUBLISHED) -> list[list[float]] | None:
    """The whole-drive ``fill_curve`` of ``[key]`` ([fill from, fill to, MB/s low, MB/s high] segments), or
    None if there is none."""
    e = entry(key, path)
    if e is None or "fill_curve" not in e:
        return None
    return [[float(v) for v in seg] for seg in e["fill_curve"]]
