"""Sweeps: one scenario, some fields varied over values, several seeds; one tidy table out.

``sweep(scenario, vary={"buffer": "0.1bdp..1bdp:5"}, seeds=3, out="runs/b")`` runs every
(point, seed) as one deterministic simulation task on an executor -- serially, on a local process
pool, or on a Dask cluster -- and returns a pandas DataFrame with one row per (point, seed):

- ``point`` (index in the grid, the first varied field changing slowest), ``seed``;
- one column per varied field, named as given, holding the value's number in the unit it was
  written in (``0.5`` for ``0.5bdp``) or its text (``cubic``);
- ``n_flows``, ``bdp_packets``, ``capacity_pps``, ``rtt_mean_s`` (the last three for a dumbbell:
  BDP and capacity in packets of the TCP packet size, mean two-way propagation delay),
  ``buffer_packets`` / ``buffer_bytes`` (the
  bottleneck limit the engine got), ``key`` (the content hash of the point), ``status`` (``ok`` or
  ``failed``), ``error`` (the error text of a failed point, else None);
- every summary metric of the engine (``utilization``, ``loss_rate``, ``queue_delay_mean_s`` ...);
- ``wall_seconds``: the wall time of the task. It depends on the machine and the load, so it is
  the one column that differs between two runs of the same sweep; compare tables without it.

Rows are sorted by (point, seed), so the table is the same whatever the executor, the number of
workers or the order in which points finish. With ``out``, every finished point is written
atomically to ``out/points/KEY.json`` as it completes (see :mod:`bufsize.experiments.store`), a
rerun skips finished points, and the table is written to ``out/results.parquet``.
"""

from __future__ import annotations

import itertools
import json
import math
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Sequence

from bufsize.errors import BufsizeError, ScenarioError
from bufsize.experiments import store as _store
from bufsize.experiments._task import run_point
from bufsize.experiments.vary import Axis, parse_vary, set_path

#: Columns that depend on the machine, not on the inputs (left out when comparing tables).
WALL_COLUMNS = ("wall_seconds",)


@dataclass
class Point:
    """One (grid point, seed): its table labels and the scenario the task runs."""

    index: int
    seed: int
    labels: dict[str, Any]
    key: str
    scenario_json: str | None  # None when the scenario could not be built (error says why)
    describe: dict[str, Any] = field(default_factory=dict)
    error: str | None = None


# ----------------------------------------------------------------------------- inputs

def load_raw(scenario: Any) -> dict[str, Any]:
    """The scenario in its input form (units and aliases kept), checked once by :class:`Scenario`."""
    from bufsize.scenario import Scenario

    if isinstance(scenario, Scenario):
        return scenario.to_dict()
    if isinstance(scenario, Mapping):
        Scenario.from_dict(scenario)
        return json.loads(json.dumps(scenario))
    if isinstance(scenario, (str, os.PathLike)):
        p = Path(scenario)
        Scenario.from_file(p)  # every error about the file, named as simulate names it
        if p.suffix.lower() == ".toml":
            import tomllib

            return tomllib.loads(p.read_text(encoding="utf-8"))
        return json.loads(p.read_text(encoding="utf-8"))
    raise ScenarioError(f"expected a Scenario, a dict or a file path, got {type(scenario).__name__}",
                        argument="scenario")


def parse_seeds(seeds: int | Sequence[int] | str) -> list[int]:
    """``5`` -> seeds 1..5; ``[3, 7]`` or ``"3,7"`` -> those seeds (distinct, in order)."""
    if isinstance(seeds, str):
        text = seeds.strip()
        try:
            seeds = int(text) if "," not in text else [int(s) for s in text.split(",") if s.strip()]
        except ValueError:
            raise BufsizeError(f"expected a count (5) or a list of seeds (1,2,7), got {text!r}",
                               argument="--seeds") from None
    if isinstance(seeds, bool):
        raise BufsizeError(f"expected a count or a list of seeds, got {seeds!r}", argument="--seeds")
    if isinstance(seeds, int):
        if seeds < 1:
            raise BufsizeError(f"must be at least 1, got {seeds}", argument="--seeds")
        return list(range(1, seeds + 1))
    out = [int(s) for s in seeds]
    if not out:
        raise BufsizeError("no seeds", argument="--seeds")
    if any(s < 0 or s >= 2**64 for s in out):
        raise BufsizeError("seeds must be in 0..2^64-1", argument="--seeds")
    if len(set(out)) != len(out):
        raise BufsizeError("a seed is listed twice", argument="--seeds")
    return out


