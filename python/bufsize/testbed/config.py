"""What one testbed run does: the link, the buffer, the flows, the users, the fidelity limits.

Everything is validated when the configuration is built, so a bad value fails before any
namespace exists, with one line naming the field (:class:`~bufsize.errors.ScenarioError`).

Units inside are SI (bit/s, seconds, bytes, packets). The bottleneck counts layer-2 bytes: a full
TCP segment is a 1514-byte frame on the veth (1500-byte IP packet + 14-byte Ethernet header), so a
bandwidth-delay product in packets is ``C * RTT / (8 * 1514)`` here.
"""

from __future__ import annotations

import math
import random
import re
from dataclasses import asdict, dataclass, field, replace
from typing import Any, Sequence

from bufsize.errors import ScenarioError

#: Bytes of one full-sized frame as the bottleneck's htb counts it.
WIRE_PACKET_BYTES = 1514
#: TCP payload of a full-sized segment (1500 - 20 IP - 20 TCP - 12 timestamp option).
TCP_PAYLOAD_BYTES = 1448

# What this kind of machine (2 vCPUs, shared) supports; larger scenarios are refused.
#: Highest bottleneck rate. Up to 100 Mb/s the delay element stays below ~15 % of a core and the
#: generators below ~30 %; 500 Mb/s worked in the prototype only with large buffers.
MAX_RATE_BPS = 100e6
#: The largest FIFO limit tc accepts for this machine's qdiscs (a 32-bit byte count for bfifo; pfifo
#: takes packets, kept to the same bytes of full-size frames so either form can carry it).
MAX_BUFFER_PACKETS = (2**32 - 1) // 1514
#: Most long-lived flows (parallel sockets in one sender process, one address each).
MAX_LONG_FLOWS = 32
#: Most closed-loop users.
MAX_USERS = 64
#: RTT bounds: the delay element's lateness (tens of µs) must stay small against the RTT, and the
#: packet pool (16384 slots) must hold one RTT of ACKs and pings at the highest rate.
MIN_RTT_S = 2e-3
MAX_RTT_S = 1.0
CONGESTION_CONTROLS = ("reno", "cubic", "bbr")
BREAKAGES = ("offloads", "second-queue")


def _err(field_name: str, msg: str) -> ScenarioError:
    return ScenarioError(msg, argument=field_name)


#: The htb bucket every recorded run used until it became a setting (tc's ``burst 15k``).
DEFAULT_BURST_BYTES = 15_360


@dataclass(frozen=True)
class Flow:
    """One long-lived flow: sends as fast as TCP lets it from ``start_s`` to the end of the run."""

    cc: str
    rtt_s: float
    start_s: float = 0.0


@dataclass(frozen=True)
class User:
    """A closed-loop user: transfer a Pareto-sized file, think an exponential time, repeat."""

    cc: str
    rtt_s: float
    mean_size_bytes: float = 100e3
    pareto_shape: float = 1.2
    think_mean_s: float = 1.0


@dataclass(frozen=True)
class Limits:
    """Fidelity limits: a run that exceeds any of them is repeated, then rejected.

    - RTT: the measured minimum ping RTT of every address must be within ``rtt_abs_s`` +
      ``rtt_rel`` x configured RTT of the configured RTT.
    - Delay element: lateness 99th percentile <= ``lateness_p99_s``, 99.9th <= ``lateness_p999_s``,
      maximum <= ``lateness_max_s``, no packet dropped by it. A single stall of d delays the ACK
      clock once by d and can idle the link for at most about d; runs on these VMs show isolated
      10-15 ms stalls of the (real-time) element, so the maximum is 20 ms while the percentiles
      bound how often it may happen.
    - Steal: mean over the measurement window <= ``steal_mean``, and over any 1-second window
      <= ``steal_window``.
    - CPU: the delay element <= ``delay_cpu`` of one core, each traffic process <= ``generator_cpu``
      of one core, the delay element and the sender runnable-but-waiting for a CPU <= ``run_wait``
      of the time (receiver and sampler <= ``run_wait_passive``: their delays do not change what
      TCP does), and
      the whole machine busy with un-niced work (excluding steal) <= ``machine_busy`` of all CPUs,
      and busy with any work, niced included, <= ``machine_busy_all``. Against the testbed's nice-0
      processes niced work gets only about 1.5 % of a CPU, yet in the 0.1 BDP single-flow
      experiment two ``nice -n 19`` busy loops cost 2 of 3 runs 3-4 utilization points with every
      other check passing (bench/testbed/RESULTS.md, ``single-reno-10p-load``), so it is limited
      too. The testbed itself keeps the machine 25-45 % busy at 100 Mb/s with 32 flows.
    """

    rtt_abs_s: float = 1e-3
    rtt_rel: float = 0.02
    lateness_p99_s: float = 1e-3
    lateness_p999_s: float = 5e-3
    lateness_max_s: float = 20e-3
    steal_mean: float = 0.02
    steal_window: float = 0.10
    delay_cpu: float = 0.5
    generator_cpu: float = 0.7
    machine_busy: float = 0.9
    machine_busy_all: float = 0.7
    run_wait: float = 0.05
    run_wait_passive: float = 0.25


