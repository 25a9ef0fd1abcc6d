"""002-Fig5: link pacing — core throughput vs access-link capacity, unmodified TCP (caption lost).

Core 1 Gb/s with B = 10 packets, 100 Reno flows (others assumed: 200 at full scale), Wmax = 10 000
(effectively none), RTT 100 ms; each flow has its own access link of the swept capacity with a
large (unlimited) buffer.
"""

from __future__ import annotations

from bufsize.reproduce import _p002
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_at_least, check_at_most, check_range, pool_seeds
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id="fig_002_05",
    paper_id="002-Fig5",
    title="Link pacing: throughput vs access-link capacity, unmodified TCP (§IV) [caption reconstructed]",
    kind="simulation",
    kind_detail="simulation",
    needs=("SIM-ACC", "TCP-RENO", "MET-UTIL", "EXP-SWEEP", "TRF-BULK"),
    paper_cost="≈ 0.5 G",
    quick_seconds=80.0,
)

#: ``seeds``: the checked series (primary RTTs, N = 100) runs each seed and every check is judged on the mean of
#: the seeds' values (with their interval); the other series are seed 1's
SCALE = {"quick": {"ns": (100,), "access_mbps": (2, 4, 6, 8, 10, 12, 16, 25, 50, 100), "duration": 60.0, "warmup": 20.0,
                   "seeds": (1,)},
         "full": {"ns": (100, 200), "access_mbps": (1, 2, 3, 4, 6, 8, 9, 10, 12, 16, 25, 50, 100), "duration": 200.0,
                  "warmup": 40.0, "seeds": (1, 2, 3, 4, 5)}}

SETUP = (
    Setting("core capacity", "1 Gb/s", "paper",
            "The core link bandwidth is set to 1Gb/s, and we vary the capacity of the access links", "§IV"),
    Setting("core buffer", "10 packets", "paper", "the buffer size is set to 10 packets", "§IV (Fig. 5)"),
    Setting("maximum window Wmax", "10 000 packets (no cap in effect)", "paper",
            "The maximum window size is very large (set to 10,000)", "§IV (Fig. 5)"),
    Setting("TCP", "unmodified TCP: " + _p002.RENO_VALUE, "figures",
            "FIGURES.md: 'Unmodified TCP (Reno, assumed)'; 002 says only 'we are not using Paced TCP' (§IV)"),
    *_p002.SETUP_STACK,
    Setting("flows (checked)", "N = 100 long-lived flows", "paper",
            "For example, with 100 flows, this happens when the access link capacity is below 8-9Mb/s", "§IV"),
    Setting("other flow counts", "N = 200, seed 1, not checked (quick: none)", "figures",
            "FIGURES.md: 'others unspecified (100, 200, 500 assumed)'; ours runs 200 only, at full scale"),
    Setting("access links", "one per flow, capacity swept over 1, 2, 3, 4, 6, 8, 9, 10, 12, 16, 25, 50, 100 Mb/s "
            "(quick: 2, 4, 6, 8, 10, 12, 16, 25, 50, 100)", "figures",
            "FIGURES.md: 'range unspecified, assume 1–100, log'; 002 says only that 'we vary the capacity of the access "
            "links' (§IV)"),
    Setting("access buffers", "unlimited", "figures",
            "FIGURES.md: 'their buffers are unspecified (large, ≥ the access BDP, assumed)'"),
    _p002.PACKET_FIGURES,
    *_p002.rtt_setup("002 says 'the average RTT is set to 100ms' (§IV)", "every N and access capacity, seed 1"),
    *_p002.SETUP_COMMON,
    Setting("run length", "200 s (quick: 60 s)", "figures", "FIGURES.md: 'Duration unspecified: 200 s (assumed)'"),
    Setting("warm-up", "40 s (quick: 20 s)", "ours", "002 and FIGURES.md give none; it leaves out the slow starts of "
            "flows with no window cap"),
    Setting("seeds", "the checked series (N = 100) on seeds 1–5, each check judged on their mean (quick: seed 1); "
            "the other series and the figure are seed 1's", "ours",
            "002 shows one run per point and names no seeds; five seeds give the checked numbers an interval"),
)


def checks_of(d, label: str) -> list:
    """§IV's sentences on one seed's series ``d`` (access_mbps, offered_fraction, utilization at N = 100)."""
    d = d.sort_values("access_mbps")
    lin = d[d.offered_fraction < 0.9]
    ratio = float((lin.utilization / lin.offered_fraction).min())
    peak_at = float(d.access_mbps.iloc[int(d.utilization.values.argmax())])
    beyond = d[d.access_mbps >= peak_at].utilization.values
    fall = float(beyond[0] - beyond[-1]) if len(beyond) > 2 else float("nan")
    rise = float(max(beyond[1:] - beyond[:-1])) if len(beyond) > 1 else float("nan")
    return [
        check_range(f"{label}: linear region (N·C_acc < 0.9 C_core): throughput ≈ N·C_acc/C_core", 1.0, ratio, 0.95,
                    1.05, why="≥ 0.95 × (lowest ratio)"),
        check_range(f"{label}: the peak lies near N·C_acc ≈ C_core (10 Mb/s for 100 flows)", 10.0, peak_at, 6.0, 16.0,
                    why="access capacity of the peak in 6–16 Mb/s assumed"),
        check_at_least(f"{label}: throughput then decreases as access capacity grows (fall from the peak to the last "
                       "point)", None, fall, 0.05, why="≥ 5 pt assumed; 'gradually decreases'"),
        check_at_most(f"{label}: … a monotone decline beyond the peak (largest rise between successive access "
                      "capacities)", None, rise, 0.0, why="no rise (FIGURES.md: monotone decline beyond, assumed)"),
    ]


