"""V300S (200 MT/s sync) vs V300A (50 MT/s async): the tests of the GamersNexus comparison, fresh and after
its preconditioning (secure erase, then 4 KiB random writes at QD32 for capacity_GB / 2 minutes).

Prints markdown tables for docs/model.md. About 2 minutes:

    .venv/bin/python scripts/v300_bus.py
"""

from __future__ import annotations

import ssdlab
from ssdlab import Workload, precondition

TESTS = {
    "128K seq write QD32": Workload(rw="write", bs="128k", iodepth=32, size="8g", runtime="20s"),
    "4K random write QD32": Workload(rw="randwrite", bs="4k", iodepth=32, runtime="20s", time_based=True),
    "4K random read QD1": Workload(rw="randread", bs="4k", iodepth=1, runtime="5s", time_based=True),
    "4K random read QD32": Workload(rw="randread", bs="4k", iodepth=32, runtime="5s", time_based=True),
    "128K seq read QD32": Workload(
        rw="read", bs="128k", iodepth=32, size="8g", runtime="5s", time_based=True
    ),
}


def measure(drive: ssdlab.Drive) -> dict[str, float]:
    """MB/s of each test, each on its own copy of the drive's state."""
    return {name: drive.clone().run(w).bandwidth_mbps for name, w in TESTS.items()}


def main() -> None:
    rows: dict[str, list[float]] = {}
    for preset in ("v300s-120gb", "v300a-120gb"):
        drive = ssdlab.Drive.from_preset(preset)
        precondition.sequential_fill(drive)
        fresh = measure(drive)
        gb = drive.capacity_bytes / 1e9
        drive.run(Workload(rw="randwrite", bs="4k", iodepth=32, runtime=f"{gb / 2 * 60}s", time_based=True))
        steady = measure(drive)
        for name in TESTS:
            rows.setdefault(name, []).extend([fresh[name], steady[name]])
    print(
        "| test (incompressible, MB/s) | V300S full | V300A full | A/S "
        "| V300S preconditioned | V300A preconditioned | A/S |"
    )
    print("|---|---|---|---|---|---|---|")
    for name, (sf, ss, af, as_) in rows.items():
        print(f"| {name} | {sf:.1f} | {af:.1f} | {af / sf:.2f} | {ss:.1f} | {as_:.1f} | {as_ / ss:.2f} |")
    # A SandForce read moves the entry as stored: compressible data crosses the bus in fewer bytes.
    print()
    print("| 4K random read QD1 of a drive filled with data ... | V300S MB/s | V300A MB/s | A/S |")
    print("|---|---|---|---|")
    for pct in (0, 46, 100):
        qd1 = []
        for preset in ("v300s-120gb", "v300a-120gb"):
            drive = ssdlab.Drive.from_preset(preset)
            drive.run(Workload(rw="write", bs="128k", iodepth=32, buffer_compress_percentage=pct))
            qd1.append(drive.run(TESTS["4K random read QD1"]).bandwidth_mbps)
        print(f"| {pct}% compressible | {qd1[0]:.1f} | {qd1[1]:.1f} | {qd1[1] / qd1[0]:.2f} |")


if __name__ == "__main__":
    main()
