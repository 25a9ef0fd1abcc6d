"""The recommendation package is layered: each module imports only the package modules below it, so
each addition has one obvious place and nothing imports back up (a circle of modules is a defect)."""

import ast
import pathlib

import pytest

import bufsize.recommendation

PKG = pathlib.Path(bufsize.recommendation.__file__).parent

#: bottom to top: the models' applicability rules, the description, the models' table and pick, the
#: simulated scenario, how long a run is, how runs are made and share warm-ups, the sequential test's levels,
#: what a search says while it runs, the verification, the check of one size where the search does not fit the
#: budget, how it is shown, and the result object that delegates to it
LAYERS = ["rules", "inputs", "models", "choice", "scenario", "runlength", "runs", "warmstart", "sequential", "progress",
          "verification", "check", "display", "result"]


def package_imports(source: str) -> set[str]:
    """The package modules a module's source imports (top-level and inside functions alike; imports
    for type checking only are not imports at run time and are left out)."""
    tree = ast.parse(source)
    typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                   and getattr(node.test, "id", None) == "TYPE_CHECKING" for b in node.body for n in ast.walk(b)}
    out = set()
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module == "bufsize.recommendation":
                out |= {a.name if a.name in LAYERS else "__init__" for a in node.names}
            elif node.module.startswith("bufsize.recommendation."):
                out.add(node.module.split(".")[2])
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name.startswith("bufsize.recommendation."):
                    out.add(a.name.split(".")[2])
    return out


def layer_violations(name: str, source: str) -> list[str]:
    rank = LAYERS.index(name)
    return [m for m in package_imports(source) if m == "__init__" or m not in LAYERS or LAYERS.index(m) >= rank]


def test_every_module_of_the_package_has_a_layer():
    modules = {p.stem for p in PKG.glob("*.py")} - {"__init__"}
    assert modules == set(LAYERS)


@pytest.mark.parametrize("name", LAYERS)
def test_modules_import_only_the_layers_below_them(name):
    assert layer_violations(name, (PKG / f"{name}.py").read_text()) == []


def test_an_import_back_up_is_caught():
    # the check itself, fed the defect it exists for
    assert layer_violations("models", "def f():\n    from bufsize.recommendation.scenario import ENGINE_CC\n") \
        == ["scenario"]
    assert layer_violations("inputs", "from bufsize.recommendation import recommend\n") == ["__init__"]
