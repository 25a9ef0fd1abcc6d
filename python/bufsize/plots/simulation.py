"""Figures of one simulation run: the bottleneck queue over time and the traced flows' cwnd.

matplotlib with the Agg backend (no display needed). The traces exist only when the scenario asked
for them; :func:`with_traces` switches them on with sensible intervals.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from bufsize.errors import BufsizeError

if TYPE_CHECKING:  # pragma: no cover
    from bufsize.scenario import Scenario
    from bufsize.simulate import SimResult

_SUFFIXES = (".png", ".pdf", ".svg")
#: Flows whose cwnd :func:`with_traces` traces when the scenario names none.
DEFAULT_TRACED_FLOWS = 4
#: Queue samples over the whole run that :func:`with_traces` aims for.
_QUEUE_SAMPLES = 20_000


def check_plot_path(path: str | Path) -> Path:
    """Fail early (before a long run) on a figure path that cannot be written."""
    p = Path(path)
    if p.suffix.lower() not in _SUFFIXES:
        raise BufsizeError(f"{str(p)!r}: unknown figure format (use {', '.join(_SUFFIXES)})", argument="--plot")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise BufsizeError(f"{str(p)!r}: directory {str(parent)!r} does not exist", argument="--plot")
    return p


def with_traces(scenario: "Scenario") -> "Scenario":
    """The scenario with a queue trace and a few cwnd traces switched on (kept if already set)."""
    measure = scenario.to_dict()["measure"]
    if measure.get("queue_trace_interval_s") is None:
        # fine enough to see single packets come and go at small buffers, bounded in size
        measure["queue_trace_interval_s"] = max(1e-4, scenario.duration_s / _QUEUE_SAMPLES)
    if not measure.get("cwnd_trace_flows"):
        measure["cwnd_trace_flows"] = list(range(min(DEFAULT_TRACED_FLOWS, scenario.n_flows)))
    return scenario.replace(measure=measure)


def plot_simulation(result: "SimResult", path: str | Path | None = None) -> Any:
    """Queue occupancy (top) and cwnd of the traced flows (bottom); the measurement window shaded.
    Written to ``path`` (returned); without a path the matplotlib figure is returned (a notebook
    shows it)."""
    import matplotlib

    if path is not None:
        matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    p = check_plot_path(path) if path is not None else None
    sc = result.scenario
    s = result.summary
    fig, (axq, axw) = plt.subplots(2, 1, figsize=(9, 6.5), sharex=True, constrained_layout=True)

    q = result.queue_trace
    if len(q):
        axq.step(q["t_s"], q["queue_packets"], where="post", lw=0.6, color="tab:blue", label="queue")
    else:
        axq.text(0.5, 0.5, "no queue trace (set measure.queue_trace_interval_s)", transform=axq.transAxes,
                 ha="center", va="center")
    lim = sc.buffer_limit
    if "limit_packets" in lim:
        axq.axhline(lim["limit_packets"], color="tab:red", lw=0.8, ls="--", label=f"buffer {lim['limit_packets']} pkt")
    axq.set_ylabel("bottleneck queue [packets]")
    title = f"{sc.n_flows} flow{'s' if sc.n_flows != 1 else ''}, seed {sc.seed}"
    if s.get("utilization") is not None:
        title += f": utilization {100 * s['utilization']:.2f} %"
    if s.get("loss_rate") is not None:
        title += f", loss {100 * s['loss_rate']:.3g} %"
    axq.set_title(title)

    w = result.cwnd_traces
    if len(w):
        for flow, g in w.groupby("flow", sort=True):
            axw.step(g["t_s"], g["cwnd"], where="post", lw=0.7, label=f"flow {flow}")
    else:
        axw.text(0.5, 0.5, "no cwnd trace (set measure.cwnd_trace_flows)", transform=axw.transAxes,
                 ha="center", va="center")
    axw.set_ylabel("cwnd [packets]")
    axw.set_xlabel("time [s]")
    # Traces may cover the whole run or only the measurement window: show what was recorded, and
    # shade the warm-up only when some of it is on the figure.
    starts = [float(df["t_s"].iloc[0]) for df in (q, w) if len(df)]
    t_left = 0.0 if not starts or min(starts) < sc.warmup_s else sc.warmup_s
    for ax in (axq, axw):
        if t_left < sc.warmup_s:
            ax.axvspan(0, sc.warmup_s, color="0.9", zorder=0, label=None)
        ax.set_xlim(t_left, sc.duration_s)
        ax.set_ylim(bottom=0)
        handles, labels = ax.get_legend_handles_labels()
        if handles:
            ax.legend(loc="upper right", fontsize="small", ncols=min(4, len(handles)))
    if t_left < sc.warmup_s:
        axq.text(0.5 * sc.warmup_s, 0.02, "warm-up", transform=axq.get_xaxis_transform(), ha="center",
                 va="bottom", fontsize="small", color="0.4")

    if p is None:
        return fig
    tmp = p.with_name(f".{p.name}.tmp{p.suffix}")
    try:
        fig.savefig(tmp, dpi=120)
        tmp.replace(p)
    finally:
        plt.close(fig)
        if tmp.exists():
            tmp.unlink()
    return p
