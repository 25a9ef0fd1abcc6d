"""How long a verification run is: the warm-up and the longest measurement from the traffic's
slowest cycle (:func:`run_length`), and when a run may stop sooner because its own counters have
settled (:func:`stop_rule`, batch means: :mod:`bufsize.experiments.batchmeans`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from bufsize.experiments.batchmeans import LOSS_REL_TOL, UTILIZATION_ABS_TOL, Criterion, StopRule

#: CUBIC/BIC decrease factor β and CUBIC's c, for the epoch length K = ∛(W(1−β)/c).
_CUBIC_BETA = {"cubic2": 0.7, "cubic1": 0.8, "bic": 0.8}
#: The ones with a Reno-friendly region where the profile has it (``cubic_reno_friendly``); BIC has none.
_RENO_FRIENDLY = ("cubic2", "cubic1")
_CUBIC_C = 0.4
#: BBR (v1) drains to 4 packets for PROBE_RTT (200 ms and a round) when its min-RTT estimate is 10 s
#: old: with BBR in the mix the traffic repeats no faster than that.
_BBR_PROBE_RTT_S = 10.0 + 0.2

#: Longest measurement window of one run (simulated seconds); longer cycles are flagged as too short.
MAX_MEASURE_S = 120.0


@dataclass(frozen=True)
class RunLength:
    warmup_s: float
    measure_s: float
    cycle_s: float
    too_short: bool
    why: str

    @property
    def duration_s(self) -> float:
        return self.warmup_s + self.measure_s

    def to_dict(self) -> dict[str, Any]:
        return {"warmup_s": self.warmup_s, "measure_s": self.measure_s, "duration_s": self.duration_s,
                "cycle_s": self.cycle_s, "too_short": self.too_short, "why": self.why}


def _reno_friendly() -> bool:
    """Whether the profile's CUBIC runs the Reno-friendly region (RFC 9438 §4.3; on in Linux)."""
    from bufsize import profiles as _profiles

    return bool(_profiles.get().tcp.get("cubic_reno_friendly", True))


def _profile_mix_key() -> str:
    """The mix key of the profile's congestion control (what a description without a mix runs)."""
    from bufsize import profiles as _profiles

    cc = str(_profiles.get().tcp["cc"])
    return {"cubic": "cubic2", "cubic-0.8": "cubic1", "bic": "bic", "bbr": "bbr", "ctcp": "ctcp"}.get(cc, "reno")


def simulated_mix(inp) -> dict[str, float]:
    """The controls the runs simulate: the description's mix, or the profile's control where it names none."""
    return dict(inp.mix) if inp.mix else {_profile_mix_key(): 1.0}


