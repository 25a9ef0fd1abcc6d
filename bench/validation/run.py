#!/usr/bin/env python3
"""Engine vs kernel testbed vs ns-3 on one grid of Reno, CUBIC and BBR dumbbells.

    nice -n 5 .venv/bin/python bench/validation/run.py ns3      # ns-3 3.37 reference -> ns3.csv
    .venv/bin/python bench/validation/run.py kernel             # Linux in namespaces -> kernel.csv (root)
    nice -n 5 .venv/bin/python bench/validation/run.py engine   # bufsize.simulate -> engine.csv
    .venv/bin/python bench/validation/run.py kernel-import      # kernel rows from bench/testbed/results
    .venv/bin/python bench/validation/run.py doc                # docs/validation.md from the three CSVs
    .venv/bin/python bench/validation/run.py all                # ns3, engine, kernel, doc

Every tool runs the same flows (``flow_list``): each has its control, its two-way propagation delay
and its start time, identical in the three. Each point is written to its CSV as soon as it finishes
(the whole file rewritten to a temporary name and renamed), and a point already in the CSV with the
same settings is not run again, so an interrupted run resumes where it stopped (``--force`` reruns).
``--points GLOB`` restricts the grid (``'reno-*'``, ``'*-b0.1'``).

The engine's BBR column is filled only if the engine offers a control named ``bbr`` when this runs
(``bufsize.scenario.congestion_controls()``); otherwise its rows say "engine lacks bbr".
"""

from __future__ import annotations

import argparse
import csv
import fcntl
import fnmatch
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import tiny  # bench/validation/tiny.py: the tiny-buffer section

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
NS3_BIN = ROOT / "bench" / "ns3" / "build" / "dumbbell"
DOC = ROOT / "docs" / "validation.md"

# ---------------------------------------------------------------------------------------------- grid
RATE_BPS = 50e6
RTT_LO_S, RTT_HI_S = 0.040, 0.100      # RTTs spread evenly over this range (no two flows alike)
MEAN_RTT_S = (RTT_LO_S + RTT_HI_S) / 2  # the BDP is taken at the mean RTT
WIRE_BYTES = 1514                       # a full frame as the testbed's htb counts it
PAYLOAD_BYTES = 1448                    # Linux's payload with timestamps
BDP_PACKETS = RATE_BPS * MEAN_RTT_S / (8 * WIRE_BYTES)  # 289.0
BUFFERS_BDP = (0.1, 0.25, 1.0, 2.0)
SINGLE = (("reno", 1), ("reno", 8), ("reno", 32), ("cubic", 1), ("cubic", 8), ("cubic", 32),
          ("bbr", 1), ("bbr", 8), ("bbr", 32))
MIXES = (1, 4)  # BBR k + CUBIC k
START_SPREAD_S = 1.0
DURATION_S = 40.0
WARMUP_S = 10.0
SEED = 1
TARGET = 0.03  # utilization points (as a fraction)


def buffer_packets(mult: float) -> int:
    return max(1, int(round(mult * BDP_PACKETS)))


def grid() -> list[dict]:
    pts = []
    for b in BUFFERS_BDP:
        for cc, n in SINGLE:
            pts.append({"point": f"{cc}-n{n}-b{b:g}", "kind": cc, "flows": n, "buffer_bdp": b})
        for k in MIXES:
            pts.append({"point": f"bbr+cubic-{k}+{k}-b{b:g}", "kind": "bbr+cubic", "flows": 2 * k, "buffer_bdp": b})
    return pts


def flow_list(p: dict) -> list[tuple[str, float, float]]:
    """(cc, rtt_s, start_s) per flow. Single control: RTTs evenly over [40, 100] ms (one flow: 70 ms).
    BBR k + CUBIC k: each class's RTTs at the midpoints of k equal slices of [40, 100] ms, BBR's 1 ms
    shorter and CUBIC's 1 ms longer (same mean RTT for both classes, no two flows alike). Start times
    spread evenly over 1 s in a seeded order (as the testbed's dumbbell does)."""
    n = p["flows"]
    if p["kind"] == "bbr+cubic":
        k = n // 2
        mids = [RTT_LO_S + (RTT_HI_S - RTT_LO_S) * (i + 0.5) / k for i in range(k)]
        ccs = ["bbr"] * k + ["cubic"] * k
        rtts = [m - 0.001 for m in mids] + [m + 0.001 for m in mids]
    else:
        ccs = [p["kind"]] * n
        rtts = ([RTT_LO_S + (RTT_HI_S - RTT_LO_S) * i / (n - 1) for i in range(n)] if n > 1 else [MEAN_RTT_S])
    order = list(range(n))
    random.Random(SEED).shuffle(order)
    starts = [START_SPREAD_S * order[i] / n for i in range(n)]
    return [(c, round(r, 6), round(s, 6)) for c, r, s in zip(ccs, rtts, starts)]


# ---------------------------------------------------------------------------------------------- CSVs
COLUMNS = ("point", "kind", "flows", "buffer_bdp", "buffer_packets", "duration_s", "warmup_s", "status",
           "utilization", "loss_rate", "bbr_share", "cubic_share", "timeouts", "mean_queue_packets",
           "jain_fairness", "wall_s", "settings", "note")


def read_csv(path: Path) -> dict[str, dict]:
    if not path.exists():
        return {}
    with open(path, newline="") as f:
        return {r["point"]: r for r in csv.DictReader(f)}


def write_csv(path: Path, rows: dict[str, dict]) -> None:
    order = {p["point"]: i for i, p in enumerate(grid())}
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".")
    try:
        with os.fdopen(fd, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=COLUMNS, extrasaction="ignore")
            w.writeheader()
            for k in sorted(rows, key=lambda k: order.get(k, 1e9)):
                w.writerow(rows[k])
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def shares(ccs: list[str], goodputs: list[float]) -> tuple[float, float]:
    tot = sum(goodputs)
    if not tot > 0:
        return math.nan, math.nan
    b = sum(g for c, g in zip(ccs, goodputs) if c == "bbr") / tot
    c = sum(g for cc, g in zip(ccs, goodputs) if cc == "cubic") / tot
    return b, c


def base_row(p: dict, settings: str) -> dict:
    return {"point": p["point"], "kind": p["kind"], "flows": p["flows"], "buffer_bdp": p["buffer_bdp"],
            "buffer_packets": buffer_packets(p["buffer_bdp"]), "duration_s": DURATION_S, "warmup_s": WARMUP_S,
            "settings": settings, "note": ""}


