"""The fio workload options beyond one size and uniform offsets: each does on the twin what it does in fio."""

from __future__ import annotations

import pytest

import ssdlab
from ssdlab.fio import parse_jobfile_text, run_jobfile

GB = 1 << 30


@pytest.fixture(scope="module")
def filled() -> ssdlab.Drive:
    # bg4-1tb with HMB off (the map cached in 1 MiB of SRAM), 64 GiB written: a map that does not fit
    drive = ssdlab.Drive.from_preset(
        "bg4-1tb", set={"ftl.user_capacity_gb": 128, "controller.map_cache.location": "sram"}
    )
    drive.run(ssdlab.Workload(rw="write", bs="1m", iodepth=8, size="64g"))
    return drive


def test_a_skewed_distribution_hits_the_map_cache_more_than_uniform(filled: ssdlab.Drive) -> None:
    def hit_rate(dist: str) -> float:
        w = ssdlab.Workload(rw="randread", iodepth=8, size="64g", runtime="200ms", random_distribution=dist)
        return filled.clone().run(w).counters["map_hit_rate"]

    uniform, zipf, zoned = hit_rate("random"), hit_rate("zipf:1.2"), hit_rate("zoned:90/1:10/99")
    assert uniform < 0.2  # 1 MiB of map pages cover ~1 GiB of the 64
    assert zipf > uniform + 0.3 and zoned > uniform + 0.3


def test_fsync_flushes_every_n_writes_and_sync_writes_wait_for_flash() -> None:
    drive = ssdlab.Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
    jf = parse_jobfile_text("[w]\nrw=randwrite\nsize=1g\nio_size=4m\nfsync=4\n")
    run = run_jobfile(drive.clone(), jf)
    # a flush goes before the next write once 4 are done, so none follows the job's last four (as in fio,
    # where end_fsync covers them)
    assert run.counters["host_flush_ios"] == 1024 // 4 - 1
    plain = drive.clone().run(ssdlab.Workload(rw="randwrite", size="1g", io_size="4m"))
    fua = drive.clone().run(ssdlab.Workload(rw="randwrite", size="1g", io_size="4m", sync=True))
    assert fua.write.latency.mean_us > 5 * plain.write.latency.mean_us  # acknowledged from flash, not buffer


def test_per_direction_block_sizes_and_a_split() -> None:
    drive = ssdlab.Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
    jf = parse_jobfile_text("[m]\nrw=randrw\nbs=4k,64k\nsize=1g\nruntime=50ms\ntime_based\n")
    res = run_jobfile(drive.clone(), jf).results[0]
    assert res.read.bytes == res.read.ios * 4096 and res.write.bytes == res.write.ios * 65536
    w = ssdlab.Workload(rw="randread", bssplit="4k/75:64k/25", size="1g", io_size="64m")
    split = drive.clone().run(w)
    mean = split.read.bytes / split.read.ios
    assert mean == pytest.approx(0.75 * 4096 + 0.25 * 65536, rel=0.1)


def test_think_time_blocks_start_delay_rate_and_loops() -> None:
    drive = ssdlab.Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
    base = {"rw": "randread", "size": "1g", "runtime": "100ms", "time_based": True}
    one = drive.clone().run(ssdlab.Workload(**base, thinktime="1ms"))
    four = drive.clone().run(ssdlab.Workload(**base, thinktime="1ms", thinktime_blocks=4))
    assert four.read.iops == pytest.approx(4 * one.read.iops, rel=0.15)
    late = drive.clone().run(ssdlab.Workload(**base, startdelay="30ms"))
    assert late.elapsed_s == pytest.approx(0.1, rel=0.01) and late.read.ios > 0
    paced = drive.clone().run(ssdlab.Workload(rw="write", bs="64k", size="1g", runtime="1s", rate="40m"))
    assert paced.write.mbps == pytest.approx(40 * 1.048576, rel=0.02)
    twice = drive.clone().run(ssdlab.Workload(rw="write", size="8m", loops=2))
    assert twice.write.bytes == 16 << 20


def test_offset_increment_gives_each_clone_its_own_region_and_percentage_random_zero_is_sequential() -> None:
    drive = ssdlab.Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
    d = drive.clone()
    d.run(ssdlab.Workload(rw="write", bs="1m", size="1g", numjobs=2, offset_increment="2g"))
    assert d.counters()["mapped_bytes"] == 2 * GB
    seq = drive.clone().run(ssdlab.Workload(rw="write", size="256m", iodepth=4))
    mostly = drive.clone().run(ssdlab.Workload(rw="randwrite", size="256m", iodepth=4, percentage_random=0))
    assert mostly.write.mbps == seq.write.mbps


def test_skipped_sequential_ios_leave_gaps() -> None:
    d = ssdlab.Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})
    jf = parse_jobfile_text("[w]\nrw=write:12k\nsize=16m\n")
    run_jobfile(d, jf)
    assert d.counters()["mapped_bytes"] == (16 << 20) // 4  # 4k written per 16k
