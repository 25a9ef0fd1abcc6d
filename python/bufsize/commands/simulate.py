"""``bufsize simulate``: run the packet-level simulator on a scenario file or a dumbbell given by flags."""

from __future__ import annotations

import json
import re

import click

from bufsize import defaults as _defaults
from bufsize import profiles as _profiles
from bufsize._atomic import check_out_dir
from bufsize.commands._aqm import aqm_option
from bufsize.commands._profile import with_profile
from bufsize.errors import BufsizeError, ScenarioError
from bufsize.scenario._fields import CONGESTION_CONTROLS, discipline_buffer

# flag form: option name -> Scenario.dumbbell keyword, and the scenario field it fills (to turn a
# field name in an error message back into the flag the user typed)
_DUMBBELL_FLAGS = {
    "capacity": ("capacity", "dumbbell.capacity_bps"),
    "flows": ("flows", "dumbbell.flows"),
    "rtt": ("rtt", "dumbbell.rtt_s"),
    "buffer": ("buffer", "dumbbell.buffer"),
    "packet_size": ("packet_size", "dumbbell.tcp.packet_bytes"),
    "header_size": ("header_size", "dumbbell.tcp.header_bytes"),
    "cc": ("cc", "dumbbell.tcp.cc"),
    "sack": ("sack", "dumbbell.tcp.sack"),
    "access_capacity": ("access_capacity", "dumbbell.access_rate_bps"),
    "access_buffer": ("access_buffer", "dumbbell.access_queue"),
    "bottleneck_delay": ("bottleneck_delay", "dumbbell.bottleneck_delay_s"),
    "start": ("start", "dumbbell.start_s"),
    "max_window": ("max_window", "dumbbell.tcp.max_window_packets"),
    "initial_window": ("initial_window", "dumbbell.tcp.initial_window"),
    "min_rto": ("min_rto", "dumbbell.tcp.min_rto_s"),
    "delayed_ack": ("delayed_ack", "dumbbell.tcp.delayed_ack"),
    "ecn": ("ecn", "dumbbell.tcp.ecn"),
    "host_jitter": ("host_jitter", "dumbbell.tcp.host_jitter_s"),
    # no Scenario.dumbbell keyword: passed in its ``tcp`` table
    "loss_detection": ("loss_detection", "dumbbell.tcp.loss_detection"),
}
_TOP_FLAGS = {"duration": "duration_s", "warmup": "warmup_s", "seed": "seed"}
#: The default profile's stack, for the help texts
_LINUX = _profiles.PROFILES[_profiles.DEFAULT].tcp


def _flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def _field_to_flag(message: str) -> str:
    """``dumbbell.capacity_bps: ...`` -> ``--capacity: ...`` for errors in the flag form."""
    table = {field: _flag(opt) for opt, (_, field) in _DUMBBELL_FLAGS.items()}
    table.update({field: _flag(opt) for opt, field in _TOP_FLAGS.items()})
    table["measure.queue_trace_interval_s"] = "--queue-trace"
    table["measure.cwnd_trace_flows"] = "--trace-cwnd"
    for field in sorted(table, key=len, reverse=True):
        if message.startswith((field + ":", field + ".", field + "[")):
            return table[field] + message[len(field):]
    return message


def _trace_ids(text: str | None, argument: str = "--trace-cwnd") -> list[int] | None:
    if text is None:
        return None
    ids = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if not re.fullmatch(r"\d+", part):
            raise BufsizeError(f"expected flow ids such as 0,1,2, got {text!r}", argument=argument)
        ids.append(int(part))
    return ids


#: The engine's congestion controls, in its registry's order (``crates/sim/src/tcp/cc.rs``). Kept
#: here so that ``--help`` does not load the engine; tests/sim/test_cc_help.py checks it against
#: ``bufsize._engine.congestion_controls()`` so the two cannot drift apart.
# --help must not load the engine: the scenario module's copy of its registry (a test checks it).
CC_NAMES: tuple[str, ...] = CONGESTION_CONTROLS


