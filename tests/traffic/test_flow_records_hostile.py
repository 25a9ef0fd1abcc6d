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
    # most records with counts that are no counts: too little left to size from
    ("0,3,tcp,-5,100\n0,3,tcp,inf,100\n0,3,tcp,100,1e30\n",
     "only 2 of 5 flow records make physical sense (3 a byte or packet count that is negative, infinite"),
])
def test_nonsense_records_are_one_line_and_exit_2(tmp_path, capsys, row, says):
    code, cap = _run(tmp_path, capsys, row + GOOD)
    assert code == 2, cap.err
    lines = [ln for ln in cap.err.splitlines() if ln.strip()]
    assert len(lines) == 1 and says in lines[0], cap.err
    assert "Traceback" not in cap.err


@pytest.mark.parametrize("row, first", [
    ("0,3,tcp,-5,100\n", "row 1: bytes_fwd -5, bytes_rev 100"),
    ("0,3,tcp,inf,100\n", "row 1: bytes_fwd inf"),
    ("0,3,tcp,100,1e30\n", "bytes_rev 1e+30"),
])
def test_a_record_whose_count_is_no_count_is_left_out_with_a_count(tmp_path, capsys, row, first):
    from bufsize.traffic import load

    code, cap = _run(tmp_path, capsys, row + GOOD)
    assert code in (0, None), cap.err
    assert ("warning: 1 of 3 flow records left out: a byte or packet count that is negative, infinite or above "
            "1e15 (first: row 1: ") in cap.out and first in cap.out, cap.out
    assert "2 of 3 flows (1 left out: a byte or packet count" in cap.out, cap.out
    p = load(tmp_path / "r.csv")
    assert p.input_used["flows_read"] == 3 and p.input_used["flows_used"] == 2


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


ZEEK_HEAD = ("#separator \\x09\n#fields\tts\tuid\tid.orig_h\tid.orig_p\tid.resp_h\tid.resp_p\tproto\tduration\t"
             "orig_bytes\tresp_bytes\torig_ip_bytes\tresp_ip_bytes\n")


@pytest.mark.parametrize("resp", ["inf", "1e30", "-7"])
def test_zeek_byte_counts_that_are_no_count_are_left_out_and_a_log_of_them_refused(tmp_path, capsys, resp):
    from bufsize.traffic import load

    bad = f"1.0\tC1\t10.0.0.1\t1\t10.0.0.2\t80\ttcp\t5\t100\t{resp}\t140\t500\n"
    good = "".join(f"{2 + i}.0\tC{i + 2}\t10.0.0.1\t{i + 2}\t10.0.0.2\t80\ttcp\t5\t100\t4000\t140\t4500\n"
                   for i in range(3))
    f = tmp_path / "conn.log"
    f.write_text(ZEEK_HEAD + bad + good)
    p = load(f)
    assert p.input_used["flows_read"] == 4 and p.input_used["flows_used"] == 3
    assert any(w.startswith("1 of 4 flow records left out: a byte or packet count") and f"payload_rev {float(resp):g}" in w
               for w in p.warnings), p.warnings
    f.write_text(ZEEK_HEAD + bad + bad.replace("C1", "C0") + good[:good.index("\n") + 1])   # one of three: too little
    code = main(["traffic", "summarize", str(f)])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "only 1 of 3 flow records make physical sense" in err, err


@pytest.mark.parametrize("name, text, says", [
    ("conn.log", '{"id.orig_h": ' + "[" * 50_000 + "]" * 50_000 + "}\n", "nests JSON too deeply to be a Zeek record"),
    ("p.json", '{"bufsize_traffic_profile": 1, "x": ' + "[" * 50_000 + "]" * 50_000 + "}",
     "JSON nested too deeply to be a saved profile"),
])
def test_deeply_nested_json_is_one_line(tmp_path, capsys, name, text, says):
    f = tmp_path / name
    f.write_text(text)
    code = main(["traffic", "summarize", str(f)])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and says in err, err[:500]
    assert "Traceback" not in err


