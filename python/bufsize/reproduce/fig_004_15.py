"""004-Fig15: model / ns-2 / Cisco GSR utilization for buffers of 0.5–3 × RTT·C/√n, OC3.

Reproduced in simulation only (the hardware router and Harpoon testbed are not available; the
kernel-namespace testbed at 155 Mb/s with 400 flows is outside what these machines sustain):
long-lived flows, RTT·C = 1291 packets of 1500 B (mean RTT 100 ms, uniform ±50 % assumed),
Reno for the ns-2 column and NewReno + SACK as the proxy of the hosts' Linux/BSD stacks for the
experiment column. The Model column is recomputed from eq. (6) and shown, not checked: it cannot
be reproduced from eq. (6) (FIGURES.md, MODELS.md).
"""

from __future__ import annotations

from bufsize.reproduce._core import Check, FigureOutput, FigureSpec, check_abs, check_range, check_true

SPEC = FigureSpec(
    id="fig_004_15",
    paper_id="004-Fig15",
    title="Comparison of the model, ns-2 simulation and experimental results for buffer requirements of a Cisco "
          "GSR 12410 OC3 linecard (§5.2.1)",
    kind="testbed",
    kind_detail="testbed (hardware) + simulation + analytic",
    needs=("TRF-BULK", "TCP-RENO", "TCP-NRSACK", "SIM-Q", "MET-UTIL"),
    paper_cost="sim 25 M; testbed ≈ 32 min",
    quick_seconds=8.0,
    note="simulation columns only; the hardware column is compared with a NewReno+SACK simulation",
)

BDP = 1291.0
#: (n, multiple) -> (buffer packets, model %, ns-2 %, experiment %) from the TR via MODELS.md
TABLE = {
    (100, 0.5): (64, 96.9, 94.7, 94.9), (100, 1): (129, 99.9, 99.3, 98.1), (100, 2): (258, 100, 99.9, 99.8),
    (100, 3): (387, 100, 99.8, 99.7),
    (200, 0.5): (46, 98.8, 97.0, 98.6), (200, 1): (91, 99.9, 99.2, 99.7), (200, 2): (182, 100, 99.8, 99.8),
    (200, 3): (273, 100, 100, 99.8),
    (300, 0.5): (37, 99.5, 98.6, 99.6), (300, 1): (74, 100, 99.3, 99.8), (300, 2): (148, 100, 99.9, 99.8),
    (300, 3): (222, 100, 100, 100),
    (400, 0.5): (32, 99.7, 99.2, 99.5), (400, 1): (64, 100, 99.8, 100), (400, 2): (128, 100, 100, 100),
    (400, 3): (192, 100, 100, 99.9),
}
SCALE = {"quick": {"duration": 60.0, "warmup": 20.0, "seeds": (1,)},
         "full": {"duration": 140.0, "warmup": 20.0, "seeds": (1, 2, 3)}}
STACKS = {"reno": {"cc": "reno", "sack": False, "prr": False},
          "newreno_sack": {"cc": "newreno", "sack": True, "prr": False}}


def _scenario(n, buffer, stack, duration, warmup, seed):
    from bufsize.reproduce import _stack

    return _stack.dumbbell(capacity="155Mbps", flows=n, rtt="50ms..150ms", buffer=f"{buffer}pkt",
                             duration=f"{duration:g}s", warmup=f"{warmup:g}s", seed=seed, packet_size="1500B",
                             start="0s..5s", **STACKS[stack])


