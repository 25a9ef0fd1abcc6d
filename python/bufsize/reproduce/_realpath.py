"""Real transfers of ``bufsize transfer`` across an emulated path of the kernel testbed (paper 001's
real-network figures, 001-Fig1 and 001-Fig10).

The path is the testbed's dumbbell (:class:`bufsize.testbed.topology.Topology`): an htb + pfifo
drop-tail bottleneck of rate C and B packets on the router's egress, the delay element on the ACK
path giving the round-trip time, offloads off, no other queue. The transfer server runs in the
senders' namespace on the one source address that the delay element knows (so its packets see the
configured RTT), the client in the receivers' namespace: data flows server -> client through the
bottleneck, as in ``bench/transfer/testbed_table.py``, whose procedure and fidelity judgement this
module follows for single transfers (no competing traffic).

Every transfer is judged like a testbed run: steal (mean over the transfer), the whole machine's
busy fraction (niced work included) and the delay element's lateness over the transfer (its
statistics window restarts with SIGUSR1 at the transfer's start). A transfer that fails one of them
is repeated up to ``attempts`` times; the last attempt's numbers are kept, with the reasons, so a
figure made on a loaded machine says so instead of passing off disturbed numbers as the path's.

Root, network namespaces, TUN and the delay element are needed; :func:`unavailable` says in one
line why the testbed cannot run here (the figures then record a skip, they do not crash).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from bufsize.reproduce._setup import Setting

def _testbed_errors() -> tuple[type[BaseException], ...]:
    try:
        from bufsize.testbed.netns import CommandError

        return (CommandError, RuntimeError, OSError, subprocess.SubprocessError)
    except ImportError:
        return (RuntimeError, OSError, subprocess.SubprocessError)


WIRE_PACKET_BYTES = 1514  # a full-size frame as htb counts it (1500 B IP + 14 B Ethernet)
PORT = 5301


#: What a failing testbed raises (a figure turns these into "not measured", never a traceback).
TESTBED_ERRORS = _testbed_errors()


def unavailable() -> str | None:
    """None when the kernel testbed can run here, else one line saying why not."""
    if os.name != "posix" or os.geteuid() != 0:
        return "needs root for the kernel testbed (network namespaces, TUN, tc): not running as root"
    try:
        from bufsize.testbed.check import check

        rep = check()
    except Exception as exc:  # a broken environment is a reason, not a crash
        return f"kernel testbed check failed: {exc}"
    if not rep.ok:
        return "kernel testbed not usable here: " + "; ".join(rep.reasons)
    return None


@dataclass(frozen=True)
class PathSpec:
    """The emulated path: bottleneck rate, round-trip time and drop-tail buffer (bytes of wire)."""

    rate_bps: float
    rtt_s: float
    buffer_bytes: float
    cc: str = "cubic"   # the sender's congestion control (the namespace default is set to it)

    @property
    def buffer_packets(self) -> int:
        return max(1, int(round(self.buffer_bytes / WIRE_PACKET_BYTES)))

    @property
    def bdp_bytes(self) -> float:
        return self.rate_bps * self.rtt_s / 8

    def to_dict(self) -> dict[str, Any]:
        return {"rate_bps": self.rate_bps, "rtt_s": self.rtt_s, "buffer_bytes": self.buffer_bytes,
                "buffer_packets": self.buffer_packets, "cc": self.cc, "wire_packet_bytes": WIRE_PACKET_BYTES,
                "bdp_bytes": self.bdp_bytes}


@dataclass
class TransferRun:
    """One ``bufsize transfer`` across the path: its report and the testbed's verdict."""

    label: str
    mode: str                      # the --buffer argument
    nbytes: int
    report: dict = field(default_factory=dict)
    bottleneck_drops: int | None = None   # pfifo drops during the transfer (tc -s)
    steal: float = math.nan
    busy: float = math.nan
    lateness_p99_ms: float = math.nan
    lateness_max_ms: float = math.nan
    rejected: list[str] = field(default_factory=list)
    attempt: int = 0
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error and not self.rejected

    @property
    def goodput_bps(self) -> float:
        try:
            return float(self.report["end"]["sum_received"]["bits_per_second"])
        except (KeyError, TypeError, ValueError):
            return math.nan

    @property
    def seconds(self) -> float:
        try:
            return float(self.report["end"]["sum_received"]["seconds"])
        except (KeyError, TypeError, ValueError):
            return math.nan

    @property
    def received_bytes(self) -> int:
        try:
            return int(self.report["end"]["sum_received"]["bytes"])
        except (KeyError, TypeError, ValueError):
            return 0

    @property
    def retransmits(self) -> float:
        r = (self.report.get("end") or {}).get("retransmits")
        return math.nan if r is None else float(r)

    @property
    def sobas(self) -> dict:
        return (self.report.get("end") or {}).get("sobas") or {}

    def summary(self) -> dict[str, Any]:
        """One flat record (for a table or inputs.json)."""
        sb = self.sobas
        dec = sb.get("decisions") or []
        return {"label": self.label, "mode": self.mode, "bytes_requested": self.nbytes,
                "bytes_received": self.received_bytes, "seconds": self.seconds,
                "goodput_mbps": self.goodput_bps / 1e6, "retransmits": self.retransmits,
                "bottleneck_drops": self.bottleneck_drops, "steal": self.steal, "machine_busy": self.busy,
                "delay_lateness_p99_ms": self.lateness_p99_ms, "delay_lateness_max_ms": self.lateness_max_ms,
                "attempt": self.attempt, "accepted": self.ok,
                "verdict": "accepted" if self.ok else (self.error or "; ".join(self.rejected)),
                "sobas_phase": sb.get("phase"), "sobas_final_limit": sb.get("final_limit"),
                "sobas_initial_limit": sb.get("initial_limit"),
                "sobas_first_decision_s": dec[0]["t"] if dec else None,
                "sobas_first_decision_limit": dec[0]["limit"] if dec else None,
                "sobas_first_decision_congested": dec[0]["congested"] if dec else None}


