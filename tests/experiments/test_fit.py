"""Fits of 000's PL and EX loss forms and the linear delay: parameters recovered within their
intervals on synthetic data, the right form chosen, and the optimal buffer through prasad.py."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from bufsize.errors import BufsizeError
from bufsize.experiments.fit import fit_delay, fit_loss, fit_sweep
from bufsize.models import prasad

B = np.repeat([5, 10, 20, 40, 80, 160, 320], 3).astype(float)  # 7 buffers x 3 seeds


def draw(form, a, b, rng, noise=0.15):
    mean = a * B ** (-b) if form == "pl" else a * np.exp(-b * B)
    return mean * np.exp(noise * rng.standard_normal(len(B)))  # multiplicative (log-normal) noise


@pytest.mark.parametrize("form, a, b", [("pl", 0.2, 0.6), ("ex", 0.05, 0.012)])
def test_parameters_recovered_within_their_intervals(form, a, b):
    rng = np.random.default_rng(2024)
    trials, cover_a, cover_b, right_form = 300, 0, 0, 0
    for _ in range(trials):
        p = draw(form, a, b, rng)
        fit = fit_loss(B, p, form, confidence=0.95)
        cover_a += fit.a.contains(a)
        cover_b += fit.b.contains(b)
        other = fit_loss(B, p, "ex" if form == "pl" else "pl")
        right_form += fit.r2 > other.r2
    # 95 % intervals: coverage within binomial noise of 0.95 (sd 1.3 % over 300 trials)
    assert 0.91 <= cover_a / trials <= 0.99
    assert 0.91 <= cover_b / trials <= 0.99
    assert right_form / trials >= 0.95
    # one draw in detail
    fit = fit_loss(B, draw(form, a, b, np.random.default_rng(1)), form)
    assert fit.a.contains(a) and fit.b.contains(b) and fit.r2 > 0.9 and fit.n == len(B)


def _table(form, a, b, f, C_pps, To, rng):
    p = draw(form, a, b, rng)
    d = f * B / C_pps + 0.002 * rng.standard_normal(len(B))  # additive noise, 2 ms sd
    d = np.where(B > 160, f * 160 / C_pps, d)  # the sources cannot fill more than 160 packets
    p[0] = 0.0  # a run without loss: left out of the loss fit
    return pd.DataFrame({"buffer_packets": B, "loss_rate": p, "queue_delay_mean_s": d, "status": "ok",
                         "capacity_pps": C_pps, "rtt_mean_s": To})


def test_fit_sweep_auto_delay_cutoff_and_optimal_buffer():
    rng = np.random.default_rng(5)
    t = _table("pl", 0.2, 0.5, 0.4, 1250.0, 0.1, rng)
    res = fit_sweep(t, loss="auto", flow_segments=30)
    assert res.loss.form == "pl" and "PL" in res.reason and res.loss.left_out_zero == 1
    f = res.delay.f
    assert abs(f.value - 0.4) <= 2 * (f.high - f.value) and res.delay.cutoff_packets == 160  # one draw: 2x the 95 % CI
    # B̂ is prasad's eq. (11) / (13) evaluated with the fitted values (not a re-derivation)
    C_To = 125.0
    assert res.optimal["L"] == pytest.approx(prasad.optimal_buffer_pl_l(res.loss.b.value, res.delay.f.value, C_To))
    assert res.optimal["S"] == pytest.approx(prasad.optimal_buffer_pl_s(
        a=res.loss.a.value, b=res.loss.b.value, f=res.delay.f.value, M=30, D=prasad.slow_start_rounds(30), C_To=C_To))
    # and close to the truth: b/(f(2-b)) C To = 0.5/(0.4*1.5)*125 = 104.2
    assert res.optimal["L"] == pytest.approx(104.2, rel=0.25)
    t = _table("ex", 0.05, 0.012, 0.4, 1250.0, 0.1, np.random.default_rng(6))
    res = fit_sweep(t, loss="auto")
    assert res.loss.form == "ex" and res.optimal["L_paper_rule"] in (0.0, math.inf)


def test_delay_interval_coverage():
    rng = np.random.default_rng(11)
    hits = 0
    for _ in range(300):
        d = np.where(B > 160, 0.4 * 160 / 1250, 0.4 * B / 1250 + 0.002 * rng.standard_normal(len(B)))
        fit = fit_delay(B, d, 1250.0)
        hits += fit.f.contains(0.4)
    assert 0.91 <= hits / 300 <= 0.99


def test_delay_cutoff_detected():
    Bs = np.array([10, 20, 40, 80, 160, 320, 640], float)
    d = np.minimum(Bs, 100) * 0.5 / 1000.0
    fit = fit_delay(Bs, d, 1000.0)
    assert fit.cutoff_packets == 80 and fit.f.value == pytest.approx(0.5)


def test_fit_errors(tmp_path):
    with pytest.raises(BufsizeError, match="at least 3 runs with some loss"):
        fit_loss([10, 20, 30], [0.1, 0.0, 0.0], "pl")
    with pytest.raises(BufsizeError, match="DIR: no sweep table"):
        fit_sweep(tmp_path)
    with pytest.raises(BufsizeError, match="--loss"):
        fit_sweep(tmp_path, loss="quadratic")


def test_fit_a_real_sweep_through_the_cli(tmp_path, capsys):
    """Eight Reno flows at 10 Mb/s over buffers 4..100: loss falls with B, both fits run end to end."""
    import json

    from bufsize.cli import main

    sc = tmp_path / "s.json"
    sc.write_text(json.dumps({"seed": 1, "duration": "30s", "warmup": "5s",
                              "dumbbell": {"capacity": "10Mbps", "flows": 8, "rtt": "40ms..120ms", "buffer": 10,
                                           "tcp": {"packet_size": "1000B", "sack": False, "prr": False}}}))
    out = tmp_path / "o"
    assert main(["sweep", str(sc), "--vary", "buffer=4..100:5:log", "--seeds", "2", "--out", str(out),
                 "--workers", "2", "--no-progress"]) == 0
    capsys.readouterr()
    rc = main(["fit", str(out), "--loss", "auto", "--flow-size", "30pkt", "--json", "--plot", str(tmp_path / "f.png")])
    res = json.loads(capsys.readouterr().out)
    assert rc == 0
    assert set(res["fits"]) == {"pl", "ex"} and res["loss"]["b"]["value"] > 0  # loss falls with the buffer
    assert res["delay"]["f"]["value"] > 0 and res["optimal_buffer_packets"]["C_To_packets"] == pytest.approx(100.0)
    assert (tmp_path / "f.png").stat().st_size > 5000
    assert main(["fit", str(tmp_path / "none")]) == 2
