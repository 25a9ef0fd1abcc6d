#!/usr/bin/env python3
"""Window reductions per CE mark, ns-3 3.37 against the engine (diagnostics for aqm_ecn.md).

One ECN-on point of ``aqm_ecn.py`` (discipline, n, seed) run on both sides with the reductions
counted. ns-3: ``aqm.cc --trace`` lists every entry into CA_CWR (the answer to ECE) with the cwnd
it left and the ssthresh it set, and flags an entry made on the very ACK that ended the previous
CWR episode (``again=1``). The engine: every flow's cwnd sampled each millisecond of the window; a
reduction episode begins at a fall between two samples more than the flow's RTT + 10 ms after the
last one began (no run here loses a packet and cwnd only grows otherwise, so every fall answers
ECE; with PRR the window falls over an RTT), its depth the lowest cwnd in the episode over the one
before it (approximate: it can merge back-to-back episodes). Prints marks, reductions, reductions
per mark, the mean depth, and the means of the sums over flows of cwnd and of the flight.

    nice -n 10 .venv/bin/python bench/ns3/aqm_ecn_diag.py red 4 1   # discipline (or dctcp), n, seed
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import aqm  # noqa: E402
import aqm_ecn  # noqa: E402


def ns3_side(disc: str, n: int, seed: int, binary: str) -> dict:
    with tempfile.NamedTemporaryFile("r", suffix=".txt") as tr:
        cmd = [*aqm_ecn.ns3_command(disc, n, seed, Path(binary)), f"--trace={tr.name}"]
        r = subprocess.run(cmd, capture_output=True, text=True, check=True)
        lines = [x.split() for x in Path(tr.name).read_text().splitlines()]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    cwr = [x for x in lines if x[2] == "cwr"]
    depth = [float(x[4].split("=")[1]) / float(x[3].split("=")[1]) for x in cwr if float(x[3].split("=")[1]) > 0]
    return {"utilization": out["utilization"], "marks": out["marks"], "reductions": len(cwr),
            "again": sum(x[5] == "again=1" for x in cwr), "depth": sum(depth) / len(depth) if depth else 0.0,
            "cwnd_sum": out["cwnd_sum_mean"], "flight_sum": out["flight_sum_mean"]}


def engine_side(disc: str, n: int, seed: int) -> dict:
    import bufsize

    sc = aqm_ecn.engine_scenario(disc, n, seed)
    sc["measure"] = {"cwnd_trace_flows": list(range(n)), "cwnd_trace_interval_s": 0.001}
    res = bufsize.simulate(sc, progress=False)
    tr = res.cwnd_traces
    tr = tr[tr["t_s"] >= aqm.WARMUP_S]
    rtts = [r / 1000 for r in aqm.flow_inputs(n, seed)[0]]
    count, depth = 0, []
    for flow, g in tr.groupby("flow"):
        t, c = g["t_s"].to_numpy(), g["cwnd"].to_numpy()
        start, before, low = None, 0.0, 0.0
        for i in range(1, len(c)):
            if c[i] >= c[i - 1] - 1e-9:
                continue
            # A fall more than an RTT (+10 ms of queueing) after the last episode began opens a
            # new one (one reduction per window; with PRR the window falls over the episode).
            if start is None or t[i] - start > rtts[int(flow)] + 0.010:
                if start is not None:
                    depth.append(low / before)
                start, before, low, count = t[i], c[i - 1], c[i], count + 1
            low = min(low, c[i])
        if start is not None:
            depth.append(low / before)
    s = res.summary
    return {"utilization": s["utilization"], "marks": s["marks"], "reductions": count, "again": None,
            "depth": sum(depth) / len(depth) if depth else 0.0, "cwnd_sum": s["cwnd_sum_mean"],
            "flight_sum": s["flight_sum_mean"]}


def main() -> None:
    disc, n, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    binary = sys.argv[4] if len(sys.argv) > 4 else str(aqm.NS3_BIN)
    assert disc in (*aqm_ecn.DISCS, "dctcp"), disc
    for side, r in (("ns-3", ns3_side(disc, n, seed, binary)), ("engine", engine_side(disc, n, seed))):
        per = r["reductions"] / r["marks"] if r["marks"] else float("nan")
        print(f"{side:6} {disc} n={n} seed={seed}: utilization {r['utilization']:.4f}, marks {r['marks']}, "
              f"reductions {r['reductions']} ({per:.2f} per mark"
              + (f", {r['again']} on the ACK that ended the previous one" if r["again"] is not None else "")
              + f"), mean cwnd after/before {r['depth']:.3f}; mean sum of cwnd {r['cwnd_sum']:.1f}, "
              f"of flight {r['flight_sum']:.1f} segments", flush=True)


if __name__ == "__main__":
    main()
