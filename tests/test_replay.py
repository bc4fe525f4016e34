"""Trace replay: traces written by real fio and samples written to each format's published columns replay
on a twin, streamed, with the result shape of a run."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from ssdlab import Drive, Workload, WorkloadError, cli

DATA = Path(__file__).parent / "data"
SMALL = {"ftl.user_capacity_gb": 16}


@pytest.fixture(scope="module")
def fio_iolog(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A v3 iolog written by real fio (Debian's, installed by `make sysdeps`): 64 random 4 KiB reads and
    writes, 2 ms apart."""
    tmp = tmp_path_factory.mktemp("fio")
    log = tmp / "job.iolog"
    subprocess.run(
        [
            "fio",
            "--name=trace",
            f"--filename={tmp / 'data.bin'}",
            "--size=4m",
            "--rw=randrw",
            "--bs=4k",
            "--number_ios=64",
            "--thinktime=2000",
            f"--write_iolog={log}",
            "--output-format=terse",
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    return log


def test_a_trace_written_by_fio_replays_every_request_at_its_recorded_time(fio_iolog: Path) -> None:
    lines = fio_iolog.read_text().splitlines()
    assert lines[0] == "fio version 3 iolog"
    reads = sum(" read " in line for line in lines)
    writes = sum(" write " in line for line in lines)
    assert reads + writes == 64
    res = Drive.from_preset("bg4-1tb", set=SMALL).replay(fio_iolog)
    assert (res.read.ios, res.write.ios) == (reads, writes)
    # 2 ms of think time between requests: the replay spans the recording, not the drive's own speed
    assert res.elapsed_s > 63 * 0.002
    fast = Drive.from_preset("bg4-1tb", set=SMALL).replay(fio_iolog, timing="afap")
    assert (fast.read.ios, fast.write.ios) == (reads, writes)
    assert fast.elapsed_s < res.elapsed_s / 20


def test_speed_scales_the_recorded_times(fio_iolog: Path) -> None:
    normal = Drive.from_preset("bg4-1tb", set=SMALL).replay(fio_iolog)
    double = Drive.from_preset("bg4-1tb", set=SMALL).replay(fio_iolog, speed=2.0)
    assert double.elapsed_s == pytest.approx(normal.elapsed_s / 2, rel=0.05)


@pytest.mark.parametrize(
    ("name", "reads", "writes", "trims"),
    [("sample.blkparse", 2, 2, 1), ("sample.msr.csv", 2, 2, 0), ("sample.spc", 1, 3, 0)],
)
def test_each_format_is_detected_and_replayed(name: str, reads: int, writes: int, trims: int) -> None:
    res = Drive.from_preset("bg4-1tb", set=SMALL).replay(DATA / name)
    assert (res.read.ios, res.write.ios, res.trim_ios) == (reads, writes, trims)
    assert res.source == str(DATA / name)
    out = res.to_dict()
    assert out["trace"] == str(DATA / name) and "workload" not in out


def test_blkparse_times_and_flushes(tmp_path: Path) -> None:
    drive = Drive.from_preset("bg4-1tb", set=SMALL)
    res = drive.replay(DATA / "sample.blkparse")
    assert res.elapsed_s >= 0.030  # the last request is queued 30 ms in
    assert res.counters["host_flush_ios"] == 1


def test_a_bad_line_names_its_number_or_is_counted(tmp_path: Path) -> None:
    trace = tmp_path / "t.csv"
    trace.write_text("time_us,op,offset,length\n0,read,0,4096\n10,erase,0,4096\n20,write,0,4096\n")
    drive = Drive.from_preset("bg4-1tb", set=SMALL)
    with pytest.raises(WorkloadError, match="line 3: op must be one of read, write, trim, flush"):
        drive.clone().replay(trace)
    res = drive.replay(trace, skip_bad=True)
    assert (res.read.ios, res.write.ios, res.skipped_lines, res.lines_read) == (1, 1, 1, 4)


def test_a_request_recorded_before_the_one_ahead_goes_in_at_its_turn_and_is_counted(tmp_path: Path) -> None:
    # blkparse interleaves its CPUs, so a trace's times may step back; the clock never runs back
    trace = tmp_path / "t.csv"
    trace.write_text("time_us,op,offset,length\n0,read,0,4096\n1000,read,4096,4096\n500,read,8192,4096\n")
    drive = Drive.from_preset("bg4-1tb", set=SMALL)
    res = drive.clone().replay(trace)
    assert (res.read.ios, res.late_requests, res.to_dict()["late_requests"]) == (3, 1, 1)
    assert drive.clone().replay(trace, timing="afap").late_requests == 0  # times play no part
    in_order = tmp_path / "in_order.csv"
    in_order.write_text("time_us,op,offset,length\n0,read,0,4096\n500,read,4096,4096\n500,read,0,4096\n")
    assert drive.replay(in_order).late_requests == 0
    cli = subprocess.run(
        [
            str(Path(sys.executable).parent / "ssdlab"),
            "replay",
            str(trace),
            "--set",
            "ftl.user_capacity_gb=16",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    note = " ".join(cli.stderr.split())  # as one line, however the terminal wrapped it
    assert (
        cli.returncode == 0 and note.startswith("note: 1 request of") and "t.csv was recorded before" in note
    )


def test_requests_beyond_the_drive_wrap_or_are_refused(tmp_path: Path) -> None:
    trace = tmp_path / "t.csv"
    trace.write_text(f"time_us,op,offset,length\n0,write,{40 * 10**9},8192\n")
    drive = Drive.from_preset("bg4-1tb", set=SMALL)
    assert drive.clone().replay(trace).write.ios == 1
    with pytest.raises(WorkloadError, match="beyond the drive") as info:
        drive.replay(trace, wrap=False)
    assert "(got 2)" not in str(info.value)  # the line number is in the message, not passed off as the value


def test_an_unknown_format_or_timing_is_an_error(tmp_path: Path) -> None:
    trace = tmp_path / "t.txt"
    trace.write_text("hello world\n")
    drive = Drive.from_preset("bg4-1tb", set=SMALL)
    with pytest.raises(WorkloadError, match="cannot tell the format"):
        drive.replay(trace)
    with pytest.raises(WorkloadError, match="timing"):
        drive.replay(DATA / "sample.spc", timing="slow")
    with pytest.raises(WorkloadError, match="no such file"):
        drive.replay(tmp_path / "missing.csv")


def test_the_cli_replays_and_reports_bad_input_in_one_line(tmp_path: Path) -> None:
    ssdlab = Path(sys.executable).parent / "ssdlab"
    ok = subprocess.run(
        [str(ssdlab), "replay", str(DATA / "sample.msr.csv"), "--set", "ftl.user_capacity_gb=16", "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert ok.returncode == 0, ok.stderr
    assert '"trace":' in ok.stdout
    bad = subprocess.run(
        [str(ssdlab), "replay", str(tmp_path / "missing.csv")], capture_output=True, text=True, timeout=120
    )
    assert bad.returncode == 2
    assert bad.stderr.strip().startswith("error: trace: no such file") and len(bad.stderr.splitlines()) == 1


def test_prefill_fills_the_drive_first_so_a_traces_reads_find_data(tmp_path: Path) -> None:
    # a trace recorded on a drive in use reads data written before the capture: on an empty twin those
    # reads cost no NAND read, and the CLI says so; --prefill fills the drive first, as it was
    trace = tmp_path / "reads.csv"
    rows = "".join(f"{i * 100},read,{(i * 7919 % 4096) * 4096},4096\n" for i in range(2000))
    trace.write_text("time_us,op,offset,length\n" + rows)
    ssdlab = Path(sys.executable).parent / "ssdlab"
    runs = {}
    for extra in ([], ["--prefill"]):
        out = subprocess.run(
            [str(ssdlab), "replay", str(trace), "--scale-capacity-gb", "4", "--json", *extra],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 0, out.stderr
        runs[bool(extra)] = (json.loads(out.stdout)["counters"], out.stderr)
    (empty, warned), (filled, quiet) = runs[False], runs[True]
    assert empty["unmapped_reads"] == 2000 and warned.startswith("warning: 100% of the reads found no data")
    assert "--prefill" in warned
    assert filled["unmapped_reads"] == 0 and filled["nand_pages_read"] > 0 and "warning" not in quiet


def test_prefill_on_a_terminal_draws_its_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the bar is drawn only on a terminal (the test above runs without one), and the fill reports to it
    # too: a callback of the wrong shape there was a TypeError
    trace = tmp_path / "reads.csv"
    trace.write_text("time_us,op,offset,length\n0,read,0,4096\n")
    screen = io.StringIO()
    monkeypatch.setattr(cli, "stderr", Console(file=screen, force_terminal=True, width=100))
    monkeypatch.setattr(cli, "stdout", Console(file=io.StringIO(), width=100))
    try:
        cli.main(["replay", str(trace), "--scale-capacity-gb", "4", "--prefill"])
    except SystemExit as e:
        assert e.code in (0, None), screen.getvalue()
    assert "replay on bg4-1tb" in screen.getvalue()


def test_a_long_trace_streams_in_little_memory(tmp_path: Path) -> None:
    # 1,000,000 requests (~30 MB of text) in a child process: its peak RSS must not grow with the trace.
    trace = tmp_path / "long.csv"
    with trace.open("w") as f:
        f.write("time_us,op,offset,length\n")
        for i in range(1_000_000):
            f.write(f"{i},{'read' if i % 3 else 'write'},{(i * 7919 % 2_000_000) * 4096},4096\n")
    # VmHWM, not ru_maxrss: a child's ru_maxrss starts at its parent's peak (Linux keeps it across exec)
    code = (
        "import ssdlab\n"
        "d = ssdlab.Drive.from_preset('bg4-128gb')\n"
        f"r = d.replay({str(trace)!r}, timing='afap')\n"
        "hwm = next(int(x.split()[1]) for x in open('/proc/self/status') if x.startswith('VmHWM:'))\n"
        "print(r.read.ios + r.write.ios, hwm)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=600, check=True
    )
    ios, peak_kib = map(int, out.stdout.split())
    assert ios == 1_000_000
    assert peak_kib < 400 * 1024, f"peak RSS {peak_kib / 1024:.0f} MiB"


def test_an_exception_from_the_progress_callback_stops_a_run_or_a_replay(tmp_path: Path) -> None:
    class Stop(Exception):
        pass

    def stop(_fraction: float) -> None:
        raise Stop

    trace = tmp_path / "t.csv"
    trace.write_text("time_us,op,offset,length\n" + "".join(f"{i},read,0,4096\n" for i in range(100_000)))
    drive = Drive.from_preset("bg4-1tb", set=SMALL)
    with pytest.raises(Stop):
        drive.clone().replay(trace, progress=stop)
    with pytest.raises(Stop):
        drive.run(Workload(rw="randread", size="1g", time_based=True, runtime="10s"), progress=stop)


def test_a_folder_is_not_a_trace_and_an_empty_trace_says_so(tmp_path: Path) -> None:
    drive = Drive.from_preset("bg4-1tb", capacity_gb=8)
    with pytest.raises(WorkloadError, match="is a folder, not a trace file"):
        drive.replay(tmp_path)
    # /dev/null exists: not "no such file"
    with pytest.raises(WorkloadError, match="not a regular file: '/dev/null'"):
        drive.replay("/dev/null")
    with pytest.raises(WorkloadError, match="speed: must be a finite number above 0"):
        (tmp_path / "one.csv").write_text("time_us,op,offset,length\n0,read,0,4096\n")
        drive.replay(tmp_path / "one.csv", speed=float("inf"))
    empty = tmp_path / "empty.csv"
    empty.write_text("time_us,op,offset,length\n")
    ssdlab = Path(sys.executable).parent / "ssdlab"
    run = subprocess.run(
        [ssdlab, "replay", str(empty), "--scale-capacity-gb", "8", "--json"], capture_output=True, text=True
    )
    assert run.returncode == 0 and "held no reads, writes or trims" in run.stderr, run.stderr


def test_an_io_log_has_a_row_for_every_request_at_its_recorded_time(tmp_path: Path) -> None:
    """``log_ios`` / ``--io-log``: every request of the trace, submitted at its recorded time, with the
    latency the run's histogram counted; CSV or Parquet by the file's name."""
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    trace = tmp_path / "t.csv"
    trace.write_text("time_us,op,offset,length\n0,write,0,65536\n100,read,0,4096\n250,read,4096,8192\n")
    drive = Drive.from_preset("bg4-1tb", set=SMALL)
    t0 = drive.now_ns
    res = drive.clone().replay(trace, log_ios=True)
    log = res.io_log
    assert log is not None and len(log) == 3 and log.ops == ["write", "read", "read"]
    assert log.submit_ns.tolist() == [t0, t0 + 100_000, t0 + 250_000]
    assert (log.offset.tolist(), log.len.tolist()) == ([0, 0, 4096], [65536, 4096, 8192])
    assert log.latency_ns[1:].max() == pytest.approx(res.read.latency.max_us * 1e3, rel=1e-3)
    assert drive.clone().replay(trace).io_log is None  # kept only when asked for
    exe = str(Path(sys.executable).parent / "ssdlab")
    for name in ("log.csv", "log.parquet"):
        out = tmp_path / name
        cli = subprocess.run(
            [exe, "replay", str(trace), "--set", "ftl.user_capacity_gb=16", "--io-log", str(out), "--json"],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert cli.returncode == 0, cli.stderr
        assert f"wrote {out}" in cli.stderr and json.loads(cli.stdout)["write"]["ios"] == 1
        rows = out.read_text().splitlines()[1:] if name.endswith(".csv") else pq.read_table(out).to_pylist()
        assert len(rows) == 3
    table = pq.read_table(tmp_path / "log.parquet").to_pydict()
    assert table["op"] == ["write", "read", "read"] and table["length"] == [65536, 4096, 8192]
    spans = zip(table["submit_ns"], table["complete_ns"], strict=True)
    assert [c - s for s, c in spans] == table["latency_ns"]
