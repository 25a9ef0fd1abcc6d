"""003-Fig4: minimum router buffer of eq. (7) vs the number of flows n, one protocol at a time.

Analytic: B = BDP/(1 − z_τ·a/√n) − BDP with C = 622 Mb/s, RTT 100 ms, τ = 0.99 (assumed),
z_τ = 2.05 (the paper's convention) and a from Table III as printed.
"""

from __future__ import annotations

from bufsize.reproduce import _p003
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_rel, check_true
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id="fig_003_04",
    paper_id="003-Fig4",
    title="Minimum router buffer vs n for flows of a single protocol (§IV-B)",
    kind="analytic",
    kind_detail="analytic",
    needs=("M-003",),
    paper_cost="0",
    quick_seconds=1.0,
)

SETUP = (
    Setting("equation", "eq. (7): B = BDP/(1 − z_τ·a/√n) − BDP, one protocol at a time", "paper",
            "According to Inequality (7), we plot the minimum router buffer size as n ∈ [200, 1000] TCP flows of the "
            "same TCP protocol traverse a bottleneck link", "§IV-B"),
    Setting("bottleneck capacity", "622 Mb/s", "paper",
            "a bottleneck link with a capacity of 622Mbps and a delay of 100ms in Figure 4", "§IV-B"),
    _p003.SETUP_DELAY,
    Setting("flows n", "200 to 1000", "paper", "as n ∈ [200, 1000] TCP flows of the same TCP protocol", "§IV-B"),
    Setting("n grid", "every 10 flows (81 points per curve)", "ours", "fine enough for smooth curves; the paper "
            "gives the range only"),
    Setting("utilization guarantee τ", "0.99", "figures",
            "FIGURES.md: 'τ unspecified, 0.99 (assumed)'; 0.99 is the value 003 uses everywhere it states one "
            "(§III's example, Fig. 7, §VIII)"),
    _p003.SETUP_Z,
    _p003.SETUP_A,
    _p003.SETUP_MIX_SERIES,
    Setting("buffer unit", "bytes (plotted in KB)", "figures", "FIGURES.md: 'units unspecified; bytes/MB assumed'"),
)


def run(ctx) -> FigureOutput:
    import numpy as np
    import pandas as pd

    from bufsize.models import heterogeneous as h
    from bufsize.reproduce import _p003 as p
    from bufsize.reproduce._plot import figure, finish

    ns = np.arange(200, 1001, 10)
    series = {**{k: p.a_paper(k) for k in p.PROTOCOLS}, "mix": p.a_mix()}
    rows = []
    for name, a in series.items():
        for n in ns:
            rows.append({"series": name, "a": a, "n": int(n),
                         "buffer_bytes": h.min_buffer_utilization(p.BDP_BYTES, int(n), a, p.Z)})
    df = pd.DataFrame(rows)

    def B(name, n):
        return float(df[(df.series == name) & (df.n == n)].buffer_bytes.iloc[0])

    checks = [
        check_rel("[C] Reno, n = 200: B = 223 123 bytes", 223_123, B("reno", 200), 1e-4),
        check_rel("[C] Reno, n = 1000: B = 98 226 bytes", 98_226, B("reno", 1000), 1e-4),
        check_rel("[C] BIC, n = 200: B = 27 257 bytes", 27_257, B("bic", 200), 1e-4),
    ]
    # B decreases like 1/sqrt(n): B*sqrt(n) varies little over [200, 1000]
    reno = df[df.series == "reno"]
    scaled = reno.buffer_bytes * np.sqrt(reno.n)
    spread = float(scaled.max() / scaled.min() - 1.0)
    checks.append(check_true("B decreases like 1/√n (B·√n constant within 5 % over n = 200…1000, Reno)",
                             bool(np.all(np.diff(reno.buffer_bytes) < 0) and spread < 0.05),
                             "monotone and spread of B·√n < 5 %", value=spread))
    order_ok = all(
        B("reno", int(n)) > B("ctcp", int(n)) > B("cubic2", int(n)) > B("cubic1", int(n)) > B("bic", int(n))
        for n in ns)
    checks.append(check_true("larger a → larger B: Reno highest, BIC lowest (at every n)", order_ok,
                             "strict ordering by a at all n"))
    mix_between = all(B("bic", int(n)) < B("mix", int(n)) < B("reno", int(n)) for n in ns)
    checks.append(check_true("a protocol mix (the §VIII testbed mix) lies between BIC and Reno", mix_between,
                             "strict, at all n"))

    fig, ax = figure()
    for name in series:
        d = df[df.series == name]
        ax.plot(d.n, d.buffer_bytes / 1e3, label=p.LABEL.get(name, "mix (§VIII)"),
                ls="--" if name == "mix" else "-")
    # the values computed from the paper's formula ([C], FIGURES.md)
    ax.plot([200, 1000, 200], [223.123, 98.226, 27.257], "kx", ms=8, mew=1.5, ls="none",
            label="paper [C]: Reno 223.1 / 98.2 KB, BIC 27.3 KB")
    ax.set_xlabel("number of flows n")
    ax.set_ylabel("minimum buffer B (KB)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    finish(fig, "003 Fig. 4: minimum buffer, eq. (7), OC-12, 100 ms, τ = 0.99")
    return FigureOutput(data=df, checks=checks, inputs={"equation": "003 eq. (7)", "tau": 0.99, **p.common_inputs()},
                        figure=fig,
                        deviations=["τ is not stated by the paper; 0.99 assumed (FIGURES.md). Units of B are not "
                                    "stated; bytes shown (KB)."])
