#!/usr/bin/env python3
"""Validate bufsize's queue disciplines against ns-3 3.37's queue discs (issue 34, part 4; ECN off).

The same dumbbell in both: 100 Mb/s bottleneck (one-way delay 0), 10x access links, n = 4 and 32
NewReno flows with SACK, RTTs uniform in 20-100 ms and starts uniform in [0, 1) s (identical lists
on both sides, from ``flow_inputs``), 1500-byte frames; at the bottleneck one of RedQueueDisc,
CoDelQueueDisc, PieQueueDisc, FqCoDelQueueDisc (ns-3, ``aqm.cc``) or red, codel, pie, fq_codel
(bufsize, ``"buffer": {"limit_packets": L, "discipline": {...}}``), every parameter set explicitly
on both sides (``PARAMS``). The engine runs in profile ``ns3`` with cc newreno: ns-3 3.37's TCP
defaults (SACK, timestamps, PRR, IW 10, MinRto 1 s, delayed ACKs 2 / 200 ms).

    nice python3 bench/ns3/aqm.py            # all points -> aqm.csv (cached ns-3 runs: aqm_runs.jsonl)
    nice python3 bench/ns3/aqm.py --only ns3 # ns-3 side only
    nice python3 bench/ns3/aqm.py --table    # print the markdown table from aqm.csv

Measures (window [warmup, duration)): utilization of the bottleneck (frames' bytes / C / window),
mean sojourn time (arrival at the port to start of transmission: ns-3's disc SojournTime plus the
wait in its 1-packet device queue; bufsize's per-link sojourn_mean_s), drop rate = drops /
arrivals at the port, split into the discipline's own (aqm) and the hard limit's (overflow).
Acceptance (issue 34): utilization within 2 points, mean sojourn within 20 %, drop rate within 30 %.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
NS3_BIN = HERE / "build" / "aqm"
BUFSIZE = REPO / ".venv" / "bin" / "bufsize"
CACHE = HERE / "aqm_runs.jsonl"
CSV = HERE / "aqm.csv"

CAPACITY_BPS = 100e6
PACKET_BYTES = 1500
RTT_MS = (20.0, 100.0)
START_SPREAD_S = 1.0
DURATION_S = 120.0
WARMUP_S = 20.0
LIMIT = 1000  # hard limit, packets, of every discipline on both sides
FLOWS = (4, 32)
SEEDS = (1, 2, 3)
DISCS = ("red", "codel", "pie", "fq_codel")
UTIL_TOL, SOJOURN_TOL, DROP_TOL = 0.02, 0.20, 0.30

# Every parameter, named once; each side's arguments are derived from this.
PARAMS = {
    "red": {"min_th": 30, "max_th": 90, "max_p": 0.1, "wq": 0.002, "gentle": True},
    "codel": {"target_ms": 5, "interval_ms": 100},
    "pie": {"target_ms": 15, "t_update_ms": 15, "alpha": 0.125, "beta": 1.25, "max_burst_ms": 150},
    "fq_codel": {"target_ms": 5, "interval_ms": 100, "flows": 1024, "quantum_bytes": 1500},
    # ns-3's own RED and PIE settings (its 25-packet MaxSize, RED's 5/15 thresholds), set
    # explicitly on both sides: a small hard limit, so that overflow drops are exercised too.
    "red-25": {"min_th": 5, "max_th": 15, "max_p": 0.1, "wq": 0.002, "gentle": True},
    "pie-25": {"target_ms": 15, "t_update_ms": 15, "alpha": 0.125, "beta": 1.25, "max_burst_ms": 150},
}
# Hard limit per configuration (packets); LIMIT unless named here.
LIMITS = {"red-25": 25, "pie-25": 25}
EXTRA = ("red-25", "pie-25")  # run at n = 32 only


def base(label: str) -> str:
    """The discipline of a configuration label (red-25 -> red)."""
    return label.split("-")[0]


def limit_of(label: str) -> int:
    return LIMITS.get(label, LIMIT)


def flow_inputs(n: int, seed: int) -> tuple[list[float], list[float]]:
    rng = random.Random(f"bufsize-ns3-aqm-{seed}-{n}")
    rtts = [round(rng.uniform(*RTT_MS), 6) for _ in range(n)]
    starts = [round(rng.uniform(0.0, START_SPREAD_S), 6) for _ in range(n)]
    return rtts, starts


def ns3_args(label: str) -> list[str]:
    p, disc = PARAMS[label], base(label)
    if disc == "red":
        # Wait=false: drop probability pb/(1 - count pb) as Floyd & Jacobson and bufsize (aqm.cc).
        return [f"--minTh={p['min_th']}", f"--maxTh={p['max_th']}", f"--maxP={p['max_p']}",
                f"--qw={p['wq']}", f"--gentle={int(p['gentle'])}"]
    if disc in ("codel", "fq_codel"):
        out = [f"--target={p['target_ms']}", f"--interval={p['interval_ms']}"]
        if disc == "fq_codel":
            out += [f"--fqFlows={p['flows']}", f"--quantum={p['quantum_bytes']}"]
        return out
    return [f"--pieRef={p['target_ms']}", f"--tUpdate={p['t_update_ms']}", f"--alpha={p['alpha']}",
            f"--beta={p['beta']}", f"--maxBurst={p['max_burst_ms']}"]


def engine_discipline(label: str) -> dict:
    p, disc = PARAMS[label], base(label)
    if disc == "red":
        return {"name": "red", "min_th": p["min_th"], "max_th": p["max_th"], "max_p": p["max_p"],
                "wq": p["wq"], "gentle": p["gentle"], "adaptive": False}
    if disc == "codel":
        return {"name": "codel", "target_s": p["target_ms"] / 1e3, "interval_s": p["interval_ms"] / 1e3}
    if disc == "fq_codel":
        return {"name": "fq_codel", "target_s": p["target_ms"] / 1e3, "interval_s": p["interval_ms"] / 1e3,
                "flows": p["flows"], "quantum_bytes": p["quantum_bytes"]}
    return {"name": "pie", "target_s": p["target_ms"] / 1e3, "t_update_s": p["t_update_ms"] / 1e3,
            "alpha": p["alpha"], "beta": p["beta"], "max_burst_s": p["max_burst_ms"] / 1e3,
            "cap_drop_adjustment": True}


def build_ns3() -> None:
    src = HERE / "aqm.cc"
    if NS3_BIN.exists() and NS3_BIN.stat().st_mtime > src.stat().st_mtime:
        return
    libs = [f"-lns3-{m}" for m in ("core", "network", "internet", "point-to-point", "applications",
                                    "stats", "traffic-control", "bridge")
            if Path(f"/usr/lib/x86_64-linux-gnu/libns3-{m}.so").exists()]
    NS3_BIN.parent.mkdir(exist_ok=True)
    subprocess.run(["nice", "g++", "-std=c++17", "-O2", "-o", str(NS3_BIN), str(src), "-I/usr/include",
                    *libs], check=True)


def key(kind: str, disc: str, n: int, seed: int) -> str:
    text = json.dumps({"kind": kind, "disc": disc, "n": n, "seed": seed, "params": PARAMS[disc],
                       "limit": limit_of(disc), "duration": DURATION_S, "warmup": WARMUP_S, "v": 1}, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def run_ns3(disc: str, n: int, seed: int, extra: tuple[str, ...] = ()) -> dict:
    """One ns-3 run of the grid (`extra`: more aqm.cc options, e.g. fq_replay.py's --arrivals)."""
    rtts, starts = flow_inputs(n, seed)
    cmd = ["nice", str(NS3_BIN), f"--flows={n}", f"--capacity={int(CAPACITY_BPS)}bps",
           f"--duration={DURATION_S}", f"--warmup={WARMUP_S}", f"--seed={seed}",
           f"--packetSize={PACKET_BYTES}", f"--qdisc={base(disc)}", f"--limit={limit_of(disc)}", *ns3_args(disc),
           "--rtts=" + ",".join(f"{r:.6f}" for r in rtts),
           "--starts=" + ",".join(f"{s:.6f}" for s in starts), *extra]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"ns-3 {disc} n={n} seed={seed}: {r.stderr.strip()[-300:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def engine_scenario(disc: str, n: int, seed: int, extra: int = 0) -> dict:
    rtts, starts = flow_inputs(n, seed)
    return {
        "profile": "ns3",
        "seed": seed,
        "duration_s": DURATION_S,
        "warmup_s": WARMUP_S,
        "dumbbell": {
            "capacity_bps": CAPACITY_BPS,
            "flows": n,
            "rtt_s": {"list": [r / 1000 for r in rtts]},
            "start_s": {"list": starts},
            "bottleneck_delay_s": 0.0,
            "buffer": {"limit_packets": limit_of(disc) + extra, "discipline": engine_discipline(disc)},
            "tcp": {"cc": "newreno", "packet_bytes": PACKET_BYTES},
        },
    }


def simulate_summary(sc: dict, label: str) -> tuple[dict, float]:
    """`bufsize simulate` of one engine scenario (the installed CLI, as a user runs it): its summary
    and the wall seconds it took."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(sc, f)
        path = f.name
    try:
        t0 = time.monotonic()
        r = subprocess.run(["nice", str(BUFSIZE), "simulate", path, "--json", "--no-progress"],
                           capture_output=True, text=True)
        wall = time.monotonic() - t0
    finally:
        os.unlink(path)
    if r.returncode != 0:
        raise RuntimeError(f"bufsize {label}: {r.stderr.strip()[-300:]}")
    s = json.loads(r.stdout)
    return s.get("summary", s), wall


def run_engine(disc: str, n: int, seed: int, extra: int = 0) -> dict:
    summ, wall = simulate_summary(engine_scenario(disc, n, seed, extra), f"{disc} n={n} seed={seed}")
    drops = summ["aqm_drops"] + summ["overflow_drops"]
    # arrivals at the bottleneck: loss_rate = drops / arrivals there (the summary has no count)
    arr = drops / summ["loss_rate"] if drops else summ["bottleneck_packets"]
    out = {
        "utilization": summ["utilization"],
        "arrivals": arr,
        "aqm_drops": summ["aqm_drops"],
        "overflow_drops": summ["overflow_drops"],
        # waiting time of the packets sent in the window, enqueue to start of transmission
        "sojourn_mean_s": summ["queue_delay_mean_s"],
        "sojourn_p99_s": summ["queue_delay_p99_s"],
        "loss_rate": summ["loss_rate"],
        "timeouts": summ["timeouts"],
        "fast_retransmits": summ["fast_retransmits"],
        "jain_fairness": summ["jain_fairness"],
        "wall_seconds": round(wall, 2),
    }
    out["drops"] = out["aqm_drops"] + out["overflow_drops"]
    out["drop_rate"] = out["drops"] / arr if arr else 0.0
    return out


def load_cache() -> dict:
    out = {}
    if CACHE.exists():
        for line in CACHE.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                out[rec["key"]] = rec
    return out


def one(kind: str, disc: str, n: int, seed: int, cache: dict) -> dict:
    k = key(kind, disc, n, seed)
    if k in cache:
        return cache[k]["result"]
    if kind == "ns3":
        res = run_ns3(disc, n, seed)
    else:  # "bufsize", or "bufsize+1": the hard limit one packet larger (ns-3's device-queue slot)
        res = run_engine(disc, n, seed, 1 if kind == "bufsize+1" else 0)
    rec = {"key": k, "kind": kind, "disc": disc, "n": n, "seed": seed, "result": res,
           "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
           "load": os.getloadavg()[0]}
    with CACHE.open("a") as f:
        f.write(json.dumps(rec) + "\n")
    cache[k] = rec
    print(f"{kind:6} {disc:9} n={n:<3} seed={seed} util={res['utilization']:.4f} "
          f"soj={res['sojourn_mean_s'] * 1e3:.3f}ms drop={res['drop_rate']:.3e} "
          f"(aqm {res['aqm_drops']}, overflow {res['overflow_drops']}) load={rec['load']:.2f}", flush=True)
    return res


def rel(a: float, b: float) -> float | None:
    return None if b == 0 else (a - b) / b


def table(rows: list[dict]) -> str:
    hdr = ("| discipline | n | limit | utilization ns-3 / bufsize | Δ points | sojourn ns-3 (disc only) / bufsize (ms) | Δ | "
           "drop rate ns-3 / bufsize | Δ | ns-3 aqm+overflow / bufsize aqm+overflow (drops per run) | verdict |")
    out = [hdr, "|" + "---|" * 11]
    for r in rows:
        out.append(
            f"| {r['disc']} | {r['n']} | {r['limit']:.0f}" + (f" / {r['bufsize_limit']:.0f}" if r['bufsize_limit'] != r['limit'] else "")
            + f" | {r['ns3_util']:.4f} / {r['bs_util']:.4f} | {r['d_util_pts']:+.2f} | "
            f"{r['ns3_sojourn_ms']:.2f} ({r['ns3_sojourn_disc_ms']:.2f}) / {r['bs_sojourn_ms']:.2f} | {r['d_sojourn']:+.0%} | "
            f"{r['ns3_drop_rate']:.2e} / {r['bs_drop_rate']:.2e} | {r['d_drop']:+.0%} | "
            f"{r['ns3_aqm_drops']:.0f}+{r['ns3_overflow_drops']:.0f} / {r['bs_aqm_drops']:.0f}+{r['bs_overflow_drops']:.0f} | "
            f"{r['verdict']} |")
    return "\n".join(out)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", choices=("ns3", "bufsize"))
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--table", action="store_true", help="print the table from aqm.csv and exit")
    ap.add_argument("--discs", default=",".join(DISCS + EXTRA))
    ap.add_argument("--flows", default=",".join(map(str, FLOWS)))
    ap.add_argument("--seeds", default=",".join(map(str, SEEDS)))
    a = ap.parse_args()
    if a.table:
        with CSV.open() as f:
            rows = [{k: (v if k in ("disc", "verdict") else float(v)) for k, v in r.items()} for r in csv.DictReader(f)]
        for r in rows:
            r["n"] = int(r["n"])
        print(table(rows))
        return 0
    discs, flows = a.discs.split(","), [int(x) for x in a.flows.split(",")]
    seeds = [int(x) for x in a.seeds.split(",")]
    build_ns3()
    cache = load_cache()
    kinds = ["ns3", "bufsize"] if a.only is None else [a.only]
    pts = [(d, n) for d in discs for n in flows if d not in EXTRA or n == 32]
    jobs = [(k, d, n, s) for d, n in pts for s in seeds for k in kinds]
    if a.only != "ns3":
        jobs += [("bufsize+1", d, n, s) for d, n in pts if d in EXTRA for s in seeds]
    with ThreadPoolExecutor(max_workers=a.jobs) as ex:
        list(ex.map(lambda j: one(*j, cache), jobs))
    if a.only:
        return 0
    rows = []
    for d, n, bkind in [(d, n, k) for d, n in pts
                        for k in (("bufsize", "bufsize+1") if d in EXTRA else ("bufsize",))]:
        ns = [one("ns3", d, n, s, cache) for s in seeds]
        bs = [one(bkind, d, n, s, cache) for s in seeds]
        m = lambda xs, f: statistics.fmean(x[f] for x in xs)  # noqa: E731
        r = {"disc": d + (" (bufsize limit +1)" if bkind == "bufsize+1" else ""), "n": n,
             "seeds": len(seeds)}
        for tag, xs in (("ns3", ns), ("bs", bs)):
            r[f"{tag}_util"] = m(xs, "utilization")
            r[f"{tag}_sojourn_ms"] = m(xs, "sojourn_mean_s") * 1e3
            r[f"{tag}_drop_rate"] = sum(x["drops"] for x in xs) / sum(x["arrivals"] for x in xs)
            r[f"{tag}_aqm_drops"] = m(xs, "aqm_drops")
            r[f"{tag}_overflow_drops"] = m(xs, "overflow_drops")
            r[f"{tag}_util_sd"] = statistics.pstdev(x["utilization"] for x in xs)
            r[f"{tag}_sojourn_ms_sd"] = statistics.pstdev(x["sojourn_mean_s"] * 1e3 for x in xs)
            r[f"{tag}_drop_rate_sd"] = statistics.pstdev(x["drop_rate"] for x in xs)
        r["ns3_sojourn_disc_ms"] = m(ns, "sojourn_disc_mean_s") * 1e3
        r["limit"] = limit_of(d)
        r["bufsize_limit"] = limit_of(d) + (bkind == "bufsize+1")
        r["d_util_pts"] = (r["bs_util"] - r["ns3_util"]) * 100
        r["d_sojourn"] = rel(r["bs_sojourn_ms"], r["ns3_sojourn_ms"])
        r["d_drop"] = rel(r["bs_drop_rate"], r["ns3_drop_rate"])
        ok = (abs(r["d_util_pts"]) <= UTIL_TOL * 100, abs(r["d_sojourn"]) <= SOJOURN_TOL,
              abs(r["d_drop"]) <= DROP_TOL)
        r["verdict"] = "pass" if all(ok) else "MISS " + "/".join(
            w for w, o in zip(("util", "sojourn", "drops"), ok) if not o)
        rows.append(r)
    with CSV.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    print(table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
