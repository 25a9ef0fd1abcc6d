"""Helpers for tests that kill a process and check what it started (Linux's /proc)."""

from __future__ import annotations

import time
from pathlib import Path


def descendants(pid: int) -> list[int]:
    """``pid``'s descendants (children, theirs, ...)."""
    kids = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids += [int(x) for x in (task / "children").read_text().split()]
        except OSError:
            pass
    return kids + [g for k in kids for g in descendants(k)]


def running(pid: int) -> bool:
    """Whether ``pid`` still runs (a zombie no longer does: its reaper may be slow)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return False
    return fields[0] not in ("Z", "X")


def wait_for(cond, seconds: float) -> bool:
    """Poll ``cond`` every 50 ms for up to ``seconds``; its last value."""
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if cond():
            return True
        time.sleep(0.05)
    return cond()


def kill_left(proc, pids: list[int]) -> None:
    """Cleanup after such a test: SIGKILL whichever of ``pids`` still runs, then ``proc`` (a
    ``subprocess.Popen``) if it has not exited, and reap it."""
    import os
    import signal

    for p in pids:
        if running(p):
            os.kill(p, signal.SIGKILL)
    if proc.poll() is None:
        proc.kill()
        proc.wait()
