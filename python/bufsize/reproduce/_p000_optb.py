"""Paper 000's optimal-buffer measurements (§VII-C, Table II) and the EX-form fit of Fig. 18.

Setup (FIGURES.md S000): closed-loop users (Pareto sizes mean 80 KB shape 1.5, exponential think
time of mean 1 s, Reno, 1500-byte packets, two-way propagation delays uniform over 30–110 ms) behind
Nin input links of Cin into one output link Cout with a drop-tail buffer of B packets.

- **PL case**: Nin = 20, U = 100, Γ = 0.1, Cout = 50 Mb/s (C·To = 250 packets at To = 60 ms).
- **EX case**: Nin = 1000, U = 500, Γ = 10, Cout = 100 Mb/s (C·To = 500 packets). One input link
  per user (500 links): the paper's users pick one of 1000 servers behind 1000 inputs, so most
  transfers arrive over an otherwise idle input; 500 idle links add nothing to simulate.

Per-flow throughput is the transfer's payload bytes over its duration plus one RTT for the
handshake (as in T000: the engine does not simulate the SYN exchange, eq. (1)'s D counts it).
Only transfers that start after the warm-up and complete within the run count.

- **S flows**: transfers of 28–32 segments (the paper's "30 packets"; the bin is assumed).
- **L flows**: transfers with at least 5 congestion events (one or more losses separated from
  other losses by ≥ 2 RTTs, counted by the engine). 000 §IV says "five or more", §VII-C "more
  than five"; §IV's definition is used.

The optimal buffer of a class is the smallest B maximizing the class's median per-flow throughput,
found coarse-to-fine by ``bufsize.experiments.search.search_max_buffer`` (both classes on the same
runs): a coarse log-spaced grid, then integer buffers between the coarse argmax's neighbours, for
each class. With several seeds, the median of a buffer is the mean of the per-seed medians; the
confidence interval is Student's t over the per-seed optima (each seed's own argmax over the same
grid). Quick mode searches with one seed and then confirms with two more at five buffers around
each class's optimum (the reported optimum and interval come from those three seeds).

The analytic column fits the loss form (PL for Γ = 0.1, EX for Γ = 10) and the linear delay
d = f·B/C to the coarse sweep of the same case (``bufsize.experiments.fit`` through
``_p000_closed``) and applies eqs. (11)/(13) (PL) or (15)–(18) (EX) of ``bufsize.models.prasad``.

Every run is reduced to a small record (loss, delay, utilization, per-class throughput statistics)
kept in memory for the process and in ``DIR/.sweeps/p000_optb`` (an experiments-layer point store
keyed by the scenario's content hash), so Table II and Fig. 18 simulate each run once.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Iterable

from bufsize.reproduce._setup import Setting

PACKET_BYTES = 1500
TO_S = 0.060
S_SEGMENTS = (28, 32)
S_PACKETS = 30
S_BYTES = S_PACKETS * PACKET_BYTES          # the model's s = 30 packets of m = 1500 B (as fig_000_17)
L_MIN_EVENTS = 5
RTT = "30ms..110ms"
REDUCTION = 2

CASES = {
    "pl": {"label": "PL", "form": "pl", "gamma": 0.1, "c_out": 50e6, "c_in": 500e6, "users": 100, "inputs": 20,
           "paper_inputs": 20},
    "ex": {"label": "EX", "form": "ex", "gamma": 10.0, "c_out": 100e6, "c_in": 10e6, "users": 500, "inputs": 500,
           "paper_inputs": 1000},
}
#: Table II's simulation column (packets, ±) and analysis column (packets).
PAPER = {("pl", "L"): (170, 10, 146), ("pl", "S"): (64, 2, 47), ("ex", "L"): (30, 2, 0), ("ex", "S"): (20, 2, 0)}

#: Fig. 18's "every simulation": Table I's Γ = 10 rows (Nin, U, Cout, Cin); (20, 25) is the paper's low-load exception.
EX_ROWS = ((1000, 25, 10e6, 1e6), (20, 25, 10e6, 1e6), (1000, 500, 100e6, 10e6), (20, 500, 100e6, 10e6))
LOW_LOAD_ROW = (20, 25)

SCALE = {
    "quick": {
        "pl": {"coarse": (2, 5, 10, 20, 35, 50, 75, 100, 150, 200, 300, 450, 700), "duration": 450.0, "warmup": 50.0},
        "ex": {"coarse": (0, 2, 5, 10, 15, 20, 30, 45, 60, 90, 150, 250, 400, 700), "duration": 200.0, "warmup": 30.0},
        "fine_points": 2, "seeds": (1,), "confirm_seeds": (2, 3),
        "rows": {"buffers": (0, 2, 5, 10, 20, 40, 80), "duration": 200.0, "warmup": 30.0},
    },
    "full": {
        "pl": {"coarse": (2, 5, 10, 15, 20, 30, 40, 50, 60, 75, 90, 110, 130, 150, 175, 200, 250, 300, 400, 500, 700,
                          1000), "duration": 1000.0, "warmup": 100.0},
        "ex": {"coarse": (0, 1, 2, 3, 5, 7, 10, 12, 15, 18, 20, 25, 30, 35, 40, 50, 60, 75, 90, 120, 150, 200, 300, 500,
                          700, 1000), "duration": 1000.0, "warmup": 100.0},
        "fine_points": 8, "seeds": (1, 2, 3, 4, 5),
        "rows": {"buffers": (0, 1, 2, 3, 5, 7, 10, 15, 20, 30, 40, 60, 80, 120, 200), "duration": 700.0,
                 "warmup": 100.0},
    },
}

_CACHE: dict[str, Any] = {}


# ---- where each setting comes from (the SETUP of table_000_2 and fig_000_18) ------------------------


def _grid(buffers) -> str:
    b = list(buffers)
    return f"{len(b)} buffers, {b[0]:g}–{b[-1]:g} packets"


def _case_scale(case: str) -> tuple:
    """A case's coarse grid and run length, full with quick in brackets."""
    full, quick = SCALE["full"][case], SCALE["quick"][case]
    label = CASES[case]["label"]
    return (
        Setting(f"{label} case: buffer grid", f"coarse {_grid(full['coarse'])} ({', '.join(f'{x:g}' for x in full['coarse'])}; "
                f"quick: {_grid(quick['coarse'])}), then {SCALE['full']['fine_points']} (quick: "
                f"{SCALE['quick']['fine_points']}) integer buffers on each side of each class's coarse optimum", "ours",
                "000 gives no grid; FIGURES.md asks for a fine grid near the optimum ('≈ 50 B values'); a coarse "
                "log-like grid refined around each class's optimum (bufsize.experiments.search.search_max_buffer) "
                "spends the runs there"),
        Setting(f"{label} case: run length", f"{full['duration']:g} s, the first {full['warmup']:g} s warm-up (quick: "
                f"{quick['duration']:g} s, {quick['warmup']:g} s)", "figures",
                "FIGURES.md 000-TableII: '≈ 50 B values × 1000 s (L flows are rare, so runs are long)'; the quick "
                "runs are ours (FIGURES.md's 2-core plan: 400 s)"),
    )


