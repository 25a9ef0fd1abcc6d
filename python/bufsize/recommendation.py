"""``bufsize.recommend()`` and ``bufsize recommend``: every analytic model of the five papers, side by side, and one size.

Describe a link (capacity, RTTs, flows, packet size, input capacity or Γ and the number of inputs,
TCP mix, short flows, pacing, maximum window) and the goals (utilization, loss, queueing delay,
which flows' throughput to favour). :func:`recommend` evaluates every model that has the inputs it
needs, says for each whether its assumptions hold for this input and why not (the rules are in
:mod:`bufsize.recommendation_rules`; docs/recommend.md explains them), and picks one size:

1. **Utilization** (the always-present goal, default 99 %), from the models whose assumptions hold:
   - the link can never be full (window-limited flows, n·Wmax < C·RTT_h, or inputs that together
     carry at most C): the achievable utilization is at most the peak load, and the buffer only
     has to keep the flows from losing packets: paper 002's Theorem 1 when the packets are spaced
     (paced senders or Γ > 1), θ being the fraction of the peak load; unpaced windows leave as
     bursts, sized with paper 004's M/G/1 burst model (bursts of Wmax);
   - many (≥ 250) desynchronized long flows: paper 004's eq. (6) inverse for Reno; paper 003's
     eq. (7) when a mix with other protocols is given (its size is the one used then);
   - fewer flows: they may synchronize and behave like one Reno flow: paper 001's eq. (17).
2. **Per-flow throughput** (``optimize_for="S"`` or ``"L"``): paper 000's optimum (PL form, Γ ≤ 1)
   or its empirical Γ > 1 optima (Table II's simulations, labelled as such) replace the utilization
   size.
3. **Loss** (``max_loss``): paper 003's eq. (14) when the windows are large enough for its sawtooth,
   and paper 004's loss-window relation l ≈ 0.76/w² (§5.1.1), which always ties long flows' loss to
   their windows; the larger applicable size.
4. **Short flows** (``short_flows`` and ``short_load``): paper 004's M/G/1 burst model, buffer for an
   overflow probability (``max_loss`` or 2.5 %).
5. **Queueing delay** (``max_delay``): an upper limit C·λ. If it is below the size chosen above,
   the recommendation becomes C·λ and the model that set the wanted size says what is given up at
   C·λ (the other applicable models' figures are named beside it).

The recommended size is the largest of the sizes from 1–4 (each goal must be met), capped by 5.
Models are approximations with stated validity ranges; the table says which apply.
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping

from bufsize import units
from bufsize._json import json_safe
from bufsize.errors import BufsizeError

#: Paper 000 §VII-C: "If Γ > 1, then the buffer size can be simply set to just few (say 20-30)
#: packets, independent of the BDP." We take the upper end of that range.
OPERATOR_RULE_GAMMA_ABOVE_1_PACKETS = 30.0
#: Paper 004 §4 / TR: the short-flow buffer is sized for P(Q > B) = 2.5 % unless a loss goal is set.
SHORT_FLOW_DEFAULT_OVERFLOW = 0.025
#: Paper 000's experiments use S flows of 30 packets (45 kB with 1500-byte packets).
DEFAULT_S_FLOW_PACKETS = 30

from bufsize import defaults as _defaults

#: What an unset argument means. The link (capacity, RTT, flows) is the example link of
#: :data:`bufsize.defaults.EXAMPLE_LINK` (1 Gb/s, 100 flows, RTTs 10–50 ms) and is used only by a bare ``recommend()`` with no link argument at all; a partial description
#: that leaves out one of them is refused (see :func:`parse_input`).
DEFAULTS: dict[str, Any] = {
    **_defaults.EXAMPLE_LINK,
    "packet_size": _defaults.packet_size_text(),
    "target_utilization": _defaults.TARGET_UTILIZATION,
}


# --------------------------------------------------------------------------- input

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

    @property
    def capacity_pps(self) -> float:
        return units.rate_to_packets_per_second(self.capacity_bps, self.packet_bytes)

    @property
    def bdp_packets(self) -> float:
        return self.rtt_s * self.capacity_pps


#: The names ``--mix`` takes, as a user writes them (the canonical key each one becomes). 003's
#: model keys its protocols as reno, bic, cubic1 (β = 0.8, Linux ≤ 2.6.25) and cubic2 (β = 0.7);
#: BBR is none of 003's and is sized by the rules beyond the five papers (models/spang.py).
MIX_NAMES: dict[str, str] = {
    "reno": "reno", "newreno": "reno", "cubic": "cubic2", "cubic-0.8": "cubic1", "bic": "bic",
    "ctcp": "ctcp", "compound": "ctcp", "bbr": "bbr",
}
#: Canonical mix keys -> the name shown to the user (the engine's congestion-control name).
MIX_DISPLAY: dict[str, str] = {"reno": "reno", "cubic2": "cubic", "cubic1": "cubic-0.8", "bic": "bic",
                               "ctcp": "ctcp", "bbr": "bbr"}


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
    if target_utilization is None:
        target_utilization = DEFAULTS["target_utilization"]
        if optimize_for is None:
            assumed.append(f"assumed a utilization goal of {DEFAULTS['target_utilization']:.0%} "
                           "(--target-utilization)")
    packet_bytes = units.parse_size(packet_size, argument="--packet-size")
    if packet_bytes < 40:
        raise BufsizeError(f"{packet_size!r} is smaller than a TCP/IP header (40 B)", argument="--packet-size")
    capacity_bps = math.nan if capacity is None else units.parse_rate(capacity, argument="--capacity")

    rtts = (math.nan, math.nan) if rtt is None else units.parse_time_list(rtt, argument="--rtt")
    from bufsize.recommendation_rules import harmonic_mean_rtt

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

    return LinkInput(
        capacity_bps=capacity_bps, rtt_s=rtt_mean, rtt_min_s=rtt_min, rtt_max_s=rtt_max, flows=n,
        packet_bytes=packet_bytes, input_capacity_bps=cin, gamma=g, mix=mix_d,
        short_lengths=None if sf is None else sf[0], short_weights=None if sf is None else sf[1],
        short_load=s_load, max_window_packets=wmax, paced=bool(paced), target_utilization=target,
        max_loss=loss, max_delay_s=delay, optimize_for=opt,
        rtt_harmonic_s=rtt_h, rtt_distribution=rtt_dist, rtt_list_s=rtt_list, inputs=nin,
        assumed=tuple(assumed), example_link=example,
    )


# --------------------------------------------------------------------------- output

@dataclass
class ModelRow:
    """One model's answer for this input."""

    id: str
    paper: str            # "000".."004"
    equation: str
    name: str
    applies: bool
    reason: str
    buffer_packets: float | None
    buffer_bytes: float | None = None
    queueing_delay_s: float | None = None
    goal: str = ""        # which goal this row addresses: utilization, throughput, loss, short-flows, delay
    details: dict[str, Any] = field(default_factory=dict)
    #: where the model comes from when it is not one of the five papers (the full reference)
    source: str | None = None
    #: True for the rules beyond the five papers (models/spang.py), labelled so in every output
    beyond_papers: bool = False


