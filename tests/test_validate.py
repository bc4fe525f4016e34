"""``ssdlab validate``: the rows' shape and arithmetic, ranges, checks, the in-sample marking, the CLI and the
README's fidelity table being current. These test the machinery (quick mode, small drives), not today's
figures: other work moves the figures."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from ssdlab import Drive, validate
from ssdlab.cli import main
from ssdlab.presets import list_presets
from ssdlab.report import validate_table
from ssdlab.suites.anandtech import QDS, AnandTechResult, Outcome, QdPoint, checks
from ssdlab.validate import Figure, Measured, Row, error_pct, parse_fitted

README = Path(__file__).resolve().parent.parent / "README.md"


# ----------------------------------------------------------------------------------------------- arithmetic


def test_error_pct_is_model_minus_published_over_published() -> None:
    assert error_pct(1000, 1080.0) == pytest.approx(8.0)
    assert error_pct(200, 150.0) == pytest.approx(-25.0)


def test_a_range_is_zero_inside_and_the_distance_to_the_nearer_end_outside() -> None:
    assert error_pct([200, 210], 200.0) == 0.0
    assert error_pct([200, 210], 210.0) == 0.0
    assert error_pct([200, 210], 231.0) == pytest.approx(10.0)  # 21 above 210
    assert error_pct([200, 210], 150.0) == pytest.approx(-25.0)  # 50 below 200


def test_a_statement_or_a_missing_model_figure_has_no_error() -> None:
    assert error_pct("tops out at QD4", 3.0) is None
    assert error_pct(100, None) is None


# ---------------------------------------------------------------------------------------------- the rows


@pytest.fixture(scope="module")
def cdm_rows() -> list[Row]:
    return validate.rows(["bg4-1tb"], figures=["cdm"], quick=True)


def test_a_row_carries_drive_figure_source_method_published_model_and_error(cdm_rows: list[Row]) -> None:
    assert [r.figure for r in cdm_rows] == [
        "cdm.seq_read_MBps",
        "cdm.seq_write_MBps",
        "cdm.rand_read_kIOPS",
        "cdm.rand_write_kIOPS",
    ]
    for r in cdm_rows:
        assert (r.drive, r.source, r.kind, r.reference) == ("bg4-1tb", "kioxia_bg4_brief", "spec", "bg4-1tb")
        assert "CDM 6, 32 GiB" in r.method
        assert isinstance(r.model, float) and r.model > 0
        assert r.error_pct == pytest.approx((r.model - r.published) / r.published * 100)
        assert r.fit in (True, False) and r.passed is None
    assert {r.unit for r in cdm_rows} == {"MB/s", "kIOPS"}


def test_json_rows_have_error_pct(cdm_rows: list[Row]) -> None:
    d = json.loads(json.dumps([r.to_dict() for r in cdm_rows]))
    assert set(d[0]) >= {"drive", "figure", "source", "method", "published", "model", "error_pct", "fit"}


def test_a_quick_row_says_so_in_its_method_and_its_json(cdm_rows: list[Row]) -> None:
    """Quick figures are not the figures: a row, its JSON and the report's table must not pass for full."""
    assert all(r.quick and "quick" in r.method for r in cdm_rows)
    t = validate_table([r.to_dict() for r in cdm_rows])
    assert "QUICK" in str(t.title) and set(list(t.columns[-1].cells)) <= {"quick", "over 10%, quick"}


def test_a_fill_curve_segment_is_a_range_row() -> None:
    rows = validate.rows(["sn520-128gb"], figures=["fill.curve"], quick=True)
    assert rows and all(r.figure.startswith("fill.curve[") for r in rows)
    for r in rows:
        lo, hi = r.published
        if r.model is None:
            continue
        inside = lo <= r.model <= hi
        assert (r.error_pct == 0.0) == inside
        if not inside:
            end = lo if r.model < lo else hi
            assert r.error_pct == pytest.approx((r.model - end) / end * 100)


@pytest.fixture
def no_endurance_method(monkeypatch: pytest.MonkeyPatch) -> None:
    """The spec sheet's TBW as it was before the endurance model: a figure no method measures yet."""
    monkeypatch.delitem(validate._METHODS, ("spec", "endurance_TBW"))
    monkeypatch.setitem(validate.NO_METHOD, ("spec", "endurance_TBW"), "endurance model")


