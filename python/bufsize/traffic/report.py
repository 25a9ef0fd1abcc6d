"""Text and plots of a traffic profile (``bufsize traffic summarize``)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from bufsize.traffic.profile import Profile, quantile


def _rate(bps: float) -> str:
    if not math.isfinite(bps):
        return "?"
    for unit, div in (("Gb/s", 1e9), ("Mb/s", 1e6), ("kb/s", 1e3)):
        if bps >= div:
            return f"{bps / div:.3g} {unit}"
    return f"{bps:.3g} b/s"


def _bytes(b: float) -> str:
    if not math.isfinite(b):
        return "?"
    for unit, div in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if b >= div:
            return f"{b / div:.3g} {unit}"
    return f"{b:.0f} B"


def _ms(s: float) -> str:
    return "?" if not math.isfinite(s) else f"{s * 1e3:.3g} ms"


def text(p: Profile, meta: dict[str, Any] | None = None) -> str:
    meta = meta or {}
    name = "standard input" if p.source == "-" else Path(p.source).name
    lines = [f"warning: {w}" for w in p.warnings]
    lines += [f"traffic profile of {name} ({p.kind}"
             + (f", {meta.get('format')}" if meta.get("format") else "") + f", {p.duration_s:.3g} s)"]
    rows: list[tuple[str, str]] = []
    used = _input_used(p)
    if used:
        rows.append(("input used", used))
    if meta.get("frames"):
        rows.append(("frames", f"{int(meta['frames']):,} ({int(meta.get('tcp_packets', 0)):,} TCP, "
                               f"{int(meta.get('udp_packets', 0)):,} UDP, {int(meta.get('not_ip', 0)):,} not IP)"))
    dir_text = "initiator -> responder" if p.direction == "fwd" else "responder -> initiator"
    rows += [
        ("measured direction", f"{dir_text} (the one carrying more bytes)"),
        ("flows", f"{p.flows_total:,} ({p.tcp_flows:,} TCP, {p.udp_flows:,} UDP); "
                  f"{p.completed_transfers:,} complete TCP transfers"),
        ("long-lived TCP flows", f"{p.long_flows} (active >= half the capture), {_rate(p.long_load_bps)}"
                                 + (f"; {p.idle_flows} idle or interactive set aside" if p.idle_flows else "")),
        ("short TCP flows", f"{p.short_flows:,} at {p.arrival_rate_per_s:.3g}/s, {_rate(p.short_load_bps)}"),
        ("offered load", f"mean {_rate(p.mean_rate_bps)}, highest 1-s {_rate(p.peak_rate_bps)}"
                         + (f" = {p.mean_rate_bps / p.capacity_bps:.1%} of {_rate(p.capacity_bps)}"
                            if p.capacity_bps else "")),
        ("active flows", f"mean {p.active_flows_mean:.3g}, max {p.active_flows_max}"),
        ("flows carrying most bytes", f"{p.flows_for_half_bytes} carry half, {p.flows_for_90pct_bytes} carry 90 %"),
        ("UDP", f"{p.udp_share:.1%} of bytes, {_rate(p.udp_rate_bps)}"),
        ("RTT per flow", f"p10 {_ms(quantile(p.rtt_cdf, 0.1))}, median {_ms(quantile(p.rtt_cdf, 0.5))}, "
                         f"p90 {_ms(quantile(p.rtt_cdf, 0.9))}"),
        ("RTT byte-weighted", f"p10 {_ms(quantile(p.rtt_cdf_bytes, 0.1))}, median "
                              f"{_ms(quantile(p.rtt_cdf_bytes, 0.5))}, p90 {_ms(quantile(p.rtt_cdf_bytes, 0.9))}"),
        ("short-flow size", "none (no short TCP flows)" if not p.short_flows else
         f"mean {_bytes(p.size_mean_bytes)}, median {_bytes(quantile(p.size_cdf, 0.5))}, "
         f"p90 {_bytes(quantile(p.size_cdf, 0.9))}"),
        ("segment", f"{p.mss_bytes:.0f} B payload + {p.frame_overhead_bytes:.0f} B headers"
                    + (", TCP timestamps" if p.timestamps else "")),
        ("retransmitted segments", f"{p.retrans_rate:.2%}"),
        ("limited by", ", ".join(f"{k} {v}" for k, v in sorted(p.limits.items(), key=lambda kv: -kv[1])) or "-"),
    ]
    w = max(len(k) for k, _ in rows)
    lines += [f"  {k:<{w}}  {v}" for k, v in rows]
    if p.long_rtts_s:
        shown = ", ".join(_ms(x) for x in p.long_rtts_s[:12]) + (" ..." if len(p.long_rtts_s) > 12 else "")
        how = (f" (smallest samples; {p.long_midstream} without their handshake)" if p.long_midstream
               else " (smallest samples, handshakes included)" if p.kind == "capture" else "")
        lines.append(f"  {'long flows RTTs':<{w}}  {shown}{how}")
        q = [x for x in p.long_queue_s if math.isfinite(x)]
        if q:
            shown_q = ", ".join(_ms(x) for x in p.long_queue_s[:12]) + (" ..." if len(p.long_queue_s) > 12 else "")
            lines.append(f"  {'queueing above them':<{w}}  {shown_q} (typical sample minus smallest; not in the RTTs)")
    if p.notes:
        lines.append("notes:")
        lines += [f"  - {n}" for n in p.notes]
    if p.not_inferred:
        lines.append("not inferred from the input:")
        lines += [f"  - {n}" for n in p.not_inferred]
    return "\n".join(lines)


def _input_used(p: Profile) -> str:
    """How much of the input the profile is built from ("" for a profile saved before this was kept)."""
    u = p.input_used or {}
    if "flows_read" not in u:
        return ""
    text = f"{u['flows_used']:,} of {u['flows_read']:,} flows"
    if u.get("excluded"):
        text += " (" + ", ".join(f"{n:,} left out: {why}" for why, n in u["excluded"].items()) + ")"
    if u.get("file_size") and u.get("position") is not None:
        text += f"; {u['position'] / u['file_size']:.1%} of the file read"
    unused = int(u.get("time_outliers", 0)) + int(u.get("bad_lengths", 0))
    if unused:
        text += f"; {unused:,} frames not used"
    return text


def plot(p: Profile, path: str | Path) -> None:
    """Three panels: load over time, short-flow size CDF, RTT CDFs (per flow and byte-weighted).
    Written atomically (PNG/PDF/SVG by suffix)."""
    import matplotlib.pyplot as plt

    fig = figure(p)
    from bufsize._atomic import temp_path

    try:
        with temp_path(Path(path)) as tmp:  # removed if the write fails (a full disk)
            fig.savefig(tmp, dpi=110)
    finally:
        plt.close(fig)


def figure(p: Profile) -> Any:
    """The figure :func:`plot` writes (a matplotlib Figure on the Agg backend; close it when done)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(1, 3, figsize=(13, 3.6))
    t, r = p.load_series["t_s"], p.load_series["rate_bps"]
    ax[0].step(t, [x / 1e6 for x in r], where="post")
    if p.capacity_bps:
        ax[0].axhline(p.capacity_bps / 1e6, ls="--", color="gray", lw=0.8, label="capacity")
        ax[0].legend()
    ax[0].set(xlabel="time (s)", ylabel="Mb/s (1-s bins)", title="offered load")
    if p.size_cdf["values"]:
        ax[1].step(p.size_cdf["values"], p.size_cdf["cdf"], where="post")
        ax[1].set_xscale("log")
    ax[1].set(xlabel="bytes", ylabel="CDF", title=f"short-flow sizes ({p.short_flows})")
    for cdf, lab in ((p.rtt_cdf, "per flow"), (p.rtt_cdf_bytes, "byte-weighted")):
        if cdf["values"]:
            ax[2].step([v * 1e3 for v in cdf["values"]], cdf["cdf"], where="post", label=lab)
    ax[2].set(xlabel="RTT (ms)", ylabel="CDF", title="path RTT (TCP flows)")
    ax[2].legend()
    fig.tight_layout()
    from bufsize.plots._ticks import untangle_ticks

    untangle_ticks(fig)   # a narrow axis (RTTs within a microsecond) gets long labels at every tick
    fig.tight_layout()
    return fig
