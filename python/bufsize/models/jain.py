"""Paper 001 — Jain, Prasad, Dovrolis, "The TCP bandwidth-delay product revisited: network
buffering, cross traffic, and socket buffer auto-sizing".

The paper asks which socket buffer S a bulk TCP transfer should use. Its answer depends on the
tight-link buffer Bt: on an *under-buffered* path (Bt < C·Tm) a congestion-limited transfer cannot
saturate the link (down to 3/4 of it), so the best S lies in the "sweet spot" (C·Tm, C·Tm + Bt]
where the transfer saturates the path without causing losses. The Appendix derivation of eq. (4)
is also the classic utilisation of *one Reno flow through an under-buffered router*; it is exposed
as :func:`reno_single_flow_utilization` and :func:`reno_single_flow_loss_rate` for the simulator
tests, with :func:`simulate_reno_rounds` as an independent round-by-round check.

Units in this module: windows, socket buffers ``S``, router buffers ``Bt`` / ``Bt_avail`` and
bandwidth-delay products in **packets**; capacities ``C``, available bandwidth ``A``, rates ``Rc``
and throughputs in **packets/s**; times in **seconds**. The SOBAS helper takes bit/s and returns
bytes (its argument names say so). Convert with the packet size (1000 bytes in the paper's §V).

Function — equation — when it applies
-------------------------------------
======================================  ===========  ================================================
function                                equation     when it applies
======================================  ===========  ================================================
``send_window``, ``window_throughput``  (1)-(3)      any TCP transfer (Ws = min(Wc, S))
``bdp1`` … ``bdp5``                     §II          the six BDP definitions (BDP6 = any S above the
                                                     largest congestion window: no formula)
``narrow_link_capacity``,               §II          C = min C_i, A = min C_i(1 - ρ_i)
``tight_link_available_bandwidth``
``is_under_buffered``                   §IV          Bt < C·Tm
``transfer_throughput``                 (4), (5)     no cross traffic, single losses, fast
                                                     retransmit, no slow start
``congestion_limited_throughput``       (4) = (17)   S > C·Tm + Bt
``sweet_spot``                          §IV          S range giving the MFT (= C)
``rounds_between_losses`` … ``cycle_    (12)-(17)    Appendix I sawtooth (C·Tm + Bt >> 1)
duration``
``reno_single_flow_utilization``        (17)/(16)    one Reno flow, drop-tail buffer Bt
``reno_single_flow_loss_rate``          (14)         same
``simulate_reno_rounds``                (10)         round-by-round recursion (second method)
``udp_cross_traffic_throughput``        §V-A         fluid, rate-controlled cross traffic:
                                                     (4)/(5) with C -> A, Tm -> Te, Bt -> B̃t
``udp_cross_traffic_socket_buffer_      §V-A         Ŝ in [A·Te, A·Te + B̃t], R̂ = A
range``
``cross_traffic_rate_with_backlog``     (6)          persistent buffer-limited TCP cross traffic
``throughput_given_backlog``            (7)          same, as a function of the backlog Q
``tcp_cross_traffic_throughput``        (6)-(7)      same, as a function of S (solved numerically)
``mft_tcp_cross_traffic``               (8)          same: R̂ (= max lossless throughput)
``optimal_socket_buffer_tcp_cross_      §V-B         Ŝ = R̂·Te + B̃t
traffic``
``pftk_throughput``                     [32]         TCP throughput of Padhye et al.
                                                     (approximation; b, T0 not given in the paper)
``congested_path_throughput``           (9)          congested path: min(S/T, f(T, p))
``window_limited_rate``                 §V-B         n flows of window W and RTT T
``sobas_receive_buffer_bytes``          §VII-A       S_rs = R_rs × T_rs at rate saturation
======================================  ===========  ================================================
"""

from __future__ import annotations

import math
from typing import Iterable

from bufsize.errors import BufsizeError
from bufsize.models._check import count, fraction, nonneg, number, positive

# ----------------------------------------------------------------------------- eqs. (1)–(3)


