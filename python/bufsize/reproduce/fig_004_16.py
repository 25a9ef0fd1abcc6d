"""004-Fig16: Experimental, simulation and model prediction of the queue occupancy of a Cisco GSR 12410 (§5.2.2)

Reproduced in simulation only: many short TCP flows (Poisson arrivals of 14-packet Reno flows,
initial window 2, so bursts of 2, 4 and 8 packets) load an OC3 (155 Mb/s) to ρ = 0.8 through a
buffer that never drops; the engine's time-weighted queue histogram (``SimResult.queue_histogram``)
gives P(Q ≥ b), compared with the paper's "Model M/G/1 FIFO", the effective-bandwidth tail
P(Q ≥ b) = exp(−b·2(1−ρ)/ρ·E[X]/E[X²]) (``appenzeller.short_flow_overflow_probability``), on the
log-slope. The Cisco GSR series (if-queue, buffers) need the hardware router and its Harpoon load,
and the "Model M/G/1 PS" curve is not defined in the paper: neither can be measured here.
"""

from __future__ import annotations

import math

from bufsize.reproduce import _p004
from bufsize.reproduce._core import Check, FigureOutput, FigureSpec, check_range, check_rel
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id='fig_004_16',
    paper_id='004-Fig16',
    title='Experimental, simulation and model prediction of the queue occupancy of a Cisco GSR 12410 (§5.2.2)',
    kind='testbed',
    kind_detail='testbed + overlay (+ sim)',
    needs=('TRF-POISSON-FIXED', 'MET-QHIST', 'M-004'),
    paper_cost='sim small; testbed minutes',
    quick_seconds=8.0,
    note="simulation and the M/G/1 FIFO model only; the Cisco GSR series and the undefined 'PS' model are not "
         "measured",
)

RHO = 0.8
LENGTH = 14            # packets per flow (FIGURES.md assumption)
PACKET_BYTES = 1500
RATE = 155e6           # OC3
#: the tail is fitted where it is exponential and still well sampled: from P = 0.3 down to P = 1e-4
FIT_P = (0.3, 1e-4)
#: quick: one 600-s run (≈ 6 M packets; a 60-s run's tail below P = 0.01 rests on a few busy periods
#: and its fitted slope moved by 20 %); full: three seeds of 1200 s, histograms pooled.
SCALE = {"quick": {"duration": 600.0, "warmup": 10.0, "seeds": (1,)},
         "full": {"duration": 1200.0, "warmup": 10.0, "seeds": (1, 2, 3)}}

SETUP = (
    Setting("link", "155 Mb/s (OC3)", "paper", "switches IP packets using POS (PPP over Sonet) at 155Mb/s", "§5.2"),
    Setting("traffic", "short-lived TCP flows only", "paper",
            "we generated lots of short-lived flows and measured the probability distribution of the queue length "
            "of the GSR 12410 router", "§5.2.2"),
    Setting("arrivals, load and flow length", "Poisson arrivals at ρ = 0.8, every flow 14 packets", "figures",
            "FIGURES.md: 'Load and flow-length distribution unspecified: ρ = 0.8 with 14-packet flows (assumed)', "
            "arrivals Poisson as its Needs line (TRF-POISSON-FIXED) and §4's model"),
    Setting("TCP", "Reno, initial window 2 (bursts of 2, 4, 8), otherwise the ns2 profile", "ours",
            "the testbed's flows came from Harpoon 'on Linux and BSD machines' (§5.2), stacks unstated; §4's "
            "model has each flow send 'first … two packets, then four, eight'"),
    Setting("packet size", "1500 bytes", "paper", "with an MTU of 1500 bytes", "§5.2.2, footnote 10"),
    Setting("buffer", "10 000 packets (never fills): the occupancy is measured, not dropped at", "ours",
            "004 gives no buffer for this run; its figure is a queue distribution"),
    Setting("hidden FIFO", "none: no 43-packet offset", "ours",
            "the GSR hid a 64-KB transmit FIFO, 43 packets (§5.2.2, footnote 10); the simulated router has none"),
    Setting("RTTs", "uniform 20–140 ms", "ours", "004 gives none; the M/G/1 model has none"),
    Setting("access links", "none: the bursts reach the router intact", "ours",
            "the model's worst case, 'access links have infinite speed' (§4); the testbed's hosts went through a "
            "second GSR with Gigabit Ethernet cards (§5.2)"),
    _p004.REVERSE_PATH,
    Setting("run length", "600 s after a 10-s warm-up, one run (full: three of 1200 s, histograms pooled)", "ours",
            "a 60-s run's tail below P = 0.01 rested on a few busy periods and its slope moved by 20 %"),
    Setting("seeds", "1 (full: 1, 2, 3)", "ours", "the full scale pools three runs' histograms"),
    Setting("model", "M/G/1 FIFO tail P(Q ≥ b) = exp(−b·2(1−ρ)/ρ·E[X]/E[X²]) at ρ = 0.8, L = 14; fitted on "
            "0.3 ≥ P ≥ 10⁻⁴", "figures",
            "FIGURES.md: 'Check the simulated tail against the M/G/1 effective-bandwidth tail … the log-slope within "
            "±20 % (assumed)'; MODELS.md A5; the fit range is ours"),
)


