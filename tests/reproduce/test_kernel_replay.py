"""Recorded kernel-testbed tables can be re-judged by today's checks without running the testbed."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs" / "reproduction"


def test_replayed_003_kernel_rows_are_rejudged_and_say_where_they_come_from(tmp_path, monkeypatch):
    from bufsize.reproduce import _kernel
    from bufsize.reproduce import _p003_kernel as k3
    from bufsize.reproduce._core import Context

    src = tmp_path / "earlier"
    (src / "fig_003_09").mkdir(parents=True)
    shutil.copy(DOCS / "fig_003_09" / "kernel.csv", src / "fig_003_09" / "kernel.csv")
    monkeypatch.setenv(_kernel.REPLAY_ENV, str(src))
    ctx = Context(mode="quick", testbed="off")   # the testbed itself is never asked
    checks, notes, df, rule = k3.figure_checks(ctx, 10)
    assert rule == "eq7" and len(df) == 3
    assert "replayed from the recorded runs" in notes[0] and "not re-measured" in notes[0]
    ratio = float((df.w_mean / df.bound_eq1).min())
    (c,) = checks
    assert c.ours == pytest.approx(ratio) and c.passed == (ratio >= 1.0)
    assert not c.judge(c.worst_case())


def test_replay_refuses_tables_that_do_not_match_todays_settings(tmp_path, monkeypatch):
    from bufsize.errors import BufsizeError
    from bufsize.reproduce import _kernel
    from bufsize.reproduce import _p003_kernel as k3
    from bufsize.reproduce._core import Context

    d = tmp_path / "fig_003_09"
    d.mkdir()
    text = (DOCS / "fig_003_09" / "kernel.csv").read_text().splitlines()
    head = text[0].split(",")
    i = head.index("buffer_frames")
    bad = [text[0]] + [",".join(v if j != i else "999" for j, v in enumerate(line.split(","))) for line in text[1:]]
    (d / "kernel.csv").write_text("\n".join(bad) + "\n")
    monkeypatch.setenv(_kernel.REPLAY_ENV, str(tmp_path))
    with pytest.raises(BufsizeError, match="need exactly one"):
        k3.table(Context(mode="quick", testbed="off"), "eq7")
    monkeypatch.setenv(_kernel.REPLAY_ENV, str(tmp_path / "nothing"))
    with pytest.raises(BufsizeError, match="to replay"):
        k3.table(Context(mode="quick", testbed="off"), "eq7")


def test_replayed_t000_table_matches_the_recorded_one(tmp_path, monkeypatch):
    import pandas as pd

    from bufsize.reproduce import _kernel
    from bufsize.reproduce import _p000_kernel as pk
    from bufsize.reproduce._core import Context

    rec = pd.read_csv(DOCS / "fig_000_03" / "kernel.csv")
    (tmp_path / "fig_000_03").mkdir()
    shutil.copy(DOCS / "fig_000_03" / "kernel.csv", tmp_path / "fig_000_03" / "kernel.csv")
    monkeypatch.setenv(_kernel.REPLAY_ENV, str(tmp_path))
    df = pk.t000(Context(mode="quick", testbed="off"))
    assert list(df.columns) == list(rec.columns) and len(df) == len(rec)
    for col in ("utilization", "small_median_mbps", "kernel_buffer_frames"):
        assert df[col].tolist() == pytest.approx(rec[col].tolist(), nan_ok=True)
    text = _kernel.accepted_text(df.attrs["records"])
    assert text.startswith("Kernel-testbed part replayed") and "not re-measured" in text
