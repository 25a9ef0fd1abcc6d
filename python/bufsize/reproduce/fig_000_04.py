"""000-Fig4: fraction of time under heavy load vs averaging time scale (§III-B.1).

One T000 experiment, U1000 with a 4 MiB buffer, run long: the bottleneck's utilization series
(``measure.queue_trace_interval_s`` = 10 ms; the queue trace's cumulative ``serialized_bits`` column, as
``SimResult.utilization_series`` uses it) averaged over non-overlapping windows of T seconds, and
the fraction of windows above 90 % and 95 %, for T from 10 ms to 100 s.

The paper's run averaged 68 %. A faithful closed loop of 1000 users offers less here (see
fig_000_03), so a second series raises the users to 1450 (chosen before the run as 1000 × 68/46.8,
from the quick U1000 utilization of fig_000_03) to look at the same statistic at the paper's mean
load; both are reported, each check says which run it is about.
"""

from __future__ import annotations

import math

from bufsize.reproduce import _p000_t000 as _pt
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_range
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id='fig_000_04',
    paper_id='000-Fig4',
    title='Fraction of time under heavy load vs averaging time scale (§III-B.1)',
    kind='testbed',
    kind_detail='testbed',
    needs=('TRF-CLOSED', 'MET-UTIL-TS', 'TCP-NRSACK', 'SIM-QB'),
    paper_cost='1 run, 17 M',
    quick_seconds=60.0,
    note="simulator as the testbed's proxy; two seeds of a long run, plus a run at the paper's 68 % mean load",
)

BUFFER_BYTES = 4 * 1024 * 1024
STEP_S = 0.01
SCALES = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0)
THRESHOLDS = (0.90, 0.95)
CALIBRATED_USERS = 1450
SCALE = {"quick": {"seeds": (1, 2), "duration": 660.0, "warmup": 60.0},
         "full": {"seeds": (1, 2, 3), "duration": 3660.0, "warmup": 60.0}}
SEVERAL_S = 5.0

SETUP = (
    Setting("experiment", "U1000 (1000 users)", "paper",
            "Experiment U1000 , Buffer size = 4MB", "Fig. 4 caption"),
    Setting("buffer", "4 MiB (4 194 304 bytes)", "paper", "Experiment U1000 , Buffer size = 4MB", "Fig. 4 caption"),
    Setting("buffer unit", "binary (MiB)", "figures",
            "MODELS.md: paper 000's testbed buffer sizes are binary MiB; the caption's '4MB' does not say"),
    Setting("second experiment", f"U{CALIBRATED_USERS} at the same buffer", "ours",
            f"our closed loop of 1000 users averages less than the paper's 68 % (fig_000_03); {CALIBRATED_USERS} = "
            "1000 × 68/46.8 (the quick U1000 utilization of fig_000_03), chosen before the run, shows the statistic at "
            "the paper's mean load"),
) + _pt.SETUP_T000 + (
    Setting("run length and warm-up", f"{SCALE['full']['duration']:g} s, the first {SCALE['full']['warmup']:g} s "
            f"discarded (quick: {SCALE['quick']['duration']:g} s, {SCALE['quick']['warmup']:g} s)", "figures",
            "FIGURES.md (Fig 4): 'Use a longer run (≥ 20 min, assumed) to stabilise the 10 s statistics'; the paper's "
            "run was 5 min with a 4-min average (§III-A, §III-B.1)"),
    Setting("seeds", f"{len(SCALE['full']['seeds'])} runs per experiment, windows pooled (quick: "
            f"{len(SCALE['quick']['seeds'])}); engine seeds 4000 + 10·seed (+1 for U{CALIBRATED_USERS})", "ours",
            "FIGURES.md: 'LRD makes this one number seed-dependent'; the paper shows one run"),
    Setting("utilization samples", f"the bits the port sends, sampled every {STEP_S * 1e3:g} ms", "ours",
            "the finest averaging scale shown; 000 does not say how it binned its traces"),
    Setting("averaging time scales", f"{len(SCALES)} scales from {SCALES[0] * 1e3:g} ms to {SCALES[-1]:g} s, "
            "non-overlapping windows from the warm-up's end", "ours",
            "000 does not state its axis's range; it names T = 10 s (§III-B.1)"),
    Setting("heavy-load thresholds", "ρ > 0.90 and ρ > 0.95", "paper",
            "Fraction of time a link is under heavy-load (i.e., more than 90% or 95% utilized)", "Fig. 4 caption"),
    Setting("'several seconds'", f"{SEVERAL_S:g}-s windows", "ours",
            "000: 'Congestion events lasting for several seconds' (§III-B.1) without a number"),
)


