"""Shared setup of paper 004's single-bottleneck long-flow figures (Figs 1, 4–7).

The TR's values (MODELS.md A-20): C = 1000 packets/s and 2Tp·C = 142 packets; here with 1000-byte
packets (C = 8 Mb/s, RTT 142 ms), ns-2's Reno through the ``ns2`` profile (no delayed ACKs, a SYN then
initial window 2, run as initial window 1), the buffer an ns-2 DropTail limit (the engine's B − 1).
"""

from __future__ import annotations

import math

from bufsize.reproduce._setup import Setting

PACKET_BYTES = 1000
C_PPS = 1000.0

#: The access rate of 004's ns-2 simulations (Figs 10–15), our choice: 1 Gb/s. 004 names no rate for
#: them; it says only that they had access links, faster than the bottleneck, that spaced the packets of a
#: burst (the sentences below). 1 Gb/s is the one access-side rate the paper gives, the Gigabit Ethernet
#: that aggregated its testbed's hosts (§5.2), and it is faster than every simulated bottleneck (40–400
#: Mb/s): 2.5–25 times, so a burst of k packets reaches the router over k·8 µs instead of at once.
ACCESS_BPS = 1e9
ACCESS_SENTENCES = (
    "§4: 'Consider again the topology in Figure 2 with multiple senders on separate access links.'",
    "§4: 'For our model and simulation we assumed access links that are faster than the bottleneck link.'",
    "§4 (Fig. 10): 'the access links before the bottleneck link space out the packets of each burst. Slower "
    "access links would produce an even smaller average queue length.'",
    "§5.2: '... aggregated using a second Cisco GSR 12410 router with Gigabit Ethernet line cards.'",
)
#: the deviations' account of the choice, after "Access links 1 Gb/s (our choice), <where>: "
ACCESS_WHY = ("004 names no rate for its ns-2 access links, only 'access links that are faster than the bottleneck "
              "link' (§4); 1 Gb/s is the Gigabit Ethernet of its testbed hosts (§5.2).")
#: inputs.json's account of the choice
ACCESS_SOURCE = ("our choice (004 states no rate for its ns-2 access links): 1 Gb/s, the Gigabit Ethernet of §5.2, "
                 "faster than the bottleneck as §4 says. " + " ".join(ACCESS_SENTENCES))
RTT_S = 0.142
BDP = C_PPS * RTT_S        # 142 packets

# -- settings shared by the SETUP of 004's simulated items (bufsize.reproduce._setup) --------------------------

#: §5.1's TCP, for the items simulated as in §5.1 (Figs 8–15 and the text claims)
TCP_RENO = Setting("TCP variant", "Reno", "paper",
                   "We used TCP Reno with a maximum advertised window size of at least 10000 bytes", "§5.1")
#: §5.1's queue
QUEUE = Setting("queue", "one drop-tail FIFO at the bottleneck; a buffer of B packets is an ns-2 DropTail limit_ "
                "(the engine holds B − 1 waiting beside the one on the wire)", "paper",
                "We assume that the router maintains a single FIFO queue, and drops packets from the tail only when the "
                "queue is full", "§5.1")
#: the reverse path of the items that build their own links (short flows, users)
REVERSE_PATH = Setting("reverse path", "no congestion: the ACKs return over their own 10 Gb/s link", "paper",
                       "A single point of congestion means there … is no reverse path congestion", "§5.3")
#: 1000-byte packets where 004 leaves the choice between its two MTUs open
PACKET_1000 = Setting("packet size", "1000 bytes", "ours",
                      "004's simulations used 'a 1500 or 1000 byte MTU' (§5.1) and no figure says which; we take "
                      "1000 B, ns-2's default packetSize_ (ambiguous in the paper)")

_STACK_IW = {1: "ns-2's SYN then initial window 2, run as an initial window of 1",
             2: "initial window 2 from the first packet (set by the item: §4's bursts of 2, 4, 8, …)"}


#: 004's flow completion time (§5.1.2), as a setting of the items that measure it (Figs 12 and 14)
COMPLETION_WORDS = ("the flow completion time, defined as the time from when the first packet is sent until the last "
                    "packet reaches the destination")


def completion_times(done):
    """The completion times of finished transfers (a DataFrame of the engine's transfer records) as 004 §5.1.2
    defines them: from the first packet sent (``start_s``) to the receiver holding the last one
    (``delivered_s``), not to its acknowledgement (the engine's ``fct_s``, about half an RTT later)."""
    return done.delivered_s - done.start_s


