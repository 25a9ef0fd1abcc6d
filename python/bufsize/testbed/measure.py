"""Turn the raw records of a run into the simulator's summary fields and per-flow tables.

Inputs are plain arrays (from the sampler, the receiver and the sender), so this is tested
without root. The measurement window is ``[t0 + warmup, t0 + duration]``; counters are
interpolated linearly between samples at its edges (samples are milliseconds apart).
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from bufsize.testbed.config import TestbedConfig
from bufsize.testbed.procstat import windowed_max
from bufsize.testbed.stats import jain_fairness

FLOW_COLUMNS = ("id", "cc", "rtt_s", "start_s", "goodput_bps", "bytes_acked", "retransmits", "timeouts",
                "mean_cwnd", "mean_rtt_s", "min_rtt_s")


def counter_delta(t: np.ndarray, v: np.ndarray, a: float, b: float) -> float:
    """Increase of a cumulative counter ``v`` sampled at ``t`` between times ``a`` and ``b``."""
    if len(t) == 0:
        return math.nan
    return float(np.interp(b, t, v) - np.interp(a, t, v))


def queue_summary(q_t: np.ndarray, q_len: np.ndarray, a: float, b: float, limit: int) -> dict[str, Any]:
    """Mean, spread, histogram and empty/full fractions of the sampled queue in ``[a, b]``.

    The samples are equally spaced, so their plain mean is the time average (approximately: a
    sampler that falls behind leaves a gap, which the fraction of missed samples reports).
    """
    m = (q_t >= a) & (q_t <= b)
    x = q_len[m]
    if len(x) == 0:
        return {"mean_queue_packets": math.nan, "queue_std_packets": math.nan, "max_queue_packets": 0,
                "frac_time_queue_empty": math.nan, "frac_time_queue_full": math.nan, "queue_samples": 0,
                "histogram": np.zeros(limit + 1)}
    hist = np.bincount(np.clip(x, 0, limit), minlength=limit + 1) / len(x)
    return {"mean_queue_packets": float(x.mean()), "queue_std_packets": float(x.std()),
            "max_queue_packets": int(q_len.max()),
            "frac_time_queue_empty": float((x == 0).mean()), "frac_time_queue_full": float((x >= limit).mean()),
            "queue_samples": int(len(x)), "histogram": hist}


def utilization_series(q_t: np.ndarray, q_bytes: np.ndarray, a: float, b: float, rate_bps: float,
                       interval: float) -> pd.DataFrame:
    """Utilization of each whole ``interval`` in ``[a, b]`` from the bottleneck's cumulative byte
    counter (interpolated at the interval edges): ``t_s`` (interval start) and ``utilization``."""
    n = int(math.floor((b - a) / interval + 1e-9))
    if n < 1 or len(q_t) == 0:
        return pd.DataFrame({"t_s": [], "utilization": []})
    edges = a + interval * np.arange(n + 1)
    sent = np.interp(edges, q_t, q_bytes)
    return pd.DataFrame({"t_s": edges[:-1], "utilization": np.diff(sent) * 8 / (rate_bps * interval)})


def cpu_summary(c_t, c_steal, c_total, c_busy, c_pid, names: Sequence[str], clk_tck: int, a: float, b: float,
                ncpu: int, c_busy_normal=None, c_wait=None) -> dict[str, Any]:
    """Steal (mean and worst 1-s window), machine busy fractions, per-process CPU use and
    run-queue waiting (fraction of wall time each process was runnable but not running) in ``[a, b]``."""
    c_t = np.asarray(c_t, dtype=float)
    m = (c_t >= a) & (c_t <= b)
    idx = np.flatnonzero(m)
    if len(idx) < 2:
        return {"steal_mean": math.nan, "steal_window_max": math.nan, "machine_busy": math.nan,
                "machine_busy_normal": math.nan, "process_cpu": {}, "process_wait": {}}
    i0, i1 = idx[0], idx[-1]
    dt_ticks = c_total[i1] - c_total[i0]
    steal_mean = (c_steal[i1] - c_steal[i0]) / dt_ticks if dt_ticks > 0 else 0.0
    busy = (c_busy[i1] - c_busy[i0]) / dt_ticks if dt_ticks > 0 else 0.0
    busy_n = ((c_busy_normal[i1] - c_busy_normal[i0]) / dt_ticks if dt_ticks > 0 else 0.0) \
        if c_busy_normal is not None else busy
    wmax = windowed_max(list(c_t[idx]), list(c_steal[idx]), list(c_total[idx]), 1.0)
    wall = c_t[i1] - c_t[i0]
    proc, wait = {}, {}
    for k, name in enumerate(names):
        t0, t1 = c_pid[i0][k], c_pid[i1][k]
        proc[name] = (t1 - t0) / clk_tck / wall if t0 >= 0 and t1 >= 0 and wall > 0 else math.nan
        if c_wait is not None:
            w0, w1 = c_wait[i0][k], c_wait[i1][k]
            wait[name] = (w1 - w0) * 1e-9 / wall if w0 >= 0 and w1 >= 0 and wall > 0 else math.nan
    return {"steal_mean": float(steal_mean), "steal_window_max": float(wmax), "machine_busy": float(busy),
            "machine_busy_normal": float(busy_n), "process_cpu": proc, "process_wait": wait, "ncpu": ncpu}


def flow_table(cfg: TestbedConfig, recv: Mapping, send: Mapping, a: float, b: float) -> pd.DataFrame:
    """One row per long-lived flow: goodput at the receiver, TCP_INFO aggregates at the sender."""
    st = np.asarray(recv.get("sample_t", []), dtype=float)
    samples = np.asarray(recv.get("samples", []), dtype=float).reshape(len(st), -1) if len(st) else np.zeros((0, 0))
    cols = send.get("tcpinfo_columns", [])
    ti = pd.DataFrame(send.get("tcpinfo", []), columns=cols) if cols else pd.DataFrame()
    T = b - a
    rows = []
    for i, f in enumerate(cfg.flows):
        nbytes = counter_delta(st, samples[:, i], a, b) if samples.size else math.nan
        row = {"id": i, "cc": f.cc, "rtt_s": f.rtt_s, "start_s": f.start_s,
               "goodput_bps": nbytes * 8 / T if T > 0 else math.nan, "bytes_acked": nbytes,
               "retransmits": math.nan, "timeouts": math.nan, "mean_cwnd": math.nan, "mean_rtt_s": math.nan,
               "min_rtt_s": math.nan}
        if len(ti):
            fi = ti[(ti["flow"] == i)]
            w = fi[(fi["t"] >= a) & (fi["t"] <= b)]
            if len(w):
                before = fi[fi["t"] < a]
                base = before["total_retrans"].iloc[-1] if len(before) else 0
                row["retransmits"] = float(w["total_retrans"].iloc[-1] - base)
                row["mean_cwnd"] = float(w["snd_cwnd"].mean())
                row["mean_rtt_s"] = float(w["rtt_us"].mean() * 1e-6)
                row["min_rtt_s"] = float(w["min_rtt_us"].min() * 1e-6)
        rows.append(row)
    return pd.DataFrame(rows, columns=list(FLOW_COLUMNS))


def cwnd_sum_mean(send: Mapping, a: float, b: float, n_flows: int) -> float:
    """Mean over the TCP_INFO sampling instants in the window of the sum of all flows' cwnd."""
    cols = send.get("tcpinfo_columns", [])
    if not cols or not send.get("tcpinfo"):
        return math.nan
    ti = pd.DataFrame(send["tcpinfo"], columns=cols)
    w = ti[(ti["t"] >= a) & (ti["t"] <= b)]
    if w.empty:
        return math.nan
    # one sampling instant = one pass over all flows; rows of a pass share (almost) one time
    w = w.assign(k=(w["flow"] == 0).cumsum() if n_flows > 1 else np.arange(len(w)))
    return float(w.groupby("k")["snd_cwnd"].sum().mean())


