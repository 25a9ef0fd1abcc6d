"""Every item's setup says where each setting comes from, and the paper's words are the paper's."""

import json
import os
from pathlib import Path

import pytest

from bufsize import reproduce
from bufsize.reproduce._setup import SOURCES, Setting, quote_found, setup_of, source_counts

ROOT = Path(__file__).resolve().parents[2]


def _papers_dir() -> Path | None:
    """The papers' text: $BUFSIZE_PAPERS, or ../shared/papers beside the checkout (absent on a bare clone)."""
    for cand in (os.environ.get("BUFSIZE_PAPERS"), ROOT.parent / "shared" / "papers"):
        if cand and Path(cand).is_dir() and any(Path(cand).glob("00?_*.txt")):
            return Path(cand)
    return None


def test_a_setting_names_its_source_and_the_words_behind_it():
    Setting("capacity", "155 Mb/s", "paper", "an OC3 (155 Mb/s) line", "§5.1.1")
    with pytest.raises(ValueError, match="source"):
        Setting("capacity", "155 Mb/s", "folklore", "we like it")
    with pytest.raises(ValueError, match="where"):
        Setting("capacity", "155 Mb/s", "paper", "an OC3 (155 Mb/s) line")
    with pytest.raises(ValueError, match="words"):
        Setting("capacity", "155 Mb/s", "ours", "  ")


def test_a_quote_is_found_through_line_breaks_hyphens_and_lost_ligatures():
    text = "the bu#er at the bottleneck\nlink never under-\nflows, and so the router doesn't lose\nthroughput."
    assert quote_found("the buffer at the bottleneck link never underflows", text)
    assert quote_found("“The buffer at the bottleneck link …, and so the router doesn’t lose throughput”", text)
    # words that are not there, or parts out of order, are not found
    assert not quote_found("the buffer at the bottleneck link always underflows", text)
    assert not quote_found("the router doesn't lose throughput … the buffer at the bottleneck", text)


def test_every_declared_setup_is_well_formed():
    declared = {fid: setup_of(mod) for fid, mod in reproduce.modules().items() if setup_of(mod) is not None}
    assert declared, "no item declares its setup"
    for fid, setup in declared.items():
        assert setup and all(isinstance(s, Setting) for s in setup), fid
        names = [s.name for s in setup]
        assert len(names) == len(set(names)), f"{fid}: a setting is named twice"
        assert all(s.source in SOURCES for s in setup)


def test_the_papers_words_are_in_the_papers_text():
    papers = _papers_dir()
    if papers is None:
        pytest.skip("the papers' text is not beside this checkout (set BUFSIZE_PAPERS)")
    texts = {p.name[:3]: p.read_text(encoding="utf-8", errors="replace") for p in papers.glob("00?_*.txt")}
    missing = []
    for fid, mod in reproduce.modules().items():
        for s in setup_of(mod) or ():
            if s.source == "paper" and not quote_found(s.words, texts[mod.SPEC.paper_id[:3]]):
                missing.append(f"{fid}: {s.name}: {s.words[:80]!r}")
    assert not missing, "quotes not found in the paper:\n" + "\n".join(missing)


def test_the_report_shows_each_items_setup_and_counts_the_sources(tmp_path):
    from bufsize.reproduce import fig_004_07
    from bufsize.reproduce._runner import MARKER, write_report

    (tmp_path / MARKER).write_text("", encoding="utf-8")
    for fid in ("fig_004_07", "fig_004_05"):
        d = tmp_path / fid
        d.mkdir()
        (d / "meta.json").write_text(json.dumps({
            "id": fid, "paper_id": "004-Fig", "title": "t", "kind": "simulation", "kind_detail": "simulation",
            "mode": "quick", "wall_seconds": 1.0, "deviations": [], "notes": []}), encoding="utf-8")
        (d / "checks.json").write_text("[]", encoding="utf-8")
    text = write_report(tmp_path).read_text(encoding="utf-8")
    mods = reproduce.modules()
    counts = source_counts([setup_of(mods[f]) or () for f in ("fig_004_07", "fig_004_05")])
    assert f"{counts['paper']} settings from the papers' own words" in text
    assert "Consider the evolution of two TCP Reno flows through a bottleneck router" in text
    assert "| start times | 0 s and 7 s | our choice |" in text
    saved = json.loads((tmp_path / "fig_004_07" / "setup.json").read_text(encoding="utf-8"))
    assert [s["name"] for s in saved] == [s.name for s in fig_004_07.SETUP]
    if setup_of(reproduce.modules()["fig_004_05"]) is None:
        assert "deviations only: fig_004_05" in text
