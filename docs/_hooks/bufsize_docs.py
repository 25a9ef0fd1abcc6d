"""MkDocs hooks of the bufsize site (mkdocs.yml).

- ``<!-- cli-help: NAME -->`` in a page becomes the ``bufsize NAME --help`` text, taken from the
  installed package when the site is built, so the command pages cannot drift from the command
  line. A command (or sub-command) that no longer exists fails the build.
- Generated reports quote formulas such as ``E[Q](14)`` (the mean queue for flows of 14 packets),
  which Markdown would read as a link to a page "14": a bracket followed by a purely numeric
  target is shown as the text it is.
"""

from __future__ import annotations

import re
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


def on_page_markdown(markdown: str, **_: Any) -> str:
    markdown = _NUMERIC_LINK.sub(r"\[\1\](\2)", markdown)
    return _MARK.sub(lambda m: "```text\n" + _help(m.group(1)) + "\n```", markdown)
