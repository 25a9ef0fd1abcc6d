"""Window-limited, paced, Γ > 1, delay-compromise and tiny-window loss cases, and the RTT means.

Every expected number is computed here from the MODELS.md formulas (math/scipy only, never through
bufsize.models), so a wrong adapter or a wrong rule cannot pass by agreeing with itself.
"""

import json
import math
import re

import pytest
from scipy.special import erf, erfinv
from scipy.stats import norm

from bufsize.recommendation import recommend
from bufsize.cli import main

K = 3 * math.sqrt(3) / (2 * math.sqrt(2))   # 004 eq. (6)
A_RENO = 1 / (3 * math.sqrt(3))              # 003 Table III, Reno


def a_cubic(beta):                           # 003 H1 closed form
    return (1 - beta) * math.sqrt(1 / 7 - 1 / 16) / (1 - (1 - beta) / 4)


def pps(bps, packet=1500):
    return bps / (8 * packet)


# --------------------------------------------------------------------------- 1. window-limited flows

C1 = pps(10e9)
BDP1 = C1 * 0.1
RHO1 = 1000 * 64 / BDP1                      # 0.768


def test_window_limited_paced_sized_by_theorem1():
    rec = recommend(capacity="10Gbps", flows=1000, rtt="100ms", max_window="64pkt", paced=True)
    assert RHO1 == pytest.approx(0.768)
    for mid in ("004-sqrt-n", "004-erf", "003-utilization", "001-single-flow", "004-rule-of-thumb"):
        row = rec.model(mid)
        assert not row.applies, mid
        assert "window-limited" in row.reason and "0.768" in row.reason
    # 002 eq. (1): B ≥ log_{1/ρ}(Wmax²/(2(1−θ))), θ = 0.99 of the peak load
    expected = math.log(64 ** 2 / (2 * (1 - 0.99))) / math.log(1 / RHO1)
    assert expected == pytest.approx(46.3, abs=0.05)
    assert rec.recommended["id"] == "002-theorem1"
    assert rec.recommended["buffer_packets"] == pytest.approx(expected, rel=1e-9)
    assert any("of the peak load" in r for r in rec.recommended["reasons"])
    # utilization: at most the peak load, and θ·ρ at Theorem 1's size (eq. (15): 1 − Wmax²ρ^B/2 = θ)
    assert rec.predicted["utilization_upper_bound"] == pytest.approx(RHO1)
    assert rec.predicted["utilization_002_theorem1"] == pytest.approx(0.99 * RHO1, rel=1e-9)
    for k, v in rec.predicted.items():
        if k.startswith("utilization"):
            assert v <= RHO1 + 1e-12, k
    assert "utilization_004_eq6" not in rec.predicted


def test_window_limited_unpaced_bursts_and_paced_changes_the_answer():
    paced = recommend(capacity="10Gbps", flows=1000, rtt="100ms", max_window="64pkt", paced=True)
    rec = recommend(capacity="10Gbps", flows=1000, rtt="100ms", max_window="64pkt")
    assert not rec.model("002-theorem1").applies
    assert "--paced" in rec.model("002-theorem1").reason
    # M/G/1 with every burst a full window X = 64 (004 App. C): B = ρ/(2(1−ρ))·E[X²]/E[X]·ln(1/P),
    # with P = 2(1−θ)/Wmax² (each drop costs at most Wmax²/2 packets, 002's eq. (15) argument)
    P = 2 * (1 - 0.99) / 64 ** 2
    expected = RHO1 / (2 * (1 - RHO1)) * 64 * math.log(1 / P)
    assert rec.recommended["id"] == "004-window-bursts"
    assert rec.recommended["buffer_packets"] == pytest.approx(expected, rel=1e-9)
    assert rec.recommended["buffer_packets"] > 20 * paced.recommended["buffer_packets"]
    assert rec.predicted["utilization_004_window_bursts"] <= RHO1


def test_window_limited_cli_prints_the_ceiling(capsys):
    assert main(["recommend", "--capacity", "10Gbps", "--flows", "1000", "--rtt", "100ms",
                 "--max-window", "64pkt", "--paced"]) == 0
    out = capsys.readouterr().out
    assert "utilization at most" in out and "76.8000%" in out
    assert re.search(r"Answer: 46\.3 packets", out)


