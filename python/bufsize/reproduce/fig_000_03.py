"""000-Fig3: link utilization vs router buffer size, U1000/U1200/U3000 (§III-B.1).

The T000 campaign (:mod:`bufsize.reproduce._p000_t000`) on the simulator: the bottleneck's average
utilization over the measured window of each run, for the three user counts, against the buffer.
Where the kernel testbed runs (``--testbed``), the campaign scaled by 1/50 on real Linux TCP
(:mod:`bufsize.reproduce._p000_kernel`) is drawn beside it, at paper-equivalent buffer sizes, with its
own checks.
"""

from __future__ import annotations

import math

from bufsize.reproduce import _p000_kernel as _pk
from bufsize.reproduce import _p000_t000 as _pt
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_abs, check_at_most, check_range, check_true
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id='fig_000_03',
    paper_id='000-Fig3',
    title='Link utilization vs router buffer size, U1000/U1200/U3000 (§III-B.1)',
    kind='testbed',
    kind_detail='testbed',
    needs=('TRF-CLOSED', 'TCP-NRSACK', 'TCP-RENO', 'TRF-RTT', 'SIM-QB', 'MET-UTIL', 'EXP-SWEEP', 'EXP-SEEDS'),
    paper_cost='campaign T000 ≈1.2 G pkt (×2 short flows)',
    quick_seconds=140.0,
    note="simulator as the testbed's proxy; runs the T000 campaign (30 runs + 6 of the paper's length), shared with "
         "fig_000_05..10; with root also the kernel testbed scaled 1/50 (9 runs of 25 s, ~5 min, shared with 05..08)",
)

#: "with enough buffering": the buffers from 1 MiB up (the upper half of the log grid).
PLATEAU_BYTES = 1024 * 1024
#: a curve has "reached its maximum" within 1 point of utilization (assumed)
REACH_TOL = 0.01
RANGES = {1000: (0.60, 0.70), 1200: (0.80, 0.90)}

SETUP = (
    Setting("experiments", "U1000, U1200, U3000", "paper",
            "The three experiments that we summarize in this paper, referred to as U1000, U1200, and U3000, have "
            "U=1000, 1200 and 3000 users, respectively", "§III-A"),
    _pt.SETTING_BUFFER_RANGE,
    _pt.SETTING_BUFFER_GRID,
) + _pt.SETUP_T000 + _pt.SETUP_T000_RUNS + (
    Setting("utilization", "the bottleneck's average utilization over each run's measured window",
            "paper", "Figure 3 shows the average utilization ρ of the bottleneck link as a function of the buffer size "
            "in each of the three experiments", "§III-B.1"),
    Setting("'enough buffering'", "B ≥ 1 MiB (the upper half of the grid)", "ours",
            "000 gives the ranges 'with enough buffering' without a size; 1 MiB is past U3000's 200 KB knee by a "
            "factor of 5"),
    Setting("quick paper-length runs", "U1000 at 30 KiB and 38 MiB, U1200 at 38 MiB, U3000 at 30 KiB, 288 KiB and 38 MiB: "
            "one run each of the full scale's length (300 s, 60 s warm-up; seed 1)", "ours",
            "in quick mode they show whether the shorter runs explain a miss; shared with Figs 5–10"),
) + _pk.SETUP_KERNEL_T000


def reach_buffer(buffers, util, tol: float = REACH_TOL) -> float:
    """The smallest buffer from which the utilization stays within the tolerance of the curve's maximum
    level: the median over B ≥ 1 MiB, minus max(``tol``, twice the standard deviation there) so that the
    run-to-run noise of a lightly loaded experiment does not decide."""
    import numpy as np

    b = np.asarray(buffers, float)
    u = np.asarray(util, float)
    order = np.argsort(b)
    b, u = b[order], u[order]
    top = u[b >= PLATEAU_BYTES]
    if len(top) == 0:
        top = u[-1:]
    level = float(np.median(top))
    ok = u >= level - max(tol, 2 * float(np.std(top)))
    # the first buffer after which every larger buffer is within tol
    for i in range(len(b)):
        if ok[i:].all():
            return float(b[i])
    return math.nan


