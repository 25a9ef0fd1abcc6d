"""SOBAS in the simulator through the Python API: a scenario file with flows[].sobas, its tables,
and bad SOBAS settings."""

from __future__ import annotations

import pytest

import bufsize
from bufsize.errors import ScenarioError
from bufsize.scenario import Scenario


def _path(sobas, buffer="1250pkt") -> Scenario:
    # 50 Mb/s tight link, 100 ms RTT: C·T = 625 packets of 1000 B
    return Scenario.from_dict({
        "seed": 1, "duration": "40s", "warmup": "1ms",
        "links": [{"name": "acc", "rate": "1Gbps", "delay": "25ms"},
                  {"name": "tight", "rate": "50Mbps", "delay": "25ms", "buffer": buffer},
                  {"name": "tightr", "rate": "50Mbps"},
                  {"name": "racc", "rate": "1Gbps", "delay": "50ms"}],
        "bottleneck": "tight",
        "flows": [{"path": ["acc", "tight"], "ack_path": ["tightr", "racc"], "tcp": {"cc": "reno", "sack": True},
                   "sobas": sobas}]})


def test_sobas_flow_tables():
    r = bufsize.simulate(_path(True), progress=False)
    row = r.sobas.iloc[0]
    assert row["phase"] == "adjusted"
    assert row["capacity_estimate_bps"] == pytest.approx(50e6, rel=0.02)
    d = r.sobas_decisions.iloc[0]
    assert not d["congested"]
    assert d["limit_bytes"] == pytest.approx(d["rate_bps"] / 8 * d["rtt_s"], abs=1)
    # the per-second receive rate reaches saturation and the limit series starts at the maximum
    assert r.sobas_series["receive_bps"].max() == pytest.approx(48e6, rel=0.05)
    assert r.sobas_limits["limit_bytes"].iloc[0] == 16 << 20
    assert r.summary["drops"] == 0


def test_sobas_settings_are_checked():
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.sobas\.probe_interval"):
        _path({"probe_interval": "-1ms"})
    with pytest.raises(ScenarioError, match=r"flows\[0\]\.sobas\.colour"):
        _path({"colour": 1})
    sc = _path({"max_buffer": "64KiB", "probe_size": "100B", "readjust": True})
    r = bufsize.simulate(sc.replace(duration="5s"), progress=False)
    # a 64 KiB receive buffer caps the window: 68 segments of 960 B per 100 ms at most
    assert r.summary["utilization"] < 0.12
