"""Units, in one place.

Text such as ``155Mbps``, ``10Gb/s``, ``80ms``, ``1500B``, ``64KiB`` or ``1e6pkt`` becomes an SI
number (bit/s, seconds, bytes, packets); numbers become text again for tables. Everything inside
bufsize is SI; conversions between packets and bytes always take an explicit packet size.

Conventions: ``b``/``bit`` are bits, ``B`` bytes; k, M, G, T are decimal (10^3 ...), Ki, Mi, Gi,
Ti binary (2^10 ...). Rates accept ``bps``, ``b/s``, ``bit/s``, ``Bps`` and ``B/s``, the tc
spellings ``kbit``/``mbit``/``gbit`` (decimal, as tc uses them), and where only a rate can be meant
(:func:`parse_rate`) iperf3's bare prefix, ``10G`` or ``500M``: bits per second, decimal. In a range
or list of times one unit may serve all (``5..80ms``, ``20,50,120ms``), as people write them.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

from bufsize.errors import UnitError

Dimension = Literal["rate", "time", "size", "packets", "number"]
#: What the parsers take: unit text such as ``"155Mbps"``, or a number (SI for rates, times, sizes).
QuantityText = str | float | int

_NUM = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|[+-]?(?:inf|nan)"
_QTY = re.compile(rf"^\s*(?P<num>{_NUM})\s*(?P<unit>[A-Za-zµ/%]*)\s*$", re.IGNORECASE)

_SI = {"": 1.0, "k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6, "g": 1e9, "G": 1e9, "t": 1e12, "T": 1e12}
_BIN = {"ki": 2.0**10, "mi": 2.0**20, "gi": 2.0**30, "ti": 2.0**40}

_TIME = {
    "s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0,
    "ms": 1e-3, "msec": 1e-3, "us": 1e-6, "µs": 1e-6, "usec": 1e-6, "ns": 1e-9,
    "min": 60.0, "mins": 60.0, "minute": 60.0, "minutes": 60.0, "h": 3600.0, "hour": 3600.0,
}
_PACKETS = {"pkt", "pkts", "packet", "packets", "p", "seg", "segs", "segments"}


@dataclass(frozen=True)
class Quantity:
    """A parsed number with its dimension, in SI (bit/s, s, bytes, packets)."""

    value: float
    dimension: Dimension
    text: str


def _rate_unit(unit: str) -> float | None:
    """Multiplier to bit/s for a rate unit, or None if ``unit`` is not a rate."""
    m = re.fullmatch(r"(?P<p>[kKmMgGtT]i?|)(?P<base>bps|b/s|bit/s|bits/s|bit|Bps|B/s|byte/s|bytes/s)", unit)
    if m:
        p, base = m["p"], m["base"]
        mult = _BIN[p.lower()] if p.lower() in _BIN else _SI[p]
        return mult * (8.0 if base.startswith("B") or base.startswith("byte") else 1.0)
    # tc style: kbit, mbit, gbit (any case)
    m = re.fullmatch(r"(?P<p>[kmgt]?)bit", unit.lower())
    if m:
        return _SI[m["p"]]
    return None


def _size_unit(unit: str) -> float | None:
    """Multiplier to bytes for a size unit, or None."""
    m = re.fullmatch(r"(?P<p>[kKmMgGtT]i?|)(?P<base>B|byte|bytes|b|bit|bits)", unit)
    if not m:
        return None
    p, base = m["p"], m["base"]
    mult = _BIN[p.lower()] if p.lower() in _BIN else _SI[p]
    if base in ("b", "bit", "bits"):
        return mult / 8.0
    return mult


#: The units each dimension accepts, for error messages.
UNITS_HELP: dict[str, str] = {
    "rate": "bps, b/s, bit/s (bits) or Bps, B/s (bytes), with a prefix k, M, G, T or Ki, Mi, Gi, Ti "
            "(155Mbps, 10Gb/s), or tc's kbit, mbit, gbit",
    "time": "s, ms, us, ns, min, h (80ms, 1.5s)",
    "size": "B, byte (bytes) or b, bit (bits), with a prefix k, M, G, T or Ki, Mi, Gi, Ti (1500B, 64KiB)",
    "packets": "pkt, packets (52pkt), or a bare number",
}


def _unknown_unit(unit: str, text: str, expected: str | None) -> str:
    msg = f"unknown unit {unit!r} in {text!r}"
    if expected in UNITS_HELP:
        hint = ""
        if expected == "rate" and re.fullmatch(r"[kKmMgGtT]i?", unit):
            hint = f"; did you mean {text.strip()}bps?"
        return f"{msg}: a {expected} takes {UNITS_HELP[expected]}{hint}"
    return f"{msg}: known units are bit/s rates (Mbps), times (ms), sizes (B, KiB) and packets (pkt)"


_noted: set[str] = set()


def _note(text: str) -> None:
    """A one-line note on stderr, once per process for the same text (a reading the user may not
    have meant, such as bytes per second)."""
    if text in _noted:
        return
    _noted.add(text)
    import sys

    print(f"bufsize: note: {text}", file=sys.stderr)


def parse_quantity(text: QuantityText, *, argument: str | None = None,
                   expected: Dimension | None = None) -> Quantity:
    """Parse ``text`` into a :class:`Quantity`; a bare number has dimension ``number``.

    ``expected`` only improves the message for an unknown unit (it lists that dimension's units)."""
    if isinstance(text, bool):
        raise UnitError(f"expected a quantity, got {text!r}", argument=argument)
    if isinstance(text, (int, float)):
        return Quantity(float(text), "number", str(text))
    if not isinstance(text, str):
        raise UnitError(f"expected a quantity, got {type(text).__name__}", argument=argument)
    m = _QTY.match(text)
    if not m:
        raise UnitError(f"cannot read {text!r} as a number with a unit", argument=argument)
    value = float(m["num"])
    unit = m["unit"]
    if unit == "":
        return Quantity(value, "number", text)
    if unit in _TIME:
        return Quantity(value * _TIME[unit], "time", text)
    if unit.lower() in _PACKETS:
        return Quantity(value, "packets", text)
    r = _rate_unit(unit)
    if r is not None:
        if re.fullmatch(r"[kKmMgGtT]?i?(Bps|B/s)", unit) and math.isfinite(value) and value > 0:
            _note(f"{text.strip()!r} is in bytes per second (capital B): {format_rate(value * r)}; "
                  f"bits per second are written {value:g}{unit[:-3] if unit.endswith('Bps') else unit[:-3]}bps")
        return Quantity(value * r, "rate", text)
    s = _size_unit(unit)
    if s is not None:
        return Quantity(value * s, "size", text)
    raise UnitError(_unknown_unit(unit, text, expected), argument=argument)


def _check_finite(value: float, text: str, argument: str | None, *, allow_zero: bool) -> float:
    if math.isnan(value) or math.isinf(value):
        raise UnitError(f"{text!r} is not a finite number", argument=argument)
    if value < 0 or (value == 0 and not allow_zero):
        raise UnitError(f"{text!r} must be {'non-negative' if allow_zero else 'positive'}", argument=argument)
    return value


def _expect(text: QuantityText, dim: Dimension, example: str, argument: str | None, allow_zero: bool,
            bare_unit: float | None = None) -> float:
    q = parse_quantity(text, argument=argument, expected=dim)
    if q.dimension == "number" and bare_unit is not None:
        q = Quantity(q.value * bare_unit, dim, q.text)
    if q.dimension != dim:
        if q.dimension == "number":
            raise UnitError(f"{q.text!r} has no unit (expected a {dim} such as {example}; only packet counts "
                            "may be bare numbers)", argument=argument)
        raise UnitError(f"{q.text!r} is a {q.dimension}, expected a {dim} such as {example}", argument=argument)
    return _check_finite(q.value, q.text, argument, allow_zero=allow_zero)


_PREFIX_ONLY = re.compile(rf"^\s*(?P<num>{_NUM})\s*(?P<p>[kKmMgGtT])\s*$")


def parse_rate(text: QuantityText, *, argument: str | None = None, allow_zero: bool = False) -> float:
    """A rate in bit/s, e.g. ``155Mbps``, ``10Gb/s``, ``100mbit``, ``12.5MB/s``; a number is bit/s.

    A bare decimal prefix is bits per second, as iperf3's ``-b 10G`` and ``-b 500M`` take it (a rate
    in bytes needs its ``B``: ``1.25GB/s``)."""
    if isinstance(text, str) and (m := _PREFIX_ONLY.match(text)):
        return _check_finite(float(m["num"]) * _SI[m["p"]], text, argument, allow_zero=allow_zero)
    return _expect(text, "rate", "155Mbps", argument, allow_zero, bare_unit=1.0 if not isinstance(text, str) else None)


def parse_time(text: QuantityText, *, argument: str | None = None, allow_zero: bool = False) -> float:
    """A duration in seconds, e.g. ``80ms``, ``1.5s``, ``250us``; a number (not text) is seconds."""
    return _expect(text, "time", "80ms", argument, allow_zero, bare_unit=1.0 if not isinstance(text, str) else None)


def parse_size(text: QuantityText, *, argument: str | None = None, allow_zero: bool = False) -> float:
    """A size in bytes, e.g. ``1500B``, ``64KiB``, ``2Mb`` (bits); a number (not text) is bytes."""
    return _expect(text, "size", "1500B", argument, allow_zero, bare_unit=1.0 if not isinstance(text, str) else None)


def parse_packets(text: QuantityText, *, argument: str | None = None, allow_zero: bool = False) -> float:
    """A packet count, e.g. ``52pkt``, ``1e6pkt``; a bare number is a packet count."""
    return _expect(text, "packets", "52pkt", argument, allow_zero, bare_unit=1.0)


_COUNT_SUFFIX = {"k": 1e3, "K": 1e3, "M": 1e6}


def parse_count(text: QuantityText, *, argument: str | None = None, allow_zero: bool = False) -> int:
    """A whole positive count such as a number of flows: ``400``, ``20k``, ``1.5M``, ``20,000``
    (commas between groups of three digits, as the tables print it) or ``20_000``."""
    if isinstance(text, str):
        t = text.strip()
        if re.fullmatch(r"\d{1,3}(?:,\d{3})+", t):
            t = t.replace(",", "")
        elif re.fullmatch(r"\d+(?:_\d+)+", t):
            t = t.replace("_", "")
        else:
            m = re.fullmatch(rf"(?P<num>{_NUM})\s*(?P<suffix>[kKM])", t)
            if m:
                value = float(m["num"]) * _COUNT_SUFFIX[m["suffix"]]
                t = repr(round(value)) if math.isfinite(value) and abs(value - round(value)) < 1e-6 else str(value)
        text = t
    q = parse_quantity(text, argument=argument)
    if q.dimension != "number":
        raise UnitError(f"{q.text!r} should be a plain count", argument=argument)
    v = _check_finite(q.value, q.text, argument, allow_zero=allow_zero)
    if v != int(v):
        raise UnitError(f"{q.text!r} is not a whole number", argument=argument)
    return int(v)


def parse_fraction(text: QuantityText, *, argument: str | None = None, open_interval: bool = True) -> float:
    """A number in (0, 1) (or [0, 1] if not ``open_interval``); ``99%`` is accepted."""
    if isinstance(text, str) and text.strip().endswith("%"):
        q = parse_quantity(text.strip()[:-1], argument=argument)
        if q.dimension != "number":
            raise UnitError(f"cannot read {text!r} as a fraction", argument=argument)
        value = q.value / 100.0
    else:
        q = parse_quantity(text, argument=argument)
        if q.dimension != "number":
            raise UnitError(f"{q.text!r} should be a plain fraction such as 0.99 or 99%", argument=argument)
        value = q.value
    if math.isnan(value) or math.isinf(value):
        raise UnitError(f"{text!r} is not a finite number", argument=argument)
    if open_interval and not (0.0 < value < 1.0):
        raise UnitError(f"{text!r} must lie strictly between 0 and 1", argument=argument)
    if not open_interval and not (0.0 <= value <= 1.0):
        raise UnitError(f"{text!r} must lie between 0 and 1", argument=argument)
    return value


def parse_buffer(text: QuantityText, *, packet_size: float, capacity: float | None = None,
                 argument: str | None = None, allow_zero: bool = True) -> float:
    """A buffer in **packets**: ``52pkt`` or ``52``, ``64KiB`` (with ``packet_size`` bytes), or a
    queueing time ``10ms`` (needs ``capacity`` in bit/s)."""
    q = parse_quantity(text, argument=argument)
    if q.dimension in ("packets", "number"):
        v = q.value
    elif q.dimension == "size":
        v = q.value / packet_size
    elif q.dimension == "time":
        if capacity is None:
            raise UnitError(f"{q.text!r} is a time; a buffer in time needs the link capacity", argument=argument)
        v = q.value * capacity / (8.0 * packet_size)
    else:
        raise UnitError(f"{q.text!r} is a {q.dimension}, expected packets (52pkt), bytes (64KiB) or a time (10ms)",
                        argument=argument)
    return _check_finite(v, q.text, argument, allow_zero=allow_zero)


def parse_time_list(text: QuantityText, *, argument: str | None = None) -> list[float] | tuple[float, float]:
    """RTTs: one time ``80ms``, a list ``20ms,50ms,120ms`` or a range ``20ms..140ms``.

    Returns a list of seconds, or a ``(low, high)`` tuple for a range.
    """
    if isinstance(text, (int, float)):
        return [parse_time(text, argument=argument)]
    s = str(text).strip()
    m = re.fullmatch(rf"(?P<lo>{_NUM})\s*(?P<lu>[A-Za-zµ]*)\s*-\s*(?P<hi>\d[\d.eE+-]*)\s*(?P<hu>[A-Za-zµ]*)", s)
    if m and ".." not in s:
        lo = m["lo"] + (m["lu"] or m["hu"])
        raise UnitError(f"{s!r}: a range is written with two dots, {lo}..{m['hi']}{m['hu']} (a list with commas: "
                        f"{lo},{m['hi']}{m['hu']})", argument=argument)
    if ".." in s:
        lo_s, hi_s = share_unit(s.split("..", 1))
        lo, hi = parse_time(lo_s, argument=argument), parse_time(hi_s, argument=argument)
        if hi < lo:
            raise UnitError(f"range {s!r} ends before it starts", argument=argument)
        return (lo, hi)
    raw = s.split(",")
    if len(raw) > 1 and any(not p.strip() for p in raw):
        raise UnitError(f"{s!r} has an empty item (two commas, or one at an end)", argument=argument)
    parts = [p for p in raw if p.strip()]
    if not parts:
        raise UnitError("empty list of times", argument=argument)
    return [parse_time(p, argument=argument) for p in share_unit(parts)]


_UNIT_OF = re.compile(rf"^\s*(?:{_NUM})\s*(?P<unit>[A-Za-zµ/%]*)\s*$", re.IGNORECASE)


def share_unit(parts: list[str]) -> list[str]:
    """The parts of a range or list (``["5", "80ms"]``) with the one unit the others carry given to
    the bare numbers among them (``["5ms", "80ms"]``), as ``5..80ms`` is read. Parts are left as they
    are when none has a unit, when they carry different units (which one the bare number meant is
    then a guess), or when one is not a number at all: the parser then says what is wrong."""
    units_seen = []
    for part in parts:
        m = _UNIT_OF.match(part)
        if m is None:
            return list(parts)
        units_seen.append(m["unit"])
    given = {u for u in units_seen if u}
    if len(given) != 1:
        return list(parts)
    unit = given.pop()
    return [p.strip() + unit if not u else p for p, u in zip(parts, units_seen)]


# ---------------------------------------------------------------- conversions

def packets_to_bytes(packets: float, packet_size: float) -> float:
    """Packets -> bytes with an explicit packet size (bytes)."""
    return packets * packet_size


def bytes_to_packets(nbytes: float, packet_size: float) -> float:
    """Bytes -> packets with an explicit packet size (bytes)."""
    return nbytes / packet_size


def rate_to_packets_per_second(rate_bps: float, packet_size: float) -> float:
    """bit/s -> packets/s for packets of ``packet_size`` bytes."""
    return rate_bps / (8.0 * packet_size)


def bdp_packets(rate_bps: float, rtt_s: float, packet_size: float) -> float:
    """Bandwidth-delay product in packets."""
    return rate_bps * rtt_s / (8.0 * packet_size)


# ---------------------------------------------------------------- formatting

def _eng(value: float, prefixes: list[tuple[float, str]], unit: str, digits: int) -> str:
    if value == 0 or not math.isfinite(value):
        return f"{value:g} {unit}".strip()
    for mult, p in prefixes:
        if abs(value) >= mult:
            return f"{value / mult:.{digits}g} {p}{unit}"
    mult, p = prefixes[-1]
    return f"{value / mult:.{digits}g} {p}{unit}"


def format_rate(bps: float, digits: int = 4) -> str:
    """``155e6`` -> ``'155 Mb/s'``."""
    return _eng(bps, [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")], "b/s", digits)


def format_time(seconds: float, digits: int = 4) -> str:
    """``0.08`` -> ``'80 ms'``."""
    return _eng(seconds, [(1.0, ""), (1e-3, "m"), (1e-6, "µ"), (1e-9, "n")], "s", digits)


def format_size(nbytes: float, digits: int = 4) -> str:
    """``1.5e6`` -> ``'1.5 MB'`` (decimal prefixes)."""
    return _eng(nbytes, [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, "")], "B", digits)


def format_packets(packets: float, digits: int = 4) -> str:
    """``52.0`` -> ``'52 pkt'``."""
    if not math.isfinite(packets):
        return f"{packets} pkt"
    return f"{packets:.{digits}g} pkt"
