"""How long each item took when the committed reports were made, for ``bufsize reproduce --list``.

The reports under ``docs/reproduction/`` (``--quick``) and ``docs/reproduction/full/`` (``--full``)
keep each item's wall time in ``ID/meta.json`` (``wall_seconds``, with its ``mode``). Those are
measurements on the machine that wrote the report (with the workers it was given; runs that several
items share are counted in the first item that ran them), so they are shown as *recorded*; an item
the report lacks keeps its spec's built-in ``quick_seconds``, shown as *estimated*. An installed
package without the repository's docs has estimates only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

#: the committed reports: the repository's docs/reproduction (quick) and its full/ (the papers' scale)
REPORTS = Path(__file__).resolve().parents[3] / "docs" / "reproduction"


@dataclass(frozen=True)
class Timing:
    """One item's time in one mode: ``seconds`` and where it comes from (``"recorded"`` in a
    committed report, ``"estimated"`` from the item's spec), or no time at all (seconds None)."""

    seconds: float | None
    source: str

    def text(self) -> str:
        if self.seconds is None:
            return "?"
        if self.source == "recorded":
            return f"{self.seconds:,.0f} s rec."
        return f"~{self.seconds:,.0f} s est."


def recorded(root: Path = REPORTS) -> dict[tuple[str, str], float]:
    """``{(id, mode): wall seconds}`` from every ``meta.json`` of the reports under ``root``."""
    out: dict[tuple[str, str], float] = {}
    for meta in sorted(root.glob("*/meta.json")) + sorted(root.glob("full/*/meta.json")):
        try:
            d = json.loads(meta.read_text(encoding="utf-8"))
            out[(str(d["id"]), str(d["mode"]))] = float(d["wall_seconds"])
        except (OSError, ValueError, KeyError, TypeError):
            continue   # a report being rewritten, or an older layout: that item keeps its estimate
    return out


def timing(spec, mode: str, times: dict[tuple[str, str], float]) -> Timing:
    """``spec``'s time in ``mode`` (``"quick"`` or ``"full"``): recorded where a report has it,
    else the spec's quick estimate (quick only)."""
    if (spec.id, mode) in times:
        return Timing(times[(spec.id, mode)], "recorded")
    if mode == "quick" and spec.quick_seconds is not None:
        return Timing(float(spec.quick_seconds), "estimated")
    return Timing(None, "none")
