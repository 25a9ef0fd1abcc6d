"""Measurement campaign of the kernel testbed, recorded with confidence intervals.

Each point runs ``--repeats`` accepted testbed runs (each with up to ``--attempts`` tries; a point
whose tries all fail the fidelity checks is recorded as REJECTED with the reasons). Results go to
``bench/testbed/results/<set>/<point>.json``; ``--table`` rewrites ``bench/testbed/RESULTS.md``
from every recorded point. Points already recorded are skipped (the campaign can be resumed).

The simulator column is filled when ``bufsize.simulate`` runs; the model column is the
single-flow sawtooth utilization (Appenzeller et al.) for one-flow sets.

    sudo .venv/bin/python bench/testbed/campaign.py single-reno --repeats 3
    .venv/bin/python bench/testbed/campaign.py --table
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

MULTS = (0.1, 0.25, 0.5, 1.0, 2.0)


def sawtooth_period_s(bdp: float, b: float, rtt: float) -> float:
    """Duration of one Reno sawtooth (window W = BDP + B halving to W/2, +1 segment per RTT) where the
    RTT is ``rtt`` while W <= BDP and ``rtt * W / BDP`` (queueing delay) above."""
    hi, lo = bdp + b, (bdp + b) / 2
    below = max(0.0, min(hi, bdp) - lo) * rtt
    top = max(lo, bdp)
    return below + rtt / bdp * (hi * hi - top * top) / 2 if hi > bdp else below
SETS = {
    # one Reno flow, 50 Mb/s, RTT 40 ms: sawtooth period (BDP + B)/2 RTTs = 3.6 s (0.1 BDP) .. 10 s (2 BDP)
    "single-reno": [dict(rate="50Mbps", rtt="40ms", flows=1, cc="reno", buffer=f"{m}bdp", duration="60s",
                         warmup="10s") for m in MULTS],
    # the same points with at least 10 sawtooth periods in the measured window at every B (see
    # sawtooth_period_s: the queueing delay stretches the RTTs above BDP, so a period at 2 BDP lasts
    # 22 s, not 10 s); the points at 0.1, 0.25 and 2 BDP first, so that a short session records those
    "single-reno-10p": [dict(rate="50Mbps", rtt="40ms", flows=1, cc="reno", buffer=f"{m}bdp",
                             duration=f"{math.ceil(10 * sawtooth_period_s(165, m * 165, 0.040)) + 10}s",
                             warmup="10s") for m in (0.1, 0.25, 2.0, 0.5, 1.0)],
    # the other end of the RTT range: one Reno flow at RTT 100 ms (BDP 413 packets), >= 10 periods
    "single-reno-100ms-10p": [dict(rate="50Mbps", rtt="100ms", flows=1, cc="reno", buffer=f"{m}bdp",
                                   duration=f"{math.ceil(10 * sawtooth_period_s(412.8, m * 412.8, 0.100)) + 10}s",
                                   warmup="10s") for m in (0.1, 0.25, 0.5, 1.0, 2.0)],
    # experiment on the 0.1 BDP gap: the 0.1 BDP point of single-reno-10p with RACK and TLP turned off in
    # the sender's namespace (tcp_recovery=0: loss detection by three duplicate ACKs; tcp_early_retrans=0:
    # no tail loss probes), the rest of Linux's recovery (SACK, PRR, undo) unchanged
    "single-reno-10p-norack": [dict(rate="50Mbps", rtt="40ms", flows=1, cc="reno", buffer="0.1bdp", duration="47s",
                                    warmup="10s", sender_sysctls=("net.ipv4.tcp_recovery=0",
                                                                  "net.ipv4.tcp_early_retrans=0"))],
    # the 0.1 BDP point of single-reno-10p while two `nice -n 19` busy loops keep both CPUs busy (niced
    # work passes the machine-load check, which counts un-niced work only): is the gap of the first
    # single-reno set, whose accepted runs shared the machine with other work, an effect of CPU load?
    "single-reno-10p-load": [dict(rate="50Mbps", rtt="40ms", flows=1, cc="reno", buffer="0.1bdp", duration="47s",
                                  warmup="10s", niced_burners=2)],
    "8-reno-50": [dict(rate="50Mbps", rtt="40ms..100ms", flows=8, cc="reno", buffer=f"{m}bdp", duration="40s",
                       warmup="10s") for m in MULTS],
    "8-cubic-50": [dict(rate="50Mbps", rtt="40ms..100ms", flows=8, cc="cubic", buffer=f"{m}bdp", duration="40s",
                        warmup="10s") for m in MULTS],
    "32-reno-100": [dict(rate="100Mbps", rtt="40ms..100ms", flows=32, cc="reno", buffer=f"{m}bdp", duration="40s",
                         warmup="10s") for m in MULTS],
    "32-cubic-100": [dict(rate="100Mbps", rtt="40ms..100ms", flows=32, cc="cubic", buffer=f"{m}bdp",
                          duration="40s", warmup="10s") for m in MULTS],
    # the other rate for each flow count, so that 8 and 32 flows are both measured at 50 and 100 Mb/s
    **{f"{n}-{cc}-{r}": [dict(rate=f"{r}Mbps", rtt="40ms..100ms", flows=n, cc=cc, buffer=f"{m}bdp", duration="40s",
                              warmup="10s") for m in MULTS]
       for n, r in ((8, 100), (32, 50)) for cc in ("reno", "cubic")},
}


SET_TITLES = {
    "single-reno": "First recording (2026-11-22 00:29–00:47 UTC): 60-s runs measured over 50 s, i.e. fewer than "
                   "10 sawtooth periods at B ≥ 0.5 BDP; the machine was shared with other work during the accepted runs "
                   "(busy 54–100 % of both CPUs, un-niced 10–81 %).",
    "single-reno-10p": "Re-run with at least 10 sawtooth periods in the measured window (`sawtooth_period_s`), on a "
                       "quiet machine (busy < 10 %): 0.1 and 0.25 × BDP on 2026-11-22 from 01:54 UTC; 0.5 × BDP at "
                       "02:33; 1 and 2 × BDP completed from 03:13 with guest halt polling (their first tries, without "
                       "it, were refused for delay-element stalls; the accepted runs of those tries are kept).",
    "single-reno-100ms-10p": "One Reno flow at RTT 100 ms (BDP 413 packets), 0.1 × BDP only (a 0.1-BDP run with 10 "
                             "sawtooth periods lasts 4 minutes here; 1 × BDP would need 10.5 minutes per run). "
                             "2026-11-22 from 04:28 UTC, with guest halt polling and the lateness judged over the "
                             "measurement window.",
    "8-reno-100": "Recorded 2026-11-22 from 03:22 UTC with guest halt polling; 0.1 and 1 × BDP first rejected "
                  "(delay-element stalls) and retried at 04:09 with the lateness judged over the measurement window.",
    "single-reno-10p-norack": "Experiment: the 0.1 BDP point of `single-reno-10p` with RACK and TLP off in the "
                              "sender's namespace (net.ipv4.tcp_recovery=0, net.ipv4.tcp_early_retrans=0).",
    "single-reno-10p-load": "Experiment: the 0.1 BDP point of `single-reno-10p` with two `nice -n 19` busy loops running (both CPUs busy "
                            "with niced work, as during the first recording).",
}


def point_name(p: dict) -> str:
    return f"{p['rate']}_{p['flows']}x{p['cc']}_rtt{p['rtt']}_B{p['buffer']}".replace("..", "-")


def simulate_point(cfg) -> dict | None:
    """The simulator twin's summary, or None with the reason when the simulator cannot run it."""
    try:
        from bufsize.simulate import simulate
        from bufsize.testbed.compare import simulator_twin

        r = simulate(simulator_twin(cfg), progress=False)
        return {k: v for k, v in r.summary.items() if isinstance(v, (int, float))}
    except BaseException as exc:  # the engine may be unfinished (panics) or lack the cc
        if isinstance(exc, KeyboardInterrupt):
            raise
        return {"error": f"{type(exc).__name__}: {str(exc).splitlines()[0][:200]}"}


