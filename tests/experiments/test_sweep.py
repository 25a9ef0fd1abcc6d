"""Sweeps: same table on every executor, resumable after kill -9, failures recorded, clear errors."""

from __future__ import annotations

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
from bufsize.experiments import same_table, store, sweep
from bufsize.experiments._task import run_point
from exp_helpers import tiny

VARY = {"buffer": "0.2bdp..1bdp:3", "flows": [1, 2]}


@pytest.fixture(scope="module")
def serial_table():
    return sweep(tiny(), VARY, seeds=2, executor="serial")


def test_table_shape_and_values(serial_table):
    t = serial_table
    assert len(t) == 3 * 2 * 2
    assert list(t.columns[:4]) == ["point", "seed", "buffer", "flows"]
    assert t[["point", "seed"]].apply(tuple, axis=1).is_monotonic_increasing
    assert (t["status"] == "ok").all() and t["error"].isna().all()
    assert t["key"].is_unique
    # first axis slowest: points 0,1 are buffer 0.2 with 1 and 2 flows
    assert t.loc[t.point == 1, ["buffer", "flows"]].iloc[0].tolist() == [0.2, 2]
    # the engine got the buffer the label says: round(0.2 * 125) = 25 packets
    assert (t.loc[t.buffer == 0.2, "buffer_packets"] == 25).all()
    assert (t["bdp_packets"] == 125).all()
    # physics, not a snapshot: past the slow-start overshoot (whose SACK-less NewReno recovery, one
    # hole per RTT, can fill these 15 s: 0.80 at 1 BDP with limited transmit), a larger buffer never
    # lowers the utilization of one flow
    steady = sweep(dict(tiny(duration="60s"), warmup="30s"), {"buffer": "0.2bdp..1bdp:3"}, seeds=1,
                   executor="serial")
    assert steady.sort_values("buffer")["utilization"].is_monotonic_increasing
    assert ((t["utilization"] > 0.5) & (t["utilization"] <= 1.0)).all()
    assert t["conservation_ok"].all()
    assert (t["engine_version"] == store.engine_version()).all()


def test_local_pool_and_dask_give_the_serial_table(serial_table):
    local = sweep(tiny(), VARY, seeds=2, executor="local", workers=2)
    assert local.attrs["sweep"]["executor"] == "local"
    assert same_table(local, serial_table)
    dask = sweep(tiny(), VARY, seeds=2, executor="dask", workers=2)
    assert dask.attrs["sweep"]["executor"] == "dask"
    assert same_table(dask, serial_table)
    # the comparison is not vacuous: another seed set changes the table
    other = sweep(tiny(), VARY, seeds=[1, 3], executor="serial")
    assert not same_table(other, serial_table)


def test_rerun_skips_finished_points_and_keys_track_content(tmp_path, monkeypatch):
    out = tmp_path / "s"
    first = sweep(tiny(), VARY, seeds=1, out=out, executor="serial")
    assert first.attrs["sweep"]["done"] == 6
    files = {p.name: p.stat().st_mtime_ns for p in (out / "points").glob("*.json")}
    assert len(files) == 6
    again = sweep(tiny(), VARY, seeds=1, out=out, executor="serial")
    assert again.attrs["sweep"] == {**again.attrs["sweep"], "done": 0, "skipped": 6}
    assert {p.name: p.stat().st_mtime_ns for p in (out / "points").glob("*.json")} == files
    assert same_table(pd.read_parquet(out / "results.parquet"), first)
    # one more seed: only the new runs
    more = sweep(tiny(), VARY, seeds=2, out=out, executor="serial")
    assert more.attrs["sweep"]["done"] == 6 and more.attrs["sweep"]["skipped"] == 6
    # a changed field changes every key (in its own directory: another sweep is refused in this one)
    changed = sweep(tiny(duration="21s"), VARY, seeds=1, out=tmp_path / "changed", executor="serial")
    assert changed.attrs["sweep"]["done"] == 6 and not set(changed["key"]) & set(first["key"])
    # so does another engine version, and the same sweep goes on in its directory
    monkeypatch.setattr(store, "engine_version", lambda: "9.9.9-test")
    newer = sweep(tiny(), VARY, seeds=1, out=out, executor="serial")
    assert newer.attrs["sweep"]["done"] == 6 and not set(newer["key"]) & set(first["key"])


