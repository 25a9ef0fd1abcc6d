"""The scenario built from a link description simulates what was described (bufsize.recommendation.scenario)."""

import pytest

from bufsize import defaults
from bufsize.recommendation.scenario import input_from_flags, mix_counts, scenario_from_input, unsimulated, whole_packets
from bufsize.errors import BufsizeError
from bufsize.recommendation import parse_input
from bufsize.scenario import Scenario


def _si(inp, **kw):
    return Scenario.from_dict(scenario_from_input(inp, **kw)).to_dict()


def test_scenario_carries_packet_size_sack_prr_and_rtt_range():
    inp = parse_input(capacity="1Gbps", flows=50, rtt="10ms..40ms")
    db = _si(inp, buffer=100)["dumbbell"]
    assert db["capacity_bps"] == 1e9 and db["flows"] == 50
    assert db["rtt_s"] == {"uniform": [0.01, 0.04]}
    assert db["tcp"]["packet_bytes"] == defaults.PACKET_BYTES == inp.packet_bytes
    assert db["tcp"]["sack"] is True and db["tcp"]["prr"] is True
    assert db["tcp"]["cc"] == "cubic"   # no mix: the profile's control (linux: CUBIC)
    assert db["tcp"]["initial_window"] == 10 and db["tcp"]["delayed_ack"] is True
    assert db["buffer"] == {"limit_packets": 100}
    # another profile, the same description
    from bufsize import profiles

    with profiles.using("ns3"):
        ns3 = _si(inp, buffer=100)
    assert ns3["profile"] == "ns3" and ns3["dumbbell"]["tcp"]["cc"] == "cubic"   # ns-3 3.37's TcpCubic
    assert ns3["dumbbell"]["tcp"]["loss_detection"] == "dupack" and ns3["dumbbell"]["tcp"]["min_rto_s"] == 1.0
    # a Reno-only mix is NewReno whatever the profile
    reno = _si(parse_input(capacity="1Gbps", flows=50, rtt="10ms..40ms", mix="reno=1"), buffer=100)
    assert reno["dumbbell"]["tcp"]["cc"] == "newreno"


def test_cubic_mix_becomes_cubic_flows_and_a_mixed_mix_is_split_by_counts():
    cubic = _si(parse_input(capacity="1Gbps", flows=50, rtt="10ms..40ms", mix="cubic=1"), buffer=417)["dumbbell"]
    assert [(c["flows"], c["tcp"]["cc"]) for c in cubic["mix"]] == [(50, "cubic")]
    assert cubic["mix"][0]["tcp"]["sack"] is True            # classes inherit the described TCP
    mixed = _si(parse_input(capacity="1Gbps", flows=10, rtt="40ms", mix="reno=0.25,cubic=0.75"), buffer=50)
    got = {c["tcp"]["cc"]: c["flows"] for c in mixed["dumbbell"]["mix"]}
    assert got == {"newreno": 3, "cubic": 7} or got == {"newreno": 2, "cubic": 8}
    assert sum(got.values()) == 10


def test_reno_mix_is_plain_newreno_without_classes():
    db = _si(parse_input(capacity="1Gbps", flows=50, rtt="30ms", mix="reno=1"), buffer=10)["dumbbell"]
    assert "mix" not in db and db["tcp"]["cc"] == "newreno"


def test_mix_counts_add_up_to_the_flows():
    for n in (1, 3, 7, 50, 999):
        c = mix_counts({"reno": 0.2, "bic": 0.2, "cubic2": 0.4, "ctcp": 0.2}, n)
        assert sum(c.values()) == n
        assert all(v > 0 for v in c.values())


def test_window_cap_pacing_and_input_capacity_reach_the_scenario():
    inp = parse_input(capacity="1Gbps", flows=300, rtt="50ms", input_capacity="200Mbps", max_window="64KiB",
                      paced=True)
    db = _si(inp, buffer=20)["dumbbell"]
    assert db["access_rate_bps"] == 2e8
    assert db["tcp"]["max_window_packets"] == 65536 // 1500   # whole packets that fit in the cap
    assert db["tcp"]["cc"] == "newreno-paced"


def test_short_flows_are_simulated_at_their_load_and_lengths():
    inp = parse_input(capacity="100Mbps", flows=None, rtt="50ms", short_flows="2pkt:0.3,14pkt:0.7", short_load=0.3)
    si = _si(inp, buffer=40, duration=4, warmup=1)
    assert "dumbbell" not in si
    sf = si["short_flows"][0]
    assert sf["load"] == 0.3
    sizes = sf["size_packets"]["list"]
    assert sizes.count(2.0) * 7 == sizes.count(14.0) * 3
    from bufsize.simulate import simulate

    res = simulate(Scenario.from_dict(si))
    # open-loop short flows carry their offered load (the buffer drops almost nothing at 30 %)
    assert res.summary["utilization"] == pytest.approx(0.3, abs=0.05)


def test_fractional_buffer_is_rounded_to_the_nearest_packet():
    assert whole_packets(416.67) == 417
    assert whole_packets(416.5) == 417
    assert whole_packets(416.49) == 416
    inp = parse_input(capacity="1Gbps", flows=50, rtt="30ms")
    assert _si(inp, buffer=416.67)["dumbbell"]["buffer"] == {"limit_packets": 417}


def test_unsimulated_names_what_the_dumbbell_cannot_hold():
    inp = parse_input(capacity="1Gbps", flows=3, rtt="40ms", mix="reno=0.2,bic=0.2,cubic=0.4,ctcp=0.2")
    notes = unsimulated(inp)
    assert any("more protocols than the 3 flows" in n for n in notes)
    assert unsimulated(parse_input(capacity="1Gbps", flows=50, rtt="30ms..50ms")) == []
    # one RTT is simulated spread over ±10 % of it, and said
    one = parse_input(capacity="1Gbps", flows=50, rtt="40ms")
    assert unsimulated(one) == ["one RTT given: simulated as RTTs spread uniformly over ±10% of it (36 ms–44 ms), "
                                "as real paths differ (flows of identical RTT lock in phase); give a range or a "
                                "list to set them"]
    assert _si(one, buffer=10)["dumbbell"]["rtt_s"]["uniform"] == pytest.approx([0.036, 0.044])


def test_link_flags_need_capacity_rtt_and_flows():
    with pytest.raises(BufsizeError, match="--flows"):
        input_from_flags(capacity="1Gbps", rtt="40ms")
    with pytest.raises(BufsizeError, match="--rtt"):
        input_from_flags(capacity="1Gbps", flows=10)
    inp = input_from_flags(capacity="1Gbps", rtt="40ms", flows="10", mix=None, paced=False)
    assert inp.flows == 10 and inp.packet_bytes == 1500


def test_unknown_mix_control_is_one_line_naming_the_valid_ones(capsys):
    from bufsize.cli import main

    assert main(["recommend", "--capacity", "1Gbps", "--rtt", "40ms", "--flows", "10", "--mix", "vegas=1"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith("bufsize: error: --mix: unknown TCP protocol 'vegas'")
    valid = err.split("known: ", 1)[1].rstrip(")").split(", ")
    assert {"reno", "cubic", "bic", "ctcp", "bbr"} <= set(valid)
    assert not {"cubic'", "cubic''", "cubic1", "cubic2"} & set(valid)   # 003's internal spellings
