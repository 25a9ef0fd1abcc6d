"""Runs whose owner died (SIGKILL leaves their namespaces and work directory) are found by the next
run, which removes them saying so in one line, and reported by ``bufsize testbed check``; runs of
live processes are never touched."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from bufsize.testbed import netns


@pytest.fixture
def work(tmp_path, monkeypatch):
    monkeypatch.setattr(netns, "WORK_ROOT", tmp_path)
    return tmp_path


def _record(work, rid, pid, start):
    (work / rid).mkdir()
    (work / rid / netns.OWNER_FILE).write_text(json.dumps({"pid": pid, "start": start}))


def test_a_run_of_a_live_process_is_not_stale(work, monkeypatch):
    monkeypatch.setattr(netns, "list_namespaces", lambda: ["bst00001-s", "bst00001-r", "bst00001-d"])
    netns.write_owner("bst00001")
    assert netns.stale_runs() == {}
    netns.release_owner("bst00001")  # torn down: the kept work directory has no owner any more
    assert not (work / "bst00001" / netns.OWNER_FILE).exists()
    assert netns.stale_runs() == {}


def test_a_dead_owner_or_a_reused_pid_makes_a_run_stale(work, monkeypatch):
    monkeypatch.setattr(netns, "list_namespaces", lambda: ["bst0000a-s", "bst0000b-r", "other-ns"])
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    _record(work, "bst0000a", dead.pid, 12345)                       # the process is gone
    _record(work, "bst0000b", os.getpid(), netns._start_time(os.getpid()) + 1)  # the pid now belongs to another
    _record(work, "bst0000c", os.getpid(), netns._start_time(os.getpid()))      # alive: ours
    (work / "bst0000d").mkdir()                                       # no record: not judged
    assert netns.stale_runs() == {"bst0000a": dead.pid, "bst0000b": os.getpid()}


def test_remove_stale_says_so_in_one_line(work, monkeypatch):
    monkeypatch.setattr(netns, "list_namespaces", lambda: [])
    removed = []
    monkeypatch.setattr(netns, "cleanup", lambda rid: removed.append(rid))
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    _record(work, "bst0000a", dead.pid, 1)
    _record(work, "bst0000e", dead.pid, 1)
    lines = []
    assert set(netns.remove_stale(lines.append)) == {"bst0000a", "bst0000e"}
    assert removed == ["bst0000a", "bst0000e"]
    assert len(lines) == 1 and "removed 2 testbed runs left by a process that is gone" in lines[0]
    assert "bst0000a" in lines[0] and f"pid {dead.pid}" in lines[0]
    lines.clear()
    monkeypatch.setattr(netns, "stale_runs", lambda: {})
    netns.remove_stale(lines.append)
    assert lines == []  # nothing to say when nothing was left behind


@pytest.mark.testbed
def test_a_runner_killed_with_sigkill_is_reported_then_removed_by_the_next_run():
    from bufsize.testbed.check import check

    before = set(netns.testbed_namespaces())
    p = subprocess.Popen([sys.executable, "-m", "bufsize", "testbed", "run", "--rtt", "20ms", "--buffer", "20",
                          "--duration", "60s", "--warmup", "1s", "--quiet"],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rid = None
    try:
        deadline = time.monotonic() + 60
        while rid is None and time.monotonic() < deadline:
            new = {n[:-2] for n in netns.testbed_namespaces()} - {n[:-2] for n in before}
            rid = sorted(new)[0] if len(new) == 1 and len(netns.testbed_namespaces(sorted(new)[0])) == 3 else None
            time.sleep(0.1)
        assert rid, "the run never created its namespaces"
        assert rid not in netns.stale_runs()  # its owner is alive
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=10)
        assert netns.stale_runs().get(rid) == p.pid
        item = next(i for i in check().items if i.name == "stale_runs")
        assert item.ok and rid in item.detail and "cleanup" in item.detail
        lines: list[str] = []
        assert rid in netns.remove_stale(lines.append)
        assert len(lines) == 1 and rid in lines[0]
        left = netns.leftovers(rid)
        assert left == {"namespaces": [], "pids": [], "links": [], "processes": [], "work_dirs": []}, left
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        if rid:
            netns.cleanup(rid)
