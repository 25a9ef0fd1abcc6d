"""Property tests of the applicability rules (issue 12): over random inputs,

- no predicted utilization exceeds min(1, peak load), the peak load computed here from the input
  (n·Wmax/(C·RTT_h) for window caps, Nin·Cin/C for the inputs);
- no model marked as applying has a precondition that the input visibly violates.

The preconditions are restated here from the papers (MODELS.md), not imported from the code.
"""

import math

from hypothesis import HealthCheck, given, settings, strategies as st

from bufsize.recommendation import recommend

rtt_specs = st.one_of(
    st.floats(0.005, 0.4).map(lambda r: (f"{r * 1e3:.3f}ms", r, r)),
    st.tuples(st.floats(0.005, 0.2), st.floats(1.0, 8.0)).map(
        lambda t: (f"{t[0] * 1e3:.3f}ms..{t[0] * t[1] * 1e3:.3f}ms", t[0], t[0] * t[1])),
)


def harmonic(lo, hi):
    return lo if hi <= lo * (1 + 1e-9) else (hi - lo) / math.log(hi / lo)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    cap=st.floats(1e6, 4e10),
    rtt=rtt_specs,
    n=st.integers(1, 20_000),
    wmax=st.one_of(st.none(), st.integers(2, 400)),
    paced=st.booleans(),
    gamma=st.sampled_from([None, 0.1, 1.0, 2.0, 4.0, 10.0, 100.0]),
    inputs=st.one_of(st.none(), st.integers(1, 5000)),
    mix=st.sampled_from([None, "reno=1", "reno=0.3,cubic=0.7", "bic=0.5,ctcp=0.5"]),
    loss=st.sampled_from([None, 1e-3, 1e-2, 0.05]),
    delay=st.sampled_from([None, "0.2ms", "5ms"]),
    target=st.floats(0.6, 0.999),
)
def test_rules_and_ceiling(cap, rtt, n, wmax, paced, gamma, inputs, mix, loss, delay, target):
    spec, lo, hi = rtt
    paced = paced and wmax is not None
    inputs = inputs if gamma is not None else None
    rec = recommend(capacity=cap, rtt=spec, flows=n, packet_size="1500B", max_window=None if wmax is None else f"{wmax}pkt",
                    paced=paced, gamma=gamma, inputs=inputs, mix=mix, max_loss=loss, max_delay=delay,
                    target_utilization=target)
    c = cap / 12000
    h = harmonic(rec.input.rtt_min_s, rec.input.rtt_max_s)
    bdp = c * rec.input.rtt_s
    peaks = []
    window_load = None if wmax is None else n * wmax / (c * h)
    if window_load is not None:
        peaks.append(window_load)
    nin = None
    if gamma is not None:
        nin = inputs if inputs is not None else n
        peaks.append(nin / gamma)
    ceiling = min([1.0] + peaks)
    never_full = (window_load is not None and window_load < 1) or (nin is not None and nin / gamma <= 1)

    for k, v in rec.predicted.items():
        if k.startswith("utilization"):
            assert 0 <= v <= ceiling * (1 + 1e-9), (k, v, ceiling)

    applying = {m.id: m for m in rec.models if m.applies}
    for mid in ("004-sqrt-n", "004-erf", "003-utilization", "003-drop"):
        if mid in applying:
            assert n >= 250 and not never_full and bdp / n >= 2, mid
    for mid in ("001-single-flow", "004-rule-of-thumb"):
        if mid in applying:
            assert n < 250 and not never_full, mid
    if "002-theorem1" in applying:
        assert window_load is not None and window_load < 1
        assert paced or (gamma is not None and gamma > 1)
    if "004-window-bursts" in applying:
        assert window_load is not None and window_load < 1 and not paced and not (gamma is not None and gamma > 1)
    if "004-loss-window" in applying:
        assert not never_full
    if "003-drop" in applying:        # 004 A6 at 003's size must not contradict the loss goal
        w = (c * h + applying["003-drop"].buffer_packets) / n
        assert 0.76 / w ** 2 <= loss * (1 + 1e-9)
    if gamma is not None and gamma > 1:
        for mid in ("000-operator", "000-S", "000-L"):
            if mid in applying:
                assert nin / gamma > 1 and gamma / nin <= 0.1, mid
    for mid in ("000-operator", "000-S", "000-L"):    # 000's loss forms are heavy-load fits
        if mid in applying:
            assert gamma is not None and not never_full, mid
    # the utilization goal is never served by a per-flow-throughput rule
    for r in rec.recommended["reasons"]:
        if r.startswith("utilization"):
            assert "000-" not in r.split(":")[1].split("(")[0]
    b = rec.recommended["buffer_packets"]
    assert b >= 0 and math.isfinite(b)
