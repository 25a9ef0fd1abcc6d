"""Paper 003's items give every miss its cause, and a passing check none (fed a failing value once)."""

from __future__ import annotations

import pandas as pd

from bufsize.reproduce import fig_003_01 as f1
from bufsize.reproduce import fig_003_09 as f9
from bufsize.reproduce import table_003_3 as t3
from bufsize.reproduce import table_003_4 as t4


def _row(utilization):
    return pd.Series({"setting": "BDP3", "rtt_ms": 90.0, "buffer_packets": 89, "utilization": utilization,
                      "w_std": 400.0, "delta_model": 80.0, "a_measured_aggregate": 0.64})


def test_fig9_utilization_miss_names_the_testbeds_http_traffic_and_the_measured_spread():
    assert f9.utilization_check(_row(0.99)).cause is None
    c = f9.utilization_check(_row(0.968))
    assert not c.passed and c.cause == "setup"
    assert "HTTP traffic" in c.cause_detail and "5.0× the model" in c.cause_detail


def _stats(ks_fixed_200):
    rows = [{"rtt": r, "n": n, "ks": ks, "std": sd, "excess_kurtosis": k}
            for r, n, ks, sd, k in (("fixed", 10, 0.0675, 1471.0, -1.02), ("fixed", 200, ks_fixed_200, 1517.0, -1.08),
                                    ("spread", 10, 0.126, 1846.0, 0.98), ("spread", 200, 0.054, 649.0, -0.26))]
    return pd.DataFrame(rows)


def test_fig1_identical_rtts_miss_carries_the_lockstep_cause():
    assert f1.fixed_rtt_check(_stats(0.03)).cause is None
    c = f1.fixed_rtt_check(_stats(0.068))
    assert not c.passed and c.cause == "setup" and "σ(W) is 1517 packets at n = 200 against 1471" in c.cause_detail


def test_table_iii_printed_a_values_are_the_papers_inconsistency():
    assert t3.a_check("bic", 0.0241, 0.02412, None).cause is None
    bic = t3.a_check("bic", 0.0241, 0.0339618, 0.06416)
    assert bic.cause == "paper" and "0.0340" in bic.cause_detail and "0.0642" in bic.cause_detail
    ctcp = t3.a_check("ctcp", 0.19, 0.197976, None)
    assert ctcp.cause == "paper" and "0.1980" in ctcp.cause_detail
    assert t3.a_check("reno", 0.19245, 0.5, None).cause is None   # a miss without a known paper cause stays open


def test_table_iv_printed_bdp_is_the_papers_inconsistency():
    row = {"bdp": "BDP3", "rtt_s": 0.09, "printed_mb": 18.0, "rate_x_rtt_mb": 6.9975,
           "rate_implied_by_printed_mbps": 1600.0, "rtt_implied_by_printed_ms": 231.5}
    assert t4.printed_bdp_check(dict(row, rate_x_rtt_mb=18.1)).cause is None
    c = t4.printed_bdp_check(row)
    assert not c.passed and c.cause == "paper" and "product is 7.00 MB, not the printed 18 MB" in c.cause_detail


def test_kernel_misses_name_the_scaled_partial_testbed():
    from bufsize.reproduce import _p003_kernel as k

    ok = pd.DataFrame([{"setting": "BDP1", "w_std": 30.0, "w_mean": 300.0}])
    text = k.kernel_cause(ok)
    assert "16 Reno + 16 CUBIC" in text and "34 CTCP flows" in text and "BDP1" in text


def test_fig11_lowest_drop_rate_miss_carries_its_cause():
    from bufsize.reproduce import fig_003_11 as f11

    pr = pd.DataFrame({"setting": ["BDP1", "BDP2", "BDP3"], "loss_rate": [0.021, 0.011, 0.015],
                       "w_mean": [900.0, 2000.0, 2600.0]})
    c = f11.lowest_drop_check(pr, 0.01)
    assert not c.passed and c.cause == "setup" and "BDP2's, is 0.0110" in c.cause_detail
    assert f11.lowest_drop_check(pr.assign(loss_rate=[0.02, 0.004, 0.006]), 0.01).cause is None
