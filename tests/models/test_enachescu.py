"""Tests of paper 002 (Enachescu et al., "Routers with very small buffers"): every MODELS.md
vector E-01…E-19, second-method checks, the Theorem 2 Monte-Carlo, and properties.

Tolerances as MODELS.md says: rel 1e-6 for [C] closed forms (or half a unit of the last digit
MODELS.md prints, when that is coarser), 1e-4 for root finding, half a unit of the last printed
digit for [P] values.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytest import approx

from bufsize.errors import BufsizeError
from bufsize.models import appenzeller as A
from bufsize.models import enachescu as E
from bufsize.units import rate_to_packets_per_second

from tolerance import C_REL, NUM_REL, close, half_unit  # noqa: E402


# --------------------------------------------------------------------------------- Theorem 1
def test_E01_theorem1_buffer_real():
    assert E.theorem1_buffer(64, 0.5, 0.9) == approx(14.3219, abs=half_unit(4))
    assert E.theorem1_buffer(64, 0.5, 0.9) == approx(math.log2(4096 / 0.2), rel=1e-12)


def test_E02_theorem1_buffer_15_packets():
    assert E.theorem1_buffer(64, 0.5, 0.9, integer=True) == 15  # [P] §II "15 packets"


@pytest.mark.parametrize("b, theta", [(15, 0.9375), (14, 0.875)])
def test_E03_theorem1_inverse(b, theta):
    assert E.theorem1_utilization(b, 64, 0.5) == approx(theta, rel=C_REL)


def test_E03_15_is_minimal():
    assert E.theorem1_utilization(15, 64, 0.5) >= 0.9 > E.theorem1_utilization(14, 64, 0.5)


def test_E04_mm1_intuition():
    p = E.mm1_drop_probability(0.75, 20)
    assert close(p, "0.0031712")
    assert not close(p, "0.0031702")  # the helper does discriminate at this precision
    assert p * 100 == approx(0.3, abs=half_unit(1))  # [P] §II "0.3 %"


# --------------------------------------------------------------------------------- intro (§I)
def test_E05_intro_peak_rate():
    # 1000 flows × 64 KiB windows per 100 ms; 1-byte "packets" give bytes/s.
    bps = E.peak_rate_pps(1000, 64 * 1024, 0.1) * 8
    assert bps / 1e9 == approx(5.243, abs=half_unit(3))
    assert round(bps / 1e9) == 5  # "roughly 5 Gbps"
    rho = E.peak_load(1000, 64 * 1024, 10e9 / 8, 0.1)
    assert rho == approx(0.52, abs=half_unit(2))


def test_E06_rule_of_thumb_10g():
    pps = rate_to_packets_per_second(10e9, 1000)
    b = A.rule_of_thumb(0.1, pps)
    assert b == approx(125_000, rel=C_REL)
    assert b * 1000 == approx(125e6, rel=C_REL)  # 125 MB


def test_E07_sqrt_n_1000_flows():
    pps = rate_to_packets_per_second(10e9, 1000)
    b = A.sqrt_n_rule(0.1, pps, 1000)
    assert b == approx(3952.85, abs=half_unit(2))
    assert b == approx(3950, abs=5)  # [P] §I "3950"


def test_E08_log_rule_twelve_packets():
    # θ = 0.5 makes the utilization term log(1/(2(1−θ))) vanish: log2(64²) = 12
    assert E.theorem1_buffer(64, 0.5, 0.5) == approx(12.0, rel=1e-12)


def test_E09_log_rule_additive_constant():
    extra = E.theorem1_buffer(64, 0.5, 0.9) - E.theorem1_buffer(64, 0.5, 0.5)
    assert extra == approx(2.32, abs=half_unit(2))
    # MODELS.md 002 discrepancy 2: with the stated ρ ≈ 0.524 the window term is 12.87, not 12
    assert E.theorem1_buffer(64, 0.524, 0.5) == approx(12.87, abs=half_unit(2))


# --------------------------------------------------------------------------------- §IV-A
def test_E10_fixed_point_underprovisioned():
    # C = N·Wmax/(2τ): peak load 2
    assert E.tcp_mm1b_utilization(15, 64, 2.0) == approx(0.695895, rel=C_REL)


def test_E10n_fixed_point_by_root_finding():
    """Second method: solve ρ = (N/(Cτ))·sqrt(3/(2ρ^(B+1))) numerically instead of the closed form."""
    from scipy.optimize import brentq

    b, w, peak = 15, 64, 2.0
    ratio = peak / w  # N/(Cτ)
    rho = brentq(lambda r: r - ratio * math.sqrt(1.5 / r ** (b + 1)), 1e-6, 1.0, xtol=1e-15)
    assert E.tcp_mm1b_utilization(b, w, peak) == approx(rho, rel=NUM_REL)
    # and per flow it is the TCP equation at that loss
    n_over_c_tau = ratio
    tau = 0.1
    assert rho == approx(n_over_c_tau * tau * E.tcp_throughput_pps(rho ** (b + 1), tau), rel=1e-9)


def test_E11_window_cap():
    # C = 2N·Wmax/τ: peak 0.5; the closed form would give 0.5966 > 0.5, so the window caps it
    assert E.tcp_mm1b_utilization(15, 64, 0.5) == approx(0.5, rel=C_REL)
    uncapped = math.exp((math.log(1.5) + 2 * math.log(0.5 / 64)) / 18)
    assert uncapped > 0.5


def test_E12_huge_window_tiny_buffer():
    assert close(E.tcp_mm1b_utilization(5, 1e6, 0.5), "0.027974")


def test_E12_paper_approximation_is_optimistic_at_small_utilization():
    # The M/M/1/B loss is ρ^B·(1−ρ)/(1−ρ^(B+1)) ≈ ρ^B for small ρ, a factor 1/ρ above the paper's
    # ρ^(B+1); with the exact loss the flows back off more and E-12's utilization drops to 0.0168.
    exact = E.tcp_mm1b_utilization(5, 1e6, 0.5, loss="exact")
    approx_ = E.tcp_mm1b_utilization(5, 1e6, 0.5)
    assert exact == approx(0.016823, rel=NUM_REL)
    assert exact < 0.7 * approx_
    # the fixed point with the exact loss really holds: ρ²·p(ρ) = (3/2)(peak/Wmax)²
    assert exact**2 * E.mm1b_loss_probability(exact, 5) == approx(1.5 * (0.5 / 1e6) ** 2, rel=1e-9)
    # the two losses cross at ρ ≈ 1/2 (large B): above it the approximation is pessimistic (E-13)
    assert E.mm1b_loss_probability(0.45, 30) > 0.45**31
    assert E.mm1b_loss_probability(0.55, 30) < 0.55**31


def test_E13_exact_mm1b_loss():
    rho = E.tcp_mm1b_utilization(15, 64, 2.0, loss="exact")
    assert rho == approx(0.736477, rel=NUM_REL)
    # the fixed point really holds with the exact loss
    p = E.mm1b_loss_probability(rho, 15)
    assert rho ** 2 * p == approx(1.5 * (2.0 / 64) ** 2, rel=1e-9)


def test_mm1b_loss_formula_and_approximation():
    # direct formula vs the stable implementation, and the paper's ≈ ρ^(B+1) at small ρ
    for rho, b in [(0.3, 5), (0.8, 15), (0.99, 40), (1.5, 3)]:
        direct = (1 - rho) * rho**b / (1 - rho ** (b + 1))
        assert E.mm1b_loss_probability(rho, b) == approx(direct, rel=1e-12)
    assert E.mm1b_loss_probability(1.0, 9) == approx(0.1, rel=1e-12)
    assert E.mm1b_loss_probability(0.05, 10) == approx(0.05**11, rel=0.06)


def test_mm1b_loss_against_birth_death_chain():
    """Second method: stationary distribution of the M/M/1/B chain by balance equations."""
    rho, b = 0.7, 12
    weights = [rho**k for k in range(b + 1)]
    assert E.mm1b_loss_probability(rho, b) == approx(weights[-1] / sum(weights), rel=1e-12)


def test_log_buffer_keeps_utilization_scaling():
    # §IV-A item 1: B = β·ln Wmax with peak load 2 gives ρ → e^(−2/β) as Wmax grows
    beta = 4.0
    limit = math.exp(-2 / beta)
    gaps = []
    for w in (1e3, 1e6, 1e12, 1e48):
        rho = E.tcp_mm1b_utilization(E.logarithmic_buffer(w, beta), w, 2.0)
        gaps.append(abs(rho - limit))
    assert gaps == sorted(gaps, reverse=True)
    assert gaps[-1] < 0.01
    # item 2: a constant buffer (o(log Wmax)) drives ρ to 0 even when over-provisioned
    assert E.tcp_mm1b_utilization(5, 1e48, 0.5) < 1e-10


# --------------------------------------------------------------------------------- figures
def test_E14_fig1_load():
    load = E.peak_load(1, 32, rate_to_packets_per_second(100e6, 1000), 0.1)
    assert load == approx(0.0256, rel=C_REL)
    assert load == approx(0.026, abs=half_unit(3))


def test_E15_fig3_capacity():
    c = E.capacity_for_peak_load(1062, 32, 0.1, 0.8) * 8000
    assert c / 1e9 == approx(3.398, abs=half_unit(3))
    assert c / 1e9 == approx(3.4, abs=half_unit(1))


def test_E16_fig6_log_buffer():
    assert E.logarithmic_buffer(1529, 5, 10) == approx(15.92, abs=half_unit(2))
    assert E.logarithmic_buffer(10, 5, 10) == approx(5.0, rel=1e-12)  # B = 5 at Wmax = 10


def test_E17_lemma3_bound():
    assert close(E.lemma3_chernoff_bound(0.8, 10, 15), "1.57265e-4")
    assert E.lemma3_chernoff_bound(0.8, 10, 15) == approx(math.exp(-17**2 / (2 * 8 + 17)), rel=1e-12)


def test_E18_fig3_effective_utilization():
    theta = E.effective_utilization(0.70, 0.80)
    assert theta == approx(0.875, rel=C_REL)
    assert theta > 0.85  # [P] "> 85 %"


def test_E19_fig4_per_flow_rate():
    bps = E.peak_rate_pps(1, 32, 0.1) * 8000
    assert bps == approx(2.56e6, rel=C_REL)
    assert bps / 1e6 == approx(2.5, abs=0.1)  # [P] "≃ 2.5 Mb/s"


# --------------------------------------------------------------------------------- Chernoff
@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 120), p=st.floats(0.001, 0.999), extra=st.floats(0.0, 60.0))
def test_chernoff_bounds_dominate_exact_binomial_tail(n, p, extra):
    mu = n * p
    threshold = mu + extra
    k0 = math.ceil(threshold - 1e-12)
    tail = sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(max(k0, 0), n + 1))
    assert tail <= E.chernoff_bound(mu, extra) * (1 + 1e-9) + 1e-300
    beta = extra / mu
    assert tail <= E.chernoff_multiplicative_bound(mu, beta) * (1 + 1e-9) + 1e-300


def test_printed_lemma4_bound_is_not_a_bound():
    """MODELS.md 002 discrepancy 3: the printed exp{−(β²μ)(2+β)} undercuts the true tail, so the
    reconstructed exp(−β²μ/(2+β)) is the one implemented."""
    n, p, beta = 100, 0.01, 1.0
    mu = n * p
    tail = 1 - sum(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(2))
    printed = math.exp(-(beta**2 * mu) * (2 + beta))
    assert printed < tail <= E.chernoff_multiplicative_bound(mu, beta)


# --------------------------------------------------------------------------------- Theorem 1 MC
def test_E01s_theorem1_example_holds_in_simulation():
    """Simulation of Theorem 1's own model (Poisson-paced AIMD, peak load ρ = 0.5, Wmax = 64):
    the 15-packet buffer of E-02 gives θ ≥ 0.9. Sampling noise of θ is about 0.3 %."""
    est = E.theorem1_monte_carlo(4, 64, 0.5, 15, rtts=400, warmup_rtts=50, seed=11)
    assert est.candidates > 90_000
    assert est.effective_utilization >= 0.9 - 0.01
    assert est.drops / est.candidates <= 0.5**15 * 10  # ≈ 0.3 expected drops; allow a few


def test_theorem1_simulation_bound_holds_and_is_loose():
    """Smaller windows so drops happen: θ grows with B, always above the Theorem 1 bound, and
    the drop rate per dominating-Poisson packet stays below ρ^B (Lemmas 1 and 2)."""
    w, rho = 16, 0.5
    thetas = []
    for b in (4, 6, 8):
        est = E.theorem1_monte_carlo(4, w, rho, b, rtts=1500, warmup_rtts=100, seed=5)
        assert est.effective_utilization >= E.theorem1_utilization(b, w, rho) - 0.01
        assert 0 < est.drops / est.candidates <= rho**b
        thetas.append(est.effective_utilization)
    assert thetas[0] < thetas[1] < thetas[2] + 0.005
    assert thetas[0] < 0.95  # with B = 4 the losses really cost throughput (bound says nothing: 0)
    assert thetas[2] > 0.98  # B = 8: bound promises only 0.5 — it is loose


def test_theorem1_monte_carlo_deterministic():
    a = E.theorem1_monte_carlo(3, 8, 0.6, 4, rtts=100, warmup_rtts=10, seed=4)
    assert a == E.theorem1_monte_carlo(3, 8, 0.6, 4, rtts=100, warmup_rtts=10, seed=4)
    assert a.drops <= a.offered <= a.candidates
    assert 1.0 <= a.mean_window <= 8.0


# --------------------------------------------------------------------------------- Theorem 2 MC
def test_theorem2_monte_carlo_loss_falls_with_buffer():
    losses = [E.theorem2_monte_carlo(25, 32, 1000, b, rtts=100, seed=1).drop_probability
              for b in (0, 2, 5, 10)]
    assert losses[0] > 0.2  # load 0.8 with no buffer: collisions lose a lot
    assert all(a > b for a, b in zip(losses, losses[1:-1]))
    assert losses[-1] <= losses[-2]
    assert losses[-1] < 1e-3


def test_theorem2_pacing_beats_bursts_and_poisson():
    paced = E.theorem2_monte_carlo(25, 32, 1000, 5, rtts=100, seed=2)
    burst = E.theorem2_monte_carlo(25, 32, 1000, 5, rtts=100, seed=2, spacing=1)
    poisson = E.theorem2_monte_carlo(25, 32, 1000, 5, rtts=100, seed=2, arrivals="poisson")
    assert paced.spacing == 31 and burst.spacing == 1
    assert paced.load == approx(0.8)
    assert paced.drop_probability < poisson.drop_probability < burst.drop_probability


@pytest.mark.parametrize("b", [0, 2, 5, 10])
def test_lemma2_poisson_drop_below_rho_to_the_b(b):
    """Simulation vs bound: slotted Poisson arrivals lose less than ρ^B (Lemma 2's bound)."""
    est = E.theorem2_monte_carlo(25, 32, 1000, b, rtts=100, seed=3, arrivals="poisson")
    assert est.packets > 100 * 700
    assert est.drop_probability <= E.mm1_drop_probability(est.load, b)


def test_theorem2_monte_carlo_is_deterministic_and_conserves():
    a = E.theorem2_monte_carlo(30, 20, 800, 3, rtts=50, seed=9)
    b = E.theorem2_monte_carlo(30, 20, 800, 3, rtts=50, seed=9)
    assert a == b
    assert a.packets == 30 * 20 * 50  # every flow sends Wmax packets in each measured RTT
    assert 0 <= a.drops <= a.packets
    assert a.rtt_loss_fraction >= (a.drops > 0) / 50


# --------------------------------------------------------------------------------- properties
@settings(max_examples=300, deadline=None)
@given(w=st.floats(2.0, 1e7), rho=st.floats(0.01, 0.99), theta=st.floats(0.01, 0.999))
def test_theorem1_round_trip(w, rho, theta):
    b = E.theorem1_buffer(w, rho, theta)
    assert b > 0  # w ≥ 2 makes Wmax²/(2(1−θ)) > 1
    assert E.theorem1_utilization(b, w, rho) == approx(theta, rel=1e-9, abs=1e-12)
    bi = E.theorem1_buffer(w, rho, theta, integer=True)
    assert bi >= b - 1e-6 and bi - b < 1
    assert E.theorem1_utilization(bi, w, rho) >= theta * (1 - 1e-9)


@settings(max_examples=200, deadline=None)
@given(w=st.floats(1.0, 1e6), r1=st.floats(0.01, 0.99), r2=st.floats(0.01, 0.99),
       theta=st.floats(0.01, 0.999))
def test_theorem1_buffer_monotone_in_load(w, r1, r2, theta):
    lo, hi = sorted((r1, r2))
    assert E.theorem1_buffer(w, lo, theta) <= E.theorem1_buffer(w, hi, theta) * (1 + 1e-12) + 1e-12


@settings(max_examples=200, deadline=None)
@given(b1=st.floats(0, 200), b2=st.floats(0, 200), w=st.floats(1, 1e6), peak=st.floats(0.01, 10),
       loss=st.sampled_from(["approx", "exact"]))
def test_fixed_point_monotone_in_buffer(b1, b2, w, peak, loss):
    lo, hi = sorted((b1, b2))
    u_lo = E.tcp_mm1b_utilization(lo, w, peak, loss=loss)
    u_hi = E.tcp_mm1b_utilization(hi, w, peak, loss=loss)
    assert 0 < u_lo <= u_hi * (1 + 1e-9) <= min(1, peak) * (1 + 1e-9)


@settings(max_examples=200, deadline=None)
@given(rho=st.floats(0.01, 3.0), b1=st.floats(0, 100), b2=st.floats(0, 100))
def test_mm1b_loss_decreasing_in_buffer(rho, b1, b2):
    lo, hi = sorted((b1, b2))
    assert E.mm1b_loss_probability(rho, hi) <= E.mm1b_loss_probability(rho, lo) * (1 + 1e-12)


BAD = [float("nan"), float("inf"), -1.0, "x"]


@pytest.mark.parametrize("call, arg", [
    (lambda v: E.theorem1_buffer(v, 0.5, 0.9), "w_max"),
    (lambda v: E.theorem1_buffer(64, v, 0.9), "rho"),
    (lambda v: E.theorem1_buffer(64, 0.5, v), "theta"),
    (lambda v: E.theorem1_utilization(v, 64, 0.5), "buffer_packets"),
    (lambda v: E.mm1_drop_probability(v, 10), "rho"),
    (lambda v: E.mm1b_loss_probability(0.5, v), "buffer_packets"),
    (lambda v: E.tcp_throughput_pps(v, 0.1), "p"),
    (lambda v: E.tcp_throughput_pps(0.01, v), "tau_s"),
    (lambda v: E.tcp_mm1b_utilization(15, 64, v), "peak_load"),
    (lambda v: E.logarithmic_buffer(100, v), "beta"),
    (lambda v: E.peak_load(10, 32, v, 0.1), "capacity_pps"),
    (lambda v: E.peak_rate_pps(v, 32, 0.1), "n_flows"),
    (lambda v: E.lemma3_chernoff_bound(0.8, v, 15), "l"),
    (lambda v: E.chernoff_bound(v, 1), "mu"),
    (lambda v: E.theorem2_monte_carlo(10, 32, 1000, v), "buffer_packets"),
])
@pytest.mark.parametrize("bad", BAD, ids=["nan", "inf", "neg", "text"])
def test_invalid_input_raises_bufsize_error(call, arg, bad):
    with pytest.raises(BufsizeError) as err:
        call(bad)
    assert err.value.argument == arg


@pytest.mark.parametrize("call, arg", [
    (lambda: E.theorem1_buffer(0.5, 0.5, 0.9), "w_max"),
    (lambda: E.theorem1_buffer(64, 1.0, 0.9), "rho"),
    (lambda: E.theorem1_buffer(64, 0.5, 1.0), "theta"),
    (lambda: E.tcp_mm1b_utilization(15, 64, 2, loss="mm1"), "loss"),
    (lambda: E.logarithmic_buffer(100, 5, 1), "base"),
    (lambda: E.effective_utilization(1.2, 0.8), "utilization"),
    (lambda: E.theorem2_monte_carlo(40, 32, 1000, 5), "slots_per_rtt"),  # load 1.28
    (lambda: E.theorem2_monte_carlo(10, 32, 1000, 5, spacing=40), "spacing"),
    (lambda: E.theorem2_monte_carlo(10, 32, 1000, 5, arrivals="bursty"), "arrivals"),
    (lambda: E.theorem2_monte_carlo(1000, 100, 200_000, 5, rtts=1000), "rtts"),  # memory cap
    (lambda: E.theorem1_monte_carlo(4, 8, 1.0, 5), "rho"),
    (lambda: E.theorem1_monte_carlo(4, 8, 0.5, 0), "buffer_packets"),
    (lambda: E.theorem1_monte_carlo(1000, 1000, 0.5, 5, rtts=10**6), "rtts"),
])
def test_invalid_edge_values(call, arg):
    with pytest.raises(BufsizeError) as err:
        call()
    assert err.value.argument == arg


def test_theorem1_buffer_zero_when_no_buffer_needed():
    # Wmax = 1, θ = 0.1: Wmax²/(2(1−θ)) = 0.56 < 1, the bound is negative → 0 packets
    assert E.theorem1_buffer(1, 0.5, 0.1) == 0.0
    assert E.theorem1_utilization(0, 1, 0.5) == approx(0.5)
