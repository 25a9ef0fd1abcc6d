"""Where the search for the smallest size does not fit the interactive budget, the models' pick alone
is simulated and judged when that fits it, and every surface says what the check found (and that it is
a check, not the verified answer)."""

import json

import pytest

from bufsize.cli import main
from bufsize.recommendation import check, recommend
from bufsize.recommendation import verification as V

TINY = dict(capacity="10Mbps", flows=10, rtt="40ms", target_utilization=0.95)


@pytest.fixture
def search_over_budget(monkeypatch):
    """The search's estimate over the budget (one size's as it is)."""
    real = V.estimate_cost

    def over(rec, **kw):
        return dict(real(rec, **kw), wall_s=10 * V.INTERACTIVE_BUDGET_S)

    monkeypatch.setattr(V, "estimate_cost", over)


def test_a_size_far_below_the_need_fails_and_one_far_above_meets():
    rec = recommend(**TINY)
    low = check.check_size(rec, 2, workers=1)
    high = check.check_size(rec, 4 * rec.input.bdp_packets, workers=1)
    assert low["verdict"] == "fails" and "utilization" in low["misses"]
    assert high["verdict"] == "meets" and not high["misses"]
    assert high["utilization"] > 0.95 > low["utilization"]
    assert low["runs"] >= 2 and len(low["seeds"]) >= 2


def test_the_pick_is_checked_when_only_the_search_is_over_budget(search_over_budget):
    rec = recommend(**TINY, verify="auto", workers=1)
    assert rec.verified is None and "would take about" in rec.verify_skipped
    c = rec.pick_check
    assert c is not None and c["buffer_packets"] == int(rec.models_pick["buffer_packets"])
    assert c["model"] == rec.models_pick["id"] and c["verdict"] in ("meets", "fails", "unclear")
    r = rec.recommended
    assert r["source"] == "models" and r["checked"] == c["verdict"]
    assert r["meets_goals"] == {"meets": True, "fails": False, "unclear": None}[c["verdict"]]
    text = " ".join(rec.text().split())
    assert "checked on the simulator" in text and "the models' pick alone" in text and "--verify" in text
    if c["buffer_packets"] != rec.models_pick["buffer_packets"]:   # a fractional pick: the packets it holds
        assert f"{c['buffer_packets']} packets (the whole packets" in text
    assert rec.to_dict()["pick_check"]["verdict"] == c["verdict"]
    assert "checked on the simulator" in rec._repr_html_()


def test_no_check_where_one_size_does_not_fit_either(search_over_budget, monkeypatch):
    monkeypatch.setattr(check, "worst_cost", lambda rec, size, **kw: {"wall_s": 10 * V.INTERACTIVE_BUDGET_S})
    rec = recommend(**TINY, verify="auto", workers=1)
    assert rec.verified is None and rec.pick_check is None
    assert "checked" not in rec.recommended and rec.recommended["meets_goals"] is None
    assert "checked on the simulator" not in rec.text()


def test_the_command_and_its_json_give_the_check(search_over_budget, capsys):
    args = ["recommend", "--capacity", "10Mbps", "--flows", "10", "--rtt", "40ms", "--target-utilization", "0.95",
            "--workers", "1"]
    assert main(args) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert main(args + ["--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verified"] is None and out["recommended"]["checked"] == out["pick_check"]["verdict"]
    assert f"the models' pick ({out['models_pick']['id']}), checked on the simulator" in text
    assert "search not run: verifying on the simulator would take" in text


def test_the_check_is_budgeted_at_its_worst_case_six_full_length_runs_of_one_size():
    rec = recommend(capacity="10Gbps", rtt="250ms", flows=50000)
    c = check.worst_cost(rec, rec.models_pick["buffer_packets"], workers=2)
    search = V.estimate_cost(rec, workers=2)["wall_s"]
    assert c["runs"] == len(V.SEEDS) + len(V.EXTRA_SEEDS)
    assert 0 < c["wall_s"] < search
    # the looks run one after another (2, then 1, then 3 seeds): four rounds on two workers, six on one
    from bufsize.cost import START_SECONDS

    one = check.worst_cost(rec, rec.models_pick["buffer_packets"], workers=1)["wall_s"]
    assert (one - START_SECONDS) == pytest.approx(6 / 4 * (c["wall_s"] - START_SECONDS))


def test_a_search_with_bbr_is_estimated_at_more_runs():
    cubic = V.estimate_cost(recommend(capacity="1Gbps", rtt="10ms..50ms", flows=200, mix="cubic=1"), workers=2)
    bbr = V.estimate_cost(recommend(capacity="1Gbps", rtt="10ms..50ms", flows=200, mix="cubic=0.7,bbr=0.3"), workers=2)
    search_bbr, search_cubic = bbr["runs"] - 2, cubic["runs"] - 2   # the FQ-CoDel line's two runs apart
    assert search_bbr > 2 * search_cubic
