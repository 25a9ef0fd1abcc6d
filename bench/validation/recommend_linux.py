#!/usr/bin/env python3
"""Does recommend's verified size meet its goal on real Linux?

Two links, each sized by ``bufsize recommend`` (verified on the simulator with the default
``linux`` profile) and then run on the kernel testbed through a drop-tail port of exactly that
many packets, the bottleneck released at the rate as a router port is (``--burst 1514B``):

- ``cubic-users``: 20 Mb/s, 3 CUBIC flows at 10/30/60 ms and 3 closed-loop users (Pareto
  transfers, think times) on the same RTTs. recommend cannot be told about closed-loop users by
  flags, so it gets the traffic the way an operator would hand it over: a capture of the same
  traffic taken at the testbed's bottleneck (through a 1-BDP port), ``recommend --traffic``.
- ``cubic-30``: 100 Mb/s, 30 CUBIC flows with RTTs spread over 10–60 ms, described by flags.
- ``reno-8``: 50 Mb/s, 8 Reno flows, RTTs 40–100 ms, a 98 % goal, described by flags.

Goal: utilization ≥ 0.99 (recommend's default) unless the link says. Each kernel point is two accepted runs (seeds 1
and 2); the result is their mean with the runs' spread. The testbed refuses runs while the
machine is busy (fidelity checks): run this with nothing else running.

    sudo .venv/bin/python bench/validation/recommend_linux.py        # -> recommend_linux.csv, .md

Resumable: a link already in the CSV with its verified size is not run again (``--force`` reruns).
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
BUFSIZE = ROOT / ".venv" / "bin" / "bufsize"
CSV = HERE / "recommend_linux.csv"
MD = HERE / "recommend_linux.md"
GOAL = 0.99
DURATION, WARMUP = "40s", "10s"
BURST = 1514

LINKS = {
    "cubic-users": {"rate": "20Mbps", "rtt": "10ms,30ms,60ms", "flows": 3, "users": 3, "cc": "cubic",
                    "describe": "20 Mb/s, 3 CUBIC flows at 10/30/60 ms + 3 closed-loop users, from a capture"},
    "cubic-30": {"rate": "100Mbps", "rtt": "10ms..60ms", "flows": 30, "users": 0, "cc": "cubic",
                 "describe": "100 Mb/s, 30 CUBIC flows, RTTs 10–60 ms, by flags"},
    "reno-8": {"rate": "50Mbps", "rtt": "40ms..100ms", "flows": 8, "users": 0, "cc": "reno", "goal": 0.98,
               "describe": "50 Mb/s, 8 Reno flows, RTTs 40–100 ms, goal 0.98, by flags"},
}
FIELDS = ("link", "describe", "goal", "recommend_args", "verified_packets", "sim_utilization", "stack",
          "kernel_utilization", "kernel_runs", "kernel_min", "kernel_max", "kernel_loss", "met",
          "rejected_attempts", "when")


def _cfg(link: dict, buffer: str, seed: int = 1):
    from bufsize.testbed.config import TestbedConfig

    return TestbedConfig.dumbbell(rate=link["rate"], rtt=link["rtt"], buffer=buffer, flows=link["flows"],
                                  users=link["users"], cc=link["cc"], duration=DURATION, warmup=WARMUP,
                                  seed=seed, burst_bytes=BURST)


def _recommend(args: list[str]) -> dict:
    r = subprocess.run([str(BUFSIZE), "recommend", *args, "--verify", "--json"], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"recommend {' '.join(args)} failed: {r.stderr.strip().splitlines()[-1:]}")
    return json.loads(r.stdout)


def size_link(name: str, link: dict, log) -> tuple[list[str], dict]:
    """recommend's arguments for the link and its JSON answer."""
    if link["users"]:
        from bufsize.testbed.runner import run_once

        pcap = HERE / f"recommend_linux_{name}.pcap"
        if not pcap.exists():
            log(f"{name}: capturing the traffic at the testbed's bottleneck (1 BDP port)")
            att = run_once(_cfg(link, "1bdp"), capture=pcap, log=log)
            if not att.accepted:
                pcap.unlink(missing_ok=True)
                raise SystemExit(f"{name}: the capture run was refused: {'; '.join(att.reasons)}")
        args = ["--traffic", str(pcap.relative_to(ROOT)), "--capacity", link["rate"]]
    else:
        args = ["--capacity", link["rate"], "--rtt", link["rtt"], "--flows", str(link["flows"]),
                "--mix", f"{link['cc']}=1"]
    if "goal" in link:
        args += ["--target-utilization", str(link["goal"])]
    return args, _recommend(args)


