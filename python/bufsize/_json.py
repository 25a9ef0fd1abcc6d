"""Strict JSON for every output of bufsize (no NaN or Infinity, which are not JSON)."""

from __future__ import annotations

import math
from typing import Any


def json_safe(value: Any) -> Any:
    """NaN and infinities -> None, recursively through dicts, lists and tuples."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    return value
