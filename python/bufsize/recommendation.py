"""``bufsize.recommend()`` and ``bufsize recommend``: every analytic model of the five papers, side by side, and one size.

Describe a link (capacity, RTTs, flows, packet size, input capacity or Γ, TCP mix, short flows,
pacing, maximum window) and the goals (utilization, loss, queueing delay, which flows' throughput
to favour). :func:`recommend` evaluates every model that has the inputs it needs, says for each
whether its assumptions hold for this input and why not, and picks one buffer size:

1. **Utilization** (the always-present goal, default 99 %):
   - Γ = C/Cin > 1 (slow inputs feed a fast output): paper 000's operator rule, a few dozen
     packets, independent of the BDP (000 §VII-C); with paced TCP or a known window cap on an
     over-provisioned link, paper 002's Theorem 1 gives the O(log Wmax) size.
   - many (≥ 250) desynchronized long flows: the larger of paper 004's eq. (6) inverse and paper
     003's eq. (7) for the TCP mix (both are √n laws; 003 accounts for CUBIC/BIC/CTCP).
   - fewer flows: they may synchronize (004 §3.1) and behave like one Reno flow, so paper 001's
     eq. (17) is inverted for the target (B = BDP gives 100 %).
2. **Per-flow throughput** (``optimize_for="S"`` or ``"L"``): paper 000's optimal buffer for
   slow-start (S) or congestion-avoidance (L) flows replaces the utilization size.
3. **Loss** (``max_loss``): paper 003's eq. (14) (utilization and drop constraints together).
4. **Short flows** (``short_flows`` and ``short_load``): paper 004's M/G/1 burst model, buffer for an
   overflow probability (``max_loss`` or 2.5 %).
5. **Queueing delay** (``max_delay``): an upper limit C·λ. If it is below the size chosen above,
   the recommendation becomes C·λ and paper 003's compromise figures (reduced utilization
   guarantee q, drop-rate increase) say what is given up.

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
#: Paper 004 §3.2 / Fig. 11: the √n results hold for more than about 250 desynchronized flows.
DESYNC_MIN_FLOWS = 250
#: Paper 004 §4 / TR: the short-flow buffer is sized for P(Q > B) = 2.5 % unless a loss goal is set.
SHORT_FLOW_DEFAULT_OVERFLOW = 0.025
#: Paper 000's experiments use S flows of 30 packets (45 kB with 1500-byte packets).
DEFAULT_S_FLOW_PACKETS = 30

DEFAULTS: dict[str, Any] = {
    # a default backbone link: paper 004's abstract (10 Gb/s, 250 ms, 50 000 flows)
    "capacity": "10Gbps",
    "rtt": "250ms",
    "flows": 50_000,
    "packet_size": "1500B",
    "target_utilization": 0.99,
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

    @property
    def capacity_pps(self) -> float:
        return units.rate_to_packets_per_second(self.capacity_bps, self.packet_bytes)

    @property
    def bdp_packets(self) -> float:
        return self.rtt_s * self.capacity_pps


def _parse_mix(mix: str | Mapping[str, float] | None) -> dict[str, float] | None:
    if mix is None:
        return None
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
        items = {str(k).lower(): float(v) for k, v in dict(mix).items()}
    if not items:
        raise BufsizeError("the mix is empty", argument="--mix")
    from bufsize.models import heterogeneous as het

    canonical: dict[str, float] = {}
    for name, v in items.items():
        try:
            key = het.protocol_name(name)
        except BufsizeError as exc:  # re-say it against the flag the user typed
            raise BufsizeError(str(exc).removeprefix("protocol: "), argument="--mix") from None
        if not math.isfinite(v) or v < 0:
            raise BufsizeError(f"share of {name!r} must be a non-negative number, got {v}", argument="--mix")
        canonical[key] = canonical.get(key, 0.0) + v
    items = canonical
    total = sum(items.values())
    all_counts = all(float(v).is_integer() for v in items.values()) and total > 1
    if all_counts:  # flow counts, e.g. the 003 testbed mix reno=42,bic=51,...
        return {k: v / total for k, v in items.items() if v > 0}
    if abs(total - 1.0) > 1e-6:
        raise BufsizeError(f"fractions sum to {total:g}, not 1 (or give whole flow counts)", argument="--mix")
    return {k: v / total for k, v in items.items() if v > 0}


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
    capacity=DEFAULTS["capacity"],
    rtt=DEFAULTS["rtt"],
    flows=DEFAULTS["flows"],
    packet_size=DEFAULTS["packet_size"],
    input_capacity=None,
    gamma=None,
    mix=None,
    short_flows=None,
    short_load=None,
    max_window=None,
    paced: bool = False,
    target_utilization=DEFAULTS["target_utilization"],
    max_loss=None,
    max_delay=None,
    optimize_for=None,
) -> LinkInput:
    """Validate and convert the user's input (unit strings or SI numbers) into a :class:`LinkInput`."""
    packet_bytes = units.parse_size(packet_size, argument="--packet-size")
    if packet_bytes < 40:
        raise BufsizeError(f"{packet_size!r} is smaller than a TCP/IP header (40 B)", argument="--packet-size")
    capacity_bps = units.parse_rate(capacity, argument="--capacity")

    rtts = units.parse_time_list(rtt, argument="--rtt")
    if isinstance(rtts, tuple):
        lo, hi = rtts
        rtt_mean, rtt_min, rtt_max = (lo + hi) / 2.0, lo, hi
    else:
        rtt_mean, rtt_min, rtt_max = sum(rtts) / len(rtts), min(rtts), max(rtts)

    n = None if flows is None else units.parse_count(flows, argument="--flows")

    cin = None if input_capacity is None else units.parse_rate(input_capacity, argument="--input-capacity")
    g = None
    if gamma is not None:
        q = units.parse_quantity(gamma, argument="--gamma")
        if q.dimension != "number" or not math.isfinite(q.value) or q.value <= 0:
            raise BufsizeError(f"{gamma!r} must be a positive number (Γ = Cout/Cin)", argument="--gamma")
        g = q.value
    if cin is not None and g is not None:
        implied = capacity_bps / cin
        if not math.isclose(implied, g, rel_tol=1e-6):
            raise BufsizeError(f"--input-capacity gives Γ = {implied:g}, which contradicts Γ = {g:g}",
                               argument="--gamma")
    if cin is not None:
        g = capacity_bps / cin
    elif g is not None:
        cin = capacity_bps / g

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

    return LinkInput(
        capacity_bps=capacity_bps, rtt_s=rtt_mean, rtt_min_s=rtt_min, rtt_max_s=rtt_max, flows=n,
        packet_bytes=packet_bytes, input_capacity_bps=cin, gamma=g, mix=mix_d,
        short_lengths=None if sf is None else sf[0], short_weights=None if sf is None else sf[1],
        short_load=s_load, max_window_packets=wmax, paced=bool(paced), target_utilization=target,
        max_loss=loss, max_delay_s=delay, optimize_for=opt,
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


@dataclass
class Recommendation:
    """The result of :func:`recommend`: every model, and one recommended size with its reasons."""

    input: LinkInput
    models: list[ModelRow]
    recommended: dict[str, Any]
    predicted: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict (infinite or missing sizes are ``None``)."""
        inp = asdict(self.input)
        inp["bdp_packets"] = self.input.bdp_packets
        inp["capacity_pps"] = self.input.capacity_pps
        return json_safe({
            "input": inp,
            "bdp_packets": self.input.bdp_packets,
            "bdp_bytes": self.input.bdp_packets * self.input.packet_bytes,
            "models": [asdict(m) for m in self.models],
            "recommended": self.recommended,
            "predicted": self.predicted,
        })

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def model(self, model_id: str) -> ModelRow:
        for m in self.models:
            if m.id == model_id:
                return m
        raise KeyError(model_id)


def _fill(row: ModelRow, inp: LinkInput) -> ModelRow:
    b = row.buffer_packets
    if b is not None and math.isfinite(b):
        row.buffer_bytes = b * inp.packet_bytes
        row.queueing_delay_s = b * inp.packet_bytes * 8.0 / inp.capacity_bps
    elif b is not None:
        row.buffer_bytes = math.inf
        row.queueing_delay_s = math.inf
    return row


# --------------------------------------------------------------------------- the models, one adapter each

def _desync_reason(inp: LinkInput) -> tuple[bool, str]:
    n = inp.flows
    if n is None or n == 0:
        return False, "needs the number of long-lived flows (--flows)"
    if inp.gamma is not None and inp.gamma > 1:
        return False, (f"Γ = {inp.gamma:g} > 1: slower input links space the packets, so loss falls "
                       "exponentially with B and a few dozen packets suffice (000 §VI-B); 004 assumes "
                       "access links faster than the bottleneck")
    if n < DESYNC_MIN_FLOWS:
        return False, f"n = {n} is below ~{DESYNC_MIN_FLOWS}: flows may synchronize (004 §3.1), use RTT·C"
    wbar = (inp.bdp_packets) / n
    if wbar < 2:
        return False, (f"mean window {wbar:.2g} packets < 2: timeouts dominate and more buffer is "
                       "needed than the √n rule gives (004 §3.2)")
    return True, f"n = {n} ≥ {DESYNC_MIN_FLOWS} long flows desynchronize; the CLT gives a Gaussian Σcwnd"


def _rows_appenzeller(inp: LinkInput) -> list[ModelRow]:
    from bufsize.models import appenzeller as A

    rows = []
    bdp = inp.bdp_packets
    n = inp.flows
    sync_ok = n is not None and 0 < n < DESYNC_MIN_FLOWS and not (inp.gamma is not None and inp.gamma > 1)
    rows.append(ModelRow(
        "004-rule-of-thumb", "004", "§2 (A1), eq. (3)", "Rule of thumb B = RTT·C",
        applies=sync_ok or n == 1,
        reason=("one flow or synchronized flows need a full BDP to keep the link busy after a loss"
                if (sync_ok or n == 1) else
                ("desynchronized flows need only RTT·C/√n (004 §3.2): the rule of thumb over-provisions"
                 if n else "reference value: the classic rule of thumb")),
        buffer_packets=A.rule_of_thumb(inp.rtt_s, inp.capacity_pps), goal="utilization"))
    ok, why = _desync_reason(inp)
    if n:
        rows.append(ModelRow(
            "004-sqrt-n", "004", "§3.2 (A3)", "Desynchronized flows B = RTT·C/√n",
            applies=ok, reason=why, buffer_packets=A.sqrt_n_rule(inp.rtt_s, inp.capacity_pps, n),
            goal="utilization"))
        b = A.buffer_for_utilization(inp.target_utilization, bdp, n)
        rows.append(ModelRow(
            "004-erf", "004", "eq. (6) inverted", f"Gaussian bound: utilization ≥ {inp.target_utilization:.4g}",
            applies=ok and math.isfinite(b),
            reason=why if math.isfinite(b) else "no finite buffer reaches this target with so few flows",
            buffer_packets=b, goal="utilization"))
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
    return rows


def _row_jain(inp: LinkInput) -> ModelRow | None:
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
    sync = n < DESYNC_MIN_FLOWS and not (inp.gamma is not None and inp.gamma > 1)
    if sync:
        reason = (f"n = {n} < ~{DESYNC_MIN_FLOWS}: flows may synchronize and act like one Reno flow "
                  "(004 §3.1); eq. (17) gives its utilization through an under-buffered router")
    elif inp.gamma is not None and inp.gamma > 1:
        reason = f"Γ = {inp.gamma:g} > 1: slow inputs desynchronize the flows"
    else:
        reason = f"n = {n} flows desynchronize; the single-flow sawtooth is a pessimistic bound here"
    return ModelRow("001-single-flow", "001", "eq. (17) inverted",
                    f"One Reno flow (or synchronized flows): utilization ≥ {target:.4g}",
                    applies=sync, reason=reason, buffer_packets=b, goal="utilization",
                    details={"utilization_at_zero_buffer": util(0.0)})


def _rows_enachescu(inp: LinkInput) -> list[ModelRow]:
    from bufsize.models import enachescu as E

    if inp.max_window_packets is None:
        return [ModelRow("002-theorem1", "002", "Theorem 1, eq. (1)", "Paced TCP: B ≥ log_{1/ρ}(Wmax²/(2(1−θ)))",
                         applies=False, reason="needs the maximum window (--max-window) and the number of flows",
                         buffer_packets=None, goal="utilization")]
    if not inp.flows:
        return [ModelRow("002-theorem1", "002", "Theorem 1, eq. (1)", "Paced TCP: B ≥ log_{1/ρ}(Wmax²/(2(1−θ)))",
                         applies=False, reason="needs the number of long-lived flows (--flows)",
                         buffer_packets=None, goal="utilization")]
    wmax = inp.max_window_packets
    # peak offered load of n window-limited flows at the smallest RTT: the worst case
    rho = inp.flows * wmax / (inp.rtt_min_s * inp.capacity_pps)
    spaced = inp.paced or (inp.gamma is not None and inp.gamma > 1)
    if rho >= 1:
        return [ModelRow("002-theorem1", "002", "Theorem 1, eq. (1)", "Paced TCP: B ≥ log_{1/ρ}(Wmax²/(2(1−θ)))",
                         applies=False,
                         reason=(f"the link is not over-provisioned: n·Wmax/RTT = {rho:.3g}·C ≥ C "
                                 "(Theorem 1 needs ρ < 1)"),
                         buffer_packets=None, goal="utilization", details={"rho": rho})]
    b = E.theorem1_buffer(wmax, rho, inp.target_utilization)
    return [ModelRow(
        "002-theorem1", "002", "Theorem 1, eq. (1)", "Paced TCP: B ≥ log_{1/ρ}(Wmax²/(2(1−θ)))",
        applies=spaced,
        reason=(f"over-provisioned (ρ = {rho:.3g}) and "
                + ("paced senders" if inp.paced else f"slow access links (Γ = {inp.gamma:g}) space the packets")
                + "; θ is the fraction of the peak load ρC achieved")
        if spaced else "needs paced TCP (--paced) or access links slower than the bottleneck (Γ > 1)",
        buffer_packets=b, goal="utilization", details={"rho": rho, "theta": inp.target_utilization})]


def _het_mix(inp: LinkInput) -> dict[str, float]:
    return inp.mix if inp.mix is not None else {"reno": 1.0}


def _rows_heterogeneous(inp: LinkInput) -> tuple[list[ModelRow], dict[str, Any] | None]:
    from bufsize.models import heterogeneous as H

    n = inp.flows
    if not n:
        return [], None
    mix = _het_mix(inp)
    mix_txt = ", ".join(f"{k} {v:.0%}" for k, v in mix.items())
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
    ok, why = _desync_reason(inp)
    rows = [ModelRow(
        "003-utilization", "003", "eqs. (7)–(9)", f"Heterogeneous TCP ({mix_txt}): P(full link) ≥ {inp.target_utilization:.4g}",
        applies=ok and math.isfinite(res["utilization_buffer_packets"]),
        reason=(why + f"; mix characteristic value a = {res['a']:.4g}") if ok else why,
        buffer_packets=res["utilization_buffer_packets"], goal="utilization", details={"a": res["a"]})]
    if inp.max_loss is not None:
        rows.append(ModelRow(
            "003-drop", "003", "eq. (14)", f"Utilization and drop rate ≤ {inp.max_loss:g} (probability 0.99)",
            applies=ok and math.isfinite(res["drop_buffer_packets"]),
            reason=why, buffer_packets=res["drop_buffer_packets"], goal="loss",
            details={"min_flows_for_any_buffer": res.get("min_flows_drop_free")}))
    return rows, res


def _rows_prasad(inp: LinkInput) -> list[ModelRow]:
    from bufsize.models import prasad as P

    rows = []
    g = inp.gamma
    To = inp.rtt_s
    if g is None:
        for mode in ("S", "L"):
            rows.append(ModelRow(f"000-{mode}", "000", "eqs. (11)/(13)",
                                 f"Optimal buffer for {mode}-model flows",
                                 applies=False, reason="needs the input capacity (--input-capacity) or Γ (--gamma)",
                                 buffer_packets=None, goal="throughput"))
        return rows
    if g > 1:
        rule = P.operator_rule(g, "L")
        rows.append(ModelRow(
            "000-operator", "000", "§VII-C", "Γ > 1: a few dozen packets",
            applies=True,
            reason=(f"Γ = {g:g} > 1: many lightly loaded inputs give exponentially falling loss (EX form); "
                    f"the paper recommends {rule.low:g}–{rule.high:g} packets, independent of the BDP"),
            buffer_packets=rule.high, goal="utilization"))
        # The EX-form analysis (eqs. (15)–(18)) needs fitted a, b, f, which the paper does not print;
        # it puts the optimum at 0 because it ignores packet bursts. Table II's simulations give
        # 20 ± 2 packets for S flows and 30 ± 2 for L flows: we report those.
        for mode, b_sim in (("S", 20.0), ("L", 30.0)):
            rows.append(ModelRow(
                f"000-{mode}", "000", "Table II (EX, simulation)",
                f"Optimal buffer for {mode}-model flows (EX form)",
                applies=True,
                reason=(f"Γ = {g:g} > 1: the EX-form analysis puts the optimum at 0 (it ignores TCP bursts); "
                        f"the paper's simulations find {b_sim:g} ± 2 packets for "
                        f"{'slow-start' if mode == 'S' else 'congestion-avoidance'} flows")
                + ("" if inp.optimize_for == mode else " (not the selected goal)"),
                buffer_packets=b_sim, goal="throughput", details={"form": "ex"}))
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
                     else "congestion-avoidance flows"))
        rows.append(ModelRow(
            f"000-{mode}", "000", "eq. (13)" if mode == "S" else "eq. (11)",
            f"Optimal buffer for {mode}-model flows (PL form)",
            applies=True, reason=reason + ("" if inp.optimize_for == mode else " (not the selected goal)"),
            buffer_packets=b, goal="throughput",
            details={"form": "pl", "flow_size_bytes": s_bytes if mode == "S" else None}))
    return rows


# --------------------------------------------------------------------------- recommend

def recommend(**kwargs) -> Recommendation:
    """Evaluate every model for one link and return a :class:`Recommendation`.

    Keyword arguments (unit strings such as ``"155Mbps"`` or SI numbers): ``capacity``, ``rtt``
    (``"80ms"``, ``"20ms..140ms"`` or ``"30ms,50ms"``), ``flows``, ``packet_size``,
    ``input_capacity`` or ``gamma`` (Γ = C/Cin), ``mix`` (``"reno=0.2,bic=0.2,cubic=0.4,ctcp=0.2"``
    or a dict), ``short_flows`` (``"14pkt"`` or ``"2pkt:0.3,14pkt:0.7"``) with ``short_load``,
    ``max_window``, ``paced``, ``target_utilization``, ``max_loss``, ``max_delay``,
    ``optimize_for`` (``"S"`` or ``"L"``). Unset arguments take :data:`DEFAULTS`.

    Raises :class:`bufsize.errors.BufsizeError` (a ``ValueError``) with a one-line message naming
    the argument for any invalid input.
    """
    inp = parse_input(**kwargs)
    rows: list[ModelRow] = []
    rows += _rows_appenzeller(inp)
    j = _row_jain(inp)
    if j is not None:
        rows.append(j)
    rows += _rows_enachescu(inp)
    het_rows, het = _rows_heterogeneous(inp)
    rows += het_rows
    rows += _rows_prasad(inp)
    if inp.max_delay_s is not None:
        rows.append(ModelRow(
            "003-delay", "003", "§VI, B ≤ C·λ", f"Queueing-delay limit λ = {units.format_time(inp.max_delay_s)}",
            applies=True, reason="an upper limit: a full buffer drains in at most λ",
            buffer_packets=inp.max_delay_s * inp.capacity_pps, goal="delay"))
    for r in rows:
        _fill(r, inp)

    recommended, predicted = _choose(inp, rows, het)
    return Recommendation(inp, rows, recommended, predicted)


def _choose(inp: LinkInput, rows: list[ModelRow], het: dict[str, Any] | None) -> tuple[dict, dict]:
    by_id = {r.id: r for r in rows}
    reasons: list[str] = []
    candidates: list[ModelRow] = []

    # 1. utilization (or per-flow throughput when asked for)
    if inp.optimize_for is not None:
        r = by_id[f"000-{inp.optimize_for}"]
        candidates.append(r)
        reasons.append(f"per-flow throughput of {inp.optimize_for}-model flows is the goal: {r.id} "
                       f"({r.equation}) gives {r.buffer_packets:.4g} packets")
    else:
        util_rows = [r for r in rows if r.goal == "utilization" and r.applies and r.buffer_packets is not None
                     and math.isfinite(r.buffer_packets) and r.id != "004-rule-of-thumb" and r.id != "004-sqrt-n"]
        if inp.gamma is not None and inp.gamma > 1:
            spaced = [r for r in util_rows if r.id in ("000-operator", "002-theorem1")]
            util_rows = spaced or util_rows
        fallback = False
        if not util_rows and inp.flows:
            util_rows = [by_id["004-rule-of-thumb"]]
            fallback = True
        if fallback:
            candidates.append(util_rows[0])
            reasons.append("no utilization model's assumptions hold for this input (see the table): "
                           f"falling back to the rule of thumb RTT·C = {util_rows[0].buffer_packets:.4g} packets")
        elif util_rows:
            best = max(util_rows, key=lambda r: r.buffer_packets)
            candidates.append(best)
            others = [f"{r.id} {r.buffer_packets:.4g}" for r in util_rows if r is not best]
            reasons.append(f"utilization ≥ {inp.target_utilization:.4g}: {best.id} ({best.equation}) needs "
                           f"{best.buffer_packets:.4g} packets" + (f" (also applicable: {', '.join(others)})" if others else ""))
    # 2. loss
    if "003-drop" in by_id and by_id["003-drop"].applies:
        r = by_id["003-drop"]
        candidates.append(r)
        reasons.append(f"drop rate ≤ {inp.max_loss:g}: 003 eq. (14) needs {r.buffer_packets:.4g} packets")
    elif inp.max_loss is not None and "003-drop" in by_id:
        reasons.append(f"loss goal {inp.max_loss:g}: 003 eq. (14) does not apply ({by_id['003-drop'].reason})")
    # 3. short flows
    if "004-short-flows" in by_id:
        r = by_id["004-short-flows"]
        candidates.append(r)
        reasons.append(f"short-flow bursts: 004 §4 needs {r.buffer_packets:.4g} packets for "
                       f"P(Q ≥ B) = {r.details['overflow_probability']:g}")

    if not candidates:
        raise BufsizeError("no model applies to this input: give --flows, or short flows with --short-load",
                           argument="--flows")
    chosen = max(candidates, key=lambda r: r.buffer_packets)
    b = chosen.buffer_packets
    chosen_id = chosen.id
    if len(candidates) > 1:
        reasons.append(f"the largest of the goal sizes wins: {chosen.id}")

    # 4. delay cap and the 003 compromise
    compromise = None
    if inp.max_delay_s is not None:
        cap = inp.max_delay_s * inp.capacity_pps
        if cap < b:
            compromise = {"delay_cap_packets": cap, "wanted_packets": b}
            txt = (f"the delay goal {units.format_time(inp.max_delay_s)} caps the buffer at C·λ = {cap:.4g} packets, "
                   f"below the {b:.4g} the other goals need: a compromise")
            if het is not None and het.get("compromise"):
                c = het["compromise"]
                compromise.update(c)
                if c.get("q") is not None:
                    txt += (f"; 003 eq. (18): the full-utilization guarantee falls from "
                            f"{inp.target_utilization:.3g} to q = {c['q']:.3g}")
                if c.get("drop_rate_increase") is not None:
                    txt += f"; eq. (19): drop rate rises by ≥ {c['drop_rate_increase']:.3g}"
            reasons.append(txt)
            b = cap
            chosen_id = "003-delay"
        else:
            reasons.append(f"the delay goal allows up to {cap:.4g} packets: met")

    predicted: dict[str, Any] = {}
    from bufsize.models import appenzeller as A
    from bufsize.models import jain as J

    if inp.flows:
        spaced = inp.gamma is not None and inp.gamma > 1
        if inp.flows >= DESYNC_MIN_FLOWS and not spaced:
            predicted["utilization_004_eq6"] = A.utilization_lower_bound(b, inp.bdp_packets, inp.flows)
        elif not spaced:
            predicted["utilization_001_eq17_single_flow"] = J.reno_single_flow_utilization(inp.bdp_packets, b)
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
