"""How many runs and simulated seconds each verdict of a verification needed: every size the search
evaluated on the six links of bench/recommend_speed.py, by its verdict (meets / fails / unclear) and
the seeds it took, with the runs' measured windows (runs stopping once settled).

    .venv/bin/python bench/recommend_verdict_cost.py      # prints a markdown table
"""
import collections
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))
from recommend_speed import LINKS  # noqa: E402

from bufsize.recommendation import recommend  # noqa: E402
from bufsize.recommendation import verification as V  # noqa: E402

by = collections.defaultdict(lambda: [0, 0, 0.0, 0])   # (verdict, seeds) -> sizes, runs, simulated s, settled
for name, kw in LINKS.items():
    v = V.verify_recommendation(recommend(**kw), runner=V.Runner(cache=False), beside=False)
    warm = v.run.warmup_s
    for b, r in v.sizes.items():
        key = (r.verdict, len(r.runs))
        row = by[key]
        row[0] += 1
        row[1] += len(r.runs)
        row[2] += sum(warm + float(x.get("measured_s") or 0.0) for x in r.runs)
        row[3] += sum(x.get("stopped") == "settled" for x in r.runs)
    print(name, v.buffer_packets, v.runs, file=sys.stderr, flush=True)
print(f"load {os.getloadavg()[0]:.2f}")
print("| verdict | seeds | sizes | runs | stopped once settled | simulated s per size |")
print("|---|---|---|---|---|---|")
for (verdict, seeds), (n, runs, sim, settled) in sorted(by.items()):
    print(f"| {verdict} | {seeds} | {n} | {runs} | {settled} | {sim / n:.0f} |")
