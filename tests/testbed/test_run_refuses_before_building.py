"""testbed run checks what it can before it builds namespaces and runs for minutes: an --out that is
a file, a buffer no tc FIFO holds, and runs longer in all than --max-time are one-line errors with
exit 2."""

import pytest

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


def test_runs_longer_than_max_time_are_refused_with_their_estimate(capsys, monkeypatch):
    import os
    import time

    import bufsize
    import bufsize.testbed.runner as R
    from bufsize.errors import BufsizeError

    def reached(*a, **k):
        raise BufsizeError("the checks let it through")

    monkeypatch.setattr(R, "run", reached)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    t = time.monotonic()
    # 30 one-hour runs; and a billion repeats with a capture each (their file names were listed first)
    for args, says in ((["--duration", "1h", "--repeats", "30"],
                        "this point is 30 testbed runs of ≈ 1 h each (up to 90 with retried attempts): ≈ 30 h in all"),
                       (["--repeats", "1000000000", "--capture", "/nonexistent-dir/x.pcap"],
                        "1,000,000,000 testbed runs")):
        assert main(["testbed", "run", "--rate", "10Mbps", *args]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and says in err and "more than the 24 h allowed" in err and "--max-time" in err, err
    assert time.monotonic() - t < 2.0
    assert main(["testbed", "run", "--rate", "10Mbps", "--duration", "1h", "--repeats", "30", "--max-time", "31h"]) == 2
    assert "the checks let it through" in capsys.readouterr().err
    with pytest.raises(BufsizeError, match="give a longer max_time") as info:
        bufsize.testbed_run(capacity="10Mbps", duration="1h", repeats=30)
    assert "--" not in str(info.value)
    with pytest.raises(BufsizeError, match="the checks let it through"):
        bufsize.testbed_run(capacity="10Mbps", duration="1h", repeats=30, max_time=None)
