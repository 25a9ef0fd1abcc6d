"""The input of a recommendation: the link, its traffic and the goals, checked and converted into a
:class:`LinkInput` (SI units) by :func:`parse_input`. Nothing here knows about models or simulation."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Mapping

from bufsize import defaults as _defaults
from bufsize import units
from bufsize.errors import BufsizeError

#: Paper 000 §VII-C: "If Γ > 1, then the buffer size can be simply set to just few (say 20-30)
#: packets, independent of the BDP." We take the upper end of that range.
OPERATOR_RULE_GAMMA_ABOVE_1_PACKETS = 30.0
#: Paper 004 §4 / TR: the short-flow buffer is sized for P(Q > B) = 2.5 % unless a loss goal is set.
SHORT_FLOW_DEFAULT_OVERFLOW = 0.025
#: Paper 000's experiments use S flows of 30 packets (45 kB with 1500-byte packets).
DEFAULT_S_FLOW_PACKETS = 30
#: What an unset argument means. The link (capacity, RTT, flows) is the example link of
#: :data:`bufsize.defaults.EXAMPLE_LINK` (1 Gb/s, 100 flows, RTTs 10–50 ms) and is used only by a bare ``recommend()`` with no link argument at all; a partial description
#: that leaves out one of them is refused (see :func:`parse_input`).
DEFAULTS: dict[str, Any] = {
    **_defaults.EXAMPLE_LINK,
    "packet_size": _defaults.packet_size_text(),
    "target_utilization": _defaults.TARGET_UTILIZATION,
}



@dataclass(frozen=True)
class LinkInput:
    """The validated input of :func:`recommend`, in SI units (bit/s, s, bytes, packets)."""

    capacity_bps: float
    rtt_s: float                      # mean RTT (two-way propagation) used for RTT·C
    rtt_min_s: float
    rtt_max_s: float
    flows: int | None
    packet_bytes: float
    input_capacity_bps: float | None
    gamma: float | None
    mix: dict[str, float] | None      # protocol -> fraction of the long flows
    short_lengths: tuple[float, ...] | None   # short-flow lengths (packets)
    short_weights: tuple[float, ...] | None
    short_load: float | None          # fraction of capacity carried by short flows
    max_window_packets: float | None
    paced: bool
    target_utilization: float
    max_loss: float | None
    max_delay_s: float | None
    optimize_for: str | None          # "S", "L" or None
    rtt_harmonic_s: float = 0.0       # harmonic-mean RTT (rates: 002 peak load, 004 A6 loss, 000 To)
    rtt_distribution: str = "fixed"   # "fixed", "uniform" (a range lo..hi) or "list"
    rtt_list_s: tuple[float, ...] | None = None   # the RTTs of a list
    inputs: int | None = None         # number of input links Nin (000's EX form), None: not given
    #: what was not given and taken from a default, one sentence each ("assumed ..."), to be printed
    assumed: tuple[str, ...] = ()
    #: True when no link argument was given and the example link (DEFAULTS) was used
    example_link: bool = False
    #: False for short flows alone without a utilization goal of the user's: the link carries what
    #: they offer, so the goals are their completion time and loss (the 99 % default does not apply)
    utilization_goal: bool = True

    @property
    def capacity_pps(self) -> float:
        return units.rate_to_packets_per_second(self.capacity_bps, self.packet_bytes)

    @property
    def bdp_packets(self) -> float:
        return self.rtt_s * self.capacity_pps


#: The names ``--mix`` takes, as a user writes them (the canonical key each one becomes). 003's
#: model keys its protocols as reno, bic, cubic1 (β = 0.8, Linux ≤ 2.6.25) and cubic2 (β = 0.7);
#: BBR is none of 003's and is sized by the rules beyond the five papers (models/spang.py). DCTCP
#: (RFC 8257) is simulated as itself; the models see it as Reno, its response to a loss and its
#: growth (a drop-tail FIFO never marks, so there it is Reno; behind a marking threshold the
#: verified answer, not the models, sizes K).
MIX_NAMES: dict[str, str] = {
    "reno": "reno", "newreno": "reno", "cubic": "cubic2", "cubic-0.8": "cubic1", "bic": "bic",
    "ctcp": "ctcp", "compound": "ctcp", "bbr": "bbr", "dctcp": "dctcp",
}
#: Canonical mix keys -> the name shown to the user (the engine's congestion-control name).
MIX_DISPLAY: dict[str, str] = {"reno": "reno", "cubic2": "cubic", "cubic1": "cubic-0.8", "bic": "bic",
                               "ctcp": "ctcp", "bbr": "bbr", "dctcp": "dctcp"}


#: The mix's protocol keys (003's names, :func:`bufsize.models.heterogeneous.protocol_name`, and
#: ``bbr``, which is none of 003's) -> the engine's congestion controls.
ENGINE_CC: dict[str, str] = {
    "reno": "newreno",
    "bic": "bic",
    "cubic1": "cubic-0.8",
    "cubic2": "cubic",
    "ctcp": "ctcp",
    "bbr": "bbr",
    "dctcp": "dctcp",
}

def mix_counts(mix: dict[str, float], n: int) -> dict[str, int]:
    """Flow counts per protocol from fractions, adding up to ``n`` (largest remainders; a class
    left with no flow is dropped)."""
    raw = {k: v * n for k, v in mix.items()}
    counts = {k: int(math.floor(x)) for k, x in raw.items()}
    left = n - sum(counts.values())
    for k in sorted(raw, key=lambda k: (-(raw[k] - counts[k]), k))[:left]:
        counts[k] += 1
    return {k: c for k, c in counts.items() if c > 0}


def mix_protocol(name: object) -> str:
    """The canonical mix key of a protocol name (``cubic`` -> ``cubic2``, ``bbr`` -> ``bbr``).

    Takes the names of :data:`MIX_NAMES` and, silently, 003's own spellings (cubic1, cubic2,
    cubic', cubic''); an unknown name is a one-line error listing the user-facing names only.
    """
    key = str(name).strip().lower()
    if key in MIX_NAMES:
        return MIX_NAMES[key]
    from bufsize.models import heterogeneous as het

    try:
        return het.protocol_name(key)
    except BufsizeError:
        raise BufsizeError(f"unknown TCP protocol {str(name).strip()!r} (known: {', '.join(MIX_NAMES)})",
                           argument="--mix") from None


def mix_text(mix: Mapping[str, float] | None) -> str:
    """'cubic 50%, bbr 50%': a mix as the user names its protocols."""
    return ", ".join(f"{MIX_DISPLAY.get(k, k)} {v:.0%}" for k, v in (mix or {"reno": 1.0}).items())


#: The most long-lived flows a description may name (a backbone carries ~1e5-1e6; beyond 1e9 the
#: models' arithmetic is meaningless and once divided by zero).
MAX_FLOWS = 10**9
#: The physical range a description must lie in (beyond it the numbers would be confident
#: nonsense): a port of 1 kb/s to 10 Tb/s, RTTs of 1 µs to 60 s, packets of 40 B to 64 KiB on
#: the wire (an IPv4 datagram's limit, plus a link header).
CAPACITY_RANGE_BPS = (1e3, 1e13)
RTT_RANGE_S = (1e-6, 60.0)
MAX_PACKET_BYTES = 65_536 + 64
#: The smallest loss goal (below it no simulation could show it met, and 003's eq. (14) overflows).
MIN_LOSS_GOAL = 1e-9


def _parse_mix(mix: str | Mapping[str, float] | None) -> dict[str, float] | None:
    if mix is None:
        return None
    items = _mix_items(mix)
    total = sum(items.values())
    all_counts = all(float(v).is_integer() for v in items.values()) and total > 1
    if all_counts:  # flow counts, e.g. the 003 testbed mix reno=42,bic=51,...
        return {k: v / total for k, v in items.items() if v > 0}
    if abs(total - 1.0) > 1e-6:
        raise BufsizeError(f"fractions sum to {total:g}, not 1 (or give whole flow counts)", argument="--mix")
    return {k: v / total for k, v in items.items() if v > 0}


def mix_count_total(mix: str | Mapping[str, float] | None) -> int | None:
    """The number of flows a mix given as whole flow counts names (``reno=10,cubic=20``: 30); None
    for fractions or no mix."""
    if mix is None:
        return None
    items = _mix_items(mix)
    total = sum(items.values())
    if all(float(v).is_integer() for v in items.values()) and total > 1:
        return int(total)
    return None


def _mix_items(mix: str | Mapping[str, float]) -> dict[str, float]:
    """A mix's protocols (canonical names) and their shares or counts as given, checked."""
    if isinstance(mix, str):
        items: dict[str, float] = {}
        for part in mix.split(","):
            part = part.strip()
            if not part:
                continue
            name, sep, val = part.partition("=")
            if not sep:
                raise BufsizeError(f"{part!r} should look like name=fraction (e.g. reno=0.2,cubic=0.8)",
                                   argument="--mix")
            name = name.strip().lower()
            if name in items:
                raise BufsizeError(f"protocol {name!r} is listed twice", argument="--mix")
            items[name] = float(units.parse_quantity(val.strip(), argument="--mix").value)
    else:
        items = {}
        for k, v in dict(mix).items():
            try:
                items[str(k).lower()] = float(v)
            except (TypeError, ValueError):
                raise BufsizeError(f"share of {k!r} must be a number, got {v!r}", argument="--mix") from None
    if not items:
        raise BufsizeError("the mix is empty", argument="--mix")
    canonical: dict[str, float] = {}
    for name, v in items.items():
        key = mix_protocol(name)
        if not math.isfinite(v) or v < 0:
            raise BufsizeError(f"share of {name!r} must be a non-negative number, got {v}", argument="--mix")
        canonical[key] = canonical.get(key, 0.0) + v
    return canonical


