"""Options several commands share, defined once: the flag, its type, default and help, so that the
commands and their Python functions (:mod:`bufsize.api`, whose keyword defaults are the same values)
cannot drift apart. ``tests/api/test_cli_python_parity.py`` checks every flag against its keyword."""

from __future__ import annotations

from typing import Any, Callable

import click


class SeedsType(click.ParamType):
    """``--seeds``: a count (``5``: seeds 1..5) or a list (``1,5,9``), given to the command as the
    Python keyword ``seeds=`` takes it (an int or a list of ints)."""

    name = "seeds"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from bufsize.experiments.sweep import _seed_spec

        return _seed_spec(value)


SEEDS = SeedsType()


def seeds_option(default: int, text: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``--seeds N|LIST`` with ``default`` seeds (an int, as the Python keyword's default)."""
    return click.option("--seeds", type=SEEDS, default=default, show_default=True, metavar="N|LIST", help=text)


class AutoBoolType(click.types.BoolParamType):
    """A ``--x/--no-x`` flag whose unset value is ``"auto"`` (the Python keyword's default) rather
    than None: the flag gives True or False, leaving it out gives ``"auto"``."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if value == "auto":
            return "auto"
        return super().convert(value, param, ctx)


AUTO_BOOL = AutoBoolType()
