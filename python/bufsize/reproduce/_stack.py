"""The TCP stack the reproduction runs, stated once.

The papers simulated ns-2's agents, so a reproduction scenario starts from the ``ns2`` profile
(:mod:`bufsize.profiles`). The figures measured so far (docs/reproduction) ran with the stack the
engine had before the profiles existed, which differs from ``ns2`` in the details below; they are
kept here, explicitly, so that every recorded number still comes from the stack that this code
runs. Where a module sets a detail itself (``sack``, ``packet_size``, ...), the module wins.

- ``initial_rto_s`` 1 s (ns-2's ``rtxcur_init_`` is 3 s);
- ``flight_size`` ``"flight"`` (the data outstanding, at most the window; ns-2 halves the window);
- ``limited_transmit`` off (ns-2's ``singledup_`` is 1);
- ``sack``/``prr`` on and 1500-byte packets where a module does not say (the toolkit's earlier
  defaults; most modules set all three);
- ``delayed_ack_timeout_s`` 200 ms and ``abc_limit`` 2 (they act only in modules that turn
  delayed ACKs on);
- ``reno_careful`` off (ns-2's ``bugfix_`` is on: its Reno leaves a second hole in one window to the
  timer, where RFC 5681's Reno retransmits it after three more duplicate ACKs).
"""

from __future__ import annotations

from typing import Any, Mapping

#: The profile every reproduction scenario starts from.
PROFILE = "ns2"
#: The details on top of :data:`PROFILE` that the recorded reproduction ran with (see the module doc).
TCP: dict[str, Any] = {"initial_rto_s": 1.0, "flight_size": "flight", "sack": True, "prr": True,
                       "packet_bytes": 1500, "delayed_ack_timeout_s": 0.2, "abc_limit": 2,
                       "limited_transmit": False, "repeat_rto_holds_ssthresh": False, "reno_careful": False}


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