def heavy_fractions(t_s, bits, rate_bps: float, step_s: float, scales=SCALES, thresholds=THRESHOLDS):
    """Fraction of non-overlapping windows of each time scale whose utilization exceeds each threshold.

    ``bits``: cumulative bits serialized at the sample times ``t_s`` (equally spaced by ``step_s``).
    Returns rows (scale_s, threshold, windows, fraction, mean and standard deviation of the windows'
    utilization)."""
    import numpy as np

    t = np.asarray(t_s, float)
    b = np.asarray(bits, float)
    rows = []
    for T in scales:
        k = int(round(T / step_s))
        if k < 1 or k >= len(b):
            continue
        edges = np.arange(0, len(b), k)
        u = np.diff(b[edges]) / (rate_bps * np.diff(t[edges]))
        for th in thresholds:
            rows.append({"scale_s": T, "threshold": th, "windows": int(len(u)), "fraction": float((u > th).mean()),
                         "mean_utilization": float(u.mean()), "std_utilization": float(u.std())})
    return rows


def hurst(scales, stds) -> float:
    """Hurst parameter from the variance-time plot: Var(X_T) ∝ T^(2H−2), so H = 1 + slope(log std, log T)."""
    import numpy as np

    x, y = np.log(np.asarray(scales, float)), np.log(np.asarray(stds, float))
    ok = np.isfinite(x) & np.isfinite(y)
    if ok.sum() < 2:
        return math.nan
    return float(1 + np.polyfit(x[ok], y[ok], 1)[0])


#: a normal 10-s average of mean 68 % is above 95 % 7 % of the time with this standard deviation
NEEDED_STD = (0.95 - 0.68) / 1.476


def cause_of_miss(check, u1000_util: float, std10: dict[int, float]):
    """The setup cause of a miss: U1000's mean load (our closed loop offers less than the testbed's), or the
    smoothness of our aggregate at 10 s against the paper's trace."""
    from bufsize.reproduce._p000_miss import if_miss

    if check.claim.startswith("U1000, B = 4 MB"):
        return if_miss(check, "setup", f"our 1000 closed-loop users average {u1000_util:.1%}: each offers one file of "
                                       "the runs' mean size per think time plus download (fig_000_03's utilization "
                                       "cause, with the numbers); the paper's own ceiling for 1000 such users, "
                                       "without transfer times, is 64 %")
    u = CALIBRATED_USERS if check.claim.startswith(f"U{CALIBRATED_USERS}") else 1000
    return if_miss(check, "setup", f"our U{u} aggregate is smoother at 10 s than 000's testbed trace: its 10-s "
                                   f"averages have a standard deviation of {std10[u]:.3f}, where a mean of 68 % reaches "
                                   f"95 % 7 % of the time only with about {NEEDED_STD:.3f}; the simulator stands in for "
                                   "the testbed's Harpoon sessions, hosts and monitor, which it does not reproduce")


