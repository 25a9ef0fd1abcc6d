"""Named TCP stacks: the one place where the simulator's hosts are defined.

Every scenario bufsize builds (the ``simulate``/``sweep``/``search`` flags, scenario files,
:meth:`bufsize.Scenario.dumbbell`, ``recommend``'s verification, scenarios from captures) starts its
senders and receivers from one of these profiles and then applies what the caller set. A profile
is a table of stack details under the scenario schema's TCP names (``docs/simulate.md``):

``linux`` (the default)
    Today's Linux (5.x/6.x kernels with default sysctls): CUBIC as Linux computes it, initial
    window 10 (RFC 6928), delayed ACKs with Linux's 40 ms minimum timer, SACK with PRR as
    ``tcp_cwnd_reduction`` does it, RACK-TLP loss detection (``net.ipv4.tcp_recovery=1``), RTO
    between 200 ms and 120 s, an initial RTO of 1 s (RFC 6298). Checked against the kernel testbed
    (docs/validation.md).
``ns3``
    ns-3 3.37's TCP at its default attributes (read from the installed libraries,
    bench/ns3/ns3_defaults.md): TcpCubic, SACK and timestamps on, PRR recovery (with 3.37's 32-bit
    overflow of its proportional part), DupThresh loss
    detection (no RACK), InitialCwnd 10, DelAckCount 2 with a 200 ms timer, MinRto 1 s flooring the
    whole RTO, FlightSize at a loss = the RFC 6675 pipe (BytesInFlight). Checked against ns-3 3.37
    (bench/ns3).
``ns2``
    The papers' ns-2 agents (Agent/TCP/Newreno with Agent/TCPSink, ns-2.35 defaults): no SACK,
    an ACK for every segment, a SYN then windowInit_ 2 (run as an initial window of 1), minrto_
    200 ms, rtxcur_init_ 3 s, maxrto_ 60 s, packetSize_ 1000 B, and ssthresh = half the window
    (``windowd()``) at a loss; 1 µs of host jitter (not ns-2's: it keeps the engine's exact clock from
    locking a few flows the way ns-2 does not, bench/ns2/tiny_buffers.md).

Packet size and headers are a property of the link as much as of the stack; ``linux`` and ``ns3``
use 1500-byte packets (an Ethernet MTU), ``ns2`` the 1000 B of ns-2's default. Any detail can be
overridden by name (``tcp={"initial_window": 4}``, ``--initial-window 4``); a result names the
profile and every detail that differs from it (:func:`describe`).

Approximations are stated in :data:`PROFILES`' notes: e.g. Linux's quick-ACK mode at the start
of a connection is not modelled (the delayed-ACK rule applies from the first segment), and ns-3's
RTO clock granularity and ns-2's 10 ms tcpTick_ are not either.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Iterator, Mapping

from bufsize.errors import BufsizeError

#: The profile used when none is named.
DEFAULT = "linux"


@dataclass(frozen=True)
class Profile:
    """One named TCP stack: its details (scenario-schema TCP names, SI units) and where each comes from."""

    name: str
    title: str
    tcp: Mapping[str, Any]
    #: detail -> where the value comes from (a sysctl, an attribute, an RFC), for the docs' tables
    sources: Mapping[str, str] = field(default_factory=dict)
    #: what the profile does not model, in words
    approximations: tuple[str, ...] = ()
    #: congestion-control names as this stack means them -> the engine's: Linux's ``reno`` module
    #: (and ns-3's TcpLinuxReno/TcpNewReno) recover NewReno-style (RFC 6582) when SACK is off, never
    #: as RFC 5681's Reno, which exits recovery at the first new ACK; ``reno-rfc5681`` asks for that
    cc_names: Mapping[str, str] = field(default_factory=dict)


def _frozen(d: dict[str, Any]) -> Mapping[str, Any]:
    return MappingProxyType(dict(d))


# Every profile lists every detail, so a scenario never falls back to the engine's own defaults.
_LINUX = Profile(
    cc_names=_frozen({"reno": "newreno"}),
    name="linux",
    title="today's Linux (kernel 5.x/6.x, default sysctls)",
    tcp=_frozen({
        "cc": "cubic", "packet_bytes": 1500, "header_bytes": 52, "ack_bytes": 52,
        "initial_window": 10, "delayed_ack": True, "delayed_ack_timeout_s": 0.04,
        "sack": True, "prr": True, "prr_linux": True, "loss_detection": "rack", "dupack_threshold": 3,
        "min_rto_s": 0.2, "max_rto_s": 120.0, "initial_rto_s": 1.0, "max_window_packets": None,
        "flight_size": "flight", "cubic_integer": True, "host_jitter_s": 10e-6, "abc_limit": 2,
        "limited_transmit": False, "cubic_reno_friendly": True, "repeat_rto_holds_ssthresh": True,
        "ecn": False,
        "rto_min_above_srtt": True,
        "loss_in_cwr_keeps_reduction": True,
        "prr_wraps_32bit": False,
        "reno_careful": False,
        "ns2_halving": False,
        "cubic_hystart": True,
    }),
    sources=_frozen({
        "cc": "net.ipv4.tcp_congestion_control = cubic",
        "cubic_hystart": "tcp_cubic's hystart = 1, hystart_detect = 3 (ACK train and delay), hystart_low_window = 16",
        "ecn": "net.ipv4.tcp_ecn = 2: ECN only when the peer asks for it, never asked for (a control that "
               "needs ECN, dctcp, asks whatever the sysctl says)",
        "repeat_rto_holds_ssthresh": "tcp_enter_loss recomputes ssthresh only when not already in Loss with "
                                     "retransmissions (RFC 5681 §3.1)",
        "abc_limit": "tcp_slow_start / tcp_cong_avoid_ai count every segment an ACK newly delivers (no "
                     "RFC 3465 limit); the engine counts at most 2 (see the approximations)",
        "limited_transmit": "off as a flag: with RACK-TLP the engine's sender follows RACK's rules (Linux sends "
                            "on SACKs in its Disorder state through its packets-in-flight count)",
        "packet_bytes": "Ethernet MTU 1500",
        "header_bytes": "IPv4 20 + TCP 20 + timestamps 12 (net.ipv4.tcp_timestamps = 1): MSS 1448",
        "initial_window": "TCP_INIT_CWND 10 (RFC 6928)",
        "delayed_ack": "TCP_ATO_MIN 40 ms, an ACK at least every second full segment (with ns-3's 200 ms the "
                       "kernel twin lost 4–7 points at 0.1 BDP with 8–32 Reno flows)",
        "sack": "net.ipv4.tcp_sack = 1",
        "prr": "tcp_cwnd_reduction (RFC 6937, Linux's variant)",
        "loss_detection": "net.ipv4.tcp_recovery = 1 (RACK-TLP, RFC 8985)",
        "min_rto_s": "TCP_RTO_MIN 200 ms", "max_rto_s": "TCP_RTO_MAX 120 s", "initial_rto_s": "TCP_TIMEOUT_INIT 1 s",
        "rto_min_above_srtt": "tcp_rtt_estimator keeps rttvar_us at least TCP_RTO_MIN and __tcp_set_rto returns "
                              "srtt + rttvar: the RTO is at least RTT + 200 ms (the engine uses the current "
                              "4·RTTVAR, not Linux's per-RTT maximum of it)",
        "loss_in_cwr_keeps_reduction": "tcp_enter_recovery reduces only when not already in a cwnd reduction "
                                       "(CA_CWR), keeping the CWR's high_seq (RFC 3168 §6.1.2)",
        "cubic_integer": "tcp_cubic.c's integer arithmetic (with prr_linux: 20 CUBIC flows at 10 packets, "
                         "the twin 77.9 % → 73.6 % against the kernel's 74.3 %; bench/validation/cubic_candidates.md)",
        "flight_size": "snd_max − snd_una at most cwnd (bench/validation: closest to the kernel)",
        "host_jitter_s": "a packet reaches TCP up to 10 µs after it reaches the host (interrupt coalescing, softirq "
                         "and scheduling; the kernel testbed's own delay element is late by 57 µs at the median, "
                         "169 µs at p99): enough that flows of one RTT do not lock their phases, small enough "
                         "that the validation grids move by under 0.4 point (bench/validation/jitter_default.md)",
    }),
    approximations=("quick-ACK mode at the start of a connection is not modelled",
                    "no TSO/GSO bursts, pacing of CUBIC off (as Linux without fq)",
                    "host jitter uniform on [0, 10 µs] per packet, not a measured distribution",
                    "an ACK grows the window by at most 2 segments (Linux counts every segment it newly "
                    "delivers): the same at an ACK per two segments, less for stretch ACKs "
                    "(bench/validation/ack_pattern.md)",
                    "the receiver ACKs every second segment and every out-of-order one; Linux's receivers "
                    "also send single-segment and stretch ACKs when the application reads late, and "
                    "compress duplicate ACKs (net.ipv4.tcp_comp_sack_*; bench/validation/ack_pattern.md)"),
)

_NS3 = Profile(
    cc_names=_frozen({"reno": "newreno"}),
    name="ns3",
    title="ns-3 3.37 at its default attributes",
    tcp=_frozen({
        "cc": "cubic", "packet_bytes": 1500, "header_bytes": 52, "ack_bytes": 52,
        "initial_window": 10, "delayed_ack": True, "delayed_ack_timeout_s": 0.2,
        "sack": True, "prr": True, "prr_linux": False, "loss_detection": "dupack", "dupack_threshold": 3,
        "min_rto_s": 1.0, "max_rto_s": 60.0, "initial_rto_s": 1.0, "max_window_packets": None,
        "flight_size": "pipe", "cubic_integer": False, "host_jitter_s": 0.0, "abc_limit": 1,
        "limited_transmit": True, "cubic_reno_friendly": False, "repeat_rto_holds_ssthresh": True,
        "ecn": False,
        "rto_min_above_srtt": False,
        "loss_in_cwr_keeps_reduction": False,
        "prr_wraps_32bit": True,
        "reno_careful": False,
        "ns2_halving": False,
        "cubic_hystart": False,
    }),
    sources=_frozen({
        "cc": "TcpL4Protocol::SocketType = TcpCubic",
        "ecn": "TcpSocketBase::UseEcn = Off (TcpDctcp turns it on for itself)",
        "header_bytes": "IPv4 20 + TCP 20 + timestamps 12 (TcpSocketBase::Timestamp = true)",
        "initial_window": "TcpSocket::InitialCwnd = 10",
        "delayed_ack": "TcpSocket::DelAckCount = 2, DelAckTimeout = 200 ms",
        "sack": "TcpSocketBase::Sack = true",
        "prr": "TcpL4Protocol::RecoveryType = TcpPrrRecovery (RFC 6937; tcp.prr = false: TcpClassicRecovery)",
        "loss_detection": "TcpSocketBase::ReTxThreshold = 3 (no RACK)",
        "min_rto_s": "TcpSocketBase::MinRto = 1 s",
        "initial_rto_s": "RttEstimator InitialEstimation 1 s",
        "flight_size": "BytesInFlight at EnterRecovery (RFC 6675 pipe)",
        "abc_limit": "TcpNewReno::SlowStart / CongestionAvoidance grow once per ACK, whatever it covers",
        "limited_transmit": "TcpSocketBase::LimitedTransmit = true (RFC 3042)",
        "cubic_reno_friendly": "tcp-cubic.h has no TCP-friendly region",
        "cubic_hystart": "off here although TcpCubic's HyStart attribute is on by default: the engine's ns3 "
                         "profile was compared with ns-3 before the engine had HyStart (bench/ns3), not since",
        "repeat_rto_holds_ssthresh": "TcpSocketBase::ReTxTimeout sets ssthresh only outside CA_LOSS",
        "rto_min_above_srtt": "RttMeanDeviation's RTO, floored as a whole at MinRto (bench/ns3/results.md)",
        "loss_in_cwr_keeps_reduction": "TcpSocketBase::EnterRecovery cuts ssthresh again in CA_CWR "
                                       "(bench/ns3/aqm_ecn.md)",
        "prr_wraps_32bit": "TcpPrrRecovery::DoRecovery multiplies prr_delivered by ssthresh as 32-bit byte counts, "
                           "which wraps after ~20 segments delivered (fixed after 3.37, ns-3 issue 1282): the "
                           "reduction comes as a gap of half an RTT (bench/ns3/aqm.md, FQ-CoDel)",
    }),
    approximations=("ns-3's ClockGranularity (1 ms) in the RTO is not modelled",
                    "segment size is the link's 1500 B, not ns-3's SegmentSize default of 536 B",
                    "ns-3's TcpCubic runs HyStart (slow-start exit); this profile leaves the engine's off",
                    "ns-3's largest RTO was not checked (60 s here)",
                    "ns-3's TcpCubic adds every segment an ACK covers in slow start, with no cap at ssthresh "
                    "(tcp-cubic.cc, ns-3.37); the engine's CUBIC counts at most 2 per ACK and stops at ssthresh "
                    "(a copy of ns-3's rule was tried and matched ns-3 worse: bench/ns3/cubic_gap.md)"),
)

_NS2 = Profile(
    name="ns2",
    title="the papers' ns-2 agents (ns-2.35 Agent/TCP/Newreno defaults)",
    tcp=_frozen({
        "cc": "newreno", "packet_bytes": 1000, "header_bytes": 40, "ack_bytes": 40,
        "initial_window": 1, "delayed_ack": False, "delayed_ack_timeout_s": 0.1,
        "sack": False, "prr": False, "prr_linux": False, "loss_detection": "dupack", "dupack_threshold": 3,
        "min_rto_s": 0.2, "max_rto_s": 60.0, "initial_rto_s": 3.0, "max_window_packets": None,
        "flight_size": "cwnd", "cubic_integer": False, "host_jitter_s": 1e-6, "abc_limit": 1,
        "limited_transmit": True, "cubic_reno_friendly": True, "repeat_rto_holds_ssthresh": False,
        "ecn": False,
        "rto_min_above_srtt": False,
        "loss_in_cwr_keeps_reduction": False,
        "prr_wraps_32bit": False,
        "reno_careful": True,
        "ns2_halving": True,
        "cubic_hystart": False,
    }),
    sources=_frozen({
        "cc": "Agent/TCP/Newreno",
        "ecn": "Agent/TCP ecn_ 0",
        "packet_bytes": "packetSize_ 1000",
        "initial_window": "syn_ true, delay_growth_ true, windowInit_ 2: a 40-byte SYN first, then 2 packets from "
                          "its ACK, 4, 8 (traced in ns-2.35): the flights of an initial window of 1",
        "host_jitter_s": "not an ns-2 setting (ns-2's hosts add no delay): 1 µs keeps the engine's exact clock from "
                         "holding a few window trains in a lossless periodic state that ns-2.35 does not reach on the "
                         "same inputs (bench/ns2/tiny_buffers.md: 2 Reno flows behind 5 packets, 0.78 without against "
                         "ns-2's 0.12-0.14, within 0.021 of ns-2 in 12 cells with it)",
        "delayed_ack": "Agent/TCPSink (an ACK per segment)",
        "sack": "no SACK (Agent/TCP/Sack1 is separate)",
        "min_rto_s": "minrto_ 0.2", "max_rto_s": "maxrto_ 60", "initial_rto_s": "rtxcur_init_ 3.0",
        "numdupacks_": "numdupacks_ 3",
        "flight_size": "slowdown(): the window halved, not the data outstanding",
        "ns2_halving": "slowdown(): ssthresh_ = int(windowd() / 2), cwnd_ = windowd() / 2 with its fraction; "
                       "Reno and Newreno end the recovery at that cwnd_ and open it on the ending ACK (cwnd_ "
                       "traced in ns-2.35: 123.991 -> 61.9955, ssthresh_ 61, then 62.0116)",
        "abc_limit": "opencwnd(): +1 or +1/cwnd per ACK",
        "limited_transmit": "singledup_ 1 (a new packet on each of the first two duplicate ACKs)",
        "repeat_rto_holds_ssthresh": "slowdown() on every timeout: the window is 1, so ssthresh 2",
        "reno_careful": "bugfix_ true: Agent/TCP/Reno's dupack_action() fast-retransmits only once highest_ack_ "
                        "has passed recover_ (set at each fast retransmit and timeout)",
    }),
    approximations=("ns-2's window_ (20 packets by default) is not applied: the papers set their own",
                    "ns-2.35's SYN (syn_ true: a 40-byte packet whose ACK opens the initial window of 2) runs as a "
                    "first flight of one data packet (initial window 1): the same flights of 1, 2, 4, 8 packets, "
                    "with one data packet more in the engine's after each round trip of slow start",
                    "the 1 µs host jitter stands for whatever keeps ns-2's timing from locking (it has no jitter "
                    "itself); measured against ns-2.35, not derived from it",
                    "tcpTick_ (10 ms RTT clock) is not modelled"),
)

#: The named profiles.
PROFILES: Mapping[str, Profile] = MappingProxyType({p.name: p for p in (_LINUX, _NS3, _NS2)})
#: Their names, the default first.
NAMES: tuple[str, ...] = tuple(PROFILES)

#: The profile that scenarios built from flags use inside :func:`using`.
_NOW: ContextVar[str | None] = ContextVar("bufsize_profile", default=None)


def name(value: Any = None, argument: str = "--profile") -> str:
    """``value`` checked and lower-cased; when None, the profile in force (:func:`using`, else
    :data:`DEFAULT`). Raises :class:`BufsizeError` naming ``argument`` for anything else."""
    if value is None:
        now = _NOW.get()
        return DEFAULT if now is None else now
    if isinstance(value, str) and value.strip().lower() in PROFILES:
        return value.strip().lower()
    raise BufsizeError(f"unknown profile {value!r} (known: {', '.join(NAMES)})", argument=argument)


def chosen() -> str | None:
    """The profile set by :func:`using` for the code running now (None: none was set)."""
    return _NOW.get()


def get(value: Any = None, argument: str = "--profile") -> Profile:
    """The :class:`Profile` called ``value`` (None: the one in force)."""
    return PROFILES[name(value, argument)]


def tcp(value: Any = None) -> dict[str, Any]:
    """A fresh copy of a profile's TCP details (None: the profile in force)."""
    return dict(get(value).tcp)


