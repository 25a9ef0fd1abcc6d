"""A traffic profile -> an engine scenario (and the inputs of ``bufsize recommend``).

- long flows: one long-lived TCP flow per long flow of the profile, each with its measured RTT
  (unknown RTTs get the median of the known ones);
- short flows: open-loop TCP transfers arriving as a Poisson process at the measured rate, sizes
  drawn from the measured size CDF (piecewise linear through its points), RTTs from the short
  flows' RTT CDF;
- UDP: one Poisson source at the measured UDP rate and mean packet size.

``scale_to`` scales the profile to a link of that rate (capacity planning): the flow count, the
short-flow arrival rate and the UDP rate grow by ``scale_to / capacity``; RTTs, sizes and the
packet size stay. What a capture cannot tell (the congestion control, the capacity when it is
not given) is assumed and listed in the returned notes. The congestion control is resolved in one
place for every command (:func:`congestion_control`): ``--cc``/``--mix`` given now, else the one
recorded in the profile (``traffic summarize --cc/--mix``), else the stack profile's
(:func:`bufsize.traffic.assumed_cc`: CUBIC for ``linux``).

The bottleneck is an ideal router port (it serializes at the rate, the buffer is the only queue)
unless ``bottleneck_burst`` is given: a token bucket of that many bytes at the rate, as Linux's htb
shapes the kernel testbed's bottleneck (tc's ``burst``). That is for the testbed's own captures,
whose router is known; a user's capture does not show its router, and the CLI never sets it.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from bufsize import units
from bufsize.errors import BufsizeError
from bufsize.traffic.profile import Profile, quantile

_CC_ALIASES = {"reno": "newreno"}


def _capacity(profile: Profile, capacity: Any, notes: list[str]) -> float:
    if capacity is not None:
        return units.parse_rate(capacity, argument="--capacity")
    if profile.capacity_bps:
        return float(profile.capacity_bps)
    if not (profile.peak_rate_bps > 0):
        raise BufsizeError("the capacity cannot be inferred from this input (no load series): give --capacity",
                           argument="--capacity")
    notes.append(f"capacity not given: assumed the highest 1-s rate seen, {profile.peak_rate_bps / 1e6:.3g} Mb/s "
                 "(give --capacity)")
    return float(profile.peak_rate_bps)


def _scale(profile: Profile, cap: float, scale_to: Any, notes: list[str]) -> tuple[float, float]:
    """(new capacity, growth factor)."""
    if scale_to is None:
        return cap, 1.0
    new = units.parse_rate(scale_to, argument="--scale-to")
    k = new / cap
    notes.append(f"scaled to {new / 1e6:.4g} Mb/s: {k:.3g}x the flows, arrivals and UDP rate; RTTs, sizes and "
                 "packet size as measured")
    return new, k


def _rtts(profile: Profile, rtt: Any, notes: list[str]) -> tuple[list[float], float]:
    """Per-long-flow RTTs (NaN filled) and a fallback RTT for flows without one."""
    if rtt is not None:
        v = units.parse_time_list(rtt, argument="--rtt")
        vals = list(v) if not isinstance(v, tuple) else [(v[0] + v[1]) / 2]
        notes.append("RTTs given with --rtt, not the measured ones")
        n = max(profile.long_flows, 1)
        return [vals[i % len(vals)] for i in range(n)], float(np.median(vals))
    known = [x for x in profile.long_rtts_s if x is not None and math.isfinite(x)]
    med = quantile(profile.rtt_cdf, 0.5)
    if not math.isfinite(med):
        raise BufsizeError("the RTTs could not be inferred from this input: give --rtt", argument="--rtt")
    if len(known) < len(profile.long_rtts_s):
        notes.append(f"{len(profile.long_rtts_s) - len(known)} long flows without an RTT sample got the median, "
                     f"{med * 1e3:.3g} ms")
    return [x if (x is not None and math.isfinite(x)) else med for x in profile.long_rtts_s], med


def _cdf_dist(cdf: dict[str, list[float]], floor: float | None = None) -> dict[str, Any]:
    vals = list(cdf["values"])
    probs = list(cdf["cdf"])
    if floor is not None:
        vals = [max(floor, v) for v in vals]
    if len(vals) == 1:
        return {"fixed": vals[0]}
    probs[-1] = 1.0
    return {"empirical": {"values": vals, "cdf": probs}}


def congestion_control(profile: Profile | None, cc: str | None = None, mix: Any = None) -> tuple[str, bool]:
    """The senders' congestion control for measured traffic, as a mix text (``"cubic=1"``,
    ``"reno=0.5,bbr=0.5"``) that ``recommend --mix`` and ``simulate --mix`` take, and whether it
    was assumed. ``cc``/``mix`` given now come first, then the one the profile records, then the
    stack profile's (:func:`bufsize.traffic.profile.assumed_cc`)."""
    from bufsize.traffic.profile import assumed_cc

    if cc is not None and mix is not None:
        raise BufsizeError("give one congestion control (--cc) or a mix (--mix), not both", argument="--mix")
    if mix is not None:
        return mix_text(mix), False
    if cc is not None:
        return mix_text(cc, "--cc"), False
    if profile is not None and profile.congestion_control:
        return mix_text(profile.congestion_control), False
    return f"{assumed_cc()}=1", True


