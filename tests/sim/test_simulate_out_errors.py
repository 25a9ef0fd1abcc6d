"""simulate --out: a destination that cannot be written is refused before the run, and a full disk
while writing is one line (exit 2) that keeps the files already written whole."""

import errno

import pytest

import bufsize
from bufsize.cli import main

FLAGS = ["--capacity", "2Mbps", "--flows", "2", "--rtt", "40ms", "--buffer", "10pkt", "--duration", "2s",
         "--warmup", "0.5s"]


def test_an_existing_file_as_out_is_refused_before_the_run(tmp_path, capsys, monkeypatch):
    f = tmp_path / "x"
    f.write_text("keep me")
    ran = []
    import bufsize.simulate as S

    monkeypatch.setattr(S, "simulate", lambda *a, **k: ran.append(1))
    assert main(["simulate", *FLAGS, "--out", str(f / "sub")]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and "is a file" in err and ran == [] and f.read_text() == "keep me"


def test_a_full_disk_is_one_line_and_keeps_what_was_written(tmp_path, capsys, monkeypatch):
    import bufsize._atomic as A

    real = A.atomic_write
    calls = []

    def full_after_two(target, write):
        calls.append(str(target))
        if len(calls) > 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real(target, write)

    monkeypatch.setattr(A, "atomic_write", full_after_two)
    out = tmp_path / "run"
    assert main(["simulate", *FLAGS, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bufsize: error:") and "No space left on device" in err and "\n" not in err
    assert "written: summary.json, scenario.json" in err
    assert (out / "summary.json").read_text().startswith("{")       # whole, not cut


def test_python_to_dir_raises_a_bufsize_error(tmp_path, monkeypatch):
    import bufsize._atomic as A

    res = bufsize.simulate(capacity="2Mbps", flows=2, rtt="40ms", buffer=10, duration="2s", warmup="0.5s",
                           progress=False)
    monkeypatch.setattr(A, "atomic_write", lambda *a, **k: (_ for _ in ()).throw(OSError(errno.ENOSPC, "full")))
    with pytest.raises(bufsize.BufsizeError, match="cannot write"):
        res.to_dir(tmp_path / "r")


def test_a_percentile_inside_the_first_histogram_bin_is_not_printed_as_a_time():
    from bufsize.simulate import _fmt_t

    assert _fmt_t(171e-9, 1e-5) == "< 10 µs"
    assert _fmt_t(0.0021, 1e-5).endswith("ms") and _fmt_t(None) == "n/a"
