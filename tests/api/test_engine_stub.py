"""The type stub of the Rust extension covers what the built extension exports, and the package
is marked as typed, so type checkers and editors see the engine's API."""

from __future__ import annotations

import ast
from pathlib import Path

import bufsize
from bufsize import _engine

PKG = Path(bufsize.__file__).parent


def _stub() -> dict[str, set[str]]:
    tree = ast.parse((PKG / "_engine.pyi").read_text())
    out: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            out[node.name] = set()
        elif isinstance(node, ast.ClassDef):
            out[node.name] = {n.name for n in node.body if isinstance(n, ast.FunctionDef)}
    return out


def test_every_engine_name_and_method_is_in_the_stub():
    stub = _stub()
    exported = {n for n in dir(_engine) if not n.startswith("_")}
    assert exported <= set(stub), f"missing from _engine.pyi: {sorted(exported - set(stub))}"
    for name in exported:
        obj = getattr(_engine, name)
        if isinstance(obj, type):
            public = {m for m in vars(obj) if not m.startswith("_")}
            assert public <= stub[name], f"{name}: missing from the stub: {sorted(public - stub[name])}"


def test_stub_signatures_match_the_engine_where_it_reports_them():
    import inspect

    tree = ast.parse((PKG / "_engine.pyi").read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and hasattr(_engine, node.name):
            try:
                sig = inspect.signature(getattr(_engine, node.name))
            except (TypeError, ValueError):
                continue
            assert [a.arg for a in node.args.args] == list(sig.parameters), node.name


def test_package_is_marked_typed():
    assert (PKG / "py.typed").exists()
