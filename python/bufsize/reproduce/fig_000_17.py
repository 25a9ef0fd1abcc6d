"""000-Fig17: throughput of the S- and L-models with the PL-form loss, BDP = 250 packets.

Analytic, eqs. (10)–(13), C = 50 Mb/s, To = 60 ms, s = 30 packets. The paper's a, b, f were fitted
to its Γ = 0.1 simulation and are not printed. Until the closed-loop simulation and the fit exist
here, this uses the paper's *stated typical values* b = 0.5, f = 0.4 (§VII-A.1) and the models'
a = 0.186 (bufsize.models.prasad.PL_DEFAULT_A, anchored to Table II's analytic PL-S optimum).
"""

from __future__ import annotations

from bufsize.reproduce._core import FigureOutput, FigureSpec, check_abs, check_range, check_rel, check_true

SPEC = FigureSpec(
    id="fig_000_17",
    paper_id="000-Fig17",
    title="TCP throughput for the S- and L-model with the PL-form loss (BDP = 250 packets) (§VII-A.3)",
    kind="analytic",
    kind_detail="analytic (sim-fitted a,b,f)",
    needs=("M-000", "EXP-FIT", "SIM-TOPO-GAMMA", "TRF-CLOSED", "TCP-RENO", "SIM-Q", "MET-LOSS", "MET-QDELAY",
           "EXP-SWEEP"),
    paper_cost="needs Fig13/14 fit",
    quick_seconds=1.0,
    note="with the paper's typical b = 0.5, f = 0.4, not a fit: the Fig. 13/14 simulation needs TRF-CLOSED, "
         "SIM-TOPO-GAMMA, EXP-FIT",
)

C_PPS = 50e6 / 8 / 1500
TO = 0.060
S_BYTES = 45_000.0


def run(ctx) -> FigureOutput:
    import numpy as np
    import pandas as pd

    from bufsize.models import prasad as pr
    from bufsize.reproduce._plot import figure, finish

    a, b, f = pr.PL_DEFAULT_A, pr.PL_DEFAULT_B, pr.PL_DEFAULT_F
    c_to = C_PPS * TO
    B = np.linspace(1, 1000, 1000)
    rs = np.array([pr.r_s_pl(x, a=a, b=b, f=f, C=C_PPS, To=TO, s_bytes=S_BYTES) for x in B]) * 8 / 1e6
    rl = np.array([pr.r_l_pl(x, a=a, b=b, f=f, C=C_PPS, To=TO) for x in B]) * 8 / 1e6
    df = pd.DataFrame({"buffer_packets": B, "r_s_mbps": rs, "r_l_mbps": rl})
    M = pr.segments(S_BYTES)
    bs = pr.optimal_buffer_pl_s(a=a, b=b, f=f, M=M, D=pr.slow_start_rounds(M), C_To=c_to)
    bl = pr.optimal_buffer_pl_l(b, f, c_to)
    checks = [
        check_true("B̂_S < B̂_L", bs < bl, "strict", value=bl - bs),
        check_true("B̂_S < 0.5·BDP", bs < 0.5 * c_to, "strict", value=bs / c_to),
        check_range("ratio B̂_L/B̂_S ≈ 4 (≈ 400 vs ≈ 100 packets)", 4.0, bl / bs, 4 / 1.5, 4 * 1.5, why="×1.5"),
        check_rel("S-model optimum ≈ 100 packets", 100.0, bs, 0.25, why="'about', ±25 %"),
        check_rel("L-model optimum ≈ 400 packets", 400.0, bl, 0.25, why="'about', ±25 %"),
        check_rel("grid argmax of R_S agrees with the root of eq. (13)", bs, float(B[np.argmax(rs)]), 0.02),
        check_rel("grid argmax of R_L agrees with eq. (11)", bl, float(B[np.argmax(rl)]), 0.02),
    ]
    checks += _fitted_checks(pr, c_to, M)
    bs_typ = pr.optimal_buffer_pl_s(a=FITTED_QUICK[0], b=b, f=f, M=M, D=pr.slow_start_rounds(M), C_To=c_to)
    # FIGURES.md [D]: the caption's ≈ 400-packet L-optimum against eq. (11) B̂_L = b/(f(2−b))·BDP
    need = 400.0 / c_to
    checks += [
        check_abs("[D] eq. (11) with the typical b = 0.5, f = 0.4: B̂_L = 0.83·BDP = 208 packets", 208.0, bl, 0.5,
                  unit=" packets", why="½ unit of the last digit"),
        check_abs("[D] a 400-packet L-optimum needs b/(f(2−b)) = 1.6", 1.6, need, 0.05,
                  why="½ unit of the last digit"),
        check_abs("[D] … e.g. b = 0.5 → f = 0.21", 0.21, b / (need * (2 - b)), 0.005, why="½ unit of the last digit"),
        check_true("[D] the typical b, f contradict Table II's analytic PL-L 146 packets (0.584·BDP): eq. (11) "
                   f"gives {bl / c_to:.3f}·BDP", abs(bl - 146.0) > 0.25 * 146.0,
                   "contradiction confirmed: eq. (11) more than 25 % from 146 (assumed)", value=bl / c_to),
        # the S half: this module's a is anchored to Table II's 47 (B̂_S = 47 by construction), so a comes from the
        # toolkit's own Fig 13/14 fit here, with the typical b, f the [D] is about
        check_true(f"[D] the typical b, f contradict Table II's analytic PL-S 47: eq. (13) with b = {b:g}, f = {f:g} and "
                   f"a = {FITTED_QUICK[0]} (the toolkit's Fig 13/14 fit; the anchored a would be circular) gives "
                   f"{bs_typ:.1f} packets", abs(bs_typ - 47.0) > 0.25 * 47.0,
                   "contradiction confirmed: eq. (13) more than 25 % from 47 (assumed)", value=bs_typ),
    ]
    fig, ax = figure()
    ax.plot(B, rs, label=f"S-model, eq. (12), s = 30 pkts (B̂ = {bs:.0f})")
    ax.plot(B, rl, label=f"L-model, eq. (10) (B̂ = {bl:.0f})")
    ax.axvline(bs, color="C0", ls=":", lw=1)
    ax.axvline(bl, color="C1", ls=":", lw=1)
    ax.set_xlabel("buffer B (packets)")
    ax.set_ylabel("throughput R(B) (Mb/s)")
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3, which="both")
    finish(fig, f"000 Fig. 17: PL-form, BDP = 250 pkts, a = {a:g}, b = {b:g}, f = {f:g}")
    return FigureOutput(
        data=df, checks=checks, figure=fig,
        inputs={"equations": "000 eqs. (10)-(13)", "C_pps": C_PPS, "To_s": TO, "bdp_packets": c_to, "s_bytes": S_BYTES,
                "m_bytes": 1500, "v": 1.0, "k": 1.22, "a": a, "b": b, "f": f,
                "parameter_source": "b, f: the paper's typical values (§VII-A.1); a: bufsize.models.prasad.PL_DEFAULT_A"},
        deviations=["a, b, f are NOT fitted to a simulation (the paper fitted them to its Γ = 0.1 ns-2 run and did not "
                    "print them): b = 0.5 and f = 0.4 are the paper's stated typical values, a = 0.186 is the "
                    "models module's anchor to Table II's analytic PL-S optimum (47 packets)."],
        notes=[f"The absolute optima miss the caption's ≈ 100 / ≈ 400 packets: with the typical b, f eq. (11) gives "
               f"B̂_L = b/(f(2−b))·BDP = {bl:.0f} packets; 400 would need b/(f(2−b)) = 1.6, which contradicts the "
               f"paper's own typical values (0.83) and Table II's analytic 146 packets (0.584) (FIGURES.md §8.1). "
               f"What the paper makes robust holds: B̂_S < B̂_L, B̂_S < 0.5·BDP, ratio {bl / bs:.1f} ≈ 4. "
               f"The S-model optimum misses by {100 * (bs / 100 - 1):+.0f} % and the L-model's by "
               f"{100 * (bl / 400 - 1):+.0f} %; B̂_S = {bs:.0f} because a is anchored to Table II's analytic PL-S "
               f"optimum of 47 packets, which the paper gives for what appears to be the same configuration as this "
               f"caption's ≈ 100 (FIGURES.md), so the paper disagrees with itself here.",
               _fitted_note(pr, c_to, M)]
        + ([] if abs(bs_typ - 47.0) > 0.25 * 47.0 else
           [f"The S half of FIGURES.md's [D] is not confirmed: with the typical b = {b:g}, f = {f:g} and the toolkit's "
            f"fitted a = {FITTED_QUICK[0]}, eq. (13) gives B̂_S = {bs_typ:.1f} packets, {100 * (bs_typ / 47 - 1):+.0f} % "
            "from Table II's 47, within the 25 % this module reads as 'contradicts'; the L half is (eq. (11): "
            f"{bl:.0f} against 146). With the anchored a the comparison is circular (47 by construction)."]))


