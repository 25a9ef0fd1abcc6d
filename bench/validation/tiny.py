"""The testbed twin against Linux at tiny buffers, and what the testbed's token bucket does there.

Used by ``run.py tiny-kernel`` (Linux in namespaces -> tiny_kernel.csv, root), ``run.py tiny-engine``
(the engine twin -> tiny_engine.csv) and ``run.py doc`` (a section of docs/validation.md).

The settings are those where the twin was found 4-7 points pessimistic (issue "Today's TCP", §2):
many flows with windows of a few packets. The kernel runs with two depths of the htb bucket at the
bottleneck (tc ``burst``): the 15 KiB every recorded testbed run used, and one frame, which makes
htb release packets at the rate as a router port does. The engine runs the twin of each kernel
configuration (``bufsize.testbed.compare.simulator_twin``, bottleneck shaped like the testbed's htb)
and, for comparison, the twin with an ideal bottleneck (what the twin was before it modelled htb).
"""

from __future__ import annotations

import csv
import math
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: (point, rate, cc, flows, rtt, buffer, sack): RTT ranges are spread evenly over the flows.
SETTINGS = (
    ("reno-20-b25-sack", "50Mbps", "reno", 20, "20ms..100ms", "25", True),
    ("reno-20-b25-nosack", "50Mbps", "reno", 20, "20ms..100ms", "25", False),
    ("reno-32-b0.1bdp", "50Mbps", "reno", 32, "40ms..100ms", "0.1bdp", True),
    ("cubic-32-b0.1bdp", "50Mbps", "cubic", 32, "40ms..100ms", "0.1bdp", True),
    ("cubic-20-b10-spread", "100Mbps", "cubic", 20, "25ms..35ms", "10", True),
    ("cubic-20-b10-same", "100Mbps", "cubic", 20, "30ms", "10", True),
)
#: Plain Reno without SACK (Linux: net.ipv4.tcp_sack=0; the engine's NewReno without SACK and PRR),
#: the recovery the papers' ns-2 simulations used: one kernel run each, with the default bucket.
NOSACK = (
    ("nosack-reno-8-b0.1bdp", "50Mbps", "reno", 8, "40ms..100ms", "0.1bdp", False),
    ("nosack-reno-8-b0.25bdp", "50Mbps", "reno", 8, "40ms..100ms", "0.25bdp", False),
    ("nosack-reno-8-b1bdp", "50Mbps", "reno", 8, "40ms..100ms", "1bdp", False),
    ("nosack-reno-32-b0.1bdp", "50Mbps", "reno", 32, "40ms..100ms", "0.1bdp", False),
    ("nosack-reno-32-b0.25bdp", "50Mbps", "reno", 32, "40ms..100ms", "0.25bdp", False),
    ("nosack-reno-32-b1bdp", "50Mbps", "reno", 32, "40ms..100ms", "1bdp", False),
)
#: Kernel repeats (seeds: the order of the start times) per bucket depth.
KERNEL_SEEDS = {15_360: (1, 2, 3), 1_514: (1,)}
NOSACK_SEEDS = {15_360: (1,)}
ENGINE_SEEDS = (1, 2, 3)
DURATION, WARMUP = "40s", "10s"
#: The twin's target at these settings (issue §2): within 2 utilization points of the kernel.
TARGET = 0.02

COLUMNS = ("key", "point", "bucket", "seed", "status", "utilization", "loss_rate", "timeouts", "drops",
           "buffer_packets", "wall_s", "note")


def config(setting: tuple, burst: int, seed: int):
    from bufsize.testbed.config import TestbedConfig

    point, rate, cc, n, rtt, buf, sack = setting
    return TestbedConfig.dumbbell(rate=rate, rtt=rtt, buffer=buf, flows=n, cc=cc, duration=DURATION, warmup=WARMUP,
                                  seed=seed, burst_bytes=burst, sack=sack)


