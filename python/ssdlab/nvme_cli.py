"""``ssdlab nvme ...``: the NVMe admin and IO commands of :class:`ssdlab.nvme.Controller` from the shell,
named and shaped like nvme-cli's (``id-ctrl``, ``id-ns``, ``smart-log``, ``error-log``, ``sanitize``,
``get-feature``, ``set-feature``, ...).

A drive's state lives in a **state file** (``--state PATH``, JSON): the drive it was made from (preset or
TOML file, ``--set`` overrides, scaling) and every command that changed it, in order, failed ones too (a
real drive's error log keeps them). Loading it builds the drive and plays the commands again; the twin is
deterministic, so that gives the same state, at the cost of simulating them again (no engine snapshot is
written). Without ``--state`` each command runs on a fresh drive made from ``--preset``/``--drive``/``--set``.
The drive keeps data (reads return what was written), so ``read`` shows it and a sanitize can be checked.

Bad input (an unknown namespace, an LBA past a namespace's end, an unknown feature or field, a bad state
file) prints ``error: <option>: <message> (got <value>)`` and exits 2, like every ``ssdlab`` command.

Examples
--------
Shell usage::

    ssdlab nvme id-ctrl --preset bg4-128gb
    ssdlab nvme delete-ns --state d.json --preset bg4-1tb --set ftl.user_capacity_gb=1 --namespace-id 1
    ssdlab nvme create-ns --state d.json --nsze 2048 --lba-bytes 512
    ssdlab nvme attach-ns --state d.json --namespace-id 1
    ssdlab nvme write --state d.json --namespace-id 1 --start-block 0 --block-count 8 --pattern 0x5a
    ssdlab nvme sanitize --state d.json --action overwrite
    ssdlab nvme read --state d.json --namespace-id 1 --start-block 0 --block-count 8
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from ssdlab._cli_options import DriveOpt, JsonOpt, PresetOpt, ScaleOpt, SetOpt, open_drive
from ssdlab.errors import ConfigError, InputError, config_error
from ssdlab.nvme import FEATURES, SANITIZE_ACTIONS, CommandError, Controller

__all__ = ["load_state", "nvme_app"]

#: The longest ``idle`` (about 31 years): simulated time is integer nanoseconds in 64 bits.
MAX_IDLE_S = 1e9

nvme_app = typer.Typer(
    name="nvme",
    help="NVMe admin and IO commands against a twin (nvme-cli's names); --state keeps a drive between them.",
    no_args_is_help=True,
)

#: The Controller's parameter names as the options that give them (errors name what the user typed).
OPTION_OF = {
    "nsid": "--namespace-id",
    "slba": "--start-block",
    "nlb": "--block-count",
    "nsze": "--nsze",
    "lba_bytes": "--lba-bytes",
    "action": "--action",
    "passes": "--passes",
    "no_deallocate": "--no-deallocate",
    "feature": "--feature",
    "capacity_gb": "--scale-capacity-gb",
    "preset": "--preset",
    "fields": "--value",
}

#: Fields of the features, given with --value FIELD=N.
FEATURE_FIELDS = {"ps", "wce", "apste", "ehm", "hsize_4kib"}

STATE_VERSION = 1

StateOpt = Annotated[
    Path | None,
    typer.Option(
        "--state", help="State file: made with the drive options the first time, then the drive it holds."
    ),
]
NsidOpt = Annotated[int, typer.Option("--namespace-id", "-n", help="Namespace ID.")]


def _named(err: InputError) -> InputError:
    """``err`` with each problem's path as the option the user typed."""
    problems = [
        replace(p, path="--value", message=f"{p.path}: {p.message}")
        if p.path in FEATURE_FIELDS
        else replace(p, path=OPTION_OF.get(p.path, p.path))
        for p in err.errors()
    ]
    if isinstance(err, CommandError):
        named = CommandError(err.status, problems[0].path, problems[0].message, problems[0].value)
        return named
    return type(err)(problems)


