"""004-Fig11: minimum buffer for 98, 99.5 and 99.9 % utilization vs the number of long-lived
flows on an OC3 link (155 Mb/s), mean RTT ≈ 80 ms.

Simulation: long-lived Reno flows, RTT uniform 20–140 ms (assumed), 1000-byte packets (BDP 1550
packets). The minimum buffer per (n, target) is read from a grid of buffers (multiples of
RTT·C/√n) by linear interpolation at the first grid point from which every larger buffer meets the
target (a sweep, not the experiments layer's bisection search, which is not committed yet).

Access links: each flow has its own 1 Gb/s access link (6.5 × C; our choice,
:data:`bufsize.reproduce._p004.ACCESS_BPS`: 004 says only that its simulations' access links were faster
than the bottleneck and spaced the packets of a burst). The earlier setting, the engine's default of
10 × C, is a labelled sensitivity run of the whole grid at two n, seed 1, not checked.
"""

from __future__ import annotations

import math

from bufsize.reproduce import _p004
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_abs, check_at_least, check_at_most, check_range
from bufsize.reproduce._p004 import ACCESS_BPS
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id="fig_004_11",
    paper_id="004-Fig11",
    title="Minimum buffer for 98, 99.5 and 99.9 % utilization vs number of long flows, OC3, ≈ 80 ms (§5.1.1)",
    kind="simulation",
    kind_detail="simulation (+ model)",
    needs=("TRF-BULK", "TCP-RENO", "TRF-RTT", "EXP-SWEEP", "EXP-SEEDS", "MET-UTIL"),
    paper_cost="≈ 0.14–0.2 G",
    quick_seconds=20.0,
    note="minimum buffers from a buffer grid with interpolation (EXP-MINB search not used yet)",
)

C_PPS = 155e6 / 8 / 1000
BDP = C_PPS * 0.080          # 1550 packets
TARGETS = (0.98, 0.995, 0.999)
SCALE = {
    "quick": {"ns": (50, 100, 200, 300, 400, 500), "multiples": (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0),
              "duration": 50.0, "warmup": 15.0, "seeds": (1,)},
    "full": {"ns": (50, 100, 150, 200, 250, 300, 350, 400, 450, 500),
             "multiples": (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0),
             "duration": 100.0, "warmup": 20.0, "seeds": (1, 2, 3, 4, 5)},
}
# Full scale runs five seeds so that every check has an interval over them (each seed's own minimum buffers):
# with the three seeds run before, the 99.9 %/98 % ratio at n = 300 read 2.05, 2.01 and 2.29, whose interval
# crossed the check's 2.3; five is the rule docs/reproduction_audit.md's ninth pass set for that case.
#: what the quick notes quote of the --full run in docs/reproduction/full (1 Gb/s access links)
FULL_RUN = {"rel98_400_500": "0.59–0.69 ×", "ratio_250_500": "2.08–2.22"}
#: the n of the access-rate sensitivity runs (the engine's default access rate, 10 × C; seed 1, not checked)
SENSITIVITY_NS = (250, 400)

