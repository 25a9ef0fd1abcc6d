"""The Python API is the command line: every flag of every command is a keyword of its function with
the same name, default and type, and every keyword a flag, except the few listed here with the
reason. A new command without its function, a new flag without its keyword (or the reverse), or a
flag whose default or type drifts from its keyword's fails this test."""

from __future__ import annotations

import inspect
import re
from typing import Literal

import click
import pytest

from bufsize import api, testbed, traffic
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
#: (command, flag) -> where its value goes in Python, for flags that write a file the function does not
OUTPUT_FILES = {
    ("traffic summarize", "save_flows"): "bufsize.traffic.read(path).to_parquet(FILE)",
    ("traffic summarize", "save_profile"): "profile.to_json()",
}
#: (command, flag) -> keyword where the spelling has to differ, and why
RENAMED = {
    ("testbed run", "break"): "breakage",   # hidden --break; `break` is a Python keyword
}
#: keywords with no flag, and why
PYTHON_ONLY = {
    "scenario": "the positional SCENARIO_FILE (a Scenario, a dict or a path)",
    "dumbbell": "simulate()'s dumbbell keywords as one mapping",
    "table": "fit's positional DIRECTORY (or a DataFrame)",
    "ids": "reproduce's positional IDS",
    "progress": "a callback or a bar (the command prints its own lines)",
    "host": "transfer client's positional HOST",
    "run_id": "testbed cleanup's positional RUN_ID",
    "remove_work": "testbed.cleanup() may keep the runs' scratch directories; the command removes them",
    "path": "traffic summarize's positional FILE",
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
    ("testbed", "cleanup"): testbed.cleanup,
    ("traffic", "summarize"): traffic.load,
}


def all_commands(group: click.Group = app, path: tuple[str, ...] = ()):
    for name, cmd in group.commands.items():
        if isinstance(cmd, click.Group):
            yield from all_commands(cmd, (*path, name))
        else:
            yield (*path, name), cmd


def test_every_command_has_its_function():
    assert [path for path, _ in all_commands() if path not in COMMANDS] == []


def flag_names(cmd: click.Command) -> dict[str, click.Parameter]:
    out = {}
    for p in cmd.params:
        if isinstance(p, click.Option):
            longs = [o for o in p.opts if o.startswith("--")]
            out[(longs[0] if longs else p.opts[0]).lstrip("-").replace("-", "_")] = p
    return out


def is_shorthand(cmd: click.Command, p: click.Parameter) -> bool:
    """A flag that sets another flag's value (``--full`` for ``--mode full``): its keyword is that flag's."""
    return (isinstance(p, click.Option) and p.is_flag and not p.is_bool_flag
            and any(o is not p and o.name == p.name and not getattr(o, "is_flag", False) for o in cmd.params))


def keyword_of(cmd: click.Command, name: str, flag: str, p: click.Parameter) -> str:
    return str(p.name) if is_shorthand(cmd, p) else RENAMED.get((name, flag), flag)


def mismatches(cmd: click.Command, fn, name: str) -> list[str]:
    flags = flag_names(cmd)
    params = inspect.signature(fn).parameters
    problems = []
    for flag, p in flags.items():
        if flag in DISPLAY_ONLY or (name, flag) in OUTPUT_FILES:
            continue
        key = keyword_of(cmd, name, flag, p)
        if key not in params:
            problems.append(f"--{flag.replace('_', '-')} has no keyword {key}=")
    wanted = {keyword_of(cmd, name, f, p) for f, p in flags.items()}
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


def path_flags_that_are_values_elsewhere(commands) -> list[str]:
    """Flag names that are a file or directory (click.Path) in one command and a value in another
    (``--flows FILE`` beside ``--flows N``): one name, two meanings."""
    kinds: dict[str, dict[bool, list[str]]] = {}
    for path, cmd in commands:
        for flag, p in flag_names(cmd).items():
            kinds.setdefault(flag, {}).setdefault(isinstance(p.type, click.Path), []).append(" ".join(path))
    return [f"--{f.replace('_', '-')}: a path in {k[True]}, a value in {k[False]}"
            for f, k in sorted(kinds.items()) if len(k) == 2]


