"""What SACK loss recovery (RACK-TLP's and the classic one) costs the engine, before and after a
change (bench/rack_cost.md).

    .venv/bin/python bench/rack_cost.py BASELINE_REV [--reps N] [--no-cachegrind]

Builds the engine's `run` example at BASELINE_REV (a temporary worktree) and at the working tree,
runs three links in the linux profile (SACK, PRR and RACK-TLP on every flow) and one in the ns3
profile (SACK with duplicate-ACK detection) through both,
interleaved, and writes bench/rack_cost.md: wall seconds (best of N, single-threaded, under nice),
instructions per bottleneck packet from cachegrind where the baseline finishes in reasonable
time, and whether the two engines' summaries are identical (they must be for a pure speed change).
The scenarios come from `bufsize simulate --show-scenario`, so they are what a user's command
runs. Wall times on this shared 2-core machine are noisy: the load average is printed with them
and the instruction counts are the figure to compare.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUFSIZE = ROOT / ".venv" / "bin" / "bufsize"

# name, what it is, simulate flags, whether cachegrind runs the baseline too
LINKS = [
    ("L1", "100 Mb/s, 30 CUBIC flows, RTT 10-60 ms, 45 packets, 20 s",
     "--capacity 100Mbps --flows 30 --rtt 10ms..60ms --buffer 45 --duration 20s --warmup 0s", True),
    ("L2", "1 Gb/s, 200 flows CUBIC/BBR 70/30, RTT 5-80 ms, 150 packets, 5 s",
     "--capacity 1Gbps --flows 200 --rtt 5ms..80ms --mix cubic=0.7,bbr=0.3 --buffer 150 --duration 5s "
     "--warmup 0s", True),
    ("L3", "10 Gb/s, 2 000 flows CUBIC/BBR 70/30, RTT 5-80 ms, 450 packets, 2 s",
     "--capacity 10Gbps --flows 2000 --rtt 5ms..80ms --mix cubic=0.7,bbr=0.3 --buffer 450 --duration 2s "
     "--warmup 0s", False),
    ("L4", "ns3 profile: 1 Gb/s, 200 CUBIC flows, RTT 5-80 ms, 150 packets, 5 s",
     "--profile ns3 --cc cubic --capacity 1Gbps --flows 200 --rtt 5ms..80ms --buffer 150 --duration 5s "
     "--warmup 0s", True),
]


def build(tree: Path, target: Path) -> Path:
    subprocess.run(["cargo", "build", "-q", "--release", "--offline", "--manifest-path", str(tree / "Cargo.toml"),
                    "-p", "bufsize-sim", "--example", "run"], check=True,
                   env={**os.environ, "CARGO_TARGET_DIR": str(target)})
    return target / "release" / "examples" / "run"


def run(binary: Path, scenario: Path) -> dict:
    out = subprocess.run(["nice", str(binary), str(scenario)], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def instructions(binary: Path, scenario: Path) -> int:
    err = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
                          str(binary), str(scenario)], check=True, capture_output=True, text=True).stderr
    return int(re.search(r"I\s+refs:\s+([\d,]+)", err).group(1).replace(",", ""))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("baseline")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--no-cachegrind", action="store_true")
    a = ap.parse_args()
    rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", a.baseline], capture_output=True,
                         text=True)
    if rev.returncode != 0:
        print(f"rack_cost.py: error: unknown revision {a.baseline}", file=sys.stderr)
        return 2
    base_rev = rev.stdout.strip()
    head_rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True).stdout.strip()
    cachegrind = not a.no_cachegrind and shutil.which("valgrind") is not None
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-q", "--detach", str(work / "base"), base_rev],
                       check=True)
        try:
            bins = {"base": build(work / "base", work / "tgt-base"), "head": build(ROOT, work / "tgt-head")}
            rows = []
            for name, what, flags, cg_base in LINKS:
                sc = work / f"{name}.json"
                text = subprocess.run([str(BUFSIZE), "simulate", *flags.split(), "--show-scenario"], check=True,
                                      capture_output=True, text=True).stdout
                sc.write_text(text)
                walls: dict[str, list[float]] = {"base": [], "head": []}
                summaries = {}
                for _ in range(a.reps):
                    for v in ("base", "head"):
                        r = run(bins[v], sc)
                        walls[v].append(r.pop("wall_seconds"))
                        summaries[v] = r
                load = os.getloadavg()[0]
                ir = {}
                if cachegrind:
                    for v in ("base", "head"):
                        if v == "head" or cg_base:
                            ir[v] = instructions(bins[v], sc) / summaries[v]["bottleneck_packets"]
                rows.append((name, what, min(walls["base"]), min(walls["head"]), ir,
                             summaries["base"] == summaries["head"], summaries["head"], load))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(work / "base")], check=False)
    now = datetime.datetime.now(datetime.timezone.utc)
    lines = [
        "# SACK loss recovery's cost in the engine (`bench/rack_cost.py`)\n",
        f"Generated {now:%Y-%m-%d %H:%M} UTC: baseline {base_rev}, new {head_rev} (with the working tree's changes, "
        f"if any); `{' '.join(['bench/rack_cost.py', a.baseline] + (['--reps', str(a.reps)] if a.reps != 3 else []))}`. "
        "Links as `bufsize simulate` runs them: L1–L3 in the linux profile (CUBIC and BBR with SACK, PRR and "
        "RACK-TLP, delayed ACKs, 1500-B packets, host jitter), L4 in the ns3 profile (SACK recovery with "
        "duplicate-ACK detection), no warm-up. Wall: best of "
        f"{a.reps} runs of each engine, interleaved, single-threaded under nice, on this shared 2-core machine "
        "(load average after each link in the table). Instructions per bottleneck packet: cachegrind, which "
        "load does not move; '—' where the baseline would take too long under cachegrind.\n",
        "| link | setting | utilization | loss | baseline wall s | new wall s | speed-up | baseline instr./pkt | "
        "new instr./pkt | summaries identical | load |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|",
    ]
    for name, what, wb, wh, ir, same, s, load in rows:
        ib = f"{ir['base']:.0f}" if "base" in ir else "—"
        ih = f"{ir['head']:.0f}" if "head" in ir else "—"
        lines.append(f"| {name} | {what} | {s['utilization']:.4f} | {100 * s['loss_rate']:.2f} % | {wb:.2f} | "
                     f"{wh:.2f} | {wb / wh:.1f}× | {ib} | {ih} | {'yes' if same else 'NO'} | {load:.2f} |")
    lines += [
        "",
        "Measured for the change of 2026-11-29 (baseline 5dfc4de): RACK-TLP used to walk the whole scoreboard in "
        "sequence order on every ACK that delivered data and step segment by segment to the next lost one; it now "
        "keeps its transmissions in send order (as Linux's `tsorted_sent_queue`) and the segments to resend in a "
        "bitmap. The classic SACK recovery (L4) skipped each SACKed run one segment at a time on every call; it "
        "now skips it a bitmap word at a time. The lossier the link, the more segments sit SACKed or lost in a "
        "window, and the larger the gain; on a link with few losses (L1) the send-order list costs about 2 % more "
        "instructions per packet. 'Summaries identical' compares every field of the two engines' results but "
        "the wall time; the identity corpus (scripts/engine_identity.sh, 91 scenarios, and the same 91 with RACK "
        "and SACK forced on every flow) was byte-identical too, and debug builds compare the new paths with the "
        "old scans on every call.",
    ]
    (ROOT / "bench" / "rack_cost.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0 if all(r[5] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
