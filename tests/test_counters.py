"""The counter registry: one definition in the engine, read by Python, the report and the docs."""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest

import ssdlab
from ssdlab.counters import REGISTRY, Counters, UnknownCounterError, delta, docs_markdown, info
from ssdlab.report import counters_table

DOCS = Path(__file__).resolve().parent.parent / "docs"


@pytest.fixture(scope="module")
def drive() -> ssdlab.Drive:
    return ssdlab.Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 16})


def test_registry_entries_are_unique_and_complete() -> None:
    from ssdlab._core import counter_registry

    names = [name for name, *_ in counter_registry()]
    assert len(names) == len(set(names)) == len(REGISTRY)
    for c in REGISTRY.values():
        assert c.kind in {"total", "level", "derived"}, c
        assert c.unit and c.description.endswith("."), c
    # Rust and Python once disagreed on this one: it is fixed when the drive is made.
    assert info("factory_bad_blocks").kind == "level"


def test_a_drive_and_a_result_report_every_counter_in_registry_order(drive: ssdlab.Drive) -> None:
    assert list(drive.counters()) == list(REGISTRY)
    res = drive.clone().run(ssdlab.Workload(rw="write", size="16m"))
    assert list(res.counters) == list(REGISTRY)


def test_delta_follows_the_kinds_on_a_hand_built_example(drive: ssdlab.Drive) -> None:
    base = dict(drive.counters())
    before = {**base, "host_write_bytes": 100.0, "flash_bytes_written": 400.0, "free_blocks": 50.0}
    after = {**base, "host_write_bytes": 300.0, "flash_bytes_written": 700.0, "free_blocks": 30.0}
    d = delta(before, after)
    assert d["host_write_bytes"] == 200.0, "a total: the difference"
    assert d["free_blocks"] == 30.0, "a level: the later value"
    assert d["waf"] == 1.5, "derived: recomputed from the span's totals (300 / 200)"
    assert list(d) == list(REGISTRY)


def test_delta_over_two_runs_adds_totals_and_keeps_the_last_level(drive: ssdlab.Drive) -> None:
    d = drive.clone()
    before = d.counters()
    r1 = d.run(ssdlab.Workload(rw="write", bs="128k", size="128m"))
    r2 = d.run(ssdlab.Workload(rw="randwrite", bs="4k", size="64m"))
    span = delta(before, d.counters())
    for name, c in REGISTRY.items():
        if c.kind == "total":
            assert span[name] == r1.counters[name] + r2.counters[name], name
        elif c.kind == "level":
            assert span[name] == r2.counters[name] == d.counters()[name], name
    assert span["host_write_bytes"] == 192 << 20
    flash = span["flash_bytes_written"] + span["map_pages_written"] * 4096
    assert span["waf"] == pytest.approx(flash / span["host_write_bytes"], rel=1e-12)


def test_an_unknown_counter_is_an_error_naming_close_matches(drive: ssdlab.Drive) -> None:
    c = drive.counters()
    with pytest.raises(UnknownCounterError, match="did you mean nand_pages_read") as e:
        c["nand_page_read"]
    assert isinstance(e.value, KeyError) and isinstance(e.value, ssdlab.SsdlabError)
    assert e.value.name == "nand_page_read"
    again = pickle.loads(pickle.dumps(e.value))
    assert (again.name, str(again)) == (e.value.name, str(e.value))
    with pytest.raises(UnknownCounterError, match="'elapsed_s'"):
        info("elapsed_s")
    with pytest.raises(ValueError, match="wafer"):
        delta({**c, "wafer": 1.0}, c)
    with pytest.raises(ValueError, match="lacks counters host_read_ios"):
        delta({k: v for k, v in c.items() if k != "host_read_ios"}, c)
    with pytest.raises(UnknownCounterError):
        counters_table({"wafer": 1.0})


def test_counters_stay_a_json_ready_dict() -> None:
    c = Counters({"waf": 1.5})
    assert isinstance(c, dict) and c.get("map_hit_rate", 0.0) == 0.0
    with pytest.raises(UnknownCounterError, match="not among these values"):
        c["map_hit_rate"]


def test_the_docs_counter_table_is_current() -> None:
    doc = (DOCS / "counters.md").read_text(encoding="utf-8")
    assert doc == docs_markdown(), "docs/counters.md is stale: run `make docs`"


def test_counters_named_in_the_model_docs_exist() -> None:
    text = (DOCS / "model.md").read_text(encoding="utf-8")
    named: set[str] = set()
    for para in text.split("\n\n"):
        at = para.find("ounters")  # "**Counters.**", "Counters:", "**NAND counters.**"
        if at >= 0:
            named |= set(re.findall(r"`([a-z][a-z0-9_]*)`", para[at:]))
    assert {"waf", "free_blocks", "nand_bus_bytes", "hmb_bytes"} <= named
    assert named <= set(REGISTRY), named - set(REGISTRY)
