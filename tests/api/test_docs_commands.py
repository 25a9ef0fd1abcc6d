"""The commands the documentation shows are commands bufsize still takes. Every ``bufsize ...`` line
in a fenced block of the docs pages checked here is parsed by the command line itself (a renamed or
removed flag, a wrong choice, a missing argument fails); the cheap ones are run and must exit 0;
the rest are listed below with why they are not run. A template line (SCENARIO, HOST, ``[...]``) is
skipped as such. The worked example of docs/experiments.md is run (slow) and must print what the
page shows, so regenerating it is due whenever the simulator's numbers change.

Pages not checked here: the generated reproduction reports. README.md is checked as the docs pages
are (its long verified runs are among the commands not run, by their first words)."""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parents[2]

#: Commands not run by this test, by their first words, and why (they are still parsed).
NOT_RUN = {
    "recommend": "verifies its answer on the simulator (seconds to a minute); tests/recommend runs it",
    "simulate": "60-s runs of 400 flows take seconds each; tests/sim runs the simulator",
    "sweep": "tens of simulations (the worked example is run by the slow test below)",
    "search": "tens of simulations; tests/experiments/test_search.py runs the search",
    "fit": "needs the sweep's runs (the worked example's fit is run by the slow test below)",
    "reproduce fig": "a figure takes seconds to minutes; tests/reproduce runs them",
    "reproduce 003": "kernel-testbed figures: root and minutes",
    "reproduce 004-": "a figure by its paper id: seconds to minutes; tests/reproduce runs them",
    "reproduce all": "every figure: hours",
    "testbed": "needs root and the testbed's tools; tests/testbed runs it where they are",
    "compare": "runs the testbed (root)",
    "traffic summarize capture.pcapng": "an example name for the reader's own capture",
    "traffic summarize trace.pcap": "an example name for the reader's own capture (tests/traffic runs each form)",
    "recommend --traffic": "an example name for the reader's own capture",
}
#: Commands run by this test (by their first words); each must exit 0.
RUN = ("--help", "reproduce --list", "traffic summarize tests/data/captures/")
_TEMPLATE = re.compile(r"(?<![\w.-])[A-Z][A-Z_]{2,}(?![\w.-])|\[|\]|\.\.\.|\|")


def _pages() -> list[Path]:
    pages = sorted(ROOT.joinpath("docs").rglob("*.md"))
    docs = [p for p in pages if "reproduction" not in p.parts]
    return [*docs, ROOT / "README.md"]


def doc_commands(text: str) -> list[str]:
    """``bufsize`` command lines of the fenced blocks of a page: the prompt and a trailing comment
    taken off, continuation lines joined."""
    out, inside, lines, i = [], False, text.splitlines(), 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("```"):
            inside = not inside
        elif inside:
            s = line.strip().removeprefix("$ ")
            if s.startswith("bufsize "):
                while s.endswith("\\") and i + 1 < len(lines):
                    i += 1
                    s = s[:-1].rstrip() + " " + lines[i].strip()
                out.append(re.split(r"\s+#(?:\s|$)", s)[0].strip())
        i += 1
    return out


CASES = [(str(p.relative_to(ROOT)), c) for p in _pages() for c in doc_commands(p.read_text(encoding="utf-8"))]


def _parse(args: list[str]) -> click.Command:
    """Parse ``args`` as the command line would, down to the command, without running it."""
    from bufsize.cli import app

    cmd: click.Command = app
    ctx = cmd.make_context("bufsize", list(args))
    while isinstance(cmd, click.Group):
        rest = [*getattr(ctx, "_protected_args", []), *ctx.args]
        name, sub, rest = cmd.resolve_command(ctx, rest)
        assert sub is not None, f"no command {name!r}"
        cmd = sub
        ctx = cmd.make_context(name or "", rest, parent=ctx)
    return cmd


def _words(command: str) -> str:
    return command.removeprefix("bufsize ").strip()


@pytest.mark.parametrize("page, command", CASES, ids=[f"{p}: {c[:60]}" for p, c in CASES])
def test_every_command_in_the_docs_is_one_bufsize_takes(page, command):
    if _TEMPLATE.search(_words(command)):
        pytest.skip("a template (placeholders such as SCENARIO or [RUN_ID]), not a command")
    args = shlex.split(_words(command))
    if "--help" in args:
        return  # run below
    _parse(args)


@pytest.mark.parametrize("page, command", CASES, ids=[f"{p}: {c[:60]}" for p, c in CASES])
def test_every_command_in_the_docs_is_run_or_says_why_not(page, command):
    words = _words(command)
    if _TEMPLATE.search(words) or words.startswith(RUN):
        return
    assert any(words.startswith(k) for k in NOT_RUN), \
        f"{page}: {command!r} is neither run by this test (RUN) nor listed with a reason (NOT_RUN)"


@pytest.mark.parametrize("page, command", [c for c in CASES if _words(c[1]).startswith(RUN)],
                         ids=lambda v: v if isinstance(v, str) and len(v) < 40 else str(v)[:60])
def test_the_cheap_commands_in_the_docs_run(page, command, tmp_path, monkeypatch, capsys):
    from bufsize.cli import main

    for name in ("examples", "tests"):
        (tmp_path / name).symlink_to(ROOT / name)
    monkeypatch.chdir(tmp_path)
    rc = main(shlex.split(_words(command)))
    assert rc == 0, capsys.readouterr().err


def test_a_renamed_flag_fails_the_check():
    with pytest.raises(click.UsageError, match="No such option"):
        _parse(shlex.split("sweep examples/oc3_400.toml --vary-field buffer=10,20"))
    with pytest.raises(click.UsageError):
        _parse(shlex.split("fit runs/oc3 --loss quadratic"))


# ----------------------------------------------------------------------------- the worked example

def _block_after(text: str, command_start: str) -> list[str]:
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("$ " + command_start))
    while lines[i].endswith("\\"):
        i += 1
    out = []
    for line in lines[i + 1:]:
        if line.startswith(("$ ", "```")):
            break
        out.append(line)
    return [line for line in out if line.strip()]


#: Output lines that depend on the machine (wall time, its cost estimate), not on the runs.
_MACHINE = ("cost ", "runs ")


@pytest.mark.slow
def test_the_worked_example_prints_what_the_page_shows(tmp_path, monkeypatch, capsys):
    """docs/experiments.md: the sweep's table and the fit's report, line for line (54 runs of 30 s;
    about 10-30 s on two cores)."""
    from bufsize.cli import main

    page = (ROOT / "docs" / "experiments.md").read_text(encoding="utf-8")
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    (tmp_path / "docs").mkdir()
    monkeypatch.chdir(tmp_path)
    for start in ("bufsize sweep examples/oc3_400.toml --vary buffer=10..1600:9:log", "bufsize fit runs/oc3"):
        command = next(c for c in doc_commands(page) if c.startswith(start))
        assert main([*shlex.split(_words(command)), *(["--no-progress"] if "sweep" in start else [])]) == 0
        got = [line for line in capsys.readouterr().out.splitlines() if line.strip()]
        want = _block_after(page, start.removeprefix("bufsize ").join(["bufsize ", ""]))
        assert [line for line in got if not line.startswith(_MACHINE)] == \
               [line for line in want if not line.startswith(_MACHINE)]
