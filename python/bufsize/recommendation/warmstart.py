"""Runs that share their warm-up: one simulation per seed warmed up once, continued at each size.

A search over buffer sizes runs the same traffic (same seed) behind many sizes, and every run used to
simulate its own warm-up: slow start, the flows mixing, BBR's first PROBE_RTT. The scenario's
``warm_buffer`` field says instead "the bottleneck holds ``packets`` until ``until_s``, its own
limit from then on". Every size of a search then has the same first ``until_s`` seconds, and the
engine can change the limit of a run that has not reached ``until_s`` yet
(``Simulation.set_buffer``) with exactly the result of the scenario run from the start (the test
suite checks it bit for bit). So this module keeps, per seed, one *holder* process that builds the
run and simulates its shared prefix once; each size is a copy of it (``os.fork``: the copy costs
only the pages it writes) that sets its own limit and runs the rest.

How long the runs must settle behind their own buffer after ``until_s`` before they are measured is
the search's choice (:func:`bufsize.recommendation.runlength.resettle_s`). Results are the
scenario's, so the run cache and a rerun with ``bufsize simulate`` give the same numbers; only the
cost differs. Linux only (``fork``); elsewhere, and on Dask, each run simulates its whole scenario.

Every process started here dies with its parent (``PR_SET_PDEATHSIG`` and a check of the parent
between messages in the holder, ``PR_SET_PDEATHSIG`` in each copy), and :meth:`WarmStarts.close`
stops them all. A holder starts no thread of its own (a pool worker's parent-watch thread would be
one more thread whose locks a fork could copy mid-use).
"""

from __future__ import annotations

import json
import os
import sys
import time
from typing import Any, Iterator, Mapping, Sequence

from bufsize.errors import BufsizeError


def available() -> bool:
    """Whether runs can share a warm-up here (a platform with ``fork``)."""
    return sys.platform.startswith("linux") and hasattr(os, "fork")


def prefix_key(scenario: Mapping[str, Any]) -> str | None:
    """What runs sharing one warm-up have in common: the scenario without its final buffer and its
    stop rule (None for a scenario without ``warm_buffer`` or without a dumbbell)."""
    if "warm_buffer" not in scenario or not isinstance(scenario.get("dumbbell"), Mapping):
        return None
    d = {k: v for k, v in scenario.items() if k != "_stop"}
    d["dumbbell"] = {k: v for k, v in d["dumbbell"].items() if k != "buffer"}
    return json.dumps(d, sort_keys=True)


# ----------------------------------------------------------------------------- the holder process

def _copy_run(sim: Any, job: str, write_fd: int, parent: int, until: float) -> None:
    """In a forked copy of the holder: set this job's buffer, run the rest, write the record (with
    ``prefix_s``, the shared simulated seconds it did not simulate itself)."""
    import gc

    from bufsize.experiments._task import _die_with_parent

    # A copy lives for one run: the cyclic collector would walk (and so copy) the whole inherited
    # heap for garbage that dies with the process anyway.
    gc.disable()
    _die_with_parent()
    if os.getppid() != parent:
        os._exit(1)
    from bufsize.recommendation.runs import _task

    rec = _task(job, sim=sim)
    rec["prefix_s"] = until
    data = json.dumps(rec).encode()
    view = memoryview(data)
    while view:
        n = os.write(write_fd, view)
        view = view[n:]
    os.close(write_fd)


#: How often a holder checks that its parent is alive (seconds), between messages.
_WATCH_S = 1.0

#: A run too small to measure, made once in each holder (see :func:`_prime`).
_PRIMER = {"duration_s": 0.02, "warmup_s": 0.01, "measure": {"queue_histogram": False},
           "dumbbell": {"capacity_bps": 1e7, "flows": 1, "rtt_s": {"fixed": 0.01}, "buffer": 10}}


def _prime(job: Mapping[str, Any]) -> None:
    """Make one tiny run the way a copy makes its own (with the job's stop rule, if any), so that
    what the first run in a process sets up (modules imported on first use, pandas' and SciPy's
    caches: about 0.2 s) is done once here and inherited by every copy instead of repeated in each."""
    from bufsize.recommendation.runs import _task

    primer = dict(_PRIMER, seed=int(job.get("seed", 1)))
    if job.get("_stop") is not None:
        primer["_stop"] = dict(job["_stop"], min_measure_s=0.0)
    _task(json.dumps(primer))


