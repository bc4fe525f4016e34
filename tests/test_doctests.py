"""The Examples in the package's docstrings run, so the documentation cannot drift from the code."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

import ssdlab

#: Every module of the package (a new one is covered without being listed), less the native module and the
#: nbdkit plugin, which only nbdkit can import.
MODULES = [
    m.name
    for m in pkgutil.walk_packages(ssdlab.__path__, "ssdlab.")
    if m.name not in ("ssdlab._core", "ssdlab.serve.nbd_plugin")
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
