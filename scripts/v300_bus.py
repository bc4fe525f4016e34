"""V300S (200 MT/s sync) vs V300A (50 MT/s async): the tests of the GamersNexus comparison
(:data:`ssdlab.suites.gamersnexus.BUS_TESTS`, the ones ``ssdlab validate`` checks the review's findings with),
on a full drive and after the suite's preconditioning (secure erase, then 4 KiB random writes at QD32 for
capacity_GB / 2 minutes: :func:`ssdlab.suites.gamersnexus.precondition`).

Prints markdown tables for docs/model.md. About 2 minutes:

    .venv/bin/python scripts/v300_bus.py
"""

from __future__ import annotations

import ssdlab
from ssdlab import Workload, precondition
from ssdlab.suites import gamersnexus


def main() -> None:
    rows: dict[str, list[float]] = {}
    for preset in ("v300s-120gb", "v300a-120gb"):
        drive = ssdlab.Drive.from_preset(preset)
        precondition.sequential_fill(drive)
        full = gamersnexus.measure_bus_tests(drive)
        gamersnexus.precondition(drive)
        steady = gamersnexus.measure_bus_tests(drive)
        for name in gamersnexus.BUS_TESTS:
            rows.setdefault(name, []).extend([full[name], steady[name]])
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
            qd1.append(gamersnexus.measure_bus_tests(drive, ["4K random read QD1"])["4K random read QD1"])
        print(f"| {pct}% compressible | {qd1[0]:.1f} | {qd1[1]:.1f} | {qd1[1] / qd1[0]:.2f} |")


if __name__ == "__main__":
    main()
