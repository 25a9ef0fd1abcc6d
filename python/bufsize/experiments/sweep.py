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

import contextlib
import functools
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
from bufsize.experiments._task import Terminated, process_pool, run_point, stop_on_sigterm, stop_pool  # noqa: F401
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


def _seed_spec(seeds: int | Sequence[int] | str) -> int | Sequence[int]:
    """A count, or the seeds as given (a string parsed; a count checked)."""
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
    return seeds


def count_seeds(seeds: int | Sequence[int] | str) -> int:
    """How many seeds ``seeds`` names, without listing a count (``1000000000`` costs nothing)."""
    spec = _seed_spec(seeds)
    return spec if isinstance(spec, int) else len(spec)


def parse_seeds(seeds: int | Sequence[int] | str) -> list[int]:
    """``5`` -> seeds 1..5; ``[3, 7]`` or ``"3,7"`` -> those seeds (distinct, in order).

    A count above :data:`bufsize.cost.MAX_RUNS` is refused before anything is listed."""
    from bufsize.cost import MAX_RUNS

    seeds = _seed_spec(seeds)
    if isinstance(seeds, int):
        if seeds > MAX_RUNS:
            raise BufsizeError(f"{seeds:,} seeds: more runs than one sweep or search may hold ({MAX_RUNS:,})",
                               argument="--seeds")
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
    from bufsize.cost import MAX_RUNS, check_fits, estimate
    from bufsize.scenario import Scenario

    raw = load_raw(scenario)
    axes = parse_vary(raw, vary or {})
    runs = _grid_size(axes) * count_seeds(seeds)
    if runs > MAX_RUNS:  # plan_sweep says more; this only keeps a direct call from listing them
        raise BufsizeError(f"{runs:,} runs: more than one sweep may hold ({MAX_RUNS:,}); split it")
    seed_list = parse_seeds(seeds)
    engine = _store.engine_version()
    points: list[Point] = []
    combos = itertools.product(*[a.values for a in axes]) if axes else [()]
    for index, combo in enumerate(combos):
        fits: str | None = None  # the memory check of this grid point (the same for every seed)
        checked = False
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
            if not checked:  # a point that cannot fit in memory fails at once, with its estimate, not on a worker
                checked = True
                try:
                    check_fits(estimate(sc))
                except BufsizeError as exc:
                    fits = f"BufsizeError: {exc}"
            if fits is not None:
                points.append(Point(index, seed, labels, _store.point_key(si, seed, engine), None, error=fits))
                continue
            points.append(Point(index, seed, labels, _store.point_key(si, seed, engine), _store.canonical_json(si),
                                describe=_describe(sc)))
    return axes, points


# ----------------------------------------------------------------------------- the plan

#: How many grid points a sweep's cost is estimated on: all of them up to this many, else this many
#: spread evenly over the grid, its first and last point included.
COST_SAMPLE = 64


def _grid_size(axes: Sequence[Axis]) -> int:
    return math.prod(len(a.values) for a in axes) if axes else 1


def _combo(axes: Sequence[Axis], index: int) -> list[Any]:
    """The values of grid point ``index`` (the first axis changing slowest), without the grid."""
    out = []
    for a in reversed(axes):
        index, r = divmod(index, len(a.values))
        out.append(a.values[r])
    return out[::-1]


@dataclass
class SweepPlan:
    """A sweep counted and costed before it runs: its axes, ``points`` (grid points) × ``seeds``
    = ``runs``, and ``cost`` (:class:`bufsize.cost.PlanEstimate`)."""

    axes: list[Axis]
    points: int
    seeds: int
    cost: Any
    #: per run, on average: (wall s now, CPU s idle), the largest memory, the bookkeeping bytes
    per_run: tuple[float, float, float, float] = (0.0, 0.0, 0.0, 0.0)

    @property
    def runs(self) -> int:
        return self.points * self.seeds

    def describe(self) -> str:
        return self.cost.describe()


