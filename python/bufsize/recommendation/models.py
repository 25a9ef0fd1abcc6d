"""The models' table: one adapter per paper's model, each computing its size where it can and asking
:mod:`bufsize.recommendation.rules` whether its assumptions hold for this input. An adapter never
marks a model as applying when a rule says no."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from bufsize import units
from bufsize.errors import BufsizeError
from bufsize.recommendation.inputs import (
    ENGINE_CC,
    DEFAULT_S_FLOW_PACKETS,
    SHORT_FLOW_DEFAULT_OVERFLOW,
    LinkInput,
    mix_counts,
    mix_text,
)
from bufsize.recommendation.rules import (
    TrafficFacts,
    ex_form_applies,
    gaussian_applies,
    link_never_full_reason,
    loss_window_applies,
    pl_form_applies,
    spang_bbr_applies,
    spang_single_flow_applies,
    spang_sqrt_n_applies,
    synchronized_applies,
    theorem1_applies,
    window_bursts_applies,
)


@dataclass
class ModelRow:
    """One model's answer for this input."""

    id: str
    paper: str            # "000".."004"
    equation: str
    name: str
    applies: bool
    reason: str
    buffer_packets: float | None
    buffer_bytes: float | None = None
    queueing_delay_s: float | None = None
    goal: str = ""        # which goal this row addresses: utilization, throughput, loss, short-flows, delay
    details: dict[str, Any] = field(default_factory=dict)
    #: where the model comes from when it is not one of the five papers (the full reference)
    source: str | None = None
    #: True for the rules beyond the five papers (models/spang.py), labelled so in every output
    beyond_papers: bool = False


RENO_ONLY_MODELS = ("004-rule-of-thumb", "004-sqrt-n", "004-erf", "001-single-flow", "004-loss-window",
                    "000-S", "000-L", "000-operator")


def description_not_used(row: ModelRow, inp: LinkInput) -> list[str]:
    """The parts of the description ``row``'s model cannot use (said in its row, never silently dropped)."""
    out = []
    if inp.mix is not None and not mix_is_reno(inp) and row.id in RENO_ONLY_MODELS:
        mix_txt = mix_text(inp.mix)   # as the user and the engine name them
        out.append(f"the TCP mix ({mix_txt}): this model assumes Reno/NewReno senders")
    return out


def _fill(row: ModelRow, inp: LinkInput) -> ModelRow:
    unused = description_not_used(row, inp)
    if unused:
        row.details["not_used"] = unused
        row.reason += "; not used: " + "; ".join(unused)
    b = row.buffer_packets
    if b is not None and math.isfinite(b):
        row.buffer_bytes = b * inp.packet_bytes
        row.queueing_delay_s = b * inp.packet_bytes * 8.0 / inp.capacity_bps
    elif b is not None:
        row.buffer_bytes = math.inf
        row.queueing_delay_s = math.inf
    return row



#: Paper 000 Table II (ns-2 simulations in its EX setting): the buffer that maximized the median
#: per-flow throughput, S flows 20 ± 2 and L flows 30 ± 2 packets. Simulation results, not equations.
TABLE2_EX_OPTIMUM = {"S": 20.0, "L": 30.0}
TABLE2_EX_SETTING = "Γ = 10, Cout = 100 Mb/s, Nin = 1000 inputs, 500 closed-loop users, BDP 500 packets"


def num_text(x: float) -> str:
    """A packet count for a sentence: 4 significant digits, thousands separated, never 1.2e+04."""
    if not math.isfinite(x):
        return "∞"
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.4g}"


def _rtt_note(inp: LinkInput, which: str) -> str:
    """' (harmonic-mean RTT 61.7 ms)' when the RTTs spread, so the reader sees which mean a model used."""
    if inp.rtt_max_s <= inp.rtt_min_s:
        return ""
    if which == "harmonic":
        return f" (harmonic-mean RTT {units.format_time(inp.rtt_harmonic_s)})"
    return f" (mean RTT {units.format_time(inp.rtt_s)})"


def _window_burst_size(inp: LinkInput) -> int:
    return int(math.ceil(inp.max_window_packets - 1e-9))


