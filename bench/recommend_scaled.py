"""Are scaled-down runs faithful? Each setting is simulated at full size and scaled down by k
(capacity / k, long flows / k, buffer / k: every flow's rate, RTT and window, and the buffer per
flow, unchanged), over the same run length (the verification's warm-up and one of the slowest
cycles measured), and utilization and loss are compared. Issue 32 asks for utilization within
0.5 point and loss within 25 % of the full-size run before a scaled run may stand in for it.

    nice .venv/bin/python bench/recommend_scaled.py OUT.jsonl     # resumable: done rows are kept

Full-size runs take minutes each at 10-100 Gb/s on this 2-core machine.
"""
import json
import math
import os
import sys
import time

from bufsize.recommendation import recommend
from bufsize.recommendation import verification as V
from bufsize.recommendation.runlength import run_length

SETTINGS = {
    "10G-2000-cubic-bbr": (dict(capacity_bps=10e9, flows=2000, rtt="5ms..80ms", mix="cubic=0.7,bbr=0.3"), (10,)),
    "10G-10000-cubic": (dict(capacity_bps=10e9, flows=10000, rtt="5ms..80ms", mix="cubic=1"), (10, 100)),
    "100G-100000-cubic-bbr": (dict(capacity_bps=100e9, flows=100000, rtt="5ms..80ms", mix="cubic=0.7,bbr=0.3"),
                              (100, 1000)),
}
#: buffers as multiples of BDP/√n at full size
BUFFERS = (0.5, 2.0)
FULL_SEEDS = (1,)
SCALED_SEEDS = (1, 2, 3)


def inp_of(d, k):
    return recommend(capacity=f"{d['capacity_bps'] / k:.6g}bps", flows=int(d["flows"] // k), rtt=d["rtt"],
                     mix=d["mix"], verify=False).input


def main(out_path):
    done = set()
    if os.path.exists(out_path):
        done = {(r["setting"], r["k"], r["buffer_x"], r["seed"]) for r in map(json.loads, open(out_path))}
    runner = V.Runner(cache=False, workers=2)
    for name, (d, ks) in SETTINGS.items():
        full = inp_of(d, 1)
        ref = full.bdp_packets / math.sqrt(full.flows)
        r = run_length(full, 2.0 * ref)
        warm, meas = r.warmup_s, min(r.measure_s, max(r.cycle_s, 25 * float(full.rtt_max_s), 2.0))
        for x in BUFFERS:
            for k in (1,) + tuple(ks):
                inp = full if k == 1 else inp_of(d, k)
                b = max(1, round(x * ref / k))
                seeds = [s for s in (FULL_SEEDS if k == 1 else SCALED_SEEDS) if (name, k, x, s) not in done]
                if not seeds:
                    continue
                t = time.perf_counter()
                scs = [V.build_scenario(inp, b, seed=s, warmup_s=warm, duration_s=warm + meas) for s in seeds]
                for s, rec in zip(seeds, runner.map(scs)):
                    row = dict(setting=name, k=k, buffer_x=x, buffer_packets=b, seed=s, flows=inp.flows,
                               capacity_bps=d["capacity_bps"] / k, warmup_s=warm, measure_s=meas,
                               utilization=rec["summary"]["utilization"], loss=rec["summary"]["loss_rate"],
                               wall_s=rec["wall_seconds"], load=os.getloadavg()[0])
                    with open(out_path, "a") as f:
                        f.write(json.dumps(row) + "\n")
                    print(row, flush=True)
                print(f"{name} k={k} B={b}: {time.perf_counter() - t:.0f} s", flush=True)
    runner.close()


if __name__ == "__main__":
    main(sys.argv[1])
