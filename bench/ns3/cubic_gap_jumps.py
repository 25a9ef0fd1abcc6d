#!/usr/bin/env python3
"""cwnd jumps and retransmission timeouts in an all-flow trace (cubic_gap.md, section "The RTO path").

    python3 bench/ns3/cubic_gap_jumps.py ns3 TRACE [T0]     # cubic_gap_trace.sh's dumbbell, DBT_ACKS=1
    python3 bench/ns3/cubic_gap_jumps.py engine TRACE [T0]  # the scratch engine of cubic_gap_rto_experiment.diff

A jump is one ACK that raises cwnd by 20 segments or more. For the intervals [0, T0) and [T0, end)
(T0 default 10 s, the grid's warm-up) it prints the jumps (count, flows, state, size), the
timeouts (count; fresh ones by the state they interrupt, with the window they hit), the ACKs that
advance snd_una during a timeout's loss phase (count, mean advance) and how many jumps are
followed by a timeout of the same flow within 3 s.

Engine trace lines (stderr of the patched `run` example with SCRATCH_TRACE=1):
    <flow> <t> a <ack> <advance> <cwnd before> <cwnd after> <ssthresh> <in loss> <segments sent>
    <flow> <t> T <cwnd before> <ssthresh after> <una> <snd_max> <sent> <in loss> <backoff> <ssthresh before> <in recovery>
ns-3 trace lines: see cubic_gap_trace.sh (sizes in bytes, MSS 946).
"""
import bisect
import collections
import statistics
import sys

MSS = 946


def ns3(path):
    """(jumps, rtos, loss_acks) from the ns-3 trace."""
    st = collections.defaultdict(lambda: dict(head=1, cwnd=10 * MSS, state="CA_OPEN", sst=1 << 31, adv=0))
    jumps, rtos, loss_acks = [], [], []
    for line in open(path):
        p = line.split()
        if len(p) < 4 or not p[0].isdigit():
            continue
        f, t, k, s = int(p[0]), float(p[1]), p[2], st[int(p[0])]
        if k == "a":
            ack = int(p[3])
            s["adv"] = (ack - s["head"]) // MSS if ack > s["head"] else 0
            if ack > s["head"]:
                s["head"] = ack
                if s["state"] == "CA_LOSS":
                    loss_acks.append((t, s["adv"]))
        elif k == "c":
            v = int(p[3])
            if v // MSS - s["cwnd"] // MSS >= 20:
                jumps.append((t, f, s["state"], s["cwnd"] // MSS, v // MSS))
            if v == MSS and s["state"] == "CA_LOSS":
                # ReTxTimeout sets the state (first time) and then cwnd = 1 MSS
                rtos.append((t, f, s.get("from", "CA_LOSS"), s["cwnd"] // MSS))
                s["from"] = "CA_LOSS"
            s["cwnd"] = v
        elif k == "s":
            if p[3] == "CA_LOSS":
                s["from"] = s["state"]
            s["state"] = p[3]
        elif k == "t":
            s["sst"] = int(p[3])
    return jumps, rtos, loss_acks


def engine(path):
    jumps, rtos, loss_acks = [], [], []
    for line in open(path):
        p = line.split()
        if len(p) < 4 or not p[0].isdigit():
            continue
        f, t = int(p[0]), float(p[1])
        if p[2] == "a":
            c0, c1, in_loss = float(p[5]), float(p[6]), p[8] == "1"
            if c1 - c0 >= 20:
                jumps.append((t, f, "LOSS" if in_loss else "OPEN", c0, c1))
            if in_loss:
                loss_acks.append((t, int(p[4])))
        elif p[2] == "T":
            state = "LOSS" if p[8] == "1" else ("RECOVERY" if p[11] == "1" else "OPEN")
            rtos.append((t, f, state, float(p[3])))
    return jumps, rtos, loss_acks


def main():
    kind, path = sys.argv[1], sys.argv[2]
    t0 = float(sys.argv[3]) if len(sys.argv) > 3 else 10.0
    jumps, rtos, loss_acks = (ns3 if kind == "ns3" else engine)(path)
    by_flow = collections.defaultdict(list)
    for r in rtos:
        by_flow[r[1]].append(r[0])
    for lo, hi in ((0.0, t0), (t0, float("inf"))):
        j = [x for x in jumps if lo <= x[0] < hi]
        r = [x for x in rtos if lo <= x[0] < hi]
        a = [x[1] for x in loss_acks if lo <= x[0] < hi]
        print(f"[{lo:g}, {hi:g}) s")
        if j:
            sz = [x[4] - x[3] for x in j]
            nxt = []
            for x in j:
                ts = by_flow[x[1]]
                i = bisect.bisect_right(ts, x[0])
                nxt.append(ts[i] - x[0] if i < len(ts) else float("inf"))
            print(f"  jumps {len(j)} in {len({x[1] for x in j})} flows, by state "
                  f"{dict(collections.Counter(x[2] for x in j))}, size median {statistics.median(sz):.0f} "
                  f"max {max(sz):.0f}; followed by a timeout of the flow within 3 s: {sum(d < 3 for d in nxt)}")
        else:
            print("  jumps 0")
        print(f"  timeouts {len(r)} in {len({x[1] for x in r})} flows")
        for state in sorted({x[2] for x in r}):
            cw = [x[3] for x in r if x[2] == state]
            print(f"    interrupting {state}: {len(cw)}, cwnd at the timeout median {statistics.median(cw):.0f}")
        if a:
            print(f"  ACKs advancing snd_una in a timeout's loss phase {len(a)}, mean advance "
                  f"{sum(a) / len(a):.1f} segments, >= 20: {sum(x >= 20 for x in a)}")


if __name__ == "__main__":
    main()
