"""Paper 001's two-way path (bench/ns2/p001_twoway.tcl) in ns-2.35 and in the engine: the reverse-path
cross traffic costs the target the same in both, and Fig. 6's collapse at Bt = 313 is ns-2's too.

Run with ``.venv/bin/python -m pytest bench/ns2``; skipped without Debian's ``ns2`` package. About a
minute (full-scale runs: 50 s of warm-up, 200 s measured).
"""
from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
pytestmark = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 not installed (apt-get install ns2)")


_spec = importlib.util.spec_from_file_location("p001_twoway", HERE / "p001_twoway.py")
twoway = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(twoway)


@pytest.mark.parametrize("reverse,s,expect", [(True, 300, 19.7), (False, 450, 25.2)])
def test_the_reverse_traffic_costs_the_windowed_target_the_same_in_ns2_and_the_engine(reverse, s, expect):
    """Fig. 4's Bt = 313 at its lossless peak: 19.7 Mb/s with the reverse cross traffic, 25.2 without,
    in both simulators (001 prints 24)."""
    a = twoway.ns2_run(reverse, 313, s, **twoway.FULL)["throughput_mbps"]
    b = twoway.engine_run(reverse, 313, s, **twoway.FULL)["throughput_mbps"]
    assert abs(a - b) <= 0.02 * a
    assert abs(a - expect) <= 0.3


def test_fig6_collapses_at_the_smallest_buffer_in_ns2_as_in_the_engine():
    """20 uncapped Reno flows each way: at Bt = 313 both simulators' tight link runs near half its
    capacity, at Bt = 625 both above 90 %."""
    for side in (twoway.ns2_run, twoway.engine_run):
        assert side(True, 313, 300, congested=True, **twoway.FULL)["utilization"] < 0.6
        assert side(True, 625, 300, congested=True, **twoway.FULL)["utilization"] > 0.9
