"""Checks of the ns-2.35 side of the `ns2` profile's validation (bench/ns2).

Run with ``.venv/bin/python -m pytest bench/ns2``. The tests that run ns-2 are skipped when Debian's
``ns2`` package is not installed (``apt-get install ns2``); each takes a few seconds.
"""
from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("ns2_compare", HERE / "compare.py")
compare = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare)

needs_ns2 = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 not installed (apt-get install ns2)")


def ns(**kw) -> dict:
    args = [f"{k}={v}" for k, v in kw.items()]
    r = subprocess.run(["ns", str(HERE / "dumbbell.tcl"), *args], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_both_simulators_get_the_same_flows_for_a_seed():
    a = compare.flow_inputs(50, 1, (20.0, 140.0), 1.0)
    assert a == compare.flow_inputs(50, 1, (20.0, 140.0), 1.0)
    assert a != compare.flow_inputs(50, 2, (20.0, 140.0), 1.0)
    rtts, starts = a
    assert len(rtts) == len(starts) == 50
    assert all(20.0 <= r <= 140.0 for r in rtts) and all(0.0 <= s < 1.0 for s in starts)


def test_a_point_meets_only_within_a_point_and_a_quarter_of_the_loss():
    ref = {"utilization": 0.90, "loss": 0.010}
    assert compare.verdict(ref, {"utilization": 0.909, "loss": 0.0124}) == "met"
    assert compare.verdict(ref, {"utilization": 0.912, "loss": 0.010}).startswith("MISS")
    assert compare.verdict(ref, {"utilization": 0.90, "loss": 0.0126}).startswith("MISS")
    # below the loss floor (0.1 %) on both sides only utilization counts
    assert compare.verdict({"utilization": 1.0, "loss": 0.0002}, {"utilization": 1.0, "loss": 0.0009}) == "met"


def test_grid_buffers_are_bdp_over_sqrt_n_at_80_ms():
    # 155 Mb/s x 80 ms / 8000 bit = 1550 packets
    assert compare.grid_buffer(100, "bdp", 155e6, 1000) == 1550
    assert compare.grid_buffer(100, "1", 155e6, 1000) == 155
    assert compare.grid_buffer(400, "0.5", 155e6, 1000) == 39


@needs_ns2
def test_utilization_survives_more_than_2_gib_through_the_bottleneck():
    # ns-2 keeps byte counters in 32-bit integers: 1 Gb/s for 20 s is 2.5 GB, which wrapped the
    # utilization negative when it was read from bdepartures_
    r = ns(flows=1, capacity="1e9", buffer=2000, duration=20, warmup=2, segment=1460, access="10e9",
           rtts="10", starts="0")
    assert 0.9 < r["utilization"] <= 1.0


@needs_ns2
def test_a_single_reno_flow_into_a_bdp_buffer_fills_the_link_and_a_tiny_one_does_not():
    # 10 Mb/s, 100 ms, 1000-B packets: BDP 125 packets
    full = ns(flows=1, capacity="10e6", buffer=125, duration=60, warmup=20, segment=960, rtts="100", starts="0")
    tiny = ns(flows=1, capacity="10e6", buffer=5, duration=60, warmup=20, segment=960, rtts="100", starts="0")
    assert full["utilization"] > 0.99
    assert 0.5 < tiny["utilization"] < 0.85   # the sawtooth's (BDP + B)/2 .. BDP + B spread: about 3/4
    assert tiny["drops"] > 0


@needs_ns2
def test_the_engine_follows_ns2_newreno_on_an_oc3_point():
    p = {"n": 100, "capacity": 155e6, "buffer": 155, "agent": "Newreno", "rtt": [20.0, 140.0], "spread": 1.0,
         "seed": 1, "duration": 40.0, "warmup": 10.0, "segment": 960, "access": 1.55e9}
    n2, en = compare.one(p)
    assert abs(en["utilization"] - n2["utilization"]) <= 0.01
    assert abs(en["loss"] / n2["loss"] - 1) <= 0.25


_sync_spec = importlib.util.spec_from_file_location("ns2_sync_pair", HERE / "sync_pair.py")
sync_pair = importlib.util.module_from_spec(_sync_spec)
_sync_spec.loader.exec_module(sync_pair)


def test_sync_pair_counts_a_halving_shared_only_within_a_full_queue_rtt():
    import numpy as np

    # flow 1 halves at 20 and 40 s; flow 2 0.14 s after the first, 0.5 s after the second (too late)
    n, shared, gaps = sync_pair.paired([np.array([20.0, 40.0]), np.array([20.14, 40.5])])
    assert (n, shared) == (4, 2)
    assert gaps == pytest.approx([0.14, 0.14])


@needs_ns2
def test_dumbbell_traces_every_drop_and_both_windows(tmp_path):
    drops, cwnd = tmp_path / "drops.txt", tmp_path / "cwnd.txt"
    r = ns(flows=2, capacity=8e6, buffer=20, duration=10, warmup=0, segment=960, agent="Reno", rtts="142,142",
           starts="0,1", drops=drops, cwnd=cwnd)
    lines = drops.read_text().split("\n")
    assert len([x for x in lines if x]) == r["drops"] > 0
    t, flow, seq = lines[0].split()
    assert flow in ("0", "1") and int(seq) >= 0
    flows = {x.split()[1] for x in cwnd.read_text().splitlines()}
    assert flows == {"0", "1"}


@needs_ns2
def test_a_limit_means_what_ns2s_limit_means():
    """ns-2's DropTail limit_ B holds B - 1 waiting packets beside the one on the wire; the harness gives the
    engine B - 1, so a 20-packet burst into an idle link loses the same packets on both sides."""
    from bufsize import simulate

    spec = importlib.util.spec_from_file_location("ns2_tiny_buffers", HERE / "tiny_buffers.py")
    tiny = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tiny)
    for b in (3, 5, 10):
        sc = tiny.burst_scenario(b, 1e9)
        assert sc["dumbbell"]["buffer"]["limit_packets"] == b - 1
        assert int(simulate(sc, progress=False).flows.drops.sum()) == tiny.ns2_burst_drops(b, 1e9)
