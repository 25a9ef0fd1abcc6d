"""002-Fig8: dynamics of the congestion window (Appendix I) — a schematic without data.

The schematic itself is not redrawn. As FIGURES.md suggests, this module draws its analytic
companion, Theorem 1's buffer bound B ≥ log_{1/ρ}(Wmax²/(2(1 − θ))) against Wmax, and checks the
paper's text-only numbers (§I, §II).
"""

from __future__ import annotations

import math

from bufsize.reproduce._core import Check, FigureOutput, FigureSpec, check_abs, check_rel
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id="fig_002_08",
    paper_id="002-Fig8",
    title="Dynamics of the congestion window (Appendix I)",
    kind="illustration",
    kind_detail="illustration",
    needs=("M-002",),
    paper_cost="0",
    quick_seconds=0.5,
    note="the schematic is not redrawn; its analytic companion (Theorem 1) and the paper's text numbers are",
)

SETUP = (
    Setting("model", "Theorem 1: B ≥ log_{1/ρ}(Wmax² / (2(1 − θ))) (bufsize.models.enachescu.theorem1_buffer)",
            "paper", "To achieve an effective utilization of θ, a buffer of size", "§II, Theorem 1, eq. (1)"),
    Setting("curves: θ", "0.9", "ours",
            "the θ of §II's worked example ('we want an effective utilization of 90%'), used for every curve"),
    Setting("curves: ρ", "0.25, 0.5, 0.75", "ours",
            "0.5 is §II's worked example and 0.75 the load of §II's M/M/1 example; 0.25 adds a lighter load"),
    Setting("curves: Wmax", "56 whole values, log-spaced from 3 to 2000 packets", "ours",
            "a span around §II's Wmax = 64 and Fig. 6's 10–1529"),
    Setting("worked example", "Wmax = 64 packets, ρ = 0.5, θ = 0.9 → 14.32, i.e. 15 packets", "paper",
            "if Wmax = 64 packets, ρ = 0.5, and we want an effective utilization of 90%, we need a buffer size of 15 "
            "packets", "§II"),
    Setting("M/M/1 example", "ρ = 0.75, B = 20: drop probability ρ^B", "paper",
            "At 75% load and with 20 packet buffers, the drop rate would be 0.3%", "§II"),
    Setting("§I example", "N = 1000, C = 10 Gb/s, RTT 100 ms, 1000-byte packets, Wmax = 64 KB = 64 packets", "paper",
            "consider the scenario where 1000 flows share a link of capacity 10Gbps. Assume that each flow has an RTT "
            "of 100ms, a maximum window size of 64KB, and a packet size of 1KB", "§I"),
    Setting("§I example: load", "ρ = 0.5 for 'twelve packets' (log2 64² = 12, Theorem 1 less its θ term)", "ours",
            "§I states no ρ; it gives the peak rate as 'roughly 5Gbps' on 10 Gb/s, i.e. ρ ≈ 0.5 (exactly 0.524 for "
            "1000 × 64 KiB per 100 ms, which gives 12.87)"),
    Setting("§V example", "not run: a check marked not measured", "ours",
            "§V's '40Gb/s link with 15 packet buffers … like a 30Gb/s link' comes from simulations 002 does not "
            "describe (no load, Wmax or N)"),
)


#: §V, the sentence around the 30 Gb/s example
SECTION_V = ("It appears from simulation - though we have not been able to prove it - that the buffer size dictates "
             "directly how much link capacity is lost, however congested the network is. For example, a 40Gb/s link "
             "with 15 packet buffers could be considered to operate like a 30Gb/s link.")