def _describe(sc) -> dict[str, Any]:
    d = sc.to_dict()
    db = d.get("dumbbell")
    lim = sc.buffer_limit
    out: dict[str, Any] = {"n_flows": sc.n_flows}
    if db:
        from bufsize import units

        rtt = db["rtt_s"]
        mean_rtt = rtt["fixed"] if "fixed" in rtt else (
            0.5 * sum(rtt["uniform"]) if "uniform" in rtt else sum(rtt["list"]) / len(rtt["list"]))
        out["bdp_packets"] = units.bdp_packets(db["capacity_bps"], mean_rtt, db["tcp"]["packet_bytes"])
        out["capacity_pps"] = db["capacity_bps"] / (8.0 * db["tcp"]["packet_bytes"])
        out["rtt_mean_s"] = mean_rtt
    else:
        out["bdp_packets"] = out["capacity_pps"] = out["rtt_mean_s"] = math.nan
    out["buffer_packets"] = lim.get("limit_packets", math.nan)
    out["buffer_bytes"] = lim.get("limit_bytes", math.nan)
    return out


def build_points(scenario: Any, vary: Mapping[str, Any] | Sequence[str] | None, seeds) -> tuple[list[Axis], list[Point]]:
    """The grid: every combination of the axes' values (first axis slowest), times every seed.

    A point whose values make an invalid scenario is kept, with its error, and will be recorded as
    failed; an unknown field or an empty range raises :class:`BufsizeError` (``--vary``).
    """
    from bufsize.cost import check_fits, estimate
    from bufsize.scenario import Scenario

    raw = load_raw(scenario)
    axes = parse_vary(raw, vary or {})
    seed_list = parse_seeds(seeds)
    engine = _store.engine_version()
    points: list[Point] = []
    combos = itertools.product(*[a.values for a in axes]) if axes else [()]
    for index, combo in enumerate(combos):
        point_raw = raw
        for axis, value in zip(axes, combo):
            point_raw = set_path(point_raw, axis.path, value)
        labels = {axis.name: axis.label(value) for axis, value in zip(axes, combo)}
        for seed in seed_list:
            seeded = dict(point_raw)
            seeded["seed"] = seed
            try:
                sc = Scenario.from_dict(seeded)
            except BufsizeError as exc:
                key = _store.point_key({"invalid": seeded}, seed, engine)
                points.append(Point(index, seed, labels, key, None, error=f"ScenarioError: {exc}"))
                continue
            si = sc.to_dict()
            try:  # a point that cannot fit in memory fails at once, with its estimate, not on a worker
                check_fits(estimate(sc))
            except BufsizeError as exc:
                points.append(Point(index, seed, labels, _store.point_key(si, seed, engine), None,
                                    error=f"BufsizeError: {exc}"))
                continue
            points.append(Point(index, seed, labels, _store.point_key(si, seed, engine), _store.canonical_json(si),
                                describe=_describe(sc)))
    return axes, points


# ----------------------------------------------------------------------------- executors

class _Executor:
    """Runs tasks and calls ``done(point, record)`` in the calling thread as each one finishes."""

    name = "serial"

    def run(self, points: list[Point], done: Callable[[Point, dict], None]) -> None:
        for p in points:
            done(p, run_point(p.scenario_json))

    def close(self) -> None:
        pass


class _LocalPool(_Executor):
    name = "local"

    def __init__(self, workers: int):
        self.workers = workers
        self.pool = None  # started at the first parallel run, kept for the next ones (searches)

    def run(self, points, done):
        if self.workers <= 1 or len(points) <= 1:
            return super().run(points, done)
        from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait

        if self.pool is None:
            # Processes are forked from this one (Linux default), so they start with the package
            # and the engine already imported.
            self.pool = ProcessPoolExecutor(max_workers=self.workers)
        try:
            pending = {self.pool.submit(run_point, p.scenario_json): p for p in points}
            while pending:
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in finished:
                    p = pending.pop(fut)
                    try:
                        rec = fut.result()
                    except Exception as exc:  # noqa: BLE001 - a worker died: the point failed, the sweep goes on
                        rec = _failed(f"{type(exc).__name__}: {exc}")
                        if type(exc).__name__ == "BrokenProcessPool":
                            self.pool = None  # a later run starts a new pool
                    done(p, rec)
        except BaseException:
            if self.pool is not None:
                self.pool.shutdown(wait=False, cancel_futures=True)
                self.pool = None
            raise

    def close(self):
        if self.pool is not None:
            self.pool.shutdown(wait=True)
            self.pool = None


