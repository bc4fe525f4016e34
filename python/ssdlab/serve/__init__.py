"""``ssdlab serve``: the twin as a block device over NBD, through Debian's nbdkit and its Python plugin.

Real tools then use the twin as a disk: fio's ``nbd`` engine, ``qemu-img``/``nbdcopy``, a Linux guest.
Each request is a command on the twin with its data store on (what is written reads back); with
``pace="realtime"`` each reply leaves at the twin's simulated completion time.

Examples
--------
>>> cmd = nbdkit_command("bg4-1tb", ["ftl.user_capacity_gb=1"], socket="/tmp/twin.sock", pace="free")
>>> cmd[:3], cmd[-1]
(['nbdkit', '--foreground', '--exit-with-parent'], 'pace=free')

From the shell::

    ssdlab serve --preset bg4-1tb --set ftl.user_capacity_gb=4 --socket /tmp/twin.sock
    ssdlab serve --preset bg4-1tb --run 'fio --ioengine=nbd --uri=$uri --rw=randread --bs=4k --name=r'
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from ssdlab.errors import config_error

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
) -> list[str]:
    """The nbdkit command line that exports the twin (``run``: captive mode, nbdkit runs the command
    with ``$uri``/``$unixsocket`` set and exits with it)."""
    if pace not in PACES:
        raise config_error("pace", f"must be one of {', '.join(PACES)}", pace)
    cmd = ["nbdkit", "--foreground", "--exit-with-parent"]
    if run is not None:
        cmd += ["-U", "-", "--run", run]
    elif socket is not None:
        cmd += ["-U", socket]
    else:
        cmd += ["-p", str(port or 10809)]
    cmd += ["python", str(PLUGIN)]
    # nbdkit's embedded interpreter finds ssdlab and its dependencies where this one does
    cmd += [f"path={p}" for p in sys.path if p and Path(p).is_dir()]
    cmd += [f"toml={toml}"] if toml else [f"preset={preset or 'bg4-1tb'}"]
    cmd += [f"set={o}" for o in overrides]
    if capacity_gb is not None:
        cmd += [f"capacity_gb={capacity_gb}"]
    return [*cmd, f"pace={pace}"]


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