def test_a_flag_name_is_a_path_everywhere_or_nowhere():
    assert path_flags_that_are_values_elsewhere(all_commands()) == []


def test_a_name_with_two_meanings_is_caught():
    @click.command()
    @click.option("--flows", type=click.Path())
    def summarize(flows):
        pass

    @click.command()
    @click.option("--flows")
    def simulate(flows):
        pass

    assert path_flags_that_are_values_elsewhere([(("summarize",), summarize), (("simulate",), simulate)]) == [
        "--flows: a path in ['summarize'], a value in ['simulate']"]


#: flag names with a meaning that another one must not take over: what the name means in every
#: command that has it, a pattern its help must match there (the kind of value it takes, shown by
#: example or unit) and one it must not (the words of the other meaning)
MEANINGS = {
    "buffer": ("the router's buffer: packets, bytes, a queueing time or a BDP multiple",
               r"\d(pkt|KiB|kB|KB|MB|ms)\b|bdp|packets", r"socket|SO_RCVBUF|SO_SNDBUF|autotun|sobas"),
    "socket_buffer": ("how a real transfer's sockets' buffers are sized (autotune, fixed:SIZE, sobas)",
                      r"socket", r"router|bottleneck|bdp|pkt"),
}


def meaning_mismatches(commands) -> list[str]:
    """(command, flag) pairs whose help does not say the flag's meaning in :data:`MEANINGS`, and
    names in MEANINGS that no command has (a stale entry checks nothing)."""
    problems, seen = [], set()
    for path, cmd in commands:
        for flag, p in flag_names(cmd).items():
            if flag not in MEANINGS:
                continue
            seen.add(flag)
            meaning, must, never = MEANINGS[flag]
            text = p.help or ""
            if not re.search(must, text) or re.search(never, text, re.IGNORECASE):
                problems.append(f"--{flag.replace('_', '-')} in {' '.join(path)} is not {meaning}: {text!r}")
    return problems + [f"--{f.replace('_', '-')}: in MEANINGS but in no command" for f in sorted(set(MEANINGS) - seen)]


def test_a_flag_name_means_one_thing_in_every_command():
    assert meaning_mismatches(all_commands()) == []


def test_a_buffer_flag_with_another_meaning_is_caught():
    # transfer client's flag as it was: --buffer for the sockets' mode beside the router's --buffer
    @click.command()
    @click.option("--buffer", default="autotune",
                  help="autotune | fixed:SIZE (SO_SNDBUF/SO_RCVBUF on both ends, as iperf3 -w) | sobas.")
    def client(buffer):
        pass

    real = [(path, cmd) for path, cmd in all_commands() if path != ("transfer", "client")]
    assert meaning_mismatches([*real, (("transfer", "client"), client)]) == [
        "--buffer in transfer client is not the router's buffer: packets, bytes, a queueing time or a BDP "
        "multiple: 'autotune | fixed:SIZE (SO_SNDBUF/SO_RCVBUF on both ends, as iperf3 -w) | sobas.'",
        "--socket-buffer: in MEANINGS but in no command"]


#: options defined once in bufsize.commands._options and used by several commands
SHARED = ("executor", "workers", "scheduler", "confidence", "seeds")


def shared_option_differences(commands) -> list[str]:
    """Shared flags whose type, metavar or (but for --seeds, whose default is per command) default
    differ between two commands: each command defining its own copy drifts."""
    forms: dict[str, dict[tuple, list[str]]] = {}
    for path, cmd in commands:
        ctx = click.Context(cmd)
        for flag, p in flag_names(cmd).items():
            if flag in SHARED:
                t = p.type
                form = (type(t).__name__, getattr(t, "min", None), tuple(getattr(t, "choices", ())),
                        p.make_metavar(ctx), None if flag == "seeds" else repr(p.default))
                forms.setdefault(flag, {}).setdefault(form, []).append(" ".join(path))
    return [f"--{f}: {len(k)} definitions: {list(k.values())}" for f, k in sorted(forms.items()) if len(k) > 1]


