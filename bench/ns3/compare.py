#!/usr/bin/env python3
"""Cross-validate ``bufsize simulate`` against ns-3 on the OC3 dumbbell grid.

For every grid point (n flows, buffer B) both simulators get the same inputs:
the same per-flow two-way propagation delays and the same start times (drawn
here from one seeded generator), the same bottleneck rate, drop-tail limit,
packet size on the wire, TCP settings and measurement window. The script
writes ``results.csv`` and the tables inside ``results.md`` (text outside the
table markers is kept, so the hand-written analysis survives re-runs).

ns-3 results are cached in ``ns3_runs.jsonl`` (one JSON line per run, keyed by
every input), so an interrupted grid resumes and the bufsize side can be
(re)run alone with ``--skip-ns3``.

Usage (from the repository root):

    nice python3 bench/ns3/compare.py --sack on            # full grid, both tools
    nice python3 bench/ns3/compare.py --sack on --only ns3  # ns-3 column only
    nice python3 bench/ns3/compare.py --speed               # the S1 speed figure
    nice python3 bench/ns3/compare.py --profile ns3 --cc cubic  # stacks at ns-3 3.37's defaults

``--profile ns3``: ns-3 runs with every TCP stack detail at its own 3.37 default
(dumbbell ``--stack=defaults``: PRR recovery, SACK and timestamps on, IW 10,
MinRto 1 s, delayed ACKs every 2nd segment; see ns3_defaults.md) except the
congestion control, given by ``--cc``; bufsize gets the top-level scenario key
``"profile": "ns3"`` and only cc, packet and header size in ``dumbbell.tcp``.
These sets go to ``results_profile_ns3.csv`` and their own marked blocks in
``results.md``; the SACK on/off sets are not touched.

Run it with ``nice``: one ns-3 process at a time, a full grid takes about
half an hour here.
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
NS3_BIN = HERE / "build" / "dumbbell"
CACHE = HERE / "ns3_runs.jsonl"
BUFSIZE = REPO / ".venv" / "bin" / "bufsize"

CAPACITY_BPS = 155e6
PACKET_BYTES = 1000
RTT_MS = (20.0, 140.0)  # uniform
START_SPREAD_S = 1.0
FLOWS = (50, 100, 200, 400)
# Buffer sizes as multiples of BDP/sqrt(n), plus the full BDP ("bdp").
BUFFERS = ("0.5", "1", "2", "bdp")

UTIL_TOL = 0.01  # absolute: one percentage point
LOSS_TOL = 0.25  # relative, applied where either loss rate is >= LOSS_FLOOR
LOSS_FLOOR = 0.001


class CompareError(Exception):
    """A user or environment error: printed as one line, exit status 2."""


def bdp_packets() -> float:
    """Bandwidth-delay product at the mean RTT of the uniform RTT range (80 ms)."""
    mean_rtt = (RTT_MS[0] + RTT_MS[1]) / 2 / 1000
    return CAPACITY_BPS * mean_rtt / (8 * PACKET_BYTES)


def buffer_packets(n: int, which: str) -> int:
    bdp = bdp_packets()
    if which == "bdp":
        return round(bdp)
    return max(1, round(float(which) * bdp / math.sqrt(n)))


def flow_inputs(n: int, seed: int) -> tuple[list[float], list[float]]:
    """Per-flow RTTs (ms) and start times (s), identical for both simulators."""
    rng = random.Random(f"bufsize-ns3-{seed}-{n}")
    rtts = [round(rng.uniform(*RTT_MS), 6) for _ in range(n)]
    starts = [round(rng.uniform(0.0, START_SPREAD_S), 6) for _ in range(n)]
    return rtts, starts


def run_key(p: dict) -> str:
    text = json.dumps(p, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def load_cache() -> dict[str, dict]:
    out = {}
    if CACHE.exists():
        for line in CACHE.read_text().splitlines():
            if line.strip():
                rec = json.loads(line)
                out[rec["key"]] = rec
    return out


def ensure_ns3() -> None:
    r = subprocess.run([str(HERE / "build.sh")], capture_output=True, text=True)
    if r.returncode != 0:
        raise CompareError(f"build.sh failed: {r.stderr.strip().splitlines()[-1] if r.stderr else r.returncode}")


def ns3_stack_args(p: dict) -> list[str]:
    """dumbbell's TCP stack options for one run.

    The SACK on/off grids fix the stack (NewReno, classic recovery, no timestamps, IW 2,
    MinRto 200 ms, every segment ACKed: dumbbell's --stack=explicit). Profile ns3 leaves
    everything but the congestion control at ns-3 3.37's defaults.
    """
    if p.get("profile") == "ns3":
        return ["--stack=defaults", f"--cc={p['cc']}"]
    return [f"--sack={1 if p['sack'] else 0}", "--initCwnd=2", "--minRto=200"]


def run_ns3(p: dict, rtts: list[float], starts: list[float]) -> dict:
    cmd = [
        "nice", str(NS3_BIN),
        f"--flows={p['n']}", f"--capacity={int(CAPACITY_BPS)}bps", f"--buffer={p['buffer']}",
        f"--duration={p['duration']}", f"--warmup={p['warmup']}", f"--seed={p['seed']}",
        f"--packetSize={PACKET_BYTES}", *ns3_stack_args(p),
        "--rtts=" + ",".join(f"{r:.6f}" for r in rtts),
        "--starts=" + ",".join(f"{s:.6f}" for s in starts),
    ]
    t0 = time.monotonic()
    r = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.monotonic() - t0
    if r.returncode != 0:
        raise CompareError(f"ns-3 run {p} failed: {r.stderr.strip()[-300:]}")
    res = json.loads(r.stdout.strip().splitlines()[-1])
    res["process_wall_seconds"] = round(wall, 3)
    return res


def bufsize_scenario(p: dict, rtts: list[float], starts: list[float]) -> dict:
    """The JSON scenario of one bufsize run, carrying the same RTT and start lists."""
    scenario = {
        "seed": p["seed"],
        "duration_s": float(p["duration"]),
        "warmup_s": float(p["warmup"]),
        "dumbbell": {
            "capacity_bps": CAPACITY_BPS,
            "flows": p["n"],
            "rtt_s": {"list": [r / 1000 for r in rtts]},
            "buffer": {"limit_packets": p["buffer"]},
            "start_s": {"list": starts},
            "tcp": {
                "cc": "newreno",
                "sack": bool(p.get("sack") if p.get("bufsize_sack") is None else p["bufsize_sack"]),
                "packet_bytes": PACKET_BYTES,
                "header_bytes": 40,
                "initial_window": 2,
                "min_rto_s": 0.2,
                "delayed_ack": False,
                "prr": False,  # explicit: the toolkit default (bufsize.defaults) is on; this grid ran without
            },
        },
    }
    if p.get("profile") == "ns3":
        # The profile supplies the rest of the stack (IW, RTO, delayed ACKs, recovery, SACK ...).
        scenario["profile"] = "ns3"
        scenario["dumbbell"]["tcp"] = {"cc": p["cc"], "packet_bytes": PACKET_BYTES, "header_bytes": 40}
    return scenario


def run_bufsize(p: dict, rtts: list[float], starts: list[float]) -> dict:
    """One bufsize run from a JSON scenario carrying the same RTT and start lists."""
    scenario = bufsize_scenario(p, rtts, starts)
    if not BUFSIZE.exists():
        raise CompareError(f"{BUFSIZE} not found (run `make install`)")
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(scenario, f)
        path = f.name
    try:
        t0 = time.monotonic()
        r = subprocess.run(["nice", str(BUFSIZE), "simulate", path, "--json", "--no-progress"],
                           capture_output=True, text=True)
        wall = time.monotonic() - t0
    finally:
        os.unlink(path)
    if r.returncode != 0:
        lines = [ln for ln in r.stderr.strip().splitlines() if ln.strip()]
        raise RuntimeError(lines[-1] if lines else f"exit {r.returncode}")
    res = json.loads(r.stdout)
    res["process_wall_seconds"] = round(wall, 3)
    return res


def verdict(u_ns3: float, l_ns3: float, u_bs: float | None, l_bs: float | None) -> tuple[str, str, str]:
    """(util check, loss check, overall) against the acceptance targets."""
    if u_bs is None or l_bs is None:
        return "-", "-", "not run"
    util_ok = abs(u_bs - u_ns3) <= UTIL_TOL
    if max(l_ns3, l_bs) >= LOSS_FLOOR:
        loss_ok = l_ns3 > 0 and abs(l_bs - l_ns3) / l_ns3 <= LOSS_TOL
        loss_txt = "pass" if loss_ok else "FAIL"
    else:
        loss_ok = True
        loss_txt = "n/a (<0.1%)"
    return ("pass" if util_ok else "FAIL"), loss_txt, ("pass" if util_ok and loss_ok else "FAIL")


def fmt(x, spec):
    return "" if x is None else format(x, spec)


def bufsize_build() -> str:
    """Which bufsize the numbers come from: the repository commit and the extension's build time."""
    try:
        sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True).stdout.strip() or "unknown"
    except OSError:
        sha = "unknown"
    so = sorted((REPO / "python" / "bufsize").glob("_engine*.so"))
    built = (time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(so[0].stat().st_mtime)) if so else "unknown")
    return f"bufsize at commit {sha}, engine built {built}"


