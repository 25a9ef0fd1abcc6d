"""Shared path of paper 001's §VII simulations (Fig. 8, Table I): a target transfer through a 50 Mb/s
tight link with cross traffic, with or without SOBAS at the target's receiver.

001 does not print the topology of its Fig. 9 (lost with the image) nor its cross-traffic sources'
parameters; FIGURES.md infers C = 50 Mb/s, Tm = 100 ms (C·Tm = 625 packets of 1000 B) and the
§VII-B mix, in bytes at the tight link: 60 % persistent TCP, 30 % TCP mice, 10 % Pareto UDP.
Here the path is one tight link (the hops before and after it are uncongested 1 Gb/s links, which
only add delay): the target enters at ``acc`` and leaves through ``tight``; its ACKs return over
``tightr`` and ``racc``; the cross traffic shares ``tight`` and ``tightr`` with its own
uncongested links ``xin``/``xout`` (same 100-ms two-way delay).

Cross-traffic levels (calibrated in a check run without the target: the tight link's utilization
from the cross traffic alone is measured and reported by the items):

- ``"70"``: 10 persistent Reno+SACK flows with a 27-packet window cap (≈ 21.5 Mb/s), 64 mice
  (10–15 packets, sleep 0.1–0.4 s, ≈ 10.6 Mb/s) and one Pareto-gap UDP source (shape 1.9, 3.5 Mb/s);
- ``"30"``: the same kinds at about 3/7 of that (4 persistent flows with a 28-packet cap, 30 mice,
  1.5 Mb/s UDP);
- ``"100"``: 20 persistent Reno+SACK flows without a cap (congestion-limited: they fill the link;
  20 as §VI-A's congestion-limited sources, which §VII reuses), the mice of ``"70"`` and 3.5 Mb/s UDP.

The mice counts were 60, 25 and 60 until 2026-11-29, when the ``ns2`` profile's flows began with one
packet (ns-2's SYN) instead of two: each mouse then takes a round trip more, and the same counts loaded
the link to 68.5 % and 28.3 % (cross traffic alone, Bt 625, 200 s after 50 s). 64 and 30 give 70.2 % and
29.8 % (60 and 25 gave 71.3 % and 29.5 % before).
"""

from __future__ import annotations

from typing import Any

from bufsize.reproduce._setup import Setting

CAPACITY = 50e6
RTT = 0.100
PACKET_BYTES = 1000
C_TM = CAPACITY * RTT / 8 / PACKET_BYTES   # 625 packets
TARGET_START = 50.0

CROSS = {
    "30": {"tcp": 4, "max_window": 28, "mice": 30, "udp_bps": 1.5e6},
    "70": {"tcp": 10, "max_window": 27, "mice": 64, "udp_bps": 3.5e6},
    "100": {"tcp": 20, "max_window": None, "mice": 64, "udp_bps": 3.5e6},
}


def _per_load(key: str, fmt=lambda v: f"{v}") -> str:
    return " / ".join(fmt(CROSS[lo][key]) for lo in ("30", "70", "100"))


#: the ns2 profile as §VII's runs use it, in words
NS2_STACK = ("the ns2 profile (_stack): an ACK per segment (40-B ACKs), a SYN then initial window 2 (run as initial "
             "window 1), min RTO 200 ms, initial RTO 3 s, max RTO 60 s, limited transmit, ns-2's halving, 1 µs of host "
             "jitter; SACK where named, no PRR")