def mix_text(value: Any, argument: str = "--mix") -> str:
    """``"reno"`` -> ``"reno=1"``; a mix text or a dict as ``"a=x,b=y"``; anything else a one-line
    error."""
    if isinstance(value, dict):
        items = [(str(k).strip(), v) for k, v in value.items()]
    elif isinstance(value, str) and value.strip():
        text = value.strip()
        if "=" not in text and "," not in text:
            _known_cc(text, argument)
            return f"{text.lower()}=1"
        items = []
        for part in text.split(","):
            k, sep, v = part.partition("=")
            if not sep or not k.strip():
                raise BufsizeError(f"{part.strip()!r}: expected NAME=SHARE (e.g. reno=0.5,cubic=0.5)", argument="--mix")
            items.append((k.strip(), v.strip()))
    else:
        raise BufsizeError(f"expected a congestion control or a mix such as reno=0.5,cubic=0.5, got {value!r}",
                           argument="--mix")
    out = []
    for k, v in items:
        _known_cc(k, argument)
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise BufsizeError(f"{k}={v}: the share is not a number", argument="--mix") from None
        if not (math.isfinite(x) and x >= 0):
            raise BufsizeError(f"{k}={v}: the share must be a number >= 0", argument="--mix")
        out.append(f"{k.lower()}={x:g}")
    return ",".join(out)


def _known_cc(name: str, argument: str) -> None:
    """A one-line error unless ``name`` is a congestion control the engine runs or ``--mix`` names."""
    from bufsize.recommendation.inputs import MIX_NAMES
    from bufsize.scenario._fields import congestion_controls

    key = name.strip().lower()
    known = dict.fromkeys([*congestion_controls(), *MIX_NAMES])
    if key not in known:
        raise BufsizeError(f"unknown congestion control {name.strip()!r} (known: {', '.join(known)})",
                           argument=argument)


def _mix_shares(text: str) -> dict[str, float]:
    """``"reno=0.5,cubic=0.5"`` -> {"reno": 0.5, "cubic": 0.5} (shares or counts, normalized)."""
    items = {k: float(v) for k, v in (part.split("=") for part in text.split(","))}
    total = sum(items.values())
    if not total > 0:
        raise BufsizeError(f"{text}: the shares add up to 0", argument="--mix")
    return {k: v / total for k, v in items.items() if v > 0}


def _cc_label(text: str) -> str:
    """``"cubic=1"`` -> ``"cubic"``; a mix as it was given."""
    shares = _mix_shares(text)
    return next(iter(shares)) if len(shares) == 1 else text


def tcp_settings(profile: Profile, cc: str | None, notes: list[str]) -> dict[str, Any]:
    """The senders' TCP: the stack profile in force (:mod:`bufsize.profiles`, today's Linux unless
    another is named) with the measured segment size and the congestion control of
    :func:`congestion_control` (one; a mix is split into flow classes by :func:`to_scenario`)."""
    from bufsize import defaults, profiles
    from bufsize.traffic.profile import cc_note

    if cc is None:
        text, assumed = congestion_control(profile)
        cc = _cc_label(text)
        if "," in cc:  # a mix recorded in the profile: the classes carry it; this is the short flows'
            cc = max(_mix_shares(text).items(), key=lambda kv: kv[1])[0]
        notes.append(cc_note(None) if assumed else cc_note(_cc_label(text)))
    sim_cc = _CC_ALIASES.get(cc, cc)
    payload = float(profile.mss_bytes)
    overhead = float(profile.frame_overhead_bytes)
    out: dict[str, Any] = {"cc": sim_cc, "packet_size": payload + overhead, "header_size": overhead}
    if defaults.loss_detection_chosen() is not None:
        out["loss_detection"] = defaults.loss_detection_chosen()
    return out


