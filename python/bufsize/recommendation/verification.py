"""The verified answer of ``bufsize recommend``: the smallest buffer that meets the goals on the
traffic described, found on the packet simulator.

The models of the five papers answer "what does this model say"; this module answers "what size
meets my goals on my traffic". It

1. builds the scenario the user described with :func:`bufsize.recommendation.scenario.scenario_from_input`, the
   toolkit's one translation of a description into a simulation (:func:`build_scenario` adds the
   buffer, seed and run length): the RTT distribution as given (fixed, uniform range or list), the
   number of long flows, the TCP mix (each protocol of the mix becomes a class of the engine's
   matching congestion control), SACK with proportional rate reduction as Linux runs them, the
   packet size, the input (access) links' rate (Γ), the window cap, pacing (NewReno paced at
   Linux's gains) and the short flows (Poisson arrivals of transfers whose lengths follow the
   distribution given, at the short-flow load); :func:`scenario_notes` says what it cannot carry;
2. picks the run length from the scenario (:func:`run_length`): the warm-up leaves out slow start
   and one sawtooth cycle; the measurement covers at least three of the slowest cycles (a Reno
   sawtooth lasts W/2 round trips at the peak window W; CUBIC's and BIC's epochs K = ∛(W(1−β)/c)
   seconds), 100 of the longest RTTs and 5 s. When that would exceed the longest measurement
   allowed (:data:`MAX_MEASURE_S`) the run is shortened and the result says it was too short to
   judge. That is the most a run measures: it stops sooner once its own counters have settled
   (batch means, :func:`bufsize.recommendation.runlength.stop_rule`). On large links without BBR the
   runs of one seed share all but the last :func:`bufsize.recommendation.runlength.resettle_s` of the
   warm-up (:func:`shared_warmup_s`, :mod:`bufsize.recommendation.warmstart`);
3. evaluates the models' sizes first, as the whole packets their bytes hold, in a binary search
   over them (they bracket the search; sizes between those run are judged by monotonicity), then
   bisects in log B between the largest size that misses and the smallest that meets, each step
   interpolating the goals' margin, to :data:`RESOLUTION` (hi/lo ≤ 1.2 or one packet);
4. checks every goal at each size over seeds: utilization ≥ the target, loss ≤ the loss goal,
   the short flows' mean completion time ≤ its goal when one is given. A size *meets* a goal when
   the one-sided Student-t bound of the mean over seeds is on the right side (with more seeds when
   the first are unclear: looks at 2, 3 and 6 seeds), at a per-look level that keeps the chance of
   showing a size exactly on its goal to meet it at 5 % over all looks
   (:mod:`bufsize.recommendation.sequential`); it *misses* when the opposite 95 % bound is on the
   wrong side. A size that is not shown to meet is not accepted, so the answer is conservative.
   The queueing-delay goal λ is a hard limit B ≤ C·λ (a full buffer drains in λ): sizes above it
   miss the delay goal by construction, and the measured mean and 99th-percentile delays are
   reported beside it.

The verified size is the smallest size shown to meet every goal. Its confidence interval over seeds
comes from each seed's own crossing point (the smallest buffer at which that seed's run meets the
goals, interpolated in log B between the sizes evaluated), with Student's t over seeds. Beside every
model's size the verdict is *safe* (meets the goals on this traffic), *unsafe* (a goal is missed at
that size: its mean over seeds is on the wrong side) or *wasteful* (safe, and at least twice the
verified size). Sizes above the search's range are judged *wasteful* by monotonicity, without a run
(said so in the row).

Behind a queue discipline (``aqm``) its settings come first, each judged at the largest hard limit
of the range (so the hard limit does not decide them): CoDel's, FQ-CoDel's and PIE's default target,
and only where it misses the goals the larger targets of :data:`TARGET_LADDER`, the smallest that
meets them kept; for a marking threshold (``ecn_threshold``, every sender ECN-capable) the smallest
K shown to meet them, by the same binary search and bisection over K. The hard limit behind the
settings is then searched as a buffer is (above K for a threshold), with one more condition in each
size's verdict: the discipline, not the hard limit, does the dropping (overflow drops at most
:data:`MAX_OVERFLOW_SHARE` of the packets the port dropped or marked, judged over seeds like a goal),
so the answer is not a FIFO below the discipline's operating point. Where the range's top does not
meet it the top is doubled (:data:`TOP_DOUBLINGS` times at most; the run length stays the range's
first top's), and where none does the answer meets the goals alone, said so. The DCTCP paper's
guideline K > C·RTT/7 is reported beside K, never used as the answer.

A goal no buffer in the range can meet is reported as infeasible, with what the best buffer gives:
utilization the flows cannot reach (window-limited flows, timeouts of tiny windows) is then
re-targeted to the same fraction of what the largest buffer achieves (paper 002's θ of the peak
load), and a delay limit below what the other goals need is reported as a conflict with the
measurements at C·λ.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Mapping, Sequence

from bufsize.errors import BufsizeError
from bufsize.experiments.batchmeans import StopRule
from bufsize.recommendation import sequential
from bufsize.recommendation.progress import SizeLine, size_line
from bufsize.recommendation.runlength import MAX_MEASURE_S, RunLength, run_length, simulated_mix, stop_rule
from bufsize.recommendation.runs import RUN_FIELDS, _task

__all__ = ["MAX_MEASURE_S", "RunLength", "run_length", "stop_rule"]  # re-exported: the run length lives in runlength


#: Seeds per size, and the extra batch run when the first batch is unclear.
SEEDS = (1, 2, 3)
#: Seeds a size runs first; the rest of :data:`SEEDS` only where these leave the verdict unclear
FIRST_SEEDS = 2
EXTRA_SEEDS = (4, 5, 6)
#: Seeds of the independent re-simulation.
RECHECK_SEEDS = (101, 102, 103)
#: One-sided level of each per-goal test (so each verdict is at 95 %).
ALPHA = 0.05
#: The bisection stops when hi/lo ≤ 1 + RESOLUTION or hi − lo ≤ 1 packet.
RESOLUTION = 0.2
#: Models' sizes closer than this (relative) are tried smallest first (:meth:`_Search.first_meeting`).
NEAR_SIZES = 0.05
#: Wall-time budget of a default (interactive) verification, seconds on this machine when idle.
INTERACTIVE_BUDGET_S = 30.0
#: Sizes evaluated, at most (models, bracket, bisection, half): the run count bound for the estimate.
TYPICAL_SIZES = 12

VERDICTS = ("safe", "unsafe", "unclear", "wasteful")
#: A buffer to judge (``--buffer``) above this many bandwidth-delay products is refused: it would not
#: fill within a run of sensible length, and no port needs it.
MAX_JUDGED_BDP = 200.0


# --------------------------------------------------------------------------- goals and scenario

@dataclass(frozen=True)
class Goals:
    """What a buffer must do: utilization ≥ ``utilization``; loss ≤ ``max_loss``; B ≤ C·``max_delay_s``;
    short flows' mean completion time ≤ ``max_fct_s``."""

    utilization: float | None     # None: no utilization goal (short flows alone carry what they offer)
    max_loss: float | None = None
    max_delay_s: float | None = None
    max_fct_s: float | None = None
    #: the 99th percentile of the queueing delay measured in the runs at most this (a cap: more
    #: buffer, more delay)
    max_delay_p99_s: float | None = None
    #: behind a queue discipline: the overflow drops at the hard limit at most this share of the
    #: packets the port dropped or marked (:data:`MAX_OVERFLOW_SHARE`; None: not judged). Not a goal
    #: of the user's: the condition that the discipline, not the hard limit, does the work
    max_overflow_share: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"utilization": self.utilization, "max_loss": self.max_loss, "max_delay_s": self.max_delay_s,
                "max_fct_s": self.max_fct_s, "max_delay_p99_s": self.max_delay_p99_s,
                "max_overflow_share": self.max_overflow_share}


def goals_of(inp, max_fct_s: float | None = None, max_delay_p99_s: float | None = None) -> Goals:
    """The goals the runs are judged by. With short flows alone and no utilization goal of the
    user's, the link carries what they offer, so the goals are their completion time and loss; with
    neither given, loss ≤ the overflow probability paper 004 §4 sizes short-flow buffers for."""
    if not inp.flows and not getattr(inp, "utilization_goal", True):
        from bufsize.recommendation.inputs import SHORT_FLOW_DEFAULT_OVERFLOW

        loss = inp.max_loss if (inp.max_loss is not None or max_fct_s is not None) else SHORT_FLOW_DEFAULT_OVERFLOW
        return Goals(None, loss, inp.max_delay_s, max_fct_s, max_delay_p99_s)
    return Goals(float(inp.target_utilization), inp.max_loss, inp.max_delay_s, max_fct_s, max_delay_p99_s)


def _require_flows(inp) -> None:
    if not inp.flows and not (inp.short_lengths is not None and inp.short_load):
        raise BufsizeError("the verified answer needs traffic: long-lived flows (--flows ≥ 1) or short flows "
                           "(--short-flows with --short-load)", argument="--flows")


def scenario_notes(inp) -> list[str]:
    """What of the description the verification does not simulate or judge: the parts the scenario
    cannot carry (:func:`bufsize.recommendation.scenario.unsimulated`) and goals it does not check."""
    from bufsize.recommendation.scenario import unsimulated

    notes = unsimulated(inp)
    if inp.optimize_for is not None:
        notes.append("paper 000's per-flow throughput goal (--optimize-for) is not a goal of the verified answer")
    return notes


#: The queue disciplines ``--aqm`` sizes, with the settings they start from (Linux's and the RFCs'
#: defaults, the engine's: docs/simulate.md); the search sizes the hard limit behind them, and for
#: ``ecn_threshold`` (a DCTCP-style port) the marking threshold K first (65 packets is only the engine's
#: default, the DCTCP paper's figure for 10 Gb/s ports, never the answer).
AQM_SETTINGS: dict[str, dict[str, Any]] = {
    "codel": {"target": "5ms", "interval": "100ms"},
    "fq_codel": {"target": "5ms", "interval": "100ms", "flows": 1024, "quantum": "1514B"},
    "pie": {"target": "15ms", "tupdate": "15ms", "alpha": 0.125, "beta": 1.25},
    "red": {"min": "5pkt", "max": "15pkt", "probability": 0.1, "gentle": True},
    "ecn_threshold": {"K": "65pkt"},
}
#: The engine's name of each discipline ``--aqm`` takes (where they differ)
ENGINE_DISCIPLINE: dict[str, str] = {"ecn_threshold": "threshold"}
#: The disciplines whose delay target is tried larger when the defaults miss the utilization goal:
#: the target's multiples tried, in order (the first is the default); the interval stays
TARGET_LADDER: tuple[int, ...] = (1, 2, 4)
TARGET_SIZED: tuple[str, ...] = ("codel", "fq_codel", "pie")
#: What an operator enables instead of shrinking the FIFO: shown beside the drop-tail answer
BESIDE_AQM = "fq_codel"
#: Its hard limit there (Linux's default)
BESIDE_LIMIT = 10240
#: Behind a discipline, the largest share of the packets the port dropped or marked that may be
#: overflow drops at the hard limit, for the hard limit to count as leaving the work to the
#: discipline. A convention of ours, not an RFC's: a limit that is the smallest to meet the goals is
#: often below the discipline's operating point, so the hard limit does all the dropping and the port
#: is a small FIFO in disguise (docs/aqm.md). One drop in ten left to overflow allows for the bursts
#: of slow start and of short flows, which no discipline absorbs at a finite limit, while nine in ten
#: are the discipline's own; a run that neither drops nor marks a packet meets it trivially. More
#: hard limit, fewer overflows: the condition is monotone in the limit like the goals, so it joins
#: each size's verdict, judged over seeds with the same one-sided t bound.
MAX_OVERFLOW_SHARE = 0.10
#: Where the share rule is not met at the top of the hard limit's range, the top is doubled, at most
#: this many times (16 times the range's top); beyond it the answer meets the goals alone, said so
TOP_DOUBLINGS = 4


