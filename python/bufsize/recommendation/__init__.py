"""``bufsize.recommend()`` and ``bufsize recommend``: every analytic model of the five papers, side by side, and one size.

Describe a link (capacity, RTTs, flows, packet size, input capacity or Γ and the number of inputs,
TCP mix, short flows, pacing, maximum window) and the goals (utilization, loss, queueing delay,
which flows' throughput to favour). :func:`recommend` evaluates every model that has the inputs it
needs, says for each whether its assumptions hold for this input and why not (the rules are in
:mod:`bufsize.recommendation.rules`; docs/recommend.md explains them), and picks one size:

1. **Utilization** (the always-present goal, default 99 %), from the models whose assumptions hold:
   - the link can never be full (window-limited flows, n·Wmax < C·RTT_h, or inputs that together
     carry at most C): the achievable utilization is at most the peak load, and the buffer only
     has to keep the flows from losing packets: paper 002's Theorem 1 when the packets are spaced
     (paced senders or Γ > 1), θ being the fraction of the peak load; unpaced windows leave as
     bursts, sized with paper 004's M/G/1 burst model (bursts of Wmax);
   - many (≥ 250) desynchronized long flows: paper 004's eq. (6) inverse for Reno; paper 003's
     eq. (7) when a mix with other protocols is given (its size is the one used then);
   - fewer flows: they may synchronize and behave like one Reno flow: paper 001's eq. (17).
2. **Per-flow throughput** (``optimize_for="S"`` or ``"L"``): paper 000's optimum (PL form, Γ ≤ 1)
   or its empirical Γ > 1 optima (Table II's simulations, labelled as such) replace the utilization
   size.
3. **Loss** (``max_loss``): paper 003's eq. (14) when the windows are large enough for its sawtooth,
   and paper 004's loss-window relation l ≈ 0.76/w² (§5.1.1), which always ties long flows' loss to
   their windows; the larger applicable size.
4. **Short flows** (``short_flows`` and ``short_load``): paper 004's M/G/1 burst model, buffer for an
   overflow probability (``max_loss`` or 2.5 %).
5. **Queueing delay** (``max_delay``): an upper limit C·λ. If it is below the size chosen above,
   the recommendation becomes C·λ and the model that set the wanted size says what is given up at
   C·λ (the other applicable models' figures are named beside it).

The recommended size is the largest of the sizes from 1–4 (each goal must be met), capped by 5.
Models are approximations with stated validity ranges; the table says which apply.
"""

from __future__ import annotations

import math
from typing import Any

from bufsize import units
from bufsize.recommendation.choice import choose, facts_dict, loss_window, predicted_figures
from bufsize.recommendation.inputs import (
    DEFAULTS,
    MAX_FLOWS,
    MIN_LOSS_GOAL,
    LinkInput,
    mix_count_total,
    mix_protocol,
    mix_text,
    parse_input,
)
from bufsize.recommendation.models import RENO_ONLY_MODELS, ModelRow, description_not_used, model_rows
from bufsize.recommendation.result import Recommendation
from bufsize.recommendation.rules import traffic_facts

__all__ = ["DEFAULTS", "MAX_FLOWS", "MIN_LOSS_GOAL", "RENO_ONLY_MODELS", "LinkInput", "ModelRow", "Recommendation",
           "description_not_used", "mix_count_total", "mix_protocol", "mix_text", "parse_input",
           "predicted_figures", "loss_window", "recommend", "attach_verification"]

# --------------------------------------------------------------------------- recommend

