#!/usr/bin/env python3
"""ECN-on rows of the AQM comparison against ns-3 3.37 (issue 34, the ECN parts of item 4).

The dumbbells, parameters and measures of ``aqm.py`` (100 Mb/s, 4 and 32 NewReno flows with SACK,
RTTs uniform 20-100 ms, hard limit 1000 packets, 120 s with a 20 s warm-up, the engine in profile
``ns3``), with ECN on at both ends: ns-3 ``TcpSocketBase::UseEcn = On`` and the disc's ``UseEcn``
(``aqm.cc --ecn=1``; RED keeps ns-3's ``UseHardDrop = true``), the engine ``tcp.ecn = true`` and the
discipline's ``ecn`` (RED with ``hard_drop``). Seeds 1-3 per point, as the ECN-off table: a row
is the mean of three runs (utilization, sojourn) and the pooled rate (marks / arrivals over the
three). Adds the mark rate to the compared measures.

    nice python3 bench/ns3/aqm_ecn.py    # runs (cached in aqm_ecn_runs.jsonl) -> aqm_ecn.csv, table
"""

from __future__ import annotations

import csv
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import aqm  # noqa: E402  (the ECN-off driver: flow inputs, parameters, the ns-3 build)

CACHE = aqm.HERE / "aqm_ecn_runs.jsonl"
CSV = aqm.HERE / "aqm_ecn.csv"
SEEDS = (1, 2, 3)
DISCS = ("red", "codel", "pie", "fq_codel")
# DCTCP behind a marking threshold K: ns-3's TcpDctcp behind RedQueueDisc as a step marker (MinTh =
# MaxTh = K, QW = 1, Gentle and UseHardDrop off: an arrival that finds the queue at K or more is
# marked), the engine's dctcp behind `threshold` with k_packets = K - 1 (it marks above K - 1).
# K = 70 packets, about C·RTT/7 at the mean RTT of 60 ms (8333 packets/s x 0.06 s / 7).
K = 70
# Engine revision of the runs kept in the cache (the first rows, no suffix, were the engine
# before these): 2 = an ECE reduction's episode lasts until the segment sent after it is
# acknowledged and holds the window; 3 = also DCTCP grows per segment acknowledged under every
# profile and, with PRR, an ECE reduction is made by PRR over its episode (2026-11-28); 4 = the
# ns3 profile's PRR wraps its 32-bit product as ns-3 3.37's does (`prr_wraps_32bit`, aqm.md).
ENGINE_REV = 4


def ns3_command(disc: str, n: int, seed: int, binary: Path = aqm.NS3_BIN) -> list[str]:
    """The ``aqm.cc`` command line of an ECN-on point (``disc`` one of DISCS or "dctcp")."""
    rtts, starts = aqm.flow_inputs(n, seed)
    if disc == "dctcp":
        disc_args = ["--qdisc=red", f"--minTh={K}", f"--maxTh={K}", "--qw=1", "--gentle=0", "--hardDrop=0",
                     "--dctcp=1", f"--limit={aqm.LIMIT}"]
    else:
        disc_args = [f"--qdisc={disc}", f"--limit={aqm.limit_of(disc)}", *aqm.ns3_args(disc)]
    return ["nice", str(binary), f"--flows={n}", f"--capacity={int(aqm.CAPACITY_BPS)}bps",
            f"--duration={aqm.DURATION_S}", f"--warmup={aqm.WARMUP_S}", f"--seed={seed}",
            f"--packetSize={aqm.PACKET_BYTES}", *disc_args, "--ecn=1",
            "--rtts=" + ",".join(f"{r:.6f}" for r in rtts),
            "--starts=" + ",".join(f"{s:.6f}" for s in starts)]


def run_ns3(disc: str, n: int, seed: int) -> dict:
    r = subprocess.run(ns3_command(disc, n, seed), capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"ns-3 {disc} n={n}: {r.stderr.strip()[-300:]}")
    out = json.loads(r.stdout.strip().splitlines()[-1])
    out["mark_rate"] = out["marks"] / out["arrivals"] if out["arrivals"] else 0.0
    return out


def engine_scenario(disc: str, n: int, seed: int) -> dict:
    """The engine's scenario of an ECN-on point."""
    sc = aqm.engine_scenario("codel" if disc == "dctcp" else disc, n, seed)
    sc["dumbbell"]["tcp"]["ecn"] = True
    if disc == "dctcp":
        sc["dumbbell"]["tcp"]["cc"] = "dctcp"
        sc["dumbbell"]["buffer"]["discipline"] = {"name": "threshold", "k_packets": K - 1}
    else:
        d = sc["dumbbell"]["buffer"]["discipline"]
        d["ecn"] = True
        if disc == "red":
            d["hard_drop"] = True
    return sc


