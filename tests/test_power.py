"""The power and thermal models seen from Python: the series, the Result's power figures, throttling, the
power suite against the KIOXIA BG4 brief."""

from __future__ import annotations

import numpy as np
import pytest

import ssdlab
from ssdlab.suites.power import idle_power_mw, run_power


def test_the_power_series_integrates_to_the_energy_counter() -> None:
    drive = ssdlab.Drive.from_preset("bg4-128gb")
    res = drive.run(ssdlab.Workload(rw="write", bs="128k", iodepth=32, size="512m", interval="10ms"))
    s = res.series
    assert len(s.power_w) == len(s.time_s) and (s.power_w > 0).all()
    widths = np.diff(np.concatenate([[0.0], s.time_s]))  # 10 ms each, the last as long as it lasted
    assert float(np.sum(s.power_w * widths)) == pytest.approx(res.energy_j, rel=1e-9)
    assert res.avg_power_w == pytest.approx(res.energy_j / drive.now_s, rel=1e-6)
    assert res.energy_per_io_uj == pytest.approx(res.energy_j * 1e6 / res.write.ios)
    assert res.max_power_w >= res.avg_power_w * 0.99
    assert res.mw_per_mbps == pytest.approx(res.max_power_w * 1e3 / res.bandwidth_mbps)
    assert res.to_dict()["power"]["energy_j"] == res.energy_j  # type: ignore[index]


def test_a_throttled_drive_runs_at_its_throttle_states_speed() -> None:
    """With TMT1 just above ambient the drive throttles from its first samples: a NAND-bound write (TLC
    direct, no SLC cache) runs at light_throttle_speed_pct of its speed."""
    base = {"ftl.slc_cache.enabled": False}
    w = ssdlab.Workload(rw="write", bs="128k", iodepth=32, size="2g", interval="10ms")
    cool = ssdlab.Drive.from_preset("bg4-128gb", set=base).run(w)
    hot_drive = ssdlab.Drive.from_preset(
        "bg4-128gb", set={**base, "thermal.tmt1_c": 25.5, "thermal.light_throttle_speed_pct": 50.0}
    )
    hot = hot_drive.run(w)
    assert cool.counters["throttled_ns"] == 0
    assert hot.counters["throttled_ns"] > 0.95 * hot.elapsed_s * 1e9
    assert hot.bandwidth_mbps / cool.bandwidth_mbps == pytest.approx(0.5, rel=0.05)
    assert hot.series.temperature_c[-1] > 25.5


def test_apst_idle_power_and_the_first_io_after_it() -> None:
    drive = ssdlab.Drive.from_preset("bg4-128gb")
    drive.idle("5s")
    before = drive.counters()
    drive.idle("1s")
    idle_w = drive.counters()["energy_j"] - before["energy_j"]
    assert idle_w < 0.01  # PS4 + L1.2: milliwatts
    res = drive.run(ssdlab.Workload(rw="randread", size="64m", runtime="10ms"))
    assert res.counters["apst_wakeups"] == 1
    assert res.latency.max_us >= 9500  # PS4's exit latency


@pytest.mark.slow
def test_the_power_suite_gives_the_brief_figures_in_sample_and_reports_the_hold_outs() -> None:
    res = run_power(ssdlab.Drive.from_preset("bg4-1tb"))
    by = {r.test: r for r in res.rows}
    # in-sample: the BG family's NAND currents were fitted to these (scripts/fit_power.py)
    assert by["seq read"].mw_per_mbps == pytest.approx(0.78, rel=0.10)
    assert by["seq write"].mw_per_mbps == pytest.approx(1.09, rel=0.10)
    x2 = run_power(ssdlab.Drive.from_preset("bg4-1tb-x2"))
    assert {r.test: r.published_mw_per_mbps for r in x2.rows} == {"seq read": 0.78, "seq write": 0.98}
    small = run_power(ssdlab.Drive.from_preset("bg4-128gb"), duration="100ms")
    assert small.published == {"idle_power_mW": 5.0, "active_power_W": 3.4}
    assert 1.0 < small.idle_mw < 10.0
    assert len(small.tables()) == 2


def test_a_bad_power_value_is_an_error_naming_it() -> None:
    with pytest.raises(ssdlab.ConfigError, match=r"power\.nand_read_ma.*0\.\.=500"):
        ssdlab.Drive.from_preset("bg4-128gb", set={"power.nand_read_ma": -1})
    with pytest.raises(ssdlab.ConfigError, match=r"thermal\.tmt2_c"):
        ssdlab.Drive.from_preset("bg4-128gb", set={"thermal.tmt2_c": 50})


def test_idle_power_is_measured_once_background_folding_is_done() -> None:
    """A drive that has just written 4 GB into its SLC cache folds it in idle time; its idle power is that of
    a drive with nothing to do, not of one still folding (which draws ~200 mW, 40 times as much)."""
    fresh = idle_power_mw(ssdlab.Drive.from_preset("bg4-128gb"))
    written = ssdlab.Drive.from_preset("bg4-128gb")
    written.run(ssdlab.Workload(rw="write", bs="128k", iodepth=32, size="4g"))
    folding = written.clone()
    folding.idle("1s")
    before = folding.counters()["energy_j"]
    folding.idle("1s")
    assert (folding.counters()["energy_j"] - before) * 1e3 > 20 * fresh, "still folding a second later"
    assert idle_power_mw(written) == pytest.approx(fresh, rel=0.05)
    assert written.counters()["slc_cache_used_bytes"] == 0, "the cache was folded while it settled"
