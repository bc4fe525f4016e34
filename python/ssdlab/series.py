"""Per-interval series of a suite run, saved as Parquet beside its JSON (``ssdlab run``) and read back by
``ssdlab report``.

A suite is many engine runs (a CDM test's warm-up and runs, a PTS round's cells, a fill's chunks). A
:class:`Recorder` hooked on the drive (:attr:`ssdlab.Drive.on_run`) keeps each run's per-interval series
(:class:`ssdlab.result.Series`) and its latency percentiles as it finishes; :meth:`Recorder.write` saves
them as one Parquet file per suite job (``<result>.series.parquet``), one row per interval:

=======================  =======  =========================================================================
column                   type     meaning
=======================  =======  =========================================================================
run                      int32    the engine run within the suite job, from 0, in the order they ran
label                    string   that run's workload(s): ``rw bs QDn Tn`` (``+`` between concurrent jobs)
time_s                   float64  end of the interval, simulated seconds since the run's measurement began
read_mbps                float64  reads over the interval, decimal MB/s
write_mbps               float64  writes over the interval, decimal MB/s
iops                     float64  reads + writes over the interval, per second
mean_latency_us          float64  mean completion latency of the IOs completed in the interval
max_latency_us           float64  highest completion latency in the interval
p50_latency_us           float64  median latency of the interval's IOs (within 12.5%: a quarter-octave bucket)
p99_latency_us           float64  99th percentile latency of the interval's IOs (likewise)
p999_latency_us          float64  99.9th percentile latency of the interval's IOs (likewise)
power_w                  float64  the drive's average power over the interval, W (NaN: no power model)
temperature_c            float64  SMART composite temperature at the interval's end, C (NaN: none)
read_iops                float64  reads over the interval, per second
write_iops               float64  writes over the interval, per second
read_mean_latency_us     float64  mean latency of the reads completed in the interval
write_mean_latency_us    float64  mean latency of the writes completed in the interval
=======================  =======  =========================================================================

The file's schema metadata ``ssdlab.runs`` holds, per run (in ``run`` order), JSON with its ``label``,
``ios``, and ``percentiles_us`` (p50 .. p99.99 of the whole run, :data:`ssdlab.result.REPORTED_PERCENTILES`)
from which the report draws latency exceedance curves.

Examples
--------
>>> import tempfile
>>> from pathlib import Path
>>> import ssdlab
>>> drive = ssdlab.Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
>>> rec = Recorder.attach(drive)
>>> _ = drive.run(ssdlab.Workload(rw="randread", size="1g", runtime="300ms", interval="100ms"))
>>> path = rec.write(Path(tempfile.mkdtemp()) / "r.series.parquet")
>>> s = read_series(path)
>>> s.table.num_rows, s.table.column("label")[0].as_py(), list(s.runs[0]["percentiles_us"])  # + the drain
(4, 'randread 4k QD1 T1', ['50', '90', '99', '99.9', '99.99'])
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa  # type: ignore[import-untyped]
import pyarrow.parquet as pq  # type: ignore[import-untyped]

from ssdlab.result import REPORTED_PERCENTILES, Result, Series

if TYPE_CHECKING:
    from ssdlab.drive import Drive
    from ssdlab.target import Target
    from ssdlab.workload import Workload

__all__ = ["SCHEMA", "Recorder", "SavedSeries", "label", "read_series", "series_path"]

_SERIES_COLUMNS = list(Series.__dataclass_fields__)
SCHEMA = pa.schema(
    [("run", pa.int32()), ("label", pa.string())] + [(name, pa.float64()) for name in _SERIES_COLUMNS]
)


def series_path(json_path: str | Path) -> Path:
    """Where the series of the result saved at ``json_path`` go: ``X.json`` -> ``X.series.parquet``."""
    p = Path(json_path)
    return p.with_name(p.stem + ".series.parquet")


def _size(n: int) -> str:
    for unit, k in (("m", 1 << 20), ("k", 1 << 10)):
        if n >= k and n % k == 0:
            return f"{n // k}{unit}"
    return str(n)


def label(workloads: list[Workload]) -> str:
    """A short name of a run's workload(s).

    Examples
    --------
    >>> from ssdlab import Workload
    >>> label([Workload(rw="randrw", rwmixread=65, bs="8k", iodepth=32)])
    'randrw65 8k QD32 T1'
    """
    parts = []
    for w in workloads:
        rw = f"{w.rw}{w.rwmixread}" if w.mixed else w.rw
        bs = w.bs if isinstance(w.bs, str) else _size(int(w.bs))
        parts.append(f"{rw} {bs} QD{w.iodepth} T{w.numjobs}")
    return " + ".join(parts)


@dataclass
class Recorder:
    """Collects every run's series and percentiles on a drive (see the module's doc)."""

    #: One numpy column set per run (concatenated when written: no Python float per interval).
    parts: list[dict[str, Any]] = field(default_factory=list)
    runs: list[dict[str, Any]] = field(default_factory=list)

    @classmethod
    def attach(cls, drive: Drive | Target) -> Recorder:
        """A recorder hooked on ``drive``, simulated or a real target (it replaces any earlier hook)."""
        rec = cls()
        drive.on_run = rec.record
        return rec

    def record(self, res: Result) -> None:
        s = res.series
        name = label(res.workloads)
        lat = res.latency
        part: dict[str, Any] = {col: getattr(s, col) for col in _SERIES_COLUMNS}
        part["run"] = np.full(len(s), len(self.runs), dtype=np.int32)
        part["label"] = name
        self.parts.append(part)
        self.runs.append(
            {
                "label": name,
                "ios": lat.count,
                "percentiles_us": {f"{p:g}": lat.percentile(p) for p in REPORTED_PERCENTILES},
            }
        )

    def table(self) -> pa.Table:
        tables = [
            pa.table(
                {
                    "run": p["run"],
                    "label": pa.repeat(pa.scalar(p["label"], pa.string()), len(p["run"])),
                    **{col: p[col] for col in _SERIES_COLUMNS},
                },
                schema=SCHEMA,
            )
            for p in self.parts
        ]
        t = pa.concat_tables(tables) if tables else SCHEMA.empty_table()
        return t.replace_schema_metadata({"ssdlab.runs": json.dumps(self.runs)})

    def write(self, path: str | Path) -> Path:
        """Save as Parquet at ``path`` (folders are made)."""
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(self.table(), out)
        return out


@dataclass(frozen=True)
class SavedSeries:
    """A series file read back: the table (columns as in the module's doc) and each run's metadata."""

    table: pa.Table
    runs: list[dict[str, Any]]


def read_series(path: str | Path) -> SavedSeries:
    """Read a series file :meth:`Recorder.write` wrote."""
    t = pq.read_table(path)
    meta = (t.schema.metadata or {}).get(b"ssdlab.runs", b"[]")
    return SavedSeries(t, json.loads(meta))
