"""The testbed's pure parts: parsing, statistics, measurement arithmetic, fidelity verdicts.
No root needed."""

from __future__ import annotations

import json
import math
import random
import struct

import numpy as np
import pytest

from bufsize.errors import BufsizeError, ScenarioError
from bufsize.testbed import fidelity
from bufsize.testbed.config import Limits, TestbedConfig, WIRE_PACKET_BYTES
from bufsize.testbed.measure import counter_delta, cpu_summary, parse_netstat, summarize
from bufsize.testbed.procstat import fractions, parse_pid_cpu_ticks, parse_proc_stat, parse_schedstat, windowed_max
from bufsize.testbed.sampler import parse_qdisc_dump
from bufsize.testbed.stats import jain_fairness, mean_ci
from bufsize.testbed.tcjson import parse_links, parse_qdiscs, second_queues
from bufsize.testbed.traffic import pareto_size, parse_tcp_info

# Captured from `tc -s -j qdisc show` in a router namespace of this testbed (trimmed).
TC_JSON = json.dumps([
    {"kind": "noqueue", "handle": "0:", "dev": "lo", "root": True, "refcnt": 2, "options": {}, "bytes": 0,
     "packets": 0, "drops": 0, "overlimits": 0, "requeues": 0, "backlog": 0, "qlen": 0},
    {"kind": "noqueue", "handle": "8003:", "dev": "bst12345rs", "root": True, "options": {}, "bytes": 0,
     "packets": 0, "drops": 0, "overlimits": 0, "requeues": 0, "backlog": 0, "qlen": 0},
    {"kind": "htb", "handle": "1:", "dev": "bst12345rd", "root": True, "refcnt": 3,
     "options": {"r2q": 10, "default": "0x1", "direct_packets_stat": 0, "direct_qlen": 1000},
     "bytes": 49857148, "packets": 32931, "drops": 5, "overlimits": 4000, "requeues": 0, "backlog": 4542, "qlen": 3},
    {"kind": "pfifo", "handle": "10:", "parent": "1:1", "dev": "bst12345rd", "options": {"limit": 165},
     "bytes": 49857148, "packets": 32931, "drops": 5, "overlimits": 0, "requeues": 0, "backlog": 4542, "qlen": 3},
])


def test_parse_qdiscs_reads_kinds_limits_and_counters():
    qs = parse_qdiscs(TC_JSON, "bst12345-r")
    assert [q.kind for q in qs] == ["noqueue", "noqueue", "htb", "pfifo"]
    fifo = qs[3]
    assert (fifo.limit, fifo.drops, fifo.qlen, fifo.backlog_bytes, fifo.parent) == (165, 5, 3, 4542, "1:1")
    assert qs[2].parent is None and qs[2].options["direct_packets_stat"] == 0
    assert second_queues(qs, "bst12345rd") == []


def test_parse_qdiscs_rejects_non_json():
    with pytest.raises(ValueError, match="not JSON"):
        parse_qdiscs("qdisc noqueue 0: dev lo root")


def test_second_queue_is_named():
    data = json.loads(TC_JSON) + [{"kind": "pfifo_fast", "handle": "0:", "dev": "bst12345sr", "root": True,
                                   "options": {}, "bytes": 0, "packets": 0, "drops": 0, "backlog": 0, "qlen": 0}]
    reasons = second_queues(parse_qdiscs(json.dumps(data), "bst12345-s"), "bst12345rd")
    assert len(reasons) == 1 and "second queue" in reasons[0] and "bst12345sr" in reasons[0]
    # an extra child on the bottleneck device is flagged too
    data2 = json.loads(TC_JSON) + [{"kind": "bfifo", "handle": "20:", "parent": "1:1", "dev": "bst12345rd",
                                    "options": {"limit": 9000}}]
    assert any("beside the bottleneck" in r for r in second_queues(parse_qdiscs(json.dumps(data2)), "bst12345rd"))
    chk = fidelity.check_queue_inventory(parse_qdiscs(json.dumps(data)), "bst12345rd")
    assert not chk.passed and "second queue" in chk.reason


