"""Errors that speak to the user.

Every mistake a user can make (a bad unit, a negative capacity, a mix that does not sum to 1)
raises :class:`BufsizeError` (a :class:`ValueError`) with one line that names the argument.
The CLI prints that line and exits with code 2; nothing else is caught there, so a real bug
still shows its traceback.
"""

from __future__ import annotations


class BufsizeError(ValueError):
    """A user-facing input error: the message is one line naming the argument."""

    def __init__(self, message: str, *, argument: str | None = None):
        self.argument = argument
        text = f"{argument}: {message}" if argument else message
        super().__init__(text)


class UnitError(BufsizeError):
    """A quantity could not be parsed or has the wrong dimension."""


class ScenarioError(BufsizeError):
    """A simulation or testbed scenario is invalid (field name in the message)."""
