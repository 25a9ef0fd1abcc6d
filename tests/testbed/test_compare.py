"""Mapping between a testbed configuration and its simulator twin (no root, no engine run)."""

from __future__ import annotations

import math

import pytest

from bufsize.errors import ScenarioError
from bufsize.testbed.compare import side_by_side, simulator_twin
from bufsize.testbed.compare import testbed_from_scenario as to_testbed
from bufsize.testbed.config import TestbedConfig


def test_twin_mirrors_the_testbed_and_maps_back():
    cfg = TestbedConfig.dumbbell(rate="50Mbps", rtt="40ms..100ms", buffer="0.5bdp", flows=4, duration="30s",
                                 warmup="5s", seed=3)
    tw = simulator_twin(cfg).to_dict()
    db = tw["dumbbell"]
    assert db["capacity_bps"] == 50e6 and db["flows"] == 4
    assert db["buffer"] == {"limit_packets": cfg.buffer_packets}
    assert db["rtt_s"]["list"] == pytest.approx([f.rtt_s for f in cfg.flows])
    assert db["start_s"]["list"] == pytest.approx([f.start_s for f in cfg.flows])
    t = db["tcp"]
    assert (t["cc"], t["sack"], t["packet_bytes"], t["packet_bytes"] - t["header_bytes"], t["initial_window"],
            t["min_rto_s"], t["delayed_ack"], t["delayed_ack_timeout_s"], t["prr"]) == (
        "newreno", True, 1514, 1448, 10, 0.2, True, 0.04, True)
    assert (tw["duration_s"], tw["warmup_s"], tw["seed"]) == (30.0, 5.0, 3)
    back = to_testbed(simulator_twin(cfg))
    assert back == cfg


def test_cubic_has_a_twin_that_runs():
    from bufsize.simulate import simulate

    cfg = TestbedConfig.dumbbell(rate="10Mbps", rtt="40ms..100ms", buffer="0.25bdp", flows=4, cc="cubic",
                                 duration="20s", warmup="5s")
    tw = simulator_twin(cfg)
    assert tw.to_dict()["dumbbell"]["tcp"]["cc"] == "cubic"
    assert to_testbed(tw) == cfg
    r = simulate(tw, progress=False)
    assert 0.5 < r.summary["utilization"] <= 1.0 and r.summary["fast_retransmits"] > 0


def test_uniform_ranges_are_spread_evenly_and_bytes_become_packets():
    from bufsize.scenario import Scenario

    sc = Scenario.dumbbell(capacity="20Mbps", flows=4, rtt="40ms..80ms", buffer="30280B", start="0s..2s")
    cfg = to_testbed(sc)
    assert [round(f.rtt_s, 4) for f in cfg.flows] == [0.045, 0.055, 0.065, 0.075]
    assert [f.start_s for f in cfg.flows] == pytest.approx([0.25, 0.75, 1.25, 1.75])
    # the default profile's control (linux: CUBIC)
    assert cfg.buffer_packets == 20 and {f.cc for f in cfg.flows} == {"cubic"}


def test_twin_refuses_what_it_cannot_mirror():
    mixed = TestbedConfig.dumbbell(rate="50Mbps", rtt="70ms", buffer=50, flows=2, cc=["reno", "cubic"])
    with pytest.raises(ScenarioError, match="mixes"):
        simulator_twin(mixed)
    users = TestbedConfig.dumbbell(rate="50Mbps", rtt="70ms", buffer=50, flows=1, users=2)
    with pytest.raises(ScenarioError, match="users"):
        simulator_twin(users)


def test_side_by_side_rows():
    rows = side_by_side({"utilization": 0.9, "loss_rate": 0.01},
                        {"utilization": {"mean": 0.85, "ci_low": 0.8, "ci_high": 0.9, "n": 3}})
    u = next(r for r in rows if r["field"] == "utilization")
    assert u["difference"] == pytest.approx(-0.05) and u["n"] == 3
    lr = next(r for r in rows if r["field"] == "loss_rate")
    assert math.isnan(lr["testbed"]) and lr["n"] == 0
