"""Queue and CPU sampler, run inside the router namespace during a testbed run.

Every ``--interval`` seconds it asks the kernel (rtnetlink ``RTM_GETQDISC`` dump, no ``tc``
process per sample) for the bottleneck FIFO's queue length, backlog, byte/packet counters and
drops; every 100 ms it reads ``/proc/stat`` (steal, busy) and the CPU ticks of the run's
processes. At the end it writes one ``.npz`` file atomically.

Usage (started by the runner): ``python -m bufsize.testbed.sampler --run-id ID --dev DEV
--until MONOTONIC --out PATH [--interval S] [--pids P,P,...]``
"""

from __future__ import annotations

import argparse
import os
import socket
import struct
import sys
import time

NETLINK_ROUTE = 0
RTM_NEWQDISC, RTM_GETQDISC = 36, 38
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
TCA_KIND, TCA_STATS2 = 1, 7
TCA_STATS_BASIC, TCA_STATS_QUEUE = 1, 3


def _attrs(buf: bytes, off: int, end: int):
    while off + 4 <= end:
        alen, atype = struct.unpack_from("HH", buf, off)
        if alen < 4:
            break
        yield atype & 0x3FFF, off + 4, off + alen
        off += (alen + 3) & ~3


def parse_qdisc_dump(buf: bytes) -> tuple[list[dict], bool]:
    """Parse one recv() worth of RTM_NEWQDISC messages.

    Returns (records, done): each record has ifindex, handle, parent, kind, bytes, packets, qlen,
    backlog, drops; ``done`` is True when NLMSG_DONE was seen.
    """
    out = []
    off = 0
    while off + 16 <= len(buf):
        mlen, mtype, _flags, _seq, _pid = struct.unpack_from("IHHII", buf, off)
        if mlen < 16:
            break
        if mtype == NLMSG_DONE:
            return out, True
        if mtype == NLMSG_ERROR:
            (err,) = struct.unpack_from("i", buf, off + 16)
            raise OSError(-err, f"netlink error {os.strerror(-err)}")
        if mtype == RTM_NEWQDISC:
            _fam, ifindex, handle, parent, _info = struct.unpack_from("BxxxiIII", buf, off + 16)
            rec = {"ifindex": ifindex, "handle": handle, "parent": parent, "kind": "", "bytes": 0,
                   "packets": 0, "qlen": 0, "backlog": 0, "drops": 0}
            for atype, a0, a1 in _attrs(buf, off + 36, off + mlen):
                if atype == TCA_KIND:
                    rec["kind"] = buf[a0:a1].split(b"\0", 1)[0].decode()
                elif atype == TCA_STATS2:
                    for stype, s0, s1 in _attrs(buf, a0, a1):
                        if stype == TCA_STATS_BASIC and s1 - s0 >= 12:
                            rec["bytes"], rec["packets"] = struct.unpack_from("QI", buf, s0)
                        elif stype == TCA_STATS_QUEUE and s1 - s0 >= 20:
                            rec["qlen"], rec["backlog"], rec["drops"] = struct.unpack_from("III", buf, s0)
            out.append(rec)
        off += (mlen + 3) & ~3
    return out, False


class QdiscReader:
    """Dump the qdiscs of this network namespace over rtnetlink."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_ROUTE)
        self.sock.bind((0, 0))
        self.seq = 0

    def dump(self) -> list[dict]:
        self.seq += 1
        tcmsg = struct.pack("BxxxiIII", socket.AF_UNSPEC, 0, 0, 0, 0)
        hdr = struct.pack("IHHII", 16 + len(tcmsg), RTM_GETQDISC, NLM_F_REQUEST | NLM_F_DUMP, self.seq, 0)
        self.sock.send(hdr + tcmsg)
        recs: list[dict] = []
        while True:
            part, done = parse_qdisc_dump(self.sock.recv(65536))
            recs.extend(part)
            if done:
                return recs


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def main(argv: list[str] | None = None) -> int:
    import numpy as np

    from bufsize.testbed.procstat import parse_pid_cpu_ticks, parse_proc_stat, parse_schedstat

    ap = argparse.ArgumentParser(prog="bufsize.testbed.sampler")
    ap.add_argument("--run-id", required=True)
    ap.add_argument("--dev", required=True)
    ap.add_argument("--until", type=float, required=True, help="CLOCK_MONOTONIC time to stop")
    ap.add_argument("--out", required=True)
    ap.add_argument("--interval", type=float, default=0.002)
    ap.add_argument("--pids", default="")
    a = ap.parse_args(argv)

    ifindex = socket.if_nametoindex(a.dev)
    fifo_handle = 0x00100000  # 10:, the pfifo under htb class 1:1
    pids = [int(p) for p in a.pids.split(",") if p] + [os.getpid()]  # the sampler itself last
    reader = QdiscReader()
    q_t, q_len, q_backlog, q_bytes, q_pkts, q_drops = [], [], [], [], [], []
    c_t, c_steal, c_total, c_busy, c_busy_n, c_pid, c_wait = [], [], [], [], [], [], []
    next_cpu = 0.0
    stop = False

    def _stop(*_):
        nonlocal stop
        stop = True

    import signal

    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    nxt = time.monotonic()
    while not stop:
        now = time.monotonic()
        if now >= a.until:
            break
        fifo = None
        for r in reader.dump():
            if r["ifindex"] == ifindex and r["handle"] == fifo_handle:
                fifo = r
        if fifo is not None:
            q_t.append(now)
            q_len.append(fifo["qlen"])
            q_backlog.append(fifo["backlog"])
            q_bytes.append(fifo["bytes"])
            q_pkts.append(fifo["packets"])
            q_drops.append(fifo["drops"])
        if now >= next_cpu:
            cpu = parse_proc_stat(_read("/proc/stat"))
            ticks, waits = [], []
            for p in pids:
                try:
                    ticks.append(parse_pid_cpu_ticks(_read(f"/proc/{p}/stat")))
                    waits.append(parse_schedstat(_read(f"/proc/{p}/schedstat"))[1])
                except (OSError, ValueError, IndexError):
                    ticks.append(-1)
                    waits.append(-1)
            c_t.append(now)
            c_steal.append(cpu.steal)
            c_total.append(cpu.total)
            c_busy.append(cpu.busy)
            c_busy_n.append(cpu.busy_normal)
            c_pid.append(ticks)
            c_wait.append(waits)
            next_cpu = now + 0.1
        nxt += a.interval
        delay = nxt - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        else:
            nxt = time.monotonic()  # fell behind: do not try to catch up in a burst
    tmp = a.out + ".tmp.npz"
    np.savez(tmp, q_t=np.array(q_t), q_len=np.array(q_len, dtype=np.int64),
             q_backlog=np.array(q_backlog, dtype=np.int64), q_bytes=np.array(q_bytes, dtype=np.int64),
             q_pkts=np.array(q_pkts, dtype=np.int64), q_drops=np.array(q_drops, dtype=np.int64),
             c_t=np.array(c_t), c_steal=np.array(c_steal, dtype=np.int64), c_total=np.array(c_total, dtype=np.int64),
             c_busy=np.array(c_busy, dtype=np.int64), c_busy_normal=np.array(c_busy_n, dtype=np.int64),
             c_wait=np.array(c_wait, dtype=np.int64).reshape(len(c_t), len(pids)),
             c_pid=np.array(c_pid, dtype=np.int64).reshape(len(c_t), len(pids)),
             pids=np.array(pids, dtype=np.int64), clk_tck=np.array(os.sysconf("SC_CLK_TCK")))
    os.replace(tmp, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
