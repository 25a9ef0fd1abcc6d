"""The testbed's htb token bucket, in its configuration, the twin and the engine's shaped link."""

import pytest

import bufsize
from bufsize.errors import BufsizeError
from bufsize.scenario import Scenario
from bufsize.testbed.compare import simulator_twin
from bufsize.testbed.compare import testbed_from_scenario as to_testbed
from bufsize.testbed.config import DEFAULT_BURST_BYTES, TestbedConfig


def _cfg(**kw):
    return TestbedConfig.dumbbell(rate="50Mbps", rtt="20ms..100ms", buffer="25", flows=20, cc="reno",
                                  duration="12s", warmup="4s", **kw)


def test_the_twin_shapes_its_bottleneck_like_the_testbeds_htb_bucket():
    assert simulator_twin(_cfg()).to_dict()["dumbbell"]["bottleneck_burst_bytes"] == DEFAULT_BURST_BYTES
    assert simulator_twin(_cfg(burst_bytes=1514)).to_dict()["dumbbell"]["bottleneck_burst_bytes"] == 1514


def test_recorded_runs_keep_their_keys_when_the_bucket_is_the_old_fixed_one():
    # Stored kernel runs are keyed by the config dict; runs made before the bucket was a setting
    # used 15 KiB, so that value must not appear in the dict (their keys stay valid).
    assert "burst_bytes" not in _cfg().to_dict()
    assert _cfg(burst_bytes=1514).to_dict()["burst_bytes"] == 1514


def test_a_bucket_smaller_than_a_frame_is_refused_naming_the_field():
    with pytest.raises(BufsizeError, match="burst_bytes"):
        _cfg(burst_bytes=100)


def test_an_ideal_scenario_maps_to_the_smallest_bucket_and_a_shaped_one_keeps_its_bucket():
    sc = Scenario.dumbbell(capacity="50Mbps", flows=4, rtt="40ms..100ms", buffer="20pkt", duration="20s")
    assert to_testbed(sc).burst_bytes == 1514
    shaped = Scenario.dumbbell(capacity="50Mbps", flows=4, rtt="40ms..100ms", buffer="20pkt", duration="20s",
                               bottleneck_burst="15KiB")
    assert shaped.to_dict()["dumbbell"]["bottleneck_burst_bytes"] == 15360
    assert to_testbed(shaped).burst_bytes == 15360


def test_a_zero_bucket_is_refused_in_one_line():
    with pytest.raises(BufsizeError, match="bottleneck_burst_bytes"):
        Scenario.dumbbell(capacity="50Mbps", flows=4, rtt="40ms", buffer="20pkt", bottleneck_burst=0)


def test_a_deep_bucket_acts_as_extra_buffer_at_tiny_buffers():
    # 20 Reno flows at 25 packets: the 15 KiB bucket (about 10 frames) carries more than an ideal
    # link with the same FIFO, and no more than an ideal link with 10 more packets of FIFO would
    # (plus noise); a one-frame bucket stays near the ideal link.
    def util(burst, buffer=25):
        cfg = _cfg(burst_bytes=burst or 1514) if buffer == 25 else TestbedConfig.dumbbell(
            rate="50Mbps", rtt="20ms..100ms", buffer=str(buffer), flows=20, cc="reno", duration="12s", warmup="4s")
        d = simulator_twin(cfg).to_dict()
        if burst is None:
            d["dumbbell"].pop("bottleneck_burst_bytes")
        return bufsize.simulate(Scenario(d), progress=False).summary["utilization"]

    ideal, one, deep, ideal_more = util(None), util(1514), util(15360), util(None, buffer=35)
    assert deep > ideal + 0.02
    assert abs(one - ideal) < 0.03
    assert deep < ideal_more + 0.03
    assert deep <= 1.0 + 15360 * 8 / (50e6 * 8.0)  # at most one bucketful above C over the window
