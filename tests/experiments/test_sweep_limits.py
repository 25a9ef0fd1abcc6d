"""Sweeps and searches within bounds: costed and refused before they start, workers that die with
their parent, SIGTERM, one sweep per directory, full disks."""

from __future__ import annotations

import ctypes
import errno
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest

from bufsize.cli import main
from bufsize.errors import BufsizeError
from bufsize.experiments import store, sweep
from bufsize.experiments.sweep import count_seeds, parse_seeds, plan_sweep
from bufsize.experiments.vary import parse_values
from exp_helpers import tiny
from process_helpers import descendants as _children
from process_helpers import running as _running
from process_helpers import kill_left
from process_helpers import wait_for as _wait_for

HELPERS = str(Path(__file__).parent)


def _scenario_file(tmp_path) -> Path:
    p = tmp_path / "tiny.json"
    p.write_text(json.dumps(tiny()))
    return p


_LIBC = ctypes.CDLL(None) if sys.platform.startswith("linux") else None


def _tied() -> None:
    """In a child the tests start (between fork and exec, so nothing is imported there): die with
    the test process, whatever ends it (PR_SET_PDEATHSIG, SIGKILL)."""
    if _LIBC is not None:
        _LIBC.prctl(1, 9, 0, 0, 0)


def _one_line_exit_2(rc, err, *needles):
    assert rc == 2, err
    assert err.count("\n") == 1, err
    for n in needles:
        assert n in err, err


# ----------------------------------------------------------------------------- costed before it starts

@pytest.mark.parametrize("args, count", [
    (["--vary", "buffer=5", "--seeds", "1000000000"], "1 point x 1,000,000,000 seeds"),
    (["--vary", "buffer=1..10:1000000000"], "1,000,000,000 points x 1 seed"),
])
def test_a_sweep_too_big_to_hold_is_refused_with_its_count_and_estimate_before_anything(tmp_path, capsys, args,
                                                                                      count):
    out = tmp_path / "o"
    rc = main(["sweep", str(_scenario_file(tmp_path)), "--out", str(out), "--no-progress", "--workers", "2", *args])
    err = capsys.readouterr().err
    _one_line_exit_2(rc, err, "1,000,000,000 runs", count, "days on 2 workers", "peak memory",
                     "at most 1,000,000 runs")
    assert not out.exists()


