"""Raising the native exception types from Python with the same shape the Rust side gives them.

:class:`ssdlab.WorkloadError` carries ``.field`` and ``.value``; :class:`ssdlab.ConfigError` carries
``.problems``, a list of ``{"path", "message", "value"}`` dicts. Callers (and the CLI) read these attributes
instead of parsing messages.

Examples
--------
>>> err = workload_error("iodepth", "must be 1..65536 (got 0)", 0)
>>> str(err), err.field, err.value
('iodepth: must be 1..65536 (got 0)', 'iodepth', '0')
>>> config_error("preset", "unknown preset 'x'", "x").problems[0]["path"]
'preset'
"""

from __future__ import annotations

from ssdlab._core import ConfigError, WorkloadError

__all__ = ["config_error", "workload_error"]


def workload_error(field: str, message: str, value: object) -> WorkloadError:
    """A :class:`ssdlab.WorkloadError` whose text starts with the field, as the native ones do."""
    err = WorkloadError(f"{field}: {message}")
    err.field = field
    err.value = str(value)
    return err


def config_error(path: str, message: str, value: object) -> ConfigError:
    """A :class:`ssdlab.ConfigError` with one problem."""
    problems = [{"path": path, "message": message, "value": str(value)}]
    err = ConfigError(f"{path}: {message}", problems)
    err.problems = problems
    return err
