"""Design-space sweeps on dask.distributed: ``ssdlab sweep SPEC.toml``.

A spec names a drive (a preset or a drive TOML), the parameters to vary (drive TOML paths, as ``--set``
takes them, or ``workload.FIELD``), how to sample them (``grid``, ``random`` or ``lhs``, a Latin hypercube),
one or more fio-style workloads and the seeds. Every point (parameters x workload x seed) runs on a fresh
drive in a dask worker; finished points stream into a Parquet dataset (a folder of part files, one per batch,
written atomically), so an interrupted sweep keeps what it finished and a rerun skips every point whose key
(a hash of everything that makes the point: drive text, overrides, workload, seed) is already there. A point
is a pure function of its parameters, so it gives the same figures on any worker.

The spec (see ``examples/sweep/`` and the README)::

    [sweep]
    drive = "bg4-1tb"               # a preset, or a drive TOML path (relative to the spec)
    scale_capacity_gb = 64          # optional: a scaled-down drive (same dies, fewer blocks)
    sampler = "grid"                # grid | random | lhs
    samples = 20                    # random and lhs: how many parameter points
    seed = 1                        # the sampler's seed (random, lhs)
    seeds = [1, 2]                  # every point runs once per workload seed
    set = { "nand.tR_us" = 60 }     # optional: fixed overrides of every point

    [parameters]
    "controller.map_cache.hmb_size_mib" = [16, 32, 64]      # values: each (grid) or drawn among (random, lhs)
    "workload.size" = { min = 1, max = 64, steps = 4, unit = "g", log = true }  # a range

    [workloads.randread]            # ssdlab.Workload fields, plus prefill = true (write the region first)
    rw = "randread"
    iodepth = 32
    runtime = "1s"

    [plot]                          # optional: the sensitivity plot (default: first parameter, iops)
    x = "workload.size"
    by = "controller.map_cache.hmb_size_mib"
    y = "iops"

Examples
--------
>>> spec = parse_spec('''
... [sweep]
... drive = "generic-tlc-dram"
... seeds = [1, 2]
... [parameters]
... "nand.tR_us" = [40, 60]
... "workload.iodepth" = [1, 32]
... [workloads.rr]
... rw = "randread"
... runtime = "10ms"
... ''')
>>> points = spec.points()
>>> len(points), points[0].overrides, points[0].workload["iodepth"], points[0].seed
(8, {'nand.tR_us': 40}, 1, 1)
>>> len({p.key for p in points})
8
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import time
import tomllib
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ssdlab._dask import client as dask_client
from ssdlab.errors import WorkloadError, nearest, read_text_file, workload_error
from ssdlab.presets import list_presets, resolve_base
from ssdlab.units import PAGE, SIZE_UNITS, format_size
from ssdlab.workload import Workload

__all__ = [
    "METRICS",
    "Parameter",
    "Point",
    "Spec",
    "SweepSummary",
    "load_spec",
    "parse_spec",
    "plot_sensitivity",
    "read_results",
    "run_point",
    "run_sweep",
]

SAMPLERS = ("grid", "random", "lhs")

#: What each point records, per run: throughput, latency, and the drive's write amplification.
METRICS = (
    "iops",
    "read_iops",
    "write_iops",
    "mbps",
    "lat_mean_us",
    "lat_p50_us",
    "lat_p99_us",
    "lat_p99_9_us",
    "lat_max_us",
    "waf",
    "elapsed_s",
)

_SWEEP_KEYS = {"drive", "scale_capacity_gb", "sampler", "samples", "seed", "seeds", "set"}
_RANGE_KEYS = {"min", "max", "steps", "log", "integer", "unit"}
_WORKLOAD_FIELDS = set(Workload.__dataclass_fields__)
_FIELD_NAMES = sorted(_WORKLOAD_FIELDS - {"seed"})


def _not_a_field(name: str) -> str:
    """Why ``name`` cannot be a workload key here, and what was likely meant."""
    hint = "seeds go in sweep.seeds" if name == "seed" else nearest(name, _FIELD_NAMES, "fields")
    return f"not a workload field ({hint})"


def _bad(key: str, message: str, value: object) -> WorkloadError:
    return workload_error(key, message, value)


def _combined(problems: list[WorkloadError]) -> WorkloadError:
    """One :class:`ssdlab.WorkloadError` listing every problem of ``problems``."""
    return WorkloadError([p for e in problems for p in e.errors()])


def _raise_all(problems: list[WorkloadError]) -> None:
    """Raise :func:`_combined` of the problems found, if any."""
    if problems:
        raise _combined(problems)


@dataclass(frozen=True)
class Parameter:
    """One swept dimension: a list of ``values``, or a range ``[low, high]`` (log-spaced with ``log``,
    whole numbers with ``integer``, a size suffix ``unit`` such as ``"g"`` appended to each value)."""

    path: str
    values: tuple[Any, ...] = ()
    low: float = 0.0
    high: float = 0.0
    steps: int | None = None
    log: bool = False
    integer: bool = False
    unit: str = ""

    @property
    def is_range(self) -> bool:
        return not self.values

    def at(self, u: float) -> Any:
        """The value at ``u`` in [0, 1): a range's point at that fraction; a list's element at that share."""
        if not self.is_range:
            return self.values[min(int(u * len(self.values)), len(self.values) - 1)]
        if self.log:
            x = math.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low)))
        else:
            x = self.low + u * (self.high - self.low)
        return self._value(x)

    def _value(self, x: float) -> Any:
        if self.unit.lower() in SIZE_UNITS:
            # a size: whole 4 KiB pages (a log range's points fall between them), written exactly
            pages = max(1, round(x * SIZE_UNITS[self.unit.lower()] / PAGE))
            return format_size(pages * PAGE)
        v: Any = round(x) if self.integer else round(x, 12)
        return f"{v}{self.unit}" if self.unit else v

    def grid(self) -> list[Any]:
        """The values a grid takes: the list, or ``steps`` values from low to high (both included)."""
        if not self.is_range:
            return list(self.values)
        assert self.steps is not None
        n = self.steps
        us = [i / (n - 1) for i in range(n)] if n > 1 else [0.0]
        if self.log:
            xs = [math.exp(math.log(self.low) + u * (math.log(self.high) - math.log(self.low))) for u in us]
        else:
            xs = [self.low + u * (self.high - self.low) for u in us]
        return list(dict.fromkeys(self._value(x) for x in xs))


@dataclass(frozen=True)
class Point:
    """One run of the sweep: a drive with ``overrides``, one workload (its fields), one seed."""

    index: int
    drive: str
    drive_toml: str
    capacity_gb: float | None
    overrides: dict[str, Any]
    workload_name: str
    workload: dict[str, Any]
    prefill: bool
    seed: int
    #: The swept parameters' values (drive paths and ``workload.FIELD``), for the results' columns.
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """A hash of everything the result depends on (not the point's place in the sweep)."""
        what = {
            "drive_toml": self.drive_toml,
            "capacity_gb": self.capacity_gb,
            "overrides": self.overrides,
            "workload": self.workload,
            "prefill": self.prefill,
            "seed": self.seed,
        }
        text = json.dumps(what, sort_keys=True, separators=(",", ":"))
        return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


@dataclass(frozen=True)
class Spec:
    """A parsed sweep spec (:func:`parse_spec`)."""

    drive: str
    drive_toml: str
    capacity_gb: float | None
    sampler: str
    samples: int
    sampler_seed: int
    seeds: tuple[int, ...]
    fixed: dict[str, Any]
    parameters: tuple[Parameter, ...]
    workloads: dict[str, dict[str, Any]]
    plot: dict[str, str]

    def samples_u(self) -> list[tuple[Any, ...]]:
        """The parameter points (a value per parameter) the sampler picks, each once: ``samples`` draws
        of ``random`` or ``lhs`` among a few listed values may give fewer distinct points."""
        ps = self.parameters
        if not ps:
            return [()]
        if self.sampler == "grid":
            return list(itertools.product(*(p.grid() for p in ps)))
        rng = np.random.default_rng(self.sampler_seed)
        n = self.samples
        if self.sampler == "random":
            u = rng.random((n, len(ps)))
        else:  # Latin hypercube: each dimension cut in n strata, one sample per stratum, strata shuffled
            u = np.empty((n, len(ps)))
            for j in range(len(ps)):
                u[:, j] = (rng.permutation(n) + rng.random(n)) / n
        # Draws among a few listed values repeat: a point is run once (its key would be the same).
        drawn = (tuple(p.at(float(u[i, j])) for j, p in enumerate(ps)) for i in range(n))
        return list(dict.fromkeys(drawn))

    def points(self) -> list[Point]:
        """Every point: parameter points x workloads x seeds, in that order."""
        out: list[Point] = []
        for values in self.samples_u():
            params = dict(zip((p.path for p in self.parameters), values, strict=True))
            overrides = {**self.fixed, **{k: v for k, v in params.items() if not k.startswith("workload.")}}
            for name, w in self.workloads.items():
                fields = {k: v for k, v in w.items() if k != "prefill"}
                fields.update(
                    {k[len("workload.") :]: v for k, v in params.items() if k.startswith("workload.")}
                )
                for seed in self.seeds:
                    out.append(
                        Point(
                            index=len(out),
                            drive=self.drive,
                            drive_toml=self.drive_toml,
                            capacity_gb=self.capacity_gb,
                            overrides=overrides,
                            workload_name=name,
                            workload={**fields, "seed": seed},
                            prefill=bool(w.get("prefill", False)),
                            seed=seed,
                            params=params,
                        )
                    )
        return out


def _parameter(path: str, raw: object) -> Parameter:
    key = f"parameters.{path}"
    if path.startswith("workload."):
        name = path[len("workload.") :]
        if name not in _WORKLOAD_FIELDS or name == "seed":
            raise _bad(key, f"{name!r} is {_not_a_field(name)}", raw)
    if isinstance(raw, list):
        if not raw:
            raise _bad(key, "needs at least one value", raw)
        return Parameter(path, values=tuple(raw))
    if not isinstance(raw, dict):
        raise _bad(key, "a list of values or a range { min = ..., max = ... }", raw)
    extra = sorted(set(raw) - _RANGE_KEYS)
    if extra:
        raise _bad(f"{key}.{extra[0]}", f"unknown key (a range takes {', '.join(sorted(_RANGE_KEYS))})", "")
    for k in ("min", "max"):
        if not isinstance(raw.get(k), int | float) or isinstance(raw.get(k), bool):
            raise _bad(f"{key}.{k}", "a range needs a number here", raw.get(k, ""))
    low, high = float(raw["min"]), float(raw["max"])
    if high < low:
        raise _bad(f"{key}.max", f"must be at least min ({low:g})", high)
    log = raw.get("log", False)
    if log and low <= 0:
        raise _bad(f"{key}.min", "a log range must be above 0", low)
    steps = raw.get("steps")
    if steps is not None and (not isinstance(steps, int) or isinstance(steps, bool) or steps < 1):
        raise _bad(f"{key}.steps", "must be a whole number >= 1", steps)
    return Parameter(
        path,
        low=low,
        high=high,
        steps=steps,
        log=bool(log),
        integer=bool(raw.get("integer", False)),
        unit=str(raw.get("unit", "")),
    )


def _drive_text(drive: str, base: Path) -> str:
    """The complete TOML of ``drive``: a preset's, or a file's (relative to the spec) with its base chain
    resolved, so that workers need no file and the point key changes when the file does."""
    from ssdlab.presets import read_preset

    if drive in list_presets():
        return read_preset(drive)
    path = (base / drive) if not Path(drive).is_absolute() else Path(drive)
    if path.suffix != ".toml" or not path.is_file():
        raise _bad("sweep.drive", "not a preset name nor a drive TOML file (relative to the spec)", drive)
    return resolve_base(read_text_file(path, "drive file", WorkloadError), str(path))


def parse_spec(text: str, base: Path | None = None, origin: str = "<spec>") -> Spec:
    """A sweep spec from TOML text (drive files relative to ``base``); every problem raises
    :class:`ssdlab.WorkloadError` naming its key."""
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise _bad(origin, f"not valid TOML: {e}", "") from None
    extra = sorted(set(doc) - {"sweep", "parameters", "workloads", "plot"})
    if extra:
        raise _bad(extra[0], "unknown table (a spec has sweep, parameters, workloads, plot)", "")
    sw = doc.get("sweep", {})
    if not isinstance(sw, dict):
        raise _bad("sweep", "must be a table", sw)
    # The [sweep] keys are independent: every problem among them is reported at once.
    problems = [
        _bad(f"sweep.{k}", f"unknown key (sweep takes {', '.join(sorted(_SWEEP_KEYS))})", "")
        for k in sorted(set(sw) - _SWEEP_KEYS)
    ]
    drive = sw.get("drive")
    if not isinstance(drive, str):
        problems.append(_bad("sweep.drive", "a preset name or a drive TOML path is needed", drive or ""))
    sampler = sw.get("sampler", "grid")
    if sampler not in SAMPLERS:
        problems.append(_bad("sweep.sampler", f"must be one of {', '.join(SAMPLERS)}", sampler))
    samples = sw.get("samples", 16)
    if not isinstance(samples, int) or isinstance(samples, bool) or samples < 1:
        problems.append(_bad("sweep.samples", "must be a whole number >= 1", samples))
    seeds = sw.get("seeds", [1])
    if not isinstance(seeds, list) or not seeds or not all(isinstance(s, int) and s >= 0 for s in seeds):
        problems.append(_bad("sweep.seeds", "must be a list of whole numbers >= 0", seeds))
    sampler_seed = sw.get("seed", 1)
    if not isinstance(sampler_seed, int) or sampler_seed < 0:
        problems.append(_bad("sweep.seed", "must be a whole number >= 0", sampler_seed))
    capacity = sw.get("scale_capacity_gb")
    if capacity is not None and (not isinstance(capacity, int | float) or capacity <= 0):
        problems.append(_bad("sweep.scale_capacity_gb", "must be a number of GB above 0", capacity))
    fixed = sw.get("set", {})
    if not isinstance(fixed, dict):
        problems.append(_bad("sweep.set", 'must be a table of TOML paths: { "nand.tR_us" = 60 }', fixed))
    _raise_all(problems)
    # The rest is reported at once too: the spec's shape, then (on the parts that parsed) its values.
    raw_params = doc.get("parameters", {})
    if not isinstance(raw_params, dict):
        problems.append(_bad("parameters", "must be a table", raw_params))
        raw_params = {}
    params: list[Parameter] = []
    for k, v in raw_params.items():
        try:
            p = _parameter(k, v)
        except WorkloadError as e:
            problems.append(e)
            continue
        if sampler == "grid" and p.is_range and p.steps is None:
            problems.append(
                _bad(f"parameters.{k}.steps", "a grid over a range needs steps (how many values)", "")
            )
            continue
        params.append(p)
    raw_w = doc.get("workloads")
    if not isinstance(raw_w, dict) or not raw_w:
        problems.append(_bad("workloads", "at least one [workloads.NAME] table is needed", ""))
        raw_w = {}
    workloads: dict[str, dict[str, Any]] = {}
    for name, w in raw_w.items():
        if not isinstance(w, dict):
            problems.append(_bad(f"workloads.{name}", "must be a table of workload fields", w))
            continue
        bad = [k for k in w if k != "prefill" and (k not in _WORKLOAD_FIELDS or k == "seed")]
        problems += [_bad(f"workloads.{name}.{k}", _not_a_field(k), w[k]) for k in bad]
        workloads[name] = {k: v for k, v in w.items() if k not in bad}
    plot = doc.get("plot", {})
    names = {p.path for p in params}
    for k in ("x", "by"):
        if k in plot and plot[k] not in names | {"workload"}:
            problems.append(
                _bad(f"plot.{k}", f"not a swept parameter ({', '.join(sorted(names)) or 'none'})", plot[k])
            )
    if plot.get("y", "iops") not in METRICS:
        problems.append(_bad("plot.y", f"must be one of {', '.join(METRICS)}", plot["y"]))
    assert isinstance(drive, str)  # checked above
    try:
        drive_toml = _drive_text(drive, base or Path.cwd())
    except WorkloadError as e:  # nothing below can be checked without the drive
        raise _combined([*problems, e]) from None
    spec = Spec(
        drive=drive,
        drive_toml=drive_toml,
        capacity_gb=None if capacity is None else float(capacity),
        sampler=sampler,
        samples=samples,
        sampler_seed=sampler_seed,
        seeds=tuple(seeds),
        fixed=dict(fixed),
        parameters=tuple(params),
        workloads=workloads,
        plot={str(k): str(v) for k, v in plot.items()},
    )
    if workloads:
        problems += _point_problems(spec)
    _raise_all(problems)
    return spec


def _point_problems(spec: Spec) -> list[WorkloadError]:
    """Build the workloads of the first point and every point's drive, so that a bad path or field fails
    now, not in a worker; and check every point's workload fits its drive (a swept size or capacity can
    make one not fit). Each problem is named as the spec names it: all of the first point's, then the
    first of each later point that has one."""
    from ssdlab.drive import Drive
    from ssdlab.errors import ConfigError

    problems: list[WorkloadError] = []
    points = spec.points()
    for p in points[: len(spec.workloads)]:
        try:
            Workload(**p.workload)
        except WorkloadError as e:
            problems += [
                _bad(f"workloads.{p.workload_name}.{f.path}", f.message, f.value) for f in e.errors()
            ]
    workloads_ok = not problems
    capacity: dict[str, int] = {}  # each distinct drive is built once
    for p in points:
        key = json.dumps([p.drive_toml, p.overrides, p.capacity_gb], sort_keys=True, default=str)
        if key not in capacity:
            try:
                d = Drive.from_toml_str(p.drive_toml, set=p.overrides, capacity_gb=p.capacity_gb)
            except ConfigError as e:
                first_point = p.index < len(spec.workloads)
                for f in e.errors() if first_point else e.errors()[:1]:
                    where = "sweep.set" if f.path in spec.fixed else "parameters"
                    what = f.message if first_point else f"point {p.index}: {f.message}"
                    problems.append(_bad(f"{where}.{f.path}", what, f.value))
                return problems
            capacity[key] = d.capacity_bytes
        if not workloads_ok:
            continue
        try:
            Workload(**p.workload).check_fits(capacity[key])
        except WorkloadError as e:
            first = e.errors()[0]
            return [
                _bad(
                    f"workloads.{p.workload_name}.{first.path}",
                    f"point {p.index}: {first.message}",
                    first.value,
                )
            ]
    return problems


def load_spec(path: Path) -> Spec:
    """:func:`parse_spec` of a file (drive TOMLs relative to it)."""
    text = read_text_file(path, "spec", WorkloadError)
    return parse_spec(text, path.parent, str(path))


def run_point(point: Point) -> dict[str, Any]:
    """Run one point on a fresh drive (in a dask worker) and return its row: the point's identity, its
    parameters and :data:`METRICS`. A pure function of the point, bar ``worker`` and ``wall_s``."""
    from ssdlab._core import version
    from ssdlab.drive import Drive
    from ssdlab.precondition import prefill_workload

    started = time.perf_counter()
    drive = Drive.from_toml_str(point.drive_toml, set=point.overrides, capacity_gb=point.capacity_gb)
    w = Workload(**point.workload)
    if point.prefill:
        drive.run(prefill_workload(w))
    res = drive.run(w)
    lat = res.latency
    counters = res.counters
    metrics = {
        "iops": res.iops,
        "read_iops": res.read.iops,
        "write_iops": res.write.iops,
        "mbps": res.bandwidth_mbps,
        "lat_mean_us": lat.mean_us,
        "lat_p50_us": lat.percentile(50.0),
        "lat_p99_us": lat.percentile(99.0),
        "lat_p99_9_us": lat.percentile(99.9),
        "lat_max_us": lat.max_us,
        "waf": counters.get("waf", float("nan")),
        "elapsed_s": res.elapsed_s,
    }
    return {
        "key": point.key,
        "index": point.index,
        "drive": point.drive,
        "workload": point.workload_name,
        "seed": point.seed,
        **{p: _column_value(v) for p, v in point.params.items()},
        **{k: float(v) for k, v in metrics.items()},
        "ssdlab_version": version(),
        "worker": f"{os.uname().nodename}:{os.getpid()}",
        "wall_s": time.perf_counter() - started,
    }


def _column_value(v: Any) -> Any:
    return v if isinstance(v, int | float | str) and not isinstance(v, bool) else json.dumps(v)


# ----------------------------------------------------------------------------------------------------------
# Parquet: a folder of part files, each written whole then renamed into place.


def _parts(out: Path) -> list[Path]:
    return sorted(out.glob("part-*.parquet")) if out.is_dir() else []


def read_results(out: Path) -> Any:
    """Every row of a sweep's dataset as a :class:`pyarrow.Table` (one row per key; parts written by
    different specs are merged column by column), or None when there is none yet."""
    import pyarrow as pa  # type: ignore[import-untyped]
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    tables = [pq.read_table(p) for p in _parts(out)]
    if not tables:
        return None
    table = pa.concat_tables(tables, promote_options="permissive")
    keys = table.column("key").to_pylist()
    first = sorted({k: i for i, k in reversed(list(enumerate(keys)))}.values())
    return table.take(first) if len(first) < len(keys) else table


def _write_part(out: Path, rows: list[dict[str, Any]]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    out.mkdir(parents=True, exist_ok=True)
    name = f"part-{time.time_ns():020d}-{os.getpid()}.parquet"
    tmp = out / f".{name}.tmp"
    pq.write_table(pa.Table.from_pylist(rows), tmp)
    os.replace(tmp, out / name)  # atomic: a reader sees the whole part or none of it


def _compact(out: Path) -> None:
    """Merge the parts into one (written before the old ones go, so a crash leaves rows twice, never none;
    :func:`read_results` keeps one per key)."""
    import pyarrow.parquet as pq

    parts = _parts(out)
    if len(parts) < 2:
        return
    table = read_results(out)
    name = f"part-{time.time_ns():020d}-{os.getpid()}.parquet"
    tmp = out / f".{name}.tmp"
    pq.write_table(table, tmp)
    os.replace(tmp, out / name)
    for p in parts:
        p.unlink()


@dataclass(frozen=True)
class SweepSummary:
    total: int
    ran: int
    skipped: int


def run_sweep(
    spec: Spec,
    out: Path,
    client: Any = None,
    scheduler: str | None = None,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    on_row: Callable[[dict[str, Any]], None] | None = None,
    flush_rows: int = 64,
    flush_s: float = 5.0,
) -> SweepSummary:
    """Run the points of ``spec`` not yet in ``out`` on ``client`` (or a client of ``scheduler``, or a
    LocalCluster of ``workers`` processes, one per CPU by default), writing rows as they finish: a part file
    every ``flush_rows`` rows or ``flush_s`` seconds, and whatever is pending when it stops, even on an
    error or Ctrl-C. ``progress(done, total)`` follows the points; ``on_row`` sees each row."""
    points = spec.points()
    done = set() if (t := read_results(out)) is None else set(t.column("key").to_pylist())
    todo = [p for p in points if p.key not in done]
    skipped = len(points) - len(todo)
    if progress is not None:
        progress(skipped, len(points))
    if not todo:
        return SweepSummary(len(points), 0, skipped)
    pending: list[dict[str, Any]] = []
    last = time.monotonic()
    finished = 0
    with ExitStack() as stack:
        if client is None:
            client = stack.enter_context(dask_client(workers, scheduler))
        from distributed import as_completed

        futures = client.map(run_point, todo, pure=False)
        try:
            for _, row in as_completed(futures, with_results=True):  # type: ignore[no-untyped-call]
                pending.append(row)
                finished += 1
                if on_row is not None:
                    on_row(row)
                if progress is not None:
                    progress(skipped + finished, len(points))
                if len(pending) >= flush_rows or time.monotonic() - last >= flush_s:
                    _write_part(out, pending)
                    pending, last = [], time.monotonic()
        finally:
            if pending:  # what finished is kept, whatever stopped the sweep
                _write_part(out, pending)
            client.cancel(futures)
    _compact(out)
    return SweepSummary(len(points), finished, skipped)


def plot_sensitivity(spec: Spec, out: Path, path: Path | None = None) -> list[Path]:
    """The sensitivity plot of a finished sweep: ``plot.y`` (default IOPS), averaged over seeds and the
    other parameters, against ``plot.x`` (default: the first parameter), one line per value of ``plot.by``
    (default: the second parameter, or the workload when there are several). Written beside the dataset
    (``results.parquet`` -> ``results.png``); nothing when the sweep has no parameter."""
    table = read_results(out)
    names = [p.path for p in spec.parameters]
    if table is None or not names:
        return []
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    x = spec.plot.get("x", names[0])
    by = spec.plot.get("by", names[1] if len(names) > 1 and names[1] != x else "workload")
    y = spec.plot.get("y", "iops")
    keys = {p.key for p in spec.points()}
    rows = [r for r in table.to_pylist() if r["key"] in keys]
    groups: dict[Any, dict[Any, list[float]]] = {}
    for r in rows:
        groups.setdefault(r.get(by), {}).setdefault(r.get(x), []).append(float(r[y]))
    xs_all = list(dict.fromkeys(r.get(x) for r in rows))
    numeric = all(isinstance(v, int | float) for v in xs_all)
    order = sorted(xs_all) if numeric else xs_all
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for g, by_x in groups.items():
        xs = [v for v in order if v in by_x]
        pos = xs if numeric else [order.index(v) for v in xs]
        ax.plot(pos, [sum(by_x[v]) / len(by_x[v]) for v in xs], marker="o", label=str(g))
    if not numeric:
        ax.set_xticks(range(len(order)), [str(v) for v in order])
    ax.set_xlabel(x)
    ax.set_ylabel(f"{y} (mean over seeds and other parameters)")
    ax.set_ylim(bottom=0)
    ax.set_title(f"{spec.drive}: {y} against {x}")
    ax.legend(title=by, fontsize=8, title_fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    path = path or out.with_suffix(".png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return [path]
