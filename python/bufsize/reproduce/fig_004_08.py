"""004-Fig8: probability distribution of the sum of congestion windows of many flows vs a normal."""

from __future__ import annotations

from bufsize.reproduce import _many_flows
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_range
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id="fig_004_08",
    paper_id="004-Fig8",
    title="Probability distribution of the sum of congestion windows vs a normal distribution (§3.2)",
    kind="simulation",
    kind_detail="simulation",
    needs=("MET-SUMW", "TRF-RTT", "TRF-START", "EXP-STATS", "TRF-BULK", "TCP-RENO", "SIM-Q"),
    paper_cost="12 M",
    quick_seconds=8.0,
)



#: the seeds of the runs whose Σcwnd is judged (the figure shows the first)
SEEDS = {"quick": (1,), "full": (1, 2, 3, 4, 5)}

SETUP = _many_flows.SETUP + (
    Setting("seeds", "1, 2, 3, 4, 5: the KS distance on their mean, the figure from seed 1 (quick: 1)", "ours",
            "the distance to the normal varies by seed; five give the check an interval"),
)


def normal_check(ks: float | list[float], skew: float, timeouts: int, seeds: tuple[int, ...] = (1,)):
    """'ΣW is close to a normal distribution' (KS distance; with several seeds their mean, each seed's
    distance kept for the interval); a miss carries its cause (skewness and timeouts of the first seed)."""
    from bufsize.reproduce.fig_004_09 import UNSTATED

    each = [ks] if isinstance(ks, float) else list(ks)
    mean = sum(each) / len(each)
    over = "" if len(each) == 1 else f", mean over seeds {', '.join(str(x) for x in seeds)}"
    c = check_range(f"ΣW is close to a normal distribution (KS distance to the fitted normal{over})", None, mean,
                    0.0, 0.05, why="≤ 0.05 assumed").over_seeds(seeds, each)
    if not c.passed:
        c.because("setup", f"{UNSTATED}. ΣW departs from the normal by a long left tail (skewness {skew:+.2f} in seed "
                  f"{seeds[0]}): windows lost together when the buffer overflows and plain Reno's recoveries from "
                  f"several losses in one window by timeout ({timeouts} in seed {seeds[0]}'s measured window); with "
                  "NewReno the same quick run gave KS 0.040 (a check run, carried over in the notes)")
    return c

def run(ctx) -> FigureOutput:
    import numpy as np
    import pandas as pd
    from scipy import stats

    from bufsize.models import appenzeller as ap
    from bufsize.reproduce import _many_flows as mf
    from bufsize.reproduce._plot import figure, finish

    seeds = SEEDS["quick" if ctx.quick else "full"]
    ks_each = []
    for seed in seeds[1:]:
        wx = mf.run_many(ctx, seed)[2].values
        ks_each.append(float(stats.kstest(wx, "norm", args=(float(np.mean(wx)), float(np.std(wx)))).statistic))
    sc, res, w, q = mf.run_many(ctx)
    x = w.values
    mu, sd = float(np.mean(x)), float(np.std(x))
    ks = float(stats.kstest(x, "norm", args=(mu, sd)).statistic)
    ks_each.insert(0, ks)
    sd_model = ap.sum_of_windows_std(mf.BDP, mf.BUFFER, mf.N)
    counts, edges = np.histogram(x, bins=40)
    centers = (edges[:-1] + edges[1:]) / 2
    prob = counts / counts.sum()
    normal = stats.norm.pdf(centers, mu, sd) * (edges[1] - edges[0])
    df = pd.DataFrame({"sum_cwnd_bin_center": centers, "probability": prob, "normal_fit": normal})
    # where the outstanding packets fit into pipe + buffer (offset = measured mean of ΣW − Q)
    offset = float(np.nanmean(x - q.values))
    s = res["summary"]
    checks = [normal_check(ks_each, float(stats.skew(x)), int(s["timeouts"]), seeds)]
    fig, ax = figure()
    ax.bar(centers, prob, width=edges[1] - edges[0], alpha=0.6, label="simulation: Σ cwnd")
    ax.plot(centers, normal, color="C3", label=f"normal N({mu:.0f}, {sd:.0f})")
    ax.axvline(offset, color="k", ls=":", lw=1, label="pipe (mean ΣW − Q): link under-utilized left")
    ax.axvline(offset + mf.BUFFER, color="k", ls="--", lw=1, label="pipe + B: packets dropped right")
    ax.set_xlabel("packets")
    ax.set_ylabel("probability")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    finish(fig, f"004 Fig. 8: Σ cwnd of {mf.N} flows, KS = {ks:.3f}")
    return FigureOutput(
        data=df, checks=checks, figure=fig,
        inputs={"scenarios": [sc.to_dict()], "seeds": list(seeds), "sample_interval_s": mf.TRACE_S,
                "sum_cwnd": {"mean": mu, "std": sd, "model_std_bound": sd_model, "ks": ks,
                             "ks_per_seed": dict(zip(map(str, seeds), ks_each))},
                "utilization": s["utilization"], "loss_rate": s["loss_rate"]},
        deviations=["n, C, RTT and B are not stated; FIGURES.md's defaults (1 Gb/s, 1000 B, RTT U[21, 147] ms, "
                    "n = 500, B = BDP/√n = 470) are used. Σcwnd is sampled every 25 ms after the warm-up "
                    "(the samples are correlated; the KS distance is descriptive). " + mf.ENGINE_NOTE],
        notes=[f"σ(ΣW) = {sd:.0f} packets against the model bound {sd_model:.0f}: the bound assumes independent "
               f"uniform sawtooths, the simulated flows are partly correlated; the paper's σ = 400 at mean 11 000 "
               f"implies ≈ 28 flows under its own model (FIGURES.md §8.4), so no number is checked.",
               f"KS distance {ks:.3f} against the assumed ≤ 0.05 (skewness {float(stats.skew(x)):+.2f}, excess kurtosis "
               f"{float(stats.kurtosis(x)):+.2f}): the deviation from the normal is a long left tail, the windows lost "
               "together when the 470-packet buffer overflows and the flows that wait out timeouts "
               f"({s['timeouts']} in the measured window). With NewReno (fewer timeouts: 12 063) the same run gave KS "
               "0.040, skewness −0.52, so most of the miss is Reno's multiple-loss recoveries (the paper compares its "
               "histogram with a normal by eye and states no distance; ≤ 0.05 is FIGURES.md's assumption)."])
