"""A RACK-TLP flow that runs away behind FQ-CoDel (bench/fq_codel_rack_runaway.md): the FQ-CoDel
line's runs on the example port (1 Gb/s, 100 CUBIC flows, 10-50 ms, linux profile, fq_codel at its
defaults, its full-length warm-up and window), per seed, with RACK-TLP and with dupack loss
detection, and the flow with the most retransmissions in each.

    .venv/bin/python bench/fq_codel_rack_runaway.py [SEEDS...]
"""
import sys

import bufsize
from bufsize.recommendation import recommend
from bufsize.recommendation import verification as V

rec = recommend()
run = V.beside_run_length(rec.input, 2 * rec.input.bdp_packets)
print("loss_detection,seed,queue_delay_mean_ms,loss_pct,worst_flow,its_retransmits,its_drops,its_mean_cwnd,"
      "retransmits_all,drops_all")
for ld in ("rack", "dupack"):
    for seed in [int(a) for a in sys.argv[1:]] or [1, 2, 3, 4]:
        sc = V.build_scenario(rec.input, V.BESIDE_LIMIT, seed=seed, warmup_s=run.warmup_s,
                              duration_s=run.duration_s, aqm="fq_codel")
        sc["dumbbell"]["tcp"]["loss_detection"] = ld
        r = bufsize.simulate(sc, progress=False)
        f = r.flows
        w = f.sort_values("retransmits").iloc[-1]
        print(f"{ld},{seed},{1e3 * r.summary['queue_delay_mean_s']:.2f},{100 * r.summary['loss_rate']:.3f},"
              f"{int(w['id'])},{int(w['retransmits'])},{int(w['drops'])},{w['mean_cwnd']:.1f},"
              f"{int(f.retransmits.sum())},{int(f.drops.sum())}", flush=True)
