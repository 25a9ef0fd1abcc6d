"""`bufsize compare` for BBR: the kernel's bbr has a simulator twin (no root needed)."""

from __future__ import annotations

from bufsize.testbed.compare import simulator_twin
from bufsize.testbed.compare import testbed_from_scenario as to_testbed
from bufsize.testbed.config import TestbedConfig


def test_bbr_has_a_twin_that_runs():
    from bufsize.simulate import simulate

    cfg = TestbedConfig.dumbbell(rate="10Mbps", rtt="40ms..100ms", buffer="0.25bdp", flows=4, cc="bbr",
                                 duration="20s", warmup="5s")
    tw = simulator_twin(cfg)
    tcp = tw.to_dict()["dumbbell"]["tcp"]
    # Linux's BBR runs with SACK (the kernel default) and paces; the twin's BBR likewise.
    assert (tcp["cc"], tcp["sack"]) == ("bbr", True)
    assert to_testbed(tw) == cfg
    r = simulate(tw, progress=False)
    # BBR keeps a 0.25-BDP link busy (it does not back off on its probes' losses).
    assert 0.9 < r.summary["utilization"] <= 1.0
