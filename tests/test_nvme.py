"""NVMe views of a twin: SMART data units are NVMe's 512,000-byte units rounded up, commands and unsafe
shutdowns are counted, percentage used follows P/E cycles, Identify reports the preset's facts. The
controller: namespaces are ranges of the one drive that IO cannot leave, a media key change makes data
garbage at once, after every sanitize no LBA returns old data and the time is the NAND work's, failed
commands are in the error log, and each feature changes what it says it does."""

import math
import tomllib

import pytest

import ssdlab
from ssdlab._core import version
from ssdlab.nvme import CommandError, Controller, identify_controller, identify_namespace, smart_log


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


# --- the drive as an NVMe controller: namespaces, sanitize, log pages, features -------------------------

MIB = 1 << 20


def controller(data: bool = True, max_namespaces: int = 16) -> Controller:
    drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 1}, data=data)
    return Controller(drive, max_namespaces=max_namespaces)


def carved(nvme: Controller) -> tuple[int, int]:
    """Namespace 1 deleted; a 1 MiB namespace of 512-byte LBAs and a 2 MiB one of 4 KiB LBAs, attached."""
    nvme.delete_namespace(1)
    a, b = nvme.create_namespace(2048, lba_bytes=512), nvme.create_namespace(512)
    nvme.attach_namespace(a)
    nvme.attach_namespace(b)
    return a, b


def test_a_new_controller_has_one_namespace_over_the_whole_drive() -> None:
    nvme = controller()
    ns = nvme.identify_namespace(1)
    assert ns["nsze"] * 4096 == nvme.drive.capacity_bytes and ns["lbaf"][ns["flbas"]]["ds"] == 12
    assert ns["attached"] and nvme.identify_controller()["unvmcap"] == 0


def test_namespaces_are_ranges_of_the_one_drive_and_io_lands_in_its_own_range() -> None:
    nvme = controller()
    a, b = carved(nvme)
    assert [nvme.identify_namespace(n)["first_byte"] for n in (a, b)] == [0, MIB]
    assert nvme.identify_controller()["unvmcap"] == nvme.drive.capacity_bytes - 3 * MIB
    nvme.write(b, 0, b"\x0b" * 4096)  # namespace b's LBA 0 is the drive's byte 1 MiB
    nvme.write(a, 2047, b"\x0a" * 512)  # a's last LBA: the last 512 bytes before 1 MiB
    assert nvme.read(b, 0, 1) == b"\x0b" * 4096 and nvme.read(a, 2047, 1) == b"\x0a" * 512
    assert nvme.read(a, 0, 2047) == bytes(2047 * 512), "the rest of a is untouched"
    assert nvme.drive.counters()["host_write_ios"] == 2


def test_512_byte_lbas_write_part_of_a_page_and_keep_its_other_lbas() -> None:
    nvme = controller()
    a, _ = carved(nvme)
    nvme.write(a, 0, bytes(range(256)) * 16)  # LBAs 0..7: one whole page
    nvme.write(a, 3, b"\xff" * 1024)  # LBAs 3 and 4, the middle of that page
    page = nvme.read(a, 0, 8)
    assert page[:1536] == (bytes(range(256)) * 16)[:1536] and page[1536:2560] == b"\xff" * 1024
    assert page[2560:] == (bytes(range(256)) * 16)[2560:]
    c = nvme.write(a, 9, b"\x01" * 512)  # a partial-page write still programs a whole 4 KiB page
    assert (c.offset, c.length) == (9 * 512, 512)
    # once the page is on flash, the drive reads it before merging the LBA in (read-modify-write)
    nvme.submit(a, "flush")
    while nvme.drive.outstanding:
        nvme.drive.advance()
        nvme.poll()
    before = nvme.drive.counters()["rmw_reads"]
    nvme.write(a, 2, b"\x02" * 512)
    assert nvme.drive.counters()["rmw_reads"] - before == 1
    assert nvme.read(a, 0, 4) == (bytes(range(256)) * 16)[:1024] + b"\x02" * 512 + b"\xff" * 512


