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
    warm-up, :mod:`bufsize.recommendation.warmstart`), whose buffer this sets and runs on.

    It reads the engine's results as they come (plain dicts) rather than through
    :class:`bufsize.simulate.SimResult`: its DataFrames are not needed here, and pandas' import is
    about 0.4 s of CPU in every worker process a verification starts."""
    t0 = time.perf_counter()
    try:
        from bufsize.scenario import Scenario

        d = json.loads(scenario_json)
        rule = d.pop("_stop", None)
        stopped: dict[str, Any] = {}
        sc = Scenario.from_dict(d)
        if sim is not None:
            sim.set_buffer(int(sc.to_dict()["dumbbell"]["buffer"]["limit_packets"]))
        w0, w1 = float(sc.warmup_s), float(sc.duration_s)
        if rule is None:
            raw = _run_full(sc, sim)
        else:
            raw, w1, stopped = _run_settled(sc, StopRule.from_dict(rule), sim)
        s = raw.get("summary") or {}
        out = {k: s.get(k) for k in RUN_FIELDS}
        out["fct_mean_s"] = math.nan
        if raw.get("transfers"):
            out.update(_short_flows(raw["transfers"], w0, w1))
        out["measured_s"] = w1 - w0
        out["simulated_s"] = w1
        if stopped:
            out["stopped"] = stopped["stopped"]
        return {"status": "ok", "summary": out, "wall_seconds": time.perf_counter() - t0}
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - reported as the run's failure
        return {"status": "failed", "error": f"{type(exc).__name__}: {exc}", "summary": {},
                "wall_seconds": time.perf_counter() - t0}


def _short_flows(transfers: list[dict[str, Any]], w0: float, w1: float) -> dict[str, Any]:
    """The short flows' mean completion time over the transfers that start in the measurement
    window early enough to finish: the last fifth of the window is left for them, so the mean is not
    biased towards the short ones that happened to finish before the run ended (unfinished ones are
    counted, not averaged)."""
    late = w1 - 0.2 * (w1 - w0)
    started = [t for t in transfers if t.get("start_s") is not None and w0 <= float(t["start_s"]) <= late]
    fcts = [float(t["fct_s"]) for t in started if t.get("completed") and t.get("fct_s") is not None]
    return {"fct_mean_s": math.fsum(fcts) / len(fcts) if fcts else math.nan,
            "short_completed": len(fcts), "short_started": len(started)}


def _run_full(sc, sim: Any = None) -> dict[str, Any]:
    """The scenario run to its end (``sim``: already under way), as the engine's results. A fresh run
    is costed first as :func:`bufsize.simulate.simulate` costs it (one that cannot fit fails)."""
    from bufsize import cost
    from bufsize.simulate import _engine

    if sim is None:
        cost.check_fits(cost.estimate(sc))
        sim = _engine().Simulation(sc.to_json())
    return json.loads(sim.finish())


def _run_settled(sc, rule, sim: Any = None):
    """One run that may stop once its counters have settled (:func:`bufsize.experiments.batchmeans.run_settled`):
    the engine's results of the window it measured, where that window ended (simulated seconds: the
    scenario's end, or where it stopped) and what was decided. ``sim``: the scenario's run already under
    way (see :func:`_task`)."""
    from bufsize.experiments.batchmeans import run_settled
    from bufsize.simulate import _engine

    if sim is None:
        sim = _engine().Simulation(sc.to_json())
    info = run_settled(sim, rule, int(round(float(sc.warmup_s) * 1e9)))
    raw = json.loads(sim.finish())
    end = float(info["end_s"]) if info["stopped"] == "settled" else float(sc.duration_s)
    return raw, end, info
