"""004-Fig15: model / ns-2 / Cisco GSR utilization for buffers of 0.5–3 × RTT·C/√n, OC3.

Reproduced in simulation only (the hardware router and Harpoon testbed are not available; the
kernel-namespace testbed at 155 Mb/s with 400 flows is outside what these machines sustain):
long-lived flows, RTT·C = 1291 packets of 1500 B (mean RTT 100 ms, uniform ±50 % assumed),
Reno for the ns-2 column and NewReno + SACK as the proxy of the hosts' Linux/BSD stacks for the
experiment column. The Model column is recomputed from eq. (6); the paper calls it "the
lower-bound on the utilization predicted by the model", so it is checked as a bound (our
utilization at or above it, within the paper's ≈ 0.1 % measurement accuracy), not as a match.

Access links: 004 names no access rate for its ns-2 runs, only that they were "faster than the
bottleneck link" (§4); the one access-side rate it gives is the Gigabit Ethernet that aggregated
the testbed's hosts (§5.2). Each flow therefore has its own 1 Gb/s access link; the engine's
default (10 × C = 1.55 Gb/s, what this item ran before) and a slow 2 × C are labelled sensitivity
runs on four cells.
"""

from __future__ import annotations

from bufsize.reproduce import _p004
from bufsize.reproduce._core import Check, FigureOutput, FigureSpec, check_abs, check_at_least, check_range
from bufsize.reproduce._p004 import ACCESS_BPS, ACCESS_SENTENCES
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id="fig_004_15",
    paper_id="004-Fig15",
    title="Comparison of the model, ns-2 simulation and experimental results for buffer requirements of a Cisco "
          "GSR 12410 OC3 linecard (§5.2.1)",
    kind="testbed",
    kind_detail="testbed (hardware) + simulation + analytic",
    needs=("TRF-BULK", "TCP-RENO", "TCP-NRSACK", "SIM-Q", "MET-UTIL"),
    paper_cost="sim 25 M; testbed ≈ 32 min",
    quick_seconds=30.0,
    note="simulation columns only; the hardware column is compared with a NewReno+SACK simulation; 1 Gb/s access links",
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
#: labelled sensitivity runs of the access rate (not checked): None = the engine's default 10 × C
ACCESS_SENSITIVITY = {"10×C (engine default, earlier runs)": None, "2×C": 2 * 155e6}
SENSITIVITY_CELLS = ((100, 0.5), (100, 1), (400, 0.5), (400, 1))
STACKS = {"reno": {"cc": "reno", "sack": False, "prr": False},
          "newreno_sack": {"cc": "newreno", "sack": True, "prr": False}}

