"""Statistics over repeats and flows: confidence intervals and Jain's fairness index."""

from __future__ import annotations

import math
from typing import Iterable, Sequence


def jain_fairness(values: Iterable[float]) -> float:
    """Jain's index (sum x)^2 / (n * sum x^2): 1 when all equal, 1/n when one takes all.

    NaN for an empty input; 1 when every value is zero (nobody is favoured).
    """
    xs = [float(v) for v in values]
    if not xs:
        return math.nan
    s2 = sum(x * x for x in xs)
    if s2 == 0:
        return 1.0
    return sum(xs) ** 2 / (len(xs) * s2)


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> tuple[float, float, float]:
    """(mean, lower, upper) of a Student-t confidence interval for the mean of the repeats.

    With one value the interval is unknown: (x, nan, nan). Raises ValueError on an empty input or
    a confidence outside (0, 1).
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        raise ValueError("no values")
    m = sum(xs) / n
    if n == 1:
        return m, math.nan, math.nan
    from scipy.stats import t

    sd = math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1))
    half = t.ppf(0.5 + confidence / 2.0, n - 1) * sd / math.sqrt(n)
    return m, m - half, m + half
