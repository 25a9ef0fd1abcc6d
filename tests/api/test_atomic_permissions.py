"""Atomic writes keep the permissions an ordinary open() gives (0666 less the umask), not
mkstemp's owner-only 0600: a team sharing a results folder can read every output."""

from __future__ import annotations

import os
import stat

import pytest

from bufsize._atomic import atomic_write_text, default_mode, temp_path


@pytest.fixture
def umask_022():
    old = os.umask(0o022)
    try:
        yield
    finally:
        os.umask(old)


def _mode(p) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


def test_atomic_files_get_the_umask_mode(tmp_path, umask_022):
    target = tmp_path / "r.json"
    atomic_write_text(target, "{}\n")
    assert target.read_text() == "{}\n" and _mode(target) == 0o644
    os.umask(0o027)
    atomic_write_text(tmp_path / "g.json", "x")
    assert _mode(tmp_path / "g.json") == 0o640 == default_mode()


def test_a_failed_write_leaves_nothing_behind(tmp_path):
    with pytest.raises(RuntimeError):
        with temp_path(tmp_path / "x.png") as tmp:
            assert tmp.suffix == ".png"
            tmp.write_bytes(b"half")
            raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []


def test_simulate_tables_and_sweep_results_are_group_readable(tmp_path, umask_022):
    import bufsize

    res = bufsize.simulate(capacity="2Mbps", flows=2, rtt="40ms", buffer="10pkt", duration="2s", warmup="0.5s",
                           progress=False, out=tmp_path / "sim", format="csv")
    files = sorted((tmp_path / "sim").iterdir())
    assert res.summary["utilization"] > 0 and len(files) > 5
    assert {_mode(f) for f in files} == {0o644}
    table = bufsize.sweep(dumbbell=dict(capacity="2Mbps", flows=2, rtt="40ms", buffer="10pkt", duration="2s",
                                        warmup="0.5s"),
                          vary={"buffer": [5, 10]}, out=tmp_path / "sw", executor="serial", progress=False)
    assert len(table) == 2
    written = [p for p in (tmp_path / "sw").rglob("*") if p.is_file()]
    assert written and {_mode(p) for p in written} == {0o644}


def test_recommend_plot_is_group_readable(tmp_path, umask_022):
    from bufsize.plots.recommend import plot_recommendation
    from bufsize.recommendation import recommend

    rec = recommend(capacity="100Mbps", rtt="50ms", flows=20)
    out = tmp_path / "rec.png"
    plot_recommendation(rec, str(out))
    assert out.stat().st_size > 1000 and _mode(out) == 0o644


def test_temporary_files_for_results_come_from_the_shared_helper():
    """mkstemp files are 0600; a module that renames one into place must go through bufsize._atomic,
    which restores the usual mode (this keeps a new writer from bringing the bug back)."""
    from pathlib import Path

    import bufsize

    root = Path(bufsize.__file__).parent
    offenders = [str(p.relative_to(root)) for p in root.rglob("*.py")
                 if p.name != "_atomic.py" and ("mkstemp(" in p.read_text(encoding="utf-8")
                                                or "NamedTemporaryFile(" in p.read_text(encoding="utf-8"))]
    assert offenders == [], f"use bufsize._atomic (temp_path / atomic_write) in: {offenders}"
