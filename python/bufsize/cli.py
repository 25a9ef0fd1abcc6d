"""The ``bufsize`` command line.

Each subcommand lives in its own module under :mod:`bufsize.commands` and exposes
``register(group)``; heavy imports (NumPy, pandas, the engine) happen inside the commands, so
``bufsize recommend`` starts quickly.

User mistakes raise :class:`bufsize.errors.BufsizeError`; :func:`main` prints them as one line on
stderr and exits with code 2, the same code click uses for its own usage errors.
"""

from __future__ import annotations

import importlib
import sys

import click

from bufsize.errors import BufsizeError

_COMMAND_MODULES = (
    "recommend",
    "simulate",
    "compare",
    "testbed",
    "sweep",
    "search",
    "fit",
    "transfer",
    "reproduce",
    "traffic",
)


@click.group(name="bufsize", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(package_name="bufsize")
def app() -> None:
    """How much buffer does a router port need? Models, simulator and testbed."""


def _register() -> None:
    for name in _COMMAND_MODULES:
        try:
            mod = importlib.import_module(f"bufsize.commands.{name}")
        except ModuleNotFoundError as exc:  # a command module not written yet
            if exc.name != f"bufsize.commands.{name}":
                raise
            continue
        mod.register(app)


_register()


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the CLI, turning user errors into one line and exit code 2."""
    try:
        # with standalone_mode=False click returns the code of ctx.exit(n) / Exit(n) instead of raising
        rv = app.main(args=argv, prog_name="bufsize", standalone_mode=False)
    except BufsizeError as exc:
        print(f"bufsize: error: {exc}", file=sys.stderr)
        return 2
    except click.exceptions.NoArgsIsHelpError as exc:
        exc.show()
        return 0
    except click.UsageError as exc:
        ctx = f"{exc.ctx.command_path}: " if exc.ctx is not None else ""
        print(f"bufsize: error: {ctx}{exc.format_message()}", file=sys.stderr)
        return 2
    except click.ClickException as exc:
        print(f"bufsize: error: {exc.format_message()}", file=sys.stderr)
        return exc.exit_code
    except click.exceptions.Abort:
        print("bufsize: aborted", file=sys.stderr)
        return 130
    except click.exceptions.Exit as exc:
        return exc.exit_code
    except KeyboardInterrupt:
        print("bufsize: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
