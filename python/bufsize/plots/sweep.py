"""Figures of a sweep: a metric against a varied field, mean over seeds with error bars.

The error bar of each point is the two-sided 95 % Student-t confidence interval of the mean over
its seeds (none with a single seed); failed points are left out. matplotlib, Agg backend.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from bufsize.errors import BufsizeError


def summarize(table, x: str, y: str, hue: str | None = None, confidence: float = 0.95):
    """Per (hue, x): mean of ``y`` over seeds, its standard deviation, n and the CI half-width."""
    import numpy as np
    import pandas as pd
    from scipy import stats

    for name, what in ((x, "x"), (y, "y"), (hue, "hue")):
        if name is not None and name not in table.columns:
            known = ", ".join(c for c in table.columns if c not in ("key", "error", "status"))
            raise BufsizeError(f"no column {name!r} in the sweep table (columns: {known})", argument=f"--{what}")
    ok = table[table["status"] == "ok"] if "status" in table.columns else table
    keys = [hue, x] if hue else [x]
    g = ok.groupby(keys, sort=True, dropna=False)[y]
    out = g.agg(["mean", "std", "count"]).reset_index()
    tq = np.array([stats.t.ppf(0.5 + confidence / 2, n - 1) if n > 1 else np.nan for n in out["count"]])
    out["half_width"] = tq * out["std"].to_numpy() / np.sqrt(out["count"].to_numpy())
    return pd.DataFrame(out)


def plot_sweep(table, x: str, y: str = "utilization", hue: str | None = None, *, ax=None, file: str | Path | None = None,
               logx: bool | None = None, logy: bool = False, title: str | None = None, confidence: float = 0.95,
               xlabel: str | None = None, ylabel: str | None = None):
    """Plot ``y`` against ``x`` (one line per ``hue`` value), mean over seeds +- the CI half-width.

    ``table``: a sweep table (:func:`bufsize.sweep`) or the path of its ``results.parquet`` / sweep
    directory. Returns the matplotlib figure; ``file`` saves it (PNG, PDF or SVG).
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    import pandas as pd

    if isinstance(table, (str, Path)):
        p = Path(table)
        table = pd.read_parquet(p / "results.parquet" if p.is_dir() else p)
    s = summarize(table, x, y, hue, confidence)
    if not pd.api.types.is_numeric_dtype(s[x]):
        raise BufsizeError(f"column {x!r} is not numeric; plot against a numeric field", argument="--x")
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
    else:
        fig = ax.figure
    groups = [(None, s)] if hue is None else list(s.groupby(hue, sort=True))
    for value, part in groups:
        part = part.sort_values(x)
        label = None if hue is None else f"{hue} = {value}"
        yerr = part["half_width"].fillna(0.0).to_numpy()
        ax.errorbar(part[x], part["mean"], yerr=yerr, marker="o", ms=4, capsize=3, lw=1.2, label=label)
    if logx is None:
        xs = s[x].astype(float)
        logx = bool((xs > 0).all() and xs.max() / max(xs.min(), 1e-300) >= 50)
    if logx:
        ax.set_xscale("log")
    if logy:
        ax.set_yscale("log")
    n_seeds = int(s["count"].max()) if len(s) else 0
    ax.set_xlabel(xlabel or x)
    ax.set_ylabel(ylabel or y)
    bars = f"mean of {n_seeds} seeds, bars: {confidence:.0%} t-interval" if n_seeds > 1 else "one seed"
    ax.set_title(title or f"{y} vs {x} ({bars})", fontsize=10)
    ax.grid(True, alpha=0.3)
    if hue is not None:
        ax.legend(fontsize=8)
    fig.tight_layout()
    if file is not None:
        from bufsize.plots.simulation import check_plot_path

        fig.savefig(check_plot_path(file), dpi=110)
    return fig


def _isnan(v: Any) -> bool:
    return isinstance(v, float) and math.isnan(v)


