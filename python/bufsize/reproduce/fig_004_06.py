"""004-Fig6: a TCP flow through an over-buffered router (B = 1.5 × 2Tp·C, assumed)."""

from __future__ import annotations

from bufsize.reproduce._core import FigureOutput, FigureSpec, check_range, check_rel

SPEC = FigureSpec(
    id="fig_004_06",
    paper_id="004-Fig6",
    title="A TCP flow through an over-buffered router (§2)",
    kind="simulation",
    kind_detail="simulation",
    needs=("TCP-RENO", "MET-CWND", "MET-QHIST", "SIM-Q", "TRF-BULK", "M-004"),
    paper_cost="~0.2 M",
    quick_seconds=1.5,
)

B = 213
BDP = 142


def _checks(info):
    s = info["summary"]
    df = info["df"]
    qmin = float(df.queue_packets.min())
    return [
        check_range("full utilization", 1.0, s["utilization"], 0.999, 1.0, why="≥ 99.9 % assumed"),
        check_range("the queue never empties", None, s["frac_time_queue_empty"], 0.0, 0.0, why="exactly 0"),
        check_rel("[C, fluid] minimum queue ≈ (B − BDP)/2 = 35.5 packets (a constant extra delay)", 35.5, qmin, 0.15,
                  why="±15 % assumed"),
    ]


def run(ctx) -> FigureOutput:
    from bufsize.reproduce._single_flow import run_single_flow

    out = run_single_flow(ctx, buffer_packets=B, title="004 Fig. 6: one flow, B = 1.5·2Tp·C = 213 pkts",
                          make_checks=_checks)
    out.deviations.append("The paper does not state B; 1.5 × 2Tp·C = 213 packets assumed (FIGURES.md).")
    return out
