"""``ssdlab serve``: the twin as a block device over NBD, through Debian's nbdkit and its Python plugin.

Real tools then use the twin as a disk: fio's ``nbd`` engine, ``qemu-img``/``nbdcopy``, a Linux guest.
Each request is a command on the twin with its data store on (what is written reads back); with
``pace="realtime"`` each reply leaves at the twin's simulated completion time. With a state file
(``ssdlab nvme ... --state``) the export is one namespace of the drive it holds, through
:class:`ssdlab.nvme.Controller` (:class:`NamespaceIO`); the file is read, never written.

Examples
--------
>>> cmd = nbdkit_command("bg4-1tb", ["ftl.user_capacity_gb=1"], socket="/tmp/twin.sock", pace="free")
>>> cmd[:3], cmd[-1]
(['nbdkit', '--foreground', '--exit-with-parent'], 'pace=free')

From the shell::

    ssdlab serve --preset bg4-1tb --set ftl.user_capacity_gb=4 --socket /tmp/twin.sock
    ssdlab serve --preset bg4-1tb --run 'fio --ioengine=nbd --uri=$uri --rw=randread --bs=4k --name=r'
    ssdlab serve --preset bg4-1tb --run 'fio job.fio'     # the job file says ioengine=nbd, uri=${uri}
    ssdlab serve --state d.json --namespace-id 2 --socket /tmp/ns2.sock
"""

from __future__ import annotations

import math
import shutil
import subprocess
import sys
from pathlib import Path

from ssdlab.counters import Counters
from ssdlab.drive import Completion
from ssdlab.errors import config_error
from ssdlab.nvme import SANITIZE_IN_PROGRESS, Controller
from ssdlab.presets import DEFAULT_PRESET

PLUGIN = Path(__file__).with_name("nbd_plugin.py")
PACES = ("realtime", "free")


def nbdkit_command(
    preset: str | None,
    overrides: list[str],
    *,
    toml: str | None = None,
    socket: str | None = None,
    port: int | None = None,
    pace: str = "realtime",
    capacity_gb: float | None = None,
    run: str | None = None,
    state: str | None = None,
    namespace: int | None = None,
) -> list[str]:
    """The nbdkit command line that exports the twin (``run``: captive mode, nbdkit runs the command
    with ``$uri``/``$unixsocket`` set and exits with it), or with ``state`` (a state file's path) namespace
    ``namespace`` of the drive it holds (``preset``, ``overrides``, ``toml`` and ``capacity_gb`` unused)."""
    if pace not in PACES:
        raise config_error("pace", f"must be one of {', '.join(PACES)}", pace)
    cmd = ["nbdkit", "--foreground", "--exit-with-parent"]
    if run is not None:
        # nbdkit sets $uri and $unixsocket as shell variables of the command; exported, a fio job file
        # run by it can say `uri=${uri}` (fio expands environment variables in job files)
        cmd += ["-U", "-", "--run", f"export uri unixsocket; {run}"]
    elif socket is not None:
        cmd += ["-U", socket]
    else:
        cmd += ["-p", str(port or 10809)]
    cmd += ["python", str(PLUGIN)]
    # nbdkit's embedded interpreter finds ssdlab and its dependencies where this one does
    cmd += [f"path={p}" for p in sys.path if p and Path(p).is_dir()]
    if state is not None:
        cmd += [f"state={state}", f"namespace={namespace}"]
    else:
        cmd += [f"toml={toml}"] if toml else [f"preset={preset or DEFAULT_PRESET}"]
        cmd += [f"set={o}" for o in overrides]
        if capacity_gb is not None:
            cmd += [f"capacity_gb={capacity_gb}"]
    return [*cmd, f"pace={pace}"]