def send_window(Wc: float, S: float) -> float:
    """Ws = min{Wc, S}, the send window (Paper 001, eqs. (1)-(2)).

    ``Wc`` congestion window and ``S`` = min(send, receive socket buffer), both in packets
    (>= 0). The transfer is congestion-limited if Ws = Wc, buffer-limited if Ws = S.
    Result: packets.
    """
    return min(nonneg(Wc, "Wc"), nonneg(S, "S"))


def window_throughput(Ws: float, T: float) -> float:
    """R = Ws / T(Ws) (Paper 001, eq. (3)). ``Ws`` packets, ``T`` RTT in s. Result: packets/s."""
    return nonneg(Ws, "Ws") / positive(T, "T")


# ----------------------------------------------------------------------------- §II BDPs


def bdp1(C: float, Tm: float) -> float:
    """BDP1 = C·Tm: narrow-link capacity × minimum RTT (Paper 001, §II). packets/s × s -> packets."""
    return positive(C, "C") * positive(Tm, "Tm")


def bdp2(C: float, Te: float) -> float:
    """BDP2 = C·Te: capacity × exogenous (pre-transfer mean) RTT (Paper 001, §II). Packets."""
    return positive(C, "C") * positive(Te, "Te")


def bdp3(A: float, Tm: float) -> float:
    """BDP3 = A·Tm: available bandwidth × minimum RTT (Paper 001, §II). Packets."""
    return nonneg(A, "A") * positive(Tm, "Tm")


def bdp4(A: float, Te: float) -> float:
    """BDP4 = A·Te: available bandwidth × exogenous RTT (Paper 001, §II). Packets."""
    return nonneg(A, "A") * positive(Te, "Te")


def bdp5(BTC: float, Ta: float) -> float:
    """BDP5 = BTC·Ta: bulk transfer capacity × RTT during the transfer (Paper 001, §II). Packets.

    (BDP6 is "any S larger than the largest congestion window": it has no formula.)
    """
    return nonneg(BTC, "BTC") * positive(Ta, "Ta")


def min_rtt_from_bdp(bdp: float, C: float) -> float:
    """Tm = BDP1 / C, the inverse of :func:`bdp1`. ``bdp`` in the unit of C × s. Result: s."""
    return positive(bdp, "bdp") / positive(C, "C")


def _floats(xs: Iterable[object], name: str) -> list[float]:
    try:
        items = list(xs)  # type: ignore[arg-type]
    except TypeError:
        raise BufsizeError("must be a sequence of numbers", argument=name) from None
    if not items:
        raise BufsizeError("must not be empty", argument=name)
    return [number(x, name) for x in items]


def narrow_link_capacity(capacities: Iterable[float]) -> float:
    """C = min_i C_i, capacity of the narrow link of a path (Paper 001, §II). Same unit as input."""
    caps = _floats(capacities, "capacities")
    return min(positive(c, "capacities") for c in caps)


def tight_link_available_bandwidth(capacities: Iterable[float],
                                   utilizations: Iterable[float]) -> float:
    """A = min_i C_i·(1 − ρ_i), available bandwidth of the tight link (Paper 001, §II).

    ``capacities`` (> 0) and ``utilizations`` (each in [0, 1]) per link, same length. Result: the
    unit of the capacities.
    """
    caps = [positive(c, "capacities") for c in _floats(capacities, "capacities")]
    rhos = [fraction(r, "utilizations", low_open=False, high_open=False)
            for r in _floats(utilizations, "utilizations")]
    if len(caps) != len(rhos):
        raise BufsizeError(f"needs one value per link ({len(caps)}), got {len(rhos)}",
                           argument="utilizations")
    return min(c * (1.0 - r) for c, r in zip(caps, rhos))


# ----------------------------------------------------------------------------- §IV, eqs. (4)–(5)


