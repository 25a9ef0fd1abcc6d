"""Two Reno flows at a full drop-tail queue (paper 004 Fig. 7's setting): does a drop episode hit both?

    python bench/ns2/sync_pair.py [--duration 300]

8 Mb/s (1000 packets/s of 1000 B), RTT 142 ms on both flows, B = 142 packets, starts at 0 and 7 s,
an ACK per segment. Runs ns-2.35 (dumbbell.tcl, cwnd_ of both agents every 10 ms) and the engine's
ns2 profile with and without ``ns2_halving`` (cwnd traces every 10 ms), finds each flow's halvings
(the window falling by more than 30 % between samples, after 10 s), and prints per run: the halvings
of each flow, how many of one flow's halvings have one of the other flow's within one full-queue RTT
(0.294 s, as fig_004_07 judges), and the gaps between the paired halvings. Needs ``ns`` (apt-get
install ns2); prints one line per run and a closing table.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
WINDOW = 0.142 + 0.142 + 0.01   # RTT with a full queue, plus the 10-ms sampling


def halvings(t: np.ndarray, w: np.ndarray) -> np.ndarray:
    d = np.diff(w)
    i = np.where(d < -0.3 * w[:-1])[0]
    return t[i + 1][t[i + 1] > 10.0]


def ns2_run(duration: float) -> list[np.ndarray]:
    with tempfile.TemporaryDirectory() as tmp:
        cw = Path(tmp) / "cwnd.txt"
        subprocess.run(["ns", str(HERE / "dumbbell.tcl"), "flows=2", "capacity=8e6", "buffer=142",
                        f"duration={duration:g}", "warmup=0", "segment=960", "agent=Reno", "rtts=142,142",
                        "starts=0,7", "access=1e10", f"cwnd={cw}"], check=True, capture_output=True, text=True)
        a = np.loadtxt(cw)
    return [halvings(a[a[:, 1] == f, 0], a[a[:, 1] == f, 2]) for f in (0, 1)]


def engine_run(duration: float, ns2_halving: bool) -> list[np.ndarray]:
    """The scenario fig_004_07 runs (the reproduction's stack on the ns2 profile)."""
    import bufsize
    from bufsize.reproduce import _p004

    tcp = {"ns2_halving": ns2_halving}
    sc = _p004.single_flow_scenario(142, duration=duration, warmup=0.0, flows=2, start="0s,7s",
                                    trace_interval="10ms", tcp=tcp)
    c = bufsize.simulate(sc).cwnd_traces
    return [halvings(c[c.flow == f].t_s.values, c[c.flow == f].cwnd.values) for f in (0, 1)]


def paired(h: list[np.ndarray]) -> tuple[int, int, list[float]]:
    """(halvings, halvings with the other flow's within WINDOW, the gaps of those)."""
    n, shared, gaps = 0, 0, []
    for f in (0, 1):
        other = h[1 - f]
        for t in h[f]:
            n += 1
            g = float(np.min(np.abs(other - t))) if len(other) else float("inf")
            if g <= WINDOW:
                shared += 1
                gaps.append(g)
    return n, shared, gaps


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--duration", type=float, default=300.0)
    a = ap.parse_args(argv)
    if shutil.which("ns") is None:
        print("sync_pair.py: error: needs ns-2.35 (apt-get install ns2)", file=sys.stderr)
        return 2
    runs = {"ns-2.35 (Agent/TCP/Reno)": ns2_run(a.duration),
            "engine with ns2_halving": engine_run(a.duration, True),
            "engine without it": engine_run(a.duration, False)}
    print(f"| run ({a.duration:g} s) | halvings (flow 1 / 2) | shared within {WINDOW:.3f} s | "
          "gap between paired halvings, s (min / median / max) |")
    print("|---|---|---|---|")
    for name, h in runs.items():
        n, shared, gaps = paired(h)
        g = f"{min(gaps):.3f} / {float(np.median(gaps)):.3f} / {max(gaps):.3f}" if gaps else "-"
        print(f"| {name} | {len(h[0])} / {len(h[1])} | {shared} of {n} | {g} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
