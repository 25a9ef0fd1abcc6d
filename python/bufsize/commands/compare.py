"""``bufsize compare``: one scenario in the simulator and on the kernel testbed, side by side."""

from __future__ import annotations

import json
import math
import sys
from typing import Any, Callable

import click

from bufsize.commands._profile import with_profile
from bufsize.errors import BufsizeError


def _fmt(v: float) -> str:
    return "-" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.4g}"


def register(group: click.Group) -> None:
    @group.command(name="compare")
    @click.argument("scenario_file", required=False, type=click.Path(dir_okay=False))
    @click.option("--capacity", "--rate", "rate", default=None, help="Bottleneck capacity (flag form; at most 100Mbps) [50Mbps].")
    @click.option("--rtt", default=None, help="RTT: 70ms, 40ms,100ms or 40ms..100ms (spread evenly) [70ms].")
    @click.option("--buffer", default=None, help="Buffer: packets, bytes, time or a BDP multiple (0.25bdp) [1bdp].")
    @click.option("--flows", default=None, type=int, help="Long-lived flows [1].")
    @click.option("--cc", default=None, help="Congestion control (one for all flows) [reno].")
    @click.option("--duration", default=None, help="Run length, both sides [60s].")
    @click.option("--warmup", default=None, help="Not measured at the start [10s].")
    @click.option("--repeats", default=3, show_default=True, type=int, help="Accepted testbed runs (mean, 95% CI).")
    @click.option("--attempts", default=3, show_default=True, type=int, help="Tries per testbed repeat.")
    @click.option("--sack/--no-sack", default=None,
                  help="SACK on both sides [on, Linux's default]; --no-sack sets net.ipv4.tcp_sack=0 on the testbed.")
    @click.option("--burst", default=None,
                  help="Token-bucket depth of the testbed's htb bottleneck [15KiB]; the twin's bottleneck is shaped "
                       "the same way (1514B: release at the rate, as a router port).")
    @click.option("--loss-detection", default=None, metavar="rack|dupack",
                  help="Loss detection on both sides [rack: RACK-TLP, Linux's default]; dupack sets "
                       "net.ipv4.tcp_recovery=0 and net.ipv4.tcp_early_retrans=0 on the testbed.")
    @click.option("--max-time", "max_time", metavar="TIME", default="24h", show_default=True,
                  help="Refuse a comparison estimated to take longer (the simulation and the testbed runs; "
                       "e.g. 72h, or none).")
    @click.option("--allow-over-memory", is_flag=True,
                  help="Simulate even when the estimated memory exceeds what this machine has.")
    @click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
    @click.option("--quiet", is_flag=True, help="No progress lines on stderr.")
    @with_profile
    def compare_cmd(scenario_file, rate, rtt, buffer, flows, cc, duration, warmup, repeats, attempts, sack, burst,
                    max_time, allow_over_memory, as_json, quiet, loss_detection=None) -> None:
        """Run SCENARIO_FILE (a simulator dumbbell) or the flag-built dumbbell in the simulator and on the
        testbed; print both summaries side by side. The simulator is set up like Linux TCP (1514-byte frames,
        SACK, IW10, RTO >= 200 ms, delayed ACKs); see docs/testbed.md for what still differs."""
        from bufsize.commands.sweep import parse_max_time

        cfg, twin = prepare(scenario_file, rate, rtt, buffer, flows, cc, duration, warmup, repeats, attempts, sack,
                            burst, loss_detection, max_time=parse_max_time(max_time),
                            allow_over_memory=allow_over_memory)
        log = (lambda s: None) if quiet else (lambda s: print(f"compare: {s}", file=sys.stderr, flush=True))
        point, rows = run_prepared(cfg, twin, repeats, attempts, log)
        if as_json:
            def safe(v):
                return None if isinstance(v, float) and not math.isfinite(v) else v

            click.echo(json.dumps({"rejected": point.rejected, "reasons": point.reasons,
                                   "rows": [{k: safe(v) for k, v in r.items()} for r in rows],
                                   "simulator_scenario": twin.to_dict(), "testbed_config": cfg.to_dict()}, indent=1))
        else:
            click.echo(f"{cfg.rate_bps / 1e6:g} Mb/s, B = {cfg.buffer_packets} packets "
                       f"({cfg.buffer_packets / cfg.bdp_packets:.3g} BDP), {len(cfg.flows)} {cfg.flows[0].cc} flows")
            if point.rejected:
                click.echo("TESTBED REJECTED: " + " | ".join(point.reasons))
            click.echo(f"{'field':<24}{'simulator':>12}{'testbed':>12}  {'95% CI':<22}{'diff':>10}")
            for r in rows:
                ci = "" if math.isnan(r["ci_low"]) else f"[{_fmt(r['ci_low'])}, {_fmt(r['ci_high'])}]"
                click.echo(f"{r['field']:<24}{_fmt(r['simulator']):>12}{_fmt(r['testbed']):>12}  {ci:<22}"
                           f"{_fmt(r['difference']):>10}")
        if point.rejected:
            raise click.exceptions.Exit(1)


