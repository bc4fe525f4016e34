"""The ``ssdlab`` command line.

Examples
--------
Shell usage::

    ssdlab presets
    ssdlab show bg4-1tb --set nand.tR_us=60 > my.toml
    ssdlab run --drive my.toml --suite cdm6 --test-size 32g
    ssdlab workload --preset bg4-1tb --rw randwrite --bs 4k --iodepth 32 --size 8g --runtime 10s --json
    ssdlab fio examples/fio/mixed.fio --preset bg4-1tb --output-format json

Bad input (unknown preset, bad size, iodepth 0, unknown rw, bad ``--set`` path) prints one line,
``error: <field>: <message>``, on stderr and exits with status 2.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table

from ssdlab._core import ConfigError, SimulationError, SsdlabError, version
from ssdlab.drive import Drive
from ssdlab.errors import config_error, workload_error
from ssdlab.presets import DEFAULT_PRESET, list_presets, read_preset
from ssdlab.report import counters_table, write_report
from ssdlab.result import REPORTED_PERCENTILES, Result
from ssdlab.suites.cdm import CDM_VERSIONS, CdmResult, run_cdm
from ssdlab.suites.dbmix import DbmixResult, run_dbmix
from ssdlab.suites.fill import FillResult, require_matplotlib, run_fill
from ssdlab.suites.snia import SniaIopsResult, run_snia_iops
from ssdlab.workload import RW_NAMES, Workload

__all__ = ["app", "main"]

app = typer.Typer(
    name="ssdlab",
    help="A calibrated SSD simulator with the benchmark suites storage reviewers run.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

#: ``--suite`` names: ``cdm`` is CrystalDiskMark 8, the current version; ``fill`` the AnandTech whole-drive
#: fill; ``snia-iops`` the SNIA PTS IOPS test's steady state (4 KiB random-write tracking variable).
SUITES = {"cdm": "8", **{f"cdm{v}": v for v in CDM_VERSIONS}, "fill": "", "snia-iops": "", "dbmix": ""}

PresetOpt = Annotated[
    str | None, typer.Option("--preset", "-p", help=f"Built-in drive preset (default {DEFAULT_PRESET}).")
]
DriveOpt = Annotated[
    Path | None, typer.Option("--drive", "-d", help="Drive TOML file (such as `ssdlab show` prints).")
]
SetOpt = Annotated[
    list[str] | None,
    typer.Option("--set", "-s", help="Override a parameter by its TOML path, PATH=VALUE (repeatable)."),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON on stdout.")]
SeedOpt = Annotated[int, typer.Option("--seed", help="Seed of the random streams.")]

# Piped to a file, a table need not fit 80 columns: wide enough not to wrap the headers.
stdout = Console(width=None if sys.stdout.isatty() or "COLUMNS" in os.environ else 160)
stderr = Console(stderr=True)


def _drive(preset: str | None, drive_file: Path | None, overrides: list[str] | None) -> Drive:
    if preset is not None and drive_file is not None:
        raise config_error("--drive", "give --preset or --drive, not both", "")
    if drive_file is not None:
        try:
            text = drive_file.read_text(encoding="utf-8")
        except OSError as e:
            raise config_error("--drive", f"cannot read {str(drive_file)!r}: {e.strerror or e}", "") from None
        return Drive.from_toml_str(text, set=overrides)
    return Drive.from_preset(preset or DEFAULT_PRESET, set=overrides)


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


@app.command()
def presets() -> None:
    """List the built-in drive presets."""
    t = Table("preset", "description")
    for name in list_presets():
        description = ""
        for line in read_preset(name).splitlines():
            if line.startswith("description"):
                description = line.partition("=")[2].strip().strip('"')
                break
        t.add_row(name, description)
    stdout.print(t)


@app.command()
def show(
    preset: Annotated[str, typer.Argument(help="Built-in preset name.")] = DEFAULT_PRESET,
    set_: SetOpt = None,
) -> None:
    """Print a drive's full parameter set as TOML that --drive FILE loads back."""
    # Plain print: the TOML must come out byte for byte, with no rich markup or wrapping.
    print(_drive(preset, None, set_).config_toml(), end="")


