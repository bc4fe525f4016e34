"""The reviewers' suites as their methods define them (AnandTech, ATTO, GamersNexus/IOMETER, CrystalDiskMark's
profiles and 0x00 data), and the behaviour each method shows on a drive: small drives and short runs."""

from __future__ import annotations

import itertools

import pytest

from ssdlab import Drive, suites
from ssdlab.suites import SuiteOptions, anandtech, atto, gamersnexus
from ssdlab.suites.cdm import CDM_VERSIONS, run_cdm

GB = 10**9
KIB, MIB = 1 << 10, 1 << 20


# --- AnandTech ----------------------------------------------------------------------------------------


def test_anandtech_defines_every_client_test_with_its_span_and_steps() -> None:
    t = anandtech.TESTS
    assert list(t) == [
        "burst_seq_read",
        "burst_seq_write",
        "sustained_seq_read",
        "sustained_seq_write",
        "burst_rand_read",
        "burst_rand_write",
        "sustained_rand_read",
        "sustained_rand_write",
        "sustained_seq_read_fragmented",
        "mixed_rand",
        "mixed_seq",
        "fill",
        "working_set",
    ]
    assert {n: t[n].prefill_bytes for n in ("burst_rand_read", "sustained_rand_read", "mixed_rand")} == {
        "burst_rand_read": 16 * GB,
        "sustained_rand_read": 64 * GB,
        "mixed_rand": 64 * GB,
    }
    assert anandtech.QDS == (1, 2, 4, 8, 16, 32)
    assert anandtech.MIXES == (100, 90, 80, 70, 60, 50, 40, 30, 20, 10, 0)
    # 32 MB random bursts, 1 GB in all; 128 MB sequential bursts x 8
    assert anandtech.RAND_BURST_BYTES == 32 * 10**6 // 4096 * 4096
    assert anandtech.RAND_BURSTS * anandtech.RAND_BURST_BYTES == pytest.approx(1 * GB, rel=0.03)
    assert anandtech.BURSTS * anandtech.BURST_BYTES == pytest.approx(1.024 * GB, rel=0.03)
    assert t["sustained_seq_read_fragmented"].after == "sustained_rand_write"
    assert t["working_set"].after == "fill"
    spans = anandtech.working_set_spans(40 * GB)
    assert [round(s / GB, 3) for s in spans] == [1, 2, 4, 8, 16, 32, 40] and all(s % 4096 == 0 for s in spans)


@pytest.fixture(scope="module")
def anand() -> anandtech.AnandTechResult:
    # Three tests, HMB on and off, on a 16 GB bg4-1tb (spans shrink to the drive), 0.5 GB per step.
    drive = Drive.from_preset("bg4-1tb", capacity_gb=16)
    tests = ["sustained_rand_read", "sustained_seq_read_fragmented", "mixed_rand", "working_set"]
    return anandtech.run_anandtech(drive, tests=tests, max_gb=0.5)


def test_anandtech_runs_every_test_with_hmb_on_and_off(anand: anandtech.AnandTechResult) -> None:
    got = [(r.name, r.variant) for r in anand.results]
    names = ["sustained_rand_read", "sustained_seq_read_fragmented", "mixed_rand", "working_set"]
    assert got == [(n, v) for v in ("HMB on", "HMB off") for n in names]
    assert anand.scaled_down and "SCALED DOWN" in str(anand.table().title)


def test_anandtech_random_reads_scale_with_queue_depth(anand: anandtech.AnandTechResult) -> None:
    r = anand.get("sustained_rand_read")
    assert [p.qd for p in r.qd] == list(anandtech.QDS)
    assert r.at(32) > 4 * r.at(1)  # more dies busy at once
    assert r.mbps == pytest.approx(sum(r.at(q) for q in (1, 2, 4)) / 3)


