"""004-Fig4: a TCP flow through a single router with buffer = delay-bandwidth product (B = 2Tp·C)."""

from __future__ import annotations

from bufsize.reproduce import _single_flow
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_range, check_rel
from bufsize.reproduce._p004 import halvings
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id="fig_004_04",
    paper_id="004-Fig4",
    title="A TCP flow through a single router with buffer = delay-bandwidth product (§2)",
    kind="simulation",
    kind_detail="simulation (+ App. B fluid model)",
    needs=("TCP-RENO", "MET-CWND", "M-004", "MET-QHIST", "SIM-Q", "TRF-BULK"),
    paper_cost="~0.2 M",
    quick_seconds=1.5,
)

B = 142

SETUP = (Setting("buffer", "142 packets = 2Tp·C (an ns-2 limit_: the engine holds 141 waiting)", "paper",
                 "The buffer size is exactly equal to the rule-of-thumb", "§2 (Fig. 4)"),
         ) + _single_flow.SETUP


def _checks(info):
    s, periods = info["summary"], info["periods"]
    df = info["df"]
    t_loss = df.t_s.values[halvings(df.t_s.values, df.cwnd_packets.values)]
    cycles_min = [float(df.queue_packets[(df.t_s > a) & (df.t_s < b)].min()) for a, b in zip(t_loss[:-1], t_loss[1:])]
    return [
        check_range("utilization ≈ 100 % (queue never stays empty)", 1.0, s["utilization"], 0.995, 1.0,
                    why="≥ 99.5 % assumed"),
        check_range("the queue almost hits zero once per loss cycle (largest of the full cycles' minimum queues, "
                    "packets)", None, max(cycles_min) if cycles_min else float("nan"), 0.0, 0.05 * B,
                    why="≤ 5 % of B assumed"),
        check_range("the link is idle only briefly: time with an empty queue", 0.0, s["frac_time_queue_empty"], 0.0, 0.02,
                    why="≤ 2 % of the time assumed"),
        check_rel("[C/TR] sawtooth period B²/(2C) + 2Tp·B = 30.2 s", 30.2, float(periods.mean()), 0.10,
                  why="±10 % assumed: packet-level overshoot of the fluid model"),
        check_range("the fluid model of Appendix B closely matches (mean |W_sim − W_fluid| / W̄)", 0.0,
                    info["fluid_error"], 0.0, 0.05, why="≤ 5 % assumed"),
    ]


def run(ctx) -> FigureOutput:
    from bufsize.reproduce._single_flow import run_single_flow

    return run_single_flow(ctx, buffer_packets=B, title="004 Fig. 4: one flow, B = 2Tp·C = 142 pkts", make_checks=_checks,
                           paper="≈ 100 %")
