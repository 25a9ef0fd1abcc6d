"""recommend --aqm ecn-threshold: the smallest marking threshold K whose runs meet the goals, with
every sender ECN-capable (DCTCP under --cc dctcp, else the traffic's control with RFC 3168's
response), the hard limit behind it sized as for the other disciplines, the DCTCP paper's
guideline beside the answer, and the RED step marker a Linux port takes, checked by tc-red's
grammar and, where tc and root are at hand, by tc itself."""

import re
import shutil
import subprocess
import uuid

import pytest

import bufsize
from bufsize.recommendation import verification as V
from bufsize.recommendation.display import ecn_threshold_tc
from bufsize.recommendation.inputs import parse_input

# small enough for a few seconds of runs: BDP 33 packets at the 40 ms mean RTT
SMALL = dict(capacity="10Mbps", rtt="20ms..60ms", flows=6)


@pytest.fixture(scope="module")
def dctcp():
    return bufsize.recommend(**SMALL, cc="dctcp", aqm="ecn-threshold", workers=1)


def _smallest_shown(tried: list[dict], k: int) -> bool:
    """``k`` meets the goals and every smaller K tried does not."""
    by_k = {t["K"]: t for t in tried}
    return by_k.get(k, {}).get("verdict") == "meets" and all(t["verdict"] != "meets" for t in tried if t["K"] < k)


def test_k_is_the_smallest_threshold_shown_to_meet_the_goals_with_dctcp_senders(dctcp):
    r = dctcp.recommended
    assert r["source"] == "verified" and r["meets_goals"] and r["discipline"] == "ecn_threshold"
    k = int(r["settings"]["K"].removesuffix("pkt"))
    v = dctcp.verified
    tried = v.settings_search["tried"]
    assert v.settings_search["what"] == "K" and _smallest_shown(tried, k)
    assert not _smallest_shown(tried, max(t["K"] for t in tried))   # the check, fed a K that is not the smallest
    # the hard limit behind K is sized like any discipline's, above K (at or below K nothing is marked)
    assert r["buffer_packets"] > k and v.at_size["utilization"] >= 0.99
    assert v.traffic["dumbbell"]["buffer"]["discipline"] == {"name": "threshold", "k_packets": k}
    assert v.traffic["dumbbell"]["tcp"]["cc"] == "dctcp" or v.traffic["dumbbell"]["mix"][0]["tcp"]["cc"] == "dctcp"


def test_the_answer_says_which_senders_answered_the_marks_and_shows_the_dctcp_guideline(dctcp):
    v = dctcp.verified
    assert v.senders == "6 DCTCP" and dctcp.recommended["senders"] == "6 DCTCP"
    inp = dctcp.input
    assert v.dctcp_rule["mean_rtt"] == pytest.approx(inp.capacity_pps * inp.rtt_s / 7)
    text = " ".join(dctcp.text().split())
    assert "senders simulated: 6 DCTCP" in text and "K > C·RTT/7" in text and "not the answer" in text
    d = dctcp.to_dict()
    assert d["verified"]["senders"] == "6 DCTCP" and d["recommended"]["senders"] == "6 DCTCP"
    assert d["verified"]["aqm_settings"] == dctcp.recommended["settings"]


def test_behind_a_threshold_every_sender_negotiates_ecn_and_others_keep_the_profiles():
    inp = parse_input(**SMALL)
    th = V.build_scenario(inp, 40, seed=1, warmup_s=1, duration_s=2, aqm=V.aqm_discipline("ecn_threshold",
                                                                                         {"K": "5pkt"}))
    assert th["dumbbell"]["tcp"]["ecn"] is True
    assert V.senders_text(th) == "6 ECN-capable cubic (RFC 3168 response)"
    co = V.build_scenario(inp, 40, seed=1, warmup_s=1, duration_s=2, aqm=V.aqm_discipline("codel"))
    assert "ecn" not in co["dumbbell"]["tcp"]
    mixed = V.build_scenario(parse_input(**SMALL, mix="cubic=0.5,dctcp=0.5"), 40, seed=1, warmup_s=1, duration_s=2,
                             aqm=V.aqm_discipline("ecn_threshold", {"K": "5pkt"}))
    assert all(c["tcp"]["ecn"] for c in mixed["dumbbell"]["mix"])
    assert V.senders_text(mixed) == "3 ECN-capable cubic (RFC 3168 response) + 3 DCTCP"


def test_dctcp_is_a_control_recommend_takes_and_the_models_see_as_reno():
    rec = bufsize.recommend(**SMALL, cc="dctcp", verify=False)
    assert rec.input.mix == {"dctcp": 1.0}
    reno = bufsize.recommend(**SMALL, cc="reno", verify=False)
    assert rec.buffer_packets == pytest.approx(reno.buffer_packets)
    sc = V.build_scenario(rec.input, 40, seed=1, warmup_s=1, duration_s=2)
    assert [c["tcp"]["cc"] for c in sc["dumbbell"]["mix"]] == ["dctcp"]


# --------------------------------------------------------------------------- the tc lines

#: tc-red(8)'s options: those taking a value, and the flags
_RED_VALUES = {"limit", "min", "max", "avpkt", "burst", "bandwidth", "probability"}
_RED_FLAGS = {"ecn", "harddrop", "nodrop", "adaptive"}


