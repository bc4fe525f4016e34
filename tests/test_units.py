from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ssdlab import WorkloadError
from ssdlab.units import format_size, format_time, parse_size, parse_time_ns


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("4k", 4096),
        ("4K", 4096),
        ("4kb", 4096),
        ("4KiB", 4096),
        ("128k", 128 << 10),
        ("1m", 1 << 20),
        ("1000MiB", 1000 << 20),
        ("32g", 32 << 30),
        ("32G", 32 << 30),
        ("1t", 1 << 40),
        ("1.5g", 3 << 29),
        ("0", 0),
        ("4096", 4096),
        (" 8k ", 8192),
        (4096, 4096),
    ],
)
def test_sizes_use_fio_kb_base_1024(text: str | int, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("bad", ["4q", "", "k", "-4k", "4 kk", "1.5", "0.1k", "4e3", "4kx"])
def test_bad_size_names_field_value_and_what_is_allowed(bad: str) -> None:
    with pytest.raises(WorkloadError) as info:
        parse_size(bad, "bs")
    text = str(info.value)
    assert text.startswith("bs: ")
    assert info.value.field == "bs"
    assert info.value.value == bad


def test_bad_size_message_is_the_documented_one() -> None:
    with pytest.raises(
        WorkloadError, match=r"^bs: '4q' is not a size; use a number with an optional k, m, g or t"
    ):
        parse_size("4q", "bs")


@pytest.mark.parametrize("bad", [-1, True, 1.5, None])
def test_non_size_types_are_rejected(bad: object) -> None:
    with pytest.raises(WorkloadError, match=r"^size: "):
        parse_size(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("5s", 5_000_000_000),
        ("100ms", 100_000_000),
        ("250us", 250_000),
        ("10m", 600_000_000_000),
        ("1h", 3_600_000_000_000),
        ("0.2s", 200_000_000),
        ("1500ns", 1500),
        ("5", 5_000_000_000),
        (5, 5_000_000_000),
        (0.5, 500_000_000),
    ],
)
def test_times_default_to_seconds_like_fio_runtime(text: str | int | float, expected: int) -> None:
    assert parse_time_ns(text) == expected


def test_bare_thinktime_is_microseconds_as_in_fio() -> None:
    assert parse_time_ns(10, "thinktime", default_unit="us") == 10_000
    assert parse_time_ns("10", "thinktime", default_unit="us") == 10_000


@pytest.mark.parametrize("bad", ["5x", "s", "fast", "-1s", "1.5ns"])
def test_bad_time_names_the_field(bad: str) -> None:
    with pytest.raises(WorkloadError, match=r"^runtime: .*(not a time|whole number)") as info:
        parse_time_ns(bad, "runtime")
    assert info.value.field == "runtime"


@given(st.integers(min_value=0, max_value=1 << 60))
def test_size_format_parse_round_trip(n: int) -> None:
    assert parse_size(format_size(n)) == n


@given(
    st.integers(min_value=0, max_value=10**15), st.sampled_from(["", "k", "m", "g", "t", "kib", "MiB", "GB"])
)
def test_size_suffix_multiplies_by_power_of_two(n: int, suffix: str) -> None:
    power = {"": 0, "k": 10, "m": 20, "g": 30, "t": 40}[suffix[:1].lower()]
    if n << power < 2**64:
        assert parse_size(f"{n}{suffix}") == n << power
    else:  # past what the engine counts in 64 bits: an error naming the field, not an OverflowError later
        with pytest.raises(WorkloadError, match=r"^size: .*2\*\*64 - 1"):
            parse_size(f"{n}{suffix}")


@given(st.integers(min_value=0, max_value=10**15))
def test_time_format_parse_round_trip(ns: int) -> None:
    assert parse_time_ns(format_time(ns)) == ns