#: the EX case (Nin = 1000, U = 500, Γ = 10) of Table II and Fig. 18
SETUP_EX_CASE = (
    Setting("EX case: Γ and U", "Γ = 10, U = 500 users", "paper", "For the EX-form, we set Nin = 1000, U = 500, Γ = 10",
            "§VII-C"),
    Setting("EX case: capacities", "Cout = 100 Mb/s (8333 packets/s), Cin = 10 Mb/s", "paper",
            "1000 500 10 100Mbps 10 Mbps 250 pkts", "Table I"),
    Setting("EX case: input links", "500, one per user", "ours",
            "000 has Nin = 1000 inputs and 1000 servers for 500 users, so most transfers arrive over an otherwise "
            "idle input; one input per user gives that without simulating 500 idle links"),
) + _case_scale("ex")

#: the PL case (Nin = 20, U = 100, Γ = 0.1) of Table II
SETUP_PL_CASE = (
    Setting("PL case: Γ, Nin, U", "Γ = 0.1, Nin = 20 input links, U = 100 users (5 users per input)", "figures",
            "000 §VII-C prints 'Nin = 100, U = 20, Γ = 0.1 and BDP = 125'; FIGURES.md [D] reads it as Table I's "
            "(20, 100, 0.1) row with the two numbers swapped (Table I has no (100, 20) row)"),
    Setting("PL case: capacities", "Cout = 50 Mb/s (4167 packets/s), Cin = 500 Mb/s", "paper",
            "20 100 0.1 50Mbps 500 Mbps 125 pkts", "Table I"),
) + _case_scale("pl")

