"""Shared setup of paper 004's traffic-mix figures (Figs 13 and 14, §5.1.3).

A 400 Mb/s link carries n long-lived flows plus Poisson-arriving short flows of 14 packets offering
20 % of the capacity (≈ 80 Mb/s); RTTs uniform over 20–140 ms (mean 80 ms, assumed: 004 gives
neither), 1000-byte packets, so RTT·C = 4000 packets.

NewReno, not the engine's "reno": when this was written, "reno" gave a non-physical state in a check
run with 10 long flows at 400 Mb/s and a 1265-packet buffer (loss rate 19 %, mean windows up to
35 000 packets against a pipe of 5300); the engine bug behind it (halving a FlightSize that included
data sent during inflated recoveries) is fixed, and "reno" now gives loss 0.01 % with windows within
the pipe, but utilization 0.76 (Reno's repeated halvings within a window) against NewReno's 0.98.
The figures were measured with NewReno and still use it.
"""

from __future__ import annotations

CAPACITY = 400e6
PACKET_BYTES = 1000
RTT = "20ms..140ms"
MEAN_RTT = 0.080
BDP = CAPACITY / 8 / PACKET_BYTES * MEAN_RTT    # 4000 packets
SHORT_LOAD = 0.2
SHORT_LENGTH = 14
CC = "newreno"


def scenario(n: int, buffer_packets: int, *, duration: float, warmup: float, seed: int = 1, short: bool = True):
    """The mix with n long flows and the given buffer; ``short=False`` leaves the short flows out."""
    from bufsize.scenario import Scenario

    tcp = {"cc": CC, "packet_size": f"{PACKET_BYTES}B"}
    return Scenario.from_dict({
        "seed": seed, "duration": f"{duration:g}s", "warmup": f"{warmup:g}s",
        "dumbbell": {"capacity": CAPACITY, "flows": n, "rtt": RTT, "buffer": f"{buffer_packets}pkt",
                     "start": "0s..5s", "tcp": tcp},
        "short_flows": [{"load": SHORT_LOAD, "size": f"{SHORT_LENGTH}pkt", "rtt": RTT, "tcp": tcp, "name": "short"}]
        if short else [],
        "measure": {"phase_trace_interval": None, "queue_histogram": False},
    })


def afct(transfers, *, start: float, stop: float) -> tuple[float, int, int]:
    """(mean FCT of the short transfers that started in [start, stop) and completed, completed, not completed)."""
    t = transfers[(transfers.start_s >= start) & (transfers.start_s < stop)]
    done = t[t.completed]
    return float(done.fct_s.mean()) if len(done) else float("nan"), int(len(done)), int(len(t) - len(done))
