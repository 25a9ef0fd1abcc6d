"""The search's words: a mean whose interval lies far from the goal is a miss; a straddling one asks
for more seeds; nothing is called "indistinguishable from the target"."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pytest

from bufsize.experiments.search import search_buffer

# six seed values with mean 0.953 and sd 0.019 (the reported case: goal 0.98, 6 seeds)
_DEV = np.array([-1.5, -0.9, -0.3, 0.3, 0.9, 1.5])
_DEV = _DEV / _DEV.std(ddof=1)


def _six(mean: float, sd: float) -> list[float]:
    return list(mean + sd * _DEV)


class TableRunner:
    """Seed values per buffer from a function of the buffer: values(b) -> 6 numbers (seeds 1..6)."""

    def __init__(self, fn):
        self.raw, self.runs, self.fn = {}, 0, fn

    def values(self, b, seeds, metric):
        vals = self.fn(b)
        self.runs += len(seeds)
        return [vals[(s - 1) % len(vals)] for s in seeds]


def test_the_six_seed_case_is_a_miss_and_the_search_goes_on_above_it():
    vals = _six(0.953, 0.019)
    assert statistics.mean(vals) == pytest.approx(0.953) and statistics.stdev(vals) == pytest.approx(0.019)
    # utilization 0.953 up to 240 packets, 0.995 from 241 on (sd 0.019 everywhere except above)
    runner = TableRunner(lambda b: _six(0.953, 0.019) if b <= 240 else _six(0.995, 0.002))
    r = search_buffer(None, "utilization", 0.98, seeds=3, max_seeds=6, low=176, high=305, _runner=runner)
    ev = {e.buffer: e for e in r.evaluations}
    e = ev[176]
    assert e.verdict == "fails" and e.label == "miss" and len(e.values) == 6
    assert e.ci_high < 0.98            # its 95 % interval [0.933, 0.973] lies below the goal
    assert e.ci_low == pytest.approx(0.953 - 2.5706 * 0.019 / math.sqrt(6), abs=1e-4)
    assert r.low > 176                 # a miss moves the search up, not an interval starting at it
    assert (r.low, r.high) == (241, 241)
    text = r.statement()
    assert "indistinguishable" not in text and "176 pkt miss" in text


def test_an_interval_straddling_the_goal_asks_for_more_seeds():
    # 0.975 ± 0.02 (6 seeds): the 95 % interval [0.954, 0.996] holds the goal 0.98
    runner = TableRunner(lambda b: _six(0.975, 0.02) if b <= 200 else _six(0.999, 0.0005))
    r = search_buffer(None, "utilization", 0.98, seeds=3, max_seeds=6, low=100, high=300, _runner=runner)
    unclear = [e for e in r.evaluations if e.verdict == "unclear"]
    assert unclear and all(e.label == "add seeds" and e.ci_low < 0.98 < e.ci_high for e in unclear)
    text = r.statement()
    assert "add seeds at" in text and "straddles" in text and "indistinguishable" not in text
    # every buffer not left unclear got a verdict its data support at 95 % at least
    for e in r.evaluations:
        if e.verdict == "fails":
            assert e.ci_high < 0.98
        if e.verdict == "meets":
            assert e.ci_low >= 0.98


def test_clear_cases_keep_the_search_wide_level():
    rng = np.random.default_rng(3)

    def fn(b):
        m = 1.0 - 0.3 * math.exp(-b / 40.0)
        return list(m + 0.0005 * rng.standard_normal(6))

    r = search_buffer(None, "utilization", 0.98, seeds=3, low=1, high=400, _runner=TableRunner(fn))
    far = [e for e in r.evaluations if abs(e.mean - 0.98) > 0.01]
    assert far and all(e.level == "search" for e in far)
    truth = math.ceil(40 * math.log(0.3 / 0.02))
    assert r.low <= truth <= r.high
