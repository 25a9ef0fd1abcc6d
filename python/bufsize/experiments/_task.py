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


# ----------------------------------------------------------------------------- worker processes
#
# A local pool's workers are forked from the process that runs the sweep. Were that process killed
# (kill -9, the OOM killer), they would be left behind: parent 1, blocked reading the task pipe,
# whose write end each of them holds itself, so it never reports end-of-file. Each worker is
# therefore tied to its parent's life twice over:
#
# - on Linux, PR_SET_PDEATHSIG: the kernel sends the worker SIGKILL when the thread that forked it
#   exits (the pool forks its workers in the thread that submits the first task: the sweep's);
# - everywhere, a watchdog thread that checks every second whether the parent is still the one it
#   started under, and ends the worker when it is not (also mid-simulation: the engine lets other
#   threads run; a ticking thread measured no gap over 0.15 s during a 3.9-s run).

PR_SET_PDEATHSIG = 1
_WATCH_S = 1.0


def _die_with_parent() -> bool:
    """Ask the kernel to SIGKILL this process when its parent dies (Linux); False elsewhere."""
    import ctypes
    import signal
    import sys

    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)) == 0
    except (OSError, AttributeError):  # no libc prctl: the watchdog alone
        return False


def _watch_parent(parent: int) -> None:
    import os

    while True:
        time.sleep(_WATCH_S)
        if os.getppid() != parent:
            os._exit(1)


def worker_init(parent: int) -> None:
    """Initializer of a pool worker: die with ``parent``; leave Ctrl-C and SIGTERM to it.

    The parent stops its workers itself when it is interrupted, so a worker ignores SIGINT (a
    Ctrl-C reaches the whole process group) and takes SIGTERM's default action (a Python handler
    inherited through fork would wait for the running simulation to return). The lock files the
    parent holds are closed here, so that a worker never keeps a sweep directory locked."""
    import os
    import signal
    import threading

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    from bufsize.experiments import store

    store.forget_locks()
    _die_with_parent()
    if os.getppid() != parent:  # the parent died before the kernel was asked
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True, name="bufsize-parent-watch").start()


def process_pool(workers: int):
    """A process pool whose workers die with this process (:func:`worker_init`). Executors that
    run simulations on local processes should create their pools here."""
    import os
    from concurrent.futures import ProcessPoolExecutor

    return ProcessPoolExecutor(max_workers=int(workers), initializer=worker_init, initargs=(os.getpid(),))


def stop_pool(pool) -> None:
    """Stop ``pool`` now: queued tasks are dropped and running ones killed with their workers (the
    results of finished tasks are already with the caller)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in procs:
        try:
            p.kill()
        except (OSError, ValueError, AttributeError):
            pass
    for p in procs:
        try:
            p.join(5.0)
        except (OSError, ValueError, AttributeError, AssertionError):
            pass


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived while a sweep or search was waiting for its workers."""


class stop_on_sigterm:
    """While in this block (in the main thread, where SIGTERM still has its default action), SIGTERM
    raises :class:`Terminated` instead of killing the process at once, so the caller can stop its
    workers and write what has finished. After the first SIGTERM the default action is back: a
    second one kills."""

    def __enter__(self):
        import signal
        import threading

        self._old = None
        if threading.current_thread() is threading.main_thread() and \
                signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
            def handler(signum, frame):
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                raise Terminated()

            self._old = signal.signal(signal.SIGTERM, handler)
        return self

    def __exit__(self, *exc) -> None:
        import signal

        if self._old is not None:
            signal.signal(signal.SIGTERM, self._old)
