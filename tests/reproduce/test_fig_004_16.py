"""004-Fig16 helpers: the CCDF of an occupancy histogram and the fitted tail slope, on inputs whose
answer is known; the catalogue entry runs (its quick run is in bench/reproduce_bench.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bufsize import reproduce
from bufsize.reproduce import fig_004_16


def test_ccdf_of_a_histogram():
    p = fig_004_16.ccdf([2, 1, 1])  # fractions need not be normalized
    assert p.tolist() == pytest.approx([1.0, 0.5, 0.25])


def test_tail_slope_recovers_a_geometric_decay():
    kappa = 0.07
    b = np.arange(400)
    frac = np.exp(-kappa * b) * (1 - math.exp(-kappa))  # P(Q = b) of a geometric law: P(Q >= b) = e^(-κb)
    p = fig_004_16.ccdf(frac)
    got, n = fig_004_16.tail_slope(b, p)
    assert got == pytest.approx(kappa, rel=1e-3) and n > 50
    # a distribution that decays twice as fast is told apart (the ±20 % check can fail)
    got2, _ = fig_004_16.tail_slope(b, fig_004_16.ccdf(np.exp(-2 * kappa * b)))
    assert got2 == pytest.approx(2 * kappa, rel=1e-3)


def test_tail_slope_needs_enough_points():
    got, n = fig_004_16.tail_slope(np.arange(3), np.array([1.0, 0.2, 0.01]))
    assert math.isnan(got) and n < 5


def test_model_slope_is_the_papers_expression():
    from bufsize.models import appenzeller as ap

    m1, m2, _ = ap.burst_moments(fig_004_16.LENGTH)
    assert (m1, m2) == pytest.approx((14 / 3, 28.0))  # bursts 2, 4, 8
    assert ap.tail_decay_rate(0.8, 14)[0] == pytest.approx(2 * 0.2 / 0.8 * m1 / m2)


def test_status_is_ready():
    assert reproduce.status(reproduce.get("004-Fig16"))[0] == "ready"
