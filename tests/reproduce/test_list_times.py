"""``bufsize reproduce --list`` shows the time each item took in the committed reports where they
have it, marked as recorded, and the item's own estimate (marked so) only where they do not."""

from __future__ import annotations

import json
import re

from bufsize import reproduce
from bufsize.cli import main
from bufsize.reproduce._timings import REPORTS, Timing, recorded, timing


def _meta(root, fid, mode, seconds):
    d = root / fid
    d.mkdir(parents=True)
    (d / "meta.json").write_text(json.dumps({"id": fid, "mode": mode, "wall_seconds": seconds}))


def test_a_recorded_time_wins_over_the_estimate(tmp_path):
    spec = reproduce.get("fig_002_01").SPEC
    _meta(tmp_path, "fig_002_01", "quick", 499.06)
    _meta(tmp_path / "full", "fig_002_01", "full", 708.5)
    times = recorded(tmp_path)
    assert timing(spec, "quick", times) == Timing(499.06, "recorded")
    assert timing(spec, "full", times).text() == "708 s rec."
    # without a report: the spec's estimate, said to be one; no full estimate exists
    assert timing(spec, "quick", {}) == Timing(float(spec.quick_seconds), "estimated")
    assert timing(spec, "quick", {}).text().endswith("est.") and timing(spec, "full", {}).seconds is None


def test_a_broken_meta_leaves_the_estimate(tmp_path):
    (tmp_path / "fig_004_01").mkdir()
    (tmp_path / "fig_004_01" / "meta.json").write_text("{not json")
    assert recorded(tmp_path) == {}


def test_the_list_shows_the_committed_report_s_times(capsys):
    assert main(["reproduce", "--list"]) == 0
    out = capsys.readouterr().out
    meta = REPORTS / "fig_002_01" / "meta.json"
    if meta.exists():   # the repository's report (an installed package has estimates only)
        want = json.loads(meta.read_text())["wall_seconds"]
        line = next(line for line in out.splitlines() if line.startswith("fig_002_01 "))
        assert f"{want:,.0f} s rec." in line, line
    assert "'rec.' is the wall time recorded" in out
    # every runnable item shows a time with its source
    for line in out.splitlines():
        if re.match(r"(fig|table)_\d{3}_\S+ ", line) and "reproducible" in line:
            assert re.search(r"(s rec\.|s est\.)", line), line
