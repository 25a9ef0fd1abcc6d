"""004-Fig9: ΣW(t) of all flows and the queue Q(t) offset by the pipe (the paper: 10 500 packets)."""

from __future__ import annotations

from bufsize.reproduce import _many_flows
from bufsize.reproduce._core import FigureOutput, FigureSpec, check_range, check_rel
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id="fig_004_09",
    paper_id="004-Fig9",
    title="Σ Wi(t) of all flows and the queue Q offset by 10 500 packets (§3.2)",
    kind="simulation",
    kind_detail="simulation",
    needs=("MET-SUMW", "TRF-BULK", "TCP-RENO", "MET-QHIST", "TRF-RTT", "SIM-Q"),
    paper_cost="shared w/ Fig8",
    quick_seconds=8.0,
)

SETUP = _many_flows.SETUP + (
    Setting("seed", "1 (one run, shared with Fig. 8; quick and full)", "ours",
            "the figure is a time series of one run; its checks are correlations within that run"),
)


def run(ctx) -> FigureOutput:
    import numpy as np
    import pandas as pd

    from bufsize.reproduce import _many_flows as mf
    from bufsize.reproduce._plot import figure, finish

    sc, res, w, q = mf.run_many(ctx)
    flight = res["cwnd_traces"].groupby("t_s", sort=True).flight.sum().reindex(w.index)
    df = pd.DataFrame({"t_s": w.index.values, "sum_cwnd": w.values, "sum_flight": flight.values,
                       "queue_packets": q.values})
    inside = (df.queue_packets > 0) & (df.queue_packets < mf.BUFFER)
    d = df[inside]
    corr = float(np.corrcoef(d.sum_cwnd, d.queue_packets)[0, 1]) if len(d) > 2 else float("nan")
    offset = float(np.mean(d.sum_cwnd - d.queue_packets)) if len(d) else float("nan")
    corr_f = float(np.corrcoef(d.sum_flight, d.queue_packets)[0, 1]) if len(d) > 2 else float("nan")
    offset_f = float(np.mean(d.sum_flight - d.queue_packets)) if len(d) else float("nan")
    resid_f = float(np.std(d.sum_flight - d.queue_packets)) if len(d) else float("nan")
    rtts = res["flows"].rtt_s.values
    pipe_harmonic = mf.C_PPS / float(np.mean(1.0 / rtts))
    fl = res["flows"]
    pipe_goodput = float((fl.goodput_bps / 8.0 / mf.PACKET_BYTES * fl.rtt_s).sum())
    checks = nine_checks(corr, offset, pipe_harmonic, loss_rate=res["summary"]["loss_rate"],
                         timeouts=res["summary"]["timeouts"], sum_cwnd_std=float(df.sum_cwnd.std()))
    fig, ax = figure()
    view = df[df.t_s < df.t_s.min() + 10.0]
    ax.plot(view.t_s, view.sum_cwnd, lw=0.8, label="Σ cwnd")
    ax.plot(view.t_s, view.queue_packets + offset, lw=0.8, label=f"queue + {offset:.0f} (measured offset)")
    ax.plot(view.t_s, view.sum_flight, lw=0.8, label="Σ outstanding (sent, not acked)")
    ax.axhline(offset + mf.BUFFER, color="k", ls="--", lw=0.8, label="buffer limit")
    ax.set_xlabel("time (s) (first 10 s of the measured window; data.csv has all)")
    ax.set_ylabel("packets")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    finish(fig, f"004 Fig. 9: ΣW and Q + offset, {mf.N} flows, B = {mf.BUFFER}")
    return FigureOutput(
        data=df, checks=checks, figure=fig,
        inputs={"scenarios": [sc.to_dict()], "seeds": [sc.seed], "sample_interval_s": mf.TRACE_S,
                "correlation": corr, "offset": offset, "correlation_outstanding": corr_f,
                "offset_outstanding": offset_f, "pipe_arithmetic": mf.BDP, "pipe_harmonic": pipe_harmonic},
        deviations=["Same run and assumed setup as 004-Fig8. " + mf.ENGINE_NOTE],
        notes=[f"With RTTs spread over 21–147 ms the pipe that ΣW − Q measures is C/E[1/RTT] = {pipe_harmonic:.0f} "
               f"packets (each flow's rate is W/RTT, so fast flows hold fewer packets per unit rate), not "
               f"C × mean RTT = 10 500: the offset check against 10 500 misses by "
               f"{100 * (offset / mf.BDP - 1):+.1f} % for that reason and the harmonic-mean check is the one that "
               f"tests eq. (4). The paper's 10 500 presumably came from its own RTT mix.",
               f"Against C × the harmonic-mean RTT the offset is {100 * (offset / pipe_harmonic - 1):+.1f} %. The "
               f"pipe the flows really hold, Σ goodput_i × RTT_i from the flows' measured goodputs, is "
               f"{pipe_goodput:.0f} packets ({pipe_goodput / res['summary']['utilization']:.0f} scaled to a full "
               f"link), so ΣW − Q overstates it by ≈ {offset - pipe_goodput / res['summary']['utilization']:.0f} "
               f"packets: windows counted in full by flows in recovery or waiting out a timeout (see below), the "
               f"same cause as the low correlation.",
               f"The correlation of ΣW and Q is only {corr:.2f}: ΣW spreads far beyond the queue's range "
               f"(σ(ΣW) = {df.sum_cwnd.std():.0f} packets against B = {mf.BUFFER}) because cwnd is not the number "
               f"of packets in flight — flows in fast recovery (inflated cwnd) or waiting out a timeout "
               f"({res['summary']['timeouts']} timeouts in the window) count their whole cwnd. Eq. (4) holds for "
               f"packets outstanding, so the window traces also record those (column flight, snd_nxt − snd_una): "
               f"Σ outstanding − Q averages {offset_f:.0f} packets, {offset_f - pipe_harmonic:.0f} more than the "
               f"pipe C × harmonic-mean RTT. Those are segments lost and not yet detected (eq. (4) counts them in W "
               f"too) at this run's {100 * res['summary']['loss_rate']:.2f} % loss with its timeouts, and their "
               f"number moves as much as the queue does: σ(Σ outstanding − Q) = {resid_f:.0f} packets, "
               f"σ(Q) = {d.queue_packets.std():.0f}, so even Σ outstanding tracks Q with a correlation of only "
               f"{corr_f:.2f}. ns-2's flows in the paper evidently lost far fewer packets at once; the quick and the "
               f"--full runs use the same B = 470 (FIGURES.md's setup)."])


