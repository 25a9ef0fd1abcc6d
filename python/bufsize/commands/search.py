"""``bufsize search``: buffer searches on the simulator (min-buffer, optimal-buffer)."""

from __future__ import annotations

import contextlib
import json
import math
import re

import click

from bufsize.commands._link import link_options, pop_link, scenario_or_file
from bufsize.commands._options import confidence_option, executor_option, scheduler_option, seeds_option, \
    workers_option
from bufsize.commands._profile import with_profile
from bufsize.commands.sweep import parse_max_time
from bufsize.errors import BufsizeError

_DELAY_STATS = {"mean": "queue_delay_mean_s", "p50": "queue_delay_p50_s", "p99": "queue_delay_p99_s"}


def _parse_range(text: str | None, bdp: float | None) -> tuple[int | None, int | None]:
    if text is None:
        return None, None
    parts = text.split("..")
    if len(parts) != 2:
        raise BufsizeError(f"expected LO..HI in packets or BDPs (10..300, 0.1bdp..2bdp), got {text!r}",
                           argument="--range")
    out = []
    for p in parts:
        m = re.fullmatch(r"\s*((?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*(pkt|bdp)?\s*", p, re.IGNORECASE)
        if not m:
            raise BufsizeError(f"{p.strip()!r} is not a buffer in packets or BDPs", argument="--range")
        x = float(m.group(1))
        if (m.group(2) or "").lower() == "bdp":
            if bdp is None or not math.isfinite(bdp):
                raise BufsizeError("a range in BDPs needs a dumbbell scenario", argument="--range")
            x *= bdp
        out.append(int(math.floor(x + 0.5)))
    return out[0], out[1]


def _cost_options(f):
    f = click.option("--allow-over-memory", is_flag=True,
                     help="Run even when the estimated memory exceeds what this machine has available.")(f)
    return click.option("--max-time", "max_time", metavar="TIME", default="24h", show_default=True,
                        help="Refuse a search estimated to take longer than this (e.g. 72h, or none).")(f)


@contextlib.contextmanager
def _stopped(out):
    """Ctrl-C or SIGTERM during a search: one line, exit 130 or 143 (the runs finished are kept in --out)."""
    from bufsize.experiments.sweep import Terminated

    kept = f"; finished runs are kept in {out}/" if out else ""
    try:
        yield
    except Terminated:
        click.echo(f"bufsize: terminated{kept}", err=True)
        raise click.exceptions.Exit(143) from None
    except KeyboardInterrupt:
        click.echo(f"bufsize: interrupted{kept}", err=True)
        raise click.exceptions.Exit(130) from None


def register(app: click.Group) -> None:
    @app.group("search")
    def search_group():
        """Search the buffer that meets a target (on the simulator, with a stated confidence)."""

    _register_optimal(search_group)

    @search_group.command("min-buffer")
    @click.argument("scenario_file", required=False, type=click.Path(dir_okay=False))
    @click.option("--target-utilization", metavar="U", help="Mean bottleneck utilization at least U (0.98 or 98%).")
    @click.option("--max-loss", metavar="P", help="Mean loss rate at most P (0.01 or 1%).")
    @click.option("--max-delay", metavar="TIME", help="Queueing delay at most TIME (5ms): gives the LARGEST buffer.")
    @click.option("--delay-stat", type=click.Choice(sorted(_DELAY_STATS)), default="mean", show_default=True,
                  help="Which queueing delay --max-delay limits (its mean over seeds).")
    @seeds_option(5, "Seeds per buffer tried (>= 2): a count or a list (1,5,9).")
    @click.option("--max-seeds", type=int, metavar="N", help="Seeds for an unclear buffer [default: 2 x --seeds].")
    @confidence_option("Probability that the reported interval holds the answer (all targets together).")
    @click.option("--range", "range_", metavar="LO..HI", help="Buffers to search between, in packets or BDPs "
                  "[default: 1..2bdp].")
    @click.option("--resolution", type=int, default=1, show_default=True, metavar="PKT", help="Stop at this width.")
    @click.option("--field", "field_name", default="buffer", show_default=True, help="The scenario field searched.")
    @executor_option()
    @workers_option()
    @scheduler_option()
    @click.option("--out", metavar="DIR", type=click.Path(file_okay=False),
                  help="Keep every run in DIR (a sweep directory: a rerun reuses them).")
    @click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
    @click.option("--verbose", "-v", is_flag=True, help="Print every buffer tried.")
    @_cost_options
    @link_options()
    @with_profile
    def min_buffer(scenario_file, target_utilization, max_loss, max_delay, delay_stat, seeds, max_seeds, confidence,
                   range_, resolution, field_name, executor, workers, scheduler, out, as_json, verbose, max_time,
                   allow_over_memory, **link):
        """The smallest buffer meeting --target-utilization / --max-loss (and the largest meeting --max-delay).

        \b
          bufsize search min-buffer examples/oc3_400.toml --target-utilization 0.98 --seeds 5
          bufsize search min-buffer --capacity 1Gbps --rtt 10ms..40ms --flows 50 --mix cubic=1 \\
              --target-utilization 0.99 --duration 30s

        The link flags describe the traffic as recommend reads them (instead of a SCENARIO_FILE).
        Bisection on the mean over seeds, each buffer judged by a one-sided t test at a
        Bonferroni-corrected level: the interval printed holds the answer with the stated confidence
        if the mean metric is monotone in the buffer (docs/experiments.md). A buffer the
        corrected test leaves open is judged on its own interval: a miss, or "add seeds" when the
        interval straddles the target.
        """
        from bufsize import units
        from bufsize.experiments.search import search_min_buffer
        from bufsize.experiments.sweep import _describe, load_raw
        from bufsize.scenario import Scenario

        if target_utilization is not None:
            target_utilization = units.parse_fraction(target_utilization, argument="--target-utilization")
        if max_loss is not None:
            max_loss = units.parse_fraction(max_loss, argument="--max-loss")
        delay = None
        if max_delay is not None:
            delay = units.parse_time(max_delay, argument="--max-delay", allow_zero=True)
        scenario = scenario_or_file(scenario_file, pop_link(link))
        raw = load_raw(scenario)
        bdp = _describe(Scenario.from_dict(raw)).get("bdp_packets")
        low, high = _parse_range(range_, bdp)
        kw = {}
        if low is not None:
            kw.update(low=low, high=high)
        say = (lambda t: click.echo(t, err=True)) if verbose else None
        with _stopped(out):
            results = search_min_buffer(raw, target_utilization=target_utilization, max_loss=max_loss,
                                        max_delay=delay, delay_metric=_DELAY_STATS[delay_stat], confidence=confidence,
                                        seeds=seeds, max_seeds=max_seeds, resolution=resolution,
                                        field_name=field_name, executor=executor, workers=workers,
                                        scheduler=scheduler, out=out, say=say, max_time=parse_max_time(max_time),
                                        allow_over_memory=allow_over_memory, **kw)
        if as_json:
            click.echo(json.dumps({k: r.to_dict() for k, r in results.items()}, indent=2))
            return
        for r in results.values():
            click.echo(r.statement())
        mins = [r for r in results.values() if r.kind == "min"]
        maxs = [r for r in results.values() if r.kind == "max"]
        if mins and maxs:
            lo = max(r.low for r in mins), max(r.high for r in mins)
            hi = min(r.low for r in maxs), min(r.high for r in maxs)
            if lo[1] <= hi[0]:
                click.echo(f"feasible      buffers from {lo[1]} to {hi[0]} pkt meet every target")
            elif lo[0] > hi[1]:
                click.echo("feasible      no buffer meets every target")
            else:
                click.echo("feasible      undecided: the intervals overlap")
        if bdp is not None and math.isfinite(bdp):
            click.echo(f"(BDP of the scenario: {bdp:.1f} pkt)")


