"""Speed and memory of the capture reader (bench/traffic.md). Run on a capture made by
bench/traffic_gen.py:

    .venv/bin/python bench/traffic_gen.py /tmp/big.pcap --size 1.1GB
    .venv/bin/python bench/traffic_bench.py /tmp/big.pcap

Prints, per pass over the file: the reader's CPU time and wall time (MB/s of capture for each), the
flows emitted, the most flows held at once, and the process's peak resident memory. CPU time is
the single-core figure; wall time also counts waiting for a CPU on a shared machine.
"""

from __future__ import annotations

import resource
import sys
import time

from bufsize._engine import CaptureReader


def main(paths: list[str]) -> int:
    for path in paths:
        for rep in range(2):  # the first pass also warms the page cache
            r = CaptureReader(path)
            c0, w0 = time.process_time(), time.perf_counter()
            flows = 0
            while r.step(64 << 20):
                flows += len(r.take_records()["proto"])
            flows += len(r.take_records()["proto"])
            c1, w1 = time.process_time(), time.perf_counter()
            info = r.info()
            mb = r.file_size / 1e6
            print(f"{path} pass {rep + 1}: {mb:.0f} MB, {info['frames']:,} frames, {flows:,} flows, "
                  f"at most {info['max_concurrent_flows']} held; CPU {c1 - c0:.2f} s = {mb / (c1 - c0):.0f} MB/s; "
                  f"wall {w1 - w0:.2f} s = {mb / (w1 - w0):.0f} MB/s")
    print(f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