#: The sender sysctl that turns SACK off (``TestbedConfig.sack = False``).
_SACK_OFF = "net.ipv4.tcp_sack=0"


@dataclass(frozen=True)
class TestbedConfig:
    """One testbed scenario. Build with :meth:`dumbbell` or directly; :meth:`validate` is run by both."""

    rate_bps: float
    buffer_packets: int
    flows: tuple[Flow, ...] = ()
    users: tuple[User, ...] = ()
    duration_s: float = 30.0
    warmup_s: float = 5.0
    seed: int = 1
    #: Queue occupancy sampling interval (netlink) and TCP_INFO sampling interval.
    queue_sample_s: float = 0.002
    tcpinfo_sample_s: float = 0.1
    limits: Limits = field(default_factory=Limits)
    #: Deliberately break the setup (fidelity tests only): "offloads" leaves GSO/TSO/GRO on,
    #: "second-queue" puts a pfifo on the sender's egress.
    breakage: str | None = None
    #: Extra ``net.ipv4.tcp_*=value`` sysctls set in the sender's namespace only (experiments on Linux's
    #: loss recovery, e.g. ``("net.ipv4.tcp_recovery=0",)`` turns RACK off); empty = kernel defaults.
    sender_sysctls: tuple[str, ...] = ()
    #: Guest halt polling during the run, ns (``bufsize.testbed.vcpu``): an idle vCPU polls this
    #: long before halting, so the hypervisor does not deschedule it between packets (its wake-up
    #: delays stalled the delay element by 4-45 ms). None leaves the machine's setting alone.
    halt_poll_ns: int | None = 1_000_000
    #: A byte-limited drop-tail FIFO (``bfifo limit buffer_bytes``) instead of ``pfifo limit B``, for
    #: buffers given in bytes (paper 000's router ports); ``buffer_packets`` must then be the number of
    #: full-sized frames that fit, rounded up (the queue-bound check and the histogram use it).
    buffer_bytes: int | None = None
    #: The senders' initial congestion window in segments (``initcwnd`` on their route; Linux's
    #: default is 10). Paper 000's Linux 2.6.15 hosts started at 2.
    initcwnd: int | None = None
    #: SACK at the senders (Linux's default). False sets ``net.ipv4.tcp_sack=0`` in the senders'
    #: namespace (added to ``sender_sysctls``): Linux's NewReno-style recovery, for comparisons
    #: with SACK-less simulations; that sysctl given directly means the same.
    sack: bool = True
    #: The htb class's token-bucket depth (``burst`` and ``cburst``) in bytes. After the queue has been
    #: empty, htb may send this many bytes back to back above the rate, so a deep bucket acts as extra
    #: buffer that the FIFO's limit does not count.
    burst_bytes: int = 15_360  # DEFAULT_BURST_BYTES (15k in tc's units)

    __test__ = False  # not a pytest class

    def __post_init__(self) -> None:
        object.__setattr__(self, "flows", tuple(self.flows))
        object.__setattr__(self, "users", tuple(self.users))
        object.__setattr__(self, "sender_sysctls", tuple(self.sender_sysctls))
        if not isinstance(self.sack, bool):
            raise _err("sack", f"must be true or false, got {self.sack!r}")
        if _SACK_OFF in self.sender_sysctls:
            object.__setattr__(self, "sack", False)
        elif not self.sack:
            object.__setattr__(self, "sender_sysctls", self.sender_sysctls + (_SACK_OFF,))
        self.validate()

    # ------------------------------------------------------------------ construction
    @classmethod
    def dumbbell(cls, *, rate: Any, rtt: Any, buffer: Any, flows: int = 1, cc: str | Sequence[str] = "reno",
                 users: int = 0, duration: Any = "30s", warmup: Any = "5s", start_spread: Any = "1s",
                 seed: int = 1, **kw: Any) -> "TestbedConfig":
        """Long-lived flows (and optionally closed-loop users) with RTTs from ``rtt``.

        ``rtt``: one time (``"70ms"``), a list (``"40ms,70ms,100ms"``, assigned round-robin) or a
        range (``"40ms..100ms"``, spread evenly over the flows). ``buffer``: packets (``"52"``,
        ``"52pkt"``), bytes, a queueing time (``"10ms"``) or a multiple of the bandwidth-delay
        product at the mean RTT (``"0.25bdp"``). ``cc``: one name or one per flow (cycled).
        Start times are spread evenly over ``start_spread`` (seeded order).
        """
        from bufsize.units import parse_buffer, parse_rate, parse_time, parse_time_list

        rate_bps = parse_rate(rate, argument="rate")
        if not isinstance(flows, int) or flows < 0:
            raise _err("flows", f"must be a whole number >= 0, got {flows!r}")
        if not isinstance(users, int) or users < 0:
            raise _err("users", f"must be a whole number >= 0, got {users!r}")
        n = flows + users
        if n == 0:
            raise _err("flows", "a run needs at least one flow or user")
        rtts = parse_time_list(rtt, argument="rtt")
        if isinstance(rtts, tuple):
            lo, hi = rtts
            rtt_list = [lo + (hi - lo) * i / (n - 1) for i in range(n)] if n > 1 else [(lo + hi) / 2]
        else:
            rtt_list = [rtts[i % len(rtts)] for i in range(n)]
        ccs = [cc] if isinstance(cc, str) else list(cc)
        if not ccs:
            raise _err("cc", "needs at least one congestion control")
        spread = parse_time(start_spread, argument="start_spread", allow_zero=True)
        order = list(range(flows))
        random.Random(seed).shuffle(order)
        starts = [spread * order[i] / max(flows, 1) for i in range(flows)]
        fl = tuple(Flow(cc=ccs[i % len(ccs)], rtt_s=rtt_list[i], start_s=starts[i]) for i in range(flows))
        us = tuple(User(cc=ccs[(flows + j) % len(ccs)], rtt_s=rtt_list[flows + j]) for j in range(users))
        mean_rtt = sum(rtt_list) / len(rtt_list)
        btext = str(buffer).strip()
        if btext.lower().endswith("bdp"):
            try:
                mult = float(btext[:-3])
            except ValueError:
                raise _err("buffer", f"{btext!r}: expected a number before 'bdp', e.g. 0.25bdp") from None
            if not (mult > 0 and math.isfinite(mult)):
                raise _err("buffer", f"{btext!r} must be a positive multiple of the BDP")
            bpk = mult * rate_bps * mean_rtt / (8 * WIRE_PACKET_BYTES)
        else:
            bpk = parse_buffer(buffer, packet_size=WIRE_PACKET_BYTES, capacity=rate_bps, argument="buffer")
        return cls(rate_bps=rate_bps, buffer_packets=max(1, int(round(bpk))), flows=fl, users=us,
                   duration_s=parse_time(duration, argument="duration"),
                   warmup_s=parse_time(warmup, argument="warmup", allow_zero=True), seed=seed, **kw)

    @classmethod
    def frames_for(cls, buffer_bytes: int) -> int:
        """Full-sized frames a ``buffer_bytes`` FIFO holds, rounded up (its ``buffer_packets``)."""
        return -(-int(buffer_bytes) // WIRE_PACKET_BYTES)

    def replace(self, **changes: Any) -> "TestbedConfig":
        return replace(self, **changes)

    # ------------------------------------------------------------------ validation
    def validate(self) -> None:
        if not (isinstance(self.rate_bps, (int, float)) and math.isfinite(self.rate_bps) and self.rate_bps > 0):
            raise _err("rate", f"must be a positive rate, got {self.rate_bps!r}")
        if self.rate_bps > MAX_RATE_BPS:
            raise _err("rate", f"{self.rate_bps / 1e6:g} Mb/s is above what this machine supports "
                               f"({MAX_RATE_BPS / 1e6:g} Mb/s: 2 shared vCPUs carry the delay element and the generators)")
        if not isinstance(self.buffer_packets, int) or self.buffer_packets < 1:
            raise _err("buffer", f"must be at least 1 packet, got {self.buffer_packets!r}")
        if self.buffer_packets > MAX_BUFFER_PACKETS:
            raise _err("buffer", f"{self.buffer_packets:.3g} packets is more than a pfifo/bfifo limit holds here "
                                 f"(tc takes at most {MAX_BUFFER_PACKETS:,} packets, 2^32 - 1 bytes)")
        if len(self.flows) > MAX_LONG_FLOWS:
            raise _err("flows", f"{len(self.flows)} long-lived flows is above what this machine supports ({MAX_LONG_FLOWS})")
        if len(self.users) > MAX_USERS:
            raise _err("users", f"{len(self.users)} users is above what this machine supports ({MAX_USERS})")
        if not self.flows and not self.users:
            raise _err("flows", "a run needs at least one flow or user")
        for i, f in enumerate(list(self.flows) + list(self.users)):
            name = f"flows[{i}]" if i < len(self.flows) else f"users[{i - len(self.flows)}]"
            if f.cc not in CONGESTION_CONTROLS:
                raise _err(f"{name}.cc", f"{f.cc!r} is not available here (choose from {', '.join(CONGESTION_CONTROLS)})")
            if not (MIN_RTT_S <= f.rtt_s <= MAX_RTT_S):
                raise _err(f"{name}.rtt", f"{f.rtt_s * 1e3:g} ms is outside {MIN_RTT_S * 1e3:g}..{MAX_RTT_S * 1e3:g} ms")
        for i, f in enumerate(self.flows):
            if not (0 <= f.start_s < self.duration_s):
                raise _err(f"flows[{i}].start", f"{f.start_s:g} s must lie within the run (0..{self.duration_s:g} s)")
        for i, u in enumerate(self.users):
            if not (u.mean_size_bytes >= 1 and u.pareto_shape > 1 and u.think_mean_s >= 0):
                raise _err(f"users[{i}]", "needs mean size >= 1 byte, Pareto shape > 1 and think time >= 0")
        if not (self.duration_s > 0 and 0 <= self.warmup_s and self.duration_s - self.warmup_s >= 1.0):
            raise _err("duration", f"needs a measurement window of at least 1 s after the warm-up "
                                   f"(duration {self.duration_s:g} s, warm-up {self.warmup_s:g} s)")
        if self.duration_s > 3600:
            raise _err("duration", "at most one hour per run")
        if not (1e-4 <= self.queue_sample_s <= 1.0):
            raise _err("queue_sample", "must lie between 0.1 ms and 1 s")
        if not (1e-3 <= self.tcpinfo_sample_s <= 10.0):
            raise _err("tcpinfo_sample", "must lie between 1 ms and 10 s")
        for kv in self.sender_sysctls:
            if not re.fullmatch(r"net\.ipv4\.tcp_[a-z_]+=[0-9]+", str(kv)):
                raise _err("sender_sysctls", f"{kv!r}: expected net.ipv4.tcp_<name>=<integer>")
        if self.halt_poll_ns is not None and not (isinstance(self.halt_poll_ns, int)
                                                  and 0 <= self.halt_poll_ns <= 10_000_000):
            raise _err("halt_poll", f"must be a whole number of ns in 0..10 ms (or off), got {self.halt_poll_ns!r}")
        if self.buffer_bytes is not None:
            if not (isinstance(self.buffer_bytes, int) and self.buffer_bytes >= WIRE_PACKET_BYTES):
                raise _err("buffer_bytes", f"must be a whole number of bytes >= one frame ({WIRE_PACKET_BYTES}), "
                                           f"got {self.buffer_bytes!r}")
            if self.buffer_packets != self.frames_for(self.buffer_bytes):
                raise _err("buffer", f"{self.buffer_packets} packets does not match a {self.buffer_bytes}-byte FIFO "
                                     f"({self.frames_for(self.buffer_bytes)} frames of {WIRE_PACKET_BYTES} B)")
        if not (isinstance(self.burst_bytes, int) and 1514 <= self.burst_bytes <= 1_000_000):
            raise _err("burst_bytes", f"must be a whole number of bytes in 1514..1000000, got {self.burst_bytes!r}")
        if self.initcwnd is not None and not (isinstance(self.initcwnd, int) and 1 <= self.initcwnd <= 100):
            raise _err("initcwnd", f"must be a whole number of segments in 1..100, got {self.initcwnd!r}")
        if self.breakage is not None and self.breakage not in BREAKAGES:
            raise _err("breakage", f"{self.breakage!r}: choose from {', '.join(BREAKAGES)}")

    # ------------------------------------------------------------------ derived
    @property
    def n_sources(self) -> int:
        return len(self.flows) + len(self.users)

    @property
    def mean_rtt_s(self) -> float:
        rtts = [f.rtt_s for f in self.flows] + [u.rtt_s for u in self.users]
        return sum(rtts) / len(rtts)

    @property
    def bdp_packets(self) -> float:
        return self.rate_bps * self.mean_rtt_s / (8 * WIRE_PACKET_BYTES)

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        if d["burst_bytes"] == DEFAULT_BURST_BYTES:
            # Runs recorded before the field existed used this bucket: their keys stay valid.
            del d["burst_bytes"]
        return d
