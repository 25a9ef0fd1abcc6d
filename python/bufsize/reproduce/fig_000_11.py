"""000-Fig11: average per-flow throughput vs buffer size with M/M/1/B heavy-load loss and delay.

Analytic: S-model eq. (4) and L-model eq. (5) with p = 1/B, d = B/(2C); C = 1 Gb/s, To = 60 ms,
s = 30 packets (45 KB), m = 1500 B, v = 1, k = 1.22. Closed-form optima eqs. (6), (7).
"""

from __future__ import annotations

from bufsize.reproduce._core import FigureOutput, FigureSpec, check_abs, check_rel, check_true
from bufsize.reproduce._p000_miss import if_miss
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id="fig_000_11",
    paper_id="000-Fig11",
    title="Average throughput vs buffer size, M/M/1/B heavy-load losses and delays (§V)",
    kind="analytic",
    kind_detail="analytic",
    needs=("M-000",),
    paper_cost="~0",
    quick_seconds=1.0,
)

C_BPS = 1e9
M_BYTES = 1500.0
C_PPS = C_BPS / 8 / M_BYTES
TO = 0.060
S_BYTES = 45_000.0

#: the model's parameters and where each comes from
SETUP = (
    Setting("C", "1 Gb/s (83 333 packets/s of 1500 B)", "paper",
            "in the case of a link with C = 1Gbps and of a flow with To = 60ms and s=30pkts=45KB", "§V"),
    Setting("To", "60 ms", "paper", "in the case of a link with C = 1Gbps and of a flow with To = 60ms", "§V"),
    Setting("s", "30 packets = 45 KB", "paper", "a flow with To = 60ms and s=30pkts=45KB", "§V"),
    Setting("C·To", "5000 packets = 7.5 MB (the caption's 'BDP 3750 KB' is C × 30 ms)", "paper",
            "the optimal buffer size at a 1Gbps link with To=60ms (BDP: CTo=7.5MB)", "§V"),
    Setting("m (segment size)", "1500 B; KB = 1000 B", "figures",
            "FIGURES.md 000-Fig11: 'm = 1500 B' (000's 's=30pkts=45KB'); MODELS.md: 'KB = 1000 bytes in this paper'"),
    Setting("M(s), D(s)", "M = 30 segments, D = 5 rounds (eq. (1): D = 1 + ⌈log2(M/2)⌉)", "figures",
            "FIGURES.md 000-Fig11: '[C] M(s) = 30, D = 5' (000's eq. (1) with M = 30)"),
    Setting("loss", "p(B) = 1/B (M/M/1/B as ρ → 1; the exact limit is 1/(B + 1))", "paper",
            "the loss probability becomes simply inversely proportional to the number of packet buffers p(B) = 1/B",
            "§V"),
    Setting("delay", "d(B) = B/(2C), so the RTT is To + B/(2C)", "paper",
            "The average queueing delay, in the heavy-load regime, becomes d(B) = B/(2C)", "§V"),
    Setting("v", "1", "paper", "and so we set v=1", "§IV"),
    Setting("k", "1.22", "paper", "(we set k=1.22)", "§IV"),
    Setting("buffer axis", "10 KB–40 MB, 400 log-spaced points", "figures",
            "FIGURES.md 000-Fig11: 'range unspecified, assume 10 KB–40 MB, log' (the point count is ours)"),
    Setting("§V text's flow sizes", "s = 10 KB, 100 KB, 1 MB (M·m = s in bytes, C·To = 7.5 MB, D from eq. (1))",
            "paper", "225KB for s=10KB, 450KB for s=100KB, and 1.125MB for s=1MB", "§V"),
)


