"""Fits of a buffer sweep to paper 000's loss and delay forms, and the optimal buffer from them.

Loss (MODELS.md §000, eqs. (8) and (14)), each fitted by ordinary least squares in the space where
it is a straight line:

- PL-form ``p(B) = a·B^(-b)``: ``ln p = ln a - b·ln B``;
- EX-form ``p(B) = a·e^(-b·B)``: ``ln p = ln a - b·B``.

Every finished run with p > 0 is one observation (runs with no loss at all have no logarithm and
are left out, and counted). Parameters come with two-sided Student-t confidence intervals from the
OLS covariance (``ln a`` is symmetric, so ``a``'s interval is ``exp`` of it); R² is that of ``ln p``.
Both forms explain the same ``ln p`` values, so their R² (equivalently their residual sums of
squares) are directly comparable: ``auto`` picks the larger and says by how much (a difference
under 0.01 is reported as "about equally well").

Delay: ``d(B) = f·B/C`` (eq. (9)'s queueing part), a line through the origin in ``B/C`` up to the
cutoff where the sources can no longer fill the buffer. The cutoff is found by growing the fitted
range from the smallest buffers while each next buffer's mean delay stays within ``tolerance``
(default 15 %) of the line fitted so far; f is then fitted on that range (with its t interval).

The optimal buffer B̂ uses the fitted a, b, f in 000's equations through
:mod:`bufsize.models.prasad`: PL eq. (11) (L-model) and (13) (S-model); EX §VII-B.1's rule and the
bounded maximum of (15) (L), and (17)/(18) (S). C·To is the bottleneck capacity (packets/s) times
the mean two-way propagation delay of the scenario.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from bufsize.errors import BufsizeError


@dataclass
class Estimate:
    value: float
    low: float
    high: float

    def contains(self, x: float) -> bool:
        return self.low <= x <= self.high

    def __str__(self) -> str:
        return f"{self.value:.4g} [{self.low:.4g}, {self.high:.4g}]"


@dataclass
class LossFit:
    form: str  # "pl" or "ex"
    a: Estimate
    b: Estimate
    r2: float
    rss: float
    n: int
    left_out_zero: int
    confidence: float
    buffers: tuple[float, float] = (math.nan, math.nan)  # smallest and largest buffer of the runs fitted

    def predict(self, B):
        import numpy as np

        B = np.asarray(B, dtype=float)
        if self.form == "pl":
            return self.a.value * B ** (-self.b.value)
        return self.a.value * np.exp(-self.b.value * B)

    def formula(self) -> str:
        return ("p(B) = a·B^(-b)" if self.form == "pl" else "p(B) = a·e^(-b·B)")

    def to_dict(self) -> dict[str, Any]:
        return {"form": self.form, "a": vars(self.a), "b": vars(self.b), "r2": self.r2, "rss": self.rss, "n": self.n,
                "left_out_zero_loss": self.left_out_zero, "confidence": self.confidence,
                "buffers_packets": list(self.buffers)}


@dataclass
class DelayFit:
    f: Estimate
    cutoff_packets: float
    r2: float
    n: int
    capacity_pps: float
    smallest_packets: float = math.nan  # the smallest buffer of the runs fitted (the largest is the cutoff)

    def to_dict(self) -> dict[str, Any]:
        return {"f": vars(self.f), "cutoff_packets": self.cutoff_packets, "r2": self.r2, "n": self.n,
                "capacity_pps": self.capacity_pps, "smallest_packets": self.smallest_packets}


@dataclass
class FitResult:
    loss: LossFit | None  # the chosen form
    fits: dict[str, LossFit] = field(default_factory=dict)
    reason: str = ""
    delay: DelayFit | None = None
    optimal: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    #: what the optimum cannot claim: a B̂ outside the buffers the fits saw, and why a B̂ is 0
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"loss": self.loss.to_dict() if self.loss else None, "fits": {k: v.to_dict() for k, v in self.fits.items()},
                "reason": self.reason, "delay": self.delay.to_dict() if self.delay else None,
                "optimal_buffer_packets": self.optimal, "notes": self.notes, "warnings": self.warnings}

    def __str__(self) -> str:
        """What ``bufsize fit`` prints (:func:`report`)."""
        return report(self)

    def _repr_html_(self) -> str:
        import html

        return f"<pre>{html.escape(report(self))}</pre>"


def _ols(x, y, confidence: float, through_origin: bool = False):
    """OLS of y on x (with intercept unless ``through_origin``): estimates, t-interval half-widths, R², RSS."""
    import numpy as np
    from scipy import stats

    x = np.asarray(x, float)
    y = np.asarray(y, float)
    X = x[:, None] if through_origin else np.column_stack([np.ones_like(x), x])
    beta, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - X @ beta
    rss = float(resid @ resid)
    dof = len(y) - X.shape[1]
    if dof < 1:
        raise BufsizeError(f"needs more than {X.shape[1]} observations to fit, got {len(y)}", argument="DIR")
    s2 = rss / dof
    cov = s2 * np.linalg.inv(X.T @ X)
    tq = stats.t.ppf(0.5 + confidence / 2, dof)
    half = tq * np.sqrt(np.diag(cov))
    tss = float(((y - (0 if through_origin else y.mean())) ** 2).sum())
    r2 = 1.0 - rss / tss if tss > 0 else 1.0
    return beta, half, r2, rss


def fit_loss(B, p, form: str, confidence: float = 0.95) -> LossFit:
    """Fit the PL (``"pl"``) or EX (``"ex"``) loss form to buffers ``B`` (packets) and loss rates ``p``."""
    import numpy as np

    B = np.asarray(B, float)
    p = np.asarray(p, float)
    keep = np.isfinite(B) & np.isfinite(p) & (p > 0) & (B > 0)
    zero = int((np.isfinite(p) & (p <= 0)).sum())
    if keep.sum() < 3:
        raise BufsizeError(f"needs at least 3 runs with some loss to fit the loss form, got {int(keep.sum())}",
                           argument="--loss")
    if len(set(B[keep])) < 2:
        raise BufsizeError("needs at least two different buffers to fit", argument="--loss")
    x = np.log(B[keep]) if form == "pl" else B[keep]
    beta, half, r2, rss = _ols(x, np.log(p[keep]), confidence)
    la, lb = beta[0], -beta[1]
    a = Estimate(float(math.exp(la)), float(math.exp(la - half[0])), float(math.exp(la + half[0])))
    b = Estimate(float(lb), float(lb - half[1]), float(lb + half[1]))
    return LossFit(form, a, b, float(r2), rss, int(keep.sum()), zero, confidence,
                   (float(B[keep].min()), float(B[keep].max())))


def fit_delay(B, d, capacity_pps: float, confidence: float = 0.95, tolerance: float = 0.15) -> DelayFit:
    """``d(B) = f·B/C`` through the origin, over the buffers below the cutoff (module docstring)."""
    import numpy as np
    import pandas as pd

    df = pd.DataFrame({"B": np.asarray(B, float), "d": np.asarray(d, float)}).dropna()
    df = df[df.B > 0]
    means = df.groupby("B")["d"].mean().sort_index()
    if len(means) < 2:
        raise BufsizeError("needs at least two different buffers to fit the delay", argument="--delay")
    xs = means.index.to_numpy() / capacity_pps
    ys = means.to_numpy()
    k = len(xs)  # drop the largest buffer while it falls off the line fitted to the smaller ones
    while k > 2:
        f_k = float((xs[:k - 1] @ ys[:k - 1]) / (xs[:k - 1] @ xs[:k - 1]))
        pred = f_k * xs[k - 1]
        if pred > 0 and abs(ys[k - 1] - pred) <= tolerance * pred:
            break
        k -= 1
    cutoff = float(means.index[k - 1])
    sel = df[df.B <= cutoff]
    beta, half, r2, _ = _ols(sel.B.to_numpy() / capacity_pps, sel.d.to_numpy(), confidence, through_origin=True)
    f = Estimate(float(beta[0]), float(beta[0] - half[0]), float(beta[0] + half[0]))
    return DelayFit(f, cutoff, float(r2), len(sel), capacity_pps, float(sel.B.min()))


def choose(fits: dict[str, LossFit]) -> tuple[str, str]:
    pl, ex = fits["pl"], fits["ex"]
    best = "pl" if pl.r2 >= ex.r2 else "ex"
    diff = abs(pl.r2 - ex.r2)
    name = {"pl": "power law (PL)", "ex": "exponential (EX)"}
    if diff < 0.01:
        return best, (f"both forms fit ln p about equally well (R² PL {pl.r2:.4f}, EX {ex.r2:.4f}); "
                      f"{name[best]} has the smaller residual sum of squares")
    return best, (f"{name[best]} fits ln p better: R² {fits[best].r2:.4f} vs {fits['ex' if best == 'pl' else 'pl'].r2:.4f} "
                  f"(residual sum of squares {fits[best].rss:.3g} vs {fits['ex' if best == 'pl' else 'pl'].rss:.3g}, "
                  f"same {fits[best].n} runs)")


def optimal_buffers(loss: LossFit, f: float, C_pps: float, To: float, *, flow_segments: float | None,
                    B_max: float | None) -> dict[str, Any]:
    """000's B̂ (packets) with the fitted parameters: L-model always, S-model for a flow size."""
    from bufsize.models import prasad

    a, b = loss.a.value, loss.b.value
    C_To = C_pps * To
    out: dict[str, Any] = {"C_To_packets": C_To}
    try:
        if loss.form == "pl":
            out["L"] = prasad.optimal_buffer_pl_l(b, f, C_To)
        else:
            out["L_paper_rule"] = prasad.optimal_buffer_ex_l_paper_rule(b, f, C_To)
            if B_max is not None:
                out["L"] = prasad.optimal_buffer_ex_l_bounded(b=b, f=f, C=C_pps, To=To, B_max=B_max)
    except BufsizeError as exc:
        out["L"] = None
        out["L_note"] = str(exc)
    if flow_segments is not None:
        M = float(flow_segments)
        D = prasad.slow_start_rounds(M)
        out["S_flow_segments"] = M
        try:
            out["S"] = (prasad.optimal_buffer_pl_s(a=a, b=b, f=f, M=M, D=D, C_To=C_To) if loss.form == "pl" else
                        prasad.optimal_buffer_ex_s(a=a, b=b, f=f, M=M, D=D, C_To=C_To))
        except BufsizeError as exc:
            out["S"] = None
            out["S_note"] = str(exc)
    return out


