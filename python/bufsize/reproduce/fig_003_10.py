"""003-Fig10: Inequality (1) is satisfied by the aggregate traffic (§VIII).

The eq. (7) runs of Fig 9 (:mod:`bufsize.reproduce._p003_mix`): the measured mean μ of the aggregate
window W = Σcwnd ("+") against the bound of eq. (1), z_τ·δ + BDP with the measured δ ("×"). W is the
engine's Σcwnd over all 198 flows sampled every millisecond of the measurement window (MET-SUMW;
the paper does not say how it measured μ and δ).
"""

from __future__ import annotations

from bufsize.reproduce import _p003_kernel, _p003_mix
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_at_least
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id='fig_003_10',
    paper_id='003-Fig10',
    title='Inequality (1) is satisfied by the aggregate traffic (§VIII)',
    kind='testbed',
    kind_detail='testbed (simulated: Σcwnd from the engine instead of sender cwnd sampling; with root also a Reno + CUBIC partial version on the kernel testbed, Σcwnd from TCP_INFO)',
    needs=('MET-SUMW', 'M-003', 'TCP-RENO', 'TCP-BIC', 'TCP-CUBIC', 'TCP-CTCP', 'TCP-NRSACK', 'TRF-BULK',
           'SIM-TOPO-DB'),
    paper_cost='shared w/ Fig9',
    quick_seconds=15.0,
    note="simulator as the testbed's proxy (and the kernel testbed with root); shares the eq. (7) runs of fig_003_09 "
         "(after it, under 1 s)",
)

SETUP = (_p003_mix.SETUP_SIM + _p003_mix.SETUP_EQ7 + (
    _p003_mix.SETUP_W,
    Setting("bound", "eq. (1): z_τ·δ + BDP with the measured δ, z_τ = 2.05, BDP = 622 Mb/s × RTT in packets", "paper",
            "The “×” represent the lower bounds calculated according to Inequality (1)", "§VIII, Fig. 10"),
) + _p003_kernel.SETUP_KERNEL_EQ7)

#: How far μ may sit from the bound before the notes explain the gap (the check itself is one-sided).
REL = 0.10


def inequality_check(setting: str, rtt_ms: float, w_mean: float, bound: float):
    """Inequality (1), μ ≥ z·δ + BDP, in its own direction: passes only when the measured mean aggregate
    window reaches the bound (the paper's "within reasonable errors" is not read as a licence to fall short)."""
    return check_at_least(
        f"{setting} ({rtt_ms:g} ms): inequality (1) holds, measured mean aggregate window μ ≥ z·δ + BDP "
        f"({bound:.0f} packets); ours: μ / bound", 1.0, w_mean / bound, 1.0,
        why="one-sided: μ below the bound fails", kind="measurement")


def miss_note(row) -> str:
    from bufsize.reproduce import _p003_mix as m

    gap = row["w_mean"] / row["bound_eq1"] - 1
    return (f"{row['setting']} ({row['rtt_ms']:g} ms): μ = {row['w_mean']:.0f} packets is {gap:+.1%} from the bound "
            f"z·δ + BDP = {m.Z}·{row['w_std']:.0f} + {row['bdp_link_packets']:.0f} = {row['bound_eq1']:.0f} "
            f"(the inequality asks μ ≥ bound). Most likely reason: μ cannot exceed the BDP by much more than the buffer "
            f"(μ − BDP = {row['w_mean'] - row['bdp_link_packets']:+.0f} packets, mean queue "
            f"{row['mean_queue_packets']:.1f}, B = {row['buffer_packets']}), while the bound grows with the measured "
            f"δ, which is {row['w_std'] / row['delta_model']:.1f}× the independent-flow model's "
            f"{row['delta_model']:.0f} (z·δ = {m.Z * row['w_std']:.0f} packets against the {row['buffer_packets']}-packet "
            f"buffer eq. (7) provides).")


def run(ctx) -> FigureOutput:
    import numpy as np

    from bufsize.reproduce import _p003 as p3
    from bufsize.reproduce import _p003_mix as m
    from bufsize.reproduce._plot import figure, finish

    df = m.table(ctx, "eq7")
    pr = m.primary(df)
    checks, notes = [], []
    for _, row in pr.iterrows():
        c = inequality_check(row["setting"], row["rtt_ms"], row["w_mean"], row["bound_eq1"])
        if not c.passed:
            c.because("setup", p3.sim_cause(row))
        checks.append(c)
        if row["w_mean"] < row["bound_eq1"] or abs(row["w_mean"] / row["bound_eq1"] - 1) > REL:
            notes.append(miss_note(row))
    d = pr
    notes.append("μ relative to the bound (link's BDP reading): " + ", ".join(
        f"{r.setting} {r.w_mean / r.bound_eq1 - 1:+.1%}" for r in d.itertuples())
        + "; μ relative to the BDP: " + ", ".join(f"{r.setting} {r.w_mean / r.bdp_link_packets - 1:+.2%}"
                                                  for r in d.itertuples())
        + ". Measured δ against the model's a·μ/√n: " + ", ".join(
            f"{r.setting} {r.w_std:.0f} vs {r.delta_model:.0f}" for r in d.itertuples()) + ".")
    cfg = m.config(ctx)
    for r in d.itertuples():
        if r.w_mean > r.bdp_link_packets + r.buffer_packets:
            notes.append(f"{r.setting}: μ exceeds BDP + B by {r.w_mean - r.bdp_link_packets - r.buffer_packets:.0f} "
                         f"packets, which no queue can hold: Σcwnd is not the data in the network here. "
                         + m.regime_text(r._asdict(), cfg["duration"] - cfg["warmup"])
                         + " The match with the bound at this setting owes something to that.")
    from bufsize.reproduce import _p003_kernel as k3

    kchecks, knotes, kdf, _ = k3.figure_checks(ctx, 10)
    checks += kchecks
    notes += knotes
    fig, ax = figure(width=6.4, height=4.2)
    x = np.arange(len(m.RTTS_MS))
    for k, (reading, c, lab) in enumerate((("rtt", "C0", "B from 622 Mb/s × RTT"),
                                           ("printed", "0.55", "B from printed BDP"))):
        dd = df[df.reading == reading].sort_values("rtt_ms")
        off = (k - 0.5) * 0.18
        ax.plot(x + off, dd.w_mean, "+", ms=12, mew=2, color=c, label=f"measured μ ({lab})")
        ax.plot(x + off, dd.bound_eq1, "x", ms=10, mew=2, color=c, alpha=0.8, label=f"bound z·δ + BDP ({lab})")
    ax.plot(x, d.bdp_link_packets, "_", ms=30, color="k", label="BDP (622 Mb/s × RTT)")
    ax.set_xticks(x, [f"{lb}\n{ms} ms" for lb, ms in zip(m.LABELS, m.RTTS_MS)])
    ax.set_ylabel("aggregate window W = Σ cwnd (packets)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="lower right")
    finish(fig, "003 Fig. 10: measured μ vs the eq. (1) bound, B from eq. (7) (simulated)")
    return FigureOutput(data=df, checks=checks, figure=fig, inputs=m.inputs(ctx, "eq7"),
                        deviations=m.deviations(ctx) + [k3.deviation(ctx)], notes=notes,
                        extra_tables={"kernel": kdf} if kdf is not None else {})