#: what 004 leaves open about the run of Figs 8 and 9 (FIGURES.md), said in each miss's cause
UNSTATED = ("004 gives neither n, C, the RTTs nor B for Figs 8–9 ('The run that produced the figure cannot be pinned "
            "down', FIGURES.md); ours are assumed: C = 1 Gb/s, n = 500, RTTs 21–147 ms, B = 470")


def nine_checks(corr: float, offset: float, pipe_harmonic: float, *, loss_rate: float, timeouts: int,
                sum_cwnd_std: float) -> list:
    """The figure's checks from the run's numbers; a miss carries its cause."""
    from bufsize.reproduce import _many_flows as mf

    lossy = (f"this run loses {100 * loss_rate:.2f} % of its packets with {timeouts} timeouts, and a flow in fast "
             f"recovery or waiting out a timeout counts its whole cwnd in ΣW although it has fewer packets in flight")
    c_corr = check_range("Q(t) ≈ ΣW(t) − 2T̄p·C while 0 < Q < B: correlation of ΣW and Q", None, corr, 0.99, 1.0,
                         why="≥ 0.99 assumed")
    if not c_corr.passed:
        c_corr.because("setup", f"{UNSTATED}; {lossy}, so σ(ΣW) = {sum_cwnd_std:.0f} packets against B = {mf.BUFFER}.")
    c_mean = check_rel("the offset ΣW − Q equals 2T̄p·C = 10 500 packets (arithmetic mean RTT)", mf.BDP, offset, 0.02,
                       why="±2 % assumed")
    if not c_mean.passed:
        c_mean.because("setup", f"{UNSTATED}: with our RTT spread the pipe that ΣW − Q measures is C/E[1/RTT] = "
                       f"{pipe_harmonic:.0f} packets (each flow's rate is W/RTT), not C × mean RTT = {mf.BDP:.0f}; the "
                       f"paper's 10 500 is its own run's offset, whose RTT mix it does not give.")
    c_harm = check_rel("the offset ΣW − Q equals C × the harmonic-mean RTT (rate-weighted pipe; our reading)",
                       pipe_harmonic, offset, 0.02, why="±2 %")
    if not c_harm.passed:
        c_harm.because("setup", f"{UNSTATED}; {lossy}: eq. (4) neglects the dropped packets (its ε), which at our "
                       f"assumed setting's loss add {offset - pipe_harmonic:+.0f} packets to ΣW − Q.")
    return [c_corr, c_mean, c_harm]
