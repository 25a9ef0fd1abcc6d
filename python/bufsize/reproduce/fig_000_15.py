"""000-Fig15: loss probability vs buffer size for high Γ (Γ = 10, U = 25) (§VI-A).

Closed-loop users, each behind its own 1 Mb/s input link, into a 10 Mb/s output link; the loss
rate against the buffer with the EX and PL forms fitted over the linear-delay range (buffers of
at least 5 packets: 000 expects the form only for buffers that are "not too small"). §VI-B's
claim that the EX form holds for Γ > 1 whatever the Pareto shape is tested with shape 1.25 too.
"""

from __future__ import annotations

from bufsize.reproduce import _p000_closed as _pc
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_range
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id="fig_000_15",
    paper_id="000-Fig15",
    title="Loss probability vs buffer size for high Γ (Nin = 1000, U = 25, Γ = 10, BDP = 25 packets) (§VI-A)",
    kind="simulation",
    kind_detail="simulation",
    needs=("SIM-TOPO-GAMMA", "TRF-CLOSED", "MET-LOSS", "EXP-FIT"),
    paper_cost="9 M/seed",
    quick_seconds=35.0,
    note="shares its runs with fig_000_16; 25 input links (one per user) instead of 1000",
)

ALT_SHAPE = 1.25


#: §VI-B's sentence behind the shape-1.25 check
ALT_SENTENCE = "the EX-form is a good approximation even for low values of α (say 1.25) as long as Γ > 1"

#: the Γ = 10 sweep shared with fig_000_16 (_p000_closed), its fits, and the second sweep at Pareto shape 1.25
SETUP = _pc.SETUP_HIGH + _pc.SETUP_S000 + _pc.SETUP_LOSS_FIT + _pc.SETUP_DELAY_FIT + (
    Setting("second sweep", f"the same sweep (grid, run length, seeds) with Pareto shape {ALT_SHAPE:g}", "paper",
            ALT_SENTENCE, "§VI-B"),
)


def alt_shape_check(ex_r2: float, pl_r2: float, seeds, each):
    """§VI-B at Pareto shape 1.25: the EX form is a good approximation, read as the shape-1.5 check reads
    'fits' (R² ≥ 0.95). Until 2026-11-29 the check asked that EX fit better than PL, which the sentence does
    not say; the comparison stays in the claim's words. A miss says what the seeds showed."""
    chk = check_range(f"§VI-B: the EX form is still a good approximation with Pareto shape {ALT_SHAPE:g} (R² of "
                      f"ln p; EX {ex_r2:.4f}, PL {pl_r2:.4f})", None, ex_r2, 0.95, 1.0,
                      why=f"R² ≥ 0.95, as for shape 1.5 (FIGURES.md); §VI-B: '{ALT_SENTENCE}'")
    per_seed = [f["ex"]["r2"] for f in each]
    chk = chk.over_seeds(seeds, per_seed)
    if not chk.passed:
        diffs = ", ".join(f"{f['ex']['r2'] - f['pl']['r2']:+.3f}" for f in each)
        chk.because("setup", f"at shape {ALT_SHAPE:g} our loss-vs-buffer points fit the EX line with R² "
                             f"{', '.join(f'{x:.3f}' for x in per_seed)} per seed (EX − PL: {diffs}); 000 ran this "
                             f"shape without printing its runs, buffers or fit range ('{ALT_SENTENCE}', §VI-B), and "
                             f"ours fit over the buffers of the linear-delay range of this scale's grid")
    return chk


def run(ctx) -> FigureOutput:
    from bufsize.reproduce import _p000_closed as p
    from bufsize.reproduce.fig_000_13 import loss_checks, loss_figure, seed_fits

    camp = p.campaign(ctx, "high")
    alt = p.campaign(ctx, "high", shape=ALT_SHAPE)
    fa = alt["fits"]
    alt_seeds, alt_each = seed_fits(alt)
    alt_check = alt_shape_check(fa["ex"]["r2"], fa["pl"]["r2"], alt_seeds, alt_each)
    checks = loss_checks(camp, expect="ex") + [alt_check]
    fig = loss_figure(camp, title="000 Fig. 15: loss vs buffer, Γ = 10 (1 Mb/s inputs → 10 Mb/s, 25 users)",
                      logx=False)
    m = camp["means"]
    two = m[m.buffer_packets < camp["b_min"]]
    notes = [p.fit_note(camp), f"Pareto shape {ALT_SHAPE:g} (runs_shape_{ALT_SHAPE:g}.csv): " + p.fit_note(alt)]
    if len(two):
        b0 = two.iloc[0]
        notes.append(f"B = {int(b0.buffer_packets)} packets is outside the fit range (000: the forms hold for buffers "
                     f"that are 'not too small'): its loss {b0.loss_rate:.4f} is {b0.loss_rate / b0.ex_fit:.2f}× the EX "
                     f"line's and {b0.loss_rate / b0.pl_fit:.2f}× the PL line's value there.")
    return FigureOutput(data=m, checks=checks, inputs={**p.inputs(camp), "alt_shape": p.inputs(alt)}, figure=fig,
                        extra_tables={"runs": camp["runs"], f"runs_shape_{ALT_SHAPE:g}": alt["runs"]},
                        deviations=p.deviations(camp, ctx.mode), notes=notes)
