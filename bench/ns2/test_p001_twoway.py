"""Paper 001's two-way path (bench/ns2/p001_twoway.tcl) in ns-2.35 and in the engine: the reverse-path
cross traffic costs the target the same in both, and Fig. 6's collapse at Bt = 313 is ns-2's too.

Run with ``.venv/bin/python -m pytest bench/ns2``; skipped without Debian's ``ns2`` package. About a
minute (full-scale runs: 50 s of warm-up, 200 s measured).
"""
from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
pytestmark = pytest.mark.skipif(shutil.which("ns") is None, reason="ns-2 not installed (apt-get install ns2)")


def _load(congested: bool):
    argv = sys.argv
    sys.argv = ["p001_twoway.py"] + (["--congested"] if congested else [])
    try:
        spec = importlib.util.spec_from_file_location(f"p001_twoway_{congested}", HERE / "p001_twoway.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.argv = argv
    return mod


@pytest.mark.parametrize("reverse,s,expect", [(True, 300, 19.7), (False, 450, 25.2)])
def test_the_reverse_traffic_costs_the_windowed_target_the_same_in_ns2_and_the_engine(reverse, s, expect):
    """Fig. 4's Bt = 313 at its lossless peak: 19.7 Mb/s with the reverse cross traffic, 25.2 without,
    in both simulators (001 prints 24)."""
    m = _load(False)
    a = m.ns2_run(reverse, 313, s, **m.FULL)["throughput_mbps"]
    b = m.engine_run(reverse, 313, s, **m.FULL)["throughput_mbps"]
    assert abs(a - b) <= 0.02 * a
    assert abs(a - expect) <= 0.3


def test_fig6_collapses_at_the_smallest_buffer_in_ns2_as_in_the_engine():
    """20 uncapped Reno flows each way: at Bt = 313 both simulators' tight link runs near half its
    capacity, at Bt = 625 both above 90 %."""
    m = _load(True)
    for side in (m.ns2_run, m.engine_run):
        assert side(True, 313, 300, **m.FULL)["utilization"] < 0.6
        assert side(True, 625, 300, **m.FULL)["utilization"] > 0.9
