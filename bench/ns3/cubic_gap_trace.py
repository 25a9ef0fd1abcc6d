#!/usr/bin/env python3
"""Summarise an all-flow trace of cubic_gap_trace.sh's dumbbell variant (cubic_gap.md).

    python3 bench/ns3/cubic_gap_trace.py TRACE [SEGMENT_BYTES=946]

In the measurement window (t >= 10 s): fast recoveries, timeouts (entries to CA_LOSS, as dumbbell counts them, and every RTO incl. repeated ones),
retransmissions and their owners, retransmissions per recovery, time spent in slow start while
CA_OPEN, and single-step cwnd jumps of 20 segments or more (the TcpCubic slow-start jump).
"""
import collections
import statistics
import sys


def main():
    path = sys.argv[1]
    seg = int(sys.argv[2]) if len(sys.argv) > 2 else 946
    st, cw, ss = {}, collections.defaultdict(int), collections.defaultdict(lambda: 1 << 32)
    rtx, rec, loss, ss_time, rto = (collections.Counter() for _ in range(5))
    cur, lastt, per_rec, jumps = {}, {}, [], []
    for line in open(path):
        p = line.split()
        if len(p) != 4 or not p[0].isdigit():
            continue
        i, t, k, v = int(p[0]), float(p[1]), p[2], p[3]
        win = t >= 10
        if k == "c":
            n = int(v)
            if win:
                if st.get(i, "CA_OPEN") == "CA_OPEN" and cw[i] < ss[i] and i in lastt:
                    ss_time[i] += t - lastt[i]
                if n == seg and cw[i] > seg and st.get(i) == "CA_LOSS":
                    rto[i] += 1  # every RTO sets cwnd to one segment, repeated ones in CA_LOSS too
                if n // seg - cw[i] // seg >= 20:
                    jumps.append((round(t, 3), i, cw[i] // seg, n // seg, st.get(i)))
                lastt[i] = t
            cw[i] = n
        elif k == "t":
            ss[i] = int(v)
        elif k == "r" and win:
            rtx[i] += 1
            cur[i] = cur.get(i, 0) + 1
        elif k == "s":
            if win and v == "CA_RECOVERY":
                rec[i] += 1
                cur[i] = 0
            if win and v == "CA_LOSS":
                loss[i] += 1
            if win and v == "CA_OPEN" and st.get(i) == "CA_RECOVERY":
                per_rec.append(cur.get(i, 0))
            st[i] = v
    tot = sum(rtx.values())
    print(f"{path}: recoveries {sum(rec.values())}, timeouts {sum(loss.values())} "
          f"({len(loss)} flows), RTOs incl. repeated {sum(rto.values())} ({len(rto)} flows), "
          f"retransmissions {tot}")
    if per_rec:
        s = sorted(per_rec)
        print(f"  rtx per recovery: mean {statistics.mean(s):.2f} p50 {s[len(s) // 2]} "
              f"p90 {s[int(.9 * len(s))]} max {s[-1]}")
    top = rtx.most_common(3)
    print(f"  top-3 flows own {100 * sum(x for _, x in top) / max(tot, 1):.0f}% of rtx: {top}")
    print(f"  slow start in CA_OPEN: {sum(ss_time.values()):.2f} flow-seconds")
    print(f"  cwnd jumps >= 20 segments in one step: {len(jumps)} in {len({j[1] for j in jumps})} flows; "
          f"largest {sorted(jumps, key=lambda j: j[2] - j[3])[:3]}")


if __name__ == "__main__":
    main()
