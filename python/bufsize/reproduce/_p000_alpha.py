"""Paper 000 §VI-B's α sweep (text only, no figure), hosted by table_000_2.

"If Γ = 1, then the PL-form is still a good approximation as long as α is less than about 1.5. If
α is close to 2, then the PL-form is not a good approximation even when Γ is as low as 0.25. [...]
the EX-form is a good approximation even for low values of α (say 1.25) as long as Γ > 1."
(The Γ > 1 part is fig_000_15's check with shape 1.25.)

Runs: the Fig. 13 setup (S000: 50 Mb/s output, 100 users on 20 input links, Pareto sizes of mean
80 KB, think 1 s, RTTs 30–110 ms, Reno, 1500-byte packets) with the input links at 50 Mb/s
(Γ = 1) for Pareto shapes α = 1.25, 1.5 and 2, and at 200 Mb/s (Γ = 0.25) for α = 2; the buffer
sweep, scale and fits of ``_p000_closed.sweep`` (the Fig. 13 quick/full grids). "Good
approximation" is FIGURES.md's criterion for 000-Fig13 (assumed there): the PL fit of ln p on
ln B has R² ≥ 0.95 over the linear-delay range and beats the EX fit's R².
"""

from __future__ import annotations

from typing import Any

from bufsize.reproduce import _p000_closed as _pc
from bufsize.reproduce._setup import Setting

#: (Γ, α, does the paper say PL is good)
CASES = ((1.0, 1.25, True), (1.0, 1.5, True), (1.0, 2.0, False), (0.25, 2.0, False))
R2_MIN = 0.95


def _scale_words(mode: str) -> str:
    c = _pc.SCALE["low", mode]
    return f"{len(c['buffers'])} buffers × {len(c['seeds'])} seeds × {c['duration']:g} s"


#: where the α sweep's settings come from (table_000_2's SETUP)
SETUP_ALPHA = (
    Setting("α sweep: Γ values", "Γ = 1 and Γ = 0.25", "paper",
            "If Γ = 1, then the PL-form is still a good approximation as long as α is less than about 1.5. If α is "
            "close to 2, then the PL-form is not a good approximation even when Γ is as low as 0.25", "§VI-B"),
    Setting("α sweep: Pareto shapes", "Γ = 1: α = 1.25, 1.5 (PL expected good) and 2 (expected poor); Γ = 0.25: α = 2 "
            "(expected poor)", "ours",
            "000 gives a bound, not its runs: PL is good at Γ = 1 'as long as α is less than about 1.5' and poor when "
            "'α is close to 2'; 1.25 lies below the bound, 1.5 sits on it (read as good: 'about'), 2 is the poor case"),
    Setting("α sweep: setup", "Fig. 13's (Cout = 50 Mb/s, 100 users on 20 input links, S000 otherwise) with Cin = "
            "Cout/Γ: 50 Mb/s at Γ = 1, 200 Mb/s at Γ = 0.25", "ours",
            "000 does not say which setup these runs used; Fig. 13's is the PL case it shows"),
    Setting("α sweep: scale", f"Fig. 13's buffer grid, run length and seeds (full: {_scale_words('full')}; quick: "
            f"{_scale_words('quick')})", "ours",
            "000 gives none; the Fig. 13 sweep's scale, so its fits compare with Fig. 13's"),
    Setting("α sweep: 'good approximation'", f"the PL fit of ln p on ln B has R² ≥ {R2_MIN:g} over the linear-delay "
            "range and above the EX fit's R²", "figures",
            "000 gives no criterion; FIGURES.md's for 000-Fig13: 'R² ≥ 0.95 on log-log over the linear-delay range, "
            "and above the lin-log R²' (assumed)"),
)


def setup(gamma: float) -> dict[str, Any]:
    from bufsize.reproduce import _p000_closed as pc

    s = dict(pc.SETUPS["low"])
    s["gamma"] = gamma
    s["c_in"] = s["c_out"] / gamma
    return s


