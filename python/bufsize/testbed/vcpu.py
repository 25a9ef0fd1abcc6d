"""Keep the VM's vCPUs from halting while a run is on: guest halt polling.

On these VMs an idle vCPU executes HLT and the hypervisor takes its thread off the host CPU; the
next timer interrupt then waits for the host to run the thread again. Traced on this machine
(``sched``/``hrtimer`` events, ``trace_clock=mono``): during a single-flow run at 50 Mb/s, B = BDP,
the delay element's CPU showed no event at all for 4-14 ms, after which its wake-up timer and
htb's rate timer fired together, late by the whole gap. Those gaps are the delay element's stalls
(10-24 per minute, the worst 13-45 ms); they hardly show as steal (0.04-0.07 % of the run).

The guest's ``cpuidle-haltpoll`` driver can poll for a while before halting
(``/sys/module/haltpoll/parameters/guest_halt_poll_ns``, 0 on these machines). With 1 ms, the
delay element's CPU never halts between packets (it wakes every 0.1-0.5 ms at 50-100 Mb/s) and the
same run gave 3 stalls, the worst 6 ms. Polling is idle time for the guest's accounting, so the
CPU checks are unaffected.

:func:`enable` sets the polling for the duration of a run and :func:`restore` puts the machine's
values back. The first run to change them records the originals in ``WORK_ROOT/haltpoll.json``
(created exclusively, so concurrent runs leave it to the first); ``bufsize testbed cleanup``
restores from it after a crash when no run is left.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

PARAMS = Path("/sys/module/haltpoll/parameters")
_FIELDS = ("guest_halt_poll_ns", "guest_halt_poll_allow_shrink")


@dataclass
class HaltPoll:
    """What :func:`enable` did: ``state`` is "set" (we changed it and must restore), "shared"
    (another run had already set it), "off" (not asked) or "unavailable" (with the reason)."""

    state: str
    poll_ns: int | None = None
    detail: str = ""
    record: Path | None = None

    def to_dict(self) -> dict:
        return {"state": self.state, "poll_ns": self.poll_ns, "detail": self.detail}


def _read(params: Path) -> dict[str, str]:
    return {f: (params / f).read_text().strip() for f in _FIELDS}


def _write(params: Path, values: dict[str, str]) -> None:
    # shrink first, so that the poll time is never shrunk back while we set it
    for f in reversed(_FIELDS):
        (params / f).write_text(values[f])


def enable(poll_ns: int | None, work_root: Path, params: Path = PARAMS) -> HaltPoll:
    """Poll up to ``poll_ns`` before halting an idle vCPU (None: leave the machine as it is)."""
    if poll_ns is None:
        return HaltPoll("off")
    if not all((params / f).exists() for f in _FIELDS):
        return HaltPoll("unavailable", detail=f"no {params} (no cpuidle-haltpoll driver)")
    if not os.access(params / _FIELDS[0], os.W_OK):
        return HaltPoll("unavailable", detail="not allowed to change guest halt polling (root needed)")
    work_root.mkdir(parents=True, exist_ok=True)
    record = work_root / "haltpoll.json"
    try:
        fd = os.open(record, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return HaltPoll("shared", poll_ns, detail=f"set by another run ({record})")
    with os.fdopen(fd, "w") as f:
        json.dump(_read(params), f)
    _write(params, {"guest_halt_poll_ns": str(int(poll_ns)), "guest_halt_poll_allow_shrink": "N"})
    return HaltPoll("set", poll_ns, record=record)


def restore(hp: HaltPoll, params: Path = PARAMS) -> None:
    """Undo :func:`enable` (only the run that changed the values restores them)."""
    if hp.state == "set" and hp.record is not None:
        restore_from(hp.record, params)


def restore_from(record: Path, params: Path = PARAMS) -> bool:
    """Write back the values saved in ``record`` and remove it; False if there was none."""
    try:
        saved = json.loads(record.read_text())
    except (OSError, ValueError):
        return False
    try:
        _write(params, saved)
    finally:
        record.unlink(missing_ok=True)
    return True
