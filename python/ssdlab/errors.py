"""The exception tree of ssdlab, defined here and raised by the native module too.

Every error is an :class:`SsdlabError`. Bad input is a :class:`ConfigError` (a drive config) or a
:class:`WorkloadError` (a workload or suite parameter); both are also :class:`ValueError`, list every problem
found through :meth:`~InputError.errors` (typed :class:`Problem` s: path, value, message) and print one line
per problem. Callers (and the CLI) read the problems instead of parsing messages.

Examples
--------
>>> err = workload_error("iodepth", "must be 1..65536", 0)
>>> isinstance(err, ValueError), str(err)
(True, 'iodepth: must be 1..65536 (got 0)')
>>> err.errors()[0].path, err.field, err.value
('iodepth', 'iodepth', '0')
>>> both = [Problem("nand.tR_us", "-1", "must be 1..=10000"), Problem("nand.channels", "0", "must be 1..=64")]
>>> print(ConfigError(both))
nand.tR_us: must be 1..=10000 (got -1)
nand.channels: must be 1..=64 (got 0)
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "ConfigError",
    "DriveBusyError",
    "InputError",
    "Problem",
    "SimulationError",
    "SsdlabError",
    "WorkloadError",
    "config_error",
    "nearest",
    "workload_error",
]


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the input.

    ``path`` is where: a TOML path (``nand.tR_us``), a workload field (``iodepth``) or a CLI option
    (``--set``); ``value`` is what was given, as text ("" when there is none); ``message`` says what is wrong
    and what is allowed.

    Examples
    --------
    >>> str(Problem("iodepth", "0", "must be 1..65536"))
    'iodepth: must be 1..65536 (got 0)'
    >>> str(Problem("line 3", "", "expected `=`"))
    'line 3: expected `=`'
    """

    path: str
    value: str
    message: str

    def __str__(self) -> str:
        # A message that already starts with its path ("rw: must be one of ...") is not prefixed again.
        prefixed = not self.path or self.message.startswith(f"{self.path}:")
        text = self.message if prefixed else f"{self.path}: {self.message}"
        # A message that already quotes what was given ("'4q' is not a size") does not repeat it.
        if self.value and "(got " not in self.message and f"'{self.value}'" not in self.message:
            text += f" (got {self.value})"
        return " ".join(text.split())


class SsdlabError(Exception):
    """Base class of every ssdlab error."""


class InputError(SsdlabError, ValueError):
    """Input that cannot be used: one :class:`Problem` or more, printed one per line.

    ``field`` and ``value`` are those of the first problem (what a single-problem error is about).
    """

    def __init__(self, problems: Iterable[Problem]) -> None:
        self._problems = tuple(problems)
        super().__init__(self._problems)

    def errors(self) -> list[Problem]:
        """Every problem found, in the order found."""
        return list(self._problems)

    @property
    def field(self) -> str:
        return self._problems[0].path if self._problems else ""

    @property
    def value(self) -> str:
        return self._problems[0].value if self._problems else ""

    def __str__(self) -> str:
        return "\n".join(str(p) for p in self._problems)


class ConfigError(InputError):
    """A drive config that cannot be used (paths are TOML paths such as ``nand.tR_us``)."""


class WorkloadError(InputError):
    """A workload or suite parameter that cannot be used (paths are field names such as ``iodepth``)."""


class SimulationError(SsdlabError):
    """The simulation could not go on (e.g. the FTL ran out of space, or the run was cancelled)."""


class DriveBusyError(SsdlabError, RuntimeError):
    """The drive is already running something: a drive runs one thing at a time (e.g. one thread each).

    Give each thread its own drive (:meth:`ssdlab.Drive.clone`).
    """


def workload_error(field: str, message: str, value: object) -> WorkloadError:
    """A :class:`WorkloadError` with one problem.

    Examples
    --------
    >>> str(workload_error("runs", "must be 1..9", 12))
    'runs: must be 1..9 (got 12)'
    """
    return WorkloadError([Problem(field, str(value), message)])


def config_error(path: str, message: str, value: object) -> ConfigError:
    """A :class:`ConfigError` with one problem.

    Examples
    --------
    >>> config_error("preset", "unknown preset 'x'", "x").errors()[0].path
    'preset'
    """
    return ConfigError([Problem(path, str(value), message)])


def output_folder(path: Path, option: str) -> Path:
    """``path`` as a folder to write results into, made now if missing (so that a run does not end, minutes
    later, in an error it could have given at once), or a :class:`ConfigError` naming ``option`` and why.

    Examples
    --------
    >>> import tempfile
    >>> f = Path(tempfile.mkdtemp()) / "a-file"
    >>> _ = f.write_text("x")
    >>> try:
    ...     output_folder(f, "--out")
    ... except ConfigError as e:
    ...     print(e)
    --out: is a file, not a folder (got ...a-file)
    """
    if path.exists() and not path.is_dir():
        raise config_error(option, "is a file, not a folder", str(path))
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise config_error(option, f"cannot make the folder: {e.strerror or e}", str(path)) from None
    if not os.access(path, os.W_OK):
        raise config_error(option, "cannot write in this folder: permission denied", str(path))
    return path


def output_file(path: Path, option: str) -> Path:
    """``path`` as a file to write, its folder made now if missing: as :func:`output_folder`."""
    if path.is_dir():
        raise config_error(option, "is a folder, not a file", str(path))
    output_folder(path.parent, option)
    return path


def read_text_file(path: Path, what: str, error: type[InputError] = ConfigError) -> str:
    """The text of the UTF-8 file ``path`` (a ``what``: "drive file", "spec"), or an ``error`` naming the file
    and why it cannot be read.

    Examples
    --------
    >>> try:
    ...     read_text_file(Path("no-such.toml"), "drive file")
    ... except ConfigError as e:
    ...     print(e)
    no-such.toml: cannot read the drive file: No such file or directory
    """
    try:
        return path.read_text(encoding="utf-8")
    except OSError as e:
        reason = e.strerror or str(e)
    except UnicodeDecodeError:
        reason = "not a UTF-8 text file"
    raise error([Problem(str(path), "", f"cannot read the {what}: {reason}")]) from None


def near_hint(name: str, names: Sequence[str]) -> str:
    """`` (did you mean X?)`` for the closest of ``names`` to an unknown ``name``, or "" when none is close.

    Examples
    --------
    >>> near_hint("bg4-1t", ["bg4-1tb", "bg3-128gb"]), near_hint("nope", ["bg4-1tb"])
    (' (did you mean bg4-1tb?)', '')
    """
    near = _close(name, names)
    return f" (did you mean {', '.join(near)}?)" if near else ""


def nearest(name: str, names: Sequence[str], listed_as: str) -> str:
    """What to say of an unknown ``name``: the closest of ``names``, or all of them as ``listed_as``.

    Examples
    --------
    >>> nearest("iodpeth", ["iodepth", "bs"], "fields"), nearest("zz", ["iodepth", "bs"], "fields")
    ('did you mean iodepth?', 'fields: iodepth, bs')
    """
    near = _close(name, names)
    return f"did you mean {', '.join(near)}?" if near else f"{listed_as}: {', '.join(names)}"


def _close(name: str, names: Sequence[str]) -> list[str]:
    """Up to three of ``names`` close to ``name``, closest first (difflib's ratio)."""
    return difflib.get_close_matches(name, names, n=3)
