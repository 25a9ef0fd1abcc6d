"""When does each sizing model apply? The facts about the traffic that :func:`bufsize.recommend` derives
from its input, and the rules built on them (docs/recommend.md explains each one).

Every rule here is a precondition a paper states (or one that follows directly from a paper's own
argument), evaluated on the user's input:

- **window limit** (003 H4, 002 §II): n flows with a window cap Wmax can have at most n·Wmax packets
  in flight. If n·Wmax < C·RTT_h the link can never be full: P(ΣW ≥ BDP) = 0, so the Gaussian
  (004 eq. (6), 003 eq. (7)) and synchronized-flow (001 eq. (17), 004 §2) utilization models do not
  describe this traffic, the achievable utilization is at most the peak load ρ = n·Wmax/(C·RTT_h),
  and the buffer only has to keep the flows from losing packets (002 Theorem 1 when the packets are
  spaced; window bursts otherwise).
- **input limit** (000 §VI, Γ = C/Cin): Nin inputs of capacity Cin can offer at most Nin·Cin; when
  that is ≤ C the output never overloads and its queue never exceeds Nin packets.
- **EX-form inputs** (000 §VI-B): the exponential loss form behind the Γ > 1 rule needs many, lightly
  loaded, independent inputs. Without ``--inputs`` we assume one input per flow (the dumbbell with
  per-flow access links) and say so; "lightly loaded" is taken as a per-input peak load Γ/Nin ≤ 0.1,
  where Binomial(Nin, p) arrivals are close to Poisson (our threshold; the paper gives none).
- **desynchronization** (004 §3.1–3.2): ≥ 250 long flows desynchronize; fewer may act in phase.
- **windows large enough** (004 §3.2): a mean window below 2 packets means timeouts dominate.
- **loss follows the window** (004 §5.1.1, A6): long congestion-limited flows lose about 0.76/w² of
  their packets at window w, whatever the buffer's overflow statistics say.

RTT means (issue 12, item 5): 004, 003 and 001 define their BDP with the mean (arithmetic) RTT, as
the papers do; quantities that are rates — the peak load of window-limited flows (002), the loss of
flows whose windows share the link (A6: Σ w/RTT_i = C with equal windows w gives n·w = C·RTT_h) and
000's To (its harmonic-mean RTT) — use the harmonic mean RTT_h. A range ``lo..hi`` is taken as
uniform (as ``bufsize simulate`` draws it): RTT_h = (hi − lo)/ln(hi/lo).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

#: Paper 004 §3.2 / Fig. 11: the √n results hold for more than about 250 desynchronized flows.
DESYNC_MIN_FLOWS = 250
#: Paper 004 §3.2: below an average window of 2 packets timeouts dominate.
MIN_MEAN_WINDOW = 2.0
#: Our reading of 000 §VI-B's "lightly loaded inputs": each input carries at most this fraction of
#: its capacity when the output is full (Binomial → Poisson is good for p ≤ 0.1).
EX_MAX_INPUT_LOAD = 0.1


def harmonic_mean_rtt(rtts) -> float:
    """Harmonic mean of RTTs: a list of seconds, or a ``(lo, hi)`` tuple for a uniform range."""
    if isinstance(rtts, tuple):
        lo, hi = rtts
        if hi <= lo * (1 + 1e-12):
            return lo
        return (hi - lo) / math.log(hi / lo)
    return len(rtts) / sum(1.0 / r for r in rtts)


@dataclass(frozen=True)
class TrafficFacts:
    """What the input reveals about the traffic; every model's applicability is decided from these."""

    n: int | None
    bdp_packets: float                 # C·RTT (arithmetic mean): 004, 003, 001
    bdp_harmonic_packets: float        # C·RTT_h: rates (002 peak load, A6 loss, 000 To)
    mean_window: float | None          # BDP/n (004 §3.2's W̄ at an empty queue)
    window_peak_load: float | None     # n·Wmax/(C·RTT_h), when Wmax and n are known
    inputs: int | None                 # Nin used for the EX form / input limit
    inputs_assumed: bool               # Nin = n because --inputs was not given
    input_peak_load: float | None      # Nin·Cin/C, when Γ is known
    spaced: bool                       # paced senders or Γ > 1 (002 Theorem 1's smooth arrivals)

    @property
    def peak_load(self) -> float | None:
        """The most the traffic can offer as a fraction of C (None: unbounded as far as we know)."""
        loads = [x for x in (self.window_peak_load, self.input_peak_load) if x is not None]
        return min(loads) if loads else None

    @property
    def utilization_ceiling(self) -> float:
        """min(1, peak load): no model may predict more."""
        p = self.peak_load
        return 1.0 if p is None else min(1.0, p)

    @property
    def window_limited(self) -> bool:
        return self.window_peak_load is not None and self.window_peak_load < 1.0

    @property
    def input_limited(self) -> bool:
        return self.input_peak_load is not None and self.input_peak_load <= 1.0

    @property
    def link_never_full(self) -> bool:
        return self.window_limited or self.input_limited


