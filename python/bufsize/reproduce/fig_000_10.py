"""000-Fig10: average per-flow throughput vs flow size, B = 38 MB (§IV).

As Fig 9 (:mod:`bufsize.reproduce.fig_000_09`) at the largest buffer, 38 MiB, with the S-model:
at the maximum buffer the loss rate is so low that almost every flow, even one of more than
10 000 packets, finishes in slow start, and the S-model fits almost all flow sizes.
"""

from __future__ import annotations

import math

from bufsize.reproduce._core import FigureOutput, FigureSpec, check_range
from bufsize.reproduce._setup import Setting
from bufsize.reproduce.fig_000_09 import SETUP_SIZE_MODELS

SPEC = FigureSpec(
    id='fig_000_10',
    paper_id='000-Fig10',
    title='Average per-flow throughput vs flow size, B = 38 MB (§IV)',
    kind='testbed',
    kind_detail='testbed + overlay',
    needs=('M-000', 'MET-FLOW', 'EXP-STATS', 'TRF-CLOSED', 'TCP-NRSACK', 'TCP-RENO', 'TRF-RTT', 'SIM-QB', 'MET-UTIL', 'EXP-SWEEP', 'EXP-SEEDS'),
    paper_cost='T000',
    quick_seconds=75.0,
    note="simulator as the testbed's proxy; shares the T000 runs (after fig_000_03 it takes under 1 s)",
)

ALMOST_ALL = 0.8       # "almost all flow sizes": ≥ 80 % of the bins within ±20 % (assumed)
BIG_PACKETS = 10_000

SETUP = (
    Setting("experiment", "U3000 (3000 users)", "paper",
            "We first analyze the results of the U3000 experiments", "§IV"),
    Setting("buffer", "38 MiB (39 845 888 bytes), the largest of the grid", "paper",
            "Average per-flow throughput as a function of flow size for buffer size B=38MB", "Fig. 10 caption"),
    Setting("largest flows", f"the size bins from {BIG_PACKETS:,} packets of 1460 bytes up".replace(",", " "),
            "paper", "including the largest ones that send more than 10,000 packets", "§IV"),
) + SETUP_SIZE_MODELS


def _fit_stats(a: dict):
    """(per-bin fit mask, the bins of flows above BIG_PACKETS, share of bins within ±20 % of the S-model,
    those flows' throughput / S-model, their share with ≤ 4 congestion events) of an :func:`analyse` dict."""
    import numpy as np

    from bufsize.reproduce import _p000_t000 as p
    from bufsize.reproduce.fig_000_09 import S_TOL

    b = a["bins"]
    ok = np.abs(b.thr_mean_mbps / b.s_model_mbps - 1) <= S_TOL
    big = a["all_bins"][a["all_bins"].size_lo_bytes >= BIG_PACKETS * p.MSS]
    n_big = int(big.n.sum())
    big_ratio = float(big.sum_thr.sum() / big.sum_rs.sum()) if n_big else math.nan
    big_le4 = float(big.n_le4.sum() / n_big) if n_big else math.nan
    return ok, big, float(ok.mean()), big_ratio, big_le4


