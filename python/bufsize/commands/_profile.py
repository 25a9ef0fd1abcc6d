"""``--profile``: the one definition of the TCP-profile flag of simulate, sweep, search, compare and
recommend (the Python keyword ``profile=`` of the same functions comes from the same table,
:data:`bufsize.profiles.NAMES`)."""

from __future__ import annotations

import functools
from typing import Any, Callable

import click

from bufsize import profiles

HELP = ("TCP stack of the simulated hosts: " + ", ".join(profiles.NAMES)
        + f" [default {profiles.DEFAULT}: today's Linux; docs/simulate.md#profiles]. "
          "Flags such as --initial-window change single details of it.")


def with_profile(f: Callable[..., Any]) -> Callable[..., Any]:
    """Add ``--profile NAME`` to a command: its body runs inside :func:`bufsize.profiles.using`, so
    every scenario it builds (from flags, a description or a file without a ``profile`` key)
    starts from that stack. Put it closest to the function, below the other options."""

    @functools.wraps(f)
    def wrapper(*args: Any, profile: str | None = None, **kwargs: Any) -> Any:
        chosen = None if profile is None else profiles.name(profile, "--profile")
        with profiles.using(chosen):
            return f(*args, **kwargs)

    return click.option("--profile", metavar="NAME", default=None, help=HELP)(wrapper)
