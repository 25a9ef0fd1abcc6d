"""Shared setup of paper 001's §V–VI simulations (FIGURES.md S001; Figs. 3–7): R(S), the throughput of
one bulk TCP target as a function of its socket buffer S, through a 50 Mb/s tight link with cross
traffic, for the tight-link buffers Bt = 313, 625 and 1250 packets (½, 1 and 2 × C·Tm).

The path (001's Fig. 2; the links around the tight one are unspecified, so they are uncongested
1 Gb/s links that only add delay): the target enters over ``acc`` (25 ms) and crosses ``tight``
(50 Mb/s, 25 ms, drop-tail Bt packets); its ACKs return over ``tightr`` (50 Mb/s, drop-tail Bt
packets: the reverse direction of the tight link) and ``racc`` (50 ms), so Tm = 100 ms and
C·Tm = 625 packets of 1000 B. The cross traffic of each figure enters at the tight link in the
forward direction, and the same sources run in the reverse direction through ``tightr`` (001: "the
reverse path carries the same cross traffic"); persistent cross flows have their own 1 Gb/s edge
links so that every cross flow's two-way propagation delay is 100 ms.

Cross-traffic kinds (``KINDS``): ``udp`` (Fig. 3: 10 Pareto-gap sources, shape 1.5, 35 Mb/s in all),
``tcp_winlim`` (Fig. 4: 20 Reno flows capped at 22 packets), ``mice`` (Fig. 5: 2000 Reno mice,
10–15 packets then a U[4.25, 4.75] s sleep), ``tcp_congested`` (Fig. 6: 20 Reno flows, no cap),
``mice_congested`` (Fig. 7: mice with U[2, 2.75] s sleeps). Target and cross TCP are Reno without
SACK (001 uses NS Reno; the variant of the target is not stated).

Measurements (MET-PATH): per Bt, a run of the cross traffic alone gives the available bandwidth
A = C·(1 − utilization) and the mean available buffer B̃t = Bt − mean queue; the exogenous RTT Te is
the mean RTT of the smallest-S target (a few packets per RTT, so it hardly disturbs the path); Ta
and the loss rate after the target starts come from each target run. EXP-MFT: R̂ = max over the
S sweep, Ŝ its argmax (:func:`mft`).
"""

from __future__ import annotations

import math
from typing import Any, Iterable, Sequence

from bufsize.reproduce._setup import Setting

CAPACITY = 50e6
RTT = 0.100
PACKET_BYTES = 1000
C_PPS = CAPACITY / 8 / PACKET_BYTES   # 6250 packets/s
C_TM = C_PPS * RTT                    # 625 packets
BUFFERS = (313, 625, 1250)
WARMUP = 50.0

#: 001's 2000 mouse sources per direction load the tight link to 85 % here, not the 70 % the paper states
#: (mice alone, Bt 313/625/1250, 60 s after 30 s, no loss: 0.845/0.846/0.846; 1600 give 0.68, 1700 0.72);
#: 1650 give 0.700. The figures use MICE_CALIBRATED so that A ≈ 15 Mb/s as in the paper (a stated deviation).
#: Measured 2026-11-29 with the present stack (the ns2 profile's initial window 1 and jitter, ns-2's buffer
#: meaning); with the stack before, 2000 gave 0.860 and the count was 1600 (0.692).
MICE_PAPER = 2000
MICE_CALIBRATED = 1650
MICE_PAPER_UTILIZATION = 0.846
MICE_CALIBRATED_UTILIZATION = 0.700

KINDS = {
    "udp": {"udp_sources": 10, "udp_bps": 35e6, "shape": 1.5},
    "tcp_winlim": {"tcp": 20, "max_window": 22},
    "mice": {"mice": MICE_CALIBRATED, "sleep": "4.25s..4.75s"},
    "tcp_congested": {"tcp": 20, "max_window": None},
    "mice_congested": {"mice": MICE_CALIBRATED, "sleep": "2s..2.75s"},
}

#: S sweeps (packets). Full: 25 values 20–1500, denser below 400 (FIGURES.md S001, assumed).
S_FULL = (20, 40, 60, 80, 100, 125, 150, 175, 200, 225, 250, 275, 300, 350, 400, 450, 500, 600, 700,
          800, 900, 1000, 1150, 1300, 1500)
