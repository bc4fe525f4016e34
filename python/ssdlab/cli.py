"""The ``ssdlab`` command line.

Examples
--------
Shell usage::

    ssdlab presets
    ssdlab show bg4-1tb --set nand.tR_us=60 > my.toml
    ssdlab run --drive my.toml --suite cdm6 --test-size 32g
    ssdlab workload --preset bg4-1tb --rw randwrite --bs 4k --iodepth 32 --size 8g --runtime 10s --json
    ssdlab fio examples/fio/mixed.fio --preset bg4-1tb --output-format json
    ssdlab run --target /tmp/ssdlab-test.img --target-size 2g --suite cdm   # a real file, through fio

Bad input (unknown preset, bad size, iodepth 0 or not a number, unknown rw or option, bad ``--set`` path)
prints ``error: <field>: <message>``, one line per problem, on stderr and exits with status 2. Ctrl-C prints
``interrupted`` and exits with status 130.
"""

from __future__ import annotations

import json
import math
import os
import signal
import sys
import threading
import tomllib
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from typer._click.exceptions import BadOptionUsage, MissingParameter, NoArgsIsHelpError, NoSuchOption

from ssdlab import calibrate as cal
from ssdlab import reference
from ssdlab._cli_options import (
    DestroyDataOpt,
    DriveOpt,
    JsonOpt,
    KeepOpt,
    PresetOpt,
    ScaleOpt,
    SetOpt,
    TargetOpt,
    TargetSizeOpt,
    open_drive,
    open_drive_or_target,
)
from ssdlab._core import version
from ssdlab.errors import (
    ConfigError,
    InputError,
    Problem,
    SimulationError,
    SsdlabError,
    WorkloadError,
    config_error,
    output_file,
    output_folder,
    read_text_file,
    workload_error,
)
from ssdlab.fio.options import OptionValueError, rate_fields
from ssdlab.nvme_cli import nvme_app
from ssdlab.precondition import prefill_workload, sequential_fill, settle
from ssdlab.presets import DEFAULT_PRESET, list_presets, read_preset
from ssdlab.result import REPORTED_PERCENTILES, Result
from ssdlab.series import Recorder, read_series, series_path
from ssdlab.suites import SuiteOptions, registry
from ssdlab.suites import get as get_suite
from ssdlab.suites._common import scaled, sub
from ssdlab.tables import fit_to_width
from ssdlab.target import IO_LOG_REFUSED, Target
from ssdlab.workload import RW_NAMES, Workload

# ssdlab.report (matplotlib, about 0.5 s) is imported in the commands that write a report, not here: the
# workers of `ssdlab sweep` are spawned processes that re-import the console script's main module, this one,
# so whatever it imports at the top each worker pays for before its first point.

__all__ = ["app", "main"]

app = typer.Typer(
    name="ssdlab",
    help="A calibrated SSD simulator with the benchmark suites storage reviewers run.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # Help is plain text: "[default: 2]" or "[calibration]" must print as written, not as rich markup.
    rich_markup_mode=None,
)

SeedOpt = Annotated[int, typer.Option("--seed", help="Seed of the random streams.")]

# Piped to a file, a table need not fit 80 columns: wide enough not to wrap the headers.
stdout = Console(width=None if sys.stdout.isatty() or "COLUMNS" in os.environ else 160)
stderr = Console(stderr=True)


def _print_fitted(renderable: object) -> None:
    """A table as several that fit the terminal when it is wider (:func:`ssdlab.tables.fit_to_width`)."""
    for part in fit_to_width(renderable, stdout.width) if isinstance(renderable, Table) else [renderable]:
        stdout.print(part)


#: The fields of :class:`SuiteOptions`, a target and a scaled drive as the options of ``run``, ``compare``
#: and ``serve`` that give them: an error names what the user typed.
_RUN_OPTIONS = {
    "target": "--target",
    "plot": "--plot",
    "pace": "--pace",
    "test_size": "--test-size",
    "runs": "--runs",
    "duration": "--duration",
    "interval": "--interval",
    "test_data": "--test-data",
    "job": "--job",
    "target_size": "--target-size",
    "capacity_gb": "--scale-capacity-gb",
    # what the suites call the values those options give them
    "max_gb": "--test-size",
    "runtime": "--duration",
    "round_time": "--duration",
    "max_rounds": "--runs",
}


@contextmanager
def _named_as_options() -> Iterator[None]:
    """Input errors raised inside name the ``run``/``compare``/``serve`` option, not the Python field."""
    try:
        yield
    except (ConfigError, WorkloadError) as e:
        if type(e) not in (ConfigError, WorkloadError):  # an error of its own kind (a job file's) as it is
            raise
        problems = [replace(p, path=_RUN_OPTIONS.get(p.path, p.path)) for p in e.errors()]
        raise type(e)(problems) from None


