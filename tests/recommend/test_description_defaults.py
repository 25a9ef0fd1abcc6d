"""One set of defaults for the toolkit: recommend, simulate, Scenario.dumbbell and scenario files
mean the same packets (1500 B) and the same TCP (SACK and PRR on, as Linux); the papers' settings
are explicit where reproduction depends on them; a fractional recommended size can be simulated."""

from __future__ import annotations

import json

import pytest

from bufsize import defaults
from bufsize.cli import main
from bufsize.recommendation import parse_input, recommend
from bufsize.scenario import TCP_DEFAULTS, Scenario


def _tcp(sc: Scenario) -> dict:
    return sc.to_dict()["dumbbell"]["tcp"]


def test_recommend_and_every_scenario_builder_share_the_packet_size_and_sack():
    inp = parse_input(capacity="1Gbps", flows=50, rtt="10ms..40ms")
    db = _tcp(Scenario.dumbbell(capacity="1Gbps", flows=50, rtt="10ms..40ms", buffer=100))
    from_file = _tcp(Scenario.from_dict({"dumbbell": {"capacity": "1Gbps", "flows": 50, "rtt": "40ms",
                                                      "buffer": 100}}))
    assert inp.packet_bytes == db["packet_bytes"] == from_file["packet_bytes"] == TCP_DEFAULTS["packet_bytes"] == 1500
    assert db["sack"] is from_file["sack"] is TCP_DEFAULTS["sack"] is True
    assert db["prr"] is TCP_DEFAULTS["prr"] is True
    assert defaults.TCP == {k: TCP_DEFAULTS[k] for k in defaults.TCP}


def test_simulate_cli_uses_the_same_defaults(capsys):
    rc = main(["simulate", "--capacity", "1Gbps", "--flows", "50", "--rtt", "10ms..40ms", "--buffer", "100pkt",
               "--show-scenario"])
    assert rc == 0
    tcp = json.loads(capsys.readouterr().out)["dumbbell"]["tcp"]
    assert (tcp["packet_bytes"], tcp["sack"], tcp["prr"]) == (1500, True, True)


def test_recommended_packets_mean_the_same_bytes_and_delay_once_simulated():
    rec = recommend(capacity="1Gbps", flows=50, rtt="10ms..40ms", max_delay="5ms")
    b = rec.recommended["buffer_packets"]
    assert b == pytest.approx(416.67, abs=0.01)          # 5 ms of 1500-B packets at 1 Gb/s
    sc = Scenario.dumbbell(capacity="1Gbps", flows=50, rtt="10ms..40ms", buffer=b)
    si = sc.to_dict()["dumbbell"]
    assert si["buffer"] == {"limit_packets": 417}         # nearest whole packet
    full_delay = si["buffer"]["limit_packets"] * si["tcp"]["packet_bytes"] * 8 / si["capacity_bps"]
    assert full_delay == pytest.approx(rec.recommended["queueing_delay_s"], rel=0.002)


@pytest.mark.parametrize("text, packets", [("416.67pkt", 417), ("416.5pkt", 417), ("416.49pkt", 416), ("52pkt", 52)])
def test_simulate_accepts_a_fractional_buffer_rounded_to_the_nearest_packet(text, packets, capsys):
    rc = main(["simulate", "--capacity", "1Gbps", "--flows", "50", "--rtt", "10ms..40ms", "--buffer", text,
               "--show-scenario"])
    assert rc == 0
    assert json.loads(capsys.readouterr().out)["dumbbell"]["buffer"] == {"limit_packets": packets}


def test_a_negative_buffer_is_still_refused(capsys):
    assert main(["simulate", "--capacity", "1Gbps", "--flows", "5", "--rtt", "10ms", "--buffer", "-2.5pkt"]) == 2
    assert "--buffer" in capsys.readouterr().err


def test_reproduction_scenarios_state_the_papers_settings():
    """The reproduction builders spell out their paper's packets and no SACK/PRR (or SACK without PRR
    where the paper's hosts had it), so the toolkit's defaults do not leak into the reproduced figures."""
    from bufsize.reproduce import _p003_mix, _p004, fig_004_11

    for sc in (_p004.single_flow_scenario(10, duration=10.0, warmup=2.0), fig_004_11._scenario(10, 20, 10.0, 2.0, 1)):
        t = _tcp(sc)
        assert t["sack"] is False and t["prr"] is False and t["packet_bytes"] == 1000
    t = _tcp(_p003_mix.scenario(100, 50, 10.0, 2.0))
    assert t["sack"] is True and t["prr"] is False
