"""The models' pick: from the applicable rows, the size each goal needs, the largest of them, capped by
the delay goal (with what the cap gives up), and the figures the models predict at that size."""

from __future__ import annotations

import math
from typing import Any

from bufsize import units
from bufsize.errors import BufsizeError
from bufsize.recommendation.inputs import LinkInput, mix_text
from bufsize.recommendation.models import ModelRow, loss_at_window, mix_is_reno, num_text
from bufsize.recommendation.rules import (
    DESYNC_MIN_FLOWS,
    TrafficFacts,
    gaussian_applies,
    link_never_full_reason,
    loss_window_applies,
    mix_has_bbr,
    traffic_facts,
)


def facts_dict(f: TrafficFacts) -> dict[str, Any]:
    return {
        "bdp_harmonic_packets": f.bdp_harmonic_packets,
        "mean_window_packets": f.mean_window,
        "peak_load": f.peak_load,
        "window_peak_load": f.window_peak_load,
        "input_peak_load": f.input_peak_load,
        "inputs": f.inputs,
        "inputs_assumed": f.inputs_assumed,
        "window_limited": f.window_limited,
        "input_limited": f.input_limited,
        "utilization_ceiling": f.utilization_ceiling,
        "spaced": f.spaced,
    }


def _usable(r: ModelRow | None) -> bool:
    return (r is not None and r.applies and r.buffer_packets is not None and math.isfinite(r.buffer_packets))


