"""Run testbed scenarios: build, check, measure, check again, tear down; repeat and aggregate.

:func:`run_once` is one attempt on a fresh topology. :func:`run_point` repeats attempts until a
run passes every fidelity check (at most ``attempts`` times); a point whose attempts all fail is
reported as rejected with the reasons of each attempt — never averaged in. :func:`run` collects
``repeats`` accepted runs of one scenario and gives each summary field a mean with a confidence
interval.
"""

from __future__ import annotations

import json
import math
import os
import re
import shutil
import signal
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from bufsize.testbed import fidelity, netns, vcpu
from bufsize.testbed.config import TestbedConfig
from bufsize.testbed.tcjson import parse_links, parse_qdiscs
from bufsize.testbed.topology import D_ADDR, Topology

WORK_ROOT = netns.WORK_ROOT


@dataclass
class Attempt:
    run_id: str
    accepted: bool
    checks: list[fidelity.Check] = field(default_factory=list)
    summary: dict[str, Any] = field(default_factory=dict)
    tables: dict[str, Any] = field(default_factory=dict)
    delay_stats: dict[str, Any] = field(default_factory=dict)
    error: str = ""

    @property
    def reasons(self) -> list[str]:
        r = [f"{c.name}: {c.reason}" for c in self.checks if not c.passed]
        return ([self.error] if self.error else []) + r

    def to_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "accepted": self.accepted, "reasons": self.reasons, "error": self.error,
                "checks": [c.to_dict() for c in self.checks], "summary": self.summary, "delay_element": self.delay_stats}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> "Attempt":
        """An attempt read back from :meth:`to_dict` (its per-run tables are not in the dict)."""
        return cls(run_id=d["run_id"], accepted=bool(d["accepted"]),
                   checks=[fidelity.Check(**c) for c in d.get("checks", [])], summary=dict(d.get("summary", {})),
                   delay_stats=dict(d.get("delay_element", {})), error=d.get("error", ""))


class _Interrupted(Exception):
    pass


def _sigterm_to_interrupt(*_):
    raise KeyboardInterrupt


def _qdisc_inventory(topo: Topology):
    out = []
    for role in netns.ROLES:
        out += parse_qdiscs(topo.tc(role, "-s", "-j", "qdisc", "show"), topo.ns[role])
    return out


def _link_counters(topo: Topology):
    out = []
    for role in netns.ROLES:
        out += parse_links(topo.ip(role, "-s", "-j", "link", "show"), topo.ns[role])
    return out


def _softnet_drops() -> int:
    """Sum over CPUs of the second column of /proc/net/softnet_stat (backlog drops, host-wide)."""
    total = 0
    with open("/proc/net/softnet_stat") as f:
        for line in f:
            parts = line.split()
            if len(parts) > 1:
                total += int(parts[1], 16)
    return total


#: TcpExt counters of the sender's loss recovery recorded per run (as ``tcpext_<name>``).
RECOVERY_COUNTERS = ("TCPSackRecovery", "TCPRenoRecovery", "TCPSackRecoveryFail", "TCPLossProbes",
                     "TCPLossProbeRecovery", "TCPLostRetransmit", "TCPFullUndo", "TCPPartialUndo", "TCPDSACKUndo",
                     "TCPLossUndo", "TCPDSACKRecv", "TCPSpuriousRTOs", "TCPSACKReorder", "TCPTSReorder")


def _netstat(topo: Topology) -> dict[str, int]:
    from bufsize.testbed.measure import parse_netstat

    return parse_netstat(topo.exec("s", "cat", "/proc/net/netstat", "/proc/net/snmp"))


