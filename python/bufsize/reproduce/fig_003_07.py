"""003-Fig7: the bound on z_q of eq. (18) as γ grows from BDP/(BDP + B_l) to 1.

Analytic: z_q ≤ z_τ/γ − (1/γ − 1)·√n/a, n = 200, τ = 0.99 (z_τ = 2.05), one curve per protocol.
"""

from __future__ import annotations

from bufsize.reproduce import _p003
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_abs
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id="fig_003_07",
    paper_id="003-Fig7",
    title="Lower bound of z_q as γ grows from BDP/(BDP+B_l) to 1 (§VII-B.1)",
    kind="analytic",
    kind_detail="analytic",
    needs=("M-003",),
    paper_cost="0",
    quick_seconds=1.0,
)

SETUP = (
    Setting("equation", "eq. (18): z_q ≤ z_τ/γ − (1/γ − 1)·√n/a", "paper",
            "Inequality (18) provides us with a way to calculate the upper bound of the threshold q", "§VII-B.1"),
    Setting("flows n", "200, all of one protocol", "paper",
            "Suppose there are 200 TCP flows of the same TCP protocol", "§VII-B.1"),
    Setting("bottleneck capacity", "622 Mb/s", "paper",
            "traversing a bottleneck link with a capacity of 622Mbps and a delay of 100ms", "§VII-B.1"),
    _p003.SETUP_DELAY,
    Setting("utilization guarantee τ", "0.99", "paper", "The threshold τ is set to 0.99.", "§VII-B.1"),
    _p003.SETUP_Z,
    _p003.SETUP_A,
    Setting("γ range", "BDP/(BDP + B_l) to 1, B_l from eq. (7) for each protocol", "paper",
            "We plot the lower bound of the z-score zq as the parameter γ grows from BDP/(BDP+Bl) to 1 in Figure 7",
            "§VII-B.1"),
    Setting("γ grid", "101 evenly spaced points per curve", "ours", "smooth curves; the paper gives the range only"),
    Setting("curves", "one per protocol (Reno, BIC, CUBIC′, CUBIC″, CTCP)", "figures",
            "FIGURES.md: 'One curve per protocol [inferred from \"of the same TCP protocol\"]'"),
    Setting("q from z_q", "2q − 1 = Φ(z_q) (the paper's convention: z_q = 0 gives q = 0.75)", "paper",
            "This is equivalent to 2q − 1 = 0.5, i.e., q = 0.75", "§VII-B.1"),
)

N = 200


def run(ctx) -> FigureOutput:
    import numpy as np
    import pandas as pd

    from bufsize.models import heterogeneous as h
    from bufsize.reproduce import _p003 as p
    from bufsize.reproduce._plot import figure, finish

    bdp = p.BDP_BYTES
    rows = []
    ends = {}
    for proto in p.PROTOCOLS:
        a = p.a_paper(proto)
        b_l = h.min_buffer_utilization(bdp, N, a, p.Z)
        g_min = h.compromise_gamma(bdp, 0.0, b_l)
        ends[proto] = g_min
        for g in np.linspace(g_min, 1.0, 101):
            zq = h.z_q_bound(p.Z, float(g), N, a)
            rows.append({"protocol": proto, "a": a, "gamma": float(g), "z_q_bound": zq,
                         "q_paper_convention": h.reduced_utilization_guarantee(zq, "paper")})
    df = pd.DataFrame(rows)
    reno = p.a_paper("reno")
    z_end = {proto: float(df[df.protocol == proto].z_q_bound.iloc[0]) for proto in p.PROTOCOLS}
    z_one = {proto: float(df[df.protocol == proto].z_q_bound.iloc[-1]) for proto in p.PROTOCOLS}
    checks = [
        check_abs("γ = 1 gives z_q = z_τ = 2.05 (no reduction; Reno)", 2.05, z_one["reno"], 1e-9),
        check_abs("λ = 0 (γ = γ_min) gives z_q = 0 ([C] exactly; worst protocol)", 0.0,
                  max(abs(v) for v in z_end.values()), 1e-9),
        check_abs("z_q = 0 → q = 0.75 (paper convention 2q − 1 = Φ(z))", 0.75,
                  h.reduced_utilization_guarantee(0.0, "paper"), 1e-12),
        check_abs("reduction τ − q = 0.24", 0.24, 0.99 - h.reduced_utilization_guarantee(0.0, "paper"), 1e-9),
        check_abs("[C] Reno at γ = 0.99: z_q = 1.328", 1.328, h.z_q_bound(p.Z, 0.99, N, reno), 5e-4),
        check_abs("[C] Reno at γ = 0.99: q = 0.954", 0.954,
                  h.reduced_utilization_guarantee(h.z_q_bound(p.Z, 0.99, N, reno), "paper"), 5e-4),
    ]
    fig, ax = figure(height=5.2)
    for proto in p.PROTOCOLS:
        d = df[df.protocol == proto]
        ax.plot(d.gamma, d.z_q_bound, label=f"{p.LABEL[proto]} (γ_min = {ends[proto]:.4f})",
                ls="--" if proto == "reno" else "-", zorder=3 if proto == "reno" else 2)
    # the paper's numbers: z_q = z_τ = 2.05 at γ = 1; [C] Reno at γ = 0.99: z_q = 1.328
    ax.plot([1.0, 0.99], [2.05, 1.328], "kx", ms=8, mew=1.5, ls="none", zorder=4,
            label="paper: z_q 2.05 at γ = 1; [C] Reno 1.328 at γ = 0.99")
    ax.set_xlabel("γ = (BDP + Cλ)/(BDP + B_l)")
    ax.set_ylabel("bound on z_q, eq. (18)")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)   # below: inside it hides curves
    ax.grid(alpha=0.3)
    finish(fig, "003 Fig. 7: z_q bound vs γ, n = 200, τ = 0.99")
    return FigureOutput(data=df, checks=checks,
                        inputs={"equation": "003 eq. (18)", "n": N, "tau": 0.99, **p.common_inputs()}, figure=fig,
                        deviations=["The caption says 'lower bound'; eq. (18) is an upper bound on z_q — we plot "
                                    "eq. (18). One curve per protocol [inferred]."])
