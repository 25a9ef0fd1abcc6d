"""``bufsize recommend``: one command, every model, one buffer size with its reasons."""

from __future__ import annotations

import math
import os

import click

from bufsize import defaults as _defaults
from bufsize.commands._profile import with_profile
from bufsize.recommendation import DEFAULTS


def _fmt_packets(b) -> str:
    if b is None:
        return "—"
    if not math.isfinite(b):
        return "∞"
    return f"{b:,.1f}" if b < 100 else f"{b:,.0f}"


def _verdict_cell(ver, model_id: str, short: bool = False) -> str:
    """'safe', 'unsafe: utilization 0.948', 'wasteful: 4.3× the need' for one model's row."""
    d = ver.verdicts.get(model_id)
    if d is None:
        return "—"
    v = d["verdict"]
    if short:
        return v
    extra = ""
    if v == "unsafe":
        parts = []
        for g in d.get("misses") or []:
            if g == "utilization" and d.get("utilization") is not None:
                parts.append(f"utilization {d['utilization']:.3f}")
            elif g == "loss" and d.get("loss_rate") is not None:
                parts.append(f"loss {d['loss_rate'] * 100:.2g} %")
            else:
                parts.append(g)
        extra = ": " + ", ".join(parts) if parts else ""
    elif v == "wasteful" and ver.buffer_packets:
        extra = f": {d['buffer_packets'] / ver.buffer_packets:.2g}× the need"
    elif v == "safe" and d.get("borderline"):
        extra = " (borderline)"
    return v + extra + ("" if d.get("simulated", True) else " †")


def _print_table(rec) -> None:
    from rich.console import Console
    from rich.table import Table

    from bufsize import units

    inp = rec.input
    console = Console()
    if not console.is_terminal and "COLUMNS" not in os.environ:
        console = Console(width=150)  # files and pipes: wide enough to keep every column readable
    head = (f"Link {units.format_rate(inp.capacity_bps)}, RTT {units.format_time(inp.rtt_s)}"
            + (f" ({units.format_time(inp.rtt_min_s)}–{units.format_time(inp.rtt_max_s)}; harmonic mean "
               f"{units.format_time(inp.rtt_harmonic_s)})" if inp.rtt_max_s > inp.rtt_min_s else "")
            + (f", {inp.flows:,} long flows" if inp.flows else "")
            + f", {inp.packet_bytes:g}-byte packets"
            + (f", Γ = {inp.gamma:g}" if inp.gamma is not None else "")
            + f"; BDP = {inp.bdp_packets:,.0f} packets ({units.format_size(inp.bdp_packets * inp.packet_bytes)})")
    table = Table(title=head, title_justify="left", show_lines=False, expand=False)
    table.add_column("model", no_wrap=True)
    table.add_column("paper, eq.", overflow="fold", max_width=16)
    table.add_column("applies", justify="center")
    table.add_column("packets", justify="right", no_wrap=True)
    table.add_column("bytes", justify="right", no_wrap=True)
    table.add_column("delay", justify="right", no_wrap=True)
    ver = getattr(rec, "verified", None)
    if ver is not None:
        table.add_column("on this traffic", overflow="fold", max_width=22)
    table.add_column("why / why not", overflow="fold", min_width=24)
    for m in rec.models:
        paper = f"{m.paper} {m.equation}"
        if getattr(m, "beyond_papers", False):
            paper = f"{m.paper}* {m.equation}"   # * beyond the five papers: the footnote names the source
        cells = [
            m.id, paper, "yes" if m.applies else "no", _fmt_packets(m.buffer_packets),
            "—" if m.buffer_bytes is None else ("∞" if not math.isfinite(m.buffer_bytes) else units.format_size(m.buffer_bytes, 3)),
            "—" if m.queueing_delay_s is None else ("∞" if not math.isfinite(m.queueing_delay_s) else units.format_time(m.queueing_delay_s, 3))
            + (" > goal" if inp.max_delay_s is not None and m.queueing_delay_s is not None
               and m.queueing_delay_s > inp.max_delay_s * (1 + 1e-9) else ""),
        ]
        if ver is not None:
            cells.append(_verdict_cell(ver, m.id))
        table.add_row(*cells, m.reason)
    console.print(table, crop=False)
    sources = sorted({m.source for m in rec.models if getattr(m, "beyond_papers", False) and m.source})
    for src in sources:
        console.print(f"* {src}", highlight=False, markup=False, soft_wrap=True)
    if ver is not None:
        from bufsize.recommendation.verification import text

        console.print(text(ver), highlight=False, markup=False)
    elif getattr(rec, "verify_skipped", None):
        console.print(f"Not verified: {rec.verify_skipped}", highlight=False, markup=False)
    r = rec.recommended
    console.print(
        f"[bold]{'Models’ choice' if ver is not None else 'Recommended (models only)'}:[/bold] "
        f"{_fmt_packets(r['buffer_packets'])} packets = "
        f"{units.format_size(r['buffer_bytes'])}, {units.format_time(r['queueing_delay_s'])} of queueing when full "
        f"({r['id']})" + (f", {_verdict_cell(ver, r['id'], short=True)} on this traffic"
                          if ver is not None and r["id"] in ver.verdicts else ""))
    for reason in r["reasons"]:
        console.print(f"  • {reason}", highlight=False)
    # the models' figures at the recommended size, each with its model and where it is evaluated
    # (recommendation.predicted_figures: the same numbers as --plot and --json)
    for fig in rec.predicted.get("figures", []):
        console.print(f"  model prediction: {fig['text']}", highlight=False)