@app.command()
def run(
    preset: PresetOpt = None,
    drive_file: DriveOpt = None,
    set_: SetOpt = None,
    suite: Annotated[
        str, typer.Option(help=f"{', '.join(SUITES)} (cdm = CrystalDiskMark 8, fill = whole-drive fill).")
    ] = "cdm",
    test_size: Annotated[
        str | None, typer.Option(help="Test file size (default: 1g; 1000m for cdm6).")
    ] = None,
    runs: Annotated[int, typer.Option(help="Measured runs per test, after one warm-up.")] = 5,
    duration: Annotated[
        str | None, typer.Option(help="Simulated length of a run (cdm: 5s) or a round (snia-iops: 60s).")
    ] = None,
    interval: Annotated[str, typer.Option(help="Simulated idle time between tests.")] = "5s",
    seed: SeedOpt = 1,
    json_: JsonOpt = False,
    out: Annotated[Path, typer.Option(help="Folder the JSON and HTML report go into.")] = Path("results"),
    plot: Annotated[Path | None, typer.Option(help="fill: also draw the curve as a PNG.")] = None,
) -> None:
    """Run a benchmark suite (CrystalDiskMark, whole-drive fill, SNIA PTS IOPS steady state, the Starblaze
    database mix) and print its results, the published figures beside them where there are any, and the
    drive's internal counters; write the full result as JSON and an HTML report of it into --out."""
    if suite not in SUITES:
        raise workload_error("suite", f"unknown suite {suite!r}; use one of {', '.join(SUITES)}", suite)
    if plot is not None:
        require_matplotlib(suite)
    drive = _drive(preset, drive_file, set_)
    with _progress(not json_, f"{suite} on {drive.name}") as progress:
        res: CdmResult | FillResult | SniaIopsResult | DbmixResult
        if suite == "fill":
            res = run_fill(drive, progress=progress)
        elif suite == "dbmix":
            res = run_dbmix(drive, runtime=duration or "60s", seed=seed, progress=progress)
        elif suite == "snia-iops":
            res = run_snia_iops(drive, round_time=duration or "60s", seed=seed, progress=progress)
        else:
            res = run_cdm(
                drive,
                version=SUITES[suite],
                test_size=test_size,
                runs=runs,
                duration=duration or "5s",
                interval=interval,
                seed=seed,
                progress=progress,
            )
    created = datetime.now(UTC)
    doc = {"created_utc": created.isoformat(timespec="seconds"), **res.to_dict()}
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{drive.name}-{suite}-{created.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    html = write_report(res, path.with_suffix(".html"), created=created)
    if plot is not None and isinstance(res, FillResult):
        (stderr if json_ else stdout).print(f"wrote {res.plot(plot)}")
    if json_:
        print(json.dumps(doc, indent=2))
        stderr.print(f"wrote {path}")
        stderr.print(f"wrote {html}", markup=False, soft_wrap=True)
        return
    for table in res.tables():
        stdout.print(table)
    stdout.print(f"wrote {path}")
    stdout.print(f"wrote {html}", markup=False, soft_wrap=True)


@app.command()
def workload(
    preset: PresetOpt = None,
    drive_file: DriveOpt = None,
    set_: SetOpt = None,
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
    rate_iops: Annotated[int, typer.Option(help="IOs per second per job (0 = unlimited).")] = 0,
    thinktime: Annotated[str, typer.Option(help="Pause before each new IO (bare number = us).")] = "0",
    buffer_compress_percentage: Annotated[int, typer.Option(help="Compressible share of each buffer.")] = 0,
    interval: Annotated[str, typer.Option(help="Width of the per-interval series.")] = "100ms",
    seed: SeedOpt = 1,
    json_: JsonOpt = False,
) -> None:
    """Run one fio-style workload and print IOPS, MB/s, latency percentiles and the drive's counters."""
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
        rate_iops=rate_iops,
        thinktime=thinktime,
        buffer_compress_percentage=buffer_compress_percentage,
        seed=seed,
        interval=interval,
    )
    drive = _drive(preset, drive_file, set_)
    with _progress(not json_, f"{w.rw} on {drive.name}") as progress:
        res = drive.run(w, None if progress is None else (lambda f: progress(f, f"{w.rw} on {drive.name}")))
    if json_:
        print(json.dumps({**res.to_dict(), "config_toml": drive.config_toml()}, indent=2))
        return
    _print_result(res)


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
) -> None:
    """Run fio job files (or fio's command-line form) on a simulated drive and print fio's output."""
    from ssdlab.fio import JobFileError, format_normal, load_jobs, run_jobfile, to_json

    if output_format not in FIO_FORMATS:
        raise workload_error(
            "--output-format", f"{output_format!r} is not one of {', '.join(FIO_FORMATS)}", output_format
        )
    try:
        jobfile = load_jobs(jobs or [])
        drive = _drive(preset, drive_file, set_)
        with _progress(output is not None or output_format == "normal", f"fio on {drive.name}") as progress:
            step = None if progress is None else (lambda f: progress(f, f"fio on {drive.name}"))
            run_ = run_jobfile(drive, jobfile, step)
    except JobFileError as e:  # already "file:line: option: problem"
        print(f"error: {' '.join(str(e).split())}", file=sys.stderr)
        raise typer.Exit(2) from None
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


