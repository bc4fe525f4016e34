"""How close `ssdlab sweep` on 2 workers comes to twice 1 worker, and what this machine allows.

Three measurements, each with 1 and then 2 processes, in rounds (the order alternates from round to round)
because the machine's cores are shared and its speed drifts:

- ceiling: the spec's points in plain processes, no dask: one process running all of them against two
  running half each at the same time. Their ratio is what two cores give two simulations at that moment:
  the machine's other load, shared caches and memory bandwidth are all in it. CPU seconds per point, alone
  and paired, tell interference (CPU time grows) from other load (only the wall time grows).
- sweep: ``run_sweep`` on ssdlab's own LocalCluster of 1 and of 2 workers, started and warmed (imports and
  one point on each worker) before the clock, into a fresh dataset each time.
- fixed: what a sweep pays once: the cluster's start, the workers' first imports, its close.

Each process warms up (imports, one point) before the clock. The summary gives the medians over the
rounds: the two speed-ups and their ratio (the sweep's share of the ceiling), and the machine's other
load, in cores, from /proc/stat (busy cores less this benchmark's own processes).

    .venv/bin/python scripts/bench_sweep.py [--spec examples/sweep/hmb-span-200.toml] [--rounds 3]

A quicker look: ``--spec examples/sweep/hmb-span.toml`` (32 points of 200 ms).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ssdlab import sweep
from ssdlab._dask import client as dask_client

ROOT = Path(__file__).resolve().parent.parent

# A plain process of the ceiling: load the spec, warm up, say "ready", wait for "go", run its points.
CHILD = """
import json, sys, time
from pathlib import Path
from ssdlab import sweep
points = sweep.load_spec(Path(sys.argv[1])).points()[int(sys.argv[2]) :: int(sys.argv[3])]
sweep.run_point(points[0])
print("ready", flush=True)
sys.stdin.readline()
wall, cpu = time.perf_counter(), time.process_time()
for p in points:
    sweep.run_point(p)
print(json.dumps({"n": len(points), "wall": time.perf_counter() - wall, "cpu": time.process_time() - cpu}))
"""


def busy_cores() -> tuple[float, float]:
    """(busy, total) jiffies of every CPU since boot."""
    f = [int(x) for x in open("/proc/stat").readline().split()[1:8]]
    return float(sum(f) - f[3] - f[4]), float(sum(f))


def other_load(
    before: tuple[float, float], after: tuple[float, float], mine_cpu_s: float, wall: float
) -> float:
    """Cores the rest of the machine kept busy while we ran: busy cores less ours."""
    ncpu = os.cpu_count() or 1
    busy = (after[0] - before[0]) / (after[1] - before[1]) * ncpu
    return max(busy - mine_cpu_s / wall, 0.0)


def ceiling(spec_path: Path, k: int) -> dict[str, float]:
    """k plain processes, the points shared out, started together once all are warm."""
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, str(spec_path), str(i), str(k)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for i in range(k)
    ]
    for p in procs:
        assert p.stdout is not None and p.stdout.readline().strip() == "ready"
    stat, wall = busy_cores(), time.perf_counter()
    for p in procs:
        assert p.stdin is not None
        p.stdin.write("go\n")
        p.stdin.flush()
    outs = [json.loads(p.communicate()[0]) for p in procs]
    wall = time.perf_counter() - wall
    cpu = sum(o["cpu"] for o in outs)
    n = sum(o["n"] for o in outs)
    return {"wall": wall, "cpu_per_point": cpu / n, "other": other_load(stat, busy_cores(), cpu, wall)}


def _cpu_s() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def sweep_run(spec: sweep.Spec, k: int, out: Path, warm: Callable[[], Any]) -> dict[str, float]:
    """run_sweep on ssdlab's LocalCluster of k workers, started and warmed before the clock."""
    shutil.rmtree(out, ignore_errors=True)
    with dask_client(k, None) as client:
        client.wait_for_workers(k)
        client.run(warm)
        worker_cpu = sum(client.run(time.process_time).values())
        stat, wall, mine = busy_cores(), time.perf_counter(), _cpu_s()
        summary = sweep.run_sweep(spec, out, client=client)
        wall = time.perf_counter() - wall
        mine = _cpu_s() - mine
        worker_cpu = sum(client.run(time.process_time).values()) - worker_cpu
    assert summary.ran == summary.total
    return {
        "wall": wall,
        "cpu_per_point": worker_cpu / summary.ran,
        "client_cpu": mine,
        "other": other_load(stat, busy_cores(), worker_cpu + mine, wall),
    }


