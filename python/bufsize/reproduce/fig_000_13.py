"""000-Fig13: loss probability vs buffer size for low Γ (Nin = 20, U = 100, Γ = 0.1) (§VI-A).

Closed-loop users (Pareto files, exponential think times) behind 20 input links of 500 Mb/s into
a 50 Mb/s output link; the loss rate at the output against its buffer, with the PL and EX forms
fitted over the linear-delay range (the shared campaign of :mod:`bufsize.reproduce._p000_closed`).
"""

from __future__ import annotations

from bufsize.reproduce import _p000_closed as _pc
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_at_least, check_range

SPEC = FigureSpec(
    id="fig_000_13",
    paper_id="000-Fig13",
    title="Loss probability vs buffer size for low Γ (Nin = 20, U = 100, Γ = 0.1, BDP = 125 packets) (§VI-A)",
    kind="simulation",
    kind_detail="simulation",
    needs=("SIM-TOPO-GAMMA", "TRF-CLOSED", "TCP-RENO", "SIM-Q", "MET-LOSS", "EXP-SWEEP", "EXP-FIT"),
    paper_cost="45 M/seed",
    quick_seconds=28.0,
    note="shares its runs with fig_000_14",
)

#: the Γ = 0.1 sweep shared with fig_000_14 (_p000_closed), its loss fits and the delay cutoff that bounds them
SETUP = _pc.SETUP_LOW + _pc.SETUP_S000 + _pc.SETUP_LOSS_FIT + _pc.SETUP_DELAY_FIT


def loss_checks(camp, *, expect: str):
    fits = camp["fits"]
    win, lose = (fits["pl"], fits["ex"]) if expect == "pl" else (fits["ex"], fits["pl"])
    name = {"pl": "power law p = a·B^−b (straight on log-log)", "ex": "exponential p = a·e^−bB (straight on lin-log)"}
    other = "exponential" if expect == "pl" else "power-law"
    seeds, each = seed_fits(camp)
    loser = "ex" if expect == "pl" else "pl"
    return [
        check_range(f"the {name[expect]} fits over the linear-delay range (R² of ln p)", None, win["r2"], 0.95, 1.0,
                    why="R² ≥ 0.95 assumed (FIGURES.md)").over_seeds(seeds, [f[expect]["r2"] for f in each]),
        check_at_least(f"it fits better than the {other} form (R² {win['r2']:.4f} vs {lose['r2']:.4f}): the "
                       "difference", None, win["r2"] - lose["r2"], 0.0, why="R² of the right form above the other's")
        .over_seeds(seeds, [f[expect]["r2"] - f[loser]["r2"] for f in each]),
    ]


def seed_fits(camp) -> tuple[list[int], list[dict]]:
    """The campaign's seeds and each seed's own loss fits ({"pl": ..., "ex": ...}), in seed order."""
    seeds = sorted(camp["per_seed"])
    return seeds, [camp["per_seed"][s]["fits"] for s in seeds]


def _b_per_seed(camp) -> tuple[list[int], list[float]]:
    seeds, each = seed_fits(camp)
    return seeds, [f["pl"]["b"] for f in each]


def loss_figure(camp, *, title: str, logx: bool, paper_b: tuple[float, float, float] | None = None):
    """``paper_b``: (low, typical, high) of the paper's PL exponent, drawn as a band of slopes (PL figures)."""
    from bufsize.reproduce._plot import figure, finish

    m, runs = camp["means"], camp["runs"]
    fits = camp["fits"]
    fig, ax = figure()
    ax.plot(runs.buffer_packets, runs.loss_rate, ".", color="0.6", ms=4, label="one run (seed)")
    ax.plot(m.buffer_packets, m.loss_rate, "o", color="C0", label="simulation, mean over seeds")
    fr = m[m.in_fit_range]
    ax.plot(fr.buffer_packets, fr.pl_fit, "-", color="C1",
            label=f"PL fit a·B^−b, b = {fits['pl']['b']:.2f} (R² {fits['pl']['r2']:.3f})")
    ax.plot(fr.buffer_packets, fr.ex_fit, "--", color="C2",
            label=f"EX fit a·e^−bB, b = {fits['ex']['b']:.3g} (R² {fits['ex']['r2']:.3f})")
    ax.axvspan(camp["b_min"], camp["delay"]["cutoff_packets"], color="C0", alpha=0.06, label="fit range (linear delay)")
    if paper_b is not None and len(fr) > 1:
        # the paper's typical exponent as a wedge of slopes through the PL fit's middle point (log-log)
        import numpy as np

        bb = fr.buffer_packets.to_numpy(float)
        b_mid = float(np.sqrt(bb.min() * bb.max()))
        p_mid = float(np.exp(np.interp(np.log(b_mid), np.log(bb), np.log(fr.pl_fit.to_numpy(float)))))
        lo_b, b0, hi_b = paper_b
        ax.fill_between(bb, p_mid * (bb / b_mid) ** -lo_b, p_mid * (bb / b_mid) ** -hi_b, color="C3", alpha=0.10, lw=0,
                        label=f"paper §VII-A: b ≈ {b0:g} (band {lo_b:g}–{hi_b:g}), through the fit's middle")
        ax.plot(bb, p_mid * (bb / b_mid) ** -b0, ":", color="C3", lw=1)
    if logx:
        ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("buffer size B (packets)" + (", log scale" if logx else ""))
    ax.set_ylabel("loss probability p(B), log scale")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7)
    return finish(fig, title)


def run(ctx) -> FigureOutput:
    from bufsize.reproduce import _p000_closed as p

    camp = p.campaign(ctx, "low")
    checks = loss_checks(camp, expect="pl") + [
        check_range("§VII-A: typical PL exponent b ≈ 0.5", 0.5, camp["fits"]["pl"]["b"], 0.3, 0.8,
                    why="0.3–0.8 assumed (FIGURES.md)").over_seeds(*_b_per_seed(camp))]
    fig = loss_figure(camp, title="000 Fig. 13: loss vs buffer, Γ = 0.1 (20 × 500 Mb/s → 50 Mb/s, 100 users)",
                      logx=True, paper_b=(0.3, 0.5, 0.8))
    return FigureOutput(data=camp["means"], checks=checks, inputs=p.inputs(camp), figure=fig,
                        extra_tables={"runs": camp["runs"]}, deviations=p.deviations(camp, ctx.mode),
                        notes=[p.fit_note(camp)])