def is_under_buffered(C: float, Tm: float, Bt: float) -> bool:
    """True if Bt < C·Tm: the path is under-buffered for a transfer with minimum RTT Tm (§IV).

    ``C`` packets/s, ``Tm`` s, ``Bt`` packets. A buffer sized as C·T0 is under-buffered for flows
    with RTT > T0 and over-buffered for shorter ones.
    """
    return nonneg(Bt, "Bt") < bdp1(C, Tm)


def _util(bdp: float, Bt: float) -> float:
    """(3/4)·X² / (X² − Bt·bdp) with X = bdp + Bt, or 1 when over-buffered (Bt >= bdp)."""
    if Bt >= bdp:
        return 1.0
    X = bdp + Bt
    return 0.75 * X * X / (X * X - Bt * bdp)


def congestion_limited_throughput(*, C: float, Tm: float, Bt: float) -> float:
    """Throughput of a congestion-limited transfer (S > C·Tm + Bt), Paper 001 eqs. (4)/(17), (5).

    Under-buffered (Bt < C·Tm): (3C/4)·(Bt + C·Tm)² / ((Bt + C·Tm)² − Bt·C·Tm), between 3C/4 (Bt = 0)
    and C. Over-buffered: C. Assumes single losses recovered by fast retransmit, no slow start,
    C·Tm + Bt >> 1. ``C`` packets/s, ``Tm`` s, ``Bt`` packets (>= 0). Result: packets/s.
    """
    CC = positive(C, "C")
    return CC * _util(bdp1(CC, Tm), nonneg(Bt, "Bt"))


def transfer_throughput(S: float, *, C: float, Tm: float, Bt: float) -> float:
    """R(S), throughput of a bulk transfer with socket buffer S on a path without cross traffic.

    Paper 001, eq. (4) (Bt < C·Tm) and eq. (5) (Bt >= C·Tm): S/Tm for S <= C·Tm; C for
    C·Tm < S <= C·Tm + Bt (the sweet spot); :func:`congestion_limited_throughput` above.
    ``S`` packets (>= 0), ``C`` packets/s, ``Tm`` minimum RTT in s, ``Bt`` tight-link buffer in
    packets (>= 0). Result: packets/s.
    """
    SS = nonneg(S, "S")
    CC = positive(C, "C")
    TT = positive(Tm, "Tm")
    BB = nonneg(Bt, "Bt")
    bdp = CC * TT
    if SS <= bdp:
        return SS / TT
    if SS <= bdp + BB:
        return CC
    return CC * _util(bdp, BB)


def sweet_spot(*, C: float, Tm: float, Bt: float) -> tuple[float, float]:
    """The socket-buffer range (C·Tm, C·Tm + Bt] in which R(S) = C, the MFT (Paper 001, §IV).

    ``C`` packets/s, ``Tm`` s, ``Bt`` packets. Result: (low, high) in packets (low excluded).
    """
    bdp = bdp1(C, Tm)
    return bdp, bdp + nonneg(Bt, "Bt")


# ----------------------------------------------------------------------------- Appendix I


def _X(bdp_packets: float, buffer_packets: float) -> tuple[float, float, float]:
    bdp = positive(bdp_packets, "bdp_packets")
    B = nonneg(buffer_packets, "buffer_packets")
    return bdp, B, bdp + B


def rounds_between_losses(bdp_packets: float, buffer_packets: float, *,
                          exact: bool = False) -> float:
    """m = (C·Tm + Bt − 1)/2 ≈ (C·Tm + Bt)/2, rounds between two losses (Paper 001, eq. (12)).

    ``exact=True`` keeps the −1. Inputs in packets. Result: rounds (RTTs).
    """
    _, _, X = _X(bdp_packets, buffer_packets)
    return (X - 1.0) / 2.0 if exact else X / 2.0


def rounds_without_backlog(bdp_packets: float, buffer_packets: float, *,
                           exact: bool = False) -> float:
    """n = (C·Tm − Bt + 1)/2 ≈ (C·Tm − Bt)/2, rounds after a loss with an empty tight-link queue.

    Paper 001, Appendix I case 3.b (under-buffered paths; 0 when Bt >= C·Tm). Inputs in packets.
    Result: rounds.
    """
    bdp, B, _ = _X(bdp_packets, buffer_packets)
    if B >= bdp:
        return 0.0
    return (bdp - B + 1.0) / 2.0 if exact else (bdp - B) / 2.0


