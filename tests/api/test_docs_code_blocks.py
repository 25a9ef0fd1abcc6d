"""Every code block of the docs and the README is run by the suite, or says why not.

A block's fence names its language. ``python`` blocks are executed (in a scratch directory with the
repository's ``examples/`` and ``tests/``), each within a time budget; ``toml`` blocks are read as
scenario files; the ``bufsize`` commands of ``console``/``sh``/``bash`` blocks are parsed and the
cheap ones run by test_docs_commands.py (which lists why the others are not). A block that is not
run says so on the line above its fence, where a reader of the source sees it:

    <!-- not run: a sweep of 54 simulations (about a minute); test_docs_commands runs its commands -->

and a shell block with anything but ``bufsize`` commands (``make``, ``pip``) needs that line too.
``text`` blocks are output, diagrams or layouts, not code. A fence without a language fails, as does
a block the rules above leave unaccounted for. Every page of docs/ (the generated reproduction
reports included) and README.md is read."""

from __future__ import annotations

import re
import time
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: wall seconds one executed block may take; a slower one is to be marked not run (with why)
BLOCK_BUDGET_S = 60.0
SHELLS = {"console", "sh", "bash", "shell"}
_FENCE = re.compile(r"^```([^\n]*)\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
_MARK = re.compile(r"^<!--\s*not run:\s*(.*?)\s*-->\s*$")


def pages() -> list[Path]:
    return [*sorted(ROOT.joinpath("docs").rglob("*.md")), ROOT / "README.md"]


def blocks(text: str) -> list[dict]:
    """The fenced blocks of a page: language, body, line number and the not-run reason (None: run;
    ``""``: a marker without a reason)."""
    out = []
    for m in _FENCE.finditer(text):
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        mark = _MARK.match(before)
        out.append({"lang": m.group(1).strip().split(" ")[0].lower(), "body": m.group(2),
                    "line": text.count("\n", 0, m.start()) + 1, "not_run": mark.group(1) if mark else None})
    return out


def shell_commands(lang: str, body: str) -> list[str]:
    """The commands of a shell block: ``$ `` lines of a console block (the rest is output), every
    line but comments of an sh/bash block; continuation lines joined, trailing comments dropped."""
    lines, out, i = body.splitlines(), [], 0
    while i < len(lines):
        s = lines[i].strip()
        i += 1
        if lang == "console":
            if not s.startswith("$ "):
                continue
            s = s[2:]
        if not s or s.startswith("#"):
            continue
        while s.endswith("\\") and i < len(lines):
            s = s[:-1].rstrip() + " " + lines[i].strip()
            i += 1
        out.append(re.split(r"\s+#(?:\s|$)", s)[0].strip())
    return out


def unaccounted(block: dict) -> str | None:
    """Why a block is neither run nor marked as not run (None: it is accounted for)."""
    lang, reason = block["lang"], block["not_run"]
    if reason is not None:
        return None if reason else "its not-run marker gives no reason"
    if not lang:
        return "the fence names no language (python, toml, console, sh, text, ...)"
    if lang in ("python", "toml", "text"):
        return None
    if lang in SHELLS:
        other = [c for c in shell_commands(lang, block["body"]) if not c.startswith("bufsize ")]
        return f"runs {other[0]!r}, which no test runs: mark it not run, with why" if other else None
    return f"no test runs {lang!r} blocks: mark it not run, with why"


CASES = [(str(p.relative_to(ROOT)), b) for p in pages() for b in blocks(p.read_text(encoding="utf-8"))]


def _id(case) -> str:
    page, b = case
    return f"{page}:{b['line']} {b['lang'] or '-'}"


@pytest.mark.parametrize("case", CASES, ids=[_id(c) for c in CASES])
def test_every_block_is_run_or_says_why_not(case):
    page, block = case
    assert unaccounted(block) is None, f"{page}:{block['line']}: {unaccounted(block)}"


def test_an_unaccounted_block_is_caught():
    page = ("```\nbufsize --help\n```\n\n```sh\nmake test\n```\n\n<!-- not run: -->\n```python\nx = 1\n```\n\n"
            "```console\n$ bufsize --help\nUsage: bufsize\n```\n\n<!-- not run: needs a cluster -->\n```sh\nmake x\n```\n")
    found = [unaccounted(b) for b in blocks(page)]
    assert found == ["the fence names no language (python, toml, console, sh, text, ...)",
                     "runs 'make test', which no test runs: mark it not run, with why",
                     "its not-run marker gives no reason", None, None]


def _scratch(tmp_path: Path, monkeypatch) -> None:
    for name in ("examples", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)


PYTHON = [(p, b) for p, b in CASES if b["lang"] == "python"]


@pytest.mark.parametrize("case", PYTHON, ids=[_id(c) for c in PYTHON])
def test_the_python_blocks_run(case, tmp_path, monkeypatch):
    page, block = case
    if block["not_run"] is not None:
        pytest.skip(f"not run: {block['not_run']}")
    _scratch(tmp_path, monkeypatch)
    monkeypatch.setenv("MPLBACKEND", "Agg")
    t0 = time.perf_counter()
    exec(compile(block["body"], f"{page}:{block['line']}", "exec"), {"__name__": "__docs__"})
    took = time.perf_counter() - t0
    assert took < BLOCK_BUDGET_S, (f"{page}:{block['line']} took {took:.0f} s (budget {BLOCK_BUDGET_S:.0f} s): "
                                   "make it cheaper or mark it not run, with why")


TOML = [(p, b) for p, b in CASES if b["lang"] == "toml"]


@pytest.mark.parametrize("case", TOML, ids=[_id(c) for c in TOML])
def test_the_toml_blocks_are_scenarios(case):
    """A toml block is a scenario or a part of one: laid over examples/one_flow.toml, it must load."""
    from bufsize.scenario import Scenario

    page, block = case
    if block["not_run"] is not None:
        pytest.skip(f"not run: {block['not_run']}")

    def merge(base: dict, part: dict) -> dict:
        out = dict(base)
        for k, v in part.items():
            out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
        return out

    base = tomllib.loads((ROOT / "examples" / "one_flow.toml").read_text(encoding="utf-8"))
    Scenario.from_dict(merge(base, tomllib.loads(block["body"])))



def test_the_site_shows_the_not_run_reason():
    import importlib.util

    spec = importlib.util.spec_from_file_location("bufsize_docs_hook", ROOT / "docs" / "_hooks" / "bufsize_docs.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    page = "text\n\n<!-- not run: needs a cluster -->\n```python\nx = 1\n```\n"
    out = hook.on_page_markdown(page)
    assert "*Not run by the test suite: needs a cluster.*\n\n```python" in out and "<!--" not in out
