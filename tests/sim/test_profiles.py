"""TCP profiles: one stack by default everywhere a scenario is built, named in every result."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

import bufsize
from bufsize import profiles
from bufsize.cli import main
from bufsize.errors import BufsizeError, ScenarioError
from bufsize.scenario import Scenario
from bufsize.scenario._fields import _FIELDS

LINK = dict(capacity="20Mbps", flows=6, rtt="20ms..60ms", buffer="30pkt", duration="8s", warmup="3s", seed=4)


def _strip(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k != "wall_seconds"}


def test_every_profile_sets_every_tcp_field_of_the_schema():
    for p in profiles.PROFILES.values():
        assert set(p.tcp) == set(_FIELDS["tcp"]), p.name
    assert profiles.DEFAULT == "linux" and profiles.NAMES[0] == "linux"


def test_profiles_hold_their_references_values():
    linux, ns3, ns2 = (profiles.PROFILES[n].tcp for n in ("linux", "ns3", "ns2"))
    # today's Linux: CUBIC, IW 10 (RFC 6928), delayed ACKs with TCP_ATO_MIN, SACK + PRR, RACK-TLP
    assert (linux["cc"], linux["initial_window"], linux["delayed_ack"], linux["delayed_ack_timeout_s"]) == \
        ("cubic", 10, True, 0.04)
    assert (linux["sack"], linux["prr"], linux["loss_detection"], linux["min_rto_s"]) == (True, True, "rack", 0.2)
    # ns-3 3.37's defaults (bench/ns3/ns3_defaults.md): TcpCubic, PRR recovery, DupThresh, MinRto 1 s,
    # timestamps, the pipe at a loss
    assert (ns3["cc"], ns3["prr"], ns3["loss_detection"], ns3["min_rto_s"], ns3["flight_size"]) == \
        ("cubic", True, "dupack", 1.0, "pipe")
    assert (ns3["header_bytes"], ns3["delayed_ack_timeout_s"], linux["header_bytes"]) == (52, 0.2, 52)
    # ns-2.35's agents: no SACK, an ACK per segment, a SYN then windowInit_ 2 (the flights of an initial
    # window of 1), rtxcur_init_ 3 s, packetSize_ 1000; 1 µs of host jitter (bench/ns2/tiny_buffers.md)
    assert (ns2["sack"], ns2["delayed_ack"], ns2["initial_window"], ns2["initial_rto_s"], ns2["packet_bytes"]) == \
        (False, False, 1, 3.0, 1000)
    assert ns2["host_jitter_s"] == pytest.approx(1e-6)
    assert ns2["flight_size"] == "cwnd"
    # a repeated timeout keeps ssthresh in Linux and ns-3 (RFC 5681 §3.1), not in ns-2's slowdown()
    assert (linux["repeat_rto_holds_ssthresh"], ns3["repeat_rto_holds_ssthresh"],
            ns2["repeat_rto_holds_ssthresh"]) == (True, True, False)
    # Linux's RTO is at least RTT + 200 ms; ns-3 and ns-2 floor the whole RTO
    assert (linux["rto_min_above_srtt"], ns3["rto_min_above_srtt"], ns2["rto_min_above_srtt"]) == (True, False, False)
    # with ECN, a loss inside an ECE reduction's episode: Linux keeps the one reduction, ns-3 cuts again
    assert (linux["loss_in_cwr_keeps_reduction"], ns3["loss_in_cwr_keeps_reduction"]) == (True, False)
    assert (ns3["limited_transmit"], ns2["limited_transmit"], ns3["abc_limit"], ns2["abc_limit"]) == (True, True, 1, 1)


def test_scenario_profile_key_starts_every_tcp_table_and_details_override_it():
    d = Scenario.from_dict({"profile": "ns3", "duration": "2s", "warmup": "1s",
                            "dumbbell": {"capacity": "10Mbps", "flows": 2, "rtt": "20ms", "buffer": 10,
                                         "tcp": {"initial_window": 4}},
                            "short_flows": [{"load": 0.1, "size": "10pkt", "rtt": "20ms"}]}).to_dict()
    assert d["profile"] == "ns3"
    db, sf = d["dumbbell"]["tcp"], d["short_flows"][0]["tcp"]
    assert db == dict(profiles.PROFILES["ns3"].tcp, initial_window=4)
    assert sf == dict(profiles.PROFILES["ns3"].tcp)
    with pytest.raises(ScenarioError, match="^profile: unknown profile 'ns4'"):
        Scenario.from_dict({"profile": "ns4", "dumbbell": d["dumbbell"]})


def test_using_sets_the_profile_of_scenarios_without_one_and_a_scenario_keeps_its_own():
    raw = {"duration": "2s", "warmup": "1s",
           "dumbbell": {"capacity": "10Mbps", "flows": 2, "rtt": "20ms", "buffer": 10}}
    with profiles.using("ns2"):
        sc = Scenario.from_dict(raw)
        kept = Scenario.from_dict(dict(raw, profile="linux"))
    assert sc.profile == "ns2" and sc.to_dict()["dumbbell"]["tcp"]["initial_window"] == 1
    assert kept.profile == "linux"
    # a normalized scenario carries its profile and every detail, so it reads back the same anywhere
    assert Scenario.from_dict(sc.to_dict()) == sc
    with pytest.raises(BufsizeError, match="unknown profile"):
        with profiles.using("bsd"):
            pass


def test_stack_names_the_profile_and_every_changed_detail():
    sc = Scenario.dumbbell(**LINK, initial_window=4, sack=False)
    assert sc.stack.startswith("linux profile: cubic, IW 4, delayed ACKs (40 ms), no SACK")
    assert sc.stack.endswith("; changed: initial_window 4, sack off")
    # nothing changed: no "changed" part; a detail that does not act (integer CUBIC for NewReno) is not one
    assert "changed" not in Scenario.dumbbell(**LINK).stack
    assert "changed" not in Scenario.dumbbell(**LINK, profile="ns3").stack
    assert "changed" not in Scenario.dumbbell(**LINK, cc="newreno").stack
    r = bufsize.simulate(sc, progress=False)
    assert r.summary["profile"] == "linux" and r.summary["stack"] == sc.stack


def test_profiles_give_different_runs_of_the_same_link():
    u = {p: bufsize.simulate(Scenario.dumbbell(**LINK, profile=p), progress=False).summary for p in profiles.NAMES}
    assert len({json.dumps(_strip(s), sort_keys=True) for s in u.values()}) == 3


def _ns2_run(**tcp):
    sc = Scenario.dumbbell(capacity="100Mbps", flows=1, rtt="100ms", buffer="1000pkt", duration="0.35s",
                           warmup="0s", start="0s", profile="ns2", tcp=tcp or None, cwnd_trace_flows=[0],
                           cwnd_trace_interval="1ms")
    return bufsize.simulate(sc, progress=False)


def test_ns2_profile_trace_starts_with_the_flights_of_ns2s_syn_and_an_ack_per_segment():
    # one flow, no loss: ns-2.35 sends a SYN, then windowInit_ 2 from its ACK, 4, 8 (traced there: a 40-B
    # packet at 0, two data packets at one RTT, four at two); the profile's initial window of 1 gives the
    # same flights, then one segment more per segment acknowledged in slow start: 1, 2, 4, 8
    r = _ns2_run()
    t = r.cwnd_traces
    at = lambda s: float(t.loc[(t["t_s"] - s).abs().idxmin(), "cwnd"])  # noqa: E731
    assert at(0.05) == 1 and at(0.15) == 2 and at(0.25) == 4 and at(0.34) == 8
    # Agent/TCPSink ACKs every segment: as many ACKs on the reverse link as data packets forward;
    # with delayed ACKs (Linux) about half as many
    links = r.links.set_index("name")["packets"]
    assert links["bnr"] == links["bn"] > 0
    d = _ns2_run(delayed_ack=True).links.set_index("name")["packets"]
    assert d["bnr"] < 0.75 * d["bn"]


def test_ns2_profile_trace_a_loss_halves_the_window():
    # ns-2's slowdown(): ssthresh = half the window. One NewReno flow overflowing a small buffer:
    # after the first loss the window settles at half of what it was when the loss was detected.
    sc = Scenario.dumbbell(capacity="10Mbps", flows=1, rtt="50ms", buffer="20pkt", duration="6s", warmup="0s",
                           start="0s", profile="ns2", cwnd_trace_flows=[0], cwnd_trace_interval="1ms")
    t = bufsize.simulate(sc, progress=False).cwnd_traces.sort_values("t_s")
    c = t["cwnd"].to_numpy()
    drop = next(i for i in range(1, len(c)) if c[i] < 0.8 * c[i - 1])   # the first reduction
    peak = c[drop - 1]
    after = c[drop:drop + 200].min()                                   # ssthresh, once inflation ends
    assert abs(after - max(2.0, peak / 2)) <= 1.0, (peak, after)


def _ns2_recoveries(**tcp):
    """(window before, window during, window just after) each later recovery of one ns-2 Reno flow; the
    trace shows ssthresh while a Reno recovery lasts (its inflation is not the window)."""
    sc = Scenario.dumbbell(capacity="10Mbps", flows=1, rtt="50ms", buffer="20pkt", duration="20s", warmup="0s",
                           start="0s", profile="ns2", cc="reno", cwnd_trace_flows=[0], cwnd_trace_interval="1ms",
                           tcp=tcp or None)
    t = bufsize.simulate(sc, progress=False).cwnd_traces.sort_values("t_s")
    time, c = t["t_s"].to_numpy(), t["cwnd"].to_numpy()
    out = []
    for i in range(1, len(c)):
        if time[i] > 3.0 and c[i] < 0.8 * c[i - 1]:
            j = next(k for k in range(i, len(c)) if c[k] != c[i])
            out.append((c[i - 1], c[i], c[j]))
    return out


def test_ns2_profile_trace_the_halved_window_keeps_its_fraction():
    # ns-2.35's slowdown(): ssthresh_ = int(windowd() / 2) and cwnd_ = windowd() / 2 with its fraction;
    # Reno ends the recovery at that cwnd_, opened by 1/cwnd_ on the ending ACK. With the detail off
    # ssthresh is the window counted up and halved, and the recovery ends there.
    on = _ns2_recoveries()
    assert len(on) >= 3
    for peak, during, after in on:
        assert during == math.floor(peak / 2), (peak, during)
        assert after == pytest.approx(peak / 2 + 2 / peak, abs=0.05), (peak, after)
    for peak, during, _ in _ns2_recoveries(ns2_halving=False):
        assert during == math.ceil(peak) / 2, (peak, during)


def test_same_link_same_stack_and_result_from_file_flags_dumbbell_and_recommends_verification(tmp_path, capsys):
    """One link, four ways in: a scenario file, simulate's flags, Scenario.dumbbell and the scenario
    recommend's verification builds from a description. Same seed: same stack, same numbers."""
    from bufsize.recommendation import scenario as describe
    from bufsize.recommendation import parse_input

    link = dict(capacity="20Mbps", flows=6, rtt="20ms..60ms")
    run = dict(buffer=30, duration=8.0, warmup=3.0, seed=4)
    via_dumbbell = Scenario.dumbbell(**link, buffer="30pkt", duration="8s", warmup="3s", seed=4, start="0s..1s")
    via_recommend = Scenario.from_dict(describe.scenario_from_input(parse_input(**link), **run))
    path = Path(tmp_path, "link.toml")
    path.write_text('seed = 4\nduration = "8s"\nwarmup = "3s"\n[dumbbell]\ncapacity = "20Mbps"\nflows = 6\n'
                    'rtt = "20ms..60ms"\nbuffer = "30pkt"\nstart = "0s..1s"\n')
    via_file = Scenario.from_file(path)
    assert via_dumbbell == via_recommend == via_file
    want = _strip(bufsize.simulate(via_dumbbell, progress=False).summary)
    assert want["stack"].startswith("linux profile: cubic, IW 10")

    outs = []
    for args in (["simulate", str(path), "--json"],
                 ["simulate", "--capacity", "20Mbps", "--flows", "6", "--rtt", "20ms..60ms", "--buffer", "30pkt",
                  "--duration", "8s", "--warmup", "3s", "--seed", "4", "--json"]):
        assert main(args) in (0, None)
        outs.append(_strip(json.loads(capsys.readouterr().out)))
    for got in outs:
        assert got == json.loads(json.dumps(want))
    # and the models-side Python API gives the same scenario through recommend's own builder
    from bufsize.recommendation import verification as V

    ver = V.build_scenario(parse_input(**link), 30, seed=4, warmup_s=3.0, duration_s=8.0)
    assert V.simulated_text(ver).endswith(via_dumbbell.stack)


