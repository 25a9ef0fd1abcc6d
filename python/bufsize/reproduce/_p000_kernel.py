"""Paper 000's router testbed on the kernel testbed: Fig 2's port and the T000 campaign, scaled.

The simulator runs T000 at the paper's scale (:mod:`bufsize.reproduce._p000_t000`). Here the same
experiment runs on real Linux TCP (:mod:`bufsize.reproduce._kernel`), scaled by ``SCALE_DOWN`` = 50 in
rate and users so that two shared vCPUs carry it (the testbed's limits: 100 Mb/s, 64 users):

* the bottleneck: 20 Mb/s instead of 1 Gb/s, a byte-limited drop-tail FIFO (``bfifo``) of the paper's
  buffer / 50, so that B/C (the queueing delay of a full buffer) and B/BDP are the paper's; the
  smallest sizes are raised to two frames (the paper's 30 KiB / 50 is less than one);
* the users: U/50 (20, 24, 60 for U1000, U1200, U3000), each with the paper's file sizes (Pareto, mean
  80 KB, shape 1.5) and think times (exponential, mean 1 s), so the offered load relative to the link is
  the paper's; the four client RTTs (30, 50, 120, 140 ms) round-robin;
* TCP: the kernel's "reno" with SACK (the paper's Linux stack, NewReno + SACK), initial window 2.

What the scaling changes: the BDP is 140 packets instead of about 7000, so a file of mean size is 0.4
BDP instead of 0.008 BDP: flows are long relative to the pipe, and the regimes of the S- and L-models
move (FIGURES.md warns of this). Linux delays ACKs (the paper's receivers sent one per segment), and the
runs are shorter than the paper's 5 minutes. Buffers on the figures' axes are *paper-equivalent*: the
kernel FIFO's bytes × 50.

Fig 2 runs its port at 100 Mb/s with the paper's buffers / 10 (same B/C), overloaded by 8 long-lived
Reno flows; the observed maximum delay is the FIFO's largest sampled backlog / C.
"""

from __future__ import annotations

import math
from typing import Any, Iterable

from bufsize.reproduce._setup import Setting

SCALE_DOWN = 50
RATE_BPS = 1e9 / SCALE_DOWN
USERS = {1000: 20, 1200: 24, 3000: 60}
RTTS_MS = (30, 50, 120, 140)
INITCWND = 2
WIRE = 1514
KSCALE = {
    "quick": {"buffers": (4, 10, 19), "duration": 25.0, "warmup": 5.0},
    "full": {"buffers": (4, 6, 8, 10, 12, 14, 16, 19), "duration": 150.0, "warmup": 30.0},
}
REDUCTION = 1

#: Fig 2 on the kernel testbed: the port's rate, the scale of the buffers, the overload
FIG2_SCALE = 10
FIG2_RATE_BPS = 1e9 / FIG2_SCALE
FIG2_FLOWS = 8
FIG2_RTT_S = 0.02
FIG2_SIZES = {"quick": (0, 4, 8, 12, 16, 19), "full": tuple(range(20))}


def _kib_list(indices) -> str:
    from bufsize.reproduce import _p000_t000 as p

    return ", ".join(p.size_text(p.BUFFERS[i]) for i in indices)