def test_anandtech_mixed_steps_and_working_set(anand: anandtech.AnandTechResult) -> None:
    m = anand.get("mixed_rand")
    assert [p.x for p in m.points] == list(anandtech.MIXES) and m.x_label == "read share (%)"
    assert m.mbps == pytest.approx(sum(p.mbps for p in m.points) / len(m.points))
    # Without the HMB the map cache is the controller's SRAM: QD1 reads over the whole drive miss it and
    # wait for a map read, so they are slower than over 1 GB
    ws = anand.get("working_set", "HMB off")
    assert [p.x for p in ws.points] == [1, 2, 4, 8, 16]
    assert ws.points[-1].mbps < 0.8 * ws.points[0].mbps


def test_anandtech_random_writes_fragment_sequential_reads(anand: anandtech.AnandTechResult) -> None:
    frag = anand.get("sustained_seq_read_fragmented")
    assert [p.qd for p in frag.qd] == list(anandtech.QDS)
    clean = anandtech.run_anandtech(
        Drive.from_preset("bg4-1tb", capacity_gb=16), tests=["sustained_seq_read"], max_gb=0.5, hmb_off=False
    ).get("sustained_seq_read")
    assert frag.mbps < 0.9 * clean.mbps


def test_anandtech_headline_and_curves_cover_every_test(anand: anandtech.AnandTechResult) -> None:
    doc = anand.to_dict()
    names = [h.name for h in suites.headline(doc)]
    assert "mixed_rand (HMB off)" in names and "mixed_rand (HMB off) efficiency" in names
    assert "idle power (HMB on)" in names
    plots = {(c.plot, c.series, c.x_label) for c in suites.curves(doc)}
    assert ("working_set", "HMB off", "span (GB)") in plots
    assert ("mixed_rand", "HMB on", "read share (%)") in plots


# --- ATTO -----------------------------------------------------------------------------------------------