def choose(inp: LinkInput, f: TrafficFacts, rows: list[ModelRow], het: dict[str, Any] | None) -> tuple[dict, dict]:
    by_id = {r.id: r for r in rows}
    reasons: list[str] = []
    candidates: list[ModelRow] = []

    if f.link_never_full:
        reasons.append(link_never_full_reason(f, inp) + "; the utilization models that assume a full link "
                       "(004, 003, 001) do not apply")

    # 1. utilization (or per-flow throughput when asked for)
    util_done = False
    if inp.optimize_for is not None:
        r = by_id[f"000-{inp.optimize_for}"]
        if _usable(r):
            candidates.append(r)
            kind = "a simulated optimum (empirical)" if r.details.get("empirical") else f"{r.equation}"
            reasons.append(f"per-flow throughput of {inp.optimize_for}-model flows is the goal: {r.id} "
                           f"({kind}) gives {num_text(r.buffer_packets)} packets")
            util_done = True
        else:
            reasons.append(f"per-flow throughput of {inp.optimize_for}-model flows: {r.id} does not apply "
                           f"({r.reason}); sizing for utilization instead")
    if not util_done:
        cand_ids = ("004-erf", "003-utilization", "001-single-flow", "002-theorem1", "004-window-bursts",
                    "000-input-bound")
        util_rows = [by_id[i] for i in cand_ids if _usable(by_id.get(i))]
        het_row = by_id.get("003-utilization")
        beyond = [by_id[i] for i in ("spang-single-flow", "spang-bbr", "spang-sqrt-n") if _usable(by_id.get(i))]
        if mix_has_bbr(inp) and beyond and not f.link_never_full:
            # none of the five papers models BBR: the rules beyond them set the size
            best = max(beyond, key=lambda r: r.buffer_packets)
            others = [f"{r.id} {num_text(r.buffer_packets)}" for r in beyond if r is not best]
            reasons.append(f"utilization ≥ {inp.target_utilization:.4g}: the mix ({mix_text(inp.mix)}) has BBR, which "
                           f"none of the five papers models, so the rules beyond them (Spang, Arslan, McKeown 2021) "
                           f"set the size: {best.id} ({best.equation}) needs {num_text(best.buffer_packets)} packets"
                           + (f" (also applicable: {', '.join(others)})" if others else ""))
            candidates.append(best)
        elif util_rows and not mix_is_reno(inp) and _usable(het_row):
            best = het_row
            others = [f"{r.id} {num_text(r.buffer_packets)}" for r in util_rows if r is not best]
            reasons.append(f"utilization ≥ {inp.target_utilization:.4g}: the mix ({mix_text(inp.mix)}) has "
                           f"characteristic value a = {het_row.details['a']:.4g}, so 003 eqs. (7)–(9) set the size: "
                           f"{num_text(best.buffer_packets)} packets"
                           + (f" (Reno-only figures, not used: {', '.join(others)})" if others else ""))
            candidates.append(best)
        elif util_rows and not mix_is_reno(inp) and _usable(by_id.get("spang-single-flow")):
            # fewer flows than 003's model needs: they may cut in phase, and a mix's controls cut by
            # their own β, not Reno's one half (001 eq. (17) is one Reno flow's sawtooth)
            best = by_id["spang-single-flow"]
            reno = [f"{r.id} {num_text(r.buffer_packets)}" for r in util_rows]
            reasons.append(f"utilization ≥ {inp.target_utilization:.4g}: the mix ({mix_text(inp.mix)}) is not Reno's, "
                           f"so the flows, which may cut in phase, are sized by their own decrease factor: "
                           f"{best.id} ({best.equation}, β = {best.details.get('beta', float('nan')):.3g}) needs "
                           f"{num_text(best.buffer_packets)} packets (Reno-only figures, not used: {', '.join(reno)})")
            candidates.append(best)
        elif util_rows:
            best = max(util_rows, key=lambda r: r.buffer_packets)
            others = [f"{r.id} {num_text(r.buffer_packets)}" for r in util_rows if r is not best]
            if best.id == "002-theorem1":
                goal_txt = (f"throughput ≥ θ = {inp.target_utilization:.4g} of the peak load "
                            f"(utilization ≥ {best.details['utilization_lower_bound']:.4g})")
            elif best.id == "004-window-bursts":
                goal_txt = (f"throughput ≥ θ = {inp.target_utilization:.4g} of the peak load "
                            f"(utilization ≥ {inp.target_utilization * f.window_peak_load:.4g})")
            elif best.id == "000-input-bound":
                goal_txt = "no loss (the inputs cannot overload the output)"
            else:
                goal_txt = f"utilization ≥ {inp.target_utilization:.4g}"
            reasons.append(f"{goal_txt}: {best.id} ({best.equation}) needs {num_text(best.buffer_packets)} packets"
                           + (f" (also applicable: {', '.join(others)})" if others else ""))
            candidates.append(best)
        elif inp.flows:
            r = by_id["004-rule-of-thumb"]
            candidates.append(r)
            reasons.append("no utilization model's assumptions hold for this input (see the table): "
                           f"falling back to the rule of thumb RTT·C = {num_text(r.buffer_packets)} packets")
    # 2. loss
    if inp.max_loss is not None:
        loss_rows = [by_id[i] for i in ("003-drop", "004-loss-window") if _usable(by_id.get(i))]
        if loss_rows:
            r = max(loss_rows, key=lambda r: r.buffer_packets)
            candidates.append(r)
            reasons.append(f"loss ≤ {inp.max_loss:g}: {r.id} ({r.equation}) needs {num_text(r.buffer_packets)} packets"
                           + ("" if r.id != "004-loss-window" or "003-drop" not in by_id
                              else f" (003 eq. (14) does not apply: {by_id['003-drop'].reason})"))
        else:
            why = "; ".join(f"{i}: {by_id[i].reason}" for i in ("003-drop", "004-loss-window") if i in by_id)
            reasons.append(f"loss goal {inp.max_loss:g}: no loss model applies ({why or 'needs --flows'})")
    # 3. short flows
    if "004-short-flows" in by_id:
        r = by_id["004-short-flows"]
        candidates.append(r)
        reasons.append(f"short-flow bursts: 004 §4 needs {num_text(r.buffer_packets)} packets for "
                       f"P(Q ≥ B) = {r.details['overflow_probability']:g}")

    if not candidates:
        raise BufsizeError("no model applies to this input: give --flows, or short flows with --short-load",
                           argument="--flows")
    chosen = max(candidates, key=lambda r: r.buffer_packets)
    b = chosen.buffer_packets
    chosen_id = chosen.id
    if len(candidates) > 1:
        reasons.append(f"the largest of the goal sizes wins: {chosen.id}")

    # 4. delay cap; the compromise is reported by the model that set the wanted size
    compromise = None
    if inp.max_delay_s is not None:
        cap = inp.max_delay_s * inp.capacity_pps
        if cap < b:
            compromise, txt = _compromise(inp, f, chosen, cap, by_id, het)
            reasons.append(txt)
            b = cap
            chosen_id = "003-delay"
        else:
            reasons.append(f"the delay goal allows up to {num_text(cap)} packets: met")

    predicted = _predict(inp, f, b, by_id, chosen)
    recommended = {
        "id": chosen_id,
        "buffer_packets": b,
        "buffer_bytes": b * inp.packet_bytes,
        "queueing_delay_s": b / inp.capacity_pps,
        "reasons": reasons,
    }
    if compromise is not None:
        recommended["compromise"] = compromise
    return recommended, predicted


