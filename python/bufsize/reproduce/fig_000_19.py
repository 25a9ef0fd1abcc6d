"""000-Fig19: sensitivity of the throughput to errors in the optimal buffer, e_R(ω).

Analytic: L-model eq. (20), e_L(ω) = 1 − 2ω^(b/2)/(2 + b(ω − 1)) (independent of a, f, C, To);
S-model numerically from eqs. (12), (13), (19) with a = 1, f = 0.4, C·To = 250 packets, s = 30
packets (the paper does not state them; assumed as in FIGURES.md).
"""

from __future__ import annotations

from bufsize.reproduce._core import FigureOutput, FigureSpec, check_abs, check_rel, check_true
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id="fig_000_19",
    paper_id="000-Fig19",
    title="Sensitivity of throughput to errors in the optimal buffer size; L-model top, S-model bottom (§VII-D)",
    kind="analytic",
    kind_detail="analytic",
    needs=("M-000",),
    paper_cost="~0",
    quick_seconds=1.0,
)

BS = (0.35, 0.5, 1.0)
S_MODEL = {"a": 1.0, "f": 0.4, "C_To": 250.0, "M": 30, "D": 5}
#: MODELS.md P-31..35 (7 digits) and FIGURES.md [C] (3 decimals).
EXACT = {(0.4, 0.5): 0.0643874, (0.4, 1.0): 0.0964921, (0.4, 0.35): 0.0482181, (0.25, 1.0): 0.2,
         (1.75, 1.0): 0.0379086}
THREE = {(0.25, 0.35): 0.097, (0.25, 0.5): 0.130, (1.75, 0.35): 0.025, (1.75, 0.5): 0.031}

#: the model's parameters and where each comes from
SETUP = (
    Setting("loss and delay forms", "PL-form p = a·B^−b, d = f·B/C (eqs. (10), (12))", "paper",
            "we rely on the expressions for R(B) for the L-model and the S-model, in the case of the PL-form", "§VII-D"),
    Setting("b values", ", ".join(f"{b:g}" for b in BS), "paper", "We choose three values of b: 0.35, 0.5 and 1.0",
            "§VII-D"),
    Setting("ω range", "0.25–1.75", "paper", "as ω varies from 0.25 to 1.75", "§VII-D"),
    Setting("ω grid", "61 points, step 0.025", "ours", "000 draws curves; a step of 0.025 puts ω = 0.4 and each 1 ± δ "
            "pair on the grid for the checks"),
    Setting("L-model", "eq. (20), the same for every a, f, C, To", "paper",
            "Note that the relative error does not depend on the delay parameter f", "§VII-D"),
    Setting("S-model a", f"{S_MODEL['a']:g}", "figures",
            "000 does not state the S panel's a; FIGURES.md 000-Fig19: 'assume a = 1' (M/M/1/B's a)"),
    Setting("S-model f", f"{S_MODEL['f']:g}", "figures",
            "FIGURES.md 000-Fig19: 'f = 0.4' assumed (000's typical f, §VII-A)"),
    Setting("S-model C·To", f"{S_MODEL['C_To']:g} packets", "figures",
            "FIGURES.md 000-Fig19: 'C·To = 250 packets' assumed (Fig. 17's BDP)"),
    Setting("S-model s", f"30 packets (M = {S_MODEL['M']}, D = {S_MODEL['D']})", "figures",
            "FIGURES.md 000-Fig19: 's = 30 packets' assumed (Figs. 17/18's flow size)"),
    Setting("v", "1", "paper", "In the following, we set v = 1", "§VII-A.2"),
)


def run(ctx) -> FigureOutput:
    import numpy as np
    import pandas as pd

    from bufsize.models import prasad as pr
    from bufsize.reproduce._plot import figure, finish

    omegas = np.round(np.linspace(0.25, 1.75, 61), 6)
    rows = []
    for b in BS:
        for w in omegas:
            rows.append({"b": b, "omega": float(w), "e_L": pr.sensitivity_pl_l(float(w), b),
                         "e_S": pr.sensitivity_pl_s(float(w), a=S_MODEL["a"], b=b, f=S_MODEL["f"], M=S_MODEL["M"],
                                                    D=S_MODEL["D"], C_To=S_MODEL["C_To"])})
    df = pd.DataFrame(rows)
    checks = []
    for (w, b), v in EXACT.items():
        checks.append(check_rel(f"[C] e_L({w:g}) = {v:g} for b = {b:g}", v, pr.sensitivity_pl_l(w, b), 1e-4))
    for (w, b), v in THREE.items():
        checks.append(check_abs(f"[C] e_L({w:g}) = {v:.3f} for b = {b:g}", v, pr.sensitivity_pl_l(w, b), 5e-4,
                                why="3 decimals printed"))
    under_worse = True
    for b in BS:
        for model in ("e_L", "e_S"):
            d = df[df.b == b].set_index("omega")[model]
            for delta in np.round(np.linspace(0.025, 0.75, 30), 6):
                lo, hi = round(1 - delta, 6), round(1 + delta, 6)
                if lo in d.index and hi in d.index and not d[lo] > d[hi]:
                    under_worse = False
    checks.append(check_true("underestimating (ω < 1) costs more than overestimating by the same amount",
                             under_worse, "e(1−δ) > e(1+δ) on the grid, both models, all b"))
    worst04 = float(max(df[np.isclose(df.omega, 0.4)][["e_L", "e_S"]].max()))
    checks.append(check_abs("error stays below 10–15 % even at ω = 0.4 (worst b and model)", 0.15, worst04, 0.15,
                            why="criterion: 0 ≤ e ≤ 0.15"))

    fig, (top, bottom) = figure(2, 1, height=6.0, sharex=True)
    for k, b in enumerate(BS):
        d = df[df.b == b]
        top.plot(d.omega, d.e_L, color=f"C{k}", label=f"b = {b:g}")
        bottom.plot(d.omega, d.e_S, color=f"C{k}", label=f"b = {b:g}")
        # the values computed from the paper's formulas ([C], FIGURES.md / MODELS.md) on the L-model panel
        pts = sorted((w, v) for (w, bb), v in {**EXACT, **THREE}.items() if bb == b)
        top.plot([w for w, _ in pts], [v for _, v in pts], "x", color=f"C{k}", ms=8, mew=1.5,
                 label=f"paper [C], b = {b:g}")
    # the text's claim: below 10–15 % even at ω = 0.4
    for ax in (top, bottom):
        ax.plot([0.4, 0.4], [0, 0.15], color="C3", lw=4, alpha=0.25, solid_capstyle="butt",
                label="paper: e < 10–15 % at ω = 0.4")
    top.set_ylabel("e_R(ω), L-model")
    bottom.set_ylabel("e_R(ω), S-model")
    bottom.set_xlabel("ω = B / B̂")
    for ax in (top, bottom):
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    finish(fig, "000 Fig. 19: relative throughput error vs ω (PL-form)")
    return FigureOutput(
        data=df, checks=checks, figure=fig,
        inputs={"equations": "000 eqs. (12), (13), (19), (20)", "b_values": list(BS), "omega_range": [0.25, 1.75],
                "s_model_parameters": S_MODEL, "s_bytes": 45_000, "m_bytes": 1500},
        deviations=["The S-model panel's a, f, C·To and s are not stated; a = 1, f = 0.4, C·To = 250 packets, "
                    "s = 30 packets assumed (FIGURES.md). The L-model panel does not depend on them."])
