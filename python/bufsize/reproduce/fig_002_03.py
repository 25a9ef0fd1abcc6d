"""002-Fig3: paced TCP vs TCP Reno as the number of flows grows at a constant 80 % peak load.

Wmax = 32, B = 10, C = N × 3.2 Mb/s (peak load 0.8 with RTT 100 ms), N from 1 up (1062 at full scale).
"""

from __future__ import annotations

from bufsize.reproduce._core import FigureOutput, FigureSpec, check_abs, check_range

SPEC = FigureSpec(
    id="fig_002_03",
    paper_id="002-Fig3",
    title="Paced TCP vs TCP Reno, constant 80 % peak load (§III)",
    kind="simulation",
    kind_detail="simulation",
    needs=("TCP-PACED", "TCP-RENO", "MET-UTIL", "TCP-WMAX", "TRF-BULK", "SIM-Q", "EXP-SWEEP"),
    paper_cost="≈ 0.8 G",
    quick_seconds=12.0,
)

SCALE = {"quick": {"ns": (1, 2, 5, 10, 20, 50, 100, 200), "duration": 80.0, "warmup": 20.0},
         "full": {"ns": (1, 2, 5, 10, 20, 50, 100, 200, 500, 1062), "duration": 300.0, "warmup": 60.0}}
PAPER = {"paced": 0.70, "reno": 0.20}


def run(ctx) -> FigureOutput:
    import pandas as pd

    from bufsize.reproduce import _p002 as p
    from bufsize.reproduce._plot import figure, finish
    from bufsize.reproduce._sim import run_scenarios

    cfg = SCALE[ctx.mode]
    jobs = [(r, v, n) for r in p.RTTS for v in p.VARIANTS for n in cfg["ns"]]
    scs = [p.scenario(flows=n, capacity_bps=n * 3.2e6, buffer=10, variant=v, rtt=r, duration=cfg["duration"],
                      warmup=cfg["warmup"]) for r, v, n in jobs]
    ctx.say(f"      {len(scs)} runs")
    res = run_scenarios(scs, ctx)
    df = pd.DataFrame([{"rtt": r, "variant": v, "n": n, "capacity_bps": n * 3.2e6,
                        "utilization": x["summary"]["utilization"], "effective_utilization": x["summary"]["utilization"] / 0.8,
                        "loss_rate": x["summary"]["loss_rate"]} for (r, v, n), x in zip(jobs, res)])
    checks = []
    for r in p.RTTS:
        for v, target in PAPER.items():
            d = df[(df.rtt == r) & (df.variant == v)]
            if r == "spread":   # with one or two flows the RTT draws, not 0.8, set the peak load
                d = d[d.n >= 5]
            nlab = " over N ≥ 5" if r == "spread" else " over N"
            checks.append(check_abs(f"{p.RTT_LABEL[r]}: {v} ≈ {target:.0%} throughput (mean{nlab})", target,
                                    float(d.utilization.mean()), 0.07, why="±7 pt"))
            checks.append(check_range(f"{p.RTT_LABEL[r]}: {v} flat in N (max − min{nlab})", 0.0,
                                      float(d.utilization.max() - d.utilization.min()), 0.0, 0.10, why="≤ 10 pt"))
    fig, axes = figure(1, 2, width=9.0, height=3.8)
    for ax, r in zip(axes, p.RTTS):
        for v in p.VARIANTS:
            d = df[(df.rtt == r) & (df.variant == v)]
            ax.plot(d.n, d.utilization, marker="o", label="paced TCP" if v == "paced" else "TCP Reno")
        ax.set_xscale("log")
        ax.set_ylim(0, 1)
        ax.set_xlabel("number of flows N (C = N × 3.2 Mb/s)")
        ax.set_ylabel("throughput (utilization)")
        ax.set_title(p.RTT_LABEL[r], fontsize=9)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=8)
    finish(fig, "002 Fig. 3: 80 % peak load, B = 10, Wmax = 32")
    return FigureOutput(
        data=df, checks=checks, figure=fig,
        inputs={"scenario_template": scs[0].to_dict(), "ns": list(cfg["ns"]), "rtts": p.RTTS, "variants": p.VARIANTS,
                "duration_s": cfg["duration"], "warmup_s": cfg["warmup"], "seed": 1},
        deviations=[p.ENGINE + f" N values not stated: {list(cfg['ns'])} ({ctx.mode}; the paper goes to ≈ 1062 flows at "
                    f"3.4 Gb/s, which the --full scale runs); {cfg['duration']:g}-s runs, {cfg['warmup']:g} s warm-up.",
                    "With spread RTTs, C = N × 3.2 Mb/s no longer makes the peak load 0.8 for one or two flows (their "
                    "drawn RTTs decide it), so the spread checks use N ≥ 5; the mean peak load there is 0.8 × 0.1 × "
                    "E[1/RTT] ≈ 0.88."],
        notes=_notes(df))


def _notes(df):
    fx = df[df.rtt == "fixed"]
    sp = df[(df.rtt == "spread") & (df.n >= 5)]
    return [f"Identical 100-ms RTTs: both variants carry the whole offered 80 % ({fx.utilization.min():.3f}–"
            f"{fx.utilization.max():.3f}) with no loss at all, so Reno's collapse to ≈ 20 % never happens (the same "
            f"lossless ACK clock as in 002-Fig1/2). RTTs spread over 50–150 ms: Reno falls to "
            f"{sp[sp.variant == 'reno'].utilization.min():.2f}–{sp[sp.variant == 'reno'].utilization.max():.2f} and paced "
            f"TCP keeps {sp[sp.variant == 'paced'].utilization.min():.2f}–{sp[sp.variant == 'paced'].utilization.max():.2f}: "
            f"the paper's contrast, with both levels above its 20 % / 70 % (our paced TCP loses less than ns-2's at "
            f"B = 10, and the spread raises the peak load to ≈ 0.88)."]
