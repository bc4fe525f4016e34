"""The engine's cost per IO where two builds do the same work (docs/speed.md, "What the issue-10 mechanisms
cost"): 4 million 4 KiB random reads at QD32 over 8 GiB of bg4-1tb laid down by 1 MiB writes (the map
wholly cached, so no build's map misses change the work), and 32 GiB of 128 KiB sequential writes into an
empty bg4-1tb (its SLC cache). Prints the CPU time of each run, which a busy shared machine disturbs less
than wall time.

`make bench`'s scenarios cannot compare builds whose models differ: a random-read scenario that runs for a
fixed simulated time simulates as many IOs as the model allows. To compare with an older build, build its
wheel (`maturin build --release -o DIR` in a worktree of that commit), install it with
`pip install --no-deps --target OLD DIR/*.whl`, and run this script in turn with and without
`PYTHONPATH=OLD`:

    .venv/bin/python scripts/engine_cost.py
"""

from __future__ import annotations

import time

import ssdlab
from ssdlab import Workload

READS = 4_000_000


def main() -> None:
    d = ssdlab.Drive.from_preset("bg4-1tb")
    d.run(Workload(rw="write", bs="1m", iodepth=8, size="8g"))
    t = time.process_time()
    d.run(Workload(rw="randread", bs="4k", iodepth=32, size="8g", io_size=str(READS * 4096)))
    s = time.process_time() - t
    print(f"random read, map cached: {READS:,} IOs in {s:.2f} CPU s = {READS / s / 1e6:.2f} M/s")

    d = ssdlab.Drive.from_preset("bg4-1tb")
    ios = (32 << 30) // (128 << 10)
    t = time.process_time()
    d.run(Workload(rw="write", bs="128k", iodepth=32, size="32g"))
    s = time.process_time() - t
    print(f"sequential write, SLC cache: {ios:,} IOs in {s:.2f} CPU s = {ios / s / 1e6:.2f} M/s")


if __name__ == "__main__":
    main()