def packets_per_cycle(bdp_packets: float, buffer_packets: float) -> float:
    """N_V ≈ (3/8)·(C·Tm + Bt)², packets sent between two losses (Paper 001, eq. (13)).

    Inputs in packets. Result: packets.
    """
    _, _, X = _X(bdp_packets, buffer_packets)
    return 0.375 * X * X


def cycle_duration(*, C: float, Tm: float, Bt: float, exact: bool = False) -> float:
    """T_V, duration of one loss cycle (Paper 001, eqs. (15)-(17)).

    Over-buffered (Bt >= C·Tm): (3/(8C))·(C·Tm + Bt)², eq. (16). Under-buffered:
    [(C·Tm)² + C·Tm·Bt + Bt²]/(2C), or with ``exact=True`` the form before dropping O(1) terms,
    [(C·Tm)² + C·Tm·(Bt+2) + Bt·(Bt+2)]/(2C) (``exact`` is only defined for the under-buffered
    case). ``C`` packets/s, ``Tm`` s, ``Bt`` packets. Result: seconds.
    """
    CC = positive(C, "C")
    bdp = bdp1(CC, Tm)
    B = nonneg(Bt, "Bt")
    if B >= bdp:
        return 0.375 * (bdp + B) ** 2 / CC
    if exact:
        return (bdp * bdp + bdp * (B + 2.0) + B * (B + 2.0)) / (2.0 * CC)
    return (bdp * bdp + bdp * B + B * B) / (2.0 * CC)


def reno_single_flow_utilization(bdp_packets: float, buffer_packets: float) -> float:
    """Link utilisation R/C of one long-lived Reno flow through a drop-tail buffer.

    Paper 001, eq. (17) (= (4), third case) for buffer < BDP: (3/4)·X²/(X² − B·BDP) with
    X = BDP + B, from 0.75 at B = 0 to 1 at B = BDP; 1 for buffer >= BDP (eq. (16)). Sawtooth
    model: single losses, fast retransmit, no slow start or timeouts, BDP + B >> 1.
    ``bdp_packets`` = C·Tm (> 0), ``buffer_packets`` (>= 0). Result: fraction in [0.75, 1].
    """
    bdp, B, _ = _X(bdp_packets, buffer_packets)
    return _util(bdp, B)


def reno_single_flow_loss_rate(bdp_packets: float, buffer_packets: float) -> float:
    """Loss rate of one Reno flow, p = (8/3) / (C·Tm + Bt)² (Paper 001, eq. (14)).

    One loss per cycle of N_V packets (eq. (13)). Needs (C·Tm + Bt)² >= 8/3 for p <= 1 (the model
    assumes C·Tm + Bt >> 1). ``bdp_packets`` (> 0), ``buffer_packets`` (>= 0).
    Result: probability per packet.
    """
    _, _, X = _X(bdp_packets, buffer_packets)
    if X * X < 8.0 / 3.0:
        raise BufsizeError(f"BDP + buffer must be >= 1.64 packets for eq. (14), got {X!r}",
                           argument="bdp_packets")
    return (8.0 / 3.0) / (X * X)


