"""Regenerate the testbed captures in this directory (needs root, the testbed tools and tcpdump).

    sudo .venv/bin/python tests/data/captures/make_captures.py [NAME ...]

Each case runs the kernel testbed once (retrying runs its fidelity checks reject) with a
headers-only capture of the bottleneck's egress (``run_once(cfg, capture=...)``) and writes
``NAME.pcap`` plus ``NAME.truth.json``: what the run was configured with (rate, buffer, every
flow's source address, RTT and congestion control), what it measured (utilization, loss rate,
drops over the measurement window), the window in the capture's clock, and every user transfer
the receiver recorded (size, complete). The tests in tests/traffic compare ``bufsize traffic``'s
reading of the capture against this file.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

CASES = {
    # 3 long Reno flows at 20/40/60 ms plus 3 closed-loop users (Pareto files, mean 60 KB)
    "reno3_users3": dict(rate="10Mbps", rtt="20ms,40ms,60ms,30ms,30ms,30ms", buffer="0.5bdp", flows=3, users=3,
                         cc="reno", duration="12s", warmup="3s",
                         user_kw=dict(mean_size_bytes=60e3, think_mean_s=0.5)),
    # 2 long CUBIC flows at 25/50 ms, a small buffer (losses)
    "cubic2_small": dict(rate="10Mbps", rtt="25ms,50ms", buffer="0.25bdp", flows=2, users=0, cc="cubic",
                         duration="12s", warmup="3s", user_kw={}),
    # 4 long Reno flows at 20..80 ms, a third of a BDP
    "reno4_long": dict(rate="10Mbps", rtt="20ms,40ms,60ms,80ms", buffer="0.3bdp", flows=4, users=0, cc="reno",
                       duration="12s", warmup="3s", user_kw={}),
    # 3 long Reno flows at 10/30/60 ms beside two idle, interactive connections (a few bytes every
    # 1.5-2 s, as iperf3's control connection or SSH), captured at the port and, at the same time,
    # on the senders' host (NAME_sender.pcap: the view of a capture taken at a host)
    "reno3_idle": dict(rate="10Mbps", rtt="10ms,30ms,60ms", buffer="0.5bdp", flows=3, users=0, cc="reno",
                       duration="12s", warmup="3s", user_kw={},
                       idle=[dict(source=0, every_s=1.5, bytes=120), dict(source=1, every_s=2.0, bytes=60)],
                       sender_capture=True),
    # the same flows through a deep buffer (2 BDP): the queue may never drain once the flows run
    "reno3_deep": dict(rate="10Mbps", rtt="10ms,30ms,60ms", buffer="2bdp", flows=3, users=0, cc="reno",
                       duration="12s", warmup="3s", user_kw={}),
}

#: The port the idle connections use (iperf3's control port).
IDLE_PORT = 5201


#: Failed-check reasons that concern only the testbed's own measurement side, not what TCP did:
#: niced work of other jobs on this shared machine, and the queue sampler waiting for a CPU (it
#: then misses queue-length samples; utilization and loss come from the qdisc's byte, packet and
#: drop counters, and the capture is taken by tcpdump, not by the sampler). A run whose only
#: failures are these is accepted and the relaxed checks are recorded in the truth file.
MEASUREMENT_ONLY = ("machine busy incl. niced work", "sampler waited for a CPU", "queue sampler missed")


def _measurement_only(att) -> list[str]:
    """The failed-check reasons if every one of them is measurement-only, else []."""
    if att.error:
        return []
    parts = [p.strip() for c in att.checks if not c.passed for p in c.reason.split(";") if p.strip()]
    if parts and all(any(p.startswith(m) or m in p for m in MEASUREMENT_ONLY) for p in parts):
        return parts
    return []


def make(name: str, attempts: int = 10) -> None:
    from dataclasses import replace

    from bufsize.testbed import runner
    from bufsize.testbed.config import TestbedConfig

    spec = dict(CASES[name])
    user_kw = spec.pop("user_kw")
    idle = spec.pop("idle", [])
    sender_capture = spec.pop("sender_capture", False)
    cfg = TestbedConfig.dumbbell(**spec)
    if user_kw:
        cfg = cfg.replace(users=tuple(replace(u, **user_kw) for u in cfg.users))
    pcap = HERE / f"{name}.pcap"
    pcap_sender = HERE / f"{name}_sender.pcap"

    def extras(topo) -> None:
        """Idle connections and the senders' host capture, started before the traffic's t0."""
        if sender_capture:
            topo.spawn("tcpdump_sender", "s", ["tcpdump", "-i", topo.dev["sr"], "-n", "-s", "96", "-U", "-Z", "root",
                                               "-w", str(pcap_sender)])
            time.sleep(0.5)
        if idle:
            topo.spawn("idle_server", "d", [sys.executable, str(HERE / "idle_conn.py"), "server", str(IDLE_PORT)])
            time.sleep(0.3)
        from bufsize.testbed.topology import D_ADDR

        for j, c in enumerate(idle):
            topo.spawn(f"idle_client{j}", "s", [sys.executable, str(HERE / "idle_conn.py"), "client",
                                                topo.sources[c["source"]], D_ADDR, str(IDLE_PORT),
                                                "--every", str(c["every_s"]), "--bytes", str(c["bytes"]),
                                                "--for", str(cfg.duration_s)])

    for k in range(attempts):
        wall_minus_mono = time.time() - time.monotonic()
        att = runner.run_once(cfg.replace(seed=cfg.seed + k), capture=pcap, keep_work=True, log=print,
                              _after_start=extras if (idle or sender_capture) else None)
        work = runner.WORK_ROOT / att.run_id
        try:
            relaxed = [] if att.accepted else _measurement_only(att)
            if not att.accepted and not relaxed:
                print(f"{name}: attempt {k + 1} rejected: {'; '.join(att.reasons)}")
                continue
            recv = json.loads((work / "receiver.json").read_text())
            send = json.loads((work / "sender.json").read_text())
            spec_json = json.loads((work / "spec.json").read_text())
        finally:
            shutil.rmtree(work, ignore_errors=True)
        from bufsize.testbed.topology import source_addr

        t0 = spec_json["t0"]
        truth = {
            "how": f"bufsize.testbed.runner.run_once(TestbedConfig.dumbbell(**{CASES[name]!r}), capture=...)",
            "rate_bps": cfg.rate_bps,
            "buffer_packets": cfg.buffer_packets,
            # htb's token bucket in front of the FIFO (tc's burst): extra buffer the FIFO limit
            # does not count, which the simulated twin mirrors
            "burst_bytes": cfg.burst_bytes,
            "duration_s": cfg.duration_s,
            "warmup_s": cfg.warmup_s,
            # the run's t0 and measurement window in the capture's clock (seconds since the epoch)
            "t0_epoch_s": t0 + wall_minus_mono,
            "window_epoch_s": [t0 + cfg.warmup_s + wall_minus_mono, t0 + cfg.duration_s + wall_minus_mono],
            "flows": [{"src": source_addr(i), "rtt_s": f.rtt_s, "cc": f.cc, "start_s": f.start_s}
                      for i, f in enumerate(cfg.flows)],
            "users": [{"src": source_addr(len(cfg.flows) + j), "rtt_s": u.rtt_s, "cc": u.cc,
                       "mean_size_bytes": u.mean_size_bytes, "think_mean_s": u.think_mean_s}
                      for j, u in enumerate(cfg.users)],
            "measured": {k: att.summary[k] for k in ("utilization", "loss_rate", "drops", "bottleneck_packets",
                                                     "bottleneck_bytes", "goodput_bps_total", "mean_queue_packets",
                                                     "window_s")},
            "long_flow_sent_bytes": send.get("sent", []),
            "user_transfers": [{"user": r["user"], "size": r["size"], "received": r["received"],
                                "complete": bool(r.get("complete")),
                                "t_accept_epoch_s": r["t_accept"] + wall_minus_mono}
                               for r in recv.get("transfers", [])],
            "header_bytes_per_transfer": 16,
            "relaxed_checks": relaxed,
        }
        if idle:
            # each idle connection: from the source address of a long flow to the receiver's port
            truth["idle_connections"] = [{"src": source_addr(c["source"]), "dport": IDLE_PORT,
                                          "every_s": c["every_s"], "bytes": c["bytes"]} for c in idle]
        if sender_capture:
            truth["sender_capture"] = {"file": pcap_sender.name,
                                       "where": "the senders' host, its interface towards the router (<id>sr): "
                                                "data before the bottleneck, ACKs after the delay"}
        (HERE / f"{name}.truth.json").write_text(json.dumps(truth, indent=1) + "\n")
        print(f"{name}: accepted, {pcap.stat().st_size / 1e6:.2f} MB, utilization {att.summary['utilization']:.3f}, "
              f"loss {att.summary['loss_rate']:.4f}")
        return
    raise SystemExit(f"{name}: no accepted run in {attempts} attempts")


if __name__ == "__main__":
    for n in sys.argv[1:] or list(CASES):
        make(n)
