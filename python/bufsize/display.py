"""How a simulation looks in a notebook and at the Python prompt, and the small helpers every display
shares (numbers for people, plain HTML tables).

:class:`~bufsize.simulate.SimResult` delegates its ``__repr__`` (one short line) and ``_repr_html_``
(what Jupyter shows) here; a recommendation's displays are in :mod:`bufsize.recommendation.display`.
The HTML is plain tables with escaped text, no scripts and no external styles.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bufsize import units

if TYPE_CHECKING:
    from bufsize.simulate import SimResult

__all__ = ["num_text", "html_table", "simresult_repr", "simresult_html"]

_STYLE = "border-collapse:collapse;font-size:90%"
_CELL = "padding:2px 8px;text-align:left;vertical-align:top"


def num_text(x: Any, digits: int = 4) -> str:
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


def html_table(header: list[str], rows: list[list[str]], highlight: set[int] | None = None) -> str:
    highlight = highlight or set()
    head = "".join(f"<th style='{_CELL}'>{html.escape(h)}</th>" for h in header)
    body = []
    for i, row in enumerate(rows):
        style = " style='font-weight:bold;background:rgba(255,200,0,0.18)'" if i in highlight else ""
        cells = "".join(f"<td style='{_CELL}'>{html.escape(c)}</td>" for c in row)
        body.append(f"<tr{style}>{cells}</tr>")
    return (f"<table style='{_STYLE}'><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>")


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
            + html_table(["", ""], rows)
            + f"<div>DataFrames: {html.escape(tables)}; <code>.summary</code> has every scalar.</div>"
            + ("" if ok else "<div><b>warning: the packet-conservation check failed</b></div>")
            + "</div>")
