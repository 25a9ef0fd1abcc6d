"""Acceptance tests of ``bufsize recommend``: each scenario is checked against values computed
here, independently of the model modules (other formulas/implementations: scipy's erfinv and
brentq, closed forms instead of quadrature)."""

import json
import math

import pytest
from scipy.optimize import brentq
from scipy.special import erfinv
from scipy.stats import norm

from bufsize.recommendation import recommend
from bufsize.cli import main
from bufsize.errors import BufsizeError

K = 3 * math.sqrt(3) / (2 * math.sqrt(2))  # the constant of 004 eq. (6)


def erf_inverse_buffer(target, bdp, n):
    y = erfinv(target)
    return y * bdp / (K * math.sqrt(n) - y)


def het_util_buffer(bdp, n, a, tau):
    z = norm.ppf(tau)  # exact convention
    return bdp / (1 - z * a / math.sqrt(n)) - bdp


A_RENO = 1 / (3 * math.sqrt(3))


def test_backbone_10g_50k_flows_004_abstract():
    rec = recommend(capacity="10Gbps", rtt="250ms", flows=50000, packet_size="1500B")
    bdp = 10e9 * 0.25 / (8 * 1500)
    assert rec.input.bdp_packets == pytest.approx(bdp)
    sqrt_n = rec.model("004-sqrt-n")
    assert sqrt_n.applies
    assert sqrt_n.buffer_packets == pytest.approx(bdp / math.sqrt(50000), rel=1e-9)
    # 11.18 Mbit
    assert sqrt_n.buffer_bytes * 8 == pytest.approx(11.18e6, rel=1e-3)
    assert not rec.model("004-rule-of-thumb").applies
    erf = rec.model("004-erf")
    assert erf.buffer_packets == pytest.approx(erf_inverse_buffer(0.99, bdp, 50000), rel=1e-6)
    het = rec.model("003-utilization")
    assert het.buffer_packets == pytest.approx(het_util_buffer(bdp, 50000, A_RENO, 0.99), rel=1e-6)
    expected = max(erf.buffer_packets, het.buffer_packets)
    assert rec.recommended["buffer_packets"] == pytest.approx(expected, rel=1e-9)
    assert rec.recommended["buffer_bytes"] == pytest.approx(expected * 1500, rel=1e-9)
    assert rec.recommended["queueing_delay_s"] == pytest.approx(expected * 1500 * 8 / 10e9, rel=1e-9)
    # far below the rule of thumb, as the paper says (~99 % less)
    assert rec.recommended["buffer_packets"] < 0.01 * bdp


def test_oc3_400_flows():
    rec = recommend(capacity="155Mbps", rtt="80ms", flows=400, packet_size="1500B", target_utilization=0.98)
    bdp = 155e6 * 0.08 / 12000  # 1033.33 pkts
    assert rec.model("004-sqrt-n").buffer_packets == pytest.approx(51.6667, rel=1e-5)
    assert rec.model("004-erf").buffer_packets == pytest.approx(48.4312, rel=1e-5)  # A-09, 98 %
    assert rec.model("004-erf").buffer_packets == pytest.approx(erf_inverse_buffer(0.98, bdp, 400), rel=1e-6)
    het = het_util_buffer(bdp, 400, A_RENO, 0.98)
    assert rec.model("003-utilization").buffer_packets == pytest.approx(het, rel=1e-6)
    assert rec.recommended["buffer_packets"] == pytest.approx(max(het, 48.4312), rel=1e-5)
    u = rec.predicted["utilization_004_eq6"]
    assert u >= 0.98 - 1e-9


