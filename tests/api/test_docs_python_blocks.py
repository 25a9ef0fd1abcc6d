"""The Python the docs show still fits the API: every ``python`` block of the docs pages checked here
compiles, and every call it makes to a bufsize function (``bufsize.simulate(...)``, a name imported
from bufsize) passes arguments that function takes: a renamed or removed keyword, or one too many
positional arguments, fails, also in a block marked not run. test_docs_code_blocks runs the blocks
that are not marked; a block that needs a package the suite does not install (a Dask cluster
manager) is skipped here with its name. README.md is checked as the docs pages are."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def python_blocks(text: str) -> list[str]:
    return [m.group(1) for m in re.finditer(r"^```python[^\n]*\n(.*?)^```", text, re.MULTILINE | re.DOTALL)]


def _pages() -> list[Path]:
    pages = sorted(ROOT.joinpath("docs").rglob("*.md"))
    docs = [p for p in pages if "reproduction" not in p.parts]
    return [*docs, ROOT / "README.md"]


CASES = [(str(p.relative_to(ROOT)), i, b) for p in _pages()
         for i, b in enumerate(python_blocks(p.read_text(encoding="utf-8")))]


def bad_calls(source: str) -> list[str]:
    """The calls of ``source`` to bufsize functions that the functions would refuse, with why."""
    tree = ast.parse(source)
    names: dict[str, object] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name.split(".")[0] == "bufsize":
                    names[(a.asname or a.name).split(".")[0]] = importlib.import_module(a.name.split(".")[0])
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("bufsize"):
            mod = importlib.import_module(node.module)
            for a in node.names:
                names[a.asname or a.name] = getattr(mod, a.name)

    def resolve(expr: ast.expr) -> object | None:
        if isinstance(expr, ast.Name):
            return names.get(expr.id)
        if isinstance(expr, ast.Attribute):
            base = resolve(expr.value)
            return None if base is None else getattr(base, expr.attr, _Missing(expr.attr))
        return None

    bad = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        fn = resolve(node.func)
        if fn is None:
            continue
        text = ast.unparse(node.func)
        if isinstance(fn, _Missing):
            bad.append(f"{text}: no such name")
            continue
        try:
            sig = inspect.signature(fn)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            continue
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            continue
        try:
            sig.bind_partial(*([None] * len(node.args)), **{k.arg: None for k in node.keywords if k.arg})
        except TypeError as exc:
            bad.append(f"{text}: {exc}")
    return bad


class _Missing:
    def __init__(self, name: str) -> None:
        self.name = name


@pytest.mark.parametrize("page, index, block", CASES, ids=[f"{p} #{i}" for p, i, _ in CASES])
def test_the_python_in_the_docs_calls_bufsize_as_it_is(page, index, block):
    for missing in ("dask_jobqueue", "dask_kubernetes"):
        if missing in block and importlib.util.find_spec(missing) is None:
            pytest.skip(f"needs {missing}, not installed by the test extras (a cluster manager)")
    compile(block, f"{page} block {index}", "exec")
    assert bad_calls(block) == []


def test_a_renamed_keyword_is_caught():
    assert bad_calls("import bufsize\nbufsize.simulate(capacity='10Mbps', flowz=3)")
    assert bad_calls("import bufsize\nbufsize.no_such_function()") == ["bufsize.no_such_function: no such name"]
    assert bad_calls("from bufsize.cost import estimate\nestimate('a.toml', 'b', 'c', 'd')")
    assert bad_calls("import bufsize\nbufsize.simulate(capacity='10Mbps', flows=3)") == []