#: The settings of the scaled T000 campaign on the kernel testbed (Figs 3, 5–8, where it runs).
SETUP_KERNEL_T000 = (
    Setting("kernel testbed", "real Linux TCP in network namespaces (htb bottleneck, drop-tail bfifo, a delay element), "
            "run with --testbed where root and the tools allow", "ours",
            "a second route beside the simulator: FIGURES.md finds 1 Gb/s with 3000 users 'not realistic on these "
            "machines' and allows a scaled testbed, which 'changes the BDP in packets and so the S/L regimes'"),
    Setting("kernel testbed rate", f"{RATE_BPS / 1e6:g} Mb/s (the paper's 1 Gb/s / {SCALE_DOWN})", "ours",
            f"FIGURES.md suggests 100 Mb/s and U/10, but U3000/10 is beyond the testbed's 64 users on two shared "
            f"vCPUs, so rate and users are both scaled by 1/{SCALE_DOWN} (the offered load relative to the link stays "
            "the paper's)"),
    Setting("kernel testbed users", "U/50: " + ", ".join(f"U{n} for U{u}" for u, n in USERS.items()), "ours",
            f"the paper's U scaled with the rate (1/{SCALE_DOWN}), so U·S̄/Th relative to the link is unchanged"),
    Setting("kernel testbed RTTs", "30, 50, 120, 140 ms, assigned to the users round-robin", "ours",
            "the paper's four minimum RTTs (§III-A); it does not say how many users each client ran"),
    Setting("kernel testbed buffer", f"a bfifo of the paper's buffer / {SCALE_DOWN} bytes, at least two 1514-byte frames; "
            f"plotted at the paper-equivalent size (× {SCALE_DOWN})", "ours",
            "keeps B/C and B/BDP the paper's; the paper's 30 KiB / 50 is less than one frame"),
    Setting("kernel testbed buffers", f"{len(KSCALE['full']['buffers'])} of the 20: {_kib_list(KSCALE['full']['buffers'])} "
            f"(quick: {_kib_list(KSCALE['quick']['buffers'])})", "ours",
            "as many runs as the time allows; the paper's sizes below ≈ 148 KiB all fall to the two-frame floor "
            "(3028 B × 50), so the grid starts at the largest of them"),
    Setting("kernel testbed TCP", "Linux's reno with SACK (the kernel's own timers and recovery)", "paper",
            "the TCP Reno stack that uses the NewReno congestion control variant with Selective Acknowledgments",
            "§III-A"),
    Setting("kernel testbed initial window", f"{INITCWND} segments (initcwnd)", "paper",
            "the initial window is two segments", "§IV, eq. (1)"),
    Setting("kernel testbed ACKs", "Linux's delayed ACKs", "ours",
            "the receivers run the kernel's defaults; 000's Linux 2.6.15 receivers sent an ACK per segment (§IV): "
            "not reproduced on this route"),
    Setting("kernel testbed traffic", "the paper's: Pareto file sizes (mean 80 KB, shape 1.5), exponential think times "
            "(mean 1 s)", "paper", "we use a Pareto distribution with mean 80KB and shape parameter 1.5 … The think "
            "periods follow an exponential distribution with mean duration one second", "§III-A"),
    Setting("kernel testbed run length", f"{KSCALE['full']['duration']:g} s, the first {KSCALE['full']['warmup']:g} s "
            f"discarded (quick: {KSCALE['quick']['duration']:g} s, {KSCALE['quick']['warmup']:g} s)", "figures",
            "FIGURES.md's 2-core plan for T000: '30 s warm-up + 120 s measured' (the paper: 5 min, the first minute "
            "discarded); the quick runs are shorter still to fit the quick budget"),
    Setting("kernel testbed seeds", "one run per point (seed 1); a run failing the testbed's fidelity checks is "
            "retried once, then kept out of the checks", "ours",
            "as the paper's one experiment per point; the fidelity checks keep a run on a loaded machine from counting"),
)