SETUP = (
    Setting("bottleneck capacity", "155 Mb/s (OC3)", "paper",
            "switches IP packets using POS (PPP over Sonet) at 155Mb/s", "§5.2"),
    Setting("RTT·C", "1291 packets", "paper", "which in this case would be 1291 packets", "§5.2.1"),
    Setting("packet size", "1500 bytes", "paper", "with an MTU of 1500 bytes", "§5.2.2, footnote 10 (the testbed)"),
    Setting("flows", "n = 100, 200, 300, 400 long-lived flows", "figures",
            "FIGURES.md (the table's rows, from the TR via MODELS.md; the seed lost the cells); long-lived flows "
            "assumed, as Harpoon's session parameters are unstated; §5.2.1 is headed 'Long Flows'"),
    Setting("buffers", "0.5, 1, 2, 3 × RTT·C/√n, in packets as printed (32–387, the 64-KB FIFO already "
            "subtracted), each an ns-2 limit_ (the engine holds B − 1)", "figures",
            "FIGURES.md: the cells 'from the TR via MODELS.md'; 004 says the buffer is 'given as a multiple of "
            "RTT·C/√n' with 'the size of the internal FIFO' subtracted (§5.2.1)"),
    Setting("RTTs", "uniform 50–150 ms (mean 100 ms)", "figures",
            "FIGURES.md: 'RTT mean 100 ms uniform ±50 %, assumed'; [C] 1291 packets of 1500 B at 155 Mb/s is a "
            "100-ms RTT"),
    Setting("stack, ns-2 column", "Reno", "paper",
            "We used TCP Reno with a maximum advertised window size of at least 10000 bytes", "§5.1"),
    _p004.tcp_stack(name="stack details"),
    Setting("stack, experiment column", "NewReno with SACK (the profile's other details unchanged)", "figures",
            "FIGURES.md: 'the hardware used Linux/BSD stacks: TCP-NRSACK is the closer proxy'; 004: Harpoon 'on "
            "Linux and BSD machines' (§5.2)"),
    _p004.QUEUE,
    Setting("start times", "uniform over 0–5 s", "ours",
            "004 gives none; FIGURES.md's S004 assumes starts 'random over the first seconds'"),
    _p004.access_setting("1 Gb/s per flow (6.5 × C), queues unlimited"),
    _p004.run_length_setting("140 s, the first 20 s left out (quick: 60 s, 20 s)"),
    Setting("seeds", "1, 2, 3, utilization as their mean (quick: 1)", "ours", "three seeds give each cell's check "
                                                                             "an interval"),
    Setting("model", "eq. (6) at each cell's buffer, as a lower bound", "figures",
            "MODELS.md A3 (eq. (6) from the TR) and discrepancy 2: the printed Model column does not follow from "
            "it, so it is shown beside it, not checked"),
    Setting("access sensitivity", "10 × C (the engine's default) and 2 × C at n = 100 and 400, 0.5× and 1×, both "
            "stacks, seed 1, not checked", "ours", "how much the unstated access rate moves the utilization"),
)


def _scenario(n, buffer, stack, duration, warmup, seed, access_bps=ACCESS_BPS):
    from bufsize.reproduce import _stack

    acc = {} if access_bps is None else {"access_capacity": f"{access_bps:g}bps"}
    return _stack.dumbbell(capacity="155Mbps", flows=n, rtt="50ms..150ms", buffer=f"{_stack.ns2_limit(buffer)}pkt",
                             duration=f"{duration:g}s", warmup=f"{warmup:g}s", seed=seed, packet_size="1500B",
                             start="0s..5s", **acc, **STACKS[stack])


