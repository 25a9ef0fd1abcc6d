"""``--loss-detection rack|dupack`` on simulate, recommend, search/sweep's link flags and compare reaches
the engine scenario (its ``tcp.loss_detection``); a bad value is one line naming the flag, exit code 2.

Nothing here runs a simulation: each check stops at the scenario (``--show-scenario``, the link flags'
scenario, the verification's scenario builder with the verification itself replaced, the testbed twin).
"""

from __future__ import annotations

import json

import pytest

from bufsize import defaults
from bufsize.cli import main
from bufsize.scenario import Scenario

SIM = ["simulate", "--capacity", "50Mbps", "--flows", "4", "--rtt", "20ms..100ms", "--buffer", "25pkt"]
LINK = {"capacity": "10Mbps", "rtt": "20ms..60ms", "flows": "4", "mix": "cubic=0.5,reno=0.5",
        "short_flows": "14pkt", "short_load": "0.1"}


def _tcps(sc: dict) -> list[dict]:
    """Every TCP table of an engine scenario: the dumbbell's, its classes', the short flows'."""
    db = sc.get("dumbbell") or {}
    out = [db["tcp"]] if "tcp" in db else []
    out += [c["tcp"] for c in db.get("mix") or []]
    out += [s["tcp"] for s in sc.get("short_flows") or []]
    return out


def _one_line_exit_2(capsys, args, flag="--loss-detection"):
    code = main(args)
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert flag in lines[0] and "fack" in lines[0] and "rack" in lines[0], lines[0]


def test_default_is_linux_rack_and_the_papers_settings_say_dupack():
    assert defaults.LOSS_DETECTION == "rack"
    assert defaults.PAPERS_TCP["loss_detection"] == "dupack"
    assert defaults.loss_detection() == "rack" and defaults.loss_detection(" DupAck ") == "dupack"
    with defaults.using_loss_detection("dupack") as now:
        assert now == "dupack" and defaults.loss_detection() == "dupack"
    assert defaults.loss_detection() == "rack"


@pytest.mark.parametrize("given, expect", [([], "rack"), (["--loss-detection", "dupack"], "dupack"),
                                           (["--loss-detection", "RACK"], "rack")])
def test_simulate_flag_reaches_the_engine_scenario(capsys, given, expect):
    assert main([*SIM, *given, "--show-scenario"]) == 0
    sc = json.loads(capsys.readouterr().out)
    assert sc["dumbbell"]["tcp"]["loss_detection"] == expect


def test_simulate_bad_value_is_one_line_exit_2(capsys):
    _one_line_exit_2(capsys, [*SIM, "--loss-detection", "fack", "--show-scenario"])


def test_simulate_flag_with_a_scenario_file_is_refused(capsys, tmp_path):
    p = tmp_path / "s.json"
    p.write_text(Scenario.dumbbell(capacity="10Mbps", flows=2, rtt="40ms", buffer="10pkt").to_json())
    code = main(["simulate", str(p), "--loss-detection", "dupack", "--show-scenario"])
    err = capsys.readouterr().err
    assert code == 2 and "--loss-detection" in err


@pytest.mark.parametrize("value, expect", [(None, "rack"), ("dupack", "dupack"), ("rack", "rack")])
def test_link_flags_scenario_carries_it_in_every_tcp_table(value, expect):
    from bufsize.commands._link import scenario_or_file

    link = dict(LINK, loss_detection=value, paced=False)
    sc = Scenario(scenario_or_file(None, link)).to_dict()
    tcps = _tcps(sc)
    assert len(tcps) == 4   # the dumbbell's, its two classes' (cubic, newreno) and the short flows'
    assert {t["loss_detection"] for t in tcps} == {expect}
    assert defaults.loss_detection() == "rack"   # the override ends with the scenario


def test_link_flags_bad_value_is_one_line_exit_2(capsys, tmp_path):
    _one_line_exit_2(capsys, ["sweep", "--capacity", "10Mbps", "--rtt", "40ms", "--flows", "2", "--loss-detection",
                              "fack", "--vary", "buffer=5,10", "--seeds", "1", "--out", str(tmp_path / "o")])


@pytest.mark.parametrize("given, expect", [([], "rack"), (["--loss-detection", "dupack"], "dupack")])
def test_recommend_flag_reaches_the_verified_scenarios(monkeypatch, capsys, given, expect):
    import bufsize.recommendation as R
    from bufsize.recommendation import verification as V

    seen = []

    def fake_verification(rec, mode, **kw):
        # the scenario the verification would run at some size, built where it would be built, under
        # the loss detection the command hands it
        with defaults.using_loss_detection(kw.get("loss_detection")):
            sc = V.build_scenario(rec.input, 20, seed=1, warmup_s=1.0, duration_s=2.0)
        seen.append(Scenario(sc).to_dict())

    monkeypatch.setattr(R, "attach_verification", fake_verification)
    assert main(["recommend", "--capacity", "100Mbps", "--rtt", "20ms..60ms", "--flows", "20", "--verify",
                 "--json", *given]) == 0
    capsys.readouterr()
    assert len(seen) == 1
    assert {t["loss_detection"] for t in _tcps(seen[0])} == {expect}
    assert defaults.loss_detection() == "rack"


def test_recommend_bad_value_is_one_line_exit_2(capsys):
    _one_line_exit_2(capsys, ["recommend", "--capacity", "100Mbps", "--rtt", "40ms", "--flows", "20",
                              "--no-verify", "--loss-detection", "fack"])


def test_testbed_twin_follows_the_kernels_loss_detection():
    from bufsize.testbed.compare import simulator_twin
    from bufsize.testbed.config import TestbedConfig

    cfg = TestbedConfig.dumbbell(rate="50Mbps", rtt="20ms..100ms", buffer="25", flows=20, cc="reno",
                                 duration="40s", warmup="10s")
    assert simulator_twin(cfg).to_dict()["dumbbell"]["tcp"]["loss_detection"] == "rack"
    norack = cfg.replace(sender_sysctls=("net.ipv4.tcp_recovery=0",))
    assert simulator_twin(norack).to_dict()["dumbbell"]["tcp"]["loss_detection"] == "dupack"
    assert simulator_twin(cfg, "dupack").to_dict()["dumbbell"]["tcp"]["loss_detection"] == "dupack"
    assert simulator_twin(norack, "rack").to_dict()["dumbbell"]["tcp"]["loss_detection"] == "rack"


def test_compare_bad_value_is_one_line_exit_2(capsys):
    _one_line_exit_2(capsys, ["compare", "--flows", "2", "--loss-detection", "fack"])