#: the seeds of the Table II / Fig. 18 campaign
SETUP_SEEDS = (
    Setting("seeds", f"{', '.join(map(str, SCALE['full']['seeds']))} (quick: seed 1 for the search, then seeds "
            f"{', '.join(map(str, SCALE['quick']['confirm_seeds']))} at 5 buffers around each class's optimum); the "
            "median of a buffer is the mean of the per-seed medians, the interval Student's t over the per-seed optima",
            "figures", "FIGURES.md 000-TableII: '5 seeds ≈ 3 G' and 'CI from seeds'; the quick confirmation is ours"),
)

#: the flow classes and the optimum of Table II (and Fig. 18's measured medians)
SETUP_CLASSES = (
    Setting("S flows", f"transfers of {S_SEGMENTS[0]}–{S_SEGMENTS[1]} segments", "figures",
            "000: 'For the S-model, we consider flows of size s=30pkts' (§VII-C); FIGURES.md: 'Use a bin such as 28–32 "
            "packets (assumed)'"),
    Setting("L flows", f"transfers with ≥ {L_MIN_EVENTS} congestion events", "ours",
            "000 is ambiguous: §VII-C takes flows that 'experience more than five congestion events' (≥ 6), §IV puts "
            "flows 'that experienced five or more congestion events' closer to the L-model; §IV's definition is used"),
    Setting("congestion event", "one or more losses at least two RTTs from the flow's other losses (counted by the "
            "engine)", "paper",
            "A congestion event here is defined as one or more packet losses that are separated from other losses by "
            "at least two RTTs", "§IV"),
    Setting("per-flow throughput", "payload bytes / (transfer duration + the transfer's mean RTT), over the transfers "
            "that start after the warm-up and complete within the run", "ours",
            "000 does not define it; the added RTT stands for the handshake the engine does not simulate (eq. (1)'s "
            "D(s) counts it)"),
    Setting("optimal buffer", "the smallest buffer maximizing the class's median per-flow throughput", "paper",
            "we estimate the optimal buffer size as the (minimum) buffer size that maximizes the median per-flow "
            "throughput", "§VII-C"),
)

#: the fits behind the analytic optima (both cases)
SETUP_FIT = (
    Setting("fitted (a, b, f)", "the case's loss form (PL for Γ = 0.1, EX for Γ = 10) and d = f·B/C, least squares on "
            "the coarse sweep's per-buffer means over the seeds, the loss over 5 ≤ B ≤ the delay cutoff "
            "(_p000_closed's fits)", "ours",
            "000 prints neither its fitted a, b, f nor how it fitted them; the fit range follows its 'range in which "
            "the queueing delay increases almost linearly with B' (§VI-A), from 5 packets as in Figs. 13–16"),
)

