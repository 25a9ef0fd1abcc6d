"""Paper 002 — Enachescu, Ganjali, Goel, McKeown, Roughgarden, "Routers with very small buffers".

If the traffic reaching a router is smooth (Poisson-like, or paced by TCP senders or by slow
access links), a buffer of O(log Wmax) packets keeps the link busy, independently of capacity,
number of flows and RTT. Restated in MODELS.md §3.

Symbols and units in this module:

- ``w_max``: maximum TCP window, **packets**; ``n_flows``: number of long-lived flows;
- ``rtt_s`` / ``tau_s``: round-trip time, seconds; ``capacity_pps``: bottleneck, **packets/s**;
- ``rho`` in Theorem 1 and Lemma 3 is the **peak load** N·Wmax/(C·RTT) (the link is
  over-provisioned by 1/ρ); in §IV-A, ρ is the achieved **utilization** and the peak load is
  passed separately as ``peak_load``;
- ``theta``: effective utilization = achieved throughput / (ρ·C);
- buffers in **packets**; probabilities and loads are plain fractions.

What is proved and what is not: Theorem 1 is a theorem for Poisson-paced AIMD sources (a
worst-case bound with explicit constants). Theorem 2 (paced sources) is asymptotic with
unspecified constants, so it is offered here only as a Monte-Carlo of its discrete-time model.
The §IV-A fixed point (TCP equation + M/M/1/B) is a heuristic the paper itself calls an open
problem; it gives the scaling, not guarantees. The two Monte-Carlo functions simulate the
papers' idealised models (fixed or Poisson-paced windows, not full TCP) to check the bounds: in
the tests Theorem 1's bound holds with a wide margin (θ ≈ 0.99 where it promises 0.5).

Model table (function — equation — when it applies):

=============================  ===============================  ==============================================
function                       equation                         when it applies
=============================  ===============================  ==============================================
theorem1_buffer                Thm 1, eq. (1) = (16)            Poisson-paced AIMD, over-provisioned (ρ < 1)
theorem1_utilization           inverse, from eq. (15)           same; lower bound on θ for a given buffer
mm1_drop_probability           §II intuition, Lemma 2           Poisson arrivals: drop ≈ (≤ for M/D/1) ρ^B
mm1b_loss_probability          §IV-A, eq. (3) [R]               M/M/1/B queue, B packets
tcp_throughput_pps             §IV-A, eq. (2)                   per-flow TCP rate vs loss (square-root law)
tcp_mm1b_utilization           §IV-A, eqs. (2)+(3) fixed point  any provisioning; heuristic scaling only
logarithmic_buffer             §IV-A, Fig. 6                    B = β·log Wmax buffers
peak_rate_pps / peak_load      §I, §II                          N·Wmax/RTT and its ratio to C
capacity_for_peak_load         §IV (Fig. 3)                     C giving a chosen peak load
effective_utilization          §II definition                   throughput / peak throughput
chernoff_bound                 App. II (Lemma 3's bound)        sums of independent indicators
lemma3_chernoff_bound          App. II, Lemma 3                 overpopulation of an interval l ≤ S
chernoff_multiplicative_bound  App. II, Lemmas 4, 5 [R]         same family, multiplicative form
theorem1_monte_carlo           App. I model, simulated          Poisson-paced AIMD into a drop-tail FIFO
theorem2_monte_carlo           App. II discrete-time model      paced (or Poisson) arrivals, one RTT of slots
=============================  ===============================  ==============================================
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from bufsize.errors import BufsizeError
from bufsize.models._check import count, fraction, nonneg, positive


def _w_max(w_max: float) -> float:
    w = positive(w_max, "w_max")
    if w < 1.0:
        raise BufsizeError(f"must be >= 1 packet, got {w!r}", argument="w_max")
    return w


# ---------------------------------------------------------------------------------------------
# Theorem 1 (Poisson-paced AIMD, over-provisioned link)
# ---------------------------------------------------------------------------------------------


def theorem1_buffer(w_max: float, rho: float, theta: float, *, integer: bool = False) -> float:
    """Buffer (packets) that suffices for effective utilization ``theta`` — Theorem 1.

    Paper 002, eq. (1) = (16)::

        B ≥ log_{1/ρ}( Wmax² / (2(1 − θ)) )

    ``w_max`` maximum window in packets (≥ 1); ``rho`` in (0, 1) the peak load
    N·Wmax/(C·RTT) (link over-provisioned by 1/ρ); ``theta`` in (0, 1). Returns the real bound,
    or with ``integer=True`` the smallest whole number of packets meeting it (Wmax = 64, ρ = 0.5,
    θ = 0.9: 14.32 → 15). When Wmax² < 2(1 − θ) the bound is negative and 0 is returned (no
    buffer is needed). Assumes each flow emits Poisson traffic at rate W/RTT (so the aggregate is
    dominated by Poisson at rate N·Wmax/RTT), equal RTTs, a single drop-tail FIFO.
    """
    w = _w_max(w_max)
    rho = fraction(rho, "rho")
    theta = fraction(theta, "theta")
    b = math.log(w * w / (2.0 * (1.0 - theta))) / math.log(1.0 / rho)
    b = max(0.0, b)
    if integer:
        # guard against 14.000000000000002-style rounding pushing an exact integer up
        return float(math.ceil(b - 1e-9 * max(1.0, b)))
    return b


def theorem1_utilization(buffer_packets: float, w_max: float, rho: float) -> float:
    """Lower bound on the effective utilization θ with a buffer of B packets — Theorem 1 inverse.

    Paper 002, from eq. (15): θ ≥ 1 − Wmax²·ρ^B/2. Arguments as in :func:`theorem1_buffer`
    (``buffer_packets`` ≥ 0). When the right-hand side is negative the bound says nothing and
    0 is returned (a trivially true lower bound).
    """
    b = nonneg(buffer_packets, "buffer_packets")
    w = _w_max(w_max)
    rho = fraction(rho, "rho")
    return max(0.0, 1.0 - w * w * rho**b / 2.0)


def mm1_drop_probability(rho: float, buffer_packets: float) -> float:
    """ρ^B: the drop probability of a queue fed by Poisson traffic (paper 002, §II and Lemma 2).

    §II uses the M/M/1 tail P(Q ≥ B) = ρ^B as intuition (ρ = 0.75, B = 20 → 0.3 %); Lemma 2 proves
    ρ^B is an upper bound on the drop probability of the virtual M/D/1 system of Theorem 1's
    proof. ``rho`` load in (0, 1); ``buffer_packets`` ≥ 0.
    """
    rho = fraction(rho, "rho")
    b = nonneg(buffer_packets, "buffer_packets")
    return rho**b


def mm1b_loss_probability(rho: float, buffer_packets: float) -> float:
    """Loss probability of an M/M/1/B queue, a fraction (paper 002, §IV-A, eq. (3) [R]).

    p = (1 − ρ)·ρ^B / (1 − ρ^(B+1)), which the paper approximates by ρ^(B+1) (eq. (3) is garbled
    in the source text; this is the standard M/M/1/B formula its fragments show). ``rho`` is the
    offered load (> 0; values ≥ 1 are allowed, the queue is then overloaded), ``buffer_packets``
    the system capacity B ≥ 0 (real values are accepted and used in the closed form). At ρ = 1
    the limit 1/(B + 1) is returned.
    """
    rho = positive(rho, "rho")
    b = nonneg(buffer_packets, "buffer_packets")
    if rho == 1.0:
        return 1.0 / (b + 1.0)
    return math.exp(_log_mm1b_loss(math.log(rho), b))


def _log_mm1b_loss(lr: float, b: float) -> float:
    """log of the M/M/1/B loss from lr = ln ρ, stable for ρ → 0, ρ → 1 and large B."""
    rho = math.exp(lr)
    if lr < 0.0:
        # (1 − ρ)/(1 − ρ^(B+1)), both factors computed without cancellation
        return b * lr + math.log1p(-rho) - math.log(-math.expm1((b + 1.0) * lr))
    # ρ > 1: divide through by ρ^(B+1): p = (1 − 1/ρ) / (1 − ρ^−(B+1))
    return math.log1p(-1.0 / rho) - math.log(-math.expm1(-(b + 1.0) * lr))


def tcp_throughput_pps(p: float, tau_s: float) -> float:
    """Per-flow TCP throughput R = (1/τ)·sqrt(3/(2p)), packets/s (paper 002, §IV-A, eq. (2)).

    ``p`` loss probability in (0, 1], ``tau_s`` round-trip time in seconds. The square-root law
    for Reno in congestion avoidance; the window limit is applied by the caller.
    """
    p = fraction(p, "p", high_open=False)
    tau_s = positive(tau_s, "tau_s")
    return math.sqrt(1.5 / p) / tau_s


def tcp_mm1b_utilization(buffer_packets: float, w_max: float, peak_load: float, *,
                         loss: str = "approx") -> float:
    """Link utilization ρ from the §IV-A fixed point of the TCP equation and an M/M/1/B loss.

    Paper 002, §IV-A, eqs. (2), (3): N flows with RTT τ each send R = (1/τ)·sqrt(3/(2p)) but at
    most Wmax/τ; the link sees ρ = N·R/C and loses p(ρ). ``peak_load`` = N·Wmax/(C·τ) (2 for the
    paper's under-provisioned case C = N·Wmax/(2τ), 0.5 for C = 2N·Wmax/τ), so N/(Cτ) =
    peak_load/Wmax.

    - ``loss="approx"`` (the paper's): p ≈ ρ^(B+1) gives the closed form
      ρ^(B+3) = (3/2)·(peak_load/Wmax)²;
    - ``loss="exact"``: p = (1 − ρ)ρ^B/(1 − ρ^(B+1)), solved for ρ with Brent's method (in log ρ).

    The two differ more than "≈" suggests: the exact loss is ≈ ρ^B (not ρ^(B+1)) at small ρ, so
    below ρ ≈ 1/2 the paper's closed form is optimistic (Wmax = 10⁶, B = 5, peak 0.5: 0.028 vs
    0.017) and above it pessimistic (Wmax = 64, B = 15, peak 2: 0.696 vs 0.736).

    The result is capped by the window limit ``peak_load`` and by 1. ``buffer_packets`` B ≥ 0,
    ``w_max`` ≥ 1 packet. A heuristic the paper does not prove (it calls it an open problem); it
    shows the scaling: B = β·ln Wmax keeps ρ near e^(−2/β), B = o(log Wmax) drives ρ to 0.
    """
    b = nonneg(buffer_packets, "buffer_packets")
    w = _w_max(w_max)
    peak_load = positive(peak_load, "peak_load")
    cap = min(1.0, peak_load)
    # log of the right-hand side constant: ρ² · p(ρ) = (3/2)(peak/W)²
    log_k = math.log(1.5) + 2.0 * (math.log(peak_load) - math.log(w))
    if loss == "approx":
        rho = math.exp(log_k / (b + 3.0))
        return min(rho, cap)
    if loss == "exact":
        from scipy.optimize import brentq

        def g(u: float) -> float:  # u = ln ρ; increasing in u
            return 2.0 * u + _log_mm1b_loss(u, b) - log_k

        u_hi = -1e-12
        if g(u_hi) <= 0.0:  # even a fully loaded link loses too little to stop the flows
            return cap
        u_lo = -1.0
        while g(u_lo) > 0.0:
            u_lo *= 2.0
        u = brentq(g, u_lo, u_hi, xtol=1e-14, rtol=1e-13)
        return min(math.exp(u), cap)
    raise BufsizeError(f"must be 'approx' or 'exact', got {loss!r}", argument="loss")


def logarithmic_buffer(w_max: float, beta: float, base: float = math.e) -> float:
    """B = β·log_base(Wmax), packets (paper 002, §IV-A scaling; Fig. 6 uses β = 5, base 10)."""
    w = _w_max(w_max)
    beta = positive(beta, "beta")
    base = positive(base, "base")
    if base == 1.0:
        raise BufsizeError("must not be 1", argument="base")
    return beta * math.log(w) / math.log(base)


# ---------------------------------------------------------------------------------------------
# Loads used in the paper's examples (§I, §II, §IV)
# ---------------------------------------------------------------------------------------------


def peak_rate_pps(n_flows: int, w_max: float, rtt_s: float) -> float:
    """Peak aggregate rate N·Wmax/RTT, packets/s (paper 002, §I: 1000 flows × 64 KiB / 100 ms
    ≈ 5.2 Gb/s). ``w_max`` in packets (pass bytes with 1-byte "packets" for a rate in bytes/s)."""
    n = count(n_flows, "n_flows")
    w = positive(w_max, "w_max")
    rtt_s = positive(rtt_s, "rtt_s")
    return n * w / rtt_s


def peak_load(n_flows: int, w_max: float, capacity_pps: float, rtt_s: float) -> float:
    """Peak load N·Wmax/(C·RTT), a fraction (the ρ of Theorem 1; paper 002, §II)."""
    capacity_pps = positive(capacity_pps, "capacity_pps")
    return peak_rate_pps(n_flows, w_max, rtt_s) / capacity_pps


def capacity_for_peak_load(n_flows: int, w_max: float, rtt_s: float, load: float) -> float:
    """Capacity C (packets/s) at which N flows of window Wmax reach peak load ``load``
    (paper 002, §IV, Fig. 3 keeps the peak load at 80 %)."""
    load = positive(load, "load")
    return peak_rate_pps(n_flows, w_max, rtt_s) / load


def effective_utilization(utilization: float, peak_load: float) -> float:
    """θ = achieved utilization / peak load (paper 002, §II definition: throughput / (ρC))."""
    utilization = fraction(utilization, "utilization", low_open=False, high_open=False)
    peak_load = positive(peak_load, "peak_load")
    return utilization / peak_load


# ---------------------------------------------------------------------------------------------
# Appendix II: Chernoff bounds and the discrete-time model of Theorem 2
# ---------------------------------------------------------------------------------------------


def chernoff_bound(mu: float, lam: float) -> float:
    """Pr[X ≥ μ + λ] ≤ exp(−λ²/(2μ + λ)) for a sum X of independent indicators with mean μ.

    Paper 002, Appendix II (the bound used in Lemma 3). ``mu`` ≥ 0, ``lam`` ≥ 0 (counts).
    """
    mu = nonneg(mu, "mu")
    lam = nonneg(lam, "lam")
    if lam == 0.0:
        return 1.0
    return math.exp(-lam * lam / (2.0 * mu + lam))


def lemma3_chernoff_bound(rho: float, l: int, buffer_packets: float) -> float:
    """Bound on the probability that an interval of ``l`` ≤ S slots is overpopulated (Lemma 3).

    Paper 002, Appendix II: an interval of l slots is overpopulated if it holds ≥ l + B other
    arrivals; with μ = ρl and λ = (1 − ρ)l + B the Chernoff bound gives
    exp(−λ²/(2μ + λ)). ``rho`` peak load in (0, 1), ``l`` slots ≥ 1, ``buffer_packets`` ≥ 0.
    """
    rho = fraction(rho, "rho")
    l = count(l, "l")
    b = nonneg(buffer_packets, "buffer_packets")
    return chernoff_bound(rho * l, (1.0 - rho) * l + b)


def chernoff_multiplicative_bound(mu: float, beta: float) -> float:
    """Pr[X ≥ (1 + β)μ] ≤ exp(−β²μ/(2 + β)) (paper 002, Lemmas 4 and 5 [R]).

    The source prints "exp{−(β²μ)(2+β)}"; the standard bound, used here, divides by (2 + β).
    ``mu`` ≥ 0, ``beta`` ≥ 0.
    """
    mu = nonneg(mu, "mu")
    beta = nonneg(beta, "beta")
    return math.exp(-beta * (beta / (2.0 + beta)) * mu)


#: Size cap of the Monte-Carlo functions (array elements held at once, or candidate packets).
_MC_MAX_PACKETS = 20_000_000


@dataclass(frozen=True)
class PoissonAimdEstimate:
    """Result of :func:`theorem1_monte_carlo` (a Monte-Carlo estimate, not a bound)."""

    effective_utilization: float
    """θ: accepted packets per RTT divided by the peak N·Wmax (= ρC)."""
    drop_probability: float
    """Dropped / offered packets of the real (window-scaled) flows."""
    offered: int
    """Packets the flows offered to the queue in the measured RTTs."""
    drops: int
    candidates: int
    """Packets of the dominating virtual system (rate N·Wmax per RTT) in the measured RTTs."""
    mean_window: float
    """Time-average of the mean window at the emission instants, packets."""


def theorem1_monte_carlo(n_flows: int, w_max: float, rho: float, buffer_packets: int, *,
                         rtts: int = 2000, warmup_rtts: int = 200, seed: int = 0) -> PoissonAimdEstimate:
    """Simulate the model of Theorem 1 and measure the effective utilization θ (paper 002, App. I).

    Time is in RTTs. Each of ``n_flows`` flows has a window W ≤ ``w_max`` and, while W is
    constant, emits Poisson traffic at rate W per RTT; this is generated exactly by thinning the
    dominating Poisson stream of rate N·Wmax that the proof couples it to (a candidate of flow i is
    sent with probability W_i/Wmax). The link serves C = N·Wmax/ρ packets per RTT (``rho`` is the
    peak load, in (0, 1)); the drop-tail FIFO holds at most ``buffer_packets`` packets including
    the one in service. Each delivered packet's ACK returns one RTT after it leaves the queue and
    adds 1/W to W (capped at Wmax); each drop halves W (not below 1) one RTT later — every drop,
    even several in one window, which is pessimistic like the proof's accounting. Flows start at
    W = Wmax; ``warmup_rtts`` are simulated before ``rtts`` measured RTTs. Deterministic for a
    ``seed``; pure Python, roughly 0.5 s per 10⁵ candidate packets here.
    """
    import heapq
    import random
    from collections import deque

    n = count(n_flows, "n_flows")
    w = _w_max(w_max)
    rho = fraction(rho, "rho")
    b = count(buffer_packets, "buffer_packets")
    measured = count(rtts, "rtts")
    warm = count(warmup_rtts, "warmup_rtts", minimum=0)
    if (measured + warm) * n * w > _MC_MAX_PACKETS:
        raise BufsizeError(f"(rtts+warmup_rtts)*n_flows*w_max = {(measured + warm) * n * w:g} candidate "
                           f"packets exceeds {_MC_MAX_PACKETS:g}; use fewer rtts", argument="rtts")
    rng = random.Random(seed)
    service = rho / (n * w)  # 1/C in RTTs
    rate = n * w  # candidates per RTT
    t_end = float(warm + measured)
    windows = [w] * n
    in_system: deque[float] = deque()  # departure times of the packets in the queue
    last_departure = 0.0
    events: list[tuple[float, int, int]] = []  # (time, kind, flow): kind 0 = ACK, 1 = halve
    offered = drops = candidates = accepted = 0
    window_sum = 0.0
    t = rng.expovariate(rate)
    while t < t_end:
        while events and events[0][0] <= t:
            _, kind, i = heapq.heappop(events)
            if kind == 0:
                windows[i] = min(w, windows[i] + 1.0 / windows[i])
            else:
                windows[i] = max(1.0, windows[i] / 2.0)
        i = rng.randrange(n)
        measuring = t >= warm
        if measuring:
            candidates += 1
            window_sum += windows[i]
        if rng.random() * w < windows[i]:
            while in_system and in_system[0] <= t:
                in_system.popleft()
            if measuring:
                offered += 1
            if len(in_system) >= b:
                if measuring:
                    drops += 1
                heapq.heappush(events, (t + 1.0, 1, i))
            else:
                last_departure = max(t, last_departure) + service
                in_system.append(last_departure)
                heapq.heappush(events, (last_departure + 1.0, 0, i))
                if measuring:
                    accepted += 1
        t += rng.expovariate(rate)
    return PoissonAimdEstimate(
        effective_utilization=accepted / (measured * n * w),
        drop_probability=drops / offered if offered else 0.0,
        offered=offered,
        drops=drops,
        candidates=candidates,
        mean_window=window_sum / candidates if candidates else float(w),
    )


@dataclass(frozen=True)
class SlotModelEstimate:
    """Result of :func:`theorem2_monte_carlo` (a Monte-Carlo estimate, not a bound)."""

    drop_probability: float
    """Dropped / offered packets over the measured RTTs."""
    rtt_loss_fraction: float
    """Fraction of simulated RTTs in which at least one packet was dropped."""
    packets: int
    drops: int
    load: float
    """Offered load N·Wmax/M."""
    spacing: int
    """Slots between consecutive packets of one flow (paced mode)."""


def theorem2_monte_carlo(n_flows: int, w_max: int, slots_per_rtt: int, buffer_packets: int, *,
                         spacing: int | None = None, rtts: int = 200, seed: int = 0,
                         arrivals: str = "paced") -> SlotModelEstimate:
    """Monte-Carlo drop probability in the discrete-time model of Theorem 2 (paper 002, App. II).

    One RTT is ``slots_per_rtt`` = M = C·RTT slots; the bottleneck sends one packet per slot.
    ``arrivals="paced"``: each of ``n_flows`` flows sends ``w_max`` packets per RTT, ``spacing``
    = S slots apart (default M // Wmax, perfect pacing; S = 1 is an unpaced burst), starting at a
    slot drawn uniformly from the M slots independently for each flow and each trial; the
    pattern repeats every RTT (cyclic), so each trial runs the RTT twice and counts the second
    pass (queue in periodic steady state). ``arrivals="poisson"``: each slot receives
    Poisson(N·Wmax/M) packets (the slotted analogue of Theorem 1's Poisson traffic), a warm-up
    RTT then a measured one. Within a slot, arrivals join first, then one packet leaves, then
    anything above ``buffer_packets`` waiting packets is dropped (drop-tail). ``rtts``
    independent trials; deterministic for a given ``seed``.

    Fixed windows (no AIMD reaction to the drops) — the model of the proof, not TCP. Cost: a
    Python loop over 2·M slots, vectorised over the ``rtts`` trials (M = 1000, 100 trials take
    about 15 ms here, plus the numpy import on first use); at most 2·10⁷ packets or slots are
    held in memory at once.
    """
    import numpy as np

    n = count(n_flows, "n_flows")
    w = count(w_max, "w_max")
    m = count(slots_per_rtt, "slots_per_rtt")
    b = count(buffer_packets, "buffer_packets", minimum=0)
    trials = count(rtts, "rtts")
    seed = count(seed, "seed", minimum=0)
    load = n * w / m
    if load >= 1.0:
        raise BufsizeError(f"offered load n_flows*w_max/slots_per_rtt = {load:g} must be < 1",
                           argument="slots_per_rtt")
    if spacing is None:
        s = m // w
    else:
        s = count(spacing, "spacing")
    if w * s > m:
        raise BufsizeError(f"w_max*spacing = {w * s} exceeds slots_per_rtt = {m}", argument="spacing")

    if arrivals == "paced" and trials * n * w > _MC_MAX_PACKETS:
        raise BufsizeError(f"rtts*n_flows*w_max = {trials * n * w} packets exceeds {_MC_MAX_PACKETS:g} "
                           "held in memory at once; use fewer rtts", argument="rtts")
    if trials * 2 * m > _MC_MAX_PACKETS:
        raise BufsizeError(f"rtts*2*slots_per_rtt = {trials * 2 * m} slots exceeds {_MC_MAX_PACKETS:g} "
                           "held in memory at once; use fewer rtts", argument="rtts")

    rng = np.random.default_rng(seed)
    if arrivals == "paced":
        starts = rng.integers(0, m, size=(trials, n))
        slots = (starts[:, :, None] + s * np.arange(w)[None, None, :]) % m
        flat = (slots + (np.arange(trials) * m)[:, None, None]).ravel()
        one = np.bincount(flat, minlength=trials * m).reshape(trials, m)
        arr = np.concatenate([one, one], axis=1)
    elif arrivals == "poisson":
        arr = rng.poisson(load, size=(trials, 2 * m))
    else:
        raise BufsizeError(f"must be 'paced' or 'poisson', got {arrivals!r}", argument="arrivals")

    q = np.zeros(trials, dtype=np.int64)
    drops = np.zeros(trials, dtype=np.int64)
    for t in range(2 * m):
        q += arr[:, t]
        q -= q > 0
        over = np.maximum(q - b, 0)
        q -= over
        if t >= m:
            drops += over
    packets = int(arr[:, m:].sum())
    total = int(drops.sum())
    return SlotModelEstimate(
        drop_probability=total / packets if packets else 0.0,
        rtt_loss_fraction=float(np.mean(drops > 0)),
        packets=packets,
        drops=total,
        load=load,
        spacing=s,
    )


__all__ = [
    "theorem1_buffer", "theorem1_utilization", "mm1_drop_probability", "mm1b_loss_probability",
    "tcp_throughput_pps", "tcp_mm1b_utilization", "logarithmic_buffer", "peak_rate_pps",
    "peak_load", "capacity_for_peak_load", "effective_utilization", "chernoff_bound",
    "lemma3_chernoff_bound", "chernoff_multiplicative_bound", "PoissonAimdEstimate",
    "theorem1_monte_carlo", "SlotModelEstimate", "theorem2_monte_carlo",
]