#: The settings of Fig 2's port on the kernel testbed.
SETUP_KERNEL_FIG2 = (
    Setting("kernel testbed rate", f"{FIG2_RATE_BPS / 1e6:g} Mb/s (htb)", "figures",
            "FIGURES.md (Fig 2): 'Namespace testbed: 20 × a few s at 100 Mb/s scaled (delay scales as B/C)'"),
    Setting("kernel testbed buffer", f"a bfifo of the paper's buffer / {FIG2_SCALE} bytes (the same B/C), at least two "
            f"1514-byte frames; plotted at the paper-equivalent size (× {FIG2_SCALE})", "ours",
            "FIGURES.md: the delay scales as B/C; the two-frame floor does not bind at /10 (30 KiB / 10 = 3072 B)"),
    Setting("kernel testbed buffers", f"all 20 of the T000 grid (quick: {len(FIG2_SIZES['quick'])}: "
            f"{_kib_list(FIG2_SIZES['quick'])})", "ours", "the paper measured all 20; the quick scale spans them with "
            "six"),
    Setting("kernel testbed flows", f"{FIG2_FLOWS} long-lived Linux reno flows (kernel defaults: SACK, initial window, "
            f"delayed ACKs), starting 50 ms apart, RTT {FIG2_RTT_S * 1e3:g} ms", "ours",
            "FIGURES.md: 'Overload the port (any source)'; eight long-lived flows overload it at a load two vCPUs "
            "carry"),
    Setting("kernel testbed run length", "5 s, the first 1 s discarded, one run per size (seed 1)", "ours",
            "FIGURES.md: 'a few s' per size; the port stays overloaded, so a few seconds reach its maximum "
            "backlog"),
    Setting("kernel testbed observed delay", "the FIFO's largest sampled backlog (bytes) / the rate", "ours",
            "000 does not say how it measured the maximum delay; the backlog over the rate is the delay of a packet "
            "arriving at that backlog"),
)


def kernel_bytes(paper_bytes: float, scale: int = SCALE_DOWN) -> int:
    """The kernel FIFO's limit for one of the paper's buffers: bytes / scale, at least two frames."""
    return max(2 * WIRE, int(round(paper_bytes / scale)))


def t000_config(users: int, buffer_index: int, seed: int, duration: float, warmup: float):
    """The testbed scenario of one scaled T000 run (``users``: the paper's U)."""
    from bufsize.reproduce import _p000_t000 as p
    from bufsize.testbed.config import TestbedConfig, User

    b = kernel_bytes(p.BUFFERS[buffer_index])
    us = tuple(User(cc="reno", rtt_s=RTTS_MS[k % len(RTTS_MS)] / 1e3, mean_size_bytes=float(p.MEAN_SIZE_BYTES),
                    pareto_shape=p.SHAPE, think_mean_s=p.THINK_S) for k in range(USERS[users]))
    return TestbedConfig(rate_bps=RATE_BPS, buffer_packets=TestbedConfig.frames_for(b), buffer_bytes=b, users=us,
                         duration_s=duration, warmup_s=warmup, seed=seed, initcwnd=INITCWND)


def reduce_t000(att, cfg=None) -> dict[str, Any]:
    """One kernel run as plain numbers: utilization, loss, queueing delay and the per-transfer
    throughput statistics of the small and large flows (transfers accepted after the warm-up and
    finished in the window; throughput = bytes / (receiver's accept-to-last-byte time + the user's base
    RTT for the handshake), as the simulator's reduction counts it)."""
    import numpy as np

    from bufsize.reproduce import _p000_t000 as p

    s = att.summary
    u = att.tables["users"]
    u = u[u["t_accept"] >= s["window_start_s"]]
    size = u["size"].to_numpy(float)
    rtt = np.array([RTTS_MS[int(k) % len(RTTS_MS)] / 1e3 for k in u["user"]])
    thr = size * 8 / (u["fct_s"].to_numpy(float) + rtt) if len(u) else np.array([])
    small = (size >= p.SMALL[0]) & (size <= p.SMALL[1])
    large = size > p.LARGE
    return {"reduction": REDUCTION, "utilization": float(s["utilization"]), "loss_rate": float(s["loss_rate"]),
            "queue_delay_mean_s": float(s["mean_queue_packets"]) * WIRE * 8 / float(s["rate_bps"]),
            "timeouts": int(s["timeouts"]), "transfers_completed": int(len(u)),
            "mean_size_bytes": float(size.mean()) if len(size) else math.nan,
            "mean_fct_s": float(u["fct_s"].mean()) if len(u) else math.nan,
            "small": p._stats(thr[small]), "large": p._stats(thr[large]),
            "steal_mean": float(s.get("steal_mean", math.nan)), "machine_busy": float(s.get("machine_busy", math.nan))}


