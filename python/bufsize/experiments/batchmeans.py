"""How long to measure a run: batch means over the run's own counters.

A verification run used to measure for a fixed length taken from the traffic's slowest cycle
(three CUBIC epochs, three of BBR's PROBE_RTT periods). This module lets the run itself say when it
has measured enough. The engine's bottleneck counters (bits serialized, packets offered and dropped,
the queue's integral) are read at the end of every *slice* of simulated time; the slices are grouped
into 10 to 40 consecutive *batches*, and a quantity that is a ratio of two counters (utilization =
bits / (rate · time), loss = drops / arrivals) is estimated by the whole window's ratio with a
confidence interval from the spread of the batches' ratios (the method of batch means, e.g. Law &
Kelton, *Simulation Modeling and Analysis*, §9.5.3).

Batches of a run are not independent when the traffic's cycles are longer than a batch: while their
lag-1 autocorrelation ρ is above :data:`ACCEPT_LAG1` they are made twice as long (down to 10
batches); the interval is then widened by the AR(1) factor √((1 + ρ)/(1 − ρ)) for the ρ > 0 left,
and a run whose ρ is still above :data:`MAX_LAG1` gets no interval (it is not settled). This is an
approximation: on AR(1) test series the 95 % interval covers the mean 96 % of the time for
independent slices and 94 % at a slice-to-slice correlation of 0.5, but only about 87 % when the
run spans about a dozen correlation times (correlation 0.97, 400 slices), 80 % without the widening
(tests/experiments/test_batchmeans.py). The verdicts do not rest on these intervals (they are the
seeds' t-tests); the intervals only decide when a run has measured enough.

A run stops early (:func:`run_settled`) only when every judged quantity is settled: at least
:attr:`StopRule.min_measure_s` measured (one of the slowest cycles, so a periodic event such as BBR's
PROBE_RTT is inside the window at least once) and each quantity's half-width within
``max(abs_tol, distance to its goal / 3)``: precise enough that the run says on which side of the
goal it lies, or precise to ``abs_tol`` where it sits on the goal. Otherwise it runs to the
scenario's full length, as before; a run is never made longer than that.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Any, Mapping, Sequence

#: The standard normal 97.5 % quantile.
_Z975 = NormalDist().inv_cdf(0.975)
#: Fewest and most batches the slices are grouped into.
MIN_BATCHES = 10
MAX_BATCHES = 40
#: Batches are lengthened (their number halved) while their lag-1 autocorrelation is above this.
ACCEPT_LAG1 = 0.2
#: Batches still more correlated than this (lag 1) are not trusted to give an interval.
MAX_LAG1 = 0.7


@dataclass(frozen=True)
class Estimate:
    """A ratio's estimate over a run's window: the window's ratio, the half-width of its 95 %
    interval from the batch means (widened for their correlation), the batches and their lag-1
    autocorrelation. ``half_width`` is infinite where too few batches exist or they are too
    correlated."""

    mean: float
    half_width: float
    batches: int
    lag1: float

    def to_dict(self) -> dict[str, Any]:
        return {"mean": self.mean, "half_width": self.half_width, "batches": self.batches, "lag1": self.lag1}


#: Degrees of freedom from which :func:`_t975` uses its series (relative error below 1e-5 there).
SERIES_FROM_DOF = 9


def _t975(dof: int) -> float:
    """Student's t 97.5 % quantile. From :data:`SERIES_FROM_DOF` degrees of freedom up (every interval
    of the stop rule: at least :data:`MIN_BATCHES` batches) by the Cornish-Fisher series of Abramowitz &
    Stegun 26.7.5 around the normal quantile, within 6e-6 of the exact value at 9 and closer above
    (tests/experiments/test_batchmeans.py checks it against SciPy); below, SciPy's exact quantile. The
    series keeps ``scipy.stats`` (about 0.8 s of imports) out of every worker process a verification
    starts, where this is the only thing the stop rule needs from it."""
    if dof < SERIES_FROM_DOF:
        from scipy import stats

        return float(stats.t.ppf(0.975, dof))
    z = _Z975
    z2 = z * z
    g1 = (z2 + 1.0) * z / 4.0
    g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0
    g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0
    g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0
    v = float(dof)
    return z + g1 / v + g2 / v ** 2 + g3 / v ** 3 + g4 / v ** 4


def _batches(num: Sequence[float], den: Sequence[float], k: int) -> list[float]:
    """The ratios of ``k`` consecutive batches of ``len(num) // k`` slices (the earliest leftover
    slices left out); batches without a denominator are dropped."""
    size = len(num) // k
    skip = len(num) - k * size
    out = []
    for j in range(k):
        a = skip + j * size
        d = float(sum(den[a:a + size]))
        if d > 0:
            out.append(float(sum(num[a:a + size])) / d)
    return out


def _lag1(ratios: Sequence[float]) -> tuple[float, float]:
    """(lag-1 autocorrelation, sum of squared deviations) of a series."""
    k = len(ratios)
    rbar = sum(ratios) / k
    dev = [r - rbar for r in ratios]
    ss = sum(x * x for x in dev)
    if ss == 0.0:
        return 0.0, 0.0
    return sum(dev[i] * dev[i + 1] for i in range(k - 1)) / ss, ss


def ratio_estimate(num: Sequence[float], den: Sequence[float], *, min_batches: int = MIN_BATCHES,
                   max_batches: int = MAX_BATCHES, max_lag1: float = MAX_LAG1) -> Estimate:
    """Σnum/Σden over the slices, with its batch-means interval.

    ``num``/``den``: one increment per slice, in time order (e.g. bits serialized and rate × slice
    length). The slices are grouped into ``max_batches`` consecutive batches (fewer when there are
    fewer slices); while the batches' lag-1 autocorrelation exceeds :data:`ACCEPT_LAG1` and halving
    their number leaves at least ``min_batches``, the batches are made twice as long. The interval
    is Student's t over the batches, widened by √((1 + ρ)/(1 − ρ)) for their remaining
    correlation ρ > 0; none (an infinite half-width) with fewer than ``min_batches`` batches or ρ
    above ``max_lag1``.
    """
    if len(num) != len(den):
        raise ValueError("num and den must have one value per slice")
    total_den = float(sum(den))
    mean = float(sum(num)) / total_den if total_den > 0 else math.nan
    k = min(max_batches, len(num))
    if k < min_batches or not math.isfinite(mean):
        return Estimate(mean, math.inf, max(k, 0), math.nan)
    while True:
        ratios = _batches(num, den, k)
        if len(ratios) < min_batches:
            return Estimate(mean, math.inf, len(ratios), math.nan)
        lag1, ss = _lag1(ratios)
        if lag1 <= ACCEPT_LAG1 or k // 2 < min_batches:
            break
        k //= 2
    k = len(ratios)
    if ss == 0.0:
        return Estimate(mean, 0.0, k, 0.0)
    if lag1 > max_lag1:
        return Estimate(mean, math.inf, k, lag1)
    sd = math.sqrt(ss / (k - 1))
    rho = max(0.0, lag1)
    half = _t975(k - 1) * sd / math.sqrt(k) * math.sqrt((1.0 + rho) / (1.0 - rho))
    return Estimate(mean, half, k, lag1)


@dataclass(frozen=True)
class Criterion:
    """One judged quantity: ``metric`` ("utilization" or "loss") against ``goal``; settled when its
    half-width is at most ``max(abs_tol, rel_tol · goal, |mean − goal| / 3)``."""

    metric: str
    goal: float
    abs_tol: float
    rel_tol: float = 0.0

    def tolerance(self, est: Estimate) -> float:
        far = abs(est.mean - self.goal) / 3.0 if math.isfinite(est.mean) else 0.0
        return max(self.abs_tol, self.rel_tol * abs(self.goal), far)


#: A utilization estimate precise to 0.1 point is settled wherever it lies.
UTILIZATION_ABS_TOL = 0.001
#: A loss estimate precise to a tenth of its goal is settled wherever it lies.
LOSS_REL_TOL = 0.1


@dataclass(frozen=True)
class StopRule:
    """When a run may stop before its scenario's end: reads every ``slice_s`` of the measurement
    window, at least ``min_measure_s`` measured, every criterion settled."""

    slice_s: float
    min_measure_s: float
    criteria: tuple[Criterion, ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        return {"slice_s": self.slice_s, "min_measure_s": self.min_measure_s,
                "criteria": [{"metric": c.metric, "goal": c.goal, "abs_tol": c.abs_tol, "rel_tol": c.rel_tol}
                             for c in self.criteria]}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> "StopRule":
        return cls(float(d["slice_s"]), float(d["min_measure_s"]),
                   tuple(Criterion(str(c["metric"]), float(c["goal"]), float(c["abs_tol"]), float(c.get("rel_tol", 0.0)))
                         for c in d.get("criteria") or ()))


def increments(reads: Sequence[Mapping[str, float]], metric: str) -> tuple[list[float], list[float]]:
    """Per-slice (numerator, denominator) of ``metric`` from successive window reads (the engine's
    ``window_so_far``), the first read being the window's start."""
    num: list[float] = []
    den: list[float] = []
    for a, b in zip(reads, reads[1:]):
        if metric == "utilization":
            num.append(b["bits"] - a["bits"])
            den.append(b["rate_bps"] * (b["window_s"] - a["window_s"]))
        elif metric == "loss":
            num.append(float(b["drops"] - a["drops"]))
            den.append(float(b["arrivals"] - a["arrivals"]))
        else:
            raise ValueError(f"no batch means for {metric!r} (utilization or loss)")
    return num, den