def intervals_frame(run: TransferRun):
    """Per-interval series of one transfer: time (interval end, s), goodput (Mb/s), the sender's
    retransmissions in the interval, its RTT and cwnd, and SOBAS's limit where it ran."""
    import pandas as pd

    rows = []
    for iv in run.report.get("intervals") or []:
        rows.append({"label": run.label, "mode": run.mode, "t_s": float(iv.get("end", math.nan)),
                     "interval_s": float(iv.get("seconds", math.nan)),
                     "goodput_mbps": float(iv.get("bits_per_second", math.nan)) / 1e6,
                     "retransmits": iv.get("retransmits"), "rtt_ms": iv.get("rtt_ms"),
                     "snd_cwnd": iv.get("snd_cwnd"), "window_clamp": iv.get("window_clamp"),
                     "sobas_limit": iv.get("sobas_limit"), "sobas_phase": iv.get("sobas_phase")})
    cols = ["label", "mode", "t_s", "interval_s", "goodput_mbps", "retransmits", "rtt_ms", "snd_cwnd",
            "window_clamp", "sobas_limit", "sobas_phase"]
    return pd.DataFrame(rows, columns=cols)


def full_intervals_goodput(df, min_fraction: float = 0.9):
    """Goodput of the intervals that are whole (the last, partial one is dropped)."""
    if df.empty:
        return df["goodput_mbps"]
    full = df["interval_s"] >= min_fraction * df["interval_s"].median()
    return df.loc[full, "goodput_mbps"]


def judge(fr: dict[str, float], delay: dict, limits) -> list[str]:
    """The testbed's fidelity verdict for one transfer: empty when accepted, else the reasons.

    ``fr``: CPU fractions over the transfer (:func:`bufsize.testbed.procstat.fractions`);
    ``delay``: the delay element's statistics over the transfer; ``limits``: the testbed's Limits.
    """
    from bufsize.testbed import fidelity

    bad = []
    if fr.get("steal", 0.0) > limits.steal_mean:
        bad.append(f"steal {fr['steal'] * 100:.1f} % > {limits.steal_mean * 100:g} %")
    if fr.get("busy", 0.0) > limits.machine_busy_all:
        bad.append(f"machine busy {fr['busy'] * 100:.0f} % > {limits.machine_busy_all * 100:g} %")
    chk = fidelity.check_delay_element(delay, limits)
    if not chk.passed:
        bad.append(f"delay element: {chk.reason}")
    return bad


def _cpu():
    from bufsize.testbed.procstat import parse_proc_stat

    with open("/proc/stat") as f:
        return parse_proc_stat(f.read())


