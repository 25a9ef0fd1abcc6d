"""001-Fig7: R(S) with size-limited short TCP transfers (mice) on a congested path (§VI-B).

As Fig. 5 (:mod:`bufsize.reproduce._p001_cross`, same mouse count) with sleeps U[2, 2.75] s, which
saturate the tight link (A ≈ 0). Fig. 6's congestion-limited target (20 persistent flows, the largest
S) is run again here, per Bt, for the comparison of the MFTs.
"""

from __future__ import annotations

from bufsize.reproduce import _p001_cross as p001
from bufsize.reproduce._core import FigureOutput, FigureSpec
from bufsize.reproduce._setup import Setting

SPEC = FigureSpec(
    id='fig_001_07',
    paper_id='001-Fig7',
    title='Cross traffic: size-limited short TCP transfers (congested path) (§VI-B)',
    kind='simulation',
    kind_detail='simulation',
    needs=('TRF-MICE',),
    paper_cost='≈ 0.12 G (×2)',
    quick_seconds=30.0,
)

SETUP = p001.SETUP_S001 + (p001.setting_s_sweep("mice_congested"),) + p001.setup_mice(
    "The mice are again generated from 2000 TCP Reno sources", "§VI-B") + (
    Setting("sleep between transfers", "U[2, 2.75] s", "paper",
            "I varies uniformly between 2 to 2.75 seconds to saturate the tight link of the path", "§VI-B"),
    Setting("loss and RTT after the start", "the target's own loss rate and mean RTT, at the largest S", "ours",
            "001 gives 'The loss rate and average RTT after the target transfer starts' (§VI-B) without saying whose "
            "loss; ours is the target's, as for Fig. 6"),
    Setting("Fig. 6 comparison runs", f"Fig. 6's cross traffic (20 uncapped Reno flows per direction) with the target "
            f"at the largest S ({max(p001.S_FULL)}; quick: {max(p001.SCALE['quick']['s'])} packets), seed 1, per Bt",
            "ours", "001 says only that the MFT here is 'quite lower' than in Fig. 6 (§VI-B); one congestion-limited "
            "run per Bt gives Fig. 6's MFT to compare with"),
)

PAPER_LOSS_RTT = {313: (0.015, 122.0), 625: (0.0085, 148.0), 1250: (0.0006, 193.0)}


def _bt(c) -> int:
    """The tight-link buffer a per-Bt check is about (its claim reads "Bt = N: ...")."""
    return int(c.claim.split("Bt = ")[1].split(":")[0])