class _Dask(_Executor):
    name = "dask"

    def __init__(self, client, owned: list):
        self.client = client
        self._owned = owned  # the client/cluster we started (closed at the end)

    def run(self, points, done):
        from distributed import as_completed

        futures = self.client.map(run_point, [p.scenario_json for p in points], pure=False)
        by_key = {f.key: p for f, p in zip(futures, points)}
        try:
            for fut, result in as_completed(futures, with_results=True, raise_errors=False):
                p = by_key[fut.key]
                if isinstance(result, BaseException):
                    text = str(result).strip().splitlines()[0] if str(result).strip() else ""
                    result = _failed(f"{type(result).__name__}: {text}")
                done(p, result)
        except BaseException:
            self.client.cancel(futures)
            raise

    def close(self):
        for obj in self._owned:
            try:
                obj.close()
            except Exception:  # noqa: BLE001 - best effort at shutdown
                pass


def _failed(error: str) -> dict[str, Any]:
    return {"status": "failed", "error": error, "summary": {}, "flows": [], "wall_seconds": math.nan}


def connect_scheduler(address: str, timeout: float = 10.0):
    """A Dask client for the scheduler at ``address`` (one clear error line when unreachable)."""
    try:
        from distributed import Client
    except ImportError:
        raise BufsizeError("needs dask.distributed (pip install 'bufsize[cluster]')", argument="--scheduler") from None
    try:
        return Client(address, timeout=timeout)
    except Exception as exc:  # noqa: BLE001 - any failure to connect is about the address
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BufsizeError(f"cannot reach the Dask scheduler at {address!r}: {text}", argument="--scheduler") from None


def make_executor(executor: Any = "local", *, workers: int | None = None, scheduler: str | None = None,
                  scheduler_timeout: float = 10.0) -> _Executor:
    """``"serial"``, ``"local"`` (process pool, default all cores), ``"dask"`` (``scheduler`` address,
    else a new ``LocalCluster`` of ``workers`` processes) or a ``distributed.Client``."""
    if workers is not None and (isinstance(workers, bool) or int(workers) < 1):
        raise BufsizeError(f"must be at least 1, got {workers}", argument="--workers")
    if executor is not None and not isinstance(executor, str) and hasattr(executor, "map") and hasattr(executor, "submit"):
        return _Dask(executor, [])
    if scheduler is not None:
        executor = "dask"
    if executor == "serial":
        return _Executor()
    if executor == "local":
        return _LocalPool(int(workers) if workers else (os.cpu_count() or 1))
    if executor == "dask":
        if scheduler is not None:
            client = connect_scheduler(scheduler, timeout=scheduler_timeout)
            return _Dask(client, [client])
        try:
            import logging

            from distributed import Client, LocalCluster
        except ImportError:
            raise BufsizeError("needs dask.distributed (pip install 'bufsize[cluster]')", argument="--executor") from None
        cluster = LocalCluster(n_workers=int(workers) if workers else (os.cpu_count() or 1), threads_per_worker=1,
                               processes=True, dashboard_address=None, silence_logs=logging.ERROR)
        client = Client(cluster)
        return _Dask(client, [client, cluster])
    raise BufsizeError(f"unknown executor {executor!r} (serial, local, dask or a dask Client)", argument="--executor")


# ----------------------------------------------------------------------------- progress

class _Progress:
    def __init__(self, total: int, skipped: int, show: bool):
        self.done = self.failed = 0
        self.skipped = skipped
        self.total = total
        self.bar = None
        if show and total > 0:
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, \
                TimeRemainingColumn

            self.bar = Progress(TextColumn("sweep"), BarColumn(), MofNCompleteColumn(),
                                TextColumn("[green]{task.fields[ok]} done[/] [red]{task.fields[bad]} failed[/] "
                                           "[dim]{task.fields[skip]} skipped[/]"),
                                TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), TextColumn("ETA"),
                                TimeRemainingColumn(), console=Console(stderr=True), transient=False)
            self.task = self.bar.add_task("sweep", total=total, completed=skipped, ok=0, bad=0, skip=skipped, rate="")
            self.t0 = time.perf_counter()
            self.bar.start()

    def update(self, ok: bool) -> None:
        if ok:
            self.done += 1
        else:
            self.failed += 1
        if self.bar is not None:
            n = self.done + self.failed
            rate = n / max(1e-9, time.perf_counter() - self.t0)
            self.bar.update(self.task, completed=self.skipped + n, ok=self.done, bad=self.failed,
                            skip=self.skipped, rate=f"{rate:.3g} pt/s")

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()