#: the path and cross traffic of §VII's simulations, shared by Fig. 8 and Table I (each adds its buffers, its
#: reverse path, its target and its run length)
SETUP_PATH = (
    Setting("topology", "one 50 Mb/s tight link between uncongested 1 Gb/s links: the target enters over a 25-ms "
            "access link, crosses the tight link (25 ms), and its ACKs return over the tight link's reverse side and "
            "a 50-ms link; the cross traffic has its own 25-ms and 50-ms edge links", "ours",
            "001's multi-hop topology (Fig. 9) is lost with its image and the text does not describe it; FIGURES.md "
            "infers several hops with one tight link; we keep the tight link, which carries all the cross traffic"),
    Setting("tight link C and minimum RTT Tm", f"{CAPACITY / 1e6:g} Mb/s, {RTT * 1e3:g} ms (C·Tm = {C_TM:g} packets)",
            "figures", "FIGURES.md (001-Fig9): 'Tight-link capacity 50 Mb/s and Tm = 100 ms as in §V (assumed)'; §VII "
            "does not restate them"),
    Setting("packet size", f"{PACKET_BYTES} B (target and cross traffic)", "figures",
            "FIGURES.md: 'All simulated data packets are 1000 B' (001 says so in §V; §VII reuses §V's sources)"),
    Setting("queue discipline", "drop-tail at the tight link", "paper",
            "Finally, we assume that the network links use Drop- … Tail buffers, rather than RED-like active queues",
            "§VII"),
    Setting("cross-traffic mix", "60 % persistent TCP, 30 % TCP mice, 10 % Pareto UDP, in bytes at the tight link "
            "(calibrated with the cross traffic alone)", "paper",
            "Using the same sources as in §V, the cross traffic mix at the tight link, prior to the target transfer, "
            "consists of 60% persistent TCP, 30% mice TCP, and 10% Pareto traffic (in bytes)", "§VII-B"),
    Setting("persistent cross flows", "Reno with SACK, started 0.1 s apart from 0 s; ρt 30 / 70 / 100 %: "
            f"{_per_load('tcp')} flows, window caps {_per_load('max_window', lambda v: 'none' if v is None else f'{v}')} "
            "packets", "ours",
            "§VII-B reuses 'the same sources as in §V' (20 TCP Reno flows there) without counts or windows per load; "
            "ours are calibrated to 60 % of each load (20 uncapped at 100 %, as §VI-A's congested case); SACK is ours "
            "(§V's NS Reno flows have none)"),
    Setting("TCP mice", f"ρt 30 / 70 / 100 %: {_per_load('mice')} sources, 10–15 packets (uniform integer), sleep "
            "U[0.1, 0.4] s, Reno without SACK, RTT 100 ms", "ours",
            "§V-C's mice are 2000 sources sleeping U[4.25, 4.75] s; §VII-B gives only their 30 % share, so the count "
            "is calibrated to it (cross traffic alone, Bt 625: 70.2 % and 29.8 %) with shorter sleeps"),
    Setting("UDP cross traffic", "one source with Pareto gaps of shape 1.9; ρt 30 / 70 / 100 %: "
            f"{_per_load('udp_bps', lambda v: f'{v / 1e6:g}')} Mb/s", "ours",
            "§V-A's UDP is 10 sources with α = 1.5; §VII-B gives only its 10 % share; one source carries it here, "
            "with a shape of our choosing"),
    Setting("target TCP", "Reno with SACK, no PRR", "ours",
            "001 does not name the target's variant in §VII (its §V–VI targets are read as SACK-less NS Reno)"),
    Setting("TCP stack (every flow)", NS2_STACK, "ours",
            "001 gives no NS agent settings; ns-2.35's defaults stand in"),
    Setting("target start", f"{TARGET_START:g} s, after the cross traffic has run from 0 s", "ours",
            "001 does not say; 50 s as S001's warm-up, long enough for the cross traffic to settle"),
)

#: SOBAS's rules, the same in the engine and the real tool (crate bufsize-sobas; docs/transfer.md)
SOBAS_RULES = (
    Setting("SOBAS start", "the receive limit at its maximum", "paper",
            "Upon connection establishment, SOBAS sets the send and receive socket buffers to their maximum possible "
            "value.", "§VII-A"),
    Setting("SOBAS probes", "100 B every 20 ms from the receiver, echoed by the sender over the data's path", "paper",
            "the size of the periodic probes is 100 bytes, and they are sent with a period of 20ms", "§VII-A"),
    Setting("SOBAS linear increase", "2 segments per RTT once the window reaches S̃", "paper",
            "the socket buffer size is further increased linearly, by two maximum segments per round-trip, until the "
            "detection of rate saturation", "§VII-A"),
    Setting("SOBAS rate saturation", "the slope of the last five receive-rate samples, each the bytes received in "
            "1 s", "paper", "counting the amount of bytes received in every second … SOBAS calculates the slope of the "
            "last five receive-throughput measurements.", "§VII-A"),
    Setting("SOBAS saturation threshold", "|slope| ≤ 0.5·MSS/T̄² (half the growth of a window in congestion "
            "avoidance)", "ours", "001 says only 'approximately zero' (§VII-A); the controller's threshold scales with "
            "the RTT (docs/transfer.md)"),
    Setting("SOBAS decision", "a forward probe echo lost among the last 1000 probes: congested, the limit stays at "
            "the maximum; otherwise the limit becomes R_rs·T_rs", "paper",
            r"SOBAS limits then the receive-socket buffer size to $S_{r_s} = R_{r_s} \times T_{r_s}$ … it examines "
            "whether any of the last 1000 periodic probes have been lost in the forward path", "§VII-A"),
    Setting("SOBAS readjustment", "none: one decision per transfer", "paper",
            "In the current prototype, SOBAS does not attempt to readjust the socket buffer size after it has already "
            "done so once", "§VII-A"),
)

