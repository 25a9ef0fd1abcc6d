"""The Python API is the command line: every flag of a command is a keyword of its function with
the same name, and every keyword a flag, except the few listed here with the reason. A new flag
without its keyword (or the reverse) fails this test."""

import inspect

import click
import pytest

from bufsize import api
from bufsize.cli import _register, app

_register()

#: flags that only shape what a terminal prints, and their Python counterpart
DISPLAY_ONLY = {
    "json": "the result object has .to_dict() / .to_json()",
    "plot": "the result has .plot() (recommend) or bufsize.plots",
    "explain": "rec.text(explain=True)",
    "show_scenario": "bufsize.scenario(...) returns the scenario",
    "x": "--plot's axes", "y": "--plot's axes", "hue": "--plot's axes",
    "verbose": "a progress callback",
    "list": "bufsize.reproduce.list_figures()",
    "emit": "rec.tc_commands()",
}
#: (command, flag) -> keyword where the spelling has to differ, and why
RENAMED = {
    ("reproduce", "quick"): "mode",      # --quick/--full are mode="quick"/"full"
    ("reproduce", "full"): "mode",
}
#: keywords with no flag, and why
PYTHON_ONLY = {
    "scenario": "the positional SCENARIO_FILE (a Scenario, a dict or a path)",
    "dumbbell": "simulate()'s dumbbell keywords as one mapping",
    "table": "fit's positional DIRECTORY (or a DataFrame)",
    "ids": "reproduce's positional IDS",
    "progress": "a callback or a bar (the command prints its own lines)",
    "mode": "--quick/--full",
}

COMMANDS = {
    ("recommend",): api.recommend,
    ("simulate",): api.simulate,
    ("sweep",): api.sweep,
    ("search", "min-buffer"): api.search_min_buffer,
    ("search", "optimal-buffer"): api.search_optimal_buffer,
    ("fit",): api.fit_sweep,
    ("reproduce",): api.reproduce,
}


def flag_names(cmd: click.Command) -> dict[str, click.Parameter]:
    out = {}
    for p in cmd.params:
        if isinstance(p, click.Option):
            longs = [o for o in p.opts if o.startswith("--")]
            out[(longs[0] if longs else p.opts[0]).lstrip("-").replace("-", "_")] = p
    return out


def mismatches(cmd: click.Command, fn, name: str) -> list[str]:
    flags = flag_names(cmd)
    params = inspect.signature(fn).parameters
    problems = []
    for flag in flags:
        if flag in DISPLAY_ONLY:
            continue
        key = RENAMED.get((name, flag), flag)
        if key not in params:
            problems.append(f"--{flag.replace('_', '-')} has no keyword {key}=")
    wanted = {RENAMED.get((name, f), f) for f in flags}
    for key in params:
        if key not in wanted and key not in PYTHON_ONLY:
            problems.append(f"{key}= has no flag")
    return problems


@pytest.mark.parametrize("path", list(COMMANDS), ids=" ".join)
def test_every_flag_is_a_keyword_and_every_keyword_a_flag(path):
    cmd = app
    for part in path:
        cmd = cmd.commands[part]
    assert mismatches(cmd, COMMANDS[path], path[0]) == []


def test_a_missing_keyword_is_caught():
    # the check itself, fed a command with one flag more than its function
    @click.command()
    @click.option("--capacity")
    @click.option("--new-flag")
    def cmd(capacity, new_flag):
        pass

    def fn(*, capacity=None, stray=None):
        pass

    assert mismatches(cmd, fn, "x") == ["--new-flag has no keyword new_flag=", "stray= has no flag"]


def test_a_number_of_flows_means_the_same_in_sweep_as_everywhere():
    # `flows` is the number of long-lived flows in every function; sweep's per-flow table is flow_table
    for fn in (api.recommend, api.simulate, api.sweep, api.search_min_buffer):
        assert "flows" in inspect.signature(fn).parameters
    assert "flow_table" in inspect.signature(api.sweep).parameters


def test_sweep_and_search_take_the_link_keywords_as_the_commands_take_the_flags(tmp_path):
    import bufsize

    link = dict(capacity="5Mbps", rtt="20ms..40ms", flows=3, duration="4s", warmup="1s")
    t = bufsize.sweep(vary={"buffer": [5, 20]}, seeds=1, executor="serial", progress=False, **link)
    assert sorted(t["buffer_packets"]) == [5, 20] and set(t["n_flows"]) == {3}
    res = bufsize.search_min_buffer(target_utilization=0.5, seeds=2, range="2..30", resolution=8,
                                    executor="serial", **link)
    assert res["utilization"].high <= 30
    with pytest.raises(bufsize.BufsizeError, match="^capacity: cannot be combined"):
        bufsize.sweep(bufsize.Scenario.dumbbell(capacity="5Mbps", flows=2, rtt="20ms", buffer=5), capacity="5Mbps")


def test_search_optimal_buffer_is_a_function_too():
    import bufsize

    r = bufsize.search_optimal_buffer(capacity="5Mbps", rtt="20ms..40ms", flows=4, duration="6s", warmup="1s",
                                      range=(2, 40), points=4, seeds=2, executor="serial", progress=False)
    assert list(r.table["buffer"]) == [2, 5, 15, 40] and "pkt" in r.statement()
    with pytest.raises(bufsize.BufsizeError, match="^points:"):
        bufsize.search_optimal_buffer(capacity="5Mbps", rtt="20ms", flows=4, range="2..3", points=10)