def run(ctx) -> FigureOutput:
    import pandas as pd

    from bufsize.reproduce import _p002 as p
    from bufsize.reproduce._plot import figure, finish
    from bufsize.reproduce._sim import run_scenarios

    cfg = SCALE[ctx.mode]
    seeds = cfg["seeds"]
    # every series on seed 1; the checked one (primary RTTs, N = 100) on the other seeds too
    jobs = [(r, n, a, seeds[0]) for r in p.RTTS for n in cfg["ns"] for a in cfg["access_mbps"]]
    jobs += [(p.PRIMARY, 100, a, seed) for seed in seeds[1:] for a in cfg["access_mbps"]]
    scs = [p.scenario(flows=n, capacity_bps=1e9, buffer=10, variant="reno", rtt=r, duration=cfg["duration"],
                      warmup=cfg["warmup"], max_window=10_000, access_bps=a * 1e6, seed=seed) for r, n, a, seed in jobs]
    ctx.say(f"      {len(scs)} runs")
    res = run_scenarios(scs, ctx)
    runs = pd.DataFrame([{"rtt": r, "n": n, "access_mbps": a, "seed": seed, "offered_fraction": n * a * 1e6 / 1e9,
                          "utilization": x["summary"]["utilization"], "loss_rate": x["summary"]["loss_rate"]}
                         for (r, n, a, seed), x in zip(jobs, res)])
    df = runs[runs.seed == seeds[0]].drop(columns="seed").reset_index(drop=True)
    # the identical-RTT series is a sensitivity run: drawn and listed, not checked
    checked = runs[(runs.rtt == p.PRIMARY) & (runs.n == 100)]
    checks = pool_seeds(seeds, [checks_of(checked[checked.seed == s], p.RTT_LABEL[p.PRIMARY]) for s in seeds])
    fig, axes = figure(1, 2, width=9.0, height=3.8)
    for ax, r in zip(axes, p.RTTS):
        for n in cfg["ns"]:
            d = df[(df.rtt == r) & (df.n == n)]
            ax.plot(d.access_mbps, d.utilization, marker="o", label=f"N = {n}")
            ax.plot(d.access_mbps, d.offered_fraction.clip(upper=1), "k:", lw=0.8)
        ax.set_xscale("log")
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("access-link capacity (Mb/s)")
        ax.set_ylabel("core throughput (fraction of 1 Gb/s)")
        ax.set_title(f"Reno, B = 10, {p.RTT_LABEL[r]}", fontsize=9)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    finish(fig, "002 Fig. 5: link pacing by slow access links")
    return FigureOutput(
        data=df, checks=checks, figure=fig, extra_tables={"runs": runs},
        inputs={"scenario_template": scs[0].to_dict(), **{k: (list(v) if isinstance(v, tuple) else v) for k, v in cfg.items()},
                "rtts": p.RTTS},
        deviations=[p.ENGINE + f" Caption lost; access capacities, the other N values, the access buffers and the "
                    f"duration are not stated ({ctx.mode}: {list(cfg['access_mbps'])} Mb/s, N = {list(cfg['ns'])}, "
                    f"unlimited access buffers, {cfg['duration']:g}-s runs). The checks are judged on the mean over seeds "
                    f"{', '.join(str(x) for x in seeds)} of the checked series (runs.csv); the figure and data.csv "
                    "are seed 1's."],
        notes=_monotone_notes(df, checks))


def _monotone_notes(df, checks):
    from bufsize.reproduce import _p002 as p

    sens = df[(df.rtt == p.SENSITIVITY) & (df.n == 100)].sort_values("access_mbps")
    out = [f"{p.RTT_LABEL[p.SENSITIVITY]}, not checked, N = 100: " + ", ".join(
        f"{a:g} Mb/s {u:.3f}" for a, u in zip(sens.access_mbps, sens.utilization)) + "."]
    for c in checks:
        if "monotone" in c.claim and not c.passed and c.ours == c.ours:
            d = df[(df.rtt == p.PRIMARY) & (df.n == 100)].sort_values("access_mbps")
            out.append(f"{c.claim.split(':')[0]}: utilization beyond the peak rises by up to {c.ours * 100:.1f} pt between "
                       "neighbouring access capacities (" + ", ".join(f"{a:g} Mb/s {u:.3f}" for a, u in
                                                                      zip(d.access_mbps, d.utilization)) +
                       f"). Beyond the peak the curve spans {d[d.access_mbps > d.access_mbps.iloc[int(d.utilization.values.argmax())]].utilization.min():.3f}–"
                       f"{d[d.access_mbps > d.access_mbps.iloc[int(d.utilization.values.argmax())]].utilization.max():.3f}: "
                       "where it levels off rather than falls, one seed per point decides the order of neighbouring "
                       "points (the run-to-run spread is not measured here). The overall fall (the check above) holds.")
    return out
