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
from typing import Any, Callable

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


@dataclass
class Check:
    """One claim of the paper and our number: ``{"claim", "paper", "ours", "tolerance", "pass"}``."""

    claim: str
    paper: Any
    ours: Any
    tolerance: str
    passed: bool

    def to_dict(self) -> dict[str, Any]:
        return {"claim": self.claim, "paper": fmt_number(self.paper), "ours": fmt_number(self.ours),
                "tolerance": self.tolerance, "pass": bool(self.passed)}


def check_rel(claim: str, paper: float, ours: float, rel: float, *, why: str = "") -> Check:
    """|ours - paper| <= rel·|paper|."""
    ok = math.isfinite(ours) and abs(ours - paper) <= rel * abs(paper)
    return Check(claim, paper, ours, f"relative {rel:g}" + (f" ({why})" if why else ""), ok)


def check_abs(claim: str, paper: float, ours: float, tol: float, *, unit: str = "", why: str = "") -> Check:
    """|ours - paper| <= tol."""
    ok = math.isfinite(ours) and abs(ours - paper) <= tol
    return Check(claim, paper, ours, f"±{tol:g}{unit}" + (f" ({why})" if why else ""), ok)


def check_range(claim: str, paper: Any, ours: float, lo: float, hi: float, *, why: str = "") -> Check:
    """lo <= ours <= hi (either bound may be +-inf)."""
    ok = math.isfinite(ours) and lo <= ours <= hi
    lo_s = "-inf" if lo == -math.inf else f"{lo:g}"
    hi_s = "inf" if hi == math.inf else f"{hi:g}"
    return Check(claim, paper, ours, f"in [{lo_s}, {hi_s}]" + (f" ({why})" if why else ""), ok)


def check_true(claim: str, ours: bool, tolerance: str, *, paper: Any = None, value: Any = None) -> Check:
    """A qualitative claim (an ordering, a shape): paper = None (no number), ours = 1 or 0
    unless ``value`` gives the number the criterion was judged on."""
    return Check(claim, paper, (1 if ours else 0) if value is None else value, tolerance, bool(ours))


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

    @property
    def quick(self) -> bool:
        return self.mode == "quick"

    def say(self, text: str) -> None:
        if self.progress is not None:
            self.progress(text)
