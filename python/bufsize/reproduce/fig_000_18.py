"""000-Fig18: throughput of the S- and L-models with the EX-form loss, BDP = 500 packets (§VII-B.3).

Analytic, eqs. (15)–(18), C = 100 Mb/s, To = 60 ms, s = 30 packets, with (a, b, f) fitted to the
simulated EX case (Nin = 1000, U = 500, Γ = 10: closed-loop users behind 10 Mb/s input links, the
runs of table_000_2, ``_p000_optb``). The curves are drawn over the linear-delay range of the fit
only: R_L grows without bound as B → ∞ (MODELS.md P7). The measured median throughputs of the S and
L flows are drawn beside them. The other Γ = 10 rows of Table I get a sweep and a fit each for the
"every simulation" claims.
"""

from __future__ import annotations

import math

from bufsize.reproduce._core import FigureOutput, FigureSpec, check_range, check_true, with_kind
from bufsize.reproduce import _p000_closed as _pc
from bufsize.reproduce import _p000_optb as _po
from bufsize.reproduce._p000_miss import if_miss
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id='fig_000_18',
    paper_id='000-Fig18',
    title='TCP throughput for the S- and L-model with the EX-form loss (BDP = 500 packets) (§VII-B.3)',
    kind='analytic',
    kind_detail='analytic (sim-fitted a,b,f)',
    needs=('M-000', 'SIM-TOPO-GAMMA', 'TRF-CLOSED', 'TCP-RENO', 'MET-LOSS', 'MET-QDELAY', 'EXP-SWEEP', 'EXP-FIT'),
    paper_cost='needs 1 sim sweep, 80 M',
    quick_seconds=90.0,
    note="a, b, f fitted to the EX-case runs it shares with table_000_2 (quick_seconds: alone, both cases and Table I's "
         "other Γ = 10 rows; after table_000_2 only the rows, ≈ 20 s)",
)



def _rows_words() -> str:
    full, quick = _po.SCALE["full"]["rows"], _po.SCALE["quick"]["rows"]
    return (f"{len(full['buffers'])} buffers, {full['buffers'][0]}–{full['buffers'][-1]} packets × {full['duration']:g} s "
            f"({full['warmup']:g} s warm-up), the campaign's seeds (quick: {len(quick['buffers'])} buffers, "
            f"{quick['buffers'][0]}–{quick['buffers'][-1]} packets × {quick['duration']:g} s, {quick['warmup']:g} s)")


#: the model's parameters, the simulated EX case behind (a, b, f) (shared with table_000_2: _p000_optb), and
#: Table I's other Γ = 10 rows
SETUP = (
    Setting("C", "100 Mb/s (8333 packets/s of 1500 B)", "paper",
            "The capacity C and the propagation delay To in this example are 100Mbps and 60ms, respectively",
            "§VII-B.3"),
    Setting("To", "60 ms", "paper",
            "The capacity C and the propagation delay To in this example are 100Mbps and 60ms, respectively",
            "§VII-B.3"),
    Setting("C·To", "500 packets", "paper",
            "TCP throughput for the S-model and L-model when the loss rate is given by the EX-form (BDP = 500 pkts)",
            "Fig. 18 caption"),
) + _po.SETUP_MODEL + (
    Setting("parameter source", "(a, b, f) from our EX-case simulation (U = 500, Γ = 10; 500 input links, not "
            "1000: see the EX case's input links)", "paper",
            "The model parameters for the loss rate and the queueing delay are taken from the corresponding simulation "
            "with Nin=1000, U=500 and Γ=10", "§VII-B.3"),
    Setting("L-model optimum", "eq. (16)'s rule: B̂ = 0 when dR/dB < 0 at B = 0 (the stationary point is a minimum)",
            "paper", "if dR/dB is negative at B = 0, then the buffer size of (16) is positive … In that case, it is "
            "best to set the buffer size to zero (B̂ = 0)", "§VII-B.1"),
    Setting("S-model optimum", "the maximum of eq. (17) over [0, the delay cutoff] (B = 0 and the roots of (18))",
            "figures", "MODELS.md P7: R_S has a finite maximum; 'evaluate B = 0 and every root of (18) … and take the "
            "argmax', over the linear-delay range"),
    Setting("curve range", "0 to the EX fit's delay cutoff, 701 points", "figures",
            "FIGURES.md 000-Fig18: 'Plot over the linear-delay range only: R_L grows without bound as B → ∞'"),
) + _po.SETUP_EX_CASE + _pc.SETUP_S000 + _po.SETUP_SEEDS + _po.SETUP_FIT + (
    _pc.SETUP_DELAY_FIT[1],) + _po.SETUP_CLASSES + (
    Setting("other Γ = 10 rows", "Table I's (1000, 25), (20, 25) and (20, 500), each swept and fitted; (20, 25) is not "
            "judged", "paper", "except when Nin=20, U=25 and Γ=10, the case where the offered load is too small to "
            "generate any significant queueing and loss rate", "§VII-B.1"),
    Setting("other rows: input links", "min(Nin, U) with the users round-robin: 25, 20, 20", "ours",
            "(1000, 25) as Fig. 15 (one input per user, not 1000); the Nin = 20 rows keep their 20 inputs, shared by "
            "the users in turn, where 000's users pick a random server per transfer"),
    Setting("other rows: grid and run length", _rows_words(), "ours",
            "000 gives none; enough buffers below and around 0.1·C·To for the '< 0.1 BDP' claim and the EX fit"),
)


