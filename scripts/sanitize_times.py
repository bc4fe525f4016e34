"""The simulated time of each sanitize action on a full drive (docs/nvme.md, "Sanitize").

    .venv/bin/python scripts/sanitize_times.py [PRESET]      # default bg4-128gb

The drive is filled sequentially (128 KiB, QD32) to its whole capacity and left idle for 60 s, so that its
background work is done and a sanitize's time is its own; each action then runs on a clone of it.
"""

from __future__ import annotations

import sys
import time

import ssdlab
from ssdlab.nvme import Controller


def main(preset: str = "bg4-128gb") -> None:
    t = time.perf_counter()
    drive = ssdlab.Drive.from_preset(preset)
    drive.run(ssdlab.Workload(rw="write", bs="128k", iodepth=32, size=drive.capacity_bytes))
    drive.idle("60s")
    print(f"{preset}: filled {drive.capacity_bytes / 1e9:.0f} GB in {time.perf_counter() - t:.1f} s wall")
    for action in ("block-erase", "crypto-erase", "overwrite"):
        nvme = Controller(drive.clone())
        erased = nvme.drive.counters()["nand_blocks_erased"]
        t, start = time.perf_counter(), nvme.drive.now_ns
        end = nvme.sanitize(action)
        wall = time.perf_counter() - t
        erased = nvme.drive.counters()["nand_blocks_erased"] - erased
        took = (end - start) / 1e9
        print(f"{action:>12}: {took:8.3f} s simulated ({wall:.2f} s wall), {erased:,.0f} blocks erased")


if __name__ == "__main__":
    main(*sys.argv[1:2])
