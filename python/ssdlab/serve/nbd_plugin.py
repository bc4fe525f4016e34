"""nbdkit Python plugin: the twin as a block device (loaded by ``nbdkit python``; see :mod:`ssdlab.serve`).

nbdkit imports this file with its own embedded interpreter, so ``ssdlab`` is imported only once
``config`` has put the package's path (the ``path=`` key) on ``sys.path``. Keys: ``path``, ``preset`` or
``toml``, ``set`` (repeatable, PATH=VALUE), ``pace`` (``realtime`` or ``free``), ``capacity_gb``; or, in
place of the drive keys, ``state`` (an ``ssdlab nvme`` state file, read only) and ``namespace`` (its ID).

The export is a :class:`ssdlab.Drive`, or a namespace of the drive a state file holds, seen through
:class:`ssdlab.serve.NamespaceIO`, which offers the same calls in the namespace's bytes; the pacing below
is the same for both.

Every request becomes one command on the twin, with the twin's data store on:

* ``realtime``: simulated time follows wall time from the first request; a request is submitted at
  the simulated time it arrives and its reply held until wall time reaches its simulated completion
  (each request's thread sleeps once, to its own completion), so requests in flight together overlap
  in the twin as they would in a drive (nbdkit's parallel thread model).
* ``free``: replies as soon as the twin has computed them; the simulated clock moves only to each
  completion (requests overlap only when they arrive while the clock stands still).

Requests go to the twin in whole 512-byte sectors (a namespace's export: in whole LBAs of its format);
one that is not is widened to them, and a write of part of a sector reads it first. Within the twin a
write of part of a 4 KiB page is the drive's own read-modify-write (``rmw_reads``).
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
import threading
import time
from typing import Any

API_VERSION = 2
PAGE = 4096
SECTOR = 512

_keys: dict[str, list[str]] = {}
_state: dict[str, Any] = {}
_lock = threading.Lock()
_thread = threading.local()  # per nbdkit worker thread: whether its timer slack was set
PR_SET_TIMERSLACK = 29  # <linux/prctl.h>


def thread_model() -> int:
    import nbdkit  # type: ignore[import-not-found]  # provided by nbdkit's embedded interpreter

    return int(nbdkit.THREAD_MODEL_PARALLEL)


def config(key: str, value: str) -> None:
    _keys.setdefault(key, []).append(value)
    if key == "path":
        sys.path.insert(0, value)


def _export() -> Any:
    """What the keys ask to export: a drive, or a namespace of a state file's drive."""
    from pathlib import Path

    from ssdlab import Drive
    from ssdlab.nvme_cli import load_state
    from ssdlab.serve import NamespaceIO

    if "state" in _keys:
        return NamespaceIO(load_state(Path(_keys["state"][0])), int(_keys["namespace"][0]))
    sets = [s.split("=", 1) for s in _keys.get("set", [])]
    overrides = {k: v for k, v in sets}
    cap = _keys.get("capacity_gb")
    capacity_gb = float(cap[0]) if cap else None
    preset, toml = _keys.get("preset", [None])[0], _keys.get("toml", [None])[0]
    return Drive.open(preset, toml, set=overrides, capacity_gb=capacity_gb, data=True)


def config_complete() -> None:
    drive = _export()
    pace = _keys.get("pace", ["realtime"])[0]
    if pace not in ("realtime", "free"):
        raise ValueError(f"pace must be realtime or free, got {pace!r}")
    # the exit line reports this session: a state file's drive has a past
    _state.update(drive=drive, pace=pace, t0=None, done={}, served=0, served_ns=0)
    _state.update(before=drive.counters(), start_ns=drive.now_ns)


def open(readonly: bool) -> int:  # nbdkit's callback name
    return 1


def get_size(h: int) -> int:
    return int(_state["drive"].capacity_bytes)


def can_write(h: int) -> bool:
    return True


def can_flush(h: int) -> bool:
    return True


def can_trim(h: int) -> bool:
    return True


def can_fua(h: int) -> int:
    import nbdkit

    return int(nbdkit.FUA_NATIVE)


def can_multi_conn(h: int) -> bool:
    return True