def _import_ssdlab() -> None:
    import ssdlab.sweep  # noqa: F401


def fixed(k: int) -> dict[str, float]:
    """A cluster's start (to its workers' registering), the workers' first import of ssdlab, its close."""
    t0 = time.perf_counter()
    with dask_client(k, None) as client:
        client.wait_for_workers(k)
        t1 = time.perf_counter()
        client.run(_import_ssdlab)
        t2 = time.perf_counter()
    t3 = time.perf_counter()
    return {"start": t1 - t0, "imports": t2 - t1, "close": t3 - t2}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--spec", type=Path, default=ROOT / "examples/sweep/hmb-span-200.toml")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    spec = sweep.load_spec(args.spec)
    points = spec.points()
    first = points[0]

    def warm() -> None:
        sweep.run_point(first)

    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import distributed, ssdlab.sweep"], check=True)
    imports = time.perf_counter() - t
    print(
        f"{args.spec.name}: {len(points)} points; machine: {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f}; the client's imports (distributed, ssdlab) {imports:.2f} s",
        flush=True,
    )
    results: dict[tuple[str, int], list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            order = (1, 2) if r % 2 == 0 else (2, 1)
            for what in ("ceiling", "sweep", "fixed"):
                for k in order:
                    if what == "ceiling":
                        m = ceiling(args.spec, k)
                    elif what == "sweep":
                        m = sweep_run(spec, k, Path(tmp) / "out.parquet", warm)
                    else:
                        m = fixed(k)
                    results.setdefault((what, k), []).append(m)
                    print(
                        f"round {r + 1} {what} x{k}: " + ", ".join(f"{n} {v:.3f}" for n, v in m.items()),
                        flush=True,
                    )

    def med(what: str, k: int, field: str) -> float:
        return statistics.median(m[field] for m in results[(what, k)])

    def speedups(what: str) -> list[float]:
        return [a["wall"] / b["wall"] for a, b in zip(results[(what, 1)], results[(what, 2)], strict=True)]

    ceil, swp = speedups("ceiling"), speedups("sweep")
    share = [s / c for s, c in zip(swp, ceil, strict=True)]
    print(f"\nmedians over {args.rounds} rounds ({len(points)} points):")
    for what in ("ceiling", "sweep"):
        print(
            f"  {what:7s}: 1 process {med(what, 1, 'wall'):.1f} s, 2 processes {med(what, 2, 'wall'):.1f} s; "
            f"CPU per point {med(what, 1, 'cpu_per_point') * 1e3:.0f} ms alone, "
            f"{med(what, 2, 'cpu_per_point') * 1e3:.0f} ms paired; other load {med(what, 1, 'other'):.1f} "
            f"and {med(what, 2, 'other'):.1f} cores"
        )
    print(
        f"  speed-up of 2 over 1: ceiling {statistics.median(ceil):.2f}x, "
        f"sweep {statistics.median(swp):.2f}x "
        f"(per round: {', '.join(f'{s:.2f}/{c:.2f}' for s, c in zip(swp, ceil, strict=True))}); "
        f"the sweep reaches {statistics.median(share):.0%} of the ceiling"
    )
    for k in (1, 2):
        print(
            f"  fixed, {k} worker(s): cluster start {med('fixed', k, 'start'):.2f} s, workers' imports "
            f"{med('fixed', k, 'imports'):.2f} s, close {med('fixed', k, 'close'):.2f} s; the sweep's client "
            f"CPU {med('sweep', k, 'client_cpu'):.2f} s"
        )


if __name__ == "__main__":
    main()
