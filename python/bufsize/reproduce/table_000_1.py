"""000-TableI: the eight S000 setups of §VI-A, each swept over the buffer and fitted (form, a, b, f).

The table states Nin input links of Cin into one output link Cout (Γ = Cout/Cin) with U
closed-loop users (FIGURES.md S000: Pareto sizes mean 80 KB shape 1.5, exponential think time of
mean 1 s, Reno, 1500-byte packets, two-way propagation delays uniform over 30–110 ms). Its BDP
column is Cout × 30 ms; the models of §VII use To = 60 ms, twice that. Both are printed.

Every row gets a buffer sweep, log-spaced from 2 packets to 4·C·To (To = 60 ms), through
``_p000_closed.sweep`` (the machinery of Figs. 13–16: the experiments layer, its point store,
``--workers`` / ``--scheduler``), and its fits (``bufsize.experiments.fit``): PL and EX loss forms
over the buffers from 5 packets up to the delay cutoff, the form chosen by the larger R² of ln p
(``fit.choose``), and the delay line d = f·B/C.

Checks (FIGURES.md): the Γ = 0.1 rows follow the PL form and the Γ = 10 rows the EX form (one check
per row); and (20, 25, 10) is §VII-B's low-load exception. §VII-B.1–2 say: with the parameters fitted
to every simulation *except* Nin = 20, U = 25, Γ = 10, "the case where the offered load is too small
to generate any significant queueing and loss rate", eqs. (15)–(18) give B̂ = 0. So the exception is
checked twice: that row has the least loss and the least queueing of the Γ = 10 rows, and it is the
only Γ = 10 row whose EX fit does not give B̂ = 0 for both the L- and the S-model (the B̂ of
``_p000_optb``, as in Fig. 18: the L rule of eq. (16) and the S maximum of eq. (17) over the
linear-delay range, s = 30 packets, C·To at 60 ms).
"""

from __future__ import annotations

import math
from typing import Any

from bufsize.reproduce._core import FigureOutput, FigureSpec, check_true
from bufsize.reproduce import _p000_closed as _pc
from bufsize.reproduce._p000_miss import if_miss
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id='table_000_1',
    paper_id='000-TableI',
    title='Simulation parameters (§VI-A), each row simulated and fitted (form, a, b, f)',
    kind='simulation',
    kind_detail='config (drives sim); each row swept and fitted',
    needs=('SIM-TOPO-GAMMA', 'TRF-CLOSED', 'TCP-RENO', 'MET-LOSS', 'MET-QDELAY', 'EXP-SWEEP', 'EXP-FIT'),
    paper_cost='full 8-row campaign ≈ 0.3 G',
    quick_seconds=45.0,
    note="quick: 8 rows × 8 buffers × 1 seed × 300 s runs (250 s measured); the 100 Mb/s rows take most of the time",
)

#: Table I as printed: Nin, U, Γ, Cout (b/s), Cin (b/s), BDP (packets).
ROWS = (
    (2, 5, 0.1, 2.5e6, 25e6, 6),
    (20, 5, 0.1, 2.5e6, 25e6, 6),
    (2, 100, 0.1, 50e6, 500e6, 125),
    (20, 100, 0.1, 50e6, 500e6, 125),
    (1000, 25, 10.0, 10e6, 1e6, 25),
    (20, 25, 10.0, 10e6, 1e6, 25),
    (1000, 500, 10.0, 100e6, 10e6, 250),
    (20, 500, 10.0, 100e6, 10e6, 250),
)
TO_TABLE_S = 0.030     # the BDP column's delay (FIGURES.md [D])
B_MIN = 5              # smallest buffer of the loss fits (as Figs. 13–16)
B_TOP_BDP = 4.0        # the sweep ends at 4·C·To (To = 60 ms), FIGURES.md S000
MEAN_SIZE_BYTES = 80e3
MEAN_THINK_S = 1.0
SCALE = {
    "quick": {"points": 8, "seeds": (1,), "duration": 300.0, "warmup": 50.0},
    "full": {"points": 15, "seeds": (1, 2, 3), "duration": 700.0, "warmup": 100.0},
}


