"""Shared fixtures: small drives so the whole suite stays well under a few minutes."""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

import ssdlab

# Property tests draw the same examples on every run, so the suite is deterministic like the engine;
# HYPOTHESIS_PROFILE=explore draws new ones.
settings.register_profile("ci", derandomize=True)
settings.register_profile("explore", derandomize=False, max_examples=1000)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))

#: A 16 GB drive: same hardware parameters as the preset, a small mapping table, fast to build.
SMALL = {"ftl.user_capacity_gb": 16}


@pytest.fixture
def small_bg4() -> ssdlab.Drive:
    return ssdlab.Drive.from_preset("bg4-1tb", set=SMALL)


@pytest.fixture(autouse=True)
def _cli_tables_as_wide_as_off_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI prints for a 160-column terminal when its output is not one and COLUMNS is unset
    (``ssdlab.cli.stdout``); pytest-xdist's workers set COLUMNS=80, which would wrap the lines the in-process
    CLI tests look for. Every test sees the CLI as one process run alone does."""
    from ssdlab import cli

    monkeypatch.setattr(cli.stdout, "width", 160)
