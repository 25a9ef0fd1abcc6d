"""Traffic sources through the Python API: distributions of what the sources draw (goodness of fit
with scipy.stats), offered load, the short-flow queue against M/G/1 theory (004 §4, Fig. 10), the
closed-loop loss curve's power law for Γ < 1 (000 §VI), and one-line errors for bad entries."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import bufsize
from bufsize.cli import main
from bufsize.models import appenzeller
from bufsize.scenario import Scenario

#: 1000-byte packets (960-byte segments) without SACK on ns-2's agents (IW 2, an ACK per segment):
#: the settings these checks were derived for
PAPERS_TCP = {"packet_size": "1000B", "sack": False, "prr": False}


def _bare(extra: dict, *, rate="10Mbps", buffer="1000pkt", duration="200s", warmup="10s", seed=1) -> Scenario:
    """A bottleneck `bn` with a fast reverse link, and the given sources."""
    return Scenario.from_dict({"seed": seed, "duration": duration, "warmup": warmup, "profile": "ns2",
                               "links": [{"name": "bn", "rate": rate, "buffer": buffer},
                                         {"name": "rev", "rate": "10Gbps"}],
                               "bottleneck": "bn", "measure": {"phase_trace_interval": None}, **extra})


def test_user_think_times_and_pareto_sizes_follow_their_distributions():
    mean_size, shape, mss = 30_000.0, 1.5, 960
    sc = _bare({"users": [{"count": 30, "path": ["bn"], "ack_path": ["rev"], "rtt": "50ms",
                           "think": {"exponential": "0.5s"},
                           "size_bytes": {"pareto": {"shape": shape, "mean": mean_size}}, "tcp": PAPERS_TCP}]},
               rate="50Mbps", duration="300s")
    r = bufsize.simulate(sc, progress=False)
    t = r.transfers
    think = t["think_s"].dropna().to_numpy()
    assert len(think) > 2000
    assert stats.kstest(think, "expon", args=(0, 0.5)).pvalue > 0.01
    # sizes are whole segments: P(S = k) = P((k-1)m < X <= km) for the Pareto X
    seg = t["segments"].to_numpy()
    xm = mean_size * (shape - 1) / shape
    surv = lambda x: np.where(x < xm, 1.0, (xm / np.maximum(x, xm)) ** shape)  # noqa: E731
    edges = [1, 33, 35, 38, 42, 47, 55, 70, 100, 200, 10**9]  # segment-count bins
    observed = np.array([((seg >= a) & (seg < b)).sum() for a, b in zip(edges[:-1], edges[1:])])
    expected = np.array([surv((a - 1) * mss) - surv((b - 1) * mss) for a, b in zip(edges[:-1], edges[1:])])
    expected = expected / expected.sum() * observed.sum()
    assert expected.min() > 20
    assert stats.chisquare(observed, expected).pvalue > 0.01


def test_short_flow_arrivals_are_poisson_with_the_target_load():
    sc = _bare({"short_flows": [{"load": 0.6, "size": {"int_uniform": ["2pkt", "30pkt"]}, "rtt": "20ms..100ms",
                                 "path": ["bn"], "ack_path": ["rev"]}]}, rate="20Mbps")
    r = bufsize.simulate(sc, progress=False)
    src = r.sources.iloc[0]
    assert src["target_bps"] == pytest.approx(0.6 * 20e6)
    assert abs(src["offered_bps"] / src["target_bps"] - 1) < 0.02
    starts = np.sort(r.transfers["start_s"].to_numpy())
    gaps = np.diff(starts)
    lam = len(starts) / (starts[-1] - starts[0])
    assert stats.kstest(gaps, "expon", args=(0, 1 / lam)).pvalue > 0.01
    # sizes uniform over 2..30 whole packets
    counts = np.bincount(r.transfers["segments"].to_numpy(), minlength=31)[2:31]
    assert stats.chisquare(counts).pvalue > 0.01
    assert abs(r.summary["utilization"] - 0.6) < 0.03


def test_udp_and_mice_sources():
    sc = _bare({"udp": [{"rate": "2Mbps", "path": ["bn"], "pattern": {"pareto": {"shape": 1.9}}}],
                "mice": [{"count": 5, "rtt": "40ms", "path": ["bn"], "ack_path": ["rev"], "sleep": "0.1s..0.3s"}]})
    r = bufsize.simulate(sc, progress=False)
    udp = r.sources[r.sources["kind"] == "udp"].iloc[0]
    assert abs(udp["offered_bps"] / 2e6 - 1) < 0.03
    mice = r.transfers[r.transfers["class_name"] == "mice"]
    assert set(mice["segments"]) == set(range(10, 16))
    th = mice["think_s"].dropna()
    assert th.min() >= 0.1 and th.max() <= 0.3
    assert stats.kstest(th, "uniform", args=(0.1, 0.2)).pvalue > 0.01


def _exact_batch_queue(rho: float, length: int) -> float:
    """Mean number of waiting packets when slow-start bursts arrive whole as a Poisson process
    (M^X/D/1, unit service per packet): the first packet of a burst waits λ_b E[X²]/(2(1−ρ)) by
    Pollaczek–Khinchine, the k-th (k−1) more; Little's law with packet rate ρ."""
    m1, m2, _ = appenzeller.burst_moments(length)
    return rho * rho * m2 / (2 * m1 * (1 - rho)) + rho * (m2 / m1 - 1) / 2