#: scale per mode: S values, warm-up and measured seconds, seeds
#: (quick: a denser grid for the cheap UDP and window-limited sweeps, whose MFT sits on a narrow peak)
SCALE = {"quick": {"s": (20, 80, 150, 250, 350, 550, 850, 1300), "warmup": 25.0, "measured": 60.0, "seeds": (1,),
                   "s_dense": (20, 80, 150, 200, 250, 300, 350, 400, 450, 550, 650, 800, 1000, 1300)},
         "full": {"s": S_FULL, "warmup": WARMUP, "measured": 200.0, "seeds": (1, 2, 3), "s_dense": S_FULL}}
DENSE = ("udp", "tcp_winlim")
#: quick: the mice sweep adds 200 and 300 packets around its peak
S_QUICK_MICE = (20, 80, 150, 200, 250, 300, 350, 550, 850, 1300)


def s_values(ctx, kind: str) -> tuple[int, ...]:
    """The socket-buffer values of ``kind``'s sweep in ``ctx``'s mode."""
    cfg = SCALE[ctx.mode]
    if ctx.quick and kind == "mice":
        return S_QUICK_MICE
    return tuple(cfg["s_dense"] if kind in DENSE else cfg["s"])


# ----------------------------------------------------------------------------- where the settings come from

#: the ns2 profile as S001 runs it (every flow a SACK-less Reno agent), in words
NS2_RENO = ("ns-2.35's Agent/TCP/Reno rules through the ns2 profile (_stack): bugfix_ on, no SACK, no PRR, an ACK "
            "per segment (40-B ACKs), a SYN then initial window 2 (run as initial window 1), min RTO 200 ms, initial "
            "RTO 3 s, max RTO 60 s, limited transmit, ns-2's halving, 1 µs of host jitter")

#: S001's settings, shared by Figs. 3–7 (each item adds its cross traffic and its S sweep)
SETUP_S001 = (
    Setting("tight link C and minimum RTT Tm", f"{CAPACITY / 1e6:g} Mb/s, {RTT * 1e3:g} ms (C·Tm = {C_TM:g} packets)",
            "paper", r"The structural path characteristics are $C=50\text{Mbps}$, $T_m=100\text{msec}$, and so "
            "$CT_m=625,000$ bytes or 625 data packets", "§V"),
    Setting("other links and the delay split",
            "target: 1 Gb/s access link (25 ms) → tight link (25 ms); its ACKs: the tight link's reverse direction "
            "(no delay) → 1 Gb/s return link (50 ms); persistent cross flows: their own 1 Gb/s edge links, the same "
            "100 ms", "figures",
            "FIGURES.md (S001): 'Other links' capacities and the delay split are unspecified. Assume access links "
            "100 Mb/s–1 Gb/s that never drop (assumed)'; the split of the 100 ms is ours"),
    Setting("tight-link buffer Bt", "313, 625, 1250 packets (½, 1, 2 × C·Tm); ns-2 limit_ values, so the engine "
            "holds Bt − 1 waiting", "paper",
            "we simulate three tight link buffer sizes … 313 packets (under-buffered) … 625 packets, (well-buffered) … "
            "1250 packets (over-buffered)", "§V"),
    Setting("queue discipline", "drop-tail, both directions of the tight link", "paper",
            "Arriving packets are discarded in a Drop-Tail manner when the corresponding buffer is full.", "§II"),
    Setting("packet size", f"{PACKET_BYTES} B, every data packet (target, TCP and UDP cross traffic)", "paper",
            "All data packets are 1000 bytes long.", "§V"),
    Setting("reverse-path cross traffic", "the figure's cross sources run again in the reverse direction (through "
            "the tight link's reverse side), where the target's ACKs queue behind them", "paper",
            "The reverse path carries the same cross traffic as the forward path.", "§V"),
    Setting("reverse tight-link buffer", "Bt packets, drop-tail, counted in packets (40-B ACKs and 1000-B data alike)",
            "ours", "001 gives no size or discipline for the reverse direction; the forward Bt, as the same link's "
            "other side"),
    Setting("target flow", "one bulk Reno flow without SACK, window capped at S (max_window); starts when the "
            "warm-up ends", "figures",
            "FIGURES.md (S001): 'Target TCP variant unspecified; NS Reno, like the cross traffic (assumed)'"),
    Setting("TCP stack (every flow)", NS2_RENO, "ours",
            "001 names only its simulator ('NS simulations', §V) and its cross flows' variant ('TCP Reno'); it gives "
            "no ns-2 version or agent settings, so ns-2.35's defaults stand in"),
    Setting("run length", f"{WARMUP:g}-s cross-traffic warm-up, then the target is measured for "
            f"{SCALE['full']['measured']:g} s (quick: {SCALE['quick']['measured']:g} s after "
            f"{SCALE['quick']['warmup']:g} s)", "figures",
            "FIGURES.md (S001): 'Transfer length in §V–VI unspecified: measure over 200 s after a 50 s cross-traffic "
            "warm-up (assumed)'"),
    Setting("seeds", "1, 2, 3; each R(S) point the mean over them (quick: 1)", "ours",
            "001 shows one curve per Bt and says nothing of repetitions; three seeds give the mean and its spread at "
            "an affordable cost"),
    Setting("available bandwidth A", "C·(1 − ρ), ρ the tight link's utilization in a run of the cross traffic alone "
            "(per Bt and seed, the same interval)", "paper",
            r"The available bandwidth A_i of link i is then defined as A_i = C_i \times (1 - \rho_i)", "§II"),
    Setting("available buffer B̃t", "Bt − the mean queue of the cross-traffic-alone run", "paper",
            r"while $\tilde{B}_t \leq B_t$ is the average available buffer size at the tight link prior to the target "
            "transfer", "§II"),
    Setting("exogenous RTT Te", "the mean RTT of the target with the smallest S (20 packets)", "ours",
            "001 defines Te as the sum of the path's average delays before the target starts (§II); a 20-packet "
            "target hardly loads the path, and its RTT includes both directions' queueing"),
    Setting("throughput R(S)", "the target's data packets in wire bits over the measured interval (goodput × "
            "1000/960), Mb/s", "ours",
            "001 plots the 'target transfer throughput'; counting whole 1000-B packets puts R in the unit of C and A"),
)