def run(ctx) -> FigureOutput:
    import pandas as pd

    from bufsize.models import appenzeller as ap
    from bufsize.reproduce._plot import table_figure
    from bufsize.reproduce._sim import run_scenarios

    cfg = SCALE[ctx.mode]
    jobs = [(key, stack, seed) for key in TABLE for stack in STACKS for seed in cfg["seeds"]]
    scs = [_scenario(k[0], TABLE[k][0], stack, cfg["duration"], cfg["warmup"], seed) for k, stack, seed in jobs]
    # the access-rate sensitivity: four cells, both stacks, the first seed, labelled and not checked
    sjobs = [(label, key, stack) for label in ACCESS_SENSITIVITY for key in SENSITIVITY_CELLS for stack in STACKS]
    sscs = [_scenario(k[0], TABLE[k][0], stack, cfg["duration"], cfg["warmup"], cfg["seeds"][0],
                      access_bps=ACCESS_SENSITIVITY[label]) for label, k, stack in sjobs]
    ctx.say(f"      {len(scs)} runs, {len(sscs)} access-rate sensitivity runs")
    res = run_scenarios(scs + sscs, ctx)
    res, sres = res[:len(scs)], res[len(scs):]
    runs = pd.DataFrame([{"n": k[0], "multiple": k[1], "stack": stack, "seed": seed,
                          "utilization": r["summary"]["utilization"], "loss_rate": r["summary"]["loss_rate"],
                          "timeouts": r["summary"]["timeouts"], "fast_retransmits": r["summary"]["fast_retransmits"]}
                         for (k, stack, seed), r in zip(jobs, res)])
    sens = pd.DataFrame([{"access": label, "access_bps": ACCESS_SENSITIVITY[label] or 10 * 155e6, "n": k[0],
                          "multiple": k[1], "stack": stack, "utilization": r["summary"]["utilization"],
                          "timeouts": r["summary"]["timeouts"], "fast_retransmits": r["summary"]["fast_retransmits"]}
                         for (label, k, stack), r in zip(sjobs, sres)])
    mean = runs.groupby(["n", "multiple", "stack"]).utilization.mean()
    rows = []
    for (n, m), (buf, model, ns2, exp) in TABLE.items():
        rows.append({"n": n, "multiple": m, "buffer_packets": buf, "paper_model": model, "paper_ns2": ns2,
                     "paper_gsr": exp, "eq6": 100 * ap.utilization_lower_bound(buf, BDP, n),
                     "ours_reno": 100 * mean[(n, m, "reno")], "ours_newreno_sack": 100 * mean[(n, m, "newreno_sack")]})
    df = pd.DataFrame(rows)
    checks = table_checks(df, runs, sens)
    fig = table_figure(["n", "B", "model (paper/eq.6)", "ns-2 / ours Reno", "GSR / ours NR+SACK"],
                       [[str(r["n"]), f"{r['multiple']:g}× = {r['buffer_packets']}",
                         f"{r['paper_model']:g} / {r['eq6']:.1f}", f"{r['paper_ns2']:g} / {r['ours_reno']:.1f}",
                         f"{r['paper_gsr']:g} / {r['ours_newreno_sack']:.1f}"] for r in rows],
                       "004 Fig. 15: utilization (%), paper vs bufsize simulation, OC3, RTT·C = 1291", width=8.0)
    return FigureOutput(
        data=df, checks=checks, figure=fig, extra_tables={"runs": runs, "access_sensitivity": sens},
        inputs={"scenarios": [s.to_dict() for s in scs[:2]], "grid": {"cells": [list(k) for k in TABLE],
                                                                         "stacks": STACKS, **{k: (list(v) if isinstance(v, tuple) else v) for k, v in cfg.items()}},
                "bdp_packets": BDP, "access_rate_bps": ACCESS_BPS,
                "access_rate_source": "assumed from the paper's words (no rate is stated for its ns-2 runs): "
                                      + " ".join(ACCESS_SENTENCES),
                "access_sensitivity": {"rates_bps": {k: (v if v is not None else 10 * 155e6)
                                                     for k, v in ACCESS_SENSITIVITY.items()},
                                       "cells": [list(k) for k in SENSITIVITY_CELLS], "seed": cfg["seeds"][0],
                                       "checked": False}},
        deviations=[f"Simulation only (bufsize engine), {cfg['duration']:g}-s runs with {cfg['warmup']:g} s warm-up, "
                    f"seeds {list(cfg['seeds'])}; the hardware column is compared with a NewReno+SACK simulation, not a "
                    f"router. RTT distribution (uniform 50–150 ms) and Harpoon's session parameters are not stated "
                    f"(assumed: long-lived flows).",
                    "Access links: 1 Gb/s per flow (assumed). 004 gives no rate for its ns-2 access links, only "
                    "'access links that are faster than the bottleneck link' (§4); 1 Gb/s is the Gigabit Ethernet "
                    "that aggregated its testbed hosts (§5.2). The engine's default 10 × C (1.55 Gb/s, the earlier "
                    "runs) and 2 × C are sensitivity runs, not checked.",
                    "The Model column is checked as what §5.2.1 calls it, 'the lower-bound on the utilization "
                    "predicted by the model': eq. (6) gives 78–79.5 % at 0.5× and 98.2–98.7 % at 1×, not the printed "
                    "96.9–99.9 % (FIGURES.md [D]), so the printed column is shown beside it and not checked."],
        notes=_notes(df, runs) + _model_note(df) + _access_note(sens, runs))


def _access_effect(sens, runs, n, m, stack):
    """'x–y %' over the sensitivity access rates and the main run's 1 Gb/s, seed 1 (None without the cell)."""
    main = runs[(runs.n == n) & (runs.multiple == m) & (runs["stack"] == stack) & (runs.seed == runs.seed.min())]
    s = sens[(sens.n == n) & (sens.multiple == m) & (sens["stack"] == stack)] if len(sens) else sens
    if not len(s) or not len(main):
        return None
    u = [100 * float(main.utilization.iloc[0])] + [100 * float(x) for x in s.utilization]
    return f"{min(u):.1f}–{max(u):.1f} % at access rates from 2×C to 10×C (seed 1)"