PROFILE_FIELDS = ["ns3_socket_type", "ns3_recovery_type", "ns3_sack", "ns3_timestamps", "ns3_init_cwnd",
                  "ns3_min_rto_s", "ns3_del_ack_count", "ns3_segment_size", "ns3_fast_recoveries"]


def write_outputs(rows: list[dict], sack: bool, args) -> None:
    tag = tag_of(args)
    profile = args.profile == "ns3"
    # CSV: one file for all sets (profile sets have their own); replace this set's rows.
    csv_path = HERE / ("results_profile_ns3.csv" if profile else "results.csv")
    key = "set" if profile else "sack"
    fields = [key] + (["cc"] if profile else []) + [
              "n", "buffer_label", "buffer_packets", "duration_s", "warmup_s", "seed",
              "ns3_utilization", "ns3_loss_rate", "bufsize_utilization", "bufsize_loss_rate",
              "util_diff_points", "loss_rel_diff", "util_check", "loss_check", "verdict",
              "ns3_mean_queue", "bufsize_mean_queue", "ns3_timeouts", "bufsize_timeouts",
              "ns3_wall_s", "bufsize_wall_s", "bufsize_note"] + (PROFILE_FIELDS if profile else [])
    for r in rows:
        r.setdefault(key, tag)
    old = []
    if csv_path.exists():
        with csv_path.open() as f:
            old = [r for r in csv.DictReader(f) if r.get(key) != tag]
    with csv_path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields)
        w.writeheader()
        for r in old:
            w.writerow({k: r.get(k, "") for k in fields})
        for r in rows:
            w.writerow({k: r.get(k, "") for k in fields})

    if profile:
        r0 = rows[0] if rows else {}
        title = (f"**Profile ns3, {args.cc}: ns-3 3.37 at its own defaults "
                 f"({r0.get('ns3_socket_type', '?')}, {r0.get('ns3_recovery_type', '?')}, "
                 f"SACK {'on' if r0.get('ns3_sack') else 'off'}, timestamps {'on' if r0.get('ns3_timestamps') else 'off'}, "
                 f"IW {r0.get('ns3_init_cwnd', '?')}, MinRto {r0.get('ns3_min_rto_s', '?')} s, "
                 f"DelAckCount {r0.get('ns3_del_ack_count', '?')}, {r0.get('ns3_segment_size', '?')}-byte segments), "
                 f"bufsize with `\"profile\": \"ns3\"`, cc {args.cc}**")
    else:
        title = (f"**ns-3 SACK {'on' if sack else 'off'}, bufsize SACK "
                 f"{('on' if sack else 'off') if args.bufsize_sack == 'same' else args.bufsize_sack}**")
    lines = [
        f"<!-- BEGIN {key}={tag} (generated by compare.py; edits inside are overwritten) -->",
        title + f" — OC3 155 Mb/s, {PACKET_BYTES}-byte packets, RTTs uniform "
        f"{RTT_MS[0]:g}–{RTT_MS[1]:g} ms, starts uniform in [0, {START_SPREAD_S:g}) s, "
        f"{args.duration:g} s runs measured over [{args.warmup:g}, {args.duration:g}) s, seed {args.seed}. "
        f"BDP = {bdp_packets():.0f} packets (at the 80 ms mean RTT). "
        f"Generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"
        + (f"; {bufsize_build()}." if args.only != "ns3" else "."),
        "",
        "| n | B | B (pkt) | ns-3 util | bufsize util | Δ util (pt) | ns-3 loss | bufsize loss | Δ loss (rel) | util | loss | ns-3 wall s | bufsize wall s |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---:|",
    ]
    for r in rows:
        lab = "BDP" if r["buffer_label"] == "bdp" else f"{r['buffer_label']}·BDP/√n"
        lines.append(
            f"| {r['n']} | {lab} | {r['buffer_packets']} | {r['ns3_utilization']:.4f} | "
            f"{fmt(r.get('bufsize_utilization'), '.4f') or 'not run'} | {fmt(r.get('util_diff_points'), '+.2f')} | "
            f"{r['ns3_loss_rate']*100:.3f}% | "
            f"{'' if r.get('bufsize_loss_rate') is None else format(r['bufsize_loss_rate']*100, '.3f') + '%'} | "
            f"{fmt(r.get('loss_rel_diff'), '+.0%')} | {r['util_check']} | {r['loss_check']} | "
            f"{r['ns3_wall_s']:.1f} | {fmt(r.get('bufsize_wall_s'), '.2f')} |")
    notes = sorted({r["bufsize_note"] for r in rows if r.get("bufsize_note")})
    for n in notes:
        lines.append(f"\nbufsize not run: `{n}`")
    passed = sum(r["verdict"] == "pass" for r in rows)
    ran = sum(r["verdict"] != "not run" for r in rows)
    lines.append(f"\n{passed} of {ran} compared points meet both targets "
                 f"(utilization within ±1 point; loss within ±25 % where loss ≥ 0.1 %).")
    lines.append(f"<!-- END {key}={tag} -->")
    block = "\n".join(lines)

    md = HERE / "results.md"
    text = md.read_text() if md.exists() else "# ns-3 cross-validation\n\n"
    begin = f"<!-- BEGIN {key}={tag} ("
    end = f"<!-- END {key}={tag} -->"
    if begin in text and end in text:
        a = text.index(begin)
        b = text.index(end) + len(end)
        text = text[:a] + block + text[b:]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    md.write_text(text)


