"""Short flows are verified like long ones: with short flows alone the answer is the smallest buffer
whose runs meet the completion-time goal (and loss), the completion time measured at it; a
utilization goal that such traffic cannot meet is refused, and none is assumed."""

import json

import pytest

from bufsize.cli import main
from bufsize.errors import BufsizeError
from bufsize.recommendation import recommend
from bufsize.recommendation import verification as V

SHORT = dict(capacity="100Mbps", rtt="20ms..60ms", short_flows="3pkt:0.5,15pkt:0.35,150pkt:0.15", short_load="60%")


def test_short_flows_alone_get_a_verified_size_with_the_completion_time_at_it(capsys):
    rc = main(["recommend", "--capacity", "100Mbps", "--rtt", "20ms..60ms", "--short-flows",
               "3pkt:0.5,15pkt:0.35,150pkt:0.15", "--short-load", "60%", "--max-fct", "300ms", "--json"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    d = json.loads(out)
    ver = d["verified"]
    assert d["recommended"]["source"] == "verified" and ver["status"] in ("verified", "lower-bound")
    assert ver["goals"]["max_fct_s"] == 0.3 and ver["goals"]["utilization"] is None
    at = ver["at_size"]
    assert at["fct_mean_s"] <= 0.3 and at["goals"]["fct"]["verdict"] == "meets"
    assert 0.5 < at["utilization"] < 0.65          # the link carries the offered 60 %, no more
    assert "assumed a utilization goal" not in err and "no utilization goal" in err


def test_completion_time_goal_moves_the_answer():
    tight = recommend(**SHORT, max_fct="250ms", verify=True).verified
    loose = recommend(**SHORT, max_fct="2s", verify=True).verified
    assert tight.buffer_packets is not None and loose.buffer_packets is not None
    assert loose.buffer_packets <= tight.buffer_packets
    assert tight.at_size["fct_mean_s"] <= 0.25


def test_a_utilization_goal_above_the_short_load_is_refused():
    with pytest.raises(BufsizeError, match="--target-utilization: a utilization goal of 0.99 cannot be met"):
        recommend(**SHORT, target_utilization=0.99)
    ok = recommend(**SHORT, target_utilization=0.5)        # within their load: kept as given
    assert ok.input.utilization_goal and V.goals_of(ok.input).utilization == 0.5


def test_without_goals_short_flows_are_judged_by_the_overflow_loss():
    g = V.goals_of(recommend(**SHORT).input)
    assert g.utilization is None and g.max_loss == pytest.approx(0.025) and g.max_fct_s is None


def test_fct_goal_is_verified_even_over_the_interactive_budget(monkeypatch):
    # a goal only the simulator checks is never skipped silently by the budget
    monkeypatch.setattr(V, "INTERACTIVE_BUDGET_S", 0.0)
    rec = recommend(**SHORT, verify="auto")
    assert rec.verified is None and "interactive budget" in rec.verify_skipped
    rec = recommend(**SHORT, max_fct="2s", verify="auto")
    assert rec.verified is not None