def _recoveries(runs, n, m, stack) -> str:
    r = runs[(runs.n == n) & (runs.multiple == m) & (runs["stack"] == stack)]
    to, fr = float(r.timeouts.mean()), float(r.fast_retransmits.mean())
    return f"{to:.0f} timeouts against {fr:.0f} fast retransmits per run in this cell"


#: why a cell of the ns-2 column can miss: what 004 leaves unstated about its ns-2 runs
NS2_UNSTATED = ("004 states of its ns-2 runs only 'TCP Reno with a maximum advertised window size of at least 10000 "
                "bytes, and a 1500 or 1000 byte MTU' and 'The average propagation delay of a TCP flow varied from 25ms "
                "to 300ms' (§5.1); the RTT spread of this table, the flows' start times and ns-2 Reno's timer settings "
                "are not given, and ours are assumed (uniform 50–150 ms, starts over 5 s, ns-2.35's Agent/TCP "
                "defaults through the ns2 profile, _stack.py). ns-2.35 itself (Agent/TCP/Reno at its "
                "defaults) run in this same setting lands where our engine does, not at 004's column: 84.1 % at "
                "n = 100, 0.5× and within 0.3 points of the engine in all 16 cells, seeds 1–3 (bench/ns2/results.md, "
                "measured 2026-11-29 with the engine's present ns2 profile and ns-2's meaning of a buffer), so the "
                "difference lies in the setting 004 did not state, not in the simulator")
GSR_UNSTATED = ("the experiment ran 'the Harpoon traffic generator [26] on Linux and BSD machines' (§5.2): neither "
                "the hosts' TCP stacks nor Harpoon's session parameters are stated; ours is one NewReno+SACK stack "
                "with long-lived flows (assumed)")


def table_checks(df, runs, sens) -> list:
    """The table's checks from its cells (``df``), the per-run records (``runs``: timeouts, fast retransmits)
    and the access-rate sensitivity runs (``sens``); a miss carries its cause."""
    checks = []
    for row in df.itertuples():
        n, m, buf = int(row.n), float(row.multiple), int(row.buffer_packets)
        tol = 1.5 if m == 0.5 else 0.7
        c = check_abs(f"n = {n}, {m:g}× ({buf} pkts): ns-2 {row.paper_ns2:g} %", row.paper_ns2, row.ours_reno, tol,
                      unit=" pt", why="our Reno; ±1.5 pt at 0.5×, ±0.7 pt at ≥ 1× (assumed)")
        acc = _access_effect(sens, runs, n, m, "reno")
        if not c.passed:
            c.because("setup", f"{NS2_UNSTATED}. Our Reno recovers by timeouts: {_recoveries(runs, n, m, 'reno')}"
                      + (f"; the access rate is not the cause ({acc})" if acc else "") + ".")
        checks.append(c)
        c = check_abs(f"n = {n}, {m:g}× ({buf} pkts): GSR experiment {row.paper_gsr:g} %", row.paper_gsr,
                      row.ours_newreno_sack, tol, unit=" pt", why="our NewReno+SACK as the hosts' stack")
        acc = _access_effect(sens, runs, n, m, "newreno_sack")
        if not c.passed:
            c.because("setup", f"{GSR_UNSTATED}; {_recoveries(runs, n, m, 'newreno_sack')}"
                      + (f"; the access rate is not the cause ({acc})" if acc else "") + ".")
        checks.append(c)
    one = df[df.multiple >= 1]
    low = one.loc[one.ours_reno.idxmin()]
    c = check_range("key result: RTT·C/√n suffices — every n at ≥ 1× reaches ≥ 98.1 % (lowest cell, Reno)",
                    98.1, float(low.ours_reno), 98.1, 100.0, why="FIGURES.md §7 check 2")
    if not c.passed:
        c.because("setup", f"the lowest cell is the ns-2 column's n = {int(low.n)}, {low.multiple:g}×, where "
                  f"{NS2_UNSTATED}; {_recoveries(runs, int(low.n), float(low.multiple), 'reno')}.")
    checks.append(c)
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
    # §5.2.1: "Model is the lower-bound on the utilization predicted by the model" and "Above that the model predicts
    # the utilization correctly within the measurement accuracy of about ±0.1%": eq. (6) is a bound, so the claim is
    # that the measured utilization does not fall below it by more than the 0.1 % accuracy (our stand-in for the
    # hardware: the NewReno+SACK runs); how far above the bound a run lies says nothing against it
    above = df[df.n > 200]
    margin = above.ours_newreno_sack - above.eq6
    worst = above.loc[margin.idxmin()]
    c = check_at_least(f"n > 200: utilization at or above the model's lower bound, eq. (6), within the ≈ 0.1 % "
                       f"measurement accuracy (smallest our NewReno+SACK − eq. (6), at n = {int(worst.n)}, "
                       f"{worst.multiple:g}×)", 0.0, float(margin.min()), -0.1,
                       why="§5.2.1: 'Model is the lower-bound on the utilization predicted by the model' and 'within the "
                           "measurement accuracy of about ±0.1%'")
    if not c.passed:
        c.because("setup", f"our stand-in for the router's measurement falls below the bound at n = {int(worst.n)}, "
                  f"{worst.multiple:g}×: {GSR_UNSTATED}; "
                  f"{_recoveries(runs, int(worst.n), float(worst.multiple), 'newreno_sack')}.")
    checks.append(c)
    checks.append(Check("at 100 and 200 flows there is some synchronization", None, None,
                        "not measured: needs per-flow loss times (MET-SYNC) in the 16-cell runs, which record only "
                        "per-run totals", False))
    return checks