def test_failing_points_are_recorded_and_the_rest_complete(tmp_path):
    out = tmp_path / "f"
    t = sweep(tiny(), {"flows": [0, 1, 2]}, seeds=1, out=out, executor="local", workers=2)
    assert t["status"].tolist() == ["failed", "ok", "ok"]
    assert "dumbbell.flows" in t.loc[0, "error"] and "at least 1" in t.loc[0, "error"]
    assert t.attrs["sweep"]["failed"] == 1 and t.attrs["sweep"]["done"] == 2
    rec = json.loads((out / "points" / f"{t.loc[0, 'key']}.json").read_text())
    assert rec["status"] == "failed" and rec["error"] == t.loc[0, "error"]
    # a failure inside the engine itself becomes a record, not an exception
    bad = run_point(json.dumps({"seed": 1, "duration_s": 1.0, "warmup_s": 0.0, "links": [], "flows": [],
                                "bottleneck": "x"}))
    assert bad["status"] == "failed" and bad["error"].startswith("ScenarioError") and bad["summary"] == {}


_KILL_SCRIPT = textwrap.dedent("""
    import sys
    sys.path.insert(0, {helpers!r})
    from exp_helpers import tiny
    from bufsize.experiments import sweep
    sweep(tiny(duration="400s"), {{"buffer": "0.1bdp..1bdp:10"}}, seeds=2, out={out!r}, executor="local", workers=2)
""")


def _whole_points(out):
    """The sweep's point files; a point being written is a hidden '.tmp-*' file (pathlib's glob
    matches hidden names, the shell's does not)."""
    return [p for p in (out / "points").glob("*.json") if not p.name.startswith(".")]


def test_kill_9_mid_sweep_then_rerun_completes_exactly_once(tmp_path):
    out = tmp_path / "k"
    script = tmp_path / "run.py"
    script.write_text(_KILL_SCRIPT.format(helpers=str(Path(__file__).parent), out=str(out)))
    proc = subprocess.Popen([sys.executable, str(script)], start_new_session=True,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            n = len(_whole_points(out)) if (out / "points").is_dir() else 0
            if n >= 4 or proc.poll() is not None:
                break
            time.sleep(0.02)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the sweep and its pool workers, mid-run
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, proc.stderr.read().decode()
    before = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in _whole_points(out)}
    assert 4 <= len(before) < 20, "the kill did not land mid-run"
    for p in _whole_points(out):
        json.loads(p.read_text())  # every point file that exists is whole (a killed write leaves only a hidden temp)
    t = sweep(tiny(duration="400s"), {"buffer": "0.1bdp..1bdp:10"}, seeds=2, out=out, executor="serial")
    assert t.attrs["sweep"]["skipped"] == len(before)
    assert t.attrs["sweep"]["done"] == 20 - len(before)
    assert len(t) == 20 and t["key"].is_unique and (t["status"] == "ok").all()
    assert sorted(zip(t.point, t.seed)) == [(i, s) for i in range(10) for s in (1, 2)]
    after = {p.name: (p.stat().st_ino, p.stat().st_mtime_ns) for p in (out / "points").glob("*.json")}
    assert {k: after[k] for k in before} == before  # finished points were not recomputed
    assert not list((out / "points").glob(".tmp-*"))
    assert len(pd.read_parquet(out / "results.parquet")) == 20


# ----------------------------------------------------------------------------- CLI

def _scenario_file(tmp_path) -> Path:
    p = tmp_path / "tiny.json"
    p.write_text(json.dumps(tiny()))
    return p


