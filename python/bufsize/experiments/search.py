"""Buffer searches on a noisy objective: the smallest (or largest) buffer meeting a target.

The objective is a simulator metric at buffer B (``utilization``, ``loss_rate``, a queueing delay)
measured over several seeds. What is searched for is a property of its *mean over seeds*, m(B),
assumed monotone in B (more buffer: higher utilization, lower loss, longer delay):

- ``min`` search (utilization >= u, loss <= p): B* = the smallest B with m(B) meeting the target;
- ``max`` search (delay <= d): B* = the largest B with m(B) meeting the target.

Each evaluated buffer gets a verdict from a one-sided Student-t test on its n seed values (mean
x̄, standard deviation s): it *meets* the target when the one-sided bound x̄ - t·s/√n (for a lower
limit such as utilization; x̄ + t·s/√n for an upper limit such as loss) is on the right side of it,
*fails* (a miss) when the opposite bound is on the wrong side, and is *unclear* otherwise (then
more seeds are run once). ``t`` is the (1 - α') quantile of Student's t with n - 1 degrees of freedom, with
α' = (1 - confidence) / (number of tests the search may make): by the union (Bonferroni) bound,
with probability at least ``confidence`` *every* verdict of the search is right, and then, by
monotonicity, B* lies in the reported interval (between the last buffer proven to fail and the
first proven to meet). The t test assumes the per-seed values are roughly normal (they are
averages over a long window); with identical values (s = 0, e.g. a deterministic single flow)
the verdicts are exact comparisons.

A buffer still unclear at that search-wide level is judged on its own ``confidence`` interval of
the mean (two-sided, x̄ ± t·s/√n with t the (1 + confidence)/2 quantile): an interval wholly on
the wrong side of the target is a *miss* (verdict ``fails``), one wholly on the right side
*meets*, and the search goes on from there; these buffers are named in the result, since for them
the search-wide guarantee is replaced by the per-buffer one. Only an interval that straddles the
target stays ``unclear``, and the result says to *add seeds* there (it never calls a buffer
"indistinguishable from the target": with more seeds it would be told apart).

The search itself is a bisection between a buffer that fails and one that meets; an unclear
midpoint splits the remaining work into two bisections that narrow the unclear zone from both sides.
"""

from __future__ import annotations

import contextlib
import math
import os
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Sequence

from bufsize.errors import BufsizeError

#: metric -> (direction of "good" as B grows, kind of limit)
METRICS = {
    "utilization": "min",  # at least the target; grows with B -> smallest B
    "loss_rate": "min",  # at most the target; falls with B -> smallest B
    "queue_delay_mean_s": "max",  # at most the target; grows with B -> largest B
    "queue_delay_p50_s": "max",
    "queue_delay_p99_s": "max",
}
LOWER_LIMIT = {"utilization"}  # metrics whose target is a lower limit (x >= target)


@dataclass
class Evaluation:
    buffer: int
    values: list[float]
    verdict: str  # "meets", "fails" or "unclear"
    mean: float
    sd: float
    bound_meets: float  # the one-sided bound compared with the target for "meets"
    bound_fails: float  # the one for "fails"
    #: the level the verdict was reached at: "search" (search-wide, Bonferroni) or "buffer" (this
    #: buffer's own confidence interval, after the search-wide test left it unclear)
    level: str = "search"
    ci_low: float = math.nan   # this buffer's two-sided interval of the mean at the search's confidence
    ci_high: float = math.nan

    @property
    def label(self) -> str:
        """``meets``, ``miss`` or ``add seeds``: the verdict as the output words it."""
        return {"meets": "meets", "fails": "miss", "unclear": "add seeds"}[self.verdict]

    def to_dict(self) -> dict[str, Any]:
        return {"buffer_packets": self.buffer, "n": len(self.values), "mean": self.mean, "sd": self.sd,
                "verdict": self.verdict, "label": self.label, "level": self.level,
                "ci_low": self.ci_low, "ci_high": self.ci_high,
                "bound_meets": self.bound_meets, "bound_fails": self.bound_fails}