def scenario(duration: float, warmup: float, seed: int):
    from bufsize.reproduce import _stack

    return _stack.from_dict({
        "seed": seed, "duration": f"{duration + warmup:g}s", "warmup": f"{warmup:g}s",
        "links": [{"name": "bn", "rate": RATE, "buffer": "10000pkt"}, {"name": "rev", "rate": "10Gbps"}],
        "bottleneck": "bn", "measure": {"phase_trace_interval": None, "queue_histogram": True},
        "short_flows": [{"load": RHO, "size": f"{LENGTH}pkt", "rtt": "20ms..140ms", "path": ["bn"],
                         "ack_path": ["rev"], "tcp": {"cc": "reno", "initial_window": 2,
                                                      "packet_size": f"{PACKET_BYTES}B", "sack": False, "prr": False}}],
    })


def ccdf(hist):
    """P(Q >= b) for b = 0, 1, ... from a histogram of time fractions per occupancy."""
    import numpy as np

    f = np.asarray(hist, dtype=float)
    f = f / f.sum()
    return np.cumsum(f[::-1])[::-1]


def tail_slope(b, p, lo: float = FIT_P[1], hi: float = FIT_P[0]) -> tuple[float, int]:
    """Least-squares slope κ of −ln P(Q >= b) against b over the points with lo <= P <= hi;
    returns (κ per packet, number of points). NaN with fewer than 5 points."""
    import numpy as np

    b = np.asarray(b, dtype=float)
    p = np.asarray(p, dtype=float)
    m = (p >= lo) & (p <= hi)
    if m.sum() < 5:
        return math.nan, int(m.sum())
    slope = np.polyfit(b[m], np.log(p[m]), 1)[0]
    return float(-slope), int(m.sum())


