"""Papers 000's and 001's items give every miss its cause, and a passing check none (fed a failing value once)."""

from __future__ import annotations

import pandas as pd
import pytest

from bufsize.reproduce._core import check_abs, check_range


def test_kernel_checks_not_run_are_not_measured_and_scaled_misses_name_the_scaling():
    from bufsize.reproduce import _p000_miss as pm

    (c,) = pm.kernel_not_measured(["a kernel claim"], "--testbed off (simulator only)")
    assert c.ours is None and c.cause == "not measured" and "--testbed off" in c.cause_detail
    ok, bad, skipped = (check_range("k1", 1, 1.0, 0.5, 1.5), check_range("k2", 1, 3.0, 0.5, 1.5),
                        pm.kernel_not_measured(["k3"], "no root")[0])
    pm.kernel_scaled([ok, bad, skipped])
    assert ok.cause is None and bad.cause == "setup" and "1/50" in bad.cause_detail
    assert skipped.cause == "not measured"


def test_stack_words_name_each_detail_that_departs_from_ns2():
    from bufsize.reproduce._p000_miss import stack_words

    words = stack_words({"cc": "reno", "sack": True, "prr": False, "packet_size": "1000B"})
    assert "SACK on (ns-2: SACK off)" in words and "initial RTO" not in words   # the stack keeps ns-2's timers
    assert "packets" not in words   # 1000 B is ns-2's packet size
    assert "SACK" not in stack_words({"sack": False})
    assert "initial RTO 1.0 s (ns-2: initial RTO 3.0 s)" in stack_words({"initial_rto_s": 1.0})


def test_stack_clause_names_ns2s_defaults_and_only_the_departures():
    from bufsize.reproduce._p000_miss import stack_clause

    plain = stack_clause({"cc": "reno", "sack": False, "prr": False, "packet_size": "1000B"})
    assert plain.startswith("ns-2.35's Agent/TCP defaults") and "except" not in plain
    assert "except SACK on (ns-2: SACK off)" in stack_clause({"sack": True, "packet_size": "1000B", "prr": False})


def test_fig3_u1200_range_is_the_papers_inconsistency_and_u1000_our_closed_loop():
    from bufsize.reproduce import fig_000_03 as f

    ceiling = {"with_transfer_time": 0.55, "measured_mean_size": 0.58}
    cause, detail = f.utilization_cause(1200, 0.57, ceiling, 70.0)
    assert cause == "paper" and "76.8%" in detail and f.U1200_SENTENCE in detail
    cause, detail = f.utilization_cause(1000, 0.48, ceiling, 70.0)
    assert cause == "setup" and "70.0 KB" in detail


def test_fig4_misses_name_the_load_and_the_smoothness_of_our_aggregate():
    from bufsize.reproduce import fig_000_04 as f

    std10 = {1000: 0.03, f.CALIBRATED_USERS: 0.05}
    util = check_range("U1000, B = 4 MB: long-term average utilization 68 %", 0.68, 0.68, 0.63, 0.73)
    assert f.cause_of_miss(util, 0.68, std10).cause is None
    util = check_range("U1000, B = 4 MB: long-term average utilization 68 %", 0.68, 0.48, 0.63, 0.73)
    assert f.cause_of_miss(util, 0.48, std10).cause == "setup" and "48.0%" in util.cause_detail
    frac = check_range(f"U{f.CALIBRATED_USERS}: heavy-load periods", None, 0.0, 1e-12, 1.0)
    f.cause_of_miss(frac, 0.48, std10)
    assert frac.cause == "setup" and "0.050" in frac.cause_detail


def _medians(small_at_b0: float) -> pd.DataFrame:
    return pd.DataFrame({"buffer_bytes": [30_720.0, 300_000.0, 3e6], "small_median_mbps": [small_at_b0, 1.0, 1.0],
                         "large_median_mbps": [1.0, 2.0, 3.0], "loss_rate": [0.05, 0.02, 0.01],
                         "small_no_drop": [0.8, 0.9, 0.95], "large_no_drop": [0.1, 0.2, 0.3]})