def tag_of(args) -> str:
    """Name of one comparison set: ns-3's SACK setting, plus bufsize's when it differs;
    profile-ns3-<cc> for the profile sets."""
    if args.profile == "ns3":
        tag = f"profile-ns3-{args.cc}"
        return tag if args.seed == 1 else f"{tag}-seed{args.seed}"
    tag = args.sack if args.bufsize_sack in ("same", args.sack) else f"{args.sack}-bufsize-{args.bufsize_sack}"
    return tag if args.seed == 1 else f"{tag}-seed{args.seed}"


def grid_params(args, n: int, which: str) -> dict:
    """Every input of one ns-3 run (the cache key). The SACK grids' keys are unchanged."""
    p = {"n": n, "buffer": buffer_packets(n, which), "duration": args.duration,
         "warmup": args.warmup, "seed": args.seed, "packet": PACKET_BYTES,
         "inputs": "random.Random(bufsize-ns3-seed-n) v1"}
    if args.profile == "ns3":
        # the stack is ns-3 3.37's defaults (dumbbell --stack=defaults) but the congestion control
        p.update(profile="ns3", cc=args.cc, stack="ns-3 3.37 defaults v1")
    else:
        p["sack"] = args.sack == "on"
    return p


def grid(args) -> None:
    sack = args.sack == "on"
    ensure_ns3()
    cache = load_cache()
    rows = []
    points = [(n, b) for n in args.flows for b in args.buffers]
    for i, (n, which) in enumerate(points):
        rtts, starts = flow_inputs(n, args.seed)
        p = grid_params(args, n, which)
        key = run_key(p)
        label = (f"[{i+1}/{len(points)}] n={n} B={p['buffer']} ({which}) "
                 + (f"profile=ns3 cc={args.cc}" if args.profile == "ns3" else f"sack={args.sack}"))
        if args.only != "bufsize":
            if key not in cache:
                print(f"{label}: ns-3 ...", file=sys.stderr, flush=True)
                res = run_ns3(p, rtts, starts)
                rec = {"key": key, "params": p, "result": res}
                with CACHE.open("a") as f:
                    f.write(json.dumps(rec) + "\n")
                cache[key] = rec
        if key not in cache:
            print(f"{label}: no ns-3 result cached, skipped", file=sys.stderr)
            continue
        ns = cache[key]["result"]
        row = {"sack": tag_of(args), "n": n, "buffer_label": which, "buffer_packets": p["buffer"],
               "duration_s": args.duration, "warmup_s": args.warmup, "seed": args.seed,
               "ns3_utilization": ns["utilization"], "ns3_loss_rate": ns["loss_rate"],
               "ns3_mean_queue": ns["mean_queue_packets"], "ns3_timeouts": ns["timeouts"],
               "ns3_wall_s": ns["wall_seconds"], "bufsize_utilization": None, "bufsize_loss_rate": None,
               "bufsize_note": ""}
        if args.profile == "ns3":
            row.update(cc=args.cc, ns3_socket_type=ns["socket_type"], ns3_recovery_type=ns["recovery_type"],
                       ns3_sack=ns["sack"], ns3_timestamps=ns["timestamps"], ns3_init_cwnd=ns["init_cwnd"],
                       ns3_min_rto_s=ns["min_rto_s"], ns3_del_ack_count=ns["del_ack_count"],
                       ns3_segment_size=ns["segment_size"], ns3_fast_recoveries=ns["fast_recoveries"])
        if args.only != "ns3":
            try:
                pb = dict(p, bufsize_sack=None if args.bufsize_sack == "same" else args.bufsize_sack == "on")
                bs = run_bufsize(pb, rtts, starts)
                row.update(bufsize_utilization=bs["utilization"], bufsize_loss_rate=bs["loss_rate"],
                           bufsize_mean_queue=bs.get("mean_queue_packets"),
                           bufsize_timeouts=bs.get("timeouts"), bufsize_wall_s=bs.get("wall_seconds"))
            except RuntimeError as e:
                row["bufsize_note"] = str(e)[:200]
        else:
            row["bufsize_note"] = "not yet run (--only ns3)"
        ub, lb = row["bufsize_utilization"], row["bufsize_loss_rate"]
        if ub is not None:
            row["util_diff_points"] = round((ub - ns["utilization"]) * 100, 3)
            row["loss_rel_diff"] = (round((lb - ns["loss_rate"]) / ns["loss_rate"], 4)
                                    if ns["loss_rate"] > 0 else None)
        row["util_check"], row["loss_check"], row["verdict"] = verdict(
            ns["utilization"], ns["loss_rate"], ub, lb)
        print(f"{label}: ns-3 util {ns['utilization']:.4f} loss {ns['loss_rate']:.4%}"
              + (f" | bufsize util {ub:.4f} loss {lb:.4%} -> {row['verdict']}" if ub is not None else
                 f" | bufsize: {row['bufsize_note']}"), file=sys.stderr, flush=True)
        rows.append(row)
    write_outputs(rows, sack, args)


