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
        "tcp": {"packet_bytes": 1000, "sack": False, "prr": False, "header_bytes": 40, "initial_window": 2, "max_window_packets": w,
                # as dumbbell --stack=explicit: NewReno, every segment ACKed (bufsize's default stack no longer is)
                "cc": "newreno", "delayed_ack": False}}}
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


# --- TCP stack: --stack=defaults, --cc, and compare.py --profile ns3 --------------

SHORT = ["--flows=2", "--capacity=10Mbps", "--rtts=40,80", "--starts=0,0.1", "--buffer=30",
         "--duration=3", "--warmup=1"]

NS3_337_DEFAULTS = {"recovery_type": "ns3::TcpPrrRecovery", "sack": True, "timestamps": True,
                    "init_cwnd": 10, "min_rto_s": 1.0, "del_ack_count": 2, "del_ack_timeout_s": 0.2}
EXPLICIT = {"socket_type": "ns3::TcpNewReno", "recovery_type": "ns3::TcpClassicRecovery", "sack": False,
            "timestamps": False, "init_cwnd": 2, "min_rto_s": 0.2, "del_ack_count": 1,
            "del_ack_timeout_s": 0.2, "segment_size": 958}


def pick(r, keys):
    return {k: r[k] for k in keys}


@needs_ns3
def test_explicit_stack_is_what_the_grids_ran(binary):
    # No --stack: the stack the SACK on/off grids ran (their cached results must stay valid).
    r = run(binary, *SHORT)
    assert r["stack"] == "explicit"
    assert pick(r, EXPLICIT) == EXPLICIT
    assert r["mean_frame_bytes"] == pytest.approx(1000)


@needs_ns3
def test_stack_defaults_leaves_ns3_337_defaults(binary):
    # Read back from the attribute system: ns-3 3.37 defaults to CUBIC + PRR, IW 10, MinRto 1 s ...
    r = run(binary, *SHORT, "--stack=defaults")
    assert r["stack"] == "defaults"
    assert pick(r, NS3_337_DEFAULTS) == NS3_337_DEFAULTS
    assert r["socket_type"] == "ns3::TcpCubic"
    # timestamps on: 12 bytes of option on every segment, the frame still packetSize on the wire
    assert r["segment_size"] == 1000 - 40 - 2 - 12
    assert r["mean_frame_bytes"] == pytest.approx(1000)


@needs_ns3
@pytest.mark.parametrize("stack", ["explicit", "defaults"])
@pytest.mark.parametrize("cc,tid", [("newreno", "ns3::TcpNewReno"), ("cubic", "ns3::TcpCubic")])
def test_cc_switches_the_socket_type(binary, stack, cc, tid):
    r = run(binary, *SHORT, f"--stack={stack}", f"--cc={cc}", "--printFlows=1")
    assert r["socket_type"] == tid
    assert r["flow_cc"] == [cc, cc]
    # --cc changes nothing else of the stack
    want = NS3_337_DEFAULTS if stack == "defaults" else {k: v for k, v in EXPLICIT.items() if k != "socket_type"}
    assert pick(r, want) == want


@needs_ns3
def test_cc_changes_the_dynamics(binary):
    # One flow, 10 Mb/s, 80 ms, B = 0.1 BDP: NewReno halves (util ~0.81), CUBIC backs off to 0.7 (~0.93).
    args = ["--flows=1", "--capacity=10Mbps", "--rtts=80", "--buffer=10", "--duration=30", "--warmup=10",
            "--stack=defaults"]
    reno, cubic = run(binary, *args, "--cc=newreno"), run(binary, *args, "--cc=cubic")
    assert reno["utilization"] < 0.86 < 0.90 < cubic["utilization"]


@needs_ns3
def test_given_options_win_over_ns3_defaults(binary):
    r = run(binary, *SHORT, "--stack=defaults", "--cc=newreno", "--recovery=classic", "--sack=0",
            "--timestamps=0", "--initCwnd=4", "--minRto=300", "--delAckCount=1", "--delAckTimeout=50")
    assert pick(r, ["socket_type", "recovery_type", "sack", "timestamps", "init_cwnd", "min_rto_s",
                    "del_ack_count", "del_ack_timeout_s", "segment_size"]) == {
        "socket_type": "ns3::TcpNewReno", "recovery_type": "ns3::TcpClassicRecovery", "sack": False,
        "timestamps": False, "init_cwnd": 4, "min_rto_s": 0.3, "del_ack_count": 1,
        "del_ack_timeout_s": 0.05, "segment_size": 958}