def test_access_multiplexer_gamma_10():
    # 000 §VII-C / Table I case (Nin = 1000, U = 25, Γ = 10, 10 Mb/s, 1 Mb/s): the operator rule is the
    # paper's empirical advice for per-flow throughput, valid with many lightly loaded inputs
    rec = recommend(capacity="10Mbps", input_capacity="1Mbps", inputs=1000, rtt="60ms", flows=25,
                    packet_size="1500B")
    assert rec.input.gamma == pytest.approx(10.0)
    op = rec.model("000-operator")
    assert op.applies and op.goal == "throughput" and op.details["empirical"]
    assert "not a utilization guarantee" in op.reason and "Nin = 1000" in op.reason
    # Table II simulations (EX form): 20 ± 2 packets for S flows, 30 ± 2 for L flows, labelled as such
    for mode, b in (("S", 20.0), ("L", 30.0)):
        row = rec.model(f"000-{mode}")
        assert row.buffer_packets == pytest.approx(b)
        assert "simulation" in row.equation and row.details["empirical"] and row.goal == "throughput"
    # 25 flows may synchronize: the utilization goal is 001 eq. (17)'s, not the operator rule
    assert rec.recommended["id"] == "001-single-flow"
    assert not any("000-operator" in r and "utilization" in r for r in rec.recommended["reasons"])
    # the per-flow throughput goal picks the simulated optimum and says it is one
    rec_l = recommend(capacity="10Mbps", input_capacity="1Mbps", inputs=1000, rtt="60ms", flows=25,
                      packet_size="1500B", optimize_for="L")
    assert rec_l.recommended["id"] == "000-L" and rec_l.recommended["buffer_packets"] == 30.0
    assert "simulated optimum" in rec_l.recommended["reasons"][0]


@pytest.mark.parametrize("mode", ["S", "L"])
def test_server_farm_uplink_gamma_0_1(mode):
    from bufsize.models import prasad as P

    rec = recommend(capacity="50Mbps", gamma=0.1, rtt="60ms", flows=100, packet_size="1500B", optimize_for=mode)
    CTo = 50e6 / 12000 * 0.06  # 250 packets (Table II's BDP)
    a, b, f = P.PL_DEFAULT_A, P.PL_DEFAULT_B, P.PL_DEFAULT_F
    if mode == "L":
        expected = b / (f * (2 - b)) * CTo  # eq. (11): 208.3 pkts = 0.83 C·To
    else:
        M, D, v = 30, 1 + math.ceil(math.log2(30 / 2)), 1  # 30-packet S flows, eq. (1) → D = 5
        g = lambda B: a * b * v * M * CTo - a * v * M * f * (1 - b) * B - f * D * B ** (1 + b)
        expected = brentq(g, 1e-9, 10 * CTo)
    assert rec.recommended["id"] == f"000-{mode}"
    assert rec.recommended["buffer_packets"] == pytest.approx(expected, rel=1e-4)
    if mode == "S":
        # slow-start flows want a small fraction of the BDP, L flows the order of the BDP (000 §VII-C)
        assert rec.recommended["buffer_packets"] < 0.5 * CTo
    else:
        assert 0.5 * CTo < rec.recommended["buffer_packets"] < 2 * CTo


def _a_linear(beta):
    mu = (1 + beta) / 2
    return (1 - beta) / (math.sqrt(12) * mu)


def _a_cubic(beta):
    return (1 - beta) * math.sqrt(1 / 7 - 1 / 16) / (1 - (1 - beta) / 4)


def _a_ctcp(beta=0.5):
    c = beta ** 0.25
    m1 = (1 - c ** 5) / (5 * (1 - c))
    m2 = (1 - c ** 9) / (9 * (1 - c))
    return math.sqrt(m2 - m1 ** 2) / m1


def test_heterogeneous_622m_testbed_mix():
    # 003 §VIII: 42 RENO, 51 BIC, 30 CUBIC′, 41 CUBIC″, 34 CTCP over OC-12, RTT 90 ms, φ = 1 %
    mix = "reno=42,bic=51,cubic1=30,cubic2=41,ctcp=34"
    rec = recommend(capacity="622Mbps", rtt="90ms", flows=198, packet_size="1500B", mix=mix, max_loss=0.01,
                    target_utilization=0.99)
    counts = {"reno": 42, "bic": 51, "cubic1": 30, "cubic2": 41, "ctcp": 34}
    # BIC with the growth function as printed (epoch T = R): linear from 0.8 to 0.9 of w_max
    a_bic = (0.9 - 0.8) / (math.sqrt(12) * 0.85)
    a_i = {"reno": _a_linear(0.5), "bic": a_bic, "cubic1": _a_cubic(0.8), "cubic2": _a_cubic(0.7), "ctcp": _a_ctcp()}
    n = 198
    a = math.sqrt(sum(counts[k] * a_i[k] ** 2 for k in counts) / n)
    bdp = 622e6 * 0.09 / 12000
    z = norm.ppf(0.99)
    b7 = bdp / (1 - z * a / math.sqrt(n)) - bdp
    mu = bdp / (1 - z * a / math.sqrt(n))
    b14 = max(b7, (z * a / math.sqrt(n) + 1) * (1 - 0.01) * mu - bdp)
    assert rec.model("003-utilization").buffer_packets == pytest.approx(b7, rel=1e-4)
    assert rec.model("003-drop").buffer_packets == pytest.approx(b14, rel=1e-4)
    # n = 198 < 250: the 004 Gaussian rows do not apply; flows may synchronize
    assert not rec.model("004-erf").applies


