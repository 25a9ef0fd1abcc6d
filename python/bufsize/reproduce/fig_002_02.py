"""002-Fig2: congestion window of one flow, TCP Reno vs paced TCP (500 flows, 1.5 Gb/s, B = 10).

Wmax = 32, 1000-byte packets, average RTT 100 ms (peak offered load 1.28 Gb/s = 85 %). Checked on
per-flow RTTs of 91–111 ms at a harmonic mean of 100 ms (:mod:`_p002`: breaks the identical-RTT phase
lock at the same offered load); every RTT exactly 100 ms is run as a sensitivity series.
"""

from __future__ import annotations

from bufsize.reproduce import _p002
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_at_least, check_at_most, pool_seeds
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id="fig_002_02",
    paper_id="002-Fig2",
    title="Congestion window size, TCP Reno vs paced TCP (§III)",
    kind="simulation",
    kind_detail="simulation",
    needs=("MET-CWND", "TCP-PACED", "TCP-RENO", "TCP-WMAX", "TRF-BULK"),
    paper_cost="38 M",
    quick_seconds=12.0,
)

#: ``seeds``: the checked series (the primary RTTs) runs each seed, every check judged on their mean with the
#: interval of the seeds' values; the figure and the sensitivity series are seed 1's
SCALE = {"quick": {"duration": 80.0, "warmup": 20.0, "seeds": (1,)},
         "full": {"duration": 200.0, "warmup": 20.0, "seeds": (1, 2, 3, 4, 5)}}

SETUP = (
    Setting("flows", "500 long-lived flows", "paper", "500 flows share a bottleneck link with a capacity of 1.5Gb/s",
            "§III (Fig. 2)"),
    Setting("bottleneck capacity", "1.5 Gb/s (peak offered load 1.28 Gb/s = 0.85)", "paper",
            "500 flows share a bottleneck link with a capacity of 1.5Gb/s", "§III (Fig. 2)"),
    Setting("buffer", "10 packets", "paper", "the buffer size is 10 packets", "§III (Fig. 2)"),
    Setting("maximum window Wmax", "32 packets", "paper",
            "each flow is limited to a maximum window size of 32 packets", "§III (Fig. 2)"),
    _p002.WINDOW_CAP,
    Setting("TCPs compared", "unmodified TCP, i.e. " + _p002.RENO_VALUE + ", and paced TCP, one run each", "paper",
            "Figure 2 compares the congestion window (CWND) of TCP Reno with Paced TCP", "§III"),
    *_p002.SETUP_STACK,
    *_p002.SETUP_PACED,
    _p002.PACKET_FIGURES,
    *_p002.rtt_setup("002 states no RTT for Fig. 2 (FIGURES.md assumes Fig. 1's 'average RTT is 100ms')",
                     "both TCPs, seed 1"),
    *_p002.SETUP_COMMON,
    _p002.ACCESS,
    Setting("flow shown", "flow 0's cwnd, sampled every 10 ms (data and plot every 50 ms)", "figures",
            "FIGURES.md: 'Which flow is shown is unspecified; flow 0 (assumed)'"),
    Setting("run length", "200 s (quick: 80 s)", "figures", "FIGURES.md: 'Duration unspecified: 200 s (assumed)'"),
    Setting("warm-up", "20 s, left out of the statistics (the plot shows the 20 s after it)", "ours",
            "002 and FIGURES.md give none; 20 s leaves the slow starts out of the window statistics"),
    Setting("seeds", "the checked series on seeds 1–5, each check judged on their mean (quick: seed 1); the figure, "
            "the statistics table and the sensitivity series are seed 1's", "ours",
            "002 shows one run per TCP and names no seeds; five seeds give the checked numbers an interval"),
)


def _scenario(rtt_key, variant, duration, warmup, seed=1):
    from bufsize.reproduce import _p002 as p

    return p.scenario(flows=500, capacity_bps=1.5e9, buffer=10, variant=variant, rtt=rtt_key, duration=duration,
                      warmup=warmup, cwnd_trace_flows=[0], cwnd_trace_interval="10ms", seed=seed)


def _stats(r) -> dict:
    """One run's statistics of flow 0's window (every 10-ms sample) and the bottleneck's drops."""
    c = r["cwnd_traces"]
    return {"mean_cwnd": float(c.cwnd.mean()), "frac_at_wmax": float((c.cwnd >= 32).mean()),
            "drops": int(r["summary"]["drops"]), "utilization": r["summary"]["utilization"]}


def _pair_checks(label: str, p: dict, r: dict) -> list:
    """§III's three sentences on one seed's pair of runs (paced ``p``, Reno ``r``)."""
    return [
        check_at_least(f"{label}: paced TCP has a larger cwnd at almost all times (time-average; mean cwnd paced − "
                       "Reno, packets)", None, p["mean_cwnd"] - r["mean_cwnd"], 0.0, why="paced above Reno"),
        check_at_least(f"{label}: Reno rarely reaches the 32-packet maximum window, paced often does (share of the "
                       "time at ≥ 32: paced − Reno)", None, p["frac_at_wmax"] - r["frac_at_wmax"], 0.1,
                       why="≥ 0.1 assumed"),
        check_at_least(f"{label}: … and paced at least twice as often as Reno (share at ≥ 32: paced − 2 × Reno)",
                       None, p["frac_at_wmax"] - 2 * r["frac_at_wmax"], 0.0, why="≥ 2 × Reno assumed"),
        check_at_most(f"{label}: paced TCP sees fewer drops (drops paced − Reno)", None, float(p["drops"] - r["drops"]),
                      -1.0, why="at least one drop fewer"),
    ]