@dataclass
class Recommendation:
    """The result of :func:`recommend`: every model, and one recommended size with its reasons."""

    input: LinkInput
    models: list[ModelRow]
    recommended: dict[str, Any]
    predicted: dict[str, Any]
    traffic: dict[str, Any] = field(default_factory=dict)
    #: the verified answer (:class:`bufsize.experiments.verified.Verified`), None when not verified
    verified: Any = None
    #: why the answer was not verified (e.g. the estimated cost of verifying), None when it was
    verify_skipped: str | None = None

    @property
    def buffer_packets(self) -> float | None:
        """The answer: the verified size when there is one, else the models' recommended size."""
        v = self.verified
        if v is not None and v.buffer_packets is not None:
            return float(v.buffer_packets)
        return self.recommended.get("buffer_packets")

    def verdict(self, model_id: str) -> str | None:
        """safe / unsafe / wasteful for a model's size on the simulated traffic (None: not verified)."""
        if self.verified is None:
            return None
        d = self.verified.verdicts.get(model_id)
        return None if d is None else d["verdict"]

    def to_frame(self):
        """One row per model (pandas DataFrame): its size, whether it applies, and, when verified,
        its verdict on the simulated traffic with the utilization and loss measured at its size."""
        from bufsize.display import recommendation_frame

        df = recommendation_frame(self)
        if self.verified is not None:
            vd = self.verified.verdicts
            df["verdict"] = [vd.get(m, {}).get("verdict") for m in df["model"]]
            df["misses"] = [", ".join(vd.get(m, {}).get("misses") or []) or None for m in df["model"]]
            df["simulated_utilization"] = [vd.get(m, {}).get("utilization") for m in df["model"]]
            df["simulated_loss"] = [vd.get(m, {}).get("loss_rate") for m in df["model"]]
            df["verdict_simulated"] = [vd.get(m, {}).get("simulated") for m in df["model"]]
        # the rules beyond the five papers, and where they come from
        df["beyond_papers"] = [m.beyond_papers for m in self.models]
        df["source"] = [m.source for m in self.models]
        return df

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (infinite or missing sizes are ``None``)."""
        inp = asdict(self.input)
        inp["bdp_packets"] = self.input.bdp_packets
        inp["capacity_pps"] = self.input.capacity_pps
        out = {
            "input": inp,
            "bdp_packets": self.input.bdp_packets,
            "bdp_bytes": self.input.bdp_packets * self.input.packet_bytes,
            "models": [asdict(m) for m in self.models],
            "recommended": self.recommended,
            "predicted": self.predicted,
            "traffic": self.traffic,
            "verified": None if self.verified is None else self.verified.to_dict(),
        }
        if self.verify_skipped is not None:
            out["verify_skipped"] = self.verify_skipped
        if self.verified is not None:
            for m in out["models"]:
                m["verdict"] = self.verified.verdicts.get(m["id"], {}).get("verdict")
        return json_safe(out)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def model(self, model_id: str) -> ModelRow:
        for m in self.models:
            if m.id == model_id:
                return m
        raise KeyError(model_id)

    # displays (bufsize.display): one line at the prompt, a table in Jupyter
    def __repr__(self) -> str:
        from bufsize.display import recommendation_repr

        return recommendation_repr(self)

    def _repr_html_(self) -> str:
        from bufsize.display import recommendation_html

        return recommendation_html(self)


#: Models derived for Reno/NewReno senders only: given another TCP mix they cannot use it.
RENO_ONLY_MODELS = ("004-rule-of-thumb", "004-sqrt-n", "004-erf", "001-single-flow", "004-loss-window",
                    "000-S", "000-L", "000-operator")


def description_not_used(row: ModelRow, inp: LinkInput) -> list[str]:
    """The parts of the description ``row``'s model cannot use (said in its row, never silently dropped)."""
    out = []
    if inp.mix is not None and not _mix_is_reno(inp) and row.id in RENO_ONLY_MODELS:
        mix_txt = mix_text(inp.mix)   # as the user and the engine name them
        out.append(f"the TCP mix ({mix_txt}): this model assumes Reno/NewReno senders")
    return out


def _fill(row: ModelRow, inp: LinkInput) -> ModelRow:
    unused = description_not_used(row, inp)
    if unused:
        row.details["not_used"] = unused
        row.reason += "; not used: " + "; ".join(unused)
    b = row.buffer_packets
    if b is not None and math.isfinite(b):
        row.buffer_bytes = b * inp.packet_bytes
        row.queueing_delay_s = b * inp.packet_bytes * 8.0 / inp.capacity_bps
    elif b is not None:
        row.buffer_bytes = math.inf
        row.queueing_delay_s = math.inf
    return row


# --------------------------------------------------------------------------- the models, one adapter each
#
# Each adapter computes its model's size (where it can) and asks recommendation_rules whether the
# model's assumptions hold for this input. The rules see the whole input (window cap, Γ, inputs,
# RTT spread); an adapter never marks a model as applying when a rule says no.

from bufsize.recommendation_rules import (  # noqa: E402  (kept next to their users)
    DESYNC_MIN_FLOWS,
    TrafficFacts,
    ex_form_applies,
    gaussian_applies,
    link_never_full_reason,
    loss_window_applies,
    mix_has_bbr,
    pl_form_applies,
    spang_bbr_applies,
    spang_single_flow_applies,
    spang_sqrt_n_applies,
    synchronized_applies,
    theorem1_applies,
    traffic_facts,
    window_bursts_applies,
)

#: Paper 000 Table II (ns-2 simulations in its EX setting): the buffer that maximized the median
#: per-flow throughput, S flows 20 ± 2 and L flows 30 ± 2 packets. Simulation results, not equations.
TABLE2_EX_OPTIMUM = {"S": 20.0, "L": 30.0}
TABLE2_EX_SETTING = "Γ = 10, Cout = 100 Mb/s, Nin = 1000 inputs, 500 closed-loop users, BDP 500 packets"


def _num(x: float) -> str:
    """A packet count for a sentence: 4 significant digits, thousands separated, never 1.2e+04."""
    if not math.isfinite(x):
        return "∞"
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"


def _rtt_note(inp: LinkInput, which: str) -> str:
    """' (harmonic-mean RTT 61.7 ms)' when the RTTs spread, so the reader sees which mean a model used."""
    if inp.rtt_max_s <= inp.rtt_min_s:
        return ""
    if which == "harmonic":
        return f" (harmonic-mean RTT {units.format_time(inp.rtt_harmonic_s)})"
    return f" (mean RTT {units.format_time(inp.rtt_s)})"


def _window_burst_size(inp: LinkInput) -> int:
    return int(math.ceil(inp.max_window_packets - 1e-9))


def _window_burst_loss_target(inp: LinkInput) -> float:
    """Drop probability that keeps the throughput loss below 1 − θ: each drop costs at most
    Wmax²/2 packets (the window triangle of 002's proof of Theorem 1, eq. (15))."""
    w = _window_burst_size(inp)
    return min(0.5, 2.0 * (1.0 - inp.target_utilization) / (w * w))


#: The square-root law's constant (000 eq. (3), k = 1.22; 002 eq. (2) has √1.5 = 1.225): l = (k/w)².
_K_SQRT = 1.22


def _window_for_loss(phi: float) -> tuple[float, float]:
    """Per-flow window (packets) at which long TCP flows lose a fraction φ: (square-root law,
    004 §5.1.1's Morris fit). The square-root law is 000 eq. (3) with T = 1 s and m = 1: R = w."""
    from bufsize.models import appenzeller as A
    from bufsize.models import prasad as P

    w_sqrt = max(1.0, P.l_model_throughput(1.0, phi, m=1.0, k=_K_SQRT))
    w_morris = A.window_from_loss_rate(phi) if phi < A.MORRIS_LOSS_CONSTANT else 1.0
    return w_sqrt, w_morris


def _loss_at_window(w: float) -> tuple[float, float]:
    """Per-flow loss at window w: (004 §5.1.1's Morris fit 0.76/w², square-root law (1.22/w)²).
    The two bracket what the simulator measures (docs/recommend.md)."""
    from bufsize.models import appenzeller as A

    return min(1.0, A.MORRIS_LOSS_CONSTANT / (w * w)), min(1.0, (_K_SQRT / w) ** 2)


