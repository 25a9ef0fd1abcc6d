"""The Python API reads like the command line: keywords named as the flags, a Scenario / mapping /
file or keywords for the simulator, one-line errors that name the Python keyword (never a flag),
an unknown keyword answered with the valid names and the closest one, and tab completion."""

from __future__ import annotations

import inspect
import json

import pytest

import bufsize
from bufsize.errors import BufsizeError, ScenarioError, UnitError

SMALL = dict(capacity="2Mbps", flows=2, rtt="40ms", buffer="10pkt", duration="3s", warmup="1s")


def test_dir_lists_the_lazy_api_for_tab_completion():
    names = dir(bufsize)
    for name in ("recommend", "simulate", "sweep", "search_min_buffer", "fit_sweep", "reproduce", "Scenario",
                 "BufsizeError"):
        assert name in names
    assert "importlib" not in names and "sys" not in names


def test_signatures_are_named_keywords():
    rec = inspect.signature(bufsize.recommend)
    assert {"capacity", "rtt", "flows", "max_delay", "optimize_for"} <= set(rec.parameters)
    assert all(p.kind is p.KEYWORD_ONLY for p in rec.parameters.values())
    sim = inspect.signature(bufsize.simulate)  # the module is callable and carries the signature
    assert {"capacity", "flows", "rtt", "buffer", "duration", "out"} <= set(sim.parameters)
    assert "ids" in inspect.signature(bufsize.reproduce).parameters


def test_unknown_keyword_lists_valid_names_with_a_suggestion():
    with pytest.raises(BufsizeError) as exc:
        bufsize.recommend(capcity="1Gbps")
    msg = str(exc.value)
    assert msg.startswith("capcity: unknown keyword; did you mean 'capacity'?") and "max_delay" in msg
    assert "\n" not in msg and not isinstance(exc.value, TypeError)
    with pytest.raises(BufsizeError, match=r"did you mean 'buffer'"):
        bufsize.simulate(bufer="10pkt")


def test_errors_name_python_keywords_not_flags():
    with pytest.raises(UnitError) as exc:
        bufsize.recommend(capacity="1Gbps", rtt="40ms", flows=10, max_delay="5")
    assert str(exc.value).startswith("max_delay: ") and "--" not in str(exc.value)
    with pytest.raises(BufsizeError) as exc:
        bufsize.recommend(capacity="1Gbps", rtt="40ms", flows=10, short_flows="14pkt")
    assert str(exc.value).startswith("short_load: ") and "--" not in str(exc.value)
    with pytest.raises(ScenarioError) as exc:
        bufsize.simulate(capacity="-1Mbps", flows=2, rtt="40ms", buffer=10)
    assert str(exc.value).startswith("capacity") and "--" not in str(exc.value)
    # the CLI keeps its flags
    from bufsize.errors import python_words

    assert python_words("give --max-delay 5ms or --flows") == "give max_delay=5ms or flows"


def test_rtt_tuple_is_a_range_in_seconds_and_a_list_is_a_list():
    r = bufsize.recommend(capacity="1Gbps", rtt=(0.01, 0.04), flows=400, verify=False)
    assert (r.input.rtt_min_s, r.input.rtt_max_s, r.input.rtt_distribution) == (0.01, 0.04, "uniform")
    same = bufsize.recommend(capacity="1Gbps", rtt="10ms..40ms", flows=400, verify=False)
    assert r.recommended["buffer_packets"] == pytest.approx(same.recommended["buffer_packets"])
    lst = bufsize.recommend(capacity="1Gbps", rtt=[0.01, "40ms"], flows=400, verify=False)
    assert lst.input.rtt_distribution == "list" and lst.input.rtt_list_s == pytest.approx((0.01, 0.04))
    with pytest.raises(BufsizeError, match=r"^rtt: a tuple is a range"):
        bufsize.recommend(capacity="1Gbps", rtt=(0.01, 0.02, 0.03), flows=400)


def test_simulate_takes_keywords_a_scenario_a_mapping_or_a_file(tmp_path):
    by_kw = bufsize.simulate(**SMALL, progress=False)
    sc = bufsize.Scenario.dumbbell(**SMALL)
    by_sc = bufsize.simulate(sc, progress=False)
    by_map = bufsize.simulate(sc.to_dict(), progress=False)
    f = tmp_path / "s.json"
    f.write_text(json.dumps(sc.to_dict()))
    by_file = bufsize.simulate(str(f), progress=False)
    for other in (by_sc, by_map, by_file):   # the engine is deterministic: the same run each time
        assert other.summary["utilization"] == by_kw.summary["utilization"]
        assert other.summary["loss_rate"] == by_kw.summary["loss_rate"]
    # a scenario plus dumbbell keywords is ambiguous; duration/seed may be changed
    with pytest.raises(ScenarioError, match=r"^flows: cannot be combined with a scenario"):
        bufsize.simulate(sc, flows=3)
    assert bufsize.simulate(sc, seed=2, progress=False).scenario.to_dict()["seed"] == 2
    with pytest.raises(ScenarioError, match=r"^buffer: missing"):
        bufsize.simulate(capacity="2Mbps", flows=2, rtt="40ms")


def test_search_min_buffer_accepts_a_delay_with_units():
    sc = bufsize.Scenario.dumbbell(**SMALL)
    res = bufsize.search_min_buffer(sc, max_delay="20ms", seeds=2, range="1..40", resolution=8, executor="serial")
    (key, r), = res.items()
    assert key == "queue_delay_mean_s" and r.target == pytest.approx(0.020)
    with pytest.raises(UnitError, match=r"^max_delay: '5' has no unit"):
        bufsize.search_min_buffer(sc, max_delay="5")
    with pytest.raises(BufsizeError, match=r"^delay_stat: unknown"):
        bufsize.search_min_buffer(sc, max_delay="5ms", delay_stat="median")


def test_simulate_and_reproduce_stay_modules_and_take_keywords_whatever_was_imported_first():
    import subprocess
    import sys

    code = (
        "import bufsize.simulate, bufsize.reproduce\n"          # the submodules first
        "from bufsize.simulate import SimResult\n"
        "import bufsize\n"
        "r = bufsize.simulate(capacity='2Mbps', flows=2, rtt='40ms', buffer=10, duration='2s', warmup='1s')\n"
        "assert isinstance(r, SimResult)\n"
        "assert callable(bufsize.reproduce) and bufsize.reproduce.list_figures()\n"
        "print('ok')\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stdout.strip() == "ok", p.stderr


def test_sweep_keeps_its_positional_form():
    sc = bufsize.Scenario.dumbbell(**SMALL)
    a = bufsize.sweep(sc, {"buffer": [5, 10]}, 1, executor="serial", progress=False)
    b = bufsize.sweep(sc, vary={"buffer": [5, 10]}, seeds=1, executor="serial", progress=False)
    assert list(a["utilization"]) == list(b["utilization"]) and len(a) == 2
    with pytest.raises(BufsizeError, match="positional"):
        bufsize.sweep(sc, {"buffer": [5]}, 1, "out-dir")
