"""Does a scaled-down scenario stand in for the full-size one? (recommend's verified answer)

Run: .venv/bin/python bench/recommend_scaling.py   (writes bench/recommend_scaling.md)

Scaling by k divides the capacity and the number of flows by k (each flow keeps its rate, window,
RTT and packet size) and the buffer by √k (004's B√n/BDP held fixed). The verified answer may use
a scaled scenario only if, on three settings, the scaled runs' utilization is within 0.5 point and
their loss within 25 % of the full-size runs' (same seeds, means over 3 seeds). This script
measures exactly that, with the verified answer's own scenario builder and run lengths.
"""

from __future__ import annotations

import datetime
import math
import subprocess
import time
from pathlib import Path

from bufsize.recommendation import verification as V
from bufsize.recommendation import recommend

SETTINGS = [
    ("1 Gb/s, 1000 flows, 100 ms", dict(capacity=1e9, flows=1000, rtt="100ms"), 10),
    ("1 Gb/s, 500 flows, 20–140 ms", dict(capacity=1e9, flows=500, rtt="20ms..140ms"), 10),
    ("2.5 Gb/s, 5000 flows, 250 ms (the backbone's 4-packet windows)", dict(capacity=2.5e9, flows=5000, rtt="250ms"), 25),
]
SEEDS = (1, 2, 3)


def _runs(rec, buffer, runner, run):
    out = runner.map([V.build_scenario(rec.input, buffer, seed=s, warmup_s=run.warmup_s, duration_s=run.duration_s)
                      for s in SEEDS])
    u = [r["summary"]["utilization"] for r in out]
    l = [r["summary"]["loss_rate"] for r in out]
    return sum(u) / len(u), sum(l) / len(l)


def main() -> None:
    rows = []
    runner = V.Runner()
    try:
        for name, kw, k in SETTINGS:
            full = recommend(capacity=f"{kw['capacity']:.12g}bps", flows=kw["flows"], rtt=kw["rtt"], packet_size="1500B",
                             target_utilization=0.99)
            small = recommend(capacity=f"{kw['capacity'] / k:.12g}bps", flows=kw["flows"] // k, rtt=kw["rtt"],
                              packet_size="1500B", target_utilization=0.99)
            bdp, n = full.input.bdp_packets, full.input.flows
            for frac in (0.5, 1.0):
                b_full = max(1, int(round(frac * bdp / math.sqrt(n))))
                b_small = max(1, int(round(b_full / math.sqrt(k))))
                run = V.run_length(full.input, b_full)
                t0 = time.perf_counter()
                uf, lf = _runs(full, b_full, runner, run)
                t_full = time.perf_counter() - t0
                t0 = time.perf_counter()
                us, ls = _runs(small, b_small, runner, run)
                t_small = time.perf_counter() - t0
                ok = abs(us - uf) <= 0.005 and abs(ls - lf) <= 0.25 * lf
                rows.append((name, k, frac, b_full, b_small, uf, us, lf, ls, t_full, t_small, ok))
                print(rows[-1], flush=True)
    finally:
        runner.close()
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    held = all(r[-1] for r in rows)
    lines = [
        "# Scaled scenarios for the verified answer (`bench/recommend_scaling.py`)",
        "",
        f"Generated {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC at commit {rev}, on the "
        "2-vCPU development VM shared with other sessions. Command: `.venv/bin/python bench/recommend_scaling.py`.",
        "",
        "Scaling by k: capacity and flows ÷ k (per-flow rate, window, RTT kept), buffer ÷ √k. Same run lengths",
        "(the full-size scenario's) and seeds 1–3 at both scales; NewReno+SACK+PRR, 1500-B packets.",
        "Criterion (issue 22): utilization within 0.5 point and loss within 25 % of the full-size run.",
        "",
        "| setting | k | B (full) | B (scaled) | utilization full | scaled | loss full | scaled | wall full s | scaled s | within |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, k, frac, bf, bs, uf, us, lf, ls, tf, ts, ok in rows:
        lines.append(f"| {name}, B = {frac:g}·BDP/√n | {k} | {bf:,} | {bs:,} | {uf:.4f} | {us:.4f} | {lf * 100:.3g} % | "
                     f"{ls * 100:.3g} % | {tf:.0f} | {ts:.0f} | {'yes' if ok else 'no'} |")
    lines += ["", ("Result: the criterion held in every row." if held else
                   "Result: the criterion did not hold in every row, so the verified answer does not use scaling: "
                   "links whose verification costs more than the interactive budget are verified at full size "
                   "on request (--verify, --workers, --scheduler), or left to the models with the cost stated.")]
    Path(__file__).with_suffix(".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
