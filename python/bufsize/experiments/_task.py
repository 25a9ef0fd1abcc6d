"""One simulation as one deterministic task: scenario JSON in, a plain record out.

This is the only function executors ship to workers (a process of the local pool or a Dask
worker). It needs nothing but the installed package; its argument and result are plain data
(strings, numbers, lists, dicts), so they cross any process or network boundary.
"""

from __future__ import annotations

import json
import time
from typing import Any


def run_point(scenario_json: str) -> dict[str, Any]:
    """Run the scenario; never raises for a failing simulation.

    Returns ``{"status": "ok"|"failed", "error": str|None, "summary": {...}, "flows": [...],
    "wall_seconds": float}``. ``summary`` is the engine's summary without its wall time (which
    depends on the machine and is kept apart in ``wall_seconds``).
    """
    t0 = time.perf_counter()
    try:
        from bufsize.scenario import Scenario
        from bufsize.simulate import simulate

        result = simulate(Scenario.from_dict(json.loads(scenario_json)), progress=False)
        summary = dict(result.summary)
        summary.pop("wall_seconds", None)
        flows = json.loads(result.flows.to_json(orient="records"))
        return {"status": "ok", "error": None, "summary": summary, "flows": flows,
                "wall_seconds": time.perf_counter() - t0}
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # noqa: BLE001 - a failing point is a result, recorded with its error
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        return {"status": "failed", "error": f"{type(exc).__name__}: {text}" if text else type(exc).__name__,
                "summary": {}, "flows": [], "wall_seconds": time.perf_counter() - t0}
