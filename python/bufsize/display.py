"""How results look in a notebook and at the Python prompt.

:class:`~bufsize.recommendation.Recommendation` and :class:`~bufsize.simulate.SimResult` delegate
their ``__repr__`` (one short line) and ``_repr_html_`` (what Jupyter shows: a summary and a
table) to the functions here, so the result classes stay small and every display is in one place.
The HTML is plain tables with escaped text, no scripts and no external styles.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bufsize import units

if TYPE_CHECKING:
    import pandas as pd

    from bufsize.recommendation import Recommendation
    from bufsize.simulate import SimResult

__all__ = ["recommendation_frame", "recommendation_repr", "recommendation_html", "simresult_repr",
           "simresult_html"]

_STYLE = "border-collapse:collapse;font-size:90%"
_CELL = "padding:2px 8px;text-align:left;vertical-align:top"


def _num(x: Any, digits: int = 4) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "–"
    if isinstance(x, float) and math.isinf(x):
        return "∞"
    if isinstance(x, (int, float)):
        v = float(x)
        if abs(v) >= 1000:
            return f"{v:,.0f}"
        return f"{v:.{digits}g}"
    return str(x)


def _rtt_text(rec: Recommendation) -> str:
    inp = rec.input
    if inp.rtt_distribution == "uniform":
        return f"RTT {units.format_time(inp.rtt_min_s)}..{units.format_time(inp.rtt_max_s)}"
    if inp.rtt_distribution == "list" and inp.rtt_list_s:
        return "RTTs " + ", ".join(units.format_time(t) for t in inp.rtt_list_s)
    return f"RTT {units.format_time(inp.rtt_s)}"


def _link_text(rec: Recommendation) -> str:
    inp = rec.input
    parts = [units.format_rate(inp.capacity_bps), _rtt_text(rec)]
    if inp.flows is not None:
        parts.append(f"{inp.flows:,} flow{'s' if inp.flows != 1 else ''}")
    if inp.mix:
        parts.append("mix " + ", ".join(f"{k} {v:.0%}" for k, v in inp.mix.items()))
    return ", ".join(parts)


def _size_text(rec: Recommendation) -> str:
    r = rec.recommended
    b = r.get("buffer_packets")
    if b is None or not math.isfinite(b):
        return "no finite size"
    return (f"{_num(b)} packets = {units.format_size(r['buffer_bytes'])}, "
            f"{units.format_time(r['queueing_delay_s'])} of queueing when full ({r['id']})")


def recommendation_frame(rec: Recommendation) -> pd.DataFrame:
    """One row per model: id, paper, equation, goal, whether it applies and why, its buffer in
    packets, bytes and queueing time, and whether it is the recommended size."""
    import pandas as pd

    rows = []
    for m in rec.models:
        rows.append({"model": m.id, "paper": m.paper, "equation": m.equation, "goal": m.goal,
                     "applies": m.applies, "buffer_packets": m.buffer_packets, "buffer_bytes": m.buffer_bytes,
                     "queueing_delay_s": m.queueing_delay_s, "recommended": m.id == rec.recommended.get("id"),
                     "reason": m.reason})
    return pd.DataFrame(rows, columns=["model", "paper", "equation", "goal", "applies", "buffer_packets",
                                       "buffer_bytes", "queueing_delay_s", "recommended", "reason"])


def _verified(rec: Recommendation) -> Any:
    return getattr(rec, "verified", None)


def recommendation_repr(rec: Recommendation) -> str:
    """One line: the link, the size and who set it (and the verified size, when verified)."""
    how = ".to_frame()" if hasattr(rec, "to_frame") else "bufsize.display.recommendation_frame(rec)"
    v = _verified(rec)
    ver = ""
    if v is not None and getattr(v, "buffer_packets", None) is not None:
        ver = f"; verified on the simulator: {_num(v.buffer_packets)} packets"
    return (f"<Recommendation {_link_text(rec)}: {_size_text(rec)}{ver}; {len(rec.models)} models "
            f"({how} for the table)>")


def _table(header: list[str], rows: list[list[str]], highlight: set[int] | None = None) -> str:
    highlight = highlight or set()
    head = "".join(f"<th style='{_CELL}'>{html.escape(h)}</th>" for h in header)
    body = []
    for i, row in enumerate(rows):
        style = " style='font-weight:bold;background:rgba(255,200,0,0.18)'" if i in highlight else ""
        cells = "".join(f"<td style='{_CELL}'>{html.escape(c)}</td>" for c in row)
        body.append(f"<tr{style}>{cells}</tr>")
    return (f"<table style='{_STYLE}'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")


def recommendation_html(rec: Recommendation) -> str:
    """The size and its reasons, then the per-model table (the recommended model in bold)."""
    r = rec.recommended
    reasons = "".join(f"<li>{html.escape(str(t))}</li>" for t in r.get("reasons", []))
    v = _verified(rec)
    verdicts: dict[str, Any] = dict(getattr(v, "verdicts", None) or {}) if v is not None else {}
    rows, chosen = [], set()
    for i, m in enumerate(rec.models):
        if m.id == r.get("id"):
            chosen.add(i)
        row = [m.id, m.equation, m.goal, "yes" if m.applies else "no", _num(m.buffer_packets),
               "–" if m.queueing_delay_s is None else units.format_time(m.queueing_delay_s)]
        if v is not None:
            row.append(str((verdicts.get(m.id) or {}).get("verdict") or "–"))
        rows.append(row + [m.reason])
    header = ["model", "equation", "goal", "applies", "buffer (pkt)", "delay"] + \
        (["on the simulator"] if v is not None else []) + ["why"]
    statement = str(getattr(v, "statement", "") or "") if v is not None else ""
    skipped = getattr(rec, "verify_skipped", None)
    pred = rec.predicted
    pred_txt = ", ".join(f"{k} {_num(v, 3)}" for k, v in pred.items() if isinstance(v, (int, float)))
    return (f"<div><b>bufsize recommendation</b> for {html.escape(_link_text(rec))}<br>"
            f"<b>Recommended: {html.escape(_size_text(rec))}</b>"
            f"<ul style='margin:4px 0'>{reasons}</ul>"
            + (f"<div><b>Verified:</b> {html.escape(statement)}</div>" if statement else "")
            + (f"<div>Not verified: {html.escape(str(skipped))}</div>" if skipped else "")
            + (f"<div>Predicted at this size: {html.escape(pred_txt)}</div>" if pred_txt else "")
            + _table(header, rows, chosen)
            + "</div>")


_SIM_ROWS: list[tuple[str, str, Callable[[float], str]]] = [
    ("utilization", "utilization", lambda v: f"{v * 100:.2f} %"),
    ("loss rate", "loss_rate", lambda v: f"{v * 100:.3g} %"),
    ("mean queue", "mean_queue_packets", lambda v: f"{v:.1f} pkt"),
    ("queue delay, mean", "queue_delay_mean_s", units.format_time),
    ("queue delay, p99", "queue_delay_p99_s", units.format_time),
    ("goodput, total", "goodput_bps_total", units.format_rate),
    ("goodput per flow", "goodput_bps_mean", units.format_rate),
    ("Jain fairness", "jain_fairness", lambda v: f"{v:.3f}"),
    ("timeouts", "timeouts", lambda v: f"{v:.0f}"),
    ("wall time", "wall_seconds", lambda v: f"{v:.2f} s"),
]


def _sim_scenario_text(res: SimResult) -> str:
    sc = res.scenario
    try:
        lim = sc.buffer_limit
        buf = (f"{lim['limit_packets']} pkt" if "limit_packets" in lim else
               units.format_size(lim["limit_bytes"]) if "limit_bytes" in lim else "unlimited")
        return (f"{sc.n_flows} flow{'s' if sc.n_flows != 1 else ''}, buffer {buf}, {sc.duration_s:g} s "
                f"(measured after {sc.warmup_s:g} s), seed {sc.seed}")
    except Exception:  # noqa: BLE001 - a scenario without a single bottleneck: say less, never fail to display
        return "scenario"


def simresult_repr(res: SimResult) -> str:
    """One line: the scenario and the headline numbers."""
    s = res.summary

    def get(key: str, fmt: Callable[[float], str]) -> str:
        v = s.get(key)
        return "n/a" if not isinstance(v, (int, float)) or (isinstance(v, float) and math.isnan(v)) else fmt(v)

    return (f"<SimResult {_sim_scenario_text(res)}: utilization {get('utilization', lambda v: f'{v:.4f}')}, "
            f"loss {get('loss_rate', lambda v: f'{v:.3g}')}, queue delay "
            f"{get('queue_delay_mean_s', units.format_time)}>")


def simresult_html(res: SimResult) -> str:
    """The scenario line, the headline numbers, and the tables a run has (with their sizes)."""
    s = res.summary
    rows = []
    for label, key, fmt in _SIM_ROWS:
        v = s.get(key)
        if isinstance(v, (int, float)) and not (isinstance(v, float) and math.isnan(v)):
            rows.append([label, fmt(v)])
    tables = ", ".join(f"{name} ({len(df)})" for name, df in res.tables().items() if len(df))
    ok = s.get("conservation_ok", True)
    return (f"<div><b>bufsize simulation</b>: {html.escape(_sim_scenario_text(res))}"
            + _table(["", ""], rows)
            + f"<div>DataFrames: {html.escape(tables)}; <code>.summary</code> has every scalar.</div>"
            + ("" if ok else "<div><b>warning: the packet-conservation check failed</b></div>")
            + "</div>")
