"""One scenario in the simulator and on the kernel testbed, side by side.

The testbed configuration is the reference (it is what the kernel does); :func:`simulator_twin`
builds the simulator scenario that mirrors it as closely as the engine allows:

- the same rate, buffer (B packets), per-flow RTTs and start times, duration and warm-up;
- packets of 1514 bytes on the wire with a 1448-byte payload (what htb counts and what Linux
  sends with timestamps on);
- Linux TCP defaults: SACK on with proportional rate reduction (PRR, RFC 6937), initial window 10,
  minimum RTO 200 ms, delayed ACKs with Linux's 40-ms minimum timeout (Linux adapts it upwards from
  there; the engine's timer is fixed);
- loss detection as the kernel's: RACK-TLP (RFC 8985, Linux's default), or duplicate ACKs when the
  configuration turns RACK off (``net.ipv4.tcp_recovery=0`` in ``sender_sysctls``); without SACK both
  sides detect losses by duplicate ACKs;
- Linux ``reno`` is simulated as ``newreno`` (Linux's reno module recovers NewReno-style with
  SACK and PRR); Linux ``cubic`` as the engine's ``cubic`` (RFC 9438, with HyStart) in whole segments
  as tcp_cubic.c computes it (``cubic_integer``); ``bbr`` as the engine's ``bbr``; PRR as Linux's
  tcp_cwnd_reduction does it (``prr_linux``, with SACK);
- the bottleneck shaped as the testbed's htb class is (a token bucket of ``TestbedConfig.burst_bytes``
  filled at the rate, packets released whole): with htb's 15 KiB bucket the queue gets up to ten
  frames of extra room that the pfifo limit does not count, worth 4-6 utilization points at
  buffers of 10-30 packets (docs/validation.md, tiny buffers).

What stays different (and can explain gaps): Linux's undo of spurious recoveries, TSQ/pacing
details, the kernel's per-packet CPU jitter, and the engine's access links
(10 x C with no queue limit) versus veths.
"""

from __future__ import annotations

import math
from typing import Any

from bufsize.errors import ScenarioError
from bufsize.testbed.config import TCP_PAYLOAD_BYTES, WIRE_PACKET_BYTES, Flow, TestbedConfig

#: Summary fields shown side by side (simulator name == testbed name).
FIELDS = ("utilization", "loss_rate", "drops", "mean_queue_packets", "max_queue_packets", "bottleneck_packets",
          "goodput_bps_mean", "goodput_bps_total", "jain_fairness", "timeouts", "fast_retransmits",
          "frac_time_queue_empty", "frac_time_queue_full", "cwnd_sum_mean")

_CC_TO_SIM = {"reno": "newreno"}
_CC_FROM_SIM = {"newreno": "reno", "reno": "reno"}


#: The sender sysctl that turns Linux's RACK loss detection off (loss detection by duplicate ACKs).
RACK_OFF = "net.ipv4.tcp_recovery=0"


def twin_loss_detection(cfg: TestbedConfig) -> str:
    """The engine's loss detection for the kernel's of ``cfg``: ``"dupack"`` when its senders run with
    ``net.ipv4.tcp_recovery=0``, else ``"rack"`` (Linux's default)."""
    return "dupack" if RACK_OFF in cfg.sender_sysctls else "rack"


