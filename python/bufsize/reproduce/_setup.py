"""Where each setting of an item's setup comes from: the paper's words, FIGURES.md, or our choice.

An item module may declare ``SETUP``, a tuple of :class:`Setting`: every parameter of its runs that a
reader would ask about (capacity, RTTs, flows and their TCP, buffer, packet size, traffic, durations,
access links, seeds), each with its source:

* ``paper``: the paper states it; ``words`` is the paper's own sentence or phrase, verbatim (a gap in a
  long sentence written as "…"), and ``where`` its section, figure or table. The test suite finds every
  such quote in the paper's text (tests/reproduce/test_setup_sources.py), so a quote cannot drift;
* ``figures``: FIGURES.md fills a gap the paper leaves (``words``: what FIGURES.md says);
* ``ours``: our choice where neither says it (``words``: why this value).

The report shows the table under each item and counts the sources over all items
(:func:`source_counts`); an item without ``SETUP`` says so. Sensitivity series that try another
reading are settings too (source ``ours``, their purpose in ``words``).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import asdict, dataclass
from typing import Any, Iterable

SOURCES = ("paper", "figures", "ours")
#: how the report names each source
SOURCE_LABEL = {"paper": "the paper", "figures": "FIGURES.md", "ours": "our choice"}


@dataclass(frozen=True)
class Setting:
    """One setting of an item's runs: what it is, our value, where it comes from and the words behind it."""

    name: str
    value: str
    source: str
    words: str
    where: str = ""

    def __post_init__(self) -> None:
        if self.source not in SOURCES:
            raise ValueError(f"setting {self.name!r}: unknown source {self.source!r} (one of {', '.join(SOURCES)})")
        if not self.name.strip() or not str(self.value).strip():
            raise ValueError("a setting needs a name and a value")
        if not self.words.strip():
            raise ValueError(f"setting {self.name!r}: give the words behind it (the paper's, FIGURES.md's, or why)")
        if self.source == "paper" and not self.where.strip():
            raise ValueError(f"setting {self.name!r}: say where in the paper the words are")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def setup_of(mod) -> tuple[Setting, ...] | None:
    """The item module's declared setup, or None where it has none yet."""
    setup = getattr(mod, "SETUP", None)
    return None if setup is None else tuple(setup)


def source_counts(setups: Iterable[Iterable[Setting]]) -> dict[str, int]:
    """How many settings come from each source, over several items."""
    out = {s: 0 for s in SOURCES}
    for setup in setups:
        for s in setup:
            out[s.source] += 1
    return out


def _flat(text: str) -> str:
    """Text reduced for finding a quote in a paper's PDF-to-text copy: compatibility forms (ligatures
    to letters), lower case, the copy's "#" for a lost ff/ffi ligature on both sides, and only letters,
    digits and "#" kept (so line breaks, hyphenation at a line's end and quotation marks do not matter)."""
    t = unicodedata.normalize("NFKC", text).lower()
    t = t.replace("ffi", "#").replace("ff", "#")
    return re.sub(r"[^0-9a-z#]+", "", t)


def quote_found(quote: str, paper_text: str) -> bool:
    """Whether every part of ``quote`` (parts split at "…" or "...") is in ``paper_text``, in order."""
    flat = _flat(paper_text)
    pos = 0
    for part in re.split(r"…|\.\.\.", quote):
        p = _flat(part)
        if not p:
            continue
        i = flat.find(p, pos)
        if i < 0:
            return False
        pos = i + len(p)
    return True
