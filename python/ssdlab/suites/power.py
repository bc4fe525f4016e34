"""Power efficiency as the KIOXIA BG4 brief measures it, and idle power with APST.

The brief's method (``reference/bg4-1tb.toml [power]``): continuous sequential read or write, the drive's
power sampled every 10 ms over 500 ms (50 samples); the highest sample is the result, and the efficiency is
that power in mW per MB/s of throughput. Here: 128 KiB at QD32, the 500 ms window starting 100 ms into the
transfer (once it is continuous); reads go over data written first (and
folded out of the SLC cache while the drive idles), writes start on an empty drive. Beside it the suite
prints MB/s per W as AnandTech reports it (throughput over average power), energy per IO, the highest
sample (against a spec sheet's active power) and the power of a drive left idle (APST + L1.2, against a
spec sheet's idle power). Every figure comes from the power model's own samples of what the engine did.

Examples
--------
>>> import ssdlab
>>> from ssdlab.suites.power import run_power
>>> res = run_power(ssdlab.Drive.from_preset("bg4-128gb"), duration="100ms")
>>> [r.test for r in res.rows]
['seq read', 'seq write']
>>> 0 < res.rows[0].mw_per_mbps < 5 and 0 < res.idle_mw < 100
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.table import Table

from ssdlab import reference
from ssdlab.drive import Drive
from ssdlab.precondition import settle
from ssdlab.suites import Suite, SuiteOptions, register
from ssdlab.suites._common import Progress, result_doc, scaled
from ssdlab.suites._reference import Beside, published_table
from ssdlab.units import parse_size
from ssdlab.workload import Workload

__all__ = ["PowerResult", "PowerRow", "idle_power_mw", "run_power"]

#: Presets measured with another preset's published figures: (its reference file, its link's lanes).
_REFERENCE_OF = {"bg4-1tb-x2": "bg4-1tb"}


@dataclass
class PowerRow:
    """One continuous sequential test."""

    test: str
    mbps: float
    avg_power_w: float
    max_power_w: float
    energy_per_io_uj: float
    #: The brief's figure: highest sample in mW per MB/s.
    mw_per_mbps: float
    #: AnandTech's: MB/s per average W.
    mbps_per_w: float
    #: The published mW per MB/s, or None.
    published_mw_per_mbps: float | None = None

    @property
    def error_pct(self) -> float | None:
        p = self.published_mw_per_mbps
        return None if p is None else (self.mw_per_mbps - p) / p * 100


@dataclass
class PowerResult:
    """The sequential tests and the idle power of one preset."""

    preset: str
    config_toml: str
    rows: list[PowerRow]
    #: Power after idling long enough for APST's deepest state and L1.2, mW.
    idle_mw: float
    #: Highest 10 ms sample over the tests, W.
    max_power_w: float
    #: Published figures: ``{"idle_power_mW": ..., "active_power_W": ...}`` where known.
    published: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return result_doc(
            "power",
            self,
            rows=[{**r.__dict__, "error_pct": r.error_pct} for r in self.rows],
            idle_mw=self.idle_mw,
            max_power_w=self.max_power_w,
            published=self.published,
        )

    def tables(self) -> list[Table]:
        t = Table(title=f"{self.preset}: power, 10 ms samples (KIOXIA BG4 brief's method)")
        for col in (
            "test",
            "MB/s",
            "avg W",
            "max W",
            "uJ/IO",
            "MB/s per W",
            "mW per MB/s",
            "published",
            "error",
        ):
            t.add_column(col, justify="left" if col == "test" else "right")
        for r in self.rows:
            p = r.published_mw_per_mbps
            t.add_row(
                r.test,
                f"{r.mbps:.0f}",
                f"{r.avg_power_w:.2f}",
                f"{r.max_power_w:.2f}",
                f"{r.energy_per_io_uj:.0f}",
                f"{r.mbps_per_w:.0f}",
                f"{r.mw_per_mbps:.3f}",
                "-" if p is None else f"{p:.2f}",
                "-" if r.error_pct is None else f"{r.error_pct:+.1f}%",
            )
        spec = [
            Beside("idle (APST + L1.2)", self.published.get("idle_power_mW"), self.idle_mw, "mW"),
            Beside("highest 10 ms sample", self.published.get("active_power_W"), self.max_power_w, "W"),
        ]
        return [t, published_table(f"{self.preset}: against the spec sheet", spec)]


def _published(preset: str, lanes: int) -> tuple[dict[str, Any], dict[str, float]]:
    """The brief's ratios for this preset ({"read": x, "write": y}) and its spec sheet's power figures."""
    figs = reference.figures(_REFERENCE_OF.get(preset, preset)) or {}
    pw = figs.get("power", {})
    ratios: dict[str, Any] = {"read": pw.get("read_mW_per_MBps")}
    ratios["write"] = pw.get(f"write_mW_per_MBps_{lanes}lane")
    spec = figs.get("spec", {}) if preset not in _REFERENCE_OF else {}
    keep: dict[str, float] = {k: float(spec[k]) for k in ("idle_power_mW", "active_power_W") if k in spec}
    return ratios, keep


def run_power(
    drive: Drive, duration: str = "500ms", interval: str = "10ms", progress: Progress | None = None
) -> PowerResult:
    """The brief's power test on clones of ``drive`` (left unchanged): sequential read and write, each
    ``duration`` long, power sampled every ``interval``; then the power of the drive left idle."""
    lanes = int(drive.config_value("link.lanes"))
    ratios, published = _published(drive.name, lanes)
    region = min(drive.capacity_bytes // 2, parse_size("4g"))
    rows = []
    best = 0.0
    for i, (test, rw) in enumerate((("seq read", "read"), ("seq write", "write"))):
        d = drive.clone()
        if rw == "read":
            d.run(Workload(rw="write", bs="128k", iodepth=32, size=region))
            d.idle("10s")  # the data leaves the SLC cache, as on a drive in use
        w = Workload(
            rw=rw,
            bs="128k",
            iodepth=32,
            size=region,
            runtime=duration,
            time_based=True,
            interval=interval,
            ramp_time="100ms",  # the window starts once the transfer is continuous
        )
        res = d.run(w, progress=scaled(progress, i / 3, (i + 1) / 3, test))
        best = max(best, res.max_power_w)
        rows.append(
            PowerRow(
                test=test,
                mbps=res.bandwidth_mbps,
                avg_power_w=res.avg_power_w,
                max_power_w=res.max_power_w,
                energy_per_io_uj=res.energy_per_io_uj,
                mw_per_mbps=res.mw_per_mbps,
                mbps_per_w=res.mbps_per_w,
                published_mw_per_mbps=ratios[rw],
            )
        )
    idle_mw = idle_power_mw(drive.clone())
    if progress is not None:
        progress(1.0, "idle")
    return PowerResult(drive.name, drive.config_toml(), rows, idle_mw, best, published)


def idle_power_mw(drive: Drive) -> float:
    """The power of ``drive`` (changed: time passes) left idle: first until its background work (idle
    folding of the SLC cache, idle GC) is done (:func:`ssdlab.precondition.settle`, at most 10 minutes), as a
    reviewer measures an idle drive, not one still folding what the last test wrote; then long enough
    for APST's deepest state and L1.2: 5 s of idle, then the energy of 1 s more, in mW."""
    settle(drive)
    drive.idle("5s")
    before = drive.counters()
    drive.idle("1s")
    return float(drive.counters()["energy_j"] - before["energy_j"]) * 1e3


def _run(drive: Drive, options: SuiteOptions, progress: Progress | None) -> PowerResult:
    return run_power(
        drive, duration=options.duration or "500ms", interval=options.interval or "10ms", progress=progress
    )


register(
    Suite(
        name="power",
        help="power efficiency as the KIOXIA BG4 brief measures it (max of 10 ms samples over 500 ms of "
        "sequential transfer, mW per MB/s), MB/s per W, idle power with APST",
        run=_run,
        options=frozenset({"duration", "interval"}),
        simulated_only="measures the drive's power model, which a real device does not expose",
    )
)
