"""Power loss from Python: the notification saves buffered writes, its absence loses exactly the pages
the drive declares, a flush makes writes safe, and the drive is off until power_on rebuilds its map."""

import pytest

import ssdlab
from ssdlab import Drive

PAGE = 4096


def written(n: int) -> Drive:
    d = Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 1}, data=True)
    for lpn in range(n):
        d.submit("write", lpn * PAGE, PAGE, data=bytes([lpn + 1]) * PAGE)
    while d.outstanding:
        d.advance()
        d.poll()
    return d


def test_without_the_notification_the_buffered_writes_are_lost_and_declared() -> None:
    d = written(6)
    cut = d.power_cut(pln=False)
    assert not cut.flushed and cut.at_risk_slots == 6 and cut.lost_lpns == list(range(6))
    d.power_on()
    assert d.read_data(0, 6 * PAGE) == bytes(6 * PAGE)
    assert d.counters()["unsafe_shutdowns"] == 1


def test_the_notification_programs_the_buffer_on_the_remaining_energy() -> None:
    d = written(6)
    cut = d.power_cut(pln=True)
    assert cut.flushed and cut.lost_lpns == [] and cut.flush_ns > 0 and cut.flush_energy_j > 0
    d.power_on()
    assert d.read_data(5 * PAGE, PAGE) == bytes([6]) * PAGE


def test_a_flushed_write_survives_a_cut_without_the_notification() -> None:
    d = written(6)
    d.submit("flush", 0, 0)
    while d.outstanding:
        d.advance()
        d.poll()
    cut = d.power_cut(pln=False)
    assert cut.lost_lpns == [] and cut.at_risk_slots == 0
    d.power_on()
    assert d.read_data(0, PAGE) == bytes([1]) * PAGE


def test_the_drive_is_off_until_power_on_and_the_rebuild_takes_time() -> None:
    d = written(1)
    d.power_cut()
    with pytest.raises(ssdlab.WorkloadError, match="power_on"):
        d.submit("read", 0, PAGE)
    # nor does an off drive trim, sanitize or lose power again: what it holds stays for the rebuild
    for off_limits in (lambda: d.trim(0, PAGE), d.sanitize, d.power_cut):
        with pytest.raises(ssdlab.WorkloadError, match="power_on"):
            off_limits()
    before = d.now_ns
    took = d.power_on()
    assert took > 0 and d.now_ns == before + took
    assert d.counters()["map_rebuild_ns"] == took