def fmt(x, nd=6):
    return "" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{nd}g}"


# ---------------------------------------------------------------------------------------------- ns-3
NS3_SETTINGS = ("ns-3 3.37: SACK on, PRR recovery, minimum RTO 200 ms + the flow's RTT (--linuxRto: Linux's "
                "RTO is about srtt + 200 ms), initial cwnd 10, ACK every segment, "
                "timestamps off, 1514-B frames (1472-B payload + 2-B PPP), access links 10xC, "
                "BBR sockets paced, flow control off (one DropTail of B packets)")


def run_ns3(p: dict) -> dict:
    fl = flow_list(p)
    B = buffer_packets(p["buffer_bdp"])
    args = [str(NS3_BIN), f"--flows={len(fl)}", f"--capacity={int(RATE_BPS)}bps", f"--buffer={B}",
            f"--duration={DURATION_S:g}", f"--warmup={WARMUP_S:g}", f"--seed={SEED}",
            "--rtts=" + ",".join(f"{r * 1000:.6g}" for _, r, _ in fl),
            "--starts=" + ",".join(f"{s:.6g}" for _, _, s in fl),
            "--ccs=" + ",".join("newreno" if c == "reno" else c for c, _, _ in fl),
            "--sack=true", "--initCwnd=10", "--minRto=200", f"--packetSize={WIRE_BYTES}", "--recovery=prr",
            "--delAckCount=1", "--linuxRto=true", "--printFlows=true"]
    row = base_row(p, NS3_SETTINGS)
    t0 = time.time()
    proc = subprocess.run(["nice", "-n", "5", *args], capture_output=True, text=True)
    row["wall_s"] = f"{time.time() - t0:.1f}"
    if proc.returncode != 0:
        row.update(status="failed", note=(proc.stderr.strip().splitlines() or ["?"])[-1][:200])
        return row
    d = json.loads(proc.stdout.strip().splitlines()[-1])
    b, c = shares([c for c, _, _ in fl], d["flow_goodput_bps"])
    row.update(status="ok", utilization=fmt(d["utilization"]), loss_rate=fmt(d["loss_rate"]),
               bbr_share=fmt(b) if "bbr" in p["kind"] else "", cubic_share=fmt(c) if "cubic" in p["kind"] else "",
               timeouts=d["timeouts"], mean_queue_packets=fmt(d["mean_queue_packets"], 4),
               jain_fairness=fmt(d["jain_fairness"], 4))
    return row


# ---------------------------------------------------------------------------------------------- engine
ENGINE_SETTINGS = ("bufsize engine, the testbed twin's settings (bufsize.testbed.compare): SACK, PRR, "
                   "initial window 10, min RTO 200 ms, delayed ACKs (40 ms), 1514-B frames with 1448-B payload, "
                   "access links 10xC; Linux reno = engine newreno")
#: The kernel testbed's htb class has a 15 KiB token bucket (tc's `burst 15k`, TestbedConfig's default):
#: the engine's twin of a kernel run shapes its bottleneck the same way (`bottleneck_burst`).
KERNEL_BURST_BYTES = 15_360
TWIN_SETTINGS = ENGINE_SETTINGS + (f"; bottleneck shaped as the testbed's htb (token bucket of {KERNEL_BURST_BYTES} B "
                                   "at C, packets released whole)")


def engine_has(cc: str) -> bool:
    from bufsize.scenario import congestion_controls

    return ("newreno" if cc == "reno" else cc) in congestion_controls()


def twin_tcp() -> dict:
    """The TCP settings of ``bufsize.testbed.compare.simulator_twin`` (its congestion control aside)."""
    from bufsize.testbed.compare import simulator_twin
    from bufsize.testbed.config import TestbedConfig

    cfg = TestbedConfig.dumbbell(rate=f"{RATE_BPS}bps", rtt="70ms", buffer="29", flows=1, cc="reno",
                                 duration=f"{DURATION_S}s", warmup=f"{WARMUP_S}s")
    tcp = dict(simulator_twin(cfg).to_dict()["dumbbell"]["tcp"])
    tcp.pop("cc", None)
    return tcp


def run_engine(p: dict, burst: int | None = None) -> dict:
    """The engine's row: an ideal bottleneck (as ns-3's), or with ``burst`` the kernel's htb bucket."""
    import bufsize
    from bufsize.scenario import Scenario

    fl = flow_list(p)
    row = base_row(p, ENGINE_SETTINGS if burst is None else TWIN_SETTINGS)
    ccs = sorted({c for c, _, _ in fl})
    lacking = [c for c in ccs if not engine_has(c)]
    if lacking:
        row.update(status="missing", note=f"engine lacks {','.join(lacking)}")
        return row
    # Both rows run the testbed twin's TCP (bufsize.testbed.compare: the linux profile with the
    # testbed's packet sizes), all of it; they differ only in the bottleneck (ideal or htb's bucket).
    common = dict(capacity=RATE_BPS, flows=len(fl), rtt=[r for _, r, _ in fl], start=[s for _, _, s in fl],
                  buffer=buffer_packets(p["buffer_bdp"]), duration=DURATION_S, warmup=WARMUP_S, seed=SEED,
                  tcp=twin_tcp(), bottleneck_burst=burst)
    if len(ccs) == 1:
        sc = Scenario.dumbbell(cc="newreno" if ccs[0] == "reno" else ccs[0], **common)
    else:
        # flow_list puts each class's flows together, in this order: the mix keeps it.
        counts: dict[str, int] = {}
        for c, _, _ in fl:
            counts[c] = counts.get(c, 0) + 1
        sc = Scenario.dumbbell(mix=counts, **common)
    t0 = time.time()
    r = bufsize.simulate(sc, progress=False)
    row["wall_s"] = f"{time.time() - t0:.1f}"
    f = r.flows.sort_values("id")
    names = [str(x) for x in f["class_name"]] if "class_name" in f else [c for c, _, _ in fl]
    if len(ccs) > 1 and names != [c for c, _, _ in fl]:
        raise RuntimeError(f"{p['point']}: engine flow classes {names} differ from the flow list")
    b, c = shares([c for c, _, _ in fl], [float(x) for x in f["goodput_bps"]])
    s = r.summary
    row.update(status="ok", utilization=fmt(s["utilization"]), loss_rate=fmt(s["loss_rate"]),
               bbr_share=fmt(b) if "bbr" in p["kind"] else "", cubic_share=fmt(c) if "cubic" in p["kind"] else "",
               timeouts=s.get("timeouts", ""), mean_queue_packets=fmt(s.get("mean_queue_packets", math.nan), 4),
               jain_fairness=fmt(s.get("jain_fairness", math.nan), 4))
    return row