def _log_throughput(model: str, form: str, a: float, b: float, f: float, C_To: float, M: float | None):
    """ln of 000's per-flow throughput up to a constant, as a function of B (packets): what the
    optimum maximizes, to compare buffers inside the fitted range (eqs. (10), (12), (15), (17))."""
    import numpy as np

    def score(B):
        B = np.asarray(B, float)
        delay = np.log(C_To + f * B)
        if model == "L":
            return (b / 2 * np.log(B) if form == "pl" else b / 2 * B) - delay
        from bufsize.models import prasad

        assert M is not None
        D = prasad.slow_start_rounds(M)
        loss = a * B ** (-b) if form == "pl" else a * np.exp(-b * B)
        return -np.log(D + M * loss) - delay

    return score


def _why_zero(model: str, loss: LossFit, f: float, C_To: float, M: float | None, B_max: float | None) -> str:
    """Which term of 000's throughput makes B̂ = 0 with these fits (the EX forms: the PL forms' optimum
    is always positive)."""
    a, b = loss.a.value, loss.b.value
    cost = f / C_To  # relative growth of the RTT term (C·To + f·B) per packet at B = 0
    if model == "L":
        upto = f", and no buffer up to {B_max:g} pkt beats having none" if B_max else ""
        return (f"L-model B̂ = 0: the fitted loss falls too slowly to pay for the delay the buffer adds. At B = 0 one "
                f"packet of buffer shrinks the loss term of R_L by b/2 = {b / 2:.3g} and grows the delay term "
                f"To + f·B/C by f/(C·To) = {cost:.3g}: the delay term wins{upto}")
    from bufsize.models import prasad

    assert M is not None
    D = prasad.slow_start_rounds(M)
    lost = M * a  # RTTs lost to retransmissions at B = 0 (v = 1)
    gain = b * lost / (D + lost)
    return (f"S-model B̂ = 0: for flows of {M:g} segments the loss term v·M·a = {lost:.3g} RTTs is small beside the "
            f"{D} slow-start RTTs, so at B = 0 one packet of buffer saves {gain:.3g} of the transfer time and adds "
            f"{cost:.3g} of queueing delay: the delay term wins")