def recommend(**kwargs) -> Recommendation:
    """Evaluate every model for one link and return a :class:`Recommendation`.

    Keyword arguments (unit strings such as ``"155Mbps"`` or SI numbers): ``capacity``, ``rtt``
    (``"80ms"``, ``"20ms..140ms"`` or ``"30ms,50ms"``), ``flows``, ``packet_size``,
    ``input_capacity`` or ``gamma`` (Γ = C/Cin), ``inputs`` (number of input links, for 000's EX
    form; default: one per flow), ``mix`` (``"reno=0.2,bic=0.2,cubic=0.4,ctcp=0.2"`` or a dict),
    ``short_flows`` (``"14pkt"`` or ``"2pkt:0.3,14pkt:0.7"``) with ``short_load``, ``max_window``,
    ``paced``, ``target_utilization``, ``max_loss``, ``max_delay``, ``optimize_for`` (``"S"`` or
    ``"L"``). With no link argument at all the link is :data:`DEFAULTS`' example; a partial
    description missing ``capacity``, ``rtt`` or ``flows`` is refused (see :func:`parse_input`).

    ``buffer`` (the buffer the user has), ``cc`` (one control for every flow, instead of ``mix``)
    and ``loss_detection`` are as the CLI's flags. ``verify=True`` also finds the verified size on
    the simulator
    (:mod:`bufsize.recommendation.verification`): ``rec.verified`` holds it, ``rec.to_frame()`` gains the
    per-model verdicts (safe / unsafe / wasteful). ``verify="auto"`` verifies only when the
    estimated cost fits :data:`bufsize.recommendation.verification.INTERACTIVE_BUDGET_S` (else
    ``rec.verify_skipped`` says what it would cost, and where the models' pick alone fits the budget
    ``rec.pick_check`` is its check on the simulator, :mod:`bufsize.recommendation.check`).
    ``max_fct`` (a short-flow completion-time goal), ``workers``, ``scheduler`` (a Dask address) and ``say`` (a progress callback) go to the
    verification. ``aqm`` (``"fq_codel"``, ``"codel"``, ``"pie"``, ``"red"`` or ``"ecn_threshold"``)
    sizes that discipline's settings (a CoDel or PIE target where the defaults miss the utilization
    goal; a marking threshold K, with every sender ECN-capable) and the hard limit behind them
    instead of a drop-tail FIFO.

    Raises :class:`bufsize.errors.BufsizeError` (a ``ValueError``) with a one-line message naming
    the argument for any invalid input.
    """
    verify = kwargs.pop("verify", False)
    vopts = {k: kwargs.pop(k) for k in ("max_fct", "max_delay_p99", "workers", "scheduler", "say", "buffer",
                                        "loss_detection", "aqm") if k in kwargs}
    traffic, scale_to = kwargs.pop("traffic", None), kwargs.pop("scale_to", None)
    warnings: list[str] = []
    notes: list[str] = []
    if traffic is not None:
        kwargs, warnings, notes = _inputs_from_traffic(traffic, scale_to, kwargs)
    elif scale_to is not None:
        from bufsize.errors import BufsizeError

        raise BufsizeError("scales measured traffic: give --traffic FILE", argument="--scale-to")
    rec = _recommend_models(**kwargs)
    rec.warnings, rec.traffic_notes = warnings, notes
    if verify is False:
        from bufsize.errors import BufsizeError

        for key, flag, what in (("max_fct", "--max-fct", "a completion-time goal"),
                                ("max_delay_p99", "--max-delay-p99", "a p99 queueing-delay goal"),
                                ("aqm", "--aqm", "an AQM's settings and hard limit"),
                                ("buffer", "--buffer", "the buffer you have")):
            if vopts.get(key) is not None:
                raise BufsizeError(f"{what} is judged on the simulator only: drop --no-verify (verify=False)",
                                   argument=flag)
        return rec
    attach_verification(rec, verify, **vopts)
    return rec


def attach_verification(rec: Recommendation, verify: Any, *, max_fct=None, workers=None, scheduler=None,
                        say=None, buffer=None, loss_detection=None, max_delay_p99=None, aqm=None) -> None:
    """Verify ``rec`` on the simulator in place (``rec.verified``), the one rule every surface uses:
    ``verify=True`` always; ``"auto"`` only when the estimated cost fits the interactive budget (else
    ``rec.verify_skipped`` says what it would cost). ``buffer`` (a size such as ``"2MB"``,
    ``"100pkt"`` or ``"5ms"``) is the buffer the user has: it is simulated too and judged beside
    the answer (``rec.verified.at_buffer``); giving it verifies even over the budget."""
    from bufsize import defaults
    from bufsize.errors import BufsizeError
    from bufsize.recommendation import verification as V

    fct = None if max_fct is None else units.parse_time(max_fct, argument="--max-fct")
    p99 = None if max_delay_p99 is None else units.parse_time(max_delay_p99, argument="--max-delay-p99")
    if aqm is not None:
        aqm = V.aqm_name(aqm)
    inp = rec.input
    have = None
    if buffer is not None:
        have = units.parse_buffer(buffer, packet_size=inp.packet_bytes, capacity=inp.capacity_bps,
                                  argument="--buffer", allow_zero=False)
        if have > V.MAX_JUDGED_BDP * max(inp.bdp_packets, 1.0):
            raise BufsizeError(f"{buffer} is {have:,.0f} packets, more than {V.MAX_JUDGED_BDP:g} times the "
                               f"bandwidth-delay product ({inp.bdp_packets:,.0f} packets): such a buffer never "
                               f"fills in a run of reasonable length", argument="--buffer")
    if loss_detection is not None:   # checked before anything runs; None: the profile's
        loss_detection = defaults.loss_detection(loss_detection)
    if not inp.flows and not (inp.short_lengths is not None and inp.short_load):
        if verify is True or have is not None:
            raise BufsizeError("the verified answer needs traffic: long-lived flows (--flows ≥ 1) or short flows",
                               argument="--buffer" if have is not None else "--verify")
        rec.verify_skipped = "not verified: the description has no traffic to simulate"
        return
    if fct is not None and inp.short_lengths is None:
        raise BufsizeError("a completion-time goal needs short flows (--short-flows with --short-load)",
                           argument="--max-fct")
    # a goal only the simulator can check (completion time, p99 delay, the buffer you have) is checked even
    # over the interactive budget: skipping it would drop it silently
    if verify == "auto" and scheduler is None and have is None and fct is None and p99 is None and aqm is None:
        cost = V.estimate_cost(rec, workers=workers)
        if cost["wall_s"] is not None and cost["wall_s"] > V.INTERACTIVE_BUDGET_S:
            rec.verify_skipped = (f"verifying on the simulator would take about {cost['wall_s']:,.0f} s here "
                                  f"on an idle machine "
                                  f"({cost['describe']}, {cost['workers']} workers), more than the "
                                  f"{V.INTERACTIVE_BUDGET_S:g}-s interactive budget: run it with --verify "
                                  f"(and --workers N or --scheduler ADDRESS for a cluster), or --no-verify")
            _check_pick(rec, workers, say, loss_detection)
            return
    _say_models(rec, say)
    from bufsize.errors import ScenarioError

    try:
        with defaults.using_loss_detection(loss_detection):
            rec.verified = V.verify_recommendation(rec, max_fct=fct, max_delay_p99=p99, workers=workers,
                                                   scheduler=scheduler, say=say, aqm=aqm, buffer=have,
                                                   buffer_text=None if buffer is None else str(buffer))
    except ScenarioError as exc:
        # the verification builds its scenarios itself: a limit of the engine met there is about the
        # link (a 400 Gb/s flow outruns the 32-bit sequence space in one run), not a field the user wrote
        reason = str(exc).split(": ", 1)[-1].replace("; shorten the run", "")
        raise BufsizeError(f"the simulator cannot verify this link: {reason} (--no-verify gives the models' "
                           "answer)", argument="--verify") from None


