"""Matplotlib helpers for the reproduction figures (Agg backend, modest sizes, fixed style)."""

from __future__ import annotations


def figure(nrows: int = 1, ncols: int = 1, *, width: float = 6.4, height: float = 4.2, sharex: bool = False):
    """A new (fig, axes) on the Agg backend, never a window."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(nrows, ncols, figsize=(width, height), sharex=sharex, squeeze=False)
    axes = axes.ravel().tolist()
    return fig, (axes[0] if len(axes) == 1 else axes)


def finish(fig, title: str):
    """The title, wrapped to the figure's width so it is never clipped, and a tight layout."""
    import textwrap

    chars = max(30, int(fig.get_figwidth() * 13))   # about 13 characters of 10-pt text per inch
    fig.suptitle("\n".join(textwrap.wrap(title, chars)) if len(title) > chars else title, fontsize=10)
    fig.tight_layout()
    return fig


def mark_unreached(ax, xs, ys, at, *, marker: str = "o", color: str = "C0", label: str | None = None) -> int:
    """Mark the points of a series that have no value (NaN: e.g. no buffer of the grid reached the target)
    instead of letting them vanish: an open marker at ``at[x]`` (the largest value tried, so the true value
    lies above it) with an upward arrow. Returns how many points were marked."""
    import math

    miss = [x for x, y in zip(xs, ys) if y is None or (isinstance(y, float) and math.isnan(y))]
    if not miss:
        return 0
    ax.plot(miss, [at[x] for x in miss], ls="none", marker=marker, mfc="none", mec=color, ms=9, mew=1.5, label=label)
    for x in miss:
        ax.annotate("", xy=(x, at[x] * 1.12), xytext=(x, at[x]), arrowprops={"arrowstyle": "->", "color": color, "lw": 1})
    top = max(at[x] for x in miss) * 1.18   # room for the arrows
    if ax.get_ylim()[1] < top:
        ax.set_ylim(top=top)
    return len(miss)


def table_figure(columns: list[str], rows: list[list[str]], title: str, *, width: float = 7.0):
    """A table drawn as a figure (for the papers' tables)."""
    fig, ax = figure(width=width, height=0.6 + 0.32 * (len(rows) + 1))
    ax.axis("off")
    tab = ax.table(cellText=rows, colLabels=columns, loc="center", cellLoc="center")
    tab.auto_set_font_size(False)
    tab.set_fontsize(8)
    tab.scale(1.0, 1.25)
    return finish(fig, title)