def test_parse_links_reads_drop_counters():
    text = json.dumps([{"ifname": "bst12345rs", "txqlen": 1000, "qdisc": "noqueue",
                        "stats64": {"rx": {"packets": 10, "dropped": 2}, "tx": {"packets": 7, "dropped": 0}}}])
    (l,) = parse_links(text, "ns")
    assert (l.rx_packets, l.rx_dropped, l.tx_packets, l.tx_dropped, l.txqlen) == (10, 2, 7, 0, 1000)
    before = [l]
    after = parse_links(text.replace('"dropped": 2', '"dropped": 5'), "ns")
    chk = fidelity.check_drops_elsewhere(before, after, 0, "x")
    assert not chk.passed and "rx_dropped +3" in chk.reason
    assert fidelity.check_drops_elsewhere(before, before, 0, "x").passed
    assert not fidelity.check_drops_elsewhere(before, before, 4, "x").passed


PROC_STAT_A = "cpu  1000 0 500 8000 10 0 20 100 0 0\ncpu0 500 0 250 4000 5 0 10 50 0 0\nintr 1\n"
PROC_STAT_B = "cpu  1100 0 550 8300 10 0 30 120 0 0\ncpu0 550 0 275 4150 5 0 15 60 0 0\nintr 2\n"


def test_steal_fraction_from_proc_stat():
    a, b = parse_proc_stat(PROC_STAT_A), parse_proc_stat(PROC_STAT_B)
    assert a.steal == 100 and b.steal == 120
    f = fractions(a, b)
    # elapsed ticks: 100 + 50 + 300 + 10 + 20 = 480; steal 20; busy 100+50+10 = 160; idle 300
    assert f["steal"] == pytest.approx(20 / 480)
    assert f["busy"] == pytest.approx(160 / 480)
    assert f["idle"] == pytest.approx(300 / 480)
    assert f["busy_normal"] == pytest.approx(160 / 480)  # no nice time in these lines
    assert fractions(a, a) == {"steal": 0.0, "busy": 0.0, "busy_normal": 0.0, "idle": 0.0}
    niced = parse_proc_stat("cpu  1000 400 500 8000 10 0 20 100 0 0\n")
    assert niced.busy - niced.busy_normal == 400
    with pytest.raises(ValueError):
        parse_proc_stat("intr 1\n")


def test_windowed_max_finds_the_stall():
    # 100 ms samples, 2 CPUs at 100 Hz -> 20 ticks per sample; 0.5 s of total steal at t = 3.0 .. 3.5
    t = [i * 0.1 for i in range(60)]
    total = [20 * i for i in range(60)]
    steal, s = [], 0
    for i in range(60):
        if 31 <= i <= 35:
            s += 20
        steal.append(s)
    w = windowed_max(t, steal, total, 1.0)
    assert w == pytest.approx(100 / 200, rel=0.11)  # half of a 1-s window stolen
    assert windowed_max(t[:5], steal[:5], total[:5], 1.0) == 0.0  # shorter than a window
    with pytest.raises(ValueError):
        windowed_max(t, steal[:3], total, 1.0)


def test_schedstat_gives_run_queue_wait():
    assert parse_schedstat("123456789 5550000 42\n") == (123456789, 5550000)


def test_pid_cpu_ticks_handles_spaces_in_the_name():
    text = "1234 (my (odd) name) S 1 1234 1234 0 -1 4194560 100 0 0 0 77 23 0 0 20 0 1 0 5 0 0"
    assert parse_pid_cpu_ticks(text) == 100


def test_jain_fairness():
    assert jain_fairness([5, 5, 5, 5]) == pytest.approx(1.0)
    assert jain_fairness([1, 0, 0, 0]) == pytest.approx(0.25)
    assert jain_fairness([0, 0]) == 1.0
    assert math.isnan(jain_fairness([]))


def test_mean_ci_matches_student_t():
    m, lo, hi = mean_ci([0.78, 0.80, 0.82], 0.95)
    # sd = 0.02, t(0.975, 2) = 4.3027, half = 4.3027 * 0.02 / sqrt(3)
    assert m == pytest.approx(0.80)
    assert hi - m == pytest.approx(4.302653 * 0.02 / math.sqrt(3), rel=1e-5)
    assert m - lo == pytest.approx(hi - m)
    m1, lo1, hi1 = mean_ci([0.5])
    assert m1 == 0.5 and math.isnan(lo1) and math.isnan(hi1)
    with pytest.raises(ValueError):
        mean_ci([])
    with pytest.raises(ValueError):
        mean_ci([1, 2], confidence=1.0)