def setting_s_sweep(kind: str) -> Setting:
    """The S sweep of ``kind``'s figure, full scale and quick."""
    q = SCALE["quick"]
    quick = S_QUICK_MICE if kind == "mice" else q["s_dense"] if kind in DENSE else q["s"]
    return Setting("socket buffer S (the sweep)",
                   f"{len(S_FULL)} values, {S_FULL[0]}–{S_FULL[-1]} packets, denser below 400, as the target's "
                   f"window cap (quick: {len(quick)} values, {quick[0]}–{quick[-1]})", "figures",
                   "FIGURES.md (S001): 'S sweep unspecified: about 25 values, 20–1500 packets, denser below 400 "
                   "(assumed)'")


def setting_persistent_rtt(paper_words: str, where: str) -> Setting:
    """The persistent cross flows' RTT (Figs. 4 and 6): 001's "average RTT", read as their propagation delay."""
    return Setting("cross flows' RTT", "100 ms two-way propagation for every cross flow (their mean RTT is that plus "
                   "the queueing)", "ours",
                   f"001: '{paper_words}' ({where}): an average, and whether it includes queueing is not said; we make "
                   "100 ms every flow's propagation delay (= Tm), so their mean RTT lies above 100 ms")


#: the persistent cross flows' start times (Figs. 4 and 6)
SETTING_PERSISTENT_STARTS = Setting(
    "cross flows' start times", "0, 0.05, …, 0.95 s (50 ms apart), in both directions", "ours",
    "001 does not say; staggered starts keep the 20 flows from starting in lockstep, long before the warm-up ends")


def setup_mice(paper_count_words: str, where: str) -> tuple[Setting, ...]:
    """The mouse sources of Figs. 5 and 7 (the sleep is the figure's own setting)."""
    return (
        Setting("mouse sources", f"{MICE_CALIBRATED} per direction, one group at the tight link", "ours",
                f"001 has 2000 ('{paper_count_words}', {where}); 2000 load our tight link to "
                f"{MICE_PAPER_UTILIZATION:.1%} with Fig. 5's sleeps, not the 70 % 001 states, and {MICE_CALIBRATED} give "
                f"{MICE_CALIBRATED_UTILIZATION:.1%} (measured, no target); Fig. 7 keeps the same count"),
        Setting("mouse transfer size", "10–15 data packets, each transfer a new Reno connection", "paper",
                "that transfer 10-15 data packets", where),
        Setting("mouse size distribution", "uniform over the integers 10–15", "figures",
                "FIGURES.md (001-Fig5): 'Each source transfers 10–15 packets (uniform integer, assumed)'"),
        Setting("mice's RTT", "100 ms two-way propagation", "ours",
                "001 gives none for the mice; 100 ms as the path's Tm and the other cross flows'"),
        Setting("mice's first transfers", "each mouse's first transfer after one sleep drawn from its distribution",
                "ours", "001 does not say; the engine's default for closed-loop users spreads the first transfers over "
                "the first sleep, well inside the warm-up"),
    )


