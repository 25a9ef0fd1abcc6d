"""The rules beyond the five papers (models/spang.py) where CUBIC and BBR share the link: what the
engine measures at the sizes ``bufsize recommend`` gives a mix with BBR.

Run: nice -n 19 .venv/bin/python bench/recommend_modern.py   (prints markdown; docs/recommend.md
quotes it). Each setting is one seed, so a number is one draw, not a mean.

1. One CUBIC and one BBR flow (n = 2 < 250: recommend sizes with the larger of spang-single-flow
   and spang-bbr) at three links: utilization and loss at the recommended size and at half of it.
2. Many flows, CUBIC and BBR mixed (the √n rule for the mix, spang-sqrt-n) at the rule and at a
   quarter of it, with the engine's default loss detection (dupack) and with RACK-TLP (rack).

Engine settings as tests/models/test_spang.py: 1000-byte packets, SACK, no PRR, initial window 10.
"""

from __future__ import annotations

import datetime
import math
import sys

from bufsize.models import spang as S
from bufsize.recommendation import recommend
from bufsize.scenario import Scenario
from bufsize.simulate import simulate

PAIRS = [("10Mbps", "50ms"), ("20Mbps", "30ms"), ("50Mbps", "40ms")]
MANY = [("50Mbps", 20, "20ms..100ms"), ("20Mbps", 10, "40ms..120ms"), ("100Mbps", 40, "20ms..100ms")]


def run(mix: dict[str, int], capacity: str, rtt: str, buffer: float, duration: float, warmup: float,
        loss_detection: str | None = None) -> dict:
    tcp_extra = {"loss_detection": loss_detection} if loss_detection else {}
    classes = [{"name": cc, "flows": k, "tcp": {"cc": cc, "sack": True, "initial_window": 10, **tcp_extra}}
               for cc, k in mix.items()]
    sc = Scenario.dumbbell(capacity=capacity, flows=sum(mix.values()), rtt=rtt,
                           buffer=f"{max(1, round(buffer))}pkt", duration=f"{duration}s", warmup=f"{warmup}s",
                           mix=classes, packet_size="1000B", prr=False)
    return simulate(sc, progress=False).summary


def main() -> None:
    out = [f"Measured {datetime.date.today()} by `bench/recommend_modern.py` (one seed each).", ""]
    out += ["**One CUBIC and one BBR flow** (recommend's size: the larger of spang-single-flow and spang-bbr):", "",
            "| link (BDP) | recommended | util | loss | half | util | loss |", "|---|---:|---:|---:|---:|---:|---:|"]
    for cap, rtt in PAIRS:
        rec = recommend(capacity=cap, rtt=rtt, flows=2, mix="cubic=1,bbr=1", packet_size="1000B")
        b = rec.recommended["buffer_packets"]
        at = run({"cubic": 1, "bbr": 1}, cap, rtt, b, 60.0, 15.0)
        half = run({"cubic": 1, "bbr": 1}, cap, rtt, b / 2, 60.0, 15.0)
        out.append(f"| {cap}, {rtt} ({rec.input.bdp_packets:.4g}) | {round(b)} ({rec.recommended['id']}) | "
                   f"{at['utilization']:.4f} | {at['loss_rate']:.4f} | {round(b / 2)} | {half['utilization']:.4f} | "
                   f"{half['loss_rate']:.4f} |")
        print(out[-1], file=sys.stderr)
    out += ["", "**Many flows, CUBIC and BBR mixed** (spang-sqrt-n; 40 s after 10 s):", "",
            "| setting | mix | rule | util dupack | loss | util rack | loss | rule/4 util rack |",
            "|---|---|---:|---:|---:|---:|---:|---:|"]
    for cap, n, rtt in MANY:
        lo, hi = (float(x.removesuffix("ms")) / 1e3 for x in rtt.split(".."))
        bdp = float(cap.removesuffix("Mbps")) * 1e6 * (lo + hi) / 2 / 8000
        for mix in ({"cubic": n // 2, "bbr": n - n // 2}, {"bbr": n}):
            rule = S.sqrt_n_buffer(bdp, mix)
            d = run(mix, cap, rtt, rule, 40.0, 10.0)
            r = run(mix, cap, rtt, rule, 40.0, 10.0, "rack")
            q = run(mix, cap, rtt, rule / 4, 40.0, 10.0, "rack")
            txt = " + ".join(f"{k} {c}" for c, k in mix.items())
            out.append(f"| {n} flows, {cap}, {rtt} (BDP {bdp:.4g}) | {txt} | {math.floor(rule + 0.5)} | "
                       f"{d['utilization']:.4f} | {d['loss_rate']:.4f} | {r['utilization']:.4f} | "
                       f"{r['loss_rate']:.4f} | {q['utilization']:.4f} |")
            print(out[-1], file=sys.stderr)
    print("\n".join(out))


if __name__ == "__main__":
    main()