# ----------------------------------------------------------------------------- the sweep

def sweep(scenario: Any, vary: Mapping[str, Any] | Sequence[str] | None = None, seeds: int | Sequence[int] = 1, *,
          out: str | os.PathLike | None = None, executor: Any = "local", workers: int | None = None,
          scheduler: str | None = None, flows: bool = False, progress: bool | None = None,
          retry_failed: bool = True, say: Callable[[str], None] | None = None, scheduler_timeout: float = 10.0):
    """Run a sweep and return its table (see the module docstring for the columns).

    ``scenario``: a :class:`~bufsize.scenario.Scenario`, a dict or a TOML/JSON path. ``vary``:
    ``{"buffer": "0.1bdp..1bdp:5", "flows": [1, 4]}`` or ``["buffer=0.1bdp..1bdp:5"]`` (syntax in
    :mod:`bufsize.experiments.vary`). ``seeds``: a count (seeds 1..N) or a list. ``out``: a
    directory for the point files and ``results.parquet`` (a rerun skips finished points; failed
    ones are retried unless ``retry_failed=False``). ``executor``: ``"local"`` (process pool of
    ``workers``, default all cores), ``"serial"``, ``"dask"`` (``scheduler`` address, or a new
    ``LocalCluster`` of ``workers``) or a ``distributed.Client``. ``flows=True`` attaches the
    per-flow table as ``table.attrs["flows"]`` (and writes ``out/flows.parquet``).

    ``table.attrs["sweep"]`` holds the counts: ``done``, ``failed``, ``skipped``, ``total``.
    """
    axes, points = build_points(scenario, vary, seeds)
    if isinstance(executor, str) and executor not in ("serial", "local", "dask"):
        raise BufsizeError(f"unknown executor {executor!r} (serial, local, dask or a dask Client)", argument="--executor")
    if workers is not None and (isinstance(workers, bool) or int(workers) < 1):
        raise BufsizeError(f"must be at least 1, got {workers}", argument="--workers")
    # connect before touching the directory: an unreachable scheduler leaves everything as it was
    ex = make_executor(executor, workers=workers, scheduler=scheduler, scheduler_timeout=scheduler_timeout) \
        if scheduler is not None else None
    st = None
    if out is not None:
        st = _store.Store(out)
        manifest = {"written_by": "bufsize sweep", "engine": _store.engine_version(),
                    "vary": {a.name: list(a.values) for a in axes},
                    "seeds": sorted({p.seed for p in points}), "points": len(points)}
        try:
            st.prepare(manifest)
        except BaseException:
            if ex is not None:
                ex.close()
            raise
    records: dict[str, dict[str, Any]] = {}
    todo: list[Point] = []
    skipped = 0
    seen: set[str] = set()
    for p in points:
        if p.key in seen:
            continue  # two grid values that resolve to the same scenario (e.g. 0.5bdp and 63pkt)
        seen.add(p.key)
        rec = st.load(p.key) if st is not None else None
        if rec is not None and flows and rec.get("status") == "ok" and rec.get("flows") is None:
            rec = None  # finished without its per-flow rows, which are asked for now: run again
        if rec is not None and (rec.get("status") == "ok" or not retry_failed):
            records[p.key] = rec
            skipped += 1
        else:
            todo.append(p)
    # points whose scenario could not be built fail at once, without a worker
    runnable = []
    for p in todo:
        if p.scenario_json is None:
            _finish(st, records, p, _failed(p.error or "invalid scenario"), flows)
        else:
            runnable.append(p)
    n_invalid = len(todo) - len(runnable)
    show = progress if progress is not None else bool(getattr(sys.stderr, "isatty", lambda: False)())
    say = say or (lambda text: None)
    if skipped:
        say(f"{skipped} of {len(seen)} points already finished in {out}: skipped")
    bar = _Progress(len(seen), skipped, show)
    for _ in range(n_invalid):
        bar.update(False)
    if ex is None and runnable:
        ex = make_executor(executor, workers=workers)
    try:
        if ex is not None:
            ex.run(runnable, lambda p, rec: (_finish(st, records, p, rec, flows), bar.update(rec.get("status") == "ok")))
    finally:
        bar.close()
        if ex is not None:
            ex.close()
        # the table of whatever finished, also after Ctrl-C or an error
        table, flow_table = _tables(points, records, axes, flows)
        if st is not None:
            st.write_table(_store.RESULTS, table)
            if flows:
                st.write_table(_store.FLOWS, flow_table)
    table.attrs["sweep"] = {"done": bar.done, "failed": bar.failed, "skipped": skipped, "total": len(seen),
                            "executor": ex.name if ex is not None else "none",
                            "out": str(out) if out is not None else None}
    if flows:
        table.attrs["flows"] = flow_table
    return table