def to_scenario(profile: Profile, *, capacity: Any = None, buffer: Any = None, scale_to: Any = None,
                duration: Any = None, warmup: Any = None, cc: str | None = None, rtt: Any = None,
                seed: int = 1, start: Any = "0s..1s", bottleneck_burst: Any = None,
                tcp: dict[str, Any] | None = None, mix: Any = None):
    """(Scenario, notes): the engine scenario of ``profile`` and what was assumed to build it.

    ``cc`` or ``mix`` (``"reno=0.5,cubic=0.5"``, shares or counts) set the senders' congestion
    control; without them, the one the profile records, else the stack profile's
    (:func:`congestion_control`). A mix splits the long-lived flows into classes (``recommend``'s
    rounding); short flows run its largest share.

    ``bottleneck_burst`` (bytes): shape the bottleneck with a token bucket of that depth, as the
    kernel testbed's htb does (its ``burst``), instead of an ideal port; None (default) for a link
    whose router is not known. ``tcp``: engine TCP settings that replace the Linux-like ones of
    :func:`tcp_settings` for every flow (e.g. ``{"loss_detection": "rack"}``)."""
    from bufsize.scenario import Scenario

    notes: list[str] = []
    cap0 = _capacity(profile, capacity, notes)
    cap, k = _scale(profile, cap0, scale_to, notes)
    if buffer is None:
        raise BufsizeError("give the buffer to simulate (--buffer, e.g. 100pkt or 0.5bdp)", argument="--buffer")
    dur = units.parse_time(duration, argument="--duration") if duration is not None else \
        float(min(max(profile.duration_s, 20.0), 120.0))
    wu = units.parse_time(warmup, argument="--warmup", allow_zero=True) if warmup is not None else min(5.0, dur / 4)
    tcp_given = tcp
    cc_text, _ = congestion_control(profile, cc, mix)
    shares = _mix_shares(cc_text)
    if cc is None and mix is not None:
        cc = max(shares.items(), key=lambda kv: kv[1])[0]
        notes.append(f"congestion control: the mix {cc_text}, as given")
    elif cc is not None:
        notes.append(f"congestion control: {cc}, as given")
    tcp = tcp_settings(profile, cc, notes)
    if tcp_given:
        tcp.update(tcp_given)
    long_rtts, med = _rtts(profile, rtt, notes)
    n_long = int(round(len(long_rtts) * k))
    if profile.long_flows and n_long != profile.long_flows:
        long_rtts = [long_rtts[i % len(long_rtts)] for i in range(n_long)]
    short: list[dict[str, Any]] = []
    if profile.short_flows and profile.arrival_rate_per_s > 0 and profile.size_cdf["values"]:
        short_rtt = profile.short_rtt_cdf if profile.short_rtt_cdf["values"] else {"values": [med], "cdf": [1.0]}
        short.append({"name": "short", "arrivals_per_s": profile.arrival_rate_per_s * k,
                      "size_bytes": _cdf_dist(profile.size_cdf, floor=1.0),
                      "rtt_s": _cdf_dist(short_rtt) if rtt is None else {"fixed": med}, "tcp": dict(tcp)})
    udp: list[dict[str, Any]] = []
    if profile.udp_rate_bps > 0:
        pkt = profile.udp_packet_bytes if math.isfinite(profile.udp_packet_bytes) else 1000.0
        udp.append({"name": "udp", "rate_bps": profile.udp_rate_bps * k, "packet_bytes": int(max(28, round(pkt))),
                    "pattern": "poisson"})
        notes.append("UDP modelled as a Poisson packet source at its mean rate")
    if n_long >= 1:
        classes = None
        if len(shares) > 1:
            from bufsize.recommendation.scenario import mix_classes

            classes = mix_classes(cc_text, n_long)
        sc = Scenario.dumbbell(capacity=cap, flows=n_long, rtt=long_rtts if len(long_rtts) > 1 else long_rtts[0],
                               buffer=buffer, duration=dur, warmup=wu, seed=seed, start=start,
                               bottleneck_burst=bottleneck_burst, tcp={k2: v for k2, v in tcp.items()}, mix=classes)
        extra: dict[str, Any] = {}
        if short:
            extra["short_flows"] = short
        if udp:
            extra["udp"] = udp
        if extra:
            sc = sc.replace(**extra)
    else:
        if not short:
            raise BufsizeError("no TCP flow carried data in this input: nothing to simulate", argument="FILE")
        notes.append("no long-lived flow in the input: the traffic is the short flows (and UDP) only")
        bn: dict[str, Any] = {"name": "bn", "rate_bps": cap, "queue": buffer}
        if bottleneck_burst is not None:
            bn["burst_bytes"] = bottleneck_burst
        data = {"seed": seed, "duration": dur, "warmup": wu, "bottleneck": "bn",
                "links": [bn, {"name": "ack", "rate_bps": 10 * cap}],
                "short_flows": [dict(s, path=["bn"], ack_path=["ack"]) for s in short],
                "udp": [dict(u, path=["bn"]) for u in udp]}
        sc = Scenario.from_dict(data)
    if profile.short_flows:
        notes.append("short flows modelled as open-loop Poisson arrivals (a capture cannot tell whether "
                     "users waited for each other)")
    return sc, notes


