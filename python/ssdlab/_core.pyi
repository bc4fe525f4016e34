"""Native module built from crates/ssdlab-py (bindings to the Rust engine); use the ``ssdlab`` package."""

from collections.abc import Callable, Sequence
from typing import final

__all__ = [
    "ConfigError",
    "NativeDrive",
    "NativeLatency",
    "NativeResult",
    "SimulationError",
    "SsdlabError",
    "WorkloadError",
    "counter_delta",
    "counter_registry",
    "version",
]

class SsdlabError(Exception):
    """Base class of every ssdlab error."""

class ConfigError(SsdlabError):
    """A drive config that cannot be used; ``args == (message, problems)``."""

    problems: list[dict[str, str]]

class WorkloadError(SsdlabError):
    """A workload parameter that cannot be used; ``args == (message,)``."""

    field: str
    value: str

class SimulationError(SsdlabError):
    """The simulation could not go on (e.g. the FTL ran out of space)."""

def version() -> str: ...
def counter_registry() -> list[tuple[str, str, str, str]]:
    """Every counter as ``(name, unit, kind, description)``, in the order drives report them."""

def counter_delta(before: dict[str, float], after: dict[str, float]) -> dict[str, float]:
    """What happened between two ``NativeDrive.counters()`` snapshots, following each counter's kind."""

@final
class NativeLatency:
    @property
    def count(self) -> int: ...
    @property
    def mean_ns(self) -> float: ...
    @property
    def min_ns(self) -> int: ...
    @property
    def max_ns(self) -> int: ...
    @property
    def stdev_ns(self) -> float: ...
    def percentile_ns(self, p: float) -> int: ...

@final
class NativeResult:
    @property
    def elapsed_ns(self) -> int: ...
    @property
    def read_ios(self) -> int: ...
    @property
    def read_bytes(self) -> int: ...
    @property
    def write_ios(self) -> int: ...
    @property
    def write_bytes(self) -> int: ...
    @property
    def trim_ios(self) -> int: ...
    @property
    def counters(self) -> dict[str, float]: ...
    @property
    def die_utilisation(self) -> list[float]: ...
    @property
    def series(self) -> dict[str, list[float]]: ...
    def latency(self, which: str = "all") -> NativeLatency: ...

@final
class NativeDrive:
    def __new__(cls, toml_text: str, overrides: Sequence[tuple[str, str]] = ...) -> NativeDrive: ...
    def config_toml(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def capacity_bytes(self) -> int: ...
    @property
    def now_ns(self) -> int: ...
    def run(
        self,
        workload: dict[str, int | str | bool],
        progress: Callable[[float], object] | None = None,
    ) -> NativeResult: ...
    def idle(self, ns: int) -> None: ...
    def trim(self, offset: int, length: int) -> None: ...
    def sanitize(self) -> None: ...
    def clone(self) -> NativeDrive: ...
    def counters(self) -> dict[str, float]: ...