def judge_range(res: "FitResult", flow_segments: float | None) -> None:
    """Say where the optimum stands against the buffers the fits saw: the range both fits cover,
    for each B̂ outside it the model's best buffer inside it and a warning, and why a B̂ is 0."""
    import numpy as np

    o, loss, d = res.optimal, res.loss, res.delay
    if not o or loss is None or d is None:
        return
    lo, hi = max(loss.buffers[0], d.smallest_packets), min(loss.buffers[1], d.cutoff_packets)
    if not lo <= hi:
        o["fitted_range_packets"] = None
        res.warnings.append(f"the loss fit covers {loss.buffers[0]:g}–{loss.buffers[1]:g} pkt and the linear delay "
                            f"{d.smallest_packets:g}–{d.cutoff_packets:g} pkt: no buffer has both, so every B̂ below "
                            "is an extrapolation")
    else:
        o["fitted_range_packets"] = [lo, hi]
    for model in ("L", "S"):
        v = o.get(model)
        if v is None or not math.isfinite(v):
            continue
        if v == 0 and loss.form == "ex":
            o[f"{model}_why_zero"] = _why_zero(model, loss, d.f.value, o["C_To_packets"], flow_segments,
                                               d.cutoff_packets if model == "L" else None)
        inside = o["fitted_range_packets"] is not None and lo <= v <= hi
        o[f"{model}_inside_fitted_range"] = inside
        if inside or o["fitted_range_packets"] is None:
            continue
        score = _log_throughput(model, loss.form, loss.a.value, loss.b.value, d.f.value, o["C_To_packets"],
                                flow_segments)
        grid = np.unique(np.concatenate([np.geomspace(lo, hi, 4001) if lo > 0 else np.linspace(lo, hi, 4001),
                                         [lo, hi, min(max(v, lo), hi)]]))
        best = float(grid[int(np.argmax(score(grid)))])
        o[f"{model}_best_inside_fitted_range"] = best
        side = "below the smallest" if v < lo else "above the largest"
        edge = lo if v < lo else hi
        res.warnings.append(f"{model}-model B̂ = {_pkt(v)} pkt lies {side} buffer the fits saw ({edge:g} pkt; fitted "
                            f"{lo:g}–{hi:g} pkt): an extrapolation of the fitted laws, not a measured optimum. Inside "
                            f"the range the model's best is {_pkt(best)} pkt; runs {'below' if v < lo else 'above'} "
                            f"{edge:g} pkt would test it")
    if loss.form == "ex" and o.get("L") is not None and o["L"] > 0 and o["L"] == d.cutoff_packets:
        shape = ("R_L keeps rising with the buffer (the §VII-B.1 rule says unbounded)" if o.get("L_paper_rule") != 0
                 else "R_L falls from B = 0, then rises past its value at 0 before the cutoff (it is convex in B; "
                      "the §VII-B.1 rule's 0 looks only at B = 0)")
        res.warnings.append(f"L-model B̂ = {_pkt(o['L'])} pkt is the end of the linear delay range, not an optimum: with "
                            f"the EX form {shape}, so the search over 0..cutoff stops at its edge")
    for model in ("L", "S"):
        if o.get(f"{model}_why_zero"):
            res.warnings.append(o[f"{model}_why_zero"])


