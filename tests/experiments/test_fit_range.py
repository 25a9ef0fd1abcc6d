"""A fit's optimum says where the fitted laws stop: a B̂ outside the buffers the fits saw is printed
with the range beside it, the model's best buffer inside it and a warning; a B̂ of 0 says which term
of 000's throughput made it; the figure shades the range."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from bufsize.experiments.fit import fit_sweep, report

B = np.repeat([5, 10, 20, 40, 80, 160, 320], 3).astype(float)


def _table(form: str, a: float, b: float, f: float, *, C: float = 1250.0, To: float = 0.1, cutoff: float = 160,
           seed: int = 6) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    mean = a * B ** (-b) if form == "pl" else a * np.exp(-b * B)
    p = mean * np.exp(0.15 * rng.standard_normal(len(B)))
    d = np.where(B > cutoff, f * cutoff / C, f * B / C * (1 + 0.02 * rng.standard_normal(len(B))))
    return pd.DataFrame({"buffer_packets": B, "loss_rate": p, "queue_delay_mean_s": d, "status": "ok",
                         "capacity_pps": C, "rtt_mean_s": To})


def _optimum_lines(text: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("optimum"))
    return [line for line in lines[start:] if line.startswith(("optimum", "          "))]


def test_an_optimum_above_the_fitted_range_is_printed_with_the_range_and_a_warning():
    # PL with a steep loss law and a delay that stops growing at 20 packets: eq. (11) puts B̂_L far above
    res = fit_sweep(_table("pl", 0.2, 1.5, 0.4, cutoff=20), flow_segments=30)
    lo, hi = res.optimal["fitted_range_packets"]
    assert (lo, hi) == (5, 20)
    assert res.optimal["L"] > hi and res.optimal["L_inside_fitted_range"] is False
    best = res.optimal["L_best_inside_fitted_range"]
    assert lo <= best <= hi
    text = report(res)
    line = next(l for l in _optimum_lines(text) if "L-model" in l)
    assert best == hi  # the L-model's throughput still rises at the top of the range
    assert "OUTSIDE the fitted range 5–20 pkt" in line and "best inside it: 20 pkt" in line
    assert any(w.startswith("L-model B̂") and "above the largest buffer the fits saw (20 pkt" in w
               for w in res.warnings)
    assert "warning   L-model B̂" in text


def test_an_optimum_inside_the_fitted_range_is_printed_plainly():
    res = fit_sweep(_table("pl", 0.2, 0.5, 0.4, seed=5), flow_segments=30)
    assert res.optimal["L_inside_fitted_range"] and res.optimal["S_inside_fitted_range"]
    assert not res.warnings
    assert "OUTSIDE" not in report(res) and "warning" not in report(res)


def test_a_zero_optimum_names_the_term_that_outweighs_the_other():
    # EX with a loss that falls slowly: R_S is best at B = 0, below every buffer run
    res = fit_sweep(_table("ex", 0.05, 0.012, 0.4), flow_segments=30)
    assert res.optimal["S"] == 0 and res.optimal["S_inside_fitted_range"] is False
    why = res.optimal["S_why_zero"]
    assert "loss term v·M·a" in why and "slow-start RTTs" in why and "the delay term wins" in why
    text = report(res)
    assert "S-model B̂ = 0 pkt for flows of 30 segments  OUTSIDE the fitted range 5–160 pkt" in text
    assert any("S-model B̂ = 0 pkt lies below the smallest buffer" in w for w in res.warnings)


def test_the_ex_l_model_zero_is_explained_by_its_two_terms():
    # b/2 < f/(C·To): the L-model's throughput falls from B = 0 (the paper's §VII-B.1 rule gives 0)
    res = fit_sweep(_table("ex", 0.05, 0.002, 0.8), loss="ex")
    assert res.optimal["L_paper_rule"] == 0 and res.optimal["L"] == 0
    why = res.optimal["L_why_zero"]
    assert "b/2 =" in why and "f/(C·To) =" in why and "the delay term wins" in why
    assert not res.optimal["L_inside_fitted_range"]


def test_an_ex_l_optimum_at_the_delay_cutoff_is_called_the_edge_of_the_search():
    res = fit_sweep(_table("ex", 0.05, 0.012, 0.4), loss="ex")
    assert res.optimal["L"] == res.delay.cutoff_packets == 160
    assert any("end of the linear delay range, not an optimum" in w for w in res.warnings)


def test_fit_json_carries_the_range_and_the_warnings(tmp_path, capsys):
    from bufsize.cli import main

    f = tmp_path / "runs.csv"
    _table("pl", 0.2, 1.5, 0.4, cutoff=20).to_csv(f, index=False)
    assert main(["fit", str(f), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["optimal_buffer_packets"]["fitted_range_packets"] == [5, 20]
    assert out["loss"]["buffers_packets"] == [5, 320] and out["delay"]["smallest_packets"] == 5
    assert out["warnings"] and out["warnings"][0].startswith("L-model B̂")


def test_the_fit_figure_shades_the_fitted_range(tmp_path):
    pytest.importorskip("matplotlib")
    from bufsize.plots.sweep import plot_fit

    t = _table("pl", 0.2, 1.5, 0.4, cutoff=20)
    res = fit_sweep(t, flow_segments=30)
    fig = plot_fit(t, res)
    labels = [h.get_label() for ax in fig.axes for h in ax.get_legend().legend_handles]
    assert any(lbl.startswith("fitted range 5–20 pkt") for lbl in labels)
    assert any("outside the fitted range" in lbl for lbl in labels)


def test_an_optimum_far_outside_the_runs_does_not_stretch_the_figure():
    pytest.importorskip("matplotlib")
    from bufsize.plots.sweep import plot_fit

    t = _table("pl", 0.2, 1.5, 0.4, cutoff=20)
    res = fit_sweep(t, flow_segments=30)
    assert res.optimal["L"] > 2 * 320                          # far beyond the largest buffer run
    fig = plot_fit(t, res)
    for ax in fig.axes:
        assert ax.get_xlim()[1] < 2 * 320                       # the axes keep to the runs
    labels = [h.get_label() for ax in fig.axes for h in ax.get_legend().legend_handles]
    assert any(lbl.startswith("L-model B̂") and "off the plot" in lbl for lbl in labels)
    notes = [c.get_text() for ax in fig.axes for c in ax.texts]
    assert any(n.startswith("L-model B̂ =") and n.endswith("→") for n in notes)


def test_an_ex_l_optimum_at_the_cutoff_after_an_initial_fall_says_so():
    # b/2 < f/(C·To): the paper's rule says 0, but the convex R_L is higher again at the cutoff
    from bufsize.experiments.fit import DelayFit, Estimate, FitResult, LossFit, judge_range, optimal_buffers

    loss = LossFit("ex", Estimate(0.05, 0.04, 0.06), Estimate(0.001, 0.0009, 0.0011), 0.99, 0.1, 20, 0, 0.95,
                   (10.0, 20000.0))
    delay = DelayFit(Estimate(0.9, 0.85, 0.95), 20000.0, 0.99, 20, 10000.0, 10.0)
    res = FitResult(loss, {"ex": loss}, "", delay)
    res.optimal = optimal_buffers(loss, 0.9, 10000.0, 0.1, flow_segments=None, B_max=20000.0)
    judge_range(res, None)
    assert res.optimal["L_paper_rule"] == 0 and res.optimal["L"] == 20000
    edge = [w for w in res.warnings if "end of the linear delay range" in w]
    assert edge and "falls from B = 0, then rises" in edge[0] and "unbounded" not in edge[0]
