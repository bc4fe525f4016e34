"""Fit the BG family's NAND array currents (power.nand_read_ma, power.nand_program_ma) to the KIOXIA BG4
brief's in-sample figures on bg4-1tb (reference bg4-1tb.toml [power]: read 0.78 and 4-lane write 1.09 mW
per MB/s), then print the hold-out figures. The brief's ratio is linear in each current (the read test
reads, the write test programs), so a secant step or two solves it. Run after any change to the engine's
speed (the ratio divides by the model's own MB/s): `.venv/bin/python scripts/fit_power.py`.
"""

from __future__ import annotations

import ssdlab
from ssdlab import reference
from ssdlab.suites.power import run_power

TARGET = reference.figures("bg4-1tb")["power"]
GOALS = {
    "seq read": ("power.nand_read_ma", TARGET["read_mW_per_MBps"]),
    "seq write": ("power.nand_program_ma", TARGET["write_mW_per_MBps_4lane"]),
}


def ratios(read_ma: float, program_ma: float, preset: str = "bg4-1tb") -> dict[str, float]:
    d = ssdlab.Drive.from_preset(
        preset, set={"power.nand_read_ma": read_ma, "power.nand_program_ma": program_ma}
    )
    return {r.test: r.mw_per_mbps for r in run_power(d).rows}


def main() -> None:
    x = {"seq read": 20.0, "seq write": 10.0}
    for _ in range(3):
        r0 = ratios(x["seq read"], x["seq write"])
        r1 = ratios(x["seq read"] * 1.5, x["seq write"] * 1.5)
        for test, (_, goal) in GOALS.items():
            slope = (r1[test] - r0[test]) / (x[test] * 0.5)
            x[test] = max(0.0, x[test] + (goal - r0[test]) / slope)
    r = ratios(x["seq read"], x["seq write"])
    for test, (key, goal) in GOALS.items():
        print(f"{key} = {x[test]:.1f}  ->  {test} {r[test]:.3f} mW per MB/s (brief {goal})")


if __name__ == "__main__":
    main()
