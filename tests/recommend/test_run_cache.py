"""A verification stopped mid-way and started again reuses the runs already made, and a second
surface asking the same question (the JSON after the text) runs nothing again; a different engine
build or scenario never reads another's results."""

import json

import pytest

from bufsize.experiments import runcache
from bufsize.recommendation import recommend
from bufsize.recommendation import verification as V

TINY = dict(capacity="10Mbps", flows=10, rtt="40ms", target_utilization=0.95)


def test_a_second_verification_reads_every_run_from_the_cache(empty_run_cache):
    first = V.verify_recommendation(recommend(**TINY), executor="serial")
    again = V.verify_recommendation(recommend(**TINY), executor="serial")
    assert first.runs > 0 and first.cached_runs == 0
    assert again.runs == 0 and again.cached_runs == first.runs
    assert again.buffer_packets == first.buffer_packets and again.statement == first.statement


def test_an_interrupted_verification_resumes_from_its_finished_runs(empty_run_cache, interrupted_after):
    full = V.verify_recommendation(recommend(**TINY), runner=V.Runner(executor="serial", cache=False))
    interrupted_after(4)
    with pytest.raises(KeyboardInterrupt):
        V.verify_recommendation(recommend(**TINY), executor="serial")
    interrupted_after.restore()
    resumed = V.verify_recommendation(recommend(**TINY), executor="serial")
    assert resumed.cached_runs == 4 and resumed.runs == full.runs - 4
    assert resumed.buffer_packets == full.buffer_packets


def test_another_engine_build_or_scenario_misses(empty_run_cache, monkeypatch):
    c = runcache.RunCache()
    job = json.dumps({"seed": 1, "x": [1, 2]})
    c.put(job, {"status": "ok", "summary": {"utilization": 0.5}})
    assert c.get(json.dumps({"x": [1, 2], "seed": 1}))["summary"] == {"utilization": 0.5}   # key order is not the scenario
    assert c.get(json.dumps({"seed": 2, "x": [1, 2]})) is None
    monkeypatch.setattr(runcache, "engine_fingerprint", lambda: "another-build")
    assert c.get(job) is None
    c.put(job, {"status": "failed", "error": "x"})            # failures are not kept
    assert c.get(job) is None


def test_the_cache_can_be_switched_off(monkeypatch):
    monkeypatch.setenv("BUFSIZE_CACHE", "off")
    c = runcache.RunCache()
    c.put("{}", {"status": "ok", "summary": {}})
    assert not c.enabled and c.get("{}") is None