def test_fig5_flat_small_flow_median_carries_its_loss_free_share():
    from bufsize.reproduce import _p000_t000 as p
    from bufsize.reproduce import fig_000_05 as f

    def checks(m):
        bhat = {c: p.optimal_buffer(m.buffer_bytes, m[f"{c}_median_mbps"], f.BHAT_TOL) for c in ("small", "large")}
        return f.rise_checks(m, bhat, 1000)

    rising = checks(_medians(0.5))
    assert rising[0].passed and rising[0].cause is None
    flat = checks(_medians(1.0))
    assert not flat[0].passed and flat[0].cause == "setup" and "80% of the small flows lose no packet" in \
        flat[0].cause_detail
    # the kernel runs' medians carry no loss-free shares
    kernel = checks(_medians(1.0).drop(columns=["small_no_drop", "large_no_drop"]))
    assert kernel[0].cause == "setup" and "hardly moves" in kernel[0].cause_detail


def test_fig8_cov_miss_names_timeouts_and_the_rtt_floor():
    from bufsize.reproduce import fig_000_08 as f

    row = pd.Series({"small_no_drop": 0.6, "small_timeout": 0.3, "loss_rate": 0.04, "queue_delay_mean_ms": 2.0})
    ok = check_abs("small flows: coefficient of variation at B = 30 KB", 0.94, 0.9, 0.15)
    f.cov_cause(ok, "small", [(30_720.0, row)])
    assert ok.cause is None
    bad = check_abs("small flows: coefficient of variation at B = 30 KB", 0.94, 0.5, 0.15)
    f.cov_cause(bad, "small", [(30_720.0, row)])
    assert bad.cause == "setup" and "30% have a retransmission timeout" in bad.cause_detail


def test_fig17_l_optimum_of_400_is_the_papers_inconsistency():
    from bufsize.reproduce import fig_000_17 as f

    assert f.robust_checks(100.0, 400.0, 250.0, "t")[-1].cause is None
    c = f.robust_checks(100.0, 263.0, 250.0, "t")[-1]
    assert not c.passed and c.cause == "paper" and "208 packets" in c.cause_detail and "146" in c.cause_detail
    s_opt = f.robust_checks(69.0, 400.0, 250.0, "a = 0.25")[-2]
    assert not s_opt.passed and s_opt.cause == "setup" and "a = 0.25" in s_opt.cause_detail


def test_fig16_has_no_f_check_where_the_paper_gives_no_f():
    from bufsize.reproduce import fig_000_16 as f

    # the only sentence on f is the Γ < 1 section's 'typical' value; Fig. 16 (Γ = 10) reports f unjudged
    assert "typical values for b and f are around 0.5 and 0.4" in f.F_SENTENCE and "Γ = 10" in f.F_SENTENCE


def test_table2_unmeasurable_optimum_is_not_measured_and_misses_name_the_stack():
    from bufsize.reproduce import table_000_2 as t

    skip = {"PL-L": "not measured: the PL-L median is largest at the grid's largest buffer"}
    c = t._sim_check(skip, ["PL-L"], lambda: check_abs("simulated optimum PL-L", 170, 1000, 42.5))
    assert c.ours is None and c.cause == "not measured" and "grid's largest buffer" in c.cause_detail
    assert t._sim_check({}, ["PL-L"], lambda: check_abs("x", 170, 170, 42.5)).cause is None
    r = {"PL-S": {"sim_packets": 94.0, "sim_bdp_fraction": 0.376, "timeout_share_at_optimum": 0.147,
                  "flows_at_optimum": 35397}}
    text = t.sim_cause(["PL-S"], r)
    assert "15% of its transfers with a retransmission timeout" in text and "ns-2.35's Agent/TCP defaults" in text


def test_alpha_sweep_miss_names_its_short_fit_range():
    from bufsize.reproduce import _p000_alpha as al

    row = {"gamma": 0.25, "alpha": 2.0, "paper_pl_good": False, "r2_pl": 0.9607, "r2_ex": 0.9433, "fit_buffers": 10,
           "cutoff_packets": 160.0, "utilization_largest_b": 0.905, "loss_smallest_b": 0.13, "b_pl": 0.55}
    checks, _ = al.checks_and_notes(pd.DataFrame([dict(row, pl_good=True)]))
    assert not checks[0].passed and checks[0].cause == "setup" and "10 buffers" in checks[0].cause_detail
    checks, _ = al.checks_and_notes(pd.DataFrame([dict(row, pl_good=False)]))
    assert checks[0].passed and checks[0].cause is None