# ---------------------------------------------------------------------------------------------- kernel
KERNEL_SETTINGS = ("Linux testbed (bufsize.testbed): kernel defaults (SACK, RACK-TLP, PRR, initcwnd 10, "
                   "timestamps, delayed ACKs), htb 50 Mb/s + pfifo B, 1514-B frames, fidelity checks on")


def run_kernel(p: dict, attempts: int) -> dict:
    from bufsize.testbed.config import Flow, TestbedConfig
    from bufsize.testbed.runner import run

    fl = flow_list(p)
    cfg = TestbedConfig(rate_bps=RATE_BPS, buffer_packets=buffer_packets(p["buffer_bdp"]),
                        flows=tuple(Flow(cc=c, rtt_s=r, start_s=s) for c, r, s in fl),
                        duration_s=DURATION_S, warmup_s=WARMUP_S, seed=SEED)
    row = base_row(p, KERNEL_SETTINGS)
    t0 = time.time()
    res = run(cfg, repeats=1, attempts=attempts, log=lambda s: print("   ", s, flush=True))
    row["wall_s"] = f"{time.time() - t0:.1f}"
    refused = [f"{a.run_id}: {'; '.join(a.reasons)}" for a in res.failed]
    with open(HERE / "kernel_rejections.txt", "a") as log:  # every refused attempt, kept
        for r in refused:
            log.write(f"{time.strftime('%Y-%m-%dT%H:%M:%SZ', time.gmtime())} {p['point']} {r}\n")
    if res.rejected or not res.runs:
        row.update(status="rejected", note=(" | ".join(refused))[:900])
        return row
    a = res.runs[0]
    s = a.summary
    f = a.tables["flows"].sort_values("id")
    b, c = shares([str(x) for x in f["cc"]], [float(x) for x in f["goodput_bps"]])
    row.update(status="ok", utilization=fmt(s["utilization"]), loss_rate=fmt(s["loss_rate"]),
               bbr_share=fmt(b) if "bbr" in p["kind"] else "", cubic_share=fmt(c) if "cubic" in p["kind"] else "",
               timeouts=s.get("timeouts", ""), mean_queue_packets=fmt(s.get("mean_queue_packets", math.nan), 4),
               jain_fairness=fmt(s.get("jain_fairness", math.nan), 4),
               note=(f"{len(refused)} attempt(s) refused first: " + " | ".join(refused))[:900] if refused else "")
    return row


def import_campaign() -> None:
    """Kernel rows from bench/testbed/results (bench/testbed/campaign.py): accepted runs of exactly
    this grid's configuration (same rate, B, flows with their controls, RTTs and start times,
    duration and warm-up). A point measured here already (status ok) is left alone."""
    path = HERE / "kernel.csv"
    by_name = {p["point"]: p for p in grid()}
    found = {}
    for f in sorted((ROOT / "bench" / "testbed" / "results").glob("*/*.json")):
        d = json.loads(f.read_text())
        pt = d.get("point") or {}
        cfg = pt.get("config") or {}
        if pt.get("rejected") or not pt.get("accepted_runs") or cfg.get("users"):
            continue
        fl = cfg.get("flows") or []
        ccs = {x["cc"] for x in fl}
        if len(ccs) != 1:
            continue
        kind = ccs.pop()
        mult = next((b for b in BUFFERS_BDP if buffer_packets(b) == cfg.get("buffer_packets")), None)
        name = f"{kind}-n{len(fl)}-b{mult:g}" if mult is not None else None
        p = by_name.get(name)
        if p is None or cfg.get("rate_bps") != RATE_BPS or cfg.get("duration_s") != DURATION_S \
                or cfg.get("warmup_s") != WARMUP_S or cfg.get("sender_sysctls") or cfg.get("initcwnd"):
            continue
        want = flow_list(p)
        have = [(x["cc"], round(x["rtt_s"], 6), round(x["start_s"], 6)) for x in fl]
        if have != want:
            continue
        a = pt["aggregate"]
        runs = pt["accepted_runs"]
        shares_ok = all("bbr" not in c for c in ccs)
        row = base_row(p, KERNEL_SETTINGS)
        row.update(status="ok", utilization=fmt(a["utilization"]["mean"]), loss_rate=fmt(a["loss_rate"]["mean"]),
                   bbr_share="", cubic_share="1" if kind == "cubic" and shares_ok else "",
                   timeouts=fmt(a["timeouts"]["mean"], 3) if "timeouts" in a else "",
                   mean_queue_packets=fmt(a["mean_queue_packets"]["mean"], 4),
                   jain_fairness=fmt(a["jain_fairness"]["mean"], 4), wall_s="",
                   note=(f"imported: mean of {len(runs)} accepted runs (utilization "
                         + ", ".join(f"{r['summary']['utilization']:.4f}" for r in runs)
                         + f") of the identical configuration in {f.relative_to(ROOT)}, recorded "
                         f"{d.get('recorded_utc', '?')} by bench/testbed/campaign.py"))
        found[name] = row
    with open(path.with_suffix(".lock"), "w") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        rows = read_csv(path)
        n = 0
        for name, row in found.items():
            if rows.get(name, {}).get("status") == "ok" and not rows[name].get("note", "").startswith("imported"):
                continue
            old = rows.get(name)
            if old and old.get("status") == "rejected":
                row["note"] += f"; this session's own attempts were rejected: {old.get('note', '')}"[:600]
            rows[name] = row
            n += 1
        write_csv(path, rows)
    print(f"imported {n} kernel points from bench/testbed/results")


# ---------------------------------------------------------------------------------------------- doc
def _f(r: dict | None, k: str) -> float:
    if not r or r.get("status") != "ok":
        return math.nan
    try:
        return float(r.get(k) or "nan")
    except ValueError:
        return math.nan


