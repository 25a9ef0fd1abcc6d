"""Checks of bench/validation/run.py and of the ns-3 options it relies on.

Run with ``.venv/bin/python -m pytest bench/validation``. The ns-3 checks are skipped when
Debian's libns3-dev is not installed (bench/ns3/install.sh); each simulates a few seconds.
"""
from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import run  # noqa: E402

HAVE_NS3 = Path("/usr/include/ns3/core-module.h").exists() and shutil.which("g++") is not None
needs_ns3 = pytest.mark.skipif(not HAVE_NS3, reason="libns3-dev not installed (bench/ns3/install.sh)")


def test_grid_has_every_control_flow_count_buffer_and_mix():
    pts = run.grid()
    assert len(pts) == 4 * (9 + 2)
    names = {p["point"] for p in pts}
    assert len(names) == len(pts)
    for b in ("0.1", "0.25", "1", "2"):
        for cc in ("reno", "cubic", "bbr"):
            for n in (1, 8, 32):
                assert f"{cc}-n{n}-b{b}" in names
        assert f"bbr+cubic-1+1-b{b}" in names and f"bbr+cubic-4+4-b{b}" in names


def test_buffers_are_multiples_of_the_bdp_at_the_mean_rtt():
    # 50 Mb/s x 70 ms / (8 x 1514 B) = 289 packets
    assert run.buffer_packets(1.0) == 289
    assert [run.buffer_packets(b) for b in run.BUFFERS_BDP] == [29, 72, 289, 578]


def test_flow_lists_spread_rtts_and_give_both_classes_the_same_mean_rtt():
    fl = run.flow_list({"kind": "reno", "flows": 8})
    rtts = [r for _, r, _ in fl]
    assert min(rtts) == pytest.approx(0.040) and max(rtts) == pytest.approx(0.100)
    assert len(set(rtts)) == 8
    assert run.flow_list({"kind": "cubic", "flows": 1})[0][1] == pytest.approx(0.070)
    mix = run.flow_list({"kind": "bbr+cubic", "flows": 8})
    bbr = [r for c, r, _ in mix if c == "bbr"]
    cub = [r for c, r, _ in mix if c == "cubic"]
    assert len(bbr) == len(cub) == 4
    assert sum(bbr) / 4 == pytest.approx(0.069) and sum(cub) / 4 == pytest.approx(0.071)
    # each class's flows together, BBR first (the engine's mix keeps this order)
    assert [c for c, _, _ in mix] == ["bbr"] * 4 + ["cubic"] * 4
    starts = sorted(s for _, _, s in mix)
    assert starts == pytest.approx([i / 8 for i in range(8)])


def test_class_shares_sum_to_one():
    b, c = run.shares(["bbr", "cubic", "bbr"], [3.0, 1.0, 1.0])
    assert b == pytest.approx(0.8) and c == pytest.approx(0.2)
    assert all(math.isnan(x) for x in run.shares(["bbr"], [0.0]))


def test_verdict_applies_the_targets():
    nan = math.nan
    assert run.verdict(0.90, 0.91, 0.92, {"status": "ok"}) == ("met", False)
    text, miss = run.verdict(0.90, 0.91, 0.95, {"status": "ok"})
    assert miss and text.startswith("MISS")
    text, miss = run.verdict(0.80, 0.90, 0.81, {"status": "ok"})
    assert not miss and "disagree" in text and "engine−kernel +1.0" in text and "engine−ns-3 -9.0" in text
    text, miss = run.verdict(nan, 0.90, 0.95, {"status": "ok"})
    assert not miss and text.startswith("only ns-3") and "off by +5.0" in text
    assert run.verdict(0.9, 0.9, nan, {"status": "missing", "note": "engine lacks bbr"}) == ("engine lacks bbr", False)


def test_verdict_judges_the_kernel_by_the_twin_and_ns3_by_the_ideal_engine():
    nan = math.nan
    # The ideal engine matches ns-3, the shaped twin matches the kernel: met, though the ideal
    # engine is 5 points from the kernel.
    assert run.verdict(0.95, 0.93, 0.90, {"status": "ok"}, 0.94) == ("met", False)
    # The twin misses the kernel: a miss, named by the twin's gap.
    text, miss = run.verdict(0.95, 0.93, 0.93, {"status": "ok"}, 0.90)
    assert miss and "twin−kernel -5.0" in text
    # Only the kernel measured: the twin is what is compared.
    text, miss = run.verdict(0.95, nan, 0.80, {"status": "ok"}, 0.94)
    assert not miss and text == "only kernel measured: twin within -1.0 pt"


def test_csv_rows_merge_and_survive_a_rewrite(tmp_path):
    p = tmp_path / "x.csv"
    run.write_csv(p, {"reno-n8-b1": {"point": "reno-n8-b1", "status": "ok", "utilization": "1"}})
    rows = run.read_csv(p)
    rows["reno-n1-b0.1"] = {"point": "reno-n1-b0.1", "status": "ok", "utilization": "0.8"}
    run.write_csv(p, rows)
    back = run.read_csv(p)
    assert list(back) == ["reno-n1-b0.1", "reno-n8-b1"]  # grid order
    assert back["reno-n8-b1"]["utilization"] == "1"
    assert not list(tmp_path.glob("x.csv.*"))  # no temporary left behind


