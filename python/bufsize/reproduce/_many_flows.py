"""The shared run of 004 Figs 8 and 9: many long flows with different RTTs and start times.

FIGURES.md's assumed default (the paper states neither n, C, RTT nor B): C = 1 Gb/s, 1000-byte
packets, RTT uniform 21–147 ms (mean 84 ms, so 2T̄p·C = 10 500 packets, the offset of Fig. 9),
n = 500 flows, B = BDP/√n = 470 packets. Reno (``CC``; see ``ENGINE_NOTE`` for the NewReno run it replaced).
"""

from __future__ import annotations

from functools import lru_cache

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
