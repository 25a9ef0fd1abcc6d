"""The forms people type from tc and iperf3 habits are read when only one reading exists: a rate
with a bare decimal prefix (``10G``: bits per second, as ``iperf3 -b 10G``) and a range or list of
times with the unit written once (``5..80ms``). Forms with two readings are still refused."""

from __future__ import annotations

import pytest

from bufsize import units
from bufsize.errors import UnitError


@pytest.mark.parametrize("text, bps", [("10G", 10e9), ("500M", 500e6), ("100k", 100e3), ("1.5T", 1.5e12),
                                       ("10g", 10e9), (" 40 G ", 40e9)])
def test_a_rate_with_a_bare_prefix_is_bits_per_second(text, bps):
    assert units.parse_rate(text) == pytest.approx(bps)


def test_a_bare_prefix_is_a_rate_only_where_a_rate_is_asked_for():
    with pytest.raises(UnitError, match="unknown unit 'G'"):
        units.parse_time("10G", argument="--rtt")
    with pytest.raises(UnitError, match="unknown unit 'G'"):
        units.parse_size("10G", argument="--packet-size")


@pytest.mark.parametrize("bad", ["0G", "-1G", "infG"])
def test_a_bare_prefix_rate_is_checked_like_any_rate(bad):
    with pytest.raises(UnitError, match=r"^--capacity: "):
        units.parse_rate(bad, argument="--capacity")


@pytest.mark.parametrize("text, expected", [
    ("5..80ms", (0.005, 0.08)),
    ("5ms..80", (0.005, 0.08)),
    ("1..2s", (1.0, 2.0)),
    ("5ms..80ms", (0.005, 0.08)),
])
def test_a_range_of_times_may_write_its_unit_once(text, expected):
    assert units.parse_time_list(text) == pytest.approx(expected)


def test_a_list_of_times_may_write_its_unit_once():
    assert units.parse_time_list("20,50,120ms") == pytest.approx([0.02, 0.05, 0.12])


def test_a_range_with_two_units_or_none_is_still_refused():
    with pytest.raises(UnitError, match="'5' has no unit"):
        units.parse_time_list("5..80", argument="--rtt")          # no unit anywhere: seconds? ms?
    with pytest.raises(UnitError, match="'5' has no unit"):
        units.parse_time_list("5,20ms,1s", argument="--rtt")     # which of ms and s did 5 mean?


def test_the_command_line_takes_the_iperf3_and_range_forms(capsys):
    from bufsize.cli import main

    assert main(["recommend", "--capacity", "10G", "--rtt", "5..80ms", "--flows", "100", "--no-verify"]) == 0
    out = capsys.readouterr().out
    assert "10 Gb/s" in out and "RTT 5 ms..80 ms" in out


def test_a_bad_capacity_is_a_one_line_error_with_exit_2(capsys):
    from bufsize.cli import main

    assert main(["recommend", "--capacity", "10Q", "--rtt", "5..80ms", "--flows", "100", "--no-verify"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bufsize: error: --capacity:") and "\n" not in err