def aqm_name(aqm: Any) -> str:
    """The canonical name of an ``--aqm`` value (``ecn-threshold`` -> ``ecn_threshold``); refuses,
    in one line naming the known ones, a name ``--aqm`` does not size."""
    name = str(aqm).strip().lower().replace("-", "_")
    if name not in AQM_SETTINGS:
        raise BufsizeError(f"unknown queue discipline {str(aqm).strip()!r} ({', '.join(AQM_SETTINGS)})",
                           argument="--aqm")
    return name


def aqm_discipline(aqm: str, settings: Mapping[str, Any] | None = None) -> Any:
    """The engine's discipline for ``aqm`` at ``settings`` (display form, :data:`AQM_SETTINGS`' keys):
    the bare name at the defaults (so a default run's scenario, and its run-cache key, stay as they
    were), else a table with the settings that differ (a CoDel or PIE target, the threshold's K)."""
    engine = ENGINE_DISCIPLINE.get(aqm, aqm)
    base = AQM_SETTINGS[aqm]
    changed = {k: v for k, v in (settings or {}).items() if base.get(k) != v}
    if aqm == "ecn_threshold":
        k = (settings or base)["K"]
        return {"name": engine, "k_packets": int(str(k).removesuffix("pkt"))}
    if not changed:
        return engine
    out: dict[str, Any] = {"name": engine}
    for key, value in changed.items():
        if key != "target":
            raise BufsizeError(f"{aqm}: only the target is sized, not {key}", argument="--aqm")
        out["target"] = value
    return out


def scaled_target(aqm: str, factor: int) -> dict[str, Any]:
    """``aqm``'s default settings with the delay target ``factor`` times the default's."""
    from bufsize import units

    st = dict(AQM_SETTINGS[aqm])
    if factor != 1:
        st["target"] = units.format_time(factor * units.parse_time(st["target"], argument="--aqm")).replace(" ", "")
    return st


def dctcp_rule_packets(inp) -> dict[str, float]:
    """The DCTCP paper's guideline for the marking threshold, K > C·RTT/7 (Alizadeh et al., SIGCOMM
    2010, §3.3; C in packets per second, one RTT shared by the flows): its value at the mean and at
    the longest RTT described. A guideline derived for DCTCP senders with equal RTTs, shown beside
    the verified K, never used as the answer."""
    return {"mean_rtt": inp.capacity_pps * inp.rtt_s / 7.0, "longest_rtt": inp.capacity_pps * inp.rtt_max_s / 7.0}


def build_scenario(inp, buffer: int, *, seed: int, warmup_s: float, duration_s: float,
                   aqm: Any = None) -> dict[str, Any]:
    """The engine input of one run: the traffic ``inp`` describes through a drop-tail buffer of
    ``buffer`` packets (with ``aqm``, an engine discipline as :func:`aqm_discipline` gives it: that
    queue discipline with a hard limit of ``buffer`` packets; behind a marking threshold every sender
    negotiates ECN, so DCTCP answers marks with its own response and any other control with RFC
    3168's), for ``duration_s`` simulated seconds of which the first ``warmup_s`` are not measured.
    The scenario is :func:`bufsize.recommendation.scenario.scenario_from_input`'s (the one translation of
    a description into a simulation), without the queue histogram and phase trace the search does
    not use."""
    from bufsize.recommendation.scenario import scenario_from_input

    _require_flows(inp)
    buf: Any = int(buffer) if aqm is None else {"limit_packets": int(buffer), "discipline": aqm}
    sc = scenario_from_input(inp, buffer=buf, duration=duration_s, warmup=warmup_s, seed=seed)
    sc["measure"] = {"queue_histogram": False, "phase_trace_interval_s": None}
    name = aqm.get("name") if isinstance(aqm, Mapping) else aqm
    if name == "threshold":
        db = sc.get("dumbbell")
        tcps = ([db["tcp"]] + [c["tcp"] for c in db.get("mix") or []] if db else []) \
            + [f["tcp"] for f in sc.get("short_flows") or []]
        for tcp in tcps:
            tcp["ecn"] = True
    return sc


def _rtt_words(rtt: Mapping[str, Any]) -> str:
    from bufsize import units

    if "uniform" in rtt:
        lo, hi = rtt["uniform"]
        return f"RTTs uniform over {units.format_time(lo)}–{units.format_time(hi)}"
    if "list" in rtt:
        return "RTTs " + ", ".join(units.format_time(x) for x in rtt["list"]) + " (cycled over the flows)"
    if "fixed" in rtt:
        return f"RTT {units.format_time(rtt['fixed'])}"
    return f"RTTs {rtt}"


def simulated_text(scenario: Mapping[str, Any]) -> str:
    """What a verification run simulates, in words, read back from the engine's form of
    ``scenario`` (so it states what runs, not what was asked): the flows per congestion control,
    the RTTs, access links, short flows and the TCP stack (its profile and what differs from it)."""
    from bufsize import profiles as _profiles
    from bufsize import units
    from bufsize.scenario import Scenario

    d = Scenario.from_dict(dict(scenario)).to_dict()
    db = d.get("dumbbell") or {}
    parts: list[str] = []
    tcps: list[Mapping[str, Any]] = []
    if db:
        classes = db.get("mix") or [{"flows": db["flows"], "tcp": db["tcp"]}]
        tcps += [c["tcp"] for c in classes]
        parts.append(" + ".join(f"{c['flows']:,} {c['tcp']['cc']}" for c in classes)
                     + f" long-lived flows at {units.format_rate(db['capacity_bps'])}")
        parts.append(_rtt_words(db["rtt_s"]))
        if db.get("access_rate_bps"):
            parts.append(f"each behind its own {units.format_rate(db['access_rate_bps'])} access link")
        disc = (db.get("buffer") or {}).get("discipline") if isinstance(db.get("buffer"), Mapping) else None
        if disc:
            set_ = [f"{k[:-2]} {units.format_time(v)}" if k.endswith("_s") else f"{k} {v}"
                    for k, v in disc.items() if k != "name"]
            parts.append(f"the port runs {disc['name']} "
                         + (", ".join(set_) + ", the rest at its defaults" if set_ else "at its defaults"))
    for sf in d.get("short_flows") or []:
        tcps.append(sf["tcp"])
        size = sf.get("size_packets") or {}
        lengths = sorted(set(size.get("list") or ([size["fixed"]] if "fixed" in size else [])))
        what = ("lengths " + ", ".join(f"{x:g}" for x in lengths) + " packets") if lengths else "their lengths"
        parts.append(f"short flows ({sf['tcp']['cc']}, {what}) at {sf['load']:.3g} of the capacity")
    # the hosts: the profile and every detail changed from it (bufsize.profiles)
    parts.append(_profiles.describe(tcps, d.get("profile")) if tcps else f"{d.get('profile')} profile")
    return "; ".join(parts)


# --------------------------------------------------------------------------- running

class Runner:
    """Runs lists of scenarios in parallel: a local process pool (``workers``, default all cores) or
    Dask (``scheduler`` address, or ``executor="dask"`` for a local cluster)."""

    def __init__(self, *, workers: int | None = None, scheduler: str | None = None, executor: str = "local",
                 cache: Any = None):
        from bufsize.experiments.runcache import RunCache

        self.workers = workers
        #: finished runs by scenario (:mod:`bufsize.experiments.runcache`); ``cache=False``: none
        self.cache = RunCache(None if cache is None else cache) if cache is not False else RunCache.off()
        self.kind = "dask" if (scheduler is not None or executor == "dask") else executor
        self._pool = None
        self._dask = None
        if self.kind == "dask":
            from bufsize.experiments.sweep import make_executor

            self._dask = make_executor("dask", workers=workers, scheduler=scheduler)
        elif self.kind not in ("local", "serial"):
            raise BufsizeError(f"unknown executor {executor!r} (serial, local or dask)", argument="--executor")
        if workers is not None and int(workers) < 1:
            raise BufsizeError(f"must be at least 1, got {workers}", argument="--workers")
        #: runs that share a warm-up per seed (:mod:`bufsize.recommendation.warmstart`; local pools only)
        self._warm = None
        self.runs = 0
        self.cpu_seconds = 0.0
        #: simulated seconds of the runs made, and how many of them stopped early once settled
        self.simulated_s = 0.0
        self.settled_runs = 0

    @property
    def parallelism(self) -> int:
        if self.kind == "serial":
            return 1
        if self.kind == "dask":
            try:
                return max(1, sum(self._dask.client.nthreads().values()))
            except Exception:  # noqa: BLE001 - unknown: assume a few
                return 4
        return int(self.workers) if self.workers else (os.cpu_count() or 1)

    def map(self, scenarios: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """Each scenario's run record, in order. Runs already made (by this or an earlier, perhaps
        interrupted, verification) come from the run cache; each new run is stored there as soon
        as it finishes, so Ctrl-C or a kill loses only the runs in flight."""
        jobs = [json.dumps(s) for s in scenarios]
        if not jobs:
            return []
        out: list[dict[str, Any] | None] = [self.cache.get(j) for j in jobs]
        for i, rec in enumerate(out):
            if rec is not None and not all(k in (rec.get("summary") or {}) for k in RUN_FIELDS):
                out[i] = None          # kept by an older version that did not keep every field: run again
                self.cache.hits -= 1
        todo = [i for i, rec in enumerate(out) if rec is None]
        n_workers = int(self.workers) if self.workers else (os.cpu_count() or 1)

        def done(i: int, rec: dict[str, Any]) -> None:
            out[i] = rec
            self.runs += 1
            self.cpu_seconds += float(rec.get("wall_seconds") or 0.0)
            summ = rec.get("summary") or {}
            # a run continued from a shared warm-up simulated only what follows it
            self.simulated_s += float(summ.get("simulated_s") or 0.0) - float(rec.get("prefix_s") or 0.0)
            self.settled_runs += summ.get("stopped") == "settled"
            if rec["status"] != "ok":
                raise BufsizeError(f"a verification run failed: {rec['error']}", argument="--verify")
            self.cache.put(jobs[i], rec)

        warm = self._warm_jobs(jobs, todo)
        if warm:
            todo = [i for i in todo if i not in {j[0] for j in warm}]
            ws = self._warm
            cpu0, sim0 = ws.cpu_seconds, ws.simulated_s
            try:
                for i, rec in ws.run(warm, n_workers):
                    done(i, rec)
            except BaseException:
                ws.close()     # Ctrl-C, SIGTERM or a failure: the holders and their runs are stopped
                self._warm = None
                raise
            finally:
                self.cpu_seconds += ws.cpu_seconds - cpu0      # the shared warm-ups, once each
                self.simulated_s += ws.simulated_s - sim0
        if not todo:
            pass
        elif self.kind == "dask":
            futures = self._dask.client.map(_task, [jobs[i] for i in todo], pure=False)
            for i, rec in zip(todo, self._dask.client.gather(futures)):
                done(i, rec)
        elif self.kind == "serial" or n_workers <= 1 or len(todo) == 1:
            for i in todo:
                done(i, _task(jobs[i]))
        else:
            from concurrent.futures import as_completed

            from bufsize.experiments._task import process_pool, stop_pool

            if self._pool is None:   # workers that die with this process (no orphans after kill -9)
                self._pool = process_pool(n_workers)
            try:
                futs = {self._pool.submit(_task, jobs[i]): i for i in todo}
                for fut in as_completed(futs):
                    done(futs[fut], fut.result())
            except BaseException:
                stop_pool(self._pool)   # Ctrl-C, SIGTERM or a failure: the runs in flight are killed
                self._pool = None
                raise
        return [rec for rec in out if rec is not None]

    def _warm_jobs(self, jobs: Sequence[str], todo: Sequence[int]) -> list[tuple[int, str, str]]:
        """The runs of ``todo`` that continue a shared warm-up here: (index, job, prefix key)."""
        import bufsize.recommendation.warmstart as warmstart

        if self.kind != "local" or not warmstart.available():
            return []
        out = []
        for i in todo:
            key = warmstart.prefix_key(json.loads(jobs[i]))
            if key is not None:
                out.append((i, jobs[i], key))
        if out and self._warm is None:
            self._warm = warmstart.WarmStarts()
        return out

    def close(self) -> None:
        if self._warm is not None:
            self._warm.close()
            self._warm = None
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None
        if self._dask is not None:
            self._dask.close()
            self._dask = None


# --------------------------------------------------------------------------- statistics

GOAL_METRIC = {"utilization": "utilization", "loss": "loss_rate", "fct": "fct_mean_s"}


def _t_bounds(values: Sequence[float], alpha: float = ALPHA) -> tuple[float, float, float, float]:
    """(mean, sd, one-sided lower bound, one-sided upper bound) at level 1 − alpha."""
    from scipy import stats

    v = [float(x) for x in values if x is not None and math.isfinite(float(x))]
    if not v:
        return math.nan, math.nan, math.nan, math.nan
    n = len(v)
    mean = sum(v) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in v) / (n - 1)) if n > 1 else 0.0
    half = float(stats.t.ppf(1 - alpha, n - 1)) * sd / math.sqrt(n) if n > 1 and sd > 0 else 0.0
    return mean, sd, mean - half, mean + half


