"""The predicted figures come from one function, at one stated window and scale, labelled by model;
and a model that cannot use part of the description (a CUBIC mix for a Reno-only model) says so."""

from __future__ import annotations

import math

import numpy as np
import pytest

from bufsize.cli import main
from bufsize.recommendation.scenario import scenario_from_input
from bufsize.recommendation import RENO_ONLY_MODELS, predicted_figures, recommend
from bufsize.scenario import Scenario

BIG = dict(capacity="100Gbps", flows=20_000, rtt="50ms..150ms", max_loss="1%")


def _rec(**kw):
    return recommend(**kw, verify=False)


def test_loss_figures_are_evaluated_at_the_stated_window_of_the_described_link():
    rec = _rec(**BIG)
    inp, p = rec.input, rec.predicted
    b = rec.recommended["buffer_packets"]
    # independent: n flows share C·RTT_h + B packets; RTT_h of a uniform 50..150 ms is 100/ln 3 ms
    rtt_h = 0.1 / math.log(3.0)
    w = (1e11 / (8 * 1500) * rtt_h + b) / 20_000
    assert p["loss_window_packets"] == pytest.approx(w, rel=1e-9)
    assert p["loss_004_a6_per_flow"] == pytest.approx(0.76 / w**2, rel=1e-9)
    assert p["loss_sqrt_law_per_flow"] == pytest.approx((1.22 / w) ** 2, rel=1e-9)
    figs = {f["key"]: f for f in p["figures"]}
    morris = figs["loss_004_a6_per_flow"]
    assert morris["model"] == "004-loss-window" and "0.76/w²" in morris["equation"]
    assert f"{w:.3g} packets per flow" in morris["text"] and "at full size" in morris["text"]
    assert morris["window_packets"] == pytest.approx(w)
    # every figure says which model gives it and where it is evaluated
    assert all(f["model"] and f["at"] and f["text"] for f in p["figures"])


def test_headline_json_and_plot_show_the_same_loss(tmp_path, monkeypatch, capsys):
    rec = _rec(**BIG)
    b = rec.recommended["buffer_packets"]
    # the headline line
    assert main(["recommend", "--capacity", "100Gbps", "--flows", "20000", "--rtt", "50ms..150ms", "--max-loss", "1%",
                 "--no-verify"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    head = rec.predicted["loss_004_a6_per_flow"]
    assert f"per-flow loss {head:.3%}" in out and "Morris fit 0.76/w²" in out
    # the plot's loss curve, captured as drawn, at the recommended size
    import matplotlib.axes

    drawn = {}
    real = matplotlib.axes.Axes.plot

    def spy(self, *args, **kw):
        if "label" in kw and args:
            drawn[kw["label"]] = (np.asarray(args[0], float), np.asarray(args[1], float))
        return real(self, *args, **kw)

    monkeypatch.setattr(matplotlib.axes.Axes, "plot", spy)
    from bufsize.plots.recommend import plot_recommendation

    plot_recommendation(rec, str(tmp_path / "r.png"))
    label = next(k for k in drawn if "Morris" in k)
    x, y = drawn[label]
    at_b = np.exp(np.interp(math.log(b), np.log(x), np.log(y)))
    assert at_b == pytest.approx(head, rel=1e-3)
    assert not any(k.startswith("000") and "p =" in k for k in drawn)   # no third loss model in the panel


def test_predicted_figures_is_what_the_headline_holds():
    rec = _rec(capacity="1Gbps", flows=50, rtt="10ms..40ms", max_delay="5ms")
    b = rec.recommended["buffer_packets"]
    again = predicted_figures(rec.input, b, rec.models)
    assert [(f["key"], f["value"]) for f in again] == [(f["key"], f["value"]) for f in rec.predicted["figures"]]
    assert rec.predicted["utilization_001_eq17_single_flow"] == pytest.approx(0.871, abs=0.001)


@pytest.mark.parametrize("mix", [None, "reno=1", "cubic=1"])
def test_below_250_flows_the_models_cannot_use_the_mix_and_say_so(mix):
    kw = dict(capacity="1Gbps", flows=50, rtt="10ms..40ms", max_delay="5ms")
    rec = _rec(**kw, mix=mix)
    base = _rec(**kw)
    assert rec.recommended["buffer_packets"] == pytest.approx(base.recommended["buffer_packets"])
    noted = [m.id for m in rec.models if m.details.get("not_used")]
    if mix == "cubic=1":
        assert "001-single-flow" in noted and set(noted) <= set(RENO_ONLY_MODELS)
        assert "cubic 100%" in rec.model("001-single-flow").reason
        assert not rec.model("003-utilization").details.get("not_used")   # 003 takes the mix
    else:
        assert noted == []


def test_the_simulated_traffic_carries_the_mix_sack_and_packet_size():
    rec = _rec(capacity="1Gbps", flows=50, rtt="10ms..40ms", max_delay="5ms", mix="cubic=1")
    sc = Scenario.from_dict(scenario_from_input(rec.input, buffer=rec.recommended["buffer_packets"])).to_dict()
    db = sc["dumbbell"]
    assert [(c["flows"], c["tcp"]["cc"], c["tcp"]["sack"], c["tcp"]["packet_bytes"]) for c in db["mix"]] == \
        [(50, "cubic", True, 1500)]
    assert db["buffer"] == {"limit_packets": 417}
