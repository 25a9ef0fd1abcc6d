"""The verified answer's per-model verdicts against a brute-force sweep.

Run: .venv/bin/python bench/recommend_verdicts.py   (writes bench/recommend_verdicts.md)

For each link of tests/recommend/test_verified_links.py: the verified answer (seeds 1–3, more where
unclear) and, independently, a sweep of the same scenario over a log-spaced grid of buffers plus
every model's size, on other seeds (101–103). The sweep's verdict for a model's size: *safe* when
the mean over the sweep's seeds meets every goal there, *unsafe* when it misses one, *wasteful*
when safe and at least twice the sweep's own need (the smallest swept size from which every larger
one meets the goals).
"""

from __future__ import annotations

import datetime
import math
import subprocess
from pathlib import Path

import numpy as np

from bufsize.recommendation import verification as V
from bufsize.recommendation import recommend

LINKS = {
    "1 Gb/s, 300 flows, 50 ms, Γ = 5, goal 0.99": dict(capacity="1Gbps", flows=300, rtt="50ms",
                                                      input_capacity="200Mbps", target_utilization=0.99),
    "200 Mb/s, 40 flows, 20–80 ms, goal 0.98": dict(capacity="200Mbps", flows=40, rtt="20ms..80ms",
                                                   target_utilization=0.98),
    "500 Mb/s, 30 CUBIC flows, 35–45 ms, goal 0.99": dict(capacity="500Mbps", flows=30, rtt="35ms..45ms",
                                                         mix="cubic=1", target_utilization=0.99),
    "155 Mb/s, 400 flows ½ Reno ½ CUBIC, 1000 B, ≤ 3 ms, goal 0.99": dict(
        capacity="155Mbps", rtt="20ms..140ms", flows=400, packet_size="1000B", mix="reno=0.5,cubic=0.5",
        max_delay="3ms", target_utilization=0.99),
}
SEEDS = (101, 102, 103)


def main() -> None:
    out = []
    runner = V.Runner()
    try:
        for name, kw in LINKS.items():
            kw.setdefault("packet_size", "1500B")
            rec = recommend(**kw, verify=True, workers=None)
            ver = rec.verified
            inp = rec.input
            top = ver.search_range[1]
            grid = {int(round(x)) for x in np.geomspace(4, top, 10)}
            models = {m.id: V._whole(m.buffer_packets) for m in rec.models
                      if m.buffer_packets is not None and math.isfinite(m.buffer_packets) and m.buffer_packets >= 0}
            sizes = sorted(grid | {b for b in models.values() if b <= top} | {ver.buffer_packets})
            scs = [V.build_scenario(inp, b, seed=s, warmup_s=ver.run.warmup_s, duration_s=ver.run.duration_s)
                   for b in sizes for s in SEEDS]
            res = runner.map(scs)
            k = len(SEEDS)
            judged = {}
            for i, b in enumerate(sizes):
                runs = [dict(r["summary"], seed=s) for r, s in zip(res[i * k:(i + 1) * k], SEEDS)]
                judged[b] = V.judge(V.SizeResult(b, runs), ver.goals, capacity_pps=inp.capacity_pps)
            meets = [b for b in sizes if not judged[b].misses()]
            need = next((b for b in sizes if all(not judged[x].misses() for x in sizes if x >= b)), None)
            rows = []
            for mid, b in models.items():
                v = ver.verdicts[mid]["verdict"]
                if b in judged:
                    miss = judged[b].misses()
                    u = judged[b].mean("utilization")
                else:   # above the sweep's range: every larger size met, and the delay rule is exact
                    miss = ["delay"] if ver.goals.max_delay_s and b > ver.goals.max_delay_s * inp.capacity_pps else []
                    u = math.nan
                bv = "unsafe" if miss else ("wasteful" if need is not None and b >= 2 * need else "safe")
                rows.append((mid, b, v, bv, u, ", ".join(miss), judged.get(b).verdict if b in judged else "—"))
            out.append((name, ver, need, rows, len(sizes)))
            print(name, ver.buffer_packets, need, [(r[0], r[2], r[3]) for r in rows], flush=True)
    finally:
        runner.close()
    rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    lines = ["# Verdicts of the verified answer against a brute-force sweep (`bench/recommend_verdicts.py`)", "",
             f"Generated {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC at commit {rev} on the "
             "2-vCPU development VM. Command: `.venv/bin/python bench/recommend_verdicts.py`.", "",
             "The verdicts come from the verified answer's search (seeds 1–3, 4–6 where unclear); the sweep runs",
             "the same scenario and run length over 10 log-spaced buffers, every model's size and the verified",
             "size, on seeds 101–103. 'sweep's t-test' is the one-sided 95 % verdict of the sweep's seeds at that",
             "size (unclear: within their noise of a goal).", ""]
    agree = total = 0
    for name, ver, need, rows, n in out:
        lines += [f"## {name}", "",
                  f"Verified size {ver.buffer_packets}; the sweep's need (smallest swept size from which all larger "
                  f"meet the goals) {need}; {n} sizes swept.", "",
                  "| model | size (pkts) | verdict (search) | verdict (sweep) | sweep utilization | sweep misses | sweep's t-test |",
                  "|---|---:|---|---|---:|---|---|"]
        for mid, b, v, bv, u, miss, t in rows:
            total += 1
            agree += v == bv
            lines.append(f"| {mid} | {b:,} | {v} | {bv}{'' if v == bv else ' (differs)'} | "
                         f"{'—' if not math.isfinite(u) else f'{u:.4f}'} | {miss or '—'} | {t} |")
        lines.append("")
    lines.append(f"Agreement: {agree} of {total} model rows.")
    Path(__file__).with_suffix(".md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