def register(group: click.Group) -> None:
    @group.command("recommend")
    @click.option("--capacity", default=None, help="Bottleneck capacity C, e.g. 155Mbps, 10Gb/s (required with any other link flag).")
    @click.option("--rtt", default=None, help="Round-trip time: mean (80ms), range (20ms..140ms) or list (30ms,50ms) (required with any other link flag).")
    @click.option("--flows", default=None, help="Number of long-lived flows n (required unless --short-flows describes the traffic).")
    @click.option("--packet-size", default=None, help=f"Packet size on the wire [default {DEFAULTS['packet_size']}].")
    @click.option("--input-capacity", default=None, help="Capacity of each input/access link Cin (gives Γ = C/Cin).")
    @click.option("--gamma", default=None, help="Capacity ratio Γ = C/Cin (instead of --input-capacity).")
    @click.option("--inputs", default=None, help="Number of input links Nin feeding the port (000's EX form; default: one per flow).")
    @click.option("--mix", default=None, help="TCP mix, e.g. reno=0.2,bic=0.2,cubic=0.4,ctcp=0.2 or cubic=0.5,bbr=0.5 "
                                               "(fractions or flow counts; names: reno, newreno, cubic, cubic-0.8, bic, "
                                               "ctcp, bbr).")
    @click.option("--short-flows", default=None, help="Short-flow length (14pkt, 45kB) or distribution (2pkt:0.3,14pkt:0.7).")
    @click.option("--short-load", default=None, help="Load of the short flows as a fraction of C (0.2 or 20%).")
    @click.option("--max-window", default=None, help="Maximum window Wmax (64pkt or 64KiB).")
    @click.option("--paced/--no-paced", default=False, show_default=True, help="Senders pace their packets (paper 002).")
    @click.option("--target-utilization", default=None, help=f"Utilization goal in (0, 1) [default {DEFAULTS['target_utilization']}].")
    @click.option("--max-loss", default=None, help="Loss-rate goal in (0, 1).")
    @click.option("--max-delay", default=None, help="Queueing-delay goal, e.g. 5ms.")
    @click.option("--optimize-for", default=None, help="Favour S (slow-start) or L (congestion-avoidance) flows' throughput (paper 000).")
    @click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (see README for the fields).")
    @click.option("--plot", "plot_file", default=None, type=click.Path(dir_okay=False), help="Draw the simulated utilization, loss and delay against B (when verified; else the models' curves) with every model's size marked, to FILE (PNG/PDF/SVG).")
    @click.option("--verify/--no-verify", default=None,
                  help="Find the verified size on the simulator (the traffic as described) and judge every model's "
                       "size [default: when the estimated cost fits 30 s here; --no-verify: the models alone].")
    @click.option("--loss-detection", default=None, metavar="rack|dupack",
                  help="Loss detection of the simulated senders (verified answer): rack (RACK-TLP, as Linux) or "
                       f"dupack (duplicate ACKs, as ns-2/ns-3) [default: the profile's, {_defaults.LOSS_DETECTION} in linux].")
    @click.option("--max-fct", default=None, metavar="TIME",
                  help="Goal for the short flows' mean completion time, e.g. 200ms (verified answer only).")
    @click.option("--workers", type=click.IntRange(1), default=None, help="Local processes for the verification [default: all cores].")
    @click.option("--scheduler", default=None, metavar="ADDRESS", help="Run the verification on a Dask scheduler (tcp://host:8786).")
    @click.option("--traffic", default=None, metavar="FILE", type=click.Path(dir_okay=False),
                  help="Your own traffic: a capture (pcap/pcapng), flow records or a saved profile gives the flows, "
                       "RTTs, packet size and short flows (docs/traffic.md).")
    @click.option("--scale-to", default=None, metavar="RATE",
                  help="With --traffic: size for the measured traffic grown to a link of this rate.")
    @with_profile
    def recommend_cmd(capacity, rtt, flows, packet_size, input_capacity, gamma, inputs, mix, short_flows, short_load,
                      max_window, paced, target_utilization, max_loss, max_delay, optimize_for, as_json, plot_file,
                      verify=None, max_fct=None, workers=None, scheduler=None, traffic=None, scale_to=None,
                      loss_detection=None):
        """Size a router buffer: the smallest size that meets the goals on the traffic described,
        verified on the simulator, beside every model of the five papers.

        With no link flag at all it sizes an example link (1 Gb/s, 100 flows, RTTs 10–50 ms:
        --capacity 1Gbps --rtt 10ms..50ms --flows 100); otherwise --capacity, --rtt and --flows (or
        --short-flows) must be given.
        """
        import sys

        from bufsize import defaults
        from bufsize.recommendation import recommend

        if loss_detection is not None:   # checked before anything runs; None: the profile's
            loss_detection = defaults.loss_detection(loss_detection)

        if scale_to is not None and traffic is None:
            from bufsize.errors import BufsizeError

            raise BufsizeError("scales measured traffic: give --traffic FILE", argument="--scale-to")
        if traffic is not None:  # the link description comes from the capture (bufsize.traffic)
            from bufsize.traffic import recommend_from_file

            kw, _profile, notes = recommend_from_file(
                traffic, capacity=capacity, scale_to=scale_to, mix=mix,
                given=dict(rtt=rtt, flows=flows, short_flows=short_flows, short_load=short_load, packet_size=packet_size))
            capacity, rtt, flows, packet_size = kw["capacity"], kw["rtt"], kw.get("flows"), kw["packet_size"]
            short_flows, short_load = kw.get("short_flows"), kw.get("short_load")
            for line in notes:
                click.echo(f"bufsize: traffic: {line}", err=True)
        rec = recommend(capacity=capacity, rtt=rtt, flows=flows, packet_size=packet_size,
                        input_capacity=input_capacity, gamma=gamma, inputs=inputs, mix=mix, short_flows=short_flows,
                        short_load=short_load, max_window=max_window, paced=paced,
                        target_utilization=target_utilization, max_loss=max_loss, max_delay=max_delay,
                        optimize_for=optimize_for)
        for line in rec.input.assumed:   # what was not given and taken from a default
            click.echo(f"bufsize: {line}", err=True)
        if max_fct is not None and verify is False:
            from bufsize.errors import BufsizeError

            raise BufsizeError("a completion-time goal is checked on the simulator only: drop --no-verify",
                               argument="--max-fct")
        if verify is not False:
            from bufsize.recommendation import attach_verification

            if not rec.input.flows:
                rec.verify_skipped = "not verified: the simulation needs long-lived flows (--flows)"
                if verify:
                    from bufsize.errors import BufsizeError

                    raise BufsizeError("the verified answer needs long-lived flows (--flows ≥ 1)", argument="--verify")
            else:
                say = (lambda t: click.echo(t, err=True)) if sys.stderr.isatty() and not as_json else None
                with defaults.using_loss_detection(loss_detection):
                    attach_verification(rec, True if verify else "auto", max_fct=max_fct, workers=workers,
                                         scheduler=scheduler, say=say)
        if plot_file:
            from bufsize.plots.recommend import plot_recommendation

            plot_recommendation(rec, plot_file)
        if as_json:
            click.echo(rec.to_json())
            return
        _print_table(rec)
        if plot_file:
            click.echo(f"plot written to {plot_file}")
