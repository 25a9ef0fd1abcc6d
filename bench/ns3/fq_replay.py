"""Open-loop replay: one packet arrival trace through ns-3 3.37's FqCoDelQueueDisc
(fq_replay.cc) and the engine's fq_codel (crates/sim/examples/fq_replay.rs), compared packet by
packet: which packets are dropped and when, when each starts service.

TCP's feedback is out of the loop: both sides see the same arrivals, so any difference is the
discipline's. Both drivers serve at 100 Mb/s and ask the discipline for a packet when the server is
free; ns-3's is also run with a one-packet device queue in front of the server (`devq`), as on
aqm.cc's dumbbell. Results go to fq_replay_runs.jsonl (one line per replay). See aqm.md,
"FQ-CoDel, 4 flows".

    nice .venv/bin/python bench/ns3/fq_replay.py synthetic [--seconds 20] [--seed 1]
    nice .venv/bin/python bench/ns3/fq_replay.py captured [--n 4] [--seed 1]
    nice .venv/bin/python bench/ns3/fq_replay.py file ARRIVALS [--label NAME]

synthetic: four open-loop flows (steady, on/off, sparse). captured: the arrivals at the disc of
aqm.py's ns-3 fq_codel run (aqm.cc --arrivals), i.e. the closed loop's own traffic. file: any
trace of "t_ns flow bytes" lines, e.g. the engine's own arrivals at the bottleneck logged by the
scratch engine of fq_replay_scratch_engine.diff. profile: for such a trace, each flow's sojourn
by time since its last drop and its gaps between bursts (through the engine's discipline).

    nice .venv/bin/python bench/ns3/fq_replay.py profile ARRIVALS
"""
from __future__ import annotations

import argparse
import collections
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import aqm  # noqa: E402

HERE = Path(__file__).resolve().parent
NS3_BIN = HERE / "build" / "fq_replay"
ENGINE_BIN = aqm.REPO / "target" / "release" / "examples" / "fq_replay"
RUNS = HERE / "fq_replay_runs.jsonl"
RATE = 1e8
#: Two sides' event times agree when within this (ns-3's CoDel counts time in 1.024-us units).
SLACK_NS = 4096

Trace = List[Tuple[int, int, int]]
#: (kind, packet index, time, time it left the disc): kind D (starts service) or X (dropped).
Event = Tuple[str, int, int, int]


def build() -> None:
    src = HERE / "fq_replay.cc"
    if not (NS3_BIN.exists() and NS3_BIN.stat().st_mtime > src.stat().st_mtime):
        NS3_BIN.parent.mkdir(exist_ok=True)
        subprocess.run(["nice", "g++", "-std=c++17", "-O2", "-o", str(NS3_BIN), str(src),
                        "-I/usr/include", "-lns3-core", "-lns3-network", "-lns3-traffic-control"],
                       check=True)
    subprocess.run(["nice", "cargo", "build", "--release", "-q", "-p", "bufsize-sim", "--example",
                    "fq_replay"], check=True, cwd=aqm.REPO)


def on_off(rng: random.Random, flow: int, rate_bps: float, size: int, on_s: float, off_s: float,
           seconds: float) -> Trace:
    """Packets of `size` at `rate_bps` (exponential gaps) during exponential on periods of mean
    `on_s`, separated by exponential off periods of mean `off_s` (off_s 0: always on)."""
    out: Trace = []
    t = rng.uniform(0, 0.05)
    while t < seconds:
        end = t + (rng.expovariate(1 / on_s) if off_s > 0 else seconds)
        while t < min(end, seconds):
            out.append((int(t * 1e9), flow, size))
            t += rng.expovariate(rate_bps / (8 * size))
        t = end + (rng.expovariate(1 / off_s) if off_s > 0 else 0)
    return out


