"""000-Fig9: average per-flow throughput vs flow size, B = 30 KB (§IV).

The T000 campaign (:mod:`bufsize.reproduce._p000_t000`), U3000 at the smallest buffer: the mean
throughput of the flows in size bins whose width grows exponentially (factor √2), with the
slow-start model R_ss = s/(T·D(s)) (eq. (1)), the S-model (eq. (2), v = 1) and the L-model (eq. (3),
k = 1.22, m = the 1460-byte MSS) evaluated with the run's average RTT and loss rate
(``bufsize.models.prasad``). The average RTT is the harmonic mean of the flows' mean RTTs, the one
whose model throughput equals the mean of the per-flow model throughputs of a bin (the arithmetic
mean is reported too). Bins with fewer than 20 flows are left out.

The classifier (§IV): flows with ≤ 4 congestion events (losses at least two RTTs apart, counted by
the engine per transfer) should be close to the S-model, flows with ≥ 5 to the L-model; "close" is
a median per-flow ratio within a factor 1.5 (assumed). The S-model's range is the bins where most
flows saw ≤ 4 congestion events. The "grey region" is the size bins whose mean is more than 20 %
from both models (assumed); footnote 6 says it carries < 15 % of the bytes.
"""

from __future__ import annotations

import math

from bufsize.reproduce import _p000_t000 as _pt
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_range, check_true
from bufsize.reproduce._p000_miss import if_miss
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id='fig_000_09',
    paper_id='000-Fig9',
    title='Average per-flow throughput vs flow size, B = 30 KB (§IV)',
    kind='testbed',
    kind_detail='testbed + overlay',
    needs=('M-000', 'MET-FLOW', 'EXP-STATS', 'TRF-CLOSED', 'TCP-NRSACK', 'TCP-RENO', 'TRF-RTT', 'SIM-QB', 'MET-UTIL', 'EXP-SWEEP', 'EXP-SEEDS'),
    paper_cost='T000',
    quick_seconds=70.0,
    note="simulator as the testbed's proxy; shares the T000 runs (after fig_000_03 it takes under 1 s)",
)

MIN_COUNT = 20
S_TOL = 0.20          # S-model within ±20 % of the bin means in its range (FIGURES.md, assumed)
SS_OVER = 1.20        # "significantly overestimates": ≥ 20 % above on average over the S-range (assumed)
CLOSE = 1.5           # classifier: median per-flow ratio to the model within a factor 1.5 (assumed)
FLAT_SLOPE = 0.3      # "size-independent": |d log R / d log s| ≤ 0.3 over the L-range bins (assumed)
L_FACTOR = 2.0        # L-model within a factor 2 of the L-range bins' mean (high variance; assumed)
GREY_MAX = 0.15

#: The size-binned throughput and the models over it (Figs 9 and 10), after the experiment and the buffer.
SETUP_SIZE_MODELS = _pt.SETUP_T000 + _pt.SETUP_T000_RUNS + (
    Setting("size bins", "widths growing by a factor √2, from one MSS to ≈ 1.5 GB; each point the mean throughput of "
            "a bin's flows, pooled over the seeds", "ours",
            "000: 'The bin width increases exponentially with the flow size' (§IV), without the factor; √2 gives about "
            "two bins per doubling"),
    Setting("flows per bin", f"at least {MIN_COUNT} (smaller bins left out)", "ours",
            "000 does not say; fewer flows make a heavy-tailed bin mean too noisy to compare with a model"),
    Setting("slow-start model", "eq. (1): D(s) = 1 + ⌈log2(M(s)/2)⌉ RTTs, an initial window of 2 and one RTT for the "
            "handshake", "paper", "the number of RTTs required to transfer M(s) segments during slow-start when the "
            "initial window is two segments and an additional RTT is needed for connection establishment", "§IV"),
    Setting("S-model v", "v = 1", "paper", "each dropped packet is usually recovered with Fast-Retransmit in one RTT, "
            "and so we set v=1", "§IV"),
    Setting("L-model k", f"k = {_pt.K_SQRT:g}", "paper", "(we set k=1.22)", "§IV"),
    Setting("model loss rate", "the run's loss rate at the bottleneck (drops / arrivals), averaged over the seeds",
            "paper", "we plot the S-model using the average RTT and loss rate observed in each experiment", "§IV"),
    Setting("model RTT", "the harmonic mean of the flows' mean RTTs (the arithmetic mean is reported beside it)",
            "ours", "000 says 'the average RTT' (§IV) without saying which mean; the harmonic one makes the model at "
            "that RTT equal the mean of the flows' model throughputs in a bin"),
    Setting("congestion event", "one or more losses at least two RTTs apart from other losses, counted per transfer "
            "by the engine", "paper", "A congestion event here is defined as one or more packet losses that are "
            "separated from other losses by at least two RTTs", "§IV"),
    Setting("classifier", "≤ 4 congestion events: S-model; ≥ 5: L-model", "paper",
            "Flows that saw at most four congestion events are reasonably close to the S-model, while flows that "
            "experienced five or more congestion events are closer to the L-model", "§IV"),
    Setting("S-model range", "the size bins where most flows saw ≤ 4 congestion events", "ours",
            "000 says the S-model's scope depends on the buffer (§IV) but not where it ends; the classifier draws it"),
    Setting("grey region", f"size bins more than {S_TOL:.0%} from both models", "ours",
            "000's 'grey region' of sizes neither model approximates (§IV, footnote 6) has no tolerance; FIGURES.md "
            "uses ±20 % for the S-model's fit"),
)