def test_ci_covers_the_mean_at_about_the_nominal_rate():
    rng = random.Random(7)
    cover = 0
    for _ in range(400):
        xs = [rng.gauss(1.0, 0.3) for _ in range(5)]
        _, lo, hi = mean_ci(xs, 0.9)
        cover += lo <= 1.0 <= hi
    assert 0.85 <= cover / 400 <= 0.95


def _nl_qdisc(ifindex, handle, parent, kind, nbytes, pkts, qlen, backlog, drops):
    def attr(t, payload):
        a = struct.pack("HH", 4 + len(payload), t) + payload
        return a + b"\0" * ((4 - len(a) % 4) % 4)

    stats2 = attr(1, struct.pack("QI", nbytes, pkts) + b"\0\0\0\0") + attr(3, struct.pack("IIIII", qlen, backlog, drops, 0, 0))
    body = struct.pack("BxxxiIII", 0, ifindex, handle, parent, 1) + attr(1, kind.encode() + b"\0") + attr(7, stats2)
    return struct.pack("IHHII", 16 + len(body), 36, 2, 1, 0) + body


def test_parse_netlink_qdisc_dump():
    msg = (_nl_qdisc(3, 0x10000, 0xFFFFFFFF, "htb", 1000, 10, 2, 3028, 1)
           + _nl_qdisc(3, 0x100000, 0x10001, "pfifo", 900, 9, 2, 3028, 1))
    recs, done = parse_qdisc_dump(msg)
    assert not done and len(recs) == 2
    assert recs[1]["kind"] == "pfifo" and recs[1]["handle"] == 0x100000
    assert (recs[1]["bytes"], recs[1]["packets"], recs[1]["qlen"], recs[1]["backlog"], recs[1]["drops"]) == (900, 9, 2, 3028, 1)
    done_msg = struct.pack("IHHII", 20, 3, 2, 1, 0) + b"\0" * 4
    assert parse_qdisc_dump(done_msg) == ([], True)
    err = struct.pack("IHHII", 36, 2, 0, 1, 0) + struct.pack("i", -1) + b"\0" * 16
    with pytest.raises(OSError):
        parse_qdisc_dump(err)


def test_parse_tcp_info_offsets():
    buf = bytearray(232)
    buf[1] = 4  # ca_state Loss
    struct.pack_into("I", buf, 68, 40123)  # rtt
    struct.pack_into("I", buf, 80, 57)  # cwnd
    struct.pack_into("I", buf, 100, 9)  # total_retrans
    struct.pack_into("Q", buf, 120, 123456789)  # bytes_acked
    ti = parse_tcp_info(bytes(buf))
    assert (ti["ca_state"], ti["rtt_us"], ti["snd_cwnd"], ti["total_retrans"], ti["bytes_acked"]) == (4, 40123, 57, 9, 123456789)
    short = parse_tcp_info(bytes(buf[:104]))
    assert short["snd_cwnd"] == 57 and short["bytes_acked"] == -1


def test_pareto_sizes_have_the_requested_mean():
    rng = random.Random(3)
    xs = [pareto_size(rng, 10_000, 2.5) for _ in range(40_000)]
    assert min(xs) >= 10_000 * 1.5 / 2.5 - 1
    assert sum(xs) / len(xs) == pytest.approx(10_000, rel=0.05)


def test_parse_netstat_pairs():
    text = ("TcpExt: SyncookiesSent TCPTimeouts TCPFastRetrans\nTcpExt: 0 3 17\n"
            "Tcp: RtoAlgorithm RetransSegs\nTcp: 1 25\n")
    assert parse_netstat(text) == {"SyncookiesSent": 0, "TCPTimeouts": 3, "TCPFastRetrans": 17, "RtoAlgorithm": 1,
                                   "RetransSegs": 25}


