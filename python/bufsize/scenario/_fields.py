"""Field helpers of the scenario schema: unit parsing, aliases, queues, distributions.

Every helper raises :class:`ScenarioError` naming the field it was given.
"""

from __future__ import annotations

import math
import re
from typing import Any, Mapping

from bufsize import profiles as _profiles
from bufsize import units
from bufsize.errors import ScenarioError, UnitError
from bufsize.scenario import _bounds

#: Congestion controls of the engine when this was written; :func:`congestion_controls` asks the
#: engine itself (its registry is the one source of truth) and falls back to this list only when
#: the extension is not built.
CONGESTION_CONTROLS: tuple[str, ...] = (
    "newreno", "reno", "newreno-paced", "paced", "poisson-paced", "cubic", "cubic-0.8", "bic", "ctcp", "dctcp", "bbr",
)


def congestion_controls() -> tuple[str, ...]:
    """Names of the congestion controls the engine implements."""
    try:
        from bufsize._engine import congestion_controls as names
    except ImportError:  # pragma: no cover - extension not built
        return CONGESTION_CONTROLS
    return tuple(names())

#: TCP defaults of the engine schema (SI): the default profile's stack (:mod:`bufsize.profiles`,
#: today's Linux). ``max_window_packets = None`` means no cap. A scenario with ``profile = "ns3"``
#: starts from that profile's table instead (it is parsed inside :func:`bufsize.profiles.using`).
TCP_DEFAULTS: dict[str, Any] = _profiles.tcp(_profiles.DEFAULT)

#: Measurement defaults of the engine schema.
MEASURE_DEFAULTS: dict[str, Any] = {
    "queue_trace_interval_s": None,
    "cwnd_trace_flows": [],
    "cwnd_trace_interval_s": 0.01,
    "queue_histogram": True,
    "cwnd_sum_interval_s": 0.001,
    "phase_trace_interval_s": 0.1,
}

#: Top-level defaults.
TOP_DEFAULTS: dict[str, Any] = {"seed": 1, "duration_s": 60.0, "warmup_s": 10.0}

_ALIASES = {
    "top": {"duration": "duration_s", "warmup": "warmup_s"},
    "warm_buffer": {"until": "until_s"},
    "link": {"rate": "rate_bps", "capacity": "rate_bps", "delay": "delay_s", "buffer": "queue",
             "burst": "burst_bytes"},
    "flow": {"start": "start_s"},
    "tcp": {"packet_size": "packet_bytes", "header_size": "header_bytes", "ack_size": "ack_bytes",
            "min_rto": "min_rto_s", "max_rto": "max_rto_s", "initial_rto": "initial_rto_s",
            "max_window": "max_window_packets", "congestion_control": "cc",
            "delayed_ack_timeout": "delayed_ack_timeout_s", "host_jitter": "host_jitter_s"},
    "dumbbell": {"capacity": "capacity_bps", "rtt": "rtt_s", "access_rate": "access_rate_bps",
                 "access_capacity": "access_rate_bps", "start": "start_s",
                 "bottleneck_delay": "bottleneck_delay_s", "bottleneck_burst": "bottleneck_burst_bytes"},
    "measure": {"queue_trace_interval": "queue_trace_interval_s",
                "cwnd_trace_interval": "cwnd_trace_interval_s",
                "cwnd_sum_interval": "cwnd_sum_interval_s",
                "phase_trace_interval": "phase_trace_interval_s"},
}

_FIELDS = {
    "top": ("seed", "duration_s", "warmup_s", "profile", "links", "bottleneck", "flows", "dumbbell", "measure",
            "short_flows", "users", "mice", "udp", "warm_buffer"),
    "warm_buffer": ("packets", "until_s"),
    "link": ("name", "rate_bps", "delay_s", "queue", "burst_bytes"),
    "flow": ("path", "ack_path", "start_s", "kind", "bytes", "tcp", "sobas"),
    "tcp": tuple(TCP_DEFAULTS),
    "dumbbell": ("capacity_bps", "flows", "rtt_s", "buffer", "access_rate_bps", "access_queue",
                 "bottleneck_delay_s", "bottleneck_burst_bytes", "start_s", "tcp", "mix"),
    "measure": tuple(MEASURE_DEFAULTS),
}