SETUP = (
    Setting("experiment", "U3000 (3000 users)", "paper",
            "We first analyze the results of the U3000 experiments", "§IV"),
    Setting("buffer", "30 KiB (30 720 bytes), the smallest of the grid", "paper",
            "Average per-flow throughput as a function of flow size for buffer size B=30KB", "Fig. 9 caption"),
) + SETUP_SIZE_MODELS


def analyse(ctx, buffer_index: int) -> dict:
    """The bins of U3000 at one buffer (pooled over the seeds) and the models' parameters."""
    from bufsize.reproduce import _p000_t000 as p

    camp = p.campaign(ctx, users=(3000,), buffers=(buffer_index,))
    return {"camp": camp, **analyse_records(list(camp["records"].values()), p.BUFFERS[buffer_index])}


def analyse_records(recs: list, buffer_bytes: int) -> dict:
    """Bins, model parameters, classes and grey share of the reduced records of one buffer."""
    import numpy as np

    from bufsize.reproduce import _p000_t000 as p

    bins = p.binned(recs, MIN_COUNT)
    all_bins = p.binned(recs, 1)
    loss = float(np.mean([r["loss_rate"] for r in recs]))
    rtt_h = float(np.mean([r["rtt_harmonic_s"] for r in recs]))
    rtt_a = float(np.mean([r["rtt_mean_s"] for r in recs]))
    from bufsize.models import prasad as pm

    l_model = pm.l_model_throughput(rtt_h, loss, m=p.MSS, k=p.K_SQRT) * 8 / 1e6 if loss > 0 else math.inf
    bins["l_model_mbps"] = l_model
    bins["s_range"] = p.s_range(bins)
    grey, mask = p.grey_share(bins, l_model, S_TOL)
    bins["grey"] = mask
    classes = {c: {"n": sum(r["classes"][c]["n"] for r in recs),
                   "median_ratio_s": p.nanmean([r["classes"][c]["median_ratio_s"] for r in recs]),
                   "median_ratio_l": p.nanmean([r["classes"][c]["median_ratio_l"] for r in recs]),
                   "timeout_share": p.nanmean([r["classes"][c]["timeout_share"] for r in recs])}
               for c in ("le4", "ge5")}
    return {"bins": bins, "all_bins": all_bins, "loss": loss, "rtt_h": rtt_h, "rtt_a": rtt_a,
            "l_model": l_model, "grey": grey, "classes": classes,
            "buffer_bytes": buffer_bytes, "utilization": float(np.mean([r["utilization"] for r in recs]))}


def s_fit(a: dict) -> tuple[float, float]:
    """(largest |mean / S-model − 1| over the S-range bins, mean R_ss / mean over them)."""
    import numpy as np

    b = a["bins"][a["bins"].s_range]
    if b.empty:
        return math.nan, math.nan
    err = np.abs(b.thr_mean_mbps / b.s_model_mbps - 1)
    return float(err.max()), float((b.slow_start_mbps / b.thr_mean_mbps).mean())