def _parse_short_flows(spec, packet_bytes: float) -> tuple[tuple[float, ...], tuple[float, ...]] | None:
    """``14pkt`` or ``45kB`` or ``2pkt:0.3,14pkt:0.7`` -> (lengths in packets, weights)."""
    if spec is None:
        return None
    parts = [p.strip() for p in str(spec).split(",") if p.strip()] if isinstance(spec, str) else list(spec)
    if not parts:
        raise BufsizeError("no short-flow length given", argument="--short-flows")
    lengths, weights = [], []
    for p in parts:
        length_s, sep, w_s = str(p).partition(":")
        q = units.parse_quantity(length_s, argument="--short-flows")
        if q.dimension == "size":
            n = math.ceil(q.value / packet_bytes)
        elif q.dimension in ("packets", "number"):
            n = q.value
        else:
            raise BufsizeError(f"{length_s!r} should be a flow length in packets (14pkt) or bytes (45kB)",
                               argument="--short-flows")
        if not math.isfinite(n) or n < 1 or n != int(n):
            raise BufsizeError(f"flow length {length_s!r} must be a whole number of packets ≥ 1",
                               argument="--short-flows")
        w = units.parse_fraction(w_s, argument="--short-flows", open_interval=False) if sep else 1.0
        lengths.append(float(n))
        weights.append(w)
    total = sum(weights)
    if total <= 0:
        raise BufsizeError("short-flow weights sum to zero", argument="--short-flows")
    if len(parts) > 1 and abs(total - 1.0) > 1e-6:
        raise BufsizeError(f"short-flow weights sum to {total:g}, not 1", argument="--short-flows")
    return tuple(lengths), tuple(w / total for w in weights)


