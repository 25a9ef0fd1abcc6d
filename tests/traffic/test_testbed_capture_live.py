"""The testbed's capture option on the real kernel (needs root and the testbed's tools, plus
tcpdump; skipped with the reason elsewhere). A few seconds of traffic: the capture must hold the
run's flows with their configured RTTs, whatever the run's own fidelity verdict on a busy machine."""

from __future__ import annotations

import shutil

import pytest

from bufsize import traffic
from bufsize.testbed.config import TestbedConfig
from bufsize.testbed.runner import run_once

pytestmark = pytest.mark.testbed


@pytest.fixture(autouse=True)
def _need_testbed_and_tcpdump():
    from bufsize.testbed.check import check

    rep = check()
    if not rep.ok:
        pytest.skip("testbed not usable here ('bufsize testbed check'): " + "; ".join(rep.reasons))
    if shutil.which("tcpdump") is None:
        pytest.skip("tcpdump is not installed")


def test_run_captures_its_own_flows(tmp_path):
    cfg = TestbedConfig.dumbbell(rate="10Mbps", rtt="20ms,50ms", buffer="1bdp", flows=2, cc="reno",
                                 duration="5s", warmup="2s", start_spread="0.2s")
    pcap = tmp_path / "run.pcap"
    att = run_once(cfg, capture=pcap)
    assert not att.error, att.error
    rec = traffic.read(pcap)
    assert rec.meta["linktypes"] == [1] and not rec.meta["truncated"]
    prof = traffic.profile(rec, capacity="10Mbps")
    assert prof.long_flows == 2
    got = sorted(prof.long_rtts_s)
    for g, want in zip(got, (0.020, 0.050)):
        assert abs(g - want) <= max(0.05 * want, 1e-3), (got, want)
