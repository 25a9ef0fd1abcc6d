"""Tick labels that do not run into each other: :func:`overlapping_ticklabels` finds the pairs whose
rendered text boxes intersect, :func:`untangle_ticks` rotates the x labels and then thins the ticks
of any axis that still has such a pair (a capture whose RTTs all lie within a microsecond gives an
axis of a few microseconds labelled at every tenth of one)."""

from __future__ import annotations

from typing import Any

_MAX_ROUNDS = 6


def _labels(axis: Any, renderer: Any) -> list[tuple[str, Any]]:
    return [(t.get_text(), t.get_window_extent(renderer)) for t in axis.get_ticklabels()
            if t.get_visible() and t.get_text()]


def _axis_overlaps(axis: Any, renderer: Any) -> list[tuple[str, str]]:
    boxes = _labels(axis, renderer)
    return [(a, b) for i, (a, box_a) in enumerate(boxes) for b, box_b in boxes[i + 1:] if box_a.overlaps(box_b)]


def overlapping_ticklabels(fig: Any) -> list[tuple[str, str, str]]:
    """``(axes title, label, label)`` for every pair of tick labels of one axis whose rendered text
    boxes intersect (the figure is drawn first)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    out = []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            out += [(ax.get_title(), a, b) for a, b in _axis_overlaps(axis, renderer)]
    return out


def untangle_ticks(fig: Any) -> None:
    """Rotate crowded x tick labels, then halve the number of ticks of any axis whose labels still
    overlap, until none do (or a few rounds have passed)."""
    from matplotlib.ticker import LogLocator, MaxNLocator

    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for round_ in range(_MAX_ROUNDS):
                fig.canvas.draw()
                renderer = fig.canvas.get_renderer()
                if not _axis_overlaps(axis, renderer):
                    break
                if round_ == 0 and axis is ax.xaxis:
                    for label in axis.get_ticklabels():
                        label.set_rotation(30)
                        label.set_horizontalalignment("right")
                    continue
                shown = max(2, len(_labels(axis, renderer)) // 2)
                if axis.get_scale() == "log":
                    axis.set_major_locator(LogLocator(numticks=shown))
                else:
                    axis.set_major_locator(MaxNLocator(nbins=shown - 1, min_n_ticks=2))
    fig.canvas.draw()