def test_byte_sums_never_wrap_negative(tmp_path):
    from bufsize.traffic import load

    # 3000 records of 2^50 bytes (the most one may carry) over 1e5 s each: the sum is 3.4e18 bytes,
    # 2.7e19 bits, beyond int64; every figure stays positive (it once read -1.87e+18 b/s)
    rows = "".join(f"{i},{i + 100_000},tcp,{2 ** 50},100\n" for i in range(3000))
    f = tmp_path / "big.csv"
    f.write_text(HEAD + rows)
    p = load(f)
    assert p.input_used["flows_used"] == 3000
    assert p.mean_rate_bps > 1e13 and p.peak_rate_bps > 1e13 and p.long_load_bps > 1e13


def test_implausible_records_are_left_out_with_a_count(tmp_path):
    from bufsize.traffic import load

    # one record claims 1e14 bytes in 1 s (800 Tb/s): left out, counted, the profile says so
    good = "".join(f"{i * 0.5},{i * 0.5 + 30},tcp,100,{100_000 + i}\n" for i in range(20))
    f = tmp_path / "r.csv"
    f.write_text(HEAD + good + "3,4,tcp,100,100000000000000\n")
    p = load(f)
    assert p.input_used["flows_read"] == 21 and p.input_used["flows_used"] == 20
    assert p.input_used["excluded"] == {"rate above 10 Tb/s": 1}
    # and its bytes are in no load figure: the offered load is the 20 others' over the 39.5 s
    assert p.mean_rate_bps == pytest.approx(sum(100_000 + i for i in range(20)) * 8 / 39.5, rel=1e-9)
    assert p.peak_rate_bps < 1e6
    assert any(w.startswith("1 of 21 flow records left out: rate above 10 Tb/s") for w in p.warnings), p.warnings
    from bufsize.traffic import report

    assert "input used                 20 of 21 flows (1 left out: rate above 10 Tb/s)" in report.text(p)


def test_records_outside_the_stated_capture_are_left_out(tmp_path):
    import pandas as pd

    from bufsize.traffic import load, read

    good = "".join(f"{i * 0.5},{i * 0.5 + 30},tcp,100,{100_000 + i}\n" for i in range(20))
    f = tmp_path / "r.csv"
    f.write_text(HEAD + good)
    rec = read(f)
    rec.meta["duration_s"] = 40.0  # the file says it covers 40 s; one flow ends at 100 s
    extra = rec.flows.iloc[[0]].copy()
    extra["end_s"] = 100.0
    rec.flows = pd.concat([rec.flows, extra], ignore_index=True)
    out = tmp_path / "r.parquet"
    rec.to_parquet(out)
    p = load(out)
    assert p.input_used["excluded"] == {"ends after the capture": 1}
    # most records nonsense: refused
    rec.flows["end_s"] = 100.0
    rec.to_parquet(out)
    with pytest.raises(Exception, match="only 0 of 21 flow records make physical sense"):
        load(out)


def test_flows_all_at_one_instant_are_refused(tmp_path, capsys):
    # 50 flows starting and ending at 5 s: once 5e7 arrivals/s and 31 456 packets recommended
    f = tmp_path / "r.csv"
    f.write_text(HEAD + "".join(f"5,5,tcp,100,{100_000 + i}\n" for i in range(50)))
    for args in (["traffic", "summarize", str(f)],
                 ["recommend", "--traffic", str(f), "--capacity", "10Mbps", "--no-verify"]):
        code = main(args)
        err = capsys.readouterr().err
        assert code == 2 and len(err.strip().splitlines()) == 1, err
        assert "the records span 0 s" in err and "need at least 1 s" in err, err


