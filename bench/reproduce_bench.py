"""Time `bufsize reproduce all --quick` and record per-figure wall times in bench/reproduce.md.

Usage: python bench/reproduce_bench.py [--out docs/reproduction] [--workers 2]
The output folder becomes the committed report (docs/reproduction/REPORT.md by default); the issue's
target is the whole quick set within 20 minutes on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="docs/reproduction")
    ap.add_argument("--workers", default="2")
    ap.add_argument("--record", default="bench/reproduce.md")
    ap.add_argument("--testbed", default="auto", help="passed to bufsize reproduce (auto|kernel|off)")
    args = ap.parse_args()
    t0 = time.perf_counter()
    rc = subprocess.call([sys.executable, "-m", "bufsize", "reproduce", "all", "--quick", "--out", args.out,
                          "--workers", args.workers, "--testbed", args.testbed])
    wall = time.perf_counter() - t0
    if rc != 0:
        return rc
    from bufsize.reproduce._kernel import skip_reason
    from bufsize.reproduce._core import Context

    kernel = skip_reason(Context(testbed=args.testbed))
    rows = []
    for meta in sorted(Path(args.out).glob("*/meta.json")):
        m = json.loads(meta.read_text())
        rows.append(m)
    lines = ["# `bufsize reproduce all --quick` timing", "",
             f"Machine: {platform.machine()}, {os.cpu_count()} cores (shared with other work while measured); "
             f"`--workers {args.workers}`, `--testbed {args.testbed}` (kernel testbed "
             f"{'usable' if kernel is None else 'not used: ' + kernel}). Total wall time: **{wall:.0f} s** "
             f"(target: 20 min).", "",
             "| figure | kind | wall s | checks passed |", "|---|---|---|---|"]
    for m in rows:
        lines.append(f"| {m['id']} | {m['kind']} | {m['wall_seconds']:.1f} | {m['checks_passed']}/{m['checks_total']} |")
    Path(args.record).write_text("\n".join(lines) + "\n")
    print(f"total {wall:.0f} s; recorded in {args.record}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