def _window_burst_loss_target(inp: LinkInput) -> float:
    """Drop probability that keeps the throughput loss below 1 − θ: each drop costs at most
    Wmax²/2 packets (the window triangle of 002's proof of Theorem 1, eq. (15))."""
    w = _window_burst_size(inp)
    return min(0.5, 2.0 * (1.0 - inp.target_utilization) / (w * w))


#: The square-root law's constant (000 eq. (3), k = 1.22; 002 eq. (2) has √1.5 = 1.225): l = (k/w)².
_K_SQRT = 1.22


def _window_for_loss(phi: float) -> tuple[float, float]:
    """Per-flow window (packets) at which long TCP flows lose a fraction φ: (square-root law,
    004 §5.1.1's Morris fit). The square-root law is 000 eq. (3) with T = 1 s and m = 1: R = w."""
    from bufsize.models import appenzeller as A
    from bufsize.models import prasad as P

    w_sqrt = max(1.0, P.l_model_throughput(1.0, phi, m=1.0, k=_K_SQRT))
    w_morris = A.window_from_loss_rate(phi) if phi < A.MORRIS_LOSS_CONSTANT else 1.0
    return w_sqrt, w_morris


def loss_at_window(w: float) -> tuple[float, float]:
    """Per-flow loss at window w: (004 §5.1.1's Morris fit 0.76/w², square-root law (1.22/w)²).
    The two bracket what the simulator measures (docs/recommend.md)."""
    from bufsize.models import appenzeller as A

    return min(1.0, A.MORRIS_LOSS_CONSTANT / (w * w)), min(1.0, (_K_SQRT / w) ** 2)


def _rows_appenzeller(inp: LinkInput, f: TrafficFacts) -> list[ModelRow]:
    from bufsize.models import appenzeller as A

    rows = []
    bdp = inp.bdp_packets
    n = inp.flows
    sync_ok, sync_why = synchronized_applies(f, inp)
    if f.link_never_full:
        rot_why = link_never_full_reason(f, inp)
    elif sync_ok:
        rot_why = "one flow or in-phase flows need a full BDP to keep the link busy after a loss (001 eq. (17) gives the size for a target)"
    elif n:
        rot_why = "desynchronized flows need only RTT·C/√n (004 §3.2): the rule of thumb over-provisions"
    else:
        rot_why = "reference value: the classic rule of thumb"
    rows.append(ModelRow(
        "004-rule-of-thumb", "004", "§2 (A1), eq. (3)", "Rule of thumb B = RTT·C",
        applies=sync_ok, reason=rot_why + _rtt_note(inp, "arithmetic"),
        buffer_packets=A.rule_of_thumb(inp.rtt_s, inp.capacity_pps), goal="utilization",
        details={"rtt_mean": "arithmetic", "rtt_s": inp.rtt_s}))
    ok, why = gaussian_applies(f, inp)
    if n:
        rows.append(ModelRow(
            "004-sqrt-n", "004", "§3.2 (A3)", "Desynchronized flows B = RTT·C/√n",
            applies=ok, reason=why + _rtt_note(inp, "arithmetic"),
            buffer_packets=A.sqrt_n_rule(inp.rtt_s, inp.capacity_pps, n),
            goal="utilization", details={"rtt_mean": "arithmetic", "rtt_s": inp.rtt_s}))
        b = A.buffer_for_utilization(inp.target_utilization, bdp, n)
        rows.append(ModelRow(
            "004-erf", "004", "eq. (6) inverted", f"Gaussian bound (Reno): utilization ≥ {inp.target_utilization:.4g}",
            applies=ok and math.isfinite(b),
            reason=(why + _rtt_note(inp, "arithmetic")) if math.isfinite(b)
            else "no finite buffer reaches this target with so few flows",
            buffer_packets=b, goal="utilization", details={"rtt_mean": "arithmetic", "rtt_s": inp.rtt_s}))
    if inp.max_window_packets is not None and n:
        ok_b, why_b = window_bursts_applies(f, inp)
        b = None
        details: dict[str, Any] = {"peak_load": f.window_peak_load, "rtt_mean": "harmonic",
                                   "rtt_s": inp.rtt_harmonic_s}
        if f.window_limited:
            w = _window_burst_size(inp)
            P = _window_burst_loss_target(inp)
            b = min(A.short_flow_buffer(f.window_peak_load, P, lengths=[w], initial_window=w), n * w)
            details.update(burst_packets=w, drop_probability=P, theta=inp.target_utilization)
            why_b += (f"; drop probability ≤ 2(1−θ)/Wmax² = {P:.3g} keeps ≥ θ = {inp.target_utilization:.4g} of the "
                      "peak load (each drop costs ≤ Wmax²/2 packets, 002 eq. (15))")
        rows.append(ModelRow(
            "004-window-bursts", "004", "§4, App. C (A5) with bursts of Wmax",
            "Unpaced window-limited flows: M/G/1 queue of window bursts",
            applies=ok_b, reason=why_b + _rtt_note(inp, "harmonic"), buffer_packets=b, goal="utilization",
            details=details))
    if inp.short_lengths is not None:
        P = inp.max_loss if inp.max_loss is not None else SHORT_FLOW_DEFAULT_OVERFLOW
        b = A.short_flow_buffer(inp.short_load, P, lengths=list(inp.short_lengths), weights=list(inp.short_weights))
        rows.append(ModelRow(
            "004-short-flows", "004", "§4, App. C (A5)", f"Short-flow bursts, P(Q ≥ B) = {P:g}",
            applies=True,
            reason=("M/G/1 queue of slow-start bursts; independent of C and the number of flows "
                    "(worst case: infinitely fast access links)"),
            buffer_packets=b, goal="short-flows",
            details={"overflow_probability": P, "load": inp.short_load}))
    if inp.max_loss is not None and n:
        ok_l, why_l = loss_window_applies(f, inp)
        phi = inp.max_loss
        w_need, w_morris = _window_for_loss(phi)
        b = max(0.0, n * w_need - f.bdp_harmonic_packets)
        b_morris = max(0.0, n * w_morris - f.bdp_harmonic_packets)
        rows.append(ModelRow(
            "004-loss-window", "004", "§5.1.1 (A6), l = k²/w²",
            f"Loss ≤ {phi:g} from the TCP window: B = n·k/√φ − C·RTT_h",
            applies=ok_l,
            reason=(why_l + f"; loss ≤ {phi:g} needs w = {w_need:.3g} packets by the square-root law (k = 1.22, "
                    f"000 eq. (3)) and n·w = C·RTT_h + B; 004's Morris fit (k² = 0.76) gives w = {w_morris:.3g} "
                    f"({num_text(b_morris)} packets), optimistic above ~5 packets" + _rtt_note(inp, "harmonic")),
            buffer_packets=b, goal="loss",
            details={"window_packets": w_need, "k": _K_SQRT, "window_packets_morris": w_morris,
                     "buffer_packets_morris": b_morris, "rtt_mean": "harmonic", "rtt_s": inp.rtt_harmonic_s}))
    return rows