SETUP = (
    Setting("bottleneck capacity and mean RTT", "155 Mb/s (OC3), mean RTT 80 ms", "paper",
            "an OC3 (155 Mb/s) line with about 80ms average RTT", "Fig. 11 caption"),
    Setting("flows", "n long-lived flows, n = 50, 100, …, 500 (quick: 50, 100, 200, 300, 400, 500)", "figures",
            "FIGURES.md: 'x = number of long-lived flows (50–500)', from the figure's axis; the points are ours. "
            "004's caption: 'measured with ns2 for long-lived TCP flows'"),
    _p004.TCP_RENO,
    _p004.tcp_stack(),
    Setting("packet size", "1000 bytes (RTT·C = 1550 packets)", "figures",
            "FIGURES.md: with 1000 B the 99.9 % curve reaches ≈ 340 packets at n = 50, matching the axis' ≈ 350 "
            "[inferred]; 004 says '1500 or 1000 byte MTU' (§5.1) and MODELS.md's test vectors take 1500 B "
            "(ambiguous)"),
    Setting("RTTs", "uniform 20–140 ms", "figures",
            "FIGURES.md: 'distribution unspecified, U[20, 140] ms (assumed)'; 004's 'The average propagation delay "
            "of a TCP flow varied from 25ms to 300ms' (§5.1) may bound each flow's RTT, which 20 ms undercuts "
            "(ambiguous)"),
    _p004.QUEUE,
    Setting("targets", "98, 99.5 and 99.9 % utilization", "paper",
            "Minimum required buffer to achieve 98, 99.5 and 99.9 percent utilization", "Fig. 11 caption"),
    Setting("buffer grid", "0.25–4 × RTT·C/√n, 12 multiples (quick: 0.25–3, 9); the minimum is the first grid "
            "buffer from which every larger one meets the target, interpolated", "ours",
            "004 gives no search method; a grid in units of its rule puts every n on one scale"),
    Setting("start times", "uniform over 0–5 s", "ours",
            "004 gives none; FIGURES.md's S004 assumes starts 'random over the first seconds'"),
    _p004.access_setting("1 Gb/s per flow (6.5 × C), queues unlimited"),
    _p004.run_length_setting("100 s, the first 20 s left out (quick: 50 s, 15 s)",
                             "ours is shorter (120 grid points × 5 seeds at full scale)"),
    Setting("seeds", "1–5, checks on the mean curve with each seed's own minimum for the interval (quick: 1)",
            "ours", "with three seeds the 99.9 %/98 % ratio at n = 300 crossed its threshold; five give it an "
                    "interval"),
    Setting("access sensitivity", "the engine's default 10 × C at n = 250 and 400 (quick: 400), seed 1, the "
            "whole grid, not checked", "ours", "how much the unstated access rate moves the minimum buffers"),
)


def _scenario(n: int, buffer: int, duration: float, warmup: float, seed: int, access_bps: float | None = ACCESS_BPS):
    """The dumbbell at one n and buffer; ``access_bps`` None leaves the engine's default access rate (10 × C)."""
    from bufsize.reproduce import _stack

    acc = {} if access_bps is None else {"access_capacity": f"{access_bps:g}bps"}
    return _stack.dumbbell(capacity="155Mbps", flows=n, rtt="20ms..140ms", buffer=f"{_stack.ns2_limit(buffer)}pkt",
                           duration=f"{duration:g}s", warmup=f"{warmup:g}s", seed=seed, cc="reno",
                           packet_size="1000B", sack=False, prr=False, start="0s..5s", **acc)



def min_buffer(buffers, utils, target: float) -> float:
    """Smallest buffer from which every larger grid point meets ``target`` (linear interpolation
    against the grid point before it); NaN if the largest buffer misses it."""
    pts = sorted(zip(buffers, utils))
    ok = [u >= target for _, u in pts]
    if not ok[-1]:
        return math.nan
    i = len(pts) - 1
    while i > 0 and ok[i - 1]:
        i -= 1
    if i == 0:
        return float(pts[0][0])
    (b0, u0), (b1, u1) = pts[i - 1], pts[i]
    return float(b0 + (target - u0) * (b1 - b0) / (u1 - u0)) if u1 > u0 else float(b1)



def min_buffers_by_n(runs, targets) -> dict[int, dict[float, float]]:
    """{n: {target: minimum buffer}} from runs with columns n, buffer_packets and utilization (one seed)."""
    out = {}
    for n in sorted(set(runs.n)):
        d = runs[runs.n == n]
        out[int(n)] = {t: min_buffer(d.buffer_packets.tolist(), d.utilization.tolist(), t) for t in targets}
    return out


def per_seed_min_buffers(runs, targets) -> dict[int, dict[int, dict[float, float]]]:
    """{seed: {n: {target: minimum buffer}}}: each seed's own grid read alone (for the checks' intervals)."""
    return {int(seed): min_buffers_by_n(runs[runs.seed == seed], targets) for seed in sorted(set(runs.seed))}


def largest_ratio(ratios, top: float) -> float:
    """The largest of some minimum buffers / RTT·C/√n; a target the grid never reached needs more than the grid's
    largest multiple ``top``, which stands in for it as a lower bound."""
    return max((x if math.isfinite(x) else top for x in ratios), default=math.nan)


