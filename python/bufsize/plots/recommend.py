"""The ``bufsize recommend --plot`` figure: predictions against buffer size, every model marked.

Three panels share the buffer axis (packets, log scale):

1. utilization: paper 004's Gaussian lower bound eq. (6) (long desynchronized flows) and paper 001's
   eq. (17) for one Reno flow or synchronized flows; when the link can never be full (window- or
   input-limited traffic) those do not apply and the panel shows the peak-load ceiling with paper
   002's Theorem 1 bound θ(B)·ρ (spaced packets) or the window-burst bound (unpaced);
2. loss rate: paper 000's heavy-load loss form, PL p = a·B^-b for Γ < 1, EX p = a·e^(-bB) for Γ > 1
   (the paper's typical parameters, not a fit to the user's traffic), and the M/M/1/B heavy-load 1/B
   when Γ is unknown;
3. per-flow throughput R(B): paper 000's S-model (slow-start flows) and L-model (congestion-avoidance
   flows) with the same loss form and T(B) = To + f·B/C.

Vertical lines mark every model's buffer (solid: applies to this input; dotted: does not), each in
its own colour; the answer (the verified size, else the models' pick) is a wide translucent band
behind them, so a model at the same size stays visible; the buffer the user has (``--buffer``) is
a dashed black line with its simulated points.

When the recommendation was verified (``rec.verified``), the figure shows the *simulated* curves
instead: utilization, loss rate and queueing delay (mean and 99th percentile) measured at every size
the search ran, mean over seeds with 95 % intervals, the goals as dashed lines, every model's size
marked with its verdict, the verified size drawn as the band; the models' own utilization curves
(004 eq. (6), 001 eq. (17)) are drawn faintly beside the measurements for comparison.
"""

from __future__ import annotations

import math
import os


def _buffer_axis(rec):
    import numpy as np

    sizes = [m.buffer_packets for m in rec.models if m.buffer_packets and math.isfinite(m.buffer_packets)]
    hi = max([rec.input.bdp_packets * 2.0, (rec.buffer_packets or 0.0) * 2.0] + [s * 1.5 for s in sizes])
    return np.logspace(0, math.log10(max(hi, 10.0)), 400)


def _prasad_curves(B, inp) -> dict:
    """Loss and R(B) from paper 000: PL form with the paper's typical parameters when Γ ≤ 1; the
    M/M/1/B heavy-load case (p = 1/B, f = 1/2, §V) otherwise, since the paper prints no EX-form
    parameters."""
    import numpy as np

    from bufsize.models import prasad as P

    form = "pl" if inp.gamma is not None and inp.gamma <= 1 else "mm1b"
    s_bytes = 30 * inp.packet_bytes
    if inp.short_lengths is not None:
        s_bytes = math.ceil(sum(l * w for l, w in zip(inp.short_lengths, inp.short_weights))) * inp.packet_bytes
    kw = dict(C_pps=inp.capacity_pps, To=inp.rtt_harmonic_s, m=inp.packet_bytes)  # 000's To: harmonic mean
    r_s = P.throughput_curve(form, "S", B, s_bytes=s_bytes, **kw)
    r_l = P.throughput_curve(form, "L", B, **kw)
    if form == "pl":
        loss = np.array([min(1.0, P.pl_loss(b, P.PL_DEFAULT_A, P.PL_DEFAULT_B)) for b in B])
        label = f"000 PL form p = {P.PL_DEFAULT_A:g}·B^-{P.PL_DEFAULT_B:g} (typical values)"
    else:
        loss = np.array([min(1.0, P.mm1b_heavy_load_loss(b)) for b in B])
        label = "000 §V heavy-load M/M/1/B p = 1/B" + (" (Γ > 1: EX form, parameters not printed)"
                                                       if inp.gamma is not None else " (Γ unknown)")
    return {"loss": loss, "loss_label": label, "R_S": r_s, "R_L": r_l}


