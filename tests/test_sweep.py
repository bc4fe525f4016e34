"""``ssdlab sweep``: the points a spec expands to, the samplers' bounds, resuming an interrupted sweep on a
2-worker LocalCluster on loopback, the same point giving the same figures on either worker, and bad specs."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ssdlab import sweep
from ssdlab._dask import client as dask_client
from ssdlab.errors import WorkloadError
from test_cli import ssdlab_cli

HEAD = """
[sweep]
drive = "generic-tlc-dram"
scale_capacity_gb = 8
"""

WORKLOAD = """
[workloads.rr]
rw = "randread"
iodepth = 4
size = "64m"
runtime = "5ms"
prefill = true
"""


def spec(body: str, head: str = HEAD, workload: str = WORKLOAD) -> sweep.Spec:
    return sweep.parse_spec(textwrap.dedent(head + body + workload))


@pytest.fixture(scope="module")
def client() -> Iterator[Any]:
    """The sweep's own LocalCluster, of 2 workers."""
    pytest.importorskip("distributed")
    with dask_client(2, None) as c:
        c.wait_for_workers(2)
        yield c


def test_grid_is_every_combination_times_workloads_times_seeds() -> None:
    s = spec(
        """
        seeds = [1, 2]
        [parameters]
        "nand.tR_us" = [40, 60, 80]
        "workload.iodepth" = { min = 1, max = 16, steps = 3, log = true, integer = true }
        """,
        workload=WORKLOAD + '[workloads.rw]\nrw = "randwrite"\nsize = "64m"\nruntime = "5ms"\n',
    )
    points = s.points()
    assert len(points) == 3 * 3 * 2 * 2
    assert [p.index for p in points] == list(range(len(points)))
    # QD 1, 4, 16: log-spaced, whole numbers
    assert sorted({p.workload["iodepth"] for p in points}) == [1, 4, 16]
    combos = {(p.overrides["nand.tR_us"], p.workload["iodepth"], p.workload_name, p.seed) for p in points}
    assert len(combos) == len(points)
    # the drive parameter goes to the drive, the workload one to the workload; both are columns
    first = points[0]
    assert first.overrides == {"nand.tR_us": 40} and first.params == {"nand.tR_us": 40, "workload.iodepth": 1}
    assert first.prefill and not next(p for p in points if p.workload_name == "rw").prefill
    assert len({p.key for p in points}) == len(points)


def test_point_key_depends_on_what_the_run_depends_on_only() -> None:
    a = spec('[parameters]\n"nand.tR_us" = [40, 60]\n').points()
    b = spec('[sweep.set]\n"nand.tPROG_us" = 500\n[parameters]\n"nand.tR_us" = [60, 40]\n').points()
    # reordered values: same points, same keys, other indexes
    again = spec('[parameters]\n"nand.tR_us" = [60, 40]\n').points()
    assert {p.key for p in a} == {p.key for p in again}
    assert a[0].key == again[1].key and a[0].index != again[1].index
    # a fixed override changes every point
    assert not {p.key for p in a} & {p.key for p in b}


def test_lhs_puts_one_sample_in_each_stratum_of_each_range() -> None:
    n = 10
    s = spec(
        f"""
        sampler = "lhs"
        samples = {n}
        seed = 3
        [parameters]
        "nand.tR_us" = {{ min = 30, max = 90 }}
        "nand.tPROG_us" = {{ min = 300, max = 1200, log = true }}
        """
    )
    samples = s.samples_u()
    assert len(samples) == n
    tr = [v[0] for v in samples]
    assert all(30 <= v <= 90 for v in tr)
    assert sorted(int((v - 30) / 60 * n) for v in tr) == list(range(n))  # one per stratum
    import math

    tp = [v[1] for v in samples]
    assert all(300 <= v <= 1200 for v in tp)
    strata = [int((math.log(v) - math.log(300)) / (math.log(1200) - math.log(300)) * n) for v in tp]
    assert sorted(strata) == list(range(n))
    assert s.samples_u() == samples  # the sampler's seed fixes the sample


def test_random_sample_stays_within_bounds_and_picks_among_listed_values() -> None:
    s = spec(
        """
        sampler = "random"
        samples = 50
        [parameters]
        "nand.tR_us" = { min = 30, max = 90, integer = true }
        "workload.size" = ["16m", "64m"]
        """
    )
    samples = s.samples_u()
    assert all(isinstance(a, int) and 30 <= a <= 90 for a, _ in samples)
    assert {b for _, b in samples} == {"16m", "64m"}


def test_a_log_range_of_sizes_gives_whole_4k_pages() -> None:
    p = sweep.Parameter("workload.size", low=1, high=64, steps=5, log=True, unit="g")
    assert p.grid() == ["1g", "2965820k", "8g", "23726568k", "64g"]  # 2^(6/4) GiB, rounded to 4 KiB pages


