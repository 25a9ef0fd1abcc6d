"""A scenario nested absurdly deep (a hostile or broken file, or a dict built in Python) is a
one-line error, not a RecursionError, whatever the format."""

import json

import pytest

from bufsize.cli import main
from bufsize.errors import ScenarioError
from bufsize.scenario import Scenario
from bufsize._json import nesting_depth


@pytest.mark.parametrize("name, text", [
    ("deep.json", '{"a": ' + "[" * 100_000 + "]" * 100_000 + "}"),
    ("deep.toml", "a = " + "[" * 5000 + "]" * 5000),
    ("deep2.json", json.dumps({"seed": 1, "x": json.loads("[" * 200 + "]" * 200)})),
])
def test_deeply_nested_scenario_files_are_one_line_exit_2(tmp_path, capsys, name, text):
    path = tmp_path / name
    path.write_text(text)
    assert main(["simulate", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bufsize: error:") and "nested" in err and "\n" not in err


def test_a_deep_dict_from_python_is_refused_before_it_is_read():
    d = {"x": 1}
    for _ in range(1000):
        d = {"a": [d]}
    with pytest.raises(ScenarioError, match="nested more than 32 deep"):
        Scenario.from_dict({"seed": 1, "deep": d})


def test_depth_is_counted_without_recursion_and_stops_early():
    assert nesting_depth({"a": [1, {"b": 2}]}, 10) == 3
    assert nesting_depth(1, 10) == 0
    deep = []
    for _ in range(10**5):
        deep = [deep]
    assert nesting_depth(deep, 32) == 33
