"""Quantities as a user types them: counts with thousands, ranges with a dash, bare prefixes,
bytes per second, and the bare-number rule (only packet counts may lack a unit)."""

from __future__ import annotations

import pytest

from bufsize import units
from bufsize.errors import UnitError


@pytest.mark.parametrize("text, value", [("20k", 20_000), ("20,000", 20_000), ("1,250,000", 1_250_000),
                                         ("1.5M", 1_500_000), ("20_000", 20_000), ("400", 400)])
def test_counts_accept_the_forms_the_tables_print(text, value):
    assert units.parse_count(text, argument="--flows") == value


@pytest.mark.parametrize("text", ["20,00", "2,0000", "1.5k5", "0.0005k"])
def test_malformed_counts_are_refused(text):
    with pytest.raises(UnitError, match="--flows"):
        units.parse_count(text, argument="--flows")


def test_a_dash_range_points_to_the_dot_dot_form():
    with pytest.raises(UnitError, match=r"5ms\.\.200ms") as exc:
        units.parse_time_list("5-200ms", argument="--rtt")
    assert str(exc.value).startswith("--rtt: ") and "\n" not in str(exc.value)
    # a unit on both sides is kept
    with pytest.raises(UnitError, match=r"5ms\.\.200ms"):
        units.parse_time_list("5ms-200ms", argument="--rtt")
    # the proper forms still work
    assert units.parse_time_list("5ms..200ms") == pytest.approx((0.005, 0.2))


def test_an_unknown_unit_lists_the_units_of_the_dimension():
    with pytest.raises(UnitError) as exc:
        units.parse_rate("100Gi", argument="--capacity")  # (a bare decimal prefix, 100G, is iperf3's bits/s)
    msg = str(exc.value)
    assert "unknown unit 'Gi'" in msg and "bps" in msg and "Bps" in msg and "did you mean 100Gibps" in msg
    with pytest.raises(UnitError, match="a time takes s, ms"):
        units.parse_time("80 millis", argument="--rtt")


def test_bytes_per_second_says_what_it_means(capsys):
    units._noted.clear()
    assert units.parse_rate("100GBps") == pytest.approx(800e9)
    err = capsys.readouterr().err
    assert "bytes per second" in err and "800 Gb/s" in err and "100Gbps" in err
    units.parse_rate("100GBps")  # said once per process
    assert capsys.readouterr().err == ""
    assert units.parse_rate("100Gbps") == pytest.approx(100e9)
    assert capsys.readouterr().err == ""


def test_bare_numbers_are_packets_only():
    # the rule shared by simulate --buffer and recommend --max-window: a bare number is packets
    assert units.parse_buffer("5", packet_size=1500) == 5.0
    assert units.parse_packets("5") == 5.0
    # a time, rate or size typed without its unit is refused, with the rule in the message
    for parse in (units.parse_time, units.parse_rate, units.parse_size):
        with pytest.raises(UnitError, match="only packet counts may be bare numbers"):
            parse("5", argument="x")


def test_simulate_and_recommend_read_a_bare_buffer_and_window_alike():
    from bufsize.recommendation import parse_input
    from bufsize.scenario import Scenario

    for bare in (5, "5"):
        sc = Scenario.dumbbell(capacity="10Mbps", flows="20k", rtt="50ms", buffer=bare)
        assert sc.to_dict()["dumbbell"]["buffer"] == {"limit_packets": 5}
        assert sc.to_dict()["dumbbell"]["flows"] == 20_000
    inp = parse_input(capacity="1Gbps", rtt="50ms", flows=10, max_window="5")
    assert inp.max_window_packets == 5.0
