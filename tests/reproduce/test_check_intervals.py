"""A check's margin and its interval over seeds, and what they do to an item's status."""

import math

import pytest

from bufsize.reproduce._core import (check_at_least, check_range, check_true, clear_of_threshold, margin,
                                     seed_interval)
from bufsize.reproduce._runner import item_status


def test_margin_is_the_room_left_to_the_threshold_and_negative_outside():
    # one-sided: relative to the threshold (absolute for a threshold of 0)
    assert margin(check_at_least("x", None, 2.09, 2.0).to_dict()) == pytest.approx(0.045)
    assert margin(check_at_least("x", None, 0.03, 0.0).to_dict()) == pytest.approx(0.03)
    # two-sided: as a share of the half-width (1 at the centre, 0 on a bound)
    assert margin(check_range("x", None, 0.7, 0.5, 0.8).to_dict()) == pytest.approx(0.1 / 0.15)
    assert margin(check_range("x", None, 0.9, 0.5, 0.8).to_dict()) == pytest.approx(-0.1 / 0.15)
    assert margin(check_range("x", None, 0.65, 0.5, 0.8).to_dict()) == pytest.approx(1.0)
    assert margin(check_range("x", None, 0.7, 0.0, 1.0).to_dict()) == pytest.approx(0.6)
    # a fraction's own limits 0 and 1 are not thresholds: only x of [x, 1] or [0, x] counts
    assert margin(check_range("x", None, 0.0466, 0.0, 0.05).to_dict()) == pytest.approx(0.068)
    assert margin(check_range("x", None, 0.993, 0.95, 1.0).to_dict()) == pytest.approx(0.043 / 0.95)
    assert margin(check_range("x", None, 1.0, 0.8, 1.0).to_dict()) == pytest.approx(0.25)
    # exact checks and flags have none
    assert margin(check_range("x", None, 15.0, 15.0, 15.0).to_dict()) is None
    assert margin(check_true("x", True, "flag").to_dict()) is None


def test_interval_is_students_t_over_the_per_seed_values():
    c = check_at_least("x", None, 2.0, 1.0).over_seeds([1, 2, 3], [1.9, 2.0, 2.1]).to_dict()
    lo, hi = seed_interval(c)
    half = 4.302652729911275 * 0.1 / math.sqrt(3)  # t(0.975, 2) · s / √k
    assert (lo, hi) == (pytest.approx(2.0 - half), pytest.approx(2.0 + half))
    assert c["interval"] == [pytest.approx(lo), pytest.approx(hi)]
    assert seed_interval(check_at_least("x", None, 2.0, 1.0).over_seeds([1], [2.0]).to_dict()) is None


def test_a_passing_check_whose_interval_crosses_its_threshold_keeps_the_item_from_reproduced():
    clear = check_at_least("x", None, 2.0, 1.0, kind="measurement").over_seeds([1, 2, 3], [1.9, 2.0, 2.1])
    thin = check_at_least("y", None, 2.09, 2.0, kind="measurement").over_seeds([1, 2, 3], [2.09, 1.98, 2.2])
    assert thin.passed and clear_of_threshold(thin.to_dict()) is False
    assert clear_of_threshold(clear.to_dict()) is True
    assert item_status([clear.to_dict()], "simulation") == "reproduced"
    status = item_status([clear.to_dict(), thin.to_dict()], "simulation")
    assert status != "reproduced" and "1 within the seeds' interval" in status
    # no per-seed values: judged on the verdict alone, as before
    assert item_status([check_at_least("y", None, 2.09, 2.0, kind="measurement").to_dict()], "simulation") == "reproduced"


def test_an_interval_past_a_fractions_own_limit_is_still_clear():
    # R² of 0.99, 0.995, 0.999 against >= 0.95: the t-interval reaches past 1, which is no threshold of the claim
    c = check_range("x", None, 0.995, 0.95, 1.0).over_seeds([1, 2, 3], [0.99, 0.995, 0.999]).to_dict()
    assert seed_interval(c)[1] > 1 and clear_of_threshold(c) is True
    # but it does cross 0.95 when the seeds spread down there
    c = check_range("x", None, 0.97, 0.95, 1.0).over_seeds([1, 2, 3], [0.94, 0.97, 1.0]).to_dict()
    assert clear_of_threshold(c) is False


def test_seeds_and_values_must_pair_up():
    with pytest.raises(ValueError):
        check_at_least("x", None, 2.0, 1.0).over_seeds([1, 2], [2.0])
    with pytest.raises(ValueError):
        check_at_least("x", None, 2.0, 1.0).over_seeds([1, 1], [2.0, 2.1])
