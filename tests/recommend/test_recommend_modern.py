"""The rules beyond the five papers in ``recommend`` (models/spang.py): their rows carry their
source and the label, they apply exactly when their preconditions hold (loss-based flows for the
(1 − β)/β rule, BBR flows for the probe rule, many flows for the √n rule), their sizes are their
formulas (restated here, not imported), a mix with BBR is sized by them, and ``--mix ...,bbr=...``
reaches the simulator from ``recommend`` (with and without verification) and ``simulate``."""

import json
import math

import pytest

from bufsize.cli import main
from bufsize.recommendation.scenario import scenario_from_input
from bufsize.errors import BufsizeError
from bufsize.models import spang as S
from bufsize.recommendation import recommend
from bufsize.scenario import Scenario

SPANG_ROWS = ("spang-single-flow", "spang-bbr", "spang-sqrt-n")

# σ/mean of one flow's window, from the definitions: a uniform sawtooth between βW and W, and
# BBR v1's inflight over its 8-phase gain cycle (5/4, 3/4, six at 1).
R_RENO = 0.5 / (1.5 * math.sqrt(3))
R_CUBIC = 0.3 / (1.7 * math.sqrt(3))
R_BBR = math.sqrt((0.25 ** 2 + 0.25 ** 2) / 8)


def _rows(rec):
    return {r.id: r for r in rec.models if r.id in SPANG_ROWS}


def test_every_rule_is_a_row_labelled_with_its_source():
    rec = recommend(capacity="20Mbps", rtt="40ms", flows=2, mix="cubic=0.5,bbr=0.5")
    rows = _rows(rec)
    assert set(rows) == set(SPANG_ROWS)
    for r in rows.values():
        assert r.beyond_papers and r.source == S.SOURCE and "2109.11693" in r.source
        assert r.paper == "Spang 2021" and r.reason.startswith("beyond the five papers: ")
    df = rec.to_frame()
    spang = df[df["model"].isin(SPANG_ROWS)]
    assert spang["beyond_papers"].all() and (spang["source"] == S.SOURCE).all()
    assert not df[~df["model"].isin(SPANG_ROWS)]["beyond_papers"].any()
    d = json.loads(rec.to_json())
    assert {m["id"] for m in d["models"] if m["beyond_papers"]} == set(SPANG_ROWS)


def test_sizes_are_the_formulas_for_a_cubic_bbr_pair():
    # 20 Mb/s, 40 ms, 1500-byte packets: BDP = 66.67 packets; one CUBIC and one BBR flow.
    rec = recommend(capacity="20Mbps", rtt="40ms", flows=2, mix="cubic=0.5,bbr=0.5", packet_size="1500B")
    bdp = 20e6 * 0.04 / 12000
    rows = _rows(rec)
    assert rows["spang-single-flow"].buffer_packets == pytest.approx(0.3 / 0.7 * bdp)
    # BBR at its fair share 10 Mb/s: 1 ms at 5/4 of it (0.99 margin) is 1547 B, one 1460-byte
    # segment, raised to Linux's floor of 2 above 1.2 Mb/s: allowance 3 x 2 + 2 = 8 packets.
    assert rows["spang-bbr"].buffer_packets == pytest.approx(0.25 * bdp / 2 + 8)
    assert rows["spang-sqrt-n"].buffer_packets == pytest.approx(
        bdp / 2 * math.sqrt((R_CUBIC / R_RENO) ** 2 + (R_BBR / R_RENO) ** 2))
    # two flows may act in phase: the in-phase rules apply, the √n rule does not
    assert rows["spang-single-flow"].applies and rows["spang-bbr"].applies
    assert not rows["spang-sqrt-n"].applies and "250" in rows["spang-sqrt-n"].reason
    # none of the five papers models BBR: the rules beyond them set the size, the larger one
    assert rec.recommended["id"] == "spang-single-flow"
    assert rec.recommended["buffer_packets"] == pytest.approx(0.3 / 0.7 * bdp)
    assert any("has BBR" in r and "spang-single-flow" in r for r in rec.recommended["reasons"])
    # no Reno utilization figure is predicted for traffic with BBR
    assert not any(k.startswith("utilization") for k in rec.predicted)
    # 003's model has no BBR: its row says so instead of failing
    het = rec.model("003-utilization")
    assert not het.applies and het.buffer_packets is None and "BBR" in het.reason