def twice_check(n: int, ratio: float, r98: float, r999: float):
    """'99.9 % needs about twice the 98 % buffer' at one n; a miss carries its cause."""
    c = check_range(f"n = {n}: 99.9 % needs about twice the 98 % buffer (the text's reading; [D] eq. (6) says 1.44×)",
                    2.0, ratio, 1.7, 2.3, why="'about twice', ±15 %: excludes eq. (6)'s 1.44×, so the check tells the "
                    "two readings apart", kind="measurement")
    if not c.passed:
        c.because("setup", f"004 gives Fig. 11's setting as 'an OC3 (155 Mb/s) line with about 80ms average RTT' and "
                  f"§5.1's 'TCP Reno'; the RTT spread (20–140 ms) and start times are assumed (FIGURES.md). Here our "
                  f"98 % buffer is {r98:.2f} × RTT·C/√n (the paper's text and model: about 1×) and our 99.9 % buffer "
                  f"{r999:.2f} × RTT·C/√n, so their ratio is {ratio:.2f}: the miss comes from how easily our flows "
                  f"reach 98 %, not from the 99.9 % buffer alone.")
    return c

def run(ctx) -> FigureOutput:
    import pandas as pd

    from bufsize.models import appenzeller as ap
    from bufsize.reproduce import _p004
    from bufsize.reproduce._plot import figure, finish, mark_unreached
    from bufsize.reproduce._sim import run_scenarios

    sc_cfg = SCALE[ctx.mode]
    grid = []
    for n in sc_cfg["ns"]:
        for m in sc_cfg["multiples"]:
            buf = max(1, int(round(m * BDP / math.sqrt(n))))
            for seed in sc_cfg["seeds"]:
                grid.append((n, m, buf, seed, _scenario(n, buf, sc_cfg["duration"], sc_cfg["warmup"], seed)))
    sgrid = [(n, m, max(1, int(round(m * BDP / math.sqrt(n))))) for n in SENSITIVITY_NS if n in sc_cfg["ns"]
             for m in sc_cfg["multiples"]]
    ctx.say(f"      {len(grid)} runs, {len(sgrid)} access-rate sensitivity runs")
    results = run_scenarios([g[4] for g in grid] + [_scenario(n, b, sc_cfg["duration"], sc_cfg["warmup"],
                                                              sc_cfg["seeds"][0], access_bps=None)
                                                    for n, _, b in sgrid], ctx)
    results, sres = results[:len(grid)], results[len(grid):]
    sens = pd.DataFrame([{"n": n, "multiple": m, "buffer_packets": b, "seed": sc_cfg["seeds"][0],
                          "utilization": r["summary"]["utilization"], "timeouts": r["summary"]["timeouts"]}
                         for (n, m, b), r in zip(sgrid, sres)])
    runs = pd.DataFrame([{"n": n, "multiple": m, "buffer_packets": buf, "seed": seed,
                          "utilization": r["summary"]["utilization"], "loss_rate": r["summary"]["loss_rate"],
                          "timeouts": r["summary"]["timeouts"], "cwnd_sum_mean": r["summary"]["cwnd_sum_mean"]}
                         for (n, m, buf, seed, _), r in zip(grid, results)])
    mean = runs.groupby(["n", "buffer_packets"], as_index=False).utilization.mean()
    rows = []
    for n in sc_cfg["ns"]:
        d = mean[mean.n == n]
        row = {"n": n, "rtt_c_over_sqrt_n": BDP / math.sqrt(n)}
        for t in TARGETS:
            row[f"min_buffer_{t * 100:g}"] = min_buffer(d.buffer_packets.tolist(), d.utilization.tolist(), t)
            row[f"eq6_buffer_{t * 100:g}"] = ap.buffer_for_utilization(t, BDP, n)
        rows.append(row)
    df = pd.DataFrame(rows)

    big = df[df.n >= 250]
    rel98 = (big["min_buffer_98"] / big.rtt_c_over_sqrt_n).tolist()
    ratio = (big["min_buffer_99.9"] / big["min_buffer_98"]).tolist()
    # each check on the seeds' mean curve (the figure), with the same number read from every seed's grid alone
    seeds = list(sc_cfg["seeds"])
    each = per_seed_min_buffers(runs, TARGETS)

    def rel(n, t):
        return [each[s][n][t] / (BDP / math.sqrt(n)) for s in seeds]

    checks = []
    for n, r in zip(big.n, rel98):
        checks.append(check_at_most(f"n = {n}: RTT·C/√n is enough for 98 % (simulated min buffer / RTT·C/√n)", 1.0, r,
                                    1.25, why="a sufficiency claim, one-sided: needing less passes; +25 % (FIGURES.md "
                                    "§7 check 1)", kind="measurement").over_seeds(seeds, rel(int(n), 0.98)))
    for n, r, r98, r999 in zip(big.n, ratio, rel98, (big["min_buffer_99.9"] / big.rtt_c_over_sqrt_n).tolist()):
        checks.append(twice_check(int(n), r, r98, r999).over_seeds(
            seeds, [a / b for a, b in zip(rel(int(n), 0.999), rel(int(n), 0.98))]))
    # [C] eq. (6) inverted at n = 400 with 1000-byte packets (FIGURES.md)
    for t, val in ((0.98, 72.6), (0.995, 88.5), (0.999, 104.8)):
        checks.append(check_abs(f"[C] eq. (6) inverse, n = 400: {t:.1%} needs {val} packets", val,
                                float(ap.buffer_for_utilization(t, BDP, 400)), 0.05, unit=" packets",
                                why="½ unit of the last printed digit", kind="formula"))
    checks.append(check_abs("[C] RTT·C/√n at n = 400: 77.5 packets", 77.5, BDP / math.sqrt(400), 0.05, unit=" packets",
                            kind="formula"))
    # [D] (MODELS 004 discrepancy 3): what eq. (6) says about "99.9 % needs twice the buffer", at n = 400
    checks.append(check_abs("[D] eq. (6): the 99.9 % buffer is 1.44× the 98 % buffer (n = 400)", 1.44,
                            float(ap.buffer_for_utilization(0.999, BDP, 400) / ap.buffer_for_utilization(0.98, BDP, 400)),
                            0.005, why="½ unit of the last digit", kind="formula"))
    checks.append(check_abs("[D] eq. (6): 2 × RTT·C/√n gives ≥ 99.9998 % (n = 400; the figure's 2× model curve)", 99.9998,
                            100 * float(ap.utilization_lower_bound(2 * BDP / math.sqrt(400), BDP, 400)), 0.00005,
                            unit=" %", why="½ unit of the last digit", kind="formula"))
    small_ns = [int(n) for n in df.n if n < 250]
    top = max(sc_cfg["multiples"])
    checks.append(check_at_least("below ≈ 250 flows the rule does not hold (partial synchronization): some n < 250 needs "
                                 "more than 1.25 × RTT·C/√n for 98 % (the largest min buffer / RTT·C/√n over n < 250; "
                                 "one the grid never reached counts as its largest multiple)", None,
                                 largest_ratio(df[df.n < 250]["min_buffer_98"] / df[df.n < 250].rtt_c_over_sqrt_n, top),
                                 1.25,
                                 why="some n above 1.25", kind="measurement").over_seeds(
        seeds, [largest_ratio([each[s][n][0.98] / (BDP / math.sqrt(n)) for n in small_ns], top) for s in seeds]))

    notes = []
    low = [(n, r) for n, r in zip(big.n, rel98) if math.isfinite(r) and r < 0.75]
    if low:
        d400 = runs[runs.n >= 400]
        notes.append(
            "At " + ", ".join(f"n = {n}" for n, _ in low) + " the simulated 98 % buffer is only "
            + ", ".join(f"{r:.3f}" for _, r in low) + " × RTT·C/√n, below the ±25 % band: the rule over-provisions "
            f"there rather than failing. The pipe is 1550 packets, so at n ≥ 400 the mean window is under 4 packets; "
            f"the runs show loss rates of {d400.loss_rate.min():.1%}–{d400.loss_rate.max():.1%} and many timeouts "
            f"(runs.csv), which break the flows' sawtooths apart more than eq. (6)'s independent-sawtooth model assumes "
            f"(eq. (6) itself asks 0.93–0.94 × at these n)."
            + (f" The --full run (docs/reproduction/full: 100-s runs, "
               f"{len(SCALE['full']['seeds'])} seeds, 12 buffers per n) gives "
               f"{FULL_RUN['rel98_400_500']} at n = 400–500, so the quick scale is not the cause." if ctx.mode == "quick"
               else "") + " The paper's ns-2 runs (Reno with its own timers and 'several minutes' per point) presumably "
            "saw more synchronization at these n.")
    hi = [(n, r) for n, r in zip(big.n, ratio) if not (math.isfinite(r) and 1.3 <= r <= 2.5)]
    if hi:
        notes.append("The 99.9 % / 98 % ratio falls outside 1.3–2.5 at " + ", ".join(f"n = {n} ({r:.2f})" for n, r in hi)
                     + ": the 99.9 % crossing is read from utilizations within 0.1 % of each other, so one run's noise "
                       "moves it by a grid step"
                     + (f"; the --full run ({len(SCALE['full']['seeds'])} seeds) has {FULL_RUN['ratio_250_500']} at n = 250–500." if ctx.mode == "quick"
                        else "."))

    fig, ax = figure()
    top = {n: float(mean[mean.n == n].buffer_packets.max()) for n in sc_cfg["ns"]}
    for k, (t, mk) in enumerate(zip(TARGETS, ("o", "s", "^"))):
        col = df[f"min_buffer_{t * 100:g}"]
        ax.plot(df.n, col, marker=mk, color=f"C{k}", label=f"simulation, {t * 100:g} %")
        # a target no buffer of the grid reached: drawn at the largest buffer run, as a lower bound
        mark_unreached(ax, df.n.tolist(), col.tolist(), top, marker=mk, color=f"C{k}",
                       label=f"{t * 100:g} % not reached on the grid (drawn at the largest buffer run)")
    ax.plot(df.n, df.rtt_c_over_sqrt_n, "k--", lw=1, label="RTT·C/√n")
    ax.plot(df.n, 2 * df.rtt_c_over_sqrt_n, "k:", lw=1, label="2·RTT·C/√n")
    # the paper's claims at n ≥ 250: RTT·C/√n is enough for 98 % (the check allows +25 %)
    big_n = df[df.n >= 250]
    if len(big_n):
        ax.fill_between(big_n.n, 0, 1.25 * big_n.rtt_c_over_sqrt_n, color="C0", alpha=0.08, lw=0,
                        label="paper: 98 % within 1.25 × RTT·C/√n (n ≥ 250)")
    ax.set_xlabel("number of long-lived flows n")
    ax.set_ylabel("minimum required buffer (packets)")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    finish(fig, "004 Fig. 11: minimum buffer vs n, OC3, RTT 20–140 ms, Reno")
    scale = sc_cfg
    return FigureOutput(
        data=df, checks=checks, figure=fig, extra_tables={"runs": runs, "access_sensitivity": sens},
        inputs={"scenario_template": grid[0][4].to_dict(), "grid": {k: list(v) if isinstance(v, tuple) else v
                                                                      for k, v in scale.items()},
                "bdp_packets": BDP, "targets": list(TARGETS),
                "min_buffer_rule": "first grid buffer from which all larger ones meet the target, interpolated",
                "access_rate_bps": ACCESS_BPS, "access_rate_source": _p004.ACCESS_SOURCE,
                "access_sensitivity": {"setting": "the engine's default access rate, 10 × C (the earlier runs)",
                                       "ns": list(SENSITIVITY_NS), "seed": sc_cfg["seeds"][0], "checked": False}},
        deviations=[f"bufsize's engine (Reno) instead of ns-2; RTT uniform 20–140 ms assumed; {len(grid)} runs of "
                    f"{scale['duration']:g} s ({scale['warmup']:g} s warm-up), seeds {list(scale['seeds'])} "
                    f"({ctx.mode} scale; the paper ran 'several minutes' per point). Minimum buffers come from a grid "
                    f"of {len(scale['multiples'])} multiples of RTT·C/√n with linear interpolation, so they are "
                    f"accurate to about a grid step.",
                    f"Access links 1 Gb/s per flow (our choice): {_p004.ACCESS_WHY} The engine's default 10 × C is a "
                    "sensitivity run, not checked."],
        notes=notes + _access_note(df, sens))


def _access_note(df, sens) -> list[str]:
    """The sensitivity runs' minimum buffers (10 × C access links, seed 1) next to the main run's."""
    if not len(sens):
        return []
    parts = []
    for n, mb in min_buffers_by_n(sens, (0.98, 0.999)).items():
        main = df[df.n == n].iloc[0]
        parts.append(f"n = {int(n)}: 98 % {mb[0.98] / main.rtt_c_over_sqrt_n:.2f}× vs "
                     f"{main.min_buffer_98 / main.rtt_c_over_sqrt_n:.2f}×, 99.9 %/98 % {mb[0.999] / mb[0.98]:.2f} vs "
                     f"{main['min_buffer_99.9'] / main.min_buffer_98:.2f}")
    return ["Access-rate sensitivity (seed 1, not checked): minimum buffers / RTT·C/√n with the engine's default access "
            "links of 10 × C (the earlier runs) against the 1 Gb/s access links of the main run (means over its "
            "seeds): " + "; ".join(parts) + " (access_sensitivity.csv)."]
