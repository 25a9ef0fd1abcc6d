"""``bufsize fit``: paper 000's loss and delay forms fitted to a buffer sweep, and the optimal buffer."""

from __future__ import annotations

import json

import click

from bufsize.commands._options import confidence_option
from bufsize.errors import BufsizeError


def register(app: click.Group) -> None:
    @app.command("fit")
    @click.argument("directory", metavar="DIR|TABLE", type=click.Path(file_okay=True))
    @click.option("--loss", type=click.Choice(["pl", "ex", "auto"]), default="auto", show_default=True,
                  help="PL p = a·B^-b, EX p = a·e^(-bB), or auto (fit both, keep the better).")
    @click.option("--delay", type=click.Choice(["linear", "none"]), default="linear", show_default=True,
                  help="Fit d(B) = f·B/C up to its cutoff (needed for the optimal buffer).")
    @click.option("--x", "x", default="buffer_packets", show_default=True, help="Column of the buffer (packets).")
    @click.option("--flow-size", metavar="SIZE", help="Flow size for the S-model optimum (e.g. 30pkt or 45KB).")
    @confidence_option("Of the parameter intervals.")
    @click.option("--plot", metavar="FILE", type=click.Path(dir_okay=False), help="Save the data and the fits.")
    @click.option("--where", multiple=True, metavar="COLUMN=VALUE",
                  help="Fit only the rows with this value (e.g. flows=400); repeatable.")
    @click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
    def fit_cmd(directory, loss, delay, x, flow_size, confidence, plot, where, as_json):
        """Fit the loss rate and queueing delay of a sweep over the buffer (bufsize sweep --out DIR).

        DIR|TABLE is a sweep directory, or a CSV or Parquet table of runs with the sweep table's
        columns (buffer_packets, loss_rate; for the delay fit queue_delay_mean_s, capacity_pps,
        rtt_mean_s).

        \b
          bufsize sweep examples/oc3_400.toml --vary buffer=10..400:8:log --seeds 3 --out runs/oc3
          bufsize fit runs/oc3 --loss auto --flow-size 30pkt
        """
        from bufsize.experiments.fit import fit_sweep, report

        if not 0.5 <= confidence < 1:
            raise BufsizeError(f"must be in [0.5, 1), got {confidence}", argument="--confidence")
        segments = _segments(flow_size)
        if plot is not None:
            from bufsize.plots.simulation import check_plot_path

            check_plot_path(plot)
        table = _select(directory, where)
        res = fit_sweep(table, loss=loss, delay=None if delay == "none" else delay, x=x, confidence=confidence,
                        flow_segments=segments)
        if as_json:
            click.echo(json.dumps(res.to_dict(), indent=2))
        else:
            click.echo(report(res))
        if plot is not None:
            from bufsize.plots.sweep import plot_fit

            plot_fit(table, res, x=x, file=plot)
            if not as_json:
                click.echo(f"figure    {plot}")


def _select(directory: str, where: tuple[str, ...]):
    from bufsize.experiments.fit import load_table, select_rows

    return select_rows(load_table(directory), where)


def _segments(text: str | None) -> float | None:
    from bufsize.experiments.fit import flow_segments

    return flow_segments(text)