@pytest.mark.usefixtures("no_endurance_method")
def test_a_figure_without_a_method_is_listed_as_such() -> None:
    (r,) = validate.rows(["sn520-128gb"], figures=["spec.endurance_TBW"])
    assert r.method == "no method yet (endurance model)"
    assert (r.model, r.error_pct, r.fit) == (None, None, None)


@pytest.mark.usefixtures("no_endurance_method")
def test_adding_a_method_is_one_registered_function() -> None:
    @validate.method("spec", "endurance_TBW")
    def _fake(fig: Figure, ctx: validate.Context) -> Measured:
        return Measured(50.0, "TBW", "a fake endurance method")

    (row,) = validate.rows(["sn520-128gb"], figures=["spec.endurance_TBW"])
    assert (row.method, row.model, row.error_pct) == ("a fake endurance method", 50.0, pytest.approx(-50.0))


def test_the_brief_power_figures_are_measured_by_its_method() -> None:
    rows = {r.figure: r for r in validate.rows(["bg4-1tb"], figures=["power"])}
    assert set(rows) == {
        f"power.{k}" for k in ("read_mW_per_MBps", "write_mW_per_MBps_4lane", "write_mW_per_MBps_2lane")
    }
    assert all(r.model is not None and "10 ms samples" in r.method for r in rows.values())
    assert "bg4-1tb-x2" in rows["power.write_mW_per_MBps_2lane"].method


def test_every_published_figure_gives_a_row_or_is_an_input() -> None:
    figs = validate.figures()
    inputs = validate.inputs()
    assert ("hardware-facts", "facts", "bg4_hmb_MiB") in inputs
    names = {(f.reference, f.table, f.key) for f in figs}
    assert ("bg4-1tb", "anandtech", "seq_read_hmb_on") in names
    assert ("compact-m2-roundup", "as_ssd_4k_read_qd1", "range_MBps") in names
    assert ("v300", "v300", "findings") in names
    assert not names & set(inputs)


def test_an_unknown_preset_is_a_config_error() -> None:
    with pytest.raises(Exception, match="unknown preset 'nope'"):
        validate.rows(["nope"])


# ---------------------------------------------------------------------------------------------- checks


def _sustained(name: str, variant: str, curve: list[float]) -> Outcome:
    pts = [QdPoint(q, m, 1.0, 0) for q, m in zip(QDS, curve, strict=True)]
    return Outcome(name, variant, sum(curve[:3]) / 3, pts)


def _result(
    read_on: list[float],
    read_off: list[float],
    write_on: list[float],
    rand_burst: tuple[float, float] = (60.0, 36.0),
    rand_on: list[float] = [40, 70, 130, 240, 360, 450],  # noqa: B006 (never mutated)
    rand_off: list[float] = [38, 66, 122, 214, 310, 355],  # noqa: B006
) -> AnandTechResult:
    return AnandTechResult(
        "bg4-1tb",
        1,
        32.0,
        [
            _sustained("sustained_seq_read", "HMB on", read_on),
            _sustained("sustained_seq_read", "HMB off", read_off),
            _sustained("sustained_seq_write", "HMB on", write_on),
            Outcome("burst_seq_write", "HMB on", 1500.0),
            Outcome("burst_seq_write", "HMB off", 1000.0),
            Outcome("burst_rand_read", "HMB on", rand_burst[0]),
            Outcome("burst_rand_read", "HMB off", rand_burst[1]),
            _sustained("sustained_rand_read", "HMB on", rand_on),
            _sustained("sustained_rand_read", "HMB off", rand_off),
        ],
        "",
    )


