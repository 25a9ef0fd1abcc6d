"""The Python API: the command-line tools as functions with the same keywords.

Every function here takes the keywords its command takes, spelled as the flags are without the
dashes (``--max-delay 5ms`` is ``max_delay="5ms"``), and numbers or unit strings alike
(``capacity="155Mbps"`` or ``capacity=155e6``; times as numbers are seconds). A range of RTTs is
``rtt="20ms..140ms"`` or a tuple of seconds ``rtt=(0.02, 0.14)``; a list ``[0.03, 0.05]`` is a
list of RTTs.

The simulation tools take a scenario in any of three forms: a
:class:`~bufsize.scenario.Scenario`, a mapping in the scenario schema, or a TOML/JSON file path;
or, in its place, the dumbbell's keywords (``capacity``, ``flows``, ``rtt``, ``buffer``, ...).

Errors are :class:`~bufsize.errors.BufsizeError` (a ``ValueError``) with one line naming the
keyword, never a command-line flag; an unknown keyword lists the valid ones and the closest match.

This module is what ``bufsize.recommend``, ``bufsize.simulate``, ``bufsize.sweep``,
``bufsize.search_min_buffer``, ``bufsize.fit_sweep`` and ``bufsize.reproduce`` call.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, ParamSpec, TypeVar, Union

from bufsize import profiles as _profiles
from bufsize.errors import BufsizeError, ScenarioError

if TYPE_CHECKING:
    import pandas as pd

    from bufsize.experiments.fit import FitResult
    from bufsize.experiments.search import SearchResult
    from bufsize.recommendation import Recommendation
    from bufsize.scenario import Scenario
    from bufsize.simulate import SimResult

__all__ = ["recommend", "simulate", "sweep", "search_min_buffer", "search_optimal_buffer", "fit_sweep", "reproduce",
           "scenario", "compare", "testbed_run", "testbed_check", "transfer_client", "transfer_server"]

#: A quantity as a user gives it: a unit string (``"155Mbps"``, ``"80ms"``) or an SI number.
Quantity = Union[str, float, int]
#: RTTs: one time, a range ``"20ms..140ms"`` or ``(low, high)`` in seconds, or a list of times.
RTTs = Union[str, float, int, tuple[Quantity, Quantity], Sequence[Quantity]]
#: A scenario: a Scenario, a mapping in the scenario schema or a TOML/JSON file path.
ScenarioLike = Union["Scenario", Mapping[str, Any], str, os.PathLike[str]]

P = ParamSpec("P")
R = TypeVar("R")


# ------------------------------------------------------------------------------------- plumbing

def _keywords(func: Callable[P, R]) -> Callable[P, R]:
    """Check keyword names before the call (one-line BufsizeError with a did-you-mean) and word
    every BufsizeError for a Python caller (keywords, not flags)."""
    sig = inspect.signature(func)
    names = [n for n, p in sig.parameters.items() if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)]
    positional = sum(1 for p in sig.parameters.values()
                     if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD))

    @functools.wraps(func)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        for key in kwargs:
            if key not in names:
                raise BufsizeError(_unknown(key, names), argument=key)
        if len(args) > positional:
            raise BufsizeError(f"{func.__name__}() takes {positional} positional argument"
                               f"{'s' if positional != 1 else ''}; give the rest as keywords "
                               f"({', '.join(names)})")
        try:
            return func(*args, **kwargs)
        except BufsizeError as exc:
            raise exc.for_python(_RENAME) from None

    return wrapper


def _unknown(key: str, names: Sequence[str]) -> str:
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"unknown keyword; {hint}valid: {', '.join(names)}"


# scenario fields and CLI metavars -> the keyword a Python caller used
_RENAME: dict[str, str] = {
    "dumbbell.capacity_bps": "capacity", "dumbbell.flows": "flows", "dumbbell.rtt_s": "rtt",
    "dumbbell.buffer": "buffer", "dumbbell.tcp.packet_bytes": "packet_size",
    "dumbbell.tcp.header_bytes": "header_size", "dumbbell.tcp.cc": "cc", "dumbbell.tcp.sack": "sack",
    "dumbbell.access_rate_bps": "access_capacity", "dumbbell.access_queue": "access_buffer",
    "dumbbell.bottleneck_delay_s": "bottleneck_delay", "dumbbell.start_s": "start",
    "dumbbell.tcp.max_window_packets": "max_window", "dumbbell.tcp.initial_window": "initial_window",
    "dumbbell.tcp.min_rto_s": "min_rto", "dumbbell.tcp.delayed_ack": "delayed_ack", "dumbbell.tcp.ecn": "ecn",
    "dumbbell.tcp.host_jitter_s": "host_jitter",
    "duration_s": "duration", "warmup_s": "warmup", "measure.queue_trace_interval_s": "queue_trace",
    "measure.cwnd_trace_flows": "trace_cwnd", "DIR": "table", "ID": "ids", "SCENARIO_FILE": "scenario",
}


def _time_text(value: Quantity, argument: str = "rtt") -> str:
    """A time as unit text: numbers are seconds."""
    if isinstance(value, bool):
        raise BufsizeError(f"expected a time, got {value!r}", argument=argument)
    if isinstance(value, (int, float)):
        return f"{float(value)!r}s"
    if isinstance(value, str):
        return value
    raise BufsizeError(f"expected a time such as '80ms' or seconds, got {type(value).__name__}", argument=argument)


def rtt_text(rtt: RTTs) -> str | float | int:
    """RTTs in the text form the tools parse: a ``(low, high)`` tuple becomes ``"low..high"``, a
    list ``"a,b,c"`` (numbers are seconds); a string or a number is passed on as it is."""
    if isinstance(rtt, (str, int, float)) and not isinstance(rtt, bool):
        return rtt
    if isinstance(rtt, tuple):
        if len(rtt) != 2:
            raise BufsizeError(f"a tuple is a range (low, high) in seconds; got {len(rtt)} values "
                               "(use a list for a list of RTTs)", argument="rtt")
        return f"{_time_text(rtt[0])}..{_time_text(rtt[1])}"
    if isinstance(rtt, Sequence):
        if not rtt:
            raise BufsizeError("empty list of RTTs", argument="rtt")
        return ",".join(_time_text(v) for v in rtt)
    raise BufsizeError(f"expected '80ms', '20ms..140ms', (0.02, 0.14) or a list, got {type(rtt).__name__}",
                       argument="rtt")


def _seconds(value: Quantity | None, argument: str) -> float | None:
    if value is None:
        return None
    from bufsize import units

    return units.parse_time(value, argument=argument)


_DUMBBELL_KEYS = ("capacity", "flows", "rtt", "buffer", "packet_size", "header_size", "cc", "sack",
                  "access_capacity", "access_buffer", "bottleneck_delay", "start", "max_window",
                  "initial_window", "min_rto", "delayed_ack", "profile", "ecn", "host_jitter")


def scenario(scenario: ScenarioLike | None = None, /, *, capacity: Quantity | None = None,
             flows: int | str | None = None, rtt: RTTs | None = None, buffer: Quantity | None = None,
             duration: Quantity | None = None, warmup: Quantity | None = None, seed: int | str | None = None,
             packet_size: Quantity | None = None, header_size: Quantity | None = None, cc: str | None = None,
             sack: bool | None = None, access_capacity: Quantity | None = None,
             access_buffer: Quantity | None = None, bottleneck_delay: Quantity | None = None,
             start: RTTs | None = None, max_window: Quantity | None = None,
             initial_window: int | str | None = None, min_rto: Quantity | None = None,
             delayed_ack: bool | None = None, profile: str | None = None, queue_trace: Quantity | None = None,
             trace_cwnd: Sequence[int] | str | None = None, ecn: bool | None = None,
             host_jitter: Quantity | None = None) -> Scenario:
    """A :class:`~bufsize.scenario.Scenario` from a scenario (any form) or the dumbbell keywords.

    With ``scenario`` given, only ``duration``, ``warmup``, ``seed``, ``queue_trace`` and
    ``trace_cwnd`` may be added (they replace the scenario's values); without it, ``capacity``,
    ``flows``, ``rtt`` and ``buffer`` are required (as for ``bufsize simulate`` with flags).
    A bare number as ``buffer`` is a count of packets (see docs/units.md).
    """
    return _scenario(scenario, **{k: v for k, v in locals().items() if k != "scenario"})


def _traffic_scenario(scenario: Any, traffic: Any, scale_to: Any, *, others: Mapping[str, Any],
                      **kw: Any) -> Scenario:
    """``simulate(traffic=...)``: the scenario :mod:`bufsize.traffic` builds from the user's traffic."""
    from bufsize.traffic import scenario_for_simulate

    if traffic is None:
        raise BufsizeError("scales measured traffic: give traffic=FILE", argument="scale_to")
    if scenario is not None:
        raise BufsizeError("cannot be combined with a scenario", argument="traffic")
    extra = [k for k, v in others.items() if v is not None]
    if extra:
        raise BufsizeError("cannot be combined with traffic= (the traffic comes from the file)", argument=extra[0])
    given = {k: kw[k] for k in ("capacity", "buffer", "cc", "mix", "rtt") if kw.get(k) is not None}
    if "rtt" in given:
        given["rtt"] = rtt_text(given["rtt"])
    top = {k: kw.get(k) for k in ("duration", "warmup", "seed")}
    sc, _notes = scenario_for_simulate(os.fspath(traffic), given=given, top=top, scale_to=scale_to,
                                       queue_trace=kw.get("queue_trace"),
                                       trace_ids=_trace_list(kw.get("trace_cwnd")),
                                       progress=kw.get("progress"))
    out: Scenario = sc
    return out


def _trace_list(ids: Sequence[int] | str | None) -> list[int] | None:
    """``trace_cwnd``: a list of flow ids, or ``"0,1,2"`` as ``--trace-cwnd`` takes it."""
    if isinstance(ids, str):
        from bufsize.commands.simulate import _trace_ids

        return _trace_ids(ids, "trace_cwnd")
    return None if ids is None else list(ids)


def _scenario(sc: Any, **kw: Any) -> Scenario:
    from bufsize.scenario import Scenario

    given = {k: v for k, v in kw.items() if v is not None}
    mix = given.pop("mix", None)
    if mix is not None:
        if "cc" in given:
            raise BufsizeError("give one congestion control (cc) or a mix (mix), not both", argument="mix")
        if sc is None:
            from bufsize.recommendation.scenario import mix_classes

            if "flows" not in given:
                raise ScenarioError("missing: give a scenario, or capacity, flows, rtt and buffer", argument="flows")
            given["mix"] = mix_classes(mix, given["flows"], argument="mix")
        else:
            given["mix"] = mix   # refused below with the other dumbbell keywords
    if given.get("loss_detection") is not None:
        from bufsize import defaults as _defaults

        given["loss_detection"] = _defaults.loss_detection(given["loss_detection"], argument="loss_detection")
    if "rtt" in given:
        given["rtt"] = rtt_text(given["rtt"])
    if "start" in given and isinstance(given["start"], (tuple, list)):
        given["start"] = rtt_text(given["start"])
    top = {k: given.pop(k) for k in ("duration", "warmup", "seed") if k in given}
    profile = given.pop("profile", None)
    qt = given.pop("queue_trace", None)
    tc = _trace_list(given.pop("trace_cwnd", None))
    if sc is not None:
        if given:
            raise ScenarioError("cannot be combined with a scenario (change the scenario, or leave it out)",
                                argument=next(iter(given)))
        if isinstance(sc, Scenario):
            base = sc
        elif isinstance(sc, Mapping):
            base = Scenario.from_dict(sc)
        elif isinstance(sc, (str, os.PathLike)):
            base = Scenario.from_file(os.fspath(sc))
        else:
            raise ScenarioError(f"expected a Scenario, a dict or a file path, got {type(sc).__name__}",
                                argument="scenario")
        if profile is not None and base.profile != _profiles.name(profile, "profile"):
            raise ScenarioError(f"the scenario's profile is {base.profile!r} (change the scenario, or leave "
                                "profile out)", argument="profile")
        changes: dict[str, Any] = {f"{k}_s" if k != "seed" else k: v for k, v in top.items()}
        if qt is not None or tc is not None:
            measure = base.to_dict()["measure"]
            if qt is not None:
                measure["queue_trace_interval_s"] = qt
            if tc is not None:
                measure["cwnd_trace_flows"] = list(tc)
            changes["measure"] = measure
        return base.replace(**changes) if changes else base
    missing = [k for k in ("capacity", "flows", "rtt", "buffer") if k not in given]
    if missing:
        raise ScenarioError("missing: give a scenario, or capacity, flows, rtt and buffer", argument=missing[0])
    if qt is not None:
        given["queue_trace_interval"] = qt
    if tc is not None:
        given["cwnd_trace_flows"] = list(tc)
    return Scenario.dumbbell(**given, **top, profile=profile)



# ------------------------------------------------------------------------------------- the link keywords

#: ``sweep`` and ``search``'s description of a link, the same keywords (and meanings) as
#: :func:`recommend`'s; the scenario is built as the command's link flags build it.
_LINK_KEYWORDS = ("capacity", "rtt", "flows", "packet_size", "mix", "input_capacity", "gamma", "inputs",
                  "short_flows", "short_load", "max_window", "paced", "loss_detection", "duration", "warmup",
                  "buffer")


def _link_keywords(values: Mapping[str, Any]) -> dict[str, Any]:
    """The link keywords among a function's arguments (``locals()``)."""
    return {k: values[k] for k in _LINK_KEYWORDS if k in values}


def _range_packets(sc: Any, range_: str | tuple[float, float]) -> tuple[int | None, int | None]:
    """``range=`` (``"LO..HI"`` in packets or BDPs, or a tuple of packets) as packets of ``sc``."""
    from bufsize.commands.search import _parse_range
    from bufsize.experiments.sweep import _describe
    from bufsize.scenario import Scenario as _Sc

    text = f"{range_[0]}..{range_[1]}" if isinstance(range_, tuple) else str(range_)
    bdp = None
    if "bdp" in text.lower():
        raw = sc.to_dict() if isinstance(sc, _Sc) else sc
        bdp = _describe(_Sc.from_dict(raw)).get("bdp_packets")
    return _parse_range(text, bdp)


def _link_or_scenario(scenario: ScenarioLike | None, dumbbell: Mapping[str, Any] | None,
                      link: Mapping[str, Any]) -> Any:
    """The scenario given, or the one the link keywords describe (never both)."""
    given = {k: v for k, v in link.items() if v is not None and not (k == "paced" and v is False)}
    if not given:
        return _scenario(scenario, **dict(dumbbell or {}))
    if scenario is not None or dumbbell:
        raise BufsizeError("cannot be combined with a scenario or dumbbell= (describe the link one way)",
                           argument=next(iter(given)))
    from bufsize.commands._link import scenario_or_file

    if "rtt" in given:
        given["rtt"] = rtt_text(given["rtt"])
    for k in ("duration", "warmup"):
        if k in given:
            given[k] = _time_text(given[k])
    return scenario_or_file(None, given)


def _max_time(max_time: Quantity | None) -> float | None:
    """``max_time``: seconds, a duration (``"24h"``), or None / ``"none"`` for no limit."""
    if max_time is None or str(max_time).strip().lower() in ("none", "inf", "unlimited"):
        return None
    return _seconds(max_time, "max_time")

# ------------------------------------------------------------------------------------- recommend

def _progress_lines(progress: bool | Callable[[str], None] | None) -> Callable[[str], None] | None:
    """Where progress lines go: a function given, stderr (``True``, or ``None`` in a terminal or a
    Jupyter kernel), or nowhere."""
    import sys

    from bufsize.recommendation.progress import in_notebook

    if callable(progress):
        return progress
    if progress is None:
        progress = sys.stderr.isatty() or in_notebook()
    if not progress:
        return None
    return lambda line: print(line, file=sys.stderr, flush=True)


@_keywords
def recommend(*, capacity: Quantity | None = None, rtt: RTTs | None = None, flows: int | str | None = None,
              packet_size: Quantity | None = None, input_capacity: Quantity | None = None,
              gamma: float | str | None = None, inputs: int | str | None = None,
              mix: str | Mapping[str, float] | None = None, short_flows: str | None = None,
              short_load: float | str | None = None, max_window: Quantity | None = None, paced: bool = False,
              target_utilization: float | str | None = None, max_loss: float | str | None = None,
              max_delay: Quantity | None = None, optimize_for: Literal["S", "L"] | str | None = None,
              verify: bool | Literal["auto"] = "auto", max_fct: Quantity | None = None,
              workers: int | None = None, scheduler: str | None = None, profile: str | None = None,
              cc: str | None = None, buffer: Quantity | None = None, loss_detection: str | None = None,
              max_delay_p99: Quantity | None = None, traffic: str | os.PathLike[str] | None = None,
              scale_to: Quantity | None = None,
              progress: bool | Callable[[str], None] | None = None, aqm: str | None = None) -> Recommendation:
    """Every analytic model of the five papers for one link, side by side, and one buffer size.

    The keywords are ``bufsize recommend``'s flags (docs/recommend.md explains the choice).
    With no link keyword at all the link is the example port (1 Gb/s, 100 flows, RTTs 10–50 ms);
    otherwise ``capacity``, ``rtt`` and ``flows`` (or short flows) must all be given. Packets are
    1500 B and the utilization goal 99 % unless given.

    Args:
        capacity: bottleneck capacity C, ``"155Mbps"`` or bit/s.
        rtt: round-trip time: ``"80ms"``, a range ``"20ms..140ms"`` or ``(0.02, 0.14)`` seconds,
            or a list ``"30ms,50ms"`` / ``[0.03, 0.05]``.
        flows: number of long-lived flows n (``400``, ``"20k"``, ``"20,000"``).
        packet_size: packet size on the wire (``"1500B"`` or bytes).
        input_capacity: capacity of each input link Cin (gives Γ = C/Cin).
        gamma: Γ = C/Cin, instead of ``input_capacity``.
        inputs: number of input links (paper 000's EX form).
        mix: TCP mix, ``"reno=0.2,cubic=0.8"`` or ``{"reno": 0.2, "cubic": 0.8}``.
        cc: one congestion control for every flow (``"reno"``, ``"cubic"``, ``"bbr"``, ...), instead
            of ``mix``; neither: the models assume Reno and the verification simulates the profile's
            control (CUBIC in ``linux``).
        short_flows: short-flow length (``"14pkt"``) or distribution (``"2pkt:0.3,14pkt:0.7"``).
        short_load: load of the short flows as a fraction of C.
        max_window: the senders' maximum window (``"64pkt"``, ``"64KiB"``).
        paced: the senders pace their packets (paper 002).
        target_utilization: the utilization goal, in (0, 1).
        max_loss: a loss-rate goal, in (0, 1).
        max_delay: a queueing-delay goal (``"5ms"`` or seconds).
        optimize_for: ``"S"`` or ``"L"``: favour slow-start or congestion-avoidance flows
            (paper 000; needs ``input_capacity`` or ``gamma``).
        verify: ``"auto"`` (default, as the CLI): find the verified size on the simulator when its
            estimated cost fits the interactive budget (``rec.verify_skipped`` says why not; where
            the models' pick alone fits it, it is simulated and judged instead: ``rec.pick_check``);
            ``True``: always; ``False``: the models alone. Where it ran, ``rec.recommended`` is the
            verified size (``rec.models_pick`` the models'), and ``rec.to_frame()`` has the
            per-model verdicts.
        buffer: the buffer you have (``"2MB"``, ``"1000pkt"``, ``"50ms"``): simulated and judged
            beside the answer (``rec.verified.at_buffer``); giving it verifies.
        loss_detection: the simulated senders' loss detection, ``"rack"`` or ``"dupack"``
            (default: the profile's).
        max_fct: a goal for the short flows' mean completion time (``"200ms"``), verified only.
        traffic: your own traffic (``--traffic``): a capture (pcap/pcapng, ``.pcap.gz``), flow
            records or a saved profile gives the flows, RTTs, packet size and short flows; what may
            mislead (a capture begun mid-stream, one taken at a host) is in ``rec.warnings``.
        scale_to: with ``traffic``, size for the measured traffic grown to a link of this rate.
        aqm: size a queue discipline's settings and the hard limit behind them instead of a
            drop-tail FIFO (verifies): ``"fq_codel"``, ``"codel"`` or ``"pie"`` (the default
            target, a larger one only where it misses the utilization goal), ``"red"`` (its
            defaults) or ``"ecn_threshold"`` (the smallest marking threshold K, every sender
            ECN-capable: DCTCP with ``cc="dctcp"``, else RFC 3168's response);
            the hard limit is the smallest that meets the goals with the discipline doing the
            dropping (overflow drops at most 10 % of its drops and marks; how much it did is in
            ``rec.verified.aqm_dropping``); ``rec.tc_commands()`` gives the ``tc`` lines for the answer.
        progress: while verifying, a line per size simulated (its verdict, the runs so far, the
            time spent and a time-left guide): ``True`` on stderr (a progress bar in a notebook), a
            function to receive each line (a decided size's line is a
            :class:`~bufsize.recommendation.progress.SizeLine`, a ``str`` with those values as
            fields: ``size``, ``verdict``, ``runs``, ``elapsed_s``, ``eta_s``, ...), ``False`` none;
            ``None`` (default): on stderr in a terminal, a progress bar in a notebook (with
            ipywidgets, ``pip install bufsize[notebook]``; else the lines). Interrupted
            (Ctrl-C), the verification raises ``KeyboardInterrupt`` saying the sizes it had decided
            and where its finished runs are kept (the same call again resumes from them).
        max_delay_p99: a goal for the simulated queueing delay's 99th percentile (``"10ms"``),
            verified only (``max_delay`` caps the full buffer's drain time instead).
        workers: local processes for the verification runs.
        scheduler: a Dask scheduler address for the verification runs.
        profile: the TCP stack of the simulated hosts, ``"linux"`` (default), ``"ns3"`` or ``"ns2"``
            (:mod:`bufsize.profiles`; ``--profile``).

    Returns:
        A :class:`~bufsize.recommendation.Recommendation`: the answer ``rec.recommended``
        (``["buffer_packets"]``; ``["source"]`` says whether it was verified), the models' pick
        ``rec.models_pick``, the per-model table ``rec.to_frame()`` and ``rec.models``.

    Raises:
        BufsizeError: an invalid or unknown keyword (the message names it).
    """
    from contextlib import nullcontext

    from bufsize import recommendation
    from bufsize.recommendation.progress import VerifyBar, notebook_bar

    say = _progress_lines(progress)
    # in a notebook the verification's lines drive a progress bar (the decided sizes' fields)
    bar = VerifyBar() if say is not None and not callable(progress) and notebook_bar() else None
    with _profiles.using(None if profile is None else _profiles.name(profile, "profile")), bar or nullcontext():
        return recommendation.recommend(
            capacity=capacity, rtt=None if rtt is None else rtt_text(rtt), flows=flows, packet_size=packet_size,
            input_capacity=input_capacity, gamma=gamma, inputs=inputs, mix=mix, short_flows=short_flows,
            short_load=short_load, max_window=max_window, paced=paced, target_utilization=target_utilization,
            max_loss=max_loss, max_delay=max_delay, optimize_for=optimize_for, cc=cc, verify=verify,
            max_fct=max_fct, workers=workers, scheduler=scheduler, buffer=buffer, loss_detection=loss_detection,
            max_delay_p99=max_delay_p99, traffic=None if traffic is None else os.fspath(traffic), scale_to=scale_to,
            say=bar or say, aqm=aqm)


# ------------------------------------------------------------------------------------- simulate

@_keywords
def simulate(scenario: ScenarioLike | None = None, /, *, capacity: Quantity | None = None,
             flows: int | str | None = None, rtt: RTTs | None = None, buffer: Quantity | None = None,
             duration: Quantity | None = None, warmup: Quantity | None = None, seed: int | str | None = None,
             packet_size: Quantity | None = None, header_size: Quantity | None = None, cc: str | None = None,
             sack: bool | None = None, access_capacity: Quantity | None = None,
             access_buffer: Quantity | None = None, bottleneck_delay: Quantity | None = None,
             start: RTTs | None = None, max_window: Quantity | None = None,
             initial_window: int | str | None = None, min_rto: Quantity | None = None,
             delayed_ack: bool | None = None, profile: str | None = None, queue_trace: Quantity | None = None,
             trace_cwnd: Sequence[int] | str | None = None, progress: bool | None = None,
             out: str | os.PathLike[str] | None = None, format: Literal["parquet", "csv"] = "parquet",
             allow_over_memory: bool = False, mix: str | Mapping[str, float] | None = None,
             loss_detection: str | None = None, traffic: str | os.PathLike[str] | None = None,
             scale_to: Quantity | None = None, aqm: str | None = None, ecn: bool | None = None,
             host_jitter: Quantity | None = None) -> SimResult:
    """Run the packet-level simulator once (``bufsize simulate``).

    Give a scenario (a :class:`~bufsize.scenario.Scenario`, a mapping or a TOML/JSON path) or a
    dumbbell by keywords::

        bufsize.simulate(capacity="10Mbps", flows=10, rtt="20ms..80ms", buffer="50pkt", duration="20s")

    Args:
        scenario: the scenario, positional; leave it out to use the dumbbell keywords.
        capacity: bottleneck rate.
        flows: number of long-lived flows.
        rtt: two-way propagation delay: ``"80ms"``, ``"20ms..140ms"`` / ``(0.02, 0.14)`` (uniform)
            or a list.
        buffer: bottleneck buffer: ``"52pkt"`` (a bare number is packets), ``"64KiB"``, ``"10ms"``,
            ``"0.5bdp"``, ``"bdp/sqrt(n)"``, ``"unlimited"``.
        duration: simulated time (default 60 s).
        warmup: measurements start after it (default 10 s).
        seed: random seed.
        packet_size: data packet size on the wire.
        header_size: the header part of a packet.
        cc: congestion control (``newreno``, ``cubic``, ... : ``bufsize simulate --help``).
        sack: SACK loss recovery.
        access_capacity: per-flow access link rate (default 10 x capacity).
        access_buffer: per-flow access link buffer (default unlimited).
        bottleneck_delay: one-way delay of the shared links.
        start: start times of the flows (default ``"0s..1s"``).
        max_window: the window cap (``"100pkt"`` or a socket buffer such as ``"64KiB"``).
        initial_window: initial window in segments.
        min_rto: minimum retransmission timeout.
        delayed_ack: delayed ACKs.
        profile: the TCP stack every unset detail comes from: ``"linux"`` (default), ``"ns3"`` or
            ``"ns2"`` (:mod:`bufsize.profiles`; ``--profile``).
        queue_trace: sample the bottleneck queue every this long (``"10ms"``).
        trace_cwnd: flow ids whose cwnd to trace (``[0, 1]`` or ``"0,1"``).
        progress: a progress bar (``None``: when stderr is a terminal and the run is long).
        out: also write the tables, ``summary.json`` and ``scenario.json`` to this directory.
        format: table format for ``out``.
        allow_over_memory: run even when the estimated memory exceeds what the machine has
            (``--allow-over-memory``; see :mod:`bufsize.cost`).
        mix: a TCP mix instead of one ``cc`` (``"reno=0.5,cubic=0.5"``, fractions or flow counts,
            as :func:`recommend` reads it): one flow class per control.
        loss_detection: the senders' loss detection, ``"rack"`` or ``"dupack"`` (default: the profile's).
        traffic: your own traffic (a capture, flow records or a saved profile) replayed through
            ``buffer``; ``capacity``, ``rtt`` and ``cc``/``mix`` override what it says or assumes.
        scale_to: with ``traffic``, the measured traffic grown to a link of this rate.
        aqm: the bottleneck's queue discipline instead of a drop-tail FIFO (``"red"``, ``"codel"``,
            ``"pie"``, ``"fq_codel"``, ``"threshold"``) at its defaults; ``buffer`` is then its hard
            limit (default: the discipline's).
        ecn: ECN-capable senders (RFC 3168; default: the profile's, off; ``"dctcp"`` always uses
            it); with ``aqm`` the discipline then marks instead of dropping their packets.
        host_jitter: the largest random delay of a packet at its host (``"10us"``; default: the
            profile's, 10 µs in linux, 1 µs in ns2, 0 in ns3); ``0`` is the engine's deterministic timing.

    Returns:
        A :class:`~bufsize.simulate.SimResult` (``summary`` dict, ``flows``, ``links``, ... DataFrames).
    """
    from bufsize.simulate import simulate as _run

    if traffic is not None or scale_to is not None:
        sc = _traffic_scenario(scenario, traffic, scale_to, capacity=capacity, buffer=buffer, cc=cc, mix=mix, rtt=rtt,
                               duration=duration, warmup=warmup, seed=seed, queue_trace=queue_trace,
                               trace_cwnd=trace_cwnd, progress=progress,
                               others=dict(flows=flows, packet_size=packet_size, header_size=header_size, sack=sack,
                                           access_capacity=access_capacity, access_buffer=access_buffer,
                                           bottleneck_delay=bottleneck_delay, start=start, max_window=max_window,
                                           initial_window=initial_window, min_rto=min_rto,
                                           delayed_ack=delayed_ack, loss_detection=loss_detection, ecn=ecn,
                                           host_jitter=host_jitter))
        result = _run(sc, progress=progress, allow_over_memory=allow_over_memory)
        if out is not None:
            result.to_dir(os.fspath(out), format=format)
        return result
    if aqm is not None:
        if scenario is not None:
            raise BufsizeError("cannot be combined with a scenario (set the bottleneck queue's discipline in it)",
                               argument="aqm")
        from bufsize.scenario._fields import discipline_buffer

        buffer = discipline_buffer(aqm, buffer, ecn)  # type: ignore[assignment]
    sc = _scenario(scenario, mix=mix, loss_detection=loss_detection, capacity=capacity, flows=flows, rtt=rtt, buffer=buffer, duration=duration,
                   warmup=warmup, seed=seed, packet_size=packet_size, header_size=header_size, cc=cc, sack=sack,
                   access_capacity=access_capacity, access_buffer=access_buffer,
                   bottleneck_delay=bottleneck_delay, start=start, max_window=max_window,
                   initial_window=initial_window, min_rto=min_rto, delayed_ack=delayed_ack, profile=profile,
                   queue_trace=queue_trace, trace_cwnd=trace_cwnd, ecn=ecn, host_jitter=host_jitter)
    result = _run(sc, progress=progress, allow_over_memory=allow_over_memory)
    if out is not None:
        result.to_dir(os.fspath(out), format=format)
    return result


# ------------------------------------------------------------------------------------- sweep

@_keywords
def sweep(scenario: ScenarioLike | None = None, /, vary: Mapping[str, Any] | Sequence[str] | None = None,
          seeds: int | Sequence[int] | str = 1, *, out: str | os.PathLike[str] | None = None,
          executor: Literal["local", "serial", "dask"] | Any = "local", workers: int | None = None,
          scheduler: str | None = None, flow_table: bool = False, retry_failed: bool = True,
          progress: bool | None = None, scheduler_timeout: float = 10.0,
          max_time: Quantity | None = "24h", allow_over_memory: bool = False, profile: str | None = None,
          capacity: Quantity | None = None, rtt: RTTs | None = None, flows: int | str | None = None,
          packet_size: Quantity | None = None, mix: str | Mapping[str, float] | None = None,
          input_capacity: Quantity | None = None, gamma: float | str | None = None, inputs: int | str | None = None,
          short_flows: str | None = None, short_load: float | str | None = None,
          max_window: Quantity | None = None, paced: bool = False, loss_detection: str | None = None,
          duration: Quantity | None = None, warmup: Quantity | None = None, buffer: Quantity | None = None,
          dumbbell: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """A grid of simulations, one tidy table (``bufsize sweep``).

    Args:
        scenario: a Scenario, a mapping or a TOML/JSON path (or ``dumbbell={...}`` with the
            dumbbell keywords of :func:`simulate`, or the link keywords below).
        vary: ``{"buffer": "0.1bdp..1bdp:5", "flows": [1, 4]}`` or ``["buffer=10..100:4"]``.
        seeds: a count (seeds 1..N), a list, or ``"1,2,3"``.
        out: a directory for the point files and ``results.parquet`` (a rerun skips finished points).
        executor: ``"local"`` (a process pool of ``workers``), ``"serial"``, ``"dask"`` or a
            ``distributed.Client``.
        workers: processes of the local pool (default: all cores).
        scheduler: a Dask scheduler address (``tcp://host:8786``).
        flow_table: also keep the per-flow table (``table.attrs["flows"]``; ``--flow-table``).
        retry_failed: a rerun retries failed points.
        progress: a progress bar (``None``: when stderr is a terminal).
        scheduler_timeout: seconds to wait for the Dask scheduler.
        max_time: refuse, before any run, a sweep estimated to take longer (``"24h"``; ``None``: no
            limit); a sweep that cannot fit in memory is refused unless ``allow_over_memory``.
        profile: the TCP stack of the hosts built from the link keywords (``"linux"``, ``"ns3"``, ``"ns2"``).
        capacity: the bottleneck capacity; this and the keywords below describe the link as
            :func:`recommend` reads them, instead of ``scenario`` (the commands' link flags).
        rtt: the RTTs (``"40ms"``, ``"10ms..80ms"``, a tuple or a list).
        flows: the number of long-lived flows.
        packet_size: the packet size on the wire.
        mix: a TCP mix (``"reno=0.5,cubic=0.5"``).
        input_capacity: each flow's access link rate.
        gamma: Γ = capacity / input capacity, instead of ``input_capacity``.
        inputs: the number of input links.
        short_flows: short-flow length or distribution (``"14pkt"``).
        short_load: the short flows' load as a fraction of the capacity.
        max_window: the senders' window cap.
        paced: the senders pace their packets.
        loss_detection: ``"rack"`` or ``"dupack"``.
        duration: each run's simulated time, with the link keywords.
        warmup: each run's warm-up, with the link keywords.
        buffer: the bottleneck buffer of each run, with the link keywords.
        dumbbell: the dumbbell keywords of :func:`simulate`, instead of ``scenario``.

    Returns:
        A pandas DataFrame, one row per (point, seed); ``table.attrs["sweep"]`` holds the counts.
    """
    from bufsize.experiments.sweep import sweep as _sweep
    from bufsize.experiments.sweep import parse_seeds

    link = _link_keywords(locals())
    with _profiles.using(None if profile is None else _profiles.name(profile, "profile")):
        sc = _link_or_scenario(scenario, dumbbell, link)
    if isinstance(seeds, str):
        seeds = parse_seeds(seeds)
    table: pd.DataFrame = _sweep(sc, vary, seeds, out=out, executor=executor, workers=workers, scheduler=scheduler,
                                 flows=flow_table, progress=progress, retry_failed=retry_failed,
                                 scheduler_timeout=scheduler_timeout, max_time=_max_time(max_time),
                                 allow_over_memory=allow_over_memory)
    return table


# ------------------------------------------------------------------------------------- search

@_keywords
def search_min_buffer(scenario: ScenarioLike | None = None, /, *, target_utilization: float | str | None = None,
                      max_loss: float | str | None = None, max_delay: Quantity | None = None,
                      delay_stat: Literal["mean", "p50", "p99"] | str = "mean", seeds: int | Sequence[int] | str = 5,
                      max_seeds: int | None = None, confidence: float = 0.95,
                      range: str | tuple[float, float] | None = None, resolution: int = 1, field: str = "buffer",
                      executor: Literal["local", "serial", "dask"] | Any = "local", workers: int | None = None,
                      scheduler: str | None = None, out: str | os.PathLike[str] | None = None,
                      max_time: Quantity | None = "24h", allow_over_memory: bool = False,
                      profile: str | None = None, capacity: Quantity | None = None, rtt: RTTs | None = None,
                      flows: int | str | None = None, packet_size: Quantity | None = None,
                      mix: str | Mapping[str, float] | None = None, input_capacity: Quantity | None = None,
                      gamma: float | str | None = None, inputs: int | str | None = None,
                      short_flows: str | None = None, short_load: float | str | None = None,
                      max_window: Quantity | None = None, paced: bool = False, loss_detection: str | None = None,
                      duration: Quantity | None = None, warmup: Quantity | None = None,
                      dumbbell: Mapping[str, Any] | None = None) -> dict[str, SearchResult]:
    """The buffer that meets each goal, by simulation and bisection (``bufsize search``).

    Args:
        scenario: a Scenario, a mapping or a TOML/JSON path (or ``dumbbell={...}``).
        target_utilization: mean utilization at least this (``0.98`` or ``"98%"``): the smallest B.
        max_loss: mean loss rate at most this: the smallest B.
        max_delay: queueing delay at most this (``"5ms"`` or seconds): the largest B.
        delay_stat: which delay statistic ``max_delay`` bounds: ``mean``, ``p50`` or ``p99``.
        seeds: runs per buffer tried (>= 2): a count, a list or ``"1,5,9"``.
        max_seeds: runs for a buffer whose verdict is unclear (default 2 x ``seeds``).
        confidence: shared among the goals (Bonferroni).
        range: the buffers searched between, ``"10..300"`` (packets), ``"0.1bdp..2bdp"`` or a
            ``(low, high)`` tuple of packets (default 1 packet to 2 x BDP; ``--range``).
        resolution: stop when the interval is this narrow (packets).
        field: the scenario field searched.
        executor: where the runs go (as for :func:`sweep`).
        workers: processes of the local pool.
        scheduler: a Dask scheduler address.
        out: keep every run in this directory (a rerun reuses them).
        max_time: refuse a search estimated to take longer (``"24h"``; ``None``: no limit).
        allow_over_memory: run even when the estimate exceeds this machine's memory.
        profile: the TCP stack of the hosts built from the link keywords.
        capacity: the bottleneck capacity; this and the keywords below describe the link as
            :func:`recommend` reads them, instead of ``scenario`` (the commands' link flags).
        rtt: the RTTs (``"40ms"``, ``"10ms..80ms"``, a tuple or a list).
        flows: the number of long-lived flows.
        packet_size: the packet size on the wire.
        mix: a TCP mix (``"reno=0.5,cubic=0.5"``).
        input_capacity: each flow's access link rate.
        gamma: Γ = capacity / input capacity, instead of ``input_capacity``.
        inputs: the number of input links.
        short_flows: short-flow length or distribution (``"14pkt"``).
        short_load: the short flows' load as a fraction of the capacity.
        max_window: the senders' window cap.
        paced: the senders pace their packets.
        loss_detection: ``"rack"`` or ``"dupack"``.
        duration: each run's simulated time, with the link keywords.
        warmup: each run's warm-up, with the link keywords.
        dumbbell: the dumbbell keywords of :func:`simulate`, instead of ``scenario``.

    Returns:
        ``{"utilization": SearchResult, "loss_rate": ..., "queue_delay_<stat>_s": ...}`` for the
        goals given; ``result.statement()`` says what was found.
    """
    from bufsize import units
    from bufsize.experiments import search as _search

    link = _link_keywords(locals())
    with _profiles.using(None if profile is None else _profiles.name(profile, "profile")):
        sc = _link_or_scenario(scenario, dumbbell, link)
    util = None if target_utilization is None else units.parse_fraction(target_utilization,
                                                                        argument="target_utilization")
    loss = None if max_loss is None else units.parse_fraction(max_loss, argument="max_loss")
    delay = _seconds(max_delay, "max_delay")
    stats = {"mean": "queue_delay_mean_s", "p50": "queue_delay_p50_s", "p99": "queue_delay_p99_s"}
    metric = stats.get(delay_stat)
    if metric is None:
        raise BufsizeError(f"unknown statistic {delay_stat!r} ({', '.join(stats)})", argument="delay_stat")
    kw: dict[str, Any] = {}
    if range is not None:
        low, high = _range_packets(sc, range)
        kw.update(low=low, high=high)
    if util is None and loss is None and delay is None:
        raise BufsizeError("give a goal: target_utilization, max_loss or max_delay")
    return _search.search_min_buffer(
        sc, target_utilization=util, max_loss=loss, max_delay=delay, delay_metric=metric, confidence=confidence,
        seeds=seeds, max_seeds=max_seeds, resolution=resolution, field_name=field,
        executor=executor, workers=workers, scheduler=scheduler, out=out, max_time=_max_time(max_time),
        allow_over_memory=allow_over_memory, **kw)


@_keywords
def search_optimal_buffer(scenario: ScenarioLike | None = None, /, *, range: str | tuple[float, float] = "0.02bdp..2bdp",
                          points: int = 10, seeds: int | Sequence[int] | str = 5, metric: str = "goodput_bps_mean",
                          flow_size: Quantity | None = None, confidence: float = 0.95,
                          executor: Literal["local", "serial", "dask"] | Any = "local", workers: int | None = None,
                          scheduler: str | None = None, out: str | os.PathLike[str] | None = None,
                          progress: bool | None = None, max_time: Quantity | None = "24h",
                          allow_over_memory: bool = False, profile: str | None = None,
                          capacity: Quantity | None = None, rtt: RTTs | None = None, flows: int | str | None = None,
                          packet_size: Quantity | None = None, mix: str | Mapping[str, float] | None = None,
                          input_capacity: Quantity | None = None, gamma: float | str | None = None,
                          inputs: int | str | None = None, short_flows: str | None = None,
                          short_load: float | str | None = None, max_window: Quantity | None = None,
                          paced: bool = False, loss_detection: str | None = None, duration: Quantity | None = None,
                          warmup: Quantity | None = None, dumbbell: Mapping[str, Any] | None = None) -> Any:
    """Paper 000's optimal buffer on the simulator (``bufsize search optimal-buffer``): the one that
    maximizes the mean per-flow throughput of the flows, over ``points`` log-spaced buffers of
    ``range``, with 000's loss and delay forms fitted to the same runs.

    Args:
        scenario: a Scenario, a mapping or a TOML/JSON path (or the link keywords below).
        range: the buffers tried, ``"LO..HI"`` in packets or BDPs, or a ``(low, high)`` tuple of packets.
        points: how many buffers (log-spaced).
        seeds: runs per buffer (>= 2).
        metric: the per-flow throughput column maximized.
        flow_size: the short-flow size of 000's S-model optimum (``"30pkt"``).
        confidence: of the intervals.
        executor: where the runs go (as for :func:`sweep`).
        workers: processes of the local pool.
        scheduler: a Dask scheduler address.
        out: keep the runs (a sweep directory; a rerun reuses them).
        progress: a progress bar (``None``: when stderr is a terminal).
        max_time: refuse a search estimated to take longer (``None``: no limit).
        allow_over_memory: run even when the estimate exceeds this machine's memory.
        profile: the TCP stack of the hosts built from the link keywords.
        capacity: the bottleneck capacity; this and the keywords below describe the link as
            :func:`recommend` reads them, instead of ``scenario``.
        rtt: the RTTs.
        flows: the number of long-lived flows.
        packet_size: the packet size on the wire.
        mix: a TCP mix.
        input_capacity: each flow's access link rate.
        gamma: Γ = capacity / input capacity.
        inputs: the number of input links.
        short_flows: short-flow length or distribution.
        short_load: the short flows' load as a fraction of the capacity.
        max_window: the senders' window cap.
        paced: the senders pace their packets.
        loss_detection: ``"rack"`` or ``"dupack"``.
        duration: each run's simulated time, with the link keywords.
        warmup: each run's warm-up, with the link keywords.
        dumbbell: the dumbbell keywords of :func:`simulate`, instead of ``scenario``.

    Returns:
        The search result: ``.table`` (one row per buffer), ``.statement()``, ``.fit``, ``.to_dict()``.
    """
    import numpy as np

    from bufsize.commands.fit import _segments
    from bufsize.experiments.search import search_optimal_buffer as _optimal

    link = _link_keywords(locals())
    with _profiles.using(None if profile is None else _profiles.name(profile, "profile")):
        sc = _link_or_scenario(scenario, dumbbell, link)
    raw = sc if isinstance(sc, Mapping) else sc.to_dict()
    lo_, hi_ = _range_packets(raw, range)
    if lo_ is None or hi_ is None:
        raise BufsizeError(f"expected LO..HI, got {range!r}", argument="range")
    lo, hi = max(1, int(lo_)), int(hi_)
    if hi <= lo:
        raise BufsizeError(f"needs LO < HI, got {lo}..{hi} packets", argument="range")
    if int(points) < 2 or int(points) > hi - lo + 1:
        raise BufsizeError(f"{points} buffers asked for; {lo}..{hi} holds {hi - lo + 1:,} whole packet counts "
                           f"(at least 2)", argument="points")
    grid = sorted({int(round(b)) for b in np.geomspace(lo, hi, int(points))})
    if isinstance(seeds, str):
        from bufsize.experiments.sweep import parse_seeds

        seeds = parse_seeds(seeds)
    return _optimal(raw, grid, seeds=seeds, metric=metric, confidence=confidence,
                    flow_segments=_segments(None if flow_size is None else str(flow_size)), executor=executor, workers=workers, scheduler=scheduler,
                    out=out, progress=progress, max_time=_max_time(max_time), allow_over_memory=allow_over_memory)


# ------------------------------------------------------------------------------------- fit

@_keywords
def fit_sweep(table: pd.DataFrame | str | os.PathLike[str], /, *, loss: Literal["pl", "ex", "auto"] = "auto",
              delay: Literal["linear", "none"] | None = "linear", x: str = "buffer_packets",
              flow_size: Quantity | None = None, confidence: float = 0.95,
              where: Mapping[str, Any] | None = None) -> FitResult:
    """Fit paper 000's loss and delay forms to a buffer sweep, and its optimal buffer (``bufsize fit``).

    Args:
        table: a sweep's DataFrame, its directory, or a CSV/Parquet table of runs with the columns
            of a sweep table (``buffer_packets``, ``loss_rate``, ``queue_delay_mean_s``,
            ``capacity_pps``, ``rtt_mean_s``).
        loss: ``"pl"`` (p = a·B^-b), ``"ex"`` (p = a·e^(-bB)) or ``"auto"`` (both, keep the better).
        delay: ``"linear"``: fit d(B) = f·B/C (needed for the optimum); ``"none"`` or ``None``: skip it.
        x: the buffer column (packets).
        flow_size: flow size for the S-model optimum (``"30pkt"``, ``"45KB"``).
        confidence: of the parameter intervals.
        where: keep only the rows with these values, e.g. ``{"flows": 400}``.

    Returns:
        A :class:`~bufsize.experiments.fit.FitResult`.
    """
    from bufsize.experiments.fit import fit_sweep as _fit
    from bufsize.experiments.fit import flow_segments, load_table, select_rows

    t = load_table(table)
    if where:
        t = select_rows(t, [f"{k}={v}" for k, v in where.items()])
    return _fit(t, loss=loss, delay=None if delay in (None, "none") else delay, x=x, confidence=confidence,
                flow_segments=flow_segments(flow_size))


# ------------------------------------------------------------------------------------- reproduce

@_keywords
def reproduce(ids: str | Sequence[str], /, *, out: str | os.PathLike[str] = "reproduction",
              mode: Literal["quick", "full"] = "quick", workers: int | None = None, scheduler: str | None = None,
              progress: bool | Callable[[str], None] | None = None,
              testbed: Literal["auto", "kernel", "off"] = "auto", max_time: Quantity | None = "24h") -> Any:
    """Reproduce figures and tables of the papers (``bufsize reproduce``).

    Args:
        ids: one id or several (``"fig_003_04"``, ``"004-Fig7"``), or ``"all"``;
            ``bufsize.reproduce.list_figures()`` lists them.
        out: the directory for DIR/ID/ (``figure.png``, ``data.csv``, ``checks.json``) and REPORT.md.
        mode: ``"quick"`` (scaled down to run on a laptop) or ``"full"`` (the papers' scale).
        workers: local processes for simulations (default 1).
        scheduler: a Dask scheduler address.
        progress: a line per figure on stderr (``None`` or ``True``), nothing (``False``), or a
            function called with each line.
        testbed: the kernel-testbed parts: ``auto``, ``kernel`` or ``off``.
        max_time: refuse a figure whose simulations are estimated to take longer (``"24h"``;
            ``None``: no limit).

    Returns:
        The per-figure records (each with its checks and output paths).
    """
    import importlib

    rep = importlib.import_module("bufsize.reproduce")
    id_list = [ids] if isinstance(ids, str) else list(ids)
    if mode not in ("quick", "full"):
        raise BufsizeError(f"unknown mode {mode!r} (quick or full)", argument="mode")
    say: Callable[[str], None] | None
    if progress is False:
        say = _silent
    elif progress is None or progress is True:
        say = None
    else:
        say = progress
    return rep.run(id_list, out=Path(out), mode=mode, workers=1 if workers is None else workers,
                   scheduler=scheduler, progress=say, testbed=testbed, max_time=_max_time(max_time))


def _silent(text: str) -> None:
    """Progress lines nobody asked for."""


# ------------------------------------------------------------------------------------- the kernel testbed

def _testbed_log(progress: bool | Callable[[str], None] | None, prefix: str) -> Callable[[str], None]:
    """Where a testbed run's progress lines go (as :func:`_progress_lines`; nowhere when off)."""
    lines = _progress_lines(progress)
    if lines is None:
        return _silent
    say = lines
    return lambda text: say(f"{prefix}: {text}")


def _optional_time(value: Quantity | None, argument: str) -> str | None:
    return None if value is None else _time_text(value, argument)


@_keywords
def compare(scenario: ScenarioLike | None = None, /, *, capacity: Quantity | None = None, rtt: RTTs | None = None,
            buffer: Quantity | None = None, flows: int | None = None, cc: str | None = None,
            duration: Quantity | None = None, warmup: Quantity | None = None, repeats: int = 3, attempts: int = 3,
            sack: bool | None = None, burst: Quantity | None = None, loss_detection: str | None = None,
            max_time: Quantity | None = "24h", allow_over_memory: bool = False, profile: str | None = None,
            progress: bool | Callable[[str], None] | None = None) -> pd.DataFrame:
    """One scenario in the simulator and on the kernel testbed, side by side (``bufsize compare``).

    Needs root and a quiet machine, as the testbed does (:func:`testbed_check` says whether this
    one can); every keyword is checked before anything runs. Give a scenario (a simulator dumbbell)
    or the keywords, not both; a keyword left out takes the default shown.

    Args:
        scenario: a Scenario, a mapping in the scenario schema or a TOML/JSON path, positional.
        capacity: bottleneck capacity, at most 100 Mb/s on the testbed (default ``"50Mbps"``).
        rtt: RTTs: ``"70ms"`` (default), a list ``"40ms,100ms"`` or a range ``"40ms..100ms"``
            (spread evenly over the flows; ``(0.04, 0.1)`` in seconds).
        buffer: packets, bytes, a time or a BDP multiple (default ``"1bdp"``).
        flows: long-lived flows (default 1).
        cc: one congestion control for all flows (default ``"reno"``).
        duration: run length on both sides (default ``"60s"``).
        warmup: not measured at the start (default ``"10s"``).
        repeats: accepted testbed runs (mean and 95 % interval).
        attempts: tries per testbed repeat before it is rejected.
        sack: SACK on both sides (default on, Linux's default).
        burst: token-bucket depth of the testbed's htb bottleneck (default ``"15KiB"``); the
            simulator's bottleneck is shaped the same way.
        loss_detection: ``"rack"`` (default, Linux's) or ``"dupack"`` on both sides.
        max_time: refuse, before anything runs, a comparison estimated to take longer (the
            simulation and ``repeats`` testbed runs; ``"24h"``; ``None``: no limit).
        allow_over_memory: simulate even when the estimated memory exceeds what this machine has.
        profile: the TCP stack of the simulated hosts (``bufsize.profiles``).
        progress: a line per step on stderr (``True``), a function given each line, or none
            (``False``); ``None``: on stderr in a terminal or a notebook.

    Returns:
        A DataFrame, one row per field (``field``, ``simulator``, ``testbed``, ``ci_low``,
        ``ci_high``, ``n``, ``difference`` = testbed - simulator); ``.attrs`` holds ``rejected``
        and ``reasons`` (the testbed's fidelity checks), ``simulator_scenario`` and
        ``testbed_config`` (dicts).

    Raises:
        BufsizeError: an invalid keyword, work that cannot finish within ``max_time`` or fit in
            memory, or no root.
    """
    import pandas as pd

    from bufsize.commands.compare import prepare, run_prepared

    # a mapping becomes a Scenario here; a path is read after the "scenario or keywords" check
    sc = _scenario(scenario) if isinstance(scenario, Mapping) else scenario
    if sc is not None and not isinstance(sc, (str, os.PathLike)) and type(sc).__name__ != "Scenario":
        raise BufsizeError(f"expected a Scenario, a dict or a file path, got {type(sc).__name__}",
                           argument="scenario")
    with _profiles.using(None if profile is None else _profiles.name(profile, "profile")):
        cfg, twin = prepare(sc, capacity, None if rtt is None else rtt_text(rtt), buffer, flows, cc,
                            _optional_time(duration, "duration"), _optional_time(warmup, "warmup"), repeats,
                            attempts, sack, burst, loss_detection, max_time=_max_time(max_time),
                            allow_over_memory=allow_over_memory)
        point, rows = run_prepared(cfg, twin, repeats, attempts, _testbed_log(progress, "compare"))
    frame = pd.DataFrame(rows, columns=["field", "simulator", "testbed", "ci_low", "ci_high", "n", "difference"])
    frame.attrs.update(rejected=point.rejected, reasons=list(point.reasons), simulator_scenario=twin.to_dict(),
                       testbed_config=cfg.to_dict())
    return frame


@_keywords
def testbed_run(*, capacity: Quantity = "50Mbps", rtt: RTTs = "70ms", buffer: Quantity = "1bdp", flows: int = 1,
                users: int = 0, cc: str | Sequence[str] = "reno", duration: Quantity = "60s",
                warmup: Quantity = "10s", start_spread: Quantity = "1s", repeats: int = 1, attempts: int = 3,
                seed: int = 1, out: str | os.PathLike[str] | None = None, halt_poll: Quantity = "1ms",
                sack: bool = True, burst: Quantity = "15KiB", capture: str | os.PathLike[str] | None = None,
                max_time: Quantity | None = "24h", breakage: str | None = None,
                progress: bool | Callable[[str], None] | None = None) -> Any:
    """One scenario on real Linux TCP in network namespaces (``bufsize testbed run``).

    Needs root and a quiet machine (:func:`testbed_check`); every keyword is checked before a
    namespace is built. The run takes ``repeats`` x (``duration`` + set-up) seconds or more.

    Args:
        capacity: bottleneck capacity, at most 100 Mb/s here.
        rtt: round-trip time: ``"70ms"``, a list ``"40ms,100ms"`` (round-robin over the flows) or
            a range ``"40ms..100ms"`` / ``(0.04, 0.1)`` seconds (spread evenly).
        buffer: bottleneck buffer: packets (``52``), bytes (``"64KiB"``), a time (``"10ms"``) or a
            BDP multiple (``"0.25bdp"``).
        flows: long-lived flows.
        users: closed-loop users (Pareto sizes, think times).
        cc: congestion control(s), ``"reno,cubic"`` or a list, cycled over the flows.
        duration: traffic duration per run.
        warmup: not measured at the start of each run.
        start_spread: the long flows' start times are spread over this.
        repeats: accepted runs wanted (mean and 95 % interval).
        attempts: tries per repeat before the point is rejected.
        seed: random seed (start order, users' sizes).
        out: a directory for ``point.json`` and the Parquet tables.
        halt_poll: guest halt polling during runs (a time, ``0`` for none) or ``"off"`` (leave the
            machine's setting alone).
        sack: SACK at the senders (``False``: ``net.ipv4.tcp_sack=0`` in their namespace).
        burst: token-bucket depth of the bottleneck's htb class (``"1514B"``: release at the rate).
        capture: a headers-only pcap of the bottleneck's egress (needs tcpdump); with several
            repeats one file each, ``-1``, ``-2``, ... before the suffix.
        max_time: refuse, before anything is built, runs estimated to take longer in all
            (``repeats`` x (``duration`` + about 5 s of set-up); ``"24h"``; ``None``: no limit).
        breakage: break the set-up on purpose (``"offloads"``, ``"second-queue"``), for the
            fidelity checks' own tests (``--break``).
        progress: a line per step on stderr (``True``), a function given each line, or none
            (``False``); ``None``: on stderr in a terminal or a notebook.

    Returns:
        The point (:class:`bufsize.testbed.runner.PointResult`): ``.aggregate()`` (per field: mean,
        ``ci_low``, ``ci_high``, ``n``), ``.rejected`` and ``.reasons``, ``.runs``, ``.to_dict()``.

    Raises:
        BufsizeError: an invalid keyword, runs that cannot finish within ``max_time``, no root,
            or ``capture`` without tcpdump.
    """
    from bufsize.commands.testbed import prepare_run, run_prepared

    if not isinstance(halt_poll, str):
        halt_poll = _time_text(halt_poll, "halt_poll")
    cfg, captures = prepare_run(capacity, rtt_text(rtt), buffer, flows, users, cc,
                                _time_text(duration, "duration"), _time_text(warmup, "warmup"),
                                _time_text(start_spread, "start_spread"), repeats, attempts, seed,
                                None if out is None else os.fspath(out), halt_poll, sack, burst, capture, breakage,
                                max_time=_max_time(max_time))
    return run_prepared(cfg, captures, repeats, attempts, None if out is None else os.fspath(out),
                        _testbed_log(progress, "testbed"))


def testbed_check() -> Any:
    """Whether this machine can run the kernel testbed, and why not (``bufsize testbed check``).

    Returns:
        A report: ``.ok`` (usable), ``.reasons`` (what is missing), ``.captures`` (tcpdump
        present, so ``testbed_run(capture=...)`` works), ``.items`` (each check) and ``.to_dict()``.
    """
    from bufsize.testbed.check import check as _check

    return _check()


# ------------------------------------------------------------------------------------- transfer

@_keywords
def transfer_client(host: str, /, *, port: int = 5301, duration: Quantity | None = None,
                    bytes: Quantity | None = None, socket_buffer: str = "autotune", interval: Quantity = "1s",
                    rtt_source: Literal["probes", "tcp-info"] = "probes", slope_tolerance: float = 0.5,
                    readjust: bool = False, out: str | os.PathLike[str] | None = None,
                    on_interval: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Receive a real bulk TCP transfer from a :func:`transfer_server` on ``host``
    (``bufsize transfer client``); blocks until the transfer ends.

    Args:
        host: the server's name or address, positional.
        port: its TCP and UDP port.
        duration: the transfer's length in time (default 10 s when ``bytes`` is not given).
        bytes: the transfer's length in bytes (``"100MB"``), instead of ``duration``.
        socket_buffer: how the sockets' buffers are sized: ``"autotune"`` (the kernel's),
            ``"fixed:SIZE"`` (``SO_SNDBUF``/``SO_RCVBUF`` on both ends, as ``iperf3 -w``) or ``"sobas"``
            (paper 001's receive-buffer sizing). Not ``buffer=``, which is the router's buffer in
            every other function.
        interval: the report interval (50 ms to 60 s).
        rtt_source: SOBAS's RTT: ``"probes"`` (UDP probes, as the paper) or ``"tcp-info"`` (the
            kernel's receiver estimate).
        slope_tolerance: SOBAS's "slope ≈ 0" threshold, in MSS per RTT².
        readjust: SOBAS re-adjusts after its first decision (not in the paper).
        out: also write the JSON report to this file.
        on_interval: called with each interval's record (a dict) as it ends.

    Returns:
        The report, in the JSON schema of docs/transfer.md (``report["end"]["sum_received"]``).

    Raises:
        BufsizeError: an invalid keyword, or the server cannot be reached.
    """
    import json

    from bufsize._json import json_safe
    from bufsize.commands.transfer import client_options, receive, write_report

    dest = None if out is None else os.fspath(out)
    opts = client_options(host, port, _optional_time(duration, "duration"), None if bytes is None else str(bytes),
                          socket_buffer, _time_text(interval, "interval"), rtt_source, slope_tolerance, readjust, dest)
    rep = receive(opts, on_interval)
    if dest:
        write_report(json.dumps(json_safe(rep), indent=1), dest)
    return rep


@_keywords
def transfer_server(*, port: int = 5301, bind: str = "0.0.0.0", max_clients: int = 4, one_off: bool = False,
                    handshake_timeout: Quantity = "5s", quiet: bool = False,
                    stop: Any = None) -> dict[str, Any]:
    """Serve bulk TCP transfers to :func:`transfer_client` (``bufsize transfer server``).

    Blocks: it returns when ``stop`` (a :class:`threading.Event`) is set from another thread, on
    Ctrl-C, or with ``one_off`` once the first transfer has finished. Run it in a thread or a
    separate process to use a client in the same session.

    Args:
        port: the TCP and UDP port (``0``: any free one).
        bind: the address to listen on.
        max_clients: concurrent transfers (1 to 256); more are refused.
        one_off: return after one transfer has finished (as ``iperf3 -1``).
        handshake_timeout: deadline for a client's hello.
        quiet: do not log connections on stderr.
        stop: a :class:`threading.Event` that ends the server when set.

    Returns:
        The server's counters (``transfers`` and the others it keeps).

    Raises:
        BufsizeError: an invalid keyword, or the port cannot be listened on.
    """
    from bufsize.commands.transfer import serve

    return serve(port, bind, max_clients, one_off, _time_text(handshake_timeout, "handshake_timeout"), quiet, stop)
