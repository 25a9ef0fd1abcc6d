"""Shared setup of paper 002's simulations (S002): one bottleneck, long-lived flows with a window cap
Wmax, 1000-byte packets, average RTT 100 ms, Reno ('reno') vs the paper's paced TCP (the engine's
'paced': NewReno whose new segments leave evenly, cwnd per RTT, as 002 §III describes).

"Average RTT 100 ms" does not say the RTTs are identical. With identical RTTs this engine's
ACK-clocked, window-capped flows lock into a phase where nothing is dropped (002-Fig1/2: Reno at
80 %, no losses) — an artefact of a deterministic simulator, not the paper's network. The primary
setting therefore breaks that phase lock with RTT heterogeneity at a fixed harmonic mean: the
reciprocals 1/RTT_i are evenly spaced over ±10 % of 1/(100 ms), so every RTT lies in 91–111 ms and
the harmonic mean, which sets the peak offered load Σ Wmax/RTT_i, is exactly 100 ms (the offered
load is the paper's, unlike a uniform 50–150 ms spread, which raised it by about 10 %). The
identical-RTT runs are kept as a labelled sensitivity series: drawn and listed, not checked.

Even with spread RTTs the engine's exact integer clock can hold a few window-capped Reno flows in a
lossless periodic state behind a buffer of a few packets, which ns-2.35 (the papers' simulator) never
reaches on the same inputs (bench/ns2/tiny_buffers.md: N = 2, B = 5, 0.78 against ns-2's 0.14; N = 10,
B = 10, 0.326 against 0.291). A microsecond of host jitter (the time a packet waits before TCP sees
it) removes that lock-in and brings the engine nearer ns-2 (0.311 there) while leaving the agreement
elsewhere as it was (bench/ns2's OC3 grid and 004 Fig. 15 cells); the ``ns2`` profile carries it since
2026-11-29 (before, 002's runs set it themselves).

002's buffers are ns-2 DropTail limits, which count the packet in transmission: a buffer of B
packets runs as the engine's limit B − 1 (:func:`bufsize.reproduce._stack.ns2_limit`). With both, the
engine reads what ns-2.35 reads behind a few packets (bench/ns2/tiny_buffers.md: N = 10, B = 10, 0.289
against 0.291).
"""

from __future__ import annotations

from bufsize.reproduce._setup import Setting

VARIANTS = {"reno": "reno", "paced": "paced"}
#: the primary series first; "fixed" is the identical-RTT sensitivity series
RTTS = {"hm": "RTT_i = 1/((1 + 0.1·(2i/(N−1) − 1))/100 ms)", "fixed": "100ms"}
PRIMARY = "hm"
SENSITIVITY = "fixed"
#: ± spread of 1/RTT around 1/(100 ms) in the primary series
HET = 0.10
RTT_LABEL = {"hm": "RTTs 91–111 ms (harmonic mean 100 ms)", "fixed": "every RTT 100 ms (sensitivity)"}


def rtts_at_harmonic_mean(n: int, mean_s: float = 0.1, het: float = HET) -> list[str]:
    """Per-flow two-way delays whose harmonic mean is ``mean_s``: 1/RTT_i evenly spaced over
    (1 ± het)/mean_s (one flow gets exactly ``mean_s``). Strings in µs-rounded ms for the engine."""
    if n <= 1:
        return [f"{mean_s * 1e3:g}ms"]
    return [f"{1e3 * mean_s / (1 + het * (2 * i / (n - 1) - 1)):.4f}ms" for i in range(n)]


def rtt_value(key: str, n: int):
    """What the engine gets for a series key and flow count."""
    if key == "hm":
        return rtts_at_harmonic_mean(n)
    return RTTS[key]


def scenario(*, flows: int, capacity_bps: float, buffer: int, variant: str, rtt: str, duration: float, warmup: float,
             max_window: int | None = 32, access_bps: float | None = None, seed: int = 1, **extra):
    from bufsize.reproduce import _stack

    kw = dict(extra)   # e.g. cwnd_trace_flows, cwnd_trace_interval
    if access_bps is not None:
        kw["access_capacity"] = f"{access_bps:g}bps"
    if max_window is not None:
        kw["max_window"] = max_window
    return _stack.dumbbell(capacity=f"{capacity_bps:g}bps", flows=flows, rtt=rtt_value(rtt, flows),
                             buffer=f"{_stack.ns2_limit(buffer)}pkt",
                             duration=f"{duration:g}s", warmup=f"{warmup:g}s", seed=seed, cc=VARIANTS[variant],
                             packet_size="1000B", sack=False, prr=False, start="0s..100ms", **kw)


#: what 002 says of its paced TCP, said in the misses' causes: it gives no implementation detail
PACED_UNSTATED = ("002 says only 'We implemented Paced TCP' (§III) and describes it there; our engine's paced TCP "
                  "spaces every window evenly over the RTT")

ENGINE = ("bufsize's engine instead of ns-2; paced TCP is the engine's 'paced' (002 §III's even pacer: NewReno "
          "whose new segments leave evenly, cwnd per RTT), Reno its 'reno'. RTTs: per-flow 91–111 ms at a harmonic "
          "mean of exactly 100 ms (breaks the identical-RTT phase lock at the paper's offered load); identical 100-ms "
          "RTTs are run as a sensitivity series and not checked. Every run has 1 µs of host jitter: without it the "
          "engine's exact clock can hold a few Reno flows in a lossless state behind a few packets that ns-2.35 "
          "never reaches (bench/ns2/tiny_buffers.md).")


