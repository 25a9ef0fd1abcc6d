"""Bounds of the scenario's numeric fields, where physics or the engine sets them, in one place.

Each bound comes with its reason. The scenario helpers (``_fields``, ``traffic``, ``tcp``) call the
checks below; every message names the field, e.g.
``measure.queue_trace_interval_s: must be at least 1 µs (...), got 1e-300 s``.
"""

from __future__ import annotations

import math

from bufsize.errors import ScenarioError

#: The longest time any field may hold, seconds: the longest run. The engine counts nanoseconds in
#: 64 bits (584 years); sums of a few such times must not overflow.
MAX_TIME_S = 1e6
#: The shortest sampling interval of a trace or a periodic probe: one sample per µs is already a
#: million samples per simulated second (about 200 MB of results), and the engine's clock ticks in ns.
MIN_INTERVAL_S = 1e-6
#: Link rates, bit/s: at 1 b/s a 65 535-byte packet takes 6 days, within MAX_TIME_S; 10 Tb/s is far
#: beyond any port, and faster links would serialize a packet in less than the engine's 1-ns tick.
MIN_RATE_BPS = 1.0
MAX_RATE_BPS = 1e13
#: A Pareto shape above this makes every sample equal to the mean to within 0.1 % (use ``fixed``);
#: far larger shapes overflow the engine's scale ``mean·(shape − 1)`` into infinity.
MAX_PARETO_SHAPE = 1e3
#: The engine numbers a transfer's segments with 32 bits: the size of one transfer (and a size
#: distribution's values and mean) in packets, and in bytes (segments of up to ~1000 B).
MAX_TRANSFER_PACKETS = 4e9
MAX_TRANSFER_BYTES = 4e12
#: Open-loop arrivals: the engine spaces arrivals by at least 1 ns.
MAX_ARRIVALS_PER_S = 1e9
#: Window sizes (initial window, window cap), packets.
MAX_WINDOW_PACKETS = 2**30


def _err(field: str, message: str) -> ScenarioError:
    return ScenarioError(message, argument=field)


def _s(x: float) -> str:
    return f"{x:g} s"


def time_value(v: float, field: str) -> float:
    """Any time field: at most :data:`MAX_TIME_S`."""
    if v > MAX_TIME_S:
        raise _err(field, f"must be at most {MAX_TIME_S:g} s (the longest run the engine's clock allows), got {_s(v)}")
    return v


def interval(v: float, field: str, *, duration_s: float, default: float | None = None) -> float:
    """A sampling interval: at least :data:`MIN_INTERVAL_S` and at most the run's duration (an
    interval longer than the run would take no sample; the schema's own default is let through,
    it just takes none)."""
    if not v >= MIN_INTERVAL_S:
        asks = f", {duration_s / v:.3g} samples over the {duration_s:g}-s run" if v > 0 else ""
        raise _err(field, f"must be at least 1 µs (one sample per µs is already 1e6 samples per simulated "
                          f"second), got {_s(v)}{asks}")
    if v > duration_s and v != default:
        raise _err(field, f"must be at most the run's duration {_s(duration_s)} (no sample would be taken), "
                          f"got {_s(v)}")
    return v


def rate(v: float, field: str) -> float:
    if v < MIN_RATE_BPS:
        raise _err(field, f"must be at least 1 b/s (a packet must cross the link within a run), got {v:g} b/s")
    if v > MAX_RATE_BPS:
        raise _err(field, f"must be at most 10 Tb/s (faster links serialize packets below the engine's "
                          f"1-ns tick), got {v:g} b/s")
    return v


def pareto_shape(v: float, field: str) -> float:
    """At most :data:`MAX_PARETO_SHAPE` (the engine checks that it is above 1, for a finite mean)."""
    if not math.isfinite(v):
        raise _err(field, f"expected a finite number, got {v!r}")
    if v > MAX_PARETO_SHAPE:
        raise _err(field, f"must be at most {MAX_PARETO_SHAPE:g} (above that every sample is the mean; "
                          f"use a fixed value), got {v:g}")
    return v


def transfer_packets(v: float, field: str) -> float:
    if v > MAX_TRANSFER_PACKETS:
        raise _err(field, f"must be at most {MAX_TRANSFER_PACKETS:g} packets (the engine numbers a transfer's "
                          f"segments with 32 bits), got {v:g}")
    return v


def transfer_bytes(v: float, field: str) -> float:
    if v > MAX_TRANSFER_BYTES:
        raise _err(field, f"must be at most {MAX_TRANSFER_BYTES:g} bytes (the engine numbers a transfer's "
                          f"segments with 32 bits), got {v:g}")
    return v


def arrivals(v: float, field: str) -> float:
    if not v > 0:
        raise _err(field, f"must be above 0, got {v:g}")
    if v > MAX_ARRIVALS_PER_S:
        raise _err(field, f"must be at most {MAX_ARRIVALS_PER_S:g} per second (the engine spaces arrivals by "
                          f"at least 1 ns), got {v:g}")
    return v


def window(v: int, field: str) -> int:
    if v > MAX_WINDOW_PACKETS:
        raise _err(field, f"must be at most 2^30 packets, got {v}")
    return v
