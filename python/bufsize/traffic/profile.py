"""Flow records -> a traffic profile: what a link carried, in the terms the engine takes.

The *measured direction* is the one carrying more bytes (captures see both directions: data one
way, ACKs the other); loads and flow sizes are counted in it. A TCP flow is *long* when it was
active for at least ``long_fraction`` (default 0.5) of the capture and carried data; the others are
*short* (their sizes and arrival rate make the open-loop short-flow source). RTTs are each flow's
path RTT (``rtt_path_s`` of :mod:`bufsize.traffic.records`: the smallest RTT seen between the
same two hosts, i.e. propagation plus the queueing no flow of that pair escaped).

What a capture can mislead about is checked here and said in :attr:`Profile.warnings`:

- *mid-stream*: long flows whose handshake is not in the capture. Their RTT is the smallest
  sample seen; the queue's varying share above it is left out (and reported, ``long_queue_s``),
  but a queue that never drained while the capture ran cannot be told from the path: it stays in;
- *idle and interactive connections* (iperf3's control connection, SSH, BGP): open for most of
  the capture but carrying next to nothing. They are not long-lived bulk flows and are set aside
  (``idle_flows``; :func:`idle_mask` has the rule);
- *a capture taken at a host* instead of at the port (:func:`capture_point_checks`): the data
  senders' own leg of the RTT a few microseconds, RTTs under a millisecond, segments larger than
  any link's MTU (offloads), or more traffic than the stated capacity carries.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bufsize.errors import BufsizeError
from bufsize.traffic.records import FlowRecords


def _cdf(values: np.ndarray, weights: np.ndarray | None = None, points: int = 64) -> dict[str, list[float]]:
    """A compact empirical CDF: up to ``points`` (value, probability) pairs, probabilities rising
    strictly to 1 (the engine's empirical-distribution form)."""
    v = np.asarray(values, dtype=float)
    ok = np.isfinite(v)
    v = v[ok]
    if not len(v):
        return {"values": [], "cdf": []}
    w = np.ones_like(v) if weights is None else np.asarray(weights, dtype=float)[ok]
    if not w.sum() > 0:
        return {"values": [], "cdf": []}  # nothing to weigh (flows that carried no byte)
    order = np.argsort(v, kind="stable")
    v, w = v[order], w[order]
    c = np.cumsum(w)
    c = c / c[-1]
    # collapse repeated values (keep the last cumulative probability of each)
    last = np.r_[v[1:] != v[:-1], True]
    v, c = v[last], c[last]
    if len(v) > points:
        idx = np.unique(np.r_[np.searchsorted(c, np.linspace(0, 1, points)[1:], side="left"), len(v) - 1])
        idx = np.minimum(idx, len(v) - 1)
        v, c = v[idx], c[idx]
    return {"values": [float(x) for x in v], "cdf": [float(x) for x in c]}


def quantile(cdf: dict[str, list[float]], q: float) -> float:
    if not cdf["values"]:
        return math.nan
    i = int(np.searchsorted(np.asarray(cdf["cdf"]), q, side="left"))
    return float(cdf["values"][min(i, len(cdf["values"]) - 1)])


@dataclass
class Profile:
    """What the records add up to (SI units: seconds, bit/s, bytes)."""

    source: str
    kind: str
    duration_s: float
    direction: str                      # "fwd" (initiator -> responder) or "rev"
    flows_total: int
    tcp_flows: int
    udp_flows: int
    long_flows: int
    short_flows: int
    mean_rate_bps: float
    peak_rate_bps: float                # highest 1-s rate
    load_series: dict[str, list[float]]  # t_s, rate_bps (1-s bins, measured direction)
    arrival_rate_per_s: float           # TCP short-flow arrivals per second
    size_cdf: dict[str, list[float]]    # short TCP flows' sizes (bytes of payload, measured direction)
    size_mean_bytes: float
    rtt_cdf: dict[str, list[float]]     # per flow (TCP flows with an RTT)
    rtt_cdf_bytes: dict[str, list[float]]  # byte-weighted
    long_rtts_s: list[float]            # every long flow's RTT (NaN where unknown)
    short_rtt_cdf: dict[str, list[float]]
    active_flows_mean: float
    active_flows_max: int
    flows_for_half_bytes: int
    flows_for_90pct_bytes: int
    udp_rate_bps: float
    udp_share: float
    udp_packet_bytes: float
    mss_bytes: float
    frame_overhead_bytes: float         # wire bytes per packet beyond the TCP payload
    timestamps: bool
    limits: dict[str, int]
    retrans_rate: float                 # retransmitted / data segments, measured direction
    completed_transfers: int
    capacity_bps: float | None = None
    short_load_bps: float = 0.0
    long_load_bps: float = 0.0
    not_inferred: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: TCP flows open for most of the capture that carried too little to be bulk flows (set aside)
    idle_flows: int = 0
    #: long flows whose RTT comes from a capture that began after their handshake
    long_midstream: int = 0
    #: per long flow: its typical RTT sample (mean) minus its smallest, the queue's varying share
    long_queue_s: list[float] = field(default_factory=list)
    #: where the capture seems to have been taken: "" (nothing says otherwise than a port),
    #: "sender host" (upstream of the port, at the data senders), "host" (on a host or a LAN)
    capture_point: str = ""
    #: the senders' congestion control as the user gave it (a mix such as "reno=1" or
    #: "cubic=0.5,bbr=0.5"); None: not given, the stack profile's is assumed (bufsize.profiles)
    congestion_control: str | None = None
    #: what may make the profile mislead (printed first by every command that reads it)
    warnings: list[str] = field(default_factory=list)
    #: how much of the input the profile is built from: flows read and used, and the flows left
    #: out by the plausibility checks, per reason (see :func:`plausible`)
    input_used: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self, indent: int | None = 1) -> str:
        """Strict JSON: unknown numbers (NaN) are written as null."""
        return json.dumps({"bufsize_traffic_profile": 1, **_finite(self.to_dict())}, indent=indent, allow_nan=False)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Profile":
        d = {k: v for k, v in d.items() if k != "bufsize_traffic_profile"}
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise BufsizeError(f"not a bufsize traffic profile (unknown fields {', '.join(sorted(unknown))})",
                               argument="FILE")
        try:
            p = cls(**d)
        except TypeError as exc:
            raise BufsizeError(f"not a complete bufsize traffic profile: {exc}", argument="FILE") from None
        # JSON has no NaN: to_json wrote unknown numbers as null
        for k, f in cls.__dataclass_fields__.items():
            if getattr(p, k) is None and f.type in ("float", float):
                setattr(p, k, math.nan)
        for k, f in cls.__dataclass_fields__.items():
            why = _field_problem(str(f.type), getattr(p, k))
            if why:
                raise BufsizeError(f"not a valid bufsize traffic profile: {k} {why}", argument="FILE")
        if not (p.duration_s > 0):
            raise BufsizeError("not a valid bufsize traffic profile: duration_s must be a number > 0", argument="FILE")
        return p


