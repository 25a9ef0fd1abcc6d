"""Checks of the ns-3 side of the cross-validation (bench/ns3).

Run with ``.venv/bin/python -m pytest bench/ns3``. The ns-3 tests are skipped
when Debian's libns3-dev is not installed (bench/ns3/install.sh); each ns-3
run here simulates a few seconds and takes about a second.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import compare  # noqa: E402

HAVE_NS3 = Path("/usr/include/ns3/core-module.h").exists() and shutil.which("g++") is not None
needs_ns3 = pytest.mark.skipif(not HAVE_NS3, reason="libns3-dev not installed (bench/ns3/install.sh)")


@pytest.fixture(scope="module")
def binary():
    subprocess.run([str(HERE / "build.sh")], check=True, capture_output=True)
    return HERE / "build" / "dumbbell"


def run(binary, *args):
    r = subprocess.run([str(binary), *args], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


# --- pure helpers of compare.py ------------------------------------------------

def test_buffer_sizes_follow_bdp_over_sqrt_n():
    # 155 Mb/s x 80 ms / 8000 bit = 1550 packets
    assert compare.bdp_packets() == pytest.approx(1550)
    assert compare.buffer_packets(100, "1") == 155
    assert compare.buffer_packets(400, "0.5") == 39
    assert compare.buffer_packets(50, "2") == 438
    assert compare.buffer_packets(200, "bdp") == 1550


def test_flow_inputs_are_reproducible_and_in_range():
    a = compare.flow_inputs(400, 1)
    assert a == compare.flow_inputs(400, 1)
    assert a != compare.flow_inputs(400, 2)
    rtts, starts = a
    assert len(rtts) == len(starts) == 400
    assert all(20 <= r <= 140 for r in rtts)
    assert all(0 <= s < 1 for s in starts)


def test_verdict_applies_the_targets():
    assert compare.verdict(0.98, 0.01, 0.989, 0.0124) == ("pass", "pass", "pass")
    assert compare.verdict(0.98, 0.01, 0.9911, 0.01)[0] == "FAIL"  # 1.11 points
    assert compare.verdict(0.98, 0.01, 0.98, 0.0126)[1] == "FAIL"  # +26 %
    assert compare.verdict(0.98, 0.0001, 0.98, 0.0005)[1] == "n/a (<0.1%)"
    # below the floor for ns-3 but not for bufsize: still checked, and fails
    assert compare.verdict(0.98, 0.0005, 0.98, 0.002)[1] == "FAIL"
    assert compare.verdict(0.98, 0.01, None, None)[2] == "not run"


def test_compare_rejects_bad_arguments(capsys):
    assert compare.main(["--buffers", "1,zero"]) == 2
    assert compare.main(["--flows", "50,x"]) == 2
    assert compare.main(["--duration", "5", "--warmup", "10"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(e.startswith("compare.py: error: --") for e in err)


# --- the ns-3 dumbbell ---------------------------------------------------------

@needs_ns3
def test_single_sack_flow_fills_the_link_with_a_bdp_buffer(binary):
    # 10 Mb/s, 80 ms: BDP = 100 packets; with B = BDP one Reno flow keeps the link busy.
    r = run(binary, "--flows=1", "--capacity=10Mbps", "--rtts=80", "--buffer=100",
            "--duration=40", "--warmup=15", "--sack=1")
    assert r["utilization"] >= 0.99
    assert r["utilization"] <= 1.0 + 1e-3  # never faster than the link
    assert r["max_queue_packets"] <= 100
    assert r["drops"] >= 1  # the sawtooth does hit the buffer


@needs_ns3
def test_small_buffer_single_flow_underuses_the_link(binary):
    # B = 0.1 BDP: the sawtooth model (MODELS.md, paper 001 eq. 17) gives about 0.82.
    r = run(binary, "--flows=1", "--capacity=10Mbps", "--rtts=80", "--buffer=10",
            "--duration=60", "--warmup=20", "--sack=1")
    assert 0.7 < r["utilization"] < 0.9


@needs_ns3
def test_counters_balance_and_queue_respects_its_limit(binary):
    r = run(binary, "--flows=20", "--buffer=60", "--duration=6", "--warmup=2", "--sack=1")
    assert r["max_queue_packets"] <= 60
    # Every arrival is dropped, serialized, or still waiting/serializing at a window edge.
    assert abs(r["arrivals"] - r["drops"] - r["bottleneck_packets"]) <= 60 + 1
    assert r["loss_rate"] == pytest.approx(r["drops"] / r["arrivals"], rel=1e-4)
    assert r["segment_size"] == 1000 - 40 - 2


@needs_ns3
def test_same_seed_same_result_different_seed_different(binary):
    args = ["--flows=10", "--buffer=40", "--duration=4", "--warmup=2", "--sack=1"]
    a, b = run(binary, *args, "--seed=3"), run(binary, *args, "--seed=3")
    c = run(binary, *args, "--seed=4")
    keys = ("utilization", "drops", "arrivals", "bottleneck_packets", "mean_queue_packets")
    assert [a[k] for k in keys] == [b[k] for k in keys]
    assert [a[k] for k in keys] != [c[k] for k in keys]


@needs_ns3
def test_cwnd_sum_trace_of_one_sawtooth(binary):
    # One SACK flow, 10 Mb/s, 80 ms, B = BDP = 100: cwnd saws between ~100 and ~200 segments,
    # so Σcwnd (= this flow's cwnd) has mean ~150 and σ/mean ~0.19 (uniform on [W/2, W]); the
    # queue is ~uniform on [0, 100] (σ ~29). The opt-in trace must not change the run itself.
    args = ["--flows=1", "--capacity=10Mbps", "--rtts=80", "--buffer=100", "--duration=40",
            "--warmup=15", "--sack=1"]
    plain = run(binary, *args)
    r = run(binary, *args, "--cwndSumInterval=0.001")
    assert "cwnd_sum_std" not in plain
    for k in ("utilization", "drops", "arrivals", "bottleneck_packets", "mean_queue_packets"):
        assert r[k] == plain[k]
    assert r["cwnd_sum_samples"] == 25000
    assert 140 < r["cwnd_sum_mean"] < 165
    assert 0.16 < r["flow_cwnd_cv_mean"] < 0.22
    assert r["cwnd_sum_std"] == pytest.approx(r["flow_cwnd_cv_mean"] * r["cwnd_sum_mean"], rel=1e-3)
    assert 24 < r["queue_std_packets"] < 33


@needs_ns3
@pytest.mark.parametrize("args,word", [
    (["--flows=3", "--rtts=20,80"], "--rtts"),
    (["--flows=2", "--rtts=20,-5"], "--rtts"),
    (["--flows=2", "--starts=0,9", "--warmup=2", "--duration=3"], "--starts"),
    (["--duration=2", "--warmup=3"], "--duration"),
])
def test_dumbbell_rejects_bad_arguments_in_one_line(binary, args, word):
    r = subprocess.run([str(binary), *args], capture_output=True, text=True)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dumbbell: error:") and word in lines[0]


# --- harness: both simulators see the same RTTs ----------------------------------

BUFSIZE = compare.BUFSIZE


def bufsize_works():
    if not BUFSIZE.exists():
        return False
    r = subprocess.run([str(BUFSIZE), "simulate", "--capacity", "10Mbps", "--flows", "1", "--rtt", "50ms",
                        "--buffer", "10pkt", "--duration", "2s", "--warmup", "1s", "--json", "--no-progress"],
                       capture_output=True, text=True)
    return r.returncode == 0


@needs_ns3
@pytest.mark.skipif(not bufsize_works(), reason="bufsize simulate not runnable (make install)")
@pytest.mark.parametrize("rtt_ms", [40.0, 100.0])
def test_window_limited_flow_gives_the_same_rate_in_both(binary, tmp_path, rtt_ms):
    """A flow capped at W packets sends W per round trip: utilization = W·size·8 / (C·RTT).

    ns-3 caps the window with its receive buffer (W segments of 958 bytes), bufsize with
    max_window_packets. Both must land on the formula, which pins down that the RTT list,
    the packet size on the wire and the rate mean the same thing in both scenarios.
    """
    w, c = 20, 10e6
    ns = run(binary, "--flows=1", "--capacity=10Mbps", f"--rtts={rtt_ms}", "--buffer=1000",
             "--duration=12", "--warmup=4", "--sack=1", f"--maxWindow={w}")
    scenario = {"seed": 1, "duration_s": 12.0, "warmup_s": 4.0, "dumbbell": {
        "capacity_bps": c, "flows": 1, "rtt_s": {"list": [rtt_ms / 1000]}, "buffer": {"limit_packets": 1000},
        "start_s": {"list": [0.0]},
        "tcp": {"packet_bytes": 1000, "sack": False, "prr": False, "header_bytes": 40, "initial_window": 2, "max_window_packets": w}}}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(scenario))
    r = subprocess.run([str(BUFSIZE), "simulate", str(path), "--json", "--no-progress"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    bs = json.loads(r.stdout)
    # the round trip also holds one serialization at C and small ones elsewhere (~1 %)
    expected = w * 1000 * 8 / (c * rtt_ms / 1000)
    assert ns["utilization"] == pytest.approx(expected, rel=0.03)
    assert bs["utilization"] == pytest.approx(expected, rel=0.03)
    assert ns["utilization"] == pytest.approx(bs["utilization"], rel=0.01)
    assert ns["drops"] == 0 and bs["drops"] == 0