def verdict(k: float, n: float, e: float, erow: dict | None, t: float = math.nan) -> tuple[str, bool]:
    """(text, is_miss) for one point's utilization. Each reference is compared with the engine set up
    like it: the kernel with the twin ``t`` (bottleneck shaped like the testbed's htb; the ideal
    engine ``e`` where the twin was not run), ns-3 with the ideal engine ``e`` (ns-3's links
    serialize at the rate)."""
    if erow and erow.get("status") == "missing":
        return erow.get("note", "engine missing"), False
    if math.isnan(e):
        return "engine not run", False
    tk = e if math.isnan(t) else t
    tname = "engine" if math.isnan(t) else "twin"
    if math.isnan(k) and math.isnan(n):
        return "no reference measured", False
    if math.isnan(k) or math.isnan(n):
        name, eng, v = ("ns-3", e, n) if math.isnan(k) else ("kernel", tk, k)
        who = "engine" if name == "ns-3" else tname
        ok = abs(eng - v) <= TARGET + 1e-12
        # The target needs both references; against one, the gap is reported but is not a miss.
        return (f"only {name} measured: {who} {'within' if ok else 'off by'} {100 * (eng - v):+.1f} pt", False)
    dk, dn = tk - k, e - n
    if abs(k - n) <= TARGET + 1e-12:
        ok = abs(dk) <= TARGET + 1e-12 and abs(dn) <= TARGET + 1e-12
        return ("met" if ok else f"MISS ({tname}−kernel {100 * dk:+.1f}, engine−ns-3 {100 * dn:+.1f} pt)", not ok)
    return (f"references disagree ({100 * (k - n):+.1f} pt); {tname}−kernel {100 * dk:+.1f}, "
            f"engine−ns-3 {100 * dn:+.1f} pt", False)


def twin_line(ker: dict, twn: dict) -> str:
    """One line: how far the twin is from the kernel over the points where both were measured."""
    gaps = [(abs(_f(twn.get(p["point"]), "utilization") - _f(ker.get(p["point"]), "utilization")), p["point"])
            for p in grid()]
    gaps = [g for g in gaps if not math.isnan(g[0])]
    if not gaps:
        return "Twin against kernel: not measured."
    worst = max(gaps)
    within2 = sum(g <= 0.02 + 1e-12 for g, _ in gaps)
    return (f"Twin against kernel (like for like): within {100 * worst[0]:.1f} points at all {len(gaps)} points "
            f"measured on both (largest at {worst[1]}); within 2 points at {within2}.")


#: Sections of docs/validation.md written by other scripts or by hand (the AQM table of bench/ns3/aqm.py):
#: the page is regenerated up to the first of them and keeps them, and all that follows, as they are.
KEPT_SECTIONS = ("## Queue disciplines (AQM)",)


def _kept_sections() -> list[str]:
    """The page's lines from the first kept section on (none when the page has none)."""
    if not DOC.exists():
        return []
    lines = DOC.read_text().splitlines()
    for i, line in enumerate(lines):
        if line.startswith(KEPT_SECTIONS):
            return lines[i:] + [""]
    return []