def _read_json(p: Path) -> dict:
    try:
        return json.loads(p.read_text())
    except (OSError, ValueError):
        return {}


class RealPath:
    """The emulated path, built on entry and torn down on exit (also on errors and Ctrl-C)."""

    def __init__(self, spec: PathSpec, *, max_runtime_s: float, log: Callable[[str], None] = lambda s: None):
        from bufsize.testbed import netns
        from bufsize.testbed.config import TestbedConfig
        from bufsize.testbed.topology import Topology, source_addr

        self.spec = spec
        self.log = log
        self.cfg = TestbedConfig.dumbbell(rate=f"{int(round(spec.rate_bps))}bps", rtt=f"{spec.rtt_s * 1e3:g}ms",
                                          buffer=str(spec.buffer_packets), flows=1, duration="10s", warmup="0s")
        self.rid = netns.new_run_id()
        self.work = netns.WORK_ROOT / self.rid
        self.topo = Topology(self.rid, self.cfg, self.work)
        self.src = source_addr(0)
        self.max_runtime_s = max_runtime_s
        self.setup_checks: list = []
        self._hp = None

    def __enter__(self) -> "RealPath":
        from bufsize.testbed import fidelity, vcpu
        from bufsize.testbed.runner import _offload_features, _ping_min_rtts, _qdisc_inventory

        try:
            self._hp = vcpu.enable(self.cfg.halt_poll_ns, self.work.parent)
            self.log(f"{self.rid}: building the path ({self.spec.rate_bps / 1e6:g} Mb/s, RTT "
                     f"{self.spec.rtt_s * 1e3:g} ms, pfifo {self.cfg.buffer_packets} packets)")
            self.topo.build()
            # the transfer server's sockets take the namespace's default congestion control
            cur = self.topo.exec("s", "sysctl", "-n", "net.ipv4.tcp_congestion_control").strip()
            if cur != self.spec.cc:
                self.topo.exec("s", "sysctl", "-q", "-w", f"net.ipv4.tcp_congestion_control={self.spec.cc}")
            self.topo.start_delay(max_runtime_s=self.max_runtime_s)
            bott = self.topo.dev["rd"]
            rtts = _ping_min_rtts(self.topo)
            self.setup_checks = [fidelity.check_queue_inventory(_qdisc_inventory(self.topo), bott),
                                 fidelity.check_offloads(_offload_features(self.topo)),
                                 fidelity.check_base_rtts(rtts, {self.src: self.spec.rtt_s}, self.cfg.limits)]
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def __exit__(self, *exc) -> None:
        from bufsize.testbed import vcpu

        try:
            self.topo.teardown()
        finally:
            if self._hp is not None:
                vcpu.restore(self._hp)
            shutil.rmtree(self.work, ignore_errors=True)

    @property
    def setup_ok(self) -> bool:
        return all(c.passed for c in self.setup_checks)

    def setup_reasons(self) -> list[str]:
        return [f"{c.name}: {c.reason}" for c in self.setup_checks if not c.passed]

    def _bottleneck_drops(self) -> int | None:
        from bufsize.testbed.tcjson import find_bottleneck, parse_qdiscs

        try:
            q = find_bottleneck(parse_qdiscs(self.topo.tc("r", "-s", "-j", "qdisc", "show")), self.topo.dev["rd"])
        except Exception:
            return None
        return None if q is None else int(q.drops)

    def transfer(self, label: str, mode: str, nbytes: int, *, interval_s: float = 1.0,
                 timeout_s: float = 600.0) -> TransferRun:
        """One ``bufsize transfer client --bytes nbytes --socket-buffer mode`` across the path."""
        import sys

        t = self.topo
        rec = TransferRun(label=label, mode=mode, nbytes=int(nbytes))
        out = self.work / f"client-{time.monotonic_ns()}.json"
        py = [sys.executable, "-m"]
        srv = t.spawn(f"tserver-{label}", "s", py + ["bufsize", "transfer", "server", "--bind", self.src, "--port",
                                                    str(PORT), "--one-off", "--quiet"])
        cli = py + ["bufsize", "transfer", "client", self.src, "--port", str(PORT), "--bytes", f"{int(nbytes)}B",
                    "--socket-buffer", mode, "--interval", f"{interval_s:g}s", "--json", "--out", str(out)]
        # wait for the server to listen (Python start-up), at most 10 s
        deadline = time.monotonic() + 10.0
        while time.monotonic() < deadline:
            ss = t.exec("s", "ss", "-Htln", f"sport = :{PORT}", check=False)
            if ss.strip():
                break
            if srv.poll() is not None:
                rec.error = "transfer server exited: " + (self.work / f"tserver-{label}.log").read_text()[-200:]
                return rec
            time.sleep(0.05)
        t.procs["delay"].send_signal(signal.SIGUSR1)  # delay statistics: this transfer only
        time.sleep(0.6)
        drops0 = self._bottleneck_drops()
        a = _cpu()
        try:
            p = subprocess.run(["ip", "netns", "exec", t.ns["d"], *cli], capture_output=True, text=True,
                               timeout=timeout_s)
        except subprocess.TimeoutExpired:
            srv.kill()
            rec.error = f"transfer did not finish within {timeout_s:g} s"
            return rec
        b = _cpu()
        drops1 = self._bottleneck_drops()
        time.sleep(0.6)  # the element writes its statistics every 0.5 s
        delay = _read_json(self.work / "delay.json")
        try:
            srv.wait(timeout=15 if p.returncode == 0 else 0.5)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()
        if p.returncode != 0:
            rec.error = f"client failed (exit {p.returncode}): {(p.stderr or p.stdout).strip()[-200:]}"
            return rec
        from bufsize.testbed.procstat import fractions

        rec.report = _read_json(out)
        if drops0 is not None and drops1 is not None:
            rec.bottleneck_drops = drops1 - drops0
        fr = fractions(a, b)
        rec.steal, rec.busy = fr["steal"], fr["busy"]
        rec.lateness_p99_ms = delay.get("lateness_p99_us", math.nan) / 1e3
        rec.lateness_max_ms = delay.get("lateness_max_us", math.nan) / 1e3
        rec.rejected = judge(fr, delay, self.cfg.limits)
        if rec.received_bytes < nbytes:
            rec.rejected.append(f"received {rec.received_bytes} of {nbytes} B ({rec.report['end'].get('reason')})")
        return rec