def read(path: Path) -> dict[str, dict]:
    if not path.exists():
        return {}
    with open(path, newline="") as f:
        return {r["key"]: r for r in csv.DictReader(f)}


def write(path: Path, rows: dict[str, dict]) -> None:
    """All rows, sorted by key, written atomically (bufsize's own atomic writer)."""
    import io

    from bufsize._atomic import atomic_write_text

    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=COLUMNS, extrasaction="ignore")
    w.writeheader()
    for k in sorted(rows):
        w.writerow(rows[k])
    atomic_write_text(path, buf.getvalue())


def _row(key: str, point: str, bucket: str, seed: int, **kw) -> dict:
    return {"key": key, "point": point, "bucket": bucket, "seed": seed, **kw}


def sweep_kernel(force: bool, attempts: int) -> None:
    from bufsize.testbed.runner import run

    path = HERE / "tiny_kernel.csv"
    for st, seeds_of in [(x, KERNEL_SEEDS) for x in SETTINGS] + [(x, NOSACK_SEEDS) for x in NOSACK]:
        for burst, seeds in seeds_of.items():
            for seed in seeds:
                key = f"{st[0]}|{burst}|{seed}"
                rows = read(path)
                if not force and rows.get(key, {}).get("status") == "ok":
                    continue
                cfg = config(st, burst, seed)
                print(f"[tiny-kernel] {key} ...", flush=True)
                t0 = time.time()
                res = run(cfg, repeats=1, attempts=attempts, log=lambda s: print("   ", s, flush=True))
                refused = [f"{a.run_id}: {'; '.join(a.reasons)}" for a in res.failed]
                with open(HERE / "kernel_rejections.txt", "a") as log:
                    for r in refused:
                        log.write(f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} tiny {key} {r}\n")
                row = _row(key, st[0], str(burst), seed, buffer_packets=cfg.buffer_packets,
                           wall_s=f"{time.time() - t0:.0f}")
                if res.rejected or not res.runs:
                    row.update(status="rejected", note=" | ".join(refused)[:600])
                else:
                    s = res.runs[0].summary
                    row.update(status="ok", utilization=f"{s['utilization']:.6f}", loss_rate=f"{s['loss_rate']:.6g}",
                               timeouts=s.get("timeouts", ""), drops=s.get("drops", ""),
                               note=f"{len(refused)} attempt(s) refused first" if refused else "")
                print(f"[tiny-kernel] {key}: {row['status']} util={row.get('utilization', '')}", flush=True)
                rows = read(path)
                if not (row["status"] != "ok" and rows.get(key, {}).get("status") == "ok"):
                    rows[key] = row
                write(path, rows)


def sweep_engine() -> None:
    """The twin of every kernel configuration, 3 seeds, shaped (both depths) and ideal. Seconds."""
    import bufsize
    from bufsize.scenario import Scenario
    from bufsize.testbed.compare import simulator_twin

    rows = {}
    for st in SETTINGS + NOSACK:
        for bucket in [str(b) for b in KERNEL_SEEDS] + ["ideal"]:
            for seed in ENGINE_SEEDS:
                cfg = config(st, int(bucket) if bucket != "ideal" else 1_514, seed)
                sc = simulator_twin(cfg)
                if bucket == "ideal":
                    d = sc.to_dict()
                    d["dumbbell"].pop("bottleneck_burst_bytes", None)
                    sc = Scenario(d)
                t0 = time.time()
                r = bufsize.simulate(sc, progress=False)
                s = r.summary
                key = f"{st[0]}|{bucket}|{seed}"
                rows[key] = _row(key, st[0], bucket, seed, status="ok", utilization=f"{s['utilization']:.6f}",
                                 loss_rate=f"{s['loss_rate']:.6g}", timeouts=s.get("timeouts", ""),
                                 drops=s.get("drops", ""), buffer_packets=cfg.buffer_packets,
                                 wall_s=f"{time.time() - t0:.1f}")
    write(HERE / "tiny_engine.csv", rows)
    print(f"wrote {HERE / 'tiny_engine.csv'} ({len(rows)} runs)")