def _pkt(v: float) -> str:
    return f"{v:.0f}" if v == round(v) else f"{v:.1f}"


#: Columns a table of runs needs for :func:`fit_sweep` (the loss fit; the delay fit adds its own).
REQUIRED_COLUMNS = ("buffer_packets", "loss_rate")


def load_table(table: Any) -> Any:
    """A table of runs: a DataFrame, a sweep directory (its ``results.parquet``), or a CSV or
    Parquet file with the columns of a sweep table. Only rows with ``status == "ok"`` are kept
    when the table has a status column."""
    import pandas as pd

    if isinstance(table, (str, Path)):
        p = Path(table)
        f = p / "results.parquet" if p.is_dir() else p
        if not f.exists():
            if p.is_dir():
                raise BufsizeError(f"no sweep table in {str(p)!r} (run bufsize sweep --out {p} first, or give a "
                                   "CSV or Parquet file of runs)", argument="DIR")
            raise BufsizeError(f"{str(f)!r} does not exist", argument="DIR")
        table = _read(f)
    if not isinstance(table, pd.DataFrame):
        raise BufsizeError(f"expected a DataFrame, a sweep directory or a CSV/Parquet file, got "
                           f"{type(table).__name__}", argument="DIR")
    return table[table["status"] == "ok"] if "status" in table.columns else table


