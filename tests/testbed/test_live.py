"""Live tests on the real kernel: a short smoke run, deliberately broken setups, crash cleanup.

They need root, network namespaces, tun and the tools (``bufsize testbed check``); elsewhere they
are skipped with the check's reasons. The smoke run is a few seconds of traffic, so its numbers
are not a measurement; it asserts that the machinery works and that its invariants hold.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from bufsize.testbed import netns
from bufsize.testbed.config import TestbedConfig
from bufsize.testbed.runner import run_once

pytestmark = pytest.mark.testbed

# Checks about the machinery itself; the others (cpu, steal, delay lateness) judge the machine's
# load at the moment, which other users of a shared machine can spoil.
SETUP_CHECKS = {"queue_inventory", "offloads", "base_rtt", "queue_bound", "traffic", "drops_elsewhere"}


def _checks(att):
    return {c.name: c for c in att.checks}


def test_smoke_run_measures_through_the_bottleneck():
    cfg = TestbedConfig.dumbbell(rate="50Mbps", rtt="20ms,40ms", buffer="1bdp", flows=2, cc=["reno", "cubic"],
                                 duration="8s", warmup="3s", start_spread="0.2s")
    att = run_once(cfg)
    assert not att.error, att.error
    checks = _checks(att)
    for name in SETUP_CHECKS:
        assert checks[name].passed, f"{name}: {checks[name].reason}"
    assert att.accepted == all(c.passed for c in att.checks)
    s = att.summary
    assert s["utilization"] <= 1.0 + 1e-3, s["utilization"]   # htb can never exceed its rate
    if not att.accepted:   # a loaded machine starves the senders: the load checks say so, the rate means nothing
        pytest.skip("the run failed the machine-load checks: " + "; ".join(c.reason for c in att.checks if not c.passed))
    # two flows over a 1-BDP buffer keep the link busy
    assert 0.8 < s["utilization"], s["utilization"]
    assert s["max_queue_packets"] <= cfg.buffer_packets
    assert 0 <= s["mean_queue_packets"] <= cfg.buffer_packets
    assert s["queue_samples"] > 1000
    flows = att.tables["flows"]
    assert list(flows["cc"]) == ["reno", "cubic"] and (flows["goodput_bps"] > 0).all()
    # goodput is payload at the receiver: below the 1448/1514 share of the link rate
    assert s["goodput_bps_total"] <= cfg.rate_bps * 1448 / 1514 * 1.01
    # the measured RTTs include the configured delay of each flow's address
    assert (flows["min_rtt_s"] >= flows["rtt_s"] * 0.98).all()
    assert att.delay_stats["sent"] > 1000 and att.delay_stats["dropped_full"] == 0
    # the delay element's lateness statistics restart at the end of the warm-up (SIGUSR1)
    d = att.delay_stats
    assert d["window_start_monotonic_s"] - d["start_monotonic_s"] >= cfg.warmup_s
    assert 0 < d["lateness_count"] < d["sent"]
    assert netns.leftovers(att.run_id) == {"namespaces": [], "pids": [], "links": [], "processes": [], "work_dirs": []}


@pytest.mark.parametrize("breakage,needle", [("offloads", "offloads on"), ("second-queue", "second queue")])
def test_broken_setup_is_refused_with_the_reason(breakage, needle):
    cfg = TestbedConfig.dumbbell(rate="50Mbps", rtt="20ms", buffer=20, flows=1, duration="5s", warmup="1s",
                                 breakage=breakage)
    att = run_once(cfg)
    assert not att.accepted
    assert any(needle in r for r in att.reasons), att.reasons
    assert att.summary == {}  # refused before any traffic: nothing is reported
    assert netns.testbed_namespaces(att.run_id) == []


def test_cli_rejects_a_broken_point_with_exit_code_1():
    p = subprocess.run([sys.executable, "-m", "bufsize", "testbed", "run", "--rtt", "20ms", "--buffer", "20",
                        "--duration", "5s", "--warmup", "1s", "--attempts", "2", "--break", "second-queue", "--quiet"],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr
    assert "REJECTED" in p.stdout and p.stdout.count("second queue") == 2  # two attempts, both refused


def _wait_for(pred, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        v = pred()
        if v:
            return v
        time.sleep(0.1)
    return None


def test_kill_9_then_cleanup_leaves_nothing():
    before = set(netns.testbed_namespaces())
    p = subprocess.Popen([sys.executable, "-m", "bufsize", "testbed", "run", "--rtt", "20ms", "--buffer", "20",
                          "--duration", "60s", "--warmup", "1s", "--quiet"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def new_run():
            ids = {n[:-2] for n in netns.testbed_namespaces()} - {n[:-2] for n in before}
            return sorted(ids)[0] if ids else None

        rid = _wait_for(new_run, 30)
        assert rid, "the run never created its namespaces"

        def traffic_running():
            return any(rid in open(f"/proc/{pid}/cmdline", "rb").read().decode(errors="replace")
                       and b"sender" in open(f"/proc/{pid}/cmdline", "rb").read()
                       for pid in netns.namespace_pids(f"{rid}-s") if os.path.exists(f"/proc/{pid}"))

        assert _wait_for(traffic_running, 30), "traffic never started"
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=10)
        left = netns.leftovers(rid)
        assert len(left["namespaces"]) == 3 and left["work_dirs"], left  # the crash left the run behind ...
        out = subprocess.run([sys.executable, "-m", "bufsize", "testbed", "cleanup", rid], capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 0, out.stderr
        assert "removed 3 namespaces" in out.stdout
        after = netns.leftovers(rid)  # ... and cleanup removed all of it
        assert after == {"namespaces": [], "pids": [], "links": [], "processes": [], "work_dirs": []}, after
        assert not any(rid in n for n in netns.list_namespaces())
    finally:
        if p.poll() is None:
            p.kill()
        for n in set(netns.testbed_namespaces()) - before:
            netns.cleanup(n[:-2])


def test_check_cli_reports_usable():
    p = subprocess.run([sys.executable, "-m", "bufsize", "testbed", "check", "--json"], capture_output=True, text=True,
                       timeout=60)
    rep = json.loads(p.stdout)
    assert p.returncode == 0 and rep["ok"] is True
    assert rep["limits"]["max_rate_bps"] == 100e6


def test_compare_cli_prints_both_sides():
    """`bufsize compare` runs the simulator twin and the testbed; a load-rejected testbed point still
    prints the simulator side and says why (exit code 1)."""
    p = subprocess.run([sys.executable, "-m", "bufsize", "compare", "--rtt", "20ms", "--buffer", "1bdp", "--flows", "2",
                        "--duration", "6s", "--warmup", "2s", "--repeats", "1", "--attempts", "1", "--json", "--quiet"],
                       capture_output=True, text=True, timeout=180)
    assert p.returncode in (0, 1), p.stderr
    out = json.loads(p.stdout)
    rows = {r["field"]: r for r in out["rows"]}
    # The twin's bottleneck is shaped like the testbed's htb: it may release one bucketful above
    # C x window (15 KiB over a 4-s window at 50 Mb/s: 0.06 %), as the testbed's own measure may.
    assert 0.5 < rows["utilization"]["simulator"] <= 1.001
    if p.returncode == 0:
        assert not out["rejected"] and 0.5 < rows["utilization"]["testbed"] <= 1.001
    else:
        assert out["rejected"] and out["reasons"]
    assert out["simulator_scenario"]["dumbbell"]["tcp"]["packet_bytes"] == 1514


def test_byte_fifo_bounds_the_backlog_in_bytes_and_initcwnd_is_set():
    """A bfifo bottleneck (paper 000's byte-limited port): the backlog never exceeds its byte limit and
    long flows fill it to within one frame; the senders' route carries the initial window."""
    b = 20 * 1514 + 700
    base = TestbedConfig.dumbbell(rate="50Mbps", rtt="20ms", buffer="4", flows=4, cc="reno", duration="6s",
                                  warmup="2s", start_spread="0.2s")
    cfg = base.replace(buffer_bytes=b, buffer_packets=TestbedConfig.frames_for(b), initcwnd=2)
    seen = {}
    att = run_once(cfg, _after_start=lambda topo: seen.update(route=topo.ip("s", "route", "show", "default")))
    assert not att.error, att.error
    checks = _checks(att)
    for name in SETUP_CHECKS:
        assert checks[name].passed, f"{name}: {checks[name].reason}"
    assert b - 1514 <= att.summary["max_backlog_bytes"] <= b
    assert "initcwnd 2" in seen["route"], seen
