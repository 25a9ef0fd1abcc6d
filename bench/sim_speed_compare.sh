#!/usr/bin/env bash
# Did the engine get slower? Builds the speed example at REV (default: the parent of the first
# commit of this change, given as an argument) and at the working tree, runs S1 and S2 of both
# interleaved (so load on a shared machine hits both alike), and writes
# bench/sim_speed_compare.md with wall-time ratios (best and median of N runs) and, when valgrind
# is installed, the instructions executed on a 4-s S2 with SACK (a count that load does not move).
# Usage: bench/sim_speed_compare.sh REV [--reps N]
set -euo pipefail
cd "$(dirname "$0")/.."
REV="${1:?usage: bench/sim_speed_compare.sh REV [--reps N]}"
REPS=9
[ "${2:-}" = "--reps" ] && REPS="$3"
BASE=$(git rev-parse --short "$REV") || { echo "sim_speed_compare.sh: error: unknown revision $REV" >&2; exit 2; }
WORK=$(mktemp -d)
trap 'git worktree remove --force "$WORK/base" >/dev/null 2>&1 || true; rm -rf "$WORK"' EXIT
git worktree add -q --detach "$WORK/base" "$BASE"
CARGO_TARGET_DIR="$WORK/tgt-base" cargo build -q --release --manifest-path "$WORK/base/Cargo.toml" -p bufsize-sim --example speed --example run
CARGO_TARGET_DIR="$WORK/tgt-head" cargo build -q --release -p bufsize-sim --example speed --example run
for r in $(seq 1 "$REPS"); do
  for s in S1 S2; do
    for v in base head; do
      w=$(nice "$WORK/tgt-$v/release/examples/speed" "$s" | awk '/^wall_seconds/{print $2}')
      echo "$s $v $w" >> "$WORK/times.txt"
    done
  done
done
echo '{"duration_s": 4, "warmup_s": 0, "dumbbell": {"capacity_bps": 1e9, "flows": 1000, "rtt_s": {"uniform": [0.02, 0.14]}, "buffer": {"limit_packets": 316}, "tcp": {"sack": true}}}' > "$WORK/s2s.json"
for v in base head; do
  if command -v valgrind >/dev/null; then
    valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
      "$WORK/tgt-$v/release/examples/run" "$WORK/s2s.json" 2>&1 >/dev/null | awk -v v="$v" '/I +refs/{gsub(",","",$4); print v, $4}' >> "$WORK/instr.txt"
  fi
done
python3 - "$WORK" "$BASE" "$(git rev-parse --short HEAD)" <<'PY'
import collections, statistics as st, sys, time, os
work, base, head = sys.argv[1:4]
d = collections.defaultdict(list)
for line in open(os.path.join(work, "times.txt")):
    s, v, w = line.split()
    d[(s, v)].append(float(w))
L = ["# Engine speed before and after a change (`bench/sim_speed_compare.sh`)\n",
     f"Generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: base {base}, head {head} (working tree); "
     f"{len(d[('S1', 'base')])} interleaved runs of each, under `nice`, on a shared 2-vCPU VM "
     f"(load average {os.getloadavg()[0]:.1f} at the end). Ratio = head / base wall time.\n",
     "| scenario | base best / median s | head best / median s | ratio best | ratio median |", "|---|---:|---:|---:|---:|"]
for s in ("S1", "S2"):
    b, h = d[(s, "base")], d[(s, "head")]
    L.append(f"| {s} | {min(b):.3f} / {st.median(b):.3f} | {min(h):.3f} / {st.median(h):.3f} | "
             f"{min(h) / min(b):.3f} | {st.median(h) / st.median(b):.3f} |")
ip = os.path.join(work, "instr.txt")
if os.path.exists(ip):
    n = dict(line.split() for line in open(ip))
    if "base" in n and "head" in n:
        L.append(f"\nInstructions executed (cachegrind) on S2 with SACK, 4 s: base {int(n['base']):,}, head "
                 f"{int(n['head']):,} ({int(n['head']) / int(n['base']) - 1:+.1%}).")
open("bench/sim_speed_compare.md", "w").write("\n".join(L) + "\n")
print("\n".join(L))
PY