def simulate_reno_rounds(bdp_packets: float, buffer_packets: float, *,
                         cycles: int = 20) -> tuple[float, float]:
    """Round-by-round simulation of the Appendix recursion (10); returns (utilisation, loss rate).

    Paper 001, Appendix I, as an independent check of eqs. (14) and (16)/(17). Each round lasts
    max(Tm, W/C) (the link drains W packets, at least one RTT passes); the window grows by one
    packet per round; when it reaches C·Tm + Bt the queue overflows with a single loss and the
    window halves (the +1 of eq. (11) is dropped, as in the approximations (12)-(17); the window of
    the loss round is capped at C·Tm + Bt so cycles repeat exactly). Starts from W = 1, discards
    the first (transient) cycle and measures ``cycles`` full cycles. Utilisation agrees with
    eq. (17) within about 0.6/(C·Tm + Bt) relative; the simulated loss rate is below eq. (14) by a
    relative O(1/(C·Tm + Bt)) (2 to 4 /(C·Tm + Bt)), because eq. (13) drops the end-point terms of
    the sum of windows.
    ``bdp_packets`` (>= 1), ``buffer_packets`` (>= 0); cost is O(cycles·(BDP + B)) Python steps.
    """
    bdp = positive(bdp_packets, "bdp_packets")
    if bdp < 1.0:
        raise BufsizeError(f"must be >= 1 packet for the round recursion, got {bdp!r}",
                           argument="bdp_packets")
    B = nonneg(buffer_packets, "buffer_packets")
    n = count(cycles, "cycles", minimum=1)
    X = bdp + B
    W = 1.0
    sent = 0.0
    time_in_rtts = 0.0
    losses = 0
    measuring = False
    while losses < n + 1:
        at_loss = W >= X
        if at_loss:
            W = X
        if measuring:
            sent += W
            time_in_rtts += max(1.0, W / bdp)
        if at_loss:
            losses += 1
            measuring = True
            W /= 2.0
        else:
            W += 1.0
    # utilisation = packets / (C · time) with time in units of Tm: C·Tm = bdp
    return sent / (bdp * time_in_rtts), n / sent


# ----------------------------------------------------------------------------- §V cross traffic


def available_bandwidth(C: float, rho: float) -> float:
    """A = C·(1 − ρ) (Paper 001, §II). ``C`` packets/s, ``rho`` utilisation in [0, 1]."""
    return positive(C, "C") * (1.0 - fraction(rho, "rho", low_open=False, high_open=False))


def udp_cross_traffic_throughput(S: float, *, C: float, Rc: float, Te: float,
                                 Bt_avail: float) -> float:
    """R(S) with rate-controlled (UDP) cross traffic of mean rate Rc, fluid model (Paper 001, §V-A).

    Eqs. (4)/(5) with C -> A = C − Rc, Tm -> Te, Bt -> B̃t: MFT R̂ = A for any S in
    [A·Te, A·Te + B̃t]; if B̃t < A·Te and S > A·Te + B̃t, (3A/4)(B̃t + A·Te)²/((B̃t + A·Te)² −
    B̃t·A·Te). First-order (fluid) approximation: with bursty cross traffic the measured MFT is
    below A with small buffers. ``S`` packets, ``C`` and ``Rc`` packets/s (0 <= Rc < C), ``Te``
    exogenous RTT in s, ``Bt_avail`` mean available tight-link buffer in packets. Result: packets/s.
    """
    CC = positive(C, "C")
    R = nonneg(Rc, "Rc")
    if R >= CC:
        raise BufsizeError(f"must be below the capacity C = {CC!r} (no available bandwidth)",
                           argument="Rc")
    return transfer_throughput(S, C=CC - R, Tm=Te, Bt=Bt_avail)


def udp_cross_traffic_socket_buffer_range(*, C: float, Rc: float, Te: float,
                                          Bt_avail: float) -> tuple[float, float]:
    """Ŝ range [A·Te, A·Te + B̃t] reaching the MFT R̂ = A with UDP cross traffic (Paper 001, §V-A).

    Fluid model; with bursty cross traffic the measured optimum sits nearer A·Te. ``C``, ``Rc``
    packets/s (Rc < C), ``Te`` s, ``Bt_avail`` packets. Result: (low, high) in packets.
    """
    CC = positive(C, "C")
    R = nonneg(Rc, "Rc")
    if R >= CC:
        raise BufsizeError(f"must be below the capacity C = {CC!r} (no available bandwidth)",
                           argument="Rc")
    low = (CC - R) * positive(Te, "Te")
    return low, low + nonneg(Bt_avail, "Bt_avail")