def spread(args) -> None:
    """bufsize alone over several input draws (seeds 1..K) per grid point.

    With explicit RTT and start lists bufsize has no randomness left, so one
    seed = one draw of the lists. The spread across draws shows how much of an
    ns-3/bufsize gap at seed 1 could be the draw rather than the simulators.
    """
    import statistics as st
    sack = args.bufsize_sack == "on" if args.bufsize_sack != "same" else args.sack == "on"
    rows = []
    for n in args.flows:
        for which in args.buffers:
            us, ls = [], []
            for seed in range(1, args.spread + 1):
                rtts, starts = flow_inputs(n, seed)
                p = {"n": n, "buffer": buffer_packets(n, which), "duration": args.duration,
                     "warmup": args.warmup, "seed": seed, "sack": sack}
                bs = run_bufsize(p, rtts, starts)
                us.append(bs["utilization"])
                ls.append(bs["loss_rate"])
            row = {"n": n, "buffer_label": which, "buffer_packets": buffer_packets(n, which),
                   "draws": args.spread, "util_mean": st.mean(us), "util_std": st.stdev(us),
                   "loss_mean": st.mean(ls), "loss_std": st.stdev(ls),
                   "loss_cv": st.stdev(ls) / st.mean(ls) if st.mean(ls) > 0 else 0.0}
            print(f"n={n} B={row['buffer_packets']}: util {row['util_mean']:.4f} ± {row['util_std']:.4f}, "
                  f"loss {row['loss_mean']:.4%} ± {row['loss_std']:.4%}", file=sys.stderr, flush=True)
            rows.append(row)
    path = HERE / f"spread_bufsize_sack_{'on' if sack else 'off'}.csv"
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    print(f"wrote {path}", file=sys.stderr)