def run(ctx) -> FigureOutput:
    from bufsize.reproduce import _p001_cross as p
    from bufsize.reproduce._core import check_true
    from bufsize.reproduce._sim import run_scenarios
    from bufsize.reproduce.fig_001_06 import congested_checks

    runs, paths = p.sweep(ctx, "mice_congested")
    cur = p.curve(runs)
    mt = p.mft_table(cur).merge(paths, on="buffer_packets")
    by = {int(r.buffer_packets): r for r in mt.itertuples()}
    s_vals = sorted(cur.socket_buffer_packets.unique())
    checks = congested_checks(p, cur, mt, by, PAPER_LOSS_RTT, plateau_max=s_vals[1],
                              plateau_claim="the target is congestion-limited for practically any S")
    cfg = p.SCALE[ctx.mode]
    f6 = run_scenarios([p.scenario("tcp_congested", bt, socket_buffer=max(cfg["s"]), measured=cfg["measured"],
                                   warmup=cfg["warmup"], seed=cfg["seeds"][0]) for bt in p.BUFFERS], ctx, tables=("flows",))
    fig6 = {bt: float(r["flows"].iloc[0]["goodput_bps"]) * p.PACKET_BYTES / (p.PACKET_BYTES - 40) / 1e6
            for bt, r in zip(p.BUFFERS, f6)}
    low = [by[bt].mft_mbps < fig6[bt] for bt in p.BUFFERS]
    checks.append(check_true("The MFT is 'quite lower' than in Fig. 6 (no number): " + "; ".join(
        f"Bt {bt}: {by[bt].mft_mbps:.2f} vs {fig6[bt]:.2f} Mb/s" for bt in p.BUFFERS), all(low),
        "lower at every Bt (Fig. 6's congestion-limited target, seed 1, largest S)", value=sum(low)))
    fig = p.plot(cur, "001 Fig. 7: R(S), TCP mice (congested)")
    notes = ["Per Bt (cross traffic alone; the target at the largest S): " + "; ".join(
        f"Bt {int(r.buffer_packets)}: cross utilization {r.cross_utilization:.3f}, loss {r.cross_loss_rate:.2%}; "
        f"target RTT {r.rtt_ms_largest_s:.0f} ms, its loss {r.target_loss_largest_s:.2%}, tight-link loss "
        f"{r.link_loss_largest_s:.2%}; R̂ = {r.mft_mbps:.2f} Mb/s at Ŝ = {r.s_hat_packets:.0f}, plateau from "
        f"S = {r.plateau_from_packets:.0f}" for r in mt.itertuples()),
        "Throughput is the target's data packets in wire bits (goodput × 1000/960)."]
    b = p.BACKING["fig7_mice_loss"]
    why = (lambda c: "Our mice congest the tight link much harder than 001's: tight-link loss " + ", ".join(
        f"{r.link_loss_largest_s:.2%}" for r in mt.itertuples()) + " (Bt 313/625/1250) against 001's 1.5/0.85/0.06 %, "
        "and the buffers stay nearly full (cross traffic alone: mean queue " + ", ".join(
            f"{r.cross_mean_queue_packets:.0f}" for r in mt.itertuples()) + " packets), hence the higher RTTs. The mice's "
        f"loss recovery decides how hard they push: with the reproduction's stack before 2026-11-28 (min RTO "
        f"200 ms, initial RTO 1 s, initial window 2) the mice alone lose {b['defaults']:.2%} at Bt 625; with min RTO 1 s and initial RTO 3 s "
        f"{b['rto_1s_3s']:.2%}; with those and initial window 1 {b['rto_1s_3s_iw1']:.2%} (measured). 001 does not give "
        "its NS TCP settings, and its 2000 mice would load the link even more here (the count is calibrated to Fig. 5's "
        "70 %).")
    reasons = [
        ("loss rate", why), ("average RTT", why),
        ("congestion-limited", lambda c: f"R(S) at Bt {_bt(c)}: " + ", ".join(
            f"{int(k)}: {v:.2f}" for k, v in cur[cur.buffer_packets == _bt(c)].set_index("socket_buffer_packets")
            .throughput_mbps.items()) + f" Mb/s; the 0.9·R̂ band is {0.1 * by[_bt(c)].mft_mbps:.3f} Mb/s wide here: at "
            "about 0.3 Mb/s the target's throughput is set by a handful of timeouts per minute (target_drops in "
            f"data.csv), so {p.interval_words(ctx)} cannot resolve a 10 % band.")]
    notes += p.miss_notes(checks, reasons)
    setting = " " + p.stack_text() + ". " + p.reverse_words() + "."
    p.give_causes(checks, [(k, "setup", (lambda c, t=t: (t(c) if callable(t) else t) + setting)) for k, t in reasons]
                  + [("quite lower", "setup", "the congested mice's loss recovery and count (above);" + setting)])
    return FigureOutput(data=cur, checks=checks, figure=fig, extra_tables={"paths": mt, "runs": runs},
                        inputs={**p.template_inputs(ctx, "mice_congested"),
                                "fig6_comparison_runs": "tcp_congested, largest S"},
                        deviations=p.common_deviations(ctx, "mice_congested"), notes=notes + [p.BACKING_NOTE])
