"""Runs that share their warm-up (bufsize.recommendation.warmstart): a run continued from a holder's
warmed-up copy gives exactly the record of its scenario run from the start, the shared part is
counted once, the holders stop with the runner, and the search shares warm-ups only where that was
shown faithful and worth a process."""

import json
import multiprocessing
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from bufsize.recommendation import recommend, warmstart
from bufsize.recommendation import verification as V
from bufsize.recommendation.runlength import resettle_s, run_length, stop_rule
from process_helpers import descendants, kill_left, running, wait_for

pytestmark = pytest.mark.skipif(not warmstart.available(), reason="needs fork")

LINK = dict(capacity="100Mbps", rtt="10ms..60ms", flows=30, mix="cubic=1")


def _scenarios(sizes, seeds, *, stop=None, until=1.0, warm_from=90):
    inp = recommend(**LINK).input
    out = []
    for b in sizes:
        for s in seeds:
            sc = V.build_scenario(inp, b, seed=s, warmup_s=2.5, duration_s=6.0)
            sc["warm_buffer"] = {"packets": warm_from, "until_s": until}
            if stop is not None:
                sc["_stop"] = stop.to_dict()
            out.append(sc)
    return out


def test_a_continued_run_gives_the_record_of_its_scenario_run_from_the_start():
    inp = recommend(**LINK).input
    run = run_length(inp, 200)
    stop = stop_rule(inp, run, V.goals_of(inp))
    for kw in ({}, {"stop": stop}):
        scs = _scenarios([12, 40], [1, 2], **kw)
        runner = V.Runner(cache=False, workers=2)
        try:
            continued = runner.map(scs)
        finally:
            runner.close()
        assert all(r["prefix_s"] == 1.0 for r in continued)
        for sc, rec in zip(scs, continued):
            fresh = V._task(json.dumps(sc))
            assert json.dumps(rec["summary"], sort_keys=True) == json.dumps(fresh["summary"], sort_keys=True)


def test_the_shared_warm_up_is_simulated_and_counted_once_per_seed():
    scs = _scenarios([12, 40, 70], [1, 2])
    runner = V.Runner(cache=False, workers=2)
    try:
        runner.map(scs[:2])
        runner.map(scs[2:])           # the holders of seeds 1 and 2 serve the later sizes too
        assert runner._warm.warmups == 2
    finally:
        runner.close()
    assert runner.runs == 6
    # each run simulated its 6 s less the shared 1 s, and each seed's shared second once
    assert runner.simulated_s == pytest.approx(6 * 5.0 + 2 * 1.0)


def test_holders_and_their_copies_stop_with_the_runner():
    runner = V.Runner(cache=False, workers=2)
    runner.map(_scenarios([20], [1, 2, 3]))
    assert len([p for p in multiprocessing.active_children() if p.name == "bufsize-warm-holder"]) == 3
    runner.close()
    assert not [p for p in multiprocessing.active_children() if p.name == "bufsize-warm-holder"]


def test_runs_share_a_holder_when_only_their_buffer_and_stop_rule_differ():
    a, b = _scenarios([12, 40], [1])
    c = dict(b, _stop={"slice_s": 0.1, "min_measure_s": 1.0, "criteria": []})
    (d,) = _scenarios([12], [2])
    assert warmstart.prefix_key(a) == warmstart.prefix_key(b) == warmstart.prefix_key(c)
    assert warmstart.prefix_key(d) != warmstart.prefix_key(a)
    assert warmstart.prefix_key({k: v for k, v in a.items() if k != "warm_buffer"}) is None


def test_the_search_shares_warm_ups_only_on_large_links_without_bbr():
    big = recommend(capacity="10Gbps", flows=10000, rtt="5ms..80ms").input
    run = run_length(big, 2 * big.bdp_packets)
    until = V.shared_warmup_s(big, run, 2 * big.bdp_packets)
    assert until == pytest.approx(run.warmup_s - resettle_s(big, 2 * big.bdp_packets), abs=1e-6)
    assert resettle_s(big, 2 * big.bdp_packets) >= run_length(big, 2 * big.bdp_packets).cycle_s
    assert until * big.capacity_pps >= V.MIN_SHARED_PACKETS
    # BBR in the mix: not shown faithful, so never
    bbr = recommend(capacity="10Gbps", flows=10000, rtt="5ms..80ms", mix="cubic=0.7,bbr=0.3").input
    run_b = run_length(bbr, 2 * bbr.bdp_packets)
    assert V.shared_warmup_s(bbr, run_b, 2 * bbr.bdp_packets) is None
    # the README's demo link: too little to share
    demo = recommend().input
    assert V.shared_warmup_s(demo, run_length(demo, 2 * demo.bdp_packets), 2 * demo.bdp_packets) is None
    # a 10 Gb/s link with 2 000 CUBIC flows: enough packets, but fewer flows than measured faithful
    few = recommend(capacity="10Gbps", flows=2000, rtt="5ms..80ms").input
    assert V.shared_warmup_s(few, run_length(few, 2 * few.bdp_packets), 2 * few.bdp_packets) is None
    # the shared start runs behind BDP/√n, within the range
    assert V.shared_warmup_buffer(big, 10**9) == round(big.bdp_packets / 100)
    assert V.shared_warmup_buffer(big, 50) == 50


