"""Wall time of ``bufsize recommend`` end to end, interpreter start included (target < 1 s).

Runs the installed CLI as a fresh process N times for a few inputs and writes
``bench/recommend.md`` with the median and the worst run. Usage: ``python bench/recommend_bench.py [N]``.
"""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

HERE = Path(__file__).resolve().parent
BUFSIZE = Path(sys.executable).with_name("bufsize")

CASES = {
    "default (10 Gb/s, 50 000 flows)": ["recommend"],
    "OC3, 400 flows, --json": ["recommend", "--capacity", "155Mbps", "--rtt", "20ms..140ms", "--flows", "400", "--json"],
    "622 Mb/s mix, loss and delay goals": ["recommend", "--capacity", "622Mbps", "--rtt", "90ms", "--flows", "198",
                                            "--mix", "reno=42,bic=51,cubic1=30,cubic2=41,ctcp=34",
                                            "--max-loss", "0.01", "--max-delay", "2ms"],
    "Γ = 0.1, optimize for S flows": ["recommend", "--capacity", "50Mbps", "--gamma", "0.1", "--rtt", "60ms",
                                       "--flows", "100", "--optimize-for", "S"],
}


def time_case(args: list[str], n: int) -> list[float]:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run([str(BUFSIZE), *args], check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - t0)
    return times


def main() -> int:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    rows = []
    for name, args in CASES.items():
        time_case(args, 1)  # warm the file cache
        t = time_case(args, n)
        rows.append((name, statistics.median(t), max(t)))
        print(f"{name:40s} median {statistics.median(t):.3f} s  max {max(t):.3f} s")
    py = subprocess.run([sys.executable, "-c", "pass"], capture_output=True)
    t0 = time.perf_counter()
    for _ in range(n):
        subprocess.run([sys.executable, "-c", "pass"], check=True)
    bare = (time.perf_counter() - t0) / n
    lines = [
        "# `bufsize recommend` wall time (end to end, interpreter start included)",
        "",
        f"Measured {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC on {platform.node()} "
        f"({os.cpu_count()} cores, Python {platform.python_version()}), {n} runs per case, by "
        "`python bench/recommend_bench.py`. Target: < 1 s. The machine is a shared 2-core VM; "
        f"a bare `python -c pass` took {bare:.3f} s in the same run.",
        "",
        "| case | median (s) | worst (s) | < 1 s |",
        "|---|---|---|---|",
    ]
    for name, med, worst in rows:
        lines.append(f"| {name} | {med:.3f} | {worst:.3f} | {'yes' if worst < 1.0 else 'NO'} |")
    (HERE / "recommend.md").write_text("\n".join(lines) + "\n")
    print(f"wrote {HERE / 'recommend.md'}")
    return 0 if all(w < 1.0 for _, _, w in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