def _parallelism(executor: Any, workers: int | None) -> tuple[int, int, bool]:
    """(runs at a time, of them on this machine, whether they run elsewhere) for an executor."""
    n = int(workers) if workers else (os.cpu_count() or 1)
    if executor == "serial":
        return 1, 1, False
    if isinstance(executor, str) or executor is None:
        return n, n, False  # a local pool, or a Dask LocalCluster of n workers
    try:  # a distributed.Client: its cluster's threads
        return max(1, sum(executor.nthreads().values())), 0, True
    except Exception:  # noqa: BLE001 - unknown: as many as asked for, elsewhere
        return n, 0, True


def plan_sweep(scenario: Any, vary: Mapping[str, Any] | Sequence[str] | None, seeds, *, executor: Any = "local",
               workers: int | None = None, max_time: float | None = None, flows: bool = False,
               allow_over_memory: bool = False, check: bool = True) -> SweepPlan:
    """Count and cost a sweep before anything runs, and (``check``) refuse one that cannot finish
    or fit (:func:`bufsize.cost.check_plan`: more than ``MAX_RUNS`` runs, more memory than this
    machine has available, longer than ``max_time`` seconds, default ``MAX_PLAN_S``). Nothing is
    listed: a billion seeds or values cost nothing to count.

    ``executor`` may be a ``distributed.Client`` (its threads run the points, elsewhere). With a
    scheduler address not yet connected, give ``executor=None`` and ``check=False`` for the count."""
    from bufsize.cost import MAX_PLAN_S, check_plan, estimate, machine_memory_bytes, pooled_seconds
    from bufsize.scenario import Scenario

    raw = load_raw(scenario)
    axes = parse_vary(raw, vary or {})
    n_seeds = count_seeds(seeds)
    n_grid = _grid_size(axes)
    first_seed = _first_seed(seeds)
    if n_grid <= COST_SAMPLE:
        sample: Iterable[int] = range(n_grid)
    else:
        sample = sorted({round(k * (n_grid - 1) / (COST_SAMPLE - 1)) for k in range(COST_SAMPLE)})
    walls, cpus, mems, keep = [], [], [0.0], []
    alone = math.inf if allow_over_memory else machine_memory_bytes()[0]
    from bufsize.cost import PLAN_FLOW_BYTES, PLAN_JSON_FACTOR, PLAN_RUN_BYTES

    for index in sample:
        point_raw = raw
        for axis, value in zip(axes, _combo(axes, index)):
            point_raw = set_path(point_raw, axis.path, value)
        point_raw["seed"] = first_seed
        try:
            sc = Scenario.from_dict(point_raw)
            est = estimate(sc)
        except BufsizeError:
            continue  # an invalid point fails at once, without a run
        if est.memory_bytes > alone:
            continue  # so does a point that cannot fit even alone (build_points records it)
        wall, cpu = pooled_seconds(est)
        walls.append(wall)
        cpus.append(cpu)
        mems.append(est.memory_bytes)
        keep.append(PLAN_RUN_BYTES + PLAN_JSON_FACTOR * len(_store.canonical_json(sc.to_dict()))
                    + (PLAN_FLOW_BYTES * sc.n_flows if flows else 0.0))
    per_run = (sum(walls) / len(walls) if walls else 0.0, sum(cpus) / len(cpus) if cpus else 0.0,
               max(mems), sum(keep) / len(keep) if keep else PLAN_RUN_BYTES)
    plan = SweepPlan(axes, n_grid, n_seeds, None, per_run)
    plan.cost = _plan_cost(plan, executor, workers)
    if check:
        check_plan(plan.cost, what="this sweep", max_seconds=MAX_PLAN_S if max_time is None else max_time,
                   allow_over_memory=allow_over_memory)
    return plan


def _plan_cost(plan: SweepPlan, executor: Any, workers: int | None):
    from bufsize.cost import plan_cost

    p, local, remote = _parallelism(executor, workers)
    wall, cpu, mem, keep = plan.per_run
    detail = (f"{plan.points:,} point{'s' if plan.points != 1 else ''} x {plan.seeds:,} "
              f"seed{'s' if plan.seeds != 1 else ''}")
    return plan_cost(plan.runs, run_wall_seconds=wall, run_cpu_seconds=cpu, run_memory_bytes=mem,
                     parallelism=p, local_workers=local, collect_bytes_per_run=keep, remote=remote, detail=detail)