def test_ethtool_parse_and_offload_check():
    text = ("Features for x:\ntcp-segmentation-offload: off\n\ttx-tcp-segmentation: off\n"
            "generic-segmentation-offload: on\ngeneric-receive-offload: off\nlarge-receive-offload: off [fixed]\n")
    feats = fidelity.parse_ethtool_features(text)
    assert feats["generic-segmentation-offload"] and not feats["tcp-segmentation-offload"]
    chk = fidelity.check_offloads({"x": feats})
    assert not chk.passed and "x: generic-segmentation-offload on" in chk.reason
    ok = fidelity.check_offloads({"x": {**feats, "generic-segmentation-offload": False}})
    assert ok.passed


def test_rtt_delay_steal_cpu_checks():
    lim = Limits()
    assert fidelity.check_base_rtts({"a": 0.0402}, {"a": 0.040}, lim).passed
    bad = fidelity.check_base_rtts({"a": 0.0460}, {"a": 0.040}, lim)
    assert not bad.passed and "46.00 ms vs 40.00 ms" in bad.reason
    assert not fidelity.check_base_rtts({}, {"a": 0.04}, lim).passed
    good = {"realtime": True, "dropped_full": 0, "write_errors": 0, "lateness_p99_us": 150, "lateness_max_us": 2000}
    assert fidelity.check_delay_element(good, lim).passed
    assert not fidelity.check_delay_element({**good, "lateness_max_us": 35000}, lim).passed
    assert "p99.9" in fidelity.check_delay_element({**good, "lateness_p999_us": 6000}, lim).reason
    assert not fidelity.check_delay_element({**good, "dropped_full": 3}, lim).passed
    assert not fidelity.check_delay_element({**good, "realtime": False}, lim).passed
    assert not fidelity.check_delay_element({}, lim).passed
    assert fidelity.check_steal(0.01, 0.05, lim).passed
    assert "mean steal" in fidelity.check_steal(0.05, 0.05, lim).reason
    assert "1 s window" in fidelity.check_steal(0.0, 0.3, lim).reason
    assert fidelity.check_cpu(0.5, {"delay": 0.1, "sender": 0.2}, lim, {"sender": 0.01}).passed
    assert "sender waited for a CPU 8.0 %" in fidelity.check_cpu(0.5, {"sender": 0.2}, lim, {"sender": 0.08}).reason
    assert fidelity.check_cpu(0.5, {"receiver": 0.2}, lim, {"receiver": 0.08}).passed  # passive: looser limit
    assert not fidelity.check_cpu(0.5, {"receiver": 0.2}, lim, {"receiver": 0.3}).passed
    assert fidelity.check_sampling(0.05).passed and "missed 20.0 %" in fidelity.check_sampling(0.2).reason
    assert "machine busy" in fidelity.check_cpu(0.99, {"delay": 0.1}, lim).reason
    assert "delay used 60 %" in fidelity.check_cpu(0.5, {"delay": 0.6}, lim).reason
    # niced background load: passes the un-niced limit, refused by the all-work limit
    assert fidelity.check_cpu(0.3, {"delay": 0.1}, lim, machine_busy_all=0.45).passed
    niced = fidelity.check_cpu(0.3, {"delay": 0.1}, lim, machine_busy_all=0.98)
    assert not niced.passed and "incl. niced work 98 %" in niced.reason
    assert not fidelity.check_queue_bound(10 * WIRE_PACKET_BYTES + 1, 10, 10, 0).passed
    assert fidelity.check_queue_bound(10 * WIRE_PACKET_BYTES, 10, 10, 0).passed
    assert not fidelity.check_queue_bound(0, 11, 10, 0).passed
    # a byte-limited FIFO is bounded in bytes: short frames may make it hold more than B frames
    assert fidelity.check_queue_bound(3000, 3, 2, 0, buffer_bytes=3072).passed
    assert not fidelity.check_queue_bound(3073, 2, 2, 0, buffer_bytes=3072).passed
    assert not fidelity.check_traffic([1e6, 0.0], []).passed