#: the model constants of §VII (Figs. 17, 18, Table II's analysis column)
SETUP_MODEL = (
    Setting("s (model flow size)", f"{S_PACKETS} packets = {S_BYTES / 1000:g} KB", "paper",
            "The flow size (for the S-model) is s=30 packets", "§VII-A.3, §VII-B.3"),
    Setting("m (segment size)", f"{PACKET_BYTES} B", "figures",
            "MODELS.md: m, the MSS, '1500 in the paper' (000's §V: 's=30pkts=45KB')"),
    Setting("M(s), D(s)", "M = 30 segments, D = 5 rounds (eq. (1): D = 1 + ⌈log2(M/2)⌉)", "figures",
            "FIGURES.md 000-Fig17: 'M = 30; D = 5' (000's eq. (1) with M = 30)"),
    Setting("v", "1", "paper", "In the following, we set v = 1", "§VII-A.2"),
    Setting("k", "1.22", "paper", "(we set k=1.22)", "§IV"),
)


def c_pps(c_out: float) -> float:
    return c_out / 8 / PACKET_BYTES


def bdp(case: str) -> float:
    return c_pps(CASES[case]["c_out"]) * TO_S


def scenario(c_out: float, c_in: float, users: int, inputs: int, buffer: int, seed: int, duration: float,
             warmup: float):
    from bufsize.reproduce import _stack

    return _stack.from_dict({
        "seed": seed, "duration": f"{duration:g}s", "warmup": f"{warmup:g}s",
        "links": [{"name": "out", "rate": c_out, "buffer": f"{_stack.ns2_limit(buffer)}pkt"}, {"name": "rev", "rate": "1Gbps"}],
        "bottleneck": "out",
        "measure": {"queue_histogram": False, "phase_trace_interval": None},
        "users": [{"count": users, "access_rate": c_in, "inputs": inputs, "path": ["out"], "ack_path": ["rev"],
                   "rtt": RTT, "size": {"pareto": {"shape": 1.5, "mean": "80KB"}}, "think": {"exponential": "1s"},
                   "tcp": {"cc": "reno", "packet_size": f"{PACKET_BYTES}B", "sack": False, "prr": False}}],
    })


# ---- per-run reduction -------------------------------------------------------------------------

def classify(transfers, warmup: float, with_timeouts: bool = False) -> dict[str, Any]:
    """Throughputs (bit/s) of the S flows (28–32 segments) and the L flows (≥ 5 congestion events)
    among the transfers that started after ``warmup`` and completed."""
    import numpy as np

    t = transfers[(transfers["start_s"] >= warmup) & transfers["completed"].astype(bool)]
    rtt = np.where(np.isfinite(t["mean_rtt_s"]), t["mean_rtt_s"], t["rtt_s"])
    thr = t["size_bytes"].to_numpy(float) * 8 / (t["fct_s"].to_numpy(float) + rtt)
    seg = t["segments"].to_numpy(float)
    ce = t["congestion_events"].to_numpy(float)
    s = (seg >= S_SEGMENTS[0]) & (seg <= S_SEGMENTS[1])
    l_ = ce >= L_MIN_EVENTS
    if with_timeouts:
        to = t["timeouts"].to_numpy(float) > 0
        return {"all": (thr, to), "S": (thr[s], to[s]), "L": (thr[l_], to[l_])}
    return {"all": thr, "S": thr[s], "L": thr[l_]}


def _stats(x, timed_out) -> dict[str, Any]:
    import numpy as np

    x = np.asarray(x, float)
    if not len(x):
        return {"n": 0, "median": math.nan, "mean": math.nan, "q25": math.nan, "q75": math.nan,
                "timeout_share": math.nan}
    return {"n": int(len(x)), "median": float(np.median(x)), "mean": float(x.mean()),
            "q25": float(np.quantile(x, 0.25)), "q75": float(np.quantile(x, 0.75)),
            "timeout_share": float(np.mean(timed_out))}


def reduce_run(transfers, summary: dict[str, Any], warmup: float) -> dict[str, Any]:
    cls = classify(transfers, warmup, with_timeouts=True)
    return {"reduction": REDUCTION, "loss_rate": float(summary["loss_rate"]),
            "queue_delay_mean_s": float(summary["queue_delay_mean_s"]),
            "utilization": float(summary["utilization"]),
            **{name: _stats(*x) for name, x in cls.items()}}


