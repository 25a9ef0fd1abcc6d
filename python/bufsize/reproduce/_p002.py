"""Shared setup of paper 002's simulations (S002): one bottleneck, long-lived flows with a window cap
Wmax, 1000-byte packets, average RTT 100 ms, Reno ('reno') vs paced TCP ('newreno-paced').

"Average RTT 100 ms" does not say how RTTs are spread. FIGURES.md assumes every RTT = 100 ms; in
this engine identical RTTs make window-capped flows lossless and smooth (002-Fig1, 002-Fig2), so
every 002 figure runs both that setting and RTTs uniform over 50–150 ms (same mean).
"""

from __future__ import annotations

VARIANTS = {"reno": "reno", "paced": "newreno-paced"}
RTTS = {"fixed": "100ms", "spread": "50ms..150ms"}
RTT_LABEL = {"fixed": "every RTT 100 ms", "spread": "RTT uniform 50–150 ms"}


def scenario(*, flows: int, capacity_bps: float, buffer: int, variant: str, rtt: str, duration: float, warmup: float,
             max_window: int | None = 32, access_bps: float | None = None, seed: int = 1):
    from bufsize.scenario import Scenario

    kw = {}
    if access_bps is not None:
        kw["access_capacity"] = f"{access_bps:g}bps"
    if max_window is not None:
        kw["max_window"] = max_window
    return Scenario.dumbbell(capacity=f"{capacity_bps:g}bps", flows=flows, rtt=RTTS[rtt], buffer=f"{buffer}pkt",
                             duration=f"{duration:g}s", warmup=f"{warmup:g}s", seed=seed, cc=VARIANTS[variant],
                             packet_size="1000B", sack=False, prr=False, start="0s..100ms", **kw)


ENGINE = ("bufsize's engine instead of ns-2; paced TCP is the engine's 'newreno-paced' (NewReno with the window "
          "spread over the smoothed RTT, also in slow start), Reno its 'reno'.")
