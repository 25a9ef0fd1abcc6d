"""Queue disciplines (issue 34) from Python: the scenario schema of a queue with a discipline, the
engine's checks reaching the user as one line, and the new metrics in simulate's results,
summary and JSON. The disciplines' behaviour is unit-tested in the engine (crates/sim/src/net/aqm)."""

import json

import pytest

from bufsize import _engine
from bufsize.errors import ScenarioError
from bufsize.scenario import Scenario
from bufsize.scenario._fields import DISCIPLINE_DEFAULT_LIMIT_PACKETS
from bufsize.simulate import simulate, summary_text


def small(buffer, **kw):
    args = dict(capacity="50Mbps", flows=6, rtt="20ms..80ms", buffer=buffer, duration="6s", warmup="2s")
    args.update(kw)
    return Scenario.dumbbell(**args)


@pytest.mark.parametrize("buffer, expected", [
    ({"limit_packets": 300, "discipline": "codel"}, {"limit_packets": 300, "discipline": {"name": "codel"}}),
    ({"discipline": {"name": "FQ-CoDel", "target": "2ms", "interval": "50ms", "quantum_bytes": 3028}},
     {"limit_packets": 10240,
      "discipline": {"name": "fq_codel", "target_s": 0.002, "interval_s": 0.05, "quantum_bytes": 3028}}),
    ({"limit_bytes": "64KiB", "discipline": {"name": "pie", "t_update": "30ms", "max_burst": 0}},
     {"limit_bytes": 65536, "discipline": {"name": "pie", "t_update_s": 0.03, "max_burst_s": 0.0}}),
    ({"limit_packets": 100, "discipline": {"name": "red", "min_th": 10, "max_th": 30, "gentle": False}},
     {"limit_packets": 100, "discipline": {"name": "red", "min_th": 10, "max_th": 30, "gentle": False}}),
    ({"limit_packets": 40}, {"limit_packets": 40}),
])
def test_queue_with_a_discipline_to_the_engine_schema(buffer, expected):
    sc = small(buffer)
    assert sc.to_dict()["dumbbell"]["buffer"] == expected
    assert Scenario.from_dict(json.loads(sc.to_json())) == sc
    assert sc.buffer_limit == {k: v for k, v in expected.items() if k != "discipline"}
    assert sc.buffer_discipline == expected.get("discipline")


@pytest.mark.parametrize("buffer, field, words", [
    ({"discipline": "sfq"}, "dumbbell.buffer.discipline.name", "unknown queue discipline 'sfq'"),
    ({"discipline": {"target": "5ms"}}, "dumbbell.buffer.discipline.name", "required"),
    ({"discipline": 3}, "dumbbell.buffer.discipline", "expected a discipline name"),
    ({"discipline": {"name": "codel", "target": "fast"}}, "dumbbell.buffer.discipline.target", ""),
    ({"size": 5, "discipline": "codel"}, "dumbbell.buffer.size", "unknown field"),
])
def test_bad_disciplines_name_the_field_before_the_engine(buffer, field, words):
    with pytest.raises(ScenarioError) as e:
        small(buffer)
    assert field in str(e.value) and words in str(e.value)


@pytest.mark.parametrize("discipline, field", [
    ({"name": "codel", "target": "200ms"}, "dumbbell.buffer.discipline.target_s"),
    ({"name": "red", "min_th": 20, "max_th": 10}, "dumbbell.buffer.discipline.max_th"),
    ({"name": "pie", "alhpa": 0.1}, "dumbbell.buffer.discipline"),
])
def test_the_engine_names_a_bad_parameter(discipline, field):
    with pytest.raises(ScenarioError) as e:
        simulate(small({"discipline": discipline}))
    assert field in str(e.value)


@pytest.mark.parametrize("name", ["red", "codel", "pie", "fq_codel"])
def test_a_run_with_a_discipline_reports_drops_by_cause_and_the_sojourn(name):
    r = simulate(small({"limit_packets": 200, "discipline": name}))
    s = r.summary
    assert s["queue_discipline"] == name
    assert s["drops"] == s["aqm_drops"] + s["overflow_drops"]
    assert s["conservation_ok"] and s["max_queue_packets"] <= 200
    bn = r.links.set_index("name").loc["bn"]
    assert bn["discipline"] == name and bn["sojourn_mean_s"] == pytest.approx(s["queue_delay_mean_s"])
    text = summary_text(r)
    assert f"buffer 200 pkt {name}" in text
    assert f"{s['aqm_drops']} drops by the discipline, {s['overflow_drops']} over its hard limit" in text


def test_a_fifo_run_keeps_its_summary_and_counts_its_drops_as_overflow():
    r = simulate(small("20pkt"))
    s = r.summary
    assert (s["queue_discipline"], s["aqm_drops"], s["overflow_drops"]) == ("fifo", 0, s["drops"])
    assert "drops by the discipline" not in summary_text(r)
    assert "buffer 20 pkt," in summary_text(r)


def test_a_discipline_without_a_limit_gets_the_engines_default_hard_limit_written_out():
    # The schema writes the default limit into the scenario (the cost estimate and the summary see
    # it); the engine given no limit at all runs the same default: the same run, bit for bit.
    for name, limit in DISCIPLINE_DEFAULT_LIMIT_PACKETS.items():
        sc = small({"discipline": name}, duration="3s", warmup="1s")
        assert sc.buffer_limit == {"limit_packets": limit}
        d = sc.to_dict()
        d["dumbbell"]["buffer"] = {"discipline": {"name": name}}
        engine_default = json.loads(_engine.Simulation(json.dumps(d)).finish())["summary"]
        written = simulate(sc).summary
        for k in ("sent", "dropped", "events", "max_queue_packets", "frac_time_queue_full"):
            assert engine_default[k] == written[k], (name, k)
    assert "buffer 10240 pkt fq_codel" in summary_text(simulate(small({"discipline": "fq_codel"})))
