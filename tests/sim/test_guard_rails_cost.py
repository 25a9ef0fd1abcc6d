"""The cost estimate (bufsize.cost): memory within 2x of a run's measured peak RSS, and the refusal
of a run that does not fit. Wall-time accuracy is a benchmark (bench/cost_estimate.md), not a test."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from bufsize.cost import CostEstimate, check_fits, estimate, machine_memory_bytes
from bufsize.errors import BufsizeError
from bufsize.scenario import Scenario

_CHILD = r"""
import json, resource, sys
import bufsize.simulate as S
r = S.simulate(json.loads(sys.argv[1]), progress=False)
# VmHWM is this process's own peak: ru_maxrss keeps the forking parent's peak across exec on Linux,
# so inside a large pytest process it would report the parent's size.
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:"))
print(json.dumps({"rss": hwm * 1024,
                  "events": r.summary["events"]}))
"""


def _measure(sc: Scenario) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, sc.to_json()], capture_output=True, text=True,
                         check=True, timeout=120)
    return json.loads(out.stdout.strip().splitlines()[-1])


_LOW = {"duration": "2s", "warmup": "0s"}
_SCENARIOS = {
    # each one makes a different part of the estimate the largest
    "one flow": {**_LOW, "dumbbell": {"capacity": "10Mbps", "flows": 1, "rtt": "50ms", "buffer": "40pkt"}},
    "50 000 flows": {**_LOW, "warmup": "1s",
                     "dumbbell": {"capacity": "10Mbps", "flows": 50000, "rtt": "100ms", "buffer": "100pkt"}},
    "queue trace every 10 µs": {**_LOW, "dumbbell": {"capacity": "10Mbps", "flows": 1, "rtt": "50ms",
                                                     "buffer": "40pkt"},
                                "measure": {"queue_trace_interval": "10us"}},
    "cwnd traces of 10 flows every 50 µs": {**_LOW, "dumbbell": {"capacity": "10Mbps", "flows": 10, "rtt": "50ms",
                                                                 "buffer": "40pkt"},
                                            "measure": {"cwnd_trace_interval": "50us",
                                                        "cwnd_trace_flows": list(range(10))}},
    "20 000 short transfers": {"duration": "4s", "warmup": "0s",
                               "dumbbell": {"capacity": "100Mbps", "flows": 1, "rtt": "50ms", "buffer": "100pkt"},
                               "short_flows": [{"load": 0.6, "size": "2pkt", "rtt": "50ms"}]},
}


@pytest.mark.parametrize("name", list(_SCENARIOS))
def test_memory_estimate_is_within_a_factor_of_two_of_the_measured_peak(name):
    sc = Scenario.from_dict(_SCENARIOS[name])
    est = estimate(sc)
    got = _measure(sc)
    ratio = est.memory_bytes / got["rss"]
    assert 0.5 <= ratio <= 2.0, f"{name}: estimated {est.memory_bytes / 2**20:.0f} MiB, measured {got['rss'] / 2**20:.0f} MiB"


def test_the_big_parts_are_named_and_dominate_the_estimate():
    flows = estimate(_SCENARIOS["50 000 flows"])
    trace = estimate(_SCENARIOS["queue trace every 10 µs"])
    assert flows.largest_part() == "flows"
    assert trace.largest_part() == "queue trace"
    # 50 000 flows need at least 50 000 x 1 KB above an idle process
    assert flows.memory_bytes - estimate(_SCENARIOS["one flow"]).memory_bytes > 50_000 * 1e3


def test_bottleneck_packets_of_a_saturated_dumbbell_follow_capacity_times_duration():
    sc = Scenario.dumbbell(capacity="100Mbps", flows=50, rtt="20ms", buffer="1bdp", duration="20s",
                           warmup="1s", packet_size="1000B")
    est = estimate(sc)
    assert est.bottleneck_packets == pytest.approx(100e6 * 20 / 8000, rel=0.1)
    # twice the duration, twice the work
    assert estimate(sc.replace(duration="40s")).events == pytest.approx(2 * est.events, rel=0.1)


def test_events_estimate_is_within_a_factor_of_two_of_the_engine_count():
    sc = Scenario.dumbbell(capacity="50Mbps", flows=20, rtt="20ms..100ms", buffer="bdp/sqrt(n)",
                           duration="5s", warmup="1s")
    ratio = estimate(sc).events / _measure(sc)["events"]
    assert 0.5 <= ratio <= 2.0


def test_a_run_larger_than_the_memory_limit_is_refused_in_one_line(monkeypatch):
    monkeypatch.setenv("BUFSIZE_MEMORY_LIMIT", "1GiB")
    big = estimate({"duration": "2s", "warmup": "1s",
                    "dumbbell": {"capacity": "10Mbps", "flows": 1_000_000, "rtt": "100ms", "buffer": "100pkt"}})
    assert big.memory_bytes > 2**30
    with pytest.raises(BufsizeError) as exc:
        check_fits(big)
    msg = str(exc.value)
    assert "\n" not in msg and "GiB" in msg and "flows" in msg and "--allow-over-memory" in msg
    check_fits(big, allow_over_memory=True)  # the override lets it through
    check_fits(estimate(_SCENARIOS["one flow"]))  # a small run fits


def test_memory_limit_comes_from_the_environment_or_the_machine(monkeypatch):
    monkeypatch.setenv("BUFSIZE_MEMORY_LIMIT", "3GiB")
    assert machine_memory_bytes() == (3 * 2**30, "$BUFSIZE_MEMORY_LIMIT")
    monkeypatch.delenv("BUFSIZE_MEMORY_LIMIT")
    have, what = machine_memory_bytes()
    assert have > 2**28 and what in ("physical memory", "cgroup memory limit")
    monkeypatch.setenv("BUFSIZE_MEMORY_LIMIT", "lots")
    with pytest.raises(BufsizeError, match="BUFSIZE_MEMORY_LIMIT"):
        machine_memory_bytes()


def test_describe_is_one_line_with_memory_and_time():
    est = CostEstimate(memory_bytes=1.3 * 2**30, wall_seconds=40.0, events=1e8, bottleneck_packets=3e7, parts={})
    assert est.describe() == "≈ 1.3 GiB peak memory, ≈ 40 s on this machine"


def test_paced_senders_cost_more_per_event_in_the_estimate():
    from bufsize import cost

    def est(tcp=None, mix=None):
        db = {"capacity": "1Gbps", "flows": 200, "rtt": "10ms..50ms", "buffer": "100pkt"}
        if mix:
            db["mix"] = mix
        if tcp:
            db["tcp"] = tcp
        return estimate(Scenario.from_dict({"duration": "20s", "warmup": "2s", "dumbbell": db}))

    cubic, bbr = est({"cc": "cubic"}), est({"cc": "bbr"})
    mixed = est(mix=[{"name": "c", "flows": 140, "tcp": {"cc": "cubic"}}, {"name": "b", "flows": 60, "tcp": {"cc": "bbr"}}])
    flows = 200 * cost.FLOW_SECONDS
    base = cubic.cpu_seconds - cost.START_SECONDS - flows
    assert bbr.cpu_seconds > cubic.cpu_seconds
    assert bbr.cpu_seconds - cost.START_SECONDS - flows == pytest.approx(cost.PACED_COST * base, rel=1e-3)
    assert mixed.cpu_seconds == pytest.approx(bbr.cpu_seconds, rel=0.01)   # one BBR class is enough
