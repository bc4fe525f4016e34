"""The stepping API (submit, advance, poll) and runs of several job specs, from Python."""

from __future__ import annotations

import pytest

from ssdlab import Drive, Workload, WorkloadError

SMALL = {"ftl.user_capacity_gb": 16}


@pytest.fixture(scope="module")
def filled() -> Drive:
    drive = Drive.from_preset("bg4-1tb", set=SMALL)
    drive.run(Workload(rw="write", bs="1m", iodepth=8, size="1g"))
    return drive


def test_sequential_reads_stepped_by_hand_match_run(filled: Drive) -> None:
    # run issues 4 reads at once, then one more each time one completes; do exactly that by hand.
    bs, depth, count = 128 << 10, 4, 256
    by_run, by_hand = filled.clone(), filled.clone()
    res = by_run.run(Workload(rw="read", bs=bs, iodepth=depth, size=bs * count))
    offsets = iter(range(0, bs * count, bs))
    latencies = []
    for _ in range(depth):
        by_hand.submit("read", next(offsets), bs)
    while by_hand.outstanding:
        by_hand.advance()
        for c in by_hand.poll():
            latencies.append(c.latency_us)
            offset = next(offsets, None)
            if offset is not None:
                by_hand.submit("read", offset, bs)
    assert len(latencies) == res.read.ios == count
    assert by_hand.now_ns == by_run.now_ns
    assert by_hand.counters() == by_run.counters()
    mean = sum(latencies) / count
    assert mean == pytest.approx(res.read.latency.mean_us, rel=1e-3)  # HDR keeps 3 digits
    assert max(latencies) == pytest.approx(res.read.latency.max_us, rel=1e-3)


def test_a_completion_is_handed_out_once_the_clock_reaches_it(filled: Drive) -> None:
    drive = filled.clone()
    start = drive.now_ns
    cid = drive.submit("read", "64k", "4k")
    assert drive.poll() == [] and drive.outstanding == 1
    done = drive.advance()
    [c] = drive.poll()
    assert (c.id, c.op, c.offset, c.length, c.status) == (cid, "read", 65536, 4096, "success")
    assert (c.submit_ns, c.complete_ns) == (start, done)
    assert drive.outstanding == 0 and drive.poll() == []
    assert drive.advance(done + 1000) == done + 1000 == drive.now_ns
    with pytest.raises(WorkloadError, match="until_ns: must not be before now"):
        drive.advance(done)


def test_a_fua_write_takes_a_program_and_a_plain_one_does_not() -> None:
    # no power-state wake-up: after its idle second a write would wait for PS4 and L1.2 exits
    drive = Drive.from_preset("bg4-1tb", set={**SMALL, "power.apst": False, "power.link_exit_us": 0})
    drive.run(Workload(rw="write", bs="1m", iodepth=8, size="1g"))

    def latency_us(**kw: object) -> float:
        drive.advance(drive.now_ns + 10**9)
        drive.submit("write", "2g", "4k", **kw)  # type: ignore[arg-type]
        drive.advance()
        return drive.poll()[0].latency_us

    plain, fua = latency_us(), latency_us(fua=True)
    assert plain < 50 < fua, (plain, fua)


@pytest.mark.parametrize(
    ("op", "offset", "length", "field"),
    [
        ("erase", 0, 4096, "op"),
        ("read", 100, 4096, "offset"),
        ("write", 0, 0, "length"),
        ("read", 0, 2**64, "length"),
        ("write", "100g", 4096, "offset"),  # on a 16 GB drive: the offset is past the end, not the length
    ],
)
def test_bad_commands_name_the_field(
    filled: Drive, op: str, offset: int | str, length: int, field: str
) -> None:
    with pytest.raises(WorkloadError) as info:
        filled.submit(op, offset, length)
    assert info.value.field == field


def test_several_job_specs_run_at_once_and_each_is_reported(filled: Drive) -> None:
    reader = Workload(rw="randread", iodepth=4, size="1g", runtime="50ms", seed=5)
    writer = Workload(rw="write", bs="128k", iodepth=8, offset="2g", size="4g", runtime="50ms")
    res = filled.clone().run([reader, writer])
    alone = filled.clone().run(reader)
    r, w = res.jobs
    assert (r.workload, w.workload) == (reader, writer)
    assert r.write.ios == 0 and w.read.ios == 0 and r.read.ios > 0 and w.write.ios > 0
    assert res.read.ios == r.read.ios and res.write.ios == w.write.ios
    assert (
        r.read.latency.mean_us > 1.2 * alone.read.latency.mean_us
    )  # reads wait behind the writer's programs
    out = res.to_dict()
    assert [j["workload"]["rw"] for j in out["jobs"]] == ["randread", "write"]  # type: ignore[index]
    assert "+" in repr(res)


def test_a_run_needs_workloads() -> None:
    drive = Drive.from_preset("bg4-1tb", set=SMALL)
    with pytest.raises(WorkloadError, match="at least one"):
        drive.run([])
    with pytest.raises(WorkloadError, match=r"not an ssdlab\.Workload"):
        drive.run([{"rw": "read"}])  # type: ignore[list-item]


def test_stepping_input_out_of_range_is_a_workload_error_or_no_id(filled: Drive) -> None:
    d = filled.clone()
    with pytest.raises(WorkloadError) as info:
        d.submit("write", 0, 4096, compress_percentage=-1)
    assert info.value.field == "compress_percentage"
    d.advance(d.now_ns + 1000)
    with pytest.raises(WorkloadError, match="before now") as info:
        d.advance(0)
    assert info.value.field == "until_ns"
    assert d.completion_ns(-1) is None and d.completion_ns(2**70) is None  # never an id
