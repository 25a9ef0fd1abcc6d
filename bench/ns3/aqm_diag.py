#!/usr/bin/env python3
"""Diagnostics for the two misses of bench/ns3/aqm.py (see aqm.md): one JSON line per case.

    nice .venv/bin/python bench/ns3/aqm_diag.py fq        # FQ-CoDel n=4 sojourn: where the gap is
    nice .venv/bin/python bench/ns3/aqm_diag.py red-25    # RED at 25 packets: ns-3's disc count

fq:     (a) one hash bucket (FQ-CoDel = CoDel) on both sides, n=4 seed 1 of the grid;
        (b) ns-3's per-flow-queue MinBytes test switched off (child CoDel MinBytes 0; Linux and
            bufsize test the whole backlog), n=4 seed 1; and ns-3's quantum 1498 (`fq-quantum`);
        (c) equal-RTT flows with the same 25 Mb/s share each: 1 flow under CoDel, 2 and 4 flows
            under FQ-CoDel (53.5 ms), so FQ's per-flow queues are compared with one CoDel queue.
red-25: bufsize with RED's thresholds and the limit one packet higher (6/16, 26), i.e. counting
        what ns-3's RedQueueDisc counts: its own packets, not the one waiting in the device queue.
        A diagnostic only; the table keeps the same numbers on both sides.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import aqm  # noqa: E402


def ns3(label, n, seed, cap, rtts, starts, extra=()):
    cmd = ["nice", str(aqm.NS3_BIN), f"--flows={n}", f"--capacity={int(cap)}bps",
           f"--duration={aqm.DURATION_S}", f"--warmup={aqm.WARMUP_S}", f"--seed={seed}",
           f"--packetSize={aqm.PACKET_BYTES}", f"--qdisc={aqm.base(label)}", f"--limit={aqm.limit_of(label)}",
           *aqm.ns3_args(label), "--rtts=" + ",".join(f"{r:.6f}" for r in rtts),
           "--starts=" + ",".join(f"{s:.6f}" for s in starts), *extra]
    r = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    return {k: r[k] for k in ("utilization", "sojourn_mean_s", "sojourn_disc_mean_s", "device_wait_mean_s",
                              "sojourn_disc_p99_s", "aqm_drops", "overflow_drops", "jain_fairness")}


def engine(label, n, seed, cap, rtts, starts, disc_update=None, limit=None):
    s = aqm.engine_scenario(label, n, seed)
    d = s["dumbbell"]
    d["capacity_bps"] = cap
    d["rtt_s"] = {"list": [r / 1000 for r in rtts]}
    d["start_s"] = {"list": list(starts)}
    d["buffer"]["discipline"].update(disc_update or {})
    if limit is not None:
        d["buffer"]["limit_packets"] = limit
    with tempfile.NamedTemporaryFile("w", suffix=".json") as f:
        json.dump(s, f)
        f.flush()
        r = json.loads(subprocess.run([str(aqm.BUFSIZE), "simulate", f.name, "--json", "--no-progress"],
                                      capture_output=True, text=True, check=True).stdout)
    return {"utilization": r["utilization"], "sojourn_mean_s": r["queue_delay_mean_s"],
            "sojourn_p99_s": r["queue_delay_p99_s"], "aqm_drops": r["aqm_drops"],
            "overflow_drops": r["overflow_drops"], "jain_fairness": r["jain_fairness"]}


def show(case, side, res):
    print(json.dumps({"case": case, "side": side, **res}), flush=True)


def fq():
    aqm.build_ns3()
    rtts, starts = aqm.flow_inputs(4, 1)
    show("fq_codel n=4 seed=1, 1 bucket", "ns3", ns3("fq_codel", 4, 1, aqm.CAPACITY_BPS, rtts, starts, ["--fqFlows=1"]))
    show("fq_codel n=4 seed=1, 1 bucket", "bufsize",
         engine("fq_codel", 4, 1, aqm.CAPACITY_BPS, rtts, starts, {"flows": 1}))
    show("fq_codel n=4 seed=1, ns-3 child CoDel MinBytes 0", "ns3",
         ns3("fq_codel", 4, 1, aqm.CAPACITY_BPS, rtts, starts, ["--ns3::CoDelQueueDisc::MinBytes=0"]))
    fq_quantum()
    for label, n in (("codel", 1), ("fq_codel", 2), ("fq_codel", 4)):
        rt, st = [53.5] * n, [0.1 + 0.2 * i for i in range(n)]
        case = f"{label} n={n}, RTT 53.5 ms, {25 * n} Mb/s (25 Mb/s per flow)"
        show(case, "ns3", ns3(label, n, 1, 25e6 * n, rt, st))
        show(case, "bufsize", engine(label, n, 1, 25e6 * n, rt, st))


def fq_quantum():
    """ns-3's FqCoDel counts IP packets (1498 B here) against the 1500-B quantum: a queue may send two
    packets in one turn. With quantum 1498 it sends exactly one, as the engine does with 1500-B frames."""
    rtts, starts = aqm.flow_inputs(4, 1)
    show("fq_codel n=4 seed=1, ns-3 quantum 1498", "ns3",
         ns3("fq_codel", 4, 1, aqm.CAPACITY_BPS, rtts, starts, ["--quantum=1498"]))


def red25():
    for seed in aqm.SEEDS:
        rtts, starts = aqm.flow_inputs(32, seed)
        show(f"red-25 n=32 seed={seed}, bufsize min/max 6/16, limit 26", "bufsize",
             engine("red-25", 32, seed, aqm.CAPACITY_BPS, rtts, starts, {"min_th": 6, "max_th": 16}, 26))


if __name__ == "__main__":
    {"fq": fq, "fq-quantum": fq_quantum, "red-25": red25}[sys.argv[1]]()