def _figure_at(inp: LinkInput, f: TrafficFacts, row: ModelRow, b: float) -> dict[str, Any] | None:
    """What ``row``'s model promises at a buffer of ``b`` packets (for the delay compromise)."""
    from bufsize.models import appenzeller as A
    from bufsize.models import enachescu as E
    from bufsize.models import jain as J
    from bufsize.models import prasad as P

    n, mid = inp.flows, row.id
    if mid in ("004-erf", "004-sqrt-n"):
        return {"model": "004-erf", "equation": "004 eq. (6)", "quantity": "utilization (lower bound)",
                "value": A.utilization_lower_bound(b, inp.bdp_packets, n), "goal": inp.target_utilization}
    if mid == "001-single-flow":
        return {"model": mid, "equation": "001 eq. (17)", "quantity": "utilization",
                "value": J.reno_single_flow_utilization(inp.bdp_packets, b), "goal": inp.target_utilization}
    if mid == "002-theorem1":
        rho = f.window_peak_load
        return {"model": mid, "equation": "002 eq. (15)", "quantity": "utilization (lower bound)",
                "value": E.theorem1_utilization(b, inp.max_window_packets, rho) * rho,
                "goal": inp.target_utilization * rho}
    if mid == "004-window-bursts":
        rho, w = f.window_peak_load, row.details["burst_packets"]
        p = A.short_flow_overflow_probability(rho, b, lengths=[w], initial_window=w)
        return {"model": mid, "equation": "004 App. C", "quantity": "utilization (lower bound)",
                "value": max(0.0, 1.0 - p * w * w / 2.0) * rho, "goal": inp.target_utilization * rho}
    if mid == "004-loss-window":
        w = (f.bdp_harmonic_packets + b) / n
        return {"model": mid, "equation": "004 §5.1.1, k = 1.22", "quantity": "per-flow loss rate",
                "value": loss_at_window(w)[1], "goal": inp.max_loss}
    if mid == "004-short-flows":
        return {"model": mid, "equation": "004 App. C", "quantity": "P(Q ≥ B)",
                "value": A.short_flow_overflow_probability(inp.short_load, b, lengths=list(inp.short_lengths),
                                                           weights=list(inp.short_weights)),
                "goal": row.details["overflow_probability"]}
    if mid in ("000-L", "000-S") and row.details.get("form") == "pl" and row.buffer_packets > 0:
        omega = b / row.buffer_packets
        if mid == "000-L":
            e = P.sensitivity_pl_l(omega, P.PL_DEFAULT_B)
        else:
            M = P.segments(row.details["flow_size_bytes"], inp.packet_bytes)
            e = P.sensitivity_pl_s(omega, a=P.PL_DEFAULT_A, b=P.PL_DEFAULT_B, f=P.PL_DEFAULT_F, M=M,
                                   D=P.slow_start_rounds(M), C_To=inp.capacity_pps * inp.rtt_harmonic_s)
        return {"model": mid, "equation": "000 eq. (19)", "quantity": "per-flow throughput lost", "value": e,
                "goal": 0.0}
    return None