def _number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _field_problem(kind: str, v: Any) -> str | None:
    """Why a saved profile's field value does not fit its declared type (None if it does): every
    number finite (or null: unknown) and not negative, every CDF rising within (0, 1]."""
    optional = kind.endswith(" | None")
    kind = kind.removesuffix(" | None")
    if v is None and optional:
        return None
    if kind == "float":
        ok = _number(v) and (math.isnan(v) or 0 <= v < math.inf)
        return None if ok else f"must be a number >= 0 (got {str(v)[:40]})"
    if kind == "int":
        return None if _number(v) and int(v) == v and v >= 0 else f"must be a whole number >= 0 (got {str(v)[:40]})"
    if kind == "str":
        return None if isinstance(v, str) else "must be text"
    if kind == "bool":
        return None if isinstance(v, bool) else "must be true or false"
    if kind == "list[str]":
        return None if isinstance(v, list) and all(isinstance(x, str) for x in v) else "must be a list of text"
    if kind == "list[float]":
        ok = isinstance(v, list) and all(x is None or (_number(x) and math.isfinite(x)) for x in v)
        return None if ok else "must be a list of numbers (or null)"
    if kind == "dict[str, int]":
        ok = isinstance(v, dict) and all(_number(x) and x >= 0 for x in v.values())
        return None if ok else "must map names to counts"
    if kind == "dict[str, list[float]]":
        if not (isinstance(v, dict) and all(isinstance(x, list) and all(_number(y) and math.isfinite(y) for y in x)
                                            for x in v.values())):
            return "must map names to lists of numbers"
        if "cdf" in v:
            c = v["cdf"]
            if len(c) != len(v.get("values", [])) or any(not 0 < q <= 1 for q in c) or any(
                    b < a for a, b in zip(c, c[1:])):
                return "is not a CDF (probabilities rising within (0, 1], one per value)"
        elif set(v) >= {"t_s", "rate_bps"} and len(v["t_s"]) != len(v["rate_bps"]):
            return "must have as many rates as times"
        return None
    if kind == "dict[str, Any]":
        return None if isinstance(v, dict) else "must be an object"
    return None


