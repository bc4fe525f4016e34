"""``ssdlab fio``: fio's job files and command line in, fio's JSON and text out, checked against real fio."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import ssdlab
from ssdlab.fio import JobFileError, format_normal, load_jobs, parse_jobfile_text, run_jobfile, to_json
from ssdlab.fio.options import OPTIONS, parse_fio_size

SSDLAB = Path(sys.executable).parent / "ssdlab"
SMALL = ["--set", "ftl.user_capacity_gb=16"]
EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "fio"


def small_drive() -> ssdlab.Drive:
    return ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 16})


def ssdlab_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(SSDLAB), *args], capture_output=True, text=True, timeout=300, cwd=cwd)


def real_fio(*args: str, cwd: Path) -> dict[str, object]:
    """Debian's fio (installed by `make sysdeps`); missing fio fails the test rather than skipping it."""
    fio = shutil.which("fio")
    assert fio is not None, "fio is not installed: run `make sysdeps`"
    out = cwd / "fio-out.json"
    done = subprocess.run(
        [fio, *args, f"--output={out}"], capture_output=True, text=True, timeout=120, cwd=cwd
    )
    assert done.returncode == 0, done.stderr
    text = out.read_text()  # fio may print a warning line before its JSON
    doc: dict[str, object] = json.loads(text[text.index("{") :])
    return doc


# (a) The JSON layout is fio's: the same keys, recursively, for the job-level objects.


def key_paths(obj: object, path: str = "") -> set[str]:
    """Every key path under ``obj``, with the keys of value maps (percentiles, bins, buckets) left out."""
    if not isinstance(obj, dict):
        return set()
    out: set[str] = set()
    for key, value in obj.items():
        if path.endswith(("/percentile", "/bins", "/job options")):
            break  # their keys are values (percentiles, latencies, the options given), not layout
        out.add(f"{path}/{key}")
        out |= key_paths(value, f"{path}/{key}")
    return out


SCHEMA_JOB = """\
[global]
filename={data}
size=8m
bs=4k
description=schema check
[mixed]
rw=randrw
rwmixread=70
iodepth=4
[reader]
rw=randread
numjobs=2
group_reporting
stonewall
"""


@pytest.mark.parametrize("fmt", ["json", "json+"])
def test_json_layout_matches_real_fio(tmp_path: Path, fmt: str) -> None:
    job = tmp_path / "schema.fio"
    job.write_text(SCHEMA_JOB.format(data=tmp_path / "data"))
    theirs = real_fio(str(job), f"--output-format={fmt}", cwd=tmp_path)
    out = ssdlab_cli(
        "fio", str(job), *SMALL, f"--output-format={fmt}", "--output", str(tmp_path / "ours.json")
    )
    assert out.returncode == 0, out.stderr
    ours = json.loads((tmp_path / "ours.json").read_text())
    # Everything fio has at the top, plus the ssdlab section.
    assert set(theirs) | {"ssdlab"} == set(ours)
    assert theirs["global options"] == ours["global options"]
    assert [(j["jobname"], j["groupid"], j["job options"]) for j in theirs["jobs"]] == [  # type: ignore[attr-defined]
        (j["jobname"], j["groupid"], j["job options"]) for j in ours["jobs"]
    ]
    for their_job, our_job in zip(theirs["jobs"], ours["jobs"], strict=True):  # type: ignore[call-overload]
        assert key_paths(their_job) == key_paths(our_job)
        for which in ("read", "write"):
            if their_job[which]["total_ios"]:
                theirs_p, ours_p = (
                    their_job[which]["clat_ns"]["percentile"],
                    our_job[which]["clat_ns"]["percentile"],
                )
                assert set(theirs_p) == set(ours_p)
        assert set(their_job["latency_us"]) == set(our_job["latency_us"])
    assert set(theirs["disk_util"][0]) == set(ours["disk_util"][0])  # type: ignore[index]


# (b) One consumer reads both.


def summarise(doc: dict[str, object]) -> list[dict[str, float | str]]:
    """What a fio-reading tool takes from fio's JSON: per job and direction, IOPS, KiB/s and p99 latency."""
    rows: list[dict[str, float | str]] = []
    for job in doc["jobs"]:  # type: ignore[attr-defined]
        for which in ("read", "write"):
            d = job[which]
            if d["total_ios"] == 0:
                continue
            rows.append(
                {
                    "job": job["jobname"],
                    "dir": which,
                    "iops": d["iops"],
                    "bw_kib": d["bw"],
                    "p99_us": d["clat_ns"]["percentile"]["99.000000"] / 1000,
                    "mean_us": d["clat_ns"]["mean"] / 1000,
                    "runtime_ms": d["runtime"],
                }
            )
    return rows


def test_one_consumer_reads_fio_and_ssdlab(tmp_path: Path) -> None:
    job = tmp_path / "job.fio"
    job.write_text(f"[global]\nfilename={tmp_path / 'data'}\nsize=8m\n[rr]\nrw=randread\nbs=4k\niodepth=8\n")
    theirs = summarise(real_fio(str(job), "--output-format=json", cwd=tmp_path))
    out = ssdlab_cli("fio", str(job), *SMALL, "--output-format=json")
    assert out.returncode == 0, out.stderr
    ours = summarise(json.loads(out.stdout))
    assert [(r["job"], r["dir"]) for r in theirs] == [(r["job"], r["dir"]) for r in ours] == [("rr", "read")]
    for row in (*theirs, *ours):
        assert row["iops"] > 0 and row["bw_kib"] > 0 and row["p99_us"] > 0  # type: ignore[operator]
    # The consumer's figures for ssdlab are the Python API's for the same workload.
    res = small_drive().run(ssdlab.Workload(rw="randread", bs="4k", iodepth=8, size="8m"))
    assert ours[0]["iops"] == pytest.approx(res.read.iops)
    assert ours[0]["p99_us"] == pytest.approx(res.read.latency.percentile(99), abs=1e-3)
    assert ours[0]["mean_us"] == pytest.approx(res.read.latency.mean_us)


# (c) Job-file features.