def _store(ctx):
    from bufsize.experiments import store as st

    d = getattr(ctx, "store_dir", None)
    if d is None:
        return None
    s = st.Store(Path(d).parent / "p000_optb")
    s.prepare({"written_by": "bufsize reproduce (paper 000 §VII: shared by table_000_2 and fig_000_18)"})
    return s


def get_runs(ctx, specs: Iterable[tuple[tuple, Any]], warmup_of) -> dict[tuple, dict]:
    """Reduced records of ``(label, scenario)`` runs: from memory, the store, or simulated."""
    from bufsize.experiments import store as st
    from bufsize.reproduce._sim import run_scenarios

    engine = st.engine_version()
    mem = _CACHE.setdefault("runs", {})
    store = _store(ctx)
    out: dict[tuple, dict] = {}
    todo = []
    for label, sc in specs:
        si = sc.to_dict()
        key = st.point_key(si, si["seed"], engine)
        rec = mem.get(key)
        if rec is None and store is not None:
            rec = store.load(key)
            if rec is not None and rec.get("reduced", {}).get("reduction") != REDUCTION:
                rec = None
        if rec is not None:
            mem[key] = rec
            out[label] = rec["reduced"]
        else:
            todo.append((label, key, sc))
    if todo:
        ctx.say(f"      000 §VII: {len(todo)} runs to simulate ({len(out)} reused)")
        chunk = max(2, 2 * int(getattr(ctx, "workers", 1) or 1))
        for i in range(0, len(todo), chunk):
            part = todo[i:i + chunk]
            res = run_scenarios([p[2] for p in part], ctx, tables=("transfers",))
            for (label, key, sc), r in zip(part, res):
                red = reduce_run(r["transfers"], r["summary"], warmup_of(label))
                rec = {"key": key, "status": "ok", "seed": sc.to_dict()["seed"], "summary": r["summary"],
                       "reduced": red}
                mem[key] = rec
                if store is not None:
                    store.save(rec)
                out[label] = red
    return out


# ---- coarse-to-fine search ---------------------------------------------------------------------

def argmax_min(buffers, values) -> float:
    """The smallest buffer with the largest value (``bufsize.experiments.search.smallest_argmax``)."""
    from bufsize.experiments.search import smallest_argmax

    return smallest_argmax(buffers, values)


def per_buffer(runs: dict[tuple, dict], case: str, cls: str, seeds) -> Any:
    """Per buffer: mean over the seeds of the class's median throughput, and the per-seed medians."""
    import numpy as np
    import pandas as pd

    rows = []
    for b in sorted({k[1] for k in runs if k[0] == case}):
        med = [runs[(case, b, s)][cls]["median"] for s in seeds if (case, b, s) in runs]
        n = [runs[(case, b, s)][cls]["n"] for s in seeds if (case, b, s) in runs]
        to = [runs[(case, b, s)][cls].get("timeout_share", math.nan) for s in seeds if (case, b, s) in runs]
        rows.append({"buffer_packets": b, "median_mbps": float(np.nanmean(med)) / 1e6 if np.isfinite(med).any()
                     else math.nan, "n_flows": int(sum(n)),
                     "timeout_share": float(np.nanmean(to)) if np.isfinite(to).any() else math.nan,
                     "loss_rate": float(np.mean([runs[(case, b, s)]["loss_rate"] for s in seeds if (case, b, s) in runs])),
                     **{f"median_mbps_seed{s}": m / 1e6 for s, m in zip(seeds, med)}})
    return pd.DataFrame(rows)


# ---- the campaign ------------------------------------------------------------------------------

def _case_scenario(case: str, b: int, seed: int, cfg: dict[str, Any]):
    c = CASES[case]
    return scenario(c["c_out"], c["c_in"], c["users"], c["inputs"], b, seed, cfg["duration"], cfg["warmup"])