def checks_of(label: str, paced: list[dict], reno: list[dict], seeds) -> list:
    """§III's three sentences, each judged on the mean over ``seeds`` of one run pair's statistic (``paced[k]``,
    ``reno[k]``: seed k's runs), with every seed's value for the interval (:func:`_core.pool_seeds`)."""
    return pool_seeds(seeds, [_pair_checks(label, p, r) for p, r in zip(paced, reno)])


def run(ctx) -> FigureOutput:
    import pandas as pd

    from bufsize.reproduce import _p002 as pp
    from bufsize.reproduce._plot import figure, finish
    from bufsize.reproduce._sim import run_scenarios

    cfg = SCALE[ctx.mode]
    seeds = cfg["seeds"]
    jobs = [(k, v) for k in pp.RTTS for v in pp.VARIANTS]
    # the checked series on the other seeds (identical RTTs: a sensitivity series, seed 1 only)
    more = [(seed, v) for seed in seeds[1:] for v in pp.VARIANTS]
    scs = [_scenario(k, v, cfg["duration"], cfg["warmup"]) for k, v in jobs]
    res = run_scenarios(scs + [_scenario(pp.PRIMARY, v, cfg["duration"], cfg["warmup"], seed) for seed, v in more],
                        ctx, tables=("cwnd_traces",))
    res, res_more = res[:len(jobs)], res[len(jobs):]
    parts, stats = [], {}
    for (k, v), r in zip(jobs, res):
        stats[(k, v)] = _stats(r)
        c = r["cwnd_traces"].iloc[::5]   # data.csv and the plot at 50 ms; the statistics use every 10-ms sample
        parts.append(pd.DataFrame({"rtt": k, "variant": v, "t_s": c.t_s.values, "cwnd": c.cwnd.values}))
    df = pd.concat(parts, ignore_index=True)
    by_seed = {(seeds[0], v): stats[(pp.PRIMARY, v)] for v in pp.VARIANTS}
    by_seed.update({key: _stats(r) for key, r in zip(more, res_more)})
    checks = checks_of(pp.RTT_LABEL[pp.PRIMARY], [by_seed[(s, "paced")] for s in seeds],
                       [by_seed[(s, "reno")] for s in seeds], seeds)
    fig, axes = figure(2, 1, height=6.0)
    for ax, (k, label) in zip(axes, ((key, pp.RTT_LABEL[key]) for key in pp.RTTS)):
        for v in pp.VARIANTS:
            d = df[(df.rtt == k) & (df.variant == v) & (df.t_s < cfg["warmup"] + 20)]
            ax.plot(d.t_s, d.cwnd, lw=0.8, label=f"{'TCP Reno' if v == 'reno' else 'paced TCP'} "
                    f"(mean {stats[(k, v)]['mean_cwnd']:.1f})")
        ax.set_title(label, fontsize=9)
        ax.set_ylabel("cwnd (packets)")
        ax.set_xlabel("time (s)")
        ax.legend(fontsize=8)
        ax.grid(alpha=0.3)
    finish(fig, "002 Fig. 2: cwnd of flow 0 of 500, 1.5 Gb/s, B = 10, Wmax = 32")
    return FigureOutput(
        data=df, checks=checks, figure=fig,
        extra_tables={"statistics": pd.DataFrame([{"rtt": k, "variant": v, **s} for (k, v), s in stats.items()])},
        inputs={"scenarios": [s.to_dict() for s in scs[:1]], "rtts": pp.RTTS, "variants": pp.VARIANTS,
                "checked_rtts": pp.PRIMARY, **cfg},
        deviations=[pp.ENGINE + f" Duration not stated: {cfg['duration']:g} s with {cfg['warmup']:g} s warm-up "
                    f"({ctx.mode}). Flow 0 is shown (which flow the paper shows is not stated). The checks are judged on "
                    f"the mean over seeds {', '.join(str(x) for x in seeds)} of the checked RTTs; the figure, the "
                    "statistics table and the identical-RTT series are seed 1's."],
        notes=[f"{pp.RTT_LABEL[pp.PRIMARY]} (checked): " + _stat_text(stats, pp.PRIMARY) + ".",
               f"{pp.RTT_LABEL[pp.SENSITIVITY]}, not checked: " + _stat_text(stats, pp.SENSITIVITY)
               + ". With identical RTTs the window-capped, ACK-clocked flows can settle into a phase where a 10-packet "
                 "buffer never overflows; where this series shows no drops, that is the engine's phase lock."])


def _stat_text(stats, k) -> str:
    return "; ".join(f"{v}: mean cwnd {stats[(k, v)]['mean_cwnd']:.1f}, {stats[(k, v)]['frac_at_wmax']:.0%} of the time "
                     f"at Wmax, {stats[(k, v)]['drops']} drops, utilization {stats[(k, v)]['utilization']:.3f}"
                     for v in ("reno", "paced"))
