"""Checks revised to the papers' own sentences (issue 35, "Checks that misread the paper"): each is fed the
value the sentence allows and the value that must fail it."""

from __future__ import annotations

import pandas as pd


def test_003_fig11_checks_the_lowest_drop_rate_below_phi_as_section_viii_says():
    from bufsize.reproduce import fig_003_11 as f

    pr = pd.DataFrame({"setting": ["BDP1", "BDP2", "BDP3"], "loss_rate": [0.021, 0.0040, 0.0062]})
    c = f.lowest_drop_check(pr, 0.01)
    assert c.passed and c.ours == 0.0040 and c.paper == 0.005 and "BDP2" in c.claim
    assert "lowest packet drop rate achieved is 0.005" in c.tolerance
    assert "BDP1 0.0210" in c.claim    # the others are shown, not hidden
    bad = f.lowest_drop_check(pr.assign(loss_rate=[0.021, 0.011, 0.015]), 0.01)
    assert not bad.passed and bad.ours == 0.011


def test_000_table2_optimum_at_the_grids_largest_buffer_is_not_measured_in_any_check():
    from bufsize.reproduce import table_000_2 as t
    from bufsize.reproduce._core import check_range

    rows = {"PL-L": {"sim_packets": 1000.0, "flows_at_optimum": 5, "sim_bdp_fraction": 4.0},
            "PL-S": {"sim_packets": 94.0, "flows_at_optimum": 35397, "sim_bdp_fraction": 0.376},
            "EX-L": {"sim_packets": 13.0, "flows_at_optimum": 142588, "sim_bdp_fraction": 0.026},
            "EX-S": {"sim_packets": 78.0, "flows_at_optimum": 85432, "sim_bdp_fraction": 0.156}}
    skip = t.unmeasurable(rows, {"pl": 1000.0, "ex": 1000.0})
    assert set(skip) == {"PL-L"}
    assert "grid's largest buffer (1000 packets, the median of 5 flow(s) there)" in skip["PL-L"]
    # an interior optimum is measured; the same optimum on a larger grid is too
    assert t.unmeasurable(rows, {"pl": 1500.0, "ex": 1000.0}) == {}

    def pll():   # the PL-L 60–70 % check, which 4.0 BDP fails
        return check_range("text: PL-L optimum ≈ 60–70 % of BDP (simulation)", 0.65, 4.0, 0.6, 0.7)

    assert not pll().passed and pll().ours == 4.0
    c = t._sim_check(skip, ["PL-L"], pll)
    assert c.ours is None and c.tolerance.startswith("not measured") and c.claim == pll().claim
    both = t._sim_check(skip, ["PL-S", "PL-L"], pll)      # a check on several classes, one of them unmeasurable
    assert both.ours is None
    kept = t._sim_check(skip, ["PL-S"], pll)
    assert kept.ours == 4.0 and not kept.passed


def _fig3_rows(reno, paced, loss):
    rows = []
    for n, u_r, u_p, lo in zip((1, 2, 5, 10, 20), reno, paced, loss):
        rows.append({"rtt": "hm", "variant": "reno", "n": n, "utilization": u_r, "effective_utilization": u_r / 0.8,
                     "loss_rate": lo})
        rows.append({"rtt": "hm", "variant": "paced", "n": n, "utilization": u_p, "effective_utilization": u_p / 0.8,
                     "loss_rate": 0.0})
    return pd.DataFrame(rows)


def test_002_fig3_regardless_of_n_is_judged_where_drops_occur():
    from bufsize.reproduce import fig_002_03 as f

    # N = 1, 2 lossless in both variants (the window limit, 0.8): the full report's 0.778 / 0.786 for Reno
    df = _fig3_rows((0.778, 0.786, 0.24, 0.22, 0.21), (0.778, 0.781, 0.72, 0.71, 0.70), (0, 0, 0.012, 0.016, 0.018))
    assert f.lossy_ns(df, "hm") == [5, 10, 20]
    checks = {c.claim.split(": ", 1)[1].split(" (")[0]: c for c in f.level_checks(df, "hm", "hm")}
    flat = checks["reno flat in N"]
    assert flat.passed and abs(flat.ours - 0.03) < 1e-9 and "regardless of the number of flows" in flat.tolerance
    assert checks["reno ≈ 20% throughput"].passed and checks["paced ≈ 70% throughput"].passed
    # a lossy N at the window limit still fails the flatness (and the level)
    bad = _fig3_rows((0.778, 0.786, 0.78, 0.22, 0.21), (0.778, 0.781, 0.72, 0.71, 0.70), (0, 0, 0.012, 0.016, 0.018))
    bad_checks = {c.claim.split(": ", 1)[1].split(" (")[0]: c for c in f.level_checks(bad, "hm", "hm")}
    assert not bad_checks["reno flat in N"].passed and not bad_checks["reno ≈ 20% throughput"].passed
    assert "N = 1: paced 0.778 / reno 0.778" in f.lossless_text(df, "hm", [5, 10, 20])
    # no drops anywhere: nothing to judge the sentence on
    none = f.level_checks(df.assign(loss_rate=0.0), "hm", "hm")
    assert all(c.ours is None and not c.passed for c in none)