def t000(ctx, users: Iterable[int] = tuple(USERS)) -> Any:
    """The scaled campaign for the given experiments (the paper's U values): a DataFrame with the
    simulator campaign's columns (``buffer_bytes`` paper-equivalent) plus the kernel's own, or None when
    the kernel part does not run (see :func:`bufsize.reproduce._kernel.skip_reason`)."""
    import pandas as pd

    from bufsize.reproduce import _kernel
    from bufsize.reproduce import _p000_t000 as p

    sc = KSCALE["quick" if ctx.quick else "full"]
    specs = [(u, i) for u in users for i in sc["buffers"]]
    replay = _kernel.replay_frame("fig_000_0[3-8]", ("users", "paper_buffer_bytes"),
                                  [(u, p.BUFFERS[i]) for u, i in specs])
    if replay is not None:
        replay.attrs["config"] = {"scale_down": SCALE_DOWN, "rate_bps": RATE_BPS,
                                  "users": {f"U{u}": n for u, n in USERS.items()}, "rtts_ms": list(RTTS_MS),
                                  "initcwnd": INITCWND, "cc": "reno (Linux, SACK on)", **sc}
        return replay
    if _kernel.skip_reason(ctx) is not None:
        return None
    cfgs = [t000_config(u, i, 1, sc["duration"], sc["warmup"]) for u, i in specs]
    recs = _kernel.run_points(ctx, "p000_t000", cfgs, reduce_t000, REDUCTION)
    rows = []
    for (u, i), cfg, rec in zip(specs, cfgs, recs):
        r = rec["reduced"]
        sm, lg = r.get("small", {"n": 0}), r.get("large", {"n": 0})
        rows.append({"users": u, "users_kernel": USERS[u], "buffer_bytes": cfg.buffer_bytes * SCALE_DOWN,
                     "buffer_kib": cfg.buffer_bytes * SCALE_DOWN / 1024, "paper_buffer_bytes": p.BUFFERS[i],
                     "kernel_buffer_bytes": cfg.buffer_bytes, "kernel_buffer_frames": cfg.buffer_packets,
                     "accepted": rec["accepted"], "run_id": rec["run_id"],
                     "utilization": _kernel.nan_if_missing(r, "utilization"),
                     "loss_rate": _kernel.nan_if_missing(r, "loss_rate"),
                     "queue_delay_mean_ms": _kernel.nan_if_missing(r, "queue_delay_mean_s") * 1e3,
                     "timeouts": _kernel.nan_if_missing(r, "timeouts"),
                     "transfers_completed": _kernel.nan_if_missing(r, "transfers_completed"),
                     "mean_size_kb": _kernel.nan_if_missing(r, "mean_size_bytes") / 1e3,
                     "mean_fct_s": _kernel.nan_if_missing(r, "mean_fct_s"),
                     "small_n": sm.get("n", 0), "small_median_mbps": sm.get("median", math.nan) / 1e6,
                     "small_cov": sm["std"] / sm["mean"] if sm.get("n") else math.nan,
                     "large_n": lg.get("n", 0), "large_median_mbps": lg.get("median", math.nan) / 1e6,
                     "large_cov": lg["std"] / lg["mean"] if lg.get("n") else math.nan,
                     "reasons": "; ".join(rec["reasons"])})
    df = pd.DataFrame(rows)
    df.attrs["records"] = recs
    df.attrs["config"] = {"scale_down": SCALE_DOWN, "rate_bps": RATE_BPS, "users": {f"U{u}": n for u, n in USERS.items()},
                          "rtts_ms": list(RTTS_MS), "initcwnd": INITCWND, "cc": "reno (Linux, SACK on)", **sc}
    return df


#: Why the scaled testbed's small buffers behave differently (for the notes of its misses).
SCALING_NOTE = (f"Scaling by 1/{SCALE_DOWN} keeps B/C and B/BDP but gives the FIFO {SCALE_DOWN}× fewer packets, while "
                "each flow's slow-start bursts (initial window 2, doubling per RTT) are as many packets as in the "
                "paper: a flow of mean size ends slow start at tens of packets against a kernel buffer of 2–18 "
                "frames at the small and middle sizes, so those sizes lose far more than the paper's did and every "
                "knee moves to larger paper-equivalent buffers (FIGURES.md: the scaled testbed moves the regimes).")


