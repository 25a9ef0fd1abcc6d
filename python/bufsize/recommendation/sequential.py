"""The error of the verification's sequential test, over all its looks.

A size is judged over its first seeds, and again after each further batch where still unclear
(the *looks*: 2, 3 and 6 seeds by default). Judged at the one-sided 95 % Student-t level at every
look, a size whose true mean sits exactly on its goal is shown to meet it in 11.4 % of searches
(looks at 2, 3, 6 seeds; 8.5 % over the earlier 3 and 6), not the 5 % that one look would give:
each look is one more chance for the noise to cross the bound.

So the *meets* bound is judged at a smaller level at every look, calibrated so that the chance of
ever showing a size exactly on its goal to meet it, over all looks, is :data:`ALPHA` (5 %). The
calibration is exact for normally distributed per-seed values (the t statistics' joint law then
does not depend on the spread) up to the Monte Carlo error of :func:`error_rate`, about ±0.001 at
the draws used for :data:`CALIBRATED`. The *fails* bound keeps 95 % at each look: a size wrongly
judged to miss only makes the answer larger, never one that was not shown to meet its goals.

``python -m bufsize.recommendation.sequential 2 3 6`` prints the level for a schedule.
"""
from __future__ import annotations

import functools
import sys
from typing import Sequence

#: The chance, over all looks, that a size whose mean sits exactly on its goal is shown to meet it.
ALPHA = 0.05
#: The level of the *fails* bound at each look (its errors only make the answer larger).
ALPHA_FAILS = 0.05
#: Per-look levels of the *meets* bound, calibrated by :func:`calibrate` with 1 000 000 draws
#: (seed 1); other schedules are calibrated when first used (a second or two).
CALIBRATED: dict[tuple[int, ...], float] = {(2, 3, 6): 0.01980}


def looks(first: int, seeds: int, extra: int) -> tuple[int, ...]:
    """The seed counts at which a size is judged: the first batch, all ``seeds``, then with the
    ``extra`` seeds (looks with fewer than 2 seeds carry no t bound and are left out)."""
    return tuple(sorted({n for n in (min(first, seeds), seeds, seeds + extra) if n >= 2}))


def error_rate(schedule: Sequence[int], alpha_meets: float, alpha_fails: float = ALPHA_FAILS, *,
               mean: float = 0.0, draws: int = 200_000, seed: int = 1) -> float:
    """The chance that a size is ever shown to meet a lower-bounded goal (utilization ≥ target)
    whose per-seed values are normal with the given ``mean`` offset from the target in units of
    their standard deviation (0: exactly on the goal, the worst case of a size that does not meet
    it), judged at ``alpha_meets`` / ``alpha_fails`` per look over ``schedule``; Monte Carlo."""
    import numpy as np
    from scipy import stats

    schedule = tuple(sorted(set(int(n) for n in schedule)))
    x = np.random.default_rng(seed).standard_normal((draws, schedule[-1])) + mean
    total = np.cumsum(x, axis=1)
    squares = np.cumsum(x * x, axis=1)
    open_ = np.ones(draws, bool)
    met = np.zeros(draws, bool)
    for n in schedule:
        m = total[:, n - 1] / n
        sd = np.sqrt(np.maximum(squares[:, n - 1] - n * m * m, 0.0) / (n - 1))
        se = sd / np.sqrt(n)
        meets = open_ & (m - stats.t.ppf(1 - alpha_meets, n - 1) * se >= 0)
        fails = open_ & ~meets & (m + stats.t.ppf(1 - alpha_fails, n - 1) * se < 0)
        met |= meets
        open_ &= ~(meets | fails)
    return float(met.mean())


@functools.lru_cache(maxsize=None)
def calibrate(schedule: tuple[int, ...], alpha: float = ALPHA, draws: int = 200_000, seed: int = 1) -> float:
    """The per-look level of the *meets* bound at which :func:`error_rate` over ``schedule`` is ``alpha``."""
    from scipy import optimize

    if len(schedule) <= 1:
        return alpha
    return float(optimize.brentq(lambda a: error_rate(schedule, a, draws=draws, seed=seed) - alpha,
                                 alpha / (2 * len(schedule)), alpha, xtol=1e-5))


def alpha_meets(schedule: Sequence[int]) -> float:
    """The per-look level of the *meets* bound for ``schedule`` (:data:`CALIBRATED` or calibrated now)."""
    key = tuple(sorted(set(int(n) for n in schedule)))
    return CALIBRATED.get(key) or calibrate(key)


if __name__ == "__main__":
    sched = tuple(int(a) for a in sys.argv[1:]) or (2, 3, 6)
    a = calibrate(sched, draws=1_000_000)
    print(f"looks {sched}: meets bound at {a:.5f} per look; over all looks "
          f"{error_rate(sched, a, draws=1_000_000, seed=2):.4f} (fresh draws); "
          f"at 0.05 per look {error_rate(sched, ALPHA, draws=1_000_000, seed=2):.4f}")
