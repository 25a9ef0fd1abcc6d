import math

import pytest
from hypothesis import given, strategies as st

from bufsize import units
from bufsize.errors import BufsizeError, UnitError


@pytest.mark.parametrize(
    "text, bps",
    [("155Mbps", 155e6), ("10Gb/s", 10e9), ("100mbit", 100e6), ("1.5 Gbit/s", 1.5e9),
     ("12.5MB/s", 100e6), ("622Mbps", 622e6), ("1Kibps", 1024.0), ("2.5e6bps", 2.5e6)],
)
def test_rates(text, bps):
    assert units.parse_rate(text) == pytest.approx(bps)


@pytest.mark.parametrize(
    "text, s", [("80ms", 0.08), ("1.5s", 1.5), ("250us", 250e-6), ("2min", 120.0), ("10 ns", 1e-8)]
)
def test_times(text, s):
    assert units.parse_time(text) == pytest.approx(s)


@pytest.mark.parametrize(
    "text, b",
    [("1500B", 1500), ("64KiB", 65536), ("38MiB", 38 * 2**20), ("7.5MB", 7.5e6), ("2Mb", 250000),
     ("1kB", 1000)],
)
def test_sizes(text, b):
    assert units.parse_size(text) == pytest.approx(b)


def test_packets_and_buffers():
    assert units.parse_packets("1e6pkt") == 1e6
    assert units.parse_packets("52") == 52
    assert units.parse_buffer("64KiB", packet_size=1500) == pytest.approx(43.690666, rel=1e-6)
    assert units.parse_buffer("52pkt", packet_size=1000) == 52
    # 10 ms of queueing at 155 Mb/s with 1500-byte packets
    assert units.parse_buffer("10ms", packet_size=1500, capacity=155e6) == pytest.approx(129.1666, rel=1e-4)


def test_testbed_buffer_p40():
    # P-40: 38 MiB / 1500 B = 26 563.9 packets (paper 26 564)
    assert units.bytes_to_packets(units.parse_size("38MiB"), 1500) == pytest.approx(26563.9, abs=0.05)


def test_rtt_lists_and_ranges():
    assert units.parse_time_list("20ms..140ms") == pytest.approx((0.02, 0.14))
    assert units.parse_time_list("30ms,50ms,120ms") == pytest.approx([0.03, 0.05, 0.12])
    with pytest.raises(UnitError):
        units.parse_time_list("140ms..20ms")


@pytest.mark.parametrize(
    "fn, text",
    [(units.parse_rate, "155Mfoo"), (units.parse_rate, "80ms"), (units.parse_time, "80"),
     (units.parse_time, "-5ms"), (units.parse_rate, "0Mbps"), (units.parse_rate, "nanMbps"),
     (units.parse_rate, "infGbps"), (units.parse_size, "abc"), (units.parse_time, "")],
)
def test_bad_input_is_one_line_value_error(fn, text):
    with pytest.raises(BufsizeError) as exc:
        fn(text, argument="--x")
    assert isinstance(exc.value, ValueError)
    msg = str(exc.value)
    assert msg.startswith("--x: ") and "\n" not in msg


def test_fraction():
    assert units.parse_fraction("99%") == pytest.approx(0.99)
    assert units.parse_fraction("0.98") == 0.98
    for bad in ("1", "0", "1.2", "-0.1", "nan"):
        with pytest.raises(UnitError):
            units.parse_fraction(bad)


def test_formatting_round_trips():
    assert units.format_rate(155e6) == "155 Mb/s"
    assert units.format_time(0.08) == "80 ms"
    assert units.format_size(1.5e6) == "1.5 MB"
    assert units.parse_rate(units.format_rate(2.5e9).replace(" ", "")) == pytest.approx(2.5e9)


@given(st.floats(min_value=1e-3, max_value=1e13, allow_nan=False))
def test_rate_format_parse_roundtrip(x):
    back = units.parse_rate(units.format_rate(x, digits=12).replace(" ", ""))
    assert math.isclose(back, x, rel_tol=1e-9)