@contextmanager
def using(value: Any) -> Iterator[str]:
    """Within the block, scenarios built without a profile of their own use ``value`` (None keeps
    the default)::

        with bufsize.profiles.using("ns3"):
            res = bufsize.simulate(capacity="100Mbps", flows=10, rtt="20ms..80ms", buffer="0.2bdp")
    """
    token = _NOW.set(None if value is None else name(value))
    try:
        yield name()
    finally:
        _NOW.reset(token)


def overrides(tcp_now: Mapping[str, Any], profile: Any = None) -> dict[str, Any]:
    """The details of ``tcp_now`` that differ from ``profile``'s (``cubic_integer`` and
    ``prr_linux`` and ``prr_wraps_32bit`` only where they act: CUBIC, SACK with PRR)."""
    base = get(profile).tcp
    out: dict[str, Any] = {}
    for key, value in tcp_now.items():
        if key not in base or base[key] == value:
            continue
        if key == "cubic_integer" and tcp_now.get("cc") != "cubic":
            continue
        if key == "prr_linux" and not (tcp_now.get("sack") and tcp_now.get("prr")):
            continue
        if key == "prr_wraps_32bit" and not (tcp_now.get("sack") and tcp_now.get("prr")
                                             and not tcp_now.get("prr_linux")):
            continue
        out[key] = value
    return out