def classifier_checks(a: dict) -> list:
    c = a["classes"]
    out = []
    for cls, own, other, label in (("le4", "s", "l", "≤ 4 congestion events ~ S-model"),
                                   ("ge5", "l", "s", "≥ 5 congestion events ~ L-model")):
        r_own, r_other = c[cls][f"median_ratio_{own}"], c[cls][f"median_ratio_{other}"]
        close = math.isfinite(r_own) and 1 / CLOSE <= r_own <= CLOSE
        closer = math.isfinite(r_own) and math.isfinite(r_other) and abs(math.log(r_own)) < abs(math.log(max(r_other, 1e-300)))
        out.append(check_true(f"classifier: flows with {label} ({c[cls]['n']} flows; median throughput / "
                              f"{own.upper()}-model {r_own:.2f}, / {other.upper()}-model {r_other:.2f})",
                              close and closer, f"median ratio within ×{CLOSE:g} of its model and closer to it than "
                              "to the other (assumed)", value=r_own))
    return out


def bernoulli_note(a: dict, row) -> str:
    """How a bin's share of loss-free flows compares with independent losses at the run's rate."""
    expect = (1 - a["loss"]) ** row.segments_mean
    return (f"{row.no_drop_share:.0%} of its flows lose no packet, where independent losses at the run's rate "
            f"p = {a['loss']:.3g} would leave (1 − p)^M = {expect:.0%} (M = {row.segments_mean:.0f} segments)")


def model_gap(a: dict) -> str:
    """The setup cause of a miss of the models against the run: how the run's losses fall on its flows."""
    from bufsize.reproduce.fig_000_03 import TESTBED

    le4 = a["classes"]["le4"]
    return (f"the models charge every flow the run's average loss rate (p = {a['loss']:.3g}) as independent single "
            f"drops; in our run the drops come in bursts (a slow-start overshoot loses a window's excess at once), "
            f"concentrate on fewer flows, and end in retransmission timeouts for {le4['timeout_share']:.0%} of the "
            f"≤ 4-event flows, so the size bins sit off both models differently from 000's testbed flows; {TESTBED}")


def miss_notes(a: dict) -> list[str]:
    import numpy as np

    b = a["bins"]
    out = []
    sr = b[b.s_range]
    if not sr.empty:
        err = np.abs(sr.thr_mean_mbps / sr.s_model_mbps - 1)
        if err.max() > S_TOL:
            w = sr.loc[err.idxmax()]
            out.append(f"The S-model misses its range by up to {err.max():.0%} (bin {w.size_lo_bytes / 1e3:.0f}–"
                       f"{w.size_hi_bytes / 1e3:.0f} KB: measured {w.thr_mean_mbps:.3g} Mb/s, S-model "
                       f"{w.s_model_mbps:.3g}); in that bin " + bernoulli_note(a, w) + ", and a congestion event costs "
                       f"{w.drops_per_event:.1f} dropped packets on average. The S-model charges every flow v·p·M RTTs "
                       "at the run's average loss rate, one per dropped packet; in the simulator the drops come in "
                       "bursts (a slow-start overshoot loses a window's excess at once) and concentrate on fewer flows"
                       + (", so the flows of that bin are faster than the model." if w.thr_mean_mbps > w.s_model_mbps
                          else f", but a loss that ends in a retransmission timeout costs far more than one RTT "
                               f"({a['classes']['le4']['timeout_share']:.0%} of the ≤ 4-event flows had one), so the "
                               "flows of that bin are slower than the model."))
    lr = b[~b.s_range]
    if lr.empty:
        k = b.share_le4.idxmin() if len(b) else None
        out.append("No size bin has a majority of flows with ≥ 5 congestion events, so the L-model's range is empty "
                   + (f"(lowest share of ≤ 4-event flows: {b.share_le4[k]:.0%} in the "
                      f"{b.size_lo_bytes[k] / 1e3:.0f}–{b.size_hi_bytes[k] / 1e3:.0f} KB bin)" if k is not None else "")
                   + ": the size-independent segment and its L-model check have nothing to measure.")
    else:
        ratio = float(lr.thr_mean_mbps.mean() / a["l_model"]) if math.isfinite(a["l_model"]) else math.nan
        if not (1 / L_FACTOR <= ratio <= L_FACTOR):
            out.append(f"The {len(lr)} bins where most flows saw ≥ 5 congestion events average {ratio:.2f}× the L-model "
                       f"({a['l_model']:.2f} Mb/s at the run's p and T); inside them the ≥ 5-event flows average "
                       f"{np.nanmean(lr.thr_ge5_mbps):.2f} Mb/s and the others {np.nanmean(lr.thr_le4_mbps):.2f} Mb/s, so "
                       "the bin means are pulled up by the minority that stayed near slow start.")
    le4 = a["classes"]["le4"]
    if le4["n"] and math.isfinite(a["l_model"]):
        from bufsize.models import prasad as pm
        from bufsize.reproduce import _p000_t000 as p

        r_s, r_l = le4["median_ratio_s"], le4["median_ratio_l"]
        if not (abs(math.log(r_s)) < abs(math.log(max(r_l, 1e-300)))):
            s80 = pm.s_model_throughput(80_000, a["rtt_h"], a["loss"], m=p.MSS) * 8 / 1e6
            out.append(f"The ≤ 4-event flows are {r_s:.2f}× the S-model and {r_l:.2f}× the L-model in the median: at "
                       f"this loss rate the two models nearly meet for typical sizes (S-model at 80 KB "
                       f"{s80:.2f} Mb/s, L-model {a['l_model']:.2f} Mb/s), so the classifier cannot separate them here.")
    ge5 = a["classes"]["ge5"]
    if ge5["n"] and not (1 / CLOSE <= ge5["median_ratio_l"] <= CLOSE):
        out.append(f"The {ge5['n']} flows with ≥ 5 congestion events reach a median {ge5['median_ratio_l']:.2f}× the "
                   f"L-model; {ge5['timeout_share']:.0%} of them had at least one retransmission timeout (of the ≤ 4 "
                   f"class: {a['classes']['le4']['timeout_share']:.0%}): they are timeout-bound, not in congestion "
                   "avoidance, which the square-root law does not describe.")
    if a["grey"] > GREY_MAX:
        g = b[b.grey]
        out.append(f"Grey region: {a['grey']:.0%} of the bytes are in size bins that neither model matches within 20 % "
                   f"({int(g.s_range.sum())} bins of the S-model's range, {int((~g.s_range).sum())} of the L-model's; "
                   "see the two notes above).")
    return out


