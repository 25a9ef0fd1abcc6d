"""Property tests of recommend over random valid and invalid inputs."""

import math
import subprocess
import sys

from hypothesis import given, settings, strategies as st, HealthCheck

from bufsize.recommendation import recommend
from bufsize.cli import main

capacities = st.floats(min_value=1e6, max_value=1e11)
rtts = st.floats(min_value=1e-3, max_value=0.5)
flows = st.integers(min_value=1, max_value=200_000)
targets = st.floats(min_value=0.5, max_value=0.999)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(capacities, rtts, flows, targets, st.sampled_from([None, 0.1, 0.5, 2.0, 10.0]),
       st.sampled_from([None, 1e-3, 1e-2]), st.sampled_from([None, "1ms", "50ms"]),
       st.sampled_from([None, "reno=0.2,bic=0.2,cubic=0.4,ctcp=0.2", "cubic=1"]),
       st.sampled_from([None, "64pkt"]), st.booleans())
def test_random_valid_inputs_never_raise(c, rtt, n, target, gamma, loss, delay, mix, wmax, paced):
    rec = recommend(capacity=c, rtt=rtt, flows=n, target_utilization=target, gamma=gamma, max_loss=loss,
                    max_delay=delay, mix=mix, max_window=wmax, paced=paced and wmax is not None)
    b = rec.recommended["buffer_packets"]
    assert b >= 0 and math.isfinite(b)
    if delay is not None:
        assert b <= float(delay[:-2]) * 1e-3 * rec.input.capacity_pps * (1 + 1e-12)
    d = rec.to_dict()
    assert len(d["models"]) >= 3


@settings(max_examples=40, deadline=None)
@given(capacities, rtts, st.integers(min_value=250, max_value=100_000), st.integers(min_value=1, max_value=10_000))
def test_sqrt_n_rule_decreases_in_n(c, rtt, n, dn):
    r1 = recommend(capacity=c, rtt=rtt, flows=n).model("004-sqrt-n").buffer_packets
    r2 = recommend(capacity=c, rtt=rtt, flows=n + dn).model("004-sqrt-n").buffer_packets
    assert r2 < r1


@settings(max_examples=40, deadline=None)
@given(capacities, rtts, st.integers(min_value=250, max_value=100_000), targets, st.floats(0.001, 0.0009 + 0.001))
def test_erf_target_buffer_increases_with_target(c, rtt, n, t, dt):
    lo = recommend(capacity=c, rtt=rtt, flows=n, target_utilization=t).model("004-erf").buffer_packets
    hi = recommend(capacity=c, rtt=rtt, flows=n, target_utilization=min(t + dt, 0.9999)).model("004-erf").buffer_packets
    assert hi >= lo


bad_values = st.sampled_from(["-1", "0", "nan", "inf", "-inf", "abc", "", "1e999", "5 parsecs", "1..0"])
flags = st.sampled_from(["--capacity", "--rtt", "--flows", "--packet-size", "--input-capacity", "--gamma", "--inputs",
                         "--mix", "--target-utilization", "--max-loss", "--max-delay", "--max-window",
                         "--short-flows", "--short-load", "--optimize-for"])


@settings(max_examples=80, deadline=None)
@given(flags, bad_values)
def test_random_invalid_inputs_exit_2(flag, value):
    import io
    from contextlib import redirect_stderr

    err = io.StringIO()
    with redirect_stderr(err):
        rc = main(["recommend", flag, value])
    text = err.getvalue().strip()
    assert rc == 2, (flag, value, text)
    assert text.startswith("bufsize: error:") and "\n" not in text and "Traceback" not in text


def test_subprocess_bad_input_no_traceback():
    p = subprocess.run([sys.executable, "-m", "bufsize", "recommend", "--capacity", "fast"],
                       capture_output=True, text=True)
    assert p.returncode == 2
    assert p.stderr.strip().count("\n") == 0 and "--capacity" in p.stderr
