"""From a link description to the simulator's scenario: the one place where that translation lives.

``bufsize recommend`` describes a link with a :class:`bufsize.recommendation.LinkInput` (capacity,
RTTs, flows, TCP mix, packet size, window cap, pacing, input capacity Γ, short flows). Everything
that simulates "the traffic described" -- the verified answer of ``recommend``, and ``search`` /
``sweep`` given link flags instead of a scenario file -- builds its scenario here, so that what
runs is what was described:

    scenario_from_input(inp, *, buffer=None, duration=None, warmup=None, seed=1) -> dict

returns a dumbbell scenario in the loose input form (unit strings, aliases) that
:meth:`bufsize.Scenario.from_dict` and :func:`bufsize.experiments.sweep.sweep` accept; the buffer
sits at ``scenario["dumbbell"]["buffer"]`` (so ``vary={"buffer": [...]}`` works).
:func:`unsimulated` lists the parts of the description the scenario cannot carry (say them beside
any result), and :func:`input_from_flags` is the shared parser of the link flags.

What the scenario holds:

- the bottleneck at ``inp.capacity_bps`` with ``inp.flows`` long-lived flows whose two-way
  propagation delays follow the RTTs as given (a uniform range, or a list cycled over the flows);
  one value is spread uniformly over ± :data:`SINGLE_RTT_SPREAD` of it, as real paths differ;
- TCP as described: packet size ``inp.packet_bytes`` and the window cap on the stack of the
  profile in force (:mod:`bufsize.profiles`, today's Linux unless another is named), with the
  profile's congestion control (CUBIC in ``linux``) -- paced NewReno when ``inp.paced`` --
  unless a mix is given: then one class per protocol (``reno`` -> ``newreno``, ``bic``, ``cubic``
  -> ``cubic`` (β = 0.7), ``cubic-0.8`` -> ``cubic-0.8``, ``ctcp``, ``bbr`` -> ``bbr``), with flow
  counts rounded from the mix's fractions (largest remainders, so they add up to ``inp.flows``);
- each flow behind its own access link of ``inp.input_capacity_bps`` when Γ is given;
- short flows (``inp.short_lengths`` / ``short_weights`` at ``inp.short_load`` of the capacity) as
  Poisson arrivals of transfers with the same RTTs and TCP settings;
- a buffer in packets rounded to the nearest whole packet (halves up), as the scenario schema
  rounds every buffer given in packets.

With short flows and no long-lived flows there is no dumbbell: the scenario has a bottleneck link
``bn`` (holding the buffer) and its reverse ``bnr``.
"""

from __future__ import annotations

import math
from typing import Any

from bufsize import defaults, profiles
from bufsize.errors import BufsizeError
from bufsize.recommendation.inputs import ENGINE_CC, LinkInput, _parse_mix, mix_count_total, mix_counts, parse_input

__all__ = ["ENGINE_CC", "mix_counts", "mix_classes", "scenario_from_input", "unsimulated", "input_from_flags",
           "whole_packets", "SINGLE_RTT_SPREAD"]

#: Entries of the list used for a short-flow length distribution with weights (the engine cycles
#: a list over the transfers, so a weight w becomes round(w * this) entries).
_WEIGHT_RESOLUTION = 100


def whole_packets(b: float) -> int:
    """A buffer of ``b`` packets as a queue limit: the nearest whole packet, halves up (never < 0)."""
    if not math.isfinite(b):
        raise BufsizeError(f"a buffer of {b} packets cannot be simulated", argument="buffer")
    return max(0, int(math.floor(b + 0.5)))


def mix_classes(mix: Any, flows: Any, *, argument: str = "--mix") -> list[dict[str, Any]]:
    """The dumbbell's flow classes for a ``--mix`` (``"cubic=0.5,bbr=0.5"``, fractions or flow
    counts, or a dict) over ``flows`` flows: ``[{"name": "cubic", "flows": 5, "tcp": {"cc": "cubic"}},
    ...]``, the form :meth:`bufsize.Scenario.dumbbell`'s ``mix`` takes. The protocol names and the
    rounding are ``recommend``'s (:func:`mix_counts`), so ``simulate --mix`` runs what ``recommend
    --mix`` sizes."""
    from bufsize import units

    n = units.parse_count(flows, argument="--flows")
    given = mix_count_total(mix)
    if given is not None and given != n:
        raise BufsizeError(f"the mix names {given} flows in all, --flows says {n} (give fractions such as "
                           "reno=0.5,cubic=0.5, or counts that add up to --flows)", argument=argument)
    shares = _parse_mix(mix)
    counts = mix_counts(shares, n)
    if not counts:
        raise BufsizeError("the mix gives no flows", argument=argument)
    return [{"name": ENGINE_CC[k], "flows": c, "tcp": {"cc": ENGINE_CC[k]}} for k, c in counts.items()]