def test_counting_seeds_and_long_ranges_lists_nothing():
    assert count_seeds(10**9) == 10**9 and count_seeds("1000000000") == 10**9 and count_seeds("3,7") == 2
    with pytest.raises(BufsizeError, match="--seeds: 1,000,000,000 seeds: more runs than"):
        parse_seeds(10**9)
    assert parse_seeds(3) == [1, 2, 3]
    values, _ = parse_values("buffer=1..10:1000000000", "1..10:1000000000")
    assert len(values) == 10**9 and values[0] == 1 and values[-1] == 10 and values[10**9 // 2] == 6
    short, _ = parse_values("buffer=1..10:20", "1..10:20")  # a range that can be listed still is
    assert list(short) == list(range(1, 11))


def test_a_sweep_longer_than_its_time_limit_is_refused_and_a_longer_limit_lets_it_through():
    plan = plan_sweep(tiny(), {"buffer": [10, 20]}, 1000, executor="local", workers=2, check=False)
    hours = plan.cost.wall_seconds
    assert plan.runs == 2000 and hours > 0
    with pytest.raises(BufsizeError, match=r"this sweep is 2,000 runs \(2 points x 1,000 seeds\).*more than the"):
        plan_sweep(tiny(), {"buffer": [10, 20]}, 1000, executor="local", workers=2, max_time=hours / 2)
    plan_sweep(tiny(), {"buffer": [10, 20]}, 1000, executor="local", workers=2, max_time=hours * 2)


def test_cli_max_time_refuses_in_one_line_and_names_the_flag(tmp_path, capsys):
    out = tmp_path / "o"
    rc = main(["sweep", str(_scenario_file(tmp_path)), "--vary", "buffer=5,10", "--seeds", "2", "--out", str(out),
               "--no-progress", "--max-time", "1ms"])
    _one_line_exit_2(rc, capsys.readouterr().err, "4 runs", "more than the", "--max-time")
    assert not out.exists()
    rc = main(["sweep", str(_scenario_file(tmp_path)), "--vary", "buffer=5", "--out", str(out), "--no-progress",
               "--max-time", "soon"])
    _one_line_exit_2(rc, capsys.readouterr().err, "--max-time")


def test_a_sweep_whose_workers_cannot_fit_in_memory_is_refused_and_fewer_workers_fit(monkeypatch):
    two = plan_sweep(tiny(), {"buffer": [10, 20]}, 2, executor="local", workers=2, check=False).cost
    one = plan_sweep(tiny(), {"buffer": [10, 20]}, 2, executor="local", workers=1, check=False).cost
    assert two.memory_bytes > one.memory_bytes
    monkeypatch.setenv("BUFSIZE_MEMORY_LIMIT", str(int((two.memory_bytes + one.memory_bytes) / 2)))
    with pytest.raises(BufsizeError, match="more than the .* of \\$BUFSIZE_MEMORY_LIMIT.*fewer workers"):
        sweep(tiny(), {"buffer": [10, 20]}, 2, executor="local", workers=2)
    plan_sweep(tiny(), {"buffer": [10, 20]}, 2, executor="local", workers=1)
    plan_sweep(tiny(), {"buffer": [10, 20]}, 2, executor="local", workers=2, allow_over_memory=True)


@pytest.mark.parametrize("args, needles", [
    (["--seeds", "1000000000"], ["this search is", "1,000,000,000 seeds", "at most 1,000,000 runs"]),
    (["--max-seeds", "1000000000"], ["--max-seeds: 1,000,000,000 seeds"]),
    (["--seeds", "3", "--max-time", "1ms"], ["this search is", "3 seeds", "more than the", "--max-time"]),
    (["--resolution", "0"], ["--resolution: must be a whole number of packets, at least 1; got 0"]),
    (["--resolution", "-1"], ["--resolution: must be a whole number of packets, at least 1; got -1"]),
])
def test_a_search_that_cannot_finish_or_makes_no_sense_is_refused_before_any_run(tmp_path, capsys, args, needles):
    rc = main(["search", "min-buffer", str(_scenario_file(tmp_path)), "--target-utilization", "0.9",
               "--out", str(tmp_path / "s"), *args])
    _one_line_exit_2(rc, capsys.readouterr().err, *needles)
    assert not (tmp_path / "s").exists()


def test_a_search_resolution_of_one_packet_is_accepted(tmp_path):
    from bufsize.experiments.search import plan_search

    plan_search(tiny(), seeds=2, resolution=1)
    with pytest.raises(BufsizeError, match="--resolution"):
        plan_search(tiny(), seeds=2, resolution=0)


def test_optimal_buffer_refuses_more_buffers_than_its_range_holds(tmp_path, capsys):
    rc = main(["search", "optimal-buffer", str(_scenario_file(tmp_path)), "--range", "10..40",
               "--points", "1000000000"])
    _one_line_exit_2(rc, capsys.readouterr().err, "--points: 1,000,000,000 buffers", "only 31")


@pytest.mark.parametrize("value", ["1.5", "0.2", "1"])
def test_optimal_buffer_refuses_a_confidence_outside_its_range_before_any_run(tmp_path, capsys, value):
    out = tmp_path / "o"
    rc = main(["search", "optimal-buffer", str(_scenario_file(tmp_path)), "--range", "10..40", "--points", "3",
               "--confidence", value, "--out", str(out)])
    _one_line_exit_2(rc, capsys.readouterr().err, "--confidence: must be in [0.5, 1)")
    assert not (out / "points").exists() or not any((out / "points").iterdir())


def test_plot_of_an_unknown_column_is_refused_before_any_run(tmp_path, capsys):
    out = tmp_path / "o"
    rc = main(["sweep", str(_scenario_file(tmp_path)), "--vary", "buffer=5,10", "--out", str(out), "--no-progress",
               "--plot", str(tmp_path / "p.png"), "--y", "bogus"])
    _one_line_exit_2(rc, capsys.readouterr().err, "--y: no column 'bogus'", "utilization")
    assert not out.exists()
    rc = main(["sweep", str(_scenario_file(tmp_path)), "--vary", "buffer=5,10", "--out", str(out), "--no-progress",
               "--plot", str(tmp_path / "p.png"), "--y", "loss_rate", "--executor", "serial"])
    assert rc == 0 and (tmp_path / "p.png").exists()


# ----------------------------------------------------------------------------- full disk

def test_a_full_disk_stops_the_sweep_in_one_line_and_keeps_the_points_written(tmp_path, capsys, monkeypatch):
    out = tmp_path / "o"
    real = store.atomic_write
    written = []

    def fill_up(target, write):
        if Path(target).parent.name == "points":
            if len(written) >= 2:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            written.append(Path(target).name)
        real(target, write)

    monkeypatch.setattr(store, "atomic_write", fill_up)
    args = ["sweep", str(_scenario_file(tmp_path)), "--vary", "buffer=5,10,15,20", "--out", str(out),
            "--no-progress", "--executor", "serial"]
    rc = main(args)
    _one_line_exit_2(rc, capsys.readouterr().err, "No space left on device", "are kept in")
    kept = sorted(p.name for p in (out / "points").glob("*.json"))
    assert len(kept) == 2 and not list((out / "points").glob(".tmp-*"))
    monkeypatch.setattr(store, "atomic_write", real)
    assert main(args) == 0
    assert "2 of 4 points already finished" in capsys.readouterr().out
    assert len(pd.read_parquet(out / "results.parquet")) == 4


# ----------------------------------------------------------------------------- one sweep per directory

def test_another_sweep_into_a_sweep_directory_is_refused_and_the_same_one_goes_on(tmp_path):
    out = tmp_path / "o"
    sweep(tiny(), {"buffer": [5, 10]}, 1, out=out, executor="serial")
    table = (out / "results.parquet").read_bytes()
    with pytest.raises(BufsizeError, match="holds the results of another sweep"):
        sweep(tiny(duration="21s"), {"buffer": [5, 10]}, 1, out=out, executor="serial")
    with pytest.raises(BufsizeError, match="holds the results of another sweep"):
        sweep(tiny(), {"flows": [1, 2]}, 1, out=out, executor="serial")
    assert (out / "results.parquet").read_bytes() == table
    more = sweep(tiny(), {"buffer": [5, 10, 20]}, 2, out=out, executor="serial")  # more values and seeds
    assert more.attrs["sweep"]["skipped"] == 2 and more.attrs["sweep"]["done"] == 4


_HOLD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from bufsize.experiments import store
    store.acquire_lock(Path(sys.argv[1]))
    print("locked", flush=True)
    time.sleep(120)
""")


def test_a_directory_in_use_is_refused_with_its_holder_and_taken_over_once_it_died(tmp_path):
    out = tmp_path / "o"
    out.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", _HOLD, str(out)], stdout=subprocess.PIPE, text=True,
                              preexec_fn=_tied)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(BufsizeError, match=f"in use by another bufsize run \\(pid {holder.pid}\\)"):
            sweep(tiny(), {"buffer": [5]}, 1, out=out, executor="serial")
        assert not (out / "results.parquet").exists()
    finally:
        holder.kill()
        holder.wait()
    assert (out / store.LOCK).read_text().split() == [str(holder.pid)]  # stale: its holder is dead
    t = sweep(tiny(), {"buffer": [5]}, 1, out=out, executor="serial")
    assert t.attrs["sweep"]["done"] == 1
    assert (out / store.LOCK).read_text().split() == [str(os.getpid())]


def test_without_flock_a_live_pid_holds_the_directory_and_a_dead_one_does_not(tmp_path, monkeypatch):
    import fcntl

    def no_flock(fd, op):
        raise OSError(errno.ENOLCK, "no locks")

    monkeypatch.setattr(fcntl, "flock", no_flock)
    out = tmp_path / "o"
    out.mkdir()
    live = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"], preexec_fn=_tied)
    try:
        (out / store.LOCK).write_text(f"{live.pid}\n")
        with pytest.raises(BufsizeError, match=f"pid {live.pid}"):
            store.Store(out).prepare({"written_by": "test"})
    finally:
        live.kill()
        live.wait()
    st = store.Store(out)
    st.prepare({"written_by": "test"})  # the pid is dead now
    st.close()


# ----------------------------------------------------------------------------- workers and signals

_LONG = textwrap.dedent("""
    import sys
    sys.path.insert(0, {helpers!r})
    from exp_helpers import tiny
    from bufsize.experiments import sweep
    if __name__ == "__main__":
        sweep(tiny(duration="4000s"), {{"buffer": "0.1bdp..1bdp:10"}}, seeds=2, out={out!r},
              executor={executor!r}, workers=2)
""")


def _start(tmp_path, argv) -> subprocess.Popen:
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_tied)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads children from /proc (Linux)")
@pytest.mark.parametrize("executor", ["local", pytest.param("dask", marks=pytest.mark.slow)])
def test_killing_a_sweep_with_sigkill_leaves_no_worker_running(tmp_path, executor):
    if executor == "dask":
        pytest.importorskip("distributed")  # a LocalCluster's worker processes
    out = tmp_path / "k"
    script = tmp_path / "run.py"
    script.write_text(_LONG.format(helpers=HELPERS, out=str(out), executor=executor))
    proc = _start(tmp_path, [sys.executable, str(script)])
    workers: list[int] = []
    try:
        assert _wait_for(lambda: len(_children(proc.pid)) >= 2 and (out / "points").is_dir(), 60), \
            proc.stderr.read() if proc.poll() is not None else "no workers"
        workers = _children(proc.pid)
        assert _wait_for(lambda: len(list((out / "points").glob("*.json"))) >= 1, 60)  # mid-run
        os.kill(proc.pid, signal.SIGKILL)  # the sweep alone, not its process group
        proc.wait()
        assert _wait_for(lambda: not any(_running(w) for w in workers), 5.0), \
            [w for w in workers if _running(w)]
    finally:
        kill_left(proc, workers)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads children from /proc (Linux)")
@pytest.mark.parametrize("sig, code, said", [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")])
def test_sigterm_or_ctrl_c_stops_a_sweep_at_once_and_keeps_what_finished(tmp_path, sig, code, said):
    out = tmp_path / "t"
    scenario = tmp_path / "long.json"
    scenario.write_text(json.dumps(tiny(duration="4000s")))
    proc = _start(tmp_path, [sys.executable, "-m", "bufsize", "sweep", str(scenario), "--vary",
                             "buffer=0.1bdp..1bdp:10", "--seeds", "2", "--out", str(out), "--workers", "2",
                             "--no-progress"])
    workers: list[int] = []
    try:
        assert _wait_for(lambda: len(list((out / "points").glob("*.json"))) >= 2 if (out / "points").is_dir()
                         else False, 120), proc.stderr.read() if proc.poll() is not None else "no points"
        workers = _children(proc.pid)
        proc.send_signal(sig)
        t0 = time.monotonic()
        _, err = proc.communicate(timeout=60)
        # the runs in flight are 4000-s simulations: the sweep does not wait for them
        assert time.monotonic() - t0 < 10, err
        assert proc.returncode == code, err
        assert f"{said}; finished points are kept in" in err
        assert not any(_running(w) for w in workers)
        points = list((out / "points").glob("*.json"))
        table = pd.read_parquet(out / "results.parquet")
        assert 2 <= len(table) == len(points) < 20 and (table["status"] == "ok").all()
    finally:
        kill_left(proc, workers)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads children from /proc (Linux)")
def test_two_sweeps_into_one_directory_do_not_both_run(tmp_path, capsys):
    out = tmp_path / "two"
    script = tmp_path / "run.py"
    script.write_text(_LONG.format(helpers=HELPERS, out=str(out), executor="local"))
    proc = _start(tmp_path, [sys.executable, str(script)])
    try:
        assert _wait_for(lambda: (out / store.LOCK).exists() and (out / store.LOCK).read_text().strip() != "", 60)
        with pytest.raises(BufsizeError, match=f"in use by another bufsize run \\(pid {proc.pid}\\)"):
            sweep(tiny(duration="4000s"), {"buffer": "0.1bdp..1bdp:10"}, seeds=2, out=out, executor="serial")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()


def test_a_reproduction_batch_that_cannot_finish_in_time_is_refused_before_it_runs(tmp_path):
    from types import SimpleNamespace

    from bufsize.reproduce import _sim
    from bufsize.scenario import Scenario

    batch = [Scenario.from_dict(tiny(duration="20s")).to_dict() for _ in range(4)]
    ctx = SimpleNamespace(workers=2, client=None, store_dir=tmp_path / "store", max_time=1e-3)
    with pytest.raises(BufsizeError, match=r"this figure's batch of simulations is 4 runs .* more than the"):
        _sim.run_scenarios(batch, ctx)
    assert not list((tmp_path / "store").rglob("*.json"))  # nothing ran
    _sim.check_cost(batch, SimpleNamespace(workers=2, client=None, max_time=24 * 3600.0))
    _sim.check_cost(batch, SimpleNamespace(workers=2, client=None, max_time=None))


def test_a_resumed_reproduction_batch_is_costed_on_what_is_left(tmp_path):
    from types import SimpleNamespace

    from bufsize.reproduce import _sim
    from bufsize.scenario import Scenario

    batch = [Scenario.from_dict(tiny(duration="2000s", buffer=f"{b}pkt")).to_dict() for b in (20, 30, 40, 50)]
    loose = SimpleNamespace(workers=1, client=None, max_time=None)
    whole = _sim.check_cost(batch, loose).wall_seconds
    one = _sim.check_cost(batch[:1], loose).wall_seconds
    limit = (whole * one) ** 0.5  # between the two
    st = store.Store(tmp_path / "store")
    st.prepare({"written_by": "test"})
    for d in batch[1:]:  # three of the four finished in an earlier, interrupted run
        si = Scenario.from_dict(d).to_dict()
        st.save({"key": store.point_key(si, si["seed"], store.engine_version()), "seed": si["seed"],
                 "status": "ok", "summary": {"utilization": 1.0}})
    st.close()
    ctx = SimpleNamespace(workers=1, client=None, store_dir=tmp_path / "store", max_time=limit)
    with pytest.raises(BufsizeError, match="4 runs"):
        _sim.check_cost(batch, ctx)
    rows = _sim.run_scenarios(batch, ctx)  # only the missing run is costed, and run
    assert len(rows) == 4 and rows[0]["summary"]["utilization"] > 0.5


def test_a_point_too_big_for_the_machine_fails_alone_and_the_rest_of_the_sweep_runs(monkeypatch):
    monkeypatch.setenv("BUFSIZE_MEMORY_LIMIT", "1GiB")
    t = sweep(tiny(), {"flows": [1, 2_000_000]}, 1, executor="serial")
    assert t["status"].tolist() == ["ok", "failed"]
    assert "more than the 1 GiB of $BUFSIZE_MEMORY_LIMIT" in t.loc[1, "error"]
