"""What holds for every real SSD, checked on every preset: relations, not figures.

Most presets are built from hardware facts and family values (docs/model.md), and their figures are checked on
data we do not have. Whatever a family value or the engine becomes, a twin must still behave like a drive:
deeper queues never make random reads or writes slower, a sequential read never loses to 4 KiB random reads,
nothing moves faster than its link's line rate, a family's larger members (more of the same die, the same
controller) are never slower than its smaller ones, sequential transfers draw more power and less energy per
byte than QD1 random reads, and a sequential fill from empty fills the drive, moves nothing by GC (it
overwrites nothing) and writes each byte at most twice (into the SLC cache, then folded out of it), and
random reads over a larger span are never faster (the map cache covers less of it) and never faster without
the host memory buffer than with it. Each check names the preset and the figures that broke it.

Every drive is measured once (about 0.1 s of wall time a preset): 1 GiB written by 128 KiB sequential writes
at QD32 and 5 s of idle, then on clones of that state 4 KiB random reads at QD1/4/32 and 128 KiB sequential
reads at QD1/32; 4 KiB random writes at QD1/32 on a clone of the empty drive. The fills (slow-marked) take
about 40 s for all presets.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass

import pytest

import ssdlab
from ssdlab.presets import list_presets
from ssdlab.suites.fill import FillResult, run_fill

GIB = 1 << 30
#: Raw line rate per lane, MB/s: PCIe 1-2 and SATA are 8b/10b; PCIe 3 (8 GT/s) and later 128b/130b.
PCIE_LANE_MBPS = {1: 250.0, 2: 500.0, 3: 1000 * 128 / 130, 4: 2000 * 128 / 130, 5: 4000 * 128 / 130}
SATA_MBPS = {1: 150.0, 2: 300.0, 3: 600.0}
#: Family members built from the same die, from the fewest dies to the most (same controller too). A larger
#: die is another part, which may be slower (bg4-1tb's 512 Gbit dies, bg3-128gb's 256 Gbit ones): not listed.
FAMILIES = {
    "BG4 (256 Gbit dies)": ["bg4-128gb", "bg4-256gb", "bg4-512gb"],
    "BG3 (512 Gbit dies)": ["bg3-256gb", "bg3-512gb"],
    "SN500/SN520 (256 Gbit dies)": ["sn520-128gb", "sn500-250gb"],
}
#: A deeper queue may lose this little to a shallower one (rounding of short runs), no more.
SLACK = 0.98


@dataclass(frozen=True)
class Measured:
    preset: str
    seq_write_mbps: float  # 128 KiB QD32 on the empty drive
    rand_read_iops: dict[int, float]  # 4 KiB by QD
    seq_read_mbps: dict[int, float]  # 128 KiB by QD
    rand_write_iops: dict[int, float]  # 4 KiB by QD, empty drive
    link_mbps: float  # raw line rate
    qd1_read_w: float
    seq_read_w: float
    qd1_read_uj_per_byte: float
    seq_read_uj_per_byte: float


def _link_mbps(d: ssdlab.Drive) -> float:
    gen, lanes = int(d.config_value("link.gen")), int(d.config_value("link.lanes"))
    if d.config_value("link.kind") == "sata":
        return SATA_MBPS[gen]
    return PCIE_LANE_MBPS[gen] * lanes


def _measure(preset: str) -> Measured:
    empty = ssdlab.Drive.from_preset(preset)
    d = empty.clone()
    fill = d.run(ssdlab.Workload(rw="write", bs="128k", iodepth=32, size=GIB))
    d.idle("5s")

    def rand_read(qd: int) -> ssdlab.Result:
        return d.clone().run(ssdlab.Workload(rw="randread", bs="4k", iodepth=qd, size=GIB, runtime="200ms"))

    def seq_read(qd: int) -> ssdlab.Result:
        return d.clone().run(ssdlab.Workload(rw="read", bs="128k", iodepth=qd, size=GIB, io_size=GIB // 2))

    def rand_write(qd: int) -> ssdlab.Result:
        return empty.clone().run(
            ssdlab.Workload(rw="randwrite", bs="4k", iodepth=qd, size=GIB, runtime="200ms")
        )

    rr = {qd: rand_read(qd) for qd in (1, 4, 32)}
    sr = {qd: seq_read(qd) for qd in (1, 32)}
    rw = {qd: rand_write(qd) for qd in (1, 32)}
    return Measured(
        preset=preset,
        seq_write_mbps=fill.write.mbps,
        rand_read_iops={qd: r.read.iops for qd, r in rr.items()},
        seq_read_mbps={qd: r.read.mbps for qd, r in sr.items()},
        rand_write_iops={qd: r.write.iops for qd, r in rw.items()},
        link_mbps=_link_mbps(d),
        qd1_read_w=rr[1].counters["avg_power_w"],
        seq_read_w=sr[32].counters["avg_power_w"],
        qd1_read_uj_per_byte=rr[1].counters["energy_per_io_uj"] / 4096,
        seq_read_uj_per_byte=sr[32].counters["energy_per_io_uj"] / (128 << 10),
    )


_cache: dict[str, Measured] = {}


def measured(preset: str) -> Measured:
    if preset not in _cache:
        _cache[preset] = _measure(preset)
    return _cache[preset]


PRESETS = list_presets()


def test_the_families_name_real_presets() -> None:
    assert {p for members in FAMILIES.values() for p in members} <= set(PRESETS)


@pytest.mark.parametrize("preset", PRESETS)
def test_a_deeper_queue_never_slows_random_reads_or_writes(preset: str) -> None:
    m = measured(preset)
    r, w = m.rand_read_iops, m.rand_write_iops
    assert r[4] >= SLACK * r[1] and r[32] >= SLACK * r[4], f"{preset} 4 KiB random read IOPS by QD: {r}"
    assert r[32] > 2 * r[1], f"{preset}: QD32 random reads use more than one die at once: {r}"
    assert w[32] >= SLACK * w[1], f"{preset} 4 KiB random write IOPS by QD: {w}"


@pytest.mark.parametrize("preset", PRESETS)
def test_sequential_reads_beat_random_reads_and_stay_under_the_link(preset: str) -> None:
    m = measured(preset)
    rand_mbps = m.rand_read_iops[32] * 4096 / 1e6
    seq = m.seq_read_mbps
    assert seq[32] >= SLACK * seq[1], f"{preset} 128 KiB read MB/s by QD: {seq}"
    assert seq[32] > rand_mbps, f"{preset}: seq {seq[32]:.0f} vs 4K {rand_mbps:.0f} MB/s at QD32"
    for what, mbps in (("read", m.seq_read_mbps[32]), ("write", m.seq_write_mbps)):
        assert 0 < mbps < m.link_mbps, f"{preset} seq {what} {mbps:.0f} MB/s, line rate {m.link_mbps:.0f}"


@pytest.mark.parametrize("preset", PRESETS)
def test_sequential_transfers_draw_more_power_and_less_energy_a_byte(preset: str) -> None:
    m = measured(preset)
    assert m.seq_read_w > m.qd1_read_w, f"{preset}: {m.seq_read_w:.3f} W seq vs {m.qd1_read_w:.3f} W QD1 4K"
    assert m.seq_read_uj_per_byte < m.qd1_read_uj_per_byte / 4, (
        f"{preset}: {m.seq_read_uj_per_byte:.2e} uJ/B seq vs {m.qd1_read_uj_per_byte:.2e} uJ/B QD1 4K"
    )


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
                f"{family} {name}: {large.preset} {of(large):,.0f} < {small.preset} {of(small):,.0f}"
            )


def test_two_lanes_are_never_faster_than_four() -> None:
    x2, x4 = measured("bg4-1tb-x2"), measured("bg4-1tb")
    assert x2.link_mbps == x4.link_mbps / 2
    assert x2.seq_read_mbps[32] <= x4.seq_read_mbps[32]
    assert x2.seq_write_mbps <= x4.seq_write_mbps


@functools.cache
def filled(preset: str) -> FillResult:
    return run_fill(ssdlab.Drive.from_preset(preset))


@pytest.mark.slow
@pytest.mark.parametrize("preset", [p for p in PRESETS if p != "enterprise-tlc"])  # 960 GB, no SLC cache
def test_a_sequential_fill_from_empty_writes_each_byte_at_most_twice(preset: str) -> None:
    r = filled(preset)
    c = r.counters
    assert r.points[-1].host_bytes == r.capacity_bytes, f"{preset} stopped before full"
    assert c["gc_page_moves"] == 0, f"{preset}: GC moved {c['gc_page_moves']:.0f} pages in a sequential fill"
    assert 1.0 <= c["waf"] <= 2.05, f"{preset}: WAF {c['waf']:.3f} (SLC once, folded once, the map's share)"
    fastest = max(r.mbps)
    assert r.mbps[0] >= SLACK * fastest, f"{preset}: first GB {r.mbps[0]:.0f}, fastest {fastest:.0f} MB/s"


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


SPANS_GIB = (1, 8, 64)


def _span_iops(preset: str, withhold_hmb: bool = False) -> dict[tuple[int, int], float]:
    """4 KiB random-read IOPS by (QD, span in GiB, at most half the drive), the spans written first. The SLC
    cache is off, so every byte is read from the native cells and the span changes only the map's part."""
    sets: dict[str, object] = {"ftl.slc_cache.enabled": False}
    if withhold_hmb:
        sets["controller.map_cache.location"] = "sram"
    d = ssdlab.Drive.from_preset(preset, set=sets)
    written = min(SPANS_GIB[-1] * GIB, d.capacity_bytes // 2)
    d.run(ssdlab.Workload(rw="write", bs="128k", iodepth=32, size=written))

    def iops(qd: int, gib: int) -> float:
        w = ssdlab.Workload(rw="randread", bs="4k", iodepth=qd, size=min(gib * GIB, written), runtime="300ms")
        return d.clone().run(w).read.iops

    return {(qd, gib): iops(qd, gib) for qd in (1, 32) for gib in SPANS_GIB}


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS)
def test_random_reads_over_a_larger_span_or_without_the_hmb_are_never_faster(preset: str) -> None:
    """The HMB side is checked over the spans every preset's HMB maps whole (up to 8 GiB; the smallest, the
    BG3's, maps 16 GiB: its 38 MiB's map share, 75%, to a power of two). Past that span the model's HMB caches
    whole map pages, so its misses decode four codewords where the SRAM's decode one, and the BG3 reads 2-4%
    faster at QD1 over 64 GiB with the HMB withheld: a known gap (docs/model.md, "Not modelled yet")."""
    on = _span_iops(preset)
    for qd in (1, 32):
        by_span = [on[qd, gib] for gib in SPANS_GIB]
        for a, b in itertools.pairwise(by_span):
            assert b <= a / SLACK, f"{preset} QD{qd} IOPS over {SPANS_GIB} GiB: {[round(x) for x in by_span]}"
    if ssdlab.Drive.from_preset(preset).config_value("controller.map_cache.location") == "hmb":
        off = _span_iops(preset, withhold_hmb=True)
        for (qd, gib), iops in off.items():
            if gib <= 8:
                assert iops <= on[qd, gib] / SLACK, (
                    f"{preset} QD{qd} over {gib} GiB: {iops:.0f} IOPS without the HMB, {on[qd, gib]:.0f} with"
                )
