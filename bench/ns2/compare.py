"""bufsize's ``ns2`` profile against ns-2.35 itself (Debian's ``ns2`` package), like for like.

    python bench/ns2/compare.py point N CAP_BPS BUFFER [--agent Reno] [--rtt 50,150] [--seeds 1,2,3]
                                [--duration 60] [--warmup 20] [--segment 1460] [--access 1e9]
                                [--stack ns2|reproduce] [--set key=value ...]

Both simulators get the same flows: RTTs drawn uniformly from the range and start times from
[0, --start-spread) s by a seeded generator, each sender on its own access link of --access b/s,
a DropTail bottleneck of BUFFER packets, FTP (always backlogged) senders, an ACK per segment.
ns-2's agent is ``Agent/TCP/<agent>`` with ``window_`` 100 000 and ``packetSize_`` = segment; the
engine runs profile ``ns2`` (``--stack reproduce``: with the reproduction's extra details,
bufsize.reproduce._stack.TCP) with cc ``reno`` for Agent/TCP/Reno, ``newreno`` for Newreno.
Each run appends a JSON line to bench/ns2/runs.jsonl (cached: a rerun with the same inputs reads it).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CACHE = HERE / "runs.jsonl"
CC = {"Reno": "reno", "Newreno": "newreno", "TCP": "tahoe", "Sack1": "newreno"}


def flow_inputs(n: int, seed: int, rtt_ms: tuple[float, float], spread_s: float):
    rng = random.Random(f"bufsize-ns2-{seed}-{n}")
    rtts = [round(rng.uniform(*rtt_ms), 6) for _ in range(n)]
    starts = [round(rng.uniform(0.0, spread_s), 6) for _ in range(n)]
    return rtts, starts


def _cached(key: str):
    if CACHE.exists():
        for line in CACHE.read_text().splitlines():
            rec = json.loads(line)
            if rec["key"] == key:
                return rec
    return None


def _store(rec: dict) -> None:
    with CACHE.open("a") as f:
        f.write(json.dumps(rec, sort_keys=True) + "\n")


def run_ns2(p: dict, rtts, starts) -> dict:
    args = [f"{k}={v}" for k, v in (("flows", p["n"]), ("capacity", p["capacity"]), ("buffer", p["buffer"]),
                                    ("duration", p["duration"]), ("warmup", p["warmup"]), ("segment", p["segment"]),
                                    ("agent", p["agent"]), ("access", p["access"]), ("seed", p["seed"]))]
    args += ["rtts=" + ",".join(map(str, rtts)), "starts=" + ",".join(map(str, starts))]
    r = subprocess.run(["nice", "ns", str(HERE / "dumbbell.tcl"), *args], capture_output=True, text=True, check=True)
    return json.loads(r.stdout.strip().splitlines()[-1])


def engine_scenario(p: dict, rtts, starts) -> dict:
    """The engine's side of point ``p``. ns-2's DropTail ``limit_`` B holds B - 1 waiting packets beside
    the one on the wire (drop-tail.cc drops when length + 1 reaches limit_); the engine's limit counts
    waiting packets, so ns-2's B is the engine's B - 1 (bench/ns2/tiny_buffers.md, its burst table)."""
    from bufsize.reproduce import _stack

    tcp = {"cc": CC[p["agent"]], "packet_bytes": p["segment"] + 40, "header_bytes": 40, "ack_bytes": 40}
    if p["stack"] == "reproduce":
        tcp = _stack.tcp({**tcp, "sack": False, "prr": False})
    tcp.update(p.get("set", {}))
    return {"profile": "ns2", "seed": p["seed"], "duration_s": float(p["duration"]), "warmup_s": float(p["warmup"]),
            "dumbbell": {"capacity_bps": float(p["capacity"]), "flows": p["n"], "rtt_s": {"list": [r / 1000 for r in rtts]},
                         "buffer": {"limit_packets": _stack.ns2_limit(p["buffer"])}, "start_s": {"list": starts},
                         "access_rate_bps": float(p["access"]), "tcp": tcp}}


def run_engine(p: dict, rtts, starts) -> dict:
    from bufsize import simulate

    res = simulate(engine_scenario(p, rtts, starts), progress=False)
    s = res.summary
    return {"utilization": s["utilization"], "loss": s["loss_rate"],
            "timeouts_total": s.get("timeouts_total", s.get("timeouts"))}


def one(p: dict, stack: str = "ns2", sets: dict | None = None) -> tuple[dict, dict]:
    """(ns-2's result, the engine's) for the point ``p`` (ns-2 from the cache when it ran before)."""
    rtts, starts = flow_inputs(p["n"], p["seed"], tuple(p["rtt"]), p["spread"])
    key = hashlib.sha256(json.dumps(p, sort_keys=True).encode()).hexdigest()[:16]
    rec = _cached(key)
    if rec is None:
        rec = {"key": key, "params": p, "ns2": run_ns2(p, rtts, starts)}
        _store(rec)
    return rec["ns2"], run_engine({**p, "stack": stack, "set": sets or {}}, rtts, starts)


#: the OC3 grid of bench/ns3 (n flows, B = 0.5, 1, 2 x BDP/sqrt(n) and BDP at the mean RTT of 80 ms)
GRID_N = (50, 100, 200, 400)
GRID_B = ("0.5", "1", "2", "bdp")
UTIL_TOL, LOSS_TOL, LOSS_FLOOR = 0.01, 0.25, 0.001


def grid_buffer(n: int, which: str, capacity: float, packet: int) -> int:
    bdp = capacity * 0.080 / (8 * packet)
    return round(bdp) if which == "bdp" else max(1, round(float(which) * bdp / n ** 0.5))


def verdict(n2: dict, en: dict) -> str:
    du = en["utilization"] - n2["utilization"]
    big = max(n2["loss"], en["loss"]) >= LOSS_FLOOR
    dl = (en["loss"] / n2["loss"] - 1) if n2["loss"] > 0 else float("inf")
    ok = abs(du) <= UTIL_TOL and (not big or abs(dl) <= LOSS_TOL)
    return "met" if ok else f"MISS ({du * 100:+.1f} pt, loss {dl:+.0%})"


def grid(agents, seeds, out: Path) -> None:
    rows = []
    for agent in agents:
        for n in GRID_N:
            for which in GRID_B:
                b = grid_buffer(n, which, 155e6, 1000)
                for seed in seeds:
                    p = {"n": n, "capacity": 155e6, "buffer": b, "agent": agent, "rtt": [20.0, 140.0], "spread": 1.0,
                         "seed": seed, "duration": 40.0, "warmup": 10.0, "segment": 960, "access": 1.55e9}
                    n2, en = one(p)
                    rows.append({"agent": agent, "n": n, "B": b, "which": which, "seed": seed,
                                 "ns2_util": n2["utilization"], "ns2_loss": n2["loss"], "ns2_timeouts": n2["timeouts_total"],
                                 "engine_util": en["utilization"], "engine_loss": en["loss"],
                                 "engine_timeouts": en["timeouts_total"], "verdict": verdict(n2, en)})
                    print(agent, n, b, seed, rows[-1]["verdict"], flush=True)
    _write_csv(out, rows)


#: 004 Fig. 15's cells (n, B) -> the paper's ns-2 utilization (%), as fig_004_15.TABLE has them
FIG15 = {(100, 64): 94.7, (100, 129): 99.3, (100, 258): 99.9, (100, 387): 99.8, (200, 46): 97.0, (200, 91): 99.2,
         (200, 182): 99.8, (200, 273): 100.0, (300, 37): 98.6, (300, 74): 99.3, (300, 148): 99.9, (300, 222): 100.0,
         (400, 32): 99.2, (400, 64): 99.8, (400, 128): 100.0, (400, 192): 100.0}


def fig15(seeds, out: Path) -> None:
    """004 Fig. 15's simulated cells in the reproduction's setting (fig_004_15: OC3, RTT 50-150 ms, starts
    over 5 s, 1 Gb/s access links, 1500-B packets, Reno, 140-s runs measured after 20 s): ns-2.35 itself
    against the engine with the reproduction's stack."""
    rows = []
    for (n, b), paper in FIG15.items():
        for seed in seeds:
            p = {"n": n, "capacity": 155e6, "buffer": b, "agent": "Reno", "rtt": [50.0, 150.0], "spread": 5.0,
                 "seed": seed, "duration": 140.0, "warmup": 20.0, "segment": 1460, "access": 1e9}
            n2, en = one(p, stack="reproduce")
            rows.append({"n": n, "B": b, "seed": seed, "paper_ns2_util": paper / 100, "ns2_util": n2["utilization"],
                         "ns2_loss": n2["loss"], "engine_util": en["utilization"], "engine_loss": en["loss"]})
            print(n, b, seed, flush=True)
    _write_csv(out, rows)


