"""Buffer sizing for a bottleneck shared by heterogeneous TCP flows (paper 003).

Paper 003, "Router buffer sizing for the Internet with heterogeneous TCP", models the aggregate
window W of ``n`` long TCP flows (Reno, BIC, CUBIC', CUBIC'', CTCP) as a normal variable whose
mean mu and standard deviation delta follow from each protocol's congestion-avoidance sawtooth.
Every protocol is summarised by its *characteristic value* ``a_i = delta_i / mu_i`` (a property of
its window growth function only); a mix of protocols by ``a = sqrt(sum a_i^2 / n)``. From there
three constraints give a buffer:

* link utilization ``P(W >= BDP) >= tau``    -> a lower bound on B (Theorems 1, 2);
* drop rate ``P(W <= BDP + B + phi W) >= rho`` -> another lower bound (Theorem 3);
* queueing delay ``<= lambda``               -> an upper bound ``B <= C lambda``;

and, when the delay bound is below the others, the compromises of Sec. VII-B (a reduced
utilization guarantee q, an increased drop rate).

Units. Buffers, windows and BDPs are in packets (any one unit works as long as B, W and BDP share
it; names ending in ``_bytes`` are bytes). ``capacity_pps`` is packets/s, ``capacity_bps`` bit/s,
times (``rtt``, ``max_delay_s``, epochs) are seconds. ``n`` is a number of flows; ``a``, ``z``,
``tau``, ``rho``, ``phi``, ``gamma`` are dimensionless.

Protocol names (case-insensitive): ``reno``; ``bic``; ``cubic1`` / ``cubic_prime`` (CUBIC',
Linux <= 2.6.25, beta = 0.8); ``cubic2`` / ``cubic`` (CUBIC'', Linux >= 2.6.26, beta = 0.7 -- this
is the CUBIC Linux still ships, so plain ``cubic`` means CUBIC''); ``ctcp`` / ``compound``.

Two value sets (argument ``values``):

* ``"computed"`` -- mu_i/w_max and a_i from the growth functions of Table II via eqs. (4), (5).
  BIC's epoch is T = R as printed (``bic_epoch="2R"`` gives the epoch that actually reaches w_max),
  CUBIC's epoch uses the corrected ``T = cbrt(w_max (1 - beta) / 0.4)``.
* ``"paper"`` -- the numbers printed in Table III (a_BIC = 0.0241, a_CTCP = 0.19, ...). The
  paper's later results (24 BIC flows, "45.45 %") use these; a_BIC = 0.0241 cannot be obtained
  from Table II with any epoch (MODELS.md paper 003, discrepancy 1), so it is a printed value, not
  a model result.

z-score conventions (argument ``convention``): ``"exact"`` -- z = Phi^-1(p), what the normal model
actually needs for P(W >= BDP) >= p; ``"paper"`` -- z = Phi^-1(2p - 1), what the paper computed
(2.05 for 0.99 when rounded to two decimals as its tables were, ``decimals=2``). The paper's
printed integers (1526 / 24 flows, 87 %, 45.45 %, q = 0.75) need ``"paper"`` and 2.05.

Everything here is an approximation in the paper's own sense: W is taken as normal (central limit
theorem, large n), flows are assumed TCP-friendly with equal mean windows, and each window is a
deterministic congestion-avoidance sawtooth that always reaches w_max.

========================================  ==============  ============================================
function                                  equation        when it applies
========================================  ==============  ============================================
congestion_window, epoch_duration         Table II        one congestion-avoidance epoch, long flows
window_statistics                         (4), (5)        per-flow mean and std over one epoch
characteristic_value, mean_window_ratio   Table III       a_i and mu_i/w_max ("computed" or "paper")
aggregate_mean, aggregate_std             (2), (3)        independent flows (CLT)
aggregate_std_tcp_friendly                (6)             equal mean windows (TCP-friendly flows)
mix_characteristic_value                  (6)             mix of protocols, counts or fractions
z_score, probability_from_z               Thm 1 / H3      "paper" Phi^-1(2p-1) or "exact" Phi^-1(p)
min_mean_for_utilization                  (1)             W normal with known mu, delta
min_aggregate_mean                        (8)             TCP-friendly mix, z a / sqrt(n) < 1
min_buffer_utilization                    (7), (9)        utilization guarantee tau
min_buffer_drop_stats, min_buffer_drop    (10), (11)      drop rate <= phi with probability rho
drop_constraint_always_met,               (12)            n so large that any buffer meets phi
  min_flows_drop_free
min_buffer_combined, buffer_increase      (13), (14)      utilization and drop constraints together
max_buffer_delay                          Sec. VI         queueing delay <= lambda: B <= C lambda
compromise_gamma, z_tau_from_stats,       (15)-(18)       delay bound below the utilization buffer
  z_q_bound_from_stats, z_q_bound,
  reduced_utilization_guarantee
drop_rate_increase                        (19)            delay bound below the drop buffer
min_buffer_heterogeneous                  (7),(14),(18),  one call for the recommend command
                                          (19)
========================================  ==============  ============================================
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from statistics import NormalDist

from bufsize.errors import BufsizeError
from bufsize.models._check import count, fraction, nonneg, number, positive

__all__ = [
    "PROTOCOLS",
    "BETA",
    "PAPER_TABLE_III",
    "CUBIC_C",
    "BIC_INCREMENT",
    "CTCP_DIVISOR",
    "protocol_name",
    "ctcp_epoch_constant",
    "epoch_duration",
    "congestion_window",
    "window_statistics",
    "characteristic_value",
    "mean_window_ratio",
    "aggregate_mean",
    "aggregate_std",
    "aggregate_std_tcp_friendly",
    "parse_mix",
    "normalize_mix",
    "mix_flow_count",
    "mix_characteristic_value",
    "z_score",
    "z",
    "probability_from_z",
    "min_mean_for_utilization",
    "utilization_guarantee",
    "min_aggregate_mean",
    "min_buffer_utilization",
    "min_buffer_drop_stats",
    "min_buffer_drop",
    "drop_constraint_always_met",
    "min_flows_drop_free",
    "min_buffer_combined",
    "buffer_increase",
    "max_buffer_delay",
    "bdp_bytes",
    "compromise_gamma",
    "z_tau_from_stats",
    "z_q_bound_from_stats",
    "z_q_bound",
    "reduced_utilization_guarantee",
    "drop_rate_increase",
    "min_buffer_heterogeneous",
]

# --------------------------------------------------------------------------------------------
# Protocols and their Table II / Table III parameters
# --------------------------------------------------------------------------------------------

#: Canonical protocol names, in the paper's order.
PROTOCOLS: tuple[str, ...] = ("reno", "bic", "cubic1", "cubic2", "ctcp")

_ALIASES: dict[str, str] = {
    "reno": "reno",
    "newreno": "reno",
    "bic": "bic",
    "cubic1": "cubic1",
    "cubic_prime": "cubic1",
    "cubic'": "cubic1",
    "cubic2": "cubic2",
    "cubic_double_prime": "cubic2",
    "cubic''": "cubic2",
    'cubic"': "cubic2",
    "cubic": "cubic2",
    "ctcp": "ctcp",
    "compound": "ctcp",
}

#: Multiplicative decrease: ssthresh = beta * w_max (Table II, column beta).
BETA: dict[str, float] = {"reno": 0.5, "bic": 0.8, "cubic1": 0.8, "cubic2": 0.7, "ctcp": 0.5}

#: CUBIC's scaling constant C in w(t) = C (t - T)^3 + w_max (packets, t in seconds), Table II.
CUBIC_C = 0.4
#: BIC's growth per RTT as a fraction of w_max in Table II's (linearised) growth function.
BIC_INCREMENT = 0.1
#: CTCP's growth w(t) = (t/32 + (beta w_max)^(1/4))^4, t in RTTs (Table II).
CTCP_DIVISOR = 32.0

#: Table III as printed: protocol -> (mu_i / w_max, a_i = delta_i / mu_i).
PAPER_TABLE_III: dict[str, tuple[float, float]] = {
    "reno": (0.75, 1.0 / (3.0 * math.sqrt(3.0))),
    "bic": (0.85, 0.0241),
    "cubic1": (0.95, 0.06),
    "cubic2": (0.925, 0.09),
    "ctcp": (0.73, 0.19),
}

_BIC_EPOCHS = ("R", "2R")
_CUBIC_EPOCHS = ("corrected", "literal")
_VALUE_SETS = ("computed", "paper")
_METHODS = ("quadrature", "closed")
_CONVENTIONS = ("exact", "paper")

_NORMAL = NormalDist()


def protocol_name(name: object) -> str:
    """Canonical protocol name (one of :data:`PROTOCOLS`) for ``name`` or any accepted alias.

    Unknown names raise BufsizeError naming the protocol and listing the valid names.
    """
    if not isinstance(name, str):
        raise BufsizeError(f"protocol must be a name, got {name!r}", argument="protocol")
    key = name.strip().lower().replace("-", "_")
    if key not in _ALIASES:
        valid = ", ".join(sorted(_ALIASES))
        raise BufsizeError(f"unknown TCP protocol {name!r}; valid: {valid}", argument="protocol")
    return _ALIASES[key]


def _choice(value: object, allowed: tuple[str, ...], name: str) -> str:
    if value not in allowed:
        raise BufsizeError(f"must be one of {', '.join(allowed)}; got {value!r}", argument=name)
    return value  # type: ignore[return-value]


def ctcp_epoch_constant(beta: float = 0.5) -> float:
    """Epoch of CTCP's growth function in units of RTT * w_max^(1/4) (Paper 003, Table II).

    The time for ``(t/32 + (beta w_max)^(1/4))^4`` to climb from ``beta w_max`` to ``w_max`` is
    ``32 (1 - beta^(1/4)) w_max^(1/4)`` RTTs; for beta = 0.5 the constant is 5.0913, which Table II
    prints as 5.1. ``beta`` is dimensionless in (0, 1).
    """
    beta = fraction(beta, "beta")
    return CTCP_DIVISOR * (1.0 - beta**0.25)


def _cubic_k(protocol: str, cubic_epoch: str) -> float:
    """Depth of the CUBIC curve below w_max at t = 0, as a fraction of w_max."""
    beta = BETA[protocol]
    return (1.0 - beta) if cubic_epoch == "corrected" else beta


def epoch_duration(
    protocol: str,
    w_max: float,
    rtt: float = 1.0,
    *,
    bic_epoch: str = "R",
    cubic_epoch: str = "corrected",
) -> float:
    """Duration T (seconds) of one congestion epoch (Paper 003, Table II, column T).

    ``w_max``: window at loss (packets); ``rtt``: round-trip time R (s).

    * RENO: ``(1 - beta) w_max R``.
    * BIC: ``R`` as printed (window grows only to 0.9 w_max) or ``2R`` (``bic_epoch="2R"``, the
      time the printed growth function needs to reach w_max).
    * CUBIC', CUBIC'': ``cbrt(w_max (1 - beta) / 0.4)`` -- the corrected epoch (MODELS.md [R]; the
      growth then starts at ssthresh). ``cubic_epoch="literal"`` gives the misprinted
      ``cbrt(w_max beta / 0.4)``, whose curve starts at (1 - beta) w_max instead. Independent of R.
    * CTCP: ``32 (1 - beta^(1/4)) w_max^(1/4)`` RTTs, times R (Table II prints 5.1 w_max^(1/4)).
    """
    p = protocol_name(protocol)
    w_max = positive(w_max, "w_max")
    rtt = positive(rtt, "rtt")
    _choice(bic_epoch, _BIC_EPOCHS, "bic_epoch")
    _choice(cubic_epoch, _CUBIC_EPOCHS, "cubic_epoch")
    beta = BETA[p]
    if p == "reno":
        return (1.0 - beta) * w_max * rtt
    if p == "bic":
        return rtt if bic_epoch == "R" else 2.0 * rtt
    if p in ("cubic1", "cubic2"):
        return (w_max * _cubic_k(p, cubic_epoch) / CUBIC_C) ** (1.0 / 3.0)
    return ctcp_epoch_constant(beta) * w_max**0.25 * rtt


def _window_function(
    p: str, w_max: float, rtt: float, bic_epoch: str, cubic_epoch: str
) -> tuple[Callable[[float], float], float]:
    """(w(t), T) for canonical protocol ``p``; t and T in seconds, w in packets."""
    beta = BETA[p]
    T = epoch_duration(p, w_max, rtt, bic_epoch=bic_epoch, cubic_epoch=cubic_epoch)
    if p == "reno":
        return (lambda t: beta * w_max + t / rtt), T
    if p == "bic":
        return (lambda t: beta * w_max + BIC_INCREMENT * w_max * t / rtt), T
    if p in ("cubic1", "cubic2"):
        return (lambda t: CUBIC_C * (t - T) ** 3 + w_max), T
    start = (beta * w_max) ** 0.25
    return (lambda t: (t / rtt / CTCP_DIVISOR + start) ** 4), T


def congestion_window(
    protocol: str,
    t: float,
    w_max: float,
    rtt: float = 1.0,
    *,
    bic_epoch: str = "R",
    cubic_epoch: str = "corrected",
) -> float:
    """Congestion window (packets) at time ``t`` (s) into an epoch (Paper 003, Table II).

    Growth functions, with ``w_max`` in packets and ``rtt`` = R in seconds:
    RENO ``beta w_max + t/R``; BIC ``beta w_max + 0.1 w_max t/R``; CUBIC', CUBIC''
    ``0.4 (t - T)^3 + w_max`` (t in seconds); CTCP ``(t/(32 R) + (beta w_max)^(1/4))^4``.
    ``t`` must lie in [0, T] with T from :func:`epoch_duration`.
    """
    p = protocol_name(protocol)
    w_max = positive(w_max, "w_max")
    rtt = positive(rtt, "rtt")
    t = nonneg(t, "t")
    w, T = _window_function(p, w_max, rtt, bic_epoch, cubic_epoch)
    if t > T * (1.0 + 1e-12):
        raise BufsizeError(f"must lie within the epoch [0, {T:.6g}] s, got {t!r}", argument="t")
    return w(t)


def _closed_form_ratios(p: str, bic_epoch: str, cubic_epoch: str) -> tuple[float, float]:
    """(mu/w_max, delta/w_max) from the closed forms of MODELS.md H1."""
    beta = BETA[p]
    if p in ("reno", "bic"):
        # Linear growth from beta to `end` (fractions of w_max): uniform distribution over time.
        end = 1.0 if p == "reno" else beta + BIC_INCREMENT * (1.0 if bic_epoch == "R" else 2.0)
        return (beta + end) / 2.0, (end - beta) / math.sqrt(12.0)
    if p in ("cubic1", "cubic2"):
        # w/w_max = 1 - k (1 - u)^3 with u = t/T uniform: E = 1 - k/4, Var = k^2 (1/7 - 1/16).
        k = _cubic_k(p, cubic_epoch)
        return 1.0 - k / 4.0, k * math.sqrt(1.0 / 7.0 - 1.0 / 16.0)
    # CTCP: x = (w/w_max)^(1/4) is uniform on [c, 1], c = beta^(1/4).
    c = beta**0.25
    m4 = (1.0 - c**5) / (5.0 * (1.0 - c))
    m8 = (1.0 - c**9) / (9.0 * (1.0 - c))
    return m4, math.sqrt(m8 - m4 * m4)


def window_statistics(
    protocol: str,
    w_max: float = 100.0,
    rtt: float = 1.0,
    *,
    method: str = "quadrature",
    bic_epoch: str = "R",
    cubic_epoch: str = "corrected",
) -> tuple[float, float]:
    """Per-flow window mean mu_i and standard deviation delta_i (packets) over one epoch.

    Paper 003, eqs. (4) and (5): ``mu_i = (1/T) int_0^T w(t) dt`` and
    ``delta_i = sqrt((1/T) int_0^T (w(t) - mu_i)^2 dt)`` with w(t) and T from Table II
    (:func:`congestion_window`, :func:`epoch_duration`). ``w_max`` in packets, ``rtt`` in seconds.

    ``method="quadrature"`` integrates numerically (scipy ``quad``); ``method="closed"`` uses the
    closed forms of MODELS.md H1 (linear growth: mean (beta+1)/2, std (1-beta)/sqrt(12); CUBIC
    and CTCP: moments of a cubic / a fourth power of a uniform variable). Both agree to ~1e-12.
    """
    p = protocol_name(protocol)
    w_max = positive(w_max, "w_max")
    rtt = positive(rtt, "rtt")
    _choice(method, _METHODS, "method")
    _choice(bic_epoch, _BIC_EPOCHS, "bic_epoch")
    _choice(cubic_epoch, _CUBIC_EPOCHS, "cubic_epoch")
    if method == "closed":
        m, s = _closed_form_ratios(p, bic_epoch, cubic_epoch)
        return m * w_max, s * w_max

    from scipy.integrate import quad

    w, T = _window_function(p, w_max, rtt, bic_epoch, cubic_epoch)
    mean = quad(w, 0.0, T, epsabs=0.0, epsrel=1e-12)[0] / T
    var = quad(lambda t: (w(t) - mean) ** 2, 0.0, T, epsabs=0.0, epsrel=1e-12)[0] / T
    return mean, math.sqrt(var)


def _computed_ratios(p: str, method: str, bic_epoch: str, cubic_epoch: str) -> tuple[float, float]:
    """(mu/w_max, a) from the growth function; a and the ratio do not depend on w_max or R."""
    mean, std = window_statistics(
        p, 100.0, 1.0, method=method, bic_epoch=bic_epoch, cubic_epoch=cubic_epoch
    )
    return mean / 100.0, std / mean


def _protocol_values(
    protocol: str, values: str, method: str, bic_epoch: str, cubic_epoch: str
) -> tuple[float, float]:
    p = protocol_name(protocol)
    _choice(values, _VALUE_SETS, "values")
    _choice(method, _METHODS, "method")
    _choice(bic_epoch, _BIC_EPOCHS, "bic_epoch")
    _choice(cubic_epoch, _CUBIC_EPOCHS, "cubic_epoch")
    if values == "paper":
        return PAPER_TABLE_III[p]
    return _computed_ratios(p, method, bic_epoch, cubic_epoch)


def characteristic_value(
    protocol: str,
    *,
    values: str = "computed",
    method: str = "closed",
    bic_epoch: str = "R",
    cubic_epoch: str = "corrected",
) -> float:
    """Characteristic value ``a_i = delta_i / mu_i`` of a protocol (dimensionless).

    Paper 003, Table III (definition after eq. (5)). ``values="computed"`` derives it from
    Table II via eqs. (4), (5) -- ``method="closed"`` (default, no scipy import) or
    ``"quadrature"``; ``values="paper"`` returns Table III's printed number
    (RENO 1/(3 sqrt 3), BIC 0.0241, CUBIC' 0.06, CUBIC'' 0.09, CTCP 0.19).
    Computed: RENO 0.19245, BIC 0.03396 (T = R) or 0.06415 (T = 2R), CUBIC' 0.05968,
    CUBIC'' 0.09194, CTCP 0.19798.
    """
    return _protocol_values(protocol, values, method, bic_epoch, cubic_epoch)[1]


def mean_window_ratio(
    protocol: str,
    *,
    values: str = "computed",
    method: str = "closed",
    bic_epoch: str = "R",
    cubic_epoch: str = "corrected",
) -> float:
    """Mean window over an epoch as a fraction of w_max, ``mu_i / w_max`` (Paper 003, Table III).

    Computed: RENO 0.75, BIC 0.85 (T = R) or 0.90 (T = 2R), CUBIC' 0.95, CUBIC'' 0.925,
    CTCP 0.72852; ``values="paper"`` gives the printed 0.75, 0.85, 0.95, 0.925, 0.73.
    """
    return _protocol_values(protocol, values, method, bic_epoch, cubic_epoch)[0]


# --------------------------------------------------------------------------------------------
# Aggregate of n flows
# --------------------------------------------------------------------------------------------


def aggregate_mean(means) -> float:
    """Mean of the aggregate window, ``mu = sum mu_i`` (Paper 003, eq. (2)); packets in, packets out."""
    vals = [nonneg(m, "means") for m in means]
    if not vals:
        raise BufsizeError("needs at least one flow", argument="means")
    return math.fsum(vals)


def aggregate_std(stds) -> float:
    """Std of the aggregate window of independent flows, ``delta = sqrt(sum delta_i^2)``.

    Paper 003, eq. (3); packets in, packets out.
    """
    vals = [nonneg(s, "stds") for s in stds]
    if not vals:
        raise BufsizeError("needs at least one flow", argument="stds")
    return math.sqrt(math.fsum(s * s for s in vals))


def aggregate_std_tcp_friendly(mu: float, n: float, a: float) -> float:
    """``delta = (a / sqrt(n)) mu`` for n TCP-friendly flows with equal means (Paper 003, eq. (6)).

    ``mu``: aggregate mean (packets); ``n``: number of flows (>= 1, may be fractional in
    sweeps); ``a``: mix characteristic value. Result in packets.
    """
    mu = nonneg(mu, "mu")
    n = _flows(n)
    a = nonneg(a, "a")
    return a / math.sqrt(n) * mu


def _flows(n: object) -> float:
    v = number(n, "n")
    if v < 1.0:
        raise BufsizeError(f"must be >= 1 flow, got {v!r}", argument="n")
    return v


def parse_mix(text: str) -> dict[str, float]:
    """Parse a protocol mix such as ``"reno:42,bic:51"`` or ``"reno=0.3, cubic=0.7"``.

    Returns {canonical protocol: weight}; a single name (``"cubic"``) means all flows use it.
    Repeated protocols (also via aliases) add up. Weights are counts or fractions; see
    :func:`normalize_mix`.
    """
    if not isinstance(text, str) or not text.strip():
        raise BufsizeError("expected e.g. 'reno:42,bic:51' or 'reno=0.3,cubic=0.7'", argument="mix")
    out: dict[str, float] = {}
    parts = [s.strip() for s in text.split(",")]
    if len(parts) == 1 and not any(sep in parts[0] for sep in ":="):
        return {protocol_name(parts[0]): 1.0}
    for part in parts:
        name, sep, weight = part.replace("=", ":").partition(":")
        if not sep or not name.strip():
            raise BufsizeError(f"expected PROTOCOL:WEIGHT, got {part!r}", argument="mix")
        try:
            w = float(weight)
        except ValueError:
            raise BufsizeError(f"weight of {name.strip()!r} is not a number: {weight!r}", argument="mix") from None
        p = protocol_name(name)
        out[p] = out.get(p, 0.0) + w
    return out


def normalize_mix(mix: str | Mapping[str, float]) -> tuple[dict[str, float], int | None]:
    """Validate a protocol mix; return ({canonical protocol: fraction}, flow count or None).

    ``mix`` is a protocol name (all flows use it), a string for :func:`parse_mix`, or a mapping
    protocol -> weight. Whole-number weights summing to more than 1 are flow counts (n = their
    sum); otherwise the weights are fractions and must sum to 1 within 1e-9 (so ``{"reno": 1}``
    and a bare name are fractions: all flows, n given elsewhere). Negative, NaN or infinite
    weights, and an all-zero mix, raise BufsizeError.
    """
    if isinstance(mix, str):
        mix = parse_mix(mix)
    if not isinstance(mix, Mapping) or not mix:
        raise BufsizeError("must be a protocol name or a non-empty mapping protocol -> weight", argument="mix")
    weights: dict[str, float] = {}
    for name, w in mix.items():
        p = protocol_name(name)
        v = nonneg(w, f"mix[{name}]")
        weights[p] = weights.get(p, 0.0) + v
    total = math.fsum(weights.values())
    if total <= 0.0:
        raise BufsizeError("weights sum to 0; give at least one flow", argument="mix")
    if total > 1.0 and all(v == math.floor(v) for v in weights.values()):
        return {p: v / total for p, v in weights.items()}, int(total)
    if abs(total - 1.0) > 1e-9:
        raise BufsizeError(
            f"fractions must sum to 1 (within 1e-9), got {total!r}; give whole flow counts or fractions",
            argument="mix",
        )
    return dict(weights), None


def mix_flow_count(mix: str | Mapping[str, float]) -> int | None:
    """Number of flows n when ``mix`` gives counts; None when it gives fractions."""
    return normalize_mix(mix)[1]


def mix_characteristic_value(
    mix: str | Mapping[str, float],
    *,
    values: str = "computed",
    method: str = "closed",
    bic_epoch: str = "R",
    cubic_epoch: str = "corrected",
) -> float:
    """Characteristic value of a protocol mix, ``a = sqrt(sum_i a_i^2 / n)`` (Paper 003, eq. (6)).

    With counts n_k per protocol this is ``sqrt(sum_k n_k a_k^2 / n)``; with fractions f_k it is
    ``sqrt(sum_k f_k a_k^2)``. Dimensionless; the other keywords select a_i as in
    :func:`characteristic_value`. Example (Sec. VIII testbed, paper values): 42 RENO, 51 BIC,
    30 CUBIC', 41 CUBIC'', 34 CTCP -> a = 0.128170.
    """
    fractions, _ = normalize_mix(mix)
    total = 0.0
    for p, f in fractions.items():
        a_i = characteristic_value(p, values=values, method=method, bic_epoch=bic_epoch, cubic_epoch=cubic_epoch)
        total += f * a_i * a_i
    return math.sqrt(total)


# --------------------------------------------------------------------------------------------
# z-scores (MODELS.md H3)
# --------------------------------------------------------------------------------------------


def z_score(p: float, convention: str = "exact", decimals: int | None = None) -> float:
    """z-score for a guarantee probability ``p`` (Paper 003, Theorems 1 and 3; MODELS.md H3).

    ``convention="exact"``: ``Phi^-1(p)``, the value that makes P(W >= BDP) >= p for normal W
    (2.32635 for 0.99); p in (0, 1). ``convention="paper"``: ``Phi^-1(2p - 1)``, what the paper's
    numbers use (2.05375 for 0.99, printed 2.05); p in (0.5, 1). ``decimals`` rounds the result
    (``decimals=2`` reproduces the paper's table value 2.05).
    """
    _choice(convention, _CONVENTIONS, "convention")
    if convention == "exact":
        p = fraction(p, "p")
        zval = _NORMAL.inv_cdf(p)
    else:
        p = number(p, "p")
        if not 0.5 < p < 1.0:
            raise BufsizeError(f"must be in (0.5, 1) for the paper convention Phi^-1(2p-1), got {p!r}", argument="p")
        zval = _NORMAL.inv_cdf(2.0 * p - 1.0)
    if decimals is not None:
        decimals = count(decimals, "decimals", minimum=0)
        zval = round(zval, decimals)
    return zval


#: The brief's short name for :func:`z_score`.
z = z_score


def probability_from_z(zval: float, convention: str = "exact") -> float:
    """Guarantee probability for a z-score, the inverse of :func:`z_score`.

    ``"exact"``: ``Phi(z)``; ``"paper"``: ``(1 + Phi(z)) / 2`` (from 2q - 1 = Phi(z), Sec. VII-B).
    """
    _choice(convention, _CONVENTIONS, "convention")
    zval = number(zval, "z")
    cdf = _NORMAL.cdf(zval)
    return cdf if convention == "exact" else (1.0 + cdf) / 2.0


# --------------------------------------------------------------------------------------------
# Link utilization: Theorems 1 and 2
# --------------------------------------------------------------------------------------------


def min_mean_for_utilization(delta: float, bdp: float, z_tau: float) -> float:
    """Smallest aggregate mean that keeps P(W >= BDP) >= tau: ``z_tau delta + BDP``.

    Paper 003, eq. (1) (Theorem 1). ``delta`` (std of W) and ``bdp`` in packets; ``z_tau`` from
    :func:`z_score`. Result in packets.
    """
    delta = nonneg(delta, "delta")
    bdp = positive(bdp, "bdp")
    z_tau = number(z_tau, "z_tau")
    return z_tau * delta + bdp


def utilization_guarantee(mu: float, delta: float, bdp: float, convention: str = "exact") -> float:
    """Guarantee probability tau that a normal W with (mu, delta) achieves for P(W >= BDP).

    Inverts eq. (1) of Paper 003: z = (mu - BDP)/delta turned into a probability by
    :func:`probability_from_z` (with ``"exact"`` this is P(W >= BDP) itself). Packets in.
    """
    mu = nonneg(mu, "mu")
    delta = positive(delta, "delta")
    bdp = positive(bdp, "bdp")
    return probability_from_z((mu - bdp) / delta, convention)


def _spread(n: float, a: float, zval: float, name: str) -> float:
    """x = z a / sqrt(n), validated."""
    n = _flows(n)
    a = nonneg(a, "a")
    zval = number(zval, name)
    return zval * a / math.sqrt(n)


def _require_feasible(x: float, n: float, a: float, z_tau: float) -> None:
    if x >= 1.0:
        n_min = (z_tau * a) ** 2
        raise BufsizeError(
            f"utilization guarantee unreachable: z_tau*a/sqrt(n) = {x:.4g} >= 1 makes eq. (8) infinite; "
            f"needs more than {n_min:.4g} flows (or a smaller tau)",
            argument="n",
        )


def min_aggregate_mean(bdp: float, n: float, a: float, z_tau: float) -> float:
    """Smallest aggregate mean window: ``mu >= BDP / (1 - z_tau a / sqrt(n))`` (Paper 003, eq. (8)).

    ``bdp`` in packets, ``n`` flows, ``a`` mix characteristic value, ``z_tau`` z-score.
    Requires ``z_tau a / sqrt(n) < 1``: otherwise no finite mean (and buffer) gives the guarantee
    and BufsizeError is raised (argument ``n``), not inf returned. Packets.
    """
    bdp = positive(bdp, "bdp")
    x = _spread(n, a, z_tau, "z_tau")
    _require_feasible(x, n, a, z_tau)
    return bdp / (1.0 - x)


def min_buffer_utilization(bdp: float, n: float, a: float, z_tau: float) -> float:
    """Minimum buffer for the utilization guarantee (Paper 003, eqs. (7), (9), Theorem 2).

    ``B >= BDP / (1 - z_tau a / sqrt(n)) - BDP`` ~ ``BDP z_tau a / sqrt(n)`` for large n.
    ``bdp`` in packets (the result is in the same unit as ``bdp``), ``n`` flows, ``a`` mix
    characteristic value, ``z_tau`` from :func:`z_score`. Raises BufsizeError when
    ``z_tau a / sqrt(n) >= 1`` (no finite buffer suffices). A negative z_tau (tau below one half)
    gives a negative value: every buffer meets the guarantee.
    """
    return min_aggregate_mean(bdp, n, a, z_tau) - positive(bdp, "bdp")


# --------------------------------------------------------------------------------------------
# Packet drop rate: Theorem 3
# --------------------------------------------------------------------------------------------


def _phi(phi: object) -> float:
    return fraction(phi, "phi")


def min_buffer_drop_stats(mu: float, delta: float, bdp: float, z_rho: float, phi: float) -> float:
    """Buffer that keeps the drop rate <= phi with probability rho: ``(z_rho delta + mu)(1 - phi) - BDP``.

    Paper 003, eq. (10). ``mu``, ``delta`` (mean, std of W), ``bdp`` in packets; ``phi`` drop rate
    bound in (0, 1); ``z_rho`` z-score of rho. Packets; a value <= 0 means every buffer suffices.
    """
    mu = nonneg(mu, "mu")
    delta = nonneg(delta, "delta")
    bdp = positive(bdp, "bdp")
    z_rho = number(z_rho, "z_rho")
    phi = _phi(phi)
    return (z_rho * delta + mu) * (1.0 - phi) - bdp


def min_buffer_drop(mu: float, bdp: float, n: float, a: float, z_rho: float, phi: float) -> float:
    """Eq. (10) with delta = a mu / sqrt(n): ``(z_rho a / sqrt(n) + 1)(1 - phi) mu - BDP``.

    Paper 003, eq. (11) (Theorem 3). ``mu`` aggregate mean and ``bdp`` in packets, ``n`` flows,
    ``a`` mix characteristic value, ``phi`` in (0, 1). Packets.
    """
    mu = nonneg(mu, "mu")
    bdp = positive(bdp, "bdp")
    x = _spread(n, a, z_rho, "z_rho")
    phi = _phi(phi)
    return (x + 1.0) * (1.0 - phi) * mu - bdp


def drop_constraint_always_met(n: float, a: float, z_rho: float, phi: float) -> bool:
    """True when ``(z_rho a / sqrt(n) + 1)(1 - phi) <= 1`` (Paper 003, eq. (12)).

    Then eq. (11) holds for every buffer, because B + BDP >= mu always.
    """
    x = _spread(n, a, z_rho, "z_rho")
    phi = _phi(phi)
    return (x + 1.0) * (1.0 - phi) <= 1.0


def min_flows_drop_free(a: float, z_rho: float, phi: float, *, integer: bool = False) -> float:
    """Flows needed for eq. (12) to hold: ``n >= (z_rho a (1 - phi) / phi)^2`` (Paper 003, eq. (12)).

    ``a`` mix characteristic value, ``z_rho`` z-score (>= 0), ``phi`` drop bound in (0, 1).
    ``integer=True`` returns the smallest whole number of flows (the ceiling). Examples with
    z = 2.05, phi = 0.01 and Table III: RENO 1525.51 -> 1526, BIC 23.92 -> 24 (Sec. V).
    """
    a = nonneg(a, "a")
    z_rho = nonneg(z_rho, "z_rho")
    phi = _phi(phi)
    n = (z_rho * a * (1.0 - phi) / phi) ** 2
    return float(math.ceil(n)) if integer else n


# --------------------------------------------------------------------------------------------
# Utilization and drop together: eqs. (13), (14)
# --------------------------------------------------------------------------------------------


def min_buffer_combined(
    bdp: float, n: float, a: float, z_tau: float, z_rho: float, phi: float
) -> float:
    """Buffer meeting both the utilization and the drop constraint (Paper 003, eq. (14)).

    ``B >= max{ BDP/(1 - z_tau a/sqrt n) - BDP,  (z_rho a/sqrt n + 1)(1 - phi) BDP/(1 - z_tau a/sqrt n) - BDP }``;
    the second term is eq. (13), i.e. eq. (11) at the smallest mean of eq. (8). Units as
    :func:`min_buffer_utilization`.
    """
    mu_l = min_aggregate_mean(bdp, n, a, z_tau)
    b_util = mu_l - bdp
    b_drop = min_buffer_drop(mu_l, bdp, n, a, z_rho, phi)
    return max(b_util, b_drop)


def buffer_increase(n: float, a: float, z_tau: float, z_rho: float, phi: float) -> float:
    """Relative buffer increase from adding the drop constraint, ``B(14)/B(7) - 1`` (Fig. 6).

    Paper 003, Sec. VII-A. Independent of the BDP. Examples (z = 2.05, n = 200, phi = 0.0035):
    RENO 0.871 ("87 %"), BIC 0 ("no increase"). Requires z_tau > 0 (so that B(7) > 0).
    """
    if number(z_tau, "z_tau") <= 0.0 or nonneg(a, "a") == 0.0:
        raise BufsizeError("B(7) is 0 when z_tau <= 0 or a = 0; the ratio is undefined", argument="z_tau")
    b7 = min_buffer_utilization(1.0, n, a, z_tau)
    b14 = min_buffer_combined(1.0, n, a, z_tau, z_rho, phi)
    return b14 / b7 - 1.0


# --------------------------------------------------------------------------------------------
# Queueing delay and the compromises of Sec. VII-B
# --------------------------------------------------------------------------------------------


def max_buffer_delay(capacity_pps: float, max_delay_s: float) -> float:
    """Largest buffer that keeps the queueing delay below lambda: ``C lambda`` (Paper 003, Sec. VI).

    ``capacity_pps`` in packets/s, ``max_delay_s`` lambda in seconds (0 allowed). Packets.
    """
    return positive(capacity_pps, "capacity_pps") * nonneg(max_delay_s, "max_delay_s")


def bdp_bytes(capacity_bps: float, rtt_s: float) -> float:
    """Bandwidth-delay product in bytes, ``capacity_bps * rtt_s / 8`` (Paper 003, Table IV).

    E.g. 622 Mb/s x 28 / 67 / 90 ms = 2.18 / 5.21 / 7.00 MB (Table IV prints 2.3 / 5.5 / 18 MB).
    """
    return positive(capacity_bps, "capacity_bps") * positive(rtt_s, "rtt_s") / 8.0


def compromise_gamma(bdp: float, buffer: float, b_l: float) -> float:
    """``gamma = (BDP + C lambda) / (BDP + B_l)`` (Paper 003, Sec. VII-B.1).

    ``buffer`` is the delay-limited buffer C lambda, ``b_l`` the utilization buffer of eq. (15)
    (both packets, like ``bdp``). For ``0 <= buffer <= b_l`` gamma lies in [BDP/(BDP + B_l), 1];
    a buffer above ``b_l`` (no compromise needed) raises BufsizeError.
    """
    bdp = positive(bdp, "bdp")
    buffer = nonneg(buffer, "buffer")
    b_l = nonneg(b_l, "b_l")
    if buffer > b_l:
        raise BufsizeError(
            f"delay-limited buffer {buffer:.6g} exceeds the utilization buffer {b_l:.6g}: no compromise needed",
            argument="buffer",
        )
    return (bdp + buffer) / (bdp + b_l)


def z_tau_from_stats(mu_l: float, bdp: float, delta_l: float) -> float:
    """``z_tau = (mu_l - BDP) / delta_l`` (Paper 003, eq. (16)); equals sqrt(n)/a - BDP/delta_l
    when delta_l = a mu_l / sqrt(n). Packets in, dimensionless out."""
    mu_l = nonneg(mu_l, "mu_l")
    bdp = positive(bdp, "bdp")
    delta_l = positive(delta_l, "delta_l")
    return (mu_l - bdp) / delta_l


def _gamma(gamma: object) -> float:
    g = number(gamma, "gamma")
    if not 0.0 < g <= 1.0:
        raise BufsizeError(f"must be in (0, 1] (gamma > 1 means no compromise), got {g!r}", argument="gamma")
    return g


def z_q_bound_from_stats(mu_l: float, delta_l: float, bdp: float, gamma: float) -> float:
    """Upper bound on z_q: ``(gamma mu_l - BDP) / (gamma delta_l)`` (Paper 003, eq. (17)).

    ``mu_l``, ``delta_l`` mean and std of W at the utilization buffer B_l (eq. (15)), ``bdp``
    packets, ``gamma`` from :func:`compromise_gamma`.
    """
    mu_l = nonneg(mu_l, "mu_l")
    delta_l = positive(delta_l, "delta_l")
    bdp = positive(bdp, "bdp")
    g = _gamma(gamma)
    return (g * mu_l - bdp) / (g * delta_l)


def z_q_bound(z_tau: float, gamma: float, n: float, a: float) -> float:
    """Upper bound on the z-score left when the buffer shrinks to C lambda (Paper 003, eq. (18)).

    ``z_q <= z_tau / gamma - (1/gamma - 1) sqrt(n) / a``. ``z_tau`` the original z-score,
    ``gamma`` in (0, 1], ``n`` flows, ``a`` > 0 mix characteristic value. At gamma = 1 this is
    z_tau; at gamma = BDP/(BDP + B_l) (lambda = 0) it is 0.
    """
    z_tau = number(z_tau, "z_tau")
    g = _gamma(gamma)
    n = _flows(n)
    a = positive(a, "a")
    return z_tau / g - (1.0 / g - 1.0) * math.sqrt(n) / a


def reduced_utilization_guarantee(z_q: float, convention: str = "exact") -> float:
    """Reduced utilization guarantee q from z_q (Paper 003, Sec. VII-B.1, after eq. (18)).

    ``"paper"``: 2q - 1 = Phi(z_q) (z_q = 0 -> q = 0.75, the paper's example); ``"exact"``:
    q = Phi(z_q) (z_q = 0 -> 0.5). Same as :func:`probability_from_z`.
    """
    return probability_from_z(z_q, convention)


def drop_rate_increase(bdp: float, b_p: float, buffer: float) -> float:
    """Lower bound on the drop-rate increase when the buffer is cut from B_p to C lambda.

    Paper 003, eq. (19): ``delta_phi >= D / (BDP + B_p)`` with ``D = B_p - C lambda``.
    ``bdp``, ``b_p`` (buffer meeting the drop constraint) and ``buffer`` (= C lambda <= B_p) in
    packets. Dimensionless (a drop probability).
    """
    bdp = positive(bdp, "bdp")
    b_p = nonneg(b_p, "b_p")
    buffer = nonneg(buffer, "buffer")
    if buffer > b_p:
        raise BufsizeError(f"must not exceed b_p = {b_p:.6g} (no increase then), got {buffer!r}", argument="buffer")
    return (b_p - buffer) / (bdp + b_p)


# --------------------------------------------------------------------------------------------
# One call for the recommend command
# --------------------------------------------------------------------------------------------


def min_buffer_heterogeneous(
    bdp_packets: float,
    n: float | None,
    mix: str | Mapping[str, float] = "reno",
    tau: float = 0.99,
    phi: float | None = None,
    rho: float = 0.99,
    max_delay_s: float | None = None,
    capacity_pps: float | None = None,
    convention: str = "exact",
    values: str = "computed",
    z_decimals: int | None = None,
) -> dict:
    """Buffer for n long TCP flows of a protocol mix under paper 003's constraints.

    Combines eq. (7) (utilization guarantee ``tau``), eq. (14) (drop rate ``phi`` with
    probability ``rho``, only when ``phi`` is given) and the delay bound ``C lambda`` (only when
    ``max_delay_s`` is given; needs ``capacity_pps``). When the delay bound is below the buffer
    the other constraints need, the buffer is set to C lambda and the Sec. VII-B compromises are
    reported (eq. (18): reduced guarantee q; eq. (19): drop-rate increase).

    Arguments: ``bdp_packets`` (packets); ``n`` flows (None: taken from a mix of counts);
    ``mix`` see :func:`normalize_mix`; ``tau``, ``rho`` probabilities; ``phi`` in (0, 1);
    ``max_delay_s`` seconds; ``capacity_pps`` packets/s; ``convention`` for the z-scores;
    ``values`` "computed"/"paper" characteristic values; ``z_decimals`` rounds the z-scores
    (2 reproduces the paper's 2.05).

    Returned keys (buffers in packets):

    ``buffer_packets``      the recommended buffer (>= 0);
    ``bound_by``            "utilization" (eq. 7), "drop" (eq. 14), "delay" (C lambda is lower
                            than what the other constraints need) or "none" (eq. (7) asks for
                            no buffer, which happens only when z_tau <= 0, i.e. tau <= 1/2
                            with the exact convention, and no drop bound is given);
    ``utilization_buffer_packets``  eq. (7) value (may be <= 0);
    ``drop_buffer_packets``  eq. (14) value, or None without ``phi``;
    ``delay_buffer_packets`` C lambda, or None without ``max_delay_s``;
    ``n``, ``a``, ``z_tau``, ``z_rho`` (None without phi), ``mean_window_packets`` (eq. (8));
    ``drop_free``           eq. (12) holds (None without phi); ``min_flows_drop_free`` eq. (12)
                            as a whole number of flows (None without phi);
    ``buffer_increase``     B(14)/B(7) - 1 (None without phi or when B(7) <= 0);
    ``compromise``          None, or a dict with ``gamma``, ``z_q`` (eq. (18)), ``q`` (reduced
                            guarantee, same convention), ``tau_reduction`` (tau - q), and
                            ``drop_rate_increase`` (eq. (19), None unless C lambda < B(14)).
    """
    bdp = positive(bdp_packets, "bdp_packets")
    fractions, counted = normalize_mix(mix)
    if n is None:
        if counted is None:
            raise BufsizeError("required when the mix is given as fractions", argument="n")
        n_flows = float(counted)
    else:
        n_flows = _flows(n)
        if counted is not None and abs(n_flows - counted) > 1e-9:
            raise BufsizeError(f"is {n_flows:g} but the mix counts {counted} flows", argument="n")
    a = mix_characteristic_value(fractions, values=values)
    z_tau = z_score(tau, convention, z_decimals)
    b_util = min_buffer_utilization(bdp, n_flows, a, z_tau)
    mu_l = bdp + b_util

    result: dict = {
        "n": n_flows,
        "a": a,
        "z_tau": z_tau,
        "z_rho": None,
        "mean_window_packets": mu_l,
        "utilization_buffer_packets": b_util,
        "drop_buffer_packets": None,
        "delay_buffer_packets": None,
        "drop_free": None,
        "min_flows_drop_free": None,
        "buffer_increase": None,
        "compromise": None,
    }
    need = max(b_util, 0.0)
    bound_by = "utilization" if b_util > 0.0 else "none"
    if phi is not None:
        z_rho = z_score(rho, convention, z_decimals)
        b_drop = min_buffer_combined(bdp, n_flows, a, z_tau, z_rho, phi)
        result["z_rho"] = z_rho
        result["drop_buffer_packets"] = b_drop
        result["drop_free"] = drop_constraint_always_met(n_flows, a, z_rho, phi)
        result["min_flows_drop_free"] = int(min_flows_drop_free(a, max(z_rho, 0.0), phi, integer=True))
        if b_util > 0.0:
            result["buffer_increase"] = b_drop / b_util - 1.0
        if b_drop > need:
            need, bound_by = b_drop, "drop"

    buffer = need
    if max_delay_s is not None:
        if capacity_pps is None:
            raise BufsizeError("required with max_delay_s (B <= C * lambda)", argument="capacity_pps")
        b_delay = max_buffer_delay(capacity_pps, max_delay_s)
        result["delay_buffer_packets"] = b_delay
        if b_delay < need:
            buffer, bound_by = b_delay, "delay"
            comp: dict = {"gamma": None, "z_q": None, "q": None, "tau_reduction": None, "drop_rate_increase": None}
            if b_delay < b_util:
                gamma = compromise_gamma(bdp, b_delay, b_util)
                zq = z_q_bound(z_tau, gamma, n_flows, a)
                q = reduced_utilization_guarantee(zq, convention)
                comp.update(gamma=gamma, z_q=zq, q=q, tau_reduction=number(tau, "tau") - q)
            if phi is not None and b_delay < result["drop_buffer_packets"]:
                comp["drop_rate_increase"] = drop_rate_increase(bdp, result["drop_buffer_packets"], b_delay)
            result["compromise"] = comp
    result["buffer_packets"] = buffer
    result["bound_by"] = bound_by
    return result
