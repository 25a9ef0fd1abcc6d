"""Profile -> engine scenario and -> recommend() inputs: what is carried over, scaled, and assumed."""

from __future__ import annotations

import math

import pytest

from bufsize import traffic
from bufsize.errors import BufsizeError
from bufsize.traffic import synth


@pytest.fixture(scope="module")
def prof(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("cap")
    pk = []
    pk += synth.tcp_transfer("10.0.0.1", "10.9.0.1", 40000, 80, t0=0.0, size=200 * 1448, leg_client=0.002,
                             leg_server=0.018, window=2)
    pk += synth.tcp_transfer("10.0.0.2", "10.9.0.1", 40001, 80, t0=0.01, size=100 * 1448, leg_client=0.002,
                             leg_server=0.048, window=2)
    for i in range(30):
        pk += synth.tcp_transfer(f"10.1.0.{i + 1}", "10.9.0.1", 30000 + i, 80, t0=0.05 + i * 0.1,
                                 size=2000 * (i + 1), leg_client=0.001, leg_server=0.029)
    pk += synth.udp_stream("10.0.0.5", "10.9.0.6", 5000, 6000, t0=0.0, rate_pps=100, count=300, payload=972)
    pk.sort(key=lambda p: p.t)
    path = tmp / "c.pcap"
    with open(path, "wb") as f:
        synth.write_pcap(f, pk)
    return traffic.load(path)


def test_profile_counts_what_the_capture_holds(prof):
    assert (prof.long_flows, prof.short_flows, prof.udp_flows) == (2, 30, 1)
    assert sorted(round(r, 4) for r in prof.long_rtts_s) == [0.02, 0.05]
    assert prof.size_cdf["values"][0] == 2000 and prof.size_cdf["values"][-1] == 60000
    assert prof.arrival_rate_per_s == pytest.approx(30 / prof.duration_s)
    # 300 UDP datagrams of 972 + 8 + 20 = 1000 IP bytes
    assert prof.udp_rate_bps == pytest.approx(300 * 1000 * 8 / prof.duration_s)
    assert prof.mss_bytes == 1448 and prof.frame_overhead_bytes == 66


def test_scenario_carries_the_profile_and_says_what_it_assumed(prof):
    sc, notes = traffic.to_scenario(prof, capacity="10Mbps", buffer="20pkt", duration="10s")
    d = sc.to_dict()
    db = d["dumbbell"]
    assert db["flows"] == 2 and db["capacity_bps"] == 10e6
    assert sorted(round(x, 4) for x in db["rtt_s"]["list"]) == [0.02, 0.05]
    assert db["tcp"]["packet_bytes"] == 1514 and db["tcp"]["cc"] == "cubic"
    short = d["short_flows"][0]
    assert short["arrivals_per_s"] == pytest.approx(prof.arrival_rate_per_s)
    assert short["size_bytes"]["empirical"]["values"][-1] == 60000
    assert d["udp"][0]["rate_bps"] == pytest.approx(prof.udp_rate_bps)
    assert any("assumed CUBIC" in n for n in notes)
    from bufsize.simulate import simulate

    s = simulate(sc, progress=False).summary
    assert s["conservation_ok"]
    assert 0 < s["utilization"] <= 1


def test_scale_to_grows_flows_and_rates_not_per_flow_properties(prof):
    sc1 = traffic.to_scenario(prof, capacity="10Mbps", buffer="20pkt")[0].to_dict()
    sc3, notes = traffic.to_scenario(prof, capacity="10Mbps", buffer="60pkt", scale_to="30Mbps")
    sc3 = sc3.to_dict()
    assert sc3["dumbbell"]["flows"] == 3 * sc1["dumbbell"]["flows"]
    assert sc3["dumbbell"]["capacity_bps"] == 30e6
    assert sc3["short_flows"][0]["arrivals_per_s"] == pytest.approx(3 * sc1["short_flows"][0]["arrivals_per_s"])
    assert sc3["short_flows"][0]["size_bytes"] == sc1["short_flows"][0]["size_bytes"]
    assert sc3["udp"][0]["rate_bps"] == pytest.approx(3 * sc1["udp"][0]["rate_bps"])
    assert sorted(set(sc3["dumbbell"]["rtt_s"]["list"])) == sorted(set(sc1["dumbbell"]["rtt_s"]["list"]))
    assert any("scaled to 30 Mb/s" in n for n in notes)


def test_recommend_inputs_feed_recommend(prof):
    from bufsize.recommendation import recommend

    kw = traffic.recommend_inputs(prof, capacity="10Mbps")
    assert kw["flows"] == 2 and kw["capacity"] == 10e6
    assert len(kw["rtt"].split(",")) == 2
    assert 0 < kw["short_load"] < 1
    r = recommend(**kw)
    assert r.buffer_packets is not None and math.isfinite(r.buffer_packets)
    kw10 = traffic.recommend_inputs(prof, capacity="10Mbps", scale_to="100Mbps")
    assert kw10["flows"] == 20 and len(kw10["rtt"].split(",")) == 20
    assert kw10["short_load"] == pytest.approx(kw["short_load"])


def test_no_long_flows_uses_short_flows_only(tmp_path):
    pk = []
    for i in range(40):
        pk += synth.tcp_transfer(f"10.1.0.{i + 1}", "10.9.0.1", 30000 + i, 80, t0=i * 0.1, size=5000,
                                 leg_client=0.001, leg_server=0.019)
    pk.sort(key=lambda p: p.t)
    path = tmp_path / "s.pcap"
    with open(path, "wb") as f:
        synth.write_pcap(f, pk)
    p = traffic.load(path)
    assert p.long_flows == 0
    sc, notes = traffic.to_scenario(p, capacity="10Mbps", buffer="20pkt", duration="5s")
    assert "dumbbell" not in sc.to_dict()
    assert any("no long-lived flow" in n for n in notes)
    with pytest.raises(BufsizeError, match="buffer"):
        traffic.to_scenario(p, capacity="10Mbps")


def test_bottleneck_is_an_ideal_port_unless_a_bucket_is_given(prof, tmp_path):
    """A user's router is unknown: the scenario serializes at the rate. The testbed's htb bucket is
    mirrored only when asked for (its own captures), on the dumbbell and on the short-flow-only
    topology alike."""
    plain = traffic.to_scenario(prof, capacity="10Mbps", buffer="20pkt")[0].to_dict()
    assert plain["dumbbell"].get("bottleneck_burst_bytes") is None
    shaped = traffic.to_scenario(prof, capacity="10Mbps", buffer="20pkt", bottleneck_burst=15360)[0].to_dict()
    assert shaped["dumbbell"]["bottleneck_burst_bytes"] == 15360
    pk = []
    for i in range(10):
        pk += synth.tcp_transfer(f"10.1.0.{i + 1}", "10.9.0.1", 30000 + i, 80, t0=i * 0.1, size=5000,
                                 leg_client=0.001, leg_server=0.019)
    pk.sort(key=lambda p: p.t)
    path = tmp_path / "s.pcap"
    with open(path, "wb") as f:
        synth.write_pcap(f, pk)
    short_only = traffic.load(path)
    links = traffic.to_scenario(short_only, capacity="10Mbps", buffer="20pkt")[0].to_dict()["links"]
    assert all(ln.get("burst_bytes") is None for ln in links)
    links = traffic.to_scenario(short_only, capacity="10Mbps", buffer="20pkt", bottleneck_burst=15360)[0].to_dict()["links"]
    assert [ln.get("burst_bytes") for ln in links] == [15360, None]


def test_tcp_settings_given_replace_the_linux_like_ones_for_every_flow(prof):
    from bufsize import defaults

    d = traffic.to_scenario(prof, capacity="10Mbps", buffer="20pkt", tcp={"loss_detection": "dupack"})[0].to_dict()
    assert d["dumbbell"]["tcp"]["loss_detection"] == "dupack"
    assert d["short_flows"][0]["tcp"]["loss_detection"] == "dupack"
    assert d["dumbbell"]["tcp"]["packet_bytes"] == 1514  # the measured segment size stays
    # Without tcp=, the flows get the toolkit's Linux-like default loss detection.
    plain = traffic.to_scenario(prof, capacity="10Mbps", buffer="20pkt")[0].to_dict()
    assert plain["dumbbell"]["tcp"].get("loss_detection") == defaults.LOSS_DETECTION