def test_a_trim_deallocates_the_whole_pages_it_covers_and_completes_without_them() -> None:
    nvme = controller()
    a, _ = carved(nvme)
    nvme.write(a, 0, b"\x07" * 8192)  # LBAs 0..15: two pages
    part = nvme.submit(a, "trim", 0, 1)  # one 512-byte LBA: no whole page, a hint the drive passes over
    assert [c.id for c in nvme.poll()] == [part] and nvme.drive.outstanding == 0
    assert nvme.read(a, 0, 1) == b"\x07" * 512
    nvme.submit(a, "trim", 4, 12)  # LBAs 4..15: only the second page is whole
    assert nvme.read(a, 0, 16) == b"\x07" * 4096 + bytes(4096)
    with pytest.raises(CommandError, match="nlb: must be a whole number >= 1"):
        nvme.submit(a, "read", 0, 0)


def test_io_beyond_a_namespace_or_to_a_detached_or_unknown_one_fails_and_is_logged() -> None:
    nvme = controller()
    a, b = carved(nvme)
    with pytest.raises(CommandError) as out:
        nvme.submit(a, "write", 2040, 16)
    assert out.value.status == "LBA Out of Range" and out.value.field == "slba"
    assert "namespace 1 has LBAs 0..2047 (512 bytes each)" in str(out.value)
    nvme.detach_namespace(b)
    with pytest.raises(CommandError, match="not attached") as out:
        nvme.read(b, 0, 1)
    with pytest.raises(CommandError, match=r"no such namespace \(there are: 1, 2\)"):
        nvme.read(7, 0, 1)
    log = nvme.error_log()
    assert [e["status"] for e in log] == [
        "Invalid Namespace or Format",
        "Namespace Not Attached",
        "LBA Out of Range",
    ]
    assert log[-1]["nsid"] == a and log[-1]["lba"] == 2040 and log[0]["error_count"] == 3
    assert nvme.drive.outstanding == 0, "no failed command reached the drive"


def test_namespace_management_refuses_what_does_not_fit_and_reuses_freed_ranges() -> None:
    nvme = controller(max_namespaces=3)
    with pytest.raises(CommandError, match="largest unallocated range has 0") as out:
        nvme.create_namespace(8)
    assert out.value.status == "Namespace Insufficient Capacity"
    nvme.delete_namespace(1)
    with pytest.raises(CommandError, match="multiple of 8"):
        nvme.create_namespace(12, lba_bytes=512)
    with pytest.raises(CommandError, match="must be one of 512, 4096"):
        nvme.create_namespace(8, lba_bytes=520)
    ids = [nvme.create_namespace(256) for _ in range(3)]
    assert ids == [1, 2, 3]
    with pytest.raises(CommandError, match="at most 3 namespaces"):
        nvme.create_namespace(256)
    nvme.attach_namespace(2)
    nvme.write(2, 0, b"\x02" * 4096)
    nvme.delete_namespace(2)  # its range is deallocated and free again
    again = nvme.create_namespace(256)
    nvme.attach_namespace(again)
    assert again == 2 and nvme.identify_namespace(again)["first_byte"] == MIB
    assert nvme.read(again, 0, 1) == bytes(4096), "a new namespace never shows its range's old data"


def test_changing_a_namespaces_media_key_makes_its_data_garbage_at_once() -> None:
    nvme = controller()
    a, b = carved(nvme)
    secret = b"secret!!" * 512
    nvme.write(a, 0, secret)
    nvme.write(b, 0, secret)
    assert nvme.drive.read_data(0, 4096) != secret, "the media holds ciphertext"
    t = nvme.drive.now_ns
    nvme.change_media_key(a)
    assert nvme.drive.now_ns == t, "a key change takes no NAND work"
    garbage = nvme.read(a, 0, 8)
    assert garbage != secret and garbage != bytes(4096), "deterministic garbage, not zeros"
    assert nvme.read(b, 0, 1) == secret, "the other namespace keeps its key"
    nvme.format_namespace(b, lba_bytes=512, crypto_erase=True)
    assert nvme.identify_namespace(b)["nsze"] == 4096 and nvme.read(b, 0, 8) == bytes(4096)


