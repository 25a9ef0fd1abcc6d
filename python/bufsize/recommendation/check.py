"""The models' pick checked on the simulator, where the search does not fit the interactive budget.

The verified answer (:mod:`bufsize.recommendation.verification`) searches for the smallest size that
meets the goals: about ten sizes of two to six seeds each. On a large link that is minutes, more than
the 30-s budget of a default ``bufsize recommend``, which then gave the models' pick unsimulated. Judging
one size is a fraction of a search, so where the search does not fit and one size does, the pick is
simulated and judged as the search judges a size (the same scenario, seeds, looks and one-sided bounds;
its run length and stop rule the pick's own): whether it *meets* every goal, *fails* one, or is
*unclear* after six seeds. That is a check of the answer, not the verified answer: a pick that meets
may be larger than needed, and one that fails says only that more is needed (``--verify`` finds how
much); the output says which it is.
"""

from __future__ import annotations

import math
import os
import time
from typing import Any, Callable

from bufsize.recommendation import verification as V
from bufsize.recommendation.runlength import MAX_MEASURE_S, run_length, stop_rule


def worst_cost(rec, size: float, *, workers: int | None = None, max_measure_s: float = MAX_MEASURE_S) -> dict[str, Any]:
    """What judging ``size`` alone costs at most on an idle machine: every look's seeds (2, then 1,
    then 3: six runs where the size stays unclear) in rounds over the workers, every run its full
    length (a pick near its goal neither settles early nor is decided by two seeds: 10 Gb/s with 2 000
    CUBIC/BBR flows took six full-length runs), the workers' start-up once (bufsize.cost's estimate of a
    run). The worst case, so that a default ``recommend`` stays within its budget. ``wall_s`` None when
    the estimator is missing."""
    inp = rec.input
    b = V._whole(size)
    run = run_length(inp, b, max_measure_s=max_measure_s)
    w = int(workers) if workers else (os.cpu_count() or 1)
    looks = [V.FIRST_SEEDS, len(V.SEEDS) - V.FIRST_SEEDS, len(V.EXTRA_SEEDS)]   # the batches of _Search.evaluate
    out: dict[str, Any] = {"runs": sum(looks), "workers": w, "run": run.to_dict(), "wall_s": None}
    try:
        from bufsize.cost import START_SECONDS, estimate, pooled_seconds
    except ImportError:   # pragma: no cover - the estimator is part of the package
        return out
    est = estimate(V.build_scenario(inp, b, seed=1, warmup_s=run.warmup_s, duration_s=run.duration_s))
    out["wall_s"] = START_SECONDS + sum(math.ceil(n / w) for n in looks) * pooled_seconds(est)[1]
    return out


def check_size(rec, size: float, *, model: str | None = None, workers: int | None = None,
               scheduler: str | None = None, say: Callable[[str], None] | None = None,
               runner: Any = None, max_measure_s: float = MAX_MEASURE_S) -> dict[str, Any]:
    """Simulate ``size`` packets (a model's, ``model`` its id) on the described traffic and judge it
    against every goal over the search's seeds and looks. Returns the size's summary (the means over
    seeds and their intervals, each goal's verdict under ``goals``, ``verdict``, ``misses``) with
    ``model``, the run length used, ``runs``, ``cpu_seconds``, ``wall_seconds`` and ``goals_judged``
    (the goals themselves)."""
    say = say or (lambda _t: None)
    inp = rec.input
    V._require_flows(inp)
    goals = V.goals_of(inp)
    b = V._whole(size)
    run = run_length(inp, b, max_measure_s=max_measure_s)
    t0 = time.perf_counter()
    own = runner is None
    runner = runner or V.Runner(workers=workers, scheduler=scheduler)
    srch = V._Search(inp, run, runner, say, seeds=V.SEEDS, extra=V.EXTRA_SEEDS, stop=stop_rule(inp, run, goals))
    srch.expected_runs = int(math.ceil(V.RUNS_PER_SIZE))
    try:
        say(f"checking the models' pick on the simulator: {b:,} packets ({run.duration_s:.3g} s simulated per run, "
            f"{len(V.SEEDS)} seeds)")
        srch.evaluate([b], V._lower_goals(goals))
        r = srch.result(b, goals)
    except KeyboardInterrupt:
        raise KeyboardInterrupt(V.interrupted_text(srch.decided, runner)) from None
    finally:
        if own:
            runner.close()
    out = V._size_summary(r)
    out.update(model=model, buffer_bytes=b * inp.packet_bytes, full_delay_s=b / inp.capacity_pps,
               run=run.to_dict(), runs=runner.runs, cached_runs=runner.cache.hits, cpu_seconds=runner.cpu_seconds,
               wall_seconds=time.perf_counter() - t0, goals_judged=goals.to_dict())
    return out