def test_the_anandtech_checks_pass_and_fail_on_hand_made_curves() -> None:
    good = _result(
        read_on=[1000, 1700, 2000, 2050, 2050, 2050],  # tops out at QD4, steady
        read_off=[700, 1200, 1600, 1850, 1900, 1900],  # more gradual, 93% at QD32
        write_on=[1500, 1800, 1800, 1790, 1800, 1800],  # full speed from QD2
    )
    assert {c.key: c.passed for c in checks(good)} == {
        "seq_read_hmb_on": True,
        "seq_read_hmb_off": True,
        "seq_write_hmb_on": True,
        "burst_seq_write_note": True,
        "burst_rand_read_hmb_off": True,  # 40% slower without
        "sustained_rand_read_hmb": True,  # QD1-4 mean within 15%
    }
    bad = _result(
        read_on=[2000, 2000, 2000, 2000, 2000, 2000],  # saturated at QD1
        read_off=[2000, 2000, 2000, 2000, 2000, 2000],  # not more gradual, not slower
        write_on=[1500, 1800, 1800, 900, 900, 900],  # falls off at QD8 (the cache ran out)
        rand_burst=(60.0, 58.0),  # the HMB makes no difference on a 16 GB span
        rand_on=[63, 111, 218, 417, 756, 1230],  # the HMB covers the whole 64 GB span: 1.7x
    )
    assert {c.key: c.passed for c in checks(bad)} == {
        "seq_read_hmb_on": False,
        "seq_read_hmb_off": False,
        "seq_write_hmb_on": False,
        "burst_seq_write_note": True,
        "burst_rand_read_hmb_off": False,
        "sustained_rand_read_hmb": False,
    }


def _mixed(curve: list[float]) -> AnandTechResult:
    """The SN500's mixed random test: MB/s at 100%, 90% ... 0% reads."""
    pts = [QdPoint(100 - 10 * i, m, 1.0, 0) for i, m in enumerate(curve)]
    return AnandTechResult("sn500-250gb", 1, 32.0, [Outcome("mixed_rand", "-", 0.0, pts, "read %")], "")


def test_the_mixed_random_check_wants_growth_toward_writes_and_a_jump_at_pure_writes() -> None:
    def passed(curve: list[float]) -> bool | None:
        return {c.key: c.passed for c in checks(_mixed(curve))}["mixed_rand_grows_to_writes"]

    assert passed([105, 112, 120, 130, 135, 130, 128, 130, 137, 158, 222]) is True  # lazy map updates
    assert passed([105, 108, 112, 116, 120, 115, 109, 104, 100, 99, 98]) is False  # falls toward writes
    assert passed([105, 110, 115, 120, 125, 130, 135, 140, 145, 150, 160]) is False  # no jump at pure writes


def test_the_sn500_trails_the_rc100_in_burst_random_reads_through_the_rc100s_hmb() -> None:
    """AnandTech's SN500 reads 4 KiB at random over 16 GB slower than the BG3-based RC100, whose HMB covers
    that span; with the HMB withheld (the map in SRAM on both) it no longer does."""
    figures = ["anandtech.burst_rand_read_vs_rc100"]
    (row,) = validate.rows(["sn500-250gb"], figures=figures, quick=True)
    (off,) = validate.rows(
        ["sn500-250gb"], figures=figures, quick=True, set={"controller.map_cache.location": "sram"}
    )
    assert (row.passed, off.passed) == (True, False), (row.model, off.model)


def test_without_its_hmb_the_bg4_reads_crystaldiskmarks_file_slower_through_its_map_sram() -> None:
    """ASCII.jp: with HMB off every CrystalDiskMark read falls, random ones most. The map SRAM beside the
    firmware's other tables covers less than CDM's 1 GiB file; the first cut's 1 MiB of map covered it all."""
    figures = ["ascii_cdm.hmb_off"]
    (row,) = validate.rows(["bg4-256gb"], figures=figures, quick=True)
    first_cut = {"controller.map_cache.sram_size_kib": 1024, "controller.map_cache.sram_tables_kib": 0}
    (whole,) = validate.rows(["bg4-256gb"], figures=figures, quick=True, set=first_cut)
    assert (row.passed, whole.passed) == (True, False), (row.model, whole.model)


def test_a_check_fails_when_the_model_is_broken() -> None:
    """A link so slow that QD1 already fills it: reads cannot "top out at QD4", whatever the NAND does."""
    (row,) = validate.rows(
        ["bg4-1tb"], figures=["anandtech.seq_read_hmb_on"], quick=True, set={"link.gen": 1, "link.lanes": 1}
    )
    assert row.passed is False and row.error_pct is None
    assert "QD1" in row.model and row.published == "tops out at QD4 or higher, steady"


# -------------------------------------------------------------------------------------- in-sample marking


