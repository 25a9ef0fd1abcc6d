"""Paper 004 — Appenzeller, Keslassy, McKeown, "Sizing router buffers" (SIGCOMM 2004).

The SIGCOMM text lost most equations in conversion; they are taken from the extended technical
report TR04-HPNG-06-08-00 as restated in MODELS.md §5 (marked [R] there). Equation numbers below
are the TR's.

Units, everywhere in this module:

- ``capacity_pps`` / ``C``: bottleneck capacity in **packets per second**;
- ``rtt_s``: mean two-way propagation delay RTT = 2·T̄p in seconds, ``Tp`` one-way, seconds;
- buffers, windows and bandwidth-delay products (``bdp_packets`` = 2·T̄p·C) in **packets**;
- flow lengths in packets (segments); loads and probabilities are plain fractions.

Three regimes:

1. **One flow / synchronized flows** (§2, §3.1): the buffer must cover the pipe,
   B = 2·T̄p·C ("rule of thumb").
2. **Many desynchronized long flows** (§3.2): the sum of windows is Gaussian by the CLT, its
   standard deviation shrinks like 1/√n, so B = 2·T̄p·C/√n suffices; eq. (6) is a lower bound on
   utilization for a given B.
3. **Short flows** that never leave slow start (§4, Appendix C): the queue is an M/G/1 queue
   whose jobs are slow-start bursts; the buffer depends on load and burst sizes only, not on
   capacity or the number of flows.

The approximations are the paper's: fluid windows, a normal sum of windows, the uniform-sawtooth
window distribution, effective-bandwidth (Cramér) tails. Results are approximate in exactly the
way the paper's are; where the paper prints a number its own formula does not give (MODELS.md
"[D]" rows) the formula is implemented and the tests record both.

Model table (function — equation — when it applies):

=================================  =============================  =====================================================
function                           equation                       when it applies
=================================  =============================  =====================================================
rule_of_thumb                      §2, eq. (3)                    one long flow, or flows in phase (≲ 100 flows)
rtt_for_bdp                        inverse of §2                  convert a BDP in packets back to an RTT
synchronized_window_range          §3.1, eqs. (1)–(3)             in-phase flows: peak and trough of Σ W
single_flow_utilization            §2 + App. B fluid sawtooth     one Reno flow, any buffer (1 when B ≥ 2T̄p·C)
window_std                         §3.2 (uniform sawtooth)        σ of one flow's window
sum_of_windows_std                 §3.2, eqs. (4)–(5)             σ of Σ W (= σ_Q bound), n desynchronized flows
utilization_lower_bound            §3.2, eq. (6)                  n ≳ 250 desynchronized long flows, avg cwnd > 2
buffer_for_utilization             inverse of eq. (6)             same; inf when unreachable
sqrt_n_rule                        §3.2, B = 2T̄p·C/√n             same (≈ 98.99 % at n = 10 000)
sawtooth_window / sawtooth_queue   App. B, eqs. (9), (10)         one flow in congestion avoidance, queue > 0
sawtooth_period                    App. B                         time for the queue to grow 0 → B
sawtooth_period_ode                App. B, eq. (8) integrated     numerical check of the above
slow_start_bursts                  §4 [R]                         flow of l packets, initial window 2
burst_size_distribution            §4, App. C                     fixed length or a length distribution
burst_moments                      App. C                         E[X], E[X²], E[X³]
mg1_mean_number                    App. C (E[N], as printed)      short flows, load < 1
short_flow_mean_queue              App. C (E[Q])                  short flows, load < 1
tail_decay_rate                    App. C (κ, 2nd/3rd/exact)      short flows, load < 1
short_flow_overflow_probability    App. C (P(Q ≥ b))              short flows, load < 1, many flows
short_flow_buffer                  App. C (B(P))                  short flows; lengths=None: M/D/1
loss_rate_from_window              §5.1.1 (Morris)                per-flow loss vs window, l ≈ 0.76/w²
window_from_loss_rate              inverse of §5.1.1              same
=================================  =============================  =====================================================
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from statistics import NormalDist

from bufsize.errors import BufsizeError
from bufsize.models._check import count, fraction, nonneg, positive

_STD = NormalDist()


def _finite(value: float, argument: str) -> float:
    """``value`` if finite, else a BufsizeError: the inputs overflow floating point."""
    if not math.isfinite(value):
        raise BufsizeError("too large: the result overflows floating point", argument=argument)
    return value
#: 3√3/(2√2): the constant of eq. (6).
EQ6_CONSTANT = 3.0 * math.sqrt(3.0) / (2.0 * math.sqrt(2.0))
#: Morris' fit used in §5.1.1: per-flow loss rate ≈ 0.76 / w².
MORRIS_LOSS_CONSTANT = 0.76
#: Smallest load the short-flow tail functions accept.
MIN_LOAD = 1e-9


# ---------------------------------------------------------------------------------------------
# Long flows: rule of thumb, synchronized and desynchronized cases
# ---------------------------------------------------------------------------------------------


def rule_of_thumb(rtt_s: float, capacity_pps: float) -> float:
    """Rule-of-thumb buffer B = RTT̄·C = 2·T̄p·C, in packets.

    Paper 004, §2 (single flow) and §3.1 eq. (3) (synchronized flows) [R]. ``rtt_s`` is the
    mean two-way propagation delay in seconds, ``capacity_pps`` the bottleneck capacity in
    packets/s. Multiply by the packet size for bytes (or pass capacity in bit/s to get bits).
    """
    rtt_s = positive(rtt_s, "rtt_s")
    capacity_pps = positive(capacity_pps, "capacity_pps")
    return rtt_s * capacity_pps


def rtt_for_bdp(bdp_packets: float, capacity_pps: float) -> float:
    """The RTT (seconds) whose bandwidth-delay product is ``bdp_packets`` at ``capacity_pps``.

    Inverse of :func:`rule_of_thumb` (paper 004, §2); used to read the paper's "RTT·C = 1291
    packets" (Fig. 15) as a delay.
    """
    bdp_packets = positive(bdp_packets, "bdp_packets")
    capacity_pps = positive(capacity_pps, "capacity_pps")
    return bdp_packets / capacity_pps


def synchronized_window_range(bdp_packets: float, buffer_packets: float) -> tuple[float, float]:
    """(peak, trough) of the sum of windows of in-phase flows, packets.

    Paper 004, §3.1, eqs. (1)–(2): all windows peak together when the buffer is full, so
    Σ W_max = 2T̄p·C + B; after the common halving Σ W_min = (2T̄p·C + B)/2. The link stays busy
    iff the trough still covers the pipe, i.e. B ≥ 2T̄p·C (eq. (3)), whatever the number of flows.
    """
    bdp_packets = positive(bdp_packets, "bdp_packets")
    buffer_packets = nonneg(buffer_packets, "buffer_packets")
    peak = bdp_packets + buffer_packets
    return peak, peak / 2.0


def single_flow_utilization(buffer_packets: float, bdp_packets: float) -> float:
    """Long-run link utilization of one Reno flow (or in-phase flows) with buffer B, a fraction.

    Paper 004, §2 with the fluid sawtooth of Appendix B: the window grows by one packet per RTT
    and halves at W_max = P + B (P = 2T̄p·C, packets). While W < P the queue is empty, the RTT is
    2T̄p and the link is under-used; while W ≥ P the link is busy and dW/dt = C/W (eq. (8)).
    Integrating one cycle (time in units of 1/C)::

        W0 = (P + B)/2
        sent  = (max(P, W0)² − W0²)/2 + ((P + B)² − max(P, W0)²)/2
        time  = (max(P, W0) − W0)·P   + ((P + B)² − max(P, W0)²)/2
        util  = sent / time

    For B ≥ P the result is exactly 1. For B < P it equals paper 001's eq. (17)
    (3/4)(P+B)²/((P+B)² − B·P), which gives 3/4 at B = 0. Fluid approximation: integer window
    steps, slow start, timeouts and the dropped packets themselves are ignored.
    """
    buffer_packets = nonneg(buffer_packets, "buffer_packets")
    bdp_packets = positive(bdp_packets, "bdp_packets")
    # in units of the pipe P (scale-free, so no overflow or underflow): β = B/P
    beta = buffer_packets / bdp_packets
    if beta >= 1.0:
        return 1.0
    w0 = (1.0 + beta) / 2.0
    wm = 1.0 + beta
    below_sent = (1.0 - w0 * w0) / 2.0
    below_time = 1.0 - w0
    busy = (wm * wm - 1.0) / 2.0
    return (below_sent + busy) / (below_time + busy)


def window_std(mean_window: float) -> float:
    """Standard deviation of one flow's window, packets.

    Paper 004, §3.2: a Reno sawtooth spends equal time at every window between (2/3)W̄ and
    (4/3)W̄, so the window is Uniform[(2/3)W̄, (4/3)W̄] and σ_W = W̄/(3√3). ``mean_window`` in
    packets.
    """
    mean_window = nonneg(mean_window, "mean_window")
    return mean_window / (3.0 * math.sqrt(3.0))


def sum_of_windows_std(bdp_packets: float, buffer_packets: float, n: int) -> float:
    """Upper bound on σ of Σ cwnd (= σ_Q, eq. (5)) for n desynchronized flows, packets.

    Paper 004, §3.2, eqs. (4)–(6): with mean windows W̄_i ≤ (2T̄p·C + B)/n, independent windows
    and σ_Wi = W̄_i/(3√3), σ_Q = σ_ΣW ≤ (2T̄p·C + B)/(3√3·√n). ``bdp_packets`` = 2T̄p·C.
    """
    bdp_packets = positive(bdp_packets, "bdp_packets")
    buffer_packets = nonneg(buffer_packets, "buffer_packets")
    n = count(n, "n")
    return (bdp_packets + buffer_packets) / (3.0 * math.sqrt(3.0) * math.sqrt(n))


def utilization_lower_bound(buffer_packets: float, bdp_packets: float, n: int) -> float:
    """Lower bound on link utilization with n desynchronized long flows, a fraction.

    Paper 004, §3.2, eq. (6)::

        Util ≥ erf( (3√3/(2√2)) · B / ((2T̄p·C + B)/√n) )

    This is P(0 < Q < B) for Q ~ Normal(B/2, σ_Q) with σ_Q from :func:`sum_of_windows_std`.
    ``buffer_packets`` B and ``bdp_packets`` 2T̄p·C in packets, ``n`` the number of long flows.
    Meant for n ≳ 250 desynchronized flows with average window > 2 (below that, timeouts
    dominate and it is optimistic).
    """
    buffer_packets = nonneg(buffer_packets, "buffer_packets")
    bdp_packets = positive(bdp_packets, "bdp_packets")
    n = count(n, "n")
    x = EQ6_CONSTANT * buffer_packets * math.sqrt(n) / (bdp_packets + buffer_packets)
    return math.erf(x)


def _erfinv(u: float) -> float:
    """erf⁻¹(u) for u in (0, 1), accurate near both ends (via the normal quantile)."""
    if u < 0.5:
        return _STD.inv_cdf((1.0 + u) / 2.0) / math.sqrt(2.0)
    return -_STD.inv_cdf((1.0 - u) / 2.0) / math.sqrt(2.0)


def buffer_for_utilization(target: float, bdp_packets: float, n: int) -> float:
    """Smallest buffer (packets) for which eq. (6) guarantees utilization ``target``.

    Paper 004, inverse of §3.2 eq. (6): with y = erf⁻¹(target) and k = 3√3/(2√2)::

        B = y · 2T̄p·C / (k·√n − y)

    Returns ``math.inf`` when k·√n ≤ y: with so few flows eq. (6) cannot reach the target with
    any buffer (its limit as B → ∞ is erf(k·√n)). ``target`` in (0, 1); ``bdp_packets`` =
    2T̄p·C in packets; ``n`` long flows. Same validity as :func:`utilization_lower_bound`.
    """
    target = fraction(target, "target")
    bdp_packets = positive(bdp_packets, "bdp_packets")
    n = count(n, "n")
    y = _erfinv(target)
    denominator = EQ6_CONSTANT * math.sqrt(n) - y
    if denominator <= 0.0:
        return math.inf
    return y * bdp_packets / denominator


def sqrt_n_rule(rtt_s: float, capacity_pps: float, n: int) -> float:
    """The √n buffer B = RTT̄·C/√n, packets.

    Paper 004, §3.2 (and abstract): n desynchronized long flows need the rule-of-thumb buffer
    divided by √n. ``rtt_s`` seconds, ``capacity_pps`` packets/s. By eq. (6) this buffer gives
    ≥ 98.99 % utilization at n = 10 000 and ≈ 98.2 % at n = 100.
    """
    n = count(n, "n")
    return rule_of_thumb(rtt_s, capacity_pps) / math.sqrt(n)


# ---------------------------------------------------------------------------------------------
# Appendix B: fluid sawtooth of one flow
# ---------------------------------------------------------------------------------------------


def sawtooth_window(t_s: float, capacity_pps: float, Tp: float, w0: float | None = None) -> float:
    """Window W(t) of one flow while the queue is non-empty, packets.

    Paper 004, Appendix B, eq. (9) [R]: dW/dt = C/W (eq. (8)) integrates to
    W(t) = sqrt(2·C·t + W(0)²). By default W(0) = 2Tp·C, i.e. t = 0 is the moment the queue
    starts to fill (the TR prints "+ W(0)"; the constant is W(0)²). ``t_s`` seconds ≥ 0,
    ``capacity_pps`` packets/s, ``Tp`` one-way propagation delay in seconds, ``w0`` packets
    (must be ≥ 2Tp·C, otherwise the queue is empty and eq. (8) does not hold).
    """
    t_s = nonneg(t_s, "t_s")
    capacity_pps = positive(capacity_pps, "capacity_pps")
    Tp = positive(Tp, "Tp")
    pipe = 2.0 * Tp * capacity_pps
    if w0 is None:
        w0 = pipe
    else:
        w0 = positive(w0, "w0")
        if w0 < pipe * (1.0 - 1e-12):
            raise BufsizeError(f"must be >= 2*Tp*C = {pipe:g} packets (queue non-empty), got {w0:g}",
                               argument="w0")
    return _finite(math.sqrt(2.0 * capacity_pps * t_s + w0 * w0), "t_s")


def sawtooth_queue(t_s: float, capacity_pps: float, Tp: float, w0: float | None = None) -> float:
    """Queue Q(t) = W(t) − 2Tp·C of one flow, packets (paper 004, Appendix B, eq. (10)).

    Same arguments and validity as :func:`sawtooth_window`; grows like a square root of t.
    """
    w = sawtooth_window(t_s, capacity_pps, Tp, w0)
    return _finite(w - 2.0 * float(Tp) * float(capacity_pps), "Tp")


def sawtooth_period(buffer_packets: float, capacity_pps: float, Tp: float) -> float:
    """Time (seconds) for one flow's queue to grow from 0 to B (paper 004, Appendix B).

    From eq. (9): T = B²/(2C) + 2Tp·B. When B = 2Tp·C (rule of thumb) the queue just empties after
    each halving, so this is the whole loss-to-loss period, T = 1.5·B²/C (Fig. 4: 30.2 s for
    B = 142, C = 1000 pkt/s). ``buffer_packets`` packets, ``capacity_pps`` packets/s, ``Tp``
    one-way propagation delay in seconds.
    """
    buffer_packets = nonneg(buffer_packets, "buffer_packets")
    capacity_pps = positive(capacity_pps, "capacity_pps")
    Tp = positive(Tp, "Tp")
    t = buffer_packets * buffer_packets / (2.0 * capacity_pps) + 2.0 * Tp * buffer_packets
    return _finite(t, "buffer_packets")


def sawtooth_period_ode(buffer_packets: float, capacity_pps: float, Tp: float) -> float:
    """:func:`sawtooth_period` by numerical integration of eq. (8) (a second method).

    Integrates dW/dt = 1/RTT(t) = 1/(2Tp + Q/C) with Q = W − 2Tp·C, starting at W = 2Tp·C, with
    scipy's adaptive Runge–Kutta (rtol 1e-10) until Q reaches B. Seconds; arguments as in
    :func:`sawtooth_period`.
    """
    buffer_packets = nonneg(buffer_packets, "buffer_packets")
    capacity_pps = positive(capacity_pps, "capacity_pps")
    Tp = positive(Tp, "Tp")
    if buffer_packets == 0.0:
        return 0.0
    from scipy.integrate import solve_ivp

    pipe = 2.0 * Tp * capacity_pps

    def rhs(_t, y):
        q = max(y[0] - pipe, 0.0)
        return [1.0 / (2.0 * Tp + q / capacity_pps)]

    def full(_t, y):
        return y[0] - pipe - buffer_packets

    full.terminal = True
    full.direction = 1
    # Upper bound on the time: the slowest growth rate is at the largest RTT.
    horizon = 2.0 * buffer_packets * (2.0 * Tp + buffer_packets / capacity_pps) + 1.0
    sol = solve_ivp(rhs, (0.0, horizon), [pipe], events=full, rtol=1e-10, atol=1e-9 * max(pipe, 1.0))
    if not sol.t_events[0].size:  # pragma: no cover - the horizon is a strict upper bound
        raise RuntimeError("sawtooth ODE did not reach a full buffer")
    return float(sol.t_events[0][0])


# ---------------------------------------------------------------------------------------------
# §4 and Appendix C: short flows
# ---------------------------------------------------------------------------------------------


def slow_start_bursts(length_packets: int, initial_window: int = 2) -> list[int]:
    """Bursts a flow of ``length_packets`` sends in slow start, packets per burst.

    Paper 004, §4 [R]: with initial window w the bursts are w, 2w, 4w, … and the last one is
    whatever remains: l = 14 → [2, 4, 8]; l = 16 → [2, 4, 8, 2]. (The paper's "R = l mod (2^n − 1)"
    contradicts its own l = 14 example; this is the algorithmic definition from MODELS.md.)
    Flows are assumed never to leave slow start (no loss, no window cap).
    """
    length = count(length_packets, "length_packets")
    w = count(initial_window, "initial_window")
    bursts: list[int] = []
    left = length
    while left > 0:
        bursts.append(min(w, left))
        left -= bursts[-1]
        w *= 2
    return bursts


def _lengths_and_weights(lengths, weights) -> tuple[list[int], list[float]]:
    if isinstance(lengths, (int, float)) and not isinstance(lengths, bool):
        lengths = [lengths]
    try:
        lengths = list(lengths)
    except TypeError:
        raise BufsizeError(f"must be a flow length or a sequence of them, got {lengths!r}",
                           argument="lengths") from None
    if not lengths:
        raise BufsizeError("must not be empty", argument="lengths")
    ls = [count(x, "lengths") for x in lengths]
    if weights is None:
        ws = [1.0] * len(ls)
    else:
        try:
            ws = [nonneg(w, "weights") for w in weights]
        except TypeError:
            raise BufsizeError(f"must be a sequence of numbers, got {weights!r}",
                               argument="weights") from None
        if len(ws) != len(ls):
            raise BufsizeError(f"has {len(ws)} entries but lengths has {len(ls)}", argument="weights")
        if sum(ws) <= 0.0:
            raise BufsizeError("must not all be zero", argument="weights")
    return ls, ws


def burst_size_distribution(lengths: int | Iterable[int], weights: Sequence[float] | None = None,
                            initial_window: int = 2) -> dict[int, float]:
    """Distribution P(X = x) of the burst size X (packets), as {x: probability}.

    Paper 004, §4 / Appendix C. For one flow length l, X is uniform over
    :func:`slow_start_bursts` (l). For lengths l with relative frequencies π_l (``weights``,
    normalised here, so they need not sum to 1; default equal), bursts are pooled::

        P(X = x) = Σ_l π_l·#{x in bursts(l)} / Σ_l π_l·|bursts(l)|
    """
    ls, ws = _lengths_and_weights(lengths, weights)
    mass: dict[int, float] = {}
    total = 0.0
    for length, w in zip(ls, ws):
        if w == 0.0:
            continue
        bursts = slow_start_bursts(length, initial_window)
        for x in bursts:
            mass[x] = mass.get(x, 0.0) + w
        total += w * len(bursts)
    return {x: m / total for x, m in sorted(mass.items())}


def burst_moments(lengths: int | Iterable[int] | None = None, weights: Sequence[float] | None = None,
                  initial_window: int = 2) -> tuple[float, float, float]:
    """(E[X], E[X²], E[X³]) of the burst size, packets^k (paper 004, Appendix C).

    ``lengths=None`` means smooth Poisson packet arrivals, X = 1 (the M/D/1 case).
    """
    if lengths is None:
        return 1.0, 1.0, 1.0
    dist = burst_size_distribution(lengths, weights, initial_window)
    return tuple(sum(p * x**k for x, p in dist.items()) for k in (1, 2, 3))  # type: ignore[return-value]


def mg1_mean_number(rho: float, lengths=None, weights=None, initial_window: int = 2) -> float:
    """E[N] = ρ/(2(1−ρ))·E[X²], the M/G/1 mean "as printed" in paper 004, §4 / Appendix C.

    ``rho`` the load in (0, 1); ``lengths``/``weights`` as in :func:`burst_size_distribution`
    (None: X = 1). Kept for reference only: the Pollaczek–Khinchine mean work waiting in the
    queue is ρ/(2(1−ρ))·E[X²]/E[X] packets, so this expression is that times E[X] (packets²).
    For a queue length in packets use :func:`short_flow_mean_queue`.
    """
    rho = fraction(rho, "rho")
    _, m2, _ = burst_moments(lengths, weights, initial_window)
    return rho / (2.0 * (1.0 - rho)) * m2


def short_flow_mean_queue(rho: float, lengths=None, weights=None, initial_window: int = 2) -> float:
    """Mean queue E[Q] in packets for short flows (paper 004, Appendix C)::

        E[Q] = ρ/(2(1−ρ)) · E[X²]/E[X] − ρ·E[X]/2

    Bursts arrive as a Poisson process (infinitely fast access links, the worst case) into an
    M/G/1 FIFO served at C; the result depends on the load ``rho`` and the burst sizes only, not
    on C or the number of flows. l = 14 gives a larger queue than l = 16 at ρ = 0.8.
    """
    rho = fraction(rho, "rho")
    m1, m2, _ = burst_moments(lengths, weights, initial_window)
    return rho / (2.0 * (1.0 - rho)) * m2 / m1 - rho * m1 / 2.0


def tail_decay_rate(rho: float, lengths=None, weights=None, *, order: int | str = 2,
                    initial_window: int = 2) -> tuple[float, float]:
    """(κ, prefactor) of the queue tail P(Q ≥ b) ≈ prefactor·e^(−κ·b), κ per packet.

    Paper 004, Appendix C: the effective bandwidth α(s) = (ρC/(s·E[X]))·E[e^(sX) − 1] equals C at
    s = κ (Cramér), and P(Q ≥ b) ≈ (C − ρC)/(κ·α′(κ))·e^(−κb).

    - ``order=2`` (the paper's): κ = (2(1−ρ)/ρ)·E[X]/E[X²], prefactor exactly 1;
    - ``order=3``: κ = −(3/2)E[X²]/E[X³] + sqrt(((3/2)E[X²]/E[X³])² + (6(1−ρ)/ρ)·E[X]/E[X³]),
      prefactor ((1−ρ)/ρ)·E[X]/((κ/2)E[X²] + (κ²/3)E[X³]);
    - ``order="exact"``: κ is the positive root of E[e^(κX)] − 1 = κ·E[X]/ρ (Brent's method),
      prefactor (1−ρ)·E[X]/(ρ·E[X·e^(κX)] − E[X]) (our evaluation of the Cramér prefactor at the
      exact κ; both truncations above are its Taylor expansions).

    Even "exact" is an asymptotic (large-b) approximation of the M/G/1 tail.
    """
    rho = fraction(rho, "rho")
    if rho < MIN_LOAD:
        raise BufsizeError(f"must be >= {MIN_LOAD:g} (below that the tail formulas leave floating-point "
                           f"range and the queue is empty anyway), got {rho!r}", argument="rho")
    if lengths is None:
        dist = {1: 1.0}
    else:
        dist = burst_size_distribution(lengths, weights, initial_window)
    m1 = sum(p * x for x, p in dist.items())
    m2 = sum(p * x * x for x, p in dist.items())
    m3 = sum(p * x**3 for x, p in dist.items())
    if order == 2:
        return 2.0 * (1.0 - rho) / rho * (m1 / m2), 1.0
    if order == 3:
        a = 1.5 * m2 / m3
        c = 6.0 * (1.0 - rho) / rho * (m1 / m3)
        kappa = c / (a + math.sqrt(a * a + c))  # = −a + sqrt(a² + c) without cancellation
        pref = (1.0 - rho) / rho * m1 / (kappa / 2.0 * m2 + kappa * kappa / 3.0 * m3)
        return kappa, pref
    if order == "exact":
        from scipy.optimize import brentq

        items = [(math.log(p), float(x)) for x, p in dist.items()]
        log_target = math.log(m1 / rho)

        x_max = max(x for _, x in items)
        log_rho = math.log(rho)

        def h(k: float) -> float:
            # log((E[e^{kX}] − 1)/k) − log(E[X]/ρ): increasing in k, → log ρ < 0 as k → 0+, so the
            # positive root is unique. For small k·X it is log1p(E[X·ψ(kX)]/E[X]) + log ρ with
            # ψ(y) = (e^y − 1 − y)/y (no cancellation near ρ → 1); for large k·X it is kept in
            # logs so that e^{kX} cannot overflow.
            if k == 0.0:
                return log_rho
            if k * x_max < 1.0:
                s = sum(math.exp(lp) * x * _psi(k * x) for lp, x in items)
                return math.log1p(s / m1) + log_rho
            terms = [lp + k * x + math.log(-math.expm1(-k * x)) for lp, x in items]
            return _logsumexp(terms) - math.log(k) - log_target

        hi = 2.0 * (1.0 - rho) / rho * (m1 / m2)  # second-order κ: an upper bound (all terms ≥ 0)
        while h(hi) <= 0.0:  # pragma: no cover - defensive; the 2nd-order κ already brackets
            hi *= 2.0
        kappa = brentq(h, 0.0, hi, xtol=1e-300, rtol=1e-14, maxiter=500)
        # Prefactor (1−ρ)E[X]/(ρE[X e^{κX}] − E[X]). With the root condition the denominator is
        # (ρ/κ)·E[φ(κX)], φ(y) = 1 + (y − 1)e^y ≥ 0, evaluated without cancellation or overflow.
        log_d = math.log(rho) - math.log(kappa) + _logsumexp([lp + _log_phi(kappa * x) for lp, x in items])
        return kappa, math.exp(math.log1p(-rho) + math.log(m1) - log_d)
    raise BufsizeError(f"must be 2, 3 or 'exact', got {order!r}", argument="order")


def _psi(y: float) -> float:
    """(e^y − 1 − y)/y for 0 < y, by its series near 0."""
    if y < 0.05:
        return y * (1 / 2 + y * (1 / 6 + y * (1 / 24 + y * (1 / 120 + y * (1 / 720 + y / 5040)))))
    return (math.expm1(y) - y) / y


def _log_phi(y: float) -> float:
    """log(1 + (y − 1)·e^y) for y > 0: series near 0, asymptotic form for large y."""
    if y < 0.05:
        # Σ_{n≥2} (n−1)/n! · y^n
        return math.log(y * y * (1 / 2 + y * (1 / 3 + y * (1 / 8 + y * (1 / 30 + y * (1 / 144 + y / 840))))))
    if y < 30.0:
        return math.log1p((y - 1.0) * math.exp(y))
    return y + math.log(y - 1.0 + math.exp(-y))


def _logsumexp(terms: list[float]) -> float:
    top = max(terms)
    return top + math.log(sum(math.exp(t - top) for t in terms))


def short_flow_overflow_probability(rho: float, b: float, lengths=None, weights=None, *,
                                    order: int | str = 2, initial_window: int = 2) -> float:
    """P(Q ≥ b) for short-flow traffic at load ``rho``, ``b`` in packets (paper 004, App. C).

    Second order (default, the paper's): P(Q ≥ b) = exp(−b·(2(1−ρ)/ρ)·E[X]/E[X²]). ``order=3`` or
    ``"exact"`` use :func:`tail_decay_rate`'s refinements (their prefactor may exceed 1 for tiny
    b; the result is capped at 1, a probability). ``lengths=None``: M/D/1 (X = 1).
    """
    b = nonneg(b, "b")
    kappa, pref = tail_decay_rate(rho, lengths, weights, order=order, initial_window=initial_window)
    return min(1.0, pref * math.exp(-kappa * b))


def short_flow_buffer(rho: float, P: float, lengths=None, weights=None, *, order: int | str = 2,
                      initial_window: int = 2) -> float:
    """Buffer (packets) so that the short-flow queue exceeds it with probability ``P``.

    Paper 004, Appendix C (B(P), second order)::

        B(P) = ρ/(2(1−ρ)) · E[X²]/E[X] · ln(1/P)

    ``rho`` load in (0, 1); ``P`` in (0, 1) (the TR uses P(Q > B) = 0.025 for Fig. 12, the
    SIGCOMM legend says 0.01); ``lengths``/``weights`` as in :func:`burst_size_distribution`;
    ``lengths=None`` gives the M/D/1 buffer ρ/(2(1−ρ))·ln(1/P) for smooth packet arrivals.
    ``order=3``/``"exact"`` solve prefactor·e^(−κB) = P instead (clipped at 0). Independent of
    capacity and of the number of flows.

    The second order is optimistic for bursty mixes: for l = 14 at ρ = 0.8 a simulated M/G/1
    workload exceeds b = 40 about 1.4× as often as it predicts (the exact form matches, see the
    tests), and B(0.025) is 44.3 packets by the paper's formula but 50.2 with ``order="exact"``.
    """
    P = fraction(P, "P")
    kappa, pref = tail_decay_rate(rho, lengths, weights, order=order, initial_window=initial_window)
    return max(0.0, math.log(pref / P) / kappa)


# ---------------------------------------------------------------------------------------------
# §5.1.1: loss rate vs window (Morris)
# ---------------------------------------------------------------------------------------------


def loss_rate_from_window(window_packets: float) -> float:
    """Per-flow loss rate ≈ 0.76/w², w the window in packets (paper 004, §5.1.1, after Morris).

    Since Σ W = RTT·C + B, shrinking B from RTT·C to ~0 halves the windows and multiplies the
    loss rate by 4. An empirical fit; meaningful for windows of a few packets and more, so
    ``window_packets`` must be ≥ 1.
    """
    w = positive(window_packets, "window_packets")
    if w < 1.0:
        raise BufsizeError(f"must be >= 1 packet, got {w!r}", argument="window_packets")
    return MORRIS_LOSS_CONSTANT / (w * w)


def window_from_loss_rate(loss_rate: float) -> float:
    """Inverse of :func:`loss_rate_from_window`: w = sqrt(0.76/l), packets (paper 004, §5.1.1).

    ``loss_rate`` in (0, 0.76] (larger rates would need a window below one packet).
    """
    loss_rate = fraction(loss_rate, "loss_rate")
    if loss_rate > MORRIS_LOSS_CONSTANT:
        raise BufsizeError(f"must be <= {MORRIS_LOSS_CONSTANT} (a window of at least 1 packet), "
                           f"got {loss_rate!r}", argument="loss_rate")
    return math.sqrt(MORRIS_LOSS_CONSTANT / loss_rate)


__all__ = [
    "EQ6_CONSTANT", "MORRIS_LOSS_CONSTANT", "MIN_LOAD",
    "rule_of_thumb", "rtt_for_bdp", "synchronized_window_range", "single_flow_utilization",
    "window_std", "sum_of_windows_std", "utilization_lower_bound", "buffer_for_utilization",
    "sqrt_n_rule", "sawtooth_window", "sawtooth_queue", "sawtooth_period", "sawtooth_period_ode",
    "slow_start_bursts", "burst_size_distribution", "burst_moments", "mg1_mean_number",
    "short_flow_mean_queue", "tail_decay_rate", "short_flow_overflow_probability",
    "short_flow_buffer", "loss_rate_from_window", "window_from_loss_rate",
]
