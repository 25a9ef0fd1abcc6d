"""Paper 000's testbed campaign T000 (figs 3–10): the helpers and the check logic on small inputs.

The quick runs of the eight figures take about a minute and a half; they belong to the benchmark
(bench/reproduce_bench.py), not here. One tiny engine run checks the per-run reduction on real
transfers."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from bufsize.models import prasad as pm
from bufsize.reproduce import _p000_t000 as p
from bufsize.reproduce._core import Context


def transfers(rows):
    cols = ["size_bytes", "segments", "start_s", "fct_s", "rtt_s", "mean_rtt_s", "completed", "drops",
            "congestion_events", "timeouts", "think_s"]
    df = pd.DataFrame(rows, columns=cols)
    df["completed"] = df["completed"].astype(bool)
    return df


def row(size, start=10.0, fct=0.5, rtt=0.05, mean_rtt=0.06, completed=True, drops=0, ce=0, timeouts=0):
    return [size, math.ceil(size / p.MSS), start, fct, rtt, mean_rtt, completed, drops, ce, timeouts, 1.0]


def test_buffer_grid_is_the_papers_range_log_spaced():
    assert len(p.BUFFERS) == 20
    assert p.BUFFERS[0] == 30 * 1024 and p.BUFFERS[-1] == 38 * 1024 * 1024
    ratios = np.diff(np.log(p.BUFFERS))
    assert ratios == pytest.approx(np.full(19, ratios[0]), rel=1e-4)
    assert round(p.BUFFERS[-1] / 1500) == 26564          # the paper's "approximately 26,564 packets"
    for mode in ("quick", "full"):
        idx = p.SCALE[mode]["buffers"]
        assert idx[0] == 0 and idx[-1] == 19 and set(p.FIG8_BUFFERS) <= set(idx)


def test_every_run_of_the_campaign_has_its_own_seed():
    seeds = {p.engine_seed(u, b, s) for u in p.USERS for b in range(20) for s in (1, 2, 3)}
    assert len(seeds) == 3 * 20 * 3


def test_scenario_has_the_testbed_parameters():
    d = p.scenario(3000, p.BUFFERS[0], 7, 30.0, 5.0).to_dict()
    assert d["seed"] == 7 and d["duration_s"] == 30.0 and d["warmup_s"] == 5.0
    groups = d["users"]
    assert sum(g["count"] for g in groups) == 3000 and len(groups) == 8
    # every RTT class on both input links, in equal shares
    by = {(round(g["rtt_s"]["fixed"] * 1e3), g["path"][0]): g["count"] for g in groups}
    assert set(by) == {(r, f"in{k}") for r in (30, 50, 120, 140) for k in (0, 1)}
    assert set(by.values()) == {375}
    for g in groups:
        tcp = g["tcp"]
        assert tcp["cc"] == "newreno" and tcp["sack"] is True and tcp["initial_window"] == 2
        assert tcp["packet_bytes"] == 1500 and tcp["delayed_ack"] is False
        assert g["path"][-1] == "out"
    links = {x["name"]: x for x in d["links"]}
    assert links["out"]["rate_bps"] == 1e9 and links["out"]["queue"]["limit_bytes"] == 30 * 1024
    assert links["in0"]["rate_bps"] == links["in1"]["rate_bps"] == 1e9
    assert [n for _, _, n in p.user_groups(1450)] == [182, 182, 181, 181, 181, 181, 181, 181]


def test_throughput_counts_one_rtt_for_the_handshake():
    t = transfers([row(14600, fct=0.3, mean_rtt=0.1), row(14600, fct=0.3, rtt=0.05, mean_rtt=float("nan"))])
    thr = p.flow_throughput(t)
    assert thr[0] == pytest.approx(14600 * 8 / 0.4)
    assert thr[1] == pytest.approx(14600 * 8 / 0.35)   # no RTT sample: the base RTT


def test_models_are_the_prasad_functions():
    sizes = np.array([47_000.0, 47_000.0, 2_000_000.0])
    m = p.models(sizes, 0.06, 0.01)
    assert m["rs"][0] == pytest.approx(pm.s_model_throughput(47_000, 0.06, 0.01, m=p.MSS) * 8)
    assert m["rss"][2] == pytest.approx(pm.slow_start_throughput(2_000_000, 0.06, m=p.MSS) * 8)
    assert m["rl"][1] == pytest.approx(pm.l_model_throughput(0.06, 0.01, m=p.MSS) * 8)
    lossless = p.models(sizes, 0.06, 0.0)
    assert lossless["rs"] == pytest.approx(lossless["rss"]) and np.isinf(lossless["rl"]).all()


def test_reduce_run_keeps_the_measured_window_and_classifies():
    rows = [row(47_000, drops=0, ce=0) for _ in range(5)]                 # small, loss-free
    rows += [row(48_000, drops=3, ce=1)]                                  # small, one event
    rows += [row(2_000_000, fct=5.0, drops=40, ce=6, timeouts=2)]         # large, L-class
    rows += [row(47_000, start=1.0)]                                      # in the warm-up: out
    rows += [row(47_000, completed=False, fct=float("nan"))]              # unfinished: out
    red = p.reduce_run(transfers(rows), {"utilization": 0.9, "loss_rate": 0.01, "queue_delay_mean_s": 0.002}, 5.0)
    assert red["transfers_started"] == 8 and red["transfers_completed"] == 7
    assert red["small"]["n"] == 6 and red["large"]["n"] == 1
    assert red["small_no_drop"] == pytest.approx(5 / 6)
    assert red["classes"]["le4"]["n"] == 6 and red["classes"]["ge5"]["n"] == 1
    assert red["classes"]["ge5"]["timeout_share"] == 1.0
    assert sum(b["n"] for b in red["bins"]) == 7
    assert sum(b["n_ge5"] for b in red["bins"]) == 1
    assert red["rtt_harmonic_s"] == pytest.approx(0.06)
    assert len(red["small"]["quantiles"]) == 101
    bins = p.binned([red, red], min_count=1)             # two seeds pool their sums
    assert bins.n.sum() == 14
    assert bins.bytes.sum() == pytest.approx(2 * (5 * 47_000 + 48_000 + 2_000_000))


def test_optimal_buffer_is_the_first_within_tolerance_of_the_maximum():
    b = [1, 2, 4, 8, 16]
    assert p.optimal_buffer(b, [1.0, 2.0, 9.5, 10.0, 9.8], 0.10) == 4
    assert p.optimal_buffer(b, [10.0, 2.0, 3.0, 4.0, 5.0], 0.10) == 1
    assert math.isnan(p.optimal_buffer(b, [math.nan] * 5))


def test_grey_region_is_the_bytes_neither_model_explains():
    bins = pd.DataFrame({"thr_mean_mbps": [1.0, 2.0, 5.0, 3.0], "s_model_mbps": [1.1, 2.0, 10.0, 10.0],
                         "bytes": [10.0, 20.0, 30.0, 40.0]})
    share, grey = p.grey_share(bins, l_model_mbps=3.1, tol=0.2)
    assert list(grey) == [False, False, True, False]     # bin 3 fits the L-model, bin 2 neither
    assert share == pytest.approx(30 / 100)


def test_closed_loop_ceiling_is_the_papers_arithmetic():
    assert p.closed_loop_ceiling(1000, 80_000) == pytest.approx(0.64)
    assert p.closed_loop_ceiling(1200, 80_000) == pytest.approx(0.768)
    assert p.closed_loop_ceiling(1000, 80_000, 0.6) == pytest.approx(0.4)


def test_reach_buffer_ignores_noise_on_the_plateau():
    from bufsize.reproduce.fig_000_03 import reach_buffer

    mib = 1024 * 1024
    b = [mib / 8, mib / 4, mib / 2, mib, 2 * mib, 4 * mib]
    assert reach_buffer(b, [0.80, 0.95, 0.995, 1.0, 1.0, 1.0]) == mib / 2
    # a noisy plateau (±2 pt) does not push the answer to the end or to NaN
    assert reach_buffer(b, [0.30, 0.45, 0.49, 0.47, 0.51, 0.48]) == mib / 4


def test_heavy_fractions_and_hurst():
    from bufsize.reproduce.fig_000_04 import heavy_fractions, hurst

    step = 0.01
    t = np.arange(0, 40.01, step)
    # busy (rate 1) in the first second of every 2 s, idle in the second
    busy = (np.floor(t[:-1] / 1.0) % 2 == 0).astype(float)
    bits = np.concatenate([[0.0], np.cumsum(busy) * step * 1e9])
    rows = {(r["scale_s"], r["threshold"]): r for r in heavy_fractions(t, bits, 1e9, step, scales=(1.0, 2.0))}
    assert rows[(1.0, 0.95)]["fraction"] == pytest.approx(0.5)
    assert rows[(2.0, 0.95)]["fraction"] == 0.0 and rows[(2.0, 0.9)]["mean_utilization"] == pytest.approx(0.5)
    scales = np.array([1.0, 10.0, 100.0])
    assert hurst(scales, scales ** -0.5) == pytest.approx(0.5)   # independent samples
    assert hurst(scales, scales ** -0.25) == pytest.approx(0.75)


def test_rise_checks_pass_and_miss():
    from bufsize.reproduce.fig_000_05 import rise_checks

    m = pd.DataFrame({"buffer_bytes": [1.0, 2.0, 4.0, 8.0], "small_median_mbps": [1.0, 2.0, 2.0, 2.0],
                      "large_median_mbps": [1.0, 1.0, 1.0, 1.0]})
    bhat = {"small": 2.0, "large": 1.0}
    c = rise_checks(m, bhat, 1000)
    assert [x.passed for x in c] == [True, False, False]     # large is flat; B̂(small) is not below B̂(large)


def test_rtt_spread_floor_of_loss_free_flows():
    from bufsize.reproduce.fig_000_08 import rtt_cov

    x = 1 / np.array([0.03, 0.05, 0.12, 0.14])
    assert rtt_cov(0.0) == pytest.approx(x.std() / x.mean())
    assert rtt_cov(0.2) < rtt_cov(0.0)                        # a common queueing delay narrows the spread


def test_runs_are_shared_through_the_store(tmp_path, monkeypatch):
    """A second figure (a new process: empty memory) reads the runs the first one stored."""
    import bufsize.reproduce._sim as sim

    calls = []

    def fake(scenarios, ctx, tables=()):
        scenarios = list(scenarios)
        calls.append(len(scenarios))
        return [{"summary": {"utilization": 0.5, "loss_rate": 0.0, "queue_delay_mean_s": 0.0},
                 "transfers": transfers([row(47_000)])} for _ in scenarios]

    monkeypatch.setattr(sim, "run_scenarios", fake)
    monkeypatch.setattr(p, "_CACHE", {})
    ctx = Context(mode="quick", workers=1)
    ctx.store_dir = tmp_path / ".sweeps" / "fig_000_03"
    first = p.get_runs(ctx, [(1000, p.BUFFERS[0], 1), (3000, p.BUFFERS[19], 1)], 10.0, 5.0)
    assert calls == [2]
    monkeypatch.setattr(p, "_CACHE", {})                        # as if a new process
    ctx.store_dir = tmp_path / ".sweeps" / "fig_000_05"
    again = p.get_runs(ctx, [(1000, p.BUFFERS[0], 1)], 10.0, 5.0)
    key = (1000, p.BUFFERS[0], 1)
    assert calls == [2] and json.dumps(again[key], sort_keys=True) == json.dumps(first[key], sort_keys=True)
    assert (tmp_path / ".sweeps" / "p000_t000").is_dir()


def test_reduction_of_a_tiny_real_run():
    from bufsize.simulate import simulate

    sc = p.scenario(1000, p.BUFFERS[0], 3, 6.0, 2.0)
    r = simulate(sc, progress=False)
    red = p.reduce_run(r.transfers, r.summary, 2.0)
    assert 0 < red["transfers_completed"] <= red["transfers_started"]
    assert 0 < red["utilization"] <= 1.0
    thr = p.flow_throughput(r.transfers[r.transfers.completed & (r.transfers.start_s >= 2.0)])
    assert (thr > 0).all() and (thr < 1e9).all()          # below the 1 Gb/s links
    # a flow's throughput cannot beat loss-free slow start at its base RTT (handshake included)
    done = r.transfers[r.transfers.completed & (r.transfers.start_s >= 2.0)]
    bound = [pm.slow_start_throughput(s, rtt, m=p.MSS) * 8 for s, rtt in zip(done.size_bytes, done.rtt_s)]
    assert (thr <= np.array(bound) * 1.001).all()
