"""Paper 001's real-network figures (001-Fig1, 001-Fig10): the helpers and check logic on small
hand-made transfer reports, the skip without root, and one short live transfer across the kernel
testbed (skipped where the testbed cannot run)."""

from __future__ import annotations

import math

import pytest

from bufsize.reproduce import _realpath as rp
from bufsize.reproduce import fig_001_01, fig_001_10
from bufsize.reproduce._core import Context
from bufsize.testbed.config import Limits


def _report(goodputs, retrans, cwnds, *, clamp=470_000, total_bps=None, sobas=None):
    ivs = [{"start": float(i), "end": float(i + 1), "seconds": 1.0, "bytes": int(g * 1e6 / 8),
            "bits_per_second": g * 1e6, "retransmits": r, "snd_cwnd": w, "rtt_ms": 36.0, "window_clamp": clamp}
           for i, (g, r, w) in enumerate(zip(goodputs, retrans, cwnds))]
    total = sum(iv["bytes"] for iv in ivs)
    end = {"sum_received": {"seconds": float(len(ivs)), "bytes": total,
                            "bits_per_second": total_bps if total_bps is not None else 8 * total / len(ivs)},
           "retransmits": sum(retrans), "reason": "server closed"}
    if sobas is not None:
        end["sobas"] = sobas
    return {"start": {"sock": {"window_clamp": clamp}}, "intervals": ivs, "end": end}


def _run(label, mode, goodputs, retrans, cwnds, **kw):
    r = rp.TransferRun(label=label, mode=mode, nbytes=0, report=_report(goodputs, retrans, cwnds, **kw))
    r.bottleneck_drops = sum(retrans)
    r.nbytes = r.received_bytes
    return r


def test_path_of_paper_001():
    p = rp.PAPER001_PATH
    assert p.bdp_bytes == pytest.approx(437_500)
    # 0.5 x BDP = 218.75 KB of 1514-byte frames
    assert p.buffer_packets == 144
    # inside FIGURES.md's window: 470 KB never overflows (34 KB <= Bt), 950 KB does (Bt < 514 KB)
    assert 34e3 <= p.buffer_packets * rp.WIRE_PACKET_BYTES < 514e3
    assert rp.rcvbuf_for_window(470_000) * rp.WINDOW_PER_RCVBUF == pytest.approx(470_000, abs=2)


def test_interval_series_and_loss_measures():
    r = _run("x", "fixed:1", [50, 95, 95, 60, 95], [100, 0, 0, 7, 0], [300, 400, 430, 215, 240])
    df = rp.intervals_frame(r)
    assert list(df["goodput_mbps"]) == [50, 95, 95, 60, 95]
    # the first interval (slow start) is not counted; the fourth is one loss episode
    assert rp.loss_episodes(df) == 1
    assert rp.largest_cwnd_cut(df) == pytest.approx(0.5)
    quiet = rp.intervals_frame(_run("y", "fixed:1", [95, 95], [0, 0], [300, 310]))
    assert rp.loss_episodes(quiet) == 0 and rp.largest_cwnd_cut(quiet) == 0.0


def test_judge_names_each_failed_fidelity_limit():
    lim = Limits()
    good_delay = {"realtime": True, "lateness_p99_us": 100, "lateness_p999_us": 500, "lateness_max_us": 2000}
    assert rp.judge({"steal": 0.0, "busy": 0.3}, good_delay, lim) == []
    bad = rp.judge({"steal": 0.05, "busy": 0.95}, {**good_delay, "lateness_max_us": 30_000}, lim)
    assert len(bad) == 3
    assert bad[0].startswith("steal 5.0 %") and bad[1].startswith("machine busy 95 %") and "lateness max" in bad[2]


def test_fig1_checks_pass_on_the_papers_shape_and_fail_otherwise():
    good470 = _run("470", "fixed:a", [90, 95, 95, 95, 95, 95], [0] * 6, [300, 320, 325, 325, 325, 325])
    lossy950 = _run("950", "fixed:b", [80, 95, 50, 40, 60, 70], [150, 0, 20, 0, 0, 0], [300, 440, 200, 230, 260, 290])
    checks = fig_001_01.make_checks(good470, lossy950, rp.intervals_frame(good470), rp.intervals_frame(lossy950))
    assert len(checks) == len(fig_001_01.CLAIMS)
    by = {c.claim: c for c in checks}
    assert all(c.passed for c in checks if c.claim != fig_001_01.CLAIMS[5]), [c.to_dict() for c in checks]
    assert by[fig_001_01.CLAIMS[5]].passed == (abs(lossy950.goodput_bps / 1e6 - 61.7) <= 0.2 * 61.7)
    # the same two transfers the other way round: every ordering claim fails
    swapped = fig_001_01.make_checks(lossy950, good470, rp.intervals_frame(lossy950), rp.intervals_frame(good470))
    s = {c.claim: c for c in swapped}
    for claim in (fig_001_01.CLAIMS[0], fig_001_01.CLAIMS[3], fig_001_01.CLAIMS[6], fig_001_01.CLAIMS[7]):
        assert not s[claim].passed, claim
    # a transfer rejected by the testbed's fidelity checks fails the fidelity claim
    lossy950.rejected = ["machine busy 95 % > 70 %"]
    again = fig_001_01.make_checks(good470, lossy950, rp.intervals_frame(good470), rp.intervals_frame(lossy950))
    assert not again[-1].passed and again[-1].ours == 1


