"""CPU accounting from ``/proc/stat`` and ``/proc/PID/stat``: pure parsing and arithmetic.

These machines are VMs; *steal* is the time the hypervisor ran something else while a vCPU
wanted to run. It shows up as the 8th value of the ``cpu`` line of ``/proc/stat``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

_FIELDS = ("user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal")


@dataclass(frozen=True)
class CpuTimes:
    """Aggregate CPU times (clock ticks) of all CPUs, from the ``cpu`` line."""

    user: int
    nice: int
    system: int
    idle: int
    iowait: int
    irq: int
    softirq: int
    steal: int

    @property
    def total(self) -> int:
        return sum(getattr(self, f) for f in _FIELDS)

    @property
    def busy(self) -> int:
        """Time spent running something on this VM (neither idle nor stolen)."""
        return self.user + self.nice + self.system + self.irq + self.softirq

    @property
    def busy_normal(self) -> int:
        """Busy time without niced user time: work that competes with the testbed on equal terms
        (a nice-19 task gets about 1.5 % of a CPU against a nice-0 one)."""
        return self.user + self.system + self.irq + self.softirq


def parse_proc_stat(text: str) -> CpuTimes:
    """The aggregate ``cpu`` line of /proc/stat (guest times are already inside user/nice)."""
    for line in text.splitlines():
        parts = line.split()
        if parts and parts[0] == "cpu":
            vals = [int(v) for v in parts[1:9]]
            if len(vals) < 8:
                vals += [0] * (8 - len(vals))
            return CpuTimes(*vals)
    raise ValueError("no aggregate 'cpu' line in /proc/stat text")


def fractions(a: CpuTimes, b: CpuTimes) -> dict[str, float]:
    """Fractions of the elapsed CPU time between two readings: ``steal``, ``busy``, ``idle``.

    Fractions are of *all* CPUs together (2 vCPUs at 100 % = 1.0). An interval without any tick
    gives zeros.
    """
    dt = b.total - a.total
    if dt <= 0:
        return {"steal": 0.0, "busy": 0.0, "busy_normal": 0.0, "idle": 0.0}
    return {
        "steal": (b.steal - a.steal) / dt,
        "busy": (b.busy - a.busy) / dt,
        "busy_normal": (b.busy_normal - a.busy_normal) / dt,
        "idle": ((b.idle + b.iowait) - (a.idle + a.iowait)) / dt,
    }


def windowed_max(times: Sequence[float], steal: Sequence[int], total: Sequence[int], window_s: float) -> float:
    """Largest steal fraction over any window of at least ``window_s`` between samples.

    ``times`` are the sample times, ``steal`` and ``total`` the cumulative tick counters at those
    times. For each sample the window reaches back to the latest sample at least ``window_s``
    earlier. Returns 0 when the samples span less than one window.
    """
    if not (len(times) == len(steal) == len(total)):
        raise ValueError("times, steal and total must have the same length")
    best = 0.0
    j = 0
    for i in range(len(times)):
        while j + 1 < i and times[i] - times[j + 1] >= window_s:
            j += 1
        if times[i] - times[j] >= window_s:
            dt = total[i] - total[j]
            if dt > 0:
                best = max(best, (steal[i] - steal[j]) / dt)
    return best


def parse_pid_cpu_ticks(text: str) -> int:
    """utime + stime (clock ticks) from the text of ``/proc/PID/stat``."""
    # the command name (field 2) may contain spaces and parentheses: split after the last ')'
    rest = text[text.rindex(")") + 2:].split()
    # rest[0] is field 3 (state); utime and stime are fields 14 and 15
    return int(rest[11]) + int(rest[12])


def parse_schedstat(text: str) -> tuple[int, int]:
    """(time on CPU, time waiting on a run queue) in ns from ``/proc/PID/schedstat``.

    The waiting time is the direct measure of CPU contention for a process: how long it was
    runnable but not running.
    """
    parts = text.split()
    return int(parts[0]), int(parts[1])