_FLOW_KINDS = ("bulk",)


# ----------------------------------------------------------------------------- helpers

def _err(field: str, message: str) -> ScenarioError:
    return ScenarioError(message, argument=field)


def _join(prefix: str, key: str) -> str:
    return f"{prefix}.{key}" if prefix else key


def _canon(section: str, raw: Any, prefix: str) -> dict[str, Any]:
    """Check ``raw`` is a table, map aliases to SI names, reject unknown and duplicate keys."""
    if not isinstance(raw, Mapping):
        raise _err(prefix or "scenario", f"expected a table of fields, got {type(raw).__name__}")
    aliases, allowed = _ALIASES.get(section, {}), _FIELDS[section]
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if not isinstance(key, str):
            raise _err(prefix or "scenario", f"field names must be text, got {key!r}")
        name = aliases.get(key, key)
        if name not in allowed:
            known = ", ".join(allowed)
            raise _err(_join(prefix, key), f"unknown field (known: {known})")
        if name in out:
            raise _err(_join(prefix, key), f"given twice (as {name!r} and an alias)")
        out[name] = value
    return out


def _num(value: Any, field: str, parse, *, allow_zero: bool = False) -> float:
    try:
        return parse(value, argument=field, allow_zero=allow_zero)
    except UnitError as exc:
        raise ScenarioError(str(exc)) from None


def _time(value: Any, field: str, *, allow_zero: bool = False) -> float:
    # where a time may be zero, a bare "0" needs no unit (zero seconds is zero in every unit)
    if allow_zero and isinstance(value, str) and value.strip() in ("0", "0.0"):
        return 0.0
    return _bounds.time_value(_num(value, field, units.parse_time, allow_zero=allow_zero), field)


def _rate(value: Any, field: str) -> float:
    return _bounds.rate(_num(value, field, units.parse_rate), field)


_U32 = 2**32 - 1
_U64 = 2**64 - 1


def _int(value: Any, field: str, *, minimum: int = 0, parse=None, maximum: int = _U64) -> int:
    if isinstance(value, bool):
        raise _err(field, f"expected a whole number, got {value!r}")
    if isinstance(value, str) and re.fullmatch(r"\s*\+?\d+\s*", value):
        v = int(value)  # plain digits: exact, whatever the size
    elif parse is not None and isinstance(value, str):
        v = _num(value, field, parse, allow_zero=True)
    elif isinstance(value, int):
        v = value  # exact: a 64-bit seed must not pass through a float
    elif isinstance(value, float):
        v = value
    elif isinstance(value, str):
        try:
            v = float(units.parse_count(value, argument=field, allow_zero=True))
        except UnitError as exc:
            raise ScenarioError(str(exc)) from None
    else:
        raise _err(field, f"expected a whole number, got {type(value).__name__}")
    if isinstance(v, float) and (not math.isfinite(v) or not v.is_integer()):
        raise _err(field, f"expected a whole number, got {value!r}")
    if v < minimum:
        raise _err(field, f"must be at least {minimum}, got {_short(value)}")
    if v > maximum:
        raise _err(field, f"must be at most {maximum:.4g}, got {_short(value)}")
    return int(v)