@pytest.mark.parametrize(
    "rate",
    ["--rate_iops=1000", "--rate_iops=900,100", "--rate_iops=300,,", "--rate=4m", "--rate=2m,1m"],
)
def test_rates_pace_each_direction_as_real_fio_does(tmp_path: Path, rate: str) -> None:
    """fio caps each direction at a rate (one value: both; ``R,W``: each its own; empty: none) and switches a
    mixed job to the direction that is due. Real fio on its null engine (no device time) against the twin."""
    job = ["--name=mix", "--rw=randrw", "--rwmixread=67", "--bs=4k", "--iodepth=8", "--size=64m", rate]
    timing = ["--runtime=2", "--time_based"]
    fio = real_fio("--ioengine=null", *job, *timing, "--output-format=json", cwd=tmp_path)
    done = ssdlab_cli("fio", *SMALL, "--output-format", "json", "--", *job, *timing)
    assert done.returncode == 0, done.stderr
    twin = json.loads(done.stdout)
    for side in ("read", "write"):
        want = fio["jobs"][0][side]["iops"]  # type: ignore[index]
        got = twin["jobs"][0][side]["iops"]
        if want > 100_000:  # an unlimited direction: fio's null engine moves millions, the drive what it can
            assert got > 10_000, (side, got)
        else:
            assert got == pytest.approx(want, rel=0.01), (side, got, want)


def test_global_sections_apply_to_the_jobs_below_them() -> None:
    jf = parse_jobfile_text(
        "[global]\nbs=8k\nsize=1g\n[a]\nrw=randread\n[global]\niodepth=16\n[b]\nrw=randwrite\nbs=16k\n"
    )
    a, b = jf.jobs
    assert (a.workload.bs, a.workload.iodepth, a.workload.size) == (8192, 1, 1 << 30)
    assert (b.workload.bs, b.workload.iodepth, b.workload.size) == (16384, 16, 1 << 30)
    assert jf.global_options == {"bs": "8k", "size": "1g", "iodepth": "16"}
    assert a.options == {"rw": "randread"} and b.options == {"rw": "randwrite", "bs": "16k"}


def test_include_is_read_where_it_stands_relative_to_the_file(tmp_path: Path) -> None:
    (tmp_path / "common").mkdir()
    (tmp_path / "common" / "base.fio").write_text("[global]\nbs=64k\niodepth=8\n")
    job = tmp_path / "job.fio"
    job.write_text("include common/base.fio\n[w]\nrw=write\nsize=1g\n")
    (w,) = load_jobs([str(job)]).jobs
    assert (w.workload.bs, w.workload.iodepth) == (65536, 8)
    (tmp_path / "loop.fio").write_text("[a]\nrw=read\ninclude loop.fio\n")
    with pytest.raises(JobFileError, match=r"loop\.fio:3: include: .*includes itself"):
        load_jobs([str(tmp_path / "loop.fio")])


def test_environment_variables_are_substituted() -> None:
    text = "[j]\nrw=${RW}\nbs=${BS}\nsize=1g\n"
    (j,) = parse_jobfile_text(text, env={"RW": "randwrite", "BS": "128k"}).jobs
    assert (j.workload.rw, j.workload.bs) == ("randwrite", 131072)
    with pytest.raises(JobFileError, match=r"mine\.fio:3: \$\{BS\}: is not set in the environment"):
        parse_jobfile_text(text, "mine.fio", env={"RW": "read"})


def test_sizes_and_times_are_read_as_fio_reads_them() -> None:
    # fio's default kb_base=1024: k is 1024 and kib is 1000 (checked against fio 3.33); kb_base=1000 swaps.
    assert parse_fio_size("1m") == 1 << 20 and parse_fio_size("1mib") == 10**6
    assert parse_fio_size("1m", kb_base=1000) == 10**6 and parse_fio_size("1MiB", kb_base=1000) == 1 << 20
    (j,) = parse_jobfile_text("[j]\nkb_base=1000\nsize=2g\nruntime=2\nthinktime=50\nramp_time=500ms\n").jobs
    native = j.workload.to_native()
    assert native["size"] == 2 * 10**9
    assert native["runtime_ns"] == 2 * 10**9  # seconds by default
    assert native["thinktime_ns"] == 50_000  # microseconds by default
    assert native["ramp_time_ns"] == 500 * 10**6


def test_stonewall_groups_run_one_after_another(small_bg4: ssdlab.Drive) -> None:
    # Reads of a region a writer is laying down: after a stonewall they find it mapped; at the same
    # time, most find nothing written yet.
    text = (
        "[w]\nrw=write\nbs=1m\niodepth=8\nsize=1g\n[r]\n{sep}rw=randread\niodepth=4\nsize=1g\nruntime=20ms\n"
    )
    after = run_jobfile(small_bg4.clone(), parse_jobfile_text(text.format(sep="stonewall\n")))
    together = run_jobfile(small_bg4.clone(), parse_jobfile_text(text.format(sep="")))
    assert [e.job.groupid for e in after.entries] == [0, 1] and len(after.results) == 2
    assert [e.job.groupid for e in together.entries] == [0, 0] and len(together.results) == 1
    assert after.results[1].counters["unmapped_reads"] == 0
    assert together.results[0].counters["unmapped_reads"] > together.results[0].read.ios / 2


def test_new_group_and_wait_for() -> None:
    jf = parse_jobfile_text(
        "[global]\nsize=1g\nruntime=10ms\n[a]\nrw=write\n[b]\nnew_group\nrw=randread\n"
        "[c]\nwait_for=a\nrw=randread\n[d]\nrw=randwrite\n"
    )
    # new_group: a new reporting group that still runs alongside; wait_for: after the named job.
    assert [(j.name, j.phase, j.groupid) for j in jf.jobs] == [
        ("a", 0, 0),
        ("b", 0, 1),
        ("c", 1, 1),
        ("d", 0, 1),
    ]
    with pytest.raises(JobFileError, match=r"<job file>:3: wait_for: no job named 'x' before this one"):
        parse_jobfile_text("[a]\nrw=read\nwait_for=x\n")


