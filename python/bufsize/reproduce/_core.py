"""The pieces every figure module shares: its declaration, its checks and its result.

A figure module (``fig_004_07.py``, ``table_000_2.py``, ...) defines

* ``SPEC``: a :class:`FigureSpec` (id, the paper's id, title, kind, the FIGURES.md "Needs" tags,
  the cost at paper scale and the estimated cost of a ``--quick`` run);
* optionally ``run(ctx) -> FigureOutput``: the experiment or model evaluation behind the figure,
  its data table, its picture and the paper's claims as :class:`Check` objects.

A module without ``run`` is registered but not reproducible; :func:`status` says why (an
illustration or a config table has no data; otherwise the capabilities it still lacks).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

#: Primary kinds, as in FIGURES.md §6.1.
KINDS = ("analytic", "simulation", "testbed", "real-network", "illustration", "config")

#: FIGURES.md §6.2 capability tags that the toolkit has today. A tag is listed only when the
#: engine, the models or this package provide it as the figures need it; comments say where a tag
#: is only partly there.
AVAILABLE = frozenset({
    # analytic models (python/bufsize/models)
    "M-000", "M-001", "M-002", "M-003", "M-004",
    # engine: queues, topology
    "SIM-Q", "SIM-QB", "SIM-QINF", "SIM-TOPO-DB", "SIM-ACC",
    # engine: TCP (CUBIC is RFC 9438 with beta 0.7 only: CUBIC'' of paper 003, not CUBIC')
    "TCP-RENO", "TCP-NRSACK", "TCP-PACED", "TCP-WMAX", "TCP-IW2",
    # engine: traffic (long-lived flows, finite transfers, per-flow RTTs and start times)
    "TRF-BULK", "TRF-SIZED", "TRF-RTT", "TRF-START",
    # engine: traffic sources (short_flows, users with input links, mice, udp, explicit links and
    # flows for multi-hop and reverse-path cross traffic)
    "TRF-CLOSED", "TRF-POISSON-FIXED", "TRF-MICE", "TRF-UDP-PARETO", "TRF-WINLIM",
    "SIM-TOPO-GAMMA", "SIM-TOPO-MH", "SIM-REV",
    # engine metrics; MET-SUMW and MET-SYNC are computed here from the per-flow cwnd traces;
    # MET-GOODPUT-TS only for SOBAS flows (sobas_series); MET-AFCT from SimResult.fct_by_size
    "MET-UTIL", "MET-LOSS", "MET-QDELAY", "MET-QHIST", "MET-CWND", "MET-SUMW", "MET-SYNC",
    "MET-FLOW", "MET-AFCT", "MET-GOODPUT-TS", "MET-UTIL-TS",
    # engine: SOBAS at a flow's receiver (flows[].sobas)
    "SOBAS-SIM",
    # engine: the congestion controls of 003 (BIC, Compound, CUBIC' with beta 0.8)
    "TCP-BIC", "TCP-CTCP", "TCP-CUBIC",
    # this package and bufsize.experiments: grids of runs, seeds, statistics, min-buffer search, fits,
    # coarse-to-fine search of a throughput-maximizing buffer (search_max_buffer)
    "EXP-SWEEP", "EXP-SEEDS", "EXP-STATS", "EXP-MINB", "EXP-FIT", "EXP-OPTB",
    # 001's path measurements (A, Te, B̃t, Ta, BTC) and MFT sweeps: _p001_cross.py, table_001_1.py
    "MET-PATH", "EXP-MFT",
    # real sockets: `bufsize transfer` (fixed buffers, SOBAS, --json per-interval log) across the
    # kernel testbed's router (htb + pfifo drop-tail) and delay element; needs root (_realpath.py)
    "RS-FIXED", "RS-SOBAS", "RS-LOG", "TB-ROUTER", "TB-DELAY",
})

#: What each missing tag means, for the "not yet reproducible" lines.
TAG_MEANING = {
    "TRF-CLOSED": "closed-loop users with Pareto sizes and think times",
    "TRF-POISSON-FIXED": "open-loop Poisson short flows",
    "TRF-MICE": "mice cross traffic",
    "TRF-UDP-PARETO": "Pareto UDP sources",
    "TRF-WINLIM": "window-limited cross traffic",
    "SIM-TOPO-GAMMA": "Nin input links -> one output (capacity ratio)",
    "SIM-TOPO-MH": "multi-hop path with cross traffic",
    "SIM-REV": "reverse-path cross traffic",
    "TCP-BIC": "BIC", "TCP-CTCP": "Compound TCP", "TCP-CUBIC": "CUBIC' (beta 0.8)",
    "MET-FLOW": "per-transfer records", "MET-AFCT": "flow completion times",
    "MET-UTIL-TS": "utilization time series", "MET-GOODPUT-TS": "per-second goodput of a flow",
    "MET-PATH": "path measurements (A, Te, Ta, BTC)",
    "EXP-MINB": "minimum-buffer search (experiments layer)", "EXP-FIT": "loss/delay form fits",
    "EXP-OPTB": "optimal-buffer search", "EXP-MFT": "maximum feasible throughput search",
    "SOBAS-SIM": "SOBAS in the simulator",
    "RS-FIXED": "real-socket transfer tool", "RS-SOBAS": "real-socket SOBAS", "RS-LOG": "real-socket logging",
    "TB-ROUTER": "kernel testbed router", "TB-DELAY": "kernel testbed delay", "TB-GEN": "testbed traffic",
    "TB-CAP": "testbed captures", "TB-CWND": "testbed cwnd sampling", "TB-LAT": "testbed latency",
}


@dataclass(frozen=True)
class FigureSpec:
    """The declaration of one figure or table of the five papers (one FIGURES.md entry)."""

    id: str                      # module name: fig_004_07, table_000_2, table_004_3_2
    paper_id: str                # FIGURES.md id: 004-Fig7, 000-TableII, 004-Tab§3.2
    title: str
    kind: str                    # one of KINDS (the primary kind of FIGURES.md §6.1)
    kind_detail: str             # FIGURES.md's kind column, e.g. "testbed + overlay"
    needs: tuple[str, ...]       # FIGURES.md §6.2 tags
    paper_cost: str              # FIGURES.md cost at paper scale
    quick_seconds: float | None = None  # estimated wall seconds of --quick on one core (None: cannot run)
    note: str = ""               # why it is not reproducible yet, or what to know

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"{self.id}: unknown kind {self.kind!r}")

    @property
    def paper(self) -> str:
        return self.paper_id[:3]

    @property
    def missing(self) -> tuple[str, ...]:
        return tuple(t for t in self.needs if t not in AVAILABLE)


def fmt_number(x: Any) -> Any:
    """Numbers as JSON-safe values: non-finite floats become None."""
    if x is None or isinstance(x, bool):
        return x
    if isinstance(x, (int,)):
        return x
    try:
        v = float(x)
    except (TypeError, ValueError):
        return x
    return v if math.isfinite(v) else None


#: What kind of evidence a check is (the report counts them separately):
#:
#: * ``formula``: the toolkit's model evaluated against the paper's printed number (or the paper's own
#:   formula); it shows the model is implemented as the paper states it, not that the claim holds on a
#:   network;
#: * ``measurement``: a simulated, kernel-testbed or real-socket measurement against the paper's claim;
#: * ``calibration``: a setting we tuned to hit the paper's stated operating point (shown, not counted);
#: * ``health``: a sanity check of our own runs (a bound a correct run cannot break, a run that must
#:   complete); shown, not counted as a reproduced claim.
CHECK_KINDS = ("formula", "measurement", "calibration", "health")
#: the kinds that count as the paper's claims in the report's headline
COUNTED_KINDS = ("formula", "measurement")
#: Why a counted check misses, machine-readable (``Check.cause``): our setting is not the paper's
#: ("setup", which one in the detail), the paper's own numbers disagree with each other ("paper": a
#: finding, reported apart and not counted as our miss), the check was revised from the paper's
#: words ("check", the sentence in the detail), the engine departs from the physics ("engine", the
#: test that shows it), or the run could not measure it ("not measured", why).
MISS_CAUSES = ("setup", "paper", "check", "engine", "not measured")


@dataclass
class Check:
    """One claim of the paper and our number: ``{"claim", "paper", "ours", "tolerance", "pass", "kind", "rule"}``.

    ``rule`` is the criterion as data, so that anyone (the report, the tests) can re-judge a check on
    another value: ``{"op": "range", "lo": x, "hi": y}`` (``None`` for an open side) judges a number,
    ``{"op": "flag"}`` a yes/no judged outside (``ours`` 1 or 0 or the number it was judged on). Every
    rule must be able to fail: :meth:`worst_case` gives a value it rejects. ``kind`` is one of
    :data:`CHECK_KINDS`; ``None`` until the runner fills in the item's default (formula for analytic
    items, measurement otherwise).
    """

    claim: str
    paper: Any
    ours: Any
    tolerance: str
    passed: bool
    kind: str | None = None
    rule: dict[str, Any] | None = None
    #: why the check misses (one of :data:`MISS_CAUSES`) and the evidence in words; None: not given
    cause: str | None = None
    cause_detail: str = ""
    #: the seeds behind ``ours`` and, per seed, the same statistic (:meth:`over_seeds`); None: one run
    seeds: tuple[int, ...] | None = None
    per_seed: tuple[float, ...] | None = None

    def __post_init__(self) -> None:
        if self.kind is not None and self.kind not in CHECK_KINDS:
            raise ValueError(f"unknown check kind {self.kind!r} (one of {', '.join(CHECK_KINDS)})")
        if self.cause is not None and self.cause not in MISS_CAUSES:
            raise ValueError(f"unknown miss cause {self.cause!r} (one of {', '.join(MISS_CAUSES)})")
        if self.rule is not None and self.rule.get("op") == "range":
            lo, hi = self.rule.get("lo"), self.rule.get("hi")
            if _open(lo, -1) and _open(hi, 1):
                raise ValueError(f"check {self.claim[:60]!r} accepts every number: it cannot fail")

    def judge(self, value: Any) -> bool:
        """Whether the check would pass with ``value`` in place of ours (same rule)."""
        return judge_rule(self.rule, value)

    def worst_case(self) -> Any:
        """A value the rule rejects (the test that every check can fail feeds it back)."""
        return worst_case(self.rule)

    def over_seeds(self, seeds: Iterable[int], values: Iterable[float]) -> "Check":
        """Record the seeds ``ours`` comes from and the same statistic for each seed alone, so that the
        report can give the check's interval over the seeds and say whether it is clear of the
        threshold (:func:`seed_interval`); returns the check."""
        seeds, values = tuple(int(x) for x in seeds), tuple(float(v) for v in values)
        if len(seeds) != len(values) or not seeds:
            raise ValueError(f"check {self.claim[:60]!r}: {len(seeds)} seeds for {len(values)} values")
        if len(set(seeds)) != len(seeds):
            raise ValueError(f"check {self.claim[:60]!r}: a seed is given twice")
        self.seeds, self.per_seed = seeds, values
        return self

    def to_dict(self) -> dict[str, Any]:
        rule = None if self.rule is None else {k: fmt_number(v) for k, v in self.rule.items()}
        out = {"claim": self.claim, "paper": fmt_number(self.paper), "ours": fmt_number(self.ours),
               "tolerance": self.tolerance, "pass": bool(self.passed), "kind": self.kind, "rule": rule}
        if self.cause is not None and not self.passed:
            out["cause"] = {"kind": self.cause, "detail": self.cause_detail}
        if self.seeds is not None and self.per_seed is not None:
            out["seeds"] = list(self.seeds)
            out["per_seed"] = [fmt_number(v) for v in self.per_seed]
            iv = seed_interval(out)
            if iv is not None:
                out["interval"] = [fmt_number(iv[0]), fmt_number(iv[1])]
        return out

    def because(self, cause: str, detail: str) -> "Check":
        """Give the reason this check misses (kept only if it does); returns the check."""
        if cause not in MISS_CAUSES:
            raise ValueError(f"unknown miss cause {cause!r} (one of {', '.join(MISS_CAUSES)})")
        if not detail.strip():
            raise ValueError("a miss cause needs its evidence in words")
        self.cause, self.cause_detail = cause, detail
        return self


#: the confidence of the interval over seeds that a check's verdict must be clear of
INTERVAL_CONFIDENCE = 0.95


def seed_interval(check: dict[str, Any]) -> tuple[float, float] | None:
    """The two-sided Student-t interval (:data:`INTERVAL_CONFIDENCE`) of the mean of a check's per-seed
    values (checks.json's ``per_seed``), or None with fewer than two finite values. With identical
    values it is that value (a deterministic statistic)."""
    vals = [float(v) for v in check.get("per_seed") or [] if v is not None and math.isfinite(float(v))]
    if len(vals) < 2:
        return None
    from scipy import stats

    k = len(vals)
    mean = sum(vals) / k
    sd = math.sqrt(sum((v - mean) ** 2 for v in vals) / (k - 1))
    half = float(stats.t.ppf(0.5 + INTERVAL_CONFIDENCE / 2, k - 1)) * sd / math.sqrt(k)
    return mean - half, mean + half


def margin(check: dict[str, Any]) -> float | None:
    """How far ``ours`` lies inside (positive) or outside (negative) a range rule: for a one-sided rule,
    relative to the threshold's magnitude (absolute for a threshold of 0); for a two-sided range, as a
    share of its half-width (1 at the centre, 0 on a bound). In [x, 1] and [0, x] with 0 < x < 1 the
    quantity is a fraction whose own limits 0 and 1 are not thresholds, so only x counts. None for
    flags, exact checks (a range of width 0), a missing number and rules without a finite bound."""
    rule = check.get("rule") or {}
    if rule.get("op") != "range":
        return None
    try:
        v = float(check["ours"])
    except (TypeError, ValueError, KeyError):
        return None
    if not math.isfinite(v):
        return None
    bounds = _claim_bounds(rule)
    if len(bounds) == 2:
        # a two-sided range ('about', 'within ±t'): the room left as a share of its half-width
        (lo, _), (hi, _) = bounds
        return None if hi <= lo else min(v - lo, hi - v) / ((hi - lo) / 2)
    if not bounds:
        return None
    b, sign = bounds[0]
    return sign * (v - b) / (abs(b) or 1.0)


def _claim_bounds(rule: dict[str, Any]) -> list[tuple[float, int]]:
    """The finite bounds of a range rule that are the claim's thresholds, as (bound, +1 for lo / -1 for hi).
    [x, 1] and [0, x] with 0 < x < 1 bound a fraction (a share, R², a utilization, a KS distance): 0 and 1
    are the quantity's own limits there, not the claim's, so only x is kept."""
    bounds = [(float(b), sign) for b, sign in ((rule.get("lo"), 1), (rule.get("hi"), -1)) if not _open(b, -sign)]
    if len(bounds) == 2 and 0 < bounds[0][0] < 1 and bounds[1][0] == 1:
        return bounds[:1]
    if len(bounds) == 2 and bounds[0][0] == 0 and 0 < bounds[1][0] < 1:
        return bounds[1:]
    return bounds


def clear_of_threshold(check: dict[str, Any]) -> bool | None:
    """Whether the check's whole interval over seeds lies on the side of its verdict: True (clear),
    False (the interval crosses the threshold), None (no interval: one run, or a flag judged
    outside)."""
    iv = seed_interval(check)
    rule = check.get("rule") or {}
    if iv is None or rule.get("op") != "range":
        return None
    # judged against the claim's thresholds only: an interval of an R² may reach past 1 (its t-interval is
    # symmetric) without that saying anything about the claim
    claim = {"op": "range", "lo": None, "hi": None}
    for b, sign in _claim_bounds(rule):
        claim["lo" if sign > 0 else "hi"] = b
    verdict = bool(check["pass"])
    return judge_rule(claim, iv[0]) == verdict and judge_rule(claim, iv[1]) == verdict


def _open(bound: Any, sign: int) -> bool:
    return bound is None or (isinstance(bound, float) and math.isinf(bound) and bound * sign > 0)


def judge_rule(rule: dict[str, Any] | None, value: Any) -> bool:
    """Re-judge a check's rule (as in checks.json) on ``value``."""
    if rule is None or rule.get("op") == "flag":
        return bool(value) if not isinstance(value, (int, float)) or isinstance(value, bool) else value == 1
    if rule["op"] != "range":
        raise ValueError(f"unknown rule {rule!r}")
    try:
        v = float(value)
    except (TypeError, ValueError):
        return False
    if not math.isfinite(v):
        return False
    lo, hi = rule.get("lo"), rule.get("hi")
    return (_open(lo, -1) or v >= lo) and (_open(hi, 1) or v <= hi)


def worst_case(rule: dict[str, Any] | None) -> Any:
    """A finite value outside the rule's range (or ``False`` for a flag)."""
    if rule is None or rule.get("op") == "flag":
        return False
    lo, hi = rule.get("lo"), rule.get("hi")
    if not _open(lo, -1):
        return float(lo) - 1.0 - abs(float(lo))
    if not _open(hi, 1):
        return float(hi) + 1.0 + abs(float(hi))
    raise ValueError(f"rule {rule!r} has no value that fails")


def _range_rule(lo: float, hi: float) -> dict[str, Any]:
    return {"op": "range", "lo": lo, "hi": hi}


def check_rel(claim: str, paper: float, ours: float, rel: float, *, why: str = "", kind: str | None = None) -> Check:
    """|ours - paper| <= rel·|paper| (two-sided: for 'close to', 'matches', 'about')."""
    ok = math.isfinite(ours) and abs(ours - paper) <= rel * abs(paper)
    return Check(claim, paper, ours, f"relative {rel:g}" + (f" ({why})" if why else ""), ok, kind,
                 _range_rule(paper - rel * abs(paper), paper + rel * abs(paper)))


def check_abs(claim: str, paper: float, ours: float, tol: float, *, unit: str = "", why: str = "",
              kind: str | None = None) -> Check:
    """|ours - paper| <= tol."""
    ok = math.isfinite(ours) and abs(ours - paper) <= tol
    return Check(claim, paper, ours, f"±{tol:g}{unit}" + (f" ({why})" if why else ""), ok, kind,
                 _range_rule(paper - tol, paper + tol))


def check_range(claim: str, paper: Any, ours: float, lo: float, hi: float, *, why: str = "",
                kind: str | None = None) -> Check:
    """lo <= ours <= hi (either bound, not both, may be +-inf: a one-sided claim)."""
    ok = math.isfinite(ours) and lo <= ours <= hi
    lo_s = "-inf" if lo == -math.inf else f"{lo:g}"
    hi_s = "inf" if hi == math.inf else f"{hi:g}"
    return Check(claim, paper, ours, f"in [{lo_s}, {hi_s}]" + (f" ({why})" if why else ""), ok, kind,
                 _range_rule(lo, hi))


def check_at_least(claim: str, paper: Any, ours: float, bound: float, *, why: str = "",
                   kind: str | None = None) -> Check:
    """ours >= bound: a sufficiency or lower-bound claim ('B is enough', 'at least', 'μ ≥ z·δ + BDP')."""
    ok = math.isfinite(ours) and ours >= bound
    return Check(claim, paper, ours, f"≥ {bound:g}" + (f" ({why})" if why else ""), ok, kind,
                 _range_rule(bound, math.inf))


def check_at_most(claim: str, paper: Any, ours: float, bound: float, *, why: str = "",
                  kind: str | None = None) -> Check:
    """ours <= bound: an upper-bound claim ('needs no more than', 'below')."""
    ok = math.isfinite(ours) and ours <= bound
    return Check(claim, paper, ours, f"≤ {bound:g}" + (f" ({why})" if why else ""), ok, kind,
                 _range_rule(-math.inf, bound))


def check_true(claim: str, ours: bool, tolerance: str, *, paper: Any = None, value: Any = None,
               kind: str | None = None) -> Check:
    """A qualitative claim (an ordering, a shape): paper = None (no number), ours = 1 or 0
    unless ``value`` gives the number the criterion was judged on."""
    return Check(claim, paper, (1 if ours else 0) if value is None else value, tolerance, bool(ours), kind,
                 {"op": "flag"})


def pool_seeds(seeds: Iterable[int], per_seed: list[list[Check]]) -> list[Check]:
    """One list of checks from the same checks made on each seed's runs alone (``per_seed[k]`` for
    ``seeds[k]``, the same claims in the same order): each measurement is judged on the mean of its
    seeds' values and keeps them (:meth:`Check.over_seeds`), so the report gives its interval; a
    formula check (the same on every seed) is the first seed's. Every measurement must have a range
    rule: a flag carries no number to average, so it has to be stated as a range first. A pooled
    check that misses keeps the cause of the first seed that missed."""
    seeds = tuple(int(s) for s in seeds)
    if len(seeds) != len(per_seed) or not seeds:
        raise ValueError(f"{len(seeds)} seeds for {len(per_seed)} lists of checks")
    if len({len(cs) for cs in per_seed}) != 1:
        raise ValueError("the seeds' lists of checks differ in length")
    out: list[Check] = []
    for same in zip(*per_seed):
        first = same[0]
        if any(c.claim != first.claim for c in same):
            raise ValueError(f"the seeds' checks differ: {first.claim[:60]!r}")
        if first.kind == "formula":
            out.append(first)
            continue
        if (first.rule or {}).get("op") != "range":
            raise ValueError(f"check {first.claim[:60]!r} is a flag: state it as a range to pool it over seeds")
        values = [float(c.ours) for c in same]
        mean = math.fsum(values) / len(values)
        pooled = Check(f"{first.claim} (mean over seeds {', '.join(str(s) for s in seeds)})", first.paper, mean,
                       first.tolerance, judge_rule(first.rule, mean), first.kind, dict(first.rule))
        missed = next((c for c in same if not c.passed and c.cause is not None), None)
        if missed is not None:
            pooled.cause, pooled.cause_detail = missed.cause, missed.cause_detail
        out.append(pooled.over_seeds(seeds, values))
    return out


def with_kind(checks: list[Check], kind: str) -> list[Check]:
    """Tag every check of a list (that has none yet) with ``kind``; returns the list."""
    if kind not in CHECK_KINDS:
        raise ValueError(f"unknown check kind {kind!r}")
    for c in checks:
        if c.kind is None:
            c.kind = kind
    return checks


def default_kind(spec: "FigureSpec") -> str:
    """The kind of an untagged check: formula for analytic, config and illustration items, measurement
    for simulation, testbed and real-network items."""
    return "formula" if spec.kind in ("analytic", "config", "illustration") else "measurement"


@dataclass
class FigureOutput:
    """What a figure's ``run`` returns; the runner writes it to DIR/ID/."""

    data: Any                                   # pandas DataFrame -> data.csv
    checks: list[Check]
    inputs: dict[str, Any]                      # model parameters, or scenarios and seeds
    figure: Any                                 # matplotlib Figure -> figure.png / figure.svg
    deviations: list[str] = field(default_factory=list)  # from the paper's setup, stated plainly
    notes: list[str] = field(default_factory=list)       # misses and their likely reasons, caveats
    extra_tables: dict[str, Any] = field(default_factory=dict)  # NAME -> DataFrame -> NAME.csv


@dataclass
class Context:
    """How a figure is run: the scale and where simulations execute."""

    mode: str = "quick"            # "quick" or "full"
    workers: int = 1
    scheduler: str | None = None   # Dask scheduler address
    progress: Callable[[str], None] | None = None
    client: Any = None             # a dask.distributed Client when --scheduler is given
    store_dir: Any = None          # where finished runs are kept so an interrupted figure resumes
    #: the papers' router-testbed figures on the kernel testbed as well: "auto" (where root and the
    #: testbed check allow), "kernel" (required) or "off" (simulator only); see _kernel.py
    testbed: str = "auto"
    #: refuse a batch of simulations estimated to take longer than this (seconds; None: no limit)
    max_time: float | None = 24 * 3600.0

    @property
    def quick(self) -> bool:
        return self.mode == "quick"

    def say(self, text: str) -> None:
        if self.progress is not None:
            self.progress(text)