def run(ctx) -> FigureOutput:
    import pandas as pd

    from bufsize.models import appenzeller as ap
    from bufsize.reproduce._plot import table_figure
    from bufsize.reproduce._sim import run_scenarios

    cfg = SCALE[ctx.mode]
    jobs = [(key, stack, seed) for key in TABLE for stack in STACKS for seed in cfg["seeds"]]
    scs = [_scenario(k[0], TABLE[k][0], stack, cfg["duration"], cfg["warmup"], seed) for k, stack, seed in jobs]
    ctx.say(f"      {len(scs)} runs")
    res = run_scenarios(scs, ctx)
    runs = pd.DataFrame([{"n": k[0], "multiple": k[1], "stack": stack, "seed": seed,
                          "utilization": r["summary"]["utilization"], "loss_rate": r["summary"]["loss_rate"],
                          "timeouts": r["summary"]["timeouts"], "fast_retransmits": r["summary"]["fast_retransmits"]}
                         for (k, stack, seed), r in zip(jobs, res)])
    mean = runs.groupby(["n", "multiple", "stack"]).utilization.mean()
    rows, checks = [], []
    for (n, m), (buf, model, ns2, exp) in TABLE.items():
        reno = 100 * mean[(n, m, "reno")]
        nrs = 100 * mean[(n, m, "newreno_sack")]
        eq6 = 100 * ap.utilization_lower_bound(buf, BDP, n)
        rows.append({"n": n, "multiple": m, "buffer_packets": buf, "paper_model": model, "paper_ns2": ns2,
                     "paper_gsr": exp, "eq6": eq6, "ours_reno": reno, "ours_newreno_sack": nrs})
        tol = 1.5 if m == 0.5 else 0.7
        checks.append(check_abs(f"n = {n}, {m:g}× ({buf} pkts): ns-2 {ns2} %", ns2, reno, tol, unit=" pt",
                                why="our Reno; ±1.5 pt at 0.5×, ±0.7 pt at ≥ 1× (assumed)"))
        checks.append(check_abs(f"n = {n}, {m:g}× ({buf} pkts): GSR experiment {exp} %", exp, nrs, tol, unit=" pt",
                                why="our NewReno+SACK as the hosts' stack"))
    df = pd.DataFrame(rows)
    one = df[df.multiple >= 1]
    checks.append(check_range("key result: RTT·C/√n suffices — every n at ≥ 1× reaches ≥ 98.1 % (lowest cell, Reno)",
                              98.1, float(one.ours_reno.min()), 98.1, 100.0, why="FIGURES.md §7 check 2"))
    # "ns-2 sometimes predicts lower utilization than the hardware" compares two things we do not have (ns-2 and
    # the GSR router); our two stacks inside one simulator do not stand in for them, so it is not measured here
    paper_lower = sum(1 for (_, _, ns2, exp) in TABLE.values() if ns2 < exp)
    checks.append(Check("ns-2 sometimes predicts lower utilization than the hardware", f"{paper_lower} of {len(TABLE)} "
                        "cells", None, "not measured: a claim about ns-2 against the GSR router; our Reno and "
                        "NewReno+SACK runs in one simulator stand in for neither", False, "measurement"))
    half, whole = df[df.multiple == 0.5].eq6, df[df.multiple == 1].eq6
    checks.append(check_range("[D] the Model column does not follow from eq. (6): eq. (6) gives 78–79.5 % at 0.5× "
                              "(lowest and highest n; FIGURES.md)", 78.75, float(half.min()), 77.95, 79.55,
                              why="78–79.5 %, ±0.05 for rounding; paper's Model column 96.9–99.7 %", kind="formula"))
    checks.append(check_range("[D] … and 98.2–98.7 % at 1× (FIGURES.md)", 98.45, float(whole.min()), 98.15, 98.75,
                              why="98.2–98.7 %, ±0.05 for rounding; paper's Model column 99.9–100 %", kind="formula"))
    checks.append(check_range("[D] … (largest eq. (6) value at 0.5×)", 79.5, float(half.max()), 77.95, 79.55,
                              why="as above", kind="formula"))
    checks.append(check_range("[D] … (largest eq. (6) value at 1×)", 98.7, float(whole.max()), 98.15, 98.75,
                              why="as above", kind="formula"))
    # "Above that [200 flows], the model predicts utilization correctly within the ≈ 0.1 % measurement accuracy":
    # our model is eq. (6), our stand-in for the hardware the NewReno+SACK runs
    above = df[df.n > 200]
    gap_eq6 = (above.eq6 - above.ours_newreno_sack).abs()
    worst_cell = above.loc[gap_eq6.idxmax()]
    checks.append(check_range(f"n > 200: the model predicts utilization within the ≈ 0.1 % measurement accuracy (largest "
                              f"|eq. (6) − our NewReno+SACK|, at n = {int(worst_cell.n)}, {worst_cell.multiple:g}×)", 0.1,
                              float(gap_eq6.max()), 0.0, 0.1, why="≈ 0.1 % (FIGURES.md)"))
    checks.append(Check("at 100 and 200 flows there is some synchronization", None, None,
                        "not measured: needs per-flow loss times (MET-SYNC) in the 16-cell runs, which record only "
                        "per-run totals", False))
    fig = table_figure(["n", "B", "model (paper/eq.6)", "ns-2 / ours Reno", "GSR / ours NR+SACK"],
                       [[str(r["n"]), f"{r['multiple']:g}× = {r['buffer_packets']}",
                         f"{r['paper_model']:g} / {r['eq6']:.1f}", f"{r['paper_ns2']:g} / {r['ours_reno']:.1f}",
                         f"{r['paper_gsr']:g} / {r['ours_newreno_sack']:.1f}"] for r in rows],
                       "004 Fig. 15: utilization (%), paper vs bufsize simulation, OC3, RTT·C = 1291", width=8.0)
    return FigureOutput(
        data=df, checks=checks, figure=fig, extra_tables={"runs": runs},
        inputs={"scenarios": [s.to_dict() for s in scs[:2]], "grid": {"cells": [list(k) for k in TABLE],
                                                                         "stacks": STACKS, **{k: (list(v) if isinstance(v, tuple) else v) for k, v in cfg.items()}},
                "bdp_packets": BDP},
        deviations=[f"Simulation only (bufsize engine), {cfg['duration']:g}-s runs with {cfg['warmup']:g} s warm-up, "
                    f"seeds {list(cfg['seeds'])}; the hardware column is compared with a NewReno+SACK simulation, not a "
                    f"router. RTT distribution (uniform 50–150 ms) and Harpoon's session parameters are not stated "
                    f"(assumed: long-lived flows).",
                    "The Model column is shown beside eq. (6) but not checked: eq. (6) gives 78–79.5 % at 0.5× and "
                    "98.2–98.7 % at 1×, not the printed 96.9–99.9 % (FIGURES.md [D])."],
        notes=_notes(df, runs) + _model_note(df))


