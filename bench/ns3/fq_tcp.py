"""Per-flow arrival structure behind FQ-CoDel, ns-3 against the engine (aqm.md, "Why ns-3's TCP
queues more behind FQ-CoDel").

Reads per-packet traces with one event per line, "K t_ns flow n" (n: segment number; for an ACK
the next segment expected): A arrival at the bottleneck disc, D start of transmission there, S
the sender sends, K an ACK reaches the sender, R/C data reaches / an ACK leaves the receiver, W
and T the sender's cwnd and ssthresh (hundredths of a segment), F its bytes in flight (ns-3 only).
ns-3's come from `aqm.cc --pkttrace`, the engine's from a scratch build with
fq_tcp_trace_engine.diff (env TRACE=file; the engine's traces cover the whole run, ns-3's the
window). For each flow it prints:

- gaps > 3 ms between arrivals at the bottleneck: how many, the fraction of time they cover;
- its sojourn (A to D);
- in the recoveries (ssthresh changes): segments sent per ACK in the first 10 ms and in 10-40 ms
  after the reduction (RFC 6937's PRR: about 1/2 throughout; ns-3 3.37: none after ~20 ACKs).

    nice .venv/bin/python bench/ns3/fq_tcp.py run SEED OUT     # ns-3 run with --pkttrace -> OUT
    .venv/bin/python bench/ns3/fq_tcp.py show TRACE [TRACE...]  # the per-flow summary
"""
from __future__ import annotations

import bisect
import collections
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import aqm  # noqa: E402

WINDOW = (aqm.WARMUP_S * 1e9, aqm.DURATION_S * 1e9)
GAP_NS = 3e6


def load(path: str) -> dict[int, list[tuple[int, str, int]]]:
    ev: dict[int, list[tuple[int, str, int]]] = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            k, t, fl, n = line.split()
            ti = int(t)
            if WINDOW[0] <= ti < WINDOW[1] and int(fl) < 1000:
                ev[int(fl)].append((ti, k, int(n)))
    return ev


def flow_summary(e: list[tuple[int, str, int]]) -> str:
    arr = [t for t, k, _ in e if k == "A"]
    gaps = [b - a for a, b in zip(arr, arr[1:]) if b - a > GAP_NS]
    span = (arr[-1] - arr[0]) if len(arr) > 1 else 1
    pend: dict[int, int] = {}
    soj = []
    for t, k, n in e:
        if k == "A":
            pend[n] = t
        elif k == "D" and n in pend:
            soj.append(t - pend.pop(n))
    # reductions: ssthresh changes; then sends per ACK in [0, 10) and [10, 40) ms after
    red, ss = [], None
    for t, k, n in e:
        if k == "T":
            if ss is not None and abs(n - ss) > 50 and n < 1e9:
                red.append(t)
            ss = n
    ks = [t for t, k, _ in e if k == "K"]
    st = [t for t, k, _ in e if k == "S"]

    def count(xs: list[int], lo: float, hi: float) -> int:
        return bisect.bisect_left(xs, hi) - bisect.bisect_left(xs, lo)
    per = []
    for lo_ms, hi_ms in ((0, 10), (10, 40)):
        a = sum(count(ks, r + lo_ms * 1e6, r + hi_ms * 1e6) for r in red)
        s = sum(count(st, r + lo_ms * 1e6, r + hi_ms * 1e6) for r in red)
        per.append(f"{s / a:.2f}" if a else "-")
    return (f"{len(gaps):5d} gaps > 3 ms ({sum(gaps) / span:.3f} of the time, mean {sum(gaps) / max(1, len(gaps)) / 1e6:.1f} ms), "
            f"sojourn {sum(soj) / max(1, len(soj)) / 1e6:.3f} ms, {len(red)} reductions, "
            f"sends per ACK after one: {per[0]} (0-10 ms), {per[1]} (10-40 ms)")


def show(paths: list[str]) -> None:
    for p in paths:
        print(p)
        ev = load(p)
        for fl in sorted(ev):
            print(f"  flow {fl}: " + flow_summary(ev[fl]))


def main() -> int:
    if len(sys.argv) >= 4 and sys.argv[1] == "run":
        aqm.build_ns3()
        res = aqm.run_ns3("fq_codel", 4, int(sys.argv[2]), (f"--pkttrace={sys.argv[3]}",))
        print(f"ns-3 fq_codel n=4 seed {sys.argv[2]}: sojourn {res['sojourn_mean_s'] * 1e3:.3f} ms -> {sys.argv[3]}")
        return 0
    if len(sys.argv) >= 3 and sys.argv[1] == "show":
        show(sys.argv[2:])
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