def test_shared_options_are_one_definition():
    assert shared_option_differences(all_commands()) == []
    # each of them is in at least two commands, else it is not shared
    counts = {f: sum(f in flag_names(cmd) for _, cmd in all_commands()) for f in SHARED}
    assert min(counts.values()) >= 2, counts


def test_a_command_s_own_copy_of_a_shared_option_is_caught():
    @click.command()
    @click.option("--workers", type=int, metavar="N")
    def sweep(workers):
        pass

    real = [(path, cmd) for path, cmd in all_commands() if path != ("sweep",)]
    (problem,) = shared_option_differences([*real, (("sweep",), sweep)])
    assert problem.startswith("--workers: 2 definitions: ") and "['sweep']" in problem


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


def _members(annotation) -> set[str]:
    """The alternatives of a keyword's annotation, by name (``int | Sequence[int] | None`` ->
    int, Sequence, None); ``Quantity`` and ``RTTs`` stand for str, float and int."""
    text = annotation.__name__ if isinstance(annotation, type) else str(annotation)
    depth, parts, cur = 0, [], ""
    for ch in text:
        depth += ch == "["
        depth -= ch == "]"
        if ch == "|" and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    names = {part.strip().split("[")[0].split(".")[-1] for part in parts}
    if names & {"Quantity", "RTTs"}:
        names |= {"str", "float", "int"}
    if "float" in names:
        names.add("int")   # a float keyword takes a whole number
    return names


def _literal(annotation) -> set[str] | None:
    m = re.search(r"Literal\[([^\]]*)\]", str(annotation))
    return None if m is None else {v.strip().strip("'\"") for v in m.group(1).split(",")}


def type_mismatches(flag: str, p: click.Parameter, annotation) -> list[str]:
    """What the flag's click type gives the command that the keyword's annotation does not take,
    and the reverse where the keyword reads text (units, percentages) that the flag refuses."""
    t, members, shown = p.type, _members(annotation), f"--{flag.replace('_', '-')}"
    if p.multiple:
        return [] if members & {"Sequence", "Mapping"} else [f"{shown} repeats, {flag}= is {annotation}"]
    if isinstance(t, click.Choice):
        lit = _literal(annotation)
        if lit is not None and lit != {str(c) for c in t.choices}:
            return [f"{shown} takes {sorted(map(str, t.choices))}, {flag}= {sorted(lit)}"]
        return [] if lit is not None or "str" in members else [f"{shown} is a choice, {flag}= is {annotation}"]
    if isinstance(t, click.types.BoolParamType):
        need = "bool"
    elif isinstance(t, click.types.IntParamType):
        need = "int"
    elif isinstance(t, click.types.FloatParamType):
        need = "float"
    elif isinstance(t, click.Path):
        return [] if members & {"str", "PathLike"} else [f"{shown} is a path, {flag}= is {annotation}"]
    else:   # text (STRING, or a type of ours that reads text): the keyword takes the same text
        need = "str"
    problems = [] if need in members else [f"{shown} is {need}, {flag}= is {annotation}"]
    if need in ("int", "float") and "str" in members:
        problems.append(f"{shown} takes only a number, {flag}= also text ({annotation})")
    return problems


def effective_default(cmd: click.Command, p: click.Parameter):
    """What the command gets when the flag is left out, as click resolves it (an on/off flag: False;
    a shorthand such as --quick: its value when it is the default); None when nothing."""
    value = p.get_default(click.Context(cmd))
    if "UNSET" in repr(value) or (p.multiple and value == ()):
        return None
    return value


def default_mismatches(cmd: click.Command, fn, name: str) -> list[str]:
    """Flags whose default is not the keyword's default, or whose click type does not match the
    keyword's annotation (see :func:`type_mismatches`)."""
    params = inspect.signature(fn).parameters
    problems = []
    for flag, p in flag_names(cmd).items():
        key = keyword_of(cmd, name, flag, p)
        if flag in DISPLAY_ONLY or key not in params:
            continue
        annotation = params[key].annotation
        if is_shorthand(cmd, p):   # --full: a value the keyword takes
            lit = _literal(annotation)
            if lit is not None and str(p.flag_value) not in lit:
                problems.append(f"--{flag} sets {key}={p.flag_value!r}, which {key}= does not take")
            continue
        want = effective_default(cmd, p)
        if params[key].default != want:
            problems.append(f"--{flag.replace('_', '-')} defaults to {want!r}, {key}= to {params[key].default!r}")
        problems += type_mismatches(flag, p, annotation)
    return problems