def test_delay_goal_below_utilization_buffer_is_a_compromise():
    rec = recommend(capacity="622Mbps", rtt="100ms", flows=300, packet_size="1500B", max_delay="0.1ms")
    cap = 0.1e-3 * 622e6 / 12000
    assert rec.recommended["buffer_packets"] == pytest.approx(cap, rel=1e-9)
    assert rec.recommended["id"] == "003-delay"
    assert "compromise" in rec.recommended
    assert any("compromise" in r for r in rec.recommended["reasons"])


def test_json_output_fields(capsys):
    assert main(["recommend", "--capacity", "155Mbps", "--rtt", "20ms..140ms", "--flows", "400", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"models", "recommended"} <= set(out)
    for m in out["models"]:
        assert {"id", "paper", "equation", "applies", "reason", "buffer_packets", "buffer_bytes",
                "queueing_delay_s"} <= set(m)
        # a row is one of the five papers', or a rule beyond them that names its source
        assert m["paper"] in {"000", "001", "002", "003", "004"} or (m["beyond_papers"] and m["source"])
    assert {"id", "buffer_packets", "buffer_bytes", "queueing_delay_s", "source"} <= set(out["recommended"])
    assert {"id", "buffer_packets", "buffer_bytes", "queueing_delay_s", "reasons"} <= set(out["models_pick"])
    # RTT range → mean 80 ms
    assert out["bdp_packets"] == pytest.approx(155e6 * 0.08 / 12000)


def test_table_output_runs(capsys):
    assert main(["recommend", "--no-verify"]) == 0
    text = capsys.readouterr().out
    assert "Answer:" in text and "004-sqrt-n" in text


def test_plot(tmp_path):
    out = tmp_path / "rec.png"
    assert main(["recommend", "--capacity", "50Mbps", "--gamma", "0.1", "--rtt", "60ms", "--flows", "300",
                 "--plot", str(out)]) == 0
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10_000


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--capacity", "-5Mbps"], "--capacity"),
        (["--capacity", "0Gbps"], "--capacity"),
        (["--capacity", "nanGbps"], "--capacity"),
        (["--capacity", "infGbps"], "--capacity"),
        (["--capacity", "10Gfoo"], "--capacity"),
        (["--rtt", "80"], "--rtt"),
        (["--mix", "reno=0.5,cubic=0.4"], "--mix"),
        (["--mix", "reno=0.5,quic=0.5"], "quic"),
        (["--target-utilization", "1.2"], "--target-utilization"),
        (["--target-utilization", "0"], "--target-utilization"),
        (["--max-loss", "2"], "--max-loss"),
        (["--capacity", "10Gbps", "--input-capacity", "1Gbps", "--gamma", "3"], "--gamma"),
        (["--optimize-for", "X", "--gamma", "0.1"], "--optimize-for"),
        (["--flows", "12.5"], "--flows"),
        (["--packet-size", "10B"], "--packet-size"),
    ],
)
def test_bad_input_exit_2_one_line(args, needle, capsys):
    assert main(["recommend", *args]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bufsize: error:") and needle in err
    assert "\n" not in err and "Traceback" not in err


def test_api_raises_value_error_subclass():
    import bufsize

    with pytest.raises(ValueError) as exc:
        bufsize.recommend(capacity="-1Gbps")
    # from Python the error names the keyword, not the command-line flag
    assert isinstance(exc.value, BufsizeError) and str(exc.value).startswith("capacity: ")
