"""ssdlab: a calibrated SSD simulator with the benchmark suites storage reviewers run.

Examples
--------
>>> import ssdlab
>>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16})
>>> res = drive.run(ssdlab.Workload(rw="randread", bs="4k", iodepth=32, size="1g", runtime="50ms", seed=1))
>>> res.iops > 0 and res.latency.percentile(99.99) >= res.latency.mean_us
True
>>> {'bg4-1tb', 'v300s-120gb'} <= set(ssdlab.list_presets())
True
"""

from ssdlab._core import version
from ssdlab.drive import Drive
from ssdlab.errors import (
    ConfigError,
    DriveBusyError,
    Problem,
    SimulationError,
    SsdlabError,
    WorkloadError,
)
from ssdlab.presets import list_presets, preset_path
from ssdlab.result import Direction, IoLog, Latency, Result, Series
from ssdlab.workload import Workload

__version__: str = version()

__all__ = [
    "ConfigError",
    "Direction",
    "Drive",
    "DriveBusyError",
    "IoLog",
    "Latency",
    "Problem",
    "Result",
    "Series",
    "SimulationError",
    "SsdlabError",
    "Workload",
    "WorkloadError",
    "__version__",
    "list_presets",
    "preset_path",
]