@contextmanager
def _progress(enabled: bool, description: str) -> Iterator[Callable[[float, str], None] | None]:
    """A rich progress bar on stderr, or None when it would only get in the way (not a TTY, --json)."""
    if not enabled or not stderr.is_terminal:
        yield None
        return
    columns = (TextColumn("{task.description:<32}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn())
    with Progress(*columns, console=stderr, transient=True) as bar:
        task = bar.add_task(description, total=1.0)

        def update(fraction: float, what: str) -> None:
            bar.update(task, completed=fraction, description=what)

        yield update


def _finite(doc: Any) -> Any:
    """``doc`` with NaN (a counter a real target cannot observe) as JSON's null."""
    if isinstance(doc, float) and math.isnan(doc):
        return None
    if isinstance(doc, dict):
        return {k: _finite(v) for k, v in doc.items()}
    if isinstance(doc, list | tuple):
        return [_finite(v) for v in doc]
    return doc


app.add_typer(nvme_app, name="nvme")


@app.command()
def presets(json_: JsonOpt = False) -> None:
    """List the built-in drive presets (--json: a list of {"name", "description"})."""
    rows = [
        {"name": name, "description": str(tomllib.loads(read_preset(name)).get("description", ""))}
        for name in list_presets()
    ]
    if json_:
        print(json.dumps(rows, indent=2))
        return
    t = Table("preset", "description")
    for r in rows:
        t.add_row(r["name"], r["description"])
    stdout.print(t)


@app.command()
def show(
    preset: Annotated[str, typer.Argument(help="Built-in preset name.")] = DEFAULT_PRESET,
    drive_file: DriveOpt = None,
    set_: SetOpt = None,
    scale_capacity_gb: ScaleOpt = None,
) -> None:
    """Print a drive's full parameter set as TOML that --drive FILE loads back (a preset, or with --drive a
    drive file resolved: its base and what it changes, in full)."""
    # Plain print: the TOML must come out byte for byte, with no rich markup or wrapping.
    preset_given = None if drive_file is not None and preset == DEFAULT_PRESET else preset
    print(open_drive(preset_given, drive_file, set_, scale_capacity_gb).config_toml(), end="")


def _suites_help() -> str:
    return "; ".join(f"{name}: {s.help}" for name, s in registry().items())


@app.command()
@_named_as_options()
def run(
    preset: PresetOpt = None,
    drive_file: DriveOpt = None,
    set_: SetOpt = None,
    scale_capacity_gb: ScaleOpt = None,
    suite: Annotated[str, typer.Option(help=_suites_help())] = "cdm",
    test_size: Annotated[
        str | None,
        typer.Option(
            help="cdm: test file size (default 1g; 1000m for cdm6); the other suites that take it say so "
            "under --suite."
        ),
    ] = None,
    runs: Annotated[
        int | None,
        typer.Option(help="cdm: measured runs per test, after one warm-up (5); pts: most rounds (25)."),
    ] = None,
    duration: Annotated[
        str | None,
        typer.Option(
            help="Simulated length of a run (cdm: 5s), a round (snia-iops: 60s), a cell of a round and a "
            "WSAT round (pts: 60s), a case (dbmix: 60s)."
        ),
    ] = None,
    interval: Annotated[str | None, typer.Option(help="cdm: simulated idle time between tests (5s).")] = None,
    test_data: Annotated[
        str | None, typer.Option(help="cdm: random (the default) or 0x00 (CrystalDiskMark's All 0x00).")
    ] = None,
    job: Annotated[
        Path | None,
        typer.Option(
            help="endurance: a fio job file whose one job is the workload (default: JESD219A's enterprise "
            "workload)."
        ),
    ] = None,
    seed: SeedOpt = 1,
    json_: JsonOpt = False,
    out: Annotated[Path, typer.Option(help="Folder the JSON and HTML report go into.")] = Path("results"),
    plot: Annotated[Path | None, typer.Option(help="fill: also draw the curve as a PNG.")] = None,
    target: TargetOpt = None,
    target_size: TargetSizeOpt = None,
    destroy_data: DestroyDataOpt = False,
    keep: KeepOpt = False,
) -> None:
    """Run a benchmark suite (CrystalDiskMark, whole-drive fill, SNIA PTS IOPS steady state, the Starblaze
    database mix) and print its results, the published figures beside them where there are any, and the
    drive's internal counters; write the full result as JSON and an HTML report of it into --out.

    With --target PATH the same suite runs on a real file or block device through fio."""
    s = get_suite(suite)
    options = SuiteOptions(
        test_size=test_size,
        runs=runs,
        duration=duration,
        interval=interval,
        seed=seed,
        test_data=test_data,
        job=None if job is None else str(job),
    )
    s.check(options)
    if plot is not None:
        if s.plot is None:
            raise workload_error("plot", f"suite {suite} draws no plot", suite)
        if s.plot_check is not None:
            s.plot_check()
        output_file(plot, "--plot")
    if target is not None and s.simulated_only is not None:
        raise workload_error(
            "--target", f"suite {suite} {s.simulated_only}; run it on a preset or --drive", target
        )
    drive = open_drive_or_target(
        preset, drive_file, set_, scale_capacity_gb, target, target_size, destroy_data, keep
    )
    try:
        output_folder(out, "--out")  # before the run (it may take minutes), after the input is known good
    except (WorkloadError, ConfigError):
        if isinstance(drive, Target):
            drive.close()  # a file this run made goes again
        raise
    recorder = Recorder.attach(drive)
    try:
        with _progress(not json_, f"{suite} on {drive.name}") as progress:
            res = s.run(drive, options, progress)  # type: ignore[arg-type]
    finally:
        if isinstance(drive, Target):
            drive.close()
    from ssdlab.report import overrides, saved_tables, scaled_note, write_report  # here: see the note there

    created = datetime.now(UTC)
    doc = _finite({"created_utc": created.isoformat(timespec="seconds"), **res.to_dict()})
    # The suite options given, so that `ssdlab compare` can run a twin as this run ran
    doc["options"] = options.given_values()
    # The printed tables too, so that `ssdlab report` can show them from the file alone.
    doc["report_tables"] = saved_tables(res)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{drive.name}-{suite}-{created.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    series = read_series(recorder.write(series_path(path)))
    html = write_report(res, path.with_suffix(".html"), created=created, series=series)
    if plot is not None and s.plot is not None:
        _wrote(stderr if json_ else stdout, s.plot(res, plot))
    if json_:
        print(json.dumps(doc, indent=2))
        _wrote(stderr, path)
        _wrote(stderr, html)
        return
    # A scaled-down drive's tables sit beside the full preset's published figures: say so before them.
    if note := scaled_note(overrides(doc)):
        stdout.print(f"note: {note}", style="yellow", markup=False, soft_wrap=True)
    for table in res.tables():
        _print_fitted(table)
    _wrote(stdout, path)
    _wrote(stdout, series_path(path))
    _wrote(stdout, html)


@app.command()
def report(
    results: Annotated[
        list[Path],
        typer.Argument(
            help="Saved results (ssdlab run's JSON; a .series.parquet beside one is drawn too), and "
            "optionally ssdlab validate --json output files (their rows for these drives are tabled)."
        ),
    ],
    output: Annotated[Path, typer.Option("-o", "--output", help="The HTML file to write.")] = Path(
        "report.html"
    ),
    validate_: Annotated[
        bool,
        typer.Option(
            "--validate",
            help="Also run ssdlab validate on the results' presets (minutes) and table published vs model.",
        ),
    ] = False,
    quick: Annotated[
        bool, typer.Option(help="--validate: shorter runs (checks the machinery only).")
    ] = False,
) -> None:
    """Write one self-contained HTML report of saved results: pictures (curves, fill phases and the
    published curve, steady-state rounds, throughput over time, latency exceedance), tables, what each drive
    overrides, and the published figures against the model (from --validate or validate JSON files)."""
    from ssdlab import report as rp
    from ssdlab import validate as v

    output_file(output, "--output")
    entries = []
    rows: list[dict[str, Any]] | None = None
    for p in results:
        text = read_text_file(p, "results file", WorkloadError)
        try:
            data = json.loads(text)
        except ValueError:
            raise WorkloadError(
                [
                    Problem(
                        str(p),
                        "",
                        "not a results file: not JSON (give a .json that run or validate --json wrote)",
                    )
                ]
            ) from None
        if isinstance(data, list):  # ssdlab validate --json
            rows = (rows or []) + [r for r in data if isinstance(r, dict)]
        else:
            entries.append(rp.load_entry(p))
    if not entries:
        raise workload_error("RESULTS", "no result JSON among the inputs", " ".join(map(str, results)))
    presets = sorted({str(e.doc.get("preset")) for e in entries} & set(list_presets()))
    if validate_:
        with _progress(True, "validate") as progress:
            rows = (rows or []) + [r.to_dict() for r in v.rows(presets, quick=quick, progress=progress)]
    if rows is not None:
        rows = [r for r in rows if r.get("drive") in presets]
    path = rp.write_entries(entries, output, validate_rows=rows)
    _wrote(stdout, path)


@app.command()
def validate(
    presets: Annotated[
        list[str] | None,
        typer.Argument(
            help="Presets to validate (default: every drive with published figures), or one drive TOML file, "
            "measured against the figures of the preset it is based on."
        ),
    ] = None,
    figure: Annotated[
        list[str] | None,
        typer.Option(
            "--figure", "-f", help="Only these tables or figures (cdm, fill.curve, spec.seq_read_MBps)."
        ),
    ] = None,
    quick: Annotated[
        bool, typer.Option(help="Shorter runs and scaled fills: checks the machinery, not the figures.")
    ] = False,
    set_: SetOpt = None,
    markdown: Annotated[bool, typer.Option(help="Print the rows as the README's markdown table.")] = False,
    readme: Annotated[
        Path | None,
        typer.Option(help="Write the table into this README between its fidelity markers (make fidelity)."),
    ] = None,
    json_: JsonOpt = False,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs", "-j", help="Drives validated at a time, each in its own process (0: one per CPU)."
        ),
    ] = 1,
) -> None:
    """Run, for every published figure, the method its source used on the matching preset (or on a drive file
    in its base's place), and print drive, figure, source, method, published, model, error % and whether the
    figure is in-sample (a preset value was fitted to it) or a hold-out."""
    from ssdlab import validate as v

    if json_ and markdown:
        raise workload_error("--markdown", "give --json or --markdown, not both", "")
    if jobs < 0:
        raise workload_error("--jobs", "must be 0 (one per CPU) or more", jobs)
    if readme is not None and (quick or presets or figure or set_):
        raise workload_error(
            "--readme",
            "the README's table is the full validation: no --quick, presets, --figure or --set with it",
            str(readme),
        )
    config = None
    if files := [p for p in presets or () if p.endswith(".toml")]:
        if len(presets or ()) != 1:
            raise workload_error(
                "presets", "a drive file is validated alone: give one file, or presets", presets
            )
        drive_file = files[0]
        stand_in, config = v.drive_file(drive_file)
        presets = [stand_in]
        (stderr if json_ or markdown else stdout).print(
            f"{drive_file}: measured in {stand_in}'s place, against its published figures",
            markup=False,
            soft_wrap=True,
        )
    with _progress(not (json_ or markdown), "validate") as progress:
        rs = v.rows(
            presets or None,
            figure or None,
            quick=quick,
            set=set_,
            progress=progress,
            jobs=jobs,
            config=config,
        )
    if readme is not None:
        changed = v.update_readme(readme, rs)
        stdout.print(f"{'updated' if changed else 'unchanged'}: {readme}")
        return
    # a preset with nothing to compare gives no row: say so (on stderr where stdout is JSON or markdown)
    for p in presets or ():
        if not any(r.drive == p for r in rs):
            (stderr if json_ or markdown else stdout).print(
                f"{p}: no published figures (out of sample)", markup=False
            )
    if json_:
        print(json.dumps([r.to_dict() for r in rs], indent=2))
        return
    if markdown:
        sys.stdout.write(v.markdown(rs))
        return
    t = Table(
        title=f"Published figures against the model - ssdlab {version()}" + (" - QUICK" if quick else "")
    )
    for col in ("drive", "figure", "source", "published", "model", "unit", "error", "sample", "method"):
        # fold, not "…": a figure's name is what the reader looks up, cut short it names nothing
        t.add_column(
            col, justify="right" if col in ("published", "model", "error") else "left", overflow="fold"
        )
    for r in rs:
        t.add_row(
            r.drive,
            r.figure,
            r.source,
            v._fmt(r.published),
            v._fmt(r.model),
            r.unit,
            v.result_text(r),
            v.sample_text(r),
            r.method + (f" ({r.note})" if r.note else ""),
        )
    stdout.print(t)
    stdout.print(v.summary(rs), markup=False)
    unnamed = sorted(
        {
            f"{f.file}: {f.path}"
            for p in {r.drive for r in rs if r.fit is not None}
            for f in v.fitted_values(p)
            if not f.figures
        }
    )
    if unnamed:
        stdout.print("fitted values that name no figure: " + "; ".join(unnamed), markup=False, soft_wrap=True)


def _rate_iops_fields(text: str) -> dict[str, Any]:
    """``--rate-iops`` as fio reads ``rate_iops``: ``N`` (each direction) or ``READ,WRITE``; a bad one is a
    WorkloadError naming ``rate_iops``."""
    try:
        return rate_fields(text, "rate_iops")
    except OptionValueError as e:
        raise workload_error("rate_iops", str(e), text) from None


#: ``--io-log FILE`` of ``workload`` and ``replay``: every IO, one row each (:class:`ssdlab.IoLog`).
IoLogOpt = Annotated[
    Path | None,
    typer.Option(
        "--io-log",
        help="Write every IO here, one row each: submit and completion time, latency (ns), op, offset, "
        "length; CSV for a .csv name, else Parquet.",
    ),
]


@app.command()
def workload(
    preset: PresetOpt = None,
    drive_file: DriveOpt = None,
    set_: SetOpt = None,
    scale_capacity_gb: ScaleOpt = None,
    rw: Annotated[str, typer.Option(help=", ".join(RW_NAMES))] = "randread",
    bs: Annotated[str, typer.Option(help="Block size (4k, 128k, 1m).")] = "4k",
    iodepth: Annotated[int, typer.Option(help="Queue depth per job.")] = 1,
    numjobs: Annotated[int, typer.Option(help="Jobs, each with its own queue.")] = 1,
    offset: Annotated[str, typer.Option(help="Start of the region.")] = "0",
    size: Annotated[str, typer.Option(help="Region size (0 = to the end of the drive).")] = "0",
    io_size: Annotated[str, typer.Option(help="Bytes to move (0 = size).")] = "0",
    runtime: Annotated[str | None, typer.Option(help="Simulated time limit (5s, 100ms).")] = None,
    time_based: Annotated[bool, typer.Option(help="Keep going over the region until runtime ends.")] = False,
    ramp_time: Annotated[str, typer.Option(help="Simulated time before measuring.")] = "0",
    rwmixread: Annotated[int, typer.Option(help="Read percentage of rw/randrw.")] = 50,
    rate_iops: Annotated[
        str,
        typer.Option(
            help="IOs per second per job in each direction, as fio (0 = unlimited); READ,WRITE: each its own."
        ),
    ] = "0",
    thinktime: Annotated[str, typer.Option(help="Pause before each new IO (bare number = us).")] = "0",
    buffer_compress_percentage: Annotated[int, typer.Option(help="Compressible share of each buffer.")] = 0,
    interval: Annotated[str, typer.Option(help="Width of the per-interval series.")] = "100ms",
    steadystate: Annotated[
        str, typer.Option(help="fio's steady-state criterion (iops, bw, lat, *_slope; :LIMIT, % of mean).")
    ] = "iops_slope:0.01%",
    steadystate_duration: Annotated[
        str, typer.Option(help="Window the criterion is judged over; the job stops once it holds (0 = off).")
    ] = "0",
    steadystate_ramp_time: Annotated[str, typer.Option(help="Time before the steady-state samples.")] = "0",
    prefill: Annotated[
        bool,
        typer.Option(
            help="Write the region sequentially first (128k, QD32), as reviewers do, so that reads find data."
        ),
    ] = False,
    seed: SeedOpt = 1,
    io_log: IoLogOpt = None,
    json_: JsonOpt = False,
    target: TargetOpt = None,
    target_size: TargetSizeOpt = None,
    destroy_data: DestroyDataOpt = False,
    keep: KeepOpt = False,
) -> None:
    """Run one fio-style workload and print IOPS, MB/s, latency percentiles and the drive's counters.

    With --target PATH the same workload runs on a real file or block device through fio, to stand beside
    the twin's figures."""
    w = Workload(
        rw=rw,
        bs=bs,
        iodepth=iodepth,
        numjobs=numjobs,
        offset=offset,
        size=size,
        io_size=io_size,
        runtime=runtime,
        time_based=time_based,
        ramp_time=ramp_time,
        rwmixread=rwmixread,
        **_rate_iops_fields(rate_iops),
        thinktime=thinktime,
        buffer_compress_percentage=buffer_compress_percentage,
        seed=seed,
        interval=interval,
        steadystate=steadystate,
        steadystate_duration=steadystate_duration,
        steadystate_ramp_time=steadystate_ramp_time,
        log_ios=io_log is not None,
    )
    if io_log is not None:
        if target is not None:
            raise workload_error("--io-log", IO_LOG_REFUSED, str(io_log))  # before the target is made
        output_file(io_log, "--io-log")  # before the run: it may take minutes
    drive = open_drive_or_target(
        preset, drive_file, set_, scale_capacity_gb, target, target_size, destroy_data, keep
    )
    try:
        with _progress(not json_, f"{w.rw} on {drive.name}") as progress:
            if prefill:
                fill = prefill_workload(w)
                drive.run(fill, scaled(progress, 0.0, 1.0, f"prefill on {drive.name}"))
            res = drive.run(w, scaled(progress, 0.0, 1.0, f"{w.rw} on {drive.name}"))
    finally:
        if isinstance(drive, Target):
            drive.close()
    if io_log is not None and res.io_log is not None:
        _wrote(stderr, res.io_log.write(io_log))
    _warn_if_unmapped(res.counters)
    if json_:
        print(json.dumps({**res.to_dict(), "config_toml": drive.config_toml()}, indent=2))
        return
    _print_result(res)


@app.command()
def replay(
    trace: Annotated[Path, typer.Argument(help="Trace file.")],
    preset: PresetOpt = None,
    drive_file: DriveOpt = None,
    set_: SetOpt = None,
    format_: Annotated[
        str,
        typer.Option(
            "--format", help="auto, iolog (fio), blkparse, msr, spc or csv (time_us,op,offset,length)."
        ),
    ] = "auto",
    timing: Annotated[
        str,
        typer.Option(help="recorded: at the trace's times (open loop); afap: as fast as --iodepth allows."),
    ] = "recorded",
    speed: Annotated[float, typer.Option(help="Recorded timing sped up by this factor.")] = 1.0,
    iodepth: Annotated[int, typer.Option(help="Outstanding requests for afap and untimed traces.")] = 32,
    wrap: Annotated[
        bool, typer.Option(help="Fold requests beyond the drive back onto it (else: error).")
    ] = True,
    skip_bad: Annotated[bool, typer.Option(help="Count bad lines instead of stopping at the first.")] = False,
    interval: Annotated[str, typer.Option(help="Width of the per-interval series.")] = "100ms",
    prefill: Annotated[
        bool,
        typer.Option(
            help="Fill the drive first (sequential 128k, QD32) and let it settle, so that the trace's reads "
            "find data, as on the drive it was recorded on."
        ),
    ] = False,
    io_log: IoLogOpt = None,
    scale_capacity_gb: ScaleOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Replay a block trace (fio iolog, blkparse, MSR Cambridge, SPC, csv) on a drive, streamed, and print
    what a workload prints."""
    if io_log is not None:
        output_file(io_log, "--io-log")  # before the replay: it may take minutes
    drive = open_drive(preset, drive_file, set_, scale_capacity_gb)
    what = f"replay on {drive.name}"
    with _progress(not json_, what) as progress:
        if prefill:
            sequential_fill(drive, progress=progress)
            settle(drive)
        res = drive.replay(
            trace,
            format=format_,
            timing=timing,
            speed=speed,
            iodepth=iodepth,
            wrap=wrap,
            skip_bad=skip_bad,
            interval=interval,
            progress=scaled(progress, 0.0, 1.0, what),
            log_ios=io_log is not None,
        )
    if io_log is not None and res.io_log is not None:
        _wrote(stderr, res.io_log.write(io_log))
    if not (res.read.ios or res.write.ios or res.trim.ios):
        stderr.print(
            f"note: {trace} held no reads, writes or trims ({res.lines_read:,} lines read)", markup=False
        )
    if res.late_requests:
        n = res.late_requests
        stderr.print(
            f"note: {n:,} request{'s' if n > 1 else ''} of {trace} {'were' if n > 1 else 'was'} recorded "
            "before one ahead in the file; each went in at its turn (file order), not at its earlier time",
            markup=False,
        )
    _warn_if_unmapped(res.counters)
    if json_:
        print(json.dumps({**res.to_dict(), "config_toml": drive.config_toml()}, indent=2))
        return
    _print_result(res)
    if res.skipped_lines:
        stderr.print(f"skipped {res.skipped_lines:,} bad lines of {res.lines_read:,}")


@app.command()
def check(
    drives: Annotated[
        list[str] | None,
        typer.Argument(help="Presets or drive TOML files to check (default: every built-in preset)."),
    ] = None,
    set_: SetOpt = None,
    fill: Annotated[
        bool, typer.Option(help="Include the whole-drive fill relation (1-6 s a drive, the slowest part).")
    ] = True,
    json_: JsonOpt = False,
) -> None:
    """Check that each drive behaves like a drive: the relations every real SSD keeps, whatever its figures
    (deeper queues never slower, nothing past the link's line rate, a larger span or no HMB never faster, a
    sequential fill writes each byte at most twice). Exits 1 if one does not hold."""
    from ssdlab import relations

    names = drives or list_presets()
    opened = [
        open_drive(None, Path(d), set_) if d.endswith(".toml") else open_drive(d, None, set_) for d in names
    ]  # every drive opens (or is refused by name) before any is measured
    found: list[tuple[str, list[relations.Relation]]] = []
    with _progress(not json_, "check") as progress:
        for i, (name, drive) in enumerate(zip(names, opened, strict=True)):
            part = sub(progress, i / len(names), (i + 1) / len(names))
            found.append((name, relations.check(drive, fill=fill, progress=part)))
    ok = all(r.passed for _, rs in found for r in rs)
    if json_:
        doc = {
            "passed": ok,
            "drives": [{"drive": d, "relations": [r.to_dict() for r in rs]} for d, rs in found],
        }
        print(json.dumps(doc, indent=2))
    else:
        for d, rs in found:
            t = Table(title=f"{escape(d)}: relations every real SSD keeps", title_justify="left")
            t.add_column("relation", overflow="fold", ratio=2)
            t.add_column("holds")
            t.add_column("measured", overflow="fold", ratio=3)
            for r in rs:
                t.add_row(escape(r.name), "yes" if r.passed else "[red]NO[/red]", escape(r.measured))
            stdout.print(t)
        held = sum(r.passed for _, rs in found for r in rs)
        total = sum(len(rs) for _, rs in found)
        stdout.print(f"{held} of {total} relations hold on {len(found)} drive(s)", markup=False)
    if not ok:
        raise typer.Exit(1)


@app.command()
def calibrate(
    preset: Annotated[str, typer.Argument(help="Built-in preset name, or a drive TOML file.")],
    budget: Annotated[
        int | None,
        typer.Option(
            help="Completed trials the study should hold (resumed studies count theirs). [default: 120]"
        ),
    ] = None,
    workers: Annotated[
        int | None, typer.Option(help="Dask workers of the local cluster (processes). [default: 2]")
    ] = None,
    scheduler: Annotated[
        str | None, typer.Option(help="A dask scheduler to run the trials on instead, e.g. tcp://HOST:8786.")
    ] = None,
    study: Annotated[
        Path | None,
        typer.Option(
            help="SQLite file of the study; the same command resumes it. "
            "[default: results/calibrate-NAME.sqlite]"
        ),
    ] = None,
    write: Annotated[
        bool,
        typer.Option("--write", help="Write the fitted values, with provenance, into the preset's files."),
    ] = False,
    figures_files: Annotated[
        list[Path] | None,
        typer.Option(
            "--reference",
            help="Figures of your own (repeatable): a TOML file of fill figures ([fill] curve, "
            "fill_avg_MBps, slc_cache_GB) or a result's JSON (ssdlab run, e.g. of a --target), named in "
            "[calibration] as STEM.fill.KEY or STEM.SUITE.FIGURE (SUITE.*: all its headline figures), "
            "STEM the file's name without its suffix.",
        ),
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """Fit the preset's free parameters ([calibration] in its TOML) to its published figures with optuna
    (TPE), the trials on dask.distributed, the study in SQLite; print the errors before and after."""
    if workers is not None and scheduler is not None:
        raise config_error("--workers", "give --workers (a local cluster) or --scheduler, not both", workers)
    published: Callable[[str], Mapping[str, Any] | None] = reference.figures
    for path in figures_files or ():
        published = cal.published_with(path, published)[1]
    plan = cal.load_plan(preset, published=published)
    n = cal.DEFAULT_BUDGET if budget is None else budget
    with _progress(not json_, f"calibrate {plan.name}") as progress:

        def report(done: int, total: int, best: float) -> None:
            if _CTRL_C.is_set():  # a Ctrl-C whose KeyboardInterrupt was lost (see main): stop now
                raise KeyboardInterrupt
            if progress is not None:
                progress(done / total, f"trial {done}/{total}, best {best:.2f}%")

        out = cal.run(
            plan,
            budget=n,
            workers=2 if workers is None else workers,
            scheduler=scheduler,
            study=study,
            write=write,
            progress=report,
        )
    if json_:
        print(json.dumps(_calibration_doc(out), indent=2))
        return
    for table in _calibration_tables(out):
        _print_fitted(table)
    per_trial = f", {out.trial_s:.1f} s per trial on a worker" if out.new_trials else ""
    stdout.print(
        f"{out.trials} trials in the study ({out.new_trials} now, {out.wall_s:.0f} s{per_trial}); "
        f"study {out.study_path}",
        markup=False,
        soft_wrap=True,
    )
    for path in out.written:
        _wrote(stdout, path)
    if write and not out.written:
        stdout.print("the fit moved no value: nothing written", markup=False)
    if not write:
        stdout.print("--write puts the fitted values into the preset", markup=False)


def _calibration_doc(out: cal.Outcome) -> dict[str, object]:
    return {
        "preset": out.plan.preset,
        "figures": out.plan.figures,
        "holdout": out.plan.holdout,
        "before": out.before,
        "after": out.after,
        "error_before_pct": out.error_before,
        "error_after_pct": out.error_after,
        "errors_before": {k: v.to_dict() for k, v in out.before_errors.items()},
        "errors_after": {k: v.to_dict() for k, v in out.after_errors.items()},
        "trials": out.trials,
        "new_trials": out.new_trials,
        "trial_s": out.trial_s,
        "study": str(out.study_path),
        "written": [str(p) for p in out.written],
    }


def _calibration_tables(out: cal.Outcome) -> list[Table]:
    plan = out.plan
    t = Table(
        title=f"Calibration of {plan.name}: error {out.error_before:.1f}% -> {out.error_after:.1f}% "
        f"(RMS of the in-sample figures) - ssdlab {version()}"
    )
    for col in ("figure", "fit", "published", "model before", "model after", "error before", "error after"):
        t.add_column(col, justify="left" if col in ("figure", "fit") else "right")

    def num(v: float | None) -> str:
        return "-" if v is None else f"{v:.4g}"

    for name in plan.figures + plan.holdout:
        b, a = out.before_errors[name], out.after_errors[name]
        kind = "in-sample" if name in plan.figures else "hold-out"
        t.add_row(
            name,
            kind,
            num(b.published),
            num(b.model),
            num(a.model),
            f"{b.error_pct:.1f}%",
            f"{a.error_pct:.1f}%",
        )
        for pb, pa in zip(b.parts, a.parts, strict=True):
            t.add_row(
                f"  {pb.figure.removeprefix(name)}",
                "",
                num(pb.published),
                num(pb.model),
                num(pa.model),
                f"{pb.error_pct:.1f}%",
                f"{pa.error_pct:.1f}%",
            )
    v = Table(title="Free parameters")
    for col in ("parameter", "range", "before", "after"):
        v.add_column(col, justify="left" if col == "parameter" else "right")
    for p in plan.free:
        v.add_row(
            p.path,
            f"{p.format(p.low)}..{p.format(p.high)}",
            p.format(out.before[p.path]),
            p.format(out.after[p.path]),
        )
    return [t, v]


#: How to give reads data to find, where the command has --prefill (workload, replay).
_PREFILL_FIX = "write the region first (--prefill)"


def _warn_if_unmapped(counters: Mapping[str, float], fix: str = _PREFILL_FIX) -> None:
    """Print :func:`unmapped_read_warning` on stderr, if it has one (``workload``, ``replay``, ``fio``)."""
    warning = unmapped_read_warning(counters, fix)
    if warning:
        stderr.print(f"warning: {warning}", markup=False, soft_wrap=True)


def unmapped_read_warning(counters: Mapping[str, float], fix: str = _PREFILL_FIX) -> str | None:
    """A warning when most reads of a run (its ``counters``) found no data: they cost no NAND read, so they
    measure nothing. ``fix`` says how to avoid it with the command at hand.

    Examples
    --------
    >>> import ssdlab
    >>> drive = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 4})
    >>> res = drive.run(ssdlab.Workload(rw="randread", runtime="10ms"))
    >>> unmapped_read_warning(res.counters).startswith("100% of the reads")
    True
    """
    # both counted over the whole run, in the 4 KiB pages the reads touched (bytes / 4 KiB undercounts
    # unaligned reads: a 3 KiB read can touch two pages, and the share came out above 100%)
    pages = counters.get("host_read_pages", 0.0)
    unmapped = counters.get("unmapped_reads", 0.0)
    if pages == 0 or not unmapped > pages / 2:  # a real target's counter is NaN: no warning
        return None
    return (
        f"{unmapped / pages:.0%} of the reads found no data (never written or trimmed): they cost no NAND "
        f"read, so the figures say little about the drive; {fix}"
    )


@app.command()
@_named_as_options()
def compare(
    inputs: Annotated[
        list[str], typer.Argument(help="Presets, drive TOML files or saved result JSONs (results/*.json).")
    ],
    suite: Annotated[
        str | None,
        typer.Option(help="Suite to run the presets and TOML drives with (default: the saved results')."),
    ] = None,
    set_: SetOpt = None,
    scale_capacity_gb: ScaleOpt = None,
    test_size: Annotated[str | None, typer.Option(help="As for ssdlab run.")] = None,
    runs: Annotated[int | None, typer.Option(help="As for ssdlab run.")] = None,
    duration: Annotated[str | None, typer.Option(help="As for ssdlab run.")] = None,
    interval: Annotated[str | None, typer.Option(help="As for ssdlab run.")] = None,
    test_data: Annotated[str | None, typer.Option(help="As for ssdlab run.")] = None,
    seed: SeedOpt = 1,
    out: Annotated[
        Path, typer.Option(help="Folder the fresh results, the comparison JSON and the PNGs go into.")
    ] = Path("results"),
    json_: JsonOpt = False,
) -> None:
    """Put drives side by side: each headline figure of the suite, a column per input and the difference
    in % against the first; plots (PNG) and the comparison (JSON) go into --out."""
    from ssdlab import compare as cmp
    from ssdlab import report as rp

    options = SuiteOptions(
        test_size=test_size, runs=runs, duration=duration, interval=interval, seed=seed, test_data=test_data
    )
    output_folder(out, "--out")
    with _progress(not json_, "compare") as progress:
        loaded = cmp.load_inputs(inputs, suite, options, set_, scale_capacity_gb, progress)
    name, ins, options = loaded.suite, loaded.inputs, loaded.options
    if loaded.options_from is not None:  # a real drive measured one way, its twin run the same way
        shown = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in options.given_values().items())
        (stderr if json_ else stdout).print(
            f"note: the drives run as {loaded.options_from} ran: {shown}",
            style="yellow",
            markup=False,
            soft_wrap=True,
        )
    created = datetime.now(UTC)
    stamp = created.strftime("%Y%m%d-%H%M%S")
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for i in ins:
        if i.kind != "result":  # a fresh run, saved as ssdlab run saves it: compare it again later
            path = out / f"{cmp._slug(i.label)}-{name}-{stamp}.json"
            doc = _finite({"created_utc": created.isoformat(timespec="seconds"), **i.doc})
            doc["options"] = options.given_values()  # as ssdlab run records them
            path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
            written.append(path)
    c = cmp.compare([(i.label, i.doc) for i in ins])
    stem = f"compare-{name}-{stamp}"
    written += cmp.plot(c, out, stem)
    doc = _finite({"created_utc": created.isoformat(timespec="seconds"), **c.to_dict()})
    doc["inputs"] = [{**d, "arg": i.arg, "kind": i.kind} for d, i in zip(doc["inputs"], ins, strict=True)]
    doc["plots"] = [str(p) for p in written if p.suffix == ".png"]
    path = out / f"{stem}.json"
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    written.append(path)
    entries = [rp.entry_of_doc(i.label, i.doc, i.arg if i.kind == "result" else "") for i in ins]
    title = f"ssdlab compare {name}: {' vs '.join(c.labels)}"
    written.append(
        rp.write_entries(
            entries, out / f"{stem}.html", created, title=title, lead_tables=[c.table(with_note=True)]
        )
    )
    console = stderr if json_ else stdout
    if note := c.note():
        console.print(note, style="yellow", markup=False, soft_wrap=True)
    if json_:
        print(json.dumps(doc, indent=2))
    else:
        for table in c.tables(stdout.width):  # the first input in each, as many others as fit
            stdout.print(table)
    for p in written:
        _wrote(console, p)


@app.command()
@_named_as_options()
def serve(
    preset: PresetOpt = None,
    drive_file: DriveOpt = None,
    set_: SetOpt = None,
    scale_capacity_gb: ScaleOpt = None,
    socket: Annotated[
        str | None, typer.Option(help="Serve on this Unix socket (default: TCP --port).")
    ] = None,
    port: Annotated[int, typer.Option(help="TCP port when no --socket is given.")] = 10809,
    pace: Annotated[
        str, typer.Option(help="realtime: each reply at its simulated completion; free: as soon as computed.")
    ] = "realtime",
    run_cmd: Annotated[
        str | None,
        typer.Option(
            "--run", help="Captive mode: run this command against the export ($uri, $unixsocket), then stop."
        ),
    ] = None,
    state: Annotated[
        Path | None,
        typer.Option(
            "--state",
            help="Export a namespace of the drive this `ssdlab nvme` state file holds (in place of "
            "--preset/--drive/--set). The file is read, never written: what the session writes is gone "
            "when it ends.",
        ),
    ] = None,
    nsid: Annotated[
        int | None,
        typer.Option(
            "--namespace-id",
            "-n",
            help="With --state: the namespace to export (default: the first attached).",
        ),
    ] = None,
) -> None:
    """Export the twin as a block device over NBD (Debian's nbdkit): fio's nbd engine, qemu-img, nbdcopy
    or a Linux guest use it as a disk; what is written reads back. With --state, one namespace of a saved
    NVMe drive: its size, its LBA size, its media key.

    Example: ssdlab serve --preset bg4-1tb --set ftl.user_capacity_gb=4 --run
    'fio --ioengine=nbd --uri=$uri --rw=randread --bs=4k --iodepth=8 --runtime=5 --time_based --name=r'
    """
    from ssdlab.nvme_cli import load_state
    from ssdlab.serve import export_namespace, nbdkit_command
    from ssdlab.serve import serve as run_nbdkit

    if not 1 <= port <= 65535:
        raise config_error("--port", "must be a TCP port, 1..65535", port)
    if run_cmd is not None and (socket is not None or port != 10809):
        # captive mode: nbdkit picks a private socket and hands it to the command as $uri / $unixsocket
        raise config_error("--run", "serves on a private socket ($uri): drop --socket/--port", run_cmd)
    if socket is not None and not Path(socket).parent.is_dir():
        raise config_error("--socket", "its folder does not exist", socket)
    if state is not None:
        if preset is not None or drive_file is not None or set_ or scale_capacity_gb is not None:
            raise config_error(
                "--state",
                "the state file holds the drive: drop --preset/--drive/--set/--scale-capacity-gb",
                state,
            )
        # a bad state file or namespace fails here, with exit 2; nbdkit loads the drive again
        nsid = export_namespace(load_state(state), nsid, state)
    elif nsid is not None:
        raise config_error("--namespace-id", "is for a drive with namespaces: give --state too", nsid)
    else:
        open_drive(preset, drive_file, set_, scale_capacity_gb)  # bad parameters fail here, with exit 2
    cmd = nbdkit_command(
        preset,
        set_ or [],
        toml=str(drive_file) if drive_file else None,
        socket=socket,
        port=port,
        pace=pace,
        capacity_gb=scale_capacity_gb,
        run=run_cmd,
        state=str(state.resolve()) if state else None,
        namespace=nsid,
    )
    raise typer.Exit(run_nbdkit(cmd))


@app.command()
def sweep(
    spec: Annotated[Path, typer.Argument(help="Sweep spec (TOML; see README, examples/sweep/).")],
    scheduler: Annotated[
        str | None,
        typer.Option(help="A running dask scheduler (tcp://HOST:8786); default: a local cluster."),
    ] = None,
    workers: Annotated[
        int | None, typer.Option(help="Workers of the local cluster (default: one per CPU).")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(help="Parquet dataset (a folder) the points stream into (default: SPEC's name)."),
    ] = None,
) -> None:
    """Run a grid, random or Latin-hypercube sample of drive parameters x workloads x seeds on
    dask.distributed; results stream to Parquet, a rerun skips the points already there."""
    from ssdlab import sweep as sw

    plan = sw.load_spec(spec)
    out = output_folder(out or spec.with_suffix(".parquet"), "--out")  # before the points run
    if workers is not None and scheduler is not None:
        raise workload_error("--workers", "sizes the local cluster; not with --scheduler", workers)
    if workers is not None and workers < 1:
        raise workload_error("--workers", "must be at least 1", workers)
    columns = (TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn())
    with Progress(*columns, console=stderr, transient=True, disable=not stderr.is_terminal) as bar:
        task = bar.add_task(f"sweep {spec.name}", total=None)

        def step(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total, description=f"sweep {spec.name}: {done}/{total}")

        summary = sw.run_sweep(plan, out, scheduler=scheduler, workers=workers, progress=step)
    stdout.print(
        f"{summary.total} points: {summary.ran} run, {summary.skipped} already in {out}", markup=False
    )
    pngs = sw.plot_sensitivity(plan, out)
    for p in pngs:
        _wrote(stdout, p)
    html = _sweep_report(spec, out, pngs)
    _wrote(stdout, html)


def _sweep_report(spec: Path, out: Path, pngs: list[Path], max_rows: int = 500) -> Path:
    """The sweep's HTML report: its sensitivity plots and a table of its points (the first ``max_rows``)."""
    from ssdlab import report as rp
    from ssdlab import sweep as sw
    from ssdlab.suites import ReportFigure

    figures = [
        ReportFigure(p.stem, p.read_bytes(), "sensitivity plot", f"{p.name}: averaged over seeds")
        for p in pngs
    ]
    table = sw.read_results(out)
    rows = [] if table is None else table.to_pylist()
    # (a point's index is its place in the spec that ran it: after the spec changes, not an identity)
    keep = [c for c in (table.column_names if table is not None else []) if c not in ("key", "index")]
    t = Table(
        title=f"Sweep {spec.name}: {len(rows)} points"
        + (f" (first {max_rows} shown)" if len(rows) > max_rows else "")
    )
    for c in keep:
        t.add_column(c, justify="right")

    def cell(v: object) -> str:  # a column an earlier spec did not have is empty in its rows
        return "-" if v is None else f"{v:,.4g}" if isinstance(v, float) else str(v)

    for r in rows[:max_rows]:
        t.add_row(*(cell(r[c]) for c in keep))
    path = out.parent / f"{out.name.removesuffix('.parquet')}.html"
    return rp.write_entries(
        [], path, title=f"ssdlab sweep {spec.name}", lead_tables=[t], lead_figures=figures
    )


FIO_FORMATS = ("normal", "json", "json+")


@app.command(context_settings={"ignore_unknown_options": True, "allow_extra_args": True})
def fio(
    jobs: Annotated[
        list[str] | None,
        typer.Argument(help="Job files and/or fio options (--name=a --rw=randread ...).", show_default=False),
    ] = None,
    preset: PresetOpt = None,
    drive_file: DriveOpt = None,
    set_: SetOpt = None,
    output_format: Annotated[
        str, typer.Option("--output-format", help="normal, json or json+ (fio's layouts).")
    ] = "normal",
    output: Annotated[Path | None, typer.Option("--output", help="Write the output to FILE.")] = None,
    scale_capacity_gb: ScaleOpt = None,
) -> None:
    """Run fio job files (or fio's command-line form) on a simulated drive and print fio's output.

    Logs a job asks for (write_bw_log, write_iops_log, write_lat_log) are written in the current folder,
    as fio writes them."""
    from ssdlab.fio import JobFileError, format_normal, load_jobs, run_jobfile, to_json
    from ssdlab.fio.logs import write_logs

    if output_format not in FIO_FORMATS:
        raise workload_error(
            "--output-format", f"{output_format!r} is not one of {', '.join(FIO_FORMATS)}", output_format
        )
    if output is not None:
        output_file(output, "--output")  # before the run: it may take minutes
    try:
        jobfile = load_jobs(jobs or [])
        drive = open_drive(preset, drive_file, set_, scale_capacity_gb)
        with _progress(output is not None or output_format == "normal", f"fio on {drive.name}") as progress:
            step = scaled(progress, 0.0, 1.0, f"fio on {drive.name}")
            run_ = run_jobfile(drive, jobfile, step)
    except JobFileError as e:  # already "file:line: option: problem"
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr)
        raise typer.Exit(2) from None
    _warn_if_unmapped(run_.counters, "write the region first (a write job, then stonewall)")
    try:  # fio writes its logs (write_bw_log, ...) where it runs
        write_logs(run_, Path.cwd())
    except OSError as e:
        raise workload_error("write_*_log", f"cannot write the log: {e.strerror or e}", e.filename) from None
    if output_format == "normal":
        text = format_normal(run_)
    else:
        text = json.dumps(to_json(run_, plus=output_format == "json+"), indent=2) + "\n"
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as e:
        raise workload_error("--output", f"cannot write {str(output)!r}: {e.strerror or e}", output) from None