def run(ctx) -> FigureOutput:
    from bufsize.reproduce import _p000_t000 as p
    from bufsize.reproduce.fig_000_09 import S_TOL, analyse, analyse_records, common_inputs, figure_for

    top = len(p.BUFFERS) - 1
    a = analyse(ctx, top)
    b = a["bins"]
    ok, big, share, big_ratio, big_le4 = _fit_stats(a)
    n_big = int(big.n.sum())
    # the same three numbers from each seed's run alone, for their interval over the seeds
    by_seed = {key[2]: rec for key, rec in a["camp"]["records"].items()}
    seeds = sorted(by_seed)
    each = [_fit_stats(analyse_records([by_seed[s]], p.BUFFERS[top]))[2:] for s in seeds]
    checks = [
        check_range("at the maximum buffer the S-model fits almost all flow sizes (share of the size bins within ±20 %)",
                    None, share, ALMOST_ALL, 1.0, why=f"≥ {ALMOST_ALL:.0%} assumed")
        .over_seeds(seeds, [e[0] for e in each]),
        check_range(f"… including flows of more than {BIG_PACKETS} packets (their mean throughput / mean S-model; "
                    f"{n_big} such flows)", 1.0, big_ratio, 1 - S_TOL, 1 + S_TOL,
                    why="±20 %; NaN if no such flow completed").over_seeds(seeds, [e[1] for e in each]),
        check_range("… which finish in slow start: loss so low that they see ≤ 4 congestion events (share of them)",
                    None, big_le4, 0.9, 1.0, why="≥ 90 % assumed; NaN if no such flow completed")
        .over_seeds(seeds, [e[2] for e in each]),
    ]
    from bufsize.reproduce._p000_miss import if_miss
    from bufsize.reproduce.fig_000_03 import TESTBED

    big_rtt_ms = float(big.sum_rtt.sum() / n_big) * 1e3 if n_big else math.nan
    for c in checks:
        if_miss(c, "setup", f"the S-model uses the run's average RTT ({a['rtt_h'] * 1e3:.0f} ms, harmonic); in our run "
                            f"(utilization {a['utilization']:.3f}, loss {a['loss']:.2e}) the {n_big} flows of more than "
                            f"{BIG_PACKETS} packets wait in the queue their own windows build (their mean RTT "
                            f"{big_rtt_ms:.0f} ms), so their rounds are longer than the average flow's; {TESTBED}")
    notes = []
    if n_big and not (1 - S_TOL <= big_ratio <= 1 + S_TOL):
        ss_ratio = float(big.sum_thr.sum() / big.sum_rss.sum())
        no_drop = float(big.n_no_drop.sum() / n_big)
        pm_rtts = a["loss"] * big.sum_segments.sum() / n_big
        big_rtt = float(big.sum_rtt.sum() / n_big)
        text = (f"The {n_big} flows of more than {BIG_PACKETS} packets reach {big_ratio:.2f}× the S-model and "
                f"{ss_ratio:.2f}× the loss-free slow-start model; {no_drop:.0%} of them lost no packet. ")
        if pm_rtts > 0.5:
            text += (f"The run's loss rate p = {a['loss']:.2e} is not zero (the 38-MiB queue still fills in the heaviest "
                     f"periods), and the S-model's v·p·M term adds {pm_rtts:.1f} RTTs on average to these flows. ")
        text += (f"Their own mean RTT is {big_rtt * 1e3:.0f} ms against the run's average {a['rtt_h'] * 1e3:.0f} ms "
                 "(harmonic) used by the model")
        text += (": a window of thousands of packets adds to the queue it waits in, so its rounds take longer than the "
                 "average flow's RTT." if big_rtt > a["rtt_h"] * (1 + S_TOL / 2) else ".")
        notes.append(text)

        def words(rec):
            bb = p.binned([rec], 1)
            bb = bb[bb.size_lo_bytes >= BIG_PACKETS * p.MSS]
            if bb.n.sum() == 0:
                return f"loss {rec['loss_rate']:.2e} and no completed flow of more than {BIG_PACKETS} packets"
            return (f"loss {rec['loss_rate']:.2e} and {int(bb.n.sum())} flows of more than {BIG_PACKETS} packets at "
                    f"{bb.sum_thr.sum() / bb.sum_rs.sum():.2f}× the S-model and {bb.sum_thr.sum() / bb.sum_rss.sum():.2f}× "
                    "the slow-start model")
        extra = p.paper_length_text(ctx, 3000, len(p.BUFFERS) - 1, words)
        if extra:
            notes.append(extra.strip())
    if not ok.mean() >= ALMOST_ALL:
        notes.append("Bins off the S-model by more than 20 %: " + ", ".join(
            f"{r.size_lo_bytes / 1e3:.0f}–{r.size_hi_bytes / 1e3:.0f} KB ({r.thr_mean_mbps / r.s_model_mbps:.2f}×)"
            for _, r in b[~ok].iterrows()) + ".")
    notes += [f"Run: U3000, B = {a['buffer_bytes'] / 1024 / 1024:.0f} MiB, utilization {a['utilization']:.3f}, loss rate "
             f"{a['loss']:.2e}, mean RTT {a['rtt_h'] * 1e3:.1f} ms harmonic / {a['rtt_a'] * 1e3:.1f} ms arithmetic "
             "(the queue adds its delay to every flow)."]
    return FigureOutput(data=b, checks=checks,
                        figure=figure_for(a, "000 Fig. 10: throughput vs flow size, U3000, B = 38 MiB (simulator)",
                                          l_model=False, slow_start=False),
                        inputs=common_inputs(a), deviations=p.deviations(ctx), notes=notes,
                        extra_tables={"bins_all": a["all_bins"]})