def test_numjobs_clones_are_reported_apart_or_as_one_group(small_bg4: ssdlab.Drive) -> None:
    text = "[global]\nsize=1g\nruntime=20ms\nrw=randread\niodepth=4\n{extra}[r]\nnumjobs=3\n"
    apart = run_jobfile(small_bg4.clone(), parse_jobfile_text(text.format(extra="")))
    merged = run_jobfile(small_bg4.clone(), parse_jobfile_text(text.format(extra="group_reporting\n")))
    assert [(e.job.name, e.clones) for e in apart.entries] == [("r", 1)] * 3
    assert [(e.job.name, e.clones) for e in merged.entries] == [("r", 3)]
    assert sum(e.measured.read.ios for e in apart.entries) == merged.entries[0].measured.read.ios
    # Bit for bit what the Python API gives for numjobs=3 (with fio's default random map).
    api = small_bg4.clone().run(
        ssdlab.Workload(rw="randread", size="1g", runtime="20ms", iodepth=4, numjobs=3, randommap=True)
    )
    doc = to_json(merged)
    assert doc["jobs"][0]["read"]["total_ios"] == api.read.ios  # type: ignore[index]
    assert doc["jobs"][0]["read"]["clat_ns"]["mean"] == api.read.latency.mean_us * 1000  # type: ignore[index]


def test_command_line_form_equals_the_job_file(tmp_path: Path) -> None:
    job = tmp_path / "j.fio"
    job.write_text(
        "[global]\nbs=4k\nsize=1g\nruntime=20ms\n[a]\nrw=randread\niodepth=32\n[b]\nrw=randwrite\n"
    )
    from_file = to_json(run_jobfile(small_drive(), load_jobs([str(job)])))
    from_args = to_json(
        run_jobfile(
            small_drive(),
            load_jobs(
                [
                    "--bs=4k",
                    "--size",
                    "1g",
                    "--runtime=20ms",
                    "--name=a",
                    "--rw=randread",
                    "--iodepth=32",
                    "--name",
                    "b",
                    "--rw=randwrite",
                ]
            ),
        )
    )
    for a, b in zip(from_file["jobs"], from_args["jobs"], strict=True):  # type: ignore[call-overload]
        assert a["read"] == b["read"] and a["write"] == b["write"]
        assert b["job options"]["name"] == b["jobname"]  # fio lists --name among the options


def test_options_after_the_last_job_file_are_refused_not_dropped(tmp_path: Path) -> None:
    job = tmp_path / "j.fio"
    job.write_text("[a]\nrw=randread\nsize=1g\nruntime=20ms\n")
    with pytest.raises(JobFileError, match="apply to the jobs that follow it, and none do") as e:
        load_jobs([str(job), "--randseed=99"])
    assert (e.value.where, e.value.field) == ("command line (--randseed=99)", "randseed")
    # before the file they are global options, and after it they apply to the jobs given after them
    assert load_jobs(["--randseed=99", str(job)]).jobs[0].workload.seed == 99
    later = load_jobs([str(job), "--iodepth=8", "--name=b", "--rw=randwrite"]).jobs
    assert [(j.name, j.workload.iodepth) for j in later] == [("a", 1), ("b", 8)]


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (
            "zonemode=zbd",
            r"zonemode: not supported yet \(ssdlab has no zoned devices\); "
            r"supported: blockalign, bs, .*iodepth, .*wait_for",
        ),
        ("verify=sha42", r"verify: 'sha42' is not one of md5, crc64, "),
        ("random_distribution=zipf:1", r"random_distribution: zipf's exponent must not be 1"),
        (
            "random_distribution=zoned:50/50:40/50",
            r"random_distribution: the zones' access percentages must add",
        ),
        ("rw=randread:8", r"rw: 'randread:8': a random rw with :N"),
        ("exit_what=bogus", r"exit_what: must be group, stonewall or all"),
        ("number_ios=-1", r"number_ios: "),
        ("bssplit=4k/60:8k/60", r"bssplit: the percentages must add up to 100"),
        ("bssplit=4k/100,8k/100,16k/100", r"bssplit: trims take the writes' sizes in ssdlab"),
        ("bssplit=4k/100,8k/70", r"bssplit: the percentages must add up to 100 \(got 8192/70\)"),
        ("frobnicate=1", r"frobnicate: is not a fio option ssdlab knows; supported: blockalign, bs, "),
        ("iodpeth=16", r"iodpeth: is not a fio option ssdlab knows; did you mean iodepth\b"),
        ("iodepth=0", r"iodepth: must be from 1 to 65536 \(got 0\)"),
        ("bs=1000", r"bs: must be a multiple of 512 B"),
        ("bs=4k,6500", r"bs: must be a multiple of 512 B.*\(got 6500\)"),
        ("runtime=soon", r"runtime: 'soon' is not a time"),
    ],
)
def test_an_option_it_cannot_honour_names_file_line_and_option(
    tmp_path: Path, line: str, message: str
) -> None:
    job = tmp_path / "bad.fio"
    job.write_text(f"[global]\nsize=1g\n\n[j]\nrw=randread\n{line}\n")
    with pytest.raises(JobFileError, match=rf"^{job}:6: {message}") as info:
        load_jobs([str(job)])
    assert info.value.where == f"{job}:6"
    assert info.value.field == line.partition("=")[0]


def test_accepted_options_that_change_nothing_are_listed(small_bg4: ssdlab.Drive) -> None:
    text = "[global]\nioengine=io_uring\ndirect=1\n[j]\nfilename=/dev/nvme0n1\nrw=randread\nsize=8m\n"
    run = run_jobfile(small_bg4, parse_jobfile_text(text, "x.fio"))
    listed = {(i["option"], i["where"]) for i in to_json(run)["ssdlab"]["ignored_options"]}  # type: ignore[index]
    assert listed == {("ioengine", "x.fio:2"), ("direct", "x.fio:3"), ("filename", "x.fio:5")}
    text_out = format_normal(run)
    assert "note: x.fio:2: ioengine=io_uring ignored: simulated" in text_out
    assert "note: x.fio:5: filename=/dev/nvme0n1 ignored" in text_out


def test_the_option_table_is_one_row_per_option() -> None:
    # Every name and alias resolves to exactly one row, and every workload row names a Workload field.
    fields = set(ssdlab.Workload.__dataclass_fields__)
    for name, option in OPTIONS.items():
        assert name in (option.name, *option.aliases)
        if option.kind == "workload":
            assert option.field in fields, option


