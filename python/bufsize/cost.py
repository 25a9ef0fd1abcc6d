"""What a simulation will cost before it starts: peak memory, events and wall time.

``estimate(scenario)`` reads only the scenario (nothing runs) and returns a :class:`CostEstimate`;
``check_fits(est)`` raises :class:`BufsizeError` when the memory estimate exceeds what this machine
has. ``bufsize simulate``, sweep points and the verified ``recommend`` call both before every run.

The estimate is a sum of parts, each a count taken from the scenario times a per-item cost measured
on the engine (the constants below, all in one place):

- **memory**: the Python process with pandas loaded, plus the larger of the engine's state at the
  end of the run (per-flow state, packets in the network, the bottleneck's cwnd-sum samples,
  trace samples and transfer records, plus the results JSON it builds) and the Python side's
  results (the JSON text, its parse, the DataFrames) — the two do not coexist, since the engine is
  dropped before the tables are built;
- **events**: packets through the bottleneck (its rate × the time it is busy / packet size, the
  busy share from a fluid sum-of-windows model of the long flows plus the offered load of the
  open-loop sources) × events per packet (about 0.8 per hop of the data and ACK paths);
- **wall time**: events × the engine's time per event (which grows with the number of flows:
  their state falls out of the CPU caches) + per-flow, per-transfer and per-sample costs of building
  the run and its results + a fixed start-up.

This is an approximation meant to be right within a factor of two either way (bench/cost_estimate.md
compares it with measured runs), good enough to refuse a run that cannot fit and to warn about one
that takes long; it is not a prediction of the run's results.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from bufsize.errors import BufsizeError

# ----------------------------------------------------------------------------- calibration
# Measured on the development VM (Intel Xeon, 2 vCPUs shared with other jobs, Python 3.11, release
# build of the engine), 2026-11-25, with /tmp probes that ran one scenario per process and read
# ru_maxrss after the run (bench/cost_estimate.py repeats the comparison on a range of scenarios):
#
# - PY_BASE: peak RSS of a 1-flow, 2-s run through bufsize.simulate (interpreter, numpy, pandas,
#   the engine): 115 MB.
# - ENGINE_* (engine state, bytes): 100 000 flows, 10 Mb/s, 2 s: 192 MB after the run -> 1.9 KB per
#   flow; 1 M queue-trace samples: 24 MB -> 24 B; 1 M cwnd-trace samples: 20.5 MB -> 24 B;
#   10 M cwnd-sum samples (two f64 each): 160 MB -> 16 B; 31 124 short transfers: 4.5 MB ->
#   145 B; an unlimited buffer that grew to about 125 000 packets: 10 MB -> 80 B per packet.
# - JSON_* (the results JSON the engine returns): 58 MB for 100 000 flows -> 580 B per flow;
#   21.5 B per queue sample, 23.5 B per cwnd sample, 337 B per transfer.
# - PY_* (peak RSS above PY_BASE while the results become DataFrames): 2.86 KB per flow
#   (100 000 flows), 158 B per queue sample, 179 B per cwnd sample, 1.72 KB per transfer.
# - Time per event (engine only), recalibrated 2026-11-29 after the engine's speed-ups (RACK's
#   send-order list, the batched FQ-CoDel drops): the linux profile's CUBIC at 5 Mb/s per flow,
#   RTTs 5–80 ms, B = BDP/√n, 3–70 M events: 60 ns with 10 flows, 67 with 100, 75 with 400, 89 with
#   1 000, 105 with 2 000, 126 with 5 000, 140 with 10 000, 166 with 30 000 -> about 15 + 33·log10(n)
#   ns (within 0.8–1.35× of each; lossier runs cost more per event: 207 ns at 10 000 flows and 10 %
#   loss). Before: 91 / 141 / 268 ns at 10 / 400 / 10 000 flows (30 + 60·log10(n)).
# - Time per flow, all phases (building the flow, its first events, its results row): 16 µs
#   (200 000 flows at 10 Mb/s for 2 s: 4.0 s, 2026-11-29; 25 µs on 2026-11-25); per transfer 5 µs
#   (60 000 short transfers: 0.55 s in all; 15 µs before); per trace sample 0.3 µs (2 M queue-trace
#   samples: 1.03 s in all, 4 M cwnd-trace samples 1.08 s; 0.8 µs before); per cwnd-sum sample 10 ns
#   (20 M: 0.47 s in all; 46 ns before); fixed start-up (pandas import, results) 0.36 s (a 1-flow,
#   20-s run: 0.35–0.37 s of CPU in all; 0.5 s before). Measured in bench/cost_estimate.py's own rows.
# - Events per bottleneck packet: 3.1–3.2 on dumbbells (two hops for data, two for ACKs).
PY_BASE_BYTES = 115e6
ENGINE_FLOW_BYTES = 1.9e3
ENGINE_PACKET_BYTES = 80.0
ENGINE_SAMPLE_BYTES = 24.0
ENGINE_CWND_SUM_SAMPLE_BYTES = 16.0
ENGINE_TRANSFER_BYTES = 145.0
JSON_FLOW_BYTES = 580.0
JSON_SAMPLE_BYTES = 24.0
JSON_TRANSFER_BYTES = 337.0
PY_FLOW_BYTES = 2.9e3
PY_SAMPLE_BYTES = 180.0
PY_TRANSFER_BYTES = 1.72e3
EVENT_NS_BASE = 15.0
EVENT_NS_PER_DECADE = 33.0
FLOW_SECONDS = 16e-6
TRANSFER_SECONDS = 5e-6
SAMPLE_SECONDS = 0.3e-6
CWND_SUM_SAMPLE_SECONDS = 10e-9
START_SECONDS = 0.36
EVENTS_PER_HOP = 0.8
# Wall time = CPU time x max(1, LOAD_SLOWDOWN x load average / CPUs); see load_factor().
LOAD_SLOWDOWN = 0.7

#: Runs estimated to take longer than this (wall seconds) are announced before they start.
LONG_RUN_S = 30.0

#: Environment variable: the memory bufsize may assume it has (e.g. ``4GiB``), for a job with a
#: smaller share than the machine's.
MEMORY_ENV = "BUFSIZE_MEMORY_LIMIT"


@dataclass(frozen=True)
class CostEstimate:
    """The estimated cost of one run (all floats): ``memory_bytes`` (peak resident memory of the
    process), ``wall_seconds`` (on this machine, now: ``cpu_seconds`` × ``load_factor``),
    ``events`` (engine events), ``bottleneck_packets`` (packets through the bottleneck over the
    whole run), ``cpu_seconds`` (on an idle machine); ``parts`` says where the memory goes (bytes
    per component)."""

    memory_bytes: float
    wall_seconds: float
    events: float
    bottleneck_packets: float
    parts: Mapping[str, float]
    cpu_seconds: float = 0.0
    load_factor: float = 1.0

    def describe(self) -> str:
        """One line, e.g. ``≈ 1.2 GiB peak memory, ≈ 40 s on this machine``."""
        return f"≈ {format_bytes(self.memory_bytes)} peak memory, ≈ {format_seconds(self.wall_seconds)} on this machine"

    def largest_part(self) -> str:
        """The component that needs the most memory (``"flows"``, ``"queue trace"``, ...)."""
        return max(self.parts, key=lambda k: self.parts[k]) if self.parts else "flows"


def format_bytes(n: float) -> str:
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:.2g} {unit}" if n / size < 10 else f"{n / size:.0f} {unit}"
    return f"{n:.0f} B"


def format_seconds(s: float) -> str:
    if s < 60:
        return f"{s:.2g} s" if s < 10 else f"{s:.0f} s"
    if s < 3600:
        return f"{s / 60:.2g} min" if s < 600 else f"{s / 60:.0f} min"
    if s < 86400 * 2:
        return f"{s / 3600:.2g} h"
    if s < 86400 * 730:
        return f"{s / 86400:.3g} days"
    return f"{s / (86400 * 365.25):.3g} years"


# ----------------------------------------------------------------------------- machine

def _parse_limit(text: str) -> float | None:
    from bufsize import units

    try:
        return float(units.parse_size(text, argument=MEMORY_ENV))
    except BufsizeError:
        try:
            return float(text)
        except ValueError:
            raise BufsizeError(f"expected a size such as 4GiB, got {text!r}", argument=MEMORY_ENV) from None


def machine_memory_bytes() -> tuple[float, str]:
    """The memory a run may use and where the figure comes from: ``$BUFSIZE_MEMORY_LIMIT`` if
    set, else the smaller of the physical memory and this process's cgroup limit."""
    env = os.environ.get(MEMORY_ENV, "").strip()
    if env:
        v = _parse_limit(env)
        if v is not None:
            return v, f"${MEMORY_ENV}"
    try:
        total = float(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
        what = "physical memory"
    except (ValueError, OSError, AttributeError):  # pragma: no cover - not POSIX
        return math.inf, "unknown"
    for path in ("/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"):
        try:
            text = Path(path).read_text().strip()
        except OSError:
            continue
        if text.isdigit() and 0 < int(text) < total:
            total, what = float(text), "cgroup memory limit"
        break
    return total, what


def load_factor() -> float:
    """How much slower than on an idle machine a single-threaded run goes now, from the 1-minute
    load average per CPU: ``max(1, LOAD_SLOWDOWN × load / CPUs)``. On the 2-CPU development VM
    runs took 1.7–3.2 × their CPU time at load averages 6.6–7.8 (bench/cost_estimate.md), about
    0.7 × load / CPUs (part of the load is short, niced jobs)."""
    try:
        n = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        n = os.cpu_count() or 1
    try:
        return max(1.0, LOAD_SLOWDOWN * os.getloadavg()[0] / max(1, n))
    except OSError:  # pragma: no cover
        return 1.0


def check_fits(est: CostEstimate, *, allow_over_memory: bool = False, flag: str = "--allow-over-memory (allow_over_memory=True in Python)") -> None:
    """Raise :class:`BufsizeError` (one line; the CLI exits with code 2) when ``est`` needs more
    memory than this machine has, unless ``allow_over_memory``."""
    if allow_over_memory:
        return
    have, what = machine_memory_bytes()
    if est.memory_bytes > have:
        raise BufsizeError(
            f"this run needs {est.describe()}, more than the {format_bytes(have)} of {what} "
            f"(mostly {est.largest_part()}); shorten it, trace less, or pass {flag} to run it anyway")


def available_memory_bytes() -> tuple[float, str]:
    """The memory planned work may take now, and where the figure comes from:
    ``$BUFSIZE_MEMORY_LIMIT`` if set, else the smaller of :func:`machine_memory_bytes` and what the
    kernel reports as available (``MemAvailable``; other processes' use is left out)."""
    have, what = machine_memory_bytes()
    if what == f"${MEMORY_ENV}":
        return have, what
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemAvailable:"):
                avail = float(line.split()[1]) * 1024.0
                if avail < have:
                    return avail, "available memory"
                break
    except (OSError, ValueError, IndexError):
        pass
    return have, what


# ----------------------------------------------------------------------------- planned work
# Sweeps and searches run many simulations. Before anything starts they are counted and costed
# (:func:`plan_cost`), and :func:`check_plan` refuses what cannot finish or fit.
#
# The process that plans and collects a sweep keeps, per run, its point (the scenario JSON), its
# finished record (the summary, the scenario parsed again) and its table row. Measured on the
# development VM (ru_maxrss over 5 000 and 2 000 points, 2026-11-28): 13.4 KB per run for a
# 1-flow scenario (1.1 KB of JSON), 64 KB for a 1 000-flow one with an RTT list (13.6 KB of JSON)
# -> about 8 KB + 4.2 bytes per byte of scenario JSON; planning itself took 0.3-5 ms per run.
PLAN_RUN_BYTES = 8e3
PLAN_JSON_FACTOR = 4.2
#: Per-flow rows kept per run when a sweep keeps its per-flow table (the record's dicts, the rows).
PLAN_FLOW_BYTES = 2e3
#: At most this many runs in one sweep or search: beyond it, the bookkeeping alone takes GBs and
#: its planning minutes (split the work into several sweeps).
MAX_RUNS = 1_000_000
#: Planned work estimated to take longer than this (wall seconds on its workers) is refused unless
#: the caller gives a longer limit (``--max-time``).
MAX_PLAN_S = 24 * 3600.0


@dataclass(frozen=True)
class PlanEstimate:
    """The cost of many runs: ``runs``; per run on average ``run_wall_seconds`` (this machine, now)
    and ``run_cpu_seconds`` (idle), at most ``run_memory_bytes``; ``parallelism`` runs at a time,
    ``local_workers`` of them on this machine; ``wall_seconds`` in all; ``memory_bytes`` at the
    peak on this machine (``collect_bytes`` of bookkeeping plus the local workers' runs)."""

    runs: int
    parallelism: int
    local_workers: int
    run_wall_seconds: float
    run_cpu_seconds: float
    run_memory_bytes: float
    wall_seconds: float
    collect_bytes: float
    memory_bytes: float
    detail: str = ""

    def describe(self) -> str:
        """One line: ``1,000 runs (10 points x 100 seeds) of ≈ 0.6 s each: ≈ 5 min on 2 workers, ≈ 400 MiB peak memory``."""
        what = f"{self.runs:,} run{'s' if self.runs != 1 else ''}" + (f" ({self.detail})" if self.detail else "")
        return (f"{what} of ≈ {format_seconds(self.run_wall_seconds)} each: ≈ {format_seconds(self.wall_seconds)} "
                f"on {self.parallelism} worker{'s' if self.parallelism != 1 else ''}, "
                f"≈ {format_bytes(self.memory_bytes)} peak memory")


def pooled_seconds(est: CostEstimate) -> tuple[float, float]:
    """(wall, CPU) seconds of ``est``'s run when it is one of many in a running process: without the
    fixed start-up (``START_SECONDS``: imports, first results), which a worker pays once. Measured:
    30 runs of 30 s at 100 Mb/s (20 flows) on 2 workers took 1.6 s, 0.11 s each, for an estimate of
    0.61 s each with the start-up and 0.09 s without it."""
    cpu = max(POOLED_MIN_SECONDS, est.cpu_seconds - START_SECONDS)
    return cpu * est.load_factor, cpu


#: The least a pooled run costs (shipping the scenario and the results, writing its file).
POOLED_MIN_SECONDS = 0.01


def plan_cost(runs: int, *, run_wall_seconds: float, run_cpu_seconds: float, run_memory_bytes: float,
              parallelism: int, local_workers: int, collect_bytes_per_run: float = PLAN_RUN_BYTES,
              remote: bool = False, detail: str = "") -> PlanEstimate:
    """The cost of ``runs`` runs of the given average cost (per run in a running worker:
    :func:`pooled_seconds`), ``parallelism`` at a time, plus the workers' start-up once.

    ``remote``: the runs go to other machines (a Dask cluster): their time is the idle CPU time
    (this machine's load does not slow them) and their memory is not this machine's."""
    p = max(1, int(parallelism))
    per = run_cpu_seconds if remote else run_wall_seconds
    rounds = math.ceil(runs / p) if runs < 2**62 else runs / p
    wall = per * rounds + START_SECONDS * (1.0 if remote else load_factor())  # workers start once
    collect = PY_BASE_BYTES + runs * collect_bytes_per_run
    concurrent = 0 if remote else min(max(0, int(local_workers)), runs)
    memory = collect + concurrent * run_memory_bytes
    return PlanEstimate(runs=int(runs), parallelism=p, local_workers=concurrent, run_wall_seconds=float(per),
                        run_cpu_seconds=float(run_cpu_seconds), run_memory_bytes=float(run_memory_bytes),
                        wall_seconds=float(wall), collect_bytes=float(collect), memory_bytes=float(memory),
                        detail=detail)


def check_plan(plan: PlanEstimate, *, what: str = "this sweep", max_seconds: float | None = MAX_PLAN_S,
               allow_over_memory: bool = False, time_flag: str = "--max-time",
               memory_flag: str = "--allow-over-memory") -> None:
    """Raise :class:`BufsizeError` (one line with the count and the estimate) for planned work
    that cannot finish or fit: more than :data:`MAX_RUNS` runs, more memory at its peak than this
    machine has available (:func:`available_memory_bytes`), or a longer estimated wall time than
    ``max_seconds`` (``None``: no limit)."""
    if plan.runs > MAX_RUNS:
        raise BufsizeError(f"{what} is {plan.describe()}; at most {MAX_RUNS:,} runs fit in one, split it")
    if not allow_over_memory:
        have, where = available_memory_bytes()
        if plan.memory_bytes > have:
            how = (f"{plan.local_workers} at a time" if plan.local_workers > 1 else "")
            raise BufsizeError(
                f"{what} is {plan.describe()}, more than the {format_bytes(have)} of {where} "
                f"({format_bytes(plan.collect_bytes)} to collect the results"
                + (f", {format_bytes(plan.run_memory_bytes)} per run, {how}" if how else "")
                + f"); use fewer workers or shorter runs, or pass {memory_flag} to run it anyway")
    if max_seconds is not None and plan.wall_seconds > max_seconds:
        raise BufsizeError(f"{what} is {plan.describe()}, more than the {format_seconds(max_seconds)} allowed; "
                           f"make it smaller, or give a longer {time_flag} if you mean it")


# ----------------------------------------------------------------------------- the testbed
# ``bufsize testbed run`` runs a scenario on the kernel testbed ``repeats`` times (each repeat up to
# ``attempts`` tries); ``bufsize compare`` also simulates it first. A testbed run takes its traffic
# duration in real time plus its set-up and checks: the points recorded in
# bench/testbed/results/*.json whose runs were all accepted at the first attempt took 4.7-5.3 s
# per run beyond the duration (wall_s / runs - duration_s; 1 to 32 flows, 40-68 s runs, 2026-11).
TESTBED_RUN_OVERHEAD_S = 5.0


@dataclass(frozen=True)
class KernelRunsEstimate:
    """The cost of testbed work: the ``simulation``'s estimate (``compare``; None for ``testbed
    run``), then ``repeats`` testbed runs of ``testbed_run_seconds`` each (real time, at least: a
    rejected run is tried again, up to ``repeats`` x ``attempts`` runs); ``wall_seconds`` when
    every run is accepted at once."""

    simulation: CostEstimate | None
    repeats: int
    attempts: int
    testbed_run_seconds: float
    wall_seconds: float

    def describe(self) -> str:
        """One line: the simulation's estimate, the testbed runs, the total."""
        tries = self.repeats * self.attempts
        sim = f"a simulation ({self.simulation.describe()}) and " if self.simulation is not None else ""
        return (f"{sim}{self.repeats:,} testbed run{'s' if self.repeats != 1 else ''} of "
                f"≈ {format_seconds(self.testbed_run_seconds)} each"
                + (f" (up to {tries:,} with retried attempts)" if tries > self.repeats else "")
                + f": ≈ {format_seconds(self.wall_seconds)} in all")


def testbed_cost(*, duration_s: float, repeats: int, attempts: int,
                 simulation: CostEstimate | None = None) -> KernelRunsEstimate:
    """The cost of ``repeats`` testbed runs of ``duration_s`` each (plus
    :data:`TESTBED_RUN_OVERHEAD_S`), after ``simulation`` when one is made first (``compare``)."""
    per = float(duration_s) + TESTBED_RUN_OVERHEAD_S
    wall = (simulation.wall_seconds if simulation is not None else 0.0) + int(repeats) * per
    return KernelRunsEstimate(simulation=simulation, repeats=int(repeats), attempts=int(attempts),
                           testbed_run_seconds=per, wall_seconds=float(wall))


def check_testbed(est: KernelRunsEstimate, *, what: str, max_seconds: float | None = MAX_PLAN_S,
                  allow_over_memory: bool = False, time_flag: str = "--max-time",
                  memory_flag: str = "--allow-over-memory") -> None:
    """Raise :class:`BufsizeError` (one line with the estimate) for testbed work whose simulation
    cannot fit in memory (unless ``allow_over_memory``) or that cannot finish within
    ``max_seconds`` even when every run is accepted at its first try (``None``: no limit)."""
    if est.simulation is not None:
        check_fits(est.simulation, allow_over_memory=allow_over_memory, flag=memory_flag)
    if max_seconds is not None and est.wall_seconds > max_seconds:
        raise BufsizeError(f"{what} is {est.describe()}, more than the {format_seconds(max_seconds)} "
                           f"allowed; make it shorter or repeat it less, or give a longer {time_flag} if you mean it")


# ----------------------------------------------------------------------------- the estimate

def _as_dict(scenario: Any) -> dict[str, Any]:
    from bufsize.scenario import Scenario

    if isinstance(scenario, Scenario):
        return scenario.to_dict()
    if isinstance(scenario, Mapping):
        return Scenario.from_dict(scenario).to_dict()
    if isinstance(scenario, (str, Path)):
        return Scenario.from_file(scenario).to_dict()
    raise BufsizeError(f"expected a Scenario, a dict or a file path, got {type(scenario).__name__}",
                       argument="scenario")


def _dist_mean(d: Mapping[str, Any] | None, default: float) -> float:
    if not d:
        return default
    kind, v = next(iter(d.items()))
    if kind == "fixed" or kind == "exponential":
        return float(v)
    if kind in ("uniform", "int_uniform"):
        return 0.5 * (float(v[0]) + float(v[1]))
    if kind == "list":
        return sum(v) / len(v)
    if kind == "pareto":
        return float(v["mean"])
    if kind == "empirical":
        vals, cdf = v["values"], v["cdf"]
        m = vals[0] * cdf[0]
        for k in range(1, len(vals)):
            m += (cdf[k] - cdf[k - 1]) * 0.5 * (vals[k] + vals[k - 1])
        return m
    return default


def _mean_segments(src: Mapping[str, Any], default_bytes: float) -> float:
    mss = max(1, src["tcp"]["packet_bytes"] - src["tcp"]["header_bytes"])
    if "size_packets" in src:
        return max(1.0, _dist_mean(src["size_packets"], 1.0) + 0.5)
    return max(1.0, _dist_mean(src.get("size_bytes"), default_bytes) / mss + 0.5)


def _busy_share(n: int, bdp: float, buffer: float, rtt: float, duration: float, iw: float,
                wmax: float) -> float:
    """Share of ``duration`` the bottleneck is busy with ``n`` long flows (fluid model, per RTT):
    slow start doubles the sum of windows until it exceeds BDP + buffer, the overshoot halves it,
    then it grows by n per RTT and loses 1/(2·sqrt(n)) of itself at each overflow (one flow in
    sqrt(n) halving, a rough stand-in for unsynchronised losses). Rough by design."""
    if n <= 0 or duration <= 0:
        return 0.0
    bdp = max(bdp, 1.0)
    top = bdp + buffer
    w, t, busy, slow = n * iw, 0.0, 0.0, True
    limit = n * wmax
    for _ in range(20_000):
        if t >= duration:
            break
        w = min(w, limit)
        dt = rtt * max(1.0, w / bdp)  # an RTT, longer when a queue builds
        dt = min(dt, duration - t)
        busy += dt * min(1.0, w / bdp)
        t += dt
        if slow:
            w *= 2.0
            if w > top:
                w, slow = top / 2.0, False
        else:
            w += n
            if w > top:
                w *= 1.0 - 0.5 / math.sqrt(n)
    else:
        busy += (duration - t)  # very long runs: the rest at the bottleneck's full rate
    return min(1.0, busy / duration)


#: CPU per bottleneck packet with a queue discipline, as a multiple of the drop-tail FIFO's
#: (instruction counts, bench/aqm_fifo_cost.md, S1: RED +34 %, CoDel +29 %, PIE +30 %, FQ-CoDel +87 %)
DISCIPLINE_COST = {"red": 1.34, "codel": 1.29, "pie": 1.30, "fq_codel": 1.87}
#: A run with paced senders (BBR) costs this much more per estimated event: each paced packet waits for
#: a timer, and BBR's model is updated on every ACK. Measured 2026-11-29 (1 Gb/s, 200 flows, RTTs
#: 10–50 ms, 100 packets, 20 s): all CUBIC 0.31 s of engine CPU and 4.3 M events, all BBR 0.69 s and
#: 7.3 M, CUBIC/BBR 70/30 0.62 s and 7.0 M (BBR carries most of the packets), against the CUBIC run's 0.31 s.
PACED_COST = 2.0
#: Congestion controls whose senders pace every packet.
PACED_CCS = ("bbr", "newreno-paced")


def _paced(d: Mapping[str, Any]) -> bool:
    """Whether any long-lived sender of the scenario paces its packets (:data:`PACED_CCS`)."""
    db = d.get("dumbbell") or {}
    tcps = [db.get("tcp") or {}] + [c.get("tcp") or {} for c in db.get("mix") or []] \
        + [f.get("tcp") or {} for f in d.get("flows", [])]
    return any(str(t.get("cc", "")) in PACED_CCS for t in tcps)


def estimate(scenario: Any) -> CostEstimate:
    """Estimate the peak memory, events and wall time of simulating ``scenario`` (a
    :class:`~bufsize.scenario.Scenario`, a dict in its schema or a scenario file path). Reads the
    scenario only; raises :class:`~bufsize.errors.ScenarioError` for an invalid one."""
    d = _as_dict(scenario)
    duration = float(d["duration_s"])
    warm = float(d["warmup_s"])
    window = max(0.0, duration - warm)
    links = {lk["name"]: lk for lk in d.get("links", [])}
    db = d.get("dumbbell")
    bn = d["bottleneck"]

    # The bottleneck: its rate and buffer.
    if db is not None and bn in ("bn", "bnr"):
        rate = float(db["capacity_bps"])
        queue = db["buffer"] if bn == "bn" else {}
    elif bn in links:
        rate, queue = float(links[bn]["rate_bps"]), links[bn]["queue"]
    else:  # a dumbbell access link
        rate = float(db["access_rate_bps"] or 10.0 * db["capacity_bps"])
        queue = db["access_queue"] if bn.startswith("acc") else {}

    # Long-lived flows (the dumbbell's and explicit bulk flows) and their typical parameters.
    n_long, rtt_sum, hops_sum, pkt_sum, iw_min, wmax = 0, 0.0, 0.0, 0.0, math.inf, 0.0
    iw_max = 2.0
    if db is not None:
        n = int(db["flows"])
        tcp = db["tcp"]
        n_long += n
        rtt_sum += n * _dist_mean(db["rtt_s"], 0.1)
        hops_sum += 4.0 * n
        pkt_sum += n * tcp["packet_bytes"]
        iw_min = min(iw_min, tcp["initial_window"])
        iw_max = max(iw_max, tcp["initial_window"])
        wmax = max(wmax, tcp["max_window_packets"] or math.inf)
    finite_bits = 0.0
    for fl in d.get("flows", []):
        delay = sum(links[h]["delay_s"] for h in fl["path"] + fl["ack_path"] if h in links)
        hops = len(fl["path"]) + len(fl["ack_path"])
        if fl.get("bytes") is not None:
            finite_bits += 8.0 * float(fl["bytes"]) * fl["tcp"]["packet_bytes"] / max(
                1, fl["tcp"]["packet_bytes"] - fl["tcp"]["header_bytes"])
            hops_sum += hops
            pkt_sum += fl["tcp"]["packet_bytes"]
            continue
        n_long += 1
        rtt_sum += max(delay, 1e-3)
        hops_sum += hops
        pkt_sum += fl["tcp"]["packet_bytes"]
        iw_min = min(iw_min, fl["tcp"]["initial_window"])
        iw_max = max(iw_max, fl["tcp"]["initial_window"])
        wmax = max(wmax, fl["tcp"]["max_window_packets"] or math.inf)
    n_explicit = len(d.get("flows", []))
    n_sources = max(1, n_explicit + (int(db["flows"]) if db else 0))
    pkt_bytes = pkt_sum / n_sources if pkt_sum else 1000.0
    hops = hops_sum / n_sources if hops_sum else 4.0
    rtt = rtt_sum / n_long if n_long else 0.1
    bdp = rate * rtt / (8.0 * pkt_bytes)
    if "limit_packets" in queue:
        buffer = float(queue["limit_packets"])
    elif "limit_bytes" in queue:
        buffer = float(queue["limit_bytes"]) / pkt_bytes
    else:
        # unlimited: the queue grows by about one packet per ACK in slow start (nothing is lost),
        # i.e. at the bottleneck's rate, for the whole run
        buffer = rate * duration / (8.0 * pkt_bytes)
    busy = _busy_share(n_long, bdp, buffer, rtt, duration, iw_min if n_long else 2, wmax or math.inf)

    # Open-loop and closed-loop sources: offered bits over the run, and transfers.
    offered_bits = finite_bits
    transfers = 0.0
    for s in d.get("short_flows", []):
        segs = _mean_segments(s, 20_000.0)
        bits_per = 8.0 * s["tcp"]["packet_bytes"] * segs
        if s.get("load") is not None:
            lrate = rate
            ll = s.get("load_link")
            if ll in links:
                lrate = float(links[ll]["rate_bps"])
            lam = float(s["load"]) * lrate / bits_per
        elif s.get("rate_bps") is not None:
            lam = float(s["rate_bps"]) / bits_per
        else:
            lam = float(s.get("arrivals_per_s") or 0.0)
        active = max(0.0, min(float(s.get("stop_s") or duration), duration) - float(s.get("start_s", 0.0)))
        transfers += lam * active
        offered_bits += lam * active * bits_per
    n_users = 0
    for u in d.get("users", []):
        count = int(u["count"])
        n_users += count
        segs = _mean_segments(u, 80_000.0)
        think = _dist_mean(u.get("think_s"), 1.0)
        urtt = _dist_mean(u.get("rtt_s"), 0.1)
        per_user = duration / max(think + urtt * (1.0 + math.log2(1.0 + segs / 2.0)), 1e-6)
        transfers += count * per_user
        offered_bits += count * per_user * 8.0 * u["tcp"]["packet_bytes"] * segs
    udp_packets = 0.0
    for u in d.get("udp", []):
        active = max(0.0, min(float(u.get("stop_s") or duration), duration) - float(u.get("start_s", 0.0)))
        bits = float(u["rate_bps"]) * active
        offered_bits += bits
        udp_packets += bits / (8.0 * float(u.get("packet_bytes", 1000)))

    capacity_bits = rate * duration
    bn_bits = min(capacity_bits, busy * capacity_bits + offered_bits)
    bn_packets = bn_bits / (8.0 * pkt_bytes)
    burst = (n_long + n_users) * min(iw_max, wmax or math.inf)  # every flow's first window
    events = (bn_packets + burst) * EVENTS_PER_HOP * hops + udp_packets * EVENTS_PER_HOP * 2.0 \
        + 10.0 * (n_long + n_users)

    # Samples the run keeps.
    m = d["measure"]
    q_iv = m.get("queue_trace_interval_s")
    q_samples = window / q_iv if q_iv else 0.0
    c_samples = len(m.get("cwnd_trace_flows") or []) * duration / m["cwnd_trace_interval_s"]
    p_iv = m.get("phase_trace_interval_s")
    p_samples = duration / p_iv if p_iv else 0.0
    s_samples = window / m["cwnd_sum_interval_s"]
    samples = q_samples + c_samples + p_samples
    # packets in the network at once: a BDP in flight plus the full buffer, or every flow's first
    # window sent at once (the queue histogram has one bin per occupancy the buffer allows, at
    # most 2^22 in the engine)
    in_network = bdp + buffer + burst
    hist_bins = min(buffer, 2.0**22) if m.get("queue_histogram", True) else 0.0

    flows_total = n_long + n_users + sum(1 for f in d.get("flows", []) if f.get("bytes") is not None)
    engine_parts = {
        "flows": flows_total * (ENGINE_FLOW_BYTES + JSON_FLOW_BYTES),
        "packets in the network": in_network * ENGINE_PACKET_BYTES,
        "queue trace": q_samples * (ENGINE_SAMPLE_BYTES + JSON_SAMPLE_BYTES),
        "cwnd traces": c_samples * (ENGINE_SAMPLE_BYTES + JSON_SAMPLE_BYTES),
        "phase trace": p_samples * (ENGINE_SAMPLE_BYTES + JSON_SAMPLE_BYTES),
        "cwnd-sum samples": s_samples * ENGINE_CWND_SUM_SAMPLE_BYTES,
        "transfer records": transfers * (ENGINE_TRANSFER_BYTES + JSON_TRANSFER_BYTES),
    }
    python_parts = {
        "flows": flows_total * PY_FLOW_BYTES,
        "queue trace": (q_samples + hist_bins) * PY_SAMPLE_BYTES,
        "cwnd traces": c_samples * PY_SAMPLE_BYTES,
        "phase trace": p_samples * PY_SAMPLE_BYTES,
        "transfer records": transfers * PY_TRANSFER_BYTES,
    }
    e_total, p_total = sum(engine_parts.values()), sum(python_parts.values())
    parts = engine_parts if e_total >= p_total else python_parts
    memory = PY_BASE_BYTES + max(e_total, p_total)

    n_state = max(10.0, n_long + n_users + n_explicit)
    event_s = (EVENT_NS_BASE + EVENT_NS_PER_DECADE * math.log10(n_state)) * 1e-9
    # a queue discipline at the bottleneck adds an event per packet it sends and its own work:
    # instructions per bottleneck packet against the FIFO's, bench/aqm_fifo_cost.md
    disc = (queue or {}).get("discipline") if isinstance(queue, dict) else None
    if disc:
        event_s *= DISCIPLINE_COST.get(disc.get("name", ""), max(DISCIPLINE_COST.values()))
    if _paced(d):
        event_s *= PACED_COST
    cpu = (START_SECONDS + events * event_s + flows_total * FLOW_SECONDS + transfers * TRANSFER_SECONDS
            + (samples + hist_bins) * SAMPLE_SECONDS + s_samples * CWND_SUM_SAMPLE_SECONDS)
    load = load_factor()
    return CostEstimate(memory_bytes=float(memory), wall_seconds=float(cpu * load), events=float(events),
                        bottleneck_packets=float(bn_packets), parts=dict(parts), cpu_seconds=float(cpu),
                        load_factor=load)


__all__ = ["CostEstimate", "estimate", "check_fits", "machine_memory_bytes", "LONG_RUN_S", "MEMORY_ENV",
           "PlanEstimate", "plan_cost", "pooled_seconds", "check_plan", "available_memory_bytes", "MAX_RUNS", "MAX_PLAN_S",
           "KernelRunsEstimate", "testbed_cost", "check_testbed", "TESTBED_RUN_OVERHEAD_S"]
