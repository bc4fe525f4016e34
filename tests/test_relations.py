"""Every preset keeps the relations every real SSD keeps (:mod:`ssdlab.relations`, ``ssdlab check``), and a
family's members built from the same die keep theirs to each other.

Most presets are built from hardware facts and family values (docs/model.md), and their figures are checked on
data we do not have. Whatever a family value or the engine becomes, each twin must still behave like a drive;
a failure names the preset, the relation and the figures that broke it.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

import ssdlab
from ssdlab import cli, relations
from ssdlab.presets import list_presets
from ssdlab.relations import SLACK, Measured
from ssdlab.suites.fill import FillResult, run_fill

PRESETS = list_presets()
SSDLAB = Path(sys.executable).parent / "ssdlab"
#: Family members built from the same die, from the fewest dies to the most (same controller too). A larger
#: die is another part, which may be slower (bg4-1tb's 512 Gbit dies, bg3-128gb's 256 Gbit ones): not listed.
FAMILIES = {
    "BG4 (256 Gbit dies)": ["bg4-128gb", "bg4-256gb", "bg4-512gb"],
    "BG3 (512 Gbit dies)": ["bg3-256gb", "bg3-512gb"],
    "SN500/SN520 (256 Gbit dies)": ["sn520-128gb", "sn500-250gb"],
}


def _broken(found: list[relations.Relation]) -> list[str]:
    return [f"{r.name}: {r.measured}" for r in found if not r.passed]


@pytest.mark.parametrize("preset", PRESETS)
def test_queue_depth_link_and_power_relations_hold(preset: str) -> None:
    found = relations.check(ssdlab.Drive.from_preset(preset), spans=False, fill=False)
    assert len(found) == 6
    assert not _broken(found), (preset, _broken(found))


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_span_hmb_and_fill_relations_hold(preset: str) -> None:
    drive = ssdlab.Drive.from_preset(preset)
    found = relations.check(drive)
    hmb = drive.config_value("controller.map_cache.location") == "hmb"
    assert len(found) == 6 + 1 + hmb + 1
    assert not _broken(found), (preset, _broken(found))


def test_a_relation_that_does_not_hold_fails_and_names_its_figures() -> None:
    m = measured("bg4-128gb")
    faster_than_the_link = replace(m, seq_read_mbps={1: 1000.0, 32: 1.1 * m.link_mbps})
    broken = [r for r in relations.judge(faster_than_the_link) if not r.passed]
    assert [r.name for r in broken] == ["nothing moves faster than the link's line rate"]
    assert f"read {1.1 * m.link_mbps:,.0f}" in broken[0].measured
    one_die = replace(m, rand_read_iops={1: 10_000.0, 4: 12_000.0, 32: 15_000.0})
    assert [r.name for r in relations.judge(one_die) if not r.passed] == [
        "deeper queues never slow 4 KiB random reads"
    ]


@functools.cache
def measured(preset: str) -> Measured:
    return relations.measure(ssdlab.Drive.from_preset(preset))


@functools.cache
def filled(preset: str) -> FillResult:
    return run_fill(ssdlab.Drive.from_preset(preset))


def test_the_families_name_real_presets() -> None:
    assert {p for members in FAMILIES.values() for p in members} <= set(PRESETS)


@pytest.mark.parametrize("family", FAMILIES)
def test_a_larger_family_member_is_never_slower(family: str) -> None:
    members = [measured(p) for p in FAMILIES[family]]
    figures: dict[str, Callable[[Measured], float]] = {
        "128 KiB seq write QD32 (MB/s)": lambda m: m.seq_write_mbps,
        "128 KiB seq read QD32 (MB/s)": lambda m: m.seq_read_mbps[32],
        "4 KiB random read QD32 (IOPS)": lambda m: m.rand_read_iops[32],
        "4 KiB random write QD32 (IOPS)": lambda m: m.rand_write_iops[32],
    }
    for name, of in figures.items():
        for small, large in itertools.pairwise(members):
            assert of(large) >= SLACK * of(small), (
                f"{family} {name}: {large.drive} {of(large):,.0f} < {small.drive} {of(small):,.0f}"
            )


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_a_larger_family_member_has_no_smaller_slc_cache_and_fills_no_slower(family: str) -> None:
    fills = [(p, filled(p)) for p in FAMILIES[family]]
    for (small, a), (large, b) in itertools.pairwise(fills):
        assert b.cache_seen_bytes() >= SLACK * a.cache_seen_bytes(), (
            f"{family}: SLC cache {large} {b.cache_seen_bytes() / 1e9:.1f} GB < {small} "
            f"{a.cache_seen_bytes() / 1e9:.1f} GB"
        )
        assert b.average_mbps >= SLACK * a.average_mbps, (
            f"{family}: fill average {large} {b.average_mbps:.0f} < {small} {a.average_mbps:.0f} MB/s"
        )


def test_two_lanes_are_never_faster_than_four() -> None:
    x2, x4 = measured("bg4-1tb-x2"), measured("bg4-1tb")
    assert x2.link_mbps == x4.link_mbps / 2
    assert x2.seq_read_mbps[32] <= x4.seq_read_mbps[32]
    assert x2.seq_write_mbps <= x4.seq_write_mbps


# ------------------------------------------------------------------------------------------ ssdlab check


def ssdlab_check(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "200"}
    return subprocess.run([str(SSDLAB), "check", *args], capture_output=True, text=True, timeout=300, env=env)


def test_check_prints_each_relation_and_exits_0_when_all_hold(tmp_path: Path) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text('base = "sn520-128gb"\nname = "mine"\n\n[nand]\ntR_us = [90.0]\n', encoding="utf-8")
    out = ssdlab_check("bg4-128gb", str(mine), "--no-fill")
    assert out.returncode == 0, out.stderr
    assert "bg4-128gb: relations every real SSD keeps" in out.stdout
    assert f"{mine}: relations every real SSD keeps" in out.stdout
    # bg4-128gb has an HMB (8 relations without the fill), the SN520 not (7)
    assert "15 of 15 relations hold on 2 drive(s)" in out.stdout
    doc = json.loads(ssdlab_check("sn520-128gb", "--no-fill", "--json", "--set", "nand.tR_us=[60.0]").stdout)
    assert doc["passed"] is True
    [drive] = doc["drives"]
    assert drive["drive"] == "sn520-128gb" and len(drive["relations"]) == 7
    assert {"name", "passed", "measured"} <= set(drive["relations"][0])


def test_check_refuses_an_unknown_drive_before_measuring_any() -> None:
    out = ssdlab_check("sn520-128gb", "no-such-drive")
    assert out.returncode == 2
    assert "unknown preset 'no-such-drive'" in out.stderr and "Traceback" not in out.stderr
    assert "relations every real SSD keeps" not in out.stdout


def test_check_exits_1_and_marks_a_relation_that_does_not_hold(monkeypatch: pytest.MonkeyPatch) -> None:
    from typer.testing import CliRunner

    def broken(drive: ssdlab.Drive, **_: object) -> list[relations.Relation]:
        name = "deeper queues never slow 4 KiB random writes"
        return [relations.Relation(name, False, "QD1 9, QD32 5 IOPS")]

    monkeypatch.setattr(relations, "check", broken)
    out = CliRunner().invoke(cli.app, ["check", "sn520-128gb"], env={"COLUMNS": "200"})
    assert out.exit_code == 1, out.output
    assert "NO" in out.output and "QD1 9, QD32 5 IOPS" in out.output
    assert "0 of 1 relations hold on 1 drive(s)" in out.output