def test_profile_flag_sets_the_stack_and_a_file_must_agree(tmp_path, capsys):
    args = ["simulate", "--capacity", "10Mbps", "--flows", "2", "--rtt", "20ms", "--buffer", "10",
            "--duration", "2s", "--warmup", "1s", "--json"]
    assert main(args + ["--profile", "NS3"]) in (0, None)
    assert json.loads(capsys.readouterr().out)["stack"].startswith("ns3 profile: cubic, IW 10, delayed ACKs (200 ms)")
    path = Path(tmp_path, "s.json")
    path.write_text(json.dumps({"profile": "ns2", "duration": "2s", "warmup": "1s",
                                "dumbbell": {"capacity": "10Mbps", "flows": 2, "rtt": "20ms", "buffer": 10}}))
    assert main(["simulate", str(path), "--profile", "ns2", "--json"]) in (0, None)
    assert json.loads(capsys.readouterr().out)["profile"] == "ns2"
    assert main(["simulate", str(path), "--profile", "linux"]) == 2
    assert "--profile: the scenario file names profile 'ns2'" in capsys.readouterr().err
    assert main(args + ["--profile", "bsd"]) == 2
    assert "--profile: unknown profile 'bsd' (known: linux, ns3, ns2)" in capsys.readouterr().err


