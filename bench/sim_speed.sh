#!/usr/bin/env bash
# Engine speed benchmark (issue "The packet-level simulator"): runs S1, S2, S3 with the
# engine's timing-wheel calendar, S1 and S2 again with the binary-heap calendar, and writes
# bench/sim_speed.md. Usage: bench/sim_speed.sh [--reps N] [--no-s3] [--with-ns3]
#   --reps N     repetitions of S1 and S2 per calendar (default 3; the best run is reported,
#                the machine is shared and noisy)
#   --with-ns3   also run ns-3's S1 through bench/ns3/compare.py --speed (about 4 minutes)
# Everything runs under `nice`. Targets: S2 >= 2 M bottleneck packets per wall-second on one
# core; S3 under 5 minutes and under 1 GiB.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=3
S3=1
NS3=0
while [ $# -gt 0 ]; do
  case "$1" in
    --reps) REPS="$2"; shift 2 ;;
    --no-s3) S3=0; shift ;;
    --with-ns3) NS3=1; shift ;;
    *) echo "sim_speed.sh: error: unknown argument $1" >&2; exit 2 ;;
  esac
done
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
cargo build -q --release -p bufsize-sim --example speed
cp target/release/examples/speed "$OUT/speed-wheel"
cargo build -q --release -p bufsize-sim --example speed --features heap-calendar
cp target/release/examples/speed "$OUT/speed-heap"
cargo build -q --release -p bufsize-sim --example speed   # leave the default build in place

steal() { awk '/^cpu /{print $9}' /proc/stat; }
total() { awk '/^cpu /{s=0; for(i=2;i<=NF;i++) s+=$i; print s}' /proc/stat; }
run() {  # run CAL SCENARIO REP
  local st0 tt0
  st0=$(steal); tt0=$(total)
  nice "$OUT/speed-$1" "$2" > "$OUT/$1-$2-$3.txt"
  echo "steal_fraction $(awk -v a="$st0" -v b="$(steal)" -v c="$tt0" -v d="$(total)" 'BEGIN{printf "%.3f", (d>c)?(b-a)/(d-c):0}')" >> "$OUT/$1-$2-$3.txt"
  echo "loadavg_after $(cut -d' ' -f1 /proc/loadavg)" >> "$OUT/$1-$2-$3.txt"
}
for r in $(seq 1 "$REPS"); do
  for s in S1 S2; do
    run wheel "$s" "$r"
    run heap "$s" "$r"
  done
done
[ "$S3" = 1 ] && run wheel S3 1
run wheel S4 1
run wheel S5 1
if [ "$NS3" = 1 ]; then
  nice python3 bench/ns3/compare.py --speed > "$OUT/ns3.txt" 2>&1 || echo "ns-3 run failed: $(tail -1 "$OUT/ns3.txt")" >&2
fi
python3 - "$OUT" "$REPS" <<'PY'
import glob, json, os, platform, subprocess, sys, time
out, reps = sys.argv[1], int(sys.argv[2])
def parse(path):
    d = {}
    for line in open(path):
        k, _, v = line.strip().partition(" ")
        d[k] = v
    return d
runs = {}
for p in glob.glob(os.path.join(out, "*-S*-*.txt")):
    cal, s, r = os.path.basename(p)[:-4].split("-")
    runs.setdefault((cal, s), []).append(parse(p))
def best(cal, s):
    rs = runs.get((cal, s), [])
    return min(rs, key=lambda d: float(d["wall_seconds"])) if rs else None
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
L = []
L.append("# Engine speed (`bench/sim_speed.sh`)\n")
L.append(f"Generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} at commit {commit}; "
         f"{model}, {os.cpu_count()} vCPUs (shared with other jobs), Linux {platform.release()}; "
         f"rustc release profile of the workspace. Each run is single-threaded under `nice`. "
         f"S1 and S2 ran {reps} times per calendar; the table shows the fastest run (wall), with its CPU "
         f"time, the host's steal fraction and the load average after it.\n")