def test_fitted_comments_name_their_figures() -> None:
    text = (
        'base = "bg4"   # families/bg4.toml: its values were fitted on bg4-128gb\n'
        "[ftl.slc_cache]\n"
        "a = 1   # fitted to x (reference bg4-1tb [cdm] seq_read_MBps, seq_write_MBps)\n"
        "b = 2   # not fitted: a datasheet value\n"
        "c = 3   # fitted on bg4-128gb to its published fill_curve\n"
        "d = 4   # fitted: first cut\n"
        "e = 5   # fitted to the maximum, continued\n"
        "        # on the next line (reference starblaze [db_test] max_lat_us_suspend)\n"
    )
    got = {f.path: f.figures for f in parse_fitted(text, "x.toml", "me")}
    assert got == {
        "ftl.slc_cache.a": (("bg4-1tb", "cdm", "seq_read_MBps"), ("bg4-1tb", "cdm", "seq_write_MBps")),
        "ftl.slc_cache.c": (
            ("bg4-128gb", "fill", "curve"),
            ("bg4-128gb", "fill", "fill_avg_MBps"),
            ("bg4-128gb", "fill", "slc_cache_GB"),
        ),
        "ftl.slc_cache.d": (),
        "ftl.slc_cache.e": (("starblaze", "db_test", "max_lat_us_suspend"),),
    }


@pytest.mark.parametrize("preset", list_presets())
def test_every_fitted_value_of_a_preset_names_its_figure(preset: str) -> None:
    # A value copied from another drive's fit names that drive's figure too; a first cut says "not fitted".
    unnamed = [f"{f.file}: {f.path}" for f in validate.fitted_values(preset) if not f.figures]
    assert unnamed == []


def test_a_figure_a_preset_value_was_fitted_to_is_in_sample() -> None:
    rows = validate.rows(["bg4-1tb"], figures=["anandtech.seq_write_hmb_off_MBps"], quick=True)
    assert [r.fit for r in rows] == [True]  # families/bg.toml write_buffer_kib names it
    rows = validate.rows(["bg4-1tb"], figures=["spec.rand_read_kIOPS"], quick=True)
    assert [r.fit for r in rows] == [False]  # nothing names KitGuru's figure


def test_a_comment_naming_one_row_marks_that_row_alone_in_sample() -> None:
    # enterprise-tlc's commit_ns names one Starblaze row, its tSUSP_erase_us the four read rows of a column
    sample = {f.name: validate.in_sample(f) for f in validate.figures() if f.drive == "enterprise-tlc"}
    assert sample["db_test.avg_lat_us_no_suspend[2r1w_1thread write]"] is True
    assert sample["db_test.avg_lat_us_no_suspend[5r4w_1thread write]"] is False
    assert sample["db_test.avg_lat_us_no_suspend[2r1w_1thread read]"] is False
    assert sample["db_test.max_lat_us_suspend[5r4w_2thread read]"] is True
    assert sample["db_test.max_lat_us_suspend[5r4w_2thread write]"] is False
    # a key alone still means all of it: every segment of a fill curve fitted as a whole
    cl1 = [validate.in_sample(f) for f in validate.figures() if f.drive == "cl1-128gb" and "curve[" in f.name]
    assert len(cl1) == 2 and all(cl1)


def test_drives_validated_in_parallel_give_the_same_rows_in_the_same_order() -> None:
    # each drive in its own process (its suite runs shared there): the rows of one process, bit for bit
    presets, figs = ["bg4-128gb", "sn520-128gb", "cl1-128gb"], ["spec.seq_read_MBps", "as_ssd_4k_read_qd1"]
    one = validate.rows(presets, figures=figs, quick=True)
    assert len({r.drive for r in one}) == 3 and all(r.model is not None for r in one)
    assert validate.rows(presets, figures=figs, quick=True, jobs=2) == one


def test_a_config_is_measured_in_its_presets_place() -> None:
    # how calibrate measures a trial: the same drive as a config gives the same rows; another drive moves them
    figs = ["spec.seq_write_MBps"]
    own = validate.rows(["bg4-128gb"], figures=figs, quick=True)
    same = Drive.from_preset("bg4-128gb").config_toml()
    assert validate.rows(["bg4-128gb"], figures=figs, quick=True, config=same) == own
    slower = Drive.from_preset("bg4-128gb", set={"nand.slc_tPROG_us": 250.0}).config_toml()
    (row,) = validate.rows(["bg4-128gb"], figures=figs, quick=True, config=slower)
    assert row.model < 0.8 * own[0].model
    with pytest.raises(ValueError, match="config: is measured in one preset's place"):
        validate.rows(["bg4-128gb", "sn520-128gb"], figures=figs, quick=True, config=same)