def export_namespace(nvme: Controller, nsid: int | None, state: object) -> int:
    """The namespace to export: ``nsid``, which must exist and be attached, or the first attached one.
    Errors name ``--namespace-id``, or ``--state`` (value ``state``) when no namespace is attached or a
    sanitize is still running (every command would fail until it ends, and with free pacing it never
    would: the clock moves only with the commands)."""
    log = nvme.sanitize_log()
    if log["sstat"] == SANITIZE_IN_PROGRESS:
        wait_s = math.ceil((log["end_ns"] - nvme.drive.now_ns) / 1e6) / 1e3  # whole ms, rounded up
        raise config_error(
            "--state",
            f"a {log['action']} sanitize runs for {wait_s:g} s more of simulated time: let it end first "
            f"(ssdlab nvme idle --state FILE --seconds {wait_s:g})",
            state,
        )
    attached = sorted(n for n, ns in nvme.namespaces.items() if ns.attached)
    if nsid is None:
        if not attached:
            raise config_error(
                "--state", "the drive has no attached namespace (ssdlab nvme attach-ns attaches one)", state
            )
        return attached[0]
    if nsid not in nvme.namespaces:
        there = ", ".join(map(str, sorted(nvme.namespaces))) or "none"
        raise config_error("--namespace-id", f"no such namespace (there are: {there})", nsid)
    if nsid not in attached:
        raise config_error(
            "--namespace-id", f"namespace {nsid} is not attached (ssdlab nvme attach-ns attaches it)", nsid
        )
    return nsid


class NamespaceIO:
    """One namespace of a controller, with the calls the plugin makes on a :class:`ssdlab.Drive`
    (``submit``, ``completion_ns``, ``advance``, ``poll``, ``now_ns``, ``capacity_bytes``, ``counters``,
    ``name``) in the namespace's bytes: an offset and a length become LBAs of the namespace and the
    command goes through the controller (its range checks, its media key). Offsets and lengths must be
    whole LBAs (``lba_bytes``): the plugin widens requests to them.

    Examples
    --------
    >>> import ssdlab
    >>> nvme = Controller(ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 1}, data=True))
    >>> nvme.delete_namespace(1)
    >>> nvme.attach_namespace(nvme.create_namespace(nsze=2048, lba_bytes=512))
    >>> nvme.attach_namespace(nvme.create_namespace(nsze=256))
    >>> io = NamespaceIO(nvme, 2)
    >>> io.name, io.capacity_bytes
    ('bg4-1tb namespace 2', 1048576)
    >>> cid = io.submit("write", 4096, 4096, data=b"x" * 4096)
    >>> _ = io.advance(io.completion_ns(cid)); _ = io.poll()
    >>> nvme.read(2, 1, 1) == b"x" * 4096, nvme.read(1, 0, 2048) == bytes(1 << 20)
    (True, True)
    """

    def __init__(self, nvme: Controller, nsid: int) -> None:
        ns = nvme.namespaces[nsid]
        self.nvme, self.nsid, self.lba_bytes = nvme, nsid, ns.lba_bytes
        self.capacity_bytes = ns.size_bytes
        self.name = f"{nvme.drive.name} namespace {nsid}"

    @property
    def now_ns(self) -> int:
        return self.nvme.drive.now_ns

    def submit(
        self, op: str, offset: int, length: int, *, data: bytes | None = None, fua: bool = False
    ) -> int:
        lba = self.lba_bytes
        return self.nvme.submit(self.nsid, op, offset // lba, length // lba, data=data, fua=fua)

    def completion_ns(self, cid: int) -> int | None:
        return self.nvme.drive.completion_ns(cid)

    def advance(self, until_ns: int) -> int:
        return self.nvme.drive.advance(until_ns)

    def poll(self) -> list[Completion]:
        return self.nvme.poll()

    def counters(self) -> Counters:
        return self.nvme.drive.counters()


def serve(cmd: list[str]) -> int:
    """Run nbdkit (until interrupted, or until the captive command ends); returns its exit status."""
    if shutil.which("nbdkit") is None:
        raise config_error(
            "serve", "needs nbdkit and its Python plugin (make sysdeps installs them)", "nbdkit not found"
        )
    try:
        return subprocess.run(cmd, check=False).returncode
    except KeyboardInterrupt:
        return 130