def _tops() -> str:
    """The sweeps' largest buffers, 4·C·To at To = 60 ms, by output capacity."""
    caps = sorted({r[3] for r in ROWS})
    return ", ".join(f"{B_TOP_BDP * c * 0.060 / 8 / _pc.PACKET_BYTES:g} packets at {c / 1e6:g} Mb/s" for c in caps)


#: the rows, the S000 setup every row runs on (_p000_closed), the sweeps' scale, the fits and the B̂ of the Γ = 10 rows
SETUP = (
    Setting("rows", "the eight (Nin, U, Γ, Cout, Cin) rows as printed: "
            + "; ".join(f"({r[0]}, {r[1]}, {r[2]:g}, {r[3] / 1e6:g} Mb/s, {r[4] / 1e6:g} Mb/s)" for r in ROWS), "paper",
            "2 5 0.1 2.5Mbps 25 Mbps 6 pkts … 20 500 10 100Mbps 10 Mbps 250 pkts", "Table I"),
    Setting("input links simulated", "min(Nin, U), the users round-robin over them: (20, 5) runs 5 of its 20, (1000, 25) "
            "25 and (1000, 500) 500; the other rows their Nin", "ours",
            "where Nin ≥ U each of 000's transfers arrives over an otherwise idle input, which one input per user "
            "gives without simulating idle links; 000's users pick a random server per transfer (§VI-A)"),
    Setting("C·To", "printed column (Cout × 30 ms) kept; B̂ and the sweeps' top use To = 60 ms (twice the column)",
            "figures", "000 is ambiguous: Table I's BDP column (6, 125, 25, 250 packets) is Cout × 30 ms while §VI-A "
            "gives To a harmonic mean of 60 ms; FIGURES.md [D]: 'The BDP column is C × 30 ms; it doubles with the "
            "stated To = 60 ms'"),
    Setting("buffer grid", f"{SCALE['full']['points']} log-spaced buffers from 2 packets to 4·C·To, rounded (quick: "
            f"{SCALE['quick']['points']}); the top is {_tops()}", "figures",
            "FIGURES.md S000: 'about 15 log-spaced values from 2 packets to about 4 × C·To' (assumed)"),
    Setting("run length", f"{SCALE['full']['duration']:g} s, the first {SCALE['full']['warmup']:g} s warm-up (quick: "
            f"{SCALE['quick']['duration']:g} s, {SCALE['quick']['warmup']:g} s)", "figures",
            "FIGURES.md S000: '600 s + 100 s warm-up' (assumed); the quick runs are ours"),
    Setting("seeds", f"{', '.join(map(str, SCALE['full']['seeds']))} (quick: "
            f"{', '.join(map(str, SCALE['quick']['seeds']))}); fits on the per-buffer mean", "figures",
            "FIGURES.md S000: '3 seeds' (assumed); 000-TableI: 'yes (1 seed) / yes (3 seeds)'"),
    Setting("form chosen", "the form with the larger R² of ln p over the fit range (bufsize.experiments.fit.choose)",
            "figures", "FIGURES.md 000-Fig13: the right form 'fits better than the exponential form' (R² criterion, "
            "assumed); 000 calls a row PL or EX from its plots"),
    Setting("B̂ of the Γ = 10 rows", "eq. (16)'s rule (L) and eq. (17)'s maximum over [0, the delay cutoff] (S), s = 30 "
            "packets, C·To at 60 ms, with the row's EX fit (as fig_000_18)", "ours",
            "000 states the result for every row but not the flow size behind it; Fig. 18's s = 30 packets and "
            "MODELS.md P7's bounded maximum are used"),
    Setting("low-load row", "(20, 25, 10): the one row expected to miss B̂ = 0 and to have the least loss and queueing",
            "paper", "except when Nin=20, U=25 and Γ=10, the case where the offered load is too small to generate any "
            "significant queueing and loss rate", "§VII-B.1"),
) + _pc.SETUP_S000 + _pc.SETUP_LOSS_FIT + _pc.SETUP_DELAY_FIT


def expected_form(gamma: float) -> str:
    return "pl" if gamma < 1 else "ex"


def bdp_packets(c_out: float, to_s: float) -> float:
    from bufsize.reproduce import _p000_closed as pc

    return c_out * to_s / 8 / pc.PACKET_BYTES


