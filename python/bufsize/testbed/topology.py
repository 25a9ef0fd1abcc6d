"""Build and tear down one run's network: senders -> router -> receivers, in namespaces.

::

    ns <id>-s                 ns <id>-r                                  ns <id>-d
    <id>sr 10.1.0.2 ---- <id>rs 10.1.0.1    <id>rd 10.2.0.1 ========= <id>dr 10.2.0.2
    + one /32 per source     |  TUN <id>t        ^ htb rate C + pfifo limit B (or bfifo) (the bottleneck)
      10.3.x.y               |  (delay element)
                             +-- ACKs arriving on <id>rd are policy-routed into the TUN, held for
                                 the RTT of their destination address, and forwarded to <id>rs.

Data packets see no added delay; the whole round-trip delay sits on the ACK path (same results
as splitting it, and half the packets through the delay element). Every veth runs without a
qdisc (``noqueue``) and with TSO/GSO/GRO off, so the bottleneck FIFO is the only place where
packets can wait.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from bufsize.testbed import netns
from bufsize.testbed.config import TestbedConfig
from bufsize.testbed.netns import CommandError, run

S_ADDR, RS_ADDR, RD_ADDR, D_ADDR = "10.1.0.2", "10.1.0.1", "10.2.0.1", "10.2.0.2"
SOURCE_NET = "10.3.0.0/16"
ACK_TABLE = 100
FIFO_HANDLE = "10:"


def source_addr(i: int) -> str:
    """The address of source ``i`` (one per flow or user; its RTT is keyed on it)."""
    return f"10.3.{i // 250}.{1 + i % 250}"


def find_delay_binary() -> list[str]:
    """How to start the delay element: the ``bufsize-delay`` program, built if needed.

    Order: ``$BUFSIZE_DELAY_BIN``; ``target/release/bufsize-delay`` of the source tree; the
    program on PATH; else ``cargo build --release -p bufsize-delay`` in the source tree; else (an
    installed wheel, no source tree) ``python -m bufsize.testbed.delay_element``, the same element
    linked into the extension.
    """
    env = os.environ.get("BUFSIZE_DELAY_BIN")
    if env:
        if not os.access(env, os.X_OK):
            raise CommandError(f"BUFSIZE_DELAY_BIN={env} is not an executable file")
        return [env]
    root = Path(__file__).resolve().parents[3]
    built = root / "target" / "release" / "bufsize-delay"
    src = root / "crates" / "delay"
    if built.exists() and src.exists():
        newest = max(p.stat().st_mtime for p in src.rglob("*") if p.is_file())
        if built.stat().st_mtime >= newest:
            return [str(built)]
    elif built.exists():
        return [str(built)]
    on_path = shutil.which("bufsize-delay")
    if on_path and not src.exists():
        return [on_path]
    if src.exists() and shutil.which("cargo"):
        p = subprocess.run(["cargo", "build", "--release", "-q", "-p", "bufsize-delay"], cwd=root,
                           capture_output=True, text=True)
        if p.returncode == 0 and built.exists():
            return [str(built)]
        raise CommandError(f"building the delay element failed: {p.stderr.strip()[-400:]}")
    if on_path:
        return [on_path]
    # an installed wheel: the same element, linked into the extension
    try:
        from bufsize._engine import delay_run  # noqa: F401
    except ImportError:
        raise CommandError("the delay element bufsize-delay is not built (cargo build --release -p bufsize-delay)")
    return [sys.executable, "-m", "bufsize.testbed.delay_element"]


def _die_with_parent() -> None:
    """In the child: get SIGTERM when the runner dies (survives the exec of ip netns exec)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class Topology:
    """One run's namespaces, links, bottleneck and processes. Use :meth:`build`, then
    :meth:`teardown` (always, in a ``finally``)."""

    def __init__(self, run_id: str, cfg: TestbedConfig, workdir: Path):
        self.id = run_id
        self.cfg = cfg
        self.work = Path(workdir)
        self.ns = {r: netns.ns_name(run_id, r) for r in netns.ROLES}
        self.dev = {"sr": f"{run_id}sr", "rs": f"{run_id}rs", "rd": f"{run_id}rd", "dr": f"{run_id}dr",
                    "tun": f"{run_id}t"}
        self.procs: dict[str, subprocess.Popen] = {}
        self.sources = [source_addr(i) for i in range(cfg.n_sources)]
        self.rtts = [f.rtt_s for f in cfg.flows] + [u.rtt_s for u in cfg.users]

    # ------------------------------------------------------------------ helpers
    def ip(self, role: str, *args: str, check: bool = True) -> str:
        return run(["ip", "-n", self.ns[role], *args], check=check)

    def tc(self, role: str, *args: str, check: bool = True) -> str:
        return run(["tc", "-n", self.ns[role], *args], check=check)

    def exec(self, role: str, *args: str, check: bool = True, timeout: float = 30.0) -> str:
        return run(["ip", "netns", "exec", self.ns[role], *args], check=check, timeout=timeout)

    def spawn(self, name: str, role: str, args: list[str], *, rt: bool = False) -> subprocess.Popen:
        out = open(self.work / f"{name}.log", "w")
        p = subprocess.Popen(["ip", "netns", "exec", self.ns[role], *args], stdout=out, stderr=subprocess.STDOUT,
                             preexec_fn=_die_with_parent, close_fds=True)
        out.close()
        self.procs[name] = p
        return p

    def python(self) -> list[str]:
        return [sys.executable, "-m"]

    # ------------------------------------------------------------------ build
    def build(self) -> None:
        self.work.mkdir(parents=True, exist_ok=True)
        for r in netns.ROLES:
            run(["ip", "netns", "add", self.ns[r]])
        d = self.dev
        self.ip("r", "link", "add", "name", d["rs"], "type", "veth", "peer", "name", d["sr"], "netns", self.ns["s"])
        self.ip("r", "link", "add", "name", d["rd"], "type", "veth", "peer", "name", d["dr"], "netns", self.ns["d"])
        common = ["net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0",
                  "net.ipv6.conf.all.disable_ipv6=1", "net.ipv6.conf.default.disable_ipv6=1",
                  "net.ipv4.tcp_no_metrics_save=1", "net.ipv4.tcp_rmem=4096 131072 33554432",
                  "net.ipv4.tcp_wmem=4096 16384 33554432"]
        for r in netns.ROLES:
            extra = ["net.ipv4.ip_forward=1"] if r == "r" else list(self.cfg.sender_sysctls) if r == "s" else []
            self.exec(r, "sysctl", "-q", "-w", *common, *extra)
        # addresses and routes
        batch_s = [f"addr add {S_ADDR}/24 dev {d['sr']}"] + [f"addr add {a}/32 dev {d['sr']}" for a in self.sources]
        run(["ip", "-n", self.ns["s"], "-batch", "-"], input="\n".join(batch_s) + "\n")
        self.ip("r", "addr", "add", f"{RS_ADDR}/24", "dev", d["rs"])
        self.ip("r", "addr", "add", f"{RD_ADDR}/24", "dev", d["rd"])
        self.ip("d", "addr", "add", f"{D_ADDR}/24", "dev", d["dr"])
        for role, dev in (("s", d["sr"]), ("r", d["rs"]), ("r", d["rd"]), ("d", d["dr"])):
            self.ip(role, "link", "set", "dev", dev, "mtu", "1500", "up")
            self.ip(role, "link", "set", "dev", "lo", "up")
        iw = ["initcwnd", str(self.cfg.initcwnd)] if self.cfg.initcwnd is not None else []
        self.ip("s", "route", "add", "default", "via", RS_ADDR, "src", S_ADDR, *iw)
        self.ip("d", "route", "add", "default", "via", RD_ADDR)
        self.ip("r", "route", "add", SOURCE_NET, "via", S_ADDR)
        # offloads: off on every veth end, so that B counts wire-sized packets
        if self.cfg.breakage != "offloads":
            for role, dev in (("s", d["sr"]), ("r", d["rs"]), ("r", d["rd"]), ("d", d["dr"])):
                self.exec(role, "ethtool", "-K", dev, "tso", "off", "gso", "off", "gro", "off")
        # no qdisc anywhere but the bottleneck
        for role, dev in (("s", d["sr"]), ("r", d["rs"]), ("d", d["dr"])):
            self.tc(role, "qdisc", "replace", "dev", dev, "root", "noqueue")
        # the bottleneck: htb at rate C (burst set explicitly), pfifo of B packets
        rate = f"{int(round(self.cfg.rate_bps))}bit"
        self.tc("r", "qdisc", "replace", "dev", d["rd"], "root", "handle", "1:", "htb", "default", "1")
        self.tc("r", "class", "add", "dev", d["rd"], "parent", "1:", "classid", "1:1", "htb", "rate", rate,
                "ceil", rate, "burst", f"{self.cfg.burst_bytes}b", "cburst", f"{self.cfg.burst_bytes}b")
        fifo = (["bfifo", "limit", str(self.cfg.buffer_bytes)] if self.cfg.buffer_bytes is not None
                else ["pfifo", "limit", str(self.cfg.buffer_packets)])
        self.tc("r", "qdisc", "add", "dev", d["rd"], "parent", "1:1", "handle", FIFO_HANDLE, *fifo)
        if self.cfg.breakage == "second-queue":
            self.tc("s", "qdisc", "replace", "dev", d["sr"], "root", "pfifo", "limit", "1000")

    def start_delay(self, max_runtime_s: float) -> None:
        """Start the delay element, wait for its TUN, and route the ACK path through it."""
        d = self.dev
        cmd = find_delay_binary() + ["--tun", d["tun"], "--stats", str(self.work / "delay.json"),
                                     "--max-runtime-s", f"{max_runtime_s:.3f}", "--rt-priority", "50"]
        for a, r in zip(self.sources, self.rtts):
            cmd += ["--entry", f"{a}={int(round(r * 1e6))}"]
        p = self.spawn("delay", "r", cmd)
        deadline = time.monotonic() + 10.0
        while True:
            if p.poll() is not None:
                raise CommandError(f"delay element exited: {(self.work / 'delay.log').read_text().strip()[-300:]}")
            if self.ip("r", "link", "show", "dev", d["tun"], check=False):
                break
            if time.monotonic() > deadline:
                raise CommandError("delay element did not create its TUN within 10 s")
            time.sleep(0.02)
        self.ip("r", "link", "set", "dev", d["tun"], "up")
        self.exec("r", "sysctl", "-q", "-w", f"net.ipv4.conf.{d['tun']}.rp_filter=0")
        self.tc("r", "qdisc", "replace", "dev", d["tun"], "root", "noqueue")
        self.ip("r", "route", "add", "default", "dev", d["tun"], "table", str(ACK_TABLE))
        self.ip("r", "rule", "add", "iif", d["rd"], "lookup", str(ACK_TABLE), "pref", "100")

    # ------------------------------------------------------------------ teardown
    def stop_processes(self) -> None:
        live = [p for p in self.procs.values() if p.poll() is None]
        for p in live:
            p.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 3.0
        for p in live:
            try:
                p.wait(timeout=max(0.05, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def teardown(self) -> None:
        """Stop the processes, delete the namespaces (and with them every link). Idempotent."""
        try:
            self.stop_processes()
        finally:
            netns.cleanup(self.id, remove_work=False)  # the runner decides about the work directory
