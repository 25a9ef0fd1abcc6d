"""Generate a large capture for the `bufsize traffic summarize` benchmark (bench/traffic.md).

    .venv/bin/python bench/traffic_gen.py /tmp/big.pcap --size 1.1GB [--source tests/data/captures/reno3_users3.pcap]

It repeats a committed testbed capture back to back: copy k is shifted by k x (its length + 1 s)
in time and has k mod 256 in the third octet of both hosts' addresses, so every copy's flows are
new flows (the earlier copies' flows have ended or time out), and the number of flows open at once
stays that of one copy however long the file gets.
"""

from __future__ import annotations

import argparse
import struct
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def main(argv=None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--size", default="1.1GB")
    ap.add_argument("--source", default=str(HERE.parent / "tests/data/captures/reno3_users3.pcap"))
    a = ap.parse_args(argv)
    from bufsize.units import parse_size

    target = parse_size(a.size)
    raw = Path(a.source).read_bytes()
    magic, _, _, _, _, _, link = struct.unpack_from("<IHHiIII", raw, 0)
    assert magic == 0xA1B2C3D4 and link == 1, "a microsecond little-endian Ethernet pcap"
    hdr, body = raw[:24], np.frombuffer(raw[24:], dtype=np.uint8)
    # walk the records once: offsets of each timestamp and of the two IPv4 address bytes to patch
    ts, addr = [], []
    off, first, last = 0, None, 0
    while off + 16 <= len(body):
        sec, usec, caplen, _ = struct.unpack_from("<IIII", body, off)
        t = sec + usec * 1e-6
        first = t if first is None else first
        last = t
        ts.append(off)
        if caplen >= 14 + 20 and body[off + 16 + 12] == 0x08 and body[off + 16 + 13] == 0x00:
            addr += [off + 16 + 14 + 12 + 2, off + 16 + 14 + 16 + 2]
        off += 16 + caplen
    ts_idx = np.asarray(ts)
    sec0 = np.array([struct.unpack_from("<I", body, o)[0] for o in ts], dtype=np.int64)
    addr_idx = np.asarray(addr)
    span = int(last - first) + 2
    copies = int(np.ceil(target / len(body)))
    out = Path(a.out)
    with open(out, "wb") as f:
        f.write(hdr)
        for k in range(copies):
            buf = body.copy()
            secs = (sec0 + k * span).astype("<u4").view(np.uint8).reshape(-1, 4)
            for j in range(4):
                buf[ts_idx + j] = secs[:, j]
            buf[addr_idx] = k % 256
            f.write(buf.tobytes())
    print(f"{out}: {out.stat().st_size / 1e9:.2f} GB, {copies} copies of {Path(a.source).name} "
          f"({len(ts)} frames, {span} s each)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