@dataclass
class SearchResult:
    """B* lies in ``[low, high]`` (packets) with probability >= ``confidence`` (see the module doc)."""

    metric: str
    target: float
    kind: str  # "min" or "max"
    confidence: float
    low: int  # inclusive bounds of the interval holding B*
    high: int
    evaluations: list[Evaluation] = field(default_factory=list)
    alpha_per_test: float = math.nan
    runs: int = 0
    note: str = ""

    @property
    def unclear(self) -> list[int]:
        return sorted(e.buffer for e in self.evaluations if e.verdict == "unclear")

    def statement(self) -> str:
        what = "smallest" if self.kind == "min" else "largest"
        op = ">=" if self.metric in LOWER_LIMIT else "<="
        iv = f"{self.low} pkt" if self.low == self.high else f"[{self.low}, {self.high}] pkt"
        s = (f"{what} buffer with mean {self.metric} {op} {self.target:g}: {iv} "
             f"(confidence {_pct(self.confidence)}, {self.runs} runs, {len(self.evaluations)} buffers tried)")
        if self.note:
            s += f"; {self.note}"
        return s

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "target": self.target, "kind": self.kind, "confidence": self.confidence,
                "low_packets": self.low, "high_packets": self.high, "alpha_per_test": self.alpha_per_test,
                "runs": self.runs, "note": self.note, "unclear_packets": self.unclear,
                "evaluations": [e.to_dict() for e in self.evaluations]}

    def table(self):
        import pandas as pd

        return pd.DataFrame([e.to_dict() for e in sorted(self.evaluations, key=lambda e: e.buffer)])


def _pct(c: float) -> str:
    return f"{c * 100:.3g} %"


class _Runner:
    """Runs one scenario at a buffer over seeds, through an executor, cached in an optional store."""

    def __init__(self, scenario: Any, field_name: str, executor, store):
        from bufsize.experiments.sweep import load_raw
        from bufsize.experiments.vary import resolve_path

        self.raw = load_raw(scenario)
        self.path = resolve_path(self.raw, field_name)
        self.executor = executor
        self.store = store
        self.runs = 0
        self.cache: dict[tuple[int, int], dict] = {}

    def values(self, buffer: int, seeds: Sequence[int], metric: str) -> list[float]:
        from bufsize.experiments import store as _store
        from bufsize.experiments.sweep import Point, _describe, _finish
        from bufsize.experiments.vary import set_path
        from bufsize.scenario import Scenario

        engine = _store.engine_version()
        todo: list[Point] = []
        for seed in seeds:
            if (buffer, seed) in self.cache:
                continue
            raw = set_path(self.raw, self.path, int(buffer))
            raw["seed"] = seed
            sc = Scenario.from_dict(raw)
            si = sc.to_dict()
            p = Point(buffer, seed, {"buffer_packets": buffer}, _store.point_key(si, seed, engine),
                      _store.canonical_json(si), describe=_describe(sc))
            rec = self.store.load(p.key) if self.store is not None else None
            if rec is not None and rec.get("status") == "ok":
                self.cache[(buffer, seed)] = rec
            else:
                todo.append(p)
        if todo:
            records: dict[str, dict] = {}

            def done(p, rec):
                _finish(self.store, records, p, rec, False)
                self.cache[(p.index, p.seed)] = records[p.key]

            self.executor.run(todo, done)
            self.runs += len(todo)
        out = []
        for seed in seeds:
            rec = self.cache[(buffer, seed)]
            if rec.get("status") != "ok":
                raise BufsizeError(f"the simulation at {buffer} packets, seed {seed} failed: {rec.get('error')}",
                                   argument="SCENARIO_FILE")
            v = rec["summary"].get(metric)
            if v is None:
                raise BufsizeError(f"the engine reports no {metric!r}", argument="metric")
            out.append(float(v))
        return out


def _verdict(values: list[float], target: float, lower_limit: bool, alpha: float) -> tuple[str, float, float, float, float]:
    from scipy import stats

    n = len(values)
    if max(values) == min(values):  # identical runs: their mean is the value and the spread is none, not the
        mean, sd = float(values[0]), 0.0  # 1e-17 that summing them in floating point leaves ("sd 7.9e-17")
    else:
        mean = sum(values) / n
        sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1)) if n > 1 else 0.0
    half = stats.t.ppf(1.0 - alpha, n - 1) * sd / math.sqrt(n) if sd > 0 else 0.0
    lo, hi = mean - half, mean + half
    if lower_limit:  # meets when the mean is >= target
        verdict = "meets" if lo >= target else ("fails" if hi < target else "unclear")
        return verdict, mean, sd, lo, hi
    verdict = "meets" if hi <= target else ("fails" if lo > target else "unclear")
    return verdict, mean, sd, hi, lo


def _check_resolution(resolution: Any) -> int:
    if isinstance(resolution, bool) or not isinstance(resolution, (int, float)) or resolution != int(resolution) \
            or int(resolution) < 1:
        raise BufsizeError(f"must be a whole number of packets, at least 1; got {resolution!r}",
                           argument="--resolution")
    return int(resolution)


def _check_max_seeds(max_seeds: Any) -> None:
    from bufsize.cost import MAX_RUNS

    if max_seeds is None:
        return
    if isinstance(max_seeds, bool) or not isinstance(max_seeds, int) or max_seeds < 1:
        raise BufsizeError(f"must be a whole number, at least 1; got {max_seeds!r}", argument="--max-seeds")
    if max_seeds > MAX_RUNS:
        raise BufsizeError(f"{max_seeds:,} seeds: more runs than one search may hold ({MAX_RUNS:,})",
                           argument="--max-seeds")


