"""Shared setup of paper 003's analytic figures (OC-12, 100 ms, the paper's z = 2.05 and Table III)."""

from __future__ import annotations

CAPACITY_BPS = 622e6
RTT_S = 0.1
BDP_BYTES = CAPACITY_BPS * RTT_S / 8.0          # 7.775 MB ("delay 100 ms" read as the RTT, assumed)
Z = 2.05                                          # Phi^-1(2p - 1) for p = 0.99, rounded as the paper did
PROTOCOLS = ("reno", "bic", "cubic1", "cubic2", "ctcp")
LABEL = {"reno": "RENO", "bic": "BIC", "cubic1": "CUBIC'", "cubic2": "CUBIC''", "ctcp": "CTCP"}
TESTBED_MIX = {"reno": 42, "bic": 51, "cubic1": 30, "cubic2": 41, "ctcp": 34}


def a_paper(protocol: str) -> float:
    from bufsize.models import heterogeneous as h

    return h.characteristic_value(protocol, values="paper")


def a_mix() -> float:
    from bufsize.models import heterogeneous as h

    return h.mix_characteristic_value(TESTBED_MIX, values="paper")


def common_inputs() -> dict:
    return {"capacity_bps": CAPACITY_BPS, "rtt_s": RTT_S, "bdp_bytes": BDP_BYTES, "z": Z,
            "z_convention": "paper: Phi^-1(2p-1) rounded to 2.05 for p = 0.99 (MODELS.md H3)",
            "a_values": {p: a_paper(p) for p in PROTOCOLS}, "a_source": "Table III as printed (values='paper')",
            "testbed_mix": TESTBED_MIX, "a_mix": a_mix()}