def _say_models(rec: Recommendation, say: Any) -> None:
    """Something to read while the simulator runs: the models' sizes, before their verdicts (the first
    progress line of a verification or a check)."""
    if say is not None and rec.input.flows:
        from bufsize.recommendation.display import models_text

        say(models_text(rec) + "\n")


def _check_pick(rec: Recommendation, workers: Any, say: Any, loss_detection: str | None) -> None:
    """Where the search does not fit the interactive budget, the models' pick alone simulated and judged
    (``rec.pick_check``, :mod:`bufsize.recommendation.check`) when that fits it."""
    from bufsize import defaults
    from bufsize.recommendation import check
    from bufsize.recommendation import verification as V

    b = rec.models_pick.get("buffer_packets")
    if b is None or not math.isfinite(b) or b < 1 or not rec.input.flows:
        return
    cost = check.worst_cost(rec, b, workers=workers)
    if cost["wall_s"] is None or cost["wall_s"] > V.INTERACTIVE_BUDGET_S:
        return
    _say_models(rec, say)
    with defaults.using_loss_detection(loss_detection):
        rec.pick_check = check.check_size(rec, b, model=rec.models_pick.get("id"), workers=workers, say=say)


def _inputs_from_traffic(traffic: Any, scale_to: Any, kwargs: dict[str, Any]) -> tuple[dict[str, Any], list[str],
                                                                                      list[str]]:
    """The link description from a capture, flow records or a saved profile (:mod:`bufsize.traffic`):
    the keyword arguments with the measured traffic in place, the warnings about the capture (a
    capture begun mid-stream, one taken at a host: shown with the answer) and the other notes."""
    from bufsize.errors import BufsizeError
    from bufsize.traffic import recommend_from_file

    mix, cc = kwargs.get("mix"), kwargs.get("cc")
    if cc is not None and mix is not None:
        raise BufsizeError("give one of --cc (every flow) and --mix (a mix of controls)", argument="--cc")
    kw, _profile, lines = recommend_from_file(
        traffic, capacity=kwargs.get("capacity"), scale_to=scale_to, mix=mix, cc=cc,
        given={k: kwargs.get(k) for k in ("rtt", "flows", "short_flows", "short_load", "packet_size")})
    out = dict(kwargs)
    for k in ("capacity", "rtt", "flows", "packet_size", "short_flows", "short_load", "mix"):
        out[k] = kw.get(k)
    out["cc"] = None          # the mix the traffic module settled on (given, recorded, or the stack's)
    warnings = [n[len("warning: "):] for n in lines if n.startswith("warning: ")]
    return out, warnings, [n for n in lines if not n.startswith("warning: ")]


def _recommend_models(**kwargs) -> Recommendation:
    inp = parse_input(**kwargs)
    f = traffic_facts(inp)
    rows, het = model_rows(inp, f)
    pick, predicted = choose(inp, f, rows, het)
    return Recommendation(inp, rows, pick, predicted, traffic=facts_dict(f))
