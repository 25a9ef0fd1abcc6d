"""MkDocs hooks of the bufsize site (mkdocs.yml).

- ``<!-- cli-help: NAME -->`` in a page becomes the ``bufsize NAME --help`` text, taken from the
  installed package when the site is built, so the command pages cannot drift from the command
  line. A command (or sub-command) that no longer exists fails the build.
- The benchmark reports of the repository's ``bench/`` folder are pages of the site (``bench/``, with
  an index), and a guide's link to one (``../bench/fuzz.md``) leads to its page.
- ``<!-- not run: REASON -->`` on the line above a code block (the marker the test suite reads
  for a block it does not execute: tests/api/test_docs_code_blocks.py) is shown to the reader as
  a note, "Not run by the test suite: REASON".
- Generated reports quote formulas such as ``E[Q](14)`` (the mean queue for flows of 14 packets),
  which Markdown would read as a link to a page "14": a bracket followed by a purely numeric
  target is shown as the text it is.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path, PurePosixPath
from typing import Any

_MARK = re.compile(r"<!--\s*cli-help:\s*([\w -]*?)\s*-->")


def _help(path: str) -> str:
    import click

    from bufsize.cli import app

    ctx = click.Context(app, info_name="bufsize", max_content_width=100, terminal_width=100)
    cmd: click.Command = app
    for name in path.split():
        if not isinstance(cmd, click.Group) or name not in cmd.commands:
            raise KeyError(f"cli-help: no command 'bufsize {path}'")
        cmd = cmd.commands[name]
        ctx = click.Context(cmd, info_name=name, parent=ctx, max_content_width=100, terminal_width=100)
    text = cmd.get_help(ctx)
    if isinstance(cmd, click.Group):
        for sub in cmd.list_commands(ctx):
            text += "\n\n" + _help(f"{path} {sub}".strip())
    return text


_NUMERIC_LINK = re.compile(r"\[([^\]\n]*)\]\((\d+)\)")
_NOT_RUN = re.compile(r"^<!--\s*not run:\s*(.*?)\s*-->[ \t]*\n(?=```)", re.MULTILINE)


def on_page_markdown(markdown: str, page: Any = None, **_: Any) -> str:
    markdown = _NUMERIC_LINK.sub(r"\[\1\](\2)", markdown)
    markdown = _NOT_RUN.sub(lambda m: f"*Not run by the test suite: {m.group(1)}.*\n\n", markdown)
    if page is not None:
        markdown = _to_site_copy(markdown, page)
    return _MARK.sub(lambda m: "```text\n" + _help(m.group(1)) + "\n```", markdown)


# ----------------------------------------------------------------------------- benchmark pages
#
# The benchmark reports live in the repository's bench/ folder, beside the scripts that write them,
# and the guides link to them there (``../bench/fuzz.md`` from docs/simulate.md), which is right
# when the Markdown is read on a code host. The site brings those pages in as ``bench/...`` and
# rewrites such links to the copies, so the same link works in both places; a link into bench/
# whose file does not exist stays as it is and fails the strict build like any broken link.

_REPO = Path(__file__).resolve().parents[2]
_BENCH = _REPO / "bench"
_LINK = re.compile(r"(\]\()([^)\s#]+)(#[^)\s]*)?(\))")


def _bench_pages() -> list[Path]:
    return sorted(p for p in _BENCH.rglob("*.md") if p.is_file())


def _title(path: Path) -> str:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return path.stem


def on_files(files: Any, config: Any, **_: Any) -> Any:
    from mkdocs.structure.files import File

    pages = _bench_pages()
    for p in pages:
        rel = p.relative_to(_REPO).as_posix()
        files.append(File.generated(config, rel, abs_src_path=str(p)))
    rows = "\n".join(f"| [{p.relative_to(_BENCH).as_posix()}]({p.relative_to(_BENCH).as_posix()}) | {_title(p)} |"
                     for p in pages)
    index = ("# Benchmarks\n\nThe measurements behind the numbers the guides quote, as the scripts in the "
             "repository's `bench/` folder wrote them (`make bench` reruns the speed benchmarks; each page says "
             "how it was made).\n\n| page | what it measures |\n|---|---|\n" + rows + "\n")
    files.append(File.generated(config, "bench/index.md", content=index))
    return files


def _to_site_copy(markdown: str, page: Any) -> str:
    src = getattr(page.file, "abs_src_path", None)
    if not src:
        return markdown
    here = Path(src).resolve().parent
    site_dir = PurePosixPath(page.file.src_uri).parent

    def fix(m: re.Match[str]) -> str:
        target = m.group(2)
        if "://" in target or target.startswith(("/", "mailto:")) or not target.endswith(".md"):
            return m.group(0)
        dest = (here / target).resolve()
        if _BENCH not in dest.parents or not dest.is_file():
            return m.group(0)
        site_path = PurePosixPath(dest.relative_to(_REPO).as_posix())
        new = posixpath.relpath(site_path, site_dir)
        return f"{m.group(1)}{new}{m.group(3) or ''}{m.group(4)}"

    return _LINK.sub(fix, markdown)
