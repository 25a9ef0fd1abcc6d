"""Paper 003's testbed figures (Figs 9–12) on the simulator: setup, buffers, reduction and check logic.

The quick runs of the four figures (12 runs of 198 flows at 622 Mb/s) take about half a minute; they
belong to the benchmark (bench/reproduce_bench.py), not here. One tiny engine run checks the per-run
reduction against the engine's own utilization series."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from bufsize.models import heterogeneous as h
from bufsize.reproduce import _p003_mix as m
from bufsize.reproduce._core import Context


def test_mix_is_the_papers_198_flows():
    assert m.N == 198
    assert m.MIX == {"reno": 42, "bic": 51, "cubic-0.8": 30, "cubic": 41, "ctcp": 34}
    assert m.a_mix() == pytest.approx(0.128170, abs=1e-6)          # MODELS.md H-25


def test_buffers_match_figures_md_in_both_bdp_readings():
    # FIGURES.md: B(7) = 0.019028·BDP → 41.4 / 99.1 / 133.1 KB (622 Mb/s × RTT), 43.8 / 104.7 / 342.5 KB printed
    for i, kb in enumerate((41.4, 99.1, 133.1)):
        assert m.rule_buffer_bytes("eq7", m.reading_bdp_bytes(i, "rtt")) / 1e3 == pytest.approx(kb, abs=0.05)
    for i, kb in enumerate((43.8, 104.7, 342.5)):
        assert m.rule_buffer_bytes("eq7", m.reading_bdp_bytes(i, "printed")) / 1e3 == pytest.approx(kb, abs=0.05)
    assert [m.buffer_packets("eq7", i, "printed") for i in range(3)] == [29, 70, 228]
    # eq. (14) is 45.45 % larger (MODELS.md H-26), before rounding to packets
    assert m.rule_buffer_bytes("eq14", 1.0) / m.rule_buffer_bytes("eq7", 1.0) - 1 == pytest.approx(0.454461, abs=1e-6)
    with pytest.raises(ValueError):
        m.rule_buffer_bytes("eq99", 1.0)


def test_scenario_has_the_testbed_parameters():
    d = m.scenario(67, 66, 90.0, 30.0).to_dict()
    db = d["dumbbell"]
    assert db["capacity_bps"] == 622e6 and db["flows"] == 198
    assert db["rtt_s"] == {"fixed": pytest.approx(0.067)} and db["buffer"] == {"limit_packets": 66}
    assert {c["tcp"]["cc"]: c["flows"] for c in db["mix"]} == m.MIX
    assert all(c["tcp"]["sack"] and c["tcp"]["packet_bytes"] == 1500 for c in db["mix"])
    assert d["measure"]["queue_trace_interval_s"] == 1.0
    assert d["duration_s"] == 90.0 and d["warmup_s"] == 30.0


def test_prob_at_least_interpolates_inside_a_bin():
    hist = pd.DataFrame({"cwnd_sum": [0.0, 10.0, 20.0, 30.0], "fraction": [0.1, 0.2, 0.3, 0.4]})
    assert m.prob_at_least(hist, 20.0) == pytest.approx(0.7)
    assert m.prob_at_least(hist, 25.0) == pytest.approx(0.55)
    assert m.prob_at_least(hist, -5.0) == pytest.approx(1.0)
    assert m.prob_at_least(hist, 40.0) == pytest.approx(0.0)
    assert math.isnan(m.prob_at_least(pd.DataFrame({"cwnd_sum": [], "fraction": []}), 1.0))


def test_reduction_matches_the_engines_utilization_series():
    from bufsize.simulate import simulate

    from bufsize.scenario import Scenario

    sc = Scenario.dumbbell(capacity="20Mbps", flows=5, rtt="28ms", buffer="5pkt", duration="6s", warmup="2s",
                           packet_size="1500B", sack=True, mix={cc: 1 for cc in m.MIX}, queue_trace_interval="0.5s")
    res = simulate(sc, progress=False)
    r = {"summary": res.summary, "flows": res.flows, "queue_trace": res.queue_trace,
         "cwnd_sum_histogram": res.cwnd_sum_histogram}
    red = m.reduce_run(r, 28, 2.0, 6.0, rate_bps=20e6)
    ours = red["util_samples"]          # 1-s samples from a 0.5-s trace
    theirs = res.utilization_series(m.SAMPLE_S).utilization.tolist()
    assert ours == pytest.approx(theirs, abs=1e-12)
    assert len(ours) == 4 and set(red["classes"]) == set(m.MIX)
    assert sum(ours) / len(ours) == pytest.approx(res.summary["utilization"], rel=1e-9)
    assert 0.0 <= red["p_w_ge_bdp"] <= 1.0


def _row(**kw):
    base = {"setting": "BDP1", "rtt_ms": 28, "buffer_packets": 40, "buffer_over_bdp": 0.0276,
            "bdp_link_packets": 1451.3, "utilization": 0.96, "util_min": 0.95, "util_max": 0.98, "loss_rate": 0.02,
            "w_mean": 1650.0, "w_std": 58.0, "delta_model": 15.0, "delta_independent": 64.0, "flight_mean": 1670.0,
            "a_measured_aggregate": 0.5, "p_w_ge_bdp": 0.5, "bound_eq1": 1570.0, "bound_eq10": 302.0,
            "mean_queue_packets": 18.0, "timeouts": 6000, "fast_retransmits": 30000}
    for cc in m.MIX:
        base[f"cwnd_{cc}"] = 8.0
        base[f"a_{cc}"] = 0.5
    base.update(kw)
    return base


def test_notes_carry_the_measurements():
    from bufsize.reproduce import fig_003_09, fig_003_11, fig_003_12

    text = fig_003_09.miss_note(_row(), "the")
    assert "0.9600" in text and "0.0100 below 0.97" in text and "3.9×" in text
    assert "below its low_window of 14" in m.regime_text(_row(), 60.0)
    assert "timeouts in 60 s" in m.regime_text(_row(), 60.0)
    assert m.regime_text(_row(timeouts=0, cwnd_bic=40.0), 60.0) == ""
    assert "2.0× φ" in fig_003_11.drop_note(_row(), 60.0) and "(1.22/W)²" in fig_003_11.drop_note(_row(), 60.0)
    assert "262 packets" in fig_003_12.miss_note(_row(), 60.0)


def test_shared_runs_come_from_memory_without_simulating(monkeypatch):
    """Fig 10 after Fig 9 (and 12 after 11) reuse the rule's runs: a second table() simulates nothing."""
    calls = []

    def fake_run(scs, ctx, tables=()):
        calls.append(len(scs))
        out = []
        for sc in scs:
            d = sc.to_dict()
            bdp = m.bdp_packets(d["dumbbell"]["rtt_s"]["fixed"] * 1e3)
            out.append({"summary": {"utilization": 0.98, "loss_rate": 0.004, "drops": 10, "cwnd_sum_mean": bdp + 20,
                                    "cwnd_sum_std": 30.0, "flight_sum_mean": bdp + 25, "flight_sum_std": 30.0,
                                    "mean_queue_packets": 10.0, "frac_time_queue_empty": 0.01,
                                    "frac_time_queue_full": 0.01, "timeouts": 0, "fast_retransmits": 5,
                                    "jain_fairness": 0.9, "goodput_bps_total": 6e8, "conservation_ok": True,
                                    "events": 1},
                        "flows": pd.DataFrame({"class_name": list(m.MIX), "mean_cwnd": [5.0] * 5,
                                               "cwnd_std": [1.0] * 5, "goodput_bps": [1e6] * 5,
                                               "timeouts": [0] * 5, "drops": [1] * 5}),
                        "queue_trace": pd.DataFrame({"t_s": [30.0 + k for k in range(60)],
                                                            "serialized_bits": [0.98 * 622e6 * k for k in range(60)]}),
                        "cwnd_sum_histogram": pd.DataFrame({"cwnd_sum": [bdp - 10, bdp + 10], "fraction": [0.5, 0.5]})})
        return out

    monkeypatch.setattr("bufsize.reproduce._sim.run_scenarios", fake_run)
    monkeypatch.setattr(m, "_CACHE", {})
    ctx = Context(mode="quick")
    df = m.table(ctx, "eq7")
    assert calls == [6]
    assert len(df) == 6 and set(df.reading) == {"rtt", "printed"}
    df2 = m.table(ctx, "eq7")
    assert calls == [6]
    pd.testing.assert_frame_equal(df, df2)
    row = m.primary(df).iloc[0]
    # eq. (1) and eq. (10) bounds from the measured mean and std, with the link's own BDP
    assert row.bound_eq1 == pytest.approx(h.min_mean_for_utilization(30.0, m.bdp_packets(28), 2.05))
    assert row.bound_eq10 == pytest.approx((2.05 * 30 + m.bdp_packets(28) + 20) * 0.99 - m.bdp_packets(28))
    assert row.util_min == pytest.approx(0.98) and row.util_samples == 60


def test_correlation_wording_follows_the_measurement():
    assert "positively correlated" in m.correlation_text(_row(w_std=100.0, delta_independent=60.0))
    assert "negatively" in m.correlation_text(_row(w_std=58.0, delta_independent=64.0))