@pytest.mark.parametrize("path", list(COMMANDS), ids=" ".join)
def test_every_flag_default_and_type_is_the_keyword_s(path):
    cmd = app
    for part in path:
        cmd = cmd.commands[part]
    assert default_mismatches(cmd, COMMANDS[path], " ".join(path)) == []


def test_a_different_default_or_type_is_caught():
    @click.command()
    @click.option("--repeats", default=3, type=int)
    @click.option("--rtt", default="70ms")
    @click.option("--seeds", default="5")
    @click.option("--target", type=float)
    @click.option("--mode", type=click.Choice(["quick", "full"]), default="quick")
    @click.option("--full", "mode", flag_value="full")
    @click.option("--quick", "mode", flag_value="quick")
    @click.option("--verify/--no-verify", default=None)
    def cmd(repeats, rtt, seeds, target, mode, verify):
        pass

    def fn(*, repeats: float = 3, rtt: str = "80ms", seeds: int = 5, target: float | str | None = None,
           mode: Literal["quick", "slow"] = "quick", verify: bool | Literal["auto"] = "auto"):
        pass

    assert default_mismatches(cmd, fn, "x") == [
        "--rtt defaults to '70ms', rtt= to '80ms'",
        "--seeds defaults to '5', seeds= to 5", "--seeds is str, seeds= is int",
        "--target takes only a number, target= also text (float | str | None)",
        "--mode takes ['full', 'quick'], mode= ['quick', 'slow']",
        "--full sets mode='full', which mode= does not take",
        "--verify defaults to None, verify= to 'auto'"]
    # the whole-number flag against a float keyword passes: a float keyword takes an int
    assert mismatches(cmd, fn, "x") == []


def test_a_changed_default_of_a_real_command_is_caught(monkeypatch):
    # the check on the real sweep: its --seeds default changed on one side only
    cmd = app.commands["sweep"]
    seeds = next(p for p in cmd.params if p.name == "seeds")
    monkeypatch.setattr(seeds, "default", 3)
    assert default_mismatches(cmd, api.sweep, "sweep") == ["--seeds defaults to 3, seeds= to 1"]


def test_seeds_and_mode_flags_give_what_the_keywords_take():
    ctx = app.commands["sweep"].make_context("sweep", ["--out", "x", "--seeds", "1,4"])
    assert ctx.params["seeds"] == [1, 4]
    ctx = app.commands["search"].commands["min-buffer"].make_context("min-buffer", [])
    assert ctx.params["seeds"] == 5
    for args, mode in (([], "quick"), (["--full"], "full"), (["--mode", "full"], "full"), (["--quick"], "quick")):
        assert app.commands["reproduce"].make_context("reproduce", args).params["mode"] == mode
    for args, verify in (([], "auto"), (["--verify"], True), (["--no-verify"], False)):
        assert app.commands["recommend"].make_context("recommend", args).params["verify"] == verify


def test_trace_cwnd_and_percentages_read_as_on_the_command_line():
    import bufsize

    sc = api.scenario(capacity="10Mbps", flows=3, rtt="20ms", buffer=10, trace_cwnd="0,2", seed="7")
    assert sc.to_dict()["measure"]["cwnd_trace_flows"] == [0, 2] and sc.seed == 7
    with pytest.raises(bufsize.BufsizeError, match="^trace_cwnd: expected flow ids"):
        api.scenario(capacity="10Mbps", flows=3, rtt="20ms", buffer=10, trace_cwnd="0,x")


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
    (lambda b: b.transfer_client("localhost", socket_buffer="big"), "^socket_buffer: expected autotune"),
    # the old keyword, which means the router's buffer everywhere else, points to the new one
    (lambda b: b.transfer_client("localhost", buffer="sobas"), "^buffer: unknown keyword; did you mean 'socket_buffer'"),
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
