"""The toolkit's one set of defaults for a link and its TCP senders.

``bufsize recommend``, ``bufsize simulate``, :meth:`bufsize.Scenario.dumbbell`, scenario files and
the search/sweep link flags all take an unset packet size, SACK or PRR from here, so a size that
``recommend`` gives in packets means the same bytes and the same queueing delay once simulated.

The defaults describe a sender as today's Linux runs it: 1500-byte packets on the wire (an
Ethernet MTU), selective acknowledgements (SACK, RFC 2018/6675) and proportional rate reduction in
SACK recovery (PRR, RFC 6937), both on by default in Linux since 3.x, and loss detection by time
with tail-loss probes (RACK-TLP, RFC 8985; Linux's default since 4.18, ``net.ipv4.tcp_recovery=1``).

The papers' own simulations (ns-2 in the 2000s) used 1000-byte packets and no SACK; the
reproduction modules (:mod:`bufsize.reproduce`) set :data:`PAPERS_TCP` explicitly wherever they
depend on it, so the reproduced figures do not follow changes made here.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator

#: Data packet size on the wire, bytes (an Ethernet MTU).
PACKET_BYTES = 1500
#: SACK loss recovery (RFC 6675), as Linux does by default.
SACK = True
#: Proportional rate reduction in SACK recovery (RFC 6937), as Linux does by default; it acts only
#: when SACK is on.
PRR = True
#: Loss detection: ``"rack"`` (RACK-TLP, RFC 8985, as Linux) or ``"dupack"`` (DupThresh duplicate
#: ACKs or SACKed segments, RFC 5681/6675, as ns-2 and ns-3). RACK needs SACK: without it the engine
#: detects losses by duplicate ACKs whatever this says (as Linux does).
LOSS_DETECTION = "rack"
#: The loss detections the engine implements (its ``TcpConfig.loss_detection``).
LOSS_DETECTIONS = ("rack", "dupack")
#: Utilization goal when none is given.
TARGET_UTILIZATION = 0.99

#: The TCP fields above, under the scenario schema's names.
#: (Not LOSS_DETECTION: scenario files and Scenario.dumbbell keep the engine's "dupack" unless they set
#: it; only the commands that build scenarios from flags apply it.)
TCP: dict[str, Any] = {"packet_bytes": PACKET_BYTES, "sack": SACK, "prr": PRR}

#: The settings of the papers' ns-2 simulations (1000-byte packets, Reno/NewReno without SACK, loss
#: detection by duplicate ACKs): what the reproduction modules, benchmarks and older tests state
#: explicitly.
PAPERS_TCP: dict[str, Any] = {"packet_bytes": 1000, "sack": False, "prr": False, "loss_detection": "dupack"}

#: The link that a bare ``bufsize recommend`` (no link argument at all) sizes, and what ``make demo``
#: shows: a 1 Gb/s aggregation port carrying 100 long-lived flows whose RTTs spread over 10–50 ms.
#: It is chosen so that its verified answer fits the interactive budget (its verification is
#: estimated at about 12 s of CPU on an idle machine; bench/recommend_verify.md) and so that it shows
#: what the verification adds: the models' choice there (001's single-flow sawtooth, ~1 760 packets)
#: is about four times what the simulated traffic needs. A partial description never falls back to
#: it (see :func:`bufsize.recommendation.parse_input`).
EXAMPLE_LINK: dict[str, Any] = {"capacity": "1Gbps", "rtt": "10ms..50ms", "flows": 100}
#: The example link in words (for the "assumed" line and help texts).
EXAMPLE_LINK_TEXT = "a 1 Gb/s aggregation port, 100 long-lived flows, RTTs 10–50 ms"

#: Paper 004's backbone example (10 Gb/s, RTT 250 ms, 50 000 flows), the bare command's link until
#: its verification (minutes here) was found too slow for an interactive default; documented in the
#: README as flags, where the models answer at once and the verification runs with ``--verify``.
BACKBONE_LINK: dict[str, Any] = {"capacity": "10Gbps", "rtt": "250ms", "flows": 50_000}


#: The loss detection :func:`using_loss_detection` set for the code running inside it (None: the default).
_LOSS_DETECTION_NOW: ContextVar[str | None] = ContextVar("bufsize_loss_detection", default=None)


def loss_detection(value: Any = None, argument: str = "--loss-detection") -> str:
    """``value`` checked and lower-cased (``"RACK"`` -> ``"rack"``); when None, the one in force: set by
    :func:`using_loss_detection`, else :data:`LOSS_DETECTION`.

    Raises :class:`bufsize.errors.BufsizeError` naming ``argument`` for anything else.
    """
    if value is None:
        now = _LOSS_DETECTION_NOW.get()
        return LOSS_DETECTION if now is None else now
    if isinstance(value, str) and value.strip().lower() in LOSS_DETECTIONS:
        return value.strip().lower()
    from bufsize.errors import BufsizeError

    raise BufsizeError(f"unknown loss detection {value!r} (known: {', '.join(LOSS_DETECTIONS)})", argument=argument)


@contextmanager
def using_loss_detection(value: Any) -> Iterator[str]:
    """Within the block, the scenarios that ``recommend`` verifies and the link flags of ``search`` /
    ``sweep`` describe use loss detection ``value`` (``"rack"`` or ``"dupack"``; None keeps the default)::

        with bufsize.defaults.using_loss_detection("dupack"):
            rec = bufsize.recommend(capacity="1Gbps", rtt="10ms..50ms", flows=100, verify=True)
    """
    token = _LOSS_DETECTION_NOW.set(None if value is None else loss_detection(value))
    try:
        yield loss_detection()
    finally:
        _LOSS_DETECTION_NOW.reset(token)


def packet_size_text() -> str:
    """``"1500B"``: the default packet size as a unit string (for help texts and messages)."""
    return f"{PACKET_BYTES}B"