#: (a, b, f) fitted by 000-Fig13/14's --quick campaign (Γ = 0.1; PL loss over B = 5–160 packets, linear delay),
#: the parameters FIGURES.md asks this figure to be checked with; kept here so the analytic figure needs no
#: simulation. A measurement, not an input of the checks above.
FITTED_QUICK = (0.251, 0.431, 0.331)


def _fitted_checks(pr, c_to, M):
    """The robust claims with the toolkit's own Fig. 13/14 fit, as FIGURES.md asks (the checks above use b, f typical)."""
    a, b, f = FITTED_QUICK
    bs = pr.optimal_buffer_pl_s(a=a, b=b, f=f, M=M, D=pr.slow_start_rounds(M), C_To=c_to)
    bl = pr.optimal_buffer_pl_l(b, f, c_to)
    src = f"with 000-Fig13/14's quick fit a = {a}, b = {b}, f = {f}"
    return [
        check_true(f"B̂_S < B̂_L ({src}; {bs:.0f} vs {bl:.0f} packets)", bs < bl, "strict", value=bl - bs),
        check_true(f"B̂_S < 0.5·BDP ({src})", bs < 0.5 * c_to, "strict", value=bs / c_to),
        check_range(f"ratio B̂_L/B̂_S ≈ 4 ({src})", 4.0, bl / bs, 4 / 1.5, 4 * 1.5, why="×1.5"),
    ]


def _fitted_note(pr, c_to, M):
    a, b, f = FITTED_QUICK
    bs = pr.optimal_buffer_pl_s(a=a, b=b, f=f, M=M, D=pr.slow_start_rounds(M), C_To=c_to)
    bl = pr.optimal_buffer_pl_l(b, f, c_to)
    return (f"With the toolkit's own fits from 000-Fig13/14's quick campaign (a = {a}, b = {b}, f = {f}), as FIGURES.md "
            f"asks: B̂_S = {bs:.0f} packets ({bs / c_to:.2f}·BDP), B̂_L = {bl:.0f}, ratio {bl / bs:.1f} (within ×1.5 of "
            f"4). The robust claims hold with them too; the absolute optima still miss ({100 * (bs / 100 - 1):+.0f} %, "
            f"{100 * (bl / 400 - 1):+.0f} %), so the ≈ 100 / ≈ 400 packets do not come from parameters like ours.")