#: The paper's closed-loop ceilings U·S̄/Th of 1 Gb/s with S̄ = 80 KB (FIGURES.md [C]).
PAPER_CEILING = {1000: 0.64, 1200: 0.768}


#: §III-B.1, the sentence about U1200's level
U1200_SENTENCE = "U1200 can generate a utilization of about 80-90%"


def ceiling_checks(p, util: dict[int, float], ceiling: dict[int, dict[str, float]]) -> list:
    """The [C] ceiling, two ways: the formula against the paper's 64 % / 76.8 % (formula), and our plateau against
    the ceiling of our runs' own mean size, which a correct closed loop cannot exceed (health, not a claim).

    The paper's U1200 level is judged once, by the range check of its sentence (U1200_SENTENCE). That the sentence's
    80–90 % lies above the paper's own 76.8 % ceiling is an inconsistency of the paper (:func:`ceiling_note`), not
    a claim about our runs: a check asking our U1200 to exceed the nominal ceiling would ask it to break the closed
    loop that the health check above requires it to keep."""
    out = []
    for u in (1000, 1200):
        out.append(check_abs(f"[C] U{u}: closed-loop ceiling U·S̄/Th with S̄ = 80 KB, Th = 1 s (fraction of 1 Gb/s)",
                             PAPER_CEILING[u], p.closed_loop_ceiling(u, p.MEAN_SIZE_BYTES), 0.0005,
                             why="½ unit of the paper's last digit", kind="formula"))
        out.append(check_at_most(f"U{u}: utilization ≤ the ceiling with the runs' measured mean size (utilization / "
                                 "ceiling, mean over B ≥ 1 MiB; a closed loop cannot offer more)", None,
                                 util[u] / ceiling[u]["measured_mean_size"], 1.0, why="sanity bound of our runs",
                                 kind="health"))
    return out


def ceiling_note(p) -> str:
    """The paper's U1200 sentence against its own closed-loop arithmetic (a finding about the paper)."""
    c = p.closed_loop_ceiling(1200, p.MEAN_SIZE_BYTES)
    return (f"Paper inconsistency (reported apart, not a miss of ours): §III-B.1 says '{U1200_SENTENCE}', but the "
            f"paper's own setup (1200 users, mean file 80 KB, 1 s think time) can offer at most U·S̄/Th = {c:.1%} of "
            f"the 1 Gb/s link, below the range's lower end. The U1200 range check reads the sentence as written; "
            f"a closed loop that honours the ceiling (the health check) cannot reach it.")


#: what our runs share with 000's testbed and what not, for the causes of the simulator's misses
TESTBED = ("the simulator stands in for 000's testbed (Harpoon sessions on Linux hosts, a Riverstone router's output "
           "port): the users' file sizes, think times and RTTs are the paper's, their TCP is the engine's NewReno with "
           "SACK and initial window 2, and Harpoon's session timing is not reproduced")


def utilization_cause(u: int, got: float, ceiling: dict[str, float], mean_size_kb: float) -> tuple[str, str]:
    """Why our U1000/U1200 plateau is not the paper's range: U1200's range lies above the paper's own ceiling (a
    finding about the paper); U1000's ceiling allows its range, and our closed loop offers less (our setting)."""
    lo, hi = RANGES[u]
    if PAPER_CEILING[u] < lo:
        return "paper", (f"§III-B.1's '{U1200_SENTENCE}' lies above the paper's own closed-loop ceiling: {u} users of "
                         f"80-KB files with 1-s think times (§III-A) offer at most U·S̄/Th = {PAPER_CEILING[u]:.1%} of "
                         f"1 Gb/s; ours, {got:.1%}, stays below the ceiling of our runs "
                         f"({ceiling['with_transfer_time']:.1%} with their mean size and transfer time), as a closed "
                         "loop must")
    return "setup", (f"our closed loop offers at most U·S̄/(Th + T̄t) = {ceiling['with_transfer_time']:.1%} of the link "
                     f"({ceiling['measured_mean_size']:.1%} without the transfer time), below the paper's "
                     f"{lo:.0%}–{hi:.0%}: the runs' mean file is {mean_size_kb:.1f} KB (a Pareto-1.5 sample mean, "
                     f"against the nominal 80 KB) and each user waits for its download before thinking (§III-A: "
                     f"'After each download, the corresponding user stays idle'), which the paper's own ceiling of "
                     f"{PAPER_CEILING[u]:.0%} (U·S̄/Th, no transfer time) allows only at its range's lower end; "
                     f"{TESTBED}")


