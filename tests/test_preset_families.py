"""Presets of one family share its controller, firmware and NAND-generation parameters: a member differs from
another only in what its hardware changes (capacity, die count and size, link, HMB size). So a value fitted
on one member (bg4-128gb's SLC cache bound and fold policy) is the family's, and the out-of-sample members
(bg4-256gb, bg4-512gb, bg3-128gb, bg3-256gb, bg3-512gb) carry nothing fitted to their own results.

The files say so by inheritance: ``base = "bg4"`` names ``presets/families/bg4.toml`` and the preset gives
only its own keys; the chain resolves (tables merged key by key, the child winning) to the complete config."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

import ssdlab
from ssdlab import validate
from ssdlab.presets import list_presets, preset_source, read_preset, resolve_base

NAMES = {"name", "description"}
GEOMETRY = {"ftl.user_capacity_gb", "nand.dies_per_channel", "nand.blocks_per_plane"}


def flat(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """The drive's parameters by dotted path; ``[calibration]`` is left out: it says what ``ssdlab
    calibrate`` fits to a member's own published figures, not what the drive is."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        if not prefix and k == "calibration":
            continue
        if isinstance(v, dict):
            out.update(flat(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = v
    return out


def differing(a: str, b: str) -> set[str]:
    pa, pb = (flat(tomllib.loads(read_preset(n))) for n in (a, b))
    assert pa.keys() == pb.keys()
    return {k for k in pa if pa[k] != pb[k]}


@pytest.mark.parametrize(
    ("member", "allowed"),
    [
        # same 256 Gbit BiCS4 die, twice or four times as many
        ("bg4-256gb", NAMES | {"ftl.user_capacity_gb", "nand.dies_per_channel"}),
        ("bg4-512gb", NAMES | {"ftl.user_capacity_gb", "nand.dies_per_channel"}),
        # 512 Gbit BiCS4 dies: more blocks per plane, their own SLC-mode program time; and no fold policy or
        # low-space mode past the cache (AnandTech's 1TB fill is "steady" past it to full; see its preset)
        (
            "bg4-1tb",
            NAMES
            | GEOMETRY
            | {"nand.slc_tPROG_us"}
            | {"ftl.slc_cache.fold_whole_blocks_above_fill", "ftl.slc_cache.fold_above_fill"}
            | {"ftl.slc_cache.dynamic_until_fill"},
        ),
        # the BG3: PCIe x2, a 38 MiB HMB, and the 64-layer BiCS3 generation's geometry (its 512 Gbit die, the
        # 128 GB's 256 Gbit one) and timings
        *[
            (
                bg3,
                NAMES
                | GEOMETRY
                | {"link.lanes", "controller.map_cache.hmb_size_mib", "nand.pages_per_block"}
                | {"nand.tR_us", "nand.tPROG_us", "nand.slc_tPROG_us", "nand.bus_mts"}
                # the decoder scaled to the slower BiCS3 channel
                | {"controller.data_path.ldpc_mbps", "controller.data_path.ldpc_native_mbps"}
                # the BG4's interleaved-folding policy and plane reads (families/bg4.toml) are not the BG3's
                | {"ftl.slc_cache.fold_above_fill", "nand.independent_plane_read"}
                # nor the temperatures the BG4 reports, which it throttles at
                | {"thermal.tmt1_c", "thermal.tmt2_c"},
            )
            for bg3 in ("bg3-128gb", "bg3-256gb", "bg3-512gb")
        ],
    ],
)
def test_bg_family_members_differ_from_bg4_128gb_only_in_hardware(member: str, allowed: set[str]) -> None:
    extra = differing("bg4-128gb", member) - allowed
    assert not extra, f"{member} departs from the BG family in {sorted(extra)}"


def test_the_sn500_250gb_is_the_sn520_128gb_with_twice_the_dies() -> None:
    # so the family's map cache and plane reads, fitted on the 250 GB's spec, meet the 128 GB's as hold-outs
    own = {"ftl.user_capacity_gb", "nand.dies_per_channel"}
    assert differing("sn520-128gb", "sn500-250gb") == NAMES | own


@pytest.mark.parametrize("name", list_presets())
def test_resolved_preset_is_the_config_the_drive_reports(name: str) -> None:
    # Every key comes from the files (no default filled in by the engine), with the value the drive runs with.
    resolved = tomllib.loads(read_preset(name))
    assert "base" not in resolved
    assert resolved == tomllib.loads(ssdlab.Drive.from_preset(name).config_toml())


@pytest.mark.parametrize(
    ("member", "base", "own_keys"),
    [
        ("bg4-128gb", "bg4", {"ftl.user_capacity_gb", "nand.dies_per_channel"}),
        ("bg4-256gb", "bg4", {"ftl.user_capacity_gb", "nand.dies_per_channel"}),
        ("bg4-512gb", "bg4", {"ftl.user_capacity_gb", "nand.dies_per_channel"}),
        # no source says which die the 128 GB uses; four 256 Gbit dies keep all four channels busy
        ("bg3-128gb", "bg3", {"ftl.user_capacity_gb", "nand.dies_per_channel", "nand.blocks_per_plane"}),
        ("bg3-256gb", "bg3", {"ftl.user_capacity_gb", "nand.dies_per_channel"}),
        ("bg3-512gb", "bg3", {"ftl.user_capacity_gb", "nand.dies_per_channel"}),
        (
            "bg4-1tb",
            "bg4",
            {
                "ftl.user_capacity_gb",
                "nand.dies_per_channel",
                "nand.blocks_per_plane",
                "nand.slc_tPROG_us",
                "ftl.slc_cache.fold_whole_blocks_above_fill",
                "ftl.slc_cache.dynamic_until_fill",
                "ftl.slc_cache.fold_above_fill",
            },
        ),
        ("sn520-128gb", "sn520", {"ftl.user_capacity_gb", "nand.dies_per_channel"}),
        ("sn500-250gb", "sn520", {"ftl.user_capacity_gb", "nand.dies_per_channel"}),
        ("v300s-120gb", "v300", {"nand.bus_mts", "nand.bus_mode", "nand.tPROG_us"}),
        ("v300a-120gb", "v300", {"nand.bus_mts", "nand.bus_mode"}),
    ],
)
def test_family_members_write_only_their_hardware(member: str, base: str, own_keys: set[str]) -> None:
    own = flat(tomllib.loads(preset_source(member)))
    assert own.pop("base") == base
    assert set(own) == NAMES | own_keys


def test_show_prints_the_resolved_toml_that_loads_back() -> None:
    exe = Path(sys.executable).parent / "ssdlab"
    out = subprocess.run([exe, "show", "bg4-256gb"], capture_output=True, text=True, timeout=60, check=True)
    assert "base" not in tomllib.loads(out.stdout)
    assert tomllib.loads(out.stdout) == tomllib.loads(read_preset("bg4-256gb"))
    assert ssdlab.Drive.from_toml_str(out.stdout).config_toml() == out.stdout


def test_a_drive_file_may_inherit_from_a_preset(tmp_path: Path) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text('base = "bg4-256gb"\nname = "mine"\n[nand]\ntR_us = [60.0]\n', encoding="utf-8")
    cfg = tomllib.loads(resolve_base(mine.read_text(encoding="utf-8"), str(mine)))
    expected = tomllib.loads(read_preset("bg4-256gb"))
    expected["name"], expected["nand"]["tR_us"] = "mine", [60.0]
    assert cfg == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('base = "bg5"\nname = "x"\n', 'mine.toml: unknown base "bg5"'),
        ("base = 4\n", "mine.toml: must be the name of a family or preset"),
    ],
)
def test_a_bad_base_is_a_config_error_naming_the_file(text: str, message: str) -> None:
    with pytest.raises(ssdlab.ConfigError) as e:
        resolve_base(text, "mine.toml")
    (problem,) = e.value.errors()
    assert problem.path == "base"
    assert message in problem.message