def test_one_bbr_flow_alone_gets_the_probe_rule():
    rec = recommend(capacity="50Mbps", rtt="40ms", flows=1, mix="bbr=1", packet_size="1000B", max_loss=0.01)
    bdp = 50e6 * 0.04 / 8000   # 250 packets
    rows = _rows(rec)
    # 1 ms at 5/4 x 50 Mb/s is 7 segments of 960 bytes: allowance 3 x 7 + 2 = 23 (tcp_bbr.c)
    assert rows["spang-bbr"].buffer_packets == pytest.approx(0.25 * bdp + 23)
    assert rows["spang-bbr"].applies
    assert not rows["spang-single-flow"].applies and rows["spang-single-flow"].buffer_packets is None
    assert "no loss-based flows" in rows["spang-single-flow"].reason
    assert rec.recommended["id"] == "spang-bbr"
    # BBR's loss does not follow the TCP equation: 004's loss-window relation does not apply
    assert not rec.model("004-loss-window").applies and "BBR" in rec.model("004-loss-window").reason


def test_many_flows_get_the_sqrt_n_rule_for_their_mix():
    rec = recommend(capacity="1Gbps", rtt="50ms", flows=1000, mix="cubic=0.75,bbr=0.25")
    bdp = 1e9 * 0.05 / 12000
    rows = _rows(rec)
    want = bdp / 1000 * math.sqrt(750 * (R_CUBIC / R_RENO) ** 2 + 250 * (R_BBR / R_RENO) ** 2)
    assert rows["spang-sqrt-n"].buffer_packets == pytest.approx(want)
    assert rows["spang-sqrt-n"].applies and "unfair mix" in rows["spang-sqrt-n"].reason
    for mid in ("spang-single-flow", "spang-bbr"):
        assert not rows[mid].applies and "desynchronize" in rows[mid].reason
    # in-phase sizes are still given (judged by the verified answer like every other row)
    assert rows["spang-single-flow"].buffer_packets == pytest.approx(0.3 / 0.7 * bdp)
    assert rows["spang-bbr"].details["bbr_flows"] == 250
    assert rec.recommended["id"] == "spang-sqrt-n"


def test_without_bbr_the_rules_are_shown_and_the_choice_is_the_papers():
    base = recommend(capacity="1Gbps", rtt="20ms..60ms", flows=300)
    rows = _rows(base)
    bdp = base.input.bdp_packets
    # Reno: the single-flow rule is the rule of thumb and the √n rule is 004's
    assert rows["spang-single-flow"].buffer_packets == pytest.approx(base.model("004-rule-of-thumb").buffer_packets)
    assert rows["spang-sqrt-n"].buffer_packets == pytest.approx(bdp / math.sqrt(300))
    assert rows["spang-bbr"].buffer_packets is None and "no BBR flows" in rows["spang-bbr"].reason
    assert not base.recommended["id"].startswith("spang")
    cubic = recommend(capacity="1Gbps", rtt="20ms..60ms", flows=300, mix="reno=0.2,cubic=0.8")
    r = _rows(cubic)
    # flow-weighted β = 0.2·0.5 + 0.8·0.7 = 0.66
    assert r["spang-single-flow"].details["beta"] == pytest.approx(0.66)
    assert r["spang-single-flow"].buffer_packets == pytest.approx(0.34 / 0.66 * bdp)
    assert r["spang-sqrt-n"].buffer_packets == pytest.approx(
        bdp / 300 * math.sqrt(60 + 240 * (R_CUBIC / R_RENO) ** 2))
    assert cubic.recommended["id"] == "003-utilization"   # 003 models this mix: unchanged


def test_a_link_that_is_never_full_is_not_sized_by_them():
    rec = recommend(capacity="1Gbps", rtt="100ms", flows=100, max_window="64pkt", mix="cubic=0.5,bbr=0.5")
    for r in _rows(rec).values():
        assert not r.applies and "window-limited" in r.reason
    assert not rec.recommended["id"].startswith("spang")


@pytest.mark.parametrize("mix", ["cubic=0.5,vegas=0.5", "quic=1"])
def test_unknown_protocol_error_lists_only_the_names_a_user_types(mix):
    with pytest.raises(BufsizeError) as e:
        recommend(capacity="1Gbps", rtt="40ms", flows=10, mix=mix)
    msg = str(e.value)
    assert "--mix" in msg and "bbr" in msg and "cubic-0.8" in msg
    for internal in ("cubic'", "cubic1", "cubic2", "cubic_prime", 'cubic"'):
        assert internal not in msg