def _default_tests(low: int, high: int, resolution: int) -> int:
    return 2 * (math.ceil(math.log2(max(2, (high - low) / resolution))) + 4)


def plan_search(scenario: Any, *, targets: int = 1, seeds: int | Sequence[int] | str = 5, max_seeds: int | None = None,
                low: int = 1, high: int | None = None, resolution: int = 1, field_name: str = "buffer",
                executor: Any = "local", workers: int | None = None, max_tests: int | None = None,
                max_time: float | None = None, allow_over_memory: bool = False, check: bool = True):
    """Count and cost a search before anything runs, and (``check``) refuse one that cannot finish
    or fit (:func:`bufsize.cost.check_plan`). Nothing is listed: a billion seeds cost nothing to count.

    The count is what a bisection typically needs -- per target, the two ends and one buffer per
    halving of ``high - low`` down to ``resolution``, each with every seed -- and the cost of a run
    is the estimate at ``high`` (the largest buffer, the most packets in flight). The most a search
    can make (its test budget, every buffer with ``max_seeds``) is named beside it.
    Returns a :class:`bufsize.cost.PlanEstimate`."""
    from bufsize.cost import MAX_PLAN_S, check_plan, estimate, plan_cost, pooled_seconds
    from bufsize.experiments.sweep import _parallelism, count_seeds, load_raw
    from bufsize.experiments.vary import resolve_path, set_path
    from bufsize.scenario import Scenario

    resolution = _check_resolution(resolution)
    _check_max_seeds(max_seeds)
    n_seeds = count_seeds(seeds)
    raw = load_raw(scenario)
    if high is None:
        high = _default_high(raw)
    low, high = int(low), int(high)
    if low < 0 or high <= low:
        raise BufsizeError(f"needs 0 <= low < high, got {low}..{high}", argument="--range")
    tests = max_tests if max_tests is not None else _default_tests(low, high, resolution)
    steps = math.ceil(math.log2(max(2, (high - low) / resolution))) + 2
    runs = max(1, targets) * steps * n_seeds
    most = max(1, targets) * tests * max(n_seeds, max_seeds if max_seeds is not None else 2 * n_seeds)
    at_high = set_path(raw, resolve_path(raw, field_name), high)
    at_high["seed"] = 1
    est = estimate(Scenario.from_dict(at_high))
    p, local, remote = _parallelism(executor, workers)
    per_eval = min(p, n_seeds)  # the seeds of one buffer run together; buffers one after another
    wall, cpu = pooled_seconds(est)
    plan = plan_cost(runs, run_wall_seconds=wall, run_cpu_seconds=cpu,
                     run_memory_bytes=est.memory_bytes, parallelism=per_eval, local_workers=min(local, n_seeds),
                     remote=remote, detail=f"≈ {steps} buffers x {n_seeds:,} seed{'s' if n_seeds != 1 else ''}"
                                           + (f" x {targets} targets" if targets > 1 else "") + f", at most {most:,}")
    if check:
        check_plan(plan, what="this search", max_seconds=MAX_PLAN_S if max_time is None else max_time,
                   allow_over_memory=allow_over_memory)
    return plan


