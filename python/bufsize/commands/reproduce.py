"""``bufsize reproduce``: regenerate the papers' figures and tables with their checks."""

from __future__ import annotations

import click

from bufsize.commands._options import scheduler_option, workers_option
from bufsize.errors import BufsizeError


def _list_text() -> str:
    from bufsize import reproduce

    from bufsize.reproduce._timings import recorded, timing

    rows = reproduce.list_figures()
    times = recorded()
    lines = [f"{'id':<14} {'paper id':<12} {'kind':<13} {'--quick':<14} {'--full':<14} status"]
    for spec, code, text in rows:
        if code == "ready":
            quick, full = (timing(spec, m, times).text() for m in ("quick", "full"))
            full = "—" if full == "?" else full
        else:
            quick = full = "—"
        lines.append(f"{spec.id:<14} {spec.paper_id:<12} {spec.kind:<13} {quick:<14} {full:<14} {text}")
        lines.append(f"{'':<14} {spec.title}")
    counts = {}
    for _, code, _ in rows:
        counts[code] = counts.get(code, 0) + 1
    lines.append("")
    lines.append("Times: 'rec.' is the wall time recorded in the committed report (docs/reproduction/ID/meta.json,")
    lines.append("full/ for --full: that report's machine and workers; runs shared by several items count in the")
    lines.append("first that ran them); 'est.' is the item's own estimate on one core, where no report has it.")
    lines.append(f"{len(rows)} figures and tables: {counts.get('ready', 0)} reproducible, "
                 f"{counts.get('illustration', 0)} illustrations and {counts.get('config', 0)} config "
                 f"table{'' if counts.get('config', 0) == 1 else 's'} "
                 f"(no data), {counts.get('blocked', 0)} waiting for missing features, "
                 f"{counts.get('todo', 0)} not implemented yet.")
    return "\n".join(lines)


def register(group: click.Group) -> None:
    @group.command("reproduce")
    @click.argument("ids", nargs=-1, metavar="ID... | all")
    @click.option("--list", "do_list", is_flag=True, help="List every figure and table with its kind, its time (recorded in the committed reports, else estimated) and status.")
    @click.option("--mode", type=click.Choice(["quick", "full"]), default="quick", show_default=True,
                  help="quick: scaled down to run on 2 cores; full: the papers' scale (meant for a Dask cluster).")
    @click.option("--quick", "mode", flag_value="quick", help="Short for --mode quick.")
    @click.option("--full", "mode", flag_value="full", help="Short for --mode full.")
    @click.option("--out", metavar="DIR", type=click.Path(), default="reproduction", show_default=True,
                  help="Output folder (new, empty, or one written by bufsize reproduce).")
    @workers_option("simulations", default="1")
    @scheduler_option("simulations", implies_executor=False)
    @click.option("--testbed", type=click.Choice(["auto", "kernel", "off"]), default="auto", show_default=True,
                  help="The papers' router-testbed figures also on the kernel testbed (real Linux TCP, scaled to "
                       "this machine): auto = where root and `bufsize testbed check` allow, kernel = required, "
                       "off = simulator only.")
    @click.option("--max-time", "max_time", metavar="TIME", default="24h", show_default=True,
                  help="Refuse a batch of simulations estimated to take longer than this (e.g. 72h, or none).")
    def reproduce_cmd(ids, do_list, mode, out, workers, scheduler, testbed, max_time):
        """Reproduce paper figures: each gets DIR/ID/ with figure.png/.svg, data.csv, checks.json,
        inputs.json; DIR/REPORT.md indexes them.

          bufsize reproduce --list
          bufsize reproduce fig_003_04 004-Fig4 --out repro
          bufsize reproduce all --quick --workers 2
        """
        from bufsize import reproduce

        if do_list:
            if ids:
                raise BufsizeError("cannot be combined with figure ids", argument="--list")
            click.echo(_list_text())
            return 0
        if workers is not None and scheduler is not None:
            raise BufsizeError("give --workers or --scheduler, not both", argument="--scheduler")
        n_workers = 1 if workers is None else workers
        mods = reproduce.resolve(list(ids))
        if not mods:
            raise BufsizeError("no reproducible figure selected", argument="ID")
        from bufsize.commands.sweep import parse_max_time

        records = reproduce.run([m.SPEC.id for m in mods], out=out, mode=mode, workers=n_workers,
                                scheduler=scheduler, testbed=testbed, max_time=parse_max_time(max_time))
        total = sum(r["checks_total"] for r in records)
        passed = sum(r["checks_passed"] for r in records)
        click.echo(f"{len(records)} figures written to {out}/ ({passed}/{total} checks pass); see {out}/REPORT.md")
        return 0