def _ct_args(C: float, A: float, T_ct: float) -> tuple[float, float, float]:
    CC = positive(C, "C")
    AA = positive(A, "A")
    if AA > CC:
        raise BufsizeError(f"must be <= the capacity C = {CC!r}", argument="A")
    return CC, AA, positive(T_ct, "T_ct")


def cross_traffic_rate_with_backlog(Q: float, *, C: float, A: float, T_ct: float) -> float:
    """R'_ct = (C − A)·T_ct / (T_ct + Q/C), rate of buffer-limited TCP cross traffic when the
    target keeps a backlog Q at the tight link (Paper 001, eq. (6)).

    ``Q`` packets (>= 0), ``C`` and ``A`` packets/s (0 < A <= C), ``T_ct`` cross-traffic RTT in s.
    Result: packets/s.
    """
    CC, AA, T = _ct_args(C, A, T_ct)
    return (CC - AA) * T / (T + nonneg(Q, "Q") / CC)


def throughput_given_backlog(Q: float, *, C: float, A: float, T_ct: float) -> float:
    """R = C − R'_ct = A·(T_ct + Q/A)/(T_ct + Q/C) >= A, target throughput with backlog Q.

    Paper 001, eq. (7). Same units as :func:`cross_traffic_rate_with_backlog`. Result: packets/s.
    """
    CC, AA, T = _ct_args(C, A, T_ct)
    QQ = nonneg(Q, "Q")
    return AA * (T + QQ / AA) / (T + QQ / CC)


def mft_tcp_cross_traffic(*, C: float, A: float, T_ct: float, Bt_avail: float) -> float:
    """R̂ = A·(T_ct + B̃t/A)/(T_ct + B̃t/C), MFT with buffer-limited persistent TCP cross traffic.

    Paper 001, eq. (8): eq. (7) at Q = B̃t (the target fills the available buffer without loss);
    also the maximum lossless throughput R_max. The paper notes the model overestimates R̂ (it
    assumes losses only when the buffer is completely full). ``C``, ``A`` packets/s, ``T_ct`` s,
    ``Bt_avail`` packets (B̃t <= Bt; MODELS.md uses B̃t = Bt). Result: packets/s.
    """
    return throughput_given_backlog(nonneg(Bt_avail, "Bt_avail"), C=C, A=A, T_ct=T_ct)


def optimal_socket_buffer_tcp_cross_traffic(*, C: float, A: float, T_ct: float, Te: float,
                                            Bt_avail: float) -> float:
    """Ŝ = R̂·Te + B̃t, socket buffer reaching the MFT with TCP cross traffic (Paper 001, §V-B).

    Units as :func:`mft_tcp_cross_traffic`, ``Te`` exogenous RTT in s. Result: packets.
    """
    B = nonneg(Bt_avail, "Bt_avail")
    return mft_tcp_cross_traffic(C=C, A=A, T_ct=T_ct, Bt_avail=B) * positive(Te, "Te") + B


def tcp_cross_traffic_throughput(S: float, *, C: float, A: float, T_ct: float, Te: float,
                                 Bt_avail: float) -> float:
    """R(S) with persistent buffer-limited TCP cross traffic (Paper 001, §V-B, eqs. (6)-(7)).

    S <= A·Te: R = S/Te. A·Te < S <= Ŝ = R̂·Te + B̃t: the target keeps a backlog Q = S − R·Te and
    R = A·(T_ct + Q/A)/(T_ct + Q/C) (eq. (7)); this implicit equation is solved numerically
    (Brent's method on Q in [0, B̃t]; the residual S − Q − Te·R(Q) is strictly decreasing, so the
    root is unique). S > Ŝ causes losses, which the paper does not model: BufsizeError.
    ``S`` packets, ``C``/``A`` packets/s, ``T_ct``/``Te`` s, ``Bt_avail`` packets.
    Result: packets/s.
    """
    SS = nonneg(S, "S")
    CC, AA, T = _ct_args(C, A, T_ct)
    TE = positive(Te, "Te")
    B = nonneg(Bt_avail, "Bt_avail")
    if SS <= AA * TE:
        return SS / TE
    s_hat = optimal_socket_buffer_tcp_cross_traffic(C=CC, A=AA, T_ct=T, Te=TE, Bt_avail=B)
    if SS > s_hat * (1.0 + 1e-12):
        raise BufsizeError(f"is above Ŝ = {s_hat:.6g} packets, where the target causes losses; "
                           "eqs. (6)-(8) do not model that range", argument="S")

    def resid(Q: float) -> float:
        return SS - Q - TE * AA * (T + Q / AA) / (T + Q / CC)

    lo, hi = 0.0, B
    if resid(hi) >= 0.0:  # S == Ŝ up to rounding
        return AA * (T + hi / AA) / (T + hi / CC)
    from scipy.optimize import brentq

    Q = float(brentq(resid, lo, hi, xtol=1e-12, rtol=1e-14, maxiter=500))
    return AA * (T + Q / AA) / (T + Q / CC)


