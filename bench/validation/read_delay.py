#!/usr/bin/env python3
"""The receiver read-delay model (TCP detail ``read_delay_s``) on the testbed twin: ACK sizes and utilization.

    .venv/bin/python bench/validation/read_delay.py point reno-n8-b0.1 60us 1 2 3   # one point, seeds
    .venv/bin/python bench/validation/read_delay.py grid 60us                       # the 44 points, seed 1

It needs the engine built with read_delay_model.diff applied (the detail is not in main). Each run is bench/validation/run.py's twin of the point (``run_engine`` with the htb bucket) with
``read_delay_s`` set, in a child process. The ACK-size histogram (each ACK's advance over the previous
ACK of its flow, in segments, after 12 s, as ack_pattern.py counts the kernel's) needs the scratch
build of read_delay_experiment.diff, whose ``SCRATCH_ACKLOG=1`` prints every ACK; with the plain
build the histogram is empty and only utilization, loss and mean queue come back. The same diff's
``SCRATCH_CA_UNCAPPED=1`` (with ``ABC=1000`` here) lets Reno's congestion avoidance count every
segment an ACK covers, as Linux does. One JSON line per run; ``grid`` adds twin.csv's and
kernel.csv's utilization. bench/validation/ack_pattern.md has the results.
"""

from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def child(point: str, delay_s: float, seed: int) -> None:
    """run.py's twin row of the point (its scenario built there), with the read delay and seed."""
    import run as R

    twin_tcp = R.twin_tcp

    def tcp() -> dict:
        t = twin_tcp()
        t["read_delay_s"] = delay_s
        if os.environ.get("ABC"):
            t["abc_limit"] = int(os.environ["ABC"])
        return t

    R.twin_tcp, R.SEED = tcp, seed
    row = R.run_engine(next(q for q in R.grid() if q["point"] == point), burst=R.KERNEL_BURST_BYTES)
    print(json.dumps({k: float(row[k]) for k in ("utilization", "loss_rate", "mean_queue_packets")}))


def one(point: str, delay_s: float, seed: int) -> dict:
    env = dict(os.environ, READ_DELAY_CHILD="1", SCRATCH_ACKLOG="1")
    pr = subprocess.run([sys.executable, __file__, "child", point, repr(delay_s), str(seed)], env=env,
                        capture_output=True, text=True, check=True)
    summ = json.loads(pr.stdout.strip().splitlines()[-1])
    last: dict[str, int] = {}
    h: collections.Counter = collections.Counter()
    for line in pr.stderr.splitlines():
        if line.startswith("A "):
            _, t, f, nxt = line.split()
            if f in last and int(t) > 12e9:
                h[min(int(nxt) - last[f], 12)] += 1
            last[f] = int(nxt)
    tot = sum(h.values())
    shares = [round(100 * h[k] / tot, 2) for k in range(13)] if tot else []
    return {"point": point, "read_delay_s": round(delay_s, 9), "seed": seed, **summ, "acks": tot,
            "ack_share_pct_0_to_12": shares, "ge3_pct": round(sum(shares[3:12]), 2) if tot else None}


def seconds(text: str) -> float:
    from bufsize import units

    return units.parse_time(text, allow_zero=True)


def main(argv: list[str]) -> int:
    if argv[:1] == ["child"]:
        child(argv[1], float(argv[2]), int(argv[3]))
        return 0
    if len(argv) >= 3 and argv[0] == "point":
        for s in argv[3:] or ["1"]:
            print(json.dumps(one(argv[1], seconds(argv[2]), int(s))), flush=True)
        return 0
    if len(argv) == 2 and argv[0] == "grid":
        import run as R

        ker, twn = R.read_csv(HERE / "kernel.csv"), R.read_csv(HERE / "twin.csv")
        for p in R.grid():
            r = one(p["point"], seconds(argv[1]), R.SEED)
            r["twin_csv"] = float(twn[p["point"]]["utilization"]) if p["point"] in twn else None
            k = ker.get(p["point"], {})
            r["kernel"] = float(k["utilization"]) if k.get("status") == "ok" and k.get("utilization") else None
            print(json.dumps(r), flush=True)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