def _rows_appenzeller(inp: LinkInput, f: TrafficFacts) -> list[ModelRow]:
    from bufsize.models import appenzeller as A

    rows = []
    bdp = inp.bdp_packets
    n = inp.flows
    sync_ok, sync_why = synchronized_applies(f, inp)
    if f.link_never_full:
        rot_why = link_never_full_reason(f, inp)
    elif sync_ok:
        rot_why = "one flow or in-phase flows need a full BDP to keep the link busy after a loss (001 eq. (17) gives the size for a target)"
    elif n:
        rot_why = "desynchronized flows need only RTT·C/√n (004 §3.2): the rule of thumb over-provisions"
    else:
        rot_why = "reference value: the classic rule of thumb"
    rows.append(ModelRow(
        "004-rule-of-thumb", "004", "§2 (A1), eq. (3)", "Rule of thumb B = RTT·C",
        applies=sync_ok, reason=rot_why + _rtt_note(inp, "arithmetic"),
        buffer_packets=A.rule_of_thumb(inp.rtt_s, inp.capacity_pps), goal="utilization",
        details={"rtt_mean": "arithmetic", "rtt_s": inp.rtt_s}))
    ok, why = gaussian_applies(f, inp)
    if n:
        rows.append(ModelRow(
            "004-sqrt-n", "004", "§3.2 (A3)", "Desynchronized flows B = RTT·C/√n",
            applies=ok, reason=why + _rtt_note(inp, "arithmetic"),
            buffer_packets=A.sqrt_n_rule(inp.rtt_s, inp.capacity_pps, n),
            goal="utilization", details={"rtt_mean": "arithmetic", "rtt_s": inp.rtt_s}))
        b = A.buffer_for_utilization(inp.target_utilization, bdp, n)
        rows.append(ModelRow(
            "004-erf", "004", "eq. (6) inverted", f"Gaussian bound (Reno): utilization ≥ {inp.target_utilization:.4g}",
            applies=ok and math.isfinite(b),
            reason=(why + _rtt_note(inp, "arithmetic")) if math.isfinite(b)
            else "no finite buffer reaches this target with so few flows",
            buffer_packets=b, goal="utilization", details={"rtt_mean": "arithmetic", "rtt_s": inp.rtt_s}))
    if inp.max_window_packets is not None and n:
        ok_b, why_b = window_bursts_applies(f, inp)
        b = None
        details: dict[str, Any] = {"peak_load": f.window_peak_load, "rtt_mean": "harmonic",
                                   "rtt_s": inp.rtt_harmonic_s}
        if f.window_limited:
            w = _window_burst_size(inp)
            P = _window_burst_loss_target(inp)
            b = min(A.short_flow_buffer(f.window_peak_load, P, lengths=[w], initial_window=w), n * w)
            details.update(burst_packets=w, drop_probability=P, theta=inp.target_utilization)
            why_b += (f"; drop probability ≤ 2(1−θ)/Wmax² = {P:.3g} keeps ≥ θ = {inp.target_utilization:.4g} of the "
                      "peak load (each drop costs ≤ Wmax²/2 packets, 002 eq. (15))")
        rows.append(ModelRow(
            "004-window-bursts", "004", "§4, App. C (A5) with bursts of Wmax",
            "Unpaced window-limited flows: M/G/1 queue of window bursts",
            applies=ok_b, reason=why_b + _rtt_note(inp, "harmonic"), buffer_packets=b, goal="utilization",
            details=details))
    if inp.short_lengths is not None:
        P = inp.max_loss if inp.max_loss is not None else SHORT_FLOW_DEFAULT_OVERFLOW
        b = A.short_flow_buffer(inp.short_load, P, lengths=list(inp.short_lengths), weights=list(inp.short_weights))
        rows.append(ModelRow(
            "004-short-flows", "004", "§4, App. C (A5)", f"Short-flow bursts, P(Q ≥ B) = {P:g}",
            applies=True,
            reason=("M/G/1 queue of slow-start bursts; independent of C and the number of flows "
                    "(worst case: infinitely fast access links)"),
            buffer_packets=b, goal="short-flows",
            details={"overflow_probability": P, "load": inp.short_load}))
    if inp.max_loss is not None and n:
        ok_l, why_l = loss_window_applies(f, inp)
        phi = inp.max_loss
        w_need, w_morris = _window_for_loss(phi)
        b = max(0.0, n * w_need - f.bdp_harmonic_packets)
        b_morris = max(0.0, n * w_morris - f.bdp_harmonic_packets)
        rows.append(ModelRow(
            "004-loss-window", "004", "§5.1.1 (A6), l = k²/w²",
            f"Loss ≤ {phi:g} from the TCP window: B = n·k/√φ − C·RTT_h",
            applies=ok_l,
            reason=(why_l + f"; loss ≤ {phi:g} needs w = {w_need:.3g} packets by the square-root law (k = 1.22, "
                    f"000 eq. (3)) and n·w = C·RTT_h + B; 004's Morris fit (k² = 0.76) gives w = {w_morris:.3g} "
                    f"({_num(b_morris)} packets), optimistic above ~5 packets" + _rtt_note(inp, "harmonic")),
            buffer_packets=b, goal="loss",
            details={"window_packets": w_need, "k": _K_SQRT, "window_packets_morris": w_morris,
                     "buffer_packets_morris": b_morris, "rtt_mean": "harmonic", "rtt_s": inp.rtt_harmonic_s}))
    return rows


def _row_jain(inp: LinkInput, f: TrafficFacts) -> ModelRow | None:
    from bufsize.models import jain as J

    n = inp.flows
    if not n:
        return None
    bdp = inp.bdp_packets
    target = inp.target_utilization

    def util(b: float) -> float:
        return J.reno_single_flow_utilization(bdp, b)

    # eq. (17) rises from 3/4 at B = 0 to 1 at B = BDP; invert by bisection (monotone).
    if target <= util(0.0):
        b = 0.0
    else:
        lo, hi = 0.0, bdp
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if util(mid) >= target:
                hi = mid
            else:
                lo = mid
        b = hi
    ok, why = synchronized_applies(f, inp)
    if ok:
        why += "; eq. (17) gives its utilization through an under-buffered router"
    return ModelRow("001-single-flow", "001", "eq. (17) inverted",
                    f"One Reno flow (or synchronized flows): utilization ≥ {target:.4g}",
                    applies=ok, reason=why + _rtt_note(inp, "arithmetic"), buffer_packets=b, goal="utilization",
                    details={"utilization_at_zero_buffer": util(0.0), "rtt_mean": "arithmetic", "rtt_s": inp.rtt_s})


def _rows_enachescu(inp: LinkInput, f: TrafficFacts) -> list[ModelRow]:
    from bufsize.models import enachescu as E

    ok, why = theorem1_applies(f, inp)
    name = "Spaced TCP: B ≥ log_{1/ρ}(Wmax²/(2(1−θ)))"
    b = None
    details: dict[str, Any] = {"rtt_mean": "harmonic", "rtt_s": inp.rtt_harmonic_s}
    rho = f.window_peak_load
    if rho is not None and rho < 1:
        theta = inp.target_utilization
        b = E.theorem1_buffer(inp.max_window_packets, rho, theta)
        details.update(rho=rho, theta=theta, utilization_lower_bound=theta * rho)
        why += (f"; θ = {theta:.4g} is the fraction of the peak load achieved: utilization ≥ θ·ρ = "
                f"{theta * rho:.4g}, at most ρ = {rho:.4g}")
    elif rho is not None:
        details["rho"] = rho
    return [ModelRow("002-theorem1", "002", "Theorem 1, eq. (1)", name, applies=ok,
                     reason=why + (_rtt_note(inp, "harmonic") if rho is not None else ""), buffer_packets=b,
                     goal="utilization", details=details)]


def _het_mix(inp: LinkInput) -> dict[str, float]:
    return inp.mix if inp.mix is not None else {"reno": 1.0}


def _mix_is_reno(inp: LinkInput) -> bool:
    return set(_het_mix(inp)) == {"reno"}