def _cc_help() -> str:
    return f"Congestion control [default: the profile's, {_LINUX['cc']} in linux]: " + ", ".join(CC_NAMES) + " (docs/congestion_control.md)."


def register(group: click.Group) -> None:
    @group.command("simulate")
    @click.argument("scenario_file", required=False, type=click.Path(dir_okay=False))
    @click.option("--capacity", metavar="RATE", help="Bottleneck rate, e.g. 155Mbps.")
    @click.option("--flows", metavar="N", help="Number of long-lived flows.")
    @click.option("--rtt", metavar="TIMES", help="Two-way propagation delay: 80ms, 20ms..140ms (uniform) or 20ms,80ms,140ms.")
    @click.option("--buffer", metavar="SIZE",
                  help="Bottleneck buffer: 52pkt, 64KiB, 10ms, 0.5bdp, bdp/sqrt(n), 2bdp/sqrt(n), unlimited. "
                       "Packets are whole: 416.67pkt (a size from recommend) rounds to the nearest, halves up.")
    @click.option("--duration", metavar="TIME", help="Simulated time [default 60s].")
    @click.option("--warmup", metavar="TIME", help="Measurements start after this [default 10s].")
    @click.option("--seed", metavar="N", help="Random seed [default 1].")
    @click.option("--packet-size", metavar="SIZE",
                  help=f"Data packet size on the wire [default: the profile's, {_defaults.packet_size_text()} in linux].")
    @click.option("--header-size", metavar="SIZE", help=f"Header part of a packet [default: the profile's, {_LINUX['header_bytes']}B in linux].")
    @click.option("--cc", metavar="NAME", help=_cc_help())
    @click.option("--mix", metavar="MIX",
                  help="Flows per congestion control, as recommend takes it: cubic=0.5,bbr=0.5 (fractions) or "
                       "reno=10,cubic=20 (counts); instead of --cc.")
    @click.option("--sack/--no-sack", default=None,
                  help="SACK loss recovery (RFC 6675, with PRR as Linux) [default: the profile's, "
                       f"{'on' if _LINUX['sack'] else 'off'} in linux].")
    @click.option("--access-capacity", metavar="RATE", help="Per-flow access link rate [default 10 x capacity].")
    @click.option("--access-buffer", metavar="SIZE", help="Per-flow access link buffer [default unlimited].")
    @click.option("--bottleneck-delay", metavar="TIME", help="One-way delay of the shared links [default 0].")
    @click.option("--start", metavar="TIMES", help="Start times of the flows [default 0s..1s].")
    @click.option("--max-window", metavar="PKTS", help="Window cap Wmax: 100pkt or a socket buffer such as 64KiB.")
    @click.option("--initial-window", metavar="PKTS", help=f"Initial window in segments [default: the profile's, {_LINUX['initial_window']} in linux].")
    @click.option("--min-rto", metavar="TIME", help=f"Minimum RTO [default: the profile's, {_LINUX['min_rto_s'] * 1e3:g}ms in linux].")
    @click.option("--delayed-ack/--no-delayed-ack", default=None, help="Delayed ACKs [default: the profile's, "
                       f"{'on' if _LINUX['delayed_ack'] else 'off'} ({_LINUX['delayed_ack_timeout_s'] * 1e3:g} ms) in linux].")
    @click.option("--ecn/--no-ecn", default=None,
                  help="ECN (RFC 3168): the senders mark their data ECN-capable and halve on an echoed mark "
                       "once per window, and with --aqm the discipline marks instead of dropping them [default: "
                       f"the profile's, {'on' if _LINUX['ecn'] else 'off'} in linux; dctcp always uses it].")
    @click.option("--host-jitter", metavar="TIME",
                  help="Largest random delay of a packet at its host (interrupt coalescing, scheduling), so that "
                       "flows of one RTT do not lock their phases; 0 is the engine's deterministic timing "
                       f"[default: the profile's, {_LINUX['host_jitter_s'] * 1e6:g}us in linux, "
                       f"{_profiles.PROFILES['ns2'].tcp['host_jitter_s'] * 1e6:g}us in ns2, 0 in ns3].")
    @click.option("--loss-detection", metavar="rack|dupack",
                  help=f"Loss detection: rack (RACK-TLP, RFC 8985, as Linux; needs SACK) or dupack (duplicate "
                       f"ACKs / SACKed segments, as ns-2/ns-3) [default: the profile's, {_defaults.LOSS_DETECTION} in linux].")
    @click.option("--queue-trace", metavar="TIME", help="Sample the bottleneck queue every TIME (e.g. 10ms).")
    @click.option("--trace-cwnd", metavar="IDS", help="Trace the cwnd of these flows (e.g. 0,1,2).")
    @click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
    @click.option("--out", metavar="DIR", type=click.Path(file_okay=False), help="Write the tables and summary.json to DIR.")
    @click.option("--format", "table_format", type=click.Choice(["parquet", "csv"]), default="parquet",
                  show_default=True, help="Table format for --out.")
    @click.option("--plot", metavar="FILE", type=click.Path(dir_okay=False),
                  help="Save a figure of the queue and cwnd traces (PNG, PDF or SVG by suffix).")
    @click.option("--progress/--no-progress", default=None,
                  help="Progress bar on stderr [default: when stderr is a terminal and the run is long].")
    @click.option("--show-scenario", is_flag=True, help="Print the scenario in the engine's SI form and exit.")
    @click.option("--allow-over-memory", is_flag=True,
                  help="Run even when the estimated memory exceeds this machine's (or $BUFSIZE_MEMORY_LIMIT).")
    @aqm_option("simulate")
    @click.option("--traffic", metavar="FILE", type=click.Path(dir_okay=False, allow_dash=True),
                  help="Your own traffic: a capture (pcap/pcapng, .gz, - for standard input), flow records or a saved "
                       "profile; give --buffer; --cc/--mix set its congestion control (docs/traffic.md).")
    @click.option("--scale-to", metavar="RATE", help="With --traffic: the measured traffic grown to a link of this rate.")
    @with_profile
    def simulate_cmd(scenario_file, as_json, out, table_format, plot, progress, show_scenario, queue_trace,
                     trace_cwnd, allow_over_memory, traffic, scale_to, aqm=None, **opts):
        """Run the packet-level simulator.

        Give a SCENARIO_FILE (TOML or JSON, see docs/simulate.md), or a dumbbell with flags:

          bufsize simulate --capacity 155Mbps --flows 400 --rtt 20ms..140ms --buffer 52pkt
        """
        from bufsize.scenario import Scenario

        top = {key: opts.pop(key) for key in _TOP_FLAGS}
        trace_ids = _trace_ids(trace_cwnd)
        given = {k: v for k, v in opts.items() if v is not None}
        if scale_to is not None and traffic is None:
            raise BufsizeError("scales measured traffic: give --traffic FILE", argument="--scale-to")
        if traffic is not None:
            from bufsize.traffic import scenario_for_simulate

            sc, notes = scenario_for_simulate(traffic, given=given, top=top, scale_to=scale_to,
                                              scenario_file=scenario_file, queue_trace=queue_trace,
                                              trace_ids=trace_ids, progress=progress)
            for n in notes:
                click.echo(f"traffic: {n}", err=True)
        elif scenario_file is not None:
            if given:
                name = next(iter(given))
                raise BufsizeError("cannot be combined with SCENARIO_FILE (edit the file, or leave the file out)",
                                   argument=_flag(name))
            sc = Scenario.from_file(scenario_file)
            if _profiles.chosen() is not None and sc.profile != _profiles.chosen():
                raise BufsizeError(f"the scenario file names profile {sc.profile!r} (edit the file, or leave "
                                   "--profile out)", argument="--profile")
            changes = {_TOP_FLAGS[k]: v for k, v in top.items() if v is not None}
            measure = sc.to_dict()["measure"]
            if queue_trace is not None:
                measure["queue_trace_interval_s"] = queue_trace
            if trace_ids is not None:
                measure["cwnd_trace_flows"] = trace_ids
            changes["measure"] = measure
            try:
                sc = sc.replace(**changes)
            except BufsizeError as exc:
                raise ScenarioError(_field_to_flag(str(exc))) from None
        else:
            for required in ("capacity", "flows", "rtt", "buffer"):
                if required not in given and not (required == "buffer" and aqm is not None):
                    raise BufsizeError("missing: give a SCENARIO_FILE, or --capacity, --flows, --rtt and --buffer",
                                       argument=_flag(required))
            # every detail not given is the profile's (--profile, default linux)
            loss_detection = given.pop("loss_detection", None)
            mix = given.pop("mix", None)
            kwargs = {_DUMBBELL_FLAGS[k][0]: v for k, v in given.items()}
            if aqm is not None:   # the discipline, with --buffer as its hard limit (else its default one)
                kwargs["buffer"] = discipline_buffer(aqm, given.get("buffer"), given.get("ecn"))
            if loss_detection is not None:
                kwargs["tcp"] = {"loss_detection": _defaults.loss_detection(loss_detection)}
            if mix is not None:
                if "cc" in given:
                    raise BufsizeError("give one congestion control (--cc) or a mix (--mix), not both", argument="--mix")
                from bufsize.recommendation.scenario import mix_classes

                kwargs["mix"] = mix_classes(mix, given["flows"])
            for key, field in (("duration", "duration"), ("warmup", "warmup"), ("seed", "seed")):
                if top[key] is not None:
                    kwargs[field] = top[key]
            if queue_trace is not None:
                kwargs["queue_trace_interval"] = queue_trace
            if trace_ids is not None:
                kwargs["cwnd_trace_flows"] = trace_ids
            try:
                sc = Scenario.dumbbell(**kwargs)
            except BufsizeError as exc:
                raise ScenarioError(_field_to_flag(str(exc))) from None

        if plot is not None:
            from bufsize.plots.simulation import check_plot_path, with_traces

            check_plot_path(plot)
            sc = with_traces(sc)
        if show_scenario:
            from bufsize import _engine
            from bufsize.cost import check_fits, estimate

            # building the engine holds every flow's state: not for a run that would not fit
            check_fits(estimate(sc), allow_over_memory=allow_over_memory)
            try:  # let the engine check it too (expansion only, nothing runs)
                _engine.Simulation(sc.to_json())
            except ValueError as exc:
                raise ScenarioError(_field_to_flag(str(exc)) if scenario_file is None else str(exc)) from None
            except _engine.EngineError as exc:
                raise BufsizeError(str(exc)) from None
            click.echo(sc.to_json(indent=2))
            return

        from bufsize.simulate import json_safe, simulate, summary_text

        if out is not None:   # the destination is checked before the run, not after it
            check_out_dir(out)
        try:
            result = simulate(sc, progress=progress, allow_over_memory=allow_over_memory)
        except ScenarioError as exc:  # the engine's own checks, "field: reason"
            raise ScenarioError(_field_to_flag(str(exc)) if scenario_file is None else str(exc)) from None
        except KeyboardInterrupt:
            # stopped between two chunks: nothing has been written yet
            click.echo("bufsize: interrupted", err=True)
            raise click.exceptions.Exit(130) from None
        if out is not None:
            result.to_dir(out, format=table_format)
        if plot is not None:
            from bufsize.plots.simulation import plot_simulation

            plot_simulation(result, plot)
        if as_json:
            click.echo(json.dumps(json_safe(result.summary), indent=2))
        else:
            click.echo(summary_text(result))
            if out is not None:
                click.echo(f"tables        written to {out}/ ({table_format})")
            if plot is not None:
                click.echo(f"figure        written to {plot}")
        if not result.summary.get("conservation_ok", True):
            click.echo("bufsize: warning: the packet-conservation check failed (an engine bug; please report it)",
                       err=True)
