#!/usr/bin/env bash
# What BBR costs and whether the loss-based controls got slower: instructions executed
# (cachegrind, a count that machine load does not move) for 2 simulated seconds of S2 (1 Gb/s,
# 1000 flows) with NewReno + SACK and with CUBIC (no SACK), at REV and at the working tree; and
# the speed example's S5 (1 Gb/s, 100 BBR flows, 20 s) at the working tree.
# Usage: bench/bbr_speed.sh REV        (e.g. the commit before BBR: e367ff1). Writes bench/bbr_speed.md.
set -euo pipefail
cd "$(dirname "$0")/.."
REV="${1:?usage: bench/bbr_speed.sh REV}"
BASE=$(git rev-parse --short "$REV") || { echo "bbr_speed.sh: error: unknown revision $REV" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "bbr_speed.sh: error: valgrind is needed (apt-get install valgrind)" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/base" && git archive "$BASE" | tar -x -C "$WORK/base"
CARGO_TARGET_DIR="$WORK/tgt-base" nice cargo build -q --release --manifest-path "$WORK/base/Cargo.toml" -p bufsize-sim --example run
nice cargo build -q --release -p bufsize-sim --example run --example speed
cp "$WORK/tgt-base/release/examples/run" "$WORK/run-base"; cp target/release/examples/run "$WORK/run-head"
S2='"capacity_bps": 1e9, "flows": 1000, "rtt_s": {"uniform": [0.02, 0.14]}, "buffer": {"limit_packets": 316}'
echo "{\"duration_s\": 2, \"warmup_s\": 0, \"dumbbell\": {$S2, \"tcp\": {\"sack\": true}}}" > "$WORK/newreno-sack.json"
echo "{\"duration_s\": 2, \"warmup_s\": 0, \"dumbbell\": {$S2, \"tcp\": {\"cc\": \"cubic\"}}}" > "$WORK/cubic.json"
for s in newreno-sack cubic; do
  for v in base head; do
    n=$(nice valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null "$WORK/run-$v" "$WORK/$s.json" 2>&1 >/dev/null \
        | awk '/I +refs/{gsub(",","",$4); print $4}')
    echo "$s $v $n" >> "$WORK/instr.txt"
  done
done
nice target/release/examples/speed S5 > "$WORK/s5.txt"
python3 - "$WORK" "$BASE" "$(git rev-parse --short HEAD)" <<'PY'
import os, sys, time
work, base, head = sys.argv[1:4]
n = {}
for line in open(os.path.join(work, "instr.txt")):
    s, v, c = line.split()
    n[(s, v)] = int(c)
s5 = dict(l.strip().split(" ", 1) for l in open(os.path.join(work, "s5.txt")) if " " in l.strip())
L = ["# BBR in the engine: cost and speed (`bench/bbr_speed.sh`)\n",
     f"Generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: base {base}, head {head} (working tree), "
     f"shared 2-vCPU VM (load average {os.getloadavg()[0]:.1f}).\n",
     "Instructions executed (cachegrind) for 2 simulated seconds of S2 (1 Gb/s, 1000 flows, RTTs 20–140 ms, "
     "B = 316 packets):\n",
     "| control | base | head | change |", "|---|---:|---:|---:|"]
for s in ("newreno-sack", "cubic"):
    b, h = n[(s, "base")], n[(s, "head")]
    L.append(f"| {s} | {b:,} | {h:,} | {h / b - 1:+.2%} |")
L.append("")
L.append(f"S5 (1 Gb/s, 100 BBR flows, SACK, IW 10, B = BDP/√100 = 1000 packets, 20 s, head): wall "
         f"{float(s5['wall_seconds']):.2f} s, CPU {float(s5['cpu_seconds']):.2f} s, "
         f"{int(s5['bottleneck_packets']):,} bottleneck packets, "
         f"{float(s5['bottleneck_pkts_per_cpu_s']) / 1e6:.2f} M per CPU-second; {s5['utilization']}.")
open("bench/bbr_speed.md", "w").write("\n".join(L) + "\n")
print("\n".join(L))
PY