def _holder_main(conn: Any, parent: int) -> None:
    """A holder: on ("warm", job) build the job's run and simulate it up to its warm buffer's end;
    on ("run", i, job) fork a copy that runs job i from there; answer ("warmed", wall_s, simulated_s)
    and ("done", i, record); exit on ("stop",) or when the parent goes."""
    import signal
    from multiprocessing.connection import wait

    from bufsize.experiments import store
    from bufsize.experiments._task import _die_with_parent

    # as a pool worker (bufsize.experiments._task.worker_init), but the parent is watched from this
    # loop rather than by a thread of its own: a holder forks its copies, and a fork copies whatever
    # lock another thread holds at that moment
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    store.forget_locks()
    _die_with_parent()
    if os.getppid() != parent:
        os._exit(1)
    me = os.getpid()
    sim = None
    until = 0.0
    children: dict[int, tuple[int, int, list[bytes]]] = {}   # read fd -> (job index, pid, chunks)
    while True:
        ready: list[Any] = list(wait([conn] + list(children), timeout=_WATCH_S))
        if os.getppid() != parent:
            os._exit(1)
        for obj in ready:
            if obj is conn:
                try:
                    msg = conn.recv()
                except EOFError:          # the parent is gone
                    msg = ("stop",)
                if msg[0] == "stop":
                    for _fd, (_i, pid, _c) in children.items():
                        try:
                            os.kill(pid, 9)
                        except OSError:
                            pass
                    os._exit(0)
                if msg[0] == "warm":
                    t0 = time.perf_counter()
                    try:
                        from bufsize.scenario import Scenario
                        from bufsize.simulate import _engine

                        d = json.loads(msg[1])
                        sc = Scenario.from_dict({k: v for k, v in d.items() if k != "_stop"})
                        sim = _engine().Simulation(sc.to_json())
                        until = float(sc.to_dict()["warm_buffer"]["until_s"])
                        sim.run_until(int(round(until * 1e9)))
                        _prime(d)
                        # what every copy inherits is left out of the collector's walks (gc.freeze),
                        # so that a copy does not touch, and so copy, those pages
                        import gc

                        gc.collect()
                        gc.freeze()
                        conn.send(("warmed", time.perf_counter() - t0, until, None))
                    except BaseException as exc:  # noqa: BLE001 - reported to the parent
                        conn.send(("warmed", time.perf_counter() - t0, 0.0, f"{type(exc).__name__}: {exc}"))
                elif msg[0] == "run":
                    r, w = os.pipe()
                    pid = os.fork()
                    if pid == 0:
                        os.close(r)
                        try:
                            _copy_run(sim, msg[2], w, me, until)
                        finally:
                            os._exit(0)
                    os.close(w)
                    children[r] = (msg[1], pid, [])
            else:
                i, pid, chunks = children[obj]
                chunk = os.read(obj, 1 << 16)
                if chunk:
                    chunks.append(chunk)
                    continue
                os.close(obj)
                del children[obj]
                os.waitpid(pid, 0)
                data = b"".join(chunks)
                rec = json.loads(data) if data else {"status": "failed", "summary": {}, "wall_seconds": 0.0,
                                                     "error": "a warm-started run ended without a result"}
                conn.send(("done", i, rec))


class _Holder:
    def __init__(self) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_holder_main, args=(child, os.getpid()), daemon=True,
                                name="bufsize-warm-holder")
        self.proc.start()
        child.close()
        self.state = "new"          # new -> warming -> ready


class WarmStarts:
    """The holders of one verification (one per shared prefix, i.e. per seed), and the cost of their
    shared warm-ups: ``warmups`` made, their ``cpu_seconds`` and ``simulated_s``."""

    def __init__(self) -> None:
        self._holders: dict[str, _Holder] = {}
        self.warmups = 0
        self.cpu_seconds = 0.0
        self.simulated_s = 0.0

    def run(self, jobs: Sequence[tuple[int, str, str]], workers: int) -> Iterator[tuple[int, dict[str, Any]]]:
        """Run ``jobs`` (index, scenario JSON, prefix key), at most ``workers`` at a time (a holder's
        warm-up counts as one); yields (index, record) as they finish."""
        from multiprocessing.connection import wait

        pending = list(jobs)
        active = 0
        by_conn: dict[Any, _Holder] = {}
        while pending or active:
            for job in list(pending):
                if active >= workers:
                    break
                i, text, key = job
                h = self._holders.get(key)
                if h is None:
                    h = self._holders[key] = _Holder()
                if h.state == "new":
                    h.conn.send(("warm", text))
                    h.state = "warming"
                    active += 1
                elif h.state == "ready":
                    h.conn.send(("run", i, text))
                    pending.remove(job)
                    active += 1
                by_conn[h.conn] = h
            if not active:
                raise RuntimeError("warm-started runs waiting on no holder")
            ready: list[Any] = list(wait(list(by_conn)))
            for conn in ready:
                h = by_conn[conn]
                try:
                    msg = conn.recv()
                except EOFError:
                    raise BufsizeError("a process holding a shared warm-up ended unexpectedly (out of memory?)",
                                       argument="--verify") from None
                active -= 1
                if msg[0] == "warmed":
                    _, wall, until, err = msg
                    if err is not None:
                        raise BufsizeError(f"a shared warm-up failed: {err}", argument="--verify")
                    h.state = "ready"
                    self.warmups += 1
                    self.cpu_seconds += wall
                    self.simulated_s += until
                else:
                    yield int(msg[1]), dict(msg[2])

    def close(self) -> None:
        """Stop every holder (and the copies they run)."""
        for h in self._holders.values():
            try:
                h.conn.send(("stop",))
            except (OSError, ValueError):
                pass
        for h in self._holders.values():
            h.proc.join(timeout=5)
            if h.proc.is_alive():
                h.proc.kill()
                h.proc.join()
            h.conn.close()
        self._holders.clear()