def _model_note(df):
    above = df[df.n > 200]
    gap_eq6 = (above.eq6 - above.ours_newreno_sack).abs()
    gap_col = (above.paper_model - above.ours_newreno_sack).abs()
    gap_paper = (above.paper_model - above.paper_gsr).abs()
    return [f"Model vs hardware above 200 flows: eq. (6) is a lower bound (78–79.5 % at 0.5×, FIGURES.md [D]), so it "
            f"misses our NewReno+SACK runs by up to {gap_eq6.max():.1f} pt (at 1× and more by up to "
            f"{gap_eq6[above.multiple >= 1].max():.2f} pt); the paper's printed Model column, which eq. (6) does not "
            f"give, is within {gap_paper.max():.1f} pt of its own GSR column but up to {gap_col.max():.1f} pt from our "
            f"NewReno+SACK runs.",
            "Not measured: the synchronization the paper sees at 100 and 200 flows; the runs record per-run totals "
            "(utilization, losses, timeouts), not the per-flow loss times a synchronization measure needs."]


def _notes(df, runs):
    one = df[df.multiple >= 1]
    big = one[one.n >= 200]
    worst = df.assign(gap=df.ours_reno - df.paper_ns2).sort_values("gap").iloc[0]
    r = runs[(runs.n == worst.n) & (runs.multiple == worst.multiple)].groupby("stack")[["timeouts", "fast_retransmits"]].mean()
    return [f"Our Reno falls short of ns-2 most at few flows and small buffers (worst: n = {int(worst.n)}, "
            f"{worst.multiple:g}×: {worst.ours_reno:.1f} % vs {worst.paper_ns2:g} %). The runs show why: in that cell "
            f"Reno takes {r.loc['reno', 'timeouts']:.0f} timeouts against {r.loc['reno', 'fast_retransmits']:.0f} fast "
            f"retransmits, NewReno+SACK only {r.loc['newreno_sack', 'timeouts']:.0f} (and reaches "
            f"{worst.ours_newreno_sack:.1f} %): several losses in one window send plain Reno into timeouts, which "
            f"idle the link while the buffer is small. A check run at n = 100, 0.5× gave Reno 83.8 %, NewReno "
            f"88.2 %, NewReno+SACK 90.3 % with 1714 / 1321 / 302 timeouts. ns-2's Reno evidently recovered with "
            f"fewer timeouts (its timer settings are not stated). Run length is not the cause: the --full run "
            f"(docs/reproduction/full: 3 seeds × 140 s) gives Reno 85.0 % / NewReno+SACK 90.7 % at n = 100, 0.5×. The hardware column, compared with NewReno+SACK, is matched much more closely. At ≥ 1× "
            f"the lowest cell is {one.ours_reno.min():.1f} % with Reno and {one.ours_newreno_sack.min():.1f} % with "
            f"NewReno+SACK (n ≥ 200: {big.ours_reno.min():.1f} % / {big.ours_newreno_sack.min():.1f} %)."]