def parse_input(
    *,
    capacity=None,
    rtt=None,
    flows=None,
    packet_size=None,
    input_capacity=None,
    gamma=None,
    mix=None,
    cc=None,
    short_flows=None,
    short_load=None,
    max_window=None,
    paced: bool = False,
    target_utilization=None,
    max_loss=None,
    max_delay=None,
    optimize_for=None,
    inputs=None,
) -> LinkInput:
    """Validate and convert the user's input (unit strings or SI numbers) into a :class:`LinkInput`.

    With no link argument at all (only goals, or nothing) the link is the example of
    :data:`DEFAULTS` (:data:`bufsize.defaults.EXAMPLE_LINK`: 1 Gb/s, RTTs 10–50 ms, 100 flows) and
    ``assumed`` says so.
    Otherwise the description must be complete: a missing ``capacity`` or ``rtt``, or a missing
    ``flows`` without short flows, is a :class:`BufsizeError` naming it. Defaults that are sound
    for any link (1500-byte packets, a 99 % utilization goal) are used and listed in ``assumed``.
    """
    given = {"capacity": capacity, "rtt": rtt, "flows": flows, "packet_size": packet_size,
             "input_capacity": input_capacity, "gamma": gamma, "inputs": inputs, "mix": mix,
             "short_flows": short_flows, "short_load": short_load, "max_window": max_window}
    assumed: list[str] = []
    example = all(v is None for v in given.values()) and not paced
    if example:
        capacity, rtt, flows = DEFAULTS["capacity"], DEFAULTS["rtt"], DEFAULTS["flows"]
        assumed.append(f"no link described: the example link, {_defaults.EXAMPLE_LINK_TEXT} (--capacity {capacity} "
                       f"--rtt {rtt} --flows {flows}); describe yours with --capacity, --rtt and --flows")
    # a partial description: what is missing is said after the given values are checked (so that
    # a bad value is named first), see the end of this function
    missing: BufsizeError | None = None
    if not example:
        if capacity is None:
            missing = BufsizeError("missing: the bottleneck capacity (e.g. --capacity 1Gbps); a partial "
                                   "description is not completed with the example link", argument="--capacity")
        elif rtt is None:
            missing = BufsizeError("missing: the round-trip time of the flows (e.g. --rtt 40ms or 10ms..80ms)",
                                   argument="--rtt")
        elif flows is None and short_flows is None:
            missing = BufsizeError("missing: the number of long-lived flows (e.g. --flows 50), or short flows "
                                   "with --short-flows and --short-load", argument="--flows")
    if packet_size is None:
        packet_size = DEFAULTS["packet_size"]
        assumed.append(f"assumed {_defaults.PACKET_BYTES}-byte packets (--packet-size)")
    target_given = target_utilization is not None
    short_only = not flows and short_flows is not None
    if target_utilization is None:
        target_utilization = DEFAULTS["target_utilization"]
        if optimize_for is None and not short_only:
            assumed.append(f"assumed a utilization goal of {DEFAULTS['target_utilization']:.0%} "
                           "(--target-utilization)")
    packet_bytes = units.parse_size(packet_size, argument="--packet-size")
    if packet_bytes < 40:
        raise BufsizeError(f"{packet_size!r} is smaller than a TCP/IP header (40 B)", argument="--packet-size")
    if packet_bytes > MAX_PACKET_BYTES:
        raise BufsizeError(f"{packet_bytes:.4g} B is larger than any packet on a wire (at most "
                           f"{MAX_PACKET_BYTES:,} B)", argument="--packet-size")
    capacity_bps = math.nan if capacity is None else units.parse_rate(capacity, argument="--capacity")
    if math.isfinite(capacity_bps) and not CAPACITY_RANGE_BPS[0] <= capacity_bps <= CAPACITY_RANGE_BPS[1]:
        raise BufsizeError(f"{units.format_rate(capacity_bps, 3) if capacity_bps < 1e18 else f'{capacity_bps:.3g} b/s'}"
                           f" is outside the ports sized here ({units.format_rate(CAPACITY_RANGE_BPS[0])} to "
                           f"{units.format_rate(CAPACITY_RANGE_BPS[1])})", argument="--capacity")

    rtts = (math.nan, math.nan) if rtt is None else units.parse_time_list(rtt, argument="--rtt")
    from bufsize.recommendation.rules import harmonic_mean_rtt

    for t in (rtts if isinstance(rtts, (list, tuple)) else [rtts]):
        if math.isfinite(t) and not RTT_RANGE_S[0] <= t <= RTT_RANGE_S[1]:
            raise BufsizeError(f"an RTT of {t:.3g} s is outside 1 µs to 60 s", argument="--rtt")
    rtt_h = harmonic_mean_rtt(rtts)
    if isinstance(rtts, tuple):
        lo, hi = rtts
        rtt_mean, rtt_min, rtt_max = (lo + hi) / 2.0, lo, hi
        rtt_dist, rtt_list = ("uniform" if hi > lo else "fixed"), None
    else:
        rtt_mean, rtt_min, rtt_max = sum(rtts) / len(rtts), min(rtts), max(rtts)
        rtt_dist, rtt_list = ("list", tuple(rtts)) if len(rtts) > 1 else ("fixed", None)

    n = None if flows is None else units.parse_count(flows, argument="--flows")
    if n is not None and n > MAX_FLOWS:
        raise BufsizeError(f"{n:.3g} long-lived flows is more than the models are evaluated for "
                           f"(at most {MAX_FLOWS:.0e})", argument="--flows")

    cin = None if input_capacity is None else units.parse_rate(input_capacity, argument="--input-capacity")
    g = None
    if gamma is not None:
        q = units.parse_quantity(gamma, argument="--gamma")
        if q.dimension != "number" or not math.isfinite(q.value) or q.value <= 0:
            raise BufsizeError(f"{gamma!r} must be a positive number (Γ = Cout/Cin)", argument="--gamma")
        g = q.value
    if cin is not None and g is not None and capacity is not None:
        implied = capacity_bps / cin
        if not math.isclose(implied, g, rel_tol=1e-6):
            raise BufsizeError(f"--input-capacity gives Γ = {implied:g}, which contradicts Γ = {g:g}",
                               argument="--gamma")
    if cin is not None:
        g = capacity_bps / cin
    elif g is not None:
        cin = capacity_bps / g

    nin = None
    if inputs is not None:
        nin = units.parse_count(inputs, argument="--inputs")
        if g is None:
            raise BufsizeError("the number of inputs is used with --input-capacity or --gamma (000's EX form)",
                               argument="--inputs")

    if cc is not None:   # one congestion control for every flow: the mix of that control alone
        if mix is not None:
            raise BufsizeError("give one of --cc (every flow) and --mix (a mix of controls)", argument="--cc")
        mix = {str(cc): 1.0}
    mix_d = _parse_mix(mix)
    sf = _parse_short_flows(short_flows, packet_bytes)
    s_load = None
    if short_load is not None:
        s_load = units.parse_fraction(short_load, argument="--short-load")
    if sf is not None and s_load is None:
        raise BufsizeError("short flows need their load, e.g. --short-load 0.2 (fraction of capacity)",
                           argument="--short-load")

    wmax = None
    if max_window is not None:
        q = units.parse_quantity(max_window, argument="--max-window")
        if q.dimension == "size":
            wmax = q.value / packet_bytes
        elif q.dimension in ("packets", "number"):
            wmax = q.value
        else:
            raise BufsizeError(f"{max_window!r} should be packets (64pkt) or bytes (64KiB)", argument="--max-window")
        if not math.isfinite(wmax) or wmax < 1:
            raise BufsizeError(f"{max_window!r} must be at least one packet", argument="--max-window")

    target = units.parse_fraction(target_utilization, argument="--target-utilization")
    loss = None if max_loss is None else units.parse_fraction(max_loss, argument="--max-loss")
    if loss is not None and loss < MIN_LOSS_GOAL:
        raise BufsizeError(f"a loss goal of {loss:.3g} is below what a buffer can be sized or measured for "
                           f"(at least {MIN_LOSS_GOAL:g})", argument="--max-loss")
    delay = None if max_delay is None else units.parse_time(max_delay, argument="--max-delay")

    opt = None
    if optimize_for is not None:
        opt = str(optimize_for).strip().upper()
        aliases = {"S": "S", "SLOW-START": "S", "SHORT": "S", "L": "L", "CONGESTION-AVOIDANCE": "L", "LONG": "L"}
        if opt not in aliases:
            raise BufsizeError(f"{optimize_for!r} must be S (slow-start flows) or L (congestion-avoidance flows)",
                               argument="--optimize-for")
        opt = aliases[opt]
        if g is None:
            raise BufsizeError("optimizing per-flow throughput (000) needs --input-capacity or --gamma",
                               argument="--optimize-for")

    if paced and wmax is None:
        raise BufsizeError("paced TCP sizing (002 Theorem 1) needs --max-window", argument="--paced")
    if n is not None and n == 0 and sf is None:
        raise BufsizeError("no long flows and no short flows: nothing to size for", argument="--flows")
    if missing is not None:
        raise missing
    utilization_goal = True
    if short_only and s_load is not None:
        if target_given and target > s_load + 1e-12:
            raise BufsizeError(f"a utilization goal of {target:.4g} cannot be met by short flows that offer "
                               f"{s_load:.4g} of the capacity: give a goal at most their load, add long-lived "
                               f"flows (--flows), or leave the goal out to judge completion time and loss",
                               argument="--target-utilization")
        if not target_given:
            utilization_goal = False
            assumed.append(f"short flows alone at {s_load:.0%} of the capacity: no utilization goal (the link "
                           f"carries what they offer); the buffer is judged by their loss and completion time "
                           f"(--max-loss, --max-fct)")

    return LinkInput(
        capacity_bps=capacity_bps, rtt_s=rtt_mean, rtt_min_s=rtt_min, rtt_max_s=rtt_max, flows=n,
        packet_bytes=packet_bytes, input_capacity_bps=cin, gamma=g, mix=mix_d,
        short_lengths=None if sf is None else sf[0], short_weights=None if sf is None else sf[1],
        short_load=s_load, max_window_packets=wmax, paced=bool(paced), target_utilization=target,
        max_loss=loss, max_delay_s=delay, optimize_for=opt,
        rtt_harmonic_s=rtt_h, rtt_distribution=rtt_dist, rtt_list_s=rtt_list, inputs=nin,
        assumed=tuple(assumed), example_link=example, utilization_goal=utilization_goal,
    )