def _ms(s: float) -> str:
    return f"{s * 1e3:g} ms" if s < 1 else f"{s:g} s"


def details_text(t: Mapping[str, Any]) -> str:
    """A stack in words: ``"cubic, IW 10, delayed ACKs (40 ms), SACK + PRR, RACK-TLP, RTO ≥ RTT + 200 ms,
    1500-B packets"``."""
    parts = [str(t["cc"]), f"IW {t['initial_window']:g}"]
    parts.append(f"delayed ACKs ({_ms(t['delayed_ack_timeout_s'])})" if t.get("delayed_ack") else "an ACK per segment")
    if t.get("sack"):
        parts.append("SACK + PRR" if t.get("prr") else "SACK")
        parts.append("RACK-TLP" if t.get("loss_detection") == "rack" else "dupack")
    else:
        parts.append("no SACK")
    floor = f"RTT + {_ms(t['min_rto_s'])}" if t.get("rto_min_above_srtt") else _ms(t["min_rto_s"])
    parts.append(f"RTO ≥ {floor} (initial {_ms(t['initial_rto_s'])})")
    parts.append(f"{t['packet_bytes']:g}-B packets")
    if t.get("max_window_packets"):
        parts.append(f"window ≤ {t['max_window_packets']:g} pkt")
    if t.get("host_jitter_s"):
        j = t["host_jitter_s"]
        parts.append(f"host jitter ≤ {j * 1e6:g} µs" if j < 1e-3 else f"host jitter ≤ {_ms(j)}")
    return ", ".join(parts)