def traffic_facts(inp) -> TrafficFacts:
    """Derive :class:`TrafficFacts` from a :class:`bufsize.recommendation.LinkInput`."""
    n = inp.flows or None
    c = inp.capacity_pps
    bdp_h = c * inp.rtt_harmonic_s
    wpl = None
    if n and inp.max_window_packets is not None:
        wpl = n * inp.max_window_packets / bdp_h
    nin, assumed, ipl = None, False, None
    if inp.gamma is not None:
        if inp.inputs is not None:
            nin = inp.inputs
        elif n:
            nin, assumed = n, True
        if nin is not None:
            ipl = nin / inp.gamma           # Nin·Cin/C
    return TrafficFacts(
        n=n, bdp_packets=inp.bdp_packets, bdp_harmonic_packets=bdp_h,
        mean_window=(inp.bdp_packets / n) if n else None, window_peak_load=wpl,
        inputs=nin, inputs_assumed=assumed, input_peak_load=ipl,
        spaced=bool(inp.paced) or (inp.gamma is not None and inp.gamma > 1.0))


# --------------------------------------------------------------------------- rules, one per concern

def link_never_full_reason(f: TrafficFacts, inp) -> str:
    """Why the utilization models that assume a full link do not apply (only when f.link_never_full)."""
    if f.window_limited:
        total = f.n * inp.max_window_packets
        return (f"window-limited: the windows sum to at most n·Wmax = {total:,.0f} packets = "
                f"{f.window_peak_load:.3g} of C·RTT_h = {f.bdp_harmonic_packets:,.0f}, so the link is never "
                f"full (P(ΣW ≥ BDP) = 0, 003 H4); utilization ≤ peak load {f.window_peak_load:.3g}")
    return (f"input-limited: {f.inputs} inputs of C/Γ carry at most {f.input_peak_load:.3g}·C, so the "
            f"output never overloads; utilization ≤ {f.input_peak_load:.3g}")


def gaussian_applies(f: TrafficFacts, inp) -> tuple[bool, str]:
    """004 eq. (6) / √n rule and 003 eqs. (7)–(14): many desynchronized, congestion-limited long flows."""
    n = f.n
    if not n:
        return False, "needs the number of long-lived flows (--flows)"
    if f.link_never_full:
        return False, link_never_full_reason(f, inp)
    if n < DESYNC_MIN_FLOWS:
        return False, f"n = {n} is below ~{DESYNC_MIN_FLOWS}: flows may synchronize (004 §3.1)"
    if f.mean_window < MIN_MEAN_WINDOW:
        return False, (f"mean window {f.mean_window:.2g} packets < {MIN_MEAN_WINDOW:g}: timeouts dominate and "
                       "more buffer is needed than the √n rule gives (004 §3.2)")
    why = f"n = {n} ≥ {DESYNC_MIN_FLOWS} long flows desynchronize; the CLT gives a Gaussian Σcwnd"
    if inp.gamma is not None and inp.gamma > 1:
        why += (f"; Γ = {inp.gamma:g} > 1 only smooths the arrivals, the fluid ΣW-vs-BDP argument still "
                "holds (conservative here)")
    return True, why


def synchronized_applies(f: TrafficFacts, inp) -> tuple[bool, str]:
    """001 eq. (17) / 004 §2: one Reno flow, or fewer than ~250 flows that may fall in phase."""
    n = f.n
    if not n:
        return False, "needs the number of long-lived flows (--flows)"
    if f.link_never_full:
        return False, link_never_full_reason(f, inp)
    if n >= DESYNC_MIN_FLOWS:
        return False, f"n = {n} flows desynchronize; the single-flow sawtooth is a pessimistic bound here"
    why = (f"n = {n} < ~{DESYNC_MIN_FLOWS}: flows may synchronize and act like one Reno flow (004 §3.1)")
    if inp.gamma is not None and inp.gamma > 1:
        why += f"; Γ = {inp.gamma:g} > 1 makes that less likely, so this is pessimistic"
    return True, why