def run(ctx) -> FigureOutput:
    from bufsize.reproduce import _p000_kernel as pk
    from bufsize.reproduce._p000_miss import if_miss
    from bufsize.reproduce import _p000_t000 as p
    from bufsize.reproduce._plot import figure, finish

    camp = p.campaign(ctx)
    runs = camp["runs"]
    m = p.per_buffer(runs)
    plateau = m[m.buffer_bytes >= PLATEAU_BYTES]
    plat = {u: plateau[plateau.users == u].utilization for u in p.USERS}
    reach = {u: reach_buffer(m[m.users == u].buffer_bytes, m[m.users == u].utilization) for u in p.USERS}
    ceiling = {}
    for u in p.USERS:
        r = m[m.users == u]
        big = r[r.buffer_bytes >= PLATEAU_BYTES]
        ceiling[u] = {"paper_formula": p.closed_loop_ceiling(u, p.MEAN_SIZE_BYTES),
                      "measured_mean_size": p.closed_loop_ceiling(u, float(big.mean_size_kb.mean()) * 1e3),
                      "with_transfer_time": p.closed_loop_ceiling(u, float(big.mean_size_kb.mean()) * 1e3,
                                                                  float(big.mean_fct_s.mean()))}
    checks = []
    for u, (lo, hi) in RANGES.items():
        c = check_range(f"U{u}: average utilization ≈ {lo:.0%}–{hi:.0%} with enough buffering (mean over "
                        f"B ≥ 1 MiB)", f"{lo:.0%}–{hi:.0%}", float(plat[u].mean()), lo - 0.05, hi + 0.05,
                        why="±5 pt (FIGURES.md)" + (f"; §III-B.1: '{U1200_SENTENCE}'" if u == 1200 else ""))
        checks.append(if_miss(c, *utilization_cause(u, float(plat[u].mean()), ceiling[u],
                                                    float(plateau[plateau.users == u].mean_size_kb.mean()))))
    r3 = m[m.users == 3000].sort_values("buffer_bytes")
    small3 = r3[r3.buffer_bytes <= 400 * 1024]
    u3000_why = (f"{TESTBED}. Up to 400 KiB U3000's runs lose {small3.loss_rate.mean():.1%} of their packets: about "
                 "half of the 3000 users are in a transfer at any time, mostly in slow start, and their bursts overflow "
                 "buffers of hundreds of packets; the testbed's Linux senders evidently lost less there")
    checks.append(if_miss(check_range("U3000 saturates the link (mean utilization over B ≥ 1 MiB)", 1.0,
                                      float(plat[3000].mean()), 0.95, 1.0, why="≥ 95 % assumed for 'saturates'"),
                          "setup", u3000_why))
    checks.append(if_miss(check_range("U3000 needs B ≥ 200 KB to reach its maximum utilization (smallest B from which "
                                      "it stays within 1 pt (or twice the noise) of its level over B ≥ 1 MiB, KiB)", 200,
                                      kib(reach[3000]), 100, 400, why="within ×2 (FIGURES.md)"), "setup", u3000_why))
    for u in (1000, 1200):
        checks.append(if_miss(check_true(f"U{u} needs an even larger buffer than U3000 to reach its maximum "
                                         f"({kib(reach[u]):.0f} KiB vs {kib(reach[3000]):.0f} KiB)",
                                         reach[u] > reach[3000], "strictly larger", value=kib(reach[u])),
                              "setup", f"our U{u} runs at {float(plat[u].mean()):.1%} mean utilization, not the paper's "
                                       f"{RANGES[u][0]:.0%}–{RANGES[u][1]:.0%} (the utilization check's cause), so its "
                                       "link is rarely full and a small buffer costs it little"))
    noise = {u: float(plat[u].std(ddof=0)) for u in (1000, 1200)}
    checks.append(if_miss(check_true("the U1000 and U1200 curves are noisy despite their long averages (standard "
                                     f"deviation over B ≥ 1 MiB: {noise[1000]:.3f}, {noise[1200]:.3f})",
                                     min(noise.values()) >= 0.005, "≥ 0.5 pt of utilization each (assumed)",
                                     value=min(noise.values())),
                          "setup", f"{TESTBED}; our runs are {camp['config']['duration'] - camp['config']['warmup']:g} "
                                   f"s long with {len(camp['config']['seeds'])} seed(s) per point"))
    checks += ceiling_checks(p, {u: float(plat[u].mean()) for u in (1000, 1200)}, ceiling)

    kd, kchecks, knotes = kernel_part(ctx)
    checks += kchecks
    notes = list(knotes) + [ceiling_note(p)]
    for u, (lo, hi) in RANGES.items():
        got = float(plat[u].mean())
        c = ceiling[u]
        if not (lo - 0.05 <= got <= hi + 0.05):
            notes.append(
                f"U{u}: {got:.1%} against the paper's {lo:.0%}–{hi:.0%} (by {(lo - got) * 100:.1f} pt below the range). "
                f"The closed loop itself explains it: each user offers one file per think time plus transfer time, "
                f"U·S̄/(Th + T̄t) = {c['with_transfer_time']:.1%} of the link with the runs' measured mean size "
                f"({plateau[plateau.users == u].mean_size_kb.mean():.1f} KB) and mean transfer time "
                f"({plateau[plateau.users == u].mean_fct_s.mean():.2f} s), and even without the transfer time "
                f"U·S̄/Th = {c['measured_mean_size']:.1%}. The paper's own arithmetic (§III-A, FIGURES.md [C]) gives a "
                f"ceiling of {c['paper_formula']:.1%} for U{u}; its measured {lo:.0%}–{hi:.0%} "
                + ("exceeds that ceiling (MODELS.md: heavy-tailed sample means), which a faithful closed loop cannot "
                   "do." if c["paper_formula"] < hi else "needs transfer times near zero.")
                + " Harpoon's sessions may also start files on a schedule (start to start) rather than after each "
                "download; the paper does not say."
                + p.paper_length_text(ctx, u, len(p.BUFFERS) - 1, lambda rec: f"{rec['utilization']:.1%}"))
    if not (100 <= kib(reach[3000]) <= 400):
        r3 = m[m.users == 3000].sort_values("buffer_bytes")
        alt = {tol: kib(reach_buffer(r3.buffer_bytes, r3.utilization, tol)) for tol in (0.02, 0.05)}
        near = r3[(r3.buffer_bytes >= 150 * 1024) & (r3.buffer_bytes <= 400 * 1024)]
        notes.append(f"U3000 reaches its maximum level (within 1 pt) only at {kib(reach[3000]):.0f} KiB, against the paper's "
                     f"200 KB: utilization " + ", ".join(f"{u:.3f} at {kib(b):.0f} KiB" for b, u in
                                                         zip(r3.buffer_bytes, r3.utilization))
                     + f". Within 2 pt it is {alt[0.02]:.0f} KiB, within 5 pt {alt[0.05]:.0f} KiB. Near 200 KB the loss "
                     f"rate is still {near.loss_rate.mean():.1%}: about half of the 3000 users are in a transfer at any "
                     "time, mostly in slow start, and their windows overflow buffers of hundreds of packets; the "
                     "remaining point of utilization comes only with megabytes of buffer. The testbed's Linux senders "
                     "evidently lost less in small buffers."
                     + p.paper_length_text(ctx, 3000, 6, lambda rec: f"utilization {rec['utilization']:.3f} at loss "
                                                                      f"{rec['loss_rate']:.1%}"))
    for u in (1000, 1200):
        if not reach[u] > reach[3000]:
            r = m[m.users == u].sort_values("buffer_bytes")
            notes.append(f"U{u} reaches its level at {kib(reach[u]):.0f} KiB, no later than U3000 "
                         f"({kib(reach[3000]):.0f} KiB): "
                         f"at {r.utilization.mean():.0%} mean load the link is rarely full, so a small buffer costs it "
                         f"little (utilization {r.utilization.iloc[0]:.3f} at {kib(r.buffer_bytes.iloc[0]):.0f} KiB, loss "
                         f"{r.loss_rate.iloc[0]:.1%}, against {plat[u].median():.3f} over B ≥ 1 MiB). The paper's U{u} "
                         f"ran at {RANGES[u][0]:.0%}–{RANGES[u][1]:.0%}, much nearer saturation (see the utilization "
                         "miss).")

    fig, ax = figure(height=5.6)
    for u, mk in zip(p.USERS, ("o", "s", "^")):
        r = m[m.users == u]
        ax.plot(r.buffer_kib, r.utilization, mk + "-", ms=4, label=f"U{u}")
        if len(camp["config"]["seeds"]) > 1:
            rr = runs[runs.users == u]
            ax.plot(rr.buffer_kib, rr.utilization, mk, ms=2, color="0.6")
    if kd is not None:
        ok = pk.accepted(kd)
        for u, mk in zip(p.USERS, ("o", "s", "^")):
            r = ok[ok.users == u].sort_values("buffer_bytes")
            ax.plot(r.buffer_kib, r.utilization, mk + "--", ms=4, mfc="none", color=f"C{p.USERS.index(u)}",
                    label=f"U{pk.USERS[u]} kernel testbed, {pk.RATE_BPS / 1e6:g} Mb/s (B × {pk.SCALE_DOWN})")
    ax.axvline(200, color="0.6", ls=":", lw=1, label="200 KB (paper: U3000 needs ≥)")
    # the paper's utilization ranges with enough buffering (B ≥ 1 MiB), as bands
    for u in p.USERS:
        if u in RANGES:
            lo, hi = RANGES[u]
            ax.fill_between([PLATEAU_BYTES / 1024, float(m.buffer_kib.max())], lo, hi, color=f"C{p.USERS.index(u)}",
                            alpha=0.12, lw=0, label=f"paper U{u}: {lo:.0%}–{hi:.0%} (B ≥ 1 MiB)")
    ax.set_xscale("log")
    ax.set_xlabel("router buffer size B (KiB), log scale")
    ax.set_ylabel("average link utilization ρ")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)   # below: inside it hides curves
    finish(fig, "000 Fig. 3: utilization vs buffer, 1 Gb/s, closed-loop users (simulator"
                + ("; dashed: kernel testbed)" if kd is not None else ")"))
    data = m[["users", "buffer_bytes", "buffer_kib", "buffer_packets", "utilization", "loss_rate",
              "queue_delay_mean_ms", "mean_size_kb", "mean_fct_s", "transfers_completed"]]
    extra = {"runs": runs}
    if kd is not None:
        extra["kernel"] = kd
    return FigureOutput(
        data=data, checks=checks, figure=fig, extra_tables=extra,
        inputs={"scenario_template": camp["template"].to_dict(), "users": list(p.USERS),
                "buffers_bytes": [p.BUFFERS[i] for i in camp["buffers"]], "seeds": list(camp["config"]["seeds"]),
                "duration_s": camp["config"]["duration"], "warmup_s": camp["config"]["warmup"],
                "plateau_from_bytes": PLATEAU_BYTES, "reach_tolerance": REACH_TOL,
                "closed_loop_ceilings": {f"U{u}": c for u, c in ceiling.items()},
                "reach_buffer_kib": {f"U{u}": kib(b) for u, b in reach.items()}},
        deviations=p.deviations(ctx) + [pk.deviation(ctx)], notes=notes)


