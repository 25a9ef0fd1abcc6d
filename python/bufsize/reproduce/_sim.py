"""The one place where reproduction figures run simulations.

Every simulation figure hands its list of scenarios to :func:`run_scenarios`; nothing else in this
package calls the engine. Today the runs go serially, over a local process pool (``--workers N``)
or over a Dask cluster (``--scheduler``); when the experiments layer (``bufsize.experiments``,
resumable sweeps) lands, only this function changes.

Each run returns a plain dict (picklable, so it crosses process and Dask boundaries): the engine's
summary without the machine-dependent ``wall_seconds``, plus the tables asked for as DataFrames.
"""

from __future__ import annotations

from typing import Any, Iterable


def _one(scenario: dict[str, Any], tables: tuple[str, ...]) -> dict[str, Any]:
    from bufsize.scenario import Scenario
    from bufsize.simulate import simulate

    res = simulate(Scenario.from_dict(scenario), progress=False)
    summary = dict(res.summary)
    summary.pop("wall_seconds", None)
    out: dict[str, Any] = {"summary": summary, "wall_seconds": res.summary.get("wall_seconds")}
    for name in tables:
        out[name] = getattr(res, name)
    return out


def run_scenarios(scenarios: Iterable[Any], ctx, *, tables: Iterable[str] = ()) -> list[dict[str, Any]]:
    """Run every scenario (``Scenario`` or engine dict) and return one result dict per scenario, in order.

    ``tables``: names of :class:`bufsize.simulate.SimResult` tables to keep (``"queue_trace"``,
    ``"cwnd_traces"``, ``"flows"``, ``"queue_histogram"``, ``"cwnd_sum_histogram"``, ``"links"``).
    """
    dicts = [s.to_dict() if hasattr(s, "to_dict") else dict(s) for s in scenarios]
    names = tuple(tables)
    client = getattr(ctx, "client", None)
    if client is not None:
        futures = client.map(_one, dicts, [names] * len(dicts), pure=False)
        return client.gather(futures)
    if ctx.workers > 1 and len(dicts) > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=min(ctx.workers, len(dicts))) as pool:
            return list(pool.map(_one, dicts, [names] * len(dicts)))
    return [_one(d, names) for d in dicts]
