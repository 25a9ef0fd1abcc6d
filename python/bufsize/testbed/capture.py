"""Headers-only packet capture of a testbed run (``run_once(cfg, capture=PATH)``).

``tcpdump`` runs in the router's namespace on the bottleneck's egress device (``<id>rd``): it sees
every data packet as it leaves the bottleneck FIFO (drops at the FIFO are not in the capture; the
retransmissions that repair them are) and the receivers' ACKs before the delay element holds them.
That is the view of a mirror port on the router's output. Snap length 96 bytes keeps the Ethernet,
IP and TCP headers (with options) and drops the payload.
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import time
from pathlib import Path

SNAPLEN = 96


def start(topo, path: str | Path, *, snaplen: int = SNAPLEN, timeout_s: float = 10.0) -> subprocess.Popen:
    """Start tcpdump on the bottleneck device and wait until it is capturing."""
    if shutil.which("tcpdump") is None:
        raise RuntimeError("capture asked for but tcpdump is not installed (apt-get install tcpdump)")
    path = Path(path).resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    dev = topo.dev["rd"]
    # -Z root: do not drop privileges (the file may be in a root-owned directory); -U: write each
    # packet at once, so a run cut short still leaves a readable capture
    p = topo.spawn("tcpdump", "r", ["tcpdump", "-i", dev, "-n", "-s", str(snaplen), "-U", "-Z", "root",
                                    "-w", str(path)])
    log = topo.work / "tcpdump.log"
    deadline = time.monotonic() + timeout_s
    while True:
        text = log.read_text() if log.exists() else ""
        if "listening on" in text:
            return p
        if p.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"tcpdump did not start: {text.strip()[-300:]}")
        time.sleep(0.02)


def stop(p: subprocess.Popen) -> None:
    """Stop tcpdump cleanly (SIGINT flushes and closes the file)."""
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
        try:
            p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
