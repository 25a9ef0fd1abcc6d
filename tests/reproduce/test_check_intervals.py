"""A check's margin and its interval over seeds, and what they do to an item's status."""

import math

import pytest

from bufsize.reproduce._core import (check_at_least, check_range, check_true, clear_of_threshold, margin,
                                     seed_interval)
from bufsize.reproduce._runner import item_status


def test_margin_is_the_room_left_to_the_threshold_and_negative_outside():
    # one-sided: relative to the threshold (absolute for a threshold of 0)
    assert margin(check_at_least("x", None, 2.09, 2.0).to_dict()) == pytest.approx(0.045)
    assert margin(check_at_least("x", None, 0.03, 0.0).to_dict()) == pytest.approx(0.03)
    # two-sided: as a share of the half-width (1 at the centre, 0 on a bound)
    assert margin(check_range("x", None, 0.7, 0.5, 0.8).to_dict()) == pytest.approx(0.1 / 0.15)
    assert margin(check_range("x", None, 0.9, 0.5, 0.8).to_dict()) == pytest.approx(-0.1 / 0.15)
    assert margin(check_range("x", None, 0.65, 0.5, 0.8).to_dict()) == pytest.approx(1.0)
    assert margin(check_range("x", None, 0.7, 0.0, 1.0).to_dict()) == pytest.approx(0.6)
    # a fraction's own limits 0 and 1 are not thresholds: only x of [x, 1] or [0, x] counts
    assert margin(check_range("x", None, 0.0466, 0.0, 0.05).to_dict()) == pytest.approx(0.068)
    assert margin(check_range("x", None, 0.993, 0.95, 1.0).to_dict()) == pytest.approx(0.043 / 0.95)
    assert margin(check_range("x", None, 1.0, 0.8, 1.0).to_dict()) == pytest.approx(0.25)
    # exact checks and flags have none
    assert margin(check_range("x", None, 15.0, 15.0, 15.0).to_dict()) is None
    assert margin(check_true("x", True, "flag").to_dict()) is None


def test_interval_is_students_t_over_the_per_seed_values():
    c = check_at_least("x", None, 2.0, 1.0).over_seeds([1, 2, 3], [1.9, 2.0, 2.1]).to_dict()
    lo, hi = seed_interval(c)
    half = 4.302652729911275 * 0.1 / math.sqrt(3)  # t(0.975, 2) · s / √k
    assert (lo, hi) == (pytest.approx(2.0 - half), pytest.approx(2.0 + half))
    assert c["interval"] == [pytest.approx(lo), pytest.approx(hi)]
    assert seed_interval(check_at_least("x", None, 2.0, 1.0).over_seeds([1], [2.0]).to_dict()) is None


def test_a_passing_check_whose_interval_crosses_its_threshold_keeps_the_item_from_reproduced():
    clear = check_at_least("x", None, 2.0, 1.0, kind="measurement").over_seeds([1, 2, 3], [1.9, 2.0, 2.1])
    thin = check_at_least("y", None, 2.09, 2.0, kind="measurement").over_seeds([1, 2, 3], [2.09, 1.98, 2.2])
    assert thin.passed and clear_of_threshold(thin.to_dict()) is False
    assert clear_of_threshold(clear.to_dict()) is True
    assert item_status([clear.to_dict()], "simulation") == "reproduced"
    status = item_status([clear.to_dict(), thin.to_dict()], "simulation")
    assert status != "reproduced" and "1 within the seeds' interval" in status
    # no per-seed values: judged on the verdict alone, as before
    assert item_status([check_at_least("y", None, 2.09, 2.0, kind="measurement").to_dict()], "simulation") == "reproduced"


def test_an_interval_past_a_fractions_own_limit_is_still_clear():
    # R² of 0.99, 0.995, 0.999 against >= 0.95: the t-interval reaches past 1, which is no threshold of the claim
    c = check_range("x", None, 0.995, 0.95, 1.0).over_seeds([1, 2, 3], [0.99, 0.995, 0.999]).to_dict()
    assert seed_interval(c)[1] > 1 and clear_of_threshold(c) is True
    # but it does cross 0.95 when the seeds spread down there
    c = check_range("x", None, 0.97, 0.95, 1.0).over_seeds([1, 2, 3], [0.94, 0.97, 1.0]).to_dict()
    assert clear_of_threshold(c) is False


def test_seeds_and_values_must_pair_up():
    with pytest.raises(ValueError):
        check_at_least("x", None, 2.0, 1.0).over_seeds([1, 2], [2.0])
    with pytest.raises(ValueError):
        check_at_least("x", None, 2.0, 1.0).over_seeds([1, 1], [2.0, 2.1])