def _wrote(console: Console, path: object) -> None:
    """``wrote PATH``: the path as typed, no markup, no highlighting of the numbers in it, never wrapped."""
    console.print(f"wrote {path}", markup=False, highlight=False, soft_wrap=True)


def _print_result(res: Result) -> None:
    if res.workloads:
        w = res.workload
        title = f"{w.rw} bs={w.bs} Q{w.iodepth}T{w.numjobs} on {res.preset} - seed {w.seed}"
    else:
        title = f"replay of {res.source} ({res.lines_read:,} lines) on {res.preset}"
    t = Table(title=f"{title} - ssdlab {version()}")
    t.add_column("")
    for col in ("IOPS", "MB/s", "mean us", *(f"p{p:g} us" for p in REPORTED_PERCENTILES), "max us"):
        t.add_column(col, justify="right")
    for label, ios, mbps, lat in (
        ("read", res.read.iops, res.read.mbps, res.read.latency),
        ("write", res.write.iops, res.write.mbps, res.write.latency),
        ("trim", res.trim.iops, res.trim.mbps, res.trim.latency),
        ("total", res.iops, res.bandwidth_mbps, res.latency),
    ):
        if (lat.count == 0 and label != "total") or (label == "total" and res.trim.ios and not lat.count):
            continue  # a trim-only run has no read + write total
        pcts = [f"{lat.percentile(p):,.1f}" for p in REPORTED_PERCENTILES]
        t.add_row(label, f"{ios:,.0f}", f"{mbps:,.2f}", f"{lat.mean_us:,.1f}", *pcts, f"{lat.max_us:,.1f}")
    _print_fitted(t)
    ss = res.steadystate
    if ss is not None:
        unit = "%" if ss["pct"] else ""
        stdout.print(
            f"steady state {ss['ss']}: {'attained' if ss['attained'] else 'not attained'} "
            f"(criterion {ss['criterion']:.4g}{unit}; window IOPS {', '.join(map(str, ss['iops']))})",
            markup=False,
            highlight=False,
        )
    from ssdlab.report import counters_table  # here, not at the top: see the note there

    title = f"Drive counters over the run ({res.elapsed_s:.3g} s measured)"
    stdout.print(counters_table(res.counters, title))