def test_atto_transfer_sizes_queue_depth_and_length_are_attos() -> None:
    sizes_kib = [s / KIB for s in atto.SIZES]
    assert sizes_kib[:11] == [0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512]
    assert [s // MIB for s in atto.SIZES[11:]] == [1, 2, 4, 8, 12, 16, 24, 32, 48, 64]
    assert atto.QD == 4 and atto.TOTAL == 256 * MIB


@pytest.fixture(scope="module")
def atto_bg4() -> atto.AttoResult:
    sizes = (512, 4 * KIB, 16 * KIB, 64 * KIB, MIB, 8 * MIB)
    return atto.run_atto(Drive.from_preset("bg4-1tb", capacity_gb=8), total="32m", sizes=sizes)


def test_atto_prints_a_reviews_tops_beside_the_models(atto_bg4: atto.AttoResult) -> None:
    # bg4-1tb has KitGuru's ATTO tops in the reference data; the table is the run's highest rates
    beside = {b.key: b for b in atto.published_figures(atto_bg4)}
    assert beside["atto.read_top_MBps"].published == 2422
    assert beside["atto.read_top_MBps"].model == max(p.read_mbps for p in atto_bg4.points)
    assert beside["atto.write_top_MBps"].model == max(p.write_mbps for p in atto_bg4.points)
    assert len(atto_bg4.tables()) == 2
    other = atto.AttoResult("sn520-128gb", 1, atto.TOTAL, atto.QD, True, atto_bg4.points, "")
    assert atto.published_figures(other) == []
    (table,) = other.tables()
    assert table.caption == "no published ATTO figures for sn520-128gb"


def test_atto_curves_rise_with_the_transfer_size_to_a_ceiling(atto_bg4: atto.AttoResult) -> None:
    for d in ("read", "write"):
        mbps = [getattr(p, f"{d}_mbps") for p in atto_bg4.points]
        top = max(mbps)
        # rising until the ceiling (within 5% of the top), then staying near it: a ceiling, not a fall
        reached = next(i for i, v in enumerate(mbps) if v >= 0.95 * top)
        assert all(b >= 0.98 * a for a, b in itertools.pairwise(mbps[: reached + 1])), (d, mbps)
        assert all(v >= 0.9 * top for v in mbps[reached:]), (d, mbps)
        assert top > 10 * mbps[0] and top > 2 * mbps[1], (d, mbps)  # far above 512 B and 4 KiB


def test_atto_sub_4k_transfers_are_real_512_byte_ios(atto_bg4: atto.AttoResult) -> None:
    p512, p4k = atto_bg4.point(512), atto_bg4.point(4 * KIB)
    # each 512 B read senses its page as a 4 KiB read does (or finds it in the page register) and moves an
    # eighth of the bytes: at least as many IOs a second, far fewer MB/s
    assert p512.read_iops >= p4k.read_iops
    assert p512.read_mbps < p4k.read_mbps / 4
    assert p512.read_mbps == pytest.approx(p512.read_iops * 512 / 1e6)


def test_atto_compressible_pattern_writes_faster_on_a_compressing_drive() -> None:
    runs = {
        c: atto.run_atto(
            Drive.from_preset("v300a-120gb", capacity_gb=8), total="32m", sizes=(MIB,), compressible=c
        )
        for c in (True, False)
    }
    assert runs[True].points[0].write_mbps > 1.5 * runs[False].points[0].write_mbps


# --- GamersNexus / IOMETER --------------------------------------------------------------------------------


def test_gamersnexus_precondition_is_half_a_minute_per_gb() -> None:
    assert gamersnexus.precondition_seconds(120 * GB) == 3600.0  # the review's 60 minutes for 120 GB
    assert gamersnexus.precondition_seconds(1000 * GB) == 30000.0
    # the media copy: 10.3 GB (decimal), whole 1 MiB IOs
    assert 10.3 * GB - MIB < gamersnexus.COPY_BYTES <= 10.3 * GB and gamersnexus.COPY_BYTES % MIB == 0
    assert gamersnexus.IOMETER_QDS == (1, 4, 32) and gamersnexus.REAL_WORLD_PCT == 46


@pytest.fixture(scope="module")
def gn() -> gamersnexus.GamersNexusResult:
    drive = Drive.from_preset("v300s-120gb", capacity_gb=4)
    return gamersnexus.run_gamersnexus(
        drive, test_s=0.1, anvil_s=0.05, copy_bytes=512 * MIB, archive_bytes=128 * MIB
    )


def test_gamersnexus_runs_the_method_in_order(gn: gamersnexus.GamersNexusResult) -> None:
    assert gn.precondition_s == gamersnexus.precondition_seconds(gn.capacity_bytes)  # 4 GB: 2 minutes
    assert [r.label for r in gn.iometer] == [
        f"{k} random {d} QD{q}" for k in ("4K", "1K") for d in ("read", "write") for q in (1, 4, 32)
    ]
    one_k = gn.row("1K random read QD32")
    assert one_k.bs == 1024 and one_k.mbps == pytest.approx(one_k.iops * 1024 / 1e6)
    assert gn.row("4K random read QD32").iops > 3 * gn.row("4K random read QD1").iops
    assert len(gn.anvil) == 2 * len(gamersnexus.ANVIL_ROWS)
    assert gn.scaled_down  # 0.1 s tests, a 512 MiB copy


def test_gamersnexus_media_copy_reads_and_writes_the_file_once(gn: gamersnexus.GamersNexusResult) -> None:
    assert gn.host_bytes["copy_read"] == gn.host_bytes["copy_write"] == 512 * MIB
    assert gn.host_bytes["extract_read"] == 128 * MIB
    # the files, plus one 4 KiB metadata write per 256 KiB file
    assert gn.host_bytes["extract_write"] == 256 * MIB + (256 * MIB // (256 * KIB)) * 4096
    assert gn.copy_s > 0 and gn.extract_s > 0
    assert gn.to_dict()["copy_mbps"] == pytest.approx(512 * MIB / 1e6 / gn.copy_s)


def test_the_file_tests_run_on_a_formatted_volume_not_on_the_preconditioned_data() -> None:
    """The volume made for the file tests TRIMs what preconditioning and IOMETER wrote: afterwards the drive
    maps only the files (Anvil's, the media file and its copy, the archive and what it extracts to), and
    the copy runs about as fast as on an erased drive, not at the garbage-collected speed of a full one."""

    def copy_s(trimmed: bool) -> tuple[float, float]:
        drive = Drive.from_preset("v300s-120gb", capacity_gb=8)
        if not trimmed:  # the drive full of random data, as the copy would find it without the TRIM
            drive.trim = lambda offset, length: None  # type: ignore[method-assign]
        res = gamersnexus.run_gamersnexus(
            drive, test_s=0.1, anvil_s=0.05, copy_bytes=3 * GB, archive_bytes=128 * MIB
        )
        return res.copy_s, drive.counters()["mapped_bytes"] / drive.capacity_bytes

    (formatted, mapped), (raw, full) = copy_s(True), copy_s(False)
    assert mapped < 0.8 and full > 0.95
    assert formatted < 0.5 * raw, (formatted, raw)


def test_gamersnexus_refuses_a_drive_too_small_for_its_files_saying_how_much_it_needs() -> None:
    """A 10.3 GB copy needs 20.6 GB (source and copy); an 8 GB drive is refused by name, before any IO."""
    drive = Drive.from_preset("v300s-120gb", capacity_gb=8)
    need = r"drive: too small: .* need at least 20.6 GB \(got v300s-120gb, 8.0 GB\)"
    with pytest.raises(ValueError, match=need):
        gamersnexus.run_gamersnexus(drive)
    assert drive.counters()["host_write_bytes"] == 0


def test_iometer_is_the_gamersnexus_suite() -> None:
    assert suites.get("iometer").run is suites.get("gamersnexus").run
    assert suites.result_name("iometer") == "gamersnexus"


# --- CrystalDiskMark profiles and data -------------------------------------------------------------------


def test_cdm_profiles_are_the_versions_rows() -> None:
    names = {v: [t.name for t in CDM_VERSIONS[v]] for v in ("8-realworld", "8-peak", "7-realworld", "7-peak")}
    assert names == {
        "8-realworld": ["SEQ1M Q1T1", "RND4K Q1T1"],
        "8-peak": ["SEQ1M Q8T1", "RND4K Q32T1"],
        "7-realworld": ["SEQ1M Q1T1", "RND4K Q1T1"],
        "7-peak": ["SEQ1M Q8T1", "RND4K Q32T16"],
    }
    assert {"cdm-realworld", "cdm-peak", "cdm8-realworld", "cdm7-peak"} <= set(suites.registry())
    assert suites.result_name("cdm-realworld") == "cdm8-realworld"


def test_cdm_takes_test_data_and_other_suites_refuse_it() -> None:
    suites.get("cdm-realworld").check(SuiteOptions(test_data="0x00"))
    with pytest.raises(Exception, match="does not take"):
        suites.get("fill").check(SuiteOptions(test_data="0x00"))


def test_cdm_0x00_writes_faster_than_random_on_a_compressing_drive() -> None:
    kw = {"version": "8-realworld", "test_size": "256m", "runs": 1, "duration": "0.2s", "warmup": 0}
    mbps = {}
    for data in ("random", "0x00"):
        res = run_cdm(Drive.from_preset("v300a-120gb", capacity_gb=8), test_data=data, interval=0, **kw)
        mbps[data] = res.row("SEQ1M Q1T1", "write").mbps
        assert "All 0x00" in str(res.table().title) or data == "random"
        assert res.spec() == []  # QD1 rows: not what a spec sheet quotes
    assert mbps["0x00"] > 1.3 * mbps["random"]


def test_atto_leaves_out_transfers_larger_than_the_total_length() -> None:
    res = atto.run_atto(
        Drive.from_preset("bg4-1tb", capacity_gb=8), total="8m", sizes=(4 * KIB, 8 * MIB, 16 * MIB)
    )
    assert [p.bs for p in res.points] == [4 * KIB, 8 * MIB], "ATTO offers no transfer above its total length"
