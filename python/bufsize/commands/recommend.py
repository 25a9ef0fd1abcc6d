"""``bufsize recommend``: one command, every model, one buffer size with its reasons."""

from __future__ import annotations

import click

from bufsize import defaults as _defaults
from bufsize.commands._options import AUTO_BOOL, scheduler_option, workers_option
from bufsize.commands._aqm import aqm_option
from bufsize.commands._profile import with_profile
from bufsize.recommendation import DEFAULTS


def register(group: click.Group) -> None:
    @group.command("recommend")
    @click.option("--capacity", default=None, help="Bottleneck capacity C, e.g. 155Mbps, 10Gb/s (required with any other link flag).")
    @click.option("--rtt", default=None, help="Round-trip time: mean (80ms), range (20ms..140ms) or list (30ms,50ms) (required with any other link flag).")
    @click.option("--flows", default=None, help="Number of long-lived flows n (required unless --short-flows describes the traffic).")
    @click.option("--packet-size", default=None, help=f"Packet size on the wire [default {DEFAULTS['packet_size']}].")
    @click.option("--input-capacity", default=None, help="Capacity of each input/access link Cin (gives Γ = C/Cin).")
    @click.option("--gamma", default=None, help="Capacity ratio Γ = C/Cin (instead of --input-capacity).")
    @click.option("--inputs", default=None, help="Number of input links Nin feeding the port (000's EX form; default: one per flow).")
    @click.option("--cc", default=None, metavar="NAME",
                  help="One congestion control for every flow (reno, cubic, bbr, dctcp, ...), instead of --mix "
                       "[default: the models assume Reno; the verification simulates the profile's, CUBIC in linux].")
    @click.option("--mix", default=None, help="TCP mix, e.g. reno=0.2,bic=0.2,cubic=0.4,ctcp=0.2 or cubic=0.5,bbr=0.5 "
                                               "(fractions or flow counts; names: reno, newreno, cubic, cubic-0.8, bic, "
                                               "ctcp, bbr, dctcp).")
    @click.option("--short-flows", default=None, help="Short-flow length (14pkt, 45kB) or distribution (2pkt:0.3,14pkt:0.7).")
    @click.option("--short-load", default=None, help="Load of the short flows as a fraction of C (0.2 or 20%).")
    @click.option("--max-window", default=None, help="Maximum window Wmax (64pkt or 64KiB).")
    @click.option("--paced/--no-paced", default=False, show_default=True, help="Senders pace their packets (paper 002).")
    @click.option("--target-utilization", default=None, help=f"Utilization goal in (0, 1) [default {DEFAULTS['target_utilization']}].")
    @click.option("--max-loss", default=None, help="Loss-rate goal in (0, 1).")
    @click.option("--max-delay", default=None, help="Queueing-delay goal, e.g. 5ms.")
    @click.option("--optimize-for", default=None, help="Favour S (slow-start) or L (congestion-avoidance) flows' throughput (paper 000).")
    @click.option("--buffer", "buffer", default=None, metavar="SIZE",
                  help="The buffer you have (2MB, 1000pkt, 50ms): simulated beside the answer, with what it costs "
                       "or buys (queueing delay, utilization, loss, memory). Verifies.")
    @aqm_option("recommend")
    @click.option("--emit", type=click.Choice(["tc"]), default=None,
                  help="Print the configuration a Linux port takes for the answer (tc qdisc lines) after the report.")
    @click.option("--progress/--no-progress", default=None,
                  help="While verifying: the models' table first, then a line per size simulated (verdict, runs, "
                       "elapsed, time left) on stderr [default: when stderr is a terminal and not --json].")
    @click.option("--explain", "--models", "explain", is_flag=True,
                  help="Add each model's equation and why it applies or not, and the models' reasons.")
    @click.option("--json", "as_json", is_flag=True, help="Print the result as JSON (see README for the fields).")
    @click.option("--plot", "plot_file", default=None, type=click.Path(dir_okay=False), help="Draw the simulated utilization, loss and delay against B (when verified; else the models' curves) with every model's size marked, to FILE (PNG/PDF/SVG).")
    @click.option("--verify/--no-verify", type=AUTO_BOOL, default="auto", show_default=False,
                  help="Find the verified size on the simulator (the traffic as described) and judge every model's "
                       "size [default: when the estimated cost fits 30 s here; --no-verify: the models alone].")
    @click.option("--loss-detection", default=None, metavar="rack|dupack",
                  help="Loss detection of the simulated senders (verified answer): rack (RACK-TLP, as Linux) or "
                       f"dupack (duplicate ACKs, as ns-2/ns-3) [default: the profile's, {_defaults.LOSS_DETECTION} in linux].")
    @click.option("--max-delay-p99", default=None, metavar="TIME",
                  help="Goal for the 99th percentile of the queueing delay as simulated, e.g. 10ms (verified answer "
                       "only; --max-delay caps the full buffer's drain time C·λ instead).")
    @click.option("--max-fct", default=None, metavar="TIME",
                  help="Goal for the short flows' mean completion time, e.g. 200ms (verified answer only).")
    @workers_option("the verification")
    @scheduler_option("the verification", implies_executor=False)
    @click.option("--traffic", default=None, metavar="FILE", type=click.Path(dir_okay=False, allow_dash=True),
                  help="Your own traffic: a capture (pcap/pcapng), flow records or a saved profile gives the flows, "
                       "RTTs, packet size and short flows (docs/traffic.md).")
    @click.option("--scale-to", default=None, metavar="RATE",
                  help="With --traffic: size for the measured traffic grown to a link of this rate.")
    @with_profile
    def recommend_cmd(capacity, rtt, flows, packet_size, input_capacity, gamma, inputs, mix, short_flows, short_load,
                      max_window, paced, target_utilization, max_loss, max_delay, optimize_for, as_json, plot_file,
                      verify="auto", max_fct=None, workers=None, scheduler=None, traffic=None, scale_to=None,
                      loss_detection=None, cc=None, buffer=None, explain=False, max_delay_p99=None,
                      progress=None, aqm=None, emit=None):
        """Size a router buffer: the smallest size that meets the goals on the traffic described,
        verified on the simulator, beside every model of the five papers.

        With no link flag at all it sizes an example link (1 Gb/s, 100 flows, RTTs 10–50 ms:
        --capacity 1Gbps --rtt 10ms..50ms --flows 100); otherwise --capacity, --rtt and --flows (or
        --short-flows) must be given.
        """
        import sys

        from bufsize.errors import BufsizeError
        from bufsize.recommendation import attach_verification, recommend
        from bufsize.recommendation.display import report_text

        if loss_detection is not None:   # a bad value is an error before anything runs, verified or not
            from bufsize import defaults

            defaults.loss_detection(loss_detection)
        if verify is False:
            for value, flag, what in ((max_fct, "--max-fct", "a completion-time goal"),
                                      (max_delay_p99, "--max-delay-p99", "a p99 queueing-delay goal"),
                                      (aqm, "--aqm", "an AQM's settings and hard limit"),
                                      (buffer, "--buffer", "the buffer you have")):
                if value is not None:
                    raise BufsizeError(f"{what} is judged on the simulator only: drop --no-verify", argument=flag)
        rec = recommend(capacity=capacity, rtt=rtt, flows=flows, packet_size=packet_size,
                        input_capacity=input_capacity, gamma=gamma, inputs=inputs, mix=mix, cc=cc,
                        short_flows=short_flows, short_load=short_load, max_window=max_window, paced=paced,
                        target_utilization=target_utilization, max_loss=max_loss, max_delay=max_delay,
                        optimize_for=optimize_for, traffic=traffic, scale_to=scale_to)
        for line in rec.traffic_notes:   # what the capture or records gave (the warnings come with the answer)
            click.echo(f"bufsize: traffic: {line}", err=True)
        for line in rec.input.assumed:   # what was not given and taken from a default
            click.echo(f"bufsize: {line}", err=True)
        if verify is not False:
            interactive = (sys.stderr.isatty() and not as_json) if progress is None else progress
            say = (lambda t: click.echo(t, err=True)) if interactive else None
            try:
                attach_verification(rec, True if (verify is True or buffer is not None) else "auto", max_fct=max_fct,
                                    max_delay_p99=max_delay_p99, aqm=aqm,
                                    workers=workers, scheduler=scheduler, say=say, buffer=buffer,
                                    loss_detection=loss_detection)
            except KeyboardInterrupt as exc:
                # the verification says what it had decided and where its runs are kept
                click.echo(f"bufsize: {exc}" if str(exc) else "bufsize: interrupted", err=True)
                raise
        if plot_file:
            from bufsize.plots.recommend import plot_recommendation

            plot_recommendation(rec, plot_file)
        if as_json:
            click.echo(rec.to_json())
            return
        click.echo(report_text(rec, explain=explain))
        if emit == "tc":
            click.echo("\n" + "\n".join(rec.tc_commands()))
        if plot_file:
            click.echo(f"plot written to {plot_file}")
        else:
            click.echo("Figure: --plot FILE.png (utilization, loss and queueing delay against the buffer, "
                       "each model marked)")