def _red_problems(line: str) -> list[str]:
    """What tc-red(8) refuses in a ``tc qdisc replace dev D root red ...`` line: an option it does not
    take, a missing limit or avpkt, or numbers outside tc's constraints (max > min, limit > max,
    burst ≥ min/avpkt so tc can derive the averaging weight, 0 < probability ≤ 1)."""
    m = re.fullmatch(r"tc qdisc replace dev \S+ root red (.*)", line)
    if not m:
        return ["not a red line"]
    words, opts, bad = m.group(1).split(), {}, []
    i = 0
    while i < len(words):
        w = words[i]
        if w in _RED_FLAGS:
            opts[w] = True
            i += 1
        elif w in _RED_VALUES and i + 1 < len(words):
            opts[w] = words[i + 1]
            i += 2
        else:
            bad.append(f"unknown option {w}")
            i += 1
    for need in ("limit", "avpkt"):
        if need not in opts:
            bad.append(f"{need} missing")
    if bad:
        return bad
    num = {k: float(re.sub(r"bit$", "", str(v))) for k, v in opts.items() if k in _RED_VALUES}
    lo, hi = num.get("min", 0.0), num.get("max", 0.0)
    if not hi > lo:
        bad.append("max must exceed min")
    if not num["limit"] > hi:
        bad.append("limit must exceed max")
    if "burst" in num and num["burst"] < lo / num["avpkt"]:
        bad.append("burst below min/avpkt")
    if not 0 < num.get("probability", 0.02) <= 1:
        bad.append("probability outside (0, 1]")
    return bad


def _commands(lines: list[str]) -> list[str]:
    return [x for x in lines if not x.startswith("#")]


@pytest.mark.parametrize("k,limit", [(1, 2), (7, 19), (65, 300), (300, 301)])
def test_the_step_marker_satisfies_tc_reds_grammar(k, limit):
    lines = ecn_threshold_tc("eth0", k, limit, 1500, 10e6)
    red = _commands(lines)
    assert len(red) == 1 and _red_problems(red[0]) == []
    top = (k + 1) * 1500 if limit > k + 1 else k * 1500 + 750
    assert f" min {k * 1500} max {top} " in red[0] and " probability 1 ecn" in red[0]
    # the check, fed lines tc refuses
    assert _red_problems(red[0].replace(f"max {top}", f"max {k * 1500}")) != []
    assert _red_problems(red[0].replace(f"burst {k}", f"burst {k - 1}") if k > 1 else red[0] + " foo") != []
    assert _red_problems(red[0].replace(f"limit {limit * 1500}", f"limit {k * 1500}")) != []


def test_the_answer_emits_the_step_marker_at_k_and_the_hard_limit(dctcp):
    lines = dctcp.tc_commands()
    k = int(dctcp.recommended["settings"]["K"].removesuffix("pkt"))
    b = int(dctcp.recommended["buffer_packets"])
    red = _commands(lines)
    assert red == [f"tc qdisc replace dev eth0 root red limit {b * 1500} min {k * 1500} max {(k + 1) * 1500} "
                   f"avpkt 1500 burst {k} probability 1 ecn bandwidth 10000000bit"]
    assert _red_problems(red[0]) == []


def _tc_batch_problems(lines: list[str]) -> list[str]:
    """Each command through ``tc -batch`` on a veth in a scratch network namespace: accepted when
    tc's parser takes it, so it succeeds or only the kernel refuses the qdisc kind."""
    ns = "bsred" + uuid.uuid4().hex[:6]
    subprocess.run(["ip", "netns", "add", ns], check=True)
    bad = []
    try:
        subprocess.run(["ip", "netns", "exec", ns, "ip", "link", "add", "v0", "type", "veth", "peer", "name", "v1"],
                       check=True)
        for line in _commands(lines):
            cmd = line.replace("dev eth0", "dev v0").removeprefix("tc ")
            p = subprocess.run(["ip", "netns", "exec", ns, "tc", "-batch", "-"], input=cmd + "\n",
                               capture_output=True, text=True)
            err = p.stderr
            if not (p.returncode == 0 or ("Specified qdisc kind is unknown" in err and "Usage" not in err
                                          and "What is" not in err and "Illegal" not in err)):
                bad.append(f"{line}: {err.strip()[:200]}")
    finally:
        subprocess.run(["ip", "netns", "del", ns])
    return bad


needs_tc = pytest.mark.skipif(shutil.which("tc") is None or shutil.which("ip") is None
                              or subprocess.run(["id", "-u"], capture_output=True, text=True).stdout.strip() != "0",
                              reason="needs root, ip and tc")


@needs_tc
def test_tc_accepts_the_step_marker():
    lines = ecn_threshold_tc("eth0", 7, 19, 1500, 10e6) + ecn_threshold_tc("eth0", 65, 1000, 1500, 10e9)
    assert _tc_batch_problems(lines) == []
    # the check, fed a line tc-red refuses (burst below min/avpkt: tc cannot derive the weight)
    assert _tc_batch_problems(["tc qdisc replace dev eth0 root red limit 30000 min 15000 max 16500 avpkt 1500 "
                               "burst 2 probability 1 ecn"]) != []
