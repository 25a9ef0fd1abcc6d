"""``bufsize recommend``: one command, every model, one buffer size with its reasons."""

from __future__ import annotations

import math
import os

import click

from bufsize.recommendation import DEFAULTS


def _fmt_packets(b) -> str:
    if b is None:
        return "—"
    if not math.isfinite(b):
        return "∞"
    return f"{b:,.1f}" if b < 100 else f"{b:,.0f}"


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
    table.add_column("why / why not", overflow="fold", min_width=24)
    for m in rec.models:
        table.add_row(
            m.id, f"{m.paper} {m.equation}", "yes" if m.applies else "no", _fmt_packets(m.buffer_packets),
            "—" if m.buffer_bytes is None else ("∞" if not math.isfinite(m.buffer_bytes) else units.format_size(m.buffer_bytes, 3)),
            "—" if m.queueing_delay_s is None else ("∞" if not math.isfinite(m.queueing_delay_s) else units.format_time(m.queueing_delay_s, 3)),
            m.reason,
        )
    console.print(table, crop=False)
    r = rec.recommended
    console.print(
        f"[bold]Recommended:[/bold] {_fmt_packets(r['buffer_packets'])} packets = "
        f"{units.format_size(r['buffer_bytes'])}, {units.format_time(r['queueing_delay_s'])} of queueing when full "
        f"({r['id']})")
    for reason in r["reasons"]:
        console.print(f"  • {reason}", highlight=False)
    labels = {"utilization_004_eq6": "utilization (004 eq. (6), a lower bound)",
              "utilization_001_eq17_single_flow": "utilization if the flows synchronize (001 eq. (17))",
              "utilization_002_theorem1": "utilization (002 Theorem 1, a lower bound)",
              "utilization_004_window_bursts": "utilization (window bursts, 004 App. C, a lower bound)",
              "utilization_upper_bound": "utilization at most (peak load: the windows/inputs cannot offer more)",
              "loss_004_a6_per_flow": "per-flow loss (004 §5.1.1, 0.76/w²)",
              "full_link_probability_003": "probability the link is full (003 eq. (1), the mix)"}
    for k, v in rec.predicted.items():
        if k in ("peak_load", "loss_sqrt_law_per_flow") or (k == "utilization_upper_bound" and v >= 1.0):
            continue
        if k == "loss_004_a6_per_flow" and "loss_sqrt_law_per_flow" in rec.predicted:
            console.print(f"  predicted per-flow loss: {v * 100:.3g} % (004 §5.1.1, 0.76/w²) to "
                          f"{rec.predicted['loss_sqrt_law_per_flow'] * 100:.3g} % (square-root law, 1.22²/w²)",
                          highlight=False)
            continue
        console.print(f"  predicted {labels.get(k, k)}: {v:.4%}", highlight=False)


def register(group: click.Group) -> None:
    @group.command("recommend")
    @click.option("--capacity", default=None, help="Bottleneck capacity C, e.g. 155Mbps, 10Gb/s (required with any other link flag).")
    @click.option("--rtt", default=None, help="Round-trip time: mean (80ms), range (20ms..140ms) or list (30ms,50ms) (required with any other link flag).")
    @click.option("--flows", default=None, help="Number of long-lived flows n (required unless --short-flows describes the traffic).")
    @click.option("--packet-size", default=None, help=f"Packet size on the wire [default {DEFAULTS['packet_size']}].")
    @click.option("--input-capacity", default=None, help="Capacity of each input/access link Cin (gives Γ = C/Cin).")
    @click.option("--gamma", default=None, help="Capacity ratio Γ = C/Cin (instead of --input-capacity).")
    @click.option("--inputs", default=None, help="Number of input links Nin feeding the port (000's EX form; default: one per flow).")
    @click.option("--mix", default=None, help="TCP mix, e.g. reno=0.2,bic=0.2,cubic=0.4,ctcp=0.2 (fractions or flow counts).")
    @click.option("--short-flows", default=None, help="Short-flow length (14pkt, 45kB) or distribution (2pkt:0.3,14pkt:0.7).")
    @click.option("--short-load", default=None, help="Load of the short flows as a fraction of C (0.2 or 20%).")
    @click.option("--max-window", default=None, help="Maximum window Wmax (64pkt or 64KiB).")
    @click.option("--paced/--no-paced", default=False, show_default=True, help="Senders pace their packets (paper 002).")
    @click.option("--target-utilization", default=None, help=f"Utilization goal in (0, 1) [default {DEFAULTS['target_utilization']}].")
    @click.option("--max-loss", default=None, help="Loss-rate goal in (0, 1).")
    @click.option("--max-delay", default=None, help="Queueing-delay goal, e.g. 5ms.")
    @click.option("--optimize-for", default=None, help="Favour S (slow-start) or L (congestion-avoidance) flows' throughput (paper 000).")
    @click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (see README for the fields).")
    @click.option("--plot", "plot_file", default=None, type=click.Path(dir_okay=False), help="Draw utilization, loss and R(B) against B to FILE (PNG/PDF/SVG).")
    @click.option("--verify", is_flag=True, help="Simulate the recommended buffer, half and twice it, beside the models.")
    @click.option("--verify-seeds", type=click.IntRange(1), default=3, show_default=True, help="Seeds per buffer for --verify.")
    @click.option("--verify-duration", default=None, metavar="TIME", help="Simulated time per --verify run [default: 150 RTTs, 15-60 s].")
    def recommend_cmd(capacity, rtt, flows, packet_size, input_capacity, gamma, inputs, mix, short_flows, short_load,
                      max_window, paced, target_utilization, max_loss, max_delay, optimize_for, as_json, plot_file,
                      verify=False, verify_seeds=3, verify_duration=None):
        """Size a router buffer with every model of the five papers, side by side.

        With no link flag at all it sizes paper 004's example backbone link (10 Gb/s, RTT 250 ms,
        50 000 flows); otherwise --capacity, --rtt and --flows (or --short-flows) must be given.
        """
        from bufsize.recommendation import recommend

        rec = recommend(capacity=capacity, rtt=rtt, flows=flows, packet_size=packet_size,
                        input_capacity=input_capacity, gamma=gamma, inputs=inputs, mix=mix, short_flows=short_flows,
                        short_load=short_load, max_window=max_window, paced=paced,
                        target_utilization=target_utilization, max_loss=max_loss, max_delay=max_delay,
                        optimize_for=optimize_for)
        for line in rec.input.assumed:   # what was not given and taken from a default
            click.echo(f"bufsize: {line}", err=True)
        if plot_file:
            from bufsize.plots.recommend import plot_recommendation

            plot_recommendation(rec, plot_file)
        checked = None
        if verify:  # the logic lives in bufsize.experiments.verify
            from bufsize import units
            from bufsize.experiments.verify import verify as run_verify

            dur = None if verify_duration is None else units.parse_time(verify_duration, argument="--verify-duration")
            checked = run_verify(rec, seeds=verify_seeds, duration=dur)
        if as_json:
            if checked is None:
                click.echo(rec.to_json())
            else:
                import json

                click.echo(json.dumps({**rec.to_dict(), "verify": checked.to_dict()}, indent=2, ensure_ascii=False))
        else:
            _print_table(rec)
            if plot_file:
                click.echo(f"plot written to {plot_file}")
            if checked is not None:
                from bufsize.experiments.verify import text

                click.echo(text(checked, verify_seeds))