def test_fig1_and_fig10_misses_name_the_emulated_path():
    from test_realpath import _run   # pytest puts this folder on the path (no package)

    from bufsize.reproduce import _realpath as rp
    from bufsize.reproduce import fig_001_01, fig_001_10

    good470 = _run("470", "fixed:a", [90, 95, 95, 95, 95, 95], [0] * 6, [300, 320, 325, 325, 325, 325])
    lossy950 = _run("950", "fixed:b", [80, 95, 50, 40, 60, 70], [150, 0, 20, 0, 0, 0], [300, 440, 200, 230, 260, 290])
    ok = fig_001_01.make_checks(good470, lossy950, rp.intervals_frame(good470), rp.intervals_frame(lossy950))
    assert all(c.cause is None for c in ok if c.passed)
    bad = fig_001_01.make_checks(lossy950, good470, rp.intervals_frame(lossy950), rp.intervals_frame(good470))
    assert bad[0].cause == "setup" and "nyu.ron.lcs.mit.edu" in bad[0].cause_detail
    # Fig. 10's limit is R·T with the RTT at saturation (§VII-A's T_rs), not the path's RTT
    sob = {"phase": "adjusted", "final_limit": 560_000,
           "decisions": [{"t": 6.0, "limit": 560_000, "congested": False, "rtt": 0.048}]}
    s = _run("SOBAS", "sobas", [80, 93, 94, 95, 95, 95, 95, 95, 95, 95], [0] * 10, [300] * 10, sobas=sob)
    runs = [s, _run("450", "fixed:a", [90] + [95] * 9, [0] * 10, [310] * 10), lossy950]
    checks = fig_001_10.make_checks(runs, [rp.intervals_frame(r) for r in runs], 0.035)
    assert checks[1].paper == pytest.approx(95e6 / 8 * 0.048) and checks[1].passed
    sob["decisions"][0]["rtt"] = 0.035
    late = fig_001_10.make_checks(runs, [rp.intervals_frame(r) for r in runs], 0.035)
    assert not late[1].passed and late[1].cause == "setup" and "host Y to host Z" in late[1].cause_detail


def test_sim_figures_give_each_miss_the_cause_of_its_reason():
    from bufsize.reproduce import _p001_cross as pc

    checks = [check_abs("Bt = 313: MFT R̂ = 12 Mb/s", 12.0, 13.05, 1.0), check_abs("Bt = 625: MFT R̂ = 14.5", 14.5, 14.5, 1.0),
              check_abs("Bt = 313: loss rate", 0.001, 0.01, 0.0005)]
    pc.give_causes(checks, [("MFT R̂", "setup", pc.reverse_words()), ("never", "paper", "x")])
    assert checks[0].cause == "setup" and "The reverse path carries the same cross traffic" in checks[0].cause_detail
    assert checks[1].cause is None and checks[2].cause is None   # passing; no reason matches
    assert "ns-2.35's Agent/TCP defaults" in pc.stack_text() and "except" not in pc.stack_text()


def test_fig8_miss_names_the_initial_limit_against_the_pipe_left():
    from bufsize.reproduce import fig_001_08 as f

    info = {"bt": 625, "initial_limit_bytes": 625e3, "capacity_estimate_bps": 50e6, "drops_before": 6,
            "drops_after": 0, "rate_mbps": 24.0, "congested": False}
    text = f.miss_cause("Top (Bt = C·Tm = 625): slow-start losses are avoided by the initial limit S̃ = C̃·T̃", info,
                        {"utilization": 0.71, "loss_rate": 0.0})
    assert "625 KB" in text and "6 drops" in text and "Fig. 9's topology" in text


def _table_row(load, bt, values):
    from bufsize.reproduce import table_001_1 as t

    return {"load_pct": int(load), "buffer_packets": bt, **dict(zip(t.COLUMNS, values))}


