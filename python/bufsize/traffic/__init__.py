"""Your own traffic: size the buffer on a packet capture or flow records.

- :func:`read` — flow records from a pcap/pcapng capture (read by the Rust extension, streaming),
  a CSV/Parquet flow-record table, or a Zeek ``conn.log`` (:mod:`bufsize.traffic.records`);
- :func:`profile` — the traffic profile they add up to (:mod:`bufsize.traffic.profile`);
- :func:`to_scenario` — the engine scenario built from a profile; :func:`recommend_inputs` — the
  keyword arguments of :func:`bufsize.recommendation.recommend` (:mod:`bufsize.traffic.scenario`);
- :func:`load` — a profile from any input, including a saved profile (JSON).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bufsize.traffic.profile import Profile, build as _build, load_profile
from bufsize.traffic.records import COLUMNS, REQUIRED, FlowRecords, kind_of, read
from bufsize.traffic.scenario import recommend_inputs, recommend_inputs_notes, to_scenario

__all__ = ["read", "profile", "load", "to_scenario", "recommend_inputs", "recommend_inputs_notes", "Profile",
           "FlowRecords", "COLUMNS", "REQUIRED"]


def profile(records: FlowRecords, *, capacity: Any = None, long_fraction: float = 0.5,
            window: tuple[float, float] | None = None) -> Profile:
    """The traffic profile of flow records (``capacity`` is recorded, not inferred)."""
    from bufsize import units

    cap = None if capacity is None else units.parse_rate(capacity, argument="--capacity")
    return _build(records, capacity_bps=cap, long_fraction=long_fraction, window=window)


def load(path: str | Path, *, capacity: Any = None, progress: bool | None = None,
         idle_timeout: float = 60.0) -> Profile:
    """A profile from a capture, flow records or a saved profile JSON."""
    if kind_of(path) == "profile":
        p = load_profile(path)
        if capacity is not None:
            from bufsize import units

            p.capacity_bps = units.parse_rate(capacity, argument="--capacity")
        return p
    return profile(read(path, progress=progress, idle_timeout=idle_timeout), capacity=capacity)
