"""The built-in drive presets: TOML files shipped in ``ssdlab/presets/``.

A preset may inherit: ``base = "bg4"`` names a family file (``presets/families/bg4.toml``, the parameters a
family's members share) or another preset, and the preset gives only what differs (its hardware). The chain
is resolved in one place, the native ``resolve_drive_toml`` (deep merge of tables, the child wins); what
:func:`read_preset` returns is complete.

Examples
--------
>>> "bg4-1tb" in list_presets()
True
>>> import tomllib
>>> cfg = tomllib.loads(read_preset("bg4-256gb"))
>>> cfg["name"], cfg["link"]["lanes"], "base" in cfg
('bg4-256gb', 4, False)
>>> preset_source("bg4-256gb").startswith('base = "bg4"')
True
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

from ssdlab._core import resolve_drive_toml
from ssdlab.errors import config_error, near_hint

__all__ = ["DEFAULT_PRESET", "list_presets", "preset_path", "preset_source", "read_preset", "resolve_base"]

#: The preset ``ssdlab run`` uses when none is named.
DEFAULT_PRESET = "bg4-1tb"


def _folder() -> Traversable:
    return resources.files("ssdlab").joinpath("presets")


def list_presets() -> list[str]:
    """Names of the built-in presets, sorted (family files are not presets).

    Examples
    --------
    >>> {"bg4-1tb", "generic-tlc-dram"} <= set(list_presets())
    True
    """
    return sorted(
        p.name.removesuffix(".toml") for p in _folder().iterdir() if p.is_file() and p.name.endswith(".toml")
    )


def preset_path(name: str) -> Traversable:
    """The preset's TOML file; :class:`ssdlab.ConfigError` naming the available presets if there is none.

    Examples
    --------
    >>> preset_path("bg4-1tb").name
    'bg4-1tb.toml'
    """
    available = list_presets()
    if name not in available:
        hint = near_hint(name, available)
        raise config_error(
            "preset", f"unknown preset {name!r}{hint}; available: {', '.join(available)}", name
        )
    return _folder().joinpath(f"{name}.toml")


def preset_source(name: str) -> str:
    """The preset's file as written (``base`` and only its own keys, with their comments)."""
    return preset_path(name).read_text(encoding="utf-8")


def resolve_base(text: str, origin: str) -> str:
    """A drive TOML (read from ``origin``, named in errors) with its ``base`` chain resolved against the
    built-in families and presets; a text without ``base`` comes back complete as it was.

    Examples
    --------
    >>> import tomllib
    >>> mine = 'base = "bg4-1tb"\\nname = "mine"\\n[nand]\\ntR_us = [60.0]\\n'
    >>> cfg = tomllib.loads(resolve_base(mine, "mine.toml"))
    >>> cfg["name"], cfg["nand"]["tR_us"], cfg["link"]["lanes"]
    ('mine', [60.0], 4)
    """
    return resolve_drive_toml(text, origin, str(Path(str(_folder()))))


def read_preset(name: str) -> str:
    """The preset's complete TOML, its ``base`` chain resolved."""
    return resolve_base(preset_source(name), f"{name}.toml")