def _compromise(inp, f, chosen: ModelRow, cap: float, by_id, het) -> tuple[dict, str]:
    comp: dict[str, Any] = {"delay_cap_packets": cap, "wanted_packets": chosen.buffer_packets,
                            "wanted_by": chosen.id, "figures": []}
    txt = (f"the delay goal {units.format_time(inp.max_delay_s)} caps the buffer at C·λ = {num_text(cap)} packets, "
           f"below the {num_text(chosen.buffer_packets)} that {chosen.id} needs: a compromise")
    c3 = (het or {}).get("compromise") or {}
    if chosen.id in ("003-utilization", "003-drop"):
        if c3.get("q") is not None:
            comp["figures"].append({"model": "003-utilization", "equation": "003 eq. (18)",
                                    "quantity": "full-link guarantee q", "value": c3["q"],
                                    "goal": inp.target_utilization})
        if chosen.id == "003-drop" and c3.get("drop_rate_increase") is not None:
            comp["figures"].append({"model": "003-drop", "equation": "003 eq. (19)",
                                    "quantity": "drop-rate increase (at least)", "value": c3["drop_rate_increase"],
                                    "goal": 0.0})
    else:
        fig = _figure_at(inp, f, chosen, cap)
        if fig is not None:
            comp["figures"].append(fig)
    main = comp["figures"][0] if comp["figures"] else None
    if main is not None:
        txt += f"; {main['model']} ({main['equation']}): {main['quantity']} {main['value']:.3g} at C·λ"
        if main["goal"]:
            txt += f" instead of {main['goal']:.3g}"
    # the other applicable models' figures, named, beside it
    others = []
    for oid in ("004-erf", "003-utilization", "001-single-flow", "004-loss-window"):
        r = by_id.get(oid)
        if r is None or oid == chosen.id or not _usable(r) or r.buffer_packets <= cap:
            continue
        if oid == "004-erf" and not mix_is_reno(inp) and _usable(by_id.get("003-utilization")):
            continue   # the mix's utilization model is 003's; 004's Reno figure was not used
        if oid == "003-utilization":
            if c3.get("q") is None:
                continue
            fig = {"model": oid, "equation": "003 eq. (18)", "quantity": "full-link guarantee q",
                   "value": c3["q"], "goal": inp.target_utilization}
        else:
            fig = _figure_at(inp, f, r, cap)
        if fig is not None:
            others.append(fig)
    if others:
        comp["figures"] += others
        txt += "; beside it " + ", ".join(f"{o['model']} ({o['equation']}) {o['quantity']} {o['value']:.3g}"
                                          for o in others)
    # keep the 003 figures under their historical keys too
    for k in ("gamma", "z_q", "q", "tau_reduction", "drop_rate_increase"):
        if c3.get(k) is not None:
            comp[f"003_{k}"] = c3[k]
    return comp, txt


def _predict(inp: LinkInput, f: TrafficFacts, b: float, by_id, chosen: ModelRow) -> dict[str, Any]:
    """Utilization (and per-flow loss) the models predict at the recommended size b, never above
    min(1, peak load): the values of :func:`predicted_figures` under their keys, the window the
    loss figures are evaluated at (``loss_window_packets``), and the figures themselves, each
    labelled with its model and where it is evaluated (``figures``)."""
    figs = predicted_figures(inp, b, list(by_id.values()), facts=f)
    out: dict[str, Any] = {}
    if not inp.flows:
        return out
    if f.peak_load is not None:
        out["peak_load"] = f.peak_load
        out["utilization_upper_bound"] = f.utilization_ceiling
    for fig in figs:
        out[fig["key"]] = fig["value"]
        if fig.get("window_packets") is not None:
            out["loss_window_packets"] = fig["window_packets"]
    out["figures"] = figs
    return out


def _at_text(inp: LinkInput, b: float) -> str:
    return (f"B = {num_text(b)} packets on the described link ({units.format_rate(inp.capacity_bps)}, "
            f"{inp.flows:,} flow{'s' if inp.flows != 1 else ''}, at full size)")


def loss_window(inp: LinkInput, b: float, facts: TrafficFacts | None = None) -> float:
    """The per-flow window (packets) every loss figure is evaluated at: the n long flows share
    C·RTT_h + B packets in flight, w = (C·RTT_h + B)/n (RTT_h the harmonic-mean RTT, 004 A6)."""
    f = facts if facts is not None else traffic_facts(inp)
    return (f.bdp_harmonic_packets + b) / inp.flows