# -- where the settings of 002's runs come from (the items' SETUP tables compose these)

#: the stack every 002 simulation runs (both TCPs)
SETUP_STACK = (
    Setting("simulator and TCP stack",
            "bufsize's engine on the ns2 profile: ns-2.35's Agent/TCP rules (no SACK, an ACK for every segment, "
            "initial RTO 3 s, min RTO 200 ms, max RTO 60 s, limited transmit, ns-2's halving), an initial window of 1 "
            "(ns-2's SYN, then its window of 2), 1 µs host jitter", "ours",
            "002 ran ns-2 (§III: 'simulations using the popular ns2 simulation tool') and gives none of its agents' "
            "parameters; the ns2 profile carries ns-2.35's defaults. The 1 µs jitter is not ns-2's: it keeps the "
            "engine's exact clock from locking a few window-capped flows in a lossless state that ns-2.35 does not "
            "reach on the same inputs (bench/ns2/tiny_buffers.md)"),
)

#: the Reno the items call 'unmodified TCP' (the TCP is named by each item)
RENO_VALUE = "Reno (the engine's 'reno': Reno's fast recovery with ns-2's bugfix_ rule)"

#: 002's paced TCP as the engine runs it
SETUP_PACED = (
    Setting("paced TCP", "the engine's 'paced': a window's new segments leave evenly, one every RTT/cwnd", "paper",
            "the TCP sending agent “paces” its packets deterministically over an entire RTT", "§I"),
    Setting("paced TCP's details",
            "NewReno's window law and recovery; rate cwnd / (latest RTT sample), in slow start too; unpaced until the "
            "first RTT sample; retransmissions unpaced", "ours",
            "002 says only 'We implemented Paced TCP' (§III) with packets 'spread uniformly throughout the window' "
            "(§II), no base TCP or RTT estimate; FIGURES.md assumed a gap of SRTT/cwnd with pacing in slow start, "
            "after Aggarwal et al. [2]; the engine paces on the latest RTT sample (docs/congestion_control.md)"),
)

#: the window cap's mechanics (Wmax itself is each item's)
WINDOW_CAP = Setting(
    "window cap rule", "at most Wmax packets unacknowledged; cwnd itself may grow past Wmax", "paper",
    "even if CWND is more than 32, the source doesn't allow more than 32 un-acknowledged packets", "footnote 3 (§III)")

#: settings every 002 simulation shares
SETUP_COMMON = (
    Setting("start times", "uniform over 0–100 ms, drawn from the seed", "figures",
            "FIGURES.md (S002): 'a random start jitter over one RTT (assumed)'; 002 gives no start times"),
    Setting("buffer as run", "an ns-2 DropTail limit_ of B packets: the engine's limit B − 1 waiting plus the one on "
            "the wire", "ours",
            "002's buffers are ns-2 queue limits, which count the packet in transmission; _stack.ns2_limit reads "
            "them so (bench/ns2/tiny_buffers.md: N = 10, B = 10, 0.289 against ns-2.35's 0.291)"),
    Setting("other traffic", "none: the N long-lived flows and their ACKs", "ours",
            "002 names no cross or reverse traffic for its simulations"),
)

#: the access links where 002 does not sweep them (Figs 1–4, 6)
ACCESS = Setting("access links", "one per flow at 10 × C (the engine's default), unlimited buffer", "ours",
                 "002 describes no access links for this experiment (Appendix I's Fig. 7 joins the sources straight to "
                 "the router); 10 × C keeps them far faster than the bottleneck")


def rtt_setup(said: str, sensitivity: str) -> tuple:
    """The RTT settings of one item: the checked per-flow RTTs (``said``: what 002 says of this experiment's RTT)
    and the identical-RTT sensitivity series (``sensitivity``: which runs it covers)."""
    return (
        Setting("round-trip times",
                "per flow: 1/RTT_i evenly spaced over (1 ± 0.1)/(100 ms), so 91–111 ms with a harmonic mean of exactly "
                "100 ms (arithmetic mean 100.3–100.4 ms; one flow: 100 ms); propagation only", "ours",
                f"{said}. 002 never says how the RTTs spread; FIGURES.md's every-RTT-100-ms reading locks this "
                "engine's window-capped, ACK-clocked flows into a phase with no drops (a deterministic simulator's "
                "artefact), so the RTTs are spread; spacing the reciprocals keeps the peak offered load Σ Wmax/RTT_i "
                "at its 100-ms value"),
        Setting("identical-RTT sensitivity series", f"every RTT 100 ms; {sensitivity}; drawn and listed, not checked",
                "figures", "FIGURES.md (S002): RTT 'all 100 ms with a random start jitter over one RTT (assumed)'"),
    )


#: the packet size where 002 states it only for other figures
PACKET_FIGURES = Setting("packet size", "1000 bytes (40 of them headers; ns-2's packetSize_ 1000)", "figures",
                         "FIGURES.md (§3): 'All simulations are ns-2 with 1000-byte packets'; 002 states 1000 bytes "
                         "for Figs 1 and 4 only")