def run_length(inp, buffer_packets: float, *, max_measure_s: float = MAX_MEASURE_S,
               reno_friendly_cycle: bool = True, bbr_cycle: bool = True) -> RunLength:
    """Warm-up and measurement for the described traffic with buffers up to ``buffer_packets``.
    ``reno_friendly_cycle`` False: CUBIC's cycle is its epoch K even where the profile's Reno-friendly
    growth brings the window back sooner (what an AQM's slower settling needs, see
    :func:`bufsize.recommendation.verification.beside_run_length`). ``bbr_cycle`` False: the loss-based
    controls' cycle alone, without BBR's PROBE_RTT period (:func:`resettle_s`)."""
    if not inp.flows:
        # short flows alone: no sawtooth to wait for; the queue forgets within a few RTTs, so long
        # enough for many completions at every size (0.1 s at least per transfer class's RTT scale)
        rtt_hi = float(inp.rtt_max_s)
        warmup = max(1.0, 20.0 * rtt_hi)
        measure = min(max(10.0, 200.0 * rtt_hi), max_measure_s)
        return RunLength(warmup, measure, rtt_hi, False,
                         f"short flows alone: warm-up {warmup:.3g} s (20 RTTs), measurement {measure:.3g} s "
                         f"(200 RTTs, at least 10 s) for many completions")
    n = max(1, int(inp.flows or 1))
    rtt_hi = float(inp.rtt_max_s)
    bdp_hi = inp.capacity_pps * rtt_hi
    w_mean = (bdp_hi + max(0.0, buffer_packets)) / n
    w_peak = 4.0 / 3.0 * w_mean                     # Reno's sawtooth: mean 3/4 of the peak
    if inp.max_window_packets is not None:
        w_peak = min(w_peak, float(inp.max_window_packets))
    cycle = max(1.0, w_peak / 2.0) * rtt_hi         # W/2 rounds from W/2 back to W
    what = f"Reno sawtooth of {w_peak:.3g} packets at RTT {rtt_hi * 1e3:.4g} ms"
    # the controls the runs simulate: the mix's, or the profile's where the description names none
    # (CUBIC in linux: its epoch, not Reno's sawtooth, is then the slow cycle)
    simulated = simulated_mix(inp)
    for proto, beta in _CUBIC_BETA.items():
        if simulated.get(proto):
            from bufsize.recommendation.inputs import MIX_DISPLAY

            k = (w_peak * (1 - beta) / _CUBIC_C) ** (1 / 3)
            epoch = f"{MIX_DISPLAY.get(proto, proto)} epoch K = ∛(W(1−β)/c) at W = {w_peak:.3g}"
            if proto in _RENO_FRIENDLY and reno_friendly_cycle and _reno_friendly():
                # CUBIC's window is the larger of the cubic curve and the Reno-friendly estimate,
                # which grows α = 3(1−β)/(1+β) segments per RTT from βW: back at W after
                # (1−β)W/α = (1+β)W/3 RTTs, sooner than K where windows are small or RTTs short
                # (RFC 9438 §4.3; Linux's tcp_friendliness)
                friendly = (1 + beta) / 3 * w_peak * rtt_hi
                if friendly < k:
                    k, epoch = friendly, (f"{MIX_DISPLAY.get(proto, proto)} back at W = {w_peak:.3g} by its "
                                          f"Reno-friendly growth, (1+β)W/3 RTTs, before K")
            if k > cycle:
                cycle, what = k, epoch
    if bbr_cycle and simulated.get("bbr") and _BBR_PROBE_RTT_S + rtt_hi > cycle:
        cycle, what = _BBR_PROBE_RTT_S + rtt_hi, "BBR's PROBE_RTT every 10 s (200 ms and a round)"
    warmup = max(2.0, 20.0 * rtt_hi + cycle)
    want = max(3.0 * cycle, 100.0 * rtt_hi, 5.0)
    measure = min(want, max_measure_s)
    too_short = measure < 2.0 * cycle
    why = (f"slowest cycle ≈ {cycle:.3g} s ({what}); warm-up {warmup:.3g} s (slow start and one cycle), "
           f"measurement {measure:.3g} s" + (f" (wanted {want:.3g} s = 3 cycles)" if measure < want else ""))
    if too_short:
        why += "; too short to judge: fewer than 2 cycles are measured"
    return RunLength(warmup, measure, cycle, too_short, why)


#: BBR's bottleneck-bandwidth filter spans 10 rounds: after a change of the buffer its estimates and
#: pacing are the new ones within that many of the longest round trips.
_BBR_FILTER_ROUNDS = 10


def resettle_s(inp, buffer_packets: float) -> float:
    """How long traffic warmed up behind one buffer needs behind another before it is measured (a
    run continued from a shared warm-up, :class:`bufsize.recommendation.warmstart.WarmStarts`): one
    of the loss-based controls' slowest cycles (:func:`run_length` without BBR's PROBE_RTT), so that
    every window has met the new limit and rebuilt its sawtooth on it, and at least
    :data:`_BBR_FILTER_ROUNDS` of the longest round trips, BBR's bandwidth filter. BBR's PROBE_RTT
    period need not be waited for again: its phase does not depend on the buffer. An approximation,
    checked on the README's links against runs warmed up at their own size
    (bench/recommend_warmstart.md)."""
    loss_cycle = run_length(inp, buffer_packets, bbr_cycle=False).cycle_s
    return max(loss_cycle, _BBR_FILTER_ROUNDS * float(inp.rtt_max_s))


def stop_rule(inp, run: RunLength, goals: Any) -> StopRule | None:
    """When a run of this traffic may stop before ``run``'s full length (batch means over its own
    counters, :mod:`bufsize.experiments.batchmeans`), or None where it may not: a goal judged on
    the whole window's distribution (the p99 queueing delay, the short flows' completion times),
    short flows alone, or a full length no longer than the shortest allowed.

    The shortest measurement is one of the slowest cycles (so BBR's PROBE_RTT or a CUBIC epoch is
    inside the window at least once), 25 of the longest RTTs and 2 s, whichever is longest; reads
    come every 2 longest RTTs or every hundredth of the full measurement, whichever is longer.
    """
    if not inp.flows or goals.max_fct_s is not None or goals.max_delay_p99_s is not None:
        return None
    rtt_hi = float(inp.rtt_max_s)
    shortest = max(run.cycle_s, 25.0 * rtt_hi, 2.0)
    if shortest >= run.measure_s:
        return None
    criteria = []
    if goals.utilization is not None:
        criteria.append(Criterion("utilization", float(goals.utilization), UTILIZATION_ABS_TOL))
    if goals.max_loss is not None:
        criteria.append(Criterion("loss", float(goals.max_loss), 0.0, LOSS_REL_TOL))
    if not criteria:
        return None
    return StopRule(slice_s=max(2.0 * rtt_hi, run.measure_s / 100.0), min_measure_s=shortest,
                    criteria=tuple(criteria))
