#!/usr/bin/env python3
"""Engine vs ns-3 (and, where measured, the kernel testbed) for NewReno, CUBIC and BBR; writes
docs/validation.md.

Grid (reduced, see the page): 50 Mb/s, 1000-byte packets, SACK, initial window 10, minimum RTO
200 ms, an ACK per segment, 40 s with 10 s warm-up, starts spread over [0, 1) s; 1 flow (RTT 40 ms)
and 8 flows (RTTs evenly over 20–100 ms); buffers 0.1, 0.25, 1 and 2 × BDP (BDP at the mean RTT).
ns-3 3.37 (bench/ns3/dumbbell.cc, `--tcp`: TcpNewReno, TcpCubic, TcpBbr with pacing on) gets the
same RTT and start lists. BBR against CUBIC (1+1, 4+4) runs on the engine only (the ns-3 program
has one control for all flows and reports no per-flow goodput).

Usage (repository root, after `make install` and bench/ns3/build.sh):
    nice .venv/bin/python bench/validation.py [--flows 1,8] [--cc newreno,cubic,bbr] [--no-ns3]
ns-3 results are cached in bench/validation_ns3.jsonl (keyed by every input), so a run resumes.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
NS3_BIN = HERE / "ns3" / "build" / "dumbbell"
CACHE = HERE / "validation_ns3.jsonl"
OUT = REPO / "docs" / "validation.md"

CAPACITY = 50e6
PACKET = 1000
DURATION, WARMUP = 40.0, 10.0
BUFFERS = (0.1, 0.25, 1.0, 2.0)
NS3_TCP = {"newreno": "TcpNewReno", "cubic": "TcpCubic", "bbr": "TcpBbr"}


def rtts_for(n: int) -> list[float]:
    if n == 1:
        return [0.04]
    return [0.02 + 0.08 * (i + 0.5) / n for i in range(n)]


def starts_for(n: int) -> list[float]:
    return [i / n for i in range(n)]


def bdp(rtts: list[float]) -> float:
    return CAPACITY * (sum(rtts) / len(rtts)) / (8 * PACKET)


def run_engine(cc_mix: dict[str, int], rtts, starts, buffer: int) -> dict:
    from bufsize.scenario import Scenario
    from bufsize.simulate import simulate

    tcp = {"sack": True, "initial_window": 10, "min_rto": "200ms"}
    classes = [{"flows": k, "tcp": {**tcp, "cc": cc}} for cc, k in cc_mix.items()]
    sc = Scenario.dumbbell(capacity=CAPACITY, flows=len(rtts), rtt=rtts, buffer=f"{buffer}pkt", start=starts,
                           duration=f"{DURATION}s", warmup=f"{WARMUP}s", packet_size=PACKET, header_size=40,
                           mix=classes)
    r = simulate(sc, progress=False)
    out = dict(r.summary)
    flows = r.flows
    out["class_goodput"] = {str(c): float(flows[flows["class"] == c]["goodput_bps"].sum())
                            for c in sorted(set(flows["class"]))}
    return out


def load_cache() -> dict:
    if not CACHE.exists():
        return {}
    d = {}
    for line in CACHE.read_text().splitlines():
        if line.strip():
            rec = json.loads(line)
            d[rec["key"]] = rec["result"]
    return d


def run_ns3(cc: str, rtts, starts, buffer: int, cache: dict) -> dict:
    args = [f"--tcp={NS3_TCP[cc]}", f"--flows={len(rtts)}", f"--capacity={int(CAPACITY)}bps", f"--buffer={buffer}",
            f"--duration={DURATION}", f"--warmup={WARMUP}", "--seed=1", f"--packetSize={PACKET}", "--sack=1",
            "--initCwnd=10", "--minRto=200", "--rtts=" + ",".join(f"{r * 1000:.6f}" for r in rtts),
            "--starts=" + ",".join(f"{s:.6f}" for s in starts)]
    key = " ".join(args)
    if key in cache:
        return cache[key]
    t0 = time.monotonic()
    r = subprocess.run(["nice", str(NS3_BIN), *args], capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"ns-3 failed: {r.stderr.strip()[-300:]}")
    res = json.loads(r.stdout.strip().splitlines()[-1])
    res["process_wall_seconds"] = round(time.monotonic() - t0, 2)
    with CACHE.open("a") as f:
        f.write(json.dumps({"key": key, "result": res}) + "\n")
    cache[key] = res
    return res


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--flows", default="1,8")
    ap.add_argument("--cc", default="newreno,cubic,bbr")
    ap.add_argument("--no-ns3", action="store_true")
    a = ap.parse_args(argv)
    flows = [int(x) for x in a.flows.split(",")]
    ccs = [c.strip() for c in a.cc.split(",")]
    if not a.no_ns3 and not NS3_BIN.exists():
        print("validation.py: error: bench/ns3/build/dumbbell missing (run bench/ns3/build.sh)", file=sys.stderr)
        return 2
    mixes = []
    for k in (1, 4):
        rtts, starts = rtts_for(2 * k), starts_for(2 * k)
        for frac in BUFFERS:
            b = max(1, round(frac * bdp(rtts)))
            e = run_engine({"bbr": k, "cubic": k}, rtts, starts, b)
            g = e["class_goodput"]
            share = g["0"] / (g["0"] + g["1"])
            mixes.append((k, frac, b, e, share))
            print(f"bbr+cubic {k}+{k} B={frac}: util {e['utilization']:.4f} loss {e['loss_rate']:.4f} "
                  f"bbr share {share:.3f}", flush=True)
    cache = load_cache()
    rows = []
    for cc in ccs:
        for n in flows:
            rtts, starts = rtts_for(n), starts_for(n)
            for frac in BUFFERS:
                b = max(1, round(frac * bdp(rtts)))
                e = run_engine({cc: n}, rtts, starts, b)
                s = None if a.no_ns3 else run_ns3(cc, rtts, starts, b, cache)
                rows.append((cc, n, frac, b, e, s))
                write(rows, mixes, done=False)
                print(f"{cc} n={n} B={frac} ({b}): engine {e['utilization']:.4f}/{e['loss_rate']:.4f}"
                      + ("" if s is None else f"  ns-3 {s['utilization']:.4f}/{s['loss_rate']:.4f}"), flush=True)
    write(rows, mixes, done=True)
    return 0


NS3_BBR_NOTE = (
    "**ns-3's TcpBbr stalls** at several points (\"ns-3 stalled\": utilization of a few per mille). Traced "
    "(`bench/ns3/build/dumbbell --tcp=TcpBbr --flows=1 --buffer=250 --rtts=40 --traceFlow=0`, 50 Mb/s): STARTUP "
    "overshoots, SACK recoveries at 0.41 s and 0.53 s, a retransmission timeout at 0.80 s, and from then on the "
    "flow holds a cwnd of 4-6 segments and sends about one segment per 200 ms for the rest of the run (inflight 0 "
    "or 1). Linux's BBR restores its saved cwnd when the Loss state ends and keeps its bandwidth estimate through "
    "a timeout; ns-3 3.37's implementation does not recover here, so those ns-3 points are no reference and the "
    "engine is not compared there. Where ns-3's BBR runs, it is the second reference; the kernel testbed remains "
    "the first one to take.\n")


def write(rows, mixes, done: bool = True) -> None:
    L = ["# Validation: engine vs ns-3 vs the kernel testbed\n",
         f"Generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} by `nice .venv/bin/python bench/validation.py` "
         "(grid and settings in its docstring): 50 Mb/s, 1000-byte packets, SACK, IW 10, min RTO 200 ms, no delayed "
         "ACKs, 40 s with 10 s warm-up; 1 flow at RTT 40 ms, 8 flows with RTTs evenly over 20–100 ms; the same RTT "
         "and start lists in both simulators. ns-3 3.37: TcpNewReno, TcpCubic, TcpBbr (pacing on), classic "
         "recovery, timestamps off.\n",
         "**Reduced grid, honestly labelled.** Not in this table: 32 flows; the kernel testbed column (the machine ran "
         "at a load average of 10–12 from other jobs all session, which the testbed's fidelity checks refuse, so no "
         "kernel point was taken); ns-3 for the BBR+CUBIC mixes (one control per run in bench/ns3/dumbbell.cc). "
         "`bufsize compare --cc bbr` runs the kernel side when the machine is quiet.\n",
         "" if done else "**Partial: the run was still going when this was written; rows not shown were not reached.**\n",
         "| control | flows | B/BDP | B pkts | engine util | ns-3 util | Δ util (engine − ns-3) | engine loss | ns-3 loss | engine timeouts | ns-3 timeouts |",
         "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for cc, n, frac, b, e, s in rows:
        if s is None:
            L.append(f"| {cc} | {n} | {frac} | {b} | {e['utilization']:.4f} | — | — | {e['loss_rate']:.4f} | — | "
                     f"{e['timeouts']} | — |")
        else:
            stalled = cc == "bbr" and s["utilization"] < 0.5
            delta = "ns-3 stalled" if stalled else f"{e['utilization'] - s['utilization']:+.4f}"
            L.append(f"| {cc} | {n} | {frac} | {b} | {e['utilization']:.4f} | {s['utilization']:.4f} | "
                     f"{delta} | {e['loss_rate']:.4f} | {s['loss_rate']:.4f} | {e['timeouts']} | {s['timeouts']} |")
    L.append("")
    L.append(NS3_BBR_NOTE)
    L.append("BBR against CUBIC on the engine (RTTs evenly over 20–100 ms, the BBR flows first in each RTT order):\n")
    L.append("| flows | B/BDP | B pkts | util | loss | BBR share of goodput |")
    L.append("|---|---:|---:|---:|---:|---:|")
    for k, frac, b, e, share in mixes:
        L.append(f"| {k}+{k} | {frac} | {b} | {e['utilization']:.4f} | {e['loss_rate']:.4f} | {share:.3f} |")
    L.append("")
    OUT.write_text("\n".join(L) + "\n")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    sys.exit(main())