def run(ctx) -> FigureOutput:
    import pandas as pd

    from bufsize.reproduce import _p000_t000 as p
    from bufsize.reproduce._plot import figure, finish
    from bufsize.reproduce._sim import run_scenarios

    cfg = SCALE["quick" if ctx.quick else "full"]
    grid = [(u, s, p.scenario(u, BUFFER_BYTES, 4000 + 10 * s + (u == CALIBRATED_USERS), cfg["duration"],
                              cfg["warmup"], queue_trace=STEP_S))
            for u in (1000, CALIBRATED_USERS) for s in cfg["seeds"]]
    ctx.say(f"      {len(grid)} runs of {cfg['duration'] - cfg['warmup']:g} s measured")
    res = run_scenarios([g[2] for g in grid], ctx, tables=("queue_trace",))
    rows, runs = [], []
    for (u, s, sc), r in zip(grid, res):
        q = r["queue_trace"]
        for row in heavy_fractions(q.t_s, q.serialized_bits, p.RATE_BPS, STEP_S):
            rows.append({"users": u, "seed": s, **row})
        runs.append({"users": u, "seed": s, "utilization": r["summary"]["utilization"],
                     "loss_rate": r["summary"]["loss_rate"], "queue_delay_mean_ms": r["summary"]["queue_delay_mean_s"] * 1e3,
                     "samples": len(q)})
    per_run = pd.DataFrame(rows)
    runs = pd.DataFrame(runs)
    # pooled over the seeds: a window-weighted mean of the per-run fractions
    per_run["hits"] = per_run.fraction * per_run.windows
    data = per_run.groupby(["users", "scale_s", "threshold"], as_index=False).agg(
        windows=("windows", "sum"), hits=("hits", "sum"), std_utilization=("std_utilization", "mean"))
    data["fraction"] = data.hits / data.windows
    data = data.drop(columns=["hits"])
    util = runs.groupby("users").utilization.mean()

    def frac(u, T, th):
        r = data[(data.users == u) & (data.scale_s == T) & (data.threshold == th)]
        return float(r.fraction.iloc[0]) if len(r) else math.nan

    checks = [
        check_range("U1000, B = 4 MB: long-term average utilization 68 %", 0.68, float(util[1000]), 0.63, 0.73,
                    why="±5 pt (FIGURES.md)"),
        check_range("U1000: at T = 10 s the link is above 95 % about 7 % of the time", 0.07, frac(1000, 10.0, 0.95),
                    0.035, 0.14, why="×2, 3.5–14 % (FIGURES.md: LRD makes it seed-dependent)"),
        check_range(f"U1000: heavy-load periods of several seconds exist (fraction of {SEVERAL_S:g}-s windows above 95 %)",
                    None, frac(1000, SEVERAL_S, 0.95), 1e-12, 1.0, why="> 0; 'several seconds' = 5 s assumed"),
        check_range(f"U{CALIBRATED_USERS} (mean load {util[CALIBRATED_USERS]:.1%}, near the paper's 68 %): at T = 10 s "
                    "above 95 % about 7 % of the time", 0.07, frac(CALIBRATED_USERS, 10.0, 0.95), 0.035, 0.14,
                    why="×2 (FIGURES.md)"),
        check_range(f"U{CALIBRATED_USERS}: heavy-load periods of several seconds exist (fraction of {SEVERAL_S:g}-s "
                    "windows above 95 %)", None, frac(CALIBRATED_USERS, SEVERAL_S, 0.95), 1e-12, 1.0,
                    why="> 0; 'several seconds' = 5 s assumed"),
    ]
    notes = []
    if not (0.63 <= util[1000] <= 0.73):
        notes.append(f"U1000 averages {util[1000]:.1%} here against the paper's 68 % ({(0.68 - util[1000]) * 100:.1f} pt "
                     "lower): 1000 closed-loop users with 1-s think times and 80-KB files offer at most U·S̄/(Th + T̄t) of "
                     "the link (fig_000_03 measures it; the paper's own ceiling without transfer times is 64 %). The "
                     f"U{CALIBRATED_USERS} series shows the time-scale statistics at a mean near 68 % "
                     f"({util[CALIBRATED_USERS]:.1%}).")
    f10 = frac(1000, 10.0, 0.95)
    if not (0.035 <= f10 <= 0.14):
        notes.append(f"U1000 at T = 10 s: above 95 % for {f10:.1%} of the windows, against about 7 %: at a mean of "
                     f"{util[1000]:.1%} a 10-s window rarely reaches 95 %; with U{CALIBRATED_USERS} "
                     f"({util[CALIBRATED_USERS]:.1%} mean) the fraction is {frac(CALIBRATED_USERS, 10.0, 0.95):.1%}.")
    need_std = (0.95 - 0.68) / 1.476  # a normal 10-s average of mean 68 % above 95 % 7 % of the time
    for u in (1000, CALIBRATED_USERS):
        d = data[(data.users == u) & (data.threshold == 0.95) & (data.scale_s >= 1) & (data.scale_s <= 50)]
        h = hurst(d.scale_s, d.std_utilization)
        std10 = float(data[(data.users == u) & (data.scale_s == 10.0)].std_utilization.iloc[0])
        notes.append(f"U{u}: the 10-s averages have a standard deviation of {std10:.3f} (a normal variable of mean 68 % "
                     f"is above 95 % 7 % of the time with {need_std:.3f}); the variance-time slope over 1–50 s gives "
                     f"H ≈ {h:.2f} (0.5: short-range; the Pareto-1.5 ON periods predict 0.75; the estimate from "
                     f"{len(cfg['seeds'])} × {cfg['duration'] - cfg['warmup']:g} s is rough). "
                     + ("The aggregate is long-range dependent, but" if h > 0.6 else "Whatever its dependence,")
                     + " the load of 1000–1450 users each fetching 80 KB on average is far smoother at 10 s than the "
                     "paper's testbed trace; the testbed's Harpoon sessions, its hosts and its monitor are not "
                     "reproduced.")
    std10 = {u: float(data[(data.users == u) & (data.scale_s == 10.0)].std_utilization.iloc[0])
             for u in (1000, CALIBRATED_USERS)}
    for c in checks:
        cause_of_miss(c, float(util[1000]), std10)
    fig, ax = figure()
    for u, color in ((1000, "C0"), (CALIBRATED_USERS, "C1")):
        for th, ls in zip(THRESHOLDS, ("-", "--")):
            d = data[(data.users == u) & (data.threshold == th)]
            ax.plot(d.scale_s, d.fraction, "o" + ls, ms=3, color=color,
                    label=f"U{u} (mean {util[u]:.0%}): ρ > {th:.2f}")
    ax.axvline(10, color="0.7", ls=":", lw=1)
    ax.errorbar([10], [0.07], yerr=[[0.07 - 0.035], [0.14 - 0.07]], fmt="k*", ms=9, capsize=4, lw=1,
                label="paper: ≈ 7 % above 0.95 at T = 10 s (check's band 3.5–14 %)")
    ax.set_xscale("log")
    ax.set_xlabel("averaging time scale T (s), log scale")
    ax.set_ylabel("fraction of time above the threshold")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    finish(fig, "000 Fig. 4: heavy-load time vs averaging scale, B = 4 MiB (simulator)")
    return FigureOutput(
        data=data, checks=checks, figure=fig, extra_tables={"runs": runs, "per_run": per_run},
        inputs={"scenario_template": grid[0][2].to_dict(), "users": [1000, CALIBRATED_USERS],
                "seeds": list(cfg["seeds"]), "engine_seeds": [g[2].to_dict()["seed"] for g in grid],
                "duration_s": cfg["duration"], "warmup_s": cfg["warmup"], "buffer_bytes": BUFFER_BYTES,
                "sample_step_s": STEP_S, "scales_s": list(SCALES), "windows": "non-overlapping, from the warm-up's end"},
        deviations=p.deviations(ctx)[:1] + p.deviations(ctx)[2:4] + [
            f"{len(cfg['seeds'])} runs of {cfg['duration'] - cfg['warmup']:g} s measured after {cfg['warmup']:g} s "
            "(FIGURES.md: ≥ 20 min to steady the 10-s statistics; the paper: one 4-min window), pooled over the seeds.",
            f"A second experiment with {CALIBRATED_USERS} users, to reach the paper's 68 % mean load."],
        notes=notes)
