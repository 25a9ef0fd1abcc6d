#!/usr/bin/env bash
# Evidence for the SACK-off problem of Debian's ns-3 3.37 (see results.md).
# One NewReno flow, 10 Mb/s, 80 ms, B = BDP = 100 packets, 30 s. Prints, per
# second, the largest congestion window and ns-3's own BytesInFlight (both in
# segments) and the largest bottleneck queue (packets). With SACK on, queue
# growth follows cwnd; with SACK off the queue fills although cwnd and
# BytesInFlight stay far below BDP, i.e. the sender puts more than cwnd into
# the network. Then the summary line of each run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/build.sh" >/dev/null
for sack in 0 1; do
    echo "== SACK $([ $sack = 1 ] && echo on || echo off)"
    "$here/build/dumbbell" --flows=1 --capacity=10Mbps --rtts=80 --buffer=100 \
        --duration=30 --warmup=10 --sack=$sack --traceFlow=0 2>/tmp/nosack_trace.$$ \
        | python3 -c 'import json,sys; d=json.load(sys.stdin); print("  utilization %.4f  loss %.4f%%  timeouts %d  fast recoveries %d" % (d["utilization"], 100*d["loss_rate"], d["timeouts"], d["fast_recoveries"]))'
    awk -v seg=958 '
        $2=="cwnd"     { t=int($1); if ($3/seg > c[t]) c[t]=$3/seg }
        $2=="inflight" { t=int($1); if ($3/seg > f[t]) f[t]=$3/seg }
        $2=="queue"    { t=int($1); if ($3 > q[t]) q[t]=$3 }
        END { printf "  s    "; for (t=2;t<16;t++) printf "%5d", t; printf "\n  cwnd "; for (t=2;t<16;t++) printf "%5d", c[t];
              printf "\n  infl "; for (t=2;t<16;t++) printf "%5d", f[t]; printf "\n  queue"; for (t=2;t<16;t++) printf "%5d", q[t]; printf "\n" }' \
        /tmp/nosack_trace.$$
    rm -f /tmp/nosack_trace.$$
done