@pytest.mark.parametrize(
    ("body", "key"),
    [
        ('sampler = "sobol"\n', "sweep.sampler"),
        ("samples = 0\n", "sweep.samples"),
        ('[parameters]\n"nand.tR_us" = { min = 30, max = 90 }\n', "parameters.nand.tR_us.steps"),
        ('[parameters]\n"nand.tR_us" = { min = 90, max = 30, steps = 2 }\n', "parameters.nand.tR_us.max"),
        ('[parameters]\n"workload.iodeph" = [1, 2]\n', "parameters.workload.iodeph"),
        ('[parameters]\n"nand.no_such_key" = [1, 2]\n', "parameters.nand.no_such_key"),
        ('[parameters]\n"nand.tR_us" = [-5]\n', "parameters.nand.tR_us"),
        ('[plot]\nx = "nand.tR_us"\n', "plot.x"),
        ('[workloads.rr2]\nrw = "randread"\niodeph = 4\n', "workloads.rr2.iodeph"),
        ('[workloads.rr2]\nrw = "sideways"\n', "workloads.rr2.rw"),
        # a swept size past the (8 GB) drive fails at parse time, not on a worker
        ('[parameters]\n"workload.size" = ["1g", "16g"]\n', "workloads.rr.size"),
    ],
)
def test_bad_spec_names_the_key(body: str, key: str) -> None:
    with pytest.raises(WorkloadError) as e:
        spec(body)
    assert e.value.field == key, str(e.value)


def test_random_draws_among_listed_values_run_each_point_once() -> None:
    s = spec('sampler = "random"\nsamples = 16\n[parameters]\n"nand.tR_us" = [40, 50]\n')
    points = s.points()
    assert sorted(p.params["nand.tR_us"] for p in points) == [40, 50]
    assert len({p.key for p in points}) == len(points)


def test_every_mistake_in_the_sweep_table_is_reported_at_once() -> None:
    with pytest.raises(WorkloadError) as e:
        spec("sede = 3\nsamples = 0\n")
    assert [p.path for p in e.value.errors()] == ["sweep.sede", "sweep.samples"]


def test_every_mistake_in_the_parameters_workloads_and_plot_is_reported_at_once() -> None:
    body = """
    [parameters]
    "workload.sise" = ["1g"]
    "nand.tR_us" = { min = 30, max = 90 }
    "controller.map_cache.hmb_size_mb" = [8]
    [plot]
    y = "speed"
    [workloads.bad]
    rw = "randrd"
    iodeph = 4
    """
    with pytest.raises(WorkloadError) as e:
        spec(body)
    assert [p.path for p in e.value.errors()] == [
        "parameters.workload.sise",
        "parameters.nand.tR_us.steps",
        "workloads.bad.iodeph",
        "plot.y",
        "workloads.bad.rw",
        "parameters.controller.map_cache.hmb_size_mb",
    ]


def test_cli_bad_spec_exits_2_naming_the_key(tmp_path: Path) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(HEAD + 'sampler = "sobol"\n' + WORKLOAD)
    run = ssdlab_cli("sweep", str(path), "--workers", "1")
    assert run.returncode == 2
    assert run.stderr.startswith("error: sweep.sampler:"), run.stderr
    missing = tmp_path / "no-drive.toml"
    missing.write_text('[sweep]\ndrive = "nope.toml"\n' + WORKLOAD)
    run = ssdlab_cli("sweep", str(missing))
    assert run.returncode == 2 and run.stderr.startswith("error: sweep.drive:"), run.stderr


