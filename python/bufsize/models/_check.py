"""Argument checks shared by the model modules.

Each helper returns the value as a float (so callers can write ``x = positive(x, "x")``) or
raises :class:`bufsize.errors.BufsizeError` naming the argument. NaN and infinities are refused
everywhere unless a helper says otherwise; booleans are refused as numbers.
"""

from __future__ import annotations

import math
import numbers

from bufsize.errors import BufsizeError


def number(x: object, name: str) -> float:
    """``x`` as a finite float, or BufsizeError."""
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise BufsizeError(f"must be a number, got {x!r}", argument=name)
    v = float(x)
    if not math.isfinite(v):
        raise BufsizeError(f"must be a finite number, got {v!r}", argument=name)
    return v


def positive(x: object, name: str) -> float:
    """``x`` > 0 and finite."""
    v = number(x, name)
    if v <= 0.0:
        raise BufsizeError(f"must be > 0, got {v!r}", argument=name)
    return v


def nonneg(x: object, name: str) -> float:
    """``x`` >= 0 and finite."""
    v = number(x, name)
    if v < 0.0:
        raise BufsizeError(f"must be >= 0, got {v!r}", argument=name)
    return v


def fraction(x: object, name: str, *, low_open: bool = True, high_open: bool = True) -> float:
    """``x`` in the interval (0, 1); ``low_open=False`` admits 0, ``high_open=False`` admits 1."""
    v = number(x, name)
    lo_ok = v > 0.0 if low_open else v >= 0.0
    hi_ok = v < 1.0 if high_open else v <= 1.0
    if not (lo_ok and hi_ok):
        lo = "(0" if low_open else "[0"
        hi = "1)" if high_open else "1]"
        raise BufsizeError(f"must be in {lo}, {hi}, got {v!r}", argument=name)
    return v


def count(x: object, name: str, *, minimum: int = 1) -> int:
    """``x`` an integer (an integral float is accepted) >= ``minimum``."""
    v = number(x, name)
    if v != math.floor(v):
        raise BufsizeError(f"must be a whole number, got {v!r}", argument=name)
    if v < minimum:
        raise BufsizeError(f"must be >= {minimum}, got {int(v)}", argument=name)
    return int(v)