def fit_case(runs: dict[tuple, dict], case: str, buffers, seeds) -> dict[str, Any]:
    """(a, b, f) of the case's loss form and linear delay, fitted to the coarse sweep's per-buffer means."""
    import numpy as np

    from bufsize.reproduce import _p000_closed as pc

    B = np.array(sorted(buffers), float)
    loss = np.array([np.mean([runs[(case, int(b), s)]["loss_rate"] for s in seeds]) for b in B])
    d = np.array([np.mean([runs[(case, int(b), s)]["queue_delay_mean_s"] for s in seeds]) for b in B])
    cp = c_pps(CASES[case]["c_out"])
    pos = B > 0
    delay = pc.fit_delay(B[pos], d[pos], cp)
    b_min = 5
    sel = (B >= b_min) & (B <= delay["cutoff_packets"])
    loss_fit = pc.fit_loss(B[sel], loss[sel], CASES[case]["form"])
    other = pc.fit_loss(B[sel], loss[sel], "ex" if CASES[case]["form"] == "pl" else "pl")
    return {"form": CASES[case]["form"], "a": loss_fit["a"], "b": loss_fit["b"], "r2": loss_fit["r2"],
            "n": loss_fit["n"], "f": delay["f"], "delay_r2": delay["r2"], "cutoff_packets": delay["cutoff_packets"],
            "b_min": b_min, "other_form_r2": other["r2"], "buffers": B.tolist(), "loss": loss.tolist(),
            "delay_s": d.tolist(), "source": loss_fit["source"]}


def analysis(case: str, fit: dict[str, Any]) -> dict[str, float]:
    """000's B̂ for L and S (packets) from the fitted (a, b, f): eqs. (11)/(13) for PL; for EX the
    L rule (0 if B_stat of eq. (16) > 0), the bounded L maximum over the linear-delay range, and the
    S maximum of eq. (17) over [0, cutoff]."""
    from bufsize.models import prasad as pr

    cp = c_pps(CASES[case]["c_out"])
    a, b, f = fit["a"], fit["b"], fit["f"]
    if not all(math.isfinite(x) and x > 0 for x in (a, b, f)):
        return {"L": math.nan, "S": math.nan, "L_bounded": math.nan, "L_stat": math.nan}
    M = pr.segments(S_BYTES, PACKET_BYTES)
    D = pr.slow_start_rounds(M)
    ct = cp * TO_S
    if case == "pl":
        return {"L": pr.optimal_buffer_pl_l(b, f, ct), "S": pr.optimal_buffer_pl_s(a=a, b=b, f=f, M=M, D=D, C_To=ct),
                "L_bounded": math.nan, "L_stat": math.nan}
    bmax = float(fit["cutoff_packets"])
    return {"L": pr.optimal_buffer_ex_l_paper_rule(b, f, ct),
            "L_bounded": pr.optimal_buffer_ex_l_bounded(b=b, f=f, C=cp, To=TO_S, B_max=bmax),
            "L_stat": pr.ex_l_stationary_buffer(b, f, ct),
            "S": pr.optimal_buffer_ex_s(a=a, b=b, f=f, M=M, D=D, C_To=ct, B_max=bmax)}


