"""The drive options every command line of ssdlab takes (``ssdlab ...`` and ``ssdlab nvme ...``), and the
drive they open, its errors named after the options as the user typed them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from ssdlab.drive import Drive
from ssdlab.errors import ConfigError
from ssdlab.presets import DEFAULT_PRESET

__all__ = ["DriveOpt", "JsonOpt", "PresetOpt", "ScaleOpt", "SetOpt", "open_drive"]

PresetOpt = Annotated[
    str | None, typer.Option("--preset", "-p", help=f"Built-in drive preset (default {DEFAULT_PRESET}).")
]
DriveOpt = Annotated[
    Path | None,
    typer.Option(
        "--drive",
        "-d",
        help='Drive TOML file: complete (as `ssdlab show` prints), or `base = "PRESET"` and what differs.',
    ),
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", "-s", help="Override a parameter by its TOML path, PATH=VALUE (repeatable)."),
]
ScaleOpt = Annotated[
    float | None,
    typer.Option(
        "--scale-capacity-gb",
        help="Scale the drive down to this user capacity: same dies, proportionally fewer blocks, the same "
        "over-provisioning, so it fills and garbage-collects like the full drive, sooner.",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON on stdout.")]

#: :meth:`Drive.open`'s argument names as the options that give them.
_OPTION = {"drive_file": "--drive", "capacity_gb": "--scale-capacity-gb"}


def open_drive(
    preset: str | None,
    drive_file: Path | None,
    overrides: list[str] | None,
    capacity_gb: float | None = None,
    data: bool = False,
) -> Drive:
    """:meth:`Drive.open` from the options; a problem names the option (``--drive``, not ``drive_file``).

    Examples
    --------
    >>> try:
    ...     open_drive("bg4-1tb", Path("my.toml"), None)
    ... except ConfigError as e:
    ...     print(e.errors()[0].path, "|", e.errors()[0].message)
    --drive | give --preset or --drive, not both
    """
    try:
        return Drive.open(preset, drive_file, set=overrides, capacity_gb=capacity_gb, data=data)
    except ConfigError as e:
        named = [
            replace(
                p,
                path=_OPTION.get(p.path, p.path),
                message="give --preset or --drive, not both" if p.path == "drive_file" else p.message,
            )
            for p in e.errors()
        ]
        raise ConfigError(named) from None