def _first_seed(seeds) -> int:
    spec = _seed_spec(seeds)
    if isinstance(spec, int):
        return 1
    return int(spec[0]) if len(spec) else 1


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
        from concurrent.futures import FIRST_COMPLETED, wait

        if self.pool is None:
            # Processes are forked from this one (Linux default), so they start with the package
            # and the engine already imported; they die with it (_task.worker_init).
            self.pool = process_pool(self.workers)
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
        except BaseException:  # Ctrl-C, SIGTERM, a failed write: the running points are abandoned
            if self.pool is not None:
                stop_pool(self.pool)
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
          retry_failed: bool = True, say: Callable[[str], None] | None = None, scheduler_timeout: float = 10.0,
          max_time: float | None = None, allow_over_memory: bool = False):
    """Run a sweep and return its table (see the module docstring for the columns).

    ``scenario``: a :class:`~bufsize.scenario.Scenario`, a dict or a TOML/JSON path. ``vary``:
    ``{"buffer": "0.1bdp..1bdp:5", "flows": [1, 4]}`` or ``["buffer=0.1bdp..1bdp:5"]`` (syntax in
    :mod:`bufsize.experiments.vary`). ``seeds``: a count (seeds 1..N) or a list. ``out``: a
    directory for the point files and ``results.parquet`` (a rerun skips finished points; failed
    ones are retried unless ``retry_failed=False``). ``executor``: ``"local"`` (process pool of
    ``workers``, default all cores), ``"serial"``, ``"dask"`` (``scheduler`` address, or a new
    ``LocalCluster`` of ``workers``) or a ``distributed.Client``. ``flows=True`` attaches the
    per-flow table as ``table.attrs["flows"]`` (and writes ``out/flows.parquet``).

    Before anything runs, the sweep is counted and costed (:func:`plan_sweep`) and refused when it
    cannot finish in ``max_time`` seconds (default :data:`bufsize.cost.MAX_PLAN_S`, 24 h) or fit in
    this machine's available memory (``allow_over_memory`` skips the memory check). ``out`` is
    locked while the sweep runs, and refused when it holds another sweep. SIGTERM (like Ctrl-C)
    stops a parallel sweep at once: its workers are killed, the table of the finished points is
    written, and :class:`Terminated` (a ``KeyboardInterrupt``) is raised.

    ``table.attrs["sweep"]`` holds the counts: ``done``, ``failed``, ``skipped``, ``total``.
    """
    if isinstance(executor, str) and executor not in ("serial", "local", "dask"):
        raise BufsizeError(f"unknown executor {executor!r} (serial, local, dask or a dask Client)", argument="--executor")
    if workers is not None and (isinstance(workers, bool) or int(workers) < 1):
        raise BufsizeError(f"must be at least 1, got {workers}", argument="--workers")
    from bufsize.cost import MAX_PLAN_S, check_plan

    plan = plan_sweep(scenario, vary, seeds, executor=executor if scheduler is None else None, workers=workers,
                      max_time=max_time, flows=flows, allow_over_memory=allow_over_memory, check=scheduler is None)
    # connect before touching the directory: an unreachable scheduler leaves everything as it was
    ex = make_executor(executor, workers=workers, scheduler=scheduler, scheduler_timeout=scheduler_timeout) \
        if scheduler is not None else None
    st = None
    try:
        if ex is not None:  # the cluster's size is known now
            plan.cost = _plan_cost(plan, ex.client if isinstance(ex, _Dask) else executor, workers)
            check_plan(plan.cost, what="this sweep", max_seconds=MAX_PLAN_S if max_time is None else max_time,
                       allow_over_memory=allow_over_memory)
        axes, points = build_points(scenario, vary, seeds)
        if out is not None:
            st = _store.Store(out)
            manifest = {"written_by": "bufsize sweep", "engine": _store.engine_version(),
                        "vary": {a.name: list(a.values) for a in axes},
                        "seeds": sorted({p.seed for p in points}), "points": len(points)}
            st.prepare(manifest, identity=_store.sweep_identity(load_raw(scenario), [a.path for a in axes]))
    except BaseException:
        if ex is not None:
            ex.close()
        raise
    try:
        return _run(points, axes, st, ex, out=out, executor=executor, workers=workers, flows=flows,
                    progress=progress, retry_failed=retry_failed, say=say)
    finally:
        if st is not None:
            st.close()


