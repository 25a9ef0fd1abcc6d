"""Run lengths measured from the runs themselves: when a verification run may stop early, and that
stopping early leaves the verified size where the full-length runs put it."""

import pytest

from bufsize.recommendation import recommend
from bufsize.recommendation import verification as V
from bufsize.recommendation.runlength import run_length, stop_rule


def _rule(**kw):
    rec = recommend(**kw)
    inp = rec.input
    run = run_length(inp, 2 * inp.bdp_packets)
    return run, stop_rule(inp, run, V.goals_of(inp, kw.pop("max_fct", None), kw.pop("max_delay_p99", None)))


def test_the_shortest_window_holds_one_of_the_slowest_cycles_bbrs_probe_rtt_included():
    run, rule = _rule(capacity="1Gbps", flows=200, rtt="10ms..50ms", mix="cubic=0.7,bbr=0.3")
    assert run.cycle_s == pytest.approx(10.2 + 0.05)
    assert rule.min_measure_s >= run.cycle_s
    assert rule.min_measure_s < run.measure_s
    assert [c.metric for c in rule.criteria] == ["utilization"]


def test_a_loss_goal_is_judged_too_and_goals_on_the_whole_distribution_keep_the_full_length():
    _, rule = _rule(capacity="100Mbps", flows=30, rtt="10ms..60ms", max_loss=0.01)
    assert [c.metric for c in rule.criteria] == ["utilization", "loss"]
    rec = recommend(capacity="100Mbps", flows=30, rtt="10ms..60ms")
    run = run_length(rec.input, 100)
    assert stop_rule(rec.input, run, V.goals_of(rec.input, max_delay_p99_s=0.005)) is None


def test_stopping_runs_once_settled_keeps_the_verified_size_and_simulates_less():
    rec = recommend(capacity="100Mbps", rtt="10ms..60ms", flows=30)
    fixed = V.verify_recommendation(rec, runner=V.Runner(cache=False, executor="serial"), beside=False,
                                    run_lengths="fixed")
    settled = V.verify_recommendation(rec, runner=V.Runner(cache=False, executor="serial"), beside=False)
    assert settled.buffer_packets == fixed.buffer_packets
    assert fixed.settled_runs == 0 and settled.settled_runs > 0
    assert settled.simulated_seconds < 0.9 * fixed.simulated_seconds
    # every run that stopped early measured at least the shortest window
    rule = stop_rule(rec.input, settled.run, settled.goals)
    short = [r for s in settled.sizes.values() for r in s.runs if r.get("stopped") == "settled"]
    assert short and all(r["measured_s"] >= rule.min_measure_s - 1e-6 for r in short)
    assert all(r["measured_s"] < settled.run.measure_s for r in short)
