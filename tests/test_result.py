from __future__ import annotations

import json

import numpy as np
import pytest

import ssdlab
from ssdlab import Drive, Workload


@pytest.fixture
def mixed(small_bg4: Drive) -> ssdlab.Result:
    small_bg4.run(Workload(rw="write", bs="1m", iodepth=4, size="512m"))
    return small_bg4.run(
        Workload(
            rw="randrw", rwmixread=70, bs="4k", iodepth=16, size="512m", runtime="100ms", interval="10ms"
        )
    )


def test_rates_are_decimal_and_add_up(mixed: ssdlab.Result) -> None:
    r, w = mixed.read, mixed.write
    assert r.ios > 0 and w.ios > 0
    assert r.bytes == r.ios * 4096 and w.bytes == w.ios * 4096
    assert mixed.elapsed_s == pytest.approx(0.1, rel=0.05)
    assert r.mbps == pytest.approx(r.bytes / 1e6 / mixed.elapsed_s)
    assert mixed.bandwidth_mbps == pytest.approx(r.mbps + w.mbps)
    assert mixed.iops == pytest.approx((r.ios + w.ios) / mixed.elapsed_s)
    # about 70 % reads
    assert 0.6 < r.ios / (r.ios + w.ios) < 0.8


def test_latency_is_in_microseconds_and_ordered(mixed: ssdlab.Result) -> None:
    lat = mixed.latency
    assert lat.count == mixed.read.ios + mixed.write.ios
    assert lat.min_us <= lat.percentile(50) <= lat.percentile(99) <= lat.percentile(99.99) <= lat.max_us
    assert lat.min_us <= lat.mean_us <= lat.max_us
    assert mixed.read.latency.count == mixed.read.ios
    assert mixed.write.latency.count == mixed.write.ios


def test_series_are_numpy_columns_of_one_length(mixed: ssdlab.Result) -> None:
    s = mixed.series
    assert len(s) >= 10
    for name in ("time_s", "read_mbps", "write_mbps", "iops", "mean_latency_us", "max_latency_us"):
        col = getattr(s, name)
        assert isinstance(col, np.ndarray) and col.dtype == np.float64 and len(col) == len(s)
    assert s.time_s[0] == pytest.approx(0.01)
    # rate x the time each bin covers (the last may be partial) sums to the run's bytes
    widths = np.diff(np.concatenate([[0.0], s.time_s]))
    moved_mb = float(np.sum((s.read_mbps + s.write_mbps) * widths))
    assert moved_mb == pytest.approx((mixed.read.bytes + mixed.write.bytes) / 1e6)


def test_counters_and_die_utilisation(mixed: ssdlab.Result) -> None:
    c = mixed.counters
    assert c["host_read_ios"] >= mixed.read.ios
    assert c["waf"] >= 1.0
    assert c["nand_pages_programmed"] > 0
    util = mixed.die_utilisation
    assert isinstance(util, np.ndarray) and len(util) == 16  # bg4-1tb: 4 channels x 4 dies
    assert np.all((util >= 0) & (util <= 1))
    assert c["die_utilisation_mean"] == pytest.approx(float(util.mean()))


def test_to_dict_is_json_and_says_what_produced_it(mixed: ssdlab.Result) -> None:
    d = json.loads(json.dumps(mixed.to_dict()))
    assert d["preset"] == "bg4-1tb"
    assert d["seed"] == 1
    assert d["ssdlab_version"] == ssdlab.__version__
    assert d["workload"]["rw"] == "randrw"
    assert set(d["latency"]["percentiles_us"]) == {"50", "90", "99", "99.9", "99.99"}
    assert d["latency"]["max_us"] == mixed.latency.max_us
    assert d["read"]["ios"] == mixed.read.ios
    assert len(d["series"]["iops"]) == len(mixed.series)


def test_a_run_with_nothing_measured_has_zero_rates(small_bg4: Drive) -> None:
    res = small_bg4.run(Workload(rw="randwrite", size="64m", io_size="4k"))
    assert res.write.ios == 1
    assert res.read.iops == 0.0 and res.read.mbps == 0.0 and res.read.latency.count == 0


@pytest.mark.parametrize("runtime", ["5ms", "150ms"])
def test_a_run_ending_inside_an_interval_reports_that_interval_over_the_time_it_covers(runtime: str) -> None:
    # the last interval of the series is partial: its rates are over its own length, not the full 100 ms
    drive = Drive.from_preset("bg4-1tb", capacity_gb=16)
    drive.run(Workload(rw="write", bs="128k", iodepth=32, size="1g"))
    res = drive.run(Workload(rw="randread", size="1g", runtime=runtime, iodepth=4))
    s = res.series
    assert s.time_s[-1] == pytest.approx(res.elapsed_s, rel=1e-6)
    assert s.read_mbps[-1] == pytest.approx(res.read.mbps, rel=0.05)
    assert s.power_w[-1] == pytest.approx(res.avg_power_w, rel=0.05)
    assert res.max_power_w >= res.avg_power_w * 0.999


def test_trims_are_a_direction_of_their_own(small_bg4: Drive) -> None:
    small_bg4.run(Workload(rw="write", bs="1m", iodepth=4, size="64m"))
    res = small_bg4.run(Workload(rw="randtrim", bs="16k", iodepth=4, size="64m"))
    t = res.trim
    assert t.ios == res.trim_ios == 64 * 1024 // 16 and t.bytes == 64 << 20
    assert t.iops == pytest.approx(t.ios / res.elapsed_s) and t.latency.count == t.ios > 0
    assert 0 < t.latency.min_us <= t.latency.mean_us <= t.latency.max_us
    # fio's totals: reads and writes only
    assert res.iops == 0 and res.latency.count == 0
    assert res.to_dict()["trim"]["ios"] == t.ios


def test_an_io_log_is_kept_per_spec_that_asks_and_is_the_same_for_the_same_seed(small_bg4: Drive) -> None:
    small_bg4.run(Workload(rw="write", bs="1m", iodepth=4, size="512m"))
    reader = Workload(rw="randread", iodepth=8, size="512m", runtime="20ms", log_ios=True)
    writer = Workload(rw="randwrite", iodepth=4, offset="1g", size="512m", runtime="20ms")

    def run() -> ssdlab.Result:
        return small_bg4.clone().run([reader, writer])

    res = run()
    assert res.io_log is None  # several specs: each keeps its own
    log = res.jobs[0].io_log
    assert log is not None and res.jobs[1].io_log is None
    assert len(log) == res.jobs[0].read.ios and set(log.ops) == {"read"}
    assert float(log.latency_ns.mean()) == pytest.approx(res.jobs[0].read.latency.mean_us * 1e3, rel=1e-3)
    again = run().jobs[0].io_log
    assert again is not None and np.array_equal(again.complete_ns, log.complete_ns)
