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


def test_the_fq_codel_line_runs_the_full_length_of_cubics_epoch():
    # CoDel settles more slowly than the drop-tail cycle: its runs keep K as the cycle and never stop early
    seen = []

    class Recording(V.Runner):
        def map(self, scenarios):
            seen.extend(scenarios)
            return super().map(scenarios)

    rec = bufsize.recommend(**LINK, verify=False)
    ver = V.verify_recommendation(rec, runner=Recording(cache=False, executor="serial"))
    beside = [sc for sc in seen if isinstance(sc["dumbbell"]["buffer"], dict)]
    k_run = V.beside_run_length(rec.input, ver.search_range[1])
    assert "cubic epoch" in k_run.why and k_run.duration_s > ver.run.duration_s   # the search's is shorter
    assert beside and all("_stop" not in sc and sc["duration"] == f"{k_run.duration_s}s"
                          and sc["warmup"] == f"{k_run.warmup_s}s" for sc in beside)


def test_unknown_names_are_refused_in_one_line(capsys):
    for name in ("sfq", "ecn", "threshold"):
        with pytest.raises(BufsizeError, match=f"^aqm: unknown queue discipline '{name}' \\(codel, fq_codel, pie, "
                                               "red, ecn_threshold\\)$"):
            bufsize.recommend(**LINK, aqm=name)
    assert main(["recommend", "--capacity", "10Mbps", "--rtt", "20ms", "--flows", "4", "--aqm", "sfq"]) == 2
    err = capsys.readouterr().err
    errors = [x for x in err.splitlines() if x.startswith("bufsize: error:")]
    assert errors == ["bufsize: error: --aqm: unknown queue discipline 'sfq' (codel, fq_codel, pie, red, "
                      "ecn_threshold)"] and "Traceback" not in err


# 10 Mb/s, 3 flows, RTTs 100-200 ms: PIE's 15 ms default target leaves the link short of 99 %
LONG = dict(capacity="10Mbps", rtt="100ms..200ms", flows=3)


def test_a_target_that_misses_the_utilization_goal_is_doubled_until_one_meets():
    rec = bufsize.recommend(**LONG, aqm="pie", workers=1)
    v = rec.verified
    tried = v.settings_search["tried"]
    chosen = v.aqm_settings["target"]
    assert [t["target"] for t in tried][0] == "15ms" and chosen != "15ms"
    assert chosen == tried[-1]["target"] and tried[-1]["verdict"] == "meets"
    assert all(t["verdict"] != "meets" for t in tried[:-1])   # the smallest on the ladder that meets
    assert [t["target"] for t in tried] == [V.scaled_target("pie", f)["target"] for f in V.TARGET_LADDER[:len(tried)]]
    assert rec.recommended["settings"]["target"] == chosen and rec.recommended["meets_goals"]
    assert v.traffic["dumbbell"]["buffer"]["discipline"] == {"name": "pie", "target": chosen}
    assert f"target {chosen} tupdate" in " ".join(rec.tc_commands())
    assert "the target sized" in rec.text()


def test_defaults_that_meet_the_goals_are_kept(fq):
    ss = fq.verified.settings_search
    assert [t["target"] for t in ss["tried"]] == ["5ms"] and ss["tried"][0]["verdict"] == "meets"
    assert "kept" in ss["text"] and fq.verified.aqm_settings == V.AQM_SETTINGS["fq_codel"]


def test_the_cost_estimate_counts_the_runs_that_find_the_settings():
    rec = bufsize.recommend(**LONG, verify=False)
    plain = V.estimate_cost(rec)["runs"]
    assert V.settings_runs(None, 3) == V.settings_runs("red", 3) == 0
    assert V.growth_runs(None, 3) == 0 and V.growth_runs("red", 3) > 0   # the range's growth: the worst case only
    for name in ("codel", "pie", "fq_codel", "ecn_threshold"):
        extra = V.settings_runs(name, 3)
        assert extra > 0
        assert V.estimate_cost(rec, aqm=name)["runs"] == plain - V.FIRST_SEEDS + extra


def test_simulate_and_recommend_share_one_aqm_option_each_with_its_own_help():
    from bufsize.cli import app
    from bufsize.commands import _aqm

    opts = {name: next(p for p in app.commands[name].params if p.name == "aqm") for name in ("simulate", "recommend")}
    for name, opt in opts.items():
        assert opt.opts == ["--aqm"] and opt.metavar == "NAME" and opt.default is None and opt.help == _aqm.HELP[name]
    assert {n.replace("-", "_") for n in _aqm.SIZED} == set(V.AQM_SETTINGS)
    assert all(n in _aqm.HELP["recommend"] for n in _aqm.SIZED)


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


# 10 Mb/s, 6 flows: the smallest hard limit meeting 99 % is about 13 packets (15.6 ms when full), below
# PIE's 15 ms target, so there the hard limit alone drops
SMALL = dict(capacity="10Mbps", rtt="20ms..60ms", flows=6)


def _judged(overflow: int, aqm_drops: int, marks: int = 0, share: float | None = V.MAX_OVERFLOW_SHARE):
    runs = []
    for seed in (1, 2, 3):
        r = {"seed": seed, "utilization": 0.995 + 0.001 * seed, "loss_rate": 0.01, "overflow_drops": overflow + (seed if overflow else 0),
             "aqm_drops": aqm_drops, "marks": marks}
        runs.append(dict(r, overflow_share=V.overflow_share(r)))
    return V.judge(V.SizeResult(25, runs), V.Goals(0.99, max_overflow_share=share), capacity_pps=8333.0)