def _ping_min_rtts(topo: Topology, count: int = 5) -> dict[str, float]:
    """Minimum ping RTT per source address (all sources pinged in parallel, 0.2 s apart)."""
    import subprocess

    procs = {}
    for a in sorted(set(topo.sources)):
        procs[a] = subprocess.Popen(["ip", "netns", "exec", topo.ns["s"], "ping", "-n", "-q", "-c", str(count),
                                     "-i", "0.2", "-W", "3", "-I", a, D_ADDR],
                                    stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = {}
    for a, p in procs.items():
        text, _ = p.communicate(timeout=30)
        m = re.search(r"= ([\d.]+)/([\d.]+)/([\d.]+)", text)
        if m:
            out[a] = float(m.group(1)) * 1e-3
    return out


def _offload_features(topo: Topology) -> dict[str, dict[str, bool]]:
    feats = {}
    for role, dev in (("s", topo.dev["sr"]), ("r", topo.dev["rs"]), ("r", topo.dev["rd"]), ("d", topo.dev["dr"])):
        feats[dev] = fidelity.parse_ethtool_features(topo.exec(role, "ethtool", "-k", dev))
    return feats


def _read_json(path: Path) -> dict:
    try:
        return json.loads(path.read_text())
    except (OSError, ValueError):
        return {}


def _sleep_until(t: float, procs: list) -> None:
    while True:
        now = time.monotonic()
        if now >= t:
            return
        for p in procs:
            if p.poll() is not None and p.returncode != 0:
                raise RuntimeError(f"a testbed process exited early (code {p.returncode})")
        time.sleep(min(0.2, t - now))


def run_once(cfg: TestbedConfig, *, log: Callable[[str], None] = lambda s: None, keep_work: bool = False,
             _after_start: Callable[[Topology], None] | None = None, capture: str | os.PathLike | None = None) -> Attempt:
    """One attempt on a fresh topology; always torn down before returning (also on Ctrl-C).

    ``capture``: write a headers-only pcap of the bottleneck's egress there (``bufsize.testbed.capture``)."""
    import numpy as np

    from bufsize.testbed.measure import summarize

    netns.remove_stale(log)  # runs whose owner was killed (SIGKILL leaves their namespaces)
    rid = netns.new_run_id()
    work = WORK_ROOT / rid
    netns.write_owner(rid)
    topo = Topology(rid, cfg, work)
    att = Attempt(run_id=rid, accepted=False)
    old = signal.signal(signal.SIGTERM, _sigterm_to_interrupt)
    hp = vcpu.HaltPoll("off")
    try:
        hp = vcpu.enable(cfg.halt_poll_ns, WORK_ROOT)
        if hp.state == "unavailable":
            log(f"{rid}: guest halt polling not set: {hp.detail}")
        log(f"{rid}: building topology")
        topo.build()
        total = cfg.duration_s + 30.0
        topo.start_delay(max_runtime_s=total + 60.0)
        # ---- before: inventory, offloads, base RTTs
        bott = topo.dev["rd"]
        att.checks.append(fidelity.check_queue_inventory(_qdisc_inventory(topo), bott))
        att.checks.append(fidelity.check_offloads(_offload_features(topo)))
        rtts = _ping_min_rtts(topo)
        att.checks.append(fidelity.check_base_rtts(rtts, dict(zip(topo.sources, topo.rtts)), cfg.limits))
        if not all(c.passed for c in att.checks):
            log(f"{rid}: refused before traffic: {'; '.join(att.reasons)}")
            return att
        # ---- traffic
        spec = {"t0": 0.0, "duration_s": cfg.duration_s, "dst": D_ADDR, "port": 5001, "seed": cfg.seed,
                "tcpinfo_sample_s": cfg.tcpinfo_sample_s,
                "flows": [{"src": topo.sources[i], "cc": f.cc, "start_s": f.start_s} for i, f in enumerate(cfg.flows)],
                "users": [{"src": topo.sources[len(cfg.flows) + j], "cc": u.cc, "mean_size_bytes": u.mean_size_bytes,
                           "pareto_shape": u.pareto_shape, "think_mean_s": u.think_mean_s}
                          for j, u in enumerate(cfg.users)]}
        py = topo.python()
        spec["t0"] = time.monotonic() + 3.0  # processes start (Python imports) before t0
        (work / "spec.json").write_text(json.dumps(spec))
        if capture is not None:
            from bufsize.testbed import capture as _capture

            tcpdump = _capture.start(topo, capture)
        links_before = _link_counters(topo)
        soft_before = _softnet_drops()
        recv = topo.spawn("receiver", "d", py + ["bufsize.testbed.traffic", "receiver", "--run-id", rid,
                                                 "--spec", str(work / "spec.json"), "--out", str(work / "receiver.json")])
        deadline = time.monotonic() + 10
        while not (work / "receiver.json.ready").exists():
            if recv.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"receiver did not start: {(work / 'receiver.log').read_text()[-300:]}")
            time.sleep(0.02)
        send = topo.spawn("sender", "s", py + ["bufsize.testbed.traffic", "sender", "--run-id", rid,
                                               "--spec", str(work / "spec.json"), "--out", str(work / "sender.json")])
        pids = [topo.procs["delay"].pid, recv.pid, send.pid]
        samp = topo.spawn("sampler", "r", py + ["bufsize.testbed.sampler", "--run-id", rid, "--dev", bott,
                                                "--until", f"{spec['t0'] + cfg.duration_s + 0.3:.6f}",
                                                "--out", str(work / "sampler.npz"),
                                                "--interval", str(cfg.queue_sample_s),
                                                "--pids", ",".join(map(str, pids))])
        if _after_start is not None:
            _after_start(topo)
        t0 = spec["t0"]
        log(f"{rid}: traffic from t0 for {cfg.duration_s:g} s (measuring after {cfg.warmup_s:g} s)")
        _sleep_until(t0 + cfg.warmup_s, [recv, send, samp])
        # the delay element's lateness statistics restart with the measurement window
        topo.procs["delay"].send_signal(signal.SIGUSR1)
        ns_before = _netstat(topo)
        _sleep_until(t0 + cfg.duration_s, [recv, send, samp])
        ns_after = _netstat(topo)
        for name, p in (("sender", send), ("receiver", recv), ("sampler", samp)):
            try:
                p.wait(timeout=15)
            except Exception:
                raise RuntimeError(f"{name} did not finish") from None
            if p.returncode != 0:
                raise RuntimeError(f"{name} failed: {(work / (name + '.log')).read_text()[-400:]}")
        if capture is not None:
            _capture.stop(tcpdump)
        # ---- after
        links_after = _link_counters(topo)
        soft_after = _softnet_drops()
        inv_after = _qdisc_inventory(topo)
        # stop the delay element so that its final statistics cover the whole run
        dproc = topo.procs["delay"]
        dproc.send_signal(signal.SIGTERM)
        try:
            dproc.wait(timeout=5)
        except Exception:
            pass
        att.delay_stats = _read_json(work / "delay.json")
        s = np.load(work / "sampler.npz")
        sampler = {k: s[k] for k in s.files}
        rj, sj = _read_json(work / "receiver.json"), _read_json(work / "sender.json")
        nd = {k: ns_after.get(k, 0) - ns_before.get(k, 0) for k in ("TCPTimeouts", "TCPFastRetrans", "RetransSegs")}
        summary, tables = summarize(cfg, sampler, rj, sj, t0, nd)
        from bufsize.testbed.measure import cpu_summary

        cpu = cpu_summary(sampler["c_t"], sampler["c_steal"], sampler["c_total"], sampler["c_busy"], sampler["c_pid"],
                          ["delay", "receiver", "sender", "sampler"], int(sampler["clk_tck"]), t0 + cfg.warmup_s,
                          t0 + cfg.duration_s, os.cpu_count() or 1,
                          c_busy_normal=sampler["c_busy_normal"], c_wait=sampler["c_wait"])
        # the sender's loss-recovery counters over the window (what Linux did per overflow episode)
        summary.update({f"tcpext_{k}": ns_after.get(k, 0) - ns_before.get(k, 0) for k in RECOVERY_COUNTERS})
        summary.update({"steal_mean": cpu["steal_mean"], "steal_window_max": cpu["steal_window_max"],
                        "machine_busy": cpu["machine_busy"], "machine_busy_normal": cpu["machine_busy_normal"],
                        **{f"cpu_{k}": v for k, v in cpu["process_cpu"].items()},
                        **{f"run_wait_{k}": v for k, v in cpu["process_wait"].items()},
                        "delay_lateness_p99_s": att.delay_stats.get("lateness_p99_us", math.nan) * 1e-6,
                        "delay_lateness_max_s": att.delay_stats.get("lateness_max_us", math.nan) * 1e-6,
                        "halt_poll_ns": float(hp.poll_ns) if hp.state in ("set", "shared") else 0.0})
        htb = next((q for q in inv_after if q.dev == bott and q.kind == "htb"), None)
        direct = int((htb.options or {}).get("direct_packets_stat", 0)) if htb else 0
        att.checks += [
            fidelity.check_queue_inventory(inv_after, bott),
            fidelity.check_queue_bound(summary["max_backlog_bytes"], summary["max_queue_packets"], cfg.buffer_packets,
                                       direct, cfg.buffer_bytes),
            fidelity.check_drops_elsewhere(links_before, links_after, soft_after - soft_before, bott),
            fidelity.check_delay_element(att.delay_stats, cfg.limits),
            fidelity.check_steal(cpu["steal_mean"], cpu["steal_window_max"], cfg.limits),
            fidelity.check_cpu(cpu["machine_busy_normal"], cpu["process_cpu"], cfg.limits, cpu["process_wait"],
                               machine_busy_all=cpu["machine_busy"]),
            fidelity.check_sampling(summary["queue_samples_missed_frac"]),
            fidelity.check_traffic(tables["flows"]["goodput_bps"].tolist(), sj.get("errors", [])),
        ]
        att.summary, att.tables = summary, tables
        att.accepted = all(c.passed for c in att.checks)
        log(f"{rid}: {'accepted' if att.accepted else 'failed: ' + '; '.join(att.reasons)}"
            f" (utilization {summary['utilization']:.3f})")
        return att
    except (RuntimeError, netns.CommandError, OSError) as exc:
        att.error = f"run failed: {exc}"
        log(f"{rid}: {att.error}")
        return att
    finally:
        try:
            topo.teardown()
        finally:
            vcpu.restore(hp)
            signal.signal(signal.SIGTERM, old)
            netns.release_owner(rid)
            if not keep_work:
                shutil.rmtree(work, ignore_errors=True)


