"""003-Fig5: drop-rate bound φ and flow count n satisfying Inequality (12), per protocol.

Analytic: n ≥ (z_ρ·a·(1 − φ)/φ)², ρ = 0.99 (z = 2.05, the paper's convention), a from Table III.
"""

from __future__ import annotations

from bufsize.reproduce import _p003
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_abs, check_true
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id="fig_003_05",
    paper_id="003-Fig5",
    title="Drop-rate bound φ and flow count n that satisfy Inequality (12) (§V)",
    kind="analytic",
    kind_detail="analytic",
    needs=("M-003",),
    paper_cost="0",
    quick_seconds=1.0,
)

#: n at φ = 1 %: the paper's text (Reno, BIC) and FIGURES.md [C] for the others.
AT_1PCT = {"reno": (1526, "§V text"), "bic": (24, "§V text"), "cubic1": (149, "[C] FIGURES.md"),
           "cubic2": (334, "[C] FIGURES.md"), "ctcp": (1487, "[C] FIGURES.md")}

SETUP = (
    Setting("equation", "eq. (12) solved for n: n ≥ (z_ρ·a·(1 − φ)/φ)², one protocol at a time", "paper",
            "we plot the parameter ϕ and the number of TCP flows n that satisfy Inequality (12) in Figure 5", "§V"),
    Setting("drop guarantee ρ", "0.99", "paper", "Using the threshold ρ = 0.99", "§V"),
    _p003.SETUP_Z,
    _p003.SETUP_A,
    Setting("link", "622 Mb/s, 100 ms (it does not enter eq. (12))", "paper",
            "The bottleneck link in this case is a link with a capacity of 622Mbps and a delay of 100ms", "§V"),
    Setting("drop-rate bound φ", "0.001 to 0.01 in steps of 0.0001 (91 points)", "figures",
            "FIGURES.md: 'range unspecified; 0.001–0.01 assumed' (the range §VII-A uses for Fig. 6); the step is ours"),
    Setting("n at a point", "the bound rounded up to a whole flow (as the check reads 24 and 1526)", "ours",
            "§V's 24 BIC and 1526 Reno flows are the bound 23.92 and 1525.51 rounded up (MODELS.md H-15/16)"),
    Setting("n axis", "logarithmic", "figures", "FIGURES.md: 'y = n (log, assumed)'"),
    Setting("BIC's a (note)", "0.0340, computed from Table II's BIC growth function (T = R), beside the printed "
            "0.0241", "figures", "FIGURES.md [D]: 'With the a_BIC computed from Table II: 48' flows at φ = 1 %"),
)


def run(ctx) -> FigureOutput:
    import numpy as np
    import pandas as pd

    from bufsize.models import heterogeneous as h
    from bufsize.reproduce import _p003 as p
    from bufsize.reproduce._plot import figure, finish

    phis = np.round(np.linspace(0.001, 0.01, 91), 6)
    rows = []
    for proto in p.PROTOCOLS:
        a = p.a_paper(proto)
        for phi in phis:
            rows.append({"protocol": proto, "a": a, "phi": float(phi),
                         "n_min": h.min_flows_drop_free(a, p.Z, float(phi)),
                         "n_min_integer": h.min_flows_drop_free(a, p.Z, float(phi), integer=True)})
    df = pd.DataFrame(rows)
    checks = []
    for proto, (n_paper, src) in AT_1PCT.items():
        ours = float(df[(df.protocol == proto) & (df.phi == 0.01)].n_min_integer.iloc[0])
        checks.append(check_abs(f"φ = 1 %: at least {n_paper} {p.LABEL[proto]} flows ({src})", n_paper, ours, 0,
                                why="exact integer (ceiling), paper's a and z = 2.05"))
    at = df[df.phi == 0.01].set_index("protocol").n_min
    between = all(at["bic"] < at[k] < at["reno"] for k in ("cubic1", "cubic2", "ctcp"))
    checks.append(check_true("the other protocols lie between BIC and Reno", between, "strict at φ = 1 %"))
    a_bic_computed = h.characteristic_value("bic", values="computed")
    n_bic_computed = h.min_flows_drop_free(a_bic_computed, p.Z, 0.01, integer=True)
    checks.append(check_abs("[D] with a_BIC computed from Table II (T = R) instead of the printed 0.0241: 48 BIC flows "
                            "at φ = 1 % (FIGURES.md)", 48, float(n_bic_computed), 0,
                            why="exact integer (ceiling), z = 2.05"))

    fig, ax = figure()
    for k, proto in enumerate(p.PROTOCOLS):
        d = df[df.protocol == proto]
        # Reno and CTCP nearly coincide (1526 vs 1487 flows at 1 %): Reno dashed on top so neither hides the other
        ax.plot(d.phi, d.n_min, color=f"C{k}", label=p.LABEL[proto],
                ls="--" if proto == "reno" else "-", zorder=3 if proto == "reno" else 2)
    # the paper's numbers at φ = 1 % (§V text for Reno and BIC, [C] for the others)
    ax.plot([0.01] * 5, [1526, 24, 149, 334, 1487], "kx", ms=8, mew=1.5, ls="none", zorder=4,
            label="paper at φ = 1 %: 1526, 24, 149, 334, 1487 flows")
    ax.set_yscale("log")
    ax.set_xlabel("drop-rate bound φ")
    ax.set_ylabel("flows n needed for eq. (12)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    finish(fig, "003 Fig. 5: (φ, n) boundary of eq. (12), ρ = 0.99 (region above satisfies it)")
    return FigureOutput(
        data=df, checks=checks, inputs={"equation": "003 eq. (12)", "rho": 0.99, **p.common_inputs()}, figure=fig,
        deviations=["The φ range and the log n axis are not stated; 0.001–0.01 and log assumed (FIGURES.md)."],
        notes=[f"With a_BIC computed from Table II's growth function ({a_bic_computed:.4f}) instead of the printed "
               f"0.0241, BIC needs {n_bic_computed:.0f} flows at φ = 1 % (FIGURES.md [D]: 48), not 24."])
