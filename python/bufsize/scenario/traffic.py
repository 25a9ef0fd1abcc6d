"""Traffic sources of a scenario: open-loop short flows, closed-loop users (and TCP mice), UDP,
and flow classes (a mix of congestion controls) in the dumbbell.

The engine (``crates/sim/src/scenario/traffic.rs``) owns the schema and checks the values (a load
must lie in (0, 1), a Pareto shape above 1, a CDF must be monotone, ...); this module converts unit
strings, checks the structure, and reads CDF files. Distributions (sizes, think times, RTTs) are
written as:

- a scalar (``"20pkt"``, ``"80KB"``, ``"1s"``) for a fixed value; ``"LO..HI"`` uniform; ``"A,B,C"``
  a list cycled over flows;
- a table with one key: ``fixed``, ``uniform = [LO, HI]``, ``list = [...]``,
  ``int_uniform = [LO, HI]`` (whole numbers), ``exponential = MEAN``,
  ``pareto = {shape = A, mean = M}``, ``empirical = {values = [...], cdf = [...]}``, or
  ``cdf_file = "sizes.csv"`` (two columns: value, cumulative probability; ``#`` comments and a
  header line allowed; values in the same unit as the field).

Sizes go under ``size`` (the unit decides: ``pkt`` means whole segments, a byte unit means
payload bytes), or explicitly under ``size_packets`` / ``size_bytes``.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any, Callable, Mapping

from bufsize import units
from bufsize.scenario import _bounds
from bufsize.scenario._fields import _bytes, _err, _int, _join, _num, _queue, _rate, _time
from bufsize.scenario.tcp import _tcp

#: Keys of a distribution table.
DIST_KINDS = ("fixed", "uniform", "list", "int_uniform", "exponential", "pareto", "empirical", "cdf_file")

_SHORT_FIELDS = ("name", "path", "ack_path", "load", "load_link", "rate_bps", "arrivals_per_s", "size",
                 "size_bytes", "size_packets", "rtt_s", "start_s", "stop_s", "tcp")
_USERS_FIELDS = ("name", "count", "path", "ack_path", "access_rate_bps", "inputs", "access_queue", "size",
                 "size_bytes", "size_packets", "think_s", "rtt_s", "start_s", "tcp")
_UDP_FIELDS = ("name", "path", "rate_bps", "packet_bytes", "pattern", "start_s", "stop_s")
_ALIASES = {
    "short": {"rtt": "rtt_s", "start": "start_s", "stop": "stop_s", "rate": "rate_bps",
              "arrivals": "arrivals_per_s"},
    "users": {"rtt": "rtt_s", "start": "start_s", "think": "think_s", "access_rate": "access_rate_bps",
              "access_capacity": "access_rate_bps", "access_buffer": "access_queue", "users": "count"},
    "udp": {"rate": "rate_bps", "packet_size": "packet_bytes", "start": "start_s", "stop": "stop_s"},
}


def _table(section: str, raw: Any, field: str) -> dict[str, Any]:
    if not isinstance(raw, Mapping):
        raise _err(field, f"expected a table of fields, got {type(raw).__name__}")
    allowed = {"short": _SHORT_FIELDS, "users": _USERS_FIELDS, "udp": _UDP_FIELDS}[section]
    aliases = _ALIASES[section]
    out: dict[str, Any] = {}
    for key, value in raw.items():
        name = aliases.get(key, key)
        if name not in allowed:
            raise _err(_join(field, str(key)), f"unknown field (known: {', '.join(allowed)})")
        if name in out:
            raise _err(_join(field, key), f"given twice (as {name!r} and an alias)")
        out[name] = value
    return out


def _read_cdf(path: Any, field: str, parse: Callable[[Any, str], float]) -> dict[str, list[float]]:
    p = Path(str(path))
    try:
        text = p.read_text()
    except OSError as exc:
        raise _err(field, f"cannot read CDF file {str(p)!r}: {exc.strerror or exc}") from None
    values: list[float] = []
    cdf: list[float] = []
    for lineno, row in enumerate(csv.reader(line for line in text.splitlines()
                                            if line.strip() and not line.lstrip().startswith("#")), 1):
        if len(row) < 2:
            raise _err(field, f"{p.name} line {lineno}: expected two columns (value, cdf)")
        try:
            prob = float(row[1])
        except ValueError:
            if lineno == 1 and not values:
                continue  # a header line
            raise _err(field, f"{p.name} line {lineno}: {row[1]!r} is not a probability") from None
        raw: Any = row[0].strip()
        try:
            raw = float(raw)  # a bare number is in the field's own unit (bytes, packets, s)
        except ValueError:
            pass
        values.append(parse(raw, f"{field}[{lineno}]"))
        cdf.append(prob)
    if not values:
        raise _err(field, f"{p.name}: the CDF file is empty")
    return {"values": values, "cdf": cdf}


def _dist(value: Any, field: str, parse: Callable[[Any, str], float]) -> dict[str, Any]:
    """A distribution in any accepted form -> the engine's form; ``parse(x, field)`` converts one
    value to SI."""
    if isinstance(value, Mapping):
        if len(value) != 1 or next(iter(value)) not in DIST_KINDS:
            raise _err(field, f"expected a table with one of the keys {', '.join(DIST_KINDS)}")
        kind, v = next(iter(value.items()))
        f = _join(field, kind)
        if kind in ("fixed", "exponential"):
            return {kind: parse(v, f)}
        if kind in ("uniform", "list", "int_uniform"):
            if not isinstance(v, (list, tuple)) or not v:
                raise _err(f, "expected a non-empty list")
            if kind != "list" and len(v) != 2:
                raise _err(f, "expected [LO, HI]")
            vals = [parse(x, f"{f}[{i}]") for i, x in enumerate(v)]
            if kind == "int_uniform":
                if any(x != int(x) for x in vals):
                    raise _err(f, f"expected whole numbers, got {v!r}")
                vals = [int(x) for x in vals]
            return {kind: vals}
        if kind == "pareto":
            if not isinstance(v, Mapping) or set(v) != {"shape", "mean"}:
                raise _err(f, "expected {shape = A, mean = M}")
            shape = _bounds.pareto_shape(_plain(v["shape"], argument=_join(f, "shape")), _join(f, "shape"))
            return {"pareto": {"shape": shape, "mean": parse(v["mean"], _join(f, "mean"))}}
        if kind == "empirical":
            if not isinstance(v, Mapping) or set(v) != {"values", "cdf"}:
                raise _err(f, "expected {values = [...], cdf = [...]}")
            vals = [parse(x, f"{f}.values[{i}]") for i, x in enumerate(v["values"] or [])]
            cdf = [_plain(x, argument=f"{f}.cdf[{i}]", allow_zero=True) for i, x in enumerate(v["cdf"] or [])]
            return {"empirical": {"values": vals, "cdf": cdf}}
        return {"empirical": _read_cdf(v, f, parse)}
    if isinstance(value, (list, tuple)):
        if not value:
            raise _err(field, "expected a non-empty list")
        vals = [parse(x, f"{field}[{i}]") for i, x in enumerate(value)]
        return {"fixed": vals[0]} if len(vals) == 1 else {"list": vals}
    if isinstance(value, str) and ".." in value:
        lo, _, hi = value.partition("..")
        return {"uniform": [parse(lo, field), parse(hi, field)]}
    if isinstance(value, str) and "," in value:
        return _dist([p for p in value.split(",") if p.strip()], field, parse)
    return {"fixed": parse(value, field)}


def _plain(x: Any, *, argument: str | None = None, allow_zero: bool = True) -> float:
    """A plain number (shape, probability)."""
    try:
        v = float(x)
    except (TypeError, ValueError):
        raise _err(argument or "value", f"expected a number, got {x!r}") from None
    if not math.isfinite(v):
        raise _err(argument or "value", f"expected a finite number, got {x!r}")
    return v


def _time_of(x: Any, f: str) -> float:
    return _time(x, f, allow_zero=True)


def _packets_of(x: Any, f: str) -> float:
    return _bounds.transfer_packets(_num(x, f, units.parse_packets, allow_zero=True), f)


def _bytes_of(x: Any, f: str) -> float:
    return _bounds.transfer_bytes(float(_bytes(x, f, allow_zero=True)), f)


def _first_scalar(value: Any) -> Any:
    """Some value of a distribution spec, to tell a size in packets from one in bytes."""
    if isinstance(value, Mapping) and value:
        v = next(iter(value.values()))
        if isinstance(v, Mapping):
            v = v.get("mean", next(iter(v.values()), None))
        return _first_scalar(v)
    if isinstance(value, (list, tuple)):
        return value[0] if value else None
    if isinstance(value, str):
        return value.replace("..", ",").split(",")[0]
    return value


def _size(d: dict[str, Any], field: str, required: bool) -> dict[str, Any]:
    given = [k for k in ("size", "size_bytes", "size_packets") if k in d]
    if len(given) > 1:
        raise _err(field, f"give one of size, size_bytes, size_packets (got {', '.join(given)})")
    if not given:
        if required:
            raise _err(_join(field, "size"), "missing (e.g. size = \"20pkt\" or a Pareto table)")
        return {}
    key = given[0]
    if key == "size":
        probe = _first_scalar(d["size"])
        is_pkt = isinstance(probe, str) and probe.strip().lower().endswith(("pkt", "pkts", "packets", "packet"))
        key = "size_packets" if is_pkt else "size_bytes"
        if not is_pkt and not isinstance(probe, str):
            raise _err(_join(field, "size"), "give a unit (\"20pkt\" or \"80KB\"), or use size_packets / size_bytes")
    parse = _packets_of if key == "size_packets" else _bytes_of
    return {key: _dist(d[given[0]], _join(field, given[0]), parse)}


def _path(value: Any, field: str) -> list[str]:
    if isinstance(value, str) or not isinstance(value, (list, tuple)) or not value:
        raise _err(field, "expected a non-empty list of link names")
    for i, hop in enumerate(value):
        if not isinstance(hop, str):
            raise _err(f"{field}[{i}]", f"expected a link name, got {hop!r}")
    return list(value)


def short_flows(raw: Any, field: str) -> dict[str, Any]:
    d = _table("short", raw, field)
    out: dict[str, Any] = {}
    for key in ("name", "load_link"):
        if key in d:
            out[key] = str(d[key])
    for key in ("path", "ack_path"):
        if key in d:
            out[key] = _path(d[key], _join(field, key))
    if "load" in d:
        out["load"] = _plain(d["load"], argument=_join(field, "load"))
    if "rate_bps" in d:
        out["rate_bps"] = _rate(d["rate_bps"], _join(field, "rate_bps"))
    if "arrivals_per_s" in d:
        f = _join(field, "arrivals_per_s")
        out["arrivals_per_s"] = _bounds.arrivals(_plain(d["arrivals_per_s"], argument=f), f)
    out.update(_size(d, field, required=True))
    if "rtt_s" not in d:
        raise _err(_join(field, "rtt_s"), "missing (the transfers' two-way propagation delay)")
    out["rtt_s"] = _dist(d["rtt_s"], _join(field, "rtt_s"), _time_of)
    out["start_s"] = _time(d.get("start_s", 0.0), _join(field, "start_s"), allow_zero=True)
    if d.get("stop_s") is not None:
        out["stop_s"] = _time(d["stop_s"], _join(field, "stop_s"))
    out["tcp"] = _tcp(d.get("tcp"), _join(field, "tcp"))
    return out


def users(raw: Any, field: str) -> dict[str, Any]:
    d = _table("users", raw, field)
    out: dict[str, Any] = {}
    if "count" not in d:
        raise _err(_join(field, "count"), "missing (the number of users)")
    out["count"] = _int(d["count"], _join(field, "count"), minimum=1, maximum=2**31 - 1)
    if "name" in d:
        out["name"] = str(d["name"])
    for key in ("path", "ack_path"):
        if key in d:
            out[key] = _path(d[key], _join(field, key))
    if d.get("access_rate_bps") is not None:
        out["access_rate_bps"] = _rate(d["access_rate_bps"], _join(field, "access_rate_bps"))
    if "inputs" in d:
        out["inputs"] = _int(d["inputs"], _join(field, "inputs"), minimum=1, maximum=2**31 - 1)
    if "access_queue" in d:
        out["access_queue"] = _queue(d["access_queue"], _join(field, "access_queue"),
                                     rate_bps=out.get("access_rate_bps"))
    out.update(_size(d, field, required=False))
    if "think_s" in d:
        out["think_s"] = _dist(d["think_s"], _join(field, "think_s"), _time_of)
    if "rtt_s" not in d:
        raise _err(_join(field, "rtt_s"), "missing (each user's two-way propagation delay)")
    out["rtt_s"] = _dist(d["rtt_s"], _join(field, "rtt_s"), _time_of)
    if "start_s" in d:
        out["start_s"] = _dist(d["start_s"], _join(field, "start_s"), _time_of)
    out["tcp"] = _tcp(d.get("tcp"), _join(field, "tcp"))
    return out


def mice(raw: Any, field: str) -> dict[str, Any]:
    """TCP mice (001 §V-C): closed-loop users fetching 10–15 packets, then sleeping for a uniform
    time; ``sleep`` (default ``"0s..2s"``) and ``size`` (default 10..15 packets) may be changed."""
    if not isinstance(raw, Mapping):
        raise _err(field, f"expected a table of fields, got {type(raw).__name__}")
    d = dict(raw)
    d.setdefault("name", "mice")
    sleep = d.pop("sleep", "0s..2s")
    if not any(k in d for k in ("size", "size_bytes", "size_packets")):
        d["size_packets"] = {"int_uniform": [10, 15]}
    d.setdefault("think_s", sleep)
    return users(d, field)


def udp(raw: Any, field: str) -> dict[str, Any]:
    d = _table("udp", raw, field)
    out: dict[str, Any] = {}
    if "name" in d:
        out["name"] = str(d["name"])
    if "path" in d:
        out["path"] = _path(d["path"], _join(field, "path"))
    if "rate_bps" not in d:
        raise _err(_join(field, "rate_bps"), "missing (the mean rate)")
    out["rate_bps"] = _rate(d["rate_bps"], _join(field, "rate_bps"))
    if "packet_bytes" in d:
        out["packet_bytes"] = _bytes(d["packet_bytes"], _join(field, "packet_bytes"))
    pat = d.get("pattern", "cbr")
    f = _join(field, "pattern")
    if isinstance(pat, str):
        if pat not in ("cbr", "poisson"):
            raise _err(f, f"unknown pattern {pat!r} (known: cbr, poisson, {{pareto = ...}}, {{pareto_on_off = ...}})")
        out["pattern"] = pat
    elif isinstance(pat, Mapping) and len(pat) == 1 and next(iter(pat)) in ("pareto", "pareto_on_off"):
        kind, v = next(iter(pat.items()))
        if not isinstance(v, Mapping):
            raise _err(_join(f, kind), "expected a table")
        if kind == "pareto":
            if set(v) != {"shape"}:
                raise _err(_join(f, kind), "expected {shape = A}")
            fs = _join(f, "pareto.shape")
            out["pattern"] = {"pareto": {"shape": _bounds.pareto_shape(_plain(v["shape"], argument=fs), fs)}}
        else:
            want = {"shape", "on", "off"}
            keys = {k.removesuffix("_s") for k in v}
            if keys != want:
                raise _err(_join(f, kind), "expected {shape = A, on = MEAN, off = MEAN}")
            vv = {k.removesuffix("_s"): x for k, x in v.items()}
            out["pattern"] = {"pareto_on_off": {
                "shape": _bounds.pareto_shape(_plain(vv["shape"], argument=_join(f, "pareto_on_off.shape")),
                                              _join(f, "pareto_on_off.shape")),
                "on_s": _time(vv["on"], _join(f, "pareto_on_off.on")),
                "off_s": _time(vv["off"], _join(f, "pareto_on_off.off"), allow_zero=True)}}
    else:
        raise _err(f, "expected \"cbr\", \"poisson\", {pareto = {shape}} or {pareto_on_off = {shape, on, off}}")
    out["start_s"] = _time(d.get("start_s", 0.0), _join(field, "start_s"), allow_zero=True)
    if d.get("stop_s") is not None:
        out["stop_s"] = _time(d["stop_s"], _join(field, "stop_s"))
    return out


def mix(raw: Any, field: str, n_flows: int, base_tcp: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Dumbbell flow classes: ``{reno = 42, bic = 51}`` (counts, each class's TCP = the dumbbell's
    with that congestion control) or a list of ``{flows = N, tcp = {...}, name = ...}``."""
    classes: list[dict[str, Any]] = []
    if isinstance(raw, Mapping):
        items = [{"name": str(k), "flows": v, "tcp": {"cc": str(k)}} for k, v in raw.items()]
    elif isinstance(raw, (list, tuple)):
        items = list(raw)
    else:
        raise _err(field, "expected a table {cc = flows, ...} or a list of {flows, tcp} classes")
    for i, c in enumerate(items):
        f = f"{field}[{i}]"
        if not isinstance(c, Mapping) or "flows" not in c or set(c) - {"flows", "tcp", "name"}:
            raise _err(f, "expected {flows = N, tcp = {...}, name = ...}")
        cls = {"flows": _int(c["flows"], _join(f, "flows"), minimum=1, maximum=2**31 - 1),
               "tcp": _tcp(c.get("tcp"), _join(f, "tcp"), base=base_tcp)}
        if c.get("name") is not None:
            cls["name"] = str(c["name"])
        classes.append(cls)
    total = sum(c["flows"] for c in classes)
    if classes and total != n_flows:
        raise _err(field, f"the classes hold {total} flows, the dumbbell has {n_flows}")
    return classes