def _read(f: Path):
    import pandas as pd

    suffix = f.suffix.lower()
    with open(f, "rb") as fh:
        magic = fh.read(4)
    try:
        if magic == b"PAR1" or suffix in (".parquet", ".pq"):
            return pd.read_parquet(f)
        if suffix in (".csv", ".txt", ".tsv") or suffix == "":
            return pd.read_csv(f, sep="\t" if suffix == ".tsv" else ",")
    except Exception as exc:  # noqa: BLE001 - any reader error is a file the user gave us: one line
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BufsizeError(f"cannot read {str(f)!r} as a {'Parquet' if magic == b'PAR1' else 'CSV'} table: {first}",
                           argument="DIR") from None
    raise BufsizeError(f"{str(f)!r}: give a sweep directory, or a table of runs as .csv or .parquet",
                       argument="DIR")


# the old private name, kept for callers of it
_load = load_table


def select_rows(table: Any, where: Iterable[str]) -> Any:
    """Rows of ``table`` where each ``COLUMN=VALUE`` of ``where`` holds (numeric columns compare as
    numbers)."""
    import pandas as pd

    for cond in where:
        col, sep, value = str(cond).partition("=")
        col = col.strip()
        if not sep or col not in table.columns:
            known = ", ".join(c for c in table.columns if c not in ("key", "error", "status"))
            raise BufsizeError(f"{cond!r}: expected COLUMN=VALUE with a column of the table ({known})",
                               argument="--where")
        column = table[col]
        if pd.api.types.is_numeric_dtype(column):
            try:
                v: object = float(value)
            except ValueError:
                raise BufsizeError(f"{cond!r}: {col} is numeric", argument="--where") from None
        else:
            v = value.strip()
        table = table[column == v]
        if table.empty:
            raise BufsizeError(f"{cond!r}: no rows left", argument="--where")
    return table


def flow_segments(size: str | float | int | None) -> float | None:
    """A flow size as segments: ``30pkt`` or ``30``, or bytes (``45KB``) through 000's segment count."""
    if size is None:
        return None
    from bufsize import units

    q = units.parse_quantity(size, argument="--flow-size")
    if q.dimension in ("packets", "number"):
        return float(q.value)
    if q.dimension == "size":
        from bufsize.models import prasad

        return float(prasad.segments(q.value))
    raise BufsizeError(f"{size!r} is a {q.dimension}; give packets (30pkt) or bytes (45KB)", argument="--flow-size")


def _one_value(t, col: str, what: str) -> float:
    vals = t[col].dropna().unique() if col in t.columns else []
    if len(vals) != 1:
        raise BufsizeError(f"the fit needs one {what} for the whole table; it has {len(vals)} ({col})",
                           argument="DIR")
    return float(vals[0])