def search_buffer(scenario: Any, metric: str, target: float, *, seeds: int | Sequence[int] = 5,
                  max_seeds: int | None = None, confidence: float = 0.95, low: int = 1, high: int | None = None,
                  resolution: int = 1, field_name: str = "buffer", executor: Any = "local", workers: int | None = None,
                  scheduler: str | None = None, out: str | os.PathLike | None = None, max_tests: int | None = None,
                  say: Callable[[str], None] | None = None, max_time: float | None = None,
                  allow_over_memory: bool = False, _runner: _Runner | None = None,
                  _executor=None) -> SearchResult:
    """Bisection for the buffer (packets, at ``field_name``) where mean ``metric`` crosses ``target``.

    ``metric`` in :data:`METRICS` decides the kind (``min`` or ``max``) and the side of the limit.
    ``seeds``: replications per buffer (a count: seeds 1..N); an unclear verdict adds seeds up to
    ``max_seeds`` (default 2x) once. ``low``/``high``: the buffers (packets) to search between
    (``high`` default: 2 x BDP for a dumbbell). ``resolution``: stop when the interval is this
    narrow (packets). Results of every run are cached in ``out`` (a sweep directory) when given.
    Before anything runs the search is costed (:func:`plan_search`) and refused when it cannot
    finish in ``max_time`` seconds (default 24 h) or fit in memory.
    """
    from bufsize.experiments import store as _store
    from bufsize.experiments._task import stop_on_sigterm
    from bufsize.experiments.sweep import make_executor, parse_seeds

    if metric not in METRICS:
        raise BufsizeError(f"unknown metric {metric!r} (known: {', '.join(METRICS)})", argument="metric")
    if not 0.5 <= confidence < 1.0:
        raise BufsizeError(f"must be in [0.5, 1), got {confidence}", argument="--confidence")
    if not math.isfinite(target) or target < 0:
        raise BufsizeError(f"must be a finite number >= 0, got {target}", argument="target")
    if metric == "utilization" and not 0 < target <= 1:
        raise BufsizeError(f"must be in (0, 1], got {target}", argument="--target-utilization")
    resolution = _check_resolution(resolution)
    _check_max_seeds(max_seeds)
    if _runner is None:  # a search of its own: counted and costed here (search_min_buffer did it otherwise)
        plan_search(scenario, seeds=seeds, max_seeds=max_seeds, low=low, high=high, resolution=resolution,
                    field_name=field_name, executor=_executor.client if hasattr(_executor, "client") else (
                        executor if scheduler is None else None), workers=workers, max_tests=max_tests,
                    max_time=max_time, allow_over_memory=allow_over_memory, check=scheduler is None)
    seed_list = parse_seeds(seeds)
    if len(seed_list) < 2:
        raise BufsizeError("needs at least 2 seeds for a confidence statement", argument="--seeds")
    extra_to = max_seeds if max_seeds is not None else 2 * len(seed_list)
    more = [s for s in range(max(seed_list) + 1, max(seed_list) + 1 + max(0, extra_to - len(seed_list)))]
    say = say or (lambda text: None)
    owned = None
    runner = _runner
    st = None
    guard: Any = contextlib.nullcontext()
    if runner is None:
        owned = _executor or make_executor(executor, workers=workers, scheduler=scheduler)
        try:
            if scheduler is not None and hasattr(owned, "client"):  # the cluster's size is known now
                plan_search(scenario, seeds=seeds, max_seeds=max_seeds, low=low, high=high, resolution=resolution,
                            field_name=field_name, executor=owned.client, workers=workers, max_tests=max_tests,
                            max_time=max_time, allow_over_memory=allow_over_memory)
            if out is not None:
                st = _store.Store(out)
                st.prepare({"written_by": "bufsize search", "engine": _store.engine_version()})
            runner = _Runner(scenario, field_name, owned, st)
        except BaseException:
            if _executor is None:
                owned.close()
            raise
        if owned.name != "serial":
            guard = stop_on_sigterm()
    runs0 = runner.runs
    try:
        guard.__enter__()
        if high is None:
            high = _default_high(runner.raw)
        low, high = int(low), int(high)
        if low < 0 or high <= low:
            raise BufsizeError(f"needs 0 <= low < high, got {low}..{high}", argument="--range")
        kind = METRICS[metric]
        lower_limit = metric in LOWER_LIMIT
        if max_tests is None:
            max_tests = _default_tests(low, high, resolution)
        looks = 2 if more else 1
        alpha = (1.0 - confidence) / (max_tests * looks)
        result = SearchResult(metric, target, kind, confidence, low, high, alpha_per_test=alpha)
        evals: dict[int, Evaluation] = {}

        def evaluate(b: int) -> str:
            if b in evals:
                return evals[b].verdict
            if len(evals) >= max_tests:
                raise _Budget()
            vals = runner.values(b, seed_list, metric)
            v = _verdict(vals, target, lower_limit, alpha)
            if v[0] == "unclear" and more:
                vals = runner.values(b, seed_list + more, metric)
                v = _verdict(vals, target, lower_limit, alpha)
            level = "search"
            per = _verdict(vals, target, lower_limit, (1.0 - confidence) / 2.0)   # this buffer's own interval
            if v[0] == "unclear" and per[0] != "unclear":
                v, level = per, "buffer"
            ci = sorted(per[3:5])
            e = evals[b] = Evaluation(b, vals, *v, level=level, ci_low=ci[0], ci_high=ci[1])
            say(f"  {b:>7} pkt: mean {metric} {v[1]:.6g} (sd {v[2]:.2g}, n {len(vals)}; {_pct(confidence)} interval "
                f"[{ci[0]:.4g}, {ci[1]:.4g}]) -> {e.label}" + (" (at this buffer's level)" if level == "buffer" else ""))
            return v[0]

        # In "u" coordinates the meeting set is upward closed: u = B (min search) or u = -B (max search).
        sign = 1 if kind == "min" else -1
        u_lo, u_hi = sorted((sign * low, sign * high))

        def ev(u: int) -> str:
            return evaluate(sign * u)

        notes = []
        try:
            top = ev(u_hi)
            if top != "meets":
                end = "largest" if sign == 1 else "smallest"
                raise BufsizeError(f"the target is not {'met' if top == 'fails' else 'shown to be met'} at the "
                                   f"{end} buffer tried ({sign * u_hi} packets); widen --range", argument="--range")
            bottom = ev(u_lo)
            if bottom == "meets":
                b = sign * u_lo
                notes.append(f"already met at {b} packets, the {'smallest' if sign == 1 else 'largest'} buffer tried")
                L = H = u_lo
                fails_u, meets_u = None, u_lo
            else:
                fails_u, meets_u = (u_lo if bottom == "fails" else None), u_hi
                # unclear zone [zl, zr] (empty: zl > zr)
                zl, zr = (u_lo, u_lo) if bottom == "unclear" else (u_hi + 1, u_hi)
                left = u_lo if fails_u is not None else None  # proven failing u (left end)
                right = u_hi
                while True:
                    if zl > zr:  # plain bisection between left (fails) and right (meets)
                        if right - left <= resolution:
                            break
                        m = (left + right) // 2
                        v = ev(m)
                        if v == "meets":
                            right = m
                        elif v == "fails":
                            left = m
                        else:
                            zl = zr = m
                        continue
                    progressed = False
                    if left is not None and zl - left > resolution:  # narrow from the left
                        m = (left + zl) // 2
                        v = ev(m)
                        if v == "fails":
                            left = m
                        elif v == "meets":
                            right, zl, zr = m, right + 1, right  # zone was above a meeting point: drop it
                        else:
                            zl = m
                        progressed = True
                    if zl <= zr and right - zr > resolution:  # narrow from the right
                        m = (zr + right) // 2
                        v = ev(m)
                        if v == "meets":
                            right = m
                        elif v == "fails":
                            left, zl, zr = m, right + 1, right
                        else:
                            zr = m
                        progressed = True
                    if not progressed:
                        break
                fails_u, meets_u = left, right
                L = (left + 1) if left is not None else u_lo
                H = right
        except _Budget:
            notes.append(f"stopped after {max_tests} buffers (the test budget)")
            proven_f = [u for u, e in ((sign * b, e) for b, e in evals.items()) if e.verdict == "fails"]
            proven_m = [u for u, e in ((sign * b, e) for b, e in evals.items()) if e.verdict == "meets"]
            H = min(proven_m)
            fl = [u for u in proven_f if u < H]
            L = (max(fl) + 1) if fl else u_lo
        b1, b2 = sorted((sign * L, sign * H))
        result.low, result.high = b1, b2
        result.evaluations = list(evals.values())
        result.runs = runner.runs - runs0
        op = ">=" if lower_limit else "<="
        per_buffer = sorted(b for b, e in evals.items() if e.level == "buffer")
        if per_buffer:
            notes.append("judged on their own " + _pct(confidence) + " intervals (not search-wide): "
                         + ", ".join(f"{b} pkt {evals[b].label} ([{evals[b].ci_low:.4g}, {evals[b].ci_high:.4g}])"
                                     for b in per_buffer))
        unclear = sorted(b for b, e in evals.items() if e.verdict == "unclear")
        if unclear:
            notes.append("add seeds at " + ", ".join(
                f"{b} pkt (the {_pct(confidence)} interval [{evals[b].ci_low:.4g}, {evals[b].ci_high:.4g}] of "
                f"mean {metric} straddles {op} {target:g} with {len(evals[b].values)} seeds)" for b in unclear)
                + ": more seeds (--seeds, --max-seeds) tell these apart")
        from bufsize.experiments.outliers import outlier_runs

        for b in sorted(evals):
            runs = [dict(rec["summary"], seed=sd) for (bb, sd), rec in sorted(getattr(runner, "cache", {}).items())
                    if bb == b and isinstance(rec, dict) and rec.get("status") == "ok" and "summary" in rec]
            notes += [f"an outlier run at {b} pkt, {o['text']} (in the mean; rerun it with --seed {o['seed']})"
                      for o in outlier_runs(runs)]
        result.note = "; ".join(notes)
        return result
    finally:
        guard.__exit__(None, None, None)
        if owned is not None and _executor is None:
            owned.close()
        if st is not None:
            st.close()


