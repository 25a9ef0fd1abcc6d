"""The toolkit's one set of defaults for a link and its TCP senders.

``bufsize recommend``, ``bufsize simulate``, :meth:`bufsize.Scenario.dumbbell`, scenario files and
the search/sweep link flags all take an unset packet size, SACK or PRR from here, so a size that
``recommend`` gives in packets means the same bytes and the same queueing delay once simulated.

The defaults describe a sender as today's Linux runs it: 1500-byte packets on the wire (an
Ethernet MTU), selective acknowledgements (SACK, RFC 2018/6675) and proportional rate reduction in
SACK recovery (PRR, RFC 6937), both on by default in Linux since 3.x.

The papers' own simulations (ns-2 in the 2000s) used 1000-byte packets and no SACK; the
reproduction modules (:mod:`bufsize.reproduce`) set :data:`PAPERS_TCP` explicitly wherever they
depend on it, so the reproduced figures do not follow changes made here.
"""

from __future__ import annotations

from typing import Any

#: Data packet size on the wire, bytes (an Ethernet MTU).
PACKET_BYTES = 1500
#: SACK loss recovery (RFC 6675), as Linux does by default.
SACK = True
#: Proportional rate reduction in SACK recovery (RFC 6937), as Linux does by default; it acts only
#: when SACK is on.
PRR = True
#: Utilization goal when none is given.
TARGET_UTILIZATION = 0.99

#: The TCP fields above, under the scenario schema's names.
TCP: dict[str, Any] = {"packet_bytes": PACKET_BYTES, "sack": SACK, "prr": PRR}

#: The settings of the papers' ns-2 simulations (1000-byte packets, Reno/NewReno without SACK):
#: what the reproduction modules, benchmarks and older tests state explicitly.
PAPERS_TCP: dict[str, Any] = {"packet_bytes": 1000, "sack": False, "prr": False}

#: The link that a bare ``bufsize recommend`` (no link argument at all) sizes: paper 004's backbone
#: example (a 10 Gb/s link with 250 ms RTT carrying 50 000 flows). A partial description never
#: falls back to it (see :func:`bufsize.recommendation.parse_input`).
EXAMPLE_LINK: dict[str, Any] = {"capacity": "10Gbps", "rtt": "250ms", "flows": 50_000}


def packet_size_text() -> str:
    """``"1500B"``: the default packet size as a unit string (for help texts and messages)."""
    return f"{PACKET_BYTES}B"
