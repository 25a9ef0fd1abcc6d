"""Options several commands share, defined once: the flag, its type, default and help, so that the
commands and their Python functions (:mod:`bufsize.api`, whose keyword defaults are the same values)
cannot drift apart. ``tests/api/test_cli_python_parity.py`` checks every flag against its keyword."""

from __future__ import annotations

from typing import Any, Callable

import click

#: what a shared option gives a command: a decorator adding the flag
Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]


class SeedsType(click.ParamType):
    """``--seeds``: a count (``5``: seeds 1..5) or a list (``1,5,9``), given to the command as the
    Python keyword ``seeds=`` takes it (an int or a list of ints)."""

    name = "seeds"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        from bufsize.experiments.sweep import _seed_spec

        return _seed_spec(value)


SEEDS = SeedsType()


def seeds_option(default: int, text: str) -> Decorator:
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

#: where the runs of a sweep or a search go (the Python keyword also takes a ``distributed.Client``)
EXECUTORS = ("local", "dask", "serial")


def executor_option() -> Decorator:
    """``--executor local|dask|serial`` (default local), for the commands that run many simulations."""
    return click.option("--executor", type=click.Choice(list(EXECUTORS)), default="local", show_default=True,
                        help="local: a process pool of --workers; serial: one run at a time in this process; "
                             "dask: --scheduler, or a LocalCluster of --workers.")


def workers_option(runs: str = "the runs", default: str = "all cores") -> Decorator:
    """``--workers N`` (at least 1; unset: ``default``, which the command's help names): how many
    local processes run ``runs``."""
    return click.option("--workers", type=click.IntRange(1), default=None, metavar="N",
                        help=f"Local processes for {runs} [default: {default}].")


def scheduler_option(runs: str = "the runs", implies_executor: bool = True) -> Decorator:
    """``--scheduler tcp://HOST:PORT``: run ``runs`` on a Dask cluster instead of local processes;
    on a command with ``--executor`` it implies ``--executor dask``."""
    also = " (implies --executor dask)" if implies_executor else ""
    return click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
                        help=f"Send {runs} to the Dask cluster with this scheduler{also}.")


def confidence_option(text: str) -> Decorator:
    """``--confidence P`` (default 0.95), the confidence level of what ``text`` says it qualifies."""
    return click.option("--confidence", type=float, default=0.95, show_default=True, metavar="P", help=text)


class RenamedOption(click.Option):
    """An option whose old spelling still works for scripts written against it: ``old`` is parsed
    as the option, is left out of ``--help`` and of the option's names (so the parity test and
    completion see the new name only), and using it prints one line on stderr naming the new one.
    Only for options that take a value."""

    def __init__(self, *args: Any, old: str, why: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.is_flag:
            raise TypeError("RenamedOption: only for options that take a value")
        self.old, self.why = old, why

    @property
    def _old_dest(self) -> str:
        return f"{self.name}\0{self.old}"   # the parser's slot for the old spelling (no parameter has it)

    def add_to_parser(self, parser: Any, ctx: click.Context) -> None:
        super().add_to_parser(parser, ctx)
        parser.add_option(obj=self, opts=[self.old], dest=self._old_dest, action="store", nargs=self.nargs)

    def consume_value(self, ctx: click.Context, opts: Any) -> Any:
        from bufsize.errors import BufsizeError

        if self._old_dest in opts:
            new = self.opts[0]
            if self.name in opts:
                raise BufsizeError(f"give it once ({self.old} is its old name)", argument=new)
            if not ctx.resilient_parsing:
                click.echo(f"bufsize: {self.old} is now {new} ({self.why}); the old name still works for now",
                           err=True)
            opts = {**opts, str(self.name): opts[self._old_dest]}
        return super().consume_value(ctx, opts)
