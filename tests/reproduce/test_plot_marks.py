"""Reproduction figures show what a run could not measure, and the report says what a stale output costs to redo."""

from __future__ import annotations

import json
import math


def test_points_without_a_value_are_marked_at_the_largest_value_tried():
    from bufsize.reproduce._plot import figure, mark_unreached

    fig, ax = figure()
    xs = [50, 100, 200]
    ys = [math.nan, 445.0, None]
    at = {50: 660.0, 100: 465.0, 200: 330.0}
    assert mark_unreached(ax, xs, ys, at, label="not reached") == 2
    marked = ax.lines[-1]
    assert list(marked.get_xdata()) == [50, 200]
    assert list(marked.get_ydata()) == [660.0, 330.0]   # where the search stopped, not dropped
    assert marked.get_label() == "not reached"
    assert len(ax.texts) == 2   # one arrow each: the true value lies above
    assert mark_unreached(ax, [1, 2], [1.0, 2.0], {1: 1.0, 2: 2.0}) == 0


def test_report_names_each_stale_output_with_the_wall_time_of_its_last_run(tmp_path):
    from bufsize.reproduce._runner import MARKER, write_report

    (tmp_path / MARKER).write_text("")
    for fid, wall, check in (("fig_004_05", 12.3, {"claim": "old", "paper": 1.0, "ours": 1.0, "tolerance": "±0.1",
                                                    "pass": True}),
                             ("fig_004_06", 2.0, {"claim": "new", "paper": 1.0, "ours": 1.0, "tolerance": "±0.1",
                                                  "pass": True, "kind": "measurement",
                                                  "rule": {"op": "range", "lo": 0.9, "hi": 1.1}})):
        d = tmp_path / fid
        d.mkdir()
        (d / "checks.json").write_text(json.dumps([check]))
        (d / "meta.json").write_text(json.dumps({
            "id": fid, "paper_id": "x", "title": "t", "kind": "simulation", "kind_detail": "simulation",
            "mode": "full", "wall_seconds": wall, "checks_passed": 1, "checks_total": 1, "deviations": [], "notes": []}))
    text = write_report(tmp_path).read_text()
    assert "fig_004_05 (12 s)" in text
    assert "fig_004_06 (" not in text.split("## Index")[0]   # regenerated with kinds: not listed as stale


def test_report_headline_names_items_whose_kernel_part_was_replayed(tmp_path):
    from bufsize.reproduce._runner import MARKER, write_report

    (tmp_path / MARKER).write_text("")
    for fid, notes in (("fig_003_10", ["Kernel-testbed part replayed from the recorded runs in x (run ids a): not "
                                       "re-measured in this run."]), ("fig_003_09", ["measured"])):
        d = tmp_path / fid
        d.mkdir()
        (d / "checks.json").write_text(json.dumps([{"claim": "c", "paper": 1.0, "ours": 1.0, "tolerance": "±0.1",
                                                   "pass": True, "kind": "measurement",
                                                   "rule": {"op": "range", "lo": 0.9, "hi": 1.1}}]))
        (d / "meta.json").write_text(json.dumps({
            "id": fid, "paper_id": "x", "title": "t", "kind": "testbed", "kind_detail": "testbed", "mode": "quick",
            "wall_seconds": 1.0, "checks_passed": 1, "checks_total": 1, "deviations": [], "notes": notes}))
    head = write_report(tmp_path).read_text().split("## Index")[0]
    assert "replayed from recorded runs, not re-measured" in head
    assert "fig_003_10" in head and "fig_003_09" not in head
