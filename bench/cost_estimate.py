"""Compare bufsize.cost.estimate with measured peak RSS and wall time; writes bench/cost_estimate.md.

    .venv/bin/python bench/cost_estimate.py            # all scenarios, one process each (about 1 min)
    .venv/bin/python bench/cost_estimate.py --no-write # print only

Each scenario runs in a fresh Python process (``bufsize.simulate`` with no progress bar); the child
reports its own peak RSS (ru_maxrss) and the wall time of the simulate call. Wall times on a shared
machine are noisy: the table records the load average next to them.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

from bufsize.cost import estimate  # noqa: E402

CHILD = r"""
import json, resource, sys, time
import bufsize.simulate as S
sc = json.loads(sys.argv[1])
def cpu():
    u = resource.getrusage(resource.RUSAGE_SELF)
    return u.ru_utime + u.ru_stime
t0, c0 = time.perf_counter(), cpu()
r = S.simulate(sc, progress=False)
wall, cpu_s = time.perf_counter() - t0, cpu() - c0
print(json.dumps({"rss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "wall": wall, "cpu": cpu_s,
                  "events": r.summary.get("events")}))
"""

DB = {"rtt": "20ms..140ms"}
#: name -> scenario (dict form); chosen to load each part of the estimate in turn.
SCENARIOS: dict[str, dict] = {
    "1 flow, 10 Mb/s, 20 s": {"duration": "20s", "warmup": "2s",
                              "dumbbell": {"capacity": "10Mbps", "flows": 1, "rtt": "100ms", "buffer": "0.5bdp"}},
    "OC3, 400 flows, 30 s": {"duration": "30s", "warmup": "5s",
                             "dumbbell": {"capacity": "155Mbps", "flows": 400, **DB, "buffer": "bdp/sqrt(n)"}},
    "1 Gb/s, 10 flows, 10 s": {"duration": "10s", "warmup": "1s",
                               "dumbbell": {"capacity": "1Gbps", "flows": 10, "rtt": "50ms", "buffer": "400pkt"}},
    "1 Gb/s, 1000 flows, 10 s": {"duration": "10s", "warmup": "1s",
                                 "dumbbell": {"capacity": "1Gbps", "flows": 1000, **DB, "buffer": "bdp/sqrt(n)"}},
    "10 Gb/s, 10 000 flows, 2 s": {"duration": "2s", "warmup": "1s",
                                   "dumbbell": {"capacity": "10Gbps", "flows": 10000, **DB, "buffer": "bdp/sqrt(n)"}},
    "10 Mb/s, 200 000 flows, 2 s": {"duration": "2s", "warmup": "1s",
                                    "dumbbell": {"capacity": "10Mbps", "flows": 200000, "rtt": "100ms",
                                                 "buffer": "100pkt"}},
    "queue trace 10 µs, 20 s": {"duration": "20s", "warmup": "0s",
                                "dumbbell": {"capacity": "10Mbps", "flows": 1, "rtt": "50ms", "buffer": "40pkt"},
                                "measure": {"queue_trace_interval": "10us"}},
    "cwnd traces 20 flows × 100 µs": {"duration": "10s", "warmup": "0s",
                                      "dumbbell": {"capacity": "10Mbps", "flows": 20, "rtt": "50ms",
                                                   "buffer": "40pkt"},
                                      "measure": {"cwnd_trace_interval": "100us",
                                                  "cwnd_trace_flows": list(range(20))}},
    "cwnd-sum every 1 µs": {"duration": "10s", "warmup": "0s",
                            "dumbbell": {"capacity": "10Mbps", "flows": 1, "rtt": "50ms", "buffer": "40pkt"},
                            "measure": {"cwnd_sum_interval": "1us"}},
    "short flows, 60 000 transfers": {"duration": "20s", "warmup": "0s",
                                      "dumbbell": {"capacity": "100Mbps", "flows": 1, "rtt": "50ms",
                                                   "buffer": "100pkt"},
                                      "short_flows": [{"load": 0.5, "size": "2pkt", "rtt": "50ms"}]},
    "unlimited buffer, 100 Mb/s": {"duration": "10s", "warmup": "0s",
                                   "dumbbell": {"capacity": "100Mbps", "flows": 10, "rtt": "50ms",
                                                "buffer": "unlimited"}},
    "examples/mixed_traffic.toml": "examples/mixed_traffic.toml",
    "examples/cross_traffic.toml": "examples/cross_traffic.toml",
    "examples/oc3_400.toml": "examples/oc3_400.toml",
}


def measure(scenario) -> dict:
    from bufsize.scenario import Scenario

    sc = Scenario.from_file(ROOT / scenario) if isinstance(scenario, str) else Scenario.from_dict(scenario)
    out = subprocess.run([sys.executable, "-c", CHILD, sc.to_json()], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()
    from bufsize.scenario import Scenario

    rows = []
    for name, spec in SCENARIOS.items():
        sc = Scenario.from_file(ROOT / spec) if isinstance(spec, str) else Scenario.from_dict(spec)
        est = estimate(sc)
        load = os.getloadavg()[0]
        got = measure(spec)
        r = {"name": name, "mem_est": est.memory_bytes / 2**20, "mem": got["rss"] / 2**20,
             "cpu_est": est.cpu_seconds, "cpu": got["cpu"], "wall_est": est.wall_seconds, "wall": got["wall"],
             "ev_est": est.events, "ev": got["events"] or 0, "load": load}
        r["mem_ratio"], r["cpu_ratio"], r["wall_ratio"] = r["mem_est"] / r["mem"], r["cpu_est"] / r["cpu"], \
            r["wall_est"] / r["wall"]
        rows.append(r)
        print(f"{name:32s} mem {r['mem_est']:6.0f}/{r['mem']:6.0f} MiB ({r['mem_ratio']:.2f}x)  "
              f"cpu {r['cpu_est']:6.2f}/{r['cpu']:6.2f} s ({r['cpu_ratio']:.2f}x)  "
              f"wall {r['wall_est']:6.2f}/{r['wall']:6.2f} s ({r['wall_ratio']:.2f}x)  "
              f"events {r['ev_est']:.3g}/{r['ev']:.3g}  load {load:.1f}", flush=True)
    lines = [
        "# Cost estimate vs measured runs (`bench/cost_estimate.py`)",
        "",
        f"Generated {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC on "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs (shared with other jobs); "
        "command: `.venv/bin/python bench/cost_estimate.py`. Each run is a fresh Python process calling "
        "`bufsize.simulate`; memory is its peak resident set (ru_maxrss), CPU and wall the CPU time and "
        "elapsed time of the simulate call. The wall estimate is the CPU estimate times the load factor "
        "max(1, 0.7 × 1-minute load average / CPUs) read just before the run; `load` is that load average. "
        "Ratio = estimate / measured; the estimate aims at 0.5–2.",
        "",
        "| scenario | memory est MiB | measured MiB | ratio | CPU est s | measured s | ratio "
        "| wall est s | measured s | ratio | events est | events | load |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(f"| {r['name']} | {r['mem_est']:.0f} | {r['mem']:.0f} | {r['mem_ratio']:.2f} | "
                     f"{r['cpu_est']:.2f} | {r['cpu']:.2f} | {r['cpu_ratio']:.2f} | "
                     f"{r['wall_est']:.2f} | {r['wall']:.2f} | {r['wall_ratio']:.2f} | "
                     f"{r['ev_est']:.3g} | {r['ev']:.3g} | {r['load']:.1f} |")
    rng = lambda k: f"{min(r[k] for r in rows):.2f}–{max(r[k] for r in rows):.2f}"  # noqa: E731
    lines += ["", f"Ratio ranges: memory {rng('mem_ratio')}, CPU {rng('cpu_ratio')}, wall {rng('wall_ratio')}.", ""]
    if not args.no_write:
        (ROOT / "bench" / "cost_estimate.md").write_text("\n".join(lines))
    print(lines[-2])


if __name__ == "__main__":
    main()
