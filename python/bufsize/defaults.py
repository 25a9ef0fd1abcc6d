"""The toolkit's defaults for a link and its goals; the TCP stack's come from :mod:`bufsize.profiles`.

Every scenario the toolkit builds starts from one TCP profile, ``linux`` unless another is named
(:mod:`bufsize.profiles`: CUBIC, initial window 10, delayed ACKs, SACK with PRR, RACK-TLP,
1500-byte packets). The constants below are that profile's, named for the code that needs one
detail (a packet size to turn bytes into packets, a help text).

The papers' own simulations ran ns-2's agents; the reproduction modules (:mod:`bufsize.reproduce`)
start from the ``ns2`` profile and state the details they change (``reproduce/_stack.py``).
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator

from bufsize import profiles as _profiles

_LINUX = _profiles.PROFILES[_profiles.DEFAULT].tcp

#: Data packet size on the wire, bytes (an Ethernet MTU).
PACKET_BYTES: int = _LINUX["packet_bytes"]
#: SACK loss recovery (RFC 6675), as Linux does by default.
SACK: bool = _LINUX["sack"]
#: Proportional rate reduction in SACK recovery (RFC 6937), as Linux does by default; it acts only
#: when SACK is on.
PRR: bool = _LINUX["prr"]
#: Loss detection: ``"rack"`` (RACK-TLP, RFC 8985, as Linux) or ``"dupack"`` (DupThresh duplicate
#: ACKs or SACKed segments, RFC 5681/6675, as ns-2 and ns-3). RACK needs SACK: without it the engine
#: detects losses by duplicate ACKs whatever this says (as Linux does).
LOSS_DETECTION: str = _LINUX["loss_detection"]
#: The loss detections the engine implements (its ``TcpConfig.loss_detection``).
LOSS_DETECTIONS = ("rack", "dupack")
#: Utilization goal when none is given.
TARGET_UTILIZATION = 0.99

#: The TCP fields above, under the scenario schema's names.
TCP: dict[str, Any] = {"packet_bytes": PACKET_BYTES, "sack": SACK, "prr": PRR}

#: Four details of the papers' ns-2 simulations (1000-byte packets, no SACK, no PRR, loss detection by
#: duplicate ACKs), for tests that state them on top of another profile; the whole ns-2 stack is
#: the ``ns2`` profile.
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
    :func:`using_loss_detection`, else the profile's in force (:func:`bufsize.profiles.using`).

    Raises :class:`bufsize.errors.BufsizeError` naming ``argument`` for anything else.
    """
    if value is None:
        now = _LOSS_DETECTION_NOW.get()
        return _profiles.get().tcp["loss_detection"] if now is None else now
    if isinstance(value, str) and value.strip().lower() in LOSS_DETECTIONS:
        return value.strip().lower()
    from bufsize.errors import BufsizeError

    raise BufsizeError(f"unknown loss detection {value!r} (known: {', '.join(LOSS_DETECTIONS)})", argument=argument)


def loss_detection_chosen() -> str | None:
    """The loss detection set by :func:`using_loss_detection` for the code running now (None: the
    profile's applies)."""
    return _LOSS_DETECTION_NOW.get()


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
