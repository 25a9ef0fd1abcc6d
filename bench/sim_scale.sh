#!/usr/bin/env bash
# Engine scale benchmark: cost per packet as the number of flows grows at the same per-flow
# share (1 Mb/s per flow, RTT 20-140 ms, B = BDP/sqrt(n), NewReno, 1000-byte packets), and the
# backbone link bufsize recommend defaults to. Writes the raw outputs to bench/sim_scale/ and
# prints them, then their summary (bench/sim_scale_summary.py); bench/sim_scale.md quotes a run.
# Usage: bench/sim_scale.sh [--quick] [--reps N] [--baseline DIR]
#   --quick          skip the 10^6-flow and the backbone runs (a few minutes less)
#   --reps N         passes of the 1 000 / 100 000 pair (default 2)
#   --baseline DIR   also run DIR/scale (the example built at an older commit) in each pass,
#                    right after this build's runs: a before/after under the same load
# Runs are interleaved (1 000 / 100 000 / 1 000 / 100 000) so load on the shared machine hits
# both sides alike; the ratios in the .md are taken within one pass. Each pass also runs the
# pair in steady state (the second half of a run twice as long; this build only).
set -euo pipefail
cd "$(dirname "$0")/.."
QUICK=0
REPS=2
BASE=""
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1; shift ;;
    --reps) REPS="$2"; shift 2 ;;
    --baseline) BASE="$2"; shift 2 ;;
    *) echo "sim_scale.sh: error: unknown argument $1" >&2; exit 2 ;;
  esac
done
cargo build -q --release -p bufsize-sim --example scale --example speed
BIN=$(mktemp -d)   # a copy, so a rebuild while this runs changes nothing
trap 'rm -rf "$BIN"' EXIT
cp target/release/examples/scale target/release/examples/speed "$BIN/"
OUT=${SIM_SCALE_OUT:-bench/sim_scale}
rm -f "$OUT"/*.txt   # this pass's runs only: the summary reads every run in the folder
mkdir -p "$OUT"
stamp() { echo "# $(date -u +%FT%TZ) loadavg $(cut -d' ' -f1-3 /proc/loadavg) nproc $(nproc)"; }
run() {  # run NAME ARGS...
  local name=$1; shift
  { stamp; "$@"; stamp; } > "$OUT/$name.txt"
  echo "== $name"; cat "$OUT/$name.txt"
}
[ -n "$BASE" ] && cp "$BASE/scale" "$BIN/scale-base"
for rep in $(seq 1 "$REPS"); do
  run "n1000_rep$rep" "$BIN/scale" 1000 20
  run "n100000_rep$rep" "$BIN/scale" 100000 2
  # The same pair in steady state: the second half of a run twice as long (--warmup), so the
  # 10^5 flows' start-up (all in slow start within 1 s, 17 % loss) is left out of the rate.
  run "ss_n1000_rep$rep" "$BIN/scale" 1000 40 --warmup 20
  run "ss_n100000_rep$rep" "$BIN/scale" 100000 4 --warmup 2
  if [ -n "$BASE" ]; then
    run "base_n1000_rep$rep" "$BIN/scale-base" 1000 20
    run "base_n100000_rep$rep" "$BIN/scale-base" 100000 2
  fi
  # S2 and, in the same process, the raw binary heap (the S2 target is a ratio of the two).
  run "s2_rep$rep" "$BIN/speed" S2
done
if [ "$QUICK" = 0 ]; then
  run n1000000 "$BIN/scale" 1000000 0.2
  # 004's backbone: 10 Gb/s, 250 ms, 50 000 flows; 5 s of start-up + 30 s.
  run backbone "$BIN/scale" 50000 35 10e9 0.25 0.25
fi
# The ratios the targets are about (per pass, median over passes, fastest runs), as Markdown.
python3 bench/sim_scale_summary.py "$OUT"