def test_normal_output_reads_like_fio(small_bg4: ssdlab.Drive) -> None:
    jf = parse_jobfile_text("[r]\nrw=randread\nsize=1g\nruntime=1200ms\ntime_based\niodepth=8\n")
    res = small_bg4.clone().run(jf.jobs[0].workload)
    text = format_normal(run_jobfile(small_bg4, jf))
    lines = text.splitlines()
    read = next(line for line in lines if line.startswith("  read: IOPS="))
    assert read.endswith("/1200msec)") and "MiB/s (" in read and "MB/s)(" in read
    assert any(line.startswith("    clat (") and "min=" in line and "stdev=" in line for line in lines)
    i = lines.index(next(line for line in lines if line.startswith("    clat percentiles (")))
    assert lines[i + 1].startswith("     |  1.00th=[") and lines[i + 5].startswith("     | 99.99th=[")
    bw = next(line for line in lines if line.startswith("   bw (  KiB/s): min="))
    assert "samples=2" in bw  # two whole 500 ms windows in 1.2 s, as fio's bwavgtime gives
    assert "Run status group 0 (all jobs):" in lines
    status = next(line for line in lines if line.startswith("   READ: bw="))
    assert "run=1200-1200msec" in status
    # The figures are the Python API's: IOPS in fio's short form.
    iops = read.split("IOPS=")[1].split(",")[0]
    assert iops.endswith("k") and float(iops[:-1]) == pytest.approx(res.read.iops / 1000, rel=0.01)


def test_the_drive_counters_under_the_output_print_whole_counts_whole(small_bg4: ssdlab.Drive) -> None:
    # `{:g}` printed 1.29258e+06 for a count of 1,292,575: six digits, the rest lost
    run = run_jobfile(small_bg4, parse_jobfile_text("[w]\nrw=write\nsize=8m\nbs=4k\n"))
    tail = format_normal(run).split("ssdlab drive counters (whole job file):\n")[1]
    cells = dict(c.split("=") for line in tail.splitlines() for c in line.strip().split(", "))
    assert cells["host_write_ios"] == str(int(run.counters["host_write_ios"])) == "2048"
    assert cells["host_write_bytes"] == str(8 << 20)
    assert "e+" not in tail and cells["map_hit_rate"] != "-"
    assert cells["waf"] == f"{run.counters['waf']:.4f}"


# (d) Bad input: exit 2 and one line.


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--name=a", "--rw=randread", "--zonemode=zbd"],
            "error: command line (--zonemode=zbd): zonemode: not supported yet",
        ),
        (["/nonexistent/job.fio"], "error: /nonexistent/job.fio: cannot read the job file"),
        (["--name=a", "--rw=sideways"], "error: command line (--rw=sideways): rw: 'sideways' is not one of"),
        ([], "error: command line: give a job file or fio options"),
        (
            ["--name=a", "--output-format=xml"],
            "error: --output-format: 'xml' is not one of normal, json, json+",
        ),
        (["--name=a", "--size=1t"], "error: command line (--size=1t): size: offset + size"),
        (  # an offset past the end is named at the offset, not at the size
            ["--name=a", "--offset=10t", "--size=1g"],
            "error: command line (--offset=10t): offset: must be below the drive's capacity",
        ),
        (["--name=a", "--preset", "nope"], "error: preset: unknown preset 'nope'"),
    ],
)
def test_bad_input_exits_2_with_one_line(args: list[str], message: str) -> None:
    out = ssdlab_cli("fio", *args, *SMALL)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stderr.startswith(message), out.stderr
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


# The example in the README.


def test_readme_example_job_file_runs(tmp_path: Path) -> None:
    out = ssdlab_cli("fio", str(EXAMPLES / "read-under-write.fio"), *SMALL, "--output-format=json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    jobs = {j["jobname"]: j for j in doc["jobs"]}
    assert list(jobs) == ["prefill", "read-alone", "read-beside-writer", "writer"]
    assert [j["groupid"] for j in doc["jobs"]] == [0, 1, 2, 2]
    assert jobs["prefill"]["write"]["io_bytes"] == 4 << 30
    alone, beside = jobs["read-alone"]["read"], jobs["read-beside-writer"]["read"]
    assert beside["clat_ns"]["mean"] > alone["clat_ns"]["mean"]  # reads wait behind the writer's programs
    assert {i["option"] for i in doc["ssdlab"]["ignored_options"]} == {"ioengine", "direct", "filename"}
    text = ssdlab_cli("fio", str(EXAMPLES / "read-under-write.fio"), *SMALL, cwd=tmp_path)
    assert text.returncode == 0, text.stderr
    assert "read-beside-writer: (groupid=2, jobs=1)" in text.stdout


def test_output_file_and_environment(tmp_path: Path) -> None:
    job = tmp_path / "env.fio"
    job.write_text("[e]\nrw=${RW}\nsize=1g\nruntime=5ms\n")
    out = subprocess.run(
        [str(SSDLAB), "fio", str(job), *SMALL, "--output-format=json", "--output", str(tmp_path / "o.json")],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "RW": "randwrite"},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout == ""
    doc = json.loads((tmp_path / "o.json").read_text())
    assert doc["jobs"][0]["write"]["total_ios"] > 0 and doc["jobs"][0]["read"]["total_ios"] == 0


def test_an_output_that_is_a_folder_is_refused_before_the_jobs_run(tmp_path: Path) -> None:
    job = tmp_path / "j.fio"
    job.write_text("[a]\nrw=randread\nsize=64m\nruntime=10ms\n")
    out = ssdlab_cli("fio", str(job), *SMALL, "--output", str(tmp_path))
    assert out.returncode == 2 and out.stderr.startswith("error: --output: is a folder, not a file"), (
        out.stderr
    )


def test_steadystate_stops_a_job_as_real_fio_does(tmp_path: Path) -> None:
    """fio's ``ss=iops:5%`` over a 5 s window after a 2 s ramp: a paced job holds still, so it stops once the
    window is full (sampling one interval after the ramp: 3..7 s), not at its 20 s runtime. Real fio's
    checks run on a helper thread's clock and land up to one interval later; its JSON block is the model."""
    job = ["--name=steady", "--rw=randwrite", "--bs=4k", "--size=64m", "--rate_iops=1000"]
    ss = ["--runtime=20", "--time_based", "--ss=iops:5%", "--ss_dur=5", "--ss_ramp=2"]
    fio = real_fio("--ioengine=null", *job, *ss, "--output-format=json", cwd=tmp_path)
    done = ssdlab_cli("fio", *SMALL, "--output-format", "json", "--", *job, *ss)
    assert done.returncode == 0, done.stderr
    want, got = fio["jobs"][0], json.loads(done.stdout)["jobs"][0]  # type: ignore[index]
    assert set(got["steadystate"]) == set(want["steadystate"])
    assert set(got["steadystate"]["data"]) == set(want["steadystate"]["data"])
    assert got["steadystate"]["ss"] == want["steadystate"]["ss"] == "iops:5.000000%"
    assert got["steadystate"]["attained"] == want["steadystate"]["attained"] == 1
    assert got["steadystate"]["data"]["iops"] == [1000] * 5
    assert got["job_runtime"] == pytest.approx(7000, abs=5)
    assert want["job_runtime"] == pytest.approx(7500, abs=600)
    text = ssdlab_cli("fio", *SMALL, "--", *job, *ss).stdout
    assert "steadystate  : attained=yes, bw=4000KiB/s (4096kB/s), iops=1000, iops mean dev=0.000%" in text


def test_steadystate_of_a_reporting_group_is_judged_over_its_jobs() -> None:
    text = (
        "[global]\nrw=randread\nsize=1g\nruntime=20\ntime_based\nrate_iops=500\nss=iops_slope:0.5%\nss_dur=4\n"
        "[a]\nnumjobs=2\ngroup_reporting\n"
    )
    drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 8})
    run = run_jobfile(drive, parse_jobfile_text(text))
    (entry,) = run.entries
    ss = entry.measured.steadystate
    assert ss is not None and ss["attained"] and ss["iops"] == [1000] * 4  # both jobs' IOs in one window
    assert entry.measured.elapsed_s == pytest.approx(4.0, abs=0.01)