def _tcp(max_window: int | None = None) -> dict[str, Any]:
    t: dict[str, Any] = {"cc": "reno", "sack": False, "prr": False, "packet_size": f"{PACKET_BYTES}B"}
    if max_window is not None:
        t["max_window"] = int(max_window)
    return t


def scenario(kind: str, buffer_packets: int, *, socket_buffer: int | None, measured: float,
             warmup: float = WARMUP, seed: int = 1, target: bool = True, mice_count: int | None = None,
             reverse: bool = True):
    """S001 with the cross traffic ``kind``, tight-link buffer ``buffer_packets`` in both directions and
    (``target``) one Reno target capped at ``socket_buffer`` packets (None: no cap) that starts at the
    end of the ``warmup``; measurements cover the following ``measured`` seconds. ``mice_count``
    overrides the number of mouse sources per direction (quick runs may scale it; default 2000).
    ``reverse`` False leaves the reverse-path cross traffic out (a sensitivity setting, not 001's)."""
    from bufsize.reproduce import _stack

    if kind not in KINDS:
        raise ValueError(f"unknown cross-traffic kind {kind!r} (known: {', '.join(KINDS)})")
    x = KINDS[kind]
    q = f"{_stack.ns2_limit(buffer_packets)}pkt"
    links = [{"name": "acc", "rate": "1Gbps", "delay": "25ms"},
             {"name": "tight", "rate": CAPACITY, "delay": "25ms", "buffer": q},
             {"name": "tightr", "rate": CAPACITY, "buffer": q},
             {"name": "racc", "rate": "1Gbps", "delay": "50ms"}]
    flows: list[dict[str, Any]] = []
    if target:
        flows.append({"path": ["acc", "tight"], "ack_path": ["tightr", "racc"], "start": f"{warmup:g}s",
                      "tcp": _tcp(socket_buffer)})
    d: dict[str, Any] = {"seed": seed, "duration": f"{warmup + measured:g}s", "warmup": f"{warmup:g}s",
                         "bottleneck": "tight",
                         "measure": {"phase_trace_interval": None, "queue_histogram": False}}
    if "tcp" in x:
        # forward cross flows: xin -> tight, ACKs tightr -> xout; reverse ones: rxin -> tightr, ACKs tight -> rxout
        links += [{"name": "xin", "rate": "1Gbps", "delay": "25ms"},
                  {"name": "xout", "rate": "1Gbps", "delay": "50ms"},
                  {"name": "rxin", "rate": "1Gbps", "delay": "50ms"},
                  {"name": "rxout", "rate": "1Gbps", "delay": "25ms"}]
        for i in range(x["tcp"]):
            start = f"{0.05 * i:g}s"
            flows.append({"path": ["xin", "tight"], "ack_path": ["tightr", "xout"], "start": start,
                          "tcp": _tcp(x["max_window"])})
            if reverse:
                flows.append({"path": ["rxin", "tightr"], "ack_path": ["tight", "rxout"], "start": start,
                              "tcp": _tcp(x["max_window"])})
    if "mice" in x:
        n = int(mice_count if mice_count is not None else x["mice"])
        d["mice"] = [{"count": n, "path": ["tight"], "ack_path": ["tightr"], "rtt": "100ms", "sleep": x["sleep"],
                      "tcp": _tcp(), "name": "mice"}]
        if reverse:
            d["mice"].append({"count": n, "path": ["tightr"], "ack_path": ["tight"], "rtt": "100ms",
                              "sleep": x["sleep"], "tcp": _tcp(), "name": "rmice"})
    if "udp_sources" in x:
        per = x["udp_bps"] / x["udp_sources"]
        pat = {"pareto": {"shape": x["shape"]}}
        d["udp"] = ([{"rate": per, "packet_size": f"{PACKET_BYTES}B", "path": ["tight"], "pattern": pat,
                      "name": f"udp{i}"} for i in range(x["udp_sources"])] +
                    [{"rate": per, "packet_size": f"{PACKET_BYTES}B", "path": ["tightr"], "pattern": pat,
                      "name": f"rudp{i}"} for i in range(x["udp_sources"] if reverse else 0)])
    d["links"] = links
    d["flows"] = flows
    return _stack.from_dict(d)