def _ci95(values: Sequence[float]) -> float:
    from scipy import stats

    v = [float(x) for x in values if x is not None and math.isfinite(float(x))]
    if len(v) < 2:
        return math.nan
    mean = sum(v) / len(v)
    sd = math.sqrt(sum((x - mean) ** 2 for x in v) / (len(v) - 1))
    return float(stats.t.ppf(0.975, len(v) - 1)) * sd / math.sqrt(len(v))


@dataclass
class SizeResult:
    """The runs at one buffer size and the verdict of each goal there."""

    buffer: int
    runs: list[dict[str, Any]]          # one summary per seed (with "seed")
    goals: dict[str, dict[str, Any]] = field(default_factory=dict)   # goal -> mean, sd, bound, verdict
    verdict: str = "unclear"            # meets / fails / unclear (all goals together)

    def mean(self, metric: str) -> float:
        return _t_bounds([r.get(metric) for r in self.runs])[0]

    def ci(self, metric: str) -> float:
        return _ci95([r.get(metric) for r in self.runs])

    def misses(self) -> list[str]:
        """Goals whose mean is on the wrong side of the goal."""
        return [g for g, d in self.goals.items() if not d["mean_ok"]]

    def to_dict(self) -> dict[str, Any]:
        out = {"buffer_packets": self.buffer, "verdict": self.verdict, "seeds": [r["seed"] for r in self.runs],
               "goals": self.goals,
               # each seed's measured window and whether it stopped once settled (batch means)
               "measured_s": [r.get("measured_s") for r in self.runs],
               "stopped": [r.get("stopped", "full length") for r in self.runs]}
        for m in ("utilization", "loss_rate", "queue_delay_mean_s", "queue_delay_p99_s", "fct_mean_s", "timeouts"):
            out[m] = self.mean(m)
            out[m + "_ci95"] = self.ci(m)
        if any(r.get("overflow_share") is not None for r in self.runs):   # behind a discipline
            out["overflow_share"] = self.mean("overflow_share")
            out["overflow_share_ci95"] = self.ci("overflow_share")
            out["dropping"] = dropping(self.runs)
        return out


def overflow_share(run: Mapping[str, Any]) -> float | None:
    """The share of the packets one run's port dropped or marked that were overflow drops at the hard
    limit (0 where it neither dropped nor marked any); None where the run did not count them."""
    ovf = run.get("overflow_drops")
    if ovf is None:
        return None
    total = int(ovf) + int(run.get("aqm_drops") or 0) + int(run.get("marks") or 0)
    return int(ovf) / total if total else 0.0


def dropping(runs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Who dropped or marked the packets at one size, summed over its runs: the discipline's drops,
    its marks, the overflow drops at the hard limit, and the discipline's share of them all (None
    where nothing was dropped or marked)."""
    aqm = sum(int(r.get("aqm_drops") or 0) for r in runs)
    marks = sum(int(r.get("marks") or 0) for r in runs)
    ovf = sum(int(r.get("overflow_drops") or 0) for r in runs)
    total = aqm + marks + ovf
    return {"discipline_drops": aqm, "marks": marks, "overflow_drops": ovf,
            "discipline_share": (aqm + marks) / total if total else None}


def judge(res: SizeResult, goals: Goals, *, capacity_pps: float, alpha: float = ALPHA,
          alpha_meets: float | None = None) -> SizeResult:
    """Fill ``res.goals`` and ``res.verdict`` (see the module doc): a goal is met when the one-sided
    bound at level 1 − ``alpha_meets`` (``alpha`` when None) is on its right side, missed when the
    opposite bound at 1 − ``alpha`` is on its wrong side. The search judges its sizes over several
    looks and passes :func:`bufsize.recommendation.sequential.alpha_meets` for them."""
    out: dict[str, dict[str, Any]] = {}
    checks: list[tuple[str, str, float, bool]] = []
    if goals.utilization is not None:
        checks.append(("utilization", "utilization", goals.utilization, True))
    if goals.max_loss is not None:
        checks.append(("loss", "loss_rate", goals.max_loss, False))
    if goals.max_fct_s is not None:
        checks.append(("fct", "fct_mean_s", goals.max_fct_s, False))
    if goals.max_delay_p99_s is not None:
        checks.append(("delay_p99", "queue_delay_p99_s", goals.max_delay_p99_s, False))
    if goals.max_overflow_share is not None:
        checks.append(("overflow_share", "overflow_share", goals.max_overflow_share, False))
    verdicts = []
    for name, metric, target, lower in checks:
        values = [r.get(metric) for r in res.runs]
        mean, sd, lo, hi = _t_bounds(values, alpha)
        if alpha_meets is not None and alpha_meets != alpha:
            _, _, lo_m, hi_m = _t_bounds(values, alpha_meets)
            lo, hi = (lo_m, hi) if lower else (lo, hi_m)
        if not math.isfinite(mean):
            v, ok = "fails", False   # nothing measured (e.g. no short flow completed): not shown to meet
        elif lower:
            v = "meets" if lo >= target else ("fails" if hi < target else "unclear")
            ok = mean >= target
        else:
            v = "meets" if hi <= target else ("fails" if lo > target else "unclear")
            ok = mean <= target
        out[name] = {"metric": metric, "target": target, "mean": mean, "sd": sd, "low": lo, "high": hi,
                     "verdict": v, "mean_ok": ok}
        verdicts.append(v)
    if goals.max_delay_s is not None:
        cap = goals.max_delay_s * capacity_pps
        ok = res.buffer <= cap + 1e-9
        out["delay"] = {"metric": "buffer/C", "target": goals.max_delay_s, "mean": res.buffer / capacity_pps,
                        "verdict": "meets" if ok else "fails", "mean_ok": ok,
                        "queue_delay_mean_s": res.mean("queue_delay_mean_s"),
                        "queue_delay_p99_s": res.mean("queue_delay_p99_s")}
        verdicts.append(out["delay"]["verdict"])
    res.goals = out
    res.verdict = "fails" if "fails" in verdicts else ("meets" if all(v == "meets" for v in verdicts) else "unclear")
    return res


def _measured_delay_goals(goals: Goals) -> Goals:
    """The goals behind an AQM: the hard limit does not bound the delay (the discipline does), so a
    delay goal is judged on the runs' measured p99, as ``--max-delay-p99``."""
    if goals.max_delay_s is None:
        return goals
    p99 = goals.max_delay_s if goals.max_delay_p99_s is None else min(goals.max_delay_s, goals.max_delay_p99_s)
    return Goals(goals.utilization, goals.max_loss, None, goals.max_fct_s, p99, goals.max_overflow_share)


def _lower_goals(goals: Goals) -> Goals:
    """The goals that a larger buffer helps (the delay limits left out; the overflow share kept)."""
    return Goals(goals.utilization, goals.max_loss, None, goals.max_fct_s,
                 max_overflow_share=goals.max_overflow_share)


# --------------------------------------------------------------------------- the search

@dataclass
class Verified:
    """The verified answer (see the module doc). ``buffer_packets`` is None when no size meets the goals."""

    status: str                  # "verified", "lower-bound" (met at the search's lowest size), "infeasible"
    buffer_packets: int | None
    goals: Goals
    statement: str
    need_mean: float = math.nan  # mean of the per-seed crossing points (packets)
    need_ci95: float = math.nan  # 95 % t half-width over seeds
    at_size: dict[str, Any] | None = None
    at_half: dict[str, Any] | None = None
    #: the buffer the user has (``--buffer``), simulated and judged like the others (None: not given)
    at_buffer: dict[str, Any] | None = None
    #: the queue discipline whose hard limit was sized (``--aqm``), None for a drop-tail FIFO
    aqm: str | None = None
    #: the discipline's settings the hard limit was sized at (display form, :data:`AQM_SETTINGS`' keys):
    #: the defaults, a larger target where they missed the utilization goal, or the threshold K sized
    aqm_settings: dict[str, Any] | None = None
    #: how the settings were found: each setting tried at the largest hard limit, its runs and verdict
    settings_search: dict[str, Any] | None = None
    #: behind a marking threshold: the senders simulated, in words (DCTCP, or ECN-capable <cc>)
    senders: str | None = None
    #: the DCTCP paper's guideline K > C·RTT/7 in packets (:func:`dctcp_rule_packets`), shown beside K
    dctcp_rule: dict[str, float] | None = None
    #: set when the discipline neither dropped nor marked a packet at the answer (the hard limit alone
    #: held the queue): what that means, in words
    aqm_idle: str | None = None
    #: behind a discipline: who dropped or marked the packets at the answer (:func:`dropping`), the
    #: overflow share's mean over seeds and its rule, and whether the rule, not the goals, set the limit
    aqm_dropping: dict[str, Any] | None = None
    #: beside a drop-tail answer: what :data:`BESIDE_AQM` at its default limit gives on the same traffic
    aqm_beside: dict[str, Any] | None = None
    best: dict[str, Any] | None = None       # infeasible: what the best buffer gives
    infeasible: list[str] = field(default_factory=list)
    verdicts: dict[str, dict[str, Any]] = field(default_factory=dict)
    sizes: dict[int, SizeResult] = field(default_factory=dict)
    run: RunLength | None = None
    traffic: dict[str, Any] = field(default_factory=dict)
    simulated: str = ""           # what the runs simulate, in words (simulated_text)
    notes: list[str] = field(default_factory=list)
    search_range: tuple[int, int] = (0, 0)
    runs: int = 0
    #: runs answered by the run cache (made before, by this or an interrupted verification)
    cached_runs: int = 0
    wall_seconds: float = math.nan
    cpu_seconds: float = math.nan
    #: simulated seconds of the runs made, and how many stopped early once their counters settled
    simulated_seconds: float = math.nan
    settled_runs: int = 0
    seeds: tuple[int, ...] = SEEDS
    capacity_pps: float = math.nan
    packet_bytes: float = 1500.0

    # ---- views
    def curve(self):
        """One row per size evaluated: mean and 95 % interval of each metric, and the verdict."""
        import pandas as pd

        rows = [self.sizes[b].to_dict() for b in sorted(self.sizes)]
        for r in rows:
            r.pop("goals", None)
            r["seeds"] = len(r["seeds"])
            r.pop("stopped", None)
            measured = [x for x in r.pop("measured_s") if x is not None]
            r["measured_s_mean"] = sum(measured) / len(measured) if measured else math.nan
        return pd.DataFrame(rows)

    def to_dict(self) -> dict[str, Any]:
        from bufsize._json import json_safe

        return json_safe({
            "status": self.status, "buffer_packets": self.buffer_packets,
            "buffer_bytes": None if self.buffer_packets is None else self.buffer_packets * self.packet_bytes,
            "queueing_delay_s": None if self.buffer_packets is None else self.buffer_packets / self.capacity_pps,
            "statement": self.statement, "goals": self.goals.to_dict(),
            "need_packets_mean": self.need_mean, "need_packets_ci95": self.need_ci95,
            "at_size": self.at_size, "at_half": self.at_half, "at_buffer": self.at_buffer, "best": self.best,
            "aqm": self.aqm,
            "aqm_settings": None if self.aqm is None else (self.aqm_settings or AQM_SETTINGS[self.aqm]),
            "settings_search": self.settings_search, "senders": self.senders, "dctcp_rule_packets": self.dctcp_rule,
            "aqm_idle": self.aqm_idle, "aqm_dropping": self.aqm_dropping,
            "aqm_beside": self.aqm_beside, "infeasible": self.infeasible,
            "verdicts": self.verdicts, "run": None if self.run is None else self.run.to_dict(),
            "scenario": self.traffic, "simulated": self.simulated, "notes": self.notes, "search_range_packets": list(self.search_range),
            "seeds": list(self.seeds), "runs": self.runs, "cached_runs": self.cached_runs,
            "wall_seconds": self.wall_seconds,
            "cpu_seconds": self.cpu_seconds,
            "simulated_seconds": self.simulated_seconds, "settled_runs": self.settled_runs,
            "curve": [self.sizes[b].to_dict() for b in sorted(self.sizes)],
        })