def judge(rule: StopRule, reads: Sequence[Mapping[str, float]]) -> tuple[bool, dict[str, Estimate]]:
    """Whether the window read so far is settled under ``rule``, and each criterion's estimate."""
    ests = {c.metric: ratio_estimate(*increments(reads, c.metric)) for c in rule.criteria}
    measured = reads[-1]["window_s"] - reads[0]["window_s"] if reads else 0.0
    if measured + 1e-9 < rule.min_measure_s:
        return False, ests
    ok = all(ests[c.metric].half_width <= c.tolerance(ests[c.metric]) for c in rule.criteria)
    return ok, ests


def run_settled(sim: Any, rule: StopRule, warmup_ns: int) -> dict[str, Any]:
    """Drive an engine ``Simulation`` through its warm-up and then slice by slice until ``rule``
    says the window has settled (then end it there, ``sim.end_now()``) or its scenario ends. The
    caller calls ``sim.finish()``. Returns what was decided: ``stopped`` ("settled" or "full
    length"), ``measured_s``, ``end_s`` and each criterion's last estimate."""
    end = sim.end_ns()
    slice_ns = max(1, int(round(rule.slice_s * 1e9)))
    sim.run_until(min(end, warmup_ns))
    reads = [sim.window_so_far()]
    settled = False
    ests: dict[str, Estimate] = {}
    while sim.now_ns() < end:
        sim.run_until(min(end, sim.now_ns() + slice_ns))
        reads.append(sim.window_so_far())
        if not rule.criteria:
            continue
        settled, ests = judge(rule, reads)
        if settled and sim.now_ns() < end:
            sim.end_now()
            break
    last = reads[-1]
    return {"stopped": "settled" if settled and last["now_ns"] < end else "full length",
            "measured_s": last["window_s"], "end_s": last["now_ns"] / 1e9,
            "estimates": {m: e.to_dict() for m, e in ests.items()}}
