"""The kernel-testbed route of paper 000's router-testbed figures (_kernel.py, _p000_kernel.py)."""

from __future__ import annotations

import json
import math

import pandas as pd
import pytest

from bufsize.cli import main
from bufsize.errors import BufsizeError
from bufsize.reproduce import _kernel
from bufsize.reproduce import _p000_kernel as pk
from bufsize.reproduce import _p000_t000 as p
from bufsize.reproduce._core import Context


def test_modes_and_refusals(monkeypatch):
    with pytest.raises(BufsizeError, match="expected one of auto, kernel, off"):
        _kernel.check_mode("maybe")
    monkeypatch.setitem(_kernel._AVAILABLE, "why", "needs root (test)")
    with pytest.raises(BufsizeError, match="cannot run here: needs root"):
        _kernel.check_mode("kernel")
    _kernel.check_mode("auto")
    assert _kernel.skip_reason(Context(testbed="auto")) == "needs root (test)"
    assert _kernel.skip_reason(Context(testbed="off")).startswith("--testbed off")
    monkeypatch.setitem(_kernel._AVAILABLE, "why", None)
    assert _kernel.skip_reason(Context(testbed="auto")) is None


def test_cli_refuses_a_kernel_run_it_cannot_make(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(_kernel._AVAILABLE, "why", "needs root (test)")
    for mode in ("kernel", "sometimes"):
        code = main(["reproduce", "fig_000_02", "--out", str(tmp_path / "x"), "--testbed", mode])
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1 and "--testbed" in err, err
    assert not (tmp_path / "x").exists()


def test_scaled_t000_keeps_the_papers_load_delay_and_rtts():
    for u, n in pk.USERS.items():
        assert n * pk.SCALE_DOWN == u
        cfg = pk.t000_config(u, 19, 1, 25.0, 5.0)
        assert cfg.rate_bps * pk.SCALE_DOWN == p.RATE_BPS and len(cfg.users) == n
        # offered load per user as in the paper: the load over the link is the paper's
        assert all(x.mean_size_bytes == p.MEAN_SIZE_BYTES and x.pareto_shape == p.SHAPE and x.think_mean_s == p.THINK_S
                   and x.cc == "reno" for x in cfg.users)
        assert sorted({round(x.rtt_s * 1e3) for x in cfg.users}) == list(p.RTTS_MS)
    big = pk.t000_config(3000, 19, 1, 25.0, 5.0)
    # the largest buffer drains in the paper's time (B/C) and holds the paper's share of the BDP
    assert big.buffer_bytes * 8 / big.rate_bps == pytest.approx(p.BUFFERS[19] * 8 / p.RATE_BPS, rel=1e-5)
    assert big.buffer_packets == math.ceil(big.buffer_bytes / 1514) and big.initcwnd == 2
    # the smallest sizes are raised to two frames
    assert pk.t000_config(1000, 0, 1, 25.0, 5.0).buffer_bytes == 2 * 1514
    f2 = pk.fig2_config(19)
    assert f2.buffer_bytes * 8 / f2.rate_bps == pytest.approx(p.BUFFERS[19] * 8 / 1e9, rel=1e-5)
    assert len(f2.flows) == pk.FIG2_FLOWS


class _Att:
    def __init__(self, summary, tables):
        self.summary, self.tables = summary, tables


def test_reduction_counts_transfers_accepted_in_the_window():
    users = pd.DataFrame({"user": [0, 1, 2, 3, 4], "size": [47_000, 48_000, 2_000_000, 46_000, 10_000],
                          "t_accept": [9.0, 10.5, 11.0, 12.0, 13.0], "fct_s": [0.2, 0.3, 2.0, 0.1, 0.05]})
    s = {"window_start_s": 10.0, "utilization": 0.9, "loss_rate": 0.01, "mean_queue_packets": 10.0,
         "rate_bps": pk.RATE_BPS, "timeouts": 3, "steal_mean": 0.0, "machine_busy": 0.2}
    r = pk.reduce_t000(_Att(s, {"users": users}), None)
    assert r["transfers_completed"] == 4          # the one accepted before the window is left out
    assert r["small"]["n"] == 2 and r["large"]["n"] == 1
    # throughput = bytes / (accept-to-last-byte + the user's base RTT: 50 ms for user 1, 140 ms for user 3)
    want = sorted([48_000 * 8 / (0.3 + 0.05), 46_000 * 8 / (0.1 + 0.14)])
    assert r["small"]["median"] == pytest.approx(sum(want) / 2)
    assert r["large"]["median"] == pytest.approx(2_000_000 * 8 / (2.0 + 0.12))
    assert r["queue_delay_mean_s"] == pytest.approx(10 * 1514 * 8 / pk.RATE_BPS)


def test_without_the_kernel_the_checks_say_not_measured(tmp_path):
    out = tmp_path / "o"
    assert main(["reproduce", "fig_000_02", "--out", str(out), "--testbed", "off"]) == 0
    checks = json.loads((out / "fig_000_02" / "checks.json").read_text())
    k = [c for c in checks if c["claim"].startswith("[kernel testbed")]
    assert len(k) == 1 and k[0]["ours"] is None and not k[0]["pass"]
    assert k[0]["tolerance"].startswith("not measured: --testbed off")
    assert not (out / "fig_000_02" / "kernel.csv").exists()
    assert "not measured" in (out / "REPORT.md").read_text()


@pytest.mark.testbed
def test_kernel_points_are_stored_and_reused(tmp_path, monkeypatch):
    """One short real run through run_points; a second call (new process memory) loads it from the store."""
    from bufsize.reproduce._realpath import unavailable
    from bufsize.testbed import runner
    from bufsize.testbed.config import TestbedConfig

    why = unavailable()
    if why:
        pytest.skip(why)
    cfg = pk.fig2_config(4, duration=4.0)
    ctx = Context(store_dir=tmp_path / ".sweeps" / "fig")
    recs = _kernel.run_points(ctx, "test", [cfg], pk.reduce_fig2)
    assert recs[0]["reduced"]["max_backlog_bytes"] <= cfg.buffer_bytes
    if not recs[0]["accepted"]:
        pytest.skip("the run was refused by the fidelity checks (a loaded machine): " + "; ".join(recs[0]["reasons"]))
    assert cfg.buffer_bytes - 1514 <= recs[0]["reduced"]["max_backlog_bytes"]
    _kernel._CACHE.clear()
    monkeypatch.setattr(runner, "run", lambda *a, **k: pytest.fail("ran again instead of loading the stored point"))
    again = _kernel.run_points(ctx, "test", [cfg], pk.reduce_fig2)
    assert again[0]["reduced"] == recs[0]["reduced"] and isinstance(cfg, TestbedConfig)


def test_003_partial_version_sizes_buffers_for_its_own_mix():
    from bufsize.models import heterogeneous as h
    from bufsize.reproduce import _p003_kernel as k3
    from bufsize.reproduce._p003_mix import PHI, Z

    a = h.mix_characteristic_value({"reno": 1, "cubic2": 1}, values="paper")
    assert k3.a_mix() == pytest.approx(a) and k3.N == 32
    for ms in k3.RTTS_MS:
        bdp = 100e6 * ms / 1e3 / 8 / 1514
        assert k3.buffer_frames("eq7", ms) == round(h.min_buffer_utilization(bdp, 32, a, Z))
        assert k3.buffer_frames("eq14", ms) == round(h.min_buffer_combined(bdp, 32, a, Z, Z, PHI))
        cfg = k3.config("eq7", ms, 40.0, 10.0)
        assert len(cfg.flows) == 32 and sorted({f.cc for f in cfg.flows}) == ["cubic", "reno"]
        assert all(f.rtt_s == ms / 1e3 for f in cfg.flows)
    # fewer flows than the paper's 198: a larger share of the BDP than its 0.019
    assert k3.buffer_frames("eq7", 90) / (100e6 * 0.09 / 8 / 1514) > 0.05


def test_003_reduction_sums_cwnd_over_whole_passes_in_the_window():
    from bufsize.reproduce import _p003_kernel as k3

    cfg = k3.config("eq7", 28, 4.0, 1.0)
    rows = [[0.5 * k, i, 10 + (k % 2)] for k in range(9) for i in range(32)]
    rows += [[4.3, 0, 99]]                               # after the window: left out
    ti = pd.DataFrame(rows, columns=["t", "flow", "snd_cwnd"])
    flows = pd.DataFrame({"cc": [f.cc for f in cfg.flows], "mean_cwnd": [10.5] * 32, "goodput_bps": [3e6] * 32})
    util = pd.DataFrame({"t_s": [1.0, 2.0, 3.0], "utilization": [0.95, 0.99, 0.97]})
    s = {"utilization": 0.97, "loss_rate": 0.002, "drops": 10, "timeouts": 0, "mean_queue_packets": 5.0,
         "bdp_packets": 331.0}
    r = k3.reduce(_Att(s, {"tcpinfo": ti, "flows": flows, "utilization_1s": util}), cfg)
    # passes at t = 1.0, 1.5, ..., 4.0 (7 of them): sums alternate 352 / 320
    assert r["w_samples"] == 7 and r["w_mean"] == pytest.approx((4 * 320 + 3 * 352) / 7)
    assert r["p_w_ge_bdp"] == pytest.approx(3 / 7)
    assert (r["util_min"], r["util_max"]) == (0.95, 0.99)