#: Where BACKING comes from. The numbers were measured with the engine of commit 6548521 and carried over
#: unchanged since (not re-measured); ``engine_fingerprint`` is :func:`bufsize.reproduce._sim.engine_fingerprint`
#: of the engine they were carried over to. The test suite recomputes the fingerprint: when the engine's results
#: change, the test fails and BACKING must be re-measured (and this record updated).
#: Carried over to the engine of 5bc5985 (fingerprint 4fc29ca0db27127b -> aa3c52f64d5f999b) without
#: re-measuring: that change alters SACK senders only (FlightSize never above the window), these runs use
#: none, and the fingerprint's two SACK-less scenarios came out bit-identical on both engines.
BACKING_SOURCE = {"measured_at_commit": "6548521", "engine_fingerprint": "aa3c52f64d5f999b"}
BACKING_NOTE = ("The backing numbers quoted in these notes are separate runs, not re-run by this figure: measured with "
                "the engine of commit 6548521 and the reproduction's stack of then (_stack.LEGACY: initial RTO 1 s, ssthresh "
                "from the data in flight, no limited transmit; the figures now run ns-2's rules) and carried over "
                "unchanged (engine fingerprint "
                f"{BACKING_SOURCE['engine_fingerprint']}); the test suite fails once the engine's results change, so "
                "they cannot go stale unnoticed, but they are indicative, not regenerated evidence.")

#: Separate measurements on this engine that back the notes of the misses (seed 1, run with the
#: functions of this module when the figures were written; not re-run by the figures). Throughput in
#: Mb/s of wire bits, RTT ms. See BACKING_SOURCE.
BACKING = {
    # Fig. 4 at the paper's scale (200 s after 50 s), plain Reno target: the largest lossless R(S)
    "fig4_paper_scale": {313: (300, 19.73), 625: (500, 26.01), 1250: (800, 31.68)},
    # the same with a Reno+SACK target (the best R(S) over S, losses included)
    "fig4_paper_scale_sack": {313: (350, 20.15), 625: (500, 26.01), 1250: (1000, 32.69)},
    # Fig. 4, 200 s after 50 s, without the reverse-path cross flows: no loss up to the largest S tried
    "fig4_no_reverse": {313: (450, 25.19), 625: (700, 30.59), 1250: (1150, 36.07)},
    # Fig. 5 at the paper's scale (200 s after 50 s; S = 150, 200, 250, 300, 400): the best R(S)
    "fig5_paper_scale": {313: (200, 12.42), 625: (250, 14.97), 1250: (250, 15.95)},
    # Fig. 7's mice alone at Bt = 625 (60 s after 25 s): tight-link loss with the engine's TCP defaults,
    # with min RTO 1 s + initial RTO 3 s, and with those and initial window 1
    "fig7_mice_loss": {"defaults": 0.0437, "rto_1s_3s": 0.0279, "rto_1s_3s_iw1": 0.0189},
    # Fig. 6 at Bt = 625 (60 s after 25 s) with SACK on every flow: utilization and tight-link loss
    "fig6_sack": {"utilization": 0.979, "loss": 0.0056},
}


# ----------------------------------------------------------------------------- runs


