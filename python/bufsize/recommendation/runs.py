"""One run of a verification: a scenario (JSON, perhaps with a stop rule) in, a plain record out.

The record keeps the summary fields a verdict reads (:data:`RUN_FIELDS`), the short flows'
completion times, how long the run measured and whether it stopped once settled. Local pool
workers, Dask workers and the copies of a shared warm-up (:mod:`bufsize.recommendation.warmstart`)
all run this one function, so a run gives the same record wherever it ran.
"""

from __future__ import annotations

import json
import math
import time
from typing import Any

from bufsize.experiments.batchmeans import StopRule

#: The fields a run keeps (its summary's, :func:`_task`); a cached run missing one is run again
RUN_FIELDS = ("utilization", "loss_rate", "queue_delay_mean_s", "queue_delay_p99_s", "timeouts",
              "bottleneck_packets", "events", "aqm_drops", "overflow_drops", "marks")


def _task(scenario_json: str, sim: Any = None) -> dict[str, Any]:
    """One run (in a worker): the summary and the short flows' completion times. ``sim``: the
    scenario's engine run already under way, stopped at its warm buffer's end (a copy of a shared
    warm-up, :mod:`bufsize.recommendation.warmstart`), whose buffer this sets and runs on."""
    t0 = time.perf_counter()
    try:
        from bufsize.scenario import Scenario
        from bufsize.simulate import SimResult, simulate

        d = json.loads(scenario_json)
        rule = d.pop("_stop", None)
        stopped: dict[str, Any] = {}
        sc = Scenario.from_dict(d)
        if sim is not None:
            sim.set_buffer(int(sc.to_dict()["dumbbell"]["buffer"]["limit_packets"]))
        if rule is None and sim is None:
            r = simulate(sc, progress=False)
        elif rule is None:
            r = SimResult(sc, json.loads(sim.finish()), time.perf_counter() - t0)
        else:
            r, stopped = _run_settled(sc, StopRule.from_dict(rule), sim)
        s = r.summary
        out = {k: s.get(k) for k in RUN_FIELDS}
        fct = math.nan
        if len(r.transfers):
            # transfers that start in the measurement window, early enough to finish: the last fifth
            # of the window is left for them, so the mean is not biased towards the short ones that
            # happened to finish before the run ended (unfinished ones are counted, not averaged)
            t = r.transfers
            w0, w1 = float(r.scenario.warmup_s), float(r.scenario.duration_s)
            t = t[(t["start_s"] >= w0) & (t["start_s"] <= w1 - 0.2 * (w1 - w0))]
            done = t[t["completed"].astype(bool)]
            if len(done):
                fct = float(done["fct_s"].mean())
            out["short_completed"] = int(len(done))
            out["short_started"] = int(len(t))
        out["fct_mean_s"] = fct
        out["measured_s"] = float(r.scenario.duration_s) - float(r.scenario.warmup_s)
        out["simulated_s"] = float(r.scenario.duration_s)
        if stopped:
            out["stopped"] = stopped["stopped"]
        return {"status": "ok", "summary": out, "wall_seconds": time.perf_counter() - t0}
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - reported as the run's failure
        return {"status": "failed", "error": f"{type(exc).__name__}: {exc}", "summary": {},
                "wall_seconds": time.perf_counter() - t0}


def _run_settled(sc, rule, sim: Any = None):
    """One run that may stop once its counters have settled (:func:`bufsize.experiments.batchmeans.run_settled`):
    the result of the window it measured (the scenario's end moved to where it stopped) and what was decided.
    ``sim``: the scenario's run already under way (see :func:`_task`)."""
    from bufsize.experiments.batchmeans import run_settled
    from bufsize.scenario import Scenario
    from bufsize.simulate import SimResult, _engine

    t0 = time.perf_counter()
    if sim is None:
        sim = _engine().Simulation(sc.to_json())
    info = run_settled(sim, rule, int(round(float(sc.warmup_s) * 1e9)))
    text = sim.finish()
    if info["stopped"] == "settled":
        sc = Scenario.from_dict(dict(sc.to_dict(), duration_s=info["end_s"]))
    return SimResult(sc, json.loads(text), time.perf_counter() - t0), info
