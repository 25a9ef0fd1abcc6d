"""An outlier seed is named, not averaged in silently."""

from bufsize.experiments.outliers import outlier_runs


def _runs(losses, fairness=None):
    fairness = fairness or [0.95] * len(losses)
    return [{"seed": i + 1, "loss_rate": v, "jain_fairness": f} for i, (v, f) in enumerate(zip(losses, fairness))]


def test_a_runaway_seed_is_named_with_the_others_range():
    # the runaway of a flow before its fix: 15.2 % loss against 0.30-0.39 % for seeds 2-6
    found = outlier_runs(_runs([0.152, 0.0030, 0.0035, 0.0039, 0.0031, 0.0033],
                               [0.19, 0.95, 0.96, 0.94, 0.95, 0.96]))
    assert [(o["seed"], o["metric"]) for o in found] == [(1, "loss_rate"), (1, "jain_fairness")]
    assert found[0]["text"] == "seed 1: loss 15.2 % against 0.3–0.39 % in the other 5 seeds"


def test_ordinary_spread_and_too_few_seeds_are_not_outliers():
    assert outlier_runs(_runs([0.010, 0.014, 0.019, 0.012])) == []          # seeds scatter, none apart
    assert outlier_runs(_runs([0.0001, 0.0009, 0.0002])) == []              # 9x, but far below a point
    assert outlier_runs(_runs([0.15, 0.003])) == []                          # one other seed: no judgement


def test_search_and_verified_answer_report_outliers(monkeypatch):
    from bufsize.experiments import outliers
    from bufsize.recommendation import verification as verified

    # the verified answer's notes carry every outlier the rule finds (fed one that must be reported)
    monkeypatch.setattr(outliers, "outlier_runs",
                        lambda runs: [{"seed": 7, "text": "seed 7: loss 15.2 % against 0.3–0.39 % in the other 2 seeds"}]
                        if runs else [])
    from bufsize.recommendation import recommend

    rec = recommend(capacity="10Mbps", rtt="20ms..40ms", flows=4, verify=True)
    assert any(n.startswith("an outlier run at ") and "--seed 7" in n for n in rec.verified.notes)
    assert verified  # imported module used by recommend


def test_search_notes_name_outlier_runs(monkeypatch):
    from bufsize.experiments import outliers
    from bufsize.experiments.search import search_buffer
    from exp_helpers import tiny

    seen = []

    def fake(runs):
        seen.append(len(runs))
        return [{"seed": 2, "text": "seed 2: loss 15.2 % against 0.3–0.39 % in the other 2 seeds"}]

    monkeypatch.setattr(outliers, "outlier_runs", fake)
    sc = tiny(duration="60s", start="0s")
    sc["warmup"] = "20s"
    r = search_buffer(sc, "utilization", 0.9, seeds=3, low=1, high=250, workers=1)
    assert seen and all(n >= 3 for n in seen)          # every evaluated buffer's runs were checked
    assert "an outlier run at " in r.note and "rerun it with --seed 2" in r.note
