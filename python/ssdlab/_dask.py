"""The dask.distributed client that ``ssdlab sweep`` and ``ssdlab calibrate`` run their points or trials on.

A client of a running scheduler (``--scheduler tcp://HOST:8786``; one that cannot be reached in 10 s, or at
once where nothing listens at a tcp:// address, is a :class:`ssdlab.ConfigError` naming ``--scheduler``), or
of a LocalCluster of single-threaded workers made for the command and closed after it:

- processes on loopback by default (the engine releases the GIL, but a worker's own Python, its event loop
  and each result's handling still need it); threads and dask's in-process transport on request;
- the workers' statistical profiler off: it samples each task's thread every 10 ms for a dashboard this
  cluster does not serve (two workers' own background work drops from ~6.5% to ~3.5% of a core);
- the scheduler's HTTP server (health, metrics) on a free port: 8787 may be another's, and a second
  cluster there failed to start;
- dask's own log lines only at ERROR, and one known message of distributed's kept off the terminal
  (:func:`is_sync_cancel_bug`).
"""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import urllib.parse
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ssdlab.errors import config_error

__all__ = ["client", "is_sync_cancel_bug"]


def is_sync_cancel_bug(record: logging.LogRecord) -> bool:
    """distributed's ``sync`` (2026.8) reacts to a Ctrl-C that lands before its future exists by scheduling
    a ``cancel`` that raises NameError on the event loop, which tornado logs with a traceback. The interrupt
    itself is handled; that record is only noise on the user's terminal."""
    if not record.exc_info or not isinstance(record.exc_info[1], NameError):
        return False
    tb = record.exc_info[2]
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    code = tb.tb_frame.f_code if tb is not None else None
    return code is not None and code.co_name == "cancel" and "distributed" in code.co_filename


@contextmanager
def client(workers: int | None, scheduler: str | None, processes: bool = True) -> Iterator[Any]:
    """A client of ``scheduler``, or of a LocalCluster of ``workers`` workers (default: one per CPU)."""
    tornado_log = logging.getLogger("tornado.application")
    keep = lambda record: not is_sync_cancel_bug(record)  # noqa: E731
    tornado_log.addFilter(keep)
    try:
        with _open(workers, scheduler, processes) as c:
            yield c
    finally:
        tornado_log.removeFilter(keep)


@contextmanager
def _open(workers: int | None, scheduler: str | None, processes: bool) -> Iterator[Any]:
    import dask
    from distributed import Client, LocalCluster

    if scheduler is not None:
        if refused := _refused(scheduler):
            raise config_error("--scheduler", f"cannot reach the dask scheduler: {refused}", scheduler)
        try:
            c = Client(scheduler, timeout="10s")  # type: ignore[no-untyped-call]
        except (OSError, TimeoutError, ValueError) as e:
            raise config_error("--scheduler", f"cannot reach the dask scheduler: {e}", scheduler) from None
        with c:
            yield c
        return
    # processes: loopback TCP; threads: dask's in-process transport
    where = {"host": "127.0.0.1"} if processes else {}
    with dask.config.set({"distributed.worker.profile.enabled": False}):  # the nannies pass it on
        with _sigint_ignored():
            cluster = LocalCluster(  # type: ignore[no-untyped-call]
                n_workers=workers or os.cpu_count() or 1,
                threads_per_worker=1,
                processes=processes,
                dashboard_address="127.0.0.1:0",
                # A trial's failure reaches the command as its future's exception; what a worker logs on
                # its own is teardown noise after a Ctrl-C (a heartbeat to a scheduler that has stopped)
                silence_logs=logging.CRITICAL,
                **where,
            )
        with cluster, Client(cluster) as c:  # type: ignore[no-untyped-call]
            yield c


def _refused(address: str) -> str | None:
    """Why nothing answers at a ``tcp://HOST:PORT`` scheduler address, when the host says so at once (its
    port refuses the connection), else None: distributed's client retries a refused connection until its
    10 s timeout. Any other address, or any other failure, is left to the client.

    Examples
    --------
    >>> with socket.socket() as s:  # a port just released: nothing listens there
    ...     s.bind(("127.0.0.1", 0))
    ...     port = s.getsockname()[1]
    >>> _refused(f"tcp://127.0.0.1:{port}") == f"nothing listens at 127.0.0.1:{port} (connection refused)"
    True
    >>> _refused("inproc://somewhere") is None
    True
    """
    try:
        url = urllib.parse.urlsplit(address)
        host, port = url.hostname, url.port
    except ValueError:
        return None
    if url.scheme != "tcp" or host is None or port is None:
        return None
    try:
        with socket.create_connection((host, port), timeout=2):
            return None
    except ConnectionRefusedError:
        return f"nothing listens at {host}:{port} (connection refused)"
    except OSError:
        return None


@contextmanager
def _sigint_ignored() -> Iterator[None]:
    """Worker processes started inside ignore Ctrl-C (a process inherits an ignored SIGINT and Python
    leaves it so). The terminal sends Ctrl-C to the whole process group: each worker it stopped printed
    its KeyboardInterrupt traceback, while the command itself stops the cluster and says "interrupted"."""
    if threading.current_thread() is not threading.main_thread():  # only the main thread sets handlers
        yield
        return
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