# ----------------------------------------------------------------------------- §VI, §VII


def pftk_throughput(T: float, p: float, *, b: float = 2.0, T0: float = 1.0,
                    Wmax: float = math.inf) -> float:
    """TCP throughput of Padhye, Firoiu, Towsley, Kurose (the paper's ref. [32]), approximate form.

    f(T, p) = min(Wmax/T, 1 / (T·sqrt(2bp/3) + T0·min(1, 3·sqrt(3bp/8))·p·(1 + 32p²))).
    Not restated in paper 001 (which only cites it for eq. (9)); the paper gives neither b nor T0,
    so the defaults b = 2 (delayed ACKs) and T0 = 1 s are assumptions. ``T`` RTT in s, ``p`` loss
    rate in (0, 1], ``b`` packets per ACK (> 0), ``T0`` retransmission timeout in s, ``Wmax``
    maximum window in packets (default unlimited). Result: packets/s.
    """
    TT = positive(T, "T")
    pp = fraction(p, "p", high_open=False)
    bb = positive(b, "b")
    t0 = positive(T0, "T0")
    wmax = math.inf if Wmax == math.inf else positive(Wmax, "Wmax")
    denom = (TT * math.sqrt(2.0 * bb * pp / 3.0)
             + t0 * min(1.0, 3.0 * math.sqrt(3.0 * bb * pp / 8.0)) * pp * (1.0 + 32.0 * pp * pp))
    return min(wmax / TT, 1.0 / denom)


def congested_path_throughput(S: float, *, T: float, p: float, b: float = 2.0,
                              T0: float = 1.0) -> float:
    """R(S) ≈ min{S/T, f(T, p)} on a congested path (Paper 001, eq. (9)), f from
    :func:`pftk_throughput`. A limited S can only reduce R: Ŝ is any S above the largest
    congestion window (BDP6) and R̂ = BTC. ``S`` packets, ``T`` s, ``p`` in (0, 1].
    Result: packets/s.
    """
    SS = nonneg(S, "S")
    TT = positive(T, "T")
    return min(SS / TT, pftk_throughput(TT, p, b=b, T0=T0))


def window_limited_rate(n_flows: float, window: float, rtt: float) -> float:
    """Aggregate rate of n window-limited flows, n·W/T (Paper 001, §V-B: R_ct = W_ct/T_ct).

    ``n_flows`` (>= 1, whole), ``window`` packets, ``rtt`` s. Result: packets/s.
    """
    return count(n_flows, "n_flows") * positive(window, "window") / positive(rtt, "rtt")


def sobas_receive_buffer_bytes(rate_bps: float, rtt: float) -> float:
    """S_rs = R_rs × T_rs, the receive buffer SOBAS sets at rate saturation (Paper 001, §VII-A).

    Applied only if no probe was lost on the forward path in the last 1000 probes (otherwise the
    path is congested and S stays at its maximum). ``rate_bps`` receive throughput at saturation in
    bit/s, ``rtt`` RTT at saturation in s. Result: bytes.
    """
    return positive(rate_bps, "rate_bps") / 8.0 * positive(rtt, "rtt")
