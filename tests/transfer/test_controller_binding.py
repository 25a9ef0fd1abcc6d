"""The Python binding of the SOBAS controller (the rules themselves are tested in crates/sobas)."""

import pytest

from bufsize._engine import Sobas

MS = 1_000_000
S = 1_000_000_000


def feed(c, t, secs, rate, rtt):
    for k in range(secs * 100):
        now = t + k * 10 * MS
        c.on_bytes(now, int(rate * 0.01))
        if k % 2 == 0:
            c.on_probe(now, False, rtt)
    return t + secs * S


def test_trains_then_linear_increase_then_rate_times_rtt():
    c = Sobas(1000, 4_000_000)
    assert c.limit == 4_000_000 and c.phase == "start"
    c.on_rtt(0, 0.1)
    for i in range(5):
        c.on_train(i * MS, 9000, 9 * MS)  # 1 MB/s
    assert c.limit == 100_000 and c.phase == "initial-limit"
    assert c.initial_limit == 100_000
    t = feed(c, 10 * MS, 2, 1e6, 0.1)
    assert c.phase == "linear-increase"
    t = feed(c, t, 7, 1e6, 0.1)
    assert c.phase == "adjusted"
    (d,) = c.decisions()
    assert not d["congested"]
    assert d["rate"] == pytest.approx(1e6, rel=1e-3)
    assert c.limit == pytest.approx(1e5, rel=1e-3)


def test_congested_path_keeps_the_maximum():
    c = Sobas(1000, 4_000_000)
    c.on_probe(0, True)
    feed(c, MS, 7, 2e6, 0.1)
    assert c.phase == "congested" and c.limit == 4_000_000
    assert c.probe_losses[0] == 1


@pytest.mark.parametrize("kw", [{"slope_samples": 1}, {"slope_tolerance": -1.0}, {"sample_period_s": 0.0},
                                {"window_reached": 2.0}])
def test_bad_parameters_raise_naming_the_field(kw):
    with pytest.raises(ValueError) as e:
        Sobas(1000, 4_000_000, **kw)
    assert str(e.value).startswith(next(iter(kw)))