def theorem1_applies(f: TrafficFacts, inp) -> tuple[bool, str]:
    """002 Theorem 1: spaced (paced or Γ > 1) window-capped flows on an over-provisioned link (ρ < 1)."""
    if inp.max_window_packets is None:
        return False, "needs the maximum window (--max-window)"
    if not f.n:
        return False, "needs the number of long-lived flows (--flows)"
    rho = f.window_peak_load
    if rho >= 1:
        return False, (f"not over-provisioned: peak load n·Wmax/(C·RTT_h) = {rho:.3g} ≥ 1 "
                       "(Theorem 1 needs ρ < 1)")
    if not f.spaced:
        return False, ("needs smooth arrivals: paced senders (--paced) or access links slower than the "
                       "bottleneck (Γ > 1); unpaced windows leave as bursts (see 004-window-bursts)")
    how = "paced senders" if inp.paced else f"slow access links (Γ = {inp.gamma:g}) space the packets"
    return True, f"over-provisioned (peak load ρ = {rho:.3g} < 1) and {how}"


def window_bursts_applies(f: TrafficFacts, inp) -> tuple[bool, str]:
    """Unpaced window-limited flows: each RTT a flow's window leaves as one back-to-back burst."""
    if inp.max_window_packets is None or not f.n:
        return False, "needs the maximum window (--max-window) and the number of flows"
    if not f.window_limited:
        return False, f"not window-limited (peak load {f.window_peak_load:.3g} ≥ 1): the flows are congestion-limited"
    if f.spaced:
        return False, "packets are spaced (paced or Γ > 1): 002 Theorem 1 applies instead"
    return True, (f"window-limited (peak load {f.window_peak_load:.3g}) and unpaced: each flow's window of up to "
                  f"Wmax = {inp.max_window_packets:g} packets arrives as a burst (an approximation)")


def ex_form_applies(f: TrafficFacts, inp) -> tuple[bool, str]:
    """000 §VI-B EX form (behind the Γ > 1 operator rule): many, lightly loaded, independent inputs."""
    g = inp.gamma
    if g is None:
        return False, "needs the input capacity (--input-capacity) or Γ (--gamma)"
    if g <= 1:
        return False, f"Γ = {g:g} ≤ 1: the PL form applies, not the EX form"
    if f.window_limited:
        return False, heavy_load_reason(f, inp)
    if f.inputs is None:
        return False, "needs the number of inputs (--inputs) or of flows"
    who = (f"assumed Nin = {f.inputs} inputs, one per flow (give --inputs)" if f.inputs_assumed
           else f"Nin = {f.inputs} inputs")
    if f.input_peak_load <= 1:
        return False, (f"{who}: together they carry at most {f.input_peak_load:.3g}·C, the output never "
                       "overloads and the EX form's heavy load is never reached")
    per_input = g / f.inputs
    if per_input > EX_MAX_INPUT_LOAD:
        return False, (f"{who}: each input carries up to Γ/Nin = {per_input:.2g} of its capacity; the EX form "
                       f"needs many lightly loaded inputs (≤ {EX_MAX_INPUT_LOAD:g} here), 000 §VI-B")
    return True, f"Γ = {g:g} > 1, {who}, each loaded ≤ {per_input:.2g}: EX form (000 §VI-B)"


def heavy_load_reason(f: TrafficFacts, inp) -> str:
    return ("000's loss forms are fits to heavily loaded links; " + link_never_full_reason(f, inp))


def pl_form_applies(f: TrafficFacts, inp) -> tuple[bool, str]:
    """000 §VI-B PL form (Γ ≤ 1, heavy-tailed traffic, heavy load)."""
    if f.link_never_full:
        return False, heavy_load_reason(f, inp)
    return True, ""


def loss_window_applies(f: TrafficFacts, inp) -> tuple[bool, str]:
    """004 §5.1.1 (A6): long congestion-limited flows; loss set by the per-flow window."""
    if not f.n:
        return False, "needs the number of long-lived flows (--flows)"
    if f.link_never_full:
        return False, "the flows are not congestion-limited (" + link_never_full_reason(f, inp) + "): no loss is needed to stop them"
    mix = inp.mix or {"reno": 1.0}
    if not any(k != "bbr" for k in mix):
        return False, ("BBR does not set its window from its losses, so its loss does not follow the TCP "
                       "equation (its probes' overflow sets it: see spang-bbr)")
    why = "long congestion-limited flows lose ≈ k²/w² at window w (004 §5.1.1)"
    if any(k not in ("reno", "bbr", "dctcp") for k in mix):
        why += " (Reno's relation: CUBIC follows it at small windows, loses more above)"
    if "bbr" in mix:
        why += "; the BBR flows do not follow it (their loss is set by their probes)"
    return True, why


