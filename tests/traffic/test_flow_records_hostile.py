"""Flow records that make no sense are refused with one line naming the first bad row, before any
work is sized from them (an infinite or 1e12-s span once tried to allocate terabytes)."""

from __future__ import annotations

import pytest

from bufsize.cli import main

HEAD = "start_s,end_s,proto,bytes_fwd,bytes_rev\n"
GOOD = "1,31,tcp,100,5000000\n2,20,tcp,100,300000\n"


def _run(tmp_path, capsys, body):
    f = tmp_path / "r.csv"
    f.write_text(HEAD + body)
    code = main(["traffic", "summarize", str(f)])
    return code, capsys.readouterr()


@pytest.mark.parametrize("row, says", [
    ("0,inf,tcp,100,100000\n", "1 record(s) with a end time that is not finite (first: row 1)"),
    ("0,1e12,tcp,100,100000\n", "the records span 1e+12 s (row 1 starts first, row 1 ends last)"),
    ("-1.7e9,3,tcp,100,100\n", "the records span 1.7e+09 s"),                 # one row dated 1970
    ("5,4,tcp,100,100\n", "1 record(s) end before they start (first: row 1, start 5 s, end 4 s)"),
    ("0,3,tcp,-5,100\n", "a bytes_fwd that is not a byte count"),
    ("0,3,tcp,inf,100\n", "a bytes_fwd that is not a byte count"),
    ("0,3,tcp,100,1e30\n", "a bytes_rev that is not a byte count"),
])
def test_nonsense_records_are_one_line_and_exit_2(tmp_path, capsys, row, says):
    code, cap = _run(tmp_path, capsys, row + GOOD)
    assert code == 2, cap.err
    lines = [ln for ln in cap.err.splitlines() if ln.strip()]
    assert len(lines) == 1 and says in lines[0], cap.err
    assert "Traceback" not in cap.err


def test_sensible_records_still_summarize(tmp_path, capsys):
    code, cap = _run(tmp_path, capsys, "0,3,tcp,100,100000\n" + GOOD)
    assert code in (0, None), cap.err
    assert "flows" in cap.out


def test_a_stray_packet_after_the_last_whole_second_does_not_set_the_peak():
    import numpy as np

    from bufsize.traffic.profile import _peak_rate

    # 10 s at 1 Mb/s, then one 1500-B packet 0.1 ms into the 11th second: scaled to a 1-s rate that
    # second read 120 Mb/s and became the assumed capacity
    rate = np.array([1e6] * 10 + [1500 * 8 / 1e-4])
    assert _peak_rate(rate, 10.0001) == 1e6
    # a partial second of at least half a second still counts, scaled
    assert _peak_rate(np.array([1e6, 2e6 / 0.6]), 1.6) == 2e6 / 0.6
    # a capture of one packet in 0.1 ms: its bytes over one second, not 120 Mb/s
    assert _peak_rate(np.array([1500 * 8 / 1e-4]), 1e-4) == pytest.approx(12_000)