def setup(row) -> dict[str, Any]:
    """The row as a ``_p000_closed`` setup. Users are spread round-robin over min(Nin, U) input links:
    with Nin ≥ U every transfer comes over its own otherwise idle input, as in the paper."""
    nin, users, gamma, c_out, c_in, _ = row
    return {"gamma": gamma, "c_out": c_out, "c_in": c_in, "users": users, "inputs": min(nin, users),
            "paper_inputs": nin, "b_min": B_MIN}


def buffers(row, points: int) -> tuple[int, ...]:
    """``points`` log-spaced buffers from 2 packets to 4·C·To (To = 60 ms), rounded, distinct."""
    import numpy as np

    from bufsize.reproduce import _p000_optb as o

    top = B_TOP_BDP * bdp_packets(row[3], o.TO_S)
    return tuple(int(b) for b in np.unique(np.round(np.geomspace(2, top, points)).astype(int)))


def offered_load(row) -> tuple[float, float]:
    """(nominal, input-bound) offered load over Cout: U·E[S]/E[think], and the same with each transfer
    at most at Cin (U·E[S]/(E[think] + E[S]/Cin); still ignores RTTs, slow start and shared inputs)."""
    nin, users, _, c_out, c_in, _ = row
    bits = MEAN_SIZE_BYTES * 8
    return users * bits / MEAN_THINK_S / c_out, users * bits / (MEAN_THINK_S + bits / c_in) / c_out


def _est(e) -> tuple[float, float, float]:
    return (e.value, e.low, e.high) if e is not None else (math.nan, math.nan, math.nan)


def fit_row(camp: dict[str, Any], row) -> dict[str, Any]:
    """The table's row of results from one sweep: fits of both forms, the chosen one, f, B̂ (Γ = 10)."""
    from bufsize.experiments.fit import choose
    from bufsize.reproduce import _p000_closed as pc
    from bufsize.reproduce import _p000_optb as o

    nin, users, gamma, c_out, c_in, bdp_printed = row
    lf, df = camp["loss_fits"], camp["delay_fit"]
    if lf["pl"] is not None and lf["ex"] is not None:
        form, reason = choose(lf)
    else:
        form, reason = "none", "no fit: " + "; ".join(camp["fits"][k]["source"] for k in ("pl", "ex"))
    chosen = lf.get(form)
    a, a_lo, a_hi = _est(chosen.a if chosen else None)
    b, b_lo, b_hi = _est(chosen.b if chosen else None)
    m = camp["means"]
    first, last = m.iloc[0], m.iloc[-1]
    fr = m[m.in_fit_range]
    f0, f1 = (fr.iloc[0], fr.iloc[-1]) if len(fr) else (None, None)
    cp = c_out / 8 / pc.PACKET_BYTES
    load, load_in = offered_load(row)
    out = {"nin": nin, "users": users, "gamma": gamma, "c_out_mbps": c_out / 1e6, "c_in_mbps": c_in / 1e6,
           "bdp_printed_packets": bdp_printed, "bdp_30ms_packets": bdp_packets(c_out, TO_TABLE_S),
           "bdp_60ms_packets": bdp_packets(c_out, o.TO_S), "input_links_simulated": camp["setup"]["inputs"],
           "offered_load": load, "offered_load_input_bound": load_in,
           "smallest_b_packets": int(first.buffer_packets), "loss_smallest_b": float(first.loss_rate),
           "largest_b_packets": int(last.buffer_packets), "utilization_largest_b": float(last.utilization),
           "queue_fill_largest_b": float(last.queue_delay_mean_ms / last.b_over_c_ms),
           "expected_form": expected_form(gamma), "form": form,
           "a": a, "a_low": a_lo, "a_high": a_hi, "b": b, "b_low": b_lo, "b_high": b_hi,
           "r2_pl": camp["fits"]["pl"]["r2"], "r2_ex": camp["fits"]["ex"]["r2"],
           "a_pl": camp["fits"]["pl"]["a"], "b_pl": camp["fits"]["pl"]["b"],
           "a_ex": camp["fits"]["ex"]["a"], "b_ex": camp["fits"]["ex"]["b"],
           "fit_buffers": int(camp["fits"]["pl"]["n"]), "fit_b_min": camp["b_min"],
           "fit_b_first": int(f0.buffer_packets) if f0 is not None else -1,
           "fit_b_last": int(f1.buffer_packets) if f1 is not None else -1,
           "loss_fit_first": float(f0.loss_rate) if f0 is not None else math.nan,
           "loss_fit_last": float(f1.loss_rate) if f1 is not None else math.nan,
           "cutoff_packets": camp["delay"]["cutoff_packets"],
           "f": df.f.value, "f_low": df.f.low, "f_high": df.f.high, "delay_r2": df.r2,
           "bhat_L": math.nan, "bhat_S": math.nan, "low_load_exception": (nin, users) == o.LOW_LOAD_ROW,
           "form_reason": reason}
    if gamma > 1:  # 000 §VII-B's B̂ with the row's EX fit (as fig_000_18)
        an = o._analysis_ex({"a": out["a_ex"], "b": out["b_ex"], "f": out["f"],
                             "cutoff_packets": out["cutoff_packets"]}, cp)
        out["bhat_L"], out["bhat_S"] = an["L"], an["S"]
    return out


