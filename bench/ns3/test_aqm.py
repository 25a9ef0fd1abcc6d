"""Checks of bench/ns3/aqm.py: both sides get the same discipline parameters, explicitly.

The ns-3 part runs only where Debian's libns3-dev and g++ are installed (bench/ns3/install.sh).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import aqm  # noqa: E402

LABELS = aqm.DISCS + aqm.EXTRA


def _ns3_values(label: str) -> dict[str, float]:
    return {a.split("=")[0].lstrip("-"): float(a.split("=")[1]) for a in aqm.ns3_args(label)}


@pytest.mark.parametrize("label", LABELS)
def test_every_parameter_reaches_both_sides_with_the_same_value(label):
    eng = aqm.engine_discipline(label)
    ns3 = _ns3_values(label)
    p = aqm.PARAMS[label]
    assert eng["name"] == aqm.base(label)
    if aqm.base(label) == "red":
        assert (ns3["minTh"], ns3["maxTh"], ns3["maxP"], ns3["qw"]) == (eng["min_th"], eng["max_th"], eng["max_p"], eng["wq"])
        assert bool(ns3["gentle"]) == eng["gentle"] and eng["adaptive"] is False
    elif aqm.base(label) in ("codel", "fq_codel"):
        assert ns3["target"] / 1e3 == eng["target_s"] and ns3["interval"] / 1e3 == eng["interval_s"]
        if label == "fq_codel":
            assert ns3["fqFlows"] == eng["flows"] and ns3["quantum"] == eng["quantum_bytes"]
    else:
        assert ns3["pieRef"] / 1e3 == eng["target_s"] and ns3["tUpdate"] / 1e3 == eng["t_update_s"]
        assert (ns3["alpha"], ns3["beta"]) == (eng["alpha"], eng["beta"])
        assert ns3["maxBurst"] / 1e3 == eng["max_burst_s"] and eng["cap_drop_adjustment"] is True
    # every value in PARAMS is used on the ns-3 side
    assert len(ns3) == len(p)
    s = aqm.engine_scenario(label, 4, 1)
    assert s["dumbbell"]["buffer"]["limit_packets"] == aqm.limit_of(label)
    assert s["profile"] == "ns3" and s["dumbbell"]["tcp"]["cc"] == "newreno"


def test_flow_lists_are_identical_and_in_range():
    rtts, starts = aqm.flow_inputs(32, 2)
    assert (rtts, starts) == aqm.flow_inputs(32, 2)
    assert all(aqm.RTT_MS[0] <= r <= aqm.RTT_MS[1] for r in rtts)
    assert all(0 <= s < aqm.START_SPREAD_S for s in starts)


needs_ns3 = pytest.mark.skipif(not (Path("/usr/include/ns3").is_dir() and shutil.which("g++")),
                               reason="ns-3 (libns3-dev) or g++ not installed")


@needs_ns3
@pytest.mark.parametrize("label", ["red-25", "codel", "pie", "fq_codel"])
def test_ns3_disc_is_built_with_the_explicit_parameters(label):
    aqm.build_ns3()
    rtts, starts = aqm.flow_inputs(2, 1)
    cmd = [str(aqm.NS3_BIN), "--flows=2", "--capacity=10Mbps", "--duration=3", "--warmup=1",
           f"--qdisc={aqm.base(label)}", f"--limit={aqm.limit_of(label)}", *aqm.ns3_args(label),
           "--rtts=" + ",".join(map(str, rtts)), "--starts=" + ",".join(map(str, starts))]
    r = json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)
    params = r["params"]
    assert params["MaxSize"] == f"{aqm.limit_of(label)}p"
    assert params["UseEcn"] == "false"
    if label == "red-25":
        assert (params["MinTh"], params["MaxTh"], params["LInterm"]) == ("5", "15", "10")
        assert params["Wait"] == "false" and params["LinkBandwidth"] == "10000000bps"
    if label == "pie":
        assert params["UseDequeueRateEstimator"] == "false" and params["UseDerandomization"] == "false"
    if label == "fq_codel":
        assert params["Quantum"] == "1500" and params["Flows"] == "1024"
    assert r["arrivals"] > 0 and 0 < r["utilization"] <= 1.0001
