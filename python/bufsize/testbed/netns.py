"""Namespaces, commands and cleanup, all under one per-run prefix.

Every object a run creates is named after its run id ``bst`` + 5 hex digits (e.g. ``bst3fa91``):
namespaces ``<id>-s`` (senders), ``<id>-r`` (router), ``<id>-d`` (receivers); the veths and the
TUN live only inside those namespaces (they are created there, never in the host namespace), so
deleting the namespaces deletes them; every process of the run lives in one of the namespaces, so
``ip netns pids`` finds it. :func:`cleanup` removes runs by that pattern and nothing else.
"""

from __future__ import annotations

import os
import re
import secrets
import signal
import subprocess
import shutil
import time
from pathlib import Path
from typing import Sequence

PREFIX = "bst"
#: Where runs keep their scratch files (one directory per run id).
WORK_ROOT = Path(os.environ.get("BUFSIZE_TESTBED_WORK", "/tmp/bufsize-testbed"))
RUN_ID_RE = re.compile(r"^bst[0-9a-f]{5}$")
NETNS_RE = re.compile(r"^(bst[0-9a-f]{5})-[srd]$")
ROLES = ("s", "r", "d")


class CommandError(RuntimeError):
    """A system command of the testbed failed (not a user error: the machine said no)."""


def run(cmd: Sequence[str], *, check: bool = True, timeout: float = 30.0, input: str | None = None) -> str:
    """Run a command, return stdout; raise CommandError with stderr on failure."""
    try:
        p = subprocess.run(list(cmd), capture_output=True, text=True, timeout=timeout, input=input)
    except FileNotFoundError:
        raise CommandError(f"{cmd[0]}: not installed") from None
    except subprocess.TimeoutExpired:
        raise CommandError(f"{' '.join(cmd)}: timed out after {timeout:g} s") from None
    if check and p.returncode != 0:
        raise CommandError(f"{' '.join(cmd)}: {p.stderr.strip() or 'exit code ' + str(p.returncode)}")
    return p.stdout


def ns_name(run_id: str, role: str) -> str:
    return f"{run_id}-{role}"


def new_run_id() -> str:
    """A fresh run id whose namespaces do not exist yet."""
    existing = set(list_namespaces())
    for _ in range(100):
        rid = PREFIX + secrets.token_hex(3)[:5]
        if not any(ns_name(rid, r) in existing for r in ROLES):
            return rid
    raise CommandError("could not find a free run id")


def list_namespaces() -> list[str]:
    out = run(["ip", "-j", "netns", "list"], check=False)
    import json

    try:
        return [d["name"] for d in json.loads(out or "[]")]
    except (ValueError, KeyError, TypeError):
        return [line.split()[0] for line in out.splitlines() if line.strip()]


def testbed_namespaces(run_id: str | None = None) -> list[str]:
    """Namespaces of testbed runs (of one run if ``run_id`` is given)."""
    names = []
    for n in list_namespaces():
        m = NETNS_RE.match(n)
        if m and (run_id is None or m.group(1) == run_id):
            names.append(n)
    return sorted(names)


