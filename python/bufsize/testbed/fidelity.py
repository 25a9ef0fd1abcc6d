"""Fidelity checks: is this run a faithful experiment? Pure functions over collected data.

Each check returns a :class:`Check` (name, passed, measured value, limit, reason). A run is
reported only if every check passed; otherwise the runner repeats it (a bounded number of times)
and finally reports it as *rejected* with the reasons.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Iterable, Mapping, Sequence

from bufsize.testbed.config import Limits
from bufsize.testbed.tcjson import LinkCounters, Qdisc, second_queues


@dataclass(frozen=True)
class Check:
    name: str
    passed: bool
    value: str
    limit: str
    reason: str = ""

    def to_dict(self) -> dict:
        return asdict(self)


def check_queue_inventory(qdiscs: Sequence[Qdisc], bottleneck_dev: str) -> Check:
    """Only the bottleneck may hold packets: every other qdisc must be ``noqueue``."""
    reasons = second_queues(qdiscs, bottleneck_dev)
    kinds = ", ".join(sorted({f"{q.dev}:{q.kind}" for q in qdiscs if q.dev != "lo"}))
    return Check("queue_inventory", not reasons, kinds, f"only htb+pfifo on {bottleneck_dev}, noqueue elsewhere",
                  "; ".join(reasons))


_OFFLOAD_KEYS = ("tcp-segmentation-offload", "generic-segmentation-offload", "generic-receive-offload")


def parse_ethtool_features(text: str) -> dict[str, bool]:
    """``ethtool -k DEV`` output -> {feature: on}."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^\s*([a-z0-9-]+):\s+(on|off)", line)
        if m:
            out[m.group(1)] = m.group(2) == "on"
    return out


def check_offloads(features: Mapping[str, Mapping[str, bool]]) -> Check:
    """TSO, GSO and GRO off on every veth end (``features``: dev -> parsed ethtool -k)."""
    bad = []
    for dev, feats in sorted(features.items()):
        for k in _OFFLOAD_KEYS:
            if k not in feats:
                bad.append(f"{dev}: {k} unknown")
            elif feats[k]:
                bad.append(f"{dev}: {k} on")
    return Check("offloads", not bad, f"{len(features)} devices", "tso, gso, gro off",
                 ("offloads on: " + "; ".join(bad)) if bad else "")


def check_base_rtts(measured_min_s: Mapping[str, float], configured_s: Mapping[str, float], limits: Limits) -> Check:
    """Each source's minimum ping RTT within ``rtt_abs_s + rtt_rel*RTT`` of its configured RTT."""
    bad = []
    worst = 0.0
    for addr, want in configured_s.items():
        got = measured_min_s.get(addr)
        if got is None:
            bad.append(f"{addr}: no ping reply")
            continue
        tol = limits.rtt_abs_s + limits.rtt_rel * want
        err = got - want
        worst = max(worst, abs(err))
        if abs(err) > tol:
            bad.append(f"{addr}: {got * 1e3:.2f} ms vs {want * 1e3:.2f} ms configured")
    return Check("base_rtt", not bad, f"worst error {worst * 1e3:.3f} ms",
                 f"{limits.rtt_abs_s * 1e3:g} ms + {limits.rtt_rel * 100:g} %", "; ".join(bad))


