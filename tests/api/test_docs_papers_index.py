"""The papers' table on the docs' home page names, for each paper, its authors, venue and year, or
says plainly that they are not known here; a bare title is not a reference."""

from __future__ import annotations

import re
from pathlib import Path

INDEX = Path(__file__).resolve().parents[2] / "docs" / "index.md"
_UNKNOWN = "authors, venue and year are not on the copy this project worked from"


def paper_rows(text: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in re.finditer(r"^\| (\d{3}) \| (.+?) \|", text, re.MULTILINE)}


def is_a_reference(cell: str) -> bool:
    authors = re.search(r"\b[A-Z]\. [A-Z][a-z]+", cell)
    year = re.search(r"\b(19|20)\d\d\b", cell)
    return bool(authors and year) or _UNKNOWN in cell


def test_every_paper_in_the_index_is_a_reference_or_says_what_is_unknown():
    rows = paper_rows(INDEX.read_text(encoding="utf-8"))
    assert set(rows) == {"000", "001", "002", "003", "004"}
    assert [pid for pid, cell in rows.items() if not is_a_reference(cell)] == []


def test_a_bare_title_is_not_a_reference():
    assert not is_a_reference("*Router buffer sizing for the Internet with heterogeneous TCP* (Reno, BIC, CUBIC, CTCP)")