def sobas(raw: Any, field: str) -> dict[str, Any]:
    """SOBAS at a flow's receiver (001 §VII-A): ``true`` or a table of ``max_buffer`` (bytes,
    default 16 MiB), ``probe_interval`` (20 ms), ``probe_size`` (100 B), ``slope_tolerance``
    (0.5, in units of MSS/RTT²), ``readjust`` (false)."""
    if raw is True:
        return {}
    if not isinstance(raw, Mapping):
        raise _err(field, "expected true or a table of SOBAS settings")
    aliases = {"max_buffer": "max_buffer_bytes", "probe_interval": "probe_interval_s",
               "probe_size": "probe_bytes", "probe_bytes": "probe_bytes"}
    allowed = ("max_buffer_bytes", "probe_interval_s", "probe_bytes", "slope_tolerance", "readjust")
    out: dict[str, Any] = {}
    for key, v in raw.items():
        name = aliases.get(key, key)
        if name not in allowed:
            raise _err(_join(field, str(key)), f"unknown field (known: {', '.join(allowed)})")
        f = _join(field, key)
        if name in ("max_buffer_bytes", "probe_bytes"):
            out[name] = _bytes(v, f)
        elif name == "probe_interval_s":
            out[name] = _bounds.interval(_time(v, f), f, duration_s=_bounds.MAX_TIME_S)
        elif name == "slope_tolerance":
            out[name] = _plain(v, argument=f)
        else:
            if not isinstance(v, bool):
                raise _err(f, f"expected true or false, got {v!r}")
            out[name] = v
    return out


__all__ = ["short_flows", "users", "mice", "udp", "mix", "sobas", "DIST_KINDS"]
