"""Does BBR's PROBE_RTT period belong in the warm-up? Verified sizes of links with BBR in the mix,
with the warm-up as it is (20 RTTs + the slowest cycle, BBR's 10.2-s PROBE_RTT period included:
"before" below) and as it would be without the period (20 RTTs + the slowest loss-based cycle; the
measurement still holds at least one PROBE_RTT period: "now" below, the change tried and not
adopted), both with runs stopping once settled, in one sitting. Results: bench/recommend_speed.md.

    .venv/bin/python bench/recommend_bbr_warmup.py OUT.json
"""
import dataclasses
import json
import os
import sys
import time

from bufsize.recommendation import recommend, runlength
from bufsize.recommendation import verification as V
from recommend_speed import BBR_LINKS

LINKS = BBR_LINKS   # the four BBR links, defined once in recommend_speed.py (this folder)
as_is = runlength.run_length


def without_probe_rtt_in_warmup(inp, buffer_packets, **kw):
    """The run length as is, with the warm-up of the same traffic without its BBR flows' cycle."""
    r = as_is(inp, buffer_packets, **kw)
    loss_based = {k: v for k, v in (inp.mix or {}).items() if k != "bbr"} or {"reno": 1.0}
    t = as_is(dataclasses.replace(inp, mix=loss_based), buffer_packets, **kw).cycle_s
    return runlength.RunLength(max(2.0, 20.0 * float(inp.rtt_max_s) + t), r.measure_s, r.cycle_s,
                               r.too_short, r.why + f" [warm-up with the loss-based cycle of {t:.3g} s]")


out = {}
for name, kw in LINKS.items():
    rec = recommend(**kw)
    for mode, rule in (("before", as_is), ("now", without_probe_rtt_in_warmup)):
        V.run_length = rule
        t = time.perf_counter()
        v = V.verify_recommendation(rec, runner=V.Runner(cache=False), beside=False)
        out[f"{name}/{mode}"] = dict(size=v.buffer_packets, status=v.status, runs=v.runs,
                                     settled_runs=v.settled_runs, warmup_s=round(v.run.warmup_s, 2),
                                     simulated_s=round(v.simulated_seconds, 1), cpu=round(v.cpu_seconds, 1),
                                     wall=round(time.perf_counter() - t, 1), load=round(os.getloadavg()[0], 2),
                                     utilization_at_size=round(v.at_size["utilization"], 4))
        print(name, mode, out[f"{name}/{mode}"], flush=True)
V.run_length = as_is
json.dump(out, open(sys.argv[1], "w"), indent=1)