def fit_sweep(table, *, loss: str = "auto", delay: str | None = "linear", x: str = "buffer_packets",
              loss_column: str = "loss_rate", delay_column: str = "queue_delay_mean_s", confidence: float = 0.95,
              flow_segments: float | None = None, tolerance: float = 0.15) -> FitResult:
    """Fit a sweep table (or its directory) over the buffer; see the module docstring."""
    import numpy as np

    if loss not in ("pl", "ex", "auto"):
        raise BufsizeError(f"unknown loss form {loss!r} (pl, ex or auto)", argument="--loss")
    if delay not in (None, "linear", "none"):
        raise BufsizeError(f"unknown delay form {delay!r} (linear)", argument="--delay")
    t = load_table(table)
    for col in (x, loss_column):
        if col not in t.columns:
            known = ", ".join(str(c) for c in t.columns) or "none"
            raise BufsizeError(f"no column {col!r} in the table of runs (it has: {known})", argument="DIR")
    if t[x].isna().all():
        raise BufsizeError(f"the table has no {x} (buffers given in bytes or unlimited?)", argument="DIR")
    res = FitResult(None)
    forms = ("pl", "ex") if loss == "auto" else (loss,)
    for form in forms:
        res.fits[form] = fit_loss(t[x], t[loss_column], form, confidence)
    if loss == "auto":
        best, res.reason = choose(res.fits)
    else:
        best, res.reason = loss, f"{loss.upper()} form as asked"
    res.loss = res.fits[best]
    if res.loss.left_out_zero:
        n0 = res.loss.left_out_zero
        res.notes.append(f"{n0} run{'s' if n0 != 1 else ''} without any loss left out of the loss fit (ln 0)")
    if delay == "linear":
        C = _one_value(t, "capacity_pps", "bottleneck capacity")
        res.delay = fit_delay(t[x], t[delay_column], C, confidence, tolerance)
        To = _one_value(t, "rtt_mean_s", "mean RTT")
        b_max = res.delay.cutoff_packets
        res.optimal = optimal_buffers(res.loss, res.delay.f.value, C, To, flow_segments=flow_segments, B_max=b_max)
        judge_range(res, flow_segments)
        if np.nanmax(t[x]) > b_max:
            res.notes.append(f"delay linear up to {b_max:g} pkt (cutoff); larger buffers left out of the f fit")
    return res


def report(res: FitResult) -> str:
    lines = []
    for form, fit in res.fits.items():
        mark = "*" if res.loss is fit else " "
        lines.append(f"{mark} {form.upper()}  {fit.formula():<18} a = {fit.a}   b = {fit.b}   R² = {fit.r2:.4f}  "
                     f"({fit.n} runs, {fit.confidence:.0%} intervals)")
    lines.append(f"choice    {res.reason}")
    if res.delay is not None:
        d = res.delay
        lines.append(f"delay     d(B) = f·B/C: f = {d.f}   R² = {d.r2:.4f}  (linear up to {d.cutoff_packets:g} pkt, "
                     f"C = {d.capacity_pps:.4g} pkt/s)")
    if res.optimal:
        o = res.optimal
        rng = o.get("fitted_range_packets")
        where = (f"fitted buffers {rng[0]:g}–{rng[1]:g} pkt" if rng else "no buffer in both fits") if "fitted_range_packets" in o else ""
        lines.append(f"optimum   paper 000 with the fitted a, b, f: C·To = {o['C_To_packets']:.1f} pkt" +
                     (f", {where}" if where else ""))
        for model in ("L", "S"):
            v = o.get(model)
            if v is None:
                continue
            text = f"{model}-model B̂ = {_pkt(v)} pkt"
            if model == "S":
                text += f" for flows of {o['S_flow_segments']:g} segments"
            if o.get(f"{model}_inside_fitted_range") is False:
                text += (f"  OUTSIDE the fitted range {rng[0]:g}–{rng[1]:g} pkt (extrapolated; best inside it: "
                         f"{_pkt(o[f'{model}_best_inside_fitted_range'])} pkt)" if rng else
                         "  extrapolated (no buffer in both fits)")
            if model == "L" and "L_paper_rule" in o:
                text += f" (§VII-B.1 rule: {'0' if o['L_paper_rule'] == 0 else 'unbounded'})"
            lines.append("          " + text)
        if o.get("L_note"):
            lines.append(f"          L-model: {o['L_note']}")
        if o.get("S_note"):
            lines.append(f"          S-model: {o['S_note']}")
    for w in res.warnings:
        lines.append(f"warning   {w}")
    for n in res.notes:
        lines.append(f"note      {n}")
    return "\n".join(lines)