def campaign(ctx) -> dict[str, Any]:
    """Both cases: the coarse-to-fine search of each class's optimum
    (``bufsize.experiments.search.search_max_buffer``, both classes on the same runs), the fit of the
    coarse sweep and the models' optima."""
    from bufsize.experiments.search import search_max_buffer

    key = ("campaign", ctx.mode)
    if key in _CACHE:
        return _CACHE[key]
    sc_cfg = SCALE[ctx.mode]
    seeds = tuple(sc_cfg["seeds"])
    runs: dict[tuple, dict] = {}
    out: dict[str, Any] = {"runs": runs, "seeds": seeds, "config": sc_cfg, "fine": {}, "cases": {}}
    for case in CASES:
        warm = sc_cfg[case]["warmup"]

        def measure(points, case=case):
            got = get_runs(ctx, [((case, b, sd), _case_scenario(case, b, sd, sc_cfg[case])) for b, sd in points],
                           lambda lab: warm)
            runs.update(got)
            return {(b, sd): {cls: got[(case, b, sd)][cls]["median"] for cls in ("S", "L")} for b, sd in points}

        found = search_max_buffer(measure, sc_cfg[case]["coarse"], objectives=("S", "L"), seeds=seeds,
                                  fine_points=sc_cfg["fine_points"], confirm_seeds=sc_cfg.get("confirm_seeds", ()),
                                  confirm_buffers=5)
        fit = fit_case(runs, case, sc_cfg[case]["coarse"], seeds)
        cls_out = {}
        for cls in ("S", "L"):
            r = found[cls]
            out["fine"][(case, cls)] = r.fine
            k = {"table": per_buffer(runs, case, cls, seeds), "best": r.best, "per_seed": r.per_seed,
                 "seed_mean": r.seed_mean, "ci95_half": r.ci_half, "search": r}
            if r.confirm is not None:
                sub = {lab: v for lab, v in runs.items() if lab[0] == case and lab[1] in r.confirm["buffers"]}
                k["confirm"] = {"seeds": tuple(r.confirm["seeds"]), "buffers": r.confirm["buffers"],
                                "table": per_buffer(sub, case, cls, r.confirm["seeds"]), "best": r.best,
                                "per_seed": r.per_seed}
                k["best_one_seed"] = r.first_best
            cls_out[cls] = k
        out["cases"][case] = {"fit": fit, "analysis": analysis(case, fit), "classes": cls_out, "bdp": bdp(case)}
    _CACHE[key] = out
    return out


def ex_rows(ctx) -> dict[tuple, dict[str, Any]]:
    """Fig. 18's 'every simulation': a B sweep of each Γ = 10 row of Table I (Nin, U) with its fit,
    measured per-class optima and the models' B̂. The (1000, 500) row reuses the main EX sweep."""
    key = ("rows", ctx.mode)
    if key in _CACHE:
        return _CACHE[key]
    camp = campaign(ctx)
    rc = SCALE[ctx.mode]["rows"]
    seeds = camp["seeds"]
    specs = []
    for nin, users, cout, cin in EX_ROWS:
        if (nin, users) == (1000, 500):
            continue
        inputs = min(nin, users)  # one input per user when Nin ≥ U (each transfer on an idle input)
        for b in rc["buffers"]:
            for s in seeds:
                specs.append(((f"row{nin}_{users}", b, s),
                              scenario(cout, cin, users, inputs, b, s, rc["duration"], rc["warmup"])))
    runs = get_runs(ctx, specs, lambda lab: rc["warmup"])
    out = {}
    for nin, users, cout, cin in EX_ROWS:
        if (nin, users) == (1000, 500):
            case = camp["cases"]["ex"]
            out[(nin, users)] = {"fit": case["fit"], "analysis": case["analysis"], "bdp": case["bdp"],
                                 "tables": {c: case["classes"][c]["table"] for c in ("S", "L")},
                                 "best": {c: case["classes"][c]["best"] for c in ("S", "L")},
                                 "best_all": argmax_min(*_all_median(camp["runs"], "ex", seeds)),
                                 "utilization_max": max(camp["runs"][("ex", b, s)]["utilization"]
                                                        for b in camp["config"]["ex"]["coarse"] for s in seeds)}
            continue
        name = f"row{nin}_{users}"
        fit = _fit_row(runs, name, rc["buffers"], seeds, cout)
        cp = c_pps(cout)
        an = _analysis_ex(fit, cp)
        best, tables = {}, {}
        for cls in ("S", "L"):
            t = per_buffer(runs, name, cls, seeds)
            best[cls] = argmax_min(t.buffer_packets, t.median_mbps)
            tables[cls] = t
        out[(nin, users)] = {"fit": fit, "analysis": an, "bdp": cp * TO_S, "best": best, "tables": tables,
                             "best_all": argmax_min(*_all_median(runs, name, seeds)),
                             "utilization_max": max(runs[(name, b, s)]["utilization"] for b in rc["buffers"]
                                                    for s in seeds)}
    _CACHE[key] = out
    return out


