"""Outlier seeds: a run whose loss or fairness lies far outside the other seeds' at the same size.

One run of many can go its own way (a flow that ran away before its cause was fixed: 15.2 % loss
where the other seeds of the same scenario had 0.30–0.39 %). A mean over seeds would average it in
without a word; the verified answer and the searches name such a run instead, with the seed to
rerun it by. The rule is deliberately coarse, for runs that are plainly different, not for the
spread a confidence interval already carries:

- loss: above three times the highest loss of the other seeds and at least one point above it;
- fairness (Jain's index): more than 0.3 below the lowest of the other seeds, and below 0.5.

Both need at least two other seeds to compare with.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

#: (summary key, name in words, True when a high value is the outlier)
CHECKS = (("loss_rate", "loss", True), ("jain_fairness", "Jain fairness", False))


def _pct(v: float) -> str:
    return f"{100 * v:.3g} %"


def outlier_runs(runs: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """The outliers among ``runs`` (one summary per seed, each with ``"seed"``): a dict per finding
    with ``seed``, ``metric``, ``value``, ``others`` (min, max) and ``text``."""
    out: list[dict[str, Any]] = []
    for key, name, high in CHECKS:
        vals: list[tuple[Any, float]] = []
        for r in runs:
            x = r.get(key)
            if isinstance(x, (int, float)) and x == x:
                vals.append((r.get("seed"), float(x)))
        if len(vals) < 3:
            continue
        for i, (seed, v) in enumerate(vals):
            others = [w for j, (_, w) in enumerate(vals) if j != i]
            lo, hi = min(others), max(others)
            if high:
                odd = v > 3 * hi and v - hi >= 0.01
                value, span = _pct(v), f"{100 * lo:.3g}–{_pct(hi)}"
            else:
                odd = v < lo - 0.3 and v < 0.5
                value, span = f"{v:.3f}", f"{lo:.3f}–{hi:.3f}"
            if odd:
                out.append({"seed": seed, "metric": key, "value": v, "others": (lo, hi),
                            "text": f"seed {seed}: {name} {value} against {span} in the other {len(others)} seeds"})
    return out
