from __future__ import annotations

import dataclasses

import pytest

import ssdlab
from ssdlab import Workload, WorkloadError


def test_defaults_are_fio_like() -> None:
    native = Workload().to_native()
    assert native == {
        "rw": "randread",
        "bs": 4096,
        "iodepth": 1,
        "numjobs": 1,
        "offset": 0,
        "size": 0,
        "io_size": 0,
        "runtime_ns": 0,
        "time_based": False,
        "ramp_time_ns": 0,
        "rwmixread": 50,
        "rate_iops": 0,
        "thinktime_ns": 0,
        "buffer_compress_percentage": 0,
        "seed": 1,
        "interval_ns": 100_000_000,
        "bs_write": 0,
        "blockalign": 0,
        "random_distribution": "random",
        "percentage_random": 100,
        "seq_skip": 0,
        "offset_increment": 0,
        "startdelay_ns": 0,
        "rate_bps": 0,
        "rate_process": "linear",  # fio: IOs evenly spaced at the rate
        "thinktime_blocks": 1,
        "fsync": 0,
        "sync": False,
        "loops": 1,
        "number_ios": 0,
        "verify": False,  # fio: no read-back unless verify names a checksum
        "randommap": False,  # fio's default is on; the fio runner sets it, the suites draw with replacement
        # fio's steadystate defaults: iops_slope:0.01%, checked every second, off until ss_dur is set
        "steadystate": "iops_slope:0.01%",
        "steadystate_duration_ns": 0,
        "steadystate_ramp_time_ns": 0,
        "steadystate_check_interval_ns": 1_000_000_000,
        "steadystate_group": False,
        "exitall": False,
        "exit_what": "group",  # fio: exitall stops the job's own reporting group
        "group": 0,
        "log_ios": False,  # fio logs no IO unless asked (write_lat_log)
    }


def test_strings_become_bytes_and_nanoseconds() -> None:
    w = Workload(
        rw="randrw",
        bs="128k",
        offset="1g",
        size="8g",
        io_size="2g",
        runtime="10s",
        ramp_time="500ms",
        thinktime="50us",
        interval="1s",
        rate_iops=1000,
        rwmixread=70,
        buffer_compress_percentage=46,
    )
    n = w.to_native()
    assert (n["bs"], n["offset"], n["size"], n["io_size"]) == (128 << 10, 1 << 30, 8 << 30, 2 << 30)
    assert (n["runtime_ns"], n["ramp_time_ns"], n["thinktime_ns"], n["interval_ns"]) == (
        10**10,
        5 * 10**8,
        50_000,
        10**9,
    )
    assert (n["rate_iops"], n["rwmixread"], n["buffer_compress_percentage"]) == (1000, 70, 46)


def test_readwrite_is_fios_other_name_for_rw() -> None:
    assert Workload(rw="readwrite").to_native()["rw"] == "rw"


def test_frozen() -> None:
    w = Workload()
    with pytest.raises(dataclasses.FrozenInstanceError):
        w.bs = "8k"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"rw": "randomread"}, "rw"),
        ({"iodepth": 0}, "iodepth"),
        ({"numjobs": 0}, "numjobs"),
        ({"iodepth": True}, "iodepth"),
        ({"rwmixread": 101}, "rwmixread"),
        ({"buffer_compress_percentage": -1}, "buffer_compress_percentage"),
        ({"bs": "4q"}, "bs"),
        ({"bs": "1000"}, "bs"),  # not whole 512 B sectors
        ({"bs": "128m"}, "bs"),  # above fio's largest
        ({"size": "lots"}, "size"),
        ({"runtime": "5 parsecs"}, "runtime"),
        ({"time_based": True}, "runtime"),
        ({"rate_iops": -5}, "rate_iops"),
        ({"seed": -1}, "seed"),
    ],
)
def test_bad_fields_fail_at_construction_naming_the_field(kwargs: dict[str, object], field: str) -> None:
    with pytest.raises(WorkloadError) as info:
        Workload(**kwargs)  # type: ignore[arg-type]
    assert str(info.value).startswith(f"{field}: ")
    assert info.value.field == field


def test_unknown_rw_lists_what_is_allowed() -> None:
    with pytest.raises(WorkloadError, match="randread, randwrite"):
        Workload(rw="randomread")


def test_to_dict_keeps_what_was_given() -> None:
    assert Workload(bs="1m", runtime="5s").to_dict()["bs"] == "1m"


def test_every_problem_is_reported_at_once_by_the_engines_schema() -> None:
    with pytest.raises(WorkloadError) as info:
        Workload(bs="1000", iodepth=0, rwmixread=101, rate_iops=True)  # type: ignore[arg-type]
    fields = [p.path for p in info.value.errors()]
    assert fields == ["rate_iops", "bs", "iodepth", "rwmixread"]  # wrong types first, then the ranges
    assert len(str(info.value).splitlines()) == 4


def test_a_run_of_several_specs_names_the_spec_of_each_problem() -> None:
    drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
    ok = Workload(rw="read", size="1g")
    with pytest.raises(WorkloadError) as info:
        drive.run([ok, Workload(rw="read", offset="3g", size="2g"), Workload(rw="read", offset="8g")])
    assert [p.path for p in info.value.errors()] == ["jobs[1].size", "jobs[2].offset"]


def test_a_misspelt_field_is_a_workload_error_naming_it_and_the_nearest() -> None:
    with pytest.raises(
        ssdlab.WorkloadError, match=r"iodpeth: is not a Workload field; did you mean iodepth\?"
    ):
        ssdlab.Workload(iodpeth=4)  # type: ignore[call-arg]
    assert ssdlab.Workload("randwrite", iodepth=4).iodepth == 4  # positional and known names as before