@dataclass
class PointResult:
    """Result of one scenario point: accepted runs and the attempts that were turned down."""

    config: TestbedConfig
    runs: list[Attempt]
    failed: list[Attempt]
    rejected: bool
    reasons: list[str]

    def aggregate(self, confidence: float = 0.95) -> dict[str, dict[str, float]]:
        """Per numeric summary field: mean, CI bounds and n over the accepted runs."""
        from bufsize.testbed.stats import mean_ci

        out: dict[str, dict[str, float]] = {}
        if not self.runs:
            return out
        for k, v in self.runs[0].summary.items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                vals = [r.summary[k] for r in self.runs if isinstance(r.summary.get(k), (int, float))]
                vals = [x for x in vals if not (isinstance(x, float) and math.isnan(x))]
                if vals:
                    m, lo, hi = mean_ci(vals, confidence)
                    out[k] = {"mean": m, "ci_low": lo, "ci_high": hi, "n": len(vals)}
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"config": self.config.to_dict(), "rejected": self.rejected, "reasons": self.reasons,
                "accepted_runs": [a.to_dict() for a in self.runs],
                "failed_attempts": [a.to_dict() for a in self.failed], "aggregate": self.aggregate()}


def run(cfg: TestbedConfig, *, repeats: int = 1, attempts: int = 3, log: Callable[[str], None] = lambda s: None,
        keep_work: bool = False, prior: Sequence[Attempt] = (),
        captures: Sequence[str | os.PathLike] = ()) -> PointResult:
    """``repeats`` accepted runs of one scenario; each may take up to ``attempts`` tries.

    If some repeat exhausts its attempts, the point is rejected (with every failed attempt's
    reasons) and the accepted runs so far are kept for inspection but not aggregated into a result
    by callers that honour ``rejected``.

    ``prior``: accepted runs of the same scenario from an interrupted or rejected earlier try of
    the point (each passed every fidelity check); they count as the first repeats (seeds
    ``cfg.seed`` .. ``cfg.seed + len(prior) - 1``) and only the missing repeats are run.

    ``captures``: one pcap path per repeat (``run_once(capture=)``); a retried attempt overwrites
    its repeat's file, so each holds the attempt that was kept (or the last one tried).
    """
    from bufsize.errors import BufsizeError

    if not isinstance(repeats, int) or repeats < 1:
        raise BufsizeError(f"must be a whole number >= 1, got {repeats!r}", argument="repeats")
    if not isinstance(attempts, int) or attempts < 1:
        raise BufsizeError(f"must be a whole number >= 1, got {attempts!r}", argument="attempts")
    if any(not a.accepted for a in prior):
        raise BufsizeError("only accepted runs can be carried over", argument="prior")
    runs: list[Attempt] = list(prior)[:repeats]
    failed: list[Attempt] = []
    for r in range(len(runs), repeats):
        ok = False
        for k in range(attempts):
            att = run_once(cfg.replace(seed=cfg.seed + r), log=log, keep_work=keep_work,
                           capture=captures[r] if r < len(captures) else None)
            if att.accepted:
                runs.append(att)
                ok = True
                break
            failed.append(att)
        if not ok:
            reasons = [f"{a.run_id}: {'; '.join(a.reasons)}" for a in failed]
            return PointResult(cfg, runs, failed, True, reasons)
    return PointResult(cfg, runs, failed, False, [])


def write_result(point: PointResult, out_dir: Path) -> None:
    """Write point.json and the per-run tables (Parquet) atomically into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for i, a in enumerate(point.runs):
        for name, df in a.tables.items():
            if hasattr(df, "to_parquet") and len(df.columns):
                tmp = out_dir / f".run{i}_{name}.parquet.tmp"
                df.to_parquet(tmp)
                os.replace(tmp, out_dir / f"run{i}_{name}.parquet")
    from bufsize._atomic import atomic_write_text

    atomic_write_text(out_dir / "point.json", json.dumps(point.to_dict(), indent=1, default=float))
