"""What reading a job file and writing fio's output cost on top of the same workload through the Python API.

Both sides start from the same prepared drive (a clone each time) and run the same 4 KiB random-read workload;
the job-file side also parses the job file and builds fio's JSON (and text) output. Prints the median wall
time of each over several alternating repetitions and the overhead in per cent.

    .venv/bin/python scripts/fio_overhead.py [--reps 7] [--runtime 2s]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import ssdlab
from ssdlab.fio import format_normal, parse_jobfile_text, run_jobfile, to_json

JOB = """\
[global]
ioengine=libaio
direct=1
filename=/dev/nvme0n1
[randread]
rw=randread
bs=4k
iodepth=32
size=8g
runtime={runtime}
time_based
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--runtime", default="2s")
    ap.add_argument("--preset", default="bg4-1tb")
    args = ap.parse_args()

    base = ssdlab.Drive.from_preset(args.preset)
    base.run(ssdlab.Workload(rw="write", bs="1m", iodepth=8, size="8g"))
    text = JOB.format(runtime=args.runtime)
    workload = ssdlab.Workload(
        rw="randread", bs="4k", iodepth=32, size="8g", runtime=args.runtime, time_based=True, interval="500ms"
    )

    api_s, job_s, out_s = [], [], []
    for rep in range(args.reps):
        # Alternate which side goes first, so neither always runs on a warmer machine.
        for side in ("api", "job") if rep % 2 == 0 else ("job", "api"):
            drive = base.clone()
            t = time.perf_counter()
            if side == "api":
                res = drive.run(workload)
                api_s.append(time.perf_counter() - t)
                continue
            run = run_jobfile(drive, parse_jobfile_text(text))
            t_run = time.perf_counter()
            json.dumps(to_json(run))
            format_normal(run)
            job_s.append(t_run - t)
            out_s.append(time.perf_counter() - t)
    assert run.entries[0].measured.read.ios == res.read.ios  # the same IOs, bit for bit

    # The fixed costs on their own, which the machine's noise does not swamp.
    n = 200
    t = time.perf_counter()
    for _ in range(n):
        parse_jobfile_text(text)
    parse_ms = (time.perf_counter() - t) / n * 1000
    t = time.perf_counter()
    for _ in range(20):
        json.dumps(to_json(run))
        format_normal(run)
    output_ms = (time.perf_counter() - t) / 20 * 1000

    print(
        f"{res.read.ios} IOs per run ({args.preset}, 4 KiB random read QD32, {args.runtime} simulated), "
        f"{args.reps} repetitions, min / median wall time:"
    )
    api, job, out = min(api_s), min(job_s), min(out_s)
    print(f"  Python API (Drive.run):          {api * 1000:7.1f} / {statistics.median(api_s) * 1000:7.1f} ms")
    print(
        f"  job file, parse + run:           {job * 1000:7.1f} / {statistics.median(job_s) * 1000:7.1f} ms "
        f"({100 * (job / api - 1):+.1f}% on the minimum)"
    )
    print(
        f"  job file, parse + run + outputs: {out * 1000:7.1f} / {statistics.median(out_s) * 1000:7.1f} ms "
        f"({100 * (out / api - 1):+.1f}% on the minimum)"
    )
    print(
        f"  parsing the job file alone: {parse_ms:.3f} ms ({100 * parse_ms / (api * 1000):.3f}% of the run); "
        f"fio JSON + text output alone: {output_ms:.1f} ms ({100 * output_ms / (api * 1000):.2f}%)"
    )


if __name__ == "__main__":
    main()