def test_config_validation_names_the_field():
    c = TestbedConfig.dumbbell(rate="50Mbps", rtt="40ms..100ms", buffer="0.5bdp", flows=4, cc=["reno", "cubic"])
    assert [f.cc for f in c.flows] == ["reno", "cubic", "reno", "cubic"]
    assert [round(f.rtt_s, 3) for f in c.flows] == [0.04, 0.06, 0.08, 0.1]
    assert c.buffer_packets == round(0.5 * 50e6 * 0.07 / (8 * WIRE_PACKET_BYTES))
    assert sorted(f.start_s for f in c.flows) == [0.0, 0.25, 0.5, 0.75]
    for kw, field in [({"rate": "200Mbps"}, "rate"), ({"flows": 33}, "flows"), ({"rtt": "1ms"}, "flows[0].rtt"),
                      ({"cc": "vegas"}, "flows[0].cc"), ({"buffer": "-1bdp"}, "buffer"), ({"buffer": "abc"}, "buffer"),
                      ({"duration": "5s", "warmup": "4.5s"}, "duration"), ({"flows": 0}, "flows")]:
        args = {"rate": "50Mbps", "rtt": "70ms", "buffer": "1bdp", "flows": 1, **kw}
        with pytest.raises(BufsizeError) as ei:
            TestbedConfig.dumbbell(**args)
        assert str(ei.value).startswith(field), (kw, str(ei.value))
    with pytest.raises(ScenarioError, match="breakage"):
        TestbedConfig.dumbbell(rate="50Mbps", rtt="70ms", buffer=10, breakage="cable-cut")
    c = TestbedConfig.dumbbell(rate="50Mbps", rtt="70ms", buffer=10, sender_sysctls=["net.ipv4.tcp_recovery=0"])
    assert c.sender_sysctls == ("net.ipv4.tcp_recovery=0",)
    for bad in ("net.ipv4.ip_forward=1", "net.ipv4.tcp_recovery=0; reboot", "kernel.panic=1"):
        with pytest.raises(ScenarioError, match="sender_sysctls"):
            TestbedConfig.dumbbell(rate="50Mbps", rtt="70ms", buffer=10, sender_sysctls=(bad,))


def test_summary_from_synthetic_records():
    """A run whose counters we know: 50 Mb/s link sending at 80 % for 10 s, queue alternating 0/10."""
    cfg = TestbedConfig.dumbbell(rate="50Mbps", rtt="50ms", buffer=10, flows=2, duration="12s", warmup="2s")
    t0 = 100.0
    q_t = np.arange(t0, t0 + 12.001, 0.002)
    rate_Bps = 0.8 * 50e6 / 8
    sampler = {"q_t": q_t, "q_len": np.where(np.arange(len(q_t)) % 2 == 0, 0, 10),
               "q_bytes": ((q_t - t0) * rate_Bps).astype(np.int64), "q_pkts": ((q_t - t0) * rate_Bps / 1514).astype(np.int64),
               "q_drops": ((q_t - t0) * 3).astype(np.int64), "q_backlog": np.full(len(q_t), 15140)}
    st = np.arange(t0, t0 + 12.001, 0.05)
    recv = {"sample_t": list(st), "samples": [[(t - t0) * 3e6 / 8, (t - t0) * 1e6 / 8] for t in st], "transfers": []}
    send = {"tcpinfo_columns": ["t", "flow", "snd_cwnd", "total_retrans", "rtt_us", "min_rtt_us"],
            "tcpinfo": [[t0 + k * 0.1, i, 20 + i, k, 51000, 50100] for k in range(120) for i in range(2)]}
    s, tables = summarize(cfg, sampler, recv, send, t0, {"TCPTimeouts": 2, "TCPFastRetrans": 5})
    assert s["utilization"] == pytest.approx(0.8, rel=1e-3)
    assert s["mean_queue_packets"] == pytest.approx(5.0, abs=0.01)
    assert s["frac_time_queue_full"] == pytest.approx(0.5, abs=0.01)
    assert s["drops"] == 30 and s["loss_rate"] == pytest.approx(30 / (30 + s["bottleneck_packets"]))
    assert s["goodput_bps_mean"] == pytest.approx(2e6, rel=1e-6)
    assert s["jain_fairness"] == pytest.approx(16 / (2 * 10))
    assert s["timeouts"] == 2 and s["fast_retransmits"] == 5
    assert s["cwnd_sum_mean"] == pytest.approx(41)
    f = tables["flows"]
    assert list(f["mean_cwnd"]) == [20, 21] and f["retransmits"].iloc[0] == 119 - 19  # last sample in the window minus last before it
    assert tables["queue_histogram"]["fraction"].sum() == pytest.approx(1.0)
    # ten whole seconds in the window, each at the 80 % the byte counter grows by
    u1 = tables["utilization_1s"]
    assert list(u1["t_s"]) == pytest.approx([2.0 + k for k in range(10)])
    assert np.allclose(u1["utilization"], 0.8, rtol=1e-3)
    assert s["window_start_s"] == t0 + 2.0
    assert counter_delta(np.array([0.0, 1.0]), np.array([0, 100]), 0.25, 0.75) == pytest.approx(50)


