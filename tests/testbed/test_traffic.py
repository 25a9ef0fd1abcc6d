"""The traffic generator's two halves talking over loopback (no namespaces, no root needed):
long-lived flows are counted per flow, closed-loop users complete Pareto-sized transfers."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time

import pytest


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def test_sender_and_receiver_over_loopback(tmp_path):
    avail = open("/proc/sys/net/ipv4/tcp_allowed_congestion_control").read().split()
    if "reno" not in avail:
        pytest.skip(f"reno not allowed for unprivileged sockets here ({' '.join(avail)})")
    spec = {"t0": time.monotonic() + 1.5, "duration_s": 1.5, "dst": "127.0.0.1", "port": _free_port(), "seed": 5,
            "tcpinfo_sample_s": 0.1,
            "flows": [{"src": "127.0.0.2", "cc": "reno", "start_s": 0.0}, {"src": "127.0.0.3", "cc": "reno", "start_s": 0.5}],
            "users": [{"src": "127.0.0.4", "cc": "reno", "mean_size_bytes": 20000, "pareto_shape": 1.5,
                       "think_mean_s": 0.05}]}
    (tmp_path / "spec.json").write_text(json.dumps(spec))
    common = ["--run-id", "bst00000", "--spec", str(tmp_path / "spec.json")]
    recv = subprocess.Popen([sys.executable, "-m", "bufsize.testbed.traffic", "receiver", *common,
                             "--out", str(tmp_path / "r.json")])
    for _ in range(100):
        if (tmp_path / "r.json.ready").exists():
            break
        time.sleep(0.02)
    send = subprocess.Popen([sys.executable, "-m", "bufsize.testbed.traffic", "sender", *common,
                             "--out", str(tmp_path / "s.json")])
    assert send.wait(timeout=30) == 0 and recv.wait(timeout=30) == 0
    r = json.loads((tmp_path / "r.json").read_text())
    s = json.loads((tmp_path / "s.json").read_text())
    assert s["errors"] == []
    final = r["samples"][-1]
    assert final[0] > 0 and final[1] > 0
    # flow 1 starts 0.5 s later: nothing of it arrives before its start
    t_early = spec["t0"] + 0.4
    early = [row for t, row in zip(r["sample_t"], r["samples"]) if t <= t_early]
    assert early and early[-1][1] == 0 and early[-1][0] > 0
    # every byte the receiver counted was sent (the sender counts what the kernel accepted)
    assert final[0] <= s["sent"][0] and final[1] <= s["sent"][1]
    done = [t for t in r["transfers"] if t["complete"]]
    assert len(done) >= 3
    assert all(t["received"] == t["size"] and t["t_last"] >= t["t_first"] >= t["t_accept"] for t in done)
    sizes_sent = {u["size"] for u in s["user_transfers"] if u["complete"]}
    assert {t["size"] for t in done} >= sizes_sent  # every transfer the sender saw finish, the receiver logged
    cols = s["tcpinfo_columns"]
    rows = [dict(zip(cols, row)) for row in s["tcpinfo"]]
    assert {row["flow"] for row in rows} == {0, 1}
    assert all(row["snd_cwnd"] >= 1 and row["snd_mss"] > 0 for row in rows)
