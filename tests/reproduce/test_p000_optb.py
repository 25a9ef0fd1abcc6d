"""Paper 000's optimal-buffer campaign (table_000_2, fig_000_18): helpers and check logic on small inputs.

The quick runs take about 90 s on two workers; they belong to bench/reproduce_bench.py. One short
engine run checks the reduction on real transfers."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from bufsize.reproduce import _p000_optb as o


def test_cases_match_table_ii_setups():
    assert o.bdp("pl") == pytest.approx(250.0)      # 50 Mb/s × 60 ms / 1500 B
    assert o.bdp("ex") == pytest.approx(500.0)      # 100 Mb/s × 60 ms
    for case in o.CASES.values():
        assert case["c_out"] / case["c_in"] == pytest.approx(case["gamma"])
    for mode in ("quick", "full"):
        for case in ("pl", "ex"):
            grid = o.SCALE[mode][case]["coarse"]
            assert list(grid) == sorted(set(grid))
            # the paper's optima (20-170 packets) lie inside the coarse grid's span
            assert grid[0] <= 20 and grid[-1] > o.bdp(case)


def test_argmax_min_takes_the_smallest_of_tied_maxima_and_ignores_nan():
    assert o.argmax_min([1, 2, 3, 4], [0.1, 0.5, 0.5, 0.2]) == 2.0
    assert o.argmax_min([1, 2, 3], [math.nan, 0.2, 0.1]) == 2.0
    assert math.isnan(o.argmax_min([1, 2], [math.nan, math.nan]))


def test_classify_selects_the_size_bin_and_congestion_events():
    rows = [  # segments, size, start, fct, rtt, mean_rtt, completed, congestion events
        (30, 45000, 20.0, 0.5, 0.05, 0.1, True, 0),     # S
        (28, 42000, 20.0, 0.4, 0.05, math.nan, True, 1),  # S (no mean RTT: the first RTT is used)
        (33, 49500, 20.0, 0.4, 0.05, 0.1, True, 0),     # neither
        (30, 45000, 5.0, 0.5, 0.05, 0.1, True, 0),      # before the warm-up
        (30, 45000, 20.0, 0.5, 0.05, 0.1, False, 0),    # not completed
        (700, 1.05e6, 20.0, 4.9, 0.05, 0.1, True, 5),   # L
        (700, 1.05e6, 20.0, 4.9, 0.05, 0.1, True, 4),   # neither
    ]
    df = pd.DataFrame(rows, columns=["segments", "size_bytes", "start_s", "fct_s", "rtt_s", "mean_rtt_s", "completed",
                                     "congestion_events"])
    c = o.classify(df, warmup=10.0)
    assert c["S"] == pytest.approx([45000 * 8 / 0.6, 42000 * 8 / 0.45])
    assert c["L"] == pytest.approx([1.05e6 * 8 / 5.0])
    assert len(c["all"]) == 5


def _runs(meds: dict[int, list[float]]):
    return {("pl", b, s + 1): {"S": {"median": m * 1e6, "n": 10, "timeout_share": 0.1}, "loss_rate": 0.01}
            for b, ms in meds.items() for s, m in enumerate(ms)}


def test_per_buffer_averages_the_seed_medians():
    runs = _runs({10: [1.0, 1.0, 1.0], 20: [2.0, 1.5, 1.0], 40: [1.9, 1.9, 1.9]})
    t = o.per_buffer(runs, "pl", "S", (1, 2, 3))
    assert t.buffer_packets.tolist() == [10, 20, 40]
    assert t.median_mbps.tolist() == pytest.approx([1.0, 1.5, 1.9])
    assert t.n_flows.tolist() == [30, 30, 30]
    assert t.median_mbps_seed2.tolist() == pytest.approx([1.0, 1.5, 1.9])
    assert o.argmax_min(t.buffer_packets, t.median_mbps) == 40.0


def test_analysis_applies_the_papers_equations():
    # PL: eq. (11) b/(f(2-b))·C·To and the root of eq. (13) (MODELS.md P-20n, P-23)
    an = o.analysis("pl", {"a": 0.5, "b": 0.5, "f": 0.4, "cutoff_packets": 1000})
    assert an["L"] == pytest.approx(250 * 0.5 / (0.4 * 1.5))
    assert an["S"] == pytest.approx(86.7105, rel=1e-4)
    # EX: B_stat = 2/b - C·To/f > 0 -> B̂_L = 0; small b: R_S is best at B = 0
    ex = o.analysis("ex", {"a": 0.12, "b": 0.001, "f": 0.9, "cutoff_packets": 700})
    assert ex["L_stat"] == pytest.approx(2 / 0.001 - 500 / 0.9)
    assert ex["L"] == 0.0 and ex["S"] == 0.0
    # a steep EX loss makes R_L rise from 0 (paper rule: infinite) and R_S peak inside
    steep = o.analysis("ex", {"a": 0.3, "b": 0.05, "f": 0.4, "cutoff_packets": 700})
    assert steep["L"] == math.inf and steep["S"] > 0
    # no fit: NaN, not a number that could pass a check
    assert math.isnan(o.analysis("pl", {"a": math.nan, "b": 0.5, "f": 0.4, "cutoff_packets": 10})["S"])


def test_reduce_run_on_a_short_engine_run():
    from bufsize.simulate import simulate

    sc = o.scenario(10e6, 1e6, 20, 20, 20, 1, 20.0, 5.0)
    res = simulate(sc, progress=False)
    red = o.reduce_run(res.transfers, res.summary, 5.0)
    assert red["reduction"] == o.REDUCTION
    assert 0 < red["utilization"] <= 1.0
    assert red["all"]["n"] > 0
    assert red["S"]["n"] <= red["all"]["n"] and red["L"]["n"] <= red["all"]["n"]
    # every throughput is below the 1 Mb/s input link (the handshake RTT makes it strictly lower)
    thr = o.classify(res.transfers, 5.0)["all"]
    assert thr.max() < 1e6