def measure(name: str, link: dict, packets: int, log) -> dict:
    from bufsize.testbed.runner import run

    res = run(_cfg(link, str(packets)), repeats=2, attempts=3, log=log)
    utils = [float(a.summary["utilization"]) for a in res.runs]
    losses = [float(a.summary.get("loss_rate", float("nan"))) for a in res.runs]
    return {"kernel_utilization": sum(utils) / len(utils) if utils else float("nan"),
            "kernel_runs": len(utils), "kernel_min": min(utils, default=float("nan")),
            "kernel_max": max(utils, default=float("nan")),
            "kernel_loss": sum(losses) / len(losses) if losses else float("nan"),
            "rejected_attempts": len(res.failed), "rejected": res.rejected}


def _stack(simulated: str) -> str:
    """The stack part of a "simulated:" text (from "<profile> profile: ..." on)."""
    import re

    m = re.search(r"\b(linux|ns3|ns2) profile: .*$", simulated)
    return m.group(0) if m else ""


def read_rows() -> dict[str, dict]:
    if not CSV.exists():
        return {}
    with CSV.open() as f:
        return {r["link"]: r for r in csv.DictReader(f)}


def write(rows: dict[str, dict]) -> None:
    with CSV.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        for r in rows.values():
            w.writerow({k: r.get(k, "") for k in FIELDS})
    lines = ["# recommend's verified size on real Linux", "",
             f"Generated by `bench/validation/recommend_linux.py` (see its docstring). Goal: utilization ≥ {GOAL} "
             "unless the link says; "
             f"kernel testbed, drop-tail port of the verified size, htb released at the rate (burst {BURST} B), "
             f"{DURATION} runs measured after {WARMUP}, two accepted runs per link.", "",
             "| link | goal | verified (packets) | simulated at it | kernel utilization (runs) | kernel loss | goal met |",
             "|---|---|---|---|---|---|---|"]
    for r in rows.values():
        lines.append(f"| {r['describe']} | {r['goal']} | {r['verified_packets']} | {float(r['sim_utilization']):.4f} | "
                     f"{float(r['kernel_utilization']):.4f} ({r['kernel_runs']}: {float(r['kernel_min']):.4f}–"
                     f"{float(r['kernel_max']):.4f}) | {100 * float(r['kernel_loss']):.2f} % | {r['met']} |")
    lines += ["", "Simulated stack: " + "; ".join(sorted({r['stack'] for r in rows.values() if r.get('stack')})), ""]
    MD.write_text("\n".join(lines))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--links", nargs="*", default=list(LINKS))
    ap.add_argument("--force", action="store_true")
    a = ap.parse_args(argv)
    log = lambda s: print(s, file=sys.stderr, flush=True)  # noqa: E731
    rows = read_rows()
    for name in a.links:
        link = LINKS[name]
        if name in rows and not a.force and rows[name].get("kernel_utilization"):
            continue
        args, rec = size_link(name, link, log)
        ver = rec.get("verified") or {}
        b = ver.get("buffer_packets")
        if not b:
            raise SystemExit(f"{name}: recommend gave no verified size: {ver.get('status')}")
        log(f"{name}: recommend verified {b} packets; running the kernel testbed there")
        m = measure(name, link, int(b), log)
        if m.pop("rejected"):
            raise SystemExit(f"{name}: the kernel runs were refused (a busy machine?); nothing written")
        rows[name] = {"link": name, "describe": link["describe"], "recommend_args": " ".join(args),
                      "verified_packets": b, "sim_utilization": ver["at_size"]["utilization"],
                      "stack": _stack(ver.get("simulated", "")),
                      "goal": link.get("goal", GOAL),
                      **m, "met": "yes" if m["kernel_utilization"] >= link.get("goal", GOAL) else "no",
                      "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
        write(rows)
    write(rows)
    print(MD.read_text())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