def _stats(rows: dict[str, dict], point: str, bucket: str, field: str = "utilization") -> tuple[float, float, float, int]:
    xs = [float(r[field]) for r in rows.values()
          if r["point"] == point and r["bucket"] == bucket and r["status"] == "ok" and r.get(field)]
    if not xs:
        return math.nan, math.nan, math.nan, 0
    return sum(xs) / len(xs), min(xs), max(xs), len(xs)


def doc_section() -> list[str]:
    ker, eng = read(HERE / "tiny_kernel.csv"), read(HERE / "tiny_engine.csv")
    pct = lambda x: "–" if math.isnan(x) else f"{100 * x:.1f}"
    big, small = (str(b) for b in KERNEL_SEEDS)
    lines, met, judged = [], 0, 0
    for st in SETTINGS:
        pt = st[0]
        k, klo, khi, kn = _stats(ker, pt, big)
        t, tlo, thi, tn = _stats(eng, pt, big)
        k1, _, _, k1n = _stats(ker, pt, small)
        t1, _, _, _ = _stats(eng, pt, small)
        ti, _, _, _ = _stats(eng, pt, "ideal")
        kl, _, _, _ = _stats(ker, pt, big, "loss_rate")
        tl, _, _, _ = _stats(eng, pt, big, "loss_rate")
        bufp = next((r["buffer_packets"] for r in list(ker.values()) + list(eng.values()) if r["point"] == pt), "")
        if math.isnan(k) or math.isnan(t):
            verdict = "kernel not measured" if math.isnan(k) else "engine not run"
        else:
            judged += 1
            ok = abs(t - k) <= TARGET + 1e-12
            met += ok
            verdict = f"{'met' if ok else 'MISS'} ({100 * (t - k):+.1f} pt)"
        rng = "" if kn < 2 else f" [{pct(klo)}–{pct(khi)}]"
        lines.append(f"| {pt} | {bufp} | {pct(k)}{rng} (n={kn}) | {pct(t)} | {verdict} | {pct(kl)} / {pct(tl)} | "
                     f"{pct(k1)} (n={k1n}) | {pct(t1)} | {pct(ti)} |")
    return [
        "## Tiny buffers: the twin against Linux, and the testbed's token bucket",
        "",
        "Generated from `bench/validation/tiny_kernel.csv` (`run.py tiny-kernel`, root) and `tiny_engine.csv` "
        "(`run.py tiny-engine`); settings in `bench/validation/tiny.py`. Many flows with windows of a few "
        "packets, where the twin used to be 4–7 points pessimistic. "
        f"Kernel: {DURATION} runs measured after {WARMUP}, seeds 1–3 (start order) with the testbed's "
        "default bucket, one run with a one-frame bucket; twin: `bufsize.testbed.compare.simulator_twin` of "
        "the same configuration, seeds 1–3.",
        "",
        "**The cause of the old gap.** The testbed's bottleneck is an htb class, and htb is a token bucket: "
        f"with `burst {int(big) // 1024}k` ({big} B, about 10 frames) a queue that ran empty banks up to 10 "
        "frames of link time and then sends them back to back, so the bucket is a second buffer that the "
        "pfifo's limit does not count. At 25 packets that is 40 % more buffer. With a one-frame bucket "
        "Linux loses the 4–6 points (columns 7–8), and the engine's twin, shaped like htb "
        "(links' `burst_bytes`), follows Linux at both depths. The papers' routers serialize at line rate "
        "(no bucket): a user's `bufsize simulate` and `recommend` keep the ideal link; only the twin of a "
        "testbed run is shaped.",
        "",
        f"Target: twin within {100 * TARGET:g} utilization points of the kernel (mean of the runs). "
        f"Met at {met} of {judged} settings measured.",
        "",
        f"| setting | B (pkt) | kernel, {big}-B bucket (util %) | twin, same bucket | twin − kernel | loss % kernel / twin "
        f"| kernel, {small}-B bucket | twin, {small}-B bucket | twin, ideal link |",
        "|---|---|---|---|---|---|---|---|---|",
        *lines,
        "",
        *nosack_section(ker, eng),
    ]