class _Session:
    """A controller and, with a state file, the recipe and commands that rebuild it."""

    def __init__(self, nvme: Controller, recipe: dict[str, Any], path: Path | None) -> None:
        self.nvme, self.recipe, self.path = nvme, recipe, path

    def record(self, command: str, args: dict[str, Any]) -> None:
        if self.path is not None:
            self.recipe["commands"].append([command, args])
            _save(self.path, self.recipe)


def _save(state: Path, recipe: dict[str, Any]) -> None:
    try:
        state.write_text(json.dumps(recipe, indent=1) + "\n", encoding="utf-8")
    except OSError as e:
        raise config_error("--state", f"cannot write the state file: {e.strerror or e}", state) from None


def _build(recipe: dict[str, Any]) -> Controller:
    drive_file = recipe.get("drive_file")
    try:
        drive = open_drive(
            recipe.get("preset"),
            Path(drive_file) if drive_file else None,
            recipe.get("set") or [],
            recipe.get("scale_capacity_gb"),
            data=True,
        )
    except ConfigError as e:
        raise _named(e) from None
    return Controller(drive)


def _load(state: Path) -> tuple[Controller, dict[str, Any]]:
    """The controller a state file holds (its drive made, its commands played again) and its recipe."""
    try:
        recipe = json.loads(state.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise config_error("--state", f"cannot read the state file: {e}", state) from None
    if not isinstance(recipe, dict) or recipe.get("version") != STATE_VERSION:
        raise config_error("--state", f"not an ssdlab nvme state file (version {STATE_VERSION})", state)
    nvme = _build(recipe)
    for command, args in recipe.get("commands", []):
        try:
            COMMANDS[command](nvme, **args)
        except InputError:
            pass  # it failed the first time too: its error log entry is made again
    return nvme, recipe


def load_state(state: Path) -> Controller:
    """The controller a state file holds, read and never written (``ssdlab serve --state``); a missing or
    bad file is a :class:`ssdlab.ConfigError` naming ``--state``."""
    if not state.is_file():
        raise config_error("--state", "no such state file (ssdlab nvme ... --state FILE makes one)", state)
    return _load(state)[0]


def _session(
    state: Path | None,
    preset: str | None,
    drive_file: Path | None,
    sets: list[str] | None,
    scale: float | None,
) -> _Session:
    given = preset is not None or drive_file is not None or sets or scale is not None
    if state is not None and state.exists():
        if given:
            raise config_error(
                "--state",
                f"{state} already holds a drive: drop --preset/--drive/--set/--scale-capacity-gb",
                state,
            )
        nvme, recipe = _load(state)
        return _Session(nvme, recipe, state)
    recipe = {
        "version": STATE_VERSION,
        "preset": preset,
        "drive_file": str(drive_file.resolve()) if drive_file else None,
        "set": list(sets or []),
        "scale_capacity_gb": scale,
        "commands": [],
    }
    session = _Session(_build(recipe), recipe, state)
    if state is not None:  # the drive exists from now on, whatever the command does
        _save(state, recipe)
    return session


# Each command: (controller, **args) -> what to print. The state-changing ones are recorded.


def _write(nvme: Controller, nsid: int, slba: int, nlb: int, pattern: int) -> dict[str, Any]:
    ns = nvme.namespaces.get(nsid)
    size = nlb * (ns.lba_bytes if ns else 4096)
    c = nvme.write(nsid, slba, bytes([pattern]) * size)
    return {"nsid": nsid, "slba": slba, "nlb": nlb, "latency_us": c.latency_us, "now_ns": nvme.drive.now_ns}


def _sanitize(nvme: Controller, action: str, passes: int, no_deallocate: bool, wait: bool) -> dict[str, Any]:
    start = nvme.drive.now_ns
    end = nvme.sanitize(action, passes=passes, no_deallocate=no_deallocate)
    if wait:
        nvme.drive.advance(end)
    return {**nvme.sanitize_log(), "simulated_s": (end - start) / 1e9}


def _read(nvme: Controller, nsid: int, slba: int, nlb: int) -> dict[str, Any]:
    data = nvme.read(nsid, slba, nlb)
    return {
        "bytes": len(data),
        "all_zeros": not any(data),
        "first_16": data[:16].hex(),
        "sha256": hashlib.sha256(data).hexdigest(),
    }


def _idle(nvme: Controller, ns: int) -> dict[str, Any]:
    nvme.drive.advance(nvme.drive.now_ns + ns)
    return {"now_ns": nvme.drive.now_ns, **nvme.sanitize_log()}


COMMANDS: dict[str, Callable[..., Any]] = {
    "create-ns": lambda nvme, nsze, lba_bytes: {"nsid": nvme.create_namespace(nsze, lba_bytes)},
    "delete-ns": lambda nvme, nsid: nvme.delete_namespace(nsid),
    "attach-ns": lambda nvme, nsid: nvme.attach_namespace(nsid),
    "detach-ns": lambda nvme, nsid: nvme.detach_namespace(nsid),
    "format": lambda nvme, nsid, lba_bytes, crypto_erase: nvme.format_namespace(
        nsid, lba_bytes, crypto_erase
    ),
    "write": _write,
    "read": _read,
    "sanitize": _sanitize,
    "set-feature": lambda nvme, feature, fields: nvme.set_feature(feature, **fields),
    "idle": _idle,
}


def _emit(doc: Any, as_json: bool) -> None:
    if as_json:
        print(json.dumps(doc, indent=2, default=str))
        return
    if isinstance(doc, list):
        for i, entry in enumerate(doc):
            print(f"entry {i}:")
            for k, v in entry.items():
                print(f"  {k:<26}: {v}")
        if not doc:
            print("no entries")
        return
    if isinstance(doc, dict):
        for k, v in doc.items():
            print(f"{k:<28}: {v}")
    elif doc is not None:
        print(doc)


def _run(
    command: str,
    args: dict[str, Any],
    state: Path | None,
    drive_opts: tuple[str | None, Path | None, list[str] | None, float | None],
    as_json: bool,
    show: Callable[[Controller], Any] | None = None,
) -> None:
    """Load the drive, run ``command`` (a state-changing one is recorded, even when it fails) or ``show``,
    print what it returns."""
    session = _session(state, *drive_opts)
    try:
        if show is not None:
            out = show(session.nvme)
        else:
            out = COMMANDS[command](session.nvme, **args)
            session.record(command, args)
    except CommandError as e:
        if show is None:
            session.record(command, args)  # a failed command is in the drive's error log from now on
        raise _named(e) from None
    except InputError as e:
        raise _named(e) from None
    _emit(out, as_json)


# --- the commands ----------------------------------------------------------------------------------------


#: The commands that only show something: (name, help, what they show of the controller).
SHOW_COMMANDS: tuple[tuple[str, str, Callable[[Controller], Any]], ...] = (
    ("id-ctrl", "Identify Controller.", lambda n: n.identify_controller()),
    (
        "list-ns",
        "Every namespace: its ID, size in LBAs, LBA size, where it starts and whether it is attached.",
        lambda n: [n.identify_namespace(i) for i in sorted(n.namespaces)],
    ),
    ("smart-log", "SMART / Health Information log page (02h).", lambda n: n.smart_log()),
    (
        "error-log",
        "Error Information log page (01h): the failed commands, newest first.",
        lambda n: n.error_log(),
    ),
    ("fw-log", "Firmware Slot Information log page (03h).", lambda n: n.firmware_slot_info()),
    (
        "sanitize-log",
        "Sanitize Status log page (81h): progress and status of the latest sanitize.",
        lambda n: n.sanitize_log(),
    ),
)


def _show_command(name: str, help_text: str, show: Callable[[Controller], Any]) -> None:
    """Register ``ssdlab nvme NAME``: the drive options, --json, and what ``show`` returns printed."""

    def command(
        state: StateOpt = None,
        preset: PresetOpt = None,
        drive_file: DriveOpt = None,
        set_: SetOpt = None,
        scale_capacity_gb: ScaleOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        _run("", {}, state, (preset, drive_file, set_, scale_capacity_gb), as_json, show)

    nvme_app.command(name, help=help_text)(command)


for _spec in SHOW_COMMANDS:
    _show_command(*_spec)


@nvme_app.command("id-ns")
def id_ns(
    nsid: NsidOpt = 1,
    state: StateOpt = None,
    preset: PresetOpt = None,
    drive_file: DriveOpt = None,
    set_: SetOpt = None,
    scale_capacity_gb: ScaleOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Identify Namespace."""
    opts = (preset, drive_file, set_, scale_capacity_gb)
    _run("", {}, state, opts, as_json, lambda n: n.identify_namespace(nsid))


@nvme_app.command("telemetry")
def telemetry(
    state: StateOpt = None,
    preset: PresetOpt = None,
    drive_file: DriveOpt = None,
    set_: SetOpt = None,
    scale_capacity_gb: ScaleOpt = None,
) -> None:
    """Telemetry Host-Initiated log page (07h), as JSON: every counter, the SMART log, the clock."""
    _run("", {}, state, (preset, drive_file, set_, scale_capacity_gb), True, lambda n: n.telemetry_host())


@nvme_app.command("get-feature")
def get_feature(
    feature: Annotated[str, typer.Option("--feature", "-f", help=f"One of {', '.join(FEATURES)}.")],
    state: StateOpt = None,
    preset: PresetOpt = None,
    drive_file: DriveOpt = None,
    set_: SetOpt = None,
    scale_capacity_gb: ScaleOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Get Features."""
    opts = (preset, drive_file, set_, scale_capacity_gb)
    _run("", {}, state, opts, as_json, lambda n: n.get_feature(feature))


@nvme_app.command("set-feature")
def set_feature(
    feature: Annotated[str, typer.Option("--feature", "-f", help=f"One of {', '.join(FEATURES)}.")],
    value: Annotated[list[str], typer.Option("--value", "-v", help="FIELD=N, e.g. wce=0 (repeatable).")],
    state: StateOpt = None,
    preset: PresetOpt = None,
    drive_file: DriveOpt = None,
    set_: SetOpt = None,
    scale_capacity_gb: ScaleOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Set Features (power-management ps=N, volatile-write-cache wce=0|1, apst apste=0|1, hmb ehm=0|1
    hsize_4kib=N)."""
    fields: dict[str, int] = {}
    for item in value:
        name, sep, text = item.partition("=")
        try:
            fields[name.strip()] = int(text, 0)
        except ValueError:
            sep = ""
        if not sep or not name.strip():
            raise CommandError(
                "Invalid Field in Command", "--value", "must be FIELD=N with N a whole number", item
            )
    args = {"feature": feature, "fields": fields}
    _run("set-feature", args, state, (preset, drive_file, set_, scale_capacity_gb), as_json)


@nvme_app.command("create-ns")
def create_ns(
    nsze: Annotated[int, typer.Option("--nsze", help="Size in LBAs.")],
    lba_bytes: Annotated[int, typer.Option("--lba-bytes", help="LBA size: 512 or 4096.")] = 4096,
    state: StateOpt = None,
    preset: PresetOpt = None,
    drive_file: DriveOpt = None,
    set_: SetOpt = None,
    scale_capacity_gb: ScaleOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Namespace Management, create (not attached yet)."""
    args = {"nsze": nsze, "lba_bytes": lba_bytes}
    _run("create-ns", args, state, (preset, drive_file, set_, scale_capacity_gb), as_json)


#: The Namespace Management and Attachment commands that take only a namespace ID: (name, help).
NSID_COMMANDS: tuple[tuple[str, str], ...] = (
    ("delete-ns", "Namespace Management, delete (its range is deallocated)."),
    ("attach-ns", "Namespace Attachment, attach."),
    ("detach-ns", "Namespace Attachment, detach."),
)


def _nsid_command(name: str, help_text: str) -> None:
    """Register ``ssdlab nvme NAME -n NSID``: the drive options, --json, and command ``name`` run on NSID."""

    def command(
        nsid: NsidOpt,
        state: StateOpt = None,
        preset: PresetOpt = None,
        drive_file: DriveOpt = None,
        set_: SetOpt = None,
        scale_capacity_gb: ScaleOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        _run(name, {"nsid": nsid}, state, (preset, drive_file, set_, scale_capacity_gb), as_json)

    nvme_app.command(name, help=help_text)(command)


for _name, _help in NSID_COMMANDS:
    _nsid_command(_name, _help)


@nvme_app.command("format")
def format_ns(
    nsid: NsidOpt,
    lba_bytes: Annotated[int | None, typer.Option("--lba-bytes", help="New LBA size: 512 or 4096.")] = None,
    crypto_erase: Annotated[
        bool, typer.Option("--crypto-erase", help="Secure erase: a new media key.")
    ] = False,
    state: StateOpt = None,
    preset: PresetOpt = None,
    drive_file: DriveOpt = None,
    set_: SetOpt = None,
    scale_capacity_gb: ScaleOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Format NVM: deallocate the namespace, optionally with a new LBA size and a new media key."""
    args = {"nsid": nsid, "lba_bytes": lba_bytes, "crypto_erase": crypto_erase}
    _run("format", args, state, (preset, drive_file, set_, scale_capacity_gb), as_json)


@nvme_app.command("write")
def write(
    nsid: NsidOpt,
    slba: Annotated[int, typer.Option("--start-block", help="First LBA.")],
    nlb: Annotated[int, typer.Option("--block-count", "-c", help="LBAs to write.")],
    pattern: Annotated[str, typer.Option("--pattern", help="Byte every LBA is filled with.")] = "0xa5",
    state: StateOpt = None,
    preset: PresetOpt = None,
    drive_file: DriveOpt = None,
    set_: SetOpt = None,
    scale_capacity_gb: ScaleOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Write LBAs filled with one byte and wait for the completion."""
    try:
        byte = int(pattern, 0)
    except ValueError:
        byte = -1
    if not 0 <= byte <= 255:
        raise CommandError(
            "Invalid Field in Command", "--pattern", "must be a byte, 0..255 (e.g. 0x5a)", pattern
        )
    args = {"nsid": nsid, "slba": slba, "nlb": nlb, "pattern": byte}
    _run("write", args, state, (preset, drive_file, set_, scale_capacity_gb), as_json)


@nvme_app.command("read")
def read(
    nsid: NsidOpt,
    slba: Annotated[int, typer.Option("--start-block", help="First LBA.")],
    nlb: Annotated[int, typer.Option("--block-count", "-c", help="LBAs to read.")],
    state: StateOpt = None,
    preset: PresetOpt = None,
    drive_file: DriveOpt = None,
    set_: SetOpt = None,
    scale_capacity_gb: ScaleOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Read LBAs and show what came back: its first bytes, whether it is all zeros, its SHA-256."""
    args = {"nsid": nsid, "slba": slba, "nlb": nlb}
    _run("read", args, state, (preset, drive_file, set_, scale_capacity_gb), as_json)


@nvme_app.command("sanitize")
def sanitize(
    action: Annotated[str, typer.Option("--action", "-a", help=f"One of {', '.join(SANITIZE_ACTIONS)}.")],
    passes: Annotated[int, typer.Option("--passes", help="Overwrite passes, 1..16.")] = 1,
    no_deallocate: Annotated[
        bool, typer.Option("--no-deallocate", help="Crypto erase: leave the data mapped (it reads garbage).")
    ] = False,
    wait: Annotated[
        bool, typer.Option("--wait/--no-wait", help="Move the clock to the sanitize's end (default).")
    ] = True,
    state: StateOpt = None,
    preset: PresetOpt = None,
    drive_file: DriveOpt = None,
    set_: SetOpt = None,
    scale_capacity_gb: ScaleOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Sanitize the whole drive; prints the Sanitize Status log and the simulated time it took."""
    args = {"action": action, "passes": passes, "no_deallocate": no_deallocate, "wait": wait}
    _run("sanitize", args, state, (preset, drive_file, set_, scale_capacity_gb), as_json)


@nvme_app.command("idle")
def idle(
    seconds: Annotated[float, typer.Option("--seconds", help="Simulated seconds to let pass.")],
    state: StateOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Let simulated time pass (a sanitize started with --no-wait goes on)."""
    if not 0 <= seconds <= MAX_IDLE_S:
        raise CommandError(
            "Invalid Field in Command",
            "--seconds",
            f"must be a number of seconds from 0 to {MAX_IDLE_S:g}",
            seconds,
        )
    _run("idle", {"ns": int(seconds * 1e9)}, state, (None, None, None, None), as_json)
