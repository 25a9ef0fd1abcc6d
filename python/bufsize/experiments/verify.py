"""``bufsize recommend --verify``: simulate the recommended buffer, half and twice it, beside the models.

The scenario is a dumbbell built from the recommendation's own inputs (capacity, RTTs, flows,
packet size, window cap, pacing, input capacity). Simulating a 10 Gb/s port with 10 000 flows for
a minute is out of reach of a quick check, so when the link would carry more than
:data:`PACKET_BUDGET` packets in a run the scenario is *scaled*: capacity and number of flows are
divided by the same factor k (each flow keeps its rate, window and RTTs), and the buffer keeps its
size relative to BDP/√n -- the quantity 004's eq. (6) depends on -- so B' = B/√k. The output says
when this happened and what ran. Short flows, TCP mixes and 000's throughput goal are not part of
the simulated scenario (long-lived NewReno flows only): the output says so when the input had them.

The predictions beside each measurement are the models evaluated *at the simulated scenario*:
004 eq. (6) (a lower bound on utilization for many desynchronized flows), 001 eq. (17) (the
utilization if all flows synchronize, i.e. one flow's sawtooth), 004 §5.1.1's per-flow loss
0.76/w² with w = (BDP + B)/n, and B/C, the queueing delay of a full buffer (an upper bound on
the mean). Measurements are means over seeds with a 95 % t interval.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from bufsize.errors import BufsizeError

#: Bottleneck packets per run above which the scenario is scaled down.
PACKET_BUDGET = 1.5e7
FACTORS = (0.5, 1.0, 2.0)


@dataclass
class VerifyResult:
    scenario: dict[str, Any]  # the dumbbell (input form) at the recommended buffer
    scale: float
    notes: list[str]
    rows: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"scenario": self.scenario, "scale": self.scale, "notes": self.notes, "rows": self.rows}


def build_scenario(rec_dict: dict[str, Any], *, duration: float | None = None, warmup: float | None = None,
                   budget: float = PACKET_BUDGET) -> tuple[dict[str, Any], float, float, list[str]]:
    """(dumbbell scenario without its buffer, scale k, buffer at the simulated scale, notes)."""
    inp = rec_dict.get("input", {})
    rec = rec_dict.get("recommended", {})
    n = inp.get("flows")
    B = rec.get("buffer_packets")
    if not n:
        raise BufsizeError("needs long-lived flows (--flows) to simulate", argument="--verify")
    if B is None or not math.isfinite(B):
        raise BufsizeError("the recommendation has no finite buffer to simulate", argument="--verify")
    C = float(inp["capacity_bps"])
    pkt = float(inp.get("packet_bytes") or 1500.0)
    rtt_min, rtt_max = float(inp.get("rtt_min_s") or inp["rtt_s"]), float(inp.get("rtt_max_s") or inp["rtt_s"])
    notes = []
    if duration is None:
        duration = min(60.0, max(15.0, 150.0 * rtt_max))
    if warmup is None:
        warmup = duration / 4.0
    pps = C / (8.0 * pkt)
    k = 1.0
    if pps * duration > budget:
        k = min(float(n), math.ceil(pps * duration / budget))
    n_sim = max(1, int(round(n / k)))
    k = n / n_sim
    if k > 1:
        notes.append(f"scaled down by k = {k:g} to stay within {budget:.3g} packets per run: capacity "
                     f"{C / k / 1e6:.4g} Mb/s and {n_sim} flows (each flow keeps its rate and RTTs), buffer "
                     f"{B:.1f}/√k = {B / math.sqrt(k):.1f} pkt (the same B√n/BDP)")
    if inp.get("rtt_list_s"):
        rtt: Any = [f"{r}s" for r in inp["rtt_list_s"]]
    elif rtt_max > rtt_min:
        rtt = f"{rtt_min}s..{rtt_max}s"
    else:
        rtt = f"{inp['rtt_s']}s"
    tcp: dict[str, Any] = {"cc": "newreno-paced" if inp.get("paced") else "newreno", "packet_size": f"{pkt:g}B"}
    if inp.get("max_window_packets"):
        tcp["max_window"] = int(max(1, round(inp["max_window_packets"])))
    db: dict[str, Any] = {"capacity": f"{C / k:.12g}bps", "flows": n_sim, "rtt": rtt, "start": "0s..1s", "tcp": tcp}
    if inp.get("input_capacity_bps"):
        db["access_capacity"] = f"{inp['input_capacity_bps']:.12g}bps"
    for key, what in (("mix", "the TCP mix"), ("short_lengths", "the short flows"), ("optimize_for", "000's goal")):
        if inp.get(key):
            notes.append(f"{what} of the input is not simulated (long-lived {tcp['cc']} flows only)")
    sc = {"seed": 1, "duration": f"{duration:g}s", "warmup": f"{warmup:g}s", "dumbbell": db}
    return sc, k, B / math.sqrt(k), notes


def predictions(bdp: float, B: float, n: int, capacity_pps: float) -> dict[str, float]:
    from bufsize.models import appenzeller, jain

    out = {"util_004_eq6_lower_bound": appenzeller.utilization_lower_bound(B, bdp, n),
           "util_001_eq17_synchronized": jain.reno_single_flow_utilization(bdp, B),
           "full_buffer_delay_s": B / capacity_pps}
    w = (bdp + B) / n
    out["loss_004_per_flow"] = appenzeller.loss_rate_from_window(w) if w >= 1 else math.nan
    return out


def verify(rec, *, seeds: int = 3, duration: float | None = None, warmup: float | None = None,
           executor: Any = "local", workers: int | None = None, progress: bool | None = None) -> VerifyResult:
    """Simulate ½×, 1× and 2× the recommended buffer over ``seeds`` seeds (see the module doc)."""
    from scipy import stats

    from bufsize.experiments.sweep import sweep

    d = rec.to_dict() if hasattr(rec, "to_dict") else dict(rec)
    sc, k, B_sim, notes = build_scenario(d, duration=duration, warmup=warmup)
    buffers = [max(1, int(math.floor(f * B_sim + 0.5))) for f in FACTORS]
    if len(set(buffers)) < len(buffers):
        notes.append("buffers rounded to whole packets coincide (a very small buffer)")
    sc_base = dict(sc)
    sc_base["dumbbell"] = dict(sc["dumbbell"], buffer=buffers[1])
    table = sweep(sc_base, {"buffer": sorted(set(buffers))}, seeds=seeds, executor=executor, workers=workers,
                  progress=progress)
    bad = table[table["status"] != "ok"]
    if len(bad):
        raise BufsizeError(f"a verification run failed: {bad.iloc[0]['error']}", argument="--verify")
    res = VerifyResult(sc_base, k, notes)
    for f, b in zip(FACTORS, buffers):
        rows = table[table["buffer"] == b]
        bdp, cpps, n = float(rows["bdp_packets"].iloc[0]), float(rows["capacity_pps"].iloc[0]), int(rows["n_flows"].iloc[0])
        row: dict[str, Any] = {"factor": f, "buffer_packets": b}
        for col, name in (("utilization", "util"), ("loss_rate", "loss"), ("queue_delay_mean_s", "delay_mean_s"),
                          ("queue_delay_p99_s", "delay_p99_s")):
            v = rows[col].astype(float)
            half = (stats.t.ppf(0.975, len(v) - 1) * v.std(ddof=1) / math.sqrt(len(v))) if len(v) > 1 else math.nan
            row[name] = float(v.mean())
            row[name + "_ci"] = float(half)
        row.update(predictions(bdp, b, n, cpps))
        res.rows.append(row)
    return res


def text(res: VerifyResult, seeds: int) -> str:
    from bufsize import units

    db = res.scenario["dumbbell"]
    lines = [f"Verification on the simulator: {db['flows']} long-lived {db['tcp']['cc']} flows, "
             f"{units.format_rate(float(db['capacity'][:-3]))}, RTT {db['rtt']}, {res.scenario['duration']} "
             f"(measured after {res.scenario['warmup']}), {seeds} seeds; mean ± 95 % t interval"]
    lines += [f"  note: {n}" for n in res.notes]
    head = (f"  {'buffer':>12}  {'utilization':>17}  {'eq.(6) ≥':>8}  {'eq.(17) sync':>12}  {'loss':>17}  "
            f"{'0.76/w²':>8}  {'queue delay':>17}  {'p99':>8}  {'B/C':>8}")
    lines.append(head)
    for r in res.rows:
        def pm(v, h, scale=100.0, unit="%"):
            return f"{v * scale:.2f}±{h * scale:.2f}{unit}" if math.isfinite(h) else f"{v * scale:.2f}{unit}"
        lines.append(
            f"  {r['factor']:>4g}× {r['buffer_packets']:>5} pkt  {pm(r['util'], r['util_ci']):>17}  "
            f"{r['util_004_eq6_lower_bound'] * 100:>7.2f}%  {r['util_001_eq17_synchronized'] * 100:>11.2f}%  "
            f"{pm(r['loss'], r['loss_ci'], 100, '%'):>17}  {r['loss_004_per_flow'] * 100:>7.3g}%  "
            f"{pm(r['delay_mean_s'], r['delay_mean_s_ci'], 1e3, 'ms'):>17}  {r['delay_p99_s'] * 1e3:>6.3g}ms  "
            f"{r['full_buffer_delay_s'] * 1e3:>6.3g}ms")
    return "\n".join(lines)
