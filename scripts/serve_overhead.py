"""Where the time of a request through `ssdlab serve` goes: the same fio job (4 KiB random reads at QD1 and
QD8 over a 64 MiB region, after a sequential fill) against four NBD exports, each adding one layer:

1. nbdkit's memory plugin (C): fio's nbd engine, NBD over a Unix socket and nbdkit alone;
2. a Python plugin that returns zeros: plus nbdkit's embedded Python (a call per request, the GIL);
3. ``ssdlab serve --pace free``: plus the plugin's work and the twin's (its reply as soon as computed);
4. ``ssdlab serve --pace realtime``: the reply held until the twin's completion;

and, to tell what holding a reply costs without Python, nbdkit's memory plugin with its delay filter
holding each read 1 ms. Prints fio's IOPS and mean completion latency for each, and the twin's own in
process. The machine's other load moves these figures: each is the median of ``--reps`` runs.

    .venv/bin/python scripts/serve_overhead.py [--runtime 3] [--reps 3] [--preset bg4-1tb --set ...]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import ssdlab

NULL_PLUGIN = """\
import nbdkit
API_VERSION = 2
ZEROS = bytes(1 << 20)
def thread_model(): return nbdkit.THREAD_MODEL_PARALLEL
def open(readonly): return 1
def get_size(h): return 1 << 30
def pread(h, buf, offset, flags): buf[:] = ZEROS[: len(buf)]
def pwrite(h, buf, offset, flags): pass
"""


def fio_job(runtime: int) -> str:
    return (
        'fio --ioengine=nbd --uri="$uri" --output-format=json --name=fill --rw=write --bs=1m --size=64m '
        + "".join(
            f"--name=q{qd} --stonewall --rw=randread --bs=4k --size=64m --iodepth={qd} "
            f"--runtime={runtime} --time_based "
            for qd in (1, 8)
        )
    )


def measure(cmd: list[str]) -> list[tuple[float, float]]:
    """(IOPS, mean completion latency in us) of the QD1 and QD8 jobs."""
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    jobs = json.loads(p.stdout[p.stdout.index("{") :])["jobs"][1:]
    return [(j["read"]["iops"], j["read"]["clat_ns"]["mean"] / 1e3) for j in jobs]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runtime", type=int, default=3)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--preset", default="bg4-1tb")
    ap.add_argument(
        "--set", action="append", default=None, help="PATH=VALUE (default ftl.user_capacity_gb=1)"
    )
    args = ap.parse_args()
    sets = args.set or ["ftl.user_capacity_gb=1"]
    job = fio_job(args.runtime)
    ssdlab_cli = [str(Path(sys.executable).with_name("ssdlab")), "serve", "--preset", args.preset]
    ssdlab_cli += [a for s in sets for a in ("--set", s)]
    with tempfile.TemporaryDirectory() as tmp:
        null = Path(tmp) / "null.py"
        null.write_text(NULL_PLUGIN)
        layers = {
            "nbdkit memory (C)": ["nbdkit", "-U", "-", "--run", job, "memory", "1G"],
            "nbdkit python, zeros": ["nbdkit", "-U", "-", "--run", job, "python", str(null)],
            "ssdlab serve --pace free": [*ssdlab_cli, "--pace", "free", "--run", job],
            "ssdlab serve --pace realtime": [*ssdlab_cli, "--pace", "realtime", "--run", job],
            "nbdkit memory (C), reads held 1 ms": [
                *("nbdkit", "-U", "-", "--run", job, "--filter=delay", "memory", "1G", "rdelay=1ms"),
            ],
        }
        runs = {name: [measure(cmd) for _ in range(args.reps)] for name, cmd in layers.items()}
    # each figure's median over the repetitions
    med = statistics.median
    rows = {
        name: [(med(r[q][0] for r in rs), med(r[q][1] for r in rs)) for q in (0, 1)]
        for name, rs in runs.items()
    }
    drive = ssdlab.Drive.from_preset(args.preset, set=dict(s.split("=", 1) for s in sets))
    drive.run(ssdlab.Workload(rw="write", bs="1m", size="64m"))
    twin = []
    for qd in (1, 8):
        r = drive.run(
            ssdlab.Workload(rw="randread", bs="4k", size="64m", iodepth=qd, runtime=f"{args.runtime}s")
        )
        twin.append((r.read.iops, r.read.latency.mean_us))
    rows["the twin in process"] = twin  # deterministic: one run
    head = f"4 KiB random reads, {args.runtime} s, median of {args.reps}"
    print(f"| {head} | QD1 IOPS | QD1 mean us | QD8 IOPS | QD8 mean us |")
    print("|---|---:|---:|---:|---:|")
    for name, ((i1, l1), (i8, l8)) in rows.items():
        print(f"| {name} | {i1:,.0f} | {l1:,.0f} | {i8:,.0f} | {l8:,.0f} |")


if __name__ == "__main__":
    main()