def _finite(x: Any) -> Any:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    if isinstance(x, dict):
        return {k: _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def load_profile(path: str | Path) -> Profile:
    try:
        d = json.loads(Path(path).read_text())
    except (OSError, ValueError) as exc:
        raise BufsizeError(f"{Path(path).name}: cannot read a saved profile: {exc}", argument="FILE") from None
    except RecursionError:
        raise BufsizeError(f"{Path(path).name}: JSON nested too deeply to be a saved profile", argument="FILE") from None
    if not isinstance(d, dict) or d.get("bufsize_traffic_profile") != 1:
        raise BufsizeError(f"{Path(path).name}: a JSON file that is not a bufsize traffic profile", argument="FILE")
    try:
        return Profile.from_dict(d)
    except BufsizeError as exc:
        raise BufsizeError(f"{Path(path).name}: {exc.detail}", argument="FILE") from None


def _peak_rate(rate: np.ndarray, duration: float) -> float:
    """The highest 1-s rate of a series whose last second may be partial (scaled up to a rate).
    A partial last second shorter than half a second is too short to stand for a 1-s rate (one
    packet 0.1 ms into it read as 116 Mb/s on a 1 Mb/s capture): it does not count, and a
    capture shorter than that counts its bytes over one second (a lower bound)."""
    if not len(rate):
        return 0.0
    last = duration - (len(rate) - 1)
    if 0 < last < 0.5:
        if len(rate) > 1:
            return float(np.max(rate[:-1]))
        return float(rate[-1] * last)
    return float(np.max(rate))


def _series(rec: FlowRecords, direction: str, duration: float,
            flows: pd.DataFrame | None = None) -> tuple[np.ndarray, np.ndarray]:
    """1-s rate series of the measured direction: from the capture's bins when there are, else
    each flow's bytes (of ``flows``, default all of ``rec``'s) spread evenly over its lifetime
    (flow records carry no timing inside)."""
    meta = rec.meta
    key = f"bin_bytes_{direction}"
    if key in meta and meta.get("bin_s"):
        b = np.asarray(meta[key], dtype=float)
        per = max(1, int(round(1.0 / meta["bin_s"])))
        n = int(math.ceil(len(b) / per)) if len(b) else 0
        b = np.pad(b, (0, n * per - len(b)))
        sec = b.reshape(n, per).sum(axis=1) if n else b
        rate = sec * 8.0
        if n and duration > 0:
            last = duration - (n - 1)  # the last second is partial
            if 0 < last < 1:
                rate[-1] = sec[-1] * 8.0 / last
        return np.arange(n, dtype=float), rate
    df = rec.flows if flows is None else flows
    n = max(1, int(math.ceil(duration)))
    acc = np.zeros(n + 1)
    col = df[f"bytes_{direction}"].to_numpy(dtype=float)
    s = df["start_s"].to_numpy(dtype=float)
    e = np.maximum(df["end_s"].to_numpy(dtype=float), s + 1e-9)
    for si, ei, b in zip(s, e, col):
        i0, i1 = int(si), int(ei)
        if i0 == i1:
            acc[min(i0, n)] += b
            continue
        rate = b / (ei - si)
        acc[i0] += rate * (i0 + 1 - si)
        acc[i0 + 1:i1] += rate
        acc[min(i1, n)] += rate * (ei - i1)
    out = acc[:n] * 8.0
    last = duration - (n - 1)  # the last second is partial: a rate, as the capture's series
    if 0 < last < 1:
        out[-1] /= last
    return np.arange(n, dtype=float), out


def build(rec: FlowRecords, *, capacity_bps: float | None = None, long_fraction: float = 0.5,
          window: tuple[float, float] | None = None) -> Profile:
    """The traffic profile of ``rec``. ``window`` (seconds from the capture start) restricts the
    load figures to that interval (the flows are still all used)."""
    meta = rec.meta
    src = meta.get("source", "?")
    if not len(rec.flows):
        raise BufsizeError(f"{Path(src).name}: no flows in it (no TCP or UDP packets)", argument="FILE")
    df, used, why_out = plausible(rec)
    tcp = df[df["proto"] == 6]
    udp = df[df["proto"] == 17]
    if not len(tcp):
        raise BufsizeError(f"{Path(src).name}: no TCP flows in it ({len(udp)} UDP flows, "
                           f"{int(meta.get('frames', 0))} frames); bufsize sizes buffers for TCP traffic",
                           argument="FILE")
    duration = float(meta.get("duration_s") or 0.0) or float(df["end_s"].max() - df["start_s"].min())
    capture = meta.get("kind") == "capture"
    shortest = MIN_CAPTURE_S if capture else MIN_DURATION_S
    if not duration >= shortest:
        raise BufsizeError(f"{Path(src).name}: the {'capture' if capture else 'records'} span {duration:.3g} s "
                           f"(first flow at {float(df['start_s'].min()):.6g} s, last end at "
                           f"{float(df['end_s'].max()):.6g} s): rates and arrivals need at least {shortest:g} s of "
                           "traffic", argument="FILE")
    if not (tcp["payload_fwd"].sum() + tcp["payload_rev"].sum()) > 0:
        raise BufsizeError(f"{Path(src).name}: its {len(tcp)} TCP flow(s) carried no data (no payload byte in either "
                           "direction: handshakes, ACKs or keep-alives only); nothing to size a buffer for",
                           argument="FILE")
    fwd, rev = float(df["bytes_fwd"].sum()), float(df["bytes_rev"].sum())
    direction = "fwd" if fwd >= rev else "rev"
    bcol, ucol = f"bytes_{direction}", f"unique_{direction}"
    not_inferred: list[str] = []
    notes: list[str] = []

    t, rate = _series(rec, direction, duration, df)
    if window is not None:
        a, b = window
        total = _window_bytes(rec, direction, a, b)
        mean_rate = total * 8.0 / (b - a) if total is not None else float(np.mean(rate[(t >= a) & (t + 1 <= b)]))
    else:
        mean_rate = float(np.sum(rate[:-1]) + rate[-1] * min(1.0, duration - (len(rate) - 1))) / duration \
            if len(rate) else 0.0
    peak = _peak_rate(rate, duration)

    # packet sizes (the idle rule counts in segments)
    mss = float(tcp["mss"].replace(0, np.nan).median()) if tcp["mss"].gt(0).any() else math.nan
    ts = bool(tcp["timestamps"].mean() > 0.5) if len(tcp) else False
    if not math.isfinite(mss):
        mss = 1448.0 if ts else 1460.0
        not_inferred.append(f"the segment size (records carry no MSS): assumed {mss:.0f} B of payload")
    # long and short TCP flows; idle and interactive connections set aside
    life = (tcp["end_s"] - tcp["start_s"]).to_numpy(dtype=float)
    carried = tcp[ucol].to_numpy(dtype=float)
    lived = life >= long_fraction * duration
    idle = idle_mask(lived, carried, mss)
    is_long = lived & (carried > 0) & ~idle
    longs = tcp[is_long]
    shorts = tcp[~lived & (carried > 0)]
    if idle.any():
        notes.append(_idle_note(tcp[idle], ucol, mss, duration))
    rtt_col = "rtt_path_s" if "rtt_path_s" in tcp.columns else "rtt_min_s"
    rtt_all = tcp[rtt_col].to_numpy(dtype=float)
    if np.isnan(rtt_all).all():
        not_inferred.append("RTTs (no handshake, timestamps or data/ACK pairs in the records): give --rtt")
    elif np.isnan(rtt_all).any():
        notes.append(f"{int(np.isnan(rtt_all).sum())} of {len(tcp)} TCP flows have no RTT sample")
    wbytes = tcp[ucol].to_numpy(dtype=float)
    rtt_cdf = _cdf(rtt_all)
    rtt_cdf_bytes = _cdf(rtt_all, wbytes)
    short_sizes = shorts[ucol].to_numpy(dtype=float)
    arrivals = len(shorts) / duration
    size_cdf = _cdf(short_sizes, points=48)
    # active flows at 1-s steps
    grid = np.arange(0.0, duration, max(duration / 2000, 0.1))
    s_arr = df["start_s"].to_numpy(dtype=float)
    e_arr = df["end_s"].to_numpy(dtype=float)
    active = (np.searchsorted(np.sort(s_arr), grid, side="right")
              - np.searchsorted(np.sort(e_arr), grid, side="left"))
    # how many flows carry most bytes
    by = np.sort(df[bcol].to_numpy(dtype=float))[::-1]
    cum = np.cumsum(by) / max(by.sum(), 1.0)
    half = int(np.searchsorted(cum, 0.5) + 1) if len(by) else 0
    ninety = int(np.searchsorted(cum, 0.9) + 1) if len(by) else 0
    # UDP
    udp_bytes = float(udp[bcol].sum() + udp[f"bytes_{'rev' if direction == 'fwd' else 'fwd'}"].sum()) if len(udp) else 0.0
    all_bytes = fwd + rev
    udp_pkts = float(udp["packets_fwd"].sum() + udp["packets_rev"].sum()) if len(udp) else 0.0
    udp_rate = udp_bytes * 8.0 / duration
    l2 = 14 if meta.get("kind") == "capture" and (meta.get("linktypes") or [1])[0] == 1 else 0
    overhead = 40 + (12 if ts else 0) + l2
    seg = tcp[f"packets_{direction}"].sum()
    retr = tcp[f"retrans_packets_{direction}"].sum()
    limits = {k: int(v) for k, v in tcp["limit"].value_counts().items()}
    if meta.get("kind") != "capture":
        not_inferred.append("what limited each flow (receiver window / application / congestion): "
                            "flow records carry no per-packet detail")
    not_inferred.append(cc_note(None))
    if capacity_bps is None:
        not_inferred.append(f"the link capacity (give --capacity; assumed the highest 1-s rate, {peak / 1e6:.3g} Mb/s)")
    # what the reader could not use, and what the plausibility checks left out, change the numbers
    warnings: list[str] = list(meta.get("reader_warnings") or
                               ([f"capture truncated: {meta['truncated']}"] if meta.get("truncated") else []))
    warnings += why_out
    if meta.get("fragments"):
        unmatched = int(meta.get("fragments_unmatched") or 0)
        notes.append(f"{int(meta['fragments']):,} later IP fragments ({int(meta.get('fragment_bytes') or 0):,} bytes) "
                     "counted in the load series without a flow (no transport header, so no ports)"
                     + (f"; {unmatched:,} of them without their first fragment, counted as sent by initiators"
                        if unmatched else ""))
    if meta.get("snapped"):
        notes.append(f"{int(meta['snapped'])} frames cut by the snap length (headers used, sizes from the IP header)")
    if meta.get("malformed"):
        notes.append(f"{int(meta['malformed'])} frames with unreadable IP/TCP headers skipped")
    long_load = float(longs[bcol].sum()) * 8.0 / duration
    # RTTs of long flows captured mid-stream, and the queue's varying share above them
    queue = (longs["rtt_mean_s"] - longs["rtt_min_s"]).to_numpy(dtype=float)
    midstream = 0
    if meta.get("kind") == "capture" and len(longs):
        midstream = int((~longs["syn_seen"].astype(bool)).sum())
        if midstream:
            warnings.append(_midstream_warning(midstream, len(longs), queue))
    point, why = capture_point_checks(tcp, longs, direction, mss, capacity_bps, peak, mean_rate)
    warnings += why
    short_load = float(shorts[bcol].sum()) * 8.0 / duration
    return Profile(
        source=str(src), kind=str(meta.get("kind", "?")), duration_s=duration, direction=direction,
        flows_total=int(len(df)), tcp_flows=int(len(tcp)), udp_flows=int(len(udp)),
        long_flows=int(len(longs)), short_flows=int(len(shorts)),
        mean_rate_bps=float(mean_rate), peak_rate_bps=peak,
        load_series={"t_s": [float(x) for x in t], "rate_bps": [float(x) for x in rate]},
        arrival_rate_per_s=float(arrivals), size_cdf=size_cdf,
        size_mean_bytes=float(np.mean(short_sizes)) if len(short_sizes) else math.nan,
        rtt_cdf=rtt_cdf, rtt_cdf_bytes=rtt_cdf_bytes,
        long_rtts_s=[float(x) for x in longs[rtt_col]],
        short_rtt_cdf=_cdf(shorts[rtt_col].to_numpy(dtype=float)),
        active_flows_mean=float(np.mean(active)) if len(active) else 0.0,
        active_flows_max=int(np.max(active)) if len(active) else 0,
        flows_for_half_bytes=half, flows_for_90pct_bytes=ninety,
        udp_rate_bps=udp_rate, udp_share=udp_bytes / all_bytes if all_bytes else 0.0,
        udp_packet_bytes=udp_bytes / udp_pkts if udp_pkts else math.nan,
        mss_bytes=mss, frame_overhead_bytes=float(overhead), timestamps=ts, limits=limits,
        retrans_rate=float(retr / seg) if seg else 0.0,
        completed_transfers=int(tcp["complete"].sum()),
        capacity_bps=capacity_bps, short_load_bps=short_load, long_load_bps=long_load,
        not_inferred=not_inferred, notes=notes, idle_flows=int(idle.sum()), long_midstream=midstream,
        long_queue_s=[float(x) for x in queue], capture_point=point, warnings=warnings, input_used=used,
    )


#: The shortest input a profile is made from: its rates are per second, and flows all at one
#: instant (a span of 0 s) once read as 5e7 arrivals/s and 37 s of queueing.
MIN_DURATION_S = 1.0
#: The shortest capture (its packets' times give rates within a second, so it may be shorter).
MIN_CAPTURE_S = 0.01
#: The fastest rate a flow record may claim (10 Tb/s): beyond it the record is not a measurement.
MAX_FLOW_RATE_BPS = 1e13
#: A record's duration counts as at least this for its rate (a one-packet flow lasts 0 s).
MIN_RATE_DURATION_S = 1e-3
#: How far a record may reach outside the capture's [0, duration] (timestamps are rounded; a merged
#: capture's interfaces start a little apart).
SPAN_SLACK_S = 1.0
_COUNT_COLUMNS = ("packets_fwd", "packets_rev", "bytes_fwd", "bytes_rev", "payload_fwd", "payload_rev",
                  "unique_fwd", "unique_rev")


def plausible(rec: FlowRecords) -> tuple[pd.DataFrame, dict[str, Any], list[str]]:
    """The flows that make physical sense, how much of the input they are, and a warning per kind
    of record left out: a negative count, a rate above :data:`MAX_FLOW_RATE_BPS`, a start before
    the capture began or an end after it ended (by more than :data:`SPAN_SLACK_S`). Refused (one
    line) when fewer than half the flows are left."""
    from bufsize.traffic.records import MIN_USED_SHARE, NOT_A_COUNT

    df = rec.flows
    at_read = rec.meta.get("dropped_at_read") or {}
    n_read = int(at_read.get("count", 0))   # left out as the file was read: their counts are no counts
    n = len(df)
    start = df["start_s"].to_numpy(dtype=float)
    end = df["end_s"].to_numpy(dtype=float)
    neg = np.zeros(n, dtype=bool)
    for c in _COUNT_COLUMNS:
        if c in df.columns:
            neg |= df[c].to_numpy(dtype=float) < 0
    total = df["bytes_fwd"].to_numpy(dtype=float) + df["bytes_rev"].to_numpy(dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = total * 8.0 / np.maximum(end - start, MIN_RATE_DURATION_S)
    fast = ~neg & (rate > MAX_FLOW_RATE_BPS)
    known = float(rec.meta.get("duration_s") or 0.0)
    early = ~neg & ~fast & (start < -SPAN_SLACK_S)
    late = ~neg & ~fast & ~early & (known > 0) & (end > known + SPAN_SLACK_S)
    reasons = {"negative count": neg, "rate above 10 Tb/s": fast, "starts before the capture": early,
               "ends after the capture": late}
    out = neg | fast | early | late
    warnings = []
    if n_read:
        warnings.append(f"{n_read:,} of {n + n_read:,} flow records left out: {NOT_A_COUNT} (first: "
                        f"{at_read.get('first', '?')})")
    for why, m in reasons.items():
        if m.any():
            i = int(np.flatnonzero(m)[0])
            warnings.append(f"{int(m.sum()):,} of {n:,} flow records left out: {why} (first: start {start[i]:.6g} s, "
                            f"end {end[i]:.6g} s, {total[i]:.6g} bytes)")
    kept = n - int(out.sum())
    excluded = {why: int(m.sum()) for why, m in reasons.items() if m.any()}
    if n_read:
        excluded = {NOT_A_COUNT: n_read, **excluded}
    used = {"flows_read": n + n_read, "flows_used": kept, "excluded": excluded}
    for k in ("frames", "time_outliers", "bad_lengths", "file_size", "position"):
        if k in rec.meta:
            used[k] = int(rec.meta[k] or 0)
    if kept < MIN_USED_SHARE * (n + n_read):
        src = Path(str(rec.meta.get("source", "?"))).name
        raise BufsizeError(f"{src}: only {kept:,} of {n + n_read:,} flow records make physical sense ("
                           + "; ".join(f"{c:,} {why}" for why, c in excluded.items())
                           + "): too little to size a buffer from", argument="FILE")
    return (df[~out].reset_index(drop=True) if out.any() else df), used, warnings


#: A TCP flow open for at least the long-lived share of the capture is an idle or interactive
#: connection, not a bulk flow, when it carried fewer than this many full segments ...
IDLE_SEGMENTS = 20
#: ... or less than this fraction of the busiest such flow's bytes (a bulk flow sharing the port
#: with others gets a share within a few times theirs; an SSH session or iperf3's control
#: connection carries a thousandth of it or less).
IDLE_SHARE = 0.01


def idle_mask(lived: np.ndarray, carried: np.ndarray, mss: float) -> np.ndarray:
    """Which flows that lived long are idle or interactive connections: they carried (in the
    measured direction) fewer than :data:`IDLE_SEGMENTS` segments of ``mss`` bytes or less than
    :data:`IDLE_SHARE` of the busiest long-lived flow's bytes."""
    lived = np.asarray(lived, dtype=bool)
    carried = np.asarray(carried, dtype=float)
    busiest = float(carried[lived].max()) if lived.any() else 0.0
    floor = max(IDLE_SEGMENTS * mss, IDLE_SHARE * busiest)
    return lived & (carried < floor)


def _idle_note(idle: pd.DataFrame, ucol: str, mss: float, duration: float) -> str:
    b = idle[ucol].to_numpy(dtype=float)
    life = float((idle["end_s"] - idle["start_s"]).median())
    return (f"{len(idle)} idle or interactive connection{'s' if len(idle) > 1 else ''} set aside (open for "
            f"{life:.3g} s of the {duration:.3g}-s capture but carrying {_bytes_text(float(b.min()))}"
            + (f" to {_bytes_text(float(b.max()))}" if len(b) > 1 and b.max() > b.min() else "")
            + f"; a bulk flow carries at least {IDLE_SEGMENTS} segments and {IDLE_SHARE:.0%} of the busiest "
            "flow's bytes): not counted as long-lived flows")


def _bytes_text(b: float) -> str:
    return f"{b / 1e3:.3g} kB" if b >= 1e3 else f"{b:.0f} B"


def _midstream_warning(n: int, total: int, queue: np.ndarray) -> str:
    q = queue[np.isfinite(queue)]
    share = (f"; their samples sit a median {float(np.median(q)) * 1e3:.3g} ms above it (the queue's varying "
             "share, left out)") if len(q) else ""
    return (f"the capture started mid-stream: {n} of {total} long-lived flows have no handshake in it. Their RTT "
            f"is their smallest sample{share}; a queue that never drained while the capture ran cannot be told "
            "from the path and stays in it (RTTs too long, buffer too large). A capture from before the flows "
            "start has their handshakes")


#: A leg of the RTT this short is a host answering itself: the capture was taken on that host.
HOST_LEG_S = 100e-6
#: Path RTTs below this are a host's or a LAN's, not a router port's whose buffer matters.
SUB_MS_S = 1e-3
#: Largest TCP payload on any link (a 9000-byte jumbo frame less its headers); larger segments
#: exist only inside a host (TSO/GSO before, GRO after the network card).
WIRE_MAX_PAYLOAD = 9000 - 40
#: More than this times the stated capacity in some second cannot have left a port of that rate.
OVER_CAPACITY = 1.05


def capture_point_checks(tcp: pd.DataFrame, longs: pd.DataFrame, direction: str, mss: float,
                         capacity_bps: float | None, peak_bps: float,
                         mean_bps: float) -> tuple[str, list[str]]:
    """Where the capture seems to have been taken ("" when nothing says it was not at a port,
    "sender host", "host"), and the warnings that say why."""
    point, why = "", []
    flows = longs if len(longs) else tcp
    # the data sender's leg (capture -> sender -> capture): a host's own is microseconds and steady;
    # at a port the data senders' leg holds the port's queue (its mean is well above its minimum)
    snd, oth = ("init", "resp") if direction == "fwd" else ("resp", "init")
    cols = [f"rtt_leg_{snd}_s", f"rtt_leg_{snd}_mean_s", f"rtt_leg_{oth}_s"]
    if all(c in flows.columns for c in cols):
        leg, leg_mean, other = (flows[c].to_numpy(dtype=float) for c in cols)
        ok = np.isfinite(leg) & np.isfinite(leg_mean) & np.isfinite(other)
        host = (leg < HOST_LEG_S) & (leg_mean < 2 * HOST_LEG_S) & (other >= 10 * HOST_LEG_S)
        if ok.any() and float(host[ok].mean()) > 0.5:
            point = "sender host"
            why.append(f"captured at the senders' host, not at the port: the data senders answer within "
                       f"{float(np.median(leg_mean[ok])) * 1e6:.3g} us on average (their own leg of the RTT), so "
                       "the capture sees the data before the port's queue, its drops included, and the queue only "
                       "in the receivers' leg")
    rtt = flows["rtt_path_s" if "rtt_path_s" in flows.columns else "rtt_min_s"].to_numpy(dtype=float)
    rtt = rtt[np.isfinite(rtt)]
    if len(rtt) and float(np.median(rtt)) < SUB_MS_S:
        point = point or "host"
        why.append(f"RTTs under a millisecond (median {float(np.median(rtt)) * 1e3:.3g} ms): traffic on a host "
                   "(loopback) or a LAN, not across a router port whose buffer matters; the sizes below are "
                   "not a port's")
    big = tcp["mss"].to_numpy(dtype=float) if "mss" in tcp.columns else np.array([])
    if len(big) and float(np.nanmax(big, initial=0.0)) > WIRE_MAX_PAYLOAD:
        point = point or "host"
        why.append(f"TCP segments of up to {float(np.nanmax(big)):.0f} B, more than any link carries: captured "
                   "inside a host with segmentation offloads (TSO/GRO), not on the wire at a port")
    over = _over_capacity(peak_bps, capacity_bps)
    if over:
        point = point or "host"
        why.append(over)
    if why and "src" in tcp.columns and len(tcp):
        ends = pd.concat([tcp["src"].astype(str), tcp["dst"].astype(str)])
        top = ends.value_counts()
        if len(top) and int(top.iloc[0]) == len(tcp):
            why[-1] += f"; every flow has {top.index[0]} at one end"
    return point, why


_OVER_CAPACITY_TEXT = "in its busiest second, more than the stated capacity"


def _over_capacity(peak_bps: float, capacity_bps: float | None) -> str | None:
    if not (capacity_bps and peak_bps > OVER_CAPACITY * capacity_bps):
        return None
    return (f"{peak_bps / 1e6:.4g} Mb/s {_OVER_CAPACITY_TEXT} "
            f"({capacity_bps / 1e6:.4g} Mb/s): not the output of a port of that rate (a host, the port's input, "
            "or a wrong --capacity)")


def recheck_capacity(p: Profile) -> None:
    """After ``p.capacity_bps`` changed (a saved profile given a capacity): redo the check that the
    traffic fits it."""
    keep = [w for w in p.warnings if _OVER_CAPACITY_TEXT not in w]
    new = _over_capacity(p.peak_rate_bps, p.capacity_bps)
    p.warnings = keep + ([new] if new else [])
    if new and not p.capture_point:
        p.capture_point = "host"


def cc_note(given: str | None) -> str:
    """The line that says which congestion control the senders are taken to run."""
    from bufsize import profiles

    if given is not None:
        return f"the congestion control of the senders (not visible in a capture): {given}, as given"
    cc = assumed_cc()
    shown = {"cubic": "CUBIC", "newreno": "NewReno", "reno": "Reno", "bbr": "BBR"}.get(cc, cc)
    return (f"the congestion control of the senders (not visible in a capture): assumed {shown} "
            f"(the {profiles.name()} stack profile's; give --cc or --mix)")


def assumed_cc() -> str:
    """The congestion control every command assumes for measured traffic when none is given: the
    stack profile's in force (:mod:`bufsize.profiles`; ``cubic`` for ``linux``)."""
    from bufsize import profiles

    return str(profiles.get().tcp["cc"])


def _window_bytes(rec: FlowRecords, direction: str, a: float, b: float) -> float | None:
    """Bytes of the measured direction in [a, b) from the capture's fine bins (fractional edges)."""
    key = f"bin_bytes_{direction}"
    if key not in rec.meta:
        return None
    bins = np.asarray(rec.meta[key], dtype=float)
    w = float(rec.meta["bin_s"])
    edges = np.arange(len(bins) + 1) * w
    lo = np.clip(edges[:-1], a, b)
    hi = np.clip(edges[1:], a, b)
    return float(np.sum(bins * (hi - lo) / w))