def _rows_heterogeneous(inp: LinkInput, f: TrafficFacts) -> tuple[list[ModelRow], dict[str, Any] | None]:
    from bufsize.models import appenzeller as A
    from bufsize.models import heterogeneous as H

    n = inp.flows
    if not n:
        return [], None
    mix = _het_mix(inp)
    mix_txt = mix_text(mix)
    if "bbr" in mix:   # 003 derives its windows from each protocol's loss response; BBR has none
        why = ("003 models loss-based controls only (Reno, BIC, CUBIC, CTCP: each one's window after a loss); "
               "BBR does not cut its window on loss, so the mix is outside the model: see spang-sqrt-n and spang-bbr")
        rows = [ModelRow("003-utilization", "003", "eqs. (7)–(9)",
                         f"Heterogeneous TCP ({mix_txt}): P(full link) ≥ {inp.target_utilization:.4g}",
                         applies=False, reason=why, buffer_packets=None, goal="utilization")]
        if inp.max_loss is not None:
            rows.append(ModelRow("003-drop", "003", "eq. (14)", f"Utilization and drop rate ≤ {inp.max_loss:g}",
                                 applies=False, reason=why, buffer_packets=None, goal="loss"))
        return rows, None
    try:
        res = H.min_buffer_heterogeneous(
            inp.bdp_packets, n, mix, tau=inp.target_utilization, phi=inp.max_loss, rho=0.99,
            max_delay_s=inp.max_delay_s, capacity_pps=inp.capacity_pps, convention="exact", values="computed")
    except BufsizeError as exc:  # z·a/√n ≥ 1: no finite buffer gives the guarantee with so few flows
        why = f"no finite buffer meets the guarantee: {exc}"
        rows = [ModelRow("003-utilization", "003", "eqs. (7)–(9)",
                         f"Heterogeneous TCP ({mix_txt}): P(full link) ≥ {inp.target_utilization:.4g}",
                         applies=False, reason=why, buffer_packets=math.inf, goal="utilization")]
        if inp.max_loss is not None:
            rows.append(ModelRow("003-drop", "003", "eq. (14)", f"Utilization and drop rate ≤ {inp.max_loss:g}",
                                 applies=False, reason=why, buffer_packets=math.inf, goal="loss"))
        return rows, None
    ok, why = gaussian_applies(f, inp)
    rows = [ModelRow(
        "003-utilization", "003", "eqs. (7)–(9)", f"Heterogeneous TCP ({mix_txt}): P(full link) ≥ {inp.target_utilization:.4g}",
        applies=ok and math.isfinite(res["utilization_buffer_packets"]),
        reason=((why + f"; mix characteristic value a = {res['a']:.4g}") if ok else why) + _rtt_note(inp, "arithmetic"),
        buffer_packets=res["utilization_buffer_packets"], goal="utilization",
        details={"a": res["a"], "rtt_mean": "arithmetic", "rtt_s": inp.rtt_s})]
    if inp.max_loss is not None:
        b = res["drop_buffer_packets"]
        ok_d, why_d = ok, why
        details: dict[str, Any] = {"min_flows_for_any_buffer": res.get("min_flows_drop_free")}
        if ok and math.isfinite(b):
            # 003 assumes windows large enough for the sawtooth; check its answer against the TCP equation
            w = (f.bdp_harmonic_packets + max(b, 0.0)) / n
            loss = _loss_at_window(w)[0]   # the optimistic relation: reject 003 only when even it disagrees
            details.update(window_at_buffer=w, loss_004_a6_at_buffer=loss)
            if loss > inp.max_loss:
                ok_d = False
                why_d = (f"windows too small for the sawtooth model: at B = {_num(b)} the windows average "
                         f"(C·RTT_h + B)/n = {w:.3g} packets, where the TCP equation (004 §5.1.1, 0.76/w²) "
                         f"gives a loss of {loss:.3g} > {inp.max_loss:g}; see 004-loss-window")
        rows.append(ModelRow(
            "003-drop", "003", "eq. (14)", f"Utilization and drop rate ≤ {inp.max_loss:g} (probability 0.99)",
            applies=ok_d and math.isfinite(b), reason=why_d, buffer_packets=b, goal="loss", details=details))
    return rows, res


def _rows_prasad(inp: LinkInput, f: TrafficFacts) -> list[ModelRow]:
    from bufsize.models import prasad as P

    rows = []
    g = inp.gamma
    To = inp.rtt_harmonic_s  # 000 uses the harmonic-mean RTT as To
    if g is None:
        for mode in ("S", "L"):
            rows.append(ModelRow(f"000-{mode}", "000", "eqs. (11)/(13)",
                                 f"Per-flow throughput of {mode}-model flows",
                                 applies=False, reason="needs the input capacity (--input-capacity) or Γ (--gamma)",
                                 buffer_packets=None, goal="throughput"))
        return rows
    if g > 1:
        ok, why = ex_form_applies(f, inp)
        rule = P.operator_rule(g, "L")
        rows.append(ModelRow(
            "000-operator", "000", "§VII-C rule (empirical)", "Operator rule for Γ > 1: 20–30 packets (per-flow throughput)",
            applies=ok,
            reason=(why + f"; the paper's advice for per-flow throughput ({rule.low:g}–{rule.high:g} packets, "
                    f"independent of the BDP), from its ns-2 optima at {TABLE2_EX_SETTING}; "
                    "not a utilization guarantee and not an equation's output"),
            buffer_packets=rule.high, goal="throughput",
            details={"empirical": True, "setting": TABLE2_EX_SETTING, "range_packets": [rule.low, rule.high],
                     "inputs": f.inputs, "inputs_assumed": f.inputs_assumed}))
        for mode, b_sim in TABLE2_EX_OPTIMUM.items():
            flows_txt = "slow-start" if mode == "S" else "congestion-avoidance"
            rows.append(ModelRow(
                f"000-{mode}", "000", "Table II (ns-2 simulation)",
                f"Per-flow throughput of {mode} ({flows_txt}) flows: simulated optimum, EX setting",
                applies=ok,
                reason=(why + f"; Table II's simulated optimum {b_sim:g} ± 2 packets for {flows_txt} flows at "
                        f"{TABLE2_EX_SETTING} (the EX-form eqs. (15)–(18) need fitted a, b, f the paper does not print)")
                + ("" if inp.optimize_for == mode else " (not the selected goal)"),
                buffer_packets=b_sim, goal="throughput",
                details={"form": "ex", "empirical": True, "setting": TABLE2_EX_SETTING,
                         "inputs": f.inputs, "inputs_assumed": f.inputs_assumed}))
        return rows
    s_bytes = DEFAULT_S_FLOW_PACKETS * inp.packet_bytes
    if inp.short_lengths is not None:
        mean_len = sum(l * w for l, w in zip(inp.short_lengths, inp.short_weights))
        s_bytes = math.ceil(mean_len) * inp.packet_bytes
    for mode in ("S", "L"):
        b = P.optimal_buffer("pl", mode, C_pps=inp.capacity_pps, To=To,
                             s_bytes=s_bytes if mode == "S" else None, m=inp.packet_bytes)
        reason = (f"Γ = {g:g} ≤ 1: power-law loss p = a·B^-b (PL form) with the paper's typical b = "
                  f"{P.PL_DEFAULT_B:g}, f = {P.PL_DEFAULT_F:g}, a = {P.PL_DEFAULT_A:g} (not fitted to your "
                  f"traffic); maximizes the per-flow throughput of "
                  + (f"slow-start flows of {s_bytes / inp.packet_bytes:g} packets" if mode == "S"
                     else "congestion-avoidance flows") + _rtt_note(inp, "harmonic"))
        ok_pl, why_pl = pl_form_applies(f, inp)
        if not ok_pl:
            reason = why_pl + "; " + reason
        rows.append(ModelRow(
            f"000-{mode}", "000", "eq. (13)" if mode == "S" else "eq. (11)",
            f"Per-flow throughput of {mode}-model flows (PL form)",
            applies=ok_pl, reason=reason + ("" if inp.optimize_for == mode else " (not the selected goal)"),
            buffer_packets=b, goal="throughput",
            details={"form": "pl", "flow_size_bytes": s_bytes if mode == "S" else None,
                     "rtt_mean": "harmonic", "rtt_s": To}))
    return rows


