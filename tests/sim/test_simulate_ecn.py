"""simulate --ecn (Python ecn=) makes the senders ECN-capable and, with --aqm, turns the discipline's
marking on: its packets are then marked CE instead of dropped, counted as marks apart from drops;
dctcp runs ECN whatever --ecn says, and the threshold discipline marks above K."""

import json

import bufsize
from bufsize.cli import main

LINK = ["--capacity", "10Mbps", "--rtt", "20ms..60ms", "--flows", "8", "--duration", "6s", "--warmup", "2s"]


def test_cli_ecn_with_a_discipline_marks_instead_of_dropping(capsys):
    assert main(["simulate", *LINK, "--aqm", "codel", "--buffer", "2bdp", "--ecn", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["marks"] > 0 and s["aqm_drops"] == 0 and 0 < s["mark_rate"] < 1
    # the same without --ecn: drops, no marks
    assert main(["simulate", *LINK, "--aqm", "codel", "--buffer", "2bdp", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["marks"] == 0 and s["aqm_drops"] > 0


def test_the_summary_text_reports_the_marks(capsys):
    assert main(["simulate", *LINK, "--aqm", "pie", "--buffer", "2bdp", "--ecn"]) == 0
    out = capsys.readouterr().out
    assert "ECN marks" in out and "instead of dropped" in out


def test_python_ecn_keyword_and_the_scenario_it_writes():
    r = bufsize.simulate(capacity="10Mbps", flows=8, rtt="20ms..60ms", buffer="1bdp", aqm="red", ecn=True,
                         duration="6s", warmup="2s", progress=False)
    d = r.scenario.to_dict()["dumbbell"]
    assert d["tcp"]["ecn"] is True
    assert d["buffer"]["discipline"] == {"name": "red", "ecn": True}
    assert r.summary["marks"] > 0
    assert int(r.links.set_index("name").loc["bn", "marks"]) == r.summary["marks"]
    # ecn=False turns fq_codel's default marking off in the scenario
    from bufsize.api import scenario

    sc = scenario(capacity="10Mbps", flows=2, rtt="20ms", buffer="50pkt", ecn=False)
    assert sc.to_dict()["dumbbell"]["tcp"]["ecn"] is False
    r = bufsize.simulate(capacity="10Mbps", flows=2, rtt="20ms", buffer="50pkt", aqm="fq_codel", ecn=False,
                         duration="2s", warmup="1s", progress=False)
    assert r.scenario.to_dict()["dumbbell"]["buffer"]["discipline"] == {"name": "fq_codel", "ecn": False}


def test_dctcp_behind_a_threshold_marks_without_drops(capsys):
    assert main(["simulate", *LINK, "--cc", "dctcp", "--aqm", "threshold", "--buffer", "300pkt", "--json"]) == 0
    s = json.loads(capsys.readouterr().out)
    assert s["queue_discipline"] == "threshold"
    assert s["marks"] > 0 and s["drops"] == 0 and s["utilization"] > 0.9
