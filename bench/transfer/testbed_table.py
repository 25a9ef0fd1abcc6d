"""`bufsize transfer` on the kernel testbed's emulated path, and iperf3 beside it (root only).

Path: 50 Mb/s htb + pfifo bottleneck of B packets (0.25 x BDP or 1 x BDP), RTT 100 ms from the
delay element; the transfer server runs in the senders' namespace on its own source address (so the
delay element gives it the 100-ms RTT), the client in the receivers' namespace. Competing traffic:
the testbed's own generator (bufsize.testbed.traffic) with long-lived Reno flows from other source
addresses of the same RTT, running for the whole block.

One topology per (buffer, competition) cell; inside it the transfers run one after another, modes
interleaved (autotune, fixed BDP, fixed 4 x BDP, sobas, then again), three accepted runs each. Every
transfer is judged like a testbed run: steal (mean <= 2 %), the whole machine busy (niced work
included) <= 70 %, and the delay element's lateness over the transfer (its statistics window is
restarted with SIGUSR1 at the start of every transfer). A rejected transfer is retried up to
--attempts times; rejections are recorded with their reasons.

    sudo .venv/bin/python bench/transfer/testbed_table.py --duration 15 --out bench/transfer/results
    sudo .venv/bin/python bench/transfer/testbed_table.py --iperf3 --duration 15 --out bench/transfer/results
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from bufsize.testbed import fidelity, netns
from bufsize.testbed.config import TestbedConfig
from bufsize.testbed.procstat import fractions, parse_proc_stat
from bufsize.testbed.stats import mean_ci
from bufsize.testbed.topology import D_ADDR, Topology, source_addr

RATE = 50e6
RTT = 0.1
BDP_BYTES = int(RATE * RTT / 8)  # 625 000 B of payload-level bandwidth-delay product
PORT = 5301


def _cpu() -> object:
    with open("/proc/stat") as f:
        return parse_proc_stat(f.read())


def _read_json(p: Path) -> dict:
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return {}


class Cell:
    """One topology: buffer B, optional competing flows, our transfer on an extra source address."""

    def __init__(self, buffer: str, competing: int, block_s: float, log):
        self.log = log
        # the competing flows are the config's flows; one more source (not started by the generator)
        # carries our transfer
        n = max(competing, 1)
        self.cfg = TestbedConfig.dumbbell(rate="50Mbps", rtt="100ms", buffer=buffer, flows=n, duration=f"{block_s}s",
                                          warmup="0s")
        self.competing = competing
        self.rid = netns.new_run_id()
        self.work = netns.WORK_ROOT / self.rid
        self.topo = Topology(self.rid, self.cfg, self.work)
        self.src = source_addr(n)
        self.topo.sources.append(self.src)
        self.topo.rtts.append(RTT)
        self.block_s = block_s

    def __enter__(self):
        t = self.topo
        self.log(f"{self.rid}: building (B = {self.cfg.buffer_packets} packets, {self.competing} competing flows)")
        t.build()
        t.start_delay(max_runtime_s=self.block_s + 120)
        if self.competing:
            spec = {"t0": time.monotonic() + 3.0, "duration_s": self.block_s, "dst": D_ADDR, "port": 5001, "seed": 1,
                    "tcpinfo_sample_s": 1.0, "users": [],
                    "flows": [{"src": t.sources[i], "cc": "reno", "start_s": 0.2 * i} for i in range(self.competing)]}
            (self.work / "spec.json").write_text(json.dumps(spec))
            py = t.python()
            t.spawn("receiver", "d", py + ["bufsize.testbed.traffic", "receiver", "--run-id", self.rid, "--spec",
                                           str(self.work / "spec.json"), "--out", str(self.work / "receiver.json")])
            deadline = time.monotonic() + 10
            while not (self.work / "receiver.json.ready").exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            t.spawn("sender", "s", py + ["bufsize.testbed.traffic", "sender", "--run-id", self.rid, "--spec",
                                         str(self.work / "spec.json"), "--out", str(self.work / "sender.json")])
            time.sleep(max(0.0, spec["t0"] - time.monotonic()) + 5.0)  # competing flows past slow start
        return self

    def __exit__(self, *exc):
        try:
            self.topo.teardown()
        finally:
            shutil.rmtree(self.work, ignore_errors=True)

    def _judge(self, cpu_a, cpu_b, delay: dict) -> list[str]:
        lim = self.cfg.limits
        fr = fractions(cpu_a, cpu_b)
        bad = []
        if fr["steal"] > lim.steal_mean:
            bad.append(f"steal {fr['steal'] * 100:.1f} % > {lim.steal_mean * 100:g} %")
        if fr["busy"] > lim.machine_busy_all:
            bad.append(f"machine busy {fr['busy'] * 100:.0f} % > {lim.machine_busy_all * 100:g} %")
        chk = fidelity.check_delay_element(delay, lim)
        if not chk.passed:
            bad.append(f"delay element: {chk.reason}")
        return bad

    def transfer(self, tool: str, mode: str, duration: float) -> dict:
        """One transfer (tool 'bufsize' or 'iperf3'); returns goodput, retransmissions, checks."""
        t = self.topo
        py = t.python()
        out = self.work / f"client-{time.monotonic_ns()}.json"
        if tool == "bufsize":
            srv = t.spawn("tserver", "s", py + ["bufsize", "transfer", "server", "--bind", self.src, "--port",
                                                str(PORT), "--one-off", "--quiet"])
            cli = py + ["bufsize", "transfer", "client", self.src, "--port", str(PORT), "-t", f"{duration}s",
                        "--socket-buffer", mode, "--json", "--out", str(out)]
        else:
            srv = t.spawn("tserver", "s", ["iperf3", "-s", "-B", self.src, "-p", str(PORT), "-1"])
            size = mode.split(":", 1)[1]
            cli = ["iperf3", "-c", self.src, "-p", str(PORT), "-R", "-w", size, "-t", f"{duration:g}", "-J"]
        time.sleep(1.0)
        self.topo.procs["delay"].send_signal(signal.SIGUSR1)  # delay statistics: this transfer only
        time.sleep(0.6)
        a = _cpu()
        p = subprocess.run(["ip", "netns", "exec", t.ns["d"], *cli], capture_output=True, text=True,
                           timeout=duration + 60)
        b = _cpu()
        time.sleep(0.6)  # the element writes its statistics every 0.5 s
        delay = _read_json(self.work / "delay.json")
        try:
            srv.wait(timeout=15)
        except subprocess.TimeoutExpired:
            srv.kill()
        rec = {"tool": tool, "mode": mode, "rc": p.returncode}
        if p.returncode != 0:
            rec["rejected"] = [f"client failed: {(p.stderr or p.stdout).strip()[-200:]}"]
            return rec
        if tool == "bufsize":
            rep = json.loads(out.read_text())
            s = rep["end"]["sum_received"]
            rec.update(goodput_bps=s["bits_per_second"], seconds=s["seconds"], retransmits=rep["end"]["retransmits"],
                       warnings=rep["warnings"])
            if "sobas" in rep["end"]:
                sb = rep["end"]["sobas"]
                rec["sobas"] = {k: sb[k] for k in ("final_limit", "phase", "capacity_estimate_Bps", "initial_limit",
                                                    "decisions", "probes")}
        else:
            rep = json.loads(p.stdout)
            e = rep["end"]
            rec.update(goodput_bps=e["sum_received"]["bits_per_second"], seconds=e["sum_received"]["seconds"],
                       retransmits=e["sum_sent"].get("retransmits"))
        rec["rejected"] = self._judge(a, b, delay)
        rec["delay_lateness_max_ms"] = delay.get("lateness_max_us", math.nan) / 1e3
        return rec


def run_cell(buffer: str, competing: int, modes: list[tuple[str, str]], repeats: int, attempts: int,
             duration: float, log) -> list[dict]:
    per = duration + 8.0  # server start, settling, results fetch
    block = per * len(modes) * repeats * attempts + 30  # the competing flows outlast every attempt
    results: list[dict] = []
    with Cell(buffer, competing, block, log) as cell:
        for r in range(repeats):
            for tool, mode in modes:
                for k in range(attempts):
                    rec = cell.transfer(tool, mode, duration)
                    rec.update(buffer=buffer, competing=competing, repeat=r, attempt=k)
                    results.append(rec)
                    ok = not rec["rejected"]
                    gp = rec.get("goodput_bps", math.nan) / 1e6
                    log(f"  {buffer:>7} comp={competing} {tool:7} {mode:14} run {r} try {k}: {gp:6.2f} Mb/s "
                        f"retr {rec.get('retransmits')} {'ok' if ok else 'REJECTED: ' + '; '.join(rec['rejected'])}")
                    if ok:
                        break
    return results


def table(results: list[dict]) -> str:
    keys = []
    for r in results:
        k = (r["buffer"], r["competing"], r["tool"], r["mode"])
        if k not in keys:
            keys.append(k)
    lines = ["| buffer | competing flows | tool | --socket-buffer | goodput Mb/s (95 % CI) | retransmissions (95 % CI) | runs ok / tried |",
             "|---|---|---|---|---|---|---|"]
    for k in keys:
        rs = [r for r in results if (r["buffer"], r["competing"], r["tool"], r["mode"]) == k]
        ok = [r for r in rs if not r["rejected"]]
        if ok:
            g = mean_ci([r["goodput_bps"] / 1e6 for r in ok])
            x = mean_ci([float(r["retransmits"] or 0) for r in ok])
            gs = f"{g[0]:.2f} [{g[1]:.2f}, {g[2]:.2f}]" if len(ok) > 1 else f"{g[0]:.2f}"
            xs = f"{x[0]:.0f} [{x[1]:.0f}, {x[2]:.0f}]" if len(ok) > 1 else f"{x[0]:.0f}"
        else:
            gs = xs = "—"
        lines.append(f"| {k[0]} | {k[1]} | {k[2]} | {k[3]} | {gs} | {xs} | {len(ok)} / {len(rs)} |")
    return "\n".join(lines)


def table_all(results: list[dict]) -> str:
    """Every run, rejected ones included (their numbers are NOT results: the machine was busy)."""
    lines = ["| buffer | competing | tool | --socket-buffer | run | try | goodput Mb/s | retransmissions | verdict |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        gp = f"{r['goodput_bps'] / 1e6:.2f}" if "goodput_bps" in r else "—"
        v = "accepted" if not r["rejected"] else "rejected: " + "; ".join(r["rejected"])
        lines.append(f"| {r['buffer']} | {r['competing']} | {r['tool']} | {r['mode']} | {r['repeat']} | {r['attempt']} "
                     f"| {gp} | {r.get('retransmits')} | {v} |")
    return "\n".join(lines)


def render(paths: list[str]) -> None:
    for p in paths:
        doc = json.loads(Path(p).read_text())
        print(f"### {p}\n")
        print(table(doc["results"]))
        print()
        print(table_all(doc["results"]))
        print()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--duration", type=float, default=15.0)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--attempts", type=int, default=2)
    ap.add_argument("--competing", type=int, default=2, help="competing Reno flows in the 'with' cells")
    ap.add_argument("--buffers", default="0.25bdp,1bdp")
    ap.add_argument("--iperf3", action="store_true", help="the iperf3 comparison instead of the table")
    ap.add_argument("--out", default="bench/transfer/results")
    ap.add_argument("--tag", default="", help="suffix of the results file name")
    ap.add_argument("--render", nargs="*", help="print the tables of saved results (JSON files) and exit")
    a = ap.parse_args()
    if a.render:
        render(a.render)
        return 0
    if os.geteuid() != 0:
        print("needs root (network namespaces)", file=sys.stderr)
        return 2
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    log = lambda s: print(s, flush=True)  # noqa: E731
    results: list[dict] = []
    t0 = time.time()
    if a.iperf3:
        if not shutil.which("iperf3"):
            print("iperf3 not installed (apt-get install iperf3)", file=sys.stderr)
            return 2
        for size in (f"{BDP_BYTES // 2}", f"{BDP_BYTES}"):
            modes = [("iperf3", f"fixed:{size}"), ("bufsize", f"fixed:{size}")]
            results += run_cell("1bdp", 0, modes, a.repeats, a.attempts, a.duration, log)
        name = "iperf3" + a.tag
    else:
        modes = [("bufsize", "autotune"), ("bufsize", f"fixed:{BDP_BYTES}"), ("bufsize", f"fixed:{4 * BDP_BYTES}"),
                 ("bufsize", "sobas")]
        for buf in a.buffers.split(","):
            for comp in sorted({0, a.competing}):
                results += run_cell(buf, comp, modes, a.repeats, a.attempts, a.duration, log)
        name = "table" + a.tag
    doc = {"started": t0, "duration_s": a.duration, "rate_bps": RATE, "rtt_s": RTT, "bdp_bytes": BDP_BYTES,
           "results": results}
    tmp = out / f".{name}.json.tmp"
    tmp.write_text(json.dumps(doc, indent=1))
    os.replace(tmp, out / f"{name}.json")
    print(table(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
