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
    "quiet": "progress=False (testbed run, compare); transfer_server keeps quiet=",
}
#: (command, flag) -> keyword where the spelling has to differ, and why
RENAMED = {
    ("reproduce", "quick"): "mode",      # --quick/--full are mode="quick"/"full"
    ("reproduce", "full"): "mode",
    ("testbed run", "break"): "breakage",   # hidden --break; `break` is a Python keyword
}
#: keywords with no flag, and why
PYTHON_ONLY = {
    "scenario": "the positional SCENARIO_FILE (a Scenario, a dict or a path)",
    "dumbbell": "simulate()'s dumbbell keywords as one mapping",
    "table": "fit's positional DIRECTORY (or a DataFrame)",
    "ids": "reproduce's positional IDS",
    "progress": "a callback or a bar (the command prints its own lines)",
    "mode": "--quick/--full",
    "host": "transfer client's positional HOST",
    "on_interval": "transfer client's per-interval records (the command prints them)",
    "stop": "a threading.Event that ends transfer_server (the command stops on Ctrl-C)",
}

COMMANDS = {
    ("recommend",): api.recommend,
    ("simulate",): api.simulate,
    ("sweep",): api.sweep,
    ("search", "min-buffer"): api.search_min_buffer,
    ("search", "optimal-buffer"): api.search_optimal_buffer,
    ("fit",): api.fit_sweep,
    ("reproduce",): api.reproduce,
    ("compare",): api.compare,
    ("testbed", "run"): api.testbed_run,
    ("testbed", "check"): api.testbed_check,
    ("transfer", "client"): api.transfer_client,
    ("transfer", "server"): api.transfer_server,
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
    assert mismatches(cmd, COMMANDS[path], " ".join(path)) == []


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


def default_mismatches(cmd: click.Command, fn, name: str) -> list[str]:
    """Flags whose default (a value, not 'unset') is not the keyword's default, or whose click type
    is a whole number where the keyword's annotation does not admit an int."""
    params = inspect.signature(fn).parameters
    problems = []
    for flag, p in flag_names(cmd).items():
        key = RENAMED.get((name, flag), flag)
        if flag in DISPLAY_ONLY or key not in params:
            continue
        want = p.default
        if want is None or "UNSET" in repr(want):   # no value: the keyword's None/False stands for it
            continue
        if params[key].default != want:
            problems.append(f"--{flag.replace('_', '-')} defaults to {want!r}, {key}= to {params[key].default!r}")
        if isinstance(p.type, click.types.IntParamType) and "int" not in str(params[key].annotation):
            problems.append(f"--{flag.replace('_', '-')} is a whole number, {key}= is {params[key].annotation}")
    return problems


# commands whose keywords were written from the flags' definitions: defaults and types checked too
TYPED = [("compare",), ("testbed", "run"), ("testbed", "check"), ("transfer", "client"), ("transfer", "server")]


@pytest.mark.parametrize("path", TYPED, ids=" ".join)
def test_every_flag_default_is_the_keyword_default(path):
    cmd = app
    for part in path:
        cmd = cmd.commands[part]
    assert default_mismatches(cmd, COMMANDS[path], " ".join(path)) == []


def test_a_different_default_or_type_is_caught():
    @click.command()
    @click.option("--repeats", default=3, type=int)
    @click.option("--rtt", default="70ms")
    def cmd(repeats, rtt):
        pass

    def fn(*, repeats: float = 3, rtt="80ms"):
        pass

    assert default_mismatches(cmd, fn, "x") == ["--repeats is a whole number, repeats= is <class 'float'>",
                                                "--rtt defaults to '70ms', rtt= to '80ms'"]


@pytest.mark.parametrize("call, message", [
    (lambda b: b.testbed_run(repeats=0), "^repeats: must be at least 1"),
    (lambda b: b.testbed_run(capacity="1Gbps"), "^capacity: "),
    (lambda b: b.testbed_run(burst="1B"), "^burst: "),
    (lambda b: b.testbed_run(halt_poll=True), "^halt_poll: "),
    (lambda b: b.testbed_run(repeat=2), "^repeat: unknown keyword; did you mean 'repeats'"),
    (lambda b: b.compare("x.toml", flows=2), "^SCENARIO_FILE|^scenario: give a scenario"),
    (lambda b: b.compare(attempts=0), "^attempts: must be at least 1"),
    (lambda b: b.compare(loss_detection="fast"), "^loss_detection: "),
    (lambda b: b.transfer_client("localhost", port=70000), "^port: expected 0..65535"),
    (lambda b: b.transfer_client("localhost", duration="1s", bytes="1MB"), "^duration/bytes: give one"),
    (lambda b: b.transfer_client("localhost", buffer="big"), "^buffer: expected autotune"),
    (lambda b: b.transfer_client("localhost", rtt_source="ping"), "^rtt_source: expected probes"),
    (lambda b: b.transfer_server(max_clients=0), "^max_clients: expected 1..256"),
    (lambda b: b.transfer_server(handshake_timeout="soon"), "^handshake_timeout: "),
])
def test_testbed_compare_and_transfer_refuse_bad_keywords_before_running(call, message):
    # only refusals: a valid call would build namespaces or open sockets
    import bufsize

    with pytest.raises(bufsize.BufsizeError, match=message) as info:
        call(bufsize)
    assert "\n" not in str(info.value) and "--" not in str(info.value)


def test_testbed_check_stays_a_function_after_a_call():
    # the package's check() once imported its submodule of the same name on the first call,
    # which replaced the function by the module
    import importlib

    from bufsize import testbed

    importlib.import_module("bufsize.testbed.check")
    testbed.check()
    assert callable(testbed.check) and testbed.check().to_dict() == testbed.check().to_dict()