def _grid_table(d) -> tuple[list[str], dict[str, int]]:
    """Rows of the grid table (means over the seeds, judged on the means) and the met count per agent."""
    lines, met = [], {}
    for (agent, n, b), g in d.groupby(["agent", "n", "B"], sort=False):
        m = {k: float(g[k].mean()) for k in ("ns2_util", "ns2_loss", "engine_util", "engine_loss")}
        v = verdict({"utilization": m["ns2_util"], "loss": m["ns2_loss"]},
                    {"utilization": m["engine_util"], "loss": m["engine_loss"]})
        met[agent] = met.get(agent, 0) + (v == "met")
        dl = m["engine_loss"] / m["ns2_loss"] - 1 if m["ns2_loss"] else float("nan")
        lines.append(f"| {agent} | {n} | {b} | {m['ns2_util']:.4f} | {m['engine_util']:.4f} | "
                     f"{(m['engine_util'] - m['ns2_util']) * 100:+.2f} | {m['ns2_loss']:.3%} | {m['engine_loss']:.3%} | "
                     f"{dl:+.0%} | {(g.verdict == 'met').sum()}/{len(g)} | {v} |")
    return lines, met


def report() -> None:
    """results.md from grid.csv and fig15.csv."""
    import pandas as pd

    d = pd.read_csv(HERE / "grid.csv")
    lines, met = _grid_table(d)
    f = pd.read_csv(HERE / "fig15.csv").groupby(["n", "B"], sort=False).mean(numeric_only=True).reset_index()
    f15 = [f"| {int(r.n)} | {int(r.B)} | {r.paper_ns2_util:.1%} | {r.ns2_util:.1%} | {r.engine_util:.1%} | "
           f"{(r.engine_util - r.ns2_util) * 100:+.1f} | {(r.ns2_util - r.paper_ns2_util) * 100:+.1f} | "
           f"{r.ns2_loss:.2%} | {r.engine_loss:.2%} |" for r in f.itertuples()]
    worst = max(abs(f.engine_util - f.ns2_util)) * 100
    gap = max(f.paper_ns2_util - f.ns2_util) * 100
    nr = d[d.agent == "Newreno"].groupby(["n", "B"]).mean(numeric_only=True)
    nr_du = max(abs(nr.engine_util - nr.ns2_util)) * 100
    nr_dl = nr.engine_loss / nr.ns2_loss - 1
    text = (HERE / "results_template.md").read_text()
    text = (text.replace("{GRID}", "\n".join(lines)).replace("{FIG15}", "\n".join(f15))
            .replace("{MET_RENO}", str(met.get("Reno", 0))).replace("{MET_NEWRENO}", str(met.get("Newreno", 0)))
            .replace("{FIG15_WORST}", f"{worst:.1f}").replace("{F15_GAP}", f"{gap:.1f}")
            .replace("{NR_DU}", f"{nr_du:.1f}").replace("{NR_DL}", f"{max(nr_dl):+.0%}")
            .replace("{NR_DL_LO}", f"{min(nr_dl):+.0%}"))
    (HERE / "results.md").write_text(text)