def _register_optimal(search_group: click.Group) -> None:
    @search_group.command("optimal-buffer")
    @click.argument("scenario_file", required=False, type=click.Path(dir_okay=False))
    @click.option("--range", "range_", default="0.02bdp..2bdp", show_default=True, metavar="LO..HI",
                  help="Buffers tried, in packets or BDPs (log-spaced).")
    @click.option("--points", type=click.IntRange(2), default=10, show_default=True, help="Buffers tried.")
    @seeds_option(5, "Seeds per buffer (>= 2): a count or a list (1,5,9).")
    @click.option("--metric", default="goodput_bps_mean", show_default=True, help="Per-flow throughput column.")
    @click.option("--flow-size", metavar="SIZE", help="Short-flow size for 000's S-model optimum (30pkt, 45KB).")
    @confidence_option("Of the test for the smallest buffer not significantly below the best (over all "
                       "buffers together); the fit's intervals stay at 0.95.")
    @executor_option()
    @workers_option()
    @scheduler_option()
    @click.option("--out", metavar="DIR", type=click.Path(file_okay=False), help="Keep the runs (a sweep directory).")
    @click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
    @click.option("--progress/--no-progress", default=None, help="Progress bar [default: when stderr is a terminal].")
    @_cost_options
    @link_options()
    @with_profile
    def optimal_buffer(scenario_file, range_, points, seeds, metric, flow_size, confidence, executor, workers,
                       scheduler, out, as_json, progress, max_time, allow_over_memory, **link):
        """000's optimal buffer: the one maximizing mean per-flow throughput (L flows on the simulator,
        S and L from 000's equations with loss and delay fitted to the same runs)."""
        import numpy as np

        from bufsize.commands.fit import _segments
        from bufsize.experiments.fit import report
        from bufsize.experiments.search import search_optimal_buffer
        from bufsize.experiments.sweep import _describe, load_raw
        from bufsize.scenario import Scenario

        raw = load_raw(scenario_or_file(scenario_file, pop_link(link)))
        bdp = _describe(Scenario.from_dict(raw)).get("bdp_packets")
        lo, hi = _parse_range(range_, bdp)
        lo = max(1, lo)
        if hi <= lo:
            raise BufsizeError(f"needs LO < HI, got {lo}..{hi} packets", argument="--range")
        if points > hi - lo + 1:  # before listing them: --points 1000000000 would take GBs
            raise BufsizeError(f"{points:,} buffers asked for, but {lo}..{hi} holds only {hi - lo + 1:,} whole "
                               f"packet counts", argument="--points")
        grid = sorted({int(round(b)) for b in np.geomspace(lo, hi, points)})
        with _stopped(out):
            res = search_optimal_buffer(raw, grid, seeds=seeds, metric=metric, confidence=confidence,
                                        flow_segments=_segments(flow_size), executor=executor, workers=workers,
                                        scheduler=scheduler, out=out, progress=progress,
                                        max_time=parse_max_time(max_time), allow_over_memory=allow_over_memory)
        if as_json:
            click.echo(json.dumps(res.to_dict(), indent=2, default=float))
            return
        t = res.table.copy()
        t["indistinguishable"] = t["indistinguishable"].map({True: "yes", False: "no"})
        click.echo(t.to_string(index=False, float_format=lambda v: f"{v:.5g}"))
        click.echo(res.statement())
        if res.fit is not None:
            click.echo("000's forms fitted to the same runs:")
            click.echo(report(res.fit))
        else:
            click.echo(f"(no fit: {res.fit_error})")
