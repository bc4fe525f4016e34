"""The built-in drive presets: TOML files shipped in ``ssdlab/presets/``.

Examples
--------
>>> "bg4-1tb" in list_presets()
True
>>> read_preset("bg4-1tb").startswith('name = "bg4-1tb"')
True
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable

from ssdlab.errors import config_error

__all__ = ["DEFAULT_PRESET", "list_presets", "preset_path", "read_preset"]

#: The preset ``ssdlab run`` uses when none is named.
DEFAULT_PRESET = "bg4-1tb"


def _folder() -> Traversable:
    return resources.files("ssdlab").joinpath("presets")


def list_presets() -> list[str]:
    """Names of the built-in presets, sorted.

    Examples
    --------
    >>> {"bg4-1tb", "generic-tlc-dram"} <= set(list_presets())
    True
    """
    return sorted(p.name.removesuffix(".toml") for p in _folder().iterdir() if p.name.endswith(".toml"))


def preset_path(name: str) -> Traversable:
    """The preset's TOML file; :class:`ssdlab.ConfigError` naming the available presets if there is none.

    Examples
    --------
    >>> preset_path("bg4-1tb").name
    'bg4-1tb.toml'
    """
    available = list_presets()
    if name not in available:
        raise config_error("preset", f"unknown preset {name!r}; available: {', '.join(available)}", name)
    return _folder().joinpath(f"{name}.toml")


def read_preset(name: str) -> str:
    """The preset's TOML text."""
    return preset_path(name).read_text(encoding="utf-8")
