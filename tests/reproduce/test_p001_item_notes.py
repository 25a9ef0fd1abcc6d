"""Paper 001's S001 items (Figs. 3–7) say what their own run did: inputs.json at the run's scale, and a
per-Bt miss note about that Bt's series, in words that match the mode (issue 35, "Defects in the items")."""

from __future__ import annotations

import pandas as pd
import pytest

from bufsize.reproduce import _p001_cross as p
from bufsize.reproduce._core import Context

# R(S) per Bt, each with its own recognisable values, none flat from S ≈ 100 (so every plateau check misses)
SERIES = {313: (2.1, 9.3, 3.3, 8.1), 625: (2.2, 9.6, 4.4, 8.2), 1250: (1.7, 9.7, 5.5, 8.3)}
S = (20, 80, 150, 1300)


def _fake_sweep(ctx, kind):
    cfg = p.SCALE[ctx.mode]
    rows = []
    for bt, rates in SERIES.items():
        for s, r in zip(S, rates):
            for seed in cfg["seeds"]:
                rows.append({"buffer_packets": bt, "socket_buffer_packets": s, "seed": seed, "throughput_mbps": r,
                             "goodput_mbps": r * 0.96, "target_rtt_ms": 120.0 + bt / 25, "target_drops": 7 + bt // 313,
                             "target_loss_rate": 0.004, "link_utilization": 0.95, "link_loss_rate": 0.01})
    paths = pd.DataFrame([{"buffer_packets": bt, "cross_utilization": 0.93, "cross_loss_rate": 0.01,
                           "cross_mean_queue_packets": bt / 2, "cross_queue_delay_ms": 10.0, "A_mbps": 3.5,
                           "B_avail_packets": bt / 2, "Te_ms": 110.0} for bt in SERIES])
    return pd.DataFrame(rows), paths


@pytest.fixture
def fake(monkeypatch):
    monkeypatch.setattr(p, "sweep", _fake_sweep)
    monkeypatch.setattr(p, "plot", lambda *a, **k: None)


@pytest.mark.parametrize("mode", ["quick", "full"])
def test_s001_inputs_json_records_the_runs_own_interval(mode):
    cfg = p.SCALE[mode]
    for kind in p.KINDS:
        sc = p.template_inputs(Context(mode=mode), kind)["scenario_template"]
        assert sc["duration_s"] == cfg["warmup"] + cfg["measured"] and sc["warmup_s"] == cfg["warmup"], kind


def test_fig_001_06_full_inputs_json_is_the_200_s_run(fake):
    from bufsize.reproduce import fig_001_06

    out = fig_001_06.run(Context(mode="full"))
    sc = out.inputs["scenario_template"]
    assert (sc["duration_s"], sc["warmup_s"]) == (250.0, 50.0)


@pytest.mark.parametrize("bt", [313, 625, 1250])
def test_fig_001_06_plateau_note_prints_its_own_bts_series(fake, bt):
    from bufsize.reproduce import fig_001_06

    out = fig_001_06.run(Context(mode="quick"))
    notes = [n for n in out.notes if n.startswith(f"Miss — Bt = {bt}: R(S) is maximal")]
    assert len(notes) == 1
    own = ", ".join(f"{s}: {r:.2f}" for s, r in zip(S, SERIES[bt]))
    assert f"R(S) at Bt {bt}: {own} Mb/s" in notes[0]
    for other in SERIES:
        if other != bt:
            assert f"R(S) at Bt {other}:" not in notes[0]


def test_fig_001_06_full_notes_do_not_speak_of_60_s_runs(fake):
    from bufsize.reproduce import fig_001_06

    text = " ".join(fig_001_06.run(Context(mode="full")).notes)
    assert "60-s" not in text and "60 s" not in text
    assert "200-s runs" in text or "200 s" in text


def test_fig_001_05_full_notes_do_not_blame_the_quick_interval(fake):
    from bufsize.reproduce import fig_001_05

    full = " ".join(fig_001_05.run(Context(mode="full")).notes)
    assert "quick interval" not in full and "paper's scale (200 s after 50 s, 3 seeds)" in full
    quick = " ".join(fig_001_05.run(Context(mode="quick")).notes)
    assert "quick interval" in quick


def test_fig_001_04_shape_claim_prints_the_relation_that_holds(fake):
    from bufsize.reproduce import fig_001_04

    out = fig_001_04.run(Context(mode="quick"))
    shape = [c for c in out.checks if "shape" in c.claim]
    assert len(shape) == 3
    for c in shape:   # fake R̂ ≈ 9.3–9.7 Mb/s, A = 3.5 Mb/s: R̂ > A holds
        assert "> A = 3.50" in c.claim
    # with A above R̂ the claim must not print R̂ > A
    low = _fake_sweep(Context(mode="quick"), "tcp_winlim")[1].assign(A_mbps=15.48)
    from bufsize.reproduce import _p001_cross

    orig = _p001_cross.sweep
    try:
        _p001_cross.sweep = lambda ctx, kind: (orig(ctx, kind)[0], low)
        out = fig_001_04.run(Context(mode="quick"))
    finally:
        _p001_cross.sweep = orig
    for c in (c for c in out.checks if "shape" in c.claim):
        assert "≤ A = 15.48" in c.claim and "> A = 15.48" not in c.claim and not c.passed