def _all_median(runs, name, seeds):
    import numpy as np

    bs = sorted({k[1] for k in runs if k[0] == name})
    return bs, [np.mean([runs[(name, b, s)]["all"]["median"] for s in seeds]) for b in bs]


def _fit_row(runs, name, buffers, seeds, cout) -> dict[str, Any]:
    import numpy as np

    from bufsize.reproduce import _p000_closed as pc

    B = np.array(sorted(buffers), float)
    loss = np.array([np.mean([runs[(name, int(b), s)]["loss_rate"] for s in seeds]) for b in B])
    d = np.array([np.mean([runs[(name, int(b), s)]["queue_delay_mean_s"] for s in seeds]) for b in B])
    pos = B > 0
    delay = pc.fit_delay(B[pos], d[pos], c_pps(cout))
    sel = (B >= 5) & (B <= delay["cutoff_packets"])
    lf = pc.fit_loss(B[sel], loss[sel], "ex")
    return {"form": "ex", "a": lf["a"], "b": lf["b"], "r2": lf["r2"], "n": lf["n"], "f": delay["f"],
            "cutoff_packets": delay["cutoff_packets"]}


def _analysis_ex(fit, cp) -> dict[str, float]:
    from bufsize.models import prasad as pr

    a, b, f = fit["a"], fit["b"], fit["f"]
    if not all(math.isfinite(x) and x > 0 for x in (a, b, f)):
        return {"L": math.nan, "S": math.nan}
    M = pr.segments(S_BYTES, PACKET_BYTES)
    ct = cp * TO_S
    return {"L": pr.optimal_buffer_ex_l_paper_rule(b, f, ct),
            "S": pr.optimal_buffer_ex_s(a=a, b=b, f=f, M=M, D=pr.slow_start_rounds(M), C_To=ct,
                                        B_max=float(fit["cutoff_packets"]))}


def deviations(ctx) -> list[str]:
    cfg = SCALE[ctx.mode]
    out = ["bufsize's packet-level engine instead of ns-2 (Reno, no delayed ACK, 1500-byte packets, no window cap).",
           f"{ctx.mode} scale: PL {len(cfg['pl']['coarse'])} coarse buffers × {cfg['pl']['duration']:g} s "
           f"({cfg['pl']['warmup']:g} s warm-up), EX {len(cfg['ex']['coarse'])} coarse buffers × "
           f"{cfg['ex']['duration']:g} s ({cfg['ex']['warmup']:g} s warm-up), then ~{2 * cfg['fine_points']} fine "
           f"buffers around each class's coarse optimum; {len(cfg['seeds'])} seed(s). FIGURES.md: ≈ 50 buffers × "
           f"1000 s, 5 seeds.",
           "EX case: 500 input links of 10 Mb/s, one per user, instead of 1000 (each transfer still arrives over an "
           "otherwise idle input).",
           "S flows = 28–32 segments (assumed bin around the paper's 30 packets); L flows = ≥ 5 congestion events "
           "(§IV's 'five or more'; §VII-C says 'more than five').",
           "Per-flow throughput includes one RTT for the handshake the engine does not simulate."]
    if ctx.quick:
        out.append("Quick: the search runs 1 seed, so no confidence interval (the full scale's CI comes from 5 seeds); "
                   "seeds 2 and 3 are then run at 5 buffers around each class's one-seed optimum, and the reported "
                   "optimum is the argmax of the 3-seed mean median over those buffers (its CI from the 3 per-seed "
                   "optima); shorter EX runs (200 s) make the medians noisier, the L class "
                   "(rare in the PL case at large B) most.")
    return out
