"""Paper 001's Fig. 4 path in ns-2.35 and in bufsize's engine, with and without the reverse-path cross
traffic: is the engine's reverse-path effect (the target's best R(S) 13-18 % below 001's) ns-2's too?

    python bench/ns2/p001_twoway.py run [--quick] [--congested] [--engine-only]   # every (reverse, Bt, S): a csv
                                                                   # (--engine-only keeps the csv's ns-2 rows)
    python bench/ns2/p001_twoway.py report [--congested]          # the MFT table from the csv

Fig. 4's cross traffic is 20 Reno flows per direction capped at 22 packets (p001_twoway.csv);
``--congested`` runs Fig. 6's instead, the same flows without the cap (p001_twoway_congested.csv).

ns-2 runs our own script, bench/ns2/p001_twoway.tcl (its header gives the path); the engine runs
bufsize.reproduce._p001_cross.scenario("tcp_winlim", ...) with the reproduction's `ns2` stack, reverse
cross traffic on or off. One seed: both sides are deterministic here (cross flows start 50 ms apart).
"""
import csv
import json
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
TCL = os.path.join(HERE, "p001_twoway.tcl")
#: (the reproduction's cross-traffic kind, ns-2's cross window_, the CSV) for Fig. 4 and Fig. 6
SETTINGS = {False: ("tcp_winlim", 22, os.path.join(HERE, "p001_twoway.csv")),
            True: ("tcp_congested", 100000, os.path.join(HERE, "p001_twoway_congested.csv"))}
BUFFERS = (313, 625, 1250)
S_VALUES = (150, 200, 250, 300, 350, 400, 450, 500, 600, 700, 800, 1000, 1150, 1300)
FULL = {"warmup": 50.0, "measured": 200.0}     # the reproduction's --full scale
QUICK = {"warmup": 25.0, "measured": 60.0}


def ns2_run(reverse: bool, bt: int, s: int, warmup: float, measured: float, congested: bool = False) -> dict:
    args = ["ns", TCL, f"buffer={bt}", f"window={s}", f"reverse={int(reverse)}", f"warmup={warmup:g}",
            f"measured={measured:g}", f"crosswin={SETTINGS[congested][1]}"]
    out = subprocess.run(args, capture_output=True, text=True, check=True, cwd="/tmp").stdout
    r = json.loads(out.strip().splitlines()[-1])
    return {"throughput_mbps": r["throughput_mbps"], "target_retransmits": r["target_retransmits"],
            "target_timeouts": r["target_timeouts"], "utilization": r["utilization"]}


def engine_run(reverse: bool, bt: int, s: int, warmup: float, measured: float, congested: bool = False) -> dict:
    from bufsize.reproduce import _p001_cross as P
    from bufsize.simulate import simulate

    res = simulate(P.scenario(SETTINGS[congested][0], bt, socket_buffer=s, measured=measured, warmup=warmup,
                              reverse=reverse), progress=False)
    f0 = res.flows.iloc[0]
    return {"throughput_mbps": float(f0["goodput_bps"]) * P.PACKET_BYTES / (P.PACKET_BYTES - 40) / 1e6,
            "target_retransmits": int(f0["retransmits"]),
            "target_timeouts": int(f0["timeouts"]), "utilization": float(res.summary["utilization"])}


def _one(job):
    side, reverse, bt, s, scale, congested = job
    fn = ns2_run if side == "ns2" else engine_run
    return {"side": side, "reverse": int(reverse), "buffer": bt, "S": s,
            **fn(reverse, bt, s, congested=congested, **scale)}


def run(quick: bool, congested: bool, engine_only: bool = False) -> None:
    """Both sides at every (reverse, Bt, S); ``engine_only`` keeps the csv's ns-2 rows (ns-2 is deterministic
    here and the slow side) and runs the engine again, e.g. after a change of the reproduction's stack."""
    scale = QUICK if quick else FULL
    sides = ("engine",) if engine_only else ("ns2", "engine")
    jobs = [(side, rev, bt, s, scale, congested) for side in sides for rev in (True, False)
            for bt in BUFFERS for s in S_VALUES]
    with ProcessPoolExecutor(2) as ex:
        rows = list(ex.map(_one, jobs))
    if engine_only:
        with open(SETTINGS[congested][2]) as fh:
            rows = [r for r in csv.DictReader(fh) if r["side"] == "ns2"] + rows
    with open(SETTINGS[congested][2], "w", newline="") as fh:
        # the engine's rows carry the link's utilization, which the first runs' csv did not record
        w = csv.DictWriter(fh, fieldnames=list(rows[-1]), restval="")
        w.writeheader()
        w.writerows(rows)
    report(congested)


def report(congested: bool) -> None:
    rows = list(csv.DictReader(open(SETTINGS[congested][2])))
    print("| reverse cross traffic | Bt | ns-2.35: R̂ (Ŝ) | engine: R̂ (Ŝ) | ns-2 / engine at every S: largest gap |")
    print("|---|---|---|---|---|")
    for rev in ("1", "0"):
        for bt in BUFFERS:
            sel = {side: {int(r["S"]): float(r["throughput_mbps"]) for r in rows
                          if r["side"] == side and r["reverse"] == rev and int(r["buffer"]) == bt}
                   for side in ("ns2", "engine")}
            best = {k: max(v.items(), key=lambda kv: kv[1]) for k, v in sel.items()}
            gap = max(abs(sel["ns2"][s] - sel["engine"][s]) / sel["ns2"][s] for s in sel["ns2"])
            print(f"| {'yes' if rev == '1' else 'no'} | {bt} | {best['ns2'][1]:.2f} ({best['ns2'][0]}) | "
                  f"{best['engine'][1]:.2f} ({best['engine'][0]}) | {100 * gap:.0f} % |")


if __name__ == "__main__":
    if sys.argv[1:2] == ["run"]:
        run("--quick" in sys.argv, "--congested" in sys.argv, "--engine-only" in sys.argv)
    else:
        report("--congested" in sys.argv)
