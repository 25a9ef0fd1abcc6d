"""Identical runs have no spread: the search's mean is their value and its sd is 0, not the 1e-17
that summing them in floating point leaves (which printed as "sd 7.9e-17")."""

from __future__ import annotations

import math

import pytest

from bufsize.experiments.search import _verdict


@pytest.mark.parametrize("value, n", [(0.1, 3), (0.99, 5), (0.7, 10), (1.0, 2)])
def test_identical_runs_have_their_value_as_mean_and_no_spread(value, n):
    verdict, mean, sd, lo, hi = _verdict([value] * n, value, True, 0.05)
    assert mean == value and sd == 0.0 and lo == hi == value
    assert verdict == "meets"          # exactly at the target, with no spread: meets a lower limit
    assert f"sd {sd:.2g}" == "sd 0"


def test_different_runs_keep_their_spread():
    verdict, mean, sd, *_ = _verdict([0.9, 0.95, 1.0], 0.5, True, 0.05)
    assert mean == pytest.approx(0.95) and sd == pytest.approx(0.05) and verdict == "meets"


def test_the_naive_spread_of_identical_runs_is_not_zero():
    # what the search computed before: the mean by summing, then the sample sd around it
    values = [0.1] * 3
    mean = sum(values) / 3
    naive = math.sqrt(sum((v - mean) ** 2 for v in values) / 2)
    assert naive > 0 and _verdict(values, 0.1, True, 0.05)[2] == 0.0