#: One RTT given (an operator's mean) is simulated as RTTs spread uniformly over ± this fraction of
#: it: flows of identical RTT through one port lock in phase, which real paths, never equal, do
#: not. 200 CUBIC flows, 50 Mb/s, 4 packets: 95.4 % utilization with one RTT of 100 ms, 81.7 % with
#: 95–105 ms, 81.1 % with 90–110 ms (host jitter of up to 100 µs leaves the identical-RTT case at
#: 94.6 %: the lock is the equal RTTs, not the engine's exact timing).
SINGLE_RTT_SPREAD = 0.1


def _single_rtt_range(inp: LinkInput) -> tuple[float, float] | None:
    """The range one given RTT is simulated over (None: the RTTs were given as a range or a list)."""
    if inp.rtt_list_s or inp.rtt_max_s > inp.rtt_min_s:
        return None
    return inp.rtt_s * (1 - SINGLE_RTT_SPREAD), inp.rtt_s * (1 + SINGLE_RTT_SPREAD)


def _rtt(inp: LinkInput) -> Any:
    if inp.rtt_list_s:
        return [f"{r!r}s" for r in inp.rtt_list_s]
    if inp.rtt_max_s > inp.rtt_min_s:
        return f"{inp.rtt_min_s!r}s..{inp.rtt_max_s!r}s"
    lo, hi = _single_rtt_range(inp) or (inp.rtt_s, inp.rtt_s)
    return f"{lo!r}s..{hi!r}s"


def _tcp(inp: LinkInput, cc: str) -> dict[str, Any]:
    """What the description says of the senders; everything else is the profile's (bufsize.profiles)."""
    tcp: dict[str, Any] = {"cc": cc, "packet_size": f"{inp.packet_bytes:g}B"}
    if defaults.loss_detection_chosen() is not None:
        tcp["loss_detection"] = defaults.loss_detection_chosen()
    if inp.max_window_packets is not None:
        tcp["max_window"] = max(1, int(math.floor(inp.max_window_packets + 1e-9)))
    return tcp