def _print_result(res: Result) -> None:
    w = res.workload
    title = f"{w.rw} bs={w.bs} Q{w.iodepth}T{w.numjobs} on {res.preset}"
    t = Table(title=f"{title} - seed {w.seed} - ssdlab {version()}")
    t.add_column("")
    for col in ("IOPS", "MB/s", "mean us", *(f"p{p:g} us" for p in REPORTED_PERCENTILES), "max us"):
        t.add_column(col, justify="right")
    for label, ios, mbps, lat in (
        ("read", res.read.iops, res.read.mbps, res.read.latency),
        ("write", res.write.iops, res.write.mbps, res.write.latency),
        ("total", res.iops, res.bandwidth_mbps, res.latency),
    ):
        if lat.count == 0 and label != "total":
            continue
        pcts = [f"{lat.percentile(p):,.1f}" for p in REPORTED_PERCENTILES]
        t.add_row(label, f"{ios:,.0f}", f"{mbps:,.2f}", f"{lat.mean_us:,.1f}", *pcts, f"{lat.max_us:,.1f}")
    stdout.print(t)
    title = f"Drive counters over the run ({res.elapsed_s:.3g} s measured)"
    stdout.print(counters_table(res.counters, title))


def _one_line(err: SsdlabError) -> str:
    """``<field>: <message>`` on one line, for any ssdlab error."""
    problems = getattr(err, "problems", None)
    if isinstance(err, ConfigError) and problems:
        parts = []
        for p in problems:
            path, message, value = p.get("path", ""), p.get("message", ""), p.get("value", "")
            text = f"{path or 'config'}: {message}"
            parts.append(text if not value or value in message else f"{text} (got {value})")
        return "; ".join(parts)
    text = " ".join(str(err.args[0] if err.args else err).split())
    field = getattr(err, "field", None)
    if field and not text.startswith(f"{field}:"):
        text = f"{field}: {text}"
    return text


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``ssdlab`` script: runs the app, turning user mistakes into one line and status 2.

    typer reports its own usage errors (unknown option, not an integer) and exits 2; everything the
    package raises for bad input is caught here so that no traceback reaches the user.
    """
    try:
        app(args=argv, prog_name="ssdlab")
    except SimulationError as e:
        print(f"error: simulation: {_one_line(e)}", file=sys.stderr)
        sys.exit(1)
    except SsdlabError as e:
        print(f"error: {_one_line(e)}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    main()