def run(ctx) -> FigureOutput:
    import numpy as np
    import pandas as pd

    from bufsize.models import appenzeller as ap
    from bufsize.reproduce._plot import figure, finish
    from bufsize.reproduce._sim import run_scenarios

    cfg = SCALE[ctx.mode]
    scs = [scenario(cfg["duration"], cfg["warmup"], seed) for seed in cfg["seeds"]]
    sc = scs[0]
    ctx.say(f"      {len(scs)} run(s): OC3, ρ = {RHO}, {LENGTH}-packet flows, {cfg['duration']:g} s measured each")
    results = run_scenarios(scs, ctx, tables=("queue_histogram",))
    # equal measurement windows: the pooled time fractions are the mean of the runs' fractions
    n = max(len(r["queue_histogram"]) for r in results)
    frac = np.zeros(n)
    for r in results:
        f = r["queue_histogram"]["fraction"].to_numpy()
        frac[:len(f)] += f / len(results)
    qh = pd.DataFrame({"packets": np.arange(n), "fraction": frac})
    b = qh["packets"].to_numpy()
    p_sim = ccdf(frac)
    util = float(np.mean([r["summary"]["utilization"] for r in results]))
    s = {k: [r["summary"][k] for r in results] for k in ("utilization", "drops", "max_queue_packets",
                                                          "mean_queue_packets")}
    m1, m2, _ = ap.burst_moments(LENGTH)
    kappa_model = ap.tail_decay_rate(RHO, LENGTH)[0]
    kappa_model_util = ap.tail_decay_rate(util, LENGTH)[0]
    kappa_exact = ap.tail_decay_rate(RHO, LENGTH, order="exact")[0]
    kappa_sim, npts = tail_slope(b, p_sim)
    bmax = int(b[p_sim >= 1e-5].max()) + 1 if (p_sim >= 1e-5).any() else int(b.max())
    grid = np.arange(0, bmax + 1)
    sim_on_grid = np.interp(grid, b, p_sim, right=0.0)
    df = pd.DataFrame({"queue_packets": grid, "sim_p_ge": sim_on_grid,
                       "model_mg1_fifo": [ap.short_flow_overflow_probability(RHO, float(x), LENGTH) for x in grid],
                       "model_mg1_fifo_exact": [ap.short_flow_overflow_probability(RHO, float(x), LENGTH,
                                                                                   order="exact") for x in grid]})
    checks = [
        check_rel("simulated tail vs M/G/1 effective-bandwidth tail exp(−b·2(1−ρ)/ρ·E[X]/E[X²]): log-slope κ "
                  f"(fitted where {FIT_P[1]:g} ≤ P(Q ≥ b) ≤ {FIT_P[0]:g}, {npts} points; model at ρ = {RHO})",
                  kappa_model, kappa_sim, 0.2, why="±20 % (FIGURES.md, assumed)"),
        check_rel(f"… the same with the model at the measured load ρ = {util:.4f}", kappa_model_util, kappa_sim, 0.2,
                  why="±20 %"),
        check_range("the simulated load is the one asked for (utilization of the OC3)", RHO, util, RHO - 0.02,
                    RHO + 0.02, why="±0.02: Poisson flow arrivals fluctuate"),
        Check("the model matches the Cisco GSR's measured distribution once the router's under-reporting by 43 "
              "packets (its hidden 64 KB transmit FIFO) is added", 43, None,
              "not measured: needs the Cisco GSR 12410 OC3 linecard and its Harpoon load (no hardware router here)",
              False),
    ]
    notes = [f"Simulated log-slope κ = {kappa_sim:.4f}/packet: {(kappa_sim / kappa_model - 1) * 100:+.0f} % from the "
             f"paper's second-order tail ({kappa_model:.4f}) and {(kappa_sim / kappa_exact - 1) * 100:+.0f} % from the "
             f"exact Cramér root of the same M^X/D/1 batches ({kappa_exact:.4f}); the second-order expansion itself "
             f"overstates the exact decay rate by {(kappa_model / kappa_exact - 1) * 100:.0f} % for bursts of 2, 4 and 8."]
    if not checks[0].passed and math.isfinite(kappa_sim):
        notes.append(f"Miss: |κ_sim/κ_model − 1| = {abs(kappa_sim / kappa_model - 1) * 100:.0f} % > 20 %. Part of it "
                     f"is the second-order expansion (above); the rest is how well the tail down to P = {FIT_P[1]:g} "
                     f"is sampled in {len(scs)} × {cfg['duration']:g} s (a 60-s run moved the slope by 20 %).")
    notes.append("Not measured: the two Cisco GSR series ('if-queue', 'buffers') need the hardware router; the "
                 "'Model M/G/1 PS' curve is not defined in the paper (FIGURES.md), so it is not drawn. The kernel "
                 "testbed's pfifo backlog could only be polled coarsely (tc -s) and was not run for this figure.")
    fig, ax = figure()
    ax.semilogy(grid, sim_on_grid, "o", ms=3, mfc="none", color="tab:blue",
                label=f"simulation (bufsize engine), κ = {kappa_sim:.3f}")
    ax.semilogy(grid, df.model_mg1_fifo, "-", color="k", lw=1.2,
                label=f"Model M/G/1 FIFO (2nd order), κ = {kappa_model:.3f}")
    ax.semilogy(grid, df.model_mg1_fifo_exact, "--", color="0.5", lw=1,
                label=f"M/G/1 exact Cramér root, κ = {kappa_exact:.3f}")
    ax.set_ylim(1e-5, 1.2)
    ax.set_xlabel("queue length b (packets)")
    ax.set_ylabel("P(Q ≥ b)")
    ax.grid(alpha=0.3, which="both")
    ax.legend(fontsize=8)
    finish(fig, f"004 Fig. 16: OC3, ρ = {RHO}, {LENGTH}-packet flows (simulation; GSR series not measured)")
    return FigureOutput(
        data=df, checks=checks, figure=fig, extra_tables={"histogram": qh},
        inputs={"scenario": sc.to_dict(), "load": RHO, "flow_length_packets": LENGTH,
                "burst_moments": {"E[X]": m1, "E[X^2]": m2}, "kappa_model": kappa_model,
                "kappa_model_measured_load": kappa_model_util, "kappa_exact": kappa_exact,
                "kappa_sim": kappa_sim, "fit_range_p": list(FIT_P), "utilization": util,
                "seeds": list(cfg["seeds"]), "summary_per_run": s},
        deviations=["bufsize's engine instead of the Cisco GSR 12410 and Harpoon: Poisson arrivals of 14-packet "
                    "Reno flows (IW 2, 1500-byte packets, RTT uniform 20–140 ms) at ρ = 0.8 on 155 Mb/s with a "
                    "10 000-packet buffer; load and flow length are FIGURES.md's assumptions.",
                    "No hidden transmit FIFO in the simulation, so no 43-packet offset is applied; the occupancy "
                    f"is the engine's time-weighted histogram over {len(scs)} × {cfg['duration']:g} s ({ctx.mode} scale)."],
        notes=notes)