def run_all(ctx):
    import pandas as pd

    from bufsize.reproduce import _p000_closed as pc

    cfg = pc.SCALE["low", ctx.mode]
    rows, runs = [], []
    for gamma, alpha, pl_good in CASES:
        camp = pc.sweep(ctx, setup(gamma), cfg, shape=alpha, label=f"§VI-B α sweep, Γ = {gamma:g}")
        f = camp["fits"]
        good = bool(f["pl"]["r2"] >= R2_MIN and f["pl"]["r2"] > f["ex"]["r2"])
        m = camp["means"]
        rows.append({"gamma": gamma, "alpha": alpha, "paper_pl_good": pl_good, "pl_good": good,
                     "r2_pl": f["pl"]["r2"], "r2_ex": f["ex"]["r2"], "b_pl": f["pl"]["b"], "b_ex": f["ex"]["b"],
                     "fit_buffers": f["pl"]["n"], "cutoff_packets": camp["delay"]["cutoff_packets"],
                     "utilization_largest_b": float(m.utilization.iloc[-1]),
                     "loss_smallest_b": float(m.loss_rate.iloc[0])})
        runs.append(camp["runs"].assign(gamma=gamma, alpha=alpha))
    return pd.DataFrame(rows), pd.concat(runs, ignore_index=True), cfg


def checks_and_notes(tab) -> tuple[list, list[str]]:
    from bufsize.reproduce._core import check_true
    from bufsize.reproduce._p000_miss import if_miss

    checks, notes = [], []
    for x in tab.itertuples():
        if x.paper_pl_good:
            claim = f"§VI-B: Γ = {x.gamma:g}, Pareto α = {x.alpha:g}: the PL form is a good approximation"
        else:
            claim = f"§VI-B: Γ = {x.gamma:g}, Pareto α = {x.alpha:g}: the PL form is not a good approximation"
        claim += f" (R² of ln p: PL {x.r2_pl:.4f}, EX {x.r2_ex:.4f})"
        ok = x.pl_good == x.paper_pl_good
        checks.append(if_miss(check_true(claim, ok, f"good = PL R² ≥ {R2_MIN:g} and above EX's R² (FIGURES.md's "
                                                    f"000-Fig13 criterion, assumed)", value=x.r2_pl),
                              "setup", f"the fit range of our runs holds {x.fit_buffers} buffers (5–{x.cutoff_packets:g} "
                                       f"packets, where our queueing delay stays linear in B; utilization "
                                       f"{x.utilization_largest_b:.3f} at the largest buffer), so both forms fit that "
                                       f"short stretch of p(B) with R² near the assumed {R2_MIN:g} line (PL "
                                       f"{x.r2_pl:.4f}, EX {x.r2_ex:.4f}); the stretch is set by our load and TCP "
                                       "agents, not 000's ns-2 runs"))
        if not ok:
            notes.append(f"Miss, §VI-B Γ = {x.gamma:g}, α = {x.alpha:g}: PL R² {x.r2_pl:.4f}, EX R² {x.r2_ex:.4f} over "
                         f"{x.fit_buffers} buffers 5–{x.cutoff_packets:g} packets; the paper expects PL to be "
                         f"{'good' if x.paper_pl_good else 'poor'}. Utilization at the largest buffer "
                         f"{x.utilization_largest_b:.3f}, loss at B = 5 {x.loss_smallest_b:.4f}. PL's R² by α here: "
                         + ", ".join(f"Γ = {y.gamma:g}, α = {y.alpha:g}: {y.r2_pl:.4f}" for y in tab.itertuples())
                         + f". Likely reason: the measured trend goes the paper's way (PL fits worse as α grows) but "
                         f"the fit range holds only {x.fit_buffers} buffers ({x.fit_buffers - 2} degrees of freedom), "
                         f"so both forms fit a short stretch of p(B) with R² near the assumed 0.95 line and the verdict "
                         f"turns on a few hundredths of R²; 000 gives no threshold of its own.")
    notes.insert(0, "§VI-B α sweep (Fig. 13 setup, inputs at Γ = 1 and 0.25): " + "; ".join(
        f"Γ = {x.gamma:g}, α = {x.alpha:g}: PL R² {x.r2_pl:.4f} (b {x.b_pl:.3f}), EX R² {x.r2_ex:.4f}, "
        f"utilization at the largest B {x.utilization_largest_b:.3f}" for x in tab.itertuples()) + ".")
    return checks, notes