def _row_jain(inp: LinkInput, f: TrafficFacts) -> ModelRow | None:
    from bufsize.models import jain as J

    n = inp.flows
    if not n:
        return None
    bdp = inp.bdp_packets
    target = inp.target_utilization

    def util(b: float) -> float:
        return J.reno_single_flow_utilization(bdp, b)

    # eq. (17) rises from 3/4 at B = 0 to 1 at B = BDP; invert by bisection (monotone).
    if target <= util(0.0):
        b = 0.0
    else:
        lo, hi = 0.0, bdp
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            if util(mid) >= target:
                hi = mid
            else:
                lo = mid
        b = hi
    ok, why = synchronized_applies(f, inp)
    if ok:
        why += "; eq. (17) gives its utilization through an under-buffered router"
    return ModelRow("001-single-flow", "001", "eq. (17) inverted",
                    f"One Reno flow (or synchronized flows): utilization ≥ {target:.4g}",
                    applies=ok, reason=why + _rtt_note(inp, "arithmetic"), buffer_packets=b, goal="utilization",
                    details={"utilization_at_zero_buffer": util(0.0), "rtt_mean": "arithmetic", "rtt_s": inp.rtt_s})


def _rows_enachescu(inp: LinkInput, f: TrafficFacts) -> list[ModelRow]:
    from bufsize.models import enachescu as E

    ok, why = theorem1_applies(f, inp)
    name = "Spaced TCP: B ≥ log_{1/ρ}(Wmax²/(2(1−θ)))"
    b = None
    details: dict[str, Any] = {"rtt_mean": "harmonic", "rtt_s": inp.rtt_harmonic_s}
    rho = f.window_peak_load
    if rho is not None and rho < 1:
        theta = inp.target_utilization
        b = E.theorem1_buffer(inp.max_window_packets, rho, theta)
        details.update(rho=rho, theta=theta, utilization_lower_bound=theta * rho)
        why += (f"; θ = {theta:.4g} is the fraction of the peak load achieved: utilization ≥ θ·ρ = "
                f"{theta * rho:.4g}, at most ρ = {rho:.4g}")
    elif rho is not None:
        details["rho"] = rho
    return [ModelRow("002-theorem1", "002", "Theorem 1, eq. (1)", name, applies=ok,
                     reason=why + (_rtt_note(inp, "harmonic") if rho is not None else ""), buffer_packets=b,
                     goal="utilization", details=details)]


