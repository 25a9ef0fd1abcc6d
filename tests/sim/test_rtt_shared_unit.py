"""A scenario's or simulate's RTTs written as tc and iperf3 users write them: one unit for a range
or a list (5..80ms, 20,50ms), as recommend reads them."""

import pytest

from bufsize.errors import ScenarioError
from bufsize.scenario import Scenario


def _rtt(text):
    return Scenario.dumbbell(capacity="10Mbps", flows=4, rtt=text, buffer=20).to_dict()["dumbbell"]["rtt_s"]


def test_a_range_or_list_shares_its_one_unit():
    assert _rtt("5..80ms") == {"uniform": [pytest.approx(0.005), pytest.approx(0.08)]}
    assert _rtt("20,50ms") == {"list": [pytest.approx(0.02), pytest.approx(0.05)]}
    assert _rtt("5ms..80ms") == _rtt("5..80ms")


def test_no_unit_or_two_units_is_still_refused():
    with pytest.raises(ScenarioError, match="no unit"):
        _rtt("5..80")
    with pytest.raises(ScenarioError):
        _rtt("5s..80ms,x")


@pytest.mark.parametrize("text, needle", [("20ms,,40ms", "empty item"), ("20ms,40ms,", "empty item"),
                                          ("0.1ns", "below 1 µs")])
def test_an_empty_list_item_or_a_sub_microsecond_rtt_is_refused(text, needle):
    with pytest.raises(ScenarioError, match=needle):
        _rtt(text)


def test_recommend_refuses_an_empty_rtt_item_too():
    from bufsize.errors import BufsizeError
    from bufsize.recommendation import recommend

    with pytest.raises(BufsizeError, match="empty item"):
        recommend(capacity="10Mbps", rtt="20ms,,40ms", flows=2)
