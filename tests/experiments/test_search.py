"""Buffer searches: the statistics (coverage on a synthetic objective) and two simulator cases with
closed forms: one Reno flow (paper 001 eq. (17)) and 400 flows on OC3 (paper 004 eq. (6))."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import brentq

from bufsize.errors import BufsizeError
from bufsize.experiments import sweep
from bufsize.experiments.search import _verdict, search_buffer, search_min_buffer
from bufsize.experiments.sweep import load_raw
from bufsize.models import appenzeller, jain
from exp_helpers import tiny


class FakeRunner:
    """A noisy objective with a known answer: utilization m(B) = 1 - 0.3·exp(-B/40), normal noise."""

    def __init__(self, sd: float, rng):
        self.raw, self.runs, self.sd, self.rng = {}, 0, sd, rng
        self.cache = {}

    @staticmethod
    def mean(b: float) -> float:
        return 1.0 - 0.3 * math.exp(-b / 40.0)

    def values(self, b, seeds, metric):
        out = []
        for s in seeds:
            if (b, s) not in self.cache:
                self.cache[(b, s)] = self.mean(b) + self.sd * self.rng.standard_normal()
                self.runs += 1
            out.append(self.cache[(b, s)])
        return out


def test_verdicts_use_one_sided_t_bounds():
    # mean 0.99, sd 0.008165, n 4: t_{0.95,3} = 2.3534 -> bounds 0.99 -+ 0.00961 = 0.98039, 0.99961
    v, mean, sd, b_meet, b_fail = _verdict([0.98, 0.99, 1.0, 0.99], 0.975, True, 0.05)
    assert v == "meets" and mean == pytest.approx(0.99) and b_meet == pytest.approx(0.99 - 2.3534 * sd / 2, abs=1e-4)
    assert sd == pytest.approx(0.0081650, abs=1e-7) and b_fail == pytest.approx(0.99961, abs=1e-5)
    assert _verdict([0.98, 0.99, 1.0, 0.99], 0.9803, True, 0.05)[0] == "meets"
    assert _verdict([0.98, 0.99, 1.0, 0.99], 0.9805, True, 0.05)[0] == "unclear"
    assert _verdict([0.98, 0.99, 1.0, 0.99], 0.9997, True, 0.05)[0] == "fails"
    assert _verdict([0.98, 0.99, 1.0, 0.99], 1.01, True, 0.05)[0] == "fails"
    assert _verdict([0.01, 0.01], 0.02, False, 0.01)[0] == "meets"  # sd 0: exact comparisons
    assert _verdict([0.03, 0.03], 0.02, False, 0.01)[0] == "fails"


def test_interval_covers_the_true_answer_at_the_stated_confidence():
    # B* where m(B) = 0.98: 40 ln(15) = 108.3 -> the smallest integer B is 109
    truth = math.ceil(40 * math.log(0.3 / 0.02))
    rng = np.random.default_rng(7)
    covered, widths, trials = 0, [], 200
    for _ in range(trials):
        r = search_buffer(None, "utilization", 0.98, seeds=5, confidence=0.9, low=1, high=400,
                          _runner=FakeRunner(0.004, rng))
        covered += r.low <= truth <= r.high
        widths.append(r.high - r.low)
    assert covered / trials >= 0.9  # Bonferroni makes it conservative: expect ~100 %
    assert np.median(widths) < 80  # and still informative (noise sd 0.004 on a 0.3 span)
    # noise-free: exact to one packet
    r = search_buffer(None, "utilization", 0.98, seeds=2, low=1, high=400, _runner=FakeRunner(0.0, rng))
    assert (r.low, r.high) == (truth, truth)


def test_max_search_for_a_delay_limit():
    class Delay(FakeRunner):
        @staticmethod
        def mean(b):
            return b / 1000.0  # 1 ms per packet
    r = search_buffer(None, "queue_delay_mean_s", 0.0405, seeds=2, low=1, high=400,
                      _runner=Delay(0.0, np.random.default_rng(1)))
    assert r.kind == "max" and (r.low, r.high) == (40, 40)


def test_errors():
    rng = np.random.default_rng(1)
    with pytest.raises(BufsizeError, match="--range: the target is not met"):
        search_buffer(None, "utilization", 0.98, seeds=2, low=1, high=50, _runner=FakeRunner(0.0, rng))
    with pytest.raises(BufsizeError, match="--seeds: needs at least 2"):
        search_buffer(None, "utilization", 0.98, seeds=1, low=1, high=50, _runner=FakeRunner(0.0, rng))
    with pytest.raises(BufsizeError, match="--target-utilization"):
        search_buffer(None, "utilization", 1.5, seeds=2, low=1, high=50, _runner=FakeRunner(0.0, rng))


def test_single_reno_flow_against_001_eq17():
    """One Reno flow, 10 Mb/s, RTT 100 ms (BDP 125 pkt), target 98 %: eq. (17) answers 75.4 pkt.

    The simulated flow runs about 0.1-0.3 points below the fluid sawtooth of eq. (17) at these
    buffers (measured below), which moves the 98 % crossing by ~2 packets where the curve is this
    flat; so the check is that the eq. (17) answers for targets within that model error bracket the
    search's interval, and that the interval is within 3 % of the BDP of the closed form.
    """
    sc = tiny(duration="120s", start="0s")
    sc["warmup"] = "20s"  # past the slow-start overshoot, which eq. (17) leaves out
    r = search_buffer(sc, "utilization", 0.98, seeds=2, low=1, high=250, workers=2)
    closed = brentq(lambda b: jain.reno_single_flow_utilization(125, b) - 0.98, 0, 125)
    assert closed == pytest.approx(75.41, abs=0.01)
    model_err = max(abs(e.mean - jain.reno_single_flow_utilization(125, e.buffer)) for e in r.evaluations
                    if 20 <= e.buffer <= 120)
    assert model_err < 0.005  # the simulator follows eq. (17) closely over the searched range
    lo_b = brentq(lambda b: jain.reno_single_flow_utilization(125, b) - (0.98 - model_err), 0, 125)
    hi_b = brentq(lambda b: jain.reno_single_flow_utilization(125, b) - (0.98 + model_err), 0, 125)
    assert lo_b <= r.low <= r.high <= hi_b + 1
    assert abs((r.low + r.high) / 2 - closed) <= 0.03 * 125
    assert r.high - r.low <= 2  # one flow, fixed start: the seeds agree and the search is sharp


@pytest.mark.slow
def test_400_flows_oc3_against_004_eq6_and_a_brute_force_sweep(tmp_path):
    """400 NewReno flows, OC3, RTT 20-140 ms (BDP 1550 pkt), target 98 % (6-s runs).

    Eq. (6) of 004 is a lower bound on the utilization (Gaussian window sum), so the buffer it
    gives (72.6 pkt) is sufficient: the true answer lies at or below it. A brute-force sweep over
    fixed buffers must cross 98 % inside the search's interval.
    """
    raw = load_raw("examples/oc3_400.toml")
    raw.update(duration="6s", warmup="2s")
    raw.pop("measure", None)
    out = tmp_path / "runs"
    r = search_min_buffer(raw, target_utilization=0.98, seeds=3, confidence=0.95, low=10, high=200,
                          resolution=4, workers=2, out=out)["utilization"]
    eq6 = appenzeller.buffer_for_utilization(0.98, 1550, 400)
    assert eq6 == pytest.approx(72.6, abs=0.1)
    assert r.high <= eq6 * 1.1  # eq. (6) is sufficient (within the run-to-run noise)
    assert r.low >= eq6 / 3  # and not loose by more than a factor of 3 here
    grid = [20, 35, 50, 70, 110]   # 15-40 packets apart: the line between the two around 98 % stays near the concave curve
    t = sweep(raw, {"buffer": grid}, seeds=3, out=out, workers=2)
    means = t.groupby("buffer")["utilization"].mean()
    assert means.is_monotonic_increasing
    below = [b for b in grid if means[b] < 0.98]
    above = [b for b in grid if means[b] >= 0.98]
    assert below and above and max(below) < min(above)
    b0, b1 = max(below), min(above)
    crossing = b0 + (0.98 - means[b0]) * (b1 - b0) / (means[b1] - means[b0])
    assert r.low - 4 <= crossing <= r.high + 4, (crossing, r.statement())
    assert all(b < r.high for b in below) and all(b >= r.low for b in above)


def test_cli_min_buffer(tmp_path, capsys):
    import json

    from bufsize.cli import main

    f = tmp_path / "one.json"
    sc = tiny(duration="60s", start="0s")
    sc["warmup"] = "20s"
    f.write_text(json.dumps(sc))
    rc = main(["search", "min-buffer", str(f), "--target-utilization", "0.95", "--max-delay", "40ms", "--seeds", "2",
               "--range", "1..2bdp", "--workers", "2", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    u, d = out["utilization"], out["queue_delay_mean_s"]
    assert u["kind"] == "min" and d["kind"] == "max" and u["high_packets"] < d["low_packets"]
    # both answers sit between the buffers the search proved to fail and to meet
    ev = {e["buffer_packets"]: e for e in u["evaluations"]}
    assert ev[u["high_packets"]]["verdict"] == "meets" and ev[u["high_packets"]]["mean"] >= 0.95
    assert all(e["mean"] < 0.95 for b, e in ev.items() if b < u["low_packets"])
    rc = main(["search", "min-buffer", str(f), "--seeds", "2"])
    assert rc == 2 and "give a target" in capsys.readouterr().err
    rc = main(["search", "min-buffer", str(f), "--target-utilization", "0.95", "--range", "1..x"])
    assert rc == 2 and "--range" in capsys.readouterr().err


def test_optimal_buffer_on_the_simulator_and_from_000s_fitted_forms(tmp_path):
    from bufsize.experiments.search import search_optimal_buffer
    from bufsize.models import prasad

    sc = {"seed": 1, "duration": "30s", "warmup": "5s",
          "dumbbell": {"capacity": "10Mbps", "flows": 8, "rtt": "40ms..120ms", "buffer": 10,
                       "tcp": {"packet_size": "1000B", "sack": False, "prr": False}}}
    res = search_optimal_buffer(sc, [2, 7, 28, 104, 200], seeds=3, flow_segments=30, workers=2, out=tmp_path / "o")
    t = res.table.set_index("buffer")
    assert res.best == t["mean"].idxmax()
    # a 2-packet buffer starves 8 flows sharing a 100-packet BDP: clearly worse than the best
    assert not t.loc[2, "indistinguishable"] and t.loc[res.best, "indistinguishable"]
    assert res.smallest_equivalent <= res.best and t.loc[res.smallest_equivalent, "indistinguishable"]
    f = res.fit
    assert f is not None and f.loss.b.value > 0
    if f.loss.form == "pl":
        assert res.fit.optimal["L"] == pytest.approx(prasad.optimal_buffer_pl_l(f.loss.b.value, f.delay.f.value, 100.0))
    assert res.fit.optimal["S"] is not None and res.fit.optimal["S"] > 0


# ---- coarse-to-fine maximum (000's optimal buffer) -----------------------------------------------

def test_smallest_argmax_takes_the_smallest_of_tied_maxima_and_ignores_nan():
    from bufsize.experiments.search import smallest_argmax

    assert smallest_argmax([1, 2, 3, 4], [0.1, 0.5, 0.5, 0.2]) == 2.0
    assert smallest_argmax([1, 2, 3], [math.nan, 0.2, 0.1]) == 2.0
    assert math.isnan(smallest_argmax([1, 2], [math.nan, math.nan]))


def test_refine_grid_fills_between_the_neighbours_only():
    from bufsize.experiments.search import refine_grid

    coarse = (10, 20, 40, 80)
    g = refine_grid(coarse, 20, 3)
    assert set(g) == {12, 15, 18, 25, 30, 35}
    assert all(40 < x < 80 for x in refine_grid(coarse, 80, 3))
    assert refine_grid(coarse, math.nan, 3) == []
    assert refine_grid(coarse, 30, 3) == []          # not a coarse buffer
    assert refine_grid((1, 2, 3), 2, 3) == []        # no integer strictly between neighbours


def test_seed_optimum_pools_seeds_and_gives_a_t_interval_over_per_seed_optima():
    from scipy import stats

    from bufsize.experiments.search import seed_optimum

    vals = {}
    for b, vs in {10: [1.0, 1.0, 1.0], 20: [2.0, 1.5, 1.0], 40: [1.9, 1.9, 1.9], 80: [0.5, 0.5, 2.0]}.items():
        for s, v in zip((1, 2, 3), vs):
            vals[(b, s)] = v
    table, best, per_seed, mean, half = seed_optimum(vals, (1, 2, 3))
    assert table["mean"].tolist() == pytest.approx([1.0, 1.5, 1.9, 1.0])
    assert best == 40.0 and per_seed == [20.0, 40.0, 80.0]
    assert mean == pytest.approx(140 / 3)
    assert half == pytest.approx(stats.t.ppf(0.975, 2) * np.std([20, 40, 80], ddof=1) / math.sqrt(3))
    _, best1, _, _, half1 = seed_optimum(vals, (1,))
    assert best1 == 20.0 and math.isnan(half1)


def test_search_max_buffer_refines_around_each_objective_and_confirms_with_more_seeds():
    from bufsize.experiments.search import search_max_buffer

    calls = []

    def measure(points):
        calls.append(list(points))
        # objective "a" peaks at 37, "b" at 130; seed 1 has a bump at 60 that more seeds overrule for "a"
        out = {}
        for b, s in points:
            bump = 30.0 if (s == 1 and b == 60) else 0.0
            out[(b, s)] = {"a": 100 - abs(b - 37) + bump, "b": 100 - abs(b - 130)}
        return out

    res = search_max_buffer(measure, (10, 20, 40, 60, 80, 120, 160, 200), objectives=("a", "b"), seeds=(1,),
                            fine_points=3, confirm_seeds=(2, 3), confirm_buffers=5)
    a, b = res["a"], res["b"]
    assert a.first_best == 60.0                          # the seed-1 bump wins the one-seed search
    assert a.fine == [45, 50, 55, 65, 70, 75]
    assert b.best == b.first_best == 130.0               # found by refinement between 120 and 160
    assert a.confirm["seeds"] == [1, 2, 3]
    assert a.confirm["buffers"] == [40, 50, 60, 70, 80]  # every other evaluated buffer around 60
    assert a.best == 40.0                                # the 3-seed mean overrules the bump
    assert a.per_seed == [60.0, 40.0, 40.0] and math.isfinite(a.ci_half)
    # one call per stage; each point measured once
    assert len(calls) == 3
    flat = [p for c in calls for p in c]
    assert len(flat) == len(set(flat))


def test_search_max_buffer_rejects_bad_arguments():
    from bufsize.experiments.search import search_max_buffer

    with pytest.raises(BufsizeError, match="coarse"):
        search_max_buffer(lambda pts: {}, (10,))
    with pytest.raises(BufsizeError, match="seeds"):
        search_max_buffer(lambda pts: {}, (10, 20), seeds=())
