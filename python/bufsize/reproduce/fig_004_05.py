"""004-Fig5: a TCP flow through an under-buffered router (B = 0.5 × 2Tp·C, assumed)."""

from __future__ import annotations

from bufsize.reproduce import _single_flow
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_abs, check_range
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id="fig_004_05",
    paper_id="004-Fig5",
    title="A TCP flow through an under-buffered router (§2)",
    kind="simulation",
    kind_detail="simulation",
    needs=("M-001", "TCP-RENO", "MET-CWND", "MET-QHIST", "SIM-Q", "TRF-BULK", "M-004"),
    paper_cost="~0.2 M",
    quick_seconds=1.5,
)

B = 71

SETUP = (Setting("buffer", "71 packets = 0.5 × 2Tp·C (an ns-2 limit_: the engine holds 70 waiting)", "figures",
                 "FIGURES.md: 'Value unspecified: 0.5 × BDP = 71 packets (assumed)'; 004 says only that 'the buffer "
                 "size is less than RTT × C' (§2)"),
         ) + _single_flow.SETUP


def _checks(info):
    s = info["summary"]
    return [
        check_abs("[C] 001 eq. (17) at B = 0.5·BDP: utilization 96.4 %", 0.964, s["utilization"], 0.015,
                  why="±1.5 pt assumed"),
        check_abs("[C] our eq. (17) at B = 0.5·BDP gives the paper's 96.4 %", 0.964, info["model_utilization"], 0.0005,
                  why="½ unit of the paper's last digit", kind="formula"),
        check_range("after each halving the buffer empties and the link idles (time with an empty queue)", None,
                    s["frac_time_queue_empty"], 0.05, 1.0, why="≥ 5 % of the time assumed"),
        check_range("the fluid model of Appendix B closely matches (mean |W_sim − W_fluid| / W̄)", 0.0,
                    info["fluid_error"], 0.0, 0.05, why="≤ 5 % assumed"),
    ]


def run(ctx) -> FigureOutput:
    from bufsize.reproduce._single_flow import run_single_flow

    out = run_single_flow(ctx, buffer_packets=B, title="004 Fig. 5: one flow, B = 0.5·2Tp·C = 71 pkts",
                          make_checks=_checks, paper="[C] 96.4 %")
    out.deviations.append("The paper does not state B; 0.5 × 2Tp·C = 71 packets assumed (FIGURES.md).")
    return out