def _het_mix(inp: LinkInput) -> dict[str, float]:
    """The mix as the models see it: DCTCP as Reno (RFC 8257: on a loss it halves as Reno, and it
    grows as Reno; only marks, which no drop-tail FIFO sets, change its response)."""
    if inp.mix is None:
        return {"reno": 1.0}
    out: dict[str, float] = {}
    for k, v in inp.mix.items():
        key = "reno" if k == "dctcp" else k
        out[key] = out.get(key, 0.0) + v
    return out


def mix_is_reno(inp: LinkInput) -> bool:
    return set(_het_mix(inp)) == {"reno"}


def _rows_heterogeneous(inp: LinkInput, f: TrafficFacts) -> tuple[list[ModelRow], dict[str, Any] | None]:
    from bufsize.models import heterogeneous as H

    n = inp.flows
    if not n:
        return [], None
    mix = _het_mix(inp)
    mix_txt = mix_text(mix)
    if "bbr" in mix:   # 003 derives its windows from each protocol's loss response; BBR has none
        why = ("003 models loss-based controls only (Reno, BIC, CUBIC, CTCP: each one's window after a loss); "
               "BBR does not cut its window on loss, so the mix is outside the model: see spang-sqrt-n and spang-bbr")
        rows = [ModelRow("003-utilization", "003", "eqs. (7)–(9)",
                         f"Heterogeneous TCP ({mix_txt}): P(full link) ≥ {inp.target_utilization:.4g}",
                         applies=False, reason=why, buffer_packets=None, goal="utilization")]
        if inp.max_loss is not None:
            rows.append(ModelRow("003-drop", "003", "eq. (14)", f"Utilization and drop rate ≤ {inp.max_loss:g}",
                                 applies=False, reason=why, buffer_packets=None, goal="loss"))
        return rows, None
    try:
        res = H.min_buffer_heterogeneous(
            inp.bdp_packets, n, mix, tau=inp.target_utilization, phi=inp.max_loss, rho=0.99,
            max_delay_s=inp.max_delay_s, capacity_pps=inp.capacity_pps, convention="exact", values="computed")
    except BufsizeError as exc:  # z·a/√n ≥ 1: no finite buffer gives the guarantee with so few flows
        why = f"no finite buffer meets the guarantee: {exc}"
        rows = [ModelRow("003-utilization", "003", "eqs. (7)–(9)",
                         f"Heterogeneous TCP ({mix_txt}): P(full link) ≥ {inp.target_utilization:.4g}",
                         applies=False, reason=why, buffer_packets=math.inf, goal="utilization")]
        if inp.max_loss is not None:
            rows.append(ModelRow("003-drop", "003", "eq. (14)", f"Utilization and drop rate ≤ {inp.max_loss:g}",
                                 applies=False, reason=why, buffer_packets=math.inf, goal="loss"))
        return rows, None
    ok, why = gaussian_applies(f, inp)
    rows = [ModelRow(
        "003-utilization", "003", "eqs. (7)–(9)", f"Heterogeneous TCP ({mix_txt}): P(full link) ≥ {inp.target_utilization:.4g}",
        applies=ok and math.isfinite(res["utilization_buffer_packets"]),
        reason=((why + f"; mix characteristic value a = {res['a']:.4g}") if ok else why) + _rtt_note(inp, "arithmetic"),
        buffer_packets=res["utilization_buffer_packets"], goal="utilization",
        details={"a": res["a"], "rtt_mean": "arithmetic", "rtt_s": inp.rtt_s})]
    if inp.max_loss is not None:
        b = res["drop_buffer_packets"]
        ok_d, why_d = ok, why
        details: dict[str, Any] = {"min_flows_for_any_buffer": res.get("min_flows_drop_free")}
        if ok and math.isfinite(b):
            # 003 assumes windows large enough for the sawtooth; check its answer against the TCP equation
            w = (f.bdp_harmonic_packets + max(b, 0.0)) / n
            loss = loss_at_window(w)[0]   # the optimistic relation: reject 003 only when even it disagrees
            details.update(window_at_buffer=w, loss_004_a6_at_buffer=loss)
            if loss > inp.max_loss:
                ok_d = False
                why_d = (f"windows too small for the sawtooth model: at B = {num_text(b)} the windows average "
                         f"(C·RTT_h + B)/n = {w:.3g} packets, where the TCP equation (004 §5.1.1, 0.76/w²) "
                         f"gives a loss of {loss:.3g} > {inp.max_loss:g}; see 004-loss-window")
        rows.append(ModelRow(
            "003-drop", "003", "eq. (14)", f"Utilization and drop rate ≤ {inp.max_loss:g} (probability 0.99)",
            applies=ok_d and math.isfinite(b), reason=why_d, buffer_packets=b, goal="loss", details=details))
    return rows, res


