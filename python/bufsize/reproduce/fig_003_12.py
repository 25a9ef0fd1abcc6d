"""003-Fig12: Inequality (10) is satisfied by the aggregate traffic and the router buffer (§VIII).

The eq. (14) runs of Fig 11 (:mod:`bufsize.reproduce._p003_mix`): the configured buffer ("+")
against the lower bound of eq. (10), (z_ρ·δ + μ)(1 − φ) − BDP, from the measured mean μ and standard
deviation δ of the aggregate window Σcwnd ("×"); ρ = 0.99 (z = 2.05), φ = 0.01.
"""

from __future__ import annotations

from bufsize.reproduce import _p003_kernel, _p003_mix
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_true
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id='fig_003_12',
    paper_id='003-Fig12',
    title='Inequality (10) is satisfied by the aggregate traffic and the router buffer (§VIII)',
    kind='testbed',
    kind_detail='testbed (simulated: Σcwnd from the engine instead of sender cwnd sampling; with root also a Reno + CUBIC partial version on the kernel testbed, Σcwnd from TCP_INFO)',
    needs=('MET-SUMW', 'M-003', 'TCP-RENO', 'TCP-BIC', 'TCP-CUBIC', 'TCP-CTCP', 'TCP-NRSACK', 'TRF-BULK',
           'SIM-TOPO-DB'),
    paper_cost='shared w/ Fig11',
    quick_seconds=15.0,
    note="simulator as the testbed's proxy (and the kernel testbed with root); shares the eq. (14) runs of fig_003_11 "
         "(after it, under 1 s)",
)

SETUP = (_p003_mix.SETUP_SIM + _p003_mix.SETUP_EQ14 + (
    _p003_mix.SETUP_W,
    Setting("bound", "eq. (10): (z_ρ·δ + μ)(1 − φ) − BDP with the measured μ and δ, z_ρ = 2.05, φ = 0.01, "
            "BDP = 622 Mb/s × RTT in packets", "paper",
            "The “×” points represent the lower bounds calculated according to Inequality (10)", "§VIII, Fig. 12"),
) + _p003_kernel.SETUP_KERNEL_EQ14)


def miss_note(row, window_s: float) -> str:
    from bufsize.reproduce import _p003_mix as m

    return (f"{row['setting']} ({row['rtt_ms']:g} ms): the configured B = {row['buffer_packets']} packets is "
            f"{row['bound_eq10'] - row['buffer_packets']:.0f} packets ({row['buffer_packets'] / row['bound_eq10'] - 1:+.1%}) "
            f"below the bound (z·δ + μ)(1 − φ) − BDP = ({m.Z}·{row['w_std']:.0f} + {row['w_mean']:.0f})·{1 - m.PHI:g} − "
            f"{row['bdp_link_packets']:.0f} = {row['bound_eq10']:.0f}. Most likely reason: the measured δ is "
            f"{row['w_std'] / row['delta_model']:.1f}× the independent-flow model's a·μ/√n = {row['delta_model']:.0f} "
            f"that eq. (14) assumed ({m.correlation_text(row)}), and μ − BDP = "
            f"{row['w_mean'] - row['bdp_link_packets']:+.0f} packets (Σ in-flight {row['flight_mean']:.0f}). "
            f"Per control (mean cwnd, per-flow a): {m.class_text(row)}. {m.regime_text(row, window_s)}".rstrip())


def run(ctx) -> FigureOutput:
    import numpy as np

    from bufsize.reproduce import _p003 as p3
    from bufsize.reproduce import _p003_mix as m
    from bufsize.reproduce._plot import figure, finish

    df = m.table(ctx, "eq14")
    cfg = m.config(ctx)
    pr = m.primary(df)
    checks, notes = [], []
    for _, row in pr.iterrows():
        ok = row["buffer_packets"] >= row["bound_eq10"]
        c = check_true(
            f"{row['setting']} ({row['rtt_ms']:g} ms): the buffer from eq. (14) ({row['buffer_packets']} packets) "
            f"exceeds the eq. (10) bound from the measured μ, δ ({row['bound_eq10']:.1f} packets); ours = B − bound",
            bool(ok), "B ≥ (z·δ + μ)(1 − φ) − BDP", value=float(row["buffer_packets"] - row["bound_eq10"]))
        if not c.passed:
            c.because("setup", p3.sim_cause(row))
        checks.append(c)
        if not ok:
            notes.append(miss_note(row, cfg['duration'] - cfg['warmup']))
    pt = df[df.reading == "printed"].sort_values("rtt_ms")
    notes.append("Printed-BDP reading: B " + ", ".join(str(r.buffer_packets) for r in pt.itertuples())
                 + " packets against the bound " + ", ".join(f"{r.bound_eq10:.0f}" for r in pt.itertuples()) + ".")
    from bufsize.reproduce import _p003_kernel as k3

    kchecks, knotes, kdf, _ = k3.figure_checks(ctx, 12)
    checks += kchecks
    notes += knotes
    fig, ax = figure(width=6.4, height=4.2)
    x = np.arange(len(m.RTTS_MS))
    for k, (reading, c, lab) in enumerate((("rtt", "C0", "622 Mb/s × RTT"), ("printed", "0.55", "printed BDP"))):
        d = df[df.reading == reading].sort_values("rtt_ms")
        off = (k - 0.5) * 0.18
        ax.plot(x + off, d.buffer_packets, "+", ms=12, mew=2, color=c, label=f"configured B ({lab})")
        ax.plot(x + off, d.bound_eq10, "x", ms=10, mew=2, color=c, alpha=0.8, label=f"bound of eq. (10) ({lab})")
    ax.set_xticks(x, [f"{lb}\n{ms} ms" for lb, ms in zip(m.LABELS, m.RTTS_MS)])
    ax.set_ylabel("buffer (packets of 1500 B)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper left")
    finish(fig, "003 Fig. 12: configured B vs the eq. (10) bound, B from eq. (14) (simulated)")
    return FigureOutput(data=df, checks=checks, figure=fig, inputs=m.inputs(ctx, "eq14"),
                        deviations=m.deviations(ctx) + [k3.deviation(ctx)], notes=notes,
                        extra_tables={"kernel": kdf} if kdf is not None else {})
