#!/usr/bin/env python3
"""σ of Σcwnd in ns-3 and in bufsize, against paper 004 eq. (5).

Same scenario in both simulators, built exactly as ``compare.py`` builds its grid
points: OC3 155 Mb/s, 1000-byte packets, RTT and start lists from
``compare.flow_inputs(n, seed)``, B = BDP/√n, SACK on, NewReno, initial window 2,
MinRto 200 ms, 40 s runs measured over [10, 40) s. Σcwnd (segments) is sampled
every 1 ms in the window in both; a flow in fast recovery counts
min(cwnd, ssthresh) in both (see results.md for what that means in ns-3).

Eq. (5): σ = (2·Tp·C + B) / (3·√3·√n) packets, with 2·Tp·C = BDP at the 80 ms
mean RTT (1550 packets).

Usage (from the repository root; ns-3 takes ~1.5 min per n = 400 run here):

    nice .venv/bin/python bench/ns3/cwnd_sigma.py --flows 400,100

Writes one JSON line per n to ``cwnd_sigma.jsonl`` (ns-3 and bufsize numbers
side by side) and prints a Markdown table.
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import compare  # noqa: E402

OUT = HERE / "cwnd_sigma.jsonl"
INTERVAL_S = 0.001


def eq5_sigma(n: int, b: int) -> float:
    return (compare.bdp_packets() + b) / (3 * math.sqrt(3) * math.sqrt(n))


def ns3_run(n: int, b: int, rtts, starts, args) -> dict:
    cmd = [
        "nice", str(compare.NS3_BIN),
        f"--flows={n}", f"--capacity={int(compare.CAPACITY_BPS)}bps", f"--buffer={b}",
        f"--duration={args.duration}", f"--warmup={args.warmup}", f"--seed={args.seed}",
        f"--packetSize={compare.PACKET_BYTES}", "--sack=1", "--initCwnd=2", "--minRto=200",
        f"--cwndSumInterval={INTERVAL_S}",
        "--rtts=" + ",".join(f"{r:.6f}" for r in rtts),
        "--starts=" + ",".join(f"{s:.6f}" for s in starts),
    ]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"cwnd_sigma.py: ns-3 failed: {r.stderr.strip()[-300:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def bufsize_run(n: int, b: int, rtts, starts, args) -> dict:
    import bufsize

    scenario = {
        "seed": args.seed,
        "duration_s": float(args.duration),
        "warmup_s": float(args.warmup),
        "measure": {"cwnd_sum_interval_s": INTERVAL_S},
        "dumbbell": {
            "capacity_bps": compare.CAPACITY_BPS,
            "flows": n,
            "rtt_s": {"list": [r / 1000 for r in rtts]},
            "buffer": {"limit_packets": b},
            "start_s": {"list": starts},
            "tcp": {"cc": "newreno", "sack": True, "packet_bytes": compare.PACKET_BYTES,
                    "header_bytes": 40, "initial_window": 2, "min_rto_s": 0.2,
                    "delayed_ack": False, "prr": False},  # explicit (the toolkit default is on)
        },
    }
    res = bufsize.simulate(scenario, progress=False)
    s = res.summary
    f = res.flows
    cv = [sd / m for sd, m in zip(f["cwnd_std"], f["mean_cwnd"]) if m > 0]
    return {"utilization": s["utilization"], "loss_rate": s["loss_rate"], "timeouts": s["timeouts"],
            "cwnd_sum_mean": s["cwnd_sum_mean"], "cwnd_sum_std": s["cwnd_sum_std"],
            "flow_cwnd_cv_mean": statistics.mean(cv),
            "cwnd_sum_std_indep": math.sqrt(sum(sd * sd for sd in f["cwnd_std"])),
            "queue_std_packets": s["queue_std_packets"],
            "mean_queue_packets": s["mean_queue_packets"]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flows", default="400,100", help="comma list of n [400,100]")
    ap.add_argument("--duration", type=float, default=40.0)
    ap.add_argument("--warmup", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=1, help="draw of the RTT and start lists [1]")
    ap.add_argument("--only", choices=("ns3", "bufsize"), default=None,
                    help="run one side; the other is taken from cwnd_sigma.jsonl if there")
    args = ap.parse_args(argv)
    compare.ensure_ns3()
    old = {}
    if OUT.exists():
        for line in OUT.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                old[(rec["n"], rec["buffer"], rec["seed"], rec["duration"], rec["warmup"])] = rec
    for n in [int(x) for x in args.flows.split(",") if x]:
        b = compare.buffer_packets(n, "1")
        rtts, starts = compare.flow_inputs(n, args.seed)
        key = (n, b, args.seed, args.duration, args.warmup)
        rec = old.get(key, {"n": n, "buffer": b, "seed": args.seed, "duration": args.duration,
                            "warmup": args.warmup, "eq5_sigma": eq5_sigma(n, b)})
        if args.only != "bufsize":
            print(f"n={n} B={b}: ns-3 ...", file=sys.stderr, flush=True)
            rec["ns3"] = ns3_run(n, b, rtts, starts, args)
        if args.only != "ns3":
            rec["bufsize"] = bufsize_run(n, b, rtts, starts, args)
        rec["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        old[key] = rec
        OUT.write_text("".join(json.dumps(r) + "\n" for r in old.values()))
    print("| n | B | seed | tool | util | loss | timeouts | mean Σcwnd | σ(Σcwnd) | σ / eq. (5) | "
          "per-flow σ/mean | √Σσᵢ² | σ(queue) |")
    print("|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for rec in old.values():
        e = rec["eq5_sigma"]
        for tool in ("ns3", "bufsize"):
            r = rec.get(tool)
            if not r:
                continue
            print(f"| {rec['n']} | {rec['buffer']} | {rec['seed']} | {'ns-3' if tool == 'ns3' else 'bufsize'} | "
                  f"{r['utilization']:.4f} | {r['loss_rate']*100:.2f}% | {r['timeouts']} | "
                  f"{r['cwnd_sum_mean']:.0f} | {r['cwnd_sum_std']:.1f} | {r['cwnd_sum_std']/e:.2f} | "
                  f"{r['flow_cwnd_cv_mean']:.3f} | {r.get('cwnd_sum_std_indep', float('nan')):.1f} | "
                  f"{r['queue_std_packets']:.1f} |")
        print(f"| {rec['n']} | {rec['buffer']} | {rec['seed']} | eq. (5) | | | | | {e:.1f} | 1 | "
              "0.19 (sawtooth) | | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