def speed(args) -> None:
    """S1: OC3, n = 400, 60 s, RTT 20-140 ms, B = BDP/sqrt(n), 1000-byte packets."""
    ensure_ns3()
    n = 400
    rtts, starts = flow_inputs(n, args.seed)
    p = {"n": n, "buffer": buffer_packets(n, "1"), "duration": 60, "warmup": 10,
         "seed": args.seed, "sack": args.sack == "on"}
    res = run_ns3(p, rtts, starts)
    prof = subprocess.run([str(HERE / "profile.sh")], capture_output=True, text=True).stdout.strip()
    rec = {"scenario": "S1", "params": p, "result": res, "build_profile": prof,
           "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    with (HERE / "speed_s1.json").open("w") as f:
        json.dump(rec, f, indent=1)
    print(f"ns-3 S1 (n=400, 60 s, B={p['buffer']} pkt, SACK {args.sack}): "
          f"{res['bottleneck_packets_total']} bottleneck packets in {res['wall_seconds']:.1f} wall-s = "
          f"{res['bottleneck_packets_per_wall_second']:.0f} packets per wall-second "
          f"({res['bottleneck_packets_total'] / res['cpu_seconds']:.0f} per CPU-second), "
          f"peak RSS {res['peak_rss_mib']:.0f} MiB\n{prof}")


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sack", choices=("on", "off"), default=None,
                    help="SACK in both simulators (default on; see results.md for why)")
    ap.add_argument("--profile", choices=("none", "ns3"), default="none",
                    help="ns3: both stacks at ns-3 3.37's defaults (ns-3 --stack=defaults, "
                         "bufsize \"profile\": \"ns3\") but the congestion control [none]")
    ap.add_argument("--cc", choices=("newreno", "cubic"), default=None,
                    help="congestion control with --profile ns3 [newreno]")
    ap.add_argument("--bufsize-sack", choices=("same", "on", "off"), default="same",
                    help="SACK setting for bufsize when it must differ from ns-3's [same]")
    ap.add_argument("--duration", type=float, default=40.0, help="simulated seconds per run [40]")
    ap.add_argument("--warmup", type=float, default=10.0, help="seconds before measuring [10]")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--flows", default=",".join(map(str, FLOWS)), help="comma list of n")
    ap.add_argument("--buffers", default=",".join(BUFFERS),
                    help="comma list: multiples of BDP/sqrt(n) and/or 'bdp'")
    ap.add_argument("--only", choices=("ns3", "bufsize"), default=None,
                    help="run one side (bufsize uses cached ns-3 results)")
    ap.add_argument("--speed", action="store_true", help="run the S1 speed figure instead of the grid")
    ap.add_argument("--spread", type=int, default=0, metavar="K",
                    help="instead of the grid: bufsize alone over input draws 1..K per point")
    a = ap.parse_args(argv)
    if a.profile == "ns3":
        if a.sack is not None or a.bufsize_sack != "same":
            raise CompareError("--profile ns3 takes SACK from the profile; drop --sack/--bufsize-sack")
        if a.speed or a.spread:
            raise CompareError("--profile ns3 runs the grid only (not --speed or --spread)")
        a.cc = a.cc or "newreno"
    else:
        if a.cc is not None:
            raise CompareError("--cc needs --profile ns3 (the SACK grids run NewReno)")
        a.sack = a.sack or "on"
    try:
        a.flows = [int(x) for x in a.flows.split(",") if x]
    except ValueError:
        raise CompareError(f"--flows: expected a comma list of integers, got {a.flows!r}")
    if not a.flows or min(a.flows) < 1:
        raise CompareError("--flows: every n must be >= 1")
    a.buffers = [x.strip() for x in a.buffers.split(",") if x.strip()]
    for b in a.buffers:
        if b != "bdp":
            try:
                if not float(b) > 0:
                    raise ValueError
            except ValueError:
                raise CompareError(f"--buffers: {b!r} is neither a positive number nor 'bdp'")
    if not (a.warmup >= 0 and a.duration > a.warmup):
        raise CompareError("--duration must exceed --warmup (and --warmup must be >= 0)")
    if a.spread == 1 or a.spread < 0:
        raise CompareError("--spread: need at least 2 draws")
    if a.warmup <= START_SPREAD_S:
        raise CompareError(f"--warmup must exceed the {START_SPREAD_S:g} s start spread")
    return a


def main(argv=None) -> int:
    try:
        args = parse_args(sys.argv[1:] if argv is None else argv)
        if args.speed:
            speed(args)
        elif args.spread:
            spread(args)
        else:
            grid(args)
    except CompareError as e:
        print(f"compare.py: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