def _rows_prasad(inp: LinkInput, f: TrafficFacts) -> list[ModelRow]:
    from bufsize.models import prasad as P

    rows = []
    g = inp.gamma
    To = inp.rtt_harmonic_s  # 000 uses the harmonic-mean RTT as To
    if g is None:
        for mode in ("S", "L"):
            rows.append(ModelRow(f"000-{mode}", "000", "eqs. (11)/(13)",
                                 f"Per-flow throughput of {mode}-model flows",
                                 applies=False, reason="needs the input capacity (--input-capacity) or Γ (--gamma)",
                                 buffer_packets=None, goal="throughput"))
        return rows
    if g > 1:
        ok, why = ex_form_applies(f, inp)
        rule = P.operator_rule(g, "L")
        rows.append(ModelRow(
            "000-operator", "000", "§VII-C rule (empirical)", "Operator rule for Γ > 1: 20–30 packets (per-flow throughput)",
            applies=ok,
            reason=(why + f"; the paper's advice for per-flow throughput ({rule.low:g}–{rule.high:g} packets, "
                    f"independent of the BDP), from its ns-2 optima at {TABLE2_EX_SETTING}; "
                    "not a utilization guarantee and not an equation's output"),
            buffer_packets=rule.high, goal="throughput",
            details={"empirical": True, "setting": TABLE2_EX_SETTING, "range_packets": [rule.low, rule.high],
                     "inputs": f.inputs, "inputs_assumed": f.inputs_assumed}))
        for mode, b_sim in TABLE2_EX_OPTIMUM.items():
            flows_txt = "slow-start" if mode == "S" else "congestion-avoidance"
            rows.append(ModelRow(
                f"000-{mode}", "000", "Table II (ns-2 simulation)",
                f"Per-flow throughput of {mode} ({flows_txt}) flows: simulated optimum, EX setting",
                applies=ok,
                reason=(why + f"; Table II's simulated optimum {b_sim:g} ± 2 packets for {flows_txt} flows at "
                        f"{TABLE2_EX_SETTING} (the EX-form eqs. (15)–(18) need fitted a, b, f the paper does not print)")
                + ("" if inp.optimize_for == mode else " (not the selected goal)"),
                buffer_packets=b_sim, goal="throughput",
                details={"form": "ex", "empirical": True, "setting": TABLE2_EX_SETTING,
                         "inputs": f.inputs, "inputs_assumed": f.inputs_assumed}))
        return rows
    s_bytes = DEFAULT_S_FLOW_PACKETS * inp.packet_bytes
    if inp.short_lengths is not None:
        mean_len = sum(l * w for l, w in zip(inp.short_lengths, inp.short_weights))
        s_bytes = math.ceil(mean_len) * inp.packet_bytes
    for mode in ("S", "L"):
        b = P.optimal_buffer("pl", mode, C_pps=inp.capacity_pps, To=To,
                             s_bytes=s_bytes if mode == "S" else None, m=inp.packet_bytes)
        reason = (f"Γ = {g:g} ≤ 1: power-law loss p = a·B^-b (PL form) with the paper's typical b = "
                  f"{P.PL_DEFAULT_B:g}, f = {P.PL_DEFAULT_F:g}, a = {P.PL_DEFAULT_A:g} (not fitted to your "
                  f"traffic); maximizes the per-flow throughput of "
                  + (f"slow-start flows of {s_bytes / inp.packet_bytes:g} packets" if mode == "S"
                     else "congestion-avoidance flows") + _rtt_note(inp, "harmonic"))
        ok_pl, why_pl = pl_form_applies(f, inp)
        if not ok_pl:
            reason = why_pl + "; " + reason
        rows.append(ModelRow(
            f"000-{mode}", "000", "eq. (13)" if mode == "S" else "eq. (11)",
            f"Per-flow throughput of {mode}-model flows (PL form)",
            applies=ok_pl, reason=reason + ("" if inp.optimize_for == mode else " (not the selected goal)"),
            buffer_packets=b, goal="throughput",
            details={"form": "pl", "flow_size_bytes": s_bytes if mode == "S" else None,
                     "rtt_mean": "harmonic", "rtt_s": To}))
    return rows


