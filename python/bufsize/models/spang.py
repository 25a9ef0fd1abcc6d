"""Buffer rules for today's TCP — beyond the five papers.

Source of the claims: Spang, Arslan, McKeown, "Updating the theory of buffer sizing",
Performance Evaluation 2021 (arXiv 2109.11693): the single-flow rule generalizes to a control's
multiplicative decrease β (Reno needs one BDP, CUBIC about 0.43), BBR's requirement follows
from its probing gain instead, and the √n rule still holds for desynchronized CUBIC and BBR
flows. The derivations and the √n constants for each control are written out in
docs/recommend_modern.md and are ours (in the style of paper 004's §3.2); none of this is in the
five papers of MODELS.md, and `recommend` labels it as such.

Units: buffers and bandwidth-delay products in **packets**; ``beta`` and gains are plain
factors. Approximations (each function says which it makes): fluid windows, drop-tail overflow
exactly when the in-flight data reaches BDP + B, a uniform sawtooth for the loss-based windows
in the √n rule, a three-level gain cycle for BBR, independent flows.

=============================  ==========================================  ==================================
function                       rule                                        when it applies
=============================  ==========================================  ==================================
decrease_factor                β of a control (Reno 0.5, CUBIC 0.7, ...)   loss-based controls
mix_decrease_factor            flow-weighted β of a mix's loss-based flows  in-phase loss-based flows
single_flow_buffer             B = (1 − β)/β × BDP                         one loss-based flow (or in phase)
single_flow_utilization        min(1, (BDP + B)·(1 + β)/2 / BDP ...)       one flow, fluid sawtooth, B < rule
bbr_buffer                     B = (g − 1) × BDP (+ allowance)             one BBR v1 flow: no loss while probing
linux_bbr_allowance            3 × TSO goal + 2 (Linux tcp_bbr.c)          the allowance above, for Linux
bbr_mix_buffer                 (g − 1)·(k/n)·BDP + k × allowance(C/n)      k BBR flows of n, probes in phase
bbr_probe_loss_rate            overflow of each probe / 8 BDP              one BBR v1 flow below bbr_buffer
window_variation               σ/mean of one flow's window or inflight     per control (uniform sawtooth / BBR cycle)
sqrt_n_buffer                  B = BDP/N × √(Σ n_c (r_c / r_Reno)²)        N desynchronized flows, any mix
=============================  ==========================================  ==================================
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from bufsize.errors import BufsizeError
from bufsize.models._check import count, nonneg, positive

#: The short label of these rules in ``recommend``'s table.
LABEL = "beyond the five papers"
#: Who the rules are from, in a few words (``SOURCE`` is the full reference).
SHORT_SOURCE = "Spang, Arslan, McKeown 2021"

SOURCE = ("Spang, Arslan, McKeown, 'Updating the theory of buffer sizing', Performance Evaluation "
          "2021 (arXiv 2109.11693) — beyond the five papers")

#: Multiplicative decrease (window after a loss / window before) of the engine's loss-based
#: controls: Reno and NewReno halve (RFC 5681); CUBIC keeps 0.7 (RFC 9438, Linux ≥ 2.6.26);
#: Linux ≤ 2.6.25 CUBIC 0.8; BIC 819/1024 (Linux tcp_bic.c); Compound TCP's loss window halves.
DECREASE = {
    "reno": 0.5,
    "newreno": 0.5,
    "newreno-paced": 0.5,
    "paced": 0.5,
    "poisson-paced": 0.5,
    "ctcp": 0.5,
    "cubic": 0.7,
    "cubic-0.8": 0.8,
    "bic": 819.0 / 1024.0,
}

#: BBR v1's probing pacing gain (Linux tcp_bbr.c: 5/4 for one round in eight).
BBR_PROBE_GAIN = 1.25
#: BBR v1's gain cycle: 5/4, 3/4 and six phases at 1, each about one round trip.
BBR_CYCLE = (1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)

_MODEL_BASED = ("bbr",)


def decrease_factor(cc: str) -> float:
    """β of a loss-based congestion control (the window kept after a loss, as a fraction).

    Raises BufsizeError for BBR (it has no multiplicative decrease: use :func:`bbr_buffer`) and
    for names it does not know.
    """
    if not isinstance(cc, str):
        raise BufsizeError(f"must be a congestion-control name, got {cc!r}", argument="cc")
    key = cc.strip().lower()
    if key in _MODEL_BASED:
        raise BufsizeError("bbr has no multiplicative decrease; use bbr_buffer()", argument="cc")
    if key not in DECREASE:
        raise BufsizeError(f"unknown congestion control {cc!r} (known: {', '.join(sorted(DECREASE))}, bbr)",
                           argument="cc")
    return DECREASE[key]


def mix_decrease_factor(mix: Mapping[str, float]) -> float:
    """β of in-phase loss-based flows of several controls: the flow-weighted mean of their β.

    ``mix``: {control: flows or fraction}; BBR classes are left out (they do not cut their window
    on loss). If all flows lose in the same round trip and hold equal windows W, the aggregate
    after the losses is Σ_c n_c β_c W = β̄ × (the aggregate before), β̄ = Σ n_c β_c / Σ n_c, so
    :func:`single_flow_buffer` with β̄ keeps the link busy through a synchronized cut. Equal
    windows are an approximation (CUBIC holds larger windows than Reno at the same RTT).
    Raises BufsizeError when the mix has no loss-based flow.
    """
    if not isinstance(mix, Mapping) or not mix:
        raise BufsizeError("needs at least one class of flows", argument="mix")
    total, weighted = 0.0, 0.0
    for name, n in mix.items():
        w = nonneg(n, f"mix[{name}]")
        if isinstance(name, str) and name.strip().lower() in _MODEL_BASED:
            continue
        weighted += w * decrease_factor(name)
        total += w
    if total <= 0.0:
        raise BufsizeError("the mix has no loss-based flows (BBR only): use bbr_buffer()", argument="mix")
    return weighted / total


def _beta(beta: object) -> float:
    b = positive(beta, "beta")
    if b >= 1.0:
        raise BufsizeError(f"must be below 1, got {b!r}", argument="beta")
    return b


def single_flow_buffer(bdp_packets: float, beta: float = 0.5) -> float:
    """Buffer (packets) one loss-based flow with multiplicative decrease ``beta`` needs to keep
    the link busy: B = (1 − β)/β × BDP.

    Derivation (docs/recommend_modern.md §1): drop-tail loses when the window reaches BDP + B;
    the control then keeps β(BDP + B), and the link stays busy iff that is ≥ BDP. With PRR the
    window falls to the same ssthresh gradually, so the condition is the same. Reno (β = 0.5):
    1 × BDP (paper 001's rule of thumb); CUBIC (β = 0.7): 0.43 × BDP; BIC: 0.25 × BDP.
    Approximation: fluid window, loss exactly at BDP + B, one loss event per overflow.
    """
    bdp = nonneg(bdp_packets, "bdp_packets")
    b = _beta(beta)
    return (1.0 - b) / b * bdp


def single_flow_utilization(bdp_packets: float, buffer_packets: float, beta: float = 0.5) -> float:
    """Utilization of one loss-based flow with decrease ``beta`` and a buffer below its rule.

    Fluid model with a linear (Reno-like) increase: the window ramps from β(BDP + B) to BDP + B;
    the link is busy while the window is ≥ BDP and carries W/BDP below it. The fraction of the
    ramp below BDP is (BDP − β(BDP + B)) / ((1 − β)(BDP + B)); for β = 0.5 this is paper 001's
    eq. (17) without its RTT weighting (the time per window step grows with the queue), so it
    slightly underestimates for Reno and is a rough guide for CUBIC, whose ramp is not linear.
    Returns 1 when B ≥ :func:`single_flow_buffer`.
    """
    bdp = positive(bdp_packets, "bdp_packets")
    buf = nonneg(buffer_packets, "buffer_packets")
    b = _beta(beta)
    top = bdp + buf
    low = b * top
    if low >= bdp:
        return 1.0
    # Time is proportional to window change (linear increase): average carried fraction.
    span = top - low
    below = bdp - low  # ramp segment where the link is not full
    carried_below = (low + bdp) / 2.0 / bdp * below
    return (carried_below + (span - below)) / span


def bbr_buffer(bdp_packets: float, probe_gain: float = BBR_PROBE_GAIN, allowance_packets: float = 0.0) -> float:
    """Buffer (packets) one BBR v1 flow needs so that its bandwidth probes lose nothing:
    B = (g − 1) × BDP + allowance.

    Derivation (docs/recommend_modern.md §2): BBR keeps about one BDP in flight and, for one
    round in eight, paces at g = 5/4 of the bottleneck rate; that round adds (g − 1) × BDP to
    the queue before the 3/4 round drains it. Below this BBR still keeps the link busy (it does
    not back off on loss) but drops about ((g − 1)·BDP − B) per cycle of 8 rounds, i.e. a loss
    rate of ((g − 1)·BDP − B) / (8·BDP). ``allowance_packets``: what Linux adds to BBR's window on
    top (3 × its TSO goal, i.e. 3 ms of data at the pacing rate above 1.2 Mb/s, + 2 in the probe
    round), which the probe can also put in the queue; 0 gives the paper-style rule.
    """
    bdp = nonneg(bdp_packets, "bdp_packets")
    g = positive(probe_gain, "probe_gain")
    if g < 1.0:
        raise BufsizeError(f"must be at least 1, got {g!r}", argument="probe_gain")
    return (g - 1.0) * bdp + nonneg(allowance_packets, "allowance_packets")


def linux_bbr_allowance(rate_bps: float, mss_bytes: float = 1448.0, probe_gain: float = BBR_PROBE_GAIN) -> float:
    """Packets Linux's BBR adds to its in-flight target in the probe round, which the probe
    also puts in the queue: 3 × the TSO goal (the data of 1/1024 s at the pacing rate
    g × rate, in whole segments, at least 2 above 1.2 Mb/s, at most 127) + 2 (tcp_bbr.c's
    quantization budget). ``rate_bps``: the flow's bottleneck share, bit/s."""
    rate = positive(rate_bps, "rate_bps")
    mss = positive(mss_bytes, "mss_bytes")
    g = positive(probe_gain, "probe_gain")
    pacing_bytes = g * rate / 8.0 * 0.99
    floor_segs = 1.0 if pacing_bytes < 1.2e6 / 8.0 else 2.0
    segs = min(max(math.floor(min(pacing_bytes / 1024.0, 65_215.0) / mss), floor_segs), 127.0)
    return 3.0 * segs + 2.0


def bbr_mix_buffer(bdp_packets: float, bbr_flows: int, total_flows: int, rate_bps: float,
                   mss_bytes: float = 1448.0, probe_gain: float = BBR_PROBE_GAIN) -> float:
    """Buffer (packets) that lets ``bbr_flows`` BBR v1 flows, out of ``total_flows`` flows with
    equal shares of a link of ``rate_bps``, probe in the same round without loss:
    B = (g − 1)·(k/n)·BDP + k × :func:`linux_bbr_allowance` (C/n).

    Each BBR flow holding C/n adds (g − 1)·BDP/n in its probe round, plus Linux's allowance at
    its own rate; probes in phase add up. For one BBR flow alone (k = n = 1) this is
    :func:`bbr_buffer` with :func:`linux_bbr_allowance` at C. Approximations: equal shares (BBR
    v1's share against loss-based flows depends on the buffer), and it does not cover what
    several BBR v1 flows do together: each one's bandwidth estimate includes the others' probes,
    so together they can keep up to 2 BDP in flight (docs/recommend_modern.md §2).
    """
    bdp = nonneg(bdp_packets, "bdp_packets")
    k = count(bbr_flows, "bbr_flows")
    n = count(total_flows, "total_flows")
    if k > n:
        raise BufsizeError(f"must be at most total_flows = {n}, got {k}", argument="bbr_flows")
    share = positive(rate_bps, "rate_bps") / n
    return bbr_buffer(bdp * k / n, probe_gain) + k * linux_bbr_allowance(share, mss_bytes, probe_gain)


def bbr_probe_loss_rate(bdp_packets: float, buffer_packets: float, probe_gain: float = BBR_PROBE_GAIN,
                        allowance_packets: float = 0.0) -> float:
    """Loss rate of one BBR v1 flow whose buffer is below :func:`bbr_buffer`: the probe's excess
    that does not fit, once per 8-round cycle, over the 8 BDPs the cycle sends."""
    bdp = positive(bdp_packets, "bdp_packets")
    need = bbr_buffer(bdp, probe_gain, allowance_packets)
    excess = max(0.0, need - nonneg(buffer_packets, "buffer_packets"))
    return excess / (len(BBR_CYCLE) * bdp)


def window_variation(cc: str) -> float:
    """σ/mean of one flow's window over time (its in-flight data for BBR).

    Loss-based, uniform sawtooth between βŴ and Ŵ: (1 − β)/((1 + β)√3) (Reno 0.192, CUBIC 0.102 —
    an upper bound for CUBIC, whose window dwells near its plateau). BBR v1: its inflight follows
    the gain cycle (5/4 and 3/4 for one round each, 1 for six): √((0.25² + 0.25²)/8) = 0.125.
    """
    if isinstance(cc, str) and cc.strip().lower() in _MODEL_BASED:
        mean = sum(BBR_CYCLE) / len(BBR_CYCLE)
        return math.sqrt(sum((g - mean) ** 2 for g in BBR_CYCLE) / len(BBR_CYCLE))
    b = decrease_factor(cc)
    return (1.0 - b) / ((1.0 + b) * math.sqrt(3.0))


def sqrt_n_buffer(bdp_packets: float, mix: Mapping[str, int] | int, cc: str = "reno") -> float:
    """Buffer (packets) for N desynchronized long flows: the √n rule for any mix of controls,
    B = BDP/N × √(Σ_c n_c (r_c / r_Reno)²), r = :func:`window_variation`.

    ``mix``: {control: flows}, or a number of flows all using ``cc``. For N Reno flows this is
    paper 004's BDP/√N; N CUBIC flows need 0.53 × BDP/√N, N BBR flows 0.65 × BDP/√N.
    Derivation (docs/recommend_modern.md §3): each flow carries about BDP/N; the sum of N
    independent windows has σ = BDP/N × √(Σ r_i²) (CLT); paper 004 sizes the buffer as a fixed
    multiple of that σ, the multiple fixed by its Reno result (1/r_Reno = 3√3).
    Approximations: independent (desynchronized) flows and equal shares — the rule does not hold
    for unfair mixes (Spang et al. §5); BBR v1 flows competing with loss-based flows take a share
    that itself depends on the buffer (docs/congestion_control.md).
    """
    bdp = nonneg(bdp_packets, "bdp_packets")
    if isinstance(mix, Mapping):
        if not mix:
            raise BufsizeError("needs at least one class of flows", argument="mix")
        classes = {name: count(n, f"mix[{name}]", minimum=0) for name, n in mix.items()}
    else:
        classes = {cc: count(mix, "mix")}
    total = sum(classes.values())
    if total < 1:
        raise BufsizeError("needs at least one flow", argument="mix")
    r_reno = window_variation("reno")
    s = sum(n * (window_variation(name) / r_reno) ** 2 for name, n in classes.items())
    return bdp / total * math.sqrt(s)