def nosack_section(ker: dict[str, dict], eng: dict[str, dict]) -> list[str]:
    pct = lambda x: "–" if math.isnan(x) else f"{100 * x:.1f}"
    big = str(next(iter(NOSACK_SEEDS)))
    lines, gaps = [], []
    for st in NOSACK:
        pt = st[0]
        k, _, _, kn = _stats(ker, pt, big)
        t, _, _, _ = _stats(eng, pt, big)
        ti, _, _, _ = _stats(eng, pt, "ideal")
        kl, _, _, _ = _stats(ker, pt, big, "loss_rate")
        tl, _, _, _ = _stats(eng, pt, big, "loss_rate")
        kt, _, _, _ = _stats(ker, pt, big, "timeouts")
        tt, _, _, _ = _stats(eng, pt, big, "timeouts")
        bufp = next((r["buffer_packets"] for r in list(ker.values()) + list(eng.values()) if r["point"] == pt), "")
        d = "–" if math.isnan(k) or math.isnan(t) else f"{100 * (t - k):+.1f}"
        if not (math.isnan(k) or math.isnan(t)):
            gaps.append(abs(t - k))
        to = lambda x: "–" if math.isnan(x) else f"{x:.0f}"
        lines.append(f"| {pt} | {bufp} | {pct(k)} (n={kn}) | {pct(t)} | {d} | {pct(kl)} / {pct(tl)} | "
                     f"{to(kt)} / {to(tt)} | {pct(ti)} |")
    return [
        "## Plain Reno without SACK: Linux against the twin",
        "",
        "The papers' ns-2 simulations (and so the reproduction's 002, 004 Figs 4–16, 000 and 001 runs) use "
        "Reno/NewReno recovery without SACK, which ns-3 3.37 cannot check (its SACK-off mode is broken, "
        "bench/ns3). Linux with `net.ipv4.tcp_sack=0` in the senders' namespace (`bufsize testbed run "
        "--no-sack`) recovers NewReno-style; the twin runs the engine's NewReno without SACK and PRR. "
        f"Same dumbbell as the grid above (50 Mb/s, RTTs 40–100 ms), {DURATION} runs measured after {WARMUP}; "
        "kernel one run (seed 1), twin seeds 1–3, both with the testbed's 15 KiB bucket.",
        "",
        "| setting | B (pkt) | kernel util % | twin util % | twin − kernel (pt) | loss % kernel / twin | "
        "timeouts kernel / twin | twin, ideal link |",
        "|---|---|---|---|---|---|---|---|",
        *lines,
        "",
        (f"The twin is within {100 * max(gaps):.1f} points of Linux at all {len(gaps)} settings measured. "
         if gaps else "Not measured yet. ")
        + "What this says about paper 004's Fig. 15 (n = 100, where the reproduction's engine reaches "
        "85.1 / 94.3 % against the paper's ns-2 94.7 / 99.3 %): the engine's SACK-less NewReno recovers as "
        "Linux's does at 8–32 flows and 0.1–1 BDP, so that gap is not the engine's Reno departing from a "
        "real stack. Nor is it ns-2's Reno departing from ours: ns-2.35 itself, run with the reproduction's "
        "setting of those cells (bench/ns2/results.md), reads 84.1 / 94.2 %, within 1.1 points of the engine, so "
        "the gap is in the setting 004 did not state (RTT spread, start times, agent options).",
        "",
    ]