def _model_colour(i: int, plt):
    # 20 distinct colours, the dark half of tab20's pairs first so neighbouring rows never share a hue
    j = i % 20
    return plt.get_cmap("tab20")((2 * j) % 20 + (j // 10))


def _mark_models(rec, axes, plt, verdicts=None, xlim=None) -> None:
    """A vertical line per model's size; a size outside ``xlim`` (the data's range) keeps its legend
    entry, which says where it is, instead of stretching the axis."""
    for i, m in enumerate(rec.models):
        b = m.buffer_packets
        if b is None or not math.isfinite(b) or b <= 0:
            continue
        label = m.id
        if verdicts is not None and m.id in verdicts:
            label += f" ({verdicts[m.id]['verdict']})"
        if xlim is not None and not xlim[0] <= b <= xlim[1]:
            label += f", off the axis at {b:,.0f} pkt"
        for a in axes:
            a.axvline(b, color=_model_colour(i, plt), lw=1.2, ls="-" if m.applies else ":", alpha=0.9,
                      label=label if a is axes[0] else None)


def _save(fig, plt, path: str | None):
    """Write ``fig`` to ``path`` atomically and close it; with no path, hand the figure back (a
    notebook shows it)."""
    if path is None:
        return fig
    from bufsize._atomic import temp_path

    suffix = os.path.splitext(path)[1] or ".png"
    try:
        with temp_path(os.path.abspath(path), suffix=suffix) as tmp:
            fig.savefig(tmp, dpi=120)
    finally:
        plt.close(fig)


def plot_verified(rec, path: str | None = None):
    """The simulated utilization / loss / delay curves of a verified recommendation (module doc)."""
    import matplotlib

    if path is not None:   # a file: no display needed; in a notebook the figure comes back
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from bufsize.models import appenzeller as A
    from bufsize.models import jain as J

    ver = rec.verified
    inp = rec.input
    df = ver.curve()
    x = np.maximum(df["buffer_packets"].to_numpy(dtype=float), 0.8)
    fig, axes = plt.subplots(3, 1, figsize=(8, 9.5), sharex=True, constrained_layout=True)

    def series(ax, col, scale=1.0, label=None, **kw):
        y = df[col].to_numpy(dtype=float) * scale
        e = np.nan_to_num(df[col + "_ci95"].to_numpy(dtype=float)) * scale
        ax.errorbar(x, y, yerr=e, marker="o", ms=4, capsize=2, lw=1.2, label=label, **kw)

    ax = axes[0]
    series(ax, "utilization", label="simulated (mean, 95 % CI)", color="C0")
    grid = np.logspace(0, math.log10(max(float(x.max()), 10.0) * 1.5), 200)
    if inp.flows:
        ax.plot(grid, [A.utilization_lower_bound(b, inp.bdp_packets, inp.flows) for b in grid], color="C0",
                alpha=0.3, lw=1, label="004 eq. (6) (model)")
    ax.plot(grid, [J.reno_single_flow_utilization(inp.bdp_packets, b) for b in grid], color="C1", alpha=0.3, lw=1,
            label="001 eq. (17) (model)")
    lo = float(np.nanmin(df["utilization"])) if len(df) else 0.5
    if ver.goals.utilization is not None:
        ax.axhline(ver.goals.utilization, color="grey", ls="--", lw=0.8, label="utilization goal")
        lo = min(lo, ver.goals.utilization)
    ax.set_ylim(max(0.0, lo - 0.02), 1.005)
    ax.set_ylabel("utilization")

    ax = axes[1]
    series(ax, "loss_rate", 100.0, label="simulated loss", color="C3")
    if ver.goals.max_loss is not None:
        ax.axhline(ver.goals.max_loss * 100, color="grey", ls="--", lw=0.8, label="loss goal")
    ax.set_ylabel("loss rate (%)")

    ax = axes[2]
    series(ax, "queue_delay_mean_s", 1e3, label="mean queueing delay", color="C2")
    ax.plot(x, df["queue_delay_p99_s"].to_numpy(dtype=float) * 1e3, "s--", ms=3, color="C2", alpha=0.6,
            label="99th percentile")
    if ver.goals.max_delay_s is not None:
        ax.axhline(ver.goals.max_delay_s * 1e3, color="grey", ls="--", lw=0.8, label="delay goal")
    ax.set_ylabel("queueing delay (ms)")
    ax.set_xlabel("buffer (packets)")
    ax.set_xscale("log")

    # the axis spans the sizes simulated (and the user's buffer), not every model's size: models far
    # away are named in the legend with their size
    shown = [float(v) for v in x] + ([float(ver.at_buffer["buffer_packets"])] if ver.at_buffer else [])
    xlim = (max(0.8, min(shown) / 1.5), max(shown) * 1.5)
    _mark_models(rec, axes, plt, ver.verdicts, xlim=xlim)
    from matplotlib.ticker import FuncFormatter

    plain = FuncFormatter(lambda v, _pos: f"{v:,.0f}")   # packets as numbers, not 2×10^1
    for a in axes:
        a.set_xlim(*xlim)
        a.xaxis.set_major_formatter(plain)
        a.xaxis.set_minor_formatter(plain)
    b = ver.buffer_packets if ver.buffer_packets is not None else (ver.best or {}).get("buffer_packets")
    if b:
        for a in axes:
            a.axvline(b, color="black", lw=6, alpha=0.15, zorder=0,
                      label=(("verified" if ver.buffer_packets is not None else "best (goals infeasible)")
                             + f" {b:,} pkt") if a is axes[0] else None)
    have = ver.at_buffer
    if have:
        hb = float(have["buffer_packets"])
        for a in axes:
            a.axvline(hb, color="black", ls="--", lw=1.2, label=f"your buffer {have['given']}" if a is axes[0] else None)
        axes[0].plot([hb], [have["utilization"]], "kD", ms=5)
        axes[1].plot([hb], [have["loss_rate"] * 100], "kD", ms=5)
        axes[2].plot([hb], [have["queue_delay_mean_s"] * 1e3], "kD", ms=5)
    for a in axes:
        a.legend(fontsize=6.5, loc="best", ncol=2)
    fig.suptitle(f"bufsize recommend, simulated: C = {inp.capacity_bps / 1e6:g} Mb/s, RTT = {inp.rtt_s * 1e3:g} ms, "
                 f"n = {inp.flows:,}, BDP = {inp.bdp_packets:,.0f} pkts; 2-{len(ver.seeds)}+ seeds per size", fontsize=9)
    return _save(fig, plt, path)


def plot_recommendation(rec, path: str | None = None):
    """Draw the figure for a :class:`bufsize.recommendation.Recommendation` into ``path`` (atomically):
    the simulated curves when it was verified, else the models' predictions."""
    if getattr(rec, "verified", None) is not None and len(rec.verified.sizes):
        return plot_verified(rec, path)
    import matplotlib

    if path is not None:   # a file: no display needed; in a notebook the figure comes back
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    from bufsize.models import appenzeller as A
    from bufsize.models import jain as J
    inp = rec.input
    B = _buffer_axis(rec)
    bdp = inp.bdp_packets
    fig, axes = plt.subplots(3, 1, figsize=(8, 9), sharex=True, constrained_layout=True)

    ax = axes[0]
    traffic = getattr(rec, "traffic", {}) or {}
    ceiling = traffic.get("utilization_ceiling", 1.0)
    if traffic.get("window_limited") or traffic.get("input_limited"):
        from bufsize.models import enachescu as E

        rho = traffic.get("window_peak_load")
        if traffic.get("window_limited") and inp.max_window_packets is not None:
            if traffic.get("spaced"):
                u = np.array([E.theorem1_utilization(b, inp.max_window_packets, rho) * rho for b in B])
                ax.plot(B, u, label="002 Theorem 1: θ(B)·ρ")
            else:
                w = int(math.ceil(inp.max_window_packets - 1e-9))
                u = np.array([max(0.0, 1 - A.short_flow_overflow_probability(rho, b, lengths=[w], initial_window=w)
                                  * w * w / 2) * rho for b in B])
                ax.plot(B, u, label=f"window bursts of {w} (004 App. C)")
        ax.axhline(ceiling, color="C3", lw=1.0, label=f"peak load {ceiling:.3g} (ceiling)")
        ax.axhline(inp.target_utilization * ceiling, color="grey", lw=0.8, ls="--", label="target θ·ρ")
        ax.set_ylim(min(0.5, 0.5 * ceiling), 1.005)
    else:
        if inp.flows:
            u6 = np.array([A.utilization_lower_bound(b, bdp, inp.flows) for b in B])
            ax.plot(B, u6, label=f"004 eq. (6), n = {inp.flows:,}")
        u17 = np.array([J.reno_single_flow_utilization(bdp, b) for b in B])
        ax.plot(B, u17, label="001 eq. (17), one Reno flow / synchronized")
        ax.axhline(inp.target_utilization, color="grey", lw=0.8, ls="--", label="target")
        ax.set_ylim(0.5, 1.005)
    ax.set_ylabel("utilization")

    curves = _prasad_curves(B, inp)
    ax = axes[1]
    # loss: the same relation and window as the headline (recommendation.predicted_figures)
    from bufsize.recommendation import predicted_figures

    figs = [predicted_figures(inp, float(b), rec.models, quantities=("loss",)) for b in B]
    if figs and all(len(f) == 2 for f in figs):
        lo = np.array([f[0]["value"] for f in figs])
        hi = np.array([f[1]["value"] for f in figs])
        ax.plot(B, lo, color="C3", label="per-flow loss, 004 §5.1.1 Morris fit 0.76/w²")
        ax.plot(B, hi, color="C3", ls="--", label="per-flow loss, square-root law (1.22/w)²")
        ax.fill_between(B, lo, hi, color="C3", alpha=0.1)
        ax.set_title("w = (C·RTT_h + B)/n per flow, the described link (as the headline)", fontsize=8)
    else:
        ax.plot(B, curves["loss"], color="C3", label=curves["loss_label"])
    ax.set_yscale("log")
    ax.set_ylabel("loss rate")
    if inp.max_loss is not None:
        ax.axhline(inp.max_loss, color="grey", lw=0.8, ls="--", label="loss goal")

    ax = axes[2]
    ax.plot(B, np.asarray(curves["R_S"]) * 8 / 1e6, label="000 S-model R(B)")
    ax.plot(B, np.asarray(curves["R_L"]) * 8 / 1e6, label="000 L-model R(B)")
    ax.set_ylabel("per-flow throughput (Mb/s)")
    ax.set_yscale("log")
    ax.set_xlabel("buffer (packets)")
    ax.set_xscale("log")

    _mark_models(rec, axes, plt)
    rb = rec.models_pick["buffer_packets"]   # the verified size is drawn by plot_verified
    if rb and math.isfinite(rb) and rb > 0:
        for a in axes:
            a.axvline(rb, color="black", lw=6, alpha=0.15, zorder=0, label="models' pick" if a is axes[0] else None)
    axes[0].legend(fontsize=7, loc="lower right", ncol=2)
    axes[1].legend(fontsize=7, loc="upper right")
    axes[2].legend(fontsize=7, loc="lower right")
    fig.suptitle(f"bufsize recommend: C = {inp.capacity_bps / 1e6:g} Mb/s, RTT = {inp.rtt_s * 1e3:g} ms, "
                 f"BDP = {bdp:,.0f} pkts", fontsize=10)

    return _save(fig, plt, path)