def test_python_keywords_take_the_profile():
    r = bufsize.simulate(**LINK, profile="ns2")
    assert r.summary["profile"] == "ns2"
    rec = bufsize.recommend(capacity="20Mbps", rtt="20ms..60ms", flows=6, profile="ns3", verify=False)
    assert rec.input.flows == 6
    with pytest.raises(BufsizeError, match="profile"):
        bufsize.simulate(**LINK, profile="bsd")


def test_docs_table_is_the_profiles_module():
    doc = Path(__file__).resolve().parents[2].joinpath("docs", "simulate.md").read_text()
    assert profiles.markdown_table() in doc


def test_abc_limit_and_limited_transmit_are_checked_and_act():
    t = Scenario.dumbbell(**LINK, tcp={"abc_limit": 1, "limited_transmit": True}).to_dict()["dumbbell"]["tcp"]
    assert (t["abc_limit"], t["limited_transmit"]) == (1, True)
    with pytest.raises(ScenarioError, match="abc_limit"):
        Scenario.dumbbell(**LINK, tcp={"abc_limit": 0})
    with pytest.raises(ScenarioError, match="limited_transmit"):
        Scenario.dumbbell(**LINK, tcp={"limited_transmit": "sometimes"})
    # ns-3's stack on windows of a few segments (100 flows, 0.5 BDP/sqrt(n) of OC3): limited
    # transmit lets the small windows gather three duplicate ACKs, so fewer timeouts
    small = dict(capacity="155Mbps", flows=100, rtt="20ms..140ms", buffer="78pkt", duration="20s", warmup="5s",
                 packet_size="1000B", cc="newreno", profile="ns3")
    on = bufsize.simulate(Scenario.dumbbell(**small), progress=False).summary
    off = bufsize.simulate(Scenario.dumbbell(**small, tcp={"limited_transmit": False}), progress=False).summary
    assert on["timeouts"] < 0.8 * off["timeouts"], (on["timeouts"], off["timeouts"])
    # growth per ACK with delayed ACKs: slower window growth, so fewer losses
    abc2 = bufsize.simulate(Scenario.dumbbell(**small, tcp={"abc_limit": 2}), progress=False).summary
    assert on["loss_rate"] < 0.8 * abc2["loss_rate"], (on["loss_rate"], abc2["loss_rate"])


def test_a_mix_of_flow_counts_must_add_up_to_the_flows(capsys):
    # --flows 2 with reno=10,cubic=20 once ran 1 + 1 flows without a word
    args = ["simulate", "--capacity", "10Mbps", "--rtt", "20ms", "--buffer", "10", "--duration", "2s",
            "--warmup", "1s", "--mix", "reno=10,cubic=20", "--json"]
    assert main(args + ["--flows", "2"]) == 2
    assert "--mix: the mix names 30 flows in all, --flows says 2" in capsys.readouterr().err
    assert main(args + ["--flows", "30"]) in (0, None)
    assert json.loads(capsys.readouterr().out)["stack"].startswith("linux profile: newreno + cubic")