def figure_for(a: dict, title: str, *, l_model: bool = True, slow_start: bool = True):
    from bufsize.reproduce._plot import figure, finish

    b = a["bins"]
    fig, ax = figure()
    ax.errorbar(b.size_mean_kb, b.thr_mean_mbps, yerr=b.thr_std_mbps / b.n ** 0.5, fmt="o", ms=4, color="k",
                label="simulation: mean per size bin (± s.e.)")
    ax.plot(b.size_mean_kb, b.thr_le4_mbps, ".", color="C0", alpha=0.6, label="flows with ≤ 4 congestion events")
    if b.thr_ge5_mbps.notna().any():
        ax.plot(b.size_mean_kb, b.thr_ge5_mbps, "x", color="C3", alpha=0.6, ms=4, label="flows with ≥ 5 congestion events")
    ax.plot(b.size_mean_kb, b.s_model_mbps, "-", color="C0", label=f"S-model (v = 1, p = {a['loss']:.3g}, "
            f"T = {a['rtt_h'] * 1e3:.0f} ms)")
    if slow_start:
        ax.plot(b.size_mean_kb, b.slow_start_mbps, "--", color="C2", label="slow-start model s/(T·D(s))")
    if l_model and math.isfinite(a["l_model"]):
        ax.axhline(a["l_model"], color="C3", ls="-.", label=f"L-model (k = 1.22) {a['l_model']:.2f} Mb/s")
    if b.grey.any():
        g = b[b.grey]
        ax.plot(g.size_mean_kb, g.thr_mean_mbps, "s", mfc="none", mec="0.5", ms=9, label="grey region (neither model ±20 %)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("flow size (KB), log scale; bins grow by √2")
    ax.set_ylabel("average per-flow throughput (Mb/s)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    return finish(fig, title)


def common_inputs(a: dict) -> dict:
    from bufsize.reproduce import _p000_t000 as p

    camp = a["camp"]
    return {"scenario_template": camp["template"].to_dict(), "users": 3000, "buffer_bytes": a["buffer_bytes"],
            "seeds": list(camp["config"]["seeds"]), "duration_s": camp["config"]["duration"],
            "warmup_s": camp["config"]["warmup"], "loss_rate": a["loss"], "rtt_harmonic_s": a["rtt_h"],
            "rtt_arithmetic_s": a["rtt_a"], "utilization": a["utilization"], "mss_bytes": p.MSS, "v": 1.0,
            "k": p.K_SQRT, "bin_edges_bytes": list(p.BIN_EDGES), "min_flows_per_bin": MIN_COUNT,
            "classes": a["classes"], "grey_byte_share": a["grey"]}


def run(ctx) -> FigureOutput:
    import numpy as np

    from bufsize.reproduce import _p000_t000 as p

    a = analyse(ctx, 0)
    b = a["bins"]
    err, ss_over = s_fit(a)
    lr = b[~b.s_range]
    if len(lr) >= 2:
        slope = float(np.polyfit(np.log(lr.size_mean_kb), np.log(lr.thr_mean_mbps), 1)[0])
    else:
        slope = math.nan
    l_ratio = float(lr.thr_mean_mbps.mean() / a["l_model"]) if len(lr) else math.nan
    checks = [
        check_range("the slow-start model significantly overestimates the increasing segment (mean R_ss / measured "
                    "over the S-model's range)", None, ss_over, SS_OVER, math.inf, why=f"≥ {SS_OVER:g} assumed"),
        check_range("the S-model approximates the increasing part (largest |measured / S-model − 1| over its range: "
                    f"{int(b.s_range.sum())} bins up to {b[b.s_range].size_hi_bytes.max() / 1e3 if b.s_range.any() else math.nan:.0f} KB)",
                    None, err, 0.0, S_TOL, why="±20 % (FIGURES.md, assumed)"),
        check_range(f"throughput tends to a size-independent value at large sizes (slope of log R vs log s over the "
                    f"{len(lr)} bins where most flows saw ≥ 5 congestion events)", 0.0, slope, -FLAT_SLOPE, FLAT_SLOPE,
                    why=f"|slope| ≤ {FLAT_SLOPE:g} assumed; NaN: fewer than two such bins"),
        check_range("… which the L-model approximates (mean of those bins / L-model)", 1.0, l_ratio, 1 / L_FACTOR,
                    L_FACTOR, why=f"within ×{L_FACTOR:g} assumed (high variance)"),
        *classifier_checks(a),
        check_range("the grey region (size bins neither model approximates within 20 %) carries < 15 % of the bytes",
                    GREY_MAX, a["grey"], 0.0, GREY_MAX, why="< 15 % (footnote 6)"),
    ]
    for c in checks:
        if_miss(c, "setup", model_gap(a))
    notes = miss_notes(a)
    if any(not c.passed for c in checks):
        def words(rec):
            x = analyse_records([rec], a["buffer_bytes"])
            e, over = s_fit(x)
            c = x["classes"]
            return (f"loss {x['loss']:.2%}, S-model off by up to {e:.0%} over its range, slow-start model "
                    f"{over:.2f}× the data, median ratios ≤ 4 events / S-model {c['le4']['median_ratio_s']:.2f} and "
                    f"≥ 5 events / L-model {c['ge5']['median_ratio_l']:.2f}, grey share {x['grey']:.0%}: the misses "
                    "are not an effect of the quick runs' length")
        extra = p.paper_length_text(ctx, 3000, 0, words)
        if extra:
            notes.append(extra.strip())
    notes += [f"Run: U3000, B = {a['buffer_bytes'] / 1024:.0f} KiB, utilization {a['utilization']:.3f}, loss rate "
             f"{a['loss']:.4f}, mean RTT {a['rtt_h'] * 1e3:.1f} ms harmonic / {a['rtt_a'] * 1e3:.1f} ms arithmetic. "
             f"With the arithmetic mean the S-model and slow-start curves would be {a['rtt_h'] / a['rtt_a']:.2f}× "
             "these."]
    inputs = common_inputs(a) | {"bins_table": "data.csv"}
    return FigureOutput(data=b, checks=checks, figure=figure_for(a, "000 Fig. 9: throughput vs flow size, U3000, "
                                                                    "B = 30 KiB (simulator)"),
                        inputs=inputs, deviations=p.deviations(ctx), notes=notes,
                        extra_tables={"bins_all": a["all_bins"]})