@pytest.mark.slow
def test_short_flow_queue_matches_mg1_theory_and_not_the_link_rate():
    # 004 §4 / Fig. 10: only short flows of L packets at load 0.8, very fast access (none), a buffer
    # that never drops. The mean queue depends on L and ρ, not on C. 004's flows "first send out two
    # packets, then four, eight" (§4): initial window 2 (the ns2 profile's 1 stands for ns-2's SYN)
    rho = 0.8
    q = {}
    for length in (2, 14, 16):
        for rate in ("40Mbps", "80Mbps", "200Mbps"):
            sc = _bare({"short_flows": [{"load": rho, "size": f"{length}pkt", "rtt": "20ms..140ms",
                                         "path": ["bn"], "ack_path": ["rev"],
                                         "tcp": dict(PAPERS_TCP, initial_window=2)}]},
                       rate=rate, buffer="10000pkt", duration="40s", warmup="5s")
            s = bufsize.simulate(sc, progress=False).summary
            assert s["drops"] == 0
            q[length, rate] = s["mean_queue_packets"]
        vals = [q[length, r] for r in ("40Mbps", "80Mbps", "200Mbps")]
        assert (max(vals) - min(vals)) / min(vals) < 0.10, (length, vals)
        bound = _exact_batch_queue(rho, length)
        # whole bursts arriving at once are the worst case: ACK clocking spreads later bursts
        assert max(vals) <= 1.02 * bound, (length, vals, bound)
    # two-packet flows are exactly Poisson batches of two: the simulation meets the theory
    assert q[2, "200Mbps"] == pytest.approx(_exact_batch_queue(rho, 2), rel=0.03)
    # 004's observation: 14-packet flows queue more than 16-packet flows
    assert q[14, "80Mbps"] > q[16, "80Mbps"]


def _loss_000(buffer: int, *, gamma_high: bool, seed: int) -> float:
    """000 §VI (Table I rows): closed-loop users (Pareto files, mean 80 KB, shape 1.5; exponential
    think times, mean 1 s), RTTs 30–110 ms, Reno, 1500-byte packets. Γ = 0.1: 20 input links of
    500 Mb/s into 50 Mb/s, 100 users; Γ = 10: 1 Mb/s inputs into 10 Mb/s, 25 users, each transfer
    on its own input link (1000 inputs for 25 users in the paper)."""
    if gamma_high:
        cout, cin, users, inputs = "10Mbps", "1Mbps", 25, 25
    else:
        cout, cin, users, inputs = "50Mbps", "500Mbps", 100, 20
    sc = Scenario.from_dict({
        "seed": seed, "duration": "400s", "warmup": "50s", "profile": "ns2",
        "links": [{"name": "out", "rate": cout, "buffer": f"{buffer}pkt"}, {"name": "rev", "rate": "1Gbps"}],
        "bottleneck": "out", "measure": {"queue_histogram": False, "phase_trace_interval": None},
        "users": [{"count": users, "access_rate": cin, "inputs": inputs, "path": ["out"], "ack_path": ["rev"],
                   "rtt": "30ms..110ms", "tcp": {"cc": "reno", "packet_size": "1500B", "sack": False, "prr": False}}]})
    s = bufsize.simulate(sc, progress=False).summary
    return s["loss_rate"], s["queue_delay_mean_s"]


def _r2(x, y):
    c = np.polyfit(x, y, 1)
    return 1 - np.var(y - np.polyval(c, x)) / np.var(y), c[0]