def check_delay_element(stats: Mapping, limits: Limits) -> Check:
    """Delay element: real-time, no drops or write errors over the whole run; lateness p99, p99.9 and
    max within limits over the measurement window (the element restarts its lateness statistics
    when the runner signals the window's start; the warm-up's worst lateness is reported, not
    judged: the warm-up exists to let transients die out)."""
    bad = []
    if not stats:
        return Check("delay_element", False, "no statistics", "", "the delay element wrote no statistics")
    if not stats.get("realtime"):
        bad.append("not running with real-time priority")
    for k in ("dropped_full", "dropped_oversize", "write_errors"):
        if stats.get(k, 0):
            bad.append(f"{k}={stats[k]}")
    p99 = stats.get("lateness_p99_us", 0.0) * 1e-6
    mx = stats.get("lateness_max_us", 0.0) * 1e-6
    if p99 > limits.lateness_p99_s:
        bad.append(f"lateness p99 {p99 * 1e3:.2f} ms > {limits.lateness_p99_s * 1e3:g} ms")
    p999 = stats.get("lateness_p999_us", 0.0) * 1e-6
    if p999 > limits.lateness_p999_s:
        bad.append(f"lateness p99.9 {p999 * 1e3:.2f} ms > {limits.lateness_p999_s * 1e3:g} ms")
    if mx > limits.lateness_max_s:
        bad.append(f"lateness max {mx * 1e3:.2f} ms > {limits.lateness_max_s * 1e3:g} ms")
    return Check("delay_element", not bad,
                 f"p50 {stats.get('lateness_p50_us', 0):.0f} us, p99 {p99 * 1e6:.0f} us, max {mx * 1e6:.0f} us"
                 + (" (measurement window; warm-up max "
                    f"{stats.get('warmup_lateness_max_us', 0):.0f} us)" if stats.get("window_start_monotonic_s") else
                    " (whole run)"),
                 f"p99 <= {limits.lateness_p99_s * 1e3:g} ms, p99.9 <= {limits.lateness_p999_s * 1e3:g} ms, "
                 f"max <= {limits.lateness_max_s * 1e3:g} ms, no drops",
                 "; ".join(bad))


def check_drops_elsewhere(before: Iterable[LinkCounters], after: Iterable[LinkCounters],
                          softnet_drops: int, bottleneck_dev: str) -> Check:
    """No packet lost anywhere but the bottleneck FIFO: link drop counters and softnet backlog."""
    b = {(l.namespace, l.dev): l for l in before}
    bad = []
    for l in after:
        p = b.get((l.namespace, l.dev))
        if p is None:
            continue
        d_rx, d_tx = l.rx_dropped - p.rx_dropped, l.tx_dropped - p.tx_dropped
        if d_rx or d_tx:
            bad.append(f"{l.dev}: rx_dropped +{d_rx}, tx_dropped +{d_tx}")
    if softnet_drops:
        bad.append(f"softnet backlog dropped {softnet_drops}")
    return Check("drops_elsewhere", not bad, "none" if not bad else f"{len(bad)} places", "0 outside the bottleneck",
                 "; ".join(bad))


def check_steal(mean: float, window_max: float, limits: Limits) -> Check:
    bad = []
    if mean > limits.steal_mean:
        bad.append(f"mean steal {mean * 100:.1f} % > {limits.steal_mean * 100:g} %")
    if window_max > limits.steal_window:
        bad.append(f"steal over a 1 s window {window_max * 100:.1f} % > {limits.steal_window * 100:g} %")
    return Check("steal", not bad, f"mean {mean * 100:.2f} %, worst 1 s {window_max * 100:.1f} %",
                 f"mean <= {limits.steal_mean * 100:g} %, 1 s <= {limits.steal_window * 100:g} %", "; ".join(bad))


#: Processes whose delays do not change what TCP does: the receiver reads from a 32 MB socket
#: buffer (ACKs are sent by the kernel on arrival, not by the application), and the sampler's gaps
#: are counted by :func:`check_sampling`. They get the looser run-queue limit.
PASSIVE_PROCESSES = frozenset({"receiver", "sampler"})


