"""Every reproduction check can fail, judges the claim in its own direction and carries its kind of evidence."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from bufsize.reproduce import _core
from bufsize.reproduce._core import (CHECK_KINDS, Check, check_abs, check_at_least, check_at_most, check_range,
                                     check_rel, check_true, judge_rule, worst_case)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "reproduction"


def _committed_checks():
    for path in sorted(DOCS.glob("**/checks.json")):
        for c in json.loads(path.read_text(encoding="utf-8")):
            yield path.parent.relative_to(DOCS).as_posix(), c


def test_every_helper_fails_at_its_worst_case_and_agrees_with_its_own_verdict():
    made = [check_rel("r", 10.0, 10.5, 0.1), check_abs("a", 5.0, 5.2, 0.5), check_range("g", 1.0, 1.0, 0.5, 2.0),
            check_at_least("l", 1.0, 1.2, 1.0), check_at_most("m", 1.0, 0.8, 1.0),
            check_range("one-sided", 1.0, 3.0, 1.0, math.inf), check_true("t", True, "strict")]
    for c in made:
        assert c.passed and c.judge(c.ours), c.claim
        assert not c.judge(c.worst_case()), c.claim
        assert not c.judge(math.nan), c.claim
        assert c.to_dict()["rule"] is not None


def test_a_check_that_accepts_every_number_is_refused():
    with pytest.raises(ValueError, match="cannot fail"):
        check_range("anything goes", None, 1.0, -math.inf, math.inf)
    with pytest.raises(ValueError, match="cannot fail"):
        check_rel("any", 1.0, 1.0, math.inf)
    with pytest.raises(ValueError, match="kind"):
        check_abs("x", 1.0, 1.0, 0.1, kind="vibes")


def test_one_sided_checks_fail_only_on_the_wrong_side():
    assert not check_at_least("μ ≥ bound", 1.0, 0.969, 1.0).passed
    assert check_at_least("μ ≥ bound", 1.0, 1.3, 1.0).passed
    assert not check_at_most("enough", 1.0, 1.4, 1.25).passed
    assert check_at_most("enough", 1.0, 0.3, 1.25).passed


def test_every_committed_check_has_a_kind_a_failing_value_and_a_consistent_verdict():
    for where, c in _committed_checks():
        if "rule" not in c:   # written before checks carried rules: the report marks these stale
            continue
        assert c["kind"] in CHECK_KINDS, (where, c["claim"])
        rule = c["rule"] or {"op": "flag"}   # a check built without a rule is judged as a flag
        assert not judge_rule(rule, worst_case(rule)), (where, c["claim"])
        if rule["op"] == "range" and not str(c["tolerance"]).startswith("not measured"):
            assert judge_rule(rule, c["ours"]) == c["pass"], (where, c["claim"])


def test_every_committed_counted_miss_carries_its_cause():
    # the acceptance: every miss has a cause; the report's index counts the ones without as "none"
    from bufsize.reproduce._runner import miss_cause

    bare = [(where, c["claim"][:80]) for where, c in _committed_checks()
            if c.get("kind") in ("measurement", "formula") and not c["pass"] and miss_cause(c) is None]
    assert not bare


def test_inequality_one_fails_where_mu_is_below_the_bound():
    from bufsize.reproduce import fig_003_10 as f

    # μ 3.1 % and 7.8 % below z·δ + BDP (the quick run's BDP2 and BDP3 before this check was one-sided)
    assert not f.inequality_check("BDP2", 100, 969.0, 1000.0).passed
    assert not f.inequality_check("BDP3", 200, 922.0, 1000.0).passed
    assert f.inequality_check("BDP1", 50, 1000.0, 1000.0).passed
    c = f.inequality_check("BDP1", 50, 1100.0, 1000.0)
    assert c.kind == "measurement" and not c.judge(c.worst_case())


def test_closed_loop_ceiling_checks_never_ask_our_runs_to_break_the_ceiling():
    from bufsize.reproduce import _p000_t000 as p
    from bufsize.reproduce import fig_000_03 as f

    ceiling = {u: {"measured_mean_size": 0.7} for u in (1000, 1200)}
    ok = f.ceiling_checks(p, {1000: 0.62, 1200: 0.69}, ceiling)
    kinds = [c.kind for c in ok]
    # the formula and the health bound only: no measurement asks U1200 to exceed the 76.8 % ceiling
    assert kinds.count("formula") == 2 and kinds.count("health") == 2 and "measurement" not in kinds
    assert all(c.passed for c in ok)
    broken = [c for c in f.ceiling_checks(p, {1000: 0.9, 1200: 0.9}, ceiling) if c.kind == "health"]
    assert not any(c.passed for c in broken)   # a run above its own ceiling is flagged
    note = f.ceiling_note(p)
    assert f.U1200_SENTENCE in note and "76.8%" in note and "inconsistency" in note


def test_prasad_robust_claims_fail_when_the_fitted_optima_contradict_them():
    from bufsize.reproduce import fig_000_17 as f

    good = f.robust_checks(100.0, 400.0, 250.0, "t")
    assert all(c.passed for c in good) and {c.kind for c in good} == {"measurement"}
    bad = f.robust_checks(300.0, 200.0, 250.0, "t")
    assert not any(c.passed for c in bad)


def test_sobas_close_to_mft_is_judged_on_the_deviation_and_the_limit_apart():
    from bufsize.reproduce import table_001_1 as t

    # SOBAS declared a non-congested path congested and ran uncapped, 0 % from the MFT: (a) holds, (a′) fails
    row = {"load_pct": 70, "buffer_packets": 625, "SOBAS": 20.0, "MFT": 20.0, "sobas_congested": True,
           "sobas_limit_bytes": None}
    assert t.typically_check([row]).passed
    lim = t.sobas_limit_check("c", row)
    assert not lim.passed and lim.ours == 0 and t.LIMIT_SENTENCE in lim.tolerance
    limited = dict(row, sobas_congested=False, sobas_limit_bytes=300e3)
    assert t.sobas_limit_check("c", limited).passed
    assert not t.typically_check([dict(limited, SOBAS=12.0)]).passed
    assert t.sobas_limit_check("c", None).ours is None


def test_sobas_close_to_mft_reads_typically_over_the_cells_and_the_under_buffered_bound():
    from bufsize.reproduce import table_001_1 as t

    def row(bt, dev):
        return {"load_pct": 70, "buffer_packets": bt, "SOBAS": 20.0 * (1 - dev), "MFT": 20.0}

    # 7.7 % is inside the 20 % of an under-buffered cell, 3.7 % inside the 10 % of the others
    assert t.typically_check([row(313, 0.0772), row(625, 0.0370)]).ours == 1.0
    # one cell of three beyond its bound (as 001's own 18.5 % at 100 %/1250) is still 'typically'
    c = t.typically_check([row(313, 0.05), row(625, 0.05), row(1250, 0.185)])
    assert c.passed and abs(c.ours - 2 / 3) < 1e-12 and t.TYPICALLY_SENTENCE in c.tolerance
    miss = t.typically_check([row(313, 0.25), row(625, 0.05), row(1250, 0.185)])
    assert not miss.passed and miss.cause == "setup"   # a measured miss says why; a pass or an unrun one does not
    assert t.typically_check([row(313, 0.05), row(625, 0.05)]).cause is None
    assert t.typically_check([None, None]).ours is None
    assert t.typically_check([None, None]).cause is None   # the item gives an unrun one its "not measured" cause


def test_report_counts_kinds_apart_and_reproduced_means_every_measurement_passes(tmp_path):
    from bufsize.reproduce._runner import MARKER, item_status, write_report

    def chk(claim, kind, ok, tol="±0.1"):
        return {"claim": claim, "paper": 1.0, "ours": 1.0 if ok else 2.0, "tolerance": tol, "pass": ok, "kind": kind,
                "rule": {"op": "range", "lo": 0.9, "hi": 1.1}}

    assert item_status([chk("a", "measurement", True), chk("h", "health", False)], "simulation") == "reproduced"
    assert item_status([chk("a", "measurement", False), chk("f", "formula", True)], "simulation") == "ran, 1 miss"
    assert item_status([chk("f", "formula", True), chk("c", "calibration", True)], "analytic") == "formula checked"
    (tmp_path / MARKER).write_text("")
    fig = tmp_path / "fig_004_05"
    fig.mkdir()
    checks = [chk("m1", "measurement", True), chk("m2", "measurement", False), chk("f1", "formula", True),
              chk("c1", "calibration", True), chk("h1", "health", False)]
    (fig / "checks.json").write_text(json.dumps(checks))
    (fig / "meta.json").write_text(json.dumps({
        "id": "fig_004_05", "paper_id": "004-Fig5", "title": "t", "kind": "simulation", "kind_detail": "simulation",
        "mode": "quick", "wall_seconds": 1.0, "checks_passed": 3, "checks_total": 5, "deviations": [], "notes": []}))
    text = write_report(tmp_path).read_text()
    assert "measurement 1 of 2 pass; formula 1 of 1 pass (2 of 3 counted checks pass, 1 miss" in text
    assert "Not counted: calibration 1 of 1 pass; health 0 of 1 pass." in text
    assert "| m 1/2, f 1/1, c 1/1, h 0/1 |" in text
    assert "[ran, 1 miss](#fig_004_05)" in text


def test_untagged_checks_get_their_items_default_kind():
    spec_a = type("S", (), {"kind": "analytic"})()
    spec_s = type("S", (), {"kind": "testbed"})()
    assert _core.default_kind(spec_a) == "formula" and _core.default_kind(spec_s) == "measurement"
    c = Check("x", 1, 1, "t", True)
    assert c.kind is None and c.judge(1)


def test_table_001_1_miss_notes_are_callable_without_misses():
    from bufsize.reproduce import table_001_1 as t

    assert t._miss_notes([], [], None, {}) == []


def test_every_miss_carries_its_cause_and_paper_inconsistencies_are_not_counted_as_misses(tmp_path):
    from bufsize.reproduce._runner import MARKER, cause_counts, item_status, miss_cause, write_report

    c = check_abs("m", 1.0, 2.0, 0.1, kind="measurement").because("setup", "10 cross flows where §V has 20")
    d = c.to_dict()
    assert d["cause"] == {"kind": "setup", "detail": "10 cross flows where §V has 20"}
    assert miss_cause(d) == "setup"
    # a passing check keeps no cause; a cause needs its evidence and a known kind
    assert "cause" not in check_abs("p", 1.0, 1.0, 0.1).because("engine", "x").to_dict()
    with pytest.raises(ValueError):
        check_abs("m", 1.0, 2.0, 0.1).because("bad luck", "x")
    with pytest.raises(ValueError):
        check_abs("m", 1.0, 2.0, 0.1).because("setup", " ")
    paper = check_abs("q", 1.0, 2.0, 0.1, kind="measurement").because(
        "paper", "Table I's BTC·Ta column contradicts eq. (9)").to_dict()
    bare = check_abs("r", 1.0, 2.0, 0.1, kind="measurement").to_dict()
    ok = check_abs("s", 1.0, 1.0, 0.1, kind="measurement").to_dict()
    assert item_status([ok, paper], "simulation") == "ran, 1 paper inconsistency"
    assert item_status([ok, paper, bare], "simulation") == "ran, 1 miss, 1 paper inconsistency"
    (tmp_path / MARKER).write_text("")
    fig = tmp_path / "table_001_1"
    fig.mkdir()
    (fig / "checks.json").write_text(json.dumps([ok, d, paper, bare]))
    (fig / "meta.json").write_text(json.dumps({
        "id": "table_001_1", "paper_id": "001-TableI", "title": "t", "kind": "simulation",
        "kind_detail": "simulation", "mode": "quick", "wall_seconds": 1.0, "checks_passed": 1, "checks_total": 4,
        "deviations": [], "notes": []}))
    counts = cause_counts({"table_001_1": ({"kind": "simulation"}, [ok, d, paper, bare])})
    assert (counts["setup"], counts["paper"], counts["none"]) == (1, 1, 1)
    text = write_report(tmp_path).read_text()
    assert "(1 of 4 counted checks pass, 2 miss, 0 not measured, 1 where the paper's own numbers disagree" in text
    assert "by cause: setup 1, paper 1, check 0, engine 0, not measured 0, none 1" in text
    assert "**MISS** (setup: 10 cross flows where §V has 20)" in text
