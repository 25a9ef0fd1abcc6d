"""The link flags shared by ``search`` and ``sweep``: the same description as ``recommend``'s.

``--capacity``, ``--rtt``, ``--flows``, ``--packet-size``, ``--mix``, ``--input-capacity`` /
``--gamma``, ``--inputs``, ``--short-flows`` with ``--short-load``, ``--max-window``, ``--paced``,
``--loss-detection`` describe the traffic exactly as ``bufsize recommend`` reads them; the scenario is built by
:func:`bufsize.recommendation.scenario.scenario_from_input`, the one translation from a description to the
simulator (so what runs is what ``recommend`` sized). They replace a SCENARIO_FILE, never add to it.
"""

from __future__ import annotations

from typing import Any, Callable

import click

from bufsize import defaults as _defaults
from bufsize.errors import BufsizeError

#: (option name, parse_input keyword, help) of the shared link flags, in the order shown by --help
_FLAGS: tuple[tuple[str, str, str], ...] = (
    ("--capacity", "capacity", "Bottleneck capacity, e.g. 1Gbps (instead of SCENARIO_FILE)."),
    ("--rtt", "rtt", "Two-way propagation delay: 40ms, 10ms..80ms (uniform) or 20ms,80ms."),
    ("--flows", "flows", "Number of long-lived flows."),
    ("--packet-size", "packet_size", "Packet size on the wire [default 1500B, as recommend]."),
    ("--mix", "mix", "TCP mix, e.g. reno=0.2,cubic=0.8 (fractions or flow counts)."),
    ("--input-capacity", "input_capacity", "Each flow's access link rate (Γ = capacity / input capacity)."),
    ("--gamma", "gamma", "Γ = capacity / input capacity (instead of --input-capacity)."),
    ("--inputs", "inputs", "Number of input links (recommend's 000 EX form; the dumbbell gives one per flow)."),
    ("--short-flows", "short_flows", "Short-flow length (14pkt) or distribution (2pkt:0.3,14pkt:0.7)."),
    ("--short-load", "short_load", "Load of the short flows as a fraction of the capacity."),
    ("--max-window", "max_window", "Window cap (64pkt or 64KiB)."),
)


def link_options(with_buffer: bool = False) -> Callable:
    """Decorator adding the link flags (and ``--duration``/``--warmup``, and ``--buffer`` if asked)."""

    def deco(f):
        opts = [click.option("--paced/--no-paced", "link_paced", default=False, help="Senders pace their packets."),
                click.option("--loss-detection", "link_loss_detection", metavar="rack|dupack",
                             help="Loss detection of the senders with the link flags: rack (RACK-TLP, as Linux) or "
                                  f"dupack (duplicate ACKs, as ns-2/ns-3) [default: the profile's, {_defaults.LOSS_DETECTION} in linux]."),
                click.option("--duration", "link_duration", metavar="TIME",
                             help="Simulated time of each run with the link flags [default 60s]."),
                click.option("--warmup", "link_warmup", metavar="TIME",
                             help="Measurements start after this, with the link flags [default 10s].")]
        if with_buffer:
            opts.append(click.option("--buffer", "link_buffer", metavar="SIZE",
                                     help="Bottleneck buffer with the link flags (52pkt, 416.67pkt rounds to the "
                                          "nearest packet, 64KiB, 10ms, 0.5bdp) [default unlimited]."))
        for name, key, text in reversed(_FLAGS):
            opts.append(click.option(name, "link_" + key, metavar="VALUE", default=None, help=text))
        for o in opts:
            f = o(f)
        return f

    return deco


def pop_link(kwargs: dict[str, Any]) -> dict[str, Any]:
    """Take the ``link_*`` values out of a command's keyword arguments."""
    return {k[len("link_"):]: kwargs.pop(k) for k in [k for k in kwargs if k.startswith("link_")]}


def _given(link: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in link.items() if v is not None and not (k == "paced" and v is False)}


def scenario_or_file(scenario_file: str | None, link: dict[str, Any]) -> Any:
    """SCENARIO_FILE as given, or the scenario the link flags describe (a dict); one of the two."""
    given = _given(link)
    if scenario_file is not None:
        if given:
            name = next(iter(given))
            raise BufsizeError("cannot be combined with SCENARIO_FILE (edit the file, or leave the file out)",
                               argument="--" + name.replace("_", "-"))
        return scenario_file
    if not given:
        raise BufsizeError("give a SCENARIO_FILE, or describe the link with --capacity, --rtt and --flows",
                           argument="SCENARIO_FILE")
    from bufsize.recommendation import scenario as describe

    run = {k: given.pop(k) for k in ("duration", "warmup", "buffer", "loss_detection") if k in given}
    given_ld = run.get("loss_detection")
    loss_detection = None if given_ld is None else _defaults.loss_detection(given_ld)   # None: the profile's
    inp = describe.input_from_flags(**given)
    for line in inp.assumed:
        if "packets" in line:   # the goals' defaults do not concern a simulation
            click.echo(f"bufsize: {line}", err=True)
    for note in describe.unsimulated(inp):
        click.echo(f"bufsize: note: {note}", err=True)
    buffer = run.get("buffer")
    with _defaults.using_loss_detection(loss_detection):
        return describe.scenario_from_input(inp, buffer=buffer, duration=run.get("duration"),
                                            warmup=run.get("warmup"))