def check_cpu(machine_busy_normal: float, process_cpu: Mapping[str, float], limits: Limits,
              process_wait: Mapping[str, float] | None = None, machine_busy_all: float | None = None) -> Check:
    """CPU headroom: the machine not saturated by competing work (un-niced, and niced included:
    ``machine_busy_all``, when given), the delay element and generators within their CPU limits,
    and none of them kept waiting on a run queue."""
    bad = []
    if machine_busy_normal > limits.machine_busy:
        bad.append(f"machine busy {machine_busy_normal * 100:.0f} % > {limits.machine_busy * 100:g} % (other load?)")
    if machine_busy_all is not None and machine_busy_all > limits.machine_busy_all:
        bad.append(f"machine busy incl. niced work {machine_busy_all * 100:.0f} % > "
                   f"{limits.machine_busy_all * 100:g} % (other load?)")
    for name, frac in process_cpu.items():
        lim = limits.delay_cpu if name == "delay" else limits.generator_cpu
        if frac > lim:
            bad.append(f"{name} used {frac * 100:.0f} % of a core > {lim * 100:g} %")
    for name, frac in (process_wait or {}).items():
        lim = limits.run_wait_passive if name in PASSIVE_PROCESSES else limits.run_wait
        if frac > lim:
            bad.append(f"{name} waited for a CPU {frac * 100:.1f} % of the time > {lim * 100:g} %")
    desc = ", ".join(f"{k} {v * 100:.1f} %" for k, v in process_cpu.items())
    wdesc = ", ".join(f"{k} {v * 100:.2f} %" for k, v in (process_wait or {}).items())
    return Check("cpu", not bad, f"machine {machine_busy_normal * 100:.0f} %; cpu: {desc}; run-queue wait: {wdesc}",
                 f"machine (un-niced) <= {limits.machine_busy * 100:g} %, "
                 f"(all) <= {limits.machine_busy_all * 100:g} %, delay <= {limits.delay_cpu * 100:g} %, "
                 f"generators <= {limits.generator_cpu * 100:g} %, wait <= {limits.run_wait * 100:g} % "
                 f"(receiver, sampler <= {limits.run_wait_passive * 100:g} %)", "; ".join(bad))


def check_sampling(missed_frac: float, limit: float = 0.1) -> Check:
    """The queue sampler took (nearly) all its samples: a gap would bias the queue statistics."""
    ok = missed_frac <= limit
    return Check("sampling", ok, f"{missed_frac * 100:.1f} % of queue samples missed", f"<= {limit * 100:g} %",
                 "" if ok else f"queue sampler missed {missed_frac * 100:.1f} % of its samples")


def check_queue_bound(max_backlog_bytes: int, max_qlen: int, buffer_packets: int, direct_packets: int,
                      buffer_bytes: int | None = None) -> Check:
    """The FIFO never held more than B full-sized frames (would fail if offloads merged packets).

    A byte-limited FIFO (``buffer_bytes``) is bounded in bytes only: it may hold more frames than
    ``buffer_packets`` when some are short (a handshake, the tail of a write)."""
    from bufsize.testbed.config import WIRE_PACKET_BYTES

    bad = []
    if buffer_bytes is None and max_qlen > buffer_packets:
        bad.append(f"queue length {max_qlen} > limit {buffer_packets}")
    cap = buffer_bytes if buffer_bytes is not None else buffer_packets * WIRE_PACKET_BYTES
    if max_backlog_bytes > cap:
        bad.append(f"backlog {max_backlog_bytes} B > {cap} B (offloads merged packets?)")
    if direct_packets:
        bad.append(f"{direct_packets} packets bypassed the class via htb's direct queue")
    limit = (f"<= {buffer_bytes} B" if buffer_bytes is not None
             else f"<= {buffer_packets} pkt, <= {buffer_packets * WIRE_PACKET_BYTES} B")
    return Check("queue_bound", not bad, f"max {max_qlen} pkt, {max_backlog_bytes} B", limit, "; ".join(bad))


def check_traffic(goodputs: Sequence[float], errors: Sequence[str]) -> Check:
    """Every long-lived flow moved data in the window, and the generators reported no errors."""
    bad = [f"flow {i} moved no data" for i, g in enumerate(goodputs) if not g > 0]
    bad += list(errors[:5])
    return Check("traffic", not bad, f"{len(goodputs)} flows", "every flow > 0, no socket errors", "; ".join(bad))
