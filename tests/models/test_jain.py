"""Tests of bufsize.models.jain (paper 001) against MODELS.md §2 test vectors J-01…J-24.

§V topology of the paper: C = 50 Mb/s, Tm = 100 ms, 1000-byte packets (C = 6250 packets/s).
Tolerances: rel 1e-6 for [C] closed forms, 1e-4 for numerical solutions, half a unit of the last
printed digit for [P] values; paper prints that differ from the formula are recorded with the gap.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pytest import approx

from bufsize.errors import BufsizeError
from bufsize.models import jain as J

REL_C = 1e-6
REL_NUM = 1e-4
PKT_BITS = 8000.0             # 1000-byte packets


def pps(mbps: float) -> float:
    return mbps * 1e6 / PKT_BITS


def mbps(packets_per_s: float) -> float:
    return packets_per_s * PKT_BITS / 1e6


C50 = pps(50)     # 6250 packets/s
TM = 0.1


# ------------------------------------------------------------------ J-01…J-07: eqs. (4), (5)

def test_bdp1_J01():
    assert J.bdp1(C50, TM) == approx(625.0, rel=REL_C)
    assert J.bdp1(C50, TM) == 625          # [P] §V prints 625 pkts


@pytest.mark.parametrize("S, expected", [
    pytest.param(300, 24.0, id="J-02"),
    pytest.param(700, 50.0, id="J-03"),
    pytest.param(1000, 48.2216, id="J-04"),
])
def test_eq4_under_buffered(S, expected):
    value = mbps(J.transfer_throughput(S, C=C50, Tm=TM, Bt=313))
    assert value == approx(expected, rel=REL_C)


def test_eq4_zero_buffer_J05():
    value = mbps(J.transfer_throughput(1e6, C=C50, Tm=TM, Bt=0))
    assert value == approx(37.5, rel=REL_C)
    assert abs(value - 37.5) <= 0.05       # [P] §IV: "75 % utilization of the tight link"
    assert J.congestion_limited_throughput(C=C50, Tm=TM, Bt=0) == approx(0.75 * C50, rel=1e-15)


def test_eq4_continuous_with_eq5_J06():
    eps = 1e-9
    value = mbps(J.transfer_throughput(1e6, C=C50, Tm=TM, Bt=625 - eps))
    assert J.is_under_buffered(C50, TM, 625 - eps)
    assert value == approx(50.0, rel=REL_C)


def test_eq5_over_buffered_J07():
    assert not J.is_under_buffered(C50, TM, 1250)
    assert mbps(J.transfer_throughput(2000, C=C50, Tm=TM, Bt=1250)) == approx(50.0, rel=REL_C)
    # and the linear part of (5) below C·Tm
    assert mbps(J.transfer_throughput(500, C=C50, Tm=TM, Bt=1250)) == approx(40.0, rel=REL_C)


def test_sweet_spot():
    lo, hi = J.sweet_spot(C=C50, Tm=TM, Bt=313)
    assert (lo, hi) == approx((625.0, 938.0))
    for S in (lo + 1e-6, (lo + hi) / 2, hi):
        assert J.transfer_throughput(S, C=C50, Tm=TM, Bt=313) == approx(C50, rel=1e-12)
    assert J.transfer_throughput(hi + 1, C=C50, Tm=TM, Bt=313) < C50


# ------------------------------------------------------------------ J-08…J-11: Appendix

def test_eq14_loss_rate_J08():
    assert J.reno_single_flow_loss_rate(625, 313) == approx(3.03084e-6, rel=REL_C)
    assert J.reno_single_flow_loss_rate(625, 313) == approx(1 / J.packets_per_cycle(625, 313))


@pytest.mark.parametrize("bdp, Bt, expected", [
    pytest.param(625, 100, 0.851215, id="J-09"),
    pytest.param(625, 313, 0.964432, id="J-10"),
    pytest.param(2000, 0, 0.75, id="J-11"),
])
def test_eq17_utilization(bdp, Bt, expected):
    value = J.reno_single_flow_utilization(bdp, Bt)
    assert value == approx(expected, rel=REL_C)
    # eq. (17) as N_V / (C·T_V) from the Appendix quantities (13) and T_V
    C = bdp / TM
    nv = J.packets_per_cycle(bdp, Bt)
    tv = J.cycle_duration(C=C, Tm=TM, Bt=Bt)
    assert nv / (C * tv) == approx(expected, rel=REL_C)
    assert J.congestion_limited_throughput(C=C, Tm=TM, Bt=Bt) / C == approx(value, rel=1e-12)


@pytest.mark.parametrize("bdp, Bt, expected", [
    pytest.param(625, 100, 0.851215, id="J-09s"),
    pytest.param(625, 313, 0.964432, id="J-10s"),
    pytest.param(2000, 0, 0.75, id="J-11s"),
])
def test_round_simulation_agrees_with_eq17(bdp, Bt, expected):
    # Second method: round-by-round simulation of recursion (10); MODELS.md: within 0.05 %.
    util, loss = J.simulate_reno_rounds(bdp, Bt, cycles=10)
    assert util == approx(expected, rel=5e-4)
    # the loss rate agrees with (14) up to the O(1/X) end terms that (13) drops
    X = bdp + Bt
    assert loss == approx(J.reno_single_flow_loss_rate(bdp, Bt), rel=4.0 / X)
    assert loss < J.reno_single_flow_loss_rate(bdp, Bt)


def test_appendix_rounds():
    assert J.rounds_between_losses(625, 313) == 469.0
    assert J.rounds_between_losses(625, 313, exact=True) == 468.5
    assert J.rounds_without_backlog(625, 313) == 156.0
    assert J.rounds_without_backlog(625, 313, exact=True) == 156.5
    assert J.rounds_without_backlog(625, 1000) == 0.0
    # over-buffered T_V (16) gives R = N_V / T_V = C exactly
    C = 6250.0
    assert J.packets_per_cycle(625, 1000) / J.cycle_duration(C=C, Tm=TM, Bt=1000) == approx(C)
    # the exact under-buffered T_V differs from the approximate one by O(1/X) only
    a = J.cycle_duration(C=C, Tm=TM, Bt=313)
    e = J.cycle_duration(C=C, Tm=TM, Bt=313, exact=True)
    assert e > a and (e - a) / a < 3 / 938


def test_round_simulation_over_buffered_saturates():
    util, _ = J.simulate_reno_rounds(300, 400, cycles=3)
    assert util == approx(1.0, rel=1e-12)


# ------------------------------------------------------------------ J-12…J-21: cross traffic

A15 = pps(15)


@pytest.mark.parametrize("Bt, expected, paper_prints", [
    pytest.param(313, 26.6791, 27, id="J-12"),
    pytest.param(625, 32.5, 32, id="J-13"),
    pytest.param(1250, 38.3333, 38, id="J-14"),
])
def test_eq8_mft(Bt, expected, paper_prints):
    value = mbps(J.mft_tcp_cross_traffic(C=C50, A=A15, T_ct=0.1, Bt_avail=Bt))
    assert value == approx(expected, rel=REL_C)
    # Fig. 4 text prints whole Mb/s: 27 and 38 are the rounded values; 32 for 32.5 is the
    # paper's rounding (MODELS.md §2 discrepancy 1): gap exactly 0.5 Mb/s there.
    assert abs(value - paper_prints) <= 0.5 + 1e-9


def test_eq6_route_to_eq8_J14n():
    # second route: C − R'_ct with eq. (6) at Q = Bt, instead of eq. (8)
    r_ct = J.cross_traffic_rate_with_backlog(1250, C=C50, A=A15, T_ct=0.1)
    assert mbps(C50 - r_ct) == approx(38.3333, rel=REL_C)
    assert mbps(C50 - r_ct) == approx(mbps(J.throughput_given_backlog(1250, C=C50, A=A15,
                                                                       T_ct=0.1)), rel=1e-12)


def test_optimal_socket_buffer_J15():
    s_hat = J.optimal_socket_buffer_tcp_cross_traffic(C=C50, A=A15, T_ct=0.1, Te=0.1,
                                                      Bt_avail=313)
    assert s_hat == approx(646.489, rel=REL_C)


def test_implicit_R_at_S_hat_J16():
    s_hat = J.optimal_socket_buffer_tcp_cross_traffic(C=C50, A=A15, T_ct=0.1, Te=0.1,
                                                      Bt_avail=313)
    r = J.tcp_cross_traffic_throughput(s_hat, C=C50, A=A15, T_ct=0.1, Te=0.1, Bt_avail=313)
    assert mbps(r) == approx(26.6791, rel=REL_NUM)
    # just below Ŝ the numerical solution of (6)-(7) is used, and it tends to R̂
    r2 = J.tcp_cross_traffic_throughput(s_hat - 1e-6, C=C50, A=A15, T_ct=0.1, Te=0.1,
                                        Bt_avail=313)
    assert mbps(r2) == approx(26.6791, rel=REL_NUM)


def test_bdp4_J17():
    value = J.bdp4(A15, 0.102)
    assert value == approx(191.25, rel=REL_C)
    assert abs(value - 191) <= 0.5           # the paper's "191pkts", [P]


def test_cross_traffic_load_J18():
    rate = J.window_limited_rate(20, 22, 0.1)
    assert mbps(rate) == approx(35.2, rel=REL_C)
    assert rate / C50 == approx(0.704, rel=REL_C)
    assert abs(100 * rate / C50 - 70) <= 0.5  # the paper's "70 %", [P]


def test_bdp_inverse_J19():
    C100 = 100e6 / 8            # bytes/s, BDP in bytes
    assert J.min_rtt_from_bdp(436e3, C100) == approx(0.03488, rel=REL_C)
    assert J.bdp1(C100, J.min_rtt_from_bdp(436e3, C100)) == approx(436e3, rel=1e-12)


def test_sobas_J20():
    assert J.sobas_receive_buffer_bytes(24e6, 0.102) == approx(306000.0, rel=REL_C)


def test_udp_cross_traffic_J21():
    # A = 100 − 50 Mb/s, Te = 100 ms (A·Te = 625 pkts), B̃t = 313, S beyond A·Te + B̃t
    value = J.udp_cross_traffic_throughput(5000, C=pps(100), Rc=pps(50), Te=0.1, Bt_avail=313)
    assert mbps(value) == approx(48.2216, rel=REL_C)
    # MFT = A in the sweet spot [A·Te, A·Te + B̃t]
    assert mbps(J.udp_cross_traffic_throughput(800, C=pps(100), Rc=pps(50), Te=0.1,
                                               Bt_avail=313)) == approx(50.0, rel=1e-12)


def test_udp_socket_buffer_range():
    lo, hi = J.udp_cross_traffic_socket_buffer_range(C=pps(100), Rc=pps(50), Te=0.1, Bt_avail=313)
    assert (lo, hi) == approx((625.0, 938.0), rel=1e-12)
    for S in (lo, (lo + hi) / 2, hi):
        assert mbps(J.udp_cross_traffic_throughput(S, C=pps(100), Rc=pps(50), Te=0.1,
                                                   Bt_avail=313)) == approx(50.0, rel=1e-12)
    assert J.udp_cross_traffic_throughput(hi + 1, C=pps(100), Rc=pps(50), Te=0.1,
                                          Bt_avail=313) < pps(50)


def test_available_bandwidth():
    assert mbps(J.available_bandwidth(C50, 0.7)) == approx(15.0, rel=1e-12)
    assert J.tight_link_available_bandwidth([100, 50, 80], [0.2, 0.7, 0.5]) == approx(15.0)
    assert J.narrow_link_capacity([100, 50, 80]) == 50


# ------------------------------------------------------------------ J-22…J-24: eq. (9), PFTK

@pytest.mark.parametrize("p, T, expected", [
    pytest.param(0.0008, 0.118, 2.045, id="J-22"),
    pytest.param(0.0005, 0.148, 2.078, id="J-23"),
    pytest.param(0.0003, 0.215, 1.855, id="J-24"),
])
def test_pftk(p, T, expected):
    value = mbps(J.pftk_throughput(T, p, b=2, T0=1.0))
    assert abs(value - expected) <= 0.0005
    # informative only (b, T0 not given): the paper's measured MFT is "about 2.4 Mb/s"
    PAPER_MFT = 2.4
    assert 0.7 < value / PAPER_MFT < 0.9
    # eq. (9): with a socket buffer large enough the congested throughput is f(T, p)
    assert J.congested_path_throughput(10_000, T=T, p=p) == approx(pps(value), rel=1e-3)
    assert J.congested_path_throughput(10, T=T, p=p) == approx(10 / T)


def test_pftk_window_cap():
    assert J.pftk_throughput(0.1, 1e-6, Wmax=20) == approx(200.0)


def test_send_window_and_eq3():
    assert J.send_window(40, 25) == 25
    assert J.send_window(10, 25) == 10
    assert J.window_throughput(25, 0.1) == approx(250.0)


# ------------------------------------------------------------------ invalid input

BAD = [-1.0, float("nan"), float("inf")]


@pytest.mark.parametrize("call, arg", [
    (lambda x: J.transfer_throughput(x, C=C50, Tm=TM, Bt=313), "S"),
    (lambda x: J.transfer_throughput(100, C=x, Tm=TM, Bt=313), "C"),
    (lambda x: J.transfer_throughput(100, C=C50, Tm=x, Bt=313), "Tm"),
    (lambda x: J.transfer_throughput(100, C=C50, Tm=TM, Bt=x), "Bt"),
    (lambda x: J.reno_single_flow_utilization(x, 10), "bdp_packets"),
    (lambda x: J.reno_single_flow_utilization(100, x), "buffer_packets"),
    (lambda x: J.reno_single_flow_loss_rate(100, x), "buffer_packets"),
    (lambda x: J.simulate_reno_rounds(x, 10), "bdp_packets"),
    (lambda x: J.mft_tcp_cross_traffic(C=C50, A=A15, T_ct=x, Bt_avail=313), "T_ct"),
    (lambda x: J.pftk_throughput(x, 0.01), "T"),
    (lambda x: J.pftk_throughput(0.1, x), "p"),
    (lambda x: J.sobas_receive_buffer_bytes(x, 0.1), "rate_bps"),
    (lambda x: J.window_limited_rate(x, 22, 0.1), "n_flows"),
    (lambda x: J.udp_cross_traffic_throughput(100, C=C50, Rc=pps(10), Te=x, Bt_avail=313), "Tm"),
])
@pytest.mark.parametrize("bad", BAD)
def test_invalid_arguments(call, arg, bad):
    with pytest.raises(BufsizeError) as exc:
        call(bad)
    assert exc.value.argument == arg


@pytest.mark.parametrize("call, arg", [
    (lambda: J.bdp1(0, 0.1), "C"),
    (lambda: J.reno_single_flow_loss_rate(1, 0), "bdp_packets"),
    (lambda: J.simulate_reno_rounds(0.5, 0), "bdp_packets"),
    (lambda: J.simulate_reno_rounds(100, 10, cycles=0), "cycles"),
    (lambda: J.udp_cross_traffic_throughput(100, C=C50, Rc=C50, Te=0.1, Bt_avail=3), "Rc"),
    (lambda: J.mft_tcp_cross_traffic(C=C50, A=2 * C50, T_ct=0.1, Bt_avail=3), "A"),
    (lambda: J.tcp_cross_traffic_throughput(5000, C=C50, A=A15, T_ct=0.1, Te=0.1,
                                            Bt_avail=313), "S"),
    (lambda: J.tight_link_available_bandwidth([1, 2], [0.5]), "utilizations"),
    (lambda: J.tight_link_available_bandwidth([1, 2], [0.5, 1.5]), "utilizations"),
    (lambda: J.narrow_link_capacity([]), "capacities"),
    (lambda: J.available_bandwidth(C50, -0.1), "rho"),
])
def test_invalid_arguments_named(call, arg):
    with pytest.raises(BufsizeError) as exc:
        call()
    assert exc.value.argument == arg


# ------------------------------------------------------------------ properties

@given(st.floats(max_value=-1e-300, allow_nan=False) | st.just(float("nan")))
def test_negative_or_nan_inputs_raise(bad):
    for call in (lambda: J.transfer_throughput(bad, C=C50, Tm=TM, Bt=10),
                 lambda: J.reno_single_flow_utilization(bad, 10),
                 lambda: J.reno_single_flow_loss_rate(100, bad),
                 lambda: J.mft_tcp_cross_traffic(C=C50, A=A15, T_ct=0.1, Bt_avail=bad),
                 lambda: J.pftk_throughput(bad, 0.01)):
        with pytest.raises(BufsizeError):
            call()


@given(st.floats(1.0, 1e5), st.floats(0.0, 1e5), st.floats(0.0, 1e5))
def test_utilization_bounds_and_monotone_in_buffer(bdp, b1, b2):
    lo, hi = sorted((b1, b2))
    u_lo = J.reno_single_flow_utilization(bdp, lo)
    u_hi = J.reno_single_flow_utilization(bdp, hi)
    assert 0.75 - 1e-12 <= u_lo <= u_hi * (1 + 1e-12) <= 1.0 + 1e-12


@given(st.floats(1.0, 1e4), st.floats(0.001, 1.0), st.floats(0.0, 2e4), st.floats(0.0, 5e4),
       st.floats(0.0, 5e4))
def test_R_of_S_bounded_and_monotone_up_to_sweet_spot(C, Tm, Bt, s1, s2):
    lo, hi = sorted((s1, s2))
    top = C * Tm + Bt
    r_lo = J.transfer_throughput(lo, C=C, Tm=Tm, Bt=Bt)
    r_hi = J.transfer_throughput(hi, C=C, Tm=Tm, Bt=Bt)
    assert r_lo <= C * (1 + 1e-12) and r_hi <= C * (1 + 1e-12)
    if hi <= top:
        assert r_lo <= r_hi * (1 + 1e-12)
    if hi > top:   # congestion-limited: never below 3C/4
        assert r_hi >= 0.75 * C * (1 - 1e-12)


@settings(max_examples=25, deadline=None)
@given(st.floats(100.0, 3000.0), st.floats(0.0, 1.5))
def test_round_simulation_tracks_eq17(bdp, ratio):
    Bt = ratio * bdp
    util, _ = J.simulate_reno_rounds(bdp, Bt, cycles=3)
    assert util == approx(J.reno_single_flow_utilization(bdp, Bt), rel=1.0 / (bdp + Bt))


@settings(max_examples=60)
@given(st.floats(10.0, 1e4), st.floats(0.05, 0.95), st.floats(0.01, 0.5), st.floats(0.01, 0.5),
       st.floats(0.0, 5000.0), st.floats(0.0, 1.0))
def test_implicit_R_matches_quadratic(C, a_frac, T_ct, Te, Bt, where):
    # Second method: (S − Q)(T_ct + Q/C) = Te·(A·T_ct + Q) is a quadratic in Q.
    A = a_frac * C
    s_hat = J.optimal_socket_buffer_tcp_cross_traffic(C=C, A=A, T_ct=T_ct, Te=Te, Bt_avail=Bt)
    S = A * Te + where * (s_hat - A * Te)
    r = J.tcp_cross_traffic_throughput(S, C=C, A=A, T_ct=T_ct, Te=Te, Bt_avail=Bt)
    beta = S - C * (T_ct + Te)
    Q = (beta + math.sqrt(beta * beta + 4 * C * T_ct * max(0.0, S - A * Te))) / 2
    expected = A * (T_ct + Q / A) / (T_ct + Q / C)
    assert r == approx(expected, rel=1e-7, abs=1e-9 * C)
    assert A * (1 - 1e-12) <= r <= J.mft_tcp_cross_traffic(C=C, A=A, T_ct=T_ct,
                                                           Bt_avail=Bt) * (1 + 1e-9)


@given(st.floats(0.001, 2.0), st.floats(1e-6, 0.5), st.floats(1e-6, 0.5))
def test_pftk_decreases_with_loss(T, p1, p2):
    lo, hi = sorted((p1, p2))
    assert J.pftk_throughput(T, hi) <= J.pftk_throughput(T, lo) * (1 + 1e-12)


@given(st.floats(1.0, 1e4), st.floats(0.05, 1.0), st.floats(0.01, 0.5), st.floats(0.0, 1e4),
       st.floats(0.0, 1e4))
def test_mft_between_A_and_C_and_monotone(C, a_frac, T_ct, b1, b2):
    A = a_frac * C
    lo, hi = sorted((b1, b2))
    r_lo = J.mft_tcp_cross_traffic(C=C, A=A, T_ct=T_ct, Bt_avail=lo)
    r_hi = J.mft_tcp_cross_traffic(C=C, A=A, T_ct=T_ct, Bt_avail=hi)
    # three separate comparisons, each with its own rounding slack (a chain would apply the
    # slack of the middle term to both neighbours: A = C gave r_hi one ulp above C)
    assert r_lo >= A * (1 - 1e-12)
    assert r_lo <= r_hi * (1 + 1e-12)
    assert r_hi <= C * (1 + 1e-12)
