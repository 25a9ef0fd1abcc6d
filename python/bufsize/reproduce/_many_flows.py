"""The shared run of 004 Figs 8 and 9: many long flows with different RTTs and start times.

FIGURES.md's assumed default (the paper states neither n, C, RTT nor B): C = 1 Gb/s, 1000-byte
packets, RTT uniform 21–147 ms (mean 84 ms, so 2T̄p·C = 10 500 packets, the offset of Fig. 9),
n = 500 flows, B = BDP/√n = 470 packets. Reno (``CC``; see ``ENGINE_NOTE`` for the NewReno run it replaced).
"""

from __future__ import annotations

from functools import lru_cache

from bufsize.reproduce import _p004
from bufsize.reproduce._setup import Setting

N = 500
BDP = 10_500
BUFFER = 470
C_PPS = 125_000.0
PACKET_BYTES = 1000
TRACE_S = 0.025
CC = "reno"

ENGINE_NOTE = ("Reno, the paper's variant. These figures first ran NewReno (RFC 6582) because the engine's 'reno' then "
               "halved a FlightSize that included data sent during inflated recoveries and its windows fed on "
               "themselves (loss 15 %, Σcwnd ≈ 823 000 packets against a pipe of ≈ 11 000). Reno now halves "
               "min(FlightSize, cwnd) and behaves physically; the quick run with each (same seed) gave: Reno "
               "utilization 0.957, loss 1.04 %, 18 594 timeouts, ΣW 8 846 ± 352, KS 0.054; NewReno 0.979, "
               "1.36 %, 12 063 timeouts, ΣW 8 740 ± 278, KS 0.040.")


#: the setting of the run Figs 8 and 9 share (each adds its seeds)
SETUP = (
    Setting("flows", "500 long-lived flows", "figures",
            "FIGURES.md: 'n, C, RTT and B are unspecified' … default 'n = 500' (assumed)"),
    Setting("flows' differences", "each flow its own RTT and start time (both drawn at random)", "paper",
            "different propagation times and start times as explained in Section 5.1", "§3.2 (Fig. 8)"),
    _p004.TCP_RENO,
    _p004.tcp_stack(),
    Setting("bottleneck capacity", "1 Gb/s (125 000 packets/s)", "figures",
            "FIGURES.md: 'Default (assumed): C = 1 Gb/s, 1000 B packets, mean RTT 84 ms, n = 500, B = BDP/√n ≈ 470'"),
    Setting("packet size", "1000 bytes", "figures", "FIGURES.md's default for Figs 8–9: '1000 B packets' (assumed)"),
    Setting("RTTs", "uniform 21–147 ms (mean 84 ms: 2T̄p·C = 10 500 packets)", "figures",
            "FIGURES.md: mean RTT 84 ms, inferred from Fig. 9's offset of 10 500 packets; spread U[0.25, 1.75] × "
            "mean (its S004 assumption)"),
    Setting("buffer", "470 packets = 2T̄p·C/√n (an ns-2 limit_: the engine holds 469 waiting)", "figures",
            "FIGURES.md: 'B = BDP/√n ≈ 470' (assumed)"),
    _p004.QUEUE,
    Setting("start times", "uniform over 0–10 s", "ours",
            "FIGURES.md's S004 assumes starts 'random over the first seconds'; 10 s spreads 500 slow starts"),
    Setting("access links", "10 Gb/s per flow (10 × C, the engine's default), queues unlimited", "ours",
            "004 gives none for this run; faster than the bottleneck as §4 says of its simulations"),
    Setting("run length", "400 s, the first 100 s left out (quick: 150 s, 50 s)", "ours",
            "004's runs simulated 'several minutes of network traffic' (§5.1); the warm-up covers 500 slow starts "
            "and Reno's recovery from them"),
    Setting("sampling", "Σcwnd and the queue every 25 ms after the warm-up", "ours",
            "004 gives no sampling interval; 25 ms is under a third of the smallest RTT"),
)


def scenario(mode: str, seed: int = 1):
    from bufsize.reproduce import _stack

    duration, warmup = (150.0, 50.0) if mode == "quick" else (400.0, 100.0)
    return _stack.dumbbell(capacity="1Gbps", flows=N, rtt="21ms..147ms", buffer=f"{_stack.ns2_limit(BUFFER)}pkt",
                             duration=f"{duration:g}s", warmup=f"{warmup:g}s", seed=seed, cc=CC,
                             packet_size=f"{PACKET_BYTES}B", sack=False, prr=False, start="0s..10s", queue_trace_interval=f"{TRACE_S * 1000:g}ms",
                             cwnd_trace_flows=list(range(N)), cwnd_trace_interval=f"{TRACE_S * 1000:g}ms")


@lru_cache(maxsize=4)
def _cached(mode: str, workers: int, scheduler, seed: int = 1):
    from bufsize.reproduce._core import Context
    from bufsize.reproduce._sim import run_scenarios

    sc = scenario(mode, seed)
    (res,) = run_scenarios([sc], Context(mode=mode, workers=workers), tables=("queue_trace", "cwnd_traces", "flows"))
    c = res["cwnd_traces"]
    w = c.groupby("t_s", sort=True).cwnd.sum()
    q = res["queue_trace"].set_index("t_s").queue_packets.reindex(w.index)
    return sc, res, w, q


def run_many(ctx, seed: int = 1):
    """(scenario, result dict, Σcwnd series, queue series on the same instants); one run per process, mode
    and seed."""
    client = getattr(ctx, "client", None)
    if client is not None:
        from bufsize.reproduce._sim import run_scenarios

        sc = scenario(ctx.mode, seed)
        (res,) = run_scenarios([sc], ctx, tables=("queue_trace", "cwnd_traces", "flows"))
        c = res["cwnd_traces"]
        w = c.groupby("t_s", sort=True).cwnd.sum()
        return sc, res, w, res["queue_trace"].set_index("t_s").queue_packets.reindex(w.index)
    return _cached(ctx.mode, ctx.workers, None, seed)
