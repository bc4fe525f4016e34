"""The published figures ship inside the package: every table says where it comes from and how it was
measured, nothing is read from outside the installed package, and missing data is said, not skipped."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any

import pytest

import ssdlab
from ssdlab import reference
from ssdlab.suites import fill

PACKAGE = Path(str(resources.files("ssdlab")))


def figure_tables(doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in doc.items() if isinstance(v, dict)}


@pytest.mark.parametrize("name", reference.names())
def test_every_figure_table_names_its_source_kind_and_method(name: str) -> None:
    sources = reference.sources()
    tables = figure_tables(reference.load(name))
    assert tables, f"{name}.toml holds no figure table"
    for key, table in tables.items():
        missing = [k for k in reference.FIGURE_KEYS if not table.get(k)]
        assert not missing, f"{name}.toml [{key}] lacks {missing}"
        assert table["source"] in sources, f"{name}.toml [{key}]: unknown source {table['source']!r}"
        assert table["kind"] in ("spec", "review"), f"{name}.toml [{key}]: kind {table['kind']!r}"


def test_reference_files_are_package_files() -> None:
    folder = Path(str(resources.files(reference)))
    assert folder.is_relative_to(PACKAGE)
    assert {p.stem for p in folder.glob("*.toml")} == {*reference.names(), "sources"}


def test_fill_curves_are_segments_of_increasing_fill() -> None:
    for preset in reference.fill_curve_drives():
        curve = reference.fill_curve(preset)
        assert curve is not None and preset in ssdlab.list_presets()
        for start, end, low, high in curve:
            assert 0.0 <= start < end <= 1.0 and 0 < low <= high, (preset, start, end, low, high)


def test_a_preset_without_figures_is_none_not_an_error() -> None:
    assert reference.figures("generic-tlc-dram") is None
    assert reference.fill_curve("bg4-1tb") is None  # figures, but no fill curve


def test_a_missing_file_is_an_error_naming_it(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "sources.toml").write_text('[x]\ntitle = "x"\n')
    (tmp_path / "broken.toml").write_text("[fill\n")
    monkeypatch.setattr(reference, "_folder", lambda: tmp_path)
    reference._parsed.cache_clear()
    try:
        with pytest.raises(FileNotFoundError, match=r"starblaze\.toml"):
            reference.db_test()
        with pytest.raises(ValueError, match=r"broken\.toml"):
            reference.figures("broken")
    finally:
        reference._parsed.cache_clear()


def test_unknown_source_is_a_key_error_naming_the_known_ones() -> None:
    with pytest.raises(KeyError, match="compact_m2_roundup"):
        reference.source_title("nope")


def test_load_returns_a_copy() -> None:
    reference.load("bg4-128gb")["fill"]["curve"].clear()
    assert reference.fill_curve("bg4-128gb")


def test_fill_without_a_published_curve_says_so() -> None:
    drive = ssdlab.Drive.from_preset("generic-tlc-dram", set={"ftl.user_capacity_gb": 2})
    res = fill.run_fill(drive)
    tables = res.tables()
    assert res.to_dict()["published"] is None
    assert len(tables) == 2
    assert "No published fill curve for generic-tlc-dram" in str(tables[-1].caption)


def test_fill_with_a_published_curve_compares_it() -> None:
    drive = ssdlab.Drive.from_preset("bg4-128gb", set={"ftl.user_capacity_gb": 4})
    res = fill.run_fill(drive)
    checks = res.against_published()
    assert checks is not None and len(checks) == len(reference.fill_curve("bg4-128gb") or [])
    assert "Compact M.2 SSD Roundup" in str(res.tables()[-1].title)
