"""The testbed twin with RACK-TLP and with duplicate-ACK loss detection (docs/congestion_control.md,
"Loss detection"): utilization, loss and timeouts at the settings of issue 24 §2 (SACK on and off),
and every point recorded on the kernel testbed (bench/testbed/results) against both twins.

    python bench/twin_loss_detection.py            # both tables, about a minute of CPU
    python bench/twin_loss_detection.py settings   # the first only
"""

from __future__ import annotations

import glob
import json
import statistics as st
import sys
from pathlib import Path

from bufsize.simulate import simulate
from bufsize.testbed.compare import simulator_twin
from bufsize.testbed.config import TestbedConfig

SEEDS = (1, 2, 3)
SETTINGS = {
    "20 Reno, 50 Mb/s, 20-100 ms, 25 packets (0.1 BDP)": dict(rate="50Mbps", rtt="20ms..100ms", buffer="25",
                                                              flows=20, cc="reno"),
    "20 Reno, 50 Mb/s, 20-100 ms, 125 packets (0.5 BDP)": dict(rate="50Mbps", rtt="20ms..100ms", buffer="125",
                                                               flows=20, cc="reno"),
    "32 Reno, 100 Mb/s, 40-100 ms, 0.1 BDP": dict(rate="100Mbps", rtt="40ms..100ms", buffer="0.1bdp", flows=32,
                                                  cc="reno"),
    "20 CUBIC, 100 Mb/s, 25-35 ms, 10 packets": dict(rate="100Mbps", rtt="25ms..35ms", buffer="10", flows=20,
                                                     cc="cubic"),
}
RESULTS = Path(__file__).resolve().parent / "testbed" / "results"


def twin_mean(cfg_of_seed, loss_detection: str) -> dict[str, float]:
    runs = [simulate(simulator_twin(cfg_of_seed(s), loss_detection), progress=False).summary for s in SEEDS]
    return {k: st.mean(r[k] for r in runs) for k in ("utilization", "loss_rate", "timeouts")}


def settings() -> None:
    print("| traffic | SACK | dupack: utilization, loss, timeouts | rack: utilization, loss, timeouts |")
    print("|---|---|---|---|")
    for name, kw in SETTINGS.items():
        for sack in (False, True):
            def cfg(seed, kw=kw, sack=sack):   # the seed also orders the start times, as `compare --seed` would
                return TestbedConfig.dumbbell(**kw, duration="40s", warmup="10s", sack=sack, seed=seed)
            cells = []
            for ld in ("dupack", "rack"):
                m = twin_mean(cfg, ld)
                cells.append(f"{m['utilization']:.4f}, {100 * m['loss_rate']:.2f} %, {m['timeouts']:.0f}")
            print(f"| {name} | {'on' if sack else 'off'} | {cells[0]} | {cells[1]} |", flush=True)


def kernel_points() -> None:
    print("| kernel point | kernel | dupack twin (diff, points) | rack twin (diff, points) |")
    print("|---|---|---|---|")
    diffs: dict[str, list[float]] = {"dupack": [], "rack": []}
    for f in sorted(glob.glob(str(RESULTS / "*" / "*.json"))):
        j = json.loads(Path(f).read_text())
        agg = j["point"].get("aggregate") or {}
        if j["point"].get("rejected") or "utilization" not in agg or "niced_burners" in j["params"]:
            continue
        cfg = TestbedConfig.dumbbell(**j["params"])
        k = agg["utilization"]["mean"]
        cells = []
        for ld in ("dupack", "rack"):
            u = twin_mean(lambda seed: cfg.replace(seed=seed), ld)["utilization"]
            diffs[ld].append(100 * (u - k))
            cells.append(f"{u:.4f} ({100 * (u - k):+.2f})")
        print(f"| {j['set']}/{Path(f).stem} | {k:.4f} | {cells[0]} | {cells[1]} |", flush=True)
    for ld, d in diffs.items():
        print(f"{ld}: {len(d)} points, mean |diff| {st.mean(map(abs, d)):.3f} points, largest {max(map(abs, d)):.2f}")


if __name__ == "__main__":
    which = sys.argv[1:] or ["settings", "kernel"]
    if "settings" in which:
        settings()
    if "kernel" in which:
        kernel_points()