def test_a_negative_job_count_is_a_workload_error() -> None:
    with pytest.raises(ValueError, match="jobs: must be 0"):
        validate.rows(["bg4-128gb", "sn520-128gb"], figures=["spec.seq_read_MBps"], quick=True, jobs=-1)


# ------------------------------------------------------------------------------------------------- CLI


@pytest.mark.usefixtures("no_endurance_method")
def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    main(["validate", "sn520-128gb", "--figure", "spec.endurance_TBW", "--json"])
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == 1 and all(r["error_pct"] is None and r["drive"] == "sn520-128gb" for r in rows)


def test_cli_jobs_validates_drives_in_parallel(capsys: pytest.CaptureFixture[str]) -> None:
    main(["validate", "bg4-128gb", "sn520-128gb", "-f", "spec.seq_read_MBps", "--quick", "-j", "2", "--json"])
    rows = json.loads(capsys.readouterr().out)
    assert [r["drive"] for r in rows] == ["bg4-128gb", "sn520-128gb"]
    assert all(r["model"] > 0 for r in rows)


def test_cli_validates_a_drive_file_in_its_base_presets_place(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """``ssdlab validate mine.toml``: the file's drive is measured against its base preset's figures (here a
    slower TLC program, which must show as a slower direct-TLC fill level than the preset's own); a base
    with no figures, or a file given with presets, exits 2 saying why."""
    mine = tmp_path / "mine.toml"
    mine.write_text('base = "sn520-128gb"\nname = "mine"\n[nand]\ntPROG_us = [2400.0]\n', encoding="utf-8")
    args = ["-f", "fill.curve[0.17-1.00]", "--quick", "--json"]
    main(["validate", str(mine), *args])
    out = capsys.readouterr()
    (row,) = json.loads(out.out)
    assert "mine.toml: measured in sn520-128gb's place" in out.err
    main(["validate", "sn520-128gb", *args])
    (own,) = json.loads(capsys.readouterr().out)
    assert row["drive"] == own["drive"] == "sn520-128gb" and row["model"] < 0.9 * own["model"]

    (tmp_path / "family.toml").write_text('base = "generic-tlc-dram"\n', encoding="utf-8")
    for bad, message in [
        ([str(tmp_path / "family.toml")], "error: base: family.toml is validated against the figures of the"),
        ([str(mine), "bg4-1tb"], "error: presets: a drive file is validated alone"),
    ]:
        with pytest.raises(SystemExit) as e:
            main(["validate", *bad])
        assert e.value.code == 2
        assert capsys.readouterr().err.startswith(message)


def test_cli_negative_jobs_exits_2_naming_the_option(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["validate", "bg4-128gb", "--jobs", "-1"])
    assert e.value.code == 2
    assert capsys.readouterr().err.startswith("error: --jobs: must be 0 (one per CPU) or more (got -1)")


@pytest.mark.usefixtures("no_endurance_method")
def test_cli_table_lists_the_method(capsys: pytest.CaptureFixture[str]) -> None:
    main(["validate", "sn520-128gb", "--figure", "spec.endurance_TBW"])
    out = capsys.readouterr().out
    assert "spec.endurance_TBW" in out and "no method yet" in out
    # nothing measured: the summary under the table counts no figure
    assert (
        "0 of 0 measured figures within 10% (or their check passing): in-sample 0 of 0, hold-out 0 of 0"
        in out
    )


def test_cli_table_ends_with_the_in_sample_and_hold_out_counts(capsys: pytest.CaptureFixture[str]) -> None:
    main(["validate", "bg4-128gb", "--figure", "spec.idle_power_mW", "--quick"])
    out = capsys.readouterr().out
    assert (
        "1 of 1 measured figures within 10% (or their check passing): in-sample 1 of 1, hold-out 0 of 0"
        in out
    )


def test_cli_json_of_a_drive_without_figures_says_why(
    capsys: pytest.CaptureFixture[str],
) -> None:
    main(["validate", "generic-tlc-dram", "--json"])
    out = capsys.readouterr()
    assert json.loads(out.out) == []
    assert out.err.strip() == "generic-tlc-dram: no published figures (out of sample)"


def test_cli_json_and_markdown_together_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["validate", "sn520-128gb", "--json", "--markdown"])
    assert e.value.code == 2
    assert capsys.readouterr().err.startswith("error: --markdown: give --json or --markdown, not both")