def test_a_search_with_shared_warm_ups_runs_and_shows_the_scenarios_it_judged(monkeypatch):
    monkeypatch.setattr(V, "MIN_SHARED_PACKETS", 0.0)
    monkeypatch.setattr(V, "MIN_SHARED_FLOWS", 0)
    rec = recommend(**LINK)
    runner = V.Runner(cache=False, workers=2)
    try:
        ver = V.verify_recommendation(rec, runner=runner, beside=False)
        assert runner._warm is not None and runner._warm.warmups >= 2
    finally:
        runner.close()
    assert ver.traffic["warm_buffer"]["packets"] == V.shared_warmup_buffer(rec.input, ver.search_range[1])
    top = ver.search_range[1]
    assert ver.traffic["warm_buffer"]["until_s"] == pytest.approx(ver.run.warmup_s - resettle_s(rec.input, top), abs=1e-6)
    assert any("shared their first" in n for n in ver.notes)
    assert ver.status == "verified"
    cold = V.verify_recommendation(rec, runner=V.Runner(cache=False, executor="serial"), beside=False,
                                   warm_start=False)
    assert "warm_buffer" not in cold.traffic
    # within one search step of the answer of runs warmed up at their own sizes
    lo, hi = sorted((ver.buffer_packets, cold.buffer_packets))
    assert hi <= (1 + V.RESOLUTION) * lo + 1


def test_a_failing_shared_warm_up_is_one_line_and_leaves_no_process():
    from bufsize.errors import BufsizeError

    (sc,) = _scenarios([12], [1])
    sc["warm_buffer"] = {"packets": 90, "until_s": 5.0}     # beyond the warm-up: the holder cannot build it
    runner = V.Runner(cache=False, workers=2)
    with pytest.raises(BufsizeError, match="a shared warm-up failed: .*warm_buffer.until_s"):
        runner.map([sc])
    assert runner._warm is None
    runner.close()
    assert not [p for p in multiprocessing.active_children() if p.name == "bufsize-warm-holder"]


def test_the_cost_estimate_counts_shared_warm_ups_once_and_settled_runs_shorter(monkeypatch):
    rec = recommend(capacity="10Gbps", flows=10000, rtt="5ms..80ms", verify=False)
    shared = V.estimate_cost(rec, workers=2)
    assert "shared warm-up of 1.6 s" in shared["describe"]
    monkeypatch.setattr(V, "shared_warmup_s", lambda *a: None)
    own = V.estimate_cost(rec, workers=2)
    assert "shared" not in own["describe"] and own["wall_s"] > shared["wall_s"]
    monkeypatch.setattr(V, "SETTLED_SHARE", 0.0)
    full = V.estimate_cost(rec, workers=2)
    assert full["wall_s"] > own["wall_s"]


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads children from /proc (Linux)")
def test_killing_the_verification_with_sigkill_leaves_no_holder_or_copyrunning(tmp_path):
    # two holders and their copies, each copy a long run; the parent is killed mid-run
    script = tmp_path / "run.py"
    script.write_text(
        "import json\n"
        "from bufsize.recommendation import recommend, verification as V\n"
        f"inp = recommend(**{LINK!r}).input\n"
        "scs = []\n"
        "for s in (1, 2):\n"
        "    sc = V.build_scenario(inp, 20, seed=s, warmup_s=2.5, duration_s=30000.0)\n"
        "    sc['warm_buffer'] = {'packets': 90, 'until_s': 1.0}\n"
        "    scs.append(sc)\n"
        "V.Runner(cache=False, workers=2).map(scs)\n")
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    procs: list[int] = []
    try:
        # the holders (children) and their copies (grandchildren) are up
        assert wait_for(lambda: len(descendants(proc.pid)) >= 4, 60), proc.stderr.read() if proc.poll() else ""
        procs = descendants(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        assert wait_for(lambda: not any(running(p) for p in procs), 5.0), [p for p in procs if running(p)]
    finally:
        kill_left(proc, procs)


def test_the_cost_estimate_pays_the_workers_start_up_once_not_per_run(monkeypatch):
    from bufsize import cost

    rec = recommend(capacity="1Gbps", flows=100, rtt="10ms..50ms", verify=False)
    base = V.estimate_cost(rec, workers=2)["wall_s"]
    monkeypatch.setattr(cost, "START_SECONDS", cost.START_SECONDS + 100.0)
    slow = V.estimate_cost(rec, workers=2)["wall_s"]
    assert slow - base == pytest.approx(100.0, abs=1.0)
