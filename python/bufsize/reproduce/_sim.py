"""The one place where reproduction figures run simulations.

Every simulation figure hands its list of scenarios to :func:`run_scenarios`; nothing else in this
package calls the engine.

* Runs that need only the summary (and the per-flow table) go through the experiments layer
  (:mod:`bufsize.experiments`): its executors (serial, local process pool for ``--workers N``,
  Dask for ``--scheduler``), its task function and its point store. With ``ctx.store_dir`` set (the
  runner sets ``DIR/.sweeps/ID``), every finished run is saved under its content hash, so an
  interrupted figure resumes from the runs it already has.
* Runs that need traces (queue, cwnd) are few and short; they go serially, over a local process
  pool or over Dask directly, because the experiments layer's task returns summaries only.

Each run returns a plain dict: the engine's summary without the machine-dependent
``wall_seconds``, plus the tables asked for as DataFrames.
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
    from bufsize.reproduce import _stack

    # a raw dict without a profile gets the reproduction's stack (a Scenario carries its own)
    dicts = [s.to_dict() if hasattr(s, "to_dict") else _stack.scenario(s) for s in scenarios]
    names = tuple(tables)
    if set(names) <= {"flows"}:
        return _via_experiments(dicts, ctx, names)
    check_cost(dicts, ctx)
    client = getattr(ctx, "client", None)
    if client is not None:
        futures = client.map(_one, dicts, [names] * len(dicts), pure=False)
        return client.gather(futures)
    if ctx.workers > 1 and len(dicts) > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=min(ctx.workers, len(dicts))) as pool:
            return list(pool.map(_one, dicts, [names] * len(dicts)))
    return [_one(d, names) for d in dicts]


def check_cost(dicts: list[dict[str, Any]], ctx):
    """Cost a batch before it starts (:mod:`bufsize.cost`: each run's estimate; the batch over the
    workers) and refuse, in one line with the count and the estimate, a batch that cannot fit in
    memory or finish within ``ctx.max_time`` (a ``--full`` figure meant for a cluster, run on a
    laptop, stops here instead of running for days). Returns the batch's
    :class:`bufsize.cost.PlanEstimate` (None for an empty batch)."""
    if not dicts:
        return None
    from bufsize.cost import MAX_PLAN_S, check_fits, check_plan, estimate, plan_cost, pooled_seconds

    ests = [estimate(d) for d in dicts]
    check_fits(max(ests, key=lambda e: e.memory_bytes), flag="--allow-over-memory (not offered by reproduce)")
    client = getattr(ctx, "client", None)
    if client is not None:
        try:
            p = max(1, sum(client.nthreads().values()))
        except Exception:  # noqa: BLE001 - an unknown cluster size: assume its size is the workers asked
            p = max(1, int(ctx.workers))
    else:
        p = max(1, int(ctx.workers))
    remote = client is not None
    n = len(ests)
    pooled = [pooled_seconds(e) for e in ests]
    plan = plan_cost(n, run_wall_seconds=sum(w for w, _ in pooled) / n, run_cpu_seconds=sum(c for _, c in pooled) / n,
                     run_memory_bytes=max(e.memory_bytes for e in ests), parallelism=p,
                     local_workers=0 if remote else min(p, n), remote=remote)
    limit = getattr(ctx, "max_time", MAX_PLAN_S)
    check_plan(plan, what="this figure's batch of simulations", max_seconds=limit)
    return plan


def _via_experiments(dicts: list[dict[str, Any]], ctx, names: tuple[str, ...]) -> list[dict[str, Any]]:
    import pandas as pd

    from bufsize.experiments import store as st
    from bufsize.experiments.sweep import Point, make_executor
    from bufsize.scenario import Scenario

    engine = st.engine_version()
    store = None
    store_dir = getattr(ctx, "store_dir", None)
    if store_dir is not None:
        store = st.Store(store_dir)
        store.prepare({"written_by": "bufsize reproduce", "points": len(dicts)})
    try:
        results: list[dict[str, Any] | None] = [None] * len(dicts)
        todo = []
        for i, d in enumerate(dicts):
            si = Scenario.from_dict(d).to_dict()
            key = st.point_key(si, si["seed"], engine)
            rec = store.load(key) if store is not None else None
            if rec is not None and rec.get("status") == "ok":
                results[i] = rec
            else:
                todo.append(Point(index=i, seed=si["seed"], labels={}, key=key, scenario_json=st.canonical_json(si)))
        if todo:
            check_cost([dicts[p.index] for p in todo], ctx)  # what is left to run (a resumed figure: less)
            client = getattr(ctx, "client", None)
            if client is not None:
                ex = make_executor(client)
            elif ctx.workers > 1:
                ex = make_executor("local", workers=ctx.workers)
            else:
                ex = make_executor("serial")

            def done(p, rec):
                rec = {**rec, "key": p.key, "seed": p.seed}
                if store is not None and rec.get("status") == "ok":
                    store.save(rec)
                results[p.index] = rec

            try:
                ex.run(todo, done)
            finally:
                ex.close()
    finally:
        if store is not None:
            store.close()  # its lock, taken by prepare
    out = []
    for rec in results:
        if rec is None or rec.get("status") != "ok":
            raise RuntimeError(f"a simulation failed: {(rec or {}).get('error')}")
        row: dict[str, Any] = {"summary": dict(rec["summary"]), "wall_seconds": rec.get("wall_seconds")}
        if "flows" in names:
            row["flows"] = pd.DataFrame(rec.get("flows") or [])
        out.append(row)
    return out


def engine_fingerprint() -> str:
    """A short digest of the engine's results on three small, fixed scenarios (Reno without SACK,
    NewReno with SACK and short flows, paced TCP): it changes when the engine's behaviour does.

    Numbers measured once and kept in the code (the backing runs behind some miss notes) record the
    fingerprint of the engine they are known to hold for; the test suite recomputes it, so an engine
    change that would make them stale fails a test instead of passing silently."""
    import hashlib
    import json

    from bufsize.reproduce import _stack

    # on the stack the kept numbers were measured with (_stack.LEGACY), so that the digest moves with
    # the engine and not with the reproduction's later choice of stack
    legacy = _stack.tcp(_stack.LEGACY)
    base = dict(capacity="20Mbps", rtt="20ms..60ms", buffer="25pkt", duration="6s", warmup="1s", seed=3,
                packet_size="1000B", start="0s..200ms")
    scs = [_stack.dumbbell(flows=5, cc="reno", sack=False, prr=False, tcp=legacy, **base),
           _stack.dumbbell(flows=5, cc="newreno", sack=True, prr=False, tcp=legacy, **base).replace(
               short_flows=[{"load": 0.2, "size": "14pkt", "rtt": "40ms", "tcp": legacy}]),
           _stack.dumbbell(flows=5, cc="paced", sack=False, prr=False, max_window=16, tcp=legacy, **base)]
    keys = ("utilization", "loss_rate", "drops", "timeouts", "fast_retransmits", "mean_queue_packets")
    parts = [{k: _one(s.to_dict(), ())["summary"].get(k) for k in keys} for s in scs]
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()[:16]
