#!/usr/bin/env bash
# Evidence for ns-3 3.37's BBR collapsing in a shallow buffer (docs/validation.md).
# One BBR flow, 50 Mb/s, RTT 70 ms, B = 29 packets (0.1 BDP), the validation grid's ns-3
# settings, 40 s. Prints, per 5 s of simulated time, how often the flow entered each congestion
# state (CA_LOSS = a retransmission timeout) and its cwnd (segments) at the end of each 3 s.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
"$here/../ns3/build.sh" >/dev/null
trace=$(mktemp)
nice -n 5 "$here/../ns3/build/dumbbell" --flows=1 --capacity=50Mbps --buffer=29 --duration=40 --warmup=10 \
    --rtts=70 --starts=0 --sack=true --initCwnd=10 --minRto=200 --linuxRto=true --packetSize=1514 \
    --recovery=prr --delAckCount=1 --cc=bbr --printFlows=true --traceFlow=0 2>"$trace" \
    | python3 -c 'import json,sys; d=json.load(sys.stdin); print("utilization %.3f  loss %.2f%%  timeouts %d" % (d["utilization"], 100*d["loss_rate"], d["timeouts"]))'
echo "state entries per 5 s:"
awk '$2=="state"{print int($1/5)*5, $3}' "$trace" | sort | uniq -c | sort -k2n -k3 | awk '{printf "  t=%2d s %-12s %d\n", $2, $3, $1}'
echo "cwnd (segments of 1472 B) at the end of each 3 s:"
awk '$2=="cwnd"{t=int($1/3)*3; c[t]=$3} END{for(t in c) printf "%d %d\n", t, c[t]/1472}' "$trace" | sort -n | tr '\n' ' '
echo
rm -f "$trace"