def simulator_twin(cfg: TestbedConfig, loss_detection: str | None = None):
    """The simulator :class:`~bufsize.scenario.Scenario` mirroring a testbed configuration.

    The hosts are the profile in force (:func:`bufsize.profiles.using`; ``linux`` by default, the
    kernel's own stack) with the testbed's facts on top: its packet sizes, the senders' control and
    SACK, the htb bottleneck's burst and, in the ``linux`` profile, the kernel's loss detection
    (:func:`twin_loss_detection`) and PRR only with SACK. ``loss_detection`` (``"rack"`` or
    ``"dupack"``) overrides the loss detection.
    """
    from bufsize import defaults, profiles
    from bufsize.scenario import Scenario, congestion_controls

    if cfg.users:
        raise ScenarioError("closed-loop users are not compared yet (the simulator twin covers long-lived flows)",
                            argument="users")
    ccs = {f.cc for f in cfg.flows}
    if len(ccs) != 1:
        raise ScenarioError("the simulator dumbbell has one congestion control for all flows; "
                            f"this scenario mixes {', '.join(sorted(ccs))}", argument="cc")
    cc = ccs.pop()
    sim_cc = _CC_TO_SIM.get(cc, cc)
    if sim_cc not in congestion_controls():
        raise ScenarioError(f"the simulator has no {cc!r} (it has {', '.join(congestion_controls())})", argument="cc")
    profile = profiles.name()
    tcp: dict = {}
    if profile == "linux":
        tcp.update(prr=cfg.sack, loss_detection=twin_loss_detection(cfg))
    if loss_detection is not None:
        tcp["loss_detection"] = defaults.loss_detection(loss_detection, "loss_detection")
    return Scenario.dumbbell(
        capacity=cfg.rate_bps, flows=len(cfg.flows), rtt=[f.rtt_s for f in cfg.flows],
        buffer=cfg.buffer_packets, duration=cfg.duration_s, warmup=cfg.warmup_s, seed=cfg.seed,
        # frames as the testbed counts them, Ethernet header included: data 1514 B, ACKs 66 B
        packet_size=WIRE_PACKET_BYTES, header_size=WIRE_PACKET_BYTES - TCP_PAYLOAD_BYTES,
        ack_size=WIRE_PACKET_BYTES - TCP_PAYLOAD_BYTES, cc=sim_cc, sack=cfg.sack,
        bottleneck_burst=cfg.burst_bytes, tcp=tcp, profile=profile, start=[f.start_s for f in cfg.flows])


def testbed_from_scenario(sc) -> TestbedConfig:
    """A testbed configuration from a simulator dumbbell scenario (long-lived flows only).

    RTTs and start times given as a uniform range are spread evenly over the flows (the
    simulator draws them at random); a byte buffer becomes whole 1514-byte packets.
    """
    d = sc.to_dict()
    db = d.get("dumbbell")
    if not db or d.get("flows"):
        raise ScenarioError("the testbed runs dumbbell scenarios only (no explicit links/flows)", argument="SCENARIO_FILE")
    n = int(db["flows"])

    def spread(dist: dict, field: str) -> list[float]:
        if "fixed" in dist:
            return [float(dist["fixed"])] * n
        if "list" in dist:
            return [float(dist["list"][i % len(dist["list"])]) for i in range(n)]
        if "uniform" in dist:
            lo, hi = dist["uniform"]
            return [lo + (hi - lo) * (i + 0.5) / n for i in range(n)]
        raise ScenarioError(f"cannot map distribution {dist!r} onto the testbed", argument=field)

    rtts = spread(db["rtt_s"], "dumbbell.rtt")
    starts = spread(db["start_s"], "dumbbell.start")
    cc = _CC_FROM_SIM.get(db["tcp"]["cc"], db["tcp"]["cc"])
    buf = db["buffer"]
    if "limit_packets" in buf:
        bpk = int(buf["limit_packets"])
    elif "limit_bytes" in buf:
        bpk = int(buf["limit_bytes"]) // WIRE_PACKET_BYTES
    else:
        raise ScenarioError("the testbed needs a finite bottleneck buffer", argument="dumbbell.buffer")
    flows = tuple(Flow(cc=cc, rtt_s=r, start_s=s) for r, s in zip(rtts, starts))
    # A scenario with a shaped bottleneck sets the htb bucket to match; an ideal one gets the smallest
    # bucket htb takes (one frame), the nearest the testbed comes to serializing at the rate.
    burst = int(db.get("bottleneck_burst_bytes") or WIRE_PACKET_BYTES)
    return TestbedConfig(rate_bps=float(db["capacity_bps"]), buffer_packets=max(1, bpk), flows=flows,
                         duration_s=float(d["duration_s"]), warmup_s=float(d["warmup_s"]), seed=int(d["seed"]),
                         burst_bytes=max(burst, WIRE_PACKET_BYTES))


def side_by_side(sim_summary: dict[str, Any], aggregate: dict[str, dict[str, float]]) -> list[dict[str, Any]]:
    """Rows: field, simulator value, testbed mean and CI, difference (testbed - simulator)."""
    rows = []
    for k in FIELDS:
        s = sim_summary.get(k)
        a = aggregate.get(k)
        if s is None and a is None:
            continue
        sv = float(s) if isinstance(s, (int, float)) else math.nan
        tm = a["mean"] if a else math.nan
        rows.append({"field": k, "simulator": sv, "testbed": tm, "ci_low": a["ci_low"] if a else math.nan,
                     "ci_high": a["ci_high"] if a else math.nan, "n": a["n"] if a else 0, "difference": tm - sv})
    return rows
