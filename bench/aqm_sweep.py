"""Drop-tail against each queue discipline over hard limits, on one link (docs/aqm.md's table).

    .venv/bin/python bench/aqm_sweep.py > bench/aqm_sweep.csv

100 Mb/s, 30 CUBIC flows (linux profile), RTTs 10-60 ms, 30 s of which 10 s warm-up, 3 seeds;
the bottleneck's queue is a drop-tail FIFO of B packets or the discipline at its defaults with a
hard limit of B packets.
"""

import sys

import bufsize

LIMITS = [10, 30, 100, 300, 1000]
KINDS = [None, "red", "codel", "pie", "fq_codel"]
print("queue,limit_packets,seed,utilization,loss_rate,queue_delay_mean_s,queue_delay_p99_s,aqm_drops,overflow_drops,"
      "jain_fairness")
for kind in KINDS:
    for b in LIMITS:
        for seed in (1, 2, 3):
            r = bufsize.simulate(capacity="100Mbps", flows=30, rtt="10ms..60ms", buffer=f"{b}pkt", aqm=kind,
                                 duration="30s", warmup="10s", seed=seed, progress=False)
            s = r.summary
            print(f"{kind or 'droptail'},{b},{seed},{s['utilization']:.5f},{s['loss_rate']:.5f},"
                  f"{s['queue_delay_mean_s']:.6f},{s['queue_delay_p99_s']:.6f},{s.get('aqm_drops', 0)},"
                  f"{s.get('overflow_drops', s.get('drops', 0))},{s['jain_fairness']:.4f}", flush=True)