def test_cli_drive_file_with_an_unknown_base_is_one_line(tmp_path: Path) -> None:
    mine = tmp_path / "mine.toml"
    mine.write_text('base = "bg5"\n', encoding="utf-8")
    exe = Path(sys.executable).parent / "ssdlab"
    out = subprocess.run(
        [exe, "run", "--drive", str(mine), "--suite", "fill"], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 2
    assert out.stderr.startswith("error: base: ") and "mine.toml: unknown base" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


#: Comment phrases that say a value is copied from the BG family (families/bg.toml), the DRAM-less class's.
COPIED_FROM_BG = (
    "the BG family's value",
    "as the BG family",
    "the DRAM-less HMB class's",
    "the client class's",
    "BG family value",
)


@pytest.mark.parametrize("name", [n for n in list_presets() if not n.startswith(("bg3", "bg4"))])
def test_a_value_said_to_be_the_bg_familys_is_the_bg_familys(name: str) -> None:
    # A copy outlives a refit of the original: five presets once carried the BG's NAND currents of before
    # scripts/fit_power.py's refit while saying they were the family's.
    bg = flat(tomllib.loads(read_preset("bg4-128gb")))
    ours = flat(tomllib.loads(read_preset(name)))
    stale, seen = [], set()
    # the preset's own file and the family files it inherits, as validate reads them for `fitted`
    for _, text in validate._chain(name):
        for path, comment in validate.commented_values(text):
            if any(p in comment for p in COPIED_FROM_BG) and path not in seen and ours[path] != bg[path]:
                stale.append((path, ours[path], bg[path]))
        seen |= validate._paths(text)  # a value a child file sets again is the child's
    assert stale == []


def test_the_readme_lists_every_preset() -> None:
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\| `([\w.-]+)` \|", readme, re.MULTILINE))
    assert set(list_presets()) <= listed, sorted(set(list_presets()) - listed)


#: 3D dies of no real part (design studies), sized at their nominal block count.
NOT_REAL_DIES = {"enterprise-tlc", "generic-tlc-dram"}


@pytest.mark.parametrize("name", list_presets())
def test_a_real_3d_die_carries_548_of_every_512_nominal_blocks(name: str) -> None:
    """A die is over-provisioned on its own (docs/model.md, "Blocks beyond the nominal capacity"): every
    real 3D die gets Micron's 548 blocks a plane for 512 nominal, the one public count, and says so where
    it is set."""
    nand = tomllib.loads(ssdlab.Drive.from_preset(name).config_toml())["nand"]
    # the preset's own file first, then the family files it inherits
    comments = [
        c
        for _, text in validate._chain(name)
        for p, c in validate.commented_values(text)
        if p == "nand.blocks_per_plane"
    ]
    if not nand["one_shot_program"] or name in NOT_REAL_DIES:
        assert not any("548/512" in c for c in comments)
        return
    nominal = int(re.search(r"(\d+) nominal, and 548/512", comments[0])[1])  # type: ignore[index]
    assert nand["blocks_per_plane"] == round(nominal * 548 / 512)
