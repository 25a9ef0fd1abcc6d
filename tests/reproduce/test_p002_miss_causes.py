"""Paper 002's items give every miss its cause, and a passing check none (fed a failing value once)."""

from __future__ import annotations

import pandas as pd

from bufsize.reproduce import fig_002_01 as f1
from bufsize.reproduce import fig_002_03 as f3
from bufsize.reproduce import fig_002_04 as f4
from bufsize.reproduce import fig_002_06 as f6


def _fig3(reno, paced):
    ns = (5, 10, 20)
    rows = [{"rtt": "hm", "variant": v, "n": n, "utilization": u, "effective_utilization": u / 0.8, "loss_rate": 0.01}
            for v, us in (("reno", reno), ("paced", paced)) for n, u in zip(ns, us)]
    return pd.DataFrame(rows)


def test_fig3_level_misses_carry_their_cause_and_passes_none():
    ok = f3.level_checks(_fig3((0.20, 0.21, 0.20), (0.70, 0.71, 0.70)), "hm", "hm")
    assert all(c.passed and c.cause is None for c in ok)
    bad = f3.level_checks(_fig3((0.28, 0.28, 0.27), (0.79, 0.79, 0.79)), "hm", "hm")
    misses = [c for c in bad if not c.passed]
    assert misses and all(c.cause == "setup" for c in misses)
    reno = next(c for c in misses if "reno ≈ 20%" in c.claim)
    assert "TCP Reno" in reno.cause_detail and "N = 5: 0.280" in reno.cause_detail
    paced = next(c for c in misses if "paced ≈ 70%" in c.claim)
    assert "We implemented Paced TCP" in paced.cause_detail


def test_fig4_forty_flows_above_the_band_carry_their_cause():
    d = pd.DataFrame({"buffer_packets": [10, 50], "utilization": [0.85, 0.86], "loss_rate": [0.001, 0.0]})
    assert f4.forty_check("hm", d).cause is None
    c = f4.forty_check("hm", d.assign(utilization=[0.93, 1.0]))
    assert not c.passed and c.cause == "setup" and "1.000 at B = 50" in c.cause_detail


def test_fig6_constant_buffer_without_a_drop_carries_its_cause():
    assert f6.constant_drop_check("hm", pd.Series({10: 0.51, 1529: 0.30}), 10, 1529).cause is None
    c = f6.constant_drop_check("hm", pd.Series({10: 0.514, 1529: 0.520}), 10, 1529)
    assert not c.passed and c.cause == "setup" and "0.520 at 1529" in c.cause_detail


def test_fig1_reno_crossing_outside_about_100_carries_its_cause():
    assert f1.reno_crossing_check("40 Reno flows", (1, 2), [95.0, 105.0]).cause is None
    c = f1.reno_crossing_check("40 Reno flows", (1, 2), [58.0, 60.8])
    assert not c.passed and c.cause == "setup" and "59.4 packets (seeds: 58, 61)" in c.cause_detail
    assert "below the 60–160" in c.cause_detail


def test_paced_tcp_is_cited_from_the_section_that_says_it():
    from bufsize.reproduce import _p002

    # 002's "We implemented Paced TCP" is in §III (its paced-TCP section), not §IV
    assert "'We implemented Paced TCP' (§III)" in _p002.PACED_UNSTATED