def write_doc() -> None:
    ns3, ker, eng = read_csv(HERE / "ns3.csv"), read_csv(HERE / "kernel.csv"), read_csv(HERE / "engine.csv")
    twn = read_csv(HERE / "twin.csv")
    pct = lambda x, nd=1: "–" if math.isnan(x) else f"{100 * x:.{nd}f}"
    lines = []
    misses, gaps = [], []
    counts = {"met": 0, "miss": 0, "disagree": 0, "one_within": 0, "one_off": 0, "unevaluated": 0}
    for p in grid():
        k_, n_, e_, t_ = ker.get(p["point"]), ns3.get(p["point"]), eng.get(p["point"]), twn.get(p["point"])
        k, n, e, t = _f(k_, "utilization"), _f(n_, "utilization"), _f(e_, "utilization"), _f(t_, "utilization")
        text, miss = verdict(k, n, e, e_, t)
        if miss:
            misses.append(f"- `{p['point']}`: {text}")
            counts["miss"] += 1
        elif text == "met":
            counts["met"] += 1
        elif text.startswith("only"):
            off = "off by" in text
            counts["one_off" if off else "one_within"] += 1
            if off:
                gaps.append(f"- `{p['point']}`: {text}")
        elif text.startswith("references disagree"):
            counts["disagree"] += 1
        else:
            counts["unevaluated"] += 1
        if k_ and k_.get("status") == "rejected":
            text += "; kernel run rejected by fidelity checks"
        share = ""
        if p["kind"] == "bbr+cubic":
            share = " / ".join(pct(_f(r, "bbr_share"), 0) for r in (k_, n_, e_))
        tos = " / ".join("–" if math.isnan(_f(r, "timeouts")) else f"{_f(r, 'timeouts'):.0f}" for r in (k_, n_, e_))
        lines.append(f"| {p['point']} | {buffer_packets(p['buffer_bdp'])} | {pct(k)} | {pct(t)} | {pct(n)} | {pct(e)} | "
                     f"{pct(_f(k_, 'loss_rate'), 2)} | {pct(_f(n_, 'loss_rate'), 2)} | {pct(_f(e_, 'loss_rate'), 2)} | "
                     f"{share} | {tos} | {text} |")
    rejected = [r for r in ker.values() if r.get("status") == "rejected"]
    not_run_k = [p["point"] for p in grid() if p["point"] not in ker]
    not_run_n = [p["point"] for p in grid() if p["point"] not in ns3 or ns3[p["point"]].get("status") != "ok"]
    out = [
        "# Validation: engine vs Linux kernel testbed vs ns-3",
        "",
        "Generated by `bench/validation/run.py doc` from `bench/validation/{kernel,ns3,engine,twin}.csv` and "
        "`tiny_{kernel,engine}.csv`; regenerate the references and the engine columns with "
        "`bench/validation/run.py ns3|kernel|engine|twin|tiny-kernel|tiny-engine` "
        "(each resumable, point by point). Do not edit by hand.",
        "",
        "## Scenario (the same flows in all three)",
        "",
        f"- Dumbbell, bottleneck {RATE_BPS / 1e6:g} Mb/s, one drop-tail FIFO of B packets; B = 0.1 / 0.25 / 1 / 2 × "
        f"BDP at the mean RTT ({BDP_PACKETS:.0f} packets of {WIRE_BYTES} B at {1000 * MEAN_RTT_S:g} ms): "
        + " / ".join(str(buffer_packets(b)) for b in BUFFERS_BDP) + " packets.",
        f"- RTTs spread evenly over {1000 * RTT_LO_S:g}–{1000 * RTT_HI_S:g} ms (one flow: {1000 * MEAN_RTT_S:g} ms), "
        "so flows do not share a phase. BBR k + CUBIC k: each class's RTTs at the midpoints of k slices of "
        "that range, BBR's 1 ms shorter and CUBIC's 1 ms longer (same mean RTT for both classes). Starts "
        f"spread over {START_SPREAD_S:g} s.",
        f"- {DURATION_S:g} s per run, measured after a {WARMUP_S:g}-s warm-up ({DURATION_S - WARMUP_S:g}-s window), "
        "one run (seed 1) per point and tool (the kernel rows imported from bench/testbed/results are "
        "means of 2–3 runs). This is shorter than NOTES.md asks for single flows: one "
        "Reno sawtooth lasts (BDP + B)/2 RTTs, 11–13 s at 0.1–0.25 BDP and 20–30 s at 1–2 BDP here, so "
        "single-flow Reno/CUBIC points cover 1–3 periods (at B ≥ BDP the link stays busy through the "
        "sawtooth, so utilization there does not depend on where the window cuts it). A shared 2-vCPU "
        "machine (about 8 sessions) did not allow longer runs in the time available.",
        "- Utilization: bottleneck bytes on the wire / (C × window); loss: drops / arrivals at the "
        "bottleneck; BBR share: the BBR class's share of all flows' goodput (CUBIC's is 1 − it).",
        "",
        "Settings per tool:",
        "",
        f"- kernel: {KERNEL_SETTINGS}.",
        f"- ns-3: {NS3_SETTINGS}. ns-3's NewReno grows cwnd per ACK, not per acknowledged segment, so "
        "delayed ACKs would halve its growth against Linux's (Linux counts acknowledged segments): "
        "ns-3 ACKs every segment here.",
        f"- engine: {ENGINE_SETTINGS}; an ideal bottleneck that serializes at C, as ns-3's.",
        f"- twin (the engine set up like the kernel testbed): the same, with the {TWIN_SETTINGS.split('; ')[-1]}. "
        "The kernel is judged against the twin, ns-3 against the engine (see the tiny-buffer section below for why "
        "the bucket matters). The twin's TCP, as `bufsize.testbed.compare.simulator_twin` sets it: "
        + ", ".join(f"{k} {v:.9f}".rstrip("0") if isinstance(v, float) and 0 < v < 1e-3 else f"{k} {v}"
                    for k, v in twin_tcp().items()) + " (loss detection: "
        + str(twin_tcp().get("loss_detection", "dupack, the engine's default")) + ").",
        "",
        "## Targets",
        "",
        "Engine within 3 utilization points of the kernel (the twin) and of ns-3 (the ideal engine) wherever "
        "the two references agree within 3 points (\"met\" / \"MISS\"); where they disagree, both gaps are "
        "given. Where only one reference was measured the target cannot be judged; the engine's "
        "gap to that reference is given and gaps over 3 points are listed, but not as misses.",
        "",
        twin_line(ker, twn),
        "",
        f"Counts (of {len(grid())} points): target met {counts['met']}, missed {counts['miss']}, references "
        f"disagree {counts['disagree']}; only one reference measured: engine within 3 points of it "
        f"{counts['one_within']}, farther {counts['one_off']}; not evaluated {counts['unevaluated']} "
        "(engine lacks the control, or no reference measured).",
        "",
        "Since 2026-11-29 the linux profile's CUBIC runs HyStart (`cubic_hystart`), as Linux's does; the\n"
        "table below predates it. The twin's CUBIC points re-run against the same recorded kernel runs\n"
        "(bench/validation/hystart.md, five seeds): 5 of 23 move, each toward the kernel\n"
        "(bbr+cubic-1+1-b1 +0.57 → −0.11), mean distance 0.310 → 0.274 point, largest unchanged (1.29).",
        "",
        "## Table (utilization and loss in %, BBR share in % as kernel / ns-3 / engine)",
        "",
        "| point | B (pkt) | util kernel | util twin | util ns-3 | util engine | loss kernel | loss ns-3 | loss engine | BBR share k / n / e | timeouts k / n / e | verdict |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        *lines,
        "",
        "## Misses",
        "",
        *(misses or ["- none among the points where both references were measured"]),
        "",
        "## Gaps of more than 3 points to the only reference measured (not target misses)",
        "",
        *(gaps or ["- none"]),
        "",
        *tiny.doc_section(),
        *profile_sections(),
        *CAUSES,
        "",
        "## What could not be measured",
        "",
    ]
    miss_lines = []
    if not_run_k:
        miss_lines.append(f"- kernel testbed not run at {len(not_run_k)} points: " + ", ".join(not_run_k))
    if rejected:
        miss_lines.append(f"- kernel testbed runs rejected by the fidelity checks at {len(rejected)} points "
                          "(reasons in kernel.csv's note column): " + ", ".join(r["point"] for r in rejected))
    rej_file = HERE / "kernel_rejections.txt"
    if rej_file.exists():
        n_rej = sum(1 for ln in rej_file.read_text().splitlines() if ln and not ln.startswith("#"))
        miss_lines.append(f"- {n_rej} kernel attempts in all were refused by the fidelity checks "
                          "(bench/validation/kernel_rejections.txt: the machine, shared by about 8 sessions, "
                          "was 99–100 % busy; the runs were not repeated long enough to find a quiet moment)")
    if not_run_n:
        miss_lines.append(f"- ns-3 not run at {len(not_run_n)} points: " + ", ".join(not_run_n))
    eng_missing = sorted({r.get("note", "") for r in eng.values() if r.get("status") == "missing"})
    if eng_missing:
        miss_lines.append("- engine: " + "; ".join(eng_missing) + " (detected when the engine column was run; "
                          "once the engine has the control, `run.py engine && run.py doc` fills these rows)")
    out += miss_lines or ["- nothing"]
    out.append("")
    out += _kept_sections()
    fd, tmp = tempfile.mkstemp(dir=DOC.parent, prefix=DOC.name + ".")
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(out))
    os.chmod(tmp, 0o644)
    os.replace(tmp, DOC)
    print(f"wrote {DOC}")