def _row_input_bound(inp: LinkInput, f: TrafficFacts) -> ModelRow | None:
    """Nin inputs that together carry at most C: the queue never holds more than one packet per input."""
    if not f.input_limited or f.window_limited:
        return None
    b = float(f.inputs + 1)
    return ModelRow(
        "000-input-bound", "000", "Nin·Cin ≤ C (bound)", "Inputs slower than the output in total: no overload",
        applies=True,
        reason=(link_never_full_reason(f, inp) + f"; at most one packet per input arrives while one is sent, "
                f"so {b:g} packets lose nothing" + (" (Nin assumed = flows; give --inputs)" if f.inputs_assumed else "")),
        buffer_packets=b, goal="utilization", details={"inputs": f.inputs, "inputs_assumed": f.inputs_assumed})


def _spang_counts(inp: LinkInput) -> dict[str, int]:
    """Flows per engine control (newreno, cubic, bbr, ...) of the described mix, as simulated."""
    return {ENGINE_CC[k]: c for k, c in mix_counts(_het_mix(inp), inp.flows).items()}


def _spang_count_text(counts: Mapping[str, int]) -> str:
    return ", ".join(f"{c} {k}" for k, c in counts.items())


def _rows_spang(inp: LinkInput, f: TrafficFacts) -> list[ModelRow]:
    """The rules beyond the five papers (Spang, Arslan, McKeown 2021; models/spang.py): the
    single-flow rule for the mix's β, BBR's probe rule and the √n rule for any mix. Each row says
    where it comes from (``source``) and is marked ``beyond_papers``."""
    from bufsize.models import spang as S

    n = inp.flows
    if not n:
        return []
    bdp = inp.bdp_packets
    counts = _spang_counts(inp)
    note = _rtt_note(inp, "arithmetic")
    common = dict(goal="utilization", source=S.SOURCE, beyond_papers=True)
    rows = []

    # 1. (1 − β)/β × BDP for the loss-based flows, β the flow-weighted mean of the mix's
    lossy = {k: c for k, c in counts.items() if k != "bbr"}
    ok, why = spang_single_flow_applies(f, inp)
    b, details = None, {"rtt_mean": "arithmetic", "rtt_s": inp.rtt_s}
    name = "Loss-based flows in phase: B = (1 − β)/β·BDP"
    if lossy:
        beta = S.mix_decrease_factor(lossy)
        b = S.single_flow_buffer(bdp, beta)
        betas = ", ".join(f"{k} {S.decrease_factor(k):.3g}" for k in lossy)
        why += (f"; β = {beta:.3g}" + (f" (flow-weighted: {betas})" if len(lossy) > 1 else f" ({betas})")
                + f" gives {(1 - beta) / beta:.3g} × BDP")
        name = f"Loss-based flows in phase, β = {beta:.3g}: B = (1 − β)/β·BDP"
        details.update(beta=beta, loss_based_flows=lossy)
    elif ok:   # the mix names loss-based controls, but they round to no flow of the n
        ok, why = False, f"no loss-based flow among the {n} flows as the mix rounds them ({_spang_count_text(counts)})"
    rows.append(ModelRow("spang-single-flow", "Spang 2021", "(1−β)/β·BDP", name, applies=ok and b is not None,
                         reason=f"{S.LABEL}: " + why + note, buffer_packets=b, details=details, **common))

    # 2. BBR's probe: (g − 1)·(k/n)·BDP + k × Linux's allowance at C/n
    k = counts.get("bbr", 0)
    ok, why = spang_bbr_applies(f, inp)
    b, details = None, {"rtt_mean": "arithmetic", "rtt_s": inp.rtt_s}
    if k:
        mss = max(1.0, inp.packet_bytes - 40.0)   # the engine's segment: the packet less 40 header bytes
        allowance = S.linux_bbr_allowance(inp.capacity_bps / n, mss)
        b = S.bbr_mix_buffer(bdp, k, n, inp.capacity_bps, mss)
        why += (f"; {k} of {n} flows BBR: (g − 1)·(k/n)·BDP = {(S.BBR_PROBE_GAIN - 1) * bdp * k / n:.4g} packets "
                f"plus Linux's allowance 3 × TSO goal + 2 = {allowance:g} per flow at C/n")
        if k > 1:
            why += ("; with several BBR v1 flows each one's bandwidth estimate includes the others' probes and "
                    "together they can keep up to 2 BDP in flight, which this rule does not cover")
        details.update(bbr_flows=k, probe_gain=S.BBR_PROBE_GAIN, allowance_packets_per_flow=allowance)
    elif ok:
        ok, why = False, f"no BBR flow among the {n} flows as the mix rounds them ({_spang_count_text(counts)})"
    rows.append(ModelRow("spang-bbr", "Spang 2021", "(g−1)·BDP + allowance",
                         "BBR's bandwidth probes lose nothing: B = (g − 1)·(k/n)·BDP + k·allowance",
                         applies=ok and b is not None, reason=f"{S.LABEL}: " + why + note, buffer_packets=b,
                         details=details, **common))

    # 3. √n for any mix
    ok, why = spang_sqrt_n_applies(f, inp)
    b = S.sqrt_n_buffer(bdp, counts)
    ratios = ", ".join(f"{c} {S.window_variation(c) / S.window_variation('reno'):.3g}" for c in counts)
    why += f"; σ/mean of each control's window relative to Reno's: {ratios}"
    rows.append(ModelRow("spang-sqrt-n", "Spang 2021", "BDP/N·√(Σ n_c (r_c/r_Reno)²)",
                         "Desynchronized flows of any mix: B = BDP/N·√(Σ n_c (r_c/r_Reno)²)",
                         applies=ok, reason=f"{S.LABEL}: " + why + note, buffer_packets=b,
                         details={"flows": counts, "rtt_mean": "arithmetic", "rtt_s": inp.rtt_s}, **common))
    return rows


def model_rows(inp: LinkInput, f: TrafficFacts) -> tuple[list[ModelRow], dict[str, Any] | None]:
    """Every model's row for this input (sizes in packets, bytes and queueing time filled in), and
    003's heterogeneous-mix details (None when it does not apply)."""
    rows: list[ModelRow] = []
    rows += _rows_appenzeller(inp, f)
    j = _row_jain(inp, f)
    if j is not None:
        rows.append(j)
    rows += _rows_enachescu(inp, f)
    het_rows, het = _rows_heterogeneous(inp, f)
    rows += het_rows
    rows += _rows_prasad(inp, f)
    ib = _row_input_bound(inp, f)
    if ib is not None:
        rows.append(ib)
    rows += _rows_spang(inp, f)
    if inp.max_delay_s is not None:
        rows.append(ModelRow(
            "003-delay", "003", "§VI, B ≤ C·λ", f"Queueing-delay limit λ = {units.format_time(inp.max_delay_s)}",
            applies=True, reason="an upper limit: a full buffer drains in at most λ",
            buffer_packets=inp.max_delay_s * inp.capacity_pps, goal="delay"))
    for r in rows:
        _fill(r, inp)
    return rows, het