def recommend_inputs(profile: Profile, capacity: Any = None, scale_to: Any = None, *, mix: Any = None) -> dict[str, Any]:
    """See :func:`recommend_inputs_notes`; this returns only the keyword arguments."""
    return recommend_inputs_notes(profile, capacity, scale_to, mix=mix)[0]


def recommend_inputs_notes(profile: Profile, capacity: Any = None, scale_to: Any = None, *,
                           mix: Any = None) -> tuple[dict[str, Any], list[str]]:
    """Keyword arguments for :func:`bufsize.recommendation.recommend` from a profile: ``capacity``,
    ``flows`` (long-lived flows), ``rtt`` (the per-flow RTTs as a comma-separated list of times, one
    per flow, as ``--rtt`` takes them), ``packet_size``, and
    ``short_flows``/``short_load`` when the profile has short flows, and ``mix``: the one given,
    else the profile's, else the stack profile's congestion control (:func:`congestion_control`,
    the same assumption ``simulate --traffic`` and ``traffic summarize`` make); ``scale_to``
    grows flows and loads as :func:`to_scenario` does. Unknown RTTs get the median of the known
    ones. Returns (keyword arguments, notes on what was assumed)."""
    notes: list[str] = []
    cap0 = _capacity(profile, capacity, notes)
    cap, k = _scale(profile, cap0, scale_to, notes)
    out: dict[str, Any] = {"capacity": cap,
                           "packet_size": f"{profile.mss_bytes + profile.frame_overhead_bytes:.0f}B"}
    rtts, med = _rtts(profile, None, notes) if profile.long_flows else ([], quantile(profile.rtt_cdf, 0.5))
    if profile.long_flows:
        n = max(1, int(round(profile.long_flows * k)))
        out["flows"] = n
        # the per-flow list in recommend's text form ("20.04ms,40.05ms,...", one entry per flow)
        out["rtt"] = ",".join(f"{rtts[i % len(rtts)] * 1e3:.6g}ms" for i in range(n))
    else:
        if not math.isfinite(med):
            raise BufsizeError("the RTTs could not be inferred from this input: give --rtt", argument="--rtt")
        out["rtt"] = f"{med * 1e3:.6g}ms"
    if profile.short_flows and profile.size_cdf["values"]:
        pkt_payload = profile.mss_bytes
        # the sizes as whole packets, at a handful of quantiles (recommend's --short-flows form)
        qs = (0.1, 0.3, 0.5, 0.7, 0.9)
        lengths: dict[int, float] = {}
        for q in qs:
            n_pk = max(1, int(math.ceil(quantile(profile.size_cdf, q) / pkt_payload)))
            lengths[n_pk] = lengths.get(n_pk, 0.0) + 1.0 / len(qs)
        out["short_flows"] = ",".join(f"{n}pkt:{w:.6g}" for n, w in sorted(lengths.items())) if len(lengths) > 1 \
            else f"{next(iter(lengths))}pkt"
        load = min(0.99, profile.short_load_bps * k / cap) if cap > 0 else 0.0
        out["short_load"] = max(load, 1e-6)
    from bufsize.traffic.profile import cc_note

    text, assumed = congestion_control(profile, None, mix)
    out["mix"] = mix if mix is not None else text
    notes.append(cc_note(None) if assumed else cc_note(_cc_label(text)))
    return out, notes