def predicted_figures(inp: LinkInput, b: float, rows: list[ModelRow] | None = None, *,
                      facts: TrafficFacts | None = None, quantities: tuple[str, ...] = ("utilization", "loss"),
                      ) -> list[dict[str, Any]]:
    """Every figure the models predict at a buffer of ``b`` packets, for the described link at its
    full size (never a scaled copy), each labelled by its model.

    The one place these numbers come from: the headline of ``recommend`` (:func:`_predict`) and the
    ``--plot`` panels evaluate this function. Each figure is a dict: ``key`` (the name in
    ``Recommendation.predicted``), ``model`` and ``equation`` (which model gives it), ``quantity``,
    ``value``, ``window_packets`` (loss figures: the per-flow window they are evaluated at, see
    :func:`loss_window`), ``at`` (where: the buffer and the link) and ``text`` (one line for a
    person). Utilization figures never exceed min(1, peak load). Loss comes from one relation,
    paper 004 §5.1.1 (A6) between a long flow's window and its loss rate, given at both ends of
    its published range: Morris's fit l = 0.76/w² (optimistic above ~5 packets) and the square-root
    law l = (1.22/w)² (000 eq. (3)); the simulator measures between or near them (docs/recommend.md).
    """
    from bufsize.models import appenzeller as A
    from bufsize.models import jain as J

    out: list[dict[str, Any]] = []
    if not inp.flows:
        return out
    f = facts if facts is not None else traffic_facts(inp)
    by_id = {r.id: r for r in (rows or [])}
    at = _at_text(inp, b)
    ceiling = f.utilization_ceiling

    def add(key, model, equation, quantity, value, text, **extra):
        out.append({"key": key, "model": model, "equation": equation, "quantity": quantity, "value": value,
                    "at": at, "text": text, **extra})

    if "utilization" in quantities:
        if f.peak_load is not None and ceiling < 1.0:
            add("utilization_upper_bound", "peak load", "n·Wmax/(C·RTT_h) or Nin·Cin/C", "utilization (upper bound)",
                ceiling, f"utilization at most {ceiling:.4%} (peak load: the windows/inputs cannot offer more)")
        if f.window_limited:
            for mid, key, label in (("002-theorem1", "utilization_002_theorem1", "002 Theorem 1, a lower bound"),
                                    ("004-window-bursts", "utilization_004_window_bursts",
                                     "window bursts, 004 App. C, a lower bound")):
                r = by_id.get(mid)
                if r is not None and r.applies:
                    fig = _figure_at(inp, f, r, b)
                    v = min(ceiling, fig["value"])
                    add(key, mid, fig["equation"], "utilization (lower bound)", v,
                        f"utilization ≥ {v:.4%} ({label}) at {at}")
        elif f.input_limited:
            pass
        elif mix_has_bbr(inp):
            pass   # 004 eq. (6) and 001 eq. (17) are Reno's windows; no model here predicts BBR's utilization
        elif inp.flows >= DESYNC_MIN_FLOWS and gaussian_applies(f, inp)[0]:
            v = min(ceiling, A.utilization_lower_bound(b, inp.bdp_packets, inp.flows))
            add("utilization_004_eq6", "004-erf", "004 eq. (6)", "utilization (lower bound)", v,
                f"utilization ≥ {v:.4%} (004 eq. (6), desynchronized Reno flows, a lower bound) at {at}")
            het = by_id.get("003-utilization")
            if not mix_is_reno(inp) and _usable(het):
                from bufsize.models import heterogeneous as H

                mu = inp.bdp_packets + b     # 003 eq. (1): P(W ≥ BDP) with δ = a·μ/√n (eq. (6))
                q = H.utilization_guarantee(mu, het.details["a"] * mu / math.sqrt(inp.flows), inp.bdp_packets)
                add("full_link_probability_003", "003-utilization", "003 eq. (1)", "probability the link is full",
                    q, f"probability the link is full {q:.4%} (003 eq. (1), the mix) at {at}")
        elif inp.flows < DESYNC_MIN_FLOWS:
            v = min(ceiling, J.reno_single_flow_utilization(inp.bdp_packets, b))
            add("utilization_001_eq17_single_flow", "001-single-flow", "001 eq. (17)", "utilization", v,
                f"utilization {v:.4%} if the flows synchronize (001 eq. (17), one Reno sawtooth) at {at}")
    if "loss" in quantities and loss_window_applies(f, inp)[0]:
        w = loss_window(inp, b, f)
        morris, sqrt_law = loss_at_window(w)
        where = f"at w = (C·RTT_h + B)/n = {w:.3g} packets per flow, {at}"
        add("loss_004_a6_per_flow", "004-loss-window", "004 §5.1.1 (A6), Morris fit l = 0.76/w²",
            "per-flow loss rate", morris, f"per-flow loss {morris:.3%} (004 §5.1.1, Morris fit 0.76/w²) {where}",
            window_packets=w)
        add("loss_sqrt_law_per_flow", "004-loss-window", "square-root law l = (1.22/w)² (000 eq. (3))",
            "per-flow loss rate", sqrt_law,
            f"per-flow loss {sqrt_law:.3%} (square-root law (1.22/w)², same w and B)",
            window_packets=w)
    return out