def _short_sizes(inp: LinkInput) -> Any:
    lengths, weights = inp.short_lengths, inp.short_weights
    if len(lengths) == 1:
        return f"{lengths[0]:g}pkt"
    counts = [max(1, round(w * _WEIGHT_RESOLUTION)) for w in weights]
    g = math.gcd(*counts)
    entries: list[str] = []
    for length, c in zip(lengths, counts):
        entries += [f"{length:g}pkt"] * (c // g)
    return {"list": entries}


def scenario_from_input(inp: LinkInput, *, buffer: float | str | None = None, duration: Any = None,
                        warmup: Any = None, seed: int = 1) -> dict[str, Any]:
    """The scenario (loose input form) that simulates the traffic ``inp`` describes; see the module doc.

    ``buffer``: packets (a float is rounded to the nearest whole packet, halves up), any buffer
    string the schema takes (``"64KiB"``, ``"10ms"``, ``"bdp/sqrt(n)"``), or None for an unlimited
    buffer. ``duration`` / ``warmup``: times (unit strings or seconds); None keeps the schema's
    defaults.
    """
    if isinstance(buffer, (int, float)) and not isinstance(buffer, bool):
        buf: Any = whole_packets(float(buffer))
    else:
        buf = "unlimited" if buffer is None else buffer
    # the profile in force, named in the scenario: it is parsed again in worker processes
    sc: dict[str, Any] = {"seed": int(seed), "profile": profiles.name()}
    if duration is not None:
        sc["duration"] = duration if isinstance(duration, str) else f"{float(duration)!r}s"
    if warmup is not None:
        sc["warmup"] = warmup if isinstance(warmup, str) else f"{float(warmup)!r}s"
    # a control the description does not name is the profile's (CUBIC in linux); paced: NewReno paced
    reno_only = inp.mix is not None and set(inp.mix) == {"reno"}
    base_cc = "newreno-paced" if inp.paced else "newreno" if reno_only else profiles.get().tcp["cc"]
    tcp = _tcp(inp, base_cc)
    n = inp.flows or 0
    if n > 0:
        db: dict[str, Any] = {"capacity": f"{inp.capacity_bps!r}bps", "flows": n, "rtt": _rtt(inp),
                              "buffer": buf, "start": "0s..1s", "tcp": tcp}
        if inp.input_capacity_bps is not None:
            db["access_capacity"] = f"{inp.input_capacity_bps!r}bps"
        if inp.mix is not None and set(inp.mix) != {"reno"}:
            classes = []
            for proto, count in mix_counts(inp.mix, n).items():
                cc = ENGINE_CC[proto]
                if proto == "reno" and inp.paced:
                    cc = "newreno-paced"
                classes.append({"name": cc, "flows": count, "tcp": {"cc": cc}})
            db["mix"] = classes
        sc["dumbbell"] = db
    elif inp.short_lengths is not None:
        sc["links"] = [{"name": "bn", "rate": f"{inp.capacity_bps!r}bps", "queue": buf},
                       {"name": "bnr", "rate": f"{inp.capacity_bps!r}bps"}]
        sc["bottleneck"] = "bn"
    else:
        raise BufsizeError("nothing to simulate: give long-lived flows (--flows) or short flows", argument="--flows")
    if inp.short_lengths is not None:
        sf: dict[str, Any] = {"name": "short", "load": inp.short_load, "size": _short_sizes(inp),
                              "rtt": _rtt(inp), "tcp": _tcp(inp, profiles.get().tcp["cc"])}
        if n == 0:
            sf.update(path=["bn"], ack_path=["bnr"])
        sc["short_flows"] = [sf]
    return sc


def unsimulated(inp: LinkInput) -> list[str]:
    """The parts of ``inp`` the scenario of :func:`scenario_from_input` does not carry exactly."""
    notes: list[str] = []
    n = inp.flows or 0
    if inp.mix is not None and n > 0 and set(inp.mix) != {"reno"}:
        counts = mix_counts(inp.mix, n)
        if len(counts) < len(inp.mix):
            notes.append(f"the mix has more protocols than the {n} flows can hold: simulated as "
                         + ", ".join(f"{c} {ENGINE_CC[k]}" for k, c in counts.items()))
        if inp.paced and any(k != "reno" for k in counts):
            notes.append("pacing is simulated for the NewReno flows only (the engine has no paced "
                         + "/".join(sorted(ENGINE_CC[k] for k in counts if k != "reno")) + ")")
    spread = _single_rtt_range(inp)
    if spread is not None:
        from bufsize import units

        notes.append(f"one RTT given: simulated as RTTs spread uniformly over ±{SINGLE_RTT_SPREAD:.0%} of it "
                     f"({units.format_time(spread[0])}–{units.format_time(spread[1])}), as real paths differ "
                     "(flows of identical RTT lock in phase); give a range or a list to set them")
    if inp.inputs is not None and n > 0 and inp.inputs != n:
        notes.append(f"{inp.inputs} shared input links are not simulated: each of the {n} flows has its own "
                     "access link of the input capacity")
    if inp.short_lengths is not None and len(inp.short_lengths) > 1:
        exact = all(abs(w * _WEIGHT_RESOLUTION - round(w * _WEIGHT_RESOLUTION)) < 1e-9 for w in inp.short_weights)
        if not exact:
            notes.append(f"short-flow weights rounded to multiples of 1/{_WEIGHT_RESOLUTION}")
    return notes


# ----------------------------------------------------------------------------- the shared link flags

#: The link flags that ``recommend``, ``search`` and ``sweep`` share (option name -> parse_input keyword).
LINK_FLAGS: tuple[str, ...] = ("capacity", "rtt", "flows", "packet_size", "input_capacity", "gamma", "inputs",
                               "mix", "short_flows", "short_load", "max_window", "paced")


def input_from_flags(**flags: Any) -> LinkInput:
    """A validated :class:`LinkInput` from link flags (unit strings); unset flags are None.

    Unlike ``recommend``'s, the simulation commands have no example link to fall back to:
    ``--capacity``, ``--rtt`` and ``--flows`` (or short flows) must be given.
    """
    given = {k: v for k, v in flags.items() if v is not None and k in LINK_FLAGS}
    if flags.get("paced") is False:
        given.pop("paced", None)
    for need in ("capacity", "rtt"):
        if need not in given:
            raise BufsizeError("missing: describe the link with --capacity, --rtt and --flows (or give a "
                               "SCENARIO_FILE)", argument="--" + need.replace("_", "-"))
    if "flows" not in given and "short_flows" not in given:
        raise BufsizeError("missing: the number of long-lived flows (or --short-flows with --short-load)",
                           argument="--flows")
    return parse_input(**given)