def _run(points: list[Point], axes: list[Axis], st, ex, *, out, executor, workers, flows, progress, retry_failed,
         say):
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
    show = progress if progress is not None else bool(getattr(sys.stderr, "isatty", lambda: False)())
    say = say or (lambda text: None)
    if skipped:
        say(f"{skipped} of {len(seen)} points already finished in {out}: skipped")
    bar = _Progress(len(seen), skipped, show)
    failure: BaseException | None = None
    try:
        # points whose scenario could not be built fail at once, without a worker
        runnable = []
        for p in todo:
            if p.scenario_json is None:
                _finish(st, records, p, _failed(p.error or "invalid scenario"), flows)
                bar.update(False)
            else:
                runnable.append(p)
        if ex is None and runnable:
            ex = make_executor(executor, workers=workers)
        if ex is not None:
            # SIGTERM stops a parallel sweep at once (the main process only waits there); a serial
            # one runs the engine in this process, which holds the interpreter until the run ends:
            # it keeps SIGTERM's default action, and its finished point files are kept all the same.
            guard = stop_on_sigterm() if not (ex.name == "serial" or (ex.name == "local" and (
                ex.workers <= 1 or len(runnable) <= 1))) else contextlib.nullcontext()
            with guard:
                ex.run(runnable, lambda p, rec: (_finish(st, records, p, rec, flows),
                                                 bar.update(rec.get("status") == "ok")))
    except BaseException as exc:
        failure = exc
        raise
    finally:
        bar.close()
        if ex is not None:
            ex.close()
        # the table of whatever finished, also after Ctrl-C, SIGTERM or an error
        table, flow_table = _tables(points, records, axes, flows)
        if st is not None:
            try:
                st.write_table(_store.RESULTS, table)
                if flows:
                    st.write_table(_store.FLOWS, flow_table)
            except BufsizeError:
                if failure is None:
                    raise  # else the first error is the one to report (a full disk fails both)
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


@functools.lru_cache(maxsize=1)
def metric_columns() -> tuple[str, ...]:
    """The engine's summary metrics, the columns a sweep table gets from each run (read from a
    0.2-s run of one flow, so that a plot's column can be checked before a sweep starts)."""
    probe = {"seed": 1, "duration": "0.2s", "warmup": "0s",
             "dumbbell": {"capacity": "10Mbps", "flows": 1, "rtt": "10ms", "buffer": "10pkt"}}
    from bufsize.scenario import Scenario

    rec = run_point(_store.canonical_json(Scenario.from_dict(probe).to_dict()))
    return tuple(k for k in (rec.get("summary") or {}) if k != "seed")


def table_columns(axes: Sequence[Axis]) -> list[str]:
    """Every column a sweep over ``axes`` will have in its table."""
    return ["point", "seed", *[a.name for a in axes], "n_flows", "bdp_packets", "capacity_pps", "rtt_mean_s",
            "buffer_packets", "buffer_bytes", "key", "status", "error", *metric_columns(), "wall_seconds"]


def same_table(a, b) -> bool:
    """True when two sweep tables hold the same results (the wall-clock column left out)."""
    import pandas as pd

    try:
        pd.testing.assert_frame_equal(a.drop(columns=list(WALL_COLUMNS), errors="ignore"),
                                      b.drop(columns=list(WALL_COLUMNS), errors="ignore"))
    except AssertionError:
        return False
    return True
