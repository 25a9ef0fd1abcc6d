"""Scenarios for the packet-level simulator, built in Python or read from TOML/JSON.

A scenario is plain data: the engine (``crates/sim``, ``src/scenario.rs``) owns the schema and
takes SI numbers only (bit/s, seconds, bytes, packets). This module is the friendly side of that
schema:

- every field can be written with a unit string from :mod:`bufsize.units` (``"155Mbps"``,
  ``"80ms"``, ``"1000B"``, ``"52pkt"``), either under its SI name (``rate_bps = "155Mbps"``) or under
  a short alias without the unit suffix (``rate = "155Mbps"``, ``delay = "0.5ms"``,
  ``packet_size = "1500B"``, ``min_rto = "200ms"``, ``duration = "60s"``);
- queues/buffers accept ``"52pkt"`` (or a bare number of packets), ``"64KiB"`` (a byte limit),
  ``"10ms"`` (a byte limit of 10 ms at the link's rate), ``"unlimited"``, and, in a dumbbell,
  buffers relative to the bandwidth-delay product: ``"0.5bdp"``, ``"bdp/sqrt(n)"``,
  ``"2bdp/sqrt(n)"`` (n = number of flows; BDP = capacity x mean RTT, in packets of
  ``packet_bytes``; the result is rounded to the nearest whole packet, halves up);
- mistakes raise :class:`bufsize.errors.ScenarioError` naming the field, e.g.
  ``flows[3].tcp.cc: unknown congestion control 'foo' (known: newreno)``.

:meth:`Scenario.to_dict` / :meth:`Scenario.to_json` give the engine's SI form. The engine checks
the scenario again when it loads it; its errors also become :class:`ScenarioError`.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

from bufsize import units
from bufsize.errors import ScenarioError, UnitError

#: Congestion controls of the engine when this was written; :func:`congestion_controls` asks the
#: engine itself (its registry is the one source of truth) and falls back to this list only when
#: the extension is not built.
CONGESTION_CONTROLS: tuple[str, ...] = ("newreno", "reno", "newreno-paced", "cubic")


def congestion_controls() -> tuple[str, ...]:
    """Names of the congestion controls the engine implements."""
    try:
        from bufsize._engine import congestion_controls as names
    except ImportError:  # pragma: no cover - extension not built
        return CONGESTION_CONTROLS
    return tuple(names())

#: TCP defaults of the engine schema (SI). ``max_window_packets = None`` means no cap.
TCP_DEFAULTS: dict[str, Any] = {
    "cc": "newreno",
    "sack": False,
    "packet_bytes": 1000,
    "header_bytes": 40,
    "initial_window": 2,
    "min_rto_s": 0.2,
    "max_rto_s": 60.0,
    "initial_rto_s": 1.0,
    "max_window_packets": None,
    "delayed_ack": False,
    "delayed_ack_timeout_s": 0.2,
    "ack_bytes": 40,
    "dupack_threshold": 3,
    "prr": False,
}

#: Measurement defaults of the engine schema.
MEASURE_DEFAULTS: dict[str, Any] = {
    "queue_trace_interval_s": None,
    "cwnd_trace_flows": [],
    "cwnd_trace_interval_s": 0.01,
    "queue_histogram": True,
    "cwnd_sum_interval_s": 0.001,
}

#: Top-level defaults.
TOP_DEFAULTS: dict[str, Any] = {"seed": 1, "duration_s": 60.0, "warmup_s": 10.0}

_ALIASES = {
    "top": {"duration": "duration_s", "warmup": "warmup_s"},
    "link": {"rate": "rate_bps", "capacity": "rate_bps", "delay": "delay_s", "buffer": "queue"},
    "flow": {"start": "start_s"},
    "tcp": {"packet_size": "packet_bytes", "header_size": "header_bytes", "ack_size": "ack_bytes",
            "min_rto": "min_rto_s", "max_rto": "max_rto_s", "initial_rto": "initial_rto_s",
            "max_window": "max_window_packets", "congestion_control": "cc",
            "delayed_ack_timeout": "delayed_ack_timeout_s"},
    "dumbbell": {"capacity": "capacity_bps", "rtt": "rtt_s", "access_rate": "access_rate_bps",
                 "access_capacity": "access_rate_bps", "start": "start_s",
                 "bottleneck_delay": "bottleneck_delay_s"},
    "measure": {"queue_trace_interval": "queue_trace_interval_s",
                "cwnd_trace_interval": "cwnd_trace_interval_s",
                "cwnd_sum_interval": "cwnd_sum_interval_s"},
}

_FIELDS = {
    "top": ("seed", "duration_s", "warmup_s", "links", "bottleneck", "flows", "dumbbell", "measure"),
    "link": ("name", "rate_bps", "delay_s", "queue"),
    "flow": ("path", "ack_path", "start_s", "kind", "bytes", "tcp"),
    "tcp": tuple(TCP_DEFAULTS),
    "dumbbell": ("capacity_bps", "flows", "rtt_s", "buffer", "access_rate_bps", "access_queue",
                 "bottleneck_delay_s", "start_s", "tcp"),
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
    return _num(value, field, units.parse_time, allow_zero=allow_zero)


def _rate(value: Any, field: str) -> float:
    return _num(value, field, units.parse_rate)


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
        raise _err(field, f"must be at least {minimum}, got {value!r}")
    if v > maximum:
        raise _err(field, f"must be at most {maximum}, got {value!r}")
    return int(v)


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
        raise _err(field, f"must be at most {_U64} bytes, got {value!r}")
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


def _queue(value: Any, field: str, *, rate_bps: float | None, bdp_packets: float | None = None,
           n_flows: int | None = None) -> dict[str, int]:
    """Normalise a queue/buffer spec to ``{"limit_packets": N}``, ``{"limit_bytes": N}`` or ``{}``."""
    if value is None:
        return {}
    if isinstance(value, Mapping):
        keys = {k for k, v in value.items() if v is not None}  # null = not given, as in the engine
        unknown = set(value) - {"limit_packets", "limit_bytes"}
        if unknown:
            k = sorted(map(str, unknown))[0]
            raise _err(_join(field, k), "unknown field (known: limit_packets, limit_bytes)")
        if len(keys) > 1:
            raise _err(field, "give limit_packets or limit_bytes, not both")
        if "limit_packets" in keys:
            return {"limit_packets": _int(value["limit_packets"], _join(field, "limit_packets"),
                                          parse=units.parse_packets)}
        if "limit_bytes" in keys:
            return {"limit_bytes": _bytes(value["limit_bytes"], _join(field, "limit_bytes"), allow_zero=True)}
        return {}
    if isinstance(value, bool):
        raise _err(field, f"expected a buffer such as 52pkt, 64KiB or 10ms, got {value!r}")
    if isinstance(value, (int, float)):
        return {"limit_packets": _int(value, field)}
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
        return {"limit_packets": _int(q.value, field)}
    if q.dimension == "size":
        return {"limit_bytes": _bytes(text, field, allow_zero=True)}
    if q.dimension == "time":
        _time(text, field, allow_zero=True)
        if rate_bps is None:
            raise _err(field, f"{text!r} is a time; a buffer in time needs the link rate")
        return {"limit_bytes": _int(_round_half_up(q.value * rate_bps / 8.0), field)}
    raise _err(field, f"{text!r} is a {q.dimension}, expected a buffer such as 52pkt, 64KiB or 10ms")


# ----------------------------------------------------------------------------- sections

def _tcp(raw: Any, field: str, base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    d = _canon("tcp", raw if raw is not None else {}, field)
    out = dict(base if base is not None else TCP_DEFAULTS)
    if "cc" in d:
        cc = d["cc"]
        known = congestion_controls()
        if not isinstance(cc, str) or cc.strip().lower() not in known:
            raise _err(_join(field, "cc"), f"unknown congestion control {cc!r} (known: {', '.join(known)})")
        out["cc"] = cc.strip().lower()
    if "sack" in d:
        out["sack"] = _bool(d["sack"], _join(field, "sack"))
    if "delayed_ack" in d:
        out["delayed_ack"] = _bool(d["delayed_ack"], _join(field, "delayed_ack"))
    if "prr" in d:
        out["prr"] = _bool(d["prr"], _join(field, "prr"))
    for key in ("packet_bytes", "header_bytes", "ack_bytes"):
        if key in d:
            out[key] = _bytes(d[key], _join(field, key), allow_zero=key == "header_bytes")
            if out[key] > 65_535:
                raise _err(_join(field, key), f"must be at most 65535 bytes, got {out[key]}")
    if "dupack_threshold" in d:
        out["dupack_threshold"] = _int(d["dupack_threshold"], _join(field, "dupack_threshold"), minimum=1,
                                       maximum=_U32)
    if "initial_window" in d:
        out["initial_window"] = _int(d["initial_window"], _join(field, "initial_window"), minimum=1,
                                     parse=units.parse_packets, maximum=_U32)
    for key in ("min_rto_s", "max_rto_s", "initial_rto_s", "delayed_ack_timeout_s"):
        if key in d:
            out[key] = _time(d[key], _join(field, key))
    if out["max_rto_s"] < out["min_rto_s"]:
        raise _err(_join(field, "max_rto_s"), f"{out['max_rto_s']:g} s is below min_rto_s ({out['min_rto_s']:g} s)")
    if "max_window_packets" in d:
        v = d["max_window_packets"]
        f = _join(field, "max_window_packets")
        if v is None or (isinstance(v, str) and v.strip().lower() in ("none", "unlimited")):
            out["max_window_packets"] = None
        elif isinstance(v, str) and _dimension(v, f) == "size":
            # a socket-buffer size: whole packets of packet_bytes that fit in it
            nbytes = _bytes(v, f)
            out["max_window_packets"] = max(1, int(nbytes // out["packet_bytes"]))
        else:
            out["max_window_packets"] = _int(v, f, minimum=1, parse=units.parse_packets)
        if out["max_window_packets"] is not None and out["max_window_packets"] > 2**30:
            raise _err(f, "must be at most 2^30 packets")
    if out["header_bytes"] >= out["packet_bytes"]:
        raise _err(_join(field, "header_bytes"),
                   f"{out['header_bytes']} B header leaves no payload in {out['packet_bytes']} B packets")
    return out


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
        lo_s, _, hi_s = value.partition("..")
        lo, hi = _time(lo_s, field, allow_zero=allow_zero), _time(hi_s, field, allow_zero=allow_zero)
        if hi < lo:
            raise _err(field, f"range {value!r} ends before it starts")
        return {"uniform": [lo, hi]}
    if isinstance(value, str) and "," in value:
        return _distribution([p for p in value.split(",") if p.strip()], field, allow_zero=allow_zero)
    return {"fixed": _time(value, field, allow_zero=allow_zero)}


def _dist_mean(d: Mapping[str, Any]) -> float:
    if "fixed" in d:
        return float(d["fixed"])
    if "uniform" in d:
        return 0.5 * (d["uniform"][0] + d["uniform"][1])
    return sum(d["list"]) / len(d["list"])


def _dumbbell(raw: Any, field: str) -> dict[str, Any]:
    d = _canon("dumbbell", raw, field)
    for key in ("capacity_bps", "flows", "rtt_s", "buffer"):
        if key not in d:
            raise _err(_join(field, key), "missing (a dumbbell needs capacity, flows, rtt and buffer)")
    cap = _rate(d["capacity_bps"], _join(field, "capacity_bps"))
    n = _int(d["flows"], _join(field, "flows"), minimum=1, maximum=2**31 - 1)
    rtt = _distribution(d["rtt_s"], _join(field, "rtt_s"), allow_zero=False)
    tcp = _tcp(d.get("tcp"), _join(field, "tcp"))
    bdp = units.bdp_packets(cap, _dist_mean(rtt), tcp["packet_bytes"])
    buf = _queue(d["buffer"], _join(field, "buffer"), rate_bps=cap, bdp_packets=bdp, n_flows=n)
    access = d.get("access_rate_bps")
    access_rate = None if access is None else _rate(access, _join(field, "access_rate_bps"))
    bn_delay = _time(d.get("bottleneck_delay_s", 0.0), _join(field, "bottleneck_delay_s"), allow_zero=True)
    min_rtt = rtt["fixed"] if "fixed" in rtt else min(rtt.get("uniform") or rtt["list"])
    if min_rtt < 2.0 * bn_delay:
        raise _err(_join(field, "rtt_s"), f"smallest RTT {min_rtt:g} s is below twice bottleneck_delay_s "
                                          f"({bn_delay:g} s)")
    out = {
        "capacity_bps": cap,
        "flows": n,
        "rtt_s": rtt,
        "buffer": buf,
        "access_rate_bps": access_rate,
        "access_queue": _queue(d.get("access_queue"), _join(field, "access_queue"),
                               rate_bps=access_rate if access_rate is not None else 10.0 * cap),
        "bottleneck_delay_s": bn_delay,
        "start_s": _distribution(d.get("start_s", {"uniform": [0.0, 1.0]}), _join(field, "start_s"),
                                 allow_zero=True),
        "tcp": tcp,
    }
    return out


def _measure(raw: Any, field: str) -> dict[str, Any]:
    d = _canon("measure", raw if raw is not None else {}, field)
    out = dict(MEASURE_DEFAULTS)
    out["cwnd_trace_flows"] = list(MEASURE_DEFAULTS["cwnd_trace_flows"])
    if "queue_trace_interval_s" in d:
        v = d["queue_trace_interval_s"]
        out["queue_trace_interval_s"] = None if v is None else _time(v, _join(field, "queue_trace_interval_s"))
    for key in ("cwnd_trace_interval_s", "cwnd_sum_interval_s"):
        if key in d:
            out[key] = _time(d[key], _join(field, key))
    if "cwnd_trace_flows" in d:
        v = d["cwnd_trace_flows"]
        if not isinstance(v, (list, tuple)):
            raise _err(_join(field, "cwnd_trace_flows"), "expected a list of flow indices")
        out["cwnd_trace_flows"] = [_int(x, f"{field}.cwnd_trace_flows[{i}]") for i, x in enumerate(v)]
    if "queue_histogram" in d:
        out["queue_histogram"] = _bool(d["queue_histogram"], _join(field, "queue_histogram"))
    return out


def _normalise(raw: Any) -> dict[str, Any]:
    """Loose input (unit strings, aliases) -> the engine's SI schema, checked field by field."""
    d = _canon("top", raw, "")
    out: dict[str, Any] = {}
    out["seed"] = _int(d.get("seed", TOP_DEFAULTS["seed"]), "seed")
    out["duration_s"] = _time(d.get("duration_s", TOP_DEFAULTS["duration_s"]), "duration_s")
    out["warmup_s"] = _time(d.get("warmup_s", TOP_DEFAULTS["warmup_s"]), "warmup_s", allow_zero=True)
    if out["duration_s"] > 1e6:
        raise _err("duration_s", f"must be at most 1e6 seconds, got {out['duration_s']:g}")
    if out["warmup_s"] >= out["duration_s"]:
        raise _err("warmup_s", f"warm-up {out['warmup_s']:g} s leaves no measurement window before "
                               f"duration_s = {out['duration_s']:g} s")

    links_raw = d.get("links", [])
    flows_raw = d.get("flows", [])
    if not isinstance(links_raw, (list, tuple)):
        raise _err("links", "expected a list of links")
    if not isinstance(flows_raw, (list, tuple)):
        raise _err("flows", "expected a list of flows")

    # The dumbbell (if any) is expanded by the engine into links named bn, bnr, acc{i}, racc{i};
    # explicit links and flows come after it and may use those names (cross traffic on bn).
    names: dict[str, str] = {}
    n_flows = 0
    dumbbell = d.get("dumbbell")
    if dumbbell is not None:
        out["dumbbell"] = _dumbbell(dumbbell, "dumbbell")
        n_flows = out["dumbbell"]["flows"]
        names["bn"] = names["bnr"] = "the dumbbell"

    def _known(name: str) -> bool:
        if name in names:
            return True
        m = re.fullmatch(r"r?acc(0|[1-9][0-9]*)", name)
        return dumbbell is not None and m is not None and int(m[1]) < n_flows

    links: list[dict[str, Any]] = []
    for i, lr in enumerate(links_raw):
        f = f"links[{i}]"
        ld = _canon("link", lr, f)
        for key in ("name", "rate_bps"):
            if key not in ld:
                raise _err(_join(f, key), "missing")
        name = ld["name"]
        if not isinstance(name, str) or not name.strip():
            raise _err(_join(f, "name"), "expected a non-empty name")
        if _known(name):
            raise _err(_join(f, "name"), f"{name!r} is already the name of a link of {names.get(name, 'the dumbbell')}")
        names[name] = f
        rate = _rate(ld["rate_bps"], _join(f, "rate_bps"))
        links.append({
            "name": name,
            "rate_bps": rate,
            "delay_s": _time(ld.get("delay_s", 0.0), _join(f, "delay_s"), allow_zero=True),
            "queue": _queue(ld.get("queue"), _join(f, "queue"), rate_bps=rate),
        })

    flows: list[dict[str, Any]] = []
    for i, fr in enumerate(flows_raw):
        f = f"flows[{i}]"
        fd = _canon("flow", fr, f)
        flow: dict[str, Any] = {}
        for key in ("path", "ack_path"):
            if key not in fd:
                raise _err(_join(f, key), "missing (a list of link names)")
            p = fd[key]
            if isinstance(p, str) or not isinstance(p, (list, tuple)) or not p:
                raise _err(_join(f, key), "expected a non-empty list of link names")
            if len(p) > 200:
                raise _err(_join(f, key), "at most 200 hops")
            for j, hop in enumerate(p):
                if not isinstance(hop, str) or not _known(hop):
                    raise _err(f"{f}.{key}[{j}]", f"no link named {hop!r}")
            flow[key] = list(p)
        flow["start_s"] = _time(fd.get("start_s", 0.0), _join(f, "start_s"), allow_zero=True)
        kind = fd.get("kind", "bulk")
        if kind not in _FLOW_KINDS:
            raise _err(_join(f, "kind"), f"unknown flow kind {kind!r} (known: {', '.join(_FLOW_KINDS)})")
        flow["kind"] = kind
        if "bytes" in fd and fd["bytes"] is not None:
            flow["bytes"] = _bytes(fd["bytes"], _join(f, "bytes"))
        flow["tcp"] = _tcp(fd.get("tcp"), _join(f, "tcp"))
        flows.append(flow)
    n_flows += len(flows)
    if n_flows == 0:
        raise _err("flows", "the scenario has no flows (give flows or a dumbbell)")
    out["links"] = links
    out["flows"] = flows

    bn = d.get("bottleneck")
    if bn is None:
        if dumbbell is None:
            raise _err("bottleneck", "missing (the name of the link whose measurements are reported)")
        bn = "bn"
    if not isinstance(bn, str) or not _known(bn):
        raise _err("bottleneck", f"no link named {bn!r}")
    out["bottleneck"] = bn
    out["measure"] = _measure(d.get("measure"), "measure")
    for i, idx in enumerate(out["measure"]["cwnd_trace_flows"]):
        if idx >= n_flows:
            raise _err(f"measure.cwnd_trace_flows[{i}]", f"flow {idx} does not exist (flows are 0..{n_flows - 1})")
    # Mirror of the engine's check (crates/sim scenario.rs): segment numbers are 32-bit, so no
    # flow may be able to send 2e9 segments (duration x slowest link on its path / packet size).
    rate = {lk["name"]: lk["rate_bps"] for lk in links}
    paths = [([rate.get(h) for h in fl["path"]], fl["tcp"]["packet_bytes"]) for fl in flows]
    if dumbbell is not None:
        db = out["dumbbell"]
        acc = db["access_rate_bps"] if db["access_rate_bps"] is not None else 10.0 * db["capacity_bps"]
        rate.update(bn=db["capacity_bps"], bnr=db["capacity_bps"])
        paths = [([acc, db["capacity_bps"]], db["tcp"]["packet_bytes"])] + \
            [([rate.get(h, acc) for h in fl["path"]], fl["tcp"]["packet_bytes"]) for fl in flows]
    for rates, pkt in paths:
        segs = out["duration_s"] * min(r for r in rates if r is not None) / (8.0 * pkt)
        if segs > 2.0e9:
            raise _err("duration_s", f"a flow could send {segs:.3e} segments, beyond the engine's 32-bit "
                                     "sequence space; shorten the run")
    return out


