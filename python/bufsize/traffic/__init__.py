"""Your own traffic: size the buffer on a packet capture or flow records.

- :func:`read` — flow records from a pcap/pcapng capture (read by the Rust extension, streaming),
  a CSV/Parquet flow-record table, or a Zeek ``conn.log`` (:mod:`bufsize.traffic.records`);
- :func:`profile` — the traffic profile they add up to (:mod:`bufsize.traffic.profile`);
- :func:`to_scenario` — the engine scenario built from a profile; :func:`recommend_inputs` — the
  keyword arguments of :func:`bufsize.recommendation.recommend` (:mod:`bufsize.traffic.scenario`);
- :func:`load` — a profile from any input, including a saved profile (JSON);
- :func:`assumed_cc` / :func:`congestion_control` — the senders' congestion control every command
  takes for measured traffic (given with ``--cc``/``--mix``, recorded in the profile, else the stack
  profile's).

A capture may be gzip-compressed (``.pcap.gz``, read as it is decompressed) or come on standard
input (``-``). What may make a profile mislead (a capture that began mid-stream, one taken at a
host rather than at the port) is in :attr:`Profile.warnings`; every command prints it first.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bufsize.errors import BufsizeError
from bufsize.traffic.profile import Profile, assumed_cc, build as _build, load_profile, recheck_capacity
from bufsize.traffic.records import COLUMNS, REQUIRED, FlowRecords, kind_of, read
from bufsize.traffic.scenario import congestion_control, recommend_inputs, recommend_inputs_notes, to_scenario

__all__ = ["read", "profile", "load", "to_scenario", "recommend_inputs", "recommend_inputs_notes", "Profile",
           "FlowRecords", "COLUMNS", "REQUIRED", "assumed_cc", "congestion_control", "recommend_from_file"]


def profile(records: FlowRecords, *, capacity: Any = None, long_fraction: float = 0.5,
            window: tuple[float, float] | None = None, cc: str | None = None, mix: Any = None) -> Profile:
    """The traffic profile of flow records (``capacity`` is recorded, not inferred; ``cc`` or
    ``mix`` record the senders' congestion control, which no capture shows)."""
    from bufsize import units

    cap = None if capacity is None else units.parse_rate(capacity, argument="--capacity")
    p = _build(records, capacity_bps=cap, long_fraction=long_fraction, window=window)
    _set_cc(p, cc, mix)
    return p


def _set_cc(p: Profile, cc: str | None, mix: Any) -> None:
    from bufsize.traffic.profile import cc_note
    from bufsize.traffic.scenario import _cc_label

    if cc is None and mix is None:
        return
    text, _ = congestion_control(None, cc, mix)
    p.congestion_control = text
    p.not_inferred = [cc_note(_cc_label(text)) if "congestion control" in n else n for n in p.not_inferred]


def load(path: str | Path, *, capacity: str | float | None = None, progress: bool | None = None,
         idle_timeout: float | str = "60s", long_fraction: float = 0.5, cc: str | None = None,
         mix: str | Mapping[str, float] | None = None) -> Profile:
    """A profile from a capture (``-``: standard input; ``.gz``: gzip-compressed), flow records or a
    saved profile JSON (``bufsize traffic summarize``, whose flags these keywords are; ``--save-flows``
    is :func:`read` and ``.to_parquet()``, ``--save-profile`` is ``profile.to_json()``).

    ``idle_timeout`` (a time, ``"60s"``, or seconds) ends a flow that has been silent that long;
    a TCP flow active for at least ``long_fraction`` of the capture counts as long-lived (a saved
    profile keeps its own split)."""
    from bufsize import units

    if not (0 < long_fraction <= 1):
        raise BufsizeError(f"must lie in (0, 1], got {long_fraction:g}", argument="long_fraction")
    idle = units.parse_time(idle_timeout, argument="idle_timeout")
    if kind_of(path) == "profile":
        p = load_profile(path)
        if capacity is not None:
            from bufsize import units

            p.capacity_bps = units.parse_rate(capacity, argument="--capacity")
            recheck_capacity(p)
        _set_cc(p, cc, mix)
        return p
    return profile(read(path, progress=progress, idle_timeout=idle), capacity=capacity, long_fraction=long_fraction,
                   cc=cc, mix=mix)


def _name(path: str | Path) -> str:
    return "standard input" if str(path) == "-" else Path(path).name


def warning_lines(p: Profile) -> list[str]:
    """The profile's warnings as the lines a command prints first (``warning: ...``)."""
    return [f"warning: {w}" for w in p.warnings]


def describe(p: Profile) -> str:
    """One line: what the scenario takes from the profile."""
    import math

    rtts = [x for x in p.long_rtts_s if x is not None and math.isfinite(x)]
    rtt = (f" (RTT {min(rtts) * 1e3:.3g}-{max(rtts) * 1e3:.3g} ms)" if len(rtts) > 1 else
           f" (RTT {rtts[0] * 1e3:.3g} ms)" if rtts else "")
    udp = f", UDP {p.udp_rate_bps / 1e6:.3g} Mb/s" if p.udp_rate_bps > 0 else ""
    idle = f" ({p.idle_flows} idle connections set aside)" if p.idle_flows else ""
    return (f"from {_name(p.source)}: {p.long_flows} long-lived flows{rtt}{idle}, {p.short_flows} short flows "
            f"at {p.arrival_rate_per_s:.3g}/s (mean {p.size_mean_bytes / 1e3:.3g} kB){udp}"
            if p.short_flows else
            f"from {_name(p.source)}: {p.long_flows} long-lived flows{rtt}{idle}, no short flows{udp}")


def scenario_for_simulate(file: str | Path, *, given: dict[str, Any], top: dict[str, Any], scale_to: Any = None,
                          scenario_file: Any = None, queue_trace: Any = None, trace_ids: Any = None,
                          progress: bool | None = None):
    """``bufsize simulate --traffic FILE``: (Scenario, notes). ``given`` are the dumbbell flags the
    user typed: ``--buffer`` is required; ``--capacity``, ``--cc``/``--mix`` and ``--rtt`` override what
    the profile says or assumes; the other dumbbell flags describe traffic and cannot be combined.
    The notes start with the profile's warnings (``warning: ...``)."""
    from bufsize.errors import BufsizeError

    if scenario_file is not None:
        raise BufsizeError("cannot be combined with SCENARIO_FILE", argument="--traffic")
    allowed = {"capacity", "buffer", "cc", "mix", "rtt"}
    extra = [k for k in given if k not in allowed]
    if extra:
        raise BufsizeError("cannot be combined with --traffic (the traffic comes from the file)",
                           argument="--" + extra[0].replace("_", "-"))
    if "buffer" not in given:
        raise BufsizeError("missing: the buffer to simulate the traffic at (e.g. --buffer 100pkt)", argument="--buffer")
    congestion_control(None, given.get("cc"), given.get("mix"))  # both given: refused before reading
    prof = load(file, capacity=given.get("capacity"), progress=progress)
    sc, notes = to_scenario(prof, capacity=given.get("capacity"), buffer=given["buffer"], scale_to=scale_to,
                            duration=top.get("duration"), warmup=top.get("warmup"), cc=given.get("cc"),
                            mix=given.get("mix"), rtt=given.get("rtt"),
                            seed=int(top["seed"]) if top.get("seed") is not None else 1)
    # the scenario's own notes say which congestion control it uses
    notes = (warning_lines(prof) + [describe(prof)] + [n for n in prof.not_inferred if "congestion control" not in n]
             + notes)
    if queue_trace is not None or trace_ids is not None:
        measure = sc.to_dict()["measure"]
        if queue_trace is not None:
            measure["queue_trace_interval_s"] = queue_trace
        if trace_ids is not None:
            measure["cwnd_trace_flows"] = trace_ids
        sc = sc.replace(measure=measure)
    return sc, notes


def recommend_from_file(file: str | Path, *, capacity: Any = None, scale_to: Any = None, mix: Any = None,
                        cc: str | None = None, given: dict[str, Any] | None = None,
                        progress: bool | None = None):
    """``bufsize recommend --traffic FILE``: (keyword arguments for recommend, the profile, notes).

    ``given``: the other link flags the user typed; those that describe the traffic (``rtt``,
    ``flows``, ``short_flows``, ``short_load``) cannot be combined with a measured profile.
    ``mix`` or ``cc`` (one congestion control, the same as ``mix="NAME=1"``) set the senders'
    congestion control; without them the keyword arguments carry the profile's or the stack
    profile's (``mix="cubic=1"`` for linux), as ``simulate --traffic`` and ``traffic summarize``
    assume. The notes start with the profile's warnings (``warning: ...``: a capture that began
    mid-stream, one taken at a host), which the caller should show before the answer."""
    from bufsize.errors import BufsizeError

    for k, v in (given or {}).items():
        if v is not None and k in ("rtt", "flows", "short_flows", "short_load", "packet_size"):
            raise BufsizeError("cannot be combined with --traffic (the traffic comes from the file)",
                               argument="--" + k.replace("_", "-"))
    if scale_to is not None and capacity is None:
        raise BufsizeError("scaling needs the measured link's capacity: give --capacity too", argument="--scale-to")
    text, _ = congestion_control(None, cc, mix) if (cc is not None or mix is not None) else (None, True)
    prof = load(file, capacity=capacity, progress=progress)
    kw, notes = recommend_inputs_notes(prof, capacity, scale_to, mix=text)
    notes = (warning_lines(prof) + [describe(prof)] + [n for n in prof.not_inferred if "congestion control" not in n]
             + notes)
    return kw, prof, notes