def _command(op: str, offset: int, length: int, data: bytes | None = None, fua: bool = False) -> bytes | None:
    """Run one command on the twin; returns a read's data. Holds the reply to the pace."""
    drive = _state["drive"]
    realtime = _state["pace"] == "realtime"
    with _lock:
        if realtime:
            if _state["t0"] is None:
                _state["t0"] = time.monotonic_ns() - drive.now_ns
            _catch_up(drive, 0)  # submitted at the simulated time it arrived
        cid = drive.submit(op, offset, length, data=data, fua=fua)
        due = drive.completion_ns(cid)
    if realtime:
        # the twin computed the completion time at submission and nothing later moves it, so each request
        # sleeps once, to its own completion, with the lock (and the GIL) free for the others
        _sleep_until(_state["t0"] + due)
    with _lock:
        if realtime:
            _catch_up(drive, due)
        else:
            drive.advance(max(due, drive.now_ns))
        for c in drive.poll():
            _state["done"][c.id] = c.data
            _state["served"] += 1
            _state["served_ns"] += c.complete_ns - c.submit_ns
        reply: bytes | None = _state["done"].pop(cid)
        return reply


def _catch_up(drive: Any, at_least: int) -> None:
    """Move the twin's clock to wall time (never back), and to ``at_least``: a sleep that woke a few
    nanoseconds early still finds its completion."""
    now = max(time.monotonic_ns() - _state["t0"], at_least)
    if now > drive.now_ns:
        drive.advance(now)


def _sleep_until(wall_ns: int) -> None:
    if not getattr(_thread, "precise", False):
        # Linux lets a sleep overrun by the thread's timer slack, 50 us by default: as long as a fast
        # read takes in the twin. 1 us makes the replies leave on time (a no-op where prctl is missing).
        _thread.precise = True
        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None).prctl(PR_SET_TIMERSLACK, 1000, 0, 0, 0)
    wait = wall_ns - time.monotonic_ns()
    if wait > 0:
        time.sleep(wait / 1e9)


def _span(offset: int, count: int) -> tuple[int, int]:
    """The request widened to whole blocks of the export: the drive's 512-byte sectors, or the LBAs of
    the namespace it is."""
    unit = getattr(_state["drive"], "lba_bytes", SECTOR)
    start = offset - offset % unit
    end = -(-(offset + count) // unit) * unit
    return start, end - start


def pread(h: int, buf: Any, offset: int, flags: int) -> None:
    start, length = _span(offset, len(buf))
    data = _command("read", start, length)
    assert data is not None
    buf[:] = data[offset - start : offset - start + len(buf)]


def pwrite(h: int, buf: Any, offset: int, flags: int) -> None:
    import nbdkit

    start, length = _span(offset, len(buf))
    if (start, length) != (offset, len(buf)):
        old = _command("read", start, length)
        assert old is not None
        page = bytearray(old)
        page[offset - start : offset - start + len(buf)] = buf
        payload = bytes(page)
    else:
        payload = bytes(buf)
    _command("write", start, length, data=payload, fua=bool(flags & nbdkit.FLAG_FUA))


def flush(h: int, flags: int) -> None:
    _command("flush", 0, 0)


def trim(h: int, count: int, offset: int, flags: int) -> None:
    # only whole pages inside the range are deallocated (NBD trim is advisory)
    start = -(-offset // PAGE) * PAGE
    end = (offset + count) // PAGE * PAGE
    if end > start:
        _command("trim", start, end - start)


def zero(h: int, count: int, offset: int, flags: int) -> None:
    # zeros are written as data (the twin stores no page for them)
    pos, end = offset, offset + count
    while pos < end:
        n = min(end - pos, 32 << 20)
        pwrite(h, bytes(n), pos, 0)
        pos += n


def cleanup() -> None:
    drive = _state.get("drive")
    if drive is None:
        return
    from ssdlab.counters import delta, has_value
    from ssdlab.units import shown

    c = delta(_state["before"], drive.counters())
    simulated_s = (drive.now_ns - _state["start_ns"]) / 1e9
    # the twin's own mean latency: a client's measured latency less this is what the export added
    mean_us = _state["served_ns"] / max(1, _state["served"]) / 1e3
    served = _state["served"]
    waf = shown(c["waf"] if has_value(c, "waf") else None, ".2f")
    print(
        f"ssdlab serve: {drive.name}: host wrote {c['host_write_bytes'] / 1e9:.3f} GB, read "
        f"{c['host_read_bytes'] / 1e9:.3f} GB; WAF {waf}; simulated {simulated_s:.3f} s; "
        f"{served} command{'' if served == 1 else 's'}, {mean_us:.1f} us mean in the twin",
        file=sys.stderr,
    )