def accepted(df):
    """The accepted runs only (the checks use these)."""
    return df[df["accepted"].astype(bool)]


def label(users: int) -> str:
    return f"[kernel testbed ×1/{SCALE_DOWN}: {RATE_BPS / 1e6:g} Mb/s, U{USERS[users]} for U{users}]"


def deviation(ctx) -> str:
    sc = KSCALE["quick" if ctx.quick else "full"]
    return (f"Kernel-testbed series (real Linux Reno + SACK, initial window 2, delayed ACKs as Linux does them): "
            f"the T000 experiment scaled by 1/{SCALE_DOWN} in rate and users ({RATE_BPS / 1e6:g} Mb/s, U20/U24/U60) "
            f"with the paper's file sizes, think times and RTTs; a bfifo of the paper's buffer / {SCALE_DOWN} (at least "
            f"two frames), shown at its paper-equivalent size; runs of {sc['duration']:g} s with the first "
            f"{sc['warmup']:g} s discarded, one per point. The BDP is 140 packets instead of ~7000, so the flows are "
            "long relative to the pipe (FIGURES.md: the S/L regimes move).")


def fig2_config(buffer_index: int, duration: float = 5.0):
    from bufsize.reproduce import _p000_t000 as p
    from bufsize.testbed.config import Flow, TestbedConfig

    b = kernel_bytes(p.BUFFERS[buffer_index], FIG2_SCALE)
    fl = tuple(Flow(cc="reno", rtt_s=FIG2_RTT_S, start_s=0.05 * k) for k in range(FIG2_FLOWS))
    return TestbedConfig(rate_bps=FIG2_RATE_BPS, buffer_packets=TestbedConfig.frames_for(b), buffer_bytes=b, flows=fl,
                         duration_s=duration, warmup_s=1.0, seed=1)


def reduce_fig2(att, cfg=None) -> dict[str, Any]:
    s = att.summary
    return {"max_backlog_bytes": int(s["max_backlog_bytes"]), "utilization": float(s["utilization"]),
            "loss_rate": float(s["loss_rate"])}


def fig2(ctx) -> Any:
    """Fig 2's port on the kernel testbed, or None when the kernel part does not run."""
    import pandas as pd

    from bufsize.reproduce import _kernel
    from bufsize.reproduce import _p000_t000 as p

    idx = FIG2_SIZES["quick" if ctx.quick else "full"]
    replay = _kernel.replay_frame("fig_000_02", ("paper_buffer_bytes",), [(p.BUFFERS[i],) for i in idx])
    if replay is not None:
        return replay
    if _kernel.skip_reason(ctx) is not None:
        return None
    cfgs = [fig2_config(i) for i in idx]
    recs = _kernel.run_points(ctx, "p000_fig2", cfgs, reduce_fig2, REDUCTION)
    rows = []
    for i, cfg, rec in zip(idx, cfgs, recs):
        r = rec["reduced"]
        b = cfg.buffer_bytes
        rows.append({"paper_buffer_bytes": p.BUFFERS[i], "kernel_buffer_bytes": b, "kernel_buffer_frames": cfg.buffer_packets,
                     "buffer_kb_paper_equivalent": b * FIG2_SCALE / 1000, "expected_ms": b * 8 / FIG2_RATE_BPS * 1e3,
                     "expected_whole_frames_ms": (b // WIRE) * WIRE * 8 / FIG2_RATE_BPS * 1e3,
                     "observed_ms": _kernel.nan_if_missing(r, "max_backlog_bytes") * 8 / FIG2_RATE_BPS * 1e3,
                     "utilization": _kernel.nan_if_missing(r, "utilization"),
                     "accepted": rec["accepted"], "run_id": rec["run_id"], "reasons": "; ".join(rec["reasons"])})
    df = pd.DataFrame(rows)
    df.attrs["records"] = recs
    return df
