"""The twins' fidelity as the issue states it: every in-sample figure within 10% of the published one,
measured by the method its source used (``ssdlab validate``, full methods), and the reviews' qualitative
statements.

Each preset's methods run once (a module fixture, cached per preset); the figure tests are parametrized by
figure so a failure names it. Hold-out figures are reported by ``ssdlab validate`` and the README's table, not
asserted here: they are what the fit did not see."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from ssdlab import validate
from ssdlab.presets import list_presets
from ssdlab.validate import Figure, Row

pytestmark = pytest.mark.slow

#: Within this of the published figure (a range: of its nearer end) an in-sample figure passes.
TOLERANCE_PCT = 10.0


def _in_sample_figures() -> list[Figure]:
    known = set(list_presets())
    return [f for f in validate.figures() if f.drive in known and validate.in_sample(f)]


IN_SAMPLE = _in_sample_figures()

#: In-sample figures the model still misses, each with why (docs/model.md has the detail). Strict: a fix
#: that brings one within 10% fails here until it is taken off the list.
KNOWN_MISSES = {
    "am610-128gb:fill.curve[0.20-0.62]": "177 MB/s; 160 needs a ~2.33 ms TLC program (generation: 2.1)",
    "bc501a-128gb:fill.curve[0.85-1.00]": "20 MB/s looks throttled; the thermal model peaks at 51 C",
    "cl1-128gb:fill.fill_avg_MBps": "a 118 MB/s mean needs ~95 MB/s past the cache; facts give 136",
}


def _param(f: Figure) -> object:
    fid = f"{f.drive}:{f.name}"
    marks = [pytest.mark.xfail(strict=True, reason=KNOWN_MISSES[fid])] if fid in KNOWN_MISSES else []
    return pytest.param(f, id=fid, marks=marks)


RowsOf = Callable[[str], dict[str, Row]]


@pytest.fixture(scope="module")
def rows_of() -> RowsOf:
    """``rows_of(preset)``: the rows of every table holding one of its in-sample figures, by figure name (a
    table's hold-outs come from the same suite runs, at no cost). Each preset's methods run once."""
    cache: dict[str, dict[str, Row]] = {}

    def get(preset: str) -> dict[str, Row]:
        if preset not in cache:
            tables = sorted({f.table for f in IN_SAMPLE if f.drive == preset})
            rows = validate.rows([preset], figures=tables)
            cache[preset] = {r.figure: r for r in rows if r.drive == preset}
        return cache[preset]

    return get


def test_every_preset_with_figures_has_in_sample_figures() -> None:
    drives = {f.drive for f in IN_SAMPLE}
    assert {"cl1-128gb", "bc501a-128gb", "am610-128gb", "sn520-128gb", "enterprise-tlc"} <= drives


def test_every_known_miss_is_an_in_sample_figure() -> None:
    assert set(KNOWN_MISSES) <= {f"{f.drive}:{f.name}" for f in IN_SAMPLE}


@pytest.mark.parametrize("fig", [_param(f) for f in IN_SAMPLE])
def test_in_sample_figure_within_10_percent(fig: Figure, rows_of: RowsOf) -> None:
    row = rows_of(fig.drive)[fig.name]
    assert row.fit is True, f"{fig.name} measured as a hold-out"
    if row.passed is not None:  # a statement: its check
        assert row.passed, f"{fig.drive} {fig.name}: {row.published!r}; model: {row.model}"
        return
    assert row.error_pct is not None, f"{fig.drive} {fig.name}: no model figure ({row.method})"
    assert abs(row.error_pct) <= TOLERANCE_PCT, (
        f"{fig.drive} {fig.name}: published {row.published}, model {row.model:.4g} {row.unit} "
        f"({row.error_pct:+.1f}%) by {row.method}"
    )


# ----------------------------------------------------------------------------------- qualitative claims


@pytest.fixture(scope="module")
def anandtech_rows(rows_of: RowsOf) -> dict[str, Row]:
    """bg4-1tb's AnandTech figures (its statements are checks on the QD curves, HMB on and off)."""
    return {k: r for k, r in rows_of("bg4-1tb").items() if k.startswith("anandtech.")}


def test_hmb_off_sequential_write_is_about_1_gbps(anandtech_rows: dict[str, Row]) -> None:
    r = anandtech_rows["anandtech.seq_write_hmb_off_MBps"]
    assert r.error_pct is not None and abs(r.error_pct) <= TOLERANCE_PCT, r.model


@pytest.mark.parametrize(
    "key",
    [
        pytest.param(  # reads scale more gradually with QD without the HMB
            "seq_read_hmb_off",
            marks=pytest.mark.xfail(strict=True, reason="HMB off still scales like HMB on (open work)"),
        ),
        pytest.param(  # with it they top out at QD4 and stay there
            "seq_read_hmb_on",
            marks=pytest.mark.xfail(
                strict=True,
                reason="tops out at QD2 (2,033 MB/s against QD1's 1,208): a 128 KiB read keeps the four "
                "channels' decoders about half busy, so a second one in flight fills them",
            ),
        ),
        "seq_write_hmb_on",  # and writes run at full speed from QD2
    ],
)
def test_anandtech_statement_holds(key: str, anandtech_rows: dict[str, Row]) -> None:
    r = anandtech_rows[f"anandtech.{key}"]
    assert r.passed is True, f"{r.published!r}: {r.model}"


def test_suspension_cuts_the_worst_db_read_from_about_10_ms_to_about_2_ms(rows_of: RowsOf) -> None:
    """Every case of the Starblaze mix: with suspension the worst read is an erase suspend (~2 ms), without it
    a whole erase (~10 ms). The suspend side is in-sample (tSUSP_erase_us); the no-suspend side is not."""
    rows = rows_of("enterprise-tlc")
    cases = sorted({f.part for f in validate.figures() if f.table == "db_test" and f.part.endswith("read")})
    assert len(cases) == 4
    for case in cases:
        on = rows[f"db_test.max_lat_us_suspend[{case}]"].model
        off = rows[f"db_test.max_lat_us_no_suspend[{case}]"].model
        assert 1_500 <= on <= 2_500, (case, on)
        assert 8_000 <= off <= 13_000, (case, off)


def test_v300_async_against_sync_as_far_as_the_facts_carry() -> None:
    """GamersNexus: the V300A (async bus) loses in large sequential and high-QD writes; at low-QD 4K random
    reads the two are about equal. The checked part (docs/model.md, "Bus modes") is the write side, with the
    review's own line: the Toshiba dies program twice as fast as the Micron ones (hardware facts), so the
    async bus, not the dies, sets the A's writes at QD32. See the report row for the read side."""
    (row,) = validate.rows(["v300a-120gb"], figures=["v300.findings"])
    assert "seq write QD32" in str(row.model)
    ratios = dict(
        part.rsplit(" ", 1) for part in str(row.model).split(": ", 1)[1].split(" (pass")[0].split(", ")
    )
    assert float(ratios["seq write QD32"]) < 0.8
    assert float(ratios["4K write QD32"]) < 0.8


def test_the_bg3_tanks_near_full_as_anandtech_saw_on_the_rc100() -> None:
    """A hold-out of a preset built without figures: the BG family's whole-block folding past 89% full gives
    the BG3 the "second major drop" AnandTech saw on the BG3-based RC100 (and not on the 1TB BG4)."""
    (row,) = validate.rows(["bg3-512gb"], figures=["fill.near_full"])
    assert row.fit is False and row.passed is True, row.model
