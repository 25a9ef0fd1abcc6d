"""Captures of kernel-testbed runs (tests/data/captures, made by make_captures.py there): reading
them must recover what each run was configured with, and the scenario built from the capture,
simulated at the run's buffer, must land near what the testbed measured.

The testbed's bottleneck is htb with a token bucket (tc's ``burst``) in front of the drop-tail FIFO:
after the queue has been empty it lets up to a bucketful go back to back, so it holds packets the
FIFO's limit does not count. The twin shapes its bottleneck with the same bucket (``bottleneck_burst``
of :func:`bufsize.traffic.to_scenario`) because this router is known; a user's capture gets an ideal
port. Its senders ran the kernel's defaults, which detect losses with RACK-TLP
(net.ipv4.tcp_recovery=1): the twin's TCP does the same (``loss_detection = "rack"``).

Bounds: flow count exact; each flow's RTT within 5 % or 1 ms of its configured RTT; every completed
transfer's size exact; the load within 2 % (relative) of the bottleneck's own byte counter over the
run's measurement window; the twin within 3 utilization points and 50 % (relative) of the loss rate.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from bufsize import traffic
from bufsize.traffic.profile import _window_bytes

DATA = Path(__file__).resolve().parents[1] / "data" / "captures"
CASES = ("reno3_users3", "cubic2_small", "reno4_long")
#: The htb bucket of the run: the committed captures were made before the depth became a testbed
#: setting, with tc's ``burst 15k`` (15 KiB) that every run used then; truth files written since
#: record it as ``burst_bytes``.
def _burst(truth) -> int:
    from bufsize.testbed.config import DEFAULT_BURST_BYTES

    return int(truth.get("burst_bytes", DEFAULT_BURST_BYTES))


#: The testbed senders' loss detection (Linux's default RACK-TLP), for every simulated flow.
TESTBED_TCP = {"loss_detection": "rack"}


@pytest.fixture(scope="module", params=CASES)
def case(request):
    name = request.param
    truth = json.loads((DATA / f"{name}.truth.json").read_text())
    rec = traffic.read(DATA / f"{name}.pcap")
    return name, truth, rec


def _rtt_ok(got: float, want: float) -> bool:
    return abs(got - want) <= max(0.05 * want, 1e-3)


def test_flow_count_and_long_flow_rtts(case):
    name, truth, rec = case
    prof = traffic.profile(rec, capacity=truth["rate_bps"])
    assert prof.long_flows == len(truth["flows"]), name
    tcp = rec.flows[rec.flows["proto"] == 6]
    for f in truth["flows"]:
        rows = tcp[(tcp["src"] == f["src"]) & (tcp["end_s"] - tcp["start_s"] > 0.5 * prof.duration_s)]
        assert len(rows) == 1, f"{name}: long flow from {f['src']}"
        for col in ("rtt_min_s", "rtt_path_s"):  # a long flow sees the queue empty itself
            got = float(rows[col].iloc[0])
            assert _rtt_ok(got, f["rtt_s"]), f"{name}: {f['src']} {col} {got * 1e3:.2f} ms, configured {f['rtt_s'] * 1e3:g} ms"


def test_every_user_transfer_rtt_and_size(case):
    name, truth, rec = case
    if not truth["users"]:
        pytest.skip(f"{name} has no closed-loop users (long flows only)")
    tcp = rec.flows[rec.flows["proto"] == 6]
    hdr = truth["header_bytes_per_transfer"]
    for u in truth["users"]:
        mine = tcp[tcp["src"] == u["src"]]
        done = mine[mine["complete"]]
        assert len(done) >= 3, f"{name}: user {u['src']} completed {len(done)} transfers"
        for got in done["rtt_path_s"]:
            assert _rtt_ok(got, u["rtt_s"]), f"{name}: {u['src']} RTT {got * 1e3:.2f} ms vs {u['rtt_s'] * 1e3:g} ms"
    # sizes: the capture's complete transfers are exactly the receiver's complete ones
    users = {u["src"]: j for j, u in enumerate(truth["users"])}
    cap = Counter((users[s], int(b) - hdr) for s, b, c in zip(tcp["src"], tcp["unique_fwd"], tcp["complete"])
                  if c and s in users)
    want = Counter((t["user"], int(t["size"])) for t in truth["user_transfers"] if t["complete"])
    assert cap == want, f"{name}: transfer sizes differ: {set(cap.items()) ^ set(want.items())}"


def test_load_matches_the_bottleneck_counter(case):
    name, truth, rec = case
    a, b = (x - rec.meta["t0_s"] for x in truth["window_epoch_s"])
    got = _window_bytes(rec, "fwd", a, b) * 8 / (truth["rate_bps"] * (b - a))
    want = truth["measured"]["utilization"]
    assert abs(got - want) <= 0.02 * want, f"{name}: load {got:.4f} vs testbed utilization {want:.4f}"


def test_twin_lands_near_the_testbed(case):
    name, truth, rec = case
    from bufsize.simulate import simulate

    prof = traffic.profile(rec, capacity=truth["rate_bps"])
    cc = truth["flows"][0]["cc"]
    utils, losses = [], []
    for seed in (1, 2, 3):
        sc, notes = traffic.to_scenario(prof, capacity=truth["rate_bps"], buffer=f"{truth['buffer_packets']}pkt",
                                        duration=truth["duration_s"], warmup=truth["warmup_s"], cc=cc, seed=seed,
                                        bottleneck_burst=_burst(truth), tcp=TESTBED_TCP)
        s = simulate(sc, progress=False).summary
        utils.append(s["utilization"])
        losses.append(s["loss_rate"])
    u, loss = float(np.mean(utils)), float(np.mean(losses))
    m = truth["measured"]
    assert abs(loss - m["loss_rate"]) <= 0.5 * m["loss_rate"], \
        f"{name}: twin loss {loss:.4f} vs testbed {m['loss_rate']:.4f}"
    assert abs(u - m["utilization"]) <= 0.03, f"{name}: twin utilization {u:.3f} vs testbed {m['utilization']:.3f}"


def _twin_runs(sc_for_seed):
    from bufsize.simulate import simulate

    runs = [simulate(sc_for_seed(seed), progress=False).summary for seed in (1, 2, 3)]
    return float(np.mean([r["utilization"] for r in runs])), float(np.mean([r["loss_rate"] for r in runs]))


def _with_tcp(sc, extra):
    from bufsize.scenario import Scenario

    d = sc.to_dict()
    d["dumbbell"]["tcp"].update(extra)
    return Scenario.from_dict(d)


def test_capture_twin_matches_the_configuration_twin(case):
    """The scenario built from the capture against the one built from the known configuration
    (bufsize.testbed.compare.simulator_twin): same engine, so any gap is the capture's reading."""
    name, truth, rec = case
    if truth["users"]:
        pytest.skip("simulator_twin covers long-lived flows only")
    from bufsize.testbed.compare import simulator_twin
    from bufsize.testbed.config import Flow, TestbedConfig

    cfg = TestbedConfig(rate_bps=truth["rate_bps"], buffer_packets=truth["buffer_packets"],
                        flows=tuple(Flow(cc=f["cc"], rtt_s=f["rtt_s"], start_s=f["start_s"]) for f in truth["flows"]),
                        duration_s=truth["duration_s"], warmup_s=truth["warmup_s"], burst_bytes=_burst(truth))
    prof = traffic.profile(rec, capacity=truth["rate_bps"])
    u_cap, l_cap = _twin_runs(lambda seed: traffic.to_scenario(
        prof, capacity=truth["rate_bps"], buffer=f"{truth['buffer_packets']}pkt", duration=truth["duration_s"],
        warmup=truth["warmup_s"], cc=truth["flows"][0]["cc"], seed=seed, bottleneck_burst=_burst(truth),
        tcp=TESTBED_TCP)[0])
    u_cfg, l_cfg = _twin_runs(lambda seed: _with_tcp(simulator_twin(cfg.replace(seed=seed)), TESTBED_TCP))
    assert abs(u_cap - u_cfg) <= 0.01, f"{name}: {u_cap:.3f} from the capture vs {u_cfg:.3f} from the configuration"
    assert abs(l_cap - l_cfg) <= 0.25 * l_cfg, f"{name}: loss {l_cap:.4f} vs {l_cfg:.4f}"
