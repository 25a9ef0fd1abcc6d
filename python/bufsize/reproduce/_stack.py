"""The TCP stack the reproduction runs, stated once.

The papers simulated ns-2's agents, so a reproduction scenario starts from the ``ns2`` profile
(:mod:`bufsize.profiles`): ns-2.35's timer and recovery rules (initial RTO 3 s, ssthresh from the
window, limited transmit, Reno's ``bugfix_``). Where a module sets a detail itself (``sack``,
``packet_size``, ...), the module wins. On top of the profile, where a module does not say:

- ``sack``/``prr`` on and 1500-byte packets (the toolkit's earlier defaults; every simulation
  module of the papers' ns-2 runs sets all three itself);
- ``delayed_ack_timeout_s`` 200 ms and ``abc_limit`` 2 (they act only in modules that turn
  delayed ACKs on);
- ns-2's halving (``ns2_halving``: ssthresh ⌊W/2⌋, the window W/2 with its fraction; the profile
  took it on 2026-11-29) is the profile's and acts in every SACK-less flow; the report was run
  again with it the same day.

The papers' buffers are ns-2 DropTail limits where the paper's simulator was ns-2 (000, 001, 002, 004):
:func:`ns2_limit` gives the engine's limit for one. Since 2026-11-29 the ``ns2`` profile also starts a
flow with one packet (ns-2's SYN, then its initial window of 2) and jitters its hosts by 1 µs (the
engine's exact clock otherwise locks a few flows into a lossless state ns-2 never reaches); the
whole report was run again with the three (bench/ns2/tiny_buffers.md).

Until 2026-11-28 the reproduction ran a stack that departed from ns-2's rules in four details
(initial RTO 1 s, ssthresh from the data in flight, limited transmit off, RFC 5681's Reno instead of
ns-2's careful one). On the OC3 grid that stack lost 11-25 % more packets than ns-2.35 at five Reno
points where the plain profile is within 0-11 % (bench/ns2/results.md), so the details were dropped
and every item run again; :data:`LEGACY` keeps them for the sensitivity notes that cite them.
"""

from __future__ import annotations

from typing import Any, Mapping

#: The profile every reproduction scenario starts from.
PROFILE = "ns2"
#: The details on top of :data:`PROFILE` where a module does not set them (see the module doc).
TCP: dict[str, Any] = {"sack": True, "prr": True, "packet_bytes": 1500, "delayed_ack_timeout_s": 0.2,
                       "abc_limit": 2}
#: The four details of the stack the reproduction ran before 2026-11-28 that departed from ns-2's rules, the
#: halving it had before 2026-11-29 (ns-2's came then), and the profile's initial window and host timing
#: before the same day (initial window 2 from the first packet, exact host timing).
LEGACY: dict[str, Any] = {"initial_rto_s": 1.0, "flight_size": "flight", "limited_transmit": False,
                          "reno_careful": False, "ns2_halving": False, "initial_window": 2, "host_jitter_s": 0.0}


def ns2_limit(buffer: int) -> int:
    """The engine's buffer limit (packets waiting) for an ns-2 DropTail ``limit_`` of ``buffer`` packets.

    ns-2.35's DropTail drops an arriving packet when the queue's length + 1 reaches ``limit_``
    (drop-tail.cc), so ``limit_`` B holds B − 1 waiting packets beside the one on the wire; the
    engine's limit counts the waiting packets alone. A 20-packet burst into an idle link loses the same
    packets in both with ns-2's B against the engine's B − 1 (bench/ns2/tiny_buffers.md). Used where a
    paper's buffer is an ns-2 one (its simulations); a hardware router's or a kernel qdisc's is not."""
    return max(int(buffer) - 1, 0)



def tcp(table: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``table`` (a scenario TCP table, aliases allowed) on top of :data:`TCP`; the table wins."""
    from bufsize.scenario._fields import _ALIASES

    out = dict(TCP)
    for key, value in (table or {}).items():
        out[_ALIASES["tcp"].get(key, key)] = value
    return out


def scenario(d: Mapping[str, Any]) -> dict[str, Any]:
    """A loose scenario dict with the reproduction's stack: ``profile`` set (unless given) and every
    TCP table (the dumbbell's, whose classes start from it, flows, short flows, users, mice) put on top of :data:`TCP`."""
    out = dict(d)
    out.setdefault("profile", PROFILE)
    db = out.get("dumbbell")
    if isinstance(db, Mapping):
        db = dict(db)
        db["tcp"] = tcp(db.get("tcp"))   # its classes (mix) start from this table
        out["dumbbell"] = db
    for key in ("flows", "short_flows", "users", "mice"):
        items = out.get(key)
        if isinstance(items, (list, tuple)):
            out[key] = [dict(x, tcp=tcp(x.get("tcp"))) if isinstance(x, Mapping) else x for x in items]
    return out


def dumbbell(**kw: Any):
    """:meth:`bufsize.Scenario.dumbbell` with the reproduction's stack (its keywords win)."""
    from bufsize.scenario import Scenario

    kw["tcp"] = tcp(kw.get("tcp"))
    kw.setdefault("profile", PROFILE)
    return Scenario.dumbbell(**kw)


def from_dict(d: Mapping[str, Any]):
    """:meth:`bufsize.Scenario.from_dict` with the reproduction's stack."""
    from bufsize.scenario import Scenario

    return Scenario.from_dict(scenario(d))