def run_transfers(spec: PathSpec, plan: list[tuple[str, str, int]], *, attempts: int = 1,
                  log: Callable[[str], None] = lambda s: None, expected_rate_bps: float | None = None
                  ) -> tuple[list[TransferRun], list[str]]:
    """Run ``plan`` (label, --buffer mode, bytes) one after another on one path.

    A transfer that the fidelity checks reject is repeated up to ``attempts`` times in all; the
    last attempt is kept. Returns the runs and the path's setup problems (empty when its queue
    inventory, offloads and base RTT passed).
    """
    rate = expected_rate_bps or spec.rate_bps * 0.5
    budget = sum(8 * n / rate + 30 for _, _, n in plan) * attempts + 60
    runs: list[TransferRun] = []
    with RealPath(spec, max_runtime_s=budget, log=log) as path:
        setup = path.setup_reasons()
        if setup:
            log("path refused: " + "; ".join(setup))
            return runs, setup
        for label, mode, nbytes in plan:
            rec = None
            for k in range(attempts):
                rec = path.transfer(label, mode, nbytes, timeout_s=8 * nbytes / (spec.rate_bps * 0.05) + 60)
                rec.attempt = k
                log(f"  {label} ({mode}, {nbytes / 1e6:g} MB) try {k}: {rec.goodput_bps / 1e6:.2f} Mb/s, "
                    f"retransmits {rec.retransmits:g}, drops {rec.bottleneck_drops}: "
                    f"{'accepted' if rec.ok else (rec.error or '; '.join(rec.rejected))}")
                if rec.ok or rec.error:
                    break
            runs.append(rec)
    return runs, []


# ---------------------------------------------------------------------------- figure helpers
#: The path of paper 001's real-network figures: 100 Mb/s layer-2 capacity, RTT ≈ 35 ms
#: (BDP1 = 436 KB), drop-tail tight-link buffer of 0.5 x BDP (218 KB, the [C] value of FIGURES.md;
#: inside the 34-514 KB window in which 470 KB never overflows and 950 KB does).
PAPER001_PATH = PathSpec(rate_bps=100e6, rtt_s=0.035, buffer_bytes=0.5 * 100e6 * 0.035 / 8, cc="reno")