# ------------------------------------------------ rules beyond the five papers (models/spang.py)
#
# Spang, Arslan and McKeown's updates of the single-flow and √n rules (docs/recommend_modern.md).
# Their preconditions are the papers' own ones (in phase below ~250 flows, desynchronized above,
# a link that can be full) plus which controls the mix holds: the (1 − β)/β rule needs loss-based
# flows, the probe rule BBR flows.

def mix_has_bbr(inp) -> bool:
    """The mix (``--mix``) gives BBR flows."""
    return bool(inp.mix and inp.mix.get("bbr"))


def loss_based_mix(inp) -> dict[str, float]:
    """The loss-based part of the mix (everything but BBR); Reno alone when no mix is given."""
    mix = inp.mix if inp.mix is not None else {"reno": 1.0}
    return {k: v for k, v in mix.items() if k != "bbr" and v > 0}


def spang_single_flow_applies(f: TrafficFacts, inp) -> tuple[bool, str]:
    """(1 − β)/β × BDP: one loss-based flow, or loss-based flows that cut in phase (n < ~250)."""
    if not f.n:
        return False, "needs the number of long-lived flows (--flows)"
    if not loss_based_mix(inp):
        return False, "the mix has no loss-based flows (BBR only, which does not cut on loss): see spang-bbr"
    if f.link_never_full:
        return False, link_never_full_reason(f, inp)
    if f.n >= DESYNC_MIN_FLOWS:
        return False, (f"n = {f.n} flows desynchronize (004 §3.1): spang-sqrt-n applies; sizing for cuts in phase "
                       "over-provisions here")
    why = (f"n = {f.n} < ~{DESYNC_MIN_FLOWS}: the loss-based flows may cut in phase and act like one flow "
           "(004 §3.1); a drop-tail overflow at BDP + B leaves β(BDP + B) ≥ BDP in flight")
    if mix_has_bbr(inp):
        why += "; the BBR flows are left out (they do not cut on loss): sized as if the loss-based flows held the link"
    if inp.gamma is not None and inp.gamma > 1:
        why += f"; Γ = {inp.gamma:g} > 1 makes cuts in phase less likely, so this is pessimistic"
    return True, why


def spang_bbr_applies(f: TrafficFacts, inp) -> tuple[bool, str]:
    """(g − 1)·BDP + Linux's allowance: BBR flows in the mix whose probes may come in phase."""
    if not f.n:
        return False, "needs the number of long-lived flows (--flows)"
    if not mix_has_bbr(inp):
        return False, "no BBR flows in the mix (give them with --mix, e.g. cubic=0.5,bbr=0.5)"
    if f.link_never_full:
        return False, link_never_full_reason(f, inp)
    if f.n >= DESYNC_MIN_FLOWS:
        return False, (f"n = {f.n} flows desynchronize (004 §3.1): spang-sqrt-n applies; probes all in phase "
                       "are unlikely, so this over-provisions")
    return True, ("BBR paces at 5/4 of its bandwidth estimate one round in eight; with the link full the "
                  "excess waits in the queue, so the probes lose nothing with this buffer (Linux tcp_bbr.c's "
                  "allowance included); below it BBR keeps the link busy but loses the overflow of each probe")


def spang_sqrt_n_applies(f: TrafficFacts, inp) -> tuple[bool, str]:
    """BDP/N × √(Σ n_c (r_c/r_Reno)²): many desynchronized flows of any mix (004 §3.2's argument)."""
    ok, why = gaussian_applies(f, inp)
    if not ok:
        return ok, why
    why = (f"n = {f.n} ≥ {DESYNC_MIN_FLOWS} flows desynchronize; the CLT gives a Gaussian sum of windows whose σ "
           "follows each control's window variation (Reno's sawtooth, CUBIC's shallower one, BBR's gain cycle)")
    if mix_has_bbr(inp) and loss_based_mix(inp):
        why += ("; BBR against loss-based flows takes a share that depends on the buffer (an unfair mix, "
                "where Spang et al. say the √n rule can fail)")
    return True, why
