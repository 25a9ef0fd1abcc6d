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


def nesting_depth(value: Any, limit: int) -> int:
    """How deeply ``value``'s dicts and lists nest, counted without recursion and up to ``limit + 1``
    (a hostile document nested 100 000 deep costs no more than one nested ``limit + 1`` deep)."""
    deepest = 0
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            items = list(v.values())
        elif isinstance(v, (list, tuple)):
            items = list(v)
        else:
            continue
        deepest = max(deepest, d)
        if deepest > limit:
            return deepest
        stack.extend((x, d + 1) for x in items)
    return deepest