def _short(value: Any) -> str:
    """A value for an error message: a huge number as 1e+300, not its 300 digits."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) >= 1e15:
        return f"{float(value):.4g}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _dimension(text: str, field: str) -> str:
    try:
        return units.parse_quantity(text, argument=field).dimension
    except UnitError as exc:
        raise ScenarioError(str(exc)) from None


def _bool(value: Any, field: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in ("true", "yes", "on", "1", "false", "no", "off", "0"):
        return value.strip().lower() in ("true", "yes", "on", "1")
    raise _err(field, f"expected true or false, got {value!r}")


def _bytes(value: Any, field: str, *, allow_zero: bool = False) -> int:
    v = _num(value, field, units.parse_size, allow_zero=allow_zero)
    if v != int(v):
        raise _err(field, f"expected a whole number of bytes, got {value!r}")
    if v > _U64:
        raise _err(field, f"must be at most {_U64:.4g} bytes, got {_short(value)}")
    return int(v)


# ----------------------------------------------------------------------------- buffers

_REL = re.compile(
    r"^\s*(?P<k>[+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)?\s*\*?\s*bdp\s*"
    r"(?P<sqrt>/\s*sqrt\s*\(\s*n\s*\))?\s*$",
    re.IGNORECASE,
)
_REL_SHORT = re.compile(r"^\s*(?P<k>(?:\d+(?:\.\d*)?|\.\d+))?\s*/\s*sqrt\s*\(\s*n\s*\)\s*$", re.IGNORECASE)


def _relative_buffer(text: str) -> tuple[float, bool] | None:
    """``"0.5bdp"`` -> (0.5, False); ``"2bdp/sqrt(n)"`` or ``"2/sqrt(n)"`` -> (2.0, True)."""
    m = _REL.match(text)
    if m:
        return (float(m["k"]) if m["k"] else 1.0), m["sqrt"] is not None
    m = _REL_SHORT.match(text)
    if m:
        return (float(m["k"]) if m["k"] else 1.0), True
    return None


def _round_half_up(x: float) -> float:
    return math.floor(x + 0.5) if math.isfinite(x) else x


#: Queue disciplines of the engine (``net/aqm``) besides the drop-tail FIFO, when this was written;
#: the engine checks the name and the parameters itself.
QUEUE_DISCIPLINES: tuple[str, ...] = ("red", "codel", "pie", "fq_codel", "threshold")

#: The hard limit, in packets, each discipline gets when the queue gives none (the engine's
#: registrations in crates/sim/src/net/aqm/, Linux's defaults): the scenario states it, so the
#: cost estimate, the summary and the tables see the limit the engine runs.
DISCIPLINE_DEFAULT_LIMIT_PACKETS: dict[str, int] = {"red": 1000, "codel": 1000, "pie": 1000, "fq_codel": 10240,
                                                    "threshold": 1000}

#: Parameters of the disciplines that are times (seconds in the engine), by their short names:
#: ``target = "5ms"`` becomes ``target_s = 0.005``.
_DISCIPLINE_TIMES = ("target", "interval", "t_update", "max_burst", "adapt_interval")


#: Disciplines that take an ``ecn`` switch (mark ECN-capable packets CE where they would drop); the
#: marking threshold always marks.
DISCIPLINES_WITH_ECN_SWITCH: tuple[str, ...] = ("red", "codel", "pie", "fq_codel")


def discipline_buffer(aqm: str, limit: Any = None, ecn: bool | None = None) -> dict[str, Any]:
    """The bottleneck buffer of ``simulate --aqm NAME [--buffer LIMIT] [--ecn]`` and of
    ``bufsize.simulate(aqm=..., buffer=..., ecn=...)``: the discipline at its defaults behind
    ``limit`` (else its default hard limit); with ``ecn`` it marks instead of dropping ECN-capable
    packets (``ecn = false`` turns fq_codel's default marking off)."""
    disc: dict[str, Any] = {"name": aqm}
    name = str(aqm).strip().lower().replace("-", "_")
    if ecn is not None and name in DISCIPLINES_WITH_ECN_SWITCH:
        disc["ecn"] = bool(ecn)
    return {"discipline": disc, **({"limit": limit} if limit is not None else {})}


def _discipline(value: Any, field: str) -> dict[str, Any]:
    """Normalise a queue discipline: ``"codel"`` or ``{"name": "codel", "target": "5ms", ...}`` ->
    the engine's ``{"name": "codel", "target_s": 0.005, ...}``. Times take units; the other
    parameters pass as given (the engine names a bad one in its error)."""
    if isinstance(value, str):
        value = {"name": value}
    if not isinstance(value, Mapping):
        raise _err(field, f"expected a discipline name ({', '.join(QUEUE_DISCIPLINES)}) or a table with its name")
    name = value.get("name")
    if not isinstance(name, str):
        raise _err(_join(field, "name"), f"required: one of {', '.join(QUEUE_DISCIPLINES)}")
    name = name.strip().lower().replace("-", "_")
    if name not in QUEUE_DISCIPLINES:
        raise _err(_join(field, "name"), f"unknown queue discipline {name!r} (known: {', '.join(QUEUE_DISCIPLINES)};"
                   " omit the discipline for drop-tail)")
    out: dict[str, Any] = {"name": name}
    for k, v in value.items():
        key = str(k)
        if key == "name" or v is None:
            continue
        if key in _DISCIPLINE_TIMES:
            key = key + "_s"
        if key in out:
            raise _err(_join(field, key), "given twice")
        if key.endswith("_s") and key[:-2] in _DISCIPLINE_TIMES:
            out[key] = _time(v, _join(field, str(k)), allow_zero=key == "max_burst_s")
        else:
            out[key] = v
    return out


def _queue(value: Any, field: str, *, rate_bps: float | None, bdp_packets: float | None = None,
           n_flows: int | None = None) -> dict[str, Any]:
    """Normalise a queue/buffer spec to ``{"limit_packets": N}``, ``{"limit_bytes": N}`` or ``{}``, with
    ``"discipline": {...}`` (see :func:`_discipline`) when the table names one; a discipline without a
    limit gets its default hard limit (:data:`DISCIPLINE_DEFAULT_LIMIT_PACKETS`) written out."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        keys = {k for k, v in value.items() if v is not None}  # null = not given, as in the engine
        unknown = set(value) - {"limit_packets", "limit_bytes", "limit", "discipline"}
        if unknown:
            k = sorted(map(str, unknown))[0]
            raise _err(_join(field, k), "unknown field (known: limit, limit_packets, limit_bytes, discipline)")
        if "limit" in keys:   # any buffer form (52pkt, 64KiB, 10ms, 0.5bdp) as the hard limit
            if keys & {"limit_packets", "limit_bytes"}:
                raise _err(field, "give limit, limit_packets or limit_bytes, one of them")
            lim = _queue(value["limit"], _join(field, "limit"), rate_bps=rate_bps, bdp_packets=bdp_packets,
                         n_flows=n_flows)
            if not lim:
                raise _err(_join(field, "limit"), "a queue discipline keeps a hard limit: give one, not unlimited")
            return {**lim, **({"discipline": _discipline(value["discipline"], _join(field, "discipline"))}
                              if "discipline" in keys else {})}
        out: dict[str, Any] = {}
        if "discipline" in keys:
            out["discipline"] = _discipline(value["discipline"], _join(field, "discipline"))
            keys.discard("discipline")
        if len(keys) > 1:
            raise _err(field, "give limit_packets or limit_bytes, not both")
        if "limit_packets" in keys:
            out["limit_packets"] = _int(value["limit_packets"], _join(field, "limit_packets"),
                                        parse=units.parse_packets)
        elif "limit_bytes" in keys:
            out["limit_bytes"] = _bytes(value["limit_bytes"], _join(field, "limit_bytes"), allow_zero=True)
        elif "discipline" in out:
            out["limit_packets"] = DISCIPLINE_DEFAULT_LIMIT_PACKETS[out["discipline"]["name"]]
        return out
    if isinstance(value, bool):
        raise _err(field, f"expected a buffer such as 52pkt, 64KiB or 10ms, got {value!r}")
    if isinstance(value, (int, float)):   # packets; a fraction (a recommended 416.67) rounds, halves up
        return {"limit_packets": _int(_round_half_up(value) if value >= 0 else value, field)}
    if not isinstance(value, str):
        raise _err(field, f"expected a buffer such as 52pkt, 64KiB or 10ms, got {type(value).__name__}")
    text = value.strip()
    if text.lower() in ("unlimited", "inf", "infinite", "none"):
        return {}
    rel = _relative_buffer(text)
    if rel is not None:
        if bdp_packets is None:
            raise _err(field, f"{text!r} is relative to the BDP, which only a dumbbell defines")
        k, per_sqrt_n = rel
        pkts = k * bdp_packets / (math.sqrt(n_flows) if per_sqrt_n else 1.0)
        return {"limit_packets": _int(_round_half_up(pkts), field)}
    try:
        q = units.parse_quantity(text, argument=field)
    except UnitError as exc:
        raise ScenarioError(f"{exc} (expected e.g. 52pkt, 64KiB, 10ms, 0.5bdp, bdp/sqrt(n) or unlimited)") from None
    if q.dimension in ("packets", "number"):
        v = q.value
        return {"limit_packets": _int(_round_half_up(v) if math.isfinite(v) and v >= 0 else v, field)}
    if q.dimension == "size":
        return {"limit_bytes": _bytes(text, field, allow_zero=True)}
    if q.dimension == "time":
        _time(text, field, allow_zero=True)
        if rate_bps is None:
            raise _err(field, f"{text!r} is a time; a buffer in time needs the link rate")
        return {"limit_bytes": _int(_round_half_up(q.value * rate_bps / 8.0), field)}
    raise _err(field, f"{text!r} is a {q.dimension}, expected a buffer such as 52pkt, 64KiB or 10ms")


# ----------------------------------------------------------------------------- sections

def _distribution(value: Any, field: str, *, allow_zero: bool) -> dict[str, Any]:
    """RTT / start-time spec -> ``{"fixed": x}``, ``{"uniform": [lo, hi]}`` or ``{"list": [...]}``."""
    if isinstance(value, Mapping):
        if len(value) != 1 or next(iter(value)) not in ("fixed", "uniform", "list"):
            raise _err(field, "expected one of {fixed = T}, {uniform = [LO, HI]} or {list = [T, ...]}")
        kind, v = next(iter(value.items()))
        if kind == "fixed":
            return {"fixed": _time(v, _join(field, "fixed"), allow_zero=allow_zero)}
        if not isinstance(v, (list, tuple)) or not v:
            raise _err(_join(field, kind), "expected a non-empty list of times")
        vals = [_time(x, f"{field}.{kind}[{i}]", allow_zero=allow_zero) for i, x in enumerate(v)]
        if kind == "uniform":
            if len(vals) != 2:
                raise _err(_join(field, kind), "expected [LO, HI]")
            if vals[1] < vals[0]:
                raise _err(_join(field, kind), "range ends before it starts")
            return {"uniform": vals}
        return {"list": vals}
    if isinstance(value, (list, tuple)) and not isinstance(value, str):
        if not value:
            raise _err(field, "expected a non-empty list of times")
        vals = [_time(x, f"{field}[{i}]", allow_zero=allow_zero) for i, x in enumerate(value)]
        return {"fixed": vals[0]} if len(vals) == 1 else {"list": vals}
    if isinstance(value, str) and ".." in value:
        lo_s, hi_s = units.share_unit(value.split("..", 1))
        lo, hi = _time(lo_s, field, allow_zero=allow_zero), _time(hi_s, field, allow_zero=allow_zero)
        if hi < lo:
            raise _err(field, f"range {value!r} ends before it starts")
        return {"uniform": [lo, hi]}
    if isinstance(value, str) and "," in value:
        raw = value.split(",")
        if any(not p.strip() for p in raw):
            raise _err(field, f"{value!r} has an empty item (two commas, or one at an end)")
        return _distribution(units.share_unit(raw), field, allow_zero=allow_zero)
    return {"fixed": _time(value, field, allow_zero=allow_zero)}


def _dist_mean(d: Mapping[str, Any]) -> float:
    if "fixed" in d:
        return float(d["fixed"])
    if "uniform" in d:
        return 0.5 * (d["uniform"][0] + d["uniform"][1])
    return sum(d["list"]) / len(d["list"])