def test_the_share_rule_fails_a_limit_whose_overflows_do_the_dropping_that_the_goals_alone_accept():
    assert _judged(1000, 0, share=None).verdict == "meets"             # the goals alone: a small FIFO passes
    held = _judged(1000, 0)
    assert held.verdict == "fails" and held.misses() == ["overflow_share"]
    assert held.to_dict()["dropping"]["discipline_share"] == 0.0
    assert _judged(5, 500).verdict == "meets"                           # ~1 % overflow: the discipline works
    assert _judged(5, 0, marks=500).verdict == "meets"                  # marks count as the discipline's
    assert _judged(0, 0).verdict == "meets"                             # nothing dropped or marked: trivially
    assert V.overflow_share({"overflow_drops": 0, "aqm_drops": 0, "marks": 0}) == 0.0


def test_the_readme_port_behind_fq_codel_has_codel_dropping(fq):
    v = fq.verified
    runs = v.sizes[v.buffer_packets].runs
    assert all(r["aqm_drops"] > 0 for r in runs) and v.aqm_idle is None
    work = v.aqm_dropping
    assert work["discipline_share"] >= 1 - V.MAX_OVERFLOW_SHARE and work["max_overflow_share"] == V.MAX_OVERFLOW_SHARE
    assert v.goals.max_overflow_share == V.MAX_OVERFLOW_SHARE
    assert fq.recommended["discipline_share"] == work["discipline_share"]
    text = " ".join(fq.text().split())
    assert f"at {v.buffer_packets:,} packets fq_codel did" in text and "overflow drops at the hard limit" in text
    assert fq.to_dict()["verified"]["aqm_dropping"]["discipline_share"] == work["discipline_share"]


def test_where_the_goals_alone_take_a_smaller_limit_the_report_says_the_share_rule_set_it(fq):
    v = fq.verified
    work = v.aqm_dropping
    alone = work["goals_alone_packets"]          # a smaller limit that met the goals, but overflowed
    assert alone < v.buffer_packets
    assert v.sizes[alone].goals["utilization"]["verdict"] == "meets"
    assert v.sizes[alone].goals["overflow_share"]["verdict"] != "meets"
    assert work["set_by_share"].startswith("the share rule, not the goals, set the hard limit")
    assert work["set_by_share"] in " ".join(fq.text().split())


def test_a_limit_below_the_discipline_is_grown_past_and_pie_drops_at_the_answer():
    pie = bufsize.recommend(**SMALL, aqm="pie", workers=1).verified
    runs = pie.sizes[pie.buffer_packets].runs
    assert any(r["aqm_drops"] > 0 for r in runs) and pie.aqm_idle is None
    assert pie.aqm_dropping["discipline_share"] >= 1 - V.MAX_OVERFLOW_SHARE


# 10 Mb/s, RTTs of 2-4 ms: the range's top (2·BDP, 5 packets) holds 6 ms, below PIE's 15 ms target
SHORT = dict(capacity="10Mbps", rtt="2ms..4ms", flows=6)


def test_the_range_grows_until_the_discipline_does_the_dropping():
    v = bufsize.recommend(**SHORT, aqm="pie", workers=1).verified
    assert v.search_range[1] > 2 * 5 and any("range grew" in n for n in v.notes)
    assert v.aqm_dropping["discipline_share"] >= 1 - V.MAX_OVERFLOW_SHARE and v.aqm_idle is None


def test_where_no_limit_in_reach_leaves_the_work_to_the_discipline_the_answer_says_it_behaves_as_a_fifo(monkeypatch):
    monkeypatch.setattr(V, "TOP_DOUBLINGS", 0)    # the range may not grow: its top alone overflows
    rec = bufsize.recommend(**SHORT, aqm="pie", workers=1)
    pie = rec.verified
    assert any("left the dropping to pie" in n and "goals alone" in n for n in pie.notes)
    assert pie.goals.max_overflow_share is None and pie.status != "infeasible"
    assert all(r["aqm_drops"] == 0 and r["marks"] == 0 for r in pie.sizes[pie.buffer_packets].runs)
    assert pie.aqm_idle and "behaves as a drop-tail FIFO" in pie.aqm_idle
    assert "warning: at " in rec.text() and rec.to_dict()["verified"]["aqm_idle"] == pie.aqm_idle


def test_when_no_target_on_the_ladder_meets_the_closest_is_kept_and_the_short_interval_is_named():
    rec = bufsize.recommend(**LONG, aqm="codel", workers=1)   # RTTs to 200 ms against CoDel's 100 ms interval
    v = rec.verified
    tried = v.settings_search["tried"]
    assert [t["target"] for t in tried] == ["5ms", "10ms", "20ms"] and all(t["verdict"] != "meets" for t in tried)
    closest = max(tried, key=lambda t: t["utilization"])
    assert v.aqm_settings["target"] == closest["target"] and v.status == "infeasible"
    assert "no target on the ladder" in v.settings_search["text"]
    assert "below the longest RTT (200 ms)" in v.settings_search["text"]
    assert rec.recommended["meets_goals"] is False