def _error_lines(err: SsdlabError) -> list[str]:
    """``<field>: <message>``, one line per problem, for any ssdlab error."""
    if isinstance(err, InputError):
        return [" ".join(str(p).split()) for p in err.errors()] or ["invalid input"]
    return [" ".join(str(err).split())]


def _given(args: list[str], opts: list[str]) -> str | None:
    """The value typed for the option ``opts`` (``--budget 2x`` or ``--budget=2x``), the last if repeated."""
    found = None
    for i, a in enumerate(args):
        name, eq, value = a.partition("=")
        if name in opts:
            found = value if eq else (args[i + 1] if i + 1 < len(args) else None)
    return found


def _preset_argument_hint(err: NoSuchOption) -> str:
    """For ``-p``/``--preset`` given to a command that takes its preset as an argument (``show``,
    ``validate``, ``calibrate``): how to give it there."""
    command = err.ctx.command if err.ctx is not None else None
    if err.option_name not in ("-p", "--preset") or command is None:
        return ""
    for param in command.params:
        if param.param_type_name == "argument" and param.name in ("preset", "presets"):
            return f" ({command.name} takes the preset as its argument: ssdlab {command.name} bg4-1tb)"
    return ""


def _usage_line(err: typer.TyperException, args: list[str] | None = None) -> str:
    """A parser error (bad or unknown option) as ``<option>: <message>``, like the package's errors; a bad
    value says what was typed (``args``: the command line); a missing argument or option says what it is."""
    if isinstance(err, MissingParameter) and err.param is not None:
        kind = "argument" if err.param.param_type_name == "argument" else "option"
        name = err.param.name if kind == "argument" else "/".join(err.param.opts)
        what = " ".join(str(getattr(err.param, "help", None) or "").split()).rstrip(".")
        what = what[:1].lower() + what[1:] if what[1:2].islower() else what  # "Trace file" -> "trace file"
        where = err.ctx.command_path if err.ctx is not None else "ssdlab"
        return f"{name}: missing {kind}{f' ({what})' if what else ''}; see {where} --help"
    if isinstance(err, typer.BadParameter) and err.param is not None:
        hint = err.param_hint if isinstance(err.param_hint, str) else "/".join(err.param.opts)
        message = err.message
        value = _given(args or [], list(err.param.opts))
        got = f" (got {value})" if value is not None and value not in message else ""
        return f"{hint}: {message[:1].lower()}{message[1:]}{got}"
    if isinstance(err, NoSuchOption):
        alike = f" (did you mean {', '.join(sorted(err.possibilities))}?)" if err.possibilities else ""
        # the preset's own hint first: for --preset click suggests --set, which is not what was meant
        return f"{err.option_name}: no such option{_preset_argument_hint(err) or alike}"
    text = " ".join(str(getattr(err, "format_message", err.__str__)()).split())
    if isinstance(err, BadOptionUsage):  # "Option '--iodepth' requires an argument."
        return f"{err.option_name}: {text.replace(f'Option {err.option_name!r} ', '').rstrip('.')}"
    return text


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``ssdlab`` script: runs the app, turning user mistakes into ``error: ...`` lines.

    Bad input, from the option parser or from the package, prints ``error: <field>: <message>`` (one line per
    problem) and exits 2; a simulation that cannot go on exits 1; Ctrl-C prints ``interrupted`` and exits 130.
    No traceback reaches the user.
    """
    _CTRL_C.clear()
    default = threading.current_thread() is threading.main_thread()
    default = default and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if default:
        signal.signal(signal.SIGINT, _ctrl_c)
    try:
        code = app(args=argv, prog_name="ssdlab", standalone_mode=False)
        if _CTRL_C.is_set():
            code = _INTERRUPTED
    except typer.TyperException as e:
        if isinstance(e, NoArgsIsHelpError):  # bare `ssdlab`: the help, as click prints it
            e.show()
            sys.exit(e.exit_code)
        print(f"error: {_usage_line(e, sys.argv[1:] if argv is None else argv)}", file=sys.stderr)
        sys.exit(getattr(e, "exit_code", 2))
    except SimulationError as e:
        for line in _error_lines(e):
            print(f"error: simulation: {line}", file=sys.stderr)
        sys.exit(1)
    except SsdlabError as e:
        for line in _error_lines(e):
            print(f"error: {line}", file=sys.stderr)
        sys.exit(2)
    except (KeyboardInterrupt, typer.Abort):
        code = _INTERRUPTED
    finally:
        if default:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    # Outside standalone mode typer returns the exit code instead of exiting; 130 is how it reports Ctrl-C.
    if code == _INTERRUPTED:
        print("interrupted", file=sys.stderr)
    if isinstance(code, int) and code:
        sys.exit(code)


#: Exit status after Ctrl-C (128 + SIGINT), as shells report it.
_INTERRUPTED = 130

#: Set by Ctrl-C. Python raises KeyboardInterrupt wherever the main thread is, and one raised inside a
#: garbage-collection callback is printed and dropped ("Exception ignored in ..."); long commands check this
#: between steps so such a Ctrl-C still stops them.
_CTRL_C = threading.Event()


def _ctrl_c(signum: int, frame: object) -> None:
    _CTRL_C.set()
    raise KeyboardInterrupt


if __name__ == "__main__":
    main()