def test_pooled_seeds_judge_the_mean_and_keep_every_seeds_value():
    from bufsize.reproduce._core import check_abs, pool_seeds

    def one(v):
        c = check_at_least("share", None, v, 0.9, kind="measurement")
        if not c.passed:
            c.because("setup", f"seed value {v}")
        return [c, check_abs("model", 1.0, 1.0, 0.1, kind="formula")]

    pooled = pool_seeds([1, 2, 3], [one(0.95), one(0.97), one(0.99)])
    share, model = pooled
    assert share.ours == pytest.approx(0.97) and share.passed and share.per_seed == (0.95, 0.97, 0.99)
    assert share.seeds == (1, 2, 3) and "mean over seeds 1, 2, 3" in share.claim
    assert clear_of_threshold(share.to_dict()) is True
    assert model.per_seed is None and model.kind == "formula"
    # the mean decides, not the first seed; a pooled miss keeps the cause of the first seed that missed
    low = pool_seeds([1, 2, 3], [one(0.95), one(0.80), one(0.82)])[0]
    assert not low.passed and low.cause == "setup" and low.cause_detail == "seed value 0.8"
    assert pool_seeds([1, 2], [one(0.85), one(0.99)])[0].passed


def test_pooling_refuses_flags_and_lists_that_do_not_pair_up():
    from bufsize.reproduce._core import pool_seeds

    flag = [check_true("x", True, "flag", kind="measurement")]
    with pytest.raises(ValueError, match="flag"):
        pool_seeds([1, 2], [flag, flag])
    a = [check_at_least("a", None, 1.0, 0.5, kind="measurement")]
    b = [check_at_least("b", None, 1.0, 0.5, kind="measurement")]
    with pytest.raises(ValueError, match="differ"):
        pool_seeds([1, 2], [a, b])
    with pytest.raises(ValueError):
        pool_seeds([1, 2], [a])
    with pytest.raises(ValueError):
        pool_seeds([1, 2], [a, a + a])


def test_paced_and_reno_window_sentences_as_ranges_over_seeds():
    from bufsize.reproduce.fig_002_02 import checks_of

    paced = [{"mean_cwnd": 30.0, "frac_at_wmax": 0.6, "drops": 100}, {"mean_cwnd": 29.0, "frac_at_wmax": 0.55, "drops": 90}]
    reno = [{"mean_cwnd": 15.0, "frac_at_wmax": 0.05, "drops": 10_000}, {"mean_cwnd": 16.0, "frac_at_wmax": 0.04,
                                                                          "drops": 9_000}]
    good = checks_of("x", paced, reno, (1, 2))
    assert all(c.passed for c in good) and all(c.per_seed is not None for c in good)
    # Reno ahead in every respect: each sentence fails
    assert not any(c.passed for c in checks_of("x", reno, paced, (1, 2)))
    # paced at Wmax more often by 0.1 but not twice as often: only the 'twice' check fails
    half = [{"mean_cwnd": 30.0, "frac_at_wmax": 0.5, "drops": 1}]
    verdicts = [c.passed for c in checks_of("x", half, [{"mean_cwnd": 20.0, "frac_at_wmax": 0.3, "drops": 2}], (1,))]
    assert verdicts == [True, True, False, True]
    # the same drops are not fewer drops
    assert not checks_of("x", half, [{"mean_cwnd": 20.0, "frac_at_wmax": 0.0, "drops": 1}], (1,))[3].passed


def test_link_pacing_sentences_on_one_seeds_series():
    import pandas as pd

    from bufsize.reproduce.fig_002_05 import checks_of

    acc = [2, 4, 6, 8, 10, 12, 16, 25, 50, 100]
    offered = [a * 100 / 1000 for a in acc]
    falling = [min(o, 1.0) for o in offered[:5]] + [0.9, 0.8, 0.7, 0.6, 0.5]
    d = pd.DataFrame({"access_mbps": acc, "offered_fraction": offered, "utilization": falling})
    assert [c.passed for c in checks_of(d, "x")] == [True, True, True, True]
    # a rise beyond the peak breaks the monotone decline only
    d2 = d.assign(utilization=falling[:7] + [0.85, 0.6, 0.5])
    assert [c.passed for c in checks_of(d2, "x")] == [True, True, True, False]
    # a flat tail is no decrease, and a peak at 100 Mb/s is not near 10
    flat = d.assign(utilization=falling[:5] + [0.99] * 5)
    assert not checks_of(flat, "x")[2].passed
    late = d.assign(utilization=[u * 0.5 for u in offered[:9]] + [1.0])
    assert not checks_of(late, "x")[1].passed


def test_a_target_the_grid_never_reached_counts_as_its_largest_multiple():
    from bufsize.reproduce.fig_004_11 import largest_ratio

    assert largest_ratio([0.8, 1.1], 4.0) == pytest.approx(1.1)
    assert largest_ratio([0.8, math.nan], 4.0) == pytest.approx(4.0)
    assert math.isnan(largest_ratio([], 4.0))