def machine_busy(seconds: float = 5.0) -> float:
    """Fraction of both CPUs busy with un-niced work (excluding steal) over the next ``seconds``."""
    from bufsize.testbed.procstat import fractions, parse_proc_stat

    a = parse_proc_stat(open("/proc/stat").read())
    time.sleep(seconds)
    b = parse_proc_stat(open("/proc/stat").read())
    return fractions(a, b)["busy_normal"]


def wait_for_quiet(max_busy: float, timeout_s: float) -> None:
    """Do not start a point while other work keeps the machine busy (it would only be refused)."""
    end = time.time() + timeout_s
    while True:
        b = machine_busy()
        if b <= max_busy or time.time() > end:
            print(f"machine busy {b * 100:.0f} %{' (starting anyway)' if b > max_busy else ''}", flush=True)
            return
        print(f"machine busy {b * 100:.0f} % > {max_busy * 100:.0f} %: waiting", flush=True)
        time.sleep(25)


def run_set(name: str, repeats: int, attempts: int, retry_rejected: bool = False, quiet_busy: float = 0.6,
            quiet_wait_s: float = 600, buffers: set[str] | None = None) -> None:
    from bufsize.testbed.config import TestbedConfig
    from bufsize.testbed.runner import Attempt, run

    out = RESULTS / name
    out.mkdir(parents=True, exist_ok=True)
    for p in SETS[name]:
        if buffers is not None and p["buffer"] not in buffers:
            continue
        path = out / f"{point_name(p)}.json"
        earlier, prior = [], []
        if path.exists():
            old = json.loads(path.read_text())
            if not (retry_rejected and old["point"]["rejected"]):
                print(f"[{name}] {point_name(p)}: already recorded", flush=True)
                continue
            earlier = old.get("earlier_attempts", []) + old["point"]["failed_attempts"]
            # the rejected try's accepted runs passed every check: keep them, run only the missing repeats
            prior = [Attempt.from_dict(a) for a in old["point"]["accepted_runs"]]
        cfg = TestbedConfig.dumbbell(**{k: v for k, v in p.items() if k != "niced_burners"})
        wait_for_quiet(quiet_busy, quiet_wait_s)
        t = time.time()
        burners = [subprocess.Popen(["nice", "-n", "19", "sh", "-c", "while :; do :; done"])
                   for _ in range(p.get("niced_burners", 0))]
        try:
            point = run(cfg, repeats=repeats, attempts=attempts, log=lambda s: print(f"[{name}] {s}", flush=True),
                        prior=prior)
        finally:
            for b in burners:
                b.kill()
                b.wait()
        rec = {"set": name, "params": p, "recorded_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
               "wall_s": time.time() - t, "point": point.to_dict(), "simulator": simulate_point(cfg),
               "earlier_attempts": earlier}
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(rec, indent=1, default=float))
        os.replace(tmp, path)
        agg = point.aggregate().get("utilization")
        print(f"[{name}] {point_name(p)}: {'REJECTED' if point.rejected else 'ok'} utilization "
              f"{agg['mean'] if agg else float('nan'):.3f}", flush=True)