def run(ctx) -> FigureOutput:
    import numpy as np
    import pandas as pd

    from bufsize.models import appenzeller as ap
    from bufsize.models import enachescu as en
    from bufsize.reproduce._plot import figure, finish

    wmax = np.unique(np.round(np.logspace(0.5, np.log10(2000), 60)).astype(int))
    rows = [{"w_max": int(w), "rho": rho, "theta": 0.9, "buffer_bound": en.theorem1_buffer(int(w), rho, 0.9)}
            for rho in (0.25, 0.5, 0.75) for w in wmax]
    df = pd.DataFrame(rows)
    c_pps = 10e9 / 8 / 1000
    checks = [
        check_rel("§II Theorem 1: Wmax = 64, ρ = 0.5, θ = 0.9 → B ≥ 14.32", 14.32, en.theorem1_buffer(64, 0.5, 0.9), 5e-4,
                  why="2 printed decimals"),
        check_abs("§II: … → 15 packets (whole packets)", 15, en.theorem1_buffer(64, 0.5, 0.9, integer=True), 0),
        check_rel("§II: an M/M/1 queue at 75 % load with 20 buffers drops 0.3 % ([C] ρ^B = 0.00317)", 0.003,
                  en.mm1_drop_probability(0.75, 20), 0.06, why="'0.3 %', ±½ unit of the last digit"),
        check_rel("§I: 10 Gb/s, RTT 100 ms, 1 KB packets: rule of thumb 125 000 packets", 125_000,
                  ap.rule_of_thumb(0.1, c_pps), 1e-6),
        check_rel("§I: … RTT·C/√N with N = 1000 ≈ 3950 packets", 3950, ap.sqrt_n_rule(0.1, c_pps, 1000), 0.005,
                  why="'≈ 3950'"),
        # Theorem 1 at ρ = 0.5 splits into log2(Wmax²) plus log2(1/(2(1 − θ))), which does not grow with Wmax
        check_rel("§I: Wmax = 64 KB of 1 KB packets needs 'twelve packets plus a small constant' (Theorem 1 at "
                  "ρ = 0.5 (assumed) less its θ term log2(1/(2(1−θ))) = 2.32 at θ = 0.9)", 12.0,
                  en.theorem1_buffer(64, 0.5, 0.9) - math.log2(1 / (2 * (1 - 0.9))), 1e-9),
    ]
    # §V's "40 Gb/s with 15-packet buffers acts like a 30 Gb/s link", read through Theorem 1 with §II's Wmax and θ:
    # the largest load ρ whose bound is 15 packets. The bound is log_{1/ρ} X, so ρ = X^(-1/15) with
    # ln X = (the bound at ρ = 0.5) · ln 2.
    ln_x = en.theorem1_buffer(64, 0.5, 0.9) * math.log(2)
    rho15 = math.exp(-ln_x / 15)
    # the sentence is a simulation observation the paper says it could not prove, so Theorem 1 cannot check it
    # (rho15, Theorem 1's reading, stays in the notes); its simulation's load, Wmax and N are not given
    checks.append(Check("§V: a 40 Gb/s link with 15-packet buffers acts like a 30 Gb/s link", 0.75, None,
                        f"not measured: §V says '{SECTION_V}'; the simulation behind the example is not described (no "
                        "load, Wmax or number of flows), so there is no run to repeat, and the theorem the sentence says "
                        "it could not prove does not give the number (Theorem 1's reading: 15 packets hold θ = 0.9 up "
                        f"to ρ = {rho15:.3f}, not 0.75)", False, "measurement"))
    fig, ax = figure()
    for rho in (0.25, 0.5, 0.75):
        d = df[df.rho == rho]
        ax.plot(d.w_max, d.buffer_bound, label=f"ρ = {rho:g}")
    # the paper's worked example (§II): Wmax = 64, ρ = 0.5, θ = 0.9 gives B ≥ 14.32, i.e. 15 packets
    ax.plot([64], [14.32], "k*", ms=9, ls="none", label="paper §II: Wmax 64, ρ 0.5 → B ≥ 14.32 (15 pkts)")
    ax.set_xscale("log")
    ax.set_xlabel("Wmax (packets)")
    ax.set_ylabel("buffer bound of Theorem 1 (packets)")
    ax.legend(fontsize=8, title="θ = 0.9", title_fontsize=8)
    ax.grid(alpha=0.3, which="both")
    finish(fig, "002 Appendix I companion: Theorem 1's buffer grows with log Wmax")
    return FigureOutput(
        data=df, checks=checks, figure=fig,
        inputs={"model": "bufsize.models.enachescu.theorem1_buffer (paper 002 eq. 1)", "theta": 0.9,
                "rhos": [0.25, 0.5, 0.75]},
        deviations=["Fig. 8 is a schematic (cwnd triangles with and without overlap); it is not redrawn. This module "
                    "plots Theorem 1's bound instead and checks the paper's text-only numbers."],
        notes=[f"§V's '40 Gb/s with 15-packet buffers acts like a 30 Gb/s link' is not measured (its simulation is not "
               f"described), and it does not follow from Theorem 1 with "
               f"§II's parameters: a 15-packet bound guarantees θ = 0.9 only up to ρ = {rho15:.3f}, not 0.75. The paper "
               "gives neither the load, Wmax nor θ behind its §V number (most likely its own simulations), so this "
               "miss says the number cannot be re-derived from the theorem, not that a run contradicts it. §I's 'twelve packets' is read as Theorem 1's "
               "log2(Wmax²) at ρ = 0.5 (assumed; §I states no load)."])
