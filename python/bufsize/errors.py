"""Errors that speak to the user.

Every mistake a user can make (a bad unit, a negative capacity, a mix that does not sum to 1)
raises :class:`BufsizeError` (a :class:`ValueError`) with one line that names the argument.
The CLI prints that line and exits with code 2; nothing else is caught there, so a real bug
still shows its traceback.

The modules name arguments as the command line spells them (``--max-delay``). A call through the
Python API (:mod:`bufsize.api`) re-words the error with :meth:`BufsizeError.for_python`, so a
notebook user reads ``max_delay: ...``, the keyword they typed, and never a flag.
"""

from __future__ import annotations

import re

# a command-line flag inside a message: "--max-delay" (not a range such as "5--7" or a rule "----")
_FLAG = re.compile(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)")


def python_name(argument: str) -> str:
    """The Python keyword for a command-line argument name: ``--max-delay`` -> ``max_delay``.

    Names that are not flags (``scenario``, ``dumbbell.rtt_s``) come back unchanged."""
    m = _FLAG.fullmatch(argument.strip())
    if m:
        return m.group(1).replace("-", "_")
    return argument


_FLAG_VALUE = re.compile(_FLAG.pattern + r" (?=[\d.])")


def python_words(text: str) -> str:
    """``text`` with every command-line flag replaced by its Python keyword (``--max-delay 5ms``
    becomes ``max_delay=5ms``)."""
    text = _FLAG_VALUE.sub(lambda m: m.group(1).replace("-", "_") + "=", text)
    return _FLAG.sub(lambda m: m.group(1).replace("-", "_"), text)


class BufsizeError(ValueError):
    """A user-facing input error: the message is one line naming the argument.

    ``argument`` is the name of the offending argument (``None`` when the message names it or
    no single argument is to blame); ``detail`` is the message without that name.
    """

    def __init__(self, message: str, *, argument: str | None = None):
        self.argument = argument
        self.detail = message
        text = f"{argument}: {message}" if argument else message
        super().__init__(text)

    def for_python(self, rename: dict[str, str] | None = None) -> BufsizeError:
        """The same error (same class) worded for a Python caller: flags become keywords.

        ``rename`` maps further argument names (a scenario field, a CLI metavar such as ``DIR``)
        to the keyword the caller used."""
        rename = rename or {}
        arg = self.argument
        if arg is not None:
            arg = rename.get(arg, python_name(arg))
        detail = python_words(self.detail)
        for old, new in sorted(rename.items(), key=lambda kv: -len(kv[0])):
            if arg is None and detail.startswith(old + ":"):
                detail = new + detail[len(old):]
        err = type(self).__new__(type(self))
        BufsizeError.__init__(err, detail, argument=arg)
        return err


class UnitError(BufsizeError):
    """A quantity could not be parsed or has the wrong dimension."""


class ScenarioError(BufsizeError):
    """A simulation or testbed scenario is invalid (field name in the message)."""
