"""Small scenarios for the experiments tests (each run takes milliseconds)."""

from __future__ import annotations


def tiny(duration: str = "20s", **over) -> dict:
    """One or a few Reno flows at 10 Mb/s, RTT 100 ms (BDP 125 packets of 1000 B), on the papers'
    ns-2 agents (the ns2 profile: IW 2, an ACK per segment), which these checks were derived for."""
    db = {"capacity": "10Mbps", "flows": 1, "rtt": "100ms", "buffer": "0.5bdp", "start": "0s..0.5s",
          "tcp": {"cc": "reno", "packet_size": "1000B", "sack": False, "prr": False}}  # the papers' settings
    db.update(over)
    return {"seed": 1, "duration": duration, "warmup": "5s", "profile": "ns2", "dumbbell": db}