def _value_text(v: Any) -> str:
    if isinstance(v, bool):
        return "on" if v else "off"
    if isinstance(v, float):
        # seconds below a millisecond in decimals (0.00001, not 1e-05): the column reads as seconds
        return f"{v:.9f}".rstrip("0") if 0 < abs(v) < 1e-3 else f"{v:g}"
    return str(v)


def describe(tcps: Any, profile: Any = None) -> str:
    """The stack that ran, in one line: the profile, the stack in words (of the first table, with
    every congestion control of a mix) and every detail that differs from the profile::

        linux profile: cubic, IW 10, delayed ACKs (40 ms), SACK + PRR, RACK-TLP, RTO ≥ RTT + 200 ms
        (initial 1 s), 1500-B packets; changed: initial_window 2
    """
    p = get(profile)
    tables = [tcps] if isinstance(tcps, Mapping) else list(tcps)
    if not tables:
        return f"{p.name} profile (no TCP)"
    ccs = list(dict.fromkeys(str(t.get("cc")) for t in tables))
    changed: dict[str, Any] = {}
    for t in tables:
        for k, v in overrides(t, p.name).items():
            if k != "cc":
                changed.setdefault(k, v)
    text = f"{p.name} profile: " + details_text(dict(tables[0], cc=" + ".join(ccs)))
    if changed:
        text += "; changed: " + ", ".join(f"{k} {_value_text(v)}" for k, v in sorted(changed.items()))
    return text


def markdown_table() -> str:
    """Every profile's details side by side (docs/simulate.md's table is checked against it)."""
    keys = list(_LINUX.tcp)
    lines = ["| detail | " + " | ".join(NAMES) + " |", "|---|" + "---|" * len(NAMES)]
    for k in keys:
        lines.append(f"| `{k}` | " + " | ".join(_value_text(PROFILES[n].tcp[k]) if PROFILES[n].tcp[k] is not None
                                                 else "none" for n in NAMES) + " |")
    return "\n".join(lines)