def test_cli_sweep_writes_table_and_plot(tmp_path, capsys):
    f = _scenario_file(tmp_path)
    rc = main(["sweep", str(f), "--vary", "buffer=0.2bdp..1bdp:3", "--vary", "flows=1,2", "--seeds", "2",
               "--out", str(tmp_path / "o"), "--workers", "2", "--plot", str(tmp_path / "p.png"), "--no-progress"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "12 done, 0 failed, 0 skipped" in out
    assert (tmp_path / "p.png").stat().st_size > 5000
    t = pd.read_parquet(tmp_path / "o" / "results.parquet")
    assert len(t) == 12
    rc = main(["sweep", str(f), "--vary", "buffer=0.2bdp..1bdp:3", "--vary", "flows=1,2", "--seeds", "2",
               "--out", str(tmp_path / "o"), "--no-progress"])
    assert rc == 0 and "12 of 12 points already finished" in capsys.readouterr().out


@pytest.mark.parametrize("args, match", [
    (["--vary", "bufer=1,2"], "--vary: bufer: unknown field 'bufer'"),
    (["--vary", "buffer=1..10:0"], "--vary: buffer=1..10:0: empty range"),
    (["--vary", "buffer=1,2", "--seeds", "0"], "--seeds: must be at least 1"),
    (["--vary", "buffer=1,2", "--scheduler", "tcp://127.0.0.1:9", "--scheduler-timeout", "1"],
     "--scheduler: cannot reach the Dask scheduler at 'tcp://127.0.0.1:9'"),
])
def test_cli_errors_are_one_line_exit_2_and_nothing_is_touched(tmp_path, capsys, args, match):
    f = _scenario_file(tmp_path)
    out = tmp_path / "o"
    rc = main(["sweep", str(f), "--out", str(out), "--no-progress", *args])
    err = capsys.readouterr().err
    assert rc == 2
    assert err.count("\n") == 1 and match in err, err
    assert not out.exists()


def test_cli_read_only_directory(tmp_path, capsys):
    f = _scenario_file(tmp_path)
    out = tmp_path / "ro"
    assert main(["sweep", str(f), "--vary", "buffer=1,2", "--out", str(out), "--no-progress"]) == 0
    capsys.readouterr()
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    os.chmod(out / "points", 0o555)
    os.chmod(out, 0o555)
    try:
        probe = out / "probe"
        try:
            probe.write_text("x")  # root ignores the mode bits: use a directory nobody may write
            probe.unlink()
            target = Path("/sys/bufsize-sweep-test")
        except PermissionError:
            target = out
        rc = main(["sweep", str(f), "--vary", "buffer=1,2,3", "--out", str(target), "--no-progress"])
        err = capsys.readouterr().err
        assert rc == 2 and err.count("\n") == 1 and "--out: cannot write to" in err, err
    finally:
        os.chmod(out, 0o755)
        os.chmod(out / "points", 0o755)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_cli_refuses_a_foreign_directory(tmp_path, capsys):
    f = _scenario_file(tmp_path)
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "thesis.tex").write_text("x")
    rc = main(["sweep", str(f), "--vary", "buffer=1,2", "--out", str(tmp_path / "mine"), "--no-progress"])
    assert rc == 2 and "holds other files" in capsys.readouterr().err
    assert [p.name for p in (tmp_path / "mine").iterdir()] == ["thesis.tex"]


def test_cli_failed_points_exit_1_with_the_table_written(tmp_path, capsys):
    f = _scenario_file(tmp_path)
    rc = main(["sweep", str(f), "--vary", "flows=0,1", "--out", str(tmp_path / "o"), "--no-progress",
               "--executor", "serial"])
    io = capsys.readouterr()
    assert rc == 1 and "1 run failed" in io.err and "1 done, 1 failed" in io.out
    assert pd.read_parquet(tmp_path / "o" / "results.parquet")["status"].tolist() == ["failed", "ok"]


def test_a_worker_with_another_engine_is_a_failed_point(monkeypatch):
    sw = sys.modules["bufsize.experiments.sweep"]  # the package's `sweep` attribute is the function

    real = sw.run_point

    def other_engine(js):
        rec = real(js)
        rec["summary"]["engine_version"] = "0.0.0-elsewhere"
        return rec

    monkeypatch.setattr(sw, "run_point", other_engine)
    t = sweep(tiny(), {"flows": [1]}, seeds=1, executor="serial")
    assert t["status"].tolist() == ["failed"] and "worker engine 0.0.0-elsewhere differs" in t.loc[0, "error"]


def test_per_flow_rows_on_request(tmp_path):
    out = tmp_path / "fl"
    t = sweep(tiny(), {"flows": [1, 3]}, seeds=1, out=out, executor="serial")
    assert "flows" not in t.attrs and not (out / "flows.parquet").exists()
    rec = json.loads(next((out / "points").glob("*.json")).read_text())
    assert rec["flows"] is None  # not kept unless asked for
    t = sweep(tiny(), {"flows": [1, 3]}, seeds=1, out=out, executor="serial", flows=True)
    assert t.attrs["sweep"]["done"] == 2  # run again: the first run did not keep the per-flow rows
    f = pd.read_parquet(out / "flows.parquet")
    assert len(f) == 1 + 3 and f.groupby("point").size().tolist() == [1, 3]
    assert {"goodput_bps", "flows", "seed", "key"} <= set(f.columns)
    # per-flow goodput adds up to the total the summary reports
    for _, row in t.iterrows():
        assert f[f.key == row["key"]]["goodput_bps"].sum() == pytest.approx(row["goodput_bps_total"], rel=1e-9)
    again = sweep(tiny(), {"flows": [1, 3]}, seeds=1, out=out, executor="serial", flows=True)
    assert again.attrs["sweep"]["skipped"] == 2
    with pytest.raises(Exception, match="--executor"):
        sweep(tiny(), {"flows": [1]}, executor="threads")
