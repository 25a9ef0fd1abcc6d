"""``bufsize testbed``: run scenarios on real Linux TCP in network namespaces.

Subcommands: ``check`` (can this machine run it?), ``run`` (one scenario, repeated, with fidelity
checks), ``cleanup`` (remove what a crashed run left behind).
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Any, Callable

import click

from bufsize._atomic import check_out_dir
from bufsize._json import json_safe
from bufsize.errors import BufsizeError


def flag_error(exc: BufsizeError) -> BufsizeError:
    """A configuration error in terms of the command-line flags (``flows[0].rtt: ...`` -> ``--rtt: ...``)."""
    msg = str(exc)
    if msg.startswith(("flows[", "users[")):
        msg = msg.split("]", 1)[1].lstrip(".")
    known = {"rate", "rtt", "buffer", "flows", "users", "duration", "warmup", "cc", "breakage", "start_spread",
             "halt_poll"}
    name = msg.split(":", 1)[0]
    if name in known:
        flag = {"breakage": "break", "start_spread": "start-spread", "rate": "capacity",
                "halt_poll": "halt-poll"}.get(name, name)
        msg = f"--{flag}:{msg.split(':', 1)[1]}"
    return BufsizeError(msg)


def burst_bytes(text: str) -> int:
    """``--burst`` as whole bytes (a size: 1514B, 15KiB)."""
    from bufsize import units

    v = units.parse_size(text, argument="--burst")
    if v != int(v) or not 1514 <= v <= 1_000_000:
        raise BufsizeError(f"must be a whole number of bytes in 1514B..1MB, got {text!r}", argument="--burst")
    return int(v)


def _halt_poll_ns(text: str) -> int | None:
    """``--halt-poll``: a time (``1ms``, ``0`` for no polling) or ``off`` (leave the machine alone)."""
    from bufsize.units import parse_time

    if text.strip().lower() == "off":
        return None
    return int(round(parse_time(text, argument="--halt-poll", allow_zero=True) * 1e9))


def _need_root() -> None:
    if os.geteuid() != 0:
        raise BufsizeError("the testbed needs root (network namespaces, tc, TUN); see 'bufsize testbed check'")


@click.group(name="testbed")
def testbed_group() -> None:
    """Real Linux TCP through a router with a B-packet drop-tail buffer (network namespaces)."""


@testbed_group.command(name="check")
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
def check_cmd(as_json: bool) -> None:
    """Say whether this machine can run the testbed, and why not. Exit code 1 if it cannot."""
    from bufsize.testbed.check import check

    rep = check()
    if as_json:
        click.echo(json.dumps(rep.to_dict(), indent=1))
    else:
        for i in rep.items:
            click.echo(f"{'ok  ' if i.ok else 'FAIL' if i.required else 'no  '} {i.name:<19} {i.detail}")
        missing = "" if rep.captures else "; captures unavailable (testbed run --capture needs tcpdump)"
        click.echo(("testbed: usable" if rep.ok else "testbed: NOT usable here: " + "; ".join(rep.reasons)) + missing)
    if not rep.ok:
        raise click.exceptions.Exit(1)


@testbed_group.command(name="cleanup")
@click.argument("run_id", required=False)
def cleanup_cmd(run_id: str | None) -> None:
    """Kill the processes and delete the namespaces (with their links) of testbed runs.

    Without RUN_ID every testbed run on this machine (namespaces bst?????-s/r/d) is removed;
    nothing else is touched.
    """
    _need_root()
    from bufsize.testbed.netns import cleanup

    res = cleanup(run_id)
    if not res["namespaces"] and not res["pids"] and not res["work_dirs"]:
        click.echo("nothing to clean up")
    else:
        click.echo(f"removed {len(res['namespaces'])} namespaces ({', '.join(res['namespaces'])}) "
                   f"and {len(res['pids'])} processes; {len(res['work_dirs'])} work directories")


@testbed_group.command(name="run")
@click.option("--capacity", "--rate", "rate", default="50Mbps", show_default=True, help="Bottleneck capacity (at most 100Mbps here).")
@click.option("--rtt", default="70ms", show_default=True,
              help="Round-trip time: 70ms, a list 40ms,100ms (round-robin) or a range 40ms..100ms (spread).")
@click.option("--buffer", default="1bdp", show_default=True,
              help="Bottleneck buffer: packets (52), bytes (64KiB), time (10ms) or a BDP multiple (0.25bdp).")
@click.option("--flows", default=1, show_default=True, type=int, help="Long-lived flows.")
@click.option("--users", default=0, show_default=True, type=int, help="Closed-loop users (Pareto sizes, think times).")
@click.option("--cc", default="reno", show_default=True, help="Congestion control(s), comma-separated, cycled over flows.")
@click.option("--duration", default="60s", show_default=True, help="Traffic duration per run.")
@click.option("--warmup", default="10s", show_default=True, help="Not measured at the start of each run.")
@click.option("--start-spread", default="1s", show_default=True, help="Long-flow start times spread over this.")
@click.option("--repeats", default=1, show_default=True, type=int, help="Accepted runs wanted (mean and 95% CI).")
@click.option("--attempts", default=3, show_default=True, type=int, help="Tries per repeat before rejecting.")
@click.option("--seed", default=1, show_default=True, type=int)
@click.option("--out", "out_dir", default=None, type=click.Path(),
              help="Directory for point.json and the Parquet tables.")
@click.option("--json", "as_json", is_flag=True, help="Print the aggregate as JSON.")
@click.option("--quiet", is_flag=True, help="No progress lines on stderr.")
@click.option("--halt-poll", default="1ms", show_default=True,
              help="Guest halt polling during runs (a time, or 'off' to leave the machine alone): keeps idle vCPUs "
                   "from being descheduled by the hypervisor between packets.")
@click.option("--sack/--no-sack", default=True, show_default=True,
              help="SACK at the senders (--no-sack: net.ipv4.tcp_sack=0 in their namespace).")
@click.option("--burst", default="15KiB", show_default=True,
              help="Token-bucket depth of the bottleneck's htb class (1514B: release at the rate, as a router port; "
                   "a deeper bucket is extra buffer the FIFO limit does not count).")
@click.option("--capture", metavar="FILE", default=None, type=click.Path(dir_okay=False),
              help="Write a headers-only pcap of the bottleneck's egress (needs tcpdump); with --repeats N, one file "
                   "per repeat, FILE's name with -1, -2, ... before its suffix. bufsize traffic reads it.")
@click.option("--max-time", "max_time", metavar="TIME", default="24h", show_default=True,
              help="Refuse runs estimated to take longer in all (--repeats x (--duration + set-up); e.g. 72h, or none).")
@click.option("--break", "breakage", default=None, hidden=True, help="offloads | second-queue (fidelity tests).")
def run_cmd(rate, rtt, buffer, flows, users, cc, duration, warmup, start_spread, repeats, attempts, seed, out_dir,
            as_json, quiet, halt_poll, sack, burst, capture, max_time, breakage) -> None:
    """Run one scenario on the kernel testbed. Exit code 1 if the point is rejected by the fidelity checks."""
    from bufsize.commands.sweep import parse_max_time

    cfg, captures = prepare_run(rate, rtt, buffer, flows, users, cc, duration, warmup, start_spread, repeats,
                                attempts, seed, out_dir, halt_poll, sack, burst, capture, breakage,
                                max_time=parse_max_time(max_time))
    log = (lambda s: None) if quiet else (lambda s: print(f"testbed: {s}", file=sys.stderr, flush=True))
    point = run_prepared(cfg, captures, repeats, attempts, out_dir, log)
    agg = point.aggregate()
    if as_json:
        click.echo(json.dumps(json_safe({"rejected": point.rejected, "reasons": point.reasons, "aggregate": agg,
                                          "runs": [a.summary for a in point.runs],
                                          "captures": [str(c) for c in captures if c.exists()]}), indent=1))
    else:
        if point.rejected:
            click.echo("REJECTED: " + " | ".join(point.reasons))
        keys = ("utilization", "loss_rate", "drops", "mean_queue_packets", "goodput_bps_mean", "jain_fairness",
                "timeouts", "steal_mean", "machine_busy", "delay_lateness_p99_s")
        for k in keys:
            if k in agg:
                a = agg[k]
                ci = "" if math.isnan(a["ci_low"]) else f"  [{a['ci_low']:.4g}, {a['ci_high']:.4g}]"
                click.echo(f"{k:<24} {a['mean']:.4g}{ci}  (n={a['n']})")
        for c in captures:
            if c.exists():
                click.echo(f"{'capture':<24} {c}")
    if point.rejected:
        raise click.exceptions.Exit(1)


def prepare_run(rate: Any, rtt: Any, buffer: Any, flows: Any, users: Any, cc: Any, duration: Any, warmup: Any,
                start_spread: Any, repeats: int, attempts: int, seed: Any, out_dir: str | None, halt_poll: str,
                sack: bool, burst: Any, capture: Any, breakage: str | None, *,
                max_time: float | None = 24 * 3600.0) -> tuple[Any, list[Path]]:
    """``testbed run``'s arguments checked, before anything is built (errors name the flags): the
    configuration and the capture files, or a one-line BufsizeError. Runs estimated to take longer
    than ``max_time`` seconds in all (``None``: no limit) are refused. Also checks for root."""
    from bufsize.cost import check_testbed, testbed_cost
    from bufsize.testbed.config import TestbedConfig

    ccs = [c.strip() for c in cc.split(",") if c.strip()] if isinstance(cc, str) else [str(c) for c in cc]
    try:
        cfg = TestbedConfig.dumbbell(rate=rate, rtt=rtt, buffer=buffer, flows=flows, users=users, cc=ccs,
                                     duration=duration, warmup=warmup, start_spread=start_spread, seed=seed,
                                     breakage=breakage, halt_poll_ns=_halt_poll_ns(halt_poll), sack=sack,
                                     burst_bytes=burst_bytes(burst))
    except BufsizeError as exc:
        raise flag_error(exc) from None
    if repeats < 1:
        raise BufsizeError(f"must be at least 1, got {repeats}", argument="--repeats")
    if attempts < 1:
        raise BufsizeError(f"must be at least 1, got {attempts}", argument="--attempts")
    check_testbed(testbed_cost(duration_s=cfg.duration_s, repeats=repeats, attempts=attempts),
                  what="this point", max_seconds=max_time)
    captures = _capture_paths(None if capture is None else str(capture), repeats)
    if out_dir:   # checked before the namespaces are built and the runs made, not after
        check_out_dir(out_dir)
    _need_root()
    return cfg, captures


def run_prepared(cfg: Any, captures: list[Path], repeats: int, attempts: int, out_dir: str | None,
                 log: Callable[[str], None]) -> Any:
    """Run a configuration :func:`prepare_run` accepted; the point (written to ``out_dir`` if given)."""
    from bufsize.testbed.runner import run, write_result

    log(f"{cfg.rate_bps / 1e6:g} Mb/s, B = {_count(cfg.buffer_packets, 'packet')} "
        f"({cfg.buffer_packets / cfg.bdp_packets:.3g} BDP), {_count(len(cfg.flows), 'flow')}, "
        f"{_count(len(cfg.users), 'user')}, {cfg.duration_s:g} s x {repeats}")
    point = run(cfg, repeats=repeats, attempts=attempts, log=log, captures=captures)
    if out_dir:
        write_result(point, Path(out_dir))
    return point


def _count(n: float, noun: str) -> str:
    return f"{n:g} {noun}{'' if n == 1 else 's'}"


def _capture_paths(capture: str | None, repeats: int) -> list[Path]:
    """Where each repeat's capture goes (none without --capture); refused at once, before any run,
    when tcpdump is missing or the file cannot be written."""
    if capture is None:
        return []
    import shutil

    if shutil.which("tcpdump") is None:
        raise BufsizeError("tcpdump is not installed, so no capture can be written (apt-get install tcpdump; "
                           "'bufsize testbed check' says what else is missing)", argument="--capture")
    path = Path(capture)
    if path.is_dir():
        raise BufsizeError(f"{capture!r} is a directory; give a file name (run.pcap)", argument="--capture")
    parent = path.resolve().parent
    probe = parent
    while not probe.exists():
        probe = probe.parent
    if not os.access(probe, os.W_OK):
        raise BufsizeError(f"cannot write {capture!r}: {str(probe)!r} is not writable", argument="--capture")
    if repeats == 1:
        return [path]
    return [path.with_name(f"{path.stem}-{k}{path.suffix}") for k in range(1, repeats + 1)]


def register(group: click.Group) -> None:
    group.add_command(testbed_group)