def run(ctx) -> FigureOutput:
    import numpy as np
    import pandas as pd

    from bufsize.models import prasad as pr
    from bufsize.reproduce._plot import figure, finish

    B_kb = np.logspace(1, np.log10(40_000), 400)          # 10 KB .. 40 MB
    B_pk = B_kb * 1000 / M_BYTES
    rs = np.array([pr.r_s_mm1b(b, s_bytes=S_BYTES, C=C_PPS, To=TO) for b in B_pk]) * 8 / 1e6
    rl = np.array([pr.r_l_mm1b(b, C=C_PPS, To=TO) for b in B_pk]) * 8 / 1e6
    df = pd.DataFrame({"buffer_kb": B_kb, "buffer_packets": B_pk, "r_s_mbps": rs, "r_l_mbps": rl})

    c_to = C_PPS * TO
    M = pr.segments(S_BYTES)
    D = pr.slow_start_rounds(M)
    bs = pr.optimal_buffer_s_mm1b(M, D, c_to)
    bl = pr.optimal_buffer_l_mm1b(c_to)
    rs_hat = pr.r_s_mm1b(bs, s_bytes=S_BYTES, C=C_PPS, To=TO) * 8 / 1e6
    rl_hat = pr.r_l_mm1b(bl, C=C_PPS, To=TO) * 8 / 1e6
    i_s, i_l = int(np.argmax(rs)), int(np.argmax(rl))
    grid_ok = (0 < i_s < len(B_pk) - 1 and 0 < i_l < len(B_pk) - 1 and B_pk[i_s - 1] <= bs <= B_pk[i_s + 1]
               and B_pk[i_l - 1] <= bl <= B_pk[i_l + 1])
    checks = [
        check_abs("[C] M(s) = 30 packets for s = 45 KB", 30, M, 0, unit=" packets"),
        check_abs("[C] D = 5 slow-start rounds for M = 30 (eq. (1))", 5, D, 0, unit=" rounds"),
        check_rel("[C] C·To = 5000 packets", 5000, c_to, 1e-6),
        check_true("both curves have an interior maximum, at the closed-form optima (6), (7)", grid_ok,
                   "grid argmax brackets eqs. (6)/(7)"),
        check_true("B̂_S ≪ B̂_L", bl / bs > 10, "ratio B̂_L/B̂_S > 10", value=bl / bs),
        check_rel("[C] B̂_S = √(2vM·C·To/D) = 244.949 packets (367 KB)", 244.949, bs, 1e-6),
        check_rel("[C] R_S(B̂_S) = 1.143304 Mb/s", 1.143304, rs_hat, 1e-6),
        check_rel("[C] B̂_L = 2·C·To = 10 000 packets (15 MB)", 10_000, bl, 1e-6),
        check_rel("[C] R_L(B̂_L) = 12.2 Mb/s", 12.2, rl_hat, 1e-6),
    ]
    # §V text: S-model optima for s = 10 KB / 100 KB / 1 MB (bytes, M·m = s, C·To = 7.5 MB)
    text = []
    for s, printed in ((10_000, 225.0), (100_000, 450.0), (1_000_000, 1125.0)):
        Ms = pr.segments(s)
        ours = pr.optimal_buffer_s_mm1b(s, pr.slow_start_rounds(Ms), C_BPS / 8 * TO) / 1000
        text.append({"s_bytes": s, "paper_kb": printed, "eq6_kb": ours})
        checks.append(if_miss(check_rel(f"§V text: S-model optimum {printed:g} KB for s = {s // 1000} KB", printed, ours,
                                        0.01, why="3 printed digits, ±1 %; FIGURES.md [D] for 100 KB and 1 MB"),
                              "paper", f"§V's text prints {printed:g} KB for s = {s // 1000} KB, but its own eq. (6), "
                                       f"with M(s) = {Ms} segments, D = {pr.slow_start_rounds(Ms)} rounds and C·To = "
                                       f"{C_BPS / 8 * TO / 1e6:g} MB, gives {ours:.0f} KB (the [D] check below)"))
    checks.append(check_rel("§V text: L-model optimum 15 MB", 15.0, bl * M_BYTES / 1e6, 1e-6))
    # FIGURES.md [D]: what eq. (6) gives where the text's 450 KB and 1.125 MB do not follow from it
    eq6 = {t["s_bytes"]: t["eq6_kb"] for t in text}
    checks.append(check_abs("[D] eq. (6) gives 463 KB for s = 100 KB (the text prints 450)", 463.0, eq6[100_000], 0.5,
                            unit=" KB", why="½ unit of the last digit (FIGURES.md, MODELS P-13)"))
    checks.append(check_abs("[D] eq. (6) gives 1.225 MB for s = 1 MB (the text prints 1.125)", 1.225,
                            eq6[1_000_000] / 1000, 0.0005, unit=" MB", why="½ unit of the last digit (FIGURES.md, MODELS P-14)"))

    fig, ax = figure(height=5.2)
    ax.plot(B_kb, rs, label="S-model, eq. (4), s = 45 KB")
    ax.plot(B_kb, rl, label="L-model, eq. (5)")
    ax.axvline(bs * M_BYTES / 1000, color="C0", ls=":", lw=1, label=f"S optimum, eq. (6): {bs * M_BYTES / 1000:.0f} KB")
    ax.axvline(bl * M_BYTES / 1000, color="C1", ls=":", lw=1, label=f"L optimum, eq. (7): {bl * M_BYTES / 1e6:.0f} MB")
    # the optima computed from the paper's own formulas ([C], FIGURES.md) and the §V text's L optimum
    ax.plot([244.949 * M_BYTES / 1000], [1.143304], "k*", ms=9, ls="none",
            label="paper [C]: B̂_S = 367 KB, R_S = 1.143 Mb/s")
    ax.plot([15_000], [12.2], "kP", ms=8, ls="none", label="paper [C] / §V: B̂_L = 15 MB, R_L = 12.2 Mb/s")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("buffer B (KB)")
    ax.set_ylabel("average per-flow throughput (Mb/s)")
    # below the axes: inside, the six entries would cover the L-model's rising part
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=2)
    ax.grid(alpha=0.3, which="both")
    finish(fig, "000 Fig. 11: R(B) with M/M/1/B heavy load, C = 1 Gb/s, To = 60 ms")
    return FigureOutput(
        data=df, checks=checks, figure=fig,
        inputs={"equations": "000 eqs. (1)-(7)", "C_bps": C_BPS, "To_s": TO, "s_bytes": S_BYTES, "m_bytes": M_BYTES,
                "v": 1.0, "k": 1.22, "loss": "p = 1/B", "delay": "d = B/(2C)"},
        extra_tables={"text_optima": pd.DataFrame(text)},
        deviations=["The B range is not stated; 10 KB–40 MB on log axes assumed. The caption's 'BDP 3750 KB' is "
                    "C × 30 ms; we use the text's To = 60 ms (C·To = 7.5 MB, FIGURES.md [D])."],
        notes=["The §V text's 450 KB and 1.125 MB optima (s = 100 KB, 1 MB) do not follow from eq. (6) with "
               "eq. (1)'s D(s): the formula gives 463 KB and 1.225 MB (MODELS.md P-13/14); no unit choice "
               "reproduces the printed numbers, so these two misses are the paper's arithmetic, not ours."])
