"""Per-flow TCP settings of a scenario (the engine's ``TcpConfig``)."""

from __future__ import annotations

from typing import Any, Mapping

from bufsize import profiles as _profiles
from bufsize import units
from bufsize.scenario import _bounds
from bufsize.scenario._fields import (
    _U32,
    _bool,
    _bytes,
    _canon,
    _dimension,
    _err,
    _int,
    _join,
    _time,
    congestion_controls,
)

#: Loss detection a scenario's TCP may ask for (the engine's TcpConfig.loss_detection).
LOSS_DETECTIONS = ("dupack", "rack")
#: What a loss halves (the engine's TcpConfig.flight_size).
FLIGHT_SIZES = ("flight", "pipe", "cwnd")


def _name(value: Any, known: tuple[str, ...], field: str, what: str) -> str:
    """``value`` lower-cased if it is one of ``known``; else a ScenarioError naming ``field``."""
    if not isinstance(value, str) or value.strip().lower() not in known:
        raise _err(field, f"unknown {what} {value!r} (known: {', '.join(known)})")
    return value.strip().lower()


def _tcp(raw: Any, field: str, base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    d = _canon("tcp", raw if raw is not None else {}, field)
    # unset fields are the profile's in force: the scenario's own, _normalise parses inside it
    out = dict(base if base is not None else _profiles.tcp())
    if "cc" in d:
        cc = d["cc"]
        known = congestion_controls()
        name = cc.strip().lower() if isinstance(cc, str) else None
        if name == "reno-rfc5681":   # RFC 5681's Reno recovery, whatever the stack calls "reno"
            name = "reno"
        elif name is not None:
            name = _profiles.get().cc_names.get(name, name)   # "reno" as the profile's stack means it
        if name not in known:
            raise _err(_join(field, "cc"), f"unknown congestion control {cc!r} (known: {', '.join(known)})")
        out["cc"] = name
    if "sack" in d:
        out["sack"] = _bool(d["sack"], _join(field, "sack"))
    if "delayed_ack" in d:
        out["delayed_ack"] = _bool(d["delayed_ack"], _join(field, "delayed_ack"))
    if "prr" in d:
        out["prr"] = _bool(d["prr"], _join(field, "prr"))
    if "loss_detection" in d:
        # "dupack" (DupThresh duplicate ACKs / SACKed segments, as ns-2/ns-3) or "rack" (RACK-TLP,
        # RFC 8985, as Linux; needs sack, without it the engine uses duplicate ACKs)
        out["loss_detection"] = _name(d["loss_detection"], LOSS_DETECTIONS, _join(field, "loss_detection"),
                                      "loss detection")
    # Linux's integer CUBIC and Linux's PRR variant (engine TcpConfig.cubic_integer / prr_linux)
    # ECN (engine TcpConfig.ecn: ECT data, CE echo, one reduction per window, RFC 3168)
    for key in ("cubic_integer", "prr_linux", "limited_transmit", "cubic_reno_friendly", "cubic_hystart",
                "repeat_rto_holds_ssthresh",
                "rto_min_above_srtt", "loss_in_cwr_keeps_reduction", "prr_wraps_32bit", "reno_careful", "ns2_halving",
                "ecn"):
        if key in d:
            out[key] = _bool(d[key], _join(field, key))
    if "flight_size" in d:
        # what a loss halves (engine TcpConfig.flight_size): "flight" (snd_max - snd_una, at most the
        # window), "pipe" (the RFC 6675 pipe, as ns-3) or "cwnd" (ns-2's windowd(), Linux's reno)
        out["flight_size"] = _name(d["flight_size"], FLIGHT_SIZES, _join(field, "flight_size"), "flight size")
    if "host_jitter_s" in d:
        # the largest random delay of a packet at its host (engine TcpConfig.host_jitter_s)
        f = _join(field, "host_jitter_s")
        v = _time(d["host_jitter_s"], f, allow_zero=True)   # "0": the engine's deterministic timing
        if v > 1.0:
            raise _err(f, f"must be at most 1 s, got {v:g} s")
        out["host_jitter_s"] = v
    for key in ("packet_bytes", "header_bytes", "ack_bytes"):
        if key in d:
            out[key] = _bytes(d[key], _join(field, key), allow_zero=key == "header_bytes")
            if out[key] > 65_535:
                raise _err(_join(field, key), f"must be at most 65535 bytes, got {out[key]}")
    if "abc_limit" in d:
        # segments one ACK may count towards Reno/NewReno growth (engine TcpConfig.abc_limit)
        out["abc_limit"] = _int(d["abc_limit"], _join(field, "abc_limit"), minimum=1, maximum=_U32)
    if "dupack_threshold" in d:
        out["dupack_threshold"] = _int(d["dupack_threshold"], _join(field, "dupack_threshold"), minimum=1,
                                       maximum=65_535)
    if "initial_window" in d:
        out["initial_window"] = _int(d["initial_window"], _join(field, "initial_window"), minimum=1,
                                     parse=units.parse_packets, maximum=_bounds.MAX_WINDOW_PACKETS)
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
        if out["max_window_packets"] is not None:
            _bounds.window(out["max_window_packets"], f)
    if out["header_bytes"] >= out["packet_bytes"]:
        raise _err(_join(field, "header_bytes"),
                   f"{out['header_bytes']} B header leaves no payload in {out['packet_bytes']} B packets")
    return out
