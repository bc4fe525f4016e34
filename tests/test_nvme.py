"""NVMe views of a twin: SMART data units are NVMe's 512,000-byte units rounded up, commands and unsafe
shutdowns are counted, percentage used follows P/E cycles, Identify reports the preset's facts."""

import math

import ssdlab
from ssdlab.nvme import identify_controller, identify_namespace, smart_log


def small() -> ssdlab.Drive:
    return ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 1})


def test_data_units_are_thousands_of_512_byte_units_rounded_up() -> None:
    d = small()
    d.run(ssdlab.Workload(rw="write", bs="4k", size="1m", io_size="1m"))
    d.run(ssdlab.Workload(rw="read", bs="4k", size="4k", io_size="4k"))
    log = smart_log(d)
    assert log["data_units_written"] == math.ceil((1 << 20) / 512_000) == 3
    assert log["data_units_read"] == 1
    assert (log["host_write_commands"], log["host_read_commands"]) == (256, 1)


def test_percentage_used_follows_the_mean_pe_count() -> None:
    # a drive scaled down with its blocks (not only its user capacity), so overwrites must erase
    d = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.pe_cycle_limit": 10}, capacity_gb=2)
    assert smart_log(d)["percentage_used"] == 0
    for _ in range(6):  # each pass over the whole drive erases every block about once
        d.run(ssdlab.Workload(rw="write", bs="128k", size=d.capacity_bytes))
    c = d.counters()
    assert smart_log(d)["percentage_used"] == min(255, math.floor(100 * c["pe_cycles_mean"] / 10)) > 0


def test_unsafe_shutdowns_and_media_errors_are_reported() -> None:
    d = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 1}, data=True)
    d.submit("write", 0, 4096, data=b"\x01" * 4096)
    d.advance()
    d._drive.corrupt_data(0, 3)
    d.read_data(0, 4096)
    d.power_cut(pln=True)
    d.power_on()
    log = smart_log(d)
    assert (log["unsafe_shutdowns"], log["media_errors"]) == (1, 1)


def test_identify_reports_the_presets_facts() -> None:
    d = small()
    ctrl, ns = identify_controller(d), identify_namespace(d)
    assert ctrl["tnvmcap"] == d.capacity_bytes and ns["nsze"] * 4096 == d.capacity_bytes
    assert ctrl["hmpre_4kib"] > 0, "the BG4 asks for a host memory buffer"
    assert ctrl["vwc"] == 1 and ctrl["link"] == "PCIe Gen3 x4"
    assert [s["ps"] for s in ctrl["psd"]] == ["PS3", "PS4"]
    assert identify_controller(ssdlab.Drive.from_preset("generic-tlc-dram"))["hmpre_4kib"] == 0
