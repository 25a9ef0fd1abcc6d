"""simulate --aqm NAME (Python aqm=) puts a queue discipline at the bottleneck, --buffer being its hard
limit in any buffer form, or the discipline's default limit without one; scenarios take the same
as buffer = {limit = "0.5bdp", discipline = "codel"}."""

import pytest

import bufsize
from bufsize.cli import main
from bufsize.errors import ScenarioError
from bufsize.scenario import Scenario

LINK = ["--capacity", "10Mbps", "--rtt", "20ms..60ms", "--flows", "8", "--duration", "6s", "--warmup", "2s"]


def test_cli_aqm_with_and_without_a_limit(capsys):
    assert main(["simulate", *LINK, "--aqm", "fq_codel", "--json"]) == 0
    import json

    s = json.loads(capsys.readouterr().out)
    assert s["queue_discipline"] == "fq_codel" and s["overflow_drops"] == 0
    assert main(["simulate", *LINK, "--aqm", "codel", "--buffer", "0.5bdp", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["queue_discipline"] == "codel" and s["aqm_drops"] > 0


def test_python_aqm_and_the_limit_forms():
    r = bufsize.simulate(capacity="10Mbps", flows=8, rtt="20ms..60ms", buffer="10ms", aqm="pie", duration="6s",
                         warmup="2s", progress=False)
    assert r.summary["queue_discipline"] == "pie"
    assert r.scenario.to_dict()["dumbbell"]["buffer"] == {"limit_bytes": 12500, "discipline": {"name": "pie"}}
    with pytest.raises(ScenarioError, match="keeps a hard limit"):
        Scenario.dumbbell(capacity="10Mbps", flows=2, rtt="20ms", buffer={"limit": "unlimited", "discipline": "red"})
    with pytest.raises(ScenarioError, match="one of them"):
        Scenario.dumbbell(capacity="10Mbps", flows=2, rtt="20ms", buffer={"limit": 5, "limit_packets": 5})


def test_the_cost_estimate_counts_a_disciplines_work():
    from bufsize import cost

    fifo = cost.estimate(Scenario.dumbbell(capacity="1Gbps", flows=100, rtt="20ms", buffer=100, duration="30s"))
    fq = cost.estimate(Scenario.dumbbell(capacity="1Gbps", flows=100, rtt="20ms", duration="30s",
                                         buffer={"limit": 100, "discipline": "fq_codel"}))
    assert 1.4 < fq.cpu_seconds / fifo.cpu_seconds < 1.9   # the engine's work per packet, +87 %, less the start-up