@pytest.mark.parametrize("field, value, says", [
    ("duration_s", "abc", "duration_s must be a number >= 0"),
    ("duration_s", 0, "duration_s must be a number > 0"),
    ("long_rtts_s", "x", "long_rtts_s must be a list of numbers"),
    ("rtt_cdf", 5, "rtt_cdf must map names to lists of numbers"),
    ("rtt_cdf", {"values": [0.01, 0.02], "cdf": [0.5]}, "rtt_cdf is not a CDF"),
    ("warnings", "w", "warnings must be a list of text"),
    ("long_flows", -3, "long_flows must be a whole number >= 0"),
    ("peak_rate_bps", -1e9, "peak_rate_bps must be a number >= 0"),
])
def test_a_saved_profile_with_values_of_the_wrong_kind_is_one_line(tmp_path, capsys, field, value, says):
    import json

    from bufsize.traffic import load

    good = "".join(f"{i * 0.5},{i * 0.5 + 30},tcp,100,{100_000 + i}\n" for i in range(20))
    f = tmp_path / "r.csv"
    f.write_text(HEAD + good)
    d = json.loads(load(f).to_json())
    d[field] = value
    bad = tmp_path / "p.json"
    bad.write_text(json.dumps(d))
    code = main(["recommend", "--traffic", str(bad), "--capacity", "10Mbps", "--no-verify"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"p.json: not a valid bufsize traffic profile: {says}" in err, err


@pytest.mark.parametrize("proto", ["inf", "nan", "1e300", "6.5", "-6", "300"])
def test_a_protocol_that_is_no_protocol_number_is_not_tcp(tmp_path, capsys, proto):
    # found by tests/traffic/test_reader_fuzz.py: proto inf raised OverflowError
    from bufsize.traffic import read

    f = tmp_path / "r.csv"
    f.write_text(HEAD + GOOD + f"0,3,{proto},100,100\n")
    rec = read(f)
    assert sorted(rec.flows["proto"]) == [0, 6, 6]


def test_records_starting_before_the_capture_are_left_out_with_a_count(tmp_path):
    import pandas as pd

    from bufsize.traffic import load, read

    good = "".join(f"{i * 0.5},{i * 0.5 + 30},tcp,100,{100_000 + i}\n" for i in range(20))
    f = tmp_path / "r.csv"
    f.write_text(HEAD + good)
    rec = read(f)
    early = rec.flows.iloc[[0, 1]].copy()
    early["start_s"] = -50.0  # the table's times begin at 0: 50 s before the capture
    rec.flows = pd.concat([rec.flows, early], ignore_index=True)
    out = tmp_path / "r.parquet"
    rec.to_parquet(out)
    p = load(out)
    assert p.input_used["flows_read"] == 22 and p.input_used["flows_used"] == 20
    assert p.input_used["excluded"] == {"starts before the capture": 2}
    assert any(w.startswith("2 of 22 flow records left out: starts before the capture (first: start -50 s")
               for w in p.warnings), p.warnings
    assert p.mean_rate_bps == pytest.approx(sum(100_000 + i for i in range(20)) * 8 / 39.5, rel=1e-9)


def test_a_row_dated_1970_among_rows_of_2024_is_refused_not_allocated(tmp_path, capsys):
    # one timestamp of 1970 among 2024's once asked for 12.7 GiB (a slot per second of the span)
    rows = "".join(f"2024-03-01T12:00:{i:02d},2024-03-01T12:00:{i + 30:02d},tcp,100,{100_000 + i}\n"
                   for i in range(20))
    code, cap = _run(tmp_path, capsys, rows + "1970-01-01T00:00:01,2024-03-01T12:00:40,tcp,100,5000\n")
    assert code == 2, cap.err
    lines = [ln for ln in cap.err.splitlines() if ln.strip()]
    assert len(lines) == 1 and "the records span 1.71e+09 s (row 21 starts first" in lines[0], cap.err
    assert "more than 1e+07 s (~116 days)" in lines[0]
