"""A drive that keeps data: what is written reads back (through completions and `read_data`), trims and
sanitize drop it, a flipped bit is a counted integrity error, and keeping data changes no timing."""

import tomllib

import pytest

import ssdlab
from ssdlab import Drive

PAGE = 4096


def small(data: bool = True) -> Drive:
    return Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 1}, data=data)


def drain(drive: Drive) -> list[ssdlab.drive.Completion]:
    done = []
    while drive.outstanding:
        drive.advance()
        done += drive.poll()
    return done


def page(lpn: int, version: int = 0) -> bytes:
    return bytes((lpn * 7 + i + version) % 251 for i in range(PAGE))


def test_sector_writes_change_only_their_sectors_and_reads_return_exactly_the_bytes_asked() -> None:
    d = small()
    d.submit("write", 0, 2 * PAGE, data=page(0) + page(1))
    d.submit("flush", 0, 0)  # the pages go to flash: the sector writes below read them first
    drain(d)
    before = d.counters()["rmw_reads"]
    d.submit("write", PAGE - 512, 1024, data=b"\x5a" * 1024)  # the last sector of page 0, the first of 1
    drain(d)
    assert d.counters()["rmw_reads"] - before == 2
    rid = d.submit("read", PAGE - 1024, 2048)
    (read,) = [c for c in drain(d) if c.id == rid]
    assert read.data == page(0)[-1024:-512] + b"\x5a" * 1024 + page(1)[512:1024]
    assert d.read_data(0, 2 * PAGE) == page(0)[:-512] + b"\x5a" * 1024 + page(1)[512:]


def test_reads_return_the_last_write_and_zeros_elsewhere() -> None:
    d = small()
    for version in range(3):
        for lpn in range(16):
            d.submit("write", lpn * PAGE, PAGE, data=page(lpn, version))
        drain(d)
    rid = d.submit("read", 0, 17 * PAGE)
    (read,) = [c for c in drain(d) if c.id == rid]
    assert read.data is not None
    assert read.data[: 16 * PAGE] == b"".join(page(lpn, 2) for lpn in range(16))
    assert read.data[16 * PAGE :] == bytes(PAGE), "never written: zeros"
    assert d.read_data(5 * PAGE, PAGE) == page(5, 2)


def test_trim_and_sanitize_make_pages_read_zeros() -> None:
    d = small()
    for lpn in range(8):
        d.submit("write", lpn * PAGE, PAGE, data=page(lpn))
    d.submit("trim", 2 * PAGE, 2 * PAGE)
    drain(d)
    assert d.read_data(0, 8 * PAGE) == page(0) + page(1) + bytes(2 * PAGE) + b"".join(
        page(lpn) for lpn in range(4, 8)
    )
    d.sanitize()
    assert d.read_data(0, 8 * PAGE) == bytes(8 * PAGE)


def test_a_flipped_bit_is_a_counted_data_integrity_error() -> None:
    d = small()
    d.submit("write", 0, PAGE, data=page(0))
    drain(d)
    assert d._drive.corrupt_data(0, 77)
    assert d.read_data(0, PAGE) != page(0)
    assert d.counters()["data_integrity_errors"] == 1


def test_keeping_data_changes_no_timing() -> None:
    plain, kept = small(data=False), small(data=True)
    w = ssdlab.Workload(rw="randrw", bs="4k", iodepth=8, size="512m", io_size="32m")
    a, b = plain.run(w), kept.run(w)
    assert (a.iops, a.latency.mean_us, a.latency.max_us) == (b.iops, b.latency.mean_us, b.latency.max_us)
    assert kept.data_enabled and not plain.data_enabled


def test_bad_data_names_the_field() -> None:
    d = small()
    with pytest.raises(ssdlab.WorkloadError, match="data"):
        d.submit("write", 0, 2 * PAGE, data=bytes(PAGE))
    with pytest.raises(ssdlab.WorkloadError, match="keeps no data"):
        small(data=False).read_data(0, PAGE)


def test_a_detected_hmb_map_error_is_reloaded_from_nand_never_used() -> None:
    # bg4 keeps its map in the host memory buffer; no wake-up latency after the idle gaps; the write loads
    # its map page into the HMB (a lazy update keeps its entry in the SRAM delta table until a checkpoint)
    o = {
        "ftl.user_capacity_gb": 8,
        "power.apst": False,
        "power.link_exit_us": 0,
        "controller.map_cache.lazy_map_updates": False,
    }
    d = Drive.from_preset("bg4-1tb", set=o, data=True)
    lpn = 1000
    d.submit("write", lpn * PAGE, PAGE, data=page(lpn))
    d.submit("flush", 0, 0)
    drain(d)

    def read() -> ssdlab.drive.Completion:
        d.idle("1s")
        rid = d.submit("read", lpn * PAGE, PAGE)
        (c,) = [c for c in drain(d) if c.id == rid]
        assert c.data == page(lpn), "the host read gets its own data"
        return c

    read()  # warm
    hit = read().latency_us  # a clean hit
    before = d.counters()
    assert d._drive.inject_hmb_bit_flips(lpn * PAGE, 2)
    reloaded = read().latency_us
    after = d.counters()
    assert after["hmb_ecc_reloads"] - before["hmb_ecc_reloads"] == 1
    assert after["map_pages_read"] - before["map_pages_read"] == 1, "a map page read from NAND"
    slc_tr_us = tomllib.loads(d.config_toml())["nand"]["slc_tR_us"]
    assert reloaded >= hit + slc_tr_us, f"a reload costs a map read: {reloaded} us vs {hit} + tR {slc_tr_us}"
    assert read().latency_us == hit, "the HMB copy was replaced: a clean hit again"
    dram = Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 1})
    assert not dram._drive.inject_hmb_bit_flips(0, 2), "no map in host memory"


def test_data_given_to_a_drive_that_keeps_none_is_refused_not_dropped() -> None:
    d = Drive.from_preset("bg4-1tb", capacity_gb=4)
    with pytest.raises(ssdlab.WorkloadError, match="keeps no data: call enable_data"):
        d.submit("write", 0, PAGE, data=page(0))
    assert d.outstanding == 0
