"""Helpers of 001's §V–VI R(S) figures (bufsize.reproduce._p001_cross) on small inputs; the sweeps
themselves run in the quick report, not here."""

import math

import pytest

from bufsize.reproduce import _p001_cross as p


def test_mft_picks_the_largest_rate_and_the_smallest_s_on_ties():
    assert p.mft([20, 100, 200, 300], [1.0, 5.0, 7.0, 6.0]) == (7.0, 200.0)
    assert p.mft([300, 100, 200], [7.0, 7.0, 2.0]) == (7.0, 100.0)
    with pytest.raises(ValueError):
        p.mft([1, 2], [1.0])


def test_plateau_start_is_where_the_curve_stays_flat():
    s = [20, 80, 150, 250, 350]
    assert p.plateau_start(s, [1.0, 1.95, 2.0, 1.9, 2.0]) == 80
    # a drop at the largest S: never flat
    assert math.isnan(p.plateau_start(s, [1.0, 2.0, 3.0, 4.0, 2.0]))


def test_linear_fraction_is_one_for_a_buffer_limited_curve():
    te = 0.1
    s = [20, 80, 150, 400]
    rates = [x * 8000 / te for x in s]       # R = S/Te exactly
    rates[-1] = 10e6                         # above the cut: ignored
    assert p.linear_fraction(s, rates, te, upto_bps=15e6) == pytest.approx(1.0)
    assert math.isnan(p.linear_fraction(s, rates, te, upto_bps=1.0))


def test_drop_after_peak_and_ordering():
    assert p.drop_after_peak([10, 20, 30], [5.0, 10.0, 8.0]) == pytest.approx(0.2)
    assert p.decreasing_in([3.0, 2.0, 2.05], slack=0.1)
    assert not p.decreasing_in([3.0, 2.0, 2.5])


def test_scenario_mirrors_the_cross_traffic_on_the_reverse_path():
    sc = p.scenario("tcp_winlim", 313, socket_buffer=100, measured=10, warmup=5).to_dict()
    links = {lk["name"]: lk for lk in sc["links"]}
    assert links["tight"]["rate_bps"] == p.CAPACITY and links["tightr"]["rate_bps"] == p.CAPACITY
    # the target: capped at S, two-way propagation delay Tm = 100 ms, starts after the warm-up
    target = sc["flows"][0]
    assert target["tcp"]["max_window_packets"] == 100 and target["start_s"] == 5
    assert sum(links[n]["delay_s"] for n in target["path"] + target["ack_path"]) == pytest.approx(p.RTT)
    cross = sc["flows"][1:]
    fwd = [f for f in cross if f["path"][-1] == "tight"]
    rev = [f for f in cross if f["path"][-1] == "tightr"]
    assert len(fwd) == len(rev) == 20
    assert all(f["tcp"]["max_window_packets"] == 22 for f in cross)
    for f in cross:
        assert sum(links[n]["delay_s"] for n in f["path"] + f["ack_path"]) == pytest.approx(p.RTT)
    # 20 flows × 22 packets per 100 ms = 35.2 Mb/s, 70 % of C (MODELS.md J-18)
    assert 20 * 22 * 8000 / p.RTT / p.CAPACITY == pytest.approx(0.704)


def test_udp_and_mice_sources_run_in_both_directions():
    u = p.scenario("udp", 625, socket_buffer=None, measured=10, target=False).to_dict()
    assert not u["flows"] and len(u["udp"]) == 20
    assert sum(x["rate_bps"] for x in u["udp"] if x["path"] == ["tight"]) == pytest.approx(35e6)
    m = p.scenario("mice_congested", 625, socket_buffer=50, measured=10, mice_count=7).to_dict()
    assert [x["count"] for x in m["users"]] == [7, 7]
    assert {tuple(x["path"]) for x in m["users"]} == {("tight",), ("tightr",)}
    with pytest.raises(ValueError):
        p.scenario("vegas", 625, socket_buffer=1, measured=1)


def test_without_the_reverse_setting_only_the_forward_sources_run():
    """The sensitivity setting (bench/ns2/p001_twoway.py): every reverse source left out, nothing else."""
    t = p.scenario("tcp_winlim", 313, socket_buffer=100, measured=10, warmup=5, reverse=False).to_dict()
    assert len(t["flows"]) == 21 and all(f["path"][-1] == "tight" for f in t["flows"])
    u = p.scenario("udp", 625, socket_buffer=None, measured=10, target=False, reverse=False).to_dict()
    assert len(u["udp"]) == 10 and all(x["path"] == ["tight"] for x in u["udp"])
    m = p.scenario("mice", 625, socket_buffer=50, measured=10, mice_count=7, reverse=False).to_dict()
    assert [tuple(x["path"]) for x in m["users"]] == [("tight",)]


def test_miss_notes_cover_every_failing_check_and_only_those():
    from bufsize.reproduce._core import check_abs

    checks = [check_abs("Bt = 313: MFT R̂ = 24 Mb/s", 24.0, 19.6, 2.4),
              check_abs("Bt = 625: MFT R̂ = 29 Mb/s", 29.0, 28.0, 2.9),
              check_abs("Bt = 1250: loss rate", 0.0003, float("nan"), 0.0001)]
    notes = p.miss_notes(checks, [("MFT", lambda c: f"reason for {c.paper:g}"), ("loss", "fixed reason")])
    assert len(notes) == 2
    assert "Bt = 313" in notes[0] and "19.6" in notes[0] and "reason for 24" in notes[0]
    assert "never flat" in notes[1] and "fixed reason" in notes[1]
    # a miss without a matching reason still gets a note that says so
    assert "no explanation measured" in p.miss_notes(checks[:1], [])[0]