def run_engine(disc: str, n: int, seed: int) -> dict:
    s, _wall = aqm.simulate_summary(engine_scenario(disc, n, seed), f"{disc} n={n} seed={seed}")
    arrivals = s["marks"] / s["mark_rate"] if s["marks"] else None
    drops = s["aqm_drops"] + s["overflow_drops"]
    return {"utilization": s["utilization"], "sojourn_mean_s": s["queue_delay_mean_s"],
            "marks": s["marks"], "mark_rate": s["mark_rate"], "drops": drops, "aqm_drops": s["aqm_drops"],
            "overflow_drops": s["overflow_drops"], "drop_rate": s["loss_rate"], "arrivals": arrivals,
            "timeouts": s["timeouts"], "fast_retransmits": s["fast_retransmits"]}


def one(kind: str, disc: str, n: int, seed: int, cache: dict) -> dict:
    k = f"{kind}-{disc}-{n}-{seed}-{aqm.DURATION_S}" + (f"-e{ENGINE_REV}" if kind == "bufsize" else "")
    if k not in cache:
        t0 = time.monotonic()
        res = run_ns3(disc, n, seed) if kind == "ns3" else run_engine(disc, n, seed)
        rec = {"key": k, "result": res, "wall_s": round(time.monotonic() - t0, 1),
               "when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), "load": os.getloadavg()[0]}
        with CACHE.open("a") as f:
            f.write(json.dumps(rec) + "\n")
        cache[k] = rec
        print(f"{kind:7} {disc:8} n={n:<3} util={res['utilization']:.4f} soj={res['sojourn_mean_s'] * 1e3:.2f}ms "
              f"marks={res['mark_rate']:.3e} drops={res['drop_rate']:.3e} ({rec['wall_s']} s)", flush=True)
    return cache[k]["result"]


def main() -> None:
    aqm.build_ns3()
    cache = {}
    if CACHE.exists():
        for line in CACHE.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                cache[r["key"]] = r
    rows = []
    for n in aqm.FLOWS:
        for disc in (*DISCS, "dctcp"):
            ns = [one("ns3", disc, n, s, cache) for s in SEEDS]
            bs = [one("bufsize", disc, n, s, cache) for s in SEEDS]
            r: dict = {"disc": disc, "n": n, "seeds": len(SEEDS)}
            for tag, xs in (("ns3", ns), ("bs", bs)):
                r[f"{tag}_util"] = statistics.fmean(x["utilization"] for x in xs)
                r[f"{tag}_sojourn_ms"] = statistics.fmean(x["sojourn_mean_s"] for x in xs) * 1e3
                arrivals = sum(x["arrivals"] for x in xs)
                r[f"{tag}_mark_rate"] = sum(x["marks"] for x in xs) / arrivals
                r[f"{tag}_drop_rate"] = sum(x["drops"] for x in xs) / arrivals
                r[f"{tag}_util_sd"] = statistics.pstdev(x["utilization"] for x in xs)
                r[f"{tag}_sojourn_ms_sd"] = statistics.pstdev(x["sojourn_mean_s"] * 1e3 for x in xs)
                r[f"{tag}_mark_rate_sd"] = statistics.pstdev(x["mark_rate"] for x in xs)
                r[f"{tag}_drops"] = sum(x["drops"] for x in xs)
            d_util = (r["bs_util"] - r["ns3_util"]) * 100
            d_soj = aqm.rel(r["bs_sojourn_ms"], r["ns3_sojourn_ms"])
            d_mark = aqm.rel(r["bs_mark_rate"], r["ns3_mark_rate"])
            d_drop = aqm.rel(r["bs_drop_rate"], r["ns3_drop_rate"])
            ok = {"utilization": abs(d_util) <= aqm.UTIL_TOL * 100,
                  "sojourn": d_soj is not None and abs(d_soj) <= aqm.SOJOURN_TOL,
                  "marks": d_mark is None or abs(d_mark) <= aqm.DROP_TOL,
                  "drops": d_drop is None and r["bs_drop_rate"] == 0 or d_drop is not None and abs(d_drop) <= aqm.DROP_TOL}
            r.update({"d_util_pts": d_util, "d_sojourn": d_soj, "d_mark": d_mark, "d_drop": d_drop,
                      "verdict": "pass" if all(ok.values()) else "miss (" + ", ".join(k for k, v in ok.items() if not v) + ")"})
            rows.append(r)
    with CSV.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        for r in rows:
            w.writerow({k: (f"{v:.6g}" if isinstance(v, float) else v) for k, v in r.items()})
    print("| discipline | n | utilization ns-3 / engine | Δ points | mean sojourn ns-3 / engine (ms) | Δ | "
          "mark rate ns-3 / engine | Δ | drops ns-3 / engine | verdict |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        name = f"dctcp, threshold K = {K}" if r["disc"] == "dctcp" else r["disc"]
        print(f"| {name} | {r['n']} | {r['ns3_util']:.4f} / {r['bs_util']:.4f} | {r['d_util_pts']:+.2f} | "
              f"{r['ns3_sojourn_ms']:.2f} / {r['bs_sojourn_ms']:.2f} | {r['d_sojourn']:+.0%} | "
              f"{r['ns3_mark_rate']:.2e} / {r['bs_mark_rate']:.2e} | {r['d_mark']:+.0%} | "
              f"{r['ns3_drops']} / {r['bs_drops']} | {r['verdict']} |")


if __name__ == "__main__":
    main()