#: What was measured about the references' known defects (kept with the generator so the doc says it).
CAUSES = [
    "## Known defects of the references, measured here",
    "",
    "- ns-3 3.37 floors the whole RTO at MinRto and does not restart the timer at a fast "
    "retransmit (bench/ns3/results.md, gap 1): with MinRto 200 ms its flows time out 200 ms after "
    "the last new ACK, during SACK recovery (one BBR flow at 0.1 BDP: recovery entered at 0.577 s, "
    "timeout at 0.776 s). Linux's RTO is about srtt + 200 ms, so the ns-3 column uses a per-flow "
    "minimum RTO of 200 ms + the flow's RTT (`--linuxRto`). It is not what keeps ns-3's Reno low at "
    "0.1 BDP: 8 NewReno flows, window 10–40 s, 0.627 with the 200-ms floor and 0.631 with it raised "
    "(1 timeout).",
    "- ns-3 3.37's BBR (`ns3::TcpBbr`, paced) collapses at shallow buffers: one flow at 0.1 BDP "
    "keeps cwnd near 2 BDP (417–576 segments) for 15 s, then falls into timeout after timeout with "
    "cwnd at 1–6 segments (4 is BBR's PROBE_RTT value) for the rest of the run "
    "(`bench/validation/ns3_bbr_evidence.sh`: 37 timeouts, 6–15 per 5 s from 25 s on), so its "
    "utilization depends on the run's length (0.83 over 5–20 s with the 200-ms RTO floor, 0.74 over "
    "10–20 s and 0.25 over 10–40 s with the raised one). In the BBR+CUBIC pairs the same collapse "
    "hands nearly all the link to CUBIC. It is not the shallow buffer alone, nor our RTO or ACK "
    "settings: one BBR flow at 1 BDP with ns-3's own MinRto (1 s) and delayed ACKs (2 segments, "
    "200 ms) kept cwnd at 574–578 segments (2 BDP) for 18 s, then took one timeout (19.3 s) and "
    "stayed in CA_LOSS with cwnd 5–6 segments to the end: utilization 0.30 over 10–40 s with no "
    "drop in the window. We did not find the defect inside ns-3 (a suspect: BBR "
    "keeps no ssthresh, and ns-3's socket sets cwnd from ssthresh when recovery ends). "
    "ns-3's BBR rows with many timeouts are therefore not a usable reference; the kernel column is "
    "the one to judge the engine's BBR by there.",
    "- ns-3's single NewReno flow enters loss recovery with nothing dropped at the bottleneck (the one "
    "queue that can fill), and after a timeout "
    "stays in CA_LOSS. At 0.25 BDP (B = 72, BDP 289) its recoveries start at 0.37 s (slow start), "
    "19.6 s (cwnd 322) and 24.0 s (cwnd 217, below the BDP), while the bottleneck dropped 1 packet "
    "in the whole 10–40 s window: one of the two recoveries had no loss to repair. At 2 BDP "
    "(B = 578), 25-s run: recovery at 17.44 s with cwnd about 440 (the queue overflows only at "
    "867), a timeout at 17.87 s, then CA_LOSS with cwnd 1 to the end, with 0 bottleneck drops in the window; "
    "the 40-s grid run of this point reads 0.28 utilization with no loss. So ns-3's single-flow "
    "Reno/CUBIC rows are low for a defect of ns-3's loss detection or recovery (we did not find "
    "which), not for the scenario; the engine agrees with the sawtooth model there (0.83 / 0.90 "
    "against 0.82 / 0.89 at 0.1 / 0.25 BDP).",
    "- ns-3 3.37's PRR wraps a 32-bit product (data delivered × ssthresh, both in bytes) after about "
    "20 segments of a recovery at ssthresh ~100 and then sends nothing until the pipe reaches "
    "ssthresh (fixed after 3.37, ns-3 issue 1282; the ns3 profile copies it as `prr_wraps_32bit`). "
    "It is not what keeps ns-3 low on this page: the same points with TcpClassicRecovery "
    "(2026-11-28, seed as above) read the same where one flow runs (reno-n1-b0.1 0.768, "
    "cubic-n1-b0.25 0.794, reno-n1-b2 0.276, cubic-n1-b2 0.835, against 0.768 / 0.795 / 0.276 / "
    "0.835 with PRR) and lower still with 8 flows (reno-n8-b0.1 0.482 against 0.631, cubic-n8-b0.1 "
    "0.555 against 0.811); 32 flows move by a point or three (reno 0.718 / 0.710, cubic 0.762 / "
    "0.794).",
    "- Where the references disagree on Reno and CUBIC (8 and 32 flows, 0.1–0.25 BDP) ns-3 is the low "
    "one by 6–26 points and the twin follows the kernel (within 0.1–2.7 points). We measured early losses "
    "below the BDP only for ns-3's single flow (above); that the same defect keeps ns-3's 8 and 32 flows "
    "low is likely but not measured.",
    "- The twin's old tiny-buffer gap (32 Reno and 32 CUBIC flows at 0.1 BDP, 3.7 and 4.5 points below "
    "the kernel with an ideal bottleneck) was the testbed's htb bucket (section above); shaped like it, "
    "the twin is within 0.1 and 0.7 points there.",
    "- BBR, many flows, 0.1–0.25 BDP: with the engine's default loss detection (three duplicate ACKs) "
    "the twin's BBR flows take hundreds of retransmission timeouts where Linux's take 0–2, and the twin "
    "landed 4–7 points below the kernel. Linux runs RACK-TLP; with the engine's RACK-TLP (what the twin "
    "runs now, see its settings) the twin is within 1 point of the kernel at every BBR point.",
    "- BBR+CUBIC 4+4 at 1 and 2 BDP, judged on the ideal engine against ns-3: with duplicate-ACK detection "
    "(the engine rows' old settings) −5.2 and +3.0 points; with the twin's whole TCP (RACK-TLP, Linux's PRR, "
    "ssthresh kept on a repeated timeout) 1 BDP meets the target and 2 BDP sits at the 3-point line. ns-3's BBR "
    "flows there take 318 and 189 timeouts and get 0 % and 47 % of the link where Linux's get 98 % and 81 % "
    "(the collapse of ns-3's BBR described above); the twin is within 0.2 points of the kernel at both.",
    "- reno-n8-b0.1 (8 Reno flows, 0.1 BDP) is the one point where the twin is more than 2 points from "
    "the kernel. It is sensitive to the draw: over seeds 1–6 the twin reads 90.0–91.9 % (mean 90.8–91.0 % "
    "with ACKs of 40, 52 or 66 bytes) against the kernel's 88.2 % (mean of its runs), so the gap is "
    "about +2.7 points, not the +1.7 one seed once showed. Re-measured on 2026-11-28 (10:01–10:03 UTC, "
    "load 0.1–0.8, every run accepted at once), seeds 1–3: kernel 87.0 / 89.2 / 88.5 % (loss 0.31–0.35 %), "
    "the twin with the linux profile's host jitter 90.7 / 91.9 / 91.7 %: +3.1 points, the campaign's gap, "
    "not the machine's. Host jitter does not move it (8 seeds: 91.0–91.3 % with 0 to 200 µs), nor did "
    "Linux's RTO rule. Explained by the receivers' ACKs (bench/validation/ack_pattern.md, captured on the "
    "kernel testbed): one kernel ACK in seven covers one segment or three and more (the twin ACKs every "
    "second segment) and Linux compresses duplicate ACKs; a scratch twin with the kernel's mix of ACKs "
    "reads 88.9–89.3 % (kernel 88.4 % over six runs). The engine has no such receiver model yet.",
    "- Kernel rows: the single-flow and BBR points were measured on 2026-11-25 (12:22–12:46 UTC) with the "
    "machine otherwise idle, every run accepted at its first attempt; the 8- and 32-flow Reno/CUBIC rows "
    "are the accepted runs of the identical configuration recorded by bench/testbed/campaign.py on "
    "2026-11-22 (`run.py kernel-import`, means of 2–3 runs).",
    "- ns-3 ACKs every segment here (see the settings); Linux delays ACKs, the engine too (40 ms).",
]