def test_the_mix_reaches_the_simulated_scenario():
    rec = recommend(capacity="20Mbps", rtt="40ms", flows=4, mix="cubic=0.5,bbr=0.5")
    sc = Scenario.from_dict(scenario_from_input(rec.input, buffer=20)).to_dict()
    assert sorted((c["tcp"]["cc"], c["flows"]) for c in sc["dumbbell"]["mix"]) == [("bbr", 2), ("cubic", 2)]


def test_cli_prints_the_rows_with_their_labels(capsys):
    rc = main(["recommend", "--capacity", "20Mbps", "--rtt", "40ms", "--flows", "2", "--mix", "cubic=0.5,bbr=0.5",
               "--no-verify"])
    out = capsys.readouterr().out
    assert rc == 0
    for mid in SPANG_ROWS:
        assert mid in out
    assert all(f"{mid}*" in out for mid in SPANG_ROWS) and "beyond the five papers" in out
    assert f"* {S.SOURCE}" in " ".join(out.split())    # the report wraps at 100 columns
    assert "spang-single-flow" in out.split("Answer:")[1].split("Models")[0]   # the choice is named


def test_cli_rejects_an_unknown_protocol_in_one_line(capsys):
    rc = main(["recommend", "--capacity", "20Mbps", "--rtt", "40ms", "--flows", "2", "--mix", "cubic=0.5,vegas=0.5",
               "--no-verify"])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "vegas" in err and "cubic''" not in err


def test_cli_verifies_a_bbr_mix_and_judges_the_rows(capsys):
    # 10 Mb/s, 2 flows: a few seconds of simulation in all
    rc = main(["recommend", "--capacity", "10Mbps", "--rtt", "40ms", "--flows", "2", "--mix", "cubic=1,bbr=1",
               "--target-utilization", "0.9", "--verify", "--workers", "1", "--json"])
    out = capsys.readouterr().out
    assert rc == 0
    d = json.loads(out)
    assert d["verified"] is not None
    verdicts = {m["id"]: m["verdict"] for m in d["models"]}
    for mid in ("spang-single-flow", "spang-bbr", "spang-sqrt-n"):
        assert verdicts[mid] in ("safe", "unsafe", "wasteful"), (mid, verdicts[mid])


def test_simulate_takes_the_mix(capsys):
    rc = main(["simulate", "--capacity", "10Mbps", "--flows", "4", "--rtt", "40ms", "--buffer", "20pkt",
               "--mix", "cubic=0.5,bbr=0.5", "--show-scenario"])
    out = capsys.readouterr().out
    assert rc == 0
    sc = json.loads(out)
    assert sorted((c["tcp"]["cc"], c["flows"]) for c in sc["dumbbell"]["mix"]) == [("bbr", 2), ("cubic", 2)]
    rc = main(["simulate", "--capacity", "10Mbps", "--flows", "4", "--rtt", "40ms", "--buffer", "20pkt",
               "--mix", "cubic=2,bbr=2", "--duration", "6s", "--warmup", "2s", "--json"])
    out = capsys.readouterr().out
    assert rc == 0 and json.loads(out)["utilization"] > 0.5
    rc = main(["simulate", "--capacity", "10Mbps", "--flows", "4", "--rtt", "40ms", "--buffer", "20pkt",
               "--mix", "cubic=1", "--cc", "bbr"])
    assert rc == 2 and "--mix" in capsys.readouterr().err


def test_an_all_cubic_mix_is_sized_by_cubics_decrease_not_renos():
    # 20 CUBIC flows may cut in phase: (1 − 0.7)/0.7 of the BDP at the mean RTT 40 ms, not 001's
    # one-Reno-flow size (eq. (17), about 0.7 BDP at the harmonic-mean RTT)
    rec = recommend(capacity="1Gbps", rtt="20ms..60ms", flows=20, mix="cubic=1")
    bdp = 1e9 / 12000 * 0.040
    assert rec.models_pick["id"] == "spang-single-flow"
    assert rec.models_pick["buffer_packets"] == pytest.approx(0.3 / 0.7 * bdp, rel=1e-6)
    reno = recommend(capacity="1Gbps", rtt="20ms..60ms", flows=20, mix="reno=1")
    assert reno.models_pick["id"] == "001-single-flow"
