"""Parallel efficiency of one verification: the same links verified with 1 and with N workers.

    .venv/bin/python bench/recommend_parallel.py OUT.json [--workers 2] [--reps 2]

Each link is verified with the local process pool at 1 worker and at N, alternating (1, N, 1, N ...)
so the machine's load falls on both alike, with the run cache off and without the FQ-CoDel line.
Efficiency = wall(1 worker) / (N × wall(N workers)), from the best wall time of each. The verified
size and run count must be the same at both (the search does not depend on the pool). Results go to
OUT.json and a table on stdout (bench/recommend_speed.md).
"""
import argparse
import json
import os
import sys
import time

from bufsize.recommendation import recommend
from bufsize.recommendation import verification as V
from recommend_speed import BBR_LINKS

# two BBR links of recommend_speed.py (this folder), and the demo
LINKS = {k: BBR_LINKS[k] for k in ("1G-200-cubic-bbr", "500M-100-reno-bbr")} | {"demo": dict()}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--reps", type=int, default=2)
    a = ap.parse_args(argv)
    out: dict = {}
    for name, kw in LINKS.items():
        rec = recommend(**kw)
        rows: dict[int, list] = {1: [], a.workers: []}
        for _ in range(a.reps):
            for w in (1, a.workers):
                t = time.perf_counter()
                v = V.verify_recommendation(rec, runner=V.Runner(workers=w, cache=False), beside=False)
                rows[w].append(dict(size=v.buffer_packets, runs=v.runs, wall=time.perf_counter() - t,
                                    cpu=v.cpu_seconds, load=os.getloadavg()[0]))
                print(name, w, rows[w][-1], flush=True)
        sizes = {r["size"] for rs in rows.values() for r in rs}
        w1 = min(r["wall"] for r in rows[1])
        wn = min(r["wall"] for r in rows[a.workers])
        out[name] = dict(rows={str(k): v for k, v in rows.items()}, sizes=sorted(sizes),
                         efficiency=w1 / (a.workers * wn))
    json.dump(out, open(a.out, "w"), indent=1)
    print(f"| link | verified size | runs | wall, 1 worker (best of {a.reps}) | wall, {a.workers} workers | "
          f"efficiency | load |")
    print("|---|---|---|---|---|---|---|")
    for name, o in out.items():
        r1, rn = o["rows"]["1"], o["rows"][str(a.workers)]
        loads = [r["load"] for r in r1 + rn]
        print(f"| {name} | {', '.join(map(str, o['sizes']))} | {r1[0]['runs']} | {min(r['wall'] for r in r1):.1f} s | "
              f"{min(r['wall'] for r in rn):.1f} s | {100 * o['efficiency']:.0f} % | {min(loads):.1f}–{max(loads):.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