@pytest.mark.slow
@pytest.mark.parametrize("gamma_high", [False, True], ids=["gamma=0.1", "gamma=10"])
def test_closed_loop_loss_follows_000s_form_for_each_gamma(gamma_high):
    # 000 §VI: for Γ < 1 the loss rate falls as a power law of B (straight on log-log), for Γ > 1
    # exponentially (straight on lin-log), over the range where the delay still grows linearly
    # with B, and for buffers that are "not too small" (the 2-packet point is left out).
    buffers = np.array([5, 10, 20, 40, 80, 160] if not gamma_high else [5, 10, 15, 20, 30, 40, 50, 60],
                       dtype=float)
    runs = [[_loss_000(int(b), gamma_high=gamma_high, seed=s) for s in (1, 2)] for b in buffers]
    loss = np.array([np.mean([r[0] for r in rr]) for rr in runs])
    delay = np.array([np.mean([r[1] for r in rr]) for rr in runs])
    # the buffers tested lie in the linear-delay range: delay grows in proportion to B
    r2_delay, _ = _r2(buffers, delay)
    assert r2_delay > 0.98, delay
    r2_pl, slope_pl = _r2(np.log(buffers), np.log(loss))
    r2_ex, _ = _r2(buffers, np.log(loss))
    if gamma_high:
        assert r2_ex >= 0.9 and r2_ex > r2_pl, (r2_ex, r2_pl, loss)
    else:
        assert r2_pl >= 0.9 and r2_pl > r2_ex, (r2_pl, r2_ex, loss)
        assert -1.0 < slope_pl < -0.1  # 000 §VII-A: b typically around 0.5


BAD = [
    ({"short_flows": [{"load": -0.2, "size": "10pkt", "rtt": "50ms"}]}, "short_flows[0].load"),
    ({"short_flows": [{"load": 1.0, "size": "10pkt", "rtt": "50ms"}]}, "short_flows[0].load"),
    ({"short_flows": [{"load": 0.5, "size": {"pareto": {"shape": 1.0, "mean": "20KB"}}, "rtt": "50ms"}]},
     "short_flows[0].size_bytes.pareto.shape"),
    ({"users": [{"count": 3, "rtt": "50ms", "size": {"pareto": {"shape": 0.8, "mean": "20KB"}}}]},
     "users[0].size_bytes.pareto.shape"),
    ({"short_flows": [{"load": 0.5, "size_bytes": {"empirical": {"values": [1000, 500], "cdf": [0.5, 1.0]}},
                       "rtt": "50ms"}]}, "short_flows[0].size_bytes.empirical"),
    ({"udp": [{"rate": "-1Mbps"}]}, "udp[0].rate_bps"),
]


@pytest.mark.parametrize("extra, field", BAD)
def test_bad_source_entries_get_one_line_naming_the_field(tmp_path, capsys, extra, field):
    import json

    sc = {"duration": "5s", "warmup": "1s",
          "dumbbell": {"capacity": "10Mbps", "flows": 1, "rtt": "50ms", "buffer": "20pkt"}, **extra}
    f = tmp_path / "s.json"
    f.write_text(json.dumps(sc))
    assert main(["simulate", str(f), "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and field in err and "Traceback" not in err, err


def test_bad_cdf_files_and_unknown_controls_in_a_mix(tmp_path, capsys):
    import json

    empty = tmp_path / "empty.csv"
    empty.write_text("# nothing\n")
    nonmono = tmp_path / "nonmono.csv"
    nonmono.write_text("value,cdf\n1000,0.5\n2000,0.4\n3000,1.0\n")
    base = {"duration": "5s", "warmup": "1s",
            "dumbbell": {"capacity": "10Mbps", "flows": 2, "rtt": "50ms", "buffer": "20pkt"}}
    cases = [
        ({**base, "short_flows": [{"load": 0.3, "size_bytes": {"cdf_file": str(empty)}, "rtt": "50ms"}]},
         "short_flows[0].size_bytes.cdf_file"),
        ({**base, "short_flows": [{"load": 0.3, "size_bytes": {"cdf_file": str(nonmono)}, "rtt": "50ms"}]},
         "short_flows[0].size_bytes.empirical"),
        ({**base, "dumbbell": {**base["dumbbell"], "mix": {"reno": 1, "vegas": 1}}}, "dumbbell.mix[1].tcp.cc"),
    ]
    for sc, field in cases:
        f = tmp_path / "s.json"
        f.write_text(json.dumps(sc))
        assert main(["simulate", str(f), "--no-progress"]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and field in err, err


def test_an_empirical_cdf_file_drives_the_sizes(tmp_path):
    cdf = tmp_path / "sizes.csv"
    cdf.write_text("bytes,cdf\n960,0.0\n9600,0.5\n96000,1.0\n")
    sc = _bare({"short_flows": [{"load": 0.3, "size_bytes": {"cdf_file": str(cdf)}, "rtt": "50ms",
                                 "path": ["bn"], "ack_path": ["rev"], "tcp": PAPERS_TCP}]}, rate="50Mbps", duration="60s")
    r = bufsize.simulate(sc, progress=False)
    seg = r.transfers["segments"].to_numpy()
    assert seg.min() >= 1 and seg.max() <= 100
    # half the mass lies below 9600 bytes = 10 segments
    assert abs(np.mean(seg <= 10) - 0.5) < 0.03
    assert math.isclose(r.sources.iloc[0]["offered_bps"], 0.3 * 50e6, rel_tol=0.05)