def plot_fit(table, res, *, x: str = "buffer_packets", file: str | Path | None = None):
    """Loss rate (log-log) with the fitted PL/EX curves, and queueing delay with the fitted line."""
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt
    import numpy as np
    import pandas as pd

    if isinstance(table, (str, Path)):
        p = Path(table)
        table = pd.read_parquet(p / "results.parquet" if p.is_dir() else p)
    t = table[table["status"] == "ok"]
    fig, axes = plt.subplots(1, 2 if res.delay is not None else 1, figsize=(10 if res.delay is not None else 5.5, 4))
    axes = np.atleast_1d(axes)
    ax = axes[0]
    pos = t[t["loss_rate"] > 0]
    ax.plot(pos[x], pos["loss_rate"], "o", ms=3, alpha=0.5, color="0.4", label="runs")
    grid = np.geomspace(max(pos[x].min(), 1e-9), pos[x].max(), 200) if len(pos) else np.array([])
    for form, fit in res.fits.items():
        style = "-" if fit is res.loss else "--"
        ax.plot(grid, fit.predict(grid), style, lw=1.5,
                label=f"{form.upper()}: a={fit.a.value:.3g}, b={fit.b.value:.3g}, R²={fit.r2:.3f}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("buffer B (packets)")
    ax.set_ylabel("loss rate p")
    ax.set_title("loss rate: paper 000 eqs. (8), (14)", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    if res.delay is not None:
        ax = axes[1]
        d = res.delay
        ax.plot(t[x], t["queue_delay_mean_s"] * 1e3, "o", ms=3, alpha=0.5, color="0.4", label="runs")
        bb = np.linspace(0, d.cutoff_packets, 50)
        ax.plot(bb, d.f.value * bb / d.capacity_pps * 1e3, "-", lw=1.5,
                label=f"f·B/C, f = {d.f.value:.3g} (to {d.cutoff_packets:g} pkt)")
        rng = res.optimal.get("fitted_range_packets")
        if rng:  # where both fitted laws were seen: the optimum means something only inside it
            for i, a in enumerate(axes):
                a.axvspan(rng[0], rng[1], color="C0", alpha=0.08, lw=0,
                          label=f"fitted range {rng[0]:g}–{rng[1]:g} pkt" if i == len(axes) - 1 else None)
        # the axes keep to the runs: a B̂ far outside them (an extrapolation, 40x the largest buffer
        # run) is named in the legend and pointed at from the edge instead of squeezing the data
        xs = t[x].dropna().to_numpy(float)
        lo_x, hi_x = (float(xs[xs > 0].min()) if (xs > 0).any() else 0.0), float(xs.max()) if len(xs) else 0.0
        for key, label in (("L", "L-model B̂"), ("S", "S-model B̂")):
            v = res.optimal.get(key)
            if v is not None and np.isfinite(v):
                color = "C3" if key == "L" else "C2"
                outside = res.optimal.get(f"{key}_inside_fitted_range") is False
                off = len(xs) and not (lo_x / 2 <= v <= 2 * hi_x) and v > 0
                for a in axes:
                    if off:
                        edge = hi_x if v > hi_x else lo_x
                        a.annotate(f"{label} = {v:.0f} →" if v > hi_x else f"← {label} = {v:.0f}",
                                   xy=(edge, 0.97), xycoords=("data", "axes fraction"), color=color, fontsize=7,
                                   ha="right" if v > hi_x else "left", va="top")
                    elif v > 0 or a.get_xscale() == "linear":
                        a.axvline(v, ls=":", lw=1, color=color)
                where = " (outside the fitted range" + (", off the plot)" if off else ")") if outside else ""
                ax.plot([], [], ":", color=color, label=f"{label} = {v:.0f} pkt{where}")
        ax.set_xlabel("buffer B (packets)")
        ax.set_ylabel("mean queueing delay (ms)")
        ax.set_title("queueing delay: eq. (9)", fontsize=10)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    if file is not None:
        from bufsize.plots.simulation import check_plot_path

        fig.savefig(check_plot_path(file), dpi=110)
    return fig
