"""The Examples in the package's docstrings run, so the documentation cannot drift from the code."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

MODULES = [
    "ssdlab",
    "ssdlab.units",
    "ssdlab.errors",
    "ssdlab.workload",
    "ssdlab.presets",
    "ssdlab.reference",
    "ssdlab.drive",
    "ssdlab.result",
    "ssdlab.suites",
    "ssdlab.suites._common",
    "ssdlab.suites.cdm",
    "ssdlab.suites._reference",
    "ssdlab.suites.as_ssd",
    "ssdlab.suites.anandtech",
    "ssdlab.validate",
    "ssdlab.report",
    "ssdlab.cli",
    "ssdlab.calibrate",
    "ssdlab.fio",
    "ssdlab.fio.options",
    "ssdlab.fio.jobfile",
    "ssdlab.fio.runner",
    "ssdlab.fio.output",
    "ssdlab.compare",
    "ssdlab.sweep",
    "ssdlab.suites.fill",
    "ssdlab.nvme",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


#: Documentation pages whose ``>>>`` examples run.
DOCS = ["nvme.md"]


@pytest.mark.parametrize("name", DOCS)
def test_docs_examples(name: str) -> None:
    path = Path(__file__).resolve().parent.parent / "docs" / name
    result = doctest.testfile(
        str(path), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in docs/{name}"
