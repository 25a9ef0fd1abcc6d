"""003-TableII: growth functions w(t), β and epoch T of Reno, BIC, CUBIC′, CUBIC″, CTCP.

Analytic (a model definition): the table is printed from bufsize.models.heterogeneous and checked
for what it implies: where each growth function ends after its epoch, the CTCP constant, and the
means and characteristic values it yields by quadrature of eqs. (4)–(5) (compared with Table III in
table_003_3).
"""

from __future__ import annotations

from bufsize.reproduce import _p003
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_abs, check_rel
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id="table_003_2",
    paper_id="003-TableII",
    title="Growth function w(t), β, epoch T (R = RTT) (§IV-A)",
    kind="analytic",
    kind_detail="analytic (model definition)",
    needs=("M-003",),
    paper_cost="0",
    quick_seconds=1.0,
)

GROWTH = {"reno": ("β·wmax + t/R", "(1−β)·wmax·R"), "bic": ("β·wmax + 0.1·wmax·t/R", "R"),
          "cubic1": ("0.4(t−T)³ + wmax", "∛(wmax(1−β)/0.4) [R]"), "cubic2": ("0.4(t−T)³ + wmax", "∛(wmax(1−β)/0.4) [R]"),
          "ctcp": ("(t/32 + (β·wmax)^¼)⁴", "32(1−β^¼)·wmax^¼·R")}
W_MAX = 100.0

SETUP = _p003.SETUP_TABLE_II + (
    Setting("w_max and R", "w_max = 100 packets, R = 1 s (where the table evaluates each epoch)", "ours",
            "μ_i/w_max and a_i depend on neither (MODELS.md H1), so any values do"),
)


def run(ctx) -> FigureOutput:
    import pandas as pd

    from bufsize.models import heterogeneous as h
    from bufsize.reproduce import _p003 as p
    from bufsize.reproduce._plot import table_figure

    rows = []
    for proto in p.PROTOCOLS:
        T = h.epoch_duration(proto, W_MAX, 1.0)
        end = h.congestion_window(proto, T, W_MAX, 1.0)
        mean, std = h.window_statistics(proto, W_MAX, 1.0, method="quadrature")
        rows.append({"protocol": proto, "growth_function": GROWTH[proto][0], "beta": h.BETA[proto],
                     "epoch": GROWTH[proto][1], "epoch_at_wmax_100_R_1": T, "window_at_epoch_end_over_wmax": end / W_MAX,
                     "mean_over_wmax_quadrature": mean / W_MAX, "a_quadrature": std / mean})
    df = pd.DataFrame(rows).set_index("protocol", drop=False)
    T_literal = h.epoch_duration("cubic2", W_MAX, 1.0, cubic_epoch="literal")
    checks = [
        check_abs("Reno's sawtooth reaches wmax at the end of its epoch", 1.0, df.loc["reno", "window_at_epoch_end_over_wmax"], 1e-9),
        check_abs("[R/D] BIC's printed epoch T = R reaches only 0.9·wmax", 0.9, df.loc["bic", "window_at_epoch_end_over_wmax"], 1e-9),
        check_abs("[R] CUBIC′ with the corrected epoch ∛(wmax(1−β)/0.4) starts at β·wmax",
                  0.8, h.congestion_window("cubic1", 0.0, W_MAX, 1.0) / W_MAX, 1e-9),
        check_abs("[R] CUBIC″ with the corrected epoch starts at β·wmax", 0.7,
                  h.congestion_window("cubic2", 0.0, W_MAX, 1.0) / W_MAX, 1e-9),
        check_abs("[D] the printed CUBIC″ epoch ∛(wmax·β/0.4) starts at (1−β)·wmax, not β·wmax", 0.3,
                  h.congestion_window("cubic2", 0.0, W_MAX, 1.0, cubic_epoch="literal") / W_MAX, 1e-9),
        check_abs("CTCP's epoch constant 32(1−0.5^¼) is printed 5.1", 5.1, h.ctcp_epoch_constant(0.5), 0.05,
                  why="2 printed digits"),
        check_abs("CTCP reaches wmax at the end of its epoch", 1.0, df.loc["ctcp", "window_at_epoch_end_over_wmax"], 1e-9),
        check_rel("Reno's a from Table II by quadrature = 1/(3√3) (Table III)", 1 / (3 * 3 ** 0.5),
                  df.loc["reno", "a_quadrature"], 1e-6),
    ]
    fig = table_figure(["protocol", "w(t)", "β", "T", "μ/wmax", "a"],
                       [[p.LABEL[r["protocol"]], r["growth_function"], f"{r['beta']:g}", r["epoch"],
                         f"{r['mean_over_wmax_quadrature']:.4f}", f"{r['a_quadrature']:.4f}"] for r in rows],
                       "003 Table II: growth functions (μ/wmax and a by quadrature of eqs. 4–5)", width=8.5)
    return FigureOutput(
        data=df.reset_index(drop=True), checks=checks, figure=fig,
        inputs={"model": "bufsize.models.heterogeneous (Table II)", "w_max": W_MAX, "rtt_s": 1.0,
                "bic_epoch": "R (as printed)", "cubic_epoch": "corrected", "cubic_epoch_literal_T": T_literal},
        notes=["Table II's CUBIC epoch is misprinted (∛(wmax·β/0.4)); with it the curve would start at (1−β)·wmax. "
               "The corrected epoch is used for every computed value (MODELS.md [R]). BIC's T = R reaches only "
               "0.9·wmax, which is why its computed a differs from Table III (see table_003_3)."])
