"""``bufsize sweep``: run a scenario over a grid of field values and seeds; resumable; one table out."""

from __future__ import annotations

import time

import click

from bufsize.commands._link import link_options, pop_link, scenario_or_file
from bufsize.commands._options import executor_option, scheduler_option, seeds_option, workers_option
from bufsize.commands._profile import with_profile
from bufsize.errors import BufsizeError

_SHOWN = ("utilization", "loss_rate", "queue_delay_mean_s")


def units_s(seconds: float) -> str:
    from bufsize.cost import format_seconds

    return format_seconds(seconds)


def units_b(n: float) -> str:
    from bufsize.cost import format_bytes

    return format_bytes(n)


def parse_max_time(text: str) -> float | None:
    """``--max-time``: a duration (``24h``, ``90min``), or ``none`` for no limit."""
    from bufsize import units

    if str(text).strip().lower() in ("none", "inf", "unlimited"):
        return None
    return units.parse_time(text, argument="--max-time")


def register(app: click.Group) -> None:
    @app.command("sweep")
    @click.argument("scenario_file", required=False, type=click.Path(dir_okay=False))
    @click.option("--vary", "vary", multiple=True, metavar="FIELD=VALUES",
                  help="A field and its values: a list (flows=100,200,400), a range A..B:N "
                       "(buffer=0.05bdp..2bdp:12) or a log range A..B:N:log. Repeat for a grid.")
    @seeds_option(1, "Seeds per point: a count (seeds 1..N) or a list (1,5,9).")
    @click.option("--out", required=True, metavar="DIR", type=click.Path(file_okay=False),
                  help="Directory for the point files and results.parquet (a rerun skips finished points).")
    @executor_option()
    @workers_option()
    @scheduler_option()
    @click.option("--scheduler-timeout", type=float, default=10.0, show_default=True, metavar="SECONDS",
                  help="How long to try to reach --scheduler.")
    @click.option("--flow-table", "flows", is_flag=True, help="Also write the per-flow table DIR/flows.parquet.")
    @click.option("--retry-failed/--no-retry-failed", default=True, show_default=True,
                  help="On a rerun, run failed points again.")
    @click.option("--plot", metavar="FILE", type=click.Path(dir_okay=False),
                  help="Save a figure of --y against the first varied field (PNG, PDF or SVG).")
    @click.option("--x", "x", metavar="COLUMN", help="x of --plot [default: the first varied field].")
    @click.option("--y", "y", metavar="COLUMN", default="utilization", show_default=True, help="y of --plot.")
    @click.option("--hue", metavar="COLUMN", help="One line per value of this column [default: the second varied field].")
    @click.option("--progress/--no-progress", default=None, help="Progress bar [default: when stderr is a terminal].")
    @click.option("--max-time", "max_time", metavar="TIME", default="24h", show_default=True,
                  help="Refuse a sweep estimated to take longer than this on its workers (e.g. 72h).")
    @click.option("--allow-over-memory", is_flag=True,
                  help="Run even when the estimated memory exceeds what this machine has available.")
    @link_options(with_buffer=True)
    @with_profile
    def sweep_cmd(scenario_file, vary, seeds, out, executor, workers, scheduler, scheduler_timeout, flows, retry_failed, plot, x, y, hue,
                  progress, max_time, allow_over_memory, **link):
        """Run SCENARIO_FILE (or the link the flags describe) for every combination of --vary values and every seed.

        \b
          bufsize sweep examples/one_flow.toml --vary buffer=0.05bdp..1bdp:8 --seeds 3 --out runs/b
          bufsize sweep --capacity 1Gbps --rtt 10ms..40ms --flows 50 --mix cubic=1 --duration 30s \\
              --vary buffer=50..800:5:log --seeds 3 --out runs/cubic
          bufsize sweep examples/oc3_400.toml --vary buffer=10..400:6:log --vary flows=100,400 \\
              --seeds 5 --out runs/oc3 --scheduler tcp://head:8786

        Every finished point is written at once to DIR/points/ (atomically, keyed by a hash of its
        scenario, seed and engine version); the table DIR/results.parquet has one row per (point, seed).
        """
        from bufsize.experiments.sweep import Terminated, plan_sweep, sweep, table_columns
        from bufsize.plots.simulation import check_plot_path

        limit = parse_max_time(max_time)
        scenario_file = scenario_or_file(scenario_file, pop_link(link))   # a path, or the link flags' scenario

        if plot is not None:
            check_plot_path(plot)
        # all input errors, and work that cannot finish or fit, before any run (with a scheduler its
        # size is known once connected: sweep() checks the time then)
        plan = plan_sweep(scenario_file, list(vary), seeds, executor=executor if scheduler is None else None,
                          workers=workers, max_time=limit, flows=flows, allow_over_memory=allow_over_memory,
                          check=scheduler is None)
        axes = plan.axes
        if plot is not None:
            x = x or (axes[0].name if axes else None)
            if x is None:
                raise BufsizeError("needs --x (nothing is varied)", argument="--plot")
            if hue is None:
                hue = next((a.name for a in axes if a.name != x and len(a.values) > 1), None)
            known = table_columns(axes)
            for name, flag in ((x, "--x"), (y, "--y"), (hue, "--hue")):
                if name is not None and name not in known:
                    shown = ", ".join(c for c in known if c not in ("key", "error", "status"))
                    raise BufsizeError(f"no column {name!r} in the sweep table (columns: {shown})", argument=flag)
            xaxis = next((a for a in axes if a.name == x), None)
            xunit = xaxis.unit if xaxis is not None else ""
            if xaxis is not None and not xunit and xaxis.path[-1] in ("buffer", "queue"):
                xunit = "packets"  # a bare number of a buffer field is packets
        click.echo(f"sweep         {plan.points:,} point{'s' if plan.points != 1 else ''} x {plan.seeds:,} seed"
                   f"{'s' if plan.seeds != 1 else ''} = {plan.runs:,} run{'s' if plan.runs != 1 else ''}"
                   + (f" ({', '.join(f'{a.name}: {len(a.values)}' for a in axes)})" if axes else ""))
        if scheduler is None:
            c = plan.cost
            click.echo(f"cost          ≈ {units_s(c.run_wall_seconds)} per run, ≈ {units_s(c.wall_seconds)} in all on "
                       f"{c.parallelism} worker{'s' if c.parallelism != 1 else ''}, ≈ {units_b(c.memory_bytes)} "
                       f"peak memory (estimated; limit --max-time {max_time})")
        t0 = time.perf_counter()
        try:
            table = sweep(scenario_file, list(vary), seeds, out=out, executor=executor, workers=workers,
                          scheduler=scheduler, flows=flows, progress=progress, retry_failed=retry_failed,
                          say=lambda text: click.echo(f"resume        {text}"),
                          scheduler_timeout=scheduler_timeout, max_time=limit, allow_over_memory=allow_over_memory)
        except Terminated:
            click.echo(f"bufsize: terminated; finished points are kept in {out}/ (rerun the command to go on)",
                       err=True)
            raise click.exceptions.Exit(143) from None
        except KeyboardInterrupt:
            click.echo(f"bufsize: interrupted; finished points are kept in {out}/ (rerun the command to go on)",
                       err=True)
            raise click.exceptions.Exit(130) from None
        info = table.attrs["sweep"]
        wall = time.perf_counter() - t0
        where = "nothing left to run" if info["executor"] == "none" else f"on the {info['executor']} executor"
        click.echo(f"runs          {info['done']} done, {info['failed']} failed, {info['skipped']} skipped "
                   f"(already finished) in {wall:.1f} s, {where}")
        click.echo(f"table         {out}/results.parquet ({len(table)} row{'s' if len(table) != 1 else ''})"
                   + (f", per-flow {out}/flows.parquet" if flows else ""))
        ok = table[table["status"] == "ok"]
        cols = [a.name for a in axes]
        shown = [m for m in _SHOWN if m in ok.columns]
        if len(ok) and shown:
            means = ok.groupby(cols, sort=False)[shown].mean().reset_index() if cols else ok[shown].mean().to_frame().T
            click.echo(f"mean over seeds:\n{means.to_string(index=False, float_format=lambda v: f'{v:.5g}')}")
        bad = table[table["status"] != "ok"]
        if len(bad):
            first = bad.iloc[0]
            click.echo(f"bufsize: warning: {len(bad)} run{'s' if len(bad) != 1 else ''} failed (recorded in the "
                       f"table); first: point {first['point']} seed {first['seed']}: {first['error']}", err=True)
        if plot is not None and len(ok):
            from bufsize.plots.sweep import plot_sweep

            plot_sweep(table, x=x, y=y, hue=hue, file=plot, xlabel=f"{x} ({xunit})" if xunit else None)
            click.echo(f"figure        {plot}")
        if len(bad):
            raise click.exceptions.Exit(1)