def test_cli_unknown_preset_exits_2_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["validate", "nope"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: preset: unknown preset 'nope'") and "bg4-1tb" in err


# ------------------------------------------------------------------------------------------------ README


def test_update_readme_replaces_only_the_marked_section(tmp_path: Path) -> None:
    path = tmp_path / "README.md"
    path.write_text(
        f"intro\n{validate.START} model 0 -->\nSTALE-TABLE\n{validate.END}\noutro\n", encoding="utf-8"
    )
    rows = validate.rows(["bg4-1tb"], figures=["power"])
    assert validate.update_readme(path, rows, digest="abc123")
    text = path.read_text(encoding="utf-8")
    assert (
        text.startswith("intro\n") and text.endswith(f"{validate.END}\noutro\n") and "STALE-TABLE" not in text
    )
    assert validate.readme_digest(path) == "abc123" and "`power.read_mW_per_MBps`" in text
    assert not validate.update_readme(path, rows, digest="abc123")


def test_the_model_hash_follows_the_engine_sources_not_its_tests(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a checkout in miniature: the package beside crates/ (an engine source, a test, a benchmark)
    pkg = tmp_path / "python" / "ssdlab"
    pkg.mkdir(parents=True)
    (pkg / "suite.py").write_text("x = 1\n")
    for part in ("src/drive.rs", "tests/oracles.rs", "benches/engine.rs"):
        (tmp_path / "crates" / "core" / part).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / "crates" / "core" / part).write_text("// 1\n")
    monkeypatch.setattr(validate.resources, "files", lambda name: pkg)
    first = validate.model_hash()
    (tmp_path / "crates/core/tests/oracles.rs").write_text("// 2\n")
    (tmp_path / "crates/core/benches/engine.rs").write_text("// 2\n")
    assert validate.model_hash() == first
    (tmp_path / "crates/core/src/drive.rs").write_text("// 2\n")
    assert validate.model_hash() != first
    second = validate.model_hash()
    (pkg / "suite.py").write_text("x = 2\n")
    assert validate.model_hash() != second


@pytest.mark.slow
def test_the_readme_fidelity_table_is_current() -> None:
    """Cheap when nothing the table depends on changed (the README carries the model hash it was made from);
    otherwise the whole validation runs again and its table must equal the README's (`make fidelity`)."""
    digest = validate.readme_digest(README)
    assert digest is not None, "README.md has no fidelity table: run `make fidelity`"
    if digest == validate.model_hash():
        return
    text = README.read_text(encoding="utf-8")
    table = text[text.index(validate.START) : text.index(validate.END)].split("\n\n", 1)[1]
    assert table == validate.markdown(validate.rows()), (
        "README.md's fidelity table is stale: run `make fidelity`"
    )


def test_a_database_mix_figure_is_the_median_of_its_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    # A worst latency is one event in a minute: each Starblaze figure is the median over DB_SEEDS runs
    # (workload seeds), not one run's value.
    worst = {1: 2600.0, 2: 1900.0, 3: 2800.0, 4: 1950.0, 5: 2000.0}
    seeds: list[int] = []

    class Run:
        def __init__(self, seed: int) -> None:
            self.seed = seed

        def row(self, case: str, suspension: bool) -> SimpleNamespace:
            return SimpleNamespace(read_max_us=worst[self.seed])

    def fake_run_dbmix(drive: object, runtime: str, seed: int) -> Run:
        seeds.append(seed)
        return Run(seed)

    monkeypatch.setattr(validate._dbmix, "run_dbmix", fake_run_dbmix)
    fig = next(
        f
        for f in validate.figures()
        if f.drive == "enterprise-tlc" and f.name == "db_test.max_lat_us_suspend[2r1w_2thread read]"
    )
    method = validate._lookup(fig.table, fig.key)
    assert method is not None
    got = method(fig, validate.Context("enterprise-tlc"))
    assert seeds == list(validate.DB_SEEDS)
    assert got.model == 2000.0
    assert "median of 5 runs" in got.method