def test_cpu_summary_per_process():
    c_t = np.arange(0, 5.01, 0.1)
    n = len(c_t)
    total = np.arange(n) * 20
    steal = np.zeros(n, dtype=np.int64)
    busy = np.arange(n) * 10
    pid = np.stack([np.arange(n) * 2, np.arange(n) * 5], axis=1)  # 20 % and 50 % of a core at 100 Hz
    wait = np.stack([np.zeros(n, dtype=np.int64), np.arange(n) * 3_000_000], axis=1)  # 3 ms per 100 ms
    r = cpu_summary(c_t, steal, total, busy, pid, ["delay", "sender"], 100, 1.0, 4.0, 2,
                    c_busy_normal=busy // 2, c_wait=wait)
    assert r["process_cpu"]["delay"] == pytest.approx(0.2)
    assert r["process_cpu"]["sender"] == pytest.approx(0.5)
    assert r["machine_busy"] == pytest.approx(0.5)
    assert r["machine_busy_normal"] == pytest.approx(0.25)
    assert r["process_wait"]["delay"] == 0.0 and r["process_wait"]["sender"] == pytest.approx(0.03)
    assert r["steal_mean"] == 0.0


def test_run_resumes_from_prior_accepted_runs(monkeypatch):
    """A rejected point tried again keeps its accepted runs: only the missing repeats are run, with
    the seeds that follow the carried-over ones, and the attempts round-trip through to_dict."""
    from bufsize.testbed import runner
    from bufsize.testbed.config import TestbedConfig

    cfg = TestbedConfig.dumbbell(rate="50Mbps", rtt="40ms", flows=1, cc="reno", buffer="0.1bdp",
                                 duration="20s", warmup="5s")
    seeds = []

    def fake_run_once(c, **_):
        seeds.append(c.seed)
        return runner.Attempt(f"r{c.seed}", True, [fidelity.Check("x", True, "v", "l")], {"utilization": 0.8})

    monkeypatch.setattr(runner, "run_once", fake_run_once)
    first = runner.run(cfg, repeats=2)
    assert seeds == [cfg.seed, cfg.seed + 1]
    prior = [runner.Attempt.from_dict(a) for a in first.to_dict()["accepted_runs"]]
    assert prior[0].checks == first.runs[0].checks and prior[1].summary == {"utilization": 0.8}
    seeds.clear()
    resumed = runner.run(cfg, repeats=3, prior=prior)
    assert seeds == [cfg.seed + 2] and len(resumed.runs) == 3 and not resumed.rejected
    assert resumed.aggregate()["utilization"]["n"] == 3
    with pytest.raises(ValueError, match="only accepted runs"):
        runner.run(cfg, repeats=3, prior=[runner.Attempt("bad", False)])


def test_byte_fifo_and_initial_window_are_validated():
    c = TestbedConfig(rate_bps=20e6, buffer_packets=3, buffer_bytes=3072, flows=(), initcwnd=2,
                      users=TestbedConfig.dumbbell(rate="20Mbps", rtt="30ms", buffer="4", users=1).users)
    assert c.buffer_bytes == 3072 and TestbedConfig.frames_for(3072) == 3 and TestbedConfig.frames_for(3028) == 2
    with pytest.raises(ScenarioError, match="does not match a 3072-byte FIFO"):
        c.replace(buffer_packets=2)
    with pytest.raises(ScenarioError, match="one frame"):
        c.replace(buffer_bytes=100, buffer_packets=1)
    with pytest.raises(ScenarioError, match="initcwnd"):
        c.replace(initcwnd=0)
