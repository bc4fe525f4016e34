"""Presets of one family share its controller, firmware and NAND-generation parameters: a member differs from
another only in what its hardware changes (capacity, die count and size, link, HMB size). So a value fitted
on one member (bg4-128gb's SLC cache and fold policy) is the family's, and the out-of-sample members
(bg4-256gb, bg3-512gb) carry nothing fitted to their own results."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from ssdlab.presets import preset_path

NAMES = {"name", "description"}
GEOMETRY = {"ftl.user_capacity_gb", "nand.dies_per_channel", "nand.blocks_per_plane"}


def flat(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(flat(v, f"{prefix}{k}."))
        else:
            out[prefix + k] = v
    return out


def differing(a: str, b: str) -> set[str]:
    pa, pb = (flat(tomllib.loads(preset_path(n).read_text(encoding="utf-8"))) for n in (a, b))
    assert pa.keys() == pb.keys()
    return {k for k in pa if pa[k] != pb[k]}


@pytest.mark.parametrize(
    ("member", "allowed"),
    [
        # same 256 Gbit BiCS4 die, twice as many
        ("bg4-256gb", NAMES | {"ftl.user_capacity_gb", "nand.dies_per_channel"}),
        # 512 Gbit BiCS4 dies: more blocks per plane, their own SLC-mode program time; and no whole-block
        # folding near full (see its preset: no published 1TB fill curve justifies it)
        ("bg4-1tb", NAMES | GEOMETRY | {"nand.slc_tPROG_us", "ftl.slc_cache.fold_whole_blocks_above_fill"}),
        # the BG3: PCIe x2, a 38 MiB HMB, and the 64-layer BiCS3 generation's geometry and timings
        (
            "bg3-512gb",
            NAMES
            | GEOMETRY
            | {"link.lanes", "controller.map_cache.hmb_size_mib", "nand.pages_per_block"}
            | {"nand.tR_us", "nand.tPROG_us", "nand.slc_tPROG_us", "nand.bus_mts"},
        ),
    ],
)
def test_bg_family_members_differ_from_bg4_128gb_only_in_hardware(member: str, allowed: set[str]) -> None:
    extra = differing("bg4-128gb", member) - allowed
    assert not extra, f"{member} departs from the BG family in {sorted(extra)}"