def test_window_cap_above_bdp_keeps_the_gaussian_models():
    # n·Wmax = 1000·200 = 2.4 BDP: the link can be full, 004/003 apply and 002 does not (ρ ≥ 1)
    rec = recommend(capacity="10Gbps", flows=1000, rtt="100ms", max_window="200pkt", paced=True)
    assert rec.model("004-erf").applies and not rec.model("002-theorem1").applies
    y = erfinv(0.99)
    assert rec.recommended["buffer_packets"] == pytest.approx(
        max(y * BDP1 / (K * math.sqrt(1000) - y), BDP1 / (1 - norm.ppf(0.99) * A_RENO / math.sqrt(1000)) - BDP1),
        rel=1e-6)


# --------------------------------------------------------------------------- 2. Γ > 1

BDP2 = pps(1e9) * 0.1


def test_gamma_above_1_operator_rule_is_empirical_per_flow_throughput():
    rec = recommend(capacity="1Gbps", input_capacity="250Mbps", flows=400, rtt="100ms")
    op = rec.model("000-operator")
    assert op.goal == "throughput" and op.details["empirical"] and op.applies
    assert "assumed Nin = 400" in op.reason and "--inputs" in op.reason
    assert "Γ = 10" in op.reason and "not a utilization guarantee" in op.reason
    for mode in "SL":
        row = rec.model(f"000-{mode}")
        assert "simulation" in row.equation and row.goal == "throughput"
    # the utilization goal is served by a utilization model: 004 eq. (6) inverted
    y = erfinv(0.99)
    assert rec.recommended["id"] == "004-erf"
    assert rec.recommended["buffer_packets"] == pytest.approx(y * BDP2 / (K * 20 - y), rel=1e-9)
    assert not any("000" in r for r in rec.recommended["reasons"])


def test_gamma_above_1_inputs_rules():
    # few heavily loaded inputs: Γ/Nin = 0.4, not the EX form's lightly loaded inputs
    rec = recommend(capacity="1Gbps", input_capacity="250Mbps", inputs=10, flows=400, rtt="100ms")
    op = rec.model("000-operator")
    assert not op.applies and "lightly loaded" in op.reason and "0.4" in op.reason
    # two inputs of 250 Mb/s cannot load a 1 Gb/s output beyond 0.5: no overload, tiny queue
    rec = recommend(capacity="1Gbps", input_capacity="250Mbps", inputs=2, flows=400, rtt="100ms")
    assert not rec.model("000-operator").applies and not rec.model("004-erf").applies
    assert rec.predicted["utilization_upper_bound"] == pytest.approx(0.5)
    assert rec.recommended["id"] == "000-input-bound" and rec.recommended["buffer_packets"] == 3
    assert all(v <= 0.5 for k, v in rec.predicted.items() if k.startswith("utilization"))