def _row_input_bound(inp: LinkInput, f: TrafficFacts) -> ModelRow | None:
    """Nin inputs that together carry at most C: the queue never holds more than one packet per input."""
    if not f.input_limited or f.window_limited:
        return None
    b = float(f.inputs + 1)
    return ModelRow(
        "000-input-bound", "000", "Nin·Cin ≤ C (bound)", "Inputs slower than the output in total: no overload",
        applies=True,
        reason=(link_never_full_reason(f, inp) + f"; at most one packet per input arrives while one is sent, "
                f"so {b:g} packets lose nothing" + (" (Nin assumed = flows; give --inputs)" if f.inputs_assumed else "")),
        buffer_packets=b, goal="utilization", details={"inputs": f.inputs, "inputs_assumed": f.inputs_assumed})


def _spang_counts(inp: LinkInput) -> dict[str, int]:
    """Flows per engine control (newreno, cubic, bbr, ...) of the described mix, as simulated."""
    from bufsize.describe import ENGINE_CC, mix_counts

    return {ENGINE_CC[k]: c for k, c in mix_counts(_het_mix(inp), inp.flows).items()}


def _spang_count_text(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{c} {k}" for k, c in counts.items())


def _rows_spang(inp: LinkInput, f: TrafficFacts) -> list[ModelRow]:
    """The rules beyond the five papers (Spang, Arslan, McKeown 2021; models/spang.py): the
    single-flow rule for the mix's β, BBR's probe rule and the √n rule for any mix. Each row says
    where it comes from (``source``) and is marked ``beyond_papers``."""
    from bufsize.models import spang as S

    n = inp.flows
    if not n:
        return []
    bdp = inp.bdp_packets
    counts = _spang_counts(inp)
    note = _rtt_note(inp, "arithmetic")
    common = dict(goal="utilization", source=S.SOURCE, beyond_papers=True)
    rows = []

    # 1. (1 − β)/β × BDP for the loss-based flows, β the flow-weighted mean of the mix's
    lossy = {k: c for k, c in counts.items() if k != "bbr"}
    ok, why = spang_single_flow_applies(f, inp)
    b, details = None, {"rtt_mean": "arithmetic", "rtt_s": inp.rtt_s}
    name = "Loss-based flows in phase: B = (1 − β)/β·BDP"
    if lossy:
        beta = S.mix_decrease_factor(lossy)
        b = S.single_flow_buffer(bdp, beta)
        betas = ", ".join(f"{k} {S.decrease_factor(k):.3g}" for k in lossy)
        why += (f"; β = {beta:.3g}" + (f" (flow-weighted: {betas})" if len(lossy) > 1 else f" ({betas})")
                + f" gives {(1 - beta) / beta:.3g} × BDP")
        name = f"Loss-based flows in phase, β = {beta:.3g}: B = (1 − β)/β·BDP"
        details.update(beta=beta, loss_based_flows=lossy)
    elif ok:   # the mix names loss-based controls, but they round to no flow of the n
        ok, why = False, f"no loss-based flow among the {n} flows as the mix rounds them ({_spang_count_text(counts)})"
    rows.append(ModelRow("spang-single-flow", "Spang 2021", "(1−β)/β·BDP", name, applies=ok and b is not None,
                         reason=f"{S.LABEL}: " + why + note, buffer_packets=b, details=details, **common))

    # 2. BBR's probe: (g − 1)·(k/n)·BDP + k × Linux's allowance at C/n
    k = counts.get("bbr", 0)
    ok, why = spang_bbr_applies(f, inp)
    b, details = None, {"rtt_mean": "arithmetic", "rtt_s": inp.rtt_s}
    if k:
        mss = max(1.0, inp.packet_bytes - 40.0)   # the engine's segment: the packet less 40 header bytes
        allowance = S.linux_bbr_allowance(inp.capacity_bps / n, mss)
        b = S.bbr_mix_buffer(bdp, k, n, inp.capacity_bps, mss)
        why += (f"; {k} of {n} flows BBR: (g − 1)·(k/n)·BDP = {(S.BBR_PROBE_GAIN - 1) * bdp * k / n:.4g} packets "
                f"plus Linux's allowance 3 × TSO goal + 2 = {allowance:g} per flow at C/n")
        if k > 1:
            why += ("; with several BBR v1 flows each one's bandwidth estimate includes the others' probes and "
                    "together they can keep up to 2 BDP in flight, which this rule does not cover")
        details.update(bbr_flows=k, probe_gain=S.BBR_PROBE_GAIN, allowance_packets_per_flow=allowance)
    elif ok:
        ok, why = False, f"no BBR flow among the {n} flows as the mix rounds them ({_spang_count_text(counts)})"
    rows.append(ModelRow("spang-bbr", "Spang 2021", "(g−1)·BDP + allowance",
                         "BBR's bandwidth probes lose nothing: B = (g − 1)·(k/n)·BDP + k·allowance",
                         applies=ok and b is not None, reason=f"{S.LABEL}: " + why + note, buffer_packets=b,
                         details=details, **common))

    # 3. √n for any mix
    ok, why = spang_sqrt_n_applies(f, inp)
    b = S.sqrt_n_buffer(bdp, counts)
    ratios = ", ".join(f"{c} {S.window_variation(c) / S.window_variation('reno'):.3g}" for c in counts)
    why += f"; σ/mean of each control's window relative to Reno's: {ratios}"
    rows.append(ModelRow("spang-sqrt-n", "Spang 2021", "BDP/N·√(Σ n_c (r_c/r_Reno)²)",
                         "Desynchronized flows of any mix: B = BDP/N·√(Σ n_c (r_c/r_Reno)²)",
                         applies=ok, reason=f"{S.LABEL}: " + why + note, buffer_packets=b,
                         details={"flows": counts, "rtt_mean": "arithmetic", "rtt_s": inp.rtt_s}, **common))
    return rows


# --------------------------------------------------------------------------- recommend

def recommend(**kwargs) -> Recommendation:
    """Evaluate every model for one link and return a :class:`Recommendation`.

    Keyword arguments (unit strings such as ``"155Mbps"`` or SI numbers): ``capacity``, ``rtt``
    (``"80ms"``, ``"20ms..140ms"`` or ``"30ms,50ms"``), ``flows``, ``packet_size``,
    ``input_capacity`` or ``gamma`` (Γ = C/Cin), ``inputs`` (number of input links, for 000's EX
    form; default: one per flow), ``mix`` (``"reno=0.2,bic=0.2,cubic=0.4,ctcp=0.2"`` or a dict),
    ``short_flows`` (``"14pkt"`` or ``"2pkt:0.3,14pkt:0.7"``) with ``short_load``, ``max_window``,
    ``paced``, ``target_utilization``, ``max_loss``, ``max_delay``, ``optimize_for`` (``"S"`` or
    ``"L"``). With no link argument at all the link is :data:`DEFAULTS`' example; a partial
    description missing ``capacity``, ``rtt`` or ``flows`` is refused (see :func:`parse_input`).

    ``verify=True`` also finds the verified size on the simulator
    (:mod:`bufsize.experiments.verified`): ``rec.verified`` holds it, ``rec.to_frame()`` gains the
    per-model verdicts (safe / unsafe / wasteful). ``verify="auto"`` verifies only when the
    estimated cost fits :data:`bufsize.experiments.verified.INTERACTIVE_BUDGET_S` (else
    ``rec.verify_skipped`` says what it would cost). ``max_fct`` (a short-flow completion-time
    goal), ``workers``, ``scheduler`` (a Dask address) and ``say`` (a progress callback) go to the
    verification.

    Raises :class:`bufsize.errors.BufsizeError` (a ``ValueError``) with a one-line message naming
    the argument for any invalid input.
    """
    verify = kwargs.pop("verify", False)
    vopts = {k: kwargs.pop(k) for k in ("max_fct", "workers", "scheduler", "say") if k in kwargs}
    rec = _recommend_models(**kwargs)
    if verify:
        _attach_verification(rec, verify, **vopts)
    return rec


def _attach_verification(rec: Recommendation, verify: Any, *, max_fct=None, workers=None, scheduler=None,
                         say=None) -> None:
    from bufsize.experiments import verified as V

    fct = None if max_fct is None else units.parse_time(max_fct, argument="--max-fct")
    if verify == "auto" and scheduler is None:
        cost = V.estimate_cost(rec, workers=workers)
        if cost["wall_s"] is not None and cost["wall_s"] > V.INTERACTIVE_BUDGET_S:
            rec.verify_skipped = (f"verifying on the simulator would take about {cost['wall_s']:,.0f} s here "
                                  f"on an idle machine "
                                  f"({cost['describe']}, {cost['workers']} workers), more than the "
                                  f"{V.INTERACTIVE_BUDGET_S:g}-s interactive budget: run it with --verify "
                                  f"(and --workers N or --scheduler ADDRESS for a cluster), or --no-verify")
            return
    rec.verified = V.verify_recommendation(rec, max_fct=fct, workers=workers, scheduler=scheduler, say=say)


def _recommend_models(**kwargs) -> Recommendation:
    inp = parse_input(**kwargs)
    f = traffic_facts(inp)
    rows: list[ModelRow] = []
    rows += _rows_appenzeller(inp, f)
    j = _row_jain(inp, f)
    if j is not None:
        rows.append(j)
    rows += _rows_enachescu(inp, f)
    het_rows, het = _rows_heterogeneous(inp, f)
    rows += het_rows
    rows += _rows_prasad(inp, f)
    ib = _row_input_bound(inp, f)
    if ib is not None:
        rows.append(ib)
    rows += _rows_spang(inp, f)
    if inp.max_delay_s is not None:
        rows.append(ModelRow(
            "003-delay", "003", "§VI, B ≤ C·λ", f"Queueing-delay limit λ = {units.format_time(inp.max_delay_s)}",
            applies=True, reason="an upper limit: a full buffer drains in at most λ",
            buffer_packets=inp.max_delay_s * inp.capacity_pps, goal="delay"))
    for r in rows:
        _fill(r, inp)

    recommended, predicted = _choose(inp, f, rows, het)
    return Recommendation(inp, rows, recommended, predicted, traffic=_facts_dict(f))


def _facts_dict(f: TrafficFacts) -> dict[str, Any]:
    return {
        "bdp_harmonic_packets": f.bdp_harmonic_packets,
        "mean_window_packets": f.mean_window,
        "peak_load": f.peak_load,
        "window_peak_load": f.window_peak_load,
        "input_peak_load": f.input_peak_load,
        "inputs": f.inputs,
        "inputs_assumed": f.inputs_assumed,
        "window_limited": f.window_limited,
        "input_limited": f.input_limited,
        "utilization_ceiling": f.utilization_ceiling,
        "spaced": f.spaced,
    }


def _usable(r: ModelRow | None) -> bool:
    return (r is not None and r.applies and r.buffer_packets is not None and math.isfinite(r.buffer_packets))


def _choose(inp: LinkInput, f: TrafficFacts, rows: list[ModelRow], het: dict[str, Any] | None) -> tuple[dict, dict]:
    by_id = {r.id: r for r in rows}
    reasons: list[str] = []
    candidates: list[ModelRow] = []

    if f.link_never_full:
        reasons.append(link_never_full_reason(f, inp) + "; the utilization models that assume a full link "
                       "(004, 003, 001) do not apply")

    # 1. utilization (or per-flow throughput when asked for)
    util_done = False
    if inp.optimize_for is not None:
        r = by_id[f"000-{inp.optimize_for}"]
        if _usable(r):
            candidates.append(r)
            kind = "a simulated optimum (empirical)" if r.details.get("empirical") else f"{r.equation}"
            reasons.append(f"per-flow throughput of {inp.optimize_for}-model flows is the goal: {r.id} "
                           f"({kind}) gives {_num(r.buffer_packets)} packets")
            util_done = True
        else:
            reasons.append(f"per-flow throughput of {inp.optimize_for}-model flows: {r.id} does not apply "
                           f"({r.reason}); sizing for utilization instead")
    if not util_done:
        cand_ids = ("004-erf", "003-utilization", "001-single-flow", "002-theorem1", "004-window-bursts",
                    "000-input-bound")
        util_rows = [by_id[i] for i in cand_ids if _usable(by_id.get(i))]
        het_row = by_id.get("003-utilization")
        beyond = [by_id[i] for i in ("spang-single-flow", "spang-bbr", "spang-sqrt-n") if _usable(by_id.get(i))]
        if mix_has_bbr(inp) and beyond and not f.link_never_full:
            # none of the five papers models BBR: the rules beyond them set the size
            best = max(beyond, key=lambda r: r.buffer_packets)
            others = [f"{r.id} {_num(r.buffer_packets)}" for r in beyond if r is not best]
            reasons.append(f"utilization ≥ {inp.target_utilization:.4g}: the mix ({mix_text(inp.mix)}) has BBR, which "
                           f"none of the five papers models, so the rules beyond them (Spang, Arslan, McKeown 2021) "
                           f"set the size: {best.id} ({best.equation}) needs {_num(best.buffer_packets)} packets"
                           + (f" (also applicable: {', '.join(others)})" if others else ""))
            candidates.append(best)
        elif util_rows and not _mix_is_reno(inp) and _usable(het_row):
            best = het_row
            others = [f"{r.id} {_num(r.buffer_packets)}" for r in util_rows if r is not best]
            reasons.append(f"utilization ≥ {inp.target_utilization:.4g}: the mix ({mix_text(inp.mix)}) has "
                           f"characteristic value a = {het_row.details['a']:.4g}, so 003 eqs. (7)–(9) set the size: "
                           f"{_num(best.buffer_packets)} packets"
                           + (f" (Reno-only figures, not used: {', '.join(others)})" if others else ""))
            candidates.append(best)
        elif util_rows:
            best = max(util_rows, key=lambda r: r.buffer_packets)
            others = [f"{r.id} {_num(r.buffer_packets)}" for r in util_rows if r is not best]
            if best.id == "002-theorem1":
                goal_txt = (f"throughput ≥ θ = {inp.target_utilization:.4g} of the peak load "
                            f"(utilization ≥ {best.details['utilization_lower_bound']:.4g})")
            elif best.id == "004-window-bursts":
                goal_txt = (f"throughput ≥ θ = {inp.target_utilization:.4g} of the peak load "
                            f"(utilization ≥ {inp.target_utilization * f.window_peak_load:.4g})")
            elif best.id == "000-input-bound":
                goal_txt = "no loss (the inputs cannot overload the output)"
            else:
                goal_txt = f"utilization ≥ {inp.target_utilization:.4g}"
            reasons.append(f"{goal_txt}: {best.id} ({best.equation}) needs {_num(best.buffer_packets)} packets"
                           + (f" (also applicable: {', '.join(others)})" if others else ""))
            candidates.append(best)
        elif inp.flows:
            r = by_id["004-rule-of-thumb"]
            candidates.append(r)
            reasons.append("no utilization model's assumptions hold for this input (see the table): "
                           f"falling back to the rule of thumb RTT·C = {_num(r.buffer_packets)} packets")
    # 2. loss
    if inp.max_loss is not None:
        loss_rows = [by_id[i] for i in ("003-drop", "004-loss-window") if _usable(by_id.get(i))]
        if loss_rows:
            r = max(loss_rows, key=lambda r: r.buffer_packets)
            candidates.append(r)
            reasons.append(f"loss ≤ {inp.max_loss:g}: {r.id} ({r.equation}) needs {_num(r.buffer_packets)} packets"
                           + ("" if r.id != "004-loss-window" or "003-drop" not in by_id
                              else f" (003 eq. (14) does not apply: {by_id['003-drop'].reason})"))
        else:
            why = "; ".join(f"{i}: {by_id[i].reason}" for i in ("003-drop", "004-loss-window") if i in by_id)
            reasons.append(f"loss goal {inp.max_loss:g}: no loss model applies ({why or 'needs --flows'})")
    # 3. short flows
    if "004-short-flows" in by_id:
        r = by_id["004-short-flows"]
        candidates.append(r)
        reasons.append(f"short-flow bursts: 004 §4 needs {_num(r.buffer_packets)} packets for "
                       f"P(Q ≥ B) = {r.details['overflow_probability']:g}")

    if not candidates:
        raise BufsizeError("no model applies to this input: give --flows, or short flows with --short-load",
                           argument="--flows")
    chosen = max(candidates, key=lambda r: r.buffer_packets)
    b = chosen.buffer_packets
    chosen_id = chosen.id
    if len(candidates) > 1:
        reasons.append(f"the largest of the goal sizes wins: {chosen.id}")

    # 4. delay cap; the compromise is reported by the model that set the wanted size
    compromise = None
    if inp.max_delay_s is not None:
        cap = inp.max_delay_s * inp.capacity_pps
        if cap < b:
            compromise, txt = _compromise(inp, f, chosen, cap, by_id, het)
            reasons.append(txt)
            b = cap
            chosen_id = "003-delay"
        else:
            reasons.append(f"the delay goal allows up to {_num(cap)} packets: met")

    predicted = _predict(inp, f, b, by_id, chosen)
    recommended = {
        "id": chosen_id,
        "buffer_packets": b,
        "buffer_bytes": b * inp.packet_bytes,
        "queueing_delay_s": b / inp.capacity_pps,
        "reasons": reasons,
    }
    if compromise is not None:
        recommended["compromise"] = compromise
    return recommended, predicted


def _figure_at(inp: LinkInput, f: TrafficFacts, row: ModelRow, b: float) -> dict[str, Any] | None:
    """What ``row``'s model promises at a buffer of ``b`` packets (for the delay compromise)."""
    from bufsize.models import appenzeller as A
    from bufsize.models import enachescu as E
    from bufsize.models import jain as J
    from bufsize.models import prasad as P

    n, mid = inp.flows, row.id
    if mid in ("004-erf", "004-sqrt-n"):
        return {"model": "004-erf", "equation": "004 eq. (6)", "quantity": "utilization (lower bound)",
                "value": A.utilization_lower_bound(b, inp.bdp_packets, n), "goal": inp.target_utilization}
    if mid == "001-single-flow":
        return {"model": mid, "equation": "001 eq. (17)", "quantity": "utilization",
                "value": J.reno_single_flow_utilization(inp.bdp_packets, b), "goal": inp.target_utilization}
    if mid == "002-theorem1":
        rho = f.window_peak_load
        return {"model": mid, "equation": "002 eq. (15)", "quantity": "utilization (lower bound)",
                "value": E.theorem1_utilization(b, inp.max_window_packets, rho) * rho,
                "goal": inp.target_utilization * rho}
    if mid == "004-window-bursts":
        rho, w = f.window_peak_load, row.details["burst_packets"]
        p = A.short_flow_overflow_probability(rho, b, lengths=[w], initial_window=w)
        return {"model": mid, "equation": "004 App. C", "quantity": "utilization (lower bound)",
                "value": max(0.0, 1.0 - p * w * w / 2.0) * rho, "goal": inp.target_utilization * rho}
    if mid == "004-loss-window":
        w = (f.bdp_harmonic_packets + b) / n
        return {"model": mid, "equation": "004 §5.1.1, k = 1.22", "quantity": "per-flow loss rate",
                "value": _loss_at_window(w)[1], "goal": inp.max_loss}
    if mid == "004-short-flows":
        return {"model": mid, "equation": "004 App. C", "quantity": "P(Q ≥ B)",
                "value": A.short_flow_overflow_probability(inp.short_load, b, lengths=list(inp.short_lengths),
                                                           weights=list(inp.short_weights)),
                "goal": row.details["overflow_probability"]}
    if mid in ("000-L", "000-S") and row.details.get("form") == "pl" and row.buffer_packets > 0:
        omega = b / row.buffer_packets
        if mid == "000-L":
            e = P.sensitivity_pl_l(omega, P.PL_DEFAULT_B)
        else:
            M = P.segments(row.details["flow_size_bytes"], inp.packet_bytes)
            e = P.sensitivity_pl_s(omega, a=P.PL_DEFAULT_A, b=P.PL_DEFAULT_B, f=P.PL_DEFAULT_F, M=M,
                                   D=P.slow_start_rounds(M), C_To=inp.capacity_pps * inp.rtt_harmonic_s)
        return {"model": mid, "equation": "000 eq. (19)", "quantity": "per-flow throughput lost", "value": e,
                "goal": 0.0}
    return None


def _compromise(inp, f, chosen: ModelRow, cap: float, by_id, het) -> tuple[dict, str]:
    comp: dict[str, Any] = {"delay_cap_packets": cap, "wanted_packets": chosen.buffer_packets,
                            "wanted_by": chosen.id, "figures": []}
    txt = (f"the delay goal {units.format_time(inp.max_delay_s)} caps the buffer at C·λ = {_num(cap)} packets, "
           f"below the {_num(chosen.buffer_packets)} that {chosen.id} needs: a compromise")
    c3 = (het or {}).get("compromise") or {}
    if chosen.id in ("003-utilization", "003-drop"):
        if c3.get("q") is not None:
            comp["figures"].append({"model": "003-utilization", "equation": "003 eq. (18)",
                                    "quantity": "full-link guarantee q", "value": c3["q"],
                                    "goal": inp.target_utilization})
        if chosen.id == "003-drop" and c3.get("drop_rate_increase") is not None:
            comp["figures"].append({"model": "003-drop", "equation": "003 eq. (19)",
                                    "quantity": "drop-rate increase (at least)", "value": c3["drop_rate_increase"],
                                    "goal": 0.0})
    else:
        fig = _figure_at(inp, f, chosen, cap)
        if fig is not None:
            comp["figures"].append(fig)
    main = comp["figures"][0] if comp["figures"] else None
    if main is not None:
        txt += f"; {main['model']} ({main['equation']}): {main['quantity']} {main['value']:.3g} at C·λ"
        if main["goal"]:
            txt += f" instead of {main['goal']:.3g}"
    # the other applicable models' figures, named, beside it
    others = []
    for oid in ("004-erf", "003-utilization", "001-single-flow", "004-loss-window"):
        r = by_id.get(oid)
        if r is None or oid == chosen.id or not _usable(r) or r.buffer_packets <= cap:
            continue
        if oid == "004-erf" and not _mix_is_reno(inp) and _usable(by_id.get("003-utilization")):
            continue   # the mix's utilization model is 003's; 004's Reno figure was not used
        if oid == "003-utilization":
            if c3.get("q") is None:
                continue
            fig = {"model": oid, "equation": "003 eq. (18)", "quantity": "full-link guarantee q",
                   "value": c3["q"], "goal": inp.target_utilization}
        else:
            fig = _figure_at(inp, f, r, cap)
        if fig is not None:
            others.append(fig)
    if others:
        comp["figures"] += others
        txt += "; beside it " + ", ".join(f"{o['model']} ({o['equation']}) {o['quantity']} {o['value']:.3g}"
                                          for o in others)
    # keep the 003 figures under their historical keys too
    for k in ("gamma", "z_q", "q", "tau_reduction", "drop_rate_increase"):
        if c3.get(k) is not None:
            comp[f"003_{k}"] = c3[k]
    return comp, txt


def _predict(inp: LinkInput, f: TrafficFacts, b: float, by_id, chosen: ModelRow) -> dict[str, Any]:
    """Utilization (and per-flow loss) the models predict at the recommended size b, never above
    min(1, peak load): the values of :func:`predicted_figures` under their keys, the window the
    loss figures are evaluated at (``loss_window_packets``), and the figures themselves, each
    labelled with its model and where it is evaluated (``figures``)."""
    figs = predicted_figures(inp, b, list(by_id.values()), facts=f)
    out: dict[str, Any] = {}
    if not inp.flows:
        return out
    if f.peak_load is not None:
        out["peak_load"] = f.peak_load
        out["utilization_upper_bound"] = f.utilization_ceiling
    for fig in figs:
        out[fig["key"]] = fig["value"]
        if fig.get("window_packets") is not None:
            out["loss_window_packets"] = fig["window_packets"]
    out["figures"] = figs
    return out


def _at_text(inp: LinkInput, b: float) -> str:
    return (f"B = {_num(b)} packets on the described link ({units.format_rate(inp.capacity_bps)}, "
            f"{inp.flows:,} flows, not scaled)")


def loss_window(inp: LinkInput, b: float, facts: TrafficFacts | None = None) -> float:
    """The per-flow window (packets) every loss figure is evaluated at: the n long flows share
    C·RTT_h + B packets in flight, w = (C·RTT_h + B)/n (RTT_h the harmonic-mean RTT, 004 A6)."""
    f = facts if facts is not None else traffic_facts(inp)
    return (f.bdp_harmonic_packets + b) / inp.flows


def predicted_figures(inp: LinkInput, b: float, rows: list[ModelRow] | None = None, *,
                      facts: TrafficFacts | None = None, quantities: tuple[str, ...] = ("utilization", "loss"),
                      ) -> list[dict[str, Any]]:
    """Every figure the models predict at a buffer of ``b`` packets, for the described link at its
    full size (never a scaled copy), each labelled by its model.

    The one place these numbers come from: the headline of ``recommend`` (:func:`_predict`) and the
    ``--plot`` panels evaluate this function. Each figure is a dict: ``key`` (the name in
    ``Recommendation.predicted``), ``model`` and ``equation`` (which model gives it), ``quantity``,
    ``value``, ``window_packets`` (loss figures: the per-flow window they are evaluated at, see
    :func:`loss_window`), ``at`` (where: the buffer and the link) and ``text`` (one line for a
    person). Utilization figures never exceed min(1, peak load). Loss comes from one relation,
    paper 004 §5.1.1 (A6) between a long flow's window and its loss rate, given at both ends of
    its published range: Morris's fit l = 0.76/w² (optimistic above ~5 packets) and the square-root
    law l = (1.22/w)² (000 eq. (3)); the simulator measures between or near them (docs/recommend.md).
    """
    from bufsize.models import appenzeller as A
    from bufsize.models import jain as J

    out: list[dict[str, Any]] = []
    if not inp.flows:
        return out
    f = facts if facts is not None else traffic_facts(inp)
    by_id = {r.id: r for r in (rows or [])}
    at = _at_text(inp, b)
    ceiling = f.utilization_ceiling

    def add(key, model, equation, quantity, value, text, **extra):
        out.append({"key": key, "model": model, "equation": equation, "quantity": quantity, "value": value,
                    "at": at, "text": text, **extra})

    if "utilization" in quantities:
        if f.peak_load is not None and ceiling < 1.0:
            add("utilization_upper_bound", "peak load", "n·Wmax/(C·RTT_h) or Nin·Cin/C", "utilization (upper bound)",
                ceiling, f"utilization at most {ceiling:.4%} (peak load: the windows/inputs cannot offer more)")
        if f.window_limited:
            for mid, key, label in (("002-theorem1", "utilization_002_theorem1", "002 Theorem 1, a lower bound"),
                                    ("004-window-bursts", "utilization_004_window_bursts",
                                     "window bursts, 004 App. C, a lower bound")):
                r = by_id.get(mid)
                if r is not None and r.applies:
                    fig = _figure_at(inp, f, r, b)
                    v = min(ceiling, fig["value"])
                    add(key, mid, fig["equation"], "utilization (lower bound)", v,
                        f"utilization ≥ {v:.4%} ({label}) at {at}")
        elif f.input_limited:
            pass
        elif mix_has_bbr(inp):
            pass   # 004 eq. (6) and 001 eq. (17) are Reno's windows; no model here predicts BBR's utilization
        elif inp.flows >= DESYNC_MIN_FLOWS and gaussian_applies(f, inp)[0]:
            v = min(ceiling, A.utilization_lower_bound(b, inp.bdp_packets, inp.flows))
            add("utilization_004_eq6", "004-erf", "004 eq. (6)", "utilization (lower bound)", v,
                f"utilization ≥ {v:.4%} (004 eq. (6), desynchronized Reno flows, a lower bound) at {at}")
            het = by_id.get("003-utilization")
            if not _mix_is_reno(inp) and _usable(het):
                from bufsize.models import heterogeneous as H

                mu = inp.bdp_packets + b     # 003 eq. (1): P(W ≥ BDP) with δ = a·μ/√n (eq. (6))
                q = H.utilization_guarantee(mu, het.details["a"] * mu / math.sqrt(inp.flows), inp.bdp_packets)
                add("full_link_probability_003", "003-utilization", "003 eq. (1)", "probability the link is full",
                    q, f"probability the link is full {q:.4%} (003 eq. (1), the mix) at {at}")
        elif inp.flows < DESYNC_MIN_FLOWS:
            v = min(ceiling, J.reno_single_flow_utilization(inp.bdp_packets, b))
            add("utilization_001_eq17_single_flow", "001-single-flow", "001 eq. (17)", "utilization", v,
                f"utilization {v:.4%} if the flows synchronize (001 eq. (17), one Reno sawtooth) at {at}")
    if "loss" in quantities and loss_window_applies(f, inp)[0]:
        w = loss_window(inp, b, f)
        morris, sqrt_law = _loss_at_window(w)
        where = f"at w = (C·RTT_h + B)/n = {w:.3g} packets per flow, {at}"
        add("loss_004_a6_per_flow", "004-loss-window", "004 §5.1.1 (A6), Morris fit l = 0.76/w²",
            "per-flow loss rate", morris, f"per-flow loss {morris:.3%} (004 §5.1.1, Morris fit 0.76/w²) {where}",
            window_packets=w)
        add("loss_sqrt_law_per_flow", "004-loss-window", "square-root law l = (1.22/w)² (000 eq. (3))",
            "per-flow loss rate", sqrt_law,
            f"per-flow loss {sqrt_law:.3%} (square-root law (1.22/w)², same w and B)",
            window_packets=w)
    return out
    ceiling = f.utilization_ceiling
    if f.peak_load is not None:
        out["peak_load"] = f.peak_load
        out["utilization_upper_bound"] = ceiling
    if f.window_limited:
        for mid in ("002-theorem1", "004-window-bursts"):
            r = by_id.get(mid)
            if r is not None and r.applies:
                fig = _figure_at(inp, f, r, b)
                key = "utilization_002_theorem1" if mid == "002-theorem1" else "utilization_004_window_bursts"
                out[key] = min(ceiling, fig["value"])
    elif f.input_limited:
        pass
    elif inp.flows >= DESYNC_MIN_FLOWS and gaussian_applies(f, inp)[0]:
        out["utilization_004_eq6"] = min(ceiling, A.utilization_lower_bound(b, inp.bdp_packets, inp.flows))
        het = by_id.get("003-utilization")
        if not _mix_is_reno(inp) and _usable(het):
            from bufsize.models import heterogeneous as H

            mu = inp.bdp_packets + b     # 003 eq. (1): P(W ≥ BDP) with δ = a·μ/√n (eq. (6))
            out["full_link_probability_003"] = H.utilization_guarantee(
                mu, het.details["a"] * mu / math.sqrt(inp.flows), inp.bdp_packets)
    elif inp.flows < DESYNC_MIN_FLOWS:
        out["utilization_001_eq17_single_flow"] = min(ceiling, J.reno_single_flow_utilization(inp.bdp_packets, b))
    if loss_window_applies(f, inp)[0]:
        w = (f.bdp_harmonic_packets + b) / inp.flows
        out["loss_004_a6_per_flow"], out["loss_sqrt_law_per_flow"] = _loss_at_window(w)
    return out
