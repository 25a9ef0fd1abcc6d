"""004 Figs 4–6: one Reno flow through a router with B = 1, 0.5 and 1.5 × 2Tp·C."""

from __future__ import annotations

from bufsize.reproduce import _p004
from bufsize.reproduce._core import FigureOutput, pool_seeds
from bufsize.reproduce._setup import Setting

DURATION = 200.0
WARMUP = 20.0
#: the seeds every check is judged over (their mean, with the interval of the seeds' values); the
#: figure and data.csv show the first. The ns2 profile's 1-µs host jitter is the seeds' only random
#: input here, so they differ little, but a check that rests on one cycle's timing would show it.
SEEDS = (1, 2, 3)

#: the settings Figs 4–6 share (each adds its buffer)
SETUP = (
    Setting("flow", "1 long-lived Reno flow from t = 0", "paper",
            "Figure 4 illustrates the evolution of a single TCP Reno flow, using the topology shown in Figure 2",
            "§2 (Figs 5 and 6 change only the buffer)"),
    _p004.tcp_stack(),
    Setting("bottleneck capacity", "1000 packets/s (8 Mb/s of 1000-byte packets)", "figures",
            "FIGURES.md (Fig 4): 'Values (TR via MODELS A-20): C = 1000 packets/s, B = 2Tp·C = 142 packets'"),
    Setting("round-trip propagation delay", "142 ms (2Tp·C = 142 packets)", "figures",
            "the TR's 2Tp·C = 142 packets at C = 1000 packets/s (MODELS.md A-20)"),
    Setting("packet size", "1000 bytes", "ours",
            "004 and its TR give C in packets per second only; 1000 B (ns-2's default) makes C 8 Mb/s"),
    Setting("access link", "80 Mb/s (10 × C, the engine's default), its queue unlimited", "ours",
            "004 gives no rate, only that 'the sender's access link is much faster than the receiver's bottleneck "
            "link' (§1.2, Fig. 2); 10 × C is the engine's default"),
    Setting("run length", "200 s, the first 20 s (slow start) left out of the measurements", "ours",
            "FIGURES.md assumes ≈ 150 s (≥ 5 sawtooth periods of 30.2 s); 200 s leaves about 6 periods after the "
            "first slow start"),
    Setting("seeds", "1, 2, 3 (checks on their mean; the figure shows seed 1)", "ours",
            "the ns2 profile's 1-µs host jitter is the only random input; three seeds show a check resting on one "
            "cycle's timing"),
    Setting("trace interval", "20 ms (window and queue)", "ours", "fine against the 30-s sawtooth; 004 plots the "
            "traces without a sampling interval"),
)


def run_single_flow(ctx, *, buffer_packets: int, title: str, make_checks, paper: str = "",
                    queue_marks: tuple[tuple[float, str], ...] = ()) -> FigureOutput:
    """One Reno flow through the single-router topology of 004 §2. ``paper``: the paper's number for the
    title (beside ours); ``queue_marks``: (packets, label) of the paper's queue levels, drawn on the queue panel."""
    import numpy as np
    import pandas as pd

    from bufsize.models import appenzeller as ap
    from bufsize.reproduce import _p004 as p
    from bufsize.reproduce._plot import figure, finish
    from bufsize.reproduce._sim import run_scenarios

    scs = [p.single_flow_scenario(buffer_packets, duration=DURATION, warmup=WARMUP, seed=seed) for seed in SEEDS]
    results = run_scenarios(scs, ctx, tables=("queue_trace", "cwnd_traces"))

    def info_of(res):
        q = res["queue_trace"]
        c = res["cwnd_traces"]
        df = pd.DataFrame({"t_s": c.t_s.values, "cwnd_packets": c.cwnd.values,
                           "queue_packets": np.interp(c.t_s.values, q.t_s.values, q.queue_packets.values)})
        tf, wf, err = p.overlay(df.t_s, df.cwnd_packets, p.BDP, buffer_packets, p.C_PPS)
        df["fluid_cwnd_packets"] = wf
        df["fluid_queue_packets"] = np.maximum(wf - p.BDP, 0.0)
        idx = p.halvings(df.t_s.values, df.cwnd_packets.values)
        return {"summary": res["summary"], "periods": np.diff(df.t_s.values[idx]), "fluid_error": err, "df": df,
                "fluid_period": p.fluid_period(p.BDP, buffer_packets, p.C_PPS),
                "model_utilization": ap.single_flow_utilization(buffer_packets, p.BDP)}

    infos = [info_of(res) for res in results]
    checks = pool_seeds(SEEDS, [make_checks(info) for info in infos])
    df, s = infos[0]["df"], infos[0]["summary"]

    fig, (top, bottom) = figure(2, 1, height=6.6, sharex=True)
    top.plot(df.t_s, df.cwnd_packets, lw=1, label="simulation (Reno)")
    top.plot(df.t_s, df.fluid_cwnd_packets, lw=1, ls="--", label="fluid model (App. B)")
    top.axhline(p.BDP, color="grey", lw=0.8, ls=":", label=f"2Tp·C = {p.BDP:g} packets")
    top.set_ylabel("window W (packets)")
    bottom.plot(df.t_s, df.queue_packets, lw=1, label="simulation")
    bottom.plot(df.t_s, df.fluid_queue_packets, lw=1, ls="--", label="fluid model")
    bottom.axhline(buffer_packets, color="grey", lw=0.8, ls=":", label=f"buffer B = {buffer_packets} packets")
    for level, text in queue_marks:
        bottom.axhline(level, color="C3", lw=1.2, ls="-.", label=text)
    bottom.set_ylabel("queue Q (packets)")
    bottom.set_xlabel("time (s)")
    # one legend for both panels, below them: inside, it hides parts of the sawtooth
    handles = top.get_legend_handles_labels()[0] + bottom.get_legend_handles_labels()[0]
    labels = ["window: " + h.get_label() for h in top.get_legend_handles_labels()[0]] + [
        "queue: " + h.get_label() for h in bottom.get_legend_handles_labels()[0]]
    bottom.legend(handles, labels, fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.3), ncol=2)
    for ax in (top, bottom):
        ax.grid(alpha=0.3)
    finish(fig, f"{title}: utilization {s['utilization']:.4f} (seed {SEEDS[0]})" + (f" (paper: {paper})" if paper else ""))
    return FigureOutput(
        data=df, checks=checks, figure=fig,
        inputs={"scenarios": [sc.to_dict() for sc in scs], "seeds": list(SEEDS), "bdp_packets": p.BDP,
                "buffer_packets": buffer_packets,
                "measured_window_s": [WARMUP, DURATION]},
        deviations=["bufsize's packet-level engine instead of ns-2; C = 1000 packets/s of 1000 B (8 Mb/s) and "
                    "2Tp·C = 142 packets from the TR (MODELS.md A-20); 200 s with the first 20 s (slow start) "
                    "left out of the measurements. Every check is judged on the mean over seeds "
                    f"{', '.join(str(x) for x in SEEDS)} (the figure and data.csv show seed {SEEDS[0]}). --quick and "
                    "--full are the same (the runs take under a second)."])