def namespace_pids(ns: str) -> list[int]:
    out = run(["ip", "netns", "pids", ns], check=False)
    return [int(x) for x in out.split() if x.isdigit()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # a zombie counts as gone
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def kill_pids(pids: Sequence[int], grace_s: float = 2.0) -> None:
    """SIGTERM, wait up to ``grace_s``, then SIGKILL what is left."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + grace_s
    while time.monotonic() < deadline and any(_alive(p) for p in pids):
        time.sleep(0.05)
    for pid in pids:
        if _alive(pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def cleanup(run_id: str | None = None, *, remove_work: bool = True) -> dict[str, list]:
    """Kill the processes of testbed runs and delete their namespaces (with their links).

    ``run_id=None`` removes every testbed run on the machine (everything matching ``bst?????-[srd]``);
    nothing else is touched. With ``remove_work`` the runs' scratch directories under
    :data:`WORK_ROOT` go too. Returns what was removed.
    """
    if run_id is not None and not RUN_ID_RE.match(run_id):
        from bufsize.errors import BufsizeError

        raise BufsizeError(f"{run_id!r} is not a testbed run id (bst + 5 hex digits)", argument="RUN_ID")
    names = testbed_namespaces(run_id)
    pids = sorted({p for n in names for p in namespace_pids(n)})
    kill_pids(pids)
    for n in names:
        run(["ip", "netns", "delete", n], check=False)
    dirs = []
    if remove_work and WORK_ROOT.is_dir():
        for d in sorted(WORK_ROOT.iterdir()):
            if RUN_ID_RE.match(d.name) and (run_id is None or d.name == run_id):
                shutil.rmtree(d, ignore_errors=True)
                dirs.append(str(d))
    restored = []
    record = WORK_ROOT / "haltpoll.json"
    if record.exists() and not testbed_namespaces():
        # a crashed run left the machine's guest halt polling changed, and no run is left to need it
        from bufsize.testbed import vcpu

        if vcpu.restore_from(record):
            restored.append("guest_halt_poll_ns")
    return {"namespaces": names, "pids": pids, "work_dirs": dirs, "restored": restored}


# ----------------------------------------------------------------------------- crash recovery
# A run records its owner (pid and the process's start time, so a reused pid is not mistaken for
# it) in its work directory before it creates anything, and deletes the record when it has torn
# down. A run killed with SIGKILL leaves its namespaces, its work directory and the record; the
# next run (and ``bufsize testbed check``) finds runs whose owner is gone. Runs without a record
# (another version, the check's scratch namespace) are never touched here.
OWNER_FILE = "owner.json"


def _start_time(pid: int) -> int | None:
    """The process's start time (clock ticks since boot), or None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def write_owner(run_id: str) -> None:
    """Record this process as the owner of ``run_id`` (before the run creates anything)."""
    import json

    work = WORK_ROOT / run_id
    work.mkdir(parents=True, exist_ok=True)
    tmp = work / (OWNER_FILE + ".tmp")
    tmp.write_text(json.dumps({"pid": os.getpid(), "start": _start_time(os.getpid())}))
    tmp.replace(work / OWNER_FILE)


def release_owner(run_id: str) -> None:
    """The run has torn down: forget its owner (a kept work directory is then left alone)."""
    try:
        (WORK_ROOT / run_id / OWNER_FILE).unlink()
    except OSError:
        pass


def stale_runs() -> dict[str, int]:
    """Runs whose recorded owner process is gone: run id -> the owner's pid."""
    import json

    ids = {m.group(1) for m in (NETNS_RE.match(n) for n in list_namespaces()) if m}
    if WORK_ROOT.is_dir():
        ids |= {d.name for d in WORK_ROOT.iterdir() if RUN_ID_RE.match(d.name)}
    out = {}
    for rid in sorted(ids):
        try:
            rec = json.loads((WORK_ROOT / rid / OWNER_FILE).read_text())
            pid, start = int(rec["pid"]), rec.get("start")
        except (OSError, ValueError, KeyError, TypeError):
            continue  # no record: not ours to judge
        now = _start_time(pid)
        if now is None or (start is not None and now != start) or not _alive(pid):
            out[rid] = pid
    return out


def remove_stale(log=lambda s: None) -> dict[str, int]:
    """Remove the runs whose owner is gone (:func:`stale_runs`) and say so in one line."""
    stale = stale_runs()
    for rid in stale:
        cleanup(rid)
    if stale:
        what = ", ".join(f"{rid} (pid {pid})" for rid, pid in stale.items())
        log(f"removed {len(stale)} testbed run{'s' if len(stale) > 1 else ''} left by a process that is gone: {what}")
    return stale


def leftovers(run_id: str) -> dict[str, list]:
    """What of a run still exists: namespaces, processes in them, and links named after it in the
    host namespace (there should never be any; listed to prove it)."""
    names = testbed_namespaces(run_id)
    pids = sorted({p for n in names for p in namespace_pids(n)})
    import json

    links = [d.get("ifname", "") for d in json.loads(run(["ip", "-j", "link", "show"], check=False) or "[]")]
    procs = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if run_id in cmd and int(entry) != os.getpid():
                procs.append(int(entry))
    return {"namespaces": names, "pids": pids, "links": [l for l in links if run_id in l], "processes": sorted(procs),
            "work_dirs": [str(WORK_ROOT / run_id)] if (WORK_ROOT / run_id).exists() else []}