def test_a_bad_steadystate_names_its_line() -> None:
    with pytest.raises(JobFileError, match=r"j\.fio:2: ss: no limit: iops, iops_slope"):
        parse_jobfile_text("[j]\nss=iops\nss_dur=5\n", "j.fio")
    with pytest.raises(JobFileError, match=r"j\.fio:3: ss_dur: must hold at least 2 check intervals"):
        parse_jobfile_text("[j]\nss=bw_slope:1%\nss_dur=1\n", "j.fio")


def test_averaged_logs_are_written_as_real_fio_writes_them(tmp_path: Path) -> None:
    """``write_bw_log``/``write_iops_log``/``write_lat_log`` with ``log_avg_msec``: the same files, one line a
    window and direction (``time_ms, value, ddir, 0, 0``), as real fio on its null engine writes them."""
    job = ["--name=mix", "--rw=randrw", "--bs=4k", "--size=64m", "--rate_iops=1000"]
    logs = ["--write_bw_log=m", "--write_iops_log=m", "--write_lat_log=m", "--log_avg_msec=1000"]
    timing = ["--runtime=3", "--time_based"]
    (tmp_path / "fio").mkdir()
    (tmp_path / "twin").mkdir()
    real_fio("--ioengine=null", *job, *logs, *timing, "--output-format=json", cwd=tmp_path / "fio")
    done = ssdlab_cli("fio", *SMALL, "--", *job, *logs, *timing, cwd=tmp_path / "twin")
    assert done.returncode == 0, done.stderr
    logs_of = {side: {p.name for p in (tmp_path / side).glob("*.log")} for side in ("fio", "twin")}
    kinds = ("bw", "iops", "lat", "clat", "slat")
    assert logs_of["twin"] == logs_of["fio"] == {f"m_{k}.1.log" for k in kinds}

    def rows(side: str, name: str) -> dict[tuple[int, int], int]:
        lines = (tmp_path / side / name).read_text().splitlines()
        cells = [[int(c) for c in line.split(",")] for line in lines]
        assert all(len(c) == 5 and c[3:] == [0, 0] for c in cells), lines
        return {(c[0] // 1000, c[2]): c[1] for c in cells if c[0] % 1000 < 50}  # whole windows

    for name, want in (("m_bw.1.log", 4000), ("m_iops.1.log", 1000)):
        fio, twin = rows("fio", name), rows("twin", name)
        for key in ((1, 0), (1, 1), (2, 0), (2, 1)):
            assert fio[key] == pytest.approx(want, rel=0.01) and twin[key] == pytest.approx(want, rel=0.01)
    assert all(v > 0 for v in rows("twin", "m_clat.1.log").values())  # the twin's latencies, ns
    assert set(rows("twin", "m_slat.1.log").values()) == {0}


def test_log_files_are_numbered_by_job_as_fio_numbers_them(tmp_path: Path) -> None:
    text = (
        "[fill]\nrw=write\nbs=1m\nsize=256m\n"
        "[steady]\nstonewall\nrw=randwrite\nsize=256m\nruntime=1\nnumjobs=2\nwrite_iops_log=s\n"
        "[one]\nstonewall\nrw=randread\nsize=256m\nruntime=1\nwrite_bw_log\nper_job_logs=0\nlog_avg_msec=250\n"
    )
    (tmp_path / "j.fio").write_text(text)
    done = ssdlab_cli("fio", *SMALL, "j.fio", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.glob("*.log")) == ["one_bw.log", "s_iops.2.log", "s_iops.3.log"]
    # without log_avg_msec every IO is a line, as fio logs it: one IO of one write of 4 KiB each
    rows = [line.split(", ") for line in (tmp_path / "s_iops.2.log").read_text().splitlines()]
    assert len(rows) > 1000 and all(r[1:] == ["1", "1", "4096", "0"] for r in rows)
    assert "approximated" not in done.stdout
    assert len((tmp_path / "one_bw.log").read_text().splitlines()) == 4  # 4 windows of 250 ms, reads only


def test_per_io_logs_are_written_as_real_fio_writes_them(tmp_path: Path) -> None:
    """Without ``log_avg_msec`` fio logs every IO (``time_ms, value, ddir, bs, 0``); so does the twin: the
    same files and the same rows but for the values, the latency the one from its own IO log."""
    job = ["--name=w", "--rw=randwrite", "--bs=8k", "--size=64m", "--number_ios=300"]
    logs = ["--write_bw_log=p", "--write_iops_log=p", "--write_lat_log=p"]
    (tmp_path / "fio").mkdir()
    (tmp_path / "twin").mkdir()
    real_fio("--ioengine=null", *job, *logs, "--output-format=json", cwd=tmp_path / "fio")
    done = ssdlab_cli("fio", *SMALL, "--output-format=json", "--", *job, *logs, cwd=tmp_path / "twin")
    assert done.returncode == 0, done.stderr
    lat_ns = json.loads(done.stdout)["jobs"][0]["write"]["lat_ns"]

    def cells(side: str, kind: str) -> list[list[int]]:
        lines = (tmp_path / side / f"p_{kind}.1.log").read_text().splitlines()
        return [[int(c) for c in line.split(",")] for line in lines]

    for kind in ("lat", "clat", "bw", "iops"):
        fio, twin = cells("fio", kind), cells("twin", kind)
        assert len(fio) == len(twin) == 300, kind
        assert {tuple(c[2:]) for c in fio} == {tuple(c[2:]) for c in twin} == {(1, 8192, 0)}, kind
    lat = [c[1] for c in cells("twin", "lat")]
    # the JSON's figures come from a histogram of 3 significant digits
    assert min(lat) == pytest.approx(lat_ns["min"], rel=1e-3)
    assert max(lat) == pytest.approx(lat_ns["max"], rel=1e-3)
    assert sum(lat) / len(lat) == pytest.approx(lat_ns["mean"], rel=1e-3)
    bw = [c[1] for c in cells("twin", "bw")]
    assert bw == [8192 * 1_000_000 // v for v in lat]  # fio's per-IO bandwidth: bytes x 10^6 / latency (ns)
    assert [c[1] for c in cells("twin", "iops")] == [1] * 300
    times = [c[0] for c in cells("twin", "lat")]
    assert times == sorted(times)  # completion order, ms since the job started


@pytest.mark.parametrize("avg", [[], ["--log_avg_msec=500"]])
def test_log_offset_adds_each_ios_offset_as_real_fio_does(tmp_path: Path, avg: list[str]) -> None:
    """``log_offset=1``: ``time, value, ddir, bs, offset, 0`` per IO; averaged lines give bs and offset 0."""
    job = ["--name=w", "--rw=randwrite", "--bs=8k", "--size=64m", "--write_lat_log=o", "--log_offset=1"]
    timing = ["--runtime=1", "--time_based"] if avg else ["--number_ios=50"]
    for side in ("fio", "twin"):
        (tmp_path / side).mkdir()
    real_fio("--ioengine=null", *job, *avg, *timing, "--output-format=json", cwd=tmp_path / "fio")
    done = ssdlab_cli("fio", *SMALL, "--", *job, *avg, *timing, cwd=tmp_path / "twin")
    assert done.returncode == 0, done.stderr
    for side in ("fio", "twin"):
        lines = (tmp_path / side / "o_lat.1.log").read_text().splitlines()
        cells = [[int(c) for c in line.split(",")] for line in lines]
        assert cells and all(len(c) == 6 and c[2] == 1 and c[5] == 0 for c in cells), side
        if avg:
            assert all(c[3:5] == [0, 0] for c in cells), side
        else:
            assert all(c[3] == 8192 and c[4] % 8192 == 0 and c[4] < 64 << 20 for c in cells), side
            assert len({c[4] for c in cells}) > 1, side  # each IO's own offset


def test_section_runs_only_the_job_sections_named_as_fio_does(tmp_path: Path) -> None:
    (tmp_path / "levels.fio").write_text(
        "[global]\nrw=randread\nsize=64m\nruntime=1\ntime_based\n"
        "[light]\niodepth=1\n[moderate]\niodepth=4\n[heavy]\niodepth=32\n"
    )
    fio = real_fio(
        "--ioengine=null",
        "--output-format=json",
        "levels.fio",
        "--section=light",
        "--section",
        "heavy",
        cwd=tmp_path,
    )
    picks = ["levels.fio", "--section=light", "--section", "heavy"]
    done = ssdlab_cli("fio", *SMALL, "--output-format", "json", "--", *picks, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    names = [j["jobname"] for j in json.loads(done.stdout)["jobs"]]
    assert names == [j["jobname"] for j in fio["jobs"]] == ["light", "heavy"]  # type: ignore[index]
    bad = ssdlab_cli("fio", *SMALL, "--", "levels.fio", "--section=extreme", cwd=tmp_path)
    assert bad.returncode == 2
    assert "section: no job section 'extreme'; the job sections are light, moderate, heavy" in bad.stderr


def test_exitall_ends_the_run_when_one_job_finishes_as_real_fio_does(tmp_path: Path) -> None:
    (tmp_path / "bg.fio").write_text(
        "[global]\nexitall\n[reader]\nrw=randread\nsize=64m\n"
        "[writer]\nrw=randwrite\noffset=1g\nsize=1g\nrate_iops=1000\nruntime=10\ntime_based\n"
    )
    fio = real_fio("--ioengine=null", "--output-format=json", "bg.fio", cwd=tmp_path)
    done = ssdlab_cli("fio", *SMALL, "--output-format", "json", "bg.fio", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for doc in (fio, json.loads(done.stdout)):
        writer = doc["jobs"][1]  # type: ignore[index]
        # not the 10 s it asked for (real fio's reader, a few ms alone, can take a second on a busy machine)
        assert writer["jobname"] == "writer" and writer["job_runtime"] < 5_000


@pytest.mark.parametrize(
    "extra",
    [
        [],  # 100 IOs
        ["--loops=3"],  # 100 a pass
        ["--rw=randrw", "--fsync=4"],  # reads and writes count, the flushes do not
        ["--size=256k"],  # the size stops it first (64 IOs)
    ],
)
def test_number_ios_stops_a_job_as_real_fio_does(tmp_path: Path, extra: list[str]) -> None:
    job = ["--name=n", "--rw=randread", "--bs=4k", "--size=8m", "--number_ios=100", *extra]
    fio = real_fio("--ioengine=null", *job, "--output-format=json", cwd=tmp_path)
    done = ssdlab_cli("fio", *SMALL, "--output-format", "json", "--", *job)
    assert done.returncode == 0, done.stderr
    twin = json.loads(done.stdout)
    count = [
        (doc["jobs"][0]["read"]["total_ios"] + doc["jobs"][0]["write"]["total_ios"])  # type: ignore[index]
        for doc in (fio, twin)
    ]
    assert count[0] == count[1] == {"--loops=3": 300, "--size=256k": 64}.get(extra[0] if extra else "", 100)


EXIT_WHAT_JOB = """\
[global]
size=1m
exitall
exit_what={what}
[a]
rw=read
number_ios=100
thinktime=1000
[b]
new_group
rw=read
rate_iops=100
runtime=3
time_based
[c]
stonewall
rw=read
"""


@pytest.mark.parametrize("what", ["group", "stonewall", "all"])
def test_exit_what_picks_the_jobs_exitall_stops_as_real_fio_does(tmp_path: Path, what: str) -> None:
    """a (100 IOs, ~0.1 s) finishes first. group: b, in its own reporting group, runs its 3 s; stonewall: b
    stops with a; all: b stops and c, after the stonewall, never starts (reported with nothing done)."""
    (tmp_path / "ew.fio").write_text(EXIT_WHAT_JOB.format(what=what))
    fio = real_fio("--ioengine=null", "--output-format=json", "ew.fio", cwd=tmp_path)
    done = ssdlab_cli("fio", *SMALL, "--output-format", "json", "ew.fio", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    counts = [
        {j["jobname"]: j["read"]["total_ios"] for j in doc["jobs"]} for doc in (fio, json.loads(done.stdout))
    ]  # type: ignore[index, attr-defined]
    for got in counts:
        assert got["a"] == 100 and got["c"] == (0 if what == "all" else 256), got
    fio_b, twin_b = (got["b"] for got in counts)
    if what == "group":  # b runs its 3 s at 100 IOPS
        assert twin_b == 300 and abs(fio_b - 300) <= 6, counts
    else:  # b stops with a, after ~0.11 s (real fio's a runs longer on a busy machine: b a few IOs more)
        assert twin_b == 11 and 9 <= fio_b <= 50, counts


GROUPS_AT_ONCE = """\
[global]
size=64m
group_reporting
runtime=2
time_based
[readers]
rw=randread
numjobs=3
rate_iops=200
[writers]
new_group
rw=randwrite
offset=128m
numjobs=2
rate_iops=100
"""


def test_groups_running_at_once_are_each_reported_as_one_as_real_fio_does(tmp_path: Path) -> None:
    (tmp_path / "g.fio").write_text(GROUPS_AT_ONCE)
    fio = real_fio("--ioengine=null", "--output-format=json", "g.fio", cwd=tmp_path)
    done = ssdlab_cli("fio", *SMALL, "--output-format", "json", "g.fio", cwd=tmp_path)
    assert done.returncode == 0, done.stderr

    def groups(doc: dict[str, Any]) -> list[tuple[str, int, int, int]]:
        return [
            (j["jobname"], j["groupid"], j["read"]["total_ios"], j["write"]["total_ios"]) for j in doc["jobs"]
        ]

    # 3 readers x 200 IOPS and 2 writers x 100 IOPS for 2 s, one entry per group (real fio, on a busy
    # machine, may fall an IO or two behind its rate)
    want = [("readers", 0, 1200, 0), ("writers", 1, 0, 400)]
    assert groups(json.loads(done.stdout)) == want
    theirs = groups(fio)
    assert [t[:2] for t in theirs] == [w[:2] for w in want]
    assert all(
        abs(t[2] + t[3] - w[2] - w[3]) <= 0.02 * (w[2] + w[3]) for t, w in zip(theirs, want, strict=True)
    )
    text = ssdlab_cli("fio", *SMALL, "g.fio", cwd=tmp_path).stdout
    assert "readers: (groupid=0, jobs=3)" in text and "writers: (groupid=1, jobs=2)" in text


def test_a_reported_group_split_across_phases_is_refused(tmp_path: Path) -> None:
    (tmp_path / "w.fio").write_text(
        "[global]\nsize=8m\ngroup_reporting\n[a]\nrw=read\n[b]\nrw=read\n[c]\nwait_for=a\nrw=read\n"
    )
    done = ssdlab_cli("fio", *SMALL, "w.fio", cwd=tmp_path)
    assert done.returncode == 2
    assert "group_reporting: a group reported as one must run at once" in done.stderr, done.stderr


def test_reads_and_writes_take_their_own_bssplit_as_real_fio_does(tmp_path: Path) -> None:
    # norandommap: without it fio ends a pass once its map of untouched blocks fills (mixed sizes overlap)
    job = [
        "--name=s",
        "--rw=randrw",
        "--size=64m",
        "--norandommap",
        "--number_ios=1000",
        "--bssplit=4k/50:8k/50,64k/100",
    ]
    fio = real_fio("--ioengine=null", *job, "--output-format=json", cwd=tmp_path)
    done = ssdlab_cli("fio", *SMALL, "--output-format", "json", "--", *job)
    assert done.returncode == 0, done.stderr
    for doc in (fio, json.loads(done.stdout)):
        read, write = (doc["jobs"][0][d] for d in ("read", "write"))  # type: ignore[index]
        assert read["total_ios"] + write["total_ios"] == 1000
        assert 4096 < read["io_bytes"] / read["total_ios"] < 8192  # a mix of 4 and 8 KiB
        assert write["io_bytes"] == 65536 * write["total_ios"]


@pytest.mark.parametrize(
    "extra",
    [
        ["--rw=write", "--bs=64k"],
        ["--rw=randwrite", "--bs=4k"],
        ["--rw=randwrite", "--bs=4k", "--loops=2"],
        ["--rw=write", "--bs=4k", "--number_ios=100"],
        ["--rw=write", "--bs=4k", "--do_verify=0"],
        ["--rw=randwrite", "--bs=4k", "--runtime=1", "--time_based"],
    ],
)
def test_verify_reads_back_what_real_fio_reads_back(tmp_path: Path, extra: list[str]) -> None:
    """fio's verify: each pass's writes read back once they complete (real fio on a file, psync): the
    same bytes written and read, in as many reads as writes; none with do_verify=0, nor when time_based
    (its runtime ends the write phase first)."""
    job = ["--name=v", "--size=8m", "--verify=crc32c", *extra]
    fio = real_fio(
        f"--filename={tmp_path / 'f'}", "--ioengine=psync", *job, "--output-format=json", cwd=tmp_path
    )
    done = ssdlab_cli("fio", *SMALL, "--output-format", "json", "--", *job)
    assert done.returncode == 0, done.stderr
    theirs, ours = (doc["jobs"][0] for doc in (fio, json.loads(done.stdout)))  # type: ignore[index]
    read = [(j["read"]["io_bytes"], j["read"]["total_ios"]) for j in (theirs, ours)]  # type: ignore[index]
    assert read[0] == read[1]
    if "--time_based" not in extra:
        assert theirs["write"]["io_bytes"] == ours["write"]["io_bytes"]  # type: ignore[index]
        assert (read[0][0] > 0) == ("--do_verify=0" not in extra)


def test_a_negative_skip_reads_backwards_as_real_fio_does(tmp_path: Path) -> None:
    """fio's rw=read:-8k with 4 KiB IOs (examples/backwards-read.fio): 16 reads over 64 KiB, the same as
    fio's (the order, from fio's write_iolog, is checked in host/job.rs)."""
    job = ["--name=b", "--rw=read:-8k", "--bs=4k", "--size=64k"]
    fio = real_fio("--ioengine=null", *job, "--output-format=json", cwd=tmp_path)
    done = ssdlab_cli("fio", *SMALL, "--output-format", "json", "--", *job)
    assert done.returncode == 0, done.stderr
    theirs, ours = (doc["jobs"][0]["read"] for doc in (fio, json.loads(done.stdout)))  # type: ignore[index]
    assert (theirs["io_bytes"], theirs["total_ios"]) == (ours["io_bytes"], ours["total_ios"]) == (65536, 16)
    assert load_jobs(job).jobs[0].workload.to_native()["seq_skip"] == -8192


@pytest.mark.parametrize("rw", ["trimwrite", "randtrimwrite"])
def test_a_trimwrite_trims_and_writes_what_real_fio_does(tmp_path: Path, rw: str) -> None:
    """fio's trimwrite and randtrimwrite: each block trimmed, then written, so 8 MiB of size moves 8 MiB
    each way; afterwards the region is all written (nothing reads back unmapped)."""
    job = ["--name=t", f"--rw={rw}", "--bs=4k", "--size=8m"]
    fio = real_fio("--ioengine=null", *job, "--output-format=json", cwd=tmp_path)
    done = ssdlab_cli("fio", *SMALL, "--output-format", "json", "--", *job)
    assert done.returncode == 0, done.stderr
    moved = [
        {d: (j[d]["io_bytes"], j[d]["total_ios"]) for d in ("read", "write", "trim")}  # type: ignore[index]
        for j in (fio["jobs"][0], json.loads(done.stdout)["jobs"][0])  # type: ignore[index]
    ]
    assert moved[0] == moved[1] == {"read": (0, 0), "write": (8 << 20, 2048), "trim": (8 << 20, 2048)}
    drive = small_drive()
    run_jobfile(drive, load_jobs(job))
    read = drive.run(ssdlab.Workload(rw="read", bs="128k", size="8m"))
    assert read.counters["unmapped_reads"] == 0


def test_a_poisson_rate_process_issues_what_real_fio_issues(tmp_path: Path) -> None:
    """fio's rate_process=poisson: 500 IOPS for 2 s as open-loop arrivals, ~1,000 IOs (fio 3.33: ~930;
    both draw their own exponential gaps, so the counts differ by chance only)."""
    job = ["--name=s", "--rw=randread", "--size=64m", "--rate_iops=500", "--runtime=2", "--time_based"]
    job.append("--rate_process=poisson")
    fio = real_fio("--ioengine=null", *job, "--output-format=json", cwd=tmp_path)
    done = ssdlab_cli("fio", *SMALL, "--output-format", "json", "--", *job)
    assert done.returncode == 0, done.stderr
    theirs, ours = (doc["jobs"][0]["read"]["total_ios"] for doc in (fio, json.loads(done.stdout)))  # type: ignore[index]
    assert 850 <= theirs <= 1150 and 850 <= ours <= 1150, (theirs, ours)


@pytest.mark.parametrize("option", [[], ["--norandommap"]])
def test_a_random_pass_of_mixed_sizes_moves_what_real_fio_moves(tmp_path: Path, option: list[str]) -> None:
    """fio's random map with mixed block sizes: each 4 KiB block is written once a pass, an IO cut short
    where it meets one already written, so a 64 MiB pass moves exactly 64 MiB in more IOs than its sizes
    alone would take (~3,100, not ~1,900); without the map the IOs land anywhere and keep their sizes."""
    job = ["--name=s", "--rw=randwrite", "--size=64m", "--bssplit=4k/50:64k/50", *option]
    fio = real_fio("--ioengine=null", *job, "--output-format=json", cwd=tmp_path)
    done = ssdlab_cli("fio", *SMALL, "--output-format", "json", "--", *job)
    assert done.returncode == 0, done.stderr
    theirs, ours = (doc["jobs"][0]["write"] for doc in (fio, json.loads(done.stdout)))  # type: ignore[index]
    if not option:
        assert theirs["io_bytes"] == ours["io_bytes"] == 64 << 20
    assert ours["total_ios"] == pytest.approx(theirs["total_ios"], rel=0.1)


@pytest.mark.parametrize(("option", "unwritten"), [([], 0), (["--norandommap"], 0.37)])
def test_a_random_write_pass_writes_every_block_with_fios_random_map(
    option: list[str], unwritten: float
) -> None:
    """fio's default random map: one pass of 4 KiB random writes over 64 MiB writes each block once, so a
    job file that preconditions with random writes leaves nothing unwritten; without the map (drawn with
    replacement) about 1/e of the blocks are never written."""
    drive = small_drive()
    jobs = load_jobs(["--name=w", "--rw=randwrite", "--bs=4k", "--size=64m", "--iodepth=16", *option])
    run_jobfile(drive, jobs)
    read = drive.run(ssdlab.Workload(rw="read", bs="128k", size="64m"))
    share = read.counters["unmapped_reads"] / (64 << 20 >> 12)
    assert share == pytest.approx(unwritten, abs=0.02), share


def test_reads_of_a_region_never_written_are_warned_about_and_a_write_job_before_them_clears_it() -> None:
    """On a fresh twin a read job finds no data: it costs no NAND read, and the run says so on stderr."""
    common = ["--scale-capacity-gb", "4", "--bs=4k", "--size=256m", "--runtime=20ms"]
    reads = ssdlab_cli("fio", *common, "--name=r", "--rw=randread")
    assert reads.returncode == 0, reads.stderr
    assert "warning: 100% of the reads found no data" in reads.stderr
    assert "a write job, then stonewall" in reads.stderr
    written = ssdlab_cli(
        "fio", *common, "--name=w", "--rw=write", "--runtime=0", "--name=r", "--stonewall", "--rw=randread"
    )
    assert written.returncode == 0, written.stderr
    assert "found no data" not in written.stderr
