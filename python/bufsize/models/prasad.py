"""Paper 000 — Prasad, Dovrolis, Thottan, "Router buffer sizing for TCP traffic and the role of
the output/input capacity ratio" (IEEE/ACM ToN 2009).

The paper sizes a bottleneck buffer B to maximise the *average per-flow TCP throughput* rather than
link utilisation. Two empirical throughput models are combined with models of how the loss rate
p(B) and the round-trip time T(B) depend on B:

* S-model (flows that spend most of their life in slow start), eq. (2);
* L-model (flows that spend most of their life in congestion avoidance, square-root law), eq. (3);
* loss/delay: the M/M/1/B queue under heavy load (§V, a case study), or forms fitted to heavy-load
  simulations, PL-form p = a·B^-b (for capacity ratio Γ = Cout/Cin < 1) and EX-form p = a·e^(-bB)
  (for Γ > 1), with a linear queueing delay d(B) = f·B/C (§VI).

Units used throughout this module (see each docstring):

* buffers ``B``, ``B_max`` and the bandwidth-delay product ``C_To`` in **packets**, except in the
  §V closed forms (6)/(7) which accept any unit as long as ``M`` and ``C_To`` share it;
* ``C`` / ``C_pps``: output capacity in **packets/s**; ``To``, ``T``: seconds;
* ``s_bytes`` flow size and ``m`` segment size in **bytes**; ``M`` segments;
* throughputs are returned in **bytes/s** (the paper's unit when s and m are in bytes);
* ``a`` (dimensionless), ``b`` (dimensionless for PL, 1/packet for EX), ``f`` (dimensionless).

Defaults for the PL-form (``PL_DEFAULT_A/B/F``) are the paper's *typical* values, not a fit to any
user's traffic; see their comments.

Function — equation — when it applies
-------------------------------------
=====================================  ===========  ==================================================
function                               equation     when it applies
=====================================  ===========  ==================================================
``segments``, ``slow_start_rounds``    (1)          D(s): RTTs of slow start, init. window 2, no
                                                    delayed ACK; clamped to 1 for M < 2
``slow_start_throughput``              §IV          R_ss = s/(T·D): loss-free upper estimate
``s_model_throughput``                 (2)          flows with <= 4 congestion events
``l_model_throughput``                 (3)          flows with >= 5 congestion events
``mm1b_loss``                          §V           M/M/1/B loss, any load (case study only)
``mm1b_heavy_load_loss``               §V           rho -> 1: 1/B (paper) or exact 1/(B+1)
``r_s_mm1b``, ``r_l_mm1b``             (4), (5)     M/M/1/B heavy load, p = 1/B, d = B/(2C)
``optimal_buffer_s_mm1b``              (6) [R]      argmax of (4)
``optimal_buffer_l_mm1b``              (7)          argmax of (5)
``pl_loss``, ``ex_loss``, ``rtt``      (8),(14),(9) heavy load, B in the linear-delay range,
                                                    B >~ 10-20 pkts; PL for Γ < 1 with heavy-tailed
                                                    flow sizes, EX for Γ > 1 with many light inputs
``r_l_pl``, ``r_s_pl``                 (10), (12)   PL-form throughput
``optimal_buffer_pl_l``                (11)         PL, L-model, b < 2
``optimal_buffer_pl_s``                (13)         PL, S-model (numerical root, unique)
``r_l_ex``, ``r_s_ex``                 (15), (17)   EX-form throughput
``ex_l_stationary_buffer``             (16)         a *minimum* of (15)
``optimal_buffer_ex_l_paper_rule``     §VII-B.1     0 if (16) > 0 else infinity
``optimal_buffer_ex_l_bounded``        (15)         global max of (15) over [0, B_max]
``ex_s_stationary_points``             (18)         0, 1 or 2 roots
``optimal_buffer_ex_s``                (17), (18)   global max of (17): B = 0 or a root of (18)
``relative_throughput_error``          (19)         any R(B), numerically
``sensitivity_pl_l``                   (20)         PL, L-model, closed form
``sensitivity_pl_s``                   (19), (12)   PL, S-model, numerically
``operator_rule``                      §VII-C       Γ > 1: 20-30 pkts; Γ < 1: 20-25 % (S) or
                                                    60-70 % (L) of BDP
``closed_loop_offered_load``           §III-A       U·S̄/(Th+Tt) <= Cout
``optimal_buffer``                     all above    convenience entry (packets)
``throughput_curve``                   all above    R(B) over an array of B (bytes/s)
=====================================  ===========  ==================================================
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable

from bufsize.errors import BufsizeError
from bufsize.models._check import fraction, nonneg, number, positive

#: Constant of the square-root throughput law (Mathis et al.) used by the L-model, eq. (3).
K_SQRT = 1.22

#: Extra RTTs per retransmitted packet in the S-model (Linux SACK / ns-2 Reno), §IV.
V_DEFAULT = 1.0

#: Segment size of the paper's experiments (bytes).
MSS_DEFAULT = 1500.0

#: PL-form decay exponent: "typical values for b and f are around 0.5 and 0.4" (§VII-A.1).
PL_DEFAULT_B = 0.5
#: PL-form delay coefficient f (same sentence of §VII-A.1).
PL_DEFAULT_F = 0.4
#: PL-form scale a. The paper never prints a fitted a. We chose it so that eq. (13) with the
#: typical b = 0.5, f = 0.4 reproduces the paper's own analytic PL-S optimum of Table II (47 pkts,
#: 0.188 of a 250-packet BDP, flows of 30 segments): solving (13) for a at B = 47 gives 0.1858.
#: It gives p(B) = 2.7 % at 47 packets and 1.2 % at 250 packets. Only the S-model optimum depends
#: on a; the L-model optimum (11) does not. Caveat: Table II's analysis used fitted a, b, f that
#: the paper does not print (its PL-L optimum, 0.584 BDP, implies b/(f(2-b)) = 0.584, not the
#: 0.83 of b = 0.5, f = 0.4), so this a is a pragmatic anchor, not a recovered fit. These are the
#: paper's typical values, NOT a fit to the user's traffic.
PL_DEFAULT_A = 0.186

_FORMS = ("pl", "ex", "mm1b")
_MODES = ("S", "L")


# ----------------------------------------------------------------------------- small helpers

def _loss_prob(x: object, name: str) -> float:
    """A loss rate in [0, 1]."""
    return fraction(x, name, low_open=False, high_open=False)


# ----------------------------------------------------------------------------- eq. (1)–(3)

def segments(s_bytes: float, m: float = MSS_DEFAULT) -> int:
    """M(s) = ceil(s/m), the number of segments of a flow (Paper 000, §IV).

    ``s_bytes``: flow size in bytes (> 0); ``m``: segment size in bytes (> 0). Result: segments.
    """
    s = positive(s_bytes, "s_bytes")
    mm = positive(m, "m")
    return max(1, math.ceil(s / mm))


def slow_start_rounds(M: float) -> int:
    """D(s) = 1 + ceil(log2(M/2)), RTTs a flow of M segments spends in slow start.

    Paper 000, eq. (1): initial window 2 segments, one ACK per segment (no delayed ACK), one RTT
    for the connection handshake. ``M``: segments (> 0). The paper is silent for M < 2; the
    logarithm is clamped at 0 there, so D = 1. Result: RTTs (integer).
    """
    MM = positive(M, "M")
    return 1 + max(0, math.ceil(math.log2(MM / 2.0)))


def slow_start_throughput(s_bytes: float, T: float, m: float = MSS_DEFAULT) -> float:
    """R_ss(s) = s / (T·D(s)), throughput of a loss-free slow-start-only transfer (Paper 000, §IV).

    Overestimates real throughput (no losses). ``s_bytes`` bytes, ``T`` RTT in s, ``m`` bytes.
    Result: bytes/s.
    """
    s = positive(s_bytes, "s_bytes")
    TT = positive(T, "T")
    D = slow_start_rounds(segments(s, m))
    return s / (TT * D)


def s_model_throughput(s_bytes: float, T: float, p: float, *, m: float = MSS_DEFAULT,
                       v: float = V_DEFAULT) -> float:
    """S-model, R_S(s) = s / (T·[D(s) + v·p·M(s)]) (Paper 000, eq. (2)).

    Empirical model for flows that see at most about 4 congestion events. ``s_bytes``: flow size
    in bytes; ``T``: RTT in s; ``p``: loss rate in [0, 1]; ``m``: segment size in bytes (M(s) =
    ceil(s/m)); ``v``: extra RTTs per retransmitted packet (>= 0, 1 in the paper).
    Result: bytes/s.
    """
    s = positive(s_bytes, "s_bytes")
    TT = positive(T, "T")
    pp = _loss_prob(p, "p")
    vv = nonneg(v, "v")
    M = segments(s, m)
    D = slow_start_rounds(M)
    return s / (TT * (D + vv * pp * M))


def l_model_throughput(T: float, p: float, *, m: float = MSS_DEFAULT, k: float = K_SQRT) -> float:
    """L-model, R_L = k·m / (T·sqrt(p)) (Paper 000, eq. (3); square-root law, k = 1.22).

    For flows with at least about 5 congestion events. ``T``: RTT in s; ``p``: loss rate in
    (0, 1]; ``m``: segment size in bytes; ``k``: dimensionless. Result: bytes/s.
    """
    TT = positive(T, "T")
    pp = fraction(p, "p", high_open=False)
    mm = positive(m, "m")
    kk = positive(k, "k")
    return kk * mm / (TT * math.sqrt(pp))


# ----------------------------------------------------------------------------- §V M/M/1/B

def mm1b_loss(rho: float, B: float) -> float:
    """Loss probability of an M/M/1/B queue, p = (1-ρ)ρ^B / (1-ρ^(B+1)) (Paper 000, §V).

    ``rho``: offered load (> 0, any value; the queue is finite); ``B``: system capacity in packets
    (>= 0). At ρ = 1 the limit 1/(B+1) is returned. Evaluated with expm1 so that loads very close
    to 1 and large B stay accurate. Result: probability in (0, 1].
    """
    r = positive(rho, "rho")
    BB = nonneg(B, "B")
    lr = math.log(r)
    if lr == 0.0:
        return 1.0 / (BB + 1.0)
    if lr < 0.0:
        return math.expm1(lr) * math.exp(BB * lr) / math.expm1((BB + 1.0) * lr)
    # rho > 1: divide numerator and denominator by rho^(B+1) to avoid overflow.
    return math.expm1(-lr) / math.expm1(-(BB + 1.0) * lr)


def mm1b_heavy_load_loss(B: float, *, exact: bool = False) -> float:
    """Heavy-load (ρ -> 1) M/M/1/B loss: 1/B as the paper uses it, or the exact limit 1/(B+1).

    Paper 000, §V. The paper's 1/B underlies eqs. (4)–(7) (MODELS.md discrepancy 2); ``exact=True``
    gives 1/(B+1). ``B`` in packets: >= 1 for the paper form (1/B would exceed 1 below that),
    >= 0 for the exact form. Result: probability.
    """
    if exact:
        return 1.0 / (nonneg(B, "B") + 1.0)
    BB = number(B, "B")
    if BB < 1.0:
        raise BufsizeError(f"must be >= 1 packet for the heavy-load form 1/B, got {BB!r}",
                           argument="B")
    return 1.0 / BB


def mm1b_queueing_delay(B: float, C: float) -> float:
    """Mean queueing delay of a heavily loaded M/M/1/B queue, d(B) = B/(2C) (Paper 000, §V).

    ``B`` packets (>= 0), ``C`` packets/s. Result: seconds.
    """
    return nonneg(B, "B") / (2.0 * positive(C, "C"))


def _rs_core(B: float, s: float, M: int, D: int, To: float, C: float, a: float, b: float,
             f: float, v: float, ex: bool) -> float:
    """s / ([D + v·M·p(B)]·(To + f·B/C)) with p = a·B^-b (PL) or a·e^(-bB) (EX); bytes/s."""
    T = To + f * B / C
    if ex:
        p = a * math.exp(-b * B)
    else:
        if B == 0.0:
            return 0.0  # p = a·B^-b -> infinity: the limit of R is 0
        p = a * B ** (-b)
    return s / ((D + v * M * p) * T)


def r_s_mm1b(B: float, *, s_bytes: float, C: float, To: float, m: float = MSS_DEFAULT,
             v: float = V_DEFAULT) -> float:
    """S-model throughput with M/M/1/B heavy load, R_S(B) = s / ((To + B/(2C))·[D(s) + v·M(s)/B]).

    Paper 000, eq. (4) (p = 1/B, d = B/(2C)). ``B`` packets (>= 0; R = 0 at B = 0, the limit),
    ``s_bytes`` bytes, ``C`` packets/s, ``To`` s (propagation RTT without the bottleneck queue),
    ``m`` bytes, ``v`` >= 0. Result: bytes/s.
    """
    BB = nonneg(B, "B")
    s = positive(s_bytes, "s_bytes")
    CC = positive(C, "C")
    TT = positive(To, "To")
    vv = nonneg(v, "v")
    M = segments(s, m)
    return _rs_core(BB, s, M, slow_start_rounds(M), TT, CC, 1.0, 1.0, 0.5, vv, False)


def r_l_mm1b(B: float, *, C: float, To: float, m: float = MSS_DEFAULT, k: float = K_SQRT) -> float:
    """L-model throughput with M/M/1/B heavy load, R_L(B) = k·m·sqrt(B) / (To + B/(2C)).

    Paper 000, eq. (5). ``B`` packets (>= 0; the √B is √(packets) because p = 1/B is per packet),
    ``C`` packets/s, ``To`` s, ``m`` bytes. Result: bytes/s.
    """
    BB = nonneg(B, "B")
    CC = positive(C, "C")
    TT = positive(To, "To")
    return positive(k, "k") * positive(m, "m") * math.sqrt(BB) / (TT + BB / (2.0 * CC))


def optimal_buffer_s_mm1b(M: float, D: float, C_To: float, *, v: float = V_DEFAULT) -> float:
    """B̂_S = sqrt(2·v·M(s)·C·To / D(s)), the buffer maximising eq. (4).

    Paper 000, eq. (6), reconstructed [R]: the PDF text is garbled; the radical covers C·To (this
    is what dR_S/dB = 0 gives). ``M`` and ``C_To`` must be in the same unit (segments and packets,
    or bytes with M·m = s); the result is in that unit. ``D``: RTTs of slow start (>= 1).
    """
    MM = positive(M, "M")
    DD = positive(D, "D")
    ct = positive(C_To, "C_To")
    vv = positive(v, "v")
    return math.sqrt(2.0 * vv * MM * ct / DD)


def optimal_buffer_l_mm1b(C_To: float) -> float:
    """B̂_L = 2·C·To, the buffer maximising eq. (5) (Paper 000, eq. (7)). Same unit as ``C_To``."""
    return 2.0 * positive(C_To, "C_To")


# ----------------------------------------------------------------------------- §VI forms

def pl_loss(B: float, a: float, b: float) -> float:
    """PL-form loss rate p(B) = a·B^(-b) (Paper 000, eq. (8)); ``B`` packets (> 0), a, b > 0.

    Fitted to heavy-load simulations with Γ < 1; questionable for B below 10–20 packets. The
    result may exceed 1 for tiny B (the fit is not meant for that range). Result: probability.
    """
    return positive(a, "a") * positive(B, "B") ** (-positive(b, "b"))


def ex_loss(B: float, a: float, b: float) -> float:
    """EX-form loss rate p(B) = a·e^(-b·B) (Paper 000, eq. (14)); ``B`` packets (>= 0), a > 0,
    ``b`` in 1/packet (> 0). Fitted to heavy-load simulations with Γ > 1. Result: probability."""
    return positive(a, "a") * math.exp(-positive(b, "b") * nonneg(B, "B"))


def rtt(B: float, *, To: float, f: float, C: float) -> float:
    """T(B) = To + f·B/C, RTT with a linear heavy-load queueing delay (Paper 000, eq. (9)).

    ``B`` packets (>= 0), ``To`` s, ``f`` > 0 dimensionless (1/2 for M/M/1/B, about 0.4 typical),
    ``C`` packets/s. Linear only up to the cutoff where the users cannot fill the buffer.
    Result: seconds.
    """
    return positive(To, "To") + positive(f, "f") * nonneg(B, "B") / positive(C, "C")


def _check_form_params(a: object, b: object, f: object) -> tuple[float, float, float]:
    return positive(a, "a"), positive(b, "b"), positive(f, "f")


def r_l_pl(B: float, *, a: float, b: float, f: float, C: float, To: float,
           m: float = MSS_DEFAULT, k: float = K_SQRT) -> float:
    """L-model with the PL-form, R_L(B) = k·m / (sqrt(a·B^-b)·(To + f·B/C)) (Paper 000, eq. (10)).

    ``B`` packets (>= 0; R = 0 at B = 0, the limit), ``C`` packets/s, ``To`` s, ``m`` bytes.
    Result: bytes/s.
    """
    BB = nonneg(B, "B")
    aa, bb, ff = _check_form_params(a, b, f)
    CC = positive(C, "C")
    TT = positive(To, "To")
    kk = positive(k, "k")
    mm = positive(m, "m")
    if BB == 0.0:
        return 0.0
    return kk * mm / (math.sqrt(aa * BB ** (-bb)) * (TT + ff * BB / CC))


def r_s_pl(B: float, *, a: float, b: float, f: float, C: float, To: float, s_bytes: float,
           m: float = MSS_DEFAULT, v: float = V_DEFAULT) -> float:
    """S-model with the PL-form, R_S(B) = s / ([D(s) + v·M(s)·a·B^-b]·(To + f·B/C)).

    Paper 000, eq. (12). ``B`` packets (>= 0; R = 0 at B = 0), ``C`` packets/s, ``To`` s,
    ``s_bytes`` and ``m`` bytes, ``v`` >= 0. Result: bytes/s.
    """
    BB = nonneg(B, "B")
    aa, bb, ff = _check_form_params(a, b, f)
    s = positive(s_bytes, "s_bytes")
    M = segments(s, m)
    return _rs_core(BB, s, M, slow_start_rounds(M), positive(To, "To"), positive(C, "C"),
                    aa, bb, ff, nonneg(v, "v"), False)


def optimal_buffer_pl_l(b: float, f: float, C_To: float) -> float:
    """B̂_L = b / (f·(2-b)) · C·To, the maximiser of eq. (10) (Paper 000, eq. (11)).

    Independent of a. Requires 0 < b < 2 (for b >= 2 R_L grows without bound or tends to a
    constant: no finite optimum). ``C_To`` packets; result packets.
    """
    bb = positive(b, "b")
    if bb >= 2.0:
        raise BufsizeError(f"must be < 2 for the L-model with the PL-form (no finite optimum), "
                           f"got {bb!r}", argument="b")
    return bb / (positive(f, "f") * (2.0 - bb)) * positive(C_To, "C_To")


def _brentq(fun: Callable[[float], float], lo: float, hi: float) -> float:
    from scipy.optimize import brentq

    return float(brentq(fun, lo, hi, xtol=1e-12, rtol=1e-14, maxiter=500))


def optimal_buffer_pl_s(*, a: float, b: float, f: float, M: float, D: float, C_To: float,
                        v: float = V_DEFAULT) -> float:
    """B̂_S for the PL-form: the root of eq. (13), a·b·v·M·C·To·B^-(1+b) = a·v·M·f·(1-b)·B^-b + f·D.

    Paper 000, eq. (13) (written there with v = 1). Solved as g(B) = a·b·v·M·C·To −
    a·v·M·f·(1−b)·B − f·D·B^(1+b) = 0: g(0) > 0, g is concave and tends to −∞, so there is exactly
    one positive root for every b > 0, and it is the maximiser of (12) (R_S -> 0 at both ends).
    ``M`` segments, ``D`` RTTs, ``C_To`` packets, ``v`` > 0. Result: packets.
    """
    aa, bb, ff = _check_form_params(a, b, f)
    MM = positive(M, "M")
    DD = positive(D, "D")
    ct = positive(C_To, "C_To")
    vv = positive(v, "v")

    K = aa * bb * vv * MM * ct
    c1 = aa * vv * MM * ff * (1.0 - bb)

    def g(B: float) -> float:
        return K - c1 * B - ff * DD * B ** (1.0 + bb)

    hi = max(1.0, ct)
    while g(hi) > 0.0:
        hi *= 2.0
        if hi > 1e300:  # pragma: no cover - cannot happen for finite inputs
            raise BufsizeError("no root found for eq. (13)", argument="C_To")
    return _brentq(g, 0.0, hi)


def r_l_ex(B: float, *, a: float, b: float, f: float, C: float, To: float,
           m: float = MSS_DEFAULT, k: float = K_SQRT) -> float:
    """L-model with the EX-form, R_L(B) = k·m / (sqrt(a·e^(-bB))·(To + f·B/C)) (Paper 000, eq. (15)).

    ``B`` packets (>= 0), ``b`` 1/packet, ``C`` packets/s, ``To`` s, ``m`` bytes. Result: bytes/s.
    """
    BB = nonneg(B, "B")
    aa, bb, ff = _check_form_params(a, b, f)
    CC = positive(C, "C")
    TT = positive(To, "To")
    kk, mm = positive(k, "k"), positive(m, "m")
    if bb * BB / 2.0 > 700.0:  # e^(bB/2) overflows a float: the formula's value is unbounded
        return math.inf
    return kk * mm * math.exp(bb * BB / 2.0) / (math.sqrt(aa) * (TT + ff * BB / CC))


def r_s_ex(B: float, *, a: float, b: float, f: float, C: float, To: float, s_bytes: float,
           m: float = MSS_DEFAULT, v: float = V_DEFAULT) -> float:
    """S-model with the EX-form, R_S(B) = s / ([D(s) + v·M(s)·a·e^(-bB)]·(To + f·B/C)).

    Paper 000, eq. (17). ``B`` packets (>= 0), ``b`` 1/packet, ``C`` packets/s, ``To`` s,
    ``s_bytes`` and ``m`` bytes. Result: bytes/s.
    """
    BB = nonneg(B, "B")
    aa, bb, ff = _check_form_params(a, b, f)
    s = positive(s_bytes, "s_bytes")
    M = segments(s, m)
    return _rs_core(BB, s, M, slow_start_rounds(M), positive(To, "To"), positive(C, "C"),
                    aa, bb, ff, nonneg(v, "v"), True)


def ex_l_stationary_buffer(b: float, f: float, C_To: float) -> float:
    """B_stat = (2/(f·b))·(f − b·C·To/2) = 2/b − C·To/f, the stationary point of eq. (15).

    Paper 000, eq. (16). It is a **minimum** of R_L (d² ln R/dB² > 0), not a maximum. ``b`` in
    1/packet, ``C_To`` packets. Result: packets (may be negative).
    """
    bb = positive(b, "b")
    ff = positive(f, "f")
    return 2.0 / bb - positive(C_To, "C_To") / ff


def optimal_buffer_ex_l_paper_rule(b: float, f: float, C_To: float) -> float:
    """The paper's EX-form L-model rule: B̂ = 0 if B_stat (16) > 0, else B̂ = infinity (§VII-B.1).

    B_stat > 0 means dR_L/dB < 0 at B = 0. Beware: R_L -> infinity as B -> infinity for every
    parameter set, so "0" means "the best small buffer"; see ``optimal_buffer_ex_l_bounded``.
    Result: 0.0 or ``math.inf`` (packets).
    """
    return 0.0 if ex_l_stationary_buffer(b, f, C_To) > 0.0 else math.inf


def optimal_buffer_ex_l_bounded(*, b: float, f: float, C: float, To: float,
                                B_max: float) -> float:
    """Global maximiser of eq. (15) over [0, B_max] (packets).

    ln R_L(B) = const + b·B/2 − ln(To + f·B/C) is convex in B, so the maximum over an interval is
    at an end: the result is 0 or ``B_max`` (0 on a tie, the paper's "minimum buffer that
    maximises"). The maximiser does not depend on a. ``B_max`` should be the end of the
    linear-delay range of the fit. ``b`` 1/packet, ``C`` packets/s, ``To`` s.
    """
    bb, ff = positive(b, "b"), positive(f, "f")
    bm = nonneg(B_max, "B_max")
    CC = positive(C, "C")
    TT = positive(To, "To")
    ln0 = -math.log(TT)
    ln1 = bb * bm / 2.0 - math.log(TT + ff * bm / CC)
    return bm if ln1 > ln0 else 0.0


def ex_s_stationary_points(*, a: float, b: float, f: float, M: float, D: float, C_To: float,
                           v: float = V_DEFAULT) -> list[float]:
    """Roots B >= 0 of eq. (18), f·D/(v·M) + (a·f − a·b·C·To)·e^(-bB) = a·b·f·B·e^(-bB).

    Paper 000, eq. (18). Multiplying by e^(bB) gives h(B) = (f·D/(v·M))·e^(bB) + a·f − a·b·C·To −
    a·b·f·B, which is convex with its minimum at B* = ln(a·v·M/D)/b, so there are 0, 1 or 2 roots;
    each is bracketed around B* and found with Brent's method. ``b`` 1/packet, ``M`` segments,
    ``D`` RTTs, ``C_To`` packets. Result: sorted list of roots in packets.
    """
    aa, bb, ff = _check_form_params(a, b, f)
    MM = positive(M, "M")
    DD = positive(D, "D")
    ct = positive(C_To, "C_To")
    vv = positive(v, "v")
    c0 = ff * DD / (vv * MM)

    def h(B: float) -> float:
        if bb * B > 700.0:  # e^(bB) would overflow; h is positive there
            return math.inf
        return c0 * math.exp(bb * B) + aa * ff - aa * bb * ct - aa * bb * ff * B

    Bstar = max(0.0, math.log(aa * vv * MM / DD) / bb)
    roots: list[float] = []
    h0, hs = h(0.0), h(Bstar)
    if hs > 0.0:
        return roots
    if Bstar > 0.0 and h0 > 0.0:
        roots.append(_brentq(h, 0.0, Bstar))
    elif h0 == 0.0:
        roots.append(0.0)
    if hs == 0.0:
        if Bstar > 0.0:
            roots.append(Bstar)
        return sorted(set(roots))
    step = max(1.0, 1.0 / bb)
    hi = Bstar + step
    while h(hi) < 0.0:
        step *= 2.0
        hi = Bstar + step
    roots.append(_brentq(h, Bstar, hi))
    return sorted(set(roots))


def optimal_buffer_ex_s(*, a: float, b: float, f: float, M: float, D: float, C_To: float,
                        v: float = V_DEFAULT, B_max: float | None = None) -> float:
    """Global maximiser of eq. (17): B = 0 or a root of eq. (18), whichever gives the larger R_S.

    Paper 000, eqs. (17)-(18) and MODELS.md §1 P7. R_S -> 0 as B -> infinity, so the global
    maximum is finite. If ``B_max`` is given the search is limited to [0, B_max] (B_max is then a
    candidate too). The ranking only needs C·To (R_S ∝ 1/([D + v·M·a·e^(-bB])·(C·To + f·B))).
    Result: packets (the smallest maximiser on ties).
    """
    aa, bb, ff = _check_form_params(a, b, f)
    MM = positive(M, "M")
    DD = positive(D, "D")
    ct = positive(C_To, "C_To")
    vv = positive(v, "v")
    cands = [0.0] + ex_s_stationary_points(a=aa, b=bb, f=ff, M=MM, D=DD, C_To=ct, v=vv)
    if B_max is not None:
        bm = nonneg(B_max, "B_max")
        cands = [c for c in cands if c <= bm] + [bm]

    def score(B: float) -> float:
        return -math.log(DD + vv * MM * aa * math.exp(-bb * B)) - math.log(ct + ff * B)

    best = cands[0]
    for c in cands[1:]:
        if score(c) > score(best):
            best = c
    return best


# ----------------------------------------------------------------------------- §VII-D sensitivity

def relative_throughput_error(R: Callable[[float], float], B_hat: float, omega: float) -> float:
    """e_R(ω) = (R(B̂) − R(ω·B̂)) / R(B̂) for any throughput function ``R`` (Paper 000, eq. (19)).

    ``B_hat`` packets (> 0), ``omega`` > 0 dimensionless. Result: dimensionless (>= 0 when B̂ is
    the maximiser).
    """
    bh = positive(B_hat, "B_hat")
    w = positive(omega, "omega")
    r0 = R(bh)
    return (r0 - R(w * bh)) / r0


def sensitivity_pl_l(omega: float, b: float) -> float:
    """e_L(ω) = 1 − 2·ω^(b/2) / (2 + b·(ω − 1)), L-model with the PL-form (Paper 000, eq. (20)).

    Independent of a, f, C and To. ``omega`` > 0, 0 < ``b`` < 2. Result: dimensionless.
    """
    w = positive(omega, "omega")
    bb = positive(b, "b")
    if bb >= 2.0:
        raise BufsizeError(f"must be < 2 (no finite optimum), got {bb!r}", argument="b")
    return 1.0 - 2.0 * w ** (bb / 2.0) / (2.0 + bb * (w - 1.0))


def sensitivity_pl_s(omega: float, *, a: float, b: float, f: float, M: float, D: float,
                     C_To: float, v: float = V_DEFAULT) -> float:
    """e_S(ω) for the S-model with the PL-form: eq. (19) applied to eq. (12) at B̂ from eq. (13).

    Paper 000, §VII-D (no closed form; computed numerically). Depends on To and C only through
    C·To. ``M`` segments, ``D`` RTTs, ``C_To`` packets. Result: dimensionless.
    """
    aa, bb, ff = _check_form_params(a, b, f)
    w = positive(omega, "omega")
    MM = positive(M, "M")
    DD = positive(D, "D")
    ct = positive(C_To, "C_To")
    vv = positive(v, "v")
    bh = optimal_buffer_pl_s(a=aa, b=bb, f=ff, M=MM, D=DD, C_To=ct, v=vv)

    def R(B: float) -> float:  # proportional to (12): the constant s/To cancels in (19)
        return 1.0 / ((DD + vv * MM * aa * B ** (-bb)) * (ct + ff * B))

    return relative_throughput_error(R, bh, w)


# ----------------------------------------------------------------------------- §VII-C, §III-A

@dataclass(frozen=True)
class BufferRange:
    """A recommended buffer range in packets with the reason it was chosen."""

    low: float
    high: float
    reason: str


def operator_rule(gamma: float, mode: str, *, bdp_packets: float | None = None) -> BufferRange:
    """The paper's rule of thumb for operators (Paper 000, §VII-C).

    ``gamma`` = Γ = Cout/Cin (> 0). Γ > 1: "just a few (say 20-30) packets", independent of the
    BDP. Γ <= 1: a small fraction of the BDP for the S-model (20-25 % in Table II's simulations) or
    the order of the BDP for the L-model (60-70 %); ``bdp_packets`` (C·To in packets) is then
    required. The paper states the rule for Γ < 1 and Γ > 1 only; Γ = 1 is put on the Γ < 1 side
    because §VI-B finds the PL-form still valid at Γ = 1 for heavy-tailed flow sizes.
    ``mode``: "S" or "L". Result: a BufferRange in packets.
    """
    g = positive(gamma, "gamma")
    md = _mode(mode)
    if g > 1.0:
        return BufferRange(20.0, 30.0, "capacity ratio > 1: EX-form losses, a few packets suffice "
                                       "(20-30, independent of the BDP)")
    if bdp_packets is None:
        raise BufsizeError("is required when the capacity ratio is <= 1", argument="bdp_packets")
    bdp = positive(bdp_packets, "bdp_packets")
    if md == "S":
        return BufferRange(0.20 * bdp, 0.25 * bdp, "capacity ratio <= 1, optimising slow-start "
                                                   "flows: 20-25 % of the BDP")
    return BufferRange(0.60 * bdp, 0.70 * bdp, "capacity ratio <= 1, optimising congestion-"
                                               "avoidance flows: 60-70 % of the BDP")


def closed_loop_offered_load(U: float, S_mean_bytes: float, Th: float, Tt: float = 0.0) -> float:
    """Offered load of U closed-loop users, U·S̄/(Th + Tt) (Paper 000, §III-A).

    ``U`` users (> 0), ``S_mean_bytes`` mean transfer size in bytes, ``Th`` mean think time in s
    (> 0), ``Tt`` mean transfer time in s (>= 0; Tt -> 0 gives the upper bound). The real offered
    load can never exceed the output capacity: if this value does, the link saturates and Tt grows.
    Result: bytes/s.
    """
    return (positive(U, "U") * positive(S_mean_bytes, "S_mean_bytes")
            / (positive(Th, "Th") + nonneg(Tt, "Tt")))


# ----------------------------------------------------------------------------- convenience

def _mode(mode: object) -> str:
    if mode not in _MODES:
        raise BufsizeError(f"must be 'S' or 'L', got {mode!r}", argument="mode")
    return str(mode)


def _form(form: object) -> str:
    if form not in _FORMS:
        raise BufsizeError(f"must be one of 'pl', 'ex', 'mm1b', got {form!r}", argument="form")
    return str(form)


def _resolve_params(form: str, a, b, f) -> tuple[float, float, float]:
    if form == "mm1b":
        for name, val in (("a", a), ("b", b), ("f", f)):
            if val is not None:
                raise BufsizeError("is fixed by the M/M/1/B form (a = b = 1, f = 1/2); "
                                   "leave it unset or use form 'pl'", argument=name)
        return 1.0, 1.0, 0.5
    if form == "pl":
        return (positive(PL_DEFAULT_A if a is None else a, "a"),
                positive(PL_DEFAULT_B if b is None else b, "b"),
                positive(PL_DEFAULT_F if f is None else f, "f"))
    for name, val in (("a", a), ("b", b), ("f", f)):
        if val is None:
            raise BufsizeError("is required for the EX-form (the paper prints no typical value)",
                               argument=name)
    return positive(a, "a"), positive(b, "b"), positive(f, "f")


def optimal_buffer(form: str, mode: str, *, C_pps: float, To: float, s_bytes: float | None = None,
                   m: float = MSS_DEFAULT, a: float | None = None, b: float | None = None,
                   f: float | None = None, v: float = V_DEFAULT,
                   B_max: float | None = None) -> float:
    """Optimal buffer (packets) that maximises average per-flow throughput, Paper 000 §V-§VII.

    ``form``: "mm1b" (eqs. (6)/(7), p = 1/B, f = 1/2; a, b, f must be unset), "pl" (eqs. (11)/(13);
    a, b, f default to ``PL_DEFAULT_*``, the paper's typical values, not a fit to your traffic) or
    "ex" (eqs. (15)-(18); a, b (1/packet), f required). ``mode``: "S" (slow-start flows of
    ``s_bytes`` bytes, required) or "L" (congestion-avoidance flows). ``C_pps``: output capacity in
    packets/s; ``To``: propagation RTT in s; ``m``: segment size in bytes; ``v`` >= 0.
    ``B_max`` (packets, optional): limit the search to [0, B_max] (e.g. the end of the linear-delay
    range of the fit). For the unimodal cases (mm1b, pl) that is min(B̂, B_max).
    EX, L-model: without ``B_max`` the paper's rule is returned (0 or ``math.inf``); with it the
    bounded global maximum (0 or B_max). Result: packets (float, possibly ``math.inf``).
    """
    fm = _form(form)
    md = _mode(mode)
    C = positive(C_pps, "C_pps")
    T = positive(To, "To")
    ct = C * T
    aa, bb, ff = _resolve_params(fm, a, b, f)
    bm = None if B_max is None else nonneg(B_max, "B_max")
    if md == "S":
        if s_bytes is None:
            raise BufsizeError("is required for the S-model (flow size in bytes)",
                               argument="s_bytes")
        M = segments(s_bytes, m)
        D = slow_start_rounds(M)
        vv = positive(v, "v")
    else:
        positive(m, "m")
    if fm == "ex":
        if md == "L":
            if bm is None:
                return optimal_buffer_ex_l_paper_rule(bb, ff, ct)
            return optimal_buffer_ex_l_bounded(b=bb, f=ff, C=C, To=T, B_max=bm)
        return optimal_buffer_ex_s(a=aa, b=bb, f=ff, M=M, D=D, C_To=ct, v=vv, B_max=bm)
    if fm == "mm1b":
        best = (optimal_buffer_s_mm1b(M, D, ct, v=vv) if md == "S" else optimal_buffer_l_mm1b(ct))
    else:
        best = (optimal_buffer_pl_s(a=aa, b=bb, f=ff, M=M, D=D, C_To=ct, v=vv) if md == "S"
                else optimal_buffer_pl_l(bb, ff, ct))
    return best if bm is None else min(best, bm)


def throughput_curve(form: str, mode: str, B, *, C_pps: float, To: float,
                     s_bytes: float | None = None, m: float = MSS_DEFAULT, a: float | None = None,
                     b: float | None = None, f: float | None = None, v: float = V_DEFAULT,
                     k: float = K_SQRT):
    """Per-flow throughput R(B) in bytes/s for an array of buffers ``B`` (packets, >= 0).

    Same ``form``/``mode``/parameter conventions as :func:`optimal_buffer`; evaluates eq. (4)/(5)
    ("mm1b"), (10)/(12) ("pl") or (15)/(17) ("ex") element-wise with NumPy. For mm1b and pl the
    value at B = 0 is the limit 0. Returns a float NumPy array with the shape of ``B``.
    """
    import numpy as np

    fm = _form(form)
    md = _mode(mode)
    C = positive(C_pps, "C_pps")
    T = positive(To, "To")
    aa, bb, ff = _resolve_params(fm, a, b, f)
    mm = positive(m, "m")
    kk = positive(k, "k")
    BB = np.asarray(B, dtype=float)
    if not np.all(np.isfinite(BB)) or np.any(BB < 0):
        raise BufsizeError("must be finite and >= 0 packets", argument="B")
    rtt_arr = T + ff * BB / C
    with np.errstate(divide="ignore"):
        if fm == "ex":
            p = aa * np.exp(-bb * BB)
        else:
            p = np.where(BB > 0, aa * np.power(np.where(BB > 0, BB, 1.0), -bb), np.inf)
    if md == "L":
        out = np.where(np.isinf(p), 0.0, kk * mm / (rtt_arr * np.sqrt(np.where(np.isinf(p), 1, p))))
        return out
    if s_bytes is None:
        raise BufsizeError("is required for the S-model (flow size in bytes)", argument="s_bytes")
    s = positive(s_bytes, "s_bytes")
    M = segments(s, mm)
    D = slow_start_rounds(M)
    vv = nonneg(v, "v")
    with np.errstate(invalid="ignore"):
        out = np.where(np.isinf(p), 0.0, s / ((D + vv * M * np.where(np.isinf(p), 0, p)) * rtt_arr))
    return out