# ----------------------------------------------------------------------------- public

class Scenario:
    """One simulation experiment, held in the engine's SI schema.

    Build it with :meth:`dumbbell`, :meth:`from_dict` or :meth:`from_file`; every constructor checks
    every field and raises :class:`ScenarioError` naming the first bad one.
    """

    __slots__ = ("_data",)

    def __init__(self, data: Mapping[str, Any]):
        self._data = _normalise(data)

    # -- constructors
    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> "Scenario":
        """From a dict in the engine's schema (SI numbers, unit strings or aliases allowed)."""
        return cls(data)

    @classmethod
    def from_file(cls, path: str | Path) -> "Scenario":
        """From a ``.toml`` or ``.json`` file (unit strings allowed)."""
        p = Path(path)
        try:
            text = p.read_bytes()
        except OSError as exc:
            raise ScenarioError(f"cannot read {str(p)!r}: {exc.strerror or exc}", argument="SCENARIO_FILE") from None
        suffix = p.suffix.lower()
        if suffix == ".toml":
            import tomllib

            try:
                data = tomllib.loads(text.decode("utf-8"))
            except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
                raise ScenarioError(f"{p.name}: not valid TOML: {exc}") from None
        elif suffix == ".json":
            try:
                data = json.loads(text)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                raise ScenarioError(f"{p.name}: not valid JSON: {exc}") from None
        else:
            raise ScenarioError(f"{p.name}: unknown scenario format {suffix or '(none)'!r} (use .toml or .json)",
                                argument="SCENARIO_FILE")
        return cls(data)

    @classmethod
    def dumbbell(cls, *, capacity: Any, flows: Any, rtt: Any, buffer: Any,
                 duration: Any = TOP_DEFAULTS["duration_s"], warmup: Any = TOP_DEFAULTS["warmup_s"],
                 seed: int = TOP_DEFAULTS["seed"], packet_size: Any = None, header_size: Any = None,
                 access_capacity: Any = None, access_buffer: Any = None, bottleneck_delay: Any = None,
                 start: Any = None, cc: str | None = None,
                 sack: bool | None = None, initial_window: Any = None, min_rto: Any = None,
                 max_window: Any = None, delayed_ack: bool | None = None, ack_size: Any = None,
                 tcp: Mapping[str, Any] | None = None,
                 queue_trace_interval: Any = None, cwnd_trace_flows: Iterable[int] = (),
                 cwnd_trace_interval: Any = None, cwnd_sum_interval: Any = None) -> "Scenario":
        """The common case: ``flows`` long-lived flows through one bottleneck of rate ``capacity``.

        ``rtt`` is a two-way propagation delay: ``"80ms"``, a range ``"20ms..140ms"`` (uniform), or a
        list (cycled over the flows). ``buffer``: ``"52pkt"``, ``"64KiB"``, ``"10ms"``, ``"0.5bdp"``,
        ``"bdp/sqrt(n)"``. ``access_capacity`` defaults (in the engine) to 10 x ``capacity``.
        ``start`` spreads the start times (default ``"0s..1s"``). ``tcp`` takes any further
        TCP field (``{"max_rto": "60s", "dupack_threshold": 3}``); the keyword arguments win.
        """
        tcp = dict(tcp or {})
        for key, val in (("packet_size", packet_size), ("header_size", header_size), ("cc", cc), ("sack", sack),
                         ("initial_window", initial_window), ("min_rto", min_rto), ("max_window", max_window),
                         ("delayed_ack", delayed_ack), ("ack_size", ack_size)):
            if val is not None:
                tcp[key] = val
        db: dict[str, Any] = {"capacity": capacity, "flows": flows, "rtt": rtt, "buffer": buffer, "tcp": tcp}
        if access_capacity is not None:
            db["access_capacity"] = access_capacity
        if access_buffer is not None:
            db["access_queue"] = access_buffer
        if bottleneck_delay is not None:
            db["bottleneck_delay"] = bottleneck_delay
        if start is not None:
            db["start"] = start
        measure: dict[str, Any] = {"cwnd_trace_flows": list(cwnd_trace_flows)}
        if queue_trace_interval is not None:
            measure["queue_trace_interval"] = queue_trace_interval
        if cwnd_trace_interval is not None:
            measure["cwnd_trace_interval"] = cwnd_trace_interval
        if cwnd_sum_interval is not None:
            measure["cwnd_sum_interval"] = cwnd_sum_interval
        return cls({"seed": seed, "duration": duration, "warmup": warmup, "dumbbell": db, "measure": measure})

    # -- views
    def to_dict(self) -> dict[str, Any]:
        """The engine's SI form (a deep copy)."""
        return json.loads(json.dumps(self._data))

    def to_json(self, indent: int | None = None) -> str:
        return json.dumps(self._data, indent=indent)

    def replace(self, **changes: Any) -> "Scenario":
        """A copy with top-level fields replaced (``seed=2``, ``duration="30s"``, ``measure={...}``)."""
        data = self.to_dict()
        for key, value in changes.items():
            name = _ALIASES["top"].get(key, key)
            data.pop(name, None)
            data[name] = value
        return Scenario(data)

    @property
    def seed(self) -> int:
        return self._data["seed"]

    @property
    def duration_s(self) -> float:
        return self._data["duration_s"]

    @property
    def warmup_s(self) -> float:
        return self._data["warmup_s"]

    @property
    def n_flows(self) -> int:
        db = self._data.get("dumbbell")
        return (db["flows"] if db else 0) + len(self._data["flows"])

    @property
    def buffer_limit(self) -> dict[str, int]:
        """The bottleneck queue limit (``{"limit_packets": N}``, ``{"limit_bytes": N}`` or ``{}``)."""
        db = self._data.get("dumbbell")
        bn = self._data["bottleneck"]
        for link in self._data["links"]:
            if link["name"] == bn:
                return dict(link["queue"])
        # one of the dumbbell's own links: bn, bnr, acc{i}, racc{i}
        if bn == "bn":
            return dict(db["buffer"])
        return dict(db["access_queue"]) if bn.startswith("acc") else {}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Scenario) and self._data == other._data

    def __repr__(self) -> str:
        db = self._data.get("dumbbell")
        if db:
            return (f"Scenario.dumbbell(capacity={units.format_rate(db['capacity_bps'])!r}, flows={db['flows']}, "
                    f"buffer={db['buffer']}, duration={self.duration_s:g}s, seed={self.seed})")
        return f"Scenario(links={len(self._data['links'])}, flows={len(self._data['flows'])}, seed={self.seed})"