def _whole(b: float) -> int:
    """The whole packets a buffer of ``b`` packets' bytes holds (at least one)."""
    return max(1, int(math.floor(b + 1e-9)))


def _model_sizes(rec) -> dict[str, float]:
    return {m.id: float(m.buffer_packets) for m in rec.models
            if m.buffer_packets is not None and math.isfinite(m.buffer_packets) and m.buffer_packets >= 0}


class _Search:
    def __init__(self, inp, run: RunLength, runner: Runner, say: Callable[[str], None],
                 seeds=SEEDS, extra=EXTRA_SEEDS, aqm: Any = None, stop: StopRule | None = None):
        self.inp, self.run, self.runner, self.say = inp, run, runner, say
        #: the discipline in the engine's form (:func:`aqm_discipline`), None for drop-tail
        self.aqm = aqm
        #: what the sizes are: "pkt" (a buffer or hard limit) or "K" (a marking threshold)
        self.unit = "pkt"
        #: when a run may end before ``run``'s full length (None: never)
        self.stop = stop
        self.seeds, self.extra = tuple(seeds), tuple(extra)
        #: the meets bound's level at each look, so that over all looks (:func:`evaluate`'s batches)
        #: a size exactly on its goal is shown to meet it with chance ALPHA (:mod:`.sequential`)
        self.alpha_meets = sequential.alpha_meets(sequential.looks(FIRST_SEEDS, len(self.seeds), len(self.extra)))
        self.raw: dict[int, dict[int, dict[str, Any]]] = {}   # buffer -> seed -> summary
        self.t0 = time.perf_counter()
        #: the runs a search like this typically makes (for the time-left estimate; 0: none given)
        self.expected_runs = 0
        #: runs share their warm-up up to this time (simulated seconds; None: each run its own), behind
        #: ``warm_from`` packets (:func:`shared_warmup_buffer`; :mod:`bufsize.recommendation.warmstart`)
        self.warm_until: float | None = None
        self.warm_from: int | None = None
        #: the progress line of every size decided so far, in order (what an interrupted search had)
        self.decided: list[SizeLine] = []

    def _ensure(self, pairs: Sequence[tuple[int, int]]) -> None:
        todo = sorted({(b, s) for b, s in pairs if s not in self.raw.get(b, {})})
        if not todo:
            return
        scs = [self._scenario(b, s) for b, s in todo]
        if self.stop is not None:
            scs = [dict(sc, _stop=self.stop.to_dict()) for sc in scs]
        for (b, s), rec in zip(todo, self.runner.map(scs)):
            run = dict(rec["summary"], seed=s)
            if self.aqm is not None:
                run["overflow_share"] = overflow_share(run)
            self.raw.setdefault(b, {})[s] = run

    def _scenario(self, b: int, seed: int) -> dict[str, Any]:
        sc = build_scenario(self.inp, b, seed=seed, warmup_s=self.run.warmup_s, duration_s=self.run.duration_s,
                            aqm=self.aqm)
        if self.warm_until is not None and self.warm_from is not None:
            sc["warm_buffer"] = {"packets": self.warm_from, "until_s": self.warm_until}
        return sc

    def result(self, b: int, goals: Goals) -> SizeResult:
        runs = [self.raw[b][s] for s in sorted(self.raw[b])]
        return judge(SizeResult(b, runs), goals, capacity_pps=self.inp.capacity_pps, alpha_meets=self.alpha_meets)

    def evaluate(self, sizes: Sequence[int], goals: Goals) -> dict[int, SizeResult]:
        """Run ``sizes`` (all together, in parallel) over the first :data:`FIRST_SEEDS` seeds; a size
        whose verdict those already decide at the test's level stops there, the others get the rest
        of the seeds, then the extra seeds where still unclear. Each batch is a look: the meets bound
        is judged at :attr:`alpha_meets`, calibrated over these looks (:mod:`.sequential`)."""
        sizes = sorted({int(b) for b in sizes})
        first = self.seeds[:FIRST_SEEDS]
        self._ensure([(b, s) for b in sizes for s in first])
        out = {b: self.result(b, goals) for b in sizes}
        rest = [s for s in self.seeds if s not in first]
        open_ = [b for b, r in out.items() if r.verdict == "unclear" or len(r.runs) < 2]
        if open_ and rest:
            self._ensure([(b, s) for b in open_ for s in rest])
            out.update({b: self.result(b, goals) for b in open_})
        unclear = [b for b, r in out.items() if r.verdict == "unclear"]
        if unclear and self.extra:
            self._ensure([(b, s) for b in unclear for s in self.extra])
            out.update({b: self.result(b, goals) for b in unclear})
        for b in sizes:
            r = out[b]
            line = size_line(b, self.unit, r.verdict, len(r.runs), r.mean("utilization"), r.mean("loss_rate"),
                             self.runner.runs, self.runner.cache.hits, self.expected_runs,
                             time.perf_counter() - self.t0)
            self.decided.append(line)
            self.say(line)
        return out

    def bisect(self, lo: int | None, hi: int, goals: Goals, floor: int = 1) -> tuple[int | None, int]:
        """(largest size not shown to meet, smallest size shown to meet); ``hi`` meets. ``lo`` None:
        evaluate ``floor`` first. Each step interpolates the goals' margin linearly in log B between
        the two ends (clamped to the middle 30–70 % of the interval, so it never does worse than a
        slow bisection)."""
        if lo is None:
            r = self.evaluate([floor], goals)[floor]
            if r.verdict == "meets":
                return None, floor
            lo = floor
        while hi - lo > 1 and hi > (1 + RESOLUTION) * max(lo, 0.5):
            x0, x1 = math.log(max(lo, 0.5)), math.log(hi)
            s0, s1 = _margin(self.result(lo, goals), goals), _margin(self.result(hi, goals), goals)
            frac = 0.5
            if math.isfinite(s0) and math.isfinite(s1) and s1 > s0:
                frac = min(0.7, max(0.3, -s0 / (s1 - s0)))
            mid = int(round(math.exp(x0 + frac * (x1 - x0))))
            mid = min(max(mid, lo + 1), hi - 1)
            r = self.evaluate([mid], goals)[mid]
            if r.verdict == "meets":
                hi = mid
            else:
                lo = mid
        return lo, hi

    def first_meeting(self, sizes: Sequence[int], goals: Goals) -> tuple[int | None, int | None]:
        """Binary search over the sorted ``sizes`` (the models' sizes) for the smallest one that meets
        the goals, by monotonicity: (largest size evaluated that does not meet, smallest that meets).
        Sizes between are judged from their neighbours, not run. Of sizes within
        :data:`NEAR_SIZES` of each other (models that nearly agree) the smallest is tried first: if it
        meets, so do the others, without their own runs."""
        todo = sorted(set(sizes))
        i, j = 0, len(todo)          # the answer's index lies in [i, j]; j = len: none meets
        lo = None
        while i < j:
            m = (i + j) // 2
            while m > i and todo[m] <= (1 + NEAR_SIZES) * todo[m - 1]:
                m -= 1
            r = self.evaluate([todo[m]], goals)[todo[m]]
            if r.verdict == "meets":
                j = m
            else:
                lo = todo[m]
                i = m + 1
        return lo, (todo[j] if j < len(todo) else None)