# ---------------------------------------------------------------------------------------------- profiles
def profile_sections() -> list[str]:
    """One section per TCP profile (bufsize.profiles): what it is checked against and how well."""
    out = ["## Each profile against its reference", "",
           "Every scenario starts from a named TCP stack (`bufsize/profiles.py`, docs/simulate.md#profiles).",
           "",
           "**linux** (the default) against the Linux kernel testbed: the twin rows of this page are the "
           "`linux` profile with the testbed's frame sizes and htb bucket (`bufsize.testbed.compare."
           "simulator_twin`); see the counts above and the tiny-buffer and SACK-less sections.",
           ""]
    path = ROOT / "bench" / "ns3" / "results_profile_ns3.csv"
    rows = list(csv.DictReader(path.open())) if path.exists() else []
    out.append("**ns3** against ns-3 3.37 at its own default attributes (`bench/ns3/compare.py --profile ns3 "
               "--cc X`; bench/ns3/results.md, section Profile ns3): the OC3 grid, n = 50–400 flows, "
               "B = 0.5–2 × BDP/√n and BDP (0.025–1 BDP), 1000-byte packets, RTTs 20–140 ms, targets "
               "utilization within 1 point and loss within 25 % where it is at least 0.1 %.")
    out.append("")
    for cc in sorted({r["cc"] for r in rows}, key=lambda c: (c != "newreno", c)):
        rs = [r for r in rows if r["cc"] == cc]
        ok = [r for r in rs if r.get("verdict") == "pass"]
        bad = [f"n={r['n']} B={r['buffer_packets']} ({float(r['util_diff_points']):+.1f} pt, "
               f"loss {float(r['loss_rel_diff']):+.0%})" for r in rs if r.get("verdict") != "pass"]
        out.append(f"- {cc}: {len(ok)} of {len(rs)} points meet both" + (f"; misses: {', '.join(bad)}" if bad else ""))
        if cc == "cubic":
            out.append("  ns-3 3.37's TcpCubic adds every segment an ACK covers in slow start (no per-ACK limit, no cap "
                       "at ssthresh): after a timeout one cumulative ACK lifts its window by hundreds of segments, "
                       "which inflates its loss and makes these points depend on the draw (bench/ns3/cubic_gap.md; "
                       "capped at 2 segments per ACK, ns-3 comes within 0.7–2 points of the engine at the four "
                       "smallest buffers). The engine does not copy the defect: a copy of ns-3's rule was tried "
                       "(2026-11-28) and met 0 of 16 points, engine loss 13–27 % at every point against ns-3's "
                       "0.2–8.6 % (bench/ns3/cubic_gap.md, section After); with the rule's exit from the loss state "
                       "as ns-3 has it, ns-3's PRR bound and its partial-ACK retransmission (each traced in ns-3.37's "
                       "source, section 'The RTO path traced') the grid reads 1–4 of 16: the storms the rule starts "
                       "die out in ns-3 and persist in the engine from n = 100 on, and a one-seed point then depends "
                       "on which flow a collapse catches. The profile is not matched here.")
    if rows:
        out.append("")
        out.append("The ns3 profile copies one defect of ns-3 3.37 that does decide results: TcpPrrRecovery "
                   "multiplies two 32-bit byte counts (data delivered × ssthresh), which wrap after about 20 "
                   "segments of a recovery at ssthresh ~100, and the sender then sends nothing until the pipe "
                   "has fallen to ssthresh (fixed after 3.37, ns-3 issue 1282). `prr_wraps_32bit` (on in ns3 "
                   "only) brings the FQ-CoDel rows of the AQM tables below from −30 % to −1 % of ns-3's sojourn.")
    if not rows:
        out.append("- not run (bench/ns3/results_profile_ns3.csv missing)")
    rl = HERE / "recommend_linux.csv"
    rrows = list(csv.DictReader(rl.open())) if rl.exists() else []
    out += ["", "**recommend's verified size on real Linux** (`bench/validation/recommend_linux.py`: each link "
            "sized by `bufsize recommend` on the linux profile, then the kernel testbed through a port of "
            "exactly that many packets, htb released at the rate, two accepted 40-s runs):", ""]
    if rrows:
        out += ["| link | goal | verified (packets) | simulated there | kernel utilization (runs, range) | met on Linux |",
                "|---|---|---|---|---|---|"]
        out += [f"| {r['describe']} | {r.get('goal') or 0.99} | {r['verified_packets']} | "
                f"{float(r['sim_utilization']):.4f} | {float(r['kernel_utilization']):.4f} ({r['kernel_runs']}, "
                f"{float(r['kernel_min']):.4f}–{float(r['kernel_max']):.4f}) | {r['met']} |" for r in rrows]
        out += ["", "Measured 2026-11-28 with nothing else running (two attempts at the Reno link were refused by the "
                "fidelity checks and retried; the table's rejected_attempts column in recommend_linux.csv). "
                "The capture link was re-measured at 05:58 UTC the same day at the 23 packets the "
                "verification gave then (it was 25 before the verification changes of that day: two seeds first, "
                "CUBIC's epoch in the run length); on an otherwise idle machine 5 of its 7 attempts were refused "
                "by the delay element's lateness check (largest lateness 39–545 ms: pauses of the virtual machine "
                "itself, load average 0.2), the other two accepted. With Linux's RTO rule in the linux profile "
                "(e9b1c69, later the same day) the simulator verified the three links at 19, 44 and 112 "
                "packets; with the profile's host jitter (10 µs) and RTT samples in whole microseconds "
                "(2026-11-28, 09:55 UTC) at 25, 44 and 112, the sizes of the table: the capture link was "
                "measured again at 25 packets at 10:00 UTC (both runs accepted at once, load under 1; 0.9962). "
                "Before the profiles, recommend verified with paper-era hosts: the capture link got 12 packets "
                "(Linux 0.967) and the 30-flow link 32 (Linux 0.955). The 30-flow link still misses, by 0.1–0.2 "
                "points: the simulation is 0.7 points above the kernel at 44 packets, in line with the twin's "
                "optimism against a kernel with a one-frame bucket in the tiny-buffer table above (+0.0 to +4.2 "
                "points)."]
    else:
        out.append("- not run yet (needs root and a quiet machine)")
    out += ["", *_ns2_profile_lines(), ""]
    return out