def prepare(scenario: Any, rate: Any, rtt: Any, buffer: Any, flows: Any, cc: Any, duration: Any, warmup: Any,
            repeats: int, attempts: int, sack: bool | None, burst: Any, loss_detection: str | None, *,
            max_time: float | None = 24 * 3600.0, allow_over_memory: bool = False) -> tuple[Any, Any]:
    """``compare``'s arguments checked before anything runs (errors name the flags): the testbed
    configuration and its simulator twin, or a one-line BufsizeError. Also costs the work (the
    twin's simulation, the testbed runs) and refuses what cannot fit in memory or finish within
    ``max_time`` seconds (``None``: no limit), then checks for root.

    ``scenario`` is a file path, a :class:`~bufsize.scenario.Scenario` or ``None`` (the flags)."""
    import os

    from bufsize import defaults
    from bufsize.commands.testbed import burst_bytes, flag_error
    from bufsize.testbed.compare import simulator_twin, testbed_from_scenario
    from bufsize.testbed.config import TestbedConfig

    if loss_detection is not None:
        loss_detection = defaults.loss_detection(loss_detection)
    flagged = any(v is not None for v in (rate, rtt, buffer, flows, cc, duration, warmup, sack, burst,
                                          loss_detection))
    if scenario is not None and flagged:
        raise BufsizeError("give a scenario file or the dumbbell flags, not both", argument="SCENARIO_FILE")
    if repeats < 1:
        raise BufsizeError(f"must be at least 1, got {repeats}", argument="--repeats")
    if attempts < 1:
        raise BufsizeError(f"must be at least 1, got {attempts}", argument="--attempts")
    if scenario is not None:
        from bufsize.scenario import Scenario

        cfg = testbed_from_scenario(scenario if isinstance(scenario, Scenario) else Scenario.from_file(scenario))
    else:
        ccs = [c.strip() for c in (cc or "reno").split(",") if c.strip()] if cc is None or isinstance(cc, str) \
            else [str(c) for c in cc]
        try:
            cfg = TestbedConfig.dumbbell(rate=rate or "50Mbps", rtt=rtt or "70ms", buffer=buffer or "1bdp",
                                         flows=1 if flows is None else flows, cc=ccs,
                                         duration=duration or "60s", warmup=warmup or "10s",
                                         sack=True if sack is None else sack,
                                         sender_sysctls=(("net.ipv4.tcp_recovery=0", "net.ipv4.tcp_early_retrans=0")
                                                         if loss_detection == "dupack" else ()),
                                         **({} if burst is None else {"burst_bytes": burst_bytes(burst)}))
        except BufsizeError as exc:
            raise flag_error(exc) from None
    try:
        twin = simulator_twin(cfg)
    except BufsizeError as exc:
        if scenario is not None:
            raise
        raise flag_error(exc) from None
    from bufsize.cost import check_testbed, estimate, testbed_cost

    check_testbed(testbed_cost(duration_s=cfg.duration_s, repeats=repeats, attempts=attempts,
                               simulation=estimate(twin)),
                  what="this comparison", max_seconds=max_time, allow_over_memory=allow_over_memory)
    if os.geteuid() != 0:
        raise BufsizeError("the testbed needs root (network namespaces, tc, TUN); see 'bufsize testbed check'")
    return cfg, twin


def run_prepared(cfg: Any, twin: Any, repeats: int, attempts: int,
                 log: Callable[[str], None]) -> tuple[Any, list[dict[str, Any]]]:
    """Simulate the twin, run the testbed; the testbed point and the side-by-side rows."""
    from bufsize.simulate import simulate
    from bufsize.testbed.compare import side_by_side
    from bufsize.testbed.runner import run

    log("simulating")
    sim = simulate(twin, progress=False)
    point = run(cfg, repeats=repeats, attempts=attempts, log=log)
    return point, side_by_side(sim.summary, point.aggregate())
