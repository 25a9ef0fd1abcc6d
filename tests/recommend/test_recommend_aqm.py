"""recommend with an AQM: the hard limit behind a queue discipline at its default settings,
verified like the drop-tail size; beside a drop-tail answer, what FQ-CoDel would give on the same
traffic; and the tc lines a Linux port takes, checked by tc's own option parser."""

import shutil
import subprocess
import uuid

import pytest

import bufsize
from bufsize.cli import main
from bufsize.errors import BufsizeError
from bufsize.recommendation import verification as V

LINK = dict(capacity="100Mbps", rtt="10ms..60ms", flows=30)


@pytest.fixture(scope="module")
def fq():
    return bufsize.recommend(**LINK, aqm="fq_codel")


def test_aqm_answer_is_a_verified_hard_limit_with_its_settings(fq):
    r = fq.recommended
    assert r["source"] == "verified" and r["meets_goals"] and r["discipline"] == "fq_codel"
    assert r["settings"]["target"] == "5ms" and r["settings"]["interval"] == "100ms"
    v = fq.verified
    assert v.aqm == "fq_codel" and v.at_size["utilization"] >= 0.99
    assert "the port runs fq_codel" in v.simulated
    assert v.verdicts == {} and any("drop-tail FIFOs" in n for n in v.notes)   # FIFO models are not judged
    assert v.traffic["dumbbell"]["buffer"] == {"limit_packets": r["buffer_packets"], "discipline": "fq_codel"}


def test_a_drop_tail_answer_says_what_fq_codel_gives_on_the_same_traffic():
    rec = bufsize.recommend(**LINK)
    b = rec.verified.aqm_beside
    assert b["discipline"] == "fq_codel" and b["buffer_packets"] == V.BESIDE_LIMIT
    assert 0 <= b["utilization"] <= 1 and b["queue_delay_mean_s"] > 0
    assert "An AQM instead, on the same traffic: fq_codel" in " ".join(rec.text().split())


def test_ecn_threshold_and_unknown_names_are_refused():
    with pytest.raises(BufsizeError, match="^aqm: sizing an ECN marking threshold is not written yet"):
        bufsize.recommend(**LINK, aqm="ecn-threshold")
    with pytest.raises(BufsizeError, match="^aqm: unknown queue discipline 'sfq'"):
        bufsize.recommend(**LINK, aqm="sfq")


def _tc_accepts(lines: list[str]) -> list[str]:
    """Run each tc line in a scratch network namespace on a veth; a line is accepted when tc's
    parser takes it: it succeeds, or the kernel (not tc) refuses an unknown qdisc kind."""
    ns = "bstc" + uuid.uuid4().hex[:6]
    subprocess.run(["ip", "netns", "add", ns], check=True)
    try:
        subprocess.run(["ip", "netns", "exec", ns, "ip", "link", "add", "v0", "type", "veth", "peer", "name", "v1"],
                       check=True)
        bad = []
        for line in lines:
            if line.startswith("#"):
                continue
            args = line.replace("dev eth0", "dev v0").split()
            p = subprocess.run(["ip", "netns", "exec", ns, *args], capture_output=True, text=True)
            err = p.stderr
            parsed = p.returncode == 0 or ("Specified qdisc kind is unknown" in err and "Usage" not in err
                                           and "What is" not in err)
            if not parsed:
                bad.append(f"{line}: {err.strip()[:200]}")
        return bad
    finally:
        subprocess.run(["ip", "netns", "del", ns])


needs_tc = pytest.mark.skipif(shutil.which("tc") is None or shutil.which("ip") is None
                              or subprocess.run(["id", "-u"], capture_output=True, text=True).stdout.strip() != "0",
                              reason="needs root, ip and tc")


@needs_tc
def test_emitted_tc_lines_parse(fq):
    lines = fq.tc_commands()
    assert any("fq_codel limit" in x for x in lines)
    drop_tail = bufsize.recommend(**LINK, verify=False).tc_commands()
    assert any(" bfifo limit " in x for x in drop_tail)
    assert _tc_accepts(lines + drop_tail) == []
    for name in ("codel", "pie", "red"):
        rec = bufsize.recommend(**LINK, verify=False)
        rec.verified = fq.verified
        fake = dict(fq.recommended, discipline=name, settings=V.AQM_SETTINGS[name])
        lines = __import__("bufsize.recommendation.display", fromlist=["tc_lines"]).tc_lines(
            type("R", (), {"recommended": fake, "input": rec.input})())
        assert _tc_accepts(lines) == [], name
    # the check, fed a line tc cannot parse
    assert _tc_accepts(["tc qdisc replace dev eth0 root fq_codel limit 25 targt 5ms"]) != []


def test_cli_emit_tc_prints_the_lines(capsys):
    assert main(["recommend", *sum(([f"--{k}", str(v)] for k, v in LINK.items()), []), "--no-verify",
                 "--emit", "tc"]) == 0
    out = capsys.readouterr().out
    assert "tc qdisc replace dev eth0 root bfifo limit" in out


def test_behind_an_aqm_the_delay_goal_is_the_measured_p99_not_the_hard_limit():
    rec = bufsize.recommend(**LINK, max_delay="10ms", aqm="codel")
    v = rec.verified
    assert v.goals.max_delay_s is None and v.goals.max_delay_p99_s == pytest.approx(0.01)
    assert any("measured p99" in n for n in v.notes)
    if v.status != "infeasible":
        assert v.at_size["queue_delay_p99_s"] <= 0.01
    # and beside a drop-tail answer FQ-CoDel's delay is judged the same way
    dt = bufsize.recommend(**LINK, max_delay="10ms")
    assert "delay" not in (dt.verified.aqm_beside["goals"]) and "delay_p99" in dt.verified.aqm_beside["goals"]