@needs_ns3
@pytest.mark.parametrize("stack,first_cwnd", [("defaults", 10 * 946), ("explicit", 2 * 958)])
def test_initial_window_is_the_reported_one(binary, stack, first_cwnd):
    # The first CongestionWindow value traced (handshake done) is IW segments: behaviour, not a label.
    r = subprocess.run([str(binary), "--flows=1", "--capacity=10Mbps", "--rtts=80", "--starts=0",
                        "--buffer=10", "--duration=2", "--warmup=1", f"--stack={stack}", "--traceFlow=0"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    cwnd = [int(ln.split()[2]) for ln in r.stderr.splitlines() if ln.split()[1:2] == ["cwnd"]]
    assert cwnd and cwnd[0] == first_cwnd
    assert json.loads(r.stdout)["init_cwnd"] * json.loads(r.stdout)["segment_size"] == first_cwnd


@needs_ns3
def test_stack_rejects_unknown_mode(binary):
    r = subprocess.run([str(binary), "--stack=linux"], capture_output=True, text=True)
    assert r.returncode == 2 and "--stack" in r.stderr


def test_profile_ns3_passes_only_the_cc_to_ns3_and_bufsize():
    a = compare.parse_args(["--profile", "ns3", "--cc", "cubic"])
    p = compare.grid_params(a, 50, "1")
    assert compare.ns3_stack_args(p) == ["--stack=defaults", "--cc=cubic"]
    sc = compare.bufsize_scenario(p, [20.0] * 50, [0.0] * 50)
    assert sc["profile"] == "ns3"
    assert sc["dumbbell"]["tcp"] == {"cc": "cubic", "packet_bytes": 1000, "header_bytes": 40}
    # the default cc of the profile runs is NewReno, and the two grids are cached apart
    b = compare.parse_args(["--profile", "ns3"])
    assert b.cc == "newreno"
    assert compare.run_key(compare.grid_params(b, 50, "1")) != compare.run_key(p)


def test_sack_grid_is_unchanged_by_the_profile_mode():
    a = compare.parse_args([])
    p = compare.grid_params(a, 50, "0.5")
    # the cache key of a point run before the profile mode existed (ns3_runs.jsonl, first line)
    assert compare.run_key(p) == "27a70e690dba5feb"
    assert compare.ns3_stack_args(p) == ["--sack=1", "--initCwnd=2", "--minRto=200"]
    tcp = compare.bufsize_scenario(p, [20.0] * 50, [0.0] * 50)["dumbbell"]["tcp"]
    assert "profile" not in compare.bufsize_scenario(p, [20.0] * 50, [0.0] * 50)
    assert tcp["initial_window"] == 2 and tcp["prr"] is False and tcp["sack"] is True


def test_profile_ns3_rejects_mixed_arguments(capsys):
    assert compare.main(["--cc", "cubic"]) == 2
    assert compare.main(["--profile", "ns3", "--sack", "off"]) == 2
    assert compare.main(["--profile", "ns3", "--speed"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 3 and all(e.startswith("compare.py: error: --") for e in err)


def test_profile_outputs_go_to_their_own_files(tmp_path, monkeypatch):
    monkeypatch.setattr(compare, "HERE", tmp_path)
    md = tmp_path / "results.md"
    sack_block = "<!-- BEGIN sack=on (generated) -->\nkeep me\n<!-- END sack=on -->\n"
    md.write_text("# x\n\n" + sack_block)
    a = compare.parse_args(["--profile", "ns3", "--cc", "cubic", "--only", "ns3"])
    row = {"n": 50, "buffer_label": "1", "buffer_packets": 219, "duration_s": 40.0, "warmup_s": 10.0,
           "seed": 1, "ns3_utilization": 0.99, "ns3_loss_rate": 0.01, "ns3_mean_queue": 50.0,
           "ns3_timeouts": 0, "ns3_wall_s": 10.0, "bufsize_utilization": None, "bufsize_loss_rate": None,
           "bufsize_note": "not yet run (--only ns3)", "util_check": "-", "loss_check": "-",
           "verdict": "not run", "cc": "cubic", "ns3_socket_type": "ns3::TcpCubic",
           "ns3_recovery_type": "ns3::TcpPrrRecovery", "ns3_sack": True, "ns3_timestamps": True,
           "ns3_init_cwnd": 10, "ns3_min_rto_s": 1, "ns3_del_ack_count": 2, "ns3_segment_size": 946,
           "ns3_fast_recoveries": 5}
    compare.write_outputs([row], True, a)
    assert not (tmp_path / "results.csv").exists()
    import csv
    rows = list(csv.DictReader((tmp_path / "results_profile_ns3.csv").open()))
    assert [(r["set"], r["cc"], r["ns3_socket_type"]) for r in rows] == [("profile-ns3-cubic", "cubic", "ns3::TcpCubic")]
    text = md.read_text()
    assert sack_block in text
    assert "<!-- BEGIN set=profile-ns3-cubic (" in text and "<!-- END set=profile-ns3-cubic -->" in text
    assert "ns3::TcpPrrRecovery" in text and "IW 10" in text


def test_profile_only_bufsize_reuses_the_cached_ns3_runs(tmp_path, monkeypatch):
    # --only bufsize must find all 16 cached ns-3 runs of a profile grid and hand bufsize the profile
    # scenario; outputs go to a scratch folder, bufsize itself is replaced by a recorder.
    cache = compare.load_cache()
    a = compare.parse_args(["--profile", "ns3", "--cc", "newreno"])
    if not all(compare.run_key(compare.grid_params(a, n, b)) in cache for n in a.flows for b in a.buffers):
        pytest.skip("profile ns3 NewReno grid not cached (compare.py --profile ns3 --cc newreno --only ns3)")
    seen = []

    def fake_bufsize(p, rtts, starts):
        seen.append(compare.bufsize_scenario(p, rtts, starts))
        return {"utilization": 0.5, "loss_rate": 0.01, "mean_queue_packets": 1.0, "timeouts": 0, "wall_seconds": 0.1}

    monkeypatch.setattr(compare, "HERE", tmp_path)
    monkeypatch.setattr(compare, "ensure_ns3", lambda: None)
    monkeypatch.setattr(compare, "run_ns3", lambda *a: pytest.fail("--only bufsize ran ns-3"))
    monkeypatch.setattr(compare, "run_bufsize", fake_bufsize)
    assert compare.main(["--profile", "ns3", "--cc", "newreno", "--only", "bufsize"]) == 0
    assert len(seen) == 16
    assert all(s["profile"] == "ns3" and s["dumbbell"]["tcp"]["cc"] == "newreno" for s in seen)
    import csv
    rows = list(csv.DictReader((tmp_path / "results_profile_ns3.csv").open()))
    assert len(rows) == 16 and {r["ns3_socket_type"] for r in rows} == {"ns3::TcpNewReno"}
    assert {r["bufsize_utilization"] for r in rows} == {"0.5"}
