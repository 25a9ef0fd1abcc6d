"""A goal on the simulated queueing delay's 99th percentile: a cap (more buffer, more delay), checked
at the verified size; a size above one whose runs queued too long misses it too."""

import pytest

from bufsize.errors import BufsizeError
from bufsize.recommendation import recommend
from bufsize.recommendation import verification as V

LINK = dict(capacity="100Mbps", rtt="10ms..60ms", flows=30)


def test_a_loose_p99_goal_is_met_at_the_verified_size():
    v = recommend(**LINK, max_delay_p99="50ms", verify=True).verified
    assert v.status in ("verified", "lower-bound") and v.goals.max_delay_p99_s == 0.05
    assert v.at_size["queue_delay_p99_s"] <= 0.05 and v.at_size["goals"]["delay_p99"]["mean_ok"]


def test_a_p99_goal_below_what_the_utilization_goal_needs_is_infeasible_with_the_best_size():
    v = recommend(**LINK, max_delay_p99="1ms", verify=True).verified
    assert v.status == "infeasible" and v.buffer_packets is None
    assert "p99 queueing delay ≤ 1 ms is missed" in v.statement
    assert v.best["queue_delay_p99_s"] > 0.001


def _size(b, p99):
    runs = [{"seed": i, "utilization": 0.995, "loss_rate": 0.0, "queue_delay_p99_s": p99} for i in range(3)]
    return V.SizeResult(b, runs)


def test_sizes_above_one_that_queues_too_long_miss_the_p99_goal():
    g = V.Goals(0.98, max_delay_p99_s=0.005)
    sizes = {b: V.judge(_size(b, d), g, capacity_pps=1e4) for b, d in ((20, 0.002), (60, 0.008))}
    assert sizes[60].misses() == ["delay_p99"] and not sizes[20].misses()
    v = V._verdicts({"small": 20, "mid": 40, "big": 90}, sizes, 20, "verified", g, 1e4, [])
    assert v["big"]["verdict"] == "unsafe" and v["big"]["misses"] == ["delay_p99"]
    assert v["mid"]["verdict"] != "unsafe"   # between a size that meets it and one that misses: not implied


def test_p99_goal_needs_the_simulator():
    with pytest.raises(BufsizeError, match="--max-delay-p99"):
        recommend(**LINK, max_delay_p99="5ms", verify=False)