def test_table1_competitive_schemes_read_on_the_papers_own_table_give_its_sentence():
    from bufsize.reproduce import table_001_1 as t

    nan = float("nan")
    paper = [_table_row(lo, bt, [nan if v is None else v for v in vals]) for (lo, bt), vals in t.PAPER.items()]
    n = t.competition(paper)
    assert (n["C·Tm"], n["C·Te"], n["S>maxWc"], n["BTC·Ta"], n["A·Tm"]) == (9, 9, 6, 3, 0)
    assert t.competitive_check(paper).passed
    # a table where BTC·Ta competes everywhere and S>maxWc nowhere fails
    other = [dict(r, **{"BTC·Ta": max(r["C·Tm"], r["C·Te"]), "S>maxWc": 0.5 * r["C·Tm"]}) for r in paper]
    assert not t.competitive_check(other).passed


def test_table1_cell_misses_name_what_001_leaves_unsaid():
    from bufsize.reproduce import table_001_1 as t

    row = _table_row("30", 313, [32.8, 32.5, 33.0, 33.4, 33.4, 32.4, 33.0, 36.0])
    pa = {"A_mbps": 35.26, "cross_utilization": 0.295, "BDP3": 440.8, "BDP4": 452.0, "BDP5": 469.0,
          "BTC_mbps": 32.4}
    a_tm = t.cell_cause(("30", 313), "A·Tm", row, pa, 20)
    assert "441 packets" in a_tm and "107 ms" in a_tm and "119 ms" in a_tm
    btc = t.cell_cause(("30", 313), "BTC·Ta", row, pa, 20)
    assert "separate congestion-limited transfer" in btc and "+3.1%" in btc
    congested = t.cell_cause(("100", 313), "C·Tm", row, pa, 20)
    assert "20 uncapped Reno cross flows" in congested and "2.3–3.6" in congested
    assert "reverse path" in t.cell_cause(("70", 625), "C·Tm", row, pa, 20)


def test_fig9_model_misses_name_how_the_runs_losses_fall_on_flows():
    from bufsize.reproduce import fig_000_09 as f

    text = f.model_gap({"loss": 0.0123, "classes": {"le4": {"timeout_share": 0.42}}})
    assert "p = 0.0123" in text and "42% of the ≤ 4-event flows" in text


def test_fig15_shape_125_is_judged_as_a_good_ex_fit_not_as_ex_beating_pl():
    from bufsize.reproduce import fig_000_15 as f15

    fits = lambda ex, pl: {"ex": {"r2": ex}, "pl": {"r2": pl}}   # noqa: E731
    # §VI-B says the EX form is a good approximation at shape 1.25; it does not say it beats PL
    good = f15.alt_shape_check(0.97, 0.985, [1, 2], [fits(0.96, 0.98), fits(0.98, 0.99)])
    assert good.passed and good.cause is None and "good approximation" in good.tolerance
    poor = f15.alt_shape_check(0.94, 0.98, [1, 2], [fits(0.93, 0.98), fits(0.95, 0.97)])
    assert not poor.passed and poor.cause == "setup" and "0.930, 0.950" in poor.cause_detail



def test_fig13_sync_proxy_miss_carries_its_cause_and_a_pass_none():
    import pandas as pd

    from bufsize.reproduce import fig_004_13 as f13

    cfg = {"multiples": (0.5, 1.0), "seeds": (1,), "duration": 60.0}
    ok = f13.sync_check(pd.DataFrame({"n": [20, 100], "ratio_to_rule": [1.45, 0.9]}), cfg)
    assert ok.passed and ok.cause is None
    bad = f13.sync_check(pd.DataFrame({"n": [20, 100], "ratio_to_rule": [1.297, 0.9]}), cfg)
    assert not bad.passed and bad.cause == "setup" and "n = 20: 1.297×" in bad.cause_detail


def test_the_gamma_runs_causes_name_the_packet_size_the_runs_use():
    from bufsize.reproduce import _p000_closed, _p000_optb, table_000_2
    from bufsize.reproduce._p000_miss import stack_clause

    size = f"{_p000_closed.PACKET_BYTES}B"
    assert table_000_2.TCP["packet_size"] == size == f"{_p000_optb.PACKET_BYTES}B"
    # 1500 bytes departs from ns-2's 1000-byte default, so the cause must say so
    assert "1500-byte packets (ns-2: 1000-byte packets)" in stack_clause(table_000_2.TCP)
