"""000-Fig14: mean queueing delay vs buffer size for low Γ (the setting of Fig. 13) (§VI-A).

The caption was lost in the extraction (FIGURES.md reconstructs it). The delay grows linearly,
d(B) = f·B/C, up to a cutoff where the users can no longer fill the buffer; the runs are
fig_000_13's.
"""

from __future__ import annotations

import math

from bufsize.reproduce import _p000_closed as _pc
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_at_most, check_range

SPEC = FigureSpec(
    id="fig_000_14",
    paper_id="000-Fig14",
    title="Queueing delay vs buffer size for low Γ (same setting as Fig 13) [caption reconstructed]",
    kind="simulation",
    kind_detail="simulation",
    needs=("MET-QDELAY", "EXP-FIT", "SIM-TOPO-GAMMA", "TRF-CLOSED", "TCP-RENO", "SIM-Q", "MET-LOSS", "EXP-SWEEP"),
    paper_cost="shared w/ Fig13",
    quick_seconds=28.0,
    note="shares its runs with fig_000_13 (free after it in the same run)",
)

#: fig_000_13's Γ = 0.1 sweep (_p000_closed) and the delay fit
SETUP = _pc.SETUP_LOW + _pc.SETUP_S000 + _pc.SETUP_DELAY_FIT


def delay_checks(camp):
    from bufsize.reproduce import _p000_closed as p

    d = camp["delay"]
    m = camp["means"]
    growth = p.post_cutoff_growth(camp)
    largest = float(m.buffer_packets.max())
    seeds = sorted(camp["per_seed"])
    each = [camp["per_seed"][s]["delay"] for s in seeds]
    return [
        check_range(f"d(B) grows linearly, d = f·B/C, up to a cutoff (R² of the line over B ≤ {d['cutoff_packets']:g})",
                    None, d["r2"], 0.95, 1.0, why="R² ≥ 0.95 assumed; cutoff where a buffer's mean delay is more than "
                    "15 % off the line fitted to the smaller ones").over_seeds(seeds, [e["r2"] for e in each]),
        check_at_most(f"beyond the cutoff ({d['cutoff_packets']:g} packets, sweep up to {largest:g}) the delay stays "
                      "almost constant: its growth relative to the line's slope", None,
                      growth if math.isfinite(growth) else math.nan, 0.5,
                      why="the cutoff lies inside the sweep and d(B) beyond it grows at most half as fast as f·B/C "
                      "(assumed)").over_seeds(seeds, [p.post_cutoff_growth(camp, s) for s in seeds]),
        check_range("§VII-A: typical slope coefficient f ≈ 0.4", 0.4, d["f"], 0.25, 0.6, why="0.25–0.6 assumed (FIGURES.md)")
        .over_seeds(seeds, [e["f"] for e in each]),
    ]


def delay_figure(camp, *, title: str):
    from bufsize.reproduce._plot import figure, finish

    m, runs, d = camp["means"], camp["runs"], camp["delay"]
    fig, ax = figure()
    ax.plot(runs.buffer_packets, runs.queue_delay_mean_ms, ".", color="0.6", ms=4, label="one run (seed)")
    ax.plot(m.buffer_packets, m.queue_delay_mean_ms, "o-", color="C0", lw=1, label="simulation, mean over seeds")
    lin = m[m.buffer_packets <= d["cutoff_packets"]]
    ax.plot(lin.buffer_packets, lin.delay_line_ms, "--", color="C1", label=f"fit d = f·B/C, f = {d['f']:.3f}")
    ax.axvline(d["cutoff_packets"], color="0.4", ls=":", lw=1, label=f"cutoff {d['cutoff_packets']:g} packets")
    if d["f"] > 0 and len(lin):
        # the paper's typical slope coefficient (§VII-A: f ≈ 0.4) and the check's band 0.25–0.6, as lines d = f·B/C
        per_f = lin.delay_line_ms / d["f"]
        ax.fill_between(lin.buffer_packets, 0.25 * per_f, 0.6 * per_f, color="C3", alpha=0.10, lw=0,
                        label="paper §VII-A: f ≈ 0.4 (band 0.25–0.6)")
        ax.plot(lin.buffer_packets, 0.4 * per_f, ":", color="C3", lw=1)
    ax.set_xlabel("buffer size B (packets)")
    ax.set_ylabel("mean queueing delay d(B) (ms)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    return finish(fig, title)


def run(ctx) -> FigureOutput:
    from bufsize.reproduce import _p000_closed as p

    camp = p.campaign(ctx, "low")
    fig = delay_figure(camp, title="000 Fig. 14: queueing delay vs buffer, Γ = 0.1")
    return FigureOutput(data=camp["means"], checks=delay_checks(camp), inputs=p.inputs(camp), figure=fig,
                        extra_tables={"runs": camp["runs"]}, deviations=p.deviations(camp, ctx.mode),
                        notes=[p.fit_note(camp)])