def test_fig10_checks_on_a_sobas_decision():
    sob = {"phase": "adjusted", "final_limit": 440_000,
           "decisions": [{"t": 6.0, "limit": 440_000, "congested": False}]}
    s = _run("SOBAS", "sobas", [80, 93, 94, 95, 95, 95, 95, 95, 95, 95], [0] * 10, [300] * 10, sobas=sob)
    f450 = _run("450", "fixed:a", [90, 95, 95, 95, 95, 95, 95, 95, 95, 95], [0] * 10, [310] * 10)
    f950 = _run("950", "fixed:b", [80, 95, 50, 40, 60, 70, 80, 50, 40, 60], [150, 0, 20, 0, 0, 0, 0, 9, 0, 0],
                [300, 440, 200, 230, 260, 290, 320, 160, 190, 220])
    runs = [s, f450, f950]
    checks = fig_001_10.make_checks(runs, [rp.intervals_frame(r) for r in runs], 0.035)
    assert len(checks) == len(fig_001_10.CLAIMS)
    assert all(c.passed for c in checks), [c.to_dict() for c in checks if not c.passed]
    # R·T = 95 Mb/s x 35 ms = 415.6 KB; a limit 30 % above it fails
    assert checks[1].paper == pytest.approx(95e6 / 8 * 0.035)
    sob["decisions"][0].update(limit=560_000, t=12.0)
    late = fig_001_10.make_checks(runs, [rp.intervals_frame(r) for r in runs], 0.035)
    assert not late[0].passed and not late[1].passed
    # without a decision nothing about SOBAS can pass
    sob["decisions"] = []
    none = fig_001_10.make_checks(runs, [rp.intervals_frame(r) for r in runs], 0.035)
    assert not none[0].passed and not none[1].passed and math.isnan(none[0].ours)


def test_without_root_the_figures_record_a_skip(monkeypatch):
    monkeypatch.setattr(rp.os, "geteuid", lambda: 1000)
    reason = rp.unavailable()
    assert reason.startswith("needs root for the kernel testbed")
    outs = {}
    for mod in (fig_001_01, fig_001_10):
        out = outs[mod] = mod.run(Context(mode="quick"))
        assert out.data.empty
        # the testbed's claims are not measured; an analytic [C] check (001-Fig1's eq. (4)) still is
        measured = [c for c in out.checks if not c.claim.startswith("[C]")]
        assert [c.claim for c in measured] == mod.CLAIMS
        assert all(not c.passed and c.tolerance.startswith("not measured: needs root") for c in measured)
        assert all(c.passed for c in out.checks if c.claim.startswith("[C]"))
        assert out.notes[0] == f"skipped: {reason}"
    # 001-Fig1's simulator companion still runs without root: with S = 470 KB the window (322 packets)
    # stays below BDP + buffer (292 + 146), with 950 KB (651) it overflows
    sim = outs[fig_001_01].extra_tables["simulation"]
    assert list(sim["completed"]) == [True, True]
    assert sim["drops"].iloc[0] == 0 and sim["drops"].iloc[1] > 0
    assert sim["goodput_mbps"].iloc[1] < sim["goodput_mbps"].iloc[0] <= 100 * 1460 / 1500 * 1.001


@pytest.mark.testbed
def test_live_short_transfer_across_the_emulated_path():
    why = rp.unavailable()
    if why:
        pytest.skip(why)
    # BDP 500 KB, buffer 1 BDP; the window (in the range the figures use) is below the BDP: the flow is
    # window-limited and even slow start's last burst fits the buffer, so nothing may be lost
    spec = rp.PathSpec(rate_bps=50e6, rtt_s=0.08, buffer_bytes=50e6 * 0.08 / 8, cc="reno")
    window = 400_000
    runs, setup = rp.run_transfers(spec, [("w", f"fixed:{rp.rcvbuf_for_window(window)}", 10_000_000)])
    assert setup == []
    (r,) = runs
    assert not r.error, r.error
    assert r.received_bytes == 10_000_000
    # the kernel granted about the window asked for, and a window below the BDP loses nothing
    assert rp.granted_window(r) == pytest.approx(window, rel=0.05)
    assert r.retransmits == 0 and r.bottleneck_drops == 0
    # window-limited: about W / RTT, never above the payload share of the link
    assert r.goodput_bps <= 50e6 * rp.PAYLOAD_SHARE * 1.01
    assert r.goodput_bps == pytest.approx(window * 8 / 0.08, rel=0.35)
    assert len(rp.intervals_frame(r)) >= 1


def test_panel_title_says_when_a_transfer_was_rejected():
    r = _run("S", "fixed:1", [95, 95], [0, 3], [300, 150])
    assert rp.panel_title("S = 470 KB", r) == "S = 470 KB: 95.0 Mb/s, 3 lost"
    r.rejected = ["machine busy 94 % > 70 %", "delay element: lateness max 37 ms > 20 ms"]
    t = rp.panel_title("S = 470 KB", r)
    assert t.endswith("REJECTED by the testbed's checks: machine busy 94 % > 70 % (+1 more)")