def _access_note(sens, runs):
    if not len(sens):
        return []
    parts = []
    for (n, m, stack), g in sens.groupby(["n", "multiple", "stack"]):
        main = runs[(runs.n == n) & (runs.multiple == m) & (runs["stack"] == stack) & (runs.seed == runs.seed.min())]
        parts.append(f"n = {int(n)}, {m:g}×, {stack}: 1 Gb/s {100 * float(main.utilization.iloc[0]):.1f} %, "
                     + ", ".join(f"{r.access} {100 * r.utilization:.1f} %" for r in g.itertuples()))
    return ["Access-rate sensitivity (labelled, not checked; seed 1): " + "; ".join(parts) + ". The rate of the "
            "access links, between 2 × C and 10 × C, moves the utilization by little against the misses "
            "(access_sensitivity.csv)."]


def _model_note(df):
    above = df[df.n > 200]
    gap_eq6 = (above.eq6 - above.ours_newreno_sack).abs()
    gap_col = (above.paper_model - above.ours_newreno_sack).abs()
    gap_paper = (above.paper_model - above.paper_gsr).abs()
    return [f"Model vs hardware above 200 flows: eq. (6) is a lower bound (78–79.5 % at 0.5×, FIGURES.md [D]), and our "
            f"NewReno+SACK runs lie up to {gap_eq6.max():.1f} pt from it (at 1× and more by up to "
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
            f"idle the link while the buffer is small. Earlier runs of this item, with the engine's default access links (10 × C), "
            f"gave at n = 100, 0.5× Reno 83.8 %, NewReno 88.2 %, NewReno+SACK 90.3 % with 1714 / 1321 / 302 "
            f"timeouts (a check run, carried over, not re-run). ns-2's Reno evidently recovered with fewer timeouts "
            f"(its timer settings are not stated). Run length is not the cause: the --full run of those earlier "
            f"runs (docs/reproduction/full: 3 seeds × 140 s) gave Reno 85.0 % / NewReno+SACK 90.7 % at n = 100, 0.5×. The hardware column, compared with NewReno+SACK, is matched much more closely. At ≥ 1× "
            f"the lowest cell is {one.ours_reno.min():.1f} % with Reno and {one.ours_newreno_sack.min():.1f} % with "
            f"NewReno+SACK (n ≥ 200: {big.ours_reno.min():.1f} % / {big.ours_newreno_sack.min():.1f} %)."]
