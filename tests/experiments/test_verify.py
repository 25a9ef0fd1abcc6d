"""recommend --verify: the scenario built from the recommendation's inputs, its scaling, the runs."""

from __future__ import annotations

import json
import math

import pytest

from bufsize.cli import main
from bufsize.errors import BufsizeError
from bufsize.experiments.verify import build_scenario, predictions
from bufsize.models import appenzeller, jain
from bufsize.scenario import Scenario


def _rec(**inp):
    base = {"capacity_bps": 10e6, "rtt_s": 0.1, "rtt_min_s": 0.05, "rtt_max_s": 0.15, "flows": 20,
            "packet_bytes": 1000.0}
    base.update(inp)
    return {"input": base, "recommended": {"buffer_packets": 50.0}}


def test_scenario_from_the_inputs_unscaled():
    sc, k, B, notes = build_scenario(_rec(), duration=20.0)
    assert k == 1 and B == 50.0 and notes == []
    d = Scenario.from_dict({**sc, "dumbbell": {**sc["dumbbell"], "buffer": 50}}).to_dict()
    assert d["dumbbell"]["capacity_bps"] == 10e6 and d["dumbbell"]["flows"] == 20
    assert d["dumbbell"]["rtt_s"] == {"uniform": [0.05, 0.15]} and d["dumbbell"]["tcp"]["packet_bytes"] == 1000


def test_a_big_port_is_scaled_keeping_per_flow_rate_and_b_sqrt_n_over_bdp():
    rec = _rec(capacity_bps=10e9, flows=10_000, packet_bytes=1500.0)
    rec["recommended"]["buffer_packets"] = 2000.0
    sc, k, B, notes = build_scenario(rec, duration=20.0)
    n_sim = sc["dumbbell"]["flows"]
    assert k > 1 and n_sim * k == pytest.approx(10_000)
    cap = float(sc["dumbbell"]["capacity"][:-3])
    assert cap / n_sim == pytest.approx(10e9 / 10_000)  # each flow keeps its rate
    bdp, bdp_sim = 10e9 * 0.1 / 12000, cap * 0.1 / 12000
    assert B * math.sqrt(n_sim) / bdp_sim == pytest.approx(2000.0 * math.sqrt(10_000) / bdp)
    assert cap / 12000 * 20.0 <= 1.5e7 * 1.01 and "scaled down" in notes[0]


def test_errors():
    with pytest.raises(BufsizeError, match="--verify: needs long-lived flows"):
        build_scenario(_rec(flows=0))
    rec = _rec()
    rec["recommended"]["buffer_packets"] = None
    with pytest.raises(BufsizeError, match="no finite buffer"):
        build_scenario(rec)


def test_predictions_are_the_models():
    p = predictions(125.0, 60.0, 20, 1250.0)
    assert p["util_004_eq6_lower_bound"] == appenzeller.utilization_lower_bound(60.0, 125.0, 20)
    assert p["util_001_eq17_synchronized"] == jain.reno_single_flow_utilization(125.0, 60.0)
    assert p["loss_004_per_flow"] == pytest.approx(0.76 / ((185 / 20) ** 2))
    assert p["full_buffer_delay_s"] == pytest.approx(0.048)


def test_cli_verify(capsys):
    rc = main(["recommend", "--capacity", "10Mbps", "--rtt", "50ms..150ms", "--flows", "20", "--packet-size", "1000B",
               "--verify", "--verify-seeds", "2", "--verify-duration", "15s", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0
    v = out["verify"]
    rows = v["rows"]
    B = out["recommended"]["buffer_packets"]
    assert [r["buffer_packets"] for r in rows] == [max(1, math.floor(f * B + 0.5)) for f in (0.5, 1, 2)]
    for r in rows:  # physics: the mean queueing delay cannot exceed a full buffer's (plus one packet)
        assert 0 < r["util"] <= 1 and r["delay_mean_s"] <= r["full_buffer_delay_s"] + 1000 * 8 / 10e6
    assert rows[0]["delay_mean_s"] < rows[1]["delay_mean_s"] < rows[2]["delay_mean_s"]
    assert rows[0]["util"] <= rows[2]["util"] + 1e-9
    rc = main(["recommend", "--capacity", "10Mbps", "--rtt", "50ms", "--flows", "20", "--verify",
               "--verify-duration", "banana"])
    assert rc == 2 and "--verify-duration" in capsys.readouterr().err
