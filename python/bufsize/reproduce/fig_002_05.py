"""002-Fig5: link pacing — core throughput vs access-link capacity, unmodified TCP (caption lost).

Core 1 Gb/s with B = 10 packets, 100 Reno flows (others assumed: 200 at full scale), Wmax = 10 000
(effectively none), RTT 100 ms; each flow has its own access link of the swept capacity with a
large (unlimited) buffer.
"""

from __future__ import annotations

from bufsize.reproduce._core import FigureOutput, FigureSpec, check_range, check_true

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

SCALE = {"quick": {"ns": (100,), "access_mbps": (2, 4, 6, 8, 10, 12, 16, 25, 50, 100), "duration": 60.0, "warmup": 20.0},
         "full": {"ns": (100, 200), "access_mbps": (1, 2, 3, 4, 6, 8, 9, 10, 12, 16, 25, 50, 100), "duration": 200.0,
                  "warmup": 40.0}}


def run(ctx) -> FigureOutput:
    import pandas as pd

    from bufsize.reproduce import _p002 as p
    from bufsize.reproduce._plot import figure, finish
    from bufsize.reproduce._sim import run_scenarios

    cfg = SCALE[ctx.mode]
    jobs = [(r, n, a) for r in p.RTTS for n in cfg["ns"] for a in cfg["access_mbps"]]
    scs = [p.scenario(flows=n, capacity_bps=1e9, buffer=10, variant="reno", rtt=r, duration=cfg["duration"],
                      warmup=cfg["warmup"], max_window=10_000, access_bps=a * 1e6) for r, n, a in jobs]
    ctx.say(f"      {len(scs)} runs")
    res = run_scenarios(scs, ctx)
    df = pd.DataFrame([{"rtt": r, "n": n, "access_mbps": a, "offered_fraction": n * a * 1e6 / 1e9,
                        "utilization": x["summary"]["utilization"], "loss_rate": x["summary"]["loss_rate"]}
                       for (r, n, a), x in zip(jobs, res)])
    checks = []
    for r in (p.PRIMARY,):   # the identical-RTT series is a sensitivity run: drawn and listed, not checked
        d = df[(df.rtt == r) & (df.n == 100)].sort_values("access_mbps")
        lin = d[d.offered_fraction < 0.9]
        ratio = float((lin.utilization / lin.offered_fraction).min())
        checks.append(check_range(f"{p.RTT_LABEL[r]}: linear region (N·C_acc < 0.9 C_core): throughput ≈ N·C_acc/C_core",
                                  1.0, ratio, 0.95, 1.05, why="≥ 0.95 × (lowest ratio)"))
        peak_at = float(d.access_mbps.iloc[int(d.utilization.values.argmax())])
        checks.append(check_range(f"{p.RTT_LABEL[r]}: the peak lies near N·C_acc ≈ C_core (10 Mb/s for 100 flows)",
                                  10.0, peak_at, 6.0, 16.0, why="access capacity of the peak in 6–16 Mb/s assumed"))
        beyond = d[d.access_mbps >= peak_at].utilization.values
        checks.append(check_true(f"{p.RTT_LABEL[r]}: throughput then decreases as access capacity grows",
                                 bool(len(beyond) > 2 and beyond[-1] < beyond[0] - 0.05),
                                 "last point ≥ 5 pt below the peak (assumed; 'gradually decreases')",
                                 value=float(beyond[0] - beyond[-1]) if len(beyond) else None))
        rise = float(max(beyond[1:] - beyond[:-1])) if len(beyond) > 1 else float("nan")
        checks.append(check_true(f"{p.RTT_LABEL[r]}: … a monotone decline beyond the peak (largest rise between "
                                 f"successive access capacities)", len(beyond) > 1 and rise <= 0.0,
                                 "no rise (FIGURES.md: monotone decline beyond, assumed)", value=rise))
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
        data=df, checks=checks, figure=fig,
        inputs={"scenario_template": scs[0].to_dict(), **{k: (list(v) if isinstance(v, tuple) else v) for k, v in cfg.items()},
                "rtts": p.RTTS, "seed": 1},
        deviations=[p.ENGINE + f" Caption lost; access capacities, the other N values, the access buffers and the "
                    f"duration are not stated ({ctx.mode}: {list(cfg['access_mbps'])} Mb/s, N = {list(cfg['ns'])}, "
                    f"unlimited access buffers, {cfg['duration']:g}-s runs)."],
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