def _finish(st, records: dict, p: Point, rec: Mapping[str, Any], keep_flows: bool = True) -> None:
    """Record a finished point (in memory and, with a store, in its file). Per-flow rows are kept
    only when asked for (``flows: null`` in the file means they were not kept)."""
    summary = rec.get("summary") or {}
    ran = summary.get("engine_version")
    if rec.get("status") == "ok" and ran is not None and ran != _store.engine_version():
        # a worker with another bufsize installed: its result does not belong under this key
        rec = _failed(f"worker engine {ran} differs from this one ({_store.engine_version()}); "
                      f"install the same bufsize on every worker")
    full = {"key": p.key, "seed": p.seed, "status": rec.get("status", "failed"), "error": rec.get("error"),
            "summary": rec.get("summary") or {}, "flows": (rec.get("flows") or []) if keep_flows else None,
            "wall_seconds": rec.get("wall_seconds"), "describe": p.describe,
            "scenario": json.loads(p.scenario_json) if p.scenario_json else None}
    records[p.key] = full
    if st is not None:
        st.save(full)


def _tables(points: list[Point], records: Mapping[str, dict], axes: list[Axis], flows: bool):
    import numpy as np
    import pandas as pd

    rows, flow_parts = [], []
    metric_order: list[str] = []
    for p in sorted(points, key=lambda q: (q.index, q.seed)):
        rec = records.get(p.key)
        if rec is None:
            continue  # not finished (interrupted)
        summary = dict(rec.get("summary") or {})
        summary.pop("seed", None)
        for k in summary:
            if k not in metric_order:
                metric_order.append(k)
        describe = rec.get("describe") or p.describe or {}
        row = {"point": p.index, "seed": p.seed, **p.labels,
               "n_flows": describe.get("n_flows", np.nan), "bdp_packets": describe.get("bdp_packets", np.nan),
               "capacity_pps": describe.get("capacity_pps", np.nan), "rtt_mean_s": describe.get("rtt_mean_s", np.nan),
               "buffer_packets": describe.get("buffer_packets", np.nan),
               "buffer_bytes": describe.get("buffer_bytes", np.nan),
               "key": p.key, "status": rec.get("status"), "error": rec.get("error"), **summary,
               "wall_seconds": rec.get("wall_seconds")}
        rows.append(row)
        if flows and rec.get("flows"):
            fdf = pd.DataFrame(rec["flows"])
            fdf.insert(0, "point", p.index)
            fdf.insert(1, "seed", p.seed)
            for i, (k, v) in enumerate(p.labels.items()):
                fdf.insert(2 + i, k, v)
            fdf["key"] = p.key
            flow_parts.append(fdf)
    fixed = ["point", "seed", *[a.name for a in axes], "n_flows", "bdp_packets", "capacity_pps", "rtt_mean_s",
             "buffer_packets", "buffer_bytes",
             "key", "status", "error"]
    columns = fixed + [m for m in metric_order if m not in fixed and m != "wall_seconds"] + ["wall_seconds"]
    table = pd.DataFrame(rows, columns=columns)
    if len(table):
        table["error"] = table["error"].astype(object).where(table["error"].notna(), None)
        for c in ("point", "seed"):
            table[c] = table[c].astype("int64")
        table["wall_seconds"] = table["wall_seconds"].astype(float)
    table = table.reset_index(drop=True)
    flow_table = (pd.concat(flow_parts, ignore_index=True) if flow_parts else
                  pd.DataFrame(columns=["point", "seed", *[a.name for a in axes], "key"]))
    return table, flow_table


def same_table(a, b) -> bool:
    """True when two sweep tables hold the same results (the wall-clock column left out)."""
    import pandas as pd

    try:
        pd.testing.assert_frame_equal(a.drop(columns=list(WALL_COLUMNS), errors="ignore"),
                                      b.drop(columns=list(WALL_COLUMNS), errors="ignore"))
    except AssertionError:
        return False
    return True