def gamma10_cause(judged) -> str:
    """The setup cause of a Γ = 10 miss: the rows' fits and optima come from our runs, with our agents and loads."""
    from bufsize.reproduce._p000_miss import stack_clause
    from bufsize.reproduce.table_000_2 import TCP

    rows = "; ".join(f"({x.nin}, {x.users}): b = {x.b:.3g}/packet, f = {x.f:.3f}, B̂_L {x.analysis_L:g}, B̂_S "
                     f"{x.analysis_S:g}, measured best S {x.measured_best_S:g} / L {x.measured_best_L:g} of "
                     f"{x.bdp_packets:.0f} packets, max utilization {x.utilization_max:.3f}"
                     for x in judged.itertuples())
    return (f"the fits and optima are those of our runs (ns-2's agents in 000; ours run "
            f"{stack_clause(TCP)}, and 000's users pick a random server per transfer where ours are spread "
            f"round-robin over the inputs): {rows}. Eq. (16) gives B̂_L = 0 only when b < 2f/(C·To), which the "
            "lighter-loaded rows' fits do not meet")


def run(ctx) -> FigureOutput:
    import numpy as np
    import pandas as pd

    from bufsize.models import prasad as pr
    from bufsize.reproduce import _p000_optb as o
    from bufsize.reproduce._plot import figure, finish

    camp = o.campaign(ctx)
    ex = camp["cases"]["ex"]
    fit, an = ex["fit"], ex["analysis"]
    cp = o.c_pps(o.CASES["ex"]["c_out"])
    bdp = ex["bdp"]
    a, b, f = fit["a"], fit["b"], fit["f"]
    bmax = float(fit["cutoff_packets"])
    B = np.linspace(0, bmax, 701)
    ok = all(math.isfinite(x) and x > 0 for x in (a, b, f))
    rs = np.array([pr.r_s_ex(x, a=a, b=b, f=f, C=cp, To=o.TO_S, s_bytes=o.S_BYTES, m=o.PACKET_BYTES) for x in B]) * 8 / 1e6 \
        if ok else np.full(len(B), np.nan)
    rl = np.array([pr.r_l_ex(x, a=a, b=b, f=f, C=cp, To=o.TO_S, m=o.PACKET_BYTES) for x in B]) * 8 / 1e6 \
        if ok else np.full(len(B), np.nan)
    df = pd.DataFrame({"buffer_packets": B, "r_s_mbps": rs, "r_l_mbps": rl})
    meas = {cls: ex["classes"][cls]["table"] for cls in ("S", "L")}

    rows = o.ex_rows(ctx)
    row_tab = pd.DataFrame([{"nin": k[0], "users": k[1], "bdp_packets": v["bdp"], "a": v["fit"]["a"],
                             "b": v["fit"]["b"], "f": v["fit"]["f"], "fit_r2": v["fit"]["r2"],
                             "cutoff_packets": v["fit"]["cutoff_packets"], "analysis_L": v["analysis"]["L"],
                             "analysis_S": v["analysis"]["S"], "measured_best_S": v["best"]["S"],
                             "measured_best_L": v["best"]["L"], "measured_best_all": v["best_all"],
                             "utilization_max": v["utilization_max"],
                             "low_load_exception": (k[0], k[1]) == o.LOW_LOAD_ROW} for k, v in rows.items()])
    judged = row_tab[~row_tab.low_load_exception]
    all_zero = bool(((judged.analysis_L == 0) & (judged.analysis_S == 0)).all())
    frac = np.maximum(judged.measured_best_S, judged.measured_best_L) / judged.bdp_packets
    checks = [
        check_range("optimal B = 0 for the S-model (eq. (17) maximum over the linear-delay range)", 0.0, an["S"], 0.0, 0.0),
        check_range("optimal B = 0 for the L-model (paper rule: dR_L/dB(0) < 0 ⇔ B_stat of eq. (16) > 0)", 0.0,
                    an["L"], 0.0, 0.0),
        check_true(f"B̂ = 0 for both models with the fit of every Γ = 10 row of Table I except (20, 25, 10) "
                   f"({len(judged)} rows)", all_zero, "exact zeros", value=int(((judged.analysis_L == 0) &
                                                                               (judged.analysis_S == 0)).sum())),
        check_true("in every Γ = 10 simulation the best measured median throughput (S and L flows) is at B = 0 or "
                   "< 0.1 BDP", bool((frac < 0.1).all()), "largest of the S and L optima < 0.1·BDP",
                   value=float(frac.max())),
    ]
    with_kind(checks, "measurement")   # optima of the models with a, b, f fitted to our Γ = 10 runs, and the runs
    for c in checks:
        if_miss(c, "setup", gamma10_cause(judged))
    notes = [f"EX fit over B = {fit['b_min']}–{bmax:g} packets: a = {a:.4g}, b = {b:.4g}/packet (R² {fit['r2']:.4f}; "
             f"PL R² {fit['other_form_r2']:.4f}), f = {f:.3f}; B_stat (16) = {an['L_stat']:.0f} packets "
             f"({'> 0: R_L falls at B = 0, the rule gives 0' if an['L_stat'] > 0 else '≤ 0'}); the bounded L maximum "
             f"over [0, {bmax:g}] is {an['L_bounded']:g}."]
    if ok:
        for cls, curve in (("S", rs), ("L", rl)):
            t = meas[cls][(meas[cls].buffer_packets >= fit["b_min"]) & (meas[cls].buffer_packets <= bmax)]
            if len(t):
                model = np.interp(t.buffer_packets, B, curve)
                ratio = model / t.median_mbps.to_numpy(float)
                notes.append(f"{cls}-model vs the measured {cls}-flow medians over B = {fit['b_min']}–{bmax:g}: the model "
                             f"is {ratio.min():.2f}–{ratio.max():.2f}× the measurement (the models use the average loss "
                             f"rate and one extra RTT per loss; the EX case's loss is ≈ {np.mean(fit['loss']):.2f}, "
                             f"where retransmission timeouts dominate, see table_000_2's notes).")
    for _, x in row_tab.iterrows():
        tag = " (the paper's low-load exception, not judged)" if x.low_load_exception else ""
        notes.append(f"Row Nin = {x.nin}, U = {x.users}{tag}: fit a = {x.a:.3g}, b = {x.b:.3g}, f = {x.f:.3f} "
                     f"(R² {x.fit_r2:.3f}, cutoff {x.cutoff_packets:g}); B̂_L = {x.analysis_L:g}, B̂_S = "
                     f"{x.analysis_S:g}; measured best S {x.measured_best_S:g}, L {x.measured_best_L:g} packets "
                     f"(BDP {x.bdp_packets:.0f}); max utilization {x.utilization_max:.3f}.")
    for _, x in judged.iterrows():
        if not (x.analysis_L == 0 and x.analysis_S == 0):
            bst = pr.ex_l_stationary_buffer(x.b, x.f, x.bdp_packets) if x.b > 0 and x.f > 0 else math.nan
            notes.append(f"Miss, row ({x.nin}, {x.users}): B̂_L = {x.analysis_L:g}, B̂_S = {x.analysis_S:g} instead of "
                         f"0. Most likely: at U = {x.users} the load is lighter (max utilization "
                         f"{x.utilization_max:.3f}) and the fitted b = {x.b:.3g}/packet is large against f/(C·To) = "
                         f"{x.f / x.bdp_packets:.3g}: B_stat = 2/b − C·To/f = {bst:.0f} packets ≤ 0, so R_L rises "
                         f"from B = 0; its fit rests on {int(rows[(x.nin, x.users)]['fit']['n'])} buffers of the "
                         f"linear-delay range (up to {x.cutoff_packets:g}).")
        f_ = max(x.measured_best_S, x.measured_best_L) / x.bdp_packets
        if not f_ < 0.1:
            parts = []
            for cls in ("S", "L"):
                t = rows[(x.nin, x.users)]["tables"][cls]
                small = t[t.buffer_packets < 0.1 * x.bdp_packets]
                if len(small) and t.median_mbps.notna().any():
                    parts.append(f"{cls}: best {t.median_mbps.max():.3f} Mb/s, best below 0.1 BDP "
                                 f"{small.median_mbps.max():.3f} Mb/s at B = "
                                 f"{small.buffer_packets[small.median_mbps.idxmax()]:.0f} "
                                 f"({small.median_mbps.max() / t.median_mbps.max() - 1:+.1%})")
            notes.append(f"Miss, row ({x.nin}, {x.users}): best measured medians at S {x.measured_best_S:g} / L "
                         f"{x.measured_best_L:g} packets = {f_:.2f} BDP (paper: < 0.1). Most likely: the medians are "
                         f"nearly flat near the top (one seed in quick mode), so a buffer just above 0.1 BDP = "
                         f"{0.1 * x.bdp_packets:.0f} packets can win by a few per cent; where the shortfall below "
                         f"0.1 BDP is larger, the engine's short transfers gain from the buffer (fewer timeouts, "
                         f"table_000_2's notes) or, at lighter load, the flows gain from the buffer as in the PL case. "
                         f"Measurement: {'; '.join(parts)} (row_medians.csv); max utilization "
                         f"{x.utilization_max:.3f}.")

    fig, ax = figure(width=7.0, height=4.4)
    ax.plot(B, rs, color="C0", label="S-model, eq. (17), s = 30 pkts")
    ax.plot(B, rl, color="C1", label="L-model, eq. (15)")
    for j, cls in enumerate(("S", "L")):
        t = meas[cls][meas[cls].buffer_packets <= bmax]
        ax.plot(t.buffer_packets, t.median_mbps, "o", ms=3, color=f"C{j}", alpha=0.6,
                label=f"measured median, {cls} flows")
    # the paper's claims: both models' optimum is B = 0, and every simulation's best measured throughput
    # was at B = 0 or below 0.1·BDP
    ax.axvspan(0, 0.1 * bdp, color="C3", alpha=0.08, lw=0, label="paper: best measured B < 0.1·BDP")
    ax.axvline(0, color="C3", ls=":", lw=1.2, label="paper: B̂ = 0 for both models")
    ax.set_xlabel("buffer B (packets)")
    ax.set_ylabel("throughput R(B) (Mb/s)")
    ax.set_yscale("log")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    finish(fig, f"000 Fig. 18: EX-form, BDP = {bdp:.0f} pkts, fitted a = {a:.3g}, b = {b:.3g}/pkt, f = {f:.2f}")
    cfg = camp["config"]
    return FigureOutput(
        data=df, checks=checks, figure=fig,
        inputs={"equations": "000 eqs. (15)-(18)", "C_pps": cp, "To_s": o.TO_S, "bdp_packets": bdp,
                "s_bytes": o.S_BYTES, "m_bytes": o.PACKET_BYTES, "v": 1.0, "k": 1.22, "a": a, "b": b, "f": f,
                "fit": {k: v for k, v in fit.items()}, "analysis": an,
                "ex_sweep": {"buffers": list(cfg["ex"]["coarse"]), "duration_s": cfg["ex"]["duration"],
                             "warmup_s": cfg["ex"]["warmup"], "seeds": list(camp["seeds"])},
                "rows_sweep": cfg["rows"]},
        deviations=o.deviations(ctx) + [
            "Table I's other Γ = 10 rows: one input link per user when Nin ≥ U (the paper's 1000); "
            f"{len(cfg['rows']['buffers'])} buffers × {cfg['rows']['duration']:g} s."],
        notes=notes,
        extra_tables={"rows": row_tab,
                      "row_medians": pd.concat([t.assign(nin=k[0], users=k[1], cls=c) for k, v in rows.items()
                                                for c, t in v["tables"].items()], ignore_index=True),
                      "measured": pd.concat([meas[c].assign(cls=c) for c in ("S", "L")])})