def test_engine_bbr_rows_depend_on_what_the_engine_offers():
    from bufsize.scenario import congestion_controls

    row = run.run_engine({"point": "bbr-n1-b0.1", "kind": "bbr", "flows": 1, "buffer_bdp": 0.1}) \
        if "bbr" not in congestion_controls() else None
    if row is not None:
        assert row["status"] == "missing" and row["note"] == "engine lacks bbr"


# --- ns-3 options used by run.py ----------------------------------------------------------------

@pytest.fixture(scope="module")
def binary():
    subprocess.run([str(HERE.parent / "ns3" / "build.sh")], check=True, capture_output=True)
    return HERE.parent / "ns3" / "build" / "dumbbell"


def ns3(binary, *args):
    r = subprocess.run([str(binary), "--capacity=10Mbps", "--duration=6", "--warmup=2", "--sack=true",
                        "--printFlows=true", *args], capture_output=True, text=True, timeout=300)
    return r


@needs_ns3
@pytest.mark.parametrize("args,word", [
    (["--flows=2", "--ccs=bbr"], "--ccs"),
    (["--flows=1", "--cc=vegas"], "vegas"),
    (["--flows=1", "--recovery=rack"], "--recovery"),
])
def test_dumbbell_rejects_bad_controls_in_one_line(binary, args, word):
    r = ns3(binary, *args)
    assert r.returncode == 2
    assert r.stderr.count("\n") == 1 and word in r.stderr


@needs_ns3
def test_mixed_run_reports_each_flows_control_and_goodput(binary):
    r = ns3(binary, "--flows=2", "--ccs=bbr,cubic", "--rtts=40,44", "--starts=0,0.1", "--buffer=20",
            "--linuxRto=true")
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["flow_cc"] == ["bbr", "cubic"] and d["linux_rto"] is True
    assert len(d["flow_goodput_bps"]) == 2 and all(g > 0 for g in d["flow_goodput_bps"])
    # goodput cannot exceed what the bottleneck carried
    assert sum(d["flow_goodput_bps"]) <= d["utilization"] * d["capacity_bps"] * 1.001


@needs_ns3
def test_bbr_paced_per_socket_equals_pacing_every_socket(binary):
    # run.py paces only BBR sockets; for an all-BBR run that must equal ns-3's global switch
    args = ("--flows=2", "--cc=bbr", "--rtts=40,60", "--starts=0,0.2", "--buffer=30")
    a = json.loads(ns3(binary, *args).stdout)
    b = json.loads(ns3(binary, *args, "--ns3::TcpSocketState::EnablePacing=true").stdout)
    assert a["utilization"] == b["utilization"] and a["flow_goodput_bps"] == b["flow_goodput_bps"]


def test_single_control_flows_are_the_testbed_dumbbells_flows():
    # kernel-import relies on this: the grid's flows equal `bufsize testbed run --rtt 40ms..100ms`'s
    from bufsize.testbed.config import TestbedConfig

    for n in (1, 8, 32):
        cfg = TestbedConfig.dumbbell(rate="50Mbps", rtt="40ms..100ms", buffer="0.25bdp", flows=n, cc="cubic",
                                     duration="40s", warmup="10s", seed=1)
        want = [(f.cc, round(f.rtt_s, 6), round(f.start_s, 6)) for f in cfg.flows]
        assert run.flow_list({"kind": "cubic", "flows": n}) == want
        assert cfg.buffer_packets == run.buffer_packets(0.25)


def test_the_twin_row_runs_with_the_twins_whole_tcp_and_the_kernels_bucket():
    p = next(q for q in run.grid() if q["point"] == "reno-n1-b0.25")
    row = run.run_engine(p, burst=run.KERNEL_BURST_BYTES)
    assert row["status"] == "ok" and 0.5 < float(row["utilization"]) <= 1.0 + 1e-9
    assert "htb" in row["settings"]


def test_ack_pattern_counts_segments_per_ack_per_connection():
    import ack_pattern

    # two connections interleaved: a advances 2, 3, 0 (a duplicate), then 20 (a hole filled: >= 12);
    # b advances 1; the first packet of each only sets its start; nothing before skip_s counts
    pk = [(0.0, "a", 0), (0.0, "b", 0), (1.0, "a", 2896), (1.1, "b", 1448), (2.0, "a", 7240),
          (3.0, "a", 7240), (4.0, "a", 7240 + 20 * 1448), (0.5, "a", 0)]
    h = ack_pattern.advances(pk[:-1], skip_s=0.5)
    assert dict(h) == {2: 1, 1: 1, 3: 1, 0: 1, ack_pattern.TOP: 1}
    # the 32-bit wrap of the ACK number is an advance, not a huge jump
    h = ack_pattern.advances([(0.0, "c", 2**32 - 1448), (1.0, "c", 1448)], skip_s=0.5)
    assert dict(h) == {2: 1}
