"""No fit output shown to readers (the docs, the README, the tour notebook's committed outputs)
prints paper 000's optimum B̂ as a bare number outside the buffers the fit saw: every B̂ line of a
fit report sits under its "fitted buffers LO–HI pkt" and is either inside that range or marked
OUTSIDE."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_RANGE = re.compile(r"^optimum .*fitted buffers ([0-9.e+]+)–([0-9.e+]+) pkt")
_BHAT = re.compile(r"\b([LS])-model B̂ = ([0-9.e+]+) pkt")


def bare_optima(text: str) -> list[str]:
    """The lines of ``bufsize fit`` reports in ``text`` that print a B̂ outside the fitted range
    without saying so (or with no range at all, as reports did before they said where they stop)."""
    bad = []
    rng: tuple[float, float] | None = None
    for line in text.splitlines():
        if line.startswith("optimum"):
            m = _RANGE.match(line)
            rng = (float(m.group(1)), float(m.group(2))) if m else None
        elif not line.startswith((" ", "warning")):
            rng = None
        if line.startswith("warning"):
            continue
        for _model, value in _BHAT.findall(line):
            v = float(value)
            if "OUTSIDE" in line:
                continue
            if (rng is None or not rng[0] <= v <= rng[1]) and line.strip() not in bad[-1:]:
                bad.append(line.strip())
    return bad


def _notebook_text(path: Path) -> str:
    nb = json.loads(path.read_text(encoding="utf-8"))
    parts = []
    for cell in nb["cells"]:
        for out in cell.get("outputs", []):
            parts.append("".join(out.get("text", "")))
            data = out.get("data", {})
            for kind in ("text/html", "text/plain"):
                if kind in data:
                    parts.append(html.unescape(re.sub(r"<[^>]+>", "", "".join(data[kind]))))
    return "\n".join(parts)


def _pages() -> list[Path]:
    return sorted([ROOT / "README.md", *ROOT.joinpath("docs").rglob("*.md")])


@pytest.mark.parametrize("page", _pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_prints_a_bare_optimum_outside_its_fitted_range(page):
    assert bare_optima(page.read_text(encoding="utf-8")) == []


def test_the_tour_notebook_prints_no_bare_optimum_outside_its_fitted_range():
    text = _notebook_text(ROOT / "examples" / "tour.ipynb")
    assert "fitted buffers" in text            # the fit's report is among the committed outputs
    assert bare_optima(text) == []


def test_the_check_catches_the_reports_that_hid_the_range():
    # the worked example as docs/experiments.md printed it before: B̂ = 0 with the smallest run at 10 pkt
    old = ("optimum   C·To = 1550.0 pkt, L-model B̂ = 0.0 pkt (§VII-B.1 rule: 0), S-model B̂ = 0.0 pkt for flows "
           "of 30 segments (paper 000, fitted a, b, f)")
    assert len(bare_optima(old)) == 1
    beyond = ("optimum   paper 000 with the fitted a, b, f: C·To = 120.0 pkt, fitted buffers 4–28 pkt\n"
              "          L-model B̂ = 1118.2 pkt\n")
    assert bare_optima(beyond) == ["L-model B̂ = 1118.2 pkt"]
    marked = beyond.replace("1118.2 pkt", "1118.2 pkt  OUTSIDE the fitted range 4–28 pkt")
    inside = beyond.replace("1118.2", "20.5")
    assert bare_optima(marked) == [] and bare_optima(inside) == []