def test_cli_an_out_that_cannot_be_a_dataset_folder_is_refused_before_any_point_runs(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(HEAD + WORKLOAD)
    (tmp_path / "afile").write_text("")
    run = ssdlab_cli("sweep", str(path), "--workers", "1", "--out", str(tmp_path / "afile"))
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert run.stderr.startswith("error: --out: is a file, not a folder"), run.stderr


class Stop(Exception):
    """Stands for Ctrl-C in the middle of a sweep."""


def test_an_interrupted_sweep_keeps_what_finished_and_resumes_with_the_rest(
    client: Any, tmp_path: Path
) -> None:
    s = spec('seeds = [1, 2, 3]\n[parameters]\n"nand.tR_us" = [40, 60]\n')
    out = tmp_path / "r.parquet"
    total = len(s.points())
    seen = []

    def stop_after_two(row: dict[str, Any]) -> None:
        seen.append(row)
        if len(seen) == 2:
            raise Stop

    with pytest.raises(Stop):
        sweep.run_sweep(s, out, client=client, on_row=stop_after_two, flush_rows=1)
    kept = sweep.read_results(out)
    assert kept is not None and kept.num_rows == 2  # flushed before the error went up
    resumed = sweep.run_sweep(s, out, client=client)
    assert (resumed.total, resumed.skipped, resumed.ran) == (total, 2, total - 2)
    table = sweep.read_results(out)
    assert sorted(table.column("key").to_pylist()) == sorted(p.key for p in s.points())
    assert len(list(out.glob("part-*.parquet"))) == 1  # compacted once complete
    again = sweep.run_sweep(s, out, client=client)
    assert (again.ran, again.skipped) == (0, total)
    # a spec that adds a value runs only the new points
    more = spec('seeds = [1, 2, 3]\n[parameters]\n"nand.tR_us" = [40, 60, 80]\n')
    grown = sweep.run_sweep(more, out, client=client)
    assert (grown.ran, grown.skipped) == (3, total)
    rows = sweep.read_results(out).to_pylist()
    assert {r["nand.tR_us"] for r in rows} == {40, 60, 80}
    paths = sweep.plot_sensitivity(more, out)
    assert paths and paths[0].read_bytes().startswith(b"\x89PNG")


def test_the_same_point_gives_the_same_figures_on_either_worker(client: Any) -> None:
    s = spec('[parameters]\n"workload.iodepth" = [8]\n', workload=WORKLOAD.replace('"randread"', '"randrw"'))
    point = s.points()[0]
    addresses = sorted(client.scheduler_info()["workers"])
    assert len(addresses) == 2
    rows = [client.submit(sweep.run_point, point, workers=[a], pure=False).result() for a in addresses]
    assert rows[0]["worker"] != rows[1]["worker"]
    for m in sweep.METRICS:
        assert rows[0][m] == rows[1][m], m
    assert rows[0]["iops"] > 0 and rows[0]["key"] == rows[1]["key"] == point.key


def _profiling() -> bool:
    import dask

    return bool(dask.config.get("distributed.worker.profile.enabled"))


def test_the_local_cluster_is_single_threaded_processes_without_the_profiler(client: Any) -> None:
    workers = client.scheduler_info()["workers"]
    assert [w["nthreads"] for w in workers.values()] == [1, 1]
    pids = set(client.run(os.getpid).values())
    assert len(pids) == 2 and os.getpid() not in pids  # processes: the GIL is not shared
    # the profiler feeds a dashboard the cluster does not serve; off, it leaves its CPU to the points
    assert set(client.run(_profiling).values()) == {False}


def test_the_cli_module_imports_no_matplotlib() -> None:
    """The sweep's spawned workers re-import the console script's module, ssdlab.cli: what it imports at
    the top each worker pays for before its first point."""
    code = "import sys, ssdlab.cli; print('matplotlib' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.strip() == "False"


def test_cli_sweep_writes_an_html_report_with_the_sensitivity_plot(tmp_path: Path) -> None:
    path = tmp_path / "tr.toml"
    path.write_text(textwrap.dedent(HEAD + '[parameters]\n"nand.tR_us" = [40, 80]\n' + WORKLOAD))
    run = ssdlab_cli("sweep", str(path), "--workers", "1", "--out", str(tmp_path / "tr.parquet"))
    assert run.returncode == 0, run.stderr
    html = tmp_path / "tr.html"
    assert f"wrote {html}" in run.stdout.splitlines()
    text = html.read_text(encoding="utf-8")
    assert text.count('<img src="data:image/png;base64,') == 1
    assert "<caption>Sweep tr.toml: 2 points</caption>" in text
    # a parameter added later: the earlier points have no value for it, shown as "-", not "None"
    params = '[parameters]\n"nand.tR_us" = [40, 80]\n"workload.iodepth" = [4, 8]\n'
    path.write_text(textwrap.dedent(HEAD + params + WORKLOAD))
    run = ssdlab_cli("sweep", str(path), "--workers", "1", "--out", str(tmp_path / "tr.parquet"))
    assert run.returncode == 0, run.stderr
    text = html.read_text(encoding="utf-8")
    assert "None" not in text and ">-</td>" in text


def test_the_cluster_starts_while_the_usual_dashboard_port_is_taken() -> None:
    """Another cluster (or anything else) on 8787 must not stop a sweep: its dashboard takes a free port."""
    import socket

    with socket.socket() as held:
        held.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            held.bind(("", 8787))
            held.listen()
        except OSError:
            pass  # something else holds it already: the same condition
        with dask_client(1, None) as c:
            c.wait_for_workers(1)
            assert c.submit(sum, [1, 2]).result() == 3


def test_an_unreachable_scheduler_exits_2_naming_it(tmp_path: Path) -> None:
    """One dask client serves sweep and calibrate: a scheduler nobody answers at is a clear error within
    10 s (a sweep used to wait 30 s and die with distributed's OSError traceback), and at once where the
    host refuses the connection (the client would retry it for its 10 s)."""
    spec = Path(__file__).resolve().parent.parent / "examples" / "sweep" / "hmb-span.toml"
    out = ssdlab_cli("sweep", str(spec), "--scheduler", "tcp://127.0.0.1:9", "--out", str(tmp_path / "o"))
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith("error: --scheduler: cannot reach the dask scheduler"), out.stderr
    assert "nothing listens at 127.0.0.1:9 (connection refused)" in out.stderr
