"""A simulated SSD: one native drive whose state persists from run to run."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from os import PathLike
from pathlib import Path

from ssdlab._core import NativeDrive
from ssdlab.counters import Counters
from ssdlab.errors import config_error
from ssdlab.presets import read_preset
from ssdlab.result import Result
from ssdlab.units import parse_size, parse_time_ns
from ssdlab.workload import Workload

__all__ = ["Drive", "Overrides", "parse_overrides"]

#: ``--set`` overrides: ``{"nand.tR_us": 50}`` or ``["nand.tR_us=50"]``.
Overrides = Mapping[str, object] | Iterable[str] | None


def parse_overrides(overrides: Overrides) -> list[tuple[str, str]]:
    """``(path, value)`` pairs for the native loader, which keeps each key's TOML type.

    Examples
    --------
    >>> parse_overrides({"nand.tR_us": 50, "nand.one_shot_program": False})
    [('nand.tR_us', '50'), ('nand.one_shot_program', 'false')]
    >>> parse_overrides(["ftl.user_capacity_gb=16"])
    [('ftl.user_capacity_gb', '16')]
    """
    if overrides is None:
        return []
    if isinstance(overrides, Mapping):
        return [(str(k), _toml_text(v)) for k, v in overrides.items()]
    pairs = []
    for item in overrides:
        path, sep, value = str(item).partition("=")
        if not sep or not path.strip():
            raise config_error("--set", f"{item!r} is not PATH=VALUE (e.g. nand.tR_us=50)", item)
        pairs.append((path.strip(), value.strip()))
    return pairs


def _toml_text(value: object) -> str:
    # TOML spells booleans in lower case; everything else the loader parses from str().
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


class Drive:
    """One simulated SSD. Its state (mapping, blocks, clock) persists across runs and can be cloned.

    Make one with :meth:`from_preset`, :meth:`from_toml` or :meth:`from_toml_str`; ``set`` overrides any
    parameter by its TOML path.

    Examples
    --------
    >>> import ssdlab
    >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16})
    >>> drive.name, drive.capacity_bytes // 10**9
    ('bg4-1tb', 16)
    >>> res = drive.run(ssdlab.Workload(rw="randread", bs="4k", iodepth=32, size="1g", runtime="20ms"))
    >>> res.iops > 0
    True
    >>> snapshot = drive.clone()   # same state; runs on it leave `drive` alone
    """

    def __init__(self, native: NativeDrive) -> None:
        self._drive = native

    @classmethod
    def from_preset(cls, name: str, set: Overrides = None) -> Drive:
        """A built-in preset (see :func:`ssdlab.list_presets`)."""
        return cls.from_toml_str(read_preset(name), set=set)

    @classmethod
    def from_toml(cls, path: str | PathLike[str], set: Overrides = None) -> Drive:
        """A drive described by a TOML file, such as ``ssdlab show`` prints."""
        return cls.from_toml_str(Path(path).read_text(encoding="utf-8"), set=set)

    @classmethod
    def from_toml_str(cls, text: str, set: Overrides = None) -> Drive:
        """A drive described by TOML text."""
        return cls(NativeDrive(text, parse_overrides(set)))

    @property
    def name(self) -> str:
        return self._drive.name

    @property
    def capacity_bytes(self) -> int:
        """Bytes the host can address."""
        return self._drive.capacity_bytes

    @property
    def now_s(self) -> float:
        """Simulated time since the drive was made."""
        return self._drive.now_ns / 1e9

    def config_toml(self) -> str:
        """The full parameter set as TOML that :meth:`from_toml_str` loads back."""
        return self._drive.config_toml()

    def run(self, workload: Workload, progress: Callable[[float], None] | None = None) -> Result:
        """Play ``workload`` from the drive's current state; ``progress`` gets the fraction done."""
        return Result(self._drive.run(workload.to_native(), progress), self.name, workload)

    def idle(self, duration: str | int | float) -> None:
        """Let simulated time pass with no host IO (a bare number is seconds)."""
        self._drive.idle(parse_time_ns(duration, "idle"))

    def trim(self, offset: int | str, length: int | str) -> None:
        """Deallocate ``length`` bytes from ``offset`` (rounded inward to whole 4 KiB pages)."""
        self._drive.trim(parse_size(offset, "offset"), parse_size(length, "length"))

    def sanitize(self) -> None:
        """Sanitize the drive (NVMe block erase): erase every block that holds data and empty the map.

        Unlike :func:`ssdlab.precondition.purge` (a new drive from the same config), wear, counters and
        the clock carry on, and the erases take their time.

        Examples
        --------
        >>> import ssdlab
        >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
        >>> _ = drive.run(ssdlab.Workload(rw="write", bs="1m", iodepth=8, size="1g"))
        >>> before = drive.counters()
        >>> drive.sanitize()
        >>> after = drive.counters()
        >>> after["mapped_bytes"], after["nand_blocks_erased"] > before["nand_blocks_erased"]
        (0.0, True)
        """
        self._drive.sanitize()

    def clone(self) -> Drive:
        """An independent copy with the same state."""
        return Drive(self._drive.clone())

    def counters(self) -> Counters:
        """Every counter since the drive was made (see :mod:`ssdlab.counters`)."""
        return Counters(self._drive.counters())

    def __repr__(self) -> str:
        return f"Drive(name={self.name!r}, capacity_bytes={self.capacity_bytes}, now_s={self.now_s:g})"