#: The receive window Linux grants per byte of SO_RCVBUF asked for: it doubles the request and
#: advertises the part of it that its skb accounting (payload / truesize, ``scaling_ratio``) lets it
#: promise. Measured on the testbed's veths (kernel 6.18, per-interval window_clamp of the transfer
#: report): SO_RCVBUF 470000 -> 594843, 950000 -> 1202343, 316056 -> 400008: 1.2656 x each. Paper 001's S is the window the receiver allows (W <= S), so
#: the figures ask for S / this ratio and record the window the kernel granted.
WINDOW_PER_RCVBUF = 1.2656



def setup_path(theirs: str, capacity_words: str, capacity_where: str, rtt_words: str, buffer_words: str
               ) -> tuple[Setting, ...]:
    """The settings of PAPER001_PATH and its transfers, shared by 001-Fig1 and 001-Fig10: ``theirs`` names 001's
    path, ``capacity_words`` (at ``capacity_where``) is 001's sentence giving its capacity, ``rtt_words`` and
    ``buffer_words`` what FIGURES.md (and 001) say of the RTT and the buffer."""
    spec = PAPER001_PATH
    return (
        Setting("path", "an emulated path on the kernel testbed: network namespaces, sender → router → receiver over "
                "veths, offloads off, the bottleneck the only queue", "ours",
                f"001's transfers ran over {theirs}, whose links and traffic it does not give; an emulated path makes "
                "the transfers repeatable and checkable"),
        Setting("bottleneck capacity", f"{spec.rate_bps / 1e6:g} Mb/s: htb (15-kB bucket) on the router's egress, "
                f"counting {WIRE_PACKET_BYTES}-B Ethernet frames", "paper", capacity_words, capacity_where),
        Setting("round-trip time", f"{spec.rtt_s * 1e3:g} ms, all of it from the delay element on the ACK path",
                "figures", rtt_words),
        Setting("bottleneck buffer", f"{spec.buffer_packets} packets of {WIRE_PACKET_BYTES} B (≈ "
                f"{spec.buffer_packets * WIRE_PACKET_BYTES / 1e3:.0f} KB, 0.5 × the 35-ms BDP), pfifo drop-tail",
                "figures", buffer_words),
        Setting("cross traffic", "none", "ours",
                "001's Internet paths carried traffic it does not describe; FIGURES.md allows 'Optional light cross "
                "traffic'; without it the transfers are repeatable"),
        Setting("sender TCP", f"Linux {spec.cc} (the kernel's SACK, RACK-TLP and PRR; no pacing)", "ours",
                "001 does not give its hosts' TCP; the testbed's namespaces allow reno and bbr, and Reno is the "
                "loss-based TCP 001 reasons about"),
        Setting("transfer tool", "bufsize transfer: the server sends, the client receives, memory to memory, one "
                "transfer after another on the same path, a --json report every 1 s", "ours",
                "001 does not name Fig. 1's tool and ran Fig. 10 with its own SOBAS application (§VII-C); FIGURES.md "
                "assumes 1-s goodput samples ('sampling interval unspecified, 1 s assumed')"),
        Setting("how S is applied", f"fixed socket buffers: SO_SNDBUF = SO_RCVBUF = S / {WINDOW_PER_RCVBUF:g} on "
                f"both ends, as Linux advertises {WINDOW_PER_RCVBUF:g} × SO_RCVBUF; the granted window is recorded",
                "ours", "001's S is the smaller socket buffer, the receive one (W ≤ S); the request is scaled so that "
                "the window Linux allows is S (measured on the testbed's veths)"),
        Setting("acceptance", "each transfer judged by the testbed's fidelity checks (steal ≤ 2 %, machine busy "
                "≤ 70 %, the delay element's lateness); a rejected one is tried again once (quick: not again)",
                "ours", "a transfer on a disturbed machine would pass off the machine's noise as the path's"),
    )


def rcvbuf_for_window(window_bytes: float) -> int:
    """The SO_RCVBUF request that makes Linux allow a receive window of about ``window_bytes``."""
    return int(round(window_bytes / WINDOW_PER_RCVBUF))