def sweep(ctx, kind: str):
    """Run the S sweep of ``kind`` for every Bt (and per Bt and seed one run of the cross traffic alone).

    Returns ``(runs, paths)``: ``runs`` one row per (Bt, S, seed) with the target's throughput (its data
    packets in wire bits per second, Mb/s, the unit of C and A: goodput × 1000/960) and goodput (Mb/s),
    mean RTT (ms), drops and loss rate, and the tight link's utilization and loss rate over the measured
    interval; ``paths`` one row per Bt (seeds averaged) with the cross traffic alone: utilization, loss,
    A (Mb/s), mean queue, B̃t = Bt − mean queue (packets), and Te (ms) = the mean RTT of the
    smallest-S target. ``runs`` is averaged over seeds by :func:`curve`.
    """
    import pandas as pd

    from bufsize.reproduce._sim import run_scenarios

    cfg = SCALE[ctx.mode]
    svals = s_values(ctx, kind)
    scen, keys = [], []
    for bt in BUFFERS:
        for seed in cfg["seeds"]:
            scen.append(scenario(kind, bt, socket_buffer=None, measured=cfg["measured"], warmup=cfg["warmup"],
                                 seed=seed, target=False))
            keys.append((bt, None, seed))
            for s in svals:
                scen.append(scenario(kind, bt, socket_buffer=s, measured=cfg["measured"], warmup=cfg["warmup"],
                                     seed=seed))
                keys.append((bt, s, seed))
    ctx.say(f"      {kind}: {len(scen)} runs ({len(BUFFERS)} Bt × ({len(svals)} S + cross alone) × "
            f"{len(cfg['seeds'])} seed(s))")
    res = run_scenarios(scen, ctx, tables=("flows",))
    rows, cross = [], []
    for (bt, s, seed), r in zip(keys, res):
        sm = r["summary"]
        if s is None:
            cross.append({"buffer_packets": bt, "seed": seed, "cross_utilization": sm["utilization"],
                          "cross_loss_rate": sm["loss_rate"], "cross_mean_queue_packets": sm["mean_queue_packets"],
                          "cross_queue_delay_ms": 1e3 * sm["queue_delay_mean_s"]})
            continue
        f0 = r["flows"].iloc[0]
        good = float(f0["goodput_bps"])
        drops = int(f0["drops"])
        delivered = good * cfg["measured"] / 8 / (PACKET_BYTES - 40)
        rows.append({"buffer_packets": bt, "socket_buffer_packets": s, "seed": seed,
                     "throughput_mbps": good * PACKET_BYTES / (PACKET_BYTES - 40) / 1e6, "goodput_mbps": good / 1e6,
                     "target_rtt_ms": 1e3 * float(f0["mean_rtt_s"]), "target_drops": drops,
                     "target_loss_rate": drops / (delivered + drops) if delivered + drops > 0 else math.nan,
                     "link_utilization": sm["utilization"], "link_loss_rate": sm["loss_rate"]})
    runs = pd.DataFrame(rows)
    cr = pd.DataFrame(cross).groupby("buffer_packets", as_index=False).mean(numeric_only=True).drop(columns="seed")
    cr["A_mbps"] = CAPACITY * (1 - cr.cross_utilization) / 1e6
    cr["B_avail_packets"] = cr.buffer_packets - cr.cross_mean_queue_packets
    smin = min(svals)
    te = runs[runs.socket_buffer_packets == smin].groupby("buffer_packets").target_rtt_ms.mean()
    cr["Te_ms"] = [float(te[bt]) for bt in cr.buffer_packets]
    return runs, cr


def curve(runs):
    """The seed-averaged R(S) per Bt (one row per Bt and S)."""
    return (runs.drop(columns="seed").groupby(["buffer_packets", "socket_buffer_packets"], as_index=False)
            .mean(numeric_only=True))


def mft_table(curve_df):
    """Per Bt (on ``throughput_mbps``, the target's data packets in wire bits, the unit of C and A): R̂ (Mb/s), Ŝ (packets), and the target's RTT and loss and the link loss at Ŝ and at the largest S."""
    import pandas as pd

    out = []
    for bt, d in curve_df.groupby("buffer_packets"):
        d = d.sort_values("socket_buffer_packets")
        r_hat, s_hat = mft(list(d.socket_buffer_packets), list(d.throughput_mbps))
        last = d.iloc[-1]
        out.append({"buffer_packets": int(bt), "mft_mbps": r_hat, "s_hat_packets": s_hat,
                    "plateau_from_packets": plateau_start(list(d.socket_buffer_packets), list(d.throughput_mbps)),
                    "drop_after_peak": drop_after_peak(list(d.socket_buffer_packets), list(d.throughput_mbps)),
                    "rtt_ms_largest_s": float(last.target_rtt_ms), "target_loss_largest_s": float(last.target_loss_rate),
                    "link_loss_largest_s": float(last.link_loss_rate), "throughput_largest_s": float(last.throughput_mbps)})
    return pd.DataFrame(out)


