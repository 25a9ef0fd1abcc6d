"""How many segments each ACK covers: the kernel testbed's receivers against the simulator twin.

bench/validation/ack_pattern.md explains reno-n8-b0.1's gap (the twin ~2.5–3 points above the kernel)
with this histogram. Two sources:

* ``pcap FILE...``: a capture of the receivers' ACKs (any libpcap file of TCP packets, Ethernet or raw
  IP); per connection, the advance of the ACK number between consecutive ACKs in segments of
  ``--mss`` bytes (0 = a duplicate ACK), counted after ``--skip`` seconds.
* ``log FILE...``: the per-ACK lines ``A <ns> <flow> <rcv_nxt>`` that the scratch engine of
  ack_pattern_engine_experiment.diff writes to stderr with ``SCRATCH_ACKLOG=1`` (the engine has no
  packet-trace output, so the twin's side needs that scratch build).
* ``kernel SEED``: one kernel-testbed run of reno-n8-b0.1's configuration with a capture of the
  receivers' ACKs (root, tcpdump, a quiet machine; the run refuses otherwise), written to
  /tmp/ack_pattern_SEED.pcap.
"""

from __future__ import annotations

import argparse
import collections
import struct
import subprocess
import sys
import time
from pathlib import Path

#: Histogram buckets: 0..11 segments, and 12 for "12 or more" (a hole filled after a loss).
TOP = 12


def advances(packets, skip_s: float = 12.0, mss: int = 1448) -> collections.Counter:
    """``packets``: (time s, connection key, ack number) in arrival order -> Counter of the ACK
    advance in segments (rounded; ``TOP`` and above counted as ``TOP``), after ``skip_s`` from the
    first packet."""
    last: dict = {}
    hist: collections.Counter = collections.Counter()
    t0 = None
    for t, key, ack in packets:
        t0 = t if t0 is None else t0
        if key in last and t - t0 > skip_s:
            hist[min(round(((ack - last[key]) % 2**32) / mss), TOP)] += 1
        last[key] = ack
    return hist


def pcap_packets(path: Path):
    """(time, (dst addr, dst port), ack) of every TCP packet of a classic libpcap file."""
    with open(path, "rb") as f:
        head = f.read(24)
        if len(head) < 24 or head[:4] not in (b"\xd4\xc3\xb2\xa1", b"\xa1\xb2\xc3\xd4"):
            raise SystemExit(f"ack_pattern: error: {path} is not a libpcap file")
        endian = "<" if head[:4] == b"\xd4\xc3\xb2\xa1" else ">"
        link = struct.unpack(endian + "I", head[20:24])[0]
        off = 14 if link == 1 else 0
        while True:
            rec = f.read(16)
            if len(rec) < 16:
                return
            ts, tu, incl, _ = struct.unpack(endian + "IIII", rec)
            ip = f.read(incl)[off:]
            if len(ip) < 20 or ip[9] != 6:
                continue
            tcp = ip[(ip[0] & 15) * 4:]
            yield ts + tu * 1e-6, (ip[16:20], tcp[2:4]), struct.unpack(">I", tcp[8:12])[0]


def log_packets(path: Path):
    """(time, flow, rcv_nxt) from the scratch engine's ``A <ns> <flow> <rcv_nxt>`` lines (rcv_nxt
    counts segments, so the advance is in segments already: mss 1)."""
    for line in open(path):
        if line.startswith("A "):
            _, t, f, seq = line.split()
            yield int(t) * 1e-9, f, int(seq)


def table_row(name: str, hists) -> str:
    h: collections.Counter = collections.Counter()
    for x in hists:
        h.update(x)
    tot = sum(h.values())
    cells = [h[0], h[1], h[2], h[3], sum(v for k, v in h.items() if 4 <= k < TOP), h[TOP]]
    return f"| {name} | {tot} | " + " | ".join(f"{100 * c / tot:.1f}" for c in cells) + " |"


HEADER = ("| ACKs from | ACKs | duplicate (0) % | 1 segment % | 2 % | 3 % | 4–11 % | ≥ 12 % |\n"
          "|---|---|---|---|---|---|---|---|")


def kernel_run(seed: int) -> Path:
    """One run of reno-n8-b0.1's setting with tcpdump on the receivers' interface."""
    out = Path(f"/tmp/ack_pattern_{seed}.pcap")
    out.unlink(missing_ok=True)
    tb = subprocess.Popen([sys.executable, "-m", "bufsize", "testbed", "run", "--rate", "50Mbps",
                           "--rtt", "40ms..100ms", "--buffer", "29", "--flows", "8", "--cc", "reno",
                           "--duration", "40s", "--warmup", "10s", "--attempts", "2", "--seed", str(seed)])
    dump = None
    try:
        for _ in range(120):  # the receivers' namespace appears once the run builds its network
            names = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.split()
            ns = next((n for n in names if n.endswith("-d")), None)
            if ns:
                dev = ns[:-2] + "dr"
                dump = subprocess.Popen(["ip", "netns", "exec", ns, "tcpdump", "-i", dev, "-s", "80", "-w",
                                         str(out), "tcp and src host 10.2.0.2"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                break
            time.sleep(0.5)
        rc = tb.wait()
    finally:
        if dump is not None:
            dump.terminate()
            dump.wait()
        if tb.poll() is None:
            tb.terminate()
    if rc != 0:
        raise SystemExit(f"ack_pattern: error: the testbed run failed (exit {rc})")
    return out


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("source", choices=("pcap", "log", "kernel"))
    p.add_argument("items", nargs="+")
    p.add_argument("--skip", type=float, default=12.0, help="seconds not counted (warm-up)")
    p.add_argument("--mss", type=int, default=1448)
    p.add_argument("--name", default=None)
    a = p.parse_args(argv)
    if a.source == "kernel":
        paths = [kernel_run(int(s)) for s in a.items]
        hists = [advances(pcap_packets(x), a.skip, a.mss) for x in paths]
    elif a.source == "pcap":
        hists = [advances(pcap_packets(Path(x)), a.skip, a.mss) for x in a.items]
    else:
        hists = [advances(log_packets(Path(x)), a.skip, 1) for x in a.items]
    print(HEADER)
    print(table_row(a.name or a.source, hists))
    return 0


if __name__ == "__main__":
    sys.exit(main())
