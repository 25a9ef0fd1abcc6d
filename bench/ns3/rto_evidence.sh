#!/usr/bin/env bash
# Evidence for ns-3's spurious timeouts with SACK on (see results.md, gap 1).
# Grid point n = 50, B = 110, SACK on, draw 1; traces flow 24 (the longest RTT,
# ~139 ms). For each timeout in [10, 40) s it prints the time of the last ACK
# that advanced snd_una (the last cwnd change outside recovery), the fast
# retransmit (entry into recovery) and the timeout. A gap of exactly the 200 ms
# minimum RTO after the last new ACK, with the fast retransmit less than one RTT
# before the timeout, means the timer was not restarted at the fast retransmit.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/build.sh" >/dev/null
lists=$(cd "$here" && python3 -c '
import compare
r, s = compare.flow_inputs(50, 1)
print(",".join(f"{x:.6f}" for x in r), ",".join(f"{x:.6f}" for x in s), f"{r[24]:.3f}")')
read -r rtts starts rtt24 <<<"$lists"
echo "flow 24: RTT $rtt24 ms"
trace=$(mktemp)
nice "$here/build/dumbbell" --flows=50 --buffer=110 --duration=40 --warmup=10 --sack=1 \
    --rtts="$rtts" --starts="$starts" --traceFlow=24 2>"$trace" >/dev/null
awk '$1 > 10 && $2 != "queue" {
        if ($2 == "state" && $3 == "CA_LOSS")
            printf "  timeout %.6f  last new ACK %.6f (+%.1f ms)  fast retransmit %.6f (+%.1f ms before the timeout)\n", $1, lastc, 1000*($1-lastc), lastr, 1000*($1-lastr)
        if ($2 == "cwnd" && st != "CA_RECOVERY" && st != "CA_LOSS") lastc = $1
        if ($2 == "state") { st = $3; if ($3 == "CA_RECOVERY") lastr = $1 }
     }' "$trace"
rm -f "$trace"