class _Budget(Exception):
    pass


def _default_high(raw: Mapping[str, Any]) -> int:
    from bufsize.experiments.sweep import _describe
    from bufsize.scenario import Scenario

    d = _describe(Scenario.from_dict(raw))
    bdp = d.get("bdp_packets")
    if bdp is None or not math.isfinite(bdp):
        raise BufsizeError("give the buffers to search between (not a dumbbell: no BDP to start from)",
                           argument="--range")
    return max(4, int(math.ceil(2.0 * bdp)))


def search_min_buffer(scenario: Any, *, target_utilization: float | None = None, max_loss: float | None = None,
                      max_delay: float | None = None, delay_metric: str = "queue_delay_mean_s",
                      confidence: float = 0.95, **kw) -> dict[str, SearchResult]:
    """One search per given target, the confidence shared among them (Bonferroni).

    Returns ``{"utilization": ..., "loss_rate": ..., delay_metric: ...}`` for the targets given.
    Utilization and loss give lower limits on B (the smallest B meeting them); a delay target
    gives an upper limit (the largest B meeting it).
    """
    from bufsize.experiments import store as _store
    from bufsize.experiments._task import stop_on_sigterm
    from bufsize.experiments.sweep import make_executor

    targets = [(m, t) for m, t in (("utilization", target_utilization), ("loss_rate", max_loss),
                                   (delay_metric, max_delay)) if t is not None]
    if not targets:
        raise BufsizeError("give a target: --target-utilization, --max-loss or --max-delay", argument="target")
    each = 1.0 - (1.0 - confidence) / len(targets)
    out = kw.pop("out", None)
    field_name = kw.pop("field_name", "buffer")
    max_time, allow_over_memory = kw.pop("max_time", None), kw.pop("allow_over_memory", False)
    kind, workers, scheduler = kw.pop("executor", "local"), kw.pop("workers", None), kw.pop("scheduler", None)
    cost_kw = {k: kw[k] for k in ("seeds", "max_seeds", "low", "high", "resolution", "max_tests") if k in kw}
    # counted and costed before anything starts (with a scheduler, once its size is known)
    plan_search(scenario, targets=len(targets), field_name=field_name, executor=kind if scheduler is None else None,
                workers=workers, max_time=max_time, allow_over_memory=allow_over_memory, check=scheduler is None,
                **cost_kw)
    executor = make_executor(kind, workers=workers, scheduler=scheduler)
    st = None
    try:
        if scheduler is not None:
            plan_search(scenario, targets=len(targets), field_name=field_name, executor=executor.client,
                        workers=workers, max_time=max_time, allow_over_memory=allow_over_memory, **cost_kw)
        if out is not None:
            st = _store.Store(out)
            st.prepare({"written_by": "bufsize search", "engine": _store.engine_version()})
        runner = _Runner(scenario, field_name, executor, st)
        results = {}
        with stop_on_sigterm() if executor.name != "serial" else contextlib.nullcontext():
            for metric, target in targets:
                results[metric] = search_buffer(scenario, metric, float(target), confidence=each, _runner=runner,
                                                **kw)
        return results
    finally:
        executor.close()
        if st is not None:
            st.close()


