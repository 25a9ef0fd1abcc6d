"""The text-only claims' helpers (004 §3.2/§5.1.1/§5.1.4 in table_004_3_2, 000 §VI-B in table_000_2) and
003 Table IV's BDP table: the measures and the pass/fail logic on small synthetic inputs."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from bufsize.reproduce import _p000_alpha, _p004_text
from bufsize.reproduce._core import Context


def _traces(windows: np.ndarray) -> pd.DataFrame:
    t = np.arange(windows.shape[1]) * 0.1
    return pd.DataFrame([{"flow": f, "t_s": t[i], "cwnd": windows[f, i]}
                         for f in range(windows.shape[0]) for i in range(windows.shape[1])])


def test_window_correlation_is_one_in_phase_zero_independent_negative_out_of_phase():
    saw = (np.arange(400) % 40) + 20.0
    in_phase = np.vstack([saw] * 5)
    assert math.isclose(_p004_text.mean_pairwise_correlation(_traces(in_phase), 0.0), 1.0, abs_tol=1e-9)
    rng = np.random.default_rng(1)
    indep = rng.normal(50, 5, size=(5, 4000))
    assert abs(_p004_text.mean_pairwise_correlation(_traces(indep), 0.0)) < 0.05
    anti = np.vstack([saw, 80.0 - saw])   # one grows while the other shrinks: out of phase
    assert _p004_text.mean_pairwise_correlation(_traces(anti), 0.0) < -0.9


def _results(corr_low=0.3, corr_high=0.01, ts_small=0.8, ts_big=0.2, util_small=0.95, pareto_util=0.995,
             mix_util=0.999, mix_share=0.11):
    rows = []
    for n in _p004_text.LONG_NS:
        b = _p004_text.sqrt_n_buffer(_p004_text.LONG_BDP, n)
        w = (_p004_text.LONG_BDP + b) / n
        rows.append({"n": n, "seed": 1, "rtt": "20–140 ms", "buffer_packets": b, "window_eq1": w, "mean_cwnd": w,
                     "utilization": util_small if w < 2 else 0.99, "loss_rate": 0.1, "timeouts": 1, "fast_retransmits": 1,
                     "timeout_share": ts_small if w < 2 else (ts_big if w >= 8 else 0.5),
                     "cwnd_correlation": corr_low if n < 100 else (corr_high if n >= 500 else 0.05)})
    for n in _p004_text.SAME_RTT_NS:
        rows.append({**rows[0], "n": n, "rtt": "80 ms (all equal)", "cwnd_correlation": 0.6})
    pareto = pd.DataFrame([{"users": 550, "seed": s, "buffer_packets": 165, "utilization": pareto_util, "loss_rate": 0.07,
                            "ca_mean": 150.0, "ca_p05": 130.0, "ca_p95": 170.0, "ss_mean": 150.0, "active_mean": 300.0,
                            "transfers_started": 1000, "ca_packet_share": 0.4} for s in (1, 2, 3)])
    mix = pd.DataFrame([{"multiple": m, "buffer_packets": int(m * 289), "utilization": mix_util, "loss_rate": 0.04,
                         "long_goodput_mbps": 16.0, "short_goodput_mbps": 133.0, "long_share": mix_share}
                        for m in _p004_text.MIX_MULTIPLES])
    calib = pd.DataFrame([{"users": 550, "ca_mean": 150.0, "utilization": 0.99}])
    return {"long": pd.DataFrame(rows), "calibration": calib, "pareto": pareto, "mix": mix, "users": 550}


def test_004_text_checks_pass_and_miss_on_their_criteria():
    checks, notes = _p004_text.checks_and_notes(_results())
    assert len(checks) == 7
    assert [c.passed for c in checks] == [True, True, True, True, True, True, True]
    checks, notes = _p004_text.checks_and_notes(_results(corr_low=0.01, corr_high=0.2, ts_small=0.3, ts_big=0.7,
                                                         util_small=0.999, pareto_util=0.975, mix_util=0.98,
                                                         mix_share=0.09))
    assert not any(c.passed for c in checks)
    text = " ".join(notes)
    for part in ("Miss, §3.2 synchronization below 100", "Miss, §3.2 synchronization above 500",
                 "Miss, §5.1.1 timeouts dominate", "Miss, §5.1.1 timeouts are a minority",
                 "Miss, §5.1.1 'more buffering", "Miss, §5.1.4:", "Miss, §5.1.4 mix", "just under the paper's 10 %"):
        assert part in text, part


def test_004_text_scenarios_follow_the_stated_setups():
    d = _p004_text.long_scenario(100, 1, 10.0, 2.0).to_dict()
    assert math.isclose(_p004_text.LONG_BDP, 1550.0)
    assert _p004_text.sqrt_n_buffer(_p004_text.LONG_BDP, 100) == 155
    assert "155" in str(d["dumbbell"]["capacity_bps"]) or d["dumbbell"]["capacity_bps"] == 155e6
    p = _p004_text.pareto_scenario(500, 1, 10.0, 2.0).to_dict()
    assert p["users"][0]["count"] == 500
    m = _p004_text.mix_scenario(289, 1, 10.0, 2.0).to_dict()
    assert m["dumbbell"]["flows"] == _p004_text.MIX_LONG and m["short_flows"][0]["load"] == _p004_text.MIX_SHORT_LOAD


def test_000_alpha_criterion():
    tab = pd.DataFrame([{"gamma": g, "alpha": a, "paper_pl_good": good, "pl_good": good, "r2_pl": 0.99 if good else 0.9,
                         "r2_ex": 0.9, "b_pl": 0.4, "b_ex": 0.01, "fit_buffers": 6, "cutoff_packets": 160.0,
                         "utilization_largest_b": 0.9, "loss_smallest_b": 0.1} for g, a, good in _p000_alpha.CASES])
    checks, notes = _p000_alpha.checks_and_notes(tab)
    assert len(checks) == 4 and all(c.passed for c in checks) and len(notes) == 1
    tab["pl_good"] = ~tab.paper_pl_good
    checks, notes = _p000_alpha.checks_and_notes(tab)
    assert not any(c.passed for c in checks) and len(notes) == 5
    s = _p000_alpha.setup(0.25)
    assert s["c_in"] == 4 * s["c_out"] and s["users"] == 100


def test_003_table_iv_both_bdps():
    from bufsize.reproduce import table_003_4 as t

    out = t.run(Context())
    got = [round(x, 2) for x in out.data.rate_x_rtt_mb]
    assert got == [2.18, 5.21, 7.0]
    passed = [c.passed for c in out.checks]
    assert passed == [True, True, True, False, False, False, True, True, True]
    assert t.SPEC.kind == "config"
