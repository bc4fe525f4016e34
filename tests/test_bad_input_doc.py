"""docs/bad-input.md is true: each example command in its tables prints the message shown there (its first
line, up to a ``…``) and exits 2."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs" / "bad-input.md"
SSDLAB = Path(sys.executable).parent / "ssdlab"

#: The files the doc's examples use, as it describes them.
FIXTURES = {
    "bad-syntax.toml": 'base = "bg4-1tb"\n[nand\n',
    "bad-type.toml": 'base = "bg4-1tb"\n[nand]\nchannels = "4"\n',
    "typo.toml": 'base = "bg4-1tb"\n[nand]\ntR_uss = [60.0]\n',
    "not-utf8.toml": b"\xff\xfe",
    "no-base.toml": "[nand]\ntR_us = [50.0]\n",
    "bad-op.csv": "time_us,op,offset,length\n0,write,0,4096\n5,fly,0,4096\n",
    "bad-bs.fio": "[j]\nrw=randread\nbs=4q\n",
    "bad-opt.fio": "[j]\nrw=randread\nfrobnicate=1\n",
    "not-a-result.json": '{"suite": "tetris"}',
    "detached.json": json.dumps(
        {
            "version": 1,
            "preset": "bg4-1tb",
            "drive_file": None,
            "set": ["ftl.user_capacity_gb=1"],
            "scale_capacity_gb": None,
            "commands": [["detach-ns", {"nsid": 1}]],
        }
    ),
    "sanitizing.json": json.dumps(
        {
            "version": 1,
            "preset": "bg4-1tb",
            "drive_file": None,
            "set": ["ftl.user_capacity_gb=1"],
            "scale_capacity_gb": None,
            "commands": [
                ["write", {"nsid": 1, "slba": 0, "nlb": 256, "pattern": 0xA5}],
                ["sanitize", {"action": "block-erase", "passes": 1, "no_deallocate": False, "wait": False}],
            ],
        }
    ),
}

# a code span: ``...`` (which may hold a backtick) or `...`
SPAN = re.compile(r"``\s?(.+?)\s?``|`([^`]+)`")


def rows() -> list[tuple[str, str]]:
    """(command, message) of every table row that has both."""
    found = []
    for line in DOC.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            continue
        spans = [a or b for a, b in SPAN.findall(line)]
        commands = [s for s in spans if s.startswith("ssdlab ")]
        messages = [s for s in spans if s.startswith("error: ")]
        if commands and messages:
            found.append((commands[0], messages[0]))
    return found


def test_the_doc_has_its_examples() -> None:
    assert len(rows()) >= 40


@pytest.mark.parametrize(("command", "message"), rows())
def test_each_example_prints_its_message_and_exits_2(command: str, message: str, tmp_path: Path) -> None:
    for name, text in FIXTURES.items():
        if isinstance(text, bytes):
            (tmp_path / name).write_bytes(text)
        else:
            (tmp_path / name).write_text(text)
    args = shlex.split(command)[1:]
    out = subprocess.run(
        [str(SSDLAB), *args], capture_output=True, text=True, timeout=120, cwd=tmp_path, check=False
    )
    first = out.stderr.splitlines()[0] if out.stderr else ""
    assert out.returncode == 2, (command, out.stderr)
    if message.endswith("…"):
        assert first.startswith(message[:-1].rstrip(", ")), first
    else:
        assert first == message