#: SOBAS as the engine runs it (Fig. 8, Table I): the rules and the engine's own choices (docs/simulate.md)
SETUP_SOBAS = SOBAS_RULES + (
    Setting("SOBAS maximum buffer", "16 MiB (the engine's default)", "ours",
            "001 assumes a maximum large enough never to limit a connection (§VII); 16 MiB is over 20 times C·Tm here"),
    Setting("SOBAS initial limit (simulator)", "S̃ = C̃·T̃, C̃ the median rate of the target's first five slow-start "
            "rounds (first to last packet at the receiver)", "ours",
            "001 sends five packet trains in the first round trips (§VII-A) of a size it does not give; the engine "
            "reads the five trains off the target's own slow-start rounds, sending no extra packets"),
)


def scenario(buffer_packets: int, *, load: str = "70", duration: float, target: bool = True,
             sobas: bool = True, max_window: int | None = None, target_bytes: float | None = 1e9,
             seed: int = 1, trace_target_cwnd: bool = False, reverse: bool = False):
    """The path with ``buffer_packets`` at the tight link and the cross traffic of ``load``.

    The target (flow 0, Reno+SACK, starts at 50 s) has SOBAS at its receiver when ``sobas``; else
    ``max_window`` (packets) is its static socket buffer (None: no limit). ``reverse``: the same cross
    traffic also runs in the reverse direction (through ``tightr``, which then gets the same drop-tail
    buffer), as in 001's §V–VI path (S001: "the reverse path carries the same cross traffic"); the
    target's ACKs then queue behind it. Off by default (the path of Fig. 8).
    """
    from bufsize.reproduce import _stack

    x = CROSS[load]
    links = [{"name": "acc", "rate": "1Gbps", "delay": "25ms"},
             {"name": "tight", "rate": CAPACITY, "delay": "25ms", "buffer": f"{_stack.ns2_limit(buffer_packets)}pkt"},
             {"name": "tightr", "rate": CAPACITY, **({"buffer": f"{_stack.ns2_limit(buffer_packets)}pkt"} if reverse else {})},
             {"name": "racc", "rate": "1Gbps", "delay": "50ms"},
             {"name": "xin", "rate": "1Gbps", "delay": "25ms"},
             {"name": "xout", "rate": "1Gbps", "delay": "50ms"}]
    flows = []
    if target:
        tcp: dict[str, Any] = {"cc": "reno", "sack": True, "prr": False, "packet_size": f"{PACKET_BYTES}B"}
        if max_window is not None and not sobas:
            tcp["max_window"] = int(max_window)
        f: dict[str, Any] = {"path": ["acc", "tight"], "ack_path": ["tightr", "racc"], "start": f"{TARGET_START:g}s",
                             "tcp": tcp}
        if target_bytes is not None:
            f["bytes"] = float(target_bytes)
        if sobas:
            f["sobas"] = True
        flows.append(f)
    for i in range(x["tcp"]):
        tcp = {"cc": "reno", "sack": True, "prr": False, "packet_size": f"{PACKET_BYTES}B"}
        if x["max_window"] is not None:
            tcp["max_window"] = x["max_window"]
        flows.append({"path": ["xin", "tight"], "ack_path": ["tightr", "xout"], "start": f"{0.1 * i:g}s", "tcp": tcp})
        if reverse:
            flows.append({"path": ["rxin", "tightr"], "ack_path": ["tight", "rxout"], "start": f"{0.1 * i:g}s",
                          "tcp": dict(tcp)})
    if reverse:
        links += [{"name": "rxin", "rate": "1Gbps", "delay": "50ms"}, {"name": "rxout", "rate": "1Gbps", "delay": "25ms"}]
    mice = [{"count": x["mice"], "path": ["xin", "tight"], "ack_path": ["tightr", "xout"], "rtt": "100ms",
             "sleep": "0.1s..0.4s", "tcp": {"cc": "reno", "sack": False, "prr": False,
                                                     "packet_size": f"{PACKET_BYTES}B"}}]
    udp = [{"rate": x["udp_bps"], "packet_size": f"{PACKET_BYTES}B", "path": ["xin", "tight"],
            "pattern": {"pareto": {"shape": 1.9}}}]
    if reverse:
        mice.append({**mice[0], "path": ["rxin", "tightr"], "ack_path": ["tight", "rxout"], "name": "rmice"})
        udp.append({**udp[0], "path": ["rxin", "tightr"], "name": "rudp"})
    measure: dict[str, Any] = {"phase_trace_interval": None, "queue_histogram": False}
    if trace_target_cwnd and target:
        measure.update({"cwnd_trace_flows": [0], "cwnd_trace_interval": 0.1})
    return _stack.from_dict({
        "seed": seed, "duration": f"{duration:g}s", "warmup": f"{TARGET_START:g}s", "links": links,
        "bottleneck": "tight", "flows": flows,
        "mice": mice, "udp": udp,
        "measure": measure,
    })


def cross_summary(result: dict[str, Any]) -> dict[str, float]:
    """Utilization and loss rate of the tight link with the cross traffic alone (a run without the target)."""
    s = result["summary"]
    return {"utilization": s["utilization"], "loss_rate": s["loss_rate"]}
