"""How a recommendation looks: at the Python prompt (one line), in Jupyter (HTML), as a DataFrame."""

from __future__ import annotations

import html
import math
from typing import TYPE_CHECKING, Any

from bufsize import units
from bufsize.display import html_table, num_text

if TYPE_CHECKING:
    import pandas as pd

    from bufsize.recommendation.result import Recommendation

__all__ = ["recommendation_frame", "recommendation_repr", "recommendation_html"]


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
    return (f"{num_text(b)} packets = {units.format_size(r['buffer_bytes'])}, "
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
    how = ".to_frame()"
    v = _verified(rec)
    ver = ""
    if v is not None and getattr(v, "buffer_packets", None) is not None:
        ver = f"; verified on the simulator: {num_text(v.buffer_packets)} packets"
    return (f"<Recommendation {_link_text(rec)}: {_size_text(rec)}{ver}; {len(rec.models)} models "
            f"({how} for the table)>")


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
        row = [m.id, m.equation, m.goal, "yes" if m.applies else "no", num_text(m.buffer_packets),
               "–" if m.queueing_delay_s is None else units.format_time(m.queueing_delay_s)]
        if v is not None:
            row.append(str((verdicts.get(m.id) or {}).get("verdict") or "–"))
        rows.append(row + [m.reason])
    header = ["model", "equation", "goal", "applies", "buffer (pkt)", "delay"] + \
        (["on the simulator"] if v is not None else []) + ["why"]
    statement = str(getattr(v, "statement", "") or "") if v is not None else ""
    skipped = getattr(rec, "verify_skipped", None)
    pred = rec.predicted
    pred_txt = ", ".join(f"{k} {num_text(v, 3)}" for k, v in pred.items() if isinstance(v, (int, float)))
    return (f"<div><b>bufsize recommendation</b> for {html.escape(_link_text(rec))}<br>"
            f"<b>Recommended: {html.escape(_size_text(rec))}</b>"
            f"<ul style='margin:4px 0'>{reasons}</ul>"
            + (f"<div><b>Verified:</b> {html.escape(statement)}</div>" if statement else "")
            + (f"<div>Not verified: {html.escape(str(skipped))}</div>" if skipped else "")
            + (f"<div>Predicted at this size: {html.escape(pred_txt)}</div>" if pred_txt else "")
            + html_table(header, rows, chosen)
            + "</div>")
