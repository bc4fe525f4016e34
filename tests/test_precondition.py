"""Preconditioning (drive state) and the SNIA PTS steady-state test."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import ssdlab
from ssdlab import precondition
from ssdlab.precondition import first_steady_round, steady_state

#: A 4 GB drive on the preset's NAND: every fill is a fraction of a second.
SMALL = {"ftl.user_capacity_gb": 4}


@pytest.fixture
def drive() -> ssdlab.Drive:
    return ssdlab.Drive.from_preset("bg4-1tb", set=SMALL)


def test_docstring_examples() -> None:
    result = doctest.testmod(precondition, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 10 and result.failed == 0


# ------------------------------------------------------------------------------------------ steady state


def test_steady_state_hand_computed() -> None:
    # mean 100, max - min = 4 (4% <= 20%); x = 1..5, x - xm = -2..2,
    # sum((x-xm)(y-ym)) = 4 - 2 + 0 + 1 + 0 = 3, sum((x-xm)^2) = 10, slope 0.3, x 5 = 1.5 (1.5% <= 10%)
    s = steady_state([98, 102, 99, 101, 100])
    assert s.steady
    assert (s.average, s.data_excursion) == (100.0, 4.0)
    assert s.slope == pytest.approx(0.3) and s.slope_excursion == pytest.approx(1.5)
    assert s.data_excursion_fraction == pytest.approx(0.04)
    assert s.slope_excursion_fraction == pytest.approx(0.015)


def test_steady_state_slope_fails_alone() -> None:
    # A ramp 90..110: data excursion 20 = 20% of 100 passes (<=), slope 5 x 5 = 25 > 10 fails.
    s = steady_state([90, 95, 100, 105, 110])
    assert not s.steady
    assert s.data_excursion == 20.0 and s.slope == pytest.approx(5.0)
    assert s.slope_excursion == pytest.approx(25.0)
    assert s.reason.startswith("slope excursion")


def test_steady_state_data_fails_alone() -> None:
    # A spike in the middle: slope 0 (symmetric), data excursion 30 > 20% of 106.
    s = steady_state([100, 100, 130, 100, 100])
    assert s.slope == pytest.approx(0.0)
    assert not s.steady and s.reason.startswith("data excursion")
    assert s.average == 106.0 and s.data_limit == pytest.approx(21.2)


def test_steady_state_boundaries_are_inclusive() -> None:
    # max - min exactly 20% of the average: 90, 110 around 100, slope 0.
    assert steady_state([90, 110, 100, 110, 90]).steady
    # The slope limit: y = 100 + 2x - 6 over x = 1..5 has mean 100, slope 2, x 5 = 10 = 10% of 100.
    s = steady_state([96, 98, 100, 102, 104])
    assert s.slope_excursion == pytest.approx(10.0) and s.steady


def test_steady_state_window_is_the_last_rounds() -> None:
    assert steady_state([10_000, 1, 100, 100, 100, 100, 100]).steady
    assert not steady_state([100, 100, 100, 100, 100, 10_000]).steady
    short = steady_state([100, 100, 100, 100])
    assert not short.steady and short.rounds == 4
    assert steady_state([100, 100, 100], window=3).steady
    assert first_steady_round([500, 300, 200, 100, 100, 100, 100, 100, 100]) == 8
    assert first_steady_round([100, 200, 100, 200, 100, 200]) is None


def test_steady_state_rejects_bad_window() -> None:
    with pytest.raises(ssdlab.WorkloadError):
        steady_state([1, 2, 3], window=1)


values = st.floats(min_value=1.0, max_value=1e7, allow_nan=False, allow_infinity=False)


@given(value=values, n=st.integers(min_value=5, max_value=30))
def test_constant_series_is_steady(value: float, n: int) -> None:
    s = steady_state([value] * n)
    assert s.steady and s.data_excursion == 0.0 and s.slope_excursion == pytest.approx(0.0, abs=1e-9 * value)


@given(
    base=values,
    jump=st.floats(min_value=0.5, max_value=100.0),
    at=st.integers(min_value=1, max_value=4),
    up=st.booleans(),
    noise=st.lists(st.floats(min_value=-0.01, max_value=0.01), min_size=5, max_size=5),
    history=st.lists(values, max_size=10),
)
def test_big_jump_in_window_is_not_steady(
    base: float, jump: float, at: int, up: bool, noise: list[float], history: list[float]
) -> None:
    # A step of at least 50% inside the last 5 rounds: max - min is at least a third of the window average.
    high = base * (1 + jump)
    window = [(base if (i < at) == up else high) * (1 + e) for i, e in enumerate(noise)]
    assert not steady_state([*history, *window]).steady


@given(rounds=st.lists(values, min_size=5, max_size=12), k=st.integers(min_value=-30, max_value=30))
def test_scaling_by_a_power_of_two_keeps_the_verdict(rounds: list[float], k: int) -> None:
    # Multiplying by 2^k is exact in binary floating point, so every quantity scales exactly.
    a, b = steady_state(rounds), steady_state([v * 2.0**k for v in rounds])
    assert a.steady == b.steady
    assert b.average == a.average * 2.0**k and b.data_excursion == a.data_excursion * 2.0**k


@given(rounds=st.lists(values, min_size=5, max_size=12), scale=st.floats(min_value=1e-3, max_value=1e3))
def test_scaling_keeps_the_verdict(rounds: list[float], scale: float) -> None:
    a = steady_state(rounds)
    # Away from the exact limits, where rounding in the last bit could tip the comparison.
    assume(abs(a.data_excursion_fraction - 0.20) > 1e-9 and abs(a.slope_excursion_fraction - 0.10) > 1e-9)
    b = steady_state([v * scale for v in rounds])
    assert a.steady == b.steady
    assert b.data_excursion_fraction == pytest.approx(a.data_excursion_fraction)


# ------------------------------------------------------------------------------------------- drive state


def test_sequential_fill_maps_the_whole_drive(drive: ssdlab.Drive) -> None:
    seen: list[float] = []
    phase = precondition.sequential_fill(drive, progress=lambda f, _what: seen.append(f))
    c = drive.counters()
    assert c["mapped_bytes"] == drive.capacity_bytes
    assert c["host_write_bytes"] == drive.capacity_bytes == phase.host_bytes
    assert phase.elapsed_s == pytest.approx(drive.now_s) and phase.mbps > 0
    assert seen[-1] == 1.0 and all(0.0 <= f <= 1.0 for f in seen)
    # Twice over: the second pass overwrites, the mapped bytes stay at the capacity.
    phase = precondition.sequential_fill(drive, times=2)
    assert phase.counters["host_write_bytes"] == 2 * drive.capacity_bytes
    assert drive.counters()["mapped_bytes"] == drive.capacity_bytes


def test_snia_wipc_writes_twice_the_capacity(drive: ssdlab.Drive) -> None:
    phase = precondition.snia_wipc(drive)
    c = drive.counters()
    assert c["host_write_bytes"] == 2 * drive.capacity_bytes == phase.host_bytes
    assert c["mapped_bytes"] == drive.capacity_bytes
    # 128 KiB writes, and a tail of under 128 KiB in 4 KiB writes, twice.
    whole, tail = divmod(drive.capacity_bytes, 128 << 10)
    assert c["host_write_ios"] == 2 * (whole + tail // 4096)


def test_random_fragment_scatters_and_overwrites(drive: ssdlab.Drive) -> None:
    phase = precondition.random_fragment(drive, bytes="1g", seed=3)
    c = drive.counters()
    assert c["host_write_bytes"] == 1 << 30 == phase.host_bytes
    assert c["host_write_ios"] == (1 << 30) // 4096
    # Uniform random 4 KiB writes of a quarter of the drive hit some pages twice: fewer pages mapped.
    assert 0.8 * (1 << 30) < c["mapped_bytes"] < (1 << 30)
    full = precondition.random_fragment(drive.clone())
    assert full.host_bytes == drive.capacity_bytes // 4096 * 4096


def test_trim_all_unmaps_everything(drive: ssdlab.Drive) -> None:
    precondition.sequential_fill(drive)
    phase = precondition.trim_all(drive)
    c = drive.counters()
    assert c["mapped_bytes"] == 0.0
    assert c["trimmed_pages"] == drive.capacity_bytes // 4096
    assert phase.counters["trimmed_pages"] == drive.capacity_bytes // 4096


def test_purge_sanitizes_in_place_keeping_wear_counters_and_time(drive: ssdlab.Drive) -> None:
    config = drive.config_toml()
    precondition.random_fragment(drive, bytes="512m")
    before, t0 = drive.counters(), drive.now_s
    assert precondition.purge(drive) is drive
    c = drive.counters()
    assert c["mapped_bytes"] == 0.0 and drive.config_toml() == config
    assert c["host_write_bytes"] == before["host_write_bytes"]
    assert c["nand_blocks_erased"] > before["nand_blocks_erased"] and drive.now_s > t0


def test_fresh_is_indistinguishable_from_new(drive: ssdlab.Drive) -> None:
    precondition.random_fragment(drive, bytes="512m")
    assert precondition.fresh(drive) is drive
    c = drive.counters()
    assert c["host_write_bytes"] == c["mapped_bytes"] == c["nand_pages_programmed"] == 0.0
    assert drive.now_s == 0.0
    # the same workload gives the same counters as on a new drive
    w = ssdlab.Workload(rw="randwrite", bs="4k", iodepth=32, size="1g", runtime="20ms", seed=9)
    new = ssdlab.Drive.from_preset("bg4-1tb", set=SMALL)
    assert drive.run(w).counters == new.run(w).counters


def test_preconditioned_state_can_be_cloned_and_reused(drive: ssdlab.Drive) -> None:
    precondition.sequential_fill(drive)
    snapshot = drive.clone()
    precondition.trim_all(drive)
    assert snapshot.counters()["mapped_bytes"] == snapshot.capacity_bytes
    assert drive.counters()["mapped_bytes"] == 0.0
