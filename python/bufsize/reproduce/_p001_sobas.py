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