def granted_window(run: "TransferRun") -> int | None:
    """The receive window clamp the kernel applied during the transfer (bytes): the median of the
    per-interval values (the value read at connect can be lower: Linux updates its payload/truesize
    ratio once data arrives), else the one read at connect."""
    ws = sorted(int(iv["window_clamp"]) for iv in run.report.get("intervals") or [] if iv.get("window_clamp"))
    if ws:
        return ws[len(ws) // 2]
    w = ((run.report.get("start") or {}).get("sock") or {}).get("window_clamp")
    return None if w is None else int(w)


def window_notes(runs: list["TransferRun"], windows: list[int | None]) -> list[str]:
    """A note for each fixed-buffer transfer whose granted window is more than 5 % off the one meant."""
    out = []
    for r, w in zip(runs, windows):
        g = granted_window(r)
        if w and g and abs(g / w - 1) > 0.05:
            out.append(f"{r.label}: the kernel granted a window of {g} B for {r.mode} (meant {w} B, "
                       f"{(g / w - 1) * 100:+.0f} %): WINDOW_PER_RCVBUF = {WINDOW_PER_RCVBUF:g} does not hold on "
                       "this kernel; the figure's S is then the granted window.")
    return out


#: Goodput ceiling of TCP payload on the emulated link: htb counts 1514-byte frames carrying 1448
#: bytes of payload (timestamps on).
PAYLOAD_SHARE = 1448 / 1514


def loss_episodes(df) -> int:
    """Intervals after the first one in which the sender retransmitted (slow start's overshoot in
    the first interval is not counted: the paper's bursty losses are those of the steady state)."""
    r = df["retransmits"].iloc[1:].fillna(0).astype(float)
    return int((r > 0).sum())


def largest_cwnd_cut(df) -> float:
    """The largest relative fall of the sender's cwnd between two consecutive samples (0..1)."""
    w = df["snd_cwnd"].dropna().astype(float).to_numpy()
    if len(w) < 2:
        return math.nan
    prev, nxt = w[:-1], w[1:]
    with_prev = prev > 0
    if not with_prev.any():
        return math.nan
    cut = (prev[with_prev] - nxt[with_prev]) / prev[with_prev]
    return float(max(0.0, cut.max()))


def goodput_figure(panels: list[tuple[str, Any]], title: str, *, capacity_mbps: float):
    """One panel per transfer: goodput per 1-s interval against time, as the paper's figures."""
    from bufsize.reproduce._plot import figure, finish

    fig, axes = figure(len(panels), 1, width=6.4, height=2.2 * len(panels) + 0.6, sharex=True)
    axes = axes if isinstance(axes, list) else [axes]
    for ax, (name, df) in zip(axes, panels):
        if df is not None and not df.empty:
            ax.plot(df["t_s"], df["goodput_mbps"], lw=1.2, color="tab:blue")
            lossy = df[df["retransmits"].fillna(0).astype(float) > 0]
            if not lossy.empty:
                ax.plot(lossy["t_s"], lossy["goodput_mbps"], "x", color="tab:red", ms=5, label="retransmissions")
                ax.legend(loc="lower right", fontsize=7)
        else:
            ax.text(0.5, 0.5, "not measured", ha="center", va="center", transform=ax.transAxes)
        ax.axhline(capacity_mbps * PAYLOAD_SHARE, color="0.6", ls=":", lw=0.8)
        ax.set_ylim(0, capacity_mbps * 1.05)
        ax.set_ylabel("goodput (Mb/s)")
        ax.set_title(name, fontsize=9)
    axes[-1].set_xlabel("time (s)")
    return finish(fig, title)


def panel_title(label: str, run: "TransferRun", extra: str = "") -> str:
    """A panel's title: goodput, losses and, for a transfer the fidelity checks rejected, why."""
    lost = max([v for v in (run.retransmits, run.bottleneck_drops)
                if v is not None and not (isinstance(v, float) and math.isnan(v))], default=math.nan)
    t = f"{label}: {run.goodput_bps / 1e6:.1f} Mb/s, {lost:g} lost{extra}"
    if not run.ok:
        why = run.error or run.rejected[0]
        more = f" (+{len(run.rejected) - 1} more)" if not run.error and len(run.rejected) > 1 else ""
        t += f"\nREJECTED by the testbed's checks: {why[:45]}{more}"
    return t


def not_measured(claims: list[str], reason: str):
    """The checks of a real-network figure that could not run here: failed, with the reason."""
    from bufsize.reproduce._core import Check

    return [Check(c, None, None, f"not measured: {reason}", False,
                  "health" if "fidelity checks" in c else None) for c in claims]