def synthetic_trace(seed: int, seconds: float, grid_ns: int = 1) -> Trace:
    """Four flows, 74 % of 100 Mb/s on average, 130 % while bursts overlap: a steady 30 Mb/s
    flow, a 60 Mb/s flow on 3/8 of the time, a sparse 1 Mb/s flow of 600-B packets and a
    40 Mb/s flow on half the time (Poisson arrivals within each)."""
    rng = random.Random(seed)
    pkts = (on_off(rng, 0, 30e6, 1500, 1, 0, seconds)
            + on_off(rng, 1, 60e6, 1500, 0.3, 0.5, seconds)
            + on_off(rng, 2, 1e6, 600, 1, 0, seconds)
            + on_off(rng, 3, 40e6, 1500, 0.4, 0.4, seconds))
    pkts = sorted((t // grid_ns * grid_ns, f, b) for t, f, b in pkts)
    # Distinct arrival times, so that no side's tie rule matters.
    for i in range(1, len(pkts)):
        if pkts[i][0] <= pkts[i - 1][0]:
            pkts[i] = (pkts[i - 1][0] + grid_ns, pkts[i][1], pkts[i][2])
    return pkts


def read_trace(path: Path) -> Trace:
    with open(path) as f:
        return [(int(a), int(b), int(c)) for a, b, c in (line.split() for line in f)]


def run(cmd: List[str], trace: Trace) -> List[Event]:
    text = "".join(f"{t} {f} {b}\n" for t, f, b in trace)
    out = subprocess.run(["nice", "-n", "10", *cmd], input=text, capture_output=True, text=True,
                         check=True).stdout
    events = []
    for line in out.splitlines():
        w = line.split()
        events.append((w[0], int(w[1]), int(w[2]), int(w[3]) if w[0] == "D" else int(w[2])))
    return events


#: CoDel's target and interval, ns: RFC 8289's 5 ms and 100 ms.
CODEL_NS = (5_000_000, 100_000_000)
#: ns-3's CoDel keeps time in units of 1024 ns (ns >> 10). On this grid (a rate that makes a
#: 1500-B and a 600-B packet time whole units, arrival times and CoDel's constants whole units)
#: that truncation is exact, so both sides see the same times.
UNIT_NS = 1024
GRID_RATE = 12000 / (120 * UNIT_NS) * 1e9
GRID_CODEL_NS = (4882 * UNIT_NS, 97656 * UNIT_NS)


def ns3(trace: Trace, devq: bool = False, rate: float = RATE,
        codel: Tuple[int, int] = CODEL_NS, limit: int = 100_000) -> List[Event]:
    """ns-3's FqCoDelQueueDisc (its default DropBatchSize, 64) with a hard limit of `limit` packets."""
    return run([str(NS3_BIN), f"--rate={rate}", f"--devq={int(devq)}", f"--target={codel[0]}",
                f"--interval={codel[1]}", f"--limit={limit}p"], trace)


def engine(trace: Trace, rate: float = RATE, codel: Tuple[int, int] = CODEL_NS, limit: int = 100_000,
           drop_batch: int = 64) -> List[Event]:
    return run([str(ENGINE_BIN), "--rate", str(rate), "--target-ns", str(codel[0]),
                "--interval-ns", str(codel[1]), "--limit", str(limit), "--drop-batch", str(drop_batch)],
               trace)


def summary(trace: Trace, events: List[Event], from_ns: int = 0) -> Dict[str, object]:
    """Packets sent and dropped from `from_ns` on; mean sojourn to the start of service and to
    leaving the disc (they differ only with a device queue), ms; the mean sojourn per flow."""
    sent = [(trace[i][1], t - trace[i][0], td - trace[i][0]) for k, i, t, td in events
            if k == "D" and t >= from_ns]
    drops = sum(1 for k, _, t, _ in events if k == "X" and t >= from_ns)
    per: Dict[int, List[int]] = collections.defaultdict(list)
    for f, s, _ in sent:
        per[f].append(s)
    return {"sent": len(sent), "drops": drops,
            "sojourn_ms": round(sum(s for _, s, _ in sent) / len(sent) / 1e6, 4),
            "disc_sojourn_ms": round(sum(d for _, _, d in sent) / len(sent) / 1e6, 4),
            "flow_sojourn_ms": {f: round(sum(v) / len(v) / 1e6, 3) for f, v in sorted(per.items())}}


def first_divergence(a: List[Event], b: List[Event]) -> int:
    """Index of the first event where the two sides differ in kind or packet, or in time by more
    than SLACK_NS; -1 if none."""
    for k, (x, y) in enumerate(zip(a, b)):
        if x[0] != y[0] or x[1] != y[1] or abs(x[2] - y[2]) > SLACK_NS:
            return k
    return -1 if len(a) == len(b) else min(len(a), len(b))


def drops_of(trace: Trace, events: List[Event], flow: int) -> List[int]:
    return [t for k, i, t, _ in events if k == "X" and trace[i][1] == flow]


def divergence(trace: Trace, a: List[Event], b: List[Event]) -> Optional[Dict[str, object]]:
    """The first divergence between ns-3 (`a`) and the engine (`b`): the event on each side and, if
    one side drops there, that flow's drop times (ms) around it on both sides."""
    k = first_divergence(a, b)
    if k < 0:
        return None
    out: Dict[str, object] = {"event": k, "ns3": list(a[k]), "engine": list(b[k])}
    dropper = a[k] if a[k][0] == "X" else b[k] if b[k][0] == "X" else None
    if dropper is not None:
        flow = trace[dropper[1]][1]
        t = dropper[2]
        for name, ev in (("ns3", a), ("engine", b)):
            d = drops_of(trace, ev, flow)
            before = [x for x in d if x < t - SLACK_NS]
            out[f"{name}_flow_drops_ms"] = [round(x / 1e6, 3) for x in before[-3:]
                                            + [x for x in d if x >= t - SLACK_NS][:2]]
        out["flow"] = flow
    return out


def replay(label: str, trace: Trace, from_ns: int, extra: Optional[Dict[str, object]] = None,
           grid: bool = False) -> Dict[str, object]:
    """Replay `trace` through both sides (and ns-3 with its device queue), summarize from
    `from_ns` on, append the record to RUNS. `grid`: at GRID_RATE and GRID_CODEL_NS."""
    rate, codel = (GRID_RATE, GRID_CODEL_NS) if grid else (RATE, CODEL_NS)
    a, b = ns3(trace, rate=rate, codel=codel), engine(trace, rate=rate, codel=codel)
    q = ns3(trace, devq=True, rate=rate, codel=codel)
    ia = {e[1]: e[0] for e in a}
    ib = {e[1]: e[0] for e in b}
    rec = {"label": label, "packets": len(trace), "window_from_s": from_ns / 1e9,
           "ns3": summary(trace, a, from_ns), "engine": summary(trace, b, from_ns),
           "ns3_devq": summary(trace, q, from_ns),
           "packets_with_other_outcome": sum(1 for i in ia if ia[i] != ib.get(i)),
           "first_divergence": divergence(trace, a, b), **(extra or {})}
    with open(RUNS, "a") as f:
        f.write(json.dumps(rec) + "\n")
    return rec


def flow_profile(trace: Trace, events: List[Event], flow: int, from_ns: int) -> Dict[str, object]:
    """One flow of a replay: its mean sojourn (ms) by time since its last drop (200-ms bins, to
    3 s), and the gaps between its bursts (arrivals more than 13 us apart: a 1500-B packet at the
    access links' 1 Gb/s takes 12 us), 10th / 50th / 90th percentiles, ms."""
    drops = drops_of(trace, events, flow)
    bins: Dict[int, List[int]] = collections.defaultdict(list)
    j = 0
    for k, i, t, _ in events:
        if k != "D" or trace[i][1] != flow or t < from_ns:
            continue
        while j < len(drops) and drops[j] <= t:
            j += 1
        if j and (t - drops[j - 1]) < 3e9:
            bins[int((t - drops[j - 1]) // 2e8)].append(t - trace[i][0])
    arrivals = [t for t, f, _ in trace if f == flow and t >= from_ns]
    gaps = sorted(b - a for a, b in zip(arrivals, arrivals[1:]) if b - a > 13000)
    return {"flow": flow, "drops_whole_run": len(drops),
            "sojourn_ms_by_200ms_since_drop": [round(sum(bins[b]) / len(bins[b]) / 1e6, 2)
                                               for b in sorted(bins)],
            "burst_gap_ms_p10_p50_p90": [round(gaps[int(q * (len(gaps) - 1))] / 1e6, 3)
                                         for q in (0.1, 0.5, 0.9)]}


def main(argv: List[str]) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("synthetic", "captured", "file", "profile"))
    ap.add_argument("path", nargs="?")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=4)
    ap.add_argument("--label", default=None)
    ap.add_argument("--grid", action="store_true",
                    help="synthetic: times on ns-3's 1024-ns CoDel clock (GRID_RATE, GRID_CODEL_NS)")
    a = ap.parse_args(argv)
    build()
    window = int(aqm.WARMUP_S * 1e9)
    if a.mode == "profile":
        if not a.path:
            ap.error("profile: give the arrival trace's path")
        trace = read_trace(Path(a.path))
        events = engine(trace)
        for flow in sorted({f for _, f, _ in trace}):
            print(json.dumps(flow_profile(trace, events, flow, window)))
        return 0
    if a.mode == "synthetic":
        grid = UNIT_NS if a.grid else 1
        rec = replay(a.label or f"synthetic seed={a.seed} {a.seconds:g}s" + " grid" * a.grid,
                     synthetic_trace(a.seed, a.seconds, grid), 0, grid=a.grid)
    elif a.mode == "captured":
        aqm.build_ns3()
        with tempfile.NamedTemporaryFile(suffix=".txt") as f:
            r = aqm.run_ns3("fq_codel", a.n, a.seed, (f"--arrivals={f.name}",))
            own = {"sojourn_ms": round(r["sojourn_mean_s"] * 1e3, 4),
                   "disc_sojourn_ms": round(r["sojourn_disc_mean_s"] * 1e3, 4),
                   "aqm_drops": r["aqm_drops"]}
            closed: Dict[str, object] = {"closed_loop_ns3": own}
            rec = replay(a.label or f"ns-3 arrivals fq_codel n={a.n} seed={a.seed}",
                         read_trace(Path(f.name)), window, closed)
    else:
        if not a.path:
            ap.error("file: give the arrival trace's path")
        rec = replay(a.label or f"file {a.path}", read_trace(Path(a.path)), window)
    print(json.dumps(rec, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