# ----------------------------------------------------------------------------- 000's optimal buffer

@dataclass
class OptimalResult:
    """The buffer maximizing mean per-flow throughput over a grid, with what the data can tell apart."""

    metric: str
    confidence: float
    table: Any  # per buffer: mean, sd, n, p_value (vs the best), indistinguishable
    best: int
    smallest_equivalent: int
    fit: Any = None  # FitResult (000's forms fitted to the same runs) or None
    fit_error: str | None = None

    def statement(self) -> str:
        s = (f"largest mean {self.metric}: {self.best} pkt; smallest buffer not significantly worse "
             f"(one-sided Welch t, Bonferroni, {_pct(self.confidence)}): {self.smallest_equivalent} pkt")
        return s

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "confidence": self.confidence, "best_packets": self.best,
                "smallest_equivalent_packets": self.smallest_equivalent,
                "buffers": self.table.to_dict(orient="records"),
                "fit": self.fit.to_dict() if self.fit is not None else None, "fit_error": self.fit_error}


def search_optimal_buffer(scenario: Any, buffers: Sequence[int], *, seeds: int | Sequence[int] = 5,
                          metric: str = "goodput_bps_mean", confidence: float = 0.95,
                          flow_segments: float | None = None, **sweep_kw) -> OptimalResult:
    """000's question on the simulator: which buffer maximizes the mean per-flow throughput?

    Runs a sweep over ``buffers`` (packets) and ``seeds``. The *empirical* answer is for the
    scenario's own flows (long-lived: 000's L case): the buffer with the largest mean ``metric``,
    and the smallest buffer whose mean is not significantly below it (one-sided Welch t tests
    against the best, Bonferroni over the buffers). The *model* answers -- 000's B̂ for L flows
    (eq. (11) or the EX rule) and, with ``flow_segments``, for S flows of that size (eq. (13) or
    (17)-(18)) -- come from fitting the PL/EX loss and linear delay forms to the same runs
    (:mod:`bufsize.experiments.fit`); the engine has no short-flow arrival process, so the S case
    is model-only.
    """
    import pandas as pd
    from scipy import stats

    from bufsize.experiments.fit import fit_sweep
    from bufsize.experiments.sweep import sweep

    bs = sorted({int(b) for b in buffers})
    if len(bs) < 2:
        raise BufsizeError("needs at least two buffers", argument="--range")
    # checked before any run: at 1.5 the threshold went negative and every buffer was 'not below the best'
    if not 0.5 <= confidence < 1.0:
        raise BufsizeError(f"must be in [0.5, 1), got {confidence}", argument="--confidence")
    table = sweep(scenario, {"buffer": bs}, seeds=seeds, **sweep_kw)
    ok = table[table["status"] == "ok"]
    if metric not in ok.columns:
        raise BufsizeError(f"no metric {metric!r} in the results", argument="--metric")
    g = ok.groupby("buffer")[metric].agg(["mean", "std", "count"]).reset_index()
    if (g["count"] < 2).any():
        raise BufsizeError("needs at least 2 finished seeds per buffer", argument="--seeds")
    best_i = int(g["mean"].idxmax())
    best = g.loc[best_i]
    alpha = (1.0 - confidence) / max(1, len(g) - 1)
    pvals = []
    for _, row in g.iterrows():
        if row["buffer"] == best["buffer"]:
            pvals.append(1.0)
            continue
        x = ok[ok["buffer"] == row["buffer"]][metric].to_numpy(float)
        y = ok[ok["buffer"] == best["buffer"]][metric].to_numpy(float)
        if x.std() == 0 and y.std() == 0:
            pvals.append(0.0 if x.mean() < y.mean() else 1.0)
            continue
        pvals.append(float(stats.ttest_ind(x, y, equal_var=False, alternative="less").pvalue))
    g["p_value"] = pvals
    g["indistinguishable"] = g["p_value"] >= alpha
    smallest = int(g[g["indistinguishable"]]["buffer"].min())
    res = OptimalResult(metric, confidence, pd.DataFrame(g), int(best["buffer"]), smallest)
    try:
        res.fit = fit_sweep(table, loss="auto", flow_segments=flow_segments)
    except BufsizeError as exc:
        res.fit_error = str(exc)
    return res


