"""testbed run checks what it can before it builds namespaces and runs for minutes: an --out that is
a file, and a buffer no tc FIFO holds, are one-line errors with exit 2."""

from bufsize.cli import main


def test_out_that_is_a_file_is_refused_before_the_run(tmp_path, capsys, monkeypatch):
    import bufsize.testbed.runner as R

    ran = []
    monkeypatch.setattr(R, "run", lambda *a, **k: ran.append(1))
    f = tmp_path / "point"
    f.write_text("x")
    assert main(["testbed", "run", "--rate", "10Mbps", "--rtt", "20ms", "--out", str(f)]) == 2
    err = capsys.readouterr().err.strip()
    assert "--out" in err and "not a directory" in err and ran == []


def test_a_buffer_beyond_any_tc_fifo_is_exit_2_not_rejected(capsys):
    assert main(["testbed", "run", "--rate", "10Mbps", "--rtt", "20ms", "--buffer", "1000000000000"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("bufsize: error: --buffer") and "1e+12 packets" in err and "\n" not in err
