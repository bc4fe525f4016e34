"""The drive options every command line of ssdlab takes (``ssdlab ...`` and ``ssdlab nvme ...``), and the
drive they open, its errors named after the options as the user typed them."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from ssdlab.drive import Drive
from ssdlab.errors import ConfigError, workload_error
from ssdlab.presets import DEFAULT_PRESET
from ssdlab.target import Target

__all__ = [
    "DestroyDataOpt",
    "DriveOpt",
    "JsonOpt",
    "KeepOpt",
    "PresetOpt",
    "ScaleOpt",
    "SetOpt",
    "TargetOpt",
    "TargetSizeOpt",
    "open_drive",
    "open_drive_or_target",
]

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
TargetOpt = Annotated[
    Path | None,
    typer.Option(
        "--target",
        help="Run on a real file or block device through real fio instead of a twin (same definitions, "
        "same result shape). A new file is created and removed afterwards.",
    ),
]
TargetSizeOpt = Annotated[
    str | None, typer.Option("--target-size", help="--target: size of a new file (default 1g).")
]
DestroyDataOpt = Annotated[
    bool,
    typer.Option(
        "--destroy-data",
        help="--target: allow overwriting an existing file, or a block device that holds a partition table "
        "or filesystem or is mounted.",
    ),
]
KeepOpt = Annotated[bool, typer.Option("--keep", help="--target: keep the file this run created.")]

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


def open_drive_or_target(
    preset: str | None,
    drive_file: Path | None,
    overrides: list[str] | None,
    capacity_gb: float | None,
    target: Path | None,
    target_size: str | None,
    destroy_data: bool,
    keep: bool,
) -> Drive | Target:
    """The twin the drive options give, or with ``target`` the real file or device (through fio); an option
    of the other kind is refused, named as typed.

    Examples
    --------
    >>> from ssdlab.errors import WorkloadError
    >>> try:
    ...     open_drive_or_target("bg4-1tb", None, None, None, Path("/tmp/x.img"), None, False, False)
    ... except WorkloadError as e:
    ...     print(e.errors()[0].path, "|", e.errors()[0].message)
    --preset | a real --target is not a simulated drive; drop this option
    """
    given: object
    if target is None:
        for name, given in (
            ("--target-size", target_size),
            ("--destroy-data", destroy_data),
            ("--keep", keep),
        ):
            if given:
                raise workload_error(name, "applies only with --target PATH", given)
        return open_drive(preset, drive_file, overrides, capacity_gb)
    simulated: tuple[tuple[str, object], ...] = (
        ("--preset", preset),
        ("--drive", drive_file),
        ("--set", overrides),
        ("--scale-capacity-gb", capacity_gb),
    )
    for name, given in simulated:
        if given:
            raise workload_error(name, "a real --target is not a simulated drive; drop this option", given)
    return Target.open(target, target_size, destroy_data=destroy_data, keep=keep)