# ----------------------------------------------------------------------------- coarse-to-fine maximum

@dataclass
class MaxSearch:
    """The smallest buffer maximizing the mean over seeds of one noisy objective (e.g. a median
    per-flow throughput), found coarse-to-fine, with a Student-t interval over the per-seed optima."""

    objective: str
    table: Any  # per buffer: mean (over the seeds), n, value_seed<S> for each seed
    best: float  # smallest buffer with the largest mean (NaN when no value is finite)
    per_seed: list[float]  # each seed's own smallest argmax over the same buffers
    seed_mean: float
    ci_half: float  # half-width of the t interval of the per-seed optima (NaN with < 2 seeds)
    confidence: float
    coarse: list[int]
    fine: list[int]
    first_best: float  # the optimum of the coarse + fine stages, before any confirmation
    confirm: dict[str, Any] | None = None  # {"buffers", "seeds", "table"} of the confirmation stage

    def to_dict(self) -> dict[str, Any]:
        return {"objective": self.objective, "best_packets": self.best, "per_seed": self.per_seed,
                "seed_mean": self.seed_mean, "ci_half": self.ci_half, "confidence": self.confidence,
                "coarse": self.coarse, "fine": self.fine, "first_best": self.first_best,
                "buffers": self.table.to_dict(orient="records")}


def smallest_argmax(buffers: Sequence[float], values: Sequence[float]) -> float:
    """The smallest buffer holding the largest value (NaN values ignored; NaN when none is finite)."""
    import numpy as np

    b = np.asarray(buffers, float)
    v = np.asarray(values, float)
    ok = np.isfinite(v)
    if not ok.any():
        return math.nan
    return float(b[ok & (v == v[ok].max())].min())


def refine_grid(coarse: Sequence[int], best: float, points: int) -> list[int]:
    """Integer buffers strictly between the coarse neighbours of ``best`` (``points`` evenly spaced
    on each side), not already in ``coarse``; empty when ``best`` is not a coarse buffer."""
    import numpy as np

    c = sorted({int(x) for x in coarse})
    if not math.isfinite(best) or int(best) not in c or points < 1:
        return []
    i = c.index(int(best))
    lo = c[i - 1] if i > 0 else c[i]
    hi = c[i + 1] if i + 1 < len(c) else c[i]
    out = set()
    for a, z in ((lo, c[i]), (c[i], hi)):
        for x in np.linspace(a, z, points + 2)[1:-1]:
            out.add(int(round(x)))
    return sorted(x for x in out if x not in c and lo < x < hi)