def test_inputs_needs_gamma_and_is_a_count(capsys):
    for args, needle in ((["--inputs", "10"], "--inputs"),
                         (["--gamma", "4", "--inputs", "2.5"], "--inputs"),
                         (["--gamma", "4", "--inputs", "0"], "--inputs")):
        assert main(["recommend", *args]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("bufsize: error:") and needle in err and "\n" not in err


# --------------------------------------------------------------------------- 3. delay compromise

def test_delay_compromise_reported_by_the_model_that_set_the_size():
    rec = recommend(capacity="10Gbps", flows=300, rtt="250ms", max_delay="5ms")
    C, n = pps(10e9), 300
    bdp = C * 0.25
    cap = 0.005 * C
    y = erfinv(0.99)
    wanted = y * bdp / (K * math.sqrt(n) - y)
    comp = rec.recommended["compromise"]
    assert comp["wanted_by"] == "004-erf"
    assert comp["wanted_packets"] == pytest.approx(wanted, rel=1e-9)
    assert rec.recommended["buffer_packets"] == pytest.approx(cap, rel=1e-12)
    u_cap = erf(K * cap / ((bdp + cap) / math.sqrt(n)))      # 004 eq. (6) at C·λ
    assert u_cap == pytest.approx(0.62, abs=0.01)
    main_fig = comp["figures"][0]
    assert main_fig["model"] == "004-erf" and main_fig["value"] == pytest.approx(u_cap, rel=1e-9)
    # 003's figure beside it, named: eqs. (15)–(18), exact convention
    z = norm.ppf(0.99)
    b_l = bdp / (1 - z * A_RENO / math.sqrt(n)) - bdp
    g = (bdp + cap) / (bdp + b_l)
    q = norm.cdf(z / g - (1 / g - 1) * math.sqrt(n) / A_RENO)
    assert q == pytest.approx(0.961, abs=0.001)
    other = [x for x in comp["figures"] if x["model"] == "003-utilization"]
    assert other and other[0]["value"] == pytest.approx(q, rel=1e-6)
    txt = [r for r in rec.recommended["reasons"] if "compromise" in r][0]
    assert txt.index("004-erf (004 eq. (6))") < txt.index("003-utilization (003 eq. (18))")
    assert rec.predicted["utilization_004_eq6"] == pytest.approx(u_cap, rel=1e-9)


def test_delay_compromise_with_a_mix_is_003s():
    rec = recommend(capacity="10Gbps", flows=300, rtt="250ms", max_delay="1ms", mix="cubic=1")
    comp = rec.recommended["compromise"]
    assert comp["wanted_by"] == "003-utilization"
    assert comp["figures"][0]["equation"] == "003 eq. (18)"


# --------------------------------------------------------------------------- 4. loss with tiny windows

def _mix_a(fr_reno, fr_cubic):
    return math.sqrt(fr_reno * A_RENO ** 2 + fr_cubic * a_cubic(0.7) ** 2)


def test_loss_goal_tiny_windows_uses_the_tcp_equation():
    rec = recommend(capacity="100Mbps", flows=300, rtt="150ms", mix="reno=0.3,cubic=0.7", max_loss="1%")
    n, phi = 300, 0.01
    bdp = pps(100e6) * 0.15                   # 1250 packets
    a = _mix_a(0.3, 0.7)
    z = norm.ppf(0.99)
    b7 = bdp / (1 - z * a / math.sqrt(n)) - bdp
    b14 = max(b7, (z * a / math.sqrt(n) + 1) * (1 - phi) * (bdp + b7) - bdp)   # 003 eq. (14)
    assert b14 == pytest.approx(31.65, abs=0.01)
    assert rec.model("003-drop").buffer_packets == pytest.approx(b14, rel=1e-6)
    w = (bdp + b14) / n
    assert 0.76 / w ** 2 > phi                 # 004 A6 at 003's size: ≈ 4 % loss
    drop = rec.model("003-drop")
    assert not drop.applies and "windows too small" in drop.reason
    # the size: windows w with (k/w)² = φ, k = 1.22 (000 eq. (3)), fill C·RTT + B
    expected = n * 1.22 / math.sqrt(phi) - bdp
    assert expected == pytest.approx(2410, abs=0.01)
    assert rec.recommended["id"] == "004-loss-window"
    assert rec.recommended["buffer_packets"] == pytest.approx(expected, rel=1e-9)
    # 004 A6's Morris fit (w = √(0.76/φ) = 8.72 packets) is shown beside it: 1365 packets
    row = rec.model("004-loss-window")
    assert row.details["buffer_packets_morris"] == pytest.approx(n * math.sqrt(0.76 / phi) - bdp, rel=1e-9)
    assert row.details["buffer_packets_morris"] == pytest.approx(1365.4, abs=0.1)
    assert rec.predicted["loss_sqrt_law_per_flow"] == pytest.approx(phi, rel=1e-9)
    w_rec = (bdp + expected) / n
    assert rec.predicted["loss_004_a6_per_flow"] == pytest.approx(0.76 / w_rec ** 2, rel=1e-9)


def test_loss_goal_large_windows_keeps_003():
    # OC-12, 90 ms (BDP 4665 packets), 300 flows of 003's testbed mix: windows ≈ 15.6 packets, where
    # A6 gives 0.31 % < 1 %: 003 eq. (14) holds and its size is the loss answer
    mix = "reno=0.212,bic=0.258,cubic1=0.152,cubic2=0.207,ctcp=0.171"
    rec = recommend(capacity="622Mbps", rtt="90ms", flows=300, mix=mix, max_loss=0.01)
    bdp = pps(622e6) * 0.09
    drop = rec.model("003-drop")
    assert drop.applies
    w = (bdp + drop.buffer_packets) / 300
    assert 0.76 / w ** 2 < 0.01
    assert rec.model("004-loss-window").buffer_packets == 0.0      # 300·12.2 < BDP
    assert rec.recommended["id"] == "003-drop"
    assert any(r.startswith("loss ≤ 0.01: 003-drop") for r in rec.recommended["reasons"])


def test_mix_changes_the_recommended_size():
    reno = recommend(capacity="622Mbps", rtt="100ms", flows=1000)
    cubic = recommend(capacity="622Mbps", rtt="100ms", flows=1000, mix="reno=0.2,cubic=0.8")
    bdp = pps(622e6) * 0.1
    a = _mix_a(0.2, 0.8)
    expected = bdp / (1 - norm.ppf(0.99) * a / math.sqrt(1000)) - bdp
    assert cubic.recommended["id"] == "003-utilization"
    assert cubic.recommended["buffer_packets"] == pytest.approx(expected, rel=1e-6)
    assert cubic.recommended["buffer_packets"] < reno.recommended["buffer_packets"]
    assert any("mix" in r for r in cubic.recommended["reasons"])
    # 003 eq. (1) at its own size: P(W ≥ BDP) = Φ(B/(a·μ/√n)) with μ = BDP + B is exactly the target
    B = cubic.recommended["buffer_packets"]
    p_full = norm.cdf(B / (a * (bdp + B) / math.sqrt(1000)))
    assert p_full == pytest.approx(0.99, rel=1e-9)
    assert cubic.predicted["full_link_probability_003"] == pytest.approx(p_full, rel=1e-9)


# --------------------------------------------------------------------------- 5. RTT means

def test_rtt_means_per_model():
    h = 0.12 / math.log(7)                     # uniform 20..140 ms: (hi − lo)/ln(hi/lo)
    rec = recommend(capacity="155Mbps", rtt="20ms..140ms", flows=400, packet_size="1000B", gamma=0.5,
                    max_window="4pkt", max_loss=0.01)
    C = 155e6 / 8000
    assert rec.input.rtt_harmonic_s == pytest.approx(h, rel=1e-12)
    assert rec.input.bdp_packets == pytest.approx(C * 0.08)                         # 004/003: arithmetic
    assert rec.model("004-sqrt-n").buffer_packets == pytest.approx(C * 0.08 / 20)
    # 000's To is the harmonic mean: eq. (11) B̂_L = b/(f(2−b))·C·To with b = 0.5, f = 0.4
    assert rec.model("000-L").buffer_packets == pytest.approx(0.5 / (0.4 * 1.5) * C * h, rel=1e-9)
    # peak load of window-limited flows: Σ Wmax/RTT_i = n·Wmax/RTT_h
    assert rec.traffic["window_peak_load"] == pytest.approx(400 * 4 / (C * h), rel=1e-12)
    assert "harmonic-mean RTT" in rec.model("002-theorem1").reason
    rec = recommend(capacity="155Mbps", rtt="30ms,50ms", flows=400, packet_size="1000B", max_loss=0.01)
    h2 = 2 / (1 / 0.03 + 1 / 0.05)
    assert rec.model("004-loss-window").buffer_packets == pytest.approx(
        400 * 12.2 - C * h2, rel=1e-9)
    assert rec.input.rtt_list_s == (0.03, 0.05) and rec.input.rtt_distribution == "list"


def test_header_shows_the_harmonic_mean(capsys):
    assert main(["recommend", "--capacity", "155Mbps", "--rtt", "20ms..140ms", "--flows", "400"]) == 0
    assert "harmonic mean 61.67 ms" in capsys.readouterr().out


# --------------------------------------------------------------------------- the JSON carries a scenario

def test_to_dict_carries_the_scenario_inputs(capsys):
    assert main(["recommend", "--capacity", "1Gbps", "--rtt", "20ms..140ms", "--flows", "300",
                 "--packet-size", "1000B", "--mix", "reno=0.5,cubic=0.5", "--max-window", "64pkt",
                 "--paced", "--input-capacity", "100Mbps", "--inputs", "500", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    i = d["input"]
    assert i["capacity_bps"] == 1e9 and i["flows"] == 300 and i["packet_bytes"] == 1000
    assert (i["rtt_min_s"], i["rtt_max_s"], i["rtt_distribution"]) == (0.02, 0.14, "uniform")
    assert i["mix"] == {"reno": 0.5, "cubic2": 0.5} and i["max_window_packets"] == 64 and i["paced"]
    assert i["input_capacity_bps"] == 1e8 and i["gamma"] == pytest.approx(10) and i["inputs"] == 500
    assert d["traffic"]["inputs"] == 500 and d["traffic"]["inputs_assumed"] is False
