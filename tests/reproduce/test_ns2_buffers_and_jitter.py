"""The reproduction of the papers simulated in ns-2 gives the engine ns-2's meaning of a buffer (a
DropTail ``limit_`` B holds B − 1 waiting packets and one on the wire), and its ``ns2`` profile
carries a microsecond of host jitter: without it the engine's exact clock holds two window-capped Reno
flows behind five packets in a lossless periodic state that ns-2.35 never reaches on the same inputs
(bench/ns2/tiny_buffers.md); with it they collide and lose packets as ns-2's do."""

import pytest

from bufsize.reproduce import _p000_closed, _p001_cross, _p001_sobas, _p002, _p004, _p004_mix, _stack
from bufsize.simulate import simulate


def _limit(sc, link=None):
    d = sc.to_dict()
    if link is None:
        return d["dumbbell"]["buffer"]["limit_packets"]
    return next(x for x in d["links"] if x["name"] == link)["queue"]["limit_packets"]


def test_an_ns2_limit_of_b_packets_is_the_engines_b_minus_1_waiting():
    assert [_stack.ns2_limit(b) for b in (0, 1, 2, 10, 313)] == [0, 0, 1, 9, 312]


def test_the_ns2_papers_buffers_run_as_ns2_limits():
    assert _limit(_p002.scenario(flows=4, capacity_bps=12.8e6, buffer=10, variant="reno", rtt="hm",
                                 duration=5, warmup=1)) == 9
    cross = _p001_cross.scenario("tcp_congested", 313, socket_buffer=100, measured=5, warmup=1)
    assert _limit(cross, "tight") == 312 and _limit(cross, "tightr") == 312
    assert _limit(_p001_sobas.scenario(625, duration=60, reverse=True), "tightr") == 624
    assert _limit(_p000_closed.scenario("high", 5, seed=1, duration=5, warmup=1), "out") == 4
    assert _limit(_p004.single_flow_scenario(20, duration=5, warmup=1)) == 19
    assert _limit(_p004_mix.scenario(100, 400, duration=5, warmup=1)) == 399


def test_the_ns2_profile_jitters_the_reproductions_hosts_by_a_microsecond():
    sc = _p002.scenario(flows=40, capacity_bps=100e6, buffer=10, variant="paced", rtt="hm", duration=5, warmup=1)
    assert sc.profile == "ns2"
    assert sc.to_dict()["dumbbell"]["tcp"]["host_jitter_s"] == pytest.approx(1e-6)
    # the stack the kept numbers were measured on had exact host timing and an initial window of 2
    assert (_stack.LEGACY["host_jitter_s"], _stack.LEGACY["initial_window"]) == (0.0, 2)


def _two_flows(jitter):
    # 002's buffer 6 (ns-2's limit_ 6) is the engine's limit 5: five waiting packets
    sc = _p002.scenario(flows=2, capacity_bps=6.4e6, buffer=6, variant="reno", rtt="hm", duration=120, warmup=60,
                        tcp={"host_jitter_s": jitter})
    assert sc.to_dict()["dumbbell"]["tcp"]["host_jitter_s"] == jitter
    return simulate(sc, progress=False).summary


def test_the_exact_clock_locks_two_flows_behind_five_packets_and_the_jitter_unlocks_them():
    locked = _two_flows(0.0)
    assert locked["loss_rate"] == 0 and locked["utilization"] > 0.75     # ns-2.35 reads 0.14-0.16 here
    jittered = _two_flows(1e-6)
    assert jittered["loss_rate"] > 0.01 and jittered["utilization"] < 0.4