def _bhat_zero(x) -> bool:
    return x.bhat_L == 0 and x.bhat_S == 0


def bhat_cause(hi) -> str:
    """The setup cause of the B̂ outlier check: the Γ = 10 rows' fits come from our runs."""
    from bufsize.reproduce._p000_miss import stack_clause
    from bufsize.reproduce.table_000_2 import TCP

    rows = "; ".join(f"({x.nin}, {x.users}): b = {x.b_ex:.3g}/packet vs 2f/(C·To) = {2 * x.f / x.bdp_60ms_packets:.3g}, "
                     f"B̂_L {x.bhat_L:g}, B̂_S {x.bhat_S:g}, utilization {x.utilization_largest_b:.3f}"
                     for x in hi.itertuples())
    return (f"eq. (16) gives B̂_L = 0 only when the fitted b < 2f/(C·To); the fits are of our runs, with our TCP agents "
            f"({stack_clause(TCP)}) and our users spread round-robin over the inputs "
            f"where 000's pick a random server: {rows}")


def checks_and_notes(tab) -> tuple[list, list[str]]:
    """The FIGURES.md checks on the table of results, and a note for every miss (with its numbers)."""
    checks, notes = [], []
    name = {"pl": "power law (PL)", "ex": "exponential (EX)"}
    for _, x in tab.iterrows():
        want = x.expected_form
        ok = x.form == want
        checks.append(if_miss(check_true(
            f"row (Nin {x.nin}, U {x.users}, Γ {x.gamma:g}) follows the {name[want]} form (R² of ln p: PL "
            f"{x.r2_pl:.4f}, EX {x.r2_ex:.4f})", ok,
            "the expected form has the larger R² over B = 5 … delay cutoff (bufsize.experiments.fit.choose)",
            value=(x.r2_pl - x.r2_ex) if want == "pl" else (x.r2_ex - x.r2_pl)),
            "setup", f"the fit rests on our run's {x.fit_buffers} buffers ({x.fit_b_first}–{x.fit_b_last} packets, "
                     f"where our queueing delay stays linear), over which the loss falls only "
                     f"×{x.loss_fit_first / x.loss_fit_last:.2f}: at our load (utilization {x.utilization_largest_b:.3f} "
                     f"at B = {x.largest_b_packets}) the stretch is too short to tell the forms apart, and our users "
                     "are spread round-robin over the inputs where 000's pick a random server"))
        if not ok:
            notes.append(
                f"Miss, row ({x.nin}, {x.users}, {x.gamma:g}): the fits choose {x.form.upper()} (R² PL {x.r2_pl:.4f} "
                f"vs EX {x.r2_ex:.4f}, difference {abs(x.r2_pl - x.r2_ex):.4f}) where the paper has {want.upper()}. "
                f"Most likely: the fit rests on {x.fit_buffers} buffers, {x.fit_b_first}–{x.fit_b_last} packets (the "
                f"delay leaves its line at {x.cutoff_packets:g} = {x.cutoff_packets / x.bdp_60ms_packets:.2f}·C·To), "
                f"over which the loss falls only ×{x.loss_fit_first / x.loss_fit_last:.2f} ({x.loss_fit_first:.4f} → "
                f"{x.loss_fit_last:.4f}); a line through {x.fit_buffers} points leaves {x.fit_buffers - 2} degree(s) of "
                f"freedom, too few for the R² difference to tell a line in ln B from one in B. The stretch is short "
                f"because the load is light: utilization {x.utilization_largest_b:.3f} at "
                f"B = {x.largest_b_packets}, input-bound offered load {x.offered_load_input_bound:.2f} of Cout.")
    hi = tab[tab.gamma > 1]
    exc = hi[hi.low_load_exception]
    others = hi[~hi.low_load_exception]
    if len(exc) != 1:
        raise RuntimeError("Table I has exactly one low-load exception row")
    e = exc.iloc[0]
    least_loss = bool(e.loss_smallest_b < others.loss_smallest_b.min())
    least_queue = bool(e.queue_fill_largest_b < others.queue_fill_largest_b.min())
    checks.append(if_miss(check_true(
        "§VII-B: (20, 25, 10) is the low-load row — of the Γ = 10 rows it has the least loss (at B = 2, every "
        "row's smallest buffer) and the least queueing (mean queueing delay at the largest buffer over B/C)",
        least_loss and least_queue, "lowest of the four Γ = 10 rows in both", value=float(e.loss_smallest_b)),
        "setup", f"our 25 users are spread round-robin over the 20 inputs (5 inputs carry two users), while 000's "
                 f"users pick a random server per transfer: (20, 25, 10) loses {e.loss_smallest_b:.4f} at B = 2 (the "
                 f"other rows from {others.loss_smallest_b.min():.4f}) and fills its queue to "
                 f"{e.queue_fill_largest_b:.3f} (others from {others.queue_fill_largest_b.min():.3f})"))
    nonzero = [(int(x.nin), int(x.users)) for _, x in hi.iterrows() if not _bhat_zero(x)]
    checks.append(if_miss(check_true(
        "§VII-B.1–2: (20, 25, 10) is the only Γ = 10 row whose fitted (a, b, f) does not give B̂ = 0 for both the "
        "L- and the S-model", nonzero == [(int(e.nin), int(e.users))],
        "the rows with B̂ ≠ 0 (or no B̂) are exactly {(20, 25)}", value=len(nonzero)),
        "setup", bhat_cause(hi)))
    rows_txt = "; ".join(f"({x.nin}, {x.users}): loss at B = 2 {x.loss_smallest_b:.4f}, queue fill "
                         f"{x.queue_fill_largest_b:.3f}, utilization {x.utilization_largest_b:.3f} at B = "
                         f"{x.largest_b_packets}, B̂_L {x.bhat_L:g}, B̂_S {x.bhat_S:g}" for _, x in hi.iterrows())
    notes.append(f"Γ = 10 rows: {rows_txt}.")
    if not (least_loss and least_queue):
        notes.append(f"Miss, low load: (20, 25, 10) has loss {e.loss_smallest_b:.4f} at B = 2 (others from "
                     f"{others.loss_smallest_b.min():.4f}) and queue fill {e.queue_fill_largest_b:.3f} (others from "
                     f"{others.queue_fill_largest_b.min():.3f}). Most likely: the engine spreads the 25 users "
                     f"round-robin over 20 inputs (5 inputs shared by two users), while the paper's users pick a random "
                     f"server per transfer; both rows have the same nominal offered load {e.offered_load:.2f}.")
    if nonzero != [(int(e.nin), int(e.users))]:
        parts = [f"({x.nin}, {x.users}): b = {x.b_ex:.3g}/packet vs 2f/(C·To) = {2 * x.f / x.bdp_60ms_packets:.3g} "
                 f"(f = {x.f:.3f}), B̂_L {x.bhat_L:g}, B̂_S {x.bhat_S:g}, utilization {x.utilization_largest_b:.3f}, "
                 f"queue fill {x.queue_fill_largest_b:.3f}, input-bound offered load {x.offered_load_input_bound:.2f}, "
                 f"EX fit on {x.fit_buffers} buffers" for _, x in hi.iterrows()]
        notes.append("Miss, B̂ outlier: the Γ = 10 rows with B̂ ≠ 0 (or none) are "
                     + (", ".join(map(str, nonzero)) or "none") + " (paper: (20, 25) alone). Eq. (16)'s rule gives "
                     "B̂_L = 0 only when b < 2f/(C·To) (the loss falls more slowly than the delay grows); otherwise R_L "
                     "rises from B = 0 and B̂_L → ∞. Most likely: a row that does not saturate the output queues little "
                     "(small f) while its loss still falls off quickly with B; in the paper only (20, 25) was that "
                     "lightly loaded, here the rows listed are. " + "; ".join(parts) + ".")
    return checks, notes


