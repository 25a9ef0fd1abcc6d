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