def resimulate(names: list[str]) -> None:
    """Recompute the simulator twin of every recorded point of ``names`` (all sets if empty), keeping
    the testbed measurements: for points recorded before the engine had their congestion control, or
    after an engine change."""
    from bufsize.testbed.config import TestbedConfig

    for set_dir in sorted(p for p in RESULTS.iterdir() if p.is_dir() and (not names or p.name in names)):
        for f in sorted(set_dir.glob("*.json")):
            rec = json.loads(f.read_text())
            cfg = TestbedConfig.dumbbell(**{k: v for k, v in rec["params"].items() if k != "niced_burners"})
            old, rec["simulator"] = rec.get("simulator"), simulate_point(cfg)
            rec["simulated_utc"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
            tmp = f.with_suffix(".tmp")
            tmp.write_text(json.dumps(rec, indent=1, default=float))
            os.replace(tmp, f)
            was = (old or {}).get("utilization", (old or {}).get("error", "–"))
            print(f"[{set_dir.name}] {f.stem}: simulator utilization {was} -> "
                  f"{rec['simulator'].get('utilization', rec['simulator'].get('error'))}", flush=True)


def _set_dirs(names=()) -> list[Path]:
    """Recorded set directories (only ``names`` if given), in the order of :data:`SETS`."""
    order = list(SETS)
    dirs = [p for p in RESULTS.iterdir() if p.is_dir() and (not names or p.name in names)] if RESULTS.exists() else []
    return sorted(dirs, key=lambda d: (order.index(d.name) if d.name in order else len(order), d.name))


def _f(x, nd=3):
    return "–" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{nd}f}"


