"""The link of a bare ``bufsize recommend`` (what ``make demo`` runs) gets a verified answer by default."""

import json

import pytest

from bufsize import defaults
from bufsize.cli import main
from bufsize.recommendation import verification as V
from bufsize.recommendation import recommend


def test_example_link_verification_fits_the_interactive_budget():
    rec = recommend()
    assert rec.input.example_link
    cost = V.estimate_cost(rec, workers=2)
    assert cost["wall_s"] is not None and cost["wall_s"] <= V.INTERACTIVE_BUDGET_S


def test_backbone_example_is_not_verified_by_default_and_says_what_it_would_cost():
    rec = recommend(**defaults.BACKBONE_LINK, verify="auto", workers=2)
    assert rec.verified is None
    assert "would take about" in rec.verify_skipped and "--verify" in rec.verify_skipped


@pytest.mark.slow
def test_bare_recommend_prints_a_verified_answer(capsys):
    assert main(["recommend", "--json", "--workers", "2"]) == 0
    out = json.loads(capsys.readouterr().out)
    ver = out["verified"]
    assert ver is not None and ver["status"] == "verified"
    b = ver["buffer_packets"]
    assert ver["at_size"]["utilization"] >= 0.99 and not ver["at_size"]["misses"]
    # half the answer misses the goal (run, or implied by a larger size that missed)
    assert ver["at_half"]["misses"]
    # the verified size is well under the bandwidth-delay product (30 ms mean RTT at 1 Gb/s)
    assert 0 < b < out["bdp_packets"]
    assert set(ver["verdicts"]) <= {m["id"] for m in out["models"]}