L.append("Scenarios: RTTs uniform 20–140 ms, B = BDP/√n (BDP at the mean RTT 80 ms), 1000-byte packets, "
         "NewReno, access links 10 × C, starts uniform in [0, 1] s, no warm-up (every bottleneck packet of "
         "the run counts). S1 = OC3, n = 400, 60 s; S2 = 1 Gb/s, n = 1000, 20 s; S3 = 10 Gb/s, "
         "n = 10 000, 10 s. S4 (mixed traffic) = 1 Gb/s, 500 long NewReno flows with B = BDP/√500, open-loop "
         "short flows at load 0.3 (Pareto sizes, mean 20 packets, shape 1.5, RTTs 20–140 ms) and two 20 Mb/s UDP "
         "sources (CBR and Pareto on/off), 20 s. S5 (BBR) = 1 Gb/s, 100 BBR flows (SACK, initial window 10, "
         "every segment paced), B = BDP/√100, 20 s.\n")
L.append("| scenario | calendar | wall s | CPU s | bottleneck pkts | pkts / wall-s | pkts / CPU-s | events / wall-s | peak RSS MiB | steal | load | utilization | loss |")
L.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for s in ("S1", "S2", "S3", "S4", "S5"):
    for cal in ("wheel", "heap"):
        d = best(cal, s)
        if not d:
            continue
        util, _, rest = d["utilization"].partition(" ")
        loss = rest.split()[1] if rest else "?"
        L.append(f"| {s} | {cal}{' (engine)' if cal == 'wheel' else ''} | {float(d['wall_seconds']):.2f} | {float(d['cpu_seconds']):.2f} | "
                 f"{int(d['bottleneck_packets']):,} | {float(d['bottleneck_pkts_per_wall_s'])/1e6:.2f} M | "
                 f"{float(d['bottleneck_pkts_per_cpu_s'])/1e6:.2f} M | {float(d['events_per_wall_s'])/1e6:.2f} M | "
                 f"{float(d['peak_rss_mib']):.0f} | {d['steal_fraction']} | {d['loadavg_after']} | {util} | {loss} |")
L.append("")
L.append("Raw event-calendar rate (push + pop operations per second of the calendar alone: a hold model "
         "with as many pending events as the run had at its end, each pop followed by a push 0–140 ms ahead), "
         "measured in the same process right after the run:\n")
L.append("| scenario | pending | timing wheel (engine) | binary heap | radix heap |")
L.append("|---|---:|---:|---:|---:|")
for s in ("S1", "S2", "S3"):
    d = best("wheel", s)
    if not d:
        continue
    w = d["calendar_wheel_ops_per_s"].split()[0]
    L.append(f"| {s} | {d['calendar_pending_at_end']} | {float(w)/1e6:.1f} M/s | "
             f"{float(d['calendar_heap_ops_per_s'])/1e6:.1f} M/s | {float(d['calendar_radix_ops_per_s'])/1e6:.1f} M/s |")
L.append("")
ns3 = os.path.join("bench", "ns3", "speed_s1.json")
if os.path.exists(ns3):
    rec = json.load(open(ns3))
    res = rec["result"]
    fresh = os.path.exists(os.path.join(out, "ns3.txt"))
    L.append(f"ns-3 S1 ({'this run' if fresh else 'recorded ' + rec['date'] + ' by bench/ns3/compare.py --speed'}; "
             f"SACK {'on' if rec['params'].get('sack') else 'off'}, {rec['params']['duration']} s): "
             f"{res['bottleneck_packets_per_wall_second']:.0f} bottleneck packets per wall-second, "
             f"peak RSS {res['peak_rss_mib']:.0f} MiB. Build profile: {rec['build_profile']}\n")
else:
    L.append("ns-3 S1: not measured in this run (bench/ns3/speed_s1.json absent; run with --with-ns3).\n")
open("bench/sim_speed.md", "w").write("\n".join(L) + "\n")
print("\n".join(L))
PY