def _write_csv(path: Path, rows: list[dict]) -> None:
    import csv
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["grid"]:
        grid(("Reno", "Newreno"), (1, 2, 3), HERE / "grid.csv")
        return 0
    if argv[:1] == ["fig15"]:
        fig15((1, 2, 3), HERE / "fig15.csv")
        return 0
    if argv[:1] == ["report"]:
        report()
        return 0
    ap = argparse.ArgumentParser()
    ap.add_argument("n", type=int)
    ap.add_argument("capacity", type=float)
    ap.add_argument("buffer", type=int)
    ap.add_argument("--agent", default="Reno", choices=sorted(CC))
    ap.add_argument("--rtt", default="50,150")
    ap.add_argument("--spread", type=float, default=5.0)
    ap.add_argument("--seeds", default="1")
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--warmup", type=float, default=20.0)
    ap.add_argument("--segment", type=int, default=1460)
    ap.add_argument("--access", type=float, default=1e9)
    ap.add_argument("--stack", default="ns2", choices=("ns2", "reproduce"))
    ap.add_argument("--set", action="append", default=[], help="engine TCP detail key=json-value")
    a = ap.parse_args(argv)
    sets = {k: json.loads(v) for k, v in (s.split("=", 1) for s in a.set)}
    lo, hi = (float(x) for x in a.rtt.split(","))
    for seed in (int(s) for s in a.seeds.split(",")):
        p = {"n": a.n, "capacity": a.capacity, "buffer": a.buffer, "agent": a.agent, "rtt": [lo, hi],
             "spread": a.spread, "seed": seed, "duration": a.duration, "warmup": a.warmup, "segment": a.segment,
             "access": a.access}
        n2, eng = one(p, stack=a.stack, sets=sets)
        print(f"seed {seed}: ns-2 util {n2['utilization']:.4f} loss {n2['loss']:.4%} to {n2['timeouts_total']} | "
              f"engine[{a.stack}{' ' + json.dumps(sets) if sets else ''}] util {eng['utilization']:.4f} "
              f"loss {eng['loss']:.4%} to {eng['timeouts_total']}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
