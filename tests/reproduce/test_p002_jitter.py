"""Paper 002's runs carry a microsecond of host jitter: without it the engine's exact clock holds two
window-capped Reno flows behind five packets in a lossless periodic state that ns-2.35 never reaches on
the same inputs (bench/ns2/tiny_buffers.md); with it they collide and lose packets as ns-2's do."""

import pytest

from bufsize.reproduce import _p002
from bufsize.simulate import simulate


def _two_flows(monkeypatch, jitter):
    monkeypatch.setattr(_p002, "HOST_JITTER_S", jitter)
    # 002's buffer 6 (ns-2's limit_ 6) is the engine's limit 5: five waiting packets
    sc = _p002.scenario(flows=2, capacity_bps=6.4e6, buffer=6, variant="reno", rtt="hm", duration=120, warmup=60)
    assert sc.to_dict()["dumbbell"]["tcp"]["host_jitter_s"] == jitter
    return simulate(sc, progress=False).summary


def test_002_buffers_are_ns2_limits_which_count_the_packet_on_the_wire():
    sc = _p002.scenario(flows=4, capacity_bps=12.8e6, buffer=10, variant="reno", rtt="hm", duration=5, warmup=1)
    assert sc.to_dict()["dumbbell"]["buffer"]["limit_packets"] == 9
    assert _p002.engine_limit(1) == 0 and _p002.engine_limit(0) == 0


def test_002_runs_carry_a_microsecond_of_host_jitter():
    sc = _p002.scenario(flows=40, capacity_bps=100e6, buffer=10, variant="paced", rtt="hm", duration=5, warmup=1)
    assert _p002.HOST_JITTER_S == pytest.approx(1e-6)
    assert sc.to_dict()["dumbbell"]["tcp"]["host_jitter_s"] == pytest.approx(1e-6)


def test_the_exact_clock_locks_two_flows_behind_five_packets_and_the_jitter_unlocks_them(monkeypatch):
    locked = _two_flows(monkeypatch, 0.0)
    assert locked["loss_rate"] == 0 and locked["utilization"] > 0.75     # ns-2.35 reads 0.14-0.16 here
    jittered = _two_flows(monkeypatch, 1e-6)
    assert jittered["loss_rate"] > 0.01 and jittered["utilization"] < 0.4
