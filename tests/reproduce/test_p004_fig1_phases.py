"""004 Fig. 1's phases: the congestion-avoidance cycle it judges is a whole one, wherever the run ends."""

from __future__ import annotations

import math

import numpy as np


def test_last_ca_cycle_lies_between_the_last_two_halvings_even_when_the_run_ends_right_after_one():
    from bufsize.reproduce.fig_004_01 import RTT, phases

    t = np.round(np.arange(0, 6.0, 0.01), 2)
    # slow start ends at 0.75 s, a timeout at 1.2 s, then halvings at 3.7 s and 5.9 s (0.1 s before the end)
    losses = [int(np.searchsorted(t, x)) for x in (0.75, 1.2, 3.7, 5.9)]
    ss_end, start, end = phases(t, losses)
    assert ss_end == 0.75
    assert math.isclose(start, 3.7 + 2 * RTT) and end == 5.9
    assert ((t > start) & (t < end)).sum() > 100   # the span after the last halving would hold under 10 samples


def test_too_few_halvings_give_no_cycle():
    from bufsize.reproduce.fig_004_01 import phases

    t = np.arange(0, 1.0, 0.01)
    ss_end, start, end = phases(t, [50, 80])
    assert ss_end == t[50] and math.isnan(start) and math.isnan(end)