def small_full_drive() -> Controller:
    """A drive scaled down with its blocks (2 GB), data on, every LBA written with a non-zero pattern."""
    nvme = Controller(ssdlab.Drive.from_preset("bg4-1tb", capacity_gb=2, data=True))
    d = nvme.drive
    d.run(ssdlab.Workload(rw="write", bs="1m", iodepth=8, size=d.capacity_bytes))  # timing: the blocks fill
    for off in range(0, d.capacity_bytes, 64 * 4096):  # data: a few pages in every 256 KiB
        nvme.write(1, off // 4096, b"\x5a" * 4096)
    d.idle("30s")  # background work (folding, GC) done: a sanitize's time is its own work
    return nvme


def every_lba_reads_zeros(nvme: Controller) -> bool:
    step = 64 << 20
    return all(
        not any(nvme.drive.read_data(off, min(step, nvme.drive.capacity_bytes - off)))
        for off in range(0, nvme.drive.capacity_bytes, step)
    )


@pytest.mark.parametrize("action", ["block-erase", "overwrite", "crypto-erase"])
def test_after_each_sanitize_no_lba_returns_old_data(action: str) -> None:
    nvme = small_full_drive()
    before = nvme.drive.counters()
    start = nvme.drive.now_ns
    end = nvme.sanitize(action)
    if action != "crypto-erase":
        assert nvme.sanitize_log()["sstat"] == 2 and end > start
        with pytest.raises(CommandError) as out:
            nvme.read(1, 0, 1)
        assert out.value.status == "Sanitize In Progress"
        nvme.drive.advance(end)
    log = nvme.sanitize_log()
    assert (log["sstat"], log["sprog"], log["action"]) == (1, 65535, action)
    assert every_lba_reads_zeros(nvme), "every LBA of the drive reads zeros"
    assert nvme.read(1, 0, 1) == bytes(4096)
    erased = nvme.drive.counters()["nand_blocks_erased"] - before["nand_blocks_erased"]
    if action == "crypto-erase":
        assert end == start, "a key change: no NAND work (GC reclaims the deallocated blocks later)"
    else:
        assert erased > 0


def test_sanitize_times_follow_the_nand_work_and_progress_is_linear() -> None:
    times = {}
    for action in ("block-erase", "overwrite"):
        nvme = small_full_drive()
        start = nvme.drive.now_ns
        end = nvme.sanitize(action)
        times[action] = end - start
        nvme.drive.advance(start + (end - start) // 2)
        assert abs(nvme.sanitize_log()["progress_pct"] - 50) < 0.01
    cfg = tomllib.loads(nvme.drive.config_toml())
    nand = cfg["nand"]
    # block erase: each die erases its blocks one after another (a tBERS each), the dies in parallel
    dies = nand["channels"] * nand["dies_per_channel"]
    blocks = nand["blocks_per_plane"]
    # the busiest die holds at least its share of the data, and at most all its blocks
    block_bytes = nand["pages_per_block"] * nand["page_size_kib"] * 1024 * nand["planes_per_die"]
    holding = math.ceil(nvme.drive.capacity_bytes / dies / block_bytes)
    tbers = nand["tBERS_ms"] * 1e6
    assert holding * tbers <= times["block-erase"] <= blocks * tbers + 1e6, f"{dies} dies in parallel"
    # overwrite: each block's 384 one-shot TLC programs (1152 pages / 3) of ~1.8 ms against one 10 ms erase
    assert times["overwrite"] > 50 * times["block-erase"]


def test_sanitize_refuses_bad_fields_with_what_is_allowed() -> None:
    nvme = controller()
    with pytest.raises(CommandError, match="must be one of block-erase, overwrite, crypto-erase"):
        nvme.sanitize("shred")
    with pytest.raises(CommandError, match=r"1\.\.16"):
        nvme.sanitize("overwrite", passes=17)
    with pytest.raises(CommandError, match="crypto-erase only"):
        nvme.sanitize("block-erase", no_deallocate=True)


def test_crypto_erase_without_deallocation_leaves_garbage_not_old_data() -> None:
    nvme = controller()
    nvme.write(1, 0, b"\x33" * 4096)
    nvme.sanitize("crypto-erase", no_deallocate=True)
    assert nvme.sanitize_log()["sstat"] == 4
    assert nvme.read(1, 0, 1) not in (b"\x33" * 4096, bytes(4096))


def test_telemetry_carries_the_counters_and_firmware_slot_the_build() -> None:
    nvme = controller()
    nvme.write(1, 0, bytes(8192))
    t1, t2 = nvme.telemetry_host(), nvme.telemetry_host()
    assert (t1["log_identifier"], t1["generation"], t2["generation"]) == (7, 1, 2)
    area = t1["data_area_1"]
    assert area["counters"]["host_write_bytes"] == 8192 and area["smart"]["host_write_commands"] == 1
    assert set(area["counters"]) == set(ssdlab.counters.REGISTRY)
    fw = nvme.firmware_slot_info()
    assert fw["afi"]["active_slot"] == 1 and fw["frs"][1] == version()[:8]


def test_write_cache_off_makes_every_write_reach_flash_before_it_completes() -> None:
    on, off = controller(), controller()
    assert off.set_feature("volatile-write-cache", wce=0) == {"wce": 0}
    lat = {}
    for name, nvme in (("on", on), ("off", off)):
        c = nvme.write(1, 0, b"\x44" * 4096)
        lat[name] = c.latency_us
    assert lat["off"] > 10 * lat["on"], lat
    assert off.drive.power_cut(pln=False).lost_lpns == [], "nothing acknowledged was only in the cache"
    assert on.drive.power_cut(pln=False).lost_lpns == [0]


def test_a_host_chosen_power_state_makes_the_next_command_wait_its_exit_latency() -> None:
    nvme = controller()
    exit_us = nvme.identify_controller()["psd"][1]["exit_lat_us"]  # PS4
    nvme.set_feature("apst", apste=0)
    nvme.write(1, 0, bytes(4096))
    base = nvme.write(1, 1, bytes(4096)).latency_us
    assert nvme.set_feature("power-management", ps=4) == {"ps": 4}
    slept = nvme.write(1, 2, bytes(4096)).latency_us
    assert slept == pytest.approx(base + exit_us, abs=5)
    assert nvme.get_feature("power-management") == {"ps": 0}, "the command woke it"
    with pytest.raises(CommandError, match=r"must be 0..4 \(NPSS\)"):
        nvme.set_feature("power-management", ps=5)


def test_hmb_off_slows_random_writes_over_a_span_past_both_caches() -> None:
    # 64 GB of span: half its map misses the HMB, nearly all of it the SRAM. An evicted SRAM piece rewrites
    # its whole 16 KiB map page (read the rest, program it), as an HMB page is written whole: the drive is
    # not faster without the memory it was built around (it was, 2x at QD32, while pieces went out alone).
    def randwrite(drive: ssdlab.Drive) -> float:
        drive.run(ssdlab.Workload(rw="write", bs="128k", iodepth=32, size="64g"))
        return drive.run(ssdlab.Workload(rw="randwrite", iodepth=32, size="64g", runtime="200ms")).iops

    on = ssdlab.Drive.from_preset("bg4-1tb", capacity_gb=128)
    off = ssdlab.Drive.from_preset("bg4-1tb", capacity_gb=128, set={"controller.map_cache.location": "sram"})
    assert randwrite(off) < 0.8 * randwrite(on)


def test_hmb_off_moves_the_map_cache_to_sram_and_slows_random_reads() -> None:
    # the SRAM caches the map of ~1 GB of span (bg.toml); reads over 2 GB miss it, not the 64 MiB HMB
    def randread(nvme: Controller) -> float:
        nvme.drive.run(ssdlab.Workload(rw="write", bs="1m", iodepth=8, size="2g"))
        r = nvme.drive.run(ssdlab.Workload(rw="randread", bs="4k", iodepth=32, size="2g", runtime="50ms"))
        return r.iops

    drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16})
    on, off = Controller(drive), Controller(drive.clone())
    off.set_feature("hmb", ehm=0)
    # every SRAM miss reads a codeword of its map page first (bg.toml's sram_segment_kib): at QD32 the
    # dies and decoders overlap them, ~30% slower
    assert randread(off) < 0.8 * randread(on)
    on.set_feature("hmb", ehm=0)
    on.set_feature("hmb", ehm=1)  # given back: the HMB's speed again (its cache refills)
    assert randread(on) > 1.25 * randread(off)
    with pytest.raises(CommandError, match="HMMIN 16384 to HMPRE 16384"):
        on.set_feature("hmb", ehm=1, hsize_4kib=1000)
    dram = Controller(ssdlab.Drive.from_preset("generic-tlc-dram"))
    with pytest.raises(CommandError, match="HMPRE 0"):
        dram.set_feature("hmb", ehm=1)
