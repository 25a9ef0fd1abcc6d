"""Verification cost on the README's and docs/recommend.md's links: the verified size, runs, CPU
and simulated seconds of each search (run cache off, no FQ-CoDel line beside it), written as JSON.

    .venv/bin/python bench/recommend_speed.py OUT.json

Compare two versions by running it on each, on the same machine in one sitting (bench/recommend_speed.md).
"""
import time, json, sys
from bufsize.recommendation import recommend, verification as V
LINKS = {
 "demo": dict(),
 "oc3-mix-3ms": dict(capacity="155Mbps", rtt="20ms..140ms", flows=400, packet_size="1000B", mix="reno=0.5,cubic=0.5", max_delay="3ms", target_utilization=0.99),
 "100M-30": dict(capacity="100Mbps", rtt="10ms..60ms", flows=30),
 "gamma5": dict(capacity="1Gbps", flows=300, rtt="50ms", input_capacity="200Mbps", target_utilization=0.99),
 "spread": dict(capacity="200Mbps", flows=40, rtt="20ms..80ms", target_utilization=0.98),
 "cubic": dict(capacity="500Mbps", flows=30, rtt="35ms..45ms", mix="cubic=1", target_utilization=0.99),
}
out = {}
for name, kw in LINKS.items():
    rec = recommend(**kw)
    t = time.perf_counter()
    v = V.verify_recommendation(rec, runner=V.Runner(cache=False), beside=False)
    out[name] = dict(size=v.buffer_packets, status=v.status, runs=v.runs, cpu=round(v.cpu_seconds, 1),
                     wall=round(time.perf_counter() - t, 1),
                     simulated_s=round(v.runs * v.run.duration_s, 1))
    print(name, out[name], flush=True)
json.dump(out, open(sys.argv[1], "w"), indent=1)