def plot(curve_df, title: str, *, paper_mft: dict | None = None, model: dict | None = None):
    """R(S) per Bt; optional paper MFT markers and model curves ({Bt: (S list, Mb/s list)})."""
    from bufsize.reproduce._plot import figure, finish

    fig, ax = figure(width=6.4, height=4.2)
    colors = {313: "tab:blue", 625: "tab:orange", 1250: "tab:green"}
    for bt, d in curve_df.groupby("buffer_packets"):
        d = d.sort_values("socket_buffer_packets")
        ax.plot(d.socket_buffer_packets, d.throughput_mbps, "o-", ms=3, color=colors.get(int(bt)), label=f"Bt = {int(bt)}")
        if paper_mft and int(bt) in paper_mft:
            ax.axhline(paper_mft[int(bt)], color=colors.get(int(bt)), ls=":", lw=1)
        if model and int(bt) in model:
            xs, ys = model[int(bt)]
            ax.plot(xs, ys, "--", lw=1, color=colors.get(int(bt)))
    ax.set_xlabel("socket buffer S (packets)")
    ax.set_ylabel("target throughput R(S) (Mb/s)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, title=("dotted: paper's MFT" if paper_mft else None), title_fontsize=7)
    return finish(fig, title)


def interval_words(ctx) -> str:
    """The runs behind one R(S) point in ``ctx``'s mode, in words ("a single 60-s run", "the mean of 3 200-s runs")."""
    cfg = SCALE[ctx.mode]
    n = len(cfg["seeds"])
    return f"a single {cfg['measured']:g}-s run" if n == 1 else f"the mean of {n} {cfg['measured']:g}-s runs"


def template_inputs(ctx, kind: str) -> dict[str, Any]:
    """inputs.json of an S001 figure: the scenario of one sweep point (Bt = 625, S = 100, seed 1) at
    ``ctx``'s scale (its warm-up and measured interval, not the quick ones), the scale and the buffers."""
    cfg = SCALE[ctx.mode]
    return {"scenario_template": scenario(kind, 625, socket_buffer=100, measured=cfg["measured"],
                                          warmup=cfg["warmup"]).to_dict(),
            "scale": {k: list(v) if isinstance(v, tuple) else v for k, v in cfg.items()},
            "buffers": list(BUFFERS)}


def common_deviations(ctx, kind: str) -> list[str]:
    cfg = SCALE[ctx.mode]
    sv = s_values(ctx, kind)
    out = [f"Scale ({ctx.mode}): {len(sv)} socket-buffer values {sv[0]}–{sv[-1]} packets, target "
           f"measured over {cfg['measured']:g} s after a {cfg['warmup']:g} s cross-traffic warm-up, "
           f"{len(cfg['seeds'])} seed(s)" + (" (the paper's scale, FIGURES.md S001: ~25 S values 20–1500, 200 s "
                                              "after 50 s, here 3 seeds)" if ctx.quick else "") + ".",
           "Path: one 50 Mb/s tight link (25 ms) between uncongested 1 Gb/s links (Tm = 100 ms); its reverse "
           "direction has the same Bt; 001 does not give the other links. Target and cross TCP are Reno "
           "without SACK with ns-2.35's Agent/TCP defaults through the ns2 profile (a SYN, then initial window 2: run as "
           "initial window 1; min RTO 200 ms, initial RTO 3 s; 1 µs of host jitter); 001 does not state its NS settings. "
           "Bt is an ns-2 DropTail limit, run as the engine's Bt − 1 waiting packets."]
    if kind.startswith("mice"):
        out.append(f"{MICE_CALIBRATED} mouse sources per direction instead of 001's {MICE_PAPER}: {MICE_PAPER} load "
                   f"the tight link to {MICE_PAPER_UTILIZATION:.0%} here (measured, no target), not the 70 % (A = "
                   f"15 Mb/s) 001 states for Fig. 5; {MICE_CALIBRATED} give {MICE_CALIBRATED_UTILIZATION:.0%}. Fig. 7 "
                   f"uses the same count with the shorter sleeps, as 001 does ('as Fig. 5').")
    return out


def miss_notes(checks, reasons) -> list[str]:
    """One note per failing check: the claim, ours against the paper, and the first reason whose key is
    in the claim (``reasons``: list of (substring, text or callable(check) -> text))."""
    out = []
    for c in checks:
        if c.passed:
            continue
        why = next(((t(c) if callable(t) else t) for k, t in reasons if k in c.claim), "no explanation measured")
        out.append(f"Miss — {c.claim}: paper {c.paper}, ours {_fmt(c.ours)}. {why}")
    return out


def give_causes(checks, reasons) -> None:
    """Each failing check gets the cause of the first reason whose key is in its claim (``reasons``: list of
    (substring, cause, text or callable(check) -> text)); a passing check, or one no key matches, gets none."""
    for c in checks:
        if c.passed:
            continue
        hit = next(((cause, t(c) if callable(t) else t) for k, cause, t in reasons if k in c.claim), None)
        if hit is not None:
            c.because(*hit)


#: The same path in ns-2.35 itself (bench/ns2/p001_twoway.md: ns-2's own Agent/TCP/Reno and TCPSink, 40-B ACKs,
#: DropTail counting packets; 50 s + 200 s, 2026-11-29): Fig. 4's best R(S), Mb/s, with and without the reverse
#: cross traffic (the engine within 0.2 Mb/s of each; bench/ns2/test_p001_twoway.py reruns both sides), and
#: Fig. 6's tight-link utilization with the reverse traffic. A reference measurement, not re-run by the figures.
NS2_TWO_WAY = {"fig4_reverse": {313: 19.73, 625: 26.18, 1250: 31.66},
               "fig4_no_reverse": {313: 25.18, 625: 32.11, 1250: 37.24},
               "fig6_reverse_utilization": {313: 0.52, 625: 0.95, 1250: 0.94}}


def reverse_words() -> str:
    """Our reverse path against 001's words (the setting behind the misses that rest on the target's ACKs)."""
    b = BACKING
    return ("§V: 'The reverse path carries the same cross traffic as the forward path', and 001 says no more: not "
            "how large the reverse buffer is nor how its data and the target's ACKs share it. Ours runs the same "
            "sources through tightr, a packet-counted drop-tail buffer of Bt packets, where the target's 40-B ACKs "
            "queue behind 1000-B reverse data and leave in bursts; on Fig. 4's path the target's best lossless R(S) "
            "is " + "/".join(f"{v[1]:.1f}" for v in b["fig4_paper_scale"].values()) + " Mb/s with the reverse cross "
            "traffic; without it no loss up to " + "/".join(f"{v[1]:.1f}" for v in b["fig4_no_reverse"].values()) +
            " Mb/s, the largest S tried (Bt 313/625/1250, 200-s runs; BACKING). ns-2.35's own agents on the same path (bench/ns2/p001_twoway.md) "
            "give the same R̂: " + "/".join(f"{v:.1f}" for v in NS2_TWO_WAY["fig4_reverse"].values()) + " Mb/s with "
            "the reverse traffic, " + "/".join(f"{v:.1f}" for v in NS2_TWO_WAY["fig4_no_reverse"].values()) +
            " without, and neither a reverse buffer of 50 packets or unlimited nor 60–100 Mb/s access links moves "
            "Bt 313's; so the gap is in a setting 001 does not give, not in the engine")


def stack_text() -> str:
    """Our target's and cross flows' TCP against ns-2's Agent/TCP defaults."""
    from bufsize.reproduce._p000_miss import stack_clause

    return (f"our Reno agents run {stack_clause(_tcp())}; 001 does not state its NS settings, nor its ns-2 version "
            "(its defaults may differ from 2.35's)")


def _fmt(x) -> str:
    if isinstance(x, float):
        return "NaN (never flat)" if x != x else f"{x:.4g}"
    return str(x)


# ----------------------------------------------------------------------------- analysis helpers


def mft(s_values: Sequence[float], rates: Sequence[float]) -> tuple[float, float]:
    """EXP-MFT: (R̂, Ŝ) = the largest throughput of a sweep and the smallest S reaching it."""
    if len(s_values) != len(rates) or not len(s_values):
        raise ValueError("mft: need as many rates as S values, at least one")
    best = max(range(len(rates)), key=lambda i: (rates[i], -s_values[i]))
    return float(rates[best]), float(s_values[best])


def plateau_start(s_values: Sequence[float], rates: Sequence[float], frac: float = 0.9) -> float:
    """The smallest S from which R(S) stays at or above ``frac`` of the MFT (for every larger S in
    the sweep): where the curve becomes flat (congestion-limited)."""
    r_hat, _ = mft(s_values, rates)
    pairs = sorted(zip(s_values, rates))
    start = math.nan
    for s, r in reversed(pairs):
        if r >= frac * r_hat:
            start = s
        else:
            break
    return float(start)


def linear_fraction(s_values: Sequence[float], rates_bps: Sequence[float], te: float, upto_bps: float) -> float:
    """Median of R(S)·Te/S over the sweep points whose S/Te is below ``upto_bps`` (S packets, rates
    bit/s, Te s): 1 when R = S/Te (buffer-limited, linear). NaN without such points."""
    vals = [r * te / (s * PACKET_BYTES * 8) for s, r in zip(s_values, rates_bps)
            if s * PACKET_BYTES * 8 / te < upto_bps]
    if not vals:
        return math.nan
    vals.sort()
    n = len(vals)
    return vals[n // 2] if n % 2 else 0.5 * (vals[n // 2 - 1] + vals[n // 2])


def drop_after_peak(s_values: Sequence[float], rates: Sequence[float]) -> float:
    """Relative drop of R(S) from the MFT to the largest S of the sweep: (R̂ − R(S_max))/R̂."""
    r_hat, _ = mft(s_values, rates)
    last = sorted(zip(s_values, rates))[-1][1]
    return float((r_hat - last) / r_hat) if r_hat > 0 else math.nan


def decreasing_in(values: Iterable[float], slack: float = 0.0) -> bool:
    """True when each value is at most the previous one plus ``slack``."""
    v = list(values)
    return all(b <= a + slack for a, b in zip(v, v[1:]))
