"""Paper 000's testbed campaign T000 (§III–IV, Figs 3–10), with the simulator as the proxy.

Setup (000 §III-A, FIGURES.md "T000"): closed-loop users download files of Pareto size (mean
80 KB, shape 1.5) and think for an exponential time (mean 1 s) between downloads; Linux's "Reno"
is NewReno with SACK, initial window 2, one ACK per segment, a 13 MB window limit, 1500-byte
packets; the minimum RTT is 30, 50, 120 or 140 ms (one per client machine: the users are spread
over the four values round-robin); the senders' traffic reaches the router over two 1 Gb/s links
and leaves over the 1 Gb/s bottleneck port, a drop-tail queue limited in **bytes** (20 sizes,
log-spaced from 30 KiB to 38 MiB; the paper's sizes are binary, ≈ 20–26 564 packets). Experiments
U1000, U1200 and U3000.

One campaign serves eight figures. Every run is reduced to what the figures need (utilization,
loss, RTTs, throughput statistics of the small and the large flows, size-binned sums for the
throughput-vs-size plots) and the reduced record is kept

* in memory for the rest of the process (``bufsize reproduce all`` simulates each run once), and
* on disk in ``DIR/.sweeps/p000_t000`` (an experiments-layer point store keyed by the scenario's
  content hash and the engine version), so that ``bufsize reproduce fig_000_03`` followed by
  ``bufsize reproduce fig_000_05 --out`` the same DIR does not simulate again.

Per-flow throughput = payload bytes / duration, where the duration is the engine's transfer time
(first data segment sent to the last ACK) plus one round trip (the flow's mean RTT) for the
connection handshake, which the engine does not simulate; the paper measures from the first SYN
(FIGURES.md, assumed), and eq. (1)'s D(s) counts that handshake RTT. Only transfers that start
after the warm-up and complete within the run count.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Iterable

from bufsize.reproduce._setup import Setting

PACKET_BYTES = 1500
MSS = 1460                          # payload bytes per full segment (40 bytes of headers)
RATE_BPS = 1e9
USERS = (1000, 1200, 3000)
RTTS_MS = (30, 50, 120, 140)
THINK_S = 1.0
MEAN_SIZE_BYTES = 80_000
SHAPE = 1.5
INPUTS = 2                          # the two GigE aggregation links into the router
SMALL = (45_000, 50_000)            # "small flows send about 45–50 KB" (payload bytes)
LARGE = 1_000_000                   # "large flows send more than 1000 KB"
CE_S_MAX = 4                        # classifier: ≤ 4 congestion events ~ S-model, ≥ 5 ~ L-model
K_SQRT = 1.22
KIB, MIB = 1024, 1024 * 1024
#: The 20 buffer sizes (bytes): log-spaced 30 KiB–38 MiB (the paper's values are not stated).
BUFFERS = tuple(int(round(b)) for b in
                [30 * KIB * (38 * MIB / (30 * KIB)) ** (i / 19) for i in range(20)])
#: Size bins of Figs 9–10 (bytes): edges grow by a factor √2 from one segment to 1.5 GB.
BIN_EDGES = tuple(int(round(MSS * 2 ** (k / 2))) for k in range(0, 41))
REDUCTION = 6                       # version of the reduced record (older stored records are recomputed)
SCALE = {
    "quick": {"buffers": (0, 2, 4, 6, 8, 10, 12, 14, 16, 19), "seeds": (1,), "duration": 120.0, "warmup": 20.0},
    "full": {"buffers": tuple(range(20)), "seeds": (1, 2, 3), "duration": 300.0, "warmup": 60.0},
}
#: Figure 8's four buffers (indices into BUFFERS): 30 KiB, ≈ 300 KiB, ≈ 3 MiB, 38 MiB.
FIG8_BUFFERS = (0, 6, 12, 19)

# ---- where the settings come from (the items' SETUP) ------------------------------------------------

#: The T000 settings every simulator item of Figs 3–10 shares (the item adds its users, buffers and run length).
SETUP_T000 = (
    Setting("testbed proxy", "bufsize's packet-level engine in place of the Riverstone router testbed", "figures",
            "FIGURES.md (T000): 'Reproduction route: the simulator as a proxy with the same parameters'"),
    Setting("bottleneck", f"the router's output port: {RATE_BPS / 1e9:g} Gb/s, a drop-tail FIFO limited in bytes",
            "paper", "The testbed bottleneck is the Gig-Ethernet output interface … We configured the output interface "
            "to use Drop-Tail queueing", "§III-A"),
    Setting("input links", f"{INPUTS} links of {RATE_BPS / 1e9:g} Gb/s from the senders into the router", "paper",
            "The traffic from the four senders is aggregated on two Gig-Ethernet links before entering the router",
            "§III-A"),
    Setting("input-link queues", "unlimited (no loss before the bottleneck)", "ours",
            "000 describes neither the aggregation switch nor its queues; it says the router has 'no significant "
            "queueing at the input interfaces or at the fabric' (§III-A), so only the output port drops"),
    Setting("users per input link", "the users of each RTT split evenly over the two input links; a user keeps its link",
            "ours", "000 does not say which sender serves which user; FIGURES.md assumes a uniformly random server per "
            "transfer; a fixed even split gives each link the same mix of RTTs"),
    Setting("minimum RTTs", "30, 50, 120, 140 ms", "paper",
            "the minimum RTT of the TCP connections takes one of the following values: 30ms, 50ms, 120ms or 140ms, "
            "with a different RTT for each client machine", "§III-A"),
    Setting("users per RTT", "a quarter of the users at each of the four RTTs", "ours",
            "000 gives one RTT per client machine but not how many users each of the four clients ran; an even split "
            "is the plainest reading"),
    Setting("propagation delay", "a fixed round-trip delay per user (its minimum RTT); the links have none; ACKs return "
            "over an unlimited 10 Gb/s link", "ours",
            "000's NISTNet boxes delay the ACKs (§III-A); where the delay sits does not change a flow's RTT, and the "
            "ACK path is not a bottleneck in the testbed"),
    Setting("TCP variant", "NewReno with SACK (the engine's; PRR off)", "paper",
            "We configured the Linux end-hosts to use the TCP Reno stack that uses the NewReno congestion control "
            "variant with Selective Acknowledgments", "§III-A"),
    Setting("TCP timers and recovery", "the reproduction's ns2 profile (_stack): initial RTO 3 s, minimum RTO 200 ms, "
            "maximum RTO 60 s, 3 duplicate ACKs, limited transmit, 1-µs host jitter", "ours",
            "000 does not state its Linux 2.6.15 hosts' timers; the reproduction runs one stack for all papers, and "
            "its initial and minimum RTO are Linux 2.6's of that time (the profile's ns-2 halving and Reno bugfix act "
            "only without SACK, so not here)"),
    Setting("initial window", "2 segments, from the first data packet (no handshake simulated)", "paper",
            "the initial window is two segments", "§IV, eq. (1)"),
    Setting("ACKs", "one ACK per segment (no delayed ACKs)", "paper",
            "an ACK is generated for every new received segment (which is the case in the Linux 2.6.15 stack that we "
            "use)", "§IV"),
    Setting("window limit", "13 MB (8 666 packets)", "paper",
            "The maximum advertised TCP window size is set to 13MB", "§III-A"),
    Setting("packet size", f"{PACKET_BYTES} bytes", "paper",
            "the path-MTU is 1500 Bytes and that the servers send maximum-sized segments", "§III-A"),
    Setting("MSS", f"{MSS} bytes of payload per packet (40 bytes of IP and TCP headers); also m in the models", "ours",
            "000 gives the MTU, not the MSS; 1460 is a 1500-byte packet without TCP options (Linux with timestamps "
            "would send 1448). FIGURES.md puts m = 1500 B in the L-model"),
    Setting("users", "closed-loop users: download a file, think, download the next", "paper",
            "a given number of “users” (running at the client hosts) performs successive TCP downloads from the "
            "servers … After each download, the corresponding user stays idle for a “thinking period”", "§III-A"),
    Setting("file sizes", f"Pareto, mean {MEAN_SIZE_BYTES:_} bytes, shape {SHAPE:g}".replace("_", " "), "paper",
            "we use a Pareto distribution with mean 80KB and shape parameter 1.5", "§III-A"),
    Setting("file-size tail", "untruncated", "figures", "FIGURES.md (T000): 'Pareto, mean 80 KB, shape 1.5 "
            "(untruncated, assumed)'"),
    Setting("think times", f"exponential, mean {THINK_S:g} s", "paper",
            "The think periods follow an exponential distribution with mean duration one second", "§III-A"),
    Setting("per-flow throughput", "payload bytes / (first data segment to last ACK + the flow's mean RTT for the "
            "handshake)", "ours",
            "000 measures it from tcpdump traces without saying where a transfer starts and ends; FIGURES.md assumes "
            "first SYN to last data packet; the engine has no handshake, so one RTT stands for it, as eq. (1) counts"),
    Setting("measured transfers", "those that start after the warm-up and finish before the end of the run", "ours",
            "a trace of the measured window holds only these; 000 does not say how it treated transfers cut by the "
            "window"),
    Setting("monitor", "none: the engine counts every packet at the bottleneck", "ours",
            "000's tcpdump monitor dropped 0.1 % of the packets it recorded (§III-A); the simulator needs none"),
)

#: The T000 campaign's run length, seeds and random streams (Figs 3, 5–10).
SETUP_T000_RUNS = (
    Setting("run length and warm-up", f"{SCALE['full']['duration']:g} s, the first {SCALE['full']['warmup']:g} s "
            f"discarded (quick: {SCALE['quick']['duration']:g} s, {SCALE['quick']['warmup']:g} s)", "paper",
            "The run time for each experiment is 5 minutes. To avoid transient effects, we analyze the collected "
            "traces after a warm-up period of one minute", "§III-A"),
    Setting("seeds", f"{len(SCALE['full']['seeds'])} per point, checks on their mean (quick: "
            f"{len(SCALE['quick']['seeds'])})", "figures",
            "FIGURES.md (T000): 'The paper stresses that the curves are noisy (LRD), so use several seeds'; its "
            "16-core plan runs 3 (000 ran one experiment per point)"),
    Setting("random streams", "one per (experiment, buffer, seed): engine seed 10000·seed + 100·experiment + buffer "
            "index", "ours", "each buffer size was a separate testbed experiment, so the runs share no random stream "
            "and keep the run-to-run noise 000 stresses"),
)

#: The buffers as 000 states them, and the grid we read them as (Figs 3, 5–7 run the whole grid).
SETTING_BUFFER_RANGE = Setting(
    "buffer sizes", "20 sizes from 30 KiB to 38 MiB", "paper",
    "we experiment with 20 buffer sizes, non-uniformly selected in the range 30KB to 38MB", "§III-A")
SETTING_BUFFER_GRID = Setting(
    "buffer grid", "log-spaced, 30 720 bytes to 38 MiB (quick: 10 of the 20, every second one and the largest)",
    "figures", "FIGURES.md (T000): 'The 20 values themselves are unspecified; assume log-spaced'; MODELS.md reads the "
    "testbed's sizes as binary (38 MiB / 1500 B = the paper's 26 564 packets). FIGURES.md's 2-core plan runs 8 of the "
    "20; the quick scale runs 10")

#: The two flow classes of Figs 5–8.
SETUP_FLOW_CLASSES = (
    Setting("small flows", f"{SMALL[0]:,}–{SMALL[1]:,} bytes of payload".replace(",", " "), "paper",
            "One group, that we refer to as “small flows”, send about 45-50KB", "§III-B.2"),
    Setting("large flows", f"more than {LARGE:,} bytes of payload".replace(",", " "), "paper",
            "The “large flows”, on the other hand, send more than 1000KB", "§III-B.2"),
)

_CACHE: dict[str, dict[str, Any]] = {}


def kib(b: float) -> float:
    return b / KIB


def engine_seed(users: int, buffer_index: int, seed: int) -> int:
    """Each (experiment, buffer) is its own run with its own random stream, as each buffer size was a
    separate testbed experiment: the curves keep the run-to-run noise the paper stresses (LRD)."""
    return 10_000 * seed + 100 * USERS.index(users) + buffer_index


def user_groups(users: int) -> list[tuple[int, int, int]]:
    """(RTT ms, input link, count): the users split evenly over the four client RTTs and, within each,
    over the two input links (the paper's users pick a server at random, so every aggregation link
    carries users of every client)."""
    out = []
    for i, (r, k) in enumerate((r, k) for r in RTTS_MS for k in range(INPUTS)):
        n = users // (len(RTTS_MS) * INPUTS) + (1 if i < users % (len(RTTS_MS) * INPUTS) else 0)
        out.append((r, k, n))
    return out


def scenario(users: int, buffer_bytes: int, seed: int, duration: float, warmup: float, *,
             queue_trace: float | None = None):
    """The engine scenario of one T000 run: the bottleneck ``out``, the input links ``in0``, ``in1`` (1 Gb/s,
    unlimited queues), the ACK link ``rev``, and one users source per (RTT, input link)."""
    from bufsize.reproduce import _stack

    measure: dict[str, Any] = {"queue_histogram": False, "phase_trace_interval": None}
    if queue_trace is not None:
        measure["queue_trace_interval"] = f"{queue_trace:g}s"
    tcp = {"cc": "newreno", "sack": True, "prr": False, "initial_window": 2, "packet_size": f"{PACKET_BYTES}B",
           "max_window": "13MB", "delayed_ack": False}
    groups = [{"name": f"users.{r}ms.in{k}", "count": n, "path": [f"in{k}", "out"], "ack_path": ["rev"],
               "rtt": f"{r}ms", "size": {"pareto": {"shape": SHAPE, "mean": f"{MEAN_SIZE_BYTES}B"}},
               "think": {"exponential": f"{THINK_S:g}s"}, "tcp": tcp}
              for r, k, n in user_groups(users) if n > 0]
    return _stack.from_dict({
        "seed": seed, "duration": f"{duration:g}s", "warmup": f"{warmup:g}s",
        "links": [{"name": "out", "rate": RATE_BPS, "buffer": f"{buffer_bytes}B"},
                  *({"name": f"in{k}", "rate": RATE_BPS} for k in range(INPUTS)),
                  {"name": "rev", "rate": "10Gbps"}],
        "bottleneck": "out", "measure": measure, "users": groups,
    })


# ---- per-run reduction -------------------------------------------------------------------------

def flow_throughput(t) -> Any:
    """Per-transfer throughput (bit/s): payload bytes / (transfer time + one RTT for the handshake)."""
    import numpy as np

    rtt = np.where(np.isfinite(t["mean_rtt_s"]), t["mean_rtt_s"], t["rtt_s"])
    return t["size_bytes"].to_numpy(float) * 8 / (t["fct_s"].to_numpy(float) + rtt)


def models(size_bytes, rtt_s: float, loss: float) -> dict[str, Any]:
    """Slow-start, S-model (v = 1) and L-model (k = 1.22) throughput (bit/s) for each size, with one RTT
    and loss rate (``bufsize.models.prasad``; evaluated once per distinct segment count)."""
    import numpy as np

    from bufsize.models import prasad as pm

    size = np.asarray(size_bytes, float)
    uniq, inv = np.unique(size, return_inverse=True)
    rss = np.array([pm.slow_start_throughput(s, rtt_s, m=MSS) for s in uniq]) * 8
    rs = np.array([pm.s_model_throughput(s, rtt_s, loss, m=MSS, v=1.0) for s in uniq]) * 8
    rl = pm.l_model_throughput(rtt_s, loss, m=MSS, k=K_SQRT) * 8 if loss > 0 else math.inf
    return {"rss": rss[inv], "rs": rs[inv], "rl": np.full(len(size), rl)}


def _stats(x) -> dict[str, Any]:
    import numpy as np

    x = np.asarray(x, float)
    if len(x) == 0:
        return {"n": 0, "median": math.nan, "mean": math.nan, "std": math.nan, "quantiles": []}
    return {"n": int(len(x)), "median": float(np.median(x)), "mean": float(x.mean()), "std": float(x.std()),
            "quantiles": [float(v) for v in np.quantile(x, np.linspace(0, 1, 101))]}


def reduce_run(transfers, summary: dict[str, Any], warmup: float) -> dict[str, Any]:
    """What the figures need from one run, as plain numbers (small enough to store)."""
    import numpy as np

    t = transfers[transfers["start_s"] >= warmup]
    done = t[t["completed"].astype(bool)]
    thr = flow_throughput(done)
    size = done["size_bytes"].to_numpy(float)
    rtt = np.where(np.isfinite(done["mean_rtt_s"]), done["mean_rtt_s"], done["rtt_s"])
    loss = float(summary["loss_rate"])
    rtt_h = float(len(rtt) / np.sum(1.0 / rtt)) if len(rtt) else math.nan
    rtt_a = float(rtt.mean()) if len(rtt) else math.nan
    ce = done["congestion_events"].to_numpy(float)
    no_drop = done["drops"].to_numpy() == 0
    timed_out = done["timeouts"].to_numpy() > 0
    mod = models(size, rtt_h, loss) if len(size) else {"rss": np.array([]), "rs": np.array([]), "rl": np.array([])}
    small = (size >= SMALL[0]) & (size <= SMALL[1])
    large = size > LARGE
    s_cls = ce <= CE_S_MAX
    bins = []
    idx = np.digitize(size, BIN_EDGES) - 1
    for k in range(len(BIN_EDGES) - 1):
        sel = idx == k
        row = {"lo": BIN_EDGES[k], "hi": BIN_EDGES[k + 1], "n": int(sel.sum()),
               "sum_size": float(size[sel].sum()), "sum_thr": float(thr[sel].sum()),
               "sum_thr2": float((thr[sel] ** 2).sum()), "sum_rss": float(mod["rss"][sel].sum()),
               "sum_rs": float(mod["rs"][sel].sum()), "n_no_drop": int((sel & no_drop).sum()),
               "sum_segments": float(done["segments"].to_numpy(float)[sel].sum()),
               "sum_drops": float(done["drops"].to_numpy(float)[sel].sum()), "sum_ce": float(ce[sel].sum()),
               "sum_rtt": float(rtt[sel].sum())}
        for name, cls in (("le4", s_cls), ("ge5", ~s_cls)):
            m = sel & cls
            row[f"n_{name}"] = int(m.sum())
            row[f"bytes_{name}"] = float(size[m].sum())
            row[f"sum_thr_{name}"] = float(thr[m].sum())
        bins.append(row)
    classes = {}
    for name, cls in (("le4", s_cls), ("ge5", ~s_cls)):
        r_s = thr[cls] / mod["rs"][cls] if cls.any() else np.array([])
        r_l = thr[cls] / mod["rl"][cls] if cls.any() else np.array([])
        classes[name] = {"n": int(cls.sum()), "bytes": float(size[cls].sum()),
                         "timeout_share": float(timed_out[cls].mean()) if cls.any() else math.nan,
                         "median_ratio_s": float(np.median(r_s)) if len(r_s) else math.nan,
                         "median_ratio_l": float(np.median(r_l)) if len(r_l) else math.nan}
    fct = done["fct_s"].to_numpy(float)
    return {
        "reduction": REDUCTION,
        "utilization": float(summary["utilization"]), "loss_rate": loss,
        "queue_delay_mean_s": float(summary["queue_delay_mean_s"]),
        "transfers_started": int(len(t)), "transfers_completed": int(len(done)),
        "mean_size_started_bytes": float(t["size_bytes"].mean()) if len(t) else math.nan,
        "mean_fct_s": float(fct.mean()) if len(fct) else math.nan,
        "mean_think_s": float(t["think_s"].mean()) if len(t) else math.nan,
        "rtt_harmonic_s": rtt_h, "rtt_mean_s": rtt_a,
        "small": _stats(thr[small]), "large": _stats(thr[large]),
        "small_no_drop": float(no_drop[small].mean()) if small.any() else math.nan,
        "large_no_drop": float(no_drop[large].mean()) if large.any() else math.nan,
        "small_timeout": float(timed_out[small].mean()) if small.any() else math.nan,
        "large_timeout": float(timed_out[large].mean()) if large.any() else math.nan,
        "bins": bins, "classes": classes,
    }


# ---- the campaign ------------------------------------------------------------------------------

def _store(ctx):
    from bufsize.experiments import store as st

    d = getattr(ctx, "store_dir", None)
    if d is None:
        return None
    s = st.Store(Path(d).parent / "p000_t000")
    s.prepare({"written_by": "bufsize reproduce (paper 000, campaign T000: shared by fig_000_03..10)"})
    return s


def get_runs(ctx, specs: Iterable[tuple[int, int, int]], duration: float, warmup: float) -> dict[tuple, dict]:
    """Reduced records of the runs ``(users, buffer_bytes, seed)``: from memory, the store, or simulated
    (in chunks of a few runs, so that the parent never holds many full transfer tables at once)."""
    from bufsize.experiments import store as st
    from bufsize.reproduce._sim import run_scenarios

    engine = st.engine_version()
    mem = _CACHE.setdefault("runs", {})
    store = _store(ctx)
    out: dict[tuple, dict] = {}
    todo = []
    for u, b, seed in specs:
        sc = scenario(u, b, engine_seed(u, BUFFERS.index(b), seed), duration, warmup)
        si = sc.to_dict()
        key = st.point_key(si, si["seed"], engine)
        rec = mem.get(key)
        if rec is None and store is not None:
            rec = store.load(key)
            if rec is not None and rec.get("reduced", {}).get("reduction") != REDUCTION:
                rec = None
        if rec is not None:
            mem[key] = rec
            out[(u, b, seed)] = rec["reduced"]
        else:
            todo.append(((u, b, seed), key, sc))
    if todo:
        # the slow ones (many users, large buffers) first, for an even load over the workers
        todo.sort(key=lambda x: (-x[0][0], -x[0][1]))
        ctx.say(f"      T000: {len(todo)} runs to simulate ({len(out)} reused)")
        chunk = max(2, 2 * int(getattr(ctx, "workers", 1) or 1))
        for i in range(0, len(todo), chunk):
            part = todo[i:i + chunk]
            res = run_scenarios([p[2] for p in part], ctx, tables=("transfers",))
            for (spec, key, sc), r in zip(part, res):
                red = reduce_run(r["transfers"], r["summary"], warmup)
                rec = {"key": key, "status": "ok", "seed": spec[2], "summary": r["summary"], "reduced": red}
                mem[key] = rec
                if store is not None:
                    store.save(rec)
                out[spec] = red
    return out


#: Runs of the paper's length (5 min, first minute discarded) at the points where quick-scale misses are
#: judged: (users, buffer index). Quick mode runs them (one batch, shared by all the figures through
#: the store) to show whether the shorter quick runs are the reason for a miss.
PAPER_LENGTH_POINTS = ((1000, 0), (1000, 19), (1200, 19), (3000, 0), (3000, 6), (3000, 19))


def paper_length(ctx) -> dict[tuple[int, int], dict] | None:
    """Reduced records of the paper-length runs ``{(users, buffer index): record}`` (seed 1), or None in
    full mode (where every run already has the paper's length)."""
    if not ctx.quick:
        return None
    full = SCALE["full"]
    specs = [(u, BUFFERS[i], 1) for u, i in PAPER_LENGTH_POINTS]
    recs = get_runs(ctx, specs, full["duration"], full["warmup"])
    return {(u, i): recs[(u, BUFFERS[i], 1)] for u, i in PAPER_LENGTH_POINTS}


def paper_length_text(ctx, users: int, buffer_index: int, what) -> str:
    """" A paper-length run (...) gives ...": ``what(record)`` words the numbers; empty in full mode."""
    recs = paper_length(ctx)
    if recs is None:
        return ""
    full = SCALE["full"]
    return (f" A run of the paper's length ({full['duration']:g} s, the first {full['warmup']:g} s discarded) of "
            f"U{users} at {size_text(BUFFERS[buffer_index])} gives {what(recs[(users, buffer_index)])}.")


def size_text(b: float) -> str:
    """A buffer size in KiB, or in MiB from 10 MiB up."""
    return f"{b / MIB:.0f} MiB" if b >= 10 * MIB else f"{b / KIB:.0f} KiB"


def config(ctx) -> dict[str, Any]:
    return SCALE["quick" if ctx.quick else "full"]


def campaign(ctx, users: Iterable[int] = USERS, buffers: Iterable[int] | None = None) -> dict[str, Any]:
    """Runs of the given experiments (U values) over the mode's buffers (indices into BUFFERS; default all
    of the mode's), reduced. Returns ``{"runs": DataFrame, "records": {(U, B, seed): reduced}, "config"}``."""
    import pandas as pd

    cfg = config(ctx)
    idx = cfg["buffers"] if buffers is None else tuple(buffers)
    specs = [(u, BUFFERS[i], s) for u in users for i in idx for s in cfg["seeds"]]
    recs = get_runs(ctx, specs, cfg["duration"], cfg["warmup"])
    rows = []
    for (u, b, s) in specs:
        r = recs[(u, b, s)]
        rows.append({"users": u, "buffer_bytes": b, "buffer_kib": kib(b), "buffer_packets": b / PACKET_BYTES,
                     "seed": s, "utilization": r["utilization"], "loss_rate": r["loss_rate"],
                     "queue_delay_mean_ms": r["queue_delay_mean_s"] * 1e3,
                     "rtt_harmonic_ms": r["rtt_harmonic_s"] * 1e3, "rtt_mean_ms": r["rtt_mean_s"] * 1e3,
                     "transfers_completed": r["transfers_completed"],
                     "mean_size_kb": r["mean_size_started_bytes"] / 1e3, "mean_fct_s": r["mean_fct_s"],
                     "small_no_drop": r["small_no_drop"], "large_no_drop": r["large_no_drop"],
                     "small_timeout": r["small_timeout"], "large_timeout": r["large_timeout"],
                     "small_n": r["small"]["n"], "small_median_mbps": r["small"]["median"] / 1e6,
                     "small_cov": r["small"]["std"] / r["small"]["mean"] if r["small"]["n"] else math.nan,
                     "large_n": r["large"]["n"], "large_median_mbps": r["large"]["median"] / 1e6,
                     "large_cov": r["large"]["std"] / r["large"]["mean"] if r["large"]["n"] else math.nan})
    return {"runs": pd.DataFrame(rows), "records": recs, "config": cfg, "buffers": idx,
            "template": scenario(list(users)[0], BUFFERS[idx[0]], engine_seed(list(users)[0], idx[0], cfg["seeds"][0]),
                                 cfg["duration"], cfg["warmup"])}


def nanmean(values) -> float:
    """Mean of the finite values (NaN when there is none, without a warning)."""
    import numpy as np

    v = np.asarray([x for x in values if x is not None], float)
    v = v[np.isfinite(v)]
    return float(v.mean()) if len(v) else math.nan


def per_buffer(runs):
    """Means over the seeds per (users, buffer)."""
    return runs.groupby(["users", "buffer_bytes"], as_index=False).mean(numeric_only=True).drop(columns=["seed"])


def closed_loop_ceiling(users: int, mean_size_bytes: float, mean_fct_s: float = 0.0, think_s: float = THINK_S) -> float:
    """Offered load of U closed-loop users as a fraction of the link: U·S/(Th + Tt)/C (000 §III-A)."""
    return users * mean_size_bytes * 8 / (think_s + mean_fct_s) / RATE_BPS


# ---- B̂ and the throughput orderings (Figs 5–7) ---------------------------------------------------

def optimal_buffer(buffers, values, tol: float = 0.10) -> float:
    """B̂: the smallest buffer whose value is within ``tol`` (relative) of the largest value (NaN if none)."""
    import numpy as np

    b = np.asarray(buffers, float)
    v = np.asarray(values, float)
    ok = np.isfinite(v)
    if not ok.any():
        return math.nan
    b, v = b[ok], v[ok]
    order = np.argsort(b)
    b, v = b[order], v[order]
    top = v.max()
    return float(b[np.argmax(v >= (1 - tol) * top)])


# ---- size bins (Figs 9–10) ---------------------------------------------------------------------

def binned(records: list[dict[str, Any]], min_count: int = 20) -> Any:
    """Pool the size bins of several runs (seeds): per bin the mean throughput, the mean slow-start and
    S-model throughput of its flows, counts and bytes per class; bins with fewer than ``min_count`` flows
    are dropped."""
    import numpy as np
    import pandas as pd

    keys = [k for k in records[0]["bins"][0] if k not in ("lo", "hi")]
    rows = []
    for k in range(len(records[0]["bins"])):
        agg = {key: sum(r["bins"][k][key] for r in records) for key in keys}
        rows.append({"size_lo_bytes": records[0]["bins"][k]["lo"], "size_hi_bytes": records[0]["bins"][k]["hi"], **agg})
    df = pd.DataFrame(rows)
    df = df[df.n >= min_count].copy()
    n = df.n.to_numpy(float)
    df["size_mean_kb"] = df.sum_size / n / 1e3
    df["thr_mean_mbps"] = df.sum_thr / n / 1e6
    df["thr_std_mbps"] = np.sqrt(np.maximum(df.sum_thr2 / n - (df.sum_thr / n) ** 2, 0)) / 1e6
    df["slow_start_mbps"] = df.sum_rss / n / 1e6
    df["s_model_mbps"] = df.sum_rs / n / 1e6
    df["share_le4"] = df.n_le4 / n
    df["thr_le4_mbps"] = np.where(df.n_le4 > 0, df.sum_thr_le4 / np.maximum(df.n_le4, 1) / 1e6, np.nan)
    df["thr_ge5_mbps"] = np.where(df.n_ge5 > 0, df.sum_thr_ge5 / np.maximum(df.n_ge5, 1) / 1e6, np.nan)
    df["bytes"] = df.bytes_le4 + df.bytes_ge5
    df["no_drop_share"] = df.n_no_drop / n
    df["segments_mean"] = df.sum_segments / n
    df["rtt_mean_ms"] = df.sum_rtt / n * 1e3
    df["drops_per_event"] = np.where(df.sum_ce > 0, df.sum_drops / np.maximum(df.sum_ce, 1), np.nan)
    return df.reset_index(drop=True)


def grey_share(bins, l_model_mbps: float, tol: float = 0.2) -> tuple[float, Any]:
    """Share of the bytes in size bins that neither model approximates: the bin mean is more than ``tol``
    (relative) away from both the bins' mean S-model value and the L-model. Returns (share, mask)."""
    import numpy as np

    th = bins.thr_mean_mbps.to_numpy(float)
    s_ok = np.abs(th / bins.s_model_mbps.to_numpy(float) - 1) <= tol
    l_ok = np.abs(th / l_model_mbps - 1) <= tol if math.isfinite(l_model_mbps) else np.zeros(len(th), bool)
    grey = ~(s_ok | l_ok)
    total = bins.bytes.sum()
    return (float(bins.bytes[grey].sum() / total) if total > 0 else math.nan), grey


def s_range(bins) -> Any:
    """The S-model's scope: the size bins where most flows saw ≤ 4 congestion events (the classifier)."""
    return bins.share_le4.to_numpy(float) > 0.5


# ---- shared text -------------------------------------------------------------------------------

def deviations(ctx, camp: dict[str, Any] | None = None) -> list[str]:
    cfg = config(ctx)
    nb = len(cfg["buffers"])
    out = [
        "bufsize's packet-level engine stands in for the testbed (FIGURES.md: the simulator as a proxy with the "
        "same parameters): 1 Gb/s bottleneck, NewReno + SACK, IW 2, no delayed ACKs, 13 MB window limit, 1500-byte "
        "packets, Pareto sizes (mean 80 KB, shape 1.5), exponential think time (mean 1 s).",
        f"{nb} of the 20 buffer sizes (log-spaced 30 KiB–38 MiB; the paper's 20 values are not stated), "
        f"{len(cfg['seeds'])} seed(s), runs of {cfg['duration']:g} s with the first {cfg['warmup']:g} s discarded "
        f"({ctx.mode} scale; the paper: 5-min runs, first minute discarded, one run per point). The capacity, the "
        "RTTs and the user counts are the paper's, so the BDP (≈ 7 100 packets at the mean RTT of 85 ms) and the "
        "buffer sizes in packets are unchanged; only the length of the averages is shorter.",
        "The users are split evenly over the four minimum RTTs 30/50/120/140 ms (the paper: one RTT per client "
        "machine; users per client not stated) and, within each RTT, evenly over two 1 Gb/s input links (the two GigE "
        "aggregation links, each carrying users of every client, as the paper's users pick servers at random; their "
        "queues are unlimited: the aggregation switch is not described). Each user keeps its input link.",
        "Every (experiment, buffer, seed) is an independent run with its own random stream (engine seed "
        "10000·seed + 100·experiment + buffer index), as each buffer was a separate testbed experiment.",
        "Per-flow throughput = payload bytes / (engine transfer time + the flow's mean RTT): the engine has no "
        "handshake, the paper measures from the first SYN (assumed) and eq. (1) counts one RTT for it. Transfers "
        "that start in the warm-up or do not finish by the end of the run are left out (as in a trace of the "
        "measured window).",
        "No tcpdump monitor (the paper's monitor dropped 0.1 % of the packets it recorded).",
    ]
    return out