def table() -> str:
    from bufsize.models.appenzeller import single_flow_utilization

    lines = ["# Kernel testbed measurements", "",
             "Written by `bench/testbed/campaign.py --table` from `bench/testbed/results/`. Each row: mean of the",
             "accepted runs with a 95 % Student-t confidence interval (n = accepted runs). Every run passed the",
             "fidelity checks (docs/testbed.md); a point whose attempts all failed is listed as REJECTED with",
             "the reasons. `attempts` = runs tried for the point (accepted + refused).", ""]
    for set_dir in _set_dirs():
        recs = [json.loads(f.read_text()) for f in sorted(set_dir.glob("*.json"))]
        if not recs:
            continue
        recs.sort(key=lambda r: r["point"]["config"]["buffer_packets"])
        lines += [f"## {set_dir.name}", ""] + ([SET_TITLES[set_dir.name], ""] if set_dir.name in SET_TITLES else []) + [
                  "| B (pkt) | B/BDP | utilization [95 % CI] | n | attempts | window (s) | sawtooth periods | "
                  "loss rate | drops | recoveries | mean queue (pkt) | Jain | sim. util. | sim. loss rate | sim. drops | "
                  "sim. recoveries | sim. mean queue | model util. | steal mean | recorded |",
                  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
        for r in recs:
            pt = r["point"]
            cfg = pt["config"]
            agg = {} if pt["rejected"] else pt["aggregate"]  # a rejected point reports nothing
            bdp = cfg["rate_bps"] * (sum(f["rtt_s"] for f in cfg["flows"]) / len(cfg["flows"])) / (8 * 1514)
            u = agg.get("utilization")
            util = "REJECTED" if pt["rejected"] else (
                f"{_f(u['mean'])} [{_f(u['ci_low'])}, {_f(u['ci_high'])}]" if u else "–")
            sim = r.get("simulator") or {}
            simu = _f(sim.get("utilization")) if "utilization" in sim else "n/a"
            siml = _f(sim.get("loss_rate"), 5) if "loss_rate" in sim else "n/a"
            simq = _f(sim.get("mean_queue_packets"), 1) if "mean_queue_packets" in sim else "n/a"
            model = _f(single_flow_utilization(cfg["buffer_packets"], bdp)) if len(cfg["flows"]) == 1 else ""
            g = lambda k, nd=3: _f(agg[k]["mean"], nd) if k in agg else "–"
            win = cfg["duration_s"] - cfg["warmup_s"]
            periods = (f"{win / sawtooth_period_s(bdp, cfg['buffer_packets'], cfg['flows'][0]['rtt_s']):.1f}"
                       if len(cfg["flows"]) == 1 else "")
            simd = _f(sim.get("drops"), 0) if "drops" in sim else "n/a"
            simr = _f(sim.get("fast_retransmits"), 0) if "fast_retransmits" in sim else "n/a"
            lines.append(f"| {cfg['buffer_packets']} | {cfg['buffer_packets'] / bdp:.2f} | {util} | "
                         f"{u['n'] if u else 0} | {len(pt['accepted_runs']) + len(pt['failed_attempts']) + len(r.get('earlier_attempts', []))} | "
                         f"{win:g} | {periods} | {g('loss_rate', 5)} | {g('drops', 1)} | {g('tcpext_TCPSackRecovery', 1)} | "
                         f"{g('mean_queue_packets', 1)} | {g('jain_fairness')} | {simu} | {siml} | {simd} | {simr} | {simq} | {model} | "
                         f"{g('steal_mean', 4)} | {r['recorded_utc']} |")
        rej = [(r, a) for r in recs for a in r.get("earlier_attempts", []) + r["point"]["failed_attempts"]]
        if rej:
            lines += ["", "Refused attempts (repeated or, if all failed, the point rejected):", ""]
            for r, a in rej:
                lines.append(f"- B = {r['point']['config']['buffer_packets']}: {a['run_id']}: "
                             + "; ".join(a["reasons"])[:300])
        errs = {r["simulator"]["error"] for r in recs if (r.get("simulator") or {}).get("error")}
        if errs:
            lines += ["", "Simulator column not available: " + "; ".join(sorted(errs))]
        lines.append("")
    notes = HERE / "NOTES.md"
    if notes.exists():
        lines += ["", notes.read_text()]
    return "\n".join(lines)


def summary(names: list[str]) -> str:
    """Compact Markdown table for the README: per set, kernel utilization mean (n) and the simulator
    twin at each B/BDP; a point whose runs were all refused shows REJECTED."""
    dirs = _set_dirs(names)
    lines = ["| set | B/BDP | " + " | ".join(f"{m:g}" for m in MULTS) + " |",
             "|---|---|" + "---|" * len(MULTS)]
    for d in dirs:
        recs = [json.loads(f.read_text()) for f in d.glob("*.json")]
        by_m: dict[float, dict] = {}
        for r in recs:
            b = r["params"]["buffer"]
            if b.endswith("bdp"):
                by_m[float(b[:-3])] = r
        kern, sim = [], []
        for m in MULTS:
            r = by_m.get(m)
            if r is None:
                kern.append("–")
                sim.append("–")
                continue
            pt = r["point"]
            u = pt["aggregate"].get("utilization")
            kern.append("REJECTED" if pt["rejected"] or not u else f"{u['mean']:.3f} ({u['n']})")
            su = (r.get("simulator") or {}).get("utilization")
            sim.append(f"{su:.3f}" if su is not None else "n/a")
        lines.append(f"| {d.name} | kernel (runs) | " + " | ".join(kern) + " |")
        lines.append(f"| | simulator | " + " | ".join(sim) + " |")
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sets", nargs="*", choices=sorted(SETS) + [[]], default=[])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--attempts", type=int, default=3)
    ap.add_argument("--table", action="store_true", help="rewrite RESULTS.md from the recorded points")
    ap.add_argument("--retry-rejected", action="store_true", help="run rejected points again (keeping their attempts)")
    ap.add_argument("--quiet-busy", type=float, default=0.6,
                    help="wait (up to --quiet-wait s) until the machine is at most this busy before each point")
    ap.add_argument("--quiet-wait", type=float, default=600)
    ap.add_argument("--buffers", help="run only these points of the sets, e.g. 0.1bdp,2.0bdp")
    ap.add_argument("--summary", action="store_true", help="print the README's compact kernel-vs-simulator table")
    ap.add_argument("--resimulate", action="store_true",
                    help="recompute the simulator column of the recorded points of the sets (all if none given)")
    a = ap.parse_args()
    buffers = set(a.buffers.split(",")) if a.buffers else None
    if a.summary:
        print(summary(a.sets))
        return 0
    if a.resimulate:
        resimulate(a.sets)
    else:
        for s in a.sets:
            run_set(s, a.repeats, a.attempts, a.retry_rejected, a.quiet_busy, a.quiet_wait, buffers)
    if a.table or a.sets:
        text = table()
        tmp = HERE / "RESULTS.md.tmp"
        tmp.write_text(text)
        os.replace(tmp, HERE / "RESULTS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