def _ns2_profile_lines() -> list[str]:
    """The ns2 profile's paragraph: ns-2.35 itself on the OC3 grid (bench/ns2/grid.csv) where it ran."""
    import pandas as pd

    text = ("**ns2** (the papers' ns-2.35 agents) against ns-2.35 itself (Debian's `ns2` package; "
            "`bench/ns2/compare.py`, bench/ns2/results.md): the OC3 grid of the ns3 profile (n = 50–400, "
            "B = 0.5–2 × BDP/√n and BDP, 1000-B packets, RTTs 20–140 ms), seeds 1–3, judged on the means with "
            "the same targets (1 point, 25 % of the loss).")
    grid = ROOT / "bench" / "ns2" / "grid.csv"
    if not grid.exists():
        return [text + " Not run yet (`apt-get install ns2`)."]
    d = pd.read_csv(grid).groupby(["agent", "n", "B"]).mean(numeric_only=True).reset_index()
    du = (d.engine_util - d.ns2_util).abs()
    dl = (d.engine_loss / d.ns2_loss - 1).abs()
    d["met"] = (du <= 0.01) & ((d[["ns2_loss", "engine_loss"]].max(axis=1) < 0.001) | (dl <= 0.25))
    lines = [text]
    for agent, cc in (("Newreno", "newreno"), ("Reno", "reno (RFC 5681)")):
        g = d[d.agent == agent]
        miss = g[~g.met]
        where = "; misses: " + ", ".join(f"n={r.n} B={r.B} ({(r.engine_util - r.ns2_util) * 100:+.1f} pt, loss "
                                         f"{r.engine_loss / r.ns2_loss - 1:+.0%})"
                                         for r in miss.itertuples()) if len(miss) else ""
        lines.append(f"- {cc} against Agent/TCP/{agent}: {int(g.met.sum())} of {len(g)} points meet both{where}")
    lines += ["", "Its details are also checked by trace tests of ns-2's documented semantics "
                 "(tests/sim/test_profiles.py): the flights of ns-2's SYN and initial window of 2 (1, 2, 4, 8, as an "
                 "initial window of 1) doubling every RTT, an ACK for every data "
                 "packet on the reverse link, and a loss that halves the window; its values (windowInit_, minrto_, "
                 "maxrto_, rtxcur_init_, singledup_) are ns-2.35's ns-default.tcl. The reproduction starts from "
                 "it (reproduce/_stack.py); 004 Fig. 15's cells run in ns-2.35 with the reproduction's setting "
                 "land within a point of the engine and as far below 004's printed ns-2 column as the engine "
                 "(bench/ns2/results.md)."]
    return lines


# ---------------------------------------------------------------------------------------------- main
def sweep(tool: str, pts: list[dict], force: bool, attempts: int) -> None:
    path = HERE / f"{tool}.csv"
    rows = read_csv(path)
    for p in pts:
        rows = read_csv(path)  # what other processes (or kernel-import) have written meanwhile
        old = rows.get(p["point"])
        fresh = (old and old.get("duration_s") == str(DURATION_S) and old.get("status") in ("ok",)
                 and not force)
        if tool in ("engine", "twin") and old and old.get("status") == "missing" and not force:
            # re-check: the control may have landed since
            fresh = False
        if fresh:
            continue
        if tool == "kernel" and old and old.get("status") == "rejected" and not force:
            pass  # rejected points are retried
        print(f"[{tool}] {p['point']} ...", flush=True)
        if tool == "ns3":
            row = run_ns3(p)
        elif tool == "engine":
            row = run_engine(p)
        elif tool == "twin":
            row = run_engine(p, burst=KERNEL_BURST_BYTES)
        else:
            row = run_kernel(p, attempts)
        print(f"[{tool}] {p['point']}: {row['status']} util={row.get('utilization', '')} "
              f"loss={row.get('loss_rate', '')} bbr_share={row.get('bbr_share', '')} {row.get('note', '')[:200]}",
              flush=True)
        # Merge into the file as it is now (another process may be filling other points of it).
        with open(path.with_suffix(".lock"), "w") as lk:
            fcntl.flock(lk, fcntl.LOCK_EX)
            rows = read_csv(path)
            cur = rows.get(p["point"])
            if row["status"] != "ok" and cur and cur.get("status") == "ok":
                pass  # keep a measured point; a later failed retry does not erase it
            else:
                rows[p["point"]] = row
            write_csv(path, rows)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("what", choices=("ns3", "engine", "twin", "kernel", "kernel-import", "tiny-kernel", "tiny-engine",
                                     "doc", "all"))
    ap.add_argument("--points", default="*", help="glob over point names, e.g. 'reno-*' or '*-b0.1'")
    ap.add_argument("--force", action="store_true", help="rerun points already in the CSV")
    ap.add_argument("--attempts", type=int, default=2, help="kernel: tries per point before it is rejected")
    a = ap.parse_args(argv)
    pts = [p for p in grid() if any(fnmatch.fnmatch(p["point"], g) for g in a.points.split(","))]
    if not pts:
        print(f"run.py: error: no point matches {a.points!r}", file=sys.stderr)
        return 2
    if a.what in ("ns3", "all"):
        if not NS3_BIN.exists():
            print("run.py: error: build ns-3's dumbbell first: bench/ns3/install.sh && bench/ns3/build.sh",
                  file=sys.stderr)
            return 2
        sweep("ns3", pts, a.force, a.attempts)
    if a.what in ("engine", "all"):
        sweep("engine", pts, a.force, a.attempts)
    if a.what in ("twin", "all"):
        sweep("twin", pts, a.force, a.attempts)
    if a.what == "tiny-kernel":
        tiny.sweep_kernel(a.force, a.attempts)
    if a.what in ("tiny-engine", "all"):
        tiny.sweep_engine()
    if a.what in ("kernel", "all"):
        sweep("kernel", pts, a.force, a.attempts)
    if a.what == "kernel-import":
        import_campaign()
    if a.what in ("doc", "all"):
        write_doc()
    return 0


if __name__ == "__main__":
    sys.exit(main())