def kib(b: float) -> float:
    return b / 1024


def kernel_part(ctx):
    """The scaled campaign on the kernel testbed: (table or None, checks, notes)."""
    from bufsize.reproduce import _kernel
    from bufsize.reproduce import _p000_kernel as pk
    from bufsize.reproduce import _p000_miss as pm
    from bufsize.reproduce import _p000_t000 as p

    claims = [f"{pk.label(u)} U{u}: average utilization ≈ {lo:.0%}–{hi:.0%} with enough buffering (B ≥ 1 MiB "
              "paper-equivalent)" for u, (lo, hi) in RANGES.items()]
    claims += [f"{pk.label(3000)} U3000 saturates the link (mean utilization over B ≥ 1 MiB paper-equivalent)",
               f"{pk.label(3000)} U3000 needs B ≥ 200 KB to reach its maximum utilization (paper-equivalent KiB)"]
    kd = pk.t000(ctx)
    if kd is None:
        return None, pm.kernel_not_measured(claims, _kernel.skip_reason(ctx)), []
    ok = pk.accepted(kd)
    big = ok[ok.buffer_bytes >= PLATEAU_BYTES]
    checks = []
    for claim, (u, (lo, hi)) in zip(claims, RANGES.items()):
        checks.append(check_range(claim, f"{lo:.0%}–{hi:.0%}", float(big[big.users == u].utilization.mean()),
                                  lo - 0.05, hi + 0.05, why="±5 pt (FIGURES.md); accepted runs"))
    checks.append(check_range(claims[2], 1.0, float(big[big.users == 3000].utilization.mean()), 0.95, 1.0,
                              why="≥ 95 % assumed for 'saturates'"))
    r3 = ok[ok.users == 3000].sort_values("buffer_bytes")
    reach = reach_buffer(r3.buffer_bytes, r3.utilization) if len(r3) else math.nan
    checks.append(check_range(claims[3], 200, kib(reach), 100, 400,
                              why="within ×2 (FIGURES.md); only the sizes the kernel grid has"))
    notes = [_kernel.accepted_text(kd.attrs["records"]) + " Kernel utilization by run (paper-equivalent KiB): " + "; ".join(
        f"U{pk.USERS[u]}: " + ", ".join(f"{b:.0f} KiB {x:.3f}" for b, x in zip(r.buffer_kib, r.utilization))
        for u, r in ((u, ok[ok.users == u].sort_values("buffer_bytes")) for u in pk.USERS)) + "."]
    if not (100 <= kib(reach) <= 400):
        notes.append(f"{pk.label(3000)} U3000 reaches its level only at {kib(reach):.0f} KiB paper-equivalent (the "
                     "kernel grid's sizes: " + ", ".join(f"{b:.0f} KiB {x:.3f} at loss {l:.1%}" for b, x, l in
                                                         zip(r3.buffer_kib, r3.utilization, r3.loss_rate))
                     + "). " + pk.SCALING_NOTE)
    for u in RANGES:
        r = big[big.users == u]
        # U/50 users on C/50: the same offered-load fraction as the paper's U on C, so the paper's formula applies
        ceil_k = p.closed_loop_ceiling(u, float(r.mean_size_kb.mean()) * 1e3, float(r.mean_fct_s.mean())) \
            if len(r) else math.nan
        got = float(big[big.users == u].utilization.mean())
        lo, hi = RANGES[u]
        if not (lo - 0.05 <= got <= hi + 0.05):
            notes.append(f"{pk.label(u)} U{u}: {got:.1%} against {lo:.0%}–{hi:.0%}; the closed loop of U{pk.USERS[u]} "
                         f"users offers U·S̄/(Th + T̄t) = {ceil_k:.1%} of {pk.RATE_BPS / 1e6:g} Mb/s with the runs' "
                         "measured mean size and transfer time (the simulator's miss has the same cause).")
    return kd, pm.kernel_scaled(checks), notes
