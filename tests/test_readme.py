"""The README's Python examples print what their comments say ("Everything below was run as written"): the
first block's result and the stepped commands' latencies, run as the README has them."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import ssdlab

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```python\n(.*?)```", README, re.DOTALL)


def run(block: str) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(block, {"ssdlab": ssdlab})  # later blocks use the first one's import
    return out.getvalue()


def test_the_first_example_prints_the_result_its_comment_shows() -> None:
    shown = re.search(r"print\(res\)  # (Result\(.*\))", BLOCKS[0])
    assert shown is not None
    assert shown.group(1) in run(BLOCKS[0]).splitlines()


def test_the_stepped_commands_take_the_latencies_the_comment_shows() -> None:
    block = next(b for b in BLOCKS if "d.submit(" in b and "d.poll()" in b)
    shown = re.search(r"# (0 write [\d.]+, 1 write [\d.]+, 2 flush [\d.]+)", block)
    assert shown is not None
    printed = ", ".join(
        f"{i} {op} {float(us):.1f}" for i, op, us in (line.split() for line in run(block).splitlines())
    )
    assert printed == shown.group(1)