def user_table(cfg: TestbedConfig, recv: Mapping, a: float, b: float) -> pd.DataFrame:
    """User transfers that finished inside the window (flow completion time at the receiver:
    last byte minus accept, i.e. from the end of the handshake)."""
    rows = [dict(r) for r in recv.get("transfers", []) if r.get("complete") and a <= r["t_last"] <= b]
    df = pd.DataFrame(rows, columns=["user", "size", "received", "t_accept", "t_first", "t_last", "complete"])
    df["fct_s"] = df["t_last"] - df["t_accept"]
    return df


def summarize(cfg: TestbedConfig, sampler: Mapping[str, np.ndarray], recv: Mapping, send: Mapping,
              t0: float, netstat_delta: Mapping[str, int]) -> tuple[dict[str, Any], dict[str, pd.DataFrame]]:
    """Summary dict (the simulator's field names where they mean the same) and the tables."""
    a, b = t0 + cfg.warmup_s, t0 + cfg.duration_s
    T = b - a
    q_t = np.asarray(sampler["q_t"], dtype=float)
    q = queue_summary(q_t, np.asarray(sampler["q_len"]), a, b, cfg.buffer_packets)
    sent_bytes = counter_delta(q_t, sampler["q_bytes"], a, b)
    sent_pkts = counter_delta(q_t, sampler["q_pkts"], a, b)
    drops = counter_delta(q_t, sampler["q_drops"], a, b)
    flows = flow_table(cfg, recv, send, a, b)
    users = user_table(cfg, recv, a, b)
    g = flows["goodput_bps"].to_numpy(dtype=float)
    expected = T / cfg.queue_sample_s
    summary: dict[str, Any] = {
        "utilization": sent_bytes * 8 / (cfg.rate_bps * T),
        "loss_rate": drops / (sent_pkts + drops) if sent_pkts + drops > 0 else 0.0,
        "drops": int(round(drops)),
        "mean_queue_packets": q["mean_queue_packets"],
        "queue_std_packets": q["queue_std_packets"],
        "max_queue_packets": q["max_queue_packets"],
        "bottleneck_packets": int(round(sent_pkts)),
        "bottleneck_bytes": int(round(sent_bytes)),
        "goodput_bps_mean": float(np.mean(g)) if len(g) else math.nan,
        "goodput_bps_total": float(np.sum(g)) if len(g) else math.nan,
        "jain_fairness": jain_fairness(g) if len(g) else math.nan,
        "timeouts": int(netstat_delta.get("TCPTimeouts", 0)),
        "fast_retransmits": int(netstat_delta.get("TCPFastRetrans", 0)),
        "retransmitted_segments": int(netstat_delta.get("RetransSegs", 0)),
        "frac_time_queue_empty": q["frac_time_queue_empty"],
        "frac_time_queue_full": q["frac_time_queue_full"],
        "cwnd_sum_mean": cwnd_sum_mean(send, a, b, len(cfg.flows)),
        "queue_samples": q["queue_samples"],
        "queue_samples_missed_frac": max(0.0, 1 - q["queue_samples"] / expected) if expected > 0 else math.nan,
        "max_backlog_bytes": int(np.max(sampler["q_backlog"])) if len(sampler["q_backlog"]) else 0,
        "users_completed": int(len(users)),
        "fct_mean_s": float(users["fct_s"].mean()) if len(users) else math.nan,
        "window_s": T,
        "window_start_s": a,   # CLOCK_MONOTONIC time of the window's start (the user records' clock)
        "rate_bps": cfg.rate_bps,
        "buffer_packets": cfg.buffer_packets,
        "bdp_packets": cfg.bdp_packets,
        "flows": len(cfg.flows),
        "users": len(cfg.users),
        "mean_rtt_measured_s": float(flows["mean_rtt_s"].mean()) if len(flows) else math.nan,
    }
    hist = pd.DataFrame({"packets": np.arange(len(q["histogram"])), "fraction": q["histogram"]})
    util_1s = utilization_series(q_t, np.asarray(sampler["q_bytes"], dtype=float), a, b, cfg.rate_bps, 1.0)
    util_1s["t_s"] = util_1s["t_s"] - t0
    cols = send.get("tcpinfo_columns", [])
    tcpinfo = pd.DataFrame(send.get("tcpinfo", []), columns=cols) if cols else pd.DataFrame()
    if len(tcpinfo):
        tcpinfo["t"] = tcpinfo["t"] - t0
    return summary, {"flows": flows, "users": users, "queue_histogram": hist, "tcpinfo": tcpinfo,
                     "utilization_1s": util_1s}


def parse_netstat(text: str) -> dict[str, int]:
    """``/proc/net/netstat`` + ``/proc/net/snmp`` text (header/value line pairs) -> {name: value}.

    Names from both TcpExt and Tcp are merged (they do not collide in the fields used here).
    """
    out: dict[str, int] = {}
    lines = [l for l in text.splitlines() if l.strip()]
    for h, v in zip(lines[::2], lines[1::2]):
        hp, vp = h.split(), v.split()
        if not hp or not vp or hp[0] != vp[0]:
            continue
        for k, x in zip(hp[1:], vp[1:]):
            try:
                out[k] = int(x)
            except ValueError:
                pass
    return out