def seed_optimum(values: Mapping[tuple[int, int], float], seeds: Sequence[int], confidence: float = 0.95):
    """(table, best, per_seed, seed_mean, ci_half) from ``{(buffer, seed): value}``: the pooled
    optimum is the smallest argmax of the mean over ``seeds``; the interval is Student's t over the
    per-seed optima."""
    import numpy as np
    import pandas as pd
    from scipy import stats

    bs = sorted({b for b, s in values if s in seeds})
    rows = []
    for b in bs:
        v = [values.get((b, s), math.nan) for s in seeds]
        fin = [x for x in v if math.isfinite(x)]
        rows.append({"buffer_packets": b, "mean": float(np.mean(fin)) if fin else math.nan, "n": len(fin),
                     **{f"value_seed{s}": x for s, x in zip(seeds, v)}})
    table = pd.DataFrame(rows, columns=["buffer_packets", "mean", "n", *[f"value_seed{s}" for s in seeds]])
    best = smallest_argmax(table.buffer_packets, table["mean"])
    per_seed = [smallest_argmax(table.buffer_packets, table[f"value_seed{s}"]) for s in seeds]
    ps = np.array([x for x in per_seed if math.isfinite(x)])
    if len(ps) >= 2:
        half = float(stats.t.ppf(0.5 + confidence / 2, len(ps) - 1) * ps.std(ddof=1) / math.sqrt(len(ps)))
        mean = float(ps.mean())
    else:
        half, mean = math.nan, (float(ps[0]) if len(ps) else math.nan)
    return table, best, per_seed, mean, half


def search_max_buffer(measure: Callable[[list[tuple[int, int]]], Mapping[tuple[int, int], Mapping[str, float]]],
                      coarse: Sequence[int], *, objectives: Sequence[str] = ("value",), seeds: Sequence[int] = (1,),
                      fine_points: int = 3, confirm_seeds: Sequence[int] = (), confirm_buffers: int = 5,
                      confidence: float = 0.95) -> dict[str, MaxSearch]:
    """Coarse-to-fine search of the smallest buffer maximizing each objective's mean over seeds.

    ``measure(points)`` evaluates ``[(buffer, seed), ...]`` and returns ``{(buffer, seed): {objective:
    value}}``; NaN marks a value that could not be measured. Several objectives measured on the same
    runs (e.g. two flow classes) are searched together: each stage asks for all their points in one
    call, so the caller can run them in parallel and reuse shared runs.

    1. coarse: every ``coarse`` buffer × ``seeds``;
    2. fine: ``fine_points`` integer buffers on each side of each objective's coarse optimum, between
       its coarse neighbours (:func:`refine_grid`);
    3. optional confirmation: ``confirm_seeds`` at ``confirm_buffers`` buffers around each
       objective's optimum (every other evaluated buffer, centred on it); the optimum and its
       interval are then taken over those buffers and all the seeds.

    The optimum is the smallest argmax of the mean; the interval is Student's t over the per-seed
    optima (:func:`seed_optimum`), NaN with fewer than two seeds.
    """
    cs = sorted({int(b) for b in coarse})
    if len(cs) < 2:
        raise BufsizeError("needs at least two buffers", argument="coarse")
    seeds = [int(s) for s in seeds]
    if not seeds:
        raise BufsizeError("needs at least one seed", argument="seeds")
    if not objectives:
        raise BufsizeError("needs at least one objective", argument="objectives")
    values: dict[tuple[int, int], dict[str, float]] = {}

    def ask(points) -> None:
        todo = sorted({p for p in points if p not in values})
        if todo:
            got = measure(todo)
            for p in todo:
                values[p] = dict(got[p])

    def of(name: str, sds) -> dict[tuple[int, int], float]:
        return {p: float(v.get(name, math.nan)) for p, v in values.items() if p[1] in sds}

    ask([(b, s) for b in cs for s in seeds])
    fine = {}
    for name in objectives:
        _, best, *_ = seed_optimum(of(name, seeds), seeds, confidence)
        fine[name] = refine_grid(cs, best, fine_points)
    ask([(b, s) for name in objectives for b in fine[name] for s in seeds])
    out = {}
    for name in objectives:
        grid = set(cs) | set(fine[name])
        vals = {p: v for p, v in of(name, seeds).items() if p[0] in grid}
        table, best, per_seed, mean, half = seed_optimum(vals, seeds, confidence)
        out[name] = MaxSearch(name, table, best, per_seed, mean, half, confidence, cs, fine[name], best)
    extra = [int(s) for s in confirm_seeds if int(s) not in seeds]
    if extra:
        picks = {}
        for name, r in out.items():
            if not math.isfinite(r.best):
                continue
            near = sorted(set(cs) | set(fine[name]))
            i = near.index(int(r.best))
            half_n = max(0, confirm_buffers // 2)
            picks[name] = sorted({near[j] for j in range(i - 2 * half_n, i + 2 * half_n + 1, 2) if 0 <= j < len(near)})
        ask([(b, s) for name, pick in picks.items() for b in pick for s in extra])
        all_seeds = seeds + extra
        for name, pick in picks.items():
            vals = {p: v for p, v in of(name, all_seeds).items() if p[0] in pick}
            table, best, per_seed, mean, half = seed_optimum(vals, all_seeds, confidence)
            r = out[name]
            r.confirm = {"buffers": pick, "seeds": all_seeds, "table": table}
            r.best, r.per_seed, r.seed_mean, r.ci_half = best, per_seed, mean, half
    return out
