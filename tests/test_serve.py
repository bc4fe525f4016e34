"""`ssdlab serve`: the twin as an NBD block device that unmodified tools use as a disk. Real fio (nbd
engine) verifies what it wrote, qemu-img copies an image on and off it byte for byte, and with realtime
pacing no reply leaves before the twin's simulated completion."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import ssdlab

SSDLAB = [str(Path(sys.executable).with_name("ssdlab"))]
SMALL = ["--preset", "bg4-1tb", "--set", "ftl.user_capacity_gb=1"]


def serve(
    pace: str, run: str, timeout: float = 300, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    # `cwd`: where the captive command runs, so that whatever it leaves behind (fio's verify state) lands
    # in the test's tmp dir, never in the repository
    return subprocess.run(
        [*SSDLAB, "serve", *SMALL, "--pace", pace, "--run", run],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def fio_jobs(stdout: str) -> list[dict[str, object]]:
    # fio prints "connected to NBD server" lines before its JSON
    doc: dict[str, list[dict[str, object]]] = json.loads(stdout[stdout.index("{") :])
    return doc["jobs"]


def test_fio_writes_through_the_export_and_verifies_every_block(tmp_path: Path) -> None:
    # verify_state_save=0: fio would otherwise write local-v-0-verify.state into its working directory
    job = (
        'fio --ioengine=nbd --uri="$uri" --name=v --rw=randwrite --bs=4k --iodepth=8 --size=32m '
        "--verify=crc32c --verify_fatal=1 --verify_state_save=0 --output-format=json"
    )
    p = serve("free", job, cwd=tmp_path)
    assert not list(tmp_path.glob("*verify.state")), "fio left its verify state behind"
    assert p.returncode == 0, p.stderr[-2000:]
    (j,) = fio_jobs(p.stdout)
    assert j["error"] == 0
    write, read = j["write"], j["read"]
    assert isinstance(write, dict) and isinstance(read, dict)
    assert write["io_bytes"] == read["io_bytes"] == 32 << 20, "every block written was read back and checked"
    assert "ssdlab serve: bg4-1tb" in p.stderr and "WAF" in p.stderr, "the twin's counters at exit"


def test_an_image_copied_onto_the_twin_reads_back_identical(tmp_path: Path) -> None:
    image, back = tmp_path / "image.raw", tmp_path / "back.raw"
    image.write_bytes(os.urandom(8 << 20) + bytes(4 << 20) + os.urandom(3 << 20 | 512))
    size = image.stat().st_size
    run = (
        f'qemu-img convert -n -f raw -O raw {image} "$uri" && '
        f'qemu-img convert -f raw -O raw "$uri" {back}.full && head -c {size} {back}.full > {back}'
    )
    p = serve("free", run)
    assert p.returncode == 0, p.stderr[-2000:]
    assert back.read_bytes() == image.read_bytes()


def test_realtime_replies_are_never_earlier_than_the_twins_completions() -> None:
    job = (
        'fio --ioengine=nbd --uri="$uri" --output-format=json --name=fill --rw=write --bs=1m --size=128m '
        "--stonewall --name=r --rw=randread --bs=4k --iodepth=1 --size=128m --runtime=1 --time_based"
    )
    p = serve("realtime", job)
    assert p.returncode == 0, p.stderr[-2000:]
    read = fio_jobs(p.stdout)[1]["read"]
    assert isinstance(read, dict)
    served_us = read["clat_ns"]["mean"] / 1e3
    twin = ssdlab.Drive.from_preset("bg4-1tb", set={"ftl.user_capacity_gb": 1})
    twin.run(ssdlab.Workload(rw="write", bs="1m", size="128m"))
    r = twin.run(ssdlab.Workload(rw="randread", bs="4k", iodepth=1, size="128m", runtime="1s"))
    assert served_us >= r.latency.mean_us, (served_us, r.latency.mean_us)


def test_bad_parameters_exit_2_before_nbdkit_starts() -> None:
    p = subprocess.run(
        [*SSDLAB, "serve", "--preset", "bg4-1tb", "--set", "nand.channels=0", "--run", "true"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 2 and "nand.channels" in p.stderr
    p = subprocess.run([*SSDLAB, "serve", "--pace", "warp", "--run", "true"], capture_output=True, text=True)
    assert p.returncode == 2 and "pace" in p.stderr


@pytest.mark.parametrize("pace", ["free", "realtime"])
def test_the_plugin_file_is_what_nbdkit_is_given(pace: str) -> None:
    from ssdlab.serve import PLUGIN, nbdkit_command

    cmd = nbdkit_command("bg4-1tb", [], socket="/tmp/x.sock", pace=pace)
    assert str(PLUGIN) in cmd and cmd[-1] == f"pace={pace}" and PLUGIN.is_file()