class _ThresholdSearch(_Search):
    """The search over a marking threshold K (the sizes are K, in packets) behind a fixed hard limit."""

    def __init__(self, *args: Any, hard_limit: int, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.hard_limit = int(hard_limit)
        self.unit = "K"

    def _scenario(self, b: int, seed: int) -> dict[str, Any]:
        return build_scenario(self.inp, self.hard_limit, seed=seed, warmup_s=self.run.warmup_s,
                              duration_s=self.run.duration_s,
                              aqm=aqm_discipline("ecn_threshold", {"K": f"{int(b)}pkt"}))


def _margin(r: SizeResult, goals: Goals) -> float:
    """The smallest relative margin of the (lower) goals at ``r``: ≥ 0 when every mean meets its goal."""
    vals = []
    for name, d in r.goals.items():
        if name == "delay" or not math.isfinite(d["mean"]):
            continue
        t = d["target"]
        if name == "utilization":
            vals.append((d["mean"] - t) / max(1.0 - t, 1e-3))
        else:
            vals.append((t - d["mean"]) / max(t, 1e-12))
    return min(vals) if vals else math.nan


def _per_seed_need(sizes: Mapping[int, SizeResult], goals: Goals, seeds: Sequence[int]) -> list[float]:
    """Each seed's crossing point: the smallest buffer at which that seed's runs meet every (lower)
    goal, interpolated in log(1 + B) between the neighbouring sizes evaluated."""
    out = []
    bs = sorted(sizes)
    for s in seeds:
        pts = []
        for b in bs:
            run = next((r for r in sizes[b].runs if r["seed"] == s), None)
            if run is not None:
                pts.append((b, run))
        if len(pts) < 2:
            continue

        def slack(run) -> float:
            vals = [] if goals.utilization is None else [run["utilization"] - goals.utilization]
            if goals.max_loss is not None:
                vals.append(goals.max_loss - run["loss_rate"])
            if goals.max_fct_s is not None:
                f = run.get("fct_mean_s")
                vals.append(goals.max_fct_s - f if f is not None and math.isfinite(f) else -1.0)
            if goals.max_overflow_share is not None and run.get("overflow_share") is not None:
                vals.append(goals.max_overflow_share - run["overflow_share"])
            return min(vals) if vals else 0.0

        need = None
        prev = None
        for b, run in pts:
            sl = slack(run)
            if sl >= 0:
                if prev is None:
                    need = float(b)
                else:
                    (b0, s0) = prev
                    x0, x1 = math.log1p(b0), math.log1p(b)
                    frac = -s0 / (sl - s0) if sl != s0 else 1.0
                    need = math.expm1(x0 + frac * (x1 - x0))
                break
            prev = (b, sl)
        if need is not None:
            out.append(need)
    return out


def settings_runs(aqm: str | None, n_seeds: int) -> int:
    """The runs finding ``aqm``'s settings typically takes (for the cost estimate): a target ladder
    costs one size per rung beyond the default (the default's size is the hard-limit search's top, which
    it would run anyway), counted at its worst, every rung; a threshold K a binary search over three
    candidates and about three bisection steps."""
    per = RUNS_PER_SIZE * n_seeds / 3
    if aqm in TARGET_SIZED:
        return int(math.ceil((len(TARGET_LADDER) - 1) * per))
    if aqm == "ecn_threshold":
        return int(math.ceil(5 * per))
    return 0


def growth_runs(aqm: str | None, n_seeds: int) -> int:
    """The most runs the growth of the hard limit's range takes behind ``aqm`` (:func:`_grow_top`):
    one size per doubling of its top, :data:`TOP_DOUBLINGS` at most. Counted in the refusal's worst
    case (:func:`check_cost`), not in the typical estimate: the top of the range usually meets the
    share rule at once."""
    return 0 if aqm is None else int(math.ceil(TOP_DOUBLINGS * RUNS_PER_SIZE * n_seeds / 3))


def senders_text(scenario: Mapping[str, Any]) -> str:
    """'30 DCTCP' or '30 ECN-capable cubic (RFC 3168 response)': the senders behind a marking threshold."""
    db = scenario.get("dumbbell") or {}
    classes = db.get("mix") or ([{"flows": db["flows"], "tcp": db["tcp"]}] if db else [])
    out = []
    for c in classes:
        cc = (c.get("tcp") or {}).get("cc") or db.get("tcp", {}).get("cc")
        out.append(f"{c['flows']:,} DCTCP" if cc == "dctcp" else f"{c['flows']:,} ECN-capable {cc} (RFC 3168 response)")
    for f in scenario.get("short_flows") or []:
        cc = f["tcp"]["cc"]
        out.append("short flows " + ("DCTCP" if cc == "dctcp" else f"ECN-capable {cc} (RFC 3168 response)"))
    return " + ".join(out)


def _size_settings(aqm: str, srch: _Search, top_i: int, lower: Goals,
                   goals: Goals) -> tuple[_Search, dict[str, Any], dict[str, Any] | None]:
    """The settings the hard limit is sized at: (the search to size it with, the settings, how they
    were found). Each setting is judged at ``top_i``, the largest hard limit of the range, so the
    hard limit does not decide it: CoDel's, FQ-CoDel's and PIE's default target, then the larger ones of
    :data:`TARGET_LADDER` only where the default misses the goals (the smallest that meets them);
    a marking threshold's K, the smallest K shown to meet them (a binary search over the DCTCP
    paper's guideline, half the BDP and the largest K below ``top_i``, then a bisection). RED's
    settings are kept at their defaults."""
    inp = srch.inp

    def record(key: str, value: Any, r: SizeResult) -> dict[str, Any]:
        d = _size_summary(r)
        d.pop("goals", None)
        return {key: value, **d}

    if aqm in TARGET_SIZED:
        srch.say(f"{aqm}'s target first, at a hard limit of {top_i:,} packets (larger only where the default misses)")
        tried, chosen = [], None
        searches = []
        for factor in TARGET_LADDER:
            st = scaled_target(aqm, factor)
            s = srch if factor == 1 else _Search(inp, srch.run, srch.runner, srch.say, seeds=srch.seeds,
                                                 extra=srch.extra, aqm=aqm_discipline(aqm, st), stop=srch.stop)
            r = s.evaluate([top_i], lower)[top_i]
            tried.append(record("target", st["target"], s.result(top_i, goals)))
            searches.append((st, s, r))
            if r.verdict == "meets":
                chosen = (st, s)
                break
        if chosen is None:   # none meets: the one closest to the goals; the search reports what it misses
            st, s, _r = max(searches, key=lambda x: _margin(x[2], lower) if math.isfinite(_margin(x[2], lower))
                            else -math.inf)
            chosen = (st, s)
            text = (f"no target on the ladder ({', '.join(t['target'] for t in tried)}) met the goals at a hard "
                    f"limit of {top_i:,} packets; sized at target {st['target']}, the closest")
        elif len(tried) == 1:
            text = (f"the default target {tried[0]['target']} meets the goals at a hard limit of {top_i:,} "
                    f"packets: kept")
        else:
            text = (f"the default target {tried[0]['target']} misses the goals at a hard limit of {top_i:,} "
                    f"packets; {chosen[0]['target']} is the smallest on the ladder "
                    f"({', '.join(f'×{f}' for f in TARGET_LADDER)}) that meets them (the other settings kept)")
        interval = AQM_SETTINGS[aqm].get("interval")
        if interval is not None:
            from bufsize import units

            iv = units.parse_time(interval, argument="--aqm")
            if inp.rtt_max_s > iv:
                text += (f"; the interval, {interval}, is below the longest RTT ({units.format_time(inp.rtt_max_s)}): "
                         f"RFC 8289 sets it on the order of the worst RTT, and it is not sized here")
        return chosen[1], chosen[0], {"what": "target", "hard_limit_packets": top_i, "tried": tried,
                                      "text": text}
    if aqm != "ecn_threshold":
        return srch, dict(AQM_SETTINGS[aqm]), None
    srch.say(f"the marking threshold K first, behind a hard limit of {top_i:,} packets")
    ks = _ThresholdSearch(inp, srch.run, srch.runner, srch.say, seeds=srch.seeds, extra=srch.extra,
                          stop=srch.stop, hard_limit=top_i)
    rule = dctcp_rule_packets(inp)["mean_rtt"]
    top_k = max(1, top_i - 1)
    cands = sorted({min(top_k, max(1, int(math.ceil(rule)))), min(top_k, max(1, int(round(inp.bdp_packets / 2)))),
                    top_k})
    lo, hi = ks.first_meeting(cands, lower)
    if hi is None:
        k = top_k
        text = (f"no marking threshold up to {top_k:,} packets met the goals behind a hard limit of {top_i:,} "
                f"packets; sized at K = {k:,}, the largest tried")
    else:
        failing = [b for b in ks.raw if b < hi and ks.result(b, lower).verdict != "meets"]
        lo, hi = ks.bisect(max(failing) if failing else None, hi, lower, floor=1)
        k = hi
        text = (f"K = {k:,} packets is the smallest threshold shown to meet the goals behind a hard limit of "
                f"{top_i:,} packets" + (f"; {lo:,} did not" if lo is not None else "; the search's lower bound"))
    tried = [record("K", b, ks.result(b, goals)) for b in sorted(ks.raw)]
    out = _Search(inp, srch.run, srch.runner, srch.say, seeds=srch.seeds, extra=srch.extra,
                  aqm=aqm_discipline(aqm, {"K": f"{k}pkt"}), stop=srch.stop)
    # the same runs: K behind the largest hard limit
    out.raw[top_i] = {seed: dict(run, overflow_share=overflow_share(run)) for seed, run in ks.raw[k].items()}
    return out, {"K": f"{k}pkt"}, {"what": "K", "hard_limit_packets": top_i, "tried": tried, "text": text}


def _grow_top(srch: _Search, top_i: int, lower: Goals) -> tuple[int, dict[str, Any] | None]:
    """The top of the hard limit's range at which the overflow share is shown to meet its rule:
    ``top_i``, or it doubled up to :data:`TOP_DOUBLINGS` times where it is not (each size judged with
    the search's seeds and t bound). (top, None), or (``top_i``, what the largest tried gave) where
    none met the rule."""
    b = top_i
    for i in range(TOP_DOUBLINGS + 1):
        if i:
            srch.say(f"  overflow drops above {100 * MAX_OVERFLOW_SHARE:g} % of the drops at the range's top: "
                     f"the top doubled to {b:,} packets")
            srch.expected_runs += int(math.ceil(RUNS_PER_SIZE * len(srch.seeds) / 3))
        r = srch.evaluate([b], lower)[b]
        if r.goals["overflow_share"]["verdict"] == "meets":
            return b, None
        if i < TOP_DOUBLINGS:
            b *= 2
    return top_i, {"buffer_packets": b, "overflow_share": r.mean("overflow_share")}


def _dropping_at(srch: _Search, sizes: Mapping[int, SizeResult], final: int, goals: Goals) -> dict[str, Any]:
    """Who dropped or marked at the answer ``final`` (:func:`dropping`), the overflow share's mean over
    seeds, and, where a smaller hard limit run already met the goals alone, that the share rule set
    the limit (in one line: ``set_by_share``)."""
    r = sizes[final]
    out: dict[str, Any] = {**dropping(r.runs), "overflow_share": r.mean("overflow_share"),
                           "overflow_share_ci95": r.ci("overflow_share"), "max_overflow_share": goals.max_overflow_share,
                           "set_by_share": None}
    if goals.max_overflow_share is None:
        return out
    alone = _lower_goals(replace(goals, max_overflow_share=None))
    met = sorted(b for b in srch.raw if b < final and srch.result(b, alone).verdict == "meets")
    if met:
        b = met[0]
        rb = srch.result(b, alone)
        out["goals_alone_packets"] = b
        out["set_by_share"] = (f"the share rule, not the goals, set the hard limit: {b:,} packets already met the "
                               f"goals, but there overflow drops at the hard limit were {100 * rb.mean('overflow_share'):.1f} % "
                               f"of the drops and marks (at most {100 * goals.max_overflow_share:g} % leaves the work to the "
                               f"discipline)")
    return out


def verify_recommendation(rec, *, max_fct: float | None = None, max_delay_p99: float | None = None, workers: int | None = None,
                          scheduler: str | None = None, executor: str = "local", seeds: Sequence[int] = SEEDS,
                          max_measure_s: float = MAX_MEASURE_S, say: Callable[[str], None] | None = None,
                          runner: Runner | None = None, buffer: float | None = None,
                          buffer_text: str | None = None, aqm: str | None = None,
                          beside: bool = True, run_lengths: str = "settled", warm_start: bool = True) -> Verified:
    """Find the verified size for a :class:`bufsize.recommendation.Recommendation` (module doc).

    ``run_lengths``: "settled" lets a run stop once its own counters have settled (batch means,
    :func:`bufsize.recommendation.runlength.stop_rule`); "fixed" measures every run for the full
    length from the traffic's slowest cycle. ``warm_start`` (drop-tail searches): the runs of one
    seed share the warm-up up to :func:`bufsize.recommendation.runlength.resettle_s` before its end,
    behind BDP/√n (:func:`shared_warmup_buffer`, :mod:`bufsize.recommendation.warmstart`); False: every run warms up
    behind its own size."""
    if run_lengths not in ("settled", "fixed"):
        raise BufsizeError(f"unknown run length rule {run_lengths!r} (settled or fixed)")
    say = say or (lambda _t: None)
    inp = rec.input
    goals = goals_of(inp, max_fct, max_delay_p99)
    if goals.max_fct_s is not None and inp.short_lengths is None:
        raise BufsizeError("a completion-time goal needs short flows (--short-flows with --short-load)",
                           argument="--max-fct")
    _require_flows(inp)
    notes = scenario_notes(inp)
    if aqm is not None and goals.max_delay_s is not None:
        # behind an AQM the hard limit does not bound the delay (the discipline does): the delay
        # goal is judged on the runs' measured p99, as --max-delay-p99
        notes.append(f"with {aqm} the queueing-delay goal is judged on the measured p99, not as B ≤ C·λ")
        goals = _measured_delay_goals(goals)
    models = _model_sizes(rec)
    bdp = inp.bdp_packets
    cap_delay = None if goals.max_delay_s is None else goals.max_delay_s * inp.capacity_pps
    # the range searched: the models' sizes bracket it; at least up to 2·BDP (4·BDP for a loss goal)
    top = max([2.0 * bdp] + ([4.0 * bdp] if goals.max_loss is not None else [])
              + [b for b in models.values() if b <= 8 * bdp])
    top_i = max(2, int(math.ceil(top)))
    run = run_length(inp, top_i, max_measure_s=max_measure_s)
    t0 = time.perf_counter()
    own = runner is None
    if own:
        check_cost(rec, workers=workers, scheduler=scheduler, max_measure_s=max_measure_s,
                   extra_buffer=buffer, aqm=aqm)
    runner = runner or Runner(workers=workers, scheduler=scheduler, executor=executor)
    extra = tuple(max(seeds) + 1 + i for i in range(len(seeds)))
    stop = stop_rule(inp, run, goals) if run_lengths == "settled" else None
    srch = _Search(inp, run, runner, say, seeds=seeds, extra=extra,
                   aqm=None if aqm is None else aqm_discipline(aqm), stop=stop)
    if warm_start and aqm is None:
        # the same scenarios on every executor (so the same answer); only a local pool holds the
        # warm-ups (elsewhere each run simulates its shared part too), if they fit its memory
        until = shared_warmup_s(inp, run, top_i)
        if until is not None and (runner.kind != "local"
                                  or _holders_fit(inp, run, top_i, len(seeds) + len(extra), runner.parallelism)):
            srch.warm_until, srch.warm_from = until, shared_warmup_buffer(inp, top_i)
    srch.expected_runs = typical_runs(len({_whole(b) for b in models.values()}), len(seeds), _has_bbr(inp)) \
        + (len(seeds) if buffer is not None else 0) + (len(seeds) if aqm is None and beside else 0) \
        + settings_runs(aqm, len(seeds))
    lower = _lower_goals(goals)
    infeasible: list[str] = []
    best = None
    top_misses: list[str] = []
    from contextlib import ExitStack

    from bufsize.experiments._task import stop_on_sigterm

    stack = ExitStack()
    if runner.kind != "serial":
        stack.enter_context(stop_on_sigterm())   # SIGTERM stops the workers instead of orphaning them
    try:
        floor = 1
        settings: dict[str, Any] | None = None
        settings_search: dict[str, Any] | None = None
        if aqm is not None:
            # the discipline's settings first (a target, or the threshold K), at the largest hard
            # limit of the range; then the hard limit behind the settings chosen
            srch, settings, settings_search = _size_settings(aqm, srch, top_i, lower, goals)
            if aqm == "ecn_threshold":
                floor = int(str(settings["K"]).removesuffix("pkt")) + 1   # a hard limit at or below K never marks
            # the hard limit must also leave the dropping to the discipline (MAX_OVERFLOW_SHARE); where
            # the range's top does not, the range grows
            goals = replace(goals, max_overflow_share=MAX_OVERFLOW_SHARE)
            lower = _lower_goals(goals)
            grown, unmet = _grow_top(srch, top_i, lower)
            if unmet is not None:
                notes.append(f"no hard limit up to {unmet['buffer_packets']:,} packets ({TOP_DOUBLINGS + 1} doublings "
                             f"of the range's top) left the dropping to {aqm}: overflow drops at the hard limit were "
                             f"{100 * unmet['overflow_share']:.1f} % of the drops and marks there; the answer is the smallest "
                             f"hard limit meeting the goals alone")
                goals = replace(goals, max_overflow_share=None)
                lower = _lower_goals(goals)
            elif grown > top_i:
                notes.append(f"the hard limit's range grew from {top_i:,} to {grown:,} packets: below that the "
                             f"overflow drops at the top were more than {100 * MAX_OVERFLOW_SHARE:g} % of the drops")
                top_i = grown
        model_pts = sorted({_whole(b) for b in models.values() if floor <= b <= top_i})
        say(f"verifying on the simulator: {len(model_pts)} model sizes, then a bisection "
            f"({run.duration_s:.3g} s simulated per run, {len(seeds)} seeds)")
        lo0, hi = srch.first_meeting([b for b in model_pts if b < top_i], lower)
        status = "verified"
        if hi is None:
            lo0, hi = srch.first_meeting([top_i], lower)
        if hi is None:
            # utilization or loss out of reach in the range: retarget utilization to θ of what is reachable
            r_top = srch.result(top_i, lower)
            misses = [g for g in r_top.goals if r_top.goals[g]["verdict"] != "meets"]
            top_misses = list(misses)
            u_top = r_top.mean("utilization")
            if "utilization" in misses:
                infeasible.append(f"utilization ≥ {goals.utilization:.4g} is out of reach: {u_top:.4f} at "
                                  f"{top_i:,} packets ({top_i / bdp:.2g} BDP), the largest size tried")
            if "loss" in misses:
                infeasible.append(f"loss ≤ {goals.max_loss:g} is out of reach: {r_top.mean('loss_rate'):.3g} at "
                                  f"{top_i:,} packets, the largest size tried (loss is set by the windows, not "
                                  f"the buffer)")
            if "fct" in misses:
                infeasible.append(f"short-flow completion ≤ {goals.max_fct_s:g} s is out of reach: "
                                  f"{r_top.mean('fct_mean_s'):.3g} s at {top_i:,} packets")
            # θ of what the largest buffer reaches, less its own noise (so the top itself meets)
            u_best = (goals.utilization * (u_top - 2 * r_top.goals["utilization"]["sd"] / math.sqrt(len(r_top.runs)))
                      if "utilization" in misses else goals.utilization)
            best_goals = Goals(u_best,
                               None if "loss" in misses else goals.max_loss, None,
                               None if "fct" in misses else goals.max_fct_s,
                               max_overflow_share=None if "overflow_share" in misses else goals.max_overflow_share)
            meeting = [b for b in srch.raw if srch.result(b, best_goals).verdict == "meets"] or [top_i]
            lower = best_goals
            status = "infeasible"
            notes.append(f"searched instead for the smallest buffer reaching "
                         f"{best_goals.utilization:.4g} utilization (the goal's fraction {goals.utilization:.4g} "
                         f"of the {u_top:.4f} the largest buffer gives)" if "utilization" in misses else
                         "searched instead for the smallest buffer meeting the other goals")
            hi = min(meeting)
        failing = [b for b in srch.raw if b < hi and srch.result(b, lower).verdict != "meets"]
        lo = max(failing) if failing else None
        lo, hi = srch.bisect(lo, hi, lower, floor=floor)
        if lo is None and status == "verified":
            status = "lower-bound"
        need = hi
        # the delay limit: a hard cap
        final = need
        cap_i = None if cap_delay is None else max(1, int(math.floor(cap_delay + 1e-9)))
        if cap_i is not None and need > cap_i and cap_i > (lo or 0) \
                and srch.evaluate([cap_i], lower)[cap_i].verdict == "meets":
            need = final = cap_i      # the bisection stepped over C·λ, which meets the goals itself
        if cap_i is not None and need > cap_i:
            r_cap = srch.evaluate([cap_i], lower)[cap_i]
            infeasible.append(
                f"the delay goal ≤ {goals.max_delay_s * 1e3:.4g} ms allows at most {cap_i:,} packets (C·λ), "
                f"but the other goals need {need:,}: at {cap_i:,} packets the utilization is "
                f"{r_cap.mean('utilization'):.4f}, the loss {r_cap.mean('loss_rate'):.3g}")
            best = {"buffer_packets": cap_i, "why": "the delay limit C·λ", **_size_summary(srch.result(cap_i, goals))}
            status = "infeasible"
            final = cap_i
        elif status == "infeasible":
            best = {"buffer_packets": need, "why": "the smallest size meeting the retargeted goals",
                    **_size_summary(srch.result(need, goals))}
        if goals.max_delay_p99_s is not None and status != "infeasible":
            r_fin = srch.result(final, goals)
            d99 = r_fin.goals["delay_p99"]
            if not d99["mean_ok"]:
                infeasible.append(
                    f"the p99 queueing delay ≤ {goals.max_delay_p99_s * 1e3:.4g} ms is missed at {final:,} packets, "
                    f"the smallest size meeting the other goals: {d99['mean'] * 1e3:.4g} ms there (a smaller "
                    f"buffer queues less but misses {', '.join(g for g in ('utilization', 'loss', 'fct') if g in r_fin.goals)})")
                best = {"buffer_packets": final, "why": "the smallest size meeting the other goals",
                        **_size_summary(r_fin)}
                status = "infeasible"
        # half of the answer, for the record (it must miss a goal unless the answer is the lower bound).
        # Where it meets, the answer was not the smallest size shown to meet: the bisection took the
        # sizes between for misses although they were only unclear (their intervals straddle a goal,
        # as on a curve flat near its goal), so the search goes on below the half.
        while True:
            half = max(final // 2, floor)
            implied = [b for b in srch.raw if half <= b < final and srch.result(b, lower).misses()]
            if half != final and not implied:
                srch.evaluate([half], lower)
            if not (status == "verified" and final == need and half != final and not implied
                    and srch.result(half, lower).verdict == "meets"):
                break
            notes.append(f"{half:,} packets, half of {final:,}, met the goals too (the sizes between were "
                         f"unclear, not shown to miss), so the search went on below it")
            say(f"{half:,} packets, half of the {final:,} found, met the goals too: searching below it")
            # the time-left guide: a bisection from the range's floor, about four sizes more
            srch.expected_runs = max(srch.expected_runs, runner.runs + runner.cache.hits) \
                + int(math.ceil(4 * RUNS_PER_SIZE * len(srch.seeds) / 3))
            below = [b for b in srch.raw if b < half and srch.result(b, lower).verdict != "meets"]
            lo, hi = srch.bisect(max(below) if below else None, half, lower, floor=floor)
            if lo is None:
                status = "lower-bound"
            need = final = hi
        all_sizes = {b: srch.result(b, goals) for b in srch.raw}
        need_seeds = _per_seed_need({b: srch.result(b, lower) for b in srch.raw}, lower,
                                    sorted({s for b in srch.raw for s in srch.raw[b]}))
        ver = Verified(status, None if status == "infeasible" else final, goals, "", run=run,
                       traffic=srch._scenario(final, seeds[0]),
                       notes=notes, infeasible=infeasible, best=best, sizes=all_sizes,
                       search_range=(1, top_i),
                       seeds=tuple(seeds), capacity_pps=inp.capacity_pps, packet_bytes=inp.packet_bytes)
        if len(need_seeds) >= 2:
            ver.need_mean = sum(need_seeds) / len(need_seeds)
            ver.need_ci95 = _ci95(need_seeds)
        ver.at_size = _size_summary(all_sizes[final])
        if half != final and half in all_sizes:
            ver.at_half = _size_summary(all_sizes[half])
        elif half != final:
            b = min(implied)
            ver.at_half = {"buffer_packets": half, "not_run": True, "misses": srch.result(b, goals).misses(),
                           "implied_by": _size_summary(all_sizes[b])}
        ver.simulated = simulated_text(ver.traffic)
        from bufsize.experiments.outliers import outlier_runs

        for b in sorted(all_sizes):
            for o in outlier_runs(all_sizes[b].runs):
                ver.notes.append(f"an outlier run at {b:,} packets, {o['text']}: averaged in, not dropped; "
                                 f"rerun it with `bufsize simulate` and --seed {o['seed']}")
        ver.aqm = aqm
        if aqm is not None:
            ver.aqm_dropping = _dropping_at(srch, all_sizes, final, goals)
        acted = [int(r.get("aqm_drops") or 0) + int(r.get("marks") or 0) for r in all_sizes[final].runs
                 if r.get("aqm_drops") is not None]
        overflowed = any(int(r.get("overflow_drops") or 0) for r in all_sizes[final].runs)
        if aqm is not None and acted and not any(acted) and not overflowed:
            ver.notes.append(f"at {final:,} packets no packet was dropped or marked in any run: the traffic never "
                             f"filled the queue, so neither {aqm} nor the hard limit had work to do")
        elif aqm is not None and acted and not any(acted):
            if aqm == "fq_codel":   # still fair queueing, with its overflow drop from the longest flow queue
                ver.aqm_idle = (f"at {final:,} packets fq_codel's CoDel neither dropped nor marked a packet in any "
                                f"run: the hard limit alone (its drop from the longest flow queue) held the queue, "
                                f"below CoDel's operating point, so the answer is fair queueing without CoDel; "
                                f"CoDel acts only behind a larger hard limit")
            else:
                ver.aqm_idle = (f"at {final:,} packets {aqm} neither dropped nor marked a packet in any run: the "
                                f"hard limit alone held the queue (below the discipline's operating point), so the "
                                f"answer behaves as a drop-tail FIFO of that size; {aqm} acts only behind a larger "
                                f"hard limit")
        ver.aqm_settings = settings
        ver.settings_search = settings_search
        if aqm == "ecn_threshold":
            ver.senders = senders_text(ver.traffic)
            ver.dctcp_rule = dctcp_rule_packets(inp)
        if buffer is not None:
            ver.at_buffer = _judge_buffer(inp, buffer, buffer_text, srch, run, goals, lower, max_measure_s)
        if aqm is None and beside and status != "infeasible":
            # what an AQM would give on the same traffic, beside the drop-tail answer (its runs keep the
            # full length and CUBIC's epoch K as the cycle: CoDel's queue settles more slowly than the
            # drop-tail cycle, see beside_run_length; where CoDel cannot act, the search's runs)
            b_srch = _beside_search(inp, run, srch.stop, top_i, max_measure_s, runner, say, seeds, lower)
            ver.aqm_beside = {"discipline": BESIDE_AQM, "settings": AQM_SETTINGS[BESIDE_AQM],
                              **_size_summary(b_srch.result(BESIDE_LIMIT, _measured_delay_goals(goals)))}
        if aqm is None:
            ver.verdicts = _verdicts(models, all_sizes, final, status, goals, inp.capacity_pps, top_misses)
        else:   # the models size drop-tail FIFOs: a discipline's hard limit is not their size
            ver.notes.append(f"the models size drop-tail FIFOs; their sizes are not judged against {aqm}'s hard limit")
        if srch.warm_until is not None and srch.warm_from is not None:
            ver.notes.append(f"each seed's runs shared their first {srch.warm_until:.3g} s (simulated once, behind "
                             f"{srch.warm_from:,} packets, BDP/√n); every size then ran "
                             f"{run.warmup_s - srch.warm_until:.3g} s behind its own buffer before it was measured "
                             f"(the scenario's warm_buffer: `bufsize simulate` of it runs the same traffic, over the "
                             f"full window where a run stopped once settled)")
        ver.statement = _statement(ver, inp, lo)
        if run.too_short:
            ver.notes.append("runs too short to judge: " + run.why)
        ver.runs = runner.runs
        ver.cached_runs = runner.cache.hits
        ver.cpu_seconds = runner.cpu_seconds
        ver.simulated_seconds = runner.simulated_s
        ver.settled_runs = runner.settled_runs
        ver.wall_seconds = time.perf_counter() - t0
        return ver
    except KeyboardInterrupt:
        raise KeyboardInterrupt(interrupted_text(srch.decided, runner)) from None
    finally:
        stack.close()
        if own:
            runner.close()


def interrupted_text(decided: Sequence[SizeLine], runner: Runner) -> str:
    """What an interrupted verification had: the sizes decided (each with its verdict) and where its
    finished runs are kept, so that the same verification again resumes from them."""
    done = ", ".join(f"{ln.size} {ln.unit} {ln.verdict}" for ln in decided)
    where = (f"its {runner.runs} finished runs are kept in the run cache ({runner.cache.dir}): the same "
             f"verification again resumes from them" if runner.cache.enabled else
             "the run cache is off (BUFSIZE_CACHE=off): its runs are not kept")
    return (f"verification interrupted after deciding {len(decided)} size{'s' if len(decided) != 1 else ''}"
            + (f" ({done})" if done else "") + f"; {where}")


def _judge_buffer(inp, buffer: float, text: str | None, srch: "_Search", run: RunLength, goals: Goals,
                  lower: Goals, max_measure_s: float) -> dict[str, Any]:
    """The buffer the user has, simulated over the same seeds (its own run length when it is deeper
    than the search's sizes: a deep buffer takes longer to fill) and judged against every goal."""
    b = _whole(buffer)
    own = run_length(inp, b, max_measure_s=max_measure_s)
    if b not in srch.raw and own.duration_s > run.duration_s * (1 + 1e-9):
        s = _Search(inp, own, srch.runner, srch.say, seeds=srch.seeds, extra=srch.extra, aqm=srch.aqm,
                    stop=None if srch.stop is None else stop_rule(inp, own, goals))
        s.evaluate([b], lower)
        r = s.result(b, goals)
        used = own
    else:
        srch.evaluate([b], lower)
        r = srch.result(b, goals)
        used = run
    out = _size_summary(r)
    out.update(given=text if text is not None else f"{b} packets", buffer_bytes=b * inp.packet_bytes,
               full_delay_s=b / inp.capacity_pps, run=used.to_dict(), verdict=r.verdict)
    return out


def _size_summary(r: SizeResult) -> dict[str, Any]:
    d = r.to_dict()
    d["misses"] = r.misses()
    return d


#: The least shared warm-up worth a holder process per seed, in bottleneck packets (about a third
#: of a CPU second of the engine at 10 000 flows); below it each run warms up on its own.
MIN_SHARED_PACKETS = 1e6
#: Fewest long flows with which a search shares its warm-ups: the settings measured faithful were
#: 10 000 and 100 000 flows (bench/recommend_warmstart.md); fewer flows keep their start's phase
#: longer (0.2 point off with 30 flows).
MIN_SHARED_FLOWS = 10_000


def shared_warmup_buffer(inp, top: int) -> int:
    """The buffer behind which a seed's shared warm-up runs: BDP/√n (004's size for many flows; within
    a factor of 40 of the answers measured on the links that share, bench/recommend_warmstart.md),
    within the search's range. Behind the first size the search tries instead (a model's, as large as
    the BDP at 10 000 flows) the shortest runs read utilization 0.04 point low at the answer: the
    windows grown behind a BDP-sized buffer had not all come down within the resettle time."""
    n = max(1, int(inp.flows or 1))
    return min(max(1, _whole(inp.bdp_packets / math.sqrt(n))), int(top))


def shared_warmup_s(inp, run: RunLength, top: float) -> float | None:
    """How much of ``run``'s warm-up the runs of one seed share (behind :func:`shared_warmup_buffer`):
    all but the last :func:`bufsize.recommendation.runlength.resettle_s`, which each run spends behind
    its own size before it is measured. None (each run warms up behind its own size) where that
    shares fewer than :data:`MIN_SHARED_PACKETS` packets, with fewer than :data:`MIN_SHARED_FLOWS`
    long flows (the settings where it was shown faithful), and where BBR is in the mix: there runs
    continued from a shared warm-up measured 0.3–0.5 point more utilization than runs warmed up at
    their own size (1 Gb/s, 200 flows, CUBIC/BBR 70/30: +0.0034 ± 0.0028 at 188 packets over six
    seeds, bench/recommend_warmstart.md), which would make the answer too small."""
    from bufsize.recommendation.runlength import resettle_s

    if _has_bbr(inp) or int(inp.flows or 0) < MIN_SHARED_FLOWS:
        return None
    until = run.warmup_s - resettle_s(inp, top)
    if until <= 0 or until * inp.capacity_pps < MIN_SHARED_PACKETS:
        return None
    return round(until, 6)


def _holders_fit(inp, run: RunLength, top: int, holders: int, workers: int) -> bool:
    """Whether a held warm-up per seed (``holders``, each one run's state) besides the runs in flight
    (``workers``, each a copy that may come to write all of it) fits half the memory available now
    (bufsize.cost's estimate of a run's peak); a search that does not share its warm-ups needs only
    the runs in flight."""
    try:
        from bufsize import cost as C
    except ImportError:   # pragma: no cover - the estimator is part of the package
        return False
    est = C.estimate(build_scenario(inp, top, seed=1, warmup_s=run.warmup_s, duration_s=run.duration_s))
    have, _ = C.available_memory_bytes()
    return (holders + workers) * est.memory_bytes <= 0.5 * have


def beside_codel_idle(inp) -> bool:
    """Whether :data:`BESIDE_AQM`'s CoDel cannot act on this link: its hard limit
    (:data:`BESIDE_LIMIT`) drains within CoDel's target, so no packet waits longer than the target
    and the line is a fair-queued drop-tail queue (100 Gb/s: 10 240 packets of 1500 B drain in 1.2 ms,
    under the 5-ms target; 10 Gb/s: 12.3 ms, over). Approximate: a deficit round robin can hold a
    packet somewhat longer than the whole backlog's drain time while newly active queues go first,
    so the runs check it (:func:`_beside_search`)."""
    from bufsize import units

    target = units.parse_time(AQM_SETTINGS[BESIDE_AQM]["target"])
    return BESIDE_LIMIT / float(inp.capacity_pps) <= target


def _beside_search(inp, run: RunLength, stop: Any, top_i: int, max_measure_s: float, runner: Any, say: Any,
                   seeds: Sequence[int], goals: Goals) -> "_Search":
    """The FQ-CoDel line's runs, evaluated: full length with CUBIC's epoch as the cycle
    (:func:`beside_run_length`), or, where CoDel cannot act (:func:`beside_codel_idle`), as the
    search's runs (its run length and stop rule: a fair-queued drop-tail queue settles as the FIFO
    does). If CoDel dropped or marked a packet in such a run after all, the line runs again at the
    full length."""
    if stop is not None and beside_codel_idle(inp):
        b_srch = _Search(inp, run, runner, say, seeds=seeds, extra=(), aqm=BESIDE_AQM, stop=stop)
        b_srch.evaluate([BESIDE_LIMIT], goals)
        if not any(int(r.get("aqm_drops") or 0) + int(r.get("marks") or 0) for r in b_srch.raw[BESIDE_LIMIT].values()):
            return b_srch
    b_srch = _Search(inp, beside_run_length(inp, top_i, max_measure_s), runner, say, seeds=seeds, extra=(),
                     aqm=BESIDE_AQM)
    b_srch.evaluate([BESIDE_LIMIT], goals)
    return b_srch


def beside_run_length(inp, top: float, max_measure_s: float = MAX_MEASURE_S) -> RunLength:
    """The run length of the FQ-CoDel line beside a drop-tail answer: the full length, with CUBIC's
    epoch K as its cycle even where the Reno-friendly growth brings the window back sooner (the search's
    cycle). CoDel's queue settles more slowly than the drop-tail cycle: on the example port (1 Gb/s,
    100 CUBIC flows, 10-50 ms, seeds 1-2) its mean delay reads 8-13 ms over the window a settled run
    measures after the 4.5-s warm-up, 5.1-6.7 ms over the full 10.4 s after it, 3.5-4.9 ms over 13.5 s
    after a 5.5-s warm-up (this length) and 3.4 ms from a 10-s warm-up on. Approximate: a warm-up
    from the discipline's own settling is not built."""
    return run_length(inp, top, max_measure_s=max_measure_s, reno_friendly_cycle=False)


def _verdicts(models: Mapping[str, float], sizes: Mapping[int, SizeResult], answer: int, status: str,
              goals: Goals, capacity_pps: float, top_misses: Sequence[str]) -> dict[str, dict[str, Any]]:
    """safe / unsafe / unclear / wasteful for each model's size (module doc).

    A size below the verified answer is never "safe" unless it was simulated and its runs showed
    every goal (the search calls the answer the smallest size shown to meet them, so a smaller
    size it did not show is "unclear" at best, "unsafe" where its runs, or a larger size's, missed)."""
    out: dict[str, dict[str, Any]] = {}
    found = status in ("verified", "lower-bound")
    for mid, b in models.items():
        bi = _whole(b)
        if bi in sizes:
            r = sizes[bi]
            miss = r.misses()
            d = {"simulated": True, "utilization": r.mean("utilization"), "loss_rate": r.mean("loss_rate"),
                 "borderline": r.verdict == "unclear"}
            shown_here = r.verdict == "meets"
        else:
            # not simulated: judged by monotonicity (more buffer: more utilization, less loss) from a
            # smaller size whose runs met the goals, or a larger one whose runs missed
            shown_here = False
            miss = []
            if goals.max_delay_s is not None and bi > goals.max_delay_s * capacity_pps + 1e-9:
                miss.append("delay")
            if status == "infeasible":
                miss += [g for g in top_misses if g not in miss]
            caps = ("delay", "delay_p99")    # goals a larger buffer makes harder, not easier
            above_missing = [x for x in sorted(sizes) if x >= bi and [g for g in sizes[x].misses() if g not in caps]]
            below = [x for x in sorted(sizes) if x <= bi and not [g for g in sizes[x].misses() if g not in caps]]
            if any(x <= bi and "delay_p99" in sizes[x].misses() for x in sizes) and "delay_p99" not in miss:
                miss.append("delay_p99")     # a smaller size already queues too long
            if above_missing and not below:
                x = above_missing[0]
                miss += [g for g in sizes[x].misses() if g not in caps and g not in miss]
                note = f"not simulated: smaller than {x:,} packets, whose runs missed {', '.join(sizes[x].misses())}"
            elif below:
                note = f"not simulated: larger than {below[-1]:,} packets, whose runs met the goals"
            else:
                note = "not simulated"
            d = {"simulated": False, "note": note}
        if miss:
            v = "unsafe"
        elif found and bi < answer and not shown_here:
            v = "unclear"
            d["note"] = (f"below {answer:,} packets, the smallest size shown to meet the goals"
                         + ("" if d["simulated"] else "; not simulated"))
        elif bi >= 2 * max(answer, 1):
            v = "wasteful"
        else:
            v = "safe"
        out[mid] = {"verdict": v, "buffer_packets": bi, "misses": miss, **d}
    return out


def goal_line(d: Mapping[str, Any] | None) -> str:
    if not d:
        return ""
    parts = [f"utilization {d['utilization']:.4f} ± {d['utilization_ci95']:.4f}",
             f"loss {d['loss_rate'] * 100:.3g} ± {d['loss_rate_ci95'] * 100:.2g} %",
             f"queueing delay mean {d['queue_delay_mean_s'] * 1e3:.3g} ms (p99 {d['queue_delay_p99_s'] * 1e3:.3g} ms)"]
    if d.get("fct_mean_s") is not None and math.isfinite(d["fct_mean_s"]):
        parts.append(f"short-flow completion {d['fct_mean_s'] * 1e3:.4g} ms")
    return ", ".join(p.replace("± nan", "").replace(" ± nan %", " %") for p in parts)


def _statement(ver: Verified, inp, lo: int | None) -> str:
    from bufsize import units

    goals = ver.goals
    g = [] if goals.utilization is None else [f"utilization ≥ {goals.utilization:.4g}"]
    if goals.max_loss is not None:
        g.append(f"loss ≤ {goals.max_loss:g}")
    if goals.max_delay_s is not None:
        g.append(f"queueing ≤ {units.format_time(goals.max_delay_s)}")
    if goals.max_fct_s is not None:
        g.append(f"short-flow completion ≤ {units.format_time(goals.max_fct_s)}")
    if goals.max_delay_p99_s is not None:
        g.append(f"p99 queueing delay ≤ {units.format_time(goals.max_delay_p99_s)}")
    if goals.max_overflow_share is not None:
        g.append(f"overflow drops ≤ {100 * goals.max_overflow_share:g} % of the drops and marks")
    gtxt = ", ".join(g)
    if ver.status == "infeasible":
        b = (ver.best or {}).get("buffer_packets")
        return (f"no buffer meets {gtxt} on this traffic: " + "; ".join(ver.infeasible)
                + (f". Best buffer: {b:,} packets ({goal_line(ver.best)})" if b is not None else ""))
    s = (f"{ver.buffer_packets:,} packets ({units.format_size(ver.buffer_packets * inp.packet_bytes)}, "
         f"{units.format_time(ver.buffer_packets / inp.capacity_pps)} when full) is the smallest size shown to meet "
         f"{gtxt}")
    if math.isfinite(ver.need_mean):
        s += (f"; the seeds' own crossing points average {ver.need_mean:,.1f} packets"
              + (f" ± {ver.need_ci95:,.1f} (95 %)" if math.isfinite(ver.need_ci95) else ""))
    if ver.status == "lower-bound":
        s += f"; the goals already hold at the search's lower bound, {ver.buffer_packets} packets"
    elif lo is not None:
        s += f"; {lo:,} packets did not meet them"
    return s


# --------------------------------------------------------------------------- cost

#: Runs per size evaluated, on average, with two seeds first: measured 2.82 over the 34 sizes the
#: six links of bench/recommend_speed.md evaluated (2 where two seeds decide, 3 or 6 where not)
RUNS_PER_SIZE = 2.85


def typical_runs(n_models: int, n_seeds: int, bbr: bool = False) -> int:
    """The runs a search typically makes: a binary search over the models' sizes and about three
    bisection steps, at :data:`RUNS_PER_SIZE` each (``n_seeds`` caps it: fewer seeds, fewer runs),
    :data:`BBR_SEARCH_RUNS` times that with BBR in the mix (``bbr``); the FQ-CoDel line beside a
    drop-tail answer is counted by the caller."""
    per = min(RUNS_PER_SIZE, float(n_seeds) + 0.85) if n_seeds < 3 else RUNS_PER_SIZE * n_seeds / 3
    return int(math.ceil((math.ceil(math.log2(n_models + 1)) + 3) * per * (BBR_SEARCH_RUNS if bbr else 1.0)))


def check_cost(rec, *, workers: int | None = None, scheduler: str | None = None,
               max_measure_s: float = MAX_MEASURE_S, extra_buffer: float | None = None,
               aqm: str | None = None) -> None:
    """Refuse, in one line with the estimate, a verification that cannot fit this machine's memory
    (workers × a run's peak) or would take longer than :data:`bufsize.cost.MAX_PLAN_S`; the
    interactive budget of ``verify="auto"`` is a separate, smaller limit (:func:`estimate_cost`)."""
    try:
        from bufsize import cost as C
    except ImportError:   # pragma: no cover - the estimator is part of the package
        return
    inp = rec.input
    models = _model_sizes(rec)
    top = max([2.0 * inp.bdp_packets] + [b for b in models.values() if b <= 8 * inp.bdp_packets]
              + ([extra_buffer] if extra_buffer is not None else []))
    run = run_length(inp, top, max_measure_s=max_measure_s)
    est = C.estimate(build_scenario(inp, int(math.ceil(top)), seed=1, warmup_s=run.warmup_s,
                                    duration_s=run.duration_s))
    wall, cpu = C.pooled_seconds(est)
    w = int(workers) if workers else (os.cpu_count() or 1)
    runs = typical_runs(len({_whole(b) for b in models.values()}), len(SEEDS), _has_bbr(inp)) \
        + (len(SEEDS) if extra_buffer is not None else 0) + settings_runs(aqm, len(SEEDS)) \
        + growth_runs(aqm, len(SEEDS))
    local = scheduler is None
    plan = C.plan_cost(runs, run_wall_seconds=wall, run_cpu_seconds=cpu, run_memory_bytes=est.memory_bytes,
                       parallelism=min(w, len(SEEDS)) if local else w, local_workers=min(w, len(SEEDS)) if local else 0,
                       remote=not local, detail="a typical search")
    C.check_plan(plan, what="this verification", time_flag="--workers or --scheduler",
                 memory_flag="--workers 1")


#: The share of a search's runs the cost estimate expects to stop at the shortest window once settled
#: (the rest run the full length): measured 0.27-0.89 over the README's and the big links
#: (bench/recommend_warmstart.md, "The cost estimate").
SETTLED_SHARE = 0.5


#: A search with BBR in the mix makes this many times the typical runs: utilization is nearly flat in
#: the buffer and the seeds spread (BBR's PROBE_RTT timing), so more sizes stay unclear after six seeds.
#: Measured 2026-11-29 (bench/recommend_speed.md): 50, 28, 58 and 29 runs on its four BBR links against
#: 18 typical (2.8, 1.6, 3.2, 1.6: 2.3 on average).
BBR_SEARCH_RUNS = 2.3


def _has_bbr(inp) -> bool:
    """Whether BBR is in the described mix (or is the profile's control where no mix is given)."""
    return bool(simulated_mix(inp).get("bbr"))


def estimate_cost(rec, *, workers: int | None = None, max_measure_s: float = MAX_MEASURE_S,
                  aqm: str | None = None) -> dict[str, Any]:
    """What verifying ``rec`` would cost: per run (bufsize.cost's estimate) × the runs a search
    typically makes, divided over the workers; with ``aqm`` the runs that find its settings
    (:func:`settings_runs`) instead of the FQ-CoDel line beside a drop-tail answer. A search run is
    expected to measure :data:`SETTLED_SHARE` of the time only its stop rule's shortest window, and
    where the seeds share their warm-up (:func:`shared_warmup_s`) to simulate only the rest of it,
    the shared part once per seed; the FQ-CoDel line's runs are full-length except where CoDel cannot
    act (:func:`beside_codel_idle`: as the search's). Each run is costed as one of many in a running
    worker (:func:`bufsize.cost.pooled_seconds`), the workers' start-up once. ``None`` fields when the
    estimator is missing."""
    inp = rec.input
    models = _model_sizes(rec)
    top = max([2.0 * inp.bdp_packets] + [b for b in models.values() if b <= 8 * inp.bdp_packets])
    top_i = max(2, int(math.ceil(top)))
    run = run_length(inp, top, max_measure_s=max_measure_s)
    n_search = typical_runs(len({_whole(b) for b in models.values()}), len(SEEDS), _has_bbr(inp))
    n_more = FIRST_SEEDS if aqm is None else settings_runs(aqm, len(SEEDS))   # the FQ-CoDel line, or the settings
    runs = n_search + n_more
    w = int(workers) if workers else (os.cpu_count() or 1)
    out: dict[str, Any] = {"runs": runs, "workers": w, "run": run.to_dict(), "per_run_wall_s": None,
                           "wall_s": None, "memory_bytes": None, "describe": None}
    try:
        from bufsize.cost import estimate
    except ImportError:
        out["describe"] = "no cost estimate available (bufsize.cost missing)"
        return out
    stop = stop_rule(inp, run, goals_of(inp))
    measure = run.measure_s if stop is None else \
        SETTLED_SHARE * stop.min_measure_s + (1 - SETTLED_SHARE) * run.measure_s
    shared = shared_warmup_s(inp, run, top_i) if aqm is None else None
    warm = run.warmup_s - (shared or 0.0)

    def cost(warmup_s: float, duration_s: float) -> Any:
        return estimate(build_scenario(inp, top_i, seed=1, warmup_s=warmup_s, duration_s=duration_s))

    parts = [(n_search, cost(warm, warm + measure))]
    if aqm is None and stop is not None and beside_codel_idle(inp):
        parts.append((n_more, cost(run.warmup_s, run.warmup_s + measure)))   # as the search's runs
    elif aqm is None:
        b_run = beside_run_length(inp, top_i, max_measure_s)
        parts.append((n_more, cost(b_run.warmup_s, b_run.duration_s)))
    else:
        parts.append((n_more, cost(run.warmup_s, run.duration_s)))
    if shared is not None:
        parts.append((FIRST_SEEDS, cost(0.0, shared)))   # each seed's shared part, once
    # The budget is judged on an idle machine (the estimate's CPU time), so the decision to verify does
    # not flip with other users' load; the wall time at the current load is reported beside it.

    # Each run as one of many in a running worker (bufsize.cost.pooled_seconds: without the fixed
    # start-up of imports and first results, which each worker pays once, added once below)
    from bufsize.cost import START_SECONDS, pooled_seconds

    def cpu_of(est: Any) -> float:
        return pooled_seconds(est)[1]

    def wall_of(est: Any) -> float:
        return pooled_seconds(est)[0]

    load = float(getattr(parts[0][1], "load_factor", 1.0) or 1.0)
    # rounds of parallel runs, part by part
    out["wall_s"] = START_SECONDS + sum(math.ceil(n / w) * cpu_of(e) for n, e in parts)
    out["wall_now_s"] = START_SECONDS * load + sum(math.ceil(n / w) * wall_of(e) for n, e in parts)
    per_cpu = sum(n * cpu_of(e) for n, e in parts[:2]) / max(1, runs)
    out["per_run_wall_s"] = sum(n * wall_of(e) for n, e in parts[:2]) / max(1, runs)
    out["memory_bytes"] = max(float(e.memory_bytes) for _, e in parts)
    from bufsize.cost import format_bytes, format_seconds

    out["describe"] = (f"{runs} runs of ≈ {per_cpu:.2g} s each on an idle machine"
                       + (f" after each seed's shared warm-up of {shared:.3g} s" if shared is not None else "")
                       + f", ≈ {format_bytes(out['memory_bytes'])} peak memory each, "
                       f"≈ {format_seconds(out['wall_now_s'])} in all on this machine at the current load")
    return out