def run(ctx) -> FigureOutput:
    import numpy as np
    import pandas as pd

    from bufsize.reproduce import _p000_closed as pc
    from bufsize.reproduce import _p000_optb as o
    from bufsize.reproduce._plot import figure, finish

    sc = SCALE[ctx.mode]
    camps, results, sweeps, runs = [], [], [], []
    for row in ROWS:
        cfg = {"buffers": buffers(row, sc["points"]), "seeds": tuple(sc["seeds"]), "duration": sc["duration"],
               "warmup": sc["warmup"]}
        camp = pc.sweep(ctx, setup(row), cfg, label=f"Table I row (Nin {row[0]}, U {row[1]}, Γ {row[2]:g})")
        camps.append(camp)
        results.append(fit_row(camp, row))
        tag = {"nin": row[0], "users": row[1], "gamma": row[2]}
        sweeps.append(camp["means"].assign(**tag))
        runs.append(camp["runs"].assign(**tag))
    tab = pd.DataFrame(results)
    checks, miss_notes = checks_and_notes(tab)

    notes = [f"Row ({x.nin}, {x.users}, {x.gamma:g}): {x.form.upper()} a = {x.a:.3g} [{x.a_low:.3g}, {x.a_high:.3g}], "
             f"b = {x.b:.3g} [{x.b_low:.3g}, {x.b_high:.3g}] over {x.fit_buffers} buffers {x.fit_b_min}–"
             f"{x.cutoff_packets:g} (R² PL {x.r2_pl:.4f}, EX {x.r2_ex:.4f}); f = {x.f:.3f} [{x.f_low:.3f}, "
             f"{x.f_high:.3f}] (R² {x.delay_r2:.3f}); utilization {x.utilization_largest_b:.3f} at B = "
             f"{x.largest_b_packets}; offered load {x.offered_load:.2f} (input-bound {x.offered_load_input_bound:.2f})."
             for _, x in tab.iterrows()]
    notes += miss_notes
    notes.append("Saturation (000 §VI-A: U is chosen so the output saturates when B is large): utilization at the "
                 "largest buffer (4·C·To) " + ", ".join(f"({x.nin}, {x.users}) {x.utilization_largest_b:.3f}"
                                                      for _, x in tab.iterrows())
                 + "; the offered load U·E[S]/E[think] is " + ", ".join(sorted({f"{v:.2f}" for v in tab.offered_load}))
                 + " of Cout, and with each transfer at most at Cin " + ", ".join(
                     sorted({f"{v:.2f}" for v in tab.offered_load_input_bound})) + " (think time 1 s assumed).")
    notes.append("BDP both ways: the printed column is Cout × 30 ms / 1500 B (2.5 Mb/s gives 6.25, printed 6); "
                 "C·To at the models' To = 60 ms is twice that (bdp_60ms_packets), and the sweeps end at 4× it.")

    fig, axes = figure(1, 2, width=10.0, height=4.4)
    style = {"pl": "-", "ex": "--", "none": ":"}
    for ax, (low, title) in zip(axes, ((True, "Γ = 0.1 (log B)"), (False, "Γ = 10 (linear B)"))):
        k = 0
        for camp, x in zip(camps, results):
            if (x["gamma"] < 1) != low:
                continue
            m = camp["means"]
            cto = x["bdp_60ms_packets"]
            pos = m[m.loss_rate > 0]
            color = f"C{k}"
            k += 1
            ax.plot(pos.buffer_packets / cto, pos.loss_rate, "osD^"[k - 1], ms=4, color=color, alpha=0.8,
                    label=f"({x['nin']}, {x['users']}): {x['form'].upper()}, R² PL {x['r2_pl']:.3f} / EX {x['r2_ex']:.3f}")
            fr = m[m.in_fit_range]
            if x["form"] in ("pl", "ex") and len(fr):
                bb = np.linspace(fr.buffer_packets.min(), fr.buffer_packets.max(), 60)
                y = x["a"] * (bb ** -x["b"] if x["form"] == "pl" else np.exp(-x["b"] * bb))
                ax.plot(bb / cto, y, style[x["form"]], color=color, lw=1.2)
        if low:
            ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("buffer B / C·To (To = 60 ms)")
        ax.set_ylabel("loss probability p(B)")
        ax.set_title(f"{title}; fitted form: solid PL, dashed EX", fontsize=9)
        ax.grid(alpha=0.3, which="both")
        ax.legend(fontsize=7, title="(Nin, U): chosen form", title_fontsize=7)
    finish(fig, "000 Table I: p(B) of the eight rows, S000 closed-loop users, fits over 5 ≤ B ≤ delay cutoff")

    inputs = {
        "table": [{"nin": r[0], "users": r[1], "gamma": r[2], "c_out_bps": r[3], "c_in_bps": r[4],
                   "bdp_printed_packets": r[5]} for r in ROWS],
        "bdp": {"printed_column_to_s": TO_TABLE_S, "model_to_s": o.TO_S, "packet_bytes": pc.PACKET_BYTES},
        "rows": [{"setup": c["setup"], "buffers_packets": list(c["config"]["buffers"]),
                  "scenario_template": c["scenario_template"]} for c in camps],
        "sweep": {"mode": ctx.mode, "points_per_row": sc["points"], "buffer_range": "2 .. 4·C·To (To = 60 ms), "
                  "log-spaced, rounded", "seeds": list(sc["seeds"]), "duration_s": sc["duration"],
                  "warmup_s": sc["warmup"]},
        "fits": {"loss": "bufsize.experiments.fit.fit_loss on the per-buffer mean loss, B from 5 packets to the delay "
                         "cutoff, PL and EX; form = fit.choose (larger R² of ln p)",
                 "delay": "bufsize.experiments.fit.fit_delay on every run (d = f·B/C through the origin, 15 % cutoff)",
                 "bhat": "Γ = 10 rows: _p000_optb's EX B̂ (L: eq. (16) rule; S: eq. (17) maximum over [0, cutoff]), "
                         "s = 30 packets, C·To at 60 ms",
                 "confidence": 0.95},
        "offered_load": {"mean_size_bytes": MEAN_SIZE_BYTES, "mean_think_s": MEAN_THINK_S},
    }
    n_runs = sum(len(c["runs"]) for c in camps)
    deviations = [
        f"bufsize's packet-level engine instead of ns-2; {ctx.mode} scale: {sc['points']} buffers per row × "
        f"{len(sc['seeds'])} seed(s) × {sc['duration']:g} s runs, the first {sc['warmup']:g} s warm-up, {n_runs} runs "
        "(FIGURES.md S000 assumes ~15 buffers, 600 s measured + 100 s warm-up, 3 seeds).",
        "Input links: min(Nin, U) links with the users spread round-robin over them, each user on a fixed link; the "
        "paper's users pick a random one of max(20, Nin) servers per transfer. Rows with Nin = 1000 simulate U links "
        "(25 or 500; every transfer then comes over an otherwise idle input, as with 1000); (20, 5) simulates 5 of "
        "its 20 links (the other 15 would be idle).",
        "Two-way propagation delays uniform over 30–110 ms per user (servers 5–45 ms plus an assumed client side); "
        "Pareto sizes mean 80 KB shape 1.5, exponential think time of mean 1 s (assumed), Reno, 1500-byte packets.",
        f"Loss forms fitted from B = {B_MIN} packets (as Figs. 13–16; the paper expects the forms for buffers that are "
        "'not too small'); on the 2.5 Mb/s rows that is 0.4·C·To.",
    ]
    return FigureOutput(data=tab, checks=checks, inputs=inputs, figure=fig, deviations=deviations, notes=notes,
                        extra_tables={"sweep": pd.concat(sweeps, ignore_index=True),
                                      "runs": pd.concat(runs, ignore_index=True)})