def tcp_stack(initial_window: int = 1, name: str = "TCP stack") -> Setting:
    """The ns2 profile's details (bufsize.reproduce._stack) as a setting; ``initial_window`` 2 where an item sets it."""
    return Setting(name, "the ns2 profile (_stack.py), ns-2.35's Agent/TCP defaults: no SACK, an ACK per packet, "
                   "limited transmit, Reno's bugfix_, initial RTO 3 s, min RTO 200 ms, no window cap; "
                   f"{_STACK_IW[initial_window]}; 1-µs host jitter", "ours",
                   "004 ran ns-2 (§5.1) and names no agent setting but Reno and an advertised window 'of at least "
                   "10000 bytes'; the profile holds ns-2.35's defaults, checked against ns-2.35 itself (bench/ns2). "
                   "No window cap is our reading of 'at least' (ambiguous); 004's model assumes none (§5.3)")


def access_setting(value: str) -> Setting:
    """The 1 Gb/s access links of 004's §4–§5 simulations (our choice, :data:`ACCESS_WHY`)."""
    return Setting("access links", value, "ours", ACCESS_WHY + " Faster than every simulated bottleneck (40–400 Mb/s).")


def run_length_setting(value: str, why: str = "") -> Setting:
    """A run length of a §5 simulation, against §5.1's 'several minutes' per run."""
    return Setting("run length", value, "ours", "004's ns-2 runs each simulated 'several minutes of network traffic' "
                   "(§5.1) with no warm-up stated" + (f"; {why}" if why else ""))


def single_flow_scenario(buffer_packets: int, *, duration: float, warmup: float, flows: int = 1,
                         start: str = "0s", trace_interval: str = "20ms", rtt_s: float = RTT_S,
                         capacity_pps: float = C_PPS, seed: int = 1):
    from bufsize.reproduce import _stack

    return _stack.dumbbell(capacity=f"{capacity_pps * PACKET_BYTES * 8:g}bps", flows=flows, rtt=f"{rtt_s * 1000:g}ms",
                             buffer=f"{_stack.ns2_limit(buffer_packets)}pkt", duration=f"{duration:g}s", warmup=f"{warmup:g}s", seed=seed,
                             cc="reno", packet_size=f"{PACKET_BYTES}B", sack=False, prr=False, start=start,
                             queue_trace_interval=trace_interval, cwnd_trace_flows=list(range(flows)),
                             cwnd_trace_interval=trace_interval)


def halvings(t, w, drop: float = 0.3):
    """Indices i where the window falls by more than ``drop`` of its value between samples i and i+1."""
    import numpy as np

    w = np.asarray(w, dtype=float)
    d = np.diff(w)
    return np.where(d < -drop * w[:-1])[0]


def fluid_window(t_since_loss, P: float, B: float, C: float):
    """Appendix B fluid sawtooth of one Reno flow after a halving (packets; t in s).

    W starts at (P + B)/2; while W < P the queue is empty and W grows one packet per RTT 2Tp = P/C;
    from W = P on, dW/dt = C/W, so W = sqrt(2C(t − t1) + P²), until W = P + B.
    """
    import numpy as np

    t = np.asarray(t_since_loss, dtype=float)
    w0 = (P + B) / 2.0
    rtt = P / C
    t1 = max(0.0, (P - w0) * rtt)
    w_lin = w0 + t / rtt
    start = max(P, w0)
    w_sq = np.sqrt(2.0 * C * np.clip(t - t1, 0.0, None) + start * start)
    w = np.where(t < t1, w_lin, w_sq)
    return np.minimum(w, P + B)


def fluid_period(P: float, B: float, C: float) -> float:
    """Loss-to-loss period of the fluid sawtooth (s)."""
    w0 = (P + B) / 2.0
    rtt = P / C
    t1 = max(0.0, (P - w0) * rtt)
    start = max(P, w0)
    return t1 + ((P + B) ** 2 - start * start) / (2.0 * C)


def overlay(t, w, P: float, B: float, C: float):
    """Fluid curve aligned to each simulated halving: (t_fluid, w_fluid, mean |W_sim − W_fluid| / mean W_sim)."""
    import numpy as np

    t = np.asarray(t, dtype=float)
    w = np.asarray(w, dtype=float)
    idx = halvings(t, w)
    tf = np.full(len(t), math.nan)
    wf = np.full(len(t), math.nan)
    for k, i in enumerate(idx):
        end = idx[k + 1] + 1 if k + 1 < len(idx) else len(t)
        seg = slice(i + 1, end)
        tf[seg] = t[seg]
        wf[seg] = fluid_window(t[seg] - t[i + 1], P, B, C)
    ok = ~np.isnan(wf)
    err = float(np.mean(np.abs(w[ok] - wf[ok])) / np.mean(w[ok])) if ok.any() else math.nan
    return tf, wf, err
