#!/usr/bin/env python3
"""Summarize a bench/sim_scale.sh pass: the per-packet ratios the engine-scale targets are about.

Reads the raw outputs that bench/sim_scale.sh writes (bench/sim_scale/*.txt, or the folder
given) and prints Markdown: every run, the 10^5/10^3 per-packet ratio within each pass (the
two runs of a pass ran back to back, so load hits both alike), the median over passes, and the
ratio of the fastest runs (the least disturbed on a shared machine); S2 against the binary heap
in the same process, per heap operation and per pop+push pair.

Usage: python3 bench/sim_scale_summary.py [DIR]
"""
import re
import statistics
import sys
from pathlib import Path


def read(path):
    """The key/value lines of one run (first value of each key), and the load averages."""
    vals, loads = {}, []
    for line in path.read_text().splitlines():
        if line.startswith("#"):
            m = re.search(r"loadavg (\S+)", line)
            if m:
                loads.append(float(m.group(1)))
            continue
        parts = line.split()
        for k, v in zip(parts[0::2], parts[1::2]):
            try:
                vals.setdefault(k, float(v))
            except ValueError:
                pass
    vals["load"] = max(loads) if loads else float("nan")
    return vals


def runs(d, prefix):
    """{pass number: values} for files PREFIX_repN.txt."""
    out = {}
    for p in d.glob(f"{prefix}_rep*.txt"):
        n = int(re.search(r"_rep(\d+)\.txt$", p.name).group(1))
        out[n] = read(p)
    return dict(sorted(out.items()))


def ratio_rows(small, large, label):
    rows, ratios = [], []
    for n in sorted(set(small) & set(large)):
        a, b = small[n]["pkts_per_cpu_s"], large[n]["pkts_per_cpu_s"]
        ratios.append(b / a)
        rows.append(f"| {label} | {n} | {a / 1e6:.2f} M | {b / 1e6:.2f} M | {b / a:.3f} |")
    return rows, ratios


def main():
    d = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).parent / "sim_scale")
    if not d.is_dir():
        print(f"sim_scale_summary: error: no such folder {d}", file=sys.stderr)
        sys.exit(2)
    pairs = [
        ("this build, 2 s", "n1000", "n100000"),
        ("this build, steady state", "ss_n1000", "ss_n100000"),
        ("baseline build, 2 s", "base_n1000", "base_n100000"),
    ]
    print("| case | pass | 10³ flows, pkts / CPU-s | 10⁵ flows, pkts / CPU-s | ratio |")
    print("|---|---:|---:|---:|---:|")
    summary = []
    for label, s, l in pairs:
        small, large = runs(d, s), runs(d, l)
        if not small or not large:
            continue
        rows, ratios = ratio_rows(small, large, label)
        print("\n".join(rows))
        best = max(v["pkts_per_cpu_s"] for v in large.values()) / max(
            v["pkts_per_cpu_s"] for v in small.values()
        )
        peak = max(v["peak_rss_mib"] for v in large.values())
        summary.append((label, ratios, best, peak))
    print()
    print("| case | passes | median ratio | range | fastest 10⁵ / fastest 10³ | 10⁵ peak RSS MiB |")
    print("|---|---:|---:|---|---:|---:|")
    for label, ratios, best, peak in summary:
        print(
            f"| {label} | {len(ratios)} | **{statistics.median(ratios):.3f}** | "
            f"{min(ratios):.3f}–{max(ratios):.3f} | {best:.3f} | {peak:.1f} |"
        )
    s2 = list(runs(d, "s2").values())
    if (d / "s2.txt").exists():
        s2.append(read(d / "s2.txt"))
    if s2:
        per_op = [v["bottleneck_pkts_per_cpu_s"] / v["calendar_heap_ops_per_cpu_s"] for v in s2]
        print()
        print("| S2 run | pkts / CPU-s | heap push or pop / CPU-s | per operation | per pop+push pair |")
        print("|---:|---:|---:|---:|---:|")
        for i, (v, r) in enumerate(zip(s2, per_op), 1):
            print(
                f"| {i} | {v['bottleneck_pkts_per_cpu_s'] / 1e6:.2f} M | "
                f"{v['calendar_heap_ops_per_cpu_s'] / 1e6:.1f} M | {r:.3f} | {2 * r:.3f} |"
            )
        print(
            f"| median | | | **{statistics.median(per_op):.3f}** | "
            f"**{2 * statistics.median(per_op):.3f}** |"
        )
    for name in ("n1000000", "backbone"):
        p = d / f"{name}.txt"
        if p.exists():
            v = read(p)
            print(
                f"\n{name}: simulated {v['simulated_s']:g} s in {v['wall_s']:.1f} s wall "
                f"({v['cpu_s']:.1f} s CPU), {v['bottleneck_packets']:.0f} bottleneck packets, "
                f"{v['pkts_per_cpu_s'] / 1e6:.2f} M per CPU-second, peak {v['peak_rss_mib']:.1f} MiB"
            )


if __name__ == "__main__":
    main()
